//! Gives the shared library the SONAME programs link against and puts the
//! `libnvToolsExt.so.1` name beside `libnvToolsExt.so` in the profile's output directory.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnvToolsExt.so.1");
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    if let Some(profile_dir) = out_dir.ancestors().nth(3) {
        let link = profile_dir.join("libnvToolsExt.so.1");
        if std::fs::symlink_metadata(&link).is_err() {
            let _ = std::os::unix::fs::symlink("libnvToolsExt.so", &link);
        }
    }
}
