//! GPU virtual address spaces: a Fermi page directory and small page tables in VRAM,
//! written through PRAMIN; a VA allocator with O(log n) allocation and reuse. Page tables
//! are allocated on first use and zeroed; unmapping writes invalid PTEs. The caller
//! flushes the TLB after a batch of changes (`Gpu::tlb_flush`).

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use crate::range::RangeAllocator;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::mmu::{self, Pde, PdeAperture, Pte};
use hw::regs::Target;

/// One address space.
pub struct VaSpace {
    /// Page directory (VRAM).
    pub pd: u64,
    pts: BTreeMap<u64, u64>,
    va: RangeAllocator,
}

impl VaSpace {
    /// A placeholder owning nothing.
    pub(crate) fn empty() -> Self {
        Self { pd: 0, pts: BTreeMap::new(), va: RangeAllocator::default() }
    }

    /// A new space whose allocatable VA is `[base, base + len)`.
    pub(crate) fn new<P: Platform>(gpu: &Device<P>, base: u64, len: u64) -> Result<Self> {
        let pd = gpu.vram_alloc(mmu::PD_BYTES, mmu::PAGE_SIZE)?;
        if let Err(e) = gpu.pramin_zero(pd, mmu::PD_BYTES) {
            gpu.vram_free(pd, mmu::PD_BYTES);
            return Err(e);
        }
        // VA 0 stays unmapped so that a null device pointer faults.
        let base = base.max(mmu::PAGE_SIZE);
        Ok(Self { pd, pts: BTreeMap::new(), va: RangeAllocator::new(base, len.saturating_sub(base)) })
    }

    /// Reserve `bytes` (rounded to pages) of virtual address space.
    pub(crate) fn alloc_va(&mut self, bytes: u64) -> Result<u64> {
        let len = bytes.div_ceil(mmu::PAGE_SIZE) * mmu::PAGE_SIZE;
        self.va.alloc(len, mmu::PAGE_SIZE).ok_or(CuError::OutOfMemory)
    }

    /// Return a VA range from [`VaSpace::alloc_va`].
    pub(crate) fn free_va(&mut self, va: u64, bytes: u64) {
        self.va.free(va, bytes.div_ceil(mmu::PAGE_SIZE) * mmu::PAGE_SIZE);
    }

    fn page_table<P: Platform>(&mut self, gpu: &Device<P>, pde: u64) -> Result<u64> {
        if let Some(&pt) = self.pts.get(&pde) {
            return Ok(pt);
        }
        let pt = gpu.vram_alloc(mmu::SPT_BYTES, mmu::PAGE_SIZE)?;
        let entry = Pde::new().with_small_aperture(PdeAperture::Vram).with_small_addr((pt >> 12) as u32);
        let raw = u64::from(entry);
        let r = gpu
            .pramin_zero(pt, mmu::SPT_BYTES)
            .and_then(|_| gpu.pramin_write(self.pd + pde * mmu::ENTRY_SIZE, [raw as u32, (raw >> 32) as u32]));
        if let Err(e) = r {
            gpu.vram_free(pt, mmu::SPT_BYTES);
            return Err(e);
        }
        self.pts.insert(pde, pt);
        Ok(pt)
    }

    /// Map `[va, va + bytes)` to consecutive pages at `phys` in `target`.
    pub(crate) fn map<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        phys: u64,
        bytes: u64,
        target: Target,
    ) -> Result<()> {
        self.write_ptes(gpu, va, bytes, |i| u64::from(Pte::map(phys + i * mmu::PAGE_SIZE, target)))
    }

    /// Invalidate the PTEs of `[va, va + bytes)`.
    pub(crate) fn unmap<P: Platform>(&mut self, gpu: &Device<P>, va: u64, bytes: u64) -> Result<()> {
        self.write_ptes(gpu, va, bytes, |_| 0)
    }

    fn write_ptes<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        bytes: u64,
        pte: impl Fn(u64) -> u64,
    ) -> Result<()> {
        let pages = bytes.div_ceil(mmu::PAGE_SIZE);
        let mut i = 0;
        while i < pages {
            let a = va + i * mmu::PAGE_SIZE;
            let pt = self.page_table(gpu, mmu::pde_index(a))?;
            // All PTEs up to the end of this page table in one PRAMIN burst.
            let idx = mmu::spte_index(a);
            let n = (mmu::SPT_ENTRIES - idx).min(pages - i);
            let words: Vec<u32> = (i..i + n)
                .flat_map(|k| {
                    let v = pte(k);
                    [v as u32, (v >> 32) as u32]
                })
                .collect();
            gpu.pramin_write(pt + idx * mmu::ENTRY_SIZE, words)?;
            i += n;
        }
        Ok(())
    }

    /// Free the page tables and the page directory.
    pub(crate) fn destroy<P: Platform>(&mut self, gpu: &Device<P>) {
        for (_, pt) in core::mem::take(&mut self.pts) {
            gpu.vram_free(pt, mmu::SPT_BYTES);
        }
        if self.pd != 0 {
            gpu.vram_free(self.pd, mmu::PD_BYTES);
            self.pd = 0;
        }
    }
}
