//! # libnvToolsExt.so.1 for rgdev
//!
//! The NVTX API (ranges, marks, thread names, domains and registered strings) for
//! programs that annotate their phases: under `rgdev run --trace` each range and mark
//! lands on its host thread's track in the trace, in simulated time, around the API calls
//! it encloses. The events go to rgdev's libcuda.so.1 through its private export table
//! (hw::export, entry 3); without a trace being written every call is a no-op that returns
//! what NVTX returns with no tool attached (-2 from push and pop, range id 0). Categories,
//! colours and payloads are accepted and not recorded; messages of every type are (ASCII,
//! wide, registered strings).
#![deny(missing_docs)]
#![allow(non_snake_case, clippy::missing_safety_doc, clippy::not_unsafe_ptr_arg_deref)]

use hw::export::nvtx as op;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;

mod ffi; // the only unsafe code: dlopen/dlsym of libcuda.so.1, reading the caller's structs

/// `nvtxEventAttributes_t` (version 3, 48 bytes): what the `Ex` entry points describe an
/// event with.
#[repr(C)]
pub struct EventAttributes {
    /// NVTX_VERSION.
    pub version: u16,
    /// `sizeof(nvtxEventAttributes_t)`.
    pub size: u16,
    /// User category.
    pub category: u32,
    /// NVTX_COLOR_*.
    pub color_type: i32,
    /// ARGB colour.
    pub color: u32,
    /// NVTX_PAYLOAD_*.
    pub payload_type: i32,
    /// Reserved.
    pub reserved0: i32,
    /// The payload (8 bytes whatever its type).
    pub payload: u64,
    /// NVTX_MESSAGE_TYPE_*: 1 ASCII, 2 wide, 3 registered.
    pub message_type: i32,
    /// The message: a `const char *`, `const wchar_t *` or `nvtxStringHandle_t`.
    pub message: *const c_void,
}

/// NVTX_MESSAGE_TYPE_ASCII.
pub const MESSAGE_ASCII: i32 = 1;
/// NVTX_MESSAGE_TYPE_UNICODE.
pub const MESSAGE_UNICODE: i32 = 2;
/// NVTX_MESSAGE_TYPE_REGISTERED.
pub const MESSAGE_REGISTERED: i32 = 3;
/// What push and pop return with no tool attached (NVTX_NO_PUSH_POP_TRACKING).
pub const NO_TRACKING: c_int = -2;

/// The driver's NVTX entry point, when a trace is being written and the driver is rgdev's.
fn sink() -> Option<ffi::NvtxFn> {
    static SINK: OnceLock<Option<ffi::NvtxFn>> = OnceLock::new();
    *SINK.get_or_init(|| {
        // Nothing is recorded without a trace: do not load the driver for nothing.
        std::env::var_os("RGDEV_TRACE").filter(|v| !v.is_empty())?;
        ffi::driver_nvtx()
    })
}

fn event(kind: u32, msg: Option<CString>, id: u64) -> i64 {
    match sink() {
        Some(f) => ffi::call(f, kind, msg.as_deref(), id),
        None => i64::from(NO_TRACKING),
    }
}

fn ascii(p: *const c_char) -> Option<CString> {
    ffi::c_str(p).map(CStr::to_owned)
}

fn wide(p: *const libc::wchar_t) -> Option<CString> {
    let s: String = ffi::wide_str(p)?.iter().map(|&c| char::from_u32(c as u32).unwrap_or('\u{fffd}')).collect();
    CString::new(s.replace('\0', "")).ok()
}

/// The message of an attribute structure, whichever its type.
fn message(a: *const EventAttributes) -> Option<CString> {
    let a = ffi::attributes(a)?;
    match a.message_type {
        MESSAGE_ASCII | MESSAGE_REGISTERED => ascii(a.message.cast()),
        MESSAGE_UNICODE => wide(a.message.cast()),
        _ => None,
    }
}

fn depth(r: i64) -> c_int {
    r.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as c_int
}

/// nvtxRangePushA: a nested range on this thread; its 0-based depth.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangePushA(msg: *const c_char) -> c_int {
    depth(event(op::PUSH, ascii(msg), 0))
}

/// nvtxRangePushW.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangePushW(msg: *const libc::wchar_t) -> c_int {
    depth(event(op::PUSH, wide(msg), 0))
}

/// nvtxRangePushEx.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangePushEx(a: *const EventAttributes) -> c_int {
    depth(event(op::PUSH, message(a), 0))
}

/// nvtxRangePop: ends this thread's innermost range; its depth (-1 with none open).
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangePop() -> c_int {
    depth(event(op::POP, None, 0))
}

/// nvtxMarkA: an instant on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxMarkA(msg: *const c_char) {
    event(op::MARK, ascii(msg), 0);
}

/// nvtxMarkW.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxMarkW(msg: *const libc::wchar_t) {
    event(op::MARK, wide(msg), 0);
}

/// nvtxMarkEx.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxMarkEx(a: *const EventAttributes) {
    event(op::MARK, message(a), 0);
}

fn range_id(r: i64) -> u64 {
    u64::try_from(r).unwrap_or(0)
}

/// nvtxRangeStartA: a range that may end on another thread; its id (0 with no tool).
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangeStartA(msg: *const c_char) -> u64 {
    range_id(event(op::START, ascii(msg), 0))
}

/// nvtxRangeStartW.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangeStartW(msg: *const libc::wchar_t) -> u64 {
    range_id(event(op::START, wide(msg), 0))
}

/// nvtxRangeStartEx.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangeStartEx(a: *const EventAttributes) -> u64 {
    range_id(event(op::START, message(a), 0))
}

/// nvtxRangeEnd.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxRangeEnd(id: u64) {
    event(op::END, None, id);
}

/// nvtxNameOsThreadA: names the calling thread's track (another thread's id is ignored).
#[unsafe(no_mangle)]
pub extern "C" fn nvtxNameOsThreadA(tid: u32, name: *const c_char) {
    if ffi::gettid() == tid {
        event(op::NAME_THREAD, ascii(name), 0);
    }
}

/// nvtxNameOsThreadW.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxNameOsThreadW(tid: u32, name: *const libc::wchar_t) {
    if ffi::gettid() == tid {
        event(op::NAME_THREAD, wide(name), 0);
    }
}

/// nvtxNameCategoryA: categories are not recorded.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxNameCategoryA(_category: u32, _name: *const c_char) {}

/// nvtxNameCategoryW.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxNameCategoryW(_category: u32, _name: *const libc::wchar_t) {}

/// nvtxInitialize: nothing to do (the driver is found on first use).
#[unsafe(no_mangle)]
pub extern "C" fn nvtxInitialize(_reserved: *const c_void) {}

/// A domain handle: events of every domain go to the same tracks.
static DOMAIN: u8 = 0;

/// nvtxDomainCreateA: a handle (not NULL).
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainCreateA(_name: *const c_char) -> *const c_void {
    (&raw const DOMAIN).cast()
}

/// nvtxDomainCreateW.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainCreateW(_name: *const libc::wchar_t) -> *const c_void {
    (&raw const DOMAIN).cast()
}

/// nvtxDomainDestroy.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainDestroy(_domain: *const c_void) {}

/// nvtxDomainRegisterStringA: the handle is the string's own copy, kept for the process.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainRegisterStringA(_domain: *const c_void, s: *const c_char) -> *const c_char {
    ascii(s).map_or(std::ptr::null(), |c| c.into_raw().cast_const())
}

/// nvtxDomainRangePushEx.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainRangePushEx(_domain: *const c_void, a: *const EventAttributes) -> c_int {
    nvtxRangePushEx(a)
}

/// nvtxDomainRangePop.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainRangePop(_domain: *const c_void) -> c_int {
    nvtxRangePop()
}

/// nvtxDomainMarkEx.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainMarkEx(_domain: *const c_void, a: *const EventAttributes) {
    nvtxMarkEx(a)
}

/// nvtxDomainRangeStartEx.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainRangeStartEx(_domain: *const c_void, a: *const EventAttributes) -> u64 {
    nvtxRangeStartEx(a)
}

/// nvtxDomainRangeEnd.
#[unsafe(no_mangle)]
pub extern "C" fn nvtxDomainRangeEnd(_domain: *const c_void, id: u64) {
    nvtxRangeEnd(id)
}
