//! The replayable fault buffer (model, after the fault buffer of Pascal and later MMUs):
//! a ring of entries in system memory, at the bus address NV_PFB_REPLAY_BUFFER_LO/HI
//! names, NV_PFB_REPLAY_BUFFER_SIZE entries long. The device writes an entry at PUT for
//! every access of a replayable context (INST_PD_LO `replayable`) that found no PTE, parks
//! the warp, and raises NV_PFB_REPLAY_INTR; software reads entries from GET, makes the
//! pages present, advances GET and writes NV_PFB_REPLAY (replay or cancel).

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 32;

// The registers' layouts: `crate::regs::{PfbReplayBufferSize, PfbReplayIntr, PfbReplay}`.

/// One fault record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The virtual address accessed.
    pub va: u64,
    /// The instance block of the faulting context.
    pub inst: u64,
    /// The faulting channel.
    pub chid: u32,
    /// A write (or atomic) rather than a read.
    pub write: bool,
}

impl Entry {
    /// The entry as the device writes it: va (8 bytes), instance (8), channel (15:0) and
    /// write (bit 16) (4), reserved (8), valid (4, 1).
    pub fn encode(&self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[0..8].copy_from_slice(&self.va.to_le_bytes());
        b[8..16].copy_from_slice(&self.inst.to_le_bytes());
        let info = (self.chid & 0xFFFF) | (u32::from(self.write) << 16);
        b[16..20].copy_from_slice(&info.to_le_bytes());
        b[28..32].copy_from_slice(&1u32.to_le_bytes());
        b
    }

    /// An entry as written, `None` if it is not valid.
    pub fn decode(b: &[u8]) -> Option<Self> {
        let word = |at: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?)) };
        let dword = |at: usize| -> Option<u64> { Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?)) };
        if word(28)? != 1 {
            return None;
        }
        let info = word(16)?;
        Some(Self { va: dword(0)?, inst: dword(8)?, chid: info & 0xFFFF, write: info >> 16 & 1 == 1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let e = Entry { va: 0x7f00_1234_5000, inst: 0x20_3000, chid: 17, write: true };
        assert_eq!(Entry::decode(&e.encode()), Some(e));
        assert_eq!(Entry::decode(&[0u8; ENTRY_BYTES]), None, "an unwritten entry is not valid");
    }
}
