//! The only unsafe code of the `rgdev` tool: while `rgdev run` waits for its program, a
//! Ctrl-C (SIGINT) or SIGTERM goes to the program, which writes its statistics and exits
//! (libcuda.so.1 handles them); `rgdev run` ignores them and returns the program's status.
#![allow(unsafe_code)]

unsafe extern "C" {
    /// C library `signal`.
    fn signal(sig: std::ffi::c_int, handler: usize) -> usize;
}

const SIG_IGN: usize = 1;

/// Ignore SIGINT and SIGTERM from now on (call after the child has been spawned: ignored
/// dispositions are inherited across exec).
pub fn ignore_interrupts() {
    for sig in [2, 15] {
        // SAFETY: SIG_IGN installs no code; signal(2) has no other effect.
        unsafe { signal(sig, SIG_IGN) };
    }
}
