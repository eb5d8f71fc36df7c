//! Programs built against NVIDIA's own headers: `rgdev cc --cuda-path` with CUDA 12.9's
//! headers, CCCL (Thrust, CUB) and libdevice from PyPI (`tests::nvidia`, in
//! `target/nvidia`), run on rgdev's libcudart.so.12: a Thrust sort, CUB's block and device
//! reductions, a cooperative-groups grid reduction (cudaLaunchCooperativeKernel, the grid
//! workspace in %envreg1:2), a WMMA GEMM and libcu++'s `cuda::barrier` (PTX mbarrier),
//! each checked against the host by the program.

use std::path::PathBuf;
use std::process::Command;
use tests::built::{release_dir, root};

/// Build `tests/cuda/nvidia/NAME.cu` with `--cuda-path`, run it (with `RGDEV_PRESET` =
/// `preset` when given), and return its output.
fn build_and_run(tk: &std::path::Path, name: &str, extra: &[&str], preset: Option<&str>) -> String {
    build_and_run_env(tk, name, extra, preset, &[], "")
}

/// As [`build_and_run`], with `env` set for `rgdev cc`, in a scratch directory named with
/// `tag` too (tests building the same program run in parallel).
fn build_and_run_env(
    tk: &std::path::Path,
    name: &str,
    extra: &[&str],
    preset: Option<&str>,
    env: &[(&str, &std::path::Path)],
    tag: &str,
) -> String {
    let rel = release_dir(&["rgdev", "libcudart.so.12"]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nvidia-{name}{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    let out = Command::new(rel.join("rgdev"))
        .arg("cc")
        .arg("--cuda-path")
        .arg(tk)
        .envs(env.iter().copied())
        .args(extra)
        .arg(root().join(format!("tests/cuda/nvidia/{name}.cu")))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("rgdev cc runs");
    assert!(out.status.success(), "rgdev cc {name}: {}", String::from_utf8_lossy(&out.stderr));
    let mut cmd = Command::new(&exe);
    cmd.env("LD_LIBRARY_PATH", &rel);
    if let Some(p) = preset {
        let file = dir.join("preset.toml");
        std::fs::write(&file, p).unwrap();
        cmd.env("RGDEV_PRESET", &file);
    }
    let run = cmd.output().expect("the program runs");
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{name}: {}\n{text}{}", run.status, String::from_utf8_lossy(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[test]
fn thrust_cub_cooperative_groups_and_wmma_with_nvidia_headers() {
    let tk = match tests::nvidia::toolkit() {
        Ok(p) => p,
        Err(why) => return tests::nvidia::skip(&why),
    };
    assert!(build_and_run(&tk, "thrust_sort", &["-std=c++17"], None).contains("thrust: sorted 1000, sum 499500"));
    let cub = build_and_run(&tk, "cub_reduce", &["-std=c++17"], None);
    assert!(cub.contains("cub: block reduce, block scan, device reduce"));
    assert!(build_and_run(&tk, "cg_grid", &["-std=c++17"], None).contains("cg grid sum: 49155 (want 49155)"));
    assert!(build_and_run(&tk, "wmma_gemm", &[], None).contains("wmma gemm: 0 wrong"));
    // libcu++'s cuda::barrier is sm_80 code (PTX mbarrier): a gv100 that reports 8.0.
    let sm80 = "base = \"gv100\"\n[board]\ncc_major = 8\ncc_minor = 0\n";
    let barrier = build_and_run(&tk, "cuda_barrier", &["-std=c++17", "-arch=sm_80"], Some(sm80));
    assert!(barrier.contains("cuda::barrier: 0 wrong"));
}

/// The wheels as pip installs them, given as their `site-packages` and found through
/// python3's path (`--cuda-path pip`): rgdev cc lays out an installation of links to them.
#[test]
fn pip_installed_wheels_as_the_cuda_path() {
    let site = match tests::nvidia::site_packages() {
        Ok(p) => p,
        Err(why) => return tests::nvidia::skip(&why),
    };
    let sorted = "thrust: sorted 1000, sum 499500";
    assert!(build_and_run_env(&site, "thrust_sort", &["-std=c++17"], None, &[], "-site").contains(sorted));
    let pip = std::path::Path::new("pip");
    let out = build_and_run_env(pip, "thrust_sort", &["-std=c++17"], None, &[("PYTHONPATH", &site)], "-pip");
    assert!(out.contains(sorted));
    // python3's path without the wheels: named (unless the system's python has them).
    let rel = release_dir(&["rgdev"]);
    let none = Command::new(rel.join("rgdev"))
        .args(["cc", "--cuda-path", "pip", "x.cu", "-o", "/dev/null"])
        .env("PYTHONNOUSERSITE", "1")
        .env("PYTHONPATH", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(!none.status.success());
    assert!(err.contains("hold no nvidia-cuda-runtime-cu12") || err.contains("x.cu"), "{err}");
}

/// A directory that is not a CUDA installation is refused by name.
#[test]
fn a_cuda_path_without_headers_is_refused() {
    let rel = release_dir(&["rgdev"]);
    let out = Command::new(rel.join("rgdev"))
        .args(["cc", "--cuda-path", "/nonexistent", "x.cu", "-o", "/dev/null"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a CUDA installation (no include/cuda.h)"));
}
