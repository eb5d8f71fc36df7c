//! The cycle-level timing model: behaviour, not constants. Each test compares two runs
//! of the model that differ in one respect and checks that the difference shows the way
//! the hardware's would (bandwidth, issue rate, coalescing, bank conflicts, occupancy,
//! concurrency), plus determinism and the dispatch calibration of HW.md.

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

#[test]
fn print_figures() {
    let dev = Device::open().unwrap();
    let cfg = DeviceConfig::default();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&copy_ptx()).unwrap();
    let f = m.function("copy").unwrap();
    let src = ctx.alloc::<f32>(32 << 20 >> 2).unwrap();
    let dst = ctx.alloc::<f32>(8 << 20 >> 2).unwrap();
    for (n, stride) in [(1u32 << 18, 1u32), (1 << 20, 1), (1 << 16, 1), (1 << 16, 32)] {
        f.launch([n / 256, 1, 1], [256, 1, 1], 0, &[src.arg(), dst.arg(), Arg::U32(stride), Arg::U32(n)]).unwrap();
        ctx.synchronize().unwrap();
        let s = one(&dev);
        let bw = (s.dram_read_bytes + s.dram_write_bytes) as f64 / cfg.cycles_to_ns(s.cycles()) as f64;
        eprintln!(
            "copy n {n} stride {stride}: {s:?}\n  {bw:.1} GB/s ipc {:.2} occ {:.2}",
            s.ipc(),
            s.achieved_occupancy()
        );
    }
    let m = ctx.load_ptx(&fma_ptx()).unwrap();
    let f = m.function("fma").unwrap();
    for k in [16u32, 32] {
        f.launch([640, 1, 1], [256, 1, 1], 0, &[dst.arg(), Arg::U32(k)]).unwrap();
        ctx.synchronize().unwrap();
        let s = one(&dev);
        eprintln!("fma k {k}: {s:?}\n  ipc {:.2} occ {:.2}", s.ipc(), s.achieved_occupancy());
    }
    let m = ctx.load_ptx(&banks_ptx()).unwrap();
    let f = m.function("banks").unwrap();
    for stride in [1u32, 32] {
        f.launch([80, 1, 1], [1024, 1, 1], 0, &[dst.arg(), Arg::U32(stride), Arg::U32(64)]).unwrap();
        ctx.synchronize().unwrap();
        let s = one(&dev);
        eprintln!("banks stride {stride}: {s:?}\n  ipc {:.2}", s.ipc());
    }
    let _ = DeviceOptions::default();
}

fn device(cfg: DeviceConfig) -> Device {
    Device::open_with(DeviceOptions { config: cfg, ..Default::default() }).unwrap()
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

/// HW.md's dispatch microbenchmark: an empty kernel, grids of 1 to 4096 blocks of 1 to 16
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
