//! Arbitrary bytes as a module container: decode or reject, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptx::Program::from_container(data);
});
