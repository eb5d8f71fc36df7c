//! CUDA arrays, texture objects and surface objects: cuArrayCreate, cuArray3DCreate,
//! cuArrayDestroy, cuArray(3D)GetDescriptor, cuTexObjectCreate/Destroy/GetResourceDesc/
//! GetTextureDesc, cuSurfObjectCreate/Destroy/GetResourceDesc, and the array copies
//! cuMemcpyHtoA/AtoH/AtoD/DtoA/AtoA. The device does the work: arrays are block-linear
//! VRAM, objects are entries of the context's texture header and sampler pools, and the
//! compute engine's texture unit samples them (runtime-core's `context::texture`).
//!
//! Not supported (CUDA_ERROR_NOT_SUPPORTED): layered cube maps, resource views,
//! and CUDA_ARRAY3D flags other than LAYERED, SURFACE_LDST and TEXTURE_GATHER.

use crate::state::{current, gpu_of, guard, handle, key, synchronized};
use crate::{CUdeviceptr, CUresult, Handle, apitrace, raw};
use backend_user::CuError;
use backend_user::Result;
use runtime_core::StreamHandle;
use runtime_core::{ArrayDesc, ArrayHandle, CopySide, Format, MipmappedHandle, Resource, TexDesc};
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;

/// `CUresourcetype`.
const RESOURCE_ARRAY: c_uint = 0;
const RESOURCE_MIPMAPPED_ARRAY: c_uint = 1;
const RESOURCE_LINEAR: c_uint = 2;
const RESOURCE_PITCH2D: c_uint = 3;

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct CUDA_ARRAY_DESCRIPTOR {
    /// Width in elements.
    pub width: usize,
    /// Height (0: 1D).
    pub height: usize,
    /// `CUarray_format`.
    pub format: c_uint,
    /// Components per element.
    pub num_channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct CUDA_ARRAY3D_DESCRIPTOR {
    /// Width in elements.
    pub width: usize,
    /// Height (0: 1D).
    pub height: usize,
    /// Depth, or layers (0: 1D or 2D).
    pub depth: usize,
    /// `CUarray_format`.
    pub format: c_uint,
    /// Components per element.
    pub num_channels: c_uint,
    /// `CUDA_ARRAY3D_*` flags.
    pub flags: c_uint,
}

/// `CUDA_RESOURCE_DESC`: the type, a 128-byte union, and flags.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_RESOURCE_DESC {
    /// `CUresourcetype`.
    pub res_type: c_uint,
    /// The union: array handle; or devPtr, format, numChannels and sizeInBytes (linear);
    /// or devPtr, format, numChannels, width, height, pitchInBytes (pitch 2D).
    pub res: [u64; 16],
    /// Must be 0.
    pub flags: c_uint,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_TEXTURE_DESC {
    /// `CUaddress_mode` per dimension.
    pub address_mode: [c_uint; 3],
    /// `CUfilter_mode`.
    pub filter_mode: c_uint,
    /// `CU_TRSF_*` flags.
    pub flags: c_uint,
    /// Maximum anisotropy (ignored: no anisotropic filtering).
    pub max_anisotropy: c_uint,
    /// Mipmap filter mode.
    pub mipmap_filter_mode: c_uint,
    /// Mipmap level bias.
    pub mipmap_level_bias: f32,
    /// Minimum mipmap level clamp.
    pub min_mipmap_level_clamp: f32,
    /// Maximum mipmap level clamp.
    pub max_mipmap_level_clamp: f32,
    /// Border color.
    pub border_color: [f32; 4],
    /// Reserved.
    pub reserved: [c_int; 12],
}

pub(crate) fn format(v: c_uint) -> Result<Format> {
    Format::from_cu(v).ok_or(CuError::InvalidValue)
}

pub(crate) fn array_handle(a: Handle) -> Result<ArrayHandle> {
    if a.is_null() { Err(CuError::InvalidValue) } else { Ok(ArrayHandle(key(a))) }
}

fn create(out: *mut Handle, desc: ArrayDesc) -> Result<()> {
    if out.is_null() {
        return Err(CuError::InvalidValue);
    }
    let (gpu, h) = current()?;
    let a = gpu.array_create(h, desc)?;
    raw::put(out, handle(a.0))
}

/// cuArrayCreate_v2: a 1D or 2D array.
#[unsafe(no_mangle)]
pub extern "C" fn cuArrayCreate_v2(out: *mut Handle, desc: *const CUDA_ARRAY_DESCRIPTOR) -> CUresult {
    guard(|| {
        let d = raw::get(desc)?;
        let desc = ArrayDesc {
            width: d.width as u64,
            height: d.height as u64,
            depth: 0,
            format: format(d.format)?,
            channels: d.num_channels,
            flags: 0,
        };
        create(out, desc)
    })
}

/// cuArray3DCreate_v2: a 1D, 2D, 3D or layered array.
#[unsafe(no_mangle)]
pub extern "C" fn cuArray3DCreate_v2(out: *mut Handle, desc: *const CUDA_ARRAY3D_DESCRIPTOR) -> CUresult {
    guard(|| create(out, desc3d(desc)?))
}

/// The `ArrayDesc` of a `CUDA_ARRAY3D_DESCRIPTOR`.
fn desc3d(desc: *const CUDA_ARRAY3D_DESCRIPTOR) -> Result<ArrayDesc> {
    let d = raw::get(desc)?;
    Ok(ArrayDesc {
        width: d.width as u64,
        height: d.height as u64,
        depth: d.depth as u64,
        format: format(d.format)?,
        channels: d.num_channels,
        flags: d.flags,
    })
}

/// cuMipmappedArrayCreate: 1D, 2D or 3D, `levels` levels (each half the last, at least
/// one element), laid out one after another.
#[unsafe(no_mangle)]
pub extern "C" fn cuMipmappedArrayCreate(
    out: *mut Handle,
    desc: *const CUDA_ARRAY3D_DESCRIPTOR,
    levels: c_uint,
) -> CUresult {
    guard(|| {
        if out.is_null() {
            return Err(CuError::InvalidValue);
        }
        let desc = desc3d(desc)?;
        let (gpu, h) = current()?;
        let m = gpu.mipmapped_create(h, desc, levels)?;
        raw::put(out, handle(m.0))
    })
}

fn mipmapped_handle(m: Handle) -> Result<MipmappedHandle> {
    if m.is_null() { Err(CuError::InvalidHandle) } else { Ok(MipmappedHandle(key(m))) }
}

/// cuMipmappedArrayGetLevel: the level as an array (for copies, textures and surfaces),
/// freed with the mipmapped array.
#[unsafe(no_mangle)]
pub extern "C" fn cuMipmappedArrayGetLevel(out: *mut Handle, m: Handle, level: c_uint) -> CUresult {
    guard(|| {
        if out.is_null() {
            return Err(CuError::InvalidValue);
        }
        let a = gpu_of(key(m))?.mipmapped_level(mipmapped_handle(m)?, level)?;
        raw::put(out, handle(a.0))
    })
}

/// cuMipmappedArrayDestroy: after the context's queued work.
#[unsafe(no_mangle)]
pub extern "C" fn cuMipmappedArrayDestroy(m: Handle) -> CUresult {
    guard(|| gpu_of(key(m))?.mipmapped_destroy(mipmapped_handle(m)?))
}

/// cuArrayDestroy: after the context's queued work.
#[unsafe(no_mangle)]
pub extern "C" fn cuArrayDestroy(a: Handle) -> CUresult {
    guard(|| {
        let a = array_handle(a).map_err(|_| CuError::InvalidHandle)?;
        gpu_of(a.0)?.array_destroy(a)
    })
}

/// cuArrayGetDescriptor_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuArrayGetDescriptor_v2(out: *mut CUDA_ARRAY_DESCRIPTOR, a: Handle) -> CUresult {
    guard(|| {
        let d = gpu_of(key(a))?.array_desc(array_handle(a).map_err(|_| CuError::InvalidHandle)?)?;
        let desc = CUDA_ARRAY_DESCRIPTOR {
            width: d.width as usize,
            height: d.height as usize,
            format: d.format as c_uint,
            num_channels: d.channels,
        };
        raw::put(out, desc)
    })
}

/// cuArray3DGetDescriptor_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuArray3DGetDescriptor_v2(out: *mut CUDA_ARRAY3D_DESCRIPTOR, a: Handle) -> CUresult {
    guard(|| {
        let d = gpu_of(key(a))?.array_desc(array_handle(a).map_err(|_| CuError::InvalidHandle)?)?;
        let desc = CUDA_ARRAY3D_DESCRIPTOR {
            width: d.width as usize,
            height: d.height as usize,
            depth: d.depth as usize,
            format: d.format as c_uint,
            num_channels: d.channels,
            flags: d.flags,
        };
        raw::put(out, desc)
    })
}

/// The resource a `CUDA_RESOURCE_DESC` names.
fn resource(r: &CUDA_RESOURCE_DESC) -> Result<Resource> {
    if r.flags != 0 {
        return Err(CuError::InvalidValue);
    }
    let u = &r.res;
    let fmt = || -> Result<(Format, u32)> { Ok((format(u[1] as u32)?, (u[1] >> 32) as u32)) };
    Ok(match r.res_type {
        RESOURCE_ARRAY if u[0] == 0 => return Err(CuError::InvalidValue),
        RESOURCE_ARRAY => Resource::Array(u[0]),
        RESOURCE_MIPMAPPED_ARRAY if u[0] == 0 => return Err(CuError::InvalidValue),
        RESOURCE_MIPMAPPED_ARRAY => Resource::Mipmapped(u[0]),
        RESOURCE_LINEAR => {
            let (format, channels) = fmt()?;
            Resource::Linear { ptr: u[0], format, channels, bytes: u[2] }
        }
        RESOURCE_PITCH2D => {
            let (format, channels) = fmt()?;
            Resource::Pitch2D { ptr: u[0], format, channels, width: u[2], height: u[3], pitch: u[4] }
        }
        _ => return Err(CuError::InvalidValue),
    })
}

/// The `CUDA_RESOURCE_DESC` of a resource.
fn resource_desc(r: Resource) -> CUDA_RESOURCE_DESC {
    let mut res = [0u64; 16];
    let fmt = |f: Format, c: u32| f as u64 | (c as u64) << 32;
    let res_type = match r {
        Resource::Array(a) => {
            res[0] = a;
            RESOURCE_ARRAY
        }
        Resource::Mipmapped(m) => {
            res[0] = m;
            RESOURCE_MIPMAPPED_ARRAY
        }
        Resource::Linear { ptr, format, channels, bytes } => {
            res[..3].copy_from_slice(&[ptr, fmt(format, channels), bytes]);
            RESOURCE_LINEAR
        }
        Resource::Pitch2D { ptr, format, channels, width, height, pitch } => {
            res[..5].copy_from_slice(&[ptr, fmt(format, channels), width, height, pitch]);
            RESOURCE_PITCH2D
        }
    };
    CUDA_RESOURCE_DESC { res_type, res, flags: 0 }
}

/// cuTexObjectCreate: resource views are NOT_SUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexObjectCreate(
    out: *mut u64,
    res: *const CUDA_RESOURCE_DESC,
    tex: *const CUDA_TEXTURE_DESC,
    view: *const c_void,
) -> CUresult {
    guard(|| {
        if out.is_null() {
            return Err(CuError::InvalidValue);
        }
        let res = resource(&raw::get(res)?)?;
        let t = raw::get(tex)?;
        if !view.is_null() {
            return Err(CuError::NotSupported);
        }
        let desc = TexDesc {
            address: t.address_mode,
            filter: t.filter_mode,
            flags: t.flags,
            border: t.border_color,
            mip_filter: t.mipmap_filter_mode,
            mip_bias: t.mipmap_level_bias,
            mip_clamp: [t.min_mipmap_level_clamp, t.max_mipmap_level_clamp],
        };
        let (gpu, h) = current()?;
        raw::put(out, gpu.tex_create(h, res, desc)?)
    })
}

/// cuTexObjectDestroy: after the context's queued work.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexObjectDestroy(tex: u64) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        gpu.tex_destroy(h, tex, false)
    })
}

/// cuTexObjectGetResourceDesc.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexObjectGetResourceDesc(out: *mut CUDA_RESOURCE_DESC, tex: u64) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        raw::put(out, resource_desc(gpu.tex_desc(h, tex)?.0))
    })
}

/// cuTexObjectGetTextureDesc.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexObjectGetTextureDesc(out: *mut CUDA_TEXTURE_DESC, tex: u64) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        let d = gpu.tex_desc(h, tex)?.1;
        let desc = CUDA_TEXTURE_DESC {
            address_mode: d.address,
            filter_mode: d.filter,
            flags: d.flags,
            max_anisotropy: 0,
            mipmap_filter_mode: d.mip_filter,
            mipmap_level_bias: d.mip_bias,
            min_mipmap_level_clamp: d.mip_clamp[0],
            max_mipmap_level_clamp: d.mip_clamp[1],
            border_color: d.border,
            reserved: [0; 12],
        };
        raw::put(out, desc)
    })
}

/// cuSurfObjectCreate: over an array made with CUDA_ARRAY3D_SURFACE_LDST.
#[unsafe(no_mangle)]
pub extern "C" fn cuSurfObjectCreate(out: *mut u64, res: *const CUDA_RESOURCE_DESC) -> CUresult {
    guard(|| {
        if out.is_null() {
            return Err(CuError::InvalidValue);
        }
        let Resource::Array(a) = resource(&raw::get(res)?)? else { return Err(CuError::InvalidValue) };
        let (gpu, h) = current()?;
        raw::put(out, gpu.surf_create(h, ArrayHandle(a))?)
    })
}

/// cuSurfObjectDestroy: after the context's queued work.
#[unsafe(no_mangle)]
pub extern "C" fn cuSurfObjectDestroy(surf: u64) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        gpu.tex_destroy(h, surf, true)
    })
}

/// cuSurfObjectGetResourceDesc.
#[unsafe(no_mangle)]
pub extern "C" fn cuSurfObjectGetResourceDesc(out: *mut CUDA_RESOURCE_DESC, surf: u64) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        raw::put(out, resource_desc(Resource::Array(gpu.surf_array(h, surf)?.0)))
    })
}

/// The region of a `cuMemcpy*A` copy of `bytes` from byte `offset` of the array's first
/// row: (origin, extent).
fn linear_region(a: ArrayHandle, offset: usize, bytes: usize) -> Result<([u64; 3], [u64; 3])> {
    let d = gpu_of(a.0)?.array_desc(a)?;
    let row = d.width * d.element_bytes();
    let (offset, bytes) = (offset as u64, bytes as u64);
    // cuMemcpy*A copies within one row of the array, as CUDA's 1D-array copies do.
    if offset.checked_add(bytes).is_none_or(|end| end > row) {
        return Err(CuError::InvalidValue);
    }
    Ok(([offset, 0, 0], [bytes, 1, 1]))
}

/// cuMemcpyHtoA_v2: host memory to an array's first row from byte `offset`.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyHtoA_v2(dst: Handle, offset: usize, src: *const c_void, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyHtoA_v2", Some(std::ptr::null_mut()), || guard(|| htoa(dst, offset, src, bytes)))
}

fn htoa(dst: Handle, offset: usize, src: *const c_void, bytes: usize) -> Result<()> {
    let a = array_handle(dst)?;
    let (at, extent) = linear_region(a, offset, bytes)?;
    let src = raw::bytes(src.cast(), bytes)?;
    gpu_of(a.0)?.memcpy_htoa(a, at, src, (bytes as u64, bytes as u64), extent)
}

/// cuMemcpyAtoH_v2: an array's first row from byte `offset` to host memory.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyAtoH_v2(dst: *mut c_void, src: Handle, offset: usize, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyAtoH_v2", Some(std::ptr::null_mut()), || guard(|| atoh(dst, src, offset, bytes)))
}

fn atoh(dst: *mut c_void, src: Handle, offset: usize, bytes: usize) -> Result<()> {
    let a = array_handle(src)?;
    let (at, extent) = linear_region(a, offset, bytes)?;
    let dst = raw::bytes_mut(dst.cast(), bytes)?;
    gpu_of(a.0)?.memcpy_atoh(a, at, dst, (bytes as u64, bytes as u64), extent)
}

/// Wait for stream `s`'s earlier work (and report what the sanitizers found in it), for a
/// host copy with an array that runs staged, in the stream's order.
fn after_stream(s: Handle) -> Result<()> {
    let (gpu, h, sh) = crate::stream::stream_of(s)?;
    let r = gpu.stream_synchronize(h, sh);
    synchronized(&gpu, h);
    r
}

/// cuMemcpyHtoAAsync_v2: [`cuMemcpyHtoA_v2`] in stream `s`'s order. The copy is staged
/// through the context's buffers, so it is complete when the call returns (as CUDA's is
/// for pageable memory).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyHtoAAsync_v2(
    dst: Handle,
    offset: usize,
    src: *const c_void,
    bytes: usize,
    s: Handle,
) -> CUresult {
    guard(|| {
        after_stream(s)?;
        htoa(dst, offset, src, bytes)
    })
}

/// cuMemcpyAtoHAsync_v2: [`cuMemcpyAtoH_v2`] in stream `s`'s order (complete on return,
/// as [`cuMemcpyHtoAAsync_v2`]).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyAtoHAsync_v2(
    dst: *mut c_void,
    src: Handle,
    offset: usize,
    bytes: usize,
    s: Handle,
) -> CUresult {
    guard(|| {
        after_stream(s)?;
        atoh(dst, src, offset, bytes)
    })
}

/// A synchronous copy on the copy engine between an array and device memory or another
/// array (cuMemcpyDtoA, cuMemcpyAtoD, cuMemcpyAtoA).
fn device_copy(src: (CopySide, [u64; 3]), dst: (CopySide, [u64; 3]), extent: [u64; 3]) -> Result<()> {
    let (gpu, h) = current()?;
    let f = gpu.memcpy_array(h, StreamHandle::DEFAULT, src, dst, extent)?;
    gpu.fence_wait(h, f)
}

/// Device memory at `ptr` as one row of `bytes`.
fn device_row(ptr: CUdeviceptr, bytes: usize) -> (CopySide, [u64; 3]) {
    (CopySide::Device { ptr, pitch: bytes as u64, height: 1 }, [0; 3])
}

/// cuMemcpyDtoA_v2: device memory to an array's first row, synchronously.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoA_v2(dst: Handle, offset: usize, src: CUdeviceptr, bytes: usize) -> CUresult {
    guard(|| {
        let a = array_handle(dst)?;
        let (at, extent) = linear_region(a, offset, bytes)?;
        device_copy(device_row(src, bytes), (CopySide::Array(a), at), extent)
    })
}

/// cuMemcpyAtoD_v2: an array's first row to device memory, synchronously.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyAtoD_v2(dst: CUdeviceptr, src: Handle, offset: usize, bytes: usize) -> CUresult {
    guard(|| {
        let a = array_handle(src)?;
        let (at, extent) = linear_region(a, offset, bytes)?;
        device_copy((CopySide::Array(a), at), device_row(dst, bytes), extent)
    })
}

/// cuMemcpyAtoA_v2: between the first rows of two arrays, synchronously.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyAtoA_v2(dst: Handle, dst_off: usize, src: Handle, src_off: usize, bytes: usize) -> CUresult {
    guard(|| {
        let (a, b) = (array_handle(src)?, array_handle(dst)?);
        let (sat, extent) = linear_region(a, src_off, bytes)?;
        let (dat, _) = linear_region(b, dst_off, bytes)?;
        device_copy((CopySide::Array(a), sat), (CopySide::Array(b), dat), extent)
    })
}
