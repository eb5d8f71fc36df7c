//! System memory as the device sees it: DMA regions the platform registers at bus
//! addresses (what an IOMMU mapping would give a real device). Lookups are O(log n).

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use fifo::SharedMem;

/// No region (or not all of the range) is mapped at the bus address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmapped;

/// Bus addresses [`SysMem::map_anywhere`] hands out: 256 GiB, below the 40-bit limit of
/// a PTE's address field.
pub const IOVA_BASE: u64 = 0x10_0000_0000;
/// End of the bus address window.
pub const IOVA_END: u64 = 0x50_0000_0000;
const IOVA_ALIGN: u64 = 4096;

/// The registered DMA regions.
pub struct SysMem {
    regions: BTreeMap<u64, Arc<SharedMem>>,
    window: (u64, u64),
    cursor: u64,
}

impl Default for SysMem {
    fn default() -> Self {
        Self::with_window(IOVA_BASE, IOVA_END)
    }
}

impl SysMem {
    /// No regions; [`SysMem::map_anywhere`] hands out bus addresses in `[base, end)`.
    pub fn with_window(base: u64, end: u64) -> Self {
        Self { regions: BTreeMap::new(), window: (base, end), cursor: base }
    }

    /// The identities of the regions (their memory's address in the host): two devices
    /// that register the same memory share it.
    pub fn region_ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.regions.values().map(|m| Arc::as_ptr(m) as usize)
    }

    /// The identity of the region at bus address `bus` (see [`SysMem::region_ids`]).
    pub fn region_id(&self, bus: u64) -> Option<usize> {
        self.find(bus, 1).ok().map(|(m, _)| m as *const SharedMem as usize)
    }

    /// Register `mem` at a free, 4 KiB aligned bus address of the IOVA window and return
    /// it (what an IOMMU driver does when a driver maps a DMA buffer). Next fit: each probe
    /// is one O(log n) lookup and skips a whole region.
    pub fn map_anywhere(&mut self, mem: Arc<SharedMem>) -> Result<u64, Unmapped> {
        let (base, end) = self.window;
        let len = (mem.len() as u64).div_ceil(IOVA_ALIGN) * IOVA_ALIGN;
        let mut at = self.cursor.clamp(base, end);
        let mut wrapped = false;
        loop {
            if at.checked_add(len).is_none_or(|e| e > end) {
                if wrapped {
                    return Err(Unmapped);
                }
                (at, wrapped) = (base, true);
                continue;
            }
            match self.regions.range(..at + len).next_back() {
                Some((&b, m)) if b + m.len() as u64 > at => {
                    at = (b + m.len() as u64).div_ceil(IOVA_ALIGN) * IOVA_ALIGN;
                }
                _ => break,
            }
        }
        self.map(at, mem)?;
        self.cursor = at + len;
        Ok(at)
    }

    /// Register `mem` at bus address `bus`. Fails if it would overlap another region.
    pub fn map(&mut self, bus: u64, mem: Arc<SharedMem>) -> Result<(), Unmapped> {
        let end = bus.checked_add(mem.len() as u64).ok_or(Unmapped)?;
        if mem.is_empty() {
            return Err(Unmapped);
        }
        if let Some((&b, m)) = self.regions.range(..end).next_back()
            && b + m.len() as u64 > bus
        {
            return Err(Unmapped);
        }
        self.regions.insert(bus, mem);
        Ok(())
    }

    /// Remove the region registered at `bus`.
    pub fn unmap(&mut self, bus: u64) -> Option<Arc<SharedMem>> {
        self.regions.remove(&bus)
    }

    /// Number of registered regions.
    pub fn regions(&self) -> usize {
        self.regions.len()
    }

    fn find(&self, bus: u64, n: usize) -> Result<(&SharedMem, usize), Unmapped> {
        let (&base, mem) = self.regions.range(..=bus).next_back().ok_or(Unmapped)?;
        let off = (bus - base) as usize;
        match off.checked_add(n) {
            Some(end) if end <= mem.len() => Ok((mem, off)),
            _ => Err(Unmapped),
        }
    }

    /// Read from bus address `bus` (within one region).
    pub fn read(&self, bus: u64, buf: &mut [u8]) -> Result<(), Unmapped> {
        let (m, off) = self.find(bus, buf.len())?;
        m.read(off, buf).map_err(|_| Unmapped)
    }

    /// Write to bus address `bus` (within one region).
    pub fn write(&self, bus: u64, data: &[u8]) -> Result<(), Unmapped> {
        let (m, off) = self.find(bus, data.len())?;
        m.write(off, data).map_err(|_| Unmapped)
    }

    /// Store a 32-bit word with release ordering (semaphore payloads).
    pub fn store_u32_release(&self, bus: u64, v: u32) -> Result<(), Unmapped> {
        let (m, off) = self.find(bus, 4)?;
        m.store_u32(off, v, Ordering::Release).map_err(|_| Unmapped)
    }

    /// Load a 32-bit word with acquire ordering (semaphore acquires).
    pub fn load_u32_acquire(&self, bus: u64) -> Result<u32, Unmapped> {
        let (m, off) = self.find(bus, 4)?;
        m.load_u32(off, Ordering::Acquire).map_err(|_| Unmapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_addresses_are_handed_out_reused_and_exhausted() {
        let (base, end) = (0x10_0000, 0x10_0000 + 0x8000);
        let mut s = SysMem::with_window(base, end);
        let a = s.map_anywhere(Arc::new(SharedMem::new(5000))).unwrap();
        let b = s.map_anywhere(Arc::new(SharedMem::new(4096))).unwrap();
        assert_eq!((a, b), (base, base + 8192));
        let c = s.map_anywhere(Arc::new(SharedMem::new(16384))).unwrap();
        assert_eq!(c, base + 12288);
        assert_eq!(s.map_anywhere(Arc::new(SharedMem::new(8192))), Err(Unmapped), "only 4 KiB left");
        assert!(s.unmap(a).is_some());
        // Next fit wraps around and finds the freed hole.
        assert_eq!(s.map_anywhere(Arc::new(SharedMem::new(8192))), Ok(base));
        assert_eq!(s.map_anywhere(Arc::new(SharedMem::new(4096))), Ok(end - 4096));
        assert_eq!(s.map_anywhere(Arc::new(SharedMem::new(1))), Err(Unmapped));
    }

    #[test]
    fn regions_do_not_overlap_and_accesses_stay_inside() {
        let mut s = SysMem::default();
        s.map(0x1000, Arc::new(SharedMem::new(0x1000))).unwrap();
        assert!(s.map(0x1800, Arc::new(SharedMem::new(16))).is_err());
        assert!(s.map(0x800, Arc::new(SharedMem::new(0x801))).is_err());
        s.map(0x2000, Arc::new(SharedMem::new(8))).unwrap();
        s.write(0x1FFC, &[1, 2, 3, 4]).unwrap();
        assert_eq!(s.write(0x1FFD, &[1, 2, 3, 4]), Err(Unmapped));
        assert_eq!(s.read(0xFFF, &mut [0]), Err(Unmapped));
        assert_eq!(s.load_u32_acquire(0x1FFC).unwrap(), 0x0403_0201);
        assert!(s.unmap(0x2000).is_some());
        assert_eq!(s.read(0x2000, &mut [0]), Err(Unmapped));
    }
}
