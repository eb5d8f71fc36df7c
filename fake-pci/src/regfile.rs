//! The BAR0 register file: storage for every element of every register that
//! [`hw::regs::TABLE`] declares, the PRAMIN window and the configuration-space mirror, and
//! the side effects of reads and writes, dispatched on the register's offset
//! ([`hw::regs::offset`]).

use crate::config::Mode;
use crate::trace::Window;
use crate::{FakeGpu, WriteEffect};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::regs::{self, *};

/// The register file: storage for every element of every declared register.
pub(crate) struct RegFile {
    pub(crate) index: BTreeMap<u32, usize>,
    pub(crate) descs: Vec<&'static RegDesc>,
    pub(crate) values: Vec<u32>,
}

impl RegFile {
    /// The registers at reset, NV_PMC_BOOT_0 naming the chip of the board's compute
    /// capability `cc_major.cc_minor` ([`PmcBoot0::for_cc`]: GF100 for 2.x, GV100 for 7.0).
    pub(crate) fn new(cc_major: u32, cc_minor: u32) -> Self {
        let mut rf = Self { index: BTreeMap::new(), descs: Vec::new(), values: Vec::new() };
        for d in regs::TABLE {
            for i in 0..d.count {
                rf.index.insert(d.offset + i * d.stride, rf.values.len());
                rf.descs.push(d);
                rf.values.push(d.reset);
            }
        }
        rf.set(NV_PMC_BOOT_0, 0, PmcBoot0::for_cc(cc_major, cc_minor).into());
        rf
    }
    pub(crate) fn get<T>(&self, r: Reg<T>, i: u32) -> u32 {
        self.index.get(&r.offset_at(i)).map_or(0, |&s| self.values[s])
    }
    pub(crate) fn set<T>(&mut self, r: Reg<T>, i: u32, v: u32) {
        if let Some(&s) = self.index.get(&r.offset_at(i)) {
            self.values[s] = v;
        }
    }
    pub(crate) fn reset_range(&mut self, range: core::ops::Range<u32>) {
        for &s in self.index.range(range).map(|(_, s)| s) {
            self.values[s] = self.descs[s].reset;
        }
    }
}

impl FakeGpu {
    pub(crate) fn pramin_addr(&self, off: u32) -> (Target, u64) {
        let w = PbusBar0Window::from(self.regs.get(NV_PBUS_BAR0_WINDOW, 0));
        let t = w.target_or_err().unwrap_or(Target::Peer);
        (t, ((w.base() as u64) << 16) + (off - NV_PRAMIN) as u64)
    }

    pub(crate) fn bar0_read(&mut self, off: u32) -> u32 {
        if !off.is_multiple_of(4) {
            return BAD_READ;
        }
        if (NV_PRAMIN..NV_PRAMIN + NV_PRAMIN_SIZE).contains(&off) {
            let (t, a) = self.pramin_addr(off);
            return self.mem.read_u32(t, a).unwrap_or(BAD_READ);
        }
        if (NV_PCFG_MIRROR..NV_PCFG_MIRROR + NV_PCFG_MIRROR_SIZE).contains(&off) {
            return self.pci.read((off - NV_PCFG_MIRROR) as u16);
        }
        if !self.unit_enabled(off) {
            return BAD_READ;
        }
        let Some(&slot) = self.regs.index.get(&off) else { return BAD_READ };
        let stored = self.regs.values[slot];
        match off {
            offset::NV_PMC_INTR_0 => self.pmc_intr().into(),
            offset::NV_PFIFO_INTR_0 => self.pfifo_intr(),
            offset::NV_PTIMER_TIME_0 => self.time_ns() as u32,
            offset::NV_PTIMER_TIME_1 => (self.time_ns() >> 32) as u32,
            offset::NV_PFB_VRAM_SIZE => encode_vram_size(self.cfg.board.vram_size),
            offset::NV_PCOPY0_STATUS => EngineStatus::new().with_busy(self.copy.busy()).into(),
            offset::NV_PGRAPH_STATUS => EngineStatus::new().with_busy(self.compute.busy() || self.timing.busy()).into(),
            offset::NV_PGRAPH_SM_THREADS => self.cfg.sm.max_threads,
            offset::NV_PGRAPH_SM_BLOCKS => self.cfg.sm.max_blocks,
            offset::NV_PGRAPH_SM_REGS => self.cfg.sm.regs,
            offset::NV_PGRAPH_SM_SHARED => self.cfg.shared.bytes,
            offset::NV_PGRAPH_WATCHDOG_LO => self.cfg.watchdog_cycles as u32,
            offset::NV_PGRAPH_WATCHDOG_HI => (self.cfg.watchdog_cycles >> 32) as u32,
            offset::NV_PGRAPH_UNITS => {
                PgraphUnits::new().with_gpcs(self.cfg.board.gpcs as u8).with_sms(self.cfg.board.sms as u8).into()
            }
            offset::NV_PGRAPH_SM_ARCH => PgraphSmArch::new()
                .with_major(self.cfg.board.cc_major as u8)
                .with_minor(self.cfg.board.cc_minor as u8)
                .into(),
            offset::NV_PGRAPH_CLOCK_KHZ => self.cfg.board.clock_mhz.saturating_mul(1000),
            offset::NV_PGRAPH_CAPS => {
                let pipe = &self.cfg.pipe;
                let ratio = (pipe.f64_interval / pipe.alu_interval.max(1)).clamp(1, 255);
                PgraphCaps::new()
                    .with_concurrent_kernels(self.cfg.mode == Mode::Timing)
                    .with_fp32_per_fp64(ratio as u8)
                    .into()
            }
            offset::NV_PFB_MEM_CLOCK_KHZ => self.cfg.dram.clock_mhz.saturating_mul(1000),
            offset::NV_PFB_BUS_WIDTH => self.cfg.dram.bus_bits,
            offset::NV_PFB_L2_SIZE => self.cfg.l2.bytes,
            _ => stored,
        }
    }

    pub(crate) fn bar0_write(&mut self, off: u32, value: u32) -> WriteEffect {
        let none = WriteEffect::default();
        if !off.is_multiple_of(4) {
            self.ignore(off as u64, value, Window::Bar0(off));
            return none;
        }
        if (NV_PRAMIN..NV_PRAMIN + NV_PRAMIN_SIZE).contains(&off) {
            let (t, a) = self.pramin_addr(off);
            if self.mem.write_u32(t, a, value).is_err() {
                self.ignore(off as u64, value, Window::Bar0(off));
            }
            return none;
        }
        let slot = match self.regs.index.get(&off) {
            Some(&s) if self.unit_enabled(off) && self.regs.descs[s].access != Access::Ro => s,
            _ => {
                self.ignore(off as u64, value, Window::Bar0(off));
                return none;
            }
        };
        let desc = self.regs.descs[slot];
        let old = self.regs.values[slot];
        let new = desc.apply_write(old, value);
        self.regs.values[slot] = new;
        // Side effects by the declaration's offset (element 0 for arrays; `i` is the element).
        let i = desc.index_of(off).unwrap_or(0);
        match desc.offset {
            offset::NV_PMC_ENABLE => self.enable_changed(PmcEnable::from(old), PmcEnable::from(new)),
            offset::NV_PBUS_BAR1_BLOCK => self.bar1_changed(),
            offset::NV_PFIFO_RUNLIST_SUBMIT => {
                self.runlist_submit(new & 0xFFFF);
                return WriteEffect { kick: true };
            }
            offset::NV_PFIFO_CHAN_INST => {
                if old != new {
                    self.unbind(i);
                }
                return WriteEffect { kick: true };
            }
            offset::NV_PFIFO_CHAN_STATE => return WriteEffect { kick: true },
            offset::NV_PFB_PEER => {
                let p = PfbPeer::from(new);
                if let Some(e) = self.mem.peers.table.get_mut(i as usize) {
                    *e = p.valid().then(|| p.rid());
                }
                // Translations keep the entry's index, not the peer: no TLB flush needed.
            }
            offset::NV_PFB_REPLAY => {
                self.regs.values[slot] = 0; // self-clearing
                let r = PfbReplay::from(new);
                if r.replay() || r.cancel() {
                    self.replay_now(r.cancel());
                    return WriteEffect { kick: true };
                }
            }
            offset::NV_PFB_CHECK_SHADOW => {
                self.mem.shadow = PfbCheckShadow::from(new).on().then(|| self.mem.shadow.take().unwrap_or_default());
            }
            offset::NV_PFB_CHECK_CLEAR_SIZE => {
                let at = self.regs.get(NV_PFB_CHECK_CLEAR_LO, 0) as u64
                    | (self.regs.get(NV_PFB_CHECK_CLEAR_HI, 0) as u64) << 32;
                if let Some(s) = self.mem.shadow.as_mut() {
                    s.clear(at, new as u64);
                }
            }
            offset::NV_PFIFO_MMU_FAULT_UNITS => self.next_faults(),
            offset::NV_PPBDMA_INTR_0 => self.next_pbdma(),
            offset::NV_PGRAPH_INTR => self.next_trap(),
            offset::NV_PFB_TLB_FLUSH_TRIGGER => {
                let t = TlbFlushTrigger::from(new);
                if t.trigger() {
                    let pdb = TlbFlushPdb::from(self.regs.get(NV_PFB_TLB_FLUSH_PDB, 0));
                    self.tlb.flush_pd((pdb.pd() as u64) << 12);
                }
                self.regs.values[slot] = 0; // self-clearing trigger
            }
            _ => {}
        }
        none
    }
}
