//! The sanitizers (memcheck, racecheck, initcheck, synccheck): each finds a bug of its
//! kind seeded in a small kernel, in both modes, with the kernel, PTX line, thread, block,
//! address and size; `tests/kernel_suite.rs` runs the whole suite with every check on and
//! finds nothing.

use backend_user::{Arg, CheckMode, CheckReport, Context, CuError, Device, DeviceConfig, DeviceOptions};
use fake_pci::config::Mode;
use runtime_core::check::{AccessKind, CheckKind, Hazard};

const HDR: &str = ".version 6.4\n.target sm_70\n.address_size 64\n";

fn open(mode: Mode, checks: CheckMode) -> (Device, Context) {
    let config = DeviceConfig::default().with(|c| c.mode = mode);
    let dev = Device::open_with(DeviceOptions { config, checks, ..Default::default() }).unwrap();
    let ctx = dev.create_context().unwrap();
    (dev, ctx)
}

fn reports(ctx: &Context) -> Vec<CheckReport> {
    let (r, dropped) = ctx.check_reports().unwrap();
    assert_eq!(dropped, 0);
    for x in &r {
        eprintln!("{x}");
    }
    r
}

/// PTX line (1-based) of the first line of `src` that contains `needle`.
fn line_of(src: &str, needle: &str) -> u32 {
    src.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// `out[i] = i` for i < n, launched with one thread too many: thread n writes the 4 bytes
/// right after the allocation, inside the same mapped page, so without memcheck nothing
/// faults and the write lands in memory nobody owns.
const OVERRUN: &str = ".visible .entry fill(.param .u64 out, .param .u32 n)
{
 .reg .b32 %r<4>;
 .reg .b64 %rd<4>;
 .reg .pred %p;
 ld.param.u64 %rd1, [out];
 ld.param.u32 %r1, [n];
 mov.u32 %r2, %tid.x;
 setp.gt.u32 %p, %r2, %r1;
 @%p bra DONE;
 mul.wide.u32 %rd2, %r2, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r2; // the store
DONE:
 ret;
}
";

#[test]
fn memcheck_finds_a_write_past_the_end_of_an_allocation() {
    let src = format!("{HDR}{OVERRUN}");
    for mode in [Mode::Timing, Mode::Functional] {
        // Unchecked, the overrun goes unnoticed: the page is mapped.
        let (_d, ctx) = open(mode, CheckMode::new());
        let out = ctx.alloc::<u32>(100).unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        m.function("fill").unwrap().launch([1, 1, 1], [128, 1, 1], 0, &[out.arg(), Arg::I32(100)]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()));
        // memcheck names it and stops the grid.
        let (_d, ctx) = open(mode, CheckMode::new().with_memcheck(true));
        let out = ctx.alloc::<u32>(100).unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        m.function("fill").unwrap().launch([1, 1, 1], [128, 1, 1], 0, &[out.arg(), Arg::I32(100)]).unwrap();
        assert_eq!(ctx.synchronize(), Err(CuError::IllegalAddress), "{mode:?}");
        let r = reports(&ctx);
        assert_eq!(r.len(), 1, "{mode:?}");
        let x = &r[0];
        assert_eq!((x.record.kind, x.record.access, x.record.space), (CheckKind::OutOfBounds, AccessKind::Write, 1));
        assert_eq!((x.record.thread, x.record.block, x.record.size), (100, [0, 0, 0], 4));
        assert_eq!(x.record.addr, out.device_ptr() + 400);
        assert_eq!((x.record.other, x.record.other_pc), (out.device_ptr(), 400), "the allocation it overran");
        assert_eq!((x.kernel.as_str(), x.line), ("fill", line_of(&src, "// the store")));
        let text = x.to_string();
        assert!(text.contains("Invalid __global__ write of size 4 bytes"), "{text}");
        assert!(text.contains("0 bytes after the 400-byte allocation"), "{text}");
        assert!(text.contains("by thread 100 in block (0,0,0)"), "{text}");
    }
}

/// Shared memory indexed one element past its end.
#[test]
fn memcheck_finds_a_shared_access_out_of_bounds() {
    let src = format!(
        "{HDR}.visible .entry sh(.param .u64 out)
{{
 .reg .b32 %r<4>;
 .reg .b64 %rd<2>;
 .shared .align 4 .b8 buf[128];
 mov.u32 %r1, %tid.x;
 shl.b32 %r2, %r1, 2;
 mov.u32 %r3, buf;
 add.u32 %r3, %r3, %r2;
 st.shared.u32 [%r3], %r1; // the store
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let (_d, ctx) = open(mode, CheckMode::new().with_memcheck(true));
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("sh").unwrap().launch([1, 1, 1], [33, 1, 1], 0, &[out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Err(CuError::IllegalAddress));
        let r = reports(&ctx);
        assert_eq!(r.len(), 1, "{mode:?}");
        assert_eq!((r[0].record.kind, r[0].record.space, r[0].record.thread), (CheckKind::OutOfBounds, 2, 32));
        assert_eq!((r[0].record.addr, r[0].record.other_pc), (128, 128));
        assert!(r[0].to_string().contains("Invalid __shared__ write"));
    }
}

/// Pathfinder's shape: each thread reads its neighbours from shared memory and writes its
/// own cell back with no barrier in between, so a warp's write races with the next
/// warp's read of it. Functional mode runs warps in turn and computes one answer, timing
/// mode interleaves them and may compute another; racecheck names the race in both.
const NEIGHBOURS: &str = ".visible .entry step(.param .u64 out)
{
 .reg .b32 %r<12>;
 .reg .b64 %rd<4>;
 .shared .align 4 .b8 row[256];
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 shl.b32 %r2, %r1, 2;
 mov.u32 %r3, row;
 add.u32 %r4, %r3, %r2;
 st.shared.u32 [%r4], %r1;
 bar.sync 0;
 add.u32 %r5, %r1, 1;
 and.b32 %r5, %r5, 63;
 shl.b32 %r6, %r5, 2;
 add.u32 %r7, %r3, %r6;
 ld.shared.u32 %r8, [%r7]; // the read
 add.u32 %r9, %r8, %r1;
 st.shared.u32 [%r4], %r9; // the write
 bar.sync 0;
 ld.shared.u32 %r10, [%r4];
 mul.wide.u32 %rd2, %r1, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r10;
 ret;
}
";

#[test]
fn racecheck_names_the_shared_memory_race_of_pathfinder_style_code() {
    let src = format!("{HDR}{NEIGHBOURS}");
    for mode in [Mode::Timing, Mode::Functional] {
        let (_d, ctx) = open(mode, CheckMode::new().with_racecheck(true));
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(64).unwrap();
        m.function("step").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()), "a race is reported, not stopped");
        let r = reports(&ctx);
        assert!(!r.is_empty(), "{mode:?}: no race found");
        let (read, write) = (line_of(&src, "// the read"), line_of(&src, "// the write"));
        for x in &r {
            assert_eq!((x.record.kind, x.record.space), (CheckKind::Race, 2));
            let lines = [x.line, x.other_line];
            assert!(lines.contains(&read) && lines.contains(&write), "{mode:?}: {x}");
            assert!(matches!(x.record.hazard, Hazard::ReadAfterWrite | Hazard::WriteAfterRead), "{x}");
            // Only the cells at the warp boundary are shared across warps.
            let cell = x.record.addr / 4;
            assert!(cell == 0 || cell == 32, "{mode:?}: {x}");
        }
    }
}

/// Every block writes the same global word: a write-after-write race between blocks.
#[test]
fn racecheck_finds_blocks_writing_the_same_global_word() {
    let src = format!(
        "{HDR}.visible .entry last(.param .u64 out)
{{
 .reg .b32 %r<2>;
 .reg .b64 %rd<2>;
 .reg .pred %p;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 setp.ne.u32 %p, %r1, 0;
 @%p bra DONE;
 mov.u32 %r1, %ctaid.x;
 st.global.u32 [%rd1], %r1; // the store
DONE:
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let (_d, ctx) = open(mode, CheckMode::new().with_racecheck(true));
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("last").unwrap().launch([4, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()));
        let r = reports(&ctx);
        assert_eq!(r.len(), 1, "{mode:?}: one finding, folded");
        let x = &r[0];
        assert_eq!((x.record.kind, x.record.hazard, x.record.space), (CheckKind::Race, Hazard::WriteAfterWrite, 1));
        assert_eq!((x.record.count, x.record.addr), (3, out.device_ptr()), "blocks 1, 2 and 3 each overwrite");
        assert!(x.to_string().contains("Write-after-write hazard on __global__ memory"), "{x}");
    }
}

/// A kernel reads a buffer nobody wrote: initcheck reports it; memory written by a copy
/// or a memset, or by the kernel itself, is not reported.
#[test]
fn initcheck_finds_reads_of_memory_never_written() {
    let src = format!(
        "{HDR}.visible .entry copy(.param .u64 dst, .param .u64 src)
{{
 .reg .b32 %r<3>;
 .reg .b64 %rd<6>;
 ld.param.u64 %rd1, [dst];
 ld.param.u64 %rd2, [src];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd3, %r1, 4;
 add.s64 %rd4, %rd2, %rd3;
 ld.global.u32 %r2, [%rd4]; // the load
 add.s64 %rd5, %rd1, %rd3;
 st.global.u32 [%rd5], %r2;
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let (_d, ctx) = open(mode, CheckMode::new().with_initcheck(true));
        let m = ctx.load_ptx(&src).unwrap();
        let f = m.function("copy").unwrap();
        let (a, mut b, c) =
            (ctx.alloc::<u32>(64).unwrap(), ctx.alloc::<u32>(64).unwrap(), ctx.alloc::<u32>(64).unwrap());
        b.copy_from(&[7; 64]).unwrap();
        f.launch([1, 1, 1], [64, 1, 1], 0, &[c.arg(), b.arg()]).unwrap(); // written by a copy
        f.launch([1, 1, 1], [64, 1, 1], 0, &[b.arg(), c.arg()]).unwrap(); // written by a kernel
        assert_eq!(ctx.synchronize(), Ok(()));
        assert!(reports(&ctx).is_empty(), "{mode:?}");
        f.launch([1, 1, 1], [64, 1, 1], 0, &[c.arg(), a.arg()]).unwrap(); // never written
        assert_eq!(ctx.synchronize(), Ok(()));
        let r = reports(&ctx);
        assert_eq!(r.len(), 1, "{mode:?}");
        let x = &r[0];
        assert_eq!((x.record.kind, x.record.access, x.record.count), (CheckKind::Uninitialized, AccessKind::Read, 64));
        assert_eq!((x.record.addr, x.line), (a.device_ptr(), line_of(&src, "// the load")));
        assert!(x.to_string().contains("Uninitialized __global__ memory read of size 4 bytes"), "{x}");
        // Freed and allocated again: the new owner has written nothing yet.
        drop(b);
        let d = ctx.alloc::<u32>(64).unwrap();
        f.launch([1, 1, 1], [64, 1, 1], 0, &[c.arg(), d.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()));
        assert_eq!(reports(&ctx).len(), 1, "{mode:?}: a reused allocation starts unwritten");
    }
}

/// A barrier inside a branch that only half of the warp takes.
#[test]
fn synccheck_finds_a_barrier_under_divergence() {
    let src = format!(
        "{HDR}.visible .entry half(.param .u64 out)
{{
 .reg .b32 %r<2>;
 .reg .b64 %rd<2>;
 .reg .pred %p;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 setp.ge.u32 %p, %r1, 16;
 @%p bra SKIP;
 bar.sync 0; // the barrier
SKIP:
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let (_d, ctx) = open(mode, CheckMode::new().with_synccheck(true));
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("half").unwrap().launch([2, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()));
        let r = reports(&ctx);
        assert_eq!(r.len(), 1, "{mode:?}");
        let x = &r[0];
        assert_eq!(
            (x.record.kind, x.record.count, x.line),
            (CheckKind::DivergentBarrier, 2, line_of(&src, "// the barrier"))
        );
        assert_eq!((x.record.addr, x.record.other), (0xFFFF, 0xFFFF_FFFF));
        assert!(x.to_string().contains("active lanes 0x0000ffff of the warp's 0xffffffff"), "{x}");
    }
}

/// A pointer into one allocation moved, by an offset, into another one: the bytes belong
/// to an allocation, so only the pointer's provenance shows the bug (unchecked it silently
/// overwrites the other buffer). memcheck reports it against the allocation the pointer
/// came from.
#[test]
fn memcheck_finds_an_access_outside_the_allocation_the_pointer_came_from() {
    let src = format!(
        "{HDR}.visible .entry stray(.param .u64 a, .param .u64 off)
{{
 .reg .b32 %r<2>;
 .reg .b64 %rd<5>;
 ld.param.u64 %rd1, [a];
 ld.param.u64 %rd2, [off];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd3, %r1, 4;
 add.s64 %rd4, %rd1, %rd2;
 add.s64 %rd4, %rd4, %rd3;
 st.global.u32 [%rd4], %r1; // the store
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let run = |checks: CheckMode| {
            let (d, ctx) = open(mode, checks);
            let (a, mut b) = (ctx.alloc::<u32>(1024).unwrap(), ctx.alloc::<u32>(1024).unwrap());
            b.copy_from(&[7; 1024]).unwrap();
            let off = b.device_ptr().wrapping_sub(a.device_ptr());
            let m = ctx.load_ptx(&src).unwrap();
            m.function("stray").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[a.arg(), Arg::U64(off)]).unwrap();
            let r = ctx.synchronize();
            (d, ctx, a, b, r)
        };
        let (_d, _ctx, _a, b, r) = run(CheckMode::new());
        assert_eq!(r, Ok(()));
        assert_eq!(&b.to_vec().unwrap()[..3], [0, 1, 2], "{mode:?}: unchecked, b is silently overwritten");
        let (_d, ctx, a, _b, r) = run(CheckMode::new().with_memcheck(true));
        assert_eq!(r, Err(CuError::IllegalAddress), "{mode:?}");
        let reports = reports(&ctx);
        assert_eq!(reports.len(), 1, "{mode:?}");
        let x = &reports[0];
        assert_eq!(
            (x.record.kind, x.record.count, x.line),
            (CheckKind::OutOfBounds, 32, line_of(&src, "// the store"))
        );
        assert_eq!((x.record.other, x.record.other_pc), (a.device_ptr(), 4096), "against the pointer's allocation");
    }
}
