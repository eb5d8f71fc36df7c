//! The block dispatchers: one per running grid, competing for the SMs' free threads,
//! registers, shared memory and block slots; a block goes to the least loaded SM with room
//! (round robin among equals), one per `dispatch_mcycles`. A thread block cluster's blocks
//! are placed together on the SMs of one GPC.
use super::{
    Block, BlockCost, ClusterMem, DeviceConfig, Free, GridError, GridRun, INSTR_BYTES, OccupancySample, SAMPLES,
    Samples, Slot, Sm, TimingEngine, cluster, init_warps,
};
use alloc::vec::Vec;

/// The SM that gets the next block of cost `c`: the least loaded SM with room (most free
/// thread slots), the first after `last` in round-robin order on ties, so blocks of
/// concurrent grids spread over the whole device; `None` when no SM has room.
/// `free(s)` is SM `s`'s free resources, for `s` below `n`.
pub(crate) fn choose_sm<'a>(n: usize, free: impl Fn(usize) -> &'a Free, c: &BlockCost, last: usize) -> Option<usize> {
    let mut best: Option<usize> = None;
    for s in (1..=n).map(|k| (last + k) % n) {
        if free(s).fits(c) && best.is_none_or(|b| free(s).threads > free(b).threads) {
            best = Some(s);
        }
    }
    best
}

/// The first free entry of a slot table, a new one at its end if none is free.
fn free_slot<T>(v: &mut Vec<Option<T>>) -> usize {
    match v.iter().position(Option::is_none) {
        Some(k) => k,
        None => {
            v.push(None);
            v.len() - 1
        }
    }
}

/// When (in millicycles) a dispatcher that last became free at `dispatch_mc` is free again
/// after placing a block at cycle `t` that takes it `cost_mc`: fractions of a cycle carry
/// over while it keeps pace; one that waited (for room on an SM) starts again from `t`.
pub(crate) fn next_dispatch_mc(dispatch_mc: u64, t: u64, cost_mc: u64) -> u64 {
    let from = if dispatch_mc + 1000 <= t * 1000 { t * 1000 } else { dispatch_mc };
    from.saturating_add(cost_mc)
}

/// The SMs of one GPC that take a cluster of `n` blocks of cost `c` at once (each block on
/// the least loaded SM of the GPC with room, several on one SM if need be), trying GPCs
/// from the one after SM `last`'s; `None` when no GPC has room for the whole cluster.
pub(crate) fn choose_gpc(sms: &[Sm], cfg: &DeviceConfig, c: &BlockCost, n: u32, last: usize) -> Option<Vec<usize>> {
    let gpcs = cfg.board.gpcs.clamp(1, sms.len().max(1) as u32) as usize;
    let first = cluster::gpc(cfg, last) + 1;
    for k in 0..gpcs {
        let gpc = (first + k) % gpcs;
        let members: Vec<usize> = (0..sms.len()).filter(|&s| cluster::gpc(cfg, s) == gpc).collect();
        let mut free: Vec<Free> = members.iter().map(|&s| sms[s].free).collect();
        let mut chosen = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let Some(j) = choose_sm(free.len(), |j| &free[j], c, free.len() - 1) else { break };
            free[j].take(c);
            chosen.push(members[j]);
        }
        if chosen.len() == n as usize {
            return Some(chosen);
        }
    }
    None
}

impl TimingEngine {
    /// Place the next block of grid `gi` on an SM with room (a cluster's blocks all at once
    /// on one GPC); false if there is none.
    pub(crate) fn place(&mut self, gi: usize, cfg: &DeviceConfig, t: u64) -> Result<bool, GridError> {
        let g = self.grids[gi].as_mut().expect("grid");
        let c = g.cost;
        let (_, n) = cluster::shape(&g.r);
        if n == 1 {
            let sms = &self.sms;
            let Some(s) = choose_sm(sms.len(), |s| &sms[s].free, &c, g.last_sm) else { return Ok(false) };
            self.place_block(gi, s, None, cfg, t)?;
            return Ok(true);
        }
        let Some(chosen) = choose_gpc(&self.sms, cfg, &c, n, g.last_sm) else { return Ok(false) };
        let mem = ClusterMem::new(&g.r, g.threads)?;
        let slot = free_slot(&mut g.clusters);
        g.clusters[slot] = Some(mem);
        for (rank, s) in chosen.into_iter().enumerate() {
            self.place_block(gi, s, Some((slot, rank as u32)), cfg, t)?;
        }
        Ok(true)
    }

    /// Place grid `gi`'s next block on SM `s` (which has room), in cluster slot `cluster`
    /// with its rank if it is part of one.
    fn place_block(
        &mut self,
        gi: usize,
        s: usize,
        cluster: Option<(usize, u32)>,
        cfg: &DeviceConfig,
        t: u64,
    ) -> Result<(), GridError> {
        let g = self.grids[gi].as_mut().expect("grid");
        let c = g.cost;
        g.last_sm = s;
        let i = g.first + g.next_block;
        g.next_block += 1;
        let warps = g.threads.div_ceil(32);
        // Fractions of a cycle carry over while the dispatcher keeps pace; one that waited
        // (for room on an SM) starts again from now.
        g.dispatch_mc = next_dispatch_mc(g.dispatch_mc, t, cfg.dispatch_mcycles(warps));
        let ctaid = cluster::dispatch_ctaid(&g.r, i);
        let nwarps = warps as usize;
        let mut warps_v = Vec::new();
        init_warps(&mut warps_v, g.threads, g.r.start / INSTR_BYTES as u32);
        let mut block = Block {
            grid: gi,
            ctaid,
            regs: crate::compute::try_zeroed(nwarps * g.nregs * 32)?,
            // A cluster's blocks keep their shared memory together, in the grid's cluster.
            shared: crate::compute::try_zeroed(if cluster.is_some() { 0 } else { g.r.shared as usize })?,
            cluster,
            csync: crate::compute::cluster::ClusterSync::block(g.threads),
            named: crate::compute::named::NamedBars::new(nwarps),
            local: crate::compute::try_zeroed(g.r.local_size as usize * nwarps * 32)?,
            bar: Default::default(),
            warps: warps_v,
            slots: Vec::with_capacity(nwarps),
            live: nwarps as u32,
            arrived: 0,
            cost: c,
            placed: [0; hw::occupancy::MAX_SUBPARTS],
            uid: self.next_uid,
            check: crate::check::BlockCheck::new(
                hw::check::CheckMode::from(g.r.check_mode),
                g.r.shared as usize,
                nwarps * g.nregs * 32,
            ),
        };
        self.next_uid += 1;
        let sm = &mut self.sms[s];
        let placed = sm.free.take(&c);
        block.placed = placed;
        let bi = free_slot(&mut sm.blocks);
        let mut slots = Vec::with_capacity(nwarps);
        for w in 0..nwarps {
            let slot = Slot {
                block: bi,
                warp: w,
                ready_at: t + 1,
                pending: heapless::Vec::new(),
                at_barrier: false,
                cache: None,
                spin: None,
                replay: false,
            };
            let si = free_slot(&mut sm.slots);
            sm.slots[si] = Some(slot);
            let k = sm.order.len();
            sm.order[si % k].push(si);
            sm.sched[si % k].next_at = 0;
            slots.push(si);
        }
        sm.blocks[bi] = Some(Block { slots, ..block });
        Self::occupancy(sm, s, &mut self.grids, &mut self.samples, t, nwarps as i32);
        sm.wake = sm.wake.min(t + 1);
        Ok(())
    }

    /// Account resident warp-cycles up to `t`, then change the resident count by `delta`.
    pub(crate) fn occupancy(
        sm: &mut Sm,
        s: usize,
        grids: &mut [Option<GridRun>],
        log: &mut Samples,
        t: u64,
        delta: i32,
    ) {
        if t > sm.resident_since && sm.resident_warps > 0 {
            // Charge the resident warps to the grids of the resident blocks.
            for b in sm.blocks.iter().flatten() {
                if let Some(g) = grids.get_mut(b.grid).and_then(|g| g.as_mut()) {
                    g.stats.resident_warp_cycles += t.saturating_sub(sm.resident_since) * b.live as u64;
                }
            }
        }
        sm.resident_since = t;
        sm.resident_warps = (sm.resident_warps as i32 + delta).max(0) as u32;
        if log.on {
            if log.list.len() < SAMPLES {
                log.list.push(OccupancySample { cycle: t, sm: s as u32, warps: sm.resident_warps });
            } else {
                log.dropped += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use hw::occupancy::{Rule, SmLimits, block_cost};

    const VOLTA: SmLimits = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 96 * 1024, rule: Rule::VOLTA };

    fn sm(threads: u32, blocks: u32) -> Free {
        Free { threads, blocks, ..Free::of(&VOLTA) }
    }

    #[test]
    fn blocks_go_to_the_least_loaded_sm_round_robin_on_ties() {
        let cost = block_cost(&VOLTA, 256, 32, 0).unwrap();
        let free = [sm(2048, 32); 4];
        // All equal: the first after the last one used.
        assert_eq!(choose_sm(free.len(), |s| &free[s], &cost, 0), Some(1));
        assert_eq!(choose_sm(free.len(), |s| &free[s], &cost, 3), Some(0));
        // The SM with the most free threads wins, wherever it is in the order.
        let free = [sm(2048, 32), sm(1024, 32), sm(1792, 32), sm(2048, 32)];
        assert_eq!(choose_sm(free.len(), |s| &free[s], &cost, 0), Some(3));
        assert_eq!(choose_sm(free.len(), |s| &free[s], &cost, 3), Some(0));
    }

    #[test]
    fn a_block_needs_room_in_every_resource() {
        // 8 warps of 32 registers (1024 per warp) and 16 KiB.
        let cost = block_cost(&VOLTA, 256, 32, 16 * 1024).unwrap();
        let full = [
            Free { threads: 128, ..sm(0, 32) },                   // threads
            Free { regs: [2047, 2047, 4096, 0], ..sm(2048, 32) }, // registers: 7 warps
            Free { shared: 8 * 1024, ..sm(2048, 32) },            // shared memory
            sm(2048, 0),                                          // block slots
        ];
        assert_eq!(choose_sm(full.len(), |s| &full[s], &cost, 0), None);
        let mut some = full;
        some[2] = sm(256, 1);
        assert_eq!(choose_sm(some.len(), |s| &some[s], &cost, 0), Some(2));
        assert_eq!(choose_sm(0, |_| unreachable!(), &cost, 0), None);
    }

    #[test]
    fn dispatch_pacing_carries_fractions_and_restarts_after_a_wait() {
        // Keeping pace: 1.5 cycles per block accumulate exactly.
        let mut mc = next_dispatch_mc(0, 0, 1500);
        assert_eq!(mc, 1500);
        mc = next_dispatch_mc(mc, 1, 1500);
        assert_eq!(mc, 3000);
        // A dispatcher that waited until cycle 100 starts again from there.
        assert_eq!(next_dispatch_mc(mc, 100, 1500), 101_500);
        // Within the same cycle it is not reset.
        assert_eq!(next_dispatch_mc(100_500, 100, 1500), 102_000);
    }
}
