//! MMIO trace: every configuration and BAR access as a record, printable as an
//! mmiotrace-like text line (`W 4 <cycle> 0x<bus address> 0x<value> <register>`).

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
