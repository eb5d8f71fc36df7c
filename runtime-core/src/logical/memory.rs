//! A logical GPU's memory: allocations split by pages over the gang, and memory of the
//! first GPU (host memory it maps, arrays, VMM mappings, texture pools) mapped at the same
//! address into the counterparts, so every GPU's part of a kernel reaches it.

use super::{Gang, LogicalGpu};
use crate::api::texture::{ArrayHandle, MipmappedHandle};
use crate::api::{CtxHandle, Object, id_in};
use crate::context::memory::{Owner, Share};
use crate::context::texture::{ArrayDesc, Resource, TexDesc};
use crate::context::vmm::Access;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::{sync::Arc, vec::Vec};
use hw::mmu::PAGE_SIZE;

/// Split `n` units into `parts` contiguous ranges, the first ones one larger when it does
/// not divide: (first, count) each, count 0 for an empty range.
pub fn split_even(n: u64, parts: usize) -> Vec<(u64, u64)> {
    let p = parts.max(1) as u64;
    let (q, r) = (n / p, n % p);
    let mut at = 0;
    (0..p)
        .map(|i| {
            let c = q + u64::from(i < r);
            let range = (at, c);
            at += c;
            range
        })
        .collect()
}

impl<P: Platform> LogicalGpu<P> {
    /// See [`crate::Gpu::mem_alloc`]: split by pages over a gang.
    pub fn mem_alloc(&self, h: CtxHandle, bytes: u64) -> Result<u64> {
        self.mem_alloc_in(h, bytes, false)
    }

    /// See [`crate::Gpu::mem_alloc_in`]. On a gang a low allocation is the first GPU's,
    /// mapped at its address into the others' counterparts (their low windows hold nothing
    /// else); any other is split by pages.
    pub fn mem_alloc_in(&self, h: CtxHandle, bytes: u64, low: bool) -> Result<u64> {
        let Some(g) = self.gang.get() else { return self.gpu.mem_alloc_in(h, bytes, low) };
        if bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        if !low {
            return self.alloc_split(g, h, bytes);
        }
        let va = self.gpu.mem_alloc_in(h, bytes, low)?;
        if let Err(e) = self.share_vram(g, h, va) {
            let _ = self.gpu.with_ctx(h, |gpu, c| c.free_now(gpu, va));
            return Err(e);
        }
        Ok(va)
    }

    /// See [`crate::Gpu::mem_alloc_pitch`].
    pub fn mem_alloc_pitch(&self, h: CtxHandle, width: u64, height: u64, elem: u32, low: bool) -> Result<(u64, u64)> {
        let (pitch, bytes) = crate::api::memory::pitched_size(width, height, elem)?;
        Ok((self.mem_alloc_in(h, bytes, low)?, pitch))
    }

    /// See [`crate::Gpu::mem_free`]: a split allocation's pieces are freed on every GPU.
    pub fn mem_free(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        self.gpu.mem_free(h, ptr)?;
        if let Some(g) = self.gang.get() {
            self.flush_others(h);
            // A split allocation, or a low one of the first GPU's mapped into the others.
            if !self.freed_split(g, h, ptr) {
                self.unshare(h, ptr);
            }
        }
        Ok(())
    }

    /// See [`crate::Gpu::mem_free_host`]: it leaves the counterparts too.
    pub fn mem_free_host(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        self.gpu.mem_free_host(h, ptr)?;
        self.flush_others(h);
        self.unshare(h, ptr);
        Ok(())
    }

    /// See [`crate::Gpu::mem_alloc_host`].
    pub fn mem_alloc_host(&self, h: CtxHandle, bytes: u64) -> Result<(u64, Arc<fifo::SharedMem>)> {
        self.mem_alloc_host_in(h, bytes, false)
    }

    /// See [`crate::Gpu::mem_alloc_host_in`]: mapped into the counterparts too.
    pub fn mem_alloc_host_in(&self, h: CtxHandle, bytes: u64, low: bool) -> Result<(u64, Arc<fifo::SharedMem>)> {
        let (va, mem) = self.gpu.mem_alloc_host_in(h, bytes, low)?;
        self.share_host(h, va, &mem)?;
        Ok((va, mem))
    }

    /// See [`crate::Gpu::mem_host_register`]: mapped into the counterparts too.
    pub fn mem_host_register(&self, h: CtxHandle, mem: Arc<fifo::SharedMem>, read_only: bool) -> Result<u64> {
        let va = self.gpu.mem_host_register(h, mem.clone(), read_only)?;
        self.share_host(h, va, &mem)?;
        Ok(va)
    }

    /// See [`crate::Gpu::mem_alloc_managed`]: mapped into the counterparts too.
    pub fn mem_alloc_managed(&self, h: CtxHandle, bytes: u64) -> Result<(u64, Arc<fifo::SharedMem>)> {
        let (va, mem) = self.gpu.mem_alloc_managed(h, bytes)?;
        self.share_host(h, va, &mem)?;
        Ok((va, mem))
    }

    /// See [`crate::Gpu::mem_host_map_fixed`]: mapped into the counterparts too.
    pub fn mem_host_map_fixed(&self, h: CtxHandle, mem: Arc<fifo::SharedMem>, host: u64) -> Result<u64> {
        let va = self.gpu.mem_host_map_fixed(h, mem.clone(), host)?;
        self.share_host(h, va, &mem)?;
        Ok(va)
    }

    /// See [`crate::Gpu::mem_map_host_at`]: mapped into the counterparts too.
    pub fn mem_map_host_at(&self, h: CtxHandle, va: u64, mem: Arc<fifo::SharedMem>) -> Result<()> {
        self.gpu.mem_map_host_at(h, va, mem.clone())?;
        self.share_host(h, va, &mem)
    }

    /// See [`crate::Gpu::mem_unmap_foreign`]: it leaves the counterparts too.
    pub fn mem_unmap_foreign(&self, h: CtxHandle, va: u64) -> Result<()> {
        self.gpu.mem_unmap_foreign(h, va)?;
        self.flush_others(h);
        self.unshare(h, va);
        Ok(())
    }

    /// See [`crate::Gpu::mem_unmap`]: the mappings leave the counterparts first.
    pub fn mem_unmap(&self, h: CtxHandle, va: u64, bytes: u64) -> Result<()> {
        if self.gang.get().is_some() {
            self.gpu.ctx_synchronize(h)?;
            self.flush_others(h);
            for (b, ..) in self.gpu.with_ctx(h, |_, c| c.mapped_tiles(va, bytes))? {
                self.unshare(h, b);
            }
        }
        self.gpu.mem_unmap(h, va, bytes)
    }

    /// See [`crate::Gpu::mem_set_access`]: the counterparts map the mappings over the
    /// links with the same access (a mapping of the first GPU's memory).
    pub fn mem_set_access(&self, h: CtxHandle, va: u64, bytes: u64, access: Access) -> Result<()> {
        self.gpu.mem_set_access(h, va, bytes, access)?;
        self.flush_others(h);
        let Some(g) = self.gang.get() else { return Ok(()) };
        let tiles = self.gpu.with_ctx(h, |_, c| c.mapped_tiles(va, bytes))?;
        for (o, &c) in g.others.iter().zip(&self.others(g, h)?) {
            for &(b, len, phys, access) in &tiles {
                // What it mapped there before (none at the first grant).
                let _ = o.mem_unmap_foreign(c, b);
                if access != Access::None {
                    o.with_ctx(c, |dev, x| x.map_peer(dev, b, (phys, len, 0), access == Access::Read))?;
                }
            }
        }
        Ok(())
    }

    /// See [`crate::Gpu::array_create`]: mapped into the counterparts at its address.
    pub fn array_create(&self, h: CtxHandle, desc: ArrayDesc) -> Result<ArrayHandle> {
        let a = self.gpu.array_create(h, desc)?;
        self.array_shared(h, a.0).map(|()| a)
    }

    /// See [`crate::Gpu::mipmapped_create`]: mapped into the counterparts at its address.
    pub fn mipmapped_create(&self, h: CtxHandle, desc: ArrayDesc, levels: u32) -> Result<MipmappedHandle> {
        let m = self.gpu.mipmapped_create(h, desc, levels)?;
        self.array_shared(h, m.0).map(|()| m)
    }

    /// See [`crate::Gpu::array_destroy`]: it leaves the counterparts first.
    pub fn array_destroy(&self, a: ArrayHandle) -> Result<()> {
        if self.gang.get().is_some() {
            let h = a.ctx();
            self.gpu.with_objs(h, &[a.named()], |_, c| c.array(a.id()).map(drop))?;
            self.array_unshared(h, a.id())?;
        }
        self.gpu.array_destroy(a)
    }

    /// See [`crate::Gpu::mipmapped_destroy`]: it leaves the counterparts first.
    pub fn mipmapped_destroy(&self, m: MipmappedHandle) -> Result<()> {
        if self.gang.get().is_some() {
            let h = m.ctx();
            self.gpu.with_objs(h, &[m.named()], |_, c| c.mipmapped(m.id()).map(drop))?;
            self.array_unshared(h, m.id())?;
        }
        self.gpu.mipmapped_destroy(m)
    }

    /// See [`crate::Gpu::tex_create`]: the counterparts sample it through the first
    /// GPU's pools.
    pub fn tex_create(&self, h: CtxHandle, res: Resource, desc: TexDesc) -> Result<u64> {
        let t = self.gpu.tex_create(h, res, desc)?;
        self.object_shared(h, t, false)
    }

    /// See [`crate::Gpu::surf_create`]: the counterparts use it through the first GPU's
    /// pools.
    pub fn surf_create(&self, h: CtxHandle, a: ArrayHandle) -> Result<u64> {
        let s = self.gpu.surf_create(h, a)?;
        self.object_shared(h, s, true)
    }

    /// Array `handle` of context `h` (made now) mapped into the counterparts at its
    /// address, so their parts of a kernel reach it; destroyed again if that fails.
    fn array_shared(&self, h: CtxHandle, handle: u64) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let id = id_in(h, handle)?;
        let r = self.gpu.with_ctx(h, |_, c| c.array_memory(id)).and_then(|va| self.share_vram(g, h, va));
        if r.is_err() {
            let _ = self.gpu.with_ctx(h, |gpu, c| c.array_destroy(gpu, id).or_else(|_| c.mipmapped_destroy(gpu, id)));
        }
        r
    }

    /// Array `id`'s memory leaves the counterparts (before it is freed), once the
    /// context's queued work is done.
    fn array_unshared(&self, h: CtxHandle, id: u64) -> Result<()> {
        self.gpu.ctx_synchronize(h)?;
        self.flush_others(h);
        if let Ok(va) = self.gpu.with_ctx(h, |_, c| c.array_memory(id)) {
            self.unshare(h, va);
        }
        Ok(())
    }

    /// Object `handle` of context `h` (made now) sampled by every GPU's part of a kernel,
    /// through the first GPU's pools; destroyed again if that fails.
    fn object_shared(&self, h: CtxHandle, handle: u64, surface: bool) -> Result<u64> {
        if let Err(e) = self.share_pools(h) {
            let _ = self.gpu.with_ctx(h, |gpu, c| c.object_destroy(gpu, handle, surface));
            return Err(e);
        }
        Ok(handle)
    }

    /// Free the pieces of a split allocation, each on its GPU.
    pub(super) fn free_pieces(&self, g: &Gang<P>, pieces: &[(usize, u64, u64)]) {
        for &(m, phys, bytes) in pieces {
            match m {
                0 => self.vram_pages_free(phys, bytes),
                m => g.others[m - 1].vram_pages_free(phys, bytes),
            }
        }
    }

    /// cuMemAlloc on a gang: `bytes` split by pages over the GPUs, a contiguous piece each.
    fn alloc_split(&self, g: &Gang<P>, h: CtxHandle, bytes: u64) -> Result<u64> {
        let others = self.others(g, h)?;
        let pages = bytes.div_ceil(PAGE_SIZE);
        let mut pieces: Vec<(usize, u64, u64)> = Vec::new();
        for (m, (_, count)) in split_even(pages, others.len() + 1).into_iter().enumerate().filter(|r| r.1.1 > 0) {
            let len = count * PAGE_SIZE;
            let phys = match m {
                0 => self.vram_pages_alloc(len),
                m => g.others[m - 1].vram_pages_alloc(len),
            };
            match phys {
                Ok(p) => pieces.push((m, p, len)),
                Err(e) => {
                    self.free_pieces(g, &pieces);
                    return Err(e);
                }
            }
        }
        let seen_from = |me: usize| -> Vec<(u64, Share)> {
            let place = |m: usize, phys| if m == me { Share::Local(phys) } else { Share::Peer(phys, m as u8) };
            pieces.iter().map(|&(m, phys, len)| (len, place(m, phys))).collect()
        };
        let va = match self.gpu.with_ctx(h, |gpu, c| c.map_split(gpu, None, bytes, &seen_from(0), Owner::User)) {
            Ok(va) => va,
            Err(e) => {
                self.free_pieces(g, &pieces);
                return Err(e);
            }
        };
        for (m, (o, &c)) in g.others.iter().zip(&others).enumerate() {
            let mapped = o.with_ctx(c, |gpu, x| x.map_split(gpu, Some(va), bytes, &seen_from(m + 1), Owner::Foreign));
            if let Err(e) = mapped {
                for (o, &c) in g.others.iter().zip(&others).take(m) {
                    let _ = o.mem_unmap_foreign(c, va);
                }
                let _ = self.gpu.with_ctx(h, |gpu, x| x.free_now(gpu, va));
                self.free_pieces(g, &pieces);
                return Err(e);
            }
        }
        if let Some(ctx) = g.ctxs.lock().get_mut(&h.0) {
            ctx.allocs.insert(va, pieces);
        }
        Ok(va)
    }

    /// Host memory `mem` was mapped at `va` into context `h` (pinned, registered or
    /// managed memory): map it into the counterparts too, where their kernels' pieces
    /// reach it. Nothing to do off a gang.
    fn share_host(&self, h: CtxHandle, va: u64, mem: &Arc<fifo::SharedMem>) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let others = self.others(g, h)?;
        for (m, (o, &c)) in g.others.iter().zip(&others).enumerate() {
            if let Err(e) = o.mem_map_host_at(c, va, mem.clone()) {
                for (o, &c) in g.others.iter().zip(&others).take(m) {
                    let _ = o.mem_unmap_foreign(c, va);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// The first GPU's VRAM at `va` in context `h` (an array's): mapped at the same address
    /// into the counterparts, over the link (peer table entry 0 is the first GPU).
    fn share_vram(&self, g: &Gang<P>, h: CtxHandle, va: u64) -> Result<()> {
        let others = self.others(g, h)?;
        let (phys, bytes) = self.gpu.with_ctx(h, |_, c| c.vram_extent(va).ok_or(CuError::Unknown))?;
        for (m, (o, &c)) in g.others.iter().zip(&others).enumerate() {
            if let Err(e) = o.mem_map_peer(c, va, phys, bytes, 0) {
                for (o, &c) in g.others.iter().zip(&others).take(m) {
                    let _ = o.mem_unmap_foreign(c, va);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Context `h` made a texture or surface object: the counterparts bind its header and
    /// sampler pools, mapped over the link at their address (once), so a kernel's parts on
    /// every GPU sample the same objects by the same handles.
    pub(super) fn share_pools(&self, h: CtxHandle) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let Some((va, bytes)) = self.gpu.with_ctx(h, |_, c| Ok(c.pools_extent()))? else { return Ok(()) };
        let phys = self.gpu.with_ctx(h, |_, c| c.vram_extent(va).map(|e| e.0).ok_or(CuError::Unknown))?;
        for (o, &c) in g.others.iter().zip(&self.others(g, h)?) {
            if o.with_ctx(c, |_, x| Ok(x.pools_at.is_some()))? {
                continue;
            }
            o.mem_map_peer(c, va, phys, bytes, 0)?;
            o.with_ctx(c, |_, x| {
                x.pools_at = Some(va);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Memory at `va` left context `h`: it leaves the counterparts too.
    fn unshare(&self, h: CtxHandle, va: u64) {
        let Some(g) = self.gang.get() else { return };
        for (o, &c) in g.others.iter().zip(&self.others(g, h).unwrap_or_default()) {
            let _ = o.mem_unmap_foreign(c, va);
        }
    }

    /// cuMemFree of a split allocation, once the first GPU's context freed it: unmap it
    /// from the counterparts and free its pieces. False when `ptr` is not one.
    fn freed_split(&self, g: &Gang<P>, h: CtxHandle, ptr: u64) -> bool {
        let (pieces, others) = {
            let mut ctxs = g.ctxs.lock();
            let Some(ctx) = ctxs.get_mut(&h.0) else { return false };
            let Some(p) = ctx.allocs.remove(&ptr) else { return false };
            (p, ctx.others.clone())
        };
        for (o, &c) in g.others.iter().zip(&others) {
            let _ = o.mem_unmap_foreign(c, ptr);
        }
        self.free_pieces(g, &pieces);
        true
    }
}
