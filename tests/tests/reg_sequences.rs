//! Register-sequence tests: the runtime's exact traffic on the bus for device init,
//! context creation (channel binding and the first kick), a channel kick, and a TLB
//! flush, checked against expectation lists. What goes through PRAMIN is checked as the
//! memory structures it builds (instance block, RAMFC, runlist).

use fake_pci::DeviceConfig;
use hw::class::{FERMI_DMA_COPY_A, subch};
use hw::inst::*;
use hw::pci;
use hw::regs::*;
use runtime_core::Gpu;
use tests::mock::{BAR0, BAR1, ExpectPlatform, Tx};

const VRAM: u64 = 256 << 20;
/// The runtime keeps the first MiB of VRAM; its first allocations follow in order.
const BAR1_INST: u64 = 1 << 20;
const BAR1_PD: u64 = BAR1_INST + 0x1000;
const USERD_VRAM: u64 = BAR1_PD + 0x10000;
/// USERD is the first thing mapped into BAR1 (page 0 stays unmapped).
const USERD_BAR1: u64 = 0x1000;

fn cfg() -> DeviceConfig {
    DeviceConfig::default().with(|c| c.board.vram_size = VRAM)
}

fn tlb_flush(pd: u64) -> [Tx; 4] {
    [
        Tx::read(NV_PFB_FLUSH_STATUS, 0, 0x00FF_8000),
        Tx::write(NV_PFB_TLB_FLUSH_PDB, 0, TlbFlushPdb::new().with_pd((pd >> 12) as u32)),
        Tx::write(NV_PFB_TLB_FLUSH_TRIGGER, 0, TlbFlushTrigger::new().with_page_all(true).with_trigger(true)),
        Tx::read(NV_PFB_FLUSH_STATUS, 0, 0x00FF_8000),
    ]
}

fn init_sequence() -> Vec<Tx> {
    let mut v = vec![
        Tx::cfg_read(pci::VENDOR_DEVICE, 0x06C0_10DE),
        Tx::cfg_read(pci::REVISION_CLASS, 0x0302_00A3),
        Tx::cfg_read(pci::SUBSYSTEM, 0x0768_10DE),
        // BAR0 sizing: all-ones, read back 16 MiB, restore.
        Tx::cfg_read(pci::BAR0, BAR0 as u32),
        Tx::cfg_write(pci::BAR0, u32::MAX),
        Tx::cfg_read(pci::BAR0, 0xFF00_0000),
        Tx::cfg_write(pci::BAR0, BAR0 as u32),
        // BAR1: 64-bit prefetchable, 256 MiB.
        Tx::cfg_read(pci::BAR1_LO, 0xC),
        Tx::cfg_write(pci::BAR1_LO, u32::MAX),
        Tx::cfg_read(pci::BAR1_LO, 0xF000_000C),
        Tx::cfg_write(pci::BAR1_LO, 0xC),
        Tx::cfg_read(pci::BAR1_HI, (BAR1 >> 32) as u32),
        Tx::cfg_write(pci::BAR1_HI, u32::MAX),
        Tx::cfg_read(pci::BAR1_HI, u32::MAX),
        Tx::cfg_write(pci::BAR1_HI, (BAR1 >> 32) as u32),
        Tx::cfg_read(pci::BAR0, BAR0 as u32),
        Tx::cfg_read(pci::BAR1_LO, 0xC),
        Tx::cfg_read(pci::BAR1_HI, (BAR1 >> 32) as u32),
        // Memory space and bus master on.
        Tx::cfg_read(pci::COMMAND_STATUS, pci::STATUS_CAP_LIST << 16),
        Tx::cfg_write(pci::COMMAND_STATUS, pci::STATUS_CAP_LIST << 16 | 0x6),
        Tx::read(NV_PMC_BOOT_0, 0, 0x1400_00A1), // GV100 (the default preset)
        Tx::read(NV_PMC_ENABLE, 0, 0),
        Tx::write(
            NV_PMC_ENABLE,
            0,
            PmcEnable::new().with_pfifo(true).with_pcopy0(true).with_pgraph(true).with_ptimer(true),
        ),
        Tx::read(NV_PFB_VRAM_SIZE, 0, encode_vram_size(VRAM)),
        Tx::read(
            NV_PGRAPH_UNITS,
            0,
            PgraphUnits::new().with_gpcs(cfg().board.gpcs as u8).with_sms(cfg().board.sms as u8).into(),
        ),
        // What an SM holds: the launch limits and the occupancy rule.
        Tx::read(NV_PGRAPH_SM_THREADS, 0, cfg().sm.max_threads),
        Tx::read(NV_PGRAPH_SM_BLOCKS, 0, cfg().sm.max_blocks),
        Tx::read(NV_PGRAPH_SM_REGS, 0, cfg().sm.regs),
        Tx::read(NV_PGRAPH_SM_SHARED, 0, cfg().shared.bytes),
        // The watchdog, for CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT.
        Tx::read(NV_PGRAPH_WATCHDOG_LO, 0, cfg().watchdog_cycles as u32),
        Tx::read(NV_PGRAPH_WATCHDOG_HI, 0, (cfg().watchdog_cycles >> 32) as u32),
        // What the device attributes report: compute capability, clocks, memory, L2.
        Tx::read(
            NV_PGRAPH_SM_ARCH,
            0,
            PgraphSmArch::new().with_major(cfg().board.cc_major as u8).with_minor(cfg().board.cc_minor as u8).into(),
        ),
        Tx::read(NV_PGRAPH_CLOCK_KHZ, 0, cfg().board.clock_mhz * 1000),
        // GV100 issues a double-precision instruction in the time of two single-precision ones.
        Tx::read(NV_PGRAPH_CAPS, 0, PgraphCaps::new().with_concurrent_kernels(true).with_fp32_per_fp64(2).into()),
        Tx::read(NV_PFB_MEM_CLOCK_KHZ, 0, cfg().dram.clock_mhz * 1000),
        Tx::read(NV_PFB_BUS_WIDTH, 0, cfg().dram.bus_bits),
        Tx::read(NV_PFB_L2_SIZE, 0, cfg().l2.bytes),
        // Interrupts.
        Tx::write(NV_PFIFO_INTR_0, 0, u32::MAX),
        Tx::write(NV_PFIFO_INTR_EN_0, 0, 0x3000_0101u32),
        Tx::write(NV_PPBDMA_INTR_0, 0, u32::MAX),
        Tx::write(NV_PPBDMA_INTR_EN_0, 0, u32::MAX),
        Tx::write(NV_PGRAPH_INTR, 0, u32::MAX),
        Tx::write(NV_PGRAPH_INTR_EN, 0, PgraphIntr::new().with_trap(true)),
        Tx::write(NV_PMC_INTR_EN_0, 0, PmcIntr::new().with_pfifo(true).with_pgraph(true)),
        Tx::write(NV_PMC_INTR_EN_1, 0, PmcIntr::new().with_pfifo(true).with_pcopy0(true)),
        // BAR1 through its own instance block and page tables.
        Tx::write(NV_PBUS_BAR1_BLOCK, 0, PbusBar1Block::new().with_inst((BAR1_INST >> 12) as u32).with_use_vm(true)),
    ];
    v.extend(tlb_flush(BAR1_PD));
    v.push(Tx::write(
        NV_PFIFO_USERD_BASE,
        0,
        PfifoUserdBase::new().with_bar1_page((USERD_BAR1 >> 12) as u32).with_valid(true),
    ));
    v
}

#[test]
fn device_init_register_sequence() {
    let p = ExpectPlatform::new(cfg());
    p.expect(init_sequence());
    let gpu = Gpu::probe(p).expect("probe");
    gpu.platform().done();
    // The BAR1 instance block points at its page directory with a 256 MiB limit.
    assert_eq!(gpu.device().pramin_read(BAR1_INST + INST_PD_LO as u64).unwrap(), BAR1_PD as u32);
    assert_eq!(gpu.device().pramin_read(BAR1_INST + INST_VA_LIMIT_LO as u64).unwrap(), (256 << 20) - 1);
    let info = gpu.info();
    assert_eq!((info.vram_size, info.sms, info.bar1), (VRAM, cfg().board.sms, (BAR1, 256 << 20)));
}

#[test]
fn context_creation_binds_a_channel_and_kicks_it() {
    let gpu = Gpu::probe(ExpectPlatform::new(cfg())).unwrap();
    let p = gpu.platform();
    let mut seq = vec![
        // The channel's rings are mapped: one TLB flush for its page directory.
        Tx::read(NV_PFB_FLUSH_STATUS, 0, 0x00FF_8000),
        Tx::write_any(NV_PFB_TLB_FLUSH_PDB, 0),
        Tx::write(NV_PFB_TLB_FLUSH_TRIGGER, 0, 0x8000_0001u32),
        Tx::read(NV_PFB_FLUSH_STATUS, 0, 0x00FF_8000),
        // Bind: channel table, enable, runlist of one entry.
        Tx::write_any(NV_PFIFO_CHAN_INST, 0),
        Tx::write(NV_PFIFO_CHAN_STATE, 0, 0x001F_0001u32),
        Tx::write_any(NV_PFIFO_RUNLIST_BASE, 0),
        Tx::write(NV_PFIFO_RUNLIST_SUBMIT, 0, 1u32),
        Tx::read(NV_PFIFO_RUNLIST_STATUS, 0, 0),
        // First submission (SET_OBJECT + fence): one GP_PUT write through BAR1.
        Tx::bar1_write(USERD_BAR1 + USERD_GP_PUT as u64, 1),
        // The wait: poll interrupts once, then the device runs and the fence lands.
        Tx::read(NV_PMC_INTR_1, 0, 0),
        Tx::read(NV_PMC_INTR_0, 0, 0),
    ];
    p.expect(seq.drain(..));
    let ctx = gpu.ctx_create().unwrap();
    let got = p.done();
    let (pdb, chan_inst, runlist) =
        (TlbFlushPdb::from(got[0]), PfifoChanInst::from(got[1]), PfifoRunlistBase::from(got[2]));
    assert!(chan_inst.valid());
    let inst = (chan_inst.inst() as u64) << 12;
    let rd = |a: u64| gpu.device().pramin_read(a).unwrap();
    // RAMFC as the device will parse it.
    assert_eq!(rd(inst + RAMFC_SIGNATURE as u64), RAMFC_SIGNATURE_VALUE);
    assert_eq!(rd(inst + RAMFC_USERD_LO as u64), USERD_VRAM as u32);
    assert_eq!(RamfcGpfifoHi::from(rd(inst + RAMFC_GPFIFO_HI as u64)).log2_entries(), 10);
    let pd = InstPdLo::from(rd(inst + INST_PD_LO as u64));
    assert_eq!((pd.addr_lo(), pd.target()), (pdb.pd(), Target::Vram));
    assert_ne!(pdb.pd() as u64, BAR1_PD >> 12);
    // The runlist holds channel 0.
    let rl = (runlist.addr() as u64) << 12;
    assert_eq!((rd(rl), rd(rl + 4)), (0, 4));
    // The device bound the copy class on COPY0 and released the first fence.
    assert_eq!(gpu.ctx_channel(ctx).unwrap(), 0);
    assert!(!p.device().channel_stopped(0));
    assert_eq!(p.device().stats().semaphores, 1);
    let _ = (subch::COPY0, FERMI_DMA_COPY_A);
}

#[test]
fn a_channel_kick_is_one_gp_put_write() {
    let gpu = Gpu::probe(ExpectPlatform::new(cfg())).unwrap();
    let ctx = gpu.ctx_create().unwrap();
    let p = gpu.platform();
    for put in 2..6 {
        p.expect([Tx::bar1_write(USERD_BAR1 + USERD_GP_PUT as u64, put)]);
        gpu.fence_submit(ctx).unwrap();
        p.done();
    }
    // PFIFO consumed all of them: GP_GET through BAR1 equals GP_PUT.
    gpu.ctx_synchronize(ctx).unwrap();
    assert_eq!(p.device().mmio_read32(BAR1 + USERD_BAR1 + USERD_GP_GET as u64), 5);
}

#[test]
fn allocating_memory_writes_ptes_then_flushes_the_tlb() {
    let gpu = Gpu::probe(ExpectPlatform::new(cfg())).unwrap();
    let ctx = gpu.ctx_create().unwrap();
    let p = gpu.platform();
    let inst =
        (PfifoChanInst::from(p.device().mmio_read32(BAR0 + NV_PFIFO_CHAN_INST.offset() as u64)).inst() as u64) << 12;
    let pd = (InstPdLo::from(gpu.device().pramin_read(inst + INST_PD_LO as u64).unwrap()).addr_lo() as u64) << 12;
    p.expect(tlb_flush(pd));
    let ptr = gpu.mem_alloc(ctx, 3 << 20).unwrap();
    p.done();
    assert!(ptr >= runtime_core::VA_BASE);
}

#[test]
#[should_panic(
    expected = "expected write NV_PFB_TLB_FLUSH_TRIGGER = 0x80000005, got write NV_PFB_TLB_FLUSH_TRIGGER = 0x80000001"
)]
fn a_mismatch_names_the_register() {
    let gpu = Gpu::probe(ExpectPlatform::new(cfg())).unwrap();
    let ctx = gpu.ctx_create().unwrap();
    let p = gpu.platform();
    p.expect([
        Tx::read(NV_PFB_FLUSH_STATUS, 0, 0x00FF_8000),
        Tx::write_any(NV_PFB_TLB_FLUSH_PDB, 0),
        Tx::write(NV_PFB_TLB_FLUSH_TRIGGER, 0, 0x8000_0005u32),
    ]);
    let _ = gpu.mem_alloc(ctx, 4096);
}

#[test]
#[should_panic(expected = "incomplete after 0 accesses: still expected write NV_PFIFO_PREEMPT = 0x00000000")]
fn done_fails_when_expected_accesses_did_not_happen() {
    let p = ExpectPlatform::new(cfg());
    p.expect([Tx::write(NV_PFIFO_PREEMPT, 0, 0u32)]);
    p.done();
}
