//! Managed memory through the runtime: cudaMallocManaged, advice, prefetches, range
//! attributes and stream attachment, over the driver's (libcuda's `managed` module says
//! what managed memory is in rgdev). `__managed__` variables are the registration's
//! (`launch`, `state`).

use crate::driver::Handle;
use crate::error::{self, Status, codes::*};
use crate::{api, put, state};
use std::ffi::{c_int, c_uint, c_void};

/// `struct cudaMemLocation`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemLocation {
    /// `cudaMemLocationType`: 1 device, 2 host, 3 host NUMA node, 4 the current one.
    pub kind: c_int,
    /// The device ordinal (or NUMA node).
    pub id: c_int,
}

/// A location as cudaCpuDeviceId (-1) or a device ordinal.
fn device_of(l: MemLocation) -> Result<c_int, Status> {
    match l.kind {
        1 => Ok(l.id),
        2..=4 => Ok(-1),
        _ => Err(cudaErrorInvalidValue),
    }
}

/// `cudaMallocManaged`: managed memory, attached globally or to the host.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMallocManaged(p: *mut *mut c_void, size: usize, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if p.is_null() {
            return Err(cudaErrorInvalidValue);
        }
        let mut a = 0u64;
        error::check(d.cuMemAllocManaged(&mut a, size, flags))?;
        put(p, std::ptr::with_exposed_provenance_mut(a as usize))
    })
}

/// `cudaMemPrefetchAsync`: to device `dev` or the host (cudaCpuDeviceId).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemPrefetchAsync(p: *const c_void, n: usize, dev: c_int, s: Handle) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemPrefetchAsync(p.addr() as u64, n, dev, s))
    })
}

/// `cudaMemPrefetchAsync_v2`: to a location; `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemPrefetchAsync_v2(
    p: *const c_void,
    n: usize,
    loc: MemLocation,
    flags: c_uint,
    s: Handle,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if flags != 0 {
            return Err(cudaErrorInvalidValue);
        }
        error::check(d.cuMemPrefetchAsync(p.addr() as u64, n, device_of(loc)?, s))
    })
}

/// `cudaMemAdvise`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemAdvise(p: *const c_void, n: usize, advice: c_int, dev: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemAdvise(p.addr() as u64, n, advice, dev))
    })
}

/// `cudaMemAdvise_v2`: the device given as a location (any for read-mostly advice).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemAdvise_v2(p: *const c_void, n: usize, advice: c_int, loc: MemLocation) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let dev = if matches!(advice, 1 | 2) { device_of(loc).unwrap_or(-1) } else { device_of(loc)? };
        error::check(d.cuMemAdvise(p.addr() as u64, n, advice, dev))
    })
}

/// `cudaMemRangeGetAttribute`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemRangeGetAttribute(
    data: *mut c_void,
    size: usize,
    attr: c_int,
    p: *const c_void,
    n: usize,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemRangeGetAttribute(data, size, attr, p.addr() as u64, n))
    })
}

/// `cudaMemRangeGetAttributes`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemRangeGetAttributes(
    data: *mut *mut c_void,
    sizes: *mut usize,
    attrs: *mut c_int,
    count: usize,
    p: *const c_void,
    n: usize,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuMemRangeGetAttributes(data, sizes, attrs, count, p.addr() as u64, n))
    })
}

/// `cudaStreamAttachMemAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamAttachMemAsync(s: Handle, p: *mut c_void, length: usize, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuStreamAttachMemAsync(s, p.addr() as u64, length, flags))
    })
}
