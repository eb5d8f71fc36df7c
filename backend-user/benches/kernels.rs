//! Simulation rate in functional and timing mode: warp instructions per host second on
//! vector add, matrix multiply, reduction and Mandelbrot, and the slowdown against the same
//! computation in native Rust on one CPU thread, measured in the same run. Targets:
//! functional mode within 30x of native, timing mode within 300x. Also peak host memory.
//! Run: `cargo bench -p backend-user --bench kernels` (RGDEV_BENCH=NAME runs one kernel).

use backend_user::{Arg, Context, Device, DeviceConfig, DeviceOptions};
use fake_pci::config::Mode;
#[path = "common/mod.rs"]
mod common;

use common::best;
use std::hint::black_box;
use std::time::Duration;

const REPS: usize = 3;

struct Row {
    mode: &'static str,
    name: &'static str,
    native: Duration,
    sim: Duration,
    warp_instr: u64,
}

fn sim(dev: &Device, ctx: &Context, f: impl Fn()) -> (Duration, u64) {
    let w0 = dev.sim().lock().compute_stats().1;
    let d = best(REPS, || {
        f();
        ctx.synchronize().unwrap();
    });
    let w = (dev.sim().lock().compute_stats().1 - w0) / REPS as u64;
    (d, w)
}

fn main() {
    let mut rows = Vec::new();
    for (mode, label) in [(Mode::Functional, "functional"), (Mode::Timing, "timing")] {
        let config = DeviceConfig::default().with(|c| c.mode = mode);
        let dev = Device::open_with(DeviceOptions { config, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        run(label, &dev, &ctx, &mut rows);
    }
    println!("rgdev simulation rate (best of {REPS}; native = the same computation in Rust, one thread; gv100 preset)");
    println!("| mode | kernel | native | simulated (host time) | slowdown | warp instructions | warp instr / host s |");
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.2} ms | {:.1} ms | {:.1}x | {} | {:.1} M |",
            r.mode,
            r.name,
            r.native.as_secs_f64() * 1e3,
            r.sim.as_secs_f64() * 1e3,
            r.sim.as_secs_f64() / r.native.as_secs_f64(),
            r.warp_instr,
            r.warp_instr as f64 / r.sim.as_secs_f64() / 1e6
        );
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(hwm) = status.lines().find(|l| l.starts_with("VmHWM")) {
        println!("peak host memory of the whole run: {}", hwm.trim_start_matches("VmHWM:").trim());
    }
}

fn run(mode: &'static str, dev: &Device, ctx: &Context, rows: &mut Vec<Row>) {
    // RGDEV_BENCH=vecadd|matmul|reduce|mandelbrot runs one case (for profiling).
    let only = std::env::var("RGDEV_BENCH").ok();
    let want = |k: &str| only.as_deref().is_none_or(|o| o == k);

    // Vector add, 4 Mi elements.
    if want("vecadd") {
        let n = 4 << 20;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
        let mut c = vec![0f32; n];
        let native = best(REPS, || {
            for i in 0..n {
                c[i] = black_box(a[i]) + b[i];
            }
            black_box(&c);
        });
        let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
        let f = m.function("vecadd").unwrap();
        let (mut da, mut db, dc) =
            (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
        da.copy_from(&a).unwrap();
        db.copy_from(&b).unwrap();
        let (d, w) = sim(dev, ctx, || {
            f.launch(
                [(n as u32).div_ceil(256), 1, 1],
                [256, 1, 1],
                0,
                &[da.arg(), db.arg(), dc.arg(), Arg::I32(n as i32)],
            )
            .unwrap();
        });
        rows.push(Row { mode, name: "vector add (4 Mi f32)", native, sim: d, warp_instr: w });
    }

    // Matrix multiply 256x256 with 32x32 tiles.
    if want("matmul") {
        let s = 256usize;
        let x: Vec<f32> = (0..s * s).map(|i| (i % 17) as f32 - 8.0).collect();
        let y: Vec<f32> = (0..s * s).map(|i| (i % 13) as f32 - 6.0).collect();
        let mut z = vec![0f32; s * s];
        let native = best(REPS, || {
            for r in 0..s {
                for col in 0..s {
                    let mut acc = 0f32;
                    for k in 0..s {
                        acc = x[r * s + k].mul_add(y[k * s + col], acc);
                    }
                    z[r * s + col] = acc;
                }
            }
            black_box(&z);
        });
        let m = ctx.load_ptx(include_str!("../../kernels/matmul.ptx")).unwrap();
        let f = m.function("matmul32").unwrap();
        let (mut dx, mut dy, dz) =
            (ctx.alloc::<f32>(s * s).unwrap(), ctx.alloc::<f32>(s * s).unwrap(), ctx.alloc::<f32>(s * s).unwrap());
        dx.copy_from(&x).unwrap();
        dy.copy_from(&y).unwrap();
        let (d, w) = sim(dev, ctx, || {
            f.launch([8, 8, 1], [32, 32, 1], 0, &[dx.arg(), dy.arg(), dz.arg(), Arg::I32(s as i32)]).unwrap();
        });
        rows.push(Row { mode, name: "matrix multiply (256x256 f32)", native, sim: d, warp_instr: w });
    }

    // Reduction of 16 Mi u32 as fast GPU reductions are written: a grid-stride loop per
    // thread, shuffles within warps, one atomic per block (kernels/reduce_sum.cu).
    if want("reduce") {
        let n = 16usize << 20;
        let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 16).collect();
        let native = best(REPS, || {
            let mut s = 0u32;
            for &x in &data {
                s = s.wrapping_add(black_box(x));
            }
            black_box(s);
        });
        let m = ctx.load_ptx(include_str!("../../kernels/reduce_sum.ptx")).unwrap();
        let f = m.function("reduce_sum").unwrap();
        let mut din = ctx.alloc::<u32>(n).unwrap();
        let dout = ctx.alloc::<u32>(1).unwrap();
        din.copy_from(&data).unwrap();
        let grid = dev.info().sms * 8;
        let (d, w) = sim(dev, ctx, || {
            f.launch([grid, 1, 1], [256, 1, 1], 0, &[din.arg(), dout.arg(), Arg::U32(n as u32)]).unwrap();
        });
        rows.push(Row { mode, name: "reduction (16 Mi u32, grid-stride)", native, sim: d, warp_instr: w });
    }

    // Mandelbrot 512x512, 256 iterations.
    if want("mandelbrot") {
        let (wd, ht, it) = (512usize, 512usize, 256);
        let mut img = vec![0u32; wd * ht];
        let native = best(REPS, || {
            for py in 0..ht {
                for px in 0..wd {
                    let cx = (px as f32 * 3.0) / wd as f32 - 2.0;
                    let cy = (py as f32 * 2.5) / ht as f32 - 1.25;
                    let (mut zx, mut zy, mut k) = (0f32, 0f32, 0);
                    while k < it && zx * zx + zy * zy <= 4.0 {
                        let t = zx * zx - zy * zy + cx;
                        zy = 2.0 * zx * zy + cy;
                        zx = t;
                        k += 1;
                    }
                    img[py * wd + px] = black_box(k) as u32;
                }
            }
        });
        let m = ctx.load_ptx(include_str!("../../kernels/mandelbrot.ptx")).unwrap();
        let f = m.function("mandelbrot").unwrap();
        let dimg = ctx.alloc::<u32>(wd * ht).unwrap();
        let (d, w) = sim(dev, ctx, || {
            f.launch(
                [(wd as u32) / 16, (ht as u32) / 16, 1],
                [16, 16, 1],
                0,
                &[dimg.arg(), Arg::I32(wd as i32), Arg::I32(ht as i32), Arg::I32(it)],
            )
            .unwrap();
        });
        rows.push(Row { mode, name: "Mandelbrot (512x512, 256 iterations)", native, sim: d, warp_instr: w });
    }
}
