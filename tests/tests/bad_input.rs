//! Bad input gets a clear error and loses nothing: invalid handles, double frees,
//! out-of-range copies, exhausted VRAM, malformed pushbuffers, unmapped GPU addresses,
//! and random register traffic. Faults stay in the faulting context.

use backend_user::{CtxHandle, CuError, Device, DeviceConfig, DeviceOptions, MemsetValue, StreamHandle};
use fake_pci::{FakeGpu, Window};
use fifo::Pushbuf;
use hw::class::{LaunchDma, Layout, TransferType, copy, subch};
use hw::regs::*;
use tests::Rng;

fn device_with_vram(bytes: u64) -> Device {
    Device::open_with(DeviceOptions {
        config: DeviceConfig::default().with(|c| c.board.vram_size = bytes),
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn invalid_and_destroyed_context_handles() {
    let dev = Device::open().unwrap();
    let gpu = dev.gpu();
    for bogus in [CtxHandle(0), CtxHandle(7), CtxHandle(u64::MAX)] {
        assert_eq!(gpu.mem_alloc(bogus, 4096), Err(CuError::InvalidContext));
        assert_eq!(gpu.ctx_synchronize(bogus), Err(CuError::InvalidContext));
        assert_eq!(gpu.ctx_destroy(bogus), Err(CuError::InvalidContext));
    }
    let h = gpu.ctx_create().unwrap();
    let p = gpu.mem_alloc(h, 4096).unwrap();
    gpu.ctx_destroy(h).unwrap();
    assert_eq!(gpu.ctx_destroy(h), Err(CuError::InvalidContext));
    assert_eq!(gpu.memcpy_htod(h, p, &[1, 2, 3]), Err(CuError::InvalidContext));
    assert_eq!(gpu.mem_free(h, p), Err(CuError::InvalidContext));
    // A new context may reuse the slot; the stale handle still does not name it.
    let h2 = gpu.ctx_create().unwrap();
    assert_ne!(h, h2);
    assert_eq!(gpu.mem_alloc(h, 4096), Err(CuError::InvalidContext));
    assert!(gpu.mem_alloc(h2, 4096).is_ok());
}

/// Module, function, stream and event handles come from the runtime's one handle table:
/// each names its context, and one of another context, of another kind, of a destroyed
/// context (even after its slot is reused), or a forged one is CUDA_ERROR_INVALID_HANDLE.
#[test]
fn object_handles_name_their_context_and_kind() {
    use runtime_core::{EventHandle, FuncHandle, LaunchConfig, ModuleHandle, Params};
    let dev = Device::open().unwrap();
    let gpu = dev.gpu();
    let ptx = format!(".version 7.0\n.target sm_70\n.address_size 64\n{}", tests::CHAIN_PTX);
    let (a, b) = (gpu.ctx_create().unwrap(), gpu.ctx_create().unwrap());
    let m = gpu.module_load_ptx(a, &ptx).unwrap();
    let f = gpu.module_get_function(a, m, "chain").unwrap();
    assert_eq!(gpu.module_get_function(a, m, "chain"), Ok(f), "the same kernel, the same handle");
    let s = gpu.stream_create(a, false, 0).unwrap();
    let e = gpu.event_create(a, true).unwrap();
    assert_eq!((m.ctx(), f.ctx(), s.ctx(), e.ctx()), (a, a, a, a));
    let ids = [m.0, f.0, s.0, e.0];
    assert!(ids.iter().all(|&x| x != 0) && ids.iter().collect::<std::collections::HashSet<_>>().len() == 4);

    // Of another context: invalid there, whichever context is current.
    let inv = Some(CuError::InvalidHandle);
    assert_eq!(gpu.module_get_function(b, m, "chain").err(), inv);
    assert_eq!(gpu.func_attributes(b, f).err(), inv);
    assert_eq!(gpu.stream_synchronize(b, s).err(), inv);
    assert_eq!(gpu.event_query(b, e).err(), inv);
    assert_eq!(gpu.event_record(b, EventHandle(e.0), StreamHandle::DEFAULT).err(), inv);
    // Of another kind, or forged (NULL, the context's bits with id 0, an id never made).
    assert_eq!(gpu.stream_synchronize(a, StreamHandle(m.0)).err(), inv);
    assert_eq!(gpu.event_query(a, EventHandle(s.0)).err(), inv);
    assert_eq!(gpu.func_attributes(a, FuncHandle(e.0)).err(), inv);
    for forged in [0, a.0 << 32, a.0 << 32 | 0xffff_fff0, 0x12345] {
        assert_eq!(gpu.module_get_function(a, ModuleHandle(forged), "chain").err(), inv, "{forged:#x}");
    }
    let cfg = LaunchConfig::new([1, 1, 1], [1, 1, 1]).on(StreamHandle(e.0));
    let p = gpu.mem_alloc(a, 4).unwrap();
    let params = (p, 1u32);
    let bytes: Vec<u8> = params.0.to_le_bytes().into_iter().chain(params.1.to_le_bytes()).collect();
    assert_eq!(gpu.launch(a, f, &cfg, Params::Buffer(&bytes)).err(), inv, "an event as a stream");
    gpu.launch(a, f, &cfg.on(s), Params::Buffer(&bytes)).unwrap();
    gpu.stream_synchronize(a, s).unwrap();

    // Unloading a module invalidates its kernels; destroying objects invalidates them.
    gpu.module_unload(a, m).unwrap();
    assert_eq!(gpu.func_attributes(a, f).err(), inv);
    assert_eq!(gpu.module_unload(a, m).err(), inv);
    gpu.stream_destroy(a, s).unwrap();
    assert_eq!(gpu.stream_synchronize(a, s).err(), inv);
    gpu.event_destroy(a, e).unwrap();
    assert_eq!(gpu.event_destroy(a, e).err(), inv);

    // A destroyed context's objects are invalid handles, even once its slot is reused.
    let m2 = gpu.module_load_ptx(b, &ptx).unwrap();
    gpu.ctx_destroy(b).unwrap();
    assert_eq!(gpu.module_kernels(b, m2).err(), inv);
    let c = gpu.ctx_create().unwrap();
    assert_ne!(c, b);
    assert_eq!(gpu.module_kernels(c, ModuleHandle(m2.0)).err(), inv);
    assert_eq!(gpu.module_kernels(m2.ctx(), m2).err(), inv);
    assert_eq!(gpu.contexts().len(), 2);
}

#[test]
fn double_free_and_unknown_pointers() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let p = gpu.mem_alloc(h, 10_000).unwrap();
    assert_eq!(gpu.mem_free(h, p + 4), Err(CuError::InvalidValue), "interior pointer");
    gpu.mem_free(h, p).unwrap();
    assert_eq!(gpu.mem_free(h, p), Err(CuError::InvalidValue), "double free");
    assert_eq!(gpu.mem_free(h, 0), Err(CuError::InvalidValue));
    assert_eq!(gpu.memcpy_htod(h, p, &[1]), Err(CuError::InvalidValue), "use after free");
}

#[test]
fn copies_past_the_end_of_an_allocation_and_size_zero() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let n = 10_000u64;
    let p = gpu.mem_alloc(h, n).unwrap();
    let q = gpu.mem_alloc(h, n).unwrap();
    let data = vec![7u8; n as usize + 1];
    assert_eq!(gpu.memcpy_htod(h, p, &data), Err(CuError::InvalidValue));
    assert_eq!(gpu.memcpy_htod(h, p + 1, &data[..n as usize]), Err(CuError::InvalidValue));
    // The rounding to pages is not addressable: the allocation is exactly n bytes.
    assert_eq!(gpu.memcpy_htod(h, p + n, &[1]), Err(CuError::InvalidValue));
    let mut out = vec![0u8; n as usize + 1];
    assert_eq!(gpu.memcpy_dtoh(h, &mut out, p), Err(CuError::InvalidValue));
    assert_eq!(gpu.memcpy(h, StreamHandle::DEFAULT, q, p, n + 1), Err(CuError::InvalidValue));
    assert_eq!(gpu.memcpy(h, StreamHandle::DEFAULT, q + 8, p, n), Err(CuError::InvalidValue));
    assert_eq!(gpu.memset(h, StreamHandle::DEFAULT, p, MemsetValue::U32(0), n / 4 + 1), Err(CuError::InvalidValue));
    assert_eq!(
        gpu.memset(h, StreamHandle::DEFAULT, p + 1, MemsetValue::U16(0), 1),
        Err(CuError::InvalidValue),
        "misaligned"
    );
    assert_eq!(gpu.memcpy_htod(h, 0, &[1]), Err(CuError::InvalidValue), "null device pointer");
    assert_eq!(gpu.memcpy_htod(h, u64::MAX, &[1]), Err(CuError::InvalidValue));
    assert_eq!(
        gpu.memcpy(h, StreamHandle::DEFAULT, q, u64::MAX - 2, 8),
        Err(CuError::InvalidValue),
        "overflowing range"
    );
    // Size zero: allocation is an error, empty copies and memsets succeed and do nothing.
    assert_eq!(gpu.mem_alloc(h, 0), Err(CuError::InvalidValue));
    assert_eq!(gpu.memcpy_htod(h, p, &[]), Ok(()));
    assert_eq!(gpu.memcpy_dtoh(h, &mut [], p), Ok(()));
    assert!(gpu.memcpy(h, StreamHandle::DEFAULT, q, p, 0).is_ok());
    assert!(gpu.memset(h, StreamHandle::DEFAULT, p, MemsetValue::U8(1), 0).is_ok());
    // Nothing was lost: the allocations still work.
    gpu.memcpy_htod(h, p, &data[..n as usize]).unwrap();
    gpu.memcpy_dtoh(h, &mut out[..n as usize], p).unwrap();
    assert_eq!(&out[..n as usize], &data[..n as usize]);
}

#[test]
fn exhausted_vram_is_out_of_memory_and_the_next_fitting_allocation_succeeds() {
    let dev = device_with_vram(64 << 20);
    let ctx = dev.create_context().unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    assert_eq!(gpu.mem_alloc(h, 1 << 40), Err(CuError::OutOfMemory));
    assert_eq!(gpu.mem_alloc(h, u64::MAX), Err(CuError::OutOfMemory));
    let mut live = Vec::new();
    loop {
        match gpu.mem_alloc(h, 4 << 20) {
            Ok(p) => live.push(p),
            Err(e) => {
                assert_eq!(e, CuError::OutOfMemory);
                break;
            }
        }
    }
    assert!(live.len() >= 10, "{} allocations of 4 MiB on a 64 MiB board", live.len());
    let (free, _) = dev.mem_info();
    assert!(free < 4 << 20);
    gpu.mem_free(h, live[3]).unwrap();
    let again = gpu.mem_alloc(h, 4 << 20).unwrap();
    gpu.memcpy_htod(h, again, &[9; 4096]).unwrap();
    let mut b = [0u8; 4096];
    gpu.memcpy_dtoh(h, &mut b, again).unwrap();
    assert!(b.iter().all(|&x| x == 9));
}

fn round_trip(dev: &Device, ctx: &backend_user::Context, seed: u64) {
    let data = Rng(seed).bytes(100_000);
    let mut b = ctx.alloc::<u8>(data.len()).unwrap();
    b.copy_from(&data).unwrap();
    assert_eq!(b.to_vec().unwrap(), data);
    let _ = dev;
}

#[test]
fn a_malformed_pushbuffer_word_stops_only_its_channel() {
    let dev = Device::open().unwrap();
    let gpu = dev.gpu();
    let good = dev.create_context().unwrap();
    round_trip(&dev, &good, 1);
    let bad_words: [&[u32]; 4] = [
        &[0xC000_0000],    // opcode 6: reserved
        &[0x2003_0100, 1], // INCR announcing 3 words, 1 present (then the fence follows: misparsed)
        &[0x2001_A0C0, 0], // method 0x300 on unbound subchannel 5
        &[0x2001_6123, 5], // unknown copy-class method 0x48C on COPY0
    ];
    for (i, words) in bad_words.iter().enumerate() {
        let bad = dev.create_context().unwrap();
        let f = gpu.debug_submit_raw(bad.handle(), StreamHandle::DEFAULT, words).unwrap();
        assert_eq!(gpu.fence_wait(bad.handle(), f), Err(CuError::LaunchFailed), "case {i}");
        // Sticky: every later call on the context reports it.
        assert_eq!(gpu.mem_alloc(bad.handle(), 4096), Err(CuError::LaunchFailed));
        assert_eq!(bad.synchronize(), Err(CuError::LaunchFailed));
        // The other context is unaffected.
        round_trip(&dev, &good, 10 + i as u64);
    }
    assert_eq!(dev.sim().lock().stats().pbdma_errors, 4);
}

#[test]
fn a_copy_from_an_unmapped_gpu_address_faults_in_its_context_only() {
    let dev = device_with_vram(256 << 20);
    let gpu = dev.gpu();
    let free0 = dev.mem_info().0;
    let other = dev.create_context().unwrap();
    let mut keep = other.alloc::<u32>(1 << 16).unwrap();
    keep.copy_from(&vec![0x600D_600D; 1 << 16]).unwrap();

    let h = gpu.ctx_create().unwrap();
    let dst = gpu.mem_alloc(h, 1 << 20).unwrap();
    let src = 0x1000_0000u64; // below every mapping of the context
    let mut pb = Pushbuf::<32>::new();
    pb.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &[(src >> 32) as u32, src as u32, (dst >> 32) as u32, dst as u32])
        .unwrap();
    pb.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[65536]).unwrap();
    let launch = LaunchDma::new()
        .with_transfer(TransferType::NonPipelined)
        .with_src_layout(Layout::Pitch)
        .with_dst_layout(Layout::Pitch);
    pb.incr(subch::COPY0, copy::LAUNCH_DMA, &[launch.into()]).unwrap();
    let f = gpu.debug_submit_raw(h, StreamHandle::DEFAULT, pb.words()).unwrap();
    assert_eq!(gpu.fence_wait(h, f), Err(CuError::IllegalAddress), "the wait returns instead of hanging");
    assert_eq!(gpu.memcpy_htod(h, dst, &[1, 2, 3]), Err(CuError::IllegalAddress), "sticky");
    assert_eq!(dev.sim().lock().stats().faults, 1);
    // The other context's data and work are intact.
    assert!(keep.to_vec().unwrap().iter().all(|&v| v == 0x600D_600D));
    round_trip(&dev, &other, 3);
    // Destroying the faulted context frees everything it had.
    gpu.ctx_destroy(h).unwrap();
    drop(keep);
    drop(other);
    assert_eq!(dev.mem_info().0, free0);
}

#[test]
fn mmio_is_ignored_until_memory_decoding_is_enabled() {
    let mut g = FakeGpu::new(DeviceConfig::default());
    g.cfg_write32(hw::pci::BAR0, 0xFD00_0000);
    assert_eq!(g.mmio_read32(0xFD00_0000), u32::MAX);
    g.mmio_write32(0xFD00_0200, 0x100);
    g.cfg_write32(hw::pci::COMMAND_STATUS, 0x2);
    assert_eq!(g.mmio_read32(0xFD00_0000), 0x1400_00A1);
    assert_eq!(g.mmio_read32(0xFD00_0200), 0, "the write before decoding was dropped");
    // Read-only registers ignore writes, and the device logs them.
    g.mmio_write32(0xFD00_0000, 0x1234);
    assert_eq!(g.mmio_read32(0xFD00_0000), 0x1400_00A1);
    assert!(g.ignored_accesses().any(|r| r.window == Window::Bar0(0) && r.value == 0x1234));
    // Absent units and undeclared offsets read the bad-read constant.
    assert_eq!(g.mmio_read32(0xFD00_0000 + 0x0060_0000), BAD_READ);
    // A unit's registers are dead until PMC_ENABLE powers it.
    assert_eq!(g.mmio_read32(0xFD00_0000 + NV_PFIFO_INTR_EN_0.offset() as u64), BAD_READ);
    g.mmio_write32(0xFD00_0000 + NV_PMC_ENABLE.offset() as u64, 0x100);
    assert_eq!(g.mmio_read32(0xFD00_0000 + NV_PFIFO_INTR_EN_0.offset() as u64), 0);
}

#[test]
fn random_bar0_and_bar1_traffic_never_panics_the_device() {
    // A live device: a runtime context has channels, page tables and rings in place.
    let dev = device_with_vram(128 << 20);
    let ctx = dev.create_context().unwrap();
    let _buf = ctx.alloc::<u8>(1 << 20).unwrap();
    let bar0 = dev.info().bar0.0;
    let bar1 = dev.info().bar1.0;
    let mut rng = Rng(0xF00D_F00D);
    let mut g = dev.sim().lock();
    for i in 0..100_000u32 {
        let r = rng.next_u64();
        let value = match r % 4 {
            0 => rng.next_u64() as u32,
            1 => 0,
            2 => u32::MAX,
            _ => (rng.next_u64() as u32) & 0xFFFF,
        };
        let addr = match (r >> 8) % 8 {
            0 | 1 => {
                let d = &TABLE[rng.below(TABLE.len() as u64) as usize];
                bar0 + (d.offset + d.stride * rng.below(d.count as u64) as u32) as u64
            }
            2 => bar0 + NV_PRAMIN as u64 + rng.below(NV_PRAMIN_SIZE as u64),
            3 => bar0 + rng.below(BAR0_SIZE as u64),
            4 | 5 => bar1 + rng.below(dev.info().bar1.1),
            6 => rng.next_u64(),
            _ => bar1 + 0x1000 + rng.below(0x1000) * 4, // USERD: GP_PUT and friends
        };
        if (r >> 16).is_multiple_of(2) {
            g.mmio_write32(addr, value);
        } else {
            g.mmio_read32(addr);
        }
        if i % 97 == 0 {
            g.cfg_write32((rng.below(64) * 4) as u16, value | 0x6);
        }
        if i % 101 == 0 {
            g.step(10_000);
        }
    }
    g.cfg_write32(hw::pci::COMMAND_STATUS, 0x6);
    assert_eq!(g.cfg_read32(0) & 0xFFFF, 0x10DE);
    let _ = g.run(1 << 24);
    let st = g.stats();
    println!("{st:?}");
    // The garbage reached the error paths rather than bouncing off.
    assert!(st.ignored_writes > 1000 && st.pbdma_errors + st.faults > 0, "{st:?}");
}

#[test]
fn a_raw_launch_asking_for_absurd_local_memory_fails_cleanly() {
    use hw::class::compute::*;
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let gpu = dev.gpu();
    let mut pb = Pushbuf::<64>::new();
    let s = subch::COMPUTE;
    pb.incr(s, LOCAL_SIZE, &[u32::MAX]).unwrap();
    pb.incr(s, GRID_DIM_XY, &[1 | 1 << 16, 1]).unwrap();
    pb.incr(s, BLOCK_DIM_XY, &[64 | 1 << 16, 1]).unwrap();
    pb.incr(s, REGISTER_COUNT, &[16]).unwrap();
    pb.incr(s, LAUNCH, &[0]).unwrap();
    let f = gpu.debug_submit_raw(ctx.handle(), StreamHandle::DEFAULT, pb.words()).unwrap();
    assert_eq!(gpu.fence_wait(ctx.handle(), f), Err(CuError::LaunchFailed));
    assert_eq!(dev.sim().lock().stats().traps, 1);
    // A kernel shaped too large for one SM (more shared memory than an SM has) too.
    let ctx = dev.create_context().unwrap();
    let mut pb = Pushbuf::<64>::new();
    pb.incr(s, SHARED_SIZE, &[1 << 30]).unwrap();
    pb.incr(s, GRID_DIM_XY, &[1 | 1 << 16, 1]).unwrap();
    pb.incr(s, BLOCK_DIM_XY, &[32 | 1 << 16, 1]).unwrap();
    pb.incr(s, LAUNCH, &[0]).unwrap();
    let f = gpu.debug_submit_raw(ctx.handle(), StreamHandle::DEFAULT, pb.words()).unwrap();
    assert_eq!(gpu.fence_wait(ctx.handle(), f), Err(CuError::LaunchFailed));
}

#[test]
fn impossible_device_configurations_are_refused() {
    for bad in [
        DeviceConfig::default().with(|c| c.board.sms = 0),
        DeviceConfig::default().with(|c| c.sector_bytes = 0),
        DeviceConfig::default().with(|c| c.l2.bytes = 1000),
        DeviceConfig::default().with(|c| c.dispatch.launch_overhead_cycles = u64::MAX),
        DeviceConfig::default().with(|c| c.dram.mbps = 0),
    ] {
        let r = Device::open_with(DeviceOptions { config: bad, ..Default::default() });
        assert_eq!(r.err(), Some(CuError::InvalidValue));
    }
}

/// Regression (7b5e8b4 unmapped event slots before the default stream drained: the
/// pending record faulted and destroy returned CUDA_ERROR_ILLEGAL_ADDRESS): destroying a
/// context with an event record still queued behind other work succeeds, cleanly.
#[test]
fn destroying_a_context_with_a_pending_event_record_succeeds() {
    use runtime_core::StreamHandle;
    let dev = Device::open().unwrap();
    let gpu = dev.gpu();
    for streams in [0, 1] {
        let h = gpu.ctx_create().unwrap();
        let p = gpu.mem_alloc(h, 64 << 20).unwrap();
        let mut on = vec![StreamHandle::DEFAULT];
        on.extend((0..streams).map(|_| gpu.stream_create(h, true, 0).unwrap()));
        for &stream in &on {
            let e = gpu.event_create(h, true).unwrap();
            gpu.memset(h, stream, p, MemsetValue::U32(7), 16 << 20).unwrap(); // still running...
            gpu.event_record(h, e, stream).unwrap(); // ...when this is queued
        }
        let faults = dev.sim().lock().stats().faults;
        assert_eq!(gpu.ctx_destroy(h), Ok(()), "with {streams} other streams");
        assert_eq!(dev.sim().lock().stats().faults, faults, "no MMU fault while tearing down");
    }
    let (free, total) = gpu.mem_info();
    assert!(free > total - (8 << 20), "everything freed: {free} of {total}");
}

/// When the simulator cannot back VRAM with host memory (the platform's budget, or the
/// heap of a kernel-side build), the access is CUDA_ERROR_OUT_OF_MEMORY for the context
/// that made it (sticky), and other contexts carry on.
#[test]
fn host_memory_behind_vram_running_out_is_out_of_memory() {
    let dev = Device::open().unwrap();
    let other = dev.create_context().unwrap();
    let mut keep = other.alloc::<u32>(1024).unwrap();
    keep.copy_from(&[3; 1024]).unwrap();
    let ctx = dev.create_context().unwrap();
    let mut big = ctx.alloc::<u32>(4 << 20).unwrap(); // 16 MiB
    {
        let mut g = dev.sim().lock();
        let resident = g.vram_resident_bytes();
        g.set_vram_backing_limit(resident + (1 << 20));
    }
    big.fill(0xC0FF_EE00).unwrap(); // asynchronous, as cuMemsetD32 is
    assert_eq!(ctx.synchronize(), Err(CuError::OutOfMemory));
    assert_eq!(big.to_vec().map(drop), Err(CuError::OutOfMemory), "sticky");
    assert_eq!(keep.to_vec().unwrap(), vec![3; 1024]);
}
