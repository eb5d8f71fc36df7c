//! The gate on memory another GPU of the machine reaches: peers' VRAM (the peer port) and
//! host memory registered with more than one GPU (its writes: reads pass, see
//! [`Gate::host`]). The machine (fake-pci's `machine`, above
//! memory, which never names it) runs a slice either open, its GPUs one after another in
//! ordinal order with their peers' VRAM lent, or closed, every GPU alone (on its own host
//! thread, if the platform has them). In a closed slice such an access cannot be made: it
//! waits for the next open slice, which the machine runs because of it. The access fails
//! here with a bus error counted in [`Gate::waits`]; the engine that made it sees the count
//! move and leaves the operation as if not made, to be made again from [`Gate::reopen_at`]
//! (a warp's instruction, a copy's completion, a channel's method, a semaphore acquire).
//!
//! The link's latency is at least a slice, so an access that waits for the next slice's
//! start is one the link could not have delivered sooner; where it lands in simulated time
//! depends only on the slices, never on the host's threads.

use core::cell::Cell;

/// An access the closed gate held back (counted in [`Gate::waits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed;

/// A GPU's gate for one slice (set by the machine before the GPU runs it).
#[derive(Default)]
pub struct Gate {
    /// Closed until this cycle (None: open): the first cycle of the next slice.
    pub reopen_at: Option<u64>,
    /// The identities of the host regions other GPUs of the machine also reach
    /// (`SysMem::region_ids`).
    pub shared: alloc::vec::Vec<usize>,
    /// The routing ids of the machine's GPUs this GPU's peer table names.
    pub peers: alloc::vec::Vec<u16>,
    /// Accesses that found the gate closed, so far.
    pub waits: Cell<u64>,
    /// Whether an access reached memory another GPU reaches in this slice.
    pub crossed: Cell<bool>,
    /// [`Gate::waits`] when [`Gate::take_used`] last looked.
    seen: u64,
}

impl Gate {
    /// An access to shared memory (a host region's write, or a peer): Ok when the gate is
    /// open (noted as crossing), Err when closed (noted as a wait).
    fn pass(&self, shared: bool) -> Result<(), Closed> {
        if !shared {
            return Ok(());
        }
        if self.reopen_at.is_some() {
            self.waits.set(self.waits.get() + 1);
            return Err(Closed);
        }
        self.crossed.set(true);
        Ok(())
    }

    /// An access to host region `id` (None: no region there), a write or a read. Only
    /// writes wait (and cross): in a closed slice no GPU writes a shared region, so reading
    /// one then sees what every GPU sees, whichever runs first.
    pub fn host(&self, id: Option<usize>, write: bool) -> Result<(), Closed> {
        if !write || self.shared.is_empty() {
            return Ok(());
        }
        self.pass(id.is_some_and(|id| self.shared.contains(&id)))
    }

    /// An access to peer `rid` (None: no valid entry): it waits in a closed slice (the
    /// peer writes its VRAM meanwhile), and keeps the next slice open (a stretch of peer
    /// traffic runs open throughout).
    pub fn peer(&self, rid: Option<u16>) -> Result<(), Closed> {
        self.pass(rid.is_some_and(|r| self.peers.contains(&r)))
    }

    /// A mark to compare with: whether an access waited at the gate since is
    /// [`Gate::waited_since`] (what an engine asks when an operation failed: it waits for
    /// the next slice rather than fault).
    pub fn mark(&self) -> u64 {
        self.waits.get()
    }

    /// Whether an access waited at the gate since `mark` ([`Gate::mark`]).
    pub fn waited_since(&self, mark: u64) -> bool {
        self.waits.get() != mark
    }

    /// Whether the gate is closed now.
    pub fn closed(&self) -> bool {
        self.reopen_at.is_some()
    }

    /// Whether an access crossed the gate or waited at it since the last call: the machine
    /// opens the next slice then.
    pub fn take_used(&mut self) -> bool {
        let used = self.crossed.get() || self.waits.get() != self.seen;
        self.crossed.set(false);
        self.seen = self.waits.get();
        used
    }

    /// Run `f` (a look that may come back later: a semaphore acquire's poll) without
    /// counting its accesses as crossings or waits.
    pub fn quietly<T>(&self, f: impl FnOnce() -> T) -> T {
        let (w, c) = (self.waits.get(), self.crossed.get());
        let r = f();
        self.waits.set(w);
        self.crossed.set(c);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_gate_counts_waits_and_passes_private_memory() {
        let mut g = Gate { shared: alloc::vec![7], peers: alloc::vec![0x100], ..Gate::default() };
        assert_eq!((g.host(Some(3), true), g.host(None, true), g.crossed.get()), (Ok(()), Ok(()), false), "private");
        assert_eq!((g.host(Some(7), false), g.crossed.get()), (Ok(()), false), "a read of a shared region");
        assert_eq!((g.host(Some(7), true), g.crossed.get()), (Ok(()), true), "a write to a shared region");
        g.crossed.set(false);
        assert_eq!((g.peer(Some(0x100)), g.crossed.get()), (Ok(()), true), "a peer access");
        g.reopen_at = Some(100);
        let closed = (g.host(Some(7), true), g.peer(Some(0x100)), g.peer(Some(0x200)), g.host(Some(7), false));
        assert_eq!(closed, (Err(Closed), Err(Closed), Ok(()), Ok(())), "writes to shared regions and peers wait");
        assert_eq!((g.waits.get(), g.host(Some(3), true)), (2, Ok(())));
        assert!(g.take_used() && !g.take_used(), "used once, then not");
        assert_eq!(g.quietly(|| g.peer(Some(0x100))), Err(Closed));
        assert!(!g.take_used(), "a quiet look is not a use");
    }
}
