//! # libcuda.so.1 for rgdev
//!
//! The CUDA Driver API as a C ABI over the in-process simulated GPU: build a program
//! against `backend-user/include/cuda.h`, link `-L target/release -lcuda`, and it runs on
//! rgdev. Symbols carry CUDA's versioned names (`cuMemAlloc_v2`, ...), as NVIDIA's header
//! maps them.
//!
//! Handles are runtime-core's handle values (never dereferenced; the runtime keeps the one
//! handle table), so a stale or forged handle is CUDA_ERROR_INVALID_HANDLE /
//! INVALID_CONTEXT, never a crash.
//! Every entry point checks its pointers for NULL, runs inside `catch_unwind` (a Rust panic
//! becomes CUDA_ERROR_UNKNOWN instead of unwinding into C), and returns CUDA's code.
//! Pointer access lives in one module, `raw`.
//!
//! Every GPU of the system `RGDEV_PRESET` names (one by default), each with its primary
//! context, CUDA's per-thread context stack, and peer access between GPUs the topology
//! connects.
//! Work is ordered per context (the legacy default stream): a device-to-host copy after a
//! launch waits for the kernel. Entry points exported but not implemented return
//! CUDA_ERROR_NOT_SUPPORTED; the README lists them.
#![deny(missing_docs)]
#![allow(non_snake_case, clippy::missing_safety_doc, clippy::not_unsafe_ptr_arg_deref, clippy::too_many_arguments)]

// One module per API area of CUDA's Driver API reference.
mod context; // contexts, the context stack, primary contexts
mod copy3d; // pitched copies: cuMemcpy2D, cuMemcpy3D
mod demand; // the system's unified-memory service (runtime-core's uvm), reached without the library lock
mod device; // devices and their attributes
mod event; // events
mod init; // cuInit, versions, error strings
mod launch; // function attributes and launches
mod legacy; // the legacy unversioned entry points: old semantics, and the 32-bit ABI
mod link; // the device linker (cuLink*)
mod managed; // managed memory, advice and prefetches, the private export table
mod memory; // allocations, copies, memsets, pinned host memory
mod module; // modules, functions, globals
mod occupancy; // the occupancy calculator
mod peer; // peer access between the GPUs of a system, peer copies (runtime-core's system::Peers)
mod pointer; // pointer attributes
mod procaddr; // cuGetProcAddress and the legacy unversioned entry points
use backend_user::profile; // the statistics and trace files written at exit
mod stream; // streams
mod texref; // texture and surface references (the legacy binding API)
mod texture; // arrays, texture and surface objects, copies with arrays
pub mod unsupported; // exported entry points that return CUDA_ERROR_NOT_SUPPORTED
mod vmm; // virtual memory management: physical allocations, reservations, mappings
// The library's own plumbing.
mod apitrace; // the host side of the trace: the C ABI's calls, NVTX ranges
mod enums; // CUDA's enums, declared once and checked against include/cuda.h
mod raw; // every access through a caller's pointer
mod sanitize; // RGDEV_CHECK
mod state; // the process-wide state (primary context, pinned host memory) and the entry-point guard

// The entry points, at the crate root as the linker sees them.
pub use context::*;
pub use copy3d::*;
pub use device::*;
pub use event::*;
pub use init::*;
pub use launch::*;
pub use legacy::*;
pub use link::*;
pub use memory::*;
pub use module::*;
pub use occupancy::*;
pub use peer::*;
pub use stream::*;
pub use texref::*;
pub use texture::*;
pub use vmm::*;

use std::ffi::{c_int, c_void};

/// `CUresult`: 0 on success, else a CUDA error number.
pub type CUresult = c_int;
/// `CUdevice`: a device ordinal.
pub type CUdevice = c_int;
/// `CUdeviceptr`: a device virtual address.
pub type CUdeviceptr = u64;
/// An opaque handle (`CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUevent`).
pub type Handle = *mut c_void;

/// The driver version reported: CUDA 12.9's Driver API, whose declarations rgdev's cuda.h has.
pub const DRIVER_VERSION: c_int = 12090;
