//! The runtime's state: the driver initialized once, each thread's current device, the
//! primary contexts it retained, and what compilers registered (fat binaries, kernels,
//! variables) with the modules loaded from them, per context, on first use.

use crate::driver::{self, Driver, Handle};
use crate::error::{self, Status, codes::*};
use ptx::fatbin;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{CString, c_int, c_uint};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// What compilers registered, and what was made of it.
#[derive(Default)]
pub struct Registry {
    /// Fat binaries by handle (the address `__cudaRegisterFatBinary` returned): their
    /// container, or None when the wrapper was not one.
    pub fatbins: HashMap<usize, Option<Vec<u8>>>,
    /// Kernels by host stub address: (fat binary, device name).
    pub functions: HashMap<usize, (usize, CString)>,
    /// Variables by host shadow address: (fat binary, device name).
    pub vars: HashMap<usize, (usize, CString)>,
    /// Modules loaded, by (fat binary, context); driver handles as addresses.
    modules: HashMap<(usize, usize), usize>,
    /// Kernels looked up, by (host stub, context).
    kernels: HashMap<(usize, usize), usize>,
    /// Primary contexts retained, by device.
    primary: HashMap<c_int, usize>,
    /// Fat binaries whose refusal was already reported.
    reported: Vec<usize>,
    /// Launch limits by device (see [`launch_limits`]), read once.
    limits: HashMap<c_int, [u64; 7]>,
    /// Per device: the preferred cache configuration and shared-memory bank size
    /// (cudaDeviceSetCacheConfig, cudaDeviceSetSharedMemConfig: preferences CUDA may
    /// ignore, and this model does; they are kept and reported).
    pub device_prefs: HashMap<c_int, (c_int, c_int)>,
    /// Per kernel (host stub): its cudaFuncAttribute values set (max dynamic shared
    /// memory, preferred carveout) and its cache and bank-size preferences.
    pub func_prefs: HashMap<usize, FuncPrefs>,
    /// cudaSetValidDevices: the devices a thread uses, in order, until it sets one.
    pub valid: Vec<c_int>,
}

/// A kernel's settings made through the runtime (see [`Registry::func_prefs`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FuncPrefs {
    /// cudaFuncAttributeMaxDynamicSharedMemorySize, when set.
    pub max_dynamic_shared: Option<c_int>,
    /// cudaFuncAttributePreferredSharedMemoryCarveout (-1: none).
    pub carveout: Option<c_int>,
    /// cudaFuncSetCacheConfig.
    pub cache: c_int,
    /// cudaFuncSetSharedMemConfig.
    pub shmem: c_int,
}

/// The process's registry.
pub fn registry() -> MutexGuard<'static, Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    R.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

thread_local! {
    /// The thread's current device (cudaSetDevice; -1 until set).
    static DEVICE: Cell<c_int> = const { Cell::new(-1) };
}

/// The thread's current device: the one it set, else the first of cudaSetValidDevices's
/// list, else 0.
pub fn device() -> c_int {
    match DEVICE.with(Cell::get) {
        -1 => registry().valid.first().copied().unwrap_or(0),
        d => d,
    }
}

/// The driver, initialized (cuInit) once.
pub fn driver() -> Result<&'static Driver, Status> {
    static INIT: OnceLock<Status> = OnceLock::new();
    let d = driver::get().map_err(error::from_driver)?;
    match *INIT.get_or_init(|| error::from_driver(d.cuInit(0))) {
        0 => Ok(d),
        e => Err(e),
    }
}

/// Check a device ordinal.
pub fn valid_device(dev: c_int) -> Result<(), Status> {
    let d = driver()?;
    let mut n = 0;
    error::check(d.cuDeviceGetCount(&mut n))?;
    if dev < 0 || dev >= n { Err(cudaErrorInvalidDevice) } else { Ok(()) }
}

/// Make `dev` the thread's current device and its primary context current.
pub fn set_device(dev: c_int) -> Result<(), Status> {
    valid_device(dev)?;
    DEVICE.with(|c| c.set(dev));
    let ctx = primary(dev)?;
    error::check(driver()?.cuCtxSetCurrent(ctx))
}

/// Device `dev`'s primary context, retained once per process.
fn primary(dev: c_int) -> Result<Handle, Status> {
    let d = driver()?;
    let mut r = registry();
    if let Some(&c) = r.primary.get(&dev) {
        return Ok(c as Handle);
    }
    let mut c: Handle = std::ptr::null_mut();
    error::check(d.cuDevicePrimaryCtxRetain(&mut c, dev))?;
    r.primary.insert(dev, c as usize);
    Ok(c)
}

/// The context runtime calls of this thread work in: the thread's current context (one
/// the program made current through the Driver API counts), else the primary context
/// of its current device, made current.
pub fn context() -> Result<Handle, Status> {
    let d = driver()?;
    let mut c: Handle = std::ptr::null_mut();
    error::check(d.cuCtxGetCurrent(&mut c))?;
    if !c.is_null() {
        return Ok(c);
    }
    let c = primary(device())?;
    error::check(d.cuCtxSetCurrent(c))?;
    Ok(c)
}

/// Destroy device `dev`'s primary context (cudaDeviceReset): the modules and kernels of
/// it are forgotten, and the next call makes a new one.
pub fn reset(dev: c_int) -> Result<(), Status> {
    let d = driver()?;
    let mut r = registry();
    if let Some(c) = r.primary.remove(&dev) {
        r.modules.retain(|&(_, k), _| k != c);
        r.kernels.retain(|&(_, k), _| k != c);
        drop(r);
        error::check(d.cuCtxSetCurrent(std::ptr::null_mut()))?;
    }
    error::check(d.cuDevicePrimaryCtxReset(dev))
}

/// The compute capability of the current context's device, as 10 x major + minor.
fn arch(d: &Driver) -> Result<u32, Status> {
    let mut dev = 0;
    error::check(d.cuCtxGetDevice(&mut dev))?;
    let (mut major, mut minor) = (0, 0);
    error::check(d.cuDeviceGetAttribute(&mut major, 75, dev))?;
    error::check(d.cuDeviceGetAttribute(&mut minor, 76, dev))?;
    Ok((major * 10 + minor) as u32)
}

/// The module of fat binary `fb` in the current context `ctx`, loaded on first use.
fn module(r: &mut Registry, d: &Driver, fb: usize, ctx: Handle) -> Result<Handle, Status> {
    if let Some(&m) = r.modules.get(&(fb, ctx as usize)) {
        return Ok(m as Handle);
    }
    let Some(Some(image)) = r.fatbins.get(&fb) else { return Err(cudaErrorInvalidKernelImage) };
    let ptx = match fatbin::choose_all(image, arch(d)?) {
        Ok(p) => p,
        Err(why) => {
            if !r.reported.contains(&fb) {
                r.reported.push(fb);
                eprintln!("rgdev: libcudart: {why}");
            }
            return Err(match why {
                fatbin::Refused::Malformed(_) | fatbin::Refused::Corrupt(_) => cudaErrorInvalidKernelImage,
                fatbin::Refused::NoPtx(_) => cudaErrorNoKernelImageForDevice,
            });
        }
    };
    let mut m: Handle = std::ptr::null_mut();
    match ptx.as_slice() {
        [one] => error::check(d.cuModuleLoadData(&mut m, one.as_ptr().cast()))?,
        many => link(d, many, &mut m)?,
    }
    r.modules.insert((fb, ctx as usize), m as usize);
    Ok(m)
}

/// Link the PTX modules of relocatable device code (`-rdc`) with the driver's linker
/// and load the result into `m`.
fn link(d: &Driver, ptx: &[Vec<u8>], m: &mut Handle) -> Result<(), Status> {
    const CU_JIT_INPUT_PTX: c_int = 1;
    let mut st: Handle = std::ptr::null_mut();
    error::check(d.cuLinkCreate(0, std::ptr::null_mut(), std::ptr::null_mut(), &mut st))?;
    let r = (|| {
        for (k, p) in ptx.iter().enumerate() {
            let name = CString::new(format!("rdc{k}.ptx")).expect("no NUL");
            let data = p.as_ptr().cast_mut().cast();
            let add = d.cuLinkAddData(
                st,
                CU_JIT_INPUT_PTX,
                data,
                p.len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            error::check(add)?;
        }
        let (mut image, mut size) = (std::ptr::null_mut(), 0usize);
        error::check(d.cuLinkComplete(st, &mut image, &mut size))?;
        // The image lives until cuLinkDestroy: load it first.
        error::check(d.cuModuleLoadData(m, image))
    })();
    let _ = d.cuLinkDestroy(st);
    r.map_err(|e| if e == cudaErrorInvalidPtx || e == cudaErrorInvalidValue { cudaErrorInvalidKernelImage } else { e })
}

/// The kernel registered for host stub `func`, in the current context.
pub fn kernel(func: usize) -> Result<Handle, Status> {
    let d = driver()?;
    let ctx = context()?;
    let mut r = registry();
    if let Some(&f) = r.kernels.get(&(func, ctx as usize)) {
        return Ok(f as Handle);
    }
    let (fb, name) = r.functions.get(&func).cloned().ok_or(cudaErrorInvalidDeviceFunction)?;
    let m = module(&mut r, d, fb, ctx)?;
    let mut f: Handle = std::ptr::null_mut();
    error::check(d.cuModuleGetFunction(&mut f, m, name.as_ptr()))
        .map_err(|e| if e == cudaErrorSymbolNotFound { cudaErrorInvalidDeviceFunction } else { e })?;
    r.kernels.insert((func, ctx as usize), f as usize);
    Ok(f)
}

/// The device address and size of the variable registered for host shadow `var`.
pub fn symbol(var: usize) -> Result<(u64, usize), Status> {
    let d = driver()?;
    let ctx = context()?;
    let mut r = registry();
    let (fb, name) = r.vars.get(&var).cloned().ok_or(cudaErrorInvalidSymbol)?;
    let m = module(&mut r, d, fb, ctx)?;
    let (mut p, mut n) = (0u64, 0usize);
    error::check(d.cuModuleGetGlobal(&mut p, &mut n, m, name.as_ptr()))
        .map_err(|e| if e == cudaErrorSymbolNotFound { cudaErrorInvalidSymbol } else { e })?;
    Ok((p, n))
}

/// Flags set with cudaSetDeviceFlags before the primary context exists.
pub fn set_flags(flags: c_uint) -> Result<(), Status> {
    let d = driver()?;
    error::check(d.cuDevicePrimaryCtxSetFlags(device(), flags))
}

/// The current context's device's launch limits, read from the driver once per device:
/// threads per block, block x/y/z, grid x/y/z.
pub fn launch_limits() -> Result<[u64; 7], Status> {
    let d = driver()?;
    let mut dev = 0;
    error::check(d.cuCtxGetDevice(&mut dev))?;
    if let Some(&l) = registry().limits.get(&dev) {
        return Ok(l);
    }
    let mut l = [0u64; 7];
    for (i, a) in (1..=7).enumerate() {
        let mut x = 0;
        error::check(d.cuDeviceGetAttribute(&mut x, a, dev))?;
        l[i] = x as u64;
    }
    registry().limits.insert(dev, l);
    Ok(l)
}
