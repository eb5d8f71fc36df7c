//! Replayable faults (issue 15, item 4's device half): in a context created after
//! `enable_replayable_faults`, a kernel's access to a page with no PTE parks its warp and
//! is recorded in the fault buffer; the waiting thread's service hands the records to the
//! handler, which makes the pages present (here: VMM memory mapped into a reservation),
//! and the device replays the access: the kernel finishes with the right results. A
//! handler that cannot serve cancels: the grid fails with the fault, as without replay.
//! Both execution modes; a full fault buffer drops records, and their warps fault again
//! after the replay.

use backend_user::{Arg, Device, DeviceConfig, DeviceOptions};
use fake_pci::config::Mode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const FILL: &str = r#"
.version 6.4
.target sm_70
.address_size 64
.visible .entry fill(.param .u64 out, .param .u32 n) {
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u32 %r1, [n]; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4; setp.ge.u32 %p1, %r5, %r1; @%p1 bra DONE;
  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r5, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
DONE:
  ret;
}
"#;

/// Run `fill` over a reserved range with nothing mapped, the handler mapping what faults
/// (or, with `serve` false, refusing): the launch's result, the buffer's contents, the
/// kernel's replayable faults and the pages the handler mapped.
fn run(mode: Mode, serve: bool) -> (Result<(), backend_user::CuError>, Vec<u32>, u64, u64, u64) {
    let config = DeviceConfig::default().with(|c| c.mode = mode);
    let dev = Device::open_with(DeviceOptions { config, separate_va: true, ..Default::default() }).unwrap();
    let gpu = dev.gpu().clone();
    let page = backend_user::UserGpu::VMM_GRANULARITY;
    let mapped = Arc::new(AtomicU64::new(0));
    let calls = Arc::new(AtomicU64::new(0));
    let ctx_of_handler = Arc::new(Mutex::new(None));
    {
        let (gpu, mapped, ctx, calls) = (Arc::downgrade(&gpu), mapped.clone(), ctx_of_handler.clone(), calls.clone());
        dev.gpu()
            .enable_replayable_faults(64, move |faults| {
                calls.fetch_add(1, Ordering::Relaxed);
                let (Some(gpu), Some(h)) = (gpu.upgrade(), *ctx.lock().unwrap()) else { return false };
                if !serve {
                    return false;
                }
                let mut pages: Vec<u64> = faults.iter().map(|f| f.va & !(page - 1)).collect();
                pages.sort_unstable();
                pages.dedup();
                for va in pages {
                    let phys = gpu.mem_create(page).unwrap();
                    gpu.mem_map(h, va, page, 0, phys).unwrap();
                    gpu.mem_set_access_now(h, va, page, runtime_core::Access::ReadWrite).unwrap();
                    mapped.fetch_add(1, Ordering::Relaxed);
                }
                true
            })
            .unwrap();
    }
    let ctx = dev.create_context().unwrap();
    *ctx_of_handler.lock().unwrap() = Some(ctx.handle());
    let n = 3 * page as usize / 4; // three pages of u32
    let va = gpu.mem_reserve(ctx.handle(), 4 * page, 0, 0).unwrap();
    let m = ctx.load_ptx(FILL).unwrap();
    let f = m.function("fill").unwrap();
    let launched = f.launch([(n as u32).div_ceil(128), 1, 1], [128, 1, 1], 0, &[Arg::U64(va), Arg::U32(n as u32)]);
    let result = launched.and_then(|_| ctx.synchronize());
    let stats = dev.take_kernel_stats();
    let faults = stats.last().map_or(0, |k| k.replayable_faults);
    let mut out = vec![0u32; n];
    if result.is_ok() {
        let mut bytes = vec![0u8; 4 * n];
        gpu.memcpy_dtoh(ctx.handle(), &mut bytes, va).unwrap();
        out = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    }
    (result, out, faults, mapped.load(Ordering::Relaxed), calls.load(Ordering::Relaxed))
}

#[test]
fn a_fault_on_a_missing_page_waits_for_the_page_and_replays() {
    for mode in [Mode::Timing, Mode::Functional] {
        let (r, out, faults, mapped, calls) = run(mode, true);
        assert!(r.is_ok(), "{mode:?}: {r:?}");
        if mode == Mode::Timing {
            // 96 warps fault at once into a buffer of 64: the rest fault again after the
            // first replay, and a second service maps what they need.
            assert!(faults > 96 && calls >= 2, "{faults} faults, {calls} services");
        }
        assert!(out.iter().enumerate().all(|(i, &v)| v == i as u32), "{mode:?}: every store made after the replay");
        assert_eq!(mapped, 3, "{mode:?}: the three pages touched were mapped, once each");
        assert!(faults >= 3, "{mode:?}: {faults} replayable faults recorded");
    }
}

#[test]
fn a_fault_the_handler_cannot_serve_fails_the_grid() {
    for mode in [Mode::Timing, Mode::Functional] {
        let (r, _, faults, mapped, _) = run(mode, false);
        assert_eq!(r, Err(backend_user::CuError::IllegalAddress), "{mode:?}");
        assert_eq!(mapped, 0);
        assert!(faults >= 1, "{mode:?}");
    }
}

/// What a fault service migrates goes through the copy engine, on the runtime's own
/// channel, by physical address (LAUNCH_DMA `src_physical`/`dst_physical`): host memory
/// to a VRAM page and back, timed on the simulated clock as PCIe copies.
#[test]
fn migrations_go_through_the_copy_engine_by_physical_address() {
    use runtime_core::api::migrate::Side;
    let dev = backend_user::Device::open().unwrap();
    let gpu = dev.gpu();
    let mem = std::sync::Arc::new(fifo::SharedMem::new(3 * 4096));
    let data: Vec<u8> = (0..3 * 4096).map(|i| (i * 7 % 251) as u8).collect();
    mem.write(0, &data).unwrap();
    let phys = gpu.vram_pages_alloc(2 * 4096).unwrap();
    dev.take_copy_stats();
    let t0 = dev.time_ns();
    // Pages 1 and 2 of the host memory to the two VRAM pages, swapped.
    gpu.migrate(&[
        (Side::Host(mem.clone(), 4096), Side::Vram(phys + 4096), 4096),
        (Side::Host(mem.clone(), 8192), Side::Vram(phys), 4096),
    ])
    .unwrap();
    let mut buf = vec![0u8; 8192];
    gpu.vram_read(phys, &mut buf).unwrap();
    assert_eq!((&buf[..4096], &buf[4096..]), (&data[8192..], &data[4096..8192]));
    // And back, over page 0.
    gpu.migrate(&[(Side::Vram(phys + 4096), Side::Host(mem.clone(), 0), 4096)]).unwrap();
    let mut back = vec![0u8; 4096];
    mem.read(0, &mut back).unwrap();
    assert_eq!(back, data[4096..8192]);
    let copies = dev.take_copy_stats();
    let kinds: Vec<_> = copies.iter().map(|c| (c.kind, c.bytes)).collect();
    use fake_pci::copy::CopyKind::{DtoH, HtoD};
    assert_eq!(kinds, [(HtoD, 4096), (HtoD, 4096), (DtoH, 4096)]);
    assert!(dev.time_ns() > t0, "the copies took simulated time");
    gpu.migrate_forget(&mem);
    gpu.vram_pages_free(phys, 2 * 4096);
}
