//! A machine: the GPUs of a system and the interconnect between them, stepped together on
//! one clock. The machine is what the system's buses and links are to the GPUs: whichever
//! GPU the host waits on, every GPU runs in slices of at most the shortest link latency
//! (`slice`), each slice every GPU in ordinal order to the same time, so all clocks agree
//! between slices and every GPU's evolution is the same whichever GPU is waited on: a
//! deterministic function of the program. GPUs with different clock rates agree in time
//! ([`Instant`]).
//!
//! The links: while a GPU runs its slice, the VRAM of each peer its peer table names
//! (NV_PFB_PEER) and the topology lets it reach (`SystemConfig::p2p`) is lent to its peer
//! port with the link's figures (bandwidth, latency: `peer`), and given back after; a peer
//! access that finds no lent VRAM faults. A slice is no longer than a link's latency, so
//! nothing a GPU does within a slice could reach another GPU before the slice ends.
//!
//! GPUs that share nothing (no peer table entry between them, no host memory registered
//! with both) cannot see each other within a slice: [`Machine::groups`] finds the groups
//! that do, which a platform may run on different host threads ([`Machine::run_one`] per
//! GPU, [`Machine::settle`] at the slice where the waited-on GPU went idle), each group's
//! GPUs in ordinal order, with exactly the cycles and results of [`Machine::run`].
//!
//! Open and closed slices: a slice runs open, as above, only when the one before it used
//! what GPUs share (an access crossed to a peer's VRAM, or waited to reach it or to write
//! host memory another GPU reaches), or a GPU of the machine runs in functional mode. Otherwise it
//! runs closed: every GPU alone, no VRAM lent, each GPU's gate (`crate::gate`) closed on
//! what it shares, so that the GPUs of one group may run on different host threads too.
//! An access behind a closed gate waits for the next slice, which then runs open: a
//! peer's or a shared semaphore's first access after a quiet stretch lands at the next
//! slice's start (a link is at least a slice long), and a stretch of such accesses runs
//! open throughout. Which slices run open is decided by the simulation alone, so cycles
//! and results are the same on any number of host threads.
//!
//! The machine holds no GPU: a platform keeps them where its MMIO reaches them and gives
//! the machine access through [`Gpus`] (locks of its own, or [`spin::Mutex`]es).

use crate::config::DeviceConfig;
use crate::peer::Link;
use crate::system::SystemConfig;
use crate::{FakeGpu, RunState};
use alloc::vec;
use alloc::vec::Vec;
use core::ops::DerefMut;
use core::sync::atomic::{AtomicBool, Ordering};

/// The longest slice, in cycles (the shortest link latency is shorter on every preset).
pub const MAX_SLICE: u64 = 4096;
/// The shortest.
pub const MIN_SLICE: u64 = 256;

/// Access to the GPUs of a machine, by ordinal: each behind a lock the platform keeps.
pub trait Gpus {
    /// A locked GPU.
    type Guard<'a>: DerefMut<Target = FakeGpu>
    where
        Self: 'a;
    /// How many GPUs there are.
    fn count(&self) -> usize;
    /// GPU `i`, locked (the machine locks a GPU, then the peers it reaches, in that order).
    fn lock(&self, i: usize) -> Self::Guard<'_>;
}

impl Gpus for [spin::Mutex<FakeGpu>] {
    type Guard<'a> = spin::MutexGuard<'a, FakeGpu>;

    fn count(&self) -> usize {
        self.len()
    }

    fn lock(&self, i: usize) -> Self::Guard<'_> {
        self[i].lock()
    }
}

/// A GPU's clock reading: its cycle and its clock rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instant {
    /// The cycle.
    pub cycles: u64,
    /// The clock rate, MHz.
    pub mhz: u32,
}

impl Instant {
    /// What `g`'s clock reads now.
    pub fn of(g: &FakeGpu) -> Self {
        Instant { cycles: g.cycles(), mhz: g.config().board.clock_mhz.max(1) }
    }

    /// The same time on a GPU clocked as `cfg` says: the same cycle at the same rate (all
    /// clocks of a homogeneous system agree exactly), else the last cycle not after it.
    pub fn on(self, cfg: &DeviceConfig) -> u64 {
        let mhz = cfg.board.clock_mhz.max(1);
        if mhz == self.mhz {
            self.cycles
        } else {
            (u128::from(self.cycles) * u128::from(mhz) / u128::from(self.mhz)) as u64
        }
    }
}

/// The interconnect of a system and how its GPUs are stepped (see the module
/// documentation).
#[derive(Debug)]
pub struct Machine {
    /// Routing id of each GPU, by ordinal.
    rids: Vec<u16>,
    /// Link from GPU a to GPU b (None: no peer path).
    links: Vec<Vec<Option<Link>>>,
    /// Cycles of one slice (GPU 0's clock).
    slice: u64,
    /// Whether the next slice runs open (a GPU used what GPUs share in the last one).
    open: AtomicBool,
}

/// What one run of the machine needs to know of its GPUs, looked at once (peer tables and
/// DMA registrations do not change while it runs: the platform holds the system's lock).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The groups of GPUs that share something ([`Machine::groups`]).
    pub groups: Vec<Vec<usize>>,
    /// The host regions more than one GPU reaches.
    pub shared: Vec<usize>,
    /// Whether a GPU runs in functional mode (its slices are all open).
    pub functional: bool,
}

impl Machine {
    /// The machine `system` describes: its GPUs' routing ids, the link between each pair
    /// the topology connects (bandwidth, and latency in the reaching GPU's cycles), and the
    /// slice: the shortest link latency in GPU 0's cycles, within
    /// [`MIN_SLICE`]..=[`MAX_SLICE`].
    pub fn new(system: &SystemConfig) -> Self {
        let n = system.len();
        let cycles = |i: usize, ns: u64| (u128::from(ns) * u128::from(system.gpus[i].board.clock_mhz) / 1000) as u64;
        let links: Vec<Vec<Option<Link>>> = (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| {
                        system.p2p(a, b).then(|| Link {
                            mbps: system.peer_mbps(a, b),
                            latency_cycles: cycles(a, system.peer_latency_ns(a, b)),
                        })
                    })
                    .collect()
            })
            .collect();
        let pairs = (0..n).flat_map(|a| (0..n).filter(move |&b| a != b).map(move |b| (a, b)));
        let slice = pairs
            .map(|(a, b)| cycles(0, system.peer_latency_ns(a, b)))
            .min()
            .unwrap_or(MAX_SLICE)
            .clamp(MIN_SLICE, MAX_SLICE);
        Self { rids: (0..n).map(|i| system.routing_id(i)).collect(), links, slice, open: AtomicBool::new(true) }
    }

    /// Look at the GPUs once for a run (see [`Plan`]).
    pub fn plan<G: Gpus + ?Sized>(&self, gpus: &G) -> Plan {
        let mut seen: Vec<usize> = Vec::new();
        let mut shared: Vec<usize> = Vec::new();
        let mut functional = false;
        for i in 0..gpus.count() {
            let g = gpus.lock(i);
            functional |= g.config().mode == crate::config::Mode::Functional;
            for id in g.dma_region_ids() {
                if seen.contains(&id) {
                    if !shared.contains(&id) {
                        shared.push(id);
                    }
                } else {
                    seen.push(id);
                }
            }
        }
        Plan { groups: self.groups(gpus), shared, functional }
    }

    /// Whether the next slice runs open (and from then on, closed unless a GPU uses what
    /// GPUs share in it: [`Machine::run_one`] says so).
    pub fn begin_slice(&self, plan: &Plan) -> bool {
        self.open.swap(false, Ordering::AcqRel) || plan.functional
    }

    /// Cycles of one slice on GPU 0's clock.
    pub fn slice(&self) -> u64 {
        self.slice
    }

    /// The link from GPU `a` to GPU `b`, if the topology has one.
    pub fn link(&self, a: usize, b: usize) -> Option<Link> {
        self.links.get(a).and_then(|l| l.get(b)).copied().flatten()
    }

    /// GPU `new` joins the machine, whose GPU 0 is `first`: its clock starts at the
    /// machine's time.
    pub fn join(first: &FakeGpu, new: &mut FakeGpu) {
        let to = Instant::of(first).on(new.config());
        let now = new.cycles();
        new.step(to.saturating_sub(now));
    }

    /// The groups of GPUs that share something (a peer table entry naming a GPU of the
    /// machine, host memory registered with both), each in ordinal order, ordered by their
    /// first.
    pub fn groups<G: Gpus + ?Sized>(&self, gpus: &G) -> Vec<Vec<usize>> {
        fn root(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        fn union(p: &mut [usize], a: usize, b: usize) {
            let (ra, rb) = (root(p, a), root(p, b));
            p[ra.max(rb)] = ra.min(rb);
        }
        let n = gpus.count();
        let mut parent: Vec<usize> = (0..n).collect();
        let mut owner: Vec<(usize, usize)> = Vec::new();
        for i in 0..n {
            let g = gpus.lock(i);
            for rid in g.peer_ids() {
                if let Some(j) = self.rids.iter().position(|&r| r == rid).filter(|&j| j < n && j != i) {
                    union(&mut parent, i, j);
                }
            }
            for id in g.dma_region_ids() {
                match owner.iter().find(|(r, _)| *r == id) {
                    Some(&(_, j)) => union(&mut parent, i, j),
                    None => owner.push((id, i)),
                }
            }
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for i in 0..n {
            let r = root(&mut parent, i);
            match groups.iter_mut().find(|g| g[0] == r) {
                Some(g) => g.push(i),
                None => groups.push(vec![i]),
            }
        }
        groups
    }

    /// Run `f` on GPU `i` (locked) with the peers its table names that the machine
    /// connects to it: their (routing id, link), and, when `lend`, their VRAM lent to it
    /// for the call and given back after.
    fn with_peers<G: Gpus + ?Sized, T>(
        &self,
        gpus: &G,
        i: usize,
        lend: bool,
        f: impl FnOnce(&mut FakeGpu, Vec<(u16, Link)>) -> T,
    ) -> T {
        let mut g = gpus.lock(i);
        let mut lenders = Vec::new();
        let mut peers = Vec::new();
        for rid in g.peer_ids() {
            let Some(j) = self.rids.iter().position(|&r| r == rid).filter(|&j| j != i && j < gpus.count()) else {
                continue;
            };
            let Some(link) = self.link(i, j) else { continue };
            peers.push((rid, link));
            if lend {
                let mut lender = gpus.lock(j);
                g.lend_peer(rid, lender.take_vram(), link);
                lenders.push((rid, lender));
            }
        }
        let r = f(&mut g, peers);
        for (rid, vram) in g.return_peers() {
            if let Some((_, lender)) = lenders.iter_mut().find(|(r, _)| *r == rid) {
                lender.put_vram(vram);
            }
        }
        r
    }

    /// Run GPU `i` to time `to` in an open slice (`open`: with the VRAM of the peers it
    /// reaches lent to it) or a closed one (its gate closed on what it shares: peers and
    /// `plan.shared`); an idle GPU's clock goes on to `to` all the same. A GPU that waited
    /// at its gate is busy (its access waits for the next slice).
    pub fn run_one<G: Gpus + ?Sized>(&self, gpus: &G, i: usize, to: Instant, open: bool, plan: &Plan) -> RunState {
        self.with_peers(gpus, i, open, |g, peers| {
            let target = to.on(g.config());
            g.mem.gate.peers = peers.iter().map(|&(rid, _)| rid).collect();
            g.mem.gate.shared.clone_from(&plan.shared);
            g.mem.gate.reopen_at = (!open).then_some(target + 1);
            g.mem.peers.links = peers;
            let mark = g.mem.gate.mark();
            let now = g.cycles();
            let mut state = g.run(target.saturating_sub(now));
            let now = g.cycles();
            if now < target {
                g.step(target - now);
            }
            // A GPU that waited at its gate has work for the next slice.
            if g.mem.gate.waited_since(mark) {
                state = RunState::Busy;
            }
            g.mem.gate.reopen_at = None;
            if g.mem.gate.take_used() {
                self.open.store(true, Ordering::Release);
            }
            state
        })
    }

    /// The state of the machine at the end of the slice in which the waited-on GPU went
    /// idle (`idle[i]`: GPU `i` was idle when it ran): idle only if every GPU is and none
    /// would go on. A channel may wait for another GPU's semaphore (a logical GPU's
    /// launch), which that GPU's work still releases; and a GPU blocked on one was idle
    /// when it ran, before a GPU after it in the slice released it: every GPU's blocked
    /// acquires look again (their peers' VRAM lent), a look that changes nothing, so the
    /// machine's evolution is the same whether the waited-on GPU went idle or not.
    pub fn settle<G: Gpus + ?Sized>(&self, gpus: &G, idle: &[AtomicBool]) -> RunState {
        if !idle.iter().all(|i| i.load(Ordering::Acquire)) {
            return RunState::Busy;
        }
        let goes_on = |i| self.with_peers(gpus, i, true, |g, _| g.acquire_would_go_on());
        if (0..gpus.count()).any(goes_on) { RunState::Busy } else { RunState::Idle }
    }

    /// The ends of the slices from `start` (GPU `me`'s cycle) for `quantum` of its cycles,
    /// slices being `slice` of its cycles.
    pub fn slices(start: u64, quantum: u64, slice: u64) -> impl Iterator<Item = u64> {
        let end = start.saturating_add(quantum);
        (start..end).step_by(slice.max(1) as usize).map(move |c| c.saturating_add(slice).min(end))
    }

    /// One slice's length in GPU `me`'s cycles.
    pub fn slice_of<G: Gpus + ?Sized>(&self, gpus: &G, me: usize) -> u64 {
        let first = Instant { cycles: self.slice, mhz: gpus.lock(0).config().board.clock_mhz.max(1) };
        first.on(gpus.lock(me).config()).max(1)
    }

    /// Pass `cycles` of GPU `me`'s clock on the whole machine, busy or idle: every GPU to
    /// that time, slice by slice in ordinal order (time the host takes that the model
    /// charges to the device clock: a host copy through staging buffers).
    pub fn pass<G: Gpus + ?Sized>(&self, gpus: &G, me: usize, cycles: u64) {
        let start = Instant::of(&gpus.lock(me));
        let slice = self.slice_of(gpus, me);
        let plan = self.plan(gpus);
        for c in Self::slices(start.cycles, cycles, slice) {
            let open = self.begin_slice(&plan);
            for i in 0..gpus.count() {
                self.run_one(gpus, i, Instant { cycles: c, mhz: start.mhz }, open, &plan);
            }
        }
    }

    /// Run the machine on this thread until GPU `me` goes idle or `quantum` of its cycles
    /// pass, slice by slice, every GPU in ordinal order; returns the machine's state as
    /// [`Machine::settle`] says, or Busy.
    pub fn run<G: Gpus + ?Sized>(&self, gpus: &G, me: usize, quantum: u64) -> RunState {
        if gpus.count() == 1 {
            return gpus.lock(0).run(quantum);
        }
        let start = Instant::of(&gpus.lock(me));
        let slice = self.slice_of(gpus, me);
        let plan = self.plan(gpus);
        let idle: Vec<AtomicBool> = (0..gpus.count()).map(|_| AtomicBool::new(false)).collect();
        for c in Self::slices(start.cycles, quantum, slice) {
            let to = Instant { cycles: c, mhz: start.mhz };
            let open = self.begin_slice(&plan);
            for (i, flag) in idle.iter().enumerate() {
                flag.store(self.run_one(gpus, i, to, open, &plan) == RunState::Idle, Ordering::Release);
            }
            if idle[me].load(Ordering::Acquire) {
                return self.settle(gpus, &idle);
            }
        }
        RunState::Busy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw::regs::{NV_PFB_PEER, PfbPeer};

    const BAR0: u64 = hw::pci::BAR0_BUS;

    /// The GPUs of `sys`, each small, its BARs assigned and memory decoding on.
    fn gpus(sys: &SystemConfig) -> Vec<spin::Mutex<FakeGpu>> {
        (0..sys.len())
            .map(|i| {
                let mut g = FakeGpu::new(sys.gpus[i].clone().with(|c| c.board.vram_size = 16 << 20));
                g.assign_bars(BAR0, hw::pci::BAR1_BUS);
                g.cfg_write32(hw::pci::COMMAND_STATUS, 0x6);
                spin::Mutex::new(g)
            })
            .collect()
    }

    fn peer(g: &mut FakeGpu, slot: u32, rid: u16) {
        g.mmio_write32(
            BAR0 + u64::from(NV_PFB_PEER.offset_at(slot)),
            PfbPeer::new().with_rid(rid).with_valid(true).into(),
        );
    }

    #[test]
    fn links_and_the_slice_follow_the_topology() {
        let sys = SystemConfig::preset("gv100x2").unwrap();
        let m = Machine::new(&sys);
        let mhz = u64::from(sys.gpus[0].board.clock_mhz);
        let l = m.link(0, 1).expect("a PCIe switch between them");
        assert_eq!(l, Link { mbps: sys.peer_mbps(0, 1), latency_cycles: sys.peer_latency_ns(0, 1) * mhz / 1000 });
        assert_eq!(m.slice(), l.latency_cycles.clamp(MIN_SLICE, MAX_SLICE), "a slice is no longer than a link");
        assert_eq!((m.link(0, 0), m.link(0, 2)), (None, None), "no link to itself or to no GPU");
        // DGX-1: GPUs on different sockets have no peer path, NVLink pairs the shortest one.
        let dgx = SystemConfig::preset("dgx1").unwrap();
        let m = Machine::new(&dgx);
        let sys_pairs = (0..8).flat_map(|a| (0..8).map(move |b| (a, b))).filter(|&(a, b)| a != b && !dgx.p2p(a, b));
        assert!(sys_pairs.clone().count() > 0 && sys_pairs.clone().all(|(a, b)| m.link(a, b).is_none()));
        let nvlink = u64::from(dgx.gpus[0].board.clock_mhz) * dgx.interconnect.nvlink_latency_ns / 1000;
        assert_eq!(m.slice(), nvlink.clamp(MIN_SLICE, MAX_SLICE));
    }

    #[test]
    fn every_gpu_runs_to_the_same_time_whichever_is_waited_on() {
        let sys = SystemConfig::preset("gv100x4").unwrap();
        let (m, g) = (Machine::new(&sys), gpus(&sys));
        for me in [2, 0, 3] {
            assert_eq!(m.run(&g[..], me, 100_000), RunState::Idle, "idle GPUs: done at the first slice");
            let t: Vec<u64> = (0..4).map(|i| g[i].lock().cycles()).collect();
            assert!(t.iter().all(|&c| c == t[0]) && t[0] > 0, "{t:?}");
        }
        assert_eq!(g[0].lock().cycles(), 3 * m.slice(), "one slice per run");
        // A GPU joining later starts at the machine's time.
        let mut late = FakeGpu::new(sys.gpus[0].clone().with(|c| c.board.vram_size = 16 << 20));
        Machine::join(&g[0].lock(), &mut late);
        assert_eq!(late.cycles(), g[0].lock().cycles());
    }

    #[test]
    fn time_passed_reaches_every_gpu_idle_or_not() {
        let sys = SystemConfig::preset("gv100x4").unwrap();
        let (m, g) = (Machine::new(&sys), gpus(&sys));
        // More than a slice and not a whole number of them: every GPU gets there, idle as
        // they are (a run would stop at the first slice).
        let n = 5 * m.slice() / 2;
        m.pass(&g[..], 1, n);
        assert!((0..4).all(|i| g[i].lock().cycles() == n), "{:?}", (0..4).map(|i| g[i].lock().cycles()));
        m.pass(&g[..], 3, 7);
        assert!((0..4).all(|i| g[i].lock().cycles() == n + 7));
    }

    #[test]
    fn clocks_of_different_rates_agree_in_time() {
        let fast = DeviceConfig::default().with(|c| c.board.clock_mhz = 2000);
        let slow = DeviceConfig::default().with(|c| c.board.clock_mhz = 1000);
        let t = Instant { cycles: 3001, mhz: 2000 };
        assert_eq!((t.on(&fast), t.on(&slow)), (3001, 1500), "the last cycle not after it");
    }

    #[test]
    fn a_slice_runs_closed_after_a_quiet_one_and_open_after_a_wait() {
        let sys = SystemConfig::preset("gv100x2").unwrap();
        let (m, g) = (Machine::new(&sys), gpus(&sys));
        peer(&mut g[0].lock(), 0, sys.routing_id(1));
        let plan = m.plan(&g[..]);
        assert!(m.begin_slice(&plan), "the first slice is open");
        let to = Instant { cycles: m.slice(), mhz: sys.gpus[0].board.clock_mhz };
        assert_eq!(m.run_one(&g[..], 0, to, true, &plan), RunState::Idle);
        assert!(!m.begin_slice(&plan), "nothing shared was used: the next one is closed");
        // Closed: GPU 1's VRAM is not lent, and a peer read waits (a bus error counted).
        let mut buf = [0u8; 4];
        let pa = crate::peer::peer_address(0, 0x1000);
        let to = Instant { cycles: 2 * m.slice(), ..to };
        {
            let mut g0 = g[0].lock();
            g0.mem.gate.reopen_at = Some(to.cycles + 1);
            g0.mem.gate.peers = vec![sys.routing_id(1)];
            assert!(g0.mem.read(hw::regs::Target::Peer, pa, &mut buf).is_err());
            g0.mem.gate.reopen_at = None;
        }
        // (A GPU that waits while it runs is busy: tests/machine.rs's peer copy.)
        assert_eq!(m.run_one(&g[..], 0, to, false, &plan), RunState::Idle, "nothing to do");
        assert!(m.begin_slice(&plan), "a wait opens the next slice");
        assert!(g[0].lock().mem.peers.lent.is_empty() && g[1].lock().mem.vram.size() > 0, "nothing lent after");
    }

    #[test]
    fn groups_follow_peer_entries_and_lent_vram_comes_back() {
        let sys = SystemConfig::preset("gv100x4").unwrap();
        let (m, g) = (Machine::new(&sys), gpus(&sys));
        assert_eq!(m.groups(&g[..]), [[0], [1], [2], [3]], "nothing shared: four groups");
        peer(&mut g[3].lock(), 0, sys.routing_id(1));
        assert_eq!(m.groups(&g[..]), vec![vec![0], vec![1, 3], vec![2]], "an entry joins two GPUs");
        // GPU 1's VRAM is lent to GPU 3 for its slice and is GPU 1's again after it.
        g[1].lock().mem.vram.write(0x1000, &[7, 8, 9, 10]).unwrap();
        let to = Instant { cycles: m.slice(), mhz: sys.gpus[0].board.clock_mhz };
        let plan = m.plan(&g[..]);
        assert_eq!(m.run_one(&g[..], 3, to, true, &plan), RunState::Idle);
        let mut back = [0u8; 4];
        g[1].lock().mem.vram.read(0x1000, &mut back).unwrap();
        assert_eq!((back, g[3].lock().cycles()), ([7, 8, 9, 10], m.slice()));
        // An entry naming the GPU itself lends nothing (and does not deadlock).
        peer(&mut g[2].lock(), 0, sys.routing_id(2));
        assert_eq!(m.run_one(&g[..], 2, to, true, &plan), RunState::Idle);
    }
}
