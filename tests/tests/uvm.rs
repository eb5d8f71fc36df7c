//! The unified-memory policy (runtime-core's `uvm`), tested through the Rust API with no C
//! program: residency (a GPU's first touch migrates a page, later kernels find it, host
//! access brings it home), eviction order under oversubscription (the oldest memory goes
//! first, and pages whose preferred location is the GPU last), read-mostly copies, and a
//! page that thrashes between two GPUs staying put and being reached over the link. And the
//! system's other service, peer access (runtime-core's `system::Peers`), the same way.

use backend_user::{Advice, Arg, Context, DeviceOptions, Location, Managed, System, SystemConfig};

/// `inc(p, n)`: `p[i] += 1` for `i < n`; `copy(src, dst, n)`: `dst[i] = src[i]` (reads `src`).
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry inc(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r6, [%rd3];
    add.s32 %r7, %r6, 1;
    st.global.u32 [%rd3], %r7;
DONE:
    ret;
}
.visible .entry copy(.param .u64 src, .param .u64 dst, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd4, [dst];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r6, [%rd3];
    add.s64 %rd5, %rd4, %rd2;
    st.global.u32 [%rd5], %r6;
DONE:
    ret;
}
"#;

/// Words per 4 KiB page.
const WORDS: usize = 1024;

fn system(preset: &str) -> System {
    let cfg = backend_user::preset::load_system(preset).unwrap();
    System::open_with(cfg, &DeviceOptions::default()).unwrap().with_unified_memory(true).unwrap()
}

/// Run `name` (`inc` on `a`, or `copy` from `a` to `b`) over `n` words on context `ctx`
/// of GPU `g`, synchronized: the kernel's (replayable faults, bytes read over the link).
fn run(sys: &System, g: usize, ctx: &Context, name: &str, args: &[Arg<'_>], n: usize) -> (u64, u64) {
    let module = ctx.load_ptx(PTX).unwrap();
    let mut all = args.to_vec();
    all.push(Arg::I32(n as i32));
    module.function(name).unwrap().launch([(n as u32).div_ceil(256), 1, 1], [256, 1, 1], 0, &all).unwrap();
    ctx.synchronize().unwrap();
    let k = sys.device(g).unwrap().take_kernel_stats().pop().unwrap();
    (k.replayable_faults, k.peer_read_bytes)
}

/// The service's counts: (pages to a GPU, pages to the host, evictions).
fn counts(sys: &System) -> (u64, u64, u64) {
    let c = sys.uvm().unwrap().counts();
    let n = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
    (n(&c.to_gpu), n(&c.to_host), n(&c.evictions))
}

/// Residency: 16 pages start on the host; the first kernel faults each in (16 pages to
/// the GPU); the second finds them there (no fault, nothing moves); host access brings all
/// 16 home, with the kernels' writes.
#[test]
fn first_touch_migrates_and_host_access_brings_pages_home() {
    let sys = system("gv100");
    let ctx = sys.create_context(0).unwrap();
    let m = sys.alloc_managed::<u32>(&ctx, 16 * WORDS).unwrap();
    m.write(&(0..16 * WORDS as u32).collect::<Vec<_>>()).unwrap();
    assert_eq!(m.location(0), Some(Location::Host));
    let (faults, _) = run(&sys, 0, &ctx, "inc", &[m.arg()], m.len());
    assert!(faults >= 16, "{faults} faults");
    assert_eq!(counts(&sys), (16, 0, 0));
    assert!((0..16).all(|p| m.location(p * WORDS) == Some(Location::Gpu(0))));
    assert_eq!(run(&sys, 0, &ctx, "inc", &[m.arg()], m.len()).0, 0, "resident: no fault");
    assert_eq!(counts(&sys), (16, 0, 0));
    let back = m.to_vec().unwrap();
    assert_eq!(counts(&sys), (16, 16, 0));
    assert!(back.iter().enumerate().all(|(i, &v)| v == i as u32 + 2));
    assert_eq!(m.location(5 * WORDS), Some(Location::Host));
    // A prefetch moves them with no fault at all.
    m.prefetch(Location::Gpu(0)).unwrap();
    assert_eq!(counts(&sys), (32, 16, 0));
    assert_eq!(run(&sys, 0, &ctx, "inc", &[m.arg()], m.len()).0, 0);
}

/// Eviction order on a 16 MiB GPU: `a` (6 MiB) then `b` (6 MiB) are resident; `c` (6 MiB)
/// needs room, which comes from the lowest addresses (the memory made first), `a`, not `b`.
/// With `b`'s preferred location the GPU, a second pass over `a` evicts other pages before
/// any of `b`'s. (Not least recently used: a sweep over the lowest region evicts its own
/// earlier pages.)
#[test]
fn a_full_vram_evicts_the_oldest_pages_and_preferred_ones_last() {
    let mut gpu = backend_user::preset::load("gv100").unwrap();
    gpu.board.vram_size = 16 << 20;
    let cfg = SystemConfig::single(gpu);
    let sys = System::open_with(cfg, &DeviceOptions::default()).unwrap().with_unified_memory(true).unwrap();
    let ctx = sys.create_context(0).unwrap();
    let words = 6 << 18; // 6 MiB
    let [a, b, c] = [0, 1, 2].map(|_| sys.alloc_managed::<u32>(&ctx, words).unwrap());
    assert!(a.ptr() < b.ptr() && b.ptr() < c.ptr(), "made in address order");
    run(&sys, 0, &ctx, "inc", &[a.arg()], words);
    run(&sys, 0, &ctx, "inc", &[b.arg()], words);
    assert_eq!(counts(&sys).2, 0, "12 MiB fit");
    run(&sys, 0, &ctx, "inc", &[c.arg()], words);
    let evicted = counts(&sys).2;
    assert!(evicted > 0, "no room for c without evictions");
    let on_gpu =
        |m: &Managed<u32>| (0..m.len() / WORDS).filter(|&p| m.location(p * WORDS) == Some(Location::Gpu(0))).count();
    let pages = words / WORDS;
    assert_eq!(on_gpu(&b), pages, "b is younger than a: untouched");
    assert_eq!(on_gpu(&c), pages);
    assert_eq!(on_gpu(&a) as u64, pages as u64 - evicted, "the room came from a");
    // b preferred on the GPU: touching a again takes its room from pages that are not
    // (a's own resident pages outside each fault batch come first: lowest address), none
    // of b's.
    b.advise(0, words, Advice::PreferredLocation(Some(Location::Gpu(0)))).unwrap();
    run(&sys, 0, &ctx, "inc", &[a.arg()], words);
    assert!(counts(&sys).2 > evicted, "more evictions");
    assert_eq!(on_gpu(&b), pages, "preferred here: evicted last");
    // Every word was incremented once per pass, wherever its page was.
    assert!(a.to_vec().unwrap().iter().all(|&v| v == 2));
    assert!(b.to_vec().unwrap().iter().all(|&v| v == 1) && c.to_vec().unwrap().iter().all(|&v| v == 1));
}

/// Read-mostly: a GPU's reads get read-only copies (pages to the GPU) while the pages stay
/// on the host; a write drops the copies and takes the pages.
#[test]
fn read_mostly_pages_are_copied_for_reads_and_migrate_on_a_write() {
    let sys = system("gv100");
    let ctx = sys.create_context(0).unwrap();
    let m = sys.alloc_managed::<u32>(&ctx, 8 * WORDS).unwrap();
    m.write(&vec![7; 8 * WORDS]).unwrap();
    m.advise(0, m.len(), Advice::ReadMostly(true)).unwrap();
    let out = ctx.alloc::<u32>(m.len()).unwrap();
    run(&sys, 0, &ctx, "copy", &[m.arg(), out.arg()], m.len());
    assert_eq!(counts(&sys), (8, 0, 0), "a copy per page");
    assert_eq!(m.location(0), Some(Location::Host), "the host keeps the page");
    assert!(out.to_vec().unwrap().iter().all(|&v| v == 7));
    assert_eq!(run(&sys, 0, &ctx, "copy", &[m.arg(), out.arg()], m.len()).0, 0, "copies mapped: no fault");
    run(&sys, 0, &ctx, "inc", &[m.arg()], m.len());
    assert_eq!(m.location(0), Some(Location::Gpu(0)), "a write takes the page");
    assert_eq!(counts(&sys), (16, 0, 0));
    assert!(m.to_vec().unwrap().iter().all(|&v| v == 8));
}

/// Thrashing between two GPUs, with no host synchronization between their kernels: the
/// page moves GPU 0 → GPU 1 → GPU 0, then stays on GPU 0, and GPU 1's next kernel reaches
/// it over the link (bytes read over it, nothing moved).
#[test]
fn a_page_that_thrashes_between_gpus_stays_and_is_reached_over_the_link() {
    let sys = system("gv100x2");
    let c0 = sys.create_context(0).unwrap();
    let c1 = sys.create_context(1).unwrap();
    let m = sys.alloc_managed::<u32>(&c0, WORDS).unwrap();
    let args = [m.arg()];
    run(&sys, 0, &c0, "inc", &args, WORDS);
    assert_eq!(m.location(0), Some(Location::Gpu(0)));
    run(&sys, 1, &c1, "inc", &args, WORDS);
    assert_eq!(m.location(0), Some(Location::Gpu(1)));
    run(&sys, 0, &c0, "inc", &args, WORDS);
    assert_eq!(m.location(0), Some(Location::Gpu(0)));
    let moved = counts(&sys);
    let (faults, link) = run(&sys, 1, &c1, "inc", &args, WORDS);
    assert!(faults > 0 && link >= 4096, "{faults} faults, {link} bytes over the link");
    assert_eq!(m.location(0), Some(Location::Gpu(0)), "pinned where it was");
    assert_eq!(counts(&sys), moved, "nothing moved");
    assert!(m.to_vec().unwrap().iter().all(|&v| v == 4));
}

/// Peer access through the Rust API on `gv100x2`: with access from GPU 0's context to GPU
/// 1's, a kernel on GPU 0 reads GPU 1's memory over the link, allocations made before and
/// after the access alike; peer copies go over the link with access and through the host
/// without; access cannot be enabled twice, nor between contexts of one GPU.
#[test]
fn peer_access_maps_the_other_gpus_memory_and_copies_cross_the_link() {
    let sys = system("gv100x2");
    let (c0, c1) = (sys.create_context(0).unwrap(), sys.create_context(1).unwrap());
    let n = 4 * WORDS;
    let mut before = c1.alloc::<u32>(n).unwrap();
    before.copy_from(&(0..n as u32).collect::<Vec<_>>()).unwrap();
    let out = c0.alloc::<u32>(n).unwrap();
    // Without access, a copy between them is staged through the host.
    sys.copy_peer((out.device_ptr(), &c0), (before.device_ptr(), &c1), n * 4).unwrap();
    assert_eq!(out.to_vec().unwrap()[n - 1], n as u32 - 1);
    sys.enable_peer_access(&c0, &c1).unwrap();
    assert_eq!(sys.enable_peer_access(&c0, &c1), Err(runtime_core::CuError::PeerAccessAlreadyEnabled));
    let c0b = sys.create_context(0).unwrap();
    assert_eq!(sys.enable_peer_access(&c0, &c0b), Err(runtime_core::CuError::InvalidDevice));
    let (_, link) = run(&sys, 0, &c0, "copy", &[before.arg(), out.arg()], n);
    assert_eq!(link, n as u64 * 4, "read over the link");
    let mut after = c1.alloc::<u32>(n).unwrap();
    after.copy_from(&vec![9; n]).unwrap();
    let (_, link) = run(&sys, 0, &c0, "copy", &[after.arg(), out.arg()], n);
    assert_eq!(link, n as u64 * 4, "allocated after the access: mapped too");
    assert!(out.to_vec().unwrap().iter().all(|&v| v == 9));
    sys.disable_peer_access(&c0, &c1).unwrap();
    assert_eq!(sys.disable_peer_access(&c0, &c1), Err(runtime_core::CuError::PeerAccessNotEnabled));
}
