//! GPU virtual address spaces: a Fermi page directory and small page tables in VRAM,
//! written through PRAMIN; a VA allocator with O(log n) allocation and reuse. Page tables
//! are allocated on first use and zeroed; unmapping writes invalid PTEs. The caller
//! flushes the TLB after a batch of changes (`Device::tlb_flush`).
//!
//! `Bar1` is the device's own address space: BAR1 reaches VRAM through it, and the
//! runtime maps USERD there (the host reads GP_GET and writes GP_PUT through BAR1).

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use crate::range::{RangeAllocator, SharedVa};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::inst::INST_SIZE;
use hw::mmu::{self, Pde, PdeAperture, Pte};
use hw::regs::{
    NUM_CHANNELS, NV_PBUS_BAR1_BLOCK, NV_PFIFO_USERD_BASE, PbusBar1Block, PfifoUserdBase, Target, USERD_STRIDE,
};

/// The start of the window below 4 GiB that allocations for the 32-bit ABI of the
/// pre-CUDA-3.2 entry points come from (above the shared and local windows).
pub const LOW_VA_BASE: u64 = 0x1000_0000;
/// The end of that window: device pointers that fit in 32 bits.
pub const LOW_VA_END: u64 = 1 << 32;

/// The end of the window at the bottom of a context's address space, `[4 KiB, 16 MiB)`,
/// below the generic windows of shared and local memory, where host memory can be mapped
/// at the address it has in the host (a program's data linked at a fixed address: its
/// `__managed__` variables; see `VaSpace::alloc_va_fixed`). Nothing else is placed there.
pub const FIXED_VA_END: u64 = 0x0100_0000;

/// Where the PTEs of a range of a context's address space are (`VaSpace::pte_slots`):
/// page tables live as long as the space, so they may be written without the context,
/// until it is destroyed.
#[derive(Clone, Debug)]
pub struct PteSlots {
    pd: u64,
    va: u64,
    end: u64,
    /// The page table of each page directory entry the range spans, in order.
    pts: Vec<u64>,
}

impl PteSlots {
    /// The page directory (for the TLB flush) and the physical address of `va`'s PTE.
    pub(crate) fn slot(&self, va: u64) -> Option<(u64, u64)> {
        if va < self.va || va >= self.end {
            return None;
        }
        let pt = self.pts.get((mmu::pde_index(va) - mmu::pde_index(self.va)) as usize)?;
        Some((self.pd, pt + mmu::spte_index(va) * mmu::ENTRY_SIZE))
    }
}

/// Where a space's addresses come from.
enum Source {
    /// A range of its own (BAR1; contexts when there is no unified addressing).
    Own(RangeAllocator),
    /// The unified range, shared; the space records what it took, to give it back when it
    /// is destroyed.
    Unified { va: SharedVa, taken: BTreeMap<u64, u64> },
}

impl Source {
    fn alloc(&mut self, bytes: u64, align: u64) -> Option<u64> {
        match self {
            Source::Own(a) => a.alloc(bytes, align),
            Source::Unified { va, taken } => {
                let v = va.lock().alloc(bytes, align)?;
                taken.insert(v, bytes);
                Some(v)
            }
        }
    }

    fn alloc_at(&mut self, hint: u64, bytes: u64) -> Option<u64> {
        match self {
            Source::Own(a) => a.alloc_at(hint, bytes),
            Source::Unified { va, taken } => {
                let v = va.lock().alloc_at(hint, bytes)?;
                taken.insert(v, bytes);
                Some(v)
            }
        }
    }

    fn free(&mut self, v: u64, bytes: u64) {
        match self {
            Source::Own(a) => a.free(v, bytes),
            Source::Unified { va, taken } => {
                if taken.remove(&v).is_some() {
                    va.lock().free(v, bytes);
                }
            }
        }
    }
}

/// One address space.
pub struct VaSpace {
    /// Page directory (VRAM).
    pub pd: u64,
    pts: BTreeMap<u64, u64>,
    va: Source,
    /// `[LOW_VA_BASE, LOW_VA_END)`, for 32-bit device pointers (a context's space; see
    /// [`VaSpace::with_low_window`]).
    low: Option<RangeAllocator>,
    /// `[PAGE_SIZE, FIXED_VA_END)`, for host memory at its host address (a context's space).
    fixed: Option<RangeAllocator>,
}

impl VaSpace {
    /// A new space whose allocatable VA is `[base, base + len)`.
    pub(crate) fn new<P: Platform>(gpu: &Device<P>, base: u64, len: u64) -> Result<Self> {
        let pd = gpu.vram_alloc(mmu::PD_BYTES, mmu::PAGE_SIZE)?;
        if let Err(e) = gpu.pramin_zero(pd, mmu::PD_BYTES) {
            gpu.vram_free(pd, mmu::PD_BYTES);
            return Err(e);
        }
        // VA 0 stays unmapped so that a null device pointer faults.
        let base = base.max(mmu::PAGE_SIZE);
        Ok(Self {
            pd,
            pts: BTreeMap::new(),
            va: Source::Own(RangeAllocator::new(base, len.saturating_sub(base))),
            low: None,
            fixed: None,
        })
    }

    /// A new space whose addresses come from the unified range `va`, shared with every
    /// other context.
    pub(crate) fn unified<P: Platform>(gpu: &Device<P>, va: SharedVa) -> Result<Self> {
        let mut space = Self::new(gpu, 0, 0)?;
        space.va = Source::Unified { va, taken: BTreeMap::new() };
        Ok(space)
    }

    /// Whether the space's addresses are unified ones.
    pub fn is_unified(&self) -> bool {
        matches!(self.va, Source::Unified { .. })
    }

    /// This space with the window for 32-bit device pointers, `[LOW_VA_BASE, LOW_VA_END)`,
    /// which the space's own range (`base` of [`VaSpace::new`] at least `LOW_VA_END`) must
    /// not overlap.
    pub(crate) fn with_low_window(mut self) -> Self {
        self.low = Some(RangeAllocator::new(LOW_VA_BASE, LOW_VA_END - LOW_VA_BASE));
        self.fixed = Some(RangeAllocator::new(mmu::PAGE_SIZE, FIXED_VA_END - mmu::PAGE_SIZE));
        self
    }

    /// Reserve exactly `[va, va + bytes)` (whole pages) of the window below
    /// [`FIXED_VA_END`]; OUT_OF_MEMORY when it is outside the window or taken.
    pub(crate) fn alloc_va_fixed(&mut self, va: u64, bytes: u64) -> Result<u64> {
        let aligned = va.is_multiple_of(mmu::PAGE_SIZE) && bytes.is_multiple_of(mmu::PAGE_SIZE);
        match &mut self.fixed {
            Some(f) if aligned && bytes > 0 => f.alloc_at(va, bytes).ok_or(CuError::OutOfMemory),
            _ => Err(CuError::OutOfMemory),
        }
    }

    /// Reserve `bytes` (rounded to pages) of virtual address space; below 4 GiB when `low`.
    pub(crate) fn alloc_va_in(&mut self, bytes: u64, low: bool) -> Result<u64> {
        let len = bytes.div_ceil(mmu::PAGE_SIZE) * mmu::PAGE_SIZE;
        match &mut self.low {
            Some(l) if low => l.alloc(len, mmu::PAGE_SIZE),
            None if low => None,
            _ => self.va.alloc(len, mmu::PAGE_SIZE),
        }
        .ok_or(CuError::OutOfMemory)
    }

    /// Reserve `bytes` (rounded to pages) of virtual address space.
    pub(crate) fn alloc_va(&mut self, bytes: u64) -> Result<u64> {
        self.alloc_va_in(bytes, false)
    }

    /// Reserve `bytes` (a multiple of pages) aligned to `align` (a power of two, at least
    /// a page), at `hint` when that range is free and aligned (cuMemAddressReserve).
    pub(crate) fn reserve_va(&mut self, bytes: u64, align: u64, hint: u64) -> Result<u64> {
        if hint != 0
            && hint.is_multiple_of(align)
            && let Some(va) = self.va.alloc_at(hint, bytes)
        {
            return Ok(va);
        }
        self.va.alloc(bytes, align).ok_or(CuError::OutOfMemory)
    }

    /// Let go of unified range `va` without giving it back: from now on it belongs to
    /// pinned host memory placed there ([`Platform::dma_alloc_at`]), whose release
    /// returns it; freeing it here is then a no-op.
    pub(crate) fn forget_va(&mut self, va: u64) {
        if let Source::Unified { taken, .. } = &mut self.va {
            taken.remove(&va);
        }
    }

    /// Hold `[va, va + bytes)` (whole pages) for a mapping, at its own address, of memory
    /// another space allocated there (a peer's VRAM, another context's host memory): a
    /// space of its own must not hand the range out for an allocation of its own, which
    /// would map over it (in the unified range the owner already holds it). Taken already:
    /// INVALID_VALUE.
    pub(crate) fn hold_foreign(&mut self, va: u64, bytes: u64) -> Result<()> {
        match &mut self.va {
            Source::Own(a) if a.contains(va, bytes) => a.alloc_at(va, bytes).map(|_| ()).ok_or(CuError::InvalidValue),
            _ => Ok(()),
        }
    }

    /// Let go of a range [`VaSpace::hold_foreign`] held.
    pub(crate) fn release_foreign(&mut self, va: u64, bytes: u64) {
        if let Source::Own(a) = &mut self.va
            && a.contains(va, bytes)
        {
            a.free(va, bytes);
        }
    }

    /// Return a VA range from [`VaSpace::alloc_va`].
    pub(crate) fn free_va(&mut self, va: u64, bytes: u64) {
        let len = bytes.div_ceil(mmu::PAGE_SIZE) * mmu::PAGE_SIZE;
        match (&mut self.low, &mut self.fixed) {
            (Some(l), _) if (LOW_VA_BASE..LOW_VA_END).contains(&va) => l.free(va, len),
            (_, Some(f)) if va < FIXED_VA_END => f.free(va, len),
            _ => self.va.free(va, len),
        }
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

    /// Where the PTEs of `[va, va + bytes)` are (the page tables made now where missing):
    /// what the API layer's `pte_set` writes without this space.
    pub(crate) fn pte_slots<P: Platform>(&mut self, gpu: &Device<P>, va: u64, bytes: u64) -> Result<PteSlots> {
        if bytes == 0 || !va.is_multiple_of(mmu::PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        let last = va.checked_add(bytes - 1).ok_or(CuError::InvalidValue)?;
        let pts =
            (mmu::pde_index(va)..=mmu::pde_index(last)).map(|pde| self.page_table(gpu, pde)).collect::<Result<_>>()?;
        Ok(PteSlots { pd: self.pd, va, end: last + 1, pts })
    }

    /// Map `[va, va + bytes)` to consecutive pages at `phys` in `target`, read-only when
    /// `read_only` (the MMU faults writes).
    pub(crate) fn map<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        phys: u64,
        bytes: u64,
        target: Target,
        read_only: bool,
    ) -> Result<()> {
        self.write_ptes(gpu, va, bytes, |i| {
            u64::from(Pte::map(phys + i * mmu::PAGE_SIZE, target).with_read_only(read_only))
        })
    }

    /// Map `[va, va + bytes)` to consecutive pages at `phys` in the VRAM of the GPU peer
    /// table entry `slot` names (PTE target PEER), read-only when `read_only` (the MMU
    /// faults writes).
    pub(crate) fn map_peer<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        (phys, bytes, slot): (u64, u64, u8),
        read_only: bool,
    ) -> Result<()> {
        self.write_ptes(gpu, va, bytes, |i| {
            u64::from(Pte::map_peer(phys + i * mmu::PAGE_SIZE, slot).with_read_only(read_only))
        })
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

    /// Free the page tables and the page directory, and give unified addresses back.
    pub(crate) fn destroy<P: Platform>(&mut self, gpu: &Device<P>) {
        if let Source::Unified { va, taken } = &mut self.va {
            let mut a = va.lock();
            for (v, bytes) in core::mem::take(taken) {
                a.free(v, bytes);
            }
        }
        for (_, pt) in core::mem::take(&mut self.pts) {
            gpu.vram_free(pt, mmu::SPT_BYTES);
        }
        if self.pd != 0 {
            gpu.vram_free(self.pd, mmu::PD_BYTES);
            self.pd = 0;
        }
    }
}

/// BAR1's address space: an instance block and page tables of its own, with USERD mapped
/// (nouveau's gf100 bar init). It lives as long as the device and never changes after
/// bring-up.
pub(crate) struct Bar1 {
    _space: VaSpace,
    _inst: u64,
}

impl Bar1 {
    /// Build BAR1's address space, point NV_PBUS_BAR1_BLOCK at it, map every channel's
    /// USERD page and tell PFIFO where they are (NV_PFIFO_USERD_BASE).
    pub(crate) fn bring_up<P: Platform>(dev: &mut Device<P>) -> Result<Self> {
        let size = dev.info().bar1.1;
        let inst = dev.vram_alloc(INST_SIZE, INST_SIZE)?;
        dev.pramin_zero(inst, INST_SIZE)?;
        let mut space = VaSpace::new(dev, 0, size)?;
        dev.write_inst_vm(inst, space.pd, size - 1)?;
        let b = PbusBar1Block::new().with_inst((inst >> 12) as u32).with_target(Target::Vram).with_use_vm(true);
        dev.wr(NV_PBUS_BAR1_BLOCK, 0, b);

        let userd_bytes = NUM_CHANNELS as u64 * USERD_STRIDE as u64;
        let userd_vram = dev.vram_alloc(userd_bytes, mmu::PAGE_SIZE)?;
        let userd = space.alloc_va(userd_bytes)?;
        space.map(dev, userd, userd_vram, userd_bytes, Target::Vram, false)?;
        dev.tlb_flush(space.pd)?;
        dev.wr(NV_PFIFO_USERD_BASE, 0, PfifoUserdBase::new().with_bar1_page((userd >> 12) as u32).with_valid(true));
        // Each channel zeroes its own USERD page when it is created.
        dev.set_userd(userd_vram, userd);
        Ok(Self { _space: space, _inst: inst })
    }
}
