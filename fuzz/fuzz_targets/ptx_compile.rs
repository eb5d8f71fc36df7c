//! Arbitrary bytes (and, from the seed corpus, mutated real PTX) through parse + compile: every
//! input gives a program (that round-trips through the container) or an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tests::fuzz::ptx_compile(data));
