//! The `rgdev` command's help and error texts and exit statuses, as snapshots
//! (`tests/cmd/*.trycmd`; `TRYCMD=overwrite cargo test -p backend-user --test snapshots`
//! rewrites them after a deliberate change).

#[test]
fn help_and_error_texts() {
    trycmd::TestCases::new()
        .register_bin("rgdev", std::path::Path::new(env!("CARGO_BIN_EXE_rgdev")))
        .case("tests/cmd/*.trycmd");
}
