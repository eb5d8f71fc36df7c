//! Memory calls: device and pinned host allocations, copies and memsets. Host copies are
//! blocking (the host buffer is borrowed for the call); copies between device pointers
//! and memsets go to a stream and return its fence.

use super::{CtxHandle, Gpu, Object, StreamHandle};
use crate::channel::Fence;
use crate::context::memory::{MemsetValue, Owner, Pitched};
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// The row alignment of cuMemAllocPitch: the texture alignment, so that any row can be
/// bound to a texture (what CUDA's drivers return on Fermi and later boards).
pub const PITCH_ALIGNMENT: u64 = crate::context::texture::TEXTURE_ALIGNMENT;

/// The pitch and bytes of [`Gpu::mem_alloc_pitch`]'s allocation.
pub(crate) fn pitched_size(width: u64, height: u64, elem: u32) -> Result<(u64, u64)> {
    if width == 0 || height == 0 || !matches!(elem, 4 | 8 | 16) {
        return Err(CuError::InvalidValue);
    }
    let pitch = width.checked_next_multiple_of(PITCH_ALIGNMENT).ok_or(CuError::InvalidValue)?;
    if pitch > i32::MAX as u64 {
        return Err(CuError::InvalidValue);
    }
    Ok((pitch, pitch.checked_mul(height).ok_or(CuError::OutOfMemory)?))
}

impl<P: Platform> Gpu<P> {
    /// Allocate `bytes` of device memory (cuMemAlloc). Returns the device pointer.
    pub fn mem_alloc(&self, h: CtxHandle, bytes: u64) -> Result<u64> {
        self.mem_alloc_in(h, bytes, false)
    }

    /// [`Gpu::mem_alloc`], at a device pointer below 4 GiB when `low` (the 32-bit ABI of
    /// the pre-CUDA-3.2 entry points: such pointers come from a window of 3.75 GiB).
    pub fn mem_alloc_in(&self, h: CtxHandle, bytes: u64, low: bool) -> Result<u64> {
        if bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.alloc_vram_in(gpu, bytes, Owner::User, low))
    }

    /// Allocate `height` rows of at least `width` bytes for elements of `elem` bytes (4, 8
    /// or 16), the rows a pitch apart that textures and the copy engine take
    /// (cuMemAllocPitch): returns the device pointer and the pitch, `width` rounded up to
    /// [`PITCH_ALIGNMENT`].
    /// Below 4 GiB when `low`, as [`Gpu::mem_alloc_in`].
    pub fn mem_alloc_pitch(&self, h: CtxHandle, width: u64, height: u64, elem: u32, low: bool) -> Result<(u64, u64)> {
        let (pitch, bytes) = pitched_size(width, height, elem)?;
        Ok((self.mem_alloc_in(h, bytes, low)?, pitch))
    }

    /// Free device memory (cuMemFree). Work queued before it completes first.
    pub fn mem_free(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        self.free_alloc(h, ptr, false)
    }

    /// Allocate `bytes` of pinned host memory mapped into the context's address space
    /// (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP): kernels and copies reach it through
    /// the returned device pointer (system-memory PTEs), the host through the memory.
    pub fn mem_alloc_host(&self, h: CtxHandle, bytes: u64) -> Result<(u64, Arc<fifo::SharedMem>)> {
        self.mem_alloc_host_in(h, bytes, false)
    }

    /// [`Gpu::mem_alloc_host`], the device pointer below 4 GiB when `low`, as for
    /// [`Gpu::mem_alloc_in`].
    pub fn mem_alloc_host_in(&self, h: CtxHandle, bytes: u64, low: bool) -> Result<(u64, Arc<fifo::SharedMem>)> {
        if bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.alloc_host(gpu, bytes, low))
    }

    /// Map host pages a program registers (cuMemHostRegister: `mem`, whole 4 KiB pages of
    /// the program's memory) into context `h`, read-only for the device if `read_only`;
    /// returns their device address. Unregistered with [`Gpu::mem_free_host`].
    pub fn mem_host_register(&self, h: CtxHandle, mem: Arc<fifo::SharedMem>, read_only: bool) -> Result<u64> {
        if mem.is_empty() {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.register_host(gpu, mem.clone(), read_only))
    }

    /// Allocate `bytes` of managed memory (cuMemAllocManaged): host memory at its device
    /// address, so the one pointer serves the host and every kernel; NOT_SUPPORTED without
    /// unified addressing. Freed with [`Gpu::mem_free_host`].
    pub fn mem_alloc_managed(&self, h: CtxHandle, bytes: u64) -> Result<(u64, Arc<fifo::SharedMem>)> {
        if bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.alloc_managed(gpu, bytes, Owner::User))
    }

    /// Map host pages of the program (`mem`, whole pages starting at host address `host`)
    /// into context `h` for good, at their host address when the bottom window of the
    /// address space ([`crate::vm::FIXED_VA_END`]) has it free, else anywhere; returns
    /// the device address of the first page. What a program's `__managed__` variables
    /// live in when the compiler leaves their storage in the program's data.
    pub fn mem_host_map_fixed(&self, h: CtxHandle, mem: Arc<fifo::SharedMem>, host: u64) -> Result<u64> {
        if mem.is_empty() || !host.is_multiple_of(hw::mmu::PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.register_host_fixed(gpu, mem.clone(), host))
    }

    /// Free pinned host memory from [`Gpu::mem_alloc_host`] (cuMemFreeHost) or unregister
    /// pages from [`Gpu::mem_host_register`] (cuMemHostUnregister), after the work queued
    /// before it.
    pub fn mem_free_host(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        self.free_alloc(h, ptr, true)
    }

    /// Free a user allocation after the context's queued work, waiting without the lock.
    fn free_alloc(&self, h: CtxHandle, ptr: u64, host: bool) -> Result<()> {
        self.with_ctx(h, |_, c| c.user_alloc(ptr, host))?;
        self.ctx_synchronize(h)?;
        self.with_ctx(h, |gpu, c| c.user_alloc(ptr, host).and_then(|()| c.free_now(gpu, ptr)))
    }

    /// The program's allocation containing `ptr`: (base, size) (cuMemGetAddressRange;
    /// memory the runtime holds for itself is not the program's).
    pub fn mem_range(&self, h: CtxHandle, ptr: u64) -> Result<(u64, u64)> {
        self.with_ctx(h, |_, c| c.user_range(ptr))
    }

    /// Enable replayable faults (the device's fault buffer, `entries` records): contexts
    /// created from now on park an access that finds no PTE instead of failing, and the
    /// threads waiting for the device call `handler` with the faults, then replay the
    /// parked accesses (or cancel them, failing their grids, when it returns false). The
    /// handler may call the runtime; it runs on a waiting thread.
    pub fn enable_replayable_faults(
        &self,
        entries: u32,
        handler: impl Fn(&[hw::replay::Entry]) -> bool + Send + Sync + 'static,
    ) -> Result<()> {
        self.dev.replay_enable(entries, Arc::new(handler))
    }

    /// Hold the fault service off on a thread while `held()` says so there: its waits then
    /// serve no replayable faults of this GPU (they wait for a later service). For a
    /// handler whose own lock a thread holds around a wait (a migration the handler's
    /// state asked for), which a service from inside that wait would need again. Set
    /// once; later calls change nothing.
    pub fn replay_hold(&self, held: impl Fn() -> bool + Send + Sync + 'static) {
        self.dev.replay.hold.call_once(|| alloc::boxed::Box::new(held));
    }

    /// VRAM for pages the caller manages itself (managed memory migrated to this GPU):
    /// `bytes` (whole pages) at a physical address; free with [`Gpu::vram_pages_free`].
    pub fn vram_pages_alloc(&self, bytes: u64) -> Result<u64> {
        if bytes == 0 || !bytes.is_multiple_of(hw::mmu::PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        self.dev.vram_alloc(bytes, hw::mmu::PAGE_SIZE)
    }

    /// Give back VRAM [`Gpu::vram_pages_alloc`] gave.
    pub fn vram_pages_free(&self, phys: u64, bytes: u64) {
        self.dev.vram_free(phys, bytes);
    }

    /// Write `data` (whole words) to VRAM at `phys` through the PRAMIN window.
    pub fn vram_write(&self, phys: u64, data: &[u8]) -> Result<()> {
        if !data.len().is_multiple_of(4) {
            return Err(CuError::InvalidValue);
        }
        self.dev.pramin_write(phys, data.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
    }

    /// Read VRAM at `phys` into `buf` (whole words) through the PRAMIN window.
    pub fn vram_read(&self, phys: u64, buf: &mut [u8]) -> Result<()> {
        if !buf.len().is_multiple_of(4) {
            return Err(CuError::InvalidValue);
        }
        for (i, w) in buf.chunks_exact_mut(4).enumerate() {
            w.copy_from_slice(&self.dev.pramin_read(phys + 4 * i as u64)?.to_le_bytes());
        }
        Ok(())
    }

    /// Point the PTEs of `[va, va + bytes)` in context `h` at VRAM `phys` (`Some`) or make
    /// them invalid (`None`), now, without waiting: pages a replayable fault handler
    /// migrates (the accesses that need them are parked). The context's allocation table
    /// does not change: the caller keeps track of what it mapped.
    pub fn mem_pages_set(&self, h: CtxHandle, va: u64, bytes: u64, phys: Option<u64>) -> Result<()> {
        self.ctx(h)?.with_unchecked(|inner| inner.set_pages(&self.dev, va, bytes, phys))
    }

    /// Where the PTEs of `[va, va + bytes)` of context `h` are, its page tables made now
    /// where missing: [`Gpu::pte_set`] then points those pages without the context's
    /// lock (a fault service runs where a thread may hold it). Valid until the context is
    /// destroyed.
    pub fn pte_slots(&self, h: CtxHandle, va: u64, bytes: u64) -> Result<crate::vm::PteSlots> {
        self.ctx(h)?.with_unchecked(|inner| inner.vm.pte_slots(&self.dev, va, bytes))
    }

    /// Point the page at `va` (of `slots`, this GPU's) at VRAM `phys`, or make it invalid,
    /// and flush the TLB: through PRAMIN, with no context's lock.
    pub fn pte_set(&self, slots: &crate::vm::PteSlots, va: u64, phys: Option<u64>) -> Result<()> {
        self.pte_set_to(slots, va, phys.map(|p| hw::mmu::Pte::map(p, hw::regs::Target::Vram)))
    }

    /// [`Gpu::pte_set`] to any entry (None: invalid): system memory at a bus address this
    /// GPU's DMA reaches ([`Gpu::host_bus`]), a peer's VRAM through a peer table entry
    /// ([`Gpu::peer_set`]), read-only pages.
    pub fn pte_set_to(&self, slots: &crate::vm::PteSlots, va: u64, pte: Option<hw::mmu::Pte>) -> Result<()> {
        if !va.is_multiple_of(hw::mmu::PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        let (pd, at) = slots.slot(va).ok_or(CuError::InvalidValue)?;
        let pte = pte.map_or(0, u64::from);
        self.dev.pramin_write(at, [pte as u32, (pte >> 32) as u32])?;
        self.dev.tlb_flush(pd)
    }

    /// Point peer table entry `slot` (NV_PFB_PEER) at the GPU with PCI routing id `rid`
    /// (None: no GPU): PTEs with target PEER and this entry reach its VRAM.
    pub fn peer_set(&self, slot: u8, rid: Option<u16>) -> Result<()> {
        if usize::from(slot) >= hw::mmu::PEERS {
            return Err(CuError::TooManyPeers);
        }
        let e = hw::regs::PfbPeer::new().with_rid(rid.unwrap_or(0)).with_valid(rid.is_some());
        self.dev.wr(hw::regs::NV_PFB_PEER, u32::from(slot), e);
        Ok(())
    }

    /// The program's VRAM allocations in context `h`: (device pointer, physical address,
    /// bytes), what a peer context maps when it is given access.
    pub fn mem_user_vram(&self, h: CtxHandle) -> Result<Vec<(u64, u64, u64)>> {
        self.with_ctx(h, |_, c| Ok(c.user_vram()))
    }

    /// Map another GPU's VRAM into context `h`: `bytes` at `phys` there, reached through
    /// peer table entry `slot` (see [`Gpu::peer_set`]), at device pointer `va` (its
    /// address in its own context, unified addressing). Copies and kernels of `h` then
    /// reach it over the link.
    pub fn mem_map_peer(&self, h: CtxHandle, va: u64, phys: u64, bytes: u64, slot: u8) -> Result<()> {
        self.with_ctx(h, |gpu, c| c.map_peer(gpu, va, (phys, bytes, slot), false))
    }

    /// Map host memory `mem` another context allocated at unified address `va` (managed
    /// memory) into context `h` at the same address; kernels and copies of `h` reach it.
    pub fn mem_map_host_at(&self, h: CtxHandle, va: u64, mem: Arc<fifo::SharedMem>) -> Result<()> {
        self.with_ctx(h, |gpu, c| c.map_host_at(gpu, va, mem))
    }

    /// Undo [`Gpu::mem_map_peer`] or [`Gpu::mem_map_host_at`] at `va`, after the
    /// context's queued work.
    pub fn mem_unmap_foreign(&self, h: CtxHandle, va: u64) -> Result<()> {
        self.ctx_synchronize(h)?;
        self.with_ctx(h, |gpu, c| c.unmap_foreign(gpu, va))
    }

    /// Allocate `bytes` of VRAM that the runtime owns (module segments): copies reach it,
    /// cuMemFree does not.
    pub(crate) fn runtime_alloc(&self, h: CtxHandle, bytes: u64) -> Result<u64> {
        self.with_ctx(h, |gpu, c| c.alloc_vram(gpu, bytes, Owner::Runtime))
    }

    /// Free runtime-owned allocations after the context's queued work: every one of them
    /// is freed even if one fails (the first error is returned).
    pub(crate) fn runtime_free(&self, h: CtxHandle, ptrs: &[u64]) -> Result<()> {
        let waited = self.ctx_synchronize(h);
        let freed = self.with_ctx(h, |gpu, c| {
            // Every one is freed, whatever happens to the others; the first error is kept.
            let mut first = Ok(());
            for &p in ptrs {
                let r = c.free_now(gpu, p);
                if first.is_ok() {
                    first = r;
                }
            }
            first
        });
        waited.and(freed)
    }

    /// Copy host memory to the device (cuMemcpyHtoD), in the default stream's order;
    /// returns when `src` may be reused. The copy holds the context's staging buffers
    /// (host copies of a context take turns, as on CUDA's legacy stream), never the
    /// context's lock while it waits.
    pub fn memcpy_htod(&self, h: CtxHandle, dst: u64, src: &[u8]) -> Result<()> {
        let r = self.ctx(h)?.copy_htod(&self.dev, dst, src, Pitched::linear(src.len() as u64));
        self.printf_flush(h);
        r
    }

    /// Copy `shape` from host memory (rows `shape.src_pitch` apart in `src`) to device
    /// memory at `dst` (cuMemcpy2D from the host), as [`Gpu::memcpy_htod`].
    pub fn memcpy_htod_2d(&self, h: CtxHandle, dst: u64, src: &[u8], shape: Pitched) -> Result<()> {
        let r = self.ctx(h)?.copy_htod(&self.dev, dst, src, shape);
        self.printf_flush(h);
        r
    }

    /// Copy `shape` from device memory at `src` to host memory (rows `shape.dst_pitch`
    /// apart in `dst`) (cuMemcpy2D to the host), as [`Gpu::memcpy_dtoh`].
    pub fn memcpy_dtoh_2d(&self, h: CtxHandle, dst: &mut [u8], src: u64, shape: Pitched) -> Result<()> {
        let r = self.ctx(h)?.copy_dtoh(&self.dev, dst, src, shape);
        self.printf_flush(h);
        r
    }

    /// Copy `shape` between two device pointers of the context on stream `s`
    /// (cuMemcpy2D(Async) between device memory or mapped pinned memory): one
    /// copy-engine launch with the two pitches. Returns the stream's fence.
    pub fn memcpy_2d(&self, h: CtxHandle, s: StreamHandle, dst: u64, src: u64, shape: Pitched) -> Result<Fence> {
        self.with_objs(h, &[s.named()], |gpu, c| c.copy(gpu, s.local(), dst, src, shape))
    }

    /// Copy device memory to the host (cuMemcpyDtoH), in the default stream's order;
    /// waits for earlier work on the context, holding the staging buffers but not the
    /// context's lock.
    pub fn memcpy_dtoh(&self, h: CtxHandle, dst: &mut [u8], src: u64) -> Result<()> {
        let r = self.ctx(h)?.copy_dtoh(&self.dev, dst, src, Pitched::linear(dst.len() as u64));
        self.printf_flush(h);
        r
    }

    /// Copy `bytes` between two device pointers of the context (device memory or mapped
    /// pinned host memory on either side) on stream `s` (cuMemcpyDtoD(Async),
    /// cuMemcpyAsync). Returns at once with the stream's fence; a copy of nothing queues
    /// nothing and returns the stream's last fence.
    pub fn memcpy(&self, h: CtxHandle, s: StreamHandle, dst: u64, src: u64, bytes: u64) -> Result<Fence> {
        self.with_objs(h, &[s.named()], |gpu, c| c.copy(gpu, s.local(), dst, src, Pitched::linear(bytes)))
    }

    /// Set `count` elements at `dst` to `value` on stream `s` (cuMemsetD8/D16/D32 and
    /// their Async forms). Asynchronous: returns the stream's fence.
    pub fn memset(&self, h: CtxHandle, s: StreamHandle, dst: u64, value: MemsetValue, count: u64) -> Result<Fence> {
        count.checked_mul(value.size()).ok_or(CuError::InvalidValue)?;
        self.with_objs(h, &[s.named()], |gpu, c| c.memset(gpu, s.local(), dst, value, (count, 1, 0)))
    }

    /// Set `height` rows of `width` elements at `dst`, the rows `pitch` bytes apart, to
    /// `value` on stream `s` (cuMemsetD2D8/D2D16/D2D32 and their Async forms).
    /// Asynchronous: returns the stream's fence.
    pub fn memset_2d(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        dst: u64,
        pitch: u64,
        value: MemsetValue,
        (width, height): (u64, u64),
    ) -> Result<Fence> {
        self.with_objs(h, &[s.named()], |gpu, c| c.memset(gpu, s.local(), dst, value, (width, height, pitch)))
    }
}
