//! The BAR0 register table (GF100 layout, datasheet names).
//!
//! Each register is declared once with `registers!`: offset, optional array shape,
//! access kind, reset value, writable (or write-1-to-clear) mask and the value layout.
//! [`TABLE`] lists every declaration sorted by offset; the device builds its register
//! file from it, the driver reads and writes through the typed [`Reg`] constants, and
//! test mocks name registers with [`lookup`].
//!
//! Sources: envytools (`rnndb/`), nouveau `nvkm/` (gf100 fifo, mc, bus, fb, timer) and
//! docs/hardware.md. Registers marked "model" are this simulator's own simplification.

use core::marker::PhantomData;
use modular_bitfield::prelude::*;

/// How software may access a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only: writes are ignored (and logged by the device).
    Ro,
    /// Read/write: bits in the mask take the written value.
    Rw,
    /// Write-1-to-clear: writing a 1 to a bit in the mask clears it.
    W1c,
    /// Write-only trigger: reads return the reset value.
    Wo,
}

/// One declaration of the register table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegDesc {
    /// Datasheet name (`NV_PMC_BOOT_0`).
    pub name: &'static str,
    /// BAR0 byte offset of element 0.
    pub offset: u32,
    /// Number of elements (1 for a plain register).
    pub count: u32,
    /// Byte distance between elements.
    pub stride: u32,
    /// Access kind.
    pub access: Access,
    /// Value after reset.
    pub reset: u32,
    /// Writable bits ([`Access::Rw`], [`Access::Wo`]) or clearable bits ([`Access::W1c`]).
    pub mask: u32,
}

impl RegDesc {
    /// The element index of `offset` in this declaration, if it names one of its elements.
    pub const fn index_of(&self, offset: u32) -> Option<u32> {
        if offset < self.offset {
            return None;
        }
        let d = offset - self.offset;
        if !d.is_multiple_of(self.stride) || d / self.stride >= self.count {
            return None;
        }
        Some(d / self.stride)
    }

    /// Apply a software write of `value` to the current register `old`, following the
    /// access kind. Returns the new stored value.
    pub const fn apply_write(&self, old: u32, value: u32) -> u32 {
        match self.access {
            Access::Ro => old,
            Access::Rw | Access::Wo => (old & !self.mask) | (value & self.mask),
            Access::W1c => old & !(value & self.mask),
        }
    }
}

/// A typed register (or register array): its declaration and the layout of its value.
#[derive(Debug)]
pub struct Reg<T> {
    /// The declaration.
    pub desc: RegDesc,
    _value: PhantomData<T>,
}

impl<T> Clone for Reg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Reg<T> {}

impl<T> Reg<T> {
    /// Used by the `registers!` macro.
    pub const fn new(desc: RegDesc) -> Self {
        Self { desc, _value: PhantomData }
    }
    /// Offset of element 0.
    pub const fn offset(&self) -> u32 {
        self.desc.offset
    }
    /// Offset of element `i` of an array register. `i` must be below `desc.count`.
    pub const fn offset_at(&self, i: u32) -> u32 {
        debug_assert!(i < self.desc.count);
        self.desc.offset + i * self.desc.stride
    }
}

impl<T: From<u32>> Reg<T> {
    /// Decode a raw value read from this register.
    pub fn decode(&self, raw: u32) -> T {
        T::from(raw)
    }
}

impl<T: Into<u32>> Reg<T> {
    /// Encode a value for a write to this register.
    pub fn encode(&self, value: T) -> u32 {
        value.into()
    }
}

/// Find the declaration naming `offset` and the element index within it.
pub fn lookup(offset: u32) -> Option<(&'static RegDesc, u32)> {
    // Arrays interleave (fault records), so a binary search over start offsets narrows the
    // candidates to those starting at or before `offset`; the table is small.
    let end = TABLE.partition_point(|d| d.offset <= offset);
    TABLE[..end].iter().rev().find_map(|d| d.index_of(offset).map(|i| (d, i)))
}

/// Declares registers: `NAME [count; stride]? @ offset : access, reset R, mask M => Type;`
macro_rules! registers {
    ($( $(#[$m:meta])* $name:ident $([$count:literal ; $stride:literal])? @ $off:literal :
        $acc:ident, reset $reset:literal, mask $mask:literal => $ty:ty; )*) => {
        $(
            $(#[$m])*
            pub const $name: Reg<$ty> = Reg::new(RegDesc {
                name: stringify!($name),
                offset: $off,
                count: registers!(@count $($count)?),
                stride: registers!(@stride $($stride)?),
                access: Access::$acc,
                reset: $reset,
                mask: $mask,
            });
        )*
        /// Every register declaration, sorted by offset.
        pub static TABLE: &[RegDesc] = &[$($name.desc),*];

        /// The BAR0 offset of each register's element 0 as a plain constant, so the device
        /// can `match` an offset against the table (a misspelt name does not compile).
        pub mod offset {
            $(
                #[doc = concat!("Offset of [`", stringify!($name), "`](super::", stringify!($name), ").")]
                pub const $name: u32 = $off;
            )*
        }
    };
    (@count $c:literal) => { $c };
    (@count) => { 1 };
    (@stride $s:literal) => { $s };
    (@stride) => { 4 };
}

/// Value that reads of an absent unit or undeclared offset return ("0xBAD0xxxx" family).
pub const BAD_READ: u32 = 0xBAD0_AC1D;

/// PRAMIN: a 1 MiB BAR0 window into VRAM at the base set by [`NV_PBUS_BAR0_WINDOW`].
pub const NV_PRAMIN: u32 = 0x0070_0000;
/// The PRAMIN window base is a multiple of 64 KiB (NV_PBUS_BAR0_WINDOW holds base >> 16).
pub const PRAMIN_BASE_SHIFT: u32 = 16;
/// Size of the PRAMIN window.
pub const NV_PRAMIN_SIZE: u32 = 0x0010_0000;
/// Read-only mirror of PCI configuration space in BAR0.
pub const NV_PCFG_MIRROR: u32 = 0x0008_8000;
/// Size of the configuration-space mirror.
pub const NV_PCFG_MIRROR_SIZE: u32 = 0x100;
/// Size of BAR0.
pub const BAR0_SIZE: u32 = 0x0100_0000;

/// BAR0 ranges of the units that NV_PMC_ENABLE powers (a disabled unit's registers read
/// [`BAD_READ`] and ignore writes).
pub mod unit {
    use core::ops::Range;
    /// PFIFO proper.
    pub const PFIFO: Range<u32> = 0x002000..0x004000;
    /// The PBDMA units (part of PFIFO).
    pub const PBDMA: Range<u32> = 0x040000..0x060000;
    /// PTIMER.
    pub const PTIMER: Range<u32> = 0x009000..0x00A000;
    /// Copy engine 0.
    pub const PCOPY0: Range<u32> = 0x104000..0x105000;
    /// PGRAPH (graphics and compute).
    pub const PGRAPH: Range<u32> = 0x400000..0x600000;
}

/// Number of channels in the PFIFO channel table.
pub const NUM_CHANNELS: u32 = 128;
/// Number of MMU fault record slots (one per fault unit).
pub const NUM_FAULT_UNITS: u32 = 32;
/// Number of PBDMA units in the model (GF100 has one per PFIFO engine; the model one).
pub const NUM_PBDMA: u32 = 1;
/// Distance between PBDMA units.
pub const PBDMA_STRIDE: u32 = 0x2000;
/// Channel N's USERD page is `USERD_STRIDE * N` bytes past [`NV_PFIFO_USERD_BASE`].
pub const USERD_STRIDE: u32 = 0x1000;

registers! {
    /// Chip identification: architecture 0x0C (Fermi), implementation, stepping.
    NV_PMC_BOOT_0 @ 0x000000 : Ro, reset 0x0C00_00A1, mask 0 => PmcBoot0;
    /// Stall interrupt summary, one bit per unit (read-only; units clear their own).
    NV_PMC_INTR_0 @ 0x000100 : Ro, reset 0, mask 0 => PmcIntr;
    /// Non-stall interrupt summary. Model: write-1-to-clear here (real chips clear per engine).
    NV_PMC_INTR_1 @ 0x000104 : W1c, reset 0, mask 0xFFFF_FFFF => PmcIntr;
    /// Stall interrupt enable: which [`NV_PMC_INTR_0`] bits assert INTA.
    NV_PMC_INTR_EN_0 @ 0x000140 : Rw, reset 0, mask 0xFFFF_FFFF => PmcIntr;
    /// Non-stall interrupt enable.
    NV_PMC_INTR_EN_1 @ 0x000144 : Rw, reset 0, mask 0xFFFF_FFFF => PmcIntr;
    /// Unit enables; a disabled unit does not run.
    NV_PMC_ENABLE @ 0x000200 : Rw, reset 0, mask 0x0001_11C0 => PmcEnable;
    /// PRAMIN window base (VRAM address >> 16) and target.
    NV_PBUS_BAR0_WINDOW @ 0x001700 : Rw, reset 0, mask 0x03FF_FFFF => PbusBar0Window;
    /// BAR1 instance block (address >> 12, target, use-VM bit).
    NV_PBUS_BAR1_BLOCK @ 0x001704 : Rw, reset 0, mask 0xBFFF_FFFF => PbusBar1Block;
    /// PFIFO interrupt status (write 1 to clear).
    NV_PFIFO_INTR_0 @ 0x002100 : W1c, reset 0, mask 0xFFFF_FFFF => PfifoIntr;
    /// PFIFO interrupt enable.
    NV_PFIFO_INTR_EN_0 @ 0x002140 : Rw, reset 0, mask 0xFFFF_FFFF => PfifoIntr;
    /// USERD base: `0x10000000 | bar1_offset >> 12`; channel N's USERD at base + N * 0x1000.
    NV_PFIFO_USERD_BASE @ 0x002254 : Rw, reset 0, mask 0x1FFF_FFFF => PfifoUserdBase;
    /// Runlist address (>> 12) and target.
    NV_PFIFO_RUNLIST_BASE @ 0x002270 : Rw, reset 0, mask 0x3FFF_FFFF => PfifoRunlistBase;
    /// Runlist submit: writing the entry count makes PFIFO read the runlist.
    NV_PFIFO_RUNLIST_SUBMIT @ 0x002274 : Wo, reset 0, mask 0x0000_FFFF => u32;
    /// Runlist status: bit 20 pending.
    NV_PFIFO_RUNLIST_STATUS @ 0x00227C : Ro, reset 0, mask 0 => PfifoRunlistStatus;
    /// MMU fault units with a pending record (bit per unit; write 1 to clear).
    NV_PFIFO_MMU_FAULT_UNITS @ 0x00259C : W1c, reset 0, mask 0xFFFF_FFFF => u32;
    /// Channel preempt/kick: write the channel id; reads back the id when done.
    NV_PFIFO_PREEMPT @ 0x002634 : Rw, reset 0, mask 0x0000_007F => PfifoPreempt;
    /// Fault record: instance block address >> 12 of the faulting channel.
    NV_PFIFO_FAULT_INST [32; 0x10] @ 0x002800 : Ro, reset 0, mask 0 => u32;
    /// Fault record: faulting virtual address, bits 31:0.
    NV_PFIFO_FAULT_VA_LO [32; 0x10] @ 0x002804 : Ro, reset 0, mask 0 => u32;
    /// Fault record: faulting virtual address, bits 63:32.
    NV_PFIFO_FAULT_VA_HI [32; 0x10] @ 0x002808 : Ro, reset 0, mask 0 => u32;
    /// Fault record: reason and access type.
    NV_PFIFO_FAULT_INFO [32; 0x10] @ 0x00280C : Ro, reset 0, mask 0 => PfifoFaultInfo;
    /// Channel table: instance block address >> 12, target, valid.
    NV_PFIFO_CHAN_INST [128; 8] @ 0x003000 : Rw, reset 0, mask 0xBFFF_FFFF => PfifoChanInst;
    /// Channel table: bit 0 runnable (nouveau writes 0x001f0001).
    NV_PFIFO_CHAN_STATE [128; 8] @ 0x003004 : Rw, reset 0, mask 0xFFFF_FFFF => PfifoChanState;
    /// PTIMER nanoseconds, bits 31:0. Read HIGH, LOW, HIGH to get a consistent value.
    NV_PTIMER_TIME_0 @ 0x009400 : Ro, reset 0, mask 0 => u32;
    /// PTIMER nanoseconds, bits 63:32.
    NV_PTIMER_TIME_1 @ 0x009410 : Ro, reset 0, mask 0 => u32;
    /// PBDMA failing method: subchannel and method offset.
    NV_PPBDMA_METHOD0 [1; 0x2000] @ 0x0400C0 : Ro, reset 0, mask 0 => PbdmaMethod;
    /// PBDMA failing method's data word.
    NV_PPBDMA_DATA0 [1; 0x2000] @ 0x0400C4 : Ro, reset 0, mask 0 => u32;
    /// PBDMA interrupt status (write 1 to clear).
    NV_PPBDMA_INTR_0 [1; 0x2000] @ 0x040108 : W1c, reset 0, mask 0xFFFF_FFFF => PbdmaIntr;
    /// PBDMA interrupt enable.
    NV_PPBDMA_INTR_EN_0 [1; 0x2000] @ 0x04010C : Rw, reset 0, mask 0xFFFF_FFFF => PbdmaIntr;
    /// PBDMA: channel id of the method that raised the interrupt.
    NV_PPBDMA_CHANNEL [1; 0x2000] @ 0x040120 : Ro, reset 0, mask 0 => u32;
    /// VRAM size in bytes, NV50 encoding kept by the model: bits 31:8 are size bits 31:8,
    /// bits 7:0 are size bits 39:32.
    NV_PFB_VRAM_SIZE @ 0x10020C : Ro, reset 0, mask 0 => u32;
    /// MMU flush status: bits 23:16 queue space, bit 15 flush done.
    NV_PFB_FLUSH_STATUS @ 0x100C80 : Ro, reset 0x00FF_8000, mask 0 => PfbFlushStatus;
    /// TLB flush: page directory address >> 12 in bits 31:4, aperture in 1:0.
    NV_PFB_TLB_FLUSH_PDB @ 0x100CB8 : Rw, reset 0, mask 0xFFFF_FFF3 => TlbFlushPdb;
    /// TLB flush trigger (bit 31) and type.
    NV_PFB_TLB_FLUSH_TRIGGER @ 0x100CBC : Wo, reset 0, mask 0x8000_0005 => TlbFlushTrigger;
    /// Model (initcheck): bit 0 on: the device tracks which VRAM bytes were written.
    NV_PFB_CHECK_SHADOW @ 0x100F00 : Rw, reset 0, mask 0x1 => u32;
    /// Model (initcheck): physical address bits 31:0 of a range to mark never written.
    NV_PFB_CHECK_CLEAR_LO @ 0x100F04 : Rw, reset 0, mask 0xFFFF_FFFF => u32;
    /// Model (initcheck): physical address bits 63:32 of that range.
    NV_PFB_CHECK_CLEAR_HI @ 0x100F08 : Rw, reset 0, mask 0xFFFF_FFFF => u32;
    /// Model (initcheck): writing a byte count marks [CLEAR, CLEAR + count) never written.
    NV_PFB_CHECK_CLEAR_SIZE @ 0x100F0C : Wo, reset 0, mask 0xFFFF_FFFF => u32;
    /// Copy engine 0 status: bit 0 busy (model).
    NV_PCOPY0_STATUS @ 0x104000 : Ro, reset 0, mask 0 => u32;
    /// PGRAPH interrupt status (write 1 to clear): bit 0 trap (model).
    NV_PGRAPH_INTR @ 0x400100 : W1c, reset 0, mask 0xFFFF_FFFF => PgraphIntr;
    /// PGRAPH trap: channel that trapped (model).
    NV_PGRAPH_TRAP_CHANNEL @ 0x400104 : Ro, reset 0, mask 0 => u32;
    /// PGRAPH trap: reason (model, [`TrapReason`]).
    NV_PGRAPH_TRAP_INFO @ 0x400108 : Ro, reset 0, mask 0 => u32;
    /// PGRAPH trap: instruction index of the faulting instruction (model).
    NV_PGRAPH_TRAP_PC @ 0x40010C : Ro, reset 0, mask 0 => u32;
    /// PGRAPH interrupt enable.
    NV_PGRAPH_INTR_EN @ 0x40013C : Rw, reset 0, mask 0xFFFF_FFFF => PgraphIntr;
    /// Graphics/compute engine status: bit 0 busy.
    NV_PGRAPH_STATUS @ 0x400700 : Ro, reset 0, mask 0 => u32;
    /// Graphics units: GPC count (7:0) and SM count (23:16) (model encoding).
    NV_PGRAPH_UNITS @ 0x409604 : Ro, reset 0, mask 0 => PgraphUnits;
    /// Resident threads per SM (model: the driver reads the SM's limits here).
    NV_PGRAPH_SM_THREADS @ 0x409608 : Ro, reset 0, mask 0 => u32;
    /// Resident blocks per SM (model).
    NV_PGRAPH_SM_BLOCKS @ 0x40960C : Ro, reset 0, mask 0 => u32;
    /// 32-bit registers per SM (model).
    NV_PGRAPH_SM_REGS @ 0x409610 : Ro, reset 0, mask 0 => u32;
    /// Shared memory bytes per SM (model).
    NV_PGRAPH_SM_SHARED @ 0x409614 : Ro, reset 0, mask 0 => u32;
    /// Watchdog, low word: a grid running longer than this many cycles is stopped with
    /// TrapReason::Watchdog; 0 in both words: no watchdog (model).
    NV_PGRAPH_WATCHDOG_LO @ 0x409618 : Ro, reset 0, mask 0 => u32;
    /// Watchdog, high word (model).
    NV_PGRAPH_WATCHDOG_HI @ 0x40961C : Ro, reset 0, mask 0 => u32;
}

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
    #[skip]
    __: B7,
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
    /// Reserved encoding; the device treats it as an error.
    Invalid = 1,
    /// System memory, snooped.
    SysCoherent = 2,
    /// System memory, not snooped.
    SysNonCoherent = 3,
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
}

impl TrapReason {
    /// Decode NV_PGRAPH_TRAP_INFO.
    pub fn from_u32(v: u32) -> Option<Self> {
        use TrapReason::*;
        [IllegalInstruction, Trap, OutOfRange, Misaligned, Watchdog, BadLaunch, NoResources]
            .into_iter()
            .find(|r| *r as u32 == v)
    }
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
    /// Channel id (below [`NUM_CHANNELS`] for a valid entry).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_every_element_is_unique() {
        assert!(TABLE.windows(2).all(|w| w[0].offset < w[1].offset));
        for d in TABLE {
            assert!(d.offset % 4 == 0 && d.stride % 4 == 0, "{}", d.name);
            for i in 0..d.count {
                let off = d.offset + i * d.stride;
                let (found, idx) = lookup(off).expect(d.name);
                assert_eq!((found.name, idx), (d.name, i));
                assert!(!(NV_PRAMIN..NV_PRAMIN + NV_PRAMIN_SIZE).contains(&off));
            }
        }
    }

    #[test]
    fn lookup_boundaries() {
        assert_eq!(lookup(0x3000).unwrap().0.name, "NV_PFIFO_CHAN_INST");
        assert_eq!(lookup(0x3004 + 127 * 8).unwrap(), (&NV_PFIFO_CHAN_STATE.desc, 127));
        assert!(lookup(0x3000 + 128 * 8).is_none());
        assert_eq!(lookup(0x2800 + 0x10 * 31 + 0xC).unwrap().1, 31);
        assert!(lookup(0x2).is_none());
        assert!(lookup(0x9404).is_none());
    }

    #[test]
    fn write_semantics() {
        let ro = NV_PMC_BOOT_0.desc;
        assert_eq!(ro.apply_write(5, 0xFFFF_FFFF), 5);
        let rw = NV_PMC_ENABLE.desc;
        assert_eq!(rw.apply_write(0, 0xFFFF_FFFF), 0x0001_11C0);
        let w1c = NV_PFIFO_INTR_0.desc;
        assert_eq!(w1c.apply_write(0x3000_0001, 0x1000_0000), 0x2000_0001);
    }

    #[test]
    fn boot0_decodes_gf100() {
        let b = NV_PMC_BOOT_0.decode(NV_PMC_BOOT_0.desc.reset);
        assert_eq!((b.architecture(), b.implementation(), b.stepping()), (0x0C, 0, 0xA1));
        assert_eq!(b.chipset(), 0xC0);
    }

    #[test]
    fn field_positions_match_the_datasheet() {
        assert_eq!(u32::from(PmcEnable::new().with_pfifo(true)), 1 << 8);
        assert_eq!(u32::from(PmcEnable::new().with_ptimer(true)), 1 << 16);
        assert_eq!(u32::from(PfifoIntr::new().with_mmu_fault(true)), 1 << 28);
        assert_eq!(u32::from(PfifoIntr::new().with_pbdma_intr(true)), 1 << 29);
        assert_eq!(u32::from(PbdmaIntr::new().with_method(true)), 1 << 21);
        assert_eq!(u32::from(PbdmaIntr::new().with_signature(true)), 1 << 31);
        assert_eq!(u32::from(PfifoChanInst::new().with_valid(true).with_inst(0x12)), 0x8000_0012);
        assert_eq!(u32::from(PfifoUserdBase::new().with_valid(true)), 0x1000_0000);
        assert_eq!(u32::from(PfifoRunlistStatus::new().with_pending(true)), 1 << 20);
        assert_eq!(u32::from(PfifoPreempt::new().with_pending(true).with_chid(3)), (1 << 20) | 3);
        let idle = PfbFlushStatus::from(NV_PFB_FLUSH_STATUS.desc.reset);
        assert!(idle.done() && idle.space() == 0xFF);
        assert_eq!(u32::from(PbdmaMethod::new().with_method(0x300 >> 2).with_subchannel(3)), 0x3_0300);
        assert_eq!(u32::from(TlbFlushPdb::new().with_pd(0x123)), 0x1230);
        let info = PfifoFaultInfo::new().with_reason(FaultReason::ReadOnly).with_write(true);
        assert_eq!(u32::from(info), 0x86);
    }

    #[test]
    fn offsets_name_the_table() {
        assert_eq!(offset::NV_PFIFO_RUNLIST_SUBMIT, NV_PFIFO_RUNLIST_SUBMIT.offset());
        assert_eq!(offset::NV_PFIFO_CHAN_STATE, NV_PFIFO_CHAN_STATE.offset_at(0));
        assert_eq!(RunlistEntry::decode(RunlistEntry { chid: 9 }.encode()[0]).chid, 9);
    }

    #[test]
    fn vram_size_encoding_round_trips() {
        for s in [256u64 << 20, 4 << 30, 6 << 30, (1 << 40) - 256] {
            assert_eq!(decode_vram_size(encode_vram_size(s)), s);
        }
    }
}
