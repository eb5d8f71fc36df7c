//! Pitched copies: cuMemcpy2D, cuMemcpy2DUnaligned, cuMemcpy3D and their Async forms,
//! between host memory (pageable or pinned), device memory and unified pointers, at any
//! pitch and offset. A copy between device pointers (pinned memory included, through its
//! device mapping) is one copy-engine launch per 2D slice with both pitches; a copy from or
//! to pageable memory packs rows into the staging buffers (runtime-core's `Pitched`);
//! host-to-host copies are done by the host. A copy with an array side (block-linear, see
//! `texture`) is one copy-engine launch per slice between the array and device or pinned
//! memory, staged through the context's buffers for pageable memory. A level of detail
//! other than 0 is CUDA_ERROR_INVALID_VALUE (no mipmapped arrays).

use crate::state::{current, guard, key, synchronized};
use crate::{CUdeviceptr, CUresult, Handle, apitrace, memory, raw, stream_of};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use runtime_core::StreamHandle;
use runtime_core::{ArrayHandle, CopySide, Pitched};
use std::ffi::c_uint;
use std::ffi::c_void;

/// `CUmemorytype`.
const MEMORYTYPE_HOST: c_uint = 1;
const MEMORYTYPE_DEVICE: c_uint = 2;
const MEMORYTYPE_ARRAY: c_uint = 3;
const MEMORYTYPE_UNIFIED: c_uint = 4;

/// `CUDA_MEMCPY2D`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMCPY2D {
    /// Source byte offset within a row.
    pub src_x_in_bytes: usize,
    /// Source row.
    pub src_y: usize,
    /// `CUmemorytype` of the source.
    pub src_memory_type: c_uint,
    /// Source host pointer (HOST).
    pub src_host: *const c_void,
    /// Source device pointer (DEVICE, UNIFIED).
    pub src_device: CUdeviceptr,
    /// Source array (ARRAY).
    pub src_array: Handle,
    /// Source pitch.
    pub src_pitch: usize,
    /// Destination byte offset within a row.
    pub dst_x_in_bytes: usize,
    /// Destination row.
    pub dst_y: usize,
    /// `CUmemorytype` of the destination.
    pub dst_memory_type: c_uint,
    /// Destination host pointer.
    pub dst_host: *mut c_void,
    /// Destination device pointer.
    pub dst_device: CUdeviceptr,
    /// Destination array.
    pub dst_array: Handle,
    /// Destination pitch.
    pub dst_pitch: usize,
    /// Bytes per row.
    pub width_in_bytes: usize,
    /// Rows.
    pub height: usize,
}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMCPY3D {
    /// Source byte offset within a row.
    pub src_x_in_bytes: usize,
    /// Source row.
    pub src_y: usize,
    /// Source slice.
    pub src_z: usize,
    /// Source mipmap level (0).
    pub src_lod: usize,
    /// `CUmemorytype` of the source.
    pub src_memory_type: c_uint,
    /// Source host pointer.
    pub src_host: *const c_void,
    /// Source device pointer.
    pub src_device: CUdeviceptr,
    /// Source array.
    pub src_array: Handle,
    /// Must be NULL.
    pub reserved0: *mut c_void,
    /// Source pitch.
    pub src_pitch: usize,
    /// Source rows per slice.
    pub src_height: usize,
    /// Destination byte offset within a row.
    pub dst_x_in_bytes: usize,
    /// Destination row.
    pub dst_y: usize,
    /// Destination slice.
    pub dst_z: usize,
    /// Destination mipmap level (0).
    pub dst_lod: usize,
    /// `CUmemorytype` of the destination.
    pub dst_memory_type: c_uint,
    /// Destination host pointer.
    pub dst_host: *mut c_void,
    /// Destination device pointer.
    pub dst_device: CUdeviceptr,
    /// Destination array.
    pub dst_array: Handle,
    /// Must be NULL.
    pub reserved1: *mut c_void,
    /// Destination pitch.
    pub dst_pitch: usize,
    /// Destination rows per slice.
    pub dst_height: usize,
    /// Bytes per row.
    pub width_in_bytes: usize,
    /// Rows per slice.
    pub height: usize,
    /// Slices.
    pub depth: usize,
}

/// One side of a copy, at the first byte it moves.
#[derive(Clone, Copy)]
enum Side {
    /// Pageable host memory.
    Host(usize),
    /// A device pointer of the context (device memory or pinned memory's mapping).
    Device(u64),
    /// An array, from byte x of row y of slice z.
    Array(ArrayHandle, [u64; 3]),
}

/// One side as a `CUmemorytype` and its pointers names it, `offset` bytes in.
fn side(
    h: CtxHandle,
    kind: c_uint,
    host: usize,
    dev: CUdeviceptr,
    array: Handle,
    (offset, xyz): (u64, [u64; 3]),
    extent: u64,
) -> Result<Side> {
    // Paged managed memory (host memory at its one address, its pages wherever they are):
    // the copy is the host's, after the stream's work, when the pages have come home
    // (`run` synchronizes for a host side), as for linear copies.
    let paged = |p: u64| crate::demand::uvm().paged(p, extent).then_some(Side::Host(p as usize));
    match kind {
        MEMORYTYPE_HOST | MEMORYTYPE_DEVICE | MEMORYTYPE_UNIFIED
            if let Some(s) = paged(if kind == MEMORYTYPE_HOST { host as u64 } else { dev }.wrapping_add(offset)) =>
        {
            Ok(s)
        }
        MEMORYTYPE_HOST => {
            let at = host.checked_add(offset as usize).ok_or(CuError::InvalidValue)?;
            if host == 0 {
                return Err(CuError::InvalidValue);
            }
            memory::not_device(at as u64)?;
            // Pinned memory goes through its device mapping (asynchronous copies need it).
            Ok(match memory::pinned(h, at, extent as usize)? {
                Some(d) => Side::Device(d),
                None => Side::Host(at),
            })
        }
        MEMORYTYPE_DEVICE => Ok(Side::Device(dev.checked_add(offset).ok_or(CuError::InvalidValue)?)),
        // A host address of pinned memory, or a device pointer of the context; under
        // unified addressing anything else is host memory.
        MEMORYTYPE_UNIFIED => {
            let at = (dev as usize).checked_add(offset as usize).ok_or(CuError::InvalidValue)?;
            let d = dev.checked_add(offset).ok_or(CuError::InvalidValue)?;
            if let Some(p) = memory::pinned(h, at, extent as usize)? {
                return Ok(Side::Device(p));
            }
            let (gpu, _) = current()?;
            if gpu.unified_addressing() && !memory::unified_device(&gpu, h, dev) {
                return Ok(Side::Host(at));
            }
            Ok(Side::Device(d))
        }
        MEMORYTYPE_ARRAY if array.is_null() => Err(CuError::InvalidValue),
        MEMORYTYPE_ARRAY => Ok(Side::Array(ArrayHandle(key(array)), xyz)),
        _ => Err(CuError::InvalidValue),
    }
}

/// A copy of `depth` slices of `shape`, slices `src_slice`/`dst_slice` bytes apart.
struct Copy3d {
    src: Side,
    dst: Side,
    shape: Pitched,
    depth: u64,
    src_slice: u64,
    dst_slice: u64,
}

impl Copy3d {
    /// Run it on stream `s` (asynchronously between device pointers when `asynchronous`);
    /// a side in pageable memory makes it synchronous, as in CUDA.
    fn run(&self, s: Handle, asynchronous: bool) -> Result<()> {
        let (gpu, h, sh) = stream_of(s)?;
        let shape = self.shape;
        if shape.is_empty() || self.depth == 0 {
            return Ok(());
        }
        let host_bytes = |pitch: u64| shape.extent(pitch).map(|e| e as usize);
        let mut last = None;
        if matches!(self.src, Side::Array(..)) || matches!(self.dst, Side::Array(..)) {
            return self.run_array(s, asynchronous);
        }
        if !matches!((self.src, self.dst), (Side::Device(_), Side::Device(_))) {
            let r = gpu.stream_synchronize(h, sh);
            synchronized(&gpu, h);
            r?;
        }
        for z in 0..self.depth {
            let (so, dz) = (z * self.src_slice, z * self.dst_slice);
            match (self.src, self.dst) {
                (Side::Device(a), Side::Device(b)) => {
                    let stream = if asynchronous { sh } else { StreamHandle::DEFAULT };
                    last = Some(gpu.memcpy_2d(h, stream, b + dz, a + so, shape)?);
                }
                (Side::Host(a), Side::Device(b)) => {
                    let src =
                        raw::bytes(std::ptr::with_exposed_provenance(a + so as usize), host_bytes(shape.src_pitch)?)?;
                    gpu.memcpy_htod_2d(h, b + dz, src, shape)?;
                }
                (Side::Device(a), Side::Host(b)) => {
                    let dst = raw::bytes_mut(
                        std::ptr::with_exposed_provenance_mut(b + dz as usize),
                        host_bytes(shape.dst_pitch)?,
                    )?;
                    gpu.memcpy_dtoh_2d(h, dst, a + so, shape)?;
                }
                (Side::Array(..), _) | (_, Side::Array(..)) => unreachable!("copies with arrays are run_array's"),
                (Side::Host(a), Side::Host(b)) => {
                    for r in 0..shape.height {
                        let src = raw::bytes(
                            std::ptr::with_exposed_provenance(a + (so + r * shape.src_pitch) as usize),
                            shape.width as usize,
                        )?;
                        let dst = raw::bytes_mut(
                            std::ptr::with_exposed_provenance_mut(b + (dz + r * shape.dst_pitch) as usize),
                            shape.width as usize,
                        )?;
                        dst.copy_from_slice(src);
                    }
                }
            }
        }
        if let Some(f) = last.filter(|_| !asynchronous) {
            gpu.fence_wait(h, f)?;
        }
        memory::count_copy((shape.width * shape.height * self.depth) as usize);
        Ok(())
    }
}

impl Copy3d {
    /// A copy with an array side: between the array and device memory (or another array)
    /// on the copy engine, or staged from or to pageable host memory.
    fn run_array(&self, s: Handle, asynchronous: bool) -> Result<()> {
        let (gpu, h, sh) = stream_of(s)?;
        let extent = [self.shape.width, self.shape.height, self.depth];
        let rows = |slice: u64, pitch: u64| slice.checked_div(pitch).unwrap_or(0);
        let dev = |side: Side, pitch: u64, slice: u64| match side {
            Side::Array(a, at) => Ok((CopySide::Array(a), at)),
            Side::Device(d) => Ok((CopySide::Device { ptr: d, pitch, height: rows(slice, pitch) }, [0; 3])),
            Side::Host(_) => Err(CuError::InvalidValue),
        };
        let host_len = |pitch: u64, slice: u64| -> Result<usize> {
            let last = (self.depth - 1).checked_mul(slice).ok_or(CuError::InvalidValue)?;
            Ok(last.checked_add(self.shape.extent(pitch)?).ok_or(CuError::InvalidValue)? as usize)
        };
        let (sp, dp) = (self.shape.src_pitch, self.shape.dst_pitch);
        match (self.src, self.dst) {
            (Side::Host(a), Side::Array(arr, at)) => {
                let r = gpu.stream_synchronize(h, sh);
                synchronized(&gpu, h);
                r?;
                let src = raw::bytes(std::ptr::with_exposed_provenance(a), host_len(sp, self.src_slice)?)?;
                gpu.memcpy_htoa(arr, at, src, (sp, self.src_slice), extent)?;
            }
            (Side::Array(arr, at), Side::Host(b)) => {
                let r = gpu.stream_synchronize(h, sh);
                synchronized(&gpu, h);
                r?;
                let dst = raw::bytes_mut(std::ptr::with_exposed_provenance_mut(b), host_len(dp, self.dst_slice)?)?;
                gpu.memcpy_atoh(arr, at, dst, (dp, self.dst_slice), extent)?;
            }
            (src, dst) => {
                let stream = if asynchronous { sh } else { StreamHandle::DEFAULT };
                let f =
                    gpu.memcpy_array(h, stream, dev(src, sp, self.src_slice)?, dev(dst, dp, self.dst_slice)?, extent)?;
                if !asynchronous {
                    gpu.fence_wait(h, f)?;
                }
            }
        }
        memory::count_copy((self.shape.width * self.shape.height * self.depth) as usize);
        Ok(())
    }
}

/// The copy a CUDA_MEMCPY2D describes (host addresses are kept as integers with their
/// provenance exposed, and turned back into pointers where the copy reads or writes).
fn plan_2d(c: &CUDA_MEMCPY2D) -> Result<Copy3d> {
    let (_, h) = current()?;
    let shape = Pitched {
        width: c.width_in_bytes as u64,
        height: c.height as u64,
        src_pitch: c.src_pitch as u64,
        dst_pitch: c.dst_pitch as u64,
    };
    let at =
        |x: usize, y: usize, pitch: usize| (y as u64).checked_mul(pitch as u64).and_then(|v| v.checked_add(x as u64));
    let so = at(c.src_x_in_bytes, c.src_y, c.src_pitch).ok_or(CuError::InvalidValue)?;
    let dof = at(c.dst_x_in_bytes, c.dst_y, c.dst_pitch).ok_or(CuError::InvalidValue)?;
    let (se, de) = (shape.extent(shape.src_pitch)?, shape.extent(shape.dst_pitch)?);
    let sxyz = [c.src_x_in_bytes as u64, c.src_y as u64, 0];
    let dxyz = [c.dst_x_in_bytes as u64, c.dst_y as u64, 0];
    let src = side(h, c.src_memory_type, c.src_host.expose_provenance(), c.src_device, c.src_array, (so, sxyz), se)?;
    let dst = side(h, c.dst_memory_type, c.dst_host.expose_provenance(), c.dst_device, c.dst_array, (dof, dxyz), de)?;
    let (src_slice, dst_slice) = (shape.src_pitch * shape.height, shape.dst_pitch * shape.height);
    Ok(Copy3d { src, dst, shape, depth: 1, src_slice, dst_slice })
}

/// The copy a CUDA_MEMCPY3D describes.
fn plan_3d(c: &CUDA_MEMCPY3D) -> Result<Copy3d> {
    let (_, h) = current()?;
    if c.src_lod != 0 || c.dst_lod != 0 || !c.reserved0.is_null() || !c.reserved1.is_null() {
        return Err(CuError::InvalidValue);
    }
    let shape = Pitched {
        width: c.width_in_bytes as u64,
        height: c.height as u64,
        src_pitch: c.src_pitch as u64,
        dst_pitch: c.dst_pitch as u64,
    };
    let slice = |pitch: usize, rows: usize| (pitch as u64).checked_mul(rows as u64).ok_or(CuError::InvalidValue);
    let (src_slice, dst_slice) = (slice(c.src_pitch, c.src_height)?, slice(c.dst_pitch, c.dst_height)?);
    let depth = c.depth as u64;
    // An array side's pitch and height are the array's own.
    let short = |kind: c_uint, rows: usize| kind != MEMORYTYPE_ARRAY && rows < c.height;
    if depth > 1 && (short(c.src_memory_type, c.src_height) || short(c.dst_memory_type, c.dst_height)) {
        return Err(CuError::InvalidValue); // slices would overlap
    }
    let at = |x: usize, y: usize, z: usize, pitch: usize, slice: u64| {
        (z as u64)
            .checked_mul(slice)
            .and_then(|v| v.checked_add((y as u64).checked_mul(pitch as u64)?))
            .and_then(|v| v.checked_add(x as u64))
            .ok_or(CuError::InvalidValue)
    };
    let so = at(c.src_x_in_bytes, c.src_y, c.src_z, c.src_pitch, src_slice)?;
    let dof = at(c.dst_x_in_bytes, c.dst_y, c.dst_z, c.dst_pitch, dst_slice)?;
    let extent = |pitch: u64, slice: u64| -> Result<u64> {
        let last = depth.saturating_sub(1).checked_mul(slice).ok_or(CuError::InvalidValue)?;
        last.checked_add(shape.extent(pitch)?).ok_or(CuError::InvalidValue)
    };
    let (se, de) = (extent(shape.src_pitch, src_slice)?, extent(shape.dst_pitch, dst_slice)?);
    let sxyz = [c.src_x_in_bytes as u64, c.src_y as u64, c.src_z as u64];
    let dxyz = [c.dst_x_in_bytes as u64, c.dst_y as u64, c.dst_z as u64];
    let src = side(h, c.src_memory_type, c.src_host.expose_provenance(), c.src_device, c.src_array, (so, sxyz), se)?;
    let dst = side(h, c.dst_memory_type, c.dst_host.expose_provenance(), c.dst_device, c.dst_array, (dof, dxyz), de)?;
    Ok(Copy3d { src, dst, shape, depth, src_slice, dst_slice })
}

/// cuMemcpy2D_v2: synchronous.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy2D_v2(copy: *const CUDA_MEMCPY2D) -> CUresult {
    apitrace::call("cuMemcpy2D_v2", Some(std::ptr::null_mut()), || {
        guard(|| plan_2d(&raw::get(copy)?)?.run(std::ptr::null_mut(), false))
    })
}

/// cuMemcpy2DUnaligned_v2: as cuMemcpy2D (rgdev's copy engine has no alignment rules).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy2DUnaligned_v2(copy: *const CUDA_MEMCPY2D) -> CUresult {
    cuMemcpy2D_v2(copy)
}

/// cuMemcpy2DAsync_v2: asynchronous between device and pinned memory.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy2DAsync_v2(copy: *const CUDA_MEMCPY2D, stream: Handle) -> CUresult {
    apitrace::call("cuMemcpy2DAsync_v2", Some(stream), || guard(|| plan_2d(&raw::get(copy)?)?.run(stream, true)))
}

/// cuMemcpy3D_v2: synchronous, one 2D copy per slice.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy3D_v2(copy: *const CUDA_MEMCPY3D) -> CUresult {
    apitrace::call("cuMemcpy3D_v2", Some(std::ptr::null_mut()), || {
        guard(|| plan_3d(&raw::get(copy)?)?.run(std::ptr::null_mut(), false))
    })
}

/// cuMemcpy3DAsync_v2: asynchronous between device and pinned memory.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy3DAsync_v2(copy: *const CUDA_MEMCPY3D, stream: Handle) -> CUresult {
    apitrace::call("cuMemcpy3DAsync_v2", Some(stream), || guard(|| plan_3d(&raw::get(copy)?)?.run(stream, true)))
}
