//! Memory: device allocations, copies and memsets (blocking and on streams), pinned host
//! memory.

use crate::state::{HostAlloc, STATS, current, gpu_of, guard, state, synchronized};
use crate::{CUdeviceptr, CUresult, Handle, apitrace, managed, peer, pointer, raw, stream_of};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::MemsetValue;
use backend_user::Result;
use backend_user::UserDev;
use runtime_core::StreamHandle;
use std::ffi::c_uint;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

/// cuMemAlloc_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult {
    apitrace::call("cuMemAlloc_v2", None, || {
        guard(|| {
            let (gpu, h) = current()?;
            if dptr.is_null() || bytes == 0 {
                return Err(CuError::InvalidValue);
            }
            let p = gpu.mem_alloc(h, bytes as u64)?;
            if let Err(e) = peer::peers().allocated(h, p).and_then(|()| raw::put(dptr, p)) {
                peer::peers().freeing(h, p);
                let _ = gpu.mem_free(h, p);
                return Err(e);
            }
            Ok(())
        })
    })
}

/// Allocate `height` rows of `width` bytes for `elem`-byte accesses (below 4 GiB when
/// `low`) and hand the pointer and pitch to `store`; the allocation is freed if `store`
/// fails (the 64-bit and 32-bit cuMemAllocPitch differ only in what they store).
/// `outputs_null` (an output pointer is NULL) is INVALID_VALUE.
pub(crate) fn alloc_pitch(
    (width, height, elem): (u64, u64, c_uint),
    low: bool,
    outputs_null: bool,
    store: impl FnOnce(CUdeviceptr, u64) -> Result<()>,
) -> Result<()> {
    let (gpu, h) = current()?;
    if outputs_null {
        return Err(CuError::InvalidValue);
    }
    let (p, pitch) = gpu.mem_alloc_pitch(h, width, height, elem, low)?;
    peer::peers().allocated(h, p).and_then(|()| store(p, pitch)).inspect_err(|_| {
        peer::peers().freeing(h, p);
        let _ = gpu.mem_free(h, p);
    })
}

/// cuMemAllocPitch_v2: `height` rows of `width` bytes, rows `*pitch` bytes apart (a
/// multiple of 512); `elem` (the widest access) must be 4, 8 or 16.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    elem: c_uint,
) -> CUresult {
    guard(|| {
        alloc_pitch((width as u64, height as u64, elem), false, dptr.is_null() || pitch.is_null(), |p, pt| {
            raw::put(pitch, pt as usize).and_then(|()| raw::put(dptr, p))
        })
    })
}

/// cuMemFree_v2 (freeing 0 is a no-op, as in CUDA).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    apitrace::call("cuMemFree_v2", None, || {
        guard(|| {
            let (gpu, h) = current()?;
            if dptr == 0 {
                return Ok(());
            }
            // Under unified addressing the pointer names its context, of any device.
            let owner = pointer::owner(&*state()?, dptr).map(|(c, _)| c).filter(|&c| c != h);
            let (gpu, h) = match owner {
                Some(c) if gpu.unified_addressing() => (gpu_of(c.0)?, c),
                _ => (gpu, h),
            };
            let taken = managed::take_alloc(&mut *state()?, h, dptr);
            if let Some(r) = taken {
                crate::demand::uvm().remove(r.dptr);
                // Managed memory: host memory at its device address.
                let freed = gpu.mem_free_host(h, dptr);
                pointer::forget(&mut *state()?, h, dptr);
                drop(r);
                return freed;
            }
            peer::peers().freeing(h, dptr);
            gpu.mem_free(h, dptr)?;
            pointer::forget(&mut *state()?, h, dptr);
            Ok(())
        })
    })
}

/// cuMemGetInfo_v2: free and total VRAM.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    guard(|| {
        let (gpu, _) = current()?;
        let (f, t) = gpu.mem_info();
        raw::put(free, f as usize)?;
        raw::put(total, t as usize)
    })
}

/// cuMemGetAddressRange_v2: the base and size of the program's allocation containing
/// `dptr` (either output may be NULL); CUDA_ERROR_NOT_FOUND for an address outside every
/// allocation the program made (memory the runtime holds for modules included).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetAddressRange_v2(pbase: *mut CUdeviceptr, psize: *mut usize, dptr: CUdeviceptr) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        let (base, size) = gpu.mem_range(h, dptr)?;
        if !pbase.is_null() {
            raw::put(pbase, base)?;
        }
        if !psize.is_null() {
            raw::put(psize, size as usize)?;
        }
        Ok(())
    })
}

pub(crate) fn count_copy(bytes: usize) {
    STATS.copies.fetch_add(1, Ordering::Relaxed);
    STATS.copy_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
}

/// The device pointer of `[p, p + bytes)` if it lies in pinned host or managed memory of
/// context `ctx`.
pub(crate) fn pinned(ctx: CtxHandle, p: usize, bytes: usize) -> Result<Option<u64>> {
    let st = state()?;
    let pinned = st.host.iter().find_map(|(&base, a)| {
        let inside = a.ctx == ctx && p >= base && p.checked_add(bytes).is_some_and(|e| e <= base + a.bytes);
        inside.then(|| a.dptr + (p - base) as u64)
    });
    // Managed memory is host memory the device reaches too (paged managed memory is not
    // mapped for the copy engine: it is copied as pageable memory).
    drop(st);
    if pinned.is_none() && crate::demand::uvm().paged(p as u64, bytes as u64) {
        return Ok(None);
    }
    let st = state()?;
    Ok(pinned.or_else(|| managed::device_of(&st, ctx, p, bytes)))
}

/// An address range: start and bytes.
type Span = (u64, usize);

/// A copy or memset whose device side (`device` ranges) or host side (`host`) touches paged
/// managed memory: the pages come home first; when the device side does, the operation is
/// the host's (`op`), in stream `(h, sh)`'s order. None otherwise: the operation goes its
/// usual way (the host side then reads or writes current host memory).
fn host_side(
    gpu: &UserDev,
    (h, sh): (CtxHandle, StreamHandle),
    (device, host): (&[Span], &[Span]),
    op: impl FnOnce() -> Result<()>,
) -> Option<Result<()>> {
    let paged = |r: &[Span]| r.iter().any(|&(p, n)| crate::demand::uvm().paged(p, n as u64));
    let on_device = paged(device);
    if !on_device && !paged(host) {
        return None;
    }
    crate::demand::uvm().to_host_all();
    on_device.then(|| gpu.stream_synchronize(h, sh).and_then(|()| op()))
}

/// `value` repeated over `n` elements at host address `p`.
fn host_fill(p: u64, v: MemsetValue, n: usize) -> Result<()> {
    let (pattern, size): ([u8; 4], usize) = match v {
        MemsetValue::U8(x) => ([x, 0, 0, 0], 1),
        MemsetValue::U16(x) => ([x as u8, (x >> 8) as u8, 0, 0], 2),
        MemsetValue::U32(x) => (x.to_le_bytes(), 4),
    };
    let out = raw::bytes_mut(std::ptr::with_exposed_provenance_mut(p as usize), n * size)?;
    for c in out.chunks_exact_mut(size) {
        c.copy_from_slice(&pattern[..size]);
    }
    Ok(())
}

/// A host side of a copy that is device memory (not the host's to read or write: reading
/// it here would fault): CUDA_ERROR_INVALID_VALUE.
pub(crate) fn not_device(host: u64) -> Result<()> {
    match pointer::memory_kind(host) {
        "device" => Err(CuError::InvalidValue),
        _ => Ok(()),
    }
}

pub(crate) fn htod(dst: CUdeviceptr, src: *const c_void, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    guard(|| {
        apitrace::note_kinds(|| (pointer::memory_kind(src.addr() as u64), pointer::memory_kind(dst)));
        let (gpu, h, sh) = stream_of(s)?;
        not_device(src.addr() as u64)?;
        let to = std::ptr::with_exposed_provenance_mut::<u8>(dst as usize);
        let sides = (&[(dst, bytes)][..], &[(src.addr() as u64, bytes)][..]);
        if let Some(r) = host_side(&gpu, (h, sh), sides, || raw::copy_host(to, src.cast(), bytes)) {
            count_copy(bytes);
            return r;
        }
        if let Some(p) = pinned(h, src.addr(), bytes)? {
            // Pinned memory: the copy engine reads it where it is (no staging); a
            // synchronous copy returns when it is done, as CUDA's does.
            gpu.memcpy(h, sh, dst, p, bytes as u64)?;
            if !asynchronous {
                gpu.stream_synchronize(h, sh)?;
            }
        } else {
            // Pageable memory: the copy is synchronous, after the stream's earlier work.
            gpu.stream_synchronize(h, sh)?;
            gpu.memcpy_htod(h, dst, raw::bytes(src.cast(), bytes)?)?;
        }
        count_copy(bytes);
        Ok(())
    })
}

pub(crate) fn dtoh(dst: *mut c_void, src: CUdeviceptr, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    guard(|| {
        apitrace::note_kinds(|| (pointer::memory_kind(src), pointer::memory_kind(dst.addr() as u64)));
        let (gpu, h, sh) = stream_of(s)?;
        not_device(dst.addr() as u64)?;
        let from = std::ptr::with_exposed_provenance::<u8>(src as usize);
        let sides = (&[(src, bytes)][..], &[(dst.addr() as u64, bytes)][..]);
        if let Some(r) = host_side(&gpu, (h, sh), sides, || raw::copy_host(dst.cast(), from, bytes)) {
            count_copy(bytes);
            return r;
        }
        if let Some(p) = pinned(h, dst.addr(), bytes)? {
            gpu.memcpy(h, sh, p, src, bytes as u64)?;
            if !asynchronous {
                let r = gpu.stream_synchronize(h, sh);
                synchronized(&gpu, h);
                r?;
            }
        } else {
            let r = gpu.stream_synchronize(h, sh);
            synchronized(&gpu, h);
            r?;
            gpu.memcpy_dtoh(h, raw::bytes_mut(dst.cast(), bytes)?, src)?;
        }
        count_copy(bytes);
        Ok(())
    })
}

pub(crate) fn dtod(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    guard(|| {
        apitrace::note_kinds(|| (pointer::memory_kind(src), pointer::memory_kind(dst)));
        let (gpu, h, sh) = stream_of(s)?;
        let host = |p: u64| std::ptr::with_exposed_provenance_mut::<u8>(p as usize);
        let (dp, sp) = (crate::demand::uvm().paged(dst, bytes as u64), crate::demand::uvm().paged(src, bytes as u64));
        let op = || match (dp, sp) {
            (true, true) => raw::copy_host(host(dst), host(src), bytes),
            (true, false) => gpu.memcpy_dtoh(h, raw::bytes_mut(host(dst), bytes)?, src),
            _ => gpu.memcpy_htod(h, dst, raw::bytes(host(src), bytes)?),
        };
        if let Some(r) = host_side(&gpu, (h, sh), (&[(dst, bytes), (src, bytes)], &[]), op) {
            count_copy(bytes);
            return r;
        }
        if asynchronous {
            gpu.memcpy(h, sh, dst, src, bytes as u64)?;
        } else {
            // Synchronous: on the default stream, returning when the copy is done.
            let f = gpu.memcpy(h, StreamHandle::DEFAULT, dst, src, bytes as u64)?;
            if bytes > 0 {
                gpu.fence_wait(h, f)?;
            }
        }
        count_copy(bytes);
        Ok(())
    })
}

/// Under unified addressing, whether `ptr` is device memory of context `h`: one of its
/// allocations (pinned host memory included, whose host and device addresses are the
/// same) or a VMM mapping. Anything else is host memory.
pub(crate) fn unified_device(gpu: &UserDev, h: CtxHandle, ptr: u64) -> bool {
    gpu.mem_range(h, ptr).is_ok() || gpu.mem_access(h, ptr).is_ok()
}

/// A copy between two unified pointers, its direction inferred from them (cuMemcpy,
/// cudaMemcpyDefault); CUDA_ERROR_NOT_SUPPORTED without unified addressing.
/// Where the two sides of a copy between unified pointers are: device memory of the
/// stream's context (`dst`, `src`), else device memory of another GPU's context.
struct Sides {
    dst: bool,
    src: bool,
    dst_other: Option<CtxHandle>,
    src_other: Option<CtxHandle>,
}

fn unified_copy(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    // Host memory read or written below is current: paged managed memory comes home.
    if crate::demand::uvm().paged(dst, bytes as u64) || crate::demand::uvm().paged(src, bytes as u64) {
        crate::demand::uvm().to_host_all();
    }
    let device = (|| -> Result<(Sides, CtxHandle, StreamHandle)> {
        let (gpu, h, sh) = stream_of(s)?;
        if !gpu.unified_addressing() {
            return Err(CuError::NotSupported);
        }
        // Device memory of another GPU's context: a peer copy.
        let other = |p: u64, ours: bool| if ours { None } else { peer::device_owner(p) };
        let (dd, sd) = (unified_device(&gpu, h, dst), unified_device(&gpu, h, src));
        Ok((Sides { dst: dd, src: sd, dst_other: other(dst, dd), src_other: other(src, sd) }, h, sh))
    })();
    let (Sides { dst: dd, src: sd, dst_other, src_other }, h, sh) = match device {
        Ok(v) => v,
        Err(e) => return e.code() as CUresult,
    };
    let host = |p: CUdeviceptr| std::ptr::with_exposed_provenance_mut::<c_void>(p as usize);
    if dst_other.is_some() || src_other.is_some() {
        return guard(|| {
            apitrace::note_kinds(|| (pointer::memory_kind(src), pointer::memory_kind(dst)));
            match (dst_other.or(dd.then_some(h)), src_other.or(sd.then_some(h))) {
                (Some(dc), Some(sc)) => peer::peers().copy((dst, dc), (src, sc), bytes, Some((h, sh)), asynchronous)?,
                // Host memory and another GPU's memory: a copy in that GPU's context, in
                // the stream's order.
                (Some(dc), None) => {
                    gpu_of(h.0)?.stream_synchronize(h, sh)?;
                    gpu_of(dc.0)?.memcpy_htod(dc, dst, raw::bytes(host(src).cast(), bytes)?)?;
                }
                (None, Some(sc)) => {
                    gpu_of(h.0)?.stream_synchronize(h, sh)?;
                    gpu_of(sc.0)?.memcpy_dtoh(sc, raw::bytes_mut(host(dst).cast(), bytes)?, src)?;
                }
                (None, None) => return Err(CuError::InvalidValue),
            }
            count_copy(bytes);
            Ok(())
        });
    }
    match (dd, sd) {
        (true, true) => dtod(dst, src, bytes, s, asynchronous),
        (true, false) => htod(dst, host(src), bytes, s, asynchronous),
        (false, true) => dtoh(host(dst), src, bytes, s, asynchronous),
        (false, false) => guard(|| {
            // In stream order: after the stream's earlier work.
            let (gpu, h, sh) = stream_of(s)?;
            gpu.stream_synchronize(h, sh)?;
            raw::copy_host(host(dst).cast(), host(src).cast(), bytes)?;
            count_copy(bytes);
            Ok(())
        }),
    }
}

/// cuMemcpy: a copy between unified pointers, the direction inferred (host memory,
/// pageable or pinned, device memory), synchronous as cuMemcpyDtoD is.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpy", Some(std::ptr::null_mut()), || {
        unified_copy(dst, src, bytes, std::ptr::null_mut(), false)
    })
}

/// cuMemcpyAsync: [`cuMemcpy`] on a stream (pageable host memory makes it synchronous).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemcpyAsync", Some(stream), || unified_copy(dst, src, bytes, stream, true))
}

/// cuMemcpyHtoD_v2: returns once the source may be reused.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyHtoD_v2", Some(std::ptr::null_mut()), || htod(dst, src, bytes, std::ptr::null_mut(), false))
}

/// cuMemcpyDtoH_v2: waits for earlier work of the context (a launch included).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyDtoH_v2", Some(std::ptr::null_mut()), || dtoh(dst, src, bytes, std::ptr::null_mut(), false))
}

/// cuMemcpyDtoD_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyDtoD_v2", Some(std::ptr::null_mut()), || dtod(dst, src, bytes, std::ptr::null_mut(), false))
}

/// cuMemcpyHtoDAsync_v2: from pinned host memory (cuMemAllocHost/cuMemHostAlloc) it
/// returns before the copy runs; from pageable memory it is synchronous, as in CUDA.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemcpyHtoDAsync_v2", Some(stream), || htod(dst, src, bytes, stream, true))
}

/// cuMemcpyDtoHAsync_v2: asynchronous into pinned host memory, else synchronous.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemcpyDtoHAsync_v2", Some(stream), || dtoh(dst, src, bytes, stream, true))
}

/// cuMemcpyDtoDAsync_v2: asynchronous on the stream.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemcpyDtoDAsync_v2", Some(stream), || dtod(dst, src, bytes, stream, true))
}

/// Whether device address `p` of context `h` is host memory (pinned or managed): a
/// synchronous memset of it returns only when it is done, as CUDA's do.
fn host_backed(h: CtxHandle, p: CUdeviceptr) -> Result<bool> {
    let st = state()?;
    let pinned = st.host.values().any(|a| a.ctx == h && p >= a.dptr && p - a.dptr < a.bytes as u64);
    Ok(pinned || managed::device_of(&st, h, p as usize, 1).is_some())
}

pub(crate) fn memset(dst: CUdeviceptr, v: MemsetValue, n: usize) -> Result<()> {
    let (gpu, h) = current()?;
    let bytes = n * v.size() as usize;
    if let Some(r) = host_side(&gpu, (h, StreamHandle::DEFAULT), (&[(dst, bytes)], &[]), || host_fill(dst, v, n)) {
        return r;
    }
    let f = gpu.memset(h, StreamHandle::DEFAULT, dst, v, n as u64)?;
    if host_backed(h, dst)? { gpu.fence_wait(h, f) } else { Ok(()) }
}

/// cuMemsetD8_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult {
    apitrace::call("cuMemsetD8_v2", Some(std::ptr::null_mut()), || guard(|| memset(dst, MemsetValue::U8(v), n)))
}

/// cuMemsetD16_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) -> CUresult {
    apitrace::call("cuMemsetD16_v2", Some(std::ptr::null_mut()), || guard(|| memset(dst, MemsetValue::U16(v), n)))
}

/// cuMemsetD32_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, v: c_uint, n: usize) -> CUresult {
    apitrace::call("cuMemsetD32_v2", Some(std::ptr::null_mut()), || guard(|| memset(dst, MemsetValue::U32(v), n)))
}

/// A 2D memset on stream `s`; when `sync`, one of the synchronous entry points, which
/// waits for it when the memory is on the host (pinned or managed).
pub(crate) fn memset_2d(
    dst: CUdeviceptr,
    pitch: usize,
    v: MemsetValue,
    (w, h): (usize, usize),
    s: Handle,
    sync: bool,
) -> CUresult {
    guard(|| {
        let (gpu, ctx, sh) = stream_of(s)?;
        let f = gpu.memset_2d(ctx, sh, dst, pitch as u64, v, (w as u64, h as u64))?;
        if sync && host_backed(ctx, dst)? { gpu.fence_wait(ctx, f) } else { Ok(()) }
    })
}

/// cuMemsetD2D8_v2: `h` rows of `w` bytes, `pitch` bytes apart.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD2D8_v2(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize) -> CUresult {
    memset_2d(dst, pitch, MemsetValue::U8(v), (w, h), std::ptr::null_mut(), true)
}

/// cuMemsetD2D16_v2: `h` rows of `w` 16-bit values, `pitch` bytes apart.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD2D16_v2(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize) -> CUresult {
    memset_2d(dst, pitch, MemsetValue::U16(v), (w, h), std::ptr::null_mut(), true)
}

/// cuMemsetD2D32_v2: `h` rows of `w` 32-bit values, `pitch` bytes apart.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD2D32_v2(dst: CUdeviceptr, pitch: usize, v: c_uint, w: usize, h: usize) -> CUresult {
    memset_2d(dst, pitch, MemsetValue::U32(v), (w, h), std::ptr::null_mut(), true)
}

/// cuMemsetD2D8Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize, s: Handle) -> CUresult {
    memset_2d(dst, pitch, MemsetValue::U8(v), (w, h), s, false)
}

/// cuMemsetD2D16Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD2D16Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u16,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    memset_2d(dst, pitch, MemsetValue::U16(v), (w, h), s, false)
}

/// cuMemsetD2D32Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD2D32Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: c_uint,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    memset_2d(dst, pitch, MemsetValue::U32(v), (w, h), s, false)
}

pub(crate) fn memset_async(dst: CUdeviceptr, v: MemsetValue, n: usize, s: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, sh) = stream_of(s)?;
        let bytes = n * v.size() as usize;
        if let Some(r) = host_side(&gpu, (h, sh), (&[(dst, bytes)], &[]), || host_fill(dst, v, n)) {
            return r;
        }
        gpu.memset(h, sh, dst, v, n as u64).map(drop)
    })
}

/// cuMemsetD8Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemsetD8Async", Some(stream), || memset_async(dst, MemsetValue::U8(v), n, stream))
}

/// cuMemsetD16Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD16Async(dst: CUdeviceptr, v: u16, n: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemsetD16Async", Some(stream), || memset_async(dst, MemsetValue::U16(v), n, stream))
}

/// cuMemsetD32Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD32Async(dst: CUdeviceptr, v: c_uint, n: usize, stream: Handle) -> CUresult {
    apitrace::call("cuMemsetD32Async", Some(stream), || memset_async(dst, MemsetValue::U32(v), n, stream))
}

/// CU_MEMHOSTALLOC_PORTABLE | DEVICEMAP | WRITECOMBINED.
pub(crate) const HOSTALLOC_FLAGS: c_uint = 0x7;

/// Pinned host memory, mapped for the device below 4 GiB when `low` (the 32-bit ABI).
pub(crate) fn host_alloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint, low: bool) -> Result<()> {
    let (gpu, h) = current()?;
    if pp.is_null() || bytes == 0 || flags & !HOSTALLOC_FLAGS != 0 {
        return Err(CuError::InvalidValue);
    }
    let (dptr, mem) = gpu.mem_alloc_host_in(h, bytes as u64, low)?;
    let p = mem.as_mut_ptr();
    // Every other context of every GPU reaches it on demand.
    crate::demand::uvm().add(h, dptr, mem.clone());
    let a = HostAlloc { ctx: h, dptr, bytes, mapping: dptr, flags, registered: false, _mem: mem };
    state()?.host.insert(p.addr(), a);
    raw::put(pp, p.cast())
}

/// cuMemAllocHost_v2: pinned host memory, mapped into the current context's page tables.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult {
    apitrace::call("cuMemAllocHost_v2", None, || guard(|| host_alloc(pp, bytes, 0, false)))
}

/// cuMemHostAlloc: as cuMemAllocHost; every allocation is device-mapped.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult {
    apitrace::call("cuMemHostAlloc", None, || guard(|| host_alloc(pp, bytes, flags, false)))
}

/// cuMemFreeHost.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    guard(|| {
        host_release(p, false)
            .map_err(|e| if e == CuError::HostMemoryNotRegistered { CuError::InvalidValue } else { e })
    })
}

/// End pinned memory at `p`: allocated by cuMemHostAlloc (`registered` false) or
/// registered (true); CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED for anything else.
fn host_release(p: *mut c_void, registered: bool) -> Result<()> {
    let mut st = state()?;
    if st.host.get(&p.addr()).is_none_or(|a| a.registered != registered) {
        return Err(CuError::HostMemoryNotRegistered);
    }
    let a = st.host.remove(&p.addr()).ok_or(CuError::HostMemoryNotRegistered)?;
    pointer::forget(&mut st, a.ctx, a.dptr);
    let gpu = st.gpu_of(a.ctx.0);
    drop(st);
    if !a.registered {
        crate::demand::uvm().remove(a.mapping);
    }
    gpu.mem_free_host(a.ctx, a.mapping)
}

/// CU_MEMHOSTREGISTER_PORTABLE.
const HOSTREGISTER_PORTABLE: c_uint = 0x01;
/// CU_MEMHOSTREGISTER_DEVICEMAP.
const HOSTREGISTER_DEVICEMAP: c_uint = 0x02;
/// CU_MEMHOSTREGISTER_IOMEMORY.
const HOSTREGISTER_IOMEMORY: c_uint = 0x04;
/// CU_MEMHOSTREGISTER_READ_ONLY.
const HOSTREGISTER_READ_ONLY: c_uint = 0x08;

/// cuMemHostRegister_v2: page-lock `[p, p + bytes)` and map its pages into the current
/// context (every registration is device-mapped; PORTABLE is accepted, the mapping is the
/// current context's). READ_ONLY maps the pages read-only, so a kernel's store faults.
/// IOMEMORY is NOT_SUPPORTED. Memory that is not mapped readable (and writable, unless
/// READ_ONLY) in the process is INVALID_VALUE; a range overlapping pinned or registered
/// memory is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, flags: c_uint) -> CUresult {
    guard(|| {
        let known = HOSTREGISTER_PORTABLE | HOSTREGISTER_DEVICEMAP | HOSTREGISTER_IOMEMORY | HOSTREGISTER_READ_ONLY;
        if flags & !known != 0 || p.is_null() || bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        if flags & HOSTREGISTER_IOMEMORY != 0 {
            return Err(CuError::NotSupported);
        }
        let (gpu, h) = current()?;
        let (start, end) = (p.addr(), p.addr().checked_add(bytes).ok_or(CuError::InvalidValue)?);
        if state()?.host.iter().any(|(&b, a)| b < end && start < b + a.bytes) {
            return Err(CuError::HostMemoryAlreadyRegistered);
        }
        let read_only = flags & HOSTREGISTER_READ_ONLY != 0;
        let (mem, offset) = raw::host_pages(p, bytes, read_only)?;
        let mapping = gpu.mem_host_register(h, mem.clone(), read_only)?;
        let a = HostAlloc { ctx: h, dptr: mapping + offset as u64, bytes, mapping, flags, registered: true, _mem: mem };
        state()?.host.insert(start, a);
        Ok(())
    })
}

/// cuMemHostUnregister: `p` as registered; returns once the device no longer uses the
/// pages (after the context's queued work).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    guard(|| host_release(p, true))
}

/// cuMemHostGetFlags: the flags pinned memory was allocated or registered with.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> CUresult {
    guard(|| {
        let st = state()?;
        let a = p.addr();
        let f = st.host.iter().find(|(b, h)| a >= **b && a - **b < h.bytes).map(|(_, h)| h.flags);
        raw::put(flags, f.ok_or(CuError::InvalidValue)?)
    })
}

/// cuMemHostGetDevicePointer_v2: the device address of any byte of a pinned allocation.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostGetDevicePointer_v2(dptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) -> CUresult {
    guard(|| {
        let (_, ctx) = current()?;
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        let st = state()?;
        let a = p.addr();
        let d = st
            .host
            .iter()
            .find(|(base, h)| h.ctx == ctx && a >= **base && a - **base < h.bytes)
            .map(|(base, h)| h.dptr + (a - base) as u64)
            .ok_or(CuError::InvalidValue)?;
        raw::put(dptr, d)
    })
}
