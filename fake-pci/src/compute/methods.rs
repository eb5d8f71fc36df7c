//! The compute class's methods (FERMI_COMPUTE_A, 90C0): the launch state the channel
//! latches method by method (grid and block shape, code, constant buffers, windows,
//! reports, the sanitizer's configuration) and what each method asks of the channel.

use super::*;

/// Methods latched by a channel for its compute object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComputeRegs {
    pub(crate) code: u64,
    pub(crate) start: u32,
    pub(crate) cb_addr: u64,
    pub(crate) cb_size: u32,
    pub(crate) cb_offset: u32,
    pub(crate) cbs: [Option<(u64, u32)>; CB_SLOTS],
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) threads: u32,
    pub(crate) regs: u32,
    pub(crate) shared: u32,
    pub(crate) shared_window: u64,
    pub(crate) local_window: u64,
    pub(crate) local_size: u32,
    pub(crate) report_addr: u64,
    pub(crate) report_seq: u32,
    /// Sanitizer (model): checks, allocation table and report buffer of the next launches.
    pub(crate) check_mode: u32,
    pub(crate) check_table: u64,
    pub(crate) check_report: u64,
}

/// What a compute method asks of the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Latched; nothing else to do.
    None,
    /// Write `data` to the selected constant buffer at this address.
    CbWrite(u64, u32),
    /// Launch the grid.
    Launch,
    /// Clear the instruction cache.
    Invalidate,
    /// Release the report payload at the address once the engine is idle.
    Report(u64, u32),
    /// Not a method of the class.
    Unknown,
}

impl ComputeRegs {
    /// Latch a compute method.
    pub fn set(&mut self, method: u32, data: u32) -> Action {
        let hi = |v: u64| addr40::with_hi(v, data);
        let lo = |v: u64| addr40::with_lo(v, data);
        match method {
            SHARED_WINDOW => self.shared_window = data as u64,
            GRID_DIM_XY => {
                let d = DimXy::from(data);
                self.grid[0] = d.x() as u32;
                self.grid[1] = d.y() as u32;
            }
            GRID_DIM_Z => self.grid[2] = data,
            SHARED_SIZE => self.shared = data,
            THREADS_PER_BLOCK => self.threads = data,
            REGISTER_COUNT => self.regs = data,
            BLOCK_DIM_XY => {
                let d = DimXy::from(data);
                self.block[0] = d.x() as u32;
                self.block[1] = d.y() as u32;
            }
            BLOCK_DIM_Z => self.block[2] = data,
            PROGRAM_START => self.start = data,
            LOCAL_WINDOW => self.local_window = data as u64,
            LOCAL_SIZE => self.local_size = data,
            CODE_ADDRESS_HIGH => self.code = hi(self.code),
            CODE_ADDRESS_LOW => self.code = lo(self.code),
            CB_SIZE => self.cb_size = data,
            CB_ADDRESS_HIGH => self.cb_addr = hi(self.cb_addr),
            CB_ADDRESS_LOW => self.cb_addr = lo(self.cb_addr),
            CB_BIND => {
                let b = CbBind::from(data);
                let slot = b.slot() as usize;
                if slot >= CB_SLOTS {
                    return Action::Unknown;
                }
                self.cbs[slot] = b.valid().then_some((self.cb_addr, self.cb_size));
            }
            CB_OFFSET => self.cb_offset = data,
            CB_DATA => {
                let at = self.cb_addr.wrapping_add(self.cb_offset as u64);
                self.cb_offset = self.cb_offset.wrapping_add(4);
                return Action::CbWrite(at, data);
            }
            LAUNCH => return Action::Launch,
            INVALIDATE_SHADER_CACHES => return Action::Invalidate,
            REPORT_ADDRESS_HIGH => self.report_addr = hi(self.report_addr),
            REPORT_ADDRESS_LOW => self.report_addr = lo(self.report_addr),
            REPORT_SEQUENCE => self.report_seq = data,
            REPORT_OPERATION => return Action::Report(self.report_addr, self.report_seq),
            CHECK_MODE => self.check_mode = data,
            CHECK_TABLE_ADDRESS_HIGH => self.check_table = hi(self.check_table),
            CHECK_TABLE_ADDRESS_LOW => self.check_table = lo(self.check_table),
            CHECK_REPORT_ADDRESS_HIGH => self.check_report = hi(self.check_report),
            CHECK_REPORT_ADDRESS_LOW => self.check_report = lo(self.check_report),
            BARRIER_COUNT | BEGIN_GRID | END_GRID | L1_CONFIG | LOCAL_ADDRESS_HIGH | LOCAL_ADDRESS_LOW
            | LOCAL_SIZE_PER_WARP => {}
            _ => return Action::Unknown,
        }
        Action::None
    }
}
