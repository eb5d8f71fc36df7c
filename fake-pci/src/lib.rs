//! # fake-pci — a simulated Fermi-class PCI GPU
//!
//! The device a real driver would see: PCI configuration space with BAR sizing, a BAR0
//! register file built from [`hw::regs::TABLE`], BAR1 through its own page tables, the
//! PRAMIN window, sparse VRAM, DMA to system memory regions that the platform registers,
//! the Fermi MMU with fault records, PFIFO/PBDMA fetching GPFIFO entries and pushbuffers
//! through the MMU, host-class semaphores and the copy engine.
//!
//! The device is a deterministic state machine written single-threaded against
//! `&mut self` (whoever owns it provides the locking). Time is virtual: [`FakeGpu::step`]
//! advances it by a number of cycles, [`FakeGpu::run`] until the device is idle. Idle
//! stretches are skipped, not ticked. Side effects come back as data ([`WriteEffect`],
//! [`FakeGpu::irq_asserted`]), never as re-entrant calls.
//!
//! Bad input never panics: unclaimed reads return all-ones, absent registers
//! [`hw::regs::BAD_READ`], writes to read-only registers are ignored and logged, garbage
//! in memory the device reads becomes a PBDMA error or an MMU fault for that channel only.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod check;
pub mod compute;
pub mod config;
pub mod copy;
pub mod mmu;
pub mod pci;
pub mod pfifo;
pub mod sysmem;
pub mod timing;
pub mod trace;
pub mod vram;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use compute::ComputeEngine;
pub use config::DeviceConfig;
use copy::CopyEngine;
use fifo::SharedMem;
use hw::regs::{self, *};
use mmu::{AddressSpace, Fault, Memory, Tlb};
use pfifo::{ChanError, ChanState, Channel, Step, Units};
pub use trace::{AccessKind, TraceRecord, Window};

/// What a write may have started (for a platform that runs the device on its own thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteEffect {
    /// The write may have made work runnable (a doorbell, a runlist submit).
    pub kick: bool,
}

/// Whether [`FakeGpu::run`] stopped because nothing was left to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// No channel has work and no engine is busy (channels blocked in an acquire count as idle).
    Idle,
    /// Stopped at the cycle limit with work left.
    Busy,
}

/// Event counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Methods executed.
    pub methods: u64,
    /// GPFIFO entries fetched.
    pub gp_entries: u64,
    /// Copy launches.
    pub copies: u64,
    /// Bytes written by the copy engine.
    pub copy_bytes: u64,
    /// Semaphore releases by the host class.
    pub semaphores: u64,
    /// MMU faults recorded.
    pub faults: u64,
    /// PBDMA errors recorded.
    pub pbdma_errors: u64,
    /// Error records dropped because the queue was full.
    pub dropped_errors: u64,
    /// Ignored accesses (read-only, absent, disabled unit, decoding off).
    pub ignored_writes: u64,
    /// Grids stopped by a trap.
    pub traps: u64,
}

#[derive(Clone, Copy, Debug)]
struct FaultRecord {
    unit: u32,
    inst: u64,
    fault: Fault,
}

#[derive(Clone, Copy, Debug)]
struct TrapRecord {
    chid: u32,
    trap: compute::Trap,
}

#[derive(Clone, Copy, Debug)]
struct PbdmaRecord {
    chid: u32,
    intr: u32,
    subchannel: u8,
    method: u32,
    data: u32,
}

/// The register file: storage for every element of every declared register.
struct RegFile {
    index: BTreeMap<u32, usize>,
    descs: Vec<&'static RegDesc>,
    values: Vec<u32>,
}

impl RegFile {
    fn new() -> Self {
        let mut rf = Self { index: BTreeMap::new(), descs: Vec::new(), values: Vec::new() };
        for d in regs::TABLE {
            for i in 0..d.count {
                rf.index.insert(d.offset + i * d.stride, rf.values.len());
                rf.descs.push(d);
                rf.values.push(d.reset);
            }
        }
        rf
    }
    fn get<T>(&self, r: Reg<T>, i: u32) -> u32 {
        self.index.get(&r.offset_at(i)).map_or(0, |&s| self.values[s])
    }
    fn set<T>(&mut self, r: Reg<T>, i: u32, v: u32) {
        if let Some(&s) = self.index.get(&r.offset_at(i)) {
            self.values[s] = v;
        }
    }
    fn reset_range(&mut self, range: core::ops::Range<u32>) {
        for &s in self.index.range(range).map(|(_, s)| s) {
            self.values[s] = self.descs[s].reset;
        }
    }
}

const QUEUE: usize = 16;

/// An error record for a unit whose registers show one record at a time: present it now
/// when the unit's interrupt is clear, else queue it (a full queue drops and counts it).
fn latch<R, const N: usize>(busy: bool, queue: &mut heapless::Deque<R, N>, r: R, dropped: &mut u64) -> Option<R> {
    if !busy {
        return Some(r);
    }
    if queue.push_back(r).is_err() {
        *dropped += 1;
    }
    None
}
const IGNORED_LOG: usize = 32;

/// The simulated GPU.
pub struct FakeGpu {
    cfg: DeviceConfig,
    pci: pci::PciConfig,
    regs: RegFile,
    mem: Memory,
    tlb: Tlb,
    channels: Vec<Option<Box<Channel>>>,
    runlist: Vec<u32>,
    copy: CopyEngine,
    compute: ComputeEngine,
    timing: timing::TimingEngine,
    launches: u64,
    copy_log: alloc::collections::VecDeque<copy::CopyStats>,
    copy_seq: u64,
    /// The channel holding PFIFO, and the end of its time slice.
    current: Option<(u32, u64)>,
    /// Cycle at which the PBDMA finishes its last method or fetch.
    pbdma_free: u64,
    bar1: Option<AddressSpace>,
    now: u64,
    fault_queue: heapless::Deque<FaultRecord, QUEUE>,
    pbdma_queue: heapless::Deque<PbdmaRecord, QUEUE>,
    trap_queue: heapless::Deque<TrapRecord, QUEUE>,
    ignored: heapless::HistoryBuf<TraceRecord, IGNORED_LOG>,
    trace: Option<(Vec<TraceRecord>, usize)>,
    stats: Stats,
}

impl FakeGpu {
    /// A powered-on board in its reset state: BARs unassigned, memory decoding off.
    pub fn new(cfg: DeviceConfig) -> Self {
        let mut channels = Vec::new();
        channels.resize_with(NUM_CHANNELS as usize, || None);
        Self {
            pci: pci::PciConfig::new(BAR0_SIZE as u64, cfg.bar1_size),
            regs: RegFile::new(),
            mem: Memory {
                vram: vram::Vram::new(cfg.vram_size),
                sys: sysmem::SysMem::default(),
                bus_master: false,
                epoch: 0,
                shadow: None,
            },
            tlb: Tlb::default(),
            channels,
            runlist: Vec::new(),
            copy: CopyEngine::default(),
            compute: ComputeEngine::default(),
            timing: timing::TimingEngine::default(),
            launches: 0,
            copy_log: alloc::collections::VecDeque::new(),
            copy_seq: 0,
            current: None,
            pbdma_free: 0,
            bar1: None,
            now: 0,
            fault_queue: heapless::Deque::new(),
            pbdma_queue: heapless::Deque::new(),
            trap_queue: heapless::Deque::new(),
            ignored: heapless::HistoryBuf::new(),
            trace: None,
            stats: Stats::default(),
            cfg,
        }
    }

    /// The configuration the board was built with.
    pub fn config(&self) -> &DeviceConfig {
        &self.cfg
    }

    /// Current device cycle.
    pub fn cycles(&self) -> u64 {
        self.now
    }

    /// PTIMER nanoseconds now.
    pub fn time_ns(&self) -> u64 {
        self.cfg.cycles_to_ns(self.now)
    }

    /// Event counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Compute engine counters: (grids, warp instructions, thread instructions).
    pub fn compute_stats(&self) -> (u64, u64, u64) {
        (self.compute.grids, self.compute.warp_instructions, self.compute.thread_instructions)
    }

    /// Occupancy of the last grid: blocks resident per SM and waves of blocks.
    pub fn last_occupancy(&self) -> (u32, u64) {
        self.compute.last_occupancy
    }

    /// Statistics of the kernels finished since the last call, oldest first (at most
    /// [`timing::STATS_LOG`] are kept; older ones are dropped and counted in
    /// [`FakeGpu::kernel_stats_dropped`]).
    pub fn take_kernel_stats(&mut self) -> Vec<timing::KernelStats> {
        self.timing.log.drain(..).collect()
    }

    /// Statistics of the copies finished since the last call, oldest first (bounded like
    /// the kernel records).
    pub fn take_copy_stats(&mut self) -> Vec<copy::CopyStats> {
        self.copy_log.drain(..).collect()
    }

    /// Record every change of each SM's resident warps from now on (timing mode), for
    /// timelines.
    pub fn trace_occupancy(&mut self, on: bool) {
        self.timing.samples.on = on;
    }

    /// The occupancy changes recorded since the last call.
    pub fn take_occupancy_samples(&mut self) -> Vec<timing::OccupancySample> {
        core::mem::take(&mut self.timing.samples.list)
    }

    /// Progress of the grids in flight on the timing model: (blocks done, blocks in all).
    pub fn grid_progress(&self) -> (u64, u64) {
        let (t, f) = (self.timing.progress(), self.compute.progress());
        (t.0 + f.0, t.1 + f.1)
    }

    /// Kernel records dropped because nobody took them.
    pub fn kernel_stats_dropped(&self) -> u64 {
        self.timing.log_dropped
    }

    /// Back at most `bytes` of VRAM with host memory: a write needing more faults with
    /// FaultReason::NoBacking (the platform's budget, e.g. a kernel-side heap).
    pub fn set_vram_backing_limit(&mut self, bytes: u64) {
        self.mem.vram.set_backing_limit(bytes);
    }

    /// Host memory spent on touched VRAM.
    pub fn vram_resident_bytes(&self) -> u64 {
        self.mem.vram.resident_bytes()
    }

    /// The most recent ignored accesses (oldest first).
    pub fn ignored_accesses(&self) -> impl Iterator<Item = &TraceRecord> {
        self.ignored.oldest_ordered()
    }

    // ---- the platform side: firmware and IOMMU -------------------------------------------

    /// Assign the BARs, as firmware or the PCI core does before a driver probes.
    pub fn assign_bars(&mut self, bar0: u64, bar1: u64) {
        self.cfg_write32(hw::pci::BAR0, bar0 as u32);
        self.cfg_write32(hw::pci::BAR1_LO, bar1 as u32);
        self.cfg_write32(hw::pci::BAR1_HI, (bar1 >> 32) as u32);
    }

    /// Register `mem` as DMA-able system memory at bus address `bus` (an IOMMU mapping).
    pub fn map_dma(&mut self, bus: u64, mem: Arc<SharedMem>) -> Result<(), sysmem::Unmapped> {
        self.mem.sys.map(bus, mem)
    }

    /// Allocate `len` bytes (rounded up to 4 KiB) of zeroed DMA-able memory and register it
    /// at a free bus address: the platform's `dma_alloc`.
    pub fn dma_alloc(&mut self, len: usize) -> Result<(Arc<SharedMem>, u64), sysmem::Unmapped> {
        let len = len.max(1).checked_next_multiple_of(4096).ok_or(sysmem::Unmapped)?;
        let mem = Arc::new(SharedMem::try_new(len).ok_or(sysmem::Unmapped)?);
        let bus = self.mem.sys.map_anywhere(mem.clone())?;
        Ok((mem, bus))
    }

    /// Number of registered DMA regions.
    pub fn dma_regions(&self) -> usize {
        self.mem.sys.regions()
    }

    /// Remove the DMA region registered at `bus`.
    pub fn unmap_dma(&mut self, bus: u64) -> Option<Arc<SharedMem>> {
        self.mem.sys.unmap(bus)
    }

    // ---- tracing --------------------------------------------------------------------------

    /// Record every access from now on, keeping at most `limit` records.
    pub fn trace_start(&mut self, limit: usize) {
        self.trace = Some((Vec::new(), limit));
    }

    /// Stop tracing and return the records.
    pub fn trace_take(&mut self) -> Vec<TraceRecord> {
        self.trace.take().map(|(v, _)| v).unwrap_or_default()
    }

    /// Stop tracing and write the records as text lines to `w` (the `std` feature).
    /// Returns how many were written.
    #[cfg(feature = "std")]
    pub fn trace_write(&mut self, w: &mut impl std::io::Write) -> std::io::Result<usize> {
        let recs = self.trace_take();
        for r in &recs {
            writeln!(w, "{r}")?;
        }
        w.flush()?;
        Ok(recs.len())
    }

    fn record(&mut self, kind: AccessKind, addr: u64, value: u32, window: Window) {
        if let Some((v, limit)) = self.trace.as_mut()
            && v.len() < *limit
        {
            v.push(TraceRecord { kind, cycle: self.now, addr, value, window });
        }
    }

    fn ignore(&mut self, addr: u64, value: u32, window: Window) {
        self.stats.ignored_writes += 1;
        self.ignored.write(TraceRecord { kind: AccessKind::Write, cycle: self.now, addr, value, window });
    }

    // ---- PCI configuration space ------------------------------------------------------------

    /// Configuration read of the 32-bit word at `off`.
    pub fn cfg_read32(&mut self, off: u16) -> u32 {
        let v = self.pci.read(off);
        self.record(AccessKind::CfgRead, off as u64, v, Window::Config(off));
        v
    }

    /// Configuration write of the 32-bit word at `off`.
    pub fn cfg_write32(&mut self, off: u16, value: u32) {
        self.record(AccessKind::CfgWrite, off as u64, value, Window::Config(off));
        if !self.pci.write(off, value) {
            self.ignore(off as u64, value, Window::Config(off));
        }
        self.mem.bus_master = self.pci.command().bus_master();
    }

    fn decode(&self, addr: u64) -> Window {
        if !self.pci.command().memory_space() {
            return Window::Unclaimed;
        }
        let b0 = self.pci.bar0();
        if addr >= b0 && addr - b0 < BAR0_SIZE as u64 {
            return Window::Bar0((addr - b0) as u32);
        }
        let b1 = self.pci.bar1();
        if addr >= b1 && addr - b1 < self.cfg.bar1_size {
            return Window::Bar1(addr - b1);
        }
        Window::Unclaimed
    }

    // ---- MMIO -------------------------------------------------------------------------------

    /// 32-bit MMIO read at bus address `addr`.
    pub fn mmio_read32(&mut self, addr: u64) -> u32 {
        let w = self.decode(addr);
        let v = match w {
            Window::Bar0(off) => self.bar0_read(off),
            Window::Bar1(off) => self.bar1_read(off),
            _ => u32::MAX,
        };
        self.record(AccessKind::Read, addr, v, w);
        v
    }

    /// 32-bit MMIO write at bus address `addr`.
    pub fn mmio_write32(&mut self, addr: u64, value: u32) -> WriteEffect {
        let w = self.decode(addr);
        self.record(AccessKind::Write, addr, value, w);
        match w {
            Window::Bar0(off) => self.bar0_write(off, value),
            Window::Bar1(off) => self.bar1_write(off, value),
            _ => {
                self.ignore(addr, value, w);
                WriteEffect::default()
            }
        }
    }

    fn enable(&self) -> PmcEnable {
        PmcEnable::from(self.regs.get(NV_PMC_ENABLE, 0))
    }

    /// Whether the unit owning `off` is powered (PMC, PBUS, PFB, PRAMIN always are).
    fn unit_enabled(&self, off: u32) -> bool {
        let e = self.enable();
        let within = |r: core::ops::Range<u32>| r.contains(&off);
        if within(unit::PFIFO) || within(unit::PBDMA) {
            e.pfifo()
        } else if within(unit::PTIMER) {
            e.ptimer()
        } else if within(unit::PCOPY0) {
            e.pcopy0()
        } else if within(unit::PGRAPH) {
            e.pgraph()
        } else {
            true
        }
    }

    fn pramin_addr(&self, off: u32) -> (Target, u64) {
        let w = PbusBar0Window::from(self.regs.get(NV_PBUS_BAR0_WINDOW, 0));
        let t = w.target_or_err().unwrap_or(Target::Invalid);
        (t, ((w.base() as u64) << 16) + (off - NV_PRAMIN) as u64)
    }

    fn bar0_read(&mut self, off: u32) -> u32 {
        if !off.is_multiple_of(4) {
            return BAD_READ;
        }
        if (NV_PRAMIN..NV_PRAMIN + NV_PRAMIN_SIZE).contains(&off) {
            let (t, a) = self.pramin_addr(off);
            return self.mem.read_u32(t, a).unwrap_or(BAD_READ);
        }
        if (NV_PCFG_MIRROR..NV_PCFG_MIRROR + NV_PCFG_MIRROR_SIZE).contains(&off) {
            return self.pci.read((off - NV_PCFG_MIRROR) as u16);
        }
        if !self.unit_enabled(off) {
            return BAD_READ;
        }
        let Some(&slot) = self.regs.index.get(&off) else { return BAD_READ };
        let stored = self.regs.values[slot];
        match off {
            offset::NV_PMC_INTR_0 => self.pmc_intr().into(),
            offset::NV_PFIFO_INTR_0 => self.pfifo_intr(),
            offset::NV_PTIMER_TIME_0 => self.time_ns() as u32,
            offset::NV_PTIMER_TIME_1 => (self.time_ns() >> 32) as u32,
            offset::NV_PFB_VRAM_SIZE => encode_vram_size(self.cfg.vram_size),
            offset::NV_PCOPY0_STATUS => self.copy.busy() as u32,
            offset::NV_PGRAPH_STATUS => (self.compute.busy() || self.timing.busy()) as u32,
            offset::NV_PGRAPH_SM_THREADS => self.cfg.max_threads_per_sm,
            offset::NV_PGRAPH_SM_BLOCKS => self.cfg.max_blocks_per_sm,
            offset::NV_PGRAPH_SM_REGS => self.cfg.regs_per_sm,
            offset::NV_PGRAPH_SM_SHARED => self.cfg.shared_per_sm,
            offset::NV_PGRAPH_WATCHDOG_LO => self.cfg.watchdog_cycles as u32,
            offset::NV_PGRAPH_WATCHDOG_HI => (self.cfg.watchdog_cycles >> 32) as u32,
            offset::NV_PGRAPH_UNITS => {
                PgraphUnits::new().with_gpcs(self.cfg.gpcs as u8).with_sms(self.cfg.sms as u8).into()
            }
            _ => stored,
        }
    }

    fn bar0_write(&mut self, off: u32, value: u32) -> WriteEffect {
        let none = WriteEffect::default();
        if !off.is_multiple_of(4) {
            self.ignore(off as u64, value, Window::Bar0(off));
            return none;
        }
        if (NV_PRAMIN..NV_PRAMIN + NV_PRAMIN_SIZE).contains(&off) {
            let (t, a) = self.pramin_addr(off);
            if self.mem.write_u32(t, a, value).is_err() {
                self.ignore(off as u64, value, Window::Bar0(off));
            }
            return none;
        }
        let slot = match self.regs.index.get(&off) {
            Some(&s) if self.unit_enabled(off) && self.regs.descs[s].access != Access::Ro => s,
            _ => {
                self.ignore(off as u64, value, Window::Bar0(off));
                return none;
            }
        };
        let desc = self.regs.descs[slot];
        let old = self.regs.values[slot];
        let new = desc.apply_write(old, value);
        self.regs.values[slot] = new;
        // Side effects by the declaration's offset (element 0 for arrays; `i` is the element).
        let i = desc.index_of(off).unwrap_or(0);
        match desc.offset {
            offset::NV_PMC_ENABLE => self.enable_changed(PmcEnable::from(old), PmcEnable::from(new)),
            offset::NV_PBUS_BAR1_BLOCK => self.bar1_changed(),
            offset::NV_PFIFO_RUNLIST_SUBMIT => {
                self.runlist_submit(new & 0xFFFF);
                return WriteEffect { kick: true };
            }
            offset::NV_PFIFO_CHAN_INST => {
                if old != new {
                    self.unbind(i);
                }
                return WriteEffect { kick: true };
            }
            offset::NV_PFIFO_CHAN_STATE => return WriteEffect { kick: true },
            offset::NV_PFB_CHECK_SHADOW => {
                self.mem.shadow = (new & 1 == 1).then(|| self.mem.shadow.take().unwrap_or_default());
            }
            offset::NV_PFB_CHECK_CLEAR_SIZE => {
                let at = self.regs.get(NV_PFB_CHECK_CLEAR_LO, 0) as u64
                    | (self.regs.get(NV_PFB_CHECK_CLEAR_HI, 0) as u64) << 32;
                if let Some(s) = self.mem.shadow.as_mut() {
                    s.clear(at, new as u64);
                }
            }
            offset::NV_PFIFO_MMU_FAULT_UNITS => self.next_faults(),
            offset::NV_PPBDMA_INTR_0 => self.next_pbdma(),
            offset::NV_PGRAPH_INTR => self.next_trap(),
            offset::NV_PFB_TLB_FLUSH_TRIGGER => {
                let t = TlbFlushTrigger::from(new);
                if t.trigger() {
                    let pdb = TlbFlushPdb::from(self.regs.get(NV_PFB_TLB_FLUSH_PDB, 0));
                    self.tlb.flush_pd((pdb.pd() as u64) << 12);
                }
                self.regs.values[slot] = 0; // self-clearing trigger
            }
            _ => {}
        }
        none
    }

    fn enable_changed(&mut self, old: PmcEnable, new: PmcEnable) {
        if old.pfifo() && !new.pfifo() {
            // Disabling a unit resets it: channels unload, PFIFO and PBDMA registers reset.
            for chid in 0..NUM_CHANNELS {
                self.unbind(chid);
            }
            self.runlist.clear();
            self.regs.reset_range(unit::PFIFO);
            self.regs.reset_range(unit::PBDMA);
            self.fault_queue.clear();
            self.pbdma_queue.clear();
        }
    }

    fn bar1_changed(&mut self) {
        let b = PbusBar1Block::from(self.regs.get(NV_PBUS_BAR1_BLOCK, 0));
        self.bar1 =
            if b.use_vm() { AddressSpace::from_instance(&self.mem, (b.inst() as u64) << 12).ok() } else { None };
    }

    fn bar1_target(&mut self, off: u64, write: bool) -> Result<(Target, u64), ()> {
        let b = PbusBar1Block::from(self.regs.get(NV_PBUS_BAR1_BLOCK, 0));
        if !b.use_vm() {
            return Ok((Target::Vram, off));
        }
        // The instance block may have been written after the register; re-read it lazily.
        if self.bar1.is_none() {
            self.bar1_changed();
        }
        let space = self.bar1.ok_or(())?;
        self.tlb.translate(&self.mem, &space, off, write).map_err(|fault| {
            self.raise_fault(FaultRecord { unit: fault_unit::BAR1, inst: space.inst, fault });
        })
    }

    fn bar1_read(&mut self, off: u64) -> u32 {
        if !off.is_multiple_of(4) {
            return BAD_READ;
        }
        match self.bar1_target(off, false) {
            Ok((t, pa)) => self.mem.read_u32(t, pa).unwrap_or(BAD_READ),
            Err(()) => BAD_READ,
        }
    }

    fn bar1_write(&mut self, off: u64, value: u32) -> WriteEffect {
        if !off.is_multiple_of(4) {
            self.ignore(off, value, Window::Bar1(off));
            return WriteEffect::default();
        }
        match self.bar1_target(off, true) {
            Ok((t, pa)) => {
                if self.mem.write_u32(t, pa, value).is_err() {
                    self.ignore(off, value, Window::Bar1(off));
                }
                WriteEffect { kick: true }
            }
            Err(()) => WriteEffect::default(),
        }
    }

    // ---- interrupts -------------------------------------------------------------------------

    fn pfifo_intr(&self) -> u32 {
        let mut v = PfifoIntr::from(self.regs.get(NV_PFIFO_INTR_0, 0));
        if self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) != 0 {
            v.set_mmu_fault(true);
        }
        if (0..NUM_PBDMA).any(|i| self.regs.get(NV_PPBDMA_INTR_0, i) != 0) {
            v.set_pbdma_intr(true);
        }
        v.into()
    }

    fn pmc_intr(&self) -> PmcIntr {
        let e = self.enable();
        let pfifo = e.pfifo() && self.pfifo_intr() & self.regs.get(NV_PFIFO_INTR_EN_0, 0) != 0;
        let pgraph = e.pgraph() && self.regs.get(NV_PGRAPH_INTR, 0) & self.regs.get(NV_PGRAPH_INTR_EN, 0) != 0;
        PmcIntr::new().with_pfifo(pfifo).with_pgraph(pgraph)
    }

    fn raise_trap(&mut self, r: TrapRecord) {
        self.stats.traps += 1;
        let busy = self.regs.get(NV_PGRAPH_INTR, 0) != 0;
        if let Some(r) = latch(busy, &mut self.trap_queue, r, &mut self.stats.dropped_errors) {
            self.write_trap(r);
        }
    }

    fn write_trap(&mut self, r: TrapRecord) {
        self.regs.set(NV_PGRAPH_TRAP_CHANNEL, 0, r.chid);
        self.regs.set(NV_PGRAPH_TRAP_INFO, 0, r.trap.reason as u32);
        self.regs.set(NV_PGRAPH_TRAP_PC, 0, r.trap.pc);
        self.regs.set(NV_PGRAPH_INTR, 0, PgraphIntr::new().with_trap(true).into());
    }

    fn next_trap(&mut self) {
        if self.regs.get(NV_PGRAPH_INTR, 0) == 0
            && let Some(r) = self.trap_queue.pop_front()
        {
            self.write_trap(r);
        }
    }

    /// Whether the INTA line is asserted (stall or non-stall interrupt pending and enabled).
    pub fn irq_asserted(&self) -> bool {
        if self.pci.command().intx_disable() {
            return false;
        }
        let stall = u32::from(self.pmc_intr()) & self.regs.get(NV_PMC_INTR_EN_0, 0);
        let nonstall = self.regs.get(NV_PMC_INTR_1, 0) & self.regs.get(NV_PMC_INTR_EN_1, 0);
        stall | nonstall != 0
    }

    fn raise_fault(&mut self, r: FaultRecord) {
        self.stats.faults += 1;
        let bit = 1u32 << (r.unit & 31);
        if self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) & bit == 0 {
            self.write_fault(r);
        } else if self.fault_queue.push_back(r).is_err() {
            self.stats.dropped_errors += 1;
        }
    }

    fn write_fault(&mut self, r: FaultRecord) {
        let u = r.unit & 31;
        self.regs.set(NV_PFIFO_FAULT_INST, u, (r.inst >> 12) as u32);
        self.regs.set(NV_PFIFO_FAULT_VA_LO, u, r.fault.va as u32);
        self.regs.set(NV_PFIFO_FAULT_VA_HI, u, (r.fault.va >> 32) as u32);
        let info = PfifoFaultInfo::new().with_reason(r.fault.reason).with_write(r.fault.write);
        self.regs.set(NV_PFIFO_FAULT_INFO, u, info.into());
        let units = self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) | 1 << u;
        self.regs.set(NV_PFIFO_MMU_FAULT_UNITS, 0, units);
    }

    fn next_faults(&mut self) {
        let mut keep: heapless::Deque<FaultRecord, QUEUE> = heapless::Deque::new();
        while let Some(r) = self.fault_queue.pop_front() {
            if self.regs.get(NV_PFIFO_MMU_FAULT_UNITS, 0) & (1 << (r.unit & 31)) == 0 {
                self.write_fault(r);
            } else {
                let _ = keep.push_back(r);
            }
        }
        self.fault_queue = keep;
    }

    fn raise_pbdma(&mut self, r: PbdmaRecord) {
        self.stats.pbdma_errors += 1;
        let busy = self.regs.get(NV_PPBDMA_INTR_0, 0) != 0;
        if let Some(r) = latch(busy, &mut self.pbdma_queue, r, &mut self.stats.dropped_errors) {
            self.write_pbdma(r);
        }
    }

    fn write_pbdma(&mut self, r: PbdmaRecord) {
        let m = PbdmaMethod::new().with_method(((r.method >> 2) & 0xFFF) as u16).with_subchannel(r.subchannel & 7);
        self.regs.set(NV_PPBDMA_METHOD0, 0, m.into());
        self.regs.set(NV_PPBDMA_DATA0, 0, r.data);
        self.regs.set(NV_PPBDMA_CHANNEL, 0, r.chid);
        self.regs.set(NV_PPBDMA_INTR_0, 0, r.intr);
    }

    fn next_pbdma(&mut self) {
        if self.regs.get(NV_PPBDMA_INTR_0, 0) == 0
            && let Some(r) = self.pbdma_queue.pop_front()
        {
            self.write_pbdma(r);
        }
    }

    fn channel_error(&mut self, chid: u32, inst: u64, e: ChanError) {
        if let Some(ch) = self.channels[chid as usize].as_mut() {
            ch.state = ChanState::Stopped;
        }
        match e {
            ChanError::Fault { unit, fault } => self.raise_fault(FaultRecord { unit, inst, fault }),
            ChanError::Trap(trap) => self.raise_trap(TrapRecord { chid, trap }),
            ChanError::Pbdma { intr, subchannel, method, data } => {
                self.raise_pbdma(PbdmaRecord { chid, intr, subchannel, method, data })
            }
        }
    }

    // ---- channels and the runlist -----------------------------------------------------------

    fn unbind(&mut self, chid: u32) {
        if let Some(slot) = self.channels.get_mut(chid as usize)
            && slot.take().is_some()
        {
            self.copy.cancel(chid);
            self.timing.cancel(&mut self.compute, chid, self.now);
            self.compute.cancel(chid, self.now);
        }
    }

    fn runlist_submit(&mut self, count: u32) {
        let base = PfifoRunlistBase::from(self.regs.get(NV_PFIFO_RUNLIST_BASE, 0));
        let target = base.target_or_err().unwrap_or(Target::Invalid);
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
    fn ensure_loaded(&mut self, chid: u32) -> bool {
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
                    let space = AddressSpace { inst: addr, pd: 0, pd_target: Target::Vram, limit: 0 };
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

    // ---- the clock --------------------------------------------------------------------------

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

    /// Re-read doorbells and re-evaluate blocked acquires.
    fn refresh(&mut self) {
        for i in 0..self.runlist.len() {
            let chid = self.runlist[i];
            if !self.ensure_loaded(chid) {
                continue;
            }
            let Some(mut ch) = self.channels[chid as usize].take() else { continue };
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

    /// Process events up to cycle `end`. Returns true if the device went idle.
    ///
    /// Events run in time order; at equal times channels and the copy engine go before the
    /// compute engine's cycles. The compute engine runs in bulk up to the next other event.
    fn advance(&mut self, end: u64, stop_when_idle: bool) -> bool {
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
                    continue;
                }
                let mut env = timing::Env { mem: &mut self.mem, tlb: &mut self.tlb, cfg: &self.cfg };
                let last = self.timing.advance(&mut self.compute, &mut env, self.now, horizon);
                self.now = self.now.max(last);
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

    /// A functional-mode grid ended at cycle `at`: record its statistics; its channel hears
    /// of it at that cycle.
    fn functional_done(&mut self, g: compute::FuncGrid, at: u64, r: Result<(), compute::GridError>) {
        self.timing.record(timing::KernelStats {
            seq: g.seq,
            chid: g.chid,
            code: g.r.code,
            entry: g.r.start,
            grid: g.r.grid,
            block: g.r.block,
            start_cycle: g.start,
            end_cycle: at,
            warp_instructions: g.instructions(),
            thread_instructions: g.thread_instrs,
            max_warps_per_sm: self.cfg.max_threads_per_sm / 32,
            sms: self.cfg.sms,
            blocks_per_sm: g.per_sm,
            failed: r.is_err(),
            ..timing::KernelStats::default()
        });
        self.timing.complete(timing::Done { chid: g.chid, at, result: r });
    }

    /// A grid of the timing model ended: its channel may go on, or takes the error.
    fn grid_done(&mut self, d: timing::Done) {
        let Some(ch) = self.channels.get_mut(d.chid as usize).and_then(|c| c.as_mut()) else { return };
        ch.grids_in_flight = ch.grids_in_flight.saturating_sub(1);
        if ch.grids_in_flight == 0 && ch.state == ChanState::WaitGrids {
            ch.state = ChanState::Active;
            ch.ready_at = ch.ready_at.max(self.now);
        }
        let inst = ch.space.inst;
        match d.result {
            Ok(()) => {}
            Err(compute::GridError::Fault(fault)) => {
                self.channel_error(d.chid, inst, ChanError::Fault { unit: hw::regs::fault_unit::PGRAPH, fault })
            }
            Err(compute::GridError::Trap(t)) => self.channel_error(d.chid, inst, ChanError::Trap(t)),
        }
        self.refresh_acquires();
    }

    /// The channel PFIFO serves next, and when. The channel holding PFIFO keeps it while it
    /// will be ready within its time slice; otherwise (its slice ended, it blocked, or it
    /// waits beyond the slice) the next is chosen among the channels ready earliest: by
    /// priority then round robin after the current one (`priority` policy), or round robin
    /// alone.
    fn next_channel(&self) -> Option<(u64, u32)> {
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
            let prio = if self.cfg.channel_policy == config::ChannelPolicy::Priority { prio } else { 0 };
            if best.is_none_or(|(p, _, _)| prio > p) {
                best = Some((prio, chid, at));
            }
        }
        best.map(|(_, chid, at)| (at.max(self.pbdma_free), chid))
    }

    fn run_channel(&mut self, chid: u32) {
        if self.current.is_none_or(|(c, _)| c != chid) {
            let slice = self.channels[chid as usize].as_ref().map_or(0, |c| c.timeslice);
            let slice = if slice == 0 { self.cfg.timeslice_cycles } else { slice };
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

    fn refresh_acquires(&mut self) {
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

    fn complete_copy(&mut self) {
        let Some(job) = self.copy.pop() else { return };
        let now_ns = self.time_ns();
        let r = job.execute(&mut self.mem, &mut self.tlb, &mut self.copy.scratch, now_ns);
        if self.copy_log.len() >= timing::STATS_LOG {
            self.copy_log.pop_front();
        }
        self.copy_log.push_back(copy::CopyStats {
            seq: self.copy_seq,
            chid: job.chid,
            bytes: job.bytes(),
            path: job.path,
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
