//! libcudart.so.12 for rgdev: the CUDA Runtime API (`cudaMalloc`, `kernel<<<...>>>`)
//! built on the Driver API, as Gdev's design has it. It opens rgdev's libcuda.so.1 and
//! resolves every entry point through `cuGetProcAddress`, as NVIDIA's runtime does, so
//! the runtime API's primary context is the Driver API's and programs may mix both.
//!
//! Modules, one per area of the API: [`device`], [`memory`], [`pitched`] (2D and 3D
//! memory), [`texture`] (arrays, texture and surface objects), [`stream`] (streams and
//! events), [`launch`] (what compilers register and `<<<>>>`), over [`state`] (the
//! current device, primary contexts, registrations), [`error`] (codes and the last
//! error) and [`driver`]; [`unsupported`] exports the rest of CUDA 12.9's table; the fat-binary container is `ptx::fatbin`. docs/runtime-api.md
//! says what is implemented.
#![deny(missing_docs)]
#![allow(non_snake_case, clippy::not_unsafe_ptr_arg_deref, clippy::too_many_arguments)]

pub mod device;
pub mod driver;
pub mod error;
pub mod launch;
pub mod managed;
pub mod memory;
pub mod pitched;
mod raw;
pub mod state;
pub mod stream;
pub mod texture;
pub mod unsupported;

use error::{Status, codes::cudaErrorUnknown};

/// Run one API call: its error (or cudaErrorUnknown for a panic, which never crosses
/// into C) becomes the thread's last error.
pub(crate) fn api(f: impl FnOnce() -> Result<(), Status>) -> Status {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(Err(cudaErrorUnknown));
    error::record(r.err().unwrap_or(error::codes::cudaSuccess))
}

/// Store `v` through an output pointer (cudaErrorInvalidValue for NULL).
pub(crate) fn put<T>(p: *mut T, v: T) -> Result<(), Status> {
    if raw::put(p, v) { Ok(()) } else { Err(error::codes::cudaErrorInvalidValue) }
}
