//! How many blocks of one shape an SM holds at once: the rule the device's block
//! dispatcher applies and the occupancy API (`cuOccupancy*`) reports, in one place so the
//! two cannot disagree.
//!
//! As on Volta-class SMs, threads are allocated in whole warps, and registers per warp in
//! units of [`REG_ALLOC_UNIT`].

pub use crate::isa::WARP_SIZE;
/// Register allocation granularity per warp.
pub const REG_ALLOC_UNIT: u32 = 256;

/// An SM's resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// Resident threads.
    pub threads: u32,
    /// Resident blocks.
    pub blocks: u32,
    /// 32-bit registers.
    pub regs: u32,
    /// Shared memory bytes.
    pub shared: u32,
}

/// The resources one block of `threads` threads using `regs` registers per thread and
/// `shared` bytes of shared memory takes from an SM (whole warps, registers per warp in
/// units of [`REG_ALLOC_UNIT`]); `blocks` is 1.
pub fn block_cost(threads: u32, regs: u32, shared: u32) -> SmLimits {
    let warps = threads.div_ceil(WARP_SIZE);
    let regs_per_warp = (regs.max(1) * WARP_SIZE).div_ceil(REG_ALLOC_UNIT) * REG_ALLOC_UNIT;
    SmLimits { threads: warps.saturating_mul(WARP_SIZE), blocks: 1, regs: regs_per_warp.saturating_mul(warps), shared }
}

/// Blocks of `threads` threads using `regs` registers per thread and `shared` bytes of
/// shared memory (static plus dynamic) that fit on one SM at once; 0 when none does.
pub fn blocks_per_sm(sm: &SmLimits, threads: u32, regs: u32, shared: u32) -> u32 {
    if threads == 0 {
        return 0;
    }
    let c = block_cost(threads, regs.min(4096), shared);
    let by_threads = sm.threads / c.threads;
    let by_regs = sm.regs.checked_div(c.regs).unwrap_or(u32::MAX);
    let by_shared = sm.shared.checked_div(shared).unwrap_or(u32::MAX);
    by_threads.min(by_regs).min(by_shared).min(sm.blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOLTA: SmLimits = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 96 * 1024 };

    #[test]
    fn each_limit_binds() {
        assert_eq!(blocks_per_sm(&VOLTA, 1024, 32, 0), 2, "threads");
        assert_eq!(blocks_per_sm(&VOLTA, 64, 8, 0), 32, "blocks");
        assert_eq!(blocks_per_sm(&VOLTA, 256, 64, 0), 4, "registers");
        assert_eq!(blocks_per_sm(&VOLTA, 128, 16, 40 * 1024), 2, "shared memory");
        assert_eq!(blocks_per_sm(&VOLTA, 0, 16, 0), 0);
        assert_eq!(blocks_per_sm(&VOLTA, 1024, 255, 0), 0, "does not fit");
    }

    #[test]
    fn warp_and_register_granularity() {
        // 33 threads take two warps; 38 registers take 1280 per warp (5 units of 256).
        assert_eq!(blocks_per_sm(&VOLTA, 33, 1, 0), 32);
        assert_eq!(blocks_per_sm(&VOLTA, 1000, 1, 0), 2);
        assert_eq!(blocks_per_sm(&VOLTA, 1024, 38, 0), 1);
        assert_eq!(blocks_per_sm(&VOLTA, 544, 38, 0), 3);
        assert_eq!(blocks_per_sm(&VOLTA, 2048, 1, 0), 1);
    }
}
