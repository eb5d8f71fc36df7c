//! Page migrations by the copy engine: a channel of the runtime's own (no context's: an
//! address space of its own holds only its rings), whose copy-engine jobs name physical
//! addresses (LAUNCH_DMA `src_physical`/`dst_physical`, SET_SRC/DST_PHYS_MODE, as
//! Kepler's copy class does and NVIDIA's UVM driver uses): VRAM pages, and host memory at
//! the bus addresses its registration for DMA gave. What a fault service moves takes the
//! copy engine's time on the simulated clock, PCIe included, and runs while the GPU's
//! other channels wait or work.

use super::Gpu;
use crate::channel::Channel;
use crate::error::{CuError, Result};
use crate::platform::DmaBuffer;
use crate::platform::Platform;
use crate::vm::VaSpace;
use alloc::sync::Arc;
use alloc::vec::Vec;
use hw::class::{LaunchDma, Layout, PhysMode, PhysTarget, TransferType, addr40, copy, subch};

/// One side of a migration copy.
#[derive(Clone)]
pub enum Side {
    /// This GPU's VRAM at this physical address.
    Vram(u64),
    /// Host memory, `offset` bytes into it (registered for this GPU's DMA at first use).
    Host(Arc<fifo::SharedMem>, u64),
}

/// The runtime's migration channel of a GPU.
pub(crate) struct Migrator {
    /// The channel's address space (its rings).
    _vm: VaSpace,
    ch: Channel,
    /// Host memory registered for DMA, by identity: (memory, its registration).
    host: Vec<(Arc<fifo::SharedMem>, DmaBuffer)>,
}

/// The bus address of host memory `mem` for this GPU among the registrations `host`,
/// registered at first use.
fn bus<P: Platform>(
    host: &mut Vec<(Arc<fifo::SharedMem>, DmaBuffer)>,
    dev: &crate::device::Device<P>,
    mem: &Arc<fifo::SharedMem>,
) -> Result<u64> {
    if let Some((_, b)) = host.iter().find(|(h, _)| Arc::ptr_eq(h, mem)) {
        return Ok(b.bus);
    }
    let b = dev.platform.dma_register(mem.clone())?;
    let at = b.bus;
    host.push((mem.clone(), b));
    Ok(at)
}

/// The VA window of the migration channel's own address space (its rings only), as
/// `VaSpace::new` takes it.
const MIGRATOR_VA: (u64, u64) = (1 << 32, 1 << 34);

impl<P: Platform> Gpu<P> {
    /// Copy each `(source, destination, bytes)` with the copy engine, in order, and wait
    /// for the last (see the module documentation). Host memory stays registered for this
    /// GPU until [`Gpu::migrate_forget`].
    pub fn migrate(&self, copies: &[(Side, Side, u64)]) -> Result<()> {
        let mut m = self.migrator.lock();
        if m.is_none() {
            let mut vm = VaSpace::new(&self.dev, MIGRATOR_VA.0, MIGRATOR_VA.1)?;
            let ch = match Channel::new(&self.dev, &mut vm, 64, 16 << 10, 1, 0) {
                Ok(ch) => ch,
                Err(e) => {
                    vm.destroy(&self.dev);
                    return Err(e);
                }
            };
            *m = Some(Migrator { _vm: vm, ch, host: Vec::new() });
        }
        let mg = m.as_mut().ok_or(CuError::Unknown)?;
        let mut addr = |side: &Side| -> Result<(PhysTarget, u64)> {
            Ok(match side {
                Side::Vram(p) => (PhysTarget::LocalFb, *p),
                Side::Host(mem, off) => (PhysTarget::CoherentSysmem, bus(&mut mg.host, &self.dev, mem)? + off),
            })
        };
        let launch: u32 = LaunchDma::new()
            .with_transfer(TransferType::NonPipelined)
            .with_src_layout(Layout::Pitch)
            .with_dst_layout(Layout::Pitch)
            .with_src_physical(true)
            .with_dst_physical(true)
            .into();
        let c = subch::COPY0;
        let err = |_| CuError::Unknown;
        // Pushbuffers of at most this many jobs, a fence after the last.
        for chunk in copies.chunks(64) {
            let mut cmd = fifo::Pushbuf::<2048>::new();
            for (src, dst, bytes) in chunk {
                let ((st, s), (dt, d)) = (addr(src)?, addr(dst)?);
                let bytes = u32::try_from(*bytes).map_err(|_| CuError::InvalidValue)?;
                let modes = [PhysMode::new().with_target(st).into(), PhysMode::new().with_target(dt).into()];
                cmd.incr(c, copy::SET_SRC_PHYS_MODE, &modes).map_err(err)?;
                cmd.incr(c, copy::OFFSET_IN_UPPER, &[addr40::hi(s), addr40::lo(s), addr40::hi(d), addr40::lo(d)])
                    .map_err(err)?;
                cmd.incr(c, copy::LINE_LENGTH_IN, &[bytes, 1]).map_err(err)?;
                cmd.incr(c, copy::LAUNCH_DMA, &[launch]).map_err(err)?;
            }
            let f = mg.ch.fence(&mut cmd)?;
            mg.ch.submit(&self.dev, cmd.words())?;
            mg.ch.wait(&self.dev, f)?;
        }
        Ok(())
    }

    /// The bus address at which this GPU reaches host memory `mem` (registered for its DMA
    /// at the first call, with the memory the migration channel copies; given back by
    /// [`Gpu::migrate_forget`]).
    pub fn host_bus(&self, mem: &Arc<fifo::SharedMem>) -> Result<u64> {
        let mut m = self.migrator.lock();
        if m.is_none() {
            drop(m);
            self.migrate(&[])?;
            m = self.migrator.lock();
        }
        bus(&mut m.as_mut().ok_or(CuError::Unknown)?.host, &self.dev, mem)
    }

    /// The channel id of the migration channel, once it exists (tools tell its copies from
    /// the program's).
    pub fn migration_channel(&self) -> Option<u32> {
        self.migrator.lock().as_ref().map(|m| m.ch.chid)
    }

    /// Host memory `mem` is going: give back its registration for the migration channel.
    pub fn migrate_forget(&self, mem: &Arc<fifo::SharedMem>) {
        if let Some(m) = self.migrator.lock().as_mut()
            && let Some(i) = m.host.iter().position(|(h, _)| Arc::ptr_eq(h, mem))
        {
            let (_, b) = m.host.swap_remove(i);
            self.dev.platform.dma_free(&b);
        }
    }
}
