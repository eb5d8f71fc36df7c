//! Streams and events: the Driver API's, with the runtime's handles the driver's own
//! (a `cudaStream_t` is a `CUstream`), so that they pass between the two APIs.

use crate::driver::Handle;
use crate::error::{self, Status};
use crate::{api, put, state};
use std::ffi::c_uint;

/// `cudaStreamCreate`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamCreate(s: *mut Handle) -> Status {
    cudaStreamCreateWithFlags(s, 0)
}

/// `cudaStreamCreateWithFlags` (cudaStreamNonBlocking).
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamCreateWithFlags(s: *mut Handle, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut h = core::ptr::null_mut();
        error::check(d.cuStreamCreate(&mut h, flags))?;
        put(s, h)
    })
}

macro_rules! forward {
    ($( $(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) => $drv:ident; )*) => {
        $(
            $(#[$doc])*
            #[unsafe(no_mangle)]
            pub extern "C" fn $name($($arg: $ty),*) -> Status {
                api(|| {
                    let d = state::driver()?;
                    state::context()?;
                    error::check(d.$drv($($arg),*))
                })
            }
        )*
    };
}

forward! {
    /// `cudaStreamDestroy`.
    cudaStreamDestroy(s: Handle) => cuStreamDestroy;
    /// `cudaStreamSynchronize`.
    cudaStreamSynchronize(s: Handle) => cuStreamSynchronize;
    /// `cudaStreamWaitEvent`.
    cudaStreamWaitEvent(s: Handle, e: Handle, flags: c_uint) => cuStreamWaitEvent;
    /// `cudaEventRecord`.
    cudaEventRecord(e: Handle, s: Handle) => cuEventRecord;
    /// `cudaEventSynchronize`.
    cudaEventSynchronize(e: Handle) => cuEventSynchronize;
    /// `cudaEventDestroy`.
    cudaEventDestroy(e: Handle) => cuEventDestroy;
}

/// `cudaStreamQuery`: cudaSuccess when done, cudaErrorNotReady (not recorded as the last
/// error, as in CUDA) while work is pending.
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamQuery(s: Handle) -> Status {
    query(|d| d.cuStreamQuery(s))
}

/// `cudaEventQuery`: as cudaStreamQuery.
#[unsafe(no_mangle)]
pub extern "C" fn cudaEventQuery(e: Handle) -> Status {
    query(|d| d.cuEventQuery(e))
}

fn query(f: impl FnOnce(&crate::driver::Driver) -> crate::driver::CUresult) -> Status {
    let mut pending = false;
    let r = api(|| {
        let d = state::driver()?;
        state::context()?;
        match error::check(f(d)) {
            Err(error::codes::cudaErrorNotReady) => {
                pending = true;
                Ok(())
            }
            r => r,
        }
    });
    if pending { error::codes::cudaErrorNotReady } else { r }
}

/// `cudaEventCreate`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaEventCreate(e: *mut Handle) -> Status {
    cudaEventCreateWithFlags(e, 0)
}

/// `cudaEventCreateWithFlags` (cudaEventBlockingSync, cudaEventDisableTiming, ...).
#[unsafe(no_mangle)]
pub extern "C" fn cudaEventCreateWithFlags(e: *mut Handle, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut h = core::ptr::null_mut();
        error::check(d.cuEventCreate(&mut h, flags))?;
        put(e, h)
    })
}

/// `cudaEventElapsedTime`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaEventElapsedTime(ms: *mut f32, a: Handle, b: Handle) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut t = 0f32;
        error::check(d.cuEventElapsedTime(&mut t, a, b))?;
        put(ms, t)
    })
}
