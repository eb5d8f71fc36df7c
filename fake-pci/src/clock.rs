//! The device clock: runs the engines' events in time order (channels and the copy engine
//! before the compute engine at equal times; the compute engine in bulk up to the next other
//! event) and delivers their completions: grids of both modes, copies.

use crate::pfifo::{ChanError, ChanState};
use crate::{FakeGpu, RunState, compute, copy, timing};
use hw::regs::*;

impl FakeGpu {
    /// Advance the device by `cycles` cycles.
    pub fn step(&mut self, cycles: u64) {
        self.mem.epoch = self.mem.epoch.wrapping_add(1); // the host may have written DMA memory
        let end = self.now.saturating_add(cycles);
        self.advance(end, false);
    }

    /// Run until idle or until `max_cycles` have passed.
    pub fn run(&mut self, max_cycles: u64) -> RunState {
        self.mem.epoch = self.mem.epoch.wrapping_add(1); // the host may have written DMA memory
        let end = self.now.saturating_add(max_cycles);
        if self.advance(end, true) { RunState::Idle } else { RunState::Busy }
    }

    /// Run until nothing is left to do.
    pub fn run_until_idle(&mut self) {
        while self.run(u64::MAX / 4) == RunState::Busy {}
    }

    /// Process events up to cycle `end`. Returns true if the device went idle.
    ///
    /// Events run in time order; at equal times channels and the copy engine go before the
    /// compute engine's cycles. The compute engine runs in bulk up to the next other event.
    pub(crate) fn advance(&mut self, end: u64, stop_when_idle: bool) -> bool {
        if !self.enable().pfifo() && !self.copy.busy() && !self.timing.busy() && !self.compute.busy() {
            if !stop_when_idle {
                self.now = self.now.max(end);
            }
            return true;
        }
        self.refresh();
        loop {
            let copy_t = if self.enable().pcopy0() { self.copy.next_done() } else { None };
            let chan = self.next_channel();
            let other = match (copy_t, chan) {
                (Some(c), Some((r, _))) => Some(c.min(r)),
                (Some(c), None) => Some(c),
                (None, Some((r, _))) => Some(r),
                (None, None) => None,
            };
            // The compute engine: the timing model's SMs, or the functional mode's grids.
            let func = self.compute.next_event(&self.cfg);
            let compute = match (self.timing.next_event(self.mem.epoch), func) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if let Some(c) = compute
                && other.is_none_or(|o| c < o)
            {
                if c > end {
                    self.now = self.now.max(end);
                    return false;
                }
                self.now = self.now.max(c);
                if let Some(done) = self.timing.pop_done(self.now) {
                    self.grid_done(done);
                    continue;
                }
                let horizon = other.unwrap_or(u64::MAX).min(end.saturating_add(1));
                if func == Some(c) {
                    if let Some((g, at, r)) = self.compute.advance(&mut self.mem, &mut self.tlb, &self.cfg, horizon) {
                        self.functional_done(g, at, r);
                    }
                    self.flush_replays();
                    if self.watch.as_ref().is_some_and(|w| w.due(self.now)) {
                        let s = self.snapshot();
                        if let Some(w) = self.watch.as_mut() {
                            w.fire(&s);
                        }
                    }
                    continue;
                }
                let mut env =
                    timing::Env { mem: &mut self.mem, tlb: &mut self.tlb, cfg: &self.cfg, watch: self.watch.as_mut() };
                let last = self.timing.advance(&mut self.compute, &mut env, self.now, horizon);
                self.now = self.now.max(last);
                self.flush_replays();
                continue;
            }
            let Some(t) = other else {
                if !stop_when_idle {
                    self.now = self.now.max(end);
                }
                return true;
            };
            if t > end {
                self.now = self.now.max(end);
                return false;
            }
            self.now = self.now.max(t);
            if copy_t == Some(t) {
                self.complete_copy();
                self.refresh_acquires();
                continue;
            }
            if let Some((_, chid)) = chan {
                self.run_channel(chid);
            }
        }
    }

    /// Write the replayable faults the engines recorded to the fault buffer (NV_PFB_REPLAY_*)
    /// and raise its interrupt; with no buffer enabled, or a record that cannot be written,
    /// the parked accesses are cancelled: their grids fail with the fault.
    pub(crate) fn flush_replays(&mut self) {
        use hw::replay::*;
        if self.timing.replay_log.is_empty() && self.compute.replay_log.is_empty() {
            return;
        }
        let mut recs = core::mem::take(&mut self.timing.replay_log);
        recs.append(&mut self.compute.replay_log);
        let size = PfbReplayBufferSize::from(self.regs.get(NV_PFB_REPLAY_BUFFER_SIZE, 0));
        let base = u64::from(self.regs.get(NV_PFB_REPLAY_BUFFER_LO, 0))
            | u64::from(self.regs.get(NV_PFB_REPLAY_BUFFER_HI, 0)) << 32;
        let entries = u32::from(size.entries());
        if !size.enable() || entries == 0 {
            self.replay_now(true);
            return;
        }
        let mut intr = PfbReplayIntr::from(self.regs.get(NV_PFB_REPLAY_INTR, 0));
        for r in recs {
            let (put, get) = (self.regs.get(NV_PFB_REPLAY_PUT, 0), self.regs.get(NV_PFB_REPLAY_GET, 0));
            let next = (put + 1) % entries;
            if next == get % entries {
                // Full: the warp stays parked and faults again after the next replay.
                intr.set_overflow(true);
                continue;
            }
            let e = Entry { va: r.fault.va, inst: r.inst, chid: r.chid, write: r.fault.write };
            let at = base + u64::from(put) * ENTRY_BYTES as u64;
            if self.mem.sys.write(at, &e.encode()).is_err() {
                intr.set_overflow(true);
                continue;
            }
            self.regs.set(NV_PFB_REPLAY_PUT, 0, next);
            intr.set_fault(true);
        }
        self.regs.set(NV_PFB_REPLAY_INTR, 0, intr.into());
    }

    /// NV_PFB_REPLAY: retry (or cancel) every parked access, now.
    pub(crate) fn replay_now(&mut self, cancel: bool) {
        // The warps retry once the fault service's cost has passed (`uvm.replay_cycles`).
        let at = if cancel { self.now } else { self.now.saturating_add(self.cfg.uvm.replay_cycles) };
        self.timing.replay(&mut self.compute, at, cancel);
        self.compute.replay(&self.cfg, at, cancel);
    }

    /// A functional-mode grid ended at cycle `at`: record its statistics; its channel hears
    /// of it at that cycle.
    pub(crate) fn functional_done(&mut self, g: compute::FuncGrid, at: u64, r: Result<(), compute::GridError>) {
        self.timing.record(timing::KernelStats {
            seq: g.seq,
            chid: g.chid,
            code: g.r.code,
            entry: g.r.start,
            grid: g.r.grid,
            block: g.r.block,
            blocks: (g.first, g.nblocks),
            start_cycle: g.start,
            end_cycle: at,
            warp_instructions: g.instructions(),
            thread_instructions: g.thread_instrs,
            max_warps_per_sm: self.cfg.sm.max_threads / 32,
            sms: self.cfg.board.sms,
            blocks_per_sm: g.per_sm,
            replayable_faults: g.replayable_faults,
            failed: r.is_err(),
            ..timing::KernelStats::default()
        });
        self.timing.complete(timing::Done { chid: g.chid, at, result: r });
    }

    /// A grid of the timing model ended: its channel may go on, or takes the error.
    pub(crate) fn grid_done(&mut self, d: timing::Done) {
        let Some(ch) = self.channels.get_mut(d.chid as usize).and_then(|c| c.as_mut()) else { return };
        ch.grids_in_flight = ch.grids_in_flight.saturating_sub(1);
        if ch.grids_in_flight == 0 && ch.state == ChanState::WaitGrids {
            ch.state = ChanState::Active;
            ch.ready_at = ch.ready_at.max(self.now);
        }
        let inst = ch.space.inst;
        match d.result {
            Ok(()) => {}
            Err(compute::GridError::Fault(fault) | compute::GridError::Replay(fault)) => {
                self.channel_error(d.chid, inst, ChanError::Fault { unit: hw::regs::fault_unit::PGRAPH, fault })
            }
            Err(compute::GridError::Trap(t)) => self.channel_error(d.chid, inst, ChanError::Trap(t)),
        }
        self.refresh_acquires();
    }

    pub(crate) fn complete_copy(&mut self) {
        let Some(mut job) = self.copy.pop() else { return };
        let now_ns = self.time_ns();
        let mark = self.mem.gate.mark();
        let r = job.execute(&mut self.mem, &mut self.tlb, &mut self.copy.scratch, now_ns);
        if r.is_err()
            && self.mem.gate.waited_since(mark)
            && let Some(at) = self.mem.gate.reopen_at
        {
            // Memory behind the machine's closed gate (crate::gate): the job completes
            // when the next slice opens it (a copy written again writes what it wrote).
            job.done_at = at;
            self.copy.postpone(job);
            return;
        }
        if self.copy_log.len() >= timing::STATS_LOG {
            self.copy_log.pop_front();
        }
        self.copy_log.push_back(copy::CopyStats {
            seq: self.copy_seq,
            chid: job.chid,
            bytes: job.bytes(),
            path: job.path,
            kind: job.kind,
            start_cycle: job.start_at,
            end_cycle: job.done_at,
            failed: r.is_err(),
        });
        self.copy_seq += 1;
        match r {
            Ok(()) => {
                self.stats.copy_bytes += job.bytes();
                if job.interrupt() {
                    let v = PmcIntr::from(self.regs.get(NV_PMC_INTR_1, 0)).with_pcopy0(true);
                    self.regs.set(NV_PMC_INTR_1, 0, v.into());
                }
            }
            Err(fault) => {
                let inst = job.space.inst;
                self.channel_error(job.chid, inst, ChanError::Fault { unit: fault_unit::PCOPY0, fault });
                self.copy.cancel(job.chid);
            }
        }
    }
}
