//! The device a program sees: one GPU, or one logical GPU over many (MGPUSim's unified
//! GPU). A [`LogicalGpu`] wraps a [`Gpu`] and answers the Driver API as that GPU does
//! (it dereferences to it for everything a gang does not change); made the first of a
//! gang ([`LogicalGpu::form`]), it keeps, for each of its contexts, a context on every
//! other GPU of the gang, and:
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
//! Copies and memsets of split allocations are split per page owner (`memory.rs`): each
//! piece moves on its owner's copy engine (blocking host copies one owner after another;
//! stream-ordered ones on each owner's stream, bracketed by fences as a launch's parts
//! are; 2D ones by runs of rows). Copies with arrays run on the first GPU's copy engine
//! (arrays are its memory), which reaches the other pieces through the peer aperture.
//!
//! Everything above the API layer that acts for a program (the C ABI, the Rust API, the
//! unified-memory service, peers) holds `LogicalGpu`s, one per GPU of the system; the
//! physical [`Gpu`] knows nothing of gangs. Only [`LogicalGpu`]'s own methods split work:
//! one reached through its [`Gpu`] (a `&Gpu` taken from it) acts on the first GPU alone.

mod copies;
mod launch;
mod memory;

use crate::api::module::{FuncHandle, ModuleHandle};
use crate::api::{CtxHandle, Gpu};
use crate::check::{CheckMode, CheckReport};
use crate::context::ContextConfig;
use crate::context::stream::StreamHandle;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::{collections::BTreeMap, sync::Arc, vec, vec::Vec};
use core::ops::Deref;
use lock_api::Mutex;

pub use memory::split_even;

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

/// The gang a logical GPU leads (see the module documentation).
struct Gang<P: Platform> {
    /// The other GPUs, member 1 on.
    others: Vec<Arc<Gpu<P>>>,
    /// What the program is told of the one device: the first GPU's description with the
    /// gang's SMs and VRAM.
    info: crate::device::DeviceInfo,
    ctxs: Mutex<P::RawMutex, BTreeMap<u64, Ctx>>,
    links: Arc<Mutex<P::RawMutex, Vec<Link>>>,
}

/// The device a program sees (see the module documentation).
pub struct LogicalGpu<P: Platform> {
    /// The GPU itself; the first of the gang when it leads one.
    gpu: Arc<Gpu<P>>,
    /// The gang it leads, if any.
    gang: spin::Once<Gang<P>>,
}

impl<P: Platform> Deref for LogicalGpu<P> {
    type Target = Gpu<P>;

    fn deref(&self) -> &Gpu<P> {
        &self.gpu
    }
}

impl<P: Platform> LogicalGpu<P> {
    /// `gpu` as a program sees it (one GPU until [`LogicalGpu::form`]).
    pub fn new(gpu: Arc<Gpu<P>>) -> Self {
        Self { gpu, gang: spin::Once::new() }
    }

    /// The GPU itself (the first of the gang when this leads one).
    pub fn gpu(&self) -> &Arc<Gpu<P>> {
        &self.gpu
    }

    /// Make this device the first of a gang with `others` (at most 7, each with unified
    /// addressing, none with a context yet): the program sees one device, this one, whose
    /// work and memory spread over all of them. `rids` are the PCI routing ids of this GPU
    /// and then of each other one; peer table entry `m` of every GPU of the gang is set to
    /// member `m`. A device leads at most one gang.
    pub fn form(&self, others: Vec<Arc<Gpu<P>>>, rids: &[u16]) -> Result<()>
    where
        P: Send + Sync + 'static,
        P::RawMutex: Send + Sync,
    {
        let n = others.len() + 1;
        if n > hw::mmu::PEERS || rids.len() != n || others.iter().any(|o| Arc::ptr_eq(o, &self.gpu)) {
            return Err(CuError::InvalidValue);
        }
        if !self.unified_addressing() || others.iter().any(|o| !o.unified_addressing()) {
            return Err(CuError::NotSupported);
        }
        if self.gang.get().is_some() || !self.contexts().is_empty() || others.iter().any(|o| !o.contexts().is_empty()) {
            return Err(CuError::InvalidValue);
        }
        let members = core::iter::once(&*self.gpu).chain(others.iter().map(|o| &**o));
        for (me, g) in members.enumerate() {
            for (m, &rid) in rids.iter().enumerate().filter(|&(m, _)| m != me) {
                g.peer_set(m as u8, Some(rid))?;
            }
            g.set_checks(self.checks());
        }
        let links: Arc<Mutex<P::RawMutex, Vec<Link>>> = Arc::new(Mutex::new(Vec::new()));
        let (seen, gpus) = (links.clone(), others.clone());
        self.gpu.dev.linked.call_once(|| {
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
        let mut info = self.gpu.info().clone();
        for o in &others {
            info.sms += o.info().sms;
            info.gpcs += o.info().gpcs;
            info.vram_size += o.info().vram_size;
        }
        self.gang.call_once(|| Gang { others, info, ctxs: Mutex::new(BTreeMap::new()), links });
        Ok(())
    }

    /// What the program is told of the device: for the first GPU of a gang, the GPUs'
    /// SMs, GPCs and VRAM together (each GPU's SMs are alike, so per-SM figures are the
    /// first one's).
    pub fn info(&self) -> &crate::device::DeviceInfo {
        self.gang.get().map_or(self.gpu.info(), |g| &g.info)
    }

    /// Free and total VRAM bytes (cuMemGetInfo): a gang's together.
    pub fn mem_info(&self) -> (u64, u64) {
        let mine = self.gpu.mem_info();
        self.members().iter().map(|o| o.mem_info()).fold(mine, |(f, t), (f2, t2)| (f + f2, t + t2))
    }

    /// The GPUs of this device's gang after the first (empty when it leads none).
    pub fn members(&self) -> Vec<Arc<Gpu<P>>> {
        self.gang.get().map(|g| g.others.clone()).unwrap_or_default()
    }

    /// The other GPUs' counterparts of context `h` of the gang this device leads, with
    /// their GPUs, each as a lone device (none where it leads none): the contexts in which
    /// memory of `h` that the runtime's user pages must be mapped or unmapped too.
    pub fn counterparts(&self, h: CtxHandle) -> Vec<(LogicalGpu<P>, CtxHandle)> {
        let Some(g) = self.gang.get() else { return Vec::new() };
        g.others.iter().map(|o| LogicalGpu::new(o.clone())).zip(self.others(g, h).unwrap_or_default()).collect()
    }

    /// See [`Gpu::set_checks`]: every GPU of the gang checks.
    pub fn set_checks(&self, mode: CheckMode) {
        self.gpu.set_checks(mode);
        for o in self.members() {
            o.set_checks(mode);
        }
    }

    /// See [`Gpu::ctx_create`].
    pub fn ctx_create(&self) -> Result<CtxHandle> {
        self.ctx_create_with(&ContextConfig::default())
    }

    /// See [`Gpu::ctx_create_with`]: on a gang, with its counterparts.
    pub fn ctx_create_with(&self, cfg: &ContextConfig) -> Result<CtxHandle> {
        let h = self.gpu.ctx_create_with(cfg)?;
        if let Some(g) = self.gang.get()
            && let Err(e) = self.ctx_created(g, h, cfg)
        {
            let _ = self.gpu.ctx_destroy(h);
            return Err(e);
        }
        Ok(h)
    }

    /// See [`Gpu::ctx_destroy`]: on a gang, its counterparts go too and its split
    /// allocations' pieces are freed.
    pub fn ctx_destroy(&self, h: CtxHandle) -> Result<()> {
        let Some(g) = self.gang.get().filter(|_| self.ctx_exists(h)) else { return self.gpu.ctx_destroy(h) };
        let first_chan = self.ctx_channel(h).ok();
        let r = self.gpu.ctx_destroy(h);
        self.ctx_destroyed(g, h, first_chan);
        r
    }

    /// See [`Gpu::check_reports`]: a gang's counterparts' findings too.
    pub fn check_reports(&self, h: CtxHandle) -> Result<(Vec<CheckReport>, u32)> {
        let (mut reports, mut dropped) = self.gpu.check_reports(h)?;
        if let Some(g) = self.gang.get() {
            for (o, &c) in g.others.iter().zip(self.others(g, h).unwrap_or_default().iter()) {
                if let Ok((r, d)) = o.check_reports(c) {
                    reports.extend(r);
                    dropped += d;
                }
            }
        }
        Ok((reports, dropped))
    }

    /// See [`Gpu::ctx_synchronize`]: the first GPU's streams order a gang's work, and the
    /// counterparts' kernels' output is printed too.
    pub fn ctx_synchronize(&self, h: CtxHandle) -> Result<()> {
        let r = self.gpu.ctx_synchronize(h);
        self.flush_others(h);
        r
    }

    /// Print what context `h`'s counterparts' kernels printed (after the first GPU's, at
    /// each point that synchronizes the context).
    fn flush_others(&self, h: CtxHandle) {
        let Some(g) = self.gang.get() else { return };
        for (o, &c) in g.others.iter().zip(self.others(g, h).unwrap_or_default().iter()) {
            o.printf_flush(c);
        }
    }

    /// See [`Gpu::stream_destroy`]: on a gang, the stream's counterparts go with it.
    pub fn stream_destroy(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        let r = self.gpu.stream_destroy(h, s);
        if let Some(g) = self.gang.get()
            && self.gpu.stream_flags(h, s).is_err()
        {
            self.stream_destroyed(g, h, s);
        }
        r
    }

    /// Context `h` was made: make its counterparts.
    fn ctx_created(&self, g: &Gang<P>, h: CtxHandle, cfg: &ContextConfig) -> Result<()> {
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
        self.relink(g, h)
    }

    /// Record which channels context `h`'s waits depend on (after a stream came or went).
    fn relink(&self, g: &Gang<P>, h: CtxHandle) -> Result<()> {
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
    fn ctx_destroyed(&self, g: &Gang<P>, h: CtxHandle, first_chan: Option<u32>) {
        let Some(ctx) = g.ctxs.lock().remove(&h.0) else { return };
        if let Some(c) = first_chan {
            g.links.lock().retain(|l| l.chans[0] != c);
        }
        for (o, &c) in g.others.iter().zip(&ctx.others) {
            let _ = o.ctx_destroy(c);
        }
        for pieces in ctx.allocs.values() {
            self.free_pieces(g, pieces);
        }
    }

    /// The counterparts of context `h` on the other GPUs.
    fn others(&self, g: &Gang<P>, h: CtxHandle) -> Result<Vec<CtxHandle>> {
        g.ctxs.lock().get(&h.0).map(|c| c.others.clone()).ok_or(CuError::InvalidContext)
    }

    /// The streams on the other GPUs standing for stream `s` of context `h` (made at
    /// their first use, non-blocking: the first GPU's stream orders their work).
    fn streams(&self, g: &Gang<P>, h: CtxHandle, s: StreamHandle) -> Result<Vec<StreamHandle>> {
        let others = self.others(g, h)?;
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
        self.relink(g, h)?;
        Ok(made)
    }

    /// Stream `s` of context `h` was destroyed: destroy its counterparts.
    fn stream_destroyed(&self, g: &Gang<P>, h: CtxHandle, s: StreamHandle) {
        let (others, streams) = {
            let mut ctxs = g.ctxs.lock();
            let Some(ctx) = ctxs.get_mut(&h.0) else { return };
            (ctx.others.clone(), ctx.streams.remove(&s.0))
        };
        if let Some(streams) = streams {
            for ((o, &c), &fs) in g.others.iter().zip(&others).zip(&streams) {
                let _ = o.stream_destroy(c, fs);
            }
            let _ = self.relink(g, h);
        }
    }
}
