//! # backend-user — rgdev in user space
//!
//! The user-space platform ([`platform::UserPlatform`]) attaches the simulated GPU
//! in-process; the safe API below wraps `runtime-core` in RAII types:
//!
//! ```
//! use backend_user::Device;
//! let dev = Device::open().unwrap();
//! let ctx = dev.create_context().unwrap();
//! let mut buf = ctx.alloc::<u32>(1024).unwrap();
//! let data: Vec<u32> = (0..1024).collect();
//! buf.copy_from(&data).unwrap();
//! let mut back = vec![0u32; 1024];
//! buf.copy_to(&mut back).unwrap();
//! assert_eq!(back, data);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod platform;

pub use fake_pci::DeviceConfig;
pub use platform::{ClockMode, SimDevice, UserPlatform};
pub use runtime_core::{ContextConfig, CtxHandle, CuError, DeviceInfo, Fence, MemsetValue, Result};

use bytemuck::Pod;
use runtime_core::Gpu;
use std::marker::PhantomData;
use std::sync::Arc;

/// The runtime type for this platform.
pub type UserGpu = Gpu<UserPlatform>;

/// How to build the simulated board.
#[derive(Clone, Debug, Default)]
pub struct DeviceOptions {
    /// Board configuration.
    pub config: DeviceConfig,
    /// Clock mode.
    pub clock: ClockMode,
    /// Record up to this many MMIO accesses from power-on (the probe included); read them
    /// with `sim().lock().trace_take()` or `trace_write`.
    pub trace: Option<usize>,
}

/// A GPU: the simulated board plus the runtime driving it.
#[derive(Clone)]
pub struct Device {
    gpu: Arc<UserGpu>,
}

impl Device {
    /// A default GF100-like board in stepped mode.
    pub fn open() -> Result<Self> {
        Self::open_with(DeviceOptions::default())
    }

    /// A board built from `opts`.
    pub fn open_with(opts: DeviceOptions) -> Result<Self> {
        let p = UserPlatform::new(opts.config, opts.clock);
        if let Some(limit) = opts.trace {
            p.device().lock().trace_start(limit);
        }
        Ok(Self { gpu: Arc::new(Gpu::probe(p)?) })
    }

    /// What the probe found.
    pub fn info(&self) -> &DeviceInfo {
        self.gpu.info()
    }

    /// The runtime (for the handle-level API).
    pub fn gpu(&self) -> &Arc<UserGpu> {
        &self.gpu
    }

    /// The simulated device (statistics, traces).
    pub fn sim(&self) -> &Arc<SimDevice> {
        self.gpu.platform().device()
    }

    /// Device time in nanoseconds (PTIMER).
    pub fn time_ns(&self) -> u64 {
        self.gpu.ptimer_ns()
    }

    /// (free, total) VRAM bytes.
    pub fn mem_info(&self) -> (u64, u64) {
        self.gpu.mem_info()
    }

    /// A context with default settings.
    pub fn create_context(&self) -> Result<Context> {
        self.create_context_with(&ContextConfig::default())
    }

    /// A context with explicit ring sizes.
    pub fn create_context_with(&self, cfg: &ContextConfig) -> Result<Context> {
        let h = self.gpu.ctx_create_with(cfg)?;
        Ok(Context { inner: Arc::new(CtxInner { gpu: self.gpu.clone(), h }) })
    }
}

struct CtxInner {
    gpu: Arc<UserGpu>,
    h: CtxHandle,
}

impl Drop for CtxInner {
    fn drop(&mut self) {
        let _ = self.gpu.ctx_destroy(self.h);
    }
}

/// A context; destroyed when the last clone (and the last buffer in it) is dropped.
#[derive(Clone)]
pub struct Context {
    inner: Arc<CtxInner>,
}

impl Context {
    /// The runtime handle.
    pub fn handle(&self) -> CtxHandle {
        self.inner.h
    }

    /// Allocate `n` elements of `T`.
    pub fn alloc<T: Pod>(&self, n: usize) -> Result<DeviceBuffer<T>> {
        let bytes = (n as u64).checked_mul(size_of::<T>() as u64).ok_or(CuError::InvalidValue)?;
        let ptr = self.inner.gpu.mem_alloc(self.inner.h, bytes)?;
        Ok(DeviceBuffer { ctx: self.inner.clone(), ptr, len: n, _t: PhantomData })
    }

    /// Wait for all work of the context.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.gpu.ctx_synchronize(self.inner.h)
    }

    /// Queue a fence.
    pub fn fence(&self) -> Result<Fence> {
        self.inner.gpu.fence_submit(self.inner.h)
    }

    /// Wait for a fence.
    pub fn wait(&self, f: Fence) -> Result<()> {
        self.inner.gpu.fence_wait(self.inner.h, f)
    }
}

/// Device memory holding `len` elements of `T`, freed on drop.
pub struct DeviceBuffer<T: Pod> {
    ctx: Arc<CtxInner>,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    /// The device pointer.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copy `src` to the start of the buffer.
    pub fn copy_from(&mut self, src: &[T]) -> Result<()> {
        if src.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.ctx.gpu.memcpy_htod(self.ctx.h, self.ptr, bytemuck::cast_slice(src))
    }

    /// Copy the start of the buffer to `dst`.
    pub fn copy_to(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.ctx.gpu.memcpy_dtoh(self.ctx.h, bytemuck::cast_slice_mut(dst), self.ptr)
    }

    /// Copy all of `other` into the start of this buffer, on the device.
    pub fn copy_from_device(&mut self, other: &DeviceBuffer<T>) -> Result<()> {
        if other.len > self.len {
            return Err(CuError::InvalidValue);
        }
        let bytes = (other.len * size_of::<T>()) as u64;
        self.ctx.gpu.memcpy_dtod(self.ctx.h, self.ptr, other.ptr, bytes)
    }

    /// The whole buffer as a host vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to(&mut v)?;
        Ok(v)
    }
}

impl DeviceBuffer<u8> {
    /// Set every byte (asynchronous).
    pub fn fill(&mut self, v: u8) -> Result<Fence> {
        self.ctx.gpu.memset(self.ctx.h, self.ptr, MemsetValue::U8(v), self.len as u64)
    }
}

impl DeviceBuffer<u16> {
    /// Set every element (asynchronous).
    pub fn fill(&mut self, v: u16) -> Result<Fence> {
        self.ctx.gpu.memset(self.ctx.h, self.ptr, MemsetValue::U16(v), self.len as u64)
    }
}

impl DeviceBuffer<u32> {
    /// Set every element (asynchronous).
    pub fn fill(&mut self, v: u32) -> Result<Fence> {
        self.ctx.gpu.memset(self.ctx.h, self.ptr, MemsetValue::U32(v), self.len as u64)
    }
}

impl<T: Pod> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Err(e) = self.ctx.gpu.mem_free(self.ctx.h, self.ptr) {
            runtime_core::rlog!(self.ctx.gpu.platform(), runtime_core::Level::Warn, "freeing {:#x}: {e}", self.ptr);
        }
    }
}
