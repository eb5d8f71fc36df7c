//! The virtual memory management API (cuMemCreate, cuMemAddressReserve, cuMemMap,
//! cuMemSetAccess, ...): physical allocations are the device's ([`crate::physmem`]);
//! reservations and mappings belong to a context's address space
//! ([`crate::context::vmm`]). Sizes, offsets and addresses are multiples of
//! [`Gpu::VMM_GRANULARITY`], the small page: the MMU maps nothing finer.

use super::{CtxHandle, Gpu};
use crate::context::vmm::Access;
use crate::error::{CuError, Result};
use crate::physmem::Count;
use crate::platform::Platform;
use hw::mmu::{BIG_PAGE_SIZE, PAGE_SIZE};

/// Whether `v` is a multiple of the VMM granularity.
fn aligned(v: u64) -> bool {
    v.is_multiple_of(PAGE_SIZE)
}

/// A non-empty size in whole granules: else INVALID_VALUE.
fn granules(bytes: u64) -> Result<()> {
    if bytes != 0 && aligned(bytes) { Ok(()) } else { Err(CuError::InvalidValue) }
}

impl<P: Platform> Gpu<P> {
    /// CU_MEM_ALLOC_GRANULARITY_MINIMUM: the small page.
    pub const VMM_GRANULARITY: u64 = PAGE_SIZE;
    /// CU_MEM_ALLOC_GRANULARITY_RECOMMENDED: the big page.
    pub const VMM_GRANULARITY_RECOMMENDED: u64 = BIG_PAGE_SIZE;

    /// Allocate `bytes` of VRAM as a physical allocation (cuMemCreate); returns its handle.
    pub fn mem_create(&self, bytes: u64) -> Result<u64> {
        granules(bytes)?;
        self.dev.phys_create(bytes)
    }

    /// Release a handle reference (cuMemRelease): the memory goes when no handle
    /// reference and no mapping is left.
    pub fn mem_release(&self, handle: u64) -> Result<()> {
        self.dev.phys_count(handle, Count::Release)
    }

    /// The size of physical allocation `handle`.
    pub fn mem_handle_size(&self, handle: u64) -> Result<u64> {
        self.dev.phys_of(handle).map(|(_, bytes)| bytes)
    }

    /// Reserve `bytes` of context `h`'s address space aligned to `align` (0: the
    /// granularity), at `hint` if that range is free (cuMemAddressReserve).
    pub fn mem_reserve(&self, h: CtxHandle, bytes: u64, align: u64, hint: u64) -> Result<u64> {
        granules(bytes)?;
        let align = align.max(PAGE_SIZE);
        if !align.is_power_of_two() {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |_, c| c.va_reserve(bytes, align, hint))
    }

    /// Free a whole reservation in which nothing is mapped (cuMemAddressFree).
    pub fn mem_reserve_free(&self, h: CtxHandle, va: u64, bytes: u64) -> Result<()> {
        self.with_ctx(h, |_, c| c.va_unreserve(va, bytes))
    }

    /// Map `[va, va + bytes)` of a reservation to allocation `handle` from `offset`
    /// (cuMemMap); nothing may access it before [`Gpu::mem_set_access`].
    pub fn mem_map(&self, h: CtxHandle, va: u64, bytes: u64, offset: u64, handle: u64) -> Result<()> {
        granules(bytes)?;
        if !aligned(va) || !aligned(offset) {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.map_phys(gpu, va, bytes, offset, handle))
    }

    /// Undo the whole mappings in `[va, va + bytes)` (cuMemUnmap), after the context's
    /// queued work.
    pub fn mem_unmap(&self, h: CtxHandle, va: u64, bytes: u64) -> Result<()> {
        self.ctx_synchronize(h)?;
        self.with_ctx(h, |gpu, c| c.unmap_phys(gpu, va, bytes))
    }

    /// Grant `access` to the whole mappings in `[va, va + bytes)` (cuMemSetAccess), after
    /// the context's queued work (no kernel sees its PTEs change under it).
    pub fn mem_set_access(&self, h: CtxHandle, va: u64, bytes: u64, access: Access) -> Result<()> {
        self.ctx_synchronize(h)?;
        self.with_ctx(h, |gpu, c| c.set_access(gpu, va, bytes, access))
    }

    /// [`Gpu::mem_set_access`] without waiting for the context's work: for a replayable
    /// fault handler, whose faulting accesses are parked until it returns (waiting for
    /// them would never end).
    pub fn mem_set_access_now(&self, h: CtxHandle, va: u64, bytes: u64, access: Access) -> Result<()> {
        self.with_ctx(h, |gpu, c| c.set_access(gpu, va, bytes, access))
    }

    /// The access the mapping at `va` grants (cuMemGetAccess).
    pub fn mem_access(&self, h: CtxHandle, va: u64) -> Result<Access> {
        self.with_ctx(h, |_, c| c.mapping_at(va).map(|m| m.access))
    }

    /// The handle of the allocation mapped at `va`, with a new handle reference
    /// (cuMemRetainAllocationHandle).
    pub fn mem_retain_handle(&self, h: CtxHandle, va: u64) -> Result<u64> {
        let handle = self.with_ctx(h, |_, c| c.mapping_at(va).map(|m| m.handle))?;
        self.dev.phys_count(handle, Count::Retain)?;
        Ok(handle)
    }
}
