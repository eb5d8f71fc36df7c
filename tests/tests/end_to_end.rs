//! End-to-end programs against the simulated GPU, every result checked on the CPU.

use backend_user::{ContextConfig, Device, DeviceConfig, DeviceOptions, MemsetValue, StreamHandle};
use tests::Rng;

fn device() -> Device {
    Device::open().expect("open the simulated GPU")
}

#[test]
fn copies_of_1_byte_to_64_mib_at_odd_sizes_and_alignments() {
    let dev = device();
    let ctx = dev.create_context().unwrap();
    let gpu = dev.gpu();
    let h = ctx.handle();
    let cap = (64 << 20) + 8192;
    let a = gpu.mem_alloc(h, cap).unwrap();
    let b = gpu.mem_alloc(h, cap).unwrap();
    let mut rng = Rng(0xC0FF_EE00_1234_5678);
    let sizes =
        [1usize, 2, 3, 7, 4095, 4096, 4097, 65_537, (1 << 20) + 13, 2 << 20, (2 << 20) + 1, (5 << 20) + 7, 64 << 20];
    let offsets = [0u64, 1, 3, 4093, 4096, 8191];
    for (i, &n) in sizes.iter().enumerate() {
        let off = offsets[i % offsets.len()];
        let off2 = offsets[(i + 3) % offsets.len()];
        let data = rng.bytes(n);
        // Sentinels around the destination range must survive.
        let fill = 0xA5u8;
        gpu.memset(h, StreamHandle::DEFAULT, a, MemsetValue::U8(fill), cap).unwrap();
        gpu.memcpy_htod(h, a + off, &data).unwrap();
        let mut back = vec![0u8; n + 2];
        let lo = off.saturating_sub(1);
        gpu.memcpy_dtoh(h, &mut back[..(n + (off - lo) as usize + 1)], a + lo).unwrap();
        let body = (off - lo) as usize;
        assert_eq!(&back[body..body + n], &data[..], "H2D/D2H of {n} bytes at offset {off}");
        if off > 0 {
            assert_eq!(back[0], fill, "byte before the copy changed");
        }
        assert_eq!(back[body + n], fill, "byte after the copy changed");
        // Device to device, to a different alignment.
        gpu.memcpy(h, StreamHandle::DEFAULT, b + off2, a + off, n as u64).unwrap();
        let mut back2 = vec![0u8; n];
        gpu.memcpy_dtoh(h, &mut back2, b + off2).unwrap();
        assert_eq!(back2, data, "D2D of {n} bytes from offset {off} to {off2}");
    }
    gpu.mem_free(h, a).unwrap();
    gpu.mem_free(h, b).unwrap();
}

#[test]
fn memsets_of_8_16_and_32_bits_match_a_cpu_reference() {
    let dev = device();
    let ctx = dev.create_context().unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let n = 1 << 20;
    let p = gpu.mem_alloc(h, n as u64).unwrap();
    let mut reference = vec![0u8; n];
    let mut rng = Rng(42);
    reference.copy_from_slice(&rng.bytes(n));
    gpu.memcpy_htod(h, p, &reference).unwrap();
    let cases: [(u64, MemsetValue, u64); 6] = [
        (1, MemsetValue::U8(0x5A), 1),
        (3, MemsetValue::U8(0xEE), 100_003),
        (2, MemsetValue::U16(0xBEEF), 1),
        (4098, MemsetValue::U16(0x1234), 77_777),
        (4, MemsetValue::U32(0xDEAD_BEEF), 1),
        (8192, MemsetValue::U32(0x0102_0304), 200_001),
    ];
    for (off, v, count) in cases {
        let (bytes, size) = match v {
            MemsetValue::U8(x) => (vec![x], 1),
            MemsetValue::U16(x) => (x.to_le_bytes().to_vec(), 2),
            MemsetValue::U32(x) => (x.to_le_bytes().to_vec(), 4),
        };
        for i in 0..count as usize {
            let at = off as usize + i * size;
            reference[at..at + size].copy_from_slice(&bytes);
        }
        gpu.memset(h, StreamHandle::DEFAULT, p + off, v, count).unwrap();
    }
    let mut back = vec![0u8; n];
    gpu.memcpy_dtoh(h, &mut back, p).unwrap();
    assert!(back == reference, "first difference at {:?}", back.iter().zip(&reference).position(|(a, b)| a != b));
}

#[test]
fn one_million_small_submissions_wrap_the_rings_many_times() {
    let dev = device();
    let cfg = ContextConfig { gpfifo_entries: 16, pushbuffer_bytes: 4096, ..ContextConfig::default() };
    let ctx = dev.create_context_with(&cfg).unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let slots = 4096u64;
    let p = gpu.mem_alloc(h, slots * 4).unwrap();
    let total = 1_000_000u64;
    let mut last = None;
    for i in 0..total {
        // Each submission writes one word: slot i % slots gets value i.
        last = Some(gpu.memset(h, StreamHandle::DEFAULT, p + (i % slots) * 4, MemsetValue::U32(i as u32), 1).unwrap());
    }
    gpu.fence_wait(h, last.unwrap()).unwrap();
    let mut back = vec![0u32; slots as usize];
    gpu.memcpy_dtoh(h, bytemuck::cast_slice_mut(&mut back), p).unwrap();
    for (s, &v) in back.iter().enumerate() {
        let s64 = s as u64;
        let expect = s64 + slots * ((total - 1 - s64) / slots); // the last i < total with i % slots == s
        assert_eq!(v as u64, expect, "slot {s}");
    }
    let st = dev.sim().lock().stats();
    assert!(st.gp_entries > total, "every submission is a GPFIFO entry ({})", st.gp_entries);
    // 16-entry GPFIFO and 1024-word pushbuffer: both wrapped tens of thousands of times.
    assert!(st.gp_entries / 16 > 60_000);
}

#[test]
fn fence_values_beyond_2_pow_32() {
    let dev = device();
    for first in [(1u64 << 32) - 40, 5 << 32, u64::MAX - (1 << 40)] {
        let cfg = ContextConfig { first_fence: first, gpfifo_entries: 8, ..ContextConfig::default() };
        let ctx = dev.create_context_with(&cfg).unwrap();
        let mut prev = 0;
        for _ in 0..100 {
            let f = ctx.fence().unwrap();
            assert!(f.0 > prev && f.0 > first);
            ctx.wait(f).unwrap();
            assert!(dev.gpu().fence_done(ctx.handle(), f).unwrap());
            prev = f.0;
        }
        assert_eq!(prev, first + 100);
        // A fence that was never handed out cannot be waited for.
        assert!(ctx.wait(backend_user::Fence(prev + 1)).is_err());
        // Pipelined: many fences in flight, complete in order.
        let fs: Vec<_> = (0..20).map(|_| ctx.fence().unwrap()).collect();
        ctx.wait(*fs.last().unwrap()).unwrap();
        assert!(fs.iter().all(|&f| dev.gpu().fence_done(ctx.handle(), f).unwrap()));
    }
}

#[test]
fn fences_carry_device_timestamps_that_advance() {
    let dev = device();
    let ctx = dev.create_context().unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let p = gpu.mem_alloc(h, 8 << 20).unwrap();
    let f = ctx.fence().unwrap();
    ctx.wait(f).unwrap();
    let t0 = gpu.fence_timestamp(h).unwrap();
    let f = gpu.memset(h, StreamHandle::DEFAULT, p, MemsetValue::U32(1), 2 << 20).unwrap();
    ctx.wait(f).unwrap();
    let t1 = gpu.fence_timestamp(h).unwrap();
    // 8 MiB written by the copy engine: at least the time the preset's DRAM and engine need.
    let c = DeviceConfig::default();
    let min = c.cycles_to_ns(c.copy_cycles(8 << 20, fake_pci::config::CopyPath::VramFill));
    assert!(min > 10_000 && t1 >= t0 + min, "{t0} -> {t1}, at least {min} ns");
    assert!(t1 <= dev.time_ns());
}

fn program(dev: &Device) -> (u64, fake_pci::Stats, Vec<u8>) {
    let ctx = dev.create_context().unwrap();
    let mut rng = Rng(7);
    let data = rng.bytes(3 << 20);
    let mut a = ctx.alloc::<u8>(data.len()).unwrap();
    let mut b = ctx.alloc::<u8>(data.len()).unwrap();
    a.copy_from(&data).unwrap();
    b.copy_from_device(&a).unwrap();
    b.fill(3).unwrap();
    let out = b.to_vec().unwrap();
    let cycles = dev.sim().lock().cycles();
    (cycles, dev.sim().lock().stats(), out)
}

#[test]
fn the_same_program_twice_gives_identical_cycles_and_statistics() {
    // Each device with a VA range of its own (the tests beside this one allocate in the
    // process's shared unified range).
    let dev = || Device::open_with(DeviceOptions { separate_va: true, ..Default::default() }).unwrap();
    let r1 = program(&dev());
    let r2 = program(&dev());
    assert_eq!(r1.0, r2.0);
    assert_eq!(r1.1, r2.1);
    assert!(r1.2.iter().all(|&b| b == 3));
}

#[test]
fn threaded_clock_mode_gives_the_same_results() {
    let dev =
        Device::open_with(DeviceOptions { clock: backend_user::ClockMode::Threaded, ..Default::default() }).unwrap();
    let ctx = dev.create_context().unwrap();
    let mut rng = Rng(99);
    let data = rng.bytes((4 << 20) + 3);
    let mut a = ctx.alloc::<u8>(data.len()).unwrap();
    a.copy_from(&data).unwrap();
    assert_eq!(a.to_vec().unwrap(), data);
    for _ in 0..1000 {
        let f = ctx.fence().unwrap();
        ctx.wait(f).unwrap();
    }
}

#[test]
fn many_contexts_are_isolated_and_return_their_memory() {
    let dev = Device::open_with(DeviceOptions {
        config: DeviceConfig::default().with(|c| c.board.vram_size = 512 << 20),
        ..Default::default()
    })
    .unwrap();
    let free0 = dev.mem_info().0;
    {
        let ctxs: Vec<_> = (0..8).map(|_| dev.create_context().unwrap()).collect();
        let bufs: Vec<_> = ctxs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut b = c.alloc::<u32>(1 << 16).unwrap();
                b.copy_from(&vec![i as u32; 1 << 16]).unwrap();
                b
            })
            .collect();
        for (i, b) in bufs.iter().enumerate() {
            assert!(b.to_vec().unwrap().iter().all(|&v| v == i as u32));
        }
        // Unified addressing: device pointers are unique in the process, whatever the context.
        assert!(dev.gpu().unified_addressing());
        let mut ranges: Vec<u64> = bufs.iter().map(|b| b.device_ptr()).collect();
        ranges.sort_unstable();
        assert!(ranges.windows(2).all(|w| w[1] - w[0] >= 4 << 16), "{ranges:x?}");
        // Pinned host memory's host address is its device pointer.
        let h = ctxs[3].alloc_host::<u32>(5000).unwrap();
        assert_eq!(h.host_addr() as u64, h.device_ptr());
    }
    assert_eq!(dev.mem_info().0, free0, "every context's VRAM came back");
}

#[test]
fn host_threads_with_their_own_contexts_run_at_once() {
    for clock in [backend_user::ClockMode::Stepped, backend_user::ClockMode::Threaded] {
        let dev = Device::open_with(DeviceOptions { clock, ..Default::default() }).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let dev = dev.clone();
                s.spawn(move || {
                    let ctx = dev.create_context().unwrap();
                    let mut rng = Rng(t + 1);
                    for round in 0..20 {
                        let data = rng.bytes(1000 + 37 * round);
                        let mut b = ctx.alloc::<u8>(data.len()).unwrap();
                        b.copy_from(&data).unwrap();
                        assert_eq!(b.to_vec().unwrap(), data, "thread {t} round {round}");
                    }
                });
            }
        });
    }
}
