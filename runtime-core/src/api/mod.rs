//! The API layer: [`Gpu`], one probed device (reached through `Deref`) with its contexts
//! behind handles, and the CUDA-shaped calls on them. Each call looks its context up, runs
//! the context layer's operation under the context's lock, and waits (when it waits)
//! without that lock.
//!
//! This is the runtime's one handle table, and its handles are what the C ABI hands out
//! as `CUcontext`, `CUmodule`, `CUfunction`, `CUstream` and `CUevent`:
//! - a [`CtxHandle`] is 32 bits: the slot's generation (16 bits) over the GPU's ordinal
//!   in its system (4 bits, [`Gpu::ordinal`]) over the slot's index + 1 (12 bits), so a
//!   handle of a destroyed context is detected until its slot has been reused 65536
//!   times, and every handle names its GPU ([`ordinal_of`]): handles of the GPUs of one
//!   process never collide;
//! - an object handle ([`module::ModuleHandle`], [`module::FuncHandle`],
//!   [`StreamHandle`], [`stream::EventHandle`]) is its context's handle in the high half and the object's id in the context in the
//!   low half. Ids come from one counter per context and are never reused, so an object
//!   handle names its context by itself, and a stale one, one of another kind or a forged
//!   one is CUDA_ERROR_INVALID_HANDLE.
//!
//! - [`memory`]: allocations, copies and memsets;
//! - [`module`]: modules, kernel attributes, launches;
//! - [`stream`]: streams and events;
//! - [`vmm`]: the virtual memory management API;
//! - [`texture`]: arrays, texture and surface objects, copies with arrays.
//!
//! Work goes to a stream: [`StreamHandle::DEFAULT`] is the legacy default stream, a value
//! passed like any other, not a method of its own.

/// Declares a plain object handle type's [`Object`] (its handle is its value) and `ctx()`.
macro_rules! object_handle {
    ($ty:ident, $what:literal) => {
        impl super::Object for $ty {
            fn named(self) -> Option<u64> {
                Some(self.0)
            }
        }

        impl $ty {
            #[doc = concat!("The ", $what, "'s context.")]
            pub fn ctx(self) -> CtxHandle {
                super::owner(self.0)
            }
        }
    };
}

pub mod memory;
pub mod migrate;
pub mod module;
pub mod stream;
pub mod texref;
pub mod texture;
pub mod vmm;

use crate::channel::Fence;
use crate::check::{CheckMode, CheckReport};
use crate::context::{Context, ContextConfig, Inner};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use crate::vm::Bar1;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};
use lock_api::Mutex;
pub use stream::StreamHandle;

/// Most contexts alive at once (a context handle has 12 bits of index; each context
/// holds a channel, and the device has fewer).
const MAX_CONTEXTS: usize = 0xfff;
/// Bits of a context handle below the GPU's ordinal (the slot index + 1).
const INDEX_BITS: u32 = 12;
/// The most GPUs whose handles stay apart (4 bits of ordinal).
pub const MAX_ORDINALS: u32 = 16;

struct Slot<P: Platform> {
    generation: u16,
    ctx: Option<Arc<Context<P>>>,
}

impl<P: Platform> Slot<P> {
    /// The handle of the context in this slot, slot `idx` of GPU `ordinal`.
    fn handle(&self, idx: usize, ordinal: u32) -> CtxHandle {
        CtxHandle(u64::from(self.generation) << 16 | u64::from(ordinal) << INDEX_BITS | (idx as u64 + 1))
    }
}

/// A handle naming a context (generation and index; stale handles are detected).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CtxHandle(pub u64);

use crate::context::ID_BITS;

/// The context an object handle names.
fn owner(obj: u64) -> CtxHandle {
    CtxHandle(obj >> ID_BITS)
}

/// The ordinal of the GPU a handle names: a context's, or an object's (its context in the
/// high half), as [`Gpu::probe_as`] numbered it.
pub fn ordinal_of(handle: u64) -> u32 {
    let ctx = if handle >> ID_BITS != 0 { handle >> ID_BITS } else { handle };
    ((ctx >> INDEX_BITS) & u64::from(MAX_ORDINALS - 1)) as u32
}

/// A handle of an object of a context.
pub(crate) trait Object: Copy {
    /// The handle's value, unless it is the default stream, which belongs to no context.
    fn named(self) -> Option<u64>;

    /// The object's id in its context, once [`Gpu::with_objs`] has checked the handle
    /// (0: the default stream).
    fn id(self) -> u64 {
        self.named().map_or(0, local)
    }
}

use crate::context::local_id as local;

/// The handle of object `id` of context `h`.
pub(crate) fn object(h: CtxHandle, id: u64) -> u64 {
    h.0 << ID_BITS | id
}

/// The id in context `h` of object handle `obj`, which must name `h` and an id (ids
/// start at 1): else CUDA_ERROR_INVALID_HANDLE.
pub(crate) fn id_in(h: CtxHandle, obj: u64) -> Result<u64> {
    let id = local(obj);
    if owner(obj) == h && id != 0 { Ok(id) } else { Err(CuError::InvalidHandle) }
}

/// A probed, initialized GPU and its contexts.
pub struct Gpu<P: Platform> {
    /// The device under the runtime (the register layer).
    pub(crate) dev: Device<P>,
    /// BAR1's address space, kept for the device's lifetime.
    _bar1: Bar1,
    contexts: Mutex<P::RawMutex, Vec<Slot<P>>>,
    /// The checks of contexts created from now on ([`Gpu::set_checks`]).
    checks: AtomicU32,
    /// This GPU's ordinal in its system, in every handle it gives out.
    ordinal: u32,
    /// The runtime's page-migration channel, made at its first use ([`migrate`]).
    migrator: Mutex<P::RawMutex, Option<migrate::Migrator>>,
}

impl<P: Platform> Gpu<P> {
    /// Probe the device behind `platform` and bring it up: units and interrupts, then
    /// BAR1's page tables with USERD mapped, then the runlist.
    pub fn probe(platform: P) -> Result<Self> {
        Self::probe_as(platform, 0)
    }

    /// [`Gpu::probe`] for GPU `ordinal` of a system (below [`MAX_ORDINALS`], else
    /// CUDA_ERROR_INVALID_DEVICE): its handles carry the ordinal.
    pub fn probe_as(platform: P, ordinal: u32) -> Result<Self> {
        if ordinal >= MAX_ORDINALS {
            return Err(CuError::InvalidDevice);
        }
        let mut dev = Device::probe(platform)?;
        dev.state.lock().phys.set_ordinal(ordinal);
        let bar1 = Bar1::bring_up(&mut dev)?;
        dev.runlist_init()?;
        Ok(Self {
            dev,
            _bar1: bar1,
            contexts: Mutex::new(Vec::new()),
            checks: AtomicU32::new(0),
            ordinal,
            migrator: Mutex::new(None),
        })
    }

    /// This GPU's ordinal in its system (0 for a lone GPU).
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// The device under the runtime, the register layer (tools and tests that drive
    /// registers, PRAMIN or interrupts themselves).
    pub fn device(&self) -> &Device<P> {
        &self.dev
    }

    /// What the probe found.
    pub fn info(&self) -> &crate::device::DeviceInfo {
        self.dev.info()
    }

    /// Free and total VRAM bytes (cuMemGetInfo).
    pub fn mem_info(&self) -> (u64, u64) {
        self.dev.mem_info()
    }

    /// The platform the device is reached through.
    pub fn platform(&self) -> &P {
        self.dev.platform()
    }

    /// Device time in nanoseconds (PTIMER).
    pub fn ptimer_ns(&self) -> u64 {
        self.dev.ptimer_ns()
    }

    /// Registers one block may use (see [`Device::max_regs_per_block`]).
    pub fn max_regs_per_block(&self) -> u32 {
        self.dev.max_regs_per_block()
    }

    /// Shared memory one block may use (see [`Device::max_shared_per_block`]).
    pub fn max_shared_per_block(&self) -> u32 {
        self.dev.max_shared_per_block()
    }

    /// Shared memory one block may use once its kernel opts in (see
    /// [`Device::max_shared_per_block_optin`]).
    pub fn max_shared_per_block_optin(&self) -> u32 {
        self.dev.max_shared_per_block_optin()
    }

    /// Launches and copy-engine jobs submitted on channel id `chid` so far.
    pub fn jobs_submitted(&self, chid: u32) -> (u64, u64) {
        self.dev.jobs_submitted(chid)
    }

    /// What the clock's owner watches (see [`crate::device::Watch`]).
    pub fn watch(&self) -> &alloc::sync::Arc<crate::device::Watch> {
        self.dev.watch()
    }

    /// Run the host functions queued now (see [`Device::serve_host_work`]).
    pub fn serve_host_work(&self) -> bool {
        self.dev.serve_host_work()
    }

    /// Check every launch of contexts created from now on (`rgdev run --check`): the
    /// checks of `mode`, at a cost in speed and host memory (racecheck keeps the last
    /// write and read of every shared byte and global word a grid touches).
    pub fn set_checks(&self, mode: CheckMode) {
        self.checks.store(mode.into(), Ordering::Release);
        if mode.initcheck() {
            self.dev.wr(hw::regs::NV_PFB_CHECK_SHADOW, 0, hw::regs::PfbCheckShadow::new().with_on(true));
        }
    }

    /// Whether device pointers are unified with host addresses
    /// (CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING): the platform reserved their range in the
    /// host's address space and pinned host memory's host pointer is its device pointer.
    pub fn unified_addressing(&self) -> bool {
        self.dev.platform.unified_va().is_some()
    }

    /// The checks contexts are created with.
    pub fn checks(&self) -> CheckMode {
        CheckMode::from(self.checks.load(Ordering::Acquire))
    }

    /// The system's other GPUs, served by this GPU's waits too: `others` serves their
    /// interrupts, parked accesses and host work (each GPU's [`Gpu::serve`]) and says
    /// whether it did something. Work on one GPU may wait for another's (cuStreamWaitEvent
    /// on another device's event), whose faults a thread waiting here must then serve. Set
    /// once; later calls change nothing.
    pub fn serve_also(&self, others: impl Fn() -> bool + Send + Sync + 'static) {
        self.dev.others.call_once(|| alloc::boxed::Box::new(others));
    }

    /// Serve this GPU's interrupts, parked accesses and host work now, as its own waits do:
    /// true when something was done (see [`Gpu::serve_also`]).
    pub fn serve(&self) -> bool {
        self.dev.serve_all()
    }

    /// Create a context (address space, channel, copy object) with default settings.
    pub fn ctx_create(&self) -> Result<CtxHandle> {
        self.ctx_create_with(&ContextConfig::default())
    }

    /// Create a context with explicit ring sizes and first fence value.
    pub fn ctx_create_with(&self, cfg: &ContextConfig) -> Result<CtxHandle> {
        let ctx = Arc::new(Context::new(&self.dev, cfg, self.checks())?);
        let mut slots = self.contexts.lock();
        let idx = match slots.iter().position(|s| s.ctx.is_none()) {
            Some(i) => i,
            None => {
                slots.push(Slot { generation: 0, ctx: None });
                slots.len() - 1
            }
        };
        if idx >= MAX_CONTEXTS {
            return Err(CuError::OutOfMemory);
        }
        let slot = &mut slots[idx];
        slot.generation = slot.generation.wrapping_add(1);
        slot.ctx = Some(ctx);
        let h = slot.handle(idx, self.ordinal);
        drop(slots);
        if let Ok(chid) = self.ctx_channel(h) {
            self.own_channel(chid, Some(h));
        }
        Ok(h)
    }

    /// The slot index context handle `h` names, if its generation is the slot's.
    fn slot_of(&self, slots: &[Slot<P>], h: CtxHandle) -> Option<usize> {
        let idx = ((h.0 & MAX_CONTEXTS as u64) as usize).checked_sub(1)?;
        let ours = ordinal_of(h.0) == self.ordinal && h.0 >> ID_BITS == 0;
        (ours && h.0 >> 16 == u64::from(slots.get(idx)?.generation)).then_some(idx)
    }

    /// The context named by `h`.
    pub(crate) fn ctx(&self, h: CtxHandle) -> Result<Arc<Context<P>>> {
        let slots = self.contexts.lock();
        self.slot_of(&slots, h).and_then(|i| slots[i].ctx.clone()).ok_or(CuError::InvalidContext)
    }

    /// Run `f` on context `h`'s state under its lock (see `Context::with`: a destroyed
    /// context or a sticky error ends the call first).
    pub(crate) fn with_ctx<T>(&self, h: CtxHandle, f: impl FnOnce(&Device<P>, &mut Inner) -> Result<T>) -> Result<T> {
        self.ctx(h)?.with(&self.dev, |c| f(&self.dev, c))
    }

    /// Run `f` on context `h` for a call that names objects of it (`objs`: their
    /// [`Object::named`] values; the default stream names none): an object of another
    /// context, a forged one (NULL included), or one whose context is gone is
    /// CUDA_ERROR_INVALID_HANDLE.
    pub(crate) fn with_objs<T>(
        &self,
        h: CtxHandle,
        objs: &[Option<u64>],
        f: impl FnOnce(&Device<P>, &mut Inner) -> Result<T>,
    ) -> Result<T> {
        let named = objs.iter().any(Option::is_some);
        for &o in objs.iter().flatten() {
            id_in(h, o)?;
        }
        let ctx = self.ctx(h).map_err(|e| if named { CuError::InvalidHandle } else { e })?;
        ctx.with(&self.dev, |c| f(&self.dev, c))
    }

    /// The contexts that exist now.
    pub fn contexts(&self) -> Vec<CtxHandle> {
        let slots = self.contexts.lock();
        let live = slots.iter().enumerate().filter(|(_, s)| s.ctx.is_some());
        live.map(|(i, s)| s.handle(i, self.ordinal)).collect()
    }

    /// The context whose channel `chid` is (a replayable fault names its channel). Takes
    /// no context's lock: the fault service calls it where a thread may hold one.
    pub fn ctx_of_channel(&self, chid: u32) -> Option<CtxHandle> {
        let h = CtxHandle(self.dev.chan_owner.get(chid as usize)?.load(Ordering::Acquire));
        (h.0 != 0 && self.ctx_exists(h)).then_some(h)
    }

    /// Record that channel `chid` is context `h`'s (None: no one's).
    pub(crate) fn own_channel(&self, chid: u32, h: Option<CtxHandle>) {
        if let Some(o) = self.dev.chan_owner.get(chid as usize) {
            o.store(h.map_or(0, |h| h.0), Ordering::Release);
        }
    }

    /// Whether a thread holding context `h`'s lock waits for ring space on one of its
    /// channels (the fault service must not take that lock then).
    pub fn ctx_waits_in_submit(&self, h: CtxHandle) -> bool {
        self.dev
            .chan_owner
            .iter()
            .zip(&self.dev.chan_waiting)
            .any(|(o, w)| o.load(Ordering::Acquire) == h.0 && w.load(Ordering::Acquire))
    }

    /// Whether context `h` exists (not destroyed).
    pub fn ctx_exists(&self, h: CtxHandle) -> bool {
        self.ctx(h).is_ok()
    }

    /// Destroy a context: wait for its work (unless it faulted), free its memory, unbind its channel.
    pub fn ctx_destroy(&self, h: CtxHandle) -> Result<()> {
        self.printf_flush(h);
        let first_chan = self.ctx_channel(h).ok();
        if let Some(c) = first_chan {
            self.own_channel(c, None);
        }
        let ctx = {
            let mut slots = self.contexts.lock();
            self.slot_of(&slots, h).and_then(|i| slots[i].ctx.take())
        }
        .ok_or(CuError::InvalidContext)?;
        ctx.destroy(&self.dev)
    }

    /// The findings of context `h`'s checked launches since the last call, and how many
    /// did not fit the report buffer. Read after synchronizing; a context whose error is
    /// sticky still gives them.
    pub fn check_reports(&self, h: CtxHandle) -> Result<(Vec<CheckReport>, u32)> {
        self.ctx(h)?.check_reports()
    }

    /// Wait for all work queued on the context (cuCtxSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn ctx_synchronize(&self, h: CtxHandle) -> Result<()> {
        let waits = self.with_ctx(h, |_, c| c.releases());
        let r = waits.and_then(|w| w.iter().try_for_each(|w| w.wait(&self.dev)));
        self.printf_flush(h);
        r
    }

    /// The printf FIFO size of context `h` (CU_LIMIT_PRINTF_FIFO_SIZE), bytes.
    pub fn printf_fifo_size(&self, h: CtxHandle) -> Result<u32> {
        self.with_ctx(h, |_, c| Ok(c.printf_bytes))
    }

    /// Set context `h`'s printf FIFO size (CU_LIMIT_PRINTF_FIFO_SIZE): only before a
    /// kernel that prints has been launched (CUDA_ERROR_INVALID_VALUE after, as in CUDA);
    /// rounded up to 8 bytes, at most 1 GiB.
    pub fn set_printf_fifo_size(&self, h: CtxHandle, bytes: u64) -> Result<()> {
        self.with_ctx(h, |_, c| {
            if c.printf.is_some() || bytes > 1 << 30 {
                return Err(CuError::InvalidValue);
            }
            c.printf_bytes = (bytes.max(8) as u32).next_multiple_of(8);
            Ok(())
        })
    }

    /// The device heap size of context `h` (CU_LIMIT_MALLOC_HEAP_SIZE), bytes.
    pub fn malloc_heap_size(&self, h: CtxHandle) -> Result<u64> {
        self.with_ctx(h, |_, c| Ok(c.heap.map_or(c.heap_bytes, |(_, s)| s)))
    }

    /// Set context `h`'s device heap size (CU_LIMIT_MALLOC_HEAP_SIZE): only before a kernel
    /// that calls `malloc` or `free` has been launched (CUDA_ERROR_INVALID_VALUE after, as
    /// in CUDA); rounded up to a page, at least the heap's header.
    pub fn set_malloc_heap_size(&self, h: CtxHandle, bytes: u64) -> Result<()> {
        self.with_ctx(h, |_, c| {
            if c.heap.is_some() {
                return Err(CuError::InvalidValue);
            }
            c.heap_bytes = bytes.max(hw::heap::HEADER).checked_next_multiple_of(4096).ok_or(CuError::InvalidValue)?;
            Ok(())
        })
    }

    /// Context `h`'s CU_LIMIT_STACK_SIZE, bytes per thread (1024 unless set).
    pub fn stack_size(&self, h: CtxHandle) -> Result<u32> {
        self.with_ctx(h, |_, c| Ok(c.stack_bytes))
    }

    /// Set context `h`'s CU_LIMIT_STACK_SIZE (at most 512 KiB, CUDA's local memory per
    /// thread). Frames are static here, so it bounds no launch; it is kept and reported.
    pub fn set_stack_size(&self, h: CtxHandle, bytes: u64) -> Result<()> {
        self.with_ctx(h, |_, c| {
            c.stack_bytes = u32::try_from(bytes).ok().filter(|&b| b <= 512 * 1024).ok_or(CuError::InvalidValue)?;
            Ok(())
        })
    }

    /// Print what context `h`'s kernels printed since the last flush (device `printf`,
    /// failed `assert`s) through the platform: CUDA flushes its printf FIFO at
    /// synchronization points (context, stream and event synchronization, blocking
    /// copies, module loads and unloads, context destruction), and so does this runtime,
    /// even when the context's error is sticky.
    pub fn printf_flush(&self, h: CtxHandle) {
        if let Ok(ctx) = self.ctx(h) {
            for (to, bytes) in ctx.printf_take() {
                self.dev.platform.device_output(to, &bytes);
            }
        }
    }

    /// Queue a fence on the context's default stream.
    pub fn fence_submit(&self, h: CtxHandle) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| c.fence_submit(gpu))
    }

    /// Wait for fence `f` of the context's default stream.
    pub fn fence_wait(&self, h: CtxHandle, f: Fence) -> Result<()> {
        self.with_ctx(h, |_, c| c.live()?.release_of(f))?.wait(&self.dev)
    }

    /// Whether fence `f` of the default stream has been released (without waiting).
    pub fn fence_done(&self, h: CtxHandle, f: Fence) -> Result<bool> {
        self.with_ctx(h, |_, c| Ok(c.live()?.completed() >= f.0))
    }

    /// Device timestamp (PTIMER ns) written with the default stream's most recent fence.
    pub fn fence_timestamp(&self, h: CtxHandle) -> Result<u64> {
        self.with_ctx(h, |_, c| Ok(c.live()?.fence_timestamp()))
    }

    /// The channel id of the context's default stream (for tests and tools).
    pub fn ctx_channel(&self, h: CtxHandle) -> Result<u32> {
        self.with_ctx(h, |_, c| Ok(c.live()?.chid))
    }

    /// Test entry point: submit raw pushbuffer words (possibly malformed; at most 8000, not
    /// checked) on stream `s`, followed by a fence; returns the stream's fence.
    pub fn debug_submit_raw(&self, h: CtxHandle, s: StreamHandle, words: &[u32]) -> Result<Fence> {
        self.with_objs(h, &[s.named()], |gpu, c| c.submit_raw(gpu, s.local(), words))
    }
}
