//! The sanitizers (memcheck, racecheck, initcheck, synccheck) on the runtime's side: a
//! context created while checks are on (`Gpu::set_checks`) keeps an allocation table
//! and a report buffer in its own memory ([`hw::check`]); every launch names both, and the
//! compute engine checks every access of the grid against them. `Gpu::check_reports`
//! reads the findings back with the kernel's name and PTX line.

use crate::channel::{Held, map_dma};
use crate::device::Device;
use crate::error::Result;
use crate::platform::{DmaBuffer, Platform};
use crate::vm::VaSpace;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::sync::atomic::Ordering;
pub use hw::check::{AccessKind, CheckKind, CheckMode, CheckRecord, Hazard};
use hw::check::{RECORD_BYTES, REPORT_HEADER, TABLE_ENTRY, TABLE_HEADER, TABLE_MAX};

/// Records a context's report buffer holds between two reads.
pub const REPORT_RECORDS: u32 = 4096;

/// A context's allocation table and report buffer, mapped into its address space.
pub(crate) struct CheckArea {
    pub(crate) mode: CheckMode,
    table: DmaBuffer,
    pub(crate) table_va: u64,
    report: DmaBuffer,
    pub(crate) report_va: u64,
}

impl CheckArea {
    pub(crate) fn new<P: Platform>(
        gpu: &Device<P>,
        vm: &mut VaSpace,
        held: &mut Vec<Held>,
        mode: CheckMode,
    ) -> Result<Self> {
        let (table, table_va) = map_dma(gpu, vm, held, TABLE_HEADER + TABLE_MAX as usize * TABLE_ENTRY)?;
        let (report, report_va) = map_dma(gpu, vm, held, REPORT_HEADER + REPORT_RECORDS as usize * RECORD_BYTES)?;
        let _ = report.mem.store_u32(4, REPORT_RECORDS, Ordering::Release);
        Ok(Self { mode, table, table_va, report, report_va })
    }

    /// Rewrite the table with `allocs` (base, size), in ascending order of base.
    pub(crate) fn write_table(&self, allocs: impl Iterator<Item = (u64, u64)>) {
        let mut n = 0u32;
        for (base, size) in allocs.take(TABLE_MAX as usize) {
            let at = TABLE_HEADER + n as usize * TABLE_ENTRY;
            let _ = self.table.mem.store_u64(at, base, Ordering::Relaxed);
            let _ = self.table.mem.store_u64(at + 8, size, Ordering::Relaxed);
            n += 1;
        }
        // The count last: the device reads the table at a later launch, after a doorbell.
        let _ = self.table.mem.store_u32(0, n, Ordering::Release);
    }

    /// The records written since the last call, and how many did not fit.
    pub(crate) fn take(&self) -> (Vec<CheckRecord>, u32) {
        let written = self.report.mem.load_u32(0, Ordering::Acquire).unwrap_or(0);
        let kept = written.min(REPORT_RECORDS);
        let mut out = Vec::with_capacity(kept as usize);
        let mut b = [0u8; RECORD_BYTES];
        for i in 0..kept as usize {
            if self.report.mem.read(REPORT_HEADER + i * RECORD_BYTES, &mut b).is_ok()
                && let Some(r) = CheckRecord::from_bytes(&b)
            {
                out.push(r);
            }
        }
        let _ = self.report.mem.store_u32(0, 0, Ordering::Release);
        (out, written - kept)
    }
}

/// A finding, with where it happened in the program's own terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// What the compute engine recorded.
    pub record: CheckRecord,
    /// The launched kernel's name (empty when the module is gone).
    pub kernel: String,
    /// PTX line of the access (0: unknown).
    pub line: u32,
    /// PTX line of a race's other access (0: unknown).
    pub other_line: u32,
}

fn space(s: u8) -> &'static str {
    match s {
        1 => "__global__",
        2 => "__shared__",
        3 => "__local__",
        _ => "generic",
    }
}

impl fmt::Display for CheckReport {
    /// compute-sanitizer's shape: a headline, then where (kernel, PTX line, pc, thread,
    /// block) and the address; every line starts with `========= `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.record;
        let what = match r.access {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        };
        let times = if r.count > 1 { alloc::format!(" ({} times)", r.count) } else { String::new() };
        let [x, y, z] = r.block;
        let at = alloc::format!(
            "=========     at {} (PTX line {}, pc {}) by thread {} in block ({x},{y},{z})",
            self.kernel,
            self.line,
            r.pc,
            r.thread
        );
        match r.kind {
            CheckKind::OutOfBounds => {
                writeln!(f, "========= Invalid {} {what} of size {} bytes{times}", space(r.space), r.size)?;
                writeln!(f, "{at}")?;
                let (base, size) = (r.other, r.other_pc as u64);
                match r.space {
                    1 if size == 0 => write!(f, "=========     Address {:#x} is outside every allocation", r.addr),
                    1 if r.addr < base => write!(
                        f,
                        "=========     Address {:#x} is {} bytes before the {size}-byte allocation at {base:#x}",
                        r.addr,
                        base - r.addr
                    ),
                    1 if r.addr >= base + size => write!(
                        f,
                        "=========     Address {:#x} is {} bytes after the {size}-byte allocation at {base:#x}",
                        r.addr,
                        r.addr - (base + size)
                    ),
                    1 => write!(
                        f,
                        "=========     Address {:#x} runs past the end of the {size}-byte allocation at {base:#x}",
                        r.addr
                    ),
                    _ => write!(f, "=========     Address {:#x} is out of bounds ({size} bytes)", r.addr),
                }
            }
            CheckKind::Race => {
                let h = match r.hazard {
                    Hazard::ReadAfterWrite => "Read-after-write",
                    Hazard::WriteAfterRead => "Write-after-read",
                    Hazard::WriteAfterWrite => "Write-after-write",
                    Hazard::None => "Unordered",
                };
                writeln!(
                    f,
                    "========= {h} hazard on {} memory at {:#x} ({} bytes){times}",
                    space(r.space),
                    r.addr,
                    r.size
                )?;
                writeln!(f, "{at}")?;
                write!(
                    f,
                    "=========     races with PTX line {} (pc {}) by thread {} in block {} (linear)",
                    self.other_line,
                    r.other_pc,
                    r.other as u32,
                    r.other >> 32
                )
            }
            CheckKind::Uninitialized => {
                writeln!(
                    f,
                    "========= Uninitialized {} memory {what} of size {} bytes{times}",
                    space(r.space),
                    r.size
                )?;
                writeln!(f, "{at}")?;
                write!(f, "=========     Address {:#x} was never written since it was allocated", r.addr)
            }
            CheckKind::DivergentBarrier => {
                writeln!(f, "========= Barrier error: divergent threads in warp at a barrier{times}")?;
                writeln!(f, "{at}")?;
                write!(f, "=========     active lanes {:#010x} of the warp's {:#010x}", r.addr, r.other)
            }
        }
    }
}
