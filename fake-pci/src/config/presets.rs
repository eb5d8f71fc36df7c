//! The built-in presets: published figures of real parts, and the dispatch-calibration
//! board of docs/hardware.md.

use super::*;

/// The names of the built-in presets.
pub const PRESETS: &[(&str, &str)] = &[
    ("gv100", "Volta-class part (Tesla V100 SXM2): 80 SMs at 1530 MHz, 6 MiB L2, 900 GB/s HBM2; compute 7.0"),
    ("gf100", "Fermi GF100 (GeForce GTX 480): 15 SMs at 1401 MHz, 768 KiB L2, 177.4 GB/s GDDR5; compute 2.0"),
    (
        "dispatch-calibration",
        "R9 Nano-like dispatcher for the docs/hardware.md dispatch microbenchmark: 64 SMs at 1000 MHz, \
         4 cycles per block up to 4 warps, 1.03 cycles per warp beyond",
    ),
];

impl Default for DeviceConfig {
    /// The `gv100` preset.
    fn default() -> Self {
        Self::gv100()
    }
}

impl DeviceConfig {
    /// A built-in preset by name (see [`PRESETS`]).
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "gv100" => Some(Self::gv100()),
            "gf100" => Some(Self::gf100()),
            "dispatch-calibration" => Some(Self::dispatch_calibration()),
            _ => None,
        }
    }

    /// Tesla V100 (SXM2) figures: 80 SMs, 1530 MHz boost, 4 schedulers per SM, 2048
    /// threads/32 blocks/64K registers/96 KiB shared per SM, 32 KiB L1 beside it, 6 MiB L2
    /// in 64 slices, HBM2 at 877 MHz on a 4096-bit bus (900 GB/s, 32 channels), PCIe 3.0
    /// x16. Latencies from published microbenchmarks of Volta (Jia et al., 2018): ALU 4,
    /// shared 19, L1 hit 28, L2 hit 193 cycles. The dispatcher places one block per cycle
    /// and the first block leaves about 1 us after LAUNCH.
    fn gv100() -> Self {
        Self {
            name: "gv100".to_string(),
            mode: Mode::Timing,
            vram_size: 4 << 30,
            bar1_size: 256 << 20,
            clock_mhz: 1530,
            cc_major: 7,
            cc_minor: 0,
            gpcs: 6,
            sms: 80,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            regs_per_sm: 65536,
            shared_per_sm: 96 * 1024,
            schedulers_per_sm: 4,
            policy: Policy::Gto,
            alu_latency: 4,
            alu_interval: 2,
            f64_latency: 8,
            f64_interval: 4,
            sfu_latency: 18,
            sfu_interval: 8,
            div_latency: 60,
            div_interval: 16,
            shfl_latency: 22,
            branch_latency: 6,
            barrier_latency: 20,
            shared_banks: 32,
            shared_latency: 19,
            const_latency: 8,
            sector_bytes: 32,
            l1_bytes: 32 * 1024,
            l1_ways: 4,
            l1_latency: 28,
            l1_sectors_per_cycle: 4,
            l2_bytes: 6 << 20,
            l2_ways: 16,
            l2_banks: 64,
            l2_latency: 193,
            l2_bank_cycles: 1,
            dram_channels: 32,
            dram_latency: 220,
            dram_mbps: 900_000,
            mem_clock_mhz: 877,
            mem_bus_bits: 4096,
            pcie_mbps: 12_000,
            pcie_latency_cycles: 1500,
            copy_latency_cycles: 400,
            copy_bytes_per_cycle: 256,
            method_cycles: 1,
            gpfifo_fetch_cycles: 20,
            channel_policy: ChannelPolicy::Priority,
            timeslice_cycles: 1024,
            launch_overhead_cycles: 1500,
            dispatch_block_mcycles: 1000,
            dispatch_free_warps: 32,
            dispatch_warp_mcycles: 0,
            dispatch_extra_mcycles: 0,
            watchdog_cycles: 2_000_000_000,
        }
    }

    /// GeForce GTX 480 (GF100) figures: 15 SMs at the 1401 MHz processor clock, 2 schedulers
    /// per SM, 1536 threads/8 blocks/32K registers/48 KiB shared per SM with a 16 KiB L1,
    /// 768 KiB L2 in 6 partitions, GDDR5 at 924 MHz on a 384-bit bus (177.4 GB/s), PCIe
    /// 2.0 x16. Fermi's dependent-issue latency is about 18 cycles.
    fn gf100() -> Self {
        Self {
            name: "gf100".to_string(),
            clock_mhz: 1401,
            cc_major: 2,
            cc_minor: 0,
            gpcs: 4,
            sms: 15,
            max_threads_per_sm: 1536,
            max_blocks_per_sm: 8,
            regs_per_sm: 32768,
            shared_per_sm: 48 * 1024,
            schedulers_per_sm: 2,
            policy: Policy::Lrr,
            alu_latency: 18,
            alu_interval: 2,
            f64_latency: 22,
            f64_interval: 4,
            sfu_latency: 40,
            sfu_interval: 8,
            div_latency: 120,
            div_interval: 16,
            shfl_latency: 30,
            branch_latency: 10,
            barrier_latency: 30,
            shared_latency: 38,
            const_latency: 12,
            l1_bytes: 16 * 1024,
            l1_latency: 45,
            l1_sectors_per_cycle: 4,
            l2_bytes: 768 * 1024,
            l2_ways: 16,
            l2_banks: 12,
            l2_latency: 310,
            dram_channels: 6,
            dram_latency: 300,
            dram_mbps: 177_400,
            mem_clock_mhz: 924,
            mem_bus_bits: 384,
            pcie_mbps: 6_000,
            copy_bytes_per_cycle: 32,
            ..Self::gv100()
        }
    }

    /// The dispatcher of the docs/hardware.md calibration data (MGPUSim's work-group dispatch
    /// microbenchmark on an R9 Nano): 64 SMs at 1 GHz, 40 warps per SM, and the published
    /// per-block costs. The launch overhead puts the fitted intercept in 2870–2920 cycles.
    fn dispatch_calibration() -> Self {
        Self {
            name: "dispatch-calibration".to_string(),
            clock_mhz: 1000,
            gpcs: 4,
            sms: 64,
            max_threads_per_sm: 40 * 32,
            max_blocks_per_sm: 40,
            l2_bytes: 2 << 20,
            l2_banks: 16,
            dram_channels: 16,
            dram_mbps: 512_000,
            mem_clock_mhz: 500,
            mem_bus_bits: 4096,
            launch_overhead_cycles: 2880,
            dispatch_block_mcycles: 4000,
            dispatch_free_warps: 4,
            dispatch_warp_mcycles: 1030,
            dispatch_extra_mcycles: 20,
            ..Self::gv100()
        }
    }
}
