//! Gives the shared library the SONAME programs link against, puts the `libcudart.so.12`
//! name beside `libcudart.so` in the profile's output directory, and generates the
//! `cudaError_t` constants from include/driver_types.h, their one declaration.
fn main() {
    let dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let header = dir.join("../include/driver_types.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header).expect("include/driver_types.h");
    let start = text.find("typedef enum cudaError {").expect("enum cudaError in driver_types.h");
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').expect("the enum's end")];
    let mut out = String::new();
    let mut all = String::new();
    for entry in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, value) = entry.split_once('=').expect("every cudaError entry has a value");
        let (name, value) = (name.trim(), value.trim());
        let value: i32 = value.parse().expect("a decimal value");
        out += &format!("#[doc = \"`{name}`\"]\npub const {name}: c_int = {value};\n");
        all += &format!("(\"{name}\", {value}), ");
    }
    out += &format!("/// Every entry, in declaration order.\npub const ALL: &[(&str, c_int)] = &[{all}];\n");
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out_dir.join("errors.rs"), out).expect("write errors.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.12");
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    if let Some(profile_dir) = out_dir.ancestors().nth(3) {
        let link = profile_dir.join("libcudart.so.12");
        if std::fs::symlink_metadata(&link).is_err() {
            let _ = std::os::unix::fs::symlink("libcudart.so", &link);
        }
    }
}
