//! One logical GPU over many (MGPUSim's unified GPU): a gang of GPUs that the program sees
//! as the first of them. The first GPU's runtime ([`Gpu::gang_form`]) keeps, for each of
//! its contexts, a context on every other GPU of the gang, and:
//!
//! - splits each allocation (`cuMemAlloc`) by pages into one contiguous piece per GPU, in
//!   order, mapped at the same device pointer in every context of the gang: a GPU's own
//!   piece through its VRAM PTEs, the others' through the peer aperture (a GPU's peer
//!   table entry `m` names gang member `m`);
//! - loads every module on every GPU: each GPU gets its own code and parameter buffer,
//!   and the module's data (`.global`, `.const`, managed variables) stays the first GPU's,
//!   which the others reach through the peer table;
//! - splits every launch into contiguous ranges of flattened block ids, one per GPU
//!   (GRID_FIRST_BLOCK, GRID_BLOCK_COUNT), the first GPU taking the first range. The
//!   launch's stream releases a fence that each other GPU's piece acquires before it
//!   runs; after its own piece the stream acquires each other piece's fence and releases
//!   its own. So the first GPU's stream orders everything: events, stream waits,
//!   synchronization and the legacy default stream work unchanged, and a piece's fault
//!   fails every wait in the context ([`Device::linked`](crate::device::Device)).
//!
//! Copies and memsets of split allocations are split per page owner
//! (`Gpu::gang_copy_pieces`): each piece moves on its owner's copy engine (blocking host
//! copies one owner after another; stream-ordered ones on each owner's stream, bracketed
//! by fences as a launch's parts are; 2D ones by runs of rows). Copies with arrays run on
//! the first GPU's copy engine (arrays are its memory), which reaches the other pieces
//! through the peer aperture.

use super::{CtxHandle, Gpu, Object, StreamHandle, object};
use crate::api::module::{FuncHandle, ModuleHandle};
use crate::context::memory::{Owner, Pitched, Share};
use crate::context::module::{Data, LaunchConfig, Loaded, Params};
use crate::error::{CuError, Result};
use crate::platform::Platform;
use crate::{channel::Fence, check::CheckReport, context::ContextConfig};
use alloc::{collections::BTreeMap, string::String, sync::Arc, vec, vec::Vec};
use hw::mmu::PAGE_SIZE;
use lock_api::Mutex;

/// A context's counterparts on the gang's other GPUs.
#[derive(Default)]
struct Ctx {
    /// The context on each other GPU (index `m - 1` for member `m`).
    others: Vec<CtxHandle>,
    /// Streams of the other contexts standing for a stream of this one.
    streams: BTreeMap<u64, Vec<StreamHandle>>,
    /// Modules of the other contexts standing for a module of this one, and the addresses
    /// of this module's data each maps (unmapped with the module).
    modules: BTreeMap<u64, (Vec<ModuleHandle>, Vec<u64>)>,
    /// Kernels of the other contexts standing for a kernel of this one, with its module.
    funcs: BTreeMap<u64, (u64, Vec<FuncHandle>)>,
    /// Split allocations: device pointer -> (member, physical address, bytes) per piece.
    allocs: BTreeMap<u64, Vec<(usize, u64, u64)>>,
}

/// Which channels of the other GPUs a context's waits also fail on.
struct Link {
    /// The first GPU's channels of the context.
    chans: Vec<u32>,
    /// The other GPUs' channels of its counterparts: (member - 1, channel).
    others: Vec<(usize, u32)>,
}

/// The gang a GPU leads (see the module documentation).
pub(crate) struct Gang<P: Platform> {
    /// The other GPUs, member 1 on.
    others: Vec<Arc<Gpu<P>>>,
    /// What the program is told of the one device: the first GPU's description with the
    /// gang's SMs and VRAM.
    info: crate::device::DeviceInfo,
    ctxs: Mutex<P::RawMutex, BTreeMap<u64, Ctx>>,
    links: Arc<Mutex<P::RawMutex, Vec<Link>>>,
}

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

/// A part of a 2D region of a split allocation on one GPU ([`Gpu::gang_rows`]): rows
/// `[row, row + rows)` whole, or (`span`) the bytes `[offset, offset + len)` of row `row`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rows {
    pub(super) row: u64,
    pub(super) rows: u64,
    pub(super) span: Option<(u64, u64)>,
}

impl Rows {
    /// This part of a 2D operation `shape` from `dst` (rows `dst_pitch` apart) and `src`
    /// (rows `src_pitch` apart): its destination, its source and its own shape.
    pub(super) fn of(&self, dst: u64, src: u64, shape: Pitched) -> (u64, u64, Pitched) {
        let (d, s) = (dst + self.row * shape.dst_pitch, src + self.row * shape.src_pitch);
        match self.span {
            None => (d, s, Pitched { height: self.rows, ..shape }),
            Some((off, len)) => (d + off, s + off, Pitched::linear(len)),
        }
    }
}

impl<P: Platform> Gpu<P> {
    /// Make this GPU the first of a gang with `others` (at most 7, each with unified
    /// addressing, none with a context yet): the program sees one device, this one, whose
    /// work and memory spread over all of them (see `api::gang`). `rids` are the PCI
    /// routing ids of this GPU and then of each other one; peer table entry `m` of every
    /// GPU of the gang is set to member `m`. A GPU leads at most one gang.
    pub fn gang_form(&self, others: Vec<Arc<Gpu<P>>>, rids: &[u16]) -> Result<()>
    where
        P: Send + Sync + 'static,
        P::RawMutex: Send + Sync,
    {
        let n = others.len() + 1;
        if n > hw::mmu::PEERS || rids.len() != n || others.iter().any(|o| o.gang.get().is_some()) {
            return Err(CuError::InvalidValue);
        }
        if !self.unified_addressing() || others.iter().any(|o| !o.unified_addressing()) {
            return Err(CuError::NotSupported);
        }
        if self.gang.get().is_some() || !self.contexts().is_empty() || others.iter().any(|o| !o.contexts().is_empty()) {
            return Err(CuError::InvalidValue);
        }
        let members = core::iter::once(self).chain(others.iter().map(|o| &**o));
        for (me, g) in members.enumerate() {
            for (m, &rid) in rids.iter().enumerate().filter(|&(m, _)| m != me) {
                g.peer_set(m as u8, Some(rid))?;
            }
            g.set_checks(self.checks());
        }
        let links: Arc<Mutex<P::RawMutex, Vec<Link>>> = Arc::new(Mutex::new(Vec::new()));
        let (seen, gpus) = (links.clone(), others.clone());
        self.dev.linked.call_once(|| {
            alloc::boxed::Box::new(move |chid| {
                let of: Vec<(usize, u32)> =
                    seen.lock().iter().find(|l| l.chans.contains(&chid)).map(|l| l.others.clone()).unwrap_or_default();
                of.into_iter().find_map(|(m, c)| {
                    // Nothing else serves the other GPUs: their interrupts and parked
                    // accesses are looked at here.
                    gpus[m].dev.service_interrupts();
                    gpus[m].dev.service_replays();
                    gpus[m].dev.channel_error(c)
                })
            })
        });
        let mut info = self.dev.info().clone();
        for o in &others {
            info.sms += o.dev.info().sms;
            info.gpcs += o.dev.info().gpcs;
            info.vram_size += o.dev.info().vram_size;
        }
        self.gang.call_once(|| Gang { others, info, ctxs: Mutex::new(BTreeMap::new()), links });
        Ok(())
    }

    /// What the probe found; for the first GPU of a gang, the one device the program sees:
    /// the GPUs' SMs, GPCs and VRAM together (each GPU's SMs are alike, so per-SM figures
    /// are the first one's).
    pub fn info(&self) -> &crate::device::DeviceInfo {
        self.gang.get().map_or(self.dev.info(), |g| &g.info)
    }

    /// Free and total VRAM bytes (cuMemGetInfo): a gang's together.
    pub fn mem_info(&self) -> (u64, u64) {
        let mine = self.dev.mem_info();
        self.gang_members().iter().map(|o| o.mem_info()).fold(mine, |(f, t), (f2, t2)| (f + f2, t + t2))
    }

    /// The GPUs of this GPU's gang after it (empty when it leads none).
    pub fn gang_members(&self) -> Vec<Arc<Gpu<P>>> {
        self.gang.get().map(|g| g.others.clone()).unwrap_or_default()
    }

    /// The other GPUs' counterparts of context `h` of the gang this GPU leads, with their
    /// GPUs (none where it leads none): the contexts in which memory of `h` that the
    /// runtime's user pages must be mapped or unmapped too.
    pub fn gang_contexts(&self, h: CtxHandle) -> Vec<(Arc<Gpu<P>>, CtxHandle)> {
        let Some(g) = self.gang.get() else { return Vec::new() };
        g.others.iter().cloned().zip(self.gang_others(g, h).unwrap_or_default()).collect()
    }

    /// Context `h` was made: make its counterparts.
    pub(super) fn gang_ctx_created(&self, g: &Gang<P>, h: CtxHandle, cfg: &ContextConfig) -> Result<()> {
        let mut ctx = Ctx::default();
        let made = g.others.iter().try_for_each(|o| {
            ctx.others.push(o.ctx_create_with(cfg)?);
            Ok(())
        });
        if let Err(e) = made {
            for (o, &c) in g.others.iter().zip(&ctx.others) {
                let _ = o.ctx_destroy(c);
            }
            return Err(e);
        }
        g.ctxs.lock().insert(h.0, ctx);
        self.gang_relink(g, h)
    }

    /// Record which channels context `h`'s waits depend on (after a stream came or went).
    fn gang_relink(&self, g: &Gang<P>, h: CtxHandle) -> Result<()> {
        let ctxs = g.ctxs.lock();
        let ctx = ctxs.get(&h.0).ok_or(CuError::InvalidContext)?;
        let mut chans = vec![self.ctx_channel(h)?];
        chans.extend(ctx.streams.keys().filter_map(|&s| self.stream_channel(h, StreamHandle(s)).ok()));
        let mut others = Vec::new();
        for (m, (o, &c)) in g.others.iter().zip(&ctx.others).enumerate() {
            others.push((m, o.ctx_channel(c)?));
            for s in ctx.streams.values() {
                others.extend(o.stream_channel(c, s[m]).ok().map(|ch| (m, ch)));
            }
        }
        drop(ctxs);
        let mut links = g.links.lock();
        links.retain(|l| l.chans[0] != chans[0]);
        links.push(Link { chans, others });
        Ok(())
    }

    /// Context `h` is going (its own teardown done): tear down its counterparts and free
    /// its split allocations' pieces.
    pub(super) fn gang_ctx_destroyed(&self, g: &Gang<P>, h: CtxHandle, first_chan: Option<u32>) {
        let Some(ctx) = g.ctxs.lock().remove(&h.0) else { return };
        if let Some(c) = first_chan {
            g.links.lock().retain(|l| l.chans[0] != c);
        }
        for (o, &c) in g.others.iter().zip(&ctx.others) {
            let _ = o.ctx_destroy(c);
        }
        for pieces in ctx.allocs.values() {
            self.gang_free_pieces(g, pieces);
        }
    }

    fn gang_free_pieces(&self, g: &Gang<P>, pieces: &[(usize, u64, u64)]) {
        for &(m, phys, bytes) in pieces {
            match m {
                0 => self.vram_pages_free(phys, bytes),
                m => g.others[m - 1].vram_pages_free(phys, bytes),
            }
        }
    }

    /// The counterparts of context `h` on the other GPUs.
    fn gang_others(&self, g: &Gang<P>, h: CtxHandle) -> Result<Vec<CtxHandle>> {
        g.ctxs.lock().get(&h.0).map(|c| c.others.clone()).ok_or(CuError::InvalidContext)
    }

    /// cuMemAlloc on a gang: `bytes` split by pages over the GPUs, a contiguous piece each.
    pub(super) fn gang_alloc(&self, g: &Gang<P>, h: CtxHandle, bytes: u64) -> Result<u64> {
        let others = self.gang_others(g, h)?;
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
                    self.gang_free_pieces(g, &pieces);
                    return Err(e);
                }
            }
        }
        let seen_from = |me: usize| -> Vec<(u64, Share)> {
            let place = |m: usize, phys| if m == me { Share::Local(phys) } else { Share::Peer(phys, m as u8) };
            pieces.iter().map(|&(m, phys, len)| (len, place(m, phys))).collect()
        };
        let va = match self.with_ctx(h, |gpu, c| c.map_split(gpu, None, bytes, &seen_from(0), Owner::User)) {
            Ok(va) => va,
            Err(e) => {
                self.gang_free_pieces(g, &pieces);
                return Err(e);
            }
        };
        for (m, (o, &c)) in g.others.iter().zip(&others).enumerate() {
            let mapped = o.with_ctx(c, |gpu, x| x.map_split(gpu, Some(va), bytes, &seen_from(m + 1), Owner::Foreign));
            if let Err(e) = mapped {
                for (o, &c) in g.others.iter().zip(&others).take(m) {
                    let _ = o.mem_unmap_foreign(c, va);
                }
                let _ = self.with_ctx(h, |gpu, x| x.free_now(gpu, va));
                self.gang_free_pieces(g, &pieces);
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
    pub(super) fn gang_share_host(&self, h: CtxHandle, va: u64, mem: &Arc<fifo::SharedMem>) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let others = self.gang_others(g, h)?;
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
    pub(super) fn gang_share_vram(&self, h: CtxHandle, va: u64) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let others = self.gang_others(g, h)?;
        let (phys, bytes) = self.with_ctx(h, |_, c| c.vram_extent(va).ok_or(CuError::Unknown))?;
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

    /// One logical GPU: the other GPUs' counterparts of context `h` map the mappings that
    /// tile `[va, va + bytes)` as the first GPU's context does, with its access, over the
    /// links (a mapping with no access is not mapped there).
    pub(super) fn gang_vmm_access(&self, h: CtxHandle, va: u64, bytes: u64) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let tiles = self.with_ctx(h, |_, c| c.mapped_tiles(va, bytes))?;
        for (o, &c) in g.others.iter().zip(&self.gang_others(g, h)?) {
            for &(b, len, phys, access) in &tiles {
                // What it mapped there before (none at the first grant).
                let _ = o.mem_unmap_foreign(c, b);
                if access != crate::context::vmm::Access::None {
                    o.with_ctx(c, |dev, x| {
                        x.map_peer(dev, b, (phys, len, 0), access == crate::context::vmm::Access::Read)
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Context `h` made a texture or surface object: the counterparts bind its header and
    /// sampler pools, mapped over the link at their address (once), so a kernel's parts on
    /// every GPU sample the same objects by the same handles.
    pub(super) fn gang_share_pools(&self, h: CtxHandle) -> Result<()> {
        let Some(g) = self.gang.get() else { return Ok(()) };
        let Some((va, bytes)) = self.with_ctx(h, |_, c| Ok(c.pools_extent()))? else { return Ok(()) };
        let phys = self.with_ctx(h, |_, c| c.vram_extent(va).map(|e| e.0).ok_or(CuError::Unknown))?;
        for (o, &c) in g.others.iter().zip(&self.gang_others(g, h)?) {
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

    /// Host memory at `va` left context `h`: it leaves the counterparts too.
    pub(super) fn gang_unshare(&self, h: CtxHandle, va: u64) {
        let Some(g) = self.gang.get() else { return };
        for (o, &c) in g.others.iter().zip(&self.gang_others(g, h).unwrap_or_default()) {
            let _ = o.mem_unmap_foreign(c, va);
        }
    }

    /// cuMemFree of a split allocation, once the first GPU's context freed it: unmap it
    /// from the counterparts and free its pieces. False when `ptr` is not one.
    pub(super) fn gang_freed(&self, g: &Gang<P>, h: CtxHandle, ptr: u64) -> bool {
        let (pieces, others) = {
            let mut ctxs = g.ctxs.lock();
            let Some(ctx) = ctxs.get_mut(&h.0) else { return false };
            let Some(p) = ctx.allocs.remove(&ptr) else { return false };
            (p, ctx.others.clone())
        };
        for (o, &c) in g.others.iter().zip(&others) {
            let _ = o.mem_unmap_foreign(c, ptr);
        }
        self.gang_free_pieces(g, &pieces);
        true
    }

    /// The pieces of `[ptr, ptr + len)` by owner, if it lies in a split allocation:
    /// (GPU, its counterpart context, device pointer, bytes) in address order, where GPU
    /// None is this one.
    pub(super) fn gang_copy_pieces(&self, h: CtxHandle, ptr: u64, len: u64) -> Option<Vec<(Option<usize>, u64, u64)>> {
        let g = self.gang.get()?;
        let ctxs = g.ctxs.lock();
        let ctx = ctxs.get(&h.0)?;
        let (&base, pieces) = ctx.allocs.range(..=ptr).next_back()?;
        let total: u64 = pieces.iter().map(|p| p.2).sum();
        if ptr.checked_add(len)? > base + total || len == 0 {
            return None;
        }
        let mut out = Vec::new();
        let mut at = base;
        for &(m, _, bytes) in pieces {
            let (lo, hi) = (ptr.max(at), (ptr + len).min(at + bytes));
            if lo < hi {
                out.push((m.checked_sub(1), lo, hi - lo));
            }
            at += bytes;
        }
        Some(out)
    }

    /// The rows of a 2D region of a split allocation (`height` rows of `width` bytes from
    /// `dst`, `pitch` bytes apart) by owner: runs of whole rows in one GPU's piece, and the
    /// parts of each row that straddles two pieces. None where the region is not in one
    /// split allocation.
    pub(super) fn gang_rows(
        &self,
        h: CtxHandle,
        dst: u64,
        pitch: u64,
        (width, height): (u64, u64),
    ) -> Option<Vec<(Option<usize>, Rows)>> {
        // Rows that overlap (a pitch under the width) are no region of rows: the caller's
        // usual path checks the shape.
        if self.gang.get().is_none() || width == 0 || (height > 1 && pitch < width) {
            return None;
        }
        let mut out: Vec<(Option<usize>, Rows)> = Vec::new();
        for row in 0..height {
            let start = dst.checked_add(row.checked_mul(pitch)?)?;
            let pieces = self.gang_copy_pieces(h, start, width)?;
            match pieces[..] {
                [(owner, ..)] => match out.last_mut() {
                    Some((o, r)) if *o == owner && r.span.is_none() && r.row + r.rows == row => r.rows += 1,
                    _ => out.push((owner, Rows { row, rows: 1, span: None })),
                },
                _ => out
                    .extend(pieces.iter().map(|&(o, d, len)| (o, Rows { row, rows: 1, span: Some((d - start, len)) }))),
            }
        }
        Some(out)
    }

    /// cuMemcpyHtoD into a split allocation (`pieces` from [`Gpu::gang_copy_pieces`]):
    /// once the default stream's earlier work is done, each piece goes to its owner's
    /// VRAM through the owner's copy engine.
    pub(super) fn gang_copy_htod(
        &self,
        h: CtxHandle,
        dst: u64,
        src: &[u8],
        pieces: &[(Option<usize>, u64, u64)],
    ) -> Result<()> {
        let pieces: Vec<_> = pieces.iter().map(|&(o, ptr, len)| (o, (ptr, len))).collect();
        self.gang_copy(h, &pieces, |gpu, c, &(ptr, len)| {
            let at = (ptr - dst) as usize;
            let part = &src[at..at + len as usize];
            match c {
                None => self.ctx(h)?.copy_htod(&self.dev, ptr, part, Pitched::linear(len)),
                Some(c) => gpu.memcpy_htod(c, ptr, part),
            }
        })
    }

    /// cuMemcpyDtoH from a split allocation, each piece from its owner (see
    /// [`Gpu::gang_copy_htod`]).
    pub(super) fn gang_copy_dtoh(
        &self,
        h: CtxHandle,
        dst: &mut [u8],
        src: u64,
        pieces: &[(Option<usize>, u64, u64)],
    ) -> Result<()> {
        let mut rest: &mut [u8] = dst;
        let mut at = src;
        let pieces: Vec<_> = pieces.iter().map(|&(o, ptr, len)| (o, (ptr, len))).collect();
        self.gang_copy(h, &pieces, |gpu, c, &(ptr, len)| {
            let skip = (ptr - at) as usize;
            let (part, tail) = core::mem::take(&mut rest)[skip..].split_at_mut(len as usize);
            rest = tail;
            at = ptr + len;
            match c {
                None => self.ctx(h)?.copy_dtoh(&self.dev, part, ptr, Pitched::linear(len)),
                Some(c) => gpu.memcpy_dtoh(c, part, ptr),
            }
        })
    }

    /// Run a blocking copy's pieces in order, each on its owner (this GPU: context None),
    /// after the default stream's earlier work (the legacy stream's order).
    pub(super) fn gang_copy<T>(
        &self,
        h: CtxHandle,
        pieces: &[(Option<usize>, T)],
        mut each: impl FnMut(&Gpu<P>, Option<CtxHandle>, &T) -> Result<()>,
    ) -> Result<()> {
        let g = self.gang.get().ok_or(CuError::Unknown)?;
        let others = self.gang_others(g, h)?;
        let (_, before) = self.with_ctx(h, |gpu, c| c.mark(gpu, 0))?;
        before.wait(&self.dev)?;
        for (owner, part) in pieces {
            match *owner {
                None => each(self, None, part)?,
                Some(m) => each(&g.others[m], Some(others[m]), part)?,
            }
        }
        self.printf_flush(h);
        Ok(())
    }

    /// Work of stream `s` of context `h` in parts, each on its GPU (`parts`: owner, None
    /// for this GPU, and what `op` takes: a launch's block range, a copy's destination
    /// and bytes, a 2D operation's rows). Stream `s` releases a fence that each other
    /// GPU's part acquires first, then acquires each of those parts' fences and releases
    /// its own, so that `s` alone orders the whole. `op` queues one part: (GPU, its
    /// context, its stream, owner, the part); this GPU's parts go on `s` itself.
    pub(super) fn gang_split<T>(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        pieces: &[(Option<usize>, T)],
        op: impl Fn(&Gpu<P>, CtxHandle, StreamHandle, Option<usize>, &T) -> Result<Fence>,
    ) -> Result<Fence> {
        let g = self.gang.get().ok_or(CuError::Unknown)?;
        let others = self.gang_others(g, h)?;
        let streams = self.gang_streams(g, h, s)?;
        let (_, before) = self.with_objs(h, &[s.named()], |gpu, c| c.mark(gpu, s.local()))?;
        let mut after = Vec::new();
        for (owner, part) in pieces {
            match *owner {
                None => {
                    op(self, h, s, None, part)?;
                }
                Some(m) => {
                    let (o, c, fs) = (&g.others[m], others[m], streams[m]);
                    o.with_objs(c, &[fs.named()], |gpu, x| x.acquire_foreign(gpu, fs.local(), &before))?;
                    op(o, c, fs, *owner, part)?;
                    after.push(o.with_objs(c, &[fs.named()], |gpu, x| x.mark(gpu, fs.local()))?.1);
                }
            }
        }
        self.with_objs(h, &[s.named()], |gpu, c| {
            for r in &after {
                c.acquire_foreign(gpu, s.local(), r)?;
            }
            c.mark(gpu, s.local()).map(|(f, _)| f)
        })
    }

    /// A module was loaded into context `h`: load it on the other GPUs, sharing its data.
    pub(super) fn gang_module_loaded(&self, g: &Gang<P>, h: CtxHandle, m: ModuleHandle) -> Result<()> {
        let others = self.gang_others(g, h)?;
        let (prog, data, extents) = self.with_ctx(h, |_, c| {
            let l = c.module(m.id())?;
            let data = l.data();
            let mut extents: Vec<(u64, u64, u64)> = Vec::new();
            for va in core::iter::once(data.global).chain(data.constant.map(|c| c.0)) {
                let (phys, bytes) = c.vram_extent(va).ok_or(CuError::Unknown)?;
                extents.push((va, phys, bytes));
            }
            Ok((l.program().clone(), data, extents))
        })?;
        let mut handles = Vec::new();
        let mut mapped = Vec::new();
        let r = (|| {
            for (o, &c) in g.others.iter().zip(&others) {
                handles.push(o.module_load_sharing(c, prog.clone(), data.clone())?);
                for &(va, phys, bytes) in &extents {
                    o.mem_map_peer(c, va, phys, bytes, 0)?;
                }
                for v in &data.managed {
                    o.mem_map_host_at(c, v.addr & !(PAGE_SIZE - 1), v.mem.clone())?;
                }
            }
            mapped.extend(extents.iter().map(|e| e.0));
            mapped.extend(data.managed.iter().map(|v| v.addr & !(PAGE_SIZE - 1)));
            Ok(())
        })();
        if let Some(ctx) = g.ctxs.lock().get_mut(&h.0) {
            ctx.modules.insert(m.0, (handles, mapped));
        }
        if r.is_err() {
            self.gang_module_unloading(g, h, m);
        }
        r
    }

    /// Module `m` of context `h` is being unloaded: unload its copies first.
    pub(super) fn gang_module_unloading(&self, g: &Gang<P>, h: CtxHandle, m: ModuleHandle) {
        let (others, entry) = {
            let mut ctxs = g.ctxs.lock();
            let Some(ctx) = ctxs.get_mut(&h.0) else { return };
            ctx.funcs.retain(|_, (module, _)| *module != m.0);
            (ctx.others.clone(), ctx.modules.remove(&m.0))
        };
        let Some((handles, mapped)) = entry else { return };
        for (o, &c) in g.others.iter().zip(&others) {
            for &va in &mapped {
                let _ = o.mem_unmap_foreign(c, va);
            }
        }
        for ((o, &c), &fm) in g.others.iter().zip(&others).zip(&handles) {
            let _ = o.module_unload(c, fm);
        }
    }

    /// The streams on the other GPUs standing for stream `s` of context `h` (made at
    /// their first use, non-blocking: the first GPU's stream orders their work).
    fn gang_streams(&self, g: &Gang<P>, h: CtxHandle, s: StreamHandle) -> Result<Vec<StreamHandle>> {
        let others = self.gang_others(g, h)?;
        if s == StreamHandle::DEFAULT {
            return Ok(vec![StreamHandle::DEFAULT; others.len()]);
        }
        if let Some(v) = g.ctxs.lock().get(&h.0).and_then(|c| c.streams.get(&s.0)) {
            return Ok(v.clone());
        }
        let (_, priority) = self.stream_flags(h, s)?;
        let mut made = Vec::new();
        for (o, &c) in g.others.iter().zip(&others) {
            match o.stream_create(c, true, priority) {
                Ok(fs) => made.push(fs),
                Err(e) => {
                    for ((o, &c), &fs) in g.others.iter().zip(&others).zip(&made) {
                        let _ = o.stream_destroy(c, fs);
                    }
                    return Err(e);
                }
            }
        }
        if let Some(ctx) = g.ctxs.lock().get_mut(&h.0) {
            ctx.streams.insert(s.0, made.clone());
        }
        self.gang_relink(g, h)?;
        Ok(made)
    }

    /// Stream `s` of context `h` was destroyed: destroy its counterparts.
    pub(super) fn gang_stream_destroyed(&self, g: &Gang<P>, h: CtxHandle, s: StreamHandle) {
        let (others, streams) = {
            let mut ctxs = g.ctxs.lock();
            let Some(ctx) = ctxs.get_mut(&h.0) else { return };
            (ctx.others.clone(), ctx.streams.remove(&s.0))
        };
        if let Some(streams) = streams {
            for ((o, &c), &fs) in g.others.iter().zip(&others).zip(&streams) {
                let _ = o.stream_destroy(c, fs);
            }
            let _ = self.gang_relink(g, h);
        }
    }

    /// The kernels on the other GPUs standing for kernel `f` of context `h`.
    fn gang_funcs(&self, g: &Gang<P>, h: CtxHandle, f: FuncHandle) -> Result<Vec<FuncHandle>> {
        if let Some(v) = g.ctxs.lock().get(&h.0).and_then(|c| c.funcs.get(&f.0)) {
            return Ok(v.1.clone());
        }
        let (module, name): (u64, String) = self.with_objs(h, &[f.named()], |_, c| {
            let (m, i) = c.func(f.id())?;
            Ok((m, c.module(m)?.kernel(i)?.name.clone()))
        })?;
        let (others, handles) = {
            let ctxs = g.ctxs.lock();
            let ctx = ctxs.get(&h.0).ok_or(CuError::InvalidContext)?;
            let m = ctx.modules.get(&object(h, module)).ok_or(CuError::InvalidHandle)?;
            (ctx.others.clone(), m.0.clone())
        };
        let mut funcs = Vec::new();
        for ((o, &c), &fm) in g.others.iter().zip(&others).zip(&handles) {
            funcs.push(o.module_get_function(c, fm, &name)?);
        }
        if let Some(ctx) = g.ctxs.lock().get_mut(&h.0) {
            ctx.funcs.insert(f.0, (object(h, module), funcs.clone()));
        }
        Ok(funcs)
    }

    /// The copies of kernel `f` of context `h` on the other GPUs of this GPU's gang (none
    /// off a gang): (GPU, context there, kernel there), which run its other blocks.
    #[allow(clippy::type_complexity)]
    pub fn gang_kernel(&self, h: CtxHandle, f: FuncHandle) -> Result<Vec<(Arc<Gpu<P>>, CtxHandle, FuncHandle)>> {
        let Some(g) = self.gang.get() else { return Ok(Vec::new()) };
        let funcs = self.gang_funcs(g, h, f)?;
        let others = self.gang_others(g, h)?;
        Ok(g.others.iter().zip(others).zip(funcs).map(|((o, c), f)| (o.clone(), c, f)).collect())
    }

    /// cuLaunchKernel on a gang: the grid's blocks split into contiguous ranges, one per
    /// GPU, ordered by the first GPU's stream ([`Gpu::gang_split`]).
    pub(super) fn gang_launch(
        &self,
        g: &Gang<P>,
        h: CtxHandle,
        f: FuncHandle,
        cfg: &LaunchConfig,
        params: Params<'_>,
    ) -> Result<Fence> {
        let s = cfg.stream;
        let others = self.gang_others(g, h)?;
        // Texture and surface references are bound by the first GPU's part; the others bind
        // the same slots to the same entries of its pools (`gang_share_pools`).
        let refs = self.with_objs(h, &[f.named()], |_, c| Ok(c.module(c.func(f.id())?.0)?.has_references()))?;
        let funcs = self.gang_funcs(g, h, f)?;
        let blocks = cfg.grid.iter().map(|&d| d as u64).product::<u64>();
        // The first GPU's range first: it checks the launch as a lone launch would.
        let parts: Vec<(Option<usize>, (u64, u64))> = split_even(blocks, others.len() + 1)
            .into_iter()
            .enumerate()
            .filter(|&(m, (_, count))| m == 0 || count > 0)
            .map(|(m, range)| (m.checked_sub(1), range))
            .collect();
        let lead = f;
        let fence = self.gang_split(h, s, &parts, |gpu, c, stream, owner, &(first, count)| {
            let (f, cfg) = (owner.map_or(f, |m| funcs[m]), LaunchConfig { stream, ..*cfg });
            let range = Some((first as u32, count as u32));
            // The first GPU's slots, its part launched (its entries up to date).
            let lent = match owner {
                Some(_) if refs => {
                    self.gang_share_pools(h)?;
                    Some(self.with_objs(h, &[lead.named()], |_, x| Ok(x.ref_slots(x.func(lead.id())?.0)))?)
                }
                _ => None,
            };
            gpu.launch_refs_ready(c, &[f.named(), stream.named()], f, |dev, x| {
                x.refs_lent = lent;
                let r = x.launch(dev, x.func(f.id())?, &cfg, params, range);
                x.refs_lent = None;
                r
            })
        })?;
        if refs {
            // The entries stay as they are until every GPU's part is done (a launch that
            // rebinds a reference waits for this fence before it rewrites them).
            self.with_objs(h, &[lead.named()], |_, x| {
                let m = x.func(lead.id())?.0;
                x.refs_used(m, s.local(), fence);
                Ok(())
            })?;
        }
        Ok(fence)
    }

    /// The findings of context `h`'s counterparts (see [`Gpu::check_reports`]).
    pub(super) fn gang_check_reports(&self, g: &Gang<P>, h: CtxHandle) -> (Vec<CheckReport>, u32) {
        let (mut all, mut dropped) = (Vec::new(), 0);
        for (o, &c) in g.others.iter().zip(self.gang_others(g, h).unwrap_or_default().iter()) {
            if let Ok((r, d)) = o.check_reports(c) {
                all.extend(r);
                dropped += d;
            }
        }
        (all, dropped)
    }

    /// Print what context `h`'s counterparts' kernels printed.
    pub(super) fn gang_printf_flush(&self, g: &Gang<P>, h: CtxHandle) {
        for (o, &c) in g.others.iter().zip(self.gang_others(g, h).unwrap_or_default().iter()) {
            o.printf_flush(c);
        }
    }

    /// A module sharing `data` with another GPU's copy: its own code and parameter buffer.
    pub(super) fn module_load_sharing(&self, h: CtxHandle, prog: ptx::Program, data: Data) -> Result<ModuleHandle> {
        let id = self.with_ctx(h, |_, c| c.new_id())?;
        let const_base = data.constant.map_or(0, |c| c.0);
        let code_bytes = prog.code_bytes_placed(data.global, const_base, &data.placed);
        let mut allocs = Vec::new();
        let r = (|| {
            let code = self.runtime_alloc(h, (code_bytes.len() as u64).max(16))?;
            allocs.push(code);
            let cb0 = self.runtime_alloc(h, crate::limits::PARAM_BYTES as u64)?;
            allocs.push(cb0);
            self.memcpy_htod(h, code, &code_bytes)?;
            self.with_ctx(h, |gpu, c| c.invalidate_code(gpu))?;
            Ok((code, cb0))
        })();
        match r {
            Ok((code, cb0)) => self.with_ctx(h, |_, c| {
                c.module_insert(id, Loaded::sharing(prog, code, cb0, data, allocs));
                Ok(ModuleHandle(object(h, id)))
            }),
            Err(e) => {
                let _ = self.runtime_free(h, &allocs);
                Err(e)
            }
        }
    }
}
