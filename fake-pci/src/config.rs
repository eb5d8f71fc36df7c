//! Device configuration: sizes, unit counts and the (simple, for now) cost model.

/// What the simulated board looks like and what operations cost in cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceConfig {
    /// VRAM size in bytes (sparse: memory is spent only on pages touched).
    pub vram_size: u64,
    /// BAR1 aperture size in bytes (a power of two).
    pub bar1_size: u64,
    /// Core clock; PTIMER nanoseconds are derived from cycles with it.
    pub clock_mhz: u32,
    /// Graphics processing clusters.
    pub gpcs: u32,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Cycles to process one method.
    pub method_cycles: u64,
    /// Cycles to fetch one GPFIFO entry and its segment header.
    pub gpfifo_fetch_cycles: u64,
    /// Copy engine fixed cost per launch.
    pub copy_latency_cycles: u64,
    /// Copy engine throughput.
    pub copy_bytes_per_cycle: u64,
    /// Fixed cost of a grid launch.
    pub launch_overhead_cycles: u64,
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Registers per SM (allocated per warp).
    pub regs_per_sm: u32,
    /// Shared memory per SM, bytes.
    pub shared_per_sm: u32,
    /// Watchdog: a grid that runs longer than this many cycles is stopped
    /// (CUDA_ERROR_LAUNCH_TIMEOUT).
    pub watchdog_cycles: u64,
}

impl Default for DeviceConfig {
    /// A GF100 board (GeForce GTX 480-like): 15 SMs in 4 GPCs, 4 GiB of VRAM in the model
    /// (sparse), 256 MiB BAR1, a 700 MHz core clock. The SMs have Volta-class resource
    /// limits, matching the compute capability 7.0 the runtime reports (CLIENTS.md).
    fn default() -> Self {
        Self {
            vram_size: 4 << 30,
            bar1_size: 256 << 20,
            clock_mhz: 700,
            gpcs: 4,
            sms: 15,
            method_cycles: 1,
            gpfifo_fetch_cycles: 20,
            copy_latency_cycles: 400,
            copy_bytes_per_cycle: 16,
            launch_overhead_cycles: 2900,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            regs_per_sm: 65536,
            shared_per_sm: 96 * 1024,
            watchdog_cycles: 2_000_000_000,
        }
    }
}

impl DeviceConfig {
    /// Simulated nanoseconds after `cycles` cycles.
    pub fn cycles_to_ns(&self, cycles: u64) -> u64 {
        ((cycles as u128 * 1000) / self.clock_mhz.max(1) as u128) as u64
    }
    /// Cycles a copy of `bytes` bytes occupies the copy engine.
    pub fn copy_cycles(&self, bytes: u64) -> u64 {
        self.copy_latency_cycles + bytes.div_ceil(self.copy_bytes_per_cycle.max(1))
    }
}
