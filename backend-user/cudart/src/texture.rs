//! CUDA arrays and texture and surface objects through the runtime: channel
//! descriptors, `cudaMallocArray`/`cudaMalloc3DArray`, copies to and from arrays, and
//! `cudaCreateTextureObject`/`cudaCreateSurfaceObject`, over the driver's arrays and
//! objects (sampled by the simulated texture unit), and mipmapped arrays
//! (`cudaMallocMipmappedArray`, `cudaGetMipmappedArrayLevel`, textures over them).

use crate::driver::Handle;
use crate::error::{self, Status, codes::*};
use crate::pitched::{Array3DDesc, Extent, Pos, array_desc, element_bytes};
use crate::{api, put, raw, state};
use std::ffi::{c_int, c_uint, c_void};

/// `struct cudaChannelFormatDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelFormatDesc {
    /// Bits of x.
    pub x: c_int,
    /// Bits of y.
    pub y: c_int,
    /// Bits of z.
    pub z: c_int,
    /// Bits of w.
    pub w: c_int,
    /// `cudaChannelFormatKind`: 0 signed, 1 unsigned, 2 float.
    pub f: c_int,
}

/// The driver's array format and channel count for a channel descriptor.
fn format_of(d: &ChannelFormatDesc) -> Result<(c_uint, c_uint), Status> {
    let bits = [d.x, d.y, d.z, d.w];
    let n = bits.iter().take_while(|&&b| b != 0).count();
    if n == 0 || bits[n..].iter().any(|&b| b != 0) || bits[..n].iter().any(|&b| b != d.x) {
        return Err(cudaErrorInvalidChannelDescriptor);
    }
    let format = match (d.f, d.x) {
        (0, 8) => 0x08,
        (0, 16) => 0x09,
        (0, 32) => 0x0a,
        (1, 8) => 0x01,
        (1, 16) => 0x02,
        (1, 32) => 0x03,
        (2, 16) => 0x10,
        (2, 32) => 0x20,
        _ => return Err(cudaErrorInvalidChannelDescriptor),
    };
    Ok((format, n as c_uint))
}

/// The channel descriptor of a driver format and channel count.
fn desc_of(format: c_uint, channels: c_uint) -> ChannelFormatDesc {
    let (f, bits) = match format {
        0x08 => (0, 8),
        0x09 => (0, 16),
        0x0a => (0, 32),
        0x01 => (1, 8),
        0x02 => (1, 16),
        0x03 => (1, 32),
        0x10 => (2, 16),
        _ => (2, 32),
    };
    let b = |k: c_uint| if channels > k { bits } else { 0 };
    ChannelFormatDesc { x: b(0), y: b(1), z: b(2), w: b(3), f }
}

/// `cudaCreateChannelDesc`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaCreateChannelDesc(x: c_int, y: c_int, z: c_int, w: c_int, f: c_int) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// An array of `extent` (0 height and depth: 1D) with `flags` (cudaArray* flags are the
/// driver's CUDA_ARRAY3D_* flags).
fn make_array(a: *mut Handle, desc: *const ChannelFormatDesc, e: Extent, flags: c_uint) -> Result<(), Status> {
    let d = state::driver()?;
    state::context()?;
    let cd = raw::get(desc).ok_or(cudaErrorInvalidValue)?;
    let (format, channels) = format_of(&cd)?;
    let ad = Array3DDesc { width: e.width, height: e.height, depth: e.depth, format, channels, flags };
    let mut h: Handle = core::ptr::null_mut();
    error::check(d.cuArray3DCreate(&mut h, (&ad as *const Array3DDesc).cast()))?;
    put(a, h)
}

/// `cudaMallocMipmappedArray`: `levels` levels of an array of extent `e` (1D, 2D or 3D),
/// each level half the one before (at least one element).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMallocMipmappedArray(
    m: *mut Handle,
    desc: *const ChannelFormatDesc,
    e: Extent,
    levels: c_uint,
    flags: c_uint,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let cd = raw::get(desc).ok_or(cudaErrorInvalidValue)?;
        let (format, channels) = format_of(&cd)?;
        let ad = Array3DDesc { width: e.width, height: e.height, depth: e.depth, format, channels, flags };
        let mut h: Handle = core::ptr::null_mut();
        error::check(d.cuMipmappedArrayCreate(&mut h, (&ad as *const Array3DDesc).cast(), levels))?;
        put(m, h)
    })
}

/// `cudaGetMipmappedArrayLevel`: level `level` as an array (for copies, textures and
/// surfaces), freed with the mipmapped array.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetMipmappedArrayLevel(a: *mut Handle, m: Handle, level: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut h: Handle = core::ptr::null_mut();
        error::check(d.cuMipmappedArrayGetLevel(&mut h, m, level))
            .map_err(|e| if e == cudaErrorInvalidResourceHandle { cudaErrorInvalidValue } else { e })?;
        put(a, h)
    })
}

/// `cudaFreeMipmappedArray` (NULL does nothing).
#[unsafe(no_mangle)]
pub extern "C" fn cudaFreeMipmappedArray(m: Handle) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if m.is_null() {
            return Ok(());
        }
        error::check(d.cuMipmappedArrayDestroy(m))
    })
}

/// `cudaMallocArray`: a 1D (height 0) or 2D array.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMallocArray(
    a: *mut Handle,
    desc: *const ChannelFormatDesc,
    width: usize,
    height: usize,
    flags: c_uint,
) -> Status {
    api(|| make_array(a, desc, Extent { width, height, depth: 0 }, flags))
}

/// `cudaMalloc3DArray`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMalloc3DArray(
    a: *mut Handle,
    desc: *const ChannelFormatDesc,
    e: Extent,
    flags: c_uint,
) -> Status {
    api(|| make_array(a, desc, e, flags))
}

/// `cudaFreeArray` (NULL does nothing).
#[unsafe(no_mangle)]
pub extern "C" fn cudaFreeArray(a: Handle) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if a.is_null() {
            return Ok(());
        }
        error::check(d.cuArrayDestroy(a))
    })
}

/// `cudaArrayGetInfo`: the channel descriptor, extent and flags of an array (any output
/// may be NULL).
#[unsafe(no_mangle)]
pub extern "C" fn cudaArrayGetInfo(
    desc: *mut ChannelFormatDesc,
    e: *mut Extent,
    flags: *mut c_uint,
    a: Handle,
) -> Status {
    api(|| {
        let ad = array_desc(a)?;
        if !desc.is_null() {
            put(desc, desc_of(ad.format, ad.channels))?;
        }
        if !e.is_null() {
            put(e, Extent { width: ad.width, height: ad.height, depth: ad.depth })?;
        }
        if !flags.is_null() {
            put(flags, ad.flags)?;
        }
        Ok(())
    })
}

/// `cudaGetChannelDesc`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetChannelDesc(desc: *mut ChannelFormatDesc, a: Handle) -> Status {
    api(|| {
        let ad = array_desc(a)?;
        put(desc, desc_of(ad.format, ad.channels))
    })
}

/// A copy between an array at (x bytes, y, z) and linear memory, or two arrays, as the
/// driver's 3D copy describes it.
fn array_copy(
    dst: crate::pitched::Side,
    src: crate::pitched::Side,
    (width, height, depth): (usize, usize, usize),
    kind: c_int,
    s: Option<Handle>,
) -> Result<(), Status> {
    crate::pitched::copy_sides(dst, src, (width, height, depth), kind, s)
}

use crate::pitched::Side;

/// `cudaMemcpy2DToArray`: `height` rows of `width` bytes into the array at (`x` bytes,
/// `y`).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2DToArray(
    a: Handle,
    x: usize,
    y: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> Status {
    api(|| {
        let dst = Side::Array(a, Pos { x, y, z: 0 });
        array_copy(dst, Side::Linear(src.cast_mut(), spitch, height, Pos::default()), (width, height, 1), kind, None)
    })
}

/// `cudaMemcpy2DToArrayAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2DToArrayAsync(
    a: Handle,
    x: usize,
    y: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    s: Handle,
) -> Status {
    api(|| {
        let dst = Side::Array(a, Pos { x, y, z: 0 });
        array_copy(dst, Side::Linear(src.cast_mut(), spitch, height, Pos::default()), (width, height, 1), kind, Some(s))
    })
}

/// `cudaMemcpy2DFromArray`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2DFromArray(
    dst: *mut c_void,
    dpitch: usize,
    a: Handle,
    x: usize,
    y: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> Status {
    api(|| {
        let src = Side::Array(a, Pos { x, y, z: 0 });
        array_copy(Side::Linear(dst, dpitch, height, Pos::default()), src, (width, height, 1), kind, None)
    })
}

/// `cudaMemcpy2DFromArrayAsync`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2DFromArrayAsync(
    dst: *mut c_void,
    dpitch: usize,
    a: Handle,
    x: usize,
    y: usize,
    width: usize,
    height: usize,
    kind: c_int,
    s: Handle,
) -> Status {
    api(|| {
        let src = Side::Array(a, Pos { x, y, z: 0 });
        array_copy(Side::Linear(dst, dpitch, height, Pos::default()), src, (width, height, 1), kind, Some(s))
    })
}

/// `cudaMemcpy2DArrayToArray`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpy2DArrayToArray(
    dst: Handle,
    dx: usize,
    dy: usize,
    src: Handle,
    sx: usize,
    sy: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> Status {
    api(|| {
        let (d, s) = (Side::Array(dst, Pos { x: dx, y: dy, z: 0 }), Side::Array(src, Pos { x: sx, y: sy, z: 0 }));
        array_copy(d, s, (width, height, 1), kind, None)
    })
}

/// A linear copy of `count` bytes to or from an array starting at (`x` bytes, `y`),
/// row after row (the deprecated 1D array copies): a partial first row, whole rows, a
/// partial last row.
fn linear_array_copy(
    a: Handle,
    (x, y): (usize, usize),
    host: *mut c_void,
    count: usize,
    to: bool,
    kind: c_int,
    s: Option<Handle>,
) -> Result<(), Status> {
    let ad = array_desc(a)?;
    let row = ad.width * element_bytes(a)?;
    let (mut x, mut y, mut done) = (x, y, 0usize);
    while done < count {
        let n = (row.checked_sub(x).ok_or(cudaErrorInvalidValue)?).min(count - done);
        if n == 0 {
            return Err(cudaErrorInvalidValue);
        }
        let rows = if x == 0 && count - done >= row { (count - done) / row } else { 1 };
        let width = if rows > 1 { row } else { n };
        let at = (host as usize + done) as *mut c_void;
        let lin = Side::Linear(at, width, rows, Pos::default());
        let arr = Side::Array(a, Pos { x, y, z: 0 });
        if to {
            array_copy(arr, lin, (width, rows, 1), kind, s)?
        } else {
            array_copy(lin, arr, (width, rows, 1), kind, s)?
        }
        done += width * rows;
        x = (x + width) % row.max(1);
        y += if x == 0 { rows } else { 0 };
    }
    Ok(())
}

/// `cudaMemcpyToArray` (deprecated).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyToArray(
    a: Handle,
    x: usize,
    y: usize,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> Status {
    api(|| linear_array_copy(a, (x, y), src.cast_mut(), count, true, kind, None))
}

/// `cudaMemcpyFromArray` (deprecated).
#[unsafe(no_mangle)]
pub extern "C" fn cudaMemcpyFromArray(
    dst: *mut c_void,
    a: Handle,
    x: usize,
    y: usize,
    count: usize,
    kind: c_int,
) -> Status {
    api(|| linear_array_copy(a, (x, y), dst, count, false, kind, None))
}

/// `struct cudaResourceDesc` (CUDA 12: no flags).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDesc {
    /// `cudaResourceType`: 0 array, 1 mipmapped array, 2 linear, 3 pitch 2D.
    pub res_type: c_int,
    /// The resource (by type).
    pub res: ResourceUnion,
}

/// The union of `cudaResourceDesc`, as its largest member (pitch 2D) lays it out.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceUnion {
    /// The array or mipmapped array handle, or the device pointer.
    pub ptr: *mut c_void,
    /// The channel descriptor (linear and pitch 2D).
    pub desc: ChannelFormatDesc,
    /// Linear: size in bytes; pitch 2D: width in elements.
    pub a: usize,
    /// Pitch 2D: height.
    pub b: usize,
    /// Pitch 2D: bytes between rows.
    pub c: usize,
}

/// `struct cudaTextureDesc` (CUDA 12).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TextureDesc {
    /// Address modes (wrap, clamp, mirror, border) per dimension.
    pub address_mode: [c_int; 3],
    /// Point or linear.
    pub filter_mode: c_int,
    /// `cudaReadModeElementType` (0) or `cudaReadModeNormalizedFloat` (1).
    pub read_mode: c_int,
    /// sRGB.
    pub srgb: c_int,
    /// Border color.
    pub border_color: [f32; 4],
    /// Normalized coordinates.
    pub normalized_coords: c_int,
    /// Most anisotropy.
    pub max_anisotropy: c_uint,
    /// Filtering between mipmap levels.
    pub mipmap_filter_mode: c_int,
    /// Level-of-detail bias.
    pub mipmap_level_bias: f32,
    /// Lowest level.
    pub min_mipmap_level_clamp: f32,
    /// Highest level.
    pub max_mipmap_level_clamp: f32,
    /// Trilinear optimization off.
    pub disable_trilinear_optimization: c_int,
    /// Seamless cube maps.
    pub seamless_cubemap: c_int,
}

/// The driver's `CUDA_RESOURCE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CuResourceDesc {
    res_type: c_uint,
    res: [u64; 16],
    flags: c_uint,
}

/// The driver's `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CuTextureDesc {
    address_mode: [c_int; 3],
    filter_mode: c_int,
    flags: c_uint,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_int,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
    border_color: [f32; 4],
    reserved: [c_int; 12],
}

/// The driver's resource description of a runtime one.
fn cu_resource(r: &ResourceDesc) -> Result<CuResourceDesc, Status> {
    let mut out = CuResourceDesc { res_type: r.res_type as c_uint, res: [0; 16], flags: 0 };
    let u = &r.res;
    match r.res_type {
        0 | 1 => out.res[0] = u.ptr as u64,
        2 | 3 => {
            let (format, channels) = format_of(&u.desc)?;
            out.res[0] = u.ptr as u64;
            out.res[1] = format as u64 | (channels as u64) << 32;
            out.res[2] = u.a as u64;
            if r.res_type == 3 {
                out.res[3] = u.b as u64;
                out.res[4] = u.c as u64;
            }
        }
        _ => return Err(cudaErrorInvalidValue),
    }
    Ok(out)
}

/// The runtime's resource description of a driver one.
fn rt_resource(c: &CuResourceDesc) -> ResourceDesc {
    let (format, channels) = (c.res[1] as u32, (c.res[1] >> 32) as u32);
    let linear = matches!(c.res_type, 2 | 3);
    ResourceDesc {
        res_type: c.res_type as c_int,
        res: ResourceUnion {
            ptr: c.res[0] as usize as *mut c_void,
            desc: if linear { desc_of(format, channels) } else { ChannelFormatDesc::default() },
            a: if linear { c.res[2] as usize } else { 0 },
            b: if c.res_type == 3 { c.res[3] as usize } else { 0 },
            c: if c.res_type == 3 { c.res[4] as usize } else { 0 },
        },
    }
}

/// `cudaCreateTextureObject`: resource views are not supported (cudaErrorNotSupported).
#[unsafe(no_mangle)]
pub extern "C" fn cudaCreateTextureObject(
    t: *mut u64,
    res: *const ResourceDesc,
    tex: *const TextureDesc,
    view: *const c_void,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        if !view.is_null() {
            return Err(cudaErrorNotSupported);
        }
        let r = cu_resource(&raw::get(res).ok_or(cudaErrorInvalidValue)?)?;
        let td = raw::get(tex).ok_or(cudaErrorInvalidValue)?;
        let mut flags = 0;
        if td.read_mode == 0 {
            flags |= 0x01; // CU_TRSF_READ_AS_INTEGER
        }
        if td.normalized_coords != 0 {
            flags |= 0x02;
        }
        if td.srgb != 0 {
            flags |= 0x10;
        }
        if td.disable_trilinear_optimization != 0 {
            flags |= 0x20;
        }
        if td.seamless_cubemap != 0 {
            flags |= 0x40;
        }
        let ct = CuTextureDesc {
            address_mode: td.address_mode,
            filter_mode: td.filter_mode,
            flags,
            max_anisotropy: td.max_anisotropy,
            mipmap_filter_mode: td.mipmap_filter_mode,
            mipmap_level_bias: td.mipmap_level_bias,
            min_mipmap_level_clamp: td.min_mipmap_level_clamp,
            max_mipmap_level_clamp: td.max_mipmap_level_clamp,
            border_color: td.border_color,
            reserved: [0; 12],
        };
        let mut h = 0u64;
        let rp = (&r as *const CuResourceDesc).cast();
        error::check(d.cuTexObjectCreate(&mut h, rp, (&ct as *const CuTextureDesc).cast(), core::ptr::null()))?;
        put(t, h)
    })
}

/// `cudaDestroyTextureObject`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDestroyTextureObject(t: u64) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuTexObjectDestroy(t))
    })
}

/// The resource of a texture or surface object, through the driver's `get`.
fn object_resource(
    res: *mut ResourceDesc,
    get: impl FnOnce(&crate::driver::Driver, *mut c_void) -> crate::driver::CUresult,
) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut c = CuResourceDesc { res_type: 0, res: [0; 16], flags: 0 };
        error::check(get(d, (&mut c as *mut CuResourceDesc).cast()))?;
        put(res, rt_resource(&c))
    })
}

/// `cudaGetTextureObjectResourceDesc`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetTextureObjectResourceDesc(res: *mut ResourceDesc, t: u64) -> Status {
    object_resource(res, |d, out| d.cuTexObjectGetResourceDesc(out, t))
}

/// `cudaGetTextureObjectTextureDesc`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetTextureObjectTextureDesc(tex: *mut TextureDesc, t: u64) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut c = CuTextureDesc::default();
        error::check(d.cuTexObjectGetTextureDesc((&mut c as *mut CuTextureDesc).cast(), t))?;
        put(
            tex,
            TextureDesc {
                address_mode: c.address_mode,
                filter_mode: c.filter_mode,
                read_mode: if c.flags & 1 != 0 { 0 } else { 1 },
                srgb: (c.flags & 0x10 != 0) as c_int,
                border_color: c.border_color,
                normalized_coords: (c.flags & 2 != 0) as c_int,
                max_anisotropy: c.max_anisotropy,
                mipmap_filter_mode: c.mipmap_filter_mode,
                mipmap_level_bias: c.mipmap_level_bias,
                min_mipmap_level_clamp: c.min_mipmap_level_clamp,
                max_mipmap_level_clamp: c.max_mipmap_level_clamp,
                disable_trilinear_optimization: (c.flags & 0x20 != 0) as c_int,
                seamless_cubemap: (c.flags & 0x40 != 0) as c_int,
            },
        )
    })
}

/// `cudaCreateSurfaceObject` (of an array made with cudaArraySurfaceLoadStore).
#[unsafe(no_mangle)]
pub extern "C" fn cudaCreateSurfaceObject(s: *mut u64, res: *const ResourceDesc) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let r = cu_resource(&raw::get(res).ok_or(cudaErrorInvalidValue)?)?;
        let mut h = 0u64;
        error::check(d.cuSurfObjectCreate(&mut h, (&r as *const CuResourceDesc).cast()))?;
        put(s, h)
    })
}

/// `cudaDestroySurfaceObject`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDestroySurfaceObject(s: u64) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuSurfObjectDestroy(s))
    })
}

/// `cudaGetSurfaceObjectResourceDesc`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetSurfaceObjectResourceDesc(res: *mut ResourceDesc, s: u64) -> Status {
    object_resource(res, |d, out| d.cuSurfObjectGetResourceDesc(out, s))
}
