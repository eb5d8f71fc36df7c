//! The PCI function as the bus sees it: configuration space accesses, BAR decode, the MMIO
//! entry points, BAR1 (VRAM through its own page tables, or physical), and the platform's
//! side of DMA (registering system memory regions at bus addresses, as an IOMMU would).

use crate::fault::FaultRecord;
use crate::mmu::AddressSpace;
use crate::trace::{AccessKind, Window};
use crate::{FakeGpu, WriteEffect, sysmem};
use alloc::sync::Arc;
use fifo::SharedMem;
use hw::regs::*;

impl FakeGpu {
    /// Assign the BARs, as firmware or the PCI core does before a driver probes.
    pub fn assign_bars(&mut self, bar0: u64, bar1: u64) {
        self.cfg_write32(hw::pci::BAR0, bar0 as u32);
        self.cfg_write32(hw::pci::BAR1_LO, bar1 as u32);
        self.cfg_write32(hw::pci::BAR1_HI, (bar1 >> 32) as u32);
    }

    /// Register `mem` as DMA-able system memory at bus address `bus` (an IOMMU mapping).
    pub fn map_dma(&mut self, bus: u64, mem: Arc<SharedMem>) -> Result<(), sysmem::Unmapped> {
        self.mem.sys.map(bus, mem)
    }

    /// Allocate `len` bytes (rounded up to 4 KiB) of zeroed DMA-able memory and register it
    /// at a free bus address: the platform's `dma_alloc`.
    pub fn dma_alloc(&mut self, len: usize) -> Result<(Arc<SharedMem>, u64), sysmem::Unmapped> {
        let len = len.max(1).checked_next_multiple_of(4096).ok_or(sysmem::Unmapped)?;
        let mem = Arc::new(SharedMem::try_new(len).ok_or(sysmem::Unmapped)?);
        let bus = self.mem.sys.map_anywhere(mem.clone())?;
        Ok((mem, bus))
    }

    /// Register memory the host already has (a program's registered pages) as a DMA
    /// region; returns its bus address.
    pub fn dma_map(&mut self, mem: Arc<SharedMem>) -> Result<u64, sysmem::Unmapped> {
        if mem.is_empty() || !mem.len().is_multiple_of(4096) {
            return Err(sysmem::Unmapped);
        }
        self.mem.sys.map_anywhere(mem)
    }

    /// Number of registered DMA regions.
    pub fn dma_regions(&self) -> usize {
        self.mem.sys.regions()
    }

    /// Remove the DMA region registered at `bus`.
    pub fn unmap_dma(&mut self, bus: u64) -> Option<Arc<SharedMem>> {
        self.mem.sys.unmap(bus)
    }

    /// Configuration read of the 32-bit word at `off`.
    pub fn cfg_read32(&mut self, off: u16) -> u32 {
        let v = self.pci.read(off);
        self.record(AccessKind::CfgRead, off as u64, v, Window::Config(off));
        v
    }

    /// Configuration write of the 32-bit word at `off`.
    pub fn cfg_write32(&mut self, off: u16, value: u32) {
        self.record(AccessKind::CfgWrite, off as u64, value, Window::Config(off));
        if !self.pci.write(off, value) {
            self.ignore(off as u64, value, Window::Config(off));
        }
        self.mem.bus_master = self.pci.command().bus_master();
    }

    pub(crate) fn decode(&self, addr: u64) -> Window {
        if !self.pci.command().memory_space() {
            return Window::Unclaimed;
        }
        let b0 = self.pci.bar0();
        if addr >= b0 && addr - b0 < BAR0_SIZE as u64 {
            return Window::Bar0((addr - b0) as u32);
        }
        let b1 = self.pci.bar1();
        if addr >= b1 && addr - b1 < self.cfg.board.bar1_size {
            return Window::Bar1(addr - b1);
        }
        Window::Unclaimed
    }

    /// 32-bit MMIO read at bus address `addr`.
    pub fn mmio_read32(&mut self, addr: u64) -> u32 {
        let w = self.decode(addr);
        let v = match w {
            Window::Bar0(off) => self.bar0_read(off),
            Window::Bar1(off) => self.bar1_read(off),
            _ => u32::MAX,
        };
        self.record(AccessKind::Read, addr, v, w);
        v
    }

    /// 32-bit MMIO write at bus address `addr`.
    pub fn mmio_write32(&mut self, addr: u64, value: u32) -> WriteEffect {
        let w = self.decode(addr);
        self.record(AccessKind::Write, addr, value, w);
        match w {
            Window::Bar0(off) => self.bar0_write(off, value),
            Window::Bar1(off) => self.bar1_write(off, value),
            _ => {
                self.ignore(addr, value, w);
                WriteEffect::default()
            }
        }
    }

    pub(crate) fn bar1_changed(&mut self) {
        let b = PbusBar1Block::from(self.regs.get(NV_PBUS_BAR1_BLOCK, 0));
        self.bar1 =
            if b.use_vm() { AddressSpace::from_instance(&self.mem, (b.inst() as u64) << 12).ok() } else { None };
    }

    pub(crate) fn bar1_target(&mut self, off: u64, write: bool) -> Result<(Target, u64), ()> {
        let b = PbusBar1Block::from(self.regs.get(NV_PBUS_BAR1_BLOCK, 0));
        if !b.use_vm() {
            return Ok((Target::Vram, off));
        }
        // The instance block may have been written after the register; re-read it lazily.
        if self.bar1.is_none() {
            self.bar1_changed();
        }
        let space = self.bar1.ok_or(())?;
        self.tlb.translate(&self.mem, &space, off, write).map_err(|fault| {
            self.raise_fault(FaultRecord { unit: fault_unit::BAR1, inst: space.inst, fault });
        })
    }

    pub(crate) fn bar1_read(&mut self, off: u64) -> u32 {
        if !off.is_multiple_of(4) {
            return BAD_READ;
        }
        match self.bar1_target(off, false) {
            Ok((t, pa)) => self.mem.read_u32(t, pa).unwrap_or(BAD_READ),
            Err(()) => BAD_READ,
        }
    }

    pub(crate) fn bar1_write(&mut self, off: u64, value: u32) -> WriteEffect {
        if !off.is_multiple_of(4) {
            self.ignore(off, value, Window::Bar1(off));
            return WriteEffect::default();
        }
        match self.bar1_target(off, true) {
            Ok((t, pa)) => {
                if self.mem.write_u32(t, pa, value).is_err() {
                    self.ignore(off, value, Window::Bar1(off));
                }
                WriteEffect { kick: true }
            }
            Err(()) => WriteEffect::default(),
        }
    }
}
