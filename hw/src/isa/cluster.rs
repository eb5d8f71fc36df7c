//! Thread block clusters: [`Op::Cluster`](super::Op::Cluster)'s operations and the
//! addresses of distributed shared memory.
//!
//! A `.shared::cluster` address is 32 bits, as a `.shared::cta` one: bits 23:0 the byte in
//! a block's shared memory, bits 31:24 the block, its rank in the cluster plus one; 0 there
//! is the block's own shared memory (so a `.shared::cta` address is a valid
//! `.shared::cluster` address of the block itself, as PTX requires). In the generic address
//! space the cluster's shared memory is a window of its own (the compute class's
//! SHARED_CLUSTER_WINDOW): 256 KiB per rank (more than a block's shared memory on any
//! part), rank 0 first.

use modular_bitfield::prelude::*;

/// Bits of the byte offset in a `.shared::cluster` address.
pub const CLUSTER_OFFSET_BITS: u32 = 24;
/// The most blocks in a cluster (Hopper's non-portable limit; 8 is the portable one).
pub const MAX_CLUSTER_BLOCKS: u32 = 16;
/// Bits of the byte offset in a rank's part of the generic window of a cluster's shared
/// memory.
pub const CLUSTER_WINDOW_RANK_BITS: u32 = 18;
/// Bytes of the generic window of a cluster's shared memory.
pub const CLUSTER_WINDOW_BYTES: u64 = (MAX_CLUSTER_BLOCKS as u64) << CLUSTER_WINDOW_RANK_BITS;

/// The `.shared::cluster` address of byte `offset` of rank `rank`'s shared memory.
pub const fn cluster_address(rank: u32, offset: u32) -> u32 {
    (rank + 1) << CLUSTER_OFFSET_BITS | (offset & ((1 << CLUSTER_OFFSET_BITS) - 1))
}

/// The rank (`None`: the block's own) and byte offset a `.shared::cluster` address names.
pub const fn cluster_target(addr: u32) -> (Option<u32>, u32) {
    let off = addr & ((1 << CLUSTER_OFFSET_BITS) - 1);
    match addr >> CLUSTER_OFFSET_BITS {
        0 => (None, off),
        r => (Some(r - 1), off),
    }
}

/// [`Op::Cluster`](super::Op::Cluster) operations (m bits 2:0).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum ClusterOp {
    /// `barrier.cluster.arrive`: the warp's active threads arrive at the cluster barrier.
    Arrive = 0,
    /// `barrier.cluster.wait`: the warp goes on once the barrier phase it last arrived in
    /// has completed (until then the instruction repeats: the warp spins on it).
    Wait,
    /// `mapa.shared::cluster.u32`: dst = the `.shared::cluster` address in rank `b` of the
    /// shared address `a`.
    Mapa,
    /// `mapa.u64`: the same in the generic space (a generic shared address in, one in the
    /// cluster window out).
    MapaGeneric,
    /// `getctarank.shared::cluster.u32`: dst = the rank whose shared memory `a` names.
    Rank,
    /// `getctarank.u64`: the same of a generic address.
    RankGeneric,
}

impl ClusterOp {
    /// Decode m.
    pub fn from_bits(m: u16) -> Option<Self> {
        Self::from_bytes((m & 7) as u8).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_addresses_round_trip() {
        assert_eq!(cluster_target(0x40), (None, 0x40));
        let a = cluster_address(3, 0x1234);
        assert_eq!(a, 0x0400_1234);
        assert_eq!(cluster_target(a), (Some(3), 0x1234));
        assert_eq!(cluster_target(cluster_address(15, 0xFF_FFFF)), (Some(15), 0xFF_FFFF));
        for op in [ClusterOp::Arrive, ClusterOp::Wait, ClusterOp::Mapa, ClusterOp::RankGeneric] {
            assert_eq!(ClusterOp::from_bits(op as u16), Some(op));
        }
        assert_eq!(ClusterOp::from_bits(7), None);
    }
}
