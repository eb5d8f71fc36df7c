//! The runtime's state: the driver initialized once, each thread's current device, the
//! primary contexts it retained, and what compilers registered (fat binaries, kernels,
//! variables) with the modules loaded from them, per context, on first use.

use crate::driver::{self, Driver, Exports, Handle};
use crate::error::{self, Status, codes::*};
use ptx::fatbin;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{CString, c_char, c_int, c_uint, c_void};
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
    /// Managed variables an nvcc-style compiler registered, by the address of the host
    /// pointer the runtime fills in: (fat binary, device name).
    pub managed_vars: HashMap<usize, (usize, CString)>,
    /// The program's data sections holding `__managed__` variables (`rgdev_managed`, one
    /// per executable or library, as `cuda_runtime.h` registers them): [start, end).
    pub managed_data: Vec<(usize, usize)>,
    /// Those sections mapped, by (section start, context): the device address of the start.
    mapped_data: HashMap<(usize, usize), u64>,
    /// Sizes of the variables registered, by host shadow address.
    pub var_sizes: HashMap<usize, usize>,
    /// The `__managed__` shadows given their initial values.
    shadows_set: std::collections::HashSet<usize>,
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
pub fn primary(dev: c_int) -> Result<Handle, Status> {
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
        r.mapped_data.retain(|&(_, k), _| k != c);
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
    let (names, addrs) = managed_placements(r, d, fb, ctx)?;
    let mut m: Handle = std::ptr::null_mut();
    match ptx.as_slice() {
        [one] => load(d, one.as_ptr().cast(), &names, &addrs, &mut m)?,
        many => link(d, many, &names, &addrs, &mut m)?,
    }
    r.modules.insert((fb, ctx as usize), m as usize);
    fill_managed_pointers(r, d, fb, m)?;
    Ok(m)
}

/// Load module image `image` into `m`, the variables `names` at `addrs`.
fn load(d: &Driver, image: *const c_void, names: &[CString], addrs: &[u64], m: &mut Handle) -> Result<(), Status> {
    if names.is_empty() {
        return error::check(d.cuModuleLoadData(m, image));
    }
    let exports = Exports::get(d).map_err(error::from_driver)?;
    let ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    error::check(exports.module_load_placed(m, image, &ptrs, addrs))
}

/// The `__managed__` variables of fat binary `fb` whose storage the compiler left in the
/// program's data (a `rgdev_managed` section): their sections mapped into context `ctx`
/// (once each), and each variable's name and device address, for the loader to place it
/// there. The program's host code and the kernels then use the same bytes.
fn managed_placements(
    r: &mut Registry,
    d: &Driver,
    fb: usize,
    ctx: Handle,
) -> Result<(Vec<CString>, Vec<u64>), Status> {
    let mut vars: Vec<(usize, CString, (usize, usize))> = r
        .vars
        .iter()
        .filter(|(_, (f, _))| *f == fb)
        .filter_map(|(&host, (_, name))| {
            let sec = r.managed_data.iter().find(|&&(s, e)| host >= s && host < e)?;
            Some((host, name.clone(), *sec))
        })
        .collect();
    vars.sort_by_key(|v| v.0);
    let (mut names, mut addrs) = (Vec::new(), Vec::new());
    for (host, name, (start, end)) in vars {
        let base = match r.mapped_data.get(&(start, ctx as usize)) {
            Some(&b) => b,
            None => {
                let exports = Exports::get(d).map_err(error::from_driver)?;
                let mut b = 0;
                let p = std::ptr::with_exposed_provenance_mut::<c_void>(start);
                error::check(exports.map_managed_data(p, end - start, &mut b))?;
                if b != start as u64 {
                    warn_relocated(start);
                }
                r.mapped_data.insert((start, ctx as usize), b);
                b
            }
        };
        names.push(name);
        addrs.push(base + (host - start) as u64);
    }
    Ok((names, addrs))
}

/// Say once that `__managed__` variables could not get their host address on the device.
fn warn_relocated(start: usize) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "rgdev: libcudart: __managed__ variables at {start:#x} are outside the device's fixed window (16 MiB; \
             a position-independent executable?): kernels use them by name, but their host address is not a \
             device pointer (`rgdev cc` links programs at a fixed address)"
        )
    });
}

/// Write the address of each managed variable an nvcc-style compiler registered for fat
/// binary `fb` (now loaded as `m`) into its host pointer.
fn fill_managed_pointers(r: &Registry, d: &Driver, fb: usize, m: Handle) -> Result<(), Status> {
    for (&slot, (_, name)) in r.managed_vars.iter().filter(|(_, (f, _))| *f == fb) {
        let (mut p, mut n) = (0u64, 0usize);
        error::check(d.cuModuleGetGlobal(&mut p, &mut n, m, name.as_ptr()))?;
        crate::put(std::ptr::with_exposed_provenance_mut::<u64>(slot), p)?;
    }
    Ok(())
}

/// Give the `__managed__` variables registered so far (shadows in a `rgdev_managed`
/// section) the initial values their PTX declares, once each: clang leaves a device
/// variable's host shadow zero, and the shadow is the variable's storage. Called as the
/// registrations arrive (before `main`), so the host reads the declared value even before
/// its first CUDA call, as with CUDA.
pub fn set_managed_shadows(r: &mut Registry) {
    let in_section = |h: usize| r.managed_data.iter().any(|&(s, e)| h >= s && h < e);
    let todo: Vec<(usize, usize, CString)> = r
        .vars
        .iter()
        .filter(|&(&h, _)| in_section(h) && !r.shadows_set.contains(&h))
        .map(|(&h, (fb, name))| (h, *fb, name.clone()))
        .collect();
    for (host, fb, name) in todo {
        r.shadows_set.insert(host);
        let Some(Some(image)) = r.fatbins.get(&fb) else { continue };
        // The newest PTX (every module of it, for -rdc): initial values do not depend on
        // the architecture.
        let values = fatbin::choose_all(image, u32::MAX).unwrap_or_default().iter().find_map(|ptx| {
            let text = std::str::from_utf8(ptx.strip_suffix(&[0]).unwrap_or(ptx)).ok()?;
            let all = ptx::initial_values(text).ok()?;
            all.into_iter().find(|(n, _)| n.as_bytes() == name.as_bytes()).map(|(_, b)| b)
        });
        if let Some(bytes) = values {
            let size = r.var_sizes.get(&host).copied().unwrap_or(0);
            crate::raw::write_at(host, &bytes[..bytes.len().min(size)]);
        }
    }
}

/// Load fat binary `fb`'s module into the current context now (`__cudaInitModule`).
pub fn init_module(fb: usize) -> Result<(), Status> {
    let d = driver()?;
    let ctx = context()?;
    module(&mut registry(), d, fb, ctx).map(drop)
}

/// Link the PTX modules of relocatable device code (`-rdc`) with the driver's linker
/// and load the result into `m`, the variables `names` at `addrs`.
fn link(d: &Driver, ptx: &[Vec<u8>], names: &[CString], addrs: &[u64], m: &mut Handle) -> Result<(), Status> {
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
        load(d, image, names, addrs, m)
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
