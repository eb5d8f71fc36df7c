//! [`Op::Bulk`](super::Op::Bulk)'s modifiers.

use super::Space;

/// [`Op::Bulk`](super::Op::Bulk) modifiers: the source's space (2:0), the destination's (5:3),
/// and multicast (6: `.multicast::cluster`, global to the shared memory of every block of a
/// cluster mask; then a holds the destination's shared address in 31:0 and the mbarrier's in
/// 63:32, c the bytes in 31:0 and the mask of cluster ranks in 47:32, and the copy completes
/// the transactions of each destination block's mbarrier).
pub struct BulkMods;
impl BulkMods {
    /// The multicast bit.
    pub const MULTICAST: u16 = 1 << 6;
    /// Encode.
    pub fn encode(src: Space, dst: Space) -> u16 {
        src as u16 | (dst as u16) << 3
    }
    /// Whether the copy is a multicast.
    pub fn multicast(m: u16) -> bool {
        m & Self::MULTICAST != 0
    }
    /// (source, destination).
    pub fn spaces(m: u16) -> (Option<Space>, Option<Space>) {
        (Space::from_bits(m), Space::from_bits(m >> 3))
    }
}
