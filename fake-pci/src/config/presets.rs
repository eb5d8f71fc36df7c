//! The built-in presets: published figures of real parts, and the dispatch-calibration
//! board of docs/hardware.md.
use super::{
    Board, ChannelPolicy, CopyCosts, DeviceConfig, Dispatch, Dram, L1, L2, Mode, Pcie, Pfifo, Pipes, Policy, Shared,
    Sm, Tex, Uvm,
};
use alloc::string::ToString;

/// The names of the built-in presets.
pub const PRESETS: &[(&str, &str)] = &[
    ("gv100", "Volta-class part (Tesla V100 SXM2): 80 SMs at 1530 MHz, 6 MiB L2, 900 GB/s HBM2; compute 7.0"),
    ("gf100", "Fermi GF100 (GeForce GTX 480): 15 SMs at 1401 MHz, 768 KiB L2, 177.4 GB/s GDDR5; compute 2.0"),
    ("a100", "Ampere GA100 (A100 SXM4 40 GB): 108 SMs at 1410 MHz, 40 MiB L2, 1555 GB/s HBM2; compute 8.0"),
    ("h100", "Hopper GH100 (H100 SXM5 80 GB): 132 SMs at 1980 MHz, 50 MiB L2, 3.35 TB/s HBM3; compute 9.0"),
    ("h200", "Hopper GH100 (H200 SXM 141 GB): 132 SMs at 1980 MHz, 60 MiB L2, 4.8 TB/s HBM3e; compute 9.0"),
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
            "a100" => Some(Self::a100()),
            "h100" => Some(Self::h100()),
            "h200" => Some(Self::h200()),
            "dispatch-calibration" => Some(Self::dispatch_calibration()),
            _ => None,
        }
    }

    /// Tesla V100 (SXM2) figures: 80 SMs, 1530 MHz boost, 4 schedulers per SM, 2048
    /// threads/32 blocks/64K registers/96 KiB shared per SM, 32 KiB L1 beside it, 6 MiB L2
    /// in 64 slices, HBM2 at 877 MHz on a 4096-bit bus (900 GB/s, 32 channels), PCIe 3.0
    /// x16. Latencies from published microbenchmarks of Volta (Jia et al., 2018): ALU 4,
    /// shared 19, L1 hit 28, L2 hit 193 cycles. Four texture units per SM (320 on the
    /// board) share the L1 as their cache; the 96-cycle texture hit latency is an
    /// estimate (no public V100 figure). The dispatcher places one block per cycle and the
    /// first block leaves about 1 us after LAUNCH.
    fn gv100() -> Self {
        Self {
            name: "gv100".to_string(),
            mode: Mode::Timing,
            sector_bytes: 32,
            watchdog_cycles: 2_000_000_000,
            board: Board {
                vram_size: 4 << 30,
                bar1_size: 256 << 20,
                clock_mhz: 1530,
                cc_major: 7,
                cc_minor: 0,
                gpcs: 6,
                sms: 80,
            },
            sm: Sm { max_threads: 2048, max_blocks: 32, regs: 65536, schedulers: 4, policy: Policy::Gto },
            // Clusters are Hopper's (compute capability 9.0); every preset carries its
            // SM-to-SM latency (Luo et al. 2024, "Benchmarking and Dissecting the Nvidia
            // Hopper GPU Architecture": about 180 cycles on an H800).
            shared: Shared { bytes: 96 * 1024, banks: 32, latency: 19, conflict_cycles: 1, remote_latency: 180 },
            pipe: Pipes {
                alu_latency: 4,
                alu_interval: 2,
                f64_latency: 8,
                f64_interval: 4,
                sfu_latency: 18,
                sfu_interval: 8,
                div_latency: 60,
                div_interval: 16,
                shfl_latency: 22,
                // No published V100 figure: a reciprocal approximation (18) and four
                // dependent FMAs (4 each) with the checks around them, as the H200's
                // measured 44 cycles are its 23 and the same refinement.
                seq_latency: 40,
                seq_interval: 16,
                // V100: 8 tensor cores per SM, 64 f16 multiply-adds each per cycle (125
                // TFLOPS at 1530 MHz on 80 SMs): a scheduler's two do an m16n16k16 in 32
                // cycles.
                tensor_latency: 64,
                tensor_interval: 32,
                branch_latency: 6,
                barrier_latency: 20,
                const_latency: 8,
            },
            // 128 KiB of L1 and shared memory per SM: 32 KiB of L1 beside the most shared
            // memory, all of it for a kernel without shared memory.
            l1: L1 { bytes: 32 * 1024, ways: 4, latency: 28, sectors_per_cycle: 4, unified_bytes: 128 * 1024 },
            tex: Tex { bytes: 0, ways: 4, latency: 96, units: 4 },
            l2: L2 { bytes: 6 << 20, ways: 16, banks: 64, latency: 193, bank_cycles: 1 },
            dram: Dram { channels: 32, latency: 220, mbps: 900_000, clock_mhz: 877, bus_bits: 4096 },
            pcie: Pcie { mbps: 12_000, latency_cycles: 1500, staging_h2d_mbps: 0, staging_d2h_mbps: 0 },
            copy: CopyCosts { latency_cycles: 400, bytes_per_cycle: 256, vram_latency_cycles: 0, vram_permille: 0 },
            // 20 us at 1530 MHz: the order of a fault batch's service on Pascal and Volta.
            uvm: Uvm { replay_cycles: 30_600 },
            pfifo: Pfifo {
                method_cycles: 1,
                gpfifo_fetch_cycles: 20,
                channel_policy: ChannelPolicy::Priority,
                timeslice_cycles: 1024,
            },
            dispatch: Dispatch {
                launch_overhead_cycles: 1500,
                launch_overlap_cycles: 0,
                block_mcycles: 1000,
                free_warps: 32,
                warp_mcycles: 0,
                extra_mcycles: 0,
                retire_mcycles: 0,
                retire_warp_mcycles: 0,
            },
        }
    }

    /// GeForce GTX 480 (GF100) figures: 15 SMs at the 1401 MHz processor clock, 2 schedulers
    /// per SM, 1536 threads/8 blocks/32K registers/48 KiB shared per SM with a 16 KiB L1,
    /// 768 KiB L2 in 6 partitions, GDDR5 at 924 MHz on a 384-bit bus (177.4 GB/s), PCIe
    /// 2.0 x16. Fermi's dependent-issue latency is about 18 cycles. Each SM has four
    /// texture units and a 12 KiB texture cache of its own, apart from the L1 (24 ways of
    /// 32-byte sectors, as GPGPU-Sim's GTX 480 configuration has it); texture hits cost
    /// some 220 cycles (an estimate below GT200's measured 261: Wong et al., 2010).
    fn gf100() -> Self {
        let mut c = Self::gv100();
        c.name = "gf100".to_string();
        c.board.clock_mhz = 1401;
        c.board.cc_major = 2;
        c.board.cc_minor = 0;
        c.board.gpcs = 4;
        c.board.sms = 15;
        c.sm.max_threads = 1536;
        c.sm.max_blocks = 8;
        c.sm.regs = 32768;
        c.shared.bytes = 48 * 1024;
        c.sm.schedulers = 2;
        c.sm.policy = Policy::Lrr;
        c.pipe.alu_latency = 18;
        c.pipe.alu_interval = 2;
        c.pipe.f64_latency = 22;
        c.pipe.f64_interval = 4;
        c.pipe.sfu_latency = 40;
        c.pipe.sfu_interval = 8;
        c.pipe.div_latency = 120;
        c.pipe.div_interval = 16;
        c.pipe.shfl_latency = 30;
        c.pipe.seq_latency = 130;
        c.pipe.seq_interval = 32;
        c.pipe.branch_latency = 10;
        c.pipe.barrier_latency = 30;
        c.shared.latency = 38;
        c.pipe.const_latency = 12;
        // Fermi's 64 KiB split 16/48 by the cache configuration, not by a carveout.
        c.l1.bytes = 16 * 1024;
        c.l1.unified_bytes = 0;
        c.l1.latency = 45;
        c.l1.sectors_per_cycle = 4;
        c.tex.bytes = 12 * 1024;
        c.tex.ways = 24;
        c.tex.latency = 220;
        c.l2.bytes = 768 * 1024;
        c.l2.ways = 16;
        c.l2.banks = 12;
        c.l2.latency = 310;
        c.dram.channels = 6;
        c.dram.latency = 300;
        c.dram.mbps = 177_400;
        c.dram.clock_mhz = 924;
        c.dram.bus_bits = 384;
        c.pcie.mbps = 6_000;
        c.copy.bytes_per_cycle = 32;
        c
    }

    /// H200 (SXM, 141 GB) figures: GH100 with 132 SMs in 8 GPCs at 1980 MHz boost, 4
    /// schedulers per SM, 2048 threads/32 blocks/64K registers per SM, 256 KiB of L1 and
    /// shared memory per SM of which up to 228 KiB shared, 60 MiB L2 (what the part
    /// reports), 143,771 MiB of HBM3e in six stacks on a 6144-bit bus (4.8 TB/s, the
    /// memory clock the bandwidth gives), PCIe 5.0 x16. Measured on an H200 (docs/hardware.md,
    /// "Today's parts"): L1 hit 33 cycles (hits up to a 128 KiB
    /// footprint, misses by 256 KiB; the L1 is what the shared-memory carveout leaves of 256
    /// KiB), L2 hit 281, DRAM 685 in all (404 beyond
    /// the L2), shared 29 (25 and an address multiply-add), 2 cycles per bank-conflict
    /// way; fadd/ffma/imad 4, dfma 8, `__sinf` 23, full-precision division 44 and
    /// `rsqrtf` 39 (IEEE and denormal-keeping sequences: 42 here); FFMA 128 lanes per SM (an
    /// interval of 1), FP64 64; host copies of pinned memory 55 GB/s. Fourth-generation
    /// tensor cores: 2048 f16 multiply-adds per cycle per SM (989 TFLOPS dense at 1830 MHz
    /// on 132 SMs), so a scheduler's core does an m16n16k16 in 8 cycles.
    fn h200() -> Self {
        let mut c = Self::h100();
        c.name = "h200".to_string();
        c.board.vram_size = 143_771 << 20;
        c.l2.bytes = 60 << 20;
        c.l2.banks = 120;
        c.dram = Dram { channels: 96, latency: 404, mbps: 4_800_000, clock_mhz: 3125, bus_bits: 6144 };
        c
    }

    /// H100 (SXM5, 80 GB): the H200's GH100 (see [`DeviceConfig::h200`]) with 50 MiB of L2
    /// and 81,559 MiB of HBM3 in five stacks on a 5120-bit bus at 2619 MHz (3.35 TB/s).
    /// The latencies are the H200's measured ones (the same SM and L2).
    fn h100() -> Self {
        let mut c = Self::gv100();
        c.name = "h100".to_string();
        c.board = Board {
            vram_size: 81_559 << 20,
            bar1_size: 256 << 20,
            clock_mhz: 1980,
            cc_major: 9,
            cc_minor: 0,
            gpcs: 8,
            sms: 132,
        };
        c.sm = Sm { max_threads: 2048, max_blocks: 32, regs: 65536, schedulers: 4, policy: Policy::Gto };
        // Shared memory: the H200's 29-cycle chase is one IMAD.WIDE (4) and the load (25);
        // each further bank-conflict way adds 2 cycles (stride 32: 91).
        c.shared = Shared { bytes: 228 * 1024, banks: 32, latency: 25, conflict_cycles: 2, remote_latency: 180 };
        c.pipe.alu_latency = 4;
        c.pipe.alu_interval = 1;
        c.pipe.f64_latency = 8;
        c.pipe.f64_interval = 2;
        c.pipe.sfu_latency = 23;
        c.pipe.seq_latency = 42;
        c.pipe.seq_interval = 12;
        c.pipe.tensor_latency = 32;
        c.pipe.tensor_interval = 8;
        // 32 ways: a chase over 256 KiB misses the 224 KiB L1 all but entirely, as on the
        // H200 (260 cycles), where 4-way sets held 37% of it (189); every carveout's L1 is
        // a whole number of 32-way sets of 128-byte lines.
        c.l1 = L1 { bytes: 28 * 1024, ways: 32, latency: 33, sectors_per_cycle: 4, unified_bytes: 256 * 1024 };
        c.l2 = L2 { bytes: 50 << 20, ways: 16, banks: 100, latency: 281, bank_cycles: 1 };
        c.dram = Dram { channels: 80, latency: 404, mbps: 3_350_000, clock_mhz: 2619, bus_bits: 5120 };
        // Pageable copies: the quick runs' 16 MiB at 8.5 GB/s to the device and 11.9 from it
        // are the host's copies through 2 MiB staging buffers, the DMA beside them.
        c.pcie = Pcie { mbps: 55_000, latency_cycles: 1980, staging_h2d_mbps: 8_700, staging_d2h_mbps: 12_400 };
        // A small cudaMemcpy takes 9-10 us event to event on the H200 (ub_bw quick: 9.1 us
        // for 4 KiB): the copy's setup, 8.5 us, and the PCIe latency.
        // A device-to-device cudaMemcpy: 29.2 us for 32 MiB (quick run, one copy) and 510 us
        // for 1 GiB (full run, best of five): 13.7 us of setup, then 4.33 TB/s read and
        // written together, 90.2% of the DRAM's 4.8 (a copy kernel: 81%).
        c.copy = CopyCosts {
            latency_cycles: 16_800,
            bytes_per_cycle: 2048,
            vram_latency_cycles: 27_100,
            vram_permille: 902,
        };
        c.uvm = Uvm { replay_cycles: 39_600 };
        // The H200's empty kernel: 5.1-6.7 us event to event up to 1024 blocks in the quick
        // runs (5.85 on average; the full-size runs' best of seven, 4.3-4.9), 1.2 cycles a
        // block beyond 1024 blocks; back to back, 4.6 us a launch (3.2 at full size): the
        // front end prepares a launch while the grid before it runs (ub_dispatch).
        c.dispatch.launch_overhead_cycles = 11_200;
        c.dispatch.launch_overlap_cycles = 2_300;
        // Blocks start fast and finish slowly: 2048 one-warp blocks, all resident at once,
        // start within 192 ns (0.19 cycles a block, %globaltimer stamps); where blocks wait
        // for room, they start as finished ones are retired, 0.49/0.58/0.76 ns a block of
        // 1/8/32 warps (16384 blocks, full-size runs): the front end's work on a finished
        // block, serial, sets the pace of large grids.
        c.dispatch.block_mcycles = 190;
        c.dispatch.retire_mcycles = 1_000;
        c.dispatch.retire_warp_mcycles = 18;
        c
    }

    /// A100 (SXM4, 40 GB): GA100 with 108 SMs in 7 GPCs at 1410 MHz boost, 4 schedulers per
    /// SM, 2048 threads/32 blocks/64K registers per SM, 192 KiB of L1 and shared memory per
    /// SM of which up to 164 KiB shared (the L1 is what the carveout leaves), 40 MiB L2 in two partitions, 40,536 MiB of HBM2 in five stacks on a
    /// 5120-bit bus at 1215 MHz (1555 GB/s), PCIe 4.0 x16 (about 24 GB/s achieved).
    /// FFMA 64 lanes per SM (an interval of 2), FP64 32; third-generation tensor cores:
    /// 1024 f16 multiply-adds per cycle per SM (312 TFLOPS dense), an m16n16k16 in 16
    /// cycles per scheduler. Latencies are estimates until measured on the part: the L1
    /// and shared memory as Hopper's measured ones, the L2 (near partition) as Volta's
    /// 193 cycles plus a quarter for the partitioned L2, DRAM 290 cycles beyond it.
    fn a100() -> Self {
        let mut c = Self::h100();
        c.name = "a100".to_string();
        c.board = Board { vram_size: 40_536 << 20, clock_mhz: 1410, cc_major: 8, gpcs: 7, sms: 108, ..c.board };
        c.shared.bytes = 164 * 1024;
        c.pipe.alu_interval = 2;
        c.pipe.f64_interval = 4;
        c.pipe.tensor_interval = 16;
        c.l1.bytes = 28 * 1024;
        c.l1.unified_bytes = 192 * 1024;
        c.l2 = L2 { bytes: 40 << 20, ways: 16, banks: 80, latency: 240, bank_cycles: 1 };
        c.dram = Dram { channels: 40, latency: 290, mbps: 1_555_000, clock_mhz: 1215, bus_bits: 5120 };
        c.pcie = Pcie { mbps: 24_000, latency_cycles: 1410, staging_h2d_mbps: 0, staging_d2h_mbps: 0 };
        // Not measured on the part: gv100's copy setup.
        c.copy = CopyCosts { latency_cycles: 400, bytes_per_cycle: 1024, vram_latency_cycles: 0, vram_permille: 0 };
        c.uvm = Uvm { replay_cycles: 28_200 };
        // Not measured on the part: gv100's 1 us and one block a cycle.
        c.dispatch.launch_overhead_cycles = 1410;
        c.dispatch.launch_overlap_cycles = 0;
        c.dispatch.block_mcycles = 1_000;
        c
    }

    /// The dispatcher of the docs/hardware.md calibration data (MGPUSim's work-group dispatch
    /// microbenchmark on an R9 Nano): 64 SMs at 1 GHz, 40 warps per SM, and the published
    /// per-block costs. The launch overhead puts the fitted intercept in 2870–2920 cycles.
    fn dispatch_calibration() -> Self {
        let mut c = Self::gv100();
        c.name = "dispatch-calibration".to_string();
        c.board.clock_mhz = 1000;
        c.board.gpcs = 4;
        c.board.sms = 64;
        c.sm.max_threads = 40 * 32;
        c.sm.max_blocks = 40;
        c.l2.bytes = 2 << 20;
        c.l2.banks = 16;
        c.dram.channels = 16;
        c.dram.mbps = 512_000;
        c.dram.clock_mhz = 500;
        c.dram.bus_bits = 4096;
        c.dispatch.launch_overhead_cycles = 2880;
        c.dispatch.block_mcycles = 4000;
        c.dispatch.free_warps = 4;
        c.dispatch.warp_mcycles = 1030;
        c.dispatch.extra_mcycles = 20;
        c
    }
}
