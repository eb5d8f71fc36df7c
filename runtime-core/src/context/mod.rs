//! The context layer: a context owns a GPU virtual address space, the channel of its legacy
//! default stream (with the copy class bound), two DMA staging buffers, its allocations,
//! modules, streams and events, and (when checked) the sanitizers' area. Everything here
//! works on one context and the [`Device`] below it; handles, the context table and the
//! CUDA-shaped calls are the API layer's (`api/`).
//!
//! - [`memory`]: allocations, copies through the copy engine, memsets.
//! - [`module`]: loaded modules, kernel launches as compute-class methods.
//! - [`stream`]: streams (channels of the context) and events (semaphore slots).
//! - [`vmm`]: reservations, mappings of physical allocations and their access flags.
//! - [`texture`]: arrays, texture and surface objects, copies with arrays.
//!
//! Every operation checks the context's sticky error first (CUDA semantics): a fault on
//! any of its channels is the context's error (`Context::with`).

pub mod cluster;
pub mod memory;
pub mod module;
pub mod printf;
pub mod stream;
pub mod texref;
pub mod texture;
pub mod vmm;

use crate::channel::{Channel, Cmd, Fence, Release, map_dma, release};
use crate::check::{CheckArea, CheckMode, CheckReport};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::{DmaBuffer, Level, Platform};
use crate::rlog;
use crate::vm::VaSpace;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::mmu::{PAGE_SIZE, VA_BITS};
use lock_api::{Mutex, MutexGuard};
use memory::Alloc;
use module::Loaded;
use stream::{Events, Stream};

/// Bits of an object id (module, kernel, stream, event) in its context; the API layer
/// puts the context's handle above them.
pub const ID_BITS: u32 = 32;

/// The id in its context of object handle `obj` (the bits below [`ID_BITS`]).
pub(crate) fn local_id(obj: u64) -> u64 {
    obj & ((1 << ID_BITS) - 1)
}

/// Where device pointers start (above 4 GiB, so truncation to 32 bits is caught).
pub const VA_BASE: u64 = 0x2_0000_0000;

/// Sizes of a context's rings and buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextConfig {
    /// GPFIFO entries (power of two, 2..=65536).
    pub gpfifo_entries: u32,
    /// Pushbuffer bytes.
    pub pushbuffer_bytes: u32,
    /// Bytes of each of the two staging buffers for host copies.
    pub staging_bytes: u32,
    /// The first fence value the channel releases (tests start near 2^32).
    pub first_fence: u64,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self { gpfifo_entries: 1024, pushbuffer_bytes: 256 << 10, staging_bytes: 2 << 20, first_fence: 1 }
    }
}

/// A DMA buffer that host copies stage data in, and its device address.
pub(crate) struct Staging {
    pub(crate) buf: DmaBuffer,
    pub(crate) va: u64,
}

/// What a context holds, behind its lock.
pub(crate) struct Inner {
    pub(crate) vm: VaSpace,
    /// The legacy default stream's channel (stream 0).
    pub(crate) ch: Option<Channel>,
    allocs: BTreeMap<u64, Alloc>,
    /// Address ranges reserved for the VMM API (cuMemAddressReserve): base -> bytes.
    reserved: BTreeMap<u64, u64>,
    modules: BTreeMap<u64, Loaded>,
    /// Kernels handed out: id -> (module id, kernel index).
    funcs: BTreeMap<u64, (u64, u32)>,
    /// Streams other than the legacy default stream (which is `ch`, id 0).
    streams: BTreeMap<u64, Stream>,
    events: Events,
    /// The next object id: modules, kernels, streams and events share one counter, so an
    /// id names one object of one kind, and ids are never reused.
    next_id: u64,
    /// The sanitizers' table and report buffer (checked contexts).
    check: Option<CheckArea>,
    /// The device printf FIFO (made at the first launch of a module that prints) and the
    /// size it has or will have (CU_LIMIT_PRINTF_FIFO_SIZE).
    pub(crate) printf: Option<printf::PrintfArea>,
    pub(crate) printf_bytes: u32,
    /// The device heap (made at the first launch of a module that calls `malloc` or
    /// `free`: address, size) and the size it has or will have (CU_LIMIT_MALLOC_HEAP_SIZE).
    pub(crate) heap: Option<(u64, u64)>,
    pub(crate) heap_bytes: u64,
    /// The grid workspace of cooperative launches (made at the first: `{size, barrier}`,
    /// zeroed), whose address they get in `%envreg1:2` as CUDA's driver gives it.
    pub(crate) grid_ws: Option<u64>,
    /// CU_LIMIT_STACK_SIZE as set (kernels' frames are static, sized by the compiler:
    /// there is no recursion for a stack to bound).
    pub(crate) stack_bytes: u32,
    /// CUDA arrays by id.
    arrays: BTreeMap<u64, texture::Array>,
    /// The texture header and sampler pools (made with the first texture or surface
    /// object).
    pools: Option<texture::Pools>,
    /// On a GPU of one logical GPU other than the first: where the first GPU's context's
    /// pools are mapped here (over the link), which this context's launches bind.
    pub(crate) pools_at: Option<u64>,
    /// On a GPU of one logical GPU other than the first: the first GPU's binding of the
    /// texture and surface reference slots, which this context's next launch binds (in
    /// place of its own module's references, which nothing binds).
    pub(crate) refs_lent: Option<texref::Slots>,
    /// Module texture and surface references by id.
    refs: BTreeMap<u64, texref::TexRef>,
    /// Mipmapped arrays by id.
    mipmaps: BTreeMap<u64, texture::Mipmapped>,
    /// The device's texture and surface size limits.
    tex_limits: &'static crate::limits::TextureLimits,
    destroyed: bool,
}

/// A context (see the module documentation).
pub struct Context<P: Platform> {
    inner: Mutex<P::RawMutex, Inner>,
    /// The two staging buffers of blocking host copies: a copy holds them (not `inner`)
    /// while it waits.
    staging: Mutex<P::RawMutex, Vec<Staging>>,
}

impl<P: Platform> Context<P> {
    /// A new context on `gpu`: its address space, staging buffers, checks (`mode`) and
    /// default stream's channel.
    pub(crate) fn new(gpu: &Device<P>, cfg: &ContextConfig, mode: CheckMode) -> Result<Self> {
        if cfg.staging_bytes < PAGE_SIZE as u32 {
            return Err(CuError::InvalidValue);
        }
        let vm = match gpu.platform.unified_va() {
            Some(va) => VaSpace::unified(gpu, va)?,
            None => VaSpace::new(gpu, VA_BASE, (1 << VA_BITS) - VA_BASE)?,
        };
        let mut vm = vm.with_low_window();
        let mut held = Vec::new();
        let built = (|| {
            let mut staging = Vec::new();
            for _ in 0..2 {
                let (buf, va) = map_dma(gpu, &mut vm, &mut held, cfg.staging_bytes as usize)?;
                staging.push(Staging { buf, va });
            }
            let check = if u32::from(mode) != 0 {
                let area = CheckArea::new(gpu, &mut vm, &mut held, mode)?;
                gpu.tlb_flush(vm.pd)?;
                Some(area)
            } else {
                None
            };
            let ch = Channel::new(gpu, &mut vm, cfg.gpfifo_entries, cfg.pushbuffer_bytes, cfg.first_fence, 0)?;
            Ok((staging, check, ch))
        })();
        match built {
            Ok((staging, check, mut ch)) => {
                ch.held.splice(0..0, held);
                Ok(Self {
                    staging: Mutex::new(staging),
                    inner: Mutex::new(Inner {
                        vm,
                        ch: Some(ch),
                        allocs: BTreeMap::new(),
                        reserved: BTreeMap::new(),
                        modules: BTreeMap::new(),
                        funcs: BTreeMap::new(),
                        streams: BTreeMap::new(),
                        events: Events::default(),
                        next_id: 1,
                        check,
                        printf: None,
                        printf_bytes: hw::printf::DEFAULT_FIFO_BYTES,
                        heap: None,
                        grid_ws: None,
                        heap_bytes: hw::heap::DEFAULT_BYTES,
                        stack_bytes: 1024,
                        arrays: BTreeMap::new(),
                        pools: None,
                        pools_at: None,
                        refs_lent: None,
                        refs: BTreeMap::new(),
                        mipmaps: BTreeMap::new(),
                        tex_limits: crate::limits::texture_limits(gpu.info().compute_capability),
                        destroyed: false,
                    }),
                })
            }
            Err(e) => {
                release(gpu, &mut vm, &mut held);
                vm.destroy(gpu);
                Err(e)
            }
        }
    }

    /// Run `f` on the context's state even when it has a sticky error (the page tables
    /// of a context whose other stream faulted still change), unless it is destroyed.
    pub(crate) fn with_unchecked<T>(&self, f: impl FnOnce(&mut Inner) -> Result<T>) -> Result<T> {
        let mut inner = self.inner.lock();
        inner.live()?;
        f(&mut inner)
    }

    /// Run `f` on the context's state, unless the context is destroyed or has a sticky
    /// error (a fault on any of its channels).
    pub(crate) fn with<T>(&self, gpu: &Device<P>, f: impl FnOnce(&mut Inner) -> Result<T>) -> Result<T> {
        let mut inner = self.inner.lock();
        let ch = inner.live()?;
        if let Some(e) = gpu.channel_error(ch.chid) {
            return Err(e);
        }
        // A fault on any stream of the context is the context's sticky error (CUDA).
        if let Some(e) = inner.streams.values().find_map(|st| gpu.channel_error(st.ch.chid)) {
            return Err(e);
        }
        f(&mut inner)
    }

    /// The staging buffers, held for the whole of one blocking host copy.
    pub(crate) fn staging(&self) -> MutexGuard<'_, P::RawMutex, Vec<Staging>> {
        self.staging.lock()
    }

    /// Destroy the context: drain its channels, then free everything it holds. Succeeds
    /// once it has started (CUDA's cuCtxDestroy is how a program leaves a context whose
    /// work failed): errors of the context's own work are logged, not returned.
    pub(crate) fn destroy(&self, gpu: &Device<P>) -> Result<()> {
        let mut g = self.inner.lock();
        let inner = &mut *g;
        if inner.destroyed {
            return Err(CuError::InvalidContext);
        }
        inner.destroyed = true;
        // Drain every channel before anything is unmapped: queued work (an event record on
        // the default stream, a copy on another stream) still writes into this context's
        // memory. A faulted channel is stopped and has nothing left to drain.
        let chans = inner.streams.values_mut().map(|st| &mut st.ch).chain(inner.ch.as_mut());
        for ch in chans {
            if gpu.channel_error(ch.chid).is_none()
                && let Err(e) = ch.wait(gpu, ch.last_fence())
            {
                rlog!(&gpu.platform, Level::Warn, "context destroy: channel {} ended with {e:?}", ch.chid);
            }
        }
        let mut chans: Vec<Channel> = core::mem::take(&mut inner.streams).into_values().map(|st| st.ch).collect();
        inner.events.release(gpu, &mut inner.vm);
        chans.extend(inner.ch.take());
        for ch in chans {
            // Drained or stopped: the teardown's own wait has nothing left to wait for.
            let _ = crate::channel::teardown(gpu, &mut inner.vm, ch);
        }
        inner.free_all(gpu);
        inner.vm.destroy(gpu);
        Ok(())
    }

    /// The sanitizers' findings since the last call, each with its kernel and PTX lines.
    /// The device printf records written since the last call, rendered; a context whose
    /// error is sticky still gives them (a failed assert is what made it sticky).
    pub(crate) fn printf_take(&self) -> Vec<(printf::Output, Vec<u8>)> {
        let inner = self.inner.lock();
        match (&inner.printf, inner.destroyed) {
            (Some(area), false) => {
                let (bytes, dropped) = area.take();
                printf::render(&bytes, dropped)
            }
            _ => Vec::new(),
        }
    }

    pub(crate) fn check_reports(&self) -> Result<(Vec<CheckReport>, u32)> {
        let inner = self.inner.lock();
        if inner.destroyed {
            return Err(CuError::InvalidContext);
        }
        let Some(area) = &inner.check else { return Ok((Vec::new(), 0)) };
        let (records, dropped) = area.take();
        let reports = records
            .into_iter()
            .map(|record| {
                let (kernel, line, other_line) =
                    inner.modules.values().find_map(|m| m.describe(&record)).unwrap_or_default();
                CheckReport { record, kernel, line, other_line }
            })
            .collect();
        Ok((reports, dropped))
    }
}

impl Inner {
    /// The default stream's channel of a context not yet destroyed.
    pub(crate) fn live(&mut self) -> Result<&mut Channel> {
        if self.destroyed {
            return Err(CuError::InvalidContext);
        }
        self.ch.as_mut().ok_or(CuError::InvalidContext)
    }

    /// A new object id (see `next_id`); CUDA_ERROR_OUT_OF_MEMORY once 2^32 - 1 objects
    /// have been made in this context.
    pub(crate) fn new_id(&mut self) -> Result<u64> {
        let id = self.next_id;
        if id >> ID_BITS != 0 {
            return Err(CuError::OutOfMemory);
        }
        self.next_id += 1;
        Ok(id)
    }

    /// The channel of stream `s` (0: the legacy default stream).
    pub(crate) fn chan(&mut self, s: u64) -> Result<&mut Channel> {
        if s == 0 {
            return self.live();
        }
        if self.destroyed {
            return Err(CuError::InvalidContext);
        }
        self.streams.get_mut(&s).map(|st| &mut st.ch).ok_or(CuError::InvalidHandle)
    }

    /// The channel of stream `s`, after queueing the legacy default stream's implicit
    /// synchronization as GPU semaphore acquires (the host does not wait): work on the
    /// default stream waits for the blocking streams' earlier work, and work on a blocking
    /// stream waits for the default stream's.
    pub(crate) fn ordered<P: Platform>(&mut self, gpu: &Device<P>, s: u64) -> Result<&mut Channel> {
        let mut deps: Vec<(u64, u32)> = Vec::new();
        if s == 0 {
            for st in self.streams.values_mut().filter(|st| !st.non_blocking) {
                let last = st.ch.last_fence().0;
                if st.ch.completed() < last {
                    deps.push((st.ch.fence_va(), last as u32));
                }
            }
        } else {
            let blocking = !self.streams.get(&s).ok_or(CuError::InvalidHandle)?.non_blocking;
            let d = self.live()?;
            let last = d.last_fence().0;
            if blocking && d.completed() < last {
                deps.push((d.fence_va(), last as u32));
            }
        }
        let ch = self.chan(s)?;
        if !deps.is_empty() {
            let mut cmd = fifo::Pushbuf::<1024>::new();
            for (va, payload) in deps {
                stream::acquire(&mut cmd, va, payload)?;
            }
            ch.submit(gpu, cmd.words())?;
        }
        Ok(ch)
    }

    /// What waiting for the work of every stream of the context needs (to wait without
    /// the context's lock).
    pub(crate) fn releases(&mut self) -> Result<Vec<Release>> {
        let mut w = Vec::new();
        for st in self.streams.values() {
            w.push(st.ch.release_of(st.ch.last_fence())?);
        }
        let ch = self.live()?;
        w.push(ch.release_of(ch.last_fence())?);
        Ok(w)
    }

    /// Queue a fence on the default stream's channel.
    pub(crate) fn fence_submit<P: Platform>(&mut self, gpu: &Device<P>) -> Result<Fence> {
        let ch = self.live()?;
        let mut cmd = Cmd::new();
        let f = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        Ok(f)
    }

    /// Submit raw pushbuffer words (at most 8000, not checked) on stream `s`, in the
    /// default stream's order, followed by a fence.
    pub(crate) fn submit_raw<P: Platform>(&mut self, gpu: &Device<P>, s: u64, words: &[u32]) -> Result<Fence> {
        let ch = self.ordered(gpu, s)?;
        let mut cmd = fifo::Pushbuf::<8192>::new();
        for &w in words {
            cmd.raw(w).map_err(|_| CuError::InvalidValue)?;
        }
        let f = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        Ok(f)
    }
}
