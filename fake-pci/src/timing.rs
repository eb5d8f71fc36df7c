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

use crate::compute::{
    ComputeEngine, ComputeRegs, D, Exec, Flow, GridError, LaunchCtx, MemProbe, Trap, Warp, init_warps,
};
use crate::config::{DeviceConfig, Policy};
use crate::mmu::{AddressSpace, Memory, Tlb};
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{ALWAYS, INSTR_BYTES, Imm, Op, RZ, Space, Ty};
use hw::occupancy::{SmLimits, block_cost};
use hw::regs::TrapReason;

/// Stall reasons, counted per scheduler cycle without an issue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stalls {
    /// Waiting for an operand (a register a load or long-latency instruction will write).
    pub dependency: u64,
    /// Waiting for a pipe (ALU, FP64, SFU, divide, LSU) to accept another instruction.
    pub pipe: u64,
    /// Waiting after a branch or other control instruction.
    pub control: u64,
    /// Every warp of the scheduler waits at a barrier.
    pub barrier: u64,
}

/// Statistics of one kernel (one grid).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Launch number on this device (0, 1, ...), in the order LAUNCH methods were processed.
    pub seq: u64,
    /// Channel that launched it.
    pub chid: u32,
    /// Program address (CODE_ADDRESS) and entry point (PROGRAM_START): with the channel,
    /// they identify the function.
    pub code: u64,
    /// Entry point, bytes from `code`.
    pub entry: u32,
    /// Grid and block dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Cycle of LAUNCH.
    pub start_cycle: u64,
    /// Cycle of completion (after the end-of-kernel L2 write-back).
    pub end_cycle: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes of issued instructions).
    pub thread_instructions: u64,
    /// Warp-cycles of resident warps, summed over SMs (for achieved occupancy).
    pub resident_warp_cycles: u64,
    /// Resident warps an SM can hold (the preset's limit).
    pub max_warps_per_sm: u32,
    /// SMs of the device.
    pub sms: u32,
    /// Blocks an SM held at once at most (the occupancy rule for this launch).
    pub blocks_per_sm: u32,
    /// Stall reasons.
    pub stalls: Stalls,
    /// L1 hits and misses (sectors of global and local loads).
    pub l1_hits: u64,
    /// L1 misses.
    pub l1_misses: u64,
    /// L2 hits and misses (sectors).
    pub l2_hits: u64,
    /// L2 misses.
    pub l2_misses: u64,
    /// Bytes read from DRAM.
    pub dram_read_bytes: u64,
    /// Bytes written to DRAM (evictions and the end-of-kernel write-back).
    pub dram_write_bytes: u64,
    /// Extra cycles shared-memory accesses spent on bank conflicts.
    pub bank_conflict_cycles: u64,
    /// Whether the grid ended in a fault or trap.
    pub failed: bool,
}

impl KernelStats {
    /// Cycles from LAUNCH to completion.
    pub fn cycles(&self) -> u64 {
        self.end_cycle.saturating_sub(self.start_cycle)
    }
    /// Warp instructions per cycle, over the whole device.
    pub fn ipc(&self) -> f64 {
        self.warp_instructions as f64 / self.cycles().max(1) as f64
    }
    /// Average resident warps over the kernel's duration, as a fraction of the device's
    /// warp slots.
    pub fn achieved_occupancy(&self) -> f64 {
        let slots = self.max_warps_per_sm as f64 * self.sms as f64 * self.cycles().max(1) as f64;
        self.resident_warp_cycles as f64 / slots.max(1.0)
    }
    /// L1 hit rate (0 when nothing was looked up).
    pub fn l1_hit_rate(&self) -> f64 {
        ratio(self.l1_hits, self.l1_hits + self.l1_misses)
    }
    /// L2 hit rate.
    pub fn l2_hit_rate(&self) -> f64 {
        ratio(self.l2_hits, self.l2_hits + self.l2_misses)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// A tag-only set-associative cache with LRU replacement and dirty bits.
struct Cache {
    sets: u64,
    ways: usize,
    tags: Vec<u64>,
    stamp: Vec<u64>,
    dirty: Vec<bool>,
    clock: u64,
}

const INVALID: u64 = u64::MAX;

impl Cache {
    fn new(bytes: u32, sector: u32, ways: u32) -> Self {
        let lines = (bytes / sector.max(1)) as usize;
        let ways = (ways.max(1) as usize).min(lines.max(1));
        let sets = (lines / ways) as u64;
        let n = sets as usize * ways;
        Self { sets, ways, tags: vec![INVALID; n], stamp: vec![0; n], dirty: vec![false; n], clock: 0 }
    }

    /// Look up sector `line`; on a miss with `allocate`, fill it (evicting the LRU way).
    /// Returns whether it hit and the dirty sector evicted, if any.
    fn access(&mut self, line: u64, write: bool, allocate: bool) -> (bool, Option<u64>) {
        if self.sets == 0 {
            return (false, None);
        }
        self.clock += 1;
        let set = (line % self.sets) as usize * self.ways;
        let ways = set..set + self.ways;
        if let Some(i) = ways.clone().find(|&i| self.tags[i] == line) {
            self.stamp[i] = self.clock;
            self.dirty[i] |= write;
            return (true, None);
        }
        if !allocate {
            return (false, None);
        }
        let victim = ways.min_by_key(|&i| (self.tags[i] != INVALID, self.stamp[i])).unwrap_or(set);
        let evicted = (self.tags[victim] != INVALID && self.dirty[victim]).then_some(self.tags[victim]);
        self.tags[victim] = line;
        self.stamp[victim] = self.clock;
        self.dirty[victim] = write;
        (false, evicted)
    }

    /// Forget every line (clean lines only: used for the write-through L1).
    fn invalidate(&mut self) {
        self.tags.fill(INVALID);
        self.dirty.fill(false);
    }

    /// Write back every dirty sector (they stay valid, now clean).
    fn clean(&mut self, mut f: impl FnMut(u64)) {
        for (i, d) in self.dirty.iter_mut().enumerate() {
            if *d {
                *d = false;
                f(self.tags[i]);
            }
        }
    }
}

/// A scoreboard entry: registers `reg..reg + n` are written at `ready`.
#[derive(Clone, Copy, Debug)]
struct Pending {
    reg: u8,
    n: u8,
    ready: u64,
}

const SCOREBOARD: usize = 8;

/// Pipes with their own issue interval, per scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Alu,
    F64,
    Sfu,
    Div,
    Shfl,
    Control,
    Mem,
}

fn classify(d: &D) -> Class {
    match d.op {
        Op::Ld | Op::St | Op::Atom => Class::Mem,
        Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret | Op::Trap => Class::Control,
        Op::Sin | Op::Cos | Op::Ex2 | Op::Lg2 | Op::Rcp | Op::Rsqrt | Op::Sqrt => Class::Sfu,
        Op::Div | Op::Rem if d.ty != Ty::F32 && d.ty != Ty::F64 => Class::Div,
        Op::Shfl | Op::Vote => Class::Shfl,
        _ if d.ty == Ty::F64 => Class::F64,
        _ => Class::Alu,
    }
}

/// Registers an instruction reads (and, for loads, writes: WAW), as (first, count).
fn operands(d: &D) -> [(u8, u8); 5] {
    let vec = if matches!(d.op, Op::Ld | Op::St) { hw::isa::MemMods::vec(d.m) as u8 } else { 1 };
    let reg = |r: u8, imm: bool, n: u8| if imm || r == RZ { (RZ, 0) } else { (r, n) };
    [
        reg(d.a, d.imm_slot == Imm::A, 1),
        reg(d.b, d.imm_slot == Imm::B, if d.op == Op::St { vec } else { 1 }),
        reg(d.c, d.imm_slot == Imm::C, 1),
        reg(d.guard, d.guard == ALWAYS, 1),
        reg(d.dst, d.op == Op::St, if d.op == Op::Ld { vec } else { 1 }),
    ]
}

/// Registers an instruction writes.
fn written(d: &D) -> Option<(u8, u8)> {
    match d.op {
        Op::St | Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret | Op::Trap | Op::Nop | Op::Membar => None,
        _ if d.dst == RZ => None,
        Op::Ld => Some((d.dst, hw::isa::MemMods::vec(d.m) as u8)),
        _ => Some((d.dst, 1)),
    }
}

/// A warp resident on an SM.
struct Slot {
    block: usize,
    warp: usize,
    /// Cycle from which it may issue (control latency, barrier release).
    ready_at: u64,
    pending: heapless::Vec<Pending, SCOREBOARD>,
    /// Set while the warp waits at a barrier.
    at_barrier: bool,
    /// When the next instruction's operands are ready, its pipe and why it waits (cleared
    /// when the warp issues or leaves a barrier).
    cache: Option<(u64, Class, StallKind)>,
    /// The memory epoch at which the warp was found spinning (it goes on issuing: a
    /// spinning warp takes issue slots and bandwidth like any other).
    spin: Option<u64>,
}

/// A block resident on an SM.
struct Block {
    grid: usize,
    ctaid: [u32; 3],
    regs: Vec<u64>,
    shared: Vec<u8>,
    local: Vec<u8>,
    warps: Vec<Warp>,
    slots: Vec<usize>,
    live: u32,
    arrived: u32,
    cost: SmLimits,
    uid: u64,
    /// Racecheck's state of the block (checked launches).
    check: Option<crate::check::BlockCheck>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Sched {
    last: Option<usize>,
    /// Cycle each pipe accepts another instruction.
    pipe_free: [u64; 6],
    /// Stall reason of the last visited cycle without an issue, and its grid.
    stall: Option<(StallKind, usize)>,
    stall_since: u64,
    /// No warp of this scheduler can issue before this cycle.
    next_at: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StallKind {
    Dependency,
    Pipe,
    Control,
    Barrier,
}

struct Sm {
    free: SmLimits,
    blocks: Vec<Option<Block>>,
    slots: Vec<Option<Slot>>,
    /// Warp slots per scheduler, oldest first.
    order: Vec<Vec<usize>>,
    sched: Vec<Sched>,
    lsu_free: u64,
    l1: Cache,
    /// Next cycle at which a warp may issue (u64::MAX: none resident).
    wake: u64,
    resident_warps: u32,
    /// Cycle since which `resident_warps` has been unchanged (for occupancy).
    resident_since: u64,
}

/// A grid in flight.
struct GridRun {
    chid: u32,
    space: AddressSpace,
    r: ComputeRegs,
    banks: Vec<Vec<u8>>,
    code: Vec<Option<D>>,
    threads: u32,
    nregs: usize,
    nblocks: u64,
    next_block: u64,
    done_blocks: u64,
    cost: SmLimits,
    dispatch_mc: u64,
    blocked: bool,
    last_sm: usize,
    stats: KernelStats,
    /// The sanitizer's state of the grid (checked launches).
    check: Option<crate::check::GridCheck>,
}

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
}

impl Default for TimingEngine {
    fn default() -> Self {
        Self {
            sms: Vec::new(),
            grids: Vec::new(),
            l2: None,
            l2_bank_free: Vec::new(),
            chan_free_mc: Vec::new(),
            done: VecDeque::new(),
            sectors: Vec::new(),
            span: vec![0u8; 4096],
            probe: MemProbe::default(),
            next_uid: 0,
            log: VecDeque::new(),
            log_dropped: 0,
            samples: Samples::default(),
            frozen: None,
        }
    }
}

impl TimingEngine {
    fn build(&mut self, cfg: &DeviceConfig) {
        if !self.sms.is_empty() {
            return;
        }
        let limits = crate::compute::sm_limits(cfg);
        let n = cfg.schedulers_per_sm.max(1) as usize;
        self.sms = (0..cfg.sms.max(1))
            .map(|_| Sm {
                free: limits,
                blocks: Vec::new(),
                slots: Vec::new(),
                order: vec![Vec::new(); n],
                sched: vec![Sched::default(); n],
                lsu_free: 0,
                l1: Cache::new(cfg.l1_bytes, cfg.sector_bytes, cfg.l1_ways),
                wake: u64::MAX,
                resident_warps: 0,
                resident_since: 0,
            })
            .collect();
        self.l2 = Some(Cache::new(cfg.l2_bytes, cfg.sector_bytes, cfg.l2_ways));
        self.l2_bank_free = vec![0; cfg.l2_banks.max(1) as usize];
        self.chan_free_mc = vec![0; cfg.dram_channels.max(1) as usize];
    }

    /// Progress of the grids in flight: (blocks finished, blocks in all).
    pub fn progress(&self) -> (u64, u64) {
        self.grids.iter().flatten().fold((0, 0), |(d, n), g| (d + g.done_blocks, n + g.nblocks))
    }

    /// Whether grids are in flight or completions are waiting to be reported.
    pub fn busy(&self) -> bool {
        self.grids.iter().any(|g| g.is_some()) || !self.done.is_empty()
    }

    /// Start a grid launched by channel `chid` at cycle `now`.
    pub fn submit(
        &mut self,
        engine: &mut ComputeEngine,
        cx: &mut LaunchCtx<'_>,
        chid: u32,
        r: &ComputeRegs,
        seq: u64,
    ) -> Result<(), GridError> {
        let cfg = cx.cfg;
        self.build(cfg);
        self.frozen = None;
        let (threads, nblocks, per_sm) = ComputeEngine::check_launch(cfg, r)?;
        let banks = ComputeEngine::read_banks(cx, r)?;
        // L1s are not coherent: a kernel starts with them invalidated, as on real parts.
        for sm in &mut self.sms {
            sm.l1.invalidate();
        }
        let stats = KernelStats {
            seq,
            chid,
            code: r.code,
            entry: r.start,
            grid: r.grid,
            block: r.block,
            start_cycle: cx.now,
            max_warps_per_sm: cfg.max_threads_per_sm / 32,
            sms: cfg.sms,
            blocks_per_sm: per_sm,
            ..KernelStats::default()
        };
        let g = GridRun {
            chid,
            space: cx.space,
            r: r.clone(),
            banks,
            code: engine.take_code(&cx.space, r.code),
            threads,
            nregs: r.regs.max(1) as usize,
            nblocks,
            next_block: 0,
            done_blocks: 0,
            cost: block_cost(threads, r.regs, r.shared),
            dispatch_mc: cx.now.saturating_add(cfg.launch_overhead_cycles).saturating_mul(1000),
            blocked: false,
            last_sm: self.sms.len() - 1,
            stats,
            check: crate::check::GridCheck::new(r, cx.mem, cx.tlb, &cx.space),
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

    /// Place the next block of grid `gi` on an SM with room; false if none has room.
    fn place(&mut self, gi: usize, cfg: &DeviceConfig, t: u64) -> Result<bool, GridError> {
        let g = self.grids[gi].as_mut().expect("grid");
        let n = self.sms.len();
        let c = g.cost;
        let fits = |f: &SmLimits| f.threads >= c.threads && f.regs >= c.regs && f.shared >= c.shared && f.blocks >= 1;
        // The least loaded SM with room (most free thread slots), the next in round-robin
        // order on ties: blocks of concurrent grids spread over the whole device.
        let mut best: Option<usize> = None;
        for s in (1..=n).map(|k| (g.last_sm + k) % n) {
            let f = &self.sms[s].free;
            if fits(f) && best.is_none_or(|b| f.threads > self.sms[b].free.threads) {
                best = Some(s);
            }
        }
        let Some(s) = best else { return Ok(false) };
        g.last_sm = s;
        let i = g.next_block;
        g.next_block += 1;
        let warps = g.threads.div_ceil(32);
        // Fractions of a cycle carry over while the dispatcher keeps pace; one that waited
        // (for room on an SM) starts again from now.
        let from = if g.dispatch_mc + 1000 <= t * 1000 { t * 1000 } else { g.dispatch_mc };
        g.dispatch_mc = from.saturating_add(cfg.dispatch_mcycles(warps));
        let (gx, gy) = (g.r.grid[0] as u64, g.r.grid[1] as u64);
        let ctaid = [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32];
        let nwarps = warps as usize;
        let mut warps_v = Vec::new();
        init_warps(&mut warps_v, g.threads, g.r.start / INSTR_BYTES as u32);
        let block = Block {
            grid: gi,
            ctaid,
            regs: crate::compute::try_zeroed(nwarps * g.nregs * 32)?,
            shared: crate::compute::try_zeroed(g.r.shared as usize)?,
            local: crate::compute::try_zeroed(g.r.local_size as usize * nwarps * 32)?,
            warps: warps_v,
            slots: Vec::with_capacity(nwarps),
            live: nwarps as u32,
            arrived: 0,
            cost: c,
            uid: self.next_uid,
            check: crate::check::BlockCheck::new(
                hw::check::CheckMode::from(g.r.check_mode),
                g.r.shared as usize,
                nwarps * g.nregs * 32,
            ),
        };
        self.next_uid += 1;
        let sm = &mut self.sms[s];
        sm.free.threads -= c.threads;
        sm.free.regs -= c.regs;
        sm.free.shared -= c.shared;
        sm.free.blocks -= 1;
        let bi = match sm.blocks.iter().position(|b| b.is_none()) {
            Some(bi) => bi,
            None => {
                sm.blocks.push(None);
                sm.blocks.len() - 1
            }
        };
        let mut slots = Vec::with_capacity(nwarps);
        for w in 0..nwarps {
            let slot = Slot {
                block: bi,
                warp: w,
                ready_at: t + 1,
                pending: heapless::Vec::new(),
                at_barrier: false,
                cache: None,
                spin: None,
            };
            let si = match sm.slots.iter().position(|x| x.is_none()) {
                Some(si) => si,
                None => {
                    sm.slots.push(None);
                    sm.slots.len() - 1
                }
            };
            sm.slots[si] = Some(slot);
            let k = sm.order.len();
            sm.order[si % k].push(si);
            sm.sched[si % k].next_at = 0;
            slots.push(si);
        }
        sm.blocks[bi] = Some(Block { slots, ..block });
        Self::occupancy(sm, s, &mut self.grids, &mut self.samples, t, nwarps as i32);
        sm.wake = sm.wake.min(t + 1);
        Ok(true)
    }

    /// Account resident warp-cycles up to `t`, then change the resident count by `delta`.
    fn occupancy(sm: &mut Sm, s: usize, grids: &mut [Option<GridRun>], log: &mut Samples, t: u64, delta: i32) {
        if t > sm.resident_since && sm.resident_warps > 0 {
            // Charge the resident warps to the grids of the resident blocks.
            for b in sm.blocks.iter().flatten() {
                if let Some(g) = grids.get_mut(b.grid).and_then(|g| g.as_mut()) {
                    g.stats.resident_warp_cycles += t.saturating_sub(sm.resident_since) * b.live as u64;
                }
            }
        }
        sm.resident_since = t;
        sm.resident_warps = (sm.resident_warps as i32 + delta).max(0) as u32;
        if log.on {
            if log.list.len() < SAMPLES {
                log.list.push(OccupancySample { cycle: t, sm: s as u32, warps: sm.resident_warps });
            } else {
                log.dropped += 1;
            }
        }
    }

    /// Visit SM `s` at cycle `t`: each scheduler issues at most one instruction.
    fn visit(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, s: usize, t: u64) {
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
    fn select(
        &mut self,
        env: &mut Env<'_>,
        s: usize,
        k: usize,
        t: u64,
    ) -> (Option<usize>, u64, Option<(StallKind, usize)>) {
        let policy = env.cfg.policy;
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
    fn eligible(
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
            c => sm.sched[k].pipe_free[pipe_index(c)],
        };
        if pipe > at { Some((pipe, StallKind::Pipe, gi)) } else { Some((at, kind, gi)) }
    }

    /// When the next instruction of a warp past its control latency has its operands, the
    /// instruction's class, and what it waits for.
    fn readiness(
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
    fn issue(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, s: usize, k: usize, slot: usize, t: u64) {
        let cfg = env.cfg;
        let Some((bi, wi)) = self.sms[s].slots[slot].as_ref().map(|sl| (sl.block, sl.warp)) else { return };
        let Some(gi) = self.sms[s].blocks[bi].as_ref().map(|b| b.grid) else { return };
        let Some(start) = self.grids[gi].as_ref().map(|g| g.stats.start_cycle) else { return };
        if cfg.watchdog_cycles != 0 && t > start.saturating_add(cfg.watchdog_cycles) {
            let pc = self.sms[s].blocks[bi].as_ref().and_then(|b| b.warps[wi].stack.last()).map_or(0, |f| f.pc);
            self.fail(engine, gi, t, GridError::Trap(Trap { reason: TrapReason::Watchdog, pc }));
            return;
        }
        let TimingEngine { sms, grids, l2, l2_bank_free, chan_free_mc, sectors, span, probe, .. } = self;
        let (sm, g) = (&mut sms[s], grids[gi].as_mut().expect("grid"));
        let block = sm.blocks[bi].as_mut().expect("block");
        let nwarps = block.warps.len();
        let (nregs, local_size) = (g.nregs, g.r.local_size as usize);
        let wr = &mut block.regs[wi * nregs * 32..(wi + 1) * nregs * 32];
        let wl = &mut block.local[wi * local_size * 32..(wi + 1) * local_size * 32];
        let warp = &mut block.warps[wi];
        let mut cx = LaunchCtx { mem: env.mem, tlb: env.tlb, space: g.space, cfg, now_ns: cfg.cycles_to_ns(t), now: t };
        probe.on = 0;
        let res = {
            let mut x = exec(&mut cx, g, span, s as u32, Some(probe), block.check.as_mut());
            let r = x.peek(warp).and_then(|d| {
                x.step(warp, wi as u32, nwarps as u32, block.ctaid, wr, &mut block.shared, wl).map(|f| (d, f))
            });
            let (wi_, ti_) = (x.instrs, x.thread_instrs);
            g.stats.warp_instructions += wi_;
            g.stats.thread_instructions += ti_;
            r
        };
        let (d, flow) = match res {
            Ok(x) => x,
            Err(e) => {
                self.fail(engine, gi, t, e);
                return;
            }
        };
        let uid = block.uid;
        let sl = sm.slots[slot].as_mut().expect("slot");
        sl.ready_at = t + 1;
        sl.cache = None;
        if let Some(d) = d {
            let class = classify(&d);
            let (latency, interval) = match class {
                Class::Alu => (cfg.alu_latency, cfg.alu_interval),
                Class::F64 => (cfg.f64_latency, cfg.f64_interval),
                Class::Sfu => (cfg.sfu_latency, cfg.sfu_interval),
                Class::Div => (cfg.div_latency, cfg.div_interval),
                Class::Shfl => (cfg.shfl_latency, cfg.alu_interval),
                Class::Control => (1, cfg.alu_interval),
                Class::Mem => (0, 0),
            };
            if class == Class::Control {
                sl.ready_at = t + cfg.branch_latency.max(1) as u64;
            }
            let done = if class == Class::Mem {
                let l2 = l2.as_mut().expect("l2");
                let mut m = MemSys { cfg, l2, banks: l2_bank_free, chans: chan_free_mc, sectors, st: &mut g.stats };
                let (done, busy) = m.access(&d, probe, t, s, uid, &mut sm.l1);
                sm.lsu_free = t + busy.max(1);
                done
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
                self.try_freeze(env);
            }
        }
    }

    /// Release a block's barrier when every live warp has arrived.
    fn maybe_release(&mut self, s: usize, bi: usize, t: u64, cfg: &DeviceConfig) {
        let sm = &mut self.sms[s];
        let Some(block) = sm.blocks[bi].as_mut() else { return };
        if block.arrived < block.live || block.arrived == 0 {
            return;
        }
        block.arrived = 0;
        if let Some(c) = block.check.as_mut() {
            c.interval += 1;
        }
        let resume = t + cfg.barrier_latency.max(1) as u64;
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

    fn retire_warp(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, s: usize, slot: usize, t: u64) {
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
        sm.free.threads += block.cost.threads;
        sm.free.regs += block.cost.regs;
        sm.free.shared += block.cost.shared;
        sm.free.blocks += 1;
        // Room on an SM: blocked dispatchers try again.
        for g in self.grids.iter_mut().flatten() {
            if g.blocked {
                g.blocked = false;
                g.dispatch_mc = g.dispatch_mc.max((t + 1) * 1000);
            }
        }
        let gi = block.grid;
        let Some(g) = self.grids[gi].as_mut() else { return };
        g.done_blocks += 1;
        if g.done_blocks == g.nblocks {
            self.finish(engine, env, gi, t);
        }
    }

    /// Write back the L2's dirty sectors from cycle `t`; returns when the write-back drains.
    pub fn flush_l2(&mut self, cfg: &DeviceConfig, t: u64, stats: Option<&mut KernelStats>) -> u64 {
        let Some(l2) = self.l2.as_mut() else { return t };
        let sector_mc = cfg.transfer_mcycles(cfg.sector_bytes as u64 * self.chan_free_mc.len() as u64, cfg.dram_mbps);
        let chans = &mut self.chan_free_mc;
        let mut end = t * 1000;
        let mut bytes = 0;
        l2.clean(|line| {
            let c = channel(line, chans.len());
            chans[c] = chans[c].max(t * 1000) + sector_mc;
            end = end.max(chans[c]);
            bytes += cfg.sector_bytes as u64;
        });
        if let Some(st) = stats {
            st.dram_write_bytes += bytes;
        }
        end.div_ceil(1000)
    }

    fn finish(&mut self, engine: &mut ComputeEngine, env: &mut Env<'_>, gi: usize, t: u64) {
        let Some(mut g) = self.grids[gi].take() else { return };
        let end = self.flush_l2(env.cfg, t, Some(&mut g.stats)).max(t + 1);
        g.stats.end_cycle = end;
        engine.grids += 1;
        engine.warp_instructions += g.stats.warp_instructions;
        engine.thread_instructions += g.stats.thread_instructions;
        engine.last_occupancy =
            (g.stats.blocks_per_sm, g.nblocks.div_ceil(g.stats.blocks_per_sm as u64 * env.cfg.sms.max(1) as u64));
        engine.put_code(&g.space, g.r.code, core::mem::take(&mut g.code));
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
        engine.put_code(&g.space, g.r.code, core::mem::take(&mut g.code));
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
                sm.free.threads += block.cost.threads;
                sm.free.regs += block.cost.regs;
                sm.free.shared += block.cost.shared;
                sm.free.blocks += 1;
            }
            if sm.slots.iter().all(|x| x.is_none()) {
                sm.wake = u64::MAX;
            }
        }
        for g in self.grids.iter_mut().flatten() {
            g.blocked = false;
        }
    }

    /// Drop the grids of a channel that went away (nothing is reported).
    pub fn cancel(&mut self, engine: &mut ComputeEngine, chid: u32, t: u64) {
        for gi in 0..self.grids.len() {
            if self.grids[gi].as_ref().is_some_and(|g| g.chid == chid) {
                self.remove_blocks(gi, t);
                if let Some(mut g) = self.grids[gi].take() {
                    engine.put_code(&g.space, g.r.code, core::mem::take(&mut g.code));
                }
            }
        }
        self.done.retain(|d| d.chid != chid);
    }
}

fn pipe_index(c: Class) -> usize {
    match c {
        Class::Alu => 0,
        Class::F64 => 1,
        Class::Sfu => 2,
        Class::Div => 3,
        Class::Shfl => 4,
        Class::Control | Class::Mem => 5,
    }
}

fn exec<'a, 'b>(
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

/// Interleave sectors over `n` units (L2 banks, DRAM channels), hashing high bits in so
/// that power-of-two strides do not all land on one unit.
fn channel(sector: u64, n: usize) -> usize {
    let h = sector ^ (sector >> 7) ^ (sector >> 13);
    (h % n as u64) as usize
}

/// The shared memory system (L2 banks, DRAM channels) as one memory instruction sees it.
struct MemSys<'a> {
    cfg: &'a DeviceConfig,
    l2: &'a mut Cache,
    banks: &'a mut [u64],
    chans: &'a mut [u64],
    sectors: &'a mut Vec<u64>,
    st: &'a mut KernelStats,
}

impl MemSys<'_> {
    /// The timing of one memory instruction issued at `t` on SM `s` (block `uid`): when
    /// its data is back, and how many cycles it holds the SM's LSU.
    fn access(&mut self, d: &D, p: &MemProbe, t: u64, s: usize, uid: u64, l1: &mut Cache) -> (u64, u64) {
        let MemSys { cfg, l2, banks, chans, sectors, st } = self;
        let cfg: &DeviceConfig = cfg;
        if p.on == 0 {
            return (t + 1, 1);
        }
        let write = d.op == Op::St;
        let atomic = d.op == Op::Atom;
        let sb = (cfg.sector_bytes as u64).max(4);
        let bytes = p.bytes.max(1) as u64;
        let mut done = t + 1;
        let mut busy = 1u64;
        // Shared memory: bank conflicts.
        let mut words: heapless::Vec<u64, 256> = heapless::Vec::new();
        let mut consts: heapless::Vec<u64, 32> = heapless::Vec::new();
        sectors.clear();
        for l in 0..32 {
            if p.on >> l & 1 == 0 {
                continue;
            }
            let a = p.addr[l];
            match p.space[l] {
                Space::Shared => {
                    for w in (a / 4)..(a + bytes).div_ceil(4) {
                        let _ = words.push(w);
                    }
                }
                Space::Const | Space::ConstBank => {
                    if !consts.contains(&a) {
                        let _ = consts.push(a);
                    }
                }
                Space::Local => {
                    // Local memory is interleaved per thread: the same offset of the 32 lanes
                    // of a warp is contiguous (a synthetic address per block and warp).
                    let base = (1u64 << 62) | (s as u64) << 52 | (uid & 0xFFFF_FFFF) << 20;
                    let off = a / 4 * 128 + l as u64 * 4;
                    for sct in (base + off) / sb..=(base + off + bytes - 1) / sb {
                        sectors.push(sct);
                    }
                }
                _ => {
                    for sct in a / sb..=(a + bytes - 1) / sb {
                        sectors.push(sct);
                    }
                }
            }
        }
        if !words.is_empty() {
            // Lanes reading one word share it (broadcast); distinct words in one bank take a
            // cycle each.
            words.sort_unstable();
            let nb = cfg.shared_banks.clamp(1, 64) as u64;
            let mut per_bank = [0u64; 64];
            let mut prev = u64::MAX;
            for &w in words.iter() {
                if w != prev {
                    per_bank[(w % nb) as usize] += 1;
                    prev = w;
                }
            }
            let degree = per_bank.iter().copied().max().unwrap_or(1).max(1);
            st.bank_conflict_cycles += degree - 1;
            done = done.max(t + cfg.shared_latency as u64 + degree - 1);
            busy = busy.max(degree);
        }
        if !consts.is_empty() {
            done = done.max(t + cfg.const_latency as u64 + consts.len() as u64 - 1);
        }
        if sectors.is_empty() {
            return (done, busy);
        }
        // Lanes per sector, for atomics (each lane's update is serialized at the L2).
        let lanes_in = |sct: u64| -> u64 {
            (0..32).filter(|&l| p.on >> l & 1 == 1 && p.addr[l] / sb == sct && p.space[l] != Space::Local).count()
                as u64
        };
        sectors.sort_unstable();
        sectors.dedup();
        let per_cycle = cfg.l1_sectors_per_cycle.max(1) as u64;
        busy = busy.max((sectors.len() as u64).div_ceil(per_cycle));
        let sector_mc = cfg.transfer_mcycles(sb * chans.len() as u64, cfg.dram_mbps);
        let l2_half = cfg.l2_latency as u64 / 2;
        for (i, &sct) in sectors.iter().enumerate() {
            let at = t + i as u64 / per_cycle;
            if !write && !atomic {
                let (hit, _) = l1.access(sct, false, true);
                if hit {
                    st.l1_hits += 1;
                    done = done.max(at + cfg.l1_latency as u64);
                    continue;
                }
                st.l1_misses += 1;
            } else if write {
                // Write-through: update a present line, allocate nothing.
                l1.access(sct, false, false);
            }
            let b = channel(sct, banks.len());
            let ops = if atomic { lanes_in(sct).max(1) } else { 1 };
            let start = (at + l2_half).max(banks[b]);
            banks[b] = start + cfg.l2_bank_cycles as u64 * ops;
            let (hit, evicted) = l2.access(sct, write || atomic, true);
            if let Some(e) = evicted {
                let c = channel(e, chans.len());
                chans[c] = chans[c].max(start * 1000) + sector_mc;
                st.dram_write_bytes += sb;
            }
            let back = cfg.l2_latency as u64 - l2_half;
            let ready = if hit || write {
                // A store miss allocates with a byte mask: no DRAM read.
                if hit {
                    st.l2_hits += 1;
                } else {
                    st.l2_misses += 1;
                }
                banks[b] + back
            } else {
                st.l2_misses += 1;
                st.dram_read_bytes += sb;
                let c = channel(sct, chans.len());
                chans[c] = chans[c].max(start * 1000) + sector_mc;
                chans[c].div_ceil(1000) + cfg.dram_latency as u64 + back
            };
            if !write {
                done = done.max(ready);
            }
        }
        (done, busy)
    }
}
