//! Typed BAR0 register access, BAR1 words, and VRAM through the PRAMIN window (the
//! window moved 64 KiB at a time, as nouveau's gf100 code does).

use super::Device;
use crate::error::{CuError, Result};
use crate::platform::{Level, Platform};
use crate::rlog;
use hw::regs::*;

/// Reads of a status register before a register wait gives up (the device's status
/// registers settle within one read; this bounds a device that never settles).
const POLL_LIMIT: u32 = 1_000_000;

impl<P: Platform> Device<P> {
    /// Read element `i` of a BAR0 register.
    pub fn rd<T>(&self, r: Reg<T>, i: u32) -> u32 {
        self.platform.mmio_read32(self.bar0 + r.offset_at(i) as u64)
    }

    /// Write element `i` of a BAR0 register with a value of its layout.
    pub fn wr<T: Into<u32>>(&self, r: Reg<T>, i: u32, v: T) {
        self.platform.mmio_write32(self.bar0 + r.offset_at(i) as u64, r.encode(v))
    }

    /// Poll until `(reg & mask) == value`.
    pub fn wait_reg<T>(&self, r: Reg<T>, i: u32, mask: u32, value: u32) -> Result<()> {
        for _ in 0..POLL_LIMIT {
            if self.rd(r, i) & mask == value {
                return Ok(());
            }
        }
        rlog!(&self.platform, Level::Error, "timeout waiting for {} & {mask:#x} == {value:#x}", r.desc.name);
        Err(CuError::Unknown)
    }

    pub(crate) fn bar1_write(&self, off: u64, v: u32) {
        self.platform.mmio_write32(self.bar1 + off, v)
    }

    pub(crate) fn bar1_read(&self, off: u64) -> u32 {
        self.platform.mmio_read32(self.bar1 + off)
    }

    /// Write 32-bit words to VRAM at `addr` through PRAMIN.
    pub(crate) fn pramin_write(&self, addr: u64, words: impl IntoIterator<Item = u32>) -> Result<()> {
        let mut win = self.pramin.lock();
        let mut a = addr;
        for w in words {
            let off = self.pramin_place(&mut win, a)?;
            self.platform.mmio_write32(self.bar0 + (NV_PRAMIN + off) as u64, w);
            a += 4;
        }
        Ok(())
    }

    /// Read a 32-bit word of VRAM through PRAMIN (debugging and tests).
    pub fn pramin_read(&self, addr: u64) -> Result<u32> {
        let mut win = self.pramin.lock();
        let off = self.pramin_place(&mut win, addr)?;
        Ok(self.platform.mmio_read32(self.bar0 + (NV_PRAMIN + off) as u64))
    }

    /// Zero `len` bytes of VRAM at `addr`.
    pub(crate) fn pramin_zero(&self, addr: u64, len: u64) -> Result<()> {
        self.pramin_write(addr, (0..len / 4).map(|_| 0))
    }

    fn pramin_place(&self, win: &mut Option<u64>, addr: u64) -> Result<u32> {
        if !addr.is_multiple_of(4) || addr >= self.info.vram_size {
            return Err(CuError::InvalidValue);
        }
        match *win {
            Some(base) if addr >= base && addr - base < NV_PRAMIN_SIZE as u64 => Ok((addr - base) as u32),
            _ => {
                let base = addr >> PRAMIN_BASE_SHIFT << PRAMIN_BASE_SHIFT;
                let w = PbusBar0Window::new().with_base((base >> PRAMIN_BASE_SHIFT) as u32).with_target(Target::Vram);
                self.wr(NV_PBUS_BAR0_WINDOW, 0, w);
                *win = Some(base);
                Ok((addr - base) as u32)
            }
        }
    }

    pub(crate) fn vram_alloc(&self, size: u64, align: u64) -> Result<u64> {
        self.state.lock().vram.alloc(size, align).ok_or(CuError::OutOfMemory)
    }

    pub(crate) fn vram_free(&self, addr: u64, size: u64) {
        self.state.lock().vram.free(addr, size)
    }
}
