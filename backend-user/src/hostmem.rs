//! The host's address space under unified virtual addressing, and the only unsafe code of
//! this library. At the first use the process reserves the device pointer range
//! `[VA_BASE, 2^VA_BITS)` (inaccessible, nothing committed) so that no host allocation can
//! land there: a pointer in it is a device pointer. Pinned host memory is then mapped at
//! the address its device pointer has, over the reservation, and the reservation put back
//! when the memory is gone. Where the range cannot be reserved (an address-space limit, a
//! sanitizer's shadow memory) there is no unified addressing.
#![allow(unsafe_code)]

use fifo::SharedMem;
use hw::mmu::VA_BITS;
use runtime_core::context::VA_BASE;
use runtime_core::range::{RangeAllocator, SharedVa};
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

/// The end of the unified range.
const VA_END: u64 = 1 << VA_BITS;

/// Environment variable: `0` turns unified addressing off (each context then has a range
/// of its own, as before CUDA 4).
pub const UVA_ENV: &str = "RGDEV_UVA";

/// The process-wide unified range, if it could be reserved (and was not turned off).
pub(crate) fn unified() -> Option<SharedVa> {
    static UNIFIED: OnceLock<Option<SharedVa>> = OnceLock::new();
    UNIFIED.get_or_init(reserve).clone()
}

/// `mmap` with `flags` at `addr` (fixed), `len` bytes, inaccessible or read-write.
fn map(addr: u64, len: u64, writable: bool, flags: libc::c_int) -> bool {
    let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_NONE };
    // SAFETY: the range is either not mapped at all (MAP_FIXED_NOREPLACE fails rather than
    // replace anything) or part of this module's own reservation (MAP_FIXED), which no
    // Rust object outside this module refers to; the mapping is anonymous.
    let p = unsafe {
        libc::mmap(
            addr as *mut libc::c_void,
            len as usize,
            prot,
            flags | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    p != libc::MAP_FAILED && p as u64 == addr
}

fn reserve() -> Option<SharedVa> {
    if std::env::var(UVA_ENV).is_ok_and(|v| v == "0") {
        return None;
    }
    let len = VA_END - VA_BASE;
    if !map(VA_BASE, len, false, libc::MAP_FIXED_NOREPLACE | libc::MAP_NORESERVE) {
        return None;
    }
    Some(Arc::new(spin::Mutex::new(RangeAllocator::new(VA_BASE, len))))
}

/// Zeroed read-write memory at `va`, `len` bytes (whole pages) of the unified range the
/// caller took from the allocator: when the returned memory is dropped, the reservation is
/// put back over it and the range returned to the allocator.
pub(crate) fn alloc_at(va: u64, len: usize) -> Option<SharedMem> {
    let uva = unified()?;
    let end = va.checked_add(len as u64)?;
    if va < VA_BASE || end > VA_END || len == 0 || !va.is_multiple_of(4096) || !len.is_multiple_of(4096) {
        return None;
    }
    if !map(va, len as u64, true, libc::MAP_FIXED) {
        return None;
    }
    let release = Box::new(move || {
        // Inaccessible again before anyone else can be given the range.
        map(va, len as u64, false, libc::MAP_FIXED | libc::MAP_NORESERVE);
        uva.lock().free(va, len as u64);
    });
    let ptr = NonNull::new(va as *mut u8)?;
    // SAFETY: `len` bytes at `va` are mapped read-write for this value alone (the range was
    // the caller's, from the unified allocator, and is given back only by `release`, which
    // unmaps them first); page-aligned, so 8-byte aligned with a multiple of 8 bytes.
    Some(unsafe { SharedMem::mapped(ptr, len, release) })
}
