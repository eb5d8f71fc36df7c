//! Runs the cudarc example against the release libcuda.so that the README's test command
//! builds before `cargo test`.
use std::path::PathBuf;
use std::process::Command;

#[test]
fn cudarc_program_runs_on_rgdev() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or(root.join("target"));
    let lib = target.join("release");
    assert!(lib.join("libcuda.so").exists(), "run `cargo build --release` first (the README's test command does)");
    let out = Command::new(env!("CARGO_BIN_EXE_cudarc-vecadd"))
        .arg(root.join("kernels/vecadd.ptx"))
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("compute capability 7.0"), "{stdout}");
    assert!(stdout.contains("through cudarc: correct"), "{stdout}");
}
