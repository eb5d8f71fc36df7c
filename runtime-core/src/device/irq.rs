//! Interrupt service: the fault and PBDMA records read, the channels they name marked
//! with their error, the interrupts acknowledged.

use super::Device;
use crate::error::CuError;
use crate::platform::{Level, Platform};
use crate::rlog;
use core::sync::atomic::Ordering;
use hw::regs::*;

impl<P: Platform> Device<P> {
    /// The interrupt handler: read the fault and PBDMA records, mark the channels they name
    /// with their error, acknowledge. Safe to call from a wait loop (polling) or an IRQ.
    pub fn service_interrupts(&self) {
        let _g = self.irq.lock();
        let nonstall = self.rd(NV_PMC_INTR_1, 0);
        if nonstall != 0 {
            self.wr(NV_PMC_INTR_1, 0, PmcIntr::from(nonstall));
        }
        let pmc = PmcIntr::from(self.rd(NV_PMC_INTR_0, 0));
        if pmc.pgraph() {
            for _ in 0..64 {
                let st = self.rd(NV_PGRAPH_INTR, 0);
                if st == 0 || st == BAD_READ {
                    break;
                }
                let chid = self.rd(NV_PGRAPH_TRAP_CHANNEL, 0);
                let info = self.rd(NV_PGRAPH_TRAP_INFO, 0);
                let pc = self.rd(NV_PGRAPH_TRAP_PC, 0);
                let reason = TrapReason::from_u32(info);
                rlog!(&self.platform, Level::Error, "PGRAPH: trap {reason:?} channel {chid} pc {pc}");
                let e = match reason {
                    Some(TrapReason::IllegalInstruction) => CuError::IllegalInstruction,
                    Some(TrapReason::OutOfRange) => CuError::IllegalAddress,
                    Some(TrapReason::Misaligned) => CuError::MisalignedAddress,
                    Some(TrapReason::Watchdog) => CuError::LaunchTimeout,
                    Some(TrapReason::Trap) => CuError::Assert,
                    Some(TrapReason::InvalidPc) => CuError::InvalidPc,
                    Some(TrapReason::NoResources) => CuError::OutOfMemory,
                    Some(TrapReason::BadLaunch) | None => CuError::LaunchFailed,
                };
                if chid < NUM_CHANNELS {
                    self.set_channel_error(chid, e);
                }
                self.wr(NV_PGRAPH_INTR, 0, PgraphIntr::from(st));
            }
        }
        if !pmc.pfifo() {
            return;
        }
        let intr = PfifoIntr::from(self.rd(NV_PFIFO_INTR_0, 0));
        if intr.mmu_fault() {
            for _ in 0..64 {
                let units = self.rd(NV_PFIFO_MMU_FAULT_UNITS, 0);
                if units == 0 || units == BAD_READ {
                    break;
                }
                let u = units.trailing_zeros();
                let inst = (self.rd(NV_PFIFO_FAULT_INST, u) as u64) << 12;
                let va = self.rd(NV_PFIFO_FAULT_VA_LO, u) as u64 | (self.rd(NV_PFIFO_FAULT_VA_HI, u) as u64) << 32;
                let info = PfifoFaultInfo::from(self.rd(NV_PFIFO_FAULT_INFO, u));
                let chid = self.chid_of_inst(inst);
                rlog!(
                    &self.platform,
                    Level::Error,
                    "MMU fault: unit {u:#x} channel {chid:?} va {va:#x} {:?} {}",
                    info.reason_or_err().ok(),
                    if info.write() { "write" } else { "read" }
                );
                if let Some(c) = chid {
                    // The simulator's host memory ran out behind this access: out of memory.
                    let e = match info.reason_or_err() {
                        Ok(FaultReason::NoBacking) => CuError::OutOfMemory,
                        _ => CuError::IllegalAddress,
                    };
                    self.set_channel_error(c, e);
                }
                self.wr(NV_PFIFO_MMU_FAULT_UNITS, 0, 1 << u);
            }
        }
        if intr.pbdma_intr() {
            for _ in 0..64 {
                let st = self.rd(NV_PPBDMA_INTR_0, 0);
                if st == 0 || st == BAD_READ {
                    break;
                }
                let chid = self.rd(NV_PPBDMA_CHANNEL, 0);
                let m = PbdmaMethod::from(self.rd(NV_PPBDMA_METHOD0, 0));
                let data = self.rd(NV_PPBDMA_DATA0, 0);
                rlog!(
                    &self.platform,
                    Level::Error,
                    "PBDMA0: intr {st:#010x} channel {chid} subc {} mthd {:#06x} data {data:#010x}",
                    m.subchannel(),
                    (m.method() as u32) << 2
                );
                if chid < NUM_CHANNELS {
                    self.set_channel_error(chid, CuError::LaunchFailed);
                }
                self.wr(NV_PPBDMA_INTR_0, 0, PbdmaIntr::from(st));
            }
        }
        let latched = u32::from(intr) & !u32::from(PfifoIntr::new().with_mmu_fault(true).with_pbdma_intr(true));
        if latched != 0 {
            rlog!(&self.platform, Level::Warn, "PFIFO: intr {latched:#010x}");
            self.wr(NV_PFIFO_INTR_0, 0, PfifoIntr::from(latched));
        }
    }

    fn chid_of_inst(&self, inst: u64) -> Option<u32> {
        (0..NUM_CHANNELS).find(|&c| inst != 0 && self.chan_inst[c as usize].load(Ordering::Acquire) == inst)
    }
}
