//! The progress watch: a host tool's view of the work in flight, taken every so many
//! simulated cycles while the device runs (the timing model calls it between its cycles,
//! so a kernel of any length is seen mid-way). Watching reads the device's state and
//! changes nothing: results and cycles are the same with a watch and without.

use alloc::boxed::Box;

/// What a watch sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The device's cycle.
    pub cycle: u64,
    /// Blocks finished of the grids in flight.
    pub blocks_done: u64,
    /// Blocks of the grids in flight.
    pub blocks: u64,
    /// Warp instructions issued since power-on, the running grids' so far included.
    pub warp_instructions: u64,
}

/// A function called with a [`Snapshot`] at most once every `every` cycles of work.
pub struct Watch {
    every: u64,
    next: u64,
    f: Box<dyn FnMut(&Snapshot) + Send>,
}

impl Watch {
    /// Call `f` every `every` cycles (at least 1) while the device works.
    pub fn new(every: u64, f: impl FnMut(&Snapshot) + Send + 'static) -> Self {
        Self { every: every.max(1), next: 0, f: Box::new(f) }
    }

    /// Whether a snapshot at cycle `t` is due.
    pub(crate) fn due(&self, t: u64) -> bool {
        t >= self.next
    }

    /// Show `s` and wait `every` cycles for the next.
    pub(crate) fn fire(&mut self, s: &Snapshot) {
        self.next = s.cycle.saturating_add(self.every);
        (self.f)(s);
    }
}

impl core::fmt::Debug for Watch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Watch").field("every", &self.every).field("next", &self.next).finish()
    }
}
