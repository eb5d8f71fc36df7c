//! The value layouts of the BAR0 registers (bitfields, enums and packed in-memory words
//! such as the runlist entry), each named by the register it belongs to; `regs` re-exports
//! them all.

use modular_bitfield::prelude::*;

/// NV_PMC_BOOT_0 layout. nouveau: chipset = (boot0 >> 20) & 0x1ff.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmcBoot0 {
    /// Stepping (A1 = 0xA1).
    pub stepping: B8,
    #[skip]
    __: B12,
    /// Implementation within the architecture.
    pub implementation: B4,
    /// Architecture (0x0C = Fermi).
    pub architecture: B5,
    #[skip]
    __: B3,
}

impl PmcBoot0 {
    /// Chipset number as nouveau derives it (0xC0 for GF100).
    pub fn chipset(&self) -> u32 {
        (u32::from(*self) >> 20) & 0x1ff
    }

    /// The NV_PMC_BOOT_0 of the first chip of the architecture compute capability
    /// `major.minor` belongs to, stepping A1 (nouveau's chipset numbers): GF100 0xC0 (2.x),
    /// GK110 0xF0 (3.x), GM200 0x120 (5.x), GP100 0x130 (6.x), GV100 0x140 (7.0, 7.2),
    /// TU102 0x162 (7.5), GA100 0x170 (8.x), GH100 0x180 (9.x and later).
    pub fn for_cc(major: u32, minor: u32) -> Self {
        let chipset: u32 = match (major, minor) {
            (..=2, _) => 0xC0,
            (3 | 4, _) => 0xF0,
            (5, _) => 0x120,
            (6, _) => 0x130,
            (7, 5..) => 0x162,
            (7, _) => 0x140,
            (8, _) => 0x170,
            _ => 0x180,
        };
        Self::new()
            .with_stepping(0xA1)
            .with_implementation((chipset & 0xF) as u8)
            .with_architecture((chipset >> 4) as u8)
    }
}

/// Per-unit interrupt bits of NV_PMC_INTR_* and NV_PMC_INTR_EN_*.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmcIntr {
    #[skip]
    __: B5,
    /// Copy engine 0.
    pub pcopy0: bool,
    /// Copy engine 1.
    pub pcopy1: bool,
    #[skip]
    __: B1,
    /// PFIFO (stall) or host non-stall (non-stall register).
    pub pfifo: bool,
    #[skip]
    __: B3,
    /// Graphics/compute.
    pub pgraph: bool,
    /// Framebuffer/MMU (model: replayable faults recorded, NV_PFB_REPLAY_INTR).
    pub pfb: bool,
    #[skip]
    __: B6,
    /// Timer.
    pub ptimer: bool,
    #[skip]
    __: B11,
}

/// NV_PMC_ENABLE layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmcEnable {
    #[skip]
    __: B6,
    /// Copy engine 0.
    pub pcopy0: bool,
    /// Copy engine 1.
    pub pcopy1: bool,
    /// PFIFO.
    pub pfifo: bool,
    #[skip]
    __: B3,
    /// PGRAPH.
    pub pgraph: bool,
    #[skip]
    __: B3,
    /// PTIMER.
    pub ptimer: bool,
    #[skip]
    __: B15,
}

/// Memory target of an instance block, runlist, window or PTE (VRAM is 0 here, unlike a PDE).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum Target {
    /// Video memory.
    Vram = 0,
    /// Another GPU's video memory (rgdev's peer aperture, in PTEs only: the PTE's `peer`
    /// field indexes the peer table, NV_PFB_PEER; elsewhere the device treats it as an
    /// error, as Fermi does this reserved encoding).
    Peer = 1,
    /// System memory, snooped.
    SysCoherent = 2,
    /// System memory, not snooped.
    SysNonCoherent = 3,
}

/// NV_PFB_PEER layout (model): a peer table entry.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbPeer {
    /// The peer's PCI routing id: bus 15:8, device 7:3, function 2:0.
    pub rid: B16,
    #[skip]
    __: B15,
    /// The entry names a peer.
    pub valid: bool,
}

/// NV_PBUS_BAR0_WINDOW layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PbusBar0Window {
    /// Window base address >> 16.
    pub base: B24,
    /// Target memory.
    pub target: Target,
    #[skip]
    __: B6,
}

/// NV_PBUS_BAR1_BLOCK layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PbusBar1Block {
    /// Instance block address >> 12.
    pub inst: B28,
    /// Target of the instance block.
    pub target: Target,
    #[skip]
    __: B1,
    /// BAR1 goes through the page tables of the instance block (else: physical VRAM).
    pub use_vm: bool,
}

/// NV_PFIFO_INTR_* layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoIntr {
    /// A channel was bound to a bad instance block.
    pub bind_error: bool,
    #[skip]
    __: B7,
    /// Scheduler error (runlist names an unbound channel).
    pub sched_error: bool,
    #[skip]
    __: B19,
    /// MMU fault: see NV_PFIFO_MMU_FAULT_UNITS and the fault records.
    pub mmu_fault: bool,
    /// A PBDMA unit raised an interrupt: see NV_PPBDMA_INTR_0.
    pub pbdma_intr: bool,
    /// Runlist update completed.
    pub runlist_event: bool,
    #[skip]
    __: B1,
}

/// NV_PFIFO_USERD_BASE layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoUserdBase {
    /// BAR1 offset of channel 0's USERD >> 12.
    pub bar1_page: B28,
    /// Set (0x10000000) when the base is valid.
    pub valid: bool,
    #[skip]
    __: B3,
}

/// NV_PFIFO_RUNLIST_BASE layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoRunlistBase {
    /// Runlist address >> 12.
    pub addr: B28,
    /// Target.
    pub target: Target,
    #[skip]
    __: B2,
}

/// NV_PFIFO_RUNLIST_STATUS layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoRunlistStatus {
    #[skip]
    __: B20,
    /// An update is still being processed.
    pub pending: bool,
    #[skip]
    __: B11,
}

/// MMU fault reasons (NV_PFIFO_FAULT_INFO bits 3:0; gf100 names).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 4]
pub enum FaultReason {
    /// The page directory entry has no table for the address.
    PdeNotPresent = 0,
    /// The page table is shorter than the index (unused by the model).
    PtTooShort = 1,
    /// The page table entry is not valid.
    PteNotPresent = 2,
    /// The address is above the VA limit of the instance block.
    VaLimitExceeded = 3,
    /// No channel/instance (BAR1 with no instance block).
    NoChannel = 4,
    /// Privileged page touched by an unprivileged client.
    Privileged = 5,
    /// Write to a read-only page.
    ReadOnly = 6,
    /// Reserved.
    Reserved7 = 7,
    /// Reserved.
    Reserved8 = 8,
    /// Reserved.
    Reserved9 = 9,
    /// Reserved.
    Reserved10 = 10,
    /// Model: the physical address is outside VRAM or names no registered DMA region.
    BusError = 11,
    /// Model: the entry's target/aperture field holds the reserved encoding.
    InvalidTarget = 12,
    /// Model: the simulator could not back the VRAM page with host memory (its backing
    /// budget or the host heap is exhausted); the runtime reports CUDA_ERROR_OUT_OF_MEMORY.
    NoBacking = 13,
    /// Reserved.
    Reserved14 = 14,
    /// Reserved.
    Reserved15 = 15,
}

/// NV_PFIFO_FAULT_INFO layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoFaultInfo {
    /// Why the access faulted.
    pub reason: FaultReason,
    #[skip]
    __: B3,
    /// The access was a write.
    pub write: bool,
    #[skip]
    __: B24,
}

/// Fault units: index of the fault record slot (gf100 numbering).
pub mod fault_unit {
    /// PGRAPH (compute).
    pub const PGRAPH: u32 = 0x00;
    /// BAR1 accesses from the host.
    pub const BAR1: u32 = 0x04;
    /// PFIFO/PBDMA fetches (GPFIFO, pushbuffer, USERD, semaphores).
    pub const PFIFO: u32 = 0x07;
    /// Copy engine 0.
    pub const PCOPY0: u32 = 0x15;
    /// Copy engine 1.
    pub const PCOPY1: u32 = 0x16;
}

/// NV_PFIFO_CHAN_INST layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoChanInst {
    /// Instance block address >> 12.
    pub inst: B28,
    /// Target of the instance block.
    pub target: Target,
    #[skip]
    __: B1,
    /// The entry is bound.
    pub valid: bool,
}

/// NV_PFIFO_CHAN_STATE layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoChanState {
    /// The channel may be scheduled.
    pub runnable: bool,
    #[skip]
    __: B31,
}

impl PfifoChanState {
    /// The value nouveau's gf100 code writes to enable a channel (runnable, plus bits 20:16
    /// whose meaning is undocumented; the model keeps them and ignores them).
    pub const fn nouveau_enable() -> Self {
        Self::from_bytes(0x001F_0001u32.to_le_bytes())
    }
}

/// NV_PFIFO_PREEMPT layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfifoPreempt {
    /// Channel to preempt.
    pub chid: B7,
    #[skip]
    __: B13,
    /// The preemption is still in progress.
    pub pending: bool,
    #[skip]
    __: B11,
}

/// NV_PFB_FLUSH_STATUS layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbFlushStatus {
    #[skip]
    __: B15,
    /// The last flush completed.
    pub done: bool,
    /// Free entries in the flush queue (0 = full).
    pub space: B8,
    #[skip]
    __: B8,
}

/// NV_PPBDMA_METHOD0 layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PbdmaMethod {
    #[skip]
    __: B2,
    /// Method byte offset >> 2.
    pub method: B12,
    #[skip]
    __: B2,
    /// Subchannel.
    pub subchannel: B3,
    #[skip]
    __: B13,
}

/// NV_PPBDMA_INTR_* layout (gk104 names, which nouveau also uses for gf100's PBDMA).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PbdmaIntr {
    /// A memory request (GPFIFO/pushbuffer fetch) failed.
    pub memreq: bool,
    #[skip]
    __: B14,
    /// Malformed GPFIFO entry.
    pub gpentry: bool,
    #[skip]
    __: B2,
    /// Malformed pushbuffer word (bad opcode, truncated method).
    pub pbentry: bool,
    #[skip]
    __: B2,
    /// Illegal method (unknown method or unbound subchannel).
    pub method: bool,
    #[skip]
    __: B3,
    /// Invalid semaphore operation.
    pub semaphore: bool,
    #[skip]
    __: B5,
    /// RAMFC signature mismatch.
    pub signature: bool,
}

/// NV_PFB_TLB_FLUSH_PDB layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlbFlushPdb {
    /// Aperture of the page directory.
    pub target: Target,
    #[skip]
    __: B2,
    /// Page directory address >> 12.
    pub pd: B28,
}

/// NV_PFB_TLB_FLUSH_TRIGGER layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlbFlushTrigger {
    /// Flush all pages of the page directory.
    pub page_all: bool,
    #[skip]
    __: B1,
    /// Flush only the hub (host/copy) TLB.
    pub hub_only: bool,
    #[skip]
    __: B28,
    /// Start the flush.
    pub trigger: bool,
}

/// NV_PGRAPH_INTR layout (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgraphIntr {
    /// A grid trapped: see NV_PGRAPH_TRAP_*.
    pub trap: bool,
    #[skip]
    __: B31,
}

/// Why a grid trapped (NV_PGRAPH_TRAP_INFO, model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum TrapReason {
    /// An instruction that does not decode.
    IllegalInstruction = 1,
    /// A `trap` instruction.
    Trap = 2,
    /// A shared, local or constant access outside its window.
    OutOfRange = 3,
    /// A misaligned memory access.
    Misaligned = 4,
    /// The grid ran past the watchdog limit.
    Watchdog = 5,
    /// A launch with invalid parameters (block too large, no code).
    BadLaunch = 6,
    /// The simulator could not get host memory for a block (its registers, shared or
    /// local memory): CUDA_ERROR_OUT_OF_MEMORY.
    NoResources = 7,
    /// A jump or call to an address that holds no code of the grid (a `TRAP` with m = 1,
    /// which the compiler writes where a function pointer matches no function):
    /// CUDA_ERROR_INVALID_PC.
    InvalidPc = 8,
}

impl TrapReason {
    /// Decode NV_PGRAPH_TRAP_INFO.
    pub fn from_u32(v: u32) -> Option<Self> {
        use TrapReason::*;
        [IllegalInstruction, Trap, OutOfRange, Misaligned, Watchdog, BadLaunch, NoResources, InvalidPc]
            .into_iter()
            .find(|r| *r as u32 == v)
    }
}

/// NV_PCOPY0_STATUS and NV_PGRAPH_STATUS layout: an engine's busy bit (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineStatus {
    /// The engine has work in flight.
    pub busy: bool,
    #[skip]
    __: B31,
}

/// NV_PFB_CHECK_SHADOW layout: initcheck's shadow of written VRAM (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbCheckShadow {
    /// Keep the shadow (writing 0 drops it).
    pub on: bool,
    #[skip]
    __: B31,
}

/// NV_PGRAPH_UNITS layout (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgraphUnits {
    /// Graphics processing clusters.
    pub gpcs: B8,
    #[skip]
    __: B8,
    /// Streaming multiprocessors in total.
    pub sms: B8,
    #[skip]
    __: B8,
}

/// One runlist entry as NV_PFIFO_RUNLIST_BASE points to them: two words, the channel id
/// then a word that nouveau's gf100 code sets to 4 (undocumented; the model ignores it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunlistEntry {
    /// Channel id (below [`super::NUM_CHANNELS`] for a valid entry).
    pub chid: u32,
}

impl RunlistEntry {
    /// Bytes per entry.
    pub const BYTES: u64 = 8;
    /// The second word as nouveau writes it.
    pub const WORD1: u32 = 0x4;
    /// The two words of the entry.
    pub const fn encode(self) -> [u32; 2] {
        [self.chid, Self::WORD1]
    }
    /// Decode from the entry's first word.
    pub const fn decode(word0: u32) -> Self {
        Self { chid: word0 }
    }
}

/// Encode a VRAM size in the NV_PFB_VRAM_SIZE format.
pub const fn encode_vram_size(bytes: u64) -> u32 {
    (bytes as u32 & 0xFFFF_FF00) | ((bytes >> 32) as u32 & 0xFF)
}

/// Decode NV_PFB_VRAM_SIZE into bytes.
pub const fn decode_vram_size(raw: u32) -> u64 {
    (raw & 0xFFFF_FF00) as u64 | (((raw & 0xFF) as u64) << 32)
}

/// NV_PGRAPH_SM_ARCH layout: compute capability `major.minor`.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgraphSmArch {
    /// Minor version.
    pub minor: B8,
    /// Major version.
    pub major: B8,
    #[skip]
    __: B16,
}

/// NV_PGRAPH_CAPS layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgraphCaps {
    /// Grids of different channels share the SMs at once (the timing model); without it
    /// grids run one after another.
    pub concurrent_kernels: bool,
    #[skip]
    __: B7,
    /// Single-precision instructions an SM issues in the time of one double-precision
    /// instruction (CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO).
    pub fp32_per_fp64: B8,
    #[skip]
    __: B16,
}

/// NV_PFB_REPLAY_BUFFER_SIZE layout (model: replayable faults).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbReplayBufferSize {
    /// Entries in the fault buffer.
    pub entries: B16,
    #[skip]
    __: B15,
    /// The device records replayable faults in the buffer.
    pub enable: bool,
}

/// NV_PFB_REPLAY_INTR and NV_PFB_REPLAY_INTR_EN layout (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbReplayIntr {
    /// Faults were recorded in the buffer.
    pub fault: bool,
    /// A fault found the buffer full (its warp stays parked and faults again).
    pub overflow: bool,
    #[skip]
    __: B30,
}

/// NV_PFB_REPLAY layout (model; write-only, self-clearing).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbReplay {
    /// Every parked access retries its instruction.
    pub replay: bool,
    /// Every parked access fails with its fault (its grid fails).
    pub cancel: bool,
    #[skip]
    __: B30,
}
