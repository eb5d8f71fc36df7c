//! The library's process-wide state: the board, its contexts and handle tables, the
//! per-thread context stack, and `guard`, which runs every entry point (CUDA's error codes,
//! no unwinding into C).

use super::*;

pub(crate) struct Func {
    pub(crate) ctx: usize,
    pub(crate) module: usize,
    pub(crate) f: FuncHandle,
}

pub(crate) struct HostAlloc {
    pub(crate) ctx: usize,
    pub(crate) dptr: u64,
    pub(crate) bytes: usize,
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

pub(crate) struct State {
    pub(crate) dev: Device,
    /// The board's configuration, for the statistics file only (device attributes come
    /// from the device through the runtime).
    pub(crate) config: DeviceConfig,
    pub(crate) next: usize,
    pub(crate) ctxs: HashMap<usize, CtxHandle>,
    /// The primary context and its retain count.
    pub(crate) primary: Option<(usize, u32)>,
    pub(crate) modules: HashMap<usize, (usize, ModuleHandle)>,
    pub(crate) funcs: HashMap<usize, Func>,
    pub(crate) host: HashMap<usize, HostAlloc>,
    /// Streams: (context, runtime stream, flags, CUDA priority).
    pub(crate) streams: HashMap<usize, (usize, StreamHandle, c_uint, c_int)>,
    /// Events: (context, runtime event).
    pub(crate) events: HashMap<usize, (usize, EventHandle)>,
    pub(crate) profile: profile::Profile,
}

impl State {
    pub(crate) fn id(&mut self) -> usize {
        // Handles are multiples of 16 from 0x1000 up, never reused: a stale handle misses.
        self.next += 16;
        self.next
    }

    pub(crate) fn gpu(&self) -> Arc<UserGpu> {
        self.dev.gpu().clone()
    }

    /// Take context `id` and everything naming it out of the tables; the caller destroys
    /// it with [`Doomed::destroy`] after dropping the lock, so that waiting for the
    /// context's work (a hung kernel waits for the watchdog) blocks no other thread.
    pub(crate) fn take_ctx(&mut self, id: usize) -> Result<Doomed> {
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
pub(crate) struct Doomed {
    pub(crate) gpu: Arc<UserGpu>,
    pub(crate) h: CtxHandle,
    /// Its pinned host memory stays alive until the context's work has drained.
    pub(crate) _host: Vec<HostAlloc>,
}

impl Doomed {
    pub(crate) fn destroy(self) -> Result<()> {
        if sanitize::on() {
            let _ = self.gpu.ctx_synchronize(self.h);
            sanitize::flush(&self.gpu, self.h);
        }
        self.gpu.ctx_destroy(self.h)
    }
}

pub(crate) static STATE: OnceLock<Mutex<State>> = OnceLock::new();

thread_local! {
    /// This thread's context stack (the top is current).
    pub(crate) static STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn state() -> Result<MutexGuard<'static, State>> {
    let m = STATE.get().ok_or(CuError::NotInitialized)?;
    Ok(m.lock().unwrap_or_else(|e| e.into_inner()))
}

pub(crate) fn initialized() -> Result<()> {
    state().map(drop)
}

pub(crate) fn handle(id: usize) -> Handle {
    std::ptr::without_provenance_mut(id)
}

pub(crate) fn key(h: Handle) -> usize {
    h.addr()
}

/// The calling thread's current context: (runtime, context id, runtime handle).
pub(crate) fn current() -> Result<(Arc<UserGpu>, usize, CtxHandle)> {
    let st = state()?;
    let id = STACK.with(|s| s.borrow().last().copied()).ok_or(CuError::InvalidContext)?;
    let h = *st.ctxs.get(&id).ok_or(CuError::InvalidContext)?;
    Ok((st.gpu(), id, h))
}

pub(crate) fn check_device(dev: CUdevice) -> Result<()> {
    initialized()?;
    if dev != 0 {
        return Err(CuError::InvalidDevice);
    }
    Ok(())
}

/// Run an entry point: its error as CUDA's number, a panic as CUDA_ERROR_UNKNOWN.
pub(crate) fn guard(f: impl FnOnce() -> Result<()>) -> CUresult {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => e.code() as CUresult,
        Err(_) => CuError::Unknown.code() as CUresult,
    }
}
