//! Error records: MMU faults (one record slot per fault unit), PGRAPH traps and PBDMA
//! errors. A unit shows one record at a time in its registers; later ones queue until
//! software acknowledges the current one (a full queue drops and counts). A channel error
//! stops that channel only.

use crate::mmu::Fault;
use crate::pfifo::{ChanError, ChanState};
use crate::{FakeGpu, compute};
use hw::regs::*;

/// Records a unit holds back while one is shown.
pub(crate) const QUEUE: usize = 16;

/// An error record for a unit whose registers show one record at a time: present it now
/// when the unit's interrupt is clear, else queue it (a full queue drops and counts it).
fn latch<R, const N: usize>(busy: bool, queue: &mut heapless::Deque<R, N>, r: R, dropped: &mut u64) -> Option<R> {
    if !busy {
        return Some(r);
    }
    if queue.push_back(r).is_err() {
        *dropped += 1;
    }
    None
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct FaultRecord {
    pub(crate) unit: u32,
    pub(crate) inst: u64,
    pub(crate) fault: Fault,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct TrapRecord {
    pub(crate) chid: u32,
    pub(crate) trap: compute::Trap,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PbdmaRecord {
    pub(crate) chid: u32,
    pub(crate) intr: u32,
    pub(crate) subchannel: u8,
    pub(crate) method: u32,
    pub(crate) data: u32,
}

impl FakeGpu {
    pub(crate) fn raise_trap(&mut self, r: TrapRecord) {
        self.stats.traps += 1;
        let busy = self.regs.get(NV_PGRAPH_INTR, 0) != 0;
        if let Some(r) = latch(busy, &mut self.trap_queue, r, &mut self.stats.dropped_errors) {
            self.write_trap(r);
        }
    }

    pub(crate) fn write_trap(&mut self, r: TrapRecord) {
        self.regs.set(NV_PGRAPH_TRAP_CHANNEL, 0, r.chid);
        self.regs.set(NV_PGRAPH_TRAP_INFO, 0, r.trap.reason as u32);
        self.regs.set(NV_PGRAPH_TRAP_PC, 0, r.trap.pc);
        self.regs.set(NV_PGRAPH_INTR, 0, PgraphIntr::new().with_trap(true).into());
    }

    pub(crate) fn next_trap(&mut self) {
        if self.regs.get(NV_PGRAPH_INTR, 0) == 0
            && let Some(r) = self.trap_queue.pop_front()
        {
            self.write_trap(r);
        }
    }

    pub(crate) fn raise_fault(&mut self, r: FaultRecord) {
        self.stats.faults += 1;
        let bit = 1u32 << (r.unit & 31);
        if self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) & bit == 0 {
            self.write_fault(r);
        } else if self.fault_queue.push_back(r).is_err() {
            self.stats.dropped_errors += 1;
        }
    }

    pub(crate) fn write_fault(&mut self, r: FaultRecord) {
        let u = r.unit & 31;
        self.regs.set(NV_PFIFO_FAULT_INST, u, (r.inst >> 12) as u32);
        self.regs.set(NV_PFIFO_FAULT_VA_LO, u, r.fault.va as u32);
        self.regs.set(NV_PFIFO_FAULT_VA_HI, u, (r.fault.va >> 32) as u32);
        let info = PfifoFaultInfo::new().with_reason(r.fault.reason).with_write(r.fault.write);
        self.regs.set(NV_PFIFO_FAULT_INFO, u, info.into());
        let units = self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) | 1 << u;
        self.regs.set(NV_PFIFO_MMU_FAULT_UNITS, 0, units);
    }

    pub(crate) fn next_faults(&mut self) {
        let mut keep: heapless::Deque<FaultRecord, QUEUE> = heapless::Deque::new();
        while let Some(r) = self.fault_queue.pop_front() {
            if self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) & (1 << (r.unit & 31)) == 0 {
                self.write_fault(r);
            } else {
                let _ = keep.push_back(r);
            }
        }
        self.fault_queue = keep;
    }

    pub(crate) fn raise_pbdma(&mut self, r: PbdmaRecord) {
        self.stats.pbdma_errors += 1;
        let busy = self.regs.get(NV_PPBDMA_INTR_0, 0) != 0;
        if let Some(r) = latch(busy, &mut self.pbdma_queue, r, &mut self.stats.dropped_errors) {
            self.write_pbdma(r);
        }
    }

    pub(crate) fn write_pbdma(&mut self, r: PbdmaRecord) {
        let m = PbdmaMethod::new().with_method(((r.method >> 2) & 0xFFF) as u16).with_subchannel(r.subchannel & 7);
        self.regs.set(NV_PPBDMA_METHOD0, 0, m.into());
        self.regs.set(NV_PPBDMA_DATA0, 0, r.data);
        self.regs.set(NV_PPBDMA_CHANNEL, 0, r.chid);
        self.regs.set(NV_PPBDMA_INTR_0, 0, r.intr);
    }

    pub(crate) fn next_pbdma(&mut self) {
        if self.regs.get(NV_PPBDMA_INTR_0, 0) == 0
            && let Some(r) = self.pbdma_queue.pop_front()
        {
            self.write_pbdma(r);
        }
    }

    pub(crate) fn channel_error(&mut self, chid: u32, inst: u64, e: ChanError) {
        if let Some(ch) = self.channels[chid as usize].as_mut() {
            ch.state = ChanState::Stopped;
        }
        match e {
            ChanError::Fault { unit, fault } => self.raise_fault(FaultRecord { unit, inst, fault }),
            ChanError::Trap(trap) => self.raise_trap(TrapRecord { chid, trap }),
            ChanError::Pbdma { intr, subchannel, method, data } => {
                self.raise_pbdma(PbdmaRecord { chid, intr, subchannel, method, data })
            }
        }
    }
}
