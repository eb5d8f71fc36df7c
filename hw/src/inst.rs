//! Channel memory structures: the 4 KiB instance block (RAMFC at offset 0, page directory
//! pointer and VA limit at 0x200) and the per-channel USERD page.
//!
//! Source: nouveau `nvkm/engine/fifo/gf100.c` (context construction), docs/hardware.md.

use crate::regs::Target;
use modular_bitfield::prelude::*;

/// Size (and alignment) of an instance block.
pub const INST_SIZE: u64 = 0x1000;
/// RAMFC: USERD address bits 31:0 (VRAM physical address of the channel's USERD page).
pub const RAMFC_USERD_LO: u32 = 0x08;
/// RAMFC: USERD address bits 39:32.
pub const RAMFC_USERD_HI: u32 = 0x0C;
/// RAMFC: signature word, must read [`RAMFC_SIGNATURE_VALUE`].
pub const RAMFC_SIGNATURE: u32 = 0x10;
/// The RAMFC signature.
pub const RAMFC_SIGNATURE_VALUE: u32 = 0xFACE;
/// RAMFC: GPFIFO base virtual address bits 31:0.
pub const RAMFC_GPFIFO_LO: u32 = 0x48;
/// RAMFC: GPFIFO base bits 39:32 and log2 of the entry count ([`RamfcGpfifoHi`]).
pub const RAMFC_GPFIFO_HI: u32 = 0x4C;
/// RAMFC: scheduling parameters of the channel ([`RamfcSched`], model encoding; 0 gives
/// the normal priority and the device's default time slice).
pub const RAMFC_SCHED: u32 = 0xF8;

/// RAMFC_SCHED layout (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RamfcSched {
    /// Priority: PFIFO's priority policy serves higher values first (0 normal).
    pub priority: B8,
    #[skip]
    __: B8,
    /// Time slice in units of 256 cycles (0: the device's default).
    pub timeslice: B16,
}

/// Page directory address bits 31:0 with the target in bits 1:0 ([`InstPdLo`]).
pub const INST_PD_LO: u32 = 0x200;
/// Page directory address bits 63:32.
pub const INST_PD_HI: u32 = 0x204;
/// Highest valid virtual address (limit), bits 31:0.
pub const INST_VA_LIMIT_LO: u32 = 0x208;
/// VA limit bits 63:32.
pub const INST_VA_LIMIT_HI: u32 = 0x20C;

/// RAMFC_GPFIFO_HI layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RamfcGpfifoHi {
    /// GPFIFO virtual address bits 39:32.
    pub va_hi: B8,
    #[skip]
    __: B8,
    /// log2 of the number of GPFIFO entries.
    pub log2_entries: B5,
    #[skip]
    __: B11,
}

/// INST_PD_LO layout.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstPdLo {
    /// Where the page directory lives.
    pub target: Target,
    #[skip]
    __: B3,
    /// Model (after Pascal's PAGE_DIR_BASE FAULT_REPLAY bits): a compute access that finds
    /// no PTE parks the warp and records the fault in the replayable fault buffer
    /// (NV_PFB_REPLAY_*) instead of failing the grid.
    pub replayable: bool,
    #[skip]
    __: B6,
    /// Page directory address bits 31:12.
    pub addr_lo: B20,
}

/// USERD: pushbuffer PUT (DMA mode; unused with GPFIFO).
pub const USERD_PUT: u32 = 0x40;
/// USERD: pushbuffer GET.
pub const USERD_GET: u32 = 0x44;
/// USERD: reference counter, written by the SET_REFERENCE host method.
pub const USERD_REF: u32 = 0x48;
/// USERD: top-level GET.
pub const USERD_TOP_LEVEL_GET: u32 = 0x58;
/// USERD: GP_GET, the next GPFIFO entry PFIFO will fetch (written by the device).
pub const USERD_GP_GET: u32 = 0x88;
/// USERD: GP_PUT, one past the last entry software wrote: the doorbell.
pub const USERD_GP_PUT: u32 = 0x8C;
/// Bytes of USERD that carry state.
pub const USERD_SIZE: u32 = 0x200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(u32::from(RamfcGpfifoHi::new().with_va_hi(0x12).with_log2_entries(10)), 0x000A_0012);
        let pd = InstPdLo::new().with_addr_lo(0x12345).with_target(Target::SysCoherent);
        assert_eq!(u32::from(pd), 0x1234_5002);
    }
}
