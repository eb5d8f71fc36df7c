//! Host memory reached on demand, through the device's replayable faults: pinned host
//! memory (cuMemAllocHost, cuMemHostAlloc) and managed memory (cuMemAllocManaged) are
//! reachable from every context of every GPU, as CUDA's unified addressing makes them.
//! Managed memory on a device of compute capability 6.0 or later is paged (unless
//! `RGDEV_UVM=host`; else it is mapped into every context at once, [`add_everywhere`]): see
//! [`add_paged`] (its pages migrate to the GPU that touches them, come back to the host
//! when the host synchronizes or copies, and leave a full VRAM). Pinned memory is mapped
//! where it is, on demand:
//! The context that made an allocation has it mapped; any other gets a mapping when one of
//! its kernels first touches it: the access finds no PTE and parks as a replayable fault
//! (every context the library creates is replayable), and the fault service, run by the
//! threads waiting for the device, maps the whole allocation into the faulting context at
//! its one address (`Gpu::mem_map_host_at`) and replays. So GPUs share host memory only
//! where a program uses it that way, and the parallel lock step, which keeps GPUs that share
//! memory on one host thread, stays parallel for the rest. Mappings go before the memory.
//!
//! The service keeps its own table, under its own lock, and never takes the library's: it
//! runs inside a wait, which may be one that another thread entered holding that lock.

use super::*;
use hw::mmu::Pte;
use hw::regs::Target;
use runtime_core::api::migrate::Side;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Host memory another context may need: its device address range, memory and owner.
struct Region {
    bytes: u64,
    mem: Arc<fifo::SharedMem>,
    owner: CtxHandle,
    /// Contexts it was mapped into on demand.
    mapped: Vec<CtxHandle>,
    /// Managed memory paged on demand (see `paging`): each 4 KiB page's place.
    pages: Vec<Page>,
    /// Managed memory not paged: mapped into every context at once.
    eager: bool,
    /// Paged memory: where its PTEs are in each context (of any GPU), found when the
    /// memory or the context was made, so that the fault service points them with no
    /// context's lock (a launch waiting for ring space holds its context's).
    slots: Vec<(CtxHandle, runtime_core::vm::PteSlots)>,
    /// Paged memory: each page's advice (empty: none given).
    advice: Vec<Adv>,
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
pub(crate) struct Adv {
    /// Read-mostly: a GPU's read fault gets a read-only copy, the host keeps the page;
    /// a write drops the copies.
    pub(crate) read_mostly: bool,
    /// The preferred location: a device, -1 the host (its faults map the host page where it
    /// is rather than migrate it), -2 none.
    pub(crate) preferred: i32,
    /// Devices that map the page where it lives (bit `d + 1`; bit 0 the host).
    pub(crate) accessed_by: u32,
}

/// No advice.
pub(crate) const NO_ADV: Adv = Adv { read_mostly: false, preferred: -2, accessed_by: 0 };

/// The page size managed memory migrates in.
pub(crate) const PAGE: u64 = 4096;

/// The GPUs' runtimes by ordinal, for the fault service (which takes no library lock).
static GPUS: OnceLock<Vec<std::sync::Weak<UserGpu>>> = OnceLock::new();

/// Counts of paged managed memory (`unified_memory` in the statistics).
#[derive(Default)]
pub(crate) struct Counts {
    /// Page migrations from the host to a GPU.
    pub(crate) to_gpu: AtomicU64,
    /// Page migrations from a GPU back to the host (at synchronization, before host-side
    /// copies, for another GPU, or evicted for room).
    pub(crate) to_host: AtomicU64,
    /// Pages evicted from a full VRAM.
    pub(crate) evictions: AtomicU64,
}

/// What paged managed memory did.
pub(crate) static COUNTS: Counts =
    Counts { to_gpu: AtomicU64::new(0), to_host: AtomicU64::new(0), evictions: AtomicU64::new(0) };

/// Pages a fault service moved for one fault: on `gpu`, for channel `chid`'s access, at
/// `cycle` (the faulting kernel is still running then: its statistics count them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Moved {
    pub(crate) gpu: u32,
    pub(crate) chid: u32,
    pub(crate) cycle: u64,
    pub(crate) to_gpu: u64,
    pub(crate) to_host: u64,
}

/// What each fault moved, oldest first (taken by the profile).
pub(crate) static MOVED: Mutex<Vec<Moved>> = Mutex::new(Vec::new());

/// The records of [`MOVED`] so far, taken.
pub(crate) fn take_moved() -> Vec<Moved> {
    std::mem::take(&mut *MOVED.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
}

/// Pages on GPUs now (host accesses write them back first when there are any).
static RESIDENT: AtomicU64 = AtomicU64::new(0);

/// Which GPU reaches which peer to peer: `REACH[a][b]`, the PCI routing id of GPU `b`
/// where GPU `a` can map its VRAM (through its peer table entry `b`, [`peer_entry`]).
static REACH: OnceLock<Vec<Vec<Option<u16>>>> = OnceLock::new();

/// The peer table entries (GPU, entry) set so far for mappings of paged memory.
static PEERED: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Record the system's GPUs for the fault service, and which reach which peer to peer
/// (`reach[a][b]`: `b`'s routing id where the topology lets `a` reach it).
pub(crate) fn set_gpus(gpus: Vec<std::sync::Weak<UserGpu>>, reach: Vec<Vec<Option<u16>>>) {
    let _ = GPUS.set(gpus);
    let _ = REACH.set(reach);
}

/// GPU `b`'s routing id, where GPU `a` can map its VRAM through its peer table (entry `b`).
fn reach(a: usize, b: usize) -> Option<u16> {
    (a != b && b < hw::mmu::PEERS).then(|| REACH.get()?.get(a)?.get(b).copied().flatten()).flatten()
}

/// Whether GPU `a` maps GPU `b`'s VRAM through its peer table (entry `b`).
fn reaches(a: usize, b: usize) -> bool {
    reach(a, b).is_some()
}

/// Peer table entry `b` of GPU `a` (`gpu`) names GPU `b`, set at its first use: false
/// where `a` cannot reach `b`. (A peer table write merges the two GPUs' groups of the
/// parallel lock step, so only the pairs that share pages are merged.)
fn peer_entry(gpu: &UserGpu, a: usize, b: usize) -> bool {
    let Some(rid) = reach(a, b) else { return false };
    let mut set = PEERED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if set.contains(&(a, b)) {
        return true;
    }
    let ok = gpu.peer_set(b as u8, Some(rid)).is_ok();
    if ok {
        set.push((a, b));
    }
    ok
}

fn gpu_at(i: usize) -> Option<Arc<UserGpu>> {
    GPUS.get()?.get(i)?.upgrade()
}

/// The regions by base device address.
static REGIONS: Mutex<BTreeMap<u64, Region>> = Mutex::new(BTreeMap::new());

std::thread_local! {
    /// Whether this thread holds the regions' lock.
    static HOLDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The regions' lock, held: the thread is marked as holding it (see [`holding`]).
struct Held(MutexGuard<'static, BTreeMap<u64, Region>>, bool);

impl std::ops::Deref for Held {
    type Target = BTreeMap<u64, Region>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HOLDING.with(|h| h.set(self.1));
    }
}

fn regions() -> Held {
    let g = REGIONS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    Held(g, HOLDING.with(|h| h.replace(true)))
}

/// Whether this thread holds the regions' lock (around a migration's wait, say): its waits
/// then serve no fault, whose service needs that lock (`Gpu::replay_hold`), nor another
/// GPU's work.
pub(crate) fn holding() -> bool {
    HOLDING.with(std::cell::Cell::get)
}

/// Fault records the device's fault buffer holds (more wait in their parked warps).
pub(crate) const FAULT_BUFFER_ENTRIES: u32 = 256;

/// Context `owner` made host memory `mem` reachable at device address `base`.
pub(crate) fn add(owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>) {
    insert(owner, base, mem, Vec::new(), false);
}

/// Record region `base`: `mem` of `owner`, paged when `pages` holds its pages, mapped into
/// every context at once when `eager`.
fn insert(owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>, pages: Vec<Page>, eager: bool) {
    let bytes = mem.len() as u64;
    let (slots, advice, span) = (Vec::new(), Vec::new(), (0, bytes));
    let r = Region { bytes, mem, owner, mapped: Vec::new(), pages, eager, slots, advice, span, lasting: false };
    regions().insert(base, r);
}

/// Environment variable: `host` keeps managed memory as host memory mapped everywhere
/// rather than paged on demand (see [`paging`]; `paging`, the default, is accepted).
pub(crate) const UVM_ENV: &str = "RGDEV_UVM";

/// Whether managed memory on `gpu` is paged (CUDA 6+ on Pascal and later): its pages live
/// on the host or on one GPU, a GPU's first touch migrates them there (a replayable
/// fault), and host access after synchronization finds them back on the host. Needs the
/// replayable faults of unified addressing and compute capability 6.0 or later; the
/// default there (`RGDEV_UVM=host` keeps managed memory as host memory every context of
/// every GPU has mapped, as on older devices). The fault service takes no context's lock
/// for it (PTE slots found when the memory or the context was made), so it also runs where
/// a launch waits for ring space holding its context's. On one logical GPU over several
/// (a gang) a page migrates to the GPU whose part of a kernel touches it: the other GPUs'
/// counterparts of each context are paged as the context is.
pub(crate) fn paging(gpu: &UserGpu) -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    let on = *ON.get_or_init(|| std::env::var(UVM_ENV).map_or(true, |v| v != "host"));
    on && gpu.unified_addressing() && gpu.info().compute_capability.0 >= 6
}

/// Context `owner` allocated managed memory `mem` at `base`, not paged: every context of
/// every GPU has it mapped at once (those made later when they are made), so no kernel
/// waits for a fault service to reach it.
pub(crate) fn add_everywhere(owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>) {
    insert(owner, base, mem, Vec::new(), true);
    let ctxs: Vec<(Arc<UserGpu>, CtxHandle)> = GPUS
        .get()
        .into_iter()
        .flatten()
        .filter_map(std::sync::Weak::upgrade)
        .flat_map(|g| g.contexts().into_iter().map(move |c| (g.clone(), c)))
        .collect();
    for (gpu, c) in ctxs {
        map_eagerly(&gpu, base, c);
    }
}

/// Map region `base` (managed, not paged) into context `c` now, unless it is there.
fn map_eagerly(gpu: &UserGpu, base: u64, c: CtxHandle) {
    let mem = {
        let rs = regions();
        match rs.get(&base) {
            Some(r) if r.owner != c && !r.mapped.contains(&c) && r.pages.is_empty() && r.eager => r.mem.clone(),
            _ => return,
        }
    };
    if gpu.mem_map_host_at(c, base, mem).is_ok()
        && let Some(r) = regions().get_mut(&base)
    {
        r.mapped.push(c);
    }
}

/// Context `c` was created on `gpu` (with its counterparts on the other GPUs of a gang):
/// managed memory that is not paged is mapped into it, and the PTEs of paged memory are
/// found in it and in its counterparts.
pub(crate) fn context_created(gpu: &UserGpu, c: CtxHandle) {
    created(gpu, c);
    for (o, part) in gpu.gang_contexts(c) {
        created(&o, part);
    }
}

/// [`context_created`] for one context.
fn created(gpu: &UserGpu, c: CtxHandle) {
    let eager: Vec<u64> = regions().iter().filter(|(_, r)| r.eager).map(|(&b, _)| b).collect();
    for base in eager {
        map_eagerly(gpu, base, c);
    }
    let paged: Vec<(u64, u64)> =
        regions().iter().filter(|(_, r)| !r.pages.is_empty()).map(|(&b, r)| (b, r.bytes)).collect();
    for (base, bytes) in paged {
        if let Ok(s) = gpu.pte_slots(c, base, bytes.next_multiple_of(PAGE))
            && let Some(r) = regions().get_mut(&base)
        {
            r.slots.push((c, s));
        }
    }
}

/// Point page `va` of region `r` in context `c` of `gpu` at VRAM `phys` (or unmap it):
/// through the PTE slots found for it, with no context's lock.
fn set_page(gpu: &UserGpu, r: &Region, c: CtxHandle, va: u64, phys: Option<u64>) -> bool {
    set_pte(gpu, r, c, va, phys.map(|p| Pte::map(p, Target::Vram)))
}

/// [`set_page`] to any entry: system memory, a peer's VRAM, read-only.
fn set_pte(gpu: &UserGpu, r: &Region, c: CtxHandle, va: u64, pte: Option<Pte>) -> bool {
    if let Some((_, s)) = r.slots.iter().find(|(x, _)| *x == c) {
        return gpu.pte_set_to(s, va, pte).is_ok();
    }
    // Not found (a context the library did not make): through the context (writable VRAM
    // or nothing), unless its lock is held by a launch waiting for ring space.
    let phys = match pte {
        None => None,
        Some(p) if p.target() == Target::Vram && !p.read_only() => Some(p.phys()),
        Some(_) => return false,
    };
    !gpu.ctx_waits_in_submit(c) && gpu.mem_pages_set(c, va, PAGE, phys).is_ok()
}

/// Context `owner` has managed memory `mem` at `base`, to be paged: no GPU has its pages
/// yet (the owner's PTEs go too), so the first touch of each migrates it. `data`: the
/// program's own `__managed__` data, its bytes `[start, end)` of `mem` (a lasting region,
/// see [`Region`]); another context mapping the same pages joins the region. False where
/// the pages cannot be paged (they overlap another region otherwise): the caller leaves
/// them mapped as they are.
pub(crate) fn add_paged(
    gpu: &UserGpu,
    owner: CtxHandle,
    base: u64,
    mem: Arc<fifo::SharedMem>,
    data: Option<(u64, u64)>,
) -> Result<bool> {
    let bytes = mem.len() as u64;
    let joins = {
        let rs = regions();
        match rs.range(..base + bytes).next_back().filter(|(b, r)| base < *b + r.bytes) {
            Some((&b, r)) if b == base && r.bytes == bytes && r.lasting && data.is_some() => true,
            Some(_) => return Ok(false),
            None => false,
        }
    };
    gpu.mem_pages_set(owner, base, bytes, None)?;
    // On a gang, the counterparts had it mapped as host memory too.
    for (o, part) in gpu.gang_contexts(owner) {
        o.mem_pages_set(part, base, bytes, None)?;
    }
    if joins {
        return Ok(true);
    }
    // Every context of every GPU may touch it: where its PTEs are in each.
    let mut slots = Vec::new();
    for g in GPUS.get().into_iter().flatten().filter_map(std::sync::Weak::upgrade) {
        for c in g.contexts() {
            slots.push((c, g.pte_slots(c, base, bytes.next_multiple_of(PAGE))?));
        }
    }
    insert(owner, base, mem, vec![Page::default(); bytes.div_ceil(PAGE) as usize], false);
    if let Some(r) = regions().get_mut(&base) {
        r.slots = slots;
        if let Some(span) = data {
            r.span = span;
            r.lasting = true;
        }
    }
    Ok(true)
}

/// cuMemAdvise on paged managed memory `[p, p + n)`: `f` changes each page's advice. A
/// page whose advice changed loses its read-only copies and direct mappings.
pub(crate) fn advise(p: u64, n: u64, f: impl Fn(&mut Adv)) {
    let mut rs = regions();
    let Some((&base, r)) = rs.range_mut(..=p).next_back().filter(|(b, r)| p < *b + r.bytes && !r.pages.is_empty())
    else {
        return;
    };
    if r.advice.is_empty() {
        r.advice = vec![NO_ADV; r.pages.len()];
    }
    let first = ((p - base) / PAGE) as usize;
    let last = (((p + n.max(1) - 1 - base) / PAGE) as usize).min(r.pages.len() - 1);
    for k in first..=last {
        let before = r.advice[k];
        f(&mut r.advice[k]);
        if r.advice[k] != before {
            // The next access faults again and finds the new advice; the GPUs it names as
            // accessing the page have it mapped where it lives.
            drop_copies(base, r, k);
            drop_remote(base, r, k);
            map_accessors(base, r, k);
        }
    }
}

/// Page `k` of region `r` (at `base`): its read-only copies go (unmapped, their VRAM freed).
fn drop_copies(base: u64, r: &mut Region, k: usize) {
    let va = base + k as u64 * PAGE;
    for (g, phys, ctxs) in std::mem::take(&mut r.pages[k].copies) {
        if let Some(gpu) = gpu_at(g) {
            for c in ctxs {
                let _ = set_page(&gpu, r, c, va, None);
            }
            gpu.vram_pages_free(phys, PAGE);
        }
        RESIDENT.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Page `k` of region `r`: the direct mappings of its host page go (it is about to move).
fn drop_remote(base: u64, r: &mut Region, k: usize) {
    let va = base + k as u64 * PAGE;
    for (g, c) in std::mem::take(&mut r.pages[k].remote) {
        if let Some(gpu) = gpu_at(g) {
            let _ = set_page(&gpu, r, c, va, None);
        }
    }
}

/// Map page `k` of region `r` (at `base`) where it lives into context `ctx` of GPU `g`,
/// moving nothing: the host page (a system-memory PTE: the GPU reads and writes it over
/// PCIe), or another GPU's VRAM through the peer table (entry `x` names GPU `x`, over the
/// link). Recorded in the page's `remote` mappings. False where it cannot be.
fn map_in_place(base: u64, r: &mut Region, k: usize, g: usize, gpu: &UserGpu, ctx: CtxHandle) -> bool {
    let pte = match r.pages[k].on {
        None => match gpu.host_bus(&r.mem) {
            Ok(bus) => Pte::map(bus + k as u64 * PAGE, Target::SysCoherent),
            Err(_) => return false,
        },
        Some((x, phys)) if peer_entry(gpu, g, x) => Pte::map_peer(phys, x as u8),
        Some(_) => return false,
    };
    let ok = set_pte(gpu, r, ctx, base + k as u64 * PAGE, Some(pte));
    if ok && !r.pages[k].remote.contains(&(g, ctx)) {
        r.pages[k].remote.push((g, ctx));
    }
    ok
}

/// Page `k` of region `r` has settled where it lives: every context of each GPU the advice
/// says accesses it maps it there (CUDA's accessed-by: always mapped, so those GPUs take
/// no fault and move nothing), except the GPU that has it (its contexts map it at their
/// first touch) and GPUs that cannot reach it there.
fn map_accessors(base: u64, r: &mut Region, k: usize) {
    let by = r.advice.get(k).map_or(0, |a| a.accessed_by) >> 1;
    if by == 0 {
        return;
    }
    let on = r.pages[k].on.map(|(x, _)| x);
    let ctxs: Vec<(usize, CtxHandle)> = r
        .slots
        .iter()
        .map(|&(c, _)| (runtime_core::api::ordinal_of(c.0) as usize, c))
        .filter(|&(e, _)| by & (1 << e) != 0 && Some(e) != on)
        .collect();
    if !ctxs.is_empty() && on.is_none() {
        // The host page itself: read-only copies would be stale beside it.
        drop_copies(base, r, k);
    }
    for (e, c) in ctxs {
        if let Some(gpu) = gpu_at(e) {
            let _ = map_in_place(base, r, k, e, &gpu, c);
        }
    }
}

/// What the advice of page `k` makes a fault by context `ctx` of GPU `g` do instead of a
/// migration: map the page where it lives, on the host (preferred location the host, or
/// accessed by `g`) or on another GPU `g` reaches peer to peer (that GPU its preferred
/// location, or accessed by `g`), or give `g` a read-only copy of a host page (read-mostly,
/// a read). None: migrate as usual (a page not at its preferred location goes to the GPU
/// that touches it, as CUDA documents). True when the page is now mapped.
fn advised(base: u64, r: &mut Region, k: usize, g: usize, gpu: &UserGpu, ctx: CtxHandle, write: bool) -> Option<bool> {
    let a = r.advice.get(k).copied().unwrap_or(NO_ADV);
    let accessor = a.accessed_by & (1 << (g + 1)) != 0;
    match r.pages[k].on {
        Some((x, _)) if x == g => return None,
        Some((x, _)) => {
            let stays = a.preferred == x as i32 || accessor || r.pages[k].moves >= THRASH;
            return (stays && reaches(g, x)).then(|| map_in_place(base, r, k, g, gpu, ctx));
        }
        None if a == NO_ADV => return None,
        None => {}
    }
    if a.preferred == -1 || accessor {
        drop_copies(base, r, k);
        return Some(map_in_place(base, r, k, g, gpu, ctx));
    }
    if a.read_mostly && !write {
        // A read-only copy on this GPU (made once, mapped per context).
        let copy = match r.pages[k].copies.iter().position(|c| c.0 == g) {
            Some(i) => i,
            None => {
                let phys = gpu.vram_pages_alloc(PAGE).ok()?;
                let off = k as u64 * PAGE;
                let len = PAGE.min(r.mem.len() as u64 - off);
                if gpu.migrate(&[(Side::Host(r.mem.clone(), off), Side::Vram(phys), len)]).is_err() {
                    gpu.vram_pages_free(phys, PAGE);
                    return Some(false);
                }
                RESIDENT.fetch_add(1, Ordering::AcqRel);
                COUNTS.to_gpu.fetch_add(1, Ordering::Relaxed);
                r.pages[k].copies.push((g, phys, Vec::new()));
                r.pages[k].copies.len() - 1
            }
        };
        let phys = r.pages[k].copies[copy].1;
        let ro = Pte::map(phys, Target::Vram).with_read_only(true);
        let ok = set_pte(gpu, r, ctx, base + k as u64 * PAGE, Some(ro));
        if ok && !r.pages[k].copies[copy].2.contains(&ctx) {
            r.pages[k].copies[copy].2.push(ctx);
        }
        return Some(ok);
    }
    // A write to a read-mostly page (or advice that does not apply): the copies and
    // direct mappings go, and the page migrates.
    drop_copies(base, r, k);
    drop_remote(base, r, k);
    None
}

/// Whether `[p, p + n)` touches paged managed memory.
pub(crate) fn paged(p: u64, n: u64) -> bool {
    let rs = regions();
    let end = p.saturating_add(n.max(1));
    rs.range(..end).next_back().is_some_and(|(&b, r)| p < b + r.bytes && !r.pages.is_empty())
}

/// Bring every page of paged managed memory back to the host (what host-side copies need):
/// write each GPU copy back, unmap it, free its VRAM; read-only copies go.
pub(crate) fn to_host_all() {
    to_host(None);
}

/// Host access after the host synchronized with work of GPU `g`: the pages of that GPU,
/// and of every other GPU with no work left, come home (written back, unmapped, their VRAM
/// freed), and every read-only copy goes (the host may write the page now). Pages on GPUs
/// still at work stay: their kernels may be using them, and the host may not touch them
/// before it synchronizes with those GPUs.
pub(crate) fn to_host_of(g: usize) {
    if RESIDENT.load(Ordering::Acquire) == 0 {
        return;
    }
    let gpus = GPUS.get().map_or(0, Vec::len);
    let home: Vec<usize> = (0..gpus).filter(|&x| x == g || gpu_at(x).is_some_and(|o| o.idle())).collect();
    to_host(Some(&home));
}

/// [`to_host_all`], or [`to_host_of`] (`only` those GPUs).
fn to_host(only: Option<&[usize]>) {
    let pages = RESIDENT.load(Ordering::Acquire);
    if pages == 0 {
        return;
    }
    let mut rs = regions();
    let on = |p: &Page| p.on.is_some_and(|(x, _)| only.is_none_or(|gs| gs.contains(&x)));
    let home: Vec<(u64, usize)> = rs
        .iter()
        .flat_map(|(&b, r)| r.pages.iter().enumerate().filter(|(_, p)| on(p)).map(move |(k, _)| (b, k)))
        .collect();
    send_all_home(&mut rs, &home);
    for &(b, k) in &home {
        if let Some(p) = rs.get_mut(&b).and_then(|r| r.pages.get_mut(k)) {
            p.moves = 0;
        }
    }
    let copies: Vec<(u64, usize)> = rs
        .iter()
        .flat_map(|(&b, r)| r.pages.iter().enumerate().filter(|(_, p)| !p.copies.is_empty()).map(move |(k, _)| (b, k)))
        .collect();
    for (b, k) in copies {
        if let Some(r) = rs.get_mut(&b) {
            drop_copies(b, r, k);
        }
    }
    let (n, whence) = (home.len(), only.map_or(String::new(), |gs| format!(" from GPUs {gs:?}")));
    apitrace::uvm_event(|| format!("{n} pages back to the host{whence}"));
}

/// A page on its way home from a GPU's VRAM at `phys` (see [`send_home`]).
struct Leaving {
    base: u64,
    k: usize,
    phys: u64,
}

/// A copy-engine job of a migration: (source, destination, bytes).
type Job = (Side, Side, u64);

/// Page `k` of region `r` (at `base`) leaves the GPU it is on for the host: unmapped there
/// first (a warp still running stores nothing the copy would miss: its access faults and
/// waits for the page to come back), and from other GPUs' mappings over the link; the copy
/// of its managed bytes is queued in `copies`, for that GPU's migration channel ([`land`]
/// runs them). The GPU and the page, or None when the page is on no GPU.
fn send_home(base: u64, r: &mut Region, k: usize, copies: &mut Vec<Job>) -> Option<(usize, Leaving)> {
    let (g, phys) = r.pages[k].on.take()?;
    let va = base + k as u64 * PAGE;
    if let Some(gpu) = gpu_at(g) {
        for c in std::mem::take(&mut r.pages[k].mapped) {
            let _ = set_page(&gpu, r, c, va, None);
        }
    }
    drop_remote(base, r, k);
    let off = k as u64 * PAGE;
    let (lo, hi) = (off.max(r.span.0), (off + PAGE).min(r.span.1));
    if lo < hi {
        copies.push((Side::Vram(phys + lo - off), Side::Host(r.mem.clone(), lo), hi - lo));
    }
    RESIDENT.fetch_sub(1, Ordering::AcqRel);
    COUNTS.to_host.fetch_add(1, Ordering::Relaxed);
    Some((g, Leaving { base, k, phys }))
}

/// Run migration copies on `gpu`'s copy engine (the runtime's migration channel, physical
/// addresses: one submission per 64, each waited for). Should the channel fail, the same
/// copies are made through the PRAMIN window, in order, so no page is lost: the VRAM they
/// read is not reused before they are done.
fn land(gpu: &UserGpu, copies: &[Job]) {
    if copies.is_empty() || gpu.migrate(copies).is_ok() {
        return;
    }
    let page = |p: u64| (p & !(PAGE - 1), (p % PAGE) as usize);
    for (src, dst, n) in copies {
        let mut buf = vec![0u8; PAGE as usize];
        match (src, dst) {
            (Side::Vram(p), Side::Host(mem, off)) => {
                let (at, from) = page(*p);
                if gpu.vram_read(at, &mut buf).is_ok() {
                    let _ = mem.write(*off as usize, &buf[from..from + *n as usize]);
                }
            }
            (Side::Host(mem, off), Side::Vram(p)) => {
                let (at, to) = page(*p);
                if gpu.vram_read(at, &mut buf).is_ok()
                    && mem.read(*off as usize, &mut buf[to..to + *n as usize]).is_ok()
                {
                    let _ = gpu.vram_write(at, &buf);
                }
            }
            _ => {}
        }
    }
}

/// The pages `leaving` GPU `gpu` have landed on the host: their VRAM goes, and the GPUs
/// advised to access them map them there.
fn landed_home(rs: &mut BTreeMap<u64, Region>, gpu: &UserGpu, leaving: Vec<Leaving>) {
    for l in leaving {
        gpu.vram_pages_free(l.phys, PAGE);
        if let Some(r) = rs.get_mut(&l.base) {
            map_accessors(l.base, r, l.k);
        }
    }
}

/// Pages `pages` (region, page) home from whichever GPUs have them: each GPU's copies in
/// one batch.
fn send_all_home(rs: &mut BTreeMap<u64, Region>, pages: &[(u64, usize)]) {
    let mut per: BTreeMap<usize, (Vec<Job>, Vec<Leaving>)> = BTreeMap::new();
    for &(b, k) in pages {
        let Some(r) = rs.get_mut(&b) else { continue };
        let Some((g, _)) = r.pages.get(k).and_then(|p| p.on) else { continue };
        let (copies, leaving) = per.entry(g).or_default();
        if let Some((_, l)) = send_home(b, r, k, copies) {
            leaving.push(l);
        }
    }
    for (g, (copies, leaving)) in per {
        if let Some(gpu) = gpu_at(g) {
            land(&gpu, &copies);
            landed_home(rs, &gpu, leaving);
        }
    }
}

/// Page `k` of region `r` (at `base`) back on the host now, if it is on a GPU.
fn write_back(base: u64, r: &mut Region, k: usize) {
    let mut copies = Vec::new();
    let Some((g, l)) = send_home(base, r, k, &mut copies) else { return };
    if let Some(gpu) = gpu_at(g) {
        land(&gpu, &copies);
        gpu.vram_pages_free(l.phys, PAGE);
    }
    map_accessors(base, r, k);
}

/// cuMemPrefetchAsync of paged managed memory `[p, p + n)`: every page moves to GPU `g`
/// (`to`, mapped in context `ctx` when given) or to the host (`None`), now, in batches.
pub(crate) fn prefetch(p: u64, n: u64, to: Option<(usize, Option<CtxHandle>)>) {
    let whither = to.map_or("the host".to_string(), |(g, _)| format!("GPU {g}"));
    apitrace::uvm_event(|| format!("prefetch {} pages to {whither}", n.div_ceil(PAGE)));
    let mut rs = regions();
    let Some((&base, r)) = rs.range(..=p).next_back().filter(|(b, r)| p < *b + r.bytes && !r.pages.is_empty()) else {
        return;
    };
    let first = ((p - base) / PAGE) as usize;
    let last = ((p + n.max(1) - 1 - base) / PAGE) as usize;
    let last = last.min(r.pages.len() - 1);
    match to {
        None => send_all_home(&mut rs, &(first..=last).map(|k| (base, k)).collect::<Vec<_>>()),
        Some((g, ctx)) => {
            let Some(gpu) = gpu_at(g) else { return };
            let want: Vec<Want> = (first..=last).map(|k| Want { base, k, ctx, chid: None }).collect();
            bring_in(&mut rs, g, &gpu, &want);
        }
    }
}

/// A page to bring to a GPU: region, page, the context to map it in (a prefetch may name
/// none), and the channel whose fault asked for it (its kernel's statistics count what
/// moved for it).
struct Want {
    base: u64,
    k: usize,
    ctx: Option<CtxHandle>,
    chid: Option<u32>,
}

/// Bring pages `want` to GPU `g`, in batches, as NVIDIA's driver serves a fault buffer:
/// pages on another GPU come home first; each page not here gets VRAM, and while VRAM is
/// full pages of this GPU not wanted are evicted (oldest region first), all their copies
/// in one batch landed before their VRAM is reused; then every page's copy in one batch;
/// then each is mapped in its context, and where advice says. False where a page could
/// not be brought or mapped. Per channel, the pages moved in and out for it.
fn bring_in(rs: &mut BTreeMap<u64, Region>, g: usize, gpu: &UserGpu, want: &[Want]) -> (bool, Vec<(u32, u64, u64)>) {
    let mut ok = true;
    let mut moved: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    let mut count = |chid: Option<u32>, i: u64, o: u64| {
        if let Some(c) = chid {
            let m = moved.entry(c).or_default();
            *m = (m.0 + i, m.1 + o);
        }
    };
    // The pages to copy here, each once (by its first want).
    let mut need: Vec<&Want> = Vec::new();
    for w in want {
        let Some(r) = rs.get_mut(&w.base) else {
            ok = false;
            continue;
        };
        if r.pages[w.k].on.is_some_and(|(x, _)| x == g) || need.iter().any(|n| (n.base, n.k) == (w.base, w.k)) {
            continue;
        }
        // On another GPU: back to the host first. Read-only copies and direct mappings of
        // the host page go: the page is about to live elsewhere.
        if r.pages[w.k].on.is_some() {
            write_back(w.base, r, w.k);
            r.pages[w.k].moves = r.pages[w.k].moves.saturating_add(1);
            count(w.chid, 0, 1);
        }
        drop_copies(w.base, r, w.k);
        drop_remote(w.base, r, w.k);
        need.push(w);
    }
    let mut vram: Vec<Option<u64>> = need.iter().map(|_| gpu.vram_pages_alloc(PAGE).ok()).collect();
    let short = vram.iter().filter(|p| p.is_none()).count();
    if short > 0 {
        // Oversubscription: room from pages of this GPU no fault of the batch wants, oldest
        // region first; pages whose preferred location this GPU is go last (CUDA's driver
        // resists moving a page from its preferred location).
        let wanted = |b: u64, k: usize| want.iter().any(|w| (w.base, w.k) == (b, k));
        let mut victims: Vec<(u64, usize)> = Vec::new();
        for preferred_here in [false, true] {
            for (&b, r) in rs.iter() {
                for (k, p) in r.pages.iter().enumerate() {
                    let here = r.advice.get(k).is_some_and(|a| a.preferred == g as i32);
                    let on = p.on.is_some_and(|(x, _)| x == g);
                    if on && here == preferred_here && victims.len() < short && !wanted(b, k) {
                        victims.push((b, k));
                    }
                }
            }
        }
        let (mut copies, mut leaving) = (Vec::new(), Vec::new());
        for (b, k) in victims {
            if let Some(r) = rs.get_mut(&b)
                && let Some((_, l)) = send_home(b, r, k, &mut copies)
            {
                leaving.push(l);
                COUNTS.evictions.fetch_add(1, Ordering::Relaxed);
            }
        }
        land(gpu, &copies);
        let mut evicted = leaving.len();
        landed_home(rs, gpu, leaving);
        for (j, p) in vram.iter_mut().enumerate().filter(|(_, p)| p.is_none()) {
            *p = gpu.vram_pages_alloc(PAGE).ok();
            if p.is_some() && evicted > 0 {
                evicted -= 1;
                count(need[j].chid, 0, 1);
            }
        }
    }
    // By the copy engine, host memory to each page's VRAM.
    let mut copies = Vec::new();
    for (w, p) in need.iter().zip(&vram) {
        match (p, rs.get(&w.base)) {
            (Some(p), Some(r)) => {
                let off = w.k as u64 * PAGE;
                copies.push((Side::Host(r.mem.clone(), off), Side::Vram(*p), PAGE.min(r.mem.len() as u64 - off)));
            }
            _ => ok = false,
        }
    }
    land(gpu, &copies);
    for (w, p) in need.iter().zip(&vram) {
        if let (Some(p), Some(r)) = (p, rs.get_mut(&w.base)) {
            r.pages[w.k].on = Some((g, *p));
            RESIDENT.fetch_add(1, Ordering::AcqRel);
            COUNTS.to_gpu.fetch_add(1, Ordering::Relaxed);
            count(w.chid, 1, 0);
            map_accessors(w.base, r, w.k);
        }
    }
    // Mapped in the contexts that touched them.
    for w in want {
        let (Some(ctx), Some(r)) = (w.ctx, rs.get_mut(&w.base)) else { continue };
        match r.pages[w.k].on {
            Some((x, phys)) if x == g => {
                if !r.pages[w.k].mapped.contains(&ctx) {
                    if set_page(gpu, r, ctx, w.base + w.k as u64 * PAGE, Some(phys)) {
                        r.pages[w.k].mapped.push(ctx);
                    } else {
                        ok = false;
                    }
                }
            }
            _ => ok = false,
        }
    }
    (ok, moved.into_iter().map(|(c, (i, o))| (c, i, o)).collect())
}

/// The memory at `base` is going: unmap it from the contexts it was mapped into (each
/// after its work), and forget it.
pub(crate) fn remove(base: u64) {
    let Some(mut r) = regions().remove(&base) else { return };
    release(base, &mut r);
    forget_for_migrations(&r);
    unmap_all(base, &r.mapped);
}

/// Region `r` (at `base`) is going: its pages come home, and every mapping of them goes
/// (copies, other GPUs' and the host page's).
fn release(base: u64, r: &mut Region) {
    r.advice.clear();
    for k in 0..r.pages.len() {
        write_back(base, r, k);
        drop_copies(base, r, k);
        drop_remote(base, r, k);
    }
}

/// Paged region `r` is going: the GPUs' migration channels let its memory go.
fn forget_for_migrations(r: &Region) {
    if !r.pages.is_empty() {
        for g in GPUS.get().into_iter().flatten().filter_map(std::sync::Weak::upgrade) {
            g.migrate_forget(&r.mem);
        }
    }
}

fn unmap_all(base: u64, ctxs: &[CtxHandle]) {
    for &c in ctxs {
        if let Ok(gpu) = gpu_of(c.0) {
            let _ = gpu.mem_unmap_foreign(c, base);
        }
    }
}

/// Context `h` of `gpu` is going (with its counterparts on the other GPUs of a gang):
/// forget its mappings of other contexts' memory, and take the memory it owns out of the
/// contexts it was mapped into.
pub(crate) fn context_gone(gpu: &UserGpu, h: CtxHandle) {
    let ctxs: Vec<CtxHandle> = std::iter::once(h).chain(gpu.gang_contexts(h).into_iter().map(|(_, c)| c)).collect();
    let mut gone = Vec::new();
    {
        let mut rs = regions();
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
                release(b, &mut r);
                forget_for_migrations(&r);
                gone.push((b, r.mapped));
            }
        }
    }
    for (b, mapped) in gone {
        unmap_all(b, &mapped);
    }
}

/// Record for the statistics of the kernel on channel `chid` of `gpu` (still running) the
/// pages a fault service moved for it.
fn moved(gpu: &UserGpu, chid: u32, to_gpu: u64, to_host: u64) {
    let cycle = gpu.platform().device().lock().cycles();
    let m = Moved { gpu: gpu.ordinal(), chid, cycle, to_gpu, to_host };
    MOVED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(m);
}

/// The fault service of GPU `gpu`: map the host memory each fault touched into the faulting
/// context. False (cancel: the grids fail with the fault, as without replay) when a fault
/// is outside every region, or its context cannot be found.
pub(crate) fn service(gpu: &UserGpu, faults: &[hw::replay::Entry]) -> bool {
    let mut ok = true;
    let g = gpu.ordinal() as usize;
    let (in0, ev0) = (COUNTS.to_gpu.load(Ordering::Relaxed), COUNTS.evictions.load(Ordering::Relaxed));
    // Pages to migrate here, brought in one batch after the records are read.
    let mut want = Vec::new();
    for f in faults {
        let Some(ctx) = gpu.ctx_of_channel(f.chid) else {
            ok = false;
            continue;
        };
        // Paged managed memory: the advice acts, or the page migrates here.
        {
            let mut rs = regions();
            let paged = rs.range(..=f.va).next_back().filter(|(b, r)| f.va < *b + r.bytes && !r.pages.is_empty());
            if let Some((&base, _)) = paged {
                let k = ((f.va - base) / PAGE) as usize;
                let before = (COUNTS.to_gpu.load(Ordering::Relaxed), COUNTS.to_host.load(Ordering::Relaxed));
                match rs.get_mut(&base).and_then(|r| advised(base, r, k, g, gpu, ctx, f.write)) {
                    Some(done) => ok &= done,
                    None => want.push(Want { base, k, ctx: Some(ctx), chid: Some(f.chid) }),
                }
                let after = (COUNTS.to_gpu.load(Ordering::Relaxed), COUNTS.to_host.load(Ordering::Relaxed));
                if after != before {
                    moved(gpu, f.chid, after.0 - before.0, after.1 - before.1);
                }
                continue;
            }
        }
        let found = {
            let rs = regions();
            rs.range(..=f.va).next_back().filter(|(b, r)| f.va < *b + r.bytes).map(|(&b, r)| {
                let present = r.owner == ctx || r.mapped.contains(&ctx);
                (b, r.mem.clone(), present)
            })
        };
        match found {
            // Mapped by an earlier record of this batch.
            Some((_, _, true)) => {}
            // A launch waiting for ring space holds the context's lock: the access fails
            // (docs/multi-gpu.md).
            Some(_) if gpu.ctx_waits_in_submit(ctx) => ok = false,
            Some((base, mem, false)) => match gpu.mem_map_host_at(ctx, base, mem) {
                Ok(()) => {
                    if let Some(r) = regions().get_mut(&base) {
                        r.mapped.push(ctx);
                    }
                }
                Err(_) => ok = false,
            },
            None => ok = false,
        }
    }
    if !want.is_empty() {
        let (done, per_channel) = bring_in(&mut regions(), g, gpu, &want);
        ok &= done;
        for (chid, i, o) in per_channel {
            moved(gpu, chid, i, o);
        }
    }
    apitrace::uvm_event(|| {
        let moved = COUNTS.to_gpu.load(Ordering::Relaxed) - in0;
        let evicted = COUNTS.evictions.load(Ordering::Relaxed) - ev0;
        let how = if ok { "replayed" } else { "cancelled" };
        format!("GPU {g}: {} faults, {moved} pages in, {evicted} evicted, {how}", faults.len())
    });
    ok
}
