//! Contexts: creation and destruction on any device, CUDA's per-thread context stack, each
//! device's primary context.

use crate::state::{
    STACK, State, check_device, current, device_of, gpu_at, gpu_of, guard, handle, initialized, key, state,
    synchronized,
};
use crate::{CUdevice, CUresult, Handle, apitrace, raw};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use std::ffi::c_int;
use std::ffi::c_uint;

/// cuCtxCreate_v2: a new context, pushed on the calling thread's stack.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    guard(|| {
        let gpu = gpu_at(dev)?;
        if pctx.is_null() || flags > 0x1f {
            return Err(CuError::InvalidValue);
        }
        let h = gpu.ctx_create()?;
        crate::demand::uvm().context_created(&gpu, h);
        STACK.with(|s| s.borrow_mut().push(h));
        raw::put(pctx, handle(h.0))
    })
}

/// cuCtxDestroy_v2: frees everything of the context and pops it from the calling thread's
/// stack. Another thread that still has it current gets CUDA_ERROR_INVALID_CONTEXT.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    guard(|| {
        let h = CtxHandle(key(ctx));
        let mut st = state()?;
        if st.primary_of(h).is_some() {
            // The primary context belongs to cuDevicePrimaryCtxRelease/Reset.
            return Err(CuError::InvalidContext);
        }
        let doomed = st.take_ctx(h)?;
        drop(st);
        STACK.with(|s| s.borrow_mut().retain(|&c| c != h));
        doomed.destroy()
    })
}

/// Context handle `ctx` if it names a live context.
pub(crate) fn check_ctx(ctx: Handle) -> Result<CtxHandle> {
    let h = CtxHandle(key(ctx));
    if gpu_of(h.0)?.ctx_exists(h) { Ok(h) } else { Err(CuError::InvalidContext) }
}

/// cuCtxPushCurrent_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    guard(|| {
        let h = check_ctx(ctx)?;
        STACK.with(|s| s.borrow_mut().push(h));
        Ok(())
    })
}

/// cuCtxPopCurrent_v2: `pctx` may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    guard(|| {
        initialized()?;
        let h = STACK.with(|s| s.borrow_mut().pop()).ok_or(CuError::InvalidContext)?;
        if !pctx.is_null() {
            raw::put(pctx, handle(h.0))?;
        }
        Ok(())
    })
}

/// cuCtxGetCurrent: NULL when the stack is empty.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    guard(|| {
        initialized()?;
        let h = STACK.with(|s| s.borrow().last().copied()).map_or(0, |h| h.0);
        raw::put(pctx, handle(h))
    })
}

/// cuCtxSetCurrent: replaces the top of the stack (NULL pops it).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    guard(|| {
        initialized()?;
        let h = if ctx.is_null() { None } else { Some(check_ctx(ctx)?) };
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            s.pop();
            s.extend(h);
        });
        Ok(())
    })
}

/// cuCtxGetDevice: the ordinal of the current context's GPU.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    guard(|| {
        let (_, h) = current()?;
        raw::put(dev, device_of(h))
    })
}

/// cuCtxSynchronize: waits for all work of the current context; reports its sticky error.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    apitrace::call("cuCtxSynchronize", None, || {
        guard(|| {
            let (gpu, h) = current()?;
            let r = gpu.ctx_synchronize(h);
            synchronized(&gpu, h);
            r
        })
    })
}

/// CU_LIMIT_* values.
const LIMIT_STACK_SIZE: u32 = 0x00;
const LIMIT_PRINTF_FIFO_SIZE: u32 = 0x01;
const LIMIT_MALLOC_HEAP_SIZE: u32 = 0x02;
const LIMIT_DEV_RUNTIME_SYNC_DEPTH: u32 = 0x03;
const LIMIT_PERSISTING_L2_CACHE_SIZE: u32 = 0x06;

/// cuCtxSetLimit: the current context's stack size, printf FIFO size and device heap size
/// (device `malloc`); the device runtime's limits and L2 fetch/persistence controls are not
/// modelled (CUDA_ERROR_UNSUPPORTED_LIMIT).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetLimit(limit: u32, value: usize) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        match limit {
            LIMIT_STACK_SIZE => gpu.set_stack_size(h, value as u64),
            LIMIT_PRINTF_FIFO_SIZE => gpu.set_printf_fifo_size(h, value as u64),
            LIMIT_MALLOC_HEAP_SIZE => gpu.set_malloc_heap_size(h, value as u64),
            LIMIT_DEV_RUNTIME_SYNC_DEPTH..=LIMIT_PERSISTING_L2_CACHE_SIZE => Err(CuError::UnsupportedLimit),
            _ => Err(CuError::InvalidValue),
        }
    })
}

/// cuCtxGetLimit: as cuCtxSetLimit.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetLimit(value: *mut usize, limit: u32) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        let v = match limit {
            LIMIT_STACK_SIZE => gpu.stack_size(h)? as u64,
            LIMIT_PRINTF_FIFO_SIZE => gpu.printf_fifo_size(h)? as u64,
            LIMIT_MALLOC_HEAP_SIZE => gpu.malloc_heap_size(h)?,
            LIMIT_DEV_RUNTIME_SYNC_DEPTH..=LIMIT_PERSISTING_L2_CACHE_SIZE => return Err(CuError::UnsupportedLimit),
            _ => return Err(CuError::InvalidValue),
        };
        raw::put(value, v as usize)
    })
}

/// cuDevicePrimaryCtxRetain: the device's shared context, created on first retain.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        if pctx.is_null() {
            return Err(CuError::InvalidValue);
        }
        let retain = |st: &mut State| -> Result<Option<CtxHandle>> {
            let b = st.device_mut(dev)?;
            Ok(b.primary.map(|(h, n)| {
                b.primary = Some((h, n + 1));
                h
            }))
        };
        let gpu = {
            let mut st = state()?;
            if let Some(h) = retain(&mut st)? {
                return raw::put(pctx, handle(h.0));
            }
            st.device(dev)?.dev.gpu().clone()
        };
        // Create it without the library lock (creating waits for the device); another
        // thread may have created it meanwhile, and then that one is the primary.
        let h = gpu.ctx_create()?;
        let mut st = state()?;
        if let Some(p) = retain(&mut st)? {
            drop(st);
            let _ = gpu.ctx_destroy(h);
            return raw::put(pctx, handle(p.0));
        }
        st.device_mut(dev)?.primary = Some((h, 1));
        drop(st);
        crate::demand::uvm().context_created(&gpu, h);
        raw::put(pctx, handle(h.0))
    })
}

/// cuDevicePrimaryCtxRelease_v2: the last release destroys the primary context.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    guard(|| {
        let mut st = state()?;
        match st.device(dev)?.primary {
            None => Err(CuError::InvalidContext),
            Some((h, 1)) => {
                st.device_mut(dev)?.primary = None;
                let doomed = st.take_ctx(h)?;
                drop(st);
                doomed.destroy()
            }
            Some((h, n)) => {
                st.device_mut(dev)?.primary = Some((h, n - 1));
                Ok(())
            }
        }
    })
}

/// cuDevicePrimaryCtxRelease (pre-11 name).
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    cuDevicePrimaryCtxRelease_v2(dev)
}

/// cuDevicePrimaryCtxReset_v2: destroys the primary context and everything in it now.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    guard(|| {
        let mut st = state()?;
        let Some((h, _)) = st.device_mut(dev)?.primary.take() else { return Ok(()) };
        let doomed = st.take_ctx(h)?;
        drop(st);
        doomed.destroy()
    })
}

/// cuDevicePrimaryCtxReset (pre-11 name).
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    cuDevicePrimaryCtxReset_v2(dev)
}

/// CU_CTX_SCHED_MASK: the host's way of waiting (AUTO 0, SPIN 1, YIELD 2, BLOCKING_SYNC 4).
const CTX_SCHED_MASK: c_uint = 0x07;
/// CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX | CU_CTX_SYNC_MEMOPS.
const CTX_PRIMARY_FLAGS: c_uint = 0x08 | 0x10 | 0x80;
/// CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE.
const CTX_COREDUMP_FLAGS: c_uint = 0x20 | 0x40;

/// Set the primary context's flags (cuDevicePrimaryCtxSetFlags): one scheduling mode plus
/// MAP_HOST, LMEM_RESIZE_TO_MAX and SYNC_MEMOPS, which rgdev's contexts always honour (the
/// host's way of waiting does not change simulated time); coredumps are NOT_SUPPORTED.
/// With `refuse_active` (the pre-CUDA-11 entry point) an existing primary context is
/// CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE; otherwise the flags apply to it at once.
pub(crate) fn primary_set_flags(dev: CUdevice, flags: c_uint, refuse_active: bool) -> Result<()> {
    check_device(dev)?;
    let sched = flags & CTX_SCHED_MASK;
    if flags & !(CTX_SCHED_MASK | CTX_PRIMARY_FLAGS | CTX_COREDUMP_FLAGS) != 0 || !matches!(sched, 0 | 1 | 2 | 4) {
        return Err(CuError::InvalidValue);
    }
    if flags & CTX_COREDUMP_FLAGS != 0 {
        return Err(CuError::NotSupported);
    }
    let mut st = state()?;
    let b = st.device_mut(dev)?;
    if refuse_active && b.primary.is_some() {
        return Err(CuError::PrimaryContextActive);
    }
    b.primary_flags = flags;
    Ok(())
}

/// cuDevicePrimaryCtxSetFlags_v2: one scheduling mode plus MAP_HOST, LMEM_RESIZE_TO_MAX and
/// SYNC_MEMOPS, applied at once, even to an active primary context; coredumps are
/// NOT_SUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    guard(|| primary_set_flags(dev, flags, false))
}

/// cuDevicePrimaryCtxGetState: the flags set, and whether the primary context exists.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    guard(|| {
        let st = state()?;
        let b = st.device(dev)?;
        let (on, f) = (b.primary.is_some(), b.primary_flags);
        drop(st);
        raw::put(flags, f)?;
        raw::put(active, on as c_int)
    })
}
