//! SIMT control: warps with their reconvergence stacks and call stacks, guards, branches,
//! barriers, calls and exits, and spin detection; data instructions go to the ALU and the
//! load/store unit.
use super::{
    ALWAYS, AccessKind, BAR_NAMED, BAR_WARP, BlockCheck, BranchTarget, CheckKind, ComputeRegs, D, GridCheck, GridError,
    LaunchCtx, MAX_CALL_DEPTH, Op, RZ, Space, Trap, TrapReason, WARP_SIZE, Who, linear, operand, put, tensor,
};
use alloc::vec::Vec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) pc: u32,
    pub(crate) mask: u32,
    pub(crate) rpc: u32,
}

pub(crate) struct Warp {
    pub(crate) stack: Vec<Frame>,
    pub(crate) exited: u32,
    pub(crate) at_barrier: bool,
    pub(crate) done: bool,
    /// Lanes that hold a thread.
    pub(crate) lanes: u32,
    /// Thread index of lane 0.
    pub(crate) base: u32,
    /// Return addresses of the calls in progress.
    pub(crate) calls: Vec<u32>,
    /// Spin detection.
    pub(crate) spin: SpinProbe,
    /// Functional mode: the memory epoch at which the warp was found spinning; it waits
    /// for memory to change while the others run.
    pub(crate) parked: Option<u64>,
    /// The memory epoch at which a spinning path of the warp last yielded to its sibling
    /// path (independent thread scheduling).
    pub(crate) yielded: Option<u64>,
    /// Barriers the warp has arrived at (their numbers, for [`BarRed`]'s slots).
    pub(crate) bars: u32,
    /// A `bar.red` whose barrier the warp waited at: on its release the warp executes the
    /// instruction again, which writes the result.
    pub(crate) red_pending: bool,
    /// The tensor core's operand buffer of the warp (empty until it multiplies).
    pub(crate) tensor: Vec<u64>,
    /// Warp barriers (`bar.warp.sync`): lanes waiting at one for lanes on another path,
    /// and lanes whose wait is over (they pass when their path resumes).
    pub(crate) wsync: [u32; 2],
    /// Lanes that exited where paths meet ([`Exec::settle`]), not yet counted out of the
    /// cluster barrier (the warp's next step does), and the thread instructions they would
    /// have executed to their `EXIT` (the statistics count them).
    pub(crate) leaving: u32,
    pub(crate) left_instrs: u32,
    /// Every lane that exited so: synccheck still counts it in a barrier's warp (it would
    /// have waited at the reconvergence point on earlier GPUs, and compute-sanitizer
    /// reports a barrier the other lanes skipped).
    pub(crate) parted: u32,
}

/// Backward branches with memory unchanged before the first snapshot of a warp's state.
pub(crate) const SPIN_QUIET: u32 = 8;
/// Most backward branches between snapshots of a loop that makes progress.
pub(crate) const SPIN_BACKOFF_MAX: u32 = 1 << 12;

/// Detects a warp spinning in place: after a backward branch its whole state (registers,
/// reconvergence stack, calls, exited lanes) equals the state after an earlier one, at the
/// same instruction, and nothing anywhere wrote memory in between (the [`Memory::epoch`]
/// stood still). Such a warp repeats the same iteration forever, changing nothing, until
/// something writes memory. Loops that make progress are checked ever less often (the
/// interval doubles up to [`SPIN_BACKOFF_MAX`]), so they pay almost nothing. Reads of
/// `%clock` or `%globaltimer` change registers, so clock-timed waits are not spins.
#[derive(Default)]
pub(crate) struct SpinProbe {
    epoch: u64,
    quiet: u32,
    next: u32,
    backoff: u32,
    snap: Option<Snapshot>,
}

#[derive(Default)]
pub(crate) struct Snapshot {
    pc: u32,
    regs: Vec<u64>,
    stack: Vec<Frame>,
    calls: Vec<u32>,
    exited: u32,
}

impl SpinProbe {
    /// After a backward branch, at `pc` (the warp's next instruction) and memory epoch
    /// `epoch`: whether the warp is spinning.
    fn check(&mut self, pc: u32, stack: &[Frame], calls: &[u32], exited: u32, regs: &[u64], epoch: u64) -> bool {
        if epoch != self.epoch {
            (self.epoch, self.quiet, self.next, self.backoff) = (epoch, 0, SPIN_QUIET, SPIN_QUIET);
            self.snap = None;
            return false;
        }
        self.quiet = self.quiet.saturating_add(1);
        if let Some(s) = &self.snap {
            if s.pc != pc {
                return false;
            }
            if s.exited == exited && s.stack == stack && s.calls == calls && s.regs == regs {
                return true;
            }
            // A loop making progress without writing: look again later, less often.
            self.backoff = (self.backoff.max(1) * 2).min(SPIN_BACKOFF_MAX);
            self.next = self.quiet.saturating_add(self.backoff);
            self.snap = None;
            return false;
        }
        if self.quiet >= self.next {
            let mut s = Snapshot { pc, exited, ..Snapshot::default() };
            s.regs.extend_from_slice(regs);
            s.stack.extend_from_slice(stack);
            s.calls.extend_from_slice(calls);
            self.snap = Some(s);
        }
        false
    }
}

/// The executor: runs instructions of one grid's warps against memory. The functional
/// mode builds one per grid; the timing model builds one per issue.
pub(crate) struct Exec<'a, 'b> {
    pub(crate) cx: &'b mut LaunchCtx<'a>,
    pub(crate) r: &'b ComputeRegs,
    pub(crate) code: &'b mut Vec<Option<D>>,
    pub(crate) banks: &'b [Vec<u8>],
    pub(crate) nregs: usize,
    pub(crate) instrs: u64,
    pub(crate) thread_instrs: u64,
    pub(crate) budget: u64,
    /// Staging for coalesced accesses (at least 4 KiB).
    pub(crate) span: &'b mut Vec<u8>,
    /// SM the current block runs on.
    pub(crate) smid: u32,
    /// Where the timing model wants the addresses of a memory instruction.
    pub(crate) probe: Option<&'b mut MemProbe>,
    /// The sanitizer's state of the grid and of the block running (checked launches).
    pub(crate) check: Option<&'b mut GridCheck>,
    pub(crate) bcheck: Option<&'b mut BlockCheck>,
}

/// The addresses a memory instruction touched, for the timing model.
#[derive(Clone, Debug)]
pub(crate) struct MemProbe {
    /// Lanes that accessed memory.
    pub(crate) on: u32,
    /// Resolved address per lane (in its space).
    pub(crate) addr: [u64; 32],
    /// Resolved space per lane.
    pub(crate) space: [Space; 32],
    /// Bytes per lane.
    pub(crate) bytes: u32,
    /// Texture fetches (TEX, TLD4): the address of every texel read, all lanes, each of
    /// `bytes` bytes.
    pub(crate) texels: Vec<u64>,
    /// Texture fetches: filter cycles the warp needs of one texture unit (a lane's
    /// footprint of up to four texels takes one).
    pub(crate) samples: u32,
}

impl Default for MemProbe {
    fn default() -> Self {
        Self { on: 0, addr: [0; 32], space: [Space::Global; 32], bytes: 0, texels: Vec::new(), samples: 0 }
    }
}

/// What one issued instruction did to its warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// The warp can go on.
    Next,
    /// The warp waits at a barrier.
    Barrier,
    /// The warp has ended.
    Done,
    /// The warp took a backward branch into a state it was in before, with memory
    /// unchanged: it is spinning (see [`SpinProbe`]). It may go on.
    Spin,
}

/// Where a warp is in its grid: what special registers and sanitizer records need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpPos {
    /// The warp's first thread in its block.
    pub(crate) base: u32,
    /// The warp's index in its block, and the block's warps.
    pub(crate) warpid: u32,
    pub(crate) nwarps: u32,
    /// The block's coordinates in the grid.
    pub(crate) ctaid: [u32; 3],
}

/// The storage a warp's instructions read and write: its registers (register-major, 32
/// lanes each), its block's shared memory, and its lanes' local memory (the lanes'
/// windows one after another).
pub(crate) struct WarpMem<'m> {
    pub(crate) regs: &'m mut [u64],
    /// The cluster's shared memory, its blocks' in rank order (a block alone: its own).
    pub(crate) shared: &'m mut [u8],
    /// The block's rank in its cluster, and the cluster's barrier (a block alone: its own).
    pub(crate) rank: u32,
    pub(crate) cluster: &'m mut super::cluster::ClusterSync,
    /// The block's named barriers.
    pub(crate) named: &'m mut super::named::NamedBars,
    pub(crate) local: &'m mut [u8],
    pub(crate) bar: &'m mut BarRed,
}

/// A block's barrier reductions (`bar.red.popc/and/or`): the lanes that arrived with the
/// predicate true and false, in two slots by the parity of the barrier's number (a warp
/// reads its result after the release, and no warp reaches the barrier after next before
/// every warp has read), each with the barrier number that last cleared it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BarRed {
    counts: [[u32; 2]; 2],
    cleared: [u32; 2],
}

/// Set up the warps of a block of `threads` threads starting at instruction `pc`.
pub(crate) fn init_warps(warps: &mut Vec<Warp>, threads: u32, pc: u32) {
    let nwarps = threads.div_ceil(WARP_SIZE) as usize;
    warps.resize_with(nwarps, || Warp {
        stack: Vec::new(),
        exited: 0,
        at_barrier: false,
        done: false,
        lanes: 0,
        base: 0,
        calls: Vec::new(),
        spin: SpinProbe::default(),
        parked: None,
        yielded: None,
        bars: 0,
        red_pending: false,
        tensor: Vec::new(),
        wsync: [0; 2],
        leaving: 0,
        left_instrs: 0,
        parted: 0,
    });
    for (w, warp) in warps.iter_mut().enumerate() {
        let base = w as u32 * 32;
        let n = (threads - base).min(32);
        let lanes = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        warp.stack.clear();
        warp.stack.push(Frame { pc, mask: lanes, rpc: u32::MAX });
        warp.calls.clear();
        warp.spin = SpinProbe::default();
        warp.parked = None;
        (warp.bars, warp.red_pending, warp.wsync) = (0, false, [0; 2]);
        (warp.leaving, warp.left_instrs, warp.parted) = (0, 0, 0);
        (warp.exited, warp.at_barrier, warp.done, warp.lanes, warp.base) = (0, false, false, lanes, base);
    }
}

impl Warp {
    /// Set the program counter of the warp's top frame.
    #[inline(always)]
    pub(crate) fn goto(&mut self, pc: u32) {
        if let Some(t) = self.stack.last_mut() {
            t.pc = pc;
        }
    }
}

impl Exec<'_, '_> {
    /// The instructions lanes at `pc` execute to exit (an unguarded `EXIT`, after at most
    /// three unguarded branches: a `ret` is a branch to the function's exit block), or
    /// `None` when they do more.
    fn exits_at(&mut self, mut pc: u32) -> Result<Option<u32>, GridError> {
        for n in 1..=4 {
            let d = self.fetch(pc)?;
            match d.op {
                _ if d.guard != ALWAYS => return Ok(None),
                Op::Exit => return Ok(Some(n)),
                Op::Bra => pc = hw::isa::BranchTarget::from(d.imm).target(),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Lanes `gone` of warp `at` (in the cluster) exit: they count as arrived at the
    /// cluster barrier from now on; memory changes when that completes its phase.
    fn leave(&mut self, m: &mut WarpMem, at: usize, gone: u32) {
        if m.cluster.exit(at, gone) {
            self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
        }
    }

    /// The warp's top frame once finished reconvergence frames are popped; `None` when the
    /// warp has ended. Lanes that reach a reconvergence point from which they exit (an
    /// `EXIT`, or branches to one) exit there and then, as threads do from Volta on, rather
    /// than wait for the lanes still on another path, which may be waiting for them at a
    /// cluster barrier ([`Warp::leaving`]).
    #[inline(always)]
    pub(crate) fn settle(&mut self, w: &mut Warp) -> Result<Option<Frame>, GridError> {
        loop {
            let Some(top) = w.stack.last().copied() else { return Ok(None) };
            if top.pc == top.rpc || top.mask & !w.exited == 0 {
                w.stack.pop();
                let gone = top.mask & !w.exited;
                // (Only while another path runs: lanes all meeting there exit together.)
                let apart = w.stack.last().is_some_and(|f| f.pc != top.pc);
                if gone != 0
                    && top.pc == top.rpc
                    && apart
                    && let Some(n) = self.exits_at(top.pc)?
                {
                    w.exited |= gone;
                    w.leaving |= gone;
                    w.parted |= gone;
                    w.left_instrs += n * gone.count_ones();
                }
                continue;
            }
            return Ok(Some(top));
        }
    }

    /// Execute one instruction of warp `w` (number `warpid` of `nwarps` in block `ctaid`).
    #[inline(always)]
    pub(crate) fn step(
        &mut self,
        w: &mut Warp,
        (warpid, nwarps, ctaid): (u32, u32, [u32; 3]),
        m: &mut WarpMem,
    ) -> Result<Flow, GridError> {
        let top = self.settle(w)?;
        if w.leaving != 0 {
            let gone = core::mem::take(&mut w.leaving);
            self.thread_instrs += core::mem::take(&mut w.left_instrs) as u64;
            self.leave(m, (m.rank * nwarps + warpid) as usize, gone);
        }
        let Some(top) = top else {
            w.done = true;
            return Ok(Flow::Done);
        };
        let pc = top.pc;
        let d = self.fetch(pc)?;
        self.instrs += 1;
        if self.instrs > self.budget {
            return Err(GridError::Trap(Trap { reason: TrapReason::Watchdog, pc }));
        }
        let active = top.mask & !w.exited;
        let on = if d.guard == ALWAYS {
            active
        } else {
            let g = &m.regs[d.guard as usize * 32..][..32];
            let mut taken = 0u32;
            for (l, v) in g.iter().enumerate() {
                if active >> l & 1 == 1 && ((v & 1 == 1) ^ d.neg) {
                    taken |= 1 << l;
                }
            }
            taken
        };
        self.thread_instrs += on.count_ones() as u64;
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let next = pc + 1;
        match d.op {
            Op::Bra => return Ok(self.branch(w, d, pc, (on, active), m.regs)),
            Op::Exit => {
                self.leave(m, (m.rank * nwarps + warpid) as usize, on & !w.exited);
                w.exited |= on;
                if w.exited & w.lanes == w.lanes {
                    w.done = true;
                    w.stack.clear();
                    return Ok(Flow::Done);
                }
                w.goto(next);
                return Ok(Flow::Next);
            }
            Op::Bar if d.m & BAR_WARP != 0 => return Ok(self.warp_barrier(w, d, (pc, on), m.regs)),
            Op::Bar if d.m & BAR_NAMED != 0 => return self.named_barrier(w, d, (pc, on, warpid), m.named, m.regs),
            Op::Bar if d.m & 3 != 0 => return Ok(self.barrier_red(w, d, (pc, on), ctaid, m)),
            Op::Bar => {
                w.goto(next);
                w.bars = w.bars.wrapping_add(1);
                return Ok(self.barrier(w, pc, on, ctaid));
            }
            Op::Cluster if d.m == hw::isa::ClusterOp::Wait as u16 => {
                // The cluster barrier: the warp goes on once the phase it arrived in
                // has completed; until then it spins here (memory changes when the
                // last thread arrives).
                let at = (m.rank * nwarps + warpid) as usize;
                if m.cluster.passed(at) {
                    if m.cluster.first_past(m.rank)
                        && let Some(b) = self.bcheck.as_deref_mut()
                    {
                        b.interval += 1;
                    }
                    w.goto(next);
                    return Ok(Flow::Next);
                }
                return Ok(Flow::Spin);
            }
            Op::Trap if on != 0 && d.m == 1 => return Err(trap(TrapReason::InvalidPc)),
            Op::Trap if on != 0 => return Err(trap(TrapReason::Trap)),
            Op::Call => {
                // Calls are made by every active lane (the compiler emits them unguarded).
                if on != active || w.calls.len() >= MAX_CALL_DEPTH {
                    return Err(trap(TrapReason::IllegalInstruction));
                }
                w.calls.push(next);
                w.goto(d.imm as u32);
                return Ok(Flow::Next);
            }
            Op::Ret => {
                let Some(ret) = w.calls.pop() else { return Err(trap(TrapReason::IllegalInstruction)) };
                w.goto(ret);
                return Ok(Flow::Next);
            }
            _ => {}
        }
        w.goto(next);
        if on == 0 {
            return Ok(Flow::Next);
        }
        let pos = WarpPos { base: w.base, warpid, nwarps, ctaid };
        if d.op == Op::Mma {
            return match tensor::execute(&d, on, &mut w.tensor, m.regs) {
                Some(()) => Ok(Flow::Next),
                None => Err(trap(TrapReason::IllegalInstruction)),
            };
        }
        let mark = self.cx.mem.gate.mark();
        if let Err(e) = self.execute(d, pc, (on, active), pos, m) {
            if matches!(e, GridError::Replay(_)) || self.cx.mem.gate.waited_since(mark) {
                // Not executed: the replay (or the machine's next open slice, for memory
                // behind its closed gate: crate::gate) issues this instruction again.
                w.goto(pc);
            }
            return Err(e);
        }
        Ok(Flow::Next)
    }

    /// Branch `d` (at `pc`) of lanes `on` of `active`: taken by all, by none, or split
    /// (both paths pushed, to reconverge where the branch says). A backward branch after
    /// which nothing has changed since the last time is a spin (with a watchdog on); from
    /// compute capability 7.0 a spinning path yields to its sibling path.
    #[inline(always)]
    fn branch(&mut self, w: &mut Warp, d: D, pc: u32, (on, active): (u32, u32), regs: &[u64]) -> Flow {
        let bt = BranchTarget::from(d.imm);
        let (target, rpc, next) = (bt.target(), bt.reconverge(), pc + 1);
        let not_taken = active & !on;
        if on == 0 {
            w.goto(next);
        } else if not_taken == 0 {
            w.goto(target);
        } else {
            w.goto(rpc);
            w.stack.push(Frame { pc: next, mask: not_taken, rpc });
            w.stack.push(Frame { pc: target, mask: on, rpc });
        }
        if target <= pc && self.cx.cfg.watchdog_cycles != 0 {
            let Warp { spin, stack, calls, exited, yielded, .. } = w;
            let at = stack.last().map_or(u32::MAX, |f| f.pc);
            let epoch = self.cx.mem.epoch;
            if spin.check(at, stack, calls, *exited, regs, epoch) {
                // Independent thread scheduling (compute capability 7.0 on): a path of a
                // diverged warp that spins lets the other path of its branch run, which may
                // be what it waits for (a lane that arrives on a barrier, releases a lock);
                // the warp spins when both paths did with nothing written in between.
                // Earlier GPUs keep the order, and such a warp waits for ever, as theirs do.
                let n = stack.len();
                if self.cx.cfg.board.cc_major >= 7 && n >= 2 && stack[n - 1].rpc == stack[n - 2].rpc {
                    stack.swap(n - 1, n - 2);
                    if *yielded != Some(epoch) {
                        *yielded = Some(epoch);
                        return Flow::Next;
                    }
                }
                return Flow::Spin;
            }
        }
        Flow::Next
    }

    /// `bar.warp.sync mask` (at `pc`) reached by lanes `on`: they go on once every live
    /// lane of the mask has reached a warp barrier. Lanes of the mask on the sibling path of
    /// a branch are waited for from compute capability 7.0 (independent thread scheduling):
    /// this path stays at the barrier and the sibling runs, until it arrives at a warp
    /// barrier (which releases both) or reaches the reconvergence point. Lanes that will not
    /// come (exited, outside the warp, or on no path that can run first) are not waited for:
    /// in a converged warp the barrier only orders memory, which the model always does.
    fn warp_barrier(&mut self, w: &mut Warp, d: D, (pc, on): (u32, u32), regs: &[u64]) -> Flow {
        let [waiting, released] = &mut w.wsync;
        if on == 0 || on & *released == on {
            *released &= !on;
            w.goto(pc + 1);
            return Flow::Next;
        }
        let mask = operand(&d, 0, on.trailing_zeros() as usize, regs) as u32;
        let missing = mask & w.lanes & !w.exited & !on & !*waiting;
        let n = w.stack.len();
        let sibling = n >= 2 && w.stack[n - 1].rpc == w.stack[n - 2].rpc && w.stack[n - 2].mask & missing != 0;
        if missing != 0 && sibling && self.cx.cfg.board.cc_major >= 7 {
            *waiting |= on;
            w.stack.swap(n - 1, n - 2);
            return Flow::Next;
        }
        // All here, or nobody left to wait for: the waiting lanes of the mask are released.
        *released |= *waiting & mask & !on;
        *waiting &= !(mask | on);
        w.goto(pc + 1);
        Flow::Next
    }

    /// `bar.sync` (at `pc`) reached by lanes `on` of warp `w` of block `ctaid`: the warp
    /// waits at the barrier (synccheck reports lanes of the warp that do not reach it).
    #[inline(always)]
    /// `bar.red.{popc,and,or}` (m[1:0] 1, 2, 3; predicate a, result dst): at arrival the
    /// warp adds its active lanes' predicates to the block's count for this barrier and
    /// waits, staying at the instruction; after the release it executes it again and
    /// writes the count (popc), whether every arrived thread's predicate was true (and) or
    /// any was (or) to its lanes.
    fn barrier_red(&mut self, w: &mut Warp, d: D, (pc, on): (u32, u32), ctaid: [u32; 3], m: &mut WarpMem) -> Flow {
        let slot = (w.bars & 1) as usize;
        if w.red_pending {
            // The release: the result, and the instruction counted once.
            w.red_pending = false;
            self.instrs -= 1;
            self.thread_instrs -= on.count_ones() as u64;
            let [t, f] = m.bar.counts[slot];
            let v = match d.m & 3 {
                1 => t as u64,
                2 => (f == 0) as u64,
                _ => (t != 0) as u64,
            };
            if d.dst != RZ {
                put(d.dst, on, &[v; 32], m.regs);
            }
            w.bars = w.bars.wrapping_add(1);
            w.goto(pc + 1);
            return Flow::Next;
        }
        // The first warp at barrier number `bars` clears the slot two barriers on.
        if m.bar.cleared[slot] != w.bars.wrapping_add(1) {
            (m.bar.counts[slot], m.bar.cleared[slot]) = ([0, 0], w.bars.wrapping_add(1));
        }
        let mut t = 0;
        for l in 0..32usize {
            if on >> l & 1 == 1 && operand(&d, 0, l, m.regs) & 1 == 1 {
                t += 1;
            }
        }
        m.bar.counts[slot][0] += t;
        m.bar.counts[slot][1] += on.count_ones() - t;
        match self.barrier(w, pc, on, ctaid) {
            Flow::Barrier => {
                w.red_pending = true;
                w.goto(pc);
                Flow::Barrier
            }
            f => {
                w.bars = w.bars.wrapping_add(1);
                w.goto(pc + 1);
                f
            }
        }
    }

    fn barrier(&mut self, w: &mut Warp, pc: u32, on: u32, ctaid: [u32; 3]) -> Flow {
        let live = w.lanes & !(w.exited & !w.parted);
        if on != 0
            && on != live
            && let Some(chk) = self.check.as_deref_mut()
            && chk.mode().synccheck()
        {
            let who = Who { ctaid, block: linear(ctaid, self.r.grid), thread: w.base + on.trailing_zeros() };
            let mut rec = crate::check::record(CheckKind::DivergentBarrier, Space::Generic, AccessKind::Read, pc, &who);
            (rec.addr, rec.other) = (on as u64, live as u64);
            chk.report(self.cx.mem, self.cx.tlb, &self.cx.space, rec);
        }
        if on != 0 {
            w.at_barrier = true;
            return Flow::Barrier;
        }
        Flow::Next
    }
}
