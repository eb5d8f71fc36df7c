//! The virtual memory management API on one context's address space: reservations of
//! virtual addresses, mappings of the device's physical allocations ([`crate::physmem`])
//! into them, and access flags written into the PTEs: no access leaves the PTEs invalid,
//! read access makes them read-only (the MMU faults a write), read-write makes them
//! writable. A mapping starts with no access, as cuMemMap's does until cuMemSetAccess.
//!
//! Mappings are allocations of the program's (copies, pointer attributes and the
//! sanitizers see them) that cuMemFree refuses.

use super::Inner;
pub use super::memory::Access;
use super::memory::{Alloc, Backing, Mapping, Owner};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::physmem::Count;
use crate::platform::Platform;
use alloc::vec::Vec;
use hw::regs::Target;

impl Inner {
    /// Reserve `bytes` of address space (cuMemAddressReserve; the caller has checked
    /// sizes and alignment).
    pub(crate) fn va_reserve(&mut self, bytes: u64, align: u64, hint: u64) -> Result<u64> {
        let va = self.vm.reserve_va(bytes, align, hint)?;
        self.reserved.insert(va, bytes);
        Ok(va)
    }

    /// Give back a whole reservation with nothing mapped in it (cuMemAddressFree).
    pub(crate) fn va_unreserve(&mut self, va: u64, bytes: u64) -> Result<()> {
        if self.reserved.get(&va) != Some(&bytes) || self.allocs.range(va..va + bytes).next().is_some() {
            return Err(CuError::InvalidValue);
        }
        self.reserved.remove(&va);
        self.vm.free_va(va, bytes);
        Ok(())
    }

    /// Map `[va, va + bytes)`, inside one reservation and over no other mapping, to
    /// physical allocation `handle` from `offset` on (cuMemMap). No access yet.
    pub(crate) fn map_phys<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        bytes: u64,
        offset: u64,
        handle: u64,
    ) -> Result<()> {
        let end = va.checked_add(bytes).ok_or(CuError::InvalidValue)?;
        let reserved = self.reserved.range(..=va).next_back().is_some_and(|(&b, &l)| end <= b + l);
        let overlaps = self.allocs.range(..end).next_back().is_some_and(|(&b, a)| b + a.bytes > va);
        if !reserved || overlaps {
            return Err(CuError::InvalidValue);
        }
        let (phys, size) = gpu.phys_of(handle)?;
        if offset.checked_add(bytes).is_none_or(|e| e > size) {
            return Err(CuError::InvalidValue);
        }
        gpu.phys_count(handle, Count::Map)?;
        let m = Mapping { handle, phys: phys + offset, access: Access::None };
        self.allocs.insert(va, Alloc { size: bytes, bytes, backing: Backing::Mapped(m), owner: Owner::User });
        self.table_changed();
        Ok(())
    }

    /// The bases of the mappings that tile `[va, va + bytes)` exactly: INVALID_VALUE for a
    /// hole, a mapping cut at either end or an empty range.
    fn tiling(&self, va: u64, bytes: u64) -> Result<Vec<u64>> {
        let end = va.checked_add(bytes).filter(|_| bytes > 0).ok_or(CuError::InvalidValue)?;
        let mut bases = Vec::new();
        let mut at = va;
        while at < end {
            match self.allocs.get(&at) {
                Some(a) if matches!(a.backing, Backing::Mapped(_)) && at + a.bytes <= end => {
                    bases.push(at);
                    at += a.bytes;
                }
                _ => return Err(CuError::InvalidValue),
            }
        }
        Ok(bases)
    }

    /// Undo the whole mappings that tile `[va, va + bytes)` (cuMemUnmap; the caller has
    /// waited for the context's work). An allocation whose last mapping and handle are
    /// gone is freed.
    pub(crate) fn unmap_phys<P: Platform>(&mut self, gpu: &Device<P>, va: u64, bytes: u64) -> Result<()> {
        let bases = self.tiling(va, bytes)?;
        let mut done = Ok(());
        for b in bases {
            let len = self.allocs.get(&b).map_or(0, |a| a.bytes);
            // A mapping whose PTEs could not be invalidated stays (its memory too).
            done = self.vm.unmap(gpu, b, len);
            if done.is_err() {
                break;
            }
            if let Some(a) = self.allocs.remove(&b) {
                super::memory::free_backing(gpu, a);
            }
        }
        self.table_changed();
        let flushed = gpu.tlb_flush(self.vm.pd);
        done.and(flushed)
    }

    /// Grant `access` to the whole mappings that tile `[va, va + bytes)`
    /// (cuMemSetAccess): the PTEs are rewritten and the TLB flushed.
    pub(crate) fn set_access<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        bytes: u64,
        access: Access,
    ) -> Result<()> {
        for b in self.tiling(va, bytes)? {
            let Some(Alloc { bytes: len, backing: Backing::Mapped(m), .. }) = self.allocs.get_mut(&b) else {
                continue;
            };
            m.access = access;
            let (len, phys) = (*len, m.phys);
            match access {
                Access::None => self.vm.unmap(gpu, b, len)?,
                Access::Read | Access::ReadWrite => {
                    self.vm.map(gpu, b, phys, len, Target::Vram, access == Access::Read)?
                }
            }
        }
        gpu.tlb_flush(self.vm.pd)
    }

    /// The mappings that tile `[va, va + bytes)`: (address, bytes, VRAM, access) each.
    pub(crate) fn mapped_tiles(&self, va: u64, bytes: u64) -> Result<Vec<(u64, u64, u64, Access)>> {
        Ok(self
            .tiling(va, bytes)?
            .into_iter()
            .filter_map(|b| match self.allocs.get(&b) {
                Some(Alloc { bytes: len, backing: Backing::Mapped(m), .. }) => Some((b, *len, m.phys, m.access)),
                _ => None,
            })
            .collect())
    }

    /// The mapping containing `va`.
    pub(crate) fn mapping_at(&self, va: u64) -> Result<&Mapping> {
        match self.allocs.range(..=va).next_back() {
            Some((&b, Alloc { bytes, backing: Backing::Mapped(m), .. })) if va < b + bytes => Ok(m),
            _ => Err(CuError::InvalidValue),
        }
    }
}
