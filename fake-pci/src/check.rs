//! The sanitizer unit (a model extension, [`hw::check`]): for a launch whose CHECK_MODE
//! asks for it, the executor hands every access to this unit before making it. The unit
//! sees exactly what the SMs do, so its findings are exact, not sampled:
//!
//! - memcheck: a global access must lie inside one allocation of the channel's table, and
//!   through a pointer derived from an allocation (provenance per register lane, see
//!   `Exec::track_pointers`) inside that one; a shared or local access inside the block's
//!   shared memory or the thread's local memory.
//!   A violation is reported for every lane that makes it, and the grid stops
//!   (CUDA_ERROR_ILLEGAL_ADDRESS), as a real fault would.
//! - racecheck: per shared byte and per global 4-byte word, the last write and the last
//!   read (thread, block, instruction, barrier interval). Two accesses conflict when at
//!   least one writes and they come from different warps of one block between the same
//!   two barriers, or (global) from different blocks of the grid. Atomics never race.
//! - initcheck: global loads of VRAM bytes that nothing wrote since their allocation
//!   (the shadow in [`crate::mmu::Memory`]; system memory counts as written: the host
//!   writes it unseen).
//! - synccheck: a barrier executed by only some of the warp's active threads.
//!
//! Findings go into the channel's report buffer as [`CheckRecord`]s; repeats of one
//! finding (the same check at the same instructions) fold into one record's count.

use crate::mmu::{AddressSpace, Memory, Tlb};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use hw::check::*;
use hw::isa::Space;

/// Who makes an access.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Who {
    /// Block index.
    pub ctaid: [u32; 3],
    /// Block index, linear.
    pub block: u32,
    /// Thread index in the block, linear.
    pub thread: u32,
}

/// The last write and read of one shared byte or global word.
#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    /// Writer thread + 1 (0: none), its block, instruction and barrier interval.
    w: u32,
    w_block: u32,
    w_pc: u32,
    w_int: u32,
    /// The same for the last reader.
    r: u32,
    r_block: u32,
    r_pc: u32,
    r_int: u32,
}

/// Whether an earlier access (thread+1 `t`, block, interval) conflicts with one by `who`
/// in barrier interval `int`.
fn conflicts(t: u32, block: u32, int: u32, who: &Who, now_int: u32) -> bool {
    if t == 0 || (block == who.block && t - 1 == who.thread) {
        return false;
    }
    block != who.block || ((t - 1) / 32 != who.thread / 32 && int == now_int)
}

/// The checks' state of one block: racecheck's shared bytes and barrier interval, and
/// memcheck's pointer provenance (per register lane, the allocation its value points into
/// as a pointer derived from one: 1 + its index in the table, 0 for none).
pub(crate) struct BlockCheck {
    cells: Vec<Cell>,
    /// Barriers released so far.
    pub(crate) interval: u32,
    pub(crate) prov: Vec<u32>,
}

impl BlockCheck {
    /// For a block with `shared` bytes of shared memory and `regs` register lanes (`None`
    /// unless racecheck or memcheck is on).
    pub(crate) fn new(mode: CheckMode, shared: usize, regs: usize) -> Option<Self> {
        (mode.racecheck() || mode.memcheck()).then(|| Self {
            cells: if mode.racecheck() { vec![Cell::default(); shared] } else { Vec::new() },
            interval: 0,
            prov: if mode.memcheck() { vec![0; regs] } else { Vec::new() },
        })
    }

    /// Another of the same size, empty (for a block resident beside this one's).
    pub(crate) fn fresh(&self) -> Self {
        Self { cells: vec![Cell::default(); self.cells.len()], interval: 0, prov: vec![0; self.prov.len()] }
    }

    /// Forget everything (a new block in the same storage).
    pub(crate) fn reset(&mut self) {
        self.cells.fill(Cell::default());
        self.prov.fill(0);
        self.interval = 0;
    }
}

const WORDS_PER_PAGE: usize = 1024;

/// The checks of one grid.
pub(crate) struct GridCheck {
    mode: CheckMode,
    /// Allocations (base, end), sorted.
    allocs: Vec<(u64, u64)>,
    report: u64,
    capacity: u32,
    written: u32,
    code: u64,
    entry: u32,
    /// Record index by (kind, pc, other pc, hazard, space) for folding.
    seen: BTreeMap<(u8, u32, u32, u8, u8), u32>,
    /// Racecheck's global words, by 4 KiB page.
    global: BTreeMap<u64, Box<[Cell]>>,
}

/// What a launch's methods say about its checks (the compute engine latches them).
pub(crate) struct Launch {
    /// CHECK_MODE: the sanitizers asked for.
    pub(crate) mode: u32,
    /// CHECK_TABLE_ADDRESS: the allocation table.
    pub(crate) table: u64,
    /// CHECK_REPORT_ADDRESS: the report buffer.
    pub(crate) report: u64,
    /// The program's address and the entry's instruction index.
    pub(crate) code: u64,
    /// See `code`.
    pub(crate) entry: u32,
}

impl GridCheck {
    /// The checks a launch's methods ask for, with its allocation table and report buffer
    /// read through the channel's address space (`None` when no check is on). Garbage in
    /// the table only makes the check stricter; an unreadable table or buffer is empty.
    pub(crate) fn new(launch: &Launch, mem: &Memory, tlb: &mut Tlb, space: &AddressSpace) -> Option<Self> {
        let mode = CheckMode::from(launch.mode);
        let (table, report, code, entry) = (launch.table, launch.report, launch.code, launch.entry);
        if u32::from(mode) == 0 {
            return None;
        }
        let mut allocs = Vec::new();
        let count = tlb.read_va_u32(mem, space, table).unwrap_or(0).min(TABLE_MAX);
        let mut e = [0u8; TABLE_ENTRY];
        for k in 0..count as u64 {
            if tlb.read_va(mem, space, table + TABLE_HEADER as u64 + k * TABLE_ENTRY as u64, &mut e).is_err() {
                break;
            }
            let base = u64::from_le_bytes(e[..8].try_into().unwrap_or_default());
            let size = u64::from_le_bytes(e[8..].try_into().unwrap_or_default());
            allocs.push((base, base.saturating_add(size)));
        }
        allocs.sort_unstable();
        let capacity = tlb.read_va_u32(mem, space, report + 4).unwrap_or(0);
        let written = tlb.read_va_u32(mem, space, report).unwrap_or(0);
        Some(Self {
            mode,
            allocs,
            report,
            capacity,
            written,
            code,
            entry,
            seen: BTreeMap::new(),
            global: BTreeMap::new(),
        })
    }

    /// The checks on.
    pub(crate) fn mode(&self) -> CheckMode {
        self.mode
    }

    /// Report a finding, folding repeats into one record.
    pub(crate) fn report(&mut self, mem: &mut Memory, tlb: &mut Tlb, space: &AddressSpace, mut r: CheckRecord) {
        r.code = self.code;
        r.entry = self.entry;
        let key = (r.kind as u8, r.pc, r.other_pc, r.hazard as u8, r.space);
        let at = |i: u32| REPORT_HEADER as u64 + i as u64 * RECORD_BYTES as u64;
        if let Some(&i) = self.seen.get(&key) {
            // One more occurrence: bump the record's count (its last word).
            let va = self.report + at(i) + 60;
            if let Ok(n) = tlb.read_va_u32(mem, space, va) {
                let _ = tlb.write_va(mem, space, va, &n.saturating_add(1).to_le_bytes());
            }
            return;
        }
        let i = self.written;
        self.written = self.written.saturating_add(1);
        if i < self.capacity {
            r.count = 1;
            self.seen.insert(key, i);
            let _ = tlb.write_va(mem, space, self.report + at(i), &r.to_bytes());
        }
        let _ = tlb.write_va(mem, space, self.report, &self.written.to_le_bytes());
    }

    /// The allocation containing `addr`, as 1 + its index (0: none).
    pub(crate) fn alloc_of(&self, addr: u64) -> u32 {
        let i = self.allocs.partition_point(|&(b, _)| b <= addr);
        match i.checked_sub(1) {
            Some(k) if addr < self.allocs[k].1 => k as u32 + 1,
            _ => 0,
        }
    }

    /// memcheck for a global access through a pointer derived from allocation `prov`
    /// (1 + index): `None` when `[addr, addr + size)` lies inside it, else that allocation
    /// (base, size), even when the bytes belong to another allocation.
    pub(crate) fn outside_of(&self, prov: u32, addr: u64, size: u64) -> Option<(u64, u64)> {
        let &(b, e) = self.allocs.get(prov.checked_sub(1)? as usize)?;
        let inside = addr >= b && addr.checked_add(size).is_some_and(|end| end <= e);
        (!inside).then_some((b, e - b))
    }

    /// memcheck for a global access: `None` when `[addr, addr + size)` lies inside one
    /// allocation, else the nearest allocation below it (base, size; 0, 0 for none).
    pub(crate) fn outside(&self, addr: u64, size: u64) -> Option<(u64, u64)> {
        let i = self.allocs.partition_point(|&(b, _)| b <= addr);
        let below = i.checked_sub(1).map(|k| self.allocs[k]);
        match below {
            Some((_, e)) if addr.checked_add(size).is_some_and(|end| end <= e) => None,
            Some((b, e)) => Some((b, e - b)),
            None => Some((0, 0)),
        }
    }

    /// racecheck for a global access of `size` bytes (4-byte words) in the block's barrier
    /// interval `int`: the hazard found, with the other access (thread+1, block, pc), then
    /// the access is recorded. Different blocks conflict whatever their barriers.
    pub(crate) fn global_race(
        &mut self,
        addr: u64,
        size: u64,
        write: bool,
        pc: u32,
        who: &Who,
        int: u32,
    ) -> Option<(Hazard, u32, u32, u32)> {
        let mut found = None;
        let first = addr / 4;
        let last = (addr + size.max(1) - 1) / 4;
        for word in first..=last {
            let page = word / WORDS_PER_PAGE as u64;
            let cells =
                self.global.entry(page).or_insert_with(|| vec![Cell::default(); WORDS_PER_PAGE].into_boxed_slice());
            let c = &mut cells[(word % WORDS_PER_PAGE as u64) as usize];
            let h = access(c, write, pc, who, int);
            found = found.or(h);
        }
        found
    }
}

/// Record an access in `c` and return the hazard it makes, if any: (hazard, other
/// thread+1, other block, other pc).
fn access(c: &mut Cell, write: bool, pc: u32, who: &Who, int: u32) -> Option<(Hazard, u32, u32, u32)> {
    let mut found = None;
    if conflicts(c.w, c.w_block, c.w_int, who, int) {
        let h = if write { Hazard::WriteAfterWrite } else { Hazard::ReadAfterWrite };
        found = Some((h, c.w, c.w_block, c.w_pc));
    } else if write && conflicts(c.r, c.r_block, c.r_int, who, int) {
        found = Some((Hazard::WriteAfterRead, c.r, c.r_block, c.r_pc));
    }
    if write {
        (c.w, c.w_block, c.w_pc, c.w_int) = (who.thread + 1, who.block, pc, int);
    } else {
        (c.r, c.r_block, c.r_pc, c.r_int) = (who.thread + 1, who.block, pc, int);
    }
    found
}

impl BlockCheck {
    /// racecheck for a shared access: the hazard found, then the access is recorded.
    pub(crate) fn shared_race(
        &mut self,
        addr: u64,
        size: u64,
        write: bool,
        pc: u32,
        who: &Who,
    ) -> Option<(Hazard, u32, u32, u32)> {
        let mut found = None;
        let int = self.interval;
        for b in addr..addr.saturating_add(size) {
            if let Some(c) = self.cells.get_mut(b as usize) {
                found = found.or(access(c, write, pc, who, int));
            }
        }
        found
    }
}

/// A record of `kind` for `who`'s access (the caller fills in what is specific).
pub(crate) fn record(kind: CheckKind, space: Space, access: AccessKind, pc: u32, who: &Who) -> CheckRecord {
    CheckRecord {
        kind,
        space: space as u8,
        access,
        hazard: Hazard::None,
        pc,
        code: 0,
        entry: 0,
        block: who.ctaid,
        thread: who.thread,
        size: 0,
        addr: 0,
        other: 0,
        other_pc: 0,
        count: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_between_warps_of_a_block_and_between_blocks() {
        let t = |block: u32, thread: u32| Who { ctaid: [block, 0, 0], block, thread };
        let mut c = Cell::default();
        assert_eq!(access(&mut c, true, 1, &t(0, 0), 0), None);
        // Same warp, and the same thread, never conflict.
        assert_eq!(access(&mut c, false, 2, &t(0, 5), 0), None);
        assert_eq!(access(&mut c, true, 3, &t(0, 5), 0), None);
        // Another warp between the same barriers: read after write.
        assert_eq!(access(&mut c, false, 4, &t(0, 40), 0).map(|h| h.0), Some(Hazard::ReadAfterWrite));
        // After a barrier, the next write is ordered.
        assert_eq!(access(&mut c, true, 5, &t(0, 64), 1), None);
        // Another block: always a hazard within a grid.
        assert_eq!(access(&mut c, false, 6, &t(1, 64), 1).map(|h| (h.0, h.3)), Some((Hazard::ReadAfterWrite, 5)));
        assert_eq!(access(&mut c, true, 7, &t(2, 0), 1).map(|h| h.0), Some(Hazard::WriteAfterWrite));
    }
}
