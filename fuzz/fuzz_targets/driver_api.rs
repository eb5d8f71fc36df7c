//! Driver API call sequences through the C ABI (libcuda.so.1's functions): no call panics
//! inside the library, whatever the order, the handles (forged ones too) and the sizes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tests::fuzz::driver_api(data));
