//! The sanitizer interface (a model extension; NVIDIA's compute-sanitizer instruments the
//! code instead): what the runtime hands the compute engine for a checked launch, and the
//! records the engine writes back. Both live in the channel's address space.
//!
//! - The allocation table at CHECK_TABLE_ADDRESS: a u32 count, a reserved u32, then
//!   `count` entries of (u64 base, u64 size), sorted by base and disjoint.
//! - The report buffer at CHECK_REPORT_ADDRESS: a u32 count of records written (it counts
//!   on past the capacity, so the reader knows what was dropped), a u32 capacity, then
//!   records of [`RECORD_BYTES`] ([`CheckRecord`]).
//! - Initcheck's shadow ("written since allocated", per VRAM byte) is the device's: the
//!   runtime turns it on with NV_PFB_CHECK_SHADOW and clears a fresh allocation's
//!   physical range with NV_PFB_CHECK_CLEAR_LO/HI/SIZE.

use modular_bitfield::prelude::*;

/// CHECK_MODE: which checks a launch runs (all off: an ordinary launch).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CheckMode {
    /// Accesses outside every allocation (global), or outside the block's shared memory or
    /// the thread's local memory.
    pub memcheck: bool,
    /// Shared-memory hazards between barriers, and global-memory hazards within a grid.
    pub racecheck: bool,
    /// Global loads of VRAM bytes never written since they were allocated.
    pub initcheck: bool,
    /// Barriers reached by only part of a warp (under divergence).
    pub synccheck: bool,
    #[skip]
    __: B28,
}

/// Bytes of the allocation table's header.
pub const TABLE_HEADER: usize = 8;
/// Bytes of one allocation table entry.
pub const TABLE_ENTRY: usize = 16;
/// Most entries the engine reads.
pub const TABLE_MAX: u32 = 1 << 16;
/// Bytes of the report buffer's header.
pub const REPORT_HEADER: usize = 8;
/// Bytes of one report record.
pub const RECORD_BYTES: usize = 64;

/// What a record reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum CheckKind {
    /// memcheck: an access outside any allocation (or its space's window).
    OutOfBounds = 1,
    /// racecheck: two threads' accesses to the same bytes, at least one a write, with no
    /// barrier between them (shared, or global in the same block) or in different blocks
    /// of one grid (global).
    Race = 2,
    /// initcheck: a load of device memory never written.
    Uninitialized = 3,
    /// synccheck: a barrier reached by only some of the warp's active threads.
    DivergentBarrier = 4,
}

/// The access a record is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum AccessKind {
    /// A load.
    Read = 0,
    /// A store.
    Write = 1,
    /// An atomic.
    Atomic = 2,
}

/// A race's order: what the earlier access was and what the later one is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Hazard {
    /// Not a race.
    None = 0,
    /// A read after another thread's write.
    ReadAfterWrite = 1,
    /// A write after another thread's read.
    WriteAfterRead = 2,
    /// A write after another thread's write.
    WriteAfterWrite = 3,
}

/// One finding. Layout (little-endian): kind u8, space u8 (`isa::Space`), access u8,
/// hazard u8, pc u32, code address u64, entry u32 (the launch's first instruction), block
/// x/y/z u32 each, thread (linear in its block) u32, size u32, address u64, other u64,
/// other_pc u32, count u32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckRecord {
    /// What it reports.
    pub kind: CheckKind,
    /// State space of the access (`isa::Space` as a number: 1 global, 2 shared, 3 local).
    pub space: u8,
    /// Load, store or atomic.
    pub access: AccessKind,
    /// A race's order.
    pub hazard: Hazard,
    /// Instruction index of the access (the later one, for a race).
    pub pc: u32,
    /// The launch's code address (CODE_ADDRESS).
    pub code: u64,
    /// The launch's entry instruction (PROGRAM_START / 16).
    pub entry: u32,
    /// Block index.
    pub block: [u32; 3],
    /// Thread index in its block (linear).
    pub thread: u32,
    /// Bytes accessed.
    pub size: u32,
    /// Address (global: virtual; shared/local: offset in the window).
    pub addr: u64,
    /// memcheck: base of the nearest allocation below (0: none); racecheck: the other
    /// access's block (linear, high 32 bits) and thread (low 32 bits).
    pub other: u64,
    /// memcheck: size of that allocation (saturated); racecheck: the other access's pc.
    pub other_pc: u32,
    /// Occurrences folded into this record (the same check at the same instruction(s)).
    pub count: u32,
}

impl CheckRecord {
    /// Encode.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0] = self.kind as u8;
        b[1] = self.space;
        b[2] = self.access as u8;
        b[3] = self.hazard as u8;
        b[4..8].copy_from_slice(&self.pc.to_le_bytes());
        b[8..16].copy_from_slice(&self.code.to_le_bytes());
        b[16..20].copy_from_slice(&self.entry.to_le_bytes());
        for k in 0..3 {
            b[20 + 4 * k..24 + 4 * k].copy_from_slice(&self.block[k].to_le_bytes());
        }
        b[32..36].copy_from_slice(&self.thread.to_le_bytes());
        b[36..40].copy_from_slice(&self.size.to_le_bytes());
        b[40..48].copy_from_slice(&self.addr.to_le_bytes());
        b[48..56].copy_from_slice(&self.other.to_le_bytes());
        b[56..60].copy_from_slice(&self.other_pc.to_le_bytes());
        b[60..64].copy_from_slice(&self.count.to_le_bytes());
        b
    }

    /// Decode; `None` for bytes that are not a record (memory the device does not trust).
    pub fn from_bytes(b: &[u8; RECORD_BYTES]) -> Option<Self> {
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| u32_at(o) as u64 | (u32_at(o + 4) as u64) << 32;
        let kind = match b[0] {
            1 => CheckKind::OutOfBounds,
            2 => CheckKind::Race,
            3 => CheckKind::Uninitialized,
            4 => CheckKind::DivergentBarrier,
            _ => return None,
        };
        let access = match b[2] {
            0 => AccessKind::Read,
            1 => AccessKind::Write,
            2 => AccessKind::Atomic,
            _ => return None,
        };
        let hazard = match b[3] {
            0 => Hazard::None,
            1 => Hazard::ReadAfterWrite,
            2 => Hazard::WriteAfterRead,
            3 => Hazard::WriteAfterWrite,
            _ => return None,
        };
        Some(Self {
            kind,
            space: b[1],
            access,
            hazard,
            pc: u32_at(4),
            code: u64_at(8),
            entry: u32_at(16),
            block: [u32_at(20), u32_at(24), u32_at(28)],
            thread: u32_at(32),
            size: u32_at(36),
            addr: u64_at(40),
            other: u64_at(48),
            other_pc: u32_at(56),
            count: u32_at(60),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_garbage_is_refused() {
        let r = CheckRecord {
            kind: CheckKind::Race,
            space: 2,
            access: AccessKind::Write,
            hazard: Hazard::WriteAfterRead,
            pc: 17,
            code: 0x2_0040_0000,
            entry: 3,
            block: [1, 2, 3],
            thread: 255,
            size: 4,
            addr: 0x80,
            other: 5 << 32 | 7,
            other_pc: 12,
            count: 9,
        };
        assert_eq!(CheckRecord::from_bytes(&r.to_bytes()), Some(r));
        let mut b = r.to_bytes();
        b[0] = 9;
        assert_eq!(CheckRecord::from_bytes(&b), None);
        let m = CheckMode::new().with_racecheck(true).with_synccheck(true);
        assert_eq!(u32::from(m), 0b1010);
    }
}
