//! Platform traits in the spirit of Gdev's MALLOC/PRINTF/YIELD: everything the runtime
//! needs from its surroundings, so the same code links into a user-space program and
//! builds as a kernel-side library.
//!
//! - MALLOC: the `alloc` crate's global allocator, which the platform installs.
//! - PRINTF: [`Platform::log`].
//! - YIELD: [`Platform::yield_now`] — in a stepped simulation this advances the device.
//! - LOCK: [`Platform::RawMutex`], any `lock_api` raw mutex (spin locks in a kernel).
//! - DMA-able memory: [`Platform::dma_alloc`] / [`Platform::dma_free`].
//! - Bus access: PCI configuration space and 32-bit MMIO at bus addresses.
//! - COPY_FROM_USER / COPY_TO_USER: [`Platform::copy_from_user`] / [`Platform::copy_to_user`].
//!
//! There is deliberately no host clock: the runtime knows only device time (PTIMER), so
//! no result or error can depend on how fast the host simulates (the device's watchdog
//! counts simulated cycles).

use crate::error::Result;
use alloc::sync::Arc;
use core::fmt;
use fifo::SharedMem;

/// Log severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Something failed.
    Error,
    /// Something is off.
    Warn,
    /// Notable events.
    Info,
    /// Details.
    Debug,
}

/// What a yield achieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// The device may have progressed.
    Progress,
    /// The platform knows the device has nothing left to do: a condition not met now will
    /// never be met without new work (a simulated device in stepped mode).
    Idle,
}

/// DMA-able system memory: shared with the device at bus address `bus`.
#[derive(Clone, Debug)]
pub struct DmaBuffer {
    /// The memory, accessed atomically by both sides.
    pub mem: Arc<SharedMem>,
    /// Bus address the device uses (4 KiB aligned).
    pub bus: u64,
}

impl DmaBuffer {
    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.mem.len()
    }
    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.mem.is_empty()
    }
}

/// Where the output of a kernel's `printf` and failed `assert` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceOutput {
    /// `printf`: the program's standard output.
    Stdout,
    /// A failed `assert`: standard error.
    Stderr,
}

/// Everything the runtime needs from its environment.
pub trait Platform: Send + Sync + 'static {
    /// The lock used for all runtime state (LOCK).
    type RawMutex: lock_api::RawMutex + Send + Sync;

    /// PRINTF.
    fn log(&self, level: Level, args: fmt::Arguments<'_>);

    /// Write what kernels printed (device `printf`, failed `assert`s), flushed at a
    /// synchronization point. The default logs it at Info level.
    fn device_output(&self, to: DeviceOutput, bytes: &[u8]) {
        let _ = to;
        self.log(Level::Info, format_args!("{}", alloc::string::String::from_utf8_lossy(bytes).trim_end()));
    }

    /// YIELD: let the device (and other threads) run while the runtime waits.
    fn yield_now(&self) -> Activity;

    /// A poll (a stream or event query that found the work pending): the time a query
    /// costs the host, in which the device runs on. Where the device only runs when the
    /// host waits (a stepped clock), this is what lets a program that polls in a loop
    /// progress, by a small deterministic amount of simulated time per poll. The default
    /// is a YIELD.
    fn poll(&self) {
        let _ = self.yield_now();
    }

    /// Let other host threads run without advancing the device: what a wait does while
    /// another thread runs a host function (the device stands still until it returns,
    /// which may take the host a long time). The default spins.
    fn relax(&self) {
        core::hint::spin_loop();
    }

    /// Allocate `len` bytes (rounded up to 4 KiB) of zeroed DMA-able memory.
    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer>;

    /// Make memory the host already has (`mem`, whole 4 KiB pages a program registers:
    /// cuMemHostRegister) DMA-able. Platforms that cannot pin a program's pages answer
    /// CUDA_ERROR_NOT_SUPPORTED. Released with [`Platform::dma_free`].
    fn dma_register(&self, mem: Arc<SharedMem>) -> Result<DmaBuffer> {
        let _ = mem;
        Err(crate::CuError::NotSupported)
    }

    /// Release DMA memory obtained from [`Platform::dma_alloc`],
    /// [`Platform::dma_alloc_at`] or [`Platform::dma_register`].
    fn dma_free(&self, buf: &DmaBuffer);

    /// Unified virtual addressing: the process-wide range device pointers come from, which
    /// the platform has reserved in the host's address space, so that no host pointer is
    /// ever a device pointer; every context of every device shares it. A platform that
    /// gives one also places pinned host memory at its device address
    /// ([`Platform::dma_alloc_at`]). `None` (the default): each context has a range of its
    /// own, and device and host addresses may coincide.
    fn unified_va(&self) -> Option<crate::range::SharedVa> {
        None
    }

    /// Pinned host memory at host address `va`, `len` bytes (whole pages) of the unified
    /// range that the caller has taken from [`Platform::unified_va`]: the program's host
    /// pointer is then its device pointer. The range goes back to the unified allocator
    /// when the memory is gone (the last [`SharedMem`] reference dropped after
    /// [`Platform::dma_free`]), not before, so that it cannot be handed out while the old
    /// memory is still mapped.
    fn dma_alloc_at(&self, va: u64, len: usize) -> Result<DmaBuffer> {
        let _ = (va, len);
        Err(crate::CuError::NotSupported)
    }

    /// PCI configuration read.
    fn cfg_read32(&self, off: u16) -> u32;

    /// PCI configuration write.
    fn cfg_write32(&self, off: u16, value: u32);

    /// 32-bit MMIO read at a bus address.
    fn mmio_read32(&self, addr: u64) -> u32;

    /// 32-bit MMIO write at a bus address.
    fn mmio_write32(&self, addr: u64, value: u32);

    /// COPY_FROM_USER: fill `dst` from the caller's buffer `src`.
    fn copy_from_user(&self, dst: &SharedMem, dst_off: usize, src: &[u8]) -> Result<()> {
        dst.write(dst_off, src).map_err(|_| crate::CuError::InvalidValue)
    }

    /// COPY_TO_USER: fill the caller's buffer `dst` from `src`.
    fn copy_to_user(&self, dst: &mut [u8], src: &SharedMem, src_off: usize) -> Result<()> {
        src.read(src_off, dst).map_err(|_| crate::CuError::InvalidValue)
    }
}

/// Log through a platform: `rlog!(platform, Level::Info, "x = {}", x)`.
#[macro_export]
macro_rules! rlog {
    ($p:expr, $lvl:expr, $($arg:tt)*) => {
        $crate::platform::Platform::log($p, $lvl, format_args!($($arg)*))
    };
}
