//! The only place this library touches memory through pointers a C program passed in.
//!
//! The Runtime API's contract is the caller's: an output pointer points at a writable
//! object of its type, a string is NUL-terminated, and the fat binary a compiler
//! registers is what its header says. NULL is checked here (cudaErrorInvalidValue);
//! nothing else about a pointer can be checked from user space, as in NVIDIA's library.
#![allow(unsafe_code)]

use std::ffi::{CStr, c_char};

/// Store `v` through an output pointer; `false` when it is NULL.
pub fn put<T>(p: *mut T, v: T) -> bool {
    if p.is_null() {
        return false;
    }
    // SAFETY: non-NULL, and by the API contract it points at a writable `T`; unaligned
    // writes are allowed so that a packed caller struct is no undefined behaviour here.
    unsafe { p.write_unaligned(v) };
    true
}

/// Copy `bytes` to host address `addr`: the host shadow of a variable a compiler
/// registered with at least that size (`__cudaRegisterVar`), in the program's writable data.
pub fn write_at(addr: usize, bytes: &[u8]) {
    if addr == 0 || bytes.is_empty() {
        return;
    }
    let dst = std::ptr::with_exposed_provenance_mut::<u8>(addr);
    // SAFETY: by the registration contract `addr` is a live, writable object of the
    // registered size, which the caller does not exceed; the bytes are the runtime's own.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
}

/// A NUL-terminated string, as bytes.
pub fn cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL and, by the API contract, NUL-terminated and live (compilers
    // register names in static storage).
    Some(unsafe { CStr::from_ptr(p) })
}

/// The fat binary a compiler registered: the `__fatBinC_Wrapper_t` at `wrapper` (magic,
/// version, data pointer) and the container its data pointer names, as bytes (its
/// 16-byte header says how many follow). `None` when the wrapper's or the container's
/// magic is not CUDA's, or the size is beyond reason (1 GiB).
pub fn fatbin<'a>(wrapper: *const u8) -> Option<&'a [u8]> {
    const WRAPPER_MAGIC: u32 = 0x466243b1;
    const FATBIN_MAGIC: u32 = 0xBA55ED50;
    if wrapper.is_null() {
        return None;
    }
    // SAFETY: a compiler-emitted wrapper: two ints then the data pointer (16 bytes).
    let head = unsafe { core::slice::from_raw_parts(wrapper, 16) };
    let magic = u32::from_le_bytes(head[0..4].try_into().ok()?);
    let data = usize::from_le_bytes(head[8..16].try_into().ok()?) as *const u8;
    if magic != WRAPPER_MAGIC || data.is_null() {
        return None;
    }
    // SAFETY: the container's 16-byte header, which the wrapper's data pointer names.
    let hdr = unsafe { core::slice::from_raw_parts(data, 16) };
    let magic = u32::from_le_bytes(hdr[0..4].try_into().ok()?);
    let header_size = u16::from_le_bytes(hdr[6..8].try_into().ok()?) as usize;
    let fat_size = u64::from_le_bytes(hdr[8..16].try_into().ok()?) as usize;
    if magic != FATBIN_MAGIC || header_size < 16 || fat_size > 1 << 30 {
        return None;
    }
    // SAFETY: the header and the `fat_size` bytes of entries it announces.
    Some(unsafe { core::slice::from_raw_parts(data, header_size + fat_size) })
}

/// Copy `n` bytes between two host buffers (cudaMemcpyHostToHost); they may overlap.
pub fn copy_host(dst: *mut u8, src: *const u8, n: usize) {
    if n == 0 || dst.is_null() || src.is_null() {
        return;
    }
    // SAFETY: non-NULL; by the API contract both hold `n` bytes for the call.
    unsafe { core::ptr::copy(src, dst, n) };
}

/// `n` bytes at `p` (an argument `cudaSetupArgument` copies); `None` for NULL.
pub fn bytes<'a>(p: *const u8, n: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL; by the API contract `p` holds the `n` bytes of one argument for
    // the call.
    Some(unsafe { core::slice::from_raw_parts(p, n) })
}

/// The `T` at `p` (a struct the program passes by pointer); `None` for NULL.
pub fn get<T: Copy>(p: *const T) -> Option<T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL and, by the API contract, pointing at a readable `T`; read
    // unaligned so that a packed caller struct is no undefined behaviour here.
    Some(unsafe { p.read_unaligned() })
}
