//! The API object: one probed device ([`Device`], reached through `Deref`), the context
//! handle table (index and generation, so stale handles are detected) and the checks new
//! contexts get. The CUDA-shaped operations on contexts, modules, launches, streams and
//! events are `impl Gpu` blocks in `module.rs`, `stream.rs` and `check.rs`.

use crate::check::{CheckMode, CheckReport};
use crate::context::{Context, ContextConfig};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Deref;
use core::sync::atomic::{AtomicU32, Ordering};
use lock_api::Mutex;

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
    /// Probe the device behind `platform` and bring it up.
    pub fn probe(platform: P) -> Result<Self> {
        Ok(Self { dev: Device::probe(platform)?, contexts: Mutex::new(Vec::new()), checks: AtomicU32::new(0) })
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
    pub(crate) fn ctx(&self, h: CtxHandle) -> Result<Arc<Context<P>>> {
        let idx = (h.0 as u32 as usize).checked_sub(1).ok_or(CuError::InvalidContext)?;
        let slots = self.contexts.lock();
        match slots.get(idx) {
            Some(Slot { generation, ctx: Some(c) }) if *generation as u64 == h.0 >> 32 => Ok(c.clone()),
            _ => Err(CuError::InvalidContext),
        }
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
}

impl<P: Platform> Gpu<P> {
    /// The findings of context `h`'s checked launches since the last call, and how many
    /// did not fit the report buffer. Read after synchronizing; a context whose error is
    /// sticky still gives them.
    pub fn check_reports(&self, h: CtxHandle) -> Result<(Vec<CheckReport>, u32)> {
        let ctx = self.ctx(h)?;
        ctx.check_reports()
    }
}
