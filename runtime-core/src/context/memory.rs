//! A context's memory: allocations of VRAM or pinned host memory mapped into its address
//! space, copies through the copy engine (host data is staged in DMA memory,
//! double-buffered), and memsets with the copy engine's remap unit and a constant
//! component, as NVIDIA's driver does.

use super::vmm::Mapping;
use super::{Context, Inner};
use crate::channel::{Channel, Cmd, Fence, Release};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::{DmaBuffer, Platform};
use alloc::sync::Arc;
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
    fn size(self) -> u64 {
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

/// What backs an allocation.
pub(crate) enum Backing {
    /// Video memory at this physical address.
    Vram(u64),
    /// Pinned host memory (mapped with system-memory PTEs).
    Host(DmaBuffer),
    /// A mapping of a physical allocation of the VMM API.
    Mapped(Mapping),
}

/// Who an allocation belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The program (cuMemAlloc, cuMemHostAlloc): cuMemFree and cuMemGetAddressRange see it.
    User,
    /// The runtime (module segments, parameter buffers): freed only by whatever created it.
    Runtime,
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
        let rounded = bytes.checked_next_multiple_of(PAGE_SIZE).ok_or(CuError::OutOfMemory)?;
        let phys = gpu.vram_alloc(rounded, PAGE_SIZE)?;
        let va = match self.vm.alloc_va(rounded) {
            Ok(va) => va,
            Err(e) => {
                gpu.vram_free(phys, rounded);
                return Err(e);
            }
        };
        if let Err(e) = self.vm.map(gpu, va, phys, rounded, Target::Vram).and_then(|_| gpu.tlb_flush(self.vm.pd)) {
            let _ = self.vm.unmap(gpu, va, rounded);
            self.vm.free_va(va, rounded);
            gpu.vram_free(phys, rounded);
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Vram(phys), owner });
        if self.check.as_ref().is_some_and(|c| c.mode.initcheck()) {
            // Fresh memory holds nothing written yet, whatever the last owner wrote.
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_LO, 0, phys as u32);
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_HI, 0, (phys >> 32) as u32);
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_SIZE, 0, rounded as u32);
        }
        self.table_changed();
        Ok(va)
    }

    /// Allocate `bytes` of pinned host memory and map it with system-memory PTEs for the
    /// program; returns the device pointer and the memory.
    pub(crate) fn alloc_host<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        bytes: u64,
    ) -> Result<(u64, Arc<fifo::SharedMem>)> {
        let len = usize::try_from(bytes).map_err(|_| CuError::OutOfMemory)?;
        let buf = gpu.platform.dma_alloc(len)?;
        let rounded = buf.len() as u64;
        let va = match self.vm.alloc_va(rounded) {
            Ok(va) => va,
            Err(e) => {
                gpu.platform.dma_free(&buf);
                return Err(e);
            }
        };
        if let Err(e) =
            self.vm.map(gpu, va, buf.bus, rounded, Target::SysCoherent).and_then(|_| gpu.tlb_flush(self.vm.pd))
        {
            let _ = self.vm.unmap(gpu, va, rounded);
            self.vm.free_va(va, rounded);
            gpu.platform.dma_free(&buf);
            return Err(e);
        }
        let mem = buf.mem.clone();
        self.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Host(buf), owner: Owner::User });
        self.table_changed();
        Ok((va, mem))
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
            Some(Backing::Vram(_)) if !host => Ok(()),
            _ => Err(CuError::InvalidValue),
        }
    }

    /// The program's allocation containing `ptr`: (base, size).
    pub(crate) fn user_range(&self, ptr: u64) -> Result<(u64, u64)> {
        let (&base, a) = self.allocs.range(..=ptr).next_back().ok_or(CuError::NotFound)?;
        if ptr < base + a.size && a.owner == Owner::User { Ok((base, a.size)) } else { Err(CuError::NotFound) }
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

    /// Queue a copy of `len` bytes from `src` to `dst` on the default stream (an L2
    /// write-back first when `flush`); returns what to wait for.
    fn queue_copy<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        src: u64,
        dst: u64,
        len: u64,
        flush: bool,
    ) -> Result<Release> {
        let ch = self.live()?;
        let mut cmd = Cmd::new();
        if flush {
            // Kernels leave dirty lines in the L2: write them back before reading VRAM.
            l2_flush(&mut cmd)?;
        }
        copy_cmd(&mut cmd, src, dst, len)?;
        let f = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        ch.release_of(f)
    }

    /// Queue a copy of `bytes` between two device pointers of the context on stream `s`;
    /// returns the stream's fence.
    pub(crate) fn copy<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        dst: u64,
        src: u64,
        bytes: u64,
    ) -> Result<Fence> {
        if bytes == 0 {
            return Ok(self.chan(s)?.last_fence());
        }
        self.check_range(src, bytes, false)?;
        self.check_range(dst, bytes, true)?;
        let ch = self.ordered(gpu, s)?;
        copy_range(gpu, ch, dst, src, bytes)
    }

    /// Queue a memset of `count` elements at `dst` on stream `s`; returns the stream's
    /// fence.
    pub(crate) fn memset<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        dst: u64,
        value: MemsetValue,
        count: u64,
    ) -> Result<Fence> {
        let size = value.size();
        if !dst.is_multiple_of(size) {
            return Err(CuError::InvalidValue);
        }
        let bytes = count.checked_mul(size).ok_or(CuError::InvalidValue)?;
        if count == 0 {
            return Ok(self.chan(s)?.last_fence());
        }
        self.check_range(dst, bytes, true)?;
        let ch = self.ordered(gpu, s)?;
        let remap = RemapComponents::new()
            .with_dst_x(RemapSrc::ConstA)
            .with_dst_y(RemapSrc::NoWrite)
            .with_dst_z(RemapSrc::NoWrite)
            .with_dst_w(RemapSrc::NoWrite)
            .with_component_size_minus_one((size - 1) as u8);
        let per = LAUNCH_MAX / size;
        let mut done = 0;
        let mut last = ch.last_fence();
        while done < count {
            let n = (count - done).min(per);
            let d = dst + done * size;
            let mut cmd = Cmd::new();
            cmd.incr(subch::COPY0, copy::SET_REMAP_CONST_A, &[value.bits()])
                .and_then(|_| cmd.incr(subch::COPY0, copy::SET_REMAP_COMPONENTS, &[remap.into()]))
                .and_then(|_| cmd.incr(subch::COPY0, copy::OFFSET_OUT_UPPER, &[addr40::hi(d), addr40::lo(d)]))
                .and_then(|_| cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[n as u32]))
                .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[launch(true, true)]))
                .map_err(|_| CuError::Unknown)?;
            last = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            done += n;
        }
        Ok(last)
    }
}

impl<P: Platform> Context<P> {
    /// Copy host memory to the device; returns when `src` may be reused. The copy holds
    /// the context's staging buffers (host copies of a context take turns, as on CUDA's
    /// legacy stream), never the context's lock while it waits.
    pub(crate) fn copy_htod(&self, gpu: &Device<P>, dst: u64, src: &[u8]) -> Result<()> {
        let bufs = self.staging();
        self.with(gpu, |c| c.host_copy_start(gpu, dst, src.len() as u64, true))?;
        let chunk = bufs[0].buf.len();
        let mut pending: [Option<Release>; 2] = [None, None];
        for (i, part) in src.chunks(chunk).enumerate() {
            let s = &bufs[i % 2];
            if let Some(w) = pending[i % 2].take() {
                w.wait(gpu)?; // the buffer's previous part has been copied out of it
            }
            gpu.platform.copy_from_user(&s.buf.mem, 0, part)?;
            let to = dst + (i * chunk) as u64;
            pending[i % 2] = Some(self.with(gpu, |c| c.queue_copy(gpu, s.va, to, part.len() as u64, false))?);
        }
        pending.iter().flatten().try_for_each(|w| w.wait(gpu))
    }

    /// Copy device memory to the host; waits for earlier work on the context, holding the
    /// staging buffers but not the context's lock.
    pub(crate) fn copy_dtoh(&self, gpu: &Device<P>, dst: &mut [u8], src: u64) -> Result<()> {
        let bufs = self.staging();
        self.with(gpu, |c| c.host_copy_start(gpu, src, dst.len() as u64, false))?;
        let chunk = bufs[0].buf.len();
        // Queue part i into staging buffer i % 2, then drain part i - 1.
        let drain = |(j, out, w): (usize, &mut [u8], Release)| -> Result<()> {
            w.wait(gpu)?;
            gpu.platform.copy_to_user(out, &bufs[j % 2].buf.mem, 0)
        };
        let mut pending: Option<(usize, &mut [u8], Release)> = None;
        for (i, part) in dst.chunks_mut(chunk).enumerate() {
            let from = src + (i * chunk) as u64;
            let w = self.with(gpu, |c| c.queue_copy(gpu, from, bufs[i % 2].va, part.len() as u64, i == 0))?;
            if let Some(done) = pending.replace((i, part, w)) {
                drain(done)?;
            }
        }
        pending.map_or(Ok(()), drain)
    }
}

/// Free what backs `a` (a mapping: one mapping fewer of its physical allocation).
pub(super) fn free_backing<P: Platform>(gpu: &Device<P>, a: Alloc) {
    match a.backing {
        Backing::Vram(phys) => gpu.vram_free(phys, a.bytes),
        Backing::Host(buf) => gpu.platform.dma_free(&buf),
        Backing::Mapped(m) => gpu.phys_unmap(m.handle),
    }
}

fn launch(transfer: bool, remap: bool) -> u32 {
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

/// Queue copies of `bytes` from `src` to `dst` (device pointers) on `ch`, each launch at
/// most LAUNCH_MAX bytes; returns the fence after the last.
fn copy_range<P: Platform>(gpu: &Device<P>, ch: &mut Channel, dst: u64, src: u64, bytes: u64) -> Result<Fence> {
    let mut off = 0;
    let mut last = ch.last_fence();
    while off < bytes {
        let n = (bytes - off).min(LAUNCH_MAX);
        let mut cmd = Cmd::new();
        copy_cmd(&mut cmd, src + off, dst + off, n)?;
        last = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        off += n;
    }
    Ok(last)
}

fn copy_cmd(cmd: &mut Cmd, src: u64, dst: u64, len: u64) -> Result<()> {
    let words = [addr40::hi(src), addr40::lo(src), addr40::hi(dst), addr40::lo(dst)];
    cmd.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &words)
        .and_then(|_| cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[len as u32]))
        .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[launch(true, false)]))
        .map_err(|_| CuError::Unknown)
}
