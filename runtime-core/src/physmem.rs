//! The table of physical allocations of the virtual memory management API (cuMemCreate):
//! VRAM that belongs to no address space until it is mapped. Each is named by a handle
//! and freed when its last handle reference (cuMemCreate, cuMemRetainAllocationHandle)
//! has been released and its last mapping undone, as CUDA documents for cuMemRelease and
//! cuMemUnmap. The device keeps the table (`Device::phys_*`), so any context may map a
//! handle; this module only counts.

use crate::error::{CuError, Result};
use alloc::collections::BTreeMap;

/// Handles carry this tag in their top byte, so that a small integer or a device pointer
/// passed as a handle is refused rather than taken for one.
const TAG: u64 = 0xc3 << 56;
/// Below the tag, the GPU's ordinal in its system (the GPU whose VRAM it is).
const ORDINAL_SHIFT: u32 = 48;

/// The ordinal of the GPU whose physical allocation `h` is, if `h` is shaped as a handle
/// (whether it names a live allocation is the table's to say).
pub fn ordinal_of(h: u64) -> Option<u32> {
    (h & (0xff << 56) == TAG).then_some(((h >> ORDINAL_SHIFT) & 0xff) as u32)
}

/// One physical allocation.
struct Phys {
    /// VRAM address.
    addr: u64,
    bytes: u64,
    /// References held by the program (cuMemCreate, cuMemRetainAllocationHandle).
    handles: u32,
    /// Mappings of it in any context.
    maps: u32,
}

/// A change to an allocation's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// A handle reference taken.
    Retain,
    /// A handle reference dropped (INVALID_VALUE when none is held).
    Release,
    /// A mapping made.
    Map,
    /// A mapping undone.
    Unmap,
}

/// The physical allocations by handle.
#[derive(Default)]
pub struct PhysTable {
    by_handle: BTreeMap<u64, Phys>,
    next: u64,
    ordinal: u32,
}

impl PhysTable {
    /// The handles of GPU `ordinal`'s allocations carry it ([`ordinal_of`]).
    pub fn set_ordinal(&mut self, ordinal: u32) {
        self.ordinal = ordinal & 0xff;
    }

    /// Record `bytes` of VRAM at `addr`, with one handle reference; returns its handle.
    pub fn insert(&mut self, addr: u64, bytes: u64) -> u64 {
        self.next += 1;
        let h = TAG | u64::from(self.ordinal) << ORDINAL_SHIFT | self.next;
        self.by_handle.insert(h, Phys { addr, bytes, handles: 1, maps: 0 });
        h
    }

    /// The VRAM address and size of allocation `h`.
    pub fn get(&self, h: u64) -> Result<(u64, u64)> {
        self.by_handle.get(&h).map(|p| (p.addr, p.bytes)).ok_or(CuError::InvalidValue)
    }

    /// Apply `c` to allocation `h`; returns the VRAM range to free when no handle
    /// reference and no mapping is left (the allocation is gone from the table).
    pub fn count(&mut self, h: u64, c: Count) -> Result<Option<(u64, u64)>> {
        let p = self.by_handle.get_mut(&h).ok_or(CuError::InvalidValue)?;
        match c {
            Count::Retain => p.handles = p.handles.saturating_add(1),
            Count::Release => p.handles = p.handles.checked_sub(1).ok_or(CuError::InvalidValue)?,
            Count::Map => p.maps = p.maps.saturating_add(1),
            Count::Unmap => p.maps = p.maps.saturating_sub(1),
        }
        if p.handles == 0 && p.maps == 0 {
            let freed = (p.addr, p.bytes);
            self.by_handle.remove(&h);
            return Ok(Some(freed));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_with_the_last_handle_and_mapping() {
        let mut t = PhysTable::default();
        let h = t.insert(0x10000, 0x2000);
        assert_eq!(t.get(h), Ok((0x10000, 0x2000)));
        assert!(t.get(5).is_err(), "an untagged value is no handle");
        assert_eq!(t.count(h, Count::Map), Ok(None));
        assert_eq!(t.count(h, Count::Release), Ok(None), "still mapped");
        assert_eq!(t.count(h, Count::Retain), Ok(None));
        assert_eq!(t.count(h, Count::Release), Ok(None));
        assert_eq!(t.count(h, Count::Unmap), Ok(Some((0x10000, 0x2000))));
        assert_eq!(t.count(h, Count::Release), Err(CuError::InvalidValue), "gone");
        let g = t.insert(0, 0x1000);
        assert_ne!(g, h, "handles are not reused");
        assert_eq!(ordinal_of(g), Some(0));
        let mut other = PhysTable::default();
        other.set_ordinal(3);
        let o = other.insert(0x10000, 0x1000);
        assert_eq!(ordinal_of(o), Some(3));
        assert!(t.get(o).is_err() && other.get(g).is_err(), "a handle of another GPU names nothing here");
        assert_eq!(ordinal_of(5), None);
    }
}
