//! VRAM as the device layer keeps it: the allocator, the VMM API's physical
//! allocations (the table: `physmem`), instance blocks' page directory and TLB flushes.

use super::Device;
use crate::error::{CuError, Result};
use crate::physmem::Count;
use crate::platform::Platform;
use core::sync::atomic::Ordering;
use hw::inst::*;
use hw::regs::*;

impl<P: Platform> Device<P> {
    /// Allocate `bytes` (a non-zero multiple of pages) of VRAM as a physical allocation;
    /// returns its handle, holding one handle reference.
    pub(crate) fn phys_create(&self, bytes: u64) -> Result<u64> {
        if bytes == 0 || !bytes.is_multiple_of(hw::mmu::PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        let addr = self.vram_alloc(bytes, hw::mmu::PAGE_SIZE)?;
        Ok(self.state.lock().phys.insert(addr, bytes))
    }

    /// The VRAM address and size of physical allocation `h`.
    pub(crate) fn phys_of(&self, h: u64) -> Result<(u64, u64)> {
        self.state.lock().phys.get(h)
    }

    /// Count a handle reference or a mapping of `h` taken or dropped, freeing the VRAM
    /// when neither is left.
    pub(crate) fn phys_count(&self, h: u64, c: Count) -> Result<()> {
        let mut st = self.state.lock();
        if let Some((addr, bytes)) = st.phys.count(h, c)? {
            st.vram.free(addr, bytes);
        }
        Ok(())
    }

    /// Point instance block `inst` at page directory `pd` with VA limit `limit`.
    pub(crate) fn write_inst_vm(&self, inst: u64, pd: u64, limit: u64) -> Result<()> {
        let replayable = self.replay.on.load(Ordering::Acquire);
        let lo = InstPdLo::new().with_addr_lo((pd >> 12) as u32).with_target(Target::Vram).with_replayable(replayable);
        self.pramin_write(inst + INST_PD_LO as u64, [lo.into(), (pd >> 32) as u32, limit as u32, (limit >> 32) as u32])
    }

    /// Invalidate the TLB entries of page directory `pd` (nouveau gf100 vm flush).
    pub(crate) fn tlb_flush(&self, pd: u64) -> Result<()> {
        let space: u32 = PfbFlushStatus::new().with_space(0xFF).into();
        let done: u32 = PfbFlushStatus::new().with_done(true).into();
        self.wait_reg(NV_PFB_FLUSH_STATUS, 0, space, space)?;
        self.wr(NV_PFB_TLB_FLUSH_PDB, 0, TlbFlushPdb::new().with_pd((pd >> 12) as u32).with_target(Target::Vram));
        self.wr(NV_PFB_TLB_FLUSH_TRIGGER, 0, TlbFlushTrigger::new().with_page_all(true).with_trigger(true));
        self.wait_reg(NV_PFB_FLUSH_STATUS, 0, done, done)
    }
}
