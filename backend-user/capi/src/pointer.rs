//! Pointer attributes (cuPointerGetAttribute, cuPointerGetAttributes): which context owns
//! an address, what memory it is, its allocation's range, and the buffer id CUDA promises
//! unique within the process.
//!
//! A host address is looked up among the pinned host allocations of every context; a
//! device address among the allocations of every context under unified addressing (device
//! pointers are unique in the process, and pinned memory's host pointer is its device
//! pointer), else among the current context's only (each context then has an address
//! space of its own, as with cuMemGetAddressRange).

use crate::state::{STACK, State, device_of, guard, handle, state};
use crate::{CUdeviceptr, CUresult, raw, vmm};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

/// `CUpointer_attribute`.
mod attr {
    use std::ffi::c_int;
    pub const CONTEXT: c_int = 1;
    pub const MEMORY_TYPE: c_int = 2;
    pub const DEVICE_POINTER: c_int = 3;
    pub const HOST_POINTER: c_int = 4;
    pub const SYNC_MEMOPS: c_int = 6;
    pub const BUFFER_ID: c_int = 7;
    pub const IS_MANAGED: c_int = 8;
    pub const DEVICE_ORDINAL: c_int = 9;
    pub const IS_LEGACY_CUDA_IPC_CAPABLE: c_int = 10;
    pub const RANGE_START_ADDR: c_int = 11;
    pub const RANGE_SIZE: c_int = 12;
    pub const MAPPED: c_int = 13;
    pub const ALLOWED_HANDLE_TYPES: c_int = 14;
    pub const IS_GPU_DIRECT_RDMA_CAPABLE: c_int = 15;
    pub const ACCESS_FLAGS: c_int = 16;
    pub const MEMPOOL_HANDLE: c_int = 17;
}

/// `CUmemorytype`.
const CU_MEMORYTYPE_HOST: c_uint = 1;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;
/// `CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS`: read and write.
const ACCESS_READWRITE: c_uint = 3;

/// Buffer ids: a process-wide counter, one id per live allocation (context, base).
static NEXT_BUFFER: AtomicU64 = AtomicU64::new(1);

/// What a pointer points into.
struct Found {
    ctx: CtxHandle,
    host: bool,
    /// The allocation's device range.
    base: u64,
    size: u64,
    /// The device address of the pointer.
    dptr: u64,
    /// Its host address (pinned memory).
    hptr: Option<usize>,
    /// `CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS`: what the context may do with it.
    access: c_uint,
    /// Managed memory (its memory type is reported as device memory, which CUDA allows
    /// for managed memory wherever it lives).
    managed: bool,
}

fn find(st: &State, ptr: u64) -> Option<Found> {
    if let Some((r, h, d)) = crate::managed::lookup(st, ptr) {
        let (base, size) = (r.dptr, r.bytes as u64);
        return Some(Found {
            ctx: r.ctx,
            host: false,
            base,
            size,
            dptr: d,
            hptr: Some(h),
            access: ACCESS_READWRITE,
            managed: true,
        });
    }
    let current = STACK.with(|s| s.borrow().last().copied());
    let pinned = st.host.iter().find_map(|(&h, a)| {
        let (hp, b) = (ptr as usize, a.bytes);
        if hp >= h && hp - h < b {
            let off = (hp - h) as u64;
            Some(Found {
                ctx: a.ctx,
                host: true,
                base: a.dptr,
                size: b as u64,
                dptr: a.dptr + off,
                hptr: Some(hp),
                access: ACCESS_READWRITE,
                managed: false,
            })
        } else if Some(a.ctx) == current && ptr >= a.dptr && ptr - a.dptr < b as u64 {
            let off = ptr - a.dptr;
            let hptr = Some(h + off as usize);
            Some(Found {
                ctx: a.ctx,
                host: true,
                base: a.dptr,
                size: b as u64,
                dptr: ptr,
                hptr,
                access: ACCESS_READWRITE,
                managed: false,
            })
        } else {
            None
        }
    });
    pinned.or_else(|| {
        // The current context first; under unified addressing, then every context of every
        // GPU (their addresses never overlap).
        let mut ctxs: Vec<CtxHandle> = current.into_iter().collect();
        if st.gpus[0].dev.gpu().unified_addressing() {
            for d in st.devices() {
                ctxs.extend(d.gpu().contexts().into_iter().filter(|&c| Some(c) != current));
            }
        }
        ctxs.into_iter().find_map(|ctx| {
            let gpu = st.gpu_of(ctx.0);
            let (base, size) = gpu.mem_range(ctx, ptr).ok()?;
            // A VMM mapping grants what cuMemSetAccess gave it; other allocations, everything.
            let access = gpu.mem_access(ctx, ptr).map_or(ACCESS_READWRITE, |a| vmm::prot(a) as c_uint);
            Some(Found { ctx, host: false, base, size, dptr: ptr, hptr: None, access, managed: false })
        })
    })
}

/// The context `ptr`'s memory belongs to, on any GPU, and whether it is host memory
/// (pinned or managed) rather than device memory.
pub(crate) fn owner(st: &State, ptr: u64) -> Option<(CtxHandle, bool)> {
    find(st, ptr).map(|f| (f.ctx, f.host || f.managed))
}

/// The kind of memory `ptr` is, as CUDA's tools name copies' sides: `device`, `managed`,
/// `pinned` (page-locked or registered host memory) or `pageable` (any other host memory).
pub(crate) fn memory_kind(ptr: u64) -> &'static str {
    let Ok(st) = state() else { return "pageable" };
    match find(&st, ptr) {
        Some(f) if f.managed => "managed",
        Some(f) if f.host => "pinned",
        Some(_) => "device",
        None => "pageable",
    }
}

/// The buffer id of the allocation at (`ctx`, `base`), assigned on first use.
fn buffer_id(st: &mut State, ctx: CtxHandle, base: u64) -> u64 {
    *st.buffers.entry((ctx.0, base)).or_insert_with(|| NEXT_BUFFER.fetch_add(1, Ordering::Relaxed))
}

/// Write attribute `a` of `f` (or of no pointer: the defaults) through `data`.
fn write(st: &mut State, a: c_int, f: Option<&Found>, data: *mut c_void) -> Result<()> {
    use attr::*;
    let flag = |b: bool| b as c_uint;
    match a {
        CONTEXT => raw::put(data.cast(), handle(f.map_or(0, |f| f.ctx.0))),
        MEMORY_TYPE => {
            let t = f.map_or(0, |f| if f.host { CU_MEMORYTYPE_HOST } else { CU_MEMORYTYPE_DEVICE });
            raw::put(data.cast(), t)
        }
        DEVICE_POINTER => raw::put(data.cast::<CUdeviceptr>(), f.map_or(0, |f| f.dptr)),
        HOST_POINTER => match f {
            Some(f) if f.hptr.is_none() => Err(CuError::InvalidValue), // device memory has no host address
            _ => raw::put(data.cast::<*mut c_void>(), f.and_then(|f| f.hptr).map_or(std::ptr::null_mut(), handle_addr)),
        },
        // Every memory operation of rgdev's is synchronous with respect to the host.
        SYNC_MEMOPS => raw::put(data.cast(), flag(f.is_some())),
        BUFFER_ID => {
            let id = f.map_or(0, |f| buffer_id(st, f.ctx, f.base));
            raw::put(data.cast::<u64>(), id)
        }
        IS_MANAGED => raw::put(data.cast(), flag(f.is_some_and(|f| f.managed))),
        IS_LEGACY_CUDA_IPC_CAPABLE | IS_GPU_DIRECT_RDMA_CAPABLE => raw::put(data.cast(), flag(false)),
        // The GPU of the context the memory belongs to (-2, cudaInvalidDeviceId, for none).
        DEVICE_ORDINAL => raw::put(data.cast::<c_int>(), f.map_or(-2, |f| device_of(f.ctx))),
        RANGE_START_ADDR => raw::put(data.cast::<CUdeviceptr>(), f.map_or(0, |f| f.base)),
        RANGE_SIZE => raw::put(data.cast::<usize>(), f.map_or(0, |f| f.size as usize)),
        MAPPED => raw::put(data.cast(), flag(f.is_some())),
        ALLOWED_HANDLE_TYPES => raw::put(data.cast::<u64>(), 0),
        ACCESS_FLAGS => raw::put(data.cast(), f.map_or(0, |f| f.access)),
        MEMPOOL_HANDLE => raw::put(data.cast::<*mut c_void>(), std::ptr::null_mut()),
        _ => Err(CuError::InvalidValue),
    }
}

/// A host address as a pointer value (no provenance: the program's own pointer).
fn handle_addr(a: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(a)
}

/// cuPointerGetAttribute: CUDA_ERROR_INVALID_VALUE for an address no allocation holds.
#[unsafe(no_mangle)]
pub extern "C" fn cuPointerGetAttribute(data: *mut c_void, attribute: c_int, ptr: CUdeviceptr) -> CUresult {
    guard(|| {
        let mut st = state()?;
        let f = find(&st, ptr).ok_or(CuError::InvalidValue)?;
        write(&mut st, attribute, Some(&f), data)
    })
}

/// cuPointerGetAttributes: as cuPointerGetAttribute for each, except that an address no
/// allocation holds gets the attributes' empty values and CUDA_SUCCESS, as CUDA's does.
#[unsafe(no_mangle)]
pub extern "C" fn cuPointerGetAttributes(
    n: c_uint,
    attributes: *const c_int,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    guard(|| {
        let mut st = state()?;
        if n == 0 || attributes.is_null() || data.is_null() {
            return Err(CuError::InvalidValue);
        }
        let f = find(&st, ptr);
        for k in 0..n as usize {
            let a = raw::get(attributes.wrapping_add(k))?;
            let d = raw::get(data.wrapping_add(k))?;
            match (a, &f) {
                // A host address of device memory has no host pointer: NULL, not an error.
                (attr::HOST_POINTER, Some(found)) if found.hptr.is_none() => {
                    raw::put(d.cast::<*mut c_void>(), std::ptr::null_mut())?
                }
                _ => write(&mut st, a, f.as_ref(), d)?,
            }
        }
        Ok(())
    })
}

/// Forget the buffer ids of the allocations of `ctx` that start in `[base, base + bytes)`
/// (unmapped).
pub(crate) fn forget_range(st: &mut State, ctx: CtxHandle, base: u64, bytes: u64) {
    st.buffers.retain(|&(c, b), _| c != ctx.0 || b < base || b - base >= bytes);
}

/// Forget the buffer id of the allocation at `base` of `ctx` (freed).
pub(crate) fn forget(st: &mut State, ctx: CtxHandle, base: u64) {
    st.buffers.remove(&(ctx.0, base));
}
