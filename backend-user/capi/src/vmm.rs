//! Virtual memory management: physical allocations (cuMemCreate/cuMemRelease), address
//! reservations, mappings and their access flags, enforced by the simulated MMU (a write
//! through a read-only mapping faults the kernel with CUDA_ERROR_ILLEGAL_ADDRESS).
//!
//! Reservations and mappings live in the current context's address space; physical
//! allocations are their GPU's (the device the location names; the handle carries its
//! ordinal), so a handle may be mapped in any context of that GPU. Mapping another GPU's
//! memory, or granting another GPU access, needs peer access, which rgdev does not have
//! yet (CUDA_ERROR_NOT_SUPPORTED). Allocations are not shareable across processes: a requested handle type other than
//! CU_MEM_HANDLE_TYPE_NONE, and export and import, are CUDA_ERROR_NOT_SUPPORTED.

use crate::state::{check_device, current, device_of, gpu_at, guard, initialized, state};
use crate::{CUdevice, CUdeviceptr, CUresult, pointer, raw};
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserDev;
use runtime_core::Access;
use std::ffi::c_int;
use std::ffi::c_void;
use std::sync::Arc;

/// `CUmemLocationType`.
pub(crate) const LOCATION_INVALID: c_int = 0;
pub(crate) const LOCATION_DEVICE: c_int = 1;
pub(crate) const LOCATION_HOST: c_int = 2;
pub(crate) const LOCATION_HOST_NUMA: c_int = 3;
pub(crate) const LOCATION_HOST_NUMA_CURRENT: c_int = 4;
/// `CUmemAllocationType`: pinned (the only kind).
const ALLOCATION_PINNED: c_int = 1;
/// `CUmemAllocationHandleType`: none.
const HANDLE_NONE: c_int = 0;
/// `CUmemAllocationGranularity_flags`.
const GRANULARITY_MINIMUM: c_int = 0;
const GRANULARITY_RECOMMENDED: c_int = 1;
/// `CUmemAccess_flags`.
const PROT_NONE: c_int = 0;
const PROT_READ: c_int = 1;
const PROT_READWRITE: c_int = 3;

/// `CUmemLocation`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemLocation {
    /// `CUmemLocationType`.
    pub kind: c_int,
    /// The device ordinal (or NUMA node).
    pub id: c_int,
}

/// `CUmemAllocationProp`'s `allocFlags`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AllocFlags {
    /// `CUmemAllocationCompType` (rgdev never compresses: reads back as none).
    pub compression_type: u8,
    /// Whether GPUDirect RDMA may use it.
    pub gpu_direct_rdma_capable: u8,
    /// `CU_MEM_CREATE_USAGE_*` bits.
    pub usage: u16,
    /// Reserved, zero.
    pub reserved: [u8; 4],
}

/// `CUmemAllocationProp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemAllocationProp {
    /// `CUmemAllocationType`.
    pub kind: c_int,
    /// `CUmemAllocationHandleType` bits.
    pub requested_handle_types: c_int,
    /// Where the memory lives.
    pub location: CUmemLocation,
    /// Windows security attributes (unused on Linux).
    pub win32_handle_meta_data: *mut c_void,
    /// Compression, RDMA and usage flags.
    pub alloc_flags: AllocFlags,
}

/// `CUmemAccessDesc`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemAccessDesc {
    /// Who gets the access.
    pub location: CUmemLocation,
    /// `CUmemAccess_flags`.
    pub flags: c_int,
}

/// The device a location names: host locations are features rgdev lacks
/// (NOT_SUPPORTED), an ordinal of no device INVALID_DEVICE, anything else INVALID_VALUE.
fn device_location(l: &CUmemLocation) -> Result<CUdevice> {
    match l.kind {
        LOCATION_DEVICE => {
            check_device(l.id)?;
            Ok(l.id)
        }
        LOCATION_HOST | LOCATION_HOST_NUMA | LOCATION_HOST_NUMA_CURRENT => Err(CuError::NotSupported),
        _ => Err(CuError::InvalidValue),
    }
}

/// Check the properties of an allocation to create.
fn check_prop(prop: *const CUmemAllocationProp) -> Result<CUmemAllocationProp> {
    let p = raw::get(prop)?;
    if p.kind != ALLOCATION_PINNED {
        return Err(CuError::InvalidValue);
    }
    device_location(&p.location)?;
    if p.requested_handle_types != HANDLE_NONE {
        return Err(CuError::NotSupported);
    }
    Ok(p)
}

/// cuMemGetAllocationGranularity: the small page (minimum) and the big page
/// (recommended), the sizes the MMU maps.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetAllocationGranularity(
    granularity: *mut usize,
    prop: *const CUmemAllocationProp,
    option: c_int,
) -> CUresult {
    guard(|| {
        initialized()?;
        check_prop(prop)?;
        let g = match option {
            GRANULARITY_MINIMUM => backend_user::UserGpu::VMM_GRANULARITY,
            GRANULARITY_RECOMMENDED => backend_user::UserGpu::VMM_GRANULARITY_RECOMMENDED,
            _ => return Err(CuError::InvalidValue),
        };
        raw::put(granularity, g as usize)
    })
}

/// cuMemCreate: `size` bytes of VRAM (a multiple of the granularity) as a physical
/// allocation; `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemCreate(handle: *mut u64, size: usize, prop: *const CUmemAllocationProp, flags: u64) -> CUresult {
    guard(|| {
        let p = check_prop(prop)?;
        if flags != 0 || handle.is_null() {
            return Err(CuError::InvalidValue);
        }
        let h = gpu_at(p.location.id)?.mem_create(size as u64)?;
        raw::put(handle, h)
    })
}

/// cuMemRelease: drop a handle reference; the memory goes with its last mapping.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemRelease(handle: u64) -> CUresult {
    guard(|| phys_gpu(handle)?.mem_release(handle))
}

/// The runtime of the GPU whose physical allocation `handle` is (INVALID_VALUE for a
/// value shaped as no handle, or naming no GPU).
fn phys_gpu(handle: u64) -> Result<Arc<UserDev>> {
    let i = runtime_core::physmem::ordinal_of(handle).ok_or(CuError::InvalidValue)?;
    gpu_at(i as CUdevice).map_err(|_| CuError::InvalidValue)
}

/// cuMemGetAllocationPropertiesFromHandle: pinned device memory on its GPU, no
/// shareable handle types, no compression.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetAllocationPropertiesFromHandle(prop: *mut CUmemAllocationProp, handle: u64) -> CUresult {
    guard(|| {
        phys_gpu(handle)?.mem_handle_size(handle)?;
        let id = runtime_core::physmem::ordinal_of(handle).unwrap_or(0) as c_int;
        let flags = AllocFlags { compression_type: 0, gpu_direct_rdma_capable: 0, usage: 0, reserved: [0; 4] };
        raw::put(
            prop,
            CUmemAllocationProp {
                kind: ALLOCATION_PINNED,
                requested_handle_types: HANDLE_NONE,
                location: CUmemLocation { kind: LOCATION_DEVICE, id },
                win32_handle_meta_data: std::ptr::null_mut(),
                alloc_flags: flags,
            },
        )
    })
}

/// cuMemRetainAllocationHandle: the handle mapped at `addr`, with a new reference.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemRetainAllocationHandle(handle: *mut u64, addr: *mut c_void) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        if handle.is_null() {
            return Err(CuError::InvalidValue);
        }
        let v = gpu.mem_retain_handle(h, addr.addr() as u64)?;
        raw::put(handle, v)
    })
}

/// cuMemAddressReserve: `size` bytes of the current context's address space, aligned to
/// `alignment` (0: the granularity), at `addr` when that range is free; `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAddressReserve(
    ptr: *mut CUdeviceptr,
    size: usize,
    alignment: usize,
    addr: CUdeviceptr,
    flags: u64,
) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        if ptr.is_null() || flags != 0 {
            return Err(CuError::InvalidValue);
        }
        let va = gpu.mem_reserve(h, size as u64, alignment as u64, addr)?;
        raw::put(ptr, va)
    })
}

/// cuMemAddressFree: a whole reservation, with nothing left mapped in it.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        gpu.mem_reserve_free(h, ptr, size as u64)
    })
}

/// cuMemMap: map `size` bytes of allocation `handle` from `offset` at `ptr`, inside a
/// reservation; `flags` must be 0. Nothing may access it before cuMemSetAccess.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: u64, flags: u64) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        if runtime_core::physmem::ordinal_of(handle).is_some_and(|o| o as CUdevice != device_of(h)) {
            // Another GPU's memory: a peer mapping.
            return Err(CuError::NotSupported);
        }
        gpu.mem_map(h, ptr, size as u64, offset as u64, handle)
    })
}

/// cuMemUnmap: undo the whole mappings in `[ptr, ptr + size)` after the context's work.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        gpu.mem_unmap(h, ptr, size as u64)?;
        pointer::forget_range(&mut *state()?, h, ptr, size as u64);
        Ok(())
    })
}

/// The access a `CUmemAccess_flags` value grants.
fn access(flags: c_int) -> Result<Access> {
    match flags {
        PROT_NONE => Ok(Access::None),
        PROT_READ => Ok(Access::Read),
        PROT_READWRITE => Ok(Access::ReadWrite),
        _ => Err(CuError::InvalidValue),
    }
}

/// The `CUmemAccess_flags` value of `a` (the same numbers as
/// `CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS`).
pub(crate) fn prot(a: Access) -> c_int {
    match a {
        Access::None => PROT_NONE,
        Access::Read => PROT_READ,
        Access::ReadWrite => PROT_READWRITE,
    }
}

/// cuMemSetAccess: the access of the current context's device to the whole mappings in
/// `[ptr, ptr + size)` (the last descriptor naming it wins, as each replaces the access;
/// one naming another device needs peer access: NOT_SUPPORTED).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemSetAccess(
    ptr: CUdeviceptr,
    size: usize,
    desc: *const CUmemAccessDesc,
    count: usize,
) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        if count == 0 || desc.is_null() {
            return Err(CuError::InvalidValue);
        }
        let mut granted = None;
        for k in 0..count {
            let d = raw::get(desc.wrapping_add(k))?;
            if device_location(&d.location)? != device_of(h) {
                return Err(CuError::NotSupported);
            }
            granted = Some(access(d.flags)?);
        }
        gpu.mem_set_access(h, ptr, size as u64, granted.ok_or(CuError::InvalidValue)?)
    })
}

/// cuMemGetAccess: the access of the location's device to the mapping at `ptr` (another
/// device than the current context's has none: there is no peer access yet).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetAccess(flags: *mut u64, location: *const CUmemLocation, ptr: CUdeviceptr) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        let dev = device_location(&raw::get(location)?)?;
        let a = gpu.mem_access(h, ptr)?;
        raw::put(flags, prot(if dev == device_of(h) { a } else { Access::None }) as u64)
    })
}
