//! The simulated GPU on its own, programmed register by register (no runtime): copy
//! engine layouts and semaphores, host semaphores, acquires across channels, costs,
//! fault and PBDMA records, TLB behaviour, the trace.

use fake_pci::{AccessKind, RunState};
use fifo::Pushbuf;
use hw::class::*;
use hw::regs::*;
use std::sync::atomic::Ordering;
use tests::Rng;
use tests::board::{BAR0, Board, Chan, Space};

const VA_SYS_A: u64 = 0x4000_0000;
const VA_SYS_B: u64 = 0x5000_0000;
const VA_VRAM: u64 = 0x6000_0000;

type Pb = Pushbuf<256>;

fn bind_copy(pb: &mut Pb) {
    pb.method(subch::COPY0, host::SET_OBJECT, FERMI_DMA_COPY_A).unwrap();
}

fn pitch() -> LaunchDma {
    LaunchDma::new()
        .with_transfer(TransferType::NonPipelined)
        .with_src_layout(Layout::Pitch)
        .with_dst_layout(Layout::Pitch)
}

#[allow(clippy::too_many_arguments)]
fn copy(pb: &mut Pb, src: u64, dst: u64, line: u32, lines: u32, pin: u32, pout: u32, l: LaunchDma) {
    pb.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &[(src >> 32) as u32, src as u32, (dst >> 32) as u32, dst as u32])
        .unwrap();
    pb.incr(subch::COPY0, copy::PITCH_IN, &[pin, pout, line, lines]).unwrap();
    pb.incr(subch::COPY0, copy::LAUNCH_DMA, &[l.into()]).unwrap();
}

fn release(pb: &mut Pb, va: u64, payload: u32, four_byte: bool, wfi: bool) {
    let d = SemaphoreD::new()
        .with_operation(SemOp::Release)
        .with_release_size_4byte(four_byte)
        .with_release_wfi_disable(!wfi);
    pb.incr(0, host::SEMAPHOREA, &[(va >> 32) as u32, va as u32, payload, d.into()]).unwrap();
}

fn acquire(pb: &mut Pb, va: u64, payload: u32, op: SemOp) {
    let d = SemaphoreD::new().with_operation(op);
    pb.incr(0, host::SEMAPHOREA, &[(va >> 32) as u32, va as u32, payload, d.into()]).unwrap();
}

/// A board with one space: two 64 KiB system buffers and 1 MiB of VRAM mapped.
fn setup() -> (Board, Space, tests::board::Sys, tests::board::Sys, u64) {
    let mut b = Board::new();
    let s = b.space();
    let a = b.sys(65536);
    let c = b.sys(65536);
    let v = b.vram(1 << 20);
    b.map(s, VA_SYS_A, Target::SysCoherent, a.bus, 65536);
    b.map(s, VA_SYS_B, Target::SysNonCoherent, c.bus, 65536);
    b.map(s, VA_VRAM, Target::Vram, v, 1 << 20);
    (b, s, a, c, v)
}

#[test]
fn pitch_copies_between_system_memory_and_vram_leave_the_gaps_alone() {
    let (mut b, s, a, c, _) = setup();
    let mut ch = b.channel(0, s);
    let data = Rng(5).bytes(16 * 128);
    a.mem.write(0, &data).unwrap();
    c.mem.fill(0, 65536, 0xEE).unwrap();
    let mut pb = Pb::new();
    bind_copy(&mut pb);
    // 16 lines of 100 bytes: sysmem pitch 128 -> VRAM pitch 256 -> sysmem pitch 160.
    copy(&mut pb, VA_SYS_A, VA_VRAM, 100, 16, 128, 256, pitch().with_multi_line(true));
    copy(&mut pb, VA_VRAM, VA_SYS_B, 100, 16, 256, 160, pitch().with_multi_line(true));
    release(&mut pb, VA_SYS_B + 60000, 1, true, true);
    b.push(&mut ch, pb.words());
    b.gpu.run_until_idle();
    let mut out = vec![0u8; 16 * 160];
    c.mem.read(0, &mut out).unwrap();
    for line in 0..16 {
        assert_eq!(&out[line * 160..line * 160 + 100], &data[line * 128..line * 128 + 100], "line {line}");
        assert!(out[line * 160 + 100..line * 160 + 160].iter().all(|&x| x == 0xEE), "gap after line {line}");
    }
    assert_eq!(c.mem.load_u32(60000, Ordering::Acquire).unwrap(), 1);
    assert!(!b.gpu.channel_stopped(0));
}

#[test]
fn system_memory_to_system_memory_linear_copy() {
    let (mut b, s, a, c, _) = setup();
    let mut ch = b.channel(0, s);
    let data = Rng(6).bytes(50_001);
    a.mem.write(3, &data).unwrap();
    let mut pb = Pb::new();
    bind_copy(&mut pb);
    copy(&mut pb, VA_SYS_A + 3, VA_SYS_B + 11, 50_001, 0, 0, 0, pitch());
    b.push(&mut ch, pb.words());
    b.gpu.run_until_idle();
    let mut out = vec![0u8; 50_001];
    c.mem.read(11, &mut out).unwrap();
    assert_eq!(out, data);
    assert_eq!(b.gpu.stats().copy_bytes, 50_001);
}

#[test]
fn copy_engine_semaphores_on_completion_with_timestamp_and_interrupt() {
    let (mut b, s, a, _, _) = setup();
    let mut ch = b.channel(0, s);
    let sem = VA_SYS_A + 0x8000;
    let mut pb = Pb::new();
    bind_copy(&mut pb);
    pb.incr(subch::COPY0, copy::SET_SEMAPHORE_A, &[(sem >> 32) as u32, sem as u32, 0xAAAA_0001]).unwrap();
    copy(&mut pb, VA_SYS_A, VA_VRAM, 4096, 0, 0, 0, pitch().with_semaphore(CopySemaphore::OneWord));
    pb.incr(subch::COPY0, copy::SET_SEMAPHORE_A, &[(sem >> 32) as u32, sem as u32 + 16, 0xBBBB_0002]).unwrap();
    let l = pitch().with_semaphore(CopySemaphore::FourWord).with_interrupt(CopyInterrupt::NonBlocking);
    copy(&mut pb, VA_SYS_A, VA_VRAM, 1 << 16, 0, 0, 0, l);
    b.push(&mut ch, pb.words());
    b.gpu.run_until_idle();
    assert_eq!(a.mem.load_u32(0x8000, Ordering::Acquire).unwrap(), 0xAAAA_0001);
    assert_eq!(a.mem.load_u32(0x8010, Ordering::Acquire).unwrap(), 0xBBBB_0002);
    let ts = a.mem.load_u64(0x8018, Ordering::Acquire).unwrap();
    assert!(ts > 0 && ts <= b.gpu.time_ns(), "timestamp {ts} vs now {}", b.gpu.time_ns());
    assert!(PmcIntr::from(b.rd(NV_PMC_INTR_1, 0)).pcopy0(), "non-blocking interrupt raised");
    b.wr(NV_PMC_INTR_1, 0, PmcIntr::from(u32::MAX));
    assert_eq!(b.rd(NV_PMC_INTR_1, 0), 0, "write 1 to clear");
}

#[test]
fn host_releases_of_4_and_16_bytes_and_the_non_stall_interrupt() {
    let (mut b, s, a, _, _) = setup();
    let mut ch = b.channel(0, s);
    b.wr(NV_PMC_INTR_EN_1, 0, PmcIntr::new().with_pfifo(true));
    let mut pb = Pb::new();
    release(&mut pb, VA_SYS_A + 0x100, 0x1234_5678, true, true);
    b.gpu.step(10_000); // make the timestamp non-trivial
    release(&mut pb, VA_SYS_A + 0x200, 0x9ABC_DEF0, false, true);
    pb.method(0, host::NON_STALL_INTERRUPT, 0).unwrap();
    pb.method(0, host::SET_REFERENCE, 77).unwrap();
    b.push(&mut ch, pb.words());
    assert!(!b.gpu.irq_asserted());
    b.gpu.run_until_idle();
    assert_eq!(a.mem.load_u32(0x100, Ordering::Acquire).unwrap(), 0x1234_5678);
    assert_eq!(a.mem.load_u32(0x104, Ordering::Acquire).unwrap(), 0, "4-byte release writes 4 bytes");
    assert_eq!(a.mem.load_u32(0x200, Ordering::Acquire).unwrap(), 0x9ABC_DEF0);
    assert!(a.mem.load_u64(0x208, Ordering::Acquire).unwrap() >= b.gpu.config().cycles_to_ns(10_000));
    assert!(b.gpu.irq_asserted(), "non-stall interrupt asserts INTA");
    let userd = ch.userd;
    assert_eq!(b.vram_r32(userd + hw::inst::USERD_REF as u64), 77);
}

#[test]
fn an_acquire_blocks_its_channel_until_another_channel_releases() {
    let (mut b, s, a, _, _) = setup();
    let mut waiter = b.channel(1, s);
    let mut signaller = b.channel(2, s);
    let sem = VA_SYS_A + 0x400;
    let mut pb = Pb::new();
    acquire(&mut pb, sem, 5, SemOp::AcqGeq);
    release(&mut pb, VA_SYS_A + 0x500, 0xD0, true, true);
    b.push(&mut waiter, pb.words());
    assert_eq!(b.gpu.run(1 << 30), RunState::Idle, "a blocked acquire counts as idle");
    assert_eq!(a.mem.load_u32(0x500, Ordering::Acquire).unwrap(), 0, "still blocked");
    // A release of 4 is not enough for ACQ_GEQ 5.
    let mut pb = Pb::new();
    release(&mut pb, sem, 4, true, true);
    b.push(&mut signaller, pb.words());
    b.gpu.run_until_idle();
    assert_eq!(a.mem.load_u32(0x500, Ordering::Acquire).unwrap(), 0);
    // Another channel's release of 6 unblocks it, within the same run.
    let mut pb = Pb::new();
    release(&mut pb, sem, 6, true, true);
    b.push(&mut signaller, pb.words());
    b.gpu.run_until_idle();
    assert_eq!(a.mem.load_u32(0x500, Ordering::Acquire).unwrap(), 0xD0);
    // The host can satisfy an acquire too (ACQUIRE equal on a word it writes).
    let mut pb = Pb::new();
    acquire(&mut pb, sem + 8, 0xCAFE, SemOp::Acquire);
    release(&mut pb, VA_SYS_A + 0x504, 0xD1, true, true);
    b.push(&mut waiter, pb.words());
    b.gpu.run_until_idle();
    assert_eq!(a.mem.load_u32(0x504, Ordering::Acquire).unwrap(), 0);
    a.mem.store_u32(0x408, 0xCAFE, Ordering::Release).unwrap();
    b.gpu.run_until_idle();
    assert_eq!(a.mem.load_u32(0x504, Ordering::Acquire).unwrap(), 0xD1);
}

#[test]
fn copies_cost_cycles_in_proportion_to_bytes_and_idle_time_is_skipped() {
    let cost = |bytes: u32| {
        let (mut b, s, _, _, _) = setup();
        let mut ch = b.channel(0, s);
        let mut pb = Pb::new();
        bind_copy(&mut pb);
        b.push(&mut ch, pb.words());
        b.gpu.run_until_idle();
        let mut pb = Pb::new();
        copy(&mut pb, VA_VRAM, VA_VRAM + (1 << 19), bytes, 0, 0, 0, pitch());
        release(&mut pb, VA_SYS_A, 1, true, true);
        let t0 = b.gpu.cycles();
        b.push(&mut ch, pb.words());
        b.gpu.run_until_idle();
        b.gpu.cycles() - t0
    };
    let (small, big) = (cost(64 << 10), cost(256 << 10));
    let cfg = fake_pci::DeviceConfig::default();
    assert_eq!(big - small, (192 << 10) / cfg.copy.bytes_per_cycle, "extra bytes / throughput");
    // step() advances exactly; an idle device's run() does not move the clock.
    let mut b = tests::board::Board::new();
    b.gpu.step(12_345);
    assert_eq!(b.gpu.cycles(), 12_345);
    assert_eq!(b.gpu.run(1 << 40), RunState::Idle);
    assert_eq!(b.gpu.cycles(), 12_345);
    let ns = b.gpu.config().cycles_to_ns(12_345);
    assert_eq!((b.rd(NV_PTIMER_TIME_1, 0), b.rd(NV_PTIMER_TIME_0, 0)), ((ns >> 32) as u32, ns as u32));
}

#[test]
fn an_mmu_fault_is_recorded_and_stops_only_the_faulting_channel() {
    let (mut b, s, a, _, v) = setup();
    // A read-only page in a second space used by channel 3.
    let s2 = b.space();
    let g = b.sys(65536);
    b.map(s2, VA_SYS_A, Target::SysCoherent, g.bus, 65536);
    b.map(s2, VA_SYS_B, Target::SysCoherent, a.bus, 65536);
    b.map_with(s2, VA_VRAM, Target::Vram, v, 4096, |p| p.with_read_only(true));
    let mut bad = b.channel(3, s2);
    let mut good = b.channel(4, s);
    let mut pb = Pb::new();
    bind_copy(&mut pb);
    copy(&mut pb, VA_SYS_A, VA_VRAM + 0x10, 64, 0, 0, 0, pitch());
    release(&mut pb, VA_SYS_A + 0x100, 1, true, true);
    b.push(&mut bad, pb.words());
    b.gpu.run_until_idle();
    let unit = fault_unit::PCOPY0;
    assert_eq!(b.rd(NV_PFIFO_MMU_FAULT_UNITS, 0), 1 << unit);
    assert!(PfifoIntr::from(b.rd(NV_PFIFO_INTR_0, 0)).mmu_fault());
    assert!(PmcIntr::from(b.rd(NV_PMC_INTR_0, 0)).pfifo());
    assert!(b.gpu.irq_asserted());
    assert_eq!(b.rd(NV_PFIFO_FAULT_INST, unit), (bad.inst >> 12) as u32);
    assert_eq!(b.rd(NV_PFIFO_FAULT_VA_LO, unit), (VA_VRAM + 0x10) as u32);
    let info = PfifoFaultInfo::from(b.rd(NV_PFIFO_FAULT_INFO, unit));
    assert_eq!((info.reason(), info.write()), (FaultReason::ReadOnly, true));
    assert!(b.gpu.channel_stopped(3));
    assert_eq!(g.mem.load_u32(0x100, Ordering::Acquire).unwrap(), 0, "nothing after the fault ran");
    // More work on the stopped channel is not fetched; the other channel runs.
    let gp_before = b.gp_get(&bad);
    let mut pb = Pb::new();
    release(&mut pb, VA_SYS_A + 0x104, 2, true, true);
    b.push(&mut bad, pb.words());
    let mut pb = Pb::new();
    release(&mut pb, VA_SYS_A + 0x108, 3, true, true);
    b.push(&mut good, pb.words());
    b.gpu.run_until_idle();
    assert_eq!(b.gp_get(&bad), gp_before);
    assert_eq!(a.mem.load_u32(0x108, Ordering::Acquire).unwrap(), 3);
    // Acknowledge: the interrupt goes away.
    b.wr(NV_PFIFO_MMU_FAULT_UNITS, 0, 1 << unit);
    assert!(!PfifoIntr::from(b.rd(NV_PFIFO_INTR_0, 0)).mmu_fault());
    assert!(!b.gpu.irq_asserted());
}

#[test]
fn pbdma_errors_name_channel_method_and_data_and_queue_while_pending() {
    let (mut b, s, _, _, _) = setup();
    let mut c1 = b.channel(5, s);
    let mut c2 = b.channel(6, s);
    let mut pb = Pb::new();
    pb.incr(2, 0x300, &[0xDEAD]).unwrap(); // subchannel 2 has no object
    b.push(&mut c1, pb.words());
    let mut pb = Pb::new();
    bind_copy(&mut pb);
    pb.incr(subch::COPY0, 0x0900, &[0xBEEF]).unwrap(); // not a 90B5 method
    b.push(&mut c2, pb.words());
    b.gpu.run_until_idle();
    assert!(PfifoIntr::from(b.rd(NV_PFIFO_INTR_0, 0)).pbdma_intr());
    let first = (b.rd(NV_PPBDMA_CHANNEL, 0), PbdmaMethod::from(b.rd(NV_PPBDMA_METHOD0, 0)), b.rd(NV_PPBDMA_DATA0, 0));
    assert!(PbdmaIntr::from(b.rd(NV_PPBDMA_INTR_0, 0)).method());
    assert_eq!((first.0, first.1.subchannel(), (first.1.method() as u32) << 2, first.2), (5, 2, 0x300, 0xDEAD));
    b.wr(NV_PPBDMA_INTR_0, 0, PbdmaIntr::from(u32::MAX));
    let second = (b.rd(NV_PPBDMA_CHANNEL, 0), PbdmaMethod::from(b.rd(NV_PPBDMA_METHOD0, 0)), b.rd(NV_PPBDMA_DATA0, 0));
    assert_eq!((second.0, second.1.subchannel(), (second.1.method() as u32) << 2, second.2), (6, 3, 0x900, 0xBEEF));
    b.wr(NV_PPBDMA_INTR_0, 0, PbdmaIntr::from(u32::MAX));
    assert_eq!(b.rd(NV_PPBDMA_INTR_0, 0), 0);
    assert!(!PfifoIntr::from(b.rd(NV_PFIFO_INTR_0, 0)).pbdma_intr());
    assert!(b.gpu.channel_stopped(5) && b.gpu.channel_stopped(6));
}

#[test]
fn malformed_gpfifo_entries_and_ramfc_signatures_are_pbdma_errors() {
    let (mut b, s, _, _, _) = setup();
    let mut c = b.channel(7, s);
    b.push_entry(&mut c, 0); // a control entry (length 0) is a NOP
    b.gpu.run_until_idle();
    assert_eq!((b.gp_get(&c), b.rd(NV_PPBDMA_INTR_0, 0)), (1, 0));
    let sub = hw::cmd::GpEntry::segment(0x1000_0000, 4).with_subroutine(true);
    b.push_entry(&mut c, sub.into());
    b.gpu.run_until_idle();
    assert!(PbdmaIntr::from(b.rd(NV_PPBDMA_INTR_0, 0)).gpentry());
    b.wr(NV_PPBDMA_INTR_0, 0, PbdmaIntr::from(u32::MAX));
    // A channel whose RAMFC lacks the signature never runs.
    let inst = b.vram(4096);
    b.wr(NV_PFIFO_CHAN_INST, 9, PfifoChanInst::new().with_inst((inst >> 12) as u32).with_valid(true));
    b.wr(NV_PFIFO_CHAN_STATE, 9, PfifoChanState::new().with_runnable(true));
    b.wr(NV_PFIFO_RUNLIST_SUBMIT, 0, 0); // empty, then ...
    let rl = b.vram(4096);
    b.vram_w32(rl, 9);
    b.wr(NV_PFIFO_RUNLIST_BASE, 0, PfifoRunlistBase::new().with_addr((rl >> 12) as u32));
    b.wr(NV_PFIFO_RUNLIST_SUBMIT, 0, 1);
    b.gpu.run_until_idle();
    assert!(PbdmaIntr::from(b.rd(NV_PPBDMA_INTR_0, 0)).signature());
    assert_eq!(b.rd(NV_PPBDMA_CHANNEL, 0), 9);
    // A runlist naming an unbound channel is a scheduler error.
    b.vram_w32(rl, 100);
    b.wr(NV_PFIFO_RUNLIST_SUBMIT, 0, 1);
    b.vram_w32(rl, 300);
    b.wr(NV_PFIFO_RUNLIST_SUBMIT, 0, 1);
    assert!(PfifoIntr::from(b.rd(NV_PFIFO_INTR_0, 0)).sched_error());
}

#[test]
fn translations_stay_stale_until_the_tlb_is_flushed() {
    let (mut b, s, a, c, _) = setup();
    let mut ch = b.channel(0, s);
    let other = b.sys(4096);
    other.mem.fill(0, 4096, 0x22).unwrap();
    a.mem.fill(0, 4096, 0x11).unwrap();
    let read_page = |b: &mut Board, ch: &mut Chan| {
        let mut pb = Pb::new();
        bind_copy(&mut pb);
        copy(&mut pb, VA_SYS_A, VA_SYS_B, 16, 0, 0, 0, pitch());
        b.push(ch, pb.words());
        b.gpu.run_until_idle();
        let mut out = [0u8; 16];
        c.mem.read(0, &mut out).unwrap();
        out[0]
    };
    assert_eq!(read_page(&mut b, &mut ch), 0x11);
    b.map(s, VA_SYS_A, Target::SysCoherent, other.bus, 4096);
    assert_eq!(read_page(&mut b, &mut ch), 0x11, "stale until flushed");
    b.flush(s);
    assert_eq!(read_page(&mut b, &mut ch), 0x22);
}

#[test]
fn the_trace_records_every_access_as_text() {
    let mut b = Board::new();
    b.gpu.trace_start(100);
    b.wr(NV_PMC_ENABLE, 0, PmcEnable::new().with_pfifo(true));
    let _ = b.rd(NV_PFIFO_CHAN_INST, 3);
    b.vram_w32(0x12340, 0xABCD);
    let _ = b.gpu.cfg_read32(0);
    let recs = b.gpu.trace_take();
    let lines: Vec<String> = recs.iter().map(|r| r.to_string()).collect();
    assert_eq!(recs[0].kind, AccessKind::Write);
    assert_eq!(lines[0], format!("W 4 0 0x{:x} 0x00000100 NV_PMC_ENABLE", BAR0 + 0x200));
    assert!(lines[1].starts_with("R 4 0 0xfd003018 0x00000000 NV_PFIFO_CHAN_INST[3]"), "{}", lines[1]);
    assert!(lines[2].ends_with("NV_PBUS_BAR0_WINDOW"), "{}", lines[2]);
    assert!(lines[3].ends_with("0x0000abcd NV_PRAMIN+0x2340"), "{}", lines[3]);
    assert_eq!(lines[4], "CR 4 0 0x0 0x06c010de PCI_CFG+0x0");
    assert_eq!(lines.len(), 5);
}

/// A filter keeps units, registers and windows, leaves out `-` ones, and folds runs of
/// consecutive PRAMIN words into one record; an unknown unit is refused by name.
#[test]
fn the_trace_filters_and_folds() {
    use fake_pci::TraceFilter;
    let pramin = BAR0 + NV_PRAMIN as u64;
    let run = |b: &mut Board| {
        b.wr(NV_PMC_ENABLE, 0, PmcEnable::new().with_pfifo(true));
        b.wr(NV_PBUS_BAR0_WINDOW, 0, PbusBar0Window::new().with_base(1));
        for i in 0..64 {
            b.gpu.mmio_write32(pramin + 4 * i, i as u32);
        }
        b.gpu.mmio_write32(pramin + 0x1000, 7); // not consecutive: a new run
        let _ = b.rd(NV_PFIFO_CHAN_INST, 3);
        let _ = b.gpu.cfg_read32(0);
    };
    let mut b = Board::new();
    b.gpu.trace_start_filtered(100, TraceFilter::folded());
    run(&mut b);
    let lines: Vec<String> = b.gpu.trace_take().iter().map(|r| r.to_string()).collect();
    assert_eq!(lines.len(), 6, "{lines:#?}");
    assert!(lines[2].ends_with("0x00000000 NV_PRAMIN+0x0 (run of 64 words, 256 bytes)"), "{}", lines[2]);
    assert!(lines[3].ends_with("0x00000007 NV_PRAMIN+0x1000"), "{}", lines[3]);

    let mut b = Board::new();
    b.gpu.trace_start_filtered(100, TraceFilter::parse("pfifo,NV_PMC_ENABLE", false).unwrap());
    run(&mut b);
    let lines: Vec<String> = b.gpu.trace_take().iter().map(|r| r.to_string()).collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(lines[0].ends_with("NV_PMC_ENABLE") && lines[1].contains("NV_PFIFO_CHAN_INST[3]"), "{lines:#?}");

    let mut b = Board::new();
    b.gpu.trace_start_filtered(10, TraceFilter::parse("-pramin,-config", false).unwrap());
    run(&mut b);
    let lines: Vec<String> = b.gpu.trace_take().iter().map(|r| r.to_string()).collect();
    assert_eq!(lines.len(), 3, "{lines:#?}");

    // Past the limit records are counted, not kept.
    let mut b = Board::new();
    b.gpu.trace_start_filtered(3, TraceFilter::default());
    run(&mut b);
    assert_eq!(b.gpu.trace_dropped(), 66);
    assert_eq!(b.gpu.trace_take().len(), 3);

    let e = TraceFilter::parse("PFIFO,PFOO", true).unwrap_err();
    assert!(e.contains("`PFOO`") && e.contains("PGRAPH"), "{e}");
}

#[test]
fn the_trace_streams_to_any_writer() {
    let mut b = Board::new();
    b.gpu.trace_start(10);
    b.wr(NV_PMC_ENABLE, 0, PmcEnable::new().with_pfifo(true));
    let mut out = Vec::new();
    assert_eq!(b.gpu.trace_write(&mut out).unwrap(), 1);
    assert_eq!(String::from_utf8(out).unwrap(), format!("W 4 0 0x{:x} 0x00000100 NV_PMC_ENABLE\n", BAR0 + 0x200));
    assert!(b.gpu.trace_take().is_empty(), "tracing stopped");
}
