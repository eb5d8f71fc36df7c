//! The only unsafe code of the `rgdev` tool: while `rgdev run` waits for its program, a
//! Ctrl-C (SIGINT) or SIGTERM goes to the program, which writes its statistics and exits
//! (libcuda.so.1 handles them); `rgdev run` ignores them and returns the program's status.
//! And SIGPIPE back to its default, so that a closed pipe ends the tool quietly.
#![allow(unsafe_code)]

unsafe extern "C" {
    /// C library `signal`.
    fn signal(sig: std::ffi::c_int, handler: usize) -> usize;
}

const SIG_DFL: usize = 0;
const SIG_IGN: usize = 1;
const SIGPIPE: std::ffi::c_int = 13;

/// Die quietly of SIGPIPE, as C tools do, when a reader of the output goes away
/// (`rgdev info | head`): Rust ignores SIGPIPE, and `println!` then panics on EPIPE.
pub fn default_sigpipe() {
    // SAFETY: SIG_DFL installs no code; signal(2) has no other effect.
    unsafe { signal(SIGPIPE, SIG_DFL) };
}

/// Ignore SIGINT and SIGTERM from now on (call after the child has been spawned: ignored
/// dispositions are inherited across exec).
pub fn ignore_interrupts() {
    for sig in [2, 15] {
        // SAFETY: SIG_IGN installs no code; signal(2) has no other effect.
        unsafe { signal(sig, SIG_IGN) };
    }
}
