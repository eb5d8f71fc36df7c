//! Hopper's programming model as far as ordinary code reaches it: `elect.sync`, the hints
//! (`setmaxnreg`, `griddepcontrol`), `mbarrier` transaction counts and the 1D bulk copies
//! (`cp.async.bulk`) that `cuda::memcpy_async` and TMA-style pipelines use, and the
//! instructions refused by name.

use backend_user::{CuError, Device, DeviceConfig, DeviceOptions};

const HDR: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// An `h200` device in `mode`, each context in its own address space.
fn h200(mode: fake_pci::config::Mode) -> Device {
    let config = DeviceConfig::preset("h200").unwrap().with(|c| c.mode = mode);
    Device::open_with(DeviceOptions { config, separate_va: true, ..Default::default() }).unwrap()
}

/// Hopper's instructions that ordinary code reaches: `elect.sync` elects the lowest active
/// lane of the member mask, `setmaxnreg` and `griddepcontrol` are accepted (nothing to do on
/// rgdev), and `wgmma` is refused by name at load with CUDA_ERROR_NOT_SUPPORTED.
#[test]
fn elect_sync_and_hopper_hints_and_wgmma_refused_by_name() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    // Lanes 3 and up, and of those only the ones in the member mask 0xFFFF_FF00.
    let src = format!(
        "{HDR}.entry k(.param .u64 out)\n{{\n .reg .b32 %r<6>;\n .reg .b64 %rd<3>;\n .reg .pred %p<3>;\n \
         ld.param.u64 %rd1, [out];\n mov.u32 %r1, %laneid;\n setp.lt.u32 %p1, %r1, 3;\n @%p1 bra DONE;\n \
         griddepcontrol.wait;\n setmaxnreg.inc.sync.aligned.u32 64;\n \
         elect.sync %r2|%p2, 0xFFFFFF00;\n selp.u32 %r3, 1, 0, %p2;\n shl.b32 %r4, %r3, 8;\n or.b32 %r4, %r4, %r2;\n \
         mul.wide.u32 %rd2, %r1, 4;\n add.u64 %rd2, %rd2, %rd1;\n st.global.u32 [%rd2], %r4;\nDONE:\n \
         griddepcontrol.launch_dependents;\n ret;\n}}\n"
    );
    let m = ctx.load_ptx(&src).unwrap();
    let out = ctx.alloc::<u32>(32).unwrap();
    let mut zero = ctx.alloc::<u32>(32).unwrap();
    zero.copy_from(&[0xEEEE; 32]).unwrap();
    let mut o = out;
    o.copy_from_device(&zero).unwrap();
    m.function("k").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[o.arg()]).unwrap();
    let got = o.to_vec().unwrap();
    for (lane, &v) in got.iter().enumerate() {
        let want = match lane {
            0..3 => 0xEEEE,
            8 => 0x100 | 8, // elected: the lowest active lane in the mask
            _ => 8,
        };
        assert_eq!(v, want, "lane {lane}: {got:x?}");
    }
    // wgmma: named, NOT_SUPPORTED (not INVALID_PTX); an unknown word stays INVALID_PTX.
    let wg = format!(
        "{HDR}.entry w()\n{{\n .reg .f32 %f<2>;\n .reg .b64 %rd<3>;\n \
         wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%f0, %f1}}, %rd1, %rd2, 1, 1, 1, 0, 0;\n ret;\n}}\n"
    );
    assert_eq!(ctx.load_ptx(&wg).err(), Some(CuError::NotSupported));
    let bad = format!("{HDR}.entry b()\n{{\n frobnicate;\n ret;\n}}\n");
    assert_eq!(ctx.load_ptx(&bad).err(), Some(CuError::InvalidPtx));
}

/// One block stages `n` words through shared memory with bulk copies: thread 0 arms the
/// barrier with the bytes it expects (`arrive.expect_tx`) and copies global to shared
/// (`complete_tx` on the barrier), every other thread arrives; all wait for the phase, add
/// their index to a word each, and thread 0 copies the words back out (a bulk group).
fn staged_ptx(n: u32) -> String {
    let bytes = n * 4;
    format!(
        "{HDR}.visible .entry staged(.param .u64 src, .param .u64 dst)\n{{\n\
         .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n .reg .pred %p<3>;\n\
         .shared .align 8 .b64 bar;\n .shared .align 16 .b8 buf[{bytes}];\n\
         ld.param.u64 %rd1, [src];\n ld.param.u64 %rd2, [dst];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ntid.x;\n\
         setp.ne.u32 %p1, %r1, 0;\n\
         @!%p1 mbarrier.init.shared::cta.b64 [bar], %r2;\n bar.sync 0;\n\
         @%p1 bra ARRIVE;\n\
         mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [bar], {bytes};\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], {bytes}, [bar];\n\
         bra WAIT;\n\
         ARRIVE:\n mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [bar];\n\
         WAIT:\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p2, [bar], 0;\n @!%p2 bra WAIT;\n\
         mov.u32 %r3, buf;\n mov.u32 %r4, %r1;\n\
         LOOP:\n setp.ge.u32 %p2, %r4, {n};\n @%p2 bra DONE;\n\
         shl.b32 %r5, %r4, 2;\n add.u32 %r5, %r5, %r3;\n ld.shared.u32 %r6, [%r5];\n add.u32 %r6, %r6, %r4;\n\
         st.shared.u32 [%r5], %r6;\n add.u32 %r4, %r4, %r2;\n bra LOOP;\n\
         DONE:\n fence.proxy.async.shared::cta;\n bar.sync 0;\n @%p1 bra END;\n\
         cp.async.bulk.global.shared::cta.bulk_group [%rd2], [buf], {bytes};\n\
         cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n\
         END:\n ret;\n}}\n"
    )
}

#[test]
fn bulk_copies_complete_an_mbarriers_transactions_in_both_modes() {
    let n = 3000u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let want: Vec<u32> = input.iter().enumerate().map(|(i, &v)| v.wrapping_add(i as u32)).collect();
    for mode in [fake_pci::config::Mode::Timing, fake_pci::config::Mode::Functional] {
        let dev = h200(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&staged_ptx(n)).unwrap();
        let mut src = ctx.alloc::<u32>(n as usize).unwrap();
        src.copy_from(&input).unwrap();
        let dst = ctx.alloc::<u32>(n as usize).unwrap();
        m.function("staged").unwrap().launch([1, 1, 1], [128, 1, 1], 0, &[src.arg(), dst.arg()]).unwrap();
        ctx.synchronize().unwrap();
        assert_eq!(dst.to_vec().unwrap(), want, "{mode:?}");
    }
}

#[test]
fn a_bulk_copy_past_shared_memory_or_misaligned_is_an_error_not_a_crash() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let src = ctx.alloc::<u32>(4096).unwrap();
    // 4 KiB into a 256-byte array: past the block's shared memory.
    let over = format!(
        "{HDR}.visible .entry over(.param .u64 src)\n{{\n .reg .b64 %rd<2>;\n\
         .shared .align 8 .b64 bar;\n .shared .align 16 .b8 buf[256];\n ld.param.u64 %rd1, [src];\n\
         mbarrier.init.shared::cta.b64 [bar], 1;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16384, [bar];\n ret;\n}}\n"
    );
    let m = ctx.load_ptx(&over).unwrap();
    let r = m.function("over").unwrap().launch([1, 1, 1], [1, 1, 1], 0, &[src.arg()]).and_then(|_| ctx.synchronize());
    assert!(r.is_err(), "{r:?}");
    // A size that is not a multiple of 16 bytes: misaligned.
    let ctx = Device::open().unwrap().create_context().unwrap();
    let src = ctx.alloc::<u32>(4096).unwrap();
    let m = ctx.load_ptx(&over.replace("16384", "20").replace("over", "odd")).unwrap();
    let r = m.function("odd").unwrap().launch([1, 1, 1], [1, 1, 1], 0, &[src.arg()]).and_then(|_| ctx.synchronize());
    assert_eq!(r.err(), Some(CuError::MisalignedAddress));
    // Tensor-map copies are refused by name at load.
    let t = format!(
        "{HDR}.visible .entry t(.param .u64 map)\n{{\n .reg .b64 %rd<2>;\n .reg .b32 %r<2>;\n\
         .shared .align 8 .b64 bar;\n .shared .align 128 .b8 buf[256];\n ld.param.u64 %rd1, [map];\n\
         cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd1, {{%r1}}], [bar];\n\
         ret;\n}}\n"
    );
    assert_eq!(ctx.load_ptx(&t).err(), Some(CuError::NotSupported));
    // A multicast copy past the shared memory of the blocks it names: an error too.
    let ctx = Device::open().unwrap().create_context().unwrap();
    let src = ctx.alloc::<u32>(4096).unwrap();
    let mc =
        over.replace("bytes [buf], [%rd1], 16384, [bar]", "bytes.multicast::cluster [buf], [%rd1], 16384, [bar], 3");
    let m = ctx.load_ptx(&mc.replace("over", "mc")).unwrap();
    let r = m.function("mc").unwrap().launch([1, 1, 1], [1, 1, 1], 0, &[src.arg()]).and_then(|_| ctx.synchronize());
    assert!(r.is_err(), "{r:?}");
}

/// A kernel's cluster registers, barrier and distributed shared memory: each thread stores
/// its index in its block's shared memory, the cluster meets at `barrier.cluster`, and each
/// reads the word of thread `63 - t` in the partner block (rank ^ 1) through `mapa` and
/// `ld.shared::cluster`, and the same word through a generic `mapa.u64` address.
const CLUSTER_KERNEL: &str = ".visible .entry k(.param .u64 out) .reqnctapercluster 2, 1, 1 .maxclusterrank 2\n{\n\
     .reg .b32 %r<20>;\n .reg .b64 %rd<8>;\n .reg .pred %p;\n .shared .align 4 .b32 s[64];\n\
     ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, s;\n shl.b32 %r3, %r1, 2;\n add.u32 %r3, %r3, %r2;\n\
     mov.u32 %r8, %cluster_ctarank;\n mad.lo.u32 %r15, %r8, 100, %r1;\n\
     st.shared.u32 [%r3], %r15;\n barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;\n\
     xor.b32 %r4, %r1, 63;\n shl.b32 %r4, %r4, 2;\n add.u32 %r4, %r4, %r2;\n xor.b32 %r16, %r8, 1;\n\
     mapa.shared::cluster.u32 %r5, %r4, %r16;\n ld.shared::cluster.u32 %r6, [%r5];\n\
     getctarank.shared::cluster.u32 %r7, %r5;\n mov.u32 %r9, %cluster_nctarank;\n\
     mov.u32 %r10, %clusterid.x;\n mov.u32 %r11, %nclusterid.x;\n mov.u32 %r12, %cluster_nctaid.x;\n\
     mov.pred %p, %is_explicit_cluster;\n selp.u32 %r13, 1, 0, %p;\n\
     cvt.u64.u32 %rd4, %r4;\n cvta.shared.u64 %rd5, %rd4;\n mapa.u64 %rd6, %rd5, %r16;\n ld.u32 %r17, [%rd6];\n\
     sub.u32 %r13, %r13, %r17;\n add.u32 %r13, %r13, %r6;\n\
     barrier.cluster.arrive;\n barrier.cluster.wait;\n\
     mov.u32 %r18, %ctaid.x;\n mad.lo.u32 %r14, %r18, 64, %r1;\n mul.wide.u32 %rd2, %r14, 32;\n add.u64 %rd2, %rd2, %rd1;\n\
     st.global.v4.u32 [%rd2], {%r6, %r7, %r8, %r9};\n st.global.v4.u32 [%rd2+16], {%r10, %r11, %r12, %r13};\n\
     ret;\n}\n";

/// Thread block clusters of two (the kernel's `.reqnctapercluster`), in timing and in
/// functional mode on `h200`: the partner block's word through distributed shared memory
/// (written before the cluster barrier), the ranks, the cluster's place in the grid, and the
/// generic path; the same kernel launched with clusters of one is refused
/// (CUDA_ERROR_INVALID_CLUSTER_SIZE), as is a grid the cluster does not divide; a kernel
/// without a cluster shape runs as clusters of one, not explicit.
#[test]
fn clusters_share_shared_memory_and_a_barrier() {
    use backend_user::LaunchConfig;
    use fake_pci::config::Mode;
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = h200(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&format!("{HDR}{CLUSTER_KERNEL}")).unwrap();
        let f = m.function("k").unwrap();
        let out = ctx.alloc::<u32>(4 * 64 * 8).unwrap();
        f.launch([4, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
        let got = out.to_vec().unwrap();
        for b in 0..4u32 {
            let rank = b % 2;
            for t in 0..64u32 {
                let at = ((b * 64 + t) * 8) as usize;
                let partner = (rank ^ 1) * 100 + (t ^ 63);
                // The partner's word, its rank, ours of 2; cluster b / 2 of 2, two blocks
                // wide, explicit; the generic read agreed (1 - word + word).
                let want = [partner, rank ^ 1, rank, 2, b / 2, 2, 2, 1];
                assert_eq!(got[at..at + 8], want, "{mode:?}: block {b} thread {t}");
            }
        }
        let bad = |cfg: LaunchConfig| f.launch_with(&cfg, &[out.arg()]).err();
        let mut one = LaunchConfig::new([4, 1, 1], [64, 1, 1]);
        one.cluster = Some([1, 1, 1]);
        assert_eq!(bad(one), Some(CuError::InvalidClusterSize));
        assert_eq!(bad(LaunchConfig::new([3, 1, 1], [64, 1, 1])), Some(CuError::InvalidClusterSize));
        // Without a cluster shape: clusters of one block, not explicit, `barrier.cluster`
        // the block's barrier; `mapa` of a rank the cluster lacks stops the kernel.
        let plain = format!(
            "{HDR}.visible .entry p(.param .u64 out, .param .u32 rank)\n{{\n .reg .b32 %r<8>;\n .reg .b64 %rd<3>;\n\
             .reg .pred %q;\n .shared .align 4 .b32 s[64];\n ld.param.u64 %rd1, [out];\n ld.param.u32 %r7, [rank];\n\
             mov.u32 %r1, %tid.x;\n mov.u32 %r2, s;\n shl.b32 %r3, %r1, 2;\n add.u32 %r3, %r3, %r2;\n\
             st.shared.u32 [%r3], %r1;\n barrier.cluster.arrive;\n barrier.cluster.wait;\n\
             xor.b32 %r4, %r1, 63;\n shl.b32 %r4, %r4, 2;\n add.u32 %r4, %r4, %r2;\n mapa.shared::cluster.u32 %r4, %r4, %r7;\n\
             ld.shared::cluster.u32 %r4, [%r4];\n mov.u32 %r5, %cluster_nctarank;\n mov.pred %q, %is_explicit_cluster;\n\
             selp.u32 %r6, 1, 0, %q;\n mul.wide.u32 %rd2, %r1, 12;\n add.u64 %rd2, %rd2, %rd1;\n\
             st.global.u32 [%rd2], %r4;\n st.global.u32 [%rd2+4], %r5;\n st.global.u32 [%rd2+8], %r6;\n ret;\n}}\n"
        );
        let m = ctx.load_ptx(&plain).unwrap();
        m.function("p").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg(), backend_user::Arg::U32(0)]).unwrap();
        let got = out.to_vec().unwrap();
        for t in 0..64u32 {
            assert_eq!(got[(t * 3) as usize..(t * 3 + 3) as usize], [t ^ 63, 1, 0], "{mode:?}: thread {t}");
        }
        let other = dev.create_context().unwrap();
        let m = other.load_ptx(&plain).unwrap();
        let out2 = other.alloc::<u32>(64 * 3).unwrap();
        m.function("p").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out2.arg(), backend_user::Arg::U32(1)]).unwrap();
        assert!(other.synchronize().is_err(), "{mode:?}: rank 1 of a cluster of one");
    }
}

/// A cluster's blocks run at once on the SMs of one GPC (h200: 132 SMs in 8 GPCs, SM `s` in
/// GPC `s * 8 / 132`): 24 clusters of 4 blocks of 1024 threads (two a SM), each block
/// writing its `%smid`, in both modes. (Regression: a warp waiting at the cluster barrier
/// kept its scheduler's issue slot and the warps yet to arrive never issued; functional
/// mode gave a cluster's blocks consecutive SMs, across GPCs.)
#[test]
fn a_clusters_blocks_share_a_gpc() {
    for mode in [fake_pci::config::Mode::Timing, fake_pci::config::Mode::Functional] {
        clusters_share_a_gpc(mode);
    }
}

fn clusters_share_a_gpc(mode: fake_pci::config::Mode) {
    use backend_user::LaunchConfig;
    let dev = h200(mode);
    let ctx = dev.create_context().unwrap();
    let src = format!(
        "{HDR}.visible .entry k(.param .u64 out)\n{{\n .reg .b32 %r<4>;\n .reg .b64 %rd<3>;\n .reg .pred %p;\n\
         ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n setp.ne.u32 %p, %r1, 0;\n @%p bra DONE;\n\
         mov.u32 %r2, %smid;\n mov.u32 %r3, %ctaid.x;\n mul.wide.u32 %rd2, %r3, 4;\n add.u64 %rd2, %rd2, %rd1;\n\
         st.global.u32 [%rd2], %r2;\nDONE:\n barrier.cluster.arrive;\n barrier.cluster.wait;\n ret;\n}}\n"
    );
    let m = ctx.load_ptx(&src).unwrap();
    let out = ctx.alloc::<u32>(96).unwrap();
    let mut cfg = LaunchConfig::new([96, 1, 1], [1024, 1, 1]);
    cfg.cluster = Some([4, 1, 1]);
    m.function("k").unwrap().launch_with(&cfg, &[out.arg()]).unwrap();
    let sm = out.to_vec().unwrap();
    let gpc = |s: u32| s * 8 / 132;
    for c in sm.chunks(4) {
        assert!(c.iter().all(|&s| gpc(s) == gpc(c[0])), "{mode:?}: a cluster's SMs {c:?}");
    }
    // The clusters spread over every GPC.
    let mut used = [false; 8];
    sm.iter().for_each(|&s| used[gpc(s) as usize] = true);
    assert!(used.iter().all(|&u| u), "{mode:?}: {sm:?}");
}

/// An `mbarrier` in another block's shared memory: rank 1 of each cluster of two
/// initializes a barrier for one arrival; after the cluster barrier, rank 0 stores a word
/// into rank 1's shared memory and arrives on rank 1's barrier through its
/// `.shared::cluster` address; rank 1 waits on its own barrier's phase, then reads the word.
#[test]
fn an_mbarrier_arrival_crosses_to_another_block_of_the_cluster() {
    use backend_user::LaunchConfig;
    use fake_pci::config::Mode;
    let src = format!(
        "{HDR}.visible .entry k(.param .u64 out)\n{{\n .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n .reg .pred %p<3>;\n\
         .shared .align 8 .b64 bar;\n .shared .align 4 .b32 word;\n ld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %cluster_ctarank;\n mov.u32 %r2, %tid.x;\n setp.ne.u32 %p1, %r2, 0;\n @%p1 bra SYNC;\n\
         setp.ne.u32 %p2, %r1, 1;\n @%p2 bra SYNC;\n mbarrier.init.shared::cta.b64 [bar], 1;\n\
         SYNC:\n barrier.cluster.arrive.release;\n barrier.cluster.wait.acquire;\n @%p1 bra DONE;\n\
         setp.eq.u32 %p2, %r1, 1;\n @%p2 bra WAIT;\n\
         mov.u32 %r3, word;\n mapa.shared::cluster.u32 %r4, %r3, 1;\n mov.u32 %r5, %ctaid.x;\n add.u32 %r5, %r5, 500;\n\
         st.shared::cluster.u32 [%r4], %r5;\n mov.u32 %r6, bar;\n mapa.shared::cluster.u32 %r7, %r6, 1;\n\
         mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r7];\n bra.uni DONE;\n\
         WAIT:\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [bar], 0;\n @!%p2 bra WAIT;\n\
         ld.shared.u32 %r8, [word];\n mov.u32 %r9, %ctaid.x;\n mul.wide.u32 %rd2, %r9, 4;\n add.u64 %rd3, %rd1, %rd2;\n\
         st.global.u32 [%rd3], %r8;\n\
         DONE:\n barrier.cluster.arrive;\n barrier.cluster.wait;\n ret;\n}}\n"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = h200(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(8).unwrap();
        let mut cfg = LaunchConfig::new([8, 1, 1], [64, 1, 1]);
        cfg.cluster = Some([2, 1, 1]);
        m.function("k").unwrap().launch_with(&cfg, &[out.arg()]).unwrap();
        let got = out.to_vec().unwrap();
        for c in 0..4u32 {
            // Rank 1 (block 2c + 1) read what rank 0 (block 2c) wrote before arriving.
            assert_eq!(got[(2 * c + 1) as usize], 2 * c + 500, "{mode:?}: cluster {c}: {got:?}");
        }
    }
}

/// Clusters of two blocks of 64 threads: threads from `first_gone` on take `gone` (PTX
/// that ends in `ret`), the others meet at `barrier.cluster` and read the partner block's
/// word through `mapa`, in both modes; each of them must find its partner's.
fn cluster_with_exits(first_gone: u32, gone: &str) {
    use fake_pci::config::Mode;
    let src = format!(
        "{HDR}.visible .entry e(.param .u64 out) .reqnctapercluster 2, 1, 1\n{{\n .reg .b32 %r<12>;\n\
         .reg .b64 %rd<4>;\n .reg .pred %p<3>;\n .shared .align 4 .b32 s[64];\n ld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r8, %cluster_ctarank;\n mov.u32 %r2, s;\n shl.b32 %r3, %r1, 2;\n\
         add.u32 %r3, %r3, %r2;\n mad.lo.u32 %r9, %r8, 100, %r1;\n st.shared.u32 [%r3], %r9;\n\
         setp.ge.u32 %p1, %r1, {first_gone};\n @%p1 bra GONE;\n barrier.cluster.arrive;\n barrier.cluster.wait;\n\
         xor.b32 %r10, %r8, 1;\n mapa.shared::cluster.u32 %r5, %r3, %r10;\n ld.shared::cluster.u32 %r6, [%r5];\n\
         mov.u32 %r7, %ctaid.x;\n mad.lo.u32 %r11, %r7, 64, %r1;\n mul.wide.u32 %rd2, %r11, 4;\n\
         add.u64 %rd2, %rd2, %rd1;\n st.global.u32 [%rd2], %r6;\n ret;\nGONE:\n{gone}}}\n"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = h200(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(4 * 64).unwrap();
        m.function("e").unwrap().launch([4, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
        ctx.synchronize().unwrap_or_else(|e| panic!("{mode:?}: {e:?}"));
        let got = out.to_vec().unwrap();
        for b in 0..4u32 {
            for t in 0..first_gone {
                assert_eq!(got[(b * 64 + t) as usize], ((b % 2) ^ 1) * 100 + t, "{mode:?}: block {b} thread {t}");
            }
        }
    }
}

/// Threads that exit count as arrived at the cluster barrier from then on (PTX's `exit`: the
/// threads holding up a barrier release it as they exit): the second warp leaves, rank 0's
/// at once and rank 1's after arriving. (It waited for the exited threads until the
/// watchdog.)
#[test]
fn exited_threads_do_not_hold_up_the_cluster_barrier() {
    cluster_with_exits(32, " setp.ne.u32 %p2, %r8, 1;\n @%p2 bra OUT;\n barrier.cluster.arrive;\nOUT:\n ret;\n");
}

/// Threads exiting early in a warp whose other threads wait at the cluster barrier (a warp
/// split by `if (tid >= 40) return;`): the exiting ones leave at the exit, where the
/// paths meet, instead of waiting there for the others, which wait for them.
#[test]
fn part_of_a_warp_exiting_does_not_hold_up_the_cluster_barrier() {
    cluster_with_exits(40, " ret;\n");
}

/// A bulk copy into another block's shared memory (its `.shared::cluster` address from
/// `mapa`), completing that block's mbarrier: rank 0 sends, rank 1 waits and reads.
#[test]
fn a_bulk_copy_lands_in_another_blocks_shared_memory() {
    let src = format!(
        "{HDR}.visible .entry remote(.param .u64 src, .param .u64 out) .reqnctapercluster 2, 1, 1\n{{\n\
         .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n .reg .pred %p<5>;\n .shared .align 8 .b64 bar;\n\
         .shared .align 16 .b8 buf[64];\n ld.param.u64 %rd1, [src];\n ld.param.u64 %rd2, [out];\n\
         mov.u32 %r1, %cluster_ctarank;\n mbarrier.init.shared::cta.b64 [bar], 1;\n\
         barrier.cluster.arrive;\n barrier.cluster.wait;\n setp.ne.u32 %p1, %r1, 1;\n @%p1 bra SEND;\n\
         mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [bar], 64;\nSEND:\n\
         barrier.cluster.arrive;\n barrier.cluster.wait;\n setp.ne.u32 %p2, %r1, 0;\n @%p2 bra WAIT;\n\
         mov.u32 %r2, buf;\n mov.u32 %r3, bar;\n mapa.shared::cluster.u32 %r4, %r2, 1;\n\
         mapa.shared::cluster.u32 %r5, %r3, 1;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1], 64, [%r5];\n\
         bra END;\nWAIT:\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [bar], 0;\n @!%p3 bra WAIT;\n\
         mov.u32 %r6, 0;\nCOPY:\n mov.u32 %r2, buf;\n add.u32 %r2, %r2, %r6;\n ld.shared.u32 %r7, [%r2];\n\
         cvt.u64.u32 %rd4, %r6;\n add.u64 %rd5, %rd2, %rd4;\n st.global.u32 [%rd5], %r7;\n\
         add.u32 %r6, %r6, 4;\n setp.lt.u32 %p4, %r6, 64;\n @%p4 bra COPY;\nEND:\n\
         barrier.cluster.arrive;\n barrier.cluster.wait;\n ret;\n}}\n"
    );
    for (mode, out) in run_bulk(&src, "remote", 2, 16) {
        assert_eq!(out, bulk_input(), "{mode:?}");
    }
}

/// memcheck checks another block's shared memory too (distributed shared memory through
/// `mapa`): 33 threads of each block of a cluster of two write the partner block's
/// 128-byte buffer, thread 32 one word past its end; compute-sanitizer names it as an
/// invalid `__shared__` write at the offset in that block, and the grid stops.
#[test]
fn memcheck_checks_another_blocks_shared_memory() {
    use backend_user::CheckMode;
    use runtime_core::check::{AccessKind, CheckKind};
    let src = format!(
        "{HDR}.visible .entry over() .reqnctapercluster 2, 1, 1\n{{\n .reg .b32 %r<6>;\n\
         .shared .align 4 .b8 buf[128];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %cluster_ctarank;\n\
         xor.b32 %r2, %r2, 1;\n shl.b32 %r3, %r1, 2;\n mov.u32 %r4, buf;\n add.u32 %r4, %r4, %r3;\n\
         mapa.shared::cluster.u32 %r5, %r4, %r2;\n st.shared::cluster.u32 [%r5], %r1; // the store\n ret;\n}}\n"
    );
    let line = src.lines().position(|l| l.contains("// the store")).unwrap() as u32 + 1;
    for mode in [fake_pci::config::Mode::Timing, fake_pci::config::Mode::Functional] {
        let config = DeviceConfig::preset("h200").unwrap().with(|c| c.mode = mode);
        let checks = CheckMode::new().with_memcheck(true);
        let dev = Device::open_with(DeviceOptions { config, checks, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        m.function("over").unwrap().launch([2, 1, 1], [33, 1, 1], 0, &[]).unwrap();
        assert_eq!(ctx.synchronize(), Err(CuError::IllegalAddress), "{mode:?}");
        let (r, _) = ctx.check_reports().unwrap();
        assert!(!r.is_empty(), "{mode:?}: reported");
        let x = &r[0];
        assert_eq!((x.record.kind, x.record.access, x.record.space), (CheckKind::OutOfBounds, AccessKind::Write, 2));
        assert_eq!((x.record.thread, x.record.addr, x.record.other_pc, x.line), (32, 128, 128, line), "{mode:?}");
        assert!(x.to_string().contains("Invalid __shared__ write of size 4 bytes"), "{x}");
    }
}

/// A multicast bulk copy (`.multicast::cluster`): rank 0 of a cluster of four copies 64
/// bytes of global memory to the shared memory of ranks 0, 1 and 3 (mask 0b1011), each
/// of which expects the transactions on its own mbarrier and waits for them; rank 2's
/// buffer stays as it was. In both modes.
#[test]
fn a_multicast_bulk_copy_lands_in_every_block_of_its_mask() {
    let src = format!(
        "{HDR}.visible .entry mc(.param .u64 src, .param .u64 out) .reqnctapercluster 4, 1, 1\n{{\n\
         .reg .b32 %r<10>;\n .reg .b64 %rd<8>;\n .reg .pred %p<5>;\n .reg .b16 %rs<2>;\n .shared .align 8 .b64 bar;\n\
         .shared .align 16 .b8 buf[64];\n ld.param.u64 %rd1, [src];\n ld.param.u64 %rd2, [out];\n\
         mov.u32 %r1, %cluster_ctarank;\n mov.u32 %r6, 0;\nZERO:\n mov.u32 %r2, buf;\n add.u32 %r2, %r2, %r6;\n\
         st.shared.u32 [%r2], 7;\n add.u32 %r6, %r6, 4;\n setp.lt.u32 %p4, %r6, 64;\n @%p4 bra ZERO;\n\
         mbarrier.init.shared::cta.b64 [bar], 1;\n barrier.cluster.arrive;\n barrier.cluster.wait;\n\
         setp.eq.u32 %p1, %r1, 2;\n @%p1 bra SEND;\n\
         mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [bar], 64;\nSEND:\n\
         barrier.cluster.arrive;\n barrier.cluster.wait;\n setp.ne.u32 %p2, %r1, 0;\n @%p2 bra WAIT;\n\
         mov.u32 %r2, buf;\n mov.u32 %r3, bar;\n mov.u16 %rs1, 11;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r2], [%rd1], 64, [%r3], %rs1;\n\
         WAIT:\n @%p1 bra OUT;\nSPIN:\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [bar], 0;\n @!%p3 bra SPIN;\n\
         OUT:\n mov.u32 %r6, 0;\n mul.lo.u32 %r7, %r1, 64;\n cvt.u64.u32 %rd6, %r7;\n add.u64 %rd6, %rd2, %rd6;\n\
         COPY:\n mov.u32 %r2, buf;\n add.u32 %r2, %r2, %r6;\n ld.shared.u32 %r8, [%r2];\n\
         cvt.u64.u32 %rd4, %r6;\n add.u64 %rd5, %rd6, %rd4;\n st.global.u32 [%rd5], %r8;\n\
         add.u32 %r6, %r6, 4;\n setp.lt.u32 %p4, %r6, 64;\n @%p4 bra COPY;\n\
         barrier.cluster.arrive;\n barrier.cluster.wait;\n ret;\n}}\n"
    );
    let input = bulk_input();
    for (mode, got) in run_bulk(&src, "mc", 4, 64) {
        for rank in 0..4 {
            let want = if rank == 2 { vec![7; 16] } else { input.clone() };
            assert_eq!(got[rank * 16..rank * 16 + 16], want[..], "{mode:?}: rank {rank}");
        }
    }
}

/// The 16 words the bulk-copy tests send.
fn bulk_input() -> Vec<u32> {
    (0..16u32).map(|i| i.wrapping_mul(2_654_435_761) ^ 0x5a5a).collect()
}

/// Run `entry` of `src` (`(src, out)`: [`bulk_input`]'s address, an output of `out` words)
/// on `blocks` blocks of one thread, in both modes: each mode's output.
fn run_bulk(src: &str, entry: &str, blocks: u32, out: usize) -> Vec<(fake_pci::config::Mode, Vec<u32>)> {
    use fake_pci::config::Mode;
    [Mode::Timing, Mode::Functional]
        .into_iter()
        .map(|mode| {
            let dev = h200(mode);
            let ctx = dev.create_context().unwrap();
            let m = ctx.load_ptx(src).unwrap();
            let mut from = ctx.alloc::<u32>(16).unwrap();
            from.copy_from(&bulk_input()).unwrap();
            let to = ctx.alloc::<u32>(out).unwrap();
            m.function(entry).unwrap().launch([blocks, 1, 1], [1, 1, 1], 0, &[from.arg(), to.arg()]).unwrap();
            ctx.synchronize().unwrap_or_else(|e| panic!("{mode:?}: {e:?}"));
            (mode, to.to_vec().unwrap())
        })
        .collect()
}
