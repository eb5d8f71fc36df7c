//! Migrations of paged managed memory: pages to the GPU that touches them (faults,
//! prefetches), in batches on the copy engine, evicting pages of a full VRAM; and home to
//! the host when the host synchronizes or copies.

use super::{PAGE, Page, Region, Uvm};
use crate::api::CtxHandle;
use crate::api::migrate::Side;
use crate::logical::LogicalGpu;
use crate::platform::Platform;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

/// A page on its way home from a GPU's VRAM at `phys` (see [`send_home`]).
pub(super) struct Leaving {
    pub(super) base: u64,
    pub(super) k: usize,
    pub(super) phys: u64,
}

/// A copy-engine job of a migration: (source, destination, bytes).
pub(super) type Job = (Side, Side, u64);

/// A page to bring to a GPU: region, page, the context to map it in (a prefetch may name
/// none), and the channel whose fault asked for it (its kernel's statistics count what
/// moved for it).
pub(super) struct Want {
    pub(super) base: u64,
    pub(super) k: usize,
    pub(super) ctx: Option<CtxHandle>,
    pub(super) chid: Option<u32>,
}

impl<P: Platform> Uvm<P> {
    /// Bring every page of paged managed memory back to the host (what host-side copies need):
    /// write each GPU copy back, unmap it, free its VRAM; read-only copies go.
    pub fn to_host_all(&self) {
        self.to_host(None);
    }

    /// Host access after the host synchronized with work of GPU `g`: the pages of that GPU,
    /// and of every other GPU with no work left, come home (written back, unmapped, their VRAM
    /// freed), and every read-only copy goes (the host may write the page now). Pages on GPUs
    /// still at work stay: their kernels may be using them, and the host may not touch them
    /// before it synchronizes with those GPUs.
    pub fn to_host_of(&self, g: usize) {
        if self.resident.load(Ordering::Acquire) == 0 {
            return;
        }
        let gpus = self.gpus.get().map_or(0, Vec::len);
        let home: Vec<usize> = (0..gpus).filter(|&x| x == g || self.gpu_at(x).is_some_and(|o| o.idle())).collect();
        self.to_host(Some(&home));
    }

    /// [`to_host_all`], or [`to_host_of`] (`only` those GPUs).
    fn to_host(&self, only: Option<&[usize]>) {
        let pages = self.resident.load(Ordering::Acquire);
        if pages == 0 {
            return;
        }
        let mut rs = self.regions();
        let on = |p: &Page| p.on.is_some_and(|(x, _)| only.is_none_or(|gs| gs.contains(&x)));
        let home: Vec<(u64, usize)> = rs
            .iter()
            .flat_map(|(&b, r)| r.pages.iter().enumerate().filter(|(_, p)| on(p)).map(move |(k, _)| (b, k)))
            .collect();
        self.send_all_home(&mut rs, &home);
        for &(b, k) in &home {
            if let Some(p) = rs.get_mut(&b).and_then(|r| r.pages.get_mut(k)) {
                p.moves = 0;
            }
        }
        let copies: Vec<(u64, usize)> = rs
            .iter()
            .flat_map(|(&b, r)| {
                r.pages.iter().enumerate().filter(|(_, p)| !p.copies.is_empty()).map(move |(k, _)| (b, k))
            })
            .collect();
        for (b, k) in copies {
            if let Some(r) = rs.get_mut(&b) {
                self.drop_copies(b, r, k);
            }
        }
        let (n, whence) = (home.len(), only.map_or(String::new(), |gs| format!(" from GPUs {gs:?}")));
        self.event(&|| format!("{n} pages back to the host{whence}"));
    }

    /// Page `k` of region `r` (at `base`) leaves the GPU it is on for the host: unmapped there
    /// first (a warp still running stores nothing the copy would miss: its access faults and
    /// waits for the page to come back), and from other GPUs' mappings over the link; the copy
    /// of its managed bytes is queued in `copies`, for that GPU's migration channel ([`land`]
    /// runs them). The GPU and the page, or None when the page is on no GPU.
    pub(super) fn send_home(
        &self,
        base: u64,
        r: &mut Region,
        k: usize,
        copies: &mut Vec<Job>,
    ) -> Option<(usize, Leaving)> {
        let (g, phys) = r.pages[k].on.take()?;
        let va = base + k as u64 * PAGE;
        if let Some(gpu) = self.gpu_at(g) {
            for c in core::mem::take(&mut r.pages[k].mapped) {
                let _ = self.set_page(&gpu, r, c, va, None);
            }
        }
        self.drop_remote(base, r, k);
        let off = k as u64 * PAGE;
        let (lo, hi) = (off.max(r.span.0), (off + PAGE).min(r.span.1));
        if lo < hi {
            copies.push((Side::Vram(phys + lo - off), Side::Host(r.mem.clone(), lo), hi - lo));
        }
        self.resident(false);
        self.counts.to_host.fetch_add(1, Ordering::Relaxed);
        Some((g, Leaving { base, k, phys }))
    }

    /// Run migration copies on `gpu`'s copy engine (the runtime's migration channel, physical
    /// addresses: one submission per 64, each waited for). Should the channel fail, the same
    /// copies are made through the PRAMIN window, in order, so no page is lost: the VRAM they
    /// read is not reused before they are done.
    pub(super) fn land(&self, gpu: &LogicalGpu<P>, copies: &[Job]) {
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
    pub(super) fn landed_home(&self, rs: &mut BTreeMap<u64, Region>, gpu: &LogicalGpu<P>, leaving: Vec<Leaving>) {
        for l in leaving {
            gpu.vram_pages_free(l.phys, PAGE);
            if let Some(r) = rs.get_mut(&l.base) {
                self.map_accessors(l.base, r, l.k);
            }
        }
    }

    /// Pages `pages` (region, page) home from whichever GPUs have them: each GPU's copies in
    /// one batch.
    pub(super) fn send_all_home(&self, rs: &mut BTreeMap<u64, Region>, pages: &[(u64, usize)]) {
        let mut per: BTreeMap<usize, (Vec<Job>, Vec<Leaving>)> = BTreeMap::new();
        for &(b, k) in pages {
            let Some(r) = rs.get_mut(&b) else { continue };
            let Some((g, _)) = r.pages.get(k).and_then(|p| p.on) else { continue };
            let (copies, leaving) = per.entry(g).or_default();
            if let Some((_, l)) = self.send_home(b, r, k, copies) {
                leaving.push(l);
            }
        }
        for (g, (copies, leaving)) in per {
            if let Some(gpu) = self.gpu_at(g) {
                self.land(&gpu, &copies);
                self.landed_home(rs, &gpu, leaving);
            }
        }
    }

    /// Page `k` of region `r` (at `base`) back on the host now, if it is on a GPU.
    pub(super) fn write_back(&self, base: u64, r: &mut Region, k: usize) {
        let mut copies = Vec::new();
        let Some((g, l)) = self.send_home(base, r, k, &mut copies) else { return };
        if let Some(gpu) = self.gpu_at(g) {
            self.land(&gpu, &copies);
            gpu.vram_pages_free(l.phys, PAGE);
        }
        self.map_accessors(base, r, k);
    }

    /// cuMemPrefetchAsync of paged managed memory `[p, p + n)`: every page moves to GPU `g`
    /// (`to`, mapped in context `ctx` when given) or to the host (`None`), now, in batches.
    pub fn prefetch(&self, p: u64, n: u64, to: Option<(usize, Option<CtxHandle>)>) {
        let whither = to.map_or(String::from("the host"), |(g, _)| format!("GPU {g}"));
        self.event(&|| format!("prefetch {} pages to {whither}", n.div_ceil(PAGE)));
        let mut rs = self.regions();
        let Some((&base, r)) = rs.range(..=p).next_back().filter(|(b, r)| p < *b + r.bytes && !r.pages.is_empty())
        else {
            return;
        };
        let first = ((p - base) / PAGE) as usize;
        let last = ((p + n.max(1) - 1 - base) / PAGE) as usize;
        let last = last.min(r.pages.len() - 1);
        match to {
            None => self.send_all_home(&mut rs, &(first..=last).map(|k| (base, k)).collect::<Vec<_>>()),
            Some((g, ctx)) => {
                let Some(gpu) = self.gpu_at(g) else { return };
                let want: Vec<Want> = (first..=last).map(|k| Want { base, k, ctx, chid: None }).collect();
                self.bring_in(&mut rs, g, &gpu, &want);
            }
        }
    }

    /// Bring pages `want` to GPU `g`, in batches, as NVIDIA's driver serves a fault buffer:
    /// pages on another GPU come home first; each page not here gets VRAM, and while VRAM is
    /// full pages of this GPU not wanted are evicted (lowest address first), all their copies
    /// in one batch landed before their VRAM is reused; then every page's copy in one batch;
    /// then each is mapped in its context, and where advice says. False where a page could
    /// not be brought or mapped. Per channel, the pages moved in and out for it.
    pub(super) fn bring_in(
        &self,
        rs: &mut BTreeMap<u64, Region>,
        g: usize,
        gpu: &LogicalGpu<P>,
        want: &[Want],
    ) -> (bool, Vec<(u32, u64, u64)>) {
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
                self.write_back(w.base, r, w.k);
                r.pages[w.k].moves = r.pages[w.k].moves.saturating_add(1);
                count(w.chid, 0, 1);
            }
            self.drop_copies(w.base, r, w.k);
            self.drop_remote(w.base, r, w.k);
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
                    && let Some((_, l)) = self.send_home(b, r, k, &mut copies)
                {
                    leaving.push(l);
                    self.counts.evictions.fetch_add(1, Ordering::Relaxed);
                }
            }
            self.land(gpu, &copies);
            let mut evicted = leaving.len();
            self.landed_home(rs, gpu, leaving);
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
        self.land(gpu, &copies);
        for (w, p) in need.iter().zip(&vram) {
            if let (Some(p), Some(r)) = (p, rs.get_mut(&w.base)) {
                r.pages[w.k].on = Some((g, *p));
                self.resident(true);
                self.counts.to_gpu.fetch_add(1, Ordering::Relaxed);
                count(w.chid, 1, 0);
                self.map_accessors(w.base, r, w.k);
            }
        }
        // Mapped in the contexts that touched them.
        for w in want {
            let (Some(ctx), Some(r)) = (w.ctx, rs.get_mut(&w.base)) else { continue };
            match r.pages[w.k].on {
                Some((x, phys)) if x == g => {
                    if !r.pages[w.k].mapped.contains(&ctx) {
                        if self.set_page(gpu, r, ctx, w.base + w.k as u64 * PAGE, Some(phys)) {
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
}
