//! The cycle-level timing model: behaviour, not constants. Each test compares two runs
//! of the model that differ in one respect and checks that the difference shows the way
//! the hardware's would (bandwidth, issue rate, coalescing, bank conflicts, occupancy,
//! concurrency), plus determinism and the dispatch calibration of docs/hardware.md.

use backend_user::{Arg, Device, DeviceConfig, DeviceOptions};
use fake_pci::timing::KernelStats;

const HDR: &str = ".version 6.4\n.target sm_70\n.address_size 64\n";

/// dst[i] = src[i * stride] for i < n.
fn copy_ptx() -> String {
    format!(
        "{HDR}.visible .entry copy(.param .u64 src, .param .u64 dst, .param .u32 stride, .param .u32 n)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n .reg .f32 %f<2>;\n\
         mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n mad.lo.s32 %r4, %r1, %r2, %r3;\n\
         ld.param.u32 %r5, [n];\n setp.ge.u32 %p1, %r4, %r5;\n @%p1 bra DONE;\n\
         ld.param.u32 %r6, [stride];\n mul.lo.s32 %r7, %r4, %r6;\n\
         ld.param.u64 %rd1, [src];\n ld.param.u64 %rd2, [dst];\n\
         mul.wide.u32 %rd3, %r7, 4;\n add.s64 %rd4, %rd1, %rd3;\n ld.global.f32 %f1, [%rd4];\n\
         mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd2, %rd5;\n st.global.f32 [%rd6], %f1;\n\
         DONE:\n ret;\n}}\n"
    )
}

/// k iterations of 8 independent FMAs per thread; one store at the end.
fn fma_ptx() -> String {
    let mut body = String::new();
    for j in 0..8 {
        body += &format!(" fma.rn.f32 %f{j}, %f{j}, %f8, %f9;\n");
    }
    format!(
        "{HDR}.visible .entry fma(.param .u64 out, .param .u32 k)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n .reg .f32 %f<12>;\n\
         mov.u32 %r1, %tid.x;\n cvt.rn.f32.u32 %f0, %r1;\n mov.f32 %f1, %f0;\n mov.f32 %f2, %f0;\n mov.f32 %f3, %f0;\n\
         mov.f32 %f4, %f0;\n mov.f32 %f5, %f0;\n mov.f32 %f6, %f0;\n mov.f32 %f7, %f0;\n\
         mov.f32 %f8, 0f3F7FF000;\n mov.f32 %f9, 0f3A800000;\n\
         ld.param.u32 %r2, [k];\n mov.u32 %r3, 0;\n\
         LOOP:\n{body} add.u32 %r3, %r3, 1;\n setp.lt.u32 %p1, %r3, %r2;\n @%p1 bra LOOP;\n\
         add.f32 %f10, %f0, %f1;\n add.f32 %f10, %f10, %f2;\n add.f32 %f10, %f10, %f7;\n\
         mov.u32 %r4, %ctaid.x;\n mov.u32 %r5, %ntid.x;\n mad.lo.s32 %r6, %r4, %r5, %r1;\n\
         ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r6, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.f32 [%rd3], %f10;\n\
         ret;\n}}\n"
    )
}

/// Each thread writes and reads shared word (tid * stride) % 1024, k times.
fn banks_ptx() -> String {
    format!(
        "{HDR}.visible .entry banks(.param .u64 out, .param .u32 stride, .param .u32 k)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n .shared .align 4 .b8 s[4096];\n\
         mov.u32 %r1, %tid.x;\n ld.param.u32 %r2, [stride];\n mul.lo.s32 %r3, %r1, %r2;\n and.b32 %r3, %r3, 1023;\n\
         shl.b32 %r4, %r3, 2;\n mov.u32 %r5, s;\n add.s32 %r6, %r5, %r4;\n\
         ld.param.u32 %r7, [k];\n mov.u32 %r8, 0;\n mov.u32 %r9, 0;\n\
         LOOP:\n st.shared.u32 [%r6], %r8;\n ld.shared.u32 %r10, [%r6];\n add.u32 %r9, %r9, %r10;\n\
         add.u32 %r8, %r8, 1;\n setp.lt.u32 %p1, %r8, %r7;\n @%p1 bra LOOP;\n\
         ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r9;\n\
         ret;\n}}\n"
    )
}

fn stats(dev: &Device) -> Vec<KernelStats> {
    dev.sim().lock().take_kernel_stats()
}

fn one(dev: &Device) -> KernelStats {
    let mut s = stats(dev);
    assert_eq!(s.len(), 1, "{s:?}");
    s.pop().unwrap()
}

/// A device with a context and the test kernels loaded.
struct Rig {
    dev: Device,
    ctx: backend_user::Context,
    src: backend_user::DeviceBuffer<u32>,
    dst: backend_user::DeviceBuffer<u32>,
}

const ELEMS: usize = 8 << 20 >> 2;

impl Rig {
    fn new(cfg: DeviceConfig) -> Self {
        let dev = device(cfg);
        let ctx = dev.create_context().unwrap();
        let mut src = ctx.alloc::<u32>(ELEMS).unwrap();
        // The pointer chase's links (and the copy's input).
        src.copy_from(&(0..ELEMS as u64).map(link).collect::<Vec<_>>()).unwrap();
        let dst = ctx.alloc::<u32>(ELEMS).unwrap();
        Self { dev, ctx, src, dst }
    }

    /// Run `name` from `ptx` and return its statistics.
    fn run(&self, ptx: &str, name: &str, grid: u32, block: u32, shared: u32, args: &[Arg<'_>]) -> KernelStats {
        let m = self.ctx.load_ptx(ptx).unwrap();
        let f = m.function(name).unwrap();
        stats(&self.dev);
        f.launch([grid, 1, 1], [block, 1, 1], shared, args).unwrap();
        self.ctx.synchronize().unwrap();
        one(&self.dev)
    }

    fn copy(&self, n: u32, stride: u32, shared: u32) -> KernelStats {
        let args = [self.src.arg(), self.dst.arg(), Arg::U32(stride), Arg::U32(n)];
        let s = self.run(&copy_ptx(), "copy", n.div_ceil(256), 256, shared, &args);
        let out = self.dst.to_vec().unwrap();
        let n64 = ELEMS as u64;
        for i in (0..n as u64).step_by(997) {
            assert_eq!(out[i as usize], link((i * stride as u64) % n64), "copy result at {i}");
        }
        s
    }

    fn fma(&self, k: u32, blocks: u32) -> KernelStats {
        self.run(&fma_ptx(), "fma", blocks, 256, 0, &[self.dst.arg(), Arg::U32(k)])
    }
}

/// Where the pointer chase goes from element `i`: 132 Ki elements on, so that a warp's
/// lanes stay on consecutive words (coalesced) and every step misses the caches.
fn link(i: u64) -> u32 {
    ((i + 33 * 4096) % ELEMS as u64) as u32
}

/// Bytes moved to and from DRAM per simulated nanosecond (GB/s).
fn dram_gbs(cfg: &DeviceConfig, s: &KernelStats) -> f64 {
    (s.dram_read_bytes + s.dram_write_bytes) as f64 / cfg.cycles_to_ns(s.cycles()) as f64
}

#[test]
fn memory_bound_kernels_scale_with_bytes_over_bandwidth() {
    let cfg = DeviceConfig::default();
    let rig = Rig::new(cfg.clone());
    let big = rig.copy(1 << 20, 1, 0);
    let peak = cfg.dram.mbps as f64 / 1000.0;
    let bw = dram_gbs(&cfg, &big);
    assert!(bw > 0.6 * peak && bw <= peak, "copy of 8 MiB reached {bw:.0} GB/s of {peak:.0}");
    // Four times the bytes: about four times the time once the launch is paid.
    let small = rig.copy(1 << 18, 1, 0);
    let o = cfg.dispatch.launch_overhead_cycles as f64;
    let r = (big.cycles() as f64 - o) / (small.cycles() as f64 - o);
    assert!((3.0..=4.4).contains(&r), "4x bytes took {r:.2}x the time");
    // Half the DRAM bandwidth: about twice the time.
    let half = cfg.clone().with(|c| c.dram.mbps = cfg.dram.mbps / 2);
    let slow = Rig::new(half).copy(1 << 20, 1, 0);
    let r = (slow.cycles() as f64 - o) / (big.cycles() as f64 - o);
    assert!((1.7..=2.2).contains(&r), "half the bandwidth took {r:.2}x the time");
}

#[test]
fn compute_bound_kernels_scale_with_instructions_over_issue_rate() {
    let cfg = DeviceConfig::default();
    let rig = Rig::new(cfg.clone());
    // One wave: 8 blocks of 8 warps on each SM, 16 warps per scheduler.
    let blocks = cfg.board.sms * 8;
    let (a, b) = (rig.fma(32, blocks), rig.fma(64, blocks));
    // Each iteration is 10 ALU instructions (8 FMAs, the counter, the compare) and a branch;
    // a scheduler accepts an ALU instruction every alu_interval cycles.
    let per_iter = 10.0 * cfg.pipe.alu_interval as f64 * 16.0;
    let slope = (b.cycles() - a.cycles()) as f64 / 32.0;
    assert!((slope / per_iter - 1.0).abs() < 0.1, "{slope:.0} cycles per iteration, issue rate says {per_iter}");
    let ipc = (b.warp_instructions - a.warp_instructions) as f64 / (b.cycles() - a.cycles()) as f64;
    let peak = (cfg.board.sms * cfg.sm.schedulers) as f64 * 11.0 / 20.0;
    assert!((ipc / peak - 1.0).abs() < 0.1, "marginal IPC {ipc:.1}, issue-rate bound {peak:.1}");
    // Twice the issue interval: twice the slope. Half the DRAM bandwidth: no change.
    let slow_alu = Rig::new(cfg.clone().with(|c| c.pipe.alu_interval = cfg.pipe.alu_interval * 2));
    let (c, d) = (slow_alu.fma(32, blocks), slow_alu.fma(64, blocks));
    let r = (d.cycles() - c.cycles()) as f64 / (b.cycles() - a.cycles()) as f64;
    assert!((1.8..=2.2).contains(&r), "twice the ALU interval: {r:.2}x the slope");
    let slow_mem = Rig::new(cfg.clone().with(|c| c.dram.mbps = cfg.dram.mbps / 2)).fma(64, blocks);
    let r = slow_mem.cycles() as f64 / b.cycles() as f64;
    assert!((0.97..=1.05).contains(&r), "half the DRAM bandwidth changed a compute-bound kernel by {r:.3}x");
}

#[test]
fn coalesced_beats_strided() {
    let rig = Rig::new(DeviceConfig::default());
    let n = 1 << 16;
    let (c, s) = (rig.copy(n, 1, 0), rig.copy(n, 32, 0));
    assert_eq!(c.warp_instructions, s.warp_instructions);
    // One 128-byte warp access is 4 sectors; with a 128-byte stride it is 32.
    assert!(s.dram_read_bytes >= 4 * c.dram_read_bytes, "{} vs {}", s.dram_read_bytes, c.dram_read_bytes);
    assert_eq!(c.l1_misses, n as u64 / 8);
    assert_eq!(s.l1_hits + s.l1_misses, n as u64);
    assert!(s.cycles() as f64 > 1.5 * c.cycles() as f64, "strided {} vs coalesced {}", s.cycles(), c.cycles());
}

#[test]
fn shared_memory_bank_conflicts_cost() {
    let rig = Rig::new(DeviceConfig::default());
    let run = |stride| rig.run(&banks_ptx(), "banks", 80, 1024, 0, &[rig.dst.arg(), Arg::U32(stride), Arg::U32(64)]);
    let (free, conflicted) = (run(1), run(32));
    assert_eq!(free.bank_conflict_cycles, 0);
    // Stride 32 words: all 32 lanes in one bank, 31 extra cycles per access, 2 per iteration.
    assert_eq!(conflicted.bank_conflict_cycles, 80 * 32 * 64 * 2 * 31);
    assert!(conflicted.cycles() > 5 * free.cycles(), "{} vs {}", conflicted.cycles(), free.cycles());
    assert!(conflicted.stalls.pipe > free.stalls.pipe);
    // Stride 2: two-way conflicts.
    let two = run(2);
    assert_eq!(two.bank_conflict_cycles, 80 * 32 * 64 * 2);
}

#[test]
fn occupancy_limits_by_shared_memory_and_registers_show_up() {
    let cfg = DeviceConfig::default();
    let rig = Rig::new(cfg.clone());
    let limits = hw::occupancy::SmLimits {
        threads: cfg.sm.max_threads,
        blocks: cfg.sm.max_blocks,
        regs: cfg.sm.regs,
        shared: cfg.shared.bytes,
        rule: hw::occupancy::Rule::for_cc(cfg.board.cc_major),
    };
    // Shared memory: 40 KiB per block leaves room for 2 blocks of 8 warps instead of 8.
    let full = rig.copy(1 << 20, 1, 0);
    let limited = rig.copy(1 << 20, 1, 40 << 10);
    assert_eq!((full.blocks_per_sm, limited.blocks_per_sm), (8, 2));
    assert!(limited.achieved_occupancy() < 0.5 * full.achieved_occupancy());
    assert!(limited.cycles() as f64 > 1.2 * full.cycles() as f64, "{} vs {}", limited.cycles(), full.cycles());
    // Registers: the same instructions, with 64 values live across a latency-bound loop or not.
    let blocks = cfg.board.sms * 8;
    let chase = |hold: bool| {
        let ptx = tests::pressure::chase(64, hold);
        let m = rig.ctx.load_ptx(&ptx).unwrap();
        let regs = m.function("chase").unwrap().attributes().regs;
        let s = rig.run(&ptx, "chase", blocks, 256, 0, &[rig.src.arg(), rig.dst.arg(), Arg::U32(16)]);
        (regs, s)
    };
    let ((few, lean), (many, heavy)) = (chase(false), chase(true));
    // ptxas 12.9: 78 against 30 (tests/data/ptxas-sm70.tsv).
    assert!(many > few + 36, "{many} vs {few} registers");
    assert_eq!(lean.warp_instructions, heavy.warp_instructions);
    assert_eq!(heavy.blocks_per_sm, hw::occupancy::blocks_per_sm(&limits, 256, many, 0));
    assert!(heavy.blocks_per_sm < lean.blocks_per_sm);
    assert!(heavy.achieved_occupancy() < lean.achieved_occupancy());
    assert!(heavy.cycles() as f64 > 1.3 * lean.cycles() as f64, "{} vs {}", heavy.cycles(), lean.cycles());
}

#[test]
fn kernels_on_two_channels_overlap() {
    let cfg = DeviceConfig::default();
    let dev = device(cfg.clone());
    let ctxs = [dev.create_context().unwrap(), dev.create_context().unwrap()];
    let out: Vec<_> = ctxs.iter().map(|c| c.alloc::<f32>(1 << 20).unwrap()).collect();
    let ms: Vec<_> = ctxs.iter().map(|c| c.load_ptx(&fma_ptx()).unwrap()).collect();
    let fs: Vec<_> = ms.iter().map(|m| m.function("fma").unwrap()).collect();
    // Each grid has a block for half the SMs.
    let blocks = cfg.board.sms / 2;
    let launch = |i: usize| fs[i].launch([blocks, 1, 1], [256, 1, 1], 0, &[out[i].arg(), Arg::U32(32)]).unwrap();
    launch(0);
    ctxs[0].synchronize().unwrap();
    let alone = one(&dev);
    launch(0);
    launch(1);
    ctxs[0].synchronize().unwrap();
    ctxs[1].synchronize().unwrap();
    let both = stats(&dev);
    assert_eq!(both.len(), 2);
    let (a, b) = (&both[0], &both[1]);
    assert_ne!(a.chid, b.chid);
    assert!(b.start_cycle < a.end_cycle && a.start_cycle < b.end_cycle, "the grids overlap in time: {a:?} {b:?}");
    let span = a.end_cycle.max(b.end_cycle) - a.start_cycle.min(b.start_cycle);
    assert!((span as f64) < 1.5 * alone.cycles() as f64, "two grids took {span} cycles, one alone {}", alone.cycles());
}

#[test]
fn the_same_program_twice_gives_identical_cycles_and_statistics() {
    let go = || {
        let rig = Rig::new(DeviceConfig::default());
        let mut all = vec![rig.copy(1 << 16, 3, 0), rig.fma(8, 100)];
        all.push(rig.run(&banks_ptx(), "banks", 7, 640, 0, &[rig.dst.arg(), Arg::U32(3), Arg::U32(5)]));
        let cycles = rig.dev.sim().lock().cycles();
        (all, cycles, rig.dst.to_vec().unwrap())
    };
    assert_eq!(go(), go());
}

/// The progress watch sees a kernel mid-way (blocks done and warp instructions growing
/// before it ends) and changes nothing: the same cycles and statistics as without it.
#[test]
fn the_progress_watch_sees_kernels_midway_and_changes_nothing() {
    use std::sync::{Arc, Mutex};
    let go = |watch: bool| {
        let rig = Rig::new(DeviceConfig::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        if watch {
            let s = seen.clone();
            let w = fake_pci::watch::Watch::new(1000, move |snap| s.lock().unwrap().push(*snap));
            rig.dev.sim().lock().set_watch(Some(w));
        }
        let all = vec![rig.fma(64, 400), rig.copy(1 << 16, 3, 0)];
        let cycles = rig.dev.sim().lock().cycles();
        let seen = seen.lock().unwrap().clone();
        ((all, cycles, rig.dst.to_vec().unwrap()), seen)
    };
    let (plain, none) = go(false);
    let (watched, seen) = go(true);
    assert!(none.is_empty());
    // (Compared part by part: the output buffer is 8 MiB.)
    assert_eq!(plain.0, watched.0, "watching changed the kernels' statistics");
    assert_eq!(plain.1, watched.1, "watching changed the cycle count");
    assert!(plain.2 == watched.2, "watching changed the results");
    let fma = &watched.0[0];
    let mid: Vec<_> = seen.iter().filter(|s| s.cycle > fma.start_cycle && s.cycle < fma.end_cycle).collect();
    assert!(mid.len() >= 5, "{} snapshots inside a {}-cycle kernel", mid.len(), fma.cycles());
    assert!(mid.iter().any(|s| s.blocks == 400 && s.blocks_done > 0 && s.blocks_done < 400), "{mid:?}");
    assert!(mid.iter().any(|s| s.warp_instructions > 0 && s.warp_instructions < fma.warp_instructions), "{mid:?}");
    assert!(seen.windows(2).all(|w| w[0].cycle < w[1].cycle && w[0].warp_instructions <= w[1].warp_instructions));
}

#[test]
fn functional_mode_computes_the_same_results_without_timing() {
    let timing = Rig::new(DeviceConfig::default());
    let functional = Rig::new(DeviceConfig::default().with(|c| c.mode = fake_pci::config::Mode::Functional));
    let (t, f) = (timing.copy(1 << 16, 5, 0), functional.copy(1 << 16, 5, 0));
    assert_eq!(timing.dst.to_vec().unwrap(), functional.dst.to_vec().unwrap());
    assert_eq!((t.warp_instructions, t.thread_instructions), (f.warp_instructions, f.thread_instructions));
    assert!(t.l1_misses > 0 && f.l1_misses == 0 && f.dram_read_bytes == 0, "functional mode has no caches");
    let (t, f) = (timing.fma(16, 64), functional.fma(16, 64));
    assert_eq!(timing.dst.to_vec().unwrap(), functional.dst.to_vec().unwrap());
    assert_eq!(t.warp_instructions, f.warp_instructions);
}

fn device(cfg: DeviceConfig) -> Device {
    // A VA range of its own: runs compared within this process place their allocations
    // alike whatever the tests beside them allocate in the shared unified range.
    Device::open_with(DeviceOptions { config: cfg, separate_va: true, ..Default::default() }).unwrap()
}

/// Least-squares line through (x, y): (slope, intercept).
fn fit(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxy: f64 = pts.iter().map(|&(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = pts.iter().map(|&(x, _)| (x - mx) * (x - mx)).sum();
    let slope = sxy / sxx;
    (slope, my - slope * mx)
}

/// docs/hardware.md's dispatch microbenchmark: an empty kernel, grids of 1 to 4096 blocks of 1 to 16
/// warps, kernel cycles fitted against the block count under the calibration preset.
#[test]
fn dispatch_calibration_matches_the_published_table() {
    let dev = device(DeviceConfig::preset("dispatch-calibration").unwrap());
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&format!("{HDR}.visible .entry empty()\n{{\n ret;\n}}\n")).unwrap();
    let f = m.function("empty").unwrap();
    for warps in 1..=16u32 {
        let mut pts = Vec::new();
        for blocks in [1u32, 16, 64, 256, 512, 1024, 2048, 4096] {
            f.launch([blocks, 1, 1], [32 * warps, 1, 1], 0, &[]).unwrap();
            ctx.synchronize().unwrap();
            pts.push((blocks as f64, one(&dev).cycles() as f64));
        }
        let (slope, intercept) = fit(&pts);
        let want = if warps <= 4 { 4.0 } else { 1.03 * warps as f64 + 0.02 };
        eprintln!("{warps:2} warps: {slope:.3} cycles/block (published {want:.2}), intercept {intercept:.0}");
        assert!((slope - want).abs() / want < 0.05, "{warps} warps: slope {slope} against {want}");
        assert!((2870.0..=2920.0).contains(&intercept), "{warps} warps: intercept {intercept}");
    }
}

#[test]
fn caches_hit_on_reuse_and_the_l2_writes_back_at_kernel_end() {
    let rig = Rig::new(DeviceConfig::default());
    // Every thread loads the same word: after the first miss per SM, L1 hits.
    let s = rig.copy(1 << 16, 0, 0);
    assert!(s.l1_hits as f64 > 0.9 * (s.l1_hits + s.l1_misses) as f64, "{} hits, {} misses", s.l1_hits, s.l1_misses);
    // 4 MiB of stores fit the 6 MiB L2: nothing reaches DRAM until the end-of-kernel
    // write-back, which writes exactly what was stored.
    let n = 1u32 << 20;
    let w = rig.copy(n, 1, 0);
    assert_eq!(w.dram_write_bytes, n as u64 * 4);
    // The loads read 4 MiB (less what the L2 still holds); the store misses read nothing.
    assert!(w.dram_read_bytes <= n as u64 * 4 && w.dram_read_bytes > n as u64 * 4 - 4096, "{}", w.dram_read_bytes);
}

#[test]
fn copies_take_the_time_of_their_path() {
    let cfg = DeviceConfig::default();
    let mut rig = Rig::new(cfg.clone());
    rig.dev.take_copy_stats();
    let data = vec![7u32; 1 << 20];
    rig.dst.copy_from(&data).unwrap();
    rig.src.copy_from_device(&rig.dst).unwrap();
    rig.src.fill(3).unwrap();
    rig.ctx.synchronize().unwrap();
    let copies = rig.dev.take_copy_stats();
    use fake_pci::config::CopyPath;
    let up: Vec<_> = copies.iter().filter(|c| c.path == CopyPath::Pcie).collect();
    assert_eq!(up.iter().map(|c| c.bytes).sum::<u64>(), 4 << 20, "host to device through PCIe");
    for c in copies.iter() {
        assert_eq!(c.end_cycle - c.start_cycle, cfg.copy_cycles(c.bytes, c.path), "{c:?}");
    }
    assert!(copies.iter().any(|c| c.path == CopyPath::VramToVram && c.bytes == 8 << 20));
    assert!(copies.iter().any(|c| c.path == CopyPath::VramFill && c.bytes == 8 << 20));
    // PCIe bound: 4 MiB at 12 GB/s is about 350 us; inside VRAM it is about 10x faster.
    let pcie: u64 = up.iter().map(|c| c.end_cycle - c.start_cycle).sum();
    let ns = cfg.cycles_to_ns(pcie) as f64;
    assert!((340_000.0..420_000.0).contains(&ns), "{ns} ns");
}

#[test]
fn both_scheduling_policies_compute_the_same_and_differ_in_time() {
    let run = |policy| {
        let rig = Rig::new(DeviceConfig::default().with(|c| c.sm.policy = policy));
        let s = rig.run(&banks_ptx(), "banks", 160, 512, 0, &[rig.dst.arg(), Arg::U32(3), Arg::U32(16)]);
        let c = rig.copy(1 << 18, 7, 0);
        (s.cycles() + c.cycles(), rig.dst.to_vec().unwrap())
    };
    let (lrr, gto) = (run(fake_pci::config::Policy::Lrr), run(fake_pci::config::Policy::Gto));
    assert_eq!(lrr.1, gto.1);
    assert_ne!(lrr.0, gto.0, "the policy decides which warp issues");
}

/// Each thread loads src[i] with ld.global, then fetches element i of a texture over the
/// same memory (tex1Dfetch), and writes the sum.
fn load_then_fetch_ptx() -> String {
    format!(
        "{HDR}.visible .entry k(.param .u64 src, .param .u64 tex, .param .u64 dst)\n{{\n\
         .reg .b32 %r<4>;\n .reg .b64 %rd<8>;\n .reg .f32 %f<8>;\n\
         mov.u32 %r1, %tid.x;\n ld.param.u64 %rd1, [src];\n ld.param.u64 %rd2, [tex];\n ld.param.u64 %rd3, [dst];\n\
         mul.wide.u32 %rd4, %r1, 4;\n add.s64 %rd5, %rd1, %rd4;\n ld.global.f32 %f1, [%rd5];\n\
         tex.1d.v4.f32.s32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%r1}}];\n add.f32 %f6, %f1, %f2;\n\
         add.s64 %rd6, %rd3, %rd4;\n st.global.f32 [%rd6], %f6;\n ret;\n}}\n"
    )
}

#[test]
fn texture_fetches_hit_what_loads_brought_into_voltas_l1_but_not_fermis_own_texture_cache() {
    use runtime_core::{Format, Resource, TexDesc};
    let run = |cfg: DeviceConfig| {
        let dev = device(cfg);
        let ctx = dev.create_context().unwrap();
        let n = 256usize;
        let mut src = ctx.alloc::<f32>(n).unwrap();
        let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        src.copy_from(&input).unwrap();
        let dst = ctx.alloc::<f32>(n).unwrap();
        let res = Resource::Linear { ptr: src.device_ptr(), format: Format::Float, channels: 1, bytes: 4 * n as u64 };
        let desc = TexDesc {
            address: [0; 3],
            filter: 0,
            flags: 0,
            border: [0.0; 4],
            mip_filter: 0,
            mip_bias: 0.0,
            mip_clamp: [0.0; 2],
        };
        let tex = dev.gpu().tex_create(ctx.handle(), res, desc).unwrap();
        let m = ctx.load_ptx(&load_then_fetch_ptx()).unwrap();
        stats(&dev);
        m.function("k")
            .unwrap()
            .launch([1, 1, 1], [n as u32, 1, 1], 0, &[src.arg(), Arg::U64(tex), dst.arg()])
            .unwrap();
        ctx.synchronize().unwrap();
        let out = dst.to_vec().unwrap();
        assert_eq!(out, input.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
        one(&dev)
    };
    let sectors = 256 * 4 / 32;
    // Volta: the texture path looks up the L1 the loads just filled.
    let v = run(DeviceConfig::default());
    assert_eq!((v.l1_misses, v.tex_hits, v.tex_misses), (sectors, sectors, 0), "{v:?}");
    // Fermi: the texture cache is apart from the L1 and starts cold.
    let f = run(DeviceConfig::preset("gf100").unwrap());
    assert_eq!((f.l1_misses, f.tex_hits, f.tex_misses), (sectors, 0, sectors), "{f:?}");
    assert_eq!(f.l2_hits, sectors, "the fetches find the loads' sectors in the L2");
}

/// Coherence at a release (issue 15 item 6): a system-scope fence (`membar.sys`,
/// `__threadfence_system`) waits for the L2's dirty lines to be written back, so that the
/// host or a peer may see the warp's stores; a device-scope one (`membar.gl`) does not.
#[test]
fn system_fences_write_the_l2_back() {
    let kernel = |scope: &str| {
        format!(
            "{HDR}.visible .entry fence(.param .u64 out)\n{{\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n\
             mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n mad.lo.s32 %r1, %r1, %r2, %r3;\n\
             ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n\
             st.global.u32 [%rd3], %r1;\n membar.{scope};\n st.global.u32 [%rd3], %r3;\n ret;\n}}\n"
        )
    };
    let run = |scope: &str| {
        let dev = Device::open_with(DeviceOptions { separate_va: true, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let out = ctx.alloc::<u32>(64 * 256).unwrap();
        let m = ctx.load_ptx(&kernel(scope)).unwrap();
        stats(&dev);
        m.function("fence").unwrap().launch([64, 1, 1], [256, 1, 1], 0, &[out.arg()]).unwrap();
        ctx.synchronize().unwrap();
        assert!(out.to_vec().unwrap().iter().enumerate().all(|(i, &v)| v == (i % 256) as u32));
        one(&dev)
    };
    let (gl, sys) = (run("gl"), run("sys"));
    assert_eq!((gl.system_fences, sys.system_fences), (0, 64 * 8), "one per warp that fenced");
    // Each warp waited for the write-back of the lines stored so far: the stores reach
    // DRAM earlier and more often, and the kernel takes longer.
    assert!(sys.dram_write_bytes > gl.dram_write_bytes, "{} vs {}", sys.dram_write_bytes, gl.dram_write_bytes);
    assert!(sys.cycles() > gl.cycles(), "{} vs {}", sys.cycles(), gl.cycles());
}

/// The L1 is what the shared-memory carveout leaves of the SM's unified L1 and shared
/// memory: a kernel without shared memory has all of it (128 KiB on `gv100`), one whose
/// blocks fill the shared memory has what is left beside it (32 KiB), and a kernel that
/// prefers the largest carveout (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT 100)
/// gets it whatever its own use. A 64 KiB chase shows which: L1 hits or L2 hits.
#[test]
fn the_l1_is_what_the_shared_memory_carveout_leaves() {
    let dev = device(DeviceConfig::default());
    let ctx = dev.create_context().unwrap();
    let src = format!(
        "{HDR}.visible .entry chase(.param .u64 start, .param .u32 n, .param .u64 out)\n{{\n\
         .reg .b64 %p, %t0, %t1, %o;\n .reg .b32 %i, %n;\n .reg .pred %q;\n\
         ld.param.u64 %p, [start];\n ld.param.u32 %n, [n];\n ld.param.u64 %o, [out];\n mov.u32 %i, 0;\n\
         WARM:\n ld.global.ca.u64 %p, [%p];\n add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra WARM;\n\
         mov.u32 %i, 0;\n mov.u64 %t0, %clock64;\n\
         LOOP:\n ld.global.ca.u64 %p, [%p];\n add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n\
         mov.u64 %t1, %clock64;\n sub.u64 %t1, %t1, %t0;\n st.global.u64 [%o], %t1;\n st.global.u64 [%o+8], %p;\n ret;\n}}\n"
    );
    let m = ctx.load_ptx(&src).unwrap();
    let mut f = m.function("chase").unwrap();
    let (foot, stride) = (64u64 << 10, 128u64);
    let steps = foot / stride;
    let mut ring = ctx.alloc::<u64>((foot / 8) as usize).unwrap();
    let base = ring.device_ptr();
    let mut words = vec![0u64; (foot / 8) as usize];
    for k in 0..steps {
        words[(k * stride / 8) as usize] = base + (k + 1) % steps * stride;
    }
    ring.copy_from(&words).unwrap();
    let out = ctx.alloc::<u64>(2).unwrap();
    let cycles_per_load = |f: &backend_user::Function, shared: u32| {
        f.launch([1, 1, 1], [1, 1, 1], shared, &[ring.arg(), Arg::U32(steps as u32), out.arg()]).unwrap();
        ctx.synchronize().unwrap();
        out.to_vec().unwrap()[0] as f64 / steps as f64
    };
    let cfg = DeviceConfig::default();
    let all_l1 = cycles_per_load(&f, 0);
    assert!(all_l1 < cfg.l1.latency as f64 + 8.0, "no shared memory: 128 KiB of L1 holds 64 KiB: {all_l1}");
    // 48 KiB per block: two blocks fill the 96 KiB carveout, leaving 32 KiB of L1.
    let beside = cycles_per_load(&f, 48 << 10);
    assert!(beside > cfg.l2.latency as f64 * 0.9, "48 KiB of shared per block: 32 KiB of L1: {beside}");
    // The preference: the largest carveout without using any.
    f.set_preferred_carveout(100).unwrap();
    assert_eq!(f.attributes().preferred_carveout, 100);
    let preferred = cycles_per_load(&f, 0);
    assert!(preferred > cfg.l2.latency as f64 * 0.9, "a 100% preference: 32 KiB of L1: {preferred}");
    f.set_preferred_carveout(-1).unwrap();
    assert_eq!(f.attributes().preferred_carveout, -1);
    assert!(cycles_per_load(&f, 0) < cfg.l1.latency as f64 + 8.0);
    assert_eq!(f.set_preferred_carveout(101), Err(backend_user::CuError::InvalidValue));
}

#[test]
fn queued_launches_overlap_their_setup_with_the_grid_before_them() {
    let cfg = DeviceConfig::preset("h200").unwrap();
    let (overhead, overlap) = (cfg.dispatch.launch_overhead_cycles, cfg.dispatch.launch_overlap_cycles);
    assert!(overlap > 0 && overlap < overhead);
    let rig = Rig::new(cfg);
    let m = rig.ctx.load_ptx(&format!("{HDR}.visible .entry empty()\n{{\n ret;\n}}\n")).unwrap();
    let f = m.function("empty").unwrap();
    // One launch alone (the front end sees it as the channel reaches it): the whole overhead.
    stats(&rig.dev);
    f.launch([1, 1, 1], [32, 1, 1], 0, &[]).unwrap();
    rig.ctx.synchronize().unwrap();
    let alone = one(&rig.dev);
    // Four queued: each after the first was prepared while the grid before it ran.
    for _ in 0..4 {
        f.launch([1, 1, 1], [32, 1, 1], 0, &[]).unwrap();
    }
    rig.ctx.synchronize().unwrap();
    let q = stats(&rig.dev);
    assert_eq!(q.len(), 4);
    // (Alone, a launch saves only the cycles of the methods before it in its segment.)
    let near = |a: u64, b: u64| a.abs_diff(b) < 100;
    assert!(near(q[0].cycles(), alone.cycles()), "the first of the queue waited for nothing: {q:?} {alone:?}");
    assert!(alone.cycles() > overhead - 200);
    for (a, b) in q.iter().zip(&q[1..]) {
        assert!(b.start_cycle >= a.end_cycle, "in order: {a:?} {b:?}");
        assert!(near(b.cycles() + overlap, alone.cycles()), "a queued launch saves the overlap: {b:?}");
        assert_eq!(b.cycles(), q[1].cycles());
    }
    // Queued behind a copy: the front end prepares it only once the copy engine is done
    // (the shared ub_atomic's kernels follow a cudaMemset and an event).
    let (x, y) = (rig.ctx.alloc::<u8>(4 << 20).unwrap(), rig.ctx.alloc::<u8>(4 << 20).unwrap());
    let s = rig.ctx.default_stream();
    s.copy_async(y.device_ptr(), x.device_ptr(), 4 << 20).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[]).unwrap();
    rig.ctx.synchronize().unwrap();
    let behind = stats(&rig.dev);
    assert!(near(behind[0].cycles(), alone.cycles()), "behind a copy: {behind:?} {alone:?}");
    // Functional mode charges the same launch costs.
    let cfg = DeviceConfig::preset("h200").unwrap().with(|c| c.mode = fake_pci::config::Mode::Functional);
    let rig = Rig::new(cfg);
    let m = rig.ctx.load_ptx(&format!("{HDR}.visible .entry empty()\n{{\n ret;\n}}\n")).unwrap();
    let f = m.function("empty").unwrap();
    stats(&rig.dev);
    for _ in 0..2 {
        f.launch([1, 1, 1], [32, 1, 1], 0, &[]).unwrap();
    }
    rig.ctx.synchronize().unwrap();
    let q = stats(&rig.dev);
    assert!(near(q[0].cycles(), q[1].cycles() + overlap), "{q:?}");
}

#[test]
fn pageable_copies_take_the_hosts_staging_time_and_pinned_ones_do_not() {
    let bytes = 8usize << 20;
    // Milliseconds of simulated time between two events around `work`.
    let timed = |rig: &Rig, work: &mut dyn FnMut()| {
        let s = rig.ctx.default_stream();
        let (a, b) = (rig.ctx.create_event(true).unwrap(), rig.ctx.create_event(true).unwrap());
        s.record(&a).unwrap();
        work();
        s.record(&b).unwrap();
        b.synchronize().unwrap();
        b.elapsed_ms_since(&a).unwrap() as f64
    };
    let run = |cfg: DeviceConfig| {
        let rig = Rig::new(cfg);
        let mut dev = rig.ctx.alloc::<u8>(bytes).unwrap();
        let mut host: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
        let pinned = rig.ctx.alloc_host::<u8>(bytes).unwrap();
        let s = rig.ctx.default_stream();
        let up = timed(&rig, &mut || dev.copy_from(&host).unwrap());
        let down = timed(&rig, &mut || {
            host.fill(0);
            dev.copy_to(&mut host).unwrap()
        });
        assert!(host.iter().enumerate().all(|(i, &v)| v == i as u8), "the data made the round trip");
        let pin = timed(&rig, &mut || s.copy_async(dev.device_ptr(), pinned.device_ptr(), bytes as u64).unwrap());
        (up, down, pin)
    };
    let h200 = DeviceConfig::preset("h200").unwrap();
    let (up, down, pin) = run(h200.clone());
    // The host's copies set the pace: bytes over the staging rate, the last buffer's DMA
    // (or the first's, from the device) and the copy setup beside.
    let ms = |mbps: u64| bytes as f64 / (mbps as f64 * 1e3);
    for (got, mbps) in [(up, h200.pcie.staging_h2d_mbps), (down, h200.pcie.staging_d2h_mbps)] {
        let host = ms(mbps);
        assert!(got > host && got < host * 1.15, "{got:.3} ms for {host:.3} ms of host copies");
    }
    assert!(pin < up / 4.0, "pinned {pin:.3} ms, pageable {up:.3} ms");
    // Deterministic, and free where the preset does not model the host's copies.
    assert_eq!(run(h200.clone()), (up, down, pin));
    let (up0, down0, pin0) = run(h200.with(|c| (c.pcie.staging_h2d_mbps, c.pcie.staging_d2h_mbps) = (0, 0)));
    assert!(up0 < 1.2 * pin0 && down0 < 1.2 * pin0, "{up0} {down0} {pin0}");
}

/// On h200 blocks start fast and the front end retires finished ones one at a time
/// (`dispatch.retire_mcycles`): 2048 one-warp blocks, all resident at once, start within
/// their dispatch cost; 2048 blocks of 32 warps (two fit an SM) start as the blocks before
/// them are retired, so the last waits for about every retirement but the first wave's.
/// Each block's first thread stamps `%clock64`; a grid ends once its last block is retired.
#[test]
fn blocks_start_fast_and_wait_for_the_front_end_to_retire_finished_ones() {
    let cfg = DeviceConfig::preset("h200").unwrap();
    let rig = Rig::new(cfg.clone());
    let ptx = format!(
        "{HDR}.visible .entry stamp(.param .u64 out)\n{{\n .reg .b64 %p, %g, %w;\n .reg .b32 %t, %b;\n .reg .pred %q;\n\
         mov.u32 %t, %tid.x;\n setp.ne.u32 %q, %t, 0;\n @%q bra END;\n mov.u64 %g, %clock64;\n mov.u32 %b, %ctaid.x;\n\
         ld.param.u64 %p, [out];\n mul.wide.u32 %w, %b, 8;\n add.u64 %p, %p, %w;\n st.global.u64 [%p], %g;\nEND:\n ret;\n}}\n"
    );
    let blocks = 2048usize;
    let out = rig.ctx.alloc::<u64>(blocks).unwrap();
    let spread = |threads: u32| {
        let k = rig.run(&ptx, "stamp", blocks as u32, threads, 0, &[out.arg()]);
        let mut t = vec![0u64; blocks];
        out.copy_to(&mut t).unwrap();
        (t.iter().max().unwrap() - t.iter().min().unwrap(), k)
    };
    let (one_warp, k1) = spread(32);
    let cost = |mc: u64, n: usize| mc * n as u64 / 1000;
    assert!(one_warp <= cost(cfg.dispatch_mcycles(1), blocks) + 50, "{one_warp} cycles");
    // The grid's end waits for every retirement.
    assert!(k1.cycles() >= cost(cfg.retire_mcycles(1), blocks), "{k1:?}");
    let (full, _) = spread(1024);
    let waiting = blocks - 2 * cfg.board.sms as usize;
    let retire = cost(cfg.retire_mcycles(32), waiting);
    assert!(full >= retire && full <= retire + 2000, "{full} cycles, {retire} of retirements");
    // gv100 retires a block at its last warp's exit.
    assert_eq!(DeviceConfig::preset("gv100").unwrap().retire_mcycles(32), 0);
}
