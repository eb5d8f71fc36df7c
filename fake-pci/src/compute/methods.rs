//! The compute class's methods (FERMI_COMPUTE_A, 90C0): the launch state the channel
//! latches method by method (grid and block shape, code, constant buffers, windows,
//! reports, the sanitizer's configuration) and what each method asks of the channel.
use super::{
    BIND_TEXTURE_SAMPLER, BLOCK_DIM_XY, BLOCK_DIM_Z, CB_ADDRESS_HIGH, CB_ADDRESS_LOW, CB_BIND, CB_DATA, CB_OFFSET,
    CB_SIZE, CHECK_MODE, CHECK_REPORT_ADDRESS_HIGH, CHECK_REPORT_ADDRESS_LOW, CHECK_TABLE_ADDRESS_HIGH,
    CHECK_TABLE_ADDRESS_LOW, CODE_ADDRESS_HIGH, CODE_ADDRESS_LOW, ENVREG_DATA, ENVREG_SELECT, GRID_BLOCK_COUNT,
    GRID_DIM_XY, GRID_DIM_Z, GRID_FIRST_BLOCK, GRID_WIDTH, HEAP_ADDRESS_HIGH, HEAP_ADDRESS_LOW, HEAP_SIZE_HIGH,
    HEAP_SIZE_LOW, INVALIDATE_SHADER_CACHES, LAUNCH, LOCAL_SIZE, LOCAL_WINDOW, PRINTF_ADDRESS_HIGH, PRINTF_ADDRESS_LOW,
    PROGRAM_START, REGISTER_COUNT, REPORT_ADDRESS_HIGH, REPORT_ADDRESS_LOW, REPORT_OPERATION, REPORT_SEQUENCE,
    SET_TEX_HEADER_POOL_A, SET_TEX_HEADER_POOL_B, SET_TEX_HEADER_POOL_C, SET_TEX_SAMPLER_POOL_A,
    SET_TEX_SAMPLER_POOL_B, SET_TEX_SAMPLER_POOL_C, SHARED_SIZE, SHARED_WINDOW, THREADS_PER_BLOCK,
};
use super::{BindHeader, BindSampler, CB_SLOTS, CbBind, DimXy, SAMPLER_SLOTS, SURF_SLOTS, TEX_SLOTS, addr40};
use alloc::vec::Vec;
use hw::class::compute::{
    BARRIER_COUNT, BEGIN_GRID, BIND_SURFACE_HEADER, BIND_TEXTURE_HEADER, CLUSTER_DIM, END_GRID,
    INVALIDATE_SAMPLER_CACHE_NO_WFI, L1_CONFIG, LOCAL_ADDRESS_HIGH, LOCAL_ADDRESS_LOW, LOCAL_SIZE_PER_WARP,
    SHARED_CLUSTER_WINDOW,
};

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
    /// The next launch's block range (model: GRID_FIRST_BLOCK, GRID_BLOCK_COUNT; count 0:
    /// the whole grid).
    pub(crate) first_block: u32,
    pub(crate) block_count: u32,
    pub(crate) block: [u32; 3],
    pub(crate) threads: u32,
    pub(crate) regs: u32,
    pub(crate) shared: u32,
    /// The SM's shared-memory carveout for the launch, bytes (L1_CONFIG): the L1 is what it
    /// leaves of the SM's unified L1 and shared memory (`l1.unified_bytes`).
    pub(crate) carveout: u32,
    pub(crate) shared_window: u64,
    pub(crate) local_window: u64,
    pub(crate) local_size: u32,
    pub(crate) report_addr: u64,
    pub(crate) report_seq: u32,
    /// Sanitizer (model): checks, allocation table and report buffer of the next launches.
    pub(crate) check_mode: u32,
    pub(crate) check_table: u64,
    pub(crate) check_report: u64,
    /// The printf FIFO (model; 0: none).
    pub(crate) printf: u64,
    /// The device heap (model): address (0: none) and size in bytes.
    pub(crate) heap: (u64, u64),
    /// Texture header and sampler pools: (address, largest valid index).
    pub(crate) header_pool: (u64, u32),
    pub(crate) sampler_pool: (u64, u32),
    /// Bound texture, sampler and surface slots: pool index + 1 (0: unbound).
    pub(crate) tex_slots: Vec<u32>,
    pub(crate) sampler_slots: Vec<u32>,
    pub(crate) surf_slots: Vec<u32>,
    /// `%envreg0..31` of the next LAUNCH, and the one ENVREG_DATA writes.
    pub(crate) envregs: [u32; 32],
    pub(crate) envreg_select: u32,
    /// Thread block clusters of the next LAUNCH (CLUSTER_DIM), and the generic window of
    /// its clusters' shared memory (SHARED_CLUSTER_WINDOW); a launch without: clusters of
    /// one block, no window.
    pub(crate) cluster: hw::class::ClusterDim,
    pub(crate) cluster_window: u64,
}

/// Set slot `slot` (below `max`) of `slots` to `index + 1`, or 0 to unbind; false for a
/// slot out of range.
fn bind(slots: &mut Vec<u32>, max: usize, slot: usize, index: Option<u32>) -> bool {
    if slot >= max {
        return false;
    }
    if slots.len() <= slot {
        slots.resize(slot + 1, 0);
    }
    slots[slot] = index.map_or(0, |i| i + 1);
    true
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
    /// What the latched methods say about the launch's checks (the sanitizer's view).
    pub(crate) fn check_launch(&self) -> crate::check::Launch {
        crate::check::Launch {
            mode: self.check_mode,
            table: self.check_table,
            report: self.check_report,
            code: self.code,
            entry: self.start / hw::isa::INSTR_BYTES as u32,
        }
    }

    /// Forget the block range, the environment registers and the cluster shape: they apply
    /// to one LAUNCH.
    pub fn range_done(&mut self) {
        self.first_block = 0;
        self.block_count = 0;
        self.envregs = [0; 32];
        self.cluster = hw::class::ClusterDim::new();
        self.cluster_window = 0;
    }

    /// Latch a compute method.
    pub fn set(&mut self, method: u32, data: u32) -> Action {
        let hi = |v: u64| addr40::with_hi(v, data);
        let lo = |v: u64| addr40::with_lo(v, data);
        match method {
            SHARED_WINDOW => self.shared_window = data as u64,
            CLUSTER_DIM => self.cluster = hw::class::ClusterDim::from(data),
            SHARED_CLUSTER_WINDOW => self.cluster_window = data as u64,
            GRID_DIM_XY => {
                let d = DimXy::from(data);
                self.grid[0] = d.x() as u32;
                self.grid[1] = d.y() as u32;
            }
            GRID_DIM_Z => self.grid[2] = data,
            GRID_WIDTH => self.grid[0] = data,
            GRID_FIRST_BLOCK => self.first_block = data,
            GRID_BLOCK_COUNT => self.block_count = data,
            SHARED_SIZE => self.shared = data,
            L1_CONFIG => self.carveout = data,
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
            PRINTF_ADDRESS_HIGH => self.printf = hi(self.printf),
            PRINTF_ADDRESS_LOW => self.printf = lo(self.printf),
            HEAP_ADDRESS_HIGH => self.heap.0 = hi(self.heap.0),
            HEAP_ADDRESS_LOW => self.heap.0 = lo(self.heap.0),
            HEAP_SIZE_HIGH => self.heap.1 = (self.heap.1 & 0xFFFF_FFFF) | (data as u64) << 32,
            HEAP_SIZE_LOW => self.heap.1 = (self.heap.1 & !0xFFFF_FFFF) | data as u64,
            ENVREG_SELECT => self.envreg_select = data,
            ENVREG_DATA => {
                if let Some(r) = self.envregs.get_mut(self.envreg_select as usize) {
                    *r = data;
                }
                self.envreg_select = self.envreg_select.wrapping_add(1);
            }
            SET_TEX_HEADER_POOL_A => self.header_pool.0 = hi(self.header_pool.0),
            SET_TEX_HEADER_POOL_B => self.header_pool.0 = lo(self.header_pool.0),
            SET_TEX_HEADER_POOL_C => self.header_pool.1 = data & 0x3F_FFFF,
            SET_TEX_SAMPLER_POOL_A => self.sampler_pool.0 = hi(self.sampler_pool.0),
            SET_TEX_SAMPLER_POOL_B => self.sampler_pool.0 = lo(self.sampler_pool.0),
            SET_TEX_SAMPLER_POOL_C => self.sampler_pool.1 = data & 0xF_FFFF,
            BIND_TEXTURE_HEADER | BIND_SURFACE_HEADER => {
                let b = BindHeader::from(data);
                let (slots, max) = if method == BIND_TEXTURE_HEADER {
                    (&mut self.tex_slots, TEX_SLOTS)
                } else {
                    (&mut self.surf_slots, SURF_SLOTS)
                };
                if !bind(slots, max, b.slot() as usize, b.valid().then_some(b.index())) {
                    return Action::Unknown;
                }
            }
            BIND_TEXTURE_SAMPLER => {
                let b = BindSampler::from(data);
                let index = b.valid().then_some(b.index() as u32);
                if !bind(&mut self.sampler_slots, SAMPLER_SLOTS, b.slot() as usize, index) {
                    return Action::Unknown;
                }
            }
            BARRIER_COUNT
            | BEGIN_GRID
            | INVALIDATE_SAMPLER_CACHE_NO_WFI
            | END_GRID
            | LOCAL_ADDRESS_HIGH
            | LOCAL_ADDRESS_LOW
            | LOCAL_SIZE_PER_WARP => {}
            _ => return Action::Unknown,
        }
        Action::None
    }
}
