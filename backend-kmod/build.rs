//! Link the freestanding image with its own layout and defmt's section script.
fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    println!("cargo:rerun-if-changed=kmod.ld");
    if target == "x86_64-unknown-none" {
        println!("cargo:rustc-link-arg-bins=-T{dir}/kmod.ld");
        println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
        println!("cargo:rustc-link-arg-bins=--no-pie");
        println!("cargo:rustc-link-arg-bins=-static");
    }
}
