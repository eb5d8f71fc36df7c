//! The BAR0 register table (GF100 layout, datasheet names).
//!
//! Each register is declared once with `registers!`: offset, optional array shape,
//! access kind, reset value, writable (or write-1-to-clear) mask and the value layout.
//! [`TABLE`] lists every declaration sorted by offset; the device builds its register
//! file from it, the driver reads and writes through the typed [`Reg`] constants, and
//! test mocks name registers with [`lookup`]. The value layouts are in `regs/layout.rs`.
//!
//! Sources: envytools (`rnndb/`), nouveau `nvkm/` (gf100 fifo, mc, bus, fb, timer) and
//! docs/hardware.md. Registers marked "model" are this simulator's own simplification.

mod layout;

use core::marker::PhantomData;
pub use layout::*;

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
    /// Memory clock in kHz (model: what CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE reports).
    NV_PFB_MEM_CLOCK_KHZ @ 0x100210 : Ro, reset 0, mask 0 => u32;
    /// DRAM bus width in bits (model).
    NV_PFB_BUS_WIDTH @ 0x100214 : Ro, reset 0, mask 0 => u32;
    /// L2 cache bytes (model; a real GF100 gives LTC and slice counts instead).
    NV_PFB_L2_SIZE @ 0x100218 : Ro, reset 0, mask 0 => u32;
    /// MMU flush status: bits 23:16 queue space, bit 15 flush done.
    NV_PFB_FLUSH_STATUS @ 0x100C80 : Ro, reset 0x00FF_8000, mask 0 => PfbFlushStatus;
    /// TLB flush: page directory address >> 12 in bits 31:4, aperture in 1:0.
    NV_PFB_TLB_FLUSH_PDB @ 0x100CB8 : Rw, reset 0, mask 0xFFFF_FFF3 => TlbFlushPdb;
    /// TLB flush trigger (bit 31) and type.
    NV_PFB_TLB_FLUSH_TRIGGER @ 0x100CBC : Wo, reset 0, mask 0x8000_0005 => TlbFlushTrigger;
    /// Model (peer access): peer table entry `i`, the GPU a PTE with target PEER and
    /// `peer` = i reaches: its PCI routing id (bus 15:8, device 7:3, function 2:0) and
    /// bit 31 valid.
    NV_PFB_PEER [8; 0x4] @ 0x100E00 : Rw, reset 0, mask 0x8000_FFFF => PfbPeer;
    /// Model (replayable faults): bus address bits 31:0 of the fault buffer in system
    /// memory (4 KiB aligned), [`crate::replay::ENTRY_BYTES`] per entry.
    NV_PFB_REPLAY_BUFFER_LO @ 0x100E40 : Rw, reset 0, mask 0xFFFF_F000 => u32;
    /// Model: bus address bits 63:32 of the fault buffer.
    NV_PFB_REPLAY_BUFFER_HI @ 0x100E44 : Rw, reset 0, mask 0xFFFF_FFFF => u32;
    /// Model: entries in the fault buffer (15:0) and bit 31 enabled.
    NV_PFB_REPLAY_BUFFER_SIZE @ 0x100E48 : Rw, reset 0, mask 0x8000_FFFF => PfbReplayBufferSize;
    /// Model: the next entry software reads (software advances it).
    NV_PFB_REPLAY_GET @ 0x100E4C : Rw, reset 0, mask 0xFFFF => u32;
    /// Model: the next entry the device writes.
    NV_PFB_REPLAY_PUT @ 0x100E50 : Ro, reset 0, mask 0 => u32;
    /// Model: bit 0 faults recorded, bit 1 a fault dropped for a full buffer (write 1 to
    /// clear); the PFB bit of NV_PMC_INTR_0 while set and enabled.
    NV_PFB_REPLAY_INTR @ 0x100E54 : W1c, reset 0, mask 0x3 => PfbReplayIntr;
    /// Model: which NV_PFB_REPLAY_INTR bits interrupt.
    NV_PFB_REPLAY_INTR_EN @ 0x100E58 : Rw, reset 0, mask 0x3 => PfbReplayIntr;
    /// Model: bit 0 replays every parked access (the warps retry the instruction), bit 1
    /// cancels them (their grids fail with the fault, as a non-replayable one would).
    NV_PFB_REPLAY @ 0x100E5C : Wo, reset 0, mask 0x3 => PfbReplay;
    /// Model (initcheck): bit 0 on: the device tracks which VRAM bytes were written.
    NV_PFB_CHECK_SHADOW @ 0x100F00 : Rw, reset 0, mask 0x1 => PfbCheckShadow;
    /// Model (initcheck): physical address bits 31:0 of a range to mark never written.
    NV_PFB_CHECK_CLEAR_LO @ 0x100F04 : Rw, reset 0, mask 0xFFFF_FFFF => u32;
    /// Model (initcheck): physical address bits 63:32 of that range.
    NV_PFB_CHECK_CLEAR_HI @ 0x100F08 : Rw, reset 0, mask 0xFFFF_FFFF => u32;
    /// Model (initcheck): writing a byte count marks [CLEAR, CLEAR + count) never written.
    NV_PFB_CHECK_CLEAR_SIZE @ 0x100F0C : Wo, reset 0, mask 0xFFFF_FFFF => u32;
    /// Copy engine 0 status: bit 0 busy (model).
    NV_PCOPY0_STATUS @ 0x104000 : Ro, reset 0, mask 0 => EngineStatus;
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
    NV_PGRAPH_STATUS @ 0x400700 : Ro, reset 0, mask 0 => EngineStatus;
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
    /// The SMs' architecture: the compute capability programs see (model, in the spirit of
    /// GF100's per-SM SM_ARCH register).
    NV_PGRAPH_SM_ARCH @ 0x409620 : Ro, reset 0, mask 0 => PgraphSmArch;
    /// SM clock in kHz (model).
    NV_PGRAPH_CLOCK_KHZ @ 0x409624 : Ro, reset 0, mask 0 => u32;
    /// What the engine can do (model).
    NV_PGRAPH_CAPS @ 0x409628 : Ro, reset 0, mask 0 => PgraphCaps;
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
        assert_eq!(u32::from(PmcBoot0::for_cc(2, 0)), 0x0C00_00A1, "the reset value: GF100");
        for (cc, chipset) in
            [((3, 5), 0xF0), ((6, 0), 0x130), ((7, 0), 0x140), ((7, 5), 0x162), ((8, 0), 0x170), ((9, 0), 0x180)]
        {
            assert_eq!(PmcBoot0::for_cc(cc.0, cc.1).chipset(), chipset, "{cc:?}");
        }
        assert_eq!(u32::from(PmcBoot0::for_cc(7, 0)), 0x1400_00A1);
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
