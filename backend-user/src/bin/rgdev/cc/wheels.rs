//! NVIDIA's CUDA headers as pip installs them: the wheels `nvidia-cuda-runtime-cu12` (the
//! runtime's headers), `nvidia-cuda-nvcc-cu12` (the `crt/` headers and libdevice) and, if
//! present, `nvidia-cuda-cccl-cu12` (Thrust, CUB, libcu++), each a package directory
//! `nvidia/<name>/` of a Python `site-packages`. clang's `--cuda-path` wants one
//! installation, so `rgdev cc` lays one out of links to them in its work directory.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The package directories under `nvidia/`: (name, needed).
const PACKAGES: [(&str, bool); 3] = [("cuda_runtime", true), ("cuda_nvcc", true), ("cuda_cccl", false)];

/// Whether `dir` holds the wheels' `nvidia/` packages (a `site-packages`), or is that
/// `nvidia/` directory itself: the `nvidia/` directory.
pub(super) fn packages(dir: &Path) -> Option<PathBuf> {
    let runtime = |d: &Path| d.join("cuda_runtime/include/cuda_runtime.h").is_file();
    [dir.join("nvidia"), dir.to_path_buf()].into_iter().find(|d| runtime(d))
}

/// The `nvidia/` package directory of the first `site-packages` on python3's path that has
/// the wheels (`--cuda-path pip`).
pub(super) fn find() -> Result<PathBuf, String> {
    let script =
        "import site, sys\nfor p in sys.path + site.getsitepackages() + [site.getusersitepackages()]: print(p)";
    let out =
        Command::new("python3").args(["-c", script]).output().map_err(|e| format!("--cuda-path pip: python3: {e}"))?;
    let paths = String::from_utf8_lossy(&out.stdout).lines().map(PathBuf::from).collect::<Vec<_>>();
    paths.iter().find_map(|p| packages(p)).ok_or_else(|| {
        "--cuda-path pip: python3's site-packages hold no nvidia-cuda-runtime-cu12 \
         (pip install nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-cccl-cu12)"
            .to_string()
    })
}

/// A CUDA installation at `root` made of links into the packages of `nvidia`: `include/`
/// with every header of the three (the first package's wins), `nvvm/libdevice/` and `bin/`
/// from `cuda_nvcc`.
pub(super) fn lay_out(nvidia: &Path, root: &Path) -> Result<PathBuf, String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let include = root.join("include");
    std::fs::create_dir_all(&include).map_err(|e| err(&include, e))?;
    for (name, needed) in PACKAGES {
        let from = nvidia.join(name).join("include");
        if !from.is_dir() {
            if needed {
                return Err(format!(
                    "{}: no {name} package (nvidia-{}-cu12)",
                    nvidia.display(),
                    name.replace('_', "-")
                ));
            }
            continue;
        }
        for e in std::fs::read_dir(&from).map_err(|e| err(&from, e))?.flatten() {
            let to = include.join(e.file_name());
            if to.symlink_metadata().is_err() && e.file_name() != "__init__.py" {
                std::os::unix::fs::symlink(e.path(), &to).map_err(|e| err(&to, e))?;
            }
        }
    }
    // clang's CUDA wrapper includes cuRAND's MTGP32 kernel header, which is not in these
    // wheels: an empty one serves.
    let curand = include.join("curand_mtgp32_kernel.h");
    if curand.symlink_metadata().is_err() {
        std::fs::write(&curand, "").map_err(|e| err(&curand, e))?;
    }
    let nvcc = nvidia.join("cuda_nvcc");
    for sub in ["nvvm", "bin"] {
        let (from, to) = (nvcc.join(sub), root.join(sub));
        if from.is_dir() {
            std::os::unix::fs::symlink(&from, &to).map_err(|e| err(&to, e))?;
        } else {
            std::fs::create_dir_all(&to).map_err(|e| err(&to, e))?;
        }
    }
    if !root.join("nvvm/libdevice").is_dir() {
        return Err(format!("{}: no libdevice in cuda_nvcc (nvidia-cuda-nvcc-cu12)", nvidia.display()));
    }
    Ok(root.to_path_buf())
}
