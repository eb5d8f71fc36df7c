//! Arbitrary bytes (and, from the seed corpus, mutated real PTX) through parse + compile:
//! every input must give a program or an error, never a panic or a hang.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = std::str::from_utf8(data) {
        if let Ok(p) = ptx::compile_ptx(src) {
            let bytes = p.to_container();
            assert_eq!(ptx::Program::from_container(&bytes).as_ref(), Some(&p));
        }
    }
});
