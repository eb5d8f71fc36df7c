//! NVIDIA's CUDA 12.9 headers, CCCL (Thrust, CUB, libcu++), ptxas and libdevice, fetched
//! from PyPI at test time and laid out as a CUDA installation that clang's `--cuda-path`
//! accepts, under `target/nvidia/cuda-12.9` (never in the repository).
//!
//! Three wheels, pinned: `nvidia-cuda-runtime-cu12` (the runtime's headers),
//! `nvidia-cuda-nvcc-cu12` (the `crt/` headers, ptxas, libdevice; it has no nvcc) and
//! `nvidia-cuda-cccl-cu12`. When they cannot be fetched (no network), [`toolkit`] says why and
//! the tests that need it report themselves skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The wheels, pinned to one CUDA 12.9 release.
const WHEELS: [(&str, &str, &str); 3] = [
    ("nvidia-cuda-runtime-cu12", "12.9.79", "cuda_runtime"),
    ("nvidia-cuda-nvcc-cu12", "12.9.86", "cuda_nvcc"),
    ("nvidia-cuda-cccl-cu12", "12.9.27", "cuda_cccl"),
];

/// The installation's directory (`include/`, `bin/ptxas`, `nvvm/libdevice/`), assembled once
/// per process; `Err` says why it could not be (for a skip message).
pub fn toolkit() -> Result<PathBuf, String> {
    static ONCE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    ONCE.get_or_init(assemble).clone()
}

/// `RGDEV_REQUIRE_NVIDIA=1` turns a skip for want of the wheels into a failure.
pub fn skip(why: &str) {
    assert!(std::env::var_os("RGDEV_REQUIRE_NVIDIA").is_none(), "NVIDIA's wheels are required: {why}");
    eprintln!("SKIPPED: NVIDIA's CUDA 12.9 wheels are not available: {why}");
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or(crate::built::root().join("target"))
}

fn assemble() -> Result<PathBuf, String> {
    let base = target().join("nvidia");
    let done = base.join("cuda-12.9");
    let stamp: String = WHEELS.iter().map(|(n, v, _)| format!("{n}=={v}\n")).collect();
    if std::fs::read_to_string(done.join("WHEELS")).ok().as_deref() == Some(&stamp) {
        return Ok(done);
    }
    let wheels = base.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(|e| format!("{}: {e}", wheels.display()))?;
    let staging = base.join(format!("staging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    for (name, version, _) in WHEELS {
        let have = find_wheel(&wheels, name, version);
        if have.is_none() {
            let out = Command::new("python3")
                .args(["-m", "pip", "download", "--no-deps", "--quiet", "--dest"])
                .arg(&wheels)
                .arg(format!("{name}=={version}"))
                .output()
                .map_err(|e| format!("python3 -m pip: {e}"))?;
            if !out.status.success() {
                return Err(format!("pip download {name}=={version}: {}", String::from_utf8_lossy(&out.stderr).trim()));
            }
        }
        let whl = find_wheel(&wheels, name, version).ok_or(format!("pip left no wheel of {name}"))?;
        unpack(&whl, &staging.join(name))?;
    }
    let tree = staging.join("cuda");
    for (name, _, dir) in WHEELS {
        copy_tree(&staging.join(name).join("nvidia").join(dir), &tree)?;
    }
    // clang's CUDA wrapper includes cuRAND's MTGP32 kernel header (for its redeclarations of
    // the built-in variables); cuRAND is not one of these wheels, and an empty header serves.
    std::fs::write(tree.join("include/curand_mtgp32_kernel.h"), "").map_err(|e| format!("{}: {e}", tree.display()))?;
    let ptxas = tree.join("bin/ptxas");
    make_executable(&ptxas)?;
    std::fs::write(tree.join("WHEELS"), &stamp).map_err(|e| format!("{}: {e}", tree.display()))?;
    let _ = std::fs::remove_dir_all(&done);
    std::fs::rename(&tree, &done).map_err(|e| format!("{}: {e}", done.display()))?;
    let _ = std::fs::remove_dir_all(&staging);
    Ok(done)
}

/// The wheels unpacked as pip installs them: a `site-packages` directory with their
/// `nvidia/<package>/` directories (under `target/nvidia/site-packages`), for `rgdev cc
/// --cuda-path` given the wheels rather than an installation. Needs [`toolkit`] first.
pub fn site_packages() -> Result<PathBuf, String> {
    toolkit()?;
    let base = target().join("nvidia");
    let site = base.join("site-packages");
    let stamp: String = WHEELS.iter().map(|(n, v, _)| format!("{n}=={v}\n")).collect();
    if std::fs::read_to_string(site.join("WHEELS")).ok().as_deref() == Some(&stamp) {
        return Ok(site);
    }
    let staging = base.join(format!("site-staging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    for (name, version, _) in WHEELS {
        let whl = find_wheel(&base.join("wheels"), name, version).ok_or(format!("no wheel of {name}"))?;
        unpack(&whl, &staging)?;
    }
    std::fs::write(staging.join("WHEELS"), &stamp).map_err(|e| format!("{}: {e}", staging.display()))?;
    let _ = std::fs::remove_dir_all(&site);
    std::fs::rename(&staging, &site).map_err(|e| format!("{}: {e}", site.display()))?;
    Ok(site)
}

/// Unzip wheel `whl` into `dest`.
fn unpack(whl: &Path, dest: &Path) -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(whl)
        .arg(dest)
        .output()
        .map_err(|e| format!("python3 -m zipfile: {e}"))?;
    if !out.status.success() {
        return Err(format!("unpacking {}: {}", whl.display(), String::from_utf8_lossy(&out.stderr)));
    }
    Ok(())
}

fn find_wheel(dir: &Path, name: &str, version: &str) -> Option<PathBuf> {
    let prefix = format!("{}-{version}-", name.replace('-', "_"));
    std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).find(|p| {
        let f = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
        f.starts_with(&prefix) && f.ends_with(".whl")
    })
}

/// Copies `from` into `to`, merging directories; a file already there is kept.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?.flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else if !dst.exists() && src.file_name() != Some("__init__.py".as_ref()) {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

fn make_executable(p: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?.permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(p, perm).map_err(|e| format!("{}: {e}", p.display()))
}
