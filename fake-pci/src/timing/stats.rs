//! Per-kernel statistics: cycles, issue and stall counts, cache and DRAM traffic, and the
//! ratios profilers report.

/// Stall reasons, counted per scheduler cycle without an issue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stalls {
    /// Waiting for an operand (a register a load or long-latency instruction will write).
    pub dependency: u64,
    /// Waiting for a pipe (ALU, FP64, SFU, divide, LSU) to accept another instruction.
    pub pipe: u64,
    /// Waiting after a branch or other control instruction.
    pub control: u64,
    /// Every warp of the scheduler waits at a barrier.
    pub barrier: u64,
}

/// Statistics of one kernel (one grid).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Launch number on this device (0, 1, ...), in the order LAUNCH methods were processed.
    pub seq: u64,
    /// Channel that launched it.
    pub chid: u32,
    /// Program address (CODE_ADDRESS) and entry point (PROGRAM_START): with the channel,
    /// they identify the function.
    pub code: u64,
    /// Entry point, bytes from `code`.
    pub entry: u32,
    /// Grid and block dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// The blocks this launch ran: the first flattened block id and how many (the whole
    /// grid unless the launch named a range, GRID_FIRST_BLOCK and GRID_BLOCK_COUNT).
    pub blocks: (u64, u64),
    /// System-scope fences executed (`membar.sys`, `__threadfence_system`), each of which
    /// waited for the L2's dirty lines to be written back.
    pub system_fences: u64,
    /// Cycle of LAUNCH.
    pub start_cycle: u64,
    /// Cycle of completion (after the end-of-kernel L2 write-back).
    pub end_cycle: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes of issued instructions).
    pub thread_instructions: u64,
    /// Warp-cycles of resident warps, summed over SMs (for achieved occupancy).
    pub resident_warp_cycles: u64,
    /// Resident warps an SM can hold (the preset's limit).
    pub max_warps_per_sm: u32,
    /// SMs of the device.
    pub sms: u32,
    /// Blocks an SM held at once at most (the occupancy rule for this launch).
    pub blocks_per_sm: u32,
    /// Stall reasons.
    pub stalls: Stalls,
    /// L1 hits and misses (sectors of global and local loads).
    pub l1_hits: u64,
    /// L1 misses.
    pub l1_misses: u64,
    /// Texture-cache hits (sectors of texture fetches; in the L1 when the preset's
    /// `tex.bytes` is 0).
    pub tex_hits: u64,
    /// Texture-cache misses.
    pub tex_misses: u64,
    /// L2 hits and misses (sectors).
    pub l2_hits: u64,
    /// L2 misses.
    pub l2_misses: u64,
    /// Bytes read from DRAM.
    pub dram_read_bytes: u64,
    /// Bytes written to DRAM (evictions and the end-of-kernel write-back).
    pub dram_write_bytes: u64,
    /// Accesses that found no PTE in a replayable context and waited for a replay (one a
    /// warp and instruction; a replayed access that faults again counts again).
    pub replayable_faults: u64,
    /// Bytes loaded from and stored to other GPUs' VRAM (peer memory).
    pub peer_read_bytes: u64,
    /// See `peer_read_bytes`.
    pub peer_write_bytes: u64,
    /// Extra cycles shared-memory accesses spent on bank conflicts.
    pub bank_conflict_cycles: u64,
    /// Whether the grid ended in a fault or trap.
    pub failed: bool,
}

impl KernelStats {
    /// Cycles from LAUNCH to completion.
    pub fn cycles(&self) -> u64 {
        self.end_cycle.saturating_sub(self.start_cycle)
    }
    /// Warp instructions per cycle, over the whole device.
    pub fn ipc(&self) -> f64 {
        self.warp_instructions as f64 / self.cycles().max(1) as f64
    }
    /// Average resident warps over the kernel's duration, as a fraction of the device's
    /// warp slots.
    pub fn achieved_occupancy(&self) -> f64 {
        let slots = self.max_warps_per_sm as f64 * self.sms as f64 * self.cycles().max(1) as f64;
        self.resident_warp_cycles as f64 / slots.max(1.0)
    }
    /// L1 hit rate (0 when nothing was looked up).
    pub fn l1_hit_rate(&self) -> f64 {
        ratio(self.l1_hits, self.l1_hits + self.l1_misses)
    }
    /// Texture-cache hit rate.
    pub fn tex_hit_rate(&self) -> f64 {
        ratio(self.tex_hits, self.tex_hits + self.tex_misses)
    }
    /// L2 hit rate.
    pub fn l2_hit_rate(&self) -> f64 {
        ratio(self.l2_hits, self.l2_hits + self.l2_misses)
    }
}

pub(crate) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}
