//! The legacy unversioned entry points that NVIDIA's libcuda.so.1 still exports beside
//! their versioned successors, each with its old ABI, for programs built before the
//! successors existed and for loaders that look the table up by name.
//!
//! - Same ABI, older semantics: `cuCtxDestroy` (CUDA 4.0 made it `_v2`), `cuLinkCreate`,
//!   ... call their successors; `cuDevicePrimaryCtxSetFlags` refuses an active primary
//!   context, as before CUDA 11.
//! - The 32-bit ABI of CUDA before 3.2: device pointers (`CUdeviceptr_v1`) and sizes are
//!   `unsigned int`, and the copy and array descriptors have 32-bit fields. Allocations
//!   made through it come from a window below 4 GiB of the context's address space
//!   (runtime-core's `LOW_VA_BASE..LOW_VA_END`), so their pointers fit; a device address
//!   the 32-bit ABI cannot carry (a module global, or memory allocated through the 64-bit
//!   entry points, lies above 4 GiB) is CUDA_ERROR_INVALID_VALUE; sizes reported through
//!   it (cuMemGetInfo, cuDeviceTotalMem) saturate at 4 GiB - 1, as NVIDIA's do.

use crate::copy3d::{CUDA_MEMCPY2D, CUDA_MEMCPY3D};
use crate::state::{current, guard};
use crate::texture::{CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR};
use crate::{
    CUdevice, CUdeviceptr, CUresult, Handle, cuArray3DCreate_v2, cuArray3DGetDescriptor_v2, cuArrayCreate_v2,
    cuArrayGetDescriptor_v2, cuDeviceTotalMem_v2, cuMemFree_v2, cuMemGetAddressRange_v2, cuMemGetInfo_v2,
    cuMemHostGetDevicePointer_v2, cuMemcpy2D_v2, cuMemcpy2DAsync_v2, cuMemcpy2DUnaligned_v2, cuMemcpy3D_v2,
    cuMemcpy3DAsync_v2, cuMemcpyAtoA_v2, cuMemcpyAtoD_v2, cuMemcpyAtoH_v2, cuMemcpyAtoHAsync_v2, cuMemcpyDtoA_v2,
    cuMemcpyDtoD_v2, cuMemcpyDtoDAsync_v2, cuMemcpyDtoH_v2, cuMemcpyDtoHAsync_v2, cuMemcpyHtoA_v2,
    cuMemcpyHtoAAsync_v2, cuMemcpyHtoD_v2, cuMemcpyHtoDAsync_v2, cuMemsetD2D8_v2, cuMemsetD2D16_v2, cuMemsetD2D32_v2,
    cuMemsetD8_v2, cuMemsetD16_v2, cuMemsetD32_v2, cuModuleGetGlobal_v2, cuTexRefGetAddress_v2, cuTexRefSetAddress_v2,
    cuTexRefSetAddress2D_v3, raw,
};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserDev;
use std::ffi::c_char;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;

/// `CUdeviceptr_v1`: a device pointer of the 32-bit ABI.
#[allow(non_camel_case_types)]
pub type CUdeviceptr_v1 = c_uint;

/// A device address as a 32-bit-ABI pointer: INVALID_VALUE above 4 GiB.
fn narrow(p: CUdeviceptr) -> Result<CUdeviceptr_v1> {
    CUdeviceptr_v1::try_from(p).map_err(|_| CuError::InvalidValue)
}

/// A size as the 32-bit ABI reports it: saturated.
fn clamp(n: usize) -> c_uint {
    c_uint::try_from(n).unwrap_or(c_uint::MAX)
}

/// A successor entry point's result as a `Result`.
fn ok(r: CUresult) -> Result<()> {
    match r {
        0 => Ok(()),
        e => Err(CuError::from_code(e as u32).unwrap_or(CuError::Unknown)),
    }
}

/// Call `f` (a successor entry point) with a pointer to a fresh `T`; the value on success.
fn through<T: Default>(f: impl FnOnce(*mut T) -> CUresult) -> Result<T> {
    let mut v = T::default();
    ok(f(&mut v)).map(|()| v)
}

/// Store `v` through `out` if `out` is not NULL.
fn put_opt<T>(out: *mut T, v: T) -> Result<()> {
    if out.is_null() { Ok(()) } else { raw::put(out, v) }
}

/// The legacy unversioned entry points whose versioned successors kept their ABI (the
/// successors changed semantics only, which rgdev's already have): a real libcuda.so.1
/// exports both, and programs that look the table up by name ask for either.
macro_rules! legacy {
    ($($old:ident($($a:ident: $t:ty),*) => $new:path;)*) => {$(
        #[doc = concat!("`", stringify!($old), "`: the pre-versioning entry point, as `", stringify!($new), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $old($($a: $t),*) -> CUresult {
            $new($($a),*)
        }
    )*};
}

legacy! {
    cuCtxCreate(pctx: *mut Handle, flags: c_uint, dev: CUdevice) => crate::context::cuCtxCreate_v2;
    cuCtxDestroy(ctx: Handle) => crate::context::cuCtxDestroy_v2;
    cuCtxPushCurrent(ctx: Handle) => crate::context::cuCtxPushCurrent_v2;
    cuCtxPopCurrent(pctx: *mut Handle) => crate::context::cuCtxPopCurrent_v2;
    cuEventDestroy(e: Handle) => crate::event::cuEventDestroy_v2;
    cuStreamDestroy(s: Handle) => crate::stream::cuStreamDestroy_v2;
    cuLinkCreate(n: c_uint, o: *const c_int, v: *mut *mut c_void, out: *mut Handle) => crate::link::cuLinkCreate_v2;
    cuMemHostRegister(p: *mut c_void, bytes: usize, flags: c_uint) => crate::memory::cuMemHostRegister_v2;
    cuLinkAddData(
        st: Handle, k: c_int, d: *mut c_void, sz: usize, name: *const c_char, n: c_uint, o: *const c_int,
        v: *mut *mut c_void
    ) => crate::link::cuLinkAddData_v2;
    cuLinkAddFile(st: Handle, k: c_int, p: *const c_char, n: c_uint, o: *const c_int, v: *mut *mut c_void)
        => crate::link::cuLinkAddFile_v2;
}

/// `cuDevicePrimaryCtxSetFlags` (before CUDA 11): as `cuDevicePrimaryCtxSetFlags_v2`, but
/// CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE while the primary context exists.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint) -> CUresult {
    guard(|| crate::context::primary_set_flags(dev, flags, true))
}

// The 32-bit ABI of CUDA before 3.2.

/// `CUDA_MEMCPY2D_v1`: [`CUDA_MEMCPY2D`] with 32-bit offsets, pitches and pointers.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMCPY2D_v1 {
    /// Source byte offset within a row.
    pub src_x_in_bytes: c_uint,
    /// Source row.
    pub src_y: c_uint,
    /// `CUmemorytype` of the source.
    pub src_memory_type: c_uint,
    /// Source host pointer.
    pub src_host: *const c_void,
    /// Source device pointer.
    pub src_device: CUdeviceptr_v1,
    /// Source array.
    pub src_array: Handle,
    /// Source pitch.
    pub src_pitch: c_uint,
    /// Destination byte offset within a row.
    pub dst_x_in_bytes: c_uint,
    /// Destination row.
    pub dst_y: c_uint,
    /// `CUmemorytype` of the destination.
    pub dst_memory_type: c_uint,
    /// Destination host pointer.
    pub dst_host: *mut c_void,
    /// Destination device pointer.
    pub dst_device: CUdeviceptr_v1,
    /// Destination array.
    pub dst_array: Handle,
    /// Destination pitch.
    pub dst_pitch: c_uint,
    /// Bytes per row.
    pub width_in_bytes: c_uint,
    /// Rows.
    pub height: c_uint,
}

impl From<CUDA_MEMCPY2D_v1> for CUDA_MEMCPY2D {
    fn from(c: CUDA_MEMCPY2D_v1) -> Self {
        let z = |v: c_uint| v as usize;
        Self {
            src_x_in_bytes: z(c.src_x_in_bytes),
            src_y: z(c.src_y),
            src_memory_type: c.src_memory_type,
            src_host: c.src_host,
            src_device: c.src_device.into(),
            src_array: c.src_array,
            src_pitch: z(c.src_pitch),
            dst_x_in_bytes: z(c.dst_x_in_bytes),
            dst_y: z(c.dst_y),
            dst_memory_type: c.dst_memory_type,
            dst_host: c.dst_host,
            dst_device: c.dst_device.into(),
            dst_array: c.dst_array,
            dst_pitch: z(c.dst_pitch),
            width_in_bytes: z(c.width_in_bytes),
            height: z(c.height),
        }
    }
}

/// `CUDA_MEMCPY3D_v1`: [`CUDA_MEMCPY3D`] with 32-bit offsets, pitches and pointers.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMCPY3D_v1 {
    /// Source byte offset within a row.
    pub src_x_in_bytes: c_uint,
    /// Source row.
    pub src_y: c_uint,
    /// Source slice.
    pub src_z: c_uint,
    /// Source mipmap level.
    pub src_lod: c_uint,
    /// `CUmemorytype` of the source.
    pub src_memory_type: c_uint,
    /// Source host pointer.
    pub src_host: *const c_void,
    /// Source device pointer.
    pub src_device: CUdeviceptr_v1,
    /// Source array.
    pub src_array: Handle,
    /// Must be NULL.
    pub reserved0: *mut c_void,
    /// Source pitch.
    pub src_pitch: c_uint,
    /// Source rows per slice.
    pub src_height: c_uint,
    /// Destination byte offset within a row.
    pub dst_x_in_bytes: c_uint,
    /// Destination row.
    pub dst_y: c_uint,
    /// Destination slice.
    pub dst_z: c_uint,
    /// Destination mipmap level.
    pub dst_lod: c_uint,
    /// `CUmemorytype` of the destination.
    pub dst_memory_type: c_uint,
    /// Destination host pointer.
    pub dst_host: *mut c_void,
    /// Destination device pointer.
    pub dst_device: CUdeviceptr_v1,
    /// Destination array.
    pub dst_array: Handle,
    /// Must be NULL.
    pub reserved1: *mut c_void,
    /// Destination pitch.
    pub dst_pitch: c_uint,
    /// Destination rows per slice.
    pub dst_height: c_uint,
    /// Bytes per row.
    pub width_in_bytes: c_uint,
    /// Rows per slice.
    pub height: c_uint,
    /// Slices.
    pub depth: c_uint,
}

impl From<CUDA_MEMCPY3D_v1> for CUDA_MEMCPY3D {
    fn from(c: CUDA_MEMCPY3D_v1) -> Self {
        let z = |v: c_uint| v as usize;
        Self {
            src_x_in_bytes: z(c.src_x_in_bytes),
            src_y: z(c.src_y),
            src_z: z(c.src_z),
            src_lod: z(c.src_lod),
            src_memory_type: c.src_memory_type,
            src_host: c.src_host,
            src_device: c.src_device.into(),
            src_array: c.src_array,
            reserved0: c.reserved0,
            src_pitch: z(c.src_pitch),
            src_height: z(c.src_height),
            dst_x_in_bytes: z(c.dst_x_in_bytes),
            dst_y: z(c.dst_y),
            dst_z: z(c.dst_z),
            dst_lod: z(c.dst_lod),
            dst_memory_type: c.dst_memory_type,
            dst_host: c.dst_host,
            dst_device: c.dst_device.into(),
            dst_array: c.dst_array,
            reserved1: c.reserved1,
            dst_pitch: z(c.dst_pitch),
            dst_height: z(c.dst_height),
            width_in_bytes: z(c.width_in_bytes),
            height: z(c.height),
            depth: z(c.depth),
        }
    }
}

/// `CUDA_ARRAY_DESCRIPTOR_v1`: [`CUDA_ARRAY_DESCRIPTOR`] with 32-bit extents.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct CUDA_ARRAY_DESCRIPTOR_v1 {
    /// Width in elements.
    pub width: c_uint,
    /// Height (0: 1D).
    pub height: c_uint,
    /// `CUarray_format`.
    pub format: c_uint,
    /// Components per element.
    pub num_channels: c_uint,
}

impl From<CUDA_ARRAY_DESCRIPTOR_v1> for CUDA_ARRAY_DESCRIPTOR {
    fn from(d: CUDA_ARRAY_DESCRIPTOR_v1) -> Self {
        Self { width: d.width as usize, height: d.height as usize, format: d.format, num_channels: d.num_channels }
    }
}

/// `CUDA_ARRAY3D_DESCRIPTOR_v1`: [`CUDA_ARRAY3D_DESCRIPTOR`] with 32-bit extents.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct CUDA_ARRAY3D_DESCRIPTOR_v1 {
    /// Width in elements.
    pub width: c_uint,
    /// Height (0: 1D).
    pub height: c_uint,
    /// Depth, or layers.
    pub depth: c_uint,
    /// `CUarray_format`.
    pub format: c_uint,
    /// Components per element.
    pub num_channels: c_uint,
    /// `CUDA_ARRAY3D_*` flags.
    pub flags: c_uint,
}

impl From<CUDA_ARRAY3D_DESCRIPTOR_v1> for CUDA_ARRAY3D_DESCRIPTOR {
    fn from(d: CUDA_ARRAY3D_DESCRIPTOR_v1) -> Self {
        Self {
            width: d.width as usize,
            height: d.height as usize,
            depth: d.depth as usize,
            format: d.format,
            num_channels: d.num_channels,
            flags: d.flags,
        }
    }
}

/// Narrow a successor's array descriptor (extents fit: arrays are at most 65536 wide).
fn desc_v1(d: CUDA_ARRAY_DESCRIPTOR) -> CUDA_ARRAY_DESCRIPTOR_v1 {
    CUDA_ARRAY_DESCRIPTOR_v1 {
        width: clamp(d.width),
        height: clamp(d.height),
        format: d.format,
        num_channels: d.num_channels,
    }
}

/// `cuDeviceTotalMem` (32-bit ABI): VRAM bytes, saturated at 4 GiB - 1.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceTotalMem(bytes: *mut c_uint, dev: CUdevice) -> CUresult {
    guard(|| raw::put(bytes, clamp(through(|p| cuDeviceTotalMem_v2(p, dev))?)))
}

/// `cuMemGetInfo` (32-bit ABI): free and total VRAM, saturated at 4 GiB - 1.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetInfo(free: *mut c_uint, total: *mut c_uint) -> CUresult {
    guard(|| {
        let (mut f, mut t) = (0usize, 0usize);
        ok(cuMemGetInfo_v2(&mut f, &mut t))?;
        raw::put(free, clamp(f)).and_then(|()| raw::put(total, clamp(t)))
    })
}

/// Return an allocation made here if its pointer cannot be handed back.
fn hand_back(out: *mut CUdeviceptr_v1, p: CUdeviceptr, gpu: &UserDev, h: CtxHandle) -> Result<()> {
    narrow(p).and_then(|v| raw::put(out, v)).inspect_err(|_| {
        let _ = gpu.mem_free(h, p);
    })
}

/// `cuMemAlloc` (32-bit ABI): device memory at a pointer below 4 GiB.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAlloc(dptr: *mut CUdeviceptr_v1, bytes: c_uint) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        if dptr.is_null() || bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        let p = gpu.mem_alloc_in(h, bytes.into(), true)?;
        hand_back(dptr, p, &gpu, h)
    })
}

/// `cuMemAllocPitch` (32-bit ABI): as `cuMemAllocPitch_v2`, below 4 GiB.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAllocPitch(
    dptr: *mut CUdeviceptr_v1,
    pitch: *mut c_uint,
    width: c_uint,
    height: c_uint,
    elem: c_uint,
) -> CUresult {
    guard(|| {
        // The pitch fits: it is at most 2^31 (MAX_PITCH).
        let null = dptr.is_null() || pitch.is_null();
        crate::memory::alloc_pitch((width.into(), height.into(), elem), true, null, |p, pt| {
            raw::put(pitch, pt as c_uint).and_then(|()| raw::put(dptr, narrow(p)?))
        })
    })
}

/// `cuMemFree` (32-bit ABI).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFree(dptr: CUdeviceptr_v1) -> CUresult {
    cuMemFree_v2(dptr.into())
}

/// `cuMemGetAddressRange` (32-bit ABI): the allocation holding `dptr` (one below 4 GiB
/// ends there, so its base and size fit).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetAddressRange(
    pbase: *mut CUdeviceptr_v1,
    psize: *mut c_uint,
    dptr: CUdeviceptr_v1,
) -> CUresult {
    guard(|| {
        let (mut base, mut size) = (0, 0usize);
        ok(cuMemGetAddressRange_v2(&mut base, &mut size, dptr.into()))?;
        put_opt(pbase, narrow(base)?).and_then(|()| put_opt(psize, clamp(size)))
    })
}

/// `cuMemAllocHost` (32-bit ABI): pinned host memory, mapped below 4 GiB for the device.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAllocHost(pp: *mut *mut c_void, bytes: c_uint) -> CUresult {
    guard(|| crate::memory::host_alloc(pp, bytes as usize, 0, true))
}

/// `cuMemHostGetDevicePointer` (32-bit ABI): INVALID_VALUE for pinned memory mapped above
/// 4 GiB (allocated or registered through the 64-bit entry points).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostGetDevicePointer(pdptr: *mut CUdeviceptr_v1, p: *mut c_void, flags: c_uint) -> CUresult {
    guard(|| raw::put(pdptr, narrow(through(|d| cuMemHostGetDevicePointer_v2(d, p, flags))?)?))
}

/// `cuModuleGetGlobal` (32-bit ABI): module globals lie above 4 GiB, so a request for the
/// address is INVALID_VALUE; the size alone (`dptr` NULL) is answered.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetGlobal(
    dptr: *mut CUdeviceptr_v1,
    bytes: *mut c_uint,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        let (mut p, mut n) = (0, 0usize);
        ok(cuModuleGetGlobal_v2(&mut p, &mut n, module, name))?;
        if !dptr.is_null() {
            raw::put(dptr, narrow(p)?)?;
        }
        put_opt(bytes, clamp(n))
    })
}

/// Legacy copies and memsets: each widens its 32-bit arguments and calls its successor.
macro_rules! widen {
    ($($(#[$m:meta])* $old:ident($($a:ident: $t:ty),*) => $new:ident($($e:expr),*);)*) => {$(
        $(#[$m])*
        #[doc = concat!("`", stringify!($old), "` (32-bit ABI): `", stringify!($new), "` of the widened arguments.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $old($($a: $t),*) -> CUresult {
            $new($($e),*)
        }
    )*};
}

widen! {
    cuMemcpyHtoD(dst: CUdeviceptr_v1, src: *const c_void, n: c_uint) => cuMemcpyHtoD_v2(dst.into(), src, n as usize);
    cuMemcpyDtoH(dst: *mut c_void, src: CUdeviceptr_v1, n: c_uint) => cuMemcpyDtoH_v2(dst, src.into(), n as usize);
    cuMemcpyDtoD(dst: CUdeviceptr_v1, src: CUdeviceptr_v1, n: c_uint)
        => cuMemcpyDtoD_v2(dst.into(), src.into(), n as usize);
    cuMemcpyHtoDAsync(dst: CUdeviceptr_v1, src: *const c_void, n: c_uint, s: Handle)
        => cuMemcpyHtoDAsync_v2(dst.into(), src, n as usize, s);
    cuMemcpyDtoHAsync(dst: *mut c_void, src: CUdeviceptr_v1, n: c_uint, s: Handle)
        => cuMemcpyDtoHAsync_v2(dst, src.into(), n as usize, s);
    cuMemcpyDtoDAsync(dst: CUdeviceptr_v1, src: CUdeviceptr_v1, n: c_uint, s: Handle)
        => cuMemcpyDtoDAsync_v2(dst.into(), src.into(), n as usize, s);
    cuMemcpyDtoA(dst: Handle, off: c_uint, src: CUdeviceptr_v1, n: c_uint)
        => cuMemcpyDtoA_v2(dst, off as usize, src.into(), n as usize);
    cuMemcpyAtoD(dst: CUdeviceptr_v1, src: Handle, off: c_uint, n: c_uint)
        => cuMemcpyAtoD_v2(dst.into(), src, off as usize, n as usize);
    cuMemcpyHtoA(dst: Handle, off: c_uint, src: *const c_void, n: c_uint)
        => cuMemcpyHtoA_v2(dst, off as usize, src, n as usize);
    cuMemcpyAtoH(dst: *mut c_void, src: Handle, off: c_uint, n: c_uint)
        => cuMemcpyAtoH_v2(dst, src, off as usize, n as usize);
    cuMemcpyAtoA(dst: Handle, doff: c_uint, src: Handle, soff: c_uint, n: c_uint)
        => cuMemcpyAtoA_v2(dst, doff as usize, src, soff as usize, n as usize);
    cuMemcpyHtoAAsync(dst: Handle, off: c_uint, src: *const c_void, n: c_uint, s: Handle)
        => cuMemcpyHtoAAsync_v2(dst, off as usize, src, n as usize, s);
    cuMemcpyAtoHAsync(dst: *mut c_void, src: Handle, off: c_uint, n: c_uint, s: Handle)
        => cuMemcpyAtoHAsync_v2(dst, src, off as usize, n as usize, s);
    cuMemsetD8(dst: CUdeviceptr_v1, v: u8, n: c_uint) => cuMemsetD8_v2(dst.into(), v, n as usize);
    cuMemsetD16(dst: CUdeviceptr_v1, v: u16, n: c_uint) => cuMemsetD16_v2(dst.into(), v, n as usize);
    cuMemsetD32(dst: CUdeviceptr_v1, v: c_uint, n: c_uint) => cuMemsetD32_v2(dst.into(), v, n as usize);
    cuMemsetD2D8(dst: CUdeviceptr_v1, pitch: c_uint, v: u8, w: c_uint, h: c_uint)
        => cuMemsetD2D8_v2(dst.into(), pitch as usize, v, w as usize, h as usize);
    cuMemsetD2D16(dst: CUdeviceptr_v1, pitch: c_uint, v: u16, w: c_uint, h: c_uint)
        => cuMemsetD2D16_v2(dst.into(), pitch as usize, v, w as usize, h as usize);
    cuMemsetD2D32(dst: CUdeviceptr_v1, pitch: c_uint, v: c_uint, w: c_uint, h: c_uint)
        => cuMemsetD2D32_v2(dst.into(), pitch as usize, v, w as usize, h as usize);
}

/// Call `f` with the 32-bit descriptor at `p` widened (INVALID_VALUE for NULL).
fn with_wide<V: Copy + Into<W>, W>(p: *const V, f: impl FnOnce(*const W) -> CUresult) -> CUresult {
    let mut r = 0;
    let read = guard(|| {
        let w: W = raw::get(p)?.into();
        r = f(&w);
        Ok(())
    });
    if read != 0 { read } else { r }
}

/// `cuMemcpy2D` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy2D(copy: *const CUDA_MEMCPY2D_v1) -> CUresult {
    with_wide(copy, |c| cuMemcpy2D_v2(c))
}

/// `cuMemcpy2DUnaligned` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy2DUnaligned(copy: *const CUDA_MEMCPY2D_v1) -> CUresult {
    with_wide(copy, |c| cuMemcpy2DUnaligned_v2(c))
}

/// `cuMemcpy2DAsync` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy2DAsync(copy: *const CUDA_MEMCPY2D_v1, s: Handle) -> CUresult {
    with_wide(copy, |c| cuMemcpy2DAsync_v2(c, s))
}

/// `cuMemcpy3D` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy3D(copy: *const CUDA_MEMCPY3D_v1) -> CUresult {
    with_wide(copy, |c| cuMemcpy3D_v2(c))
}

/// `cuMemcpy3DAsync` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpy3DAsync(copy: *const CUDA_MEMCPY3D_v1, s: Handle) -> CUresult {
    with_wide(copy, |c| cuMemcpy3DAsync_v2(c, s))
}

/// `cuArrayCreate` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuArrayCreate(out: *mut Handle, desc: *const CUDA_ARRAY_DESCRIPTOR_v1) -> CUresult {
    with_wide(desc, |d| cuArrayCreate_v2(out, d))
}

/// `cuArray3DCreate` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuArray3DCreate(out: *mut Handle, desc: *const CUDA_ARRAY3D_DESCRIPTOR_v1) -> CUresult {
    with_wide(desc, |d| cuArray3DCreate_v2(out, d))
}

/// `cuArrayGetDescriptor` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuArrayGetDescriptor(out: *mut CUDA_ARRAY_DESCRIPTOR_v1, a: Handle) -> CUresult {
    guard(|| {
        let d = through(|p: *mut CUDA_ARRAY_DESCRIPTOR| cuArrayGetDescriptor_v2(p, a))?;
        raw::put(out, desc_v1(d))
    })
}

/// `cuArray3DGetDescriptor` (32-bit ABI descriptor).
#[unsafe(no_mangle)]
pub extern "C" fn cuArray3DGetDescriptor(out: *mut CUDA_ARRAY3D_DESCRIPTOR_v1, a: Handle) -> CUresult {
    guard(|| {
        let d = through(|p: *mut CUDA_ARRAY3D_DESCRIPTOR| cuArray3DGetDescriptor_v2(p, a))?;
        let v = CUDA_ARRAY3D_DESCRIPTOR_v1 {
            width: clamp(d.width),
            height: clamp(d.height),
            depth: clamp(d.depth),
            format: d.format,
            num_channels: d.num_channels,
            flags: d.flags,
        };
        raw::put(out, v)
    })
}

/// `cuTexRefSetAddress` (32-bit ABI).
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetAddress(offset: *mut c_uint, r: Handle, ptr: CUdeviceptr_v1, bytes: c_uint) -> CUresult {
    guard(|| {
        let off = through(|o| cuTexRefSetAddress_v2(o, r, ptr.into(), bytes as usize))?;
        put_opt(offset, clamp(off))
    })
}

/// `cuTexRefGetAddress` (32-bit ABI): INVALID_VALUE for memory above 4 GiB.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetAddress(out: *mut CUdeviceptr_v1, r: Handle) -> CUresult {
    guard(|| raw::put(out, narrow(through(|p| cuTexRefGetAddress_v2(p, r))?)?))
}

/// `cuTexRefSetAddress2D` (32-bit ABI descriptor and pointer).
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetAddress2D(
    r: Handle,
    desc: *const CUDA_ARRAY_DESCRIPTOR_v1,
    ptr: CUdeviceptr_v1,
    pitch: c_uint,
) -> CUresult {
    with_wide(desc, |d| cuTexRefSetAddress2D_v3(r, d, ptr.into(), pitch as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn descriptors_have_the_32_bit_layout() {
        // x86-64: 4-byte fields, 8-byte pointers aligned to 8.
        assert_eq!(size_of::<CUDA_ARRAY_DESCRIPTOR_v1>(), 16);
        assert_eq!(size_of::<CUDA_ARRAY3D_DESCRIPTOR_v1>(), 24);
        assert_eq!(offset_of!(CUDA_MEMCPY2D_v1, src_host), 16);
        assert_eq!(offset_of!(CUDA_MEMCPY2D_v1, src_array), 32);
        assert_eq!(offset_of!(CUDA_MEMCPY2D_v1, dst_host), 56);
        assert_eq!(size_of::<CUDA_MEMCPY2D_v1>(), 96);
        assert_eq!(offset_of!(CUDA_MEMCPY3D_v1, src_host), 24);
        assert_eq!(offset_of!(CUDA_MEMCPY3D_v1, src_pitch), 56);
        assert_eq!(offset_of!(CUDA_MEMCPY3D_v1, dst_host), 88);
        assert_eq!(size_of::<CUDA_MEMCPY3D_v1>(), 144);
    }

    #[test]
    fn sizes_saturate_and_pointers_narrow() {
        assert_eq!(clamp(5 << 30), u32::MAX);
        assert_eq!(clamp(7), 7);
        assert_eq!(narrow(0x1000_0000), Ok(0x1000_0000));
        assert_eq!(narrow(0x2_0000_0000), Err(CuError::InvalidValue));
    }
}
