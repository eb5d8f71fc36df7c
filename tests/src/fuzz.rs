//! The bodies of the fuzz targets (`fuzz/`): each takes arbitrary bytes and must give an
//! answer (a result or an error code), never a panic, an abort or a hang, and must leave
//! everything else intact. The cargo-fuzz binaries call these; `tests/fuzz_corpus.rs`
//! replays every committed corpus input through them in the test command.

use backend_user::{Context, Device, DeviceBuffer, DeviceConfig, DeviceOptions};
use std::sync::{Mutex, OnceLock};

/// PTX text through parse and compile; a program that compiles round-trips through the
/// container.
pub fn ptx_compile(data: &[u8]) {
    if let Ok(src) = std::str::from_utf8(data)
        && let Ok(p) = ptx::compile_ptx(src)
    {
        let bytes = p.to_container();
        assert_eq!(ptx::Program::from_container(&bytes).as_ref(), Some(&p));
    }
}

/// Bytes as a module container: decoded or refused.
pub fn container(data: &[u8]) {
    if let Some(p) = ptx::Program::from_container(data) {
        assert_eq!(ptx::Program::from_container(&p.to_container()).as_ref(), Some(&p));
    }
}

/// A preset file: refused with a named parameter, or a board that opens and works (when
/// its model is small enough for a fuzzer to build thousands of).
pub fn preset(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(config) = backend_user::preset::from_toml(text) else { return };
    let host: u64 = config.host_bytes().iter().map(|&(_, b)| b).sum();
    if host > 64 << 20 || config.board.vram_size > 1 << 30 {
        return;
    }
    let Ok(dev) = Device::open_with(DeviceOptions { config, ..Default::default() }) else { return };
    let ctx = dev.create_context().unwrap();
    let mut b = ctx.alloc::<u32>(1024).unwrap();
    b.fill(0x600D_F00D).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![0x600D_F00D; 1024]);
}

struct Live {
    dev: Device,
    healthy: Context,
    data: DeviceBuffer<u32>,
}

const HEALTHY: u32 = 0x5AFE_DA7A;

/// Raw GPFIFO/pushbuffer words (the input as little-endian u32s, at most 4000) submitted
/// on a fresh context of a live device, which then synchronizes and is destroyed; after
/// every input another context's data must be intact and its work must still run. The
/// device lives across inputs; it is small (4 SMs, a 20,000-cycle watchdog), so a garbage
/// launch, which runs as any kernel does until the watchdog, costs little host time.
pub fn pushbuf(data: &[u8]) {
    static LIVE: OnceLock<Mutex<Live>> = OnceLock::new();
    let live = LIVE.get_or_init(|| {
        let config = DeviceConfig::default().with(|c| {
            c.board.sms = 4;
            c.board.gpcs = 1;
            c.watchdog_cycles = 20_000;
            c.board.vram_size = 256 << 20
        });
        let dev = Device::open_with(DeviceOptions { config, ..Default::default() }).unwrap();
        let healthy = dev.create_context().unwrap();
        let mut data = healthy.alloc::<u32>(4096).unwrap();
        data.fill(HEALTHY).unwrap();
        Mutex::new(Live { dev, healthy, data })
    });
    let live = live.lock().unwrap_or_else(|e| e.into_inner());
    let words: Vec<u32> =
        data.chunks(4).take(4000).map(|c| c.iter().rev().fold(0u32, |w, &b| w << 8 | b as u32)).collect();
    if !words.is_empty() {
        let victim = live.dev.create_context().unwrap();
        let s = victim.default_stream();
        let _ = s.submit_raw(&words);
        let _ = victim.synchronize();
        drop(s);
        drop(victim);
    }
    assert_eq!(live.data.to_vec().unwrap(), vec![HEALTHY; 4096], "another context's data changed");
    live.healthy.synchronize().unwrap();
}

/// Driver API call sequences through the C ABI: each input byte picks a call, the next
/// bytes its arguments, over pools of the handles made so far (and forged ones). Pointers
/// are NULL or valid, as the API's contract has them. No call may panic inside the library
/// (CUDA_ERROR_UNKNOWN); every context made is destroyed at the end.
pub fn driver_api(data: &[u8]) {
    use cuda::*;
    use std::ffi::c_void;
    type H = *mut c_void;
    const UNKNOWN: CUresult = 999;
    const VECADD: &str = concat!(include_str!("../../kernels/vecadd.ptx"), "\0");
    static ONCE: Mutex<()> = Mutex::new(());
    let _serial = ONCE.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(cuInit(0), 0);
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next();
    let (mut ctxs, mut ptrs, mut mods, mut funcs, mut streams, mut events) =
        (Vec::<H>::new(), Vec::<u64>::new(), Vec::<H>::new(), Vec::<H>::new(), Vec::<H>::new(), Vec::<H>::new());
    let pick_h = |v: &Vec<H>, b: u8| -> H {
        if b & 0x80 != 0 || v.is_empty() {
            std::ptr::without_provenance_mut(b as usize * 16 + 0x1000) // forged
        } else {
            v[b as usize % v.len()]
        }
    };
    let pick_p = |v: &Vec<u64>, b: u8| -> u64 {
        if b & 0x80 != 0 || v.is_empty() { 0x2_0000_0000 + b as u64 * 4096 } else { v[b as usize % v.len()] }
    };
    let mut buf = vec![0u8; 1 << 16];
    for _ in 0..64 {
        let (Some(op), Some(a)) = (next(), next()) else { break };
        let b = next().unwrap_or(0);
        let n = (a as usize) << 4 | (b as usize & 0xF); // a size up to 4 KiB
        let r: CUresult = match op % 24 {
            0 => {
                let mut c: H = std::ptr::null_mut();
                let r = cuCtxCreate_v2(&mut c, 0, 0);
                if r == 0 {
                    ctxs.push(c);
                }
                r
            }
            1 => {
                let c = pick_h(&ctxs, a);
                ctxs.retain(|&x| x != c);
                cuCtxDestroy_v2(c)
            }
            2 => cuCtxSetCurrent(pick_h(&ctxs, a)),
            3 => cuCtxSynchronize(),
            4 => {
                let mut p = 0u64;
                let r = cuMemAlloc_v2(&mut p, n);
                if r == 0 {
                    ptrs.push(p);
                }
                r
            }
            5 => {
                let p = pick_p(&ptrs, a);
                ptrs.retain(|&x| x != p);
                cuMemFree_v2(p)
            }
            6 => cuMemcpyHtoD_v2(pick_p(&ptrs, a), buf.as_ptr().cast(), n),
            7 => cuMemcpyDtoH_v2(buf.as_mut_ptr().cast(), pick_p(&ptrs, a), n),
            8 => cuMemcpyDtoD_v2(pick_p(&ptrs, a), pick_p(&ptrs, b), n),
            9 => cuMemsetD32_v2(pick_p(&ptrs, a), 0xDEAD_BEEF, n / 4),
            10 => cuMemsetD8Async(pick_p(&ptrs, a), b, n, pick_h(&streams, b)),
            11 => {
                let mut m: H = std::ptr::null_mut();
                let r = cuModuleLoadData(&mut m, VECADD.as_ptr().cast());
                if r == 0 {
                    mods.push(m);
                }
                r
            }
            12 => {
                let m = pick_h(&mods, a);
                mods.retain(|&x| x != m);
                cuModuleUnload(m)
            }
            13 => {
                let mut f: H = std::ptr::null_mut();
                let r = cuModuleGetFunction(&mut f, pick_h(&mods, a), c"vecadd".as_ptr());
                if r == 0 {
                    funcs.push(f);
                }
                r
            }
            14 => {
                let (mut pa, mut pb, mut pc) = (pick_p(&ptrs, a), pick_p(&ptrs, b), pick_p(&ptrs, a ^ b));
                let mut count = (n / 4) as i32;
                let mut params: [*mut c_void; 4] =
                    [(&raw mut pa).cast(), (&raw mut pb).cast(), (&raw mut pc).cast(), (&raw mut count).cast()];
                let grid = (a as u32 % 4) + 1;
                let block = 32 * ((b as u32 % 40) + 1); // up to 1280: some too large
                cuLaunchKernel(
                    pick_h(&funcs, a),
                    grid,
                    1,
                    1,
                    block,
                    1,
                    1,
                    0,
                    pick_h(&streams, b),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            15 => {
                let mut s: H = std::ptr::null_mut();
                let r = cuStreamCreate(&mut s, (a & 1) as u32);
                if r == 0 {
                    streams.push(s);
                }
                r
            }
            16 => {
                let s = pick_h(&streams, a);
                streams.retain(|&x| x != s);
                cuStreamDestroy_v2(s)
            }
            17 => cuStreamSynchronize(pick_h(&streams, a)),
            18 => {
                let mut e: H = std::ptr::null_mut();
                let r = cuEventCreate(&mut e, (a & 2) as u32);
                if r == 0 {
                    events.push(e);
                }
                r
            }
            19 => cuEventRecord(pick_h(&events, a), pick_h(&streams, b)),
            20 => cuStreamWaitEvent(pick_h(&streams, a), pick_h(&events, b), 0),
            21 => cuEventSynchronize(pick_h(&events, a)),
            22 => {
                let mut ms = 0f32;
                cuEventElapsedTime(&mut ms, pick_h(&events, a), pick_h(&events, b))
            }
            _ => {
                let (mut base, mut size) = (0u64, 0usize);
                cuMemGetAddressRange_v2(&mut base, &mut size, pick_p(&ptrs, a).wrapping_add(b as u64))
            }
        };
        assert_ne!(r, UNKNOWN, "call {} panicked inside the library", op % 24);
    }
    for c in ctxs {
        assert_ne!(cuCtxDestroy_v2(c), UNKNOWN);
    }
}
