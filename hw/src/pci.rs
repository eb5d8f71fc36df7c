//! PCI configuration space of the GPU: offsets, the command register, BAR encodings and the
//! identity the model reports (a GF100 board: vendor 0x10DE, class 0x030200).
//!
//! Source: PCI Local Bus Specification 3.0 (type 0 header), docs/hardware.md.

use modular_bitfield::prelude::*;

/// Bus address every rgdev platform (user space, kernel image, test boards) assigns to
/// BAR0, as firmware would.
pub const BAR0_BUS: u64 = 0xFD00_0000;
/// Bus address every rgdev platform assigns to BAR1 (64-bit, above 4 GiB).
pub const BAR1_BUS: u64 = 0x80_0000_0000;

/// NVIDIA's PCI vendor id.
pub const VENDOR_NVIDIA: u16 = 0x10DE;
/// Device id of the modelled board (GF100, GeForce GTX 480).
pub const DEVICE_GF100: u16 = 0x06C0;
/// Revision id.
pub const REVISION: u8 = 0xA3;
/// Class code: display controller (0x03), 3D controller (0x02), interface 0.
pub const CLASS_3D_CONTROLLER: u32 = 0x03_02_00;
/// Class code of a VGA-compatible controller (accepted by the probe as well).
pub const CLASS_VGA: u32 = 0x03_00_00;
/// Size of the configuration space the model implements.
pub const CONFIG_SIZE: u16 = 0x100;

/// Vendor id (15:0) and device id (31:16).
pub const VENDOR_DEVICE: u16 = 0x00;
/// Command (15:0) and status (31:16).
pub const COMMAND_STATUS: u16 = 0x04;
/// Revision (7:0) and class code (31:8).
pub const REVISION_CLASS: u16 = 0x08;
/// Cache line, latency, header type, BIST.
pub const HEADER: u16 = 0x0C;
/// BAR0: 16 MiB MMIO, 32-bit, non-prefetchable.
pub const BAR0: u16 = 0x10;
/// BAR1 low half: VRAM aperture, 64-bit, prefetchable.
pub const BAR1_LO: u16 = 0x14;
/// BAR1 high half.
pub const BAR1_HI: u16 = 0x18;
/// BAR3 low half (RAMIN aperture; not implemented by the model, reads 0).
pub const BAR3_LO: u16 = 0x1C;
/// BAR3 high half.
pub const BAR3_HI: u16 = 0x20;
/// Subsystem vendor (15:0) and subsystem id (31:16).
pub const SUBSYSTEM: u16 = 0x2C;
/// Expansion ROM base (not implemented, reads 0).
pub const ROM: u16 = 0x30;
/// Capability pointer (7:0).
pub const CAP_PTR: u16 = 0x34;
/// Interrupt line (7:0) and pin (15:8; 1 = INTA).
pub const INTERRUPT: u16 = 0x3C;
/// Offset of the power-management capability.
pub const CAP_PM: u16 = 0x60;
/// Status register bit: the capability list is present.
pub const STATUS_CAP_LIST: u32 = 1 << 4;

/// The command register (low half of [`COMMAND_STATUS`]).
#[bitfield(bits = 16)]
#[repr(u16)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// I/O space decoding.
    pub io_space: bool,
    /// Memory space decoding: BAR accesses are ignored until set.
    pub memory_space: bool,
    /// Bus master: the device may DMA.
    pub bus_master: bool,
    /// Special cycles.
    pub special_cycles: bool,
    /// Memory write and invalidate.
    pub mwi: bool,
    /// VGA palette snoop.
    pub vga_snoop: bool,
    /// Parity error response.
    pub parity_error: bool,
    #[skip]
    __: B1,
    /// SERR# enable.
    pub serr: bool,
    /// Fast back-to-back.
    pub fast_back_to_back: bool,
    /// INTx disable.
    pub intx_disable: bool,
    #[skip]
    __: B5,
}

/// Memory BAR type.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum BarType {
    /// Anywhere in 32-bit space.
    Bits32 = 0,
    /// Below 1 MiB (legacy).
    Below1M = 1,
    /// Anywhere in 64-bit space (uses the next BAR for the high half).
    Bits64 = 2,
    /// Reserved.
    Reserved = 3,
}

/// Low word of a memory BAR.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemBar {
    /// 0 for memory BARs.
    pub io: bool,
    /// Address width.
    pub bar_type: BarType,
    /// Prefetchable.
    pub prefetchable: bool,
    /// Address bits 31:4.
    pub addr: B28,
}

impl MemBar {
    /// Flag bits of a BAR word.
    pub const FLAGS_MASK: u32 = 0xF;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_bits() {
        assert_eq!(u16::from(Command::new().with_memory_space(true)), 2);
        assert_eq!(u16::from(Command::new().with_bus_master(true)), 4);
        assert_eq!(u16::from(Command::new().with_intx_disable(true)), 0x400);
    }

    #[test]
    fn bar_flags() {
        let b = MemBar::new().with_bar_type(BarType::Bits64).with_prefetchable(true);
        assert_eq!(u32::from(b), 0xC);
    }
}
