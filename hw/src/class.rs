//! Object classes and their methods: host (FERMI_CHANNEL_GPFIFO, 906F) and copy
//! (FERMI_DMA_COPY / "90B5", NVIDIA layout). Method numbers are byte offsets.
//!
//! Source: open-gpu-doc `classes/host/cl906f.h`, `classes/dma-copy/cl90b5.h`, docs/hardware.md.

use modular_bitfield::prelude::*;

/// Host class of a GPFIFO channel.
pub const FERMI_CHANNEL_GPFIFO: u32 = 0x906F;
/// M2MF (memory to memory format) class.
pub const FERMI_MEMORY_TO_MEMORY_FORMAT_A: u32 = 0x9039;
/// Compute class.
pub const FERMI_COMPUTE_A: u32 = 0x90C0;
/// Copy engine class.
pub const FERMI_DMA_COPY_A: u32 = 0x90B5;

/// Subchannel assignments (Gdev convention).
pub mod subch {
    /// Compute.
    pub const COMPUTE: u8 = 1;
    /// M2MF.
    pub const M2MF: u8 = 2;
    /// Copy engine 0.
    pub const COPY0: u8 = 3;
    /// Copy engine 1.
    pub const COPY1: u8 = 4;
}

/// Host methods (below 0x100, valid on every subchannel).
pub mod host {
    /// Bind a class to the subchannel (data bits 15:0: class).
    pub const SET_OBJECT: u32 = 0x0000;
    /// Always raises an illegal-method error.
    pub const ILLEGAL: u32 = 0x0004;
    /// No operation.
    pub const NOP: u32 = 0x0008;
    /// Semaphore address bits 39:32.
    pub const SEMAPHOREA: u32 = 0x0010;
    /// Semaphore address bits 31:2 (in bits 31:2).
    pub const SEMAPHOREB: u32 = 0x0014;
    /// Semaphore payload.
    pub const SEMAPHOREC: u32 = 0x0018;
    /// Semaphore operation ([`super::SemaphoreD`]); executes the operation.
    pub const SEMAPHORED: u32 = 0x001C;
    /// Raise the non-stall interrupt.
    pub const NON_STALL_INTERRUPT: u32 = 0x0020;
    /// Flush frame-buffer writes.
    pub const FB_FLUSH: u32 = 0x0024;
    /// Memory operation, first word (operand).
    pub const MEM_OP_A: u32 = 0x0028;
    /// Memory operation, second word ([`super::MemOp`] in bits 3:0, model encoding).
    pub const MEM_OP_B: u32 = 0x002C;
    /// Write the payload to USERD's REF word.
    pub const SET_REFERENCE: u32 = 0x0050;
    /// First method that belongs to the engine bound to the subchannel.
    pub const ENGINE_BASE: u32 = 0x0100;
}

/// SET_OBJECT data: the class to bind to the subchannel (bits 15:0); bits 20:16 name the
/// engine on later chips and are ignored here.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetObject {
    /// Class number ([`FERMI_COMPUTE_A`], ...).
    pub class_id: B16,
    #[skip]
    __: B16,
}

/// 40-bit addresses split over an `*_UPPER`/`*_HIGH` method (bits 39:32 in data bits 7:0)
/// and a `*_LOWER`/`*_LOW` method (bits 31:0). The one place the split is written.
pub mod addr40 {
    /// Bits 39:32 for the high method.
    pub const fn hi(a: u64) -> u32 {
        (a >> 32) as u32 & 0xFF
    }
    /// Bits 31:0 for the low method.
    pub const fn lo(a: u64) -> u32 {
        a as u32
    }
    /// `[hi, lo]`: the data of a high/low method pair sent in that order.
    pub const fn split(a: u64) -> [u32; 2] {
        [hi(a), lo(a)]
    }
    /// `a` with bits 39:32 replaced by a high method's data.
    pub const fn with_hi(a: u64, data: u32) -> u64 {
        (a & 0xFFFF_FFFF) | ((data as u64 & 0xFF) << 32)
    }
    /// `a` with bits 31:0 replaced by a low method's data.
    pub const fn with_lo(a: u64, data: u32) -> u64 {
        (a & !0xFFFF_FFFF) | data as u64
    }
}

/// Semaphore operation (SEMAPHORED bits 3:0, one-hot).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 4]
pub enum SemOp {
    /// Invalid (no bit set).
    Invalid0 = 0,
    /// Wait until the semaphore equals the payload.
    Acquire = 1,
    /// Write the payload (and a timestamp for the 16-byte form).
    Release = 2,
    /// Invalid combination.
    Invalid3 = 3,
    /// Wait until (int)(semaphore - payload) >= 0.
    AcqGeq = 4,
    /// Invalid combination.
    Invalid5 = 5,
    /// Invalid combination.
    Invalid6 = 6,
    /// Invalid combination.
    Invalid7 = 7,
    /// Wait until (semaphore & payload) != 0.
    AcqAnd = 8,
    /// Invalid combination.
    Invalid9 = 9,
    /// Invalid combination.
    Invalid10 = 10,
    /// Invalid combination.
    Invalid11 = 11,
    /// Invalid combination.
    Invalid12 = 12,
    /// Invalid combination.
    Invalid13 = 13,
    /// Invalid combination.
    Invalid14 = 14,
    /// Invalid combination.
    Invalid15 = 15,
}

/// SEMAPHORED word.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SemaphoreD {
    /// Operation.
    pub operation: SemOp,
    #[skip]
    __: B8,
    /// Let other channels run while an acquire waits.
    pub acquire_switch: bool,
    #[skip]
    __: B7,
    /// 1: release without waiting for the engines to go idle (0 = wait for idle).
    pub release_wfi_disable: bool,
    #[skip]
    __: B3,
    /// 1: 4-byte release (payload only); 0: 16-byte {payload, 0, u64 timestamp}.
    pub release_size_4byte: bool,
    #[skip]
    __: B7,
}

/// MEM_OP_B operation (model encoding in bits 3:0).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 4]
pub enum MemOp {
    /// Nothing.
    Nop = 0,
    /// Invalidate the channel's TLB entries.
    TlbInvalidate = 1,
    /// Write back the L2 cache.
    L2FlushDirty = 2,
    /// Invalidate the L2 cache.
    L2Invalidate = 3,
    /// Reserved.
    R4 = 4,
    /// Reserved.
    R5 = 5,
    /// Reserved.
    R6 = 6,
    /// Reserved.
    R7 = 7,
    /// Reserved.
    R8 = 8,
    /// Reserved.
    R9 = 9,
    /// Reserved.
    R10 = 10,
    /// Reserved.
    R11 = 11,
    /// Reserved.
    R12 = 12,
    /// Reserved.
    R13 = 13,
    /// Reserved.
    R14 = 14,
    /// Reserved.
    R15 = 15,
}

/// MEM_OP_B layout (model).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemOpB {
    /// Operation.
    pub operation: MemOp,
    #[skip]
    __: B28,
}

/// GRID_DIM_XY and BLOCK_DIM_XY data: x in bits 15:0, y in bits 31:16 (z has its own
/// method).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimXy {
    /// x extent.
    pub x: B16,
    /// y extent.
    pub y: B16,
}

/// CB_BIND data: bind (valid) or unbind the constant buffer at CB_ADDRESS/CB_SIZE to slot
/// `slot` (bits 12:8; slots at or above [`compute::CB_SLOTS`] are illegal).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbBind {
    /// Bind (else unbind).
    pub valid: bool,
    #[skip]
    __: B7,
    /// Constant buffer slot.
    pub slot: B5,
    #[skip]
    __: B19,
}

/// Copy engine (90B5) methods.
pub mod copy {
    /// Semaphore address bits 39:32.
    pub const SET_SEMAPHORE_A: u32 = 0x0240;
    /// Semaphore address bits 31:0.
    pub const SET_SEMAPHORE_B: u32 = 0x0244;
    /// Semaphore payload.
    pub const SET_SEMAPHORE_PAYLOAD: u32 = 0x0248;
    /// Where a physical source address points ([`super::PhysMode`]), for a LAUNCH_DMA
    /// whose `src_physical` is set (Kepler's copy class has it; Fermi's only virtual).
    pub const SET_SRC_PHYS_MODE: u32 = 0x0260;
    /// Where a physical destination address points.
    pub const SET_DST_PHYS_MODE: u32 = 0x0264;
    /// Start the transfer ([`super::LaunchDma`]).
    pub const LAUNCH_DMA: u32 = 0x0300;
    /// Source address bits 39:32.
    pub const OFFSET_IN_UPPER: u32 = 0x0400;
    /// Source address bits 31:0.
    pub const OFFSET_IN_LOWER: u32 = 0x0404;
    /// Destination address bits 39:32.
    pub const OFFSET_OUT_UPPER: u32 = 0x0408;
    /// Destination address bits 31:0.
    pub const OFFSET_OUT_LOWER: u32 = 0x040C;
    /// Source pitch (bytes between lines).
    pub const PITCH_IN: u32 = 0x0410;
    /// Destination pitch.
    pub const PITCH_OUT: u32 = 0x0414;
    /// Bytes per line (elements when remapping).
    pub const LINE_LENGTH_IN: u32 = 0x0418;
    /// Number of lines.
    pub const LINE_COUNT: u32 = 0x041C;
    /// Remap constant A.
    pub const SET_REMAP_CONST_A: u32 = 0x0700;
    /// Remap constant B.
    pub const SET_REMAP_CONST_B: u32 = 0x0704;
    /// Remap component selection ([`super::RemapComponents`]).
    pub const SET_REMAP_COMPONENTS: u32 = 0x0708;
    /// Destination block shape ([`super::BlockSize`]).
    pub const SET_DST_BLOCK_SIZE: u32 = 0x070C;
    /// Destination width in bytes (block-linear).
    pub const SET_DST_WIDTH: u32 = 0x0710;
    /// Destination height in rows.
    pub const SET_DST_HEIGHT: u32 = 0x0714;
    /// Destination depth in slices.
    pub const SET_DST_DEPTH: u32 = 0x0718;
    /// Destination slice the copy writes.
    pub const SET_DST_LAYER: u32 = 0x071C;
    /// Destination origin ([`super::Origin`]).
    pub const SET_DST_ORIGIN: u32 = 0x0720;
    /// Source block shape.
    pub const SET_SRC_BLOCK_SIZE: u32 = 0x0728;
    /// Source width in bytes.
    pub const SET_SRC_WIDTH: u32 = 0x072C;
    /// Source height in rows.
    pub const SET_SRC_HEIGHT: u32 = 0x0730;
    /// Source depth in slices.
    pub const SET_SRC_DEPTH: u32 = 0x0734;
    /// Source slice the copy reads.
    pub const SET_SRC_LAYER: u32 = 0x0738;
    /// Source origin.
    pub const SET_SRC_ORIGIN: u32 = 0x073C;
}

/// SET_SRC/DST_BLOCK_SIZE: a block-linear surface's block shape (log2 GOBs).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockSize {
    /// log2 of the block's width in GOBs (only one GOB, 0, is supported).
    pub width: B4,
    /// log2 of the block's height in GOBs (0..5).
    pub height: B4,
    /// log2 of the block's depth in GOBs (0..5).
    pub depth: B4,
    /// GOB height: 0 = Tesla's 4 rows, 1 = Fermi's 8 rows (the model has only 8).
    pub gob_height: B4,
    #[skip]
    __: B16,
}

/// SET_SRC/DST_ORIGIN: the copy's first byte (x) and row (y) in a block-linear surface.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Origin {
    /// Byte in the row.
    pub x: B16,
    /// Row.
    pub y: B16,
}

/// CLUSTER_DIM (model): the shape of the launch's thread block clusters, in blocks (0 reads
/// as 1; the grid's shape is a multiple of it), and whether it was given explicitly (a
/// kernel's cluster registers tell clusters of one block from a launch without clusters).
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ClusterDim {
    /// Width.
    pub x: B8,
    /// Height.
    pub y: B8,
    /// Depth.
    pub z: B7,
    /// Launched with a cluster shape.
    pub explicit: bool,
    #[skip]
    __: B8,
}

impl ClusterDim {
    /// The shape, each dimension at least 1.
    pub fn dims(self) -> [u32; 3] {
        [self.x().max(1) as u32, self.y().max(1) as u32, self.z().max(1) as u32]
    }
}

/// Compute class (90C0) methods used to launch a grid, in Gdev's order (docs/hardware.md).
pub mod compute {
    /// Shared memory window base in the generic address space (bits 31:0; high bits 0).
    pub const SHARED_WINDOW: u32 = 0x0214;
    /// Grid width (15:0) and height (31:16).
    pub const GRID_DIM_XY: u32 = 0x0238;
    /// Grid depth.
    pub const GRID_DIM_Z: u32 = 0x023C;
    /// Shared memory per block, bytes (static plus dynamic).
    pub const SHARED_SIZE: u32 = 0x024C;
    /// Threads per block.
    pub const THREADS_PER_BLOCK: u32 = 0x0250;
    /// Barriers the kernel uses.
    pub const BARRIER_COUNT: u32 = 0x0254;
    /// Begin a grid.
    pub const BEGIN_GRID: u32 = 0x029C;
    /// Registers per thread.
    pub const REGISTER_COUNT: u32 = 0x02C0;
    /// L1/shared split (accepted, not modelled).
    pub const L1_CONFIG: u32 = 0x0308;
    /// Launch the grid.
    pub const LAUNCH: u32 = 0x0368;
    /// Block width (15:0) and height (31:16).
    pub const BLOCK_DIM_XY: u32 = 0x03AC;
    /// Block depth.
    pub const BLOCK_DIM_Z: u32 = 0x03B0;
    /// First instruction, as a byte offset from the program region.
    pub const PROGRAM_START: u32 = 0x03B4;
    /// Local memory window base in the generic address space (bits 31:0; high bits 0).
    pub const LOCAL_WINDOW: u32 = 0x077C;
    /// Local memory backing store address bits 39:32.
    pub const LOCAL_ADDRESS_HIGH: u32 = 0x0790;
    /// Local memory backing store address bits 31:0.
    pub const LOCAL_ADDRESS_LOW: u32 = 0x0794;
    /// Local memory bytes per thread.
    pub const LOCAL_SIZE: u32 = 0x0798;
    /// Local memory bytes per warp (accepted; the model derives it).
    pub const LOCAL_SIZE_PER_WARP: u32 = 0x07A0;
    /// End a grid.
    pub const END_GRID: u32 = 0x0A04;
    /// Program region address bits 39:32.
    pub const CODE_ADDRESS_HIGH: u32 = 0x1608;
    /// Program region address bits 31:0.
    pub const CODE_ADDRESS_LOW: u32 = 0x160C;
    /// Bind the selected constant buffer: bit 0 valid, bits 12:8 slot.
    pub const CB_BIND: u32 = 0x1694;
    /// Invalidate the instruction and constant caches.
    pub const INVALIDATE_SHADER_CACHES: u32 = 0x1698;
    /// Completion report address bits 39:32.
    pub const REPORT_ADDRESS_HIGH: u32 = 0x1B00;
    /// Completion report address bits 31:0.
    pub const REPORT_ADDRESS_LOW: u32 = 0x1B04;
    /// Completion report payload.
    pub const REPORT_SEQUENCE: u32 = 0x1B08;
    /// Completion report operation: 0 release (after the grids finish); bit 20 interrupt.
    pub const REPORT_OPERATION: u32 = 0x1B0C;
    /// Size of the selected constant buffer.
    pub const CB_SIZE: u32 = 0x2380;
    /// Selected constant buffer address bits 39:32.
    pub const CB_ADDRESS_HIGH: u32 = 0x2384;
    /// Selected constant buffer address bits 31:0.
    pub const CB_ADDRESS_LOW: u32 = 0x2388;
    /// Upload offset into the selected constant buffer.
    pub const CB_OFFSET: u32 = 0x238C;
    /// Upload data (NONINCR): written at the offset, which then advances by 4.
    pub const CB_DATA: u32 = 0x2390;
    /// Constant bank slots.
    pub const CB_SLOTS: usize = 16;
    /// Model (sanitizer): the checks of the next launches ([`crate::check::CheckMode`]).
    pub const CHECK_MODE: u32 = 0x3F00;
    /// Model (sanitizer): allocation table address bits 39:32.
    pub const CHECK_TABLE_ADDRESS_HIGH: u32 = 0x3F04;
    /// Model (sanitizer): allocation table address bits 31:0.
    pub const CHECK_TABLE_ADDRESS_LOW: u32 = 0x3F08;
    /// Model (sanitizer): report buffer address bits 39:32.
    pub const CHECK_REPORT_ADDRESS_HIGH: u32 = 0x3F0C;
    /// Model (sanitizer): report buffer address bits 31:0.
    pub const CHECK_REPORT_ADDRESS_LOW: u32 = 0x3F10;
    /// Model: the printf FIFO's address bits 39:32 ([`crate::printf`]); 0 with the low
    /// word 0: none (device printf is dropped).
    pub const PRINTF_ADDRESS_HIGH: u32 = 0x3F14;
    /// Model: the printf FIFO's address bits 31:0.
    pub const PRINTF_ADDRESS_LOW: u32 = 0x3F18;
    /// Model: the grid's width, all 32 bits, replacing GRID_DIM_XY's 16-bit x when written
    /// after it (what a Kepler-and-later launch descriptor's 31-bit grid width gives;
    /// the runtime sends it for compute capability 3.0 and later).
    pub const GRID_WIDTH: u32 = 0x3F1C;
    /// Model: the first block (flattened id, x fastest) the next LAUNCH runs. With
    /// [`GRID_BLOCK_COUNT`] it gives a launch a contiguous range of its grid's blocks
    /// (MGPUSim's work-group filter): the blocks keep their ids (`%ctaid`) and the grid its
    /// shape (`%nctaid`), and the others are not run. Both reset to 0 at LAUNCH.
    pub const GRID_FIRST_BLOCK: u32 = 0x3F20;
    /// Model: how many blocks from [`GRID_FIRST_BLOCK`] the next LAUNCH runs (0: the whole
    /// grid); a range past the grid's end is a bad launch.
    pub const GRID_BLOCK_COUNT: u32 = 0x3F24;
    /// Model: the device heap's address bits 39:32 ([`crate::heap`]); 0 with the low word 0:
    /// none (`malloc` gives NULL).
    pub const HEAP_ADDRESS_HIGH: u32 = 0x3F28;
    /// Model: the device heap's address bits 31:0.
    pub const HEAP_ADDRESS_LOW: u32 = 0x3F2C;
    /// Model: the device heap's size in bytes, bits 63:32.
    pub const HEAP_SIZE_HIGH: u32 = 0x3F30;
    /// Model: the device heap's size, bits 31:0.
    pub const HEAP_SIZE_LOW: u32 = 0x3F34;
    /// Model: which of the 32 driver-defined registers (`%envreg`, [`crate::isa::LAUNCH_ENVREG`])
    /// [`ENVREG_DATA`] writes next.
    pub const ENVREG_SELECT: u32 = 0x3F38;
    /// Model: the selected `%envreg`'s value for the next LAUNCH; the selection moves to the
    /// next register. All 32 reset to 0 at LAUNCH.
    pub const ENVREG_DATA: u32 = 0x3F3C;
    /// Bind a sampler-pool entry to a sampler slot ([`super::BindSampler`]).
    pub const BIND_TEXTURE_SAMPLER: u32 = 0x0228;
    /// Bind a header-pool entry to a texture slot ([`super::BindHeader`]).
    pub const BIND_TEXTURE_HEADER: u32 = 0x022C;
    /// Drop cached sampler entries.
    pub const INVALIDATE_SAMPLER_CACHE_NO_WFI: u32 = 0x1424;
    /// Sampler pool address bits 39:32.
    pub const SET_TEX_SAMPLER_POOL_A: u32 = 0x155C;
    /// Sampler pool address bits 31:0.
    pub const SET_TEX_SAMPLER_POOL_B: u32 = 0x1560;
    /// Sampler pool: largest valid index (bits 19:0).
    pub const SET_TEX_SAMPLER_POOL_C: u32 = 0x1564;
    /// Header pool address bits 39:32.
    pub const SET_TEX_HEADER_POOL_A: u32 = 0x1574;
    /// Header pool address bits 31:0.
    pub const SET_TEX_HEADER_POOL_B: u32 = 0x1578;
    /// Header pool: largest valid index (bits 21:0).
    pub const SET_TEX_HEADER_POOL_C: u32 = 0x157C;
    /// Model: bind a header-pool entry to a surface slot (`.surfref`), as
    /// [`BIND_TEXTURE_HEADER`] does for texture slots ([`super::BindHeader`]).
    pub const BIND_SURFACE_HEADER: u32 = 0x3F40;
    /// Thread block clusters of the next LAUNCH (model): [`super::ClusterDim`]; a LAUNCH
    /// forgets it, as GRID_FIRST_BLOCK (clusters of one block, not explicit).
    pub const CLUSTER_DIM: u32 = 0x3F44;
    /// The generic window of the next LAUNCH's clusters' shared memory (model; bits 31:0,
    /// high bits 0): [`crate::isa::CLUSTER_WINDOW_BYTES`] from its base, rank by rank; a
    /// LAUNCH forgets it.
    pub const SHARED_CLUSTER_WINDOW: u32 = 0x3F48;
    /// Texture slots (`.texref` numbers) a launch may name.
    pub const TEX_SLOTS: usize = 128;
    /// Sampler slots: one per texture slot, which a module reference uses in unified
    /// texture mode (its sampler slot is its texture slot).
    pub const SAMPLER_SLOTS: usize = 128;
    /// Surface slots (`.surfref` numbers).
    pub const SURF_SLOTS: usize = 32;
}

/// BIND_TEXTURE_HEADER (and the model's BIND_SURFACE_HEADER) data: slot `slot` names
/// header-pool entry `index` (valid), or nothing.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindHeader {
    /// Bind (else unbind).
    pub valid: bool,
    /// Texture slot.
    pub slot: B8,
    /// Header-pool index.
    pub index: B22,
    #[skip]
    __: B1,
}

/// BIND_TEXTURE_SAMPLER data: sampler slot `slot` names sampler-pool entry `index`.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindSampler {
    /// Bind (else unbind).
    pub valid: bool,
    #[skip]
    __: B3,
    /// Sampler slot.
    pub slot: B8,
    /// Sampler-pool index.
    pub index: B13,
    #[skip]
    __: B7,
}

/// LAUNCH_DMA data transfer type.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum TransferType {
    /// No transfer (semaphore only).
    None = 0,
    /// Pipelined with the previous transfer.
    Pipelined = 1,
    /// Waits for the previous transfer.
    NonPipelined = 2,
    /// Reserved.
    Invalid = 3,
}

/// LAUNCH_DMA semaphore type.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum CopySemaphore {
    /// No semaphore.
    None = 0,
    /// Write the 4-byte payload.
    OneWord = 1,
    /// Write {payload, 0, u64 timestamp}.
    FourWord = 2,
    /// Reserved.
    Invalid = 3,
}

/// LAUNCH_DMA interrupt type.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum CopyInterrupt {
    /// None.
    None = 0,
    /// Stall interrupt.
    Blocking = 1,
    /// Non-stall interrupt.
    NonBlocking = 2,
    /// Reserved.
    Invalid = 3,
}

/// LAUNCH_DMA memory layout of a surface.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 1]
pub enum Layout {
    /// Block-linear (GOBs in blocks, [`BlockSize`]).
    BlockLinear = 0,
    /// Pitch-linear.
    Pitch = 1,
}

/// LAUNCH_DMA word.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDma {
    /// Transfer type.
    pub transfer: TransferType,
    /// Flush when done.
    pub flush: bool,
    /// Semaphore to write on completion.
    pub semaphore: CopySemaphore,
    /// Interrupt to raise on completion.
    pub interrupt: CopyInterrupt,
    /// Source layout.
    pub src_layout: Layout,
    /// Destination layout.
    pub dst_layout: Layout,
    /// Copy LINE_COUNT lines with pitches (else one line).
    pub multi_line: bool,
    /// Use the remap unit (memset).
    pub remap: bool,
    #[skip]
    __: B1,
    /// The source address is physical, in the memory SET_SRC_PHYS_MODE names (Kepler's
    /// SRC_TYPE; pitch-linear copies without remapping only).
    pub src_physical: bool,
    /// The destination address is physical (SET_DST_PHYS_MODE; DST_TYPE).
    pub dst_physical: bool,
    #[skip]
    __: B18,
}

/// SET_SRC/DST_PHYS_MODE: the memory a physical copy address is in.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PhysMode {
    /// The aperture.
    pub target: PhysTarget,
    #[skip]
    __: B30,
}

/// A physical copy address's memory.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum PhysTarget {
    /// This GPU's VRAM.
    LocalFb = 0,
    /// System memory, snooped (a bus address).
    CoherentSysmem = 1,
    /// System memory, not snooped.
    NoncoherentSysmem = 2,
    /// Reserved.
    Invalid = 3,
}

/// Remap source selector.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 3]
pub enum RemapSrc {
    /// Source component X.
    SrcX = 0,
    /// Source component Y.
    SrcY = 1,
    /// Source component Z.
    SrcZ = 2,
    /// Source component W.
    SrcW = 3,
    /// Constant A.
    ConstA = 4,
    /// Constant B.
    ConstB = 5,
    /// Leave the destination byte(s) unwritten.
    NoWrite = 6,
    /// Reserved.
    Invalid = 7,
}

/// SET_REMAP_COMPONENTS word.
#[bitfield(bits = 32)]
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemapComponents {
    /// Destination X source.
    pub dst_x: RemapSrc,
    #[skip]
    __: B1,
    /// Destination Y source.
    pub dst_y: RemapSrc,
    #[skip]
    __: B1,
    /// Destination Z source.
    pub dst_z: RemapSrc,
    #[skip]
    __: B1,
    /// Destination W source.
    pub dst_w: RemapSrc,
    #[skip]
    __: B1,
    /// Component size in bytes minus one (1..4 bytes).
    pub component_size_minus_one: B2,
    #[skip]
    __: B2,
    /// Source components minus one.
    pub src_components_minus_one: B2,
    #[skip]
    __: B2,
    /// Destination components minus one.
    pub dst_components_minus_one: B2,
    #[skip]
    __: B6,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semaphored_layout() {
        let d = SemaphoreD::new().with_operation(SemOp::Release).with_release_size_4byte(true);
        assert_eq!(u32::from(d), 0x0100_0002);
        let d = SemaphoreD::new().with_operation(SemOp::AcqGeq).with_acquire_switch(true);
        assert_eq!(u32::from(d), 0x1004);
        assert_eq!(u32::from(SemaphoreD::new().with_release_wfi_disable(true)), 1 << 20);
    }

    #[test]
    fn launch_dma_layout() {
        let l = LaunchDma::new()
            .with_transfer(TransferType::NonPipelined)
            .with_semaphore(CopySemaphore::FourWord)
            .with_interrupt(CopyInterrupt::NonBlocking)
            .with_src_layout(Layout::Pitch)
            .with_dst_layout(Layout::Pitch)
            .with_multi_line(true)
            .with_remap(true);
        assert_eq!(u32::from(l), 2 | (2 << 3) | (2 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10));
    }

    #[test]
    fn remap_layout() {
        let r = RemapComponents::new()
            .with_dst_x(RemapSrc::ConstA)
            .with_dst_y(RemapSrc::NoWrite)
            .with_component_size_minus_one(3)
            .with_dst_components_minus_one(0);
        assert_eq!(u32::from(r), 4 | (6 << 4) | (3 << 16));
    }

    #[test]
    fn launch_word_layouts() {
        assert_eq!(u32::from(DimXy::new().with_x(7).with_y(3)), 3 << 16 | 7);
        assert_eq!(u32::from(CbBind::new().with_valid(true).with_slot(1)), 1 << 8 | 1);
        assert_eq!(SetObject::from(0x0003_90C0).class_id() as u32, FERMI_COMPUTE_A);
        let a = 0xAB_1234_5678u64;
        assert_eq!(addr40::split(a), [0xAB, 0x1234_5678]);
        assert_eq!(addr40::with_lo(addr40::with_hi(0, addr40::hi(a)), addr40::lo(a)), a);
        assert_eq!(addr40::with_hi(a, 0x1FF), 0xFF_1234_5678);
    }
}
