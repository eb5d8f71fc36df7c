//! A bare board: the simulated GPU programmed directly, register by register, the way a
//! driver writer's unit test would — no runtime. Page tables, instance blocks, RAMFC and
//! runlists are written through PRAMIN; GPFIFO and pushbuffers live in DMA memory; BAR1
//! runs without VM (offset = VRAM address), so USERD is poked directly.

use fake_pci::{DeviceConfig, FakeGpu};
use fifo::SharedMem;
use hw::inst::*;
use hw::mmu::{self, Pde, PdeAperture, Pte};
use hw::regs::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub use hw::pci::{BAR0_BUS as BAR0, BAR1_BUS as BAR1};

/// The board.
pub struct Board {
    /// The device.
    pub gpu: FakeGpu,
    vram_next: u64,
    pts: HashMap<(u64, u64), u64>,
    active: Vec<u32>,
    runlist: u64,
}

/// An address space.
#[derive(Clone, Copy, Debug)]
pub struct Space {
    /// Page directory.
    pub pd: u64,
}

/// System memory visible to the device.
pub struct Sys {
    /// The memory.
    pub mem: Arc<SharedMem>,
    /// Its bus address.
    pub bus: u64,
}

/// A bound channel.
pub struct Chan {
    /// Channel id.
    pub chid: u32,
    /// Instance block.
    pub inst: u64,
    /// USERD (VRAM).
    pub userd: u64,
    gp: Sys,
    pb: Sys,
    pb_va: u64,
    gp_put: u32,
    pb_put: usize,
}

impl Board {
    /// A 256 MiB board with BARs assigned, decoding and bus mastering on, units enabled,
    /// interrupts enabled.
    pub fn new() -> Self {
        Self::with(DeviceConfig::default().with(|c| c.board.vram_size = 256 << 20))
    }

    /// A board from `cfg`.
    pub fn with(cfg: DeviceConfig) -> Self {
        let mut gpu = FakeGpu::new(cfg);
        gpu.assign_bars(BAR0, BAR1);
        gpu.cfg_write32(hw::pci::COMMAND_STATUS, 0x6);
        let mut b = Self { gpu, vram_next: 1 << 20, pts: HashMap::new(), active: Vec::new(), runlist: 0 };
        b.wr(NV_PMC_ENABLE, 0, PmcEnable::new().with_pfifo(true).with_pcopy0(true).with_ptimer(true).with_pgraph(true));
        b.wr(NV_PFIFO_INTR_EN_0, 0, PfifoIntr::from(u32::MAX));
        b.wr(NV_PPBDMA_INTR_EN_0, 0, PbdmaIntr::from(u32::MAX));
        b.wr(NV_PMC_INTR_EN_0, 0, PmcIntr::new().with_pfifo(true));
        b.runlist = b.vram(4096);
        b
    }

    /// Write element `i` of a register.
    pub fn wr<T: Into<u32>>(&mut self, r: Reg<T>, i: u32, v: T) {
        self.gpu.mmio_write32(BAR0 + r.offset_at(i) as u64, r.encode(v));
    }

    /// Read element `i` of a register.
    pub fn rd<T>(&mut self, r: Reg<T>, i: u32) -> u32 {
        self.gpu.mmio_read32(BAR0 + r.offset_at(i) as u64)
    }

    /// Write a word of VRAM through the PRAMIN window.
    pub fn vram_w32(&mut self, addr: u64, v: u32) {
        self.wr(NV_PBUS_BAR0_WINDOW, 0, PbusBar0Window::new().with_base((addr >> 16) as u32));
        self.gpu.mmio_write32(BAR0 + NV_PRAMIN as u64 + (addr & 0xFFFF), v);
    }

    /// Read a word of VRAM through the PRAMIN window.
    pub fn vram_r32(&mut self, addr: u64) -> u32 {
        self.wr(NV_PBUS_BAR0_WINDOW, 0, PbusBar0Window::new().with_base((addr >> 16) as u32));
        self.gpu.mmio_read32(BAR0 + NV_PRAMIN as u64 + (addr & 0xFFFF))
    }

    /// Write a u64 to VRAM.
    pub fn vram_w64(&mut self, addr: u64, v: u64) {
        self.vram_w32(addr, v as u32);
        self.vram_w32(addr + 4, (v >> 32) as u32);
    }

    /// Fresh (zero) VRAM: a bump allocator, never reused.
    pub fn vram(&mut self, bytes: u64) -> u64 {
        let a = self.vram_next;
        self.vram_next += bytes.div_ceil(4096) * 4096;
        a
    }

    /// Fresh DMA memory registered with the device.
    pub fn sys(&mut self, bytes: usize) -> Sys {
        let (mem, bus) = self.gpu.dma_alloc(bytes).expect("bus addresses");
        Sys { mem, bus }
    }

    /// A new address space.
    pub fn space(&mut self) -> Space {
        Space { pd: self.vram(mmu::PD_BYTES) }
    }

    /// Map `[va, va + bytes)` to `phys` in `target` with `flags` applied to each PTE.
    pub fn map_with(&mut self, s: Space, va: u64, target: Target, phys: u64, bytes: u64, flags: impl Fn(Pte) -> Pte) {
        for i in 0..bytes.div_ceil(mmu::PAGE_SIZE) {
            let a = va + i * mmu::PAGE_SIZE;
            let pde = mmu::pde_index(a);
            let pt = match self.pts.get(&(s.pd, pde)) {
                Some(&pt) => pt,
                None => {
                    let pt = self.vram(mmu::SPT_BYTES);
                    let e = Pde::new().with_small_aperture(PdeAperture::Vram).with_small_addr((pt >> 12) as u32);
                    self.vram_w64(s.pd + pde * 8, e.into());
                    self.pts.insert((s.pd, pde), pt);
                    pt
                }
            };
            let pte = flags(Pte::map(phys + i * mmu::PAGE_SIZE, target));
            self.vram_w64(pt + mmu::spte_index(a) * 8, pte.into());
        }
    }

    /// Map `[va, va + bytes)` to `phys` in `target`.
    pub fn map(&mut self, s: Space, va: u64, target: Target, phys: u64, bytes: u64) {
        self.map_with(s, va, target, phys, bytes, |p| p)
    }

    /// Flush the TLB for a space.
    pub fn flush(&mut self, s: Space) {
        self.wr(NV_PFB_TLB_FLUSH_PDB, 0, TlbFlushPdb::new().with_pd((s.pd >> 12) as u32));
        self.wr(NV_PFB_TLB_FLUSH_TRIGGER, 0, TlbFlushTrigger::new().with_page_all(true).with_trigger(true));
    }

    /// A channel `chid` in space `s`: instance block, RAMFC, USERD, a 512-entry GPFIFO at
    /// VA 0x10000000 + chid MiB and a 64 KiB pushbuffer after it, bound and in the runlist.
    pub fn channel(&mut self, chid: u32, s: Space) -> Chan {
        let inst = self.vram(INST_SIZE);
        let userd = self.vram(4096);
        let gp = self.sys(4096);
        let pb = self.sys(65536);
        let gp_va = 0x1000_0000 + ((chid as u64) << 20);
        let pb_va = gp_va + 0x1000;
        self.map(s, gp_va, Target::SysCoherent, gp.bus, 4096);
        self.map(s, pb_va, Target::SysCoherent, pb.bus, 65536);
        self.vram_w32(inst + RAMFC_USERD_LO as u64, userd as u32);
        self.vram_w32(inst + RAMFC_USERD_HI as u64, (userd >> 32) as u32);
        self.vram_w32(inst + RAMFC_SIGNATURE as u64, RAMFC_SIGNATURE_VALUE);
        self.vram_w32(inst + RAMFC_GPFIFO_LO as u64, gp_va as u32);
        self.vram_w32(inst + RAMFC_GPFIFO_HI as u64, RamfcGpfifoHi::new().with_log2_entries(9).into());
        self.vram_w32(inst + INST_PD_LO as u64, s.pd as u32);
        self.vram_w32(inst + INST_VA_LIMIT_LO as u64, u32::MAX);
        self.vram_w32(inst + INST_VA_LIMIT_HI as u64, 0xFF);
        self.wr(NV_PFIFO_CHAN_INST, chid, PfifoChanInst::new().with_inst((inst >> 12) as u32).with_valid(true));
        self.wr(NV_PFIFO_CHAN_STATE, chid, PfifoChanState::new().with_runnable(true));
        self.active.push(chid);
        self.submit_runlist();
        Chan { chid, inst, userd, gp, pb, pb_va, gp_put: 0, pb_put: 0 }
    }

    /// Write the runlist of active channels and submit it.
    pub fn submit_runlist(&mut self) {
        let (rl, active) = (self.runlist, self.active.clone());
        for (i, &c) in active.iter().enumerate() {
            let [w0, w1] = RunlistEntry { chid: c }.encode();
            self.vram_w32(rl + RunlistEntry::BYTES * i as u64, w0);
            self.vram_w32(rl + RunlistEntry::BYTES * i as u64 + 4, w1);
        }
        self.wr(NV_PFIFO_RUNLIST_BASE, 0, PfifoRunlistBase::new().with_addr((rl >> 12) as u32));
        self.wr(NV_PFIFO_RUNLIST_SUBMIT, 0, active.len() as u32);
    }

    /// Queue `words` on `c` as one segment and write GP_PUT (through BAR1).
    pub fn push(&mut self, c: &mut Chan, words: &[u32]) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        c.pb.mem.write(c.pb_put, &bytes).unwrap();
        let e = hw::cmd::GpEntry::segment(c.pb_va + c.pb_put as u64, words.len() as u32);
        c.gp.mem.store_u64(c.gp_put as usize * 8, e.into(), Ordering::Relaxed).unwrap();
        c.pb_put += bytes.len();
        self.push_entry(c, e.into());
    }

    /// Queue a raw GPFIFO entry on `c`.
    pub fn push_entry(&mut self, c: &mut Chan, entry: u64) {
        c.gp.mem.store_u64(c.gp_put as usize * 8, entry, Ordering::Relaxed).unwrap();
        c.gp_put = (c.gp_put + 1) % 512;
        self.gpu.mmio_write32(BAR1 + c.userd + USERD_GP_PUT as u64, c.gp_put);
    }

    /// GP_GET of `c` as PFIFO left it in USERD.
    pub fn gp_get(&mut self, c: &Chan) -> u32 {
        self.gpu.mmio_read32(BAR1 + c.userd + USERD_GP_GET as u64)
    }
}

impl Default for Board {
    fn default() -> Self {
        Self::new()
    }
}
