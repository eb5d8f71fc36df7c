//! What compilers emit around a CUDA program, and kernel launches. At start-up the
//! program registers its fat binary (`__cudaRegisterFatBinary`), each kernel by its host
//! stub and device name (`__cudaRegisterFunction`) and each device variable by its host
//! shadow (`__cudaRegisterVar`). `kernel<<<grid, block, shared, stream>>>(args)` pushes
//! the configuration (`__cudaPushCallConfiguration`) and calls the stub, which pops it
//! and calls `cudaLaunchKernel` with the stub's address and the arguments' addresses.
//! Modules are loaded from the fat binary in each context on first use.

use crate::driver::Handle;
use crate::error::{self, Status, codes::*};
use crate::{api, put, raw, state};
use std::cell::RefCell;
use std::ffi::{CString, c_char, c_int, c_uint, c_void};

/// `dim3` (and `uint3`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// x.
    pub x: c_uint,
    /// y.
    pub y: c_uint,
    /// z.
    pub z: c_uint,
}

/// A pushed launch configuration.
#[derive(Clone, Copy)]
struct Config {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: usize,
}

thread_local! {
    /// Configurations pushed by `<<<>>>` and not yet popped by a stub.
    static CONFIGS: RefCell<Vec<Config>> = const { RefCell::new(Vec::new()) };
    /// The pre-9.2 path: configurations from `cudaConfigureCall`, each with the argument
    /// bytes `cudaSetupArgument` placed, until `cudaLaunch` takes the newest.
    static LEGACY: RefCell<Vec<(Config, Vec<u8>)>> = const { RefCell::new(Vec::new()) };
}

/// The most argument bytes a kernel takes (CUDA's 4 KiB parameter space; 32 KiB since
/// CUDA 12.1 on Volta and later).
const MAX_ARG_BYTES: usize = 32764;

/// `__cudaRegisterFatBinary`: remember the container; the handle returned is what the
/// other registrations name it by.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterFatBinary(wrapper: *mut c_void) -> *mut *mut c_void {
    let image = raw::fatbin(wrapper as *const u8).map(<[u8]>::to_vec);
    let handle = Box::into_raw(Box::new(wrapper)); // a unique address per registration
    state::registry().fatbins.insert(handle as usize, image);
    handle
}

/// `__cudaRegisterFatBinaryEnd`: nothing to do (modules load on first use).
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

/// `__cudaUnregisterFatBinary`: forget the container and what was registered with it
/// (the modules stay with their contexts until those go).
#[unsafe(no_mangle)]
pub extern "C" fn __cudaUnregisterFatBinary(handle: *mut *mut c_void) {
    let mut r = state::registry();
    let fb = handle as usize;
    r.fatbins.remove(&fb);
    r.functions.retain(|_, (f, _)| *f != fb);
    r.vars.retain(|_, (f, _)| *f != fb);
}

/// `__cudaRegisterFunction`: kernel `deviceName` of fat binary `handle` launches through
/// host stub `hostFun`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_char,
    _device_fun: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut Dim3,
    _bid: *mut Dim3,
    _bdim: *mut Dim3,
    _gdim: *mut Dim3,
    _wsize: *mut c_int,
) {
    if let Some(name) = raw::cstr(device_name) {
        let name = CString::from(name);
        state::registry().functions.insert(host_fun as usize, (handle as usize, name));
    }
}

/// `__cudaRegisterVar`: device variable `deviceName` of fat binary `handle` has host
/// shadow `hostVar` (cudaMemcpyToSymbol and friends name it by that address).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    size: usize,
    _constant: c_int,
    _global: c_int,
) {
    if let Some(name) = raw::cstr(device_name) {
        let name = CString::from(name);
        let host = host_var.expose_provenance();
        let mut r = state::registry();
        r.vars.insert(host, (handle as usize, name));
        r.var_sizes.insert(host, size);
        state::set_managed_shadows(&mut r);
    }
}

/// Say once on stderr that a registration of `kind` (named `name`) is not served: `why`.
fn unserved_name(kind: &str, name: *const c_char, why: &str) {
    let name = raw::cstr(name).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
    unserved(&format!("{kind} `{name}`: {why}"));
}

/// Say once on stderr that a registration names what this runtime does not serve.
fn unserved(what: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if !said.iter().any(|s| s == what) {
        eprintln!("rgdev: libcudart: {what}");
        said.push(what.to_string());
    }
}

/// `__cudaRegisterManagedVar`: a `__managed__` variable as nvcc registers it: the PTX
/// declares it `.attribute(.managed)`, so the loader gives it managed memory, and the
/// runtime writes its address into the host pointer `host_ptr` when the module is loaded
/// (at the first use of the fat binary, or `__cudaInitModule`).
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    host_ptr: *mut *mut c_void,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _size: usize,
    _constant: c_int,
) {
    if let Some(name) = raw::cstr(device_name).filter(|_| !host_ptr.is_null()) {
        let name = CString::from(name);
        state::registry().managed_vars.insert(host_ptr.expose_provenance(), (handle as usize, name));
    }
}

/// `__cudaInitModule`: load the fat binary's module into the current context now (nvcc's
/// host code calls it before it first reads a managed variable's pointer). 1 when loaded.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaInitModule(handle: *mut *mut c_void) -> c_char {
    c_char::from(state::init_module(handle as usize).is_ok())
}

/// `__rgdevRegisterManagedData`: the section `[start, end)` of an executable or library
/// that holds its `__managed__` variables (`cuda_runtime.h` registers it from each
/// translation unit of CUDA C++; clang leaves the variables' storage in the program's
/// data, and the runtime maps those pages for the device). The same section registered
/// again is ignored.
#[unsafe(no_mangle)]
pub extern "C" fn __rgdevRegisterManagedData(start: *mut c_void, end: *mut c_void) {
    let (s, e) = (start.expose_provenance(), end.expose_provenance());
    if s == 0 || e <= s {
        return;
    }
    let mut r = state::registry();
    if !r.managed_data.contains(&(s, e)) {
        r.managed_data.push((s, e));
        state::set_managed_shadows(&mut r);
    }
}

/// `__cudaRegisterTexture`: a texture reference (CUDA 12 removed them from the language;
/// programs built by older compilers register them). Not served; said once.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterTexture(
    _handle: *mut *mut c_void,
    _host_ref: *const c_void,
    _device_address: *mut *const c_void,
    device_name: *const c_char,
    _dim: c_int,
    _norm: c_int,
    _ext: c_int,
) {
    unserved_name("texture reference", device_name, "texture references are not supported (use texture objects)");
}

/// `__cudaRegisterSurface`: a surface reference, as `__cudaRegisterTexture`.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterSurface(
    _handle: *mut *mut c_void,
    _host_ref: *const c_void,
    _device_address: *mut *const c_void,
    device_name: *const c_char,
    _dim: c_int,
    _ext: c_int,
) {
    unserved_name("surface reference", device_name, "surface references are not supported (use surface objects)");
}

/// `__cudaPushCallConfiguration`: `<<<grid, block, shared, stream>>>`. Returns 0.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaPushCallConfiguration(grid: Dim3, block: Dim3, shared: usize, stream: *mut c_void) -> c_uint {
    CONFIGS.with(|c| c.borrow_mut().push(Config { grid, block, shared, stream: stream as usize }));
    0
}

/// `__cudaPopCallConfiguration`: the stub takes the configuration back.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> Status {
    let Some(c) = CONFIGS.with(|c| c.borrow_mut().pop()) else { return cudaErrorMissingConfiguration };
    let ok = put(grid, c.grid).and(put(block, c.block)).and(put(shared, c.shared));
    let ok = ok.and(put(stream, c.stream as *mut c_void));
    ok.err().unwrap_or(cudaSuccess)
}

/// `cudaConfigureCall` (CUDA before 9.2, and clang when it assumes such a CUDA):
/// `<<<grid, block, shared, stream>>>` before the stub sets up its arguments.
#[unsafe(no_mangle)]
pub extern "C" fn cudaConfigureCall(grid: Dim3, block: Dim3, shared: usize, stream: Handle) -> Status {
    api(|| {
        state::driver()?;
        LEGACY.with(|l| l.borrow_mut().push((Config { grid, block, shared, stream: stream as usize }, Vec::new())));
        Ok(())
    })
}

/// `cudaSetupArgument`: `size` bytes at `arg` become the kernel's argument bytes at
/// `offset` of the newest configuration.
#[unsafe(no_mangle)]
pub extern "C" fn cudaSetupArgument(arg: *const c_void, size: usize, offset: usize) -> Status {
    api(|| {
        let end = offset.checked_add(size).filter(|&e| e <= MAX_ARG_BYTES).ok_or(cudaErrorInvalidValue)?;
        let bytes = raw::bytes(arg.cast(), size).ok_or(cudaErrorInvalidValue)?;
        LEGACY.with(|l| {
            let mut l = l.borrow_mut();
            let (_, buf) = l.last_mut().ok_or(cudaErrorMissingConfiguration)?;
            if buf.len() < end {
                buf.resize(end, 0);
            }
            buf[offset..end].copy_from_slice(bytes);
            Ok(())
        })
    })
}

/// `cudaLaunch`: launch the kernel registered for host stub `func` with the newest
/// configuration and its argument bytes (the driver's CU_LAUNCH_PARAM_BUFFER_POINTER).
#[unsafe(no_mangle)]
pub extern "C" fn cudaLaunch(func: *const c_void) -> Status {
    api(|| {
        let (c, mut buf) = LEGACY.with(|l| l.borrow_mut().pop()).ok_or(cudaErrorMissingConfiguration)?;
        let mut size = buf.len();
        let mut extra: [*mut c_void; 5] = [
            core::ptr::without_provenance_mut(1), // CU_LAUNCH_PARAM_BUFFER_POINTER
            buf.as_mut_ptr().cast(),
            core::ptr::without_provenance_mut(2), // CU_LAUNCH_PARAM_BUFFER_SIZE
            (&mut size as *mut usize).cast(),
            core::ptr::null_mut(), // CU_LAUNCH_PARAM_END
        ];
        let extra = if size == 0 { core::ptr::null_mut() } else { extra.as_mut_ptr() };
        launch(func, c.grid, c.block, core::ptr::null_mut(), extra, c.shared, c.stream as Handle)
    })
}

/// Shared memory a block may have without opting in (cudaDevAttrMaxSharedMemoryPerBlock).
const DEFAULT_SHARED_PER_BLOCK: usize = 48 * 1024;

/// Check a configuration as CUDA does before launching: every dimension at least 1,
/// within the device's limits (cudaErrorInvalidConfiguration).
fn check_config(grid: Dim3, block: Dim3) -> Result<(), Status> {
    let [threads, bx, by, bz, gx, gy, gz] = state::launch_limits()?;
    let b = [block.x as u64, block.y as u64, block.z as u64];
    let g = [grid.x as u64, grid.y as u64, grid.z as u64];
    let bad = b.iter().chain(&g).any(|&v| v == 0)
        || b.iter().zip([bx, by, bz]).any(|(&v, max)| v > max)
        || g.iter().zip([gx, gy, gz]).any(|(&v, max)| v > max)
        || b.iter().product::<u64>() > threads;
    if bad { Err(cudaErrorInvalidConfiguration) } else { Ok(()) }
}

/// `cudaLaunchKernel`: launch the kernel registered for host stub `func`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaLaunchKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Handle,
) -> Status {
    api(|| launch(func, grid, block, args, core::ptr::null_mut(), shared, stream))
}

/// Launch the kernel registered for host stub `func`, its arguments as the driver
/// takes them (`kernelParams` or `extra`).
fn launch(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    extra: *mut *mut c_void,
    shared: usize,
    stream: Handle,
) -> Result<(), Status> {
    launch_as(func, grid, block, args, extra, shared, stream, (false, None, None))
}

/// [`launch`], cooperative (cuLaunchCooperativeKernel) or not.
#[allow(clippy::too_many_arguments)]
fn launch_as(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    extra: *mut *mut c_void,
    shared: usize,
    stream: Handle,
    (cooperative, carveout, cluster): (bool, Option<c_int>, Option<[c_uint; 3]>),
) -> Result<(), Status> {
    let d = state::driver()?;
    let f = state::kernel(func as usize)?;
    check_config(grid, block)?;
    if shared > 0 {
        // Beyond 48 KiB a kernel must opt in (cudaFuncAttributeMaxDynamicSharedMemorySize).
        let set = state::registry().func_prefs.get(&(func as usize)).and_then(|p| p.max_dynamic_shared);
        let limit = match set {
            Some(v) => v as usize,
            None => {
                let mut stat = 0;
                error::check(d.cuFuncGetAttribute(&mut stat, 1, f))?;
                DEFAULT_SHARED_PER_BLOCK.saturating_sub(stat as usize)
            }
        };
        if shared > limit {
            return Err(cudaErrorInvalidValue);
        }
    }
    let shared = u32::try_from(shared).map_err(|_| cudaErrorInvalidValue)?;
    let r = if carveout.is_some() || cluster.is_some() {
        // A launch's own carveout or cluster shape: the driver's cuLaunchKernelEx with the
        // attributes.
        use crate::driver::{CuLaunchAttribute, CuLaunchConfig};
        let attr = |id: c_uint, v: &[c_int]| {
            let mut val = [0; 16];
            val[..v.len()].copy_from_slice(v);
            CuLaunchAttribute { id, pad: 0, val }
        };
        let mut attrs = vec![attr(2, &[cooperative as c_int])];
        if let Some(p) = carveout {
            attrs.push(attr(14, &[p]));
        }
        if let Some(c) = cluster {
            attrs.push(attr(4, &c.map(|d| d as c_int)));
        }
        let cfg = CuLaunchConfig {
            grid: [grid.x, grid.y, grid.z],
            block: [block.x, block.y, block.z],
            shared,
            stream,
            attrs: attrs.as_ptr(),
            num_attrs: attrs.len() as c_uint,
        };
        d.cuLaunchKernelEx(&cfg, f, args, extra)
    } else if cooperative {
        d.cuLaunchCooperativeKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, stream, args)
    } else {
        d.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, stream, args, extra)
    };
    error::check(r).map_err(|e| if e == cudaErrorInvalidValue { cudaErrorInvalidConfiguration } else { e })
}

/// `cudaGetFuncBySymbol`: the Driver API function (`CUfunction`) behind the kernel
/// registered for host stub `func`, in the current context.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetFuncBySymbol(f: *mut Handle, func: *const c_void) -> Status {
    api(|| put(f, state::kernel(func as usize)?))
}

/// `struct cudaFuncAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct FuncAttributes {
    /// Static shared memory, bytes.
    pub sharedSizeBytes: usize,
    /// Constant memory, bytes.
    pub constSizeBytes: usize,
    /// Local memory per thread, bytes.
    pub localSizeBytes: usize,
    /// Most threads per block the kernel can be launched with.
    pub maxThreadsPerBlock: c_int,
    /// Registers per thread.
    pub numRegs: c_int,
    /// PTX version, 10 x major + minor.
    pub ptxVersion: c_int,
    /// Binary version, 10 x major + minor.
    pub binaryVersion: c_int,
    /// Whether compiled with -Xptxas -dlcm=ca.
    pub cacheModeCA: c_int,
    /// Most dynamic shared memory, bytes.
    pub maxDynamicSharedSizeBytes: c_int,
    /// Preferred shared-memory carveout, percent (-1: none).
    pub preferredShmemCarveout: c_int,
    /// Cluster dimensions must be set at launch.
    pub clusterDimMustBeSet: c_int,
    /// Required cluster width.
    pub requiredClusterWidth: c_int,
    /// Required cluster height.
    pub requiredClusterHeight: c_int,
    /// Required cluster depth.
    pub requiredClusterDepth: c_int,
    /// Cluster scheduling policy preference.
    pub clusterSchedulingPolicyPreference: c_int,
    /// Non-portable cluster sizes allowed.
    pub nonPortableClusterSizeAllowed: c_int,
    /// Reserved.
    pub reserved: [c_int; 16],
}

/// `cudaFuncGetAttributes`: the Driver API's function attributes of the kernel.
#[unsafe(no_mangle)]
pub extern "C" fn cudaFuncGetAttributes(attr: *mut FuncAttributes, func: *const c_void) -> Status {
    api(|| {
        let d = state::driver()?;
        let f = state::kernel(func as usize)?;
        let prefs = state::registry().func_prefs.get(&(func as usize)).copied().unwrap_or_default();
        let at = |a: c_int| -> Result<c_int, Status> {
            let mut x = 0;
            error::check(d.cuFuncGetAttribute(&mut x, a, f))?;
            Ok(x)
        };
        let a = FuncAttributes {
            maxThreadsPerBlock: at(0)?,
            sharedSizeBytes: at(1)? as usize,
            constSizeBytes: at(2)? as usize,
            localSizeBytes: at(3)? as usize,
            numRegs: at(4)?,
            ptxVersion: at(5)?,
            binaryVersion: at(6)?,
            cacheModeCA: at(7)?,
            maxDynamicSharedSizeBytes: prefs.max_dynamic_shared.map_or_else(|| at(8), Ok)?,
            preferredShmemCarveout: prefs.carveout.map_or_else(|| at(9), Ok)?,
            clusterDimMustBeSet: at(10)?,
            requiredClusterWidth: at(11)?,
            requiredClusterHeight: at(12)?,
            requiredClusterDepth: at(13)?,
            nonPortableClusterSizeAllowed: at(14)?,
            clusterSchedulingPolicyPreference: at(15)?,
            ..FuncAttributes::default()
        };
        put(attr, a)
    })
}

/// The settings of kernel `func` (registered and loadable in the current context).
fn with_prefs(func: *const c_void, f: impl FnOnce(&mut state::FuncPrefs)) -> Result<(), Status> {
    state::kernel(func as usize)?;
    f(state::registry().func_prefs.entry(func as usize).or_default());
    Ok(())
}

/// `cudaFuncSetCacheConfig`: the kernel's L1/shared preference (kept, as the device's).
#[unsafe(no_mangle)]
pub extern "C" fn cudaFuncSetCacheConfig(func: *const c_void, config: c_int) -> Status {
    api(|| {
        if !crate::device::CACHE_CONFIGS.contains(&config) {
            return Err(cudaErrorInvalidValue);
        }
        with_prefs(func, |p| p.cache = config)
    })
}

/// `cudaFuncSetSharedMemConfig`: the kernel's bank-size preference (kept).
#[unsafe(no_mangle)]
pub extern "C" fn cudaFuncSetSharedMemConfig(func: *const c_void, config: c_int) -> Status {
    api(|| {
        if !crate::device::SHMEM_CONFIGS.contains(&config) {
            return Err(cudaErrorInvalidValue);
        }
        with_prefs(func, |p| p.shmem = config)
    })
}

/// `cudaFuncAttribute` values that can be set.
const ATTR_MAX_DYNAMIC_SHARED: c_int = 8;
const ATTR_CARVEOUT: c_int = 9;

/// `cudaFuncSetAttribute`: the most dynamic shared memory a launch may ask for (at most
/// the device's opt-in limit less the kernel's static shared memory) and the preferred
/// carveout (-1 to 100 percent), non-portable cluster sizes and the cluster scheduling
/// preference (the driver's); a required cluster shape set at run time is
/// cudaErrorNotSupported (`__cluster_dims__` is read from the kernel).
#[unsafe(no_mangle)]
pub extern "C" fn cudaFuncSetAttribute(func: *const c_void, attr: c_int, value: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        let f = state::kernel(func as usize)?;
        match attr {
            ATTR_MAX_DYNAMIC_SHARED => {
                let mut dev = 0;
                error::check(d.cuCtxGetDevice(&mut dev))?;
                let (mut optin, mut stat) = (0, 0);
                // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; the static size
                error::check(d.cuDeviceGetAttribute(&mut optin, 97, dev))?;
                error::check(d.cuFuncGetAttribute(&mut stat, 1, f))?;
                if value < 0 || value > optin - stat {
                    return Err(cudaErrorInvalidValue);
                }
                // The driver checks each launch against the kernel's opt-in.
                error::check(d.cuFuncSetAttribute(f, ATTR_MAX_DYNAMIC_SHARED, value))?;
                with_prefs(func, |p| p.max_dynamic_shared = Some(value))
            }
            ATTR_CARVEOUT => {
                if !(-1..=100).contains(&value) {
                    return Err(cudaErrorInvalidValue);
                }
                // The driver configures each launch's L1 and shared memory split with it.
                error::check(d.cuFuncSetAttribute(f, ATTR_CARVEOUT, value))?;
                with_prefs(func, |p| p.carveout = Some(value))
            }
            // Clusters of 9 to 16 blocks; the cluster scheduling preference (a hint).
            14 | 15 => error::check(d.cuFuncSetAttribute(f, attr, value)),
            10..=13 => Err(cudaErrorNotSupported),
            _ => Err(cudaErrorInvalidValue),
        }
    })
}

/// `cudaFuncGetName`: the kernel's device name.
#[unsafe(no_mangle)]
pub extern "C" fn cudaFuncGetName(name: *mut *const c_char, func: *const c_void) -> Status {
    api(|| {
        let r = state::registry();
        let (_, n) = r.functions.get(&(func as usize)).ok_or(cudaErrorInvalidDeviceFunction)?;
        put(name, n.as_ptr())
    })
}

/// Resident blocks per SM of `func` at `block` threads and `dynamic` bytes of dynamic
/// shared memory.
fn blocks_per_sm(func: *const c_void, block: c_int, dynamic: usize) -> Result<c_int, Status> {
    let d = state::driver()?;
    let f = state::kernel(func as usize)?;
    let mut n = 0;
    error::check(d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block, dynamic))?;
    Ok(n)
}

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    n: *mut c_int,
    func: *const c_void,
    block: c_int,
    dynamic: usize,
) -> Status {
    api(|| put(n, blocks_per_sm(func, block, dynamic)?))
}

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: cudaOccupancyDefault or
/// cudaOccupancyDisableCachingOverride (the model has no caching override to disable).
#[unsafe(no_mangle)]
pub extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    n: *mut c_int,
    func: *const c_void,
    block: c_int,
    dynamic: usize,
    flags: c_uint,
) -> Status {
    api(|| {
        if flags > 1 {
            return Err(cudaErrorInvalidValue);
        }
        put(n, blocks_per_sm(func, block, dynamic)?)
    })
}

/// `cudaOccupancyAvailableDynamicSMemPerBlock`: the most dynamic shared memory per
/// block with which `blocks` blocks of `block` threads are still resident on one SM.
#[unsafe(no_mangle)]
pub extern "C" fn cudaOccupancyAvailableDynamicSMemPerBlock(
    bytes: *mut usize,
    func: *const c_void,
    blocks: c_int,
    block: c_int,
) -> Status {
    api(|| {
        if blocks <= 0 || block <= 0 {
            return Err(cudaErrorInvalidValue);
        }
        if blocks_per_sm(func, block, 0)? < blocks {
            return put(bytes, 0);
        }
        let d = state::driver()?;
        let mut dev = 0;
        error::check(d.cuCtxGetDevice(&mut dev))?;
        let mut optin = 0;
        error::check(d.cuDeviceGetAttribute(&mut optin, 97, dev))?;
        // The largest `s` in [0, optin] that keeps `blocks` resident (monotone in s).
        let (mut lo, mut hi) = (0usize, optin.max(0) as usize);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if blocks_per_sm(func, block, mid)? >= blocks {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        put(bytes, lo)
    })
}

/// `cudaLaunchCooperativeKernel`: a launch whose blocks must all be resident at once
/// (cudaErrorCooperativeLaunchTooLarge otherwise, the driver's check), so that
/// cooperative groups' grid sync can wait for all of them.
#[unsafe(no_mangle)]
pub extern "C" fn cudaLaunchCooperativeKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Handle,
) -> Status {
    api(|| launch_as(func, grid, block, args, core::ptr::null_mut(), shared, stream, (true, None, None)))
}

/// `cudaLaunchConfig_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LaunchConfig {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: Handle,
    attrs: *const LaunchAttribute,
    num_attrs: c_uint,
}

impl LaunchConfig {
    /// The cluster shape its cudaLaunchAttributeClusterDimension gives, if any.
    fn cluster(&self) -> Result<Option<[c_uint; 3]>, Status> {
        let mut cluster = None;
        for k in 0..self.num_attrs as usize {
            let a = raw::get(self.attrs.wrapping_add(k)).ok_or(cudaErrorInvalidValue)?;
            if a.id == 4 {
                cluster = Some([a.val[0], a.val[1], a.val[2]]);
            }
        }
        Ok(cluster)
    }
}

/// `cudaOccupancyMaxActiveClusters`: the driver's cuOccupancyMaxActiveClusters for the
/// kernel of `func` and the launch configuration (its block, dynamic shared memory and
/// cluster dimension).
#[unsafe(no_mangle)]
pub extern "C" fn cudaOccupancyMaxActiveClusters(
    n: *mut c_int,
    func: *const c_void,
    config: *const LaunchConfig,
) -> Status {
    api(|| {
        let d = state::driver()?;
        let f = state::kernel(func as usize)?;
        let c = raw::get(config).ok_or(cudaErrorInvalidValue)?;
        use crate::driver::{CuLaunchAttribute, CuLaunchConfig};
        let attrs: Vec<CuLaunchAttribute> = c
            .cluster()?
            .map(|d| {
                let mut val = [0; 16];
                val[..3].copy_from_slice(&d.map(|x| x as c_int));
                CuLaunchAttribute { id: 4, pad: 0, val }
            })
            .into_iter()
            .collect();
        let cfg = CuLaunchConfig {
            grid: [c.grid.x, c.grid.y, c.grid.z],
            block: [c.block.x, c.block.y, c.block.z],
            shared: u32::try_from(c.shared).map_err(|_| cudaErrorInvalidValue)?,
            stream: c.stream,
            attrs: attrs.as_ptr(),
            num_attrs: attrs.len() as c_uint,
        };
        error::check(d.cuOccupancyMaxActiveClusters(n, f, &cfg))
    })
}

/// `cudaLaunchAttribute`: an id and a 64-byte value (the union's first words).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LaunchAttribute {
    id: c_uint,
    pad: c_uint,
    val: [c_uint; 16],
}

/// `cudaLaunchKernelExC`: a launch with attributes. A cooperative launch is checked as
/// `cudaLaunchCooperativeKernel`'s; a preferred shared-memory carveout (0 to 100 percent)
/// sets this launch's L1 and shared-memory split; a cluster dimension launches thread block
/// clusters (the driver checks the shape); the hints the model has no mechanism for
/// (priority, access policy window, synchronization policy, memory synchronization domains,
/// preferred cluster shape, cluster scheduling) are accepted; programmatic dependent
/// launches, completion events and device-updatable nodes are cudaErrorNotSupported; an
/// unknown attribute is cudaErrorInvalidValue.
#[unsafe(no_mangle)]
pub extern "C" fn cudaLaunchKernelExC(
    config: *const LaunchConfig,
    func: *const c_void,
    args: *mut *mut c_void,
) -> Status {
    api(|| {
        let c = raw::get(config).ok_or(cudaErrorInvalidValue)?;
        let (mut cooperative, mut carveout) = (false, None);
        for k in 0..c.num_attrs as usize {
            let a = raw::get(c.attrs.wrapping_add(k)).ok_or(cudaErrorInvalidValue)?;
            match a.id {
                0 | 1 | 3 | 4 | 5 | 8 | 9 | 10 | 11 => {}
                2 => cooperative = a.val[0] != 0,
                // -1 (cudaSharedmemCarveoutDefault): the kernel's own.
                14 if a.val[0] == u32::MAX => {}
                14 if a.val[0] <= 100 => carveout = Some(a.val[0] as c_int),
                14 => return Err(cudaErrorInvalidValue),
                6 | 7 | 12 | 13 => return Err(cudaErrorNotSupported),
                _ => return Err(cudaErrorInvalidValue),
            }
        }
        let launch = (cooperative, carveout, c.cluster()?);
        launch_as(func, c.grid, c.block, args, core::ptr::null_mut(), c.shared, c.stream, launch)
    })
}
