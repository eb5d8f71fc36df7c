//! A tag-only set-associative cache (L1, L2): LRU replacement, dirty bits, write-back of
//! dirty sectors. Data always lives in memory; the tags decide only when things happen.
//! A cache's lines may hold several sectors (the L1's 128-byte lines of four 32-byte
//! sectors, filled a sector at a time): a line's tag takes its way whichever of its sectors
//! are valid.

use alloc::vec;
use alloc::vec::Vec;

/// A tag-only set-associative cache with LRU replacement and dirty bits.
pub(crate) struct Cache {
    pub(crate) sets: u64,
    pub(crate) ways: usize,
    pub(crate) tags: Vec<u64>,
    pub(crate) stamp: Vec<u64>,
    pub(crate) dirty: Vec<bool>,
    pub(crate) clock: u64,
    /// Sets are indexed by a hash of the line's address bits (an L2's slices and sets),
    /// not by its low bits: power-of-two strides spread over every set.
    pub(crate) hashed: bool,
    /// Sectors per line (1: a tag per sector), a power of two, at most 8.
    pub(crate) sectors_per_line: u64,
    /// Per way, which of its line's sectors are valid (bit k: sector k).
    pub(crate) valid: Vec<u8>,
}

pub(crate) const INVALID: u64 = u64::MAX;

impl Cache {
    pub(crate) fn new(bytes: u32, sector: u32, ways: u32) -> Self {
        let lines = (bytes / sector.max(1)) as usize;
        let ways = (ways.max(1) as usize).min(lines.max(1));
        let sets = (lines / ways) as u64;
        let n = sets as usize * ways;
        Self {
            sets,
            ways,
            tags: vec![INVALID; n],
            stamp: vec![0; n],
            dirty: vec![false; n],
            clock: 0,
            hashed: false,
            sectors_per_line: 1,
            valid: vec![0; n],
        }
    }

    /// A cache of `bytes` in lines of `per_line` sectors of `sector` bytes (a tag per line).
    pub(crate) fn with_lines(bytes: u32, sector: u32, ways: u32, per_line: u32) -> Self {
        let per_line = per_line.clamp(1, 8).next_power_of_two();
        let line = Self::new(bytes, sector.saturating_mul(per_line), ways);
        Self { sectors_per_line: per_line as u64, ..line }
    }

    /// A cache whose sets are indexed by a hash of the address ([`Cache::hashed`]).
    pub(crate) fn with_hashed_sets(bytes: u32, sector: u32, ways: u32) -> Self {
        Self { hashed: true, ..Self::new(bytes, sector, ways) }
    }

    /// Look up sector `line`; on a miss with `allocate`, fill it (evicting the LRU way).
    /// Returns whether it hit and the dirty sector evicted, if any.
    pub(crate) fn access(&mut self, line: u64, write: bool, allocate: bool) -> (bool, Option<u64>) {
        self.access_with(line, write, allocate, false)
    }

    /// [`Cache::access`], where an `evict_first` fill (a streaming access) is left the
    /// least recently used way of its set, the next to go; a hit leaves the way's age as
    /// it was.
    pub(crate) fn access_with(
        &mut self,
        line: u64,
        write: bool,
        allocate: bool,
        evict_first: bool,
    ) -> (bool, Option<u64>) {
        if self.sets == 0 {
            return (false, None);
        }
        self.clock += 1;
        let sector = line;
        let shift = self.sectors_per_line.trailing_zeros();
        let (line, bit) = (sector >> shift, 1u8 << (sector & (self.sectors_per_line - 1)));
        let index = if self.hashed { line ^ (line >> 9) ^ (line >> 17) ^ (line >> 25) } else { line };
        let set = (index % self.sets) as usize * self.ways;
        let ways = set..set + self.ways;
        if let Some(i) = ways.clone().find(|&i| self.tags[i] == line) {
            let hit = self.valid[i] & bit != 0;
            if hit || allocate {
                if !evict_first {
                    self.stamp[i] = self.clock;
                }
                self.valid[i] |= bit;
                self.dirty[i] |= write;
            }
            return (hit, None);
        }
        if !allocate {
            return (false, None);
        }
        let victim = ways.min_by_key(|&i| (self.tags[i] != INVALID, self.stamp[i])).unwrap_or(set);
        // Dirty lines are whole sectors (the write-back L2 has a tag per sector).
        let evicted = (self.tags[victim] != INVALID && self.dirty[victim]).then_some(self.tags[victim]);
        self.tags[victim] = line;
        self.valid[victim] = bit;
        self.stamp[victim] = if evict_first { 0 } else { self.clock };
        self.dirty[victim] = write;
        (false, evicted)
    }

    /// Forget every line (clean lines only: used for the write-through L1).
    pub(crate) fn invalidate(&mut self) {
        self.tags.fill(INVALID);
        self.valid.fill(0);
        self.dirty.fill(false);
    }

    /// Write back every dirty sector (they stay valid, now clean).
    pub(crate) fn clean(&mut self, mut f: impl FnMut(u64)) {
        for (i, d) in self.dirty.iter_mut().enumerate() {
            if *d {
                *d = false;
                f(self.tags[i]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One set of `ways` 32-byte sectors.
    fn one_set(ways: u32) -> Cache {
        Cache::new(32 * ways, 32, ways)
    }

    #[test]
    fn a_filled_line_hits_until_evicted_lru_first() {
        let mut c = one_set(2);
        assert_eq!(c.access(1, false, true), (false, None));
        assert_eq!(c.access(2, false, true), (false, None));
        assert_eq!(c.access(1, false, true), (true, None)); // 2 is now least recently used
        assert_eq!(c.access(3, false, true), (false, None)); // evicts 2
        assert_eq!(c.access(1, false, true), (true, None));
        assert_eq!(c.access(2, false, true), (false, None)); // evicts 3
        assert!(!c.access(3, false, true).0);
    }

    #[test]
    fn evict_first_fills_go_before_older_lines() {
        let mut c = one_set(2);
        c.access(1, false, true);
        assert_eq!(c.access_with(2, false, true, true), (false, None));
        assert!(c.access_with(2, false, true, true).0); // a streaming hit stays evict-first
        c.access(3, false, true); // evicts 2, not the older 1
        assert!(c.access(1, false, true).0);
        assert!(!c.access(2, false, false).0);
    }

    #[test]
    fn lines_of_four_sectors_take_a_way_each_and_fill_a_sector_at_a_time() {
        // Two ways of 128-byte lines: sectors 0-3 are one line, 4-7 the next.
        let mut c = Cache::with_lines(2 * 128, 32, 2, 4);
        assert_eq!((c.sets, c.ways), (1, 2));
        assert!(!c.access(1, false, true).0);
        assert!(!c.access(2, false, true).0, "another sector of the line: a sector miss");
        assert!(c.access(1, false, true).0 && c.access(2, false, true).0);
        assert!(!c.access(0, false, false).0 && !c.access(0, false, false).0, "no allocation: still invalid");
        // Sectors of two more lines evict the first though it held two sectors only.
        c.access(4, false, true);
        c.access(8, false, true);
        assert!(!c.access(1, false, false).0);
        c.invalidate();
        assert!(!c.access(4, false, false).0);
    }

    #[test]
    fn dirty_lines_are_written_back_when_evicted_clean_ones_are_not() {
        let mut c = one_set(1);
        assert_eq!(c.access(7, true, true), (false, None));
        assert_eq!(c.access(8, false, true), (false, Some(7)));
        assert_eq!(c.access(9, false, true), (false, None));
        // A write hit makes a clean line dirty.
        c.access(9, true, true);
        assert_eq!(c.access(10, false, true), (false, Some(9)));
    }

    #[test]
    fn no_allocate_misses_leave_the_cache_unchanged() {
        let mut c = one_set(1);
        c.access(1, false, true);
        assert_eq!(c.access(2, false, false), (false, None));
        assert_eq!(c.access(1, false, true), (true, None));
    }

    #[test]
    fn clean_writes_back_every_dirty_line_once_and_invalidate_forgets() {
        let mut c = Cache::new(32 * 8, 32, 2); // 4 sets of 2 ways
        for line in [0, 1, 2, 5] {
            c.access(line, line != 2, true);
        }
        let mut out = Vec::new();
        c.clean(|l| out.push(l));
        out.sort_unstable();
        assert_eq!(out, [0, 1, 5]);
        c.clean(|_| panic!("already clean"));
        assert_eq!(c.access(5, false, true), (true, None));
        c.invalidate();
        assert_eq!(c.access(5, false, true), (false, None));
    }

    #[test]
    fn lines_map_to_sets_by_index_and_a_zero_size_cache_always_misses() {
        let mut c = Cache::new(32 * 4, 32, 1); // 4 direct-mapped sets
        c.access(0, false, true);
        c.access(1, false, true); // another set: 0 stays
        assert!(c.access(0, false, true).0);
        c.access(4, false, true); // same set as 0: evicts it
        assert!(!c.access(0, false, true).0);
        // Hashed sets take a power-of-two stride that low bits would put in one set.
        let mut h = Cache::with_hashed_sets(32 * 1024, 32, 1); // 1024 direct-mapped sets
        for k in 0..64 {
            h.access(k * 1024, false, true);
        }
        assert!((0..64).filter(|k| h.access(k * 1024, false, false).0).count() > 48);
        let mut z = Cache::new(0, 32, 4);
        assert_eq!(z.access(0, true, true), (false, None));
        assert_eq!(z.access(0, true, true), (false, None));
    }
}
