//! The fault service: what a GPU's replayable faults need — host memory mapped into the
//! faulting context, paged managed memory mapped where its advice says or migrated to the
//! GPU — and what each fault moved, for the faulting kernel's statistics.

use super::moves::Want;
use super::{Moved, PAGE, Uvm};
use crate::logical::LogicalGpu;
use crate::platform::Platform;
use alloc::format;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

impl<P: Platform> Uvm<P> {
    /// Record for the statistics of the kernel on channel `chid` of `gpu` (still running) the
    /// pages a fault service moved for it.
    fn moved(&self, gpu: &LogicalGpu<P>, chid: u32, to_gpu: u64, to_host: u64) {
        let m = Moved { gpu: gpu.ordinal(), chid, ns: gpu.dev.ptimer_ns(), to_gpu, to_host };
        self.moved.lock().push(m);
    }

    /// The fault service of GPU `gpu`: map the host memory each fault touched into the faulting
    /// context. False (cancel: the grids fail with the fault, as without replay) when a fault
    /// is outside every region, or its context cannot be found.
    pub fn service(&self, gpu: &LogicalGpu<P>, faults: &[hw::replay::Entry]) -> bool {
        let mut ok = true;
        let g = gpu.ordinal() as usize;
        let (in0, ev0) = (self.counts.to_gpu.load(Ordering::Relaxed), self.counts.evictions.load(Ordering::Relaxed));
        // Pages to migrate here, brought in one batch after the records are read.
        let mut want = Vec::new();
        for f in faults {
            let Some(ctx) = gpu.ctx_of_channel(f.chid) else {
                ok = false;
                continue;
            };
            // Paged managed memory: the advice acts, or the page migrates here.
            {
                let mut rs = self.regions();
                let paged = rs.range(..=f.va).next_back().filter(|(b, r)| f.va < *b + r.bytes && !r.pages.is_empty());
                if let Some((&base, _)) = paged {
                    let k = ((f.va - base) / PAGE) as usize;
                    let before =
                        (self.counts.to_gpu.load(Ordering::Relaxed), self.counts.to_host.load(Ordering::Relaxed));
                    match rs.get_mut(&base).and_then(|r| self.advised(base, r, k, g, gpu, ctx, f.write)) {
                        Some(done) => ok &= done,
                        None => want.push(Want { base, k, ctx: Some(ctx), chid: Some(f.chid) }),
                    }
                    let after =
                        (self.counts.to_gpu.load(Ordering::Relaxed), self.counts.to_host.load(Ordering::Relaxed));
                    if after != before {
                        self.moved(gpu, f.chid, after.0 - before.0, after.1 - before.1);
                    }
                    continue;
                }
            }
            let found = {
                let rs = self.regions();
                rs.range(..=f.va).next_back().filter(|(b, r)| f.va < *b + r.bytes && !r.tracked).map(|(&b, r)| {
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
                        if let Some(r) = self.regions().get_mut(&base) {
                            r.mapped.push(ctx);
                        }
                    }
                    Err(_) => ok = false,
                },
                None => ok = false,
            }
        }
        if !want.is_empty() {
            let (done, per_channel) = self.bring_in(&mut self.regions(), g, gpu, &want);
            ok &= done;
            for (chid, i, o) in per_channel {
                self.moved(gpu, chid, i, o);
            }
        }
        self.event(&|| {
            let moved = self.counts.to_gpu.load(Ordering::Relaxed) - in0;
            let evicted = self.counts.evictions.load(Ordering::Relaxed) - ev0;
            let how = if ok { "replayed" } else { "cancelled" };
            format!("GPU {g}: {} faults, {moved} pages in, {evicted} evicted, {how}", faults.len())
        });
        ok
    }
}
