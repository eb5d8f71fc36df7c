//! The freestanding rgdev image (x86_64-unknown-none): brings up the runtime against the
//! linked-in simulated GPU, does a copy round trip, reports through defmt and exits with
//! a status (0 success, 1 failure, 101 panic).
//!
//! It is a static ELF with no libc and no dynamic loader. Its only contact with the world
//! outside is the `sys` module: a console (raw defmt frames on file descriptor 1) and an exit —
//! two Linux system calls, so the image runs directly on an x86-64 Linux host the way a
//! unikernel runs on its tender. Everything else (heap, locks, logging, driver, device)
//! is the kernel-side code under test.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
extern crate alloc;

#[cfg(target_os = "none")]
mod kernel;

/// On a hosted target the image has nothing to do: it is built for x86_64-unknown-none.
#[cfg(not(target_os = "none"))]
fn main() {
    eprintln!("rgdev-kmod is a freestanding image: build it with --target x86_64-unknown-none");
    std::process::exit(2);
}
