//! # runtime-core — the rgdev GPU runtime
//!
//! A Gdev-style runtime with CUDA Driver API semantics, written against the [`Platform`]
//! traits (MALLOC/PRINTF/YIELD and friends) so that the same code links into user-space
//! programs and builds as a kernel-side library. It talks to the GPU only through PCI
//! configuration space, 32-bit MMIO and DMA-able memory, exactly as a driver would:
//!
//! - [`gpu`]: probe (config space, BAR sizing, NV_PMC_BOOT_0), bring-up, PRAMIN, BAR1,
//!   USERD, the runlist, interrupt service and the context table.
//! - [`vm`]: page directories and tables in VRAM; [`range`]: O(log n) address allocators.
//! - [`channel`]: GPFIFO and pushbuffer rings, the doorbell, u64 fences.
//! - [`context`]: contexts, allocations, copies and memsets through the copy engine.
//!
//! Errors are [`CuError`], numbered like `CUresult`.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod channel;
pub mod check;
pub mod context;
pub mod device;
pub mod error;
pub mod gpu;
pub mod module;
pub mod platform;
pub mod range;
pub mod stream;
pub mod vm;

pub use channel::Fence;
pub use check::{CheckMode, CheckReport};
pub use context::{ContextConfig, MemsetValue, VA_BASE};
pub use device::{Chipset, Device, DeviceInfo};
pub use error::{CuError, Result};
pub use gpu::{CtxHandle, Gpu};
pub use module::{FuncAttributes, FuncHandle, ImageKind, LaunchId, ModuleHandle, image_kind};
pub use platform::{Activity, DmaBuffer, Level, Platform};
pub use stream::{EventHandle, StreamHandle};
