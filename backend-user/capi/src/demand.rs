//! Host memory reached on demand, the first user of the device's replayable faults: pinned
//! host memory (cuMemAllocHost, cuMemHostAlloc) and managed memory (cuMemAllocManaged)
//! are reachable from every context of every GPU, as CUDA's unified addressing makes them.
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
use std::collections::BTreeMap;

/// Host memory another context may need: its device address range, memory and owner.
struct Region {
    bytes: u64,
    mem: Arc<fifo::SharedMem>,
    owner: CtxHandle,
    /// Contexts it was mapped into on demand.
    mapped: Vec<CtxHandle>,
}

/// The regions by base device address.
static REGIONS: Mutex<BTreeMap<u64, Region>> = Mutex::new(BTreeMap::new());

fn regions() -> MutexGuard<'static, BTreeMap<u64, Region>> {
    REGIONS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Fault records the device's fault buffer holds (more wait in their parked warps).
pub(crate) const FAULT_BUFFER_ENTRIES: u32 = 256;

/// Context `owner` made host memory `mem` reachable at device address `base`.
pub(crate) fn add(owner: CtxHandle, base: u64, mem: Arc<fifo::SharedMem>) {
    let bytes = mem.len() as u64;
    regions().insert(base, Region { bytes, mem, owner, mapped: Vec::new() });
}

/// The memory at `base` is going: unmap it from the contexts it was mapped into (each
/// after its work), and forget it.
pub(crate) fn remove(base: u64) {
    let Some(r) = regions().remove(&base) else { return };
    unmap_all(base, &r.mapped);
}

fn unmap_all(base: u64, ctxs: &[CtxHandle]) {
    for &c in ctxs {
        if let Ok(gpu) = gpu_of(c.0) {
            let _ = gpu.mem_unmap_foreign(c, base);
        }
    }
}

/// Context `h` is going: forget its mappings of other contexts' memory, and take the
/// memory it owns out of the contexts it was mapped into.
pub(crate) fn context_gone(h: CtxHandle) {
    let mut gone = Vec::new();
    {
        let mut rs = regions();
        for r in rs.values_mut() {
            r.mapped.retain(|&c| c != h);
        }
        let owned: Vec<u64> = rs.iter().filter(|(_, r)| r.owner == h).map(|(&b, _)| b).collect();
        for b in owned {
            if let Some(r) = rs.remove(&b) {
                gone.push((b, r.mapped));
            }
        }
    }
    for (b, mapped) in gone {
        unmap_all(b, &mapped);
    }
}

/// The fault service of GPU `gpu`: map the host memory each fault touched into the faulting
/// context. False (cancel: the grids fail with the fault, as without replay) when a fault
/// is outside every region, or its context cannot be found.
pub(crate) fn service(gpu: &UserGpu, faults: &[hw::replay::Entry]) -> bool {
    let mut ok = true;
    for f in faults {
        let Some(ctx) = gpu.ctx_of_channel(f.chid) else {
            ok = false;
            continue;
        };
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
    ok
}
