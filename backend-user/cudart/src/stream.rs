//! Streams and events: the Driver API's, with the runtime's handles the driver's own
//! (a `cudaStream_t` is a `CUstream`), so that they pass between the two APIs.

use crate::driver::Handle;
use crate::error::{self, Status};
use crate::{api, put, state};
use std::ffi::{c_uint, c_void};

/// `cudaStreamCreate`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamCreate(s: *mut Handle) -> Status {
    cudaStreamCreateWithFlags(s, 0)
}

/// `cudaStreamCreateWithPriority`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamCreateWithPriority(s: *mut Handle, flags: c_uint, priority: std::ffi::c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut h = core::ptr::null_mut();
        error::check(d.cuStreamCreateWithPriority(&mut h, flags, priority))?;
        put(s, h)
    })
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
    /// `cudaStreamGetFlags`.
    cudaStreamGetFlags(s: Handle, flags: *mut c_uint) => cuStreamGetFlags;
    /// `cudaStreamGetDevice`: the device of the stream's context.
    cudaStreamGetDevice(s: Handle, device: *mut std::ffi::c_int) => cuStreamGetDevice;
    /// `cudaStreamGetPriority`.
    cudaStreamGetPriority(s: Handle, priority: *mut std::ffi::c_int) => cuStreamGetPriority;
    /// `cudaEventRecordWithFlags` (cudaEventRecordExternal is the driver's to refuse).
    cudaEventRecordWithFlags(e: Handle, s: Handle, flags: c_uint) => cuEventRecordWithFlags;
    /// `cudaDeviceGetStreamPriorityRange`.
    cudaDeviceGetStreamPriorityRange(least: *mut std::ffi::c_int, greatest: *mut std::ffi::c_int) => cuCtxGetStreamPriorityRange;
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

/// `cudaEventElapsedTime_v2` (CUDA 12.8's name; the same measure).
#[unsafe(no_mangle)]
pub extern "C" fn cudaEventElapsedTime_v2(ms: *mut f32, a: Handle, b: Handle) -> Status {
    cudaEventElapsedTime(ms, a, b)
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

/// A host function as `cudaLaunchHostFunc` takes it.
pub type HostFn = Option<extern "C" fn(*mut c_void)>;
/// A stream callback as `cudaStreamAddCallback` takes it: the stream, its status, the data.
pub type StreamCallback = Option<extern "C" fn(Handle, Status, *mut c_void)>;

/// `cudaLaunchHostFunc`: call `f(data)` in stream order on `s` (the driver's
/// cuLaunchHostFunc: once the stream's earlier work is done, on a thread waiting for the
/// device; the caller goes on at once).
#[unsafe(no_mangle)]
pub extern "C" fn cudaLaunchHostFunc(s: Handle, f: HostFn, data: *mut c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let f = f.ok_or(error::codes::cudaErrorInvalidValue)?;
        let id = NEXT_CALLBACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        HOST_FNS.lock().unwrap_or_else(|p| p.into_inner()).push((id, f, data.expose_provenance()));
        let r = error::check(d.cuLaunchHostFunc(s, Some(host_fn_trampoline), std::ptr::without_provenance_mut(id)));
        if r.is_err() {
            HOST_FNS.lock().unwrap_or_else(|p| p.into_inner()).retain(|c| c.0 != id);
        }
        r
    })
}

/// Host functions waiting to run, by the id passed to the driver as their data: the
/// program's function and data. (One whose stream faults is never called, as CUDA
/// documents, and stays here.)
static HOST_FNS: std::sync::Mutex<Vec<(usize, extern "C" fn(*mut c_void), usize)>> = std::sync::Mutex::new(Vec::new());

/// The driver's host function for `cudaLaunchHostFunc`: the program's, with the thread's
/// last error left alone.
extern "C" fn host_fn_trampoline(id: *mut c_void) {
    let mut list = HOST_FNS.lock().unwrap_or_else(|p| p.into_inner());
    let Some(k) = list.iter().position(|c| c.0 == id.addr()) else { return };
    let (_, f, data) = list.swap_remove(k);
    drop(list);
    error::preserving(|| f(std::ptr::with_exposed_provenance_mut(data)));
}

/// Stream callbacks waiting to run, by the id passed to the driver as their data: the
/// program's callback and data (the driver gives a `CUresult`, the callback wants a
/// `cudaError_t`).
static CALLBACKS: std::sync::Mutex<Vec<Pending>> = std::sync::Mutex::new(Vec::new());
/// A callback waiting to run: its id, the program's callback, and its data.
type Pending = (usize, extern "C" fn(Handle, Status, *mut c_void), usize);
static NEXT_CALLBACK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// The driver's callback for `cudaStreamAddCallback`: the program's, its status translated.
extern "C" fn callback_trampoline(s: Handle, status: crate::driver::CUresult, id: *mut c_void) {
    let mut list = CALLBACKS.lock().unwrap_or_else(|p| p.into_inner());
    let Some(k) = list.iter().position(|c| c.0 == id.addr()) else { return };
    let (_, cb, data) = list.swap_remove(k);
    drop(list);
    error::preserving(|| cb(s, error::from_driver(status), std::ptr::with_exposed_provenance_mut(data)));
}

/// `cudaStreamAddCallback`: call `cb(s, status, data)` in stream order on `s` (flags
/// must be 0); unlike a host function it also runs after a fault, with its code.
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamAddCallback(s: Handle, cb: StreamCallback, data: *mut c_void, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let cb = cb.ok_or(error::codes::cudaErrorInvalidValue)?;
        if flags != 0 {
            return Err(error::codes::cudaErrorInvalidValue);
        }
        let id = NEXT_CALLBACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CALLBACKS.lock().unwrap_or_else(|p| p.into_inner()).push((id, cb, data.expose_provenance()));
        let r =
            error::check(d.cuStreamAddCallback(s, Some(callback_trampoline), std::ptr::without_provenance_mut(id), 0));
        if r.is_err() {
            CALLBACKS.lock().unwrap_or_else(|p| p.into_inner()).retain(|c| c.0 != id);
        }
        r
    })
}
