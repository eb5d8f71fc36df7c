//! The only place this library touches memory through pointers a C program passed in.
//!
//! The Driver API's contract is the caller's: an output pointer points at a writable
//! object of its type, an input buffer holds the bytes it claims, a string is
//! NUL-terminated. NULL is checked here (CUDA_ERROR_INVALID_VALUE); nothing else about a
//! pointer can be checked from user space, as in NVIDIA's library. Handles (contexts,
//! modules, functions) are never dereferenced: they are keys into tables.
#![allow(unsafe_code)]

use runtime_core::{CuError, Result};
use std::ffi::{CStr, c_char};

/// Store `v` through an output pointer.
pub fn put<T>(p: *mut T, v: T) -> Result<()> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL, and by the API contract it points at a writable `T`. Unaligned
    // writes are allowed so a packed caller struct cannot cause undefined behaviour here.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// Read a value through an input pointer.
pub fn get<T: Copy>(p: *const T) -> Result<T> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL, and by the API contract it points at a readable `T`.
    Ok(unsafe { p.read_unaligned() })
}

/// A NUL-terminated UTF-8 string.
pub fn str<'a>(p: *const c_char) -> Result<&'a str> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL and, by the API contract, NUL-terminated and live for the call.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| CuError::InvalidValue)
}

/// `n` bytes the caller owns, for reading. A zero-length view of any pointer is empty.
pub fn bytes<'a>(p: *const u8, n: usize) -> Result<&'a [u8]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() || n > isize::MAX as usize {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL; by the API contract `n` readable bytes live for the call.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// `n` bytes the caller owns, for writing.
pub fn bytes_mut<'a>(p: *mut u8, n: usize) -> Result<&'a mut [u8]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() || n > isize::MAX as usize {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL; by the API contract `n` writable bytes live for the call and do not
    // alias memory this library holds.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// The bytes of a module image handed over by pointer only (cuModuleLoadData): an rgdev
/// container sized by its header, or NUL-terminated text. The header is read one byte at a
/// time while it still matches a container header of this version; no header byte is NUL,
/// so a string that only starts like one stops matching at or before its terminator and
/// nothing past it is read.
pub fn image<'a>(p: *const u8) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    for i in 0..ptx::container::HEADER_LEN {
        // SAFETY: bytes 0..i matched a header, which holds no NUL, so the image is not over
        // yet: byte i exists (text is NUL-terminated by contract, a container is whole).
        if !ptx::container::header_byte_ok(i, unsafe { p.add(i).read() }) {
            // Not a container of this version: NUL-terminated text (PTX, or bytes the
            // loader rejects).
            // SAFETY: NUL-terminated by contract, live for the call.
            return Ok(unsafe { CStr::from_ptr(p.cast()) }.to_bytes());
        }
    }
    // A container: its header holds the total length.
    let head = bytes(p, ptx::container::HEADER_LEN)?;
    bytes(p, ptx::container::encoded_len(head).ok_or(CuError::InvalidImage)?)
}

unsafe extern "C" {
    /// C library `atexit`.
    fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
}

/// Run `f` when the program exits (C `atexit`), for `RGDEV_STATS`.
pub fn at_exit(f: extern "C" fn()) {
    // SAFETY: `f` is a plain function that lives as long as the library; atexit only stores
    // it. A failure to register (table full) just means no statistics are printed.
    let _ = unsafe { atexit(f) };
}
