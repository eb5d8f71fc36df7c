//! A context's memory: allocations of VRAM or pinned host memory mapped into its address
//! space, copies through the copy engine (host data is staged in DMA memory,
//! double-buffered), and memsets with the copy engine's remap unit and a constant
//! component, as NVIDIA's driver does.

use super::vmm::Mapping;
use super::{Context, Inner};
use crate::channel::{Channel, Cmd, Fence, Release};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::physmem::Count;
use crate::platform::{DmaBuffer, Platform};
use alloc::sync::Arc;
use alloc::vec::Vec;
use hw::class::addr40;
use hw::class::{CopySemaphore, LaunchDma, Layout, RemapComponents, RemapSrc, TransferType, copy, subch};
use hw::mmu::PAGE_SIZE;
use hw::regs::Target;

/// The largest piece one copy-engine launch moves.
const LAUNCH_MAX: u64 = 1 << 30;

/// The value of a memset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemsetValue {
    /// cuMemsetD8.
    U8(u8),
    /// cuMemsetD16.
    U16(u16),
    /// cuMemsetD32.
    U32(u32),
}

impl MemsetValue {
    /// Bytes of one element.
    pub fn size(self) -> u64 {
        match self {
            Self::U8(_) => 1,
            Self::U16(_) => 2,
            Self::U32(_) => 4,
        }
    }
    fn bits(self) -> u32 {
        match self {
            Self::U8(v) => v as u32,
            Self::U16(v) => v as u32,
            Self::U32(v) => v,
        }
    }
}

/// The shape of a pitched (2D) copy: `height` rows of `width` bytes, the rows
/// `src_pitch` bytes apart in the source and `dst_pitch` in the destination. A linear copy
/// is one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pitched {
    /// Bytes per row.
    pub width: u64,
    /// Rows.
    pub height: u64,
    /// Bytes from one source row to the next.
    pub src_pitch: u64,
    /// Bytes from one destination row to the next.
    pub dst_pitch: u64,
}

impl Pitched {
    /// A linear copy of `bytes`.
    pub fn linear(bytes: u64) -> Self {
        Self { width: bytes, height: 1, src_pitch: bytes, dst_pitch: bytes }
    }

    /// Whether the copy moves nothing.
    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// The bytes from the first row's start to the last row's end at `pitch`;
    /// INVALID_VALUE on overflow.
    pub fn extent(&self, pitch: u64) -> Result<u64> {
        if self.is_empty() {
            return Ok(0);
        }
        (self.height - 1).checked_mul(pitch).and_then(|b| b.checked_add(self.width)).ok_or(CuError::InvalidValue)
    }

    /// Rows that do not overlap (each pitch at least the width when there are several
    /// rows) and pitches the copy engine's 32-bit registers hold: else INVALID_VALUE.
    fn check(&self) -> Result<()> {
        let pitch_ok = |p: u64| self.height <= 1 || (p >= self.width && p <= u32::MAX as u64);
        if pitch_ok(self.src_pitch) && pitch_ok(self.dst_pitch) { Ok(()) } else { Err(CuError::InvalidValue) }
    }

    /// The pieces a host copy stages through buffers of `chunk` bytes: whole rows
    /// (`rows` of them from `row`) when a row fits, else parts of one row; each piece is
    /// `len` bytes of each row from byte `off`.
    pub(super) fn pieces(&self, chunk: u64) -> impl Iterator<Item = Piece> + '_ {
        let (w, h) = (self.width, if self.is_empty() { 0 } else { self.height });
        let per_row = w.div_ceil(chunk).max(1);
        let rows_per = if w <= chunk { (chunk / w.max(1)).max(1) } else { 1 };
        let n = if w <= chunk { h.div_ceil(rows_per) } else { h * per_row };
        (0..n).map(move |i| {
            if w <= chunk {
                let row = i * rows_per;
                Piece { row, rows: rows_per.min(h - row), off: 0, len: w }
            } else {
                let off = (i % per_row) * chunk;
                Piece { row: i / per_row, rows: 1, off, len: chunk.min(w - off) }
            }
        })
    }
}

/// Part of a staged host copy (see [`Pitched::pieces`]).
#[derive(Clone, Copy)]
pub(super) struct Piece {
    pub(super) row: u64,
    pub(super) rows: u64,
    pub(super) off: u64,
    pub(super) len: u64,
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
        let mapped = self.vm.map_peer(gpu, va, (phys, bytes, slot), read_only);
        if let Err(e) = mapped.and_then(|_| gpu.tlb_flush(self.vm.pd)) {
            let _ = self.vm.unmap(gpu, va, bytes);
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
        let buf = gpu.platform.dma_register(mem)?;
        if let Err(e) =
            self.vm.map(gpu, va, buf.bus, bytes, Target::SysCoherent, false).and_then(|_| gpu.tlb_flush(self.vm.pd))
        {
            let _ = self.vm.unmap(gpu, va, bytes);
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

    /// Check that `[ptr, ptr + len)` lies inside one allocation (device or pinned host),
    /// or in VMM mappings that follow one another without a gap, and that each mapping
    /// grants the access (`write` or read).
    pub(crate) fn check_range(&self, ptr: u64, len: u64, write: bool) -> Result<()> {
        let end = ptr.checked_add(len).ok_or(CuError::InvalidValue)?;
        let mut at = ptr;
        loop {
            let (&base, a) = self.allocs.range(..=at).next_back().ok_or(CuError::InvalidValue)?;
            let limit = base + a.size;
            let mapped = match &a.backing {
                Backing::Mapped(m) if !m.access.allows(write) => return Err(CuError::InvalidValue),
                Backing::Mapped(_) => true,
                _ => false,
            };
            if end <= limit {
                return Ok(());
            }
            let next_mapped = self.allocs.get(&limit).is_some_and(|n| matches!(n.backing, Backing::Mapped(_)));
            if !mapped || !next_mapped || at > limit {
                return Err(CuError::InvalidValue);
            }
            at = limit;
        }
    }

    /// The start of a blocking host copy of `len` bytes at device pointer `ptr`: the range
    /// lies in one allocation (an empty copy may point anywhere), and the default stream
    /// waits for the blocking streams.
    fn host_copy_start<P: Platform>(&mut self, gpu: &Device<P>, ptr: u64, len: u64, write: bool) -> Result<()> {
        self.check_range(ptr, len, write).or(if len == 0 { Ok(()) } else { Err(CuError::InvalidValue) })?;
        self.ordered(gpu, 0).map(drop)
    }

    /// Queue a copy of `shape` from `src` to `dst` on the default stream (an L2
    /// write-back first when `flush`); returns what to wait for.
    fn queue_copy<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        src: u64,
        dst: u64,
        shape: Pitched,
        flush: bool,
    ) -> Result<Release> {
        let ch = self.live()?;
        if flush {
            // Kernels leave dirty lines in the L2: write them back before reading VRAM.
            let mut cmd = Cmd::new();
            l2_flush(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
        }
        let f = copy_pitched(gpu, ch, dst, src, shape)?;
        ch.release_of(f)
    }

    /// Queue a copy of `shape` between two device pointers of the context on stream `s`;
    /// returns the stream's fence.
    pub(crate) fn copy<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        dst: u64,
        src: u64,
        shape: Pitched,
    ) -> Result<Fence> {
        shape.check()?;
        if shape.is_empty() {
            return Ok(self.chan(s)?.last_fence());
        }
        self.check_range(src, shape.extent(shape.src_pitch)?, false)?;
        self.check_range(dst, shape.extent(shape.dst_pitch)?, true)?;
        // Coherence (gem5's flush forwarding): a copy to memory another agent reads (the
        // host's, a peer's) writes the L2's dirty lines back first, as before a copy to
        // the host, so that kernels still running leave nothing it would miss.
        let elsewhere = self
            .allocs
            .range(..=dst)
            .next_back()
            .is_some_and(|(_, a)| matches!(a.backing, Backing::Host(_) | Backing::Peer | Backing::Split));
        let ch = self.ordered(gpu, s)?;
        if elsewhere {
            let mut cmd = Cmd::new();
            l2_flush(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
        }
        copy_pitched(gpu, ch, dst, src, shape)
    }

    /// Queue a memset on stream `s`: `height` rows of `width` elements at `dst`, `pitch`
    /// bytes apart (one row: pitch unused); returns the stream's fence. The pointer, and
    /// the pitch when there are several rows, must be multiples of the element size, and
    /// the rows must not overlap: else INVALID_VALUE.
    pub(crate) fn memset<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        dst: u64,
        value: MemsetValue,
        (width, height, pitch): (u64, u64, u64),
    ) -> Result<Fence> {
        let size = value.size();
        let row = width.checked_mul(size).ok_or(CuError::InvalidValue)?;
        let shape = Pitched { width: row, height, src_pitch: pitch, dst_pitch: pitch };
        if !dst.is_multiple_of(size) || (height > 1 && !pitch.is_multiple_of(size)) {
            return Err(CuError::InvalidValue);
        }
        shape.check()?;
        if shape.is_empty() {
            return Ok(self.chan(s)?.last_fence());
        }
        self.check_range(dst, shape.extent(pitch)?, true)?;
        let ch = self.ordered(gpu, s)?;
        let remap = RemapComponents::new()
            .with_dst_x(RemapSrc::ConstA)
            .with_dst_y(RemapSrc::NoWrite)
            .with_dst_z(RemapSrc::NoWrite)
            .with_dst_w(RemapSrc::NoWrite)
            .with_component_size_minus_one((size - 1) as u8);
        let mut last = ch.last_fence();
        // LAUNCH_MAX is a multiple of every element size, so pieces hold whole elements.
        for p in shape.pieces(LAUNCH_MAX) {
            let d = dst + p.row * pitch + p.off;
            let multi = p.rows > 1;
            let l: u32 = LaunchDma::from(launch(true, true)).with_multi_line(multi).into();
            let mut cmd = Cmd::new();
            cmd.incr(subch::COPY0, copy::SET_REMAP_CONST_A, &[value.bits()])
                .and_then(|_| cmd.incr(subch::COPY0, copy::SET_REMAP_COMPONENTS, &[remap.into()]))
                .and_then(|_| cmd.incr(subch::COPY0, copy::OFFSET_OUT_UPPER, &[addr40::hi(d), addr40::lo(d)]))
                .and_then(|_| {
                    if multi {
                        cmd.incr(subch::COPY0, copy::PITCH_OUT, &[pitch as u32, (p.len / size) as u32, p.rows as u32])
                    } else {
                        cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[(p.len / size) as u32])
                    }
                })
                .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[l]))
                .map_err(|_| CuError::Unknown)?;
            last = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            gpu.count_job(ch.chid, true);
        }
        Ok(last)
    }
}

impl<P: Platform> Context<P> {
    /// Copy `shape` from host memory `src` (rows `shape.src_pitch` apart) to the device;
    /// returns when `src` may be reused. The copy holds the context's staging buffers
    /// (host copies of a context take turns, as on CUDA's legacy stream), never the
    /// context's lock while it waits. Rows are packed into the staging buffers, so a
    /// pitched copy of short rows takes one copy-engine launch per buffer, not per row.
    pub(crate) fn copy_htod(&self, gpu: &Device<P>, dst: u64, src: &[u8], shape: Pitched) -> Result<()> {
        shape.check()?;
        if (src.len() as u64) < shape.extent(shape.src_pitch)? {
            return Err(CuError::InvalidValue);
        }
        let bufs = self.staging();
        self.with(gpu, |c| c.host_copy_start(gpu, dst, shape.extent(shape.dst_pitch)?, true))?;
        let chunk = bufs[0].buf.len() as u64;
        let mut pending: [Option<Release>; 2] = [None, None];
        for (i, p) in shape.pieces(chunk).enumerate() {
            let s = &bufs[i % 2];
            if let Some(w) = pending[i % 2].take() {
                w.wait(gpu)?; // the buffer's previous piece has been copied out of it
            }
            for j in 0..p.rows {
                let at = ((p.row + j) * shape.src_pitch + p.off) as usize;
                gpu.platform.copy_from_user(&s.buf.mem, (j * p.len) as usize, &src[at..at + p.len as usize])?;
            }
            let to = dst + p.row * shape.dst_pitch + p.off;
            let part = Pitched { width: p.len, height: p.rows, src_pitch: p.len, dst_pitch: shape.dst_pitch };
            pending[i % 2] = Some(self.with(gpu, |c| c.queue_copy(gpu, s.va, to, part, false))?);
        }
        pending.iter().flatten().try_for_each(|w| w.wait(gpu))
    }

    /// Copy `shape` from the device to host memory `dst` (rows `shape.dst_pitch` apart);
    /// waits for earlier work on the context, holding the staging buffers but not the
    /// context's lock.
    pub(crate) fn copy_dtoh(&self, gpu: &Device<P>, dst: &mut [u8], src: u64, shape: Pitched) -> Result<()> {
        shape.check()?;
        if (dst.len() as u64) < shape.extent(shape.dst_pitch)? {
            return Err(CuError::InvalidValue);
        }
        let bufs = self.staging();
        self.with(gpu, |c| c.host_copy_start(gpu, src, shape.extent(shape.src_pitch)?, false))?;
        let chunk = bufs[0].buf.len() as u64;
        // Queue piece i into staging buffer i % 2, then drain piece i - 1.
        let drain = |dst: &mut [u8], (i, p, w): (usize, Piece, Release)| -> Result<()> {
            w.wait(gpu)?;
            for j in 0..p.rows {
                let at = ((p.row + j) * shape.dst_pitch + p.off) as usize;
                let mem = &bufs[i % 2].buf.mem;
                gpu.platform.copy_to_user(&mut dst[at..at + p.len as usize], mem, (j * p.len) as usize)?;
            }
            Ok(())
        };
        let mut pending: Option<(usize, Piece, Release)> = None;
        for (i, p) in shape.pieces(chunk).enumerate() {
            let from = src + p.row * shape.src_pitch + p.off;
            let part = Pitched { width: p.len, height: p.rows, src_pitch: shape.src_pitch, dst_pitch: p.len };
            let w = self.with(gpu, |c| c.queue_copy(gpu, from, bufs[i % 2].va, part, i == 0))?;
            if let Some(done) = pending.replace((i, p, w)) {
                drain(dst, done)?;
            }
        }
        pending.map_or(Ok(()), |done| drain(dst, done))
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

pub(super) fn launch(transfer: bool, remap: bool) -> u32 {
    LaunchDma::new()
        .with_transfer(if transfer { TransferType::NonPipelined } else { TransferType::None })
        .with_semaphore(CopySemaphore::None)
        .with_src_layout(Layout::Pitch)
        .with_dst_layout(Layout::Pitch)
        .with_remap(remap)
        .into()
}

/// MEM_OP L2_FLUSH_DIRTY: the device writes back its L2's dirty lines (the channel waits).
pub(crate) fn l2_flush(cmd: &mut Cmd) -> Result<()> {
    let b = hw::class::MemOpB::new().with_operation(hw::class::MemOp::L2FlushDirty);
    cmd.incr(0, hw::class::host::MEM_OP_A, &[0, b.into()]).map(|_| ()).map_err(|_| CuError::Unknown)
}

/// Queue copies of `shape` from `src` to `dst` (device pointers) on `ch`, each launch at
/// most LAUNCH_MAX bytes (groups of whole rows, or parts of one row when a row is longer);
/// returns the fence after the last.
fn copy_pitched<P: Platform>(gpu: &Device<P>, ch: &mut Channel, dst: u64, src: u64, shape: Pitched) -> Result<Fence> {
    let mut last = ch.last_fence();
    for p in shape.pieces(LAUNCH_MAX) {
        let mut cmd = Cmd::new();
        let from = src + p.row * shape.src_pitch + p.off;
        let to = dst + p.row * shape.dst_pitch + p.off;
        copy_cmd(&mut cmd, from, to, Pitched { width: p.len, height: p.rows, ..shape })?;
        last = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        gpu.count_job(ch.chid, true);
    }
    Ok(last)
}

/// One copy-engine launch of `shape` (multi-line when it has several rows).
fn copy_cmd(cmd: &mut Cmd, src: u64, dst: u64, shape: Pitched) -> Result<()> {
    let words = [addr40::hi(src), addr40::lo(src), addr40::hi(dst), addr40::lo(dst)];
    let multi = shape.height > 1;
    let l: u32 = LaunchDma::from(launch(true, false)).with_multi_line(multi).into();
    cmd.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &words)
        .and_then(|_| {
            if multi {
                let regs = [shape.src_pitch as u32, shape.dst_pitch as u32, shape.width as u32, shape.height as u32];
                cmd.incr(subch::COPY0, copy::PITCH_IN, &regs)
            } else {
                cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[shape.width as u32])
            }
        })
        .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[l]))
        .map_err(|_| CuError::Unknown)
}
