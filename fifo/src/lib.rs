//! # fifo — the command path shared by driver and device
//!
//! - [`ring`]: GET/PUT ring arithmetic (GPFIFO and pushbuffer rings; one slot kept empty).
//! - [`push`]: the driver's pushbuffer writer (INCR, NONINCR, IMMD, INCR_ONCE) over a
//!   fixed-capacity `heapless` buffer, returning an error when full.
//! - [`read`]: the device's method-stream reader yielding (subchannel, method, data), with
//!   errors for malformed headers.
//! - [`shm`]: DMA-able memory shared by the CPU and the device. Every access is atomic, so
//!   a device thread reading what the CPU writes is synchronized, never a data race.
//!
//! Formats (method header, GPFIFO entry) come from [`hw::cmd`].
#![no_std]
// Unsafe code: only `shm` (memory a program registers, seen as shared memory).
#![deny(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod push;
pub mod read;
pub mod ring;
pub mod shm;

pub use push::{PushError, Pushbuf};
pub use read::{DecodeError, Method, MethodReader, MethodStream};
pub use ring::Ring;
pub use shm::{OutOfRange, SharedMem};
