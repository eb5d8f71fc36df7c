//! Pitched and 3D memory: `cudaMallocPitch`, `cudaMalloc3D`, `cudaMemcpy2D`/`3D`
//! (+`Async`) between host and device memory, and `cudaMemset2D`/`3D` (+`Async`), over
//! the driver's `CUDA_MEMCPY3D` copies (linear memory or CUDA arrays on either side) and
//! 2D memsets.

use crate::driver::{DevPtr, Handle};
use crate::error::{self, Status, codes::*};
use crate::{api, put, state};
use std::ffi::{c_int, c_uint, c_void};

/// The driver's `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Array3DDesc {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) depth: usize,
    pub(crate) format: c_uint,
    pub(crate) channels: c_uint,
    pub(crate) flags: c_uint,
}

/// The driver's descriptor of array `a`.
pub(crate) fn array_desc(a: Handle) -> Result<Array3DDesc, Status> {
    let d = state::driver()?;
    state::context()?;
    let mut ad = Array3DDesc::default();
    error::check(d.cuArray3DGetDescriptor((&mut ad as *mut Array3DDesc).cast(), a))
        .map_err(|e| if e == cudaErrorInvalidValue { cudaErrorInvalidResourceHandle } else { e })?;
    Ok(ad)
}

/// Bytes of one element of array `a`.
pub(crate) fn element_bytes(a: Handle) -> Result<usize, Status> {
    let ad = array_desc(a)?;
    let size = match ad.format {
        0x01 | 0x08 => 1,
        0x02 | 0x09 | 0x10 => 2,
        _ => 4,
    };
    Ok(size * ad.channels as usize)
}

/// `cudaMemcpyKind`.
const HOST_TO_HOST: c_int = 0;
const HOST_TO_DEVICE: c_int = 1;
const DEVICE_TO_HOST: c_int = 2;
const DEVICE_TO_DEVICE: c_int = 3;

/// `CUmemorytype`.
const MT_HOST: c_uint = 1;
const MT_DEVICE: c_uint = 2;

/// `struct cudaPos`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Pos {
    /// x (bytes for linear memory).
    pub x: usize,
    /// y.
    pub y: usize,
    /// z.
    pub z: usize,
}

/// `struct cudaExtent`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Extent {
    /// Width (bytes for linear memory).
    pub width: usize,
    /// Height.
    pub height: usize,
    /// Depth.
    pub depth: usize,
}

/// `struct cudaPitchedPtr`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PitchedPtr {
    /// The memory.
    pub ptr: *mut c_void,
    /// Bytes between rows.
    pub pitch: usize,
    /// Logical width of a row, bytes.
    pub xsize: usize,
    /// Rows per slice.
    pub ysize: usize,
}

/// `struct cudaMemcpy3DParms`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy3DParms {
    /// Source array (or NULL: linear memory).
    pub src_array: Handle,
    /// Source position.
    pub src_pos: Pos,
    /// Source memory.
    pub src_ptr: PitchedPtr,
    /// Destination array (or NULL).
    pub dst_array: Handle,
    /// Destination position.
    pub dst_pos: Pos,
    /// Destination memory.
    pub dst_ptr: PitchedPtr,
    /// The copy's extent.
    pub extent: Extent,
    /// `cudaMemcpyKind`.
    pub kind: c_int,
}

/// The driver's `CUDA_MEMCPY3D` (its 2D copies are the one-slice case).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Memcpy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: DevPtr,
    src_array: Handle,
    reserved0: *mut c_void,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: DevPtr,
    dst_array: Handle,
    reserved1: *mut c_void,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

/// The memory types of a copy's source and destination.
fn sides(kind: c_int) -> Result<(c_uint, c_uint), Status> {
    match kind {
        HOST_TO_HOST => Ok((MT_HOST, MT_HOST)),
        HOST_TO_DEVICE => Ok((MT_HOST, MT_DEVICE)),
        DEVICE_TO_HOST => Ok((MT_DEVICE, MT_HOST)),
        DEVICE_TO_DEVICE => Ok((MT_DEVICE, MT_DEVICE)),
        // Unified pointers: the driver infers each side's memory.
        4 => Ok((MT_UNIFIED, MT_UNIFIED)),
        _ => Err(cudaErrorInvalidMemcpyDirection),
    }
}

/// `CU_MEMORYTYPE_ARRAY`.
const MT_ARRAY: c_uint = 3;
/// `CU_MEMORYTYPE_UNIFIED`.
const MT_UNIFIED: c_uint = 4;

/// One side of a copy: linear memory (address, row pitch, rows per slice, position in
/// bytes) or a CUDA array (position: x in bytes).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Side {
    Linear(*mut c_void, usize, usize, Pos),
    Array(Handle, Pos),
}

/// What one side of a `CUDA_MEMCPY3D` holds.
type SideFields = (c_uint, *mut c_void, DevPtr, Handle, usize, usize, Pos);

impl Side {
    /// (type, host, device, array, pitch, height, position) of this side, linear memory
    /// being of type `linear`.
    fn fields(self, linear: c_uint) -> SideFields {
        match self {
            Side::Linear(p, pitch, height, at) => {
                let host = if linear == MT_HOST { p } else { core::ptr::null_mut() };
                let dev = if linear == MT_DEVICE || linear == MT_UNIFIED { p as usize as DevPtr } else { 0 };
                (linear, host, dev, core::ptr::null_mut(), pitch, height, at)
            }
            Side::Array(a, at) => (MT_ARRAY, core::ptr::null_mut(), 0, a, 0, 0, at),
        }
    }
}

/// Copy `width` bytes x `height` rows x `depth` slices from `src` to `dst`, linear
/// memory on either side being host or device memory as `kind` says; on `s` when `Some`.
pub(crate) fn copy_sides(
    dst: Side,
    src: Side,
    (width, height, depth): (usize, usize, usize),
    kind: c_int,
    s: Option<Handle>,
) -> Result<(), Status> {
    let (st, dt) = sides(kind)?;
    // A NULL buffer or array: cudaErrorInvalidValue, before any pitch is looked at.
    let null = |x: &Side| match *x {
        Side::Linear(p, ..) => p.is_null(),
        Side::Array(a, _) => a.is_null(),
    };
    if (width > 0 && height > 0 && depth > 0) && (null(&dst) || null(&src)) {
        return Err(cudaErrorInvalidValue);
    }
    // A host side that is device memory (the kind says host): cudaErrorInvalidValue.
    let d = state::driver()?;
    let device = |x: &Side, t: c_uint| match *x {
        Side::Linear(p, ..) => t == MT_HOST && crate::memory::device_memory(d, p as usize as u64),
        Side::Array(..) => false,
    };
    if device(&dst, dt) || device(&src, st) {
        return Err(cudaErrorInvalidValue);
    }
    let (src_type, src_host, src_device, src_array, src_pitch, src_height, sp) = src.fields(st);
    let (dst_type, dst_host, dst_device, dst_array, dst_pitch, dst_height, dp) = dst.fields(dt);
    let narrow = |pitch: usize, t: c_uint| t != MT_ARRAY && height > 1 && width > pitch;
    if narrow(src_pitch, src_type) || narrow(dst_pitch, dst_type) {
        return Err(cudaErrorInvalidPitchValue);
    }
    let c = Memcpy3D {
        src_x: sp.x,
        src_y: sp.y,
        src_z: sp.z,
        src_lod: 0,
        src_type,
        src_host,
        src_device,
        src_array,
        reserved0: core::ptr::null_mut(),
        src_pitch,
        src_height,
        dst_x: dp.x,
        dst_y: dp.y,
        dst_z: dp.z,
        dst_lod: 0,
        dst_type,
        dst_host,
        dst_device,
        dst_array,
        reserved1: core::ptr::null_mut(),
        dst_pitch,
        dst_height,
        width,
        height,
        depth,
    };
    copy3d(&c, s)
}

/// Run a 3D copy, synchronously or on `s`.
fn copy3d(c: &Memcpy3D, s: Option<Handle>) -> Result<(), Status> {
    let d = state::driver()?;
    state::context()?;
    if c.width == 0 || c.height == 0 || c.depth == 0 {
        return Ok(());
    }
    let p = (c as *const Memcpy3D).cast();
    error::check(match s {
        Some(s) => d.cuMemcpy3DAsync(p, s),
        None => d.cuMemcpy3D(p),
    })
    .map_err(|e| if e == cudaErrorInvalidValue { cudaErrorInvalidPitchValue } else { e })
}

/// `cudaMallocPitch`: `height` rows of `width` bytes, rows `*pitch` apart (the driver's
/// pitch for 4-byte elements).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMallocPitch(p: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if width == 0 || height == 0 {
            put(pitch, 0)?;
            return put(p, core::ptr::null_mut());
        }
        let (mut a, mut pt) = (0u64, 0usize);
        error::check(d.cuMemAllocPitch(&mut a, &mut pt, width, height, 4))
            .map_err(|e| if e == cudaErrorInvalidValue { cudaErrorMemoryAllocation } else { e })?;
        put(pitch, pt)?;
        put(p, a as usize as *mut c_void)
    })
}

/// `cudaMalloc3D`: `depth` slices of `height` rows of `width` bytes.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMalloc3D(p: *mut PitchedPtr, e: Extent) -> Status {
    api(|| {
        let rows = e.height.checked_mul(e.depth).ok_or(cudaErrorInvalidValue)?;
        let mut ptr = core::ptr::null_mut();
        let mut pitch = 0;
        let s = cudaMallocPitch(&mut ptr, &mut pitch, e.width, rows);
        if s != cudaSuccess {
            return Err(s);
        }
        put(p, PitchedPtr { ptr, pitch, xsize: e.width, ysize: e.height })
    })
}

/// `cudaMemcpy2D`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> Status {
    let d = Side::Linear(dst, dpitch, height, Pos::default());
    let s = Side::Linear(src.cast_mut(), spitch, height, Pos::default());
    api(|| copy_sides(d, s, (width, height, 1), kind, None))
}

/// `cudaMemcpy2DAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    s: Handle,
) -> Status {
    let d = Side::Linear(dst, dpitch, height, Pos::default());
    let src = Side::Linear(src.cast_mut(), spitch, height, Pos::default());
    api(|| copy_sides(d, src, (width, height, 1), kind, Some(s)))
}

/// The copy a `cudaMemcpy3DParms` describes: with an array on either side, x positions
/// and the width count the array's elements (bytes otherwise).
fn parms3d(p: *const Memcpy3DParms, s: Option<Handle>) -> Result<(), Status> {
    let p = crate::raw::get(p).ok_or(cudaErrorInvalidValue)?;
    let array = [p.src_array, p.dst_array].into_iter().find(|a| !a.is_null());
    let elem = match array {
        Some(a) => element_bytes(a)?,
        None => 1,
    };
    let side = |a: Handle, at: Pos, ptr: PitchedPtr| {
        if a.is_null() {
            Side::Linear(ptr.ptr, ptr.pitch, ptr.ysize, at)
        } else {
            Side::Array(a, Pos { x: at.x * elem, ..at })
        }
    };
    let (src, dst) = (side(p.src_array, p.src_pos, p.src_ptr), side(p.dst_array, p.dst_pos, p.dst_ptr));
    let e = p.extent;
    copy_sides(dst, src, (e.width * elem, e.height, e.depth), p.kind, s)
}

/// `cudaMemcpy3D`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy3D(p: *const Memcpy3DParms) -> Status {
    api(|| parms3d(p, None))
}

/// `cudaMemcpy3DAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy3DAsync(p: *const Memcpy3DParms, s: Handle) -> Status {
    api(|| parms3d(p, Some(s)))
}

/// A 2D memset of `height` rows of `width` bytes, rows `pitch` apart.
fn memset2d(
    p: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    s: Option<Handle>,
) -> Result<(), Status> {
    let d = state::driver()?;
    state::context()?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    if width > pitch && height > 1 {
        return Err(cudaErrorInvalidPitchValue);
    }
    let at = p as usize as DevPtr;
    error::check(match s {
        Some(s) => d.cuMemsetD2D8Async(at, pitch, value as u8, width, height, s),
        None => d.cuMemsetD2D8(at, pitch, value as u8, width, height),
    })
}

/// `cudaMemset2D`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemset2D(p: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> Status {
    api(|| memset2d(p, pitch, value, width, height, None))
}

/// `cudaMemset2DAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemset2DAsync(
    p: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    s: Handle,
) -> Status {
    api(|| memset2d(p, pitch, value, width, height, Some(s)))
}

/// A 3D memset: every slice's rows of a pitched allocation.
fn memset3d(p: PitchedPtr, value: c_int, e: Extent, s: Option<Handle>) -> Result<(), Status> {
    if e.depth == 0 {
        return Ok(());
    }
    if e.depth > 1 && e.height > p.ysize {
        return Err(cudaErrorInvalidValue);
    }
    // The slices are contiguous rows when the extent covers whole slices; else one each.
    if e.height == p.ysize || e.depth == 1 {
        let rows = e.height.checked_mul(e.depth).ok_or(cudaErrorInvalidValue)?;
        return memset2d(p.ptr, p.pitch, value, e.width, rows, s);
    }
    let slice = p.pitch.checked_mul(p.ysize).ok_or(cudaErrorInvalidValue)?;
    for z in 0..e.depth {
        let at = (p.ptr as usize).wrapping_add(z * slice) as *mut c_void;
        memset2d(at, p.pitch, value, e.width, e.height, s)?;
    }
    Ok(())
}

/// `cudaMemset3D`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemset3D(p: PitchedPtr, value: c_int, e: Extent) -> Status {
    api(|| memset3d(p, value, e, None))
}

/// `cudaMemset3DAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemset3DAsync(p: PitchedPtr, value: c_int, e: Extent, s: Handle) -> Status {
    api(|| memset3d(p, value, e, Some(s)))
}
