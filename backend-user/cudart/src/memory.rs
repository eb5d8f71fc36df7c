//! Memory: device and pinned host allocations, copies and memsets (synchronous and on
//! streams), and the device variables compilers registered (`__device__`,
//! `__constant__`) by their host shadows.

use crate::driver::Handle;
use crate::error::{self, Status, codes::*};
use crate::{api, put, state};
use std::ffi::{c_int, c_uint, c_void};

/// `cudaMemcpyKind`.
const HOST_TO_HOST: c_int = 0;
const HOST_TO_DEVICE: c_int = 1;
const DEVICE_TO_HOST: c_int = 2;
const DEVICE_TO_DEVICE: c_int = 3;
const DEFAULT: c_int = 4;

/// `cudaMalloc`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMalloc(p: *mut *mut c_void, size: usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if size == 0 {
            return put(p, core::ptr::null_mut());
        }
        let mut a = 0u64;
        error::check(d.cuMemAlloc(&mut a, size))?;
        put(p, a as usize as *mut c_void)
    })
}

/// `cudaFree`: NULL is a no-op (after initialization, as CUDA programs rely on).
#[unsafe(no_mangle)]
pub extern "C" fn cudaFree(p: *mut c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if p.is_null() {
            return Ok(());
        }
        // CUDA 12 answers a pointer it did not allocate with cudaErrorInvalidValue (the
        // driver's), no longer the deprecated cudaErrorInvalidDevicePointer.
        error::check(d.cuMemFree(p as usize as u64))
    })
}

/// `cudaMallocHost`: pinned host memory.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMallocHost(p: *mut *mut c_void, size: usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut h = core::ptr::null_mut();
        error::check(d.cuMemAllocHost(&mut h, size))?;
        put(p, h)
    })
}

/// `cudaHostAlloc`: pinned host memory with cudaHostAlloc* flags (the driver's).
#[unsafe(no_mangle)]
pub extern "C" fn cudaHostAlloc(p: *mut *mut c_void, size: usize, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut h = core::ptr::null_mut();
        error::check(d.cuMemHostAlloc(&mut h, size, flags))?;
        put(p, h)
    })
}

/// `cudaFreeHost`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaFreeHost(p: *mut c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemFreeHost(p))
    })
}

/// `cudaHostGetDevicePointer`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaHostGetDevicePointer(dev: *mut *mut c_void, host: *mut c_void, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut a = 0u64;
        error::check(d.cuMemHostGetDevicePointer(&mut a, host, flags))?;
        put(dev, a as usize as *mut c_void)
    })
}

/// `cudaMemGetInfo`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let (mut f, mut t) = (0, 0);
        error::check(d.cuMemGetInfo(&mut f, &mut t))?;
        put(free, f)?;
        put(total, t)
    })
}

/// Whether `p` is device memory the driver knows (not managed: that is the host's too).
pub(crate) fn device_memory(d: &crate::driver::Driver, p: u64) -> bool {
    let (mut mt, mut managed): (c_uint, c_int) = (0, 0);
    // CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2: device), CU_POINTER_ATTRIBUTE_IS_MANAGED
    d.cuPointerGetAttribute((&mut mt as *mut c_uint).cast(), 2, p) == 0
        && mt == 2
        && (d.cuPointerGetAttribute((&mut managed as *mut c_int).cast(), 8, p) != 0 || managed == 0)
}

/// A copy of `n` bytes in direction `kind`, on `s` when `Some` (asynchronous).
fn copy(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int, s: Option<Handle>) -> Result<(), Status> {
    let d = state::driver()?;
    state::context()?;
    if n == 0 {
        return Ok(());
    }
    let (dp, sp) = (dst as usize as u64, src as usize as u64);
    let r = match (kind, s) {
        (HOST_TO_DEVICE, None) => d.cuMemcpyHtoD(dp, src, n),
        (DEVICE_TO_HOST, None) => d.cuMemcpyDtoH(dst, sp, n),
        (DEVICE_TO_DEVICE, None) => d.cuMemcpyDtoD(dp, sp, n),
        (HOST_TO_DEVICE, Some(s)) => d.cuMemcpyHtoDAsync(dp, src, n, s),
        (DEVICE_TO_HOST, Some(s)) => d.cuMemcpyDtoHAsync(dst, sp, n, s),
        (DEVICE_TO_DEVICE, Some(s)) => d.cuMemcpyDtoDAsync(dp, sp, n, s),
        (HOST_TO_HOST, _) => {
            // Device memory is not the host's to copy (it would fault in this library):
            // cudaErrorInvalidValue, as for NULL.
            if dst.is_null() || src.is_null() || device_memory(d, dp) || device_memory(d, sp) {
                return Err(cudaErrorInvalidValue);
            }
            if let Some(s) = s {
                // In stream order: after the stream's earlier work.
                error::check(d.cuStreamSynchronize(s))?;
            }
            crate::raw::copy_host(dst.cast(), src.cast(), n);
            0
        }
        // The driver infers the direction from the pointers (unified addressing; without
        // it, cudaErrorInvalidValue as CUDA gives).
        (DEFAULT, None) => unified(d.cuMemcpy(dp, sp, n))?,
        (DEFAULT, Some(s)) => unified(d.cuMemcpyAsync(dp, sp, n, s))?,
        _ => return Err(cudaErrorInvalidMemcpyDirection),
    };
    error::check(r)
}

/// A unified-addressing call's result: the driver's CUDA_ERROR_NOT_SUPPORTED (no unified
/// addressing) is cudaErrorInvalidValue for cudaMemcpyDefault, as in CUDA.
pub(crate) fn unified(r: crate::driver::CUresult) -> Result<crate::driver::CUresult, Status> {
    if r == 801 { Err(cudaErrorInvalidValue) } else { Ok(r) }
}

/// `cudaMemcpy`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int) -> Status {
    api(|| copy(dst, src, n, kind, None))
}

/// `cudaMemcpyAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int, s: Handle) -> Status {
    api(|| copy(dst, src, n, kind, Some(s)))
}

/// `cudaMemcpyPeer`: between the memory of two devices' primary contexts.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyPeer(dst: *mut c_void, dd: c_int, src: *const c_void, sd: c_int, n: usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(dd)?;
        state::valid_device(sd)?;
        let (dc, sc) = (state::primary(dd)?, state::primary(sd)?);
        error::check(d.cuMemcpyPeer(dst as usize as u64, dc, src as usize as u64, sc, n))
    })
}

/// `cudaMemcpyPeerAsync`: as cudaMemcpyPeer, on a stream.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyPeerAsync(
    dst: *mut c_void,
    dd: c_int,
    src: *const c_void,
    sd: c_int,
    n: usize,
    s: Handle,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(dd)?;
        state::valid_device(sd)?;
        state::context()?;
        let (dc, sc) = (state::primary(dd)?, state::primary(sd)?);
        error::check(d.cuMemcpyPeerAsync(dst as usize as u64, dc, src as usize as u64, sc, n, s))
    })
}

/// `cudaMemset`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemset(p: *mut c_void, value: c_int, n: usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemsetD8(p as usize as u64, value as u8, n))
    })
}

/// `cudaMemsetAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemsetAsync(p: *mut c_void, value: c_int, n: usize, s: Handle) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemsetD8Async(p as usize as u64, value as u8, n, s))
    })
}

/// The device range `[offset, offset + n)` of the variable registered for `symbol`.
fn symbol_range(symbol: *const c_void, n: usize, offset: usize) -> Result<u64, Status> {
    let (base, size) = state::symbol(symbol as usize)?;
    if offset.checked_add(n).is_none_or(|end| end > size) {
        return Err(cudaErrorInvalidValue);
    }
    Ok(base + offset as u64)
}

/// A copy between host or device memory `other` and `n` bytes of the variable
/// registered for `symbol` at `offset`, into it (`to`) or out of it; cudaMemcpyDefault
/// takes the host side; on stream `s` when `Some`.
fn symbol_copy(
    to: bool,
    symbol: *const c_void,
    other: *mut c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Option<Handle>,
) -> Result<(), Status> {
    let at = symbol_range(symbol, n, offset)? as usize as *mut c_void;
    let host = if to { HOST_TO_DEVICE } else { DEVICE_TO_HOST };
    let kind = match kind {
        DEFAULT => host,
        k if k == host || k == DEVICE_TO_DEVICE => k,
        _ => return Err(cudaErrorInvalidMemcpyDirection),
    };
    if to { copy(at, other, n, kind, s) } else { copy(other, at, n, kind, s) }
}

/// `cudaMemcpyToSymbol`: into a `__device__` or `__constant__` variable.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> Status {
    api(|| symbol_copy(true, symbol, src.cast_mut(), n, offset, kind, None))
}

/// `cudaMemcpyFromSymbol`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> Status {
    api(|| symbol_copy(false, symbol, dst, n, offset, kind, None))
}

/// `cudaMemcpyToSymbolAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Handle,
) -> Status {
    api(|| symbol_copy(true, symbol, src.cast_mut(), n, offset, kind, Some(s)))
}

/// `cudaMemcpyFromSymbolAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Handle,
) -> Status {
    api(|| symbol_copy(false, symbol, dst, n, offset, kind, Some(s)))
}

/// `cudaGetSymbolAddress`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetSymbolAddress(p: *mut *mut c_void, symbol: *const c_void) -> Status {
    api(|| put(p, state::symbol(symbol as usize)?.0 as usize as *mut c_void))
}

/// `cudaGetSymbolSize`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> Status {
    api(|| put(size, state::symbol(symbol as usize)?.1))
}

/// `cudaHostRegister`: the program's pages become pinned and mapped (cudaHostRegister*
/// flags are the driver's).
#[unsafe(no_mangle)]
pub extern "C" fn cudaHostRegister(p: *mut c_void, size: usize, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemHostRegister(p, size, flags))
    })
}

/// `cudaHostUnregister`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaHostUnregister(p: *mut c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemHostUnregister(p))
    })
}

/// `cudaHostGetFlags`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut f = 0;
        error::check(d.cuMemHostGetFlags(&mut f, p))?;
        put(flags, f)
    })
}

/// `struct cudaPointerAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PointerAttributes {
    /// `cudaMemoryType`: 0 unregistered host memory, 1 host, 2 device, 3 managed.
    pub kind: c_int,
    /// The device of the memory.
    pub device: c_int,
    /// Its device address (NULL for unregistered host memory).
    pub device_pointer: *mut c_void,
    /// Its host address (NULL for device memory).
    pub host_pointer: *mut c_void,
}

/// `cudaPointerGetAttributes`: what the driver knows of `p`; memory it does not know is
/// unregistered host memory (cudaMemoryTypeUnregistered, success, as CUDA 11 and later).
#[unsafe(no_mangle)]
pub extern "C" fn cudaPointerGetAttributes(attr: *mut PointerAttributes, p: *const c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if attr.is_null() {
            return Err(cudaErrorInvalidValue);
        }
        let at = p as usize as u64;
        let mut mt: c_uint = 0;
        // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
        if d.cuPointerGetAttribute((&mut mt as *mut c_uint).cast(), 2, at) != 0 {
            let none = PointerAttributes {
                kind: 0,
                device: -1,
                device_pointer: core::ptr::null_mut(),
                host_pointer: p.cast_mut(),
            };
            return put(attr, none);
        }
        let mut ordinal: c_int = 0;
        let (mut dp, mut hp): (u64, *mut c_void) = (0, core::ptr::null_mut());
        // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, DEVICE_POINTER, HOST_POINTER
        error::check(d.cuPointerGetAttribute((&mut ordinal as *mut c_int).cast(), 9, at))?;
        error::check(d.cuPointerGetAttribute((&mut dp as *mut u64).cast(), 3, at))?;
        let _ = d.cuPointerGetAttribute((&mut hp as *mut *mut c_void).cast(), 4, at);
        let mut managed: c_uint = 0;
        // CU_POINTER_ATTRIBUTE_IS_MANAGED
        error::check(d.cuPointerGetAttribute((&mut managed as *mut c_uint).cast(), 8, at))?;
        let kind = match (managed, mt) {
            (1, _) => 3, // cudaMemoryTypeManaged
            (_, 1) => 1, // CU_MEMORYTYPE_HOST: pinned host memory
            _ => 2,
        };
        put(
            attr,
            PointerAttributes { kind, device: ordinal, device_pointer: dp as usize as *mut c_void, host_pointer: hp },
        )
    })
}
