//! Occupancy: how many blocks of a function fit on an SM, and the block size that maximizes it
//! (`hw::occupancy`, the rule the device's dispatcher applies).

use crate::state::{gpu_of, guard, key};
use crate::{CUresult, Handle, attrs, raw};
use backend_user::CuError;
use backend_user::UserDev;
use runtime_core::FuncAttributes;
use runtime_core::context::cluster::max_active;
use std::ffi::c_int;

/// Resident blocks of `f` per SM for `block` threads and `dyn_shared` bytes, from the
/// device configuration's per-SM limits, by the rule the device's dispatcher applies
/// (`hw::occupancy`).
pub(crate) fn blocks_per_sm(gpu: &UserDev, a: &FuncAttributes, block: u32, dyn_shared: usize) -> u32 {
    if block == 0 || block > a.max_threads {
        return 0;
    }
    // As a launch: dynamic shared memory up to what the kernel opted into (48 KiB a
    // block in all unless it did), never past the device's opt-in limit.
    let shared = a.shared_bytes as u64 + dyn_shared as u64;
    if dyn_shared as u64 > a.max_dynamic_shared as u64 || shared > gpu.max_shared_per_block_optin() as u64 {
        return 0;
    }
    hw::occupancy::blocks_per_sm(&gpu.info().sm, block, a.regs, shared as u32)
}

/// cuOccupancyMaxActiveBlocksPerMultiprocessor.
#[unsafe(no_mangle)]
pub extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    f: Handle,
    block: c_int,
    dyn_shared: usize,
) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        let block = u32::try_from(block).map_err(|_| CuError::InvalidValue)?;
        let gpu = gpu_of(key(f))?;
        let n = blocks_per_sm(&gpu, &a, block, dyn_shared);
        raw::put(num_blocks, n as c_int)
    })
}

/// cuOccupancyMaxActiveClusters: how many thread block clusters of `f` the device holds at
/// once for `config`'s block, dynamic shared memory and cluster shape (its
/// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, or the kernel's own; one of them must be given,
/// and agree when both are: CUDA_ERROR_INVALID_CLUSTER_SIZE otherwise, as for more than 8
/// blocks, or 16 with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED). Each GPC holds
/// as many whole clusters as its SMs' block slots make. CUDA_ERROR_NOT_SUPPORTED before
/// compute capability 9.0.
#[unsafe(no_mangle)]
pub extern "C" fn cuOccupancyMaxActiveClusters(
    num_clusters: *mut c_int,
    f: Handle,
    config: *const crate::CuLaunchConfig,
) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        let c = raw::get(config)?;
        let gpu = gpu_of(key(f))?;
        let info = gpu.info();
        let threads = c.block.iter().try_fold(1u32, |p, &d| p.checked_mul(d)).ok_or(CuError::InvalidValue)?;
        let per_sm = blocks_per_sm(&gpu, &a, threads, c.shared as usize);
        let shape = (a.cluster, a.non_portable_cluster);
        let n = max_active((info.compute_capability, (info.gpcs, info.sms)), shape, c.cluster()?, per_sm)?;
        raw::put(num_clusters, n as c_int)
    })
}

/// `size_t (*)(int blockSize)`: dynamic shared memory for a block size.
pub type BlockToShared = Option<extern "C" fn(c_int) -> usize>;

/// cuOccupancyMaxPotentialBlockSize: the block size (a multiple of 32, at most
/// `limit` when non-zero) with the most resident threads per SM, the largest on a tie;
/// `min_grid` is the grid that fills every SM at that occupancy.
#[unsafe(no_mangle)]
pub extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    f: Handle,
    b2s: BlockToShared,
    dyn_shared: usize,
    limit: c_int,
) -> CUresult {
    guard(|| {
        let a = attrs(f)?;
        if min_grid.is_null() || block_size.is_null() {
            return Err(CuError::InvalidValue);
        }
        let gpu = gpu_of(key(f))?;
        let sms = gpu.info().sms;
        let mut max = a.max_threads;
        if limit > 0 {
            max = max.min(limit as u32);
        }
        let (block, per_sm) = hw::occupancy::suggested_block(max, |b| {
            blocks_per_sm(&gpu, &a, b, b2s.map_or(dyn_shared, |g| g(b as c_int)))
        })
        .ok_or(CuError::InvalidValue)?;
        raw::put(block_size, block as c_int)?;
        raw::put(min_grid, (per_sm * sms) as c_int)
    })
}
