//! CUDA's numbers that the runtime enforces: per-block and per-grid launch limits, the
//! kernel parameter space, local memory, and stream priorities. Limits that depend on the
//! device (an SM with less shared memory or fewer registers) are combined with what the
//! probe read (`Device::max_shared_per_block`, `Device::max_regs_per_block`).

/// Kernel parameter space before compute capability 7.0, and the legacy API's
/// (`cuParamSetSize`), bytes.
pub const PARAM_BYTES: u32 = 4096;
/// Constant buffer 0, bytes: a launch's parameters (at most [`max_param_bytes`]).
pub const CB0_BYTES: u32 = 32 * 1024;

/// The most bytes of kernel parameters a launch may pass on a device of compute capability
/// `cc`: 32,764 from 7.0 (CUDA 12.1 and later), 4,096 before.
pub fn max_param_bytes(cc: (u32, u32)) -> u32 {
    if cc.0 >= 7 { 32_764 } else { PARAM_BYTES }
}
/// Most shared memory per block.
pub const MAX_SHARED: u32 = 48 * 1024;
/// Most shared memory per block a kernel may opt into
/// (`cudaFuncAttributeMaxDynamicSharedMemorySize`) on a device of compute capability `cc`
/// whose SMs have `per_sm` bytes: from 7.0 on all of an SM's shared memory, less what the
/// system reserves per block (`hw::occupancy::Rule::reserved_shared`: 1 KiB from 8.0 on)
/// (V100: 96 KiB, A100: 163 KiB, H100: 227 KiB, as CUDA's programming guide tabulates
/// them); before 7.0 no more than [`MAX_SHARED`].
pub fn max_shared_optin(cc: (u32, u32), per_sm: u32) -> u32 {
    let default = MAX_SHARED.min(per_sm);
    match cc.0 {
        7.. => per_sm.saturating_sub(hw::occupancy::Rule::for_cc(cc.0).reserved_shared).max(default),
        _ => default,
    }
}

/// Most threads per block, and per block dimension.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// Most blocks per grid dimension before compute capability 3.0 (the 16-bit fields of
/// GRID_DIM_XY).
pub const MAX_GRID: [u32; 3] = [65535, 65535, 65535];
/// Most blocks per grid dimension from compute capability 3.0 on: 2^31 - 1 in x (sent
/// with the model's GRID_WIDTH method), 65535 in y and z.
pub const MAX_GRID_SM30: [u32; 3] = [i32::MAX as u32, 65535, 65535];

/// Most blocks per grid dimension for a device of compute capability `cc`.
pub fn max_grid(cc: (u32, u32)) -> [u32; 3] {
    if cc.0 >= 3 { MAX_GRID_SM30 } else { MAX_GRID }
}
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

/// The texture and surface sizes of one architecture: what cuDeviceGetAttribute answers
/// (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE*/SURFACE*) and what array creation and texture
/// binding enforce, in elements (the linear pitch in bytes). Each figure is what a real
/// board of the architecture reports (docs/hw-model.md names the boards); a shape rgdev
/// does not have is 0, and its board figure is given beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureLimits {
    /// 1D texture of an array: width.
    pub tex1d: u32,
    /// 1D texture of linear memory (`tex1Dfetch`): width.
    pub tex1d_linear: u32,
    /// 1D layered texture: width, layers.
    pub tex1d_layered: [u32; 2],
    /// 2D texture of an array: width, height.
    pub tex2d: [u32; 2],
    /// 2D texture of pitch-linear memory: width, height, pitch in bytes.
    pub tex2d_linear: [u32; 3],
    /// 2D array made for gather (CUDA_ARRAY3D_TEXTURE_GATHER): width, height.
    pub tex2d_gather: [u32; 2],
    /// 2D layered texture: width, height, layers.
    pub tex2d_layered: [u32; 3],
    /// 3D texture: width, height, depth.
    pub tex3d: [u32; 3],
    /// The alternate 3D shape (narrower and deeper), 0 where there is none.
    pub tex3d_alt: [u32; 3],
    /// Cube map: face width (= height).
    pub cubemap: u32,
    /// Layered cube map: face width, layers.
    pub cubemap_layered: [u32; 2],
    /// Mipmapped 1D texture: width.
    pub tex1d_mipmapped: u32,
    /// Mipmapped 2D texture: width, height.
    pub tex2d_mipmapped: [u32; 2],
    /// 1D surface: width.
    pub surf1d: u32,
    /// 1D layered surface: width, layers.
    pub surf1d_layered: [u32; 2],
    /// 2D surface: width, height.
    pub surf2d: [u32; 2],
    /// 2D layered surface: width, height, layers.
    pub surf2d_layered: [u32; 3],
    /// 3D surface: width, height, depth.
    pub surf3d: [u32; 3],
    /// Cube map surface: face width.
    pub surfcube: u32,
    /// Layered cube map surface: face width, layers.
    pub surfcube_layered: [u32; 2],
}

/// Fermi (compute capability 2.x), as a GF10x board (2.1) reports it.
pub const TEXTURE_LIMITS_FERMI: TextureLimits = TextureLimits {
    tex1d: 65536,
    tex1d_linear: 1 << 27,
    tex1d_layered: [16384, 2048],
    tex2d: [65536, 65535],
    tex2d_linear: [65000, 65000, 1048544],
    tex2d_gather: [16384, 16384],
    tex2d_layered: [16384, 16384, 2048],
    tex3d: [2048, 2048, 2048],
    tex3d_alt: [0, 0, 0],
    cubemap: 16384,
    cubemap_layered: [0, 0], // the board: 16384 x 2046; rgdev has no layered cube maps
    tex1d_mipmapped: 16384,
    tex2d_mipmapped: [16384, 16384],
    surf1d: 65536,
    surf1d_layered: [65536, 2048],
    surf2d: [65536, 32768],
    surf2d_layered: [65536, 32768, 2048],
    surf3d: [65536, 32768, 2048],
    surfcube: 32768,
    surfcube_layered: [0, 0], // the board: 32768 x 2046
};

/// Compute capability 5.0 and later, as a Tesla P100 (6.0) reports it. The figures a
/// Maxwell, Volta or Turing board reports for the 1D/2D/3D and layered limits are the
/// same (deviceQuery's MAXIMUM_TEXTURE* lines).
pub const TEXTURE_LIMITS_MAXWELL: TextureLimits = TextureLimits {
    tex1d: 131072,
    tex1d_linear: 1 << 27,
    tex1d_layered: [32768, 2048],
    tex2d: [131072, 65536],
    tex2d_linear: [131072, 65000, 2097120],
    tex2d_gather: [32768, 32768],
    tex2d_layered: [32768, 32768, 2048],
    tex3d: [16384, 16384, 16384],
    tex3d_alt: [8192, 8192, 32768],
    cubemap: 32768,
    cubemap_layered: [0, 0], // the board: 32768 x 2046; rgdev has no layered cube maps
    tex1d_mipmapped: 16384,
    tex2d_mipmapped: [32768, 32768],
    surf1d: 32768,
    surf1d_layered: [32768, 2048],
    surf2d: [131072, 65536],
    surf2d_layered: [32768, 32768, 2048],
    surf3d: [16384, 16384, 16384],
    surfcube: 32768,
    surfcube_layered: [0, 0], // the board: 32768 x 2046
};

/// The texture and surface limits of a compute capability (Fermi's below 5.0: rgdev
/// models no Kepler part).
pub fn texture_limits(compute_capability: (u32, u32)) -> &'static TextureLimits {
    if compute_capability.0 >= 5 { &TEXTURE_LIMITS_MAXWELL } else { &TEXTURE_LIMITS_FERMI }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opt_in_limit_is_the_architectures() {
        assert_eq!(max_shared_optin((2, 0), 48 * 1024), MAX_SHARED, "Fermi: no opt-in");
        assert_eq!(max_shared_optin((7, 0), 96 * 1024), 96 * 1024, "V100");
        assert_eq!(max_shared_optin((8, 0), 164 * 1024), 163 * 1024, "A100");
        assert_eq!(max_shared_optin((9, 0), 228 * 1024), 227 * 1024, "H100, H200");
        assert_eq!(max_shared_optin((9, 0), 16 * 1024), 16 * 1024, "a small SM: all of it");
    }
}
