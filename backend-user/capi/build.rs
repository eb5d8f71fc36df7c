//! Gives the shared library the SONAME programs link against, puts the `libcuda.so.1`
//! name beside `libcuda.so` in the profile's output directory, and generates the
//! `CUdevice_attribute` and `CUresult` constants from include/cuda.h, their one
//! declaration, and records the git commit it is built from (RGDEV_COMMIT, for the
//! statistics file) when the source is a git checkout.
fn main() {
    let dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let header = dir.join("../include/cuda.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header).expect("include/cuda.h");
    constants(&text, "CUdevice_attribute_enum", "device_attr.rs");
    constants(&text, "cudaError_enum", "result.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    commit(&dir);
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let link = profile_dir.join("libcuda.so.1");
        if std::fs::symlink_metadata(&link).is_err() {
            let _ = std::os::unix::fs::symlink("libcuda.so", &link);
        }
    }
}

/// `$OUT_DIR/FILE`: a constant per entry of cuda.h's enum `tag` (decimal values), and
/// `ALL`, every (name, value) in declaration order.
fn constants(text: &str, tag: &str, file: &str) {
    let start = text.find(&format!("typedef enum {tag} {{")).unwrap_or_else(|| panic!("{tag} in cuda.h"));
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').expect("the enum's end")];
    let mut out = String::new();
    let mut all = String::new();
    for entry in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, value) = entry.split_once('=').unwrap_or_else(|| panic!("every {tag} entry has a value"));
        let (name, value) = (name.trim(), value.trim());
        let value: i32 = value.parse().expect("a decimal value");
        out += &format!("#[doc = \"`{name}`\"]\npub const {name}: c_int = {value};\n");
        all += &format!("(\"{name}\", {value}), ");
    }
    out += &format!("/// Every entry, in declaration order.\npub const ALL: &[(&str, c_int)] = &[{all}];\n");
    let path = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join(file);
    std::fs::write(path, out).unwrap_or_else(|_| panic!("write {file}"));
}

/// RGDEV_COMMIT: `git rev-parse --short=12 HEAD` of the checkout, rebuilt when HEAD moves.
fn commit(dir: &std::path::Path) {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(hash) = git(&["rev-parse", "--short=12", "HEAD"]) else { return };
    println!("cargo:rustc-env=RGDEV_COMMIT={hash}");
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let g = std::path::Path::new(&git_dir);
        println!("cargo:rerun-if-changed={}", g.join("HEAD").display());
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={}", g.join(r).display());
        }
    }
}
