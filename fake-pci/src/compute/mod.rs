//! The compute engine (class 90C0), one module per unit:
//!
//! - `methods`: the class's methods latched into the launch state;
//! - this module: launch checks, the constant-bank snapshot, and the hand-off of a grid to
//!   the timing model (`crate::timing`, timing mode) or to functional mode's grid table
//!   (`func`: grids as jobs run in instruction slices with a cost formula for their cycles);
//! - `decode`: instructions fetched through the MMU and decoded once into a cache that
//!   INVALIDATE_SHADER_CACHES clears;
//! - `simt`: warps of 32 lanes with active masks, a post-dominator reconvergence stack
//!   (branches carry their reconvergence point), calls, barriers, spin detection;
//! - `alu`: data instructions by group on a warp's registers, shuffles and votes;
//! - `ops`: the per-lane arithmetic, conversions, comparisons and atomics;
//! - `lsu`: shared, local, constant and global memory (through the MMU, coalesced),
//!   atomics in a fixed lane order (deterministic), the sanitizer's checks;
//! - `printf`: device `printf` and `assert` records appended to the printf FIFO;
//! - `named`: named barriers with a thread count (`bar.sync id, count`, `bar.arrive`);
//! - `cluster`: thread block clusters (dispatch order, distributed shared memory, barrier).
//!
//! Program counters are instruction indices from the program region (CODE_ADDRESS); a
//! grid starts at PROGRAM_START / 16. Bad instructions, out-of-range accesses, `trap` and
//! the watchdog stop the grid with a [`Trap`]; MMU faults stop it with a [`Fault`]. One
//! executor serves both modes, so they compute the same results.

mod alu;
pub(crate) mod cluster;
mod decode;
mod func;
mod half;
mod heap;
mod lsu;
mod methods;
pub(crate) mod named;
mod ops;
mod printf;
mod round;
mod simt;
mod tensor;
mod tex;

use alu::*;
pub(crate) use decode::*;
pub(crate) use func::*;
use lsu::*;
pub use methods::*;
use ops::*;
pub(crate) use simt::*;

use crate::check::{BlockCheck, GridCheck, Who};
use crate::config::DeviceConfig;
use crate::mmu::{AddressSpace, Fault, Memory, Tlb};
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use hw::check::{AccessKind, CheckKind, CheckMode};
use hw::class::compute::*;
use hw::class::{BindHeader, BindSampler, CbBind, DimXy, addr40};
use hw::isa::*;
use hw::regs::TrapReason;

/// Size of the shared and local windows in the generic address space.
pub const WINDOW_SIZE: u64 = hw::isa::GENERIC_WINDOW_BYTES;
/// Most threads in a block.
pub const MAX_THREADS: u32 = 1024;
/// Deepest call nesting.
pub const MAX_CALL_DEPTH: usize = 64;
/// Local memory per thread (CUDA's limit).
pub const MAX_LOCAL: u32 = 512 * 1024;
/// Local memory of one block.
pub const MAX_LOCAL_PER_BLOCK: u64 = 64 << 20;

/// A stopped grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trap {
    /// Why.
    pub reason: TrapReason,
    /// Instruction index.
    pub pc: u32,
}

/// How a grid ended badly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridError {
    /// An MMU fault.
    Fault(Fault),
    /// A trap.
    Trap(Trap),
    /// An access of a replayable context found no PTE: the warp waits, the instruction
    /// not executed, for software to make the page present and replay it.
    Replay(Fault),
}

/// A replayable fault to write to the fault buffer.
#[derive(Clone, Copy, Debug)]
pub struct ReplayRecord {
    /// The faulting channel.
    pub chid: u32,
    /// Its instance block.
    pub inst: u64,
    /// The access.
    pub fault: Fault,
}

impl GridError {
    /// What the grid fails with: a cancelled replay is the fault it was.
    pub fn fatal(self) -> Self {
        match self {
            Self::Replay(f) => Self::Fault(f),
            e => e,
        }
    }
}

/// The engine: its instruction cache and statistics.
#[derive(Default)]
pub struct ComputeEngine {
    /// Decoded programs by (page directory, code address): an address space's programs
    /// are its own, whatever their virtual address.
    icache: BTreeMap<(u64, u64, u32), Vec<Option<D>>>,
    /// Functional mode: grids in launch order; the front one runs.
    queue: alloc::collections::VecDeque<FuncGrid>,
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// Thread instructions executed.
    pub thread_instructions: u64,
    /// Grids launched.
    pub grids: u64,
    /// Occupancy of the last grid: (blocks resident per SM, waves of blocks).
    pub last_occupancy: (u32, u64),
    /// Functional mode: faults of a parked grid not yet written to the fault buffer.
    pub replay_log: Vec<ReplayRecord>,
}

/// Everything one launch needs, borrowed from the device.
pub struct LaunchCtx<'a> {
    /// Physical memory.
    pub mem: &'a mut Memory,
    /// TLB.
    pub tlb: &'a mut Tlb,
    /// The channel's address space.
    pub space: AddressSpace,
    /// Device configuration.
    pub cfg: &'a DeviceConfig,
    /// Device time (ns) for %globaltimer.
    pub now_ns: u64,
    /// Device cycle for %clock.
    pub now: u64,
}

/// Cycles from a grid's LAUNCH to its first block: the preset's launch overhead, less the
/// `early` cycles the front end prepared it while the grid before it ran (at most
/// `dispatch.launch_overlap_cycles`).
pub(crate) fn launch_overhead(cfg: &DeviceConfig, early: u64) -> u64 {
    cfg.dispatch.launch_overhead_cycles.saturating_sub(early.min(cfg.dispatch.launch_overlap_cycles))
}

impl ComputeEngine {
    /// Forget decoded instructions.
    pub fn invalidate(&mut self) {
        self.icache.clear();
    }

    /// Check a launch's shape against the engine's and the SM's limits; returns the
    /// threads per block, the blocks it runs (its range: first flattened id and count),
    /// the blocks an SM holds at once and what one takes.
    pub(crate) fn check_launch(
        cfg: &DeviceConfig,
        r: &ComputeRegs,
    ) -> Result<(u32, (u64, u64), u32, hw::occupancy::BlockCost), GridError> {
        let bad = GridError::Trap(Trap { reason: TrapReason::BadLaunch, pc: 0 });
        let threads = r.block[0] as u64 * r.block[1] as u64 * r.block[2] as u64;
        if threads == 0
            || threads > MAX_THREADS as u64
            || r.grid.contains(&0)
            || r.regs > MAX_GPRS
            || !r.start.is_multiple_of(16)
        {
            return Err(bad);
        }
        let nblocks = r.grid[0] as u64 * r.grid[1] as u64 * r.grid[2] as u64;
        let (first, count) = match r.block_count {
            0 if r.first_block == 0 => (0, nblocks),
            0 => return Err(bad),
            c => (r.first_block as u64, c as u64),
        };
        if first + count > nblocks {
            return Err(bad);
        }
        // The dispatcher: how many blocks of this shape an SM holds at once.
        let sm = cfg.sm_limits();
        let cost = hw::occupancy::block_cost(&sm, threads as u32, r.regs, r.shared).ok_or(bad)?;
        let per_sm = hw::occupancy::blocks_of(&sm, &cost);
        if per_sm == 0 || r.local_size > MAX_LOCAL || r.local_size as u64 * threads > MAX_LOCAL_PER_BLOCK {
            return Err(bad); // the block does not fit on an SM, or asks for too much local memory
        }
        // A cluster's blocks run at once on one GPC.
        let (_, n) = cluster::shape(r);
        if !cluster::valid(r, first, count) || per_sm * cluster::gpc_sms(cfg) < n {
            return Err(bad);
        }
        Ok((threads as u32, (first, count), per_sm, cost))
    }

    /// The constant banks bound at launch, read through the MMU.
    pub(crate) fn read_banks(cx: &mut LaunchCtx<'_>, r: &ComputeRegs) -> Result<Vec<Vec<u8>>, GridError> {
        let mut banks = vec![Vec::new(); CB_SLOTS];
        for (slot, cb) in r.cbs.iter().enumerate() {
            if let Some((va, size)) = *cb {
                let mut buf = vec![0u8; size.min(1 << 16) as usize];
                cx.tlb.read_va(cx.mem, &cx.space, va, &mut buf).map_err(GridError::Fault)?;
                banks[slot] = buf;
            }
        }
        Ok(banks)
    }

    /// Take the decoded program at `code` out of the cache (an empty one if none).
    pub(crate) fn take_code(&mut self, space: &AddressSpace, r: &ComputeRegs) -> Vec<Option<D>> {
        self.icache.remove(&(space.pd, r.code, r.regs)).unwrap_or_default()
    }

    /// Return a decoded program to the cache, less the instructions whose constant
    /// operands hold this grid's values.
    pub(crate) fn put_code(&mut self, space: &AddressSpace, r: &ComputeRegs, mut decoded: Vec<Option<D>>) {
        for d in decoded.iter_mut() {
            if d.is_some_and(|d| d.cref.is_some()) {
                *d = None;
            }
        }
        self.icache.insert((space.pd, r.code, r.regs), decoded);
    }

    /// Functional mode: queue a grid launched by channel `chid` at cycle `cx.now`. Grids
    /// run one after another, in the order they were launched.
    pub(crate) fn submit(
        &mut self,
        cx: &mut LaunchCtx<'_>,
        chid: u32,
        r: &ComputeRegs,
        (seq, early): (u64, u64),
    ) -> Result<(), GridError> {
        let (threads, (first, nblocks), per_sm, _) = Self::check_launch(cx.cfg, r)?;
        let banks = Self::read_banks(cx, r)?;
        let nregs = slots(r.regs);
        let nwarps = threads.div_ceil(WARP_SIZE) as usize;
        let code = self.take_code(&cx.space, r);
        let mode = CheckMode::from(r.check_mode);
        let check = GridCheck::new(&r.check_launch(), cx.mem, cx.tlb, &cx.space);
        let bcheck = BlockCheck::new(mode, r.shared as usize, nwarps * nregs * 32);
        let bufs = BlockBufs {
            regs: try_zeroed(nwarps * nregs * 32)?,
            // A cluster's blocks keep their shared memory together ([`cluster::ClusterMem`]).
            shared: try_zeroed(if cluster::shape(r).1 > 1 { 0 } else { r.shared as usize })?,
            local: try_zeroed(r.local_size as usize * nwarps * 32)?,
            warps: Vec::new(),
            bar: BarRed::default(),
            csync: cluster::ClusterSync::block(threads),
            named: named::NamedBars::new(nwarps),
        };
        self.queue.push_back(FuncGrid {
            chid,
            seq,
            space: cx.space,
            r: r.clone(),
            banks,
            code,
            span: vec![0u8; 4096],
            threads,
            first,
            nblocks,
            per_sm,
            nregs,
            bufs,
            check,
            bcheck,
            finished: 0,
            block: 0,
            next: 0,
            resident: Default::default(),
            clusters: Default::default(),
            stalled: 0,
            pass: None,
            work: 0,
            idle: 0,
            thread_instrs: 0,
            start: cx.now,
            overhead: launch_overhead(cx.cfg, early),
            waiting: None,
            cancelled: None,
            replayable_faults: 0,
        });
        Ok(())
    }

    /// Whether functional-mode grids are queued or running.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Functional mode: (blocks finished, blocks in all) of the grids queued and running.
    pub fn progress(&self) -> (u64, u64) {
        self.queue.iter().fold((0, 0), |(d, n), g| (d + g.finished, n + g.nblocks))
    }

    /// Functional mode: warp instructions the queued grids have executed so far.
    pub fn running_instructions(&self) -> u64 {
        self.queue.iter().map(|g| g.instructions()).sum()
    }

    /// Functional mode: the cycle the running grid has reached (its next event).
    pub fn next_event(&self, cfg: &DeviceConfig) -> Option<u64> {
        self.queue.front().filter(|g| g.waiting.is_none()).map(|g| g.cycle(cfg))
    }

    /// NV_PFB_REPLAY at cycle `t`: a grid parked by a replayable fault goes on from `t`
    /// (`cancel`: it fails with its fault at its next turn).
    pub(crate) fn replay(&mut self, cfg: &DeviceConfig, t: u64, cancel: bool) {
        if let Some(g) = self.queue.front_mut()
            && let Some((f, parked)) = g.waiting.take()
        {
            if cancel {
                g.cancelled = Some(f);
            }
            // The time it waited passes for it too.
            g.start = g.start.saturating_add(t.saturating_sub(parked));
            let _ = cfg;
        }
    }

    /// Functional mode: run the front grid until it reaches cycle `horizon`, ends or
    /// fails; returns it, with the cycle it ended at, when it has ended. The next grid
    /// starts then.
    pub(crate) fn advance(
        &mut self,
        mem: &mut Memory,
        tlb: &mut Tlb,
        cfg: &DeviceConfig,
        horizon: u64,
    ) -> Option<(FuncGrid, u64, Result<(), GridError>)> {
        let g = self.queue.front_mut()?;
        if g.waiting.is_some() {
            return None;
        }
        let now = g.cycle(cfg);
        let sms = cfg.board.sms.max(1) as u64;
        let limit = g.work.saturating_add(horizon.saturating_sub(now).max(1).saturating_mul(sms));
        let result = match g.cancelled.take() {
            Some(f) => Err(GridError::Fault(f)),
            None => g.run(mem, tlb, cfg, limit),
        };
        let (at, r) = match result {
            Ok(false) => return None,
            Ok(true) => (g.end(cfg), Ok(())),
            Err(GridError::Replay(f)) => {
                g.replayable_faults += 1;
                g.waiting = Some((f, now.max(g.cycle(cfg))));
                self.replay_log.push(ReplayRecord { chid: g.chid, inst: g.space.inst, fault: f });
                return None;
            }
            Err(e) => (g.cycle(cfg), Err(e)),
        };
        let mut g = self.queue.pop_front()?;
        if let Some(next) = self.queue.front_mut() {
            next.start = next.start.max(at);
        }
        self.grids += 1;
        self.warp_instructions += g.instructions();
        self.thread_instructions += g.thread_instrs;
        self.last_occupancy = (g.per_sm, g.nblocks.div_ceil(g.per_sm as u64 * sms));
        let code = core::mem::take(&mut g.code);
        self.put_code(&g.space, &g.r, code);
        Some((g, at, r))
    }

    /// Drop the functional-mode grids of a channel that went away.
    pub fn cancel(&mut self, chid: u32, now: u64) {
        let front = self.queue.front().map(|g| g.chid);
        self.queue.retain(|g| g.chid != chid);
        if front == Some(chid)
            && let Some(next) = self.queue.front_mut()
        {
            next.start = next.start.max(now);
        }
    }
}

/// `n` zeroed elements, or the grid's NoResources trap when the host cannot provide them
/// (a kernel-side heap that is full): never an abort.
pub(crate) fn try_zeroed<T: Clone + Default>(n: usize) -> Result<Vec<T>, GridError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| GridError::Trap(Trap { reason: TrapReason::NoResources, pc: 0 }))?;
    v.resize(n, T::default());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_storage_the_host_cannot_provide_is_a_trap_not_an_abort() {
        let e = try_zeroed::<u64>(usize::MAX).unwrap_err();
        assert_eq!(e, GridError::Trap(Trap { reason: TrapReason::NoResources, pc: 0 }));
        assert_eq!(try_zeroed::<u8>(3).unwrap(), [0, 0, 0]);
    }

    #[test]
    fn integer_semantics() {
        assert_eq!(binop(Op::Add, Ty::U32, 0, 0xFFFF_FFFF, 1), Some(0));
        assert_eq!(binop(Op::Mul, Ty::S32, 2, (-3i32) as u32 as u64, 4), Some((-12i64) as u64));
        assert_eq!(binop(Op::Mul, Ty::U32, 1, 0x8000_0000, 4), Some(2));
        assert_eq!(binop(Op::Shr, Ty::S32, 0, 0x8000_0000, 31), Some(0xFFFF_FFFF));
        assert_eq!(binop(Op::Shl, Ty::U32, 0, 1, 32), Some(0));
        assert_eq!(binop(Op::Div, Ty::S32, 0, (-7i32) as u32 as u64, 2), Some((-3i32) as u32 as u64));
        assert_eq!(binop(Op::Rem, Ty::S32, 0, (-7i32) as u32 as u64, 2), Some((-1i32) as u32 as u64));
        assert_eq!(binop(Op::Min, Ty::S32, 0, (-1i32) as u32 as u64, 1), Some(0xFFFF_FFFF));
        assert_eq!(unop(Op::Clz, Ty::U32, 1), 31);
        assert_eq!(unop(Op::Brev, Ty::U32, 1), 0x8000_0000);
        assert_eq!(unop(Op::Popc, Ty::U64, u64::MAX), 64);
    }

    #[test]
    fn reserved_vector_length_is_an_illegal_instruction() {
        let mut i = Instr::new(Op::Ld, Ty::U64);
        i.w0.set_m(MemMods::encode(Space::Global, 1, 0) | 3 << 3);
        assert!(decode(i, 8).is_none());
        i.w0.set_m(MemMods::encode(Space::Global, 4, 0));
        assert!(decode(i, 8).is_some());
    }

    #[test]
    fn predicate_registers_follow_the_general_ones_and_registers_are_bounded() {
        let mut i = Instr::new(Op::Ld, Ty::U32);
        i.w0.set_m(MemMods::encode(Space::Global, 4, 0));
        i.w0.set_dst(4);
        i.w0.set_guard(PRED_BASE + 2);
        let d = decode(i, 8).unwrap();
        assert_eq!((d.dst, d.guard), (4, 10), "P2 is the third slot after R0..R7");
        assert!(decode(i, 7).is_none(), "a 4-vector into R4..R7 needs 8 registers");
        i.w0.set_dst(PRED_BASE + 4);
        assert!(decode(i, 8).is_none(), "P4..P7: there is no P7");
        i.w0.set_dst(PRED_BASE + 3);
        assert_eq!(decode(i, MAX_GPRS).unwrap().dst, 251, "P3..P6 of a kernel with every general register");
        assert_eq!(slots(MAX_GPRS), 255);
    }

    #[test]
    fn a_constant_operand_is_no_register_and_its_reserved_encoding_is_illegal() {
        let mut i = Instr::new(Op::Add, Ty::U32);
        i.w0.set_dst(0);
        i.w0.set_a(1);
        i.w0.set_imm(Imm::B);
        i.w0.set_b(ConstRef::bank_value(0, 4, true).field());
        i.imm = 0x10;
        let d = decode(i, 2).unwrap();
        assert_eq!((d.b, d.imm, d.cref), (RZ, 0x10, Some(ConstRef::bank_value(0, 4, true))));
        i.w0.set_b(0x80 | 7);
        assert!(decode(i, 2).is_none(), "bit 7 of a constant operand is reserved");
        i.w0.set_b(RZ);
        assert_eq!(decode(i, 2).unwrap().cref, None, "RZ in the immediate slot: a plain immediate");
        // Outside the immediate slot the field is a register, bounded as ever.
        i.w0.set_imm(Imm::None);
        i.w0.set_b(9);
        assert!(decode(i, 2).is_none());
    }

    #[test]
    fn a_decoded_instruction_stays_three_words() {
        // The decode cache is read once per issued instruction: keep an entry small.
        assert!(core::mem::size_of::<D>() <= 24, "{} bytes", core::mem::size_of::<D>());
    }

    #[test]
    fn constant_banks_read_zero_past_their_end_and_never_overflow() {
        let mut buf = [0xAAu8; 4];
        decode::bank_read(&[1, 2, 3], 1, &mut buf);
        assert_eq!(buf, [2, 3, 0, 0]);
        decode::bank_read(&[1, 2, 3], u64::MAX - 1, &mut buf);
        assert_eq!(buf, [0; 4]);
    }

    #[test]
    fn shift_amounts_use_only_their_low_32_bits() {
        // Found by the random-program test: a shift count with upper bits set.
        assert_eq!(binop(Op::Shl, Ty::U32, 0, 1, 0x1_0000_0003), Some(8));
        assert_eq!(binop(Op::Shr, Ty::U64, 0, 16, 0xFFFF_FFFF_0000_0002), Some(4));
    }

    #[test]
    fn comparisons_and_conversions() {
        let nan = f32::NAN.to_bits() as u64;
        assert!(!setp(Cmp::Lt, Ty::F32, nan, 0));
        assert!(setp(Cmp::Ltu, Ty::F32, nan, 0));
        assert!(setp(Cmp::Lt, Ty::S32, (-1i32) as u32 as u64, 0));
        assert!(!setp(Cmp::Lt, Ty::U32, (-1i32) as u32 as u64, 0));
        assert_eq!(cvt(Ty::S32, Ty::F32, Round::Rz, false, false, fb32(-2.7)), (-2i32) as u32 as u64);
        assert_eq!(cvt(Ty::S32, Ty::F32, Round::Rn, false, false, fb32(2.5)), 2);
        assert_eq!(cvt(Ty::U8, Ty::F32, Round::Rz, false, false, fb32(300.0)), 255);
        assert_eq!(cvt(Ty::F32, Ty::S32, Round::Rn, false, false, (-3i32) as u32 as u64), fb32(-3.0));
        assert_eq!(cvt(Ty::S64, Ty::S32, Round::Default, false, false, 0xFFFF_FFFF), u64::MAX);
        assert_eq!(cvt(Ty::U64, Ty::U32, Round::Default, false, false, 0xFFFF_FFFF), 0xFFFF_FFFF);
        assert_eq!(cvt(Ty::F64, Ty::F32, Round::Default, false, false, fb32(1.5)), 1.5f64.to_bits());
        assert_eq!(cvt(Ty::U8, Ty::S32, Round::Default, true, false, (-5i32) as u32 as u64), 0);
    }

    #[test]
    fn atomics() {
        assert_eq!(atom(AtomOp::Inc, Ty::U32, 5, 5, 0), 0);
        assert_eq!(atom(AtomOp::Dec, Ty::U32, 0, 9, 0), 9);
        assert_eq!(atom(AtomOp::Cas, Ty::U32, 3, 3, 8), 8);
        assert_eq!(atom(AtomOp::Cas, Ty::U32, 4, 3, 8), 4);
        assert_eq!(atom(AtomOp::Max, Ty::S32, (-1i32) as u32 as u64, 2, 0), 2);
        assert_eq!(atom(AtomOp::Add, Ty::F32, fb32(1.5), fb32(2.0), 0), fb32(3.5));
    }
}
