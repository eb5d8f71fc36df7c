//! The device heap (model): what device-side `malloc` and `free` allocate from, one region
//! of device memory per context, CU_LIMIT_MALLOC_HEAP_SIZE bytes (8 MiB unless changed
//! before the first launch that needs it). The runtime allocates it and zeroes its header
//! (an all-zero header is an empty heap); the compute-class methods
//! [`HEAP_ADDRESS_HIGH`](crate::class::compute::HEAP_ADDRESS_HIGH) and after it name it for
//! each launch; the `HEAP` instruction ([`crate::isa::Op::Heap`]) allocates and frees.
//!
//! Layout: a [`HEADER`]-byte header, then blocks. The header holds, as little-endian `u64`s,
//! the bytes handed out from the end of the used part (offset 0) and, at `8 * k` for each
//! size class `k` of [`MIN_CLASS`]..=[`MAX_CLASS`], the heap offset of the first free block
//! of `2^k` bytes (0: none). A block is a 16-byte header (its class and [`BLOCK_MAGIC`], or
//! [`FREE_MAGIC`] when free, in the first `u64`; the next free block's offset in the
//! second) followed by the caller's bytes, so a pointer `malloc` returns is 16-byte
//! aligned. `malloc(n)` takes the smallest class that holds `n + 16` bytes: a free block of
//! it, else a larger free block split in halves, else new bytes; NULL when none remains or
//! `n` is 0. `free` puts the block on its class's list; a pointer that is not a live block
//! of the heap stops the grid (an illegal address), as NULL is a no-op.

/// Header bytes.
pub const HEADER: u64 = 512;
/// Bytes of a block's header.
pub const BLOCK_HEADER: u64 = 16;
/// The smallest class: 32-byte blocks.
pub const MIN_CLASS: u32 = 5;
/// The largest class: 2^40-byte blocks.
pub const MAX_CLASS: u32 = 40;
/// A live block's tag (bits 63:8 of its first word; bits 7:0 are the class).
pub const BLOCK_MAGIC: u64 = 0x00A1_10C0_DE00_0000;
/// A free block's tag.
pub const FREE_MAGIC: u64 = 0x00F4_EEB1_0C00_0000;
/// The heap's size unless the context set one (CUDA's default, 8 MiB).
pub const DEFAULT_BYTES: u64 = 8 << 20;
/// `HEAP` modes (m).
pub mod mode {
    /// `malloc(u64 size)`.
    pub const MALLOC: u16 = 0;
    /// `free(u64 ptr)`.
    pub const FREE: u16 = 1;
}
