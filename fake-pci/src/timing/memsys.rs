//! The memory system as one memory instruction sees it: shared-memory bank conflicts, the
//! constant cache, coalescing into sectors, the SM's L1 (write-through, no allocation on
//! stores; `.cg`/`.cv` loads pass it by, `.cs`/`.lu` allocate evict-first), the banked L2 (write-back, write-allocate, sector-masked writes) and DRAM
//! channels at the preset's bandwidth.
use super::{Cache, D, DeviceConfig, KernelStats, MemProbe, Op, Space};
use alloc::vec::Vec;
use hw::isa::{CacheOp, MemMods};

/// Interleave sectors over `n` units (L2 banks, DRAM channels), hashing high bits in so
/// that power-of-two strides do not all land on one unit.
pub(crate) fn channel(sector: u64, n: usize) -> usize {
    let h = sector ^ (sector >> 7) ^ (sector >> 13);
    (h % n as u64) as usize
}

/// The shared memory system (L2 banks, DRAM channels) as one memory instruction sees it.
pub(crate) struct MemSys<'a> {
    pub(crate) cfg: &'a DeviceConfig,
    pub(crate) l2: &'a mut Cache,
    pub(crate) banks: &'a mut [u64],
    pub(crate) chans: &'a mut [u64],
    pub(crate) sectors: &'a mut Vec<u64>,
    pub(crate) st: &'a mut KernelStats,
    /// When the grid's last store, reduction or atomic is performed at the L2 (raised by
    /// every write the grid sends there).
    pub(crate) posted: &'a mut u64,
}

impl MemSys<'_> {
    /// The timing of one memory instruction issued at `t` on SM `s` (block `uid`): when
    /// its data is back, and how many cycles it holds the SM's LSU.
    pub(crate) fn access(&mut self, d: &D, p: &MemProbe, t: u64, s: usize, uid: u64, l1: &mut Cache) -> (u64, u64) {
        let cfg: &DeviceConfig = self.cfg;
        if p.on == 0 {
            return (t + 1, 1);
        }
        // A bulk copy's global side is written when shared memory is its source.
        let write = matches!(d.op, Op::St | Op::Sust)
            || (d.op == Op::Bulk && hw::isa::BulkMods::spaces(d.m).0 == Some(Space::Shared));
        let atomic = d.op == Op::Atom;
        let sb = (cfg.sector_bytes as u64).max(4);
        let bytes = p.bytes.max(1) as u64;
        let mut done = t + 1;
        let mut busy = 1u64;
        let mut words: heapless::Vec<u64, 256> = heapless::Vec::new();
        let mut consts: heapless::Vec<u64, 32> = heapless::Vec::new();
        let mut sectors = core::mem::take(self.sectors);
        lanes(p, (bytes, sb), (s, uid), (&mut words, &mut consts, &mut sectors));
        if !words.is_empty() {
            let degree = bank_conflict_degree(&mut words, cfg.shared.banks.clamp(1, 64) as u64);
            let extra = (degree - 1) * cfg.shared.conflict_cycles as u64;
            self.st.bank_conflict_cycles += extra;
            // Another block's shared memory in the cluster: over the SM-to-SM network.
            let remote = (0..32).any(|l| {
                p.on >> l & 1 == 1 && p.space[l] == Space::Shared && p.addr[l] >> hw::isa::CLUSTER_OFFSET_BITS != 0
            });
            let latency = if remote { cfg.shared.remote_latency } else { cfg.shared.latency };
            done = done.max(t + latency as u64 + extra);
            busy = busy.max(1 + extra);
        }
        if !consts.is_empty() {
            done = done.max(t + cfg.pipe.const_latency as u64 + consts.len() as u64 - 1);
        }
        sectors.sort_unstable();
        sectors.dedup();
        let per_cycle = cfg.l1.sectors_per_cycle.max(1) as u64;
        if !sectors.is_empty() {
            busy = busy.max((sectors.len() as u64).div_ceil(per_cycle));
        }
        // The cache operator (loads and stores; atomics always meet at the L2).
        let op = if matches!(d.op, Op::Ld | Op::St) { MemMods::cache(d.m) } else { CacheOp::Default };
        let l1_bypass = matches!(op, CacheOp::Global | CacheOp::Volatile);
        let evict_first = op == CacheOp::Streaming;
        for (i, &sct) in sectors.iter().enumerate() {
            let at = t + i as u64 / per_cycle;
            if !write && !atomic && !l1_bypass {
                let (hit, _) = l1.access_with(sct, false, true, evict_first);
                if hit {
                    self.st.l1_hits += 1;
                    done = done.max(at + cfg.l1.latency as u64);
                    continue;
                }
                self.st.l1_misses += 1;
            } else if write {
                // Write-through: update a present line, allocate nothing.
                l1.access(sct, false, false);
            }
            let ready = self.l2(sct, at, (write, atomic, evict_first));
            if !write {
                done = done.max(ready);
            }
            if write || atomic {
                *self.posted = (*self.posted).max(ready);
            }
        }
        *self.sectors = sectors;
        (done, busy)
    }

    /// Sector `sct` at the L2, leaving the SM at cycle `at`: when its data is back at the SM.
    /// An atomic's sector is one pass of its bank's atomic unit: the words it names are
    /// updated together, the lanes of a warp that name one address combined into one update
    /// (the H200: a warp's atomics to one line's 32 words take 4.7 cycles, 4 sectors at one
    /// slice; to one address, 1-1.5).
    fn l2(&mut self, sct: u64, at: u64, (write, atomic, evict_first): (bool, bool, bool)) -> u64 {
        let MemSys { cfg, l2, banks, chans, st, .. } = self;
        let sb = (cfg.sector_bytes as u64).max(4);
        let sector_mc = cfg.transfer_mcycles(sb * chans.len() as u64, cfg.dram.mbps);
        let l2_half = cfg.l2.latency as u64 / 2;
        // A slice owns whole lines: a line's sectors queue at one bank.
        let b = channel(sct / super::L1_LINE_SECTORS as u64, banks.len());
        let start = (at + l2_half).max(banks[b]);
        banks[b] = start + cfg.l2.bank_cycles as u64;
        let (hit, evicted) = l2.access_with(sct, write || atomic, true, evict_first);
        if let Some(e) = evicted {
            let c = channel(e, chans.len());
            chans[c] = chans[c].max(start * 1000) + sector_mc;
            st.dram_write_bytes += sb;
        }
        let back = cfg.l2.latency as u64 - l2_half;
        if hit || write {
            // A store miss allocates with a byte mask: no DRAM read.
            if hit {
                st.l2_hits += 1;
            } else {
                st.l2_misses += 1;
            }
            banks[b] + back
        } else {
            st.l2_misses += 1;
            st.dram_read_bytes += sb;
            let c = channel(sct, chans.len());
            chans[c] = chans[c].max(start * 1000) + sector_mc;
            let arrive = chans[c].div_ceil(1000) + cfg.dram.latency as u64;
            // An atomic's updates are done at the bank once the line has come from DRAM.
            let at_bank = if atomic { (arrive + cfg.l2.bank_cycles as u64).max(banks[b]) } else { arrive };
            at_bank + back
        }
    }

    /// The timing of a texture instruction issued at `t`: when its data is back, and how
    /// many cycles it holds the SM's texture units. Every texel the fetch read is looked up
    /// in `cache` (the texture cache, or the L1 where the preset has none) by sector, as
    /// many sectors a cycle as the L1's tag stage takes; misses go to the L2. Texture
    /// fetches have a constant latency (CUDA's documentation: a texture-cache hit saves
    /// bandwidth, not latency), `tex.latency`, unless a miss takes longer; the units
    /// filter one lane's footprint of up to four texels a cycle each. TXQ reads no texels.
    pub(crate) fn texture(&mut self, d: &D, p: &MemProbe, t: u64, cache: &mut Cache) -> (u64, u64) {
        let cfg: &DeviceConfig = self.cfg;
        let latency = cfg.tex.latency as u64;
        if d.op == Op::Txq || p.on == 0 {
            return (t + latency.max(1), 1);
        }
        let sb = (cfg.sector_bytes as u64).max(4);
        let bytes = p.bytes.max(1) as u64;
        let mut sectors = core::mem::take(self.sectors);
        sectors.clear();
        for &a in &p.texels {
            sectors.extend(a / sb..=(a + bytes - 1) / sb);
        }
        sectors.sort_unstable();
        sectors.dedup();
        let per_cycle = cfg.l1.sectors_per_cycle.max(1) as u64;
        let units = cfg.tex.units.max(1) as u64;
        let busy = (p.samples as u64).div_ceil(units).max((sectors.len() as u64).div_ceil(per_cycle)).max(1);
        let mut done = t + latency.max(1);
        for (i, &sct) in sectors.iter().enumerate() {
            let at = t + i as u64 / per_cycle;
            let (hit, _) = cache.access(sct, false, true);
            if hit {
                self.st.tex_hits += 1;
                done = done.max(at + latency);
            } else {
                self.st.tex_misses += 1;
                let ready = self.l2(sct, at, (false, false, false));
                done = done.max(ready).max(at + latency);
            }
        }
        *self.sectors = sectors;
        (done, busy)
    }
}

/// What the active lanes of an access of `bytes` each touch, by space: shared-memory words
/// (4 bytes), distinct constant addresses, and global and local sectors of `sb` bytes.
/// Local memory is interleaved per thread: the same offset of the 32 lanes of a warp is
/// contiguous (at a synthetic address per SM `s` and block `uid`). The outputs are the
/// caller's, so that nothing large is returned by value.
#[inline(always)]
fn lanes(
    p: &MemProbe,
    (bytes, sb): (u64, u64),
    (s, uid): (usize, u64),
    (words, consts, sectors): (&mut heapless::Vec<u64, 256>, &mut heapless::Vec<u64, 32>, &mut Vec<u64>),
) {
    sectors.clear();
    for l in (0..32).filter(|l| p.on >> l & 1 == 1) {
        let a = p.addr[l];
        match p.space[l] {
            Space::Shared => {
                for w in (a / 4)..(a + bytes).div_ceil(4) {
                    let _ = words.push(w);
                }
            }
            Space::Const | Space::ConstBank => {
                if !consts.contains(&a) {
                    let _ = consts.push(a);
                }
            }
            Space::Local => {
                let base = (1u64 << 62) | (s as u64) << 52 | (uid & 0xFFFF_FFFF) << 20;
                let off = a / 4 * 128 + l as u64 * 4;
                sectors.extend((base + off) / sb..=(base + off + bytes - 1) / sb);
            }
            _ => sectors.extend(a / sb..=(a + bytes - 1) / sb),
        }
    }
}

/// The cycles shared-memory `words` take over `nb` banks: lanes reading one word share it
/// (broadcast); distinct words in one bank take a cycle each.
#[inline(always)]
fn bank_conflict_degree(words: &mut heapless::Vec<u64, 256>, nb: u64) -> u64 {
    words.sort_unstable();
    let mut per_bank = [0u64; 64];
    let mut prev = u64::MAX;
    for &w in words.iter() {
        if w != prev {
            per_bank[(w % nb) as usize] += 1;
            prev = w;
        }
    }
    per_bank.iter().copied().max().unwrap_or(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::super::{Imm, Ty};
    use super::*;
    use hw::isa::ALWAYS;

    /// The default preset's memory system, with its L1 for one SM.
    struct Rig {
        cfg: DeviceConfig,
        l1: Cache,
        tex: Cache,
        l2: Cache,
        banks: Vec<u64>,
        chans: Vec<u64>,
        sectors: Vec<u64>,
        st: KernelStats,
        posted: u64,
    }

    impl Rig {
        fn new() -> Self {
            Self::of(DeviceConfig::default())
        }

        fn of(cfg: DeviceConfig) -> Self {
            Self {
                tex: Cache::new(cfg.tex.bytes, cfg.sector_bytes, cfg.tex.ways),
                l1: Cache::with_lines(cfg.l1.bytes, cfg.sector_bytes, cfg.l1.ways, crate::timing::L1_LINE_SECTORS),
                l2: Cache::with_hashed_sets(cfg.l2.bytes, cfg.sector_bytes, cfg.l2.ways),
                banks: vec![0; cfg.l2.banks as usize],
                chans: vec![0; cfg.dram.channels as usize],
                sectors: Vec::new(),
                st: KernelStats::default(),
                posted: 0,
                cfg,
            }
        }

        fn mem(&mut self) -> MemSys<'_> {
            MemSys {
                cfg: &self.cfg,
                l2: &mut self.l2,
                banks: &mut self.banks,
                chans: &mut self.chans,
                sectors: &mut self.sectors,
                st: &mut self.st,
                posted: &mut self.posted,
            }
        }

        /// A texture fetch at cycle `t` whose 32 lanes read `per_lane` 4-byte texels each,
        /// texel `k` of lane `l` at `addr(l, k)`.
        fn fetch(&mut self, op: Op, t: u64, per_lane: u64, addr: impl Fn(u64, u64) -> u64) -> (u64, u64) {
            let mut p = MemProbe { on: u32::MAX, bytes: 4, ..MemProbe::default() };
            for l in 0..32 {
                p.texels.extend((0..per_lane).map(|k| addr(l, k)));
                p.samples += per_lane.div_ceil(4).max(1) as u32;
            }
            let d = insn(op);
            let mut cache = core::mem::replace(&mut self.tex, Cache::new(0, 32, 1));
            let out = if self.cfg.tex.bytes == 0 {
                let mut l1 = core::mem::replace(&mut self.l1, Cache::new(0, 32, 1));
                let out = self.mem().texture(&d, &p, t, &mut l1);
                self.l1 = l1;
                out
            } else {
                self.mem().texture(&d, &p, t, &mut cache)
            };
            self.tex = cache;
            out
        }

        /// One warp-wide access of 4 bytes per lane at `addr(lane)` in `space`, at cycle `t`.
        fn access(&mut self, op: Op, space: Space, t: u64, addr: impl Fn(u64) -> u64) -> (u64, u64) {
            self.access_op(op, CacheOp::Default, space, t, addr)
        }

        /// [`Rig::access`] with cache operator `cop`.
        fn access_op(&mut self, op: Op, cop: CacheOp, space: Space, t: u64, addr: impl Fn(u64) -> u64) -> (u64, u64) {
            let mut d = insn(op);
            d.m = MemMods::encode_cached(space, 1, cop);
            let p = MemProbe {
                on: u32::MAX,
                addr: core::array::from_fn(|l| addr(l as u64)),
                space: [space; 32],
                bytes: 4,
                ..MemProbe::default()
            };
            let mut l1 = core::mem::replace(&mut self.l1, Cache::new(0, 32, 1));
            let out = self.mem().access(&d, &p, t, 0, 0, &mut l1);
            self.l1 = l1;
            out
        }
    }

    fn insn(op: Op) -> D {
        D {
            op,
            ty: Ty::U32,
            guard: ALWAYS,
            neg: false,
            dst: 0,
            a: 0,
            b: 0,
            c: 0,
            imm_slot: Imm::None,
            m: 0,
            imm: 0,
            cref: None,
            groups: [1; 3],
        }
    }

    #[test]
    fn a_coalesced_load_misses_to_dram_once_then_hits_in_l1() {
        let mut r = Rig::new();
        let sb = r.cfg.sector_bytes as u64;
        let (done, busy) = r.access(Op::Ld, Space::Global, 100, |l| 0x1000 + 4 * l);
        let sectors = 128 / sb;
        assert_eq!((r.st.l1_misses, r.st.l2_misses, r.st.dram_read_bytes), (sectors, sectors, 128));
        assert_eq!(busy, sectors.div_ceil(r.cfg.l1.sectors_per_cycle as u64));
        assert!(done >= 100 + (r.cfg.l2.latency + r.cfg.dram.latency) as u64, "{done}");
        let (done, _) = r.access(Op::Ld, Space::Global, 10_000, |l| 0x1000 + 4 * l);
        assert_eq!(r.st.l1_hits, sectors);
        assert_eq!(done, 10_000 + r.cfg.l1.latency as u64 + (sectors - 1) / r.cfg.l1.sectors_per_cycle as u64);
    }

    #[test]
    fn cg_and_cv_loads_pass_the_l1_by_and_streaming_loads_go_first() {
        let mut r = Rig::new();
        let sb = r.cfg.sector_bytes as u64;
        let sectors = 128 / sb;
        let l2 = (r.cfg.l2.latency) as u64;
        for cop in [CacheOp::Global, CacheOp::Volatile] {
            // Twice: the second finds the L2, never the L1 (nothing allocated there).
            r.access_op(Op::Ld, cop, Space::Global, 0, |l| 0x1000 + 4 * l);
            let (done, _) = r.access_op(Op::Ld, cop, Space::Global, 10_000, |l| 0x1000 + 4 * l);
            assert!(done >= 10_000 + l2, "{cop:?}: {done}");
            assert_eq!((r.st.l1_hits, r.st.l1_misses), (0, 0), "{cop:?}");
        }
        // A cached load of the same lines misses the L1 once, then hits.
        r.access(Op::Ld, Space::Global, 20_000, |l| 0x1000 + 4 * l);
        assert_eq!((r.st.l1_hits, r.st.l1_misses), (0, sectors));
        r.access(Op::Ld, Space::Global, 30_000, |l| 0x1000 + 4 * l);
        assert_eq!(r.st.l1_hits, sectors);
        // A streaming fill is the next to go from its set: filling the set's other ways with
        // cached lines evicts it and keeps the older cached line.
        let l1 = &mut r.l1;
        let set_stride = l1.sets * sb * l1.sectors_per_line;
        l1.access_with(0x1000 / sb, false, true, false); // hit: 0x1000 is now the newest
        r.access_op(Op::Ld, CacheOp::Streaming, Space::Global, 40_000, |_| 0x1000 + set_stride);
        let ways = r.l1.ways as u64;
        for w in 2..=ways {
            r.access(Op::Ld, Space::Global, 50_000, |_| 0x1000 + w * set_stride);
        }
        assert!(r.l1.access(0x1000 / sb, false, false).0, "the cached line stays");
        assert!(!r.l1.access((0x1000 + set_stride) / sb, false, false).0, "the streaming line went first");
    }

    #[test]
    fn a_warps_same_address_atomics_are_one_update_and_the_grid_waits_for_them() {
        let mut r = Rig::new();
        r.access(Op::Atom, Space::Global, 0, |_| 0x2000);
        let one = r.posted;
        assert!(one >= r.cfg.l2.latency as u64 / 2, "{one}");
        // Eight distinct words of one sector: one pass of its bank.
        let mut r = Rig::new();
        r.access(Op::Atom, Space::Global, 0, |l| 0x2000 + 4 * (l % 8));
        assert_eq!(r.posted, one);
        // A line's 32 words: its four sectors, one after another at the line's bank.
        let mut r = Rig::new();
        r.access(Op::Atom, Space::Global, 0, |l| 0x2000 + 4 * l);
        assert_eq!(r.posted - one, 3 * r.cfg.l2.bank_cycles as u64);
        // A store is performed at the L2 too.
        let mut r = Rig::new();
        let (done, _) = r.access(Op::St, Space::Global, 0, |l| 0x4000 + 4 * l);
        assert!(r.posted > done, "{} {done}", r.posted);
    }

    #[test]
    fn a_scattered_load_costs_a_sector_per_lane() {
        let mut r = Rig::new();
        let (_, busy) = r.access(Op::Ld, Space::Global, 0, |l| l * 4096);
        assert_eq!(r.st.l1_misses, 32);
        assert_eq!(busy, 32u64.div_ceil(r.cfg.l1.sectors_per_cycle as u64));
    }

    #[test]
    fn a_store_miss_allocates_in_l2_without_reading_dram_and_is_written_back_later() {
        let mut r = Rig::new();
        let (done, _) = r.access(Op::St, Space::Global, 50, |l| 4 * l);
        assert_eq!(done, 51, "stores do not wait for their data");
        assert_eq!((r.st.dram_read_bytes, r.st.l1_misses), (0, 0));
        assert_eq!(r.st.l2_misses, 128 / r.cfg.sector_bytes as u64);
        let mut dirty = 0;
        r.l2.clean(|_| dirty += 1);
        assert_eq!(dirty, 128 / r.cfg.sector_bytes as u64);
        // A load of what was stored misses the write-through L1 but hits the L2.
        r.access(Op::Ld, Space::Global, 1000, |l| 4 * l);
        assert_eq!(r.st.l2_hits, 128 / r.cfg.sector_bytes as u64);
        assert_eq!(r.st.dram_read_bytes, 0);
    }

    #[test]
    fn shared_memory_costs_a_cycle_per_conflict_way_and_broadcasts_for_free() {
        let banks = DeviceConfig::default().shared.banks as u64;
        let mut r = Rig::new();
        let (done, _) = r.access(Op::Ld, Space::Shared, 0, |l| 4 * l);
        assert_eq!((done, r.st.bank_conflict_cycles), (r.cfg.shared.latency as u64, 0));
        let (done, _) = r.access(Op::Ld, Space::Shared, 0, |_| 64);
        assert_eq!((done, r.st.bank_conflict_cycles), (r.cfg.shared.latency as u64, 0));
        // Every lane in bank 0, each on its own word: a 32-way conflict.
        let (done, busy) = r.access(Op::Ld, Space::Shared, 0, |l| 4 * banks * l);
        assert_eq!(r.st.bank_conflict_cycles, 31);
        assert_eq!((done, busy), (r.cfg.shared.latency as u64 + 31, 32));
    }

    #[test]
    fn another_blocks_shared_memory_is_the_sm_to_sm_latency_away() {
        let mut r = Rig::new();
        let (own, _) = r.access(Op::Ld, Space::Shared, 0, |l| 4 * l);
        // `.shared::cluster` addresses of rank 1 (bits 31:24 rank + 1).
        let (remote, _) = r.access(Op::Ld, Space::Shared, 0, |l| hw::isa::cluster_address(1, 4 * l as u32) as u64);
        assert_eq!((own, remote), (r.cfg.shared.latency as u64, r.cfg.shared.remote_latency as u64));
        assert!(remote > own);
    }

    #[test]
    fn sectors_spread_over_channels_even_at_power_of_two_strides() {
        for n in [2usize, 8, 64] {
            let mut used = vec![false; n];
            for k in 0..256u64 {
                used[channel(k * 64, n)] = true;
            }
            assert!(used.iter().all(|&u| u), "{n} units: {used:?}");
        }
    }

    #[test]
    fn fermi_textures_fill_their_own_cache_and_hits_keep_the_constant_latency() {
        let mut r = Rig::of(DeviceConfig::preset("gf100").unwrap());
        let lat = r.cfg.tex.latency as u64;
        // 32 lanes, one 4-byte texel each: four 32-byte sectors, from DRAM.
        let (done, busy) = r.fetch(Op::Tex, 100, 1, |l, _| 0x4000 + 4 * l);
        assert_eq!((r.st.tex_misses, r.st.tex_hits, r.st.dram_read_bytes), (4, 0, 128));
        assert!(done >= 100 + (r.cfg.l2.latency + r.cfg.dram.latency) as u64, "{done}");
        // Four texture units filter a lane each per cycle.
        assert_eq!(busy, 8);
        // The L1 saw none of it: Fermi's texture cache is its own.
        assert_eq!((r.st.l1_hits, r.st.l1_misses), (0, 0));
        r.access(Op::Ld, Space::Global, 5_000, |l| 0x4000 + 4 * l);
        assert_eq!((r.st.l1_hits, r.st.l1_misses), (0, 4));
        // Again: every sector hits, and the data still takes the texture latency.
        let (done, _) = r.fetch(Op::Tex, 10_000, 1, |l, _| 0x4000 + 4 * l);
        assert_eq!((r.st.tex_hits, r.st.tex_misses), (4, 4));
        assert_eq!(done, 10_000 + lat);
        // A query reads no texels.
        assert_eq!(r.fetch(Op::Txq, 20_000, 0, |_, _| 0), (20_000 + lat, 1));
        assert_eq!((r.st.tex_hits, r.st.tex_misses), (4, 4));
    }

    #[test]
    fn volta_textures_share_the_l1_and_filter_footprints_of_four_texels_per_cycle() {
        let mut r = Rig::new();
        assert_eq!(r.cfg.tex.bytes, 0);
        // Bilinear: each lane reads a 2x2 footprint of a 64-texel-wide texture.
        let row = 64 * 4;
        let quad = |l: u64, k: u64| 0x10_000 + (l % 8) * 8 + (l / 8) * 2 * row + (k & 1) * 4 + (k >> 1) * row;
        let (_, busy) = r.fetch(Op::Tex, 0, 4, quad);
        assert_eq!(busy, 8, "32 footprints over 4 units");
        let sectors = r.st.tex_misses;
        assert!(sectors > 0 && r.st.tex_hits == 0);
        // A load of the same texels now hits the L1 the fetch filled.
        r.access(Op::Ld, Space::Global, 5_000, |l| quad(l, 0));
        assert!(r.st.l1_hits > 0 && r.st.l1_misses == 0, "{:?}", r.st);
        // Trilinear (two levels): twice the filter cycles.
        let (_, busy) = r.fetch(Op::Tex, 10_000, 8, |l, k| quad(l, k & 3) + (k >> 2) * 0x8000);
        assert_eq!(busy, 16);
    }
}
