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

// The floor plan, host interface first, then memory, the front end and the engines.

// Host interface: the PCI function, the register file, PMC and the error records.
mod bus; // configuration space, BAR decode, MMIO entry points, BAR1, DMA registration
mod fault; // MMU fault, trap and PBDMA error records
pub mod pci; // PCI configuration space contents
mod pmc; // unit enables and the interrupt tree
mod regfile; // BAR0 registers and their side effects (by offset), PRAMIN
pub mod trace; // the MMIO trace
// Memory: VRAM, system memory through DMA, the MMU and its TLB, the peer port (other
// GPUs' VRAM through the peer table), initcheck's shadow of written bytes.
pub mod mem;
pub use mem::{gate, mmu, peer, shadow, sysmem, vram};
// Front end: PFIFO (scheduler, channels, PBDMA, host class).
pub mod pfifo;
// Engines: copy, compute (both modes), the timing model, the sanitizer unit.
pub mod check;
pub mod compute;
pub mod copy;
pub mod timing;
// The progress watch: snapshots of the work in flight for host tools.
pub mod watch;
// The clock that runs them, the board's configuration (parameters grouped by unit: keys,
// validation, presets), a system of GPUs (placement on the buses, the interconnect,
// system presets), and the machine that steps a system's GPUs over their links.
mod clock;
pub mod config;
pub mod machine;
pub mod system;

use alloc::boxed::Box;
use alloc::vec::Vec;
use compute::ComputeEngine;
pub use config::DeviceConfig;

/// A GPU's VRAM and its initcheck shadow, as its machine lends them to a peer.
pub(crate) type Store = (vram::Vram, Option<shadow::Shadow>);
use copy::CopyEngine;
use fault::{FaultRecord, PbdmaRecord, QUEUE, TrapRecord};
use hw::regs::*;
use mmu::{AddressSpace, Memory, Tlb};
use pfifo::Channel;
use regfile::RegFile;
pub use trace::{AccessKind, TraceFilter, TraceRecord, Window};

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
    trace: Option<trace::Tracer>,
    watch: Option<watch::Watch>,
    stats: Stats,
}

impl FakeGpu {
    /// A powered-on board in its reset state: BARs unassigned, memory decoding off.
    pub fn new(cfg: DeviceConfig) -> Self {
        let mut channels = Vec::new();
        channels.resize_with(NUM_CHANNELS as usize, || None);
        Self {
            pci: pci::PciConfig::new(BAR0_SIZE as u64, cfg.board.bar1_size),
            regs: RegFile::new(cfg.board.cc_major, cfg.board.cc_minor),
            mem: Memory {
                vram: vram::Vram::new(cfg.board.vram_size),
                sys: sysmem::SysMem::default(),
                bus_master: false,
                epoch: 0,
                shadow: None,
                peers: Default::default(),
                gate: Default::default(),
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
            watch: None,
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
    /// Watch the work in flight from now on (None: stop).
    pub fn set_watch(&mut self, w: Option<watch::Watch>) {
        self.watch = w;
    }

    /// The work in flight now, as a watch sees it.
    pub fn snapshot(&self) -> watch::Snapshot {
        let (blocks_done, blocks) = self.grid_progress();
        let warp_instructions =
            self.compute.warp_instructions + self.compute.running_instructions() + self.timing.running_instructions();
        watch::Snapshot { cycle: self.now, blocks_done, blocks, warp_instructions }
    }

    /// Blocks finished and blocks in all of the grids in flight.
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

    /// The routing ids the peer table (NV_PFB_PEER) names: the peers whose VRAM this GPU
    /// reaches, which its machine lends it while it runs ([`machine::Machine`]).
    pub fn peer_ids(&self) -> Vec<u16> {
        let mut ids: Vec<u16> = self.mem.peers.table.iter().flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Lend this GPU peer `rid`'s VRAM (taken with [`FakeGpu::take_vram`]) over `link`,
    /// until [`FakeGpu::return_peers`].
    pub(crate) fn lend_peer(&mut self, rid: u16, (vram, shadow): Store, link: peer::Link) {
        self.mem.peers.lent.push(peer::Lent { rid, vram, shadow, link });
    }

    /// Give back what was lent: (routing id, VRAM and shadow).
    pub(crate) fn return_peers(&mut self) -> Vec<(u16, Store)> {
        self.mem.peers.lent.drain(..).map(|l| (l.rid, (l.vram, l.shadow))).collect()
    }

    /// Take this GPU's VRAM (and initcheck shadow) out to lend it to a peer (the GPU must not run, nor its
    /// VRAM be reached through BAR1 or PRAMIN, until [`FakeGpu::put_vram`] puts it back:
    /// the platform holds the GPU's lock meanwhile).
    pub(crate) fn take_vram(&mut self) -> Store {
        (core::mem::replace(&mut self.mem.vram, vram::Vram::new(0)), self.mem.shadow.take())
    }

    /// Put back the VRAM [`FakeGpu::take_vram`] took; its write epoch moves (a peer may
    /// have written it: warps spinning on it must look again).
    pub(crate) fn put_vram(&mut self, (v, shadow): Store) {
        self.mem.vram = v;
        self.mem.shadow = shadow;
        self.mem.epoch = self.mem.epoch.wrapping_add(1);
    }

    /// The identities of the host memory regions registered for DMA (see
    /// `SysMem::region_ids`): GPUs registering the same memory share it.
    pub fn dma_region_ids(&self) -> Vec<usize> {
        self.mem.sys.region_ids().collect()
    }

    /// Bytes this GPU moved to and from peers so far (loads, stores and copies).
    pub fn peer_traffic(&self) -> (u64, u64) {
        (self.mem.peers.read_bytes.get(), self.mem.peers.write_bytes)
    }
}
