//! Raw GPFIFO/pushbuffer words through a live device: afterwards another context's data is
//! intact and its work still runs.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tests::fuzz::pushbuf(data));
