//! Pages of paged managed memory and where they are mapped: cuMemAdvise, PTEs pointed with
//! no context's lock, mappings in place (the host page over PCIe, a peer's VRAM over the
//! link), read-only copies of read-mostly pages.

use super::{Adv, NO_ADV, PAGE, Region, THRASH, Uvm};
use crate::api::CtxHandle;
use crate::api::migrate::Side;
use crate::logical::LogicalGpu;
use crate::platform::Platform;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use hw::mmu::Pte;
use hw::regs::Target;

impl<P: Platform> Uvm<P> {
    /// Point page `va` of region `r` in context `c` of `gpu` at VRAM `phys` (or unmap it):
    /// through the PTE slots found for it, with no context's lock.
    pub(super) fn set_page(&self, gpu: &LogicalGpu<P>, r: &Region, c: CtxHandle, va: u64, phys: Option<u64>) -> bool {
        self.set_pte(gpu, r, c, va, phys.map(|p| Pte::map(p, Target::Vram)))
    }

    /// [`Uvm::set_page`] to any entry: system memory, a peer's VRAM, read-only.
    pub(super) fn set_pte(&self, gpu: &LogicalGpu<P>, r: &Region, c: CtxHandle, va: u64, pte: Option<Pte>) -> bool {
        if let Some((_, s)) = r.slots.iter().find(|(x, _)| *x == c) {
            return gpu.pte_set_to(s, va, pte).is_ok();
        }
        // Not found (a context the service did not see made): through the context
        // (writable VRAM or nothing), unless its lock is held by a launch waiting for ring
        // space.
        let phys = match pte {
            None => None,
            Some(p) if p.target() == Target::Vram && !p.read_only() => Some(p.phys()),
            Some(_) => return false,
        };
        !gpu.ctx_waits_in_submit(c) && gpu.mem_pages_set(c, va, PAGE, phys).is_ok()
    }

    /// cuMemAdvise on managed memory `[p, p + n)`: `f` changes each page's advice. A paged
    /// page whose advice changed loses its read-only copies and direct mappings.
    pub fn advise(&self, p: u64, n: u64, f: impl Fn(&mut Adv)) {
        let mut rs = self.regions();
        let Some((&base, r)) = super::managed_at(&mut rs, p) else { return };
        let pages = r.bytes.div_ceil(PAGE) as usize;
        if r.advice.is_empty() {
            r.advice = vec![NO_ADV; pages];
        }
        let (first, last) = super::page_span(base, p, n, pages);
        for k in first..=last {
            let before = r.advice[k];
            f(&mut r.advice[k]);
            if r.advice[k] != before && !r.pages.is_empty() {
                // The next access faults again and finds the new advice; the GPUs it names
                // as accessing the page have it mapped where it lives.
                self.drop_copies(base, r, k);
                self.drop_remote(base, r, k);
                self.map_accessors(base, r, k);
            }
        }
    }

    /// Page `k` of region `r` (at `base`): its read-only copies go (unmapped, their VRAM
    /// freed).
    pub(super) fn drop_copies(&self, base: u64, r: &mut Region, k: usize) {
        let va = base + k as u64 * PAGE;
        for (g, phys, ctxs) in core::mem::take(&mut r.pages[k].copies) {
            if let Some(gpu) = self.gpu_at(g) {
                for c in ctxs {
                    let _ = self.set_page(&gpu, r, c, va, None);
                }
                gpu.vram_pages_free(phys, PAGE);
            }
            self.resident(false);
        }
    }

    /// Page `k` of region `r`: the direct mappings of its host page go (it is about to move).
    pub(super) fn drop_remote(&self, base: u64, r: &mut Region, k: usize) {
        let va = base + k as u64 * PAGE;
        for (g, c) in core::mem::take(&mut r.pages[k].remote) {
            if let Some(gpu) = self.gpu_at(g) {
                let _ = self.set_page(&gpu, r, c, va, None);
            }
        }
    }

    /// Map page `k` of region `r` (at `base`) where it lives into context `ctx` of GPU `g`,
    /// moving nothing: the host page (a system-memory PTE: the GPU reads and writes it over
    /// PCIe), or another GPU's VRAM through the peer table (entry `x` names GPU `x`, over
    /// the link). Recorded in the page's `remote` mappings. False where it cannot be.
    fn map_in_place(&self, base: u64, r: &mut Region, k: usize, g: usize, gpu: &LogicalGpu<P>, ctx: CtxHandle) -> bool {
        let pte = match r.pages[k].on {
            None => match gpu.host_bus(&r.mem) {
                Ok(bus) => Pte::map(bus + k as u64 * PAGE, Target::SysCoherent),
                Err(_) => return false,
            },
            Some((x, phys)) if self.peer_entry(gpu, g, x) => Pte::map_peer(phys, x as u8),
            Some(_) => return false,
        };
        let ok = self.set_pte(gpu, r, ctx, base + k as u64 * PAGE, Some(pte));
        if ok && !r.pages[k].remote.contains(&(g, ctx)) {
            r.pages[k].remote.push((g, ctx));
        }
        ok
    }

    /// Page `k` of region `r` has settled where it lives: every context of each GPU the
    /// advice says accesses it maps it there (CUDA's accessed-by: always mapped, so those
    /// GPUs take no fault and move nothing), except the GPU that has it (its contexts map it
    /// at their first touch) and GPUs that cannot reach it there.
    pub(super) fn map_accessors(&self, base: u64, r: &mut Region, k: usize) {
        let by = r.advice.get(k).map_or(0, |a| a.accessed_by) >> 1;
        if by == 0 {
            return;
        }
        let on = r.pages[k].on.map(|(x, _)| x);
        let ctxs: Vec<(usize, CtxHandle)> = r
            .slots
            .iter()
            .map(|&(c, _)| (crate::api::ordinal_of(c.0) as usize, c))
            .filter(|&(e, _)| by & (1 << e) != 0 && Some(e) != on)
            .collect();
        if !ctxs.is_empty() && on.is_none() {
            // The host page itself: read-only copies would be stale beside it.
            self.drop_copies(base, r, k);
        }
        for (e, c) in ctxs {
            if let Some(gpu) = self.gpu_at(e) {
                let _ = self.map_in_place(base, r, k, e, &gpu, c);
            }
        }
    }

    /// What the advice of page `k` makes a fault by context `ctx` of GPU `g` do instead of
    /// a migration: map the page where it lives, on the host (preferred location the host,
    /// or accessed by `g`) or on another GPU `g` reaches peer to peer (that GPU its
    /// preferred location, or accessed by `g`), or give `g` a read-only copy of a host page
    /// (read-mostly, a read). None: migrate as usual (a page not at its preferred location
    /// goes to the GPU that touches it, as CUDA documents). True when the page is now
    /// mapped.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn advised(
        &self,
        base: u64,
        r: &mut Region,
        k: usize,
        g: usize,
        gpu: &LogicalGpu<P>,
        ctx: CtxHandle,
        write: bool,
    ) -> Option<bool> {
        let a = r.advice.get(k).copied().unwrap_or(NO_ADV);
        let accessor = a.accessed_by & (1 << (g + 1)) != 0;
        match r.pages[k].on {
            Some((x, _)) if x == g => return None,
            Some((x, _)) => {
                let stays = a.preferred == x as i32 || accessor || r.pages[k].moves >= THRASH;
                return (stays && self.reaches(g, x)).then(|| self.map_in_place(base, r, k, g, gpu, ctx));
            }
            None if a == NO_ADV => return None,
            None => {}
        }
        if a.preferred == -1 || accessor {
            self.drop_copies(base, r, k);
            return Some(self.map_in_place(base, r, k, g, gpu, ctx));
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
                    self.resident(true);
                    self.counts.to_gpu.fetch_add(1, Ordering::Relaxed);
                    r.pages[k].copies.push((g, phys, Vec::new()));
                    r.pages[k].copies.len() - 1
                }
            };
            let phys = r.pages[k].copies[copy].1;
            let ro = Pte::map(phys, Target::Vram).with_read_only(true);
            let ok = self.set_pte(gpu, r, ctx, base + k as u64 * PAGE, Some(ro));
            if ok && !r.pages[k].copies[copy].2.contains(&ctx) {
                r.pages[k].copies[copy].2.push(ctx);
            }
            return Some(ok);
        }
        // A write to a read-mostly page (or advice that does not apply): the copies and
        // direct mappings go, and the page migrates.
        self.drop_copies(base, r, k);
        self.drop_remote(base, r, k);
        None
    }
}
