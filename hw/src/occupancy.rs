//! How many blocks of one shape an SM holds at once: the rule the device's block
//! dispatcher applies, the occupancy API (`cuOccupancy*`) reports and `rgdev ptxas`
//! prints, in one place so they cannot disagree.
//!
//! The rule is NVIDIA's, as its occupancy calculator states it per compute capability:
//! - threads are allocated in whole warps;
//! - registers are allocated per warp, `regs × 32` rounded up to the allocation unit
//!   ([`Rule::reg_unit`]), and the register file is split evenly between the SM's
//!   sub-partitions ([`Rule::subparts`], one per warp scheduler): a warp's registers come
//!   from one of them, so the warps an SM holds by registers are
//!   `subparts × ⌊regs_per_SM / subparts / regs_per_warp⌋`;
//! - a block whose warps, spread evenly over the sub-partitions, need more registers than
//!   the SM has cannot launch at all;
//! - shared memory is allocated in units of [`Rule::shared_unit`] bytes, each block's
//!   with the [`Rule::reserved_shared`] bytes the system keeps per block from compute
//!   capability 8.0 on.
//!
//! [`Free`] keeps an SM's free resources while blocks come and go (the dispatcher);
//! [`blocks_per_sm`] fills an empty SM with [`Free`], so the API's answer is the
//! dispatcher's by construction.

pub use crate::isa::WARP_SIZE;

/// Most sub-partitions an SM may have.
pub const MAX_SUBPARTS: usize = 4;

/// The allocation rule of one architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Registers per warp are allocated in multiples of this.
    pub reg_unit: u32,
    /// Register file sub-partitions (warp schedulers), at most [`MAX_SUBPARTS`].
    pub subparts: u32,
    /// Shared memory per block is allocated in multiples of this (bytes).
    pub shared_unit: u32,
    /// Fermi's exception: 21, 22, 29, 30, 37, 38, 45 and 46 registers per thread are
    /// allocated in units of 128 registers per warp instead of 64.
    pub fermi: bool,
    /// Shared memory the system reserves for each block (bytes), beside the block's own.
    pub reserved_shared: u32,
}

impl Rule {
    /// Compute capability 2.x (Fermi): 64-register units, 2 sub-partitions, 128-byte
    /// shared memory units.
    pub const FERMI: Rule = Rule { reg_unit: 64, subparts: 2, shared_unit: 128, fermi: true, reserved_shared: 0 };
    /// Compute capability 3.0 to 7.x (Kepler to Turing): 256-register units, 4
    /// sub-partitions, 256-byte shared memory units.
    pub const VOLTA: Rule = Rule { reg_unit: 256, subparts: 4, shared_unit: 256, fermi: false, reserved_shared: 0 };
    /// Compute capability 8.0 and later (Ampere, Hopper): 256-register units, 4
    /// sub-partitions, 128-byte shared memory units, and 1 KiB of shared memory the
    /// system reserves per block.
    pub const AMPERE: Rule = Rule { reg_unit: 256, subparts: 4, shared_unit: 128, fermi: false, reserved_shared: 1024 };

    /// The rule of compute capability `major.x`.
    pub fn for_cc(major: u32) -> Rule {
        match major {
            ..=2 => Rule::FERMI,
            3..=7 => Rule::VOLTA,
            _ => Rule::AMPERE,
        }
    }

    /// Registers one warp of threads using `regs` registers takes.
    pub fn warp_regs(&self, regs: u32) -> u32 {
        let regs = regs.clamp(1, 4096);
        let unit =
            if self.fermi && matches!(regs, 21 | 22 | 29 | 30 | 37 | 38 | 45 | 46) { 128 } else { self.reg_unit };
        (regs * WARP_SIZE).next_multiple_of(unit.max(1))
    }
}

/// An SM's resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// Resident threads.
    pub threads: u32,
    /// Resident blocks.
    pub blocks: u32,
    /// 32-bit registers (the whole register file).
    pub regs: u32,
    /// Shared memory bytes.
    pub shared: u32,
    /// How they are allocated.
    pub rule: Rule,
}

/// What one block takes from an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCost {
    /// Thread slots (whole warps).
    pub threads: u32,
    /// Warps.
    pub warps: u32,
    /// Registers per warp.
    pub warp_regs: u32,
    /// Shared memory, rounded up to the allocation unit.
    pub shared: u32,
}

/// The cost of a block of `threads` threads using `regs` registers per thread and `shared`
/// bytes of shared memory on `sm`; `None` when such a block can never launch there (its
/// registers, spread over the sub-partitions, exceed the register file).
pub fn block_cost(sm: &SmLimits, threads: u32, regs: u32, shared: u32) -> Option<BlockCost> {
    let warps = threads.div_ceil(WARP_SIZE);
    let warp_regs = sm.rule.warp_regs(regs);
    let subparts = sm.rule.subparts.clamp(1, MAX_SUBPARTS as u32);
    if (warp_regs as u64) * (warps.next_multiple_of(subparts) as u64) > sm.regs as u64 {
        return None;
    }
    Some(BlockCost {
        threads: warps.saturating_mul(WARP_SIZE),
        warps,
        warp_regs,
        shared: shared.checked_add(sm.rule.reserved_shared)?.checked_next_multiple_of(sm.rule.shared_unit.max(1))?,
    })
}

/// Which sub-partitions a block's warps took registers from: warps per sub-partition.
pub type Placement = [u16; MAX_SUBPARTS];

/// An SM's free resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Free {
    /// Thread slots.
    pub threads: u32,
    /// Block slots.
    pub blocks: u32,
    /// Shared memory bytes.
    pub shared: u32,
    /// Registers of each sub-partition.
    pub regs: [u32; MAX_SUBPARTS],
}

impl Free {
    /// An empty SM.
    pub fn of(sm: &SmLimits) -> Free {
        let n = sm.rule.subparts.clamp(1, MAX_SUBPARTS as u32);
        let mut regs = [0; MAX_SUBPARTS];
        for r in regs.iter_mut().take(n as usize) {
            *r = sm.regs / n;
        }
        Free { threads: sm.threads, blocks: sm.blocks, shared: sm.shared, regs }
    }

    /// Warps of `warp_regs` registers the sub-partitions still hold.
    pub fn warp_slots(&self, warp_regs: u32) -> u32 {
        self.regs.iter().map(|r| r.checked_div(warp_regs).unwrap_or(0)).sum()
    }

    /// Whether a block of cost `c` fits now.
    pub fn fits(&self, c: &BlockCost) -> bool {
        self.threads >= c.threads
            && self.blocks >= 1
            && self.shared >= c.shared
            && self.warp_slots(c.warp_regs) >= c.warps
    }

    /// Take a block of cost `c` (which [`fits`](Self::fits)): each warp's registers from
    /// the sub-partition with the most free (the lowest on ties).
    pub fn take(&mut self, c: &BlockCost) -> Placement {
        let mut placed = [0u16; MAX_SUBPARTS];
        for _ in 0..c.warps {
            let Some(k) = (0..MAX_SUBPARTS)
                .filter(|&k| self.regs[k] >= c.warp_regs)
                .max_by_key(|&k| (self.regs[k], MAX_SUBPARTS - k))
            else {
                break;
            };
            self.regs[k] -= c.warp_regs;
            placed[k] += 1;
        }
        self.threads -= c.threads;
        self.blocks -= 1;
        self.shared -= c.shared;
        placed
    }

    /// Give back what [`take`](Self::take) took.
    pub fn give(&mut self, c: &BlockCost, placed: &Placement) {
        for (r, &n) in self.regs.iter_mut().zip(placed) {
            *r += n as u32 * c.warp_regs;
        }
        self.threads += c.threads;
        self.blocks += 1;
        self.shared += c.shared;
    }
}

/// Blocks of `threads` threads using `regs` registers per thread and `shared` bytes of
/// shared memory (static plus dynamic) that fit on one SM at once; 0 when none does.
pub fn blocks_per_sm(sm: &SmLimits, threads: u32, regs: u32, shared: u32) -> u32 {
    match block_cost(sm, threads, regs, shared) {
        Some(c) if threads > 0 => blocks_of(sm, &c),
        _ => 0,
    }
}

/// Blocks of cost `c` that fit on one empty SM at once.
pub fn blocks_of(sm: &SmLimits, c: &BlockCost) -> u32 {
    let mut free = Free::of(sm);
    let mut n = 0;
    while free.fits(c) {
        free.take(c);
        n += 1;
    }
    n
}

/// What bounds the blocks an SM holds at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// Resident threads (warp slots).
    Threads,
    /// Resident blocks.
    Blocks,
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
}

impl Limiter {
    /// How the occupancy calculator names it.
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Threads => "threads",
            Limiter::Blocks => "blocks",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
        }
    }
}

/// Blocks per SM of this shape and the resource that bounds them (the first of threads,
/// blocks, registers and shared memory that alone allows no more); `None` when the block
/// can never launch.
pub fn limited_by(sm: &SmLimits, threads: u32, regs: u32, shared: u32) -> Option<(u32, Limiter)> {
    let c = block_cost(sm, threads, regs, shared).filter(|_| threads > 0)?;
    let n = blocks_of(sm, &c);
    let only_regs = SmLimits { threads: u32::MAX / 2, blocks: u32::MAX / 2, shared: u32::MAX / 2, ..*sm };
    let alone = [
        (sm.threads / c.threads.max(1), Limiter::Threads),
        (sm.blocks, Limiter::Blocks),
        (blocks_of(&only_regs, &c), Limiter::Registers),
        (sm.shared.checked_div(c.shared).unwrap_or(u32::MAX), Limiter::SharedMemory),
    ];
    alone.iter().find(|(k, _)| *k <= n).map(|&(_, l)| (n, l))
}

/// The block size cuOccupancyMaxPotentialBlockSize suggests: the multiple of 32 up to
/// `max_threads` with the most resident threads per SM (`blocks(size)` blocks of it fit),
/// the largest on a tie; with the blocks per SM at that size. `None` when none fits.
pub fn suggested_block(max_threads: u32, mut blocks: impl FnMut(u32) -> u32) -> Option<(u32, u32)> {
    let mut best = (0u32, 0u32, 0u32); // (resident threads, block size, blocks)
    let mut b = max_threads / WARP_SIZE * WARP_SIZE;
    while b >= WARP_SIZE {
        let n = blocks(b);
        if n * b > best.0 {
            best = (n * b, b, n);
        }
        b -= WARP_SIZE;
    }
    (best.1 > 0).then_some((best.1, best.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_limits_occupancy_and_the_suggested_block() {
        let gv100 = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 96 * 1024, rule: Rule::VOLTA };
        assert_eq!(limited_by(&gv100, 1024, 19, 8192), Some((2, Limiter::Threads)));
        assert_eq!(limited_by(&gv100, 32, 8, 0), Some((32, Limiter::Blocks)));
        assert_eq!(limited_by(&gv100, 256, 128, 0), Some((2, Limiter::Registers)));
        assert_eq!(limited_by(&gv100, 64, 8, 40 * 1024), Some((2, Limiter::SharedMemory)));
        assert_eq!(limited_by(&gv100, 1024, 255, 0), None);
        let blocks = |regs| move |b| blocks_per_sm(&gv100, b, regs, 0);
        assert_eq!(suggested_block(1024, blocks(19)), Some((1024, 2)));
        // 64 registers: 1024 threads per SM at most, a 1024-thread block is the largest.
        assert_eq!(suggested_block(1024, blocks(64)), Some((1024, 1)));
        assert_eq!(suggested_block(16, blocks(8)), None);
    }

    const VOLTA: SmLimits = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 96 * 1024, rule: Rule::VOLTA };
    const FERMI: SmLimits = SmLimits { threads: 1536, blocks: 8, regs: 32768, shared: 48 * 1024, rule: Rule::FERMI };

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
        assert_eq!(blocks_per_sm(&VOLTA, 2048, 1, 0), 1);
        // Shared memory in 256-byte units: 3 × 32 KiB fits 96 KiB, 3 × (32 KiB + 1) not.
        assert_eq!(blocks_per_sm(&VOLTA, 32, 1, 32 << 10), 3);
        assert_eq!(blocks_per_sm(&VOLTA, 32, 1, (32 << 10) + 1), 2);
    }

    #[test]
    fn volta_allocates_registers_per_sub_partition() {
        // 544 threads (17 warps) of 38 registers: 1280 per warp. The whole file would hold
        // 51 warps (3 blocks), but each sub-partition's 16384 holds 12 warps, 48 in all:
        // 2 blocks, as NVIDIA's calculator says.
        assert_eq!(blocks_per_sm(&VOLTA, 544, 38, 0), 2);
        // 136 registers: 4352 per warp, 3 warps per sub-partition, 12 per SM. A block of
        // 15 warps cannot launch although 15 × 4352 = 65280 fits the whole file.
        assert_eq!(blocks_per_sm(&VOLTA, 12 * 32, 136, 0), 1);
        assert_eq!(blocks_per_sm(&VOLTA, 15 * 32, 136, 0), 0);
        // 64 registers, 1024 threads: exactly one block (32 warps × 2048 = 65536).
        assert_eq!(blocks_per_sm(&VOLTA, 1024, 64, 0), 1);
        assert_eq!(blocks_per_sm(&VOLTA, 1024, 65, 0), 0);
    }

    #[test]
    fn ampere_and_hopper_reserve_shared_memory_per_block() {
        assert_eq!((Rule::for_cc(8), Rule::for_cc(9)), (Rule::AMPERE, Rule::AMPERE));
        let h100 = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 228 * 1024, rule: Rule::AMPERE };
        let a100 = SmLimits { shared: 164 * 1024, ..h100 };
        // 32 KiB blocks: 228 / 33 = 6 on an H100 (7 without the reserve); 16 KiB on an
        // A100: 164 / 17 = 9.
        assert_eq!(blocks_per_sm(&h100, 128, 16, 32 * 1024), 6);
        assert_eq!(blocks_per_sm(&a100, 128, 16, 16 * 1024), 9);
        // The opt-in maximum (227 KiB) and its reserve fill an H100's SM exactly.
        assert_eq!(blocks_per_sm(&h100, 128, 16, 227 * 1024), 1);
        // No shared memory still reserves 1 KiB a block: 32 blocks need 32 KiB.
        assert_eq!(blocks_per_sm(&SmLimits { shared: 16 * 1024, ..h100 }, 32, 16, 0), 16);
    }

    #[test]
    fn fermi_rule() {
        assert_eq!(FERMI.rule, Rule::for_cc(2));
        assert_eq!(Rule::for_cc(7), Rule::VOLTA);
        // 8 blocks at most; 64-register units, 128 for 21 registers.
        assert_eq!(blocks_per_sm(&FERMI, 32, 1, 0), 8);
        assert_eq!(Rule::FERMI.warp_regs(20), 640);
        assert_eq!(Rule::FERMI.warp_regs(21), 768);
        assert_eq!(Rule::FERMI.warp_regs(23), 768);
        // 256 threads of 21 registers: 2 × ⌊16384 / 768⌋ = 42 warps, 5 blocks of 8.
        assert_eq!(blocks_per_sm(&FERMI, 256, 21, 0), 5);
        // 256 threads of 20 registers: 2 × ⌊16384 / 640⌋ = 50 warps, 6 blocks (threads: 6).
        assert_eq!(blocks_per_sm(&FERMI, 256, 20, 0), 6);
        // 1024 threads of 33 registers: 1088 per warp, 15 warps per sub-partition: 30 < 32.
        assert_eq!(blocks_per_sm(&FERMI, 1024, 33, 0), 0);
        assert_eq!(blocks_per_sm(&FERMI, 1024, 32, 0), 1);
    }

    #[test]
    fn the_dispatcher_gives_back_what_it_took() {
        let c = block_cost(&VOLTA, 544, 38, 1000).unwrap();
        let mut f = Free::of(&VOLTA);
        let a = f.take(&c);
        let b = f.take(&c);
        assert!(!f.fits(&c));
        assert_eq!(a.iter().map(|&n| n as u32).sum::<u32>(), 17);
        f.give(&c, &a);
        f.give(&c, &b);
        assert_eq!(f, Free::of(&VOLTA));
    }
}

/// The shared-memory carveouts (bytes per SM) an SM of `max_shared` bytes of shared memory
/// can be configured with, smallest first: 0, 8, 16, 32 and 64 KiB, then 100, 132, 164, 196
/// and 228 KiB as far as the part goes, and its maximum (CUDA's tuning guides: Volta 0-96
/// KiB, A100 0-164, H100 0-228). The rest of the SM's unified L1 and shared memory is L1.
pub fn carveouts(max_shared: u32) -> impl Iterator<Item = u32> {
    const KIB: [u32; 10] = [0, 8, 16, 32, 64, 100, 132, 164, 196, 228];
    let top = max_shared;
    KIB.into_iter().map(|k| k * 1024).filter(move |&b| b < top).chain(core::iter::once(top))
}

/// The carveout the driver configures for a launch of blocks of `threads` threads using
/// `regs` registers and `shared` bytes of shared memory on `sm` (`sm.shared` the most the
/// part has), with the kernel's preferred carveout `preferred` (percent of the most, a
/// hint; CUDA's `cudaFuncAttributePreferredSharedMemoryCarveout`): the smallest
/// configuration that holds as many blocks as the SM's other resources allow, or the
/// preference rounded up to a configuration when that is larger (a preference never
/// lowers occupancy here). A kernel without shared memory leaves the SM all of its L1 but
/// the system's reserve of its blocks (compute capability 8.0 on: 1 KiB a block).
pub fn carveout(sm: &SmLimits, threads: u32, regs: u32, shared: u32, preferred: Option<u32>) -> u32 {
    // Every resident block's shared memory, the system's reserve per block included (so a
    // kernel without shared memory still takes 1 KiB a block from compute capability 8.0).
    let need = block_cost(sm, threads, regs, shared).map_or(0, |c| c.shared.saturating_mul(blocks_of(sm, &c)));
    let want = preferred.map_or(0, |p| (sm.shared as u64 * p.min(100) as u64).div_ceil(100) as u32);
    let floor = need.max(want);
    carveouts(sm.shared).find(|&c| c >= floor).unwrap_or(sm.shared)
}

#[cfg(test)]
mod carveout_tests {
    use super::*;

    #[test]
    fn the_driver_configures_the_smallest_carveout_that_keeps_occupancy() {
        let h100 = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 228 * 1024, rule: Rule::AMPERE };
        assert!(carveouts(96 * 1024).map(|b| b / 1024).eq([0, 8, 16, 32, 64, 96]));
        assert_eq!(carveouts(h100.shared).last(), Some(228 * 1024));
        // No shared memory: all L1 on Volta; on Hopper, but for the 1 KiB reserved per
        // block (8 blocks: the 8 KiB configuration; 32 single-thread blocks: 32 KiB).
        let v100 = SmLimits { shared: 96 * 1024, rule: Rule::VOLTA, ..h100 };
        assert_eq!(carveout(&v100, 256, 32, 0, None), 0);
        assert_eq!(carveout(&h100, 256, 32, 0, None), 8 * 1024);
        assert_eq!(carveout(&h100, 1, 16, 0, None), 32 * 1024);
        // 8 blocks of 4 KiB (+1 KiB reserved each) = 40 KiB: the 64 KiB configuration.
        assert_eq!(carveout(&h100, 256, 32, 4096, None), 64 * 1024);
        // A preference of half the most: 114 KiB, rounded up to 132.
        assert_eq!(carveout(&h100, 256, 32, 4096, Some(50)), 132 * 1024);
        assert_eq!(carveout(&h100, 256, 32, 0, Some(100)), 228 * 1024);
        // Shared memory that fills the SM: the largest.
        assert_eq!(carveout(&h100, 1024, 32, 100 * 1024, None), 228 * 1024);
    }
}
