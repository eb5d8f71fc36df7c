//! A platform that checks register traffic against an expectation list, in the style of
//! embedded-hal-mock: `expect(...)` installs the list, every configuration, BAR0 and BAR1
//! access must match the next entry (kind, space, register, and value), and `done()`
//! asserts that every entry was consumed. Messages name registers from `hw`'s table.
//!
//! The accesses go on to the real simulated device, so the runtime behaves exactly as it
//! would. PRAMIN window data and the window base register are passed through unchecked:
//! what they write (instance blocks, page tables) is checked as memory contents instead.

use fake_pci::{DeviceConfig, FakeGpu, RunState};
use hw::regs::{self, Reg};
use parking_lot::Mutex;
use runtime_core::platform::{Activity, DmaBuffer, Level, Platform};
use runtime_core::{CuError, Result};
use std::collections::VecDeque;
use std::fmt;

pub use hw::pci::{BAR0_BUS as BAR0, BAR1_BUS as BAR1};

/// Address space of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// PCI configuration space.
    Cfg,
    /// BAR0 registers.
    Bar0,
    /// BAR1 aperture.
    Bar1,
}

/// One expected access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tx {
    write: bool,
    space: Space,
    off: u64,
    value: Option<u32>,
}

impl Tx {
    /// A configuration read returning `v`.
    pub fn cfg_read(off: u16, v: u32) -> Self {
        Self { write: false, space: Space::Cfg, off: off as u64, value: Some(v) }
    }
    /// A configuration write of `v`.
    pub fn cfg_write(off: u16, v: u32) -> Self {
        Self { write: true, space: Space::Cfg, off: off as u64, value: Some(v) }
    }
    /// A read of element `i` of `r` returning `v`.
    pub fn read<T>(r: Reg<T>, i: u32, v: u32) -> Self {
        Self { write: false, space: Space::Bar0, off: r.offset_at(i) as u64, value: Some(v) }
    }
    /// A read of element `i` of `r`, any value.
    pub fn read_any<T>(r: Reg<T>, i: u32) -> Self {
        Self { write: false, space: Space::Bar0, off: r.offset_at(i) as u64, value: None }
    }
    /// A write of `v` to element `i` of `r`.
    pub fn write<T>(r: Reg<T>, i: u32, v: impl Into<u32>) -> Self {
        Self { write: true, space: Space::Bar0, off: r.offset_at(i) as u64, value: Some(v.into()) }
    }
    /// A write to element `i` of `r`, any value (captured: see [`ExpectPlatform::done`]).
    pub fn write_any<T>(r: Reg<T>, i: u32) -> Self {
        Self { write: true, space: Space::Bar0, off: r.offset_at(i) as u64, value: None }
    }
    /// A BAR1 read returning `v`.
    pub fn bar1_read(off: u64, v: u32) -> Self {
        Self { write: false, space: Space::Bar1, off, value: Some(v) }
    }
    /// A BAR1 write of `v`.
    pub fn bar1_write(off: u64, v: u32) -> Self {
        Self { write: true, space: Space::Bar1, off, value: Some(v) }
    }
}

fn name(space: Space, off: u64) -> String {
    match space {
        Space::Cfg => format!("PCI_CFG+{off:#x}"),
        Space::Bar1 => format!("BAR1+{off:#x}"),
        Space::Bar0 => match regs::lookup(off as u32) {
            Some((d, _)) if d.count == 1 => d.name.to_string(),
            Some((d, i)) => format!("{}[{i}]", d.name),
            None => format!("BAR0+{off:#x}"),
        },
    }
}

impl fmt::Display for Tx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = if self.write { "write" } else { "read" };
        match self.value {
            Some(v) => write!(f, "{k} {} = {v:#010x}", name(self.space, self.off)),
            None => write!(f, "{k} {}", name(self.space, self.off)),
        }
    }
}

struct Expect {
    list: VecDeque<Tx>,
    step: usize,
    captured: Vec<u32>,
}

/// The checking platform (see the module documentation).
pub struct ExpectPlatform {
    gpu: Mutex<FakeGpu>,
    expect: Mutex<Option<Expect>>,
}

impl ExpectPlatform {
    /// A board with `cfg`, BARs assigned at [`BAR0`] and [`BAR1`], checking off.
    pub fn new(cfg: DeviceConfig) -> Self {
        let mut gpu = FakeGpu::new(cfg);
        gpu.assign_bars(BAR0, BAR1);
        Self { gpu: Mutex::new(gpu), expect: Mutex::new(None) }
    }

    /// Install an expectation list; from now on every checked access must match it.
    pub fn expect(&self, txs: impl IntoIterator<Item = Tx>) {
        *self.expect.lock() = Some(Expect { list: txs.into_iter().collect(), step: 0, captured: Vec::new() });
    }

    /// Assert that every expected access happened and stop checking. Returns the values
    /// of the wildcard entries (`read_any`, `write_any`) in order.
    pub fn done(&self) -> Vec<u32> {
        let Some(e) = self.expect.lock().take() else { return Vec::new() };
        if let Some(next) = e.list.front() {
            panic!(
                "register sequence incomplete after {} accesses: still expected {next} (and {} more)",
                e.step,
                e.list.len() - 1
            );
        }
        e.captured
    }

    /// The device, for direct inspection.
    pub fn device(&self) -> parking_lot::MutexGuard<'_, FakeGpu> {
        self.gpu.lock()
    }

    fn check(&self, write: bool, space: Space, off: u64, value: u32) {
        if space == Space::Bar0 {
            let o = off as u32;
            if (regs::NV_PRAMIN..regs::NV_PRAMIN + regs::NV_PRAMIN_SIZE).contains(&o)
                || o == regs::NV_PBUS_BAR0_WINDOW.offset()
            {
                return;
            }
        }
        let mut g = self.expect.lock();
        let Some(e) = g.as_mut() else { return };
        let got = Tx { write, space, off, value: Some(value) };
        let step = e.step;
        e.step += 1;
        match e.list.pop_front() {
            None => panic!("unexpected access #{step}: {got} (the expectation list is exhausted)"),
            Some(want) => {
                let same = want.write == write
                    && want.space == space
                    && want.off == off
                    && want.value.is_none_or(|v| v == value);
                if !same {
                    *g = None;
                    panic!("register sequence mismatch at access #{step}: expected {want}, got {got}");
                }
                if want.value.is_none() {
                    e.captured.push(value);
                }
            }
        }
    }

    fn decode(addr: u64) -> (Space, u64) {
        if (BAR0..BAR0 + regs::BAR0_SIZE as u64).contains(&addr) {
            (Space::Bar0, addr - BAR0)
        } else {
            (Space::Bar1, addr.wrapping_sub(BAR1))
        }
    }
}

impl Platform for ExpectPlatform {
    type RawMutex = parking_lot::RawMutex;

    fn log(&self, level: Level, args: fmt::Arguments<'_>) {
        if level <= Level::Warn {
            eprintln!("[mock {level:?}] {args}");
        }
    }
    fn yield_now(&self) -> Activity {
        match self.gpu.lock().run(1 << 22) {
            RunState::Idle => Activity::Idle,
            RunState::Busy => Activity::Progress,
        }
    }
    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer> {
        let (mem, bus) = self.gpu.lock().dma_alloc(len).map_err(|_| CuError::OutOfMemory)?;
        Ok(DmaBuffer { mem, bus })
    }
    fn dma_free(&self, buf: &DmaBuffer) {
        self.gpu.lock().unmap_dma(buf.bus);
    }
    fn cfg_read32(&self, off: u16) -> u32 {
        let v = self.gpu.lock().cfg_read32(off);
        self.check(false, Space::Cfg, off as u64, v);
        v
    }
    fn cfg_write32(&self, off: u16, value: u32) {
        self.check(true, Space::Cfg, off as u64, value);
        self.gpu.lock().cfg_write32(off, value)
    }
    fn mmio_read32(&self, addr: u64) -> u32 {
        let v = self.gpu.lock().mmio_read32(addr);
        let (s, off) = Self::decode(addr);
        self.check(false, s, off, v);
        v
    }
    fn mmio_write32(&self, addr: u64, value: u32) {
        let (s, off) = Self::decode(addr);
        self.check(true, s, off, value);
        self.gpu.lock().mmio_write32(addr, value);
    }
}
