//! Functional mode's grid table: grids as jobs that run in instruction slices up to the next
//! device event, block by block, warps in order, with the cost formula that gives their
//! cycles.
use super::{
    AddressSpace, BarRed, BlockCheck, ComputeRegs, D, DeviceConfig, Exec, Fault, Flow, GridCheck, GridError,
    INSTR_BYTES, LaunchCtx, Memory, Tlb, Trap, TrapReason, Warp, WarpMem, init_warps,
};
use alloc::vec::Vec;

/// Per-block storage of the functional mode, reused by every block of a grid (registers
/// start undefined in PTX; shared and local memory are cleared).
pub(crate) struct BlockBufs {
    pub(crate) regs: Vec<u64>,
    pub(crate) shared: Vec<u8>,
    pub(crate) local: Vec<u8>,
    pub(crate) warps: Vec<Warp>,
    pub(crate) bar: BarRed,
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
    /// Linear index of the block running (or next to run).
    pub(crate) block: u64,
    /// Within the running block: whose turn it is, and whether this pass moved a warp.
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
        self.start.saturating_add(self.overhead).saturating_add(self.work / sms).saturating_add(self.block)
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
            block,
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
            if *block >= *nblocks {
                break Ok(true);
            }
            let mut at = match *pass {
                Some(p) => p,
                None => {
                    bufs.shared.fill(0);
                    bufs.local.fill(0);
                    bufs.bar = BarRed::default();
                    init_warps(&mut bufs.warps, *threads, r.start / INSTR_BYTES as u32);
                    if let Some(b) = x.bcheck.as_deref_mut() {
                        b.reset();
                    }
                    (0, false)
                }
            };
            let i = *first + *block;
            let (gx, gy) = (r.grid[0] as u64, r.grid[1] as u64);
            let ctaid = [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32];
            x.smid = (i % sms) as u32;
            match warp_pass(&mut x, bufs, &mut at, ctaid, limit) {
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
            let warps = &mut bufs.warps;
            if warps.iter().all(|w| w.done) {
                *block += 1;
                *pass = None;
                continue;
            }
            if warps.iter().filter(|w| !w.done).all(|w| w.at_barrier) {
                for w in warps.iter_mut() {
                    w.at_barrier = false;
                }
                if let Some(b) = x.bcheck.as_deref_mut() {
                    b.interval += 1;
                }
            } else if !progressed {
                // Every live warp spins, or waits at a barrier for one that does: nothing
                // changes until memory does (the host, another engine). The rest of the
                // slice is spent spinning; the watchdog counts it.
                let to = limit.min(budget.saturating_add(1)).max(x.instrs);
                *idle += to - x.instrs;
                x.instrs = to;
                *pass = Some((0, false));
                if x.instrs > budget {
                    let pc = warps.iter().find(|w| w.parked.is_some()).and_then(|w| w.stack.last()).map_or(0, |f| f.pc);
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

/// One pass over the warps of block `ctaid` from warp `at.0` on, each until it waits at a
/// barrier, ends or spins (`at.1`: whether the pass moved a warp). False when the slice
/// ends (`x.instrs` reaches `limit`) first: `at` is where the pass goes on.
#[inline(always)]
fn warp_pass(
    x: &mut Exec,
    bufs: &mut BlockBufs,
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
            let mut m = WarpMem { regs: &mut *wr, shared: &mut bufs.shared, local: &mut *wl, bar: &mut bufs.bar };
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
