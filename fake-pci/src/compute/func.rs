//! Functional mode's grid table: grids as jobs that run in instruction slices up to the next
//! device event, block by block, warps in order, with the cost formula that gives their
//! cycles.
//!
//! A block runs until it ends, unless it stalls: every live warp spins (or waits at a barrier
//! for one that does). A stalled block stays resident, as on the hardware, and the grid
//! starts its next block beside it, up to the blocks the device holds at once (`per_sm` on
//! each SM); when none may start, the resident blocks take turns. Grid-wide barriers
//! (cooperative groups' `grid.sync()`) and blocks that wait for a flag an earlier block sets
//! work as they do on a GPU; a grid whose resident blocks all wait for one that cannot start
//! deadlocks as it would there, and meets the watchdog.
use super::cluster::{self, ClusterMem};
use super::{
    AddressSpace, BarRed, BlockCheck, ComputeRegs, D, DeviceConfig, Exec, Fault, Flow, GridCheck, GridError,
    INSTR_BYTES, LaunchCtx, Memory, Tlb, Trap, TrapReason, Warp, WarpMem, init_warps, try_zeroed,
};
use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

/// The most bytes the buffers of a grid's resident blocks take together: a grid parks no
/// further block beyond it (a host-side bound, far above what grid-wide barriers need).
const RESIDENT_BYTES: usize = 1 << 30;

/// Per-block storage of the functional mode, reused by every block of a grid (registers
/// start undefined in PTX; shared and local memory are cleared).
pub(crate) struct BlockBufs {
    pub(crate) regs: Vec<u64>,
    pub(crate) shared: Vec<u8>,
    pub(crate) local: Vec<u8>,
    pub(crate) warps: Vec<Warp>,
    pub(crate) bar: BarRed,
    /// The block's `barrier.cluster` when it is not part of a larger cluster.
    pub(crate) csync: cluster::ClusterSync,
    /// The block's named barriers.
    pub(crate) named: super::named::NamedBars,
}

impl BlockBufs {
    /// Storage of the same sizes, cleared, for another block.
    fn like(&self) -> Result<Self, GridError> {
        Ok(Self {
            regs: try_zeroed(self.regs.len())?,
            shared: try_zeroed(self.shared.len())?,
            local: try_zeroed(self.local.len())?,
            warps: Vec::new(),
            bar: BarRed::default(),
            csync: self.csync.clone(),
            named: self.named.clone(),
        })
    }

    /// Host bytes the storage takes.
    fn bytes(&self) -> usize {
        self.regs.len() * 8 + self.shared.len() + self.local.len()
    }
}

/// A block started and not finished, waiting while another runs.
pub(crate) struct Resident {
    /// Its index within the launch.
    block: u64,
    bufs: BlockBufs,
    bcheck: Option<BlockCheck>,
}

/// A grid of the functional mode. Its blocks run one after another, a block's warps in
/// turn, each until it waits at a barrier, ends or spins (a spinning warp lets the others
/// run). It runs in slices of instructions and can stop after any instruction, so the
/// device stays responsive and the watchdog counts what it executes. Time: the launch
/// overhead, the instructions spread over the SMs, and a cycle a block (as before slices).
pub(crate) struct FuncGrid {
    pub(crate) chid: u32,
    pub(crate) seq: u64,
    pub(crate) space: AddressSpace,
    pub(crate) r: ComputeRegs,
    pub(crate) banks: Vec<Vec<u8>>,
    pub(crate) code: Vec<Option<D>>,
    pub(crate) span: Vec<u8>,
    pub(crate) threads: u32,
    /// The flattened id of the first block the launch runs (its range's start).
    pub(crate) first: u64,
    /// Blocks the launch runs.
    pub(crate) nblocks: u64,
    pub(crate) per_sm: u32,
    pub(crate) nregs: usize,
    pub(crate) bufs: BlockBufs,
    /// The sanitizer's state of the grid and of the block running.
    pub(crate) check: Option<GridCheck>,
    pub(crate) bcheck: Option<BlockCheck>,
    /// Blocks finished.
    pub(crate) finished: u64,
    /// Index within the launch of the block in `bufs`, and of the next block to start.
    pub(crate) block: u64,
    pub(crate) next: u64,
    /// The other blocks started and not finished, in turn order.
    pub(crate) resident: VecDeque<Resident>,
    /// Resident blocks found stalled in a row (every one of them: the grid waits for memory
    /// to change).
    pub(crate) stalled: usize,
    /// The clusters started and not finished, by index (launches with clusters of more
    /// than one block: their shared memory and barrier).
    pub(crate) clusters: BTreeMap<u64, ClusterMem>,
    /// Within the running block: whose turn it is, and whether this pass moved a warp
    /// (`None`: block `next` starts in `bufs`).
    pub(crate) pass: Option<(usize, bool)>,
    /// Instructions executed plus those a spinning block was charged (time, watchdog).
    pub(crate) work: u64,
    /// Of `work`, charged to spinning rather than executed.
    pub(crate) idle: u64,
    pub(crate) thread_instrs: u64,
    /// Cycle the grid started running (its launch, or the end of the grid before it).
    pub(crate) start: u64,
    /// Cycles from `start` to the first block ([`super::launch_overhead`]).
    pub(crate) overhead: u64,
    /// Parked by a replayable fault: the fault and the grid's cycle then.
    pub(crate) waiting: Option<(Fault, u64)>,
    /// Cancelled while parked: it fails with this fault at its next turn.
    pub(crate) cancelled: Option<Fault>,
    /// Replayable faults recorded.
    pub(crate) replayable_faults: u64,
}

impl FuncGrid {
    /// The cycle the grid has reached.
    pub(crate) fn cycle(&self, cfg: &DeviceConfig) -> u64 {
        let sms = cfg.board.sms.max(1) as u64;
        self.start.saturating_add(self.overhead).saturating_add(self.work / sms).saturating_add(self.finished)
    }

    /// The cycle a finished grid ends.
    pub(crate) fn end(&self, cfg: &DeviceConfig) -> u64 {
        let sms = cfg.board.sms.max(1) as u64;
        self.start.saturating_add(self.overhead).saturating_add(self.work.div_ceil(sms)) + self.nblocks
    }

    /// Warp instructions executed.
    pub(crate) fn instructions(&self) -> u64 {
        self.work - self.idle
    }

    /// Run until `work` reaches `limit`; true once the grid has finished.
    pub(crate) fn run(
        &mut self,
        mem: &mut Memory,
        tlb: &mut Tlb,
        cfg: &DeviceConfig,
        limit: u64,
    ) -> Result<bool, GridError> {
        let sms = cfg.board.sms.max(1) as u64;
        let budget = match cfg.watchdog_cycles {
            0 => u64::MAX, // no watchdog
            w => w.saturating_mul(sms),
        };
        let capacity = (self.per_sm as u64).saturating_mul(sms);
        let cn = cluster::shape(&self.r).1 as u64;
        let FuncGrid {
            space,
            r,
            banks,
            code,
            span,
            threads,
            first,
            nblocks,
            nregs,
            bufs,
            check,
            bcheck,
            finished,
            block,
            next,
            resident,
            stalled,
            clusters,
            pass,
            work,
            idle,
            thread_instrs,
            start,
            ..
        } = self;
        let mut cx = LaunchCtx { mem, tlb, space: *space, cfg, now_ns: cfg.cycles_to_ns(*start), now: *start };
        let mut x = Exec {
            cx: &mut cx,
            r,
            code,
            banks,
            nregs: *nregs,
            instrs: *work,
            thread_instrs: 0,
            budget,
            span,
            smid: 0,
            probe: None,
            check: check.as_mut(),
            bcheck: bcheck.as_mut(),
        };
        let result = loop {
            if *finished >= *nblocks {
                break Ok(true);
            }
            let mut at = match *pass {
                Some(p) => p,
                None => {
                    bufs.shared.fill(0);
                    bufs.local.fill(0);
                    bufs.bar = BarRed::default();
                    bufs.csync = cluster::ClusterSync::block(*threads);
                    bufs.named = super::named::NamedBars::new(threads.div_ceil(32) as usize);
                    init_warps(&mut bufs.warps, *threads, x.r.start / INSTR_BYTES as u32);
                    if let Some(b) = x.bcheck.as_deref_mut() {
                        b.reset();
                    }
                    (*block, *next) = (*next, *next + 1);
                    let i = *first + *block;
                    if cn > 1 && !clusters.contains_key(&(i / cn)) {
                        match ClusterMem::new(x.r, *threads) {
                            Ok(c) => clusters.insert(i / cn, c),
                            Err(e) => break Err(e),
                        };
                    }
                    (0, false)
                }
            };
            let i = *first + *block;
            let ctaid = cluster::dispatch_ctaid(x.r, i);
            x.smid = cluster::functional_sm(x.cx.cfg, i, cn);
            let cl = clusters.get_mut(&(i / cn)).filter(|_| cn > 1);
            match warp_pass(&mut x, bufs, (cl, (i % cn) as u32), &mut at, ctaid, limit) {
                Ok(true) => {}
                Ok(false) => {
                    *pass = Some(at);
                    break Ok(false);
                }
                Err(e @ GridError::Replay(_)) => {
                    // The warp's instruction did nothing: the pass resumes at it.
                    *pass = Some(at);
                    break Err(e);
                }
                Err(e) => break Err(e),
            }
            let progressed = at.1;
            if bufs.warps.iter().all(|w| w.done) {
                *finished += 1;
                if let Some(c) = clusters.get_mut(&(i / cn)).filter(|_| cn > 1) {
                    c.left -= 1;
                    if c.left == 0 {
                        clusters.remove(&(i / cn));
                    }
                }
                *stalled = 0;
                // A resident block goes on before a new one starts.
                *pass = match resident.pop_front() {
                    Some(b) => {
                        switch(&mut x, bufs, block, b);
                        Some((0, false))
                    }
                    None => None,
                };
                continue;
            }
            if bufs.warps.iter().filter(|w| !w.done).all(|w| w.at_barrier) {
                for w in bufs.warps.iter_mut() {
                    w.at_barrier = false;
                }
                if let Some(b) = x.bcheck.as_deref_mut() {
                    b.interval += 1;
                }
                *stalled = 0;
            } else if progressed {
                *stalled = 0;
            } else {
                // Every live warp spins, or waits at a barrier for one that does: nothing
                // changes for this block until memory does. Another block starts beside it
                // while the device holds more, or a resident one takes its turn.
                *stalled += 1;
                let held = resident.len() as u64 + 1;
                let room = *next < *nblocks && held < capacity && (held as usize + 1) * bufs.bytes() <= RESIDENT_BYTES;
                if let Some(fresh) = room.then(|| bufs.like().ok()).flatten() {
                    let parked = Resident {
                        block: *block,
                        bufs: core::mem::replace(bufs, fresh),
                        bcheck: x.bcheck.as_deref_mut().map(|b| {
                            let f = b.fresh();
                            core::mem::replace(b, f)
                        }),
                    };
                    resident.push_back(parked);
                    *stalled = 0;
                    *pass = None;
                    continue;
                }
                if *stalled <= resident.len() {
                    let b = resident.pop_front().expect("a resident block");
                    let parked = switch(&mut x, bufs, block, b);
                    resident.push_back(parked);
                    *pass = Some((0, false));
                    continue;
                }
                // Every resident block is stalled: the rest of the slice is spent spinning
                // (the host or another engine may write memory); the watchdog counts it.
                *stalled = 0;
                let to = limit.min(budget.saturating_add(1)).max(x.instrs);
                *idle += to - x.instrs;
                x.instrs = to;
                *pass = Some((0, false));
                if x.instrs > budget {
                    let pc =
                        bufs.warps.iter().find(|w| w.parked.is_some()).and_then(|w| w.stack.last()).map_or(0, |f| f.pc);
                    break Err(GridError::Trap(Trap { reason: TrapReason::Watchdog, pc }));
                }
                break Ok(false);
            }
            *pass = Some((0, false));
        };
        *work = x.instrs;
        *thread_instrs += x.thread_instrs;
        result
    }
}

/// Put resident block `b` in the running block's place; returns the running block, now
/// resident.
fn switch(x: &mut Exec, bufs: &mut BlockBufs, block: &mut u64, b: Resident) -> Resident {
    let Resident { block: id, bufs: mut bb, bcheck: mut bc } = b;
    core::mem::swap(bufs, &mut bb);
    if let (Some(cur), Some(other)) = (x.bcheck.as_deref_mut(), bc.as_mut()) {
        core::mem::swap(cur, other);
    }
    Resident { block: core::mem::replace(block, id), bufs: bb, bcheck: bc }
}

/// One pass over the warps of block `ctaid` from warp `at.0` on, each until it waits at a
/// barrier, ends or spins (`at.1`: whether the pass moved a warp). False when the slice
/// ends (`x.instrs` reaches `limit`) first: `at` is where the pass goes on.
#[inline(always)]
fn warp_pass(
    x: &mut Exec,
    bufs: &mut BlockBufs,
    (mut cl, rank): (Option<&mut ClusterMem>, u32),
    at: &mut (usize, bool),
    ctaid: [u32; 3],
    limit: u64,
) -> Result<bool, GridError> {
    let (nregs, local_size) = (x.nregs, x.r.local_size as usize);
    let nwarps = bufs.warps.len();
    while at.0 < nwarps {
        let w = at.0;
        let epoch = x.cx.mem.epoch;
        let warp = &mut bufs.warps[w];
        if warp.done || warp.at_barrier || warp.parked == Some(epoch) {
            at.0 += 1;
            continue;
        }
        warp.parked = None;
        at.1 = true;
        let wr = &mut bufs.regs[w * nregs * 32..(w + 1) * nregs * 32];
        let wl = &mut bufs.local[w * local_size * 32..(w + 1) * local_size * 32];
        loop {
            if x.instrs >= limit {
                return Ok(false);
            }
            let (shared, sync) = match cl.as_deref_mut() {
                Some(c) => (&mut c.shared[..], &mut c.sync),
                None => (&mut bufs.shared[..], &mut bufs.csync),
            };
            let mut m = WarpMem {
                regs: &mut *wr,
                shared,
                rank,
                cluster: sync,
                named: &mut bufs.named,
                local: &mut *wl,
                bar: &mut bufs.bar,
            };
            match x.step(warp, (w as u32, nwarps as u32, ctaid), &mut m)? {
                Flow::Next => {}
                Flow::Spin => {
                    warp.parked = Some(x.cx.mem.epoch);
                    break;
                }
                Flow::Barrier | Flow::Done => break,
            }
        }
        at.0 += 1;
    }
    Ok(true)
}
