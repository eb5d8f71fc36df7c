//! Streams: creation with flags and priorities, destruction, synchronization and queries.

use crate::state::{current, device_of, gpu_of, guard, handle, key, state, synchronized};
use crate::{CUdevice, CUresult, Handle, apitrace, raw};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserDev;
use runtime_core::StreamHandle;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;
use std::sync::Arc;

/// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: both name the legacy default stream here.
pub(crate) const STREAM_LEGACY: u64 = 0x1;
pub(crate) const STREAM_PER_THREAD: u64 = 0x2;

/// The context and runtime stream of a `CUstream`: NULL (and the two special handles) is
/// the current context's default stream; a stream handle names its own context (the
/// runtime checks it on use).
pub(crate) fn stream_of(s: Handle) -> Result<(Arc<UserDev>, CtxHandle, StreamHandle)> {
    if matches!(key(s), 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
        let (gpu, h) = current()?;
        return Ok((gpu, h, StreamHandle::DEFAULT));
    }
    let sh = StreamHandle(key(s));
    Ok((gpu_of(sh.0)?, sh.ctx(), sh))
}

/// CU_STREAM_NON_BLOCKING.
pub(crate) const STREAM_NON_BLOCKING: c_uint = 0x1;

pub(crate) fn stream_create(ph: *mut Handle, flags: c_uint, priority: c_int) -> Result<()> {
    let (gpu, h) = current()?;
    if ph.is_null() || flags & !STREAM_NON_BLOCKING != 0 {
        return Err(CuError::InvalidValue);
    }
    let sh = gpu.stream_create(h, flags & STREAM_NON_BLOCKING != 0, priority)?;
    if let Ok(chid) = gpu.stream_channel(h, sh) {
        state()?.profile.stream(chid, h.0, sh.0);
    }
    raw::put(ph, handle(sh.0))
}

/// cuStreamCreate: a new channel of the current context (flags 0 or CU_STREAM_NON_BLOCKING).
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    guard(|| stream_create(ph, flags, 0))
}

/// cuStreamCreateWithPriority: priorities from -3 (most urgent) to 0, clamped; PFIFO's
/// priority policy serves more urgent channels first.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamCreateWithPriority(ph: *mut Handle, flags: c_uint, priority: c_int) -> CUresult {
    guard(|| stream_create(ph, flags, priority))
}

/// cuCtxGetStreamPriorityRange: (least, greatest) = (0, -3).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    guard(|| {
        current()?;
        if !least.is_null() {
            raw::put(least, 0)?;
        }
        if !greatest.is_null() {
            raw::put(greatest, runtime_core::limits::STREAM_PRIORITY_GREATEST)?;
        }
        Ok(())
    })
}

/// Stream `s`'s context and flags: (context, non-blocking, CUDA priority).
pub(crate) fn stream_info(s: Handle) -> Result<(CtxHandle, bool, c_int)> {
    let (gpu, h, sh) = stream_of(s)?;
    let (non_blocking, priority) = gpu.stream_flags(h, sh)?;
    Ok((h, non_blocking, priority))
}

/// cuStreamGetPriority.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetPriority(s: Handle, priority: *mut c_int) -> CUresult {
    guard(|| raw::put(priority, stream_info(s)?.2))
}

/// cuStreamGetDevice (CUDA 12.8): the device of the stream's context (NULL and the
/// special streams: the current context's).
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetDevice(s: Handle, device: *mut CUdevice) -> CUresult {
    guard(|| raw::put(device, device_of(stream_info(s)?.0)))
}

/// cuStreamGetFlags.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetFlags(s: Handle, flags: *mut c_uint) -> CUresult {
    guard(|| raw::put(flags, if stream_info(s)?.1 { STREAM_NON_BLOCKING } else { 0 }))
}

/// cuStreamGetCtx: the stream's context.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetCtx(s: Handle, pctx: *mut Handle) -> CUresult {
    guard(|| raw::put(pctx, handle(stream_info(s)?.0.0)))
}

/// cuStreamDestroy_v2: the stream's queued work completes first.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamDestroy_v2(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, sh) = stream_of(s)?;
        gpu.stream_destroy(h, sh)
    })
}

/// cuStreamSynchronize.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamSynchronize(s: Handle) -> CUresult {
    apitrace::call("cuStreamSynchronize", Some(s), || {
        guard(|| {
            let (gpu, h, sh) = stream_of(s)?;
            let r = gpu.stream_synchronize(h, sh);
            synchronized(&gpu, h);
            r
        })
    })
}

/// cuStreamQuery: CUDA_SUCCESS when done, CUDA_ERROR_NOT_READY while work is queued.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamQuery(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, sh) = stream_of(s)?;
        if gpu.stream_query(h, sh)? { Ok(()) } else { Err(CuError::NotReady) }
    })
}

/// `CUhostFn`.
pub type HostFn = Option<extern "C" fn(*mut c_void)>;
/// `CUstreamCallback`: the stream, its status, the data.
pub type StreamCallback = Option<extern "C" fn(Handle, CUresult, *mut c_void)>;

/// cuLaunchHostFunc: call `f(data)` in stream order: once the stream's earlier work is
/// done, on a thread waiting for the device (the program's next synchronization), with
/// the device's time stopped while it runs; the caller goes on at once, and work queued
/// after it waits for it. Not called if the stream faults first.
#[unsafe(no_mangle)]
pub extern "C" fn cuLaunchHostFunc(s: Handle, f: HostFn, data: *mut c_void) -> CUresult {
    apitrace::call("cuLaunchHostFunc", Some(s), || {
        guard(|| {
            let f = f.ok_or(CuError::InvalidValue)?;
            let (gpu, h, sh) = stream_of(s)?;
            let data = data.expose_provenance();
            let run = move |err: Option<CuError>| {
                if err.is_none() {
                    crate::state::as_host_function(|| f(std::ptr::with_exposed_provenance_mut(data)))
                }
            };
            gpu.launch_host_func(h, sh, Box::new(run))
        })
    })
}

/// cuStreamAddCallback: as cuLaunchHostFunc, calling `cb(stream, status, data)`; after a
/// fault it is still called, with the error. `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamAddCallback(s: Handle, cb: StreamCallback, data: *mut c_void, flags: c_uint) -> CUresult {
    guard(|| {
        let cb = cb.ok_or(CuError::InvalidValue)?;
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        let (gpu, h, sh) = stream_of(s)?;
        let (data, stream) = (data.expose_provenance(), s.expose_provenance());
        let run = move |err: Option<CuError>| {
            let status = err.map_or(0, |e| e.code() as CUresult);
            let (stream, data) =
                (std::ptr::with_exposed_provenance_mut(stream), std::ptr::with_exposed_provenance_mut(data));
            crate::state::as_host_function(|| cb(stream, status, data))
        };
        gpu.launch_host_func(h, sh, Box::new(run))
    })
}
