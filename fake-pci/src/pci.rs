//! PCI configuration space: one register array plus a writable-bits array, BAR sizing in
//! one place (the pattern of cloud-hypervisor's `pci/src/configuration.rs`).
//!
//! Type 0 header of a GF100: vendor 0x10DE, class 0x030200 (3D controller), BAR0 16 MiB
//! 32-bit non-prefetchable, BAR1 64-bit prefetchable VRAM aperture, INTA, and a power
//! management capability so the capability list is not empty.

use hw::pci::{self, BarType, Command, MemBar};

const WORDS: usize = (pci::CONFIG_SIZE / 4) as usize;

/// The configuration space.
#[derive(Clone, Debug)]
pub struct PciConfig {
    regs: [u32; WORDS],
    writable: [u32; WORDS],
}

impl PciConfig {
    /// Configuration space with BAR0 of `bar0_size` and a 64-bit BAR1 of `bar1_size` bytes
    /// (both powers of two).
    pub fn new(bar0_size: u64, bar1_size: u64) -> Self {
        let mut c = Self { regs: [0; WORDS], writable: [0; WORDS] };
        let w = |off: u16| (off / 4) as usize;
        c.regs[w(pci::VENDOR_DEVICE)] = pci::VENDOR_NVIDIA as u32 | (pci::DEVICE_GF100 as u32) << 16;
        c.regs[w(pci::COMMAND_STATUS)] = pci::STATUS_CAP_LIST << 16;
        let cmd = Command::new()
            .with_memory_space(true)
            .with_bus_master(true)
            .with_parity_error(true)
            .with_serr(true)
            .with_intx_disable(true);
        c.writable[w(pci::COMMAND_STATUS)] = u16::from(cmd) as u32;
        c.regs[w(pci::REVISION_CLASS)] = pci::REVISION as u32 | pci::CLASS_3D_CONTROLLER << 8;
        let bar0 = MemBar::new().with_bar_type(BarType::Bits32);
        c.regs[w(pci::BAR0)] = u32::from(bar0);
        c.writable[w(pci::BAR0)] = !(bar0_size as u32 - 1) & !MemBar::FLAGS_MASK;
        let bar1 = MemBar::new().with_bar_type(BarType::Bits64).with_prefetchable(true);
        c.regs[w(pci::BAR1_LO)] = u32::from(bar1);
        c.writable[w(pci::BAR1_LO)] = !((bar1_size - 1) as u32) & !MemBar::FLAGS_MASK;
        c.writable[w(pci::BAR1_HI)] = !((bar1_size - 1) >> 32) as u32;
        c.regs[w(pci::SUBSYSTEM)] = pci::VENDOR_NVIDIA as u32 | 0x0768 << 16;
        c.regs[w(pci::CAP_PTR)] = pci::CAP_PM as u32;
        c.regs[w(pci::INTERRUPT)] = 1 << 8; // INTA
        c.writable[w(pci::INTERRUPT)] = 0xFF;
        c.regs[w(pci::CAP_PM)] = 0x0003_0001; // PM capability, version 3, last in the list
        c
    }

    /// Read the 32-bit word at `off` (unaligned or out-of-range reads return all-ones, as an
    /// unclaimed configuration read does).
    pub fn read(&self, off: u16) -> u32 {
        match Self::index(off) {
            Some(i) => self.regs[i],
            None => u32::MAX,
        }
    }

    /// Write the 32-bit word at `off`; only writable bits change. Returns whether it landed.
    pub fn write(&mut self, off: u16, value: u32) -> bool {
        match Self::index(off) {
            Some(i) if self.writable[i] != 0 => {
                self.regs[i] = (self.regs[i] & !self.writable[i]) | (value & self.writable[i]);
                true
            }
            _ => false,
        }
    }

    fn index(off: u16) -> Option<usize> {
        (off.is_multiple_of(4) && off < pci::CONFIG_SIZE).then_some((off / 4) as usize)
    }

    /// The command register.
    pub fn command(&self) -> Command {
        Command::from(self.regs[(pci::COMMAND_STATUS / 4) as usize] as u16)
    }

    /// BAR0 base address.
    pub fn bar0(&self) -> u64 {
        (self.read(pci::BAR0) & !MemBar::FLAGS_MASK) as u64
    }

    /// BAR1 base address.
    pub fn bar1(&self) -> u64 {
        (self.read(pci::BAR1_LO) & !MemBar::FLAGS_MASK) as u64 | (self.read(pci::BAR1_HI) as u64) << 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_and_class() {
        let c = PciConfig::new(16 << 20, 256 << 20);
        assert_eq!(c.read(0) & 0xFFFF, 0x10DE);
        assert_eq!(c.read(8) >> 8, 0x030200);
        assert_eq!((c.read(0x3C) >> 8) & 0xFF, 1);
        assert_eq!(c.read(0x34) & 0xFF, 0x60);
        assert_eq!(c.read(2), u32::MAX);
        assert_eq!(c.read(0x100), u32::MAX);
    }

    #[test]
    fn bar_sizing_by_writing_all_ones() {
        let mut c = PciConfig::new(16 << 20, 256 << 20);
        c.write(pci::BAR0, u32::MAX);
        assert_eq!(c.read(pci::BAR0), 0xFF00_0000);
        c.write(pci::BAR1_LO, u32::MAX);
        c.write(pci::BAR1_HI, u32::MAX);
        assert_eq!(c.read(pci::BAR1_LO), 0xF000_000C);
        assert_eq!(c.read(pci::BAR1_HI), u32::MAX);
        c.write(pci::BAR1_LO, 0xE000_0000);
        c.write(pci::BAR1_HI, 0x1);
        assert_eq!(c.bar1(), 0x1_E000_0000);
        c.write(pci::BAR0, 0xFD00_0000);
        assert_eq!(c.bar0(), 0xFD00_0000);
    }

    #[test]
    fn read_only_fields_stay() {
        let mut c = PciConfig::new(16 << 20, 256 << 20);
        assert!(!c.write(0, 0));
        assert_eq!(c.read(0) & 0xFFFF, 0x10DE);
        c.write(pci::COMMAND_STATUS, 0xFFFF_FFFF);
        assert!(c.command().memory_space() && c.command().bus_master());
        assert!(!c.command().io_space());
        assert_eq!(c.read(pci::COMMAND_STATUS) >> 16, pci::STATUS_CAP_LIST);
    }
}
