//! An address-range allocator with O(log n) allocation, free and coalescing: free ranges
//! are indexed both by address (to merge neighbours) and by size (best fit). Used for
//! VRAM, each context's GPU virtual address space and the BAR1 aperture.

use alloc::collections::{BTreeMap, BTreeSet};

/// Allocates aligned ranges out of `[base, base + len)`.
#[derive(Clone, Debug, Default)]
pub struct RangeAllocator {
    by_addr: BTreeMap<u64, u64>,
    by_size: BTreeSet<(u64, u64)>,
    base: u64,
    total: u64,
    free: u64,
}

impl RangeAllocator {
    /// All of `[base, base + len)` free.
    pub fn new(base: u64, len: u64) -> Self {
        let mut a = Self { base, total: len, ..Self::default() };
        if len > 0 {
            a.insert(base, len);
        }
        a
    }

    /// Bytes managed.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether `[addr, addr + size)` lies in the managed range (free or not).
    pub fn contains(&self, addr: u64, size: u64) -> bool {
        addr >= self.base && addr.checked_add(size).is_some_and(|end| end <= self.base + self.total)
    }

    /// Bytes free.
    pub fn free_bytes(&self) -> u64 {
        self.free
    }

    /// Largest free range.
    pub fn largest_free(&self) -> u64 {
        self.by_size.last().map_or(0, |&(s, _)| s)
    }

    fn insert(&mut self, addr: u64, len: u64) {
        self.by_addr.insert(addr, len);
        self.by_size.insert((len, addr));
        self.free += len;
    }

    fn remove(&mut self, addr: u64, len: u64) {
        self.by_addr.remove(&addr);
        self.by_size.remove(&(len, addr));
        self.free -= len;
    }

    /// Allocate `size` bytes aligned to `align` (a power of two). Best fit.
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        if size == 0 || !align.is_power_of_two() {
            return None;
        }
        let fits = |&(len, addr): &(u64, u64)| {
            let start = addr.checked_add(align - 1)? & !(align - 1);
            (start - addr).checked_add(size).filter(|&need| need <= len).map(|_| (len, addr, start))
        };
        // The smallest range that holds `size`, else the smallest that holds it after aligning.
        let found = self
            .by_size
            .range((size, 0)..)
            .next()
            .and_then(fits)
            .or_else(|| self.by_size.range((size.checked_add(align - 1)?, 0)..).next().and_then(fits))?;
        let (len, addr, start) = found;
        self.remove(addr, len);
        if start > addr {
            self.insert(addr, start - addr);
        }
        let end = start + size;
        if end < addr + len {
            self.insert(end, addr + len - end);
        }
        Some(start)
    }

    /// Allocate exactly `[addr, addr + size)` if all of it is free (a fixed-address
    /// request, such as cuMemAddressReserve's hint).
    pub fn alloc_at(&mut self, addr: u64, size: u64) -> Option<u64> {
        let end = addr.checked_add(size).filter(|_| size > 0)?;
        let (&start, &len) = self.by_addr.range(..=addr).next_back()?;
        if end > start + len {
            return None;
        }
        self.remove(start, len);
        if addr > start {
            self.insert(start, addr - start);
        }
        if end < start + len {
            self.insert(end, start + len - end);
        }
        Some(addr)
    }

    /// Return `[addr, addr + size)`, merging it with free neighbours. The caller guarantees
    /// the range was allocated (allocation records live with the caller).
    pub fn free(&mut self, addr: u64, size: u64) {
        let (mut start, mut len) = (addr, size);
        if let Some((&pa, &pl)) = self.by_addr.range(..addr).next_back()
            && pa + pl == addr
        {
            self.remove(pa, pl);
            start = pa;
            len += pl;
        }
        if let Some(&nl) = self.by_addr.get(&(addr + size)) {
            self.remove(addr + size, nl);
            len += nl;
        }
        self.insert(start, len);
    }
}

/// The process-wide range that unified virtual addressing hands out: one allocator for
/// the device pointers of every context of every device, over host addresses the platform
/// has reserved so that no host pointer is ever a device pointer (the platform's
/// `unified_va`). A spin lock: its holders only update the allocator's free lists.
pub type SharedVa = alloc::sync::Arc<spin::Mutex<RangeAllocator>>;

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn alloc_at_takes_exactly_the_range_asked_for() {
        let mut a = RangeAllocator::new(0x1000, 0x10000);
        assert_eq!(a.alloc_at(0x4000, 0x2000), Some(0x4000));
        assert_eq!(a.alloc_at(0x5000, 0x1000), None, "taken");
        assert_eq!(a.alloc_at(0x10000, 0x2000), None, "past the end");
        assert_eq!(a.alloc_at(0x2000, 0), None);
        assert_eq!(a.free_bytes(), 0xe000);
        assert_eq!(a.alloc(0x3000, 0x1000), Some(0x1000), "the range before it is still free");
        a.free(0x4000, 0x2000);
        assert_eq!(a.alloc_at(0x4000, 0x3000), Some(0x4000), "freed and merged with what follows");
    }

    #[test]
    fn alloc_free_merge_and_reuse() {
        let mut a = RangeAllocator::new(0x1000, 0x10000);
        let x = a.alloc(0x1000, 0x1000).unwrap();
        let y = a.alloc(0x2000, 0x1000).unwrap();
        let z = a.alloc(0x1000, 0x1000).unwrap();
        assert_eq!((x, y, z), (0x1000, 0x2000, 0x4000));
        a.free(y, 0x2000);
        assert_eq!(a.alloc(0x2000, 0x1000), Some(0x2000)); // reused
        a.free(x, 0x1000);
        a.free(0x2000, 0x2000);
        a.free(z, 0x1000);
        assert_eq!(a.free_bytes(), 0x10000);
        assert_eq!(a.largest_free(), 0x10000);
        assert_eq!(a.alloc(0x10001, 1), None);
        assert_eq!(a.alloc(0x10000, 1), Some(0x1000));
    }

    #[test]
    fn alignment_is_honoured() {
        let mut a = RangeAllocator::new(0x1000, 0x100000);
        a.alloc(0x1000, 0x1000).unwrap();
        let b = a.alloc(0x1000, 0x10000).unwrap();
        assert_eq!(b % 0x10000, 0);
        assert_eq!(a.alloc(0, 1), None);
        assert_eq!(a.alloc(1, 3), None);
    }

    #[test]
    fn exhaustion_then_the_next_fit_succeeds() {
        let mut a = RangeAllocator::new(0, 1 << 20);
        let blocks: Vec<u64> = (0..256).map(|_| a.alloc(4096, 4096).unwrap()).collect();
        assert_eq!(a.alloc(4096, 4096), None);
        a.free(blocks[17], 4096);
        assert_eq!(a.alloc(8192, 4096), None);
        assert_eq!(a.alloc(4096, 4096), Some(blocks[17]));
    }

    #[test]
    fn random_churn_keeps_accounting_exact() {
        let mut a = RangeAllocator::new(0, 1 << 24);
        let mut live: Vec<(u64, u64)> = Vec::new();
        let mut x = 0x9E37_79B9u64;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if !x.is_multiple_of(3) || live.is_empty() {
                let size = ((x >> 8) % 64 + 1) * 4096;
                if let Some(p) = a.alloc(size, 4096) {
                    assert!(live.iter().all(|&(q, s)| p + size <= q || q + s <= p), "overlap");
                    live.push((p, size));
                }
            } else {
                let (p, s) = live.swap_remove((x >> 5) as usize % live.len());
                a.free(p, s);
            }
            let used: u64 = live.iter().map(|&(_, s)| s).sum();
            assert_eq!(a.free_bytes() + used, 1 << 24);
        }
    }
}
