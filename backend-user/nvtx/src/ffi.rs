//! The library's unsafe code: finding rgdev's libcuda.so.1 and its export table, and
//! reading what callers pass by pointer.
#![allow(unsafe_code)]

use super::EventAttributes;
use std::ffi::{CStr, c_char, c_int, c_void};

/// The export table's NVTX entry (hw::export, entry 3).
pub type NvtxFn = extern "C" fn(u32, *const c_char, u64) -> i64;

/// The prefix of rgdev's export table this library uses (hw::export).
#[repr(C)]
struct Table {
    size: usize,
    _map_managed_data: usize,
    _module_load_placed: usize,
    nvtx_event: NvtxFn,
}

type GetExportTable = unsafe extern "C" fn(*mut *const c_void, *const [u8; 16]) -> c_int;
type Init = unsafe extern "C" fn(u32) -> c_int;

/// Open libcuda.so.1 (rgdev's, found as the program's), initialize it (a trace records
/// from cuInit on) and return its NVTX entry; None for another driver or none.
pub fn driver_nvtx() -> Option<NvtxFn> {
    // SAFETY: dlopen with a NUL-terminated name; the handle stays open for the process.
    let lib = unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if lib.is_null() {
        return None;
    }
    // SAFETY: dlsym on a live handle with NUL-terminated names.
    let (get, init) = unsafe { (libc::dlsym(lib, c"cuGetExportTable".as_ptr()), libc::dlsym(lib, c"cuInit".as_ptr())) };
    if get.is_null() || init.is_null() {
        return None;
    }
    // SAFETY: the symbols are the Driver API's entry points of these prototypes.
    let (get, init) = unsafe {
        (std::mem::transmute::<*mut c_void, GetExportTable>(get), std::mem::transmute::<*mut c_void, Init>(init))
    };
    let mut p: *const c_void = std::ptr::null();
    // SAFETY: cuInit takes flags; cuGetExportTable writes one pointer through a live local
    // and reads the 16-byte id.
    let ok = unsafe { init(0) == 0 && get(&mut p, &hw::export::RGDEV_EXPORT_TABLE_ID) == 0 };
    if !ok || p.is_null() {
        return None;
    }
    // SAFETY: rgdev's driver returned its static table, which starts with its size.
    let size = unsafe { *p.cast::<usize>() };
    if size < std::mem::size_of::<Table>() {
        return None;
    }
    // SAFETY: the table is static in the driver (never unloaded) and at least this long.
    Some(unsafe { (*p.cast::<Table>()).nvtx_event })
}

/// Call the driver's entry with an optional message.
pub fn call(f: NvtxFn, op: u32, msg: Option<&CStr>, id: u64) -> i64 {
    f(op, msg.map_or(std::ptr::null(), CStr::as_ptr), id)
}

/// A caller's NUL-terminated string.
pub fn c_str<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: NVTX's contract: a message is NULL or a NUL-terminated string.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

/// A caller's NUL-terminated wide string (at most 64 Ki characters are read).
pub fn wide_str<'a>(p: *const libc::wchar_t) -> Option<&'a [libc::wchar_t]> {
    if p.is_null() {
        return None;
    }
    let mut n = 0;
    // SAFETY: NVTX's contract: a NUL-terminated wide string; reading stops at its NUL.
    while n < 65536 && unsafe { *p.add(n) } != 0 {
        n += 1;
    }
    // SAFETY: the `n` characters before the NUL were just read.
    Some(unsafe { std::slice::from_raw_parts(p, n) })
}

/// A caller's attribute structure, if it is big enough to hold a message.
pub fn attributes<'a>(a: *const EventAttributes) -> Option<&'a EventAttributes> {
    // SAFETY: NVTX's contract: NULL or a structure whose `size` says how much of it there
    // is; one shorter than this layout is not read further.
    let a = (!a.is_null()).then(|| unsafe { &*a })?;
    (usize::from(a.size) >= std::mem::size_of::<EventAttributes>()).then_some(a)
}

/// The calling thread's kernel id (what nvtxNameOsThread names).
pub fn gettid() -> u32 {
    // SAFETY: gettid has no arguments and no failure.
    unsafe { libc::gettid() as u32 }
}
