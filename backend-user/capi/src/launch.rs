//! Launches: function attributes, cuLaunchKernel, and the legacy launch API
//! (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid).

use crate::state::{STATS, gpu_of, guard, key};
use crate::{CUresult, Handle, apitrace, raw, stream};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserDev;
use runtime_core::FuncAttributes;
use runtime_core::FuncHandle;
use runtime_core::LaunchConfig;
use runtime_core::Params;
use runtime_core::StreamHandle;
use std::ffi::c_float;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The runtime and context of a function handle (the runtime checks it on use).
pub(crate) fn func(f: Handle) -> Result<(Arc<UserDev>, CtxHandle, FuncHandle)> {
    let fh = FuncHandle(key(f));
    Ok((gpu_of(fh.0)?, fh.ctx(), fh))
}

/// A launch's function and stream: (runtime, context, function, stream). A stream of
/// another context than the function's is CUDA_ERROR_INVALID_HANDLE (the runtime checks
/// both handles against the function's context).
fn launch_target(f: Handle, s: Handle) -> Result<(Arc<UserDev>, CtxHandle, FuncHandle, StreamHandle)> {
    let (gpu, h, fh) = func(f)?;
    let (_, sh_ctx, sh) = stream::stream_of(s)?;
    if sh_ctx != h {
        return Err(CuError::InvalidHandle);
    }
    Ok((gpu, h, fh, sh))
}

pub(crate) fn attrs(f: Handle) -> Result<FuncAttributes> {
    let (gpu, h, f) = func(f)?;
    gpu.func_attributes(h, f)
}

/// cuFuncGetAttribute (`CUfunction_attribute`); others get CUDA_ERROR_INVALID_VALUE.
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncGetAttribute(pi: *mut c_int, attrib: c_int, f: Handle) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        use crate::enums::func_attr::*;
        let v = match attrib {
            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => a.max_threads,
            CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => a.shared_bytes,
            CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES => 0, // module-level .const
            CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => a.local_bytes,
            CU_FUNC_ATTRIBUTE_NUM_REGS => a.regs,
            CU_FUNC_ATTRIBUTE_PTX_VERSION | CU_FUNC_ATTRIBUTE_BINARY_VERSION => 70,
            CU_FUNC_ATTRIBUTE_CACHE_MODE_CA => 0,
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => a.max_dynamic_shared,
            CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => a.preferred_carveout as u32 as _,
            // Thread block clusters: the kernel's shape (0 when it has none).
            CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET => a.cluster_must_be_set as u32,
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH => a.cluster.map_or(0, |c| c[0]),
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT => a.cluster.map_or(0, |c| c[1]),
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => a.cluster.map_or(0, |c| c[2]),
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => a.non_portable_cluster as u32,
            CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => 0,
            _ => return Err(CuError::InvalidValue),
        };
        raw::put(pi, v as c_int)
    })
}

/// cuFuncSetAttribute: CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (a kernel's opt-in
/// to more than 48 KiB of shared memory per block, up to the device's
/// CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) and
/// CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (a hint, -1 to 100 percent: each
/// launch's L1 is what its carveout leaves of the SM's unified memory) and
/// CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (clusters of 9 to 16 blocks); the
/// cluster scheduling preference is a hint (accepted); setting a required cluster shape at
/// run time is CUDA_ERROR_NOT_SUPPORTED (a kernel's `__cluster_dims__` is read); other
/// attributes are read-only (CUDA_ERROR_INVALID_VALUE).
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncSetAttribute(f: Handle, attrib: c_int, value: c_int) -> CUresult {
    guard(|| {
        let (gpu, h, f) = func(f)?;
        use crate::enums::func_attr::*;
        match attrib {
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
                let bytes = u32::try_from(value).map_err(|_| CuError::InvalidValue)?;
                gpu.func_set_max_dynamic_shared(h, f, bytes)
            }
            CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => gpu.func_set_preferred_carveout(h, f, value),
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => gpu.func_set_non_portable_cluster(h, f, value != 0),
            CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => Ok(()),
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
            | CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT
            | CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => Err(CuError::NotSupported),
            _ => Err(CuError::InvalidValue),
        }
    })
}

pub(crate) fn launched(r: Result<runtime_core::Fence>) -> Result<()> {
    r?;
    STATS.launches.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

pub(crate) const LAUNCH_PARAM_END: usize = 0;
pub(crate) const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
pub(crate) const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

/// cuLaunchKernel on the default stream: arguments from `kernelParams` (one pointer per
/// parameter, sizes from the PTX signature) or `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER and
/// _SIZE, ended by CU_LAUNCH_PARAM_END), not both.
#[unsafe(no_mangle)]
pub extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    apitrace::call("cuLaunchKernel", Some(stream), || {
        guard(|| launch_kernel(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, extra, (false, None, None)))
    })
}

/// cuLaunchCooperativeKernel: a launch whose blocks are all resident at once
/// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE otherwise), given the grid workspace that
/// cooperative groups' grid barrier uses (`%envreg1:2`), arguments from `kernelParams`.
#[unsafe(no_mangle)]
pub extern "C" fn cuLaunchCooperativeKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
) -> CUresult {
    apitrace::call("cuLaunchCooperativeKernel", Some(stream), || {
        guard(|| {
            launch_kernel(
                f,
                [gx, gy, gz],
                [bx, by, bz],
                shared,
                stream,
                params,
                std::ptr::null_mut(),
                (true, None, None),
            )
        })
    })
}

/// `CUlaunchConfig`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CuLaunchConfig {
    pub(crate) grid: [c_uint; 3],
    pub(crate) block: [c_uint; 3],
    pub(crate) shared: c_uint,
    stream: Handle,
    attrs: *const CuLaunchAttribute,
    num_attrs: c_uint,
}

impl CuLaunchConfig {
    /// The cluster shape its CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION gives, if any.
    pub(crate) fn cluster(&self) -> Result<Option<[u32; 3]>> {
        let mut cluster = None;
        for k in 0..self.num_attrs as usize {
            let a = raw::get(self.attrs.wrapping_add(k))?;
            if a.id == 4 {
                cluster = Some([a.val[0] as u32, a.val[1] as u32, a.val[2] as u32]);
            }
        }
        Ok(cluster)
    }
}

/// `CUlaunchAttribute`: an id and a 64-byte value (the union's first words).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CuLaunchAttribute {
    id: c_uint,
    pad: c_uint,
    val: [c_int; 16],
}

/// cuLaunchKernelEx: a launch with attributes. Cooperative launches are checked as
/// cuLaunchCooperativeKernel's; a preferred shared-memory carveout (0 to 100 percent) sets
/// this launch's L1 and shared-memory split in place of the kernel's; a cluster dimension
/// launches thread block clusters (the runtime checks the shape); the hints the model
/// has no mechanism for (access policy window, synchronization policy, cluster scheduling,
/// priority, memory synchronization domains, preferred cluster shape) are accepted;
/// programmatic dependent launches, completion events and device-updatable nodes are
/// CUDA_ERROR_NOT_SUPPORTED; an unknown attribute is CUDA_ERROR_INVALID_VALUE.
#[unsafe(no_mangle)]
pub extern "C" fn cuLaunchKernelEx(
    config: *const CuLaunchConfig,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let stream = raw::get(config).map_or(std::ptr::null_mut(), |c| c.stream);
    apitrace::call("cuLaunchKernelEx", Some(stream), || {
        guard(|| {
            let c = raw::get(config)?;
            let (mut cooperative, mut carveout, mut cluster) = (false, None, None);
            for k in 0..c.num_attrs as usize {
                let a = raw::get(c.attrs.wrapping_add(k))?;
                match a.id {
                    0 | 1 | 3 | 5 | 8 | 9 | 10 | 11 => {}
                    2 => cooperative = a.val[0] != 0,
                    4 => cluster = Some([a.val[0] as u32, a.val[1] as u32, a.val[2] as u32]),
                    // -1: the kernel's own carveout.
                    14 if a.val[0] == -1 => {}
                    14 => {
                        let p = u32::try_from(a.val[0]).ok().filter(|&p| p <= 100);
                        carveout = Some(p.ok_or(CuError::InvalidValue)?);
                    }
                    6 | 7 | 12 | 13 => return Err(CuError::NotSupported),
                    _ => return Err(CuError::InvalidValue),
                }
            }
            launch_kernel(f, c.grid, c.block, c.shared, c.stream, params, extra, (cooperative, carveout, cluster))
        })
    })
}

/// The launch of [`cuLaunchKernel`], [`cuLaunchCooperativeKernel`] and [`cuLaunchKernelEx`].
#[allow(clippy::too_many_arguments)]
fn launch_kernel(
    f: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    (cooperative, carveout, cluster): (bool, Option<u32>, Option<[u32; 3]>),
) -> Result<()> {
    let (gpu, h, fh, sh) = launch_target(f, stream)?;
    let mut cfg = LaunchConfig::new(grid, block).shared(shared).on(sh);
    cfg.cooperative = cooperative;
    cfg.carveout = carveout;
    cfg.cluster = cluster;
    if !params.is_null() && !extra.is_null() {
        return Err(CuError::InvalidValue);
    }
    let a = gpu.func_attributes(h, fh)?;
    if !extra.is_null() {
        let (mut buf, mut size): (*const u8, Option<usize>) = (std::ptr::null(), None);
        for i in (0..).step_by(2) {
            if i > 64 {
                return Err(CuError::InvalidValue);
            }
            match raw::get(extra.wrapping_add(i))?.addr() {
                LAUNCH_PARAM_END => break,
                LAUNCH_PARAM_BUFFER_POINTER => buf = raw::get(extra.wrapping_add(i + 1))?.cast(),
                LAUNCH_PARAM_BUFFER_SIZE => {
                    size = Some(raw::get(raw::get(extra.wrapping_add(i + 1))?.cast::<usize>())?)
                }
                _ => return Err(CuError::InvalidValue),
            }
        }
        let size = size.ok_or(CuError::InvalidValue)?;
        if size != a.param_bytes as usize {
            return Err(CuError::InvalidValue);
        }
        return launched(gpu.launch(h, fh, &cfg, Params::Buffer(raw::bytes(buf, size)?)));
    }
    if a.params.is_empty() {
        return launched(gpu.launch(h, fh, &cfg, Params::Buffer(&[])));
    }
    if params.is_null() {
        return Err(CuError::InvalidValue);
    }
    let mut args = Vec::with_capacity(a.params.len());
    for (i, &(_, size)) in a.params.iter().enumerate() {
        args.push(raw::bytes(raw::get(params.wrapping_add(i))?.cast(), size as usize)?);
    }
    launched(gpu.launch(h, fh, &cfg, Params::Args(&args)))
}

/// cuFuncSetBlockShape (legacy launch API).
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncSetBlockShape(f: Handle, x: c_int, y: c_int, z: c_int) -> CUresult {
    guard(|| {
        let (gpu, h, fh) = func(f)?;
        let d = |v: c_int| u32::try_from(v).map_err(|_| CuError::InvalidValue);
        gpu.func_set_block_shape(h, fh, [d(x)?, d(y)?, d(z)?])
    })
}

/// cuFuncSetSharedSize (legacy): dynamic shared memory bytes.
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncSetSharedSize(f: Handle, bytes: c_uint) -> CUresult {
    guard(|| {
        let (gpu, h, fh) = func(f)?;
        gpu.func_set_shared_size(h, fh, bytes)
    })
}

/// cuParamSetSize (legacy).
#[unsafe(no_mangle)]
pub extern "C" fn cuParamSetSize(f: Handle, bytes: c_uint) -> CUresult {
    guard(|| {
        let (gpu, h, fh) = func(f)?;
        gpu.param_set_size(h, fh, bytes)
    })
}

/// cuParamSeti (legacy): 4 bytes at `offset`.
#[unsafe(no_mangle)]
pub extern "C" fn cuParamSeti(f: Handle, offset: c_int, v: c_uint) -> CUresult {
    guard(|| param_set(f, offset, &v.to_le_bytes()))
}

/// cuParamSetf (legacy): a float at `offset`.
#[unsafe(no_mangle)]
pub extern "C" fn cuParamSetf(f: Handle, offset: c_int, v: c_float) -> CUresult {
    guard(|| param_set(f, offset, &v.to_le_bytes()))
}

/// cuParamSetv (legacy): `bytes` raw bytes at `offset`.
#[unsafe(no_mangle)]
pub extern "C" fn cuParamSetv(f: Handle, offset: c_int, p: *mut c_void, bytes: c_uint) -> CUresult {
    guard(|| param_set(f, offset, raw::bytes(p.cast(), bytes as usize)?))
}

pub(crate) fn param_set(f: Handle, offset: c_int, bytes: &[u8]) -> Result<()> {
    let (gpu, h, fh) = func(f)?;
    let off = u32::try_from(offset).map_err(|_| CuError::InvalidValue)?;
    gpu.param_set(h, fh, off, bytes)
}

/// cuLaunchGrid (legacy): a `w`×`h` grid of the shape set with cuFuncSetBlockShape.
#[unsafe(no_mangle)]
pub extern "C" fn cuLaunchGrid(f: Handle, w: c_int, hgt: c_int) -> CUresult {
    guard(|| {
        let (gpu, h, fh) = func(f)?;
        let d = |v: c_int| u32::try_from(v).map_err(|_| CuError::InvalidValue);
        launched(gpu.launch_grid(h, fh, [d(w)?, d(hgt)?]))
    })
}

/// cuLaunch (legacy): a 1×1 grid.
#[unsafe(no_mangle)]
pub extern "C" fn cuLaunch(f: Handle) -> CUresult {
    cuLaunchGrid(f, 1, 1)
}
