//! The user-space platform: the simulated GPU attached in-process.
//!
//! It plays the parts a real system would: the PCI core/firmware (assigning BAR
//! addresses, enabling nothing — the driver does that), the IOMMU (registering DMA memory
//! at bus addresses), the memory bus (32-bit MMIO under the device lock), and the clock:
//!
//! - [`ClockMode::Stepped`] (default, deterministic): the runtime's YIELD runs the device
//!   until it is idle or a quantum of cycles has passed; nothing runs otherwise.
//! - [`ClockMode::Threaded`]: a device thread runs whenever work is pending and sleeps
//!   on a condition variable that doorbell writes signal.
//!
//! The GPUs of a system share one clock in stepped mode ([`Lockstep`]): whichever GPU the
//! host waits on runs first, and every other GPU is then run to the same simulated time,
//! so all GPUs' clocks read the same time after every wait, whichever GPU was waited on,
//! and work on one GPU goes on while the host waits on another, as on real hardware.
//!
//! PRINTF goes to stderr, filtered by `RGDEV_LOG` (`off`, `error`, `warn` (default),
//! `info`, `debug`).

use fake_pci::machine::{Gpus, Instant, Machine};
use fake_pci::{DeviceConfig, FakeGpu, RunState};
use fifo::SharedMem;
use hw::regs::NV_PFB_PEER;
use parking_lot::{Condvar, Mutex};
use runtime_core::platform::{Activity, DmaBuffer, Level, Platform};
use runtime_core::{CuError, Result};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

pub use hw::pci::{BAR0_BUS, BAR1_BUS};
/// Cycles one YIELD may run the device in stepped mode.
pub const YIELD_QUANTUM: u64 = 1 << 22;
/// Cycles the device runs for a poll (a query of pending work) in the stepped clock: about
/// a microsecond of a 1.5 GHz part, what a query costs a host (see `Platform::poll`).
pub const POLL_QUANTUM: u64 = 1 << 11;

/// Who advances the device clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClockMode {
    /// YIELD runs the device (deterministic).
    #[default]
    Stepped,
    /// A device thread runs while work is pending.
    Threaded,
}

/// The simulated device and what the platform keeps beside it.
pub struct SimDevice {
    gpu: Mutex<FakeGpu>,
    /// The device thread sleeps on this until a doorbell.
    wake: Condvar,
    /// Waiting host threads sleep on this until the device releases a semaphore, raises an
    /// interrupt or goes idle.
    event: Condvar,
    idle: AtomicBool,
    stop: AtomicBool,
}

impl SimDevice {
    /// Lock the device (for statistics, traces, tests).
    pub fn lock(&self) -> parking_lot::MutexGuard<'_, FakeGpu> {
        self.gpu.lock()
    }

    /// The device's clock in cycles if the device is not locked now (tools that stamp host
    /// events with simulated time, and must not wait on the device).
    pub fn try_cycles(&self) -> Option<u64> {
        self.gpu.try_lock().map(|g| g.cycles())
    }
}

/// A function that writes what kernels print.
pub type OutputFn = dyn Fn(runtime_core::platform::DeviceOutput, &[u8]) + Send + Sync;

/// A writer for what kernels print ([`Platform::device_output`]).
#[derive(Clone)]
pub struct OutputSink(pub Arc<OutputFn>);

impl fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OutputSink")
    }
}

/// The shared clock of a system's GPUs in stepped mode: the system's
/// [`Machine`](fake_pci::machine::Machine) (its interconnect, slices and stepping order,
/// in fake-pci) run on this process's threads. A YIELD or poll on one GPU runs the whole
/// system until the GPU waited on goes idle or its quantum is spent, so all clocks agree
/// between steps and every GPU's evolution is the same whichever GPU the host waits on.
///
/// Parallel and still deterministic: in a closed slice every GPU runs on its own host
/// thread (up to `threads`), in an open one the groups of GPUs that share something
/// (`Machine::groups`) do, each group's GPUs in ordinal order on one thread
/// (`fake_pci::machine`'s open and closed slices); every slice ends at a barrier. That
/// gives exactly the cycles and results of the sequential order (`Machine::run`). Peer
/// table writes take the system's lock, so the groups cannot change during a step.
pub struct Lockstep {
    devs: Mutex<Vec<Arc<SimDevice>>>,
    /// Host threads a step may use.
    threads: std::sync::atomic::AtomicUsize,
    /// The system's GPUs and links, stepped together.
    machine: Machine,
}

impl fmt::Debug for Lockstep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lockstep({} GPUs, slices of {} cycles)", self.devs.lock().len(), self.machine.slice())
    }
}

/// Environment variable: host threads the simulation of a system of GPUs may use (default:
/// the host's cores, at most one per GPU; `1` runs the GPUs on the waiting thread).
pub const THREADS_ENV: &str = "RGDEV_SIM_THREADS";

/// A step runs on several host threads only when it may last this many slices (a YIELD's
/// quantum does; a poll's does not, and starting threads would cost more than it saves).
pub const PARALLEL_SLICES: u64 = 16;

pub use fake_pci::machine::{MAX_SLICE, MIN_SLICE};

/// `dev`'s place among the system's GPUs.
fn ordinal(devs: &[Arc<SimDevice>], dev: &Arc<SimDevice>) -> usize {
    devs.iter().position(|d| Arc::ptr_eq(d, dev)).unwrap_or(0)
}

/// The system's GPUs as the machine reaches them: each behind its device's lock.
struct Devs<'a>(&'a [Arc<SimDevice>]);

impl Gpus for Devs<'_> {
    type Guard<'a>
        = parking_lot::MutexGuard<'a, FakeGpu>
    where
        Self: 'a;

    fn count(&self) -> usize {
        self.0.len()
    }

    fn lock(&self, i: usize) -> Self::Guard<'_> {
        self.0[i].gpu.lock()
    }
}

impl Lockstep {
    /// The clock of `system`'s machine, with no GPUs yet (they join in ordinal order).
    pub fn for_system(system: &fake_pci::system::SystemConfig) -> Arc<Self> {
        let n = system.len();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = std::env::var(THREADS_ENV).ok().and_then(|v| v.parse().ok()).unwrap_or(cores).clamp(1, n.max(1));
        Arc::new(Self {
            devs: Mutex::new(Vec::new()),
            threads: std::sync::atomic::AtomicUsize::new(threads),
            machine: Machine::new(system),
        })
    }

    /// Use at most `n` host threads per step (at least 1).
    pub fn set_threads(&self, n: usize) {
        self.threads.store(n.max(1), Ordering::Relaxed);
    }

    /// Host threads a step may use.
    pub fn threads(&self) -> usize {
        self.threads.load(Ordering::Relaxed)
    }

    /// Run `f` under the system's lock: no step runs meanwhile (a peer table write).
    fn exclusive<T>(&self, f: impl FnOnce() -> T) -> T {
        let _devs = self.devs.lock();
        f()
    }

    /// Add `dev` (the next ordinal): its clock starts at the system's time.
    fn join(&self, dev: &Arc<SimDevice>) {
        let mut devs = self.devs.lock();
        if let Some(first) = devs.first() {
            Machine::join(&first.gpu.lock(), &mut dev.gpu.lock());
        }
        devs.push(dev.clone());
    }

    /// Pass `cycles` of `dev`'s clock (one of ours) on the whole system (see
    /// [`Machine::pass`]).
    fn pass(&self, dev: &Arc<SimDevice>, cycles: u64) {
        let devs = self.devs.lock();
        self.machine.pass(&Devs(&devs), ordinal(&devs, dev), cycles);
    }

    /// Run the system until `dev` (one of ours) goes idle or `quantum` of its cycles pass,
    /// slice by slice; returns the system's state.
    fn run(&self, dev: &Arc<SimDevice>, quantum: u64) -> RunState {
        let devs = self.devs.lock();
        let gpus = Devs(&devs);
        let me = ordinal(&devs, dev);
        let slice = self.machine.slice_of(&gpus, me);
        // Threads pay for themselves over many slices (a YIELD), not a poll's few: the groups
        // are worked out only then.
        if devs.len() == 1 || quantum.div_ceil(slice) < PARALLEL_SLICES || self.threads() == 1 {
            return self.machine.run(&gpus, me, quantum);
        }
        let plan = self.machine.plan(&gpus);
        // Closed slices: every GPU alone; open ones: each group's GPUs together, in order.
        let alone: Vec<Vec<usize>> = (0..devs.len()).map(|i| vec![i]).collect();
        let threads = self.threads().min(devs.len()).max(1);
        if threads == 1 {
            return self.machine.run(&gpus, me, quantum);
        }
        // Thread t runs units t, t + threads, ...
        let parts = |units: &[Vec<usize>]| -> Vec<Vec<usize>> {
            (0..threads).map(|t| units.iter().skip(t).step_by(threads).flatten().copied().collect()).collect()
        };
        let (open_parts, closed_parts) = (parts(&plan.groups), parts(&alone));
        let idle: Vec<AtomicBool> = devs.iter().map(|_| AtomicBool::new(false)).collect();
        let run_part = |t: usize, open: bool, to: Instant| {
            let part = if open { &open_parts[t] } else { &closed_parts[t] };
            for &i in part {
                let s = self.machine.run_one(&gpus, i, to, open, &plan);
                idle[i].store(s == RunState::Idle, Ordering::Release);
            }
        };
        let start = Instant::of(&devs[me].gpu.lock());
        // Every slice: the target and whether it is open, a barrier, each thread its
        // part, a barrier.
        let target = std::sync::atomic::AtomicU64::new(0);
        let open = AtomicBool::new(false);
        let stop = AtomicBool::new(false);
        let barrier = std::sync::Barrier::new(threads);
        std::thread::scope(|scope| {
            for t in 1..threads {
                let (target, open, stop, barrier, run_part) = (&target, &open, &stop, &barrier, &run_part);
                scope.spawn(move || {
                    loop {
                        barrier.wait();
                        if stop.load(Ordering::Acquire) {
                            break;
                        }
                        let to = Instant { cycles: target.load(Ordering::Acquire), mhz: start.mhz };
                        run_part(t, open.load(Ordering::Acquire), to);
                        barrier.wait();
                    }
                });
            }
            let mut state = RunState::Busy;
            for c in Machine::slices(start.cycles, quantum, slice) {
                let o = self.machine.begin_slice(&plan);
                target.store(c, Ordering::Release);
                open.store(o, Ordering::Release);
                barrier.wait();
                run_part(0, o, Instant { cycles: c, mhz: start.mhz });
                barrier.wait();
                if idle[me].load(Ordering::Acquire) {
                    state = self.machine.settle(&gpus, &idle);
                    break;
                }
            }
            stop.store(true, Ordering::Release);
            barrier.wait();
            state
        })
    }
}

/// The user-space [`Platform`].
pub struct UserPlatform {
    dev: Arc<SimDevice>,
    /// The system's shared clock (stepped mode), when this GPU is one of several.
    lockstep: Option<Arc<Lockstep>>,
    /// Where firmware put BAR0 (the probe restores it after sizing).
    bar0: u64,
    mode: ClockMode,
    log_level: Option<Level>,
    thread: Mutex<Option<JoinHandle<()>>>,
    progress: Arc<Mutex<Option<Progress>>>,
    output: Option<OutputSink>,
    separate_va: bool,
    /// The host threads that used the device (the clock's owner asks whether they block).
    threads: Arc<crate::threads::Threads>,
}

/// Environment variable: `1` shows a progress line on stderr while the host waits for the
/// device (`rgdev run` sets it when stderr is a terminal).
pub const PROGRESS_ENV: &str = "RGDEV_PROGRESS";

/// Simulated cycles between two looks of the progress bar at the work in flight (the
/// bar itself redraws at most ten times a second of host time).
pub const PROGRESS_EVERY: u64 = 1 << 10;

/// The progress bar (indicatif) on stderr: blocks done of the grids in flight, simulated
/// time and warp instructions issued, updated from the device's progress watch as the
/// device works (mid-kernel too), cleared when it goes idle.
#[derive(Default)]
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    clock_mhz: u32,
}

impl Progress {
    fn show(&mut self, s: &fake_pci::watch::Snapshot) {
        let bar = self.bar.get_or_insert_with(|| {
            let b =
                indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr_with_hz(10));
            let style = indicatif::ProgressStyle::with_template("rgdev {bar:24} {pos}/{len} blocks {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            b.set_style(style.progress_chars("#>-"));
            b
        });
        bar.set_length(s.blocks);
        bar.set_position(s.blocks_done);
        let ms = s.cycle as f64 / f64::from(self.clock_mhz.max(1)) / 1e3;
        bar.set_message(format!("{ms:.3} ms  {:.2} M warp instr", s.warp_instructions as f64 / 1e6));
    }

    fn idle(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

impl UserPlatform {
    /// Keep this device's contexts out of the process's unified range (see
    /// `DeviceOptions::separate_va`).
    pub fn set_separate_va(&mut self, on: bool) {
        self.separate_va = on;
    }

    /// Send what kernels print to `sink` (None: this process's Rust standard streams).
    pub fn set_output(&mut self, sink: Option<OutputSink>) {
        self.output = sink;
    }

    /// Build a board with `cfg`, assign its BARs as firmware would, and attach it.
    pub fn new(cfg: DeviceConfig, mode: ClockMode) -> Self {
        Self::new_at(cfg, mode, BAR0_BUS, BAR1_BUS)
    }

    /// [`UserPlatform::new`] with the BARs at `bar0` and `bar1` (a GPU of a system, at its
    /// `fake_pci::system::Placement`).
    pub fn new_at(cfg: DeviceConfig, mode: ClockMode, bar0: u64, bar1: u64) -> Self {
        let mut gpu = FakeGpu::new(cfg);
        gpu.assign_bars(bar0, bar1);
        let dev = Arc::new(SimDevice {
            gpu: Mutex::new(gpu),
            wake: Condvar::new(),
            event: Condvar::new(),
            idle: AtomicBool::new(true),
            stop: AtomicBool::new(false),
        });
        let thread = (mode == ClockMode::Threaded).then(|| {
            let d = dev.clone();
            std::thread::Builder::new()
                .name("rgdev-device".into())
                .spawn(move || device_thread(&d))
                .expect("spawn the device thread")
        });
        let log_level = match std::env::var("RGDEV_LOG").as_deref() {
            Ok("off") => None,
            Ok("error") => Some(Level::Error),
            Ok("info") => Some(Level::Info),
            Ok("debug") => Some(Level::Debug),
            _ => Some(Level::Warn),
        };
        let progress = std::env::var(PROGRESS_ENV).is_ok_and(|v| v == "1");
        let p = Self {
            dev,
            mode,
            log_level,
            thread: Mutex::new(thread),
            progress: Arc::default(),
            output: None,
            separate_va: false,
            threads: Arc::default(),
            lockstep: None,
            bar0,
        };
        p.set_progress(progress);
        p
    }

    /// Make this GPU the next of the system whose shared clock `clock` is (stepped mode:
    /// a threaded GPU runs on its own thread and keeps its own clock).
    pub fn set_lockstep(&mut self, clock: Arc<Lockstep>) {
        if self.mode == ClockMode::Stepped {
            clock.join(&self.dev);
            self.lockstep = Some(clock);
        }
    }

    /// Run the device for up to `quantum` cycles (with the rest of its system, if any).
    fn run_stepped(&self, quantum: u64) -> RunState {
        match &self.lockstep {
            Some(l) => l.run(&self.dev, quantum),
            None => self.dev.gpu.lock().run(quantum),
        }
    }

    /// Show (or stop showing) a progress bar on stderr while the device works.
    pub fn set_progress(&self, on: bool) {
        let mut g = self.dev.gpu.lock();
        if let Some(old) = self.progress.lock().as_mut() {
            old.idle();
        }
        *self.progress.lock() = on.then(|| Progress { bar: None, clock_mhz: g.config().board.clock_mhz });
        let watch = on.then(|| {
            let p = self.progress.clone();
            fake_pci::watch::Watch::new(PROGRESS_EVERY, move |s| {
                if let Some(p) = p.lock().as_mut() {
                    p.show(s);
                }
            })
        });
        g.set_watch(watch);
    }

    /// Clear the progress bar when the device has gone idle.
    fn progress_idle(&self, busy: bool) {
        if !busy && let Some(p) = self.progress.lock().as_mut() {
            p.idle();
        }
    }

    /// The attached device.
    pub fn device(&self) -> &Arc<SimDevice> {
        &self.dev
    }

    /// The host threads that used the device (see [`crate::threads`]).
    pub fn threads(&self) -> &Arc<crate::threads::Threads> {
        &self.threads
    }

    /// The clock mode.
    pub fn mode(&self) -> ClockMode {
        self.mode
    }

    /// A host copy of `bytes` between pageable memory and a staging buffer (to the device
    /// when `h2d`) takes the host time the preset gives it (`pcie.staging_h2d_mbps`,
    /// `pcie.staging_d2h_mbps`), and the device runs meanwhile: the stepped clock passes
    /// that many cycles, the DMA of the staging buffer before it going on (a system's GPUs
    /// all pass them, in their lockstep). A modelled time, never the host's own: the same
    /// copy costs the same cycles on any host. The threaded clock runs beside the host on
    /// its own: there the copy takes no device time.
    fn host_copy(&self, bytes: usize, h2d: bool) {
        if self.mode != ClockMode::Stepped || bytes == 0 {
            return;
        }
        let mut g = self.dev.gpu.lock();
        let cfg = g.config();
        let mbps = if h2d { cfg.pcie.staging_h2d_mbps } else { cfg.pcie.staging_d2h_mbps };
        if mbps == 0 {
            return;
        }
        // bytes / (mbps * 1e6 B/s) seconds at clock_mhz * 1e6 cycles a second.
        let cycles = (bytes as u128 * cfg.board.clock_mhz as u128).div_ceil(mbps as u128);
        let cycles = cycles.min(u64::MAX as u128) as u64;
        match &self.lockstep {
            Some(clock) => {
                drop(g);
                clock.pass(&self.dev, cycles);
            }
            None => g.step(cycles),
        }
    }
}

/// Cycles one quantum of the device thread runs between chances for the host to act.
const THREAD_QUANTUM: u64 = 1 << 16;

fn device_thread(d: &SimDevice) {
    let mut g = d.gpu.lock();
    while !d.stop.load(Ordering::Acquire) {
        let before = (g.stats().semaphores, g.stats().copies, g.irq_asserted());
        let state = g.run(THREAD_QUANTUM);
        if (g.stats().semaphores, g.stats().copies, g.irq_asserted()) != before || state == RunState::Idle {
            // A fence or event may have landed: wake the waiters.
            d.event.notify_all();
        }
        match state {
            RunState::Idle => {
                d.idle.store(true, Ordering::Release);
                d.wake.wait(&mut g);
            }
            RunState::Busy => {
                // Let the host take the lock between quanta.
                parking_lot::MutexGuard::bump(&mut g);
            }
        }
    }
}

impl Drop for UserPlatform {
    fn drop(&mut self) {
        self.dev.stop.store(true, Ordering::Release);
        {
            let _g = self.dev.gpu.lock();
            self.dev.wake.notify_all();
        }
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }
}

impl Platform for UserPlatform {
    type RawMutex = parking_lot::RawMutex;

    fn log(&self, level: Level, args: fmt::Arguments<'_>) {
        if self.log_level.is_some_and(|max| level <= max) {
            eprintln!("[rgdev {level:?}] {args}");
        }
    }

    /// Device `printf` to the program's standard output, failed `assert`s to its standard
    /// error, each flushed at once (the program's own output around it is in order).
    fn device_output(&self, to: runtime_core::platform::DeviceOutput, bytes: &[u8]) {
        use std::io::Write;
        if let Some(sink) = &self.output {
            return (sink.0)(to, bytes);
        }
        let _ = match to {
            runtime_core::platform::DeviceOutput::Stdout => {
                let mut o = std::io::stdout().lock();
                o.write_all(bytes).and_then(|()| o.flush())
            }
            runtime_core::platform::DeviceOutput::Stderr => std::io::stderr().lock().write_all(bytes),
        };
    }

    fn yield_now(&self) -> Activity {
        self.threads.note();
        match self.mode {
            ClockMode::Stepped => {
                let busy = self.run_stepped(YIELD_QUANTUM) == RunState::Busy;
                self.progress_idle(busy);
                if busy { Activity::Progress } else { Activity::Idle }
            }
            ClockMode::Threaded => {
                // Sleep until the device thread reports a semaphore release, an interrupt
                // or idleness (or 2 ms pass): waits do not burn the host CPU.
                let mut g = self.dev.gpu.lock();
                let mut busy = !self.dev.idle.load(Ordering::Acquire);
                if busy {
                    self.dev.event.wait_for(&mut g, std::time::Duration::from_millis(2));
                    busy = !self.dev.idle.load(Ordering::Acquire);
                }
                self.progress_idle(busy);
                if busy { Activity::Progress } else { Activity::Idle }
            }
        }
    }

    /// The host's scheduler runs another thread (the one running the host function).
    fn relax(&self) {
        std::thread::yield_now();
    }

    fn poll(&self) {
        self.threads.note();
        // The device thread runs on its own; the stepped clock runs POLL_QUANTUM cycles.
        if self.mode == ClockMode::Stepped {
            let busy = self.run_stepped(POLL_QUANTUM) == RunState::Busy;
            self.progress_idle(busy);
        }
    }

    /// The copy, then the host's time for it on the device clock (see [`UserPlatform::host_copy`]).
    fn copy_from_user(&self, dst: &SharedMem, dst_off: usize, src: &[u8]) -> Result<()> {
        dst.write(dst_off, src).map_err(|_| CuError::InvalidValue)?;
        self.host_copy(src.len(), true);
        Ok(())
    }

    /// The copy, then the host's time for it on the device clock.
    fn copy_to_user(&self, dst: &mut [u8], src: &SharedMem, src_off: usize) -> Result<()> {
        src.read(src_off, dst).map_err(|_| CuError::InvalidValue)?;
        self.host_copy(dst.len(), false);
        Ok(())
    }

    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer> {
        let (mem, bus) = self.dev.gpu.lock().dma_alloc(len).map_err(|_| CuError::OutOfMemory)?;
        Ok(DmaBuffer { mem, bus })
    }

    fn dma_register(&self, mem: Arc<SharedMem>) -> Result<DmaBuffer> {
        let bus = self.dev.gpu.lock().dma_map(mem.clone()).map_err(|_| CuError::InvalidValue)?;
        Ok(DmaBuffer { mem, bus })
    }

    fn dma_free(&self, buf: &DmaBuffer) {
        self.dev.gpu.lock().unmap_dma(buf.bus);
    }

    fn unified_va(&self) -> Option<runtime_core::range::SharedVa> {
        if self.separate_va { None } else { crate::hostmem::unified() }
    }

    fn dma_alloc_at(&self, va: u64, len: usize) -> Result<DmaBuffer> {
        let mem = Arc::new(crate::hostmem::alloc_at(va, len).ok_or(CuError::OutOfMemory)?);
        let bus = self.dev.gpu.lock().dma_map(mem.clone()).map_err(|_| CuError::OutOfMemory)?;
        Ok(DmaBuffer { mem, bus })
    }

    fn cfg_read32(&self, off: u16) -> u32 {
        self.dev.gpu.lock().cfg_read32(off)
    }

    fn cfg_write32(&self, off: u16, value: u32) {
        self.dev.gpu.lock().cfg_write32(off, value)
    }

    fn mmio_read32(&self, addr: u64) -> u32 {
        self.dev.gpu.lock().mmio_read32(addr)
    }

    fn mmio_write32(&self, addr: u64, value: u32) {
        self.threads.note();
        // A peer table write waits for the system's step: its GPU groups stand meanwhile.
        if let Some(l) = &self.lockstep {
            let off = addr.wrapping_sub(self.bar0);
            let last = NV_PFB_PEER.offset_at(hw::mmu::PEERS as u32 - 1) as u64;
            let table = NV_PFB_PEER.offset_at(0) as u64..=last;
            if table.contains(&off) {
                return l.exclusive(|| self.write_now(addr, value));
            }
        }
        self.write_now(addr, value)
    }
}

impl UserPlatform {
    /// Write a register now.
    fn write_now(&self, addr: u64, value: u32) {
        let mut g = self.dev.gpu.lock();
        let effect = g.mmio_write32(addr, value);
        if effect.kick && self.mode == ClockMode::Threaded {
            self.dev.idle.store(false, Ordering::Release);
            self.dev.wake.notify_one();
        }
    }
}
