//! Unified memory as a driver service: host memory every context of every GPU of a system
//! reaches on demand, through the devices' replayable faults — pinned host memory
//! (cuMemAllocHost, cuMemHostAlloc) and managed memory (cuMemAllocManaged) — as CUDA's
//! unified addressing makes them reachable.
//!
//! Managed memory on a device of compute capability 6.0 or later is paged (unless the
//! system was made with paging off; then it is mapped into every context at once,
//! [`Uvm::add_everywhere`]): see [`Uvm::add_paged`] (its pages migrate to the GPU that
//! touches them, come back to the host when the host synchronizes or copies, and leave a
//! full VRAM). Pinned memory is mapped where it is, on demand: the context that made an
//! allocation has it mapped; any other gets a mapping when one of its kernels first touches
//! it: the access finds no PTE and parks as a replayable fault, and the fault service
//! ([`Uvm::service`]) maps the whole allocation into the faulting context at its one address
//! (`Gpu::mem_map_host_at`) and replays. So GPUs share host memory only where a program uses
//! it that way, and a parallel lock step, which keeps GPUs that share memory on one host
//! thread, stays parallel for the rest. Mappings go before the memory.
//!
//! - `pages`: advice, mappings in place, read-only copies;
//! - `moves`: migrations to a GPU (faults, prefetches, eviction) and home to the host;
//! - `fault`: the fault service.
//!
//! The service keeps its own table, under its own lock, and never takes a context's: it
//! runs inside a wait, which may be one that another thread entered holding that lock.

mod fault;
mod moves;
mod pages;

use crate::api::CtxHandle;
use crate::error::Result;
use crate::logical::LogicalGpu;
use crate::platform::Platform;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::{Arc, Weak};
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};
use lock_api::{Mutex, MutexGuard};

/// Host memory another context may need: its device address range, memory and owner.
struct Region {
    bytes: u64,
    mem: Arc<fifo::SharedMem>,
    owner: CtxHandle,
    /// Contexts it was mapped into on demand.
    mapped: Vec<CtxHandle>,
    /// Managed memory paged on demand: each 4 KiB page's place.
    pages: Vec<Page>,
    /// Managed memory not paged: mapped into every context at once.
    eager: bool,
    /// Paged memory: where its PTEs are in each context (of any GPU), found when the
    /// memory or the context was made, so that the fault service points them with no
    /// context's lock (a launch waiting for ring space holds its context's).
    slots: Vec<(CtxHandle, crate::vm::PteSlots)>,
    /// Managed memory: each page's advice (empty: none given). The fault service acts on
    /// it for paged memory; for all managed memory it is what the range attributes
    /// answer.
    advice: Vec<Adv>,
    /// Managed memory: each page's last prefetch destination (a device, -1 the host, -2
    /// never prefetched; empty: none).
    prefetched: Vec<i32>,
    /// Managed memory the service only keeps the advice of (neither paged nor mapped
    /// everywhere by it: a module's managed variables where paging is off, a program's
    /// `__managed__` data away from its host address): no fault is served in it.
    tracked: bool,
    /// Paged memory: the bytes of `mem` that are managed memory, `[start, end)` (a
    /// program's `__managed__` data shares its first and last pages with other data of
    /// the program, which a write-back must leave alone); all of it otherwise.
    span: (u64, u64),
    /// The program's own data: the region outlives the context that made it, and other
    /// contexts that map the same pages join it.
    lasting: bool,
}

/// Where a page of paged managed memory is: on the host (its memory), or migrated to one
/// GPU's VRAM and mapped there in the contexts that touched it.
#[derive(Clone, Default)]
struct Page {
    on: Option<(usize, u64)>,
    mapped: Vec<CtxHandle>,
    /// Read-only copies of a read-mostly page that lives on the host: (GPU, its VRAM, the
    /// contexts there that map it).
    copies: Vec<(usize, u64, Vec<CtxHandle>)>,
    /// Contexts that map the page where it lives, of GPUs that reach it there (the host
    /// page, or another GPU's VRAM over the link): (GPU, context).
    remote: Vec<(usize, CtxHandle)>,
    /// Moves from one GPU to another since the page was last brought home by a
    /// synchronization (see [`THRASH`]).
    moves: u8,
}

/// Moves between GPUs after which a page stays where it is and the GPUs that touch it map
/// it there over the link, as NVIDIA's driver pins a thrashing page: pages that several
/// GPUs' kernels touch at once (one logical GPU's parts on a shared counter) would
/// otherwise move at every access.
const THRASH: u8 = 2;

/// A page's advice (cuMemAdvise), as the fault service acts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adv {
    /// Read-mostly: a GPU's read fault gets a read-only copy, the host keeps the page;
    /// a write drops the copies.
    pub read_mostly: bool,
    /// The preferred location: a device, -1 the host (its faults map the host page where it
    /// is rather than migrate it), -2 none.
    pub preferred: i32,
    /// Devices that map the page where it lives (bit `d + 1`; bit 0 the host).
    pub accessed_by: u32,
}

/// No advice.
pub const NO_ADV: Adv = Adv { read_mostly: false, preferred: -2, accessed_by: 0 };

/// The page size managed memory migrates in.
pub const PAGE: u64 = 4096;

/// Fault records the device's fault buffer holds (more wait in their parked warps).
pub const FAULT_BUFFER_ENTRIES: u32 = 256;

/// Counts of paged managed memory (`unified_memory` in the statistics).
#[derive(Default, Debug)]
pub struct Counts {
    /// Page migrations from the host to a GPU.
    pub to_gpu: AtomicU64,
    /// Page migrations from a GPU back to the host (at synchronization, before host-side
    /// copies, for another GPU, or evicted for room).
    pub to_host: AtomicU64,
    /// Pages evicted from a full VRAM.
    pub evictions: AtomicU64,
}

/// Pages a fault service moved for one fault: on `gpu`, for channel `chid`'s access, at
/// device time `ns` (PTIMER: the faulting kernel is still running then, and its statistics
/// count them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    /// The GPU's ordinal.
    pub gpu: u32,
    /// The faulting channel.
    pub chid: u32,
    /// When (the GPU's PTIMER, nanoseconds).
    pub ns: u64,
    /// Pages brought to the GPU.
    pub to_gpu: u64,
    /// Pages sent home (or evicted) for it.
    pub to_host: u64,
}

/// What managed memory is, for [`Uvm::add_managed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManagedKind {
    /// cuMemAllocManaged memory.
    Alloc,
    /// A module's managed variable, memory the loader gave it.
    Variable,
    /// Pages of the program's own data holding `__managed__` variables: its managed bytes
    /// `span` (`[start, end)` of the pages), and whether the pages sit at their host
    /// address (only then are they paged: every context has them at one address). It
    /// outlives the context that mapped it.
    Data {
        /// The managed bytes of the pages.
        span: (u64, u64),
        /// Mapped at their host address.
        at_host: bool,
    },
}

/// Something the service did, in words, for a trace (given the text only when asked).
pub type Observer = Box<dyn Fn(&dyn Fn() -> String) + Send + Sync>;

/// The unified-memory service of a system of GPUs: one table of regions (host memory that
/// contexts reach on demand, managed memory paged between the host and the GPUs), its
/// advice, residency, counts and what each fault moved.
pub struct Uvm<P: Platform> {
    /// Whether managed memory is paged where the devices can (else mapped everywhere).
    paging: bool,
    /// The system's GPUs by ordinal (the service takes no runtime-wide lock).
    gpus: spin::Once<Vec<Weak<LogicalGpu<P>>>>,
    /// Which GPU reaches which peer to peer: `reach[a][b]`, the PCI routing id of GPU `b`
    /// where GPU `a` can map its VRAM (through its peer table entry `b`).
    reach: spin::Once<Vec<Vec<Option<u16>>>>,
    /// The peer table entries (GPU, entry) set so far for mappings of paged memory.
    peered: Mutex<P::RawMutex, Vec<(usize, usize)>>,
    /// The regions by base device address.
    regions: Mutex<P::RawMutex, BTreeMap<u64, Region>>,
    /// What paged managed memory did.
    counts: Counts,
    /// What each fault moved, oldest first (taken by a profile).
    moved: Mutex<P::RawMutex, Vec<Moved>>,
    /// Pages on GPUs now (host accesses write them back first when there are any).
    resident: AtomicU64,
    /// Where the service's events go, while a trace is written.
    observer: spin::Once<Observer>,
}

/// The region of managed memory (paged, mapped everywhere or tracked) holding `p`, with
/// its base.
fn managed_at(rs: &mut BTreeMap<u64, Region>, p: u64) -> Option<(&u64, &mut Region)> {
    rs.range_mut(..=p).next_back().filter(|(b, r)| p < *b + r.bytes && (!r.pages.is_empty() || r.eager || r.tracked))
}

/// The first and last page of a region at `base` of `pages` pages that `[p, p + n)`
/// touches (`p` in the region).
fn page_span(base: u64, p: u64, n: u64, pages: usize) -> (usize, usize) {
    let first = ((p - base) / PAGE) as usize;
    let last = (((p + n.max(1) - 1 - base) / PAGE) as usize).min(pages.saturating_sub(1));
    (first.min(last), last)
}

impl<P: Platform> Uvm<P> {
    /// A service with no GPUs yet; managed memory is paged where devices allow when
    /// `paging` (CUDA's behaviour from compute capability 6.0), else mapped everywhere.
    pub fn new(paging: bool) -> Self {
        Self {
            paging,
            gpus: spin::Once::new(),
            reach: spin::Once::new(),
            peered: Mutex::new(Vec::new()),
            regions: Mutex::new(BTreeMap::new()),
            counts: Counts::default(),
            moved: Mutex::new(Vec::new()),
            resident: AtomicU64::new(0),
            observer: spin::Once::new(),
        }
    }

    /// The system's GPUs, by ordinal, and which reach which peer to peer (`reach[a][b]`:
    /// `b`'s routing id where the topology lets `a` reach it). Set once.
    pub fn set_gpus(&self, gpus: Vec<Weak<LogicalGpu<P>>>, reach: Vec<Vec<Option<u16>>>) {
        self.gpus.call_once(|| gpus);
        self.reach.call_once(|| reach);
    }

    /// Serve `gpu`'s replayable faults (it must be one of [`Uvm::set_gpus`]'s): its fault
    /// buffer enabled with `FAULT_BUFFER_ENTRIES` entries, every fault handed to
    /// [`Uvm::service`], and the service held off on a thread while this service's own lock
    /// is held (a migration waiting on the device). Contexts made on `gpu` from now on park
    /// an access that finds no PTE instead of failing. What every platform's system does for
    /// each GPU with unified addressing (`backend_user::System`, the kernel image).
    pub fn serve_faults_of(
        self: &alloc::sync::Arc<Self>,
        gpu: &alloc::sync::Arc<LogicalGpu<P>>,
    ) -> crate::error::Result<()> {
        let (weak, u) = (alloc::sync::Arc::downgrade(gpu), self.clone());
        gpu.enable_replayable_faults(FAULT_BUFFER_ENTRIES, move |f| weak.upgrade().is_some_and(|g| u.service(&g, f)))?;
        let u = self.clone();
        gpu.replay_hold(move || u.busy());
        Ok(())
    }

    /// Send the service's events to `f` (a trace): each a line of text, made only when `f`
    /// asks for it. Set once.
    pub fn observe(&self, f: Observer) {
        self.observer.call_once(|| f);
    }

    /// Tell the observer what happened.
    fn event(&self, what: &dyn Fn() -> String) {
        if let Some(f) = self.observer.get() {
            f(what);
        }
    }

    /// The counts of paged managed memory.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// The records of what each fault moved so far, taken.
    pub fn take_moved(&self) -> Vec<Moved> {
        core::mem::take(&mut *self.moved.lock())
    }

    /// GPU `b`'s routing id, where GPU `a` can map its VRAM through its peer table (entry `b`).
    fn reach(&self, a: usize, b: usize) -> Option<u16> {
        (a != b && b < hw::mmu::PEERS).then(|| self.reach.get()?.get(a)?.get(b).copied().flatten()).flatten()
    }

    /// Whether GPU `a` maps GPU `b`'s VRAM through its peer table (entry `b`).
    fn reaches(&self, a: usize, b: usize) -> bool {
        self.reach(a, b).is_some()
    }

    /// Peer table entry `b` of GPU `a` (`gpu`) names GPU `b`, set at its first use: false
    /// where `a` cannot reach `b`. (A peer table write merges the two GPUs' groups of a
    /// parallel lock step, so only the pairs that share pages are merged.)
    fn peer_entry(&self, gpu: &LogicalGpu<P>, a: usize, b: usize) -> bool {
        let Some(rid) = self.reach(a, b) else { return false };
        let mut set = self.peered.lock();
        if set.contains(&(a, b)) {
            return true;
        }
        let ok = gpu.peer_set(b as u8, Some(rid)).is_ok();
        if ok {
            set.push((a, b));
        }
        ok
    }

    /// GPU `i`, while it is there.
    fn gpu_at(&self, i: usize) -> Option<Arc<LogicalGpu<P>>> {
        self.gpus.get()?.get(i)?.upgrade()
    }

    /// Every GPU still there, by ordinal.
    fn all_gpus(&self) -> impl Iterator<Item = Arc<LogicalGpu<P>>> + '_ {
        self.gpus.get().into_iter().flatten().filter_map(Weak::upgrade)
    }

    /// The regions, locked.
    fn regions(&self) -> MutexGuard<'_, P::RawMutex, BTreeMap<u64, Region>> {
        self.regions.lock()
    }

    /// Whether the regions' lock is held (by a migration waiting for the device): waits
    /// then serve no fault, whose service needs that lock (`Gpu::replay_hold`), nor another
    /// GPU's work; the faults wait in the buffer until it is free.
    pub fn busy(&self) -> bool {
        self.regions.is_locked()
    }

    /// Context `owner` made host memory `mem` reachable at device address `base`.
    pub fn add(&self, owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>) {
        self.insert(owner, base, mem, Vec::new(), false);
    }

    /// Record region `base`: `mem` of `owner`, paged when `pages` holds its pages, mapped
    /// into every context at once when `eager`.
    fn insert(&self, owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>, pages: Vec<Page>, eager: bool) {
        let bytes = mem.len() as u64;
        let (slots, advice, span) = (Vec::new(), Vec::new(), (0, bytes));
        let r = Region {
            bytes,
            mem,
            owner,
            mapped: Vec::new(),
            pages,
            eager,
            slots,
            advice,
            prefetched: Vec::new(),
            tracked: false,
            span,
            lasting: false,
        };
        self.regions().insert(base, r);
    }

    /// Context `owner` of `gpu` has managed memory `mem` at `base`, of kind `what`: paged
    /// where the service pages (see [`Uvm::paging`]); otherwise cuMemAllocManaged memory is
    /// mapped into every context at once and other managed memory is tracked for its
    /// advice (under unified addressing). The one place that decides.
    pub fn add_managed(
        &self,
        gpu: &LogicalGpu<P>,
        owner: CtxHandle,
        base: u64,
        mem: Arc<fifo::SharedMem>,
        what: ManagedKind,
    ) -> Result<()> {
        match what {
            ManagedKind::Alloc if self.paging(gpu) => self.add_paged(gpu, owner, base, mem, None).map(drop),
            ManagedKind::Alloc => {
                self.add_everywhere(owner, base, mem);
                Ok(())
            }
            ManagedKind::Variable if self.paging(gpu) => self.add_paged(gpu, owner, base, mem, None).map(drop),
            ManagedKind::Data { span, at_host: true } if self.paging(gpu) => {
                self.add_paged(gpu, owner, base, mem, Some(span)).map(drop)
            }
            ManagedKind::Variable | ManagedKind::Data { .. } => {
                if gpu.unified_addressing() {
                    self.track(owner, base, mem, matches!(what, ManagedKind::Data { .. }));
                }
                Ok(())
            }
        }
    }

    /// Context `owner` has managed memory `mem` at `base` that is neither paged nor mapped
    /// everywhere by the service (see `Region::tracked`): the service keeps its advice and
    /// prefetches for the range attributes. `lasting`: the program's own data, which
    /// outlives the context (another context tracking the same memory shares it).
    pub fn track(&self, owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>, lasting: bool) {
        let bytes = mem.len() as u64;
        {
            let rs = self.regions();
            if rs.range(..base + bytes).next_back().is_some_and(|(b, r)| base < *b + r.bytes) {
                return; // known already (or overlapping another region: left alone)
            }
        }
        self.insert(owner, base, mem, Vec::new(), false);
        if let Some(r) = self.regions().get_mut(&base) {
            r.tracked = true;
            r.lasting = lasting;
        }
    }

    /// Whether managed memory on `gpu` is paged (CUDA 6+ on Pascal and later): its pages
    /// live on the host or on one GPU, a GPU's first touch migrates them there (a
    /// replayable fault), and host access after synchronization finds them back on the
    /// host. Needs the replayable faults of unified addressing and compute capability 6.0
    /// or later, and the service made with paging on. The fault service takes no context's
    /// lock for it (PTE slots found when the memory or the context was made), so it also
    /// runs where a launch waits for ring space holding its context's. On one logical GPU
    /// over several (a gang) a page migrates to the GPU whose part of a kernel touches it:
    /// the other GPUs' counterparts of each context are paged as the context is.
    pub fn paging(&self, gpu: &LogicalGpu<P>) -> bool {
        self.paging && gpu.unified_addressing() && gpu.info().compute_capability.0 >= 6
    }

    /// Context `owner` allocated managed memory `mem` at `base`, not paged: every context
    /// of every GPU has it mapped at once (those made later when they are made), so no
    /// kernel waits for a fault service to reach it.
    pub fn add_everywhere(&self, owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>) {
        self.insert(owner, base, mem, Vec::new(), true);
        let ctxs: Vec<(Arc<LogicalGpu<P>>, CtxHandle)> =
            self.all_gpus().flat_map(|g| g.contexts().into_iter().map(move |c| (g.clone(), c))).collect();
        for (gpu, c) in ctxs {
            self.map_eagerly(&gpu, base, c);
        }
    }

    /// Map region `base` (managed, not paged) into context `c` now, unless it is there.
    fn map_eagerly(&self, gpu: &LogicalGpu<P>, base: u64, c: CtxHandle) {
        let mem = {
            let rs = self.regions();
            match rs.get(&base) {
                Some(r) if r.owner != c && !r.mapped.contains(&c) && r.pages.is_empty() && r.eager => r.mem.clone(),
                _ => return,
            }
        };
        if gpu.mem_map_host_at(c, base, mem).is_ok()
            && let Some(r) = self.regions().get_mut(&base)
        {
            r.mapped.push(c);
        }
    }

    /// Context `c` was created on `gpu` (with its counterparts on the other GPUs of a
    /// gang): managed memory that is not paged is mapped into it, and the PTEs of paged
    /// memory are found in it and in its counterparts.
    pub fn context_created(&self, gpu: &LogicalGpu<P>, c: CtxHandle) {
        self.created(gpu, c);
        for (o, part) in gpu.counterparts(c) {
            self.created(&o, part);
        }
    }

    /// [`Uvm::context_created`] for one context.
    fn created(&self, gpu: &LogicalGpu<P>, c: CtxHandle) {
        let eager: Vec<u64> = self.regions().iter().filter(|(_, r)| r.eager).map(|(&b, _)| b).collect();
        for base in eager {
            self.map_eagerly(gpu, base, c);
        }
        let paged: Vec<(u64, u64)> =
            self.regions().iter().filter(|(_, r)| !r.pages.is_empty()).map(|(&b, r)| (b, r.bytes)).collect();
        for (base, bytes) in paged {
            if let Ok(s) = gpu.pte_slots(c, base, bytes.next_multiple_of(PAGE))
                && let Some(r) = self.regions().get_mut(&base)
            {
                r.slots.push((c, s));
            }
        }
    }

    /// Context `owner` has managed memory `mem` at `base`, to be paged: no GPU has its
    /// pages yet (the owner's PTEs go too), so the first touch of each migrates it.
    /// `data`: the program's own `__managed__` data, its bytes `[start, end)` of `mem` (a
    /// lasting region); another context mapping the same pages joins the
    /// region. False where the pages cannot be paged (they overlap another region
    /// otherwise): the caller leaves them mapped as they are.
    pub fn add_paged(
        &self,
        gpu: &LogicalGpu<P>,
        owner: CtxHandle,
        base: u64,
        mem: Arc<fifo::SharedMem>,
        data: Option<(u64, u64)>,
    ) -> Result<bool> {
        let bytes = mem.len() as u64;
        let joins = {
            let rs = self.regions();
            match rs.range(..base + bytes).next_back().filter(|(b, r)| base < *b + r.bytes) {
                Some((&b, r)) if b == base && r.bytes == bytes && r.lasting && data.is_some() => true,
                Some(_) => return Ok(false),
                None => false,
            }
        };
        gpu.mem_pages_set(owner, base, bytes, None)?;
        // On a gang, the counterparts had it mapped as host memory too.
        for (o, part) in gpu.counterparts(owner) {
            o.mem_pages_set(part, base, bytes, None)?;
        }
        if joins {
            return Ok(true);
        }
        // Every context of every GPU may touch it: where its PTEs are in each.
        let mut slots = Vec::new();
        for g in self.all_gpus() {
            for c in g.contexts() {
                slots.push((c, g.pte_slots(c, base, bytes.next_multiple_of(PAGE))?));
            }
        }
        self.insert(owner, base, mem, vec![Page::default(); bytes.div_ceil(PAGE) as usize], false);
        if let Some(r) = self.regions().get_mut(&base) {
            r.slots = slots;
            if let Some(span) = data {
                r.span = span;
                r.lasting = true;
            }
        }
        Ok(true)
    }

    /// Whether `[p, p + n)` touches paged managed memory.
    pub fn paged(&self, p: u64, n: u64) -> bool {
        let rs = self.regions();
        let end = p.saturating_add(n.max(1));
        rs.range(..end).next_back().is_some_and(|(&b, r)| p < b + r.bytes && !r.pages.is_empty())
    }

    /// Record a prefetch of managed memory `[p, p + n)` to `to` (a device, -1 the host), as
    /// the range attributes answer it (the pages move by [`Uvm::prefetch`]).
    pub fn prefetched(&self, p: u64, n: u64, to: i32) {
        let mut rs = self.regions();
        let Some((&base, r)) = managed_at(&mut rs, p) else { return };
        let pages = r.bytes.div_ceil(PAGE) as usize;
        if r.prefetched.is_empty() {
            r.prefetched = vec![-2; pages];
        }
        let (first, last) = page_span(base, p, n, pages);
        r.prefetched[first..=last].iter_mut().for_each(|d| *d = to);
    }

    /// The advice and last prefetch destination of each page holding managed memory
    /// `[p, p + n)` (CUDA's range attributes); None where `p` is in no managed memory.
    pub fn range_advice(&self, p: u64, n: u64) -> Option<Vec<(Adv, i32)>> {
        let mut rs = self.regions();
        let (&base, r) = managed_at(&mut rs, p)?;
        let (first, last) = page_span(base, p, n, r.bytes.div_ceil(PAGE) as usize);
        Some(
            (first..=last)
                .map(|k| (r.advice.get(k).copied().unwrap_or(NO_ADV), r.prefetched.get(k).copied().unwrap_or(-2)))
                .collect(),
        )
    }

    /// Where the page holding `p` of paged managed memory lives: on the host
    /// (`Some(None)`) or on GPU `g` (`Some(Some(g))`); None where `p` is not paged managed
    /// memory. Read-only copies of a read-mostly page leave it on the host.
    pub fn location(&self, p: u64) -> Option<Option<usize>> {
        let rs = self.regions();
        let (&b, r) = rs.range(..=p).next_back().filter(|(b, r)| p < *b + r.bytes && !r.pages.is_empty())?;
        Some(r.pages[((p - b) / PAGE) as usize].on.map(|(g, _)| g))
    }

    /// The memory at `base` is going: unmap it from the contexts it was mapped into (each
    /// after its work), and forget it.
    pub fn remove(&self, base: u64) {
        let Some(mut r) = self.regions().remove(&base) else { return };
        self.release(base, &mut r);
        self.forget_for_migrations(&r);
        self.unmap_all(base, &r.mapped);
    }

    /// Region `r` (at `base`) is going: its pages come home, and every mapping of them goes
    /// (copies, other GPUs' and the host page's).
    fn release(&self, base: u64, r: &mut Region) {
        r.advice.clear();
        for k in 0..r.pages.len() {
            self.write_back(base, r, k);
            self.drop_copies(base, r, k);
            self.drop_remote(base, r, k);
        }
    }

    /// Paged region `r` is going: the GPUs' migration channels let its memory go.
    fn forget_for_migrations(&self, r: &Region) {
        if !r.pages.is_empty() {
            for g in self.all_gpus() {
                g.migrate_forget(&r.mem);
            }
        }
    }

    fn unmap_all(&self, base: u64, ctxs: &[CtxHandle]) {
        for &c in ctxs {
            if let Some(gpu) = self.gpu_at(crate::api::ordinal_of(c.0) as usize) {
                let _ = gpu.mem_unmap_foreign(c, base);
            }
        }
    }

    /// Context `h` of `gpu` is going (with its counterparts on the other GPUs of a gang):
    /// forget its mappings of other contexts' memory, and take the memory it owns out of
    /// the contexts it was mapped into.
    pub fn context_gone(&self, gpu: &LogicalGpu<P>, h: CtxHandle) {
        let ctxs: Vec<CtxHandle> = core::iter::once(h).chain(gpu.counterparts(h).into_iter().map(|(_, c)| c)).collect();
        let mut gone = Vec::new();
        {
            let mut rs = self.regions();
            for r in rs.values_mut() {
                r.mapped.retain(|c| !ctxs.contains(c));
                // Their page tables go with them.
                r.slots.retain(|(c, _)| !ctxs.contains(c));
            }
            for p in rs.values_mut().flat_map(|r| r.pages.iter_mut()) {
                p.mapped.retain(|c| !ctxs.contains(c));
                p.remote.retain(|(_, c)| !ctxs.contains(c));
            }
            // The program's own data stays (other contexts may map it).
            let owned: Vec<u64> = rs.iter().filter(|(_, r)| r.owner == h && !r.lasting).map(|(&b, _)| b).collect();
            for b in owned {
                if let Some(mut r) = rs.remove(&b) {
                    self.release(b, &mut r);
                    self.forget_for_migrations(&r);
                    gone.push((b, r.mapped));
                }
            }
        }
        for (b, mapped) in gone {
            self.unmap_all(b, &mapped);
        }
    }

    /// One more page on a GPU, or one fewer.
    fn resident(&self, up: bool) {
        if up {
            self.resident.fetch_add(1, Ordering::AcqRel);
        } else {
            self.resident.fetch_sub(1, Ordering::AcqRel);
        }
    }
}
