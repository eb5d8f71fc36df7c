//! The PFIFO scheduler: the runlist (read from memory on NV_PFIFO_RUNLIST_SUBMIT), loading
//! bound channels from their instance blocks, time slices, the choice of the next channel
//! (round robin, or priority then round robin) and running one PBDMA step of it.

use super::{ChanState, Channel, Step, Units};
use crate::mmu::AddressSpace;
use crate::{FakeGpu, config};
use alloc::boxed::Box;
use alloc::vec::Vec;
use hw::regs::*;

impl FakeGpu {
    pub(crate) fn unbind(&mut self, chid: u32) {
        if let Some(slot) = self.channels.get_mut(chid as usize)
            && slot.take().is_some()
        {
            self.copy.cancel(chid);
            self.timing.cancel(&mut self.compute, chid, self.now);
            self.compute.cancel(chid, self.now);
        }
    }

    pub(crate) fn runlist_submit(&mut self, count: u32) {
        let base = PfifoRunlistBase::from(self.regs.get(NV_PFIFO_RUNLIST_BASE, 0));
        let target = base.target_or_err().unwrap_or(Target::Peer);
        let addr = (base.addr() as u64) << 12;
        let mut list = Vec::new();
        let mut err = false;
        for i in 0..count as u64 {
            match self.mem.read_u32(target, addr + i * RunlistEntry::BYTES).map(RunlistEntry::decode) {
                Ok(RunlistEntry { chid }) if chid < NUM_CHANNELS && !list.contains(&chid) => list.push(chid),
                _ => err = true,
            }
        }
        if err {
            let v = PfifoIntr::from(self.regs.get(NV_PFIFO_INTR_0, 0)).with_sched_error(true);
            self.regs.set(NV_PFIFO_INTR_0, 0, v.into());
        }
        self.runlist = list;
    }

    /// Make sure a bound, runnable channel in the runlist is loaded; returns whether it can run.
    pub(crate) fn ensure_loaded(&mut self, chid: u32) -> bool {
        let inst = PfifoChanInst::from(self.regs.get(NV_PFIFO_CHAN_INST, chid));
        let runnable = PfifoChanState::from(self.regs.get(NV_PFIFO_CHAN_STATE, chid)).runnable();
        if !inst.valid() || !runnable {
            return false;
        }
        if self.channels[chid as usize].is_none() {
            let addr = (inst.inst() as u64) << 12;
            match Channel::load(&mut self.mem, chid, addr) {
                Ok(mut ch) => {
                    ch.ready_at = self.now;
                    self.channels[chid as usize] = Some(Box::new(ch));
                }
                Err(e) => {
                    // Keep a stopped placeholder so the error is reported once.
                    let space =
                        AddressSpace { inst: addr, pd: 0, pd_target: Target::Vram, limit: 0, replayable: false };
                    self.channels[chid as usize] = Some(Box::new(Channel::stopped(chid, space)));
                    self.channel_error(chid, addr, e);
                }
            }
        }
        self.channels[chid as usize].as_ref().is_some_and(|c| c.state != ChanState::Stopped)
    }

    /// Whether channel `chid` is loaded and stopped by an error.
    pub fn channel_stopped(&self, chid: u32) -> bool {
        self.channels.get(chid as usize).and_then(|c| c.as_ref()).is_some_and(|c| c.state == ChanState::Stopped)
    }

    /// Re-read doorbells and re-evaluate blocked acquires.
    pub(crate) fn refresh(&mut self) {
        for i in 0..self.runlist.len() {
            let chid = self.runlist[i];
            if !self.ensure_loaded(chid) {
                continue;
            }
            let Some(mut ch) = self.channels[chid as usize].take() else { continue };
            if ch.state != ChanState::Stopped {
                ch.observe(&self.mem, self.now);
            }
            let r = match ch.state {
                ChanState::Acquiring => {
                    if ch.acquire_ready(&self.mem, &mut self.tlb) {
                        ch.state = ChanState::Active;
                        ch.has_work = true;
                        ch.ready_at = ch.ready_at.max(self.now);
                    }
                    Ok(())
                }
                ChanState::Active if !ch.has_work => match ch.poll(&self.mem) {
                    Ok(true) => {
                        ch.ready_at = ch.ready_at.max(self.now);
                        Ok(())
                    }
                    Ok(false) => Ok(()),
                    Err(e) => Err(e),
                },
                _ => Ok(()),
            };
            let inst = ch.space.inst;
            self.channels[chid as usize] = Some(ch);
            if let Err(e) = r {
                self.channel_error(chid, inst, e);
            }
        }
    }

    /// Whether a channel blocked in a semaphore acquire would go on now (what another GPU
    /// of the machine released since it looked): a look that changes nothing, its
    /// accesses not counted at the gate (`Machine::settle`).
    pub fn acquire_would_go_on(&mut self) -> bool {
        let (mem, tlb) = (&self.mem, &mut self.tlb);
        mem.gate.quietly(|| {
            self.channels.iter_mut().flatten().any(|ch| ch.state == ChanState::Acquiring && ch.acquire_ready(mem, tlb))
        })
    }

    pub(crate) fn refresh_acquires(&mut self) {
        for i in 0..self.runlist.len() {
            let chid = self.runlist[i] as usize;
            if let Some(mut ch) = self.channels[chid].take() {
                if ch.state == ChanState::Acquiring && ch.acquire_ready(&self.mem, &mut self.tlb) {
                    ch.state = ChanState::Active;
                    ch.has_work = true;
                    ch.ready_at = ch.ready_at.max(self.now);
                }
                self.channels[chid] = Some(ch);
            }
        }
    }

    /// The channel PFIFO serves next, and when. The channel holding PFIFO keeps it while it
    /// will be ready within its time slice; otherwise (its slice ended, it blocked, or it
    /// waits beyond the slice) the next is chosen among the channels ready earliest: by
    /// priority then round robin after the current one (`priority` policy), or round robin
    /// alone.
    pub(crate) fn next_channel(&self) -> Option<(u64, u32)> {
        if !self.enable().pfifo() {
            return None;
        }
        let ready = |chid: u32| {
            self.channels[chid as usize]
                .as_ref()
                .filter(|ch| ch.state == ChanState::Active && ch.has_work)
                .map(|ch| (ch.ready_at, ch.priority))
        };
        if let Some((cur, slice_end)) = self.current
            && let Some((at, _)) = ready(cur)
            && at.max(self.now) < slice_end
        {
            return Some((at, cur));
        }
        let earliest = self.runlist.iter().filter_map(|&c| ready(c)).map(|(at, _)| at).min()?;
        // Every channel ready by the time the PBDMA is free competes.
        let t = earliest.max(self.now).max(self.pbdma_free);
        let n = self.runlist.len();
        let start = self.current.and_then(|(cur, _)| self.runlist.iter().position(|&c| c == cur)).map_or(0, |p| p + 1);
        let mut best: Option<(u8, u32, u64)> = None;
        for k in 0..n {
            let chid = self.runlist[(start + k) % n];
            let Some((at, prio)) = ready(chid) else { continue };
            if at > t {
                continue;
            }
            let prio = if self.cfg.pfifo.channel_policy == config::ChannelPolicy::Priority { prio } else { 0 };
            if best.is_none_or(|(p, _, _)| prio > p) {
                best = Some((prio, chid, at));
            }
        }
        best.map(|(_, chid, at)| (at.max(self.pbdma_free), chid))
    }

    pub(crate) fn run_channel(&mut self, chid: u32) {
        if self.current.is_none_or(|(c, _)| c != chid) {
            let slice = self.channels[chid as usize].as_ref().map_or(0, |c| c.timeslice);
            let slice = if slice == 0 { self.cfg.pfifo.timeslice_cycles } else { slice };
            self.current = Some((chid, self.now.saturating_add(slice)));
        }
        let Some(mut ch) = self.channels[chid as usize].take() else { return };
        let mut units = Units {
            mem: &mut self.mem,
            tlb: &mut self.tlb,
            copy: &mut self.copy,
            compute: &mut self.compute,
            timing: &mut self.timing,
            launches: &mut self.launches,
            cfg: &self.cfg,
            now: self.now,
            now_ns: self.cfg.cycles_to_ns(self.now),
            nonstall: false,
            stats: &mut self.stats,
        };
        let r = ch.step(&mut units);
        let nonstall = units.nonstall;
        let wrote = matches!(r, Ok(Step::Busy(_)));
        match r {
            Ok(Step::Busy(c)) => {
                ch.ready_at = self.now + c.max(1);
                self.pbdma_free = ch.ready_at;
            }
            Ok(Step::StallUntil(t)) => ch.ready_at = t.max(self.now + 1),
            Ok(Step::WaitGrids) => ch.state = ChanState::WaitGrids,
            Ok(Step::Acquiring) | Ok(Step::Idle) => {}
            Err(_) => {}
        }
        let inst = ch.space.inst;
        self.channels[chid as usize] = Some(ch);
        if let Err(e) = r {
            self.channel_error(chid, inst, e);
        }
        if nonstall {
            let v = PmcIntr::from(self.regs.get(NV_PMC_INTR_1, 0)).with_pfifo(true);
            self.regs.set(NV_PMC_INTR_1, 0, v.into());
        }
        if wrote {
            self.refresh_acquires();
        }
    }
}
