//! Events: creation, recording, queries, synchronization, elapsed time and stream waits.

use crate::state::{current, gpu_of, guard, handle, key, synchronized};
use crate::{CUresult, Handle, apitrace, raw, stream_of};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserDev;
use runtime_core::EventHandle;
use std::ffi::c_float;
use std::ffi::c_uint;
use std::sync::Arc;

/// The runtime and context of an event handle (the runtime checks it on use).
pub(crate) fn event(e: Handle) -> Result<(Arc<UserDev>, CtxHandle, EventHandle)> {
    let eh = EventHandle(key(e));
    Ok((gpu_of(eh.0)?, eh.ctx(), eh))
}

/// CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING.
pub(crate) const EVENT_FLAGS: c_uint = 0x3;
pub(crate) const EVENT_DISABLE_TIMING: c_uint = 0x2;
pub(crate) const EVENT_INTERPROCESS: c_uint = 0x4;

/// cuEventCreate: CU_EVENT_DEFAULT, BLOCKING_SYNC (waits sleep anyway) and DISABLE_TIMING;
/// CU_EVENT_INTERPROCESS is CUDA_ERROR_NOT_SUPPORTED (no IPC).
#[unsafe(no_mangle)]
pub extern "C" fn cuEventCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        // Flags CUDA does not define first (CUDA_ERROR_INVALID_VALUE), then the one rgdev
        // does not implement.
        if ph.is_null() || flags & !(EVENT_FLAGS | EVENT_INTERPROCESS) != 0 {
            return Err(CuError::InvalidValue);
        }
        if flags & EVENT_INTERPROCESS != 0 {
            return Err(CuError::NotSupported);
        }
        let eh = gpu.event_create(h, flags & EVENT_DISABLE_TIMING == 0)?;
        raw::put(ph, handle(eh.0))
    })
}

/// cuEventDestroy_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventDestroy_v2(e: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, eh) = event(e)?;
        gpu.event_destroy(h, eh)
    })
}

/// cuEventRecord: a semaphore release with the GPU timestamp, queued on the stream.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventRecord(e: Handle, s: Handle) -> CUresult {
    apitrace::call("cuEventRecord", Some(s), || {
        guard(|| {
            let (gpu, h, eh) = event(e)?;
            let (_, sh_ctx, sh) = stream_of(s)?;
            if sh_ctx != h {
                return Err(CuError::InvalidHandle);
            }
            gpu.event_record(h, eh, sh)
        })
    })
}

/// cuEventRecordWithFlags: flags must be 0 (CU_EVENT_RECORD_DEFAULT).
#[unsafe(no_mangle)]
pub extern "C" fn cuEventRecordWithFlags(e: Handle, s: Handle, flags: c_uint) -> CUresult {
    if flags != 0 {
        return CuError::InvalidValue.code() as CUresult;
    }
    cuEventRecord(e, s)
}

/// cuEventQuery: CUDA_SUCCESS once recorded work is done, CUDA_ERROR_NOT_READY before.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventQuery(e: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, eh) = event(e)?;
        if gpu.event_query(h, eh)? { Ok(()) } else { Err(CuError::NotReady) }
    })
}

/// cuEventSynchronize.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventSynchronize(e: Handle) -> CUresult {
    apitrace::call("cuEventSynchronize", None, || {
        guard(|| {
            let (gpu, h, eh) = event(e)?;
            let r = gpu.event_synchronize(h, eh);
            synchronized(&gpu, h);
            r
        })
    })
}

/// cuEventElapsedTime: simulated milliseconds between two completed records.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventElapsedTime(ms: *mut c_float, start: Handle, end: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, a) = event(start)?;
        let (_, h2, b) = event(end)?;
        if h != h2 {
            return Err(CuError::InvalidHandle);
        }
        raw::put(ms, gpu.event_elapsed_ms(h, a, b)?)
    })
}

/// cuEventElapsedTime_v2 (the same).
#[unsafe(no_mangle)]
pub extern "C" fn cuEventElapsedTime_v2(ms: *mut c_float, start: Handle, end: Handle) -> CUresult {
    cuEventElapsedTime(ms, start, end)
}

/// cuStreamWaitEvent: the GPU waits (a semaphore acquire); flags must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamWaitEvent(s: Handle, e: Handle, flags: c_uint) -> CUresult {
    apitrace::call("cuStreamWaitEvent", Some(s), || {
        guard(|| {
            if flags != 0 {
                return Err(CuError::InvalidValue);
            }
            let (gpu, h, eh) = event(e)?;
            let (sgpu, sh_ctx, sh) = stream_of(s)?;
            if sh_ctx != h {
                // An event of another context, of any device: the stream's channel waits
                // for its semaphore.
                return sgpu.stream_wait_event_of(sh_ctx, sh, &gpu, h, eh);
            }
            gpu.stream_wait_event(h, sh, eh)
        })
    })
}
