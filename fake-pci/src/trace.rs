//! MMIO trace: every configuration and BAR access as a record, printable as an
//! mmiotrace-like text line (`W 4 <cycle> 0x<bus address> 0x<value> <register>`).

use alloc::vec::Vec;
use core::fmt;

/// Kind of access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// MMIO read.
    Read,
    /// MMIO write.
    Write,
    /// Configuration-space read.
    CfgRead,
    /// Configuration-space write.
    CfgWrite,
}

/// Which window an access hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    /// BAR0 register file (offset within BAR0).
    Bar0(u32),
    /// BAR1 aperture (offset within BAR1).
    Bar1(u64),
    /// Configuration space.
    Config(u16),
    /// No BAR claimed the address (or memory decoding is off).
    Unclaimed,
}

/// One traced access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Read or write.
    pub kind: AccessKind,
    /// Device cycle when it happened.
    pub cycle: u64,
    /// Bus address (or configuration offset).
    pub addr: u64,
    /// Value read or written.
    pub value: u32,
    /// Where it landed.
    pub window: Window,
}

impl fmt::Display for TraceRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = match self.kind {
            AccessKind::Read => "R",
            AccessKind::Write => "W",
            AccessKind::CfgRead => "CR",
            AccessKind::CfgWrite => "CW",
        };
        write!(f, "{k} 4 {} 0x{:x} 0x{:08x}", self.cycle, self.addr, self.value)?;
        match self.window {
            Window::Bar0(off) => match hw::regs::lookup(off) {
                Some((d, i)) if d.count > 1 => write!(f, " {}[{i}]", d.name),
                Some((d, _)) => write!(f, " {}", d.name),
                None if (hw::regs::NV_PRAMIN..hw::regs::NV_PRAMIN + hw::regs::NV_PRAMIN_SIZE).contains(&off) => {
                    write!(f, " NV_PRAMIN+0x{:x}", off - hw::regs::NV_PRAMIN)
                }
                None => write!(f, " BAR0+0x{off:x}"),
            },
            Window::Bar1(off) => write!(f, " BAR1+0x{off:x}"),
            Window::Config(off) => write!(f, " PCI_CFG+0x{off:x}"),
            Window::Unclaimed => write!(f, " UNCLAIMED"),
        }
    }
}

impl crate::FakeGpu {
    /// Record every access from now on, keeping at most `limit` records.
    pub fn trace_start(&mut self, limit: usize) {
        self.trace = Some((Vec::new(), limit));
    }

    /// Stop tracing and return the records.
    pub fn trace_take(&mut self) -> Vec<TraceRecord> {
        self.trace.take().map(|(v, _)| v).unwrap_or_default()
    }

    /// Stop tracing and write the records as text lines to `w` (the `std` feature).
    /// Returns how many were written.
    #[cfg(feature = "std")]
    pub fn trace_write(&mut self, w: &mut impl std::io::Write) -> std::io::Result<usize> {
        let recs = self.trace_take();
        for r in &recs {
            writeln!(w, "{r}")?;
        }
        w.flush()?;
        Ok(recs.len())
    }

    pub(crate) fn record(&mut self, kind: AccessKind, addr: u64, value: u32, window: Window) {
        if let Some((v, limit)) = self.trace.as_mut()
            && v.len() < *limit
        {
            v.push(TraceRecord { kind, cycle: self.now, addr, value, window });
        }
    }

    pub(crate) fn ignore(&mut self, addr: u64, value: u32, window: Window) {
        self.stats.ignored_writes += 1;
        self.ignored.write(TraceRecord { kind: AccessKind::Write, cycle: self.now, addr, value, window });
    }

    /// The most recent ignored accesses (oldest first).
    pub fn ignored_accesses(&self) -> impl Iterator<Item = &TraceRecord> {
        self.ignored.oldest_ordered()
    }
}
