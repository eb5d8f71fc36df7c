//! The docs name the files where things happen (`runtime-core/src/uvm/fault.rs`); every
//! source path they name must exist, so that a move between layers cannot leave them
//! pointing at rooms that are gone.

use std::path::Path;

/// Every `` `dir/.../file.ext` `` path with a directory of the repository in `text`.
fn paths(text: &str) -> Vec<String> {
    let roots =
        ["hw/", "fifo/", "ptx/", "fake-pci/", "runtime-core/", "backend-user/", "backend-kmod/", "tests/", "kernels/"];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| roots.iter().any(|r| t.starts_with(r)))
        .filter(|t| !t.contains(' ') && !t.contains('*') && !t.contains('{'))
        .map(|t| t.trim_end_matches(['.', ',', ':', ')']).to_string())
        .filter(|t| t.ends_with(".rs") || t.ends_with(".cu") || t.ends_with(".h") || t.ends_with(".ptx"))
        .collect()
}

#[test]
fn every_source_path_the_docs_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs")).unwrap().map(|e| e.unwrap().path()).collect();
    docs.push(root.join("README.md"));
    let mut missing = Vec::new();
    let mut seen = 0;
    for d in docs.iter().filter(|p| p.extension().is_some_and(|x| x == "md")) {
        let text = std::fs::read_to_string(d).unwrap();
        for p in paths(&text) {
            seen += 1;
            // `tests/x.rs` is the tests crate's test `x` (tests/tests/x.rs).
            if !root.join(&p).exists() && !root.join("tests").join(&p).exists() {
                missing.push(format!("{}: {p}", d.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(seen > 50, "only {seen} paths found: the scan is broken");
    assert!(missing.is_empty(), "docs name files that do not exist:\n{}", missing.join("\n"));
}

#[test]
fn the_scan_finds_paths_in_backticks() {
    assert_eq!(
        paths("see `runtime-core/src/uvm/mod.rs`, and `x` or `fake-pci/src/clock.rs`."),
        ["runtime-core/src/uvm/mod.rs", "fake-pci/src/clock.rs"]
    );
}
