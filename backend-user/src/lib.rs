//! # backend-user — rgdev in user space
//!
//! The user-space platform ([`platform::UserPlatform`]) attaches the simulated GPU
//! in-process; the safe API below wraps `runtime-core` in RAII types:
//!
//! ```
//! use backend_user::Device;
//! let dev = Device::open().unwrap();
//! let ctx = dev.create_context().unwrap();
//! let mut buf = ctx.alloc::<u32>(1024).unwrap();
//! let data: Vec<u32> = (0..1024).collect();
//! buf.copy_from(&data).unwrap();
//! let mut back = vec![0u32; 1024];
//! buf.copy_to(&mut back).unwrap();
//! assert_eq!(back, data);
//! ```
#![deny(unsafe_code)]
#![deny(missing_docs)]

/// The README's worked example, compiled and run by `cargo test` as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeWorkedExample;

mod hostmem;
mod managed; // managed memory of a system (cudaMallocManaged), paged by its `Uvm`
pub mod owner; // the clock's owner: host functions no thread waits for
pub mod platform;
pub mod preset;
pub mod profile; // statistics, summaries and traces of a run (`rgdev run --stats-json`, `--trace`)
mod system; // a system of GPUs: a device per GPU at its place on the buses
pub mod threads; // which host threads use a device, and whether they are blocked

pub use fake_pci::DeviceConfig;
pub use fake_pci::TraceFilter;
pub use fake_pci::copy::CopyStats;
pub use fake_pci::system::SystemConfig;
pub use fake_pci::timing::{KernelStats, OccupancySample, Stalls};
pub use hostmem::UVA_ENV;
pub use managed::{Advice, Location, Managed};
pub use platform::{ClockMode, Lockstep, SimDevice, UserPlatform};
pub use runtime_core::{
    CheckMode, CheckReport, ContextConfig, CtxHandle, CuError, DeviceInfo, Fence, FuncAttributes, LaunchConfig,
    MemsetValue, Params, Result, StreamHandle,
};
pub use system::{System, UserPeers, UserUvm};

use bytemuck::Pod;
use runtime_core::Gpu;
use std::marker::PhantomData;
use std::sync::Arc;

/// The runtime type for this platform: one GPU.
pub type UserGpu = Gpu<UserPlatform>;

/// The device a program sees on this platform: one GPU, or one logical GPU over several
/// (`runtime_core::logical`). What the Rust API and the C ABI call.
pub type UserDev = runtime_core::LogicalGpu<UserPlatform>;

/// How to build the simulated board.
#[derive(Clone, Debug, Default)]
pub struct DeviceOptions {
    /// Board configuration.
    pub config: DeviceConfig,
    /// Clock mode.
    pub clock: ClockMode,
    /// Record up to this many MMIO accesses from power-on (the probe included); read them
    /// with `sim().lock().trace_take()` or `trace_write`.
    pub trace: Option<usize>,
    /// What the MMIO trace keeps (default: every access, unfolded).
    pub trace_filter: TraceFilter,
    /// Stay out of the process's unified address range: each context gets a VA range of
    /// its own, as with `RGDEV_UVA=0` (tests comparing runs in one process use it, since
    /// the unified range is shared by every device of the process, so where allocations
    /// land, and with it TLB and cache placement, depends on the other devices' work).
    pub separate_va: bool,
    /// Where the GPU sits on the buses (a GPU of a system); None: GPU 0's place.
    pub placement: Option<fake_pci::system::Placement>,
    /// The GPU's ordinal in its system, which its handles carry (`runtime_core::ordinal_of`).
    pub ordinal: u32,
    /// The clock this GPU shares with the other GPUs of its system (stepped mode; see
    /// [`Lockstep`]); the GPUs join it in ordinal order.
    pub lockstep: Option<Arc<Lockstep>>,
    /// Sanitizers to run on every launch (`Context::check_reports` gives the findings).
    pub checks: CheckMode,
    /// Where kernels' `printf` and failed `assert`s go (default: this process's standard
    /// output and error through Rust's streams; libcuda.so.1 writes through the C
    /// library's, so that they interleave with the program's own `printf`).
    pub output: Option<platform::OutputSink>,
}

/// A GPU: the simulated board plus the runtime driving it.
#[derive(Clone)]
pub struct Device {
    gpu: Arc<UserDev>,
    placement: fake_pci::system::Placement,
    config: Arc<DeviceConfig>,
}

impl Device {
    /// A board in stepped mode built from the preset `RGDEV_PRESET` names (a built-in name
    /// or a TOML file), else the default `gv100` preset. A preset that does not load is
    /// reported on stderr and gives `CuError::InvalidValue`.
    pub fn open() -> Result<Self> {
        // A system presented as one logical GPU is opened as one.
        if let Ok(sys) = preset::system_from_env()
            && sys.unified
        {
            return Self::open_unified(sys, &DeviceOptions::default());
        }
        let config = preset::from_env().map_err(|e| {
            eprintln!("rgdev: {e}");
            CuError::InvalidValue
        })?;
        Self::open_with(DeviceOptions { config, ..DeviceOptions::default() })
    }

    /// A board built from `opts`. A configuration that [`DeviceConfig::validate`] rejects
    /// is reported on stderr and gives `CuError::InvalidValue`.
    pub fn open_with(opts: DeviceOptions) -> Result<Self> {
        if let Err(e) = opts.config.validate() {
            eprintln!("rgdev: device configuration: {e}");
            return Err(CuError::InvalidValue);
        }
        let place = opts.placement.unwrap_or_else(|| SystemConfig::single(opts.config.clone()).placement(0));
        let config = Arc::new(opts.config.clone());
        let mut p = UserPlatform::new_at(opts.config, opts.clock, place.bar0, place.bar1);
        p.set_output(opts.output);
        p.set_separate_va(opts.separate_va);
        if let Some(clock) = opts.lockstep {
            p.set_lockstep(clock);
        }
        if let Some(limit) = opts.trace {
            p.device().lock().trace_start_filtered(limit, opts.trace_filter);
        }
        let gpu = Arc::new(UserDev::new(Arc::new(Gpu::probe_as(p, opts.ordinal)?)));
        gpu.set_checks(opts.checks);
        owner::watch(gpu.gpu());
        Ok(Self { gpu, placement: place, config })
    }

    /// The GPUs of `system` presented as one logical GPU (MGPUSim's unified GPU,
    /// `runtime_core::logical`): each brought up as in [`System::open_with`], then the
    /// first leads the others, and what the program sees is the first. Its allocations
    /// are split by pages over the GPUs, its launches by blocks, its modules loaded on all.
    pub fn open_unified(system: SystemConfig, opts: &DeviceOptions) -> Result<Self> {
        let sys = System::open_with(system, opts)?;
        sys.unify().cloned()
    }

    /// Where the GPU sits on the buses: PCI address, BARs, VRAM in the system map.
    pub fn placement(&self) -> &fake_pci::system::Placement {
        &self.placement
    }

    /// The PCI address as CUDA writes it: `domain:bus:device.function` in hex.
    pub fn pci_bus_id(&self) -> String {
        let (d, b, v, f) = self.placement.bdf;
        format!("{d:04x}:{b:02x}:{v:02x}.{f:x}")
    }

    /// What the probe found.
    pub fn info(&self) -> &DeviceInfo {
        self.gpu.info()
    }

    /// The runtime (for the handle-level API): the device a program sees.
    pub fn gpu(&self) -> &Arc<UserDev> {
        &self.gpu
    }

    /// The GPU itself, whatever the program sees (the first of a logical GPU's).
    pub fn physical(&self) -> &Arc<UserGpu> {
        self.gpu.gpu()
    }

    /// Statistics of the kernels that finished since the last call, oldest first.
    pub fn take_kernel_stats(&self) -> Vec<KernelStats> {
        self.sim().lock().take_kernel_stats()
    }

    /// Statistics of the copies that finished since the last call, oldest first.
    pub fn take_copy_stats(&self) -> Vec<CopyStats> {
        self.sim().lock().take_copy_stats()
    }

    /// The board's configuration (its preset).
    pub fn config(&self) -> &DeviceConfig {
        &self.config
    }

    /// Record samples of the SMs' occupancy from now on (`on`), or stop.
    pub fn trace_occupancy(&self, on: bool) {
        self.sim().lock().trace_occupancy(on);
    }

    /// The SM occupancy samples recorded since the last call.
    pub fn take_occupancy_samples(&self) -> Vec<OccupancySample> {
        self.sim().lock().take_occupancy_samples()
    }

    /// The MMIO trace's records since the last call ([`DeviceOptions::trace`]).
    pub fn mmio_trace_take(&self) -> Vec<fake_pci::trace::TraceRecord> {
        self.sim().lock().trace_take()
    }

    /// MMIO accesses the trace did not keep (past its limit).
    pub fn mmio_trace_dropped(&self) -> u64 {
        self.sim().lock().trace_dropped()
    }

    /// The device's cycle count now, or None while another thread runs it (a reading
    /// that does not wait).
    pub fn try_cycles(&self) -> Option<u64> {
        self.sim().try_cycles()
    }

    /// The simulated device (statistics, traces).
    pub fn sim(&self) -> &Arc<SimDevice> {
        self.gpu.platform().device()
    }

    /// Device time in nanoseconds (PTIMER).
    pub fn time_ns(&self) -> u64 {
        self.gpu.ptimer_ns()
    }

    /// (free, total) VRAM bytes.
    pub fn mem_info(&self) -> (u64, u64) {
        self.gpu.mem_info()
    }

    /// A context with default settings.
    pub fn create_context(&self) -> Result<Context> {
        self.create_context_with(&ContextConfig::default())
    }

    /// A context with explicit ring sizes.
    pub fn create_context_with(&self, cfg: &ContextConfig) -> Result<Context> {
        let h = self.gpu.ctx_create_with(cfg)?;
        Ok(Context { inner: Arc::new(CtxInner { gpu: self.gpu.clone(), h, uvm: None, peers: None }) })
    }
}

struct CtxInner {
    gpu: Arc<UserDev>,
    h: CtxHandle,
    /// The unified-memory service of the system that made the context, which forgets the
    /// context's mappings and frees the memory it owns when it goes.
    uvm: Option<Arc<UserUvm>>,
    /// The peer accesses of that system: the context's allocations are mapped into the
    /// contexts that reach it, and leave them when freed or when it goes.
    peers: Option<Arc<UserPeers>>,
}

impl Drop for CtxInner {
    fn drop(&mut self) {
        if let Some(p) = &self.peers {
            p.forget(self.h);
        }
        if let Some(u) = &self.uvm {
            u.context_gone(&self.gpu, self.h);
        }
        let _ = self.gpu.ctx_destroy(self.h);
    }
}

/// A context; destroyed when the last clone (and the last buffer in it) is dropped.
#[derive(Clone)]
pub struct Context {
    inner: Arc<CtxInner>,
}

impl Context {
    /// The runtime handle.
    pub fn handle(&self) -> CtxHandle {
        self.inner.h
    }

    /// Allocate `n` elements of `T`.
    pub fn alloc<T: Pod>(&self, n: usize) -> Result<DeviceBuffer<T>> {
        let bytes = (n as u64).checked_mul(size_of::<T>() as u64).ok_or(CuError::InvalidValue)?;
        let ptr = self.inner.gpu.mem_alloc(self.inner.h, bytes)?;
        // Built first: dropped on failure, it frees the memory.
        let buf = DeviceBuffer { ctx: self.inner.clone(), ptr, len: n, _t: PhantomData };
        if let Some(p) = &self.inner.peers {
            p.allocated(self.inner.h, ptr)?;
        }
        Ok(buf)
    }

    /// A stream: a channel of this context (`non_blocking`: CU_STREAM_NON_BLOCKING, no
    /// implicit ordering with the default stream; `priority`: CUDA's numbering, -3 most
    /// urgent to 0). Destroyed on drop, after its work.
    pub fn create_stream(&self, non_blocking: bool, priority: i32) -> Result<Stream> {
        let s = self.inner.gpu.stream_create(self.inner.h, non_blocking, priority)?;
        Ok(Stream { ctx: self.inner.clone(), s })
    }

    /// The legacy default stream (work submitted without a stream goes there).
    pub fn default_stream(&self) -> Stream {
        Stream { ctx: self.inner.clone(), s: runtime_core::StreamHandle::DEFAULT }
    }

    /// An event (`timing` false: CU_EVENT_DISABLE_TIMING). Destroyed on drop.
    pub fn create_event(&self, timing: bool) -> Result<Event> {
        let e = self.inner.gpu.event_create(self.inner.h, timing)?;
        Ok(Event { ctx: self.inner.clone(), e })
    }

    /// Wait for all work of the context.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.gpu.ctx_synchronize(self.inner.h)
    }

    /// The sanitizers' findings since the last call (a device opened with
    /// `DeviceOptions::checks`), and how many did not fit the report buffer. Read after
    /// synchronizing.
    pub fn check_reports(&self) -> Result<(Vec<CheckReport>, u32)> {
        self.inner.gpu.check_reports(self.inner.h)
    }

    /// Queue a fence.
    pub fn fence(&self) -> Result<Fence> {
        self.inner.gpu.fence_submit(self.inner.h)
    }

    /// Wait for a fence.
    pub fn wait(&self, f: Fence) -> Result<()> {
        self.inner.gpu.fence_wait(self.inner.h, f)
    }

    /// Load a module image: PTX text, or an rgdev container from `rgdev ptxas -o`
    /// (NVIDIA cubins and fatbins get CUDA_ERROR_NO_BINARY_FOR_GPU).
    pub fn load_image(&self, image: &[u8]) -> Result<Module> {
        let h = self.inner.gpu.module_load_image(self.inner.h, image)?;
        Ok(Module { ctx: self.inner.clone(), h })
    }

    /// Allocate `n` elements of pinned host memory mapped into this context (cuMemHostAlloc
    /// with CU_MEMHOSTALLOC_DEVICEMAP): kernels use its device pointer, the host reads and
    /// writes it directly.
    pub fn alloc_host<T: Pod>(&self, n: usize) -> Result<HostBuffer<T>> {
        let bytes = (n as u64).checked_mul(size_of::<T>() as u64).ok_or(CuError::InvalidValue)?;
        let (ptr, mem) = self.inner.gpu.mem_alloc_host(self.inner.h, bytes)?;
        Ok(HostBuffer { ctx: self.inner.clone(), ptr, mem, len: n, _t: PhantomData })
    }

    /// Compile PTX and load it (CUDA_ERROR_INVALID_PTX when it does not compile; the
    /// compiler's message goes to the log).
    pub fn load_ptx(&self, src: &str) -> Result<Module> {
        let h = self.inner.gpu.module_load_ptx(self.inner.h, src)?;
        Ok(Module { ctx: self.inner.clone(), h })
    }
}

/// A kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    /// `.u32`/`.s32`/`.b32` parameter.
    U32(u32),
    /// `.s32` parameter.
    I32(i32),
    /// `.u64`/`.b64` parameter.
    U64(u64),
    /// `.f32` parameter.
    F32(f32),
    /// `.f64` parameter.
    F64(f64),
    /// A device pointer.
    Ptr(u64),
    /// Raw bytes (a struct passed by value).
    Bytes(&'a [u8]),
}

impl Arg<'_> {
    fn bytes(&self) -> Vec<u8> {
        match *self {
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) | Arg::Ptr(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
            Arg::F64(v) => v.to_le_bytes().to_vec(),
            Arg::Bytes(b) => b.to_vec(),
        }
    }
}

impl<T: Pod> DeviceBuffer<T> {
    /// This buffer as a kernel argument.
    pub fn arg(&self) -> Arg<'static> {
        Arg::Ptr(self.ptr)
    }
}

/// Pinned host memory mapped into a context, freed on drop. The host side is shared
/// memory accessed atomically, so reading it while a kernel writes is never a data race
/// (the values are whatever the kernel has written so far; synchronize first for results).
pub struct HostBuffer<T: Pod> {
    ctx: Arc<CtxInner>,
    ptr: u64,
    mem: Arc<fifo::SharedMem>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> HostBuffer<T> {
    /// The device pointer kernels and copies use.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }
    /// This buffer as a kernel argument.
    pub fn arg(&self) -> Arg<'static> {
        Arg::Ptr(self.ptr)
    }
    /// The host address of the first element (under unified addressing, the device
    /// pointer too).
    pub fn host_addr(&self) -> usize {
        self.mem.as_mut_ptr().addr()
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Write `src` at the start, from the host.
    pub fn write(&self, src: &[T]) -> Result<()> {
        if src.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.mem.write(0, bytemuck::cast_slice(src)).map_err(|_| CuError::InvalidValue)
    }
    /// Read the start into `dst`, from the host.
    pub fn read(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.mem.read(0, bytemuck::cast_slice_mut(dst)).map_err(|_| CuError::InvalidValue)
    }
    /// The whole buffer as a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.read(&mut v)?;
        Ok(v)
    }
}

impl<T: Pod> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        if let Err(e) = self.ctx.gpu.mem_free_host(self.ctx.h, self.ptr) {
            runtime_core::rlog!(
                self.ctx.gpu.platform(),
                runtime_core::Level::Warn,
                "freeing host {:#x}: {e}",
                self.ptr
            );
        }
    }
}

/// A loaded module; unloaded on drop.
pub struct Module {
    ctx: Arc<CtxInner>,
    h: runtime_core::ModuleHandle,
}

impl Module {
    /// A kernel by name.
    pub fn function(&self, name: &str) -> Result<Function> {
        let f = self.ctx.gpu.module_get_function(self.ctx.h, self.h, name)?;
        let attrs = self.ctx.gpu.func_attributes(self.ctx.h, f)?;
        Ok(Function { ctx: self.ctx.clone(), f, attrs })
    }

    /// A module variable: (device address, size).
    pub fn global(&self, name: &str) -> Result<(u64, u64)> {
        self.ctx.gpu.module_get_global(self.ctx.h, self.h, name)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        let _ = self.ctx.gpu.module_unload(self.ctx.h, self.h);
    }
}

/// A kernel.
pub struct Function {
    ctx: Arc<CtxInner>,
    f: runtime_core::FuncHandle,
    attrs: FuncAttributes,
}

impl Function {
    /// Registers, shared and local memory, parameter layout.
    pub fn attributes(&self) -> &FuncAttributes {
        &self.attrs
    }

    /// Prefer a shared-memory carveout of `percent` of the most shared memory per SM (-1:
    /// no preference; cudaFuncAttributePreferredSharedMemoryCarveout): a launch's L1 is what
    /// its carveout leaves of the SM's unified L1 and shared memory.
    pub fn set_preferred_carveout(&mut self, percent: i32) -> Result<()> {
        self.ctx.gpu.func_set_preferred_carveout(self.ctx.h, self.f, percent)?;
        self.attrs = self.ctx.gpu.func_attributes(self.ctx.h, self.f)?;
        Ok(())
    }

    /// Launch on `grid` blocks of `block` threads with `shared` bytes of dynamic shared
    /// memory. Arguments must match the parameters in number and size. Asynchronous: wait
    /// on the returned fence or synchronize the context. (Kernels only reach device memory
    /// of their own context, and faults stay there, so this is safe Rust.)
    pub fn launch(&self, grid: [u32; 3], block: [u32; 3], shared: u32, args: &[Arg<'_>]) -> Result<Fence> {
        let cfg = LaunchConfig::new(grid, block).shared(shared);
        self.launch_with(&cfg, args)
    }

    /// Launch with a whole configuration: a stream, a cooperative launch, a carveout, a
    /// thread block cluster shape ([`LaunchConfig`]).
    pub fn launch_with(&self, cfg: &LaunchConfig, args: &[Arg<'_>]) -> Result<Fence> {
        let bytes: Vec<Vec<u8>> = args.iter().map(Arg::bytes).collect();
        let slices: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
        self.ctx.gpu.launch(self.ctx.h, self.f, cfg, Params::Args(&slices))
    }
}

/// A stream of a context (see [`Context::create_stream`]).
pub struct Stream {
    ctx: Arc<CtxInner>,
    s: runtime_core::StreamHandle,
}

impl Stream {
    /// The runtime handle.
    pub fn handle(&self) -> runtime_core::StreamHandle {
        self.s
    }

    /// The channel the stream submits to.
    pub fn channel(&self) -> Result<u32> {
        self.ctx.gpu.stream_channel(self.ctx.h, self.s)
    }

    /// Launch `f` on this stream (asynchronous).
    pub fn launch(&self, f: &Function, grid: [u32; 3], block: [u32; 3], shared: u32, args: &[Arg<'_>]) -> Result<()> {
        let bytes: Vec<Vec<u8>> = args.iter().map(Arg::bytes).collect();
        let slices: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
        let cfg = LaunchConfig::new(grid, block).shared(shared).on(self.s);
        self.ctx.gpu.launch(self.ctx.h, f.f, &cfg, Params::Args(&slices)).map(drop)
    }

    /// Copy `bytes` bytes between device pointers of the context (device or pinned host
    /// memory) on this stream; returns before the copy runs.
    pub fn copy_async(&self, dst: u64, src: u64, bytes: u64) -> Result<()> {
        self.ctx.gpu.memcpy(self.ctx.h, self.s, dst, src, bytes).map(drop)
    }

    /// Set `count` 32-bit words at `dst` on this stream (asynchronous).
    pub fn fill_u32(&self, dst: u64, value: u32, count: u64) -> Result<()> {
        self.ctx.gpu.memset(self.ctx.h, self.s, dst, MemsetValue::U32(value), count).map(drop)
    }

    /// Submit raw pushbuffer words on this stream (tests and tools: the words are not
    /// checked, so a malformed one becomes a channel error of this context).
    pub fn submit_raw(&self, words: &[u32]) -> Result<()> {
        self.ctx.gpu.debug_submit_raw(self.ctx.h, self.s, words).map(drop)
    }

    /// Record `e` here.
    pub fn record(&self, e: &Event) -> Result<()> {
        self.ctx.gpu.event_record(self.ctx.h, e.e, self.s)
    }

    /// Make later work on this stream wait for `e`'s last record (the GPU waits).
    pub fn wait_event(&self, e: &Event) -> Result<()> {
        self.ctx.gpu.stream_wait_event(self.ctx.h, self.s, e.e)
    }

    /// Wait for the stream's work.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.gpu.stream_synchronize(self.ctx.h, self.s)
    }

    /// Run `f` on the host once the stream's earlier work is done (cuLaunchHostFunc); work
    /// queued later waits for it. It gets the stream's error instead if its work faults.
    /// It runs on a thread that waits for the device, or, when none does and the threads
    /// using the device are blocked, on the clock owner's ([`owner`]); the device's
    /// time stands still while it runs. Returns at once.
    pub fn launch_host_func(&self, f: impl FnOnce(Result<()>) + Send + 'static) -> Result<()> {
        let run = Box::new(move |err: Option<CuError>| f(err.map_or(Ok(()), Err)));
        self.ctx.gpu.launch_host_func(self.ctx.h, self.s, run)
    }

    /// Whether the stream's work is done.
    pub fn query(&self) -> Result<bool> {
        self.ctx.gpu.stream_query(self.ctx.h, self.s)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.s != runtime_core::StreamHandle::DEFAULT {
            let _ = self.ctx.gpu.stream_destroy(self.ctx.h, self.s);
        }
    }
}

/// An event of a context (see [`Context::create_event`]).
pub struct Event {
    ctx: Arc<CtxInner>,
    e: runtime_core::EventHandle,
}

impl Event {
    /// Whether the last record has completed.
    pub fn query(&self) -> Result<bool> {
        self.ctx.gpu.event_query(self.ctx.h, self.e)
    }

    /// Wait for the last record.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.gpu.event_synchronize(self.ctx.h, self.e)
    }

    /// Milliseconds of simulated GPU time from `start`'s record to this one's.
    pub fn elapsed_ms_since(&self, start: &Event) -> Result<f32> {
        self.ctx.gpu.event_elapsed_ms(self.ctx.h, start.e, self.e)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        let _ = self.ctx.gpu.event_destroy(self.ctx.h, self.e);
    }
}

/// Device memory holding `len` elements of `T`, freed on drop.
pub struct DeviceBuffer<T: Pod> {
    ctx: Arc<CtxInner>,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    /// The device pointer.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copy `src` to the start of the buffer.
    pub fn copy_from(&mut self, src: &[T]) -> Result<()> {
        if src.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.ctx.gpu.memcpy_htod(self.ctx.h, self.ptr, bytemuck::cast_slice(src))
    }

    /// Copy the start of the buffer to `dst`.
    pub fn copy_to(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.ctx.gpu.memcpy_dtoh(self.ctx.h, bytemuck::cast_slice_mut(dst), self.ptr)
    }

    /// Copy all of `other` into the start of this buffer, on the device.
    pub fn copy_from_device(&mut self, other: &DeviceBuffer<T>) -> Result<()> {
        if other.len > self.len {
            return Err(CuError::InvalidValue);
        }
        let bytes = (other.len * size_of::<T>()) as u64;
        let f = self.ctx.gpu.memcpy(self.ctx.h, StreamHandle::DEFAULT, self.ptr, other.ptr, bytes)?;
        self.ctx.gpu.fence_wait(self.ctx.h, f)
    }

    /// The whole buffer as a host vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to(&mut v)?;
        Ok(v)
    }
}

impl DeviceBuffer<u8> {
    /// Set every byte (asynchronous).
    pub fn fill(&mut self, v: u8) -> Result<Fence> {
        self.ctx.gpu.memset(self.ctx.h, StreamHandle::DEFAULT, self.ptr, MemsetValue::U8(v), self.len as u64)
    }
}

impl DeviceBuffer<u16> {
    /// Set every element (asynchronous).
    pub fn fill(&mut self, v: u16) -> Result<Fence> {
        self.ctx.gpu.memset(self.ctx.h, StreamHandle::DEFAULT, self.ptr, MemsetValue::U16(v), self.len as u64)
    }
}

impl DeviceBuffer<u32> {
    /// Set every element (asynchronous).
    pub fn fill(&mut self, v: u32) -> Result<Fence> {
        self.ctx.gpu.memset(self.ctx.h, StreamHandle::DEFAULT, self.ptr, MemsetValue::U32(v), self.len as u64)
    }
}

impl<T: Pod> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Some(p) = &self.ctx.peers {
            p.freeing(self.ctx.h, self.ptr);
        }
        if let Err(e) = self.ctx.gpu.mem_free(self.ctx.h, self.ptr) {
            runtime_core::rlog!(self.ctx.gpu.platform(), runtime_core::Level::Warn, "freeing {:#x}: {e}", self.ptr);
        }
    }
}
