//! `cudaError_t`: the codes (generated from include/driver_types.h), the thread's last
//! error, and the translation of Driver API results. CUDA 12 gives most runtime codes the
//! value of the driver code they stand for (cudaErrorIllegalAddress and
//! CUDA_ERROR_ILLEGAL_ADDRESS are both 700), so a driver result maps to the runtime code
//! of the same value when there is one, and to cudaErrorUnknown otherwise.
#![allow(non_upper_case_globals)]

use crate::driver::{self, CUresult};
use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int};

/// The `cudaError_t` values.
pub mod codes {
    use std::ffi::c_int;
    include!(concat!(env!("OUT_DIR"), "/errors.rs"));
}
pub use codes::*;

/// A runtime status.
pub type Status = c_int;

thread_local! {
    /// The last error a call of this thread returned (cudaGetLastError).
    static LAST: Cell<Status> = const { Cell::new(cudaSuccess) };
}

/// Record `e` as the thread's last error when it is one, and return it.
pub fn record(e: Status) -> Status {
    if e != cudaSuccess {
        LAST.with(|l| l.set(e));
    }
    e
}

/// Run the program's host function `f` (cudaLaunchHostFunc, cudaStreamAddCallback) on
/// this thread, leaving the thread's last error as it was: CUDA runs them on a thread of
/// its own, so the errors of the calls they make (cudaErrorNotPermitted) are no other
/// thread's.
pub fn preserving(f: impl FnOnce()) {
    let saved = LAST.with(Cell::get);
    f();
    LAST.with(|l| l.set(saved));
}

/// The codes of a fault that corrupts the context: once a call returned one, every call
/// does until `cudaDeviceReset`, and `cudaGetLastError` keeps returning it.
pub fn sticky(e: Status) -> bool {
    matches!(
        e,
        cudaErrorIllegalAddress
            | cudaErrorLaunchTimeout
            | cudaErrorAssert
            | cudaErrorHardwareStackError
            | cudaErrorIllegalInstruction
            | cudaErrorMisalignedAddress
            | cudaErrorInvalidAddressSpace
            | cudaErrorInvalidPc
            | cudaErrorLaunchFailure
    )
}

/// The thread's last error; `reset` clears it (cudaGetLastError) unless it is sticky, or
/// not at all (cudaPeekAtLastError).
pub fn last(reset: bool) -> Status {
    LAST.with(|l| if reset && !sticky(l.get()) { l.replace(cudaSuccess) } else { l.get() })
}

/// Forget the thread's last error (cudaDeviceReset ends a sticky fault).
pub fn clear() {
    LAST.with(|l| l.set(cudaSuccess));
}

/// The runtime code for a driver result.
pub fn from_driver(r: CUresult) -> Status {
    match r {
        0 => cudaSuccess,
        // Driver codes whose runtime twin has another value.
        201 => cudaErrorDeviceUninitialized, // CUDA_ERROR_INVALID_CONTEXT
        driver::NO_LIBRARY => cudaErrorInsufficientDriver,
        r if ALL.iter().any(|&(_, v)| v == r) => r,
        _ => cudaErrorUnknown,
    }
}

/// `Ok` for CUDA_SUCCESS, else the runtime code.
pub fn check(r: CUresult) -> Result<(), Status> {
    if r == 0 { Ok(()) } else { Err(from_driver(r)) }
}

/// The name of a code (`cudaErrorInvalidValue`), NUL-terminated and static.
pub fn name(e: Status) -> &'static CStr {
    NAMES.iter().find(|&&(v, _)| v == e).map_or(c"cudaErrorUnknown", |&(_, n)| n)
}

/// Names as C strings, built once from [`ALL`].
static NAMES: std::sync::LazyLock<Vec<(Status, &'static CStr)>> = std::sync::LazyLock::new(|| {
    ALL.iter()
        .map(|&(n, v)| {
            let c = std::ffi::CString::new(n).expect("no NUL in a name");
            (v, &*Box::leak(c.into_boxed_c_str()))
        })
        .collect()
});

/// The description of a code: the runtime's own words for the codes only it has, the
/// driver's for the codes they share.
pub fn describe(e: Status) -> *const c_char {
    let own: Option<&'static CStr> = match e {
        cudaSuccess => Some(c"no error"),
        cudaErrorInvalidValue => Some(c"invalid argument"),
        cudaErrorMemoryAllocation => Some(c"out of memory"),
        cudaErrorInitializationError => Some(c"initialization error"),
        cudaErrorCudartUnloading => Some(c"driver shutting down"),
        cudaErrorInvalidConfiguration => Some(c"invalid configuration argument"),
        cudaErrorInvalidPitchValue => Some(c"invalid pitch argument"),
        cudaErrorInvalidSymbol => Some(c"invalid device symbol"),
        cudaErrorInvalidHostPointer => Some(c"invalid host pointer"),
        cudaErrorInvalidDevicePointer => Some(c"invalid device pointer"),
        cudaErrorInvalidMemcpyDirection => Some(c"invalid copy direction for memcpy"),
        cudaErrorMissingConfiguration => Some(c"__global__ function call is not configured"),
        cudaErrorInvalidDeviceFunction => Some(c"invalid device function"),
        cudaErrorNoDevice => Some(c"no CUDA-capable device is detected"),
        cudaErrorInvalidDevice => Some(c"invalid device ordinal"),
        cudaErrorInsufficientDriver => Some(c"CUDA driver version is insufficient for CUDA runtime version"),
        cudaErrorNoKernelImageForDevice => Some(c"no kernel image is available for execution on the device"),
        cudaErrorDeviceUninitialized => Some(c"invalid device context"),
        cudaErrorInvalidResourceHandle => Some(c"invalid resource handle"),
        cudaErrorSymbolNotFound => Some(c"named symbol not found"),
        cudaErrorNotReady => Some(c"device not ready"),
        cudaErrorUnknown => Some(c"unknown error"),
        _ => None,
    };
    if let Some(s) = own {
        return s.as_ptr();
    }
    if let Ok(d) = driver::get() {
        let mut p: *const c_char = std::ptr::null();
        if d.cuGetErrorString(e, &mut p) == 0 && !p.is_null() {
            return p;
        }
    }
    c"unrecognized error code".as_ptr()
}
