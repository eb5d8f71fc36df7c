//! The library's process-wide state: the system's GPUs (one `Device` each, in ordinal
//! order, with its primary context), the per-thread context stack, and `guard`, which runs
//! every entry point (CUDA's error codes, no unwinding into C). Every handle names its GPU
//! (`runtime_core::ordinal_of`), so a call on a handle goes to that handle's GPU, and a
//! call on the current context to the current context's.

use crate::{CUdevice, CUresult, Handle, link, profile, sanitize};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Device;
use backend_user::DeviceConfig;
use backend_user::Result;
use backend_user::UserDev;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_uint;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::OnceLock;
use std::sync::atomic::AtomicU64;

/// Pinned host memory of a context (cuMemAllocHost, cuMemHostAlloc), by its host address.
pub(crate) struct HostAlloc {
    pub(crate) ctx: CtxHandle,
    /// The device address of the program's first byte.
    pub(crate) dptr: u64,
    pub(crate) bytes: usize,
    /// The device mapping to free: `dptr` for cuMemHostAlloc memory, the first registered
    /// page's address for cuMemHostRegister.
    pub(crate) mapping: u64,
    /// cuMemHostAlloc's or cuMemHostRegister's flags.
    pub(crate) flags: c_uint,
    /// Registered (cuMemHostRegister) rather than allocated.
    pub(crate) registered: bool,
    /// Keeps the memory behind the program's host pointer alive.
    pub(crate) _mem: Arc<fifo::SharedMem>,
}

/// What `rgdev run --stats` reports: counters outside the library lock, so that counting
/// a launch or a copy takes no lock.
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) launches: AtomicU64,
    pub(crate) copies: AtomicU64,
    pub(crate) copy_bytes: AtomicU64,
}

pub(crate) static STATS: Stats =
    Stats { launches: AtomicU64::new(0), copies: AtomicU64::new(0), copy_bytes: AtomicU64::new(0) };

/// One GPU of the system: its runtime and what the library keeps per device.
pub(crate) struct Board {
    pub(crate) dev: Device,
    /// The board's configuration, for the statistics file and the device's name (device
    /// attributes come from the device through the runtime).
    pub(crate) config: DeviceConfig,
    /// The primary context and its retain count.
    pub(crate) primary: Option<(CtxHandle, u32)>,
    /// The primary context's flags (cuDevicePrimaryCtxSetFlags), kept across resets.
    pub(crate) primary_flags: c_uint,
}

/// The library's state. Handles are the runtime's (its one handle table per GPU:
/// `CUcontext`, `CUmodule`, `CUfunction`, `CUstream` and `CUevent` are runtime-core's
/// handle values, which name their GPU and context and are checked on every use); what is
/// kept here is what the runtime does not know: the primary contexts' retain counts, the
/// program's pinned host pointers, and the profile.
pub(crate) struct State {
    /// The GPUs, by ordinal (`CUdevice`).
    pub(crate) gpus: Vec<Board>,
    /// Every GPU of the system when the program sees fewer (one logical GPU over all:
    /// the statistics and trace still show each), else empty.
    pub(crate) physical: Vec<Board>,
    /// The system they form (its name and interconnect).
    pub(crate) system: backend_user::SystemConfig,
    pub(crate) host: HashMap<usize, HostAlloc>,
    /// Managed memory of every context (see `managed`).
    pub(crate) managed: Vec<crate::managed::Range>,
    pub(crate) profile: profile::Profile,
    /// Buffer ids handed out (CU_POINTER_ATTRIBUTE_BUFFER_ID), by (context, allocation base).
    pub(crate) buffers: HashMap<(u64, u64), u64>,
    /// Link states (cuLinkCreate) by handle.
    pub(crate) links: HashMap<u64, link::Link>,
}

impl State {
    /// Device `dev` (CUDA_ERROR_INVALID_DEVICE for no such ordinal).
    pub(crate) fn device(&self, dev: CUdevice) -> Result<&Board> {
        usize::try_from(dev).ok().and_then(|i| self.gpus.get(i)).ok_or(CuError::InvalidDevice)
    }

    /// Device `dev`, to change.
    pub(crate) fn device_mut(&mut self, dev: CUdevice) -> Result<&mut Board> {
        usize::try_from(dev).ok().and_then(|i| self.gpus.get_mut(i)).ok_or(CuError::InvalidDevice)
    }

    /// The runtime of the GPU handle `h` names (a context's or an object's). A handle
    /// naming no GPU of the system goes to GPU 0, whose runtime refuses it as a forged
    /// handle of its kind.
    pub(crate) fn gpu_of(&self, h: u64) -> Arc<UserDev> {
        let i = runtime_core::ordinal_of(h) as usize;
        self.gpus.get(i).unwrap_or(&self.gpus[0]).dev.gpu().clone()
    }

    /// The devices, in ordinal order.
    pub(crate) fn devices(&self) -> impl Iterator<Item = &Device> {
        self.gpus.iter().map(|g| &g.dev)
    }

    /// The device whose primary context `h` is, if it is one.
    pub(crate) fn primary_of(&self, h: CtxHandle) -> Option<usize> {
        self.gpus.iter().position(|g| g.primary.is_some_and(|p| p.0 == h))
    }

    /// Take context `h` and its pinned host memory out of the library's state; the caller
    /// destroys it with [`Doomed::destroy`] after dropping the lock, so that waiting for
    /// the context's work (a hung kernel waits for the watchdog) blocks no other thread.
    pub(crate) fn take_ctx(&mut self, h: CtxHandle) -> Result<Doomed> {
        let gpu = self.gpu_of(h.0);
        if !gpu.ctx_exists(h) {
            return Err(CuError::InvalidContext);
        }
        self.profile.collect(&shown(&self.gpus, &self.physical));
        let host: Vec<HostAlloc> = self.host.extract_if(|_, a| a.ctx == h).map(|(_, a)| a).collect();
        let managed = self.managed.extract_if(.., |r| r.ctx == h).collect();
        self.buffers.retain(|(c, _), _| *c != h.0);
        Ok(Doomed { gpu, h, _host: host, _managed: managed })
    }
}

/// A context on its way out, to be destroyed without the library lock.
pub(crate) struct Doomed {
    pub(crate) gpu: Arc<UserDev>,
    pub(crate) h: CtxHandle,
    /// Its pinned host memory stays alive until the context's work has drained.
    pub(crate) _host: Vec<HostAlloc>,
    /// And its managed memory.
    pub(crate) _managed: Vec<crate::managed::Range>,
}

impl Doomed {
    pub(crate) fn destroy(self) -> Result<()> {
        // Its accesses go, and its memory leaves the contexts that reached it (peer access).
        crate::peer::peers().forget(self.h);
        // Its pinned and managed memory leaves the contexts that reached it.
        crate::demand::uvm().context_gone(&self.gpu, self.h);
        if sanitize::on() {
            let _ = self.gpu.ctx_synchronize(self.h);
            sanitize::flush(&self.gpu, self.h);
        }
        self.gpu.ctx_destroy(self.h)
    }
}

/// The boards the statistics and trace show: every GPU of the system (`physical` when the
/// program sees fewer, else `gpus`). A function of the two fields, not of the state, so
/// that the profile beside them can be borrowed at once.
pub(crate) fn boards<'a>(gpus: &'a [Board], physical: &'a [Board]) -> &'a [Board] {
    if physical.is_empty() { gpus } else { physical }
}

/// The devices the statistics and trace show: every GPU of the system (see [`boards`]).
pub(crate) fn shown(gpus: &[Board], physical: &[Board]) -> Vec<Device> {
    boards(gpus, physical).iter().map(|b| b.dev.clone()).collect()
}

pub(crate) static STATE: OnceLock<Mutex<State>> = OnceLock::new();

thread_local! {
    /// This thread's context stack (the top is current).
    pub(crate) static STACK: RefCell<Vec<CtxHandle>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn state() -> Result<MutexGuard<'static, State>> {
    // CUDA: host functions must not call CUDA (their thread may be one the driver waits on).
    if in_host_function() {
        return Err(CuError::NotPermitted);
    }
    let m = STATE.get().ok_or(CuError::NotInitialized)?;
    Ok(m.lock().unwrap_or_else(|e| e.into_inner()))
}

std::thread_local! {
    /// How deep this thread is in host functions (cuLaunchHostFunc, cuStreamAddCallback)
    /// the runtime runs.
    static HOST_FUNCTION: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether this thread is running a host function now: every call that reaches the
/// library's state answers CUDA_ERROR_NOT_PERMITTED, as CUDA does, and changes nothing.
pub(crate) fn in_host_function() -> bool {
    HOST_FUNCTION.with(std::cell::Cell::get) > 0
}

/// Run host function `f` (the program's) marked as one.
pub(crate) fn as_host_function(f: impl FnOnce()) {
    struct Mark;
    impl Drop for Mark {
        fn drop(&mut self) {
            HOST_FUNCTION.with(|d| d.set(d.get() - 1));
        }
    }
    HOST_FUNCTION.with(|d| d.set(d.get() + 1));
    let _mark = Mark;
    f();
}

pub(crate) fn initialized() -> Result<()> {
    state().map(drop)
}

/// The runtime of the GPU handle `h` names (once initialized), without holding the
/// library lock after.
pub(crate) fn gpu_of(h: u64) -> Result<Arc<UserDev>> {
    Ok(state()?.gpu_of(h))
}

/// The runtime of device `dev`, without holding the library lock after.
pub(crate) fn gpu_at(dev: CUdevice) -> Result<Arc<UserDev>> {
    Ok(state()?.device(dev)?.dev.gpu().clone())
}

/// A runtime handle value as a C handle.
pub(crate) fn handle(v: u64) -> Handle {
    std::ptr::without_provenance_mut(v as usize)
}

/// A C handle's runtime handle value.
pub(crate) fn key(h: Handle) -> u64 {
    h.addr() as u64
}

/// The calling thread's current context: (runtime, context).
pub(crate) fn current() -> Result<(Arc<UserDev>, CtxHandle)> {
    let st = state()?;
    let h = STACK.with(|s| s.borrow().last().copied()).ok_or(CuError::InvalidContext)?;
    let gpu = st.gpu_of(h.0);
    drop(st);
    if !gpu.ctx_exists(h) {
        return Err(CuError::InvalidContext);
    }
    Ok((gpu, h))
}

/// Check that `dev` is a device ordinal of the system (CUDA_ERROR_INVALID_DEVICE).
pub(crate) fn check_device(dev: CUdevice) -> Result<()> {
    state()?.device(dev).map(drop)
}

/// The ordinal (`CUdevice`) of the GPU context `h` is on.
pub(crate) fn device_of(h: CtxHandle) -> CUdevice {
    runtime_core::ordinal_of(h.0) as CUdevice
}

/// Run an entry point: its error as CUDA's number, a panic as CUDA_ERROR_UNKNOWN.
pub(crate) fn guard(f: impl FnOnce() -> Result<()>) -> CUresult {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => e.code() as CUresult,
        Err(_) => CuError::Unknown.code() as CUresult,
    }
}

/// After the host waited for context `h`'s work: the sanitizers' findings are printed, and
/// the statistics file is brought up to date (see `profile::Profile::checkpoint_due`).
pub(crate) fn synchronized(gpu: &UserDev, h: CtxHandle) {
    // Host access after synchronization: this GPU's pages of paged managed memory are back
    // on the host.
    crate::demand::uvm().to_host_of(gpu.ordinal() as usize);
    sanitize::flush(gpu, h);
    if let Ok(mut st) = state()
        && st.profile.checkpoint_due()
    {
        let st = &mut *st;
        let st = &mut *st;
        let shown = shown(&st.gpus, &st.physical);
        st.profile.collect(&shown);
        st.profile.write_json(&shown);
    }
}
