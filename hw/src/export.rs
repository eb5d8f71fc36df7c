//! The private interface between rgdev's libcudart and libcuda, found the way NVIDIA's
//! runtime finds its driver's: `cuGetExportTable` with a table id (a 16-byte UUID).
//! The table is a C struct: its size in bytes (a `usize`), then function pointers in this
//! order:
//!
//! 1. `CUresult map_managed_data(void *p, size_t bytes, CUdeviceptr *dptr)`: map the
//!    program's pages holding `[p, p + bytes)` (its `__managed__` variables, which a
//!    compiler without managed-memory support leaves in the program's data) into the
//!    current context for as long as it lives, at their host address when the context's
//!    fixed window has it free; `*dptr` is the device address of `p`. Mapping the same
//!    range again returns the same address.
//! 2. `CUresult module_load_placed(CUmodule *m, const void *image, unsigned n,
//!    const char *const *names, const CUdeviceptr *addrs)`: cuModuleLoadData with the
//!    `n` `.global` variables `names` placed at `addrs` instead of the module's segment.
//! 3. `int64_t nvtx_event(uint32_t op, const char *msg, uint64_t id)`: an NVTX event of
//!    the calling thread for the trace (rgdev's libnvToolsExt.so.1 calls it): `op` 0 push a
//!    range named `msg` (returns its 0-based depth), 1 pop (the popped range's depth, -1
//!    with none open), 2 a mark, 3 start a range (returns its id, not 0), 4 end range `id`,
//!    5 name the thread `msg`. Returns -2 while no trace is being recorded.

/// The NVTX operations of the table's third entry.
pub mod nvtx {
    /// Push a range.
    pub const PUSH: u32 = 0;
    /// Pop a range.
    pub const POP: u32 = 1;
    /// A mark.
    pub const MARK: u32 = 2;
    /// Start a range (returns its id).
    pub const START: u32 = 3;
    /// End a range by id.
    pub const END: u32 = 4;
    /// Name the calling thread.
    pub const NAME_THREAD: u32 = 5;
}

/// The id of rgdev's table.
pub const RGDEV_EXPORT_TABLE_ID: [u8; 16] = *b"rgdev:exports:01";
