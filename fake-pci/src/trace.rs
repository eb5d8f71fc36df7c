//! MMIO trace: every configuration and BAR access as a record, printable as an
//! mmiotrace-like text line (`W 4 <cycle> 0x<bus address> 0x<value> <register>`), kept
//! through a [`TraceFilter`] (units, registers, windows) that can fold the floods of BAR1
//! and PRAMIN accesses (page tables and staging written word by word) into one line a run.

use alloc::string::{String, ToString};
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
    /// Accesses this record stands for: 1, or the length of a folded run of same-kind
    /// accesses to consecutive words of BAR1 or PRAMIN starting at `addr` (`value` is the
    /// first one's).
    pub run: u32,
}

impl TraceRecord {
    /// The register unit, window or space the access hit, as a filter names it: a unit
    /// (`NV_PFIFO`), `pramin`, `bar0` (no register), `bar1`, `config` or `unclaimed`.
    pub fn unit(&self) -> &'static str {
        self.place().0
    }

    /// The register's name (`NV_PMC_ENABLE`), if the access hit one.
    pub fn register(&self) -> Option<&'static str> {
        self.place().1
    }

    /// The unit and register, from one lookup in the register table.
    fn place(&self) -> (&'static str, Option<&'static str>) {
        match self.window {
            Window::Bar0(off) => match hw::regs::lookup(off) {
                Some((d, _)) => (unit_of(d.name), Some(d.name)),
                None if is_pramin(off) => ("pramin", None),
                None => ("bar0", None),
            },
            Window::Bar1(_) => ("bar1", None),
            Window::Config(_) => ("config", None),
            Window::Unclaimed => ("unclaimed", None),
        }
    }

    /// Whether this is a word of a bulk window (BAR1 or PRAMIN), which folding joins.
    fn foldable(&self) -> bool {
        matches!(self.unit(), "bar1" | "pramin")
    }
}

fn is_pramin(off: u32) -> bool {
    (hw::regs::NV_PRAMIN..hw::regs::NV_PRAMIN + hw::regs::NV_PRAMIN_SIZE).contains(&off)
}

/// A register's unit: its name up to the second underscore (`NV_PFIFO_RUNLIST` → `NV_PFIFO`).
fn unit_of(name: &'static str) -> &'static str {
    match name.match_indices('_').nth(1) {
        Some((i, _)) => &name[..i],
        None => name,
    }
}

/// What a trace keeps: selections of units (`PFIFO` or `NV_PFIFO`), registers
/// (`NV_PFIFO_RUNLIST`) and windows (`bar1`, `pramin`, `bar0`, `config`, `unclaimed`),
/// each kept, or left out when written with a leading `-`; and whether runs of BAR1 and
/// PRAMIN words are folded into one record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceFilter {
    /// Kept when non-empty: only accesses matching one of these.
    pub keep: Vec<String>,
    /// Left out: accesses matching one of these.
    pub drop: Vec<String>,
    /// Fold runs of consecutive BAR1 or PRAMIN words (same kind) into one record.
    pub fold: bool,
}

impl TraceFilter {
    /// Everything, with BAR1 and PRAMIN runs folded.
    pub fn folded() -> Self {
        Self { fold: true, ..Self::default() }
    }

    /// Parse a comma list of selections (`PFIFO,PMC`, `-bar1,-pramin`, `NV_PFIFO_RUNLIST`),
    /// case-insensitively; an unknown unit or register is an error that lists the units.
    pub fn parse(spec: &str, fold: bool) -> Result<Self, String> {
        let mut f = Self { fold, ..Self::default() };
        let units = Self::units();
        for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (drop, name) = match item.strip_prefix('-') {
                Some(n) => (true, n),
                None => (false, item),
            };
            let lower = name.to_ascii_lowercase();
            let upper = name.to_ascii_uppercase();
            let canon = if ["bar0", "bar1", "pramin", "config", "unclaimed"].contains(&lower.as_str()) {
                lower
            } else {
                let unit = if upper.starts_with("NV_") { upper } else { alloc::format!("NV_{upper}") };
                let known = units.contains(&unit) || hw::regs::TABLE.iter().any(|d| d.name == unit);
                if !known {
                    let list: Vec<&str> = units.iter().map(|u| &u[3..]).collect();
                    return Err(alloc::format!(
                        "unknown unit or register `{name}` (units: {}; windows: bar0, bar1, pramin, config, unclaimed)",
                        list.join(", ")
                    ));
                }
                unit
            };
            if drop { f.drop.push(canon) } else { f.keep.push(canon) }
        }
        Ok(f)
    }

    /// The register units of the table (`NV_PMC`, `NV_PFIFO`, ...), in offset order.
    pub fn units() -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for d in hw::regs::TABLE {
            let u = unit_of(d.name);
            if !v.iter().any(|x| x == u) {
                v.push(u.to_string());
            }
        }
        v
    }

    /// Whether the trace keeps this access.
    pub fn keeps(&self, r: &TraceRecord) -> bool {
        let (unit, reg) = r.place();
        let hit = |sel: &String| sel == unit || reg == Some(sel.as_str());
        (self.keep.is_empty() || self.keep.iter().any(hit)) && !self.drop.iter().any(hit)
    }
}

/// A trace being recorded: the records, at most `limit` of them, through a filter.
#[derive(Debug)]
pub(crate) struct Tracer {
    records: Vec<TraceRecord>,
    limit: usize,
    filter: TraceFilter,
    dropped: u64,
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
        self.fmt_place(f)?;
        if self.run > 1 {
            write!(f, " (run of {} words, {} bytes)", self.run, u64::from(self.run) * 4)?;
        }
        Ok(())
    }
}

impl TraceRecord {
    fn fmt_place(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.window {
            Window::Bar0(off) => match hw::regs::lookup(off) {
                Some((d, i)) if d.count > 1 => write!(f, " {}[{i}]", d.name),
                Some((d, _)) => write!(f, " {}", d.name),
                None if is_pramin(off) => {
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
        self.trace_start_filtered(limit, TraceFilter::default());
    }

    /// Record the accesses `filter` keeps from now on, at most `limit` records.
    pub fn trace_start_filtered(&mut self, limit: usize, filter: TraceFilter) {
        self.trace = Some(Tracer { records: Vec::new(), limit, filter, dropped: 0 });
    }

    /// Accesses the filter kept that did not fit under the limit so far.
    pub fn trace_dropped(&self) -> u64 {
        self.trace.as_ref().map_or(0, |t| t.dropped)
    }

    /// Stop tracing and return the records.
    pub fn trace_take(&mut self) -> Vec<TraceRecord> {
        self.trace.take().map(|t| t.records).unwrap_or_default()
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
        let Some(t) = self.trace.as_mut() else { return };
        let r = TraceRecord { kind, cycle: self.now, addr, value, window, run: 1 };
        if !t.filter.keeps(&r) {
            return;
        }
        if t.filter.fold
            && r.foldable()
            && let Some(last) = t.records.last_mut()
            && last.kind == r.kind
            && last.foldable()
            && last.unit() == r.unit()
            && last.addr + 4 * u64::from(last.run) == r.addr
        {
            last.run += 1;
            return;
        }
        if t.records.len() < t.limit {
            t.records.push(r);
        } else {
            t.dropped += 1;
        }
    }

    pub(crate) fn ignore(&mut self, addr: u64, value: u32, window: Window) {
        self.stats.ignored_writes += 1;
        self.ignored.write(TraceRecord { kind: AccessKind::Write, cycle: self.now, addr, value, window, run: 1 });
    }

    /// The most recent ignored accesses (oldest first).
    pub fn ignored_accesses(&self) -> impl Iterator<Item = &TraceRecord> {
        self.ignored.oldest_ordered()
    }
}
