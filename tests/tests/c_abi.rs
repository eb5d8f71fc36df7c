//! The C ABI: C programs built with gcc against `backend-user/include/cuda.h` and linked
//! with `-lcuda` against the release libcuda.so.1, which the README's test command builds
//! (`cargo build --release`) before `cargo test`.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn release_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or(root().join("target"));
    let dir = target.join("release");
    assert!(
        dir.join("libcuda.so.1").exists() && dir.join("rgdev").exists(),
        "{} has no libcuda.so.1 or rgdev: run `cargo build --release` first (the README's test command does)",
        dir.display()
    );
    dir
}

/// kernels/vecadd.ptx as an rgdev container, written by `rgdev ptxas -o`.
fn container(tag: &str) -> PathBuf {
    let out = std::env::temp_dir().join(format!("rgdev-c-{}-vecadd-{tag}.rgmod", std::process::id()));
    let st = Command::new(release_dir().join("rgdev"))
        .arg("ptxas")
        .arg(root().join("kernels/vecadd.ptx"))
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    out
}

/// Compile one C test program; returns its path.
fn build(name: &str, tag: &str) -> PathBuf {
    let lib = release_dir();
    let out = std::env::temp_dir().join(format!("rgdev-c-{}-{name}-{tag}", std::process::id()));
    let src = root().join("tests/c").join(format!("{name}.c"));
    let st = Command::new("gcc")
        .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L", "-I"])
        .arg(root().join("backend-user/include"))
        .arg(&src)
        .arg("-L")
        .arg(&lib)
        .args(["-lcuda", "-lpthread", "-o"])
        .arg(&out)
        .status()
        .expect("gcc runs");
    assert!(st.success(), "gcc failed on {}", src.display());
    out
}

#[test]
fn library_has_the_cuda_soname_and_versioned_symbols() {
    let lib = release_dir().join("libcuda.so");
    let dynamic = Command::new("readelf").arg("-dW").arg(&lib).output().expect("readelf runs");
    assert!(String::from_utf8_lossy(&dynamic.stdout).contains("Library soname: [libcuda.so.1]"));
    let syms = Command::new("nm").args(["-D", "--defined-only"]).arg(&lib).output().expect("nm runs");
    let syms = String::from_utf8_lossy(&syms.stdout);
    let has = |s: &str| syms.lines().any(|l| l.split_whitespace().last() == Some(s));
    for s in [
        "cuInit",
        "cuCtxCreate_v2",
        "cuCtxDestroy_v2",
        "cuCtxPushCurrent_v2",
        "cuCtxPopCurrent_v2",
        "cuMemAlloc_v2",
        "cuMemFree_v2",
        "cuMemAllocHost_v2",
        "cuMemGetInfo_v2",
        "cuMemHostGetDevicePointer_v2",
        "cuMemcpyHtoD_v2",
        "cuMemcpyDtoH_v2",
        "cuMemcpyDtoD_v2",
        "cuMemcpyHtoDAsync_v2",
        "cuMemcpyDtoHAsync_v2",
        "cuMemsetD8_v2",
        "cuMemsetD32_v2",
        "cuModuleGetGlobal_v2",
        "cuDeviceTotalMem_v2",
        "cuStreamDestroy_v2",
        "cuEventDestroy_v2",
        "cuModuleLoadDataEx",
        "cuLaunchKernel",
        "cuLaunchGrid",
        "cuParamSeti",
        "cuOccupancyMaxPotentialBlockSize",
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        "cuDevicePrimaryCtxRetain",
        "cuMemHostAlloc",
        "cuMemFreeHost",
    ] {
        assert!(has(s), "libcuda.so does not export {s}");
    }
    // NVIDIA's header maps these names to _v2 symbols; exporting the bare name instead
    // would hide a header bug.
    assert!(!has("cuMemAlloc") && !has("cuCtxCreate"));
}

#[test]
fn driver_api_program_in_c() {
    let exe = build("driver_api", "direct");
    let needed = Command::new("readelf").arg("-dW").arg(&exe).output().expect("readelf runs");
    assert!(String::from_utf8_lossy(&needed.stdout).contains("Shared library: [libcuda.so.1]"));
    let module = container("direct");
    let out = Command::new(&exe)
        .arg(root().join("kernels"))
        .arg(&module)
        .env("LD_LIBRARY_PATH", release_dir())
        .output()
        .expect("test program runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "driver_api failed ({}):\n{stderr}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"));
    let _ = std::fs::remove_file(exe);
    let _ = std::fs::remove_file(module);
}

#[test]
fn rgdev_run_runs_an_unmodified_program_and_reports_stats() {
    let exe = build("driver_api", "run");
    let module = container("run");
    // No LD_LIBRARY_PATH: `rgdev run` finds the library itself.
    let out = Command::new(release_dir().join("rgdev"))
        .args(["run", "--stats", "--"])
        .arg(&exe)
        .arg(root().join("kernels"))
        .arg(&module)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("rgdev runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = stderr.lines().find(|l| l.contains("kernel launches")).expect("statistics at exit");
    let launches: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(launches, 11, "{line}");
    assert!(line.contains("ns simulated time"));
    // A failing program's status comes back.
    let st = Command::new(release_dir().join("rgdev")).args(["run", "--", "false"]).status().unwrap();
    assert_eq!(st.code(), Some(1));
    let _ = std::fs::remove_file(exe);
    let _ = std::fs::remove_file(module);
}
