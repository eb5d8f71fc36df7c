//! CUDA's numbers that the runtime enforces: per-block and per-grid launch limits, the
//! kernel parameter space, local memory, and stream priorities. Limits that depend on the
//! device (an SM with less shared memory or fewer registers) are combined with what the
//! probe read (`Device::max_shared_per_block`, `Device::max_regs_per_block`).

/// Kernel parameter space (constant buffer 0), bytes.
pub const PARAM_BYTES: u32 = 4096;
/// Most shared memory per block.
pub const MAX_SHARED: u32 = 48 * 1024;
/// Most threads per block, and per block dimension.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// Most blocks per grid dimension (the 16-bit fields of GRID_DIM_XY).
pub const MAX_GRID: [u32; 3] = [65535, 65535, 65535];
/// Registers available to one block.
pub const REGS_PER_BLOCK: u32 = 65536;
/// Local memory per thread (CUDA's limit).
pub const MAX_LOCAL: u32 = 512 * 1024;
/// Local memory of one block (the simulator's bound on what a block may hold).
pub const MAX_LOCAL_PER_BLOCK: u64 = 64 << 20;

/// Stream priorities as CUDA numbers them: `GREATEST` (most urgent) to `LEAST` (0).
pub const STREAM_PRIORITY_GREATEST: i32 = -3;
/// The least urgent (and default) stream priority.
pub const STREAM_PRIORITY_LEAST: i32 = 0;

/// Whether every block dimension is between 1 and its limit.
pub fn block_fits(block: [u32; 3]) -> bool {
    !block.contains(&0) && (0..3).all(|i| block[i] <= MAX_BLOCK[i])
}
