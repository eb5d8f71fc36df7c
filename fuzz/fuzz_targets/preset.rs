//! Preset files: refused by parameter name, or a board that opens and works.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tests::fuzz::preset(data));
