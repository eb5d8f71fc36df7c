//! # libcuda.so.1 for rgdev
//!
//! The CUDA Driver API as a C ABI over the in-process simulated GPU: build a program
//! against `backend-user/include/cuda.h`, link `-L target/release -lcuda`, and it runs on
//! rgdev. Symbols carry CUDA's versioned names (`cuMemAlloc_v2`, ...), as NVIDIA's header
//! maps them.
//!
//! Handles are opaque numbers, keys into this library's tables (never dereferenced), so a
//! stale or forged handle is CUDA_ERROR_INVALID_HANDLE / INVALID_CONTEXT, never a crash.
//! Every entry point checks its pointers for NULL, runs inside `catch_unwind` (a Rust panic
//! becomes CUDA_ERROR_UNKNOWN instead of unwinding into C), and returns CUDA's code.
//! Pointer access lives in one module, `raw`.
//!
//! One device (ordinal 0) with CUDA's per-thread context stack and a primary context.
//! Work is ordered per context (the legacy default stream): a device-to-host copy after a
//! launch waits for the kernel. Entry points exported but not implemented return
//! CUDA_ERROR_NOT_SUPPORTED; the README lists them.
#![deny(missing_docs)]
#![allow(non_snake_case, clippy::missing_safety_doc, clippy::not_unsafe_ptr_arg_deref, clippy::too_many_arguments)]

mod profile;
mod raw;
mod sanitize;
pub mod unsupported;

use backend_user::{CtxHandle, CuError, Device, DeviceConfig, DeviceOptions, MemsetValue, Result, UserGpu};
use fake_pci::config::Mode;
use runtime_core::{EventHandle, FuncAttributes, FuncHandle, ImageKind, ModuleHandle, StreamHandle};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{CString, c_char, c_float, c_int, c_uint, c_void};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// `CUresult`: 0 on success, else a CUDA error number.
pub type CUresult = c_int;
/// `CUdevice`: a device ordinal.
pub type CUdevice = c_int;
/// `CUdeviceptr`: a device virtual address.
pub type CUdeviceptr = u64;
/// An opaque handle (`CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUevent`).
pub type Handle = *mut c_void;

/// The driver version reported (CUDA 12.0's Driver API).
pub const DRIVER_VERSION: c_int = 12000;

struct Func {
    ctx: usize,
    module: usize,
    f: FuncHandle,
}

struct HostAlloc {
    ctx: usize,
    dptr: u64,
    bytes: usize,
    /// Keeps the memory behind the program's host pointer alive.
    _mem: Arc<fifo::SharedMem>,
}

/// What `rgdev run --stats` reports.
#[derive(Default, Clone, Copy)]
struct Stats {
    launches: u64,
    copies: u64,
    copy_bytes: u64,
}

struct State {
    dev: Device,
    config: DeviceConfig,
    next: usize,
    ctxs: HashMap<usize, CtxHandle>,
    /// The primary context and its retain count.
    primary: Option<(usize, u32)>,
    modules: HashMap<usize, (usize, ModuleHandle)>,
    funcs: HashMap<usize, Func>,
    host: HashMap<usize, HostAlloc>,
    /// Streams: (context, runtime stream, flags, CUDA priority).
    streams: HashMap<usize, (usize, StreamHandle, c_uint, c_int)>,
    /// Events: (context, runtime event).
    events: HashMap<usize, (usize, EventHandle)>,
    stats: Stats,
    profile: profile::Profile,
}

impl State {
    fn id(&mut self) -> usize {
        // Handles are multiples of 16 from 0x1000 up, never reused: a stale handle misses.
        self.next += 16;
        self.next
    }

    fn gpu(&self) -> Arc<UserGpu> {
        self.dev.gpu().clone()
    }

    /// Take context `id` and everything naming it out of the tables; the caller destroys
    /// it with [`Doomed::destroy`] after dropping the lock, so that waiting for the
    /// context's work (a hung kernel waits for the watchdog) blocks no other thread.
    fn take_ctx(&mut self, id: usize) -> Result<Doomed> {
        let h = self.ctxs.remove(&id).ok_or(CuError::InvalidContext)?;
        self.profile.collect(&self.dev);
        self.modules.retain(|_, m| m.0 != id);
        self.funcs.retain(|_, f| f.ctx != id);
        let host: Vec<HostAlloc> = self.host.extract_if(|_, a| a.ctx == id).map(|(_, a)| a).collect();
        self.streams.retain(|_, s| s.0 != id);
        self.events.retain(|_, e| e.0 != id);
        Ok(Doomed { gpu: self.gpu(), h, _host: host })
    }
}

/// A context out of the tables, to be destroyed without the library lock.
struct Doomed {
    gpu: Arc<UserGpu>,
    h: CtxHandle,
    /// Its pinned host memory stays alive until the context's work has drained.
    _host: Vec<HostAlloc>,
}

impl Doomed {
    fn destroy(self) -> Result<()> {
        if sanitize::on() {
            let _ = self.gpu.ctx_synchronize(self.h);
            sanitize::flush(&self.gpu, self.h);
        }
        self.gpu.ctx_destroy(self.h)
    }
}

static STATE: OnceLock<Mutex<State>> = OnceLock::new();

thread_local! {
    /// This thread's context stack (the top is current).
    static STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

fn state() -> Result<MutexGuard<'static, State>> {
    let m = STATE.get().ok_or(CuError::NotInitialized)?;
    Ok(m.lock().unwrap_or_else(|e| e.into_inner()))
}

fn initialized() -> Result<()> {
    state().map(drop)
}

fn handle(id: usize) -> Handle {
    std::ptr::without_provenance_mut(id)
}

fn key(h: Handle) -> usize {
    h.addr()
}

/// The calling thread's current context: (runtime, context id, runtime handle).
fn current() -> Result<(Arc<UserGpu>, usize, CtxHandle)> {
    let st = state()?;
    let id = STACK.with(|s| s.borrow().last().copied()).ok_or(CuError::InvalidContext)?;
    let h = *st.ctxs.get(&id).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), id, h))
}

fn check_device(dev: CUdevice) -> Result<()> {
    initialized()?;
    if dev != 0 {
        return Err(CuError::InvalidDevice);
    }
    Ok(())
}

/// Run an entry point: its error as CUDA's number, a panic as CUDA_ERROR_UNKNOWN.
fn guard(f: impl FnOnce() -> Result<()>) -> CUresult {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => e.code() as CUresult,
        Err(_) => CuError::Unknown.code() as CUresult,
    }
}

// ---------------------------------------------------------------------------------------
// Initialization, version, errors

/// cuInit: flags must be 0. Builds the simulated board once (`RGDEV_STATS=1` prints
/// statistics at exit).
#[unsafe(no_mangle)]
pub extern "C" fn cuInit(flags: c_uint) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        if STATE.get().is_some() {
            return Ok(());
        }
        let config = backend_user::preset::from_env().map_err(|e| {
            eprintln!("rgdev: {e}");
            CuError::InvalidValue
        })?;
        let checks = sanitize::mode_from_env().map_err(|name| {
            eprintln!("rgdev: RGDEV_CHECK: unknown check `{name}` (memcheck, racecheck, initcheck, synccheck, all)");
            CuError::InvalidValue
        })?;
        let dev = Device::open_with(DeviceOptions { config: config.clone(), checks, ..Default::default() })?;
        let profile = profile::Profile::from_env(&dev);
        let write_at_exit = profile.wanted();
        let st = State {
            dev,
            config,
            next: 0x1000,
            ctxs: HashMap::new(),
            primary: None,
            modules: HashMap::new(),
            funcs: HashMap::new(),
            host: HashMap::new(),
            streams: HashMap::new(),
            events: HashMap::new(),
            stats: Stats::default(),
            profile,
        };
        if STATE.set(Mutex::new(st)).is_ok() {
            sanitize::start(checks);
            if std::env::var_os("RGDEV_STATS").is_some() || write_at_exit || u32::from(checks) != 0 {
                // Ctrl-C still writes what is due at exit.
                raw::exit_on_interrupt();
            }
            if std::env::var_os("RGDEV_STATS").is_some() {
                raw::at_exit(print_stats);
            }
            if write_at_exit {
                raw::at_exit(write_profile);
            }
        }
        Ok(())
    })
}

extern "C" fn write_profile() {
    if let Ok(mut st) = state() {
        let st = &mut *st;
        st.profile.write(&st.dev, &st.config);
    }
}

extern "C" fn print_stats() {
    if let Ok(st) = state() {
        let s = st.stats;
        eprintln!(
            "rgdev: {} kernel launches, {} copies ({} bytes), {} ns simulated time",
            s.launches,
            s.copies,
            s.copy_bytes,
            st.dev.time_ns()
        );
    }
}

/// cuDriverGetVersion (works before cuInit).
#[unsafe(no_mangle)]
pub extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    guard(|| raw::put(version, DRIVER_VERSION))
}

fn error_strings() -> &'static HashMap<CUresult, (CString, CString)> {
    static T: OnceLock<HashMap<CUresult, (CString, CString)>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m = HashMap::new();
        m.insert(0, (c"no error".to_owned(), c"CUDA_SUCCESS".to_owned()));
        for code in 1..1000 {
            if let Some(e) = CuError::from_code(code) {
                let s = |t: &str| CString::new(t).unwrap_or_default();
                m.insert(code as CUresult, (s(e.description()), s(e.name())));
            }
        }
        m
    })
}

/// Store error `code`'s string (`pick` chooses description or name) through `pstr`; an
/// unknown code gets CUDA_ERROR_INVALID_VALUE and NULL.
fn error_text(code: CUresult, pstr: *mut *const c_char, pick: fn(&(CString, CString)) -> &CString) -> CUresult {
    guard(|| match error_strings().get(&code) {
        Some(t) => raw::put(pstr, pick(t).as_ptr()),
        None => {
            raw::put(pstr, std::ptr::null())?;
            Err(CuError::InvalidValue)
        }
    })
}

/// cuGetErrorString: CUDA's text; an unknown code gets CUDA_ERROR_INVALID_VALUE and NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuGetErrorString(error: CUresult, pstr: *mut *const c_char) -> CUresult {
    error_text(error, pstr, |t| &t.0)
}

/// cuGetErrorName: `CUDA_ERROR_...`; an unknown code gets CUDA_ERROR_INVALID_VALUE and NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuGetErrorName(error: CUresult, pstr: *mut *const c_char) -> CUresult {
    error_text(error, pstr, |t| &t.1)
}

// ---------------------------------------------------------------------------------------
// Devices

/// cuDeviceGetCount: one simulated device.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    guard(|| {
        initialized()?;
        raw::put(count, 1)
    })
}

/// cuDeviceGet: ordinal 0 only.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    guard(|| {
        check_device(ordinal)?;
        raw::put(device, 0)
    })
}

/// cuDeviceGetName: the board's name, truncated to `len - 1` bytes and NUL-terminated.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let n = usize::try_from(len).ok().filter(|&n| n > 0).ok_or(CuError::InvalidValue)?;
        let st = state()?;
        let text = format!("rgdev simulated GPU ({:?}, {} SMs)", st.dev.info().chipset, st.dev.info().sms);
        let out = raw::bytes_mut(name.cast(), n)?;
        let k = text.len().min(n - 1);
        out[..k].copy_from_slice(&text.as_bytes()[..k]);
        out[k] = 0;
        Ok(())
    })
}

/// cuDeviceTotalMem_v2: VRAM bytes.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let total = state()?.dev.info().vram_size;
        raw::put(bytes, total as usize)
    })
}

/// cuDeviceComputeCapability (deprecated but common).
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let st = state()?;
        raw::put(major, st.config.cc_major as c_int)?;
        raw::put(minor, st.config.cc_minor as c_int)
    })
}

/// The value of a device attribute (`CUdevice_attribute` number), from the device
/// configuration and the runtime's launch limits; `None` for attributes not answered.
fn attribute(st: &State, attr: c_int) -> Option<c_int> {
    use runtime_core::module::{MAX_BLOCK, MAX_GRID};
    let gpu = st.gpu();
    let c = &st.config;
    let i = |v: u64| c_int::try_from(v).unwrap_or(c_int::MAX);
    Some(match attr {
        1 => i(MAX_BLOCK[0] as u64),                      // MAX_THREADS_PER_BLOCK
        2..=4 => i(MAX_BLOCK[attr as usize - 2] as u64),  // MAX_BLOCK_DIM_X/Y/Z
        5..=7 => i(MAX_GRID[attr as usize - 5] as u64),   // MAX_GRID_DIM_X/Y/Z
        8 => i(gpu.max_shared_per_block() as u64),        // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,                                   // TOTAL_CONSTANT_MEMORY
        10 => 32,                                         // WARP_SIZE
        11 => c_int::MAX,                                 // MAX_PITCH
        12 => i(gpu.max_regs_per_block() as u64),         // MAX_REGISTERS_PER_BLOCK
        13 => i(c.clock_mhz as u64 * 1000),               // CLOCK_RATE (kHz)
        14 => 512,                                        // TEXTURE_ALIGNMENT
        15 => 1,                                          // GPU_OVERLAP (a copy engine)
        16 => i(st.dev.info().sms as u64),                // MULTIPROCESSOR_COUNT
        17 => (gpu.info().watchdog_cycles != 0) as c_int, // KERNEL_EXEC_TIMEOUT (the device's watchdog)
        18 => 0,                                          // INTEGRATED
        19 => 1,                                          // CAN_MAP_HOST_MEMORY
        20 => 0,                                          // COMPUTE_MODE (default)
        30 => 512,                                        // SURFACE_ALIGNMENT
        31 => (c.mode == Mode::Timing) as c_int,          // CONCURRENT_KERNELS (grids share SMs)
        32 => 0,                                          // ECC_ENABLED
        33 => 0,                                          // PCI_BUS_ID
        34 => 0,                                          // PCI_DEVICE_ID
        35 => 0,                                          // TCC_DRIVER
        36 => i(c.mem_clock_mhz as u64 * 1000),           // MEMORY_CLOCK_RATE (kHz)
        37 => i(c.mem_bus_bits as u64),                   // GLOBAL_MEMORY_BUS_WIDTH
        38 => i(c.l2_bytes as u64),                       // L2_CACHE_SIZE
        39 => i(gpu.info().sm.threads as u64),            // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 1,                                          // ASYNC_ENGINE_COUNT
        41 => 0,                                          // UNIFIED_ADDRESSING (host and device VAs differ)
        50 => 0,                                          // PCI_DOMAIN_ID
        75 => i(c.cc_major as u64),                       // COMPUTE_CAPABILITY_MAJOR
        76 => i(c.cc_minor as u64),                       // COMPUTE_CAPABILITY_MINOR
        81 => i(gpu.info().sm.shared as u64),             // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => i(gpu.info().sm.regs as u64),               // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => 0,                                          // MANAGED_MEMORY
        84 => 0,                                          // MULTI_GPU_BOARD
        97 => i(gpu.max_shared_per_block() as u64),       // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => i(gpu.info().sm.blocks as u64),            // MAX_BLOCKS_PER_MULTIPROCESSOR
        115 => 0,                                         // MEMORY_POOLS_SUPPORTED (no stream-ordered allocator)
        _ => return None,
    })
}

/// cuDeviceGetAttribute: unknown attributes get CUDA_ERROR_INVALID_VALUE.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetAttribute(pi: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let v = attribute(&*state()?, attrib).ok_or(CuError::InvalidValue)?;
        raw::put(pi, v)
    })
}

/// cuDeviceCanAccessPeer: there is one device, so never.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        check_device(peer)?;
        raw::put(can, 0)
    })
}

// ---------------------------------------------------------------------------------------
// Contexts

/// cuCtxCreate_v2: a new context, pushed on the calling thread's stack.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        if pctx.is_null() || flags > 0x1f {
            return Err(CuError::InvalidValue);
        }
        let gpu = state()?.gpu();
        let h = gpu.ctx_create()?;
        let id = {
            let mut st = state()?;
            let id = st.id();
            st.ctxs.insert(id, h);
            id
        };
        STACK.with(|s| s.borrow_mut().push(id));
        raw::put(pctx, handle(id))
    })
}

/// cuCtxDestroy_v2: frees everything of the context and pops it from the calling thread's
/// stack. Another thread that still has it current gets CUDA_ERROR_INVALID_CONTEXT.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    guard(|| {
        let id = key(ctx);
        let mut st = state()?;
        if st.primary.is_some_and(|p| p.0 == id) {
            // The primary context belongs to cuDevicePrimaryCtxRelease/Reset.
            return Err(CuError::InvalidContext);
        }
        let doomed = st.take_ctx(id)?;
        drop(st);
        STACK.with(|s| s.borrow_mut().retain(|&c| c != id));
        doomed.destroy()
    })
}

fn check_ctx(id: usize) -> Result<()> {
    if state()?.ctxs.contains_key(&id) { Ok(()) } else { Err(CuError::InvalidContext) }
}

/// cuCtxPushCurrent_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    guard(|| {
        check_ctx(key(ctx))?;
        STACK.with(|s| s.borrow_mut().push(key(ctx)));
        Ok(())
    })
}

/// cuCtxPopCurrent_v2: `pctx` may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    guard(|| {
        initialized()?;
        let id = STACK.with(|s| s.borrow_mut().pop()).ok_or(CuError::InvalidContext)?;
        if !pctx.is_null() {
            raw::put(pctx, handle(id))?;
        }
        Ok(())
    })
}

/// cuCtxGetCurrent: NULL when the stack is empty.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    guard(|| {
        initialized()?;
        let id = STACK.with(|s| s.borrow().last().copied()).unwrap_or(0);
        raw::put(pctx, handle(id))
    })
}

/// cuCtxSetCurrent: replaces the top of the stack (NULL pops it).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    guard(|| {
        initialized()?;
        let id = key(ctx);
        if id != 0 {
            check_ctx(id)?;
        }
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            s.pop();
            if id != 0 {
                s.push(id);
            }
        });
        Ok(())
    })
}

/// cuCtxGetDevice.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    guard(|| {
        current()?;
        raw::put(dev, 0)
    })
}

/// cuCtxSynchronize: waits for all work of the current context; reports its sticky error.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    guard(|| {
        let (gpu, _, h) = current()?;
        let r = gpu.ctx_synchronize(h);
        sanitize::flush(&gpu, h);
        r
    })
}

/// cuDevicePrimaryCtxRetain: the device's shared context, created on first retain.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        if pctx.is_null() {
            return Err(CuError::InvalidValue);
        }
        let retain = |st: &mut State| {
            st.primary.map(|(id, n)| {
                st.primary = Some((id, n + 1));
                id
            })
        };
        let gpu = {
            let mut st = state()?;
            if let Some(id) = retain(&mut st) {
                return raw::put(pctx, handle(id));
            }
            st.gpu()
        };
        // Create it without the library lock (creating waits for the device); another
        // thread may have created it meanwhile, and then that one is the primary.
        let h = gpu.ctx_create()?;
        let mut st = state()?;
        if let Some(id) = retain(&mut st) {
            drop(st);
            let _ = gpu.ctx_destroy(h);
            return raw::put(pctx, handle(id));
        }
        let id = st.id();
        st.ctxs.insert(id, h);
        st.primary = Some((id, 1));
        raw::put(pctx, handle(id))
    })
}

/// cuDevicePrimaryCtxRelease_v2: the last release destroys the primary context.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let mut st = state()?;
        match st.primary {
            None => Err(CuError::InvalidContext),
            Some((id, 1)) => {
                st.primary = None;
                let doomed = st.take_ctx(id)?;
                drop(st);
                doomed.destroy()
            }
            Some((id, n)) => {
                st.primary = Some((id, n - 1));
                Ok(())
            }
        }
    })
}

/// cuDevicePrimaryCtxRelease (pre-11 name).
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    cuDevicePrimaryCtxRelease_v2(dev)
}

/// cuDevicePrimaryCtxReset_v2: destroys the primary context and everything in it now.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let mut st = state()?;
        let Some((id, _)) = st.primary.take() else { return Ok(()) };
        let doomed = st.take_ctx(id)?;
        drop(st);
        doomed.destroy()
    })
}

/// cuDevicePrimaryCtxReset (pre-11 name).
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    cuDevicePrimaryCtxReset_v2(dev)
}

/// cuDevicePrimaryCtxGetState: flags are always 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let on = state()?.primary.is_some();
        raw::put(flags, 0)?;
        raw::put(active, on as c_int)
    })
}

// ---------------------------------------------------------------------------------------
// Memory

/// cuMemAlloc_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult {
    guard(|| {
        let (gpu, _, h) = current()?;
        if dptr.is_null() || bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        let p = gpu.mem_alloc(h, bytes as u64)?;
        raw::put(dptr, p)
    })
}

/// cuMemFree_v2 (freeing 0 is a no-op, as in CUDA).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    guard(|| {
        let (gpu, _, h) = current()?;
        if dptr == 0 {
            return Ok(());
        }
        gpu.mem_free(h, dptr)
    })
}

/// cuMemGetInfo_v2: free and total VRAM.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    guard(|| {
        let (gpu, _, _) = current()?;
        let (f, t) = gpu.mem_info();
        raw::put(free, f as usize)?;
        raw::put(total, t as usize)
    })
}

/// cuMemGetAddressRange_v2: the base and size of the program's allocation containing
/// `dptr` (either output may be NULL); CUDA_ERROR_NOT_FOUND for an address outside every
/// allocation the program made (memory the runtime holds for modules included).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemGetAddressRange_v2(pbase: *mut CUdeviceptr, psize: *mut usize, dptr: CUdeviceptr) -> CUresult {
    guard(|| {
        let (gpu, _, h) = current()?;
        let (base, size) = gpu.mem_range(h, dptr)?;
        if !pbase.is_null() {
            raw::put(pbase, base)?;
        }
        if !psize.is_null() {
            raw::put(psize, size as usize)?;
        }
        Ok(())
    })
}

fn count_copy(bytes: usize) {
    if let Ok(mut st) = state() {
        st.stats.copies += 1;
        st.stats.copy_bytes += bytes as u64;
    }
}

/// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: both name the legacy default stream here.
const STREAM_LEGACY: usize = 0x1;
const STREAM_PER_THREAD: usize = 0x2;

/// The context and runtime stream of a `CUstream`: NULL (and the two special handles) is
/// the current context's default stream; a stream handle brings its own context.
fn stream(s: Handle) -> Result<(Arc<UserGpu>, usize, CtxHandle, StreamHandle)> {
    if matches!(key(s), 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
        let (gpu, ctx, h) = current()?;
        return Ok((gpu, ctx, h, StreamHandle::DEFAULT));
    }
    let st = state()?;
    let &(ctx, sh, _, _) = st.streams.get(&key(s)).ok_or(CuError::InvalidHandle)?;
    let h = *st.ctxs.get(&ctx).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), ctx, h, sh))
}

/// The device pointer of `[p, p + bytes)` if it lies in pinned host memory of context `ctx`.
fn pinned(ctx: usize, p: usize, bytes: usize) -> Result<Option<u64>> {
    let st = state()?;
    Ok(st.host.iter().find_map(|(&base, a)| {
        let inside = a.ctx == ctx && p >= base && p.checked_add(bytes).is_some_and(|e| e <= base + a.bytes);
        inside.then(|| a.dptr + (p - base) as u64)
    }))
}

fn htod(dst: CUdeviceptr, src: *const c_void, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    guard(|| {
        let (gpu, ctx, h, sh) = stream(s)?;
        if asynchronous && let Some(p) = pinned(ctx, src.addr(), bytes)? {
            gpu.memcpy_async(h, sh, dst, p, bytes as u64)?;
        } else {
            // Pageable memory: the copy is synchronous, after the stream's earlier work.
            gpu.stream_synchronize(h, sh)?;
            gpu.memcpy_htod(h, dst, raw::bytes(src.cast(), bytes)?)?;
        }
        count_copy(bytes);
        Ok(())
    })
}

fn dtoh(dst: *mut c_void, src: CUdeviceptr, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    guard(|| {
        let (gpu, ctx, h, sh) = stream(s)?;
        if asynchronous && let Some(p) = pinned(ctx, dst.addr(), bytes)? {
            gpu.memcpy_async(h, sh, p, src, bytes as u64)?;
        } else {
            let r = gpu.stream_synchronize(h, sh);
            sanitize::flush(&gpu, h);
            r?;
            gpu.memcpy_dtoh(h, raw::bytes_mut(dst.cast(), bytes)?, src)?;
        }
        count_copy(bytes);
        Ok(())
    })
}

fn dtod(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, s: Handle, asynchronous: bool) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream(s)?;
        if asynchronous {
            gpu.memcpy_async(h, sh, dst, src, bytes as u64)?;
        } else {
            gpu.memcpy_dtod(h, dst, src, bytes as u64)?;
        }
        count_copy(bytes);
        Ok(())
    })
}

/// cuMemcpyHtoD_v2: returns once the source may be reused.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) -> CUresult {
    htod(dst, src, bytes, std::ptr::null_mut(), false)
}

/// cuMemcpyDtoH_v2: waits for earlier work of the context (a launch included).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult {
    dtoh(dst, src, bytes, std::ptr::null_mut(), false)
}

/// cuMemcpyDtoD_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult {
    dtod(dst, src, bytes, std::ptr::null_mut(), false)
}

/// cuMemcpyHtoDAsync_v2: from pinned host memory (cuMemAllocHost/cuMemHostAlloc) it
/// returns before the copy runs; from pageable memory it is synchronous, as in CUDA.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) -> CUresult {
    htod(dst, src, bytes, stream, true)
}

/// cuMemcpyDtoHAsync_v2: asynchronous into pinned host memory, else synchronous.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    dtoh(dst, src, bytes, stream, true)
}

/// cuMemcpyDtoDAsync_v2: asynchronous on the stream.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    dtod(dst, src, bytes, stream, true)
}

fn memset(dst: CUdeviceptr, v: MemsetValue, n: usize) -> Result<()> {
    let (gpu, _, h) = current()?;
    gpu.memset(h, dst, v, n as u64).map(|_| ())
}

/// cuMemsetD8_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult {
    guard(|| memset(dst, MemsetValue::U8(v), n))
}

/// cuMemsetD16_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) -> CUresult {
    guard(|| memset(dst, MemsetValue::U16(v), n))
}

/// cuMemsetD32_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, v: c_uint, n: usize) -> CUresult {
    guard(|| memset(dst, MemsetValue::U32(v), n))
}

fn memset_async(dst: CUdeviceptr, v: MemsetValue, n: usize, s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream(s)?;
        gpu.memset_on(h, sh, dst, v, n as u64).map(drop)
    })
}

/// cuMemsetD8Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, stream: Handle) -> CUresult {
    memset_async(dst, MemsetValue::U8(v), n, stream)
}

/// cuMemsetD16Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD16Async(dst: CUdeviceptr, v: u16, n: usize, stream: Handle) -> CUresult {
    memset_async(dst, MemsetValue::U16(v), n, stream)
}

/// cuMemsetD32Async.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemsetD32Async(dst: CUdeviceptr, v: c_uint, n: usize, stream: Handle) -> CUresult {
    memset_async(dst, MemsetValue::U32(v), n, stream)
}

/// CU_MEMHOSTALLOC_PORTABLE | DEVICEMAP | WRITECOMBINED.
const HOSTALLOC_FLAGS: c_uint = 0x7;

fn host_alloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> Result<()> {
    let (gpu, ctx, h) = current()?;
    if pp.is_null() || bytes == 0 || flags & !HOSTALLOC_FLAGS != 0 {
        return Err(CuError::InvalidValue);
    }
    let (dptr, mem) = gpu.mem_alloc_host(h, bytes as u64)?;
    let p = mem.as_mut_ptr();
    state()?.host.insert(p.addr(), HostAlloc { ctx, dptr, bytes, _mem: mem });
    raw::put(pp, p.cast())
}

/// cuMemAllocHost_v2: pinned host memory, mapped into the current context's page tables.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult {
    guard(|| host_alloc(pp, bytes, 0))
}

/// cuMemHostAlloc: as cuMemAllocHost; every allocation is device-mapped.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult {
    guard(|| host_alloc(pp, bytes, flags))
}

/// cuMemFreeHost.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    guard(|| {
        let mut st = state()?;
        let a = st.host.remove(&p.addr()).ok_or(CuError::InvalidValue)?;
        let h = *st.ctxs.get(&a.ctx).ok_or(CuError::InvalidContext)?;
        let gpu = st.gpu();
        drop(st);
        gpu.mem_free_host(h, a.dptr)
    })
}

/// cuMemHostGetDevicePointer_v2: the device address of any byte of a pinned allocation.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostGetDevicePointer_v2(dptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) -> CUresult {
    guard(|| {
        let (_, ctx, _) = current()?;
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        let st = state()?;
        let a = p.addr();
        let d = st
            .host
            .iter()
            .find(|(base, h)| h.ctx == ctx && a >= **base && a - **base < h.bytes)
            .map(|(base, h)| h.dptr + (a - base) as u64)
            .ok_or(CuError::InvalidValue)?;
        raw::put(dptr, d)
    })
}

// ---------------------------------------------------------------------------------------
// Modules and functions

/// Load an image into the current context; JIT messages go to `error_log`/`info_log`.
fn load(image: &[u8], error_log: &mut String, info_log: &mut String) -> Result<usize> {
    let (gpu, ctx, h) = current()?;
    let m = match runtime_core::image_kind(image) {
        ImageKind::Ptx(src) => {
            let prog = ptx::compile_ptx(src).map_err(|e| {
                *error_log = format!("ptxas: {e}");
                CuError::InvalidPtx
            })?;
            for k in &prog.kernels {
                info_log.push_str(&format!(
                    "ptxas info: Function properties for {}: {} registers, {} bytes smem, {} bytes lmem\n",
                    k.name, k.regs, k.shared_bytes, k.local_bytes
                ));
            }
            gpu.module_load(h, prog)?
        }
        _ => gpu.module_load_image(h, image).inspect_err(|e| *error_log = format!("rgdev: {}", e.description()))?,
    };
    let mut st = state()?;
    let id = st.id();
    st.modules.insert(id, (ctx, m));
    Ok(id)
}

/// cuModuleLoad: a PTX or rgdev container file, whatever its name ends with.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoad(module: *mut Handle, fname: *const c_char) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() {
            return Err(CuError::InvalidValue);
        }
        let bytes = std::fs::read(raw::str(fname)?).map_err(|_| CuError::FileNotFound)?;
        let id = load(&bytes, &mut String::new(), &mut String::new())?;
        raw::put(module, handle(id))
    })
}

/// cuModuleLoadData: PTX text (NUL-terminated) or an rgdev container.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() {
            return Err(CuError::InvalidValue);
        }
        let id = load(raw::image(image.cast())?, &mut String::new(), &mut String::new())?;
        raw::put(module, handle(id))
    })
}

/// JIT option numbers (`CUjit_option`) this library acts on; others are accepted and ignored.
const JIT_INFO_LOG_BUFFER: c_int = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
const JIT_ERROR_LOG_BUFFER: c_int = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;
const JIT_NUM_OPTIONS: c_int = 33;

/// cuModuleLoadDataEx: as cuModuleLoadData, filling the info and error log buffers with
/// the JIT's messages (truncated, NUL-terminated; the size options are updated to the
/// bytes written).
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() || (num_options > 0 && (options.is_null() || values.is_null())) {
            return Err(CuError::InvalidValue);
        }
        let n = num_options as usize;
        let mut opts = Vec::with_capacity(n.min(64));
        for i in 0..n {
            let o = raw::get(options.wrapping_add(i))?;
            if !(0..JIT_NUM_OPTIONS).contains(&o) {
                return Err(CuError::InvalidValue);
            }
            opts.push((o, raw::get(values.wrapping_add(i).cast_const())?));
        }
        let find = |o: c_int| opts.iter().position(|x| x.0 == o);
        let (mut err, mut info) = (String::new(), String::new());
        let r = load(raw::image(image.cast())?, &mut err, &mut info);
        let logs = (|| {
            for (buf_opt, size_opt, text) in [
                (JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES, &err),
                (JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE_BYTES, &info),
            ] {
                let (Some(b), Some(s)) = (find(buf_opt), find(size_opt)) else { continue };
                let cap = opts[s].1.addr();
                if cap == 0 || opts[b].1.is_null() {
                    continue;
                }
                let out = raw::bytes_mut(opts[b].1.cast(), cap)?;
                let k = text.len().min(cap - 1);
                out[..k].copy_from_slice(&text.as_bytes()[..k]);
                out[k] = 0;
                raw::put(values.wrapping_add(s), std::ptr::without_provenance_mut(k))?;
            }
            Ok(())
        })();
        let id = r?;
        if let Err(e) = logs.and_then(|()| raw::put(module, handle(id))) {
            // The caller never gets the handle: the module must not outlive this call.
            let _ = unload(id);
            return Err(e);
        }
        Ok(())
    })
}

/// cuModuleUnload: its functions become invalid handles.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    guard(|| unload(key(module)))
}

/// Unload module `id`: its functions become invalid handles.
fn unload(id: usize) -> Result<()> {
    let mut st = state()?;
    let (ctx, m) = st.modules.remove(&id).ok_or(CuError::InvalidHandle)?;
    st.funcs.retain(|_, f| f.module != id);
    {
        let s = &mut *st;
        s.profile.collect(&s.dev);
    }
    let h = *st.ctxs.get(&ctx).ok_or(CuError::InvalidContext)?;
    let gpu = st.gpu();
    drop(st);
    gpu.module_unload(h, m)
}

fn module(id: usize) -> Result<(Arc<UserGpu>, usize, CtxHandle, ModuleHandle)> {
    let st = state()?;
    let &(ctx, m) = st.modules.get(&id).ok_or(CuError::InvalidHandle)?;
    let h = *st.ctxs.get(&ctx).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), ctx, h, m))
}

/// cuModuleGetFunction: CUDA_ERROR_NOT_FOUND for an unknown name.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetFunction(pf: *mut Handle, module: Handle, name: *const c_char) -> CUresult {
    guard(|| {
        let (gpu, ctx, h, m) = self::module(key(module))?;
        if pf.is_null() {
            return Err(CuError::InvalidValue);
        }
        let name = raw::str(name)?;
        let f = gpu.module_get_function(h, m, name)?;
        let launch_id = gpu.func_launch_id(h, f)?;
        let mut st = state()?;
        st.profile.name(launch_id, name);
        let existing = st.funcs.iter().find(|(_, x)| x.f == f && x.ctx == ctx).map(|(&k, _)| k);
        let id = match existing {
            Some(id) => id,
            None => {
                let id = st.id();
                st.funcs.insert(id, Func { ctx, module: key(module), f });
                id
            }
        };
        raw::put(pf, handle(id))
    })
}

/// cuModuleGetGlobal_v2: either output may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        let (gpu, _, h, m) = self::module(key(module))?;
        let (p, n) = gpu.module_get_global(h, m, raw::str(name)?)?;
        if !dptr.is_null() {
            raw::put(dptr, p)?;
        }
        if !bytes.is_null() {
            raw::put(bytes, n as usize)?;
        }
        Ok(())
    })
}

fn func(f: Handle) -> Result<(Arc<UserGpu>, CtxHandle, FuncHandle)> {
    let st = state()?;
    let x = st.funcs.get(&key(f)).ok_or(CuError::InvalidHandle)?;
    let h = *st.ctxs.get(&x.ctx).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), h, x.f))
}

fn attrs(f: Handle) -> Result<FuncAttributes> {
    let (gpu, h, f) = func(f)?;
    gpu.func_attributes(h, f)
}

/// cuFuncGetAttribute (`CUfunction_attribute` 0–8).
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncGetAttribute(pi: *mut c_int, attrib: c_int, f: Handle) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        let max_shared = func(f)?.0.max_shared_per_block();
        let v = match attrib {
            0 => a.max_threads,                             // MAX_THREADS_PER_BLOCK
            1 => a.shared_bytes,                            // SHARED_SIZE_BYTES
            2 => 0,                                         // CONST_SIZE_BYTES (module-level .const)
            3 => a.local_bytes,                             // LOCAL_SIZE_BYTES
            4 => a.regs,                                    // NUM_REGS
            5 | 6 => 70,                                    // PTX_VERSION, BINARY_VERSION
            7 => 0,                                         // CACHE_MODE_CA
            8 => max_shared.saturating_sub(a.shared_bytes), // MAX_DYNAMIC_SHARED_SIZE_BYTES
            _ => return Err(CuError::InvalidValue),
        };
        raw::put(pi, v as c_int)
    })
}

fn launched(r: Result<runtime_core::Fence>) -> Result<()> {
    r?;
    if let Ok(mut st) = state() {
        st.stats.launches += 1;
    }
    Ok(())
}

const LAUNCH_PARAM_END: usize = 0;
const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

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
    guard(|| {
        let (gpu, h, fh) = func(f)?;
        let sh = match self::stream(stream)? {
            (_, _, sh_ctx, sh) if sh_ctx == h => sh,
            // A stream of another context than the function's.
            _ => return Err(CuError::InvalidHandle),
        };
        let (grid, block) = ([gx, gy, gz], [bx, by, bz]);
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
            return launched(gpu.launch_on(h, sh, fh, grid, block, shared, raw::bytes(buf, size)?));
        }
        if a.params.is_empty() {
            return launched(gpu.launch_on(h, sh, fh, grid, block, shared, &[]));
        }
        if params.is_null() {
            return Err(CuError::InvalidValue);
        }
        let mut args = Vec::with_capacity(a.params.len());
        for (i, &(_, size)) in a.params.iter().enumerate() {
            args.push(raw::bytes(raw::get(params.wrapping_add(i))?.cast(), size as usize)?);
        }
        launched(gpu.launch_with_args_on(h, sh, fh, grid, block, shared, &args))
    })
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

fn param_set(f: Handle, offset: c_int, bytes: &[u8]) -> Result<()> {
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

// ---------------------------------------------------------------------------------------
// Occupancy

/// Resident blocks of `f` per SM for `block` threads and `dyn_shared` bytes, from the
/// device configuration's per-SM limits, by the rule the device's dispatcher applies
/// (`hw::occupancy`).
fn blocks_per_sm(gpu: &UserGpu, a: &FuncAttributes, block: u32, dyn_shared: usize) -> u32 {
    if block == 0 || block > a.max_threads {
        return 0;
    }
    let shared = a.shared_bytes as u64 + dyn_shared as u64;
    if shared > gpu.max_shared_per_block() as u64 {
        return 0;
    }
    hw::occupancy::blocks_per_sm(&gpu.info().sm, block, a.regs, shared as u32)
}

/// cuOccupancyMaxActiveBlocksPerMultiprocessor.
#[unsafe(no_mangle)]
pub extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    f: Handle,
    block: c_int,
    dyn_shared: usize,
) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        let block = u32::try_from(block).map_err(|_| CuError::InvalidValue)?;
        let n = blocks_per_sm(&state()?.gpu(), &a, block, dyn_shared);
        raw::put(num_blocks, n as c_int)
    })
}

/// `size_t (*)(int blockSize)`: dynamic shared memory for a block size.
pub type BlockToShared = Option<extern "C" fn(c_int) -> usize>;

/// cuOccupancyMaxPotentialBlockSize: the block size (a multiple of 32, at most
/// `limit` when non-zero) with the most resident threads per SM, the largest on a tie;
/// `min_grid` is the grid that fills every SM at that occupancy.
#[unsafe(no_mangle)]
pub extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    f: Handle,
    b2s: BlockToShared,
    dyn_shared: usize,
    limit: c_int,
) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        if min_grid.is_null() || block_size.is_null() {
            return Err(CuError::InvalidValue);
        }
        let st = state()?;
        let (gpu, sms) = (st.gpu(), st.dev.info().sms);
        drop(st);
        let mut max = a.max_threads;
        if limit > 0 {
            max = max.min(limit as u32);
        }
        let mut best = (0u32, 0u32); // (threads resident, block size)
        let mut b = max / 32 * 32;
        while b >= 32 {
            let smem = b2s.map_or(dyn_shared, |g| g(b as c_int));
            let n = blocks_per_sm(&gpu, &a, b, smem);
            if n * b > best.0 {
                best = (n * b, b);
            }
            b -= 32;
        }
        if best.1 == 0 {
            return Err(CuError::InvalidValue);
        }
        raw::put(block_size, best.1 as c_int)?;
        raw::put(min_grid, (best.0 / best.1 * sms) as c_int)
    })
}

// ---------------------------------------------------------------------------------------
// Streams and events

/// CU_STREAM_NON_BLOCKING.
const STREAM_NON_BLOCKING: c_uint = 0x1;

fn stream_create(ph: *mut Handle, flags: c_uint, priority: c_int) -> Result<()> {
    let (gpu, ctx, h) = current()?;
    if ph.is_null() || flags & !STREAM_NON_BLOCKING != 0 {
        return Err(CuError::InvalidValue);
    }
    let priority = priority.clamp(runtime_core::stream::STREAM_PRIORITY_GREATEST, 0);
    let sh = gpu.stream_create(h, flags & STREAM_NON_BLOCKING != 0, priority)?;
    let mut st = state()?;
    let id = st.id();
    st.streams.insert(id, (ctx, sh, flags, priority));
    drop(st);
    raw::put(ph, handle(id))
}

/// cuStreamCreate: a new channel of the current context (flags 0 or CU_STREAM_NON_BLOCKING).
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    guard(|| stream_create(ph, flags, 0))
}

/// cuStreamCreateWithPriority: priorities from -3 (most urgent) to 0, clamped; PFIFO's
/// priority policy serves more urgent channels first.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamCreateWithPriority(ph: *mut Handle, flags: c_uint, priority: c_int) -> CUresult {
    guard(|| stream_create(ph, flags, priority))
}

/// cuCtxGetStreamPriorityRange: (least, greatest) = (0, -3).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    guard(|| {
        current()?;
        if !least.is_null() {
            raw::put(least, 0)?;
        }
        if !greatest.is_null() {
            raw::put(greatest, runtime_core::stream::STREAM_PRIORITY_GREATEST)?;
        }
        Ok(())
    })
}

fn stream_info(s: Handle) -> Result<(usize, StreamHandle, c_uint, c_int)> {
    if matches!(key(s), 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
        let (_, ctx, _) = current()?;
        return Ok((ctx, StreamHandle::DEFAULT, 0, 0));
    }
    state()?.streams.get(&key(s)).copied().ok_or(CuError::InvalidHandle)
}

/// cuStreamGetPriority.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetPriority(s: Handle, priority: *mut c_int) -> CUresult {
    guard(|| raw::put(priority, stream_info(s)?.3))
}

/// cuStreamGetFlags.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetFlags(s: Handle, flags: *mut c_uint) -> CUresult {
    guard(|| raw::put(flags, stream_info(s)?.2))
}

/// cuStreamGetCtx: the stream's context.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamGetCtx(s: Handle, pctx: *mut Handle) -> CUresult {
    guard(|| raw::put(pctx, handle(stream_info(s)?.0)))
}

/// cuStreamDestroy_v2: the stream's queued work completes first.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamDestroy_v2(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream(s)?;
        if sh == StreamHandle::DEFAULT {
            return Err(CuError::InvalidHandle);
        }
        state()?.streams.remove(&key(s));
        gpu.stream_destroy(h, sh)
    })
}

/// cuStreamSynchronize.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamSynchronize(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream(s)?;
        let r = gpu.stream_synchronize(h, sh);
        sanitize::flush(&gpu, h);
        r
    })
}

/// cuStreamQuery: CUDA_SUCCESS when done, CUDA_ERROR_NOT_READY while work is queued.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamQuery(s: Handle) -> CUresult {
    guard(|| {
        let (gpu, _, h, sh) = stream(s)?;
        if gpu.stream_query(h, sh)? { Ok(()) } else { Err(CuError::NotReady) }
    })
}

fn event(e: Handle) -> Result<(Arc<UserGpu>, CtxHandle, EventHandle)> {
    let st = state()?;
    let &(ctx, eh) = st.events.get(&key(e)).ok_or(CuError::InvalidHandle)?;
    let h = *st.ctxs.get(&ctx).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), h, eh))
}

/// CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING.
const EVENT_FLAGS: c_uint = 0x3;
const EVENT_DISABLE_TIMING: c_uint = 0x2;
const EVENT_INTERPROCESS: c_uint = 0x4;

/// cuEventCreate: CU_EVENT_DEFAULT, BLOCKING_SYNC (waits sleep anyway) and DISABLE_TIMING;
/// CU_EVENT_INTERPROCESS is CUDA_ERROR_NOT_SUPPORTED (no IPC).
#[unsafe(no_mangle)]
pub extern "C" fn cuEventCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    guard(|| {
        let (gpu, ctx, h) = current()?;
        if flags & EVENT_INTERPROCESS != 0 {
            return Err(CuError::NotSupported);
        }
        if ph.is_null() || flags & !EVENT_FLAGS != 0 {
            return Err(CuError::InvalidValue);
        }
        let eh = gpu.event_create(h, flags & EVENT_DISABLE_TIMING == 0)?;
        let mut st = state()?;
        let id = st.id();
        st.events.insert(id, (ctx, eh));
        drop(st);
        raw::put(ph, handle(id))
    })
}

/// cuEventDestroy_v2.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventDestroy_v2(e: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, eh) = event(e)?;
        state()?.events.remove(&key(e));
        gpu.event_destroy(h, eh)
    })
}

/// cuEventRecord: a semaphore release with the GPU timestamp, queued on the stream.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventRecord(e: Handle, s: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, eh) = event(e)?;
        let (_, _, sh_ctx, sh) = stream(s)?;
        if sh_ctx != h {
            return Err(CuError::InvalidHandle);
        }
        gpu.event_record(h, eh, sh)
    })
}

/// cuEventRecordWithFlags: flags must be 0 (CU_EVENT_RECORD_DEFAULT).
#[unsafe(no_mangle)]
pub extern "C" fn cuEventRecordWithFlags(e: Handle, s: Handle, flags: c_uint) -> CUresult {
    if flags != 0 {
        return CuError::InvalidValue.code() as CUresult;
    }
    cuEventRecord(e, s)
}

/// cuEventQuery: CUDA_SUCCESS once recorded work is done, CUDA_ERROR_NOT_READY before.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventQuery(e: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, eh) = event(e)?;
        if gpu.event_query(h, eh)? { Ok(()) } else { Err(CuError::NotReady) }
    })
}

/// cuEventSynchronize.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventSynchronize(e: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, eh) = event(e)?;
        let r = gpu.event_synchronize(h, eh);
        sanitize::flush(&gpu, h);
        r
    })
}

/// cuEventElapsedTime: simulated milliseconds between two completed records.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventElapsedTime(ms: *mut c_float, start: Handle, end: Handle) -> CUresult {
    guard(|| {
        let (gpu, h, a) = event(start)?;
        let (_, h2, b) = event(end)?;
        if h != h2 {
            return Err(CuError::InvalidHandle);
        }
        raw::put(ms, gpu.event_elapsed_ms(h, a, b)?)
    })
}

/// cuEventElapsedTime_v2 (the same).
#[unsafe(no_mangle)]
pub extern "C" fn cuEventElapsedTime_v2(ms: *mut c_float, start: Handle, end: Handle) -> CUresult {
    cuEventElapsedTime(ms, start, end)
}

/// cuStreamWaitEvent: the GPU waits (a semaphore acquire); flags must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamWaitEvent(s: Handle, e: Handle, flags: c_uint) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        let (gpu, h, eh) = event(e)?;
        let (_, _, sh_ctx, sh) = stream(s)?;
        if sh_ctx != h {
            // Waiting on an event of another context is not supported.
            return Err(CuError::NotSupported);
        }
        gpu.stream_wait_event(h, sh, eh)
    })
}
