//! Gives the shared library the SONAME programs link against, puts the `libcuda.so.1`
//! name beside `libcuda.so` in the profile's output directory, and generates the
//! `CUdevice_attribute` constants from include/cuda.h, their one declaration.
fn main() {
    device_attributes();
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let link = profile_dir.join("libcuda.so.1");
        if std::fs::symlink_metadata(&link).is_err() {
            let _ = std::os::unix::fs::symlink("libcuda.so", &link);
        }
    }
}

/// `$OUT_DIR/device_attr.rs`: a constant per entry of cuda.h's `CUdevice_attribute_enum`,
/// and `ALL`, every (name, value) in declaration order.
fn device_attributes() {
    let dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let header = dir.join("../include/cuda.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header).expect("include/cuda.h");
    let start = text.find("typedef enum CUdevice_attribute_enum {").expect("CUdevice_attribute_enum in cuda.h");
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').expect("the enum's end")];
    let mut out = String::new();
    let mut all = String::new();
    for entry in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, value) = entry.split_once('=').expect("every CUdevice_attribute entry has a value");
        let (name, value) = (name.trim(), value.trim());
        let value: i32 = value.parse().expect("a decimal attribute value");
        out += &format!("#[doc = \"`{name}`\"]\npub const {name}: c_int = {value};\n");
        all += &format!("(\"{name}\", {value}), ");
    }
    out += &format!("/// Every entry, in declaration order.\npub const ALL: &[(&str, c_int)] = &[{all}];\n");
    let path = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("device_attr.rs");
    std::fs::write(path, out).expect("write device_attr.rs");
}
