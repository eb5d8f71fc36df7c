//! fake-pci's `Machine` on bare boards (no runtime): a system's GPUs stepped together over
//! their link, a peer access crossing it with the link's timing, and a peer access that
//! no machine serves faulting.

use fake_pci::machine::{Gpus, Machine};
use fake_pci::system::SystemConfig;
use fake_pci::{DeviceConfig, FakeGpu, RunState};
use fifo::Pushbuf;
use hw::class::*;
use hw::regs::*;
use std::sync::Mutex;
use tests::Rng;
use tests::board::Board;

const VA_LOCAL: u64 = 0x6000_0000;
const VA_PEER: u64 = 0x7000_0000;
const BYTES: u32 = 256 << 10;

/// The GPUs as the machine reaches them: each behind a `std` mutex (any lock will do).
struct Locked(Vec<Mutex<FakeGpu>>);

impl Gpus for Locked {
    type Guard<'a> = std::sync::MutexGuard<'a, FakeGpu>;

    fn count(&self) -> usize {
        self.0.len()
    }

    fn lock(&self, i: usize) -> Self::Guard<'_> {
        self.0[i].lock().unwrap()
    }
}

/// Two boards of `gv100x2` (behind one PCIe switch): GPU 1's VRAM holds `data` at `at`,
/// and GPU 0 has queued a copy of it, through a peer PTE naming peer table entry 1 (GPU
/// 1), into its own VRAM at `local`: (system, GPU 0, GPU 1, local, at).
fn two_boards(data: &[u8]) -> (SystemConfig, Board, Board, u64, u64) {
    let sys = SystemConfig::preset("gv100x2").unwrap();
    let cfg = |i: usize| -> DeviceConfig { sys.gpus[i].clone().with(|c| c.board.vram_size = 64 << 20) };
    let (mut b0, mut b1) = (Board::with(cfg(0)), Board::with(cfg(1)));
    let at = b1.vram(BYTES as u64);
    for (i, w) in data.chunks_exact(4).enumerate() {
        b1.vram_w32(at + 4 * i as u64, u32::from_le_bytes(w.try_into().unwrap()));
    }
    b0.wr(NV_PFB_PEER, 1, PfbPeer::new().with_rid(sys.routing_id(1)).with_valid(true));
    let s = b0.space();
    let local = b0.vram(BYTES as u64);
    b0.map(s, VA_LOCAL, Target::Vram, local, BYTES as u64);
    b0.map_with(s, VA_PEER, Target::Peer, at, BYTES as u64, |p| p.with_peer(1));
    let mut ch = b0.channel(0, s);
    let mut pb = Pushbuf::<64>::new();
    pb.method(subch::COPY0, host::SET_OBJECT, FERMI_DMA_COPY_A).unwrap();
    pb.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &[(VA_PEER >> 32) as u32, VA_PEER as u32, 0, VA_LOCAL as u32])
        .unwrap();
    pb.incr(subch::COPY0, copy::PITCH_IN, &[0, 0, BYTES, 0]).unwrap();
    let dma = LaunchDma::new()
        .with_transfer(TransferType::NonPipelined)
        .with_src_layout(Layout::Pitch)
        .with_dst_layout(Layout::Pitch);
    pb.incr(subch::COPY0, copy::LAUNCH_DMA, &[dma.into()]).unwrap();
    b0.push(&mut ch, pb.words());
    (sys, b0, b1, local, at)
}

#[test]
fn a_copy_from_a_peer_crosses_the_link_with_its_timing() {
    let data = Rng(38).bytes(BYTES as usize);
    let (sys, mut b0, mut b1, local, at) = two_boards(&data);
    let machine = Machine::new(&sys);
    let link = machine.link(0, 1).expect("a PCIe switch between them");
    let take = |b: &mut Board| std::mem::replace(&mut b.gpu, FakeGpu::new(DeviceConfig::default()));
    let gpus = Locked(vec![Mutex::new(take(&mut b0)), Mutex::new(take(&mut b1))]);
    let mut runs = 0;
    while machine.run(&gpus, 0, 1 << 16) == RunState::Busy {
        runs += 1;
        assert!(runs < 1000, "the copy never finished");
    }
    let [g0, g1] = <[Mutex<FakeGpu>; 2]>::try_from(gpus.0).ok().unwrap();
    (b0.gpu, b1.gpu) = (g0.into_inner().unwrap(), g1.into_inner().unwrap());
    assert_eq!(b0.gpu.cycles(), b1.gpu.cycles(), "one clock");
    // The data crossed, and the copy took the link's time: its latency and its bandwidth.
    let got: Vec<u8> = (0..BYTES as u64 / 4).flat_map(|i| b0.vram_r32(local + 4 * i).to_le_bytes()).collect();
    assert!(got == data, "the peer's bytes arrived");
    assert_eq!(b0.gpu.peer_traffic(), (BYTES as u64, 0));
    let stats = b0.gpu.take_copy_stats();
    let c = stats.last().expect("one copy");
    assert_eq!((c.path, c.failed), (fake_pci::config::CopyPath::Peer, false));
    let cfg = b0.gpu.config();
    let expect = cfg.peer_copy_cycles(BYTES as u64, link.mbps, link.latency_cycles);
    // It was the first access to the peer after a quiet stretch (closed slices: GPUs run
    // alone): it lands at the start of the slice after the link's time.
    let took = c.end_cycle - c.start_cycle;
    assert!((expect..=expect + machine.slice() + 1).contains(&took), "{took} cycles vs {expect} on the link");
    let wire = cfg.transfer_mcycles(BYTES as u64, link.mbps) / 1000;
    assert!(expect >= link.latency_cycles + wire && wire > 0, "{expect} cycles vs latency {link:?}");
    // GPU 1 lent its VRAM for the slices and has it back.
    assert_eq!(b1.vram_r32(at), u32::from_le_bytes(data[..4].try_into().unwrap()));
}

#[test]
fn a_peer_access_no_machine_serves_is_a_bus_error() {
    let data = vec![0x5A; BYTES as usize];
    let (_, mut b0, ..) = two_boards(&data);
    b0.gpu.run_until_idle();
    let c = b0.gpu.take_copy_stats();
    assert!(c.iter().any(|c| c.failed) || b0.gpu.channel_stopped(0), "a lone GPU reaches no peer");
}
