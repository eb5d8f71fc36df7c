//! A context's memory: allocations of VRAM or pinned host memory mapped into its address
//! space; copies through the copy engine (host data is staged in DMA memory,
//! double-buffered), and memsets with the copy engine's remap unit and a constant
//! component, as NVIDIA's driver does (`copies`).

mod copies;
pub use copies::{MemsetValue, Pitched};
pub(crate) use copies::{l2_flush, launch};

use super::Inner;
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::physmem::Count;
use crate::platform::{DmaBuffer, Platform};
use alloc::sync::Arc;
use alloc::vec::Vec;
use hw::mmu::PAGE_SIZE;
use hw::regs::Target;

/// The access a mapping grants (CUmemAccess_flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// CU_MEM_ACCESS_FLAGS_PROT_NONE: every access faults.
    None,
    /// CU_MEM_ACCESS_FLAGS_PROT_READ: writes fault.
    Read,
    /// CU_MEM_ACCESS_FLAGS_PROT_READWRITE.
    ReadWrite,
}

impl Access {
    /// Whether a read (or a write, `write`) is allowed.
    pub(crate) fn allows(self, write: bool) -> bool {
        match self {
            Self::None => false,
            Self::Read => !write,
            Self::ReadWrite => true,
        }
    }
}

/// A physical allocation of the VMM API mapped into the context (`context::vmm`).
pub(crate) struct Mapping {
    /// The allocation's handle.
    pub(crate) handle: u64,
    /// The VRAM address the mapping starts at (the allocation's plus the offset).
    pub(crate) phys: u64,
    pub(crate) access: Access,
}

/// What backs an allocation.
pub(crate) enum Backing {
    /// Video memory at this physical address.
    Vram(u64),
    /// Pinned host memory (mapped with system-memory PTEs).
    Host(DmaBuffer),
    /// A mapping of a physical allocation of the VMM API.
    Mapped(Mapping),
    /// Another GPU's VRAM, through the peer table (peer access: the memory is the peer's,
    /// freed by its own context).
    Peer,
    /// VRAM split by pages over the GPUs of a gang (one logical GPU over many): pieces here
    /// and pieces of the other GPUs through the peer table; the gang frees the pieces.
    Split,
}

/// Where a piece of a split allocation lives, seen from one GPU of the gang.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Share {
    /// This GPU's VRAM at this physical address.
    Local(u64),
    /// Another GPU's VRAM at this physical address, through this peer table entry.
    Peer(u64, u8),
}

/// Where [`Inner::map_host`] puts a mapping.
#[derive(Clone, Copy)]
enum VaPlace {
    /// Anywhere in the space's range.
    Any,
    /// Below 4 GiB (32-bit device pointers).
    Low,
    /// At this address when the fixed window has it free, else anywhere.
    At(u64),
}

/// Who an allocation belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The program (cuMemAlloc, cuMemHostAlloc): cuMemFree and cuMemGetAddressRange see it.
    User,
    /// The runtime (module segments, parameter buffers): freed only by whatever created it.
    Runtime,
    /// Another context's memory mapped here too (a peer's VRAM, managed memory): unmapped
    /// when that context frees it, never freed here.
    Foreign,
}

/// One allocation: the size asked for, the bytes mapped, what backs it, whose it is.
pub(crate) struct Alloc {
    pub(super) size: u64,
    pub(super) bytes: u64,
    pub(super) backing: Backing,
    pub(super) owner: Owner,
}

impl Inner {
    /// Allocate and map `bytes` of VRAM for `owner`; returns the device pointer.
    pub(crate) fn alloc_vram<P: Platform>(&mut self, gpu: &Device<P>, bytes: u64, owner: Owner) -> Result<u64> {
        self.alloc_vram_in(gpu, bytes, owner, false)
    }

    /// [`Inner::alloc_vram`], at a device pointer below 4 GiB when `low`.
    pub(crate) fn alloc_vram_in<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        bytes: u64,
        owner: Owner,
        low: bool,
    ) -> Result<u64> {
        let rounded = bytes.checked_next_multiple_of(PAGE_SIZE).ok_or(CuError::OutOfMemory)?;
        let phys = gpu.vram_alloc(rounded, PAGE_SIZE)?;
        let va = match self.vm.alloc_va_in(rounded, low) {
            Ok(va) => va,
            Err(e) => {
                gpu.vram_free(phys, rounded);
                return Err(e);
            }
        };
        if let Err(e) = self.vm.map(gpu, va, phys, rounded, Target::Vram, false).and_then(|_| gpu.tlb_flush(self.vm.pd))
        {
            let _ = self.vm.unmap(gpu, va, rounded);
            self.vm.free_va(va, rounded);
            gpu.vram_free(phys, rounded);
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Vram(phys), owner });
        self.fresh_vram(gpu, phys, rounded);
        self.table_changed();
        Ok(va)
    }

    /// Initcheck (checked contexts): fresh VRAM at `phys` holds nothing written yet,
    /// whatever its last owner wrote.
    fn fresh_vram<P: Platform>(&self, gpu: &Device<P>, phys: u64, bytes: u64) {
        if self.check.as_ref().is_some_and(|c| c.mode.initcheck()) {
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_LO, 0, phys as u32);
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_HI, 0, (phys >> 32) as u32);
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_SIZE, 0, bytes as u32);
        }
    }

    /// Allocate `bytes` of pinned host memory and map it with system-memory PTEs for the
    /// program (below 4 GiB when `low`); returns the device pointer and the memory.
    pub(crate) fn alloc_host<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        bytes: u64,
        low: bool,
    ) -> Result<(u64, Arc<fifo::SharedMem>)> {
        let len = usize::try_from(bytes).map_err(|_| CuError::OutOfMemory)?;
        if self.vm.is_unified() && !low {
            return self.alloc_host_unified(gpu, bytes, Owner::User);
        }
        let buf = gpu.platform.dma_alloc(len)?;
        let mem = buf.mem.clone();
        let place = if low { VaPlace::Low } else { VaPlace::Any };
        Ok((self.map_host(gpu, buf, bytes, false, place, Owner::User)?, mem))
    }

    /// Allocate `bytes` of managed memory for `owner`: pinned host memory at its device
    /// address (host and device pointers are one), so it needs unified addressing
    /// (NOT_SUPPORTED without). Kernels reach it through system-memory PTEs.
    pub(crate) fn alloc_managed<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        bytes: u64,
        owner: Owner,
    ) -> Result<(u64, Arc<fifo::SharedMem>)> {
        if !self.vm.is_unified() {
            return Err(CuError::NotSupported);
        }
        self.alloc_host_unified(gpu, bytes, owner)
    }

    /// [`Inner::alloc_host`] under unified addressing: the memory sits at its device
    /// address in the host's address space too, so the program's host pointer is its
    /// device pointer.
    fn alloc_host_unified<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        bytes: u64,
        owner: Owner,
    ) -> Result<(u64, Arc<fifo::SharedMem>)> {
        let rounded = bytes.checked_next_multiple_of(PAGE_SIZE).ok_or(CuError::OutOfMemory)?;
        let len = usize::try_from(rounded).map_err(|_| CuError::OutOfMemory)?;
        let va = self.vm.alloc_va(rounded)?;
        let buf = match gpu.platform.dma_alloc_at(va, len) {
            Ok(b) => b,
            Err(e) => {
                self.vm.free_va(va, rounded);
                return Err(e);
            }
        };
        // The range is the memory's now: its release gives it back.
        self.vm.forget_va(va);
        if let Err(e) =
            self.vm.map(gpu, va, buf.bus, rounded, Target::SysCoherent, false).and_then(|_| gpu.tlb_flush(self.vm.pd))
        {
            let _ = self.vm.unmap(gpu, va, rounded);
            gpu.platform.dma_free(&buf);
            return Err(e);
        }
        let mem = buf.mem.clone();
        self.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Host(buf), owner });
        self.table_changed();
        Ok((va, mem))
    }

    /// Map host pages a program registers (cuMemHostRegister: whole pages, `mem`) into the
    /// address space, read-only if `read_only`; returns their device address.
    pub(crate) fn register_host<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        mem: Arc<fifo::SharedMem>,
        read_only: bool,
    ) -> Result<u64> {
        let bytes = mem.len() as u64;
        let buf = gpu.platform.dma_register(mem)?;
        self.map_host(gpu, buf, bytes, read_only, VaPlace::Any, Owner::User)
    }

    /// Map host pages of the program's (`mem`, whole pages at host address `host`) into
    /// the address space for the runtime, at their host address when the window below
    /// [`crate::vm::FIXED_VA_END`] has it free, else anywhere; returns the device address
    /// of their first byte. They stay mapped as long as the context (the storage of a
    /// program's `__managed__` variables).
    pub(crate) fn register_host_fixed<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        mem: Arc<fifo::SharedMem>,
        host: u64,
    ) -> Result<u64> {
        let bytes = mem.len() as u64;
        let buf = gpu.platform.dma_register(mem)?;
        self.map_host(gpu, buf, bytes, false, VaPlace::At(host), Owner::Runtime)
    }

    /// Map DMA memory `buf` (`bytes` of it the program's) into the address space as an
    /// allocation of `owner`, its address chosen by `place`; on failure `buf` is released.
    fn map_host<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        buf: DmaBuffer,
        bytes: u64,
        read_only: bool,
        place: VaPlace,
        owner: Owner,
    ) -> Result<u64> {
        let rounded = buf.len() as u64;
        let va = match place {
            VaPlace::Any => self.vm.alloc_va(rounded),
            VaPlace::Low => self.vm.alloc_va_in(rounded, true),
            VaPlace::At(at) => self.vm.alloc_va_fixed(at, rounded).or_else(|_| self.vm.alloc_va(rounded)),
        };
        let va = match va {
            Ok(va) => va,
            Err(e) => {
                gpu.platform.dma_free(&buf);
                return Err(e);
            }
        };
        if let Err(e) = self
            .vm
            .map(gpu, va, buf.bus, rounded, Target::SysCoherent, read_only)
            .and_then(|_| gpu.tlb_flush(self.vm.pd))
        {
            let _ = self.vm.unmap(gpu, va, rounded);
            self.vm.free_va(va, rounded);
            gpu.platform.dma_free(&buf);
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Host(buf), owner });
        self.table_changed();
        Ok(va)
    }

    /// Rewrite the sanitizers' allocation table (checked contexts).
    pub(super) fn table_changed(&self) {
        if let Some(c) = &self.check {
            c.write_table(self.allocs.iter().map(|(&base, a)| (base, a.size)));
        }
    }

    /// Whether `ptr` is the start of one of the program's allocations, of host memory
    /// (`host`) or VRAM (a VMM mapping is neither: cuMemUnmap undoes it).
    pub(crate) fn user_alloc(&self, ptr: u64, host: bool) -> Result<()> {
        match self.allocs.get(&ptr).filter(|a| a.owner == Owner::User).map(|a| &a.backing) {
            Some(Backing::Host(_)) if host => Ok(()),
            Some(Backing::Vram(_) | Backing::Split) if !host => Ok(()),
            _ => Err(CuError::InvalidValue),
        }
    }

    /// The program's allocation containing `ptr`: (base, size).
    pub(crate) fn user_range(&self, ptr: u64) -> Result<(u64, u64)> {
        let (&base, a) = self.allocs.range(..=ptr).next_back().ok_or(CuError::NotFound)?;
        if ptr < base + a.size && a.owner == Owner::User { Ok((base, a.size)) } else { Err(CuError::NotFound) }
    }

    /// The physical address of the VRAM allocation at `va`.
    pub(super) fn vram_phys(&self, va: u64) -> Option<u64> {
        match self.allocs.get(&va)?.backing {
            Backing::Vram(phys) => Some(phys),
            _ => None,
        }
    }

    /// The program's VRAM allocations (cuMemAlloc): (device pointer, physical address,
    /// bytes mapped), what a peer maps when it is given access to this context.
    pub(crate) fn user_vram(&self) -> Vec<(u64, u64, u64)> {
        let user = self.allocs.iter().filter(|(_, a)| a.owner == Owner::User);
        user.filter_map(|(&va, a)| match a.backing {
            Backing::Vram(phys) => Some((va, phys, a.bytes)),
            _ => None,
        })
        .collect()
    }

    /// Map `bytes` of another GPU's VRAM at `phys` (reached through peer table entry
    /// `slot`) at `va`, the address it has in its own context: under unified addressing
    /// no allocation of this context is there. Copies and kernels of this context reach it
    /// over the link (read-only when `read_only`); cuMemFree here does not free it.
    pub(crate) fn map_peer<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        (phys, bytes, slot): (u64, u64, u8),
        read_only: bool,
    ) -> Result<()> {
        let end = va.checked_add(bytes).ok_or(CuError::InvalidValue)?;
        let overlaps = self.allocs.range(..end).next_back().is_some_and(|(&b, a)| b + a.bytes > va);
        if bytes == 0 || !bytes.is_multiple_of(PAGE_SIZE) || overlaps {
            return Err(CuError::InvalidValue);
        }
        self.vm.hold_foreign(va, bytes)?;
        let mapped = self.vm.map_peer(gpu, va, (phys, bytes, slot), read_only);
        if let Err(e) = mapped.and_then(|_| gpu.tlb_flush(self.vm.pd)) {
            let _ = self.vm.unmap(gpu, va, bytes);
            self.vm.release_foreign(va, bytes);
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size: bytes, bytes, backing: Backing::Peer, owner: Owner::Foreign });
        self.table_changed();
        Ok(())
    }

    /// Map VRAM split over the GPUs of a gang: `pieces` (bytes each, whole pages, and
    /// where they live) one after another from `va` (a new address when None), as one
    /// allocation of `size` bytes for `owner` (the program's on the gang's first GPU,
    /// foreign on the others). Returns the device pointer. The gang frees the pieces.
    pub(crate) fn map_split<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: Option<u64>,
        size: u64,
        pieces: &[(u64, Share)],
        owner: Owner,
    ) -> Result<u64> {
        let bytes: u64 = pieces.iter().map(|p| p.0).sum();
        if size == 0 || size > bytes || pieces.iter().any(|p| p.0 == 0 || !p.0.is_multiple_of(PAGE_SIZE)) {
            return Err(CuError::InvalidValue);
        }
        let va = match va {
            Some(va) => {
                let end = va.checked_add(bytes).ok_or(CuError::InvalidValue)?;
                if self.allocs.range(..end).next_back().is_some_and(|(&b, a)| b + a.bytes > va) {
                    return Err(CuError::InvalidValue);
                }
                va
            }
            None => self.vm.alloc_va(bytes)?,
        };
        let mut at = va;
        let mapped = pieces.iter().try_for_each(|&(len, piece)| {
            match piece {
                Share::Local(phys) => self.vm.map(gpu, at, phys, len, Target::Vram, false)?,
                Share::Peer(phys, slot) => self.vm.map_peer(gpu, at, (phys, len, slot), false)?,
            }
            at += len;
            Ok(())
        });
        if let Err(e) = mapped.and_then(|()| gpu.tlb_flush(self.vm.pd)) {
            let _ = self.vm.unmap(gpu, va, bytes);
            if owner != Owner::Foreign {
                self.vm.free_va(va, bytes);
            }
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size, bytes, backing: Backing::Split, owner });
        // This GPU's own pieces start unwritten.
        for &(len, piece) in pieces {
            if let Share::Local(phys) = piece {
                self.fresh_vram(gpu, phys, len);
            }
        }
        self.table_changed();
        Ok(va)
    }

    /// The VRAM behind runtime allocation `va` (a module segment): (physical address,
    /// bytes mapped).
    pub(crate) fn vram_extent(&self, va: u64) -> Option<(u64, u64)> {
        match self.allocs.get(&va)? {
            Alloc { backing: Backing::Vram(phys), bytes, .. } => Some((*phys, *bytes)),
            _ => None,
        }
    }

    /// Point the PTEs of `[va, va + bytes)` at VRAM `phys`, or make them invalid, and
    /// flush the TLB (see `Gpu::mem_pages_set`).
    pub(crate) fn set_pages<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        bytes: u64,
        phys: Option<u64>,
    ) -> Result<()> {
        if bytes == 0 || !va.is_multiple_of(PAGE_SIZE) || !bytes.is_multiple_of(PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        match phys {
            Some(p) => self.vm.map(gpu, va, p, bytes, Target::Vram, false)?,
            None => self.vm.unmap(gpu, va, bytes)?,
        }
        gpu.tlb_flush(self.vm.pd)
    }

    /// Map host memory `mem` that another context allocated at unified address `va`
    /// (managed memory, which every context of every GPU reaches) into this context at the
    /// same address, registered for this GPU's DMA; the other context frees it.
    pub(crate) fn map_host_at<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        va: u64,
        mem: Arc<fifo::SharedMem>,
    ) -> Result<()> {
        let bytes = (mem.len() as u64).next_multiple_of(PAGE_SIZE);
        let end = va.checked_add(bytes).ok_or(CuError::InvalidValue)?;
        let overlaps = self.allocs.range(..end).next_back().is_some_and(|(&b, a)| b + a.bytes > va);
        if bytes == 0 || !va.is_multiple_of(PAGE_SIZE) || overlaps {
            return Err(CuError::InvalidValue);
        }
        self.vm.hold_foreign(va, bytes)?;
        let buf = match gpu.platform.dma_register(mem) {
            Ok(b) => b,
            Err(e) => {
                self.vm.release_foreign(va, bytes);
                return Err(e);
            }
        };
        if let Err(e) =
            self.vm.map(gpu, va, buf.bus, bytes, Target::SysCoherent, false).and_then(|_| gpu.tlb_flush(self.vm.pd))
        {
            let _ = self.vm.unmap(gpu, va, bytes);
            self.vm.release_foreign(va, bytes);
            gpu.platform.dma_free(&buf);
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size: bytes, bytes, backing: Backing::Host(buf), owner: Owner::Foreign });
        self.table_changed();
        Ok(())
    }

    /// Undo [`Inner::map_peer`] or [`Inner::map_host_at`] at `va` (the caller has waited
    /// for the work using it).
    pub(crate) fn unmap_foreign<P: Platform>(&mut self, gpu: &Device<P>, va: u64) -> Result<()> {
        if !self.allocs.get(&va).is_some_and(|a| a.owner == Owner::Foreign) {
            return Err(CuError::InvalidValue);
        }
        let a = self.allocs.remove(&va).ok_or(CuError::InvalidValue)?;
        self.table_changed();
        self.vm.unmap(gpu, va, a.bytes)?;
        gpu.tlb_flush(self.vm.pd)?;
        self.vm.release_foreign(va, a.bytes);
        free_backing(gpu, a);
        Ok(())
    }

    /// Unmap and free the allocation at `ptr` (the caller has waited for the work using it).
    pub(crate) fn free_now<P: Platform>(&mut self, gpu: &Device<P>, ptr: u64) -> Result<()> {
        let a = self.allocs.remove(&ptr).ok_or(CuError::InvalidValue)?;
        self.table_changed();
        self.vm.unmap(gpu, ptr, a.bytes)?;
        gpu.tlb_flush(self.vm.pd)?;
        self.vm.free_va(ptr, a.bytes);
        free_backing(gpu, a);
        Ok(())
    }

    /// Free every allocation without unmapping (the address space goes next).
    pub(crate) fn free_all<P: Platform>(&mut self, gpu: &Device<P>) {
        for (_, a) in core::mem::take(&mut self.allocs) {
            free_backing(gpu, a);
        }
    }
}

/// Free what backs `a` (a mapping: one mapping fewer of its physical allocation).
pub(super) fn free_backing<P: Platform>(gpu: &Device<P>, a: Alloc) {
    match a.backing {
        Backing::Vram(phys) => gpu.vram_free(phys, a.bytes),
        Backing::Host(buf) => gpu.platform.dma_free(&buf),
        Backing::Mapped(m) => {
            let _ = gpu.phys_count(m.handle, Count::Unmap);
        }
        Backing::Peer | Backing::Split => {}
    }
}
