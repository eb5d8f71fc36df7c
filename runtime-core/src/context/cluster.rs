//! Thread block clusters at launch (compute capability 9.0): the shape a launch runs with,
//! checked as the driver checks it, and how many clusters the device holds at once.
//!
//! A cluster's blocks run at once on one GPC. The device's GPCs are its SMs in order, in
//! `gpcs` runs of equal size to one SM (the dispatcher's grouping), so the smallest holds
//! `sms / gpcs` SMs.

use crate::error::{CuError, Result};
use hw::class::ClusterDim;
use hw::isa::MAX_CLUSTER_BLOCKS;

/// The most blocks in a cluster without CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED.
pub const PORTABLE_CLUSTER_BLOCKS: u32 = 8;

/// SMs in each GPC of a device of `gpcs` GPCs and `sms` SMs, in order.
fn gpc_sizes((gpcs, sms): (u32, u32)) -> impl Iterator<Item = u32> {
    let sms = sms.max(1);
    let gpcs = gpcs.clamp(1, sms);
    (0..gpcs).map(move |g| (0..sms).filter(|&s| s * gpcs / sms == g).count() as u32)
}

/// The cluster shape of a launch: the one asked for (a launch attribute) or the kernel's
/// (`.reqnctapercluster`, `__cluster_dims__`), as the device's CLUSTER_DIM. A launch with
/// neither runs as clusters of one block, not explicit.
///
/// CUDA_ERROR_INVALID_CLUSTER_SIZE when the two differ, when the kernel needs a shape
/// (`.explicitcluster`) and has none, when a dimension is 0 or does not divide the grid, or
/// beyond 8 blocks (16 with the non-portable attribute); CUDA_ERROR_NOT_SUPPORTED before
/// compute capability 9.0; CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES when the smallest GPC cannot
/// hold the cluster's blocks at once (`per_sm` blocks of the kernel an SM holds).
pub(crate) fn shape(
    (cc, gpcs): ((u32, u32), (u32, u32)),
    k: &ptx::program::Kernel,
    asked: Option<[u32; 3]>,
    non_portable: bool,
    grid: [u32; 3],
    per_sm: u32,
) -> Result<ClusterDim> {
    let Some(dims) = chosen(asked, k.cluster)? else {
        return match k.explicit_cluster {
            true => Err(CuError::InvalidClusterSize),
            false => Ok(ClusterDim::new()),
        };
    };
    let n = blocks(cc, dims, non_portable)?;
    if (0..3).any(|i| !grid[i].is_multiple_of(dims[i])) {
        return Err(CuError::InvalidClusterSize);
    }
    let smallest = gpc_sizes(gpcs).min().unwrap_or(0);
    if per_sm.saturating_mul(smallest) < n {
        return Err(CuError::LaunchOutOfResources);
    }
    Ok(ClusterDim::new().with_x(dims[0] as u8).with_y(dims[1] as u8).with_z(dims[2] as u8).with_explicit(true))
}

/// The shape asked for or the kernel's own (`required`); they must agree
/// (CUDA_ERROR_INVALID_CLUSTER_SIZE).
fn chosen(asked: Option<[u32; 3]>, required: Option<[u32; 3]>) -> Result<Option<[u32; 3]>> {
    match (asked, required) {
        (Some(a), Some(c)) if a != c => Err(CuError::InvalidClusterSize),
        (a, c) => Ok(a.or(c)),
    }
}

/// The blocks of a cluster of shape `dims` on a device of compute capability `cc`: at most
/// 8, 16 when `non_portable` (CUDA_ERROR_INVALID_CLUSTER_SIZE, as for a dimension of 0);
/// CUDA_ERROR_NOT_SUPPORTED before 9.0.
fn blocks(cc: (u32, u32), dims: [u32; 3], non_portable: bool) -> Result<u32> {
    if cc.0 < 9 {
        return Err(CuError::NotSupported);
    }
    let n = dims.iter().try_fold(1u32, |a, &d| a.checked_mul(d)).unwrap_or(u32::MAX);
    let most = if non_portable { MAX_CLUSTER_BLOCKS } else { PORTABLE_CLUSTER_BLOCKS };
    if dims.contains(&0) || n > most {
        return Err(CuError::InvalidClusterSize);
    }
    Ok(n)
}

/// How many clusters of `n` blocks the device holds at once when an SM holds `per_sm`
/// blocks: each GPC's block slots in whole clusters. (`gpcs`: the device's GPCs and SMs.)
fn max_active_clusters(gpcs: (u32, u32), per_sm: u32, n: u32) -> u32 {
    gpc_sizes(gpcs).map(|g| (per_sm * g).checked_div(n).unwrap_or(0)).sum()
}

/// cuOccupancyMaxActiveClusters: the clusters of a kernel (its shape `required`, if any, and
/// whether it allows non-portable sizes) the device holds at once for the shape `asked`
/// (one of the two must be given) when an SM holds `per_sm` of its blocks.
pub fn max_active(
    (cc, gpcs): ((u32, u32), (u32, u32)),
    (required, non_portable): (Option<[u32; 3]>, bool),
    asked: Option<[u32; 3]>,
    per_sm: u32,
) -> Result<u32> {
    if cc.0 < 9 {
        return Err(CuError::NotSupported);
    }
    let dims = chosen(asked, required)?.ok_or(CuError::InvalidClusterSize)?;
    Ok(max_active_clusters(gpcs, per_sm, blocks(cc, dims, non_portable)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(cluster: Option<[u32; 3]>, explicit: bool) -> ptx::program::Kernel {
        let p = ptx::compile_ptx(".version 7.8\n.target sm_90\n.address_size 64\n.entry k() { ret; }\n").unwrap();
        ptx::program::Kernel { cluster, explicit_cluster: explicit, ..p.kernels[0].clone() }
    }

    const HOPPER: ((u32, u32), (u32, u32)) = ((9, 0), (8, 132));

    #[test]
    fn launch_shapes_are_checked_as_the_driver_does() {
        let (h, g) = (HOPPER, [8, 4, 1]);
        let none = shape(h, &kernel(None, false), None, false, g, 2).unwrap();
        assert_eq!((none.dims(), none.explicit()), ([1, 1, 1], false));
        let c = shape(h, &kernel(None, false), Some([2, 2, 1]), false, g, 2).unwrap();
        assert_eq!((c.dims(), c.explicit()), ([2, 2, 1], true));
        // The kernel's own shape, or the same given again.
        let k = kernel(Some([4, 1, 1]), false);
        assert_eq!(shape(h, &k, None, false, g, 2).unwrap().dims(), [4, 1, 1]);
        assert_eq!(shape(h, &k, Some([4, 1, 1]), false, g, 2).unwrap().dims(), [4, 1, 1]);
        assert_eq!(shape(h, &k, Some([2, 1, 1]), false, g, 2), Err(CuError::InvalidClusterSize));
        assert_eq!(shape(h, &kernel(None, true), None, false, g, 2), Err(CuError::InvalidClusterSize));
        // Dividing the grid, within 8 blocks (16 when allowed), fitting in a GPC.
        let k = kernel(None, false);
        assert_eq!(shape(h, &k, Some([3, 1, 1]), false, g, 2), Err(CuError::InvalidClusterSize));
        assert_eq!(shape(h, &k, Some([0, 1, 1]), false, g, 2), Err(CuError::InvalidClusterSize));
        assert_eq!(shape(h, &k, Some([8, 2, 1]), false, [16, 4, 1], 2), Err(CuError::InvalidClusterSize));
        assert!(shape(h, &k, Some([8, 2, 1]), true, [16, 4, 1], 2).is_ok());
        assert_eq!(shape(h, &k, Some([8, 2, 1]), true, [16, 4, 1], 0), Err(CuError::LaunchOutOfResources));
        let ampere = ((8, 0), h.1);
        assert_eq!(shape(ampere, &k, Some([2, 1, 1]), false, g, 2), Err(CuError::NotSupported));
        assert!(shape(ampere, &k, None, false, g, 2).is_ok());
    }

    #[test]
    fn active_clusters_fill_each_gpc() {
        let h = HOPPER.1;
        // 132 SMs in 8 GPCs: four of 16 and four of 17.
        assert_eq!(gpc_sizes(h).sum::<u32>(), 132);
        assert_eq!(gpc_sizes(h).min(), Some(16));
        assert_eq!(max_active_clusters(h, 1, 2), 4 * 8 + 4 * 8);
        assert_eq!(max_active_clusters(h, 2, 16), 16);
        assert_eq!(max_active_clusters(h, 1, 1), 132);
        // The shape given or the kernel's, agreeing; one of them; within 8 blocks.
        assert_eq!(max_active(HOPPER, (None, false), Some([2, 1, 1]), 1), Ok(64));
        assert_eq!(max_active(HOPPER, (Some([2, 1, 1]), false), None, 1), Ok(64));
        assert_eq!(max_active(HOPPER, (Some([2, 1, 1]), false), Some([4, 1, 1]), 1), Err(CuError::InvalidClusterSize));
        assert_eq!(max_active(HOPPER, (None, false), None, 1), Err(CuError::InvalidClusterSize));
        assert_eq!(max_active(HOPPER, (None, false), Some([16, 1, 1]), 2), Err(CuError::InvalidClusterSize));
        assert_eq!(max_active(HOPPER, (None, true), Some([16, 1, 1]), 2), Ok(16));
        assert_eq!(max_active(((8, 0), h), (None, false), Some([2, 1, 1]), 1), Err(CuError::NotSupported));
    }
}
