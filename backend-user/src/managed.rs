//! A system's contexts through the Rust API — peer access between GPUs
//! ([`System::enable_peer_access`], [`System::copy_peer`]) — and managed memory: what `cudaMallocManaged` gives a program, on a
//! [`System`] that serves unified memory ([`System::with_unified_memory`]). One pointer
//! for the host and every GPU; on devices of compute capability 6.0 and later its pages
//! migrate to the GPU whose kernel touches them, by runtime-core's `uvm` — the same
//! service `libcuda` uses — and come home when the host reads or writes them; advice and
//! prefetches act as `cuMemAdvise` and `cuMemPrefetchAsync` do.

use crate::{Arg, Context, CtxInner, Result, System, UserUvm};
use bytemuck::Pod;
use runtime_core::uvm::Adv;
use runtime_core::{ContextConfig, CuError};
use std::marker::PhantomData;
use std::sync::Arc;

/// A place managed memory may live or be reached from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// The host (CU_DEVICE_CPU).
    Host,
    /// GPU `i` of the system.
    Gpu(usize),
}

impl Location {
    /// CUDA's device number: -1 the host.
    fn device(self) -> i32 {
        match self {
            Location::Host => -1,
            Location::Gpu(i) => i as i32,
        }
    }
}

/// Advice for a range of managed memory, as `cuMemAdvise` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// CU_MEM_ADVISE_SET_READ_MOSTLY (true) or UNSET (false): a GPU's read gets a
    /// read-only copy and the page stays where it is; a write drops the copies.
    ReadMostly(bool),
    /// CU_MEM_ADVISE_SET_PREFERRED_LOCATION (`Some`) or UNSET (`None`): faults elsewhere
    /// map the page where it lives rather than move it.
    PreferredLocation(Option<Location>),
    /// CU_MEM_ADVISE_SET_ACCESSED_BY (true) or UNSET (false): the place keeps the page
    /// mapped wherever it lives.
    AccessedBy(Location, bool),
}

impl Advice {
    /// Change one page's advice.
    fn apply(self, a: &mut Adv) {
        match self {
            Advice::ReadMostly(on) => a.read_mostly = on,
            Advice::PreferredLocation(l) => a.preferred = l.map_or(-2, Location::device),
            Advice::AccessedBy(l, on) => {
                let bit = 1u32 << (l.device() + 1).clamp(0, 31);
                a.accessed_by = if on { a.accessed_by | bit } else { a.accessed_by & !bit };
            }
        }
    }
}

impl System {
    /// A context on GPU `i` that the system's unified memory knows: paged managed memory
    /// finds its page tables, managed memory that is not paged is mapped into it, and the
    /// memory it owns is freed when it goes.
    pub fn create_context(&self, i: usize) -> Result<Context> {
        let dev = self.device(i).ok_or(CuError::InvalidDevice)?;
        let gpu = dev.gpu().clone();
        let h = gpu.ctx_create_with(&ContextConfig::default())?;
        if let Some(u) = self.uvm() {
            u.context_created(&gpu, h);
        }
        let peers = Some(self.peers().clone());
        Ok(Context { inner: Arc::new(CtxInner { gpu, h, uvm: self.uvm().cloned(), peers }) })
    }

    /// cuCtxEnablePeerAccess: context `from` (made by [`System::create_context`]) may reach
    /// the device memory of `to`, on another GPU with a peer path: what it has and what it
    /// allocates later, mapped at the same pointers, reached over the link.
    pub fn enable_peer_access(&self, from: &Context, to: &Context) -> Result<()> {
        self.peers().enable(from.inner.h, to.inner.h)
    }

    /// cuCtxDisablePeerAccess: undo [`System::enable_peer_access`].
    pub fn disable_peer_access(&self, from: &Context, to: &Context) -> Result<()> {
        self.peers().disable(from.inner.h, to.inner.h)
    }

    /// cuMemcpyPeer: `bytes` from `src` of context `sc` to `dst` of context `dc`, over the
    /// link where either side has access to the other, else staged through the host;
    /// returns when it is done.
    pub fn copy_peer(&self, (dst, dc): (u64, &Context), (src, sc): (u64, &Context), bytes: usize) -> Result<()> {
        self.peers().copy((dst, dc.inner.h), (src, sc.inner.h), bytes, None, false)
    }

    /// `n` elements of `T` of managed memory owned by `ctx` (cuMemAllocManaged, attached
    /// globally): paged where the device allows (compute capability 6.0 or later and the
    /// system made with paging), else host memory mapped into every context of every GPU.
    /// CUDA_ERROR_NOT_SUPPORTED where the system serves no unified memory or the device has
    /// no unified addressing.
    pub fn alloc_managed<T: Pod>(&self, ctx: &Context, n: usize) -> Result<Managed<T>> {
        let uvm = self.uvm().ok_or(CuError::NotSupported)?.clone();
        let bytes = (n as u64).checked_mul(size_of::<T>() as u64).ok_or(CuError::InvalidValue)?;
        let (gpu, h) = (&ctx.inner.gpu, ctx.inner.h);
        let (ptr, mem) = gpu.mem_alloc_managed(h, bytes)?;
        let added = uvm.add_managed(gpu, h, ptr, mem.clone(), runtime_core::uvm::ManagedKind::Alloc);
        let m = Managed { ctx: ctx.inner.clone(), uvm, ptr, mem, len: n, _t: PhantomData };
        added.map(|()| m)
    }
}

/// Managed memory: one pointer for the host and every GPU of a system. Host access
/// ([`Managed::write`], [`Managed::read`]) brings the pages home first, as a host access
/// after synchronization finds them on the host. Freed on drop.
pub struct Managed<T: Pod> {
    ctx: Arc<CtxInner>,
    uvm: Arc<UserUvm>,
    ptr: u64,
    mem: Arc<fifo::SharedMem>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> Managed<T> {
    /// The pointer kernels, copies and the host use.
    pub fn ptr(&self) -> u64 {
        self.ptr
    }

    /// This memory as a kernel argument.
    pub fn arg(&self) -> Arg<'static> {
        Arg::Ptr(self.ptr)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Byte range of elements `[first, first + count)`, checked.
    fn span(&self, first: usize, count: usize) -> Result<(u64, u64)> {
        match first.checked_add(count) {
            Some(end) if end <= self.len && count > 0 => {
                Ok((self.ptr + (first * size_of::<T>()) as u64, (count * size_of::<T>()) as u64))
            }
            _ => Err(CuError::InvalidValue),
        }
    }

    /// Write `src` at the start, from the host (the pages come home first).
    pub fn write(&self, src: &[T]) -> Result<()> {
        if src.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.uvm.to_host_all();
        self.mem.write(0, bytemuck::cast_slice(src)).map_err(|_| CuError::InvalidValue)
    }

    /// Read the start into `dst`, from the host (the pages come home first). Synchronize
    /// with the kernels that write it first, as CUDA requires.
    pub fn read(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() > self.len {
            return Err(CuError::InvalidValue);
        }
        self.uvm.to_host_all();
        self.mem.read(0, bytemuck::cast_slice_mut(dst)).map_err(|_| CuError::InvalidValue)
    }

    /// The whole memory as a vector, from the host.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.read(&mut v)?;
        Ok(v)
    }

    /// cuMemAdvise on elements `[first, first + count)`: `advice` for each of their pages.
    pub fn advise(&self, first: usize, count: usize, advice: Advice) -> Result<()> {
        let (p, n) = self.span(first, count)?;
        self.uvm.advise(p, n, |a| advice.apply(a));
        Ok(())
    }

    /// cuMemPrefetchAsync of the whole memory to `to`, now: to a GPU (mapped in the
    /// owning context when it is that GPU's), or home to the host.
    pub fn prefetch(&self, to: Location) -> Result<()> {
        let (p, n) = self.span(0, self.len)?;
        let own = runtime_core::ordinal_of(self.ctx.h.0) as usize;
        let to = match to {
            Location::Host => None,
            Location::Gpu(g) => Some((g, (g == own).then_some(self.ctx.h))),
        };
        self.uvm.prefetch(p, n, to);
        Ok(())
    }

    /// Where the page of element `i` lives now; None where the memory is not paged.
    pub fn location(&self, i: usize) -> Option<Location> {
        let (p, _) = self.span(i, 1).ok()?;
        self.uvm.location(p).map(|on| on.map_or(Location::Host, Location::Gpu))
    }
}

impl<T: Pod> Drop for Managed<T> {
    fn drop(&mut self) {
        self.uvm.remove(self.ptr);
        let _ = self.ctx.gpu.mem_free_host(self.ctx.h, self.ptr);
    }
}
