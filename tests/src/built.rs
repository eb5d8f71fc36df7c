//! Where the tests find what the README's test command built: the repository root and
//! `target/release` (libcuda.so.1, libcudart.so.12, the `rgdev` tool), which
//! `cargo build --release` makes before `cargo test`.

use std::path::PathBuf;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `target/release` (or `$CARGO_TARGET_DIR/release`), checked to hold `files`.
pub fn release_dir(files: &[&str]) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or(root().join("target"));
    let dir = target.join("release");
    for f in files {
        assert!(
            dir.join(f).exists(),
            "{} has no {f}: run `cargo build --release` first (the README's test command does)",
            dir.display()
        );
    }
    dir
}

/// `rgdev cc tests/cuda/NAME.cu -I tests/cuda EXTRA... -o EXE`, which must succeed.
pub fn compile_cuda(name: &str, extra: &[&str], exe: &std::path::Path) {
    let out = std::process::Command::new(release_dir(&["libcudart.so", "rgdev"]).join("rgdev"))
        .arg("cc")
        .arg(root().join(format!("tests/cuda/{name}.cu")))
        .arg("-I")
        .arg(root().join("tests/cuda"))
        .args(extra)
        .arg("-o")
        .arg(exe)
        .output()
        .expect("rgdev cc runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(out.status.success(), "rgdev cc {name} failed:\n{}{}", text(&out.stdout), text(&out.stderr));
}
