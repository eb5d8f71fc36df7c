//! Contexts: creation and destruction, CUDA's per-thread context stack, the primary context.

use super::*;

/// cuCtxCreate_v2: a new context, pushed on the calling thread's stack.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        if pctx.is_null() || flags > 0x1f {
            return Err(CuError::InvalidValue);
        }
        let h = gpu()?.ctx_create()?;
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
        if st.primary.is_some_and(|p| p.0 == h) {
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
    if gpu()?.ctx_exists(h) { Ok(h) } else { Err(CuError::InvalidContext) }
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

/// cuCtxGetDevice.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    guard(|| {
        current()?;
        raw::put(dev, 0)
    })
}

/// cuCtxSynchronize: waits for all work of the current context; reports its sticky error.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        let r = gpu.ctx_synchronize(h);
        sanitize::flush(&gpu, h);
        r
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
        let retain = |st: &mut State| {
            st.primary.map(|(h, n)| {
                st.primary = Some((h, n + 1));
                h
            })
        };
        let gpu = {
            let mut st = state()?;
            if let Some(h) = retain(&mut st) {
                return raw::put(pctx, handle(h.0));
            }
            st.gpu()
        };
        // Create it without the library lock (creating waits for the device); another
        // thread may have created it meanwhile, and then that one is the primary.
        let h = gpu.ctx_create()?;
        let mut st = state()?;
        if let Some(p) = retain(&mut st) {
            drop(st);
            let _ = gpu.ctx_destroy(h);
            return raw::put(pctx, handle(p.0));
        }
        st.primary = Some((h, 1));
        raw::put(pctx, handle(h.0))
    })
}

/// cuDevicePrimaryCtxRelease_v2: the last release destroys the primary context.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let mut st = state()?;
        match st.primary {
            None => Err(CuError::InvalidContext),
            Some((h, 1)) => {
                st.primary = None;
                let doomed = st.take_ctx(h)?;
                drop(st);
                doomed.destroy()
            }
            Some((h, n)) => {
                st.primary = Some((h, n - 1));
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
        check_device(dev)?;
        let mut st = state()?;
        let Some((h, _)) = st.primary.take() else { return Ok(()) };
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

/// cuDevicePrimaryCtxGetState: flags are always 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let on = state()?.primary.is_some();
        raw::put(flags, 0)?;
        raw::put(active, on as c_int)
    })
}
