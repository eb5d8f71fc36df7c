//! Several GPUs: how a fixed amount of work split across 1, 2 and 4 simulated GPUs scales
//! in simulated time (a compute-bound kernel and a memory-bound one, each GPU taking an
//! equal share), and how much the parallel lock step speeds the simulation up on the host
//! (two busy GPUs on 1 host thread and on 2), each a ratio measured in this run.
//! Run: `cargo bench -p backend-user --bench multigpu`.

use backend_user::{Arg, DeviceConfig, DeviceOptions, System, SystemConfig};
#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

/// Compute-bound: `iters` dependent multiply-adds per thread, one store.
const SPIN: &str = r#"
.version 6.4
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 n, .param .u32 iters) {
  .reg .pred %p<3>; .reg .b32 %r<8>; .reg .f32 %f<3>; .reg .b64 %rd<4>;
  ld.param.u32 %r1, [n]; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4; setp.ge.u32 %p1, %r5, %r1; @%p1 bra DONE;
  ld.param.u32 %r6, [iters]; cvt.rn.f32.u32 %f1, %r5; mov.u32 %r7, 0;
LOOP:
  fma.rn.f32 %f1, %f1, 0f3F7FF000, 0f3F800000; add.u32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, %r6; @%p2 bra LOOP;
  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r5, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
DONE:
  ret;
}
"#;

/// The work: a kernel over `total` elements, each GPU of `sys` taking `total / gpus`.
#[derive(Clone, Copy)]
enum Work {
    Compute { total: usize, iters: u32 },
    Memory { total: usize },
}

/// Run `work` split across the GPUs of `sys`: (simulated ns from the first launch to the
/// last GPU's completion, host time).
fn run(sys: &System, work: Work) -> (u64, Duration) {
    let gpus = sys.len();
    let mut launches = Vec::new();
    for dev in sys.devices() {
        let ctx = dev.create_context().unwrap();
        match work {
            Work::Compute { total, iters } => {
                let n = total / gpus;
                let out = ctx.alloc::<f32>(n).unwrap();
                let m = ctx.load_ptx(SPIN).unwrap();
                let f = m.function("spin").unwrap();
                let args = vec![out.arg(), Arg::U32(n as u32), Arg::U32(iters)];
                launches.push((ctx, m, f, n, args, vec![out]));
            }
            Work::Memory { total } => {
                let n = total / gpus;
                let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
                let (mut a, b, c) =
                    (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
                a.copy_from(&x).unwrap();
                let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
                let f = m.function("vecadd").unwrap();
                let args = vec![a.arg(), a.arg(), c.arg(), Arg::I32(n as i32)];
                launches.push((ctx, m, f, n, args, vec![a, b, c]));
            }
        }
    }
    for (ctx, ..) in &launches {
        ctx.synchronize().unwrap();
    }
    let t0 = sys.devices()[0].time_ns();
    let host = Instant::now();
    for (_, _, f, n, args, _) in &launches {
        f.launch([n.div_ceil(256) as u32, 1, 1], [256, 1, 1], 0, args).unwrap();
    }
    for (ctx, ..) in &launches {
        ctx.synchronize().unwrap();
    }
    let host = host.elapsed();
    // One clock: every GPU's time is the system's; the last kernel's end is the work's.
    let end = sys
        .devices()
        .iter()
        .flat_map(|d| {
            let cfg = d.sim().lock().config().clone();
            d.take_kernel_stats().into_iter().map(move |k| cfg.cycles_to_ns(k.end_cycle))
        })
        .max()
        .unwrap_or(t0);
    (end.saturating_sub(t0), host)
}

/// Run `work` whole on one logical GPU over four (`gv100x4u`): one allocation and one
/// launch, which the runtime splits (simulated ns from the launch to the last GPU's part's
/// completion, host time).
fn run_unified(work: Work) -> (u64, Duration) {
    let dev = backend_user::Device::open_unified(SystemConfig::preset("gv100x4u").unwrap(), &DeviceOptions::default())
        .unwrap();
    let ctx = dev.create_context().unwrap();
    let (n, m, f, args, _bufs) = match work {
        Work::Compute { total, iters } => {
            let out = ctx.alloc::<f32>(total).unwrap();
            let m = ctx.load_ptx(SPIN).unwrap();
            let f = m.function("spin").unwrap();
            (total, m, f, vec![out.arg(), Arg::U32(total as u32), Arg::U32(iters)], vec![out])
        }
        Work::Memory { total } => {
            let x: Vec<f32> = (0..total).map(|i| i as f32).collect();
            let (mut a, c) = (ctx.alloc::<f32>(total).unwrap(), ctx.alloc::<f32>(total).unwrap());
            a.copy_from(&x).unwrap();
            let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
            let f = m.function("vecadd").unwrap();
            (total, m, f, vec![a.arg(), a.arg(), c.arg(), Arg::I32(total as i32)], vec![a, c])
        }
    };
    ctx.synchronize().unwrap();
    let sims: Vec<_> = std::iter::once(dev.sim().clone())
        .chain(dev.gpu().members().iter().map(|o| o.platform().device().clone()))
        .collect();
    for s in &sims {
        s.lock().take_kernel_stats();
    }
    let t0 = dev.time_ns();
    let host = Instant::now();
    f.launch([n.div_ceil(256) as u32, 1, 1], [256, 1, 1], 0, &args).unwrap();
    ctx.synchronize().unwrap();
    let host = host.elapsed();
    drop(m);
    let end = sims
        .iter()
        .flat_map(|s| {
            let mut g = s.lock();
            let cfg = g.config().clone();
            g.take_kernel_stats().into_iter().map(move |k| cfg.cycles_to_ns(k.end_cycle)).collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(t0);
    (end.saturating_sub(t0), host)
}

fn system(gpus: usize) -> SystemConfig {
    match gpus {
        1 => SystemConfig::single(DeviceConfig::default()),
        2 => SystemConfig::preset("gv100x2").unwrap(),
        _ => SystemConfig::preset("gv100x4").unwrap(),
    }
}

fn main() {
    let cases = [
        (
            "compute-bound (spin: 256 dependent FMAs per thread, 512 Ki threads)",
            Work::Compute { total: 1 << 19, iters: 256 },
        ),
        ("memory-bound (vector add, 4 Mi f32)", Work::Memory { total: 4 << 20 }),
    ];
    println!(
        "rgdev multi-GPU scaling (gv100; 1 GPU, gv100x2, gv100x4; simulated time from the launches to the last GPU's completion)"
    );
    println!("| kernel | GPUs | simulated | speedup vs 1 GPU | host time |");
    println!("|---|---|---|---|---|");
    for (name, work) in cases {
        let (mut one, mut four) = (0, Duration::ZERO);
        for gpus in [1, 2, 4] {
            let sys = System::open_with(system(gpus), &DeviceOptions::default()).unwrap();
            let (ns, host) = run(&sys, work);
            if gpus == 1 {
                one = ns;
            }
            four = host;
            println!(
                "| {name} | {gpus} | {:.1} us | {:.2}x | {:.0} ms |",
                ns as f64 / 1e3,
                one as f64 / ns.max(1) as f64,
                host.as_secs_f64() * 1e3
            );
        }
        // The same whole kernel on one logical GPU over four: the runtime splits it.
        let (ns, host) = run_unified(work);
        println!(
            "| {name} | 4 as one (gv100x4u) | {:.1} us | {:.2}x | {:.0} ms ({:.2}x the hand-split 4's) |",
            ns as f64 / 1e3,
            one as f64 / ns.max(1) as f64,
            host.as_secs_f64() * 1e3,
            host.as_secs_f64() / four.as_secs_f64().max(1e-9)
        );
    }
    // The parallel simulator: two busy GPUs, the same work on 1 and on 2 host threads.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let work = Work::Compute { total: 1 << 19, iters: 256 };
    let host = |threads: usize| {
        let mut sim = 0;
        let d = common::best(3, || {
            let sys = System::open_with(system(2), &DeviceOptions::default()).unwrap();
            sys.clock().set_threads(threads);
            let (ns, _) = run(&sys, work);
            sim = ns;
        });
        (d, sim)
    };
    let (seq, sim1) = host(1);
    let (par, sim2) = host(2);
    println!();
    println!("parallel lock step, 2 GPUs busy ({cores} host cores; best of 3 runs, each building the system):");
    println!("| host threads | host time | simulated | speedup |");
    println!("|---|---|---|---|");
    println!("| 1 | {:.0} ms | {:.1} us | 1.00x |", seq.as_secs_f64() * 1e3, sim1 as f64 / 1e3);
    println!(
        "| 2 | {:.0} ms | {:.1} us | {:.2}x |",
        par.as_secs_f64() * 1e3,
        sim2 as f64 / 1e3,
        seq.as_secs_f64() / par.as_secs_f64()
    );
    assert_eq!(sim1, sim2, "the parallel simulation's cycles are the sequential one's");
}
