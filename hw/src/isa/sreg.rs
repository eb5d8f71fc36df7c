//! Special registers ([`Op::S2r`](super::Op::S2r)).

use super::{LAUNCH_NCTAID, LAUNCH_NTID};
use modular_bitfield::prelude::*;

/// Special registers readable with `S2R` (the immediate holds the index).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 8]
pub enum Sreg {
    /// %tid.x
    TidX = 0,
    /// %tid.y
    TidY,
    /// %tid.z
    TidZ,
    /// %ntid.x
    NtidX,
    /// %ntid.y
    NtidY,
    /// %ntid.z
    NtidZ,
    /// %ctaid.x
    CtaidX,
    /// %ctaid.y
    CtaidY,
    /// %ctaid.z
    CtaidZ,
    /// %nctaid.x
    NctaidX,
    /// %nctaid.y
    NctaidY,
    /// %nctaid.z
    NctaidZ,
    /// %laneid
    LaneId,
    /// %warpid
    WarpId,
    /// %nwarpid
    NwarpId,
    /// %smid
    SmId,
    /// %clock (low 32 bits of the SM cycle counter)
    Clock,
    /// %clock64
    Clock64,
    /// %globaltimer (nanoseconds)
    GlobalTimer,
    /// %lanemask_lt
    LanemaskLt,
    /// %lanemask_le
    LanemaskLe,
    /// %lanemask_gt
    LanemaskGt,
    /// %lanemask_ge
    LanemaskGe,
    /// %lanemask_eq
    LanemaskEq,
    /// The active mask of the warp (`activemask`).
    ActiveMask,
    /// %cluster_ctaid.x: the block's position in its cluster.
    ClusterCtaidX,
    /// %cluster_ctaid.y
    ClusterCtaidY,
    /// %cluster_ctaid.z
    ClusterCtaidZ,
    /// %cluster_nctaid.x: the cluster's shape in blocks.
    ClusterNctaidX,
    /// %cluster_nctaid.y
    ClusterNctaidY,
    /// %cluster_nctaid.z
    ClusterNctaidZ,
    /// %cluster_ctarank: the block's rank in its cluster (x fastest).
    ClusterCtarank,
    /// %cluster_nctarank: blocks in a cluster.
    ClusterNctarank,
    /// %clusterid.x: the cluster's position in the grid.
    ClusterIdX,
    /// %clusterid.y
    ClusterIdY,
    /// %clusterid.z
    ClusterIdZ,
    /// %nclusterid.x: the grid's shape in clusters.
    NclusterIdX,
    /// %nclusterid.y
    NclusterIdY,
    /// %nclusterid.z
    NclusterIdZ,
    /// %is_explicit_cluster: launched with a cluster shape (1), or as clusters of one (0).
    IsExplicitCluster,
}

impl Sreg {
    /// Decode an index.
    pub fn from_index(i: u64) -> Option<Self> {
        u8::try_from(i).ok().and_then(|b| Self::from_bytes(b).ok())
    }
    /// Where a register that is the same in every thread of the grid (the grid's shape)
    /// lives among the launch constants ([`ConstRef`]).
    pub fn launch_offset(self) -> Option<u64> {
        use Sreg::*;
        Some(match self {
            NtidX => LAUNCH_NTID,
            NtidY => LAUNCH_NTID + 4,
            NtidZ => LAUNCH_NTID + 8,
            NctaidX => LAUNCH_NCTAID,
            NctaidY => LAUNCH_NCTAID + 4,
            NctaidZ => LAUNCH_NCTAID + 8,
            _ => return None,
        })
    }
}
