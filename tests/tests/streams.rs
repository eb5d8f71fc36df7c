//! Streams, events, concurrency between streams and contexts, fault isolation, and a
//! multi-threaded stress test. All on the timing model (the default preset).

use backend_user::{Arg, Context, CuError, Device, Function, KernelStats, Module, Stream};
use tests::Rng;

const HDR: &str = ".version 6.4\n.target sm_70\n.address_size 64\n";

/// p[i] += k for i < n.
fn addk_ptx() -> String {
    format!(
        "{HDR}.visible .entry addk(.param .u64 p, .param .u32 k, .param .u32 n)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n\
         mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n mad.lo.s32 %r4, %r1, %r2, %r3;\n\
         ld.param.u32 %r5, [n];\n setp.ge.u32 %p1, %r4, %r5;\n @%p1 bra DONE;\n\
         ld.param.u64 %rd1, [p];\n mul.wide.u32 %rd2, %r4, 4;\n add.s64 %rd3, %rd1, %rd2;\n\
         ld.global.u32 %r6, [%rd3];\n ld.param.u32 %r7, [k];\n add.u32 %r6, %r6, %r7;\n st.global.u32 [%rd3], %r6;\n\
         DONE:\n ret;\n}}\n"
    )
}

/// k iterations of dependent FMAs per thread, then out[i] = result: a compute-bound kernel
/// whose length is k.
fn spin_ptx() -> String {
    format!(
        "{HDR}.visible .entry spin(.param .u64 out, .param .u32 k)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n .reg .f32 %f<4>;\n\
         mov.u32 %r1, %tid.x;\n cvt.rn.f32.u32 %f1, %r1;\n ld.param.u32 %r2, [k];\n mov.u32 %r3, 0;\n\
         LOOP:\n fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;\n add.u32 %r3, %r3, 1;\n setp.lt.u32 %p1, %r3, %r2;\n @%p1 bra LOOP;\n\
         mov.u32 %r4, %ctaid.x;\n mov.u32 %r5, %ntid.x;\n mad.lo.s32 %r6, %r4, %r5, %r1;\n\
         ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r6, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.f32 [%rd3], %f1;\n\
         ret;\n}}\n"
    )
}

/// Store 1 through a pointer the caller chooses (an address outside every allocation).
fn wild_ptx() -> String {
    format!(
        "{HDR}.visible .entry wild(.param .u64 p)\n{{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [p];\n mov.u32 %r1, 1;\n st.global.u32 [%rd1], %r1;\n ret;\n}}\n"
    )
}

struct Kernels {
    _m: Vec<Module>,
    addk: Function,
    spin: Function,
}

fn kernels(ctx: &Context) -> Kernels {
    let (a, s) = (ctx.load_ptx(&addk_ptx()).unwrap(), ctx.load_ptx(&spin_ptx()).unwrap());
    Kernels { addk: a.function("addk").unwrap(), spin: s.function("spin").unwrap(), _m: vec![a, s] }
}

fn by_seq(mut v: Vec<KernelStats>) -> Vec<KernelStats> {
    v.sort_by_key(|k| k.seq);
    v
}

#[test]
fn kernels_on_two_streams_overlap_and_a_copy_overlaps_a_kernel() {
    let dev = Device::open().unwrap();
    let sms = dev.info().sms;
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let out = ctx.alloc::<f32>(1 << 20).unwrap();
    let (a, b) = (ctx.create_stream(false, 0).unwrap(), ctx.create_stream(false, 0).unwrap());
    assert_ne!(a.channel().unwrap(), b.channel().unwrap());
    // Each grid has a block for half the SMs.
    let spin = |s: &Stream| s.launch(&k.spin, [sms / 2, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(2000)]).unwrap();
    spin(&a);
    a.synchronize().unwrap();
    let alone = dev.take_kernel_stats().pop().unwrap();
    spin(&a);
    spin(&b);
    ctx.synchronize().unwrap();
    let both = by_seq(dev.take_kernel_stats());
    let (x, y) = (&both[0], &both[1]);
    assert_ne!(x.chid, y.chid);
    assert!(y.start_cycle < x.end_cycle, "the second stream's grid starts before the first ends");
    let span = x.end_cycle.max(y.end_cycle) - x.start_cycle.min(y.start_cycle);
    assert!((span as f64) < 1.3 * alone.cycles() as f64, "two grids {span} cycles, one {}", alone.cycles());

    // A copy from pinned host memory on one stream while a kernel runs on the other.
    let host = ctx.alloc_host::<u32>(1 << 20).unwrap();
    host.write(&vec![5u32; 1 << 20]).unwrap();
    let dst = ctx.alloc::<u32>(1 << 20).unwrap();
    dev.take_copy_stats();
    spin(&a);
    b.copy_async(dst.device_ptr(), host.device_ptr(), 4 << 20).unwrap();
    ctx.synchronize().unwrap();
    let kern = dev.take_kernel_stats().pop().unwrap();
    let copy = dev.take_copy_stats().into_iter().find(|c| c.bytes == 4 << 20).unwrap();
    assert!(copy.start_cycle < kern.end_cycle && kern.start_cycle < copy.end_cycle, "{copy:?} {kern:?}");
    assert!(dst.to_vec().unwrap().iter().all(|&v| v == 5));
}

#[test]
fn async_copies_from_pinned_memory_return_before_they_run() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let s = ctx.create_stream(true, 0).unwrap();
    let host = ctx.alloc_host::<u32>(4 << 20).unwrap();
    host.write(&vec![9u32; 4 << 20]).unwrap();
    let dst = ctx.alloc::<u32>(4 << 20).unwrap();
    let t0 = dev.time_ns();
    s.copy_async(dst.device_ptr(), host.device_ptr(), 16 << 20).unwrap();
    // Stepped clock: nothing ran while the host was not waiting.
    assert_eq!(dev.time_ns(), t0);
    assert!(!s.query().unwrap());
    s.synchronize().unwrap();
    assert!(s.query().unwrap());
    assert!(dev.time_ns() - t0 > 1_000_000, "16 MiB over PCIe takes over a millisecond");
    assert!(dst.to_vec().unwrap().iter().all(|&v| v == 9));
    // Out of the allocation: an error, nothing queued.
    assert_eq!(s.copy_async(dst.device_ptr(), host.device_ptr(), (16 << 20) + 4).err(), Some(CuError::InvalidValue));
}

#[test]
fn events_time_kernels_consistently_with_the_statistics() {
    let dev = Device::open().unwrap();
    let cfg = dev.sim().lock().config().clone();
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let out = ctx.alloc::<f32>(1 << 20).unwrap();
    let s = ctx.create_stream(false, 0).unwrap();
    let (e0, e1) = (ctx.create_event(true).unwrap(), ctx.create_event(true).unwrap());
    assert_eq!(e1.elapsed_ms_since(&e0).err(), Some(CuError::InvalidHandle), "never recorded");
    assert!(e0.query().unwrap(), "an event never recorded is complete");
    s.record(&e0).unwrap();
    s.launch(&k.spin, [80, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(3000)]).unwrap();
    s.record(&e1).unwrap();
    assert!(!e1.query().unwrap());
    assert_eq!(e1.elapsed_ms_since(&e0).err(), Some(CuError::NotReady));
    e1.synchronize().unwrap();
    let ms = e1.elapsed_ms_since(&e0).unwrap();
    let kern = dev.take_kernel_stats().pop().unwrap();
    let kernel_ms = cfg.cycles_to_ns(kern.cycles()) as f64 / 1e6;
    // The events bracket the kernel: its time plus a few methods' worth.
    assert!(ms as f64 >= kernel_ms && (ms as f64) < kernel_ms + 0.002, "{ms} ms for a {kernel_ms} ms kernel");
    assert!((e0.elapsed_ms_since(&e1).unwrap() + ms).abs() < 1e-6, "negative the other way");
    let untimed = ctx.create_event(false).unwrap();
    s.record(&untimed).unwrap();
    untimed.synchronize().unwrap();
    assert_eq!(untimed.elapsed_ms_since(&e0).err(), Some(CuError::InvalidHandle), "DISABLE_TIMING");
}

#[test]
fn stream_wait_event_orders_work_on_the_gpu() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let n = 1u32 << 16;
    let buf = ctx.alloc::<u32>(n as usize).unwrap();
    let copy = ctx.alloc::<u32>(n as usize).unwrap();
    let out = ctx.alloc::<f32>(1 << 20).unwrap();
    let (a, b) = (ctx.create_stream(true, 0).unwrap(), ctx.create_stream(true, 0).unwrap());
    let ev = ctx.create_event(false).unwrap();
    let grid = [n / 256, 1, 1];
    a.fill_u32(buf.device_ptr(), 0, n as u64).unwrap();
    a.launch(&k.spin, [80, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(4000)]).unwrap();
    a.launch(&k.addk, grid, [256, 1, 1], 0, &[buf.arg(), Arg::U32(7), Arg::U32(n)]).unwrap();
    a.record(&ev).unwrap();
    b.wait_event(&ev).unwrap();
    b.copy_async(copy.device_ptr(), buf.device_ptr(), n as u64 * 4).unwrap();
    // The host did not wait: nothing has run yet.
    assert!(!a.query().unwrap() && !b.query().unwrap());
    b.synchronize().unwrap();
    assert!(copy.to_vec().unwrap().iter().all(|&v| v == 7), "b's copy ran after a's kernel");
    let ks = by_seq(dev.take_kernel_stats());
    let cs = dev.take_copy_stats();
    let c = cs.iter().find(|c| c.bytes == n as u64 * 4 && c.chid == b.channel().unwrap()).unwrap();
    assert!(c.start_cycle >= ks.last().unwrap().end_cycle);
}

#[test]
fn the_legacy_default_stream_orders_blocking_streams_but_not_non_blocking_ones() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let out = ctx.alloc::<f32>(1 << 20).unwrap();
    let d = ctx.default_stream();
    let (blocking, free) = (ctx.create_stream(false, 0).unwrap(), ctx.create_stream(true, 0).unwrap());
    let spin = |s: &Stream, k2: u32| s.launch(&k.spin, [8, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(k2)]).unwrap();
    spin(&d, 3000);
    spin(&blocking, 100);
    spin(&free, 100);
    ctx.synchronize().unwrap();
    let ks = by_seq(dev.take_kernel_stats());
    let chan = |s: &Stream| s.channel().unwrap();
    let on = |c: u32| ks.iter().find(|k| k.chid == c).unwrap();
    let (dk, bk, fk) = (on(chan(&d)), on(chan(&blocking)), on(chan(&free)));
    assert!(bk.start_cycle >= dk.end_cycle, "a blocking stream waits for the default stream");
    assert!(fk.start_cycle < dk.end_cycle, "a non-blocking stream does not");
    // And the default stream waits for blocking streams.
    spin(&blocking, 3000);
    spin(&d, 100);
    ctx.synchronize().unwrap();
    let ks = by_seq(dev.take_kernel_stats());
    assert!(ks[1].start_cycle >= ks[0].end_cycle);
}

#[test]
fn a_fault_stays_in_its_context_and_is_sticky() {
    let dev = Device::open().unwrap();
    let free0 = dev.mem_info().0;
    let good = dev.create_context().unwrap();
    let gk = kernels(&good);
    let n = 1u32 << 16;
    let mut data = good.alloc::<u32>(n as usize).unwrap();
    data.copy_from(&vec![1u32; n as usize]).unwrap();
    let mut guard = good.alloc::<u32>(1024).unwrap();
    guard.fill(0xABCD).unwrap();
    {
        let bad = dev.create_context().unwrap();
        let m = bad.load_ptx(&wild_ptx()).unwrap();
        let wild = m.function("wild").unwrap();
        let s = bad.create_stream(false, 0).unwrap();
        let mine = bad.alloc::<u32>(16).unwrap();
        // The bad context aims at the good context's buffer address: another address space,
        // where nothing is mapped there.
        s.launch(&wild, [1, 1, 1], [32, 1, 1], 0, &[Arg::U64(guard.device_ptr() + (64 << 20))]).unwrap();
        // The good context works meanwhile, on its own stream.
        let gs = good.create_stream(true, 0).unwrap();
        for _ in 0..5 {
            gs.launch(&gk.addk, [n / 256, 1, 1], [256, 1, 1], 0, &[data.arg(), Arg::U32(2), Arg::U32(n)]).unwrap();
        }
        assert_eq!(s.synchronize().err(), Some(CuError::IllegalAddress));
        // Sticky: every later call of the bad context returns it.
        assert_eq!(bad.synchronize().err(), Some(CuError::IllegalAddress));
        assert_eq!(bad.alloc::<u32>(4).err(), Some(CuError::IllegalAddress));
        assert_eq!(mine.to_vec().err(), Some(CuError::IllegalAddress));
        gs.synchronize().unwrap();
        drop((s, mine, wild, m));
    }
    // The good context's work completed and its memory is untouched.
    let got = data.to_vec().unwrap();
    assert!(got.iter().all(|&v| v == 11), "{:?}", &got[..8]);
    assert!(guard.to_vec().unwrap().iter().all(|&v| v == 0xABCD));
    drop((data, guard, gk));
    drop(good);
    assert_eq!(dev.mem_info().0, free0, "destroying the contexts returned all VRAM");
}

/// One host thread's share of the stress test: a context, 4 streams, a buffer per stream,
/// random operations checked against a host model.
fn stress_thread(dev: &Device, seed: u64, ops: usize) -> Vec<u32> {
    const N: u32 = 2048;
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let streams: Vec<Stream> = (0..4).map(|i| ctx.create_stream(i % 2 == 1, -(i % 3)).unwrap()).collect();
    let bufs: Vec<_> = (0..4).map(|_| ctx.alloc::<u32>(N as usize).unwrap()).collect();
    let pinned: Vec<_> = (0..4).map(|_| ctx.alloc_host::<u32>(N as usize).unwrap()).collect();
    let events: Vec<_> = (0..4).map(|_| ctx.create_event(true).unwrap()).collect();
    let mut model = vec![vec![0u32; N as usize]; 4];
    for (i, s) in streams.iter().enumerate() {
        s.fill_u32(bufs[i].device_ptr(), 0, N as u64).unwrap();
    }
    let mut rng = Rng(seed);
    let grid = [N / 256, 1, 1];
    for _ in 0..ops {
        let i = rng.below(4) as usize;
        let s = &streams[i];
        match rng.below(10) {
            0..=3 => {
                let v = rng.below(1000) as u32;
                s.launch(&k.addk, grid, [256, 1, 1], 0, &[bufs[i].arg(), Arg::U32(v), Arg::U32(N)]).unwrap();
                model[i].iter_mut().for_each(|x| *x = x.wrapping_add(v));
            }
            4 => {
                let v = rng.next_u64() as u32;
                s.fill_u32(bufs[i].device_ptr(), v, N as u64).unwrap();
                model[i].fill(v);
            }
            5 | 6 => {
                // A copy from buffer i to buffer j on stream j, after stream i's work, and
                // stream i waits for it before touching buffer i again.
                let j = (i + 1 + rng.below(3) as usize) % 4;
                s.record(&events[i]).unwrap();
                streams[j].wait_event(&events[i]).unwrap();
                streams[j].copy_async(bufs[j].device_ptr(), bufs[i].device_ptr(), N as u64 * 4).unwrap();
                streams[j].record(&events[j]).unwrap();
                s.wait_event(&events[j]).unwrap();
                model[j] = model[i].clone();
            }
            7 => {
                // Device to pinned host memory asynchronously, then check.
                s.copy_async(pinned[i].device_ptr(), bufs[i].device_ptr(), N as u64 * 4).unwrap();
                s.synchronize().unwrap();
                assert_eq!(pinned[i].to_vec().unwrap(), model[i], "seed {seed}: stream {i}");
            }
            8 => {
                // Pinned host memory to the device, once the stream no longer reads it.
                s.synchronize().unwrap();
                let v: Vec<u32> = (0..N).map(|_| rng.below(1 << 20) as u32).collect();
                pinned[i].write(&v).unwrap();
                s.copy_async(bufs[i].device_ptr(), pinned[i].device_ptr(), N as u64 * 4).unwrap();
                model[i] = v;
            }
            _ => {
                // A synchronous read on the default stream (which waits for the blocking
                // streams; the non-blocking ones are synchronized first).
                s.synchronize().unwrap();
                assert_eq!(bufs[i].to_vec().unwrap(), model[i], "seed {seed}: buffer {i}");
            }
        }
    }
    ctx.synchronize().unwrap();
    for i in 0..4 {
        assert_eq!(bufs[i].to_vec().unwrap(), model[i], "seed {seed}: buffer {i} at the end");
    }
    model.concat()
}

#[test]
fn stress_eight_threads_contexts_and_streams() {
    let dev = Device::open().unwrap();
    let free0 = dev.mem_info().0;
    let results: Vec<Vec<u32>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..8)
            .map(|t| {
                let dev = dev.clone();
                sc.spawn(move || stress_thread(&dev, 1000 + t, 1250))
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results.len(), 8);
    assert_eq!(dev.mem_info().0, free0);
    // Deterministic in stepped mode: one thread's program on a fresh device gives the same
    // results, cycles and statistics every time.
    // A VA range of its own: the tests running beside this one allocate in the shared
    // unified range, which would move this program's allocations between runs.
    let run = || {
        let opts = backend_user::DeviceOptions { separate_va: true, ..Default::default() };
        let dev = Device::open_with(opts).unwrap();
        let r = stress_thread(&dev, 1003, 400);
        let cycles = dev.sim().lock().cycles();
        (r, cycles, dev.take_kernel_stats(), dev.take_copy_stats())
    };
    assert_eq!(run(), run());
}

#[test]
fn contexts_whose_kernels_share_an_address_run_their_own_code() {
    // Both contexts load a module at the same virtual address; the engine's decoded
    // programs are per address space.
    let dev = Device::open().unwrap();
    let (one, two) = (dev.create_context().unwrap(), dev.create_context().unwrap());
    let (ma, mb) = (one.load_ptx(&addk_ptx()).unwrap(), two.load_ptx(&wild_ptx()).unwrap());
    let (addk, wild) = (ma.function("addk").unwrap(), mb.function("wild").unwrap());
    let n = 4096u32;
    let mut data = one.alloc::<u32>(n as usize).unwrap();
    data.copy_from(&vec![1u32; n as usize]).unwrap();
    let flag = two.alloc::<u32>(1).unwrap();
    wild.launch([1, 1, 1], [32, 1, 1], 0, &[flag.arg()]).unwrap();
    two.synchronize().unwrap();
    addk.launch([n / 256, 1, 1], [256, 1, 1], 0, &[data.arg(), Arg::U32(5), Arg::U32(n)]).unwrap();
    assert!(data.to_vec().unwrap().iter().all(|&v| v == 6));
    assert_eq!(flag.to_vec().unwrap(), vec![1]);
}

/// Run 4 segments of 4000 host NOPs on a normal and an urgent stream (the normal one
/// queued first); returns ms from the normal stream's finish to the urgent one's.
fn nop_race(policy: fake_pci::config::ChannelPolicy) -> f32 {
    let cfg = backend_user::DeviceConfig::default().with(|c| c.pfifo.channel_policy = policy);
    let dev = Device::open_with(backend_user::DeviceOptions { config: cfg, ..Default::default() }).unwrap();
    let ctx = dev.create_context().unwrap();
    let (normal, urgent) = (ctx.create_stream(true, 0).unwrap(), ctx.create_stream(true, -3).unwrap());
    let mut pb = fifo::Pushbuf::<8192>::new();
    pb.nonincr(0, hw::class::host::NOP, &[0; 4000]).unwrap();
    let (en, eu) = (ctx.create_event(true).unwrap(), ctx.create_event(true).unwrap());
    for s in [&normal, &urgent] {
        for _ in 0..4 {
            s.submit_raw(pb.words()).unwrap();
        }
    }
    normal.record(&en).unwrap();
    urgent.record(&eu).unwrap();
    ctx.synchronize().unwrap();
    eu.elapsed_ms_since(&en).unwrap()
}

#[test]
fn pfifo_serves_urgent_channels_first_and_slices_time_between_equals() {
    use fake_pci::config::ChannelPolicy;
    let cfg = backend_user::DeviceConfig::default();
    let ms = |cycles: u64| cfg.cycles_to_ns(cycles) as f32 / 1e6;
    // Priority: the urgent stream takes PFIFO at the end of the first slice and keeps it,
    // finishing about 16000 method cycles before the normal one.
    let d = nop_race(ChannelPolicy::Priority);
    assert!(d < -ms(14_000), "urgent finished {d} ms after normal");
    // Round robin: the two alternate slices and finish within about a slice of each other.
    let d = nop_race(ChannelPolicy::RoundRobin);
    assert!(d.abs() < ms(3 * cfg.pfifo.timeslice_cycles), "{d} ms apart");
}

/// CPU time of the calling thread (Linux: utime + stime from /proc/thread-self/stat).
fn thread_cpu() -> std::time::Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    // Fields after the command name (which is in parentheses): utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<u64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0)).collect();
    let ticks = f[11] + f[12];
    std::time::Duration::from_millis(ticks * 10)
}

#[test]
fn waits_sleep_on_the_threaded_clock() {
    let opts = backend_user::DeviceOptions { clock: backend_user::ClockMode::Threaded, ..Default::default() };
    let dev = Device::open_with(opts).unwrap();
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let out = ctx.alloc::<f32>(1 << 20).unwrap();
    let s = ctx.create_stream(false, 0).unwrap();
    let ev = ctx.create_event(true).unwrap();
    let (t0, c0) = (std::time::Instant::now(), thread_cpu());
    s.launch(&k.spin, [dev.info().sms * 8, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(60)]).unwrap();
    s.record(&ev).unwrap();
    ev.synchronize().unwrap();
    let (wall, cpu) = (t0.elapsed(), thread_cpu() - c0);
    assert!(wall > std::time::Duration::from_millis(80), "the kernel should take a while: {wall:?}");
    assert!(cpu.as_secs_f64() < 0.25 * wall.as_secs_f64(), "the waiting thread used {cpu:?} of {wall:?}");
    assert!(ev.query().unwrap());
}

#[test]
fn an_event_rerecorded_on_a_faster_stream_follows_its_last_record() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let k = kernels(&ctx);
    let out = ctx.alloc::<f32>(1 << 20).unwrap();
    let (slow, fast, waiter) =
        (ctx.create_stream(true, 0).unwrap(), ctx.create_stream(true, 0).unwrap(), ctx.create_stream(true, 0).unwrap());
    let ev = ctx.create_event(true).unwrap();
    slow.launch(&k.spin, [80, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(1500)]).unwrap();
    slow.record(&ev).unwrap();
    // Re-recorded: from now on the event is this record, which completes first.
    fast.record(&ev).unwrap();
    let flag = ctx.alloc::<u32>(1).unwrap();
    waiter.wait_event(&ev).unwrap();
    waiter.fill_u32(flag.device_ptr(), 7, 1).unwrap();
    ctx.synchronize().unwrap();
    assert_eq!(flag.to_vec().unwrap(), vec![7]);
    // The waiter waited for the newer record only: its fill ended before the slow kernel.
    let kern = dev.take_kernel_stats().pop().unwrap();
    let fill = dev.take_copy_stats().into_iter().find(|c| c.chid == waiter.channel().unwrap()).unwrap();
    assert!(fill.end_cycle < kern.end_cycle, "{fill:?} {kern:?}");
    // The older record landing later does not undo the newer one.
    assert!(ev.query().unwrap());
    ev.synchronize().unwrap();
}

/// A thread waiting for a stream does not hold the context: another thread's work on
/// another stream of the same context is queued, runs and is waited for meanwhile (only
/// the legacy default stream orders streams, and these are non-blocking).
#[test]
fn a_thread_waiting_for_a_stream_blocks_no_other_thread_of_the_context() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let opts = backend_user::DeviceOptions { clock: backend_user::ClockMode::Threaded, ..Default::default() };
    let dev = Device::open_with(opts).unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&format!("{HDR}{}", tests::CHAIN_PTX)).unwrap();
    let f = m.function("chain").unwrap();
    let (slow, fast) = (ctx.create_stream(true, 0).unwrap(), ctx.create_stream(true, 0).unwrap());
    let out = ctx.alloc::<u32>(1).unwrap();
    let buf = ctx.alloc::<u32>(4096).unwrap();
    let n = 2_000_000u32;
    slow.launch(&f, [1, 1, 1], [1, 1, 1], 0, &[out.arg(), Arg::I32(n as i32)]).unwrap();
    let waiting_done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            slow.synchronize().unwrap();
            waiting_done.store(true, Ordering::Release);
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        fast.fill_u32(buf.device_ptr(), 0x5EED, 4096).unwrap();
        fast.synchronize().unwrap();
        assert!(!waiting_done.load(Ordering::Acquire), "the fast stream finished while the other thread waited");
    });
    assert_eq!(buf.to_vec().unwrap(), vec![0x5EED; 4096]);
    let expect = (0..n).fold(1u32, |a, _| a.wrapping_mul(3).wrapping_add(1));
    assert_eq!(out.to_vec().unwrap(), [expect]);
}

/// A blocking copy waiting behind a long kernel on the legacy stream holds the context's
/// staging buffers, not the context: another thread's work on a non-blocking stream, and
/// its allocations, go on meanwhile.
#[test]
fn a_thread_in_a_blocking_copy_blocks_no_other_thread_of_the_context() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let opts = backend_user::DeviceOptions { clock: backend_user::ClockMode::Threaded, ..Default::default() };
    let dev = Device::open_with(opts).unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&format!("{HDR}{}", tests::CHAIN_PTX)).unwrap();
    let f = m.function("chain").unwrap();
    let fast = ctx.create_stream(true, 0).unwrap();
    let out = ctx.alloc::<u32>(1).unwrap();
    let buf = ctx.alloc::<u32>(4096).unwrap();
    let n = 2_000_000u32;
    f.launch([1, 1, 1], [1, 1, 1], 0, &[out.arg(), Arg::I32(n as i32)]).unwrap(); // legacy stream
    let copied = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let v = out.to_vec().unwrap(); // waits for the kernel
            copied.store(true, Ordering::Release);
            v
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        let extra = ctx.alloc::<u32>(16).unwrap();
        fast.fill_u32(buf.device_ptr(), 0xFA57, 4096).unwrap();
        fast.fill_u32(extra.device_ptr(), 1, 16).unwrap();
        fast.synchronize().unwrap();
        assert!(!copied.load(Ordering::Acquire), "the other stream's work finished while the copy waited");
        drop(extra); // cuMemFree waits for all the context's work, the kernel too
    });
    assert_eq!(out.to_vec().unwrap(), [(0..n).fold(1u32, |a, _| a.wrapping_mul(3).wrapping_add(1))]);
}

/// cuda-samples' simpleCallback: work and host functions queued on a stream, then the
/// program blocks (here on a channel) without a CUDA call; the clock's owner runs the
/// device and the host functions, in stream order, at the same simulated times every run.
#[test]
fn host_functions_run_when_no_thread_waits() {
    let run = || {
        let dev = Device::open_with(backend_user::DeviceOptions { separate_va: true, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let k = kernels(&ctx);
        let out = ctx.alloc::<f32>(80 * 256).unwrap();
        let s = ctx.create_stream(true, 0).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        for round in 0..3u32 {
            s.launch(&k.spin, [80, 1, 1], [256, 1, 1], 0, &[out.arg(), Arg::U32(300)]).unwrap();
            let (tx, sim) = (tx.clone(), dev.sim().clone());
            s.launch_host_func(move |r| {
                // The kernel before it is done, the one after it has not begun.
                let done = sim.lock().take_kernel_stats().len();
                tx.send((round, r, done)).unwrap();
            })
            .unwrap();
        }
        let t_queued = dev.time_ns();
        let got: Vec<_> = (0..3).map(|_| rx.recv_timeout(std::time::Duration::from_secs(300)).unwrap()).collect();
        assert_eq!(got, [(0, Ok(()), 1), (1, Ok(()), 1), (2, Ok(()), 1)]);
        assert!(dev.time_ns() > t_queued, "the device ran for them");
        s.synchronize().unwrap();
        dev.time_ns()
    };
    assert_eq!(run(), run(), "the same simulated time every run");
}
