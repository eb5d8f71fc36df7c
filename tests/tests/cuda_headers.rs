//! rgdev's CUDA headers against NVIDIA's CUDA 12.9 headers (fetched from PyPI into
//! `target/nvidia`): every function (with its canonical type), type, template, enumerator (with
//! its value), public member and macro (with its value) that `cuda.h`, `cuda_runtime_api.h`,
//! `driver_types.h`, `vector_types.h`, `cuda_fp16.h`, `cuda_bf16.h`, `mma.h`,
//! `cooperative_groups.h` and `cuda_occupancy.h` declare must be declared alike by rgdev's. Both sets are read by
//! clang, in CUDA device mode for sm_80, from the same translation unit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use tests::built::root;
use tests::decls::{Decl, defined_names, expand, int_value, parse_ast, parse_macros};

const HEADERS: [&str; 9] = [
    "cuda.h",
    "cuda_runtime_api.h",
    "driver_types.h",
    "vector_types.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
    "mma.h",
    "cooperative_groups.h",
    "cuda_occupancy.h",
];

/// The files whose declarations count, relative to NVIDIA's `include/` (the headers above and
/// the implementation headers they are split into).
fn counted(rel: &str) -> Option<&'static str> {
    let base = rel.rsplit('/').next().unwrap_or(rel);
    Some(match base {
        "cuda.h" => "cuda.h",
        "cuda_runtime_api.h" => "cuda_runtime_api.h",
        "driver_types.h" => "driver_types.h",
        "vector_types.h" => "vector_types.h",
        "cuda_fp16.h" | "cuda_fp16.hpp" => "cuda_fp16.h",
        "cuda_bf16.h" | "cuda_bf16.hpp" => "cuda_bf16.h",
        "mma.h" | "mma.hpp" => "mma.h",
        "cuda_occupancy.h" => "cuda_occupancy.h",
        _ if rel.starts_with("cooperative_groups") => "cooperative_groups.h",
        _ => return None,
    })
}

/// A name a program may use: not an implementation detail of NVIDIA's headers.
fn public(name: &str) -> bool {
    // Helpers of cuda_fp16.hpp's and cuda_bf16.hpp's implementation.
    const HELPERS: [&str; 5] =
        ["__float_simpl_sinf", "__float_simpl_cosf", "__hsin_internal", "__hcos_internal", "IF_DEVICE_OR_CUDACC"];
    // Cooperative groups' implementation: its base classes (`thread_group_base`, the
    // `__static_size_...` family: what they give programs is checked through the groups that
    // inherit it, by tests/cuda/cg.cu) and members named with a leading underscore.
    let cg_internal = |s: &str| s == "thread_group_base" || (s.starts_with('_') && !s.starts_with("__v"));
    let cg = name.starts_with("cooperative_groups::");
    !HELPERS.contains(&name)
        && !name.split("::").any(|s| {
            s == "details"
                || s.starts_with("__internal")
                || s.starts_with("_CG_")
                || s.starts_with("__nv_cvt")
                || (cg && cg_internal(s))
        })
}

/// The occupancy calculator's API is the four functions its header documents; the header's
/// other functions (`cudaOccSMemPerBlock`, `__occMin`, ...) are the steps of NVIDIA's
/// implementation, which rgdev's does its own way.
fn occupancy_helper(header: &str, d: &Decl) -> bool {
    const API: [&str; 4] = [
        "cudaOccMaxActiveBlocksPerMultiprocessor",
        "cudaOccMaxPotentialOccupancyBlockSize",
        "cudaOccMaxPotentialOccupancyBlockSizeVariableSMem",
        "cudaOccAvailableDynamicSMemPerBlock",
    ];
    let base = d.name.rsplit("::").next().unwrap_or(&d.name);
    header == "cuda_occupancy.h" && kind_class(d.kind) == "callable" && !API.contains(&base) && !d.name.contains("::")
}

fn clang() -> String {
    std::env::var("RGDEV_CLANG").unwrap_or_else(|_| "clang-19".into())
}

fn dump(args: &[&str], src: &Path, what: &[&str]) -> String {
    let out = Command::new(clang())
        .args(["-x", "cuda", "--cuda-device-only", "-nocudalib", "--cuda-gpu-arch=sm_80", "-fno-color-diagnostics"])
        .args(["-Wno-unknown-cuda-version", "-std=c++17"])
        .args(args)
        .args(what)
        .arg(src)
        .output()
        .expect("clang runs");
    assert!(out.status.success(), "clang {args:?} {what:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn rgdev_headers_declare_what_nvidia_headers_declare() {
    let tk = match tests::nvidia::toolkit() {
        Ok(p) => p,
        Err(why) => return tests::nvidia::skip(&why),
    };
    let work = tk.parent().unwrap().join("completeness");
    std::fs::create_dir_all(&work).unwrap();
    let src = work.join("all.cu");
    // A header rgdev lacks is left out (its declarations are then all missing), not an error.
    let text: String = HEADERS.iter().map(|h| format!("#if __has_include(<{h}>)\n#include <{h}>\n#endif\n")).collect();
    std::fs::write(&src, text).unwrap();
    let inc = tk.join("include");
    let cuda_path = format!("--cuda-path={}", tk.display());
    let ours = root().join("backend-user/include");
    let ours_i = format!("-I{}", ours.display());
    let nv_args = [cuda_path.as_str()];
    let our_args = ["-nocudainc", ours_i.as_str(), "-include", "cuda_runtime.h"];
    let ast = ["-fsyntax-only", "-Xclang", "-ast-dump"];
    let dm = ["-E", "-dM"];

    let inc_s = format!("{}/", inc.display());
    let theirs: Vec<(&str, Decl)> = parse_ast(&dump(&nv_args, &src, &ast))
        .into_iter()
        .filter_map(|d| {
            let h = counted(d.file.strip_prefix(&inc_s)?)?;
            (public(&d.name) && !occupancy_helper(h, &d)).then(|| (h, unversioned(d)))
        })
        .collect();
    let mine: Vec<Decl> = parse_ast(&dump(&our_args, &src, &ast)).into_iter().map(unversioned).collect();
    let mut have: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
    for d in &mine {
        have.entry((kind_class(d.kind), d.name.as_str())).or_default().insert(d.what.as_str());
    }

    let mut report: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut checked: BTreeMap<&str, usize> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for (h, d) in &theirs {
        if !seen.insert((d.kind, d.name.as_str(), d.what.as_str())) {
            continue;
        }
        *checked.entry(h).or_default() += 1;
        let problem = match have.get(&(kind_class(d.kind), d.name.as_str())) {
            None => Some(format!("{} {}: missing", d.kind, d.name)),
            Some(w) if !d.what.is_empty() && !w.contains(d.what.as_str()) => Some(format!(
                "{} {}: NVIDIA's is `{}`, rgdev's {}",
                d.kind,
                d.name,
                d.what,
                w.iter().map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ")
            )),
            _ => None,
        };
        if let Some(p) = problem {
            report.entry(h).or_default().push(p);
        }
    }

    // Macros: those the counted headers' text defines, by value.
    let nv_macros = parse_macros(&dump(&nv_args, &src, &dm));
    let my_macros = parse_macros(&dump(&our_args, &src, &dm));
    for h in HEADERS {
        let mut names = BTreeSet::new();
        for f in files_of(&inc, h) {
            names.extend(defined_names(&std::fs::read_to_string(&f).unwrap()));
        }
        for n in names {
            let Some(v) = nv_macros.get(&n) else { continue }; // defined under other conditions
            if n.starts_with('_') || !public(&n) {
                continue;
            }
            *checked.entry(h).or_default() += 1;
            let problem = match my_macros.get(&n) {
                None => Some(format!("macro {n}: missing")),
                Some(m) if m != v && !same_value(&nv_macros, &my_macros, &n) => {
                    Some(format!("macro {n}: NVIDIA's is `{v}`, rgdev's `{m}`"))
                }
                _ => None,
            };
            if let Some(p) = problem {
                report.entry(h).or_default().push(p);
            }
        }
    }

    let mut text = String::new();
    let mut total = 0;
    for h in HEADERS {
        let r = report.get(h).map(Vec::as_slice).unwrap_or(&[]);
        total += r.len();
        text += &format!("## {h}: {} checked, {} missing or different\n", checked.get(h).unwrap_or(&0), r.len());
        for p in r {
            text += &format!("{p}\n");
        }
    }
    std::fs::write(work.join("report.txt"), &text).unwrap();
    let summary: Vec<String> = text.lines().filter(|l| l.starts_with("## ")).map(str::to_string).collect();
    eprintln!("{}", summary.join("\n"));
    let all: usize = checked.values().sum();
    assert!(all > 4500, "only {all} declarations read from NVIDIA's headers: the reader lost track of them");
    assert_eq!(total, 0, "rgdev's headers differ from CUDA 12.9's:\n{text}");
}

/// A function type with its parameters' top-level qualifiers left out (`int (const int)` is
/// `int (int)`: they are not part of the type; clang prints them as declared).
fn unqualified(t: &str) -> String {
    let (Some(open), Some(close)) = (t.find('('), t.rfind(')')) else { return t.to_string() };
    if t[..open].contains("(*") || t[..open].trim().is_empty() {
        return t.to_string();
    }
    let mut params = Vec::new();
    let (mut depth, mut start) = (0, open + 1);
    for (i, c) in t[open + 1..close].char_indices().map(|(i, c)| (i + open + 1, c)) {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                params.push(&t[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    params.push(&t[start..close]);
    let params: Vec<String> = params
        .iter()
        .map(|p| {
            let p = p.trim();
            let p = if p.ends_with("*const") { p.strip_suffix("const").unwrap().trim_end() } else { p };
            let p = p.strip_suffix(" const").unwrap_or(p);
            if p.contains(['*', '&', '[']) { p.to_string() } else { p.strip_prefix("const ").unwrap_or(p).to_string() }
        })
        .collect();
    format!("{}({}){}", &t[..open], params.join(", "), &t[close + 1..])
}

/// Two macros of one name expand to one value: the same text, or the same integer.
fn same_value(theirs: &BTreeMap<String, String>, mine: &BTreeMap<String, String>, n: &str) -> bool {
    let (a, b) = (expand(theirs, n), expand(mine, n));
    a == b || int_value(&a).is_some_and(|x| Some(x) == int_value(&b))
}

/// Cooperative groups' names with their version namespace (`cooperative_groups::__v1`, which
/// NVIDIA's header brings in with a using-directive) left out.
fn unversioned(d: Decl) -> Decl {
    let what = d.what.replace("__v1::", "");
    // A defaulted function's exception specification is computed when it is first used:
    // whether clang shows `noexcept` depends on the translation unit, not the declaration.
    let what = if d.kind == "function" { unqualified(&what).replace(" noexcept", "") } else { what };
    Decl { name: d.name.replace("__v1::", ""), what, ..d }
}

/// Functions, types and values are matched within their class.
fn kind_class(kind: &str) -> &'static str {
    match kind {
        "function" | "template" => "callable",
        "type" => "type",
        _ => "value",
    }
}

/// The files of NVIDIA's `include/` counted for header `h`.
fn files_of(inc: &Path, h: &str) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    let mut walk = vec![inc.to_path_buf()];
    while let Some(d) = walk.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                let rel = p.strip_prefix(inc).unwrap().to_string_lossy().to_string();
                if rel == "crt" || rel.starts_with("cooperative_groups") {
                    walk.push(p);
                }
            } else {
                let rel = p.strip_prefix(inc).unwrap().to_string_lossy().to_string();
                if counted(&rel) == Some(h) {
                    v.push(p);
                }
            }
        }
    }
    v
}
