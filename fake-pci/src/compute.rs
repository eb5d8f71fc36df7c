//! The compute engine (class 90C0): launch methods, and a functional SIMT executor of the
//! rgdev ISA ([`hw::isa`]).
//!
//! A launch snapshots the bound constant buffers, then runs every block of the grid: warps
//! of 32 lanes with active masks and a post-dominator reconvergence stack (branches carry
//! their reconvergence point), per-block shared memory, barriers, per-thread local memory,
//! atomics in a fixed lane order (deterministic), shuffles and votes. Instructions are
//! fetched from memory through the MMU and decoded once into a cache that
//! INVALIDATE_SHADER_CACHES clears. Program counters are instruction indices from the
//! program region (CODE_ADDRESS); a grid starts at PROGRAM_START / 16. Bad instructions, out-of-range accesses, `trap` and the
//! watchdog stop the grid with a [`Trap`]; MMU faults stop it with a [`Fault`].
//!
//! Timing is functional for now: a grid costs a launch overhead plus its warp instructions
//! spread over the SMs (the cycle-level model comes later).

use crate::check::{BlockCheck, GridCheck, Who};
use crate::config::DeviceConfig;
use crate::mmu::{AddressSpace, Fault, Memory, Tlb};
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use hw::check::{AccessKind, CheckKind, CheckMode};
use hw::class::compute::*;
use hw::class::{CbBind, DimXy, addr40};
use hw::isa::*;
use hw::regs::TrapReason;

/// Size of the shared and local windows in the generic address space.
pub const WINDOW_SIZE: u64 = 1 << 24;
/// Most threads in a block.
pub const MAX_THREADS: u32 = 1024;
/// Deepest call nesting.
pub const MAX_CALL_DEPTH: usize = 64;
/// Local memory per thread (CUDA's limit).
pub const MAX_LOCAL: u32 = 512 * 1024;
/// Local memory of one block.
pub const MAX_LOCAL_PER_BLOCK: u64 = 64 << 20;

/// Methods latched by a channel for its compute object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComputeRegs {
    pub(crate) code: u64,
    pub(crate) start: u32,
    pub(crate) cb_addr: u64,
    pub(crate) cb_size: u32,
    pub(crate) cb_offset: u32,
    pub(crate) cbs: [Option<(u64, u32)>; CB_SLOTS],
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) threads: u32,
    pub(crate) regs: u32,
    pub(crate) shared: u32,
    pub(crate) shared_window: u64,
    pub(crate) local_window: u64,
    pub(crate) local_size: u32,
    pub(crate) report_addr: u64,
    pub(crate) report_seq: u32,
    /// Sanitizer (model): checks, allocation table and report buffer of the next launches.
    pub(crate) check_mode: u32,
    pub(crate) check_table: u64,
    pub(crate) check_report: u64,
}

/// What a compute method asks of the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Latched; nothing else to do.
    None,
    /// Write `data` to the selected constant buffer at this address.
    CbWrite(u64, u32),
    /// Launch the grid.
    Launch,
    /// Clear the instruction cache.
    Invalidate,
    /// Release the report payload at the address once the engine is idle.
    Report(u64, u32),
    /// Not a method of the class.
    Unknown,
}

impl ComputeRegs {
    /// Latch a compute method.
    pub fn set(&mut self, method: u32, data: u32) -> Action {
        let hi = |v: u64| addr40::with_hi(v, data);
        let lo = |v: u64| addr40::with_lo(v, data);
        match method {
            SHARED_WINDOW => self.shared_window = data as u64,
            GRID_DIM_XY => {
                let d = DimXy::from(data);
                self.grid[0] = d.x() as u32;
                self.grid[1] = d.y() as u32;
            }
            GRID_DIM_Z => self.grid[2] = data,
            SHARED_SIZE => self.shared = data,
            THREADS_PER_BLOCK => self.threads = data,
            REGISTER_COUNT => self.regs = data,
            BLOCK_DIM_XY => {
                let d = DimXy::from(data);
                self.block[0] = d.x() as u32;
                self.block[1] = d.y() as u32;
            }
            BLOCK_DIM_Z => self.block[2] = data,
            PROGRAM_START => self.start = data,
            LOCAL_WINDOW => self.local_window = data as u64,
            LOCAL_SIZE => self.local_size = data,
            CODE_ADDRESS_HIGH => self.code = hi(self.code),
            CODE_ADDRESS_LOW => self.code = lo(self.code),
            CB_SIZE => self.cb_size = data,
            CB_ADDRESS_HIGH => self.cb_addr = hi(self.cb_addr),
            CB_ADDRESS_LOW => self.cb_addr = lo(self.cb_addr),
            CB_BIND => {
                let b = CbBind::from(data);
                let slot = b.slot() as usize;
                if slot >= CB_SLOTS {
                    return Action::Unknown;
                }
                self.cbs[slot] = b.valid().then_some((self.cb_addr, self.cb_size));
            }
            CB_OFFSET => self.cb_offset = data,
            CB_DATA => {
                let at = self.cb_addr.wrapping_add(self.cb_offset as u64);
                self.cb_offset = self.cb_offset.wrapping_add(4);
                return Action::CbWrite(at, data);
            }
            LAUNCH => return Action::Launch,
            INVALIDATE_SHADER_CACHES => return Action::Invalidate,
            REPORT_ADDRESS_HIGH => self.report_addr = hi(self.report_addr),
            REPORT_ADDRESS_LOW => self.report_addr = lo(self.report_addr),
            REPORT_SEQUENCE => self.report_seq = data,
            REPORT_OPERATION => return Action::Report(self.report_addr, self.report_seq),
            CHECK_MODE => self.check_mode = data,
            CHECK_TABLE_ADDRESS_HIGH => self.check_table = hi(self.check_table),
            CHECK_TABLE_ADDRESS_LOW => self.check_table = lo(self.check_table),
            CHECK_REPORT_ADDRESS_HIGH => self.check_report = hi(self.check_report),
            CHECK_REPORT_ADDRESS_LOW => self.check_report = lo(self.check_report),
            BARRIER_COUNT | BEGIN_GRID | END_GRID | L1_CONFIG | LOCAL_ADDRESS_HIGH | LOCAL_ADDRESS_LOW
            | LOCAL_SIZE_PER_WARP => {}
            _ => return Action::Unknown,
        }
        Action::None
    }
}

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
}

/// A decoded, validated instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct D {
    pub(crate) op: Op,
    pub(crate) ty: Ty,
    pub(crate) guard: u8,
    pub(crate) neg: bool,
    pub(crate) dst: u8,
    pub(crate) a: u8,
    pub(crate) b: u8,
    pub(crate) c: u8,
    pub(crate) imm_slot: Imm,
    pub(crate) m: u16,
    pub(crate) imm: u64,
    /// One past the highest register the instruction touches (vectors included).
    pub(crate) top: u16,
}

fn decode(i: Instr) -> Option<D> {
    let w = i.w0;
    let op = w.op_or_err().ok()?;
    // Vector length 8 (log2 field value 3) is reserved.
    if matches!(op, Op::Ld | Op::St) && (w.m() >> 3) & 3 == 3 {
        return None;
    }
    let vec = if matches!(op, Op::Ld | Op::St) { MemMods::vec(w.m()) as u16 } else { 1 };
    let regs = [w.guard(), w.dst(), w.a(), w.b(), w.c()];
    let top = regs
        .iter()
        .enumerate()
        .filter(|&(_, &r)| r != RZ)
        .map(|(k, &r)| r as u16 + if (k == 1 && op == Op::Ld) || (k == 3 && op == Op::St) { vec } else { 1 })
        .max()
        .unwrap_or(0);
    Some(D {
        top,
        op,
        ty: w.ty_or_err().ok()?,
        guard: w.guard(),
        neg: w.guard_neg(),
        dst: w.dst(),
        a: w.a(),
        b: w.b(),
        c: w.c(),
        imm_slot: w.imm_or_err().ok()?,
        m: w.m(),
        imm: i.imm,
    })
}

/// The engine: its instruction cache and statistics.
#[derive(Default)]
pub struct ComputeEngine {
    /// Decoded programs by (page directory, code address): an address space's programs
    /// are its own, whatever their virtual address.
    icache: BTreeMap<(u64, u64), Vec<Option<D>>>,
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
}

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
}

/// Backward branches with memory unchanged before the first snapshot of a warp's state.
const SPIN_QUIET: u32 = 8;
/// Most backward branches between snapshots of a loop that makes progress.
const SPIN_BACKOFF_MAX: u32 = 1 << 12;

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
struct Snapshot {
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
}

impl Default for MemProbe {
    fn default() -> Self {
        Self { on: 0, addr: [0; 32], space: [Space::Global; 32], bytes: 0 }
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

/// Per-block storage of the functional mode, reused by every block of a grid (registers
/// start undefined in PTX; shared and local memory are cleared).
struct BlockBufs {
    regs: Vec<u64>,
    shared: Vec<u8>,
    local: Vec<u8>,
    warps: Vec<Warp>,
}

fn mask(ty: Ty) -> u64 {
    match ty.bytes() {
        1 if ty == Ty::Pred => 1,
        1 => 0xFF,
        2 => 0xFFFF,
        4 => 0xFFFF_FFFF,
        _ => u64::MAX,
    }
}

fn sx(ty: Ty, v: u64) -> i64 {
    match ty {
        Ty::S8 => v as u8 as i8 as i64,
        Ty::S16 => v as u16 as i16 as i64,
        Ty::S32 => v as u32 as i32 as i64,
        _ => v as i64,
    }
}

fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}
fn fb32(f: f32) -> u64 {
    f.to_bits() as u64
}

fn round_f64(x: f64, mode: Round) -> f64 {
    match mode {
        Round::Default | Round::Rz => libm::trunc(x),
        Round::Rn => libm::rint(x),
        Round::Rm => libm::floor(x),
        Round::Rp => libm::ceil(x),
    }
}

impl ComputeEngine {
    /// Forget decoded instructions.
    pub fn invalidate(&mut self) {
        self.icache.clear();
    }

    /// Check a launch's shape against the engine's and the SM's limits; returns the
    /// threads per block, the blocks, and the blocks an SM holds at once.
    pub(crate) fn check_launch(cfg: &DeviceConfig, r: &ComputeRegs) -> Result<(u32, u64, u32), GridError> {
        let bad = GridError::Trap(Trap { reason: TrapReason::BadLaunch, pc: 0 });
        let threads = r.block[0] as u64 * r.block[1] as u64 * r.block[2] as u64;
        if threads == 0
            || threads > MAX_THREADS as u64
            || r.grid.contains(&0)
            || r.regs > 255
            || !r.start.is_multiple_of(16)
        {
            return Err(bad);
        }
        let nblocks = r.grid[0] as u64 * r.grid[1] as u64 * r.grid[2] as u64;
        // The dispatcher: how many blocks of this shape an SM holds at once.
        let per_sm = hw::occupancy::blocks_per_sm(&sm_limits(cfg), threads as u32, r.regs, r.shared);
        if per_sm == 0 || r.local_size > MAX_LOCAL || r.local_size as u64 * threads > MAX_LOCAL_PER_BLOCK {
            return Err(bad); // the block does not fit on an SM, or asks for too much local memory
        }
        Ok((threads as u32, nblocks, per_sm))
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
    pub(crate) fn take_code(&mut self, space: &AddressSpace, code: u64) -> Vec<Option<D>> {
        self.icache.remove(&(space.pd, code)).unwrap_or_default()
    }

    /// Return a decoded program to the cache.
    pub(crate) fn put_code(&mut self, space: &AddressSpace, code: u64, decoded: Vec<Option<D>>) {
        self.icache.insert((space.pd, code), decoded);
    }

    /// Functional mode: queue a grid launched by channel `chid` at cycle `cx.now`. Grids
    /// run one after another, in the order they were launched.
    pub(crate) fn submit(
        &mut self,
        cx: &mut LaunchCtx<'_>,
        chid: u32,
        r: &ComputeRegs,
        seq: u64,
    ) -> Result<(), GridError> {
        let (threads, nblocks, per_sm) = Self::check_launch(cx.cfg, r)?;
        let banks = Self::read_banks(cx, r)?;
        let nregs = r.regs.max(1) as usize;
        let nwarps = threads.div_ceil(WARP_SIZE) as usize;
        let code = self.take_code(&cx.space, r.code);
        let mode = CheckMode::from(r.check_mode);
        let check = GridCheck::new(r, cx.mem, cx.tlb, &cx.space);
        let bcheck = BlockCheck::new(mode, r.shared as usize, nwarps * nregs * 32);
        let bufs = BlockBufs {
            regs: try_zeroed(nwarps * nregs * 32)?,
            shared: try_zeroed(r.shared as usize)?,
            local: try_zeroed(r.local_size as usize * nwarps * 32)?,
            warps: Vec::new(),
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
            nblocks,
            per_sm,
            nregs,
            bufs,
            check,
            bcheck,
            block: 0,
            pass: None,
            work: 0,
            idle: 0,
            thread_instrs: 0,
            start: cx.now,
        });
        Ok(())
    }

    /// Whether functional-mode grids are queued or running.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Functional mode: (blocks finished, blocks in all) of the grids queued and running.
    pub fn progress(&self) -> (u64, u64) {
        self.queue.iter().fold((0, 0), |(d, n), g| (d + g.block, n + g.nblocks))
    }

    /// Functional mode: the cycle the running grid has reached (its next event).
    pub fn next_event(&self, cfg: &DeviceConfig) -> Option<u64> {
        self.queue.front().map(|g| g.cycle(cfg))
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
        let now = g.cycle(cfg);
        let sms = cfg.sms.max(1) as u64;
        let limit = g.work.saturating_add(horizon.saturating_sub(now).max(1).saturating_mul(sms));
        let (at, r) = match g.run(mem, tlb, cfg, limit) {
            Ok(false) => return None,
            Ok(true) => (g.end(cfg), Ok(())),
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
        self.put_code(&g.space, g.r.code, code);
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

/// A grid of the functional mode. Its blocks run one after another, a block's warps in
/// turn, each until it waits at a barrier, ends or spins (a spinning warp lets the others
/// run). It runs in slices of instructions and can stop after any instruction, so the
/// device stays responsive and the watchdog counts what it executes. Time: the launch
/// overhead, the instructions spread over the SMs, and a cycle a block (as before slices).
pub(crate) struct FuncGrid {
    pub(crate) chid: u32,
    pub(crate) seq: u64,
    space: AddressSpace,
    pub(crate) r: ComputeRegs,
    banks: Vec<Vec<u8>>,
    code: Vec<Option<D>>,
    span: Vec<u8>,
    threads: u32,
    pub(crate) nblocks: u64,
    pub(crate) per_sm: u32,
    nregs: usize,
    bufs: BlockBufs,
    /// The sanitizer's state of the grid and of the block running.
    check: Option<GridCheck>,
    bcheck: Option<BlockCheck>,
    /// Linear index of the block running (or next to run).
    block: u64,
    /// Within the running block: whose turn it is, and whether this pass moved a warp.
    pass: Option<(usize, bool)>,
    /// Instructions executed plus those a spinning block was charged (time, watchdog).
    work: u64,
    /// Of `work`, charged to spinning rather than executed.
    idle: u64,
    pub(crate) thread_instrs: u64,
    /// Cycle the grid started running (its launch, or the end of the grid before it).
    pub(crate) start: u64,
}

impl FuncGrid {
    /// The cycle the grid has reached.
    pub(crate) fn cycle(&self, cfg: &DeviceConfig) -> u64 {
        let sms = cfg.sms.max(1) as u64;
        self.start.saturating_add(cfg.launch_overhead_cycles).saturating_add(self.work / sms).saturating_add(self.block)
    }

    /// The cycle a finished grid ends.
    fn end(&self, cfg: &DeviceConfig) -> u64 {
        let sms = cfg.sms.max(1) as u64;
        self.start.saturating_add(cfg.launch_overhead_cycles).saturating_add(self.work.div_ceil(sms)) + self.nblocks
    }

    /// Warp instructions executed.
    pub(crate) fn instructions(&self) -> u64 {
        self.work - self.idle
    }

    /// Run until `work` reaches `limit`; true once the grid has finished.
    fn run(&mut self, mem: &mut Memory, tlb: &mut Tlb, cfg: &DeviceConfig, limit: u64) -> Result<bool, GridError> {
        let sms = cfg.sms.max(1) as u64;
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
        let nwarps = threads.div_ceil(WARP_SIZE) as usize;
        let (nregs, local_size) = (*nregs, r.local_size as usize);
        let result = 'grid: loop {
            if *block >= *nblocks {
                break Ok(true);
            }
            let (mut w, mut progressed) = match *pass {
                Some(p) => p,
                None => {
                    bufs.shared.fill(0);
                    bufs.local.fill(0);
                    init_warps(&mut bufs.warps, *threads, r.start / INSTR_BYTES as u32);
                    if let Some(b) = x.bcheck.as_deref_mut() {
                        b.reset();
                    }
                    (0, false)
                }
            };
            let i = *block;
            let (gx, gy) = (r.grid[0] as u64, r.grid[1] as u64);
            let ctaid = [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32];
            x.smid = (i % sms) as u32;
            // One pass over the warps; it can stop after any instruction and go on later.
            while w < nwarps {
                let epoch = x.cx.mem.epoch;
                let warp = &mut bufs.warps[w];
                if warp.done || warp.at_barrier || warp.parked == Some(epoch) {
                    w += 1;
                    continue;
                }
                warp.parked = None;
                progressed = true;
                let wr = &mut bufs.regs[w * nregs * 32..(w + 1) * nregs * 32];
                let wl = &mut bufs.local[w * local_size * 32..(w + 1) * local_size * 32];
                loop {
                    if x.instrs >= limit {
                        *pass = Some((w, progressed));
                        break 'grid Ok(false);
                    }
                    match x.step(warp, w as u32, nwarps as u32, ctaid, wr, &mut bufs.shared, wl) {
                        Ok(Flow::Next) => {}
                        Ok(Flow::Spin) => {
                            warp.parked = Some(x.cx.mem.epoch);
                            break;
                        }
                        Ok(Flow::Barrier | Flow::Done) => break,
                        Err(e) => break 'grid Err(e),
                    }
                }
                w += 1;
            }
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

/// `n` zeroed elements, or the grid's NoResources trap when the host cannot provide them
/// (a kernel-side heap that is full): never an abort.
pub(crate) fn try_zeroed<T: Clone + Default>(n: usize) -> Result<Vec<T>, GridError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| GridError::Trap(Trap { reason: TrapReason::NoResources, pc: 0 }))?;
    v.resize(n, T::default());
    Ok(v)
}

/// The SM limits of the occupancy rule, from the configuration.
pub(crate) fn sm_limits(cfg: &DeviceConfig) -> hw::occupancy::SmLimits {
    hw::occupancy::SmLimits {
        threads: cfg.max_threads_per_sm,
        blocks: cfg.max_blocks_per_sm,
        regs: cfg.regs_per_sm,
        shared: cfg.shared_per_sm,
    }
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
        (warp.exited, warp.at_barrier, warp.done, warp.lanes, warp.base) = (0, false, false, lanes, base);
    }
}

impl Exec<'_, '_> {
    pub(crate) fn fetch(&mut self, pc: u32) -> Result<D, GridError> {
        let i = pc as usize;
        if let Some(Some(d)) = self.code.get(i) {
            return Ok(*d);
        }
        let trap = GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc });
        let va = self.r.code.wrapping_add(pc as u64 * INSTR_BYTES);
        let mut b = [0u8; 16];
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, va, &mut b).map_err(GridError::Fault)?;
        let d = decode(Instr::from_bytes(&b)).ok_or(trap)?;
        if i >= self.code.len() {
            self.code.resize(i + 1, None);
        }
        self.code[i] = Some(d);
        Ok(d)
    }

    /// The instruction a warp issues next (after popping finished reconvergence frames);
    /// `None` when the warp has ended.
    pub(crate) fn peek(&mut self, w: &mut Warp) -> Result<Option<D>, GridError> {
        loop {
            let Some(top) = w.stack.last().copied() else { return Ok(None) };
            if top.pc == top.rpc || top.mask & !w.exited == 0 {
                w.stack.pop();
                continue;
            }
            return self.fetch(top.pc).map(Some);
        }
    }

    /// Execute one instruction of warp `w`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn step(
        &mut self,
        w: &mut Warp,
        warpid: u32,
        nwarps: u32,
        ctaid: [u32; 3],
        regs: &mut [u64],
        shared: &mut [u8],
        local: &mut [u8],
    ) -> Result<Flow, GridError> {
        let r = self.r;
        let bdim = r.block;
        loop {
            let Some(top) = w.stack.last().copied() else {
                w.done = true;
                return Ok(Flow::Done);
            };
            if top.pc == top.rpc || top.mask & !w.exited == 0 {
                w.stack.pop();
                continue;
            }
            let pc = top.pc;
            let d = self.fetch(pc)?;
            if d.top as usize > self.nregs {
                return Err(GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc }));
            }
            self.instrs += 1;
            if self.instrs > self.budget {
                return Err(GridError::Trap(Trap { reason: TrapReason::Watchdog, pc }));
            }
            let active = top.mask & !w.exited;
            let on = if d.guard == ALWAYS {
                active
            } else {
                let g = &regs[d.guard as usize * 32..][..32];
                let mut m = 0u32;
                for (l, v) in g.iter().enumerate() {
                    if active >> l & 1 == 1 && ((v & 1 == 1) ^ d.neg) {
                        m |= 1 << l;
                    }
                }
                m
            };
            self.thread_instrs += on.count_ones() as u64;
            let trap = |reason| GridError::Trap(Trap { reason, pc });
            let next = pc + 1;
            macro_rules! set_pc {
                ($v:expr) => {
                    if let Some(t) = w.stack.last_mut() {
                        t.pc = $v;
                    }
                };
            }
            match d.op {
                Op::Bra => {
                    let bt = BranchTarget::from(d.imm);
                    let (target, rpc) = (bt.target(), bt.reconverge());
                    let not_taken = active & !on;
                    if on == 0 {
                        set_pc!(next);
                    } else if not_taken == 0 {
                        set_pc!(target);
                    } else {
                        set_pc!(rpc);
                        w.stack.push(Frame { pc: next, mask: not_taken, rpc });
                        w.stack.push(Frame { pc: target, mask: on, rpc });
                    }
                    if target <= pc && self.cx.cfg.watchdog_cycles != 0 {
                        let Warp { spin, stack, calls, exited, .. } = w;
                        let at = stack.last().map_or(u32::MAX, |f| f.pc);
                        if spin.check(at, stack, calls, *exited, regs, self.cx.mem.epoch) {
                            return Ok(Flow::Spin);
                        }
                    }
                    return Ok(Flow::Next);
                }
                Op::Exit => {
                    w.exited |= on;
                    if w.exited & w.lanes == w.lanes {
                        w.done = true;
                        w.stack.clear();
                        return Ok(Flow::Done);
                    }
                    set_pc!(next);
                    return Ok(Flow::Next);
                }
                Op::Bar => {
                    set_pc!(next);
                    let live = w.lanes & !w.exited;
                    if on != 0
                        && on != live
                        && let Some(chk) = self.check.as_deref_mut()
                        && chk.mode().synccheck()
                    {
                        let who = Who { ctaid, block: linear(ctaid, r.grid), thread: w.base + on.trailing_zeros() };
                        let mut rec = crate::check::record(
                            CheckKind::DivergentBarrier,
                            Space::Generic,
                            AccessKind::Read,
                            pc,
                            &who,
                        );
                        (rec.addr, rec.other) = (on as u64, live as u64);
                        chk.report(self.cx.mem, self.cx.tlb, &self.cx.space, rec);
                    }
                    if on != 0 {
                        w.at_barrier = true;
                        return Ok(Flow::Barrier);
                    }
                    return Ok(Flow::Next);
                }
                Op::Trap if on != 0 => return Err(trap(TrapReason::Trap)),
                Op::Call => {
                    // Calls are made by every active lane (the compiler emits them unguarded).
                    if on != active || w.calls.len() >= MAX_CALL_DEPTH {
                        return Err(trap(TrapReason::IllegalInstruction));
                    }
                    w.calls.push(next);
                    set_pc!(d.imm as u32);
                    return Ok(Flow::Next);
                }
                Op::Ret => {
                    let Some(ret) = w.calls.pop() else { return Err(trap(TrapReason::IllegalInstruction)) };
                    set_pc!(ret);
                    return Ok(Flow::Next);
                }
                _ => {}
            }
            set_pc!(next);
            if on == 0 {
                return Ok(Flow::Next);
            }
            let slot = |k: usize, reg: u8, lane: usize, regs: &[u64]| -> u64 {
                let is_imm = matches!((k, d.imm_slot), (0, Imm::A) | (1, Imm::B) | (2, Imm::C));
                if is_imm {
                    d.imm
                } else if reg == RZ {
                    0
                } else {
                    regs[reg as usize * 32 + lane]
                }
            };
            let ty = d.ty;
            let msk = mask(ty);
            macro_rules! lanes {
                (|$l:ident| $body:expr) => {
                    for $l in 0..32usize {
                        if on >> $l & 1 == 1 {
                            let v: u64 = $body;
                            if d.dst != RZ {
                                regs[d.dst as usize * 32 + $l] = v;
                            }
                        }
                    }
                };
            }
            match d.op {
                Op::Nop | Op::Membar => {}
                Op::Mov => {
                    let a = gather(&d, 0, regs);
                    put(d.dst, on, &map1(&a, |x| x & msk), regs);
                }
                Op::S2r => {
                    let s = Sreg::from_index(d.imm).ok_or(trap(TrapReason::IllegalInstruction))?;
                    let now = self.cx.now + self.instrs;
                    let lane = |f: fn(u64) -> u64| -> [u64; 32] { core::array::from_fn(|l| f(l as u64)) };
                    let tid = |k: usize| -> [u64; 32] {
                        core::array::from_fn(|l| {
                            let t = (w.base + l as u32) as u64;
                            let (x, y) = (bdim[0] as u64, bdim[1] as u64);
                            match k {
                                0 if bdim[1] == 1 && bdim[2] == 1 => t,
                                0 => t % x,
                                1 => (t / x) % y,
                                _ => t / (x * y),
                            }
                        })
                    };
                    let uniform = |v: u64| [v; 32];
                    let out = match s {
                        Sreg::TidX => tid(0),
                        Sreg::TidY => tid(1),
                        Sreg::TidZ => tid(2),
                        Sreg::NtidX => uniform(bdim[0] as u64),
                        Sreg::NtidY => uniform(bdim[1] as u64),
                        Sreg::NtidZ => uniform(bdim[2] as u64),
                        Sreg::CtaidX => uniform(ctaid[0] as u64),
                        Sreg::CtaidY => uniform(ctaid[1] as u64),
                        Sreg::CtaidZ => uniform(ctaid[2] as u64),
                        Sreg::NctaidX => uniform(r.grid[0] as u64),
                        Sreg::NctaidY => uniform(r.grid[1] as u64),
                        Sreg::NctaidZ => uniform(r.grid[2] as u64),
                        Sreg::LaneId => lane(|l| l),
                        Sreg::WarpId => uniform(warpid as u64),
                        Sreg::NwarpId => uniform(nwarps as u64),
                        Sreg::SmId => uniform(self.smid as u64),
                        Sreg::Clock => uniform(now & 0xFFFF_FFFF),
                        Sreg::Clock64 => uniform(now),
                        Sreg::GlobalTimer => uniform(self.cx.now_ns),
                        Sreg::LanemaskLt => lane(|l| (1u64 << l) - 1),
                        Sreg::LanemaskLe => lane(|l| (1u64 << (l + 1)) - 1),
                        Sreg::LanemaskGt => lane(|l| !((1u64 << (l + 1)) - 1) & 0xFFFF_FFFF),
                        Sreg::LanemaskGe => lane(|l| !((1u64 << l) - 1) & 0xFFFF_FFFF),
                        Sreg::LanemaskEq => lane(|l| 1u64 << l),
                        Sreg::ActiveMask => uniform(active as u64),
                    };
                    put(d.dst, on, &map1(&out, |x| x & msk), regs);
                }
                Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Rem
                | Op::Min
                | Op::Max
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Shl
                | Op::Shr => {
                    let mode = d.m & 3;
                    if binop(d.op, ty, mode, 0, 1).is_none() {
                        return Err(trap(TrapReason::IllegalInstruction));
                    }
                    let (a, b) = (gather(&d, 0, regs), gather(&d, 1, regs));
                    let out = match (d.op, ty, mode) {
                        (Op::Add, Ty::U32 | Ty::S32, _) => map2(&a, &b, |x, y| x.wrapping_add(y) & 0xFFFF_FFFF),
                        (Op::Add, Ty::U64 | Ty::S64, _) => map2(&a, &b, u64::wrapping_add),
                        (Op::Add, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) + f32v(y))),
                        (Op::Sub, Ty::U32 | Ty::S32, _) => map2(&a, &b, |x, y| x.wrapping_sub(y) & 0xFFFF_FFFF),
                        (Op::Sub, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) - f32v(y))),
                        (Op::Mul, Ty::U32 | Ty::S32, 0) => map2(&a, &b, |x, y| x.wrapping_mul(y) & 0xFFFF_FFFF),
                        (Op::Mul, Ty::U32, 2) => map2(&a, &b, |x, y| (x & 0xFFFF_FFFF) * (y & 0xFFFF_FFFF)),
                        (Op::Mul, Ty::S32, 2) => {
                            map2(&a, &b, |x, y| (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64)
                        }
                        (Op::Mul, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) * f32v(y))),
                        (Op::And, _, _) if ty.bytes() >= 4 => map2(&a, &b, |x, y| x & y & msk),
                        (Op::Or, _, _) if ty.bytes() >= 4 => map2(&a, &b, |x, y| (x | y) & msk),
                        (Op::Shl, Ty::U32 | Ty::S32, _) => {
                            // The shift amount is a .u32 operand: its register's upper bits do not count.
                            map2(&a, &b, |x, y| {
                                let s = y & 0xFFFF_FFFF;
                                if s >= 32 { 0 } else { (x << s) & 0xFFFF_FFFF }
                            })
                        }
                        _ => map2(&a, &b, |x, y| binop(d.op, ty, mode, x, y).unwrap_or(0)),
                    };
                    put(d.dst, on, &out, regs);
                }
                Op::Mad => {
                    let mode = d.m & 3;
                    let (a, b, c) = (gather(&d, 0, regs), gather(&d, 1, regs), gather(&d, 2, regs));
                    let out = match (ty, mode) {
                        (Ty::F32, _) => map3(&a, &b, &c, |x, y, z| fb32(libm::fmaf(f32v(x), f32v(y), f32v(z)))),
                        (Ty::F64, _) => map3(&a, &b, &c, |x, y, z| libm::fma(f64v(x), f64v(y), f64v(z)).to_bits()),
                        (Ty::U32 | Ty::S32, 0) => {
                            map3(&a, &b, &c, |x, y, z| x.wrapping_mul(y).wrapping_add(z) & 0xFFFF_FFFF)
                        }
                        (_, m) if m == MulMode::Wide as u16 => {
                            map3(&a, &b, &c, |x, y, z| binop(Op::Mul, ty, m, x, y).unwrap_or(0).wrapping_add(z))
                        }
                        (_, m) => {
                            map3(&a, &b, &c, |x, y, z| binop(Op::Mul, ty, m, x, y).unwrap_or(0).wrapping_add(z) & msk)
                        }
                    };
                    put(d.dst, on, &out, regs);
                }
                Op::Abs
                | Op::Neg
                | Op::Not
                | Op::Popc
                | Op::Clz
                | Op::Brev
                | Op::Sqrt
                | Op::Rcp
                | Op::Rsqrt
                | Op::Sin
                | Op::Cos
                | Op::Ex2
                | Op::Lg2 => {
                    lanes!(|l| unop(d.op, ty, slot(0, d.a, l, regs)))
                }
                Op::Selp => lanes!(|l| if slot(2, d.c, l, regs) & 1 == 1 {
                    slot(0, d.a, l, regs)
                } else {
                    slot(1, d.b, l, regs)
                } & msk),
                Op::Slct => {
                    let cty = match d.m {
                        x if x == Ty::F32 as u16 => Ty::F32,
                        _ => Ty::S32,
                    };
                    lanes!(|l| {
                        let c = slot(2, d.c, l, regs);
                        let ge = if cty == Ty::F32 { f32v(c) >= 0.0 } else { sx(Ty::S32, c) >= 0 };
                        (if ge { slot(0, d.a, l, regs) } else { slot(1, d.b, l, regs) }) & msk
                    })
                }
                Op::Setp => {
                    let cmp = Cmp::from_bits(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
                    let (a, b) = (gather(&d, 0, regs), gather(&d, 1, regs));
                    let out = match (cmp, ty) {
                        (Cmp::Lt, Ty::S32) => map2(&a, &b, |x, y| ((x as i32) < (y as i32)) as u64),
                        (Cmp::Ge, Ty::S32) => map2(&a, &b, |x, y| ((x as i32) >= (y as i32)) as u64),
                        (Cmp::Lt, Ty::U32) => map2(&a, &b, |x, y| ((x as u32) < (y as u32)) as u64),
                        (Cmp::Ge, Ty::U32) => map2(&a, &b, |x, y| ((x as u32) >= (y as u32)) as u64),
                        (Cmp::Eq, Ty::S32 | Ty::U32) => map2(&a, &b, |x, y| (x as u32 == y as u32) as u64),
                        (Cmp::Ne, Ty::S32 | Ty::U32) => map2(&a, &b, |x, y| (x as u32 != y as u32) as u64),
                        _ => map2(&a, &b, |x, y| setp(cmp, ty, x, y) as u64),
                    };
                    put(d.dst, on, &out, regs);
                }
                Op::Cvt => {
                    let CvtMods { round, sat, src, integral } =
                        CvtMods::decode(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
                    lanes!(|l| cvt(ty, src, round, sat, integral, slot(0, d.a, l, regs)))
                }
                Op::Bfe => lanes!(|l| {
                    let (a, pos, len) =
                        (slot(0, d.a, l, regs), slot(1, d.b, l, regs) & 0xFF, slot(2, d.c, l, regs) & 0xFF);
                    let bits = ty.bytes() as u64 * 8;
                    let pos = pos.min(bits);
                    let len = len.min(bits);
                    let v = if len == 0 {
                        0
                    } else {
                        // A start at or past the width extracts nothing (PTX bfe).
                        (a & msk).checked_shr(pos as u32).unwrap_or(0)
                            & if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }
                    };
                    let sign = ty.signed() && len > 0 && {
                        let sb = (pos + len - 1).min(bits - 1);
                        (a >> sb) & 1 == 1
                    };
                    if sign && len < 64 { (v | !((1u64 << len) - 1)) & msk } else { v }
                }),
                Op::Prmt => lanes!(|l| {
                    let (a, b, c) =
                        (slot(0, d.a, l, regs) as u32, slot(1, d.b, l, regs) as u32, slot(2, d.c, l, regs) as u32);
                    let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
                    let mut out = 0u32;
                    for k in 0..4 {
                        let sel = (c >> (4 * k)) & 0xF;
                        let mut byte = bytes[(sel & 7) as usize];
                        if sel & 8 != 0 {
                            byte = if byte & 0x80 != 0 { 0xFF } else { 0 };
                        }
                        out |= (byte as u32) << (8 * k);
                    }
                    out as u64
                }),
                Op::Shf => lanes!(|l| {
                    let (lo, hi, n) =
                        (slot(0, d.a, l, regs) as u32, slot(1, d.b, l, regs) as u32, slot(2, d.c, l, regs) as u32);
                    let n = if d.m & 2 != 0 { n.min(32) } else { n & 31 };
                    let v = (hi as u64) << 32 | lo as u64;
                    (if d.m & 1 == 1 { (v >> n) as u32 } else { ((v << n) >> 32) as u32 }) as u64
                }),
                Op::Cvta => {
                    let CvtaMods { space, to } = CvtaMods::decode(d.m);
                    let window = match space {
                        x if x == Space::Shared as u16 => r.shared_window,
                        x if x == Space::Local as u16 => r.local_window,
                        _ => 0,
                    };
                    lanes!(|l| {
                        let a = slot(0, d.a, l, regs);
                        if to { a.wrapping_sub(window) } else { a.wrapping_add(window) }
                    })
                }
                Op::Ld | Op::St | Op::Atom => self.memory(d, pc, on, regs, shared, local, w.base, ctaid)?,
                Op::Shfl => {
                    let mode = d.m & 3;
                    let src: Vec<u64> = (0..32).map(|l| slot(0, d.a, l, regs)).collect();
                    lanes!(|l| {
                        let (b, c) = (slot(1, d.b, l, regs) as u32, slot(2, d.c, l, regs) as u32);
                        let seg = (c >> 8) & 0x1F;
                        let clamp = c & 0x1F;
                        let (lane, min) = (l as u32, l as u32 & seg);
                        let max = min | (clamp & !seg);
                        let j = match mode {
                            0 => Some(min | (b & !seg)).filter(|&j| j <= max),
                            1 => lane.checked_sub(b).filter(|&j| j >= min),
                            2 => Some(lane + b).filter(|&j| j <= max),
                            _ => Some(lane ^ b).filter(|&j| j <= max),
                        };
                        match j {
                            Some(j) if j < 32 && active >> j & 1 == 1 => src[j as usize] & 0xFFFF_FFFF,
                            _ => src[l] & 0xFFFF_FFFF,
                        }
                    })
                }
                Op::Vote => {
                    let mut ballot = 0u32;
                    for l in 0..32 {
                        if on >> l & 1 == 1 && slot(0, d.a, l, regs) & 1 == 1 {
                            ballot |= 1 << l;
                        }
                    }
                    let v = match d.m & 3 {
                        0 => (ballot == on) as u64,
                        1 => (ballot != 0) as u64,
                        2 => (ballot == on || ballot == 0) as u64,
                        _ => ballot as u64,
                    };
                    lanes!(|_l| v)
                }
                Op::Trap => {}
                Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret => unreachable!("handled above"),
            }
            if self.bcheck.as_ref().is_some_and(|b| !b.prov.is_empty()) {
                self.track_pointers(&d, on, warpid, regs);
            }
            return Ok(Flow::Next);
        }
    }

    /// memcheck's pointer provenance after instruction `d` wrote its destination in lanes
    /// `on`: a 64-bit load of a value inside an allocation (a kernel parameter, a pointer
    /// read from memory) makes it a pointer into that allocation; `mov`, `cvta`, 64-bit
    /// `add`/`sub` and `mad`'s addend carry a pointer's allocation on; any other result is
    /// no pointer.
    fn track_pointers(&mut self, d: &D, on: u32, warp: u32, regs: &[u64]) {
        let (Some(b), Some(chk)) = (self.bcheck.as_deref_mut(), self.check.as_deref()) else { return };
        if d.dst == RZ {
            return;
        }
        let nregs = self.nregs;
        let base = warp as usize * nregs * 32;
        let wide = matches!(d.ty, Ty::U64 | Ty::S64);
        let imm = |k: usize| matches!((k, d.imm_slot), (0, Imm::A) | (1, Imm::B) | (2, Imm::C));
        let n = if d.op == Op::Ld { MemMods::vec(d.m) as usize } else { 1 };
        for l in (0..32).filter(|l| on >> l & 1 == 1) {
            let of = |k: usize, r: u8| {
                if imm(k) || r == RZ || r as usize >= nregs { 0 } else { b.prov[base + r as usize * 32 + l] }
            };
            let p = match d.op {
                Op::Mov | Op::Cvta => of(0, d.a),
                Op::Add if wide => Some(of(0, d.a)).filter(|&p| p != 0).unwrap_or_else(|| of(1, d.b)),
                Op::Sub if wide => of(0, d.a),
                Op::Mad => of(2, d.c),
                Op::Ld if wide && n == 1 => chk.alloc_of(regs[d.dst as usize * 32 + l]),
                _ => 0,
            };
            for k in 0..n {
                let r = d.dst as usize + k;
                if r < nregs {
                    b.prov[base + r * 32 + l] = p;
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn memory(
        &mut self,
        d: D,
        pc: u32,
        on: u32,
        regs: &mut [u64],
        shared: &mut [u8],
        local: &mut [u8],
        tid_base: u32,
        ctaid: [u32; 3],
    ) -> Result<(), GridError> {
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let space = Space::from_bits(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
        let (n, bank) =
            if d.op == Op::Atom { (1, 0) } else { (MemMods::vec(d.m) as usize, MemMods::bank(d.m) as usize) };
        let size = d.ty.bytes() as usize;
        let local_size = self.r.local_size as usize;
        if let Some(p) = self.probe.as_deref_mut() {
            p.on = on;
            p.bytes = (size * n) as u32;
        }
        // A checked launch takes every lane through the checks below.
        if self.check.is_none() && matches!(d.op, Op::Ld | Op::St) && self.coalesced(d, space, n, size, on, regs)? {
            return Ok(());
        }
        if d.op == Op::Ld && matches!(space, Space::Const | Space::ConstBank) && d.a == RZ {
            // A uniform constant load (a kernel parameter): read once, broadcast.
            if let Some(p) = self.probe.as_deref_mut() {
                p.addr = [d.imm; 32];
                p.space = [space; 32];
            }
            let b = if space == Space::Const { &self.banks[0] } else { &self.banks[bank] };
            for k in 0..n {
                let at = d.imm as usize + k * size;
                let v = match b.get(at..at + size) {
                    Some(e) => extend(d.ty, load_le(e, size)),
                    None => 0,
                };
                let dst = d.dst as usize + k;
                if d.dst != RZ && dst < 255 {
                    put(dst as u8, on, &[v; 32], regs);
                }
            }
            return Ok(());
        }
        let mut out_of_bounds = false;
        for l in 0..32usize {
            if on >> l & 1 == 0 {
                continue;
            }
            let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
            let addr = base.wrapping_add(d.imm);
            if addr % (size * n.min(4)) as u64 != 0 && addr % size as u64 != 0 {
                return Err(trap(TrapReason::Misaligned));
            }
            if addr % size as u64 != 0 {
                return Err(trap(TrapReason::Misaligned));
            }
            // Resolve the space of a generic address.
            let (space, addr) = match space {
                Space::Generic
                    if addr.wrapping_sub(self.r.shared_window) < WINDOW_SIZE && self.r.shared_window != 0 =>
                {
                    (Space::Shared, addr - self.r.shared_window)
                }
                Space::Generic if addr.wrapping_sub(self.r.local_window) < WINDOW_SIZE && self.r.local_window != 0 => {
                    (Space::Local, addr - self.r.local_window)
                }
                Space::Generic => (Space::Global, addr),
                s => (s, addr),
            };
            if let Some(p) = self.probe.as_deref_mut() {
                p.addr[l] = addr;
                p.space[l] = space;
            }
            let bytes = size * n;
            if self.check.is_some() {
                let who = Who { ctaid, block: linear(ctaid, self.r.grid), thread: tid_base + l as u32 };
                let lens = (shared.len() as u64, local_size as u64);
                if !self.checked(d, pc, space, addr, bytes as u64, lens, &who) {
                    out_of_bounds = true;
                    continue; // memcheck: this lane's access is not made; the grid stops below
                }
            }
            // A view of the lane's memory for shared/local/constant spaces.
            let window: Option<&mut [u8]> = match space {
                Space::Shared => Some(&mut shared[..]),
                Space::Local => Some(&mut local[l * local_size..(l + 1) * local_size]),
                _ => None,
            };
            match d.op {
                Op::Ld => {
                    let mut buf = [0u8; 32];
                    let buf = &mut buf[..bytes];
                    match space {
                        Space::Global => {
                            self.cx.tlb.read_va(self.cx.mem, &self.cx.space, addr, buf).map_err(GridError::Fault)?
                        }
                        Space::Const | Space::ConstBank => {
                            let b = if space == Space::Const { &self.banks[0] } else { &self.banks[bank] };
                            match b.get(addr as usize..addr as usize + bytes) {
                                Some(src) => buf.copy_from_slice(src),
                                // Beyond the bound size reads as zero.
                                None => {
                                    for (k, x) in buf.iter_mut().enumerate() {
                                        *x = b.get(addr as usize + k).copied().unwrap_or(0);
                                    }
                                }
                            }
                        }
                        _ => {
                            let w = window.ok_or(trap(TrapReason::IllegalInstruction))?;
                            let src =
                                w.get(addr as usize..addr as usize + bytes).ok_or(trap(TrapReason::OutOfRange))?;
                            buf.copy_from_slice(src);
                        }
                    }
                    for k in 0..n {
                        let dst = d.dst as usize + k;
                        if d.dst == RZ || dst >= 255 {
                            continue;
                        }
                        regs[dst * 32 + l] = extend(d.ty, load_le(&buf[k * size..], size));
                    }
                }
                Op::St => {
                    let mut buf = [0u8; 32];
                    for k in 0..n {
                        let src = d.b as usize + k;
                        let v = if d.b == RZ || src >= 255 { 0 } else { regs[src * 32 + l] };
                        store_le(&mut buf[k * size..], size, v);
                    }
                    let buf = &buf[..bytes];
                    match space {
                        Space::Global => {
                            self.cx.tlb.write_va(self.cx.mem, &self.cx.space, addr, buf).map_err(GridError::Fault)?
                        }
                        Space::Const | Space::ConstBank => return Err(trap(TrapReason::IllegalInstruction)),
                        _ => {
                            let w = window.ok_or(trap(TrapReason::IllegalInstruction))?;
                            let dst =
                                w.get_mut(addr as usize..addr as usize + bytes).ok_or(trap(TrapReason::OutOfRange))?;
                            dst.copy_from_slice(buf);
                            self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
                        }
                    }
                }
                _ => {
                    // Atomics: read, modify, write, one lane at a time in lane order.
                    let aop = AtomMods::op(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
                    let mut old = [0u8; 8];
                    match space {
                        Space::Global => self
                            .cx
                            .tlb
                            .read_va(self.cx.mem, &self.cx.space, addr, &mut old[..size])
                            .map_err(GridError::Fault)?,
                        Space::Shared => {
                            let w = window.as_deref().ok_or(trap(TrapReason::IllegalInstruction))?;
                            old[..size].copy_from_slice(
                                w.get(addr as usize..addr as usize + size).ok_or(trap(TrapReason::OutOfRange))?,
                            );
                        }
                        _ => return Err(trap(TrapReason::IllegalInstruction)),
                    }
                    let o = u64::from_le_bytes(old);
                    let b = if d.b == RZ { 0 } else { regs[d.b as usize * 32 + l] };
                    let c = if d.c == RZ { 0 } else { regs[d.c as usize * 32 + l] };
                    let new = atom(aop, d.ty, o, b, c);
                    let nb = new.to_le_bytes();
                    let changed = nb[..size] != old[..size];
                    match space {
                        // An atomic that leaves the value as it was (a failed compare-and-swap,
                        // an add of 0) writes nothing, so a spin on it is seen as one; the page
                        // must still take writes.
                        Space::Global if !changed => {
                            self.cx.tlb.translate(self.cx.mem, &self.cx.space, addr, true).map_err(GridError::Fault)?;
                        }
                        Space::Global => self
                            .cx
                            .tlb
                            .write_va(self.cx.mem, &self.cx.space, addr, &nb[..size])
                            .map_err(GridError::Fault)?,
                        _ if !changed => {}
                        _ => {
                            if let Some(w) = window {
                                w[addr as usize..addr as usize + size].copy_from_slice(&nb[..size]);
                            }
                            self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
                        }
                    }
                    if d.dst != RZ {
                        regs[d.dst as usize * 32 + l] = o;
                    }
                }
            }
        }
        if out_of_bounds {
            return Err(trap(TrapReason::OutOfRange));
        }
        Ok(())
    }

    /// The sanitizer's checks of one lane's access (`lens`: the block's shared bytes and
    /// the thread's local bytes); false when memcheck refuses it.
    #[allow(clippy::too_many_arguments)]
    fn checked(&mut self, d: D, pc: u32, space: Space, addr: u64, bytes: u64, lens: (u64, u64), who: &Who) -> bool {
        let Some(chk) = self.check.as_deref_mut() else { return true };
        let mode = chk.mode();
        let access = match d.op {
            Op::Ld => AccessKind::Read,
            Op::St => AccessKind::Write,
            _ => AccessKind::Atomic,
        };
        let cx = &mut *self.cx;
        let rec = |kind| {
            let mut r = crate::check::record(kind, space, access, pc, who);
            (r.addr, r.size) = (addr, bytes as u32);
            r
        };
        if mode.memcheck() {
            let window = |len: u64| addr.checked_add(bytes).is_none_or(|end| end > len).then_some((0, len));
            // The allocation the base pointer came from, if it is known to come from one.
            let prov = (d.a != RZ)
                .then(|| {
                    let (warp, lane) = ((who.thread / 32) as usize, (who.thread % 32) as usize);
                    let at = warp * self.nregs * 32 + d.a as usize * 32 + lane;
                    self.bcheck.as_ref().and_then(|b| b.prov.get(at).copied())
                })
                .flatten()
                .unwrap_or(0);
            let bad = match space {
                Space::Global if prov != 0 => chk.outside_of(prov, addr, bytes),
                Space::Global => chk.outside(addr, bytes),
                Space::Shared => window(lens.0),
                Space::Local => window(lens.1),
                _ => None,
            };
            if let Some((base, size)) = bad {
                let mut r = rec(CheckKind::OutOfBounds);
                (r.other, r.other_pc) = (base, size.min(u32::MAX as u64) as u32);
                chk.report(cx.mem, cx.tlb, &cx.space, r);
                return false;
            }
        }
        if mode.initcheck()
            && space == Space::Global
            && access != AccessKind::Write
            && let Ok((hw::regs::Target::Vram, pa)) = cx.tlb.translate(cx.mem, &cx.space, addr, false)
            && cx.mem.shadow.as_ref().is_some_and(|s| !s.written(pa, bytes))
        {
            chk.report(cx.mem, cx.tlb, &cx.space, rec(CheckKind::Uninitialized));
        }
        if mode.racecheck() && access != AccessKind::Atomic {
            let write = access == AccessKind::Write;
            let int = self.bcheck.as_ref().map_or(0, |b| b.interval);
            let found = match space {
                Space::Global => chk.global_race(addr, bytes, write, pc, who, int),
                Space::Shared => self.bcheck.as_deref_mut().and_then(|b| b.shared_race(addr, bytes, write, pc, who)),
                _ => None,
            };
            if let Some((hazard, t, block, other_pc)) = found {
                let mut r = rec(CheckKind::Race);
                (r.hazard, r.other, r.other_pc) = (hazard, (block as u64) << 32 | (t - 1) as u64, other_pc);
                chk.report(cx.mem, cx.tlb, &cx.space, r);
            }
        }
        true
    }
}

/// A block's linear index in a grid of `grid` blocks.
pub(crate) fn linear(ctaid: [u32; 3], grid: [u32; 3]) -> u32 {
    ctaid[0] + grid[0] * (ctaid[1] + grid[1] * ctaid[2])
}

impl Exec<'_, '_> {
    /// A global load or store whose active lanes all fall in one page: translate once and
    /// move the whole span with one memory access (what a coalescing memory pipeline does),
    /// applying the lanes in lane order. Returns false when the access does not qualify.
    fn coalesced(
        &mut self,
        d: D,
        space: Space,
        n: usize,
        size: usize,
        on: u32,
        regs: &mut [u64],
    ) -> Result<bool, GridError> {
        let bytes = size * n;
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for l in 0..32usize {
            if on >> l & 1 == 1 {
                let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
                let addr = base.wrapping_add(d.imm);
                if addr % size as u64 != 0 {
                    return Ok(false); // the per-lane path reports the misalignment
                }
                lo = lo.min(addr);
                hi = hi.max(addr);
                if let Some(p) = self.probe.as_deref_mut() {
                    p.addr[l] = addr;
                    p.space[l] = Space::Global;
                }
            }
        }
        let global = match space {
            Space::Global => true,
            Space::Generic => {
                // [lo, hi] must miss both windows entirely.
                let outside = |w: u64| w == 0 || hi < w || lo >= w.saturating_add(WINDOW_SIZE);
                outside(self.r.shared_window) && outside(self.r.local_window)
            }
            _ => false,
        };
        let Some(end) = hi.checked_add(bytes as u64) else { return Ok(false) };
        if !global || lo >> 12 != (end - 1) >> 12 {
            return Ok(false);
        }
        let span = (end - lo) as usize;
        let write = d.op == Op::St;
        let (target, pa) = self.cx.tlb.translate(self.cx.mem, &self.cx.space, lo, write).map_err(GridError::Fault)?;
        let fault = |reason| GridError::Fault(Fault { va: lo, reason, write });
        let mut staging = core::mem::take(&mut *self.span);
        let buf = &mut staging[..span];
        if (!write || span > bytes)
            && let Err(e) = self.cx.mem.read(target, pa, buf)
        {
            *self.span = staging;
            return Err(fault(e));
        }
        for l in 0..32usize {
            if on >> l & 1 == 0 {
                continue;
            }
            let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
            let at = (base.wrapping_add(d.imm) - lo) as usize;
            for k in 0..n {
                let e = &mut buf[at + k * size..at + (k + 1) * size];
                if write {
                    let src = d.b as usize + k;
                    let v = if d.b == RZ || src >= 255 { 0 } else { regs[src * 32 + l] };
                    store_le(e, size, v);
                } else {
                    let dst = d.dst as usize + k;
                    if d.dst == RZ || dst >= 255 {
                        continue;
                    }
                    regs[dst * 32 + l] = extend(d.ty, load_le(e, size));
                }
            }
        }
        let r = if write { self.cx.mem.write(target, pa, buf).map_err(fault) } else { Ok(()) };
        *self.span = staging;
        r.map(|()| true)
    }
}

/// A little-endian element of 1, 2, 4 or 8 bytes (fixed-width reads: no memmove).
#[inline(always)]
fn load_le(b: &[u8], size: usize) -> u64 {
    match size {
        1 => b[0] as u64,
        2 => u16::from_le_bytes([b[0], b[1]]) as u64,
        4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
        _ => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
    }
}

/// Store the low `size` bytes of `v` little-endian.
#[inline(always)]
fn store_le(b: &mut [u8], size: usize, v: u64) {
    match size {
        1 => b[0] = v as u8,
        2 => b[..2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => b[..4].copy_from_slice(&(v as u32).to_le_bytes()),
        _ => b[..8].copy_from_slice(&v.to_le_bytes()),
    }
}

/// The register value of a loaded element (sign-extended for signed types).
#[inline(always)]
fn extend(ty: Ty, raw: u64) -> u64 {
    if ty.signed() { sx(ty, raw) as u64 } else { raw }
}

/// The 32 lane values of operand `k` (a register row, or the immediate everywhere).
#[inline(always)]
fn gather(d: &D, k: usize, regs: &[u64]) -> [u64; 32] {
    let (reg, is_imm) = match k {
        0 => (d.a, d.imm_slot == Imm::A),
        1 => (d.b, d.imm_slot == Imm::B),
        _ => (d.c, d.imm_slot == Imm::C),
    };
    if is_imm {
        [d.imm; 32]
    } else if reg == RZ {
        [0; 32]
    } else {
        let mut out = [0u64; 32];
        out.copy_from_slice(&regs[reg as usize * 32..reg as usize * 32 + 32]);
        out
    }
}

/// Write the active lanes of `out` to register `dst`.
#[inline(always)]
fn put(dst: u8, on: u32, out: &[u64; 32], regs: &mut [u64]) {
    if dst == RZ {
        return;
    }
    let row = &mut regs[dst as usize * 32..dst as usize * 32 + 32];
    if on == u32::MAX {
        row.copy_from_slice(out);
    } else {
        for (l, (r, v)) in row.iter_mut().zip(out).enumerate() {
            if on >> l & 1 == 1 {
                *r = *v;
            }
        }
    }
}

#[inline(always)]
fn map1(a: &[u64; 32], f: impl Fn(u64) -> u64) -> [u64; 32] {
    core::array::from_fn(|l| f(a[l]))
}

#[inline(always)]
fn map2(a: &[u64; 32], b: &[u64; 32], f: impl Fn(u64, u64) -> u64) -> [u64; 32] {
    core::array::from_fn(|l| f(a[l], b[l]))
}

#[inline(always)]
fn map3(a: &[u64; 32], b: &[u64; 32], c: &[u64; 32], f: impl Fn(u64, u64, u64) -> u64) -> [u64; 32] {
    core::array::from_fn(|l| f(a[l], b[l], c[l]))
}

fn binop(op: Op, ty: Ty, mode: u16, a: u64, b: u64) -> Option<u64> {
    let m = mask(ty);
    let bits = ty.bytes() * 8;
    Some(match ty {
        Ty::F32 => {
            let (x, y) = (f32v(a), f32v(b));
            fb32(match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                Op::Min => fminf(x, y),
                Op::Max => fmaxf(x, y),
                Op::Rem => libm::fmodf(x, y),
                _ => return bitop(op, Ty::U32, a, b),
            })
        }
        Ty::F64 => {
            let (x, y) = (f64v(a), f64v(b));
            (match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                Op::Min => libm::fmin(x, y),
                Op::Max => libm::fmax(x, y),
                Op::Rem => libm::fmod(x, y),
                _ => return bitop(op, Ty::U64, a, b),
            })
            .to_bits()
        }
        Ty::Pred => match op {
            Op::And => a & b & 1,
            Op::Or => (a | b) & 1,
            Op::Xor => (a ^ b) & 1,
            _ => return None,
        },
        _ => {
            let signed = ty.signed();
            let (sa, sb) = (sx(ty, a), sx(ty, b));
            let (ua, ub) = (a & m, b & m);
            match op {
                Op::Add => ua.wrapping_add(ub) & m,
                Op::Sub => ua.wrapping_sub(ub) & m,
                Op::Mul => match mode {
                    0 => ua.wrapping_mul(ub) & m,
                    1 => {
                        let p = if signed { (sa as i128 * sb as i128) as u128 } else { ua as u128 * ub as u128 };
                        (p >> bits) as u64 & m
                    }
                    _ => {
                        // Wide: the full product, in twice the width.
                        let p = if signed { (sa as i128 * sb as i128) as u128 } else { ua as u128 * ub as u128 };
                        let wmask = if bits >= 32 { u64::MAX } else { (1u64 << (2 * bits)) - 1 };
                        p as u64 & wmask
                    }
                },
                Op::Div => {
                    if ub == 0 {
                        m
                    } else if signed {
                        sa.wrapping_div(sb) as u64 & m
                    } else {
                        ua / ub
                    }
                }
                Op::Rem => {
                    if ub == 0 {
                        ua
                    } else if signed {
                        sa.wrapping_rem(sb) as u64 & m
                    } else {
                        ua % ub
                    }
                }
                Op::Min => {
                    if signed {
                        sa.min(sb) as u64 & m
                    } else {
                        ua.min(ub)
                    }
                }
                Op::Max => {
                    if signed {
                        sa.max(sb) as u64 & m
                    } else {
                        ua.max(ub)
                    }
                }
                Op::Shl => {
                    let s = b & 0xFFFF_FFFF;
                    if s >= bits as u64 { 0 } else { (ua << s) & m }
                }
                Op::Shr => {
                    let s = b & 0xFFFF_FFFF;
                    if signed {
                        (sa >> s.min(bits as u64 - 1).min(63)) as u64 & m
                    } else if s >= bits as u64 {
                        0
                    } else {
                        ua >> s
                    }
                }
                _ => return bitop(op, ty, a, b),
            }
        }
    })
}

fn bitop(op: Op, ty: Ty, a: u64, b: u64) -> Option<u64> {
    let m = mask(ty);
    Some(match op {
        Op::And => a & b & m,
        Op::Or => (a | b) & m,
        Op::Xor => (a ^ b) & m,
        _ => return None,
    })
}

fn fminf(x: f32, y: f32) -> f32 {
    libm::fminf(x, y)
}
fn fmaxf(x: f32, y: f32) -> f32 {
    libm::fmaxf(x, y)
}

fn unop(op: Op, ty: Ty, a: u64) -> u64 {
    let m = mask(ty);
    let bits = ty.bytes() * 8;
    match ty {
        Ty::F32 => {
            let x = f32v(a);
            fb32(match op {
                Op::Abs => libm::fabsf(x),
                Op::Neg => -x,
                Op::Sqrt => libm::sqrtf(x),
                Op::Rcp => 1.0 / x,
                Op::Rsqrt => 1.0 / libm::sqrtf(x),
                Op::Sin => libm::sinf(x),
                Op::Cos => libm::cosf(x),
                Op::Ex2 => libm::exp2f(x),
                Op::Lg2 => libm::log2f(x),
                _ => return unop(op, Ty::U32, a),
            })
        }
        Ty::F64 => {
            let x = f64v(a);
            (match op {
                Op::Abs => libm::fabs(x),
                Op::Neg => -x,
                Op::Sqrt => libm::sqrt(x),
                Op::Rcp => 1.0 / x,
                Op::Rsqrt => 1.0 / libm::sqrt(x),
                Op::Sin => libm::sin(x),
                Op::Cos => libm::cos(x),
                Op::Ex2 => libm::exp2(x),
                Op::Lg2 => libm::log2(x),
                _ => return unop(op, Ty::U64, a),
            })
            .to_bits()
        }
        Ty::Pred => match op {
            Op::Not => !a & 1,
            _ => a & 1,
        },
        _ => match op {
            Op::Abs => sx(ty, a).unsigned_abs() & m,
            Op::Neg => (a & m).wrapping_neg() & m,
            Op::Not => !a & m,
            Op::Popc => (a & m).count_ones() as u64,
            Op::Clz => ((a & m).leading_zeros() - (64 - bits)) as u64,
            Op::Brev => ((a & m).reverse_bits() >> (64 - bits)) & m,
            _ => a & m,
        },
    }
}

fn setp(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    use core::cmp::Ordering::*;
    let ord = match ty {
        Ty::F32 => f32v(a).partial_cmp(&f32v(b)),
        Ty::F64 => f64v(a).partial_cmp(&f64v(b)),
        t if t.signed() => Some(sx(t, a).cmp(&sx(t, b))),
        t => Some((a & mask(t)).cmp(&(b & mask(t)))),
    };
    match (cmp, ord) {
        (Cmp::Num, o) => o.is_some(),
        (Cmp::Nan, o) => o.is_none(),
        (Cmp::Eq, Some(o)) => o == Equal,
        (Cmp::Ne, Some(o)) => o != Equal,
        (Cmp::Lt, Some(o)) => o == Less,
        (Cmp::Le, Some(o)) => o != Greater,
        (Cmp::Gt, Some(o)) => o == Greater,
        (Cmp::Ge, Some(o)) => o != Less,
        (Cmp::Eq | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge, None) => false,
        (Cmp::Ne, None) => false,
        (Cmp::Equ, o) => o.is_none_or(|o| o == Equal),
        (Cmp::Neu, o) => o.is_none_or(|o| o != Equal),
        (Cmp::Ltu, o) => o.is_none_or(|o| o == Less),
        (Cmp::Leu, o) => o.is_none_or(|o| o != Greater),
        (Cmp::Gtu, o) => o.is_none_or(|o| o == Greater),
        (Cmp::Geu, o) => o.is_none_or(|o| o != Less),
    }
}

fn cvt(dst: Ty, src: Ty, round: Round, sat: bool, integral: bool, a: u64) -> u64 {
    let m = mask(dst);
    let as_f64 = |v: u64| -> f64 {
        match src {
            Ty::F32 => f32v(v) as f64,
            Ty::F64 => f64v(v),
            t if t.signed() => sx(t, v) as f64,
            t => (v & mask(t)) as f64,
        }
    };
    match (dst.float(), src.float()) {
        (true, _) => {
            let mut x = as_f64(a);
            if integral {
                x = round_f64(x, if round == Round::Default { Round::Rn } else { round });
            }
            if sat {
                x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            }
            if src == Ty::S64 || src == Ty::U64 {
                // Exact conversion of 64-bit integers to floats.
                let v = if src == Ty::S64 { sx(src, a) as f64 } else { a as f64 };
                x = v;
            }
            if dst == Ty::F32 {
                let f = if src == Ty::F32 {
                    f32v(a)
                } else if src.float() {
                    x as f32
                } else {
                    int_to_f32(src, a)
                };
                let f = if integral || sat { x as f32 } else { f };
                fb32(f)
            } else {
                x.to_bits()
            }
        }
        (false, true) => {
            let x = round_f64(as_f64(a), round);
            let bits = dst.bytes() * 8;
            if x.is_nan() {
                return 0;
            }
            let p2 = |n: u32| (1u128 << n) as f64;
            if dst.signed() {
                let (lo, hi) = (-p2(bits - 1), p2(bits - 1) - 1.0);
                (x.clamp(lo, hi) as i64) as u64 & m
            } else {
                let hi = if bits == 64 { u64::MAX as f64 } else { p2(bits) - 1.0 };
                x.clamp(0.0, hi) as u64 & m
            }
        }
        (false, false) => {
            // Integer to integer: sign- or zero-extend from the source, then (saturate or) truncate.
            let v = if src.signed() { sx(src, a) } else { (a & mask(src)) as i64 };
            if sat && dst != Ty::Pred {
                let bits = dst.bytes() * 8;
                let (lo, hi): (i128, i128) = if dst.signed() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                let w = if src == Ty::U64 { (a as u128) as i128 } else { v as i128 };
                (w.clamp(lo, hi) as u64) & m
            } else {
                v as u64 & m
            }
        }
    }
}

fn int_to_f32(src: Ty, a: u64) -> f32 {
    match src {
        t if t.signed() => sx(t, a) as f32,
        t => (a & mask(t)) as f32,
    }
}

fn atom(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let m = mask(ty);
    match (op, ty) {
        (AtomOp::Add, Ty::F32) => fb32(f32v(old) + f32v(b)),
        (AtomOp::Add, Ty::F64) => (f64v(old) + f64v(b)).to_bits(),
        (AtomOp::Add, _) => old.wrapping_add(b) & m,
        (AtomOp::Min, t) if t.signed() => sx(t, old).min(sx(t, b)) as u64 & m,
        (AtomOp::Min, _) => (old & m).min(b & m),
        (AtomOp::Max, t) if t.signed() => sx(t, old).max(sx(t, b)) as u64 & m,
        (AtomOp::Max, _) => (old & m).max(b & m),
        (AtomOp::Inc, _) => {
            if (old & m) >= (b & m) {
                0
            } else {
                (old + 1) & m
            }
        }
        (AtomOp::Dec, _) => {
            if old & m == 0 || (old & m) > (b & m) {
                b & m
            } else {
                (old - 1) & m
            }
        }
        (AtomOp::And, _) => old & b & m,
        (AtomOp::Or, _) => (old | b) & m,
        (AtomOp::Xor, _) => (old ^ b) & m,
        (AtomOp::Exch, _) => b & m,
        (AtomOp::Cas, _) => {
            if old & m == b & m {
                c & m
            } else {
                old & m
            }
        }
    }
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
        assert!(decode(i).is_none());
        i.w0.set_m(MemMods::encode(Space::Global, 4, 0));
        assert!(decode(i).is_some());
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
