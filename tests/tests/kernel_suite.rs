//! The kernel suite: CUDA kernels compiled to PTX by clang-14 (kernels/build.sh), loaded
//! and JIT-compiled by the runtime, run on the simulated GPU, and checked against CPU
//! references. Integer results are exact. Float results are bit-exact too: the references
//! perform the same IEEE operations in the same order as the PTX (where clang contracted
//! `a * b + c` into `fma.rn`, the reference uses `mul_add`), and the engine implements
//! add/sub/mul/div/fma/sqrt with IEEE round-to-nearest.
#![allow(clippy::needless_range_loop)] // index loops mirror the CPU references

use backend_user::{Arg, CheckMode, Context, Device, DeviceOptions, Module};
use tests::Rng;

/// The suite runs with every sanitizer on: each kernel must compute its reference results
/// and give no finding (memcheck, racecheck, initcheck, synccheck). Dropping this checks.
struct Checked {
    dev: Device,
    ctx: Context,
}

impl std::ops::Deref for Checked {
    type Target = Device;
    fn deref(&self) -> &Device {
        &self.dev
    }
}

impl Drop for Checked {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let _ = self.ctx.synchronize(); // a test may end in a sticky error it expects
        let (reports, dropped) = self.ctx.check_reports().unwrap();
        let text: Vec<String> = reports.iter().map(|r| r.to_string()).collect();
        assert!(reports.is_empty() && dropped == 0, "sanitizer findings:\n{}", text.join("\n"));
    }
}

thread_local! {
    /// The preset this thread's test runs on: a device preset, or the unified 4-GPU device
    /// (`gv100x4u`); the default `gv100` when empty.
    static PRESET: std::cell::Cell<&'static str> = const { std::cell::Cell::new("") };
}

fn setup(ptx: &str) -> (Checked, Context, Module) {
    let all = CheckMode::new().with_memcheck(true).with_racecheck(true).with_initcheck(true).with_synccheck(true);
    let opts = DeviceOptions { checks: all, ..Default::default() };
    let dev = match PRESET.get() {
        "" => Device::open_with(opts).unwrap(),
        "gv100x4u" => {
            let sys = backend_user::SystemConfig::preset("gv100x4u").unwrap();
            assert!(sys.unified);
            Device::open_unified(sys, &opts).unwrap()
        }
        name => {
            let config = backend_user::DeviceConfig::preset(name).unwrap();
            Device::open_with(DeviceOptions { config, ..opts }).unwrap()
        }
    };
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(ptx).unwrap();
    (Checked { dev, ctx: ctx.clone() }, ctx, m)
}

#[test]
fn saxpy_and_daxpy() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/saxpy.ptx"));
    let n = 50_001;
    let mut rng = Rng(11);
    let x: Vec<f32> = (0..n).map(|_| rng.below(1 << 16) as f32 * 0.37).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.below(1 << 16) as f32 * -1.3).collect();
    let (mut dx, mut dy) = (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
    dx.copy_from(&x).unwrap();
    dy.copy_from(&y).unwrap();
    let grid = (n as u32).div_ceil(128);
    m.function("saxpy")
        .unwrap()
        .launch([grid, 1, 1], [128, 1, 1], 0, &[Arg::F32(2.5), dx.arg(), dy.arg(), Arg::I32(n as i32)])
        .unwrap();
    let out = dy.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(out[i].to_bits(), 2.5f32.mul_add(x[i], y[i]).to_bits(), "saxpy {i}");
    }
    let xd: Vec<f64> = x.iter().map(|&v| v as f64 / 3.0).collect();
    let yd: Vec<f64> = y.iter().map(|&v| v as f64 * 1.1).collect();
    let (mut dxd, mut dyd) = (ctx.alloc::<f64>(n).unwrap(), ctx.alloc::<f64>(n).unwrap());
    dxd.copy_from(&xd).unwrap();
    dyd.copy_from(&yd).unwrap();
    m.function("daxpy")
        .unwrap()
        .launch([grid, 1, 1], [128, 1, 1], 0, &[Arg::F64(-0.75), dxd.arg(), dyd.arg(), Arg::I32(n as i32)])
        .unwrap();
    let out = dyd.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(out[i].to_bits(), (-0.75f64).mul_add(xd[i], yd[i]).to_bits(), "daxpy {i}");
    }
}

fn matmul_ref(a: &[f32], b: &[f32], n: usize, tile: usize) -> Vec<f32> {
    let mut c = vec![0f32; n * n];
    let tiles = n.div_ceil(tile);
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for t in 0..tiles {
                for k in 0..tile {
                    let kk = t * tile + k;
                    let (x, y) = if kk < n { (a[row * n + kk], b[kk * n + col]) } else { (0.0, 0.0) };
                    acc = x.mul_add(y, acc);
                }
            }
            c[row * n + col] = acc;
        }
    }
    c
}

#[test]
fn tiled_matrix_multiply_16_and_32() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/matmul.ptx"));
    for (name, tile, n) in [("matmul16", 16usize, 70usize), ("matmul32", 32, 96)] {
        let mut rng = Rng(n as u64);
        let a: Vec<f32> = (0..n * n).map(|_| (rng.below(2000) as f32 - 1000.0) / 64.0).collect();
        let b: Vec<f32> = (0..n * n).map(|_| (rng.below(2000) as f32 - 1000.0) / 32.0).collect();
        let (mut da, mut db, dc) =
            (ctx.alloc::<f32>(n * n).unwrap(), ctx.alloc::<f32>(n * n).unwrap(), ctx.alloc::<f32>(n * n).unwrap());
        da.copy_from(&a).unwrap();
        db.copy_from(&b).unwrap();
        let g = (n as u32).div_ceil(tile as u32);
        let f = m.function(name).unwrap();
        f.launch([g, g, 1], [tile as u32, tile as u32, 1], 0, &[da.arg(), db.arg(), dc.arg(), Arg::I32(n as i32)])
            .unwrap();
        let c = dc.to_vec().unwrap();
        let r = matmul_ref(&a, &b, n, tile);
        for i in 0..n * n {
            assert_eq!(c[i].to_bits(), r[i].to_bits(), "{name} element {i}: {} vs {}", c[i], r[i]);
        }
    }
}

#[test]
fn warp_shuffle_reduction() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/warp_reduce.ptx"));
    let n = 10_007;
    let data: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1001 - 500).collect();
    let mut din = ctx.alloc::<i32>(n).unwrap();
    let mut dout = ctx.alloc::<i32>(1).unwrap();
    din.copy_from(&data).unwrap();
    dout.copy_from(&[0]).unwrap();
    m.function("warp_reduce")
        .unwrap()
        .launch([(n as u32).div_ceil(256), 1, 1], [256, 1, 1], 0, &[din.arg(), dout.arg(), Arg::I32(n as i32)])
        .unwrap();
    assert_eq!(dout.to_vec().unwrap()[0], data.iter().sum::<i32>());
}

#[test]
fn block_prefix_scan() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/scan.ptx"));
    let n = 1000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i % 13 + 1).collect();
    let mut din = ctx.alloc::<u32>(n).unwrap();
    let dout = ctx.alloc::<u32>(n).unwrap();
    din.copy_from(&data).unwrap();
    m.function("scan256")
        .unwrap()
        .launch([(n as u32).div_ceil(256), 1, 1], [256, 1, 1], 0, &[din.arg(), dout.arg(), Arg::U32(n as u32)])
        .unwrap();
    let out = dout.to_vec().unwrap();
    for (b, chunk) in data.chunks(256).enumerate() {
        let mut s = 0;
        for (k, &v) in chunk.iter().enumerate() {
            s += v;
            assert_eq!(out[b * 256 + k], s, "block {b} element {k}");
        }
    }
}

#[test]
fn histogram_with_shared_atomics() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/histogram.ptx"));
    let n = 100_000;
    let data = Rng(3).bytes(n);
    let mut din = ctx.alloc::<u8>(n).unwrap();
    let mut bins = ctx.alloc::<u32>(256).unwrap();
    din.copy_from(&data).unwrap();
    bins.copy_from(&[0; 256]).unwrap();
    m.function("histogram")
        .unwrap()
        .launch([16, 1, 1], [192, 1, 1], 0, &[din.arg(), bins.arg(), Arg::I32(n as i32)])
        .unwrap();
    let mut expect = [0u32; 256];
    for &b in &data {
        expect[b as usize] += 1;
    }
    assert_eq!(bins.to_vec().unwrap(), expect);
}

#[test]
fn shared_memory_transpose() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/transpose.ptx"));
    let (w, h) = (70usize, 45usize);
    let data: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let mut din = ctx.alloc::<f32>(w * h).unwrap();
    let dout = ctx.alloc::<f32>(w * h).unwrap();
    din.copy_from(&data).unwrap();
    m.function("transpose")
        .unwrap()
        .launch(
            [(w as u32).div_ceil(32), (h as u32).div_ceil(32), 1],
            [32, 8, 1],
            0,
            &[din.arg(), dout.arg(), Arg::I32(w as i32), Arg::I32(h as i32)],
        )
        .unwrap();
    let out = dout.to_vec().unwrap();
    for y in 0..h {
        for x in 0..w {
            assert_eq!(out[x * h + y], data[y * w + x], "({x}, {y})");
        }
    }
}

pub fn mandelbrot_ref(w: usize, h: usize, max_iter: i32) -> Vec<u32> {
    let mut out = vec![0u32; w * h];
    for py in 0..h {
        for px in 0..w {
            let cx = (px as i32 as f32 * 3.0) / w as i32 as f32 + -2.0;
            let cy = (py as i32 as f32 * 2.5) / h as i32 as f32 + -1.25;
            let (mut x, mut y, mut k) = (0f32, 0f32, 0);
            while k < max_iter {
                let y2 = y * y;
                let r2 = x.mul_add(x, y2);
                // setp.gtu: leave when r2 > 4 or unordered (NaN).
                if r2.partial_cmp(&4.0) != Some(std::cmp::Ordering::Less) && r2 != 4.0 {
                    break;
                }
                let xn = cx + (x * x - y2);
                y = (x + x).mul_add(y, cy);
                x = xn;
                k += 1;
            }
            out[py * w + px] = k as u32;
        }
    }
    out
}

#[test]
fn mandelbrot_with_heavy_divergence() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/mandelbrot.ptx"));
    let (w, h, it) = (96usize, 64usize, 200);
    let d = ctx.alloc::<u32>(w * h).unwrap();
    m.function("mandelbrot")
        .unwrap()
        .launch(
            [(w as u32).div_ceil(16), (h as u32).div_ceil(16), 1],
            [16, 16, 1],
            0,
            &[d.arg(), Arg::I32(w as i32), Arg::I32(h as i32), Arg::I32(it)],
        )
        .unwrap();
    let got = d.to_vec().unwrap();
    let want = mandelbrot_ref(w, h, it);
    assert_eq!(got, want);
    assert!(got.contains(&(it as u32)) && got.iter().any(|&k| k < 3), "both escaping and bounded points");
}

#[test]
fn local_arrays_with_dynamic_indexing() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/localarr.ptx"));
    let n = 777usize;
    let idx: Vec<i32> = (0..n as i32).map(|i| (i * 31) % 97).collect();
    let mut di = ctx.alloc::<i32>(n).unwrap();
    let dout = ctx.alloc::<i32>(n).unwrap();
    di.copy_from(&idx).unwrap();
    let f = m.function("local_array").unwrap();
    assert!(f.attributes().local_bytes >= 64);
    f.launch([(n as u32).div_ceil(64), 1, 1], [64, 1, 1], 0, &[di.arg(), dout.arg(), Arg::I32(n as i32)]).unwrap();
    let out = dout.to_vec().unwrap();
    for i in 0..n {
        let a: Vec<i32> = (0..16).map(|k| k * k + i as i32).collect();
        let s: i32 = (0..4).map(|k| a[((idx[i] + 5 * k) & 15) as usize]).sum();
        assert_eq!(out[i], s, "thread {i}");
    }
}

#[test]
fn constant_data_written_through_the_module_global_and_dynamic_shared_memory() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/constdyn.ptx"));
    let coeffs: [f32; 8] = [1.0, -0.5, 0.25, 2.0, -1.0, 0.125, 3.0, -0.75];
    let (ptr, size) = m.global("coeffs").unwrap();
    assert_eq!(size, 32);
    // Write the __constant__ array through its device address, as cuMemcpyHtoD would.
    let bytes: Vec<u8> = coeffs.iter().flat_map(|c| c.to_le_bytes()).collect();
    _d.gpu().memcpy_htod(ctx.handle(), ptr, &bytes).unwrap();
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 / 250.0 - 2.0).collect();
    let mut dx = ctx.alloc::<f32>(n).unwrap();
    let dy = ctx.alloc::<f32>(n).unwrap();
    dx.copy_from(&x).unwrap();
    m.function("poly")
        .unwrap()
        .launch([(n as u32).div_ceil(128), 1, 1], [128, 1, 1], 0, &[dx.arg(), dy.arg(), Arg::I32(n as i32)])
        .unwrap();
    let y = dy.to_vec().unwrap();
    for i in 0..n {
        let mut acc = 0f32;
        for k in (0..8).rev() {
            acc = acc.mul_add(x[i], coeffs[k]);
        }
        assert_eq!(y[i].to_bits(), acc.to_bits(), "poly {i}");
    }
    // Dynamic shared memory sized at launch.
    let (blocks, bs) = (5u32, 96u32);
    let data: Vec<i32> = (0..(blocks * bs) as i32).collect();
    let mut din = ctx.alloc::<i32>(data.len()).unwrap();
    let dout = ctx.alloc::<i32>(data.len()).unwrap();
    din.copy_from(&data).unwrap();
    m.function("reverse_block").unwrap().launch([blocks, 1, 1], [bs, 1, 1], bs * 4, &[din.arg(), dout.arg()]).unwrap();
    let out = dout.to_vec().unwrap();
    for b in 0..blocks as usize {
        for t in 0..bs as usize {
            assert_eq!(out[b * bs as usize + t], data[b * bs as usize + bs as usize - 1 - t]);
        }
    }
    // Too little dynamic shared memory for the block: the kernel traps, the error is sticky.
    m.function("reverse_block").unwrap().launch([1, 1, 1], [bs, 1, 1], 16, &[din.arg(), dout.arg()]).unwrap();
    assert_eq!(ctx.synchronize(), Err(backend_user::CuError::IllegalAddress));
    // memcheck names it: shared accesses past the 16 bytes, in reverse_block.
    let (r, _) = ctx.check_reports().unwrap();
    assert!(!r.is_empty());
    for x in &r {
        let k = (x.record.kind, x.record.space, x.kernel.as_str());
        assert_eq!(k, (runtime_core::check::CheckKind::OutOfBounds, 2, "reverse_block"), "{x}");
        assert!(x.record.addr + x.record.size as u64 > 16, "{x}");
    }
}

fn gcd(mut a: i32, mut b: i32) -> i32 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[test]
fn non_inlined_device_functions_with_parameters_and_return_values() {
    let (_d, ctx, m) = setup(include_str!("../../kernels/devfunc.ptx"));
    let n = 300usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7 + 1).collect();
    let mut din = ctx.alloc::<i32>(n).unwrap();
    let (dg, df, dp) = (ctx.alloc::<i32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<i32>(2 * n).unwrap());
    din.copy_from(&input).unwrap();
    let f = m.function("calls").unwrap();
    f.launch(
        [(n as u32).div_ceil(64), 1, 1],
        [64, 1, 1],
        0,
        &[din.arg(), dg.arg(), df.arg(), dp.arg(), Arg::I32(n as i32)],
    )
    .unwrap();
    let (g, fl, pairs) = (dg.to_vec().unwrap(), df.to_vec().unwrap(), dp.to_vec().unwrap());
    for i in 0..n {
        let v = input[i];
        assert_eq!(g[i], gcd(v, 360), "gcd {i}");
        let want = 0.5f32.mul_add(i as f32, gcd(v, 12) as f32);
        assert_eq!(fl[i].to_bits(), want.to_bits(), "scale {i}: {} vs {want}", fl[i]);
        let s = if v & 1 == 1 { v } else { -v };
        assert_eq!((pairs[2 * i], pairs[2 * i + 1]), (s, -s), "store_twice {i}");
    }
}

#[test]
fn recursion_and_undefined_functions_are_invalid_ptx() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let hdr = ".version 6.4\n.target sm_70\n.address_size 64\n";
    let rec = format!("{hdr}.func f()\n{{\n call.uni f, ();\n ret;\n}}\n.entry k()\n{{\n call.uni f, ();\n ret;\n}}\n");
    assert_eq!(ctx.load_ptx(&rec).err(), Some(backend_user::CuError::InvalidPtx));
    assert!(ptx::compile_ptx(&rec).unwrap_err().msg.contains("recursi"));
    let ext = format!("{hdr}.extern .func g();\n.entry k()\n{{\n call.uni g, ();\n ret;\n}}\n");
    assert!(ptx::compile_ptx(&ext).unwrap_err().msg.contains("not defined"));
    // Dynamic shared memory starts after each kernel's static shared memory, which a
    // function's shared code cannot know: refused by name, not laid out wrongly.
    let dynf = format!(
        "{hdr}.extern .shared .align 4 .b8 dyn[];\n.func f()\n{{\n .reg .u64 %a;\n mov.u64 %a, dyn;\n ret;\n}}\n\
         .entry k()\n{{\n call.uni f, ();\n ret;\n}}\n"
    );
    assert!(ptx::compile_ptx(&dynf).unwrap_err().msg.contains("dynamic shared memory (`dyn`)"));
}

/// Registers of `.func`s (issue 12): a kernel pays for the functions it can reach, its
/// deepest call chain rather than their sum, and scratch registers once.
#[test]
fn a_kernel_pays_registers_only_for_the_call_chain_it_reaches() {
    let hdr = ".version 7.0\n.target sm_70\n.address_size 64\n";
    let (funcs, entry) = (tests::pressure::funcs(), tests::pressure::caller);
    // In the PTX's order, where each function holds its 20 values at once (scheduled, the
    // sums interleave with the chain and need fewer).
    let opts = ptx::Options { schedule: false, ..Default::default() };
    let m = ptx::compile_ptx_with(
        &format!("{hdr}{funcs}{}{}{}", entry("none", &[]), entry("one", &["f"]), entry("three", &["f", "g", "h"])),
        &opts,
    )
    .unwrap();
    let regs = |k: &str| m.kernels.iter().find(|x| x.name == k).unwrap().regs;
    let alone = ptx::compile_ptx_with(&format!("{hdr}{}", entry("none", &[])), &opts).unwrap().kernels[0].regs;
    assert_eq!(regs("none"), alone, "functions the kernel never calls cost nothing");
    assert!(regs("one") > regs("none") + 15, "{} vs {}", regs("one"), regs("none"));
    // Siblings share one frame: three calls cost what the largest does.
    assert_eq!(regs("three"), regs("one"));
    // The frames still compute: run `three`.
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let md = ctx.load_ptx(&format!("{hdr}{funcs}{}", entry("three", &["f", "g", "h"]))).unwrap();
    let out = ctx.alloc::<u32>(1).unwrap();
    md.function("three").unwrap().launch([1, 1, 1], [1, 1, 1], 0, &[out.arg()]).unwrap();
    // Each function maps x to x plus its 19 chain values.
    let step = |x: u32| {
        let (mut v, mut sum) = (x, x);
        for k in 1..20u32 {
            v = v.wrapping_mul(3) ^ k;
            sum = sum.wrapping_add(v);
        }
        sum
    };
    assert_eq!(out.to_vec().unwrap()[0], step(step(step(0))));
}

/// Distance in units in the last place between two finite f32 values.
fn ulps(a: f32, b: f32) -> u32 {
    let key = |f: f32| {
        let i = f.to_bits() as i32;
        if i < 0 { i32::MIN - i } else { i }
    };
    (key(a) as i64 - key(b) as i64).unsigned_abs() as u32
}

#[test]
fn math_functions_within_documented_bounds() {
    // Bounds (PTX ISA 6.4 documents the approximate instructions' error; rgdev meets it):
    // sqrt.rn, rcp.rn, div.rn, min, max and cvt are IEEE-exact; ex2.approx, lg2.approx and
    // rsqrt.approx are within 2 ulp; sin.approx and cos.approx within 2^-20 absolute.
    let (_d, ctx, m) = setup(include_str!("../../kernels/math.ptx"));
    let n = 2000usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 1000.0) / 318.0).collect();
    let mut dx = ctx.alloc::<f32>(n).unwrap();
    let dout = ctx.alloc::<f32>(10 * n).unwrap();
    dx.copy_from(&x).unwrap();
    m.function("math")
        .unwrap()
        .launch([(n as u32).div_ceil(128), 1, 1], [128, 1, 1], 0, &[dx.arg(), dout.arg(), Arg::I32(n as i32)])
        .unwrap();
    let out = dout.to_vec().unwrap();
    let row = |r: usize, i: usize| out[r * n + i];
    for i in 0..n {
        let v = x[i];
        let a = v.abs() + 0.5;
        assert_eq!(row(0, i), a.sqrt(), "sqrt {a}");
        assert!(ulps(row(1, i), (1.0 / (a as f64).sqrt()) as f32) <= 2, "rsqrt {a}");
        let e = v * 0.25 * std::f32::consts::LOG2_E;
        assert!(ulps(row(2, i), (e as f64).exp2() as f32) <= 2, "exp {v}");
        let l = ((a as f64).log2() as f32) * std::f32::consts::LN_2;
        assert!(ulps(row(3, i), l) <= 2 || (row(3, i) - l).abs() < 1e-6, "log {a}: {} vs {l}", row(3, i));
        assert!((row(4, i) as f64 - (v as f64).sin()).abs() <= 2f64.powi(-20), "sin {v}");
        assert!((row(5, i) as f64 - (v as f64).cos()).abs() <= 2f64.powi(-20), "cos {v}");
        assert_eq!(row(6, i), 1.0 / a, "rcp {a}");
        assert_eq!(row(7, i), v.min(0.25) + v.max(-0.25), "min/max {v}");
        assert_eq!(row(8, i), v / a, "div {v}");
        assert_eq!(row(9, i), ((v * 100.0) as i32) as f32 + ((a * 10.0) as u32) as f32, "cvt {v}");
    }
}

#[test]
fn f64_nbody_step() {
    #[repr(C)]
    #[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
    struct Body {
        x: f64,
        y: f64,
        z: f64,
        m: f64,
    }
    let (_d, ctx, m) = setup(include_str!("../../kernels/nbody.ptx"));
    let n = 96usize;
    let mut rng = Rng(77);
    let mut r = || (rng.below(20_000) as f64 - 10_000.0) / 997.0;
    let bodies: Vec<Body> = (0..n).map(|_| Body { x: r(), y: r(), z: r(), m: 1.0 + r().abs() }).collect();
    let vel: Vec<f64> = (0..3 * n).map(|_| r() / 10.0).collect();
    let mut din = ctx.alloc::<Body>(n).unwrap();
    let dout = ctx.alloc::<Body>(n).unwrap();
    let mut dvel = ctx.alloc::<f64>(3 * n).unwrap();
    din.copy_from(&bodies).unwrap();
    dvel.copy_from(&vel).unwrap();
    let dt = 0.01;
    m.function("nbody_step")
        .unwrap()
        .launch(
            [(n as u32).div_ceil(32), 1, 1],
            [32, 1, 1],
            0,
            &[din.arg(), dout.arg(), dvel.arg(), Arg::I32(n as i32), Arg::F64(dt)],
        )
        .unwrap();
    let out = dout.to_vec().unwrap();
    let vout = dvel.to_vec().unwrap();
    // Bound: clang contracts the sums into fma.rn.f64 where this reference does not, so
    // results agree to a relative 1e-12 (about 2^-40), not bit for bit.
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-3);
    for i in 0..n {
        let b = bodies[i];
        let (mut ax, mut ay, mut az) = (0.0, 0.0, 0.0);
        for o in &bodies {
            let (dx, dy, dz) = (o.x - b.x, o.y - b.y, o.z - b.z);
            let d2 = dx * dx + dy * dy + dz * dz + 1e-3;
            let inv = 1.0 / (d2 * d2.sqrt());
            ax += o.m * dx * inv;
            ay += o.m * dy * inv;
            az += o.m * dz * inv;
        }
        let v = [vel[3 * i] + ax * dt, vel[3 * i + 1] + ay * dt, vel[3 * i + 2] + az * dt];
        for k in 0..3 {
            assert!(close(vout[3 * i + k], v[k]), "body {i} v{k}: {} vs {}", vout[3 * i + k], v[k]);
        }
        assert!(
            close(out[i].x, b.x + v[0] * dt) && close(out[i].y, b.y + v[1] * dt) && close(out[i].z, b.z + v[2] * dt),
            "body {i}"
        );
        assert_eq!(out[i].m, b.m);
    }
}

/// The suite's tests, unmodified, on another preset: `on!(module, "preset", "doc")`.
macro_rules! on {
    ($module:ident, $preset:literal, $doc:literal) => {
        on!(
            @ $module, $preset, $doc,
            saxpy_and_daxpy,
            tiled_matrix_multiply_16_and_32,
            warp_shuffle_reduction,
            block_prefix_scan,
            histogram_with_shared_atomics,
            shared_memory_transpose,
            mandelbrot_with_heavy_divergence,
            local_arrays_with_dynamic_indexing,
            constant_data_written_through_the_module_global_and_dynamic_shared_memory,
            non_inlined_device_functions_with_parameters_and_return_values,
            math_functions_within_documented_bounds,
            f64_nbody_step
        );
    };
    (@ $module:ident, $preset:literal, $doc:literal, $($name:ident),*) => {
        #[doc = $doc]
        mod $module {
            $(
                #[test]
                fn $name() {
                    super::PRESET.set($preset);
                    super::$name();
                }
            )*
        }
    };
}

on!(
    unified,
    "gv100x4u",
    "The same tests on one logical GPU made of four (issue 15, item 5): memory split by pages \
     over the four, every grid split by blocks, each test's results checked against the same \
     references as on one GPU, with every sanitizer on."
);
on!(h200, "h200", "The same tests on the H200 preset (Hopper, compute 9.0: issue 39).");
on!(a100, "a100", "The same tests on the A100 preset (Ampere, compute 8.0: issue 39).");
