//! The cycle-level timing model of the compute engine (the `timing` mode).
//!
//! Grids are submitted by channels and run on the device clock beside the other engines:
//!
//! - **Dispatchers.** Each running grid has its own dispatcher. They compete for one
//!   central resource pool (every SM's free threads, registers, shared memory and block
//!   slots), so grids from different channels run at the same time. A dispatcher places a
//!   block on the least loaded SM that has room (round robin among equals), without an
//!   ACK/NAK round trip, and
//!   then spends [`DeviceConfig::dispatch_mcycles`] before the next one. The first block
//!   goes out `launch_overhead_cycles` after LAUNCH.
//! - **SMs.** Each SM has `schedulers_per_sm` warp schedulers (warp slot `i` belongs to
//!   scheduler `i % n`); each issues at most one instruction per cycle, from a warp chosen
//!   by the policy (loose round robin or greedy-then-oldest) among those that are ready: not
//!   at a barrier, past their control latency, whose operands are not pending in the
//!   scoreboard (8 entries per warp, as on real parts), and whose pipe is free (ALU, FP64,
//!   SFU, integer divide: each with its latency and issue interval; the LSU is shared by
//!   the SM's schedulers).
//! - **Memory.** Executed instructions report the addresses they touched. Global and local
//!   accesses are coalesced into `sector_bytes` sectors; loads look up the SM's L1
//!   (write-through, no allocation on stores), misses and stores go to the banked L2
//!   (write-back, write-allocate, sector-masked writes, so a store miss reads no DRAM),
//!   L2 misses and dirty evictions queue on DRAM channels at the preset's bandwidth.
//!   Shared memory costs one cycle per bank-conflict way; uniform constant loads hit the
//!   constant cache. The caches keep tags only: data always lives in memory, which the
//!   instruction updated when it issued (the functional executor is shared with the
//!   functional mode), so the model changes when things happen, never what they compute.
//! - **Kernel end.** When a grid's last block retires, the L2's dirty sectors are written
//!   back (the driver's end-of-kernel flush); the grid completes when the write-back drains.
//!   `MEM_OP L2_FLUSH_DIRTY` does the same on request (the runtime sends it before
//!   device-to-host copies). The L1s are invalidated when a grid starts (they are not
//!   coherent).
//!
//! Simplifications: no instruction cache or fetch stalls, no MSHR limit (a miss to a sector
//! already requested counts as a hit), tags are updated when a request is issued, the
//! per-SM L1 is not kept coherent with other SMs' stores (as on real parts, where L1 is not
//! coherent either), and accesses to system memory mapped into the GPU (pinned host memory)
//! are timed as VRAM accesses. Idle stretches are skipped: an SM is visited only at cycles where one
//! of its warps can issue.

mod cache;
mod dispatch;
mod memsys;
mod sm;
mod stats;

use cache::*;
use memsys::*;
use sm::*;
pub use stats::*;

use crate::compute::cluster::{self, ClusterMem};
use crate::compute::{
    ComputeEngine, ComputeRegs, D, Exec, Flow, GridError, LaunchCtx, MemProbe, Trap, Warp, WarpMem, init_warps,
};
use crate::config::{DeviceConfig, Policy};
use crate::mmu::{AddressSpace, Memory, Tlb};
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{ALWAYS, INSTR_BYTES, Imm, Op, RZ, Space, Ty};
use hw::occupancy::{BlockCost, Free, Placement};
use hw::regs::TrapReason;

/// A grid in flight.
pub(crate) struct GridRun {
    chid: u32,
    space: AddressSpace,
    r: ComputeRegs,
    banks: Vec<Vec<u8>>,
    code: Vec<Option<D>>,
    threads: u32,
    nregs: usize,
    /// The flattened id of the first block the launch runs (its range's start).
    first: u64,
    /// Blocks the launch runs, and the next to place (counted from `first`).
    nblocks: u64,
    next_block: u64,
    done_blocks: u64,
    cost: BlockCost,
    dispatch_mc: u64,
    blocked: bool,
    last_sm: usize,
    stats: KernelStats,
    /// The sanitizer's state of the grid (checked launches).
    check: Option<crate::check::GridCheck>,
    /// The first fault a warp of the grid is parked on (what a cancel fails it with).
    replay_fault: Option<crate::mmu::Fault>,
    /// When the last of the grid's stores, reductions and atomics is performed at the L2:
    /// the grid ends no sooner (its memory is visible when its channel hears it is done).
    posted: u64,
    /// The L1 its carveout leaves each SM.
    l1_bytes: u32,
    /// Its running thread block clusters (launches with clusters of more than one block).
    clusters: Vec<Option<ClusterMem>>,
}

/// Sectors per L1 line: 128-byte lines of four 32-byte sectors (Volta and later; Fermi's
/// 128-byte lines likewise), each line one way of its set whichever sectors it holds.
pub(crate) const L1_LINE_SECTORS: u32 = 4;

/// A grid that has finished (or failed), reported to its channel at `at`.
#[derive(Clone, Debug)]
pub struct Done {
    /// Channel.
    pub chid: u32,
    /// Completion cycle.
    pub at: u64,
    /// How it ended.
    pub result: Result<(), GridError>,
}

/// The timing model's state: SMs, dispatchers, L2 and DRAM.
pub struct TimingEngine {
    sms: Vec<Sm>,
    grids: Vec<Option<GridRun>>,
    l2: Option<Cache>,
    l2_bank_free: Vec<u64>,
    chan_free_mc: Vec<u64>,
    /// When the link to peers is next free, in millicycles (one link out of the GPU).
    peer_free_mc: u64,
    done: VecDeque<Done>,
    sectors: Vec<u64>,
    span: Vec<u8>,
    probe: MemProbe,
    next_uid: u64,
    /// Kernel statistics of finished grids, oldest first (bounded: see [`STATS_LOG`]).
    pub log: VecDeque<KernelStats>,
    /// Records dropped from a full log.
    pub log_dropped: u64,
    /// Per-SM occupancy changes, when enabled.
    pub samples: Samples,
    /// (memory epoch, watchdog deadline): every resident warp was found spinning or waiting
    /// at a barrier at that epoch, with no block left to place. Until memory changes nothing
    /// can, so the SMs are not stepped and time moves to the first grid's watchdog
    /// deadline (see [`Self::next_event`]).
    frozen: Option<(u64, u64)>,
    /// Faults of parked warps not yet written to the fault buffer.
    pub replay_log: Vec<crate::compute::ReplayRecord>,
    /// The size the SMs' L1s have now (what the carveouts of the grids in flight leave).
    l1_bytes: u32,
    /// Finished blocks the front end has yet to retire, in order, and when it is next free
    /// (millicycles; see `dispatch.retire_mcycles`).
    retiring: VecDeque<sm::Retire>,
    retire_mc: u64,
}

/// A change of an SM's resident warps (recorded while occupancy tracing is on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OccupancySample {
    /// Cycle.
    pub cycle: u64,
    /// SM.
    pub sm: u32,
    /// Resident warps from this cycle on.
    pub warps: u32,
}

/// Most occupancy samples kept until taken.
pub const SAMPLES: usize = 1 << 21;

/// The occupancy trace.
#[derive(Default)]
pub struct Samples {
    /// Recording.
    pub on: bool,
    /// Samples, in time order per SM.
    pub list: Vec<OccupancySample>,
    /// Samples not recorded because the list was full.
    pub dropped: u64,
}

/// Most kernel records kept until taken.
pub const STATS_LOG: usize = 1 << 16;

/// What an advance needs from the device.
pub struct Env<'a> {
    /// Physical memory.
    pub mem: &'a mut Memory,
    /// TLB.
    pub tlb: &'a mut Tlb,
    /// Configuration.
    pub cfg: &'a DeviceConfig,
    /// A host tool watching the work (see [`crate::watch`]).
    pub watch: Option<&'a mut crate::watch::Watch>,
}

impl Default for TimingEngine {
    fn default() -> Self {
        Self {
            sms: Vec::new(),
            grids: Vec::new(),
            l2: None,
            l2_bank_free: Vec::new(),
            chan_free_mc: Vec::new(),
            peer_free_mc: 0,
            replay_log: Vec::new(),
            l1_bytes: 0,
            done: VecDeque::new(),
            sectors: Vec::new(),
            span: vec![0u8; 4096],
            probe: MemProbe::default(),
            next_uid: 0,
            log: VecDeque::new(),
            log_dropped: 0,
            samples: Samples::default(),
            frozen: None,
            retiring: VecDeque::new(),
            retire_mc: 0,
        }
    }
}

/// Write the L2's dirty sectors back to DRAM from cycle `t`, each on its channel after
/// what the channel has queued: (the cycle the write-back drains, bytes written).
pub(crate) fn write_back(l2: &mut Cache, chans: &mut [u64], cfg: &DeviceConfig, t: u64) -> (u64, u64) {
    let sector_mc = cfg.transfer_mcycles(cfg.sector_bytes as u64 * chans.len() as u64, cfg.dram.mbps);
    let mut end = t * 1000;
    let mut bytes = 0;
    let n = chans.len();
    l2.clean(|line| {
        let c = channel(line, n);
        chans[c] = chans[c].max(t * 1000) + sector_mc;
        end = end.max(chans[c]);
        bytes += cfg.sector_bytes as u64;
    });
    (end.div_ceil(1000), bytes)
}

impl TimingEngine {
    fn build(&mut self, cfg: &DeviceConfig) {
        if !self.sms.is_empty() {
            return;
        }
        let limits = cfg.sm_limits();
        let n = cfg.sm.schedulers.max(1) as usize;
        self.sms = (0..cfg.board.sms.max(1))
            .map(|_| Sm {
                free: Free::of(&limits),
                blocks: Vec::new(),
                slots: Vec::new(),
                order: vec![Vec::new(); n],
                sched: vec![Sched::default(); n],
                lsu_free: 0,
                tex_free: 0,
                l1: Cache::with_lines(cfg.l1.bytes, cfg.sector_bytes, cfg.l1.ways, L1_LINE_SECTORS),
                tex: Cache::new(cfg.tex.bytes, cfg.sector_bytes, cfg.tex.ways),
                wake: u64::MAX,
                resident_warps: 0,
                resident_since: 0,
            })
            .collect();
        self.l1_bytes = cfg.l1.bytes;
        self.l2 = Some(Cache::with_hashed_sets(cfg.l2.bytes, cfg.sector_bytes, cfg.l2.ways));
        self.l2_bank_free = vec![0; cfg.l2.banks.max(1) as usize];
        self.chan_free_mc = vec![0; cfg.dram.channels.max(1) as usize];
    }

    /// Progress of the grids in flight: (blocks finished, blocks in all).
    pub fn progress(&self) -> (u64, u64) {
        self.grids.iter().flatten().fold((0, 0), |(d, n), g| (d + g.done_blocks, n + g.nblocks))
    }

    /// Warp instructions the grids in flight have issued so far.
    pub fn running_instructions(&self) -> u64 {
        self.grids.iter().flatten().map(|g| g.stats.warp_instructions).sum()
    }

    /// Whether grids are in flight or completions are waiting to be reported.
    pub fn busy(&self) -> bool {
        self.grids.iter().any(|g| g.is_some()) || !self.done.is_empty() || !self.retiring.is_empty()
    }

    /// Start a grid launched by channel `chid` at cycle `now`.
    pub fn submit(
        &mut self,
        engine: &mut ComputeEngine,
        cx: &mut LaunchCtx<'_>,
        chid: u32,
        r: &ComputeRegs,
        (seq, early): (u64, u64),
    ) -> Result<(), GridError> {
        let cfg = cx.cfg;
        self.build(cfg);
        self.frozen = None;
        let (threads, (first, nblocks), per_sm, cost) = ComputeEngine::check_launch(cfg, r)?;
        let banks = ComputeEngine::read_banks(cx, r)?;
        // L1s and texture caches are not coherent: a kernel starts with them invalidated,
        // as on real parts. Each SM's L1 is what the carveouts of the grids it may hold
        // leave of its unified L1 and shared memory (the smallest, while grids share SMs).
        let l1_bytes = cfg.l1_bytes_for(r.carveout);
        let l1_now = self.grids.iter().flatten().map(|g| g.l1_bytes).fold(l1_bytes, u32::min);
        let resize = l1_now != self.l1_bytes;
        self.l1_bytes = l1_now;
        for sm in &mut self.sms {
            if resize {
                sm.l1 = Cache::with_lines(l1_now, cfg.sector_bytes, cfg.l1.ways, L1_LINE_SECTORS);
            }
            sm.l1.invalidate();
            sm.tex.invalidate();
        }
        let stats = KernelStats {
            seq,
            chid,
            code: r.code,
            entry: r.start,
            grid: r.grid,
            block: r.block,
            blocks: (first, nblocks),
            start_cycle: cx.now,
            max_warps_per_sm: cfg.sm.max_threads / 32,
            sms: cfg.board.sms,
            blocks_per_sm: per_sm,
            ..KernelStats::default()
        };
        let g = GridRun {
            chid,
            space: cx.space,
            r: r.clone(),
            banks,
            code: engine.take_code(&cx.space, r),
            threads,
            nregs: crate::compute::slots(r.regs),
            first,
            nblocks,
            next_block: 0,
            done_blocks: 0,
            cost,
            dispatch_mc: cx.now.saturating_add(crate::compute::launch_overhead(cfg, early)).saturating_mul(1000),
            blocked: false,
            last_sm: self.sms.len() - 1,
            stats,
            check: crate::check::GridCheck::new(&r.check_launch(), cx.mem, cx.tlb, &cx.space),
            replay_fault: None,
            posted: 0,
            l1_bytes,
            clusters: Vec::new(),
        };
        match self.grids.iter().position(|g| g.is_none()) {
            Some(i) => self.grids[i] = Some(g),
            None => self.grids.push(Some(g)),
        }
        Ok(())
    }

    /// The next cycle at which the engine has something to do, with memory at `epoch`.
    /// While every resident warp spins (see `frozen`) and memory stays at the epoch it was
    /// found at, that is the first grid's watchdog deadline: the spinning in between
    /// would change nothing, so it is not simulated.
    pub fn next_event(&self, epoch: u64) -> Option<u64> {
        let mut t = self.done.iter().map(|d| d.at).min().unwrap_or(u64::MAX);
        t = t.min(self.retiring.front().map_or(u64::MAX, |r| r.at));
        if let Some((e, deadline)) = self.frozen
            && e == epoch
        {
            return Some(t.min(deadline));
        }
        for g in self.grids.iter().flatten() {
            if g.next_block < g.nblocks && !g.blocked {
                t = t.min(g.dispatch_mc.div_ceil(1000));
            }
        }
        for sm in &self.sms {
            t = t.min(sm.wake);
        }
        (t != u64::MAX).then_some(t)
    }

    /// Report a grid's end at its cycle (the functional mode's grids end here too).
    pub fn complete(&mut self, d: Done) {
        self.done.push_back(d);
    }

    /// Take a completion due at or before `now`.
    pub fn pop_done(&mut self, now: u64) -> Option<Done> {
        let i = self.done.iter().position(|d| d.at <= now)?;
        self.done.remove(i)
    }

    /// Process the engine's cycles before `horizon`, stopping early at a due completion.
    /// Process the engine's cycles from the device's cycle `now` up to `horizon`, stopping
    /// early at a due completion; returns the last cycle processed.
    pub fn advance(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, now: u64, horizon: u64) -> u64 {
        if self.frozen.is_some_and(|(e, deadline)| e != env.mem.epoch || now >= deadline) {
            self.thaw(now); // memory changed while the SMs were not stepped
        }
        let mut last = 0;
        loop {
            let due = self.done.iter().map(|d| d.at).min().unwrap_or(u64::MAX);
            let Some(t) = self.next_event(env.mem.epoch) else { return last };
            if t >= horizon || t >= due {
                return last;
            }
            if self.frozen.is_some() {
                self.thaw(t); // the watchdog's time has come
                continue;
            }
            last = t;
            self.cycle(engine, env, t);
            if let Some(w) = env.watch.as_deref_mut()
                && w.due(t)
            {
                let (blocks_done, blocks) = self.progress();
                let warp_instructions = engine.warp_instructions + self.running_instructions();
                w.fire(&crate::watch::Snapshot { cycle: t, blocks_done, blocks, warp_instructions });
            }
        }
    }

    /// Step the SMs again from cycle `t`: what they skipped while frozen changed nothing.
    fn thaw(&mut self, t: u64) {
        self.frozen = None;
        for sm in &mut self.sms {
            if sm.wake != u64::MAX {
                sm.wake = sm.wake.max(t);
            }
        }
    }

    /// After warp `slot` of SM `s` was found spinning: freeze when every resident warp of
    /// the device spins at this epoch or waits at a barrier and no dispatcher can place a
    /// block (nothing left can write memory). Never without a watchdog: a hung kernel then
    /// hangs, as on a GPU without one.
    fn try_freeze(&mut self, env: &Env<'_>) {
        if env.cfg.watchdog_cycles == 0 {
            return;
        }
        let e = env.mem.epoch;
        if self.grids.iter().flatten().any(|g| g.next_block < g.nblocks && !g.blocked) {
            return;
        }
        let quiet = |sl: &Slot| sl.at_barrier || sl.spin == Some(e);
        if self.sms.iter().all(|sm| sm.slots.iter().flatten().all(quiet))
            && let Some(start) = self.grids.iter().flatten().map(|g| g.stats.start_cycle).min()
        {
            // The watchdog stops a grid at its first issue after start + watchdog_cycles.
            self.frozen = Some((e, start.saturating_add(env.cfg.watchdog_cycles).saturating_add(1)));
        }
    }

    fn cycle(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, t: u64) {
        // Blocks whose retirement is done give their SMs' resources back first.
        while self.retiring.front().is_some_and(|r| r.at <= t) {
            let r = self.retiring.pop_front().expect("a retiring block");
            self.retired(engine, env, r, t);
        }
        // Dispatchers, in grid-slot order.
        for gi in 0..self.grids.len() {
            while let Some(g) = self.grids[gi].as_ref() {
                if g.blocked || g.next_block >= g.nblocks || g.dispatch_mc > t * 1000 {
                    break;
                }
                match self.place(gi, env.cfg, t) {
                    Ok(true) => {}
                    Ok(false) => {
                        if let Some(g) = self.grids[gi].as_mut() {
                            g.blocked = true;
                        }
                        break;
                    }
                    // The host could not back the block: the grid stops (out of memory).
                    Err(e) => {
                        self.fail(engine, gi, t, e);
                        break;
                    }
                }
            }
        }
        for s in 0..self.sms.len() {
            if self.sms[s].wake <= t {
                self.visit(engine, env, s, t);
            }
        }
    }

    /// Write back the L2's dirty sectors from cycle `t`; returns when the write-back drains.
    pub fn flush_l2(&mut self, cfg: &DeviceConfig, t: u64, stats: Option<&mut KernelStats>) -> u64 {
        let Some(l2) = self.l2.as_mut() else { return t };
        let (end, bytes) = write_back(l2, &mut self.chan_free_mc, cfg, t);
        if let Some(st) = stats {
            st.dram_write_bytes += bytes;
        }
        end
    }

    fn finish(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, gi: usize, t: u64) {
        let Some(mut g) = self.grids[gi].take() else { return };
        let end = self.flush_l2(env.cfg, t.max(g.posted), Some(&mut g.stats)).max(t + 1);
        g.stats.end_cycle = end;
        engine.grids += 1;
        engine.warp_instructions += g.stats.warp_instructions;
        engine.thread_instructions += g.stats.thread_instructions;
        engine.last_occupancy =
            (g.stats.blocks_per_sm, g.nblocks.div_ceil(g.stats.blocks_per_sm as u64 * env.cfg.board.sms.max(1) as u64));
        engine.put_code(&g.space, &g.r, core::mem::take(&mut g.code));
        self.record(g.stats);
        self.done.push_back(Done { chid: g.chid, at: end, result: Ok(()) });
    }

    /// Add a kernel record to the log.
    pub fn record(&mut self, st: KernelStats) {
        if self.log.len() >= STATS_LOG {
            self.log.pop_front();
            self.log_dropped += 1;
        }
        self.log.push_back(st);
    }

    /// Stop grid `gi` with an error: its blocks leave the SMs and the channel hears of it.
    fn fail(&mut self, engine: &mut ComputeEngine, gi: usize, t: u64, e: GridError) {
        self.remove_blocks(gi, t);
        let Some(mut g) = self.grids[gi].take() else { return };
        g.stats.end_cycle = t;
        g.stats.failed = true;
        engine.put_code(&g.space, &g.r, core::mem::take(&mut g.code));
        self.record(g.stats);
        self.done.push_back(Done { chid: g.chid, at: t, result: Err(e) });
    }

    fn remove_blocks(&mut self, gi: usize, t: u64) {
        for s in 0..self.sms.len() {
            let sm = &mut self.sms[s];
            for bi in 0..sm.blocks.len() {
                if sm.blocks[bi].as_ref().is_none_or(|b| b.grid != gi) {
                    continue;
                }
                let live = sm.blocks[bi].as_ref().map_or(0, |b| b.live as i32);
                Self::occupancy(sm, s, &mut self.grids, &mut self.samples, t, -live);
                let block = sm.blocks[bi].take().expect("block");
                for &si in &block.slots {
                    // A slot of a warp that already ended may belong to another block now.
                    if sm.slots[si].as_ref().is_none_or(|x| x.block != bi) {
                        continue;
                    }
                    sm.slots[si] = None;
                    for o in sm.order.iter_mut() {
                        o.retain(|&x| x != si);
                    }
                    for sc in sm.sched.iter_mut() {
                        if sc.last == Some(si) {
                            sc.last = None;
                        }
                    }
                }
                sm.free.give(&block.cost, &block.placed);
            }
            if sm.slots.iter().all(|x| x.is_none()) {
                sm.wake = u64::MAX;
            }
        }
        for g in self.grids.iter_mut().flatten() {
            g.blocked = false;
        }
    }

    /// NV_PFB_REPLAY at cycle `t`: every parked warp retries its instruction (`cancel`:
    /// the grids with parked warps fail with their fault instead).
    pub fn replay(&mut self, engine: &mut ComputeEngine, t: u64, cancel: bool) {
        if cancel {
            for gi in 0..self.grids.len() {
                if let Some(f) = self.grids[gi].as_mut().and_then(|g| g.replay_fault.take()) {
                    self.fail(engine, gi, t, GridError::Fault(f));
                }
            }
            return;
        }
        for g in self.grids.iter_mut().flatten() {
            g.replay_fault = None;
        }
        for sm in &mut self.sms {
            let mut any = false;
            for sl in sm.slots.iter_mut().flatten().filter(|sl| sl.replay) {
                (sl.ready_at, sl.replay, sl.cache) = (t, false, None);
                any = true;
            }
            if any {
                for sc in &mut sm.sched {
                    sc.next_at = 0;
                }
                sm.wake = sm.wake.min(t);
            }
        }
        self.frozen = None;
    }

    /// Drop the grids of a channel that went away (nothing is reported).
    pub fn cancel(&mut self, engine: &mut ComputeEngine, chid: u32, t: u64) {
        for gi in 0..self.grids.len() {
            if self.grids[gi].as_ref().is_some_and(|g| g.chid == chid) {
                self.remove_blocks(gi, t);
                if let Some(mut g) = self.grids[gi].take() {
                    engine.put_code(&g.space, &g.r, core::mem::take(&mut g.code));
                }
            }
        }
        self.done.retain(|d| d.chid != chid);
    }
}
