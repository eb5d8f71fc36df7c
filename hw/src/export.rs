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

/// The id of rgdev's table.
pub const RGDEV_EXPORT_TABLE_ID: [u8; 16] = *b"rgdev:exports:01";
