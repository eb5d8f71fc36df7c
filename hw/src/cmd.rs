//! Command formats: GPFIFO entries and pushbuffer method headers (Fermi and later).
//!
//! Source: open-gpu-doc `manuals/volta/gv100/dev_ram.ref.txt` (GPFIFO entry, which keeps
//! the Fermi layout), envytools `hw/fifo/dma-pusher`, docs/hardware.md.

use modular_bitfield::prelude::*;

/// GPFIFO entry (8 bytes; as one little-endian u64).
#[bitfield(bits = 64)]
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpEntry {
    /// 0: fetch unconditionally.
    pub fetch_conditional: bool,
    #[skip]
    __: B1,
    /// Pushbuffer virtual address bits 39:2.
    pub addr_dw: B38,
    #[skip]
    __: B1,
    /// The segment is a subroutine (LEVEL); unsupported by the model.
    pub subroutine: bool,
    /// Segment length in 32-bit words; 0 makes a control (NOP) entry.
    pub length: B21,
    /// Wait for the previous segment's methods to finish before fetching.
    pub sync_wait: bool,
}

impl GpEntry {
    /// Maximum segment length in words.
    pub const MAX_LENGTH: u32 = (1 << 21) - 1;

    /// An entry for `words` words at pushbuffer address `va` (4-byte aligned).
    pub fn segment(va: u64, words: u32) -> Self {
        Self::new().with_addr_dw(va >> 2).with_length(words)
    }
    /// Pushbuffer address of the segment.
    pub fn addr(&self) -> u64 {
        self.addr_dw() << 2
    }
}

/// Method header opcode (bits 31:29, "SEC_OP").
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 3]
pub enum Opcode {
    /// Legacy tertiary-group encoding; only the all-zero word (a NOP) is accepted.
    Grp0UseTert = 0,
    /// INCR: `count` data words to consecutive methods.
    IncMethod = 1,
    /// Legacy tertiary-group encoding (rejected).
    Grp2UseTert = 2,
    /// NONINCR: `count` data words all to the same method.
    NonIncMethod = 3,
    /// IMMD: 13-bit data in the count field, no payload.
    ImmdDataMethod = 4,
    /// INCR_ONCE: first word to the method, the rest to method + 4.
    OneInc = 5,
    /// Reserved (rejected).
    Reserved = 6,
    /// END_PB_SEGMENT (rejected by the model).
    EndPbSegment = 7,
}

/// Pushbuffer method header.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodHeader {
    /// Method byte offset >> 2.
    pub method_dw: B12,
    #[skip]
    __: B1,
    /// Subchannel (0..7).
    pub subchannel: B3,
    /// Word count, or the immediate data for IMMD.
    pub count: B13,
    /// Opcode.
    pub opcode: Opcode,
}

impl MethodHeader {
    /// Largest count (and immediate value).
    pub const MAX_COUNT: u32 = (1 << 13) - 1;
    /// Largest method byte offset.
    pub const MAX_METHOD: u32 = 0xFFF << 2;

    /// A header; `method` is a byte offset.
    pub fn encode(op: Opcode, subchannel: u8, method: u32, count: u32) -> Self {
        Self::new()
            .with_method_dw((method >> 2) as u16)
            .with_subchannel(subchannel)
            .with_count(count as u16)
            .with_opcode(op)
    }
    /// Method byte offset.
    pub fn method(&self) -> u32 {
        (self.method_dw() as u32) << 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpentry_layout() {
        let e = GpEntry::segment(0x12_3456_7890, 0x1F_FFFF);
        let raw = u64::from(e);
        assert_eq!(raw as u32, 0x3456_7890);
        assert_eq!((raw >> 32) as u32 & 0xFF, 0x12);
        assert_eq!(((raw >> 32) as u32 >> 10) & 0x1F_FFFF, 0x1F_FFFF);
        assert_eq!(e.addr(), 0x12_3456_7890);
    }

    #[test]
    fn header_layout() {
        let h = MethodHeader::encode(Opcode::IncMethod, 3, 0x400, 4);
        assert_eq!(u32::from(h), (1 << 29) | (4 << 16) | (3 << 13) | (0x400 >> 2));
        let h = MethodHeader::encode(Opcode::ImmdDataMethod, 1, 0x1698, 0x1FFF);
        assert_eq!(u32::from(h) >> 29, 4);
        assert_eq!(h.count(), 0x1FFF);
    }
}
