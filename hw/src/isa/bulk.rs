//! [`Op::Bulk`](super::Op::Bulk)'s modifiers.

use super::Space;

/// [`Op::Bulk`](super::Op::Bulk) modifiers: the source's space (2:0), the destination's (5:3).
pub struct BulkMods;
impl BulkMods {
    /// Encode.
    pub fn encode(src: Space, dst: Space) -> u16 {
        src as u16 | (dst as u16) << 3
    }
    /// (source, destination).
    pub fn spaces(m: u16) -> (Option<Space>, Option<Space>) {
        (Space::from_bits(m), Space::from_bits(m >> 3))
    }
}
