//! PFIFO and PBDMA: a channel's state as loaded from its instance block (RAMFC), GPFIFO
//! fetches through the MMU, the method stream, host-class (906F) methods including
//! semaphores, SET_OBJECT subchannel binding, and dispatch of engine methods to the bound
//! class. Errors are values ([`ChanError`]); the GPU records them in the fault and PBDMA
//! registers and stops the channel.

mod scheduler;

use crate::compute::{Action, ComputeEngine, ComputeRegs, GridError, LaunchCtx, Trap};
use crate::config::DeviceConfig;
use crate::config::Mode;
use crate::copy::{CopyEngine, CopyJob, CopyRegs};
use crate::mmu::{AddressSpace, Fault, Memory, Tlb};
use crate::timing::TimingEngine;
use alloc::collections::VecDeque;
use alloc::vec::Vec;
use fifo::{Method, MethodStream, Ring};
use hw::class::{self, MemOp, MemOpB, SemOp, SemaphoreD, SetObject, addr40, host};
use hw::cmd::GpEntry;
use hw::inst::*;
use hw::regs::{PbdmaIntr, Target, fault_unit};

/// Why a channel stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChanError {
    /// A PBDMA error: the interrupt bits and the offending method.
    Pbdma {
        /// NV_PPBDMA_INTR_0 bits.
        intr: u32,
        /// Subchannel.
        subchannel: u8,
        /// Method byte offset.
        method: u32,
        /// Data word.
        data: u32,
    },
    /// A grid trapped on the compute engine.
    Trap(Trap),
    /// An MMU fault by a unit.
    Fault {
        /// Fault unit (record slot).
        unit: u32,
        /// The fault.
        fault: Fault,
    },
}

impl ChanError {
    fn pbdma(intr: PbdmaIntr, m: Method) -> Self {
        Self::Pbdma { intr: intr.into(), subchannel: m.subchannel, method: m.method, data: m.data }
    }
    fn fault(unit: u32) -> impl Fn(Fault) -> Self {
        move |fault| Self::Fault { unit, fault }
    }
}

/// Scheduling state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChanState {
    /// May run when it has work.
    Active,
    /// Blocked in a semaphore acquire.
    Acquiring,
    /// Waiting for its grids in flight (timing mode) to complete.
    WaitGrids,
    /// Stopped by an error until software unbinds it.
    Stopped,
}

/// What one step of a channel did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Work done; the channel is busy for this many cycles.
    Busy(u64),
    /// Cannot continue before this cycle (waiting for its engines to go idle).
    StallUntil(u64),
    /// Blocked in a semaphore acquire.
    Acquiring,
    /// Waiting for the channel's grids in flight (timing mode) to complete.
    WaitGrids,
    /// Nothing to do.
    Idle,
}

/// Units a channel step may touch.
pub struct Units<'a> {
    /// Physical memory.
    pub mem: &'a mut Memory,
    /// The TLB.
    pub tlb: &'a mut Tlb,
    /// The copy engine.
    pub copy: &'a mut CopyEngine,
    /// The compute engine.
    pub compute: &'a mut ComputeEngine,
    /// The compute engine's timing model.
    pub timing: &'a mut TimingEngine,
    /// Launches processed so far (the next launch's sequence number).
    pub launches: &'a mut u64,
    /// Costs.
    pub cfg: &'a DeviceConfig,
    /// Current cycle.
    pub now: u64,
    /// PTIMER nanoseconds now.
    pub now_ns: u64,
    /// Set when a host NON_STALL_INTERRUPT executed.
    pub nonstall: bool,
    /// Statistics.
    pub stats: &'a mut crate::Stats,
}

/// A channel loaded into PFIFO.
pub struct Channel {
    /// Channel id.
    pub chid: u32,
    /// Its address space.
    pub space: AddressSpace,
    /// USERD physical address (VRAM).
    pub userd: u64,
    gp_base: u64,
    gp_ring: Ring,
    gp_get: u32,
    seg: Vec<u32>,
    stream: MethodStream,
    pending: Option<Method>,
    subch: [u32; 8],
    sem_addr: u64,
    sem_payload: u32,
    mem_op_a: u32,
    copy: CopyRegs,
    compute: ComputeRegs,
    /// Scheduling state.
    pub state: ChanState,
    /// Cycle from which it may run again.
    pub ready_at: u64,
    /// Completion cycle of its last engine job.
    pub engine_busy_until: u64,
    /// Whether it has fetched or unfetched work (refreshed at each scheduling pass).
    pub has_work: bool,
    /// Grids of this channel in flight on the timing model.
    pub grids_in_flight: u32,
    /// GPFIFO entries PFIFO has seen beyond GET: the last GP_PUT read, and runs of
    /// (entries, the cycle they were first seen), oldest first.
    put_seen: u32,
    seen: VecDeque<(u32, u64)>,
    /// The cycle the segment being executed was first seen: the front end prepares a launch
    /// of it from then on, while the grids before it run (`dispatch.launch_overlap_cycles`).
    seg_seen: u64,
    /// Scheduling priority (RAMFC_SCHED; higher first under the priority policy).
    pub priority: u8,
    /// Time slice in cycles (0: the device's default).
    pub timeslice: u64,
}

impl Channel {
    /// Load channel `chid` from the instance block at `inst` (VRAM).
    pub fn load(mem: &mut Memory, chid: u32, inst: u64) -> Result<Self, ChanError> {
        let rd = |off: u32| mem.read_u32(Target::Vram, inst + off as u64);
        let bad = |intr| ChanError::Pbdma { intr, subchannel: 0, method: 0, data: 0 };
        let sig = rd(RAMFC_SIGNATURE).map_err(|_| bad(PbdmaIntr::new().with_memreq(true).into()))?;
        if sig != RAMFC_SIGNATURE_VALUE {
            return Err(ChanError::Pbdma {
                intr: PbdmaIntr::new().with_signature(true).into(),
                subchannel: 0,
                method: RAMFC_SIGNATURE,
                data: sig,
            });
        }
        let r = |off| rd(off).map_err(|_| bad(PbdmaIntr::new().with_memreq(true).into()));
        let userd = r(RAMFC_USERD_LO)? as u64 | ((r(RAMFC_USERD_HI)? as u64 & 0xFF) << 32);
        let gp_hi = RamfcGpfifoHi::from(r(RAMFC_GPFIFO_HI)?);
        let gp_base = r(RAMFC_GPFIFO_LO)? as u64 | (gp_hi.va_hi() as u64) << 32;
        let gp_ring =
            Ring::new(1u32 << gp_hi.log2_entries().min(20)).ok_or(bad(PbdmaIntr::new().with_gpentry(true).into()))?;
        let space = AddressSpace::from_instance(mem, inst).map_err(|reason| ChanError::Fault {
            unit: fault_unit::PFIFO,
            fault: Fault { va: 0, reason, write: false },
        })?;
        let gp_get = mem.read_u32(Target::Vram, userd + USERD_GP_GET as u64).unwrap_or(0);
        let sched = RamfcSched::from(r(RAMFC_SCHED)?);
        Ok(Self {
            priority: sched.priority(),
            timeslice: sched.timeslice() as u64 * 256,
            userd,
            gp_base,
            gp_ring,
            gp_get: if gp_ring.check(gp_get) { gp_get } else { 0 },
            put_seen: if gp_ring.check(gp_get) { gp_get } else { 0 },
            state: ChanState::Active,
            ..Self::stopped(chid, space)
        })
    }

    fn gp_put(&self, mem: &Memory) -> Result<u32, ChanError> {
        let put = mem.read_u32(Target::Vram, self.userd + USERD_GP_PUT as u64).map_err(|reason| ChanError::Fault {
            unit: fault_unit::PFIFO,
            fault: Fault { va: self.userd, reason, write: false },
        })?;
        if !self.gp_ring.check(put) {
            let intr = PbdmaIntr::new().with_gpentry(true).into();
            return Err(ChanError::Pbdma { intr, subchannel: 0, method: USERD_GP_PUT, data: put });
        }
        Ok(put)
    }

    /// Note the GPFIFO entries software has added since the last look (GP_PUT), as seen at
    /// cycle `now`. A bad GP_PUT is left for the fetch to report.
    pub fn observe(&mut self, mem: &Memory, now: u64) {
        let Ok(put) = self.gp_put(mem) else { return };
        let n = self.gp_ring.used(self.put_seen, put);
        if n == 0 {
            return;
        }
        self.put_seen = put;
        // Bounded: past 64 runs, the newest take the latest run's cycle (seen later).
        let full = self.seen.len() >= 64;
        match self.seen.back_mut() {
            Some(b) if full => *b = (b.0 + n, now),
            _ => self.seen.push_back((n, now)),
        }
    }

    /// Refresh `has_work` from USERD (software may have written GP_PUT).
    pub fn poll(&mut self, mem: &Memory) -> Result<bool, ChanError> {
        let busy = self.pending.is_some() || !self.stream.done(&self.seg);
        self.has_work = busy || self.gp_put(mem)? != self.gp_get;
        Ok(self.has_work)
    }

    /// Re-evaluate a blocked acquire; true if it would now succeed.
    pub fn acquire_ready(&mut self, mem: &Memory, tlb: &mut Tlb) -> bool {
        let Some(m) = self.pending else { return true };
        let d = SemaphoreD::from(m.data);
        let mark = mem.gate.mark();
        match tlb.read_va_u32(mem, &self.space, self.sem_addr) {
            Ok(v) => acquire_met(d.operation_or_err().unwrap_or(SemOp::Invalid0), v, self.sem_payload),
            // Behind the machine's closed gate (crate::gate): not met yet; the wait opens
            // the next slice, which looks again.
            Err(_) if mem.gate.waited_since(mark) => false,
            Err(_) => true, // let the step report the fault
        }
    }

    /// Run one step: one method, or one GPFIFO fetch.
    pub fn step(&mut self, u: &mut Units<'_>) -> Result<Step, ChanError> {
        let m = match self.pending.take() {
            Some(m) => Some(m),
            None => match self.stream.next(&self.seg) {
                Some(Ok(m)) => Some(m),
                Some(Err(fifo::DecodeError::BadOpcode { word, .. } | fifo::DecodeError::Truncated { word, .. })) => {
                    let intr = PbdmaIntr::new().with_pbentry(true).into();
                    return Err(ChanError::Pbdma { intr, subchannel: 0, method: 0, data: word });
                }
                None => None,
            },
        };
        match m {
            Some(m) => {
                u.stats.methods += 1;
                let mark = u.mem.gate.mark();
                let r = match self.method(m, u) {
                    // Memory behind the machine's closed gate: the method runs again when
                    // the next slice opens it (crate::gate).
                    Err(_) if u.mem.gate.waited_since(mark) => {
                        self.pending = Some(m);
                        return Ok(Step::StallUntil(u.mem.gate.reopen_at.unwrap_or(u.now + 1)));
                    }
                    r => r?,
                };
                if !matches!(r, Step::Busy(_)) {
                    self.pending = Some(m);
                }
                Ok(r)
            }
            None => self.fetch(u),
        }
    }

    fn fetch(&mut self, u: &mut Units<'_>) -> Result<Step, ChanError> {
        let put = self.gp_put(u.mem)?;
        if put == self.gp_get {
            self.has_work = false;
            return Ok(Step::Idle);
        }
        self.observe(u.mem, u.now);
        self.seg_seen = u.now;
        if let Some(f) = self.seen.front_mut() {
            self.seg_seen = f.1;
            f.0 -= 1;
            if f.0 == 0 {
                self.seen.pop_front();
            }
        }
        let at = self.gp_base + self.gp_get as u64 * 8;
        let mut raw = [0u8; 8];
        u.tlb.read_va(u.mem, &self.space, at, &mut raw).map_err(ChanError::fault(fault_unit::PFIFO))?;
        let e = GpEntry::from(u64::from_le_bytes(raw));
        let gperr = |data| ChanError::Pbdma {
            intr: PbdmaIntr::new().with_gpentry(true).into(),
            subchannel: 0,
            method: 0,
            data,
        };
        if e.subroutine() || e.fetch_conditional() {
            return Err(gperr(u64::from(e) as u32));
        }
        let words = e.length() as usize;
        self.seg.clear();
        if words > 0 {
            let mut bytes = alloc::vec![0u8; words * 4];
            u.tlb.read_va(u.mem, &self.space, e.addr(), &mut bytes).map_err(ChanError::fault(fault_unit::PFIFO))?;
            self.seg.extend(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        }
        self.stream = MethodStream::new();
        self.gp_get = self.gp_ring.advance(self.gp_get, 1);
        u.mem.write_u32(Target::Vram, self.userd + USERD_GP_GET as u64, self.gp_get).map_err(|reason| {
            ChanError::Fault { unit: fault_unit::PFIFO, fault: Fault { va: self.userd, reason, write: true } }
        })?;
        u.stats.gp_entries += 1;
        Ok(Step::Busy(u.cfg.pfifo.gpfifo_fetch_cycles + words as u64 / 16))
    }

    fn method(&mut self, m: Method, u: &mut Units<'_>) -> Result<Step, ChanError> {
        let illegal = || ChanError::pbdma(PbdmaIntr::new().with_method(true), m);
        let done = Ok(Step::Busy(u.cfg.pfifo.method_cycles));
        if m.method >= host::ENGINE_BASE {
            let class = self.subch[m.subchannel as usize & 7];
            return match class {
                class::FERMI_DMA_COPY_A if m.method == class::copy::LAUNCH_DMA => {
                    // Work on one channel runs in order: a copy waits for the grids before it.
                    if self.grids_in_flight > 0 {
                        return Ok(Step::WaitGrids);
                    }
                    let mut job = CopyJob::new(self.chid, self.space, self.copy, m.data).ok_or_else(illegal)?;
                    let link;
                    (job.path, job.kind, link) = job.route(u.mem, u.tlb);
                    let cost = match link {
                        Some(l) => u.cfg.peer_copy_cycles(job.bytes(), l.mbps, l.latency_cycles),
                        None => u.cfg.copy_cycles(job.bytes(), job.path),
                    };
                    self.engine_busy_until = u.copy.launch(job, u.now, cost);
                    u.stats.copies += 1;
                    done
                }
                class::FERMI_DMA_COPY_A if self.copy.set(m.method, m.data) => done,
                class::FERMI_COMPUTE_A => self.compute_method(m, u),
                _ => Err(illegal()),
            };
        }
        match m.method {
            host::SET_OBJECT => match SetObject::from(m.data).class_id() as u32 {
                c @ (class::FERMI_DMA_COPY_A | class::FERMI_COMPUTE_A | class::FERMI_MEMORY_TO_MEMORY_FORMAT_A) => {
                    self.subch[m.subchannel as usize & 7] = c;
                    done
                }
                _ => Err(illegal()),
            },
            host::NOP | host::FB_FLUSH => done,
            host::SEMAPHOREA => {
                self.sem_addr = addr40::with_hi(self.sem_addr, m.data);
                done
            }
            host::SEMAPHOREB => {
                self.sem_addr = addr40::with_lo(self.sem_addr, m.data & !3);
                done
            }
            host::SEMAPHOREC => {
                self.sem_payload = m.data;
                done
            }
            host::SEMAPHORED => self.semaphore(m, u),
            host::NON_STALL_INTERRUPT => {
                u.nonstall = true;
                done
            }
            host::MEM_OP_A => {
                self.mem_op_a = m.data;
                done
            }
            host::MEM_OP_B => match MemOpB::from(m.data).operation_or_err() {
                Ok(MemOp::TlbInvalidate) => {
                    u.tlb.flush_pd(self.space.pd);
                    done
                }
                Ok(MemOp::L2FlushDirty) if u.cfg.mode == Mode::Timing => {
                    // Written back from now on; the channel waits for the write-back.
                    let end = u.timing.flush_l2(u.cfg, u.now, None);
                    if end > u.now { Ok(Step::Busy(end - u.now)) } else { done }
                }
                Ok(MemOp::Nop | MemOp::L2FlushDirty | MemOp::L2Invalidate) => done,
                _ => Err(illegal()),
            },
            host::SET_REFERENCE => {
                u.mem.write_u32(Target::Vram, self.userd + USERD_REF as u64, m.data).map_err(|reason| {
                    ChanError::Fault { unit: fault_unit::PFIFO, fault: Fault { va: self.userd, reason, write: true } }
                })?;
                done
            }
            _ => Err(illegal()),
        }
    }

    fn compute_method(&mut self, m: Method, u: &mut Units<'_>) -> Result<Step, ChanError> {
        let done = Ok(Step::Busy(u.cfg.pfifo.method_cycles));
        let fault = ChanError::fault(fault_unit::PGRAPH);
        match self.compute.set(m.method, m.data) {
            Action::None => done,
            Action::CbWrite(va, data) => {
                u.tlb.write_va_u32(u.mem, &self.space, va, data).map_err(fault)?;
                done
            }
            Action::Invalidate => {
                u.compute.invalidate();
                done
            }
            Action::Launch => {
                // Work on one channel runs in order (CUDA stream semantics); the front end
                // has prepared the launch since it saw it.
                if self.grids_in_flight > 0 {
                    return Ok(Step::WaitGrids);
                }
                if self.engine_busy_until > u.now {
                    return Ok(Step::StallUntil(self.engine_busy_until));
                }
                // Not before the channel's last copy ended: a launch behind a copy (a memset,
                // an event recorded after it) is not prepared while the copy engine works.
                let early = u.now.saturating_sub(self.seg_seen.max(self.engine_busy_until));
                let mut cx =
                    LaunchCtx { mem: u.mem, tlb: u.tlb, space: self.space, cfg: u.cfg, now_ns: u.now_ns, now: u.now };
                let seq = *u.launches;
                *u.launches += 1;
                let r = match u.cfg.mode {
                    Mode::Timing => u.timing.submit(u.compute, &mut cx, self.chid, &self.compute, (seq, early)),
                    Mode::Functional => u.compute.submit(&mut cx, self.chid, &self.compute, (seq, early)),
                };
                self.compute.range_done();
                match r {
                    Ok(()) => {
                        self.grids_in_flight += 1;
                        done
                    }
                    Err(GridError::Fault(f) | GridError::Replay(f)) => Err(fault(f)),
                    Err(GridError::Trap(t)) => Err(ChanError::Trap(t)),
                }
            }
            Action::Report(addr, seq) => {
                if self.grids_in_flight > 0 {
                    return Ok(Step::WaitGrids);
                }
                if self.engine_busy_until > u.now {
                    return Ok(Step::StallUntil(self.engine_busy_until));
                }
                u.tlb.write_va_u32(u.mem, &self.space, addr, seq).map_err(fault)?;
                done
            }
            Action::Unknown => Err(ChanError::pbdma(PbdmaIntr::new().with_method(true), m)),
        }
    }

    fn semaphore(&mut self, m: Method, u: &mut Units<'_>) -> Result<Step, ChanError> {
        let d = SemaphoreD::from(m.data);
        let sem_err = || ChanError::pbdma(PbdmaIntr::new().with_semaphore(true), m);
        let op = d.operation_or_err().map_err(|_| sem_err())?;
        let fault = ChanError::fault(fault_unit::PFIFO);
        match op {
            SemOp::Release => {
                if !d.release_wfi_disable() && self.grids_in_flight > 0 {
                    return Ok(Step::WaitGrids);
                }
                if !d.release_wfi_disable() && self.engine_busy_until > u.now {
                    return Ok(Step::StallUntil(self.engine_busy_until));
                }
                let a = self.sem_addr;
                if d.release_size_4byte() {
                    u.tlb.write_va_u32(u.mem, &self.space, a, self.sem_payload).map_err(fault)?;
                } else {
                    if !a.is_multiple_of(16) {
                        return Err(sem_err());
                    }
                    u.tlb.write_va(u.mem, &self.space, a + 8, &u.now_ns.to_le_bytes()).map_err(&fault)?;
                    u.tlb.write_va(u.mem, &self.space, a + 4, &0u32.to_le_bytes()).map_err(&fault)?;
                    u.tlb.write_va_u32(u.mem, &self.space, a, self.sem_payload).map_err(fault)?;
                }
                u.stats.semaphores += 1;
                Ok(Step::Busy(u.cfg.pfifo.method_cycles))
            }
            SemOp::Acquire | SemOp::AcqGeq | SemOp::AcqAnd => {
                let v = u.tlb.read_va_u32(u.mem, &self.space, self.sem_addr).map_err(fault)?;
                if acquire_met(op, v, self.sem_payload) {
                    self.state = ChanState::Active;
                    Ok(Step::Busy(u.cfg.pfifo.method_cycles))
                } else {
                    self.state = ChanState::Acquiring;
                    Ok(Step::Acquiring)
                }
            }
            _ => Err(sem_err()),
        }
    }
}

fn acquire_met(op: SemOp, value: u32, payload: u32) -> bool {
    match op {
        SemOp::Acquire => value == payload,
        SemOp::AcqGeq => value.wrapping_sub(payload) as i32 >= 0,
        SemOp::AcqAnd => value & payload != 0,
        _ => true,
    }
}

impl Channel {
    /// A channel with no rings and nothing bound, stopped: the placeholder for one whose
    /// instance block could not be loaded, and the base [`Channel::load`] fills in.
    pub fn stopped(chid: u32, space: AddressSpace) -> Self {
        Self {
            chid,
            space,
            userd: 0,
            gp_base: 0,
            gp_ring: Ring::TWO,
            gp_get: 0,
            seg: Vec::new(),
            stream: MethodStream::new(),
            pending: None,
            subch: [0; 8],
            sem_addr: 0,
            sem_payload: 0,
            mem_op_a: 0,
            copy: CopyRegs::default(),
            compute: ComputeRegs::default(),
            state: ChanState::Stopped,
            ready_at: 0,
            engine_busy_until: 0,
            has_work: false,
            grids_in_flight: 0,
            put_seen: 0,
            seen: VecDeque::new(),
            seg_seen: 0,
            priority: 0,
            timeslice: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw::regs::FaultReason;

    #[test]
    fn acquire_geq_compares_wrapping() {
        assert!(acquire_met(SemOp::AcqGeq, 5, 5));
        assert!(acquire_met(SemOp::AcqGeq, 6, 5));
        assert!(!acquire_met(SemOp::AcqGeq, 4, 5));
        assert!(acquire_met(SemOp::AcqGeq, 2, 0xFFFF_FFF0));
        assert!(!acquire_met(SemOp::AcqGeq, 0xFFFF_FFF0, 2));
        assert!(acquire_met(SemOp::AcqAnd, 6, 2) && !acquire_met(SemOp::AcqAnd, 4, 2));
        assert!(acquire_met(SemOp::Acquire, 7, 7) && !acquire_met(SemOp::Acquire, 8, 7));
    }

    #[test]
    fn fault_reasons_are_not_lost() {
        let f = Fault { va: 0x1000, reason: FaultReason::ReadOnly, write: true };
        assert_eq!(ChanError::fault(fault_unit::PCOPY0)(f), ChanError::Fault { unit: fault_unit::PCOPY0, fault: f });
    }
}
