//! runtime-core is layered like a driver: each module names only modules of layers below
//! it (docs/architecture.md). This reads the sources and checks every `crate::` path and
//! `use crate::` item against the layer table, so an import circle cannot come back.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest first; a module may name modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    &["error", "range", "limits"],
    &["platform", "rlog", "physmem"],
    &["device"],
    &["vm"],
    &["channel"],
    &["check"],
    &["context"],
    &["api"],
    &["logical"],
    &["uvm"],
    &["system"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level module a source file belongs to (`context/memory.rs` is `context`).
fn module_of(rel: &Path) -> String {
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::NAME` a source names (code and doc links alike), and `crate::{A, B}`.
fn named(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in src.match_indices("crate::") {
        let rest = &src[i + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.push(name);
            }
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out
}

/// The crate root's `pub use module::...::Name;` items: name to module.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines().filter_map(|l| l.strip_prefix("pub use ")) {
        let module: String = line.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let items = line.rsplit("::").next().unwrap_or("");
        for name in items.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|n| !n.is_empty()) {
            out.insert(name.to_string(), module.clone());
        }
    }
    out
}

fn sources(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            out.insert(rel, std::fs::read_to_string(&p).unwrap());
        }
    }
}

#[test]
fn runtime_core_modules_name_only_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-core/src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    assert!(files.len() >= 15, "runtime-core sources not found at {}", root.display());
    let reexports = reexports(&files["lib.rs"]);
    assert!(reexports.get("Gpu").is_some_and(|m| m == "api"), "{reexports:?}");
    let mut bad = Vec::new();
    for (rel, src) in &files {
        if rel == "lib.rs" {
            continue; // the table of contents re-exports every layer
        }
        let m = module_of(Path::new(rel));
        let Some(own) = layer(&m) else {
            bad.push(format!("{rel}: module `{m}` is in no layer"));
            continue;
        };
        for n in named(src) {
            // A re-export at the crate root (`crate::Gpu`) names the module it comes from.
            let n = reexports.get(&n).cloned().unwrap_or(n);
            if n.is_empty() || n == m {
                continue;
            }
            match layer(&n) {
                Some(l) if l < own => {}
                Some(_) => bad.push(format!("{rel} (layer {own}) names `{n}`")),
                None => bad.push(format!("{rel} names `{n}`, which is in no layer")),
            }
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn the_check_finds_an_upward_name() {
    assert_eq!(named("use crate::api::Gpu;\nuse crate::{device, vm::VaSpace};"), ["api", "device", "vm"]);
    assert!(layer("api") > layer("context") && layer("device") < layer("vm"));
    // The unified-memory service sits on the API layer: the API may not name it.
    assert!(layer("uvm") > layer("api") && layer("system") > layer("uvm"));
    // One logical GPU over many is a layer over the API's GPUs, under the services.
    assert!(layer("logical") > layer("api") && layer("uvm") > layer("logical"));
}

/// One GPU knows nothing of gangs: the API layer (`Gpu`) has no hook, field or branch for
/// one logical GPU over several; `logical` wraps it (issue 38: the gang's branches left
/// `Gpu`'s methods).
#[test]
fn the_api_layer_knows_no_gang() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-core/src/api");
    let mut found = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let src = std::fs::read_to_string(&p).unwrap();
        for (n, line) in src.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("gang") || code.contains("logical") {
                found.push(format!("{}:{}: {}", p.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "the API layer names the logical GPU:\n{}", found.join("\n"));
}

/// The three import circles the renovation cut (issue 38) stay cut: in fake-pci the
/// sanitizer reads memory but memory (MMU, peer port, initcheck's shadow) knows nothing of
/// the sanitizer or the compute engine; a context's memory knows nothing of the VMM API
/// built on it; cudart's pitched copies know nothing of its texture API.
#[test]
fn the_cut_circles_stay_cut() {
    let read = |p: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p)).unwrap();
    // Memory (`fake-pci/src/mem/`) names memory only: nothing of the engines or the machine.
    let mem = ["gate", "mmu", "peer", "shadow", "sysmem", "vram"];
    for e in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fake-pci/src/mem")).unwrap() {
        let p = e.unwrap().path();
        let src = std::fs::read_to_string(&p).unwrap();
        for n in named(&src).into_iter().filter(|n| n.starts_with(|c: char| c.is_ascii_lowercase())) {
            assert!(mem.contains(&n.as_str()), "{} names `{n}`, above memory", p.display());
        }
    }
    let fake_pci = [
        ("fake-pci/src/mem/shadow.rs", &[][..]),
        ("fake-pci/src/mem/peer.rs", &["shadow", "vram"][..]),
        ("fake-pci/src/mem/mmu.rs", &["gate", "peer", "shadow", "sysmem", "vram"][..]),
        ("fake-pci/src/check.rs", &["mmu"][..]),
    ];
    for (file, allowed) in fake_pci {
        // Modules only (lower case): the crate root's types (`crate::FakeGpu` in a doc link)
        // are the board itself.
        for n in named(&read(file)).into_iter().filter(|n| n.starts_with(|c: char| c.is_ascii_lowercase())) {
            assert!(allowed.contains(&n.as_str()), "{file} names `{n}` (allowed: {allowed:?})");
        }
    }
    for file in ["runtime-core/src/context/memory/mod.rs", "runtime-core/src/context/memory/copies.rs"] {
        assert!(!read(file).contains("vmm::"), "{file} names the VMM API built on it");
    }
    assert!(!read("backend-user/cudart/src/pitched.rs").contains("texture::"), "pitched.rs names the texture API");
}
