//! # runtime-core — the rgdev GPU runtime
//!
//! A Gdev-style runtime with CUDA Driver API semantics, written against the [`Platform`]
//! traits (MALLOC/PRINTF/YIELD and friends) so that the same code links into user-space
//! programs and builds as a kernel-side library. It talks to the GPU only through PCI
//! configuration space, 32-bit MMIO and DMA-able memory, exactly as a driver would.
//!
//! The layers, each naming only those below it:
//!
//! 1. [`platform`] (bus and host services), [`error`], [`range`] (O(log n) allocators),
//!    [`limits`] (CUDA's numbers), [`physmem`] (the VMM API's physical allocations);
//! 2. [`device`]: probe, typed registers, PRAMIN, VRAM, TLB, channels and the runlist,
//!    interrupts;
//! 3. [`vm`]: page directories and tables in VRAM, BAR1;
//! 4. [`channel`]: GPFIFO and pushbuffer rings, the doorbell, u64 fences; [`check`]: the
//!    sanitizers' table and report buffer;
//! 5. [`context`]: one context's allocations, copies, modules, launches, streams, events;
//! 6. [`api`]: [`Gpu`], the handle table (contexts and their objects) and the CUDA-shaped calls;
//! 7. [`uvm`]: unified memory as a driver service over a system's GPUs — host memory mapped
//!    on demand, managed memory paged between the host and the GPUs (advice, residency,
//!    migration, eviction, prefetch, write-back), the fault service;
//! 8. [`system`]: the system of GPUs above them — peer access between contexts of
//!    different GPUs, copies between GPUs.
//!
//! Errors are [`CuError`], numbered like `CUresult`.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod api;
pub mod channel;
pub mod check;
pub mod context;
pub mod device;
pub mod error;
pub mod limits;
pub mod logical;
pub mod physmem;
pub mod platform;
pub mod range;
pub mod system;
pub mod uvm;
pub mod vm;

pub use api::module::{FuncAttributes, FuncHandle, LaunchId, ModuleHandle};
pub use api::stream::EventHandle;
pub use api::texref::{Pitch2DMem, TexRefHandle};
pub use api::texture::{ArrayHandle, CopySide, MipmappedHandle};
pub use api::{CtxHandle, Gpu, MAX_ORDINALS, ordinal_of};
pub use channel::Fence;
pub use check::{CheckMode, CheckReport};
pub use context::memory::{MemsetValue, Pitched};
pub use context::module::{ImageKind, LaunchConfig, Params, image_kind};
pub use context::stream::StreamHandle;
pub use context::texref::{RefBinding, RefState};
pub use context::texture::{ArrayDesc, Format, Resource, TRSF_ALL, TexDesc};
pub use context::vmm::Access;
pub use context::{ContextConfig, VA_BASE};
pub use device::{Chipset, Device, DeviceInfo, Watch};
pub use error::{CuError, Result};
pub use logical::LogicalGpu;
pub use platform::{Activity, DmaBuffer, Level, Platform};
