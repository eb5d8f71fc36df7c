//! Named barriers with a thread count (`bar.sync id, count`, `bar.arrive id, count`,
//! `barrier.sync`/`barrier.arrive` with a count): the producer-consumer barriers of a block,
//! sixteen of them. A warp's arrival counts as 32 threads (PTX: a barrier operation acts per
//! warp, as if every thread of the warp were active); the arrival that makes the count
//! completes the barrier's phase and counts as a memory write (the
//! [`crate::mmu::Memory::epoch`]), so the warps waiting for it, found spinning, look again.
//! `bar.sync` is an arrival and then a wait; `bar.arrive` an arrival alone.
use super::{BAR_ID_SHIFT, BAR_NAMED_WAIT, D, Exec, Flow, GridError, NAMED_BARRIERS, Trap, TrapReason, Warp, operand};
use alloc::vec::Vec;

/// A block's named barriers.
#[derive(Clone, Debug, Default)]
pub(crate) struct NamedBars {
    /// Threads arrived in each barrier's current phase, and its phases completed.
    arrived: [u32; NAMED_BARRIERS],
    phase: [u32; NAMED_BARRIERS],
    /// The phase each warp last arrived in, per barrier (warp-major).
    arrivals: Vec<u32>,
    /// The last phase of each barrier racecheck has seen complete.
    seen: [u32; NAMED_BARRIERS],
}

impl NamedBars {
    /// For a block of `warps` warps.
    pub(crate) fn new(warps: usize) -> Self {
        Self { arrivals: alloc::vec![0; warps * NAMED_BARRIERS], ..Self::default() }
    }
}

impl Exec<'_, '_> {
    /// A named barrier's arrival or wait by warp `warpid` (`on`: its active lanes).
    pub(crate) fn named_barrier(
        &mut self,
        w: &mut Warp,
        d: D,
        (pc, on, warpid): (u32, u32, u32),
        bars: &mut NamedBars,
        regs: &[u64],
    ) -> Result<Flow, GridError> {
        let id = (d.m >> BAR_ID_SHIFT) as usize % NAMED_BARRIERS;
        let at = warpid as usize * NAMED_BARRIERS + id;
        let next = pc + 1;
        if on == 0 {
            w.goto(next);
            return Ok(Flow::Next);
        }
        let illegal = GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc });
        if d.m & BAR_NAMED_WAIT == 0 {
            // The count is the same in every thread; a multiple of the warp size.
            let count = operand(&d, 0, on.trailing_zeros() as usize, regs) as u32;
            if count == 0 || !count.is_multiple_of(32) {
                return Err(illegal);
            }
            *bars.arrivals.get_mut(at).ok_or(illegal)? = bars.phase[id];
            bars.arrived[id] += 32;
            if bars.arrived[id] >= count {
                bars.arrived[id] = 0;
                bars.phase[id] = bars.phase[id].wrapping_add(1);
                self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
            }
            w.goto(next);
            return Ok(Flow::Next);
        }
        if bars.arrivals.get(at).is_some_and(|&p| p == bars.phase[id]) {
            return Ok(Flow::Spin); // the phase the warp arrived in is not complete
        }
        // Past the barrier: the block's accesses before it are ordered before those after it
        // (racecheck's interval, once a phase; warps that do not take part are ordered too).
        if super::cluster::seen_complete(&mut bars.seen[id], bars.phase[id])
            && let Some(b) = self.bcheck.as_deref_mut()
        {
            b.interval += 1;
        }
        w.goto(next);
        Ok(Flow::Next)
    }
}
