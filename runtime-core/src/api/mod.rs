//! The API layer: [`Gpu`], one probed device (reached through `Deref`) with its contexts
//! behind handles (index and generation, so stale handles are detected), and the
//! CUDA-shaped calls on them. Each call looks its context up, runs the context layer's
//! operation under the context's lock, and waits (when it waits) without that lock.
//!
//! - [`memory`]: allocations, copies and memsets;
//! - [`module`]: modules, kernel attributes, launches;
//! - [`stream`]: streams and events.
//!
//! Work goes to a stream: [`StreamHandle::DEFAULT`] is the legacy default stream, a value
//! passed like any other, not a method of its own.

pub mod memory;
pub mod module;
pub mod stream;

use crate::channel::Fence;
use crate::check::{CheckMode, CheckReport};
use crate::context::{Context, ContextConfig, Inner};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use crate::vm::Bar1;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Deref;
use core::sync::atomic::{AtomicU32, Ordering};
use lock_api::Mutex;
pub use stream::StreamHandle;

struct Slot<P: Platform> {
    generation: u32,
    ctx: Option<Arc<Context<P>>>,
}

/// A handle naming a context (index and generation; stale handles are detected).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CtxHandle(pub u64);

/// A probed, initialized GPU and its contexts.
pub struct Gpu<P: Platform> {
    dev: Device<P>,
    /// BAR1's address space, kept for the device's lifetime.
    _bar1: Bar1,
    contexts: Mutex<P::RawMutex, Vec<Slot<P>>>,
    /// The checks of contexts created from now on ([`Gpu::set_checks`]).
    checks: AtomicU32,
}

impl<P: Platform> Deref for Gpu<P> {
    type Target = Device<P>;
    fn deref(&self) -> &Device<P> {
        &self.dev
    }
}

impl<P: Platform> Gpu<P> {
    /// Probe the device behind `platform` and bring it up: units and interrupts, then
    /// BAR1's page tables with USERD mapped, then the runlist.
    pub fn probe(platform: P) -> Result<Self> {
        let mut dev = Device::probe(platform)?;
        let bar1 = Bar1::bring_up(&mut dev)?;
        dev.runlist_init()?;
        Ok(Self { dev, _bar1: bar1, contexts: Mutex::new(Vec::new()), checks: AtomicU32::new(0) })
    }

    /// Check every launch of contexts created from now on (`rgdev run --check`): the
    /// checks of `mode`, at a cost in speed and host memory (racecheck keeps the last
    /// write and read of every shared byte and global word a grid touches).
    pub fn set_checks(&self, mode: CheckMode) {
        self.checks.store(mode.into(), Ordering::Release);
        if mode.initcheck() {
            self.wr(hw::regs::NV_PFB_CHECK_SHADOW, 0, 1);
        }
    }

    /// The checks contexts are created with.
    pub fn checks(&self) -> CheckMode {
        CheckMode::from(self.checks.load(Ordering::Acquire))
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
        let slot = &mut slots[idx];
        slot.generation = slot.generation.wrapping_add(1);
        slot.ctx = Some(ctx);
        Ok(CtxHandle((slot.generation as u64) << 32 | (idx as u64 + 1)))
    }

    /// The context named by `h`.
    fn ctx(&self, h: CtxHandle) -> Result<Arc<Context<P>>> {
        let idx = (h.0 as u32 as usize).checked_sub(1).ok_or(CuError::InvalidContext)?;
        let slots = self.contexts.lock();
        match slots.get(idx) {
            Some(Slot { generation, ctx: Some(c) }) if *generation as u64 == h.0 >> 32 => Ok(c.clone()),
            _ => Err(CuError::InvalidContext),
        }
    }

    /// Run `f` on context `h`'s state under its lock (see `Context::with`: a destroyed
    /// context or a sticky error ends the call first).
    fn with_ctx<T>(&self, h: CtxHandle, f: impl FnOnce(&Device<P>, &mut Inner) -> Result<T>) -> Result<T> {
        self.ctx(h)?.with(&self.dev, |c| f(&self.dev, c))
    }

    /// Destroy a context: wait for its work (unless it faulted), free its memory, unbind its channel.
    pub fn ctx_destroy(&self, h: CtxHandle) -> Result<()> {
        let ctx = {
            let idx = (h.0 as u32 as usize).checked_sub(1).ok_or(CuError::InvalidContext)?;
            let mut slots = self.contexts.lock();
            match slots.get_mut(idx) {
                Some(s) if s.generation as u64 == h.0 >> 32 && s.ctx.is_some() => s.ctx.take(),
                _ => None,
            }
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
        let waits = self.with_ctx(h, |_, c| c.releases())?;
        waits.iter().try_for_each(|w| w.wait(self))
    }

    /// Queue a fence on the context's default stream.
    pub fn fence_submit(&self, h: CtxHandle) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| c.fence_submit(gpu))
    }

    /// Wait for fence `f` of the context's default stream.
    pub fn fence_wait(&self, h: CtxHandle, f: Fence) -> Result<()> {
        self.with_ctx(h, |_, c| c.live()?.release_of(f))?.wait(self)
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
        self.with_ctx(h, |gpu, c| c.submit_raw(gpu, s.0, words))
    }
}
