//! Systems of several GPUs (issue 15, item 1): each GPU its own PCI function with its own
//! BARs, VRAM, engines and clock, brought up by its own runtime instance; the system
//! presets' topologies; disjoint addresses with lookups by address.

use backend_user::{Arg, DeviceOptions, System, SystemConfig};
use fake_pci::system::Path;
use runtime_core::{FuncHandle, Pitched};

fn open(name: &str) -> System {
    let cfg = SystemConfig::preset(name).unwrap();
    // Functional mode: these tests check placement and independence, not timing.
    let cfg = SystemConfig {
        gpus: cfg.gpus.iter().map(|g| g.clone().with(|c| c.mode = fake_pci::config::Mode::Functional)).collect(),
        ..cfg
    };
    System::open_with(cfg, &DeviceOptions::default()).unwrap()
}

#[test]
fn two_gpus_are_two_pci_functions_with_their_own_bars_memory_and_clock() {
    let sys = open("gv100x2");
    assert_eq!(sys.len(), 2);
    let (a, b) = (&sys.devices()[0], &sys.devices()[1]);
    // Each probed through its own configuration space, at its own place.
    assert_eq!((a.pci_bus_id(), b.pci_bus_id()), ("0000:00:00.0".to_string(), "0000:01:00.0".to_string()));
    assert_eq!(a.info().bar0.0, hw::pci::BAR0_BUS);
    assert_eq!(b.info().bar0.0, hw::pci::BAR0_BUS - (16 << 20));
    assert_eq!(b.info().bar1.0, hw::pci::BAR1_BUS + (64 << 30));
    assert_eq!(a.info().vram_size, b.info().vram_size);
    // Work on one GPU is that GPU's alone: its copy engine, its SMs, its clock.
    let vecadd = include_str!("../../kernels/vecadd.ptx");
    let b_cycles = b.sim().lock().cycles();
    let run = |dev: &backend_user::Device, scale: f32| {
        let ctx = dev.create_context().unwrap();
        let n = 4096;
        let x: Vec<f32> = (0..n).map(|i| i as f32 * scale).collect();
        let (mut p, mut q, r) =
            (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
        p.copy_from(&x).unwrap();
        q.copy_from(&x).unwrap();
        let m = ctx.load_ptx(vecadd).unwrap();
        let args = [p.arg(), q.arg(), r.arg(), Arg::I32(n as i32)];
        m.function("vecadd").unwrap().launch([16, 1, 1], [256, 1, 1], 0, &args).unwrap();
        let out = r.to_vec().unwrap();
        assert!(out.iter().zip(&x).all(|(o, v)| *o == 2.0 * v));
        let copies = dev.sim().lock().stats().copies;
        (p, copies, ctx)
    };
    let (pa, copies_a, _ca) = run(a, 1.0);
    // One clock (stepped mode): GPU 1's time went on with GPU 0's, with nothing to do.
    let (a_now, b_now) = (a.sim().lock().cycles(), b.sim().lock().cycles());
    assert!(a_now > b_cycles && b_now == a_now, "GPU 1's clock {b_now} follows GPU 0's {a_now}");
    assert_eq!(b.sim().lock().stats().copies, 0);
    assert_eq!(b.sim().lock().stats().methods, 0, "GPU 1 fetched no work for GPU 0's");
    let (pb, copies_b, _cb) = run(b, 3.0);
    assert!(copies_a > 0 && copies_b == copies_a, "each GPU's copy engine did its own copies");
    // Live allocations of two GPUs never share an address (one unified range).
    assert_ne!(pa.device_ptr(), pb.device_ptr());
}

/// The GPUs of a system share one clock: waiting on one GPU runs the others to the same
/// time, so work on GPU 0 finishes while the host waits on GPU 1, and every kernel's
/// cycles are the same whichever GPU the host waits on first.
#[test]
fn waiting_on_one_gpu_runs_the_others_in_lockstep() {
    let vecadd = include_str!("../../kernels/vecadd.ptx");
    // (kernel start and end cycles on each GPU, both clocks after the wait).
    let run = |wait_on: usize| {
        // Apart from the unified range, which parallel tests move allocations in.
        let opts = DeviceOptions { separate_va: true, ..DeviceOptions::default() };
        let sys = System::open_with(SystemConfig::preset("gv100x2").unwrap(), &opts).unwrap();
        let mut keep = Vec::new();
        let mut fences = Vec::new();
        for (i, dev) in sys.devices().iter().enumerate() {
            let ctx = dev.create_context().unwrap();
            // GPU 0 gets the smaller grid, so it is done before GPU 1.
            let n = 4096 * (i + 1);
            let x: Vec<f32> = (0..n).map(|v| v as f32).collect();
            let (mut p, r) = (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
            p.copy_from(&x).unwrap();
            let m = ctx.load_ptx(vecadd).unwrap();
            let args = [p.arg(), p.arg(), r.arg(), Arg::I32(n as i32)];
            let f = m.function("vecadd").unwrap().launch([n as u32 / 256, 1, 1], [256, 1, 1], 0, &args).unwrap();
            fences.push((ctx.clone(), f));
            keep.push((ctx, m, p, r));
        }
        let (ctx, f) = &fences[wait_on];
        ctx.wait(*f).unwrap();
        let clocks: Vec<u64> = sys.devices().iter().map(|d| d.sim().lock().cycles()).collect();
        // Then wait for everything: both kernels' records.
        for (ctx, _) in &fences {
            ctx.synchronize().unwrap();
        }
        let spans: Vec<Vec<(u64, u64)>> = sys
            .devices()
            .iter()
            .map(|d| d.take_kernel_stats().iter().map(|k| (k.start_cycle, k.end_cycle)).collect())
            .collect();
        (spans, clocks)
    };
    let (spans1, clocks1) = run(1);
    assert_eq!(clocks1[0], clocks1[1], "one clock");
    assert_eq!(spans1[0].len(), 1, "GPU 0's kernel ran while the host waited on GPU 1");
    assert!(spans1[0][0].1 <= clocks1[0] && spans1[1][0].1 <= clocks1[1]);
    let (spans0, clocks0) = run(0);
    assert_eq!(clocks0[0], clocks0[1]);
    assert!(clocks0[0] < clocks1[0], "waiting on the smaller grid ends sooner");
    assert_eq!(spans0, spans1, "the same cycles whichever GPU was waited on");
}

/// The same with peer traffic (GPU 1's kernel reads GPU 0's VRAM over the link), which
/// runs slices open and closed (`fake_pci::machine`): whichever GPU the host waits on first,
/// and so whichever GPU's idleness ends a step, every kernel starts and ends at the same
/// cycles.
#[test]
fn waiting_on_either_gpu_gives_the_same_cycles_with_peer_traffic() {
    let vecadd = include_str!("../../kernels/vecadd.ptx");
    let run = |wait_on: usize| {
        let opts = DeviceOptions { separate_va: true, ..DeviceOptions::default() };
        let cfg = SystemConfig::preset("gv100x2").unwrap();
        let sys = System::open_with(cfg.clone(), &opts).unwrap();
        let (d0, d1) = (&sys.devices()[0], &sys.devices()[1]);
        let (c0, c1) = (d0.create_context().unwrap(), d1.create_context().unwrap());
        let n = 8192usize;
        let x: Vec<f32> = (0..n).map(|v| v as f32).collect();
        let mut p0 = c0.alloc::<f32>(n).unwrap();
        p0.copy_from(&x).unwrap();
        let r0 = c0.alloc::<f32>(n).unwrap();
        // GPU 1's own buffers above the addresses of GPU 0's, which it maps at theirs (the
        // module it loads then may not take them: each context has an address space of its
        // own here).
        let hole = c1.alloc::<f32>(1 << 20).unwrap();
        let (mut p1, r1) = (c1.alloc::<f32>(n).unwrap(), c1.alloc::<f32>(n).unwrap());
        p1.copy_from(&x).unwrap();
        drop(hole);
        let (g0, g1) = (d0.gpu(), d1.gpu());
        g1.peer_set(0, Some(cfg.routing_id(0))).unwrap();
        for (va, phys, bytes) in g0.mem_user_vram(c0.handle()).unwrap() {
            g1.mem_map_peer(c1.handle(), va, phys, bytes, 0).unwrap();
        }
        let (m0, m1) = (c0.load_ptx(vecadd).unwrap(), c1.load_ptx(vecadd).unwrap());
        let launch = |m: &backend_user::Module, args: &[Arg], blocks: usize| {
            m.function("vecadd").unwrap().launch([blocks as u32, 1, 1], [256, 1, 1], 0, args).unwrap()
        };
        // GPU 1's kernel reads GPU 0's buffer over the link (and ends later).
        let f0 = launch(&m0, &[p0.arg(), p0.arg(), r0.arg(), Arg::I32(n as i32)], n / 256);
        let f1 = launch(&m1, &[p0.arg(), p1.arg(), r1.arg(), Arg::I32(n as i32)], n / 256);
        let fences = [(&c0, f0), (&c1, f1)];
        fences[wait_on].0.wait(fences[wait_on].1).unwrap();
        for (c, _) in &fences {
            c.synchronize().unwrap();
        }
        assert_eq!(r1.to_vec().unwrap(), x.iter().map(|v| 2.0 * v).collect::<Vec<f32>>());
        let stats: Vec<Vec<(u64, u64, u64)>> = sys
            .devices()
            .iter()
            .map(|d| d.take_kernel_stats().iter().map(|k| (k.start_cycle, k.end_cycle, k.peer_read_bytes)).collect())
            .collect();
        stats
    };
    let first = run(0);
    assert_eq!(first[1][0].2, 4 * 8192, "GPU 1 read GPU 0's buffer over the link");
    assert_eq!(run(1), first, "the same cycles whichever GPU was waited on");
}

/// Peer access at the Rust level: GPU 0's context maps GPU 1's buffers through peer PTEs
/// (the peer table names GPU 1's routing id); its kernels load and store GPU 1's VRAM, its
/// copy engine copies into it over the link (a PtoP copy); peer loads cost the link's
/// latency; without the peer table entry the same access faults, in GPU 0's context only.
#[test]
fn a_gpu_reaches_its_peers_memory_through_peer_ptes() {
    let vecadd = include_str!("../../kernels/vecadd.ptx");
    let cfg = SystemConfig::preset("gv100x2").unwrap();
    let sys = System::open_with(cfg.clone(), &DeviceOptions::default()).unwrap();
    let (a, b) = (&sys.devices()[0], &sys.devices()[1]);
    let (ca, cb) = (a.create_context().unwrap(), b.create_context().unwrap());
    let n = 1 << 14;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut remote = cb.alloc::<f32>(n).unwrap();
    remote.copy_from(&x).unwrap();
    let out_remote = cb.alloc::<f32>(n).unwrap();
    let (mut local, out_local) = (ca.alloc::<f32>(n).unwrap(), ca.alloc::<f32>(n).unwrap());
    local.copy_from(&x).unwrap();
    let m = ca.load_ptx(vecadd).unwrap();
    let f = m.function("vecadd").unwrap();
    let run = |p: u64, q: u64, r: u64| {
        let args = [Arg::U64(p), Arg::U64(q), Arg::U64(r), Arg::I32(n as i32)];
        f.launch([n as u32 / 256, 1, 1], [256, 1, 1], 0, &args).and_then(|_| ca.synchronize())
    };
    // No peer table entry yet: the peer PTEs lead nowhere, the kernel faults in GPU 0.
    let (ga, gb) = (a.gpu(), b.gpu());
    for (va, phys, bytes) in gb.mem_user_vram(cb.handle()).unwrap() {
        ga.mem_map_peer(ca.handle(), va, phys, bytes, 1).unwrap();
    }
    assert!(run(remote.device_ptr(), local.device_ptr(), out_local.device_ptr()).is_err(), "no entry: a fault");
    assert!(cb.synchronize().is_ok(), "GPU 1's context is untouched");
    // The entry names GPU 1: loads and stores reach its VRAM.
    let (ca, cb) = (a.create_context().unwrap(), cb);
    let m = ca.load_ptx(vecadd).unwrap();
    let f = m.function("vecadd").unwrap();
    let (mut local, out_local) = (ca.alloc::<f32>(n).unwrap(), ca.alloc::<f32>(n).unwrap());
    local.copy_from(&x).unwrap();
    ga.peer_set(1, Some(cfg.routing_id(1))).unwrap();
    for (va, phys, bytes) in gb.mem_user_vram(cb.handle()).unwrap() {
        ga.mem_map_peer(ca.handle(), va, phys, bytes, 1).unwrap();
    }
    let run = |p: u64, q: u64, r: u64| {
        let args = [Arg::U64(p), Arg::U64(q), Arg::U64(r), Arg::I32(n as i32)];
        f.launch([n as u32 / 256, 1, 1], [256, 1, 1], 0, &args).unwrap();
        ca.synchronize().unwrap();
        a.take_kernel_stats().pop().unwrap()
    };
    let near = run(local.device_ptr(), local.device_ptr(), out_local.device_ptr());
    let far = run(remote.device_ptr(), local.device_ptr(), out_remote.device_ptr());
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
    assert_eq!(out_remote.to_vec().unwrap(), want, "GPU 0's kernel read and wrote GPU 1's VRAM");
    assert_eq!((near.peer_read_bytes, near.peer_write_bytes), (0, 0));
    assert_eq!((far.peer_read_bytes, far.peer_write_bytes), (4 * n as u64, 4 * n as u64));
    assert!(far.cycles() > near.cycles() + 1000, "peer loads wait for the link: {} vs {}", far.cycles(), near.cycles());
    // GPU 0's copy engine writes GPU 1's VRAM over the link.
    let y: Vec<f32> = (0..n).map(|i| -(i as f32)).collect();
    local.copy_from(&y).unwrap();
    a.take_copy_stats();
    ca.default_stream().copy_async(remote.device_ptr(), local.device_ptr(), 4 * n as u64).unwrap();
    ca.synchronize().unwrap();
    assert_eq!(remote.to_vec().unwrap(), y);
    let c = a.take_copy_stats().pop().unwrap();
    assert_eq!((c.kind.name(), c.path), ("PtoP", fake_pci::config::CopyPath::Peer));
    // 64 KiB over PCIe at 12 GB/s: more than 5 us of the link, as the preset says.
    let ns = a.sim().lock().config().cycles_to_ns(c.end_cycle - c.start_cycle);
    assert!(ns > 5_000, "{ns} ns");
    // Unmapped again: the pointer is no longer GPU 0's to reach.
    ga.mem_unmap_foreign(ca.handle(), remote.device_ptr()).unwrap();
    assert!(ga.mem_unmap_foreign(ca.handle(), remote.device_ptr()).is_err());
}

/// The parallel lock step gives the sequential one's cycles and results exactly: four GPUs
/// each running kernels, two of them peers (one group, one thread), on 1, 2 and 4 host
/// threads. Each run is a process of its own (this test binary, running
/// `parallel_simulation_child`): the unified address range is the process's, and tests
/// running beside each other would move allocations, and with them cache placement.
#[test]
fn parallel_simulation_is_exactly_the_sequential_one() {
    let run = |threads: usize| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["parallel_simulation_child", "--exact", "--nocapture", "--test-threads=1"])
            .env("RGDEV_TEST_SIM_THREADS", threads.to_string())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
        text.lines().find(|l| l.starts_with("RUN ")).expect("the child's result").to_string()
    };
    let one = run(1);
    assert!(one.contains("peer_read_bytes 9216"), "the sum read GPU 1's memory over the link: {one}");
    for threads in [2, 4] {
        assert_eq!(run(threads), one, "{threads} threads: the same results and cycles");
    }
}

/// The workload of `parallel_simulation_is_exactly_the_sequential_one`, on the host
/// threads `RGDEV_TEST_SIM_THREADS` says (does nothing without it): prints one line of
/// every result and kernel record.
#[test]
fn parallel_simulation_child() {
    let Some(threads) = std::env::var("RGDEV_TEST_SIM_THREADS").ok().and_then(|t| t.parse::<usize>().ok()) else {
        return;
    };
    let matmul = include_str!("../../kernels/matmul.ptx");
    let vecadd = include_str!("../../kernels/vecadd.ptx");
    let run = |threads: usize| {
        let cfg = SystemConfig::preset("gv100x4").unwrap();
        let opts = DeviceOptions { separate_va: false, ..DeviceOptions::default() };
        let sys = System::open_with(cfg.clone(), &opts).unwrap();
        sys.clock().set_threads(threads);
        let mut keep = Vec::new();
        let mut outs = Vec::new();
        let n = 48usize;
        for (g, dev) in sys.devices().iter().enumerate() {
            let ctx = dev.create_context().unwrap();
            let a: Vec<f32> = (0..n * n).map(|i| ((i * (g + 3)) % 17) as f32 - 8.0).collect();
            let (mut pa, pc) = (ctx.alloc::<f32>(n * n).unwrap(), ctx.alloc::<f32>(n * n).unwrap());
            pa.copy_from(&a).unwrap();
            let m = ctx.load_ptx(matmul).unwrap();
            let f = m.function("matmul16").unwrap();
            let args = [pa.arg(), pa.arg(), pc.arg(), Arg::I32(n as i32)];
            f.launch([3, 3, 1], [16, 16, 1], 0, &args).unwrap();
            outs.push(pc);
            keep.push((ctx, m, pa));
        }
        // GPU 0 reads GPU 1's result through a peer mapping, on the same stream order.
        let (ga, gb) = (sys.devices()[0].gpu(), sys.devices()[1].gpu());
        let (c0, c1) = (keep[0].0.handle(), keep[1].0.handle());
        ga.peer_set(1, Some(cfg.routing_id(1))).unwrap();
        for (va, phys, bytes) in gb.mem_user_vram(c1).unwrap() {
            ga.mem_map_peer(c0, va, phys, bytes, 1).unwrap();
        }
        let m = keep[0].0.load_ptx(vecadd).unwrap();
        let sum = keep[0].0.alloc::<f32>(n * n).unwrap();
        let args = [outs[0].arg(), outs[1].arg(), sum.arg(), Arg::I32((n * n) as i32)];
        m.function("vecadd").unwrap().launch([9, 1, 1], [256, 1, 1], 0, &args).unwrap();
        for (ctx, ..) in &keep {
            ctx.synchronize().unwrap();
        }
        let results: Vec<Vec<f32>> = outs.iter().chain([&sum]).map(|b| b.to_vec().unwrap()).collect();
        let stats: Vec<Vec<(u64, u64, u64, u64)>> = sys
            .devices()
            .iter()
            .map(|d| {
                let ks = d.take_kernel_stats();
                ks.iter().map(|k| (k.start_cycle, k.end_cycle, k.warp_instructions, k.peer_read_bytes)).collect()
            })
            .collect();
        (results, stats)
    };
    let (results, stats) = run(threads);
    assert_eq!(stats[0].len(), 2, "GPU 0 ran its matmul and the peer sum");
    let bits: Vec<Vec<u32>> = results.iter().map(|r| r.iter().map(|v| v.to_bits()).collect()).collect();
    println!("\nRUN peer_read_bytes {} kernels {stats:?} results {bits:?}", stats[0][1].3);
}

/// Every handle names its GPU: a context's, its streams' and modules', and a handle of
/// one GPU is not a context of another.
#[test]
fn handles_carry_their_gpu() {
    let sys = open("gv100x4");
    let ctxs: Vec<_> = sys.devices().iter().map(|d| d.gpu().ctx_create().unwrap()).collect();
    for (i, (d, &h)) in sys.devices().iter().zip(&ctxs).enumerate() {
        assert_eq!(runtime_core::ordinal_of(h.0), i as u32);
        assert_eq!(d.gpu().ordinal(), i as u32);
        let s = d.gpu().stream_create(h, false, 0).unwrap();
        assert_eq!(runtime_core::ordinal_of(s.0), i as u32);
        let other = ctxs[(i + 1) % ctxs.len()];
        assert_eq!(d.gpu().ctx_synchronize(other), Err(backend_user::CuError::InvalidContext));
        d.gpu().stream_destroy(h, s).unwrap();
    }
    let hs: std::collections::HashSet<u64> = ctxs.iter().map(|h| h.0).collect();
    assert_eq!(hs.len(), 4, "the first context of each GPU has its own handle");
    for (d, h) in sys.devices().iter().zip(ctxs) {
        d.gpu().ctx_destroy(h).unwrap();
    }
}

#[test]
fn system_presets_have_their_topologies() {
    let dgx = SystemConfig::preset("dgx1").unwrap();
    dgx.validate().unwrap();
    assert_eq!(dgx.len(), 8);
    // The hybrid cube-mesh: GPUs 0-3 and 4-7 fully connected, plus i to i+4.
    for i in 0..8 {
        for j in 0..8 {
            let linked = i != j && (i / 4 == j / 4 || i % 4 == j % 4);
            assert_eq!(matches!(dgx.path(i, j), Path::NvLink(_)), linked, "GPU{i} GPU{j}");
        }
    }
    assert_eq!(dgx.path(1, 6), Path::Sys, "across the sockets without a link");
    let x4 = SystemConfig::preset("gv100x4").unwrap();
    assert_eq!((x4.path(0, 1), x4.path(1, 2)), (Path::Pix, Path::Phb));
    assert!(x4.peer_latency_ns(1, 2) > x4.peer_latency_ns(0, 1));
    assert_eq!(SystemConfig::preset("gv100x2").unwrap().path(0, 1), Path::Pix);
}

#[test]
fn eight_gpus_come_up_at_disjoint_addresses() {
    let sys = open("dgx1");
    let cfg = sys.config();
    let mut bars: Vec<u64> = Vec::new();
    for (i, d) in sys.devices().iter().enumerate() {
        let (b0, b1) = (d.info().bar0.0, d.info().bar1.0);
        assert_eq!(cfg.gpu_of_bus(b0), Some(i));
        assert_eq!(cfg.gpu_of_bus(b1 + d.info().bar1.1 - 1), Some(i));
        let p = d.placement();
        assert_eq!(cfg.gpu_of_phys(p.vram_base + 12345), Some((i, 12345)));
        bars.extend([b0, b1]);
        assert_eq!(d.pci_bus_id(), format!("0000:{i:02x}:00.0"));
    }
    bars.sort_unstable();
    bars.dedup();
    assert_eq!(bars.len(), 16);
}

#[test]
fn a_system_is_not_a_device_and_bad_systems_are_refused() {
    let e = backend_user::preset::load("dgx1").unwrap_err();
    assert!(e.contains("system of 8 GPUs"), "{e}");
    let mut bad = SystemConfig::preset("gv100x2").unwrap();
    bad.interconnect.nvlinks.push((0, 5, 1));
    assert!(System::open_with(bad, &DeviceOptions::default()).is_err());
}

/// The unified 4-GPU device (`gv100x4u`, issue 15 item 5), functional mode unless `timing`.
fn unified(timing: bool) -> backend_user::Device {
    let mut cfg = SystemConfig::preset("gv100x4u").unwrap();
    if !timing {
        cfg.gpus.iter_mut().for_each(|g| g.mode = fake_pci::config::Mode::Functional);
    }
    backend_user::Device::open_unified(cfg, &DeviceOptions::default()).unwrap()
}

#[test]
fn one_logical_gpu_splits_memory_by_pages_and_grids_by_blocks() {
    let dev = unified(true);
    let others = dev.gpu().members();
    assert_eq!(others.len(), 3, "one device standing for four");
    let sims: Vec<_> =
        std::iter::once(dev.sim().clone()).chain(others.iter().map(|o| o.platform().device().clone())).collect();
    let free = |i: usize| if i == 0 { dev.gpu().mem_info().0 } else { others[i - 1].mem_info().0 };
    let before: Vec<u64> = (0..4).map(free).collect();
    let ctx = dev.create_context().unwrap();
    let n = 1 << 18; // 1 MiB of f32: 256 pages, 64 on each GPU
    let (mut a, mut b) = (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
    let c = ctx.alloc::<f32>(n).unwrap();
    let used: Vec<u64> = (0..4).map(|i| before[i] - free(i)).collect();
    for (i, u) in used.iter().enumerate() {
        // The three 1 MiB buffers, a quarter on each GPU, plus each GPU's context.
        assert!((3 * (256 << 10)..3 * (256 << 10) + (8 << 20)).contains(u), "GPU {i} holds {u} bytes");
    }
    for s in &sims {
        s.lock().take_copy_stats();
        s.lock().take_kernel_stats();
    }
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    a.copy_from(&x).unwrap();
    b.copy_from(&y).unwrap();
    // Each GPU's copy engine wrote its own pieces: a quarter of each buffer.
    for (i, s) in sims.iter().enumerate() {
        let copies = s.lock().take_copy_stats();
        let to_vram: Vec<u64> =
            copies.iter().filter(|c| c.kind == fake_pci::copy::CopyKind::HtoD).map(|c| c.bytes).collect();
        assert_eq!(to_vram.iter().sum::<u64>(), 2 * (256 << 10), "GPU {i}: {copies:?}");
    }
    let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
    let blocks = (n as u32).div_ceil(256);
    m.function("vecadd")
        .unwrap()
        .launch([blocks, 1, 1], [256, 1, 1], 0, &[a.arg(), b.arg(), c.arg(), Arg::I32(n as i32)])
        .unwrap();
    let out = c.to_vec().unwrap();
    assert!((0..n).all(|i| out[i] == x[i] + y[i]));
    // Four pieces of the grid, a contiguous quarter each, the first on the first GPU.
    for (i, s) in sims.iter().enumerate() {
        let k = s.lock().take_kernel_stats();
        assert_eq!(k.len(), 1, "GPU {i}");
        assert_eq!((k[0].grid, k[0].blocks), ([blocks, 1, 1], (i as u64 * 256, 256)), "GPU {i}");
        assert!(k[0].warp_instructions > 0, "GPU {i} ran its blocks");
        // Its blocks read and wrote its own quarter: no traffic over the links.
        assert_eq!(k[0].peer_read_bytes + k[0].peer_write_bytes, 0, "GPU {i}");
    }
    // Stream-ordered copies and memsets: each quarter by its owner's copy engine, locally.
    let (h, s) = (ctx.handle(), runtime_core::StreamHandle::DEFAULT);
    let gpu = dev.gpu();
    gpu.memset(h, s, c.device_ptr(), runtime_core::MemsetValue::U32(7), n as u64).unwrap();
    gpu.memcpy(h, s, b.device_ptr(), c.device_ptr(), 4 * n as u64).unwrap();
    assert!(b.to_vec().unwrap().iter().all(|&v| v.to_bits() == 7));
    for (i, s) in sims.iter().enumerate() {
        let copies = s.lock().take_copy_stats();
        let mine = |k: fake_pci::copy::CopyKind| copies.iter().filter(|c| c.kind == k).map(|c| c.bytes).sum::<u64>();
        use fake_pci::copy::CopyKind::{DtoD, Memset, PtoP};
        assert_eq!((mine(Memset), mine(DtoD), mine(PtoP)), (256 << 10, 256 << 10, 0), "GPU {i}: {copies:?}");
    }
    // 2D ones too: 255 rows of 3 KiB, 4 KiB apart, from 2 KiB into the buffer, so that
    // the row at the end of each quarter straddles two GPUs' pieces: each GPU's whole
    // rows are one 2D job of its engine, a straddling row a linear job on each side.
    let (pitch, row, rows, off) = (4096u64, 3072u64, 255u64, 2048u64);
    gpu.memset_2d(h, s, c.device_ptr() + off, pitch, runtime_core::MemsetValue::U8(9), (row, rows)).unwrap();
    let shape = Pitched { width: row, height: rows, src_pitch: pitch, dst_pitch: pitch };
    gpu.memcpy_2d(h, s, a.device_ptr() + off, c.device_ptr() + off, shape).unwrap();
    let mut host = vec![0u8; (pitch * rows) as usize];
    gpu.memcpy_dtoh_2d(h, &mut host, a.device_ptr() + off, shape).unwrap();
    assert!(host.chunks(pitch as usize).all(|r| r[..row as usize].iter().all(|&v| v == 9)));
    host.iter_mut().for_each(|v| *v = 5);
    gpu.memcpy_htod_2d(h, b.device_ptr() + off, &host, shape).unwrap();
    let inside = |at: u64| at >= off && (at - off) % pitch < row && (at - off) / pitch < rows;
    let got = b.to_vec().unwrap();
    assert!((0..n).all(|i| got[i].to_bits() == if inside(4 * i as u64) { 0x0505_0505 } else { 7 }));
    for (i, s) in sims.iter().enumerate() {
        let copies = s.lock().take_copy_stats();
        let mine = |k: fake_pci::copy::CopyKind| copies.iter().filter(|c| c.kind == k).map(|c| c.bytes).sum::<u64>();
        use fake_pci::copy::CopyKind::{DtoD, DtoH, HtoD, Memset, PtoP};
        // The region's bytes in this GPU's quarter.
        let quarter = (i as u64 * (256 << 10)..(i as u64 + 1) * (256 << 10)).filter(|&at| inside(at)).count() as u64;
        let each = (mine(Memset), mine(DtoD), mine(DtoH), mine(HtoD), mine(PtoP));
        // (and the check's linear read of `b`, a quarter of 1 MiB).
        assert_eq!(each, (quarter, quarter, quarter + (256 << 10), quarter, 0), "GPU {i}: {copies:?}");
    }
}

#[test]
fn a_fault_in_another_gpus_part_of_a_grid_is_the_grids_error() {
    let dev = unified(false);
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
    let a = ctx.alloc::<f32>(8192).unwrap();
    let c = ctx.alloc::<f32>(4096).unwrap();
    // 17 blocks of 256 threads with n = 4352: block 16, the last GPU's, writes 64 floats
    // past `c`, where nothing is mapped.
    m.function("vecadd")
        .unwrap()
        .launch([17, 1, 1], [256, 1, 1], 0, &[a.arg(), a.arg(), c.arg(), Arg::I32(4352)])
        .unwrap();
    assert_eq!(ctx.synchronize(), Err(runtime_core::CuError::IllegalAddress));
    assert_eq!(ctx.synchronize(), Err(runtime_core::CuError::IllegalAddress), "sticky, as in CUDA");
    // The first GPU's part ran to its end; the fourth GPU's failed.
    let failed = |s: &std::sync::Arc<backend_user::SimDevice>| s.lock().take_kernel_stats().iter().any(|k| k.failed);
    let others = dev.gpu().members();
    assert!(!failed(dev.sim()) && failed(others[2].platform().device()));
}

#[test]
fn one_logical_gpu_is_deterministic() {
    let run = || {
        let dev = unified(true);
        let ctx = dev.create_context().unwrap();
        let n = 50_000usize;
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
        let mut a = ctx.alloc::<f32>(n).unwrap();
        a.copy_from(&x).unwrap();
        let c = ctx.alloc::<f32>(n).unwrap();
        let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
        let f = m.function("vecadd").unwrap();
        for _ in 0..3 {
            f.launch(
                [(n as u32).div_ceil(128), 1, 1],
                [128, 1, 1],
                0,
                &[a.arg(), a.arg(), c.arg(), Arg::I32(n as i32)],
            )
            .unwrap();
        }
        let out = c.to_vec().unwrap();
        let mut cycles = vec![dev.sim().lock().cycles()];
        cycles.extend(dev.gpu().members().iter().map(|o| o.platform().device().lock().cycles()));
        (out, cycles)
    };
    let (a, b) = (run(), run());
    assert!(a.0.iter().enumerate().all(|(i, &v)| v == 2.0 * (i % 97) as f32));
    assert_eq!(a, b, "the same results and cycles on every GPU");
}

/// A runtime call's result.
type CuResult = runtime_core::Result<()>;

/// On one logical GPU: the legacy launch (cuFuncSetBlockShape, cuParamSet*,
/// cuLaunchGrid) of `f` (`k(pointers..., u32 n)`) over `n` threads with `ptrs`, then a
/// synchronization: its result.
fn legacy_launch(
    dev: &backend_user::Device,
    ctx: &backend_user::Context,
    f: FuncHandle,
    ptrs: &[u64],
    n: usize,
) -> CuResult {
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let mut p: Vec<u8> = ptrs.iter().flat_map(|d| d.to_le_bytes()).collect();
    p.extend((n as u32).to_le_bytes());
    gpu.func_set_block_shape(h, f, [256, 1, 1])?;
    gpu.param_set_size(h, f, p.len() as u32)?;
    gpu.param_set(h, f, 0, &p)?;
    gpu.launch_grid(h, f, [n.div_ceil(256) as u32, 1])?;
    ctx.synchronize()
}

/// `n` floats at device pointer `ptr` of context `ctx`.
fn read_f32(dev: &backend_user::Device, ctx: &backend_user::Context, ptr: u64, n: usize) -> Vec<f32> {
    let mut out = vec![0u8; 4 * n];
    dev.gpu().memcpy_dtoh(ctx.handle(), &mut out, ptr).unwrap();
    out.chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

/// One logical GPU runs the VMM API (a physical allocation is the first GPU's, mapped
/// into the others where the first GPU maps it, with its access), the legacy launch (its
/// grid split as cuLaunchKernel's), low (32-bit) allocations and texture references.
#[test]
fn one_logical_gpu_runs_the_vmm_and_legacy_apis() {
    use runtime_core::{Access, CuError};
    let dev = unified(false);
    let gpu = dev.gpu();
    let vecadd = |ctx: &backend_user::Context| {
        let m = gpu.module_load_ptx(ctx.handle(), include_str!("../../kernels/vecadd.ptx")).unwrap();
        gpu.module_get_function(ctx.handle(), m, "vecadd").unwrap()
    };
    // Inputs 0, 1, 2, ... twice: the sum is 2i.
    let inputs = |ctx: &backend_user::Context, n: usize| {
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let (mut a, mut b) = (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
        a.copy_from(&x).unwrap();
        b.copy_from(&x).unwrap();
        (a, b)
    };
    let doubled = |v: Vec<f32>| v.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32);

    // VMM: four parts of a kernel write a mapping, then fault on it read-only.
    let ctx = dev.create_context().unwrap();
    let (h, n) = (ctx.handle(), 16384usize);
    let bytes = 4 * n as u64;
    let handle = gpu.mem_create(bytes).unwrap();
    let va = gpu.mem_reserve(h, bytes, 0, 0).unwrap();
    gpu.mem_map(h, va, bytes, 0, handle).unwrap();
    gpu.mem_set_access(h, va, bytes, Access::ReadWrite).unwrap();
    let (a, b) = inputs(&ctx, n);
    let f = vecadd(&ctx);
    legacy_launch(&dev, &ctx, f, &[a.device_ptr(), b.device_ptr(), va], n).unwrap();
    assert!(doubled(read_f32(&dev, &ctx, va, n)));
    gpu.mem_set_access(h, va, bytes, Access::Read).unwrap();
    assert_eq!(legacy_launch(&dev, &ctx, f, &[a.device_ptr(), b.device_ptr(), va], n), Err(CuError::IllegalAddress));

    // The legacy launch into a low allocation (the pre-3.2 32-bit cuMemAlloc): the first
    // GPU's memory, which every GPU's part reaches at its address (a new context: the
    // fault above is the old one's for good).
    let ctx = dev.create_context().unwrap();
    let (h, n) = (ctx.handle(), 4096usize);
    let c = gpu.mem_alloc_in(h, 4 * n as u64, true).unwrap();
    assert!(c < 1 << 32);
    let (a, b) = inputs(&ctx, n);
    for o in gpu.members() {
        o.platform().device().lock().take_kernel_stats();
    }
    legacy_launch(&dev, &ctx, vecadd(&ctx), &[a.device_ptr(), b.device_ptr(), c], n).unwrap();
    assert!(doubled(read_f32(&dev, &ctx, c, n)));
    for o in gpu.members() {
        assert_eq!(o.platform().device().lock().take_kernel_stats().len(), 1, "a part on each GPU");
    }
    gpu.mem_free(h, c).unwrap();

    // A texture reference bound to linear memory: every GPU's part binds the first GPU's
    // entry, so each quarter of the grid reads its elements.
    let src = ".version 6.4\n.target sm_70\n.address_size 64\n.global .texref t;\n\
               .entry k(.param .u64 out, .param .u32 n)\n{\n .reg .pred %p<2>;\n .reg .b32 %r<6>;\n \
               .reg .f32 %f<5>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [out];\n ld.param.u32 %r1, [n];\n \
               mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mov.u32 %r4, %tid.x;\n \
               mad.lo.s32 %r5, %r2, %r3, %r4;\n setp.ge.u32 %p1, %r5, %r1;\n @%p1 bra DONE;\n \
               tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r5}];\n mul.wide.u32 %rd2, %r5, 4;\n \
               add.s64 %rd3, %rd1, %rd2;\n st.global.f32 [%rd3], %f1;\nDONE:\n ret;\n}\n";
    let tm = gpu.module_load_ptx(h, src).unwrap();
    let t = gpu.module_get_ref(tm, "t", false).unwrap();
    let (a, _) = inputs(&ctx, n);
    gpu.texref_set_address(t, a.device_ptr(), 4 * n as u64).unwrap();
    let out = ctx.alloc::<f32>(n).unwrap();
    legacy_launch(&dev, &ctx, gpu.module_get_function(h, tm, "k").unwrap(), &[out.device_ptr()], n).unwrap();
    assert!(read_f32(&dev, &ctx, out.device_ptr(), n).iter().enumerate().all(|(i, &v)| v == i as f32));

    // The device the program sees has the four GPUs' SMs and VRAM.
    let one = dev.gpu().members()[0].info().clone();
    assert_eq!((dev.info().sms, dev.info().vram_size), (4 * one.sms, 4 * one.vram_size));
    assert_eq!(dev.mem_info().1, 4 * one.vram_size);
}
