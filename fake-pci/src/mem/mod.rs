//! The memory side of the chip: VRAM, system memory reached by DMA, the MMU and its TLB
//! (which turns a channel's virtual addresses into one of these), the peer port (other
//! GPUs' VRAM through the peer table, lent by the machine), and initcheck's shadow of
//! written bytes, and the gate the machine closes on memory other GPUs reach while each GPU
//! runs alone. Memory knows nothing of the engines that use it (the sanitizer and the
//! compute engine name it, never the reverse: `tests/layering.rs`).

pub mod gate;
pub mod mmu;
pub mod peer;
pub mod shadow;
pub mod sysmem;
pub mod vram;
