//! Thread block clusters (compute capability 9.0): a launch's blocks in groups of up to
//! 16 ([`MAX_CLUSTER_BLOCKS`]) that run at once on one GPC, see each other's shared memory
//! (distributed shared memory) and meet at a cluster barrier.
//!
//! - Blocks are dispatched cluster by cluster (a cluster's blocks one after another, x
//!   fastest), [`dispatch_ctaid`]; without clusters that is the grid's linear order.
//! - A cluster's shared memory is one buffer, its blocks' in rank order ([`ClusterMem`]);
//!   a warp sees its own block's part at `.shared::cta` addresses and any block's at
//!   `.shared::cluster` ones ([`hw::isa::cluster_target`]).
//! - The barrier counts the threads that arrive; the last to arrive completes the phase and
//!   counts as a memory write (the [`crate::mmu::Memory::epoch`]), so warps waiting in
//!   `barrier.cluster.wait`'s loop, found spinning, look again.
use super::{ComputeRegs, D, DeviceConfig, Exec, GridError, Sreg, Trap, TrapReason, WarpMem, WarpPos, operand, put};
use alloc::vec::Vec;
use hw::isa::{
    CLUSTER_OFFSET_BITS, CLUSTER_WINDOW_BYTES, CLUSTER_WINDOW_RANK_BITS, ClusterOp, GENERIC_WINDOW_BYTES,
    MAX_CLUSTER_BLOCKS, cluster_address, cluster_target,
};

/// The cluster shape of a launch, and its blocks.
pub(crate) fn shape(r: &ComputeRegs) -> ([u32; 3], u32) {
    let c = r.cluster.dims();
    (c, c[0] * c[1] * c[2])
}

/// Whether the launch's cluster shape is one the device runs: at most [`MAX_BLOCKS`]
/// blocks, dividing the grid in each dimension, and the launch's block range (if any) in
/// whole clusters.
pub(crate) fn valid(r: &ComputeRegs, first: u64, count: u64) -> bool {
    let (c, n) = shape(r);
    n <= MAX_CLUSTER_BLOCKS
        && (0..3).all(|k| r.grid[k].is_multiple_of(c[k]))
        && first.is_multiple_of(n as u64)
        && count.is_multiple_of(n as u64)
}

/// The GPC of SM `sm`: the SMs in order, in `board.gpcs` runs of equal size (to one SM).
pub(crate) fn gpc(cfg: &DeviceConfig, sm: usize) -> usize {
    let (gpcs, sms) = (cfg.board.gpcs.max(1) as usize, cfg.board.sms.max(1) as usize);
    sm * gpcs.min(sms) / sms
}

/// The SM functional mode runs the block dispatched `i`-th on (its `%smid`), clusters of
/// `n` blocks given: blocks in turn over the SMs, and a cluster's blocks on the SMs of one
/// GPC, cluster `c` on GPC `c mod gpcs`, as the timing model places them.
pub(crate) fn functional_sm(cfg: &DeviceConfig, i: u64, n: u64) -> u32 {
    let sms = u64::from(cfg.board.sms.max(1));
    if n <= 1 {
        return (i % sms) as u32;
    }
    let gpcs = u64::from(cfg.board.gpcs.max(1)).min(sms);
    let (c, rank) = (i / n, i % n);
    let g = c % gpcs;
    // The SMs `s` with `gpc(s) == g`.
    let (lo, hi) = ((g * sms).div_ceil(gpcs), ((g + 1) * sms).div_ceil(gpcs));
    (lo + ((c / gpcs) * n + rank) % (hi - lo).max(1)) as u32
}

/// SMs in the smallest GPC.
pub(crate) fn gpc_sms(cfg: &DeviceConfig) -> u32 {
    let (gpcs, sms) = (cfg.board.gpcs.max(1), cfg.board.sms.max(1));
    sms / gpcs.min(sms)
}

/// The coordinates of the block dispatched `i`-th: cluster by cluster in the grid's order,
/// within a cluster by rank (x fastest).
pub(crate) fn dispatch_ctaid(r: &ComputeRegs, i: u64) -> [u32; 3] {
    let (c, n) = shape(r);
    let (gx, gy) = (r.grid[0] as u64, r.grid[1] as u64);
    if n == 1 {
        return [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32];
    }
    let (cl, rank) = (i / n as u64, (i % n as u64) as u32);
    let (nx, ny) = (gx / c[0] as u64, gy / c[1] as u64);
    let cid = [(cl % nx) as u32, ((cl / nx) % ny) as u32, (cl / (nx * ny)) as u32];
    let pos = [rank % c[0], (rank / c[0]) % c[1], rank / (c[0] * c[1])];
    [cid[0] * c[0] + pos[0], cid[1] * c[1] + pos[1], cid[2] * c[2] + pos[2]]
}

/// The rank of block `ctaid` in its cluster.
pub(crate) fn rank(r: &ComputeRegs, ctaid: [u32; 3]) -> u32 {
    let (c, _) = shape(r);
    let p = [ctaid[0] % c[0], ctaid[1] % c[1], ctaid[2] % c[2]];
    p[0] + c[0] * (p[1] + c[1] * p[2])
}

/// A cluster special register of block `ctaid`.
pub(crate) fn sreg(r: &ComputeRegs, ctaid: [u32; 3], s: Sreg) -> u64 {
    let (c, n) = shape(r);
    (match s {
        Sreg::ClusterCtaidX => ctaid[0] % c[0],
        Sreg::ClusterCtaidY => ctaid[1] % c[1],
        Sreg::ClusterCtaidZ => ctaid[2] % c[2],
        Sreg::ClusterNctaidX => c[0],
        Sreg::ClusterNctaidY => c[1],
        Sreg::ClusterNctaidZ => c[2],
        Sreg::ClusterCtarank => rank(r, ctaid),
        Sreg::ClusterNctarank => n,
        Sreg::ClusterIdX => ctaid[0] / c[0],
        Sreg::ClusterIdY => ctaid[1] / c[1],
        Sreg::ClusterIdZ => ctaid[2] / c[2],
        Sreg::NclusterIdX => r.grid[0] / c[0],
        Sreg::NclusterIdY => r.grid[1] / c[1],
        Sreg::NclusterIdZ => r.grid[2] / c[2],
        Sreg::IsExplicitCluster => r.cluster.explicit() as u32,
        _ => 0,
    }) as u64
}

/// The state of a cluster's barrier.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClusterSync {
    /// Threads that arrived in the current phase, and those that complete it.
    pub(crate) arrived: u32,
    pub(crate) expected: u32,
    /// Phases completed.
    pub(crate) phase: u32,
    /// The phase each warp (rank-major) last arrived in.
    pub(crate) arrivals: Vec<u32>,
    /// The lanes of each warp that arrived in the phase `arrivals` holds.
    pub(crate) lanes: Vec<u32>,
    /// The last phase each block's racecheck has seen complete.
    pub(crate) seen: Vec<u32>,
}

impl ClusterSync {
    /// The barrier of a block alone (a launch without clusters, or the block's
    /// `barrier.cluster` when it is a cluster of one): `threads` threads.
    pub(crate) fn block(threads: u32) -> Self {
        Self {
            arrived: 0,
            expected: threads,
            phase: 0,
            arrivals: alloc::vec![0; threads.div_ceil(32) as usize],
            lanes: alloc::vec![0; threads.div_ceil(32) as usize],
            seen: alloc::vec![0; 1],
        }
    }

    /// Lanes `on` of warp `w` (rank-major) arrive; whether that completes the phase.
    pub(crate) fn arrive(&mut self, w: usize, on: u32) -> Option<bool> {
        let (p, l) = (self.arrivals.get_mut(w)?, self.lanes.get_mut(w)?);
        if *p != self.phase {
            (*p, *l) = (self.phase, 0);
        }
        *l |= on;
        self.arrived += on.count_ones();
        Some(self.complete())
    }

    /// Lanes `gone` of warp `w` exit: from now on they count as arrived (PTX's `exit`: the
    /// threads holding up a cluster barrier release it as they exit); whether that
    /// completes the phase.
    pub(crate) fn exit(&mut self, w: usize, gone: u32) -> bool {
        let counted = match (self.arrivals.get(w), self.lanes.get(w)) {
            (Some(&p), Some(&l)) if p == self.phase => (l & gone).count_ones(),
            _ => 0,
        };
        self.arrived -= counted.min(self.arrived);
        self.expected -= gone.count_ones().min(self.expected);
        self.complete()
    }

    /// The phase completes when every thread still to come has arrived.
    fn complete(&mut self) -> bool {
        if self.arrived < self.expected || self.arrived == 0 {
            return false;
        }
        self.arrived = 0;
        self.phase = self.phase.wrapping_add(1);
        true
    }

    /// A warp of block `rank` passes the barrier: whether it is the block's first since the
    /// phase completed (racecheck's barrier interval of the block moves on once).
    pub(crate) fn first_past(&mut self, rank: u32) -> bool {
        self.seen.get_mut(rank as usize).is_some_and(|s| seen_complete(s, self.phase))
    }

    /// Whether warp `w` (rank-major) is past the phase it last arrived in.
    pub(crate) fn passed(&self, w: usize) -> bool {
        self.arrivals.get(w).is_none_or(|&p| p != self.phase)
    }
}

/// Whether a barrier's `phase` is new to the block that last saw phase `seen` (which then
/// sees it): racecheck's interval moves on once a phase, with the first warp past it.
pub(crate) fn seen_complete(seen: &mut u32, phase: u32) -> bool {
    let new = *seen != phase;
    *seen = phase;
    new
}

/// A running cluster: its blocks' shared memory, in rank order, its barrier, and the blocks
/// still running.
pub(crate) struct ClusterMem {
    pub(crate) shared: Vec<u8>,
    pub(crate) sync: ClusterSync,
    pub(crate) left: u32,
}

impl ClusterMem {
    /// For a launch of `threads` threads a block (`r`'s cluster shape and shared memory).
    pub(crate) fn new(r: &ComputeRegs, threads: u32) -> Result<Self, GridError> {
        let (_, n) = shape(r);
        let nwarps = threads.div_ceil(32);
        Ok(Self {
            shared: super::try_zeroed(r.shared as usize * n as usize)?,
            sync: ClusterSync {
                arrived: 0,
                expected: threads * n,
                phase: 0,
                arrivals: super::try_zeroed((nwarps * n) as usize)?,
                lanes: super::try_zeroed((nwarps * n) as usize)?,
                seen: super::try_zeroed(n as usize)?,
            },
            left: n,
        })
    }
}

impl Exec<'_, '_> {
    /// Where in the cluster's shared memory (`len` bytes, every block's in rank order) a
    /// shared address names: the start of the block's part and the offset in it, and
    /// whether it is another block's (a `.shared::cluster` address). The block's own below
    /// 16 MiB; `None` for a rank the cluster does not have.
    #[inline(always)]
    pub(crate) fn shared_part(&self, len: usize, rank: u32, addr: u64) -> Option<(usize, u64, bool)> {
        let cta = self.r.shared as usize;
        let (target, off) = cluster_target(addr as u32);
        let t = target.unwrap_or(rank) as usize;
        ((t + 1) * cta <= len && addr >> 32 == 0).then_some((t * cta, off as u64, target.is_some()))
    }

    /// [`hw::isa::Op::Cluster`].
    pub(crate) fn cluster(&mut self, d: D, pc: u32, on: u32, pos: WarpPos, m: &mut WarpMem) -> Result<(), GridError> {
        let illegal = GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc });
        let op = ClusterOp::from_bits(d.m).ok_or(illegal)?;
        let (sw, cw) = (self.r.shared_window, self.r.cluster_window);
        let rank = m.rank;
        let (_, n) = shape(self.r);
        let regs = &mut *m.regs;
        match op {
            ClusterOp::Arrive => {
                let w = (rank * pos.nwarps + pos.warpid) as usize;
                if m.cluster.arrive(w, on).ok_or(illegal)? {
                    self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
                }
            }
            // The SIMT unit waits (`Exec::step`).
            ClusterOp::Wait => return Err(illegal),
            ClusterOp::Mapa | ClusterOp::MapaGeneric => {
                let generic = op == ClusterOp::MapaGeneric;
                let mut v = [0u64; 32];
                for (l, v) in v.iter_mut().enumerate() {
                    if on >> l & 1 == 0 {
                        continue;
                    }
                    let (a, to) = (operand(&d, 0, l, regs), operand(&d, 1, l, regs) as u32);
                    if to >= n {
                        return Err(GridError::Trap(Trap { reason: TrapReason::OutOfRange, pc }));
                    }
                    let off = if generic {
                        match a.wrapping_sub(sw) {
                            o if o < GENERIC_WINDOW_BYTES => o,
                            _ => a.wrapping_sub(cw) & ((1 << CLUSTER_WINDOW_RANK_BITS) - 1),
                        }
                    } else {
                        a & ((1 << CLUSTER_OFFSET_BITS) - 1)
                    };
                    *v = if generic && cw == 0 {
                        sw + off // a cluster of one block: its own shared window
                    } else if generic {
                        cw + ((to as u64) << CLUSTER_WINDOW_RANK_BITS) + (off & ((1 << CLUSTER_WINDOW_RANK_BITS) - 1))
                    } else {
                        cluster_address(to, off as u32) as u64
                    };
                }
                put(d.dst, on, &v, regs);
            }
            ClusterOp::Rank | ClusterOp::RankGeneric => {
                let mut v = [0u64; 32];
                for (l, v) in v.iter_mut().enumerate() {
                    let a = operand(&d, 0, l, regs);
                    *v = if op == ClusterOp::RankGeneric {
                        match a.wrapping_sub(cw) {
                            o if cw != 0 && o < CLUSTER_WINDOW_BYTES => o >> CLUSTER_WINDOW_RANK_BITS,
                            _ => rank as u64,
                        }
                    } else {
                        cluster_target(a as u32).0.unwrap_or(rank) as u64
                    };
                }
                put(d.dst, on, &v, regs);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functional_clusters_keep_to_one_gpc() {
        let cfg = DeviceConfig::preset("h200").unwrap();
        for n in [2u64, 4, 8, 16] {
            for c in 0..40u64 {
                let sms: Vec<u32> = (0..n).map(|r| functional_sm(&cfg, c * n + r, n)).collect();
                let g = gpc(&cfg, sms[0] as usize);
                assert!(sms.iter().all(|&s| gpc(&cfg, s as usize) == g && s < 132), "{n}: {sms:?}");
                assert_eq!(g as u64, c % 8, "cluster {c} on GPC {}", c % 8);
            }
        }
        assert_eq!(functional_sm(&cfg, 140, 1), 8, "no clusters: blocks in turn");
    }
}
