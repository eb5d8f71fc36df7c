//! Gives the shared library the SONAME programs link against, and puts the
//! `libcuda.so.1` name beside `libcuda.so` in the profile's output directory.
fn main() {
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
