//! System memory as the device sees it: DMA regions the platform registers at bus
//! addresses (what an IOMMU mapping would give a real device). Lookups are O(log n).

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use fifo::SharedMem;

/// No region (or not all of the range) is mapped at the bus address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmapped;

/// The registered DMA regions.
#[derive(Default)]
pub struct SysMem {
    regions: BTreeMap<u64, Arc<SharedMem>>,
}

impl SysMem {
    /// Register `mem` at bus address `bus`. Fails if it would overlap another region.
    pub fn map(&mut self, bus: u64, mem: Arc<SharedMem>) -> Result<(), Unmapped> {
        let end = bus.checked_add(mem.len() as u64).ok_or(Unmapped)?;
        if mem.is_empty() {
            return Err(Unmapped);
        }
        if let Some((&b, m)) = self.regions.range(..end).next_back()
            && b + m.len() as u64 > bus {
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
