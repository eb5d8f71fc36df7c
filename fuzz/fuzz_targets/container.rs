//! Arbitrary bytes as a module container: decoded (and round-tripped) or refused.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tests::fuzz::container(data));
