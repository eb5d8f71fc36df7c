//! Streams: creation with flags and priorities, destruction, synchronization and queries.

use super::*;

/// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: both name the legacy default stream here.
pub(crate) const STREAM_LEGACY: usize = 0x1;
pub(crate) const STREAM_PER_THREAD: usize = 0x2;

/// The context and runtime stream of a `CUstream`: NULL (and the two special handles) is
/// the current context's default stream; a stream handle brings its own context.
pub(crate) fn stream_of(s: Handle) -> Result<(Arc<UserGpu>, usize, CtxHandle, StreamHandle)> {
    let st = state()?;
    let (ctx, sh) = lookup(&st, s)?;
    let h = *st.ctxs.get(&ctx).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), ctx, h, sh))
}

/// Stream handle `s` as (context id, runtime stream), under the caller's hold of the lock:
/// NULL and the legacy and per-thread handles are the current context's default stream.
pub(crate) fn lookup(st: &State, s: Handle) -> Result<(usize, StreamHandle)> {
    if matches!(key(s), 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
        let ctx = STACK.with(|s| s.borrow().last().copied()).ok_or(CuError::InvalidContext)?;
        st.ctxs.get(&ctx).ok_or(CuError::InvalidContext)?;
        return Ok((ctx, StreamHandle::DEFAULT));
    }
    let &(ctx, sh, _, _) = st.streams.get(&key(s)).ok_or(CuError::InvalidHandle)?;
    Ok((ctx, sh))
}

/// CU_STREAM_NON_BLOCKING.
pub(crate) const STREAM_NON_BLOCKING: c_uint = 0x1;

pub(crate) fn stream_create(ph: *mut Handle, flags: c_uint, priority: c_int) -> Result<()> {
    let (gpu, ctx, h) = current()?;
    if ph.is_null() || flags & !STREAM_NON_BLOCKING != 0 {
        return Err(CuError::InvalidValue);
    }
    let priority = priority.clamp(runtime_core::limits::STREAM_PRIORITY_GREATEST, 0);
    let sh = gpu.stream_create(h, flags & STREAM_NON_BLOCKING != 0, priority)?;
    let mut st = state()?;
    let id = st.id();
    st.streams.insert(id, (ctx, sh, flags, priority));
    drop(st);
    raw::put(ph, handle(id))
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

pub(crate) fn stream_info(s: Handle) -> Result<(usize, StreamHandle, c_uint, c_int)> {
    if matches!(key(s), 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
        let (_, ctx, _) = current()?;
        return Ok((ctx, StreamHandle::DEFAULT, 0, 0));
    }
    state()?.streams.get(&key(s)).copied().ok_or(CuError::InvalidHandle)
}

/// cuStreamGetPriority.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetPriority(s: Handle, priority: *mut c_int) -> CUresult {
    guard(|| raw::put(priority, stream_info(s)?.3))
}

/// cuStreamGetFlags.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetFlags(s: Handle, flags: *mut c_uint) -> CUresult {
    guard(|| raw::put(flags, stream_info(s)?.2))
}

/// cuStreamGetCtx: the stream's context.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetCtx(s: Handle, pctx: *mut Handle) -> CUresult {
    guard(|| raw::put(pctx, handle(stream_info(s)?.0)))
}

/// cuStreamDestroy_v2: the stream's queued work completes first.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamDestroy_v2(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream_of(s)?;
        if sh == StreamHandle::DEFAULT {
            return Err(CuError::InvalidHandle);
        }
        state()?.streams.remove(&key(s));
        gpu.stream_destroy(h, sh)
    })
}

/// cuStreamSynchronize.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamSynchronize(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream_of(s)?;
        let r = gpu.stream_synchronize(h, sh);
        sanitize::flush(&gpu, h);
        r
    })
}

/// cuStreamQuery: CUDA_SUCCESS when done, CUDA_ERROR_NOT_READY while work is queued.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamQuery(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream_of(s)?;
        if gpu.stream_query(h, sh)? { Ok(()) } else { Err(CuError::NotReady) }
    })
}
