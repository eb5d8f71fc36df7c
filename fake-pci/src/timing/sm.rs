//! The SMs: warp schedulers choosing among ready warps (scoreboard, pipes, barriers, control
//! latency) by the preset's policy, issue through the shared functional executor, and warp
//! and block retirement.
use super::{
    ALWAYS, BlockCost, Cache, ComputeEngine, D, DeviceConfig, Env, Exec, Flow, Free, GridError, GridRun, Imm,
    LaunchCtx, MemProbe, MemSys, Op, Placement, Policy, RZ, TimingEngine, Trap, TrapReason, Ty, Warp, WarpMem,
};
use alloc::vec::Vec;

/// A scoreboard entry: registers `reg..reg + n` are written at `ready`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending {
    pub(crate) reg: u8,
    pub(crate) n: u8,
    pub(crate) ready: u64,
}

pub(crate) const SCOREBOARD: usize = 8;

/// Pipes with their own issue interval, per scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Alu,
    F64,
    Sfu,
    Div,
    /// The multi-instruction sequences of IEEE-rounded division, reciprocal and square root.
    Seq,
    Shfl,
    Control,
    Mem,
    /// Texture fetches and queries: the SM's texture units (beside the LSU).
    Tex,
    /// The tensor core's matrix multiplies.
    Tensor,
}

pub(crate) fn classify(d: &D) -> Class {
    match d.op {
        Op::Tex | Op::Tld4 | Op::Txq => Class::Tex,
        Op::Ld | Op::St | Op::Atom | Op::Bulk | Op::Suld | Op::Sust | Op::Printf | Op::Heap => Class::Mem,
        Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret | Op::Trap => Class::Control,
        op if let Some(s) = op.sequence(d.ty, d.m) => match s {
            hw::isa::Sequence::Float => Class::Seq,
            hw::isa::Sequence::IntDivide => Class::Div,
        },
        op if op.multi_function() => Class::Sfu,
        Op::Shfl | Op::Vote | Op::Redux | Op::Match => Class::Shfl,
        Op::Mma if d.m == hw::isa::mma::RUN => Class::Tensor,
        Op::Mma => Class::Alu,
        _ if d.ty == Ty::F64 => Class::F64,
        _ => Class::Alu,
    }
}

/// Registers an instruction reads (and, for loads, writes: WAW), as (first, count).
pub(crate) fn operands(d: &D) -> [(u8, u8); 5] {
    let [dst_n, a_n, b_n] = d.groups;
    let reg = |r: u8, imm: bool, n: u8| if imm || r == RZ { (RZ, 0) } else { (r, n) };
    [
        reg(d.a, d.imm_slot == Imm::A, a_n),
        reg(d.b, d.imm_slot == Imm::B, b_n),
        reg(d.c, d.imm_slot == Imm::C, 1),
        reg(d.guard, d.guard == ALWAYS, 1),
        reg(d.dst, matches!(d.op, Op::St | Op::Sust), dst_n),
    ]
}

/// Registers an instruction writes.
pub(crate) fn written(d: &D) -> Option<(u8, u8)> {
    match d.op {
        Op::St | Op::Sust | Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret | Op::Trap | Op::Nop | Op::Membar => None,
        _ if d.dst == RZ => None,
        _ => Some((d.dst, d.groups[0])),
    }
}

/// A warp resident on an SM.
pub(crate) struct Slot {
    pub(crate) block: usize,
    pub(crate) warp: usize,
    /// Cycle from which it may issue (control latency, barrier release).
    pub(crate) ready_at: u64,
    pub(crate) pending: heapless::Vec<Pending, SCOREBOARD>,
    /// Set while the warp waits at a barrier.
    pub(crate) at_barrier: bool,
    /// When the next instruction's operands are ready, its pipe and why it waits (cleared
    /// when the warp issues or leaves a barrier).
    pub(crate) cache: Option<(u64, Class, StallKind)>,
    /// The memory epoch at which the warp was found spinning (it goes on issuing: a
    /// spinning warp takes issue slots and bandwidth like any other).
    pub(crate) spin: Option<u64>,
    /// Parked by a replayable fault: it issues again after NV_PFB_REPLAY.
    pub(crate) replay: bool,
}

/// A block resident on an SM.
pub(crate) struct Block {
    pub(crate) grid: usize,
    pub(crate) ctaid: [u32; 3],
    pub(crate) regs: Vec<u64>,
    pub(crate) shared: Vec<u8>,
    pub(crate) local: Vec<u8>,
    /// Its barrier reductions.
    pub(crate) bar: crate::compute::BarRed,
    pub(crate) warps: Vec<Warp>,
    pub(crate) slots: Vec<usize>,
    pub(crate) live: u32,
    pub(crate) arrived: u32,
    pub(crate) cost: BlockCost,
    /// The sub-partitions its warps' registers came from.
    pub(crate) placed: Placement,
    pub(crate) uid: u64,
    /// Racecheck's state of the block (checked launches).
    pub(crate) check: Option<crate::check::BlockCheck>,
    /// Its cluster (a slot of the grid's) and rank there, when it is part of one; its
    /// `barrier.cluster` when it is not.
    pub(crate) cluster: Option<(usize, u32)>,
    pub(crate) csync: crate::compute::cluster::ClusterSync,
    /// Its named barriers.
    pub(crate) named: crate::compute::named::NamedBars,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sched {
    pub(crate) last: Option<usize>,
    /// Cycle each pipe accepts another instruction.
    pub(crate) pipe_free: [u64; 7],
    /// Stall reason of the last visited cycle without an issue, and its grid.
    pub(crate) stall: Option<(StallKind, usize)>,
    pub(crate) stall_since: u64,
    /// No warp of this scheduler can issue before this cycle.
    pub(crate) next_at: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StallKind {
    Dependency,
    Pipe,
    Control,
    Barrier,
}

pub(crate) struct Sm {
    pub(crate) free: Free,
    pub(crate) blocks: Vec<Option<Block>>,
    pub(crate) slots: Vec<Option<Slot>>,
    /// Warp slots per scheduler, oldest first.
    pub(crate) order: Vec<Vec<usize>>,
    pub(crate) sched: Vec<Sched>,
    pub(crate) lsu_free: u64,
    /// When the texture units accept the next fetch.
    pub(crate) tex_free: u64,
    pub(crate) l1: Cache,
    /// The texture cache (empty when textures look up the L1: `tex.bytes` = 0).
    pub(crate) tex: Cache,
    /// Next cycle at which a warp may issue (u64::MAX: none resident).
    pub(crate) wake: u64,
    pub(crate) resident_warps: u32,
    /// Cycle since which `resident_warps` has been unchanged (for occupancy).
    pub(crate) resident_since: u64,
}

pub(crate) fn pipe_index(c: Class) -> usize {
    match c {
        Class::Alu => 0,
        Class::F64 => 1,
        // A sequence's approximation occupies the SFU; it is issued there.
        Class::Sfu | Class::Seq => 2,
        Class::Div => 3,
        Class::Shfl => 4,
        Class::Control | Class::Mem | Class::Tex => 5,
        Class::Tensor => 6,
    }
}

pub(crate) fn exec<'a, 'b>(
    cx: &'b mut LaunchCtx<'a>,
    g: &'b mut GridRun,
    span: &'b mut Vec<u8>,
    smid: u32,
    probe: Option<&'b mut MemProbe>,
    bcheck: Option<&'b mut crate::check::BlockCheck>,
) -> Exec<'a, 'b> {
    Exec {
        cx,
        r: &g.r,
        code: &mut g.code,
        banks: &g.banks,
        nregs: g.nregs,
        instrs: 0,
        thread_instrs: 0,
        budget: u64::MAX,
        span,
        smid,
        probe,
        check: g.check.as_mut(),
        bcheck,
    }
}

impl TimingEngine {
    /// Visit SM `s` at cycle `t`: each scheduler issues at most one instruction.
    pub(crate) fn visit(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, s: usize, t: u64) {
        let nsched = self.sms[s].sched.len();
        // Events during the visit (a barrier release, a new block) may set an earlier wake.
        self.sms[s].wake = u64::MAX;
        let mut wake = u64::MAX;
        for k in 0..nsched {
            // Nothing of this scheduler can issue before its last estimate (a lower bound:
            // what could make a warp ready sooner, a new warp or a barrier release, clears it).
            let est = self.sms[s].sched[k].next_at;
            if t < est {
                wake = wake.min(est);
                continue;
            }
            let (pick, next, reason) = self.select(env, s, k, t);
            let sm = &mut self.sms[s];
            // Close the previous stall interval of this scheduler.
            let sc = &mut sm.sched[k];
            if let Some((kind, gi)) = sc.stall.take()
                && let Some(g) = self.grids.get_mut(gi).and_then(|g| g.as_mut())
            {
                let n = t - sc.stall_since;
                let st = &mut g.stats.stalls;
                match kind {
                    StallKind::Dependency => st.dependency += n,
                    StallKind::Pipe => st.pipe += n,
                    StallKind::Control => st.control += n,
                    StallKind::Barrier => st.barrier += n,
                }
            }
            match pick {
                Some(slot) => {
                    self.sms[s].sched[k].last = Some(slot);
                    self.sms[s].sched[k].next_at = 0;
                    self.issue(engine, env, s, k, slot, t);
                    wake = wake.min(t + 1);
                }
                None => {
                    let sc = &mut self.sms[s].sched[k];
                    sc.stall = reason;
                    sc.stall_since = t;
                    sc.next_at = next;
                    wake = wake.min(next);
                }
            }
        }
        let sm = &mut self.sms[s];
        sm.wake = if sm.resident_warps == 0 { u64::MAX } else { sm.wake.min(wake).max(t + 1) };
    }

    /// Choose the warp scheduler `k` of SM `s` issues at `t`. Returns the slot, else the
    /// earliest cycle one could issue and why none can now.
    pub(crate) fn select(
        &mut self,
        env: &mut Env<'_>,
        s: usize,
        k: usize,
        t: u64,
    ) -> (Option<usize>, u64, Option<(StallKind, usize)>) {
        let policy = env.cfg.sm.policy;
        let n = self.sms[s].order[k].len();
        if n == 0 {
            return (None, u64::MAX, None);
        }
        let start = match (policy, self.sms[s].sched[k].last) {
            (Policy::Gto, Some(last)) => {
                // Greedy: the last warp first while it stays ready.
                if let Some(e) = self.eligible(env, s, k, last, t)
                    && e.0 <= t
                {
                    return (Some(last), t, None);
                }
                0
            }
            (Policy::Gto, None) => 0,
            (Policy::Lrr, last) => {
                last.and_then(|l| self.sms[s].order[k].iter().position(|&x| x == l)).map_or(0, |p| (p + 1) % n)
            }
        };
        let mut best = u64::MAX;
        let mut why: Option<(StallKind, usize)> = None;
        for j in 0..n {
            let slot = self.sms[s].order[k][(start + j) % n];
            let Some((at, kind, gi)) = self.eligible(env, s, k, slot, t) else { continue };
            if at <= t {
                return (Some(slot), t, None);
            }
            if at < best || why.is_none() {
                best = best.min(at);
                why = Some((kind, gi));
            }
        }
        (None, best, why)
    }

    /// When warp `slot` could issue its next instruction (ignoring other warps), why it
    /// waits, and its grid; `None` while it waits at a barrier.
    pub(crate) fn eligible(
        &mut self,
        env: &mut Env<'_>,
        s: usize,
        k: usize,
        slot: usize,
        t: u64,
    ) -> Option<(u64, StallKind, usize)> {
        let sm = &mut self.sms[s];
        let sl = sm.slots[slot].as_mut()?;
        let bi = sl.block;
        let gi = sm.blocks[bi].as_ref()?.grid;
        if sl.at_barrier {
            return Some((u64::MAX, StallKind::Barrier, gi));
        }
        if sl.ready_at > t {
            return Some((sl.ready_at, StallKind::Control, gi));
        }
        let (at, class, kind) = match sl.cache {
            Some(c) => c,
            None => {
                let c =
                    Self::readiness(env, sl, sm.blocks[bi].as_mut()?, self.grids[gi].as_mut()?, &mut self.span, s, t);
                sl.cache = Some(c);
                c
            }
        };
        let pipe = match class {
            Class::Mem => sm.lsu_free,
            Class::Tex => sm.tex_free,
            c => sm.sched[k].pipe_free[pipe_index(c)],
        };
        if pipe > at { Some((pipe, StallKind::Pipe, gi)) } else { Some((at, kind, gi)) }
    }

    /// When the next instruction of a warp past its control latency has its operands, the
    /// instruction's class, and what it waits for.
    pub(crate) fn readiness(
        env: &mut Env<'_>,
        sl: &mut Slot,
        block: &mut Block,
        g: &mut GridRun,
        span: &mut Vec<u8>,
        s: usize,
        t: u64,
    ) -> (u64, Class, StallKind) {
        sl.pending.retain(|p| p.ready > t);
        let warp = &mut block.warps[sl.warp];
        let d = {
            let mut cx = LaunchCtx { mem: env.mem, tlb: env.tlb, space: g.space, cfg: env.cfg, now_ns: 0, now: t };
            let mut x = exec(&mut cx, g, span, s as u32, None, None);
            match x.peek(warp) {
                Ok(Some(d)) => d,
                // Ended, or a fetch error that the issue reports.
                _ => return (t, Class::Control, StallKind::Control),
            }
        };
        let mut at = t;
        for (r, n) in operands(&d) {
            if n == 0 {
                continue;
            }
            for p in &sl.pending {
                if r < p.reg.saturating_add(p.n) && p.reg < r.saturating_add(n) {
                    at = at.max(p.ready);
                }
            }
        }
        if sl.pending.is_full() {
            at = at.max(sl.pending.iter().map(|p| p.ready).min().unwrap_or(t));
        }
        (at, classify(&d), StallKind::Dependency)
    }

    /// Issue the next instruction of warp `slot` at cycle `t`.
    pub(crate) fn issue(
        &mut self,
        engine: &mut ComputeEngine,
        env: &mut Env<'_>,
        s: usize,
        k: usize,
        slot: usize,
        t: u64,
    ) {
        let cfg = env.cfg;
        let Some((bi, wi)) = self.sms[s].slots[slot].as_ref().map(|sl| (sl.block, sl.warp)) else { return };
        let Some(gi) = self.sms[s].blocks[bi].as_ref().map(|b| b.grid) else { return };
        let Some(start) = self.grids[gi].as_ref().map(|g| g.stats.start_cycle) else { return };
        if cfg.watchdog_cycles != 0 && t > start.saturating_add(cfg.watchdog_cycles) {
            let pc = self.sms[s].blocks[bi].as_ref().and_then(|b| b.warps[wi].stack.last()).map_or(0, |f| f.pc);
            self.fail(engine, gi, t, GridError::Trap(Trap { reason: TrapReason::Watchdog, pc }));
            return;
        }
        let TimingEngine { sms, grids, l2, l2_bank_free, chan_free_mc, sectors, span, probe, peer_free_mc, .. } = self;
        let peer_before = (env.mem.peers.read_bytes.get(), env.mem.peers.write_bytes);
        let gate_mark = env.mem.gate.mark();
        let (sm, g) = (&mut sms[s], grids[gi].as_mut().expect("grid"));
        let block = sm.blocks[bi].as_mut().expect("block");
        let nwarps = block.warps.len();
        let (nregs, local_size) = (g.nregs, g.r.local_size as usize);
        let wr = &mut block.regs[wi * nregs * 32..(wi + 1) * nregs * 32];
        let wl = &mut block.local[wi * local_size * 32..(wi + 1) * local_size * 32];
        let warp = &mut block.warps[wi];
        // A cluster's shared memory and barrier, out of the grid while the warp issues.
        let (cslot, rank) = block.cluster.map_or((None, 0), |(k, r)| (Some(k), r));
        let mut cm = cslot.and_then(|k| g.clusters[k].take());
        let mut cx = LaunchCtx { mem: env.mem, tlb: env.tlb, space: g.space, cfg, now_ns: cfg.cycles_to_ns(t), now: t };
        probe.on = 0;
        let res = {
            let mut x = exec(&mut cx, g, span, s as u32, Some(probe), block.check.as_mut());
            let r = x.peek(warp).and_then(|d| {
                let (shared, sync) = match cm.as_mut() {
                    Some(crate::compute::cluster::ClusterMem { shared, sync, .. }) => (&mut shared[..], sync),
                    None => (&mut block.shared[..], &mut block.csync),
                };
                let mut m = WarpMem {
                    regs: wr,
                    shared,
                    rank,
                    cluster: sync,
                    named: &mut block.named,
                    local: wl,
                    bar: &mut block.bar,
                };
                x.step(warp, (wi as u32, nwarps as u32, block.ctaid), &mut m).map(|f| (d, f))
            });
            // An instruction behind the machine's closed gate did nothing: not executed.
            if !x.cx.mem.gate.waited_since(gate_mark) {
                let (wi_, ti_) = (x.instrs, x.thread_instrs);
                g.stats.warp_instructions += wi_;
                g.stats.thread_instructions += ti_;
            }
            r
        };
        if let Some(k) = cslot {
            g.clusters[k] = cm;
        }
        let (d, flow) = match res {
            Ok(x) => x,
            Err(_) if env.mem.gate.waited_since(gate_mark) => {
                // Memory behind the machine's closed gate (crate::gate): the instruction
                // did nothing and issues again when the next slice opens it.
                let at = env.mem.gate.reopen_at.unwrap_or(t + 1);
                if let Some(sl) = sm.slots[slot].as_mut() {
                    (sl.ready_at, sl.cache) = (at, None);
                }
                return;
            }
            Err(GridError::Replay(f)) => {
                // The instruction did nothing: the warp waits for the page and a replay.
                g.stats.replayable_faults += 1;
                g.replay_fault.get_or_insert(f);
                self.replay_log.push(crate::compute::ReplayRecord { chid: g.chid, inst: g.space.inst, fault: f });
                if let Some(sl) = sm.slots[slot].as_mut() {
                    (sl.ready_at, sl.replay, sl.cache) = (u64::MAX, true, None);
                }
                return;
            }
            Err(e) => {
                self.fail(engine, gi, t, e);
                return;
            }
        };
        let uid = block.uid;
        let sl = sm.slots[slot].as_mut().expect("slot");
        sl.ready_at = t + 1;
        sl.cache = None;
        if d.is_some_and(|d| d.op == Op::Membar && d.m & 1 == 1) {
            // A system-scope fence: before the host or a peer may observe the warp's
            // stores, the L2's dirty lines are written back; the warp waits for that.
            let (end, bytes) = super::write_back(l2.as_mut().expect("l2"), chan_free_mc, cfg, t);
            g.stats.dram_write_bytes += bytes;
            g.stats.system_fences += 1;
            sl.ready_at = sl.ready_at.max(end);
        }
        if let Some(d) = d {
            let class = classify(&d);
            let (latency, interval) = match class {
                Class::Alu => (cfg.pipe.alu_latency, cfg.pipe.alu_interval),
                Class::F64 => (cfg.pipe.f64_latency, cfg.pipe.f64_interval),
                Class::Sfu => (cfg.pipe.sfu_latency, cfg.pipe.sfu_interval),
                Class::Div => (cfg.pipe.div_latency, cfg.pipe.div_interval),
                Class::Seq => (cfg.pipe.seq_latency, cfg.pipe.seq_interval),
                Class::Shfl => (cfg.pipe.shfl_latency, cfg.pipe.alu_interval),
                Class::Tensor => {
                    let units = hw::isa::mma::Config::decode(d.imm).map_or(4096, |c| c.f16_fmas());
                    (cfg.pipe.tensor_latency, (cfg.pipe.tensor_interval as u64 * units as u64).div_ceil(4096) as u32)
                }
                Class::Control => (1, cfg.pipe.alu_interval),
                Class::Mem | Class::Tex => (0, 0),
            };
            if class == Class::Control {
                sl.ready_at = t + cfg.pipe.branch_latency.max(1) as u64;
            }
            let done = if matches!(class, Class::Mem | Class::Tex) {
                let l2 = l2.as_mut().expect("l2");
                let mut m = MemSys {
                    cfg,
                    l2,
                    banks: l2_bank_free,
                    chans: chan_free_mc,
                    sectors,
                    st: &mut g.stats,
                    posted: &mut g.posted,
                };
                if class == Class::Tex {
                    let cache = if cfg.tex.bytes == 0 { &mut sm.l1 } else { &mut sm.tex };
                    let (done, busy) = m.texture(&d, probe, t, cache);
                    sm.tex_free = t + busy.max(1);
                    done
                } else {
                    let (mut done, busy) = m.access(&d, probe, t, s, uid, &mut sm.l1);
                    sm.lsu_free = t + busy.max(1);
                    // Lanes that reached another GPU's VRAM: the request crosses the link,
                    // the data comes back over it at the link's bandwidth.
                    let (r, w) =
                        (env.mem.peers.read_bytes.get() - peer_before.0, env.mem.peers.write_bytes - peer_before.1);
                    if r + w > 0 {
                        g.stats.peer_read_bytes += r;
                        g.stats.peer_write_bytes += w;
                        let link = env.mem.peers.last_link.get();
                        *peer_free_mc = (*peer_free_mc).max(t * 1000) + cfg.transfer_mcycles(r + w, link.mbps);
                        done = done.max(peer_free_mc.div_ceil(1000) + 2 * link.latency_cycles);
                    }
                    done
                }
            } else {
                sm.sched[k].pipe_free[pipe_index(class)] = t + interval.max(1) as u64;
                t + latency as u64
            };
            if let Some((reg, n)) = written(&d)
                && done > t + 1
                && sl.pending.push(Pending { reg, n, ready: done }).is_err()
            {
                // Eligibility waits for a free entry, so this does not happen; stay exact anyway.
                sl.ready_at = sl.ready_at.max(done);
            }
        }
        match flow {
            Flow::Next => {}
            Flow::Barrier => {
                sl.at_barrier = true;
                block.arrived += 1;
                self.maybe_release(s, bi, t, cfg);
            }
            Flow::Done => self.retire_warp(engine, env, s, slot, t),
            Flow::Spin => {
                sl.spin = Some(env.mem.epoch);
                // Waiting at the cluster barrier or a named one: the warp looks again when a
                // signal could have crossed the SM-to-SM network (or the SM's barrier unit),
                // leaving the issue slots to the warps that have yet to arrive.
                let poll = match d.map(|d| d.op) {
                    Some(Op::Cluster) => cfg.shared.remote_latency,
                    Some(Op::Bar) => cfg.pipe.barrier_latency,
                    _ => 0,
                };
                sl.ready_at = sl.ready_at.max(t + poll.max(1) as u64);
                self.try_freeze(env);
            }
        }
    }

    /// Release a block's barrier when every live warp has arrived.
    pub(crate) fn maybe_release(&mut self, s: usize, bi: usize, t: u64, cfg: &DeviceConfig) {
        let sm = &mut self.sms[s];
        let Some(block) = sm.blocks[bi].as_mut() else { return };
        if block.arrived < block.live || block.arrived == 0 {
            return;
        }
        block.arrived = 0;
        if let Some(c) = block.check.as_mut() {
            c.interval += 1;
        }
        let resume = t + cfg.pipe.barrier_latency.max(1) as u64;
        for (w, &si) in block.slots.iter().enumerate() {
            block.warps[w].at_barrier = false;
            if let Some(sl) = sm.slots[si].as_mut()
                && sl.at_barrier
                && sl.block == bi
            {
                sl.at_barrier = false;
                sl.ready_at = resume;
                sl.cache = None;
                let n = sm.sched.len();
                sm.sched[si % n].next_at = 0;
            }
        }
        sm.wake = sm.wake.min(resume);
    }

    pub(crate) fn retire_warp(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, s: usize, slot: usize, t: u64) {
        let sm = &mut self.sms[s];
        let Some(sl) = sm.slots[slot].take() else { return };
        for o in sm.order.iter_mut() {
            o.retain(|&x| x != slot);
        }
        for sc in sm.sched.iter_mut() {
            if sc.last == Some(slot) {
                sc.last = None;
            }
        }
        Self::occupancy(sm, s, &mut self.grids, &mut self.samples, t, -1);
        let bi = sl.block;
        let Some(block) = sm.blocks[bi].as_mut() else { return };
        block.live -= 1;
        if block.live > 0 {
            self.maybe_release(s, bi, t, env.cfg);
            return;
        }
        let block = sm.blocks[bi].take().expect("block");
        let gi = block.grid;
        let seq = self.grids[gi].as_ref().map_or(u64::MAX, |g| g.stats.seq);
        let r = Retire { at: 0, sm: s, cost: block.cost, placed: block.placed, grid: gi, seq, cluster: block.cluster };
        // The front end takes finished blocks one at a time (`dispatch.retire_mcycles`).
        let cost = env.cfg.retire_mcycles(block.warps.len() as u32);
        if cost == 0 {
            return self.retired(engine, env, r, t);
        }
        self.retire_mc = self.retire_mc.max(t * 1000).saturating_add(cost);
        self.retiring.push_back(Retire { at: self.retire_mc.div_ceil(1000), ..r });
    }

    /// A finished block's SM resources free again and its grid one block nearer its end, at
    /// cycle `t`.
    pub(crate) fn retired(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, r: Retire, t: u64) {
        self.sms[r.sm].free.give(&r.cost, &r.placed);
        // Room on an SM: blocked dispatchers try again.
        for g in self.grids.iter_mut().flatten() {
            if g.blocked {
                g.blocked = false;
                g.dispatch_mc = g.dispatch_mc.max((t + 1) * 1000);
            }
        }
        let gi = r.grid;
        // (A grid that failed meanwhile, its slot perhaps another's now, is not counted.)
        let Some(g) = self.grids[gi].as_mut().filter(|g| g.stats.seq == r.seq) else { return };
        g.done_blocks += 1;
        if let Some((k, _)) = r.cluster
            && let Some(c) = g.clusters[k].as_mut()
        {
            c.left -= 1;
            if c.left == 0 {
                g.clusters[k] = None;
            }
        }
        if g.done_blocks == g.nblocks {
            self.finish(engine, env, gi, t);
        }
    }
}

/// A finished block whose SM resources the front end gives back at `at`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Retire {
    /// The cycle its retirement is done.
    pub(crate) at: u64,
    sm: usize,
    cost: BlockCost,
    placed: Placement,
    grid: usize,
    /// Its grid's launch (a grid slot is reused).
    seq: u64,
    cluster: Option<(usize, u32)>,
}
