//! The C ABI: C programs built with gcc against `backend-user/include/cuda.h` and linked
//! with `-lcuda` against the release libcuda.so.1, which the README's test command builds
//! (`cargo build --release`) before `cargo test`.

use std::path::PathBuf;
use std::process::Command;

/// Kernel launches tests/c/driver_api.c makes (statistics and traces count them).
const DRIVER_API_LAUNCHES: usize = 13;

fn root() -> PathBuf {
    tests::built::root()
}

fn release_dir() -> PathBuf {
    tests::built::release_dir(&["libcuda.so.1", "rgdev"])
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
        .args(["-lcuda", "-lcudart", "-lpthread", "-lm", "-o"])
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
    // Every legacy unversioned name is exported beside its successor: those whose ABI the
    // _v2 symbols kept (tests/c/procaddr.c calls them), and the 32-bit ABI of CUDA before
    // 3.2 (tests/c/legacy.c).
    for s in [
        "cuMemAlloc",
        "cuMemcpy3D",
        "cuArrayCreate",
        "cuDeviceTotalMem",
        "cuCtxCreate",
        "cuCtxDestroy",
        "cuCtxPushCurrent",
        "cuCtxPopCurrent",
        "cuEventDestroy",
        "cuStreamDestroy",
        "cuLinkCreate",
        "cuLinkAddData",
        "cuLinkAddFile",
    ] {
        assert!(has(s), "libcuda.so does not export the legacy {s}");
    }
}

/// Build and run tests/c/NAME.c, which takes no arguments and prints "all checks passed".
fn run_c(name: &str) {
    run_c_on(name, &[]);
}

/// [`run_c`] with environment variables (a preset, say).
fn run_c_on(name: &str, env: &[(&str, &str)]) {
    let tag = env.iter().map(|(_, v)| v.replace(['/', '.'], "_")).collect::<Vec<_>>().join("-");
    let exe = build(name, &format!("direct{tag}"));
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", release_dir())
        .envs(env.iter().copied())
        .output()
        .expect("test program runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name} failed ({}):\n{stderr}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"), "{stderr}");
    let _ = std::fs::remove_file(exe);
}

/// libcudart.so.12 has CUDA's SONAME and exports every function its header declares.
#[test]
fn cudart_has_its_soname_and_exports_what_its_header_declares() {
    let lib = release_dir().join("libcudart.so");
    let dynamic = Command::new("readelf").arg("-dW").arg(&lib).output().expect("readelf runs");
    assert!(String::from_utf8_lossy(&dynamic.stdout).contains("Library soname: [libcudart.so.12]"));
    let syms = Command::new("nm").args(["-D", "--defined-only"]).arg(&lib).output().expect("nm runs");
    let syms = String::from_utf8_lossy(&syms.stdout);
    let exported: std::collections::BTreeSet<&str> = syms.lines().filter_map(|l| l.split_whitespace().last()).collect();
    let header = std::fs::read_to_string(root().join("backend-user/include/cuda_runtime_api.h")).unwrap();
    let declared: Vec<String> = header
        .lines()
        .filter_map(|l| l.split_once('(').map(|(head, _)| head))
        .filter_map(|head| head.rsplit([' ', '*']).next())
        .filter(|n| n.starts_with("cuda") || n.starts_with("__cuda"))
        .map(str::to_string)
        .collect();
    assert!(declared.len() > 50, "{declared:?}");
    let missing: Vec<&String> = declared.iter().filter(|n| !exported.contains(n.as_str())).collect();
    assert!(missing.is_empty(), "declared in cuda_runtime_api.h, not exported: {missing:?}");
    // The base name of a function CUDA 12 renamed stays exported for older programs.
    assert!(exported.contains("cudaGetDeviceProperties") && exported.contains("cudaGetDeviceProperties_v2"));
    // Every function of CUDA 12.9's runtime table is exported (those not implemented
    // return cudaErrorNotSupported: tests/cuda/apisurface.cu calls one).
    let table = std::fs::read_to_string(root().join("tests/data/cudart-12.9-api.txt")).unwrap();
    let names: Vec<&str> = table.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect();
    assert!(names.len() > 300, "{}", names.len());
    let missing: Vec<&&str> = names.iter().filter(|n| !exported.contains(**n)).collect();
    assert!(missing.is_empty(), "CUDA 12.9 runtime functions not exported: {missing:?}");
}

/// libcudart.so.12 as compiled programs use it: registration, launches through
/// `<<<>>>`'s calls, symbols, streams and events, errors, the shared context
/// (tests/c/runtime.c).
#[test]
fn runtime_api() {
    run_c("runtime");
}

/// cuGetProcAddress by base name and version, and the legacy unversioned entry points
/// (tests/c/procaddr.c).
#[test]
fn entry_points_by_name_and_legacy_symbols() {
    run_c("procaddr");
}

/// The legacy entry points with their 32-bit ABI (allocations below 4 GiB, 32-bit copy
/// and array descriptors, saturated sizes), the pre-CUDA-11 primary-context flags, and
/// cuMemAllocPitch / cuMemsetD2D* (tests/c/legacy.c).
#[test]
fn legacy_32_bit_abi_and_pitched_memory() {
    run_c("legacy");
}

/// Several GPUs and peer access through the Driver API (tests/c/peer.c): on one GPU, and
/// on two and eight (the DGX-1), where device 1 is an NVLink neighbour of device 0.
#[test]
fn several_gpus_and_peer_access() {
    let exe = build("peer", "direct");
    for (preset, says) in
        [("gv100", "1 device\n"), ("gv100x2", "2 devices, peer access\n"), ("dgx1", "8 devices, peer access\n")]
    {
        let out = Command::new(&exe)
            .env("LD_LIBRARY_PATH", release_dir())
            .env("RGDEV_PRESET", preset)
            .env("RGDEV_LOG", "off")
            .output()
            .expect("test program runs");
        let (o, e) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && o.contains(says) && o.contains("all checks passed"), "{preset}:\n{o}{e}");
    }
    let _ = std::fs::remove_file(exe);
}

/// Pointer attributes across contexts and memory kinds (tests/c/pointers.c).
#[test]
fn pointer_attributes() {
    run_c("pointers");
}

/// The virtual memory management API: one allocation mapped twice, access flags checked
/// by copies and faulting a kernel's write, handles and freeing (tests/c/vmm.c).
#[test]
fn virtual_memory_management() {
    run_c("vmm");
}

/// The device linker: a kernel calling a function of another PTX module (tests/c/link.c).
#[test]
fn linking_modules() {
    run_c("link");
}

/// Pitched copies at odd pitches and offsets, 3D slices (tests/c/copy2d.c).
#[test]
fn pitched_copies() {
    run_c("copy2d");
}

/// Every function cuda.h declares is exported by libcuda.so.1 (a C file taking the address
/// of each, macros and all, links), and every entry point the library implements is
/// declared (the rest are CUDA_ERROR_NOT_SUPPORTED stubs or legacy unversioned names).
#[test]
fn cuda_h_declares_what_the_library_exports() {
    let include = root().join("backend-user/include");
    let header = ["cuda.h", "cudaProfiler.h"].map(|h| std::fs::read_to_string(include.join(h)).unwrap()).join("\n");
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    // Declared functions: "CUresult NAME(" at the start of a line.
    let declared: std::collections::BTreeSet<String> = header
        .lines()
        .filter_map(|l| l.strip_prefix("CUresult "))
        .map(|rest| ident(rest.trim_start_matches("CUDAAPI ").trim_start()))
        .filter(|n| n.starts_with("cu"))
        .collect();
    // Names the header maps to versioned symbols ("#define cuX cuX_v2").
    let mapped: Vec<(String, String)> = header
        .lines()
        .filter_map(|l| l.strip_prefix("#define cu"))
        .filter_map(|rest| {
            let mut it = rest.split_whitespace();
            let (from, to) = (format!("cu{}", it.next()?), it.next()?.to_string());
            (to.starts_with("cu") && it.next().is_none()).then_some((from, to))
        })
        .collect();
    assert!(declared.len() > 150 && mapped.len() > 40, "{} declared, {} mapped", declared.len(), mapped.len());
    let (types, constants) = type_and_constant_names(&header);
    assert!(types.len() > 300 && constants.len() > 800, "{} types, {} constants", types.len(), constants.len());
    let mut c =
        String::from("#include <cuda.h>\n#include <cudaProfiler.h>\n#include <stdio.h>\nvoid *const table[] = {\n");
    for name in declared.iter().chain(mapped.iter().map(|(from, _)| from)) {
        c += &format!("    (void *){name},\n");
    }
    // Every type and constant the header declares, used as a program would.
    c += "};\nstatic long long names(void) {\n    long long sum = 0;\n";
    for t in &types {
        c += &format!("    sum += (long long)(size_t)(({t} *)0 + 1);\n");
    }
    for k in &constants {
        c += &format!("    sum += (long long)(size_t)({k});\n");
    }
    c += "    return sum;\n}\nint main(void) {\n    printf(\"%zu entry points\\n\", sizeof table / sizeof table[0]);\n    \
          return names() == 0;\n}\n";
    let dir = std::env::temp_dir().join(format!("rgdev-c-{}-decls", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, exe) = (dir.join("decls.c"), dir.join("decls"));
    std::fs::write(&src, c).unwrap();
    let out = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("backend-user/include"))
        .arg(&src)
        .arg("-L")
        .arg(release_dir())
        .args(["-lcuda", "-Wl,--no-undefined", "-o"])
        .arg(&exe)
        .output()
        .expect("gcc runs");
    assert!(out.status.success(), "a declared function is not exported:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).env("LD_LIBRARY_PATH", release_dir()).output().unwrap();
    let want = format!("{} entry points", declared.len() + mapped.len());
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), want);
    // The other way: every export is declared, implemented or not, except the older
    // versions of a name the header maps to its successor (the legacy unversioned name,
    // or an internal `_vN` such as cuGraphInstantiate_v2) and per-thread-stream variants.
    let syms =
        Command::new("nm").args(["-D", "--defined-only"]).arg(release_dir().join("libcuda.so")).output().unwrap();
    let syms = String::from_utf8_lossy(&syms.stdout);
    let versioned: std::collections::BTreeSet<&str> = mapped.iter().map(|(_, to)| to.as_str()).collect();
    let legacy = |n: &str| mapped.iter().any(|(from, _)| from == n);
    let older =
        |n: &str| n.rsplit_once("_v").is_some_and(|(base, v)| v.bytes().all(|b| b.is_ascii_digit()) && legacy(base));
    let undeclared: Vec<&str> = syms
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|n| n.starts_with("cu") && !n.ends_with("_ptds") && !n.ends_with("_ptsz"))
        .filter(|n| !declared.contains(*n) && !versioned.contains(n) && !legacy(n) && !older(n))
        .collect();
    assert!(undeclared.is_empty(), "exported but not declared in cuda.h: {undeclared:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The type names (typedefs) and constants (enumerators, object-like macros with a value)
/// that a header declares, as its text lays them out: `typedef ... NAME;`, `} NAME;`,
/// `typedef R (*NAME)(...)`, enumerators one per line inside `typedef enum`, and
/// `#define NAME VALUE`.
fn type_and_constant_names(header: &str) -> (Vec<String>, Vec<String>) {
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let last_ident = |s: &str| {
        let s = s.trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        let start = s.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        s[start..].to_string()
    };
    let (mut types, mut constants) = (Vec::new(), Vec::new());
    let mut in_enum = false;
    for line in header.lines() {
        let t = line.trim();
        if t.starts_with("typedef enum") && t.ends_with('{') {
            in_enum = true;
        } else if let Some((_, inner)) = t.strip_prefix("typedef enum").and_then(|r| r.split_once('{')) {
            // One line: `typedef enum X { A = 1, B } NAME;`.
            let (list, name) = inner.split_once('}').unwrap_or((inner, ""));
            constants.extend(list.split(',').map(|e| ident(e.trim())));
            types.push(last_ident(name));
        } else if let Some(rest) = line.strip_prefix('}') {
            in_enum = false;
            if rest.trim_end().ends_with(';') && !rest.trim().is_empty() {
                types.push(last_ident(rest));
            }
        } else if in_enum && t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            constants.push(ident(t));
        } else if t.starts_with("typedef") && t.ends_with(';') && !t.contains('{') {
            // A function-pointer type names itself in `(*NAME)` or `(CUDA_CB *NAME)`.
            let name = match t.find("*") {
                Some(i) if t[..i].ends_with('(') || t[..i].ends_with("CUDA_CB ") => ident(&t[i + 1..]),
                _ => last_ident(t),
            };
            types.push(name);
        } else if let Some(rest) = t.strip_prefix("#define ") {
            let mut it = rest.splitn(2, char::is_whitespace);
            let (name, value) = (it.next().unwrap_or(""), it.next().unwrap_or("").trim());
            if !name.contains('(') && !value.is_empty() && !name.starts_with("cu") {
                constants.push(name.to_string());
            }
        }
    }
    types.retain(|n| !n.is_empty());
    constants.retain(|n| !n.is_empty());
    (types, constants)
}

/// Mipmapped arrays: levels filled through cuMipmappedArrayGetLevel and sampled at a level
/// of detail through texture objects and references, against a CPU model (tests/c/mipmap.c).
#[test]
fn mipmapped_arrays() {
    run_c("mipmap");
}

/// Arrays, texture and surface objects sampled by the device's texture unit
/// (tests/c/texture.c), on one GPU and on one logical GPU over four.
#[test]
fn texture() {
    run_c("texture");
    run_c_on("texture", &[("RGDEV_PRESET", "gv100x4u")]);
}

/// Registered host memory (cuMemHostRegister) used in place by kernels and copies
/// (tests/c/hostreg.c).
#[test]
fn hostreg() {
    run_c("hostreg");
}

/// Texture and surface references (cuModuleGetTexRef, cuTexRefSet*, cuSurfRefSetArray)
/// bound at launch (tests/c/texref.c), on one GPU and on one logical GPU over four (each
/// GPU's part of a launch binds the first GPU's entries).
#[test]
fn texref() {
    run_c("texref");
    run_c_on("texref", &[("RGDEV_PRESET", "gv100x4u")]);
}

/// cuda.h as programs written against NVIDIA's use it: the include guard, CUDA_VERSION,
/// CUcomputemode, the versioned names (tests/c/header.c).
#[test]
fn the_header_works_as_nvidias_does_for_its_users() {
    run_c("header");
}

#[test]
fn driver_api_program_in_c() {
    let exe = build("driver_api", "direct");
    let needed = Command::new("readelf").arg("-dW").arg(&exe).output().expect("readelf runs");
    assert!(String::from_utf8_lossy(&needed.stdout).contains("Shared library: [libcuda.so.1]"));
    // Compiled against our header, a program links the versioned symbols, as with NVIDIA's.
    let undef = Command::new("nm").args(["-D", "--undefined-only"]).arg(&exe).output().expect("nm runs");
    let undef = String::from_utf8_lossy(&undef.stdout);
    let imports = |s: &str| undef.lines().any(|l| l.split_whitespace().last() == Some(s));
    assert!(imports("cuCtxCreate_v2") && !imports("cuCtxCreate") && !imports("cuCtxDestroy"), "{undef}");
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
    assert_eq!(launches, DRIVER_API_LAUNCHES as u64, "{line}");
    assert!(line.contains("ns simulated time"));
    // A failing program's status comes back.
    let st = Command::new(release_dir().join("rgdev")).args(["run", "--", "false"]).status().unwrap();
    assert_eq!(st.code(), Some(1));
    let _ = std::fs::remove_file(exe);
    let _ = std::fs::remove_file(module);
}

/// Texture and surface limits (tests/c/limits.c) on each architecture: array creation and
/// binding enforce what the attributes report, every attribute is answered, and the
/// figures are a real board's: a GF10x (compute 2.1) for Fermi, a Tesla P100 (6.0) for
/// later parts; layered cube maps, which rgdev lacks, report 0.
#[test]
fn texture_limits_follow_the_architecture() {
    let exe = build("limits", "arch");
    // (attribute number, value): 1D, 2D, 3D, 2D layered, 1D layered, gather, alternate 3D,
    // pitch alignment, cube, layered cube, surfaces 1D/2D/3D/layered/cube, linear 1D and
    // 2D (width, height, pitch), mipmapped 2D and 1D.
    #[rustfmt::skip]
    let maxwell: &[(u32, i64)] = &[
        (21, 131072), (22, 131072), (23, 65536), (24, 16384), (25, 16384), (26, 16384),
        (27, 32768), (28, 32768), (29, 2048), (42, 32768), (43, 2048), (45, 32768), (46, 32768),
        (47, 8192), (48, 8192), (49, 32768), (51, 32), (52, 32768), (53, 0), (54, 0),
        (55, 32768), (56, 131072), (57, 65536), (58, 16384), (59, 16384), (60, 16384),
        (61, 32768), (62, 2048), (63, 32768), (64, 32768), (65, 2048), (66, 32768), (67, 0), (68, 0),
        (69, 134217728), (70, 131072), (71, 65000), (72, 2097120), (73, 32768), (74, 32768), (77, 16384),
    ];
    #[rustfmt::skip]
    let fermi: &[(u32, i64)] = &[
        (21, 65536), (22, 65536), (23, 65535), (24, 2048), (25, 2048), (26, 2048),
        (27, 16384), (28, 16384), (29, 2048), (42, 16384), (43, 2048), (45, 16384), (46, 16384),
        (47, 0), (48, 0), (49, 0), (51, 32), (52, 16384), (53, 0), (54, 0),
        (55, 65536), (56, 65536), (57, 32768), (58, 65536), (59, 32768), (60, 2048),
        (61, 65536), (62, 2048), (63, 65536), (64, 32768), (65, 2048), (66, 32768), (67, 0), (68, 0),
        (69, 134217728), (70, 65000), (71, 65000), (72, 1048544), (73, 16384), (74, 16384), (77, 16384),
    ];
    for (preset, cc, want) in [("gv100", "cc 7.0", maxwell), ("gf100", "cc 2.0", fermi)] {
        let out = Command::new(&exe)
            .env("LD_LIBRARY_PATH", release_dir())
            .env("RGDEV_PRESET", preset)
            .output()
            .expect("limits runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{preset}: {}", String::from_utf8_lossy(&out.stderr));
        for line in [cc, "answered 147 of 147", "all checks passed"] {
            assert!(stdout.lines().any(|l| l == line), "{preset}: {line} not in:\n{stdout}");
        }
        for (attr, v) in want {
            let line = format!("attr {attr} {v}");
            assert!(stdout.lines().any(|l| l == line), "{preset}: {line} not in:\n{stdout}");
        }
        // The PCI identity (device id over vendor 0x10de) and the double-precision rate.
        assert_eq!(l_value(&stdout, 139) & 0xffff, 0x10de, "{preset}");
        assert_eq!(l_value(&stdout, 87), 2, "{preset}");
    }
    let _ = std::fs::remove_file(exe);
}

/// The value of attribute `attr` in limits.c's "attr N V" lines.
fn l_value(stdout: &str, attr: u32) -> i64 {
    let head = format!("attr {attr} ");
    let line = stdout.lines().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("attr {attr} missing"));
    line[head.len()..].parse().unwrap()
}

/// `rgdev run --preset` (a built-in name or a TOML file): the attributes follow it.
#[test]
fn device_attributes_follow_the_preset() {
    let exe = build("attrs", "preset");
    let run = |preset: &str| {
        let out = Command::new(release_dir().join("rgdev"))
            .args(["run", "--preset", preset, "--"])
            .arg(&exe)
            .output()
            .expect("rgdev runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let gf100 = run("gf100");
    // Fermi's texture limits are Fermi's; features rgdev lacks are 0 on any preset, those
    // it has 1 (VMM: cuMemCreate/cuMemMap on any preset's MMU).
    for line in [
        "cc 2.0",
        "sms 15",
        "clock_khz 1401000",
        "l2_bytes 786432",
        "mem_clock_khz 924000",
        "bus_bits 384",
        "tex1d 65536",
        "tex3d_depth 2048",
        "vmm 1",
        "cooperative 0",
        "numa_id -1",
        "global_l1 1",
        "answered 147 of 147",
    ] {
        assert!(gf100.lines().any(|l| l == line), "{line} not in:\n{gf100}");
    }
    let toml = std::env::temp_dir().join(format!("rgdev-c-{}-preset.toml", std::process::id()));
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n[board]\nsms = 7\n[l2]\nbytes = 1048576\n")
        .unwrap();
    let custom = run(toml.to_str().unwrap());
    for line in [
        "cc 7.0",
        "sms 7",
        "l2_bytes 1048576",
        "threads_per_sm 2048",
        "concurrent_kernels 0",
        "tex1d 131072",
        "tex3d_depth 16384",
        "vmm 1",
        "cooperative 1",
        "answered 147 of 147",
    ] {
        assert!(custom.lines().any(|l| l == line), "{line} not in:\n{custom}");
    }
    // A bad preset is refused before the program starts, naming the problem.
    std::fs::write(&toml, "board.sms = 0\n").unwrap();
    let out =
        Command::new(release_dir().join("rgdev")).args(["run", "--preset"]).arg(&toml).arg("--").arg(&exe).output();
    let out = out.unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("board.sms"));
    let _ = std::fs::remove_file(toml);
    let _ = std::fs::remove_file(exe);
}

/// `rgdev run --stats-json --trace`, then `rgdev timeline`.
#[test]
fn stats_json_trace_and_timeline() {
    let exe = build("driver_api", "json");
    let module = container("json");
    let tmp = |what: &str| std::env::temp_dir().join(format!("rgdev-c-{}-{what}", std::process::id()));
    let (json, trace, svg) = (tmp("stats.json"), tmp("trace.json"), tmp("timeline.svg"));
    let out = Command::new(release_dir().join("rgdev"))
        .args(["run", "--stats-json"])
        .arg(&json)
        .arg("--trace")
        .arg(&trace)
        .arg("--")
        .arg(&exe)
        .arg(root().join("kernels"))
        .arg(&module)
        .output()
        .expect("rgdev runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let kernels = stats["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), DRIVER_API_LAUNCHES, "one object per kernel launch");
    for k in kernels {
        assert!(k["name"].as_str().is_some_and(|n| !n.is_empty() && !n.starts_with("kernel@")), "{k}");
        assert!(k["cycles"].as_u64().unwrap() > 0 && k["warp_instructions"].as_u64().unwrap() > 0, "{k}");
    }
    assert!(kernels.iter().any(|k| k["name"] == "vecadd"));
    assert!(!stats["copies"].as_array().unwrap().is_empty());
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let events = t["traceEvents"].as_array().unwrap();
    assert_eq!(events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "kernel").count(), DRIVER_API_LAUNCHES);
    assert!(events.iter().any(|e| e["ph"] == "X" && e["cat"] == "copy"));
    assert!(events.iter().any(|e| e["ph"] == "C"), "per-SM occupancy counters");
    let st = Command::new(release_dir().join("rgdev")).arg("timeline").arg(&trace).arg("-o").arg(&svg).status();
    assert!(st.unwrap().success());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("vecadd") && text.contains("copy engine"));
    // Summarized occupancy, a legend with the kernels, round ticks at equal steps.
    assert!(text.contains("SM occupancy, mean of 80 SMs") && text.contains("<polygon"), "one curve, not 80 strips");
    assert!(text.contains(">vecadd</text>") && text.contains(">HtoD copy</text>"), "the legend");
    let ticks: Vec<f64> = text
        .split("text-anchor=\"middle\">")
        .skip(1)
        .map(|t| t.split(' ').next().unwrap().parse::<f64>().unwrap())
        .collect();
    assert!(ticks.len() >= 4, "{ticks:?}");
    let step = ticks[1] - ticks[0];
    let mag = 10f64.powf(step.log10().floor());
    assert!([1.0, 2.0, 5.0].iter().any(|m| (step / mag - m).abs() < 1e-9), "step {step}");
    assert!(
        ticks.windows(2).all(|p| (p[1] - p[0] - step).abs() < 1e-9) && (ticks[0] / step).fract() == 0.0,
        "{ticks:?}"
    );
    // Garbage in: an error, not a crash.
    std::fs::write(&trace, "{\"traceEvents\": 3}").unwrap();
    let out = Command::new(release_dir().join("rgdev")).arg("timeline").arg(&trace).arg("-o").arg(&svg).output();
    let out = out.unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("traceEvents"));
    for f in [json, trace, svg, module, exe] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn streams_and_events_program_in_c() {
    let exe = build("streams", "direct");
    let out = Command::new(&exe)
        .arg(root().join("kernels"))
        .env("LD_LIBRARY_PATH", release_dir())
        .output()
        .expect("test program runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "streams failed ({}):\n{stderr}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"));
    let _ = std::fs::remove_file(exe);
}

/// Regression (7b5e8b4 held the library's lock while cuCtxDestroy waited, so one context's
/// hung kernel froze every thread): another thread's calls go on while a context whose
/// kernel runs until the watchdog is destroyed.
#[test]
fn destroying_a_context_with_a_hung_kernel_blocks_no_other_thread() {
    let exe = build("hung_destroy", "direct");
    let preset = std::env::temp_dir().join(format!("rgdev-c-{}-hung.toml", std::process::id()));
    std::fs::write(&preset, "base = \"gv100\"\nwatchdog_cycles = 20000000\n").unwrap();
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", release_dir())
        .env("RGDEV_PRESET", &preset)
        .output()
        .expect("test program runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hung_destroy failed ({}):\n{stderr}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"), "{stderr}");
    let _ = std::fs::remove_file(exe);
    let _ = std::fs::remove_file(preset);
}

/// `rgdev run --check all`: compute-sanitizer's report shape on stderr for the seeded bugs
/// of tests/c/sanitize.c, ending with the error summary; an unknown tool is refused.
#[test]
fn rgdev_run_check_reports_seeded_bugs() {
    let exe = build("sanitize", "direct");
    let out = Command::new(release_dir().join("rgdev"))
        .args(["run", "--check", "all", "--"])
        .arg(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("rgdev runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"), "{stderr}");
    for want in [
        "========= RGDEV-SANITIZER (memcheck, racecheck, initcheck, synccheck)",
        "hazard on __shared__ memory at 0x",
        "=========     at step (PTX line ",
        "========= Invalid __global__ write of size 4 bytes",
        "=========     at fill (PTX line 16, pc ",
        ") by thread 100 in block (0,0,0)",
        "is 0 bytes after the 400-byte allocation at 0x",
        "========= ERROR SUMMARY: ",
    ] {
        assert!(stderr.contains(want), "missing `{want}` in:\n{stderr}");
    }
    let n: u64 =
        stderr.split("ERROR SUMMARY: ").nth(1).and_then(|s| s.split_whitespace().next()?.parse().ok()).unwrap();
    assert!(n >= 2, "{stderr}");
    let bad = Command::new(release_dir().join("rgdev")).args(["run", "--check", "leakcheck", "--", "true"]).output();
    let bad = bad.unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("unknown tool `leakcheck`"));
    let _ = std::fs::remove_file(exe);
}

/// Ctrl-C (SIGINT) while the program waits for a kernel: `rgdev run` still gets the
/// statistics (printed and written), and returns 128 + 2 as a shell would.
#[test]
fn an_interrupted_program_still_writes_its_statistics() {
    use std::io::{BufRead, BufReader};
    let exe = build("interrupt", "direct");
    let json = std::env::temp_dir().join(format!("rgdev-c-{}-interrupt.json", std::process::id()));
    let mut child = Command::new(release_dir().join("rgdev"))
        .args(["run", "--stats", "--stats-json"])
        .arg(&json)
        .arg("--")
        .arg(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("rgdev runs");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, "launched\n");
    // Interrupt the program itself, as the terminal does with the whole process group.
    let pgrep = Command::new("pgrep").arg("-f").arg(exe.file_name().unwrap()).output().unwrap();
    let pids = String::from_utf8_lossy(&pgrep.stdout).to_string();
    let pid = pids.lines().find(|p| p.trim().parse::<u32>().is_ok_and(|p| p != child.id())).expect("the program runs");
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(Command::new("kill").args(["-INT", pid.trim()]).status().unwrap().success());
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("rgdev: 1 kernel launches"), "{stderr}");
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(stats["copies"].is_array(), "{stats}");
    let _ = std::fs::remove_file(json);
    let _ = std::fs::remove_file(exe);
}

/// The `rgdev` command line follows the conventions (clap's): help on stdout with status
/// 0, `help CMD`, `--version`, errors naming the bad argument with status 2, `run PROG
/// ARGS...` without `--`, the program's exit status passed through (a signal as 128 + N),
/// and a non-zero status when an output file cannot be written.
#[test]
fn command_line_conventions() {
    let rgdev = || Command::new(release_dir().join("rgdev"));
    let out = |args: &[&str]| rgdev().args(args).output().expect("rgdev runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let o = out(&["--help"]);
    assert!(o.status.success() && text(&o.stdout).contains("Usage: rgdev"), "{}", text(&o.stderr));
    let o = out(&["help", "run"]);
    assert!(o.status.success() && text(&o.stdout).contains("--stats-json"));
    let o = out(&["run", "--help"]);
    assert!(o.status.success() && text(&o.stdout).contains("--check"));
    let o = out(&["--version"]);
    assert!(o.status.success() && text(&o.stdout).starts_with("rgdev "));
    let o = out(&["ptxas", "--help"]);
    assert!(o.status.success() && text(&o.stdout).contains("usage: rgdev ptxas"));
    let o = out(&["run", "--nope", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--nope"));
    let o = out(&["bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("bogus"));
    let o = out(&["run", "--check", "leakcheck", "/bin/true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("leakcheck"));
    // The program's own options follow it, with or without `--`.
    assert_eq!(out(&["run", "/bin/sh", "-c", "exit 3"]).status.code(), Some(3));
    assert_eq!(out(&["run", "--", "/bin/sh", "-c", "exit 4"]).status.code(), Some(4));
    assert_eq!(out(&["run", "/bin/sh", "-c", "kill -TERM $$"]).status.code(), Some(128 + 15));
    let o = out(&["run", "--stats-json", "/nonexistent-dir/s.json", "/bin/true"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("/nonexistent-dir/s.json"));
    let o = out(&["info", "--trace", "/nonexistent-dir/t.txt"]);
    assert!(!o.status.success());
}

/// `rgdev info` reports what deviceQuery does, as text and as JSON, for the preset asked
/// for (the device's name is the preset's: NV_PMC_BOOT_0 names only the architecture).
#[test]
fn info_reports_device_query_facts() {
    let run = |args: &[&str]| Command::new(release_dir().join("rgdev")).args(args).output().expect("rgdev runs");
    for (preset, cc, sms) in [("gv100", "7.0", 80), ("gf100", "2.0", 15)] {
        let o = run(&["info", "--json", "--preset", preset]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(v["name"], format!("rgdev {preset} (simulated)"));
        assert_eq!(v["compute_capability"], cc);
        assert_eq!(v["multiprocessors"], sms);
        for k in ["warp_size", "max_threads_per_block", "max_grid_dim", "memory_bus_width", "l2_cache_bytes"] {
            assert!(!v[k].is_null(), "{k} missing");
        }
        let text = String::from_utf8_lossy(&run(&["info", "--preset", preset]).stdout).into_owned();
        assert!(text.contains("warp size") && text.contains(&format!("rgdev {preset}")), "{text}");
    }
}
