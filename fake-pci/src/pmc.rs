//! PMC, the master control: unit enables (a disabled unit's registers read BAD_READ, and
//! disabling PFIFO resets it) and the interrupt tree that sums each unit's status into
//! NV_PMC_INTR_0 and INTA.

use crate::FakeGpu;
use hw::regs::*;

impl FakeGpu {
    pub(crate) fn enable(&self) -> PmcEnable {
        PmcEnable::from(self.regs.get(NV_PMC_ENABLE, 0))
    }

    /// Whether the unit owning `off` is powered (PMC, PBUS, PFB, PRAMIN always are).
    pub(crate) fn unit_enabled(&self, off: u32) -> bool {
        let e = self.enable();
        let within = |r: core::ops::Range<u32>| r.contains(&off);
        if within(unit::PFIFO) || within(unit::PBDMA) {
            e.pfifo()
        } else if within(unit::PTIMER) {
            e.ptimer()
        } else if within(unit::PCOPY0) {
            e.pcopy0()
        } else if within(unit::PGRAPH) {
            e.pgraph()
        } else {
            true
        }
    }

    pub(crate) fn enable_changed(&mut self, old: PmcEnable, new: PmcEnable) {
        if old.pfifo() && !new.pfifo() {
            // Disabling a unit resets it: channels unload, PFIFO and PBDMA registers reset.
            for chid in 0..NUM_CHANNELS {
                self.unbind(chid);
            }
            self.runlist.clear();
            self.regs.reset_range(unit::PFIFO);
            self.regs.reset_range(unit::PBDMA);
            self.fault_queue.clear();
            self.pbdma_queue.clear();
        }
    }

    pub(crate) fn pfifo_intr(&self) -> u32 {
        let mut v = PfifoIntr::from(self.regs.get(NV_PFIFO_INTR_0, 0));
        if self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) != 0 {
            v.set_mmu_fault(true);
        }
        if (0..NUM_PBDMA).any(|i| self.regs.get(NV_PPBDMA_INTR_0, i) != 0) {
            v.set_pbdma_intr(true);
        }
        v.into()
    }

    pub(crate) fn pmc_intr(&self) -> PmcIntr {
        let e = self.enable();
        let pfifo = e.pfifo() && self.pfifo_intr() & self.regs.get(NV_PFIFO_INTR_EN_0, 0) != 0;
        let pgraph = e.pgraph() && self.regs.get(NV_PGRAPH_INTR, 0) & self.regs.get(NV_PGRAPH_INTR_EN, 0) != 0;
        let pfb = self.regs.get(NV_PFB_REPLAY_INTR, 0) & self.regs.get(NV_PFB_REPLAY_INTR_EN, 0) != 0;
        PmcIntr::new().with_pfifo(pfifo).with_pgraph(pgraph).with_pfb(pfb)
    }

    /// Whether the INTA line is asserted (stall or non-stall interrupt pending and enabled).
    pub fn irq_asserted(&self) -> bool {
        if self.pci.command().intx_disable() {
            return false;
        }
        let stall = u32::from(self.pmc_intr()) & self.regs.get(NV_PMC_INTR_EN_0, 0);
        let nonstall = self.regs.get(NV_PMC_INTR_1, 0) & self.regs.get(NV_PMC_INTR_EN_1, 0);
        stall | nonstall != 0
    }
}
