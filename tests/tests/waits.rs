//! Waits that take long: a host that simulates slowly, kernels spinning on memory the host
//! or a later warp writes, and the watchdog that ends a kernel that never finishes.

use backend_user::{CuError, Device, StreamHandle};

const HDR: &str = ".version 6.4\n.target sm_70\n.address_size 64\n";

/// A host that simulates slowly: each YIELD runs the device for only `STEP` cycles, then
/// sleeps. Everything else is the user-space platform's.
struct SlowHost(backend_user::UserPlatform);

impl SlowHost {
    const STEP: u64 = 10_000;
    const SLEEP: std::time::Duration = std::time::Duration::from_millis(20);
}

impl runtime_core::platform::Platform for SlowHost {
    type RawMutex = parking_lot::RawMutex;
    fn log(&self, level: runtime_core::platform::Level, args: std::fmt::Arguments<'_>) {
        self.0.log(level, args)
    }
    fn yield_now(&self) -> runtime_core::platform::Activity {
        use runtime_core::platform::Activity;
        let busy = self.0.device().lock().run(Self::STEP) == fake_pci::RunState::Busy;
        std::thread::sleep(Self::SLEEP);
        if busy { Activity::Progress } else { Activity::Idle }
    }
    fn dma_alloc(&self, len: usize) -> runtime_core::Result<runtime_core::platform::DmaBuffer> {
        self.0.dma_alloc(len)
    }
    fn dma_free(&self, buf: &runtime_core::platform::DmaBuffer) {
        self.0.dma_free(buf)
    }
    fn cfg_read32(&self, off: u16) -> u32 {
        self.0.cfg_read32(off)
    }
    fn cfg_write32(&self, off: u16, value: u32) {
        self.0.cfg_write32(off, value)
    }
    fn mmio_read32(&self, addr: u64) -> u32 {
        self.0.mmio_read32(addr)
    }
    fn mmio_write32(&self, addr: u64, value: u32) {
        self.0.mmio_write32(addr, value)
    }
}

/// Regression (7b5e8b4 gave up after 10 s of host time with CUDA_ERROR_LAUNCH_TIMEOUT
/// while the kernel was healthy): a wait lasts as long as the simulation takes.
#[test]
fn a_kernel_that_takes_the_host_longer_than_ten_seconds_completes() {
    use backend_user::{ClockMode, DeviceConfig, UserPlatform};
    use runtime_core::{Gpu, LaunchConfig, MemsetValue, Params};
    let gpu = Gpu::probe(SlowHost(UserPlatform::new(DeviceConfig::default(), ClockMode::Stepped))).unwrap();
    let h = gpu.ctx_create().unwrap();
    let m = gpu.module_load_ptx(h, &format!("{HDR}{}", tests::CHAIN_PTX)).unwrap();
    let f = gpu.module_get_function(h, m, "chain").unwrap();
    let out = gpu.mem_alloc(h, 4).unwrap();
    gpu.memset(h, StreamHandle::DEFAULT, out, MemsetValue::U32(0), 1).unwrap();
    let n: u32 = 400_000;
    let mut params = out.to_le_bytes().to_vec();
    params.extend_from_slice(&n.to_le_bytes());
    let t0 = std::time::Instant::now();
    let c0 = gpu.ptimer_ns();
    gpu.launch(h, f, &LaunchConfig::new([1, 1, 1], [1, 1, 1]), Params::Buffer(&params)).unwrap();
    let mut got = [0u8; 4];
    gpu.memcpy_dtoh(h, &mut got, out).unwrap();
    let host = t0.elapsed();
    let expect = (0..n).fold(1u32, |a, _| a.wrapping_mul(3).wrapping_add(1));
    assert_eq!(u32::from_le_bytes(got), expect);
    let sim_ns = gpu.ptimer_ns() - c0;
    eprintln!("chain: {:.1} s of host time, {} us simulated", host.as_secs_f64(), sim_ns / 1000);
    assert!(host.as_secs() >= 10, "the kernel must keep the host waiting over 10 s ({host:?})");
}

/// One warp waiting for a global flag to become non-zero, then storing it.
const SPIN_ON_FLAG: &str = ".entry spin(.param .u64 flag, .param .u64 out)
{
 .reg .b32 %r<3>;
 .reg .b64 %rd<3>;
 .reg .pred %p;
 ld.param.u64 %rd1, [flag];
 ld.param.u64 %rd2, [out];
L:
 ld.volatile.global.u32 %r1, [%rd1];
 setp.eq.u32 %p, %r1, 0;
 @%p bra L;
 st.global.u32 [%rd2], %r1;
 ret;
}
";

fn open_mode(mode: fake_pci::config::Mode) -> Device {
    use backend_user::{DeviceConfig, DeviceOptions};
    Device::open_with(DeviceOptions { config: DeviceConfig::default().with(|c| c.mode = mode), ..Default::default() })
        .unwrap()
}

/// Regression (7b5e8b4: functional mode ran a whole grid inside one device step, ~15 hours
/// to the default watchdog, and timing mode took ~270 s): a spin loop that nothing will
/// ever release ends in sticky CUDA_ERROR_LAUNCH_TIMEOUT at the default preset's watchdog
/// (2e9 cycles) within seconds of host time, in both modes; another context carries on.
#[test]
fn a_kernel_spinning_forever_meets_the_default_watchdog_in_seconds() {
    use fake_pci::config::Mode;
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = open_mode(mode);
        let watchdog = dev.sim().lock().config().watchdog_cycles;
        assert_eq!(watchdog, 2_000_000_000, "the default preset's watchdog");
        let other = dev.create_context().unwrap();
        let mut keep = other.alloc::<u32>(64).unwrap();
        keep.copy_from(&[5; 64]).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&format!("{HDR}{SPIN_ON_FLAG}")).unwrap();
        let mut flag = ctx.alloc::<u32>(1).unwrap();
        flag.copy_from(&[0]).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        let (c0, t0) = (dev.sim().lock().cycles(), std::time::Instant::now());
        m.function("spin").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[flag.arg(), out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Err(CuError::LaunchTimeout), "{mode:?}");
        let host = t0.elapsed();
        let cycles = dev.sim().lock().cycles() - c0;
        eprintln!("{mode:?}: watchdog after {cycles} cycles, {:.2} s of host time", host.as_secs_f64());
        assert!(cycles > watchdog, "{mode:?}: stopped after {cycles} cycles");
        assert!(host.as_secs() < 20, "{mode:?}: {host:?} of host time");
        // Sticky, as in CUDA; the other context is untouched and keeps working.
        assert_eq!(ctx.synchronize(), Err(CuError::LaunchTimeout));
        assert_eq!(flag.to_vec().map(drop), Err(CuError::LaunchTimeout));
        assert_eq!(keep.to_vec().unwrap(), vec![5; 64]);
        keep.fill(9).unwrap();
        assert_eq!(keep.to_vec().unwrap(), vec![9; 64]);
    }
}

/// A spinning kernel is released by a write it cannot see coming: the host writes the flag
/// in pinned memory after the device has spun 1e8 cycles (stepped by hand, quantum by
/// quantum, as a waiting thread would). Skipped spinning never hides a write: the device
/// looks again every time the host enters it.
#[test]
fn a_spin_released_by_the_host_completes() {
    use fake_pci::config::Mode;
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = open_mode(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&format!("{HDR}{SPIN_ON_FLAG}")).unwrap();
        let flag = ctx.alloc_host::<u32>(1).unwrap();
        flag.write(&[0]).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("spin").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[flag.arg(), out.arg()]).unwrap();
        {
            let mut g = dev.sim().lock();
            let c0 = g.cycles();
            while g.cycles() - c0 < 100_000_000 {
                assert_eq!(g.run(backend_user::platform::YIELD_QUANTUM), fake_pci::RunState::Busy, "{mode:?}");
            }
            assert!(g.grid_progress().1 > 0, "{mode:?}: still spinning");
        }
        flag.write(&[0xF1A6]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()), "{mode:?}");
        assert_eq!(out.to_vec().unwrap(), [0xF1A6], "{mode:?}");
    }
}

/// Functional mode runs a block's warps in turn; one that spins lets the others run
/// (7b5e8b4 let warp 0 spin until the watchdog, waiting for a flag warp 1 would set).
#[test]
fn a_warp_waiting_for_a_later_warp_completes_in_both_modes() {
    use fake_pci::config::Mode;
    let src = format!(
        "{HDR}.entry handoff(.param .u64 out)
{{
 .reg .b32 %r<4>;
 .reg .b64 %rd<2>;
 .reg .pred %p<4>;
 .shared .align 4 .u32 flag;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 setp.lt.u32 %p1, %r1, 32;
 @!%p1 bra PRODUCE;
W:
 ld.volatile.shared.u32 %r2, [flag];
 setp.eq.u32 %p2, %r2, 0;
 @%p2 bra W;
 st.global.u32 [%rd1], %r2;
 bra.uni END;
PRODUCE:
 setp.eq.u32 %p3, %r1, 32;
 @!%p3 bra END;
 mov.u32 %r3, 7;
 st.volatile.shared.u32 [flag], %r3;
END:
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = open_mode(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("handoff").unwrap().launch([3, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()), "{mode:?}");
        assert_eq!(out.to_vec().unwrap(), [7], "{mode:?}");
    }
}

/// Blocks that wait for a later block: every block but the last spins on a flag in global
/// memory that the last one sets. It completes while the whole grid fits on the device at
/// once (functional mode keeps a stalled block resident and starts the next beside it, as
/// the hardware does: cooperative groups' `grid.sync()` needs it); one block more and the
/// last cannot start, so the grid deadlocks as on a GPU and meets the watchdog, in both
/// modes. Two SMs of two 1024-thread blocks each: four resident.
#[test]
fn blocks_waiting_for_a_later_block_complete_while_resident_in_both_modes() {
    use backend_user::{DeviceConfig, DeviceOptions};
    use fake_pci::config::Mode;
    let src = format!(
        "{HDR}.entry wait_last(.param .u64 flag, .param .u64 out)
{{
 .reg .b32 %r<6>;
 .reg .b64 %rd<4>;
 .reg .pred %p<3>;
 ld.param.u64 %rd1, [flag];
 ld.param.u64 %rd2, [out];
 mov.u32 %r1, %ctaid.x;
 mov.u32 %r2, %nctaid.x;
 add.u32 %r3, %r1, 1;
 setp.eq.u32 %p1, %r3, %r2;
 @%p1 bra LAST;
W:
 ld.volatile.global.u32 %r4, [%rd1];
 setp.eq.u32 %p2, %r4, 0;
 @%p2 bra W;
 bra.uni OUT;
LAST:
 add.u32 %r4, %r2, 100;
 st.volatile.global.u32 [%rd1], %r4;
OUT:
 mul.wide.u32 %rd3, %r1, 4;
 add.u64 %rd3, %rd2, %rd3;
 st.global.u32 [%rd3], %r4;
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let config = DeviceConfig::default().with(|c| {
            c.mode = mode;
            c.board.sms = 2;
            c.watchdog_cycles = 20_000_000;
        });
        let dev = Device::open_with(DeviceOptions { config, ..Default::default() }).unwrap();
        for (blocks, ok) in [(4u32, true), (3, true), (5, false)] {
            let ctx = dev.create_context().unwrap();
            let m = ctx.load_ptx(&src).unwrap();
            let mut flag = ctx.alloc::<u32>(1).unwrap();
            flag.copy_from(&[0]).unwrap();
            let out = ctx.alloc::<u32>(blocks as usize).unwrap();
            let f = m.function("wait_last").unwrap();
            f.launch([blocks, 1, 1], [1024, 1, 1], 0, &[flag.arg(), out.arg()]).unwrap();
            if ok {
                assert_eq!(ctx.synchronize(), Ok(()), "{mode:?}, {blocks} blocks");
                assert_eq!(out.to_vec().unwrap(), vec![blocks + 100; blocks as usize], "{mode:?}");
            } else {
                assert_eq!(ctx.synchronize(), Err(CuError::LaunchTimeout), "{mode:?}, {blocks} blocks");
            }
        }
    }
}

/// Named barriers with a thread count, producer and consumer: warps 0-1 write a round's
/// values into shared memory and `bar.arrive 1, 128`; warps 2-3 `bar.sync 1, 128`, read them
/// and `bar.arrive 2, 128`, which the producers `bar.sync` (the count from a register) before
/// they overwrite them; four rounds. In both modes, clean under racecheck (a named barrier
/// orders the block's accesses); a count that is not a whole number of warps stops the
/// kernel, and a barrier beyond the sixteen a block has is refused at load.
#[test]
fn named_barriers_hand_data_from_producer_to_consumer_warps() {
    use backend_user::{CheckMode, DeviceConfig, DeviceOptions};
    use fake_pci::config::Mode;
    let kernel = |count: &str| {
        format!(
            "{HDR}.entry pc(.param .u64 out)\n{{\n .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n .reg .pred %p<3>;\n\
             .shared .align 4 .b32 buf[64];\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n\
             and.b32 %r2, %r1, 63;\n shl.b32 %r3, %r2, 2;\n mov.u32 %r4, buf;\n add.u32 %r4, %r4, %r3;\n\
             setp.lt.u32 %p1, %r1, 64;\n mov.u32 %r5, 0;\n mov.u32 %r10, 128;\n\
             LOOP:\n @!%p1 bra CONSUME;\n setp.eq.u32 %p2, %r5, 0;\n @%p2 bra FIRST;\n bar.sync 2, %r10;\n\
             FIRST:\n mad.lo.u32 %r6, %r5, 1000, %r2;\n st.shared.u32 [%r4], %r6;\n bar.arrive 1, {count};\n bra.uni NEXT;\n\
             CONSUME:\n barrier.sync.aligned 1, 128;\n ld.shared.u32 %r7, [%r4];\n bar.arrive 2, 128;\n\
             mad.lo.u32 %r8, %r5, 64, %r2;\n mul.wide.u32 %rd2, %r8, 4;\n add.u64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r7;\n\
             NEXT:\n add.u32 %r5, %r5, 1;\n setp.lt.u32 %p2, %r5, 4;\n @%p2 bra LOOP;\n ret;\n}}\n"
        )
    };
    for mode in [Mode::Timing, Mode::Functional] {
        let checks = CheckMode::new().with_racecheck(true);
        let config = DeviceConfig::default().with(|c| c.mode = mode);
        let dev = Device::open_with(DeviceOptions { config, checks, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&kernel("128")).unwrap();
        let out = ctx.alloc::<u32>(256).unwrap();
        m.function("pc").unwrap().launch([1, 1, 1], [128, 1, 1], 0, &[out.arg()]).unwrap();
        ctx.synchronize().unwrap();
        let want: Vec<u32> = (0..4u32).flat_map(|r| (0..64u32).map(move |t| r * 1000 + t)).collect();
        assert_eq!(out.to_vec().unwrap(), want, "{mode:?}");
        let (reports, _) = ctx.check_reports().unwrap();
        assert!(reports.is_empty(), "{mode:?}: {reports:?}");
        // A count of 100 threads is not whole warps.
        let bad = dev.create_context().unwrap();
        let m = bad.load_ptx(&kernel("100")).unwrap();
        let out = bad.alloc::<u32>(256).unwrap();
        m.function("pc").unwrap().launch([1, 1, 1], [128, 1, 1], 0, &[out.arg()]).unwrap();
        assert!(bad.synchronize().is_err(), "{mode:?}");
    }
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let e = ctx.load_ptx(&kernel("128").replace("bar.arrive 1,", "bar.arrive 16,")).err();
    assert_eq!(e, Some(CuError::InvalidPtx));
}
