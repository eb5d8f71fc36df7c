//! The load/store unit: addresses in each state space, global accesses through the MMU with
//! coalescing into sectors, shared/local/constant windows, atomics, and the sanitizer's
//! checks and pointer provenance.
use super::{
    AccessKind, AtomMods, CheckKind, D, Exec, Fault, GridError, MemMods, Op, RZ, Space, Trap, TrapReason, Ty,
    WINDOW_SIZE, WarpMem, WarpPos, Who, atom, bank_read, extend, put,
};

/// A block's linear index in a grid of `grid` blocks.
#[inline]
pub(crate) fn linear(ctaid: [u32; 3], grid: [u32; 3]) -> u32 {
    ctaid[0] + grid[0] * (ctaid[1] + grid[1] * ctaid[2])
}

/// Whether a replayable context's access with this fault waits for a replay: a page with no
/// PTE, or a write to a read-only page (a read-duplicated page the service must make
/// writable).
fn waits_for_replay(reason: hw::regs::FaultReason) -> bool {
    use hw::regs::FaultReason::{PdeNotPresent, PteNotPresent, ReadOnly};
    matches!(reason, PteNotPresent | PdeNotPresent | ReadOnly)
}

impl Exec<'_, '_> {
    /// A global load or store whose active lanes all fall in one page: translate once and
    /// move the whole span with one memory access (what a coalescing memory pipeline does),
    /// applying the lanes in lane order. Returns false when the access does not qualify.
    #[inline]
    fn coalesced(
        &mut self,
        d: D,
        space: Space,
        n: usize,
        size: usize,
        on: u32,
        regs: &mut [u64],
    ) -> Result<bool, GridError> {
        let bytes = size * n;
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for l in 0..32usize {
            if on >> l & 1 == 1 {
                let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
                let addr = base.wrapping_add(d.imm);
                if addr & (size as u64 - 1) != 0 {
                    // (Element sizes are powers of two: a mask, not a division.)
                    return Ok(false); // the per-lane path reports the misalignment
                }
                lo = lo.min(addr);
                hi = hi.max(addr);
                if let Some(p) = self.probe.as_deref_mut() {
                    p.addr[l] = addr;
                    p.space[l] = Space::Global;
                }
            }
        }
        let global = match space {
            Space::Global => true,
            Space::Generic => {
                // [lo, hi] must miss both windows entirely.
                let outside = |w: u64| w == 0 || hi < w || lo >= w.saturating_add(WINDOW_SIZE);
                let cw = self.r.cluster_window;
                outside(self.r.shared_window)
                    && outside(self.r.local_window)
                    && (cw == 0 || hi < cw || lo >= cw.saturating_add(hw::isa::CLUSTER_WINDOW_BYTES))
            }
            _ => false,
        };
        let Some(end) = hi.checked_add(bytes as u64) else { return Ok(false) };
        if !global || lo >> 12 != (end - 1) >> 12 {
            return Ok(false);
        }
        let span = (end - lo) as usize;
        let write = d.op == Op::St;
        let (target, pa) = self.cx.tlb.translate(self.cx.mem, &self.cx.space, lo, write).map_err(GridError::Fault)?;
        if write && target == hw::regs::Target::Peer {
            // Stores to a peer go lane by lane: the span's read-modify-write below would
            // move bytes over the link that the store does not.
            return Ok(false);
        }
        let fault = |reason| GridError::Fault(Fault { va: lo, reason, write });
        let mut staging = core::mem::take(&mut *self.span);
        let buf = &mut staging[..span];
        if (!write || span > bytes)
            && let Err(e) = self.cx.mem.read(target, pa, buf)
        {
            *self.span = staging;
            return Err(fault(e));
        }
        for l in 0..32usize {
            if on >> l & 1 == 0 {
                continue;
            }
            let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
            let at = (base.wrapping_add(d.imm) - lo) as usize;
            for k in 0..n {
                let e = &mut buf[at + k * size..at + (k + 1) * size];
                if write {
                    let src = d.b as usize + k;
                    let v = if d.b == RZ || src >= 255 { 0 } else { regs[src * 32 + l] };
                    store_le(e, size, v);
                } else {
                    let dst = d.dst as usize + k;
                    if d.dst == RZ || dst >= 255 {
                        continue;
                    }
                    regs[dst * 32 + l] = extend(d.ty, load_le(e, size));
                }
            }
        }
        let r = if write { self.cx.mem.write(target, pa, buf).map_err(fault) } else { Ok(()) };
        *self.span = staging;
        r.map(|()| true)
    }
}

/// A little-endian element of 1, 2, 4 or 8 bytes (fixed-width reads: no memmove).
#[inline(always)]
pub(crate) fn load_le(b: &[u8], size: usize) -> u64 {
    match size {
        1 => b[0] as u64,
        2 => u16::from_le_bytes([b[0], b[1]]) as u64,
        4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
        _ => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
    }
}

/// Store the low `size` bytes of `v` little-endian.
#[inline(always)]
pub(crate) fn store_le(b: &mut [u8], size: usize, v: u64) {
    match size {
        1 => b[0] = v as u8,
        2 => b[..2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => b[..4].copy_from_slice(&(v as u32).to_le_bytes()),
        _ => b[..8].copy_from_slice(&v.to_le_bytes()),
    }
}

impl Exec<'_, '_> {
    /// memcheck's pointer provenance after instruction `d` wrote its destination in lanes
    /// `on`: a 64-bit load of a value inside an allocation (a kernel parameter, a pointer
    /// read from memory) makes it a pointer into that allocation; `mov`, `cvta`, 64-bit
    /// `add`/`sub` and `mad`'s addend carry a pointer's allocation on; any other result is
    /// no pointer.
    #[inline]
    pub(crate) fn track_pointers(&mut self, d: &D, on: u32, warp: u32, regs: &[u64]) {
        let (Some(b), Some(chk)) = (self.bcheck.as_deref_mut(), self.check.as_deref()) else { return };
        if d.dst == RZ {
            return;
        }
        let nregs = self.nregs;
        let base = warp as usize * nregs * 32;
        let wide = matches!(d.ty, Ty::U64 | Ty::S64);
        let n = if d.op == Op::Ld { MemMods::vec(d.m) as usize } else { 1 };
        for l in (0..32).filter(|l| on >> l & 1 == 1) {
            // A 64-bit constant operand (a pointer parameter) is a pointer like the load of it.
            let of = |k: usize, r: u8| match d.cref {
                Some(c) if d.is_imm(k) && c.bytes() == 8 => chk.alloc_of(d.imm),
                _ if d.is_imm(k) || r == RZ || r as usize >= nregs => 0,
                _ => b.prov[base + r as usize * 32 + l],
            };
            let p = match d.op {
                Op::Mov | Op::Cvta => of(0, d.a),
                Op::Add if wide => Some(of(0, d.a)).filter(|&p| p != 0).unwrap_or_else(|| of(1, d.b)),
                Op::Sub if wide => of(0, d.a),
                Op::Mad => of(2, d.c),
                Op::Ld if wide && n == 1 => chk.alloc_of(regs[d.dst as usize * 32 + l]),
                _ => 0,
            };
            for k in 0..n {
                let r = d.dst as usize + k;
                if r < nregs {
                    b.prov[base + r * 32 + l] = p;
                }
            }
        }
    }

    /// A fault of a global access as a replayable context meets it: a page with no PTE,
    /// or a write to a read-only page (a read-duplicated page the service must make
    /// writable), waits for a replay (checked launches excepted: the sanitizer reports
    /// first).
    pub(crate) fn replayable(&self, e: GridError) -> GridError {
        match e {
            GridError::Fault(f) if self.cx.space.replayable && self.check.is_none() && waits_for_replay(f.reason) => {
                GridError::Replay(f)
            }
            e => e,
        }
    }

    /// Before any lane's access is made, every global page the instruction touches (the
    /// first and last byte of each lane's) is looked at, for atomics and loads into their
    /// own address register, which a second execution would not repeat exactly:
    /// - `replay` (a replayable context): each must have a PTE; the first that has none
    ///   ends the instruction unexecuted, for a replay ([`GridError::Replay`]);
    /// - `gated` (behind the machine's closed gate, `crate::gate`): each must be open; the
    ///   first that is not ends it unexecuted (the engine sees the gate's wait and issues
    ///   it again in the next slice).
    ///
    /// Other faults are met by the access itself.
    fn pre_check(
        &mut self,
        d: D,
        space: Space,
        (bytes, on): (usize, u32),
        regs: &[u64],
        (replay, gated): (bool, bool),
    ) -> Result<(), GridError> {
        let write = d.op != Op::Ld;
        for l in 0..32usize {
            if on >> l & 1 == 0 {
                continue;
            }
            let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
            let (s, addr) = self.resolve(space, base.wrapping_add(d.imm));
            if s != Space::Global {
                continue;
            }
            let last = addr.wrapping_add(bytes.max(1) as u64 - 1);
            for a in [addr, last] {
                match self.cx.tlb.translate(self.cx.mem, &self.cx.space, a, write) {
                    Ok((target, pa)) if gated => {
                        if let Err(reason) = self.cx.mem.gate(target, pa, write) {
                            return Err(GridError::Fault(crate::mmu::Fault { va: a, reason, write }));
                        }
                    }
                    Err(f) if replay && waits_for_replay(f.reason) => return Err(GridError::Replay(f)),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn memory(&mut self, d: D, pc: u32, on: u32, pos: WarpPos, m: &mut WarpMem) -> Result<(), GridError> {
        let (regs, shared, local, rank) = (&mut *m.regs, &mut *m.shared, &mut *m.local, m.rank);
        let cta = self.r.shared as usize;
        let (tid_base, ctaid) = (pos.base, pos.ctaid);
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let space = Space::from_bits(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
        let (n, bank) =
            if d.op == Op::Atom { (1, 0) } else { (MemMods::vec(d.m) as usize, MemMods::bank(d.m) as usize) };
        let size = d.ty.bytes() as usize;
        let local_size = self.r.local_size as usize;
        if let Some(p) = self.probe.as_deref_mut() {
            p.on = on;
            p.bytes = (size * n) as u32;
        }
        // A replayable fault must leave the instruction as if not executed. A store replayed
        // writes what it wrote, and a load whose address registers it does not overwrite
        // reloads the same lanes: their faults are met as the access makes them. Atomics
        // and loads into their own address register check every page first.
        let (replay, gated) = (self.cx.space.replayable && self.check.is_none(), self.cx.mem.gate.closed());
        if replay || gated {
            let a = usize::from(d.a);
            let aliased = d.op == Op::Ld && d.a != RZ && (usize::from(d.dst)..usize::from(d.dst) + n).contains(&a);
            if d.op == Op::Atom || aliased {
                self.pre_check(d, space, (size * n, on), regs, (replay, gated))?;
            }
        }
        // A checked launch takes every lane through the checks below.
        if self.check.is_none() && matches!(d.op, Op::Ld | Op::St) && self.coalesced(d, space, n, size, on, regs)? {
            return Ok(());
        }
        if d.op == Op::Ld && matches!(space, Space::Const | Space::ConstBank) && d.a == RZ {
            self.uniform_const(d, space, bank, (n, size), on, regs);
            return Ok(());
        }
        let mut out_of_bounds = false;
        for l in 0..32usize {
            if on >> l & 1 == 0 {
                continue;
            }
            let base = if d.a == RZ { 0 } else { regs[d.a as usize * 32 + l] };
            let addr = base.wrapping_add(d.imm);
            if addr & (size as u64 - 1) != 0 {
                return Err(trap(TrapReason::Misaligned));
            }
            let (space, addr) = self.resolve(space, addr);
            if let Some(p) = self.probe.as_deref_mut() {
                p.addr[l] = addr;
                p.space[l] = space;
            }
            // Shared memory: the block's own, or another's of its cluster.
            let (part, addr, remote) = match space {
                Space::Shared => self.shared_part(shared.len(), rank, addr).unwrap_or((0, addr, false)),
                _ => (0, addr, false),
            };
            let bytes = size * n;
            if self.check.is_some() {
                // Another block's shared memory (`mapa`): memcheck against its size; racecheck
                // keeps each block's own accesses only.
                let who = Who { ctaid, block: linear(ctaid, self.r.grid), thread: tid_base + l as u32 };
                let lens = (cta as u64, local_size as u64, remote);
                if !self.checked(d, pc, space, addr, bytes as u64, lens, &who) {
                    out_of_bounds = true;
                    continue; // memcheck: this lane's access is not made; the grid stops below
                }
            }
            // A view of the lane's memory for shared/local/constant spaces.
            let window: Option<&mut [u8]> = match space {
                Space::Shared => shared.get_mut(part..part + cta),
                Space::Local => Some(&mut local[l * local_size..(l + 1) * local_size]),
                _ => None,
            };
            match d.op {
                Op::Ld => {
                    let mut buf = [0u8; 32];
                    let buf = &mut buf[..bytes];
                    match space {
                        Space::Global => {
                            self.cx.tlb.read_va(self.cx.mem, &self.cx.space, addr, buf).map_err(GridError::Fault)?
                        }
                        Space::Const | Space::ConstBank => self.const_read(space, bank, addr, buf),
                        _ => {
                            let w = window.ok_or(trap(TrapReason::IllegalInstruction))?;
                            let src =
                                w.get(addr as usize..addr as usize + bytes).ok_or(trap(TrapReason::OutOfRange))?;
                            buf.copy_from_slice(src);
                        }
                    }
                    for k in 0..n {
                        let dst = d.dst as usize + k;
                        if d.dst == RZ || dst >= 255 {
                            continue;
                        }
                        regs[dst * 32 + l] = extend(d.ty, load_le(&buf[k * size..], size));
                    }
                }
                Op::St => {
                    let mut buf = [0u8; 32];
                    for k in 0..n {
                        let src = d.b as usize + k;
                        let v = if d.b == RZ || src >= 255 { 0 } else { regs[src * 32 + l] };
                        store_le(&mut buf[k * size..], size, v);
                    }
                    let buf = &buf[..bytes];
                    match space {
                        Space::Global => {
                            self.cx.tlb.write_va(self.cx.mem, &self.cx.space, addr, buf).map_err(GridError::Fault)?
                        }
                        Space::Const | Space::ConstBank => return Err(trap(TrapReason::IllegalInstruction)),
                        _ => {
                            let w = window.ok_or(trap(TrapReason::IllegalInstruction))?;
                            let dst =
                                w.get_mut(addr as usize..addr as usize + bytes).ok_or(trap(TrapReason::OutOfRange))?;
                            dst.copy_from_slice(buf);
                            self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
                        }
                    }
                }
                _ => self.atomic(d, pc, (l, space, addr), window, regs)?,
            }
        }
        if out_of_bounds {
            return Err(trap(TrapReason::OutOfRange));
        }
        Ok(())
    }

    /// A bulk copy ([`Op::Bulk`], `cp.async.bulk`) by each lane of `on`: c bytes from
    /// address b to address a (16-byte aligned, a multiple of 16 bytes), one side in shared
    /// memory, done at once. A shared side is the block's own or, by its `.shared::cluster`
    /// address, another block's of the cluster. The timing model sees the global side's
    /// bytes.
    pub(crate) fn bulk(&mut self, d: D, pc: u32, on: u32, pos: WarpPos, m: &mut WarpMem) -> Result<(), GridError> {
        if hw::isa::BulkMods::multicast(d.m) {
            return self.bulk_multicast(d, pc, on, pos, m);
        }
        let (cta, rank) = (self.r.shared as u64, m.rank);
        let (regs, shared) = (&*m.regs, &mut *m.shared);
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let (Some(src_space), Some(dst_space)) = hw::isa::BulkMods::spaces(d.m) else {
            return Err(trap(TrapReason::IllegalInstruction));
        };
        let reg = |r: u8, l: usize| if r == RZ { 0 } else { regs[r as usize * 32 + l] };
        let mut most = 0u64;
        let mut out_of_bounds = false;
        for l in (0..32usize).filter(|&l| on >> l & 1 == 1) {
            let (dst, src, bytes) = (reg(d.a, l), reg(d.b, l), reg(d.c, l) & 0xFFFF_FFFF);
            if (dst | src | bytes) & 15 != 0 {
                return Err(trap(TrapReason::Misaligned));
            }
            let ((ss, src), (ds, dst)) = (self.resolve(src_space, src), self.resolve(dst_space, dst));
            // A shared side: where in the cluster's shared memory (the block's part, or
            // another's), which bounds the copy.
            let part = |a: u64| {
                self.shared_part(shared.len(), rank, a)
                    .filter(|&(_, off, _)| off.checked_add(bytes).is_some_and(|end| end <= cta))
                    .map(|(start, off, _)| start + off as usize)
            };
            let (src_at, dst_at) = match (ss, ds) {
                (Space::Shared, Space::Shared) => (part(src), part(dst)),
                (Space::Shared, Space::Global) => (part(src), Some(0)),
                (Space::Global, Space::Shared) => (Some(0), part(dst)),
                _ => return Err(trap(TrapReason::IllegalInstruction)),
            };
            if self.check.is_some() {
                let who = Who { ctaid: pos.ctaid, block: linear(pos.ctaid, self.r.grid), thread: pos.base + l as u32 };
                // Shared sides by their offset in the block they name.
                let off =
                    |s: Space, a: u64| if s == Space::Shared { hw::isa::cluster_target(a as u32).1 as u64 } else { a };
                let lens =
                    |s: Space, a: u64| (cta, 0, s == Space::Shared && hw::isa::cluster_target(a as u32).0.is_some());
                let read = D { op: Op::Ld, a: d.b, ..d };
                let write = D { op: Op::St, a: d.a, ..d };
                if !self.checked(read, pc, ss, off(ss, src), bytes, lens(ss, src), &who)
                    || !self.checked(write, pc, ds, off(ds, dst), bytes, lens(ds, dst), &who)
                {
                    out_of_bounds = true;
                    continue;
                }
            }
            let (Some(src_at), Some(dst_at)) = (src_at, dst_at) else {
                return Err(trap(TrapReason::OutOfRange));
            };
            let n = bytes as usize;
            let mut buf = alloc::vec![0u8; n];
            match ss {
                Space::Global => {
                    self.cx.tlb.read_va(self.cx.mem, &self.cx.space, src, &mut buf).map_err(GridError::Fault)?
                }
                _ => buf.copy_from_slice(&shared[src_at..src_at + n]),
            }
            match ds {
                Space::Global => {
                    self.cx.tlb.write_va(self.cx.mem, &self.cx.space, dst, &buf).map_err(GridError::Fault)?
                }
                _ => {
                    shared[dst_at..dst_at + n].copy_from_slice(&buf);
                    self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
                }
            }
            if let Some(p) = self.probe.as_deref_mut() {
                let (space, at) = if ds == Space::Global { (ds, dst) } else { (ss, src) };
                (p.addr[l], p.space[l]) = (at, space);
                most = most.max(bytes);
            }
        }
        self.bulk_done(on, most, out_of_bounds, pc)
    }

    /// The end of a bulk copy by lanes `on`: the timing model's view (`most` bytes a lane
    /// at most), and the grid stopped when memcheck found a lane out of bounds.
    fn bulk_done(&mut self, on: u32, most: u64, out_of_bounds: bool, pc: u32) -> Result<(), GridError> {
        if let Some(p) = self.probe.as_deref_mut() {
            (p.on, p.bytes) = (if most == 0 { 0 } else { on }, most as u32);
        }
        if out_of_bounds {
            return Err(GridError::Trap(Trap { reason: TrapReason::OutOfRange, pc }));
        }
        Ok(())
    }

    /// A multicast bulk copy (`cp.async.bulk....multicast::cluster`, [`hw::isa::BulkMods`])
    /// by each lane of `on`: the bytes at global address b land at the destination's offset
    /// in the shared memory of every block of the cluster whose rank the mask names, and
    /// complete that many bytes of transactions on the mbarrier at the mbarrier's offset in
    /// each of them. Ranks the cluster lacks are ignored.
    fn bulk_multicast(&mut self, d: D, pc: u32, on: u32, pos: WarpPos, m: &mut WarpMem) -> Result<(), GridError> {
        let cta = self.r.shared as u64;
        let (regs, shared) = (&*m.regs, &mut *m.shared);
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let reg = |r: u8, l: usize| if r == RZ { 0 } else { regs[r as usize * 32 + l] };
        let blocks = (shared.len() as u64 / cta.max(1)).min(16);
        let (mut most, mut out_of_bounds) = (0u64, false);
        for l in (0..32usize).filter(|&l| on >> l & 1 == 1) {
            let (a, src, c) = (reg(d.a, l), reg(d.b, l), reg(d.c, l));
            let (dst, bar, bytes, mask) = (a & 0xFFFF_FFFF, a >> 32, c & 0xFFFF_FFFF, (c >> 32) & 0xFFFF);
            if (dst | src | bytes) & 15 != 0 || bar & 7 != 0 {
                return Err(trap(TrapReason::Misaligned));
            }
            // Offsets in a block's shared memory.
            let (dst, bar) =
                (hw::isa::cluster_target(dst as u32).1 as u64, hw::isa::cluster_target(bar as u32).1 as u64);
            let (src_space, src) = self.resolve(Space::Global, src);
            if self.check.is_some() {
                let who = Who { ctaid: pos.ctaid, block: linear(pos.ctaid, self.r.grid), thread: pos.base + l as u32 };
                let read = D { op: Op::Ld, a: d.b, ..d };
                let write = D { op: Op::St, a: d.a, ..d };
                if !self.checked(read, pc, src_space, src, bytes, (cta, 0, false), &who)
                    || !self.checked(write, pc, Space::Shared, dst, bytes, (cta, 0, true), &who)
                {
                    out_of_bounds = true;
                    continue;
                }
            }
            if dst.checked_add(bytes).is_none_or(|end| end > cta) || bar + 8 > cta {
                return Err(trap(TrapReason::OutOfRange));
            }
            let n = bytes as usize;
            let mut buf = alloc::vec![0u8; n];
            self.cx.tlb.read_va(self.cx.mem, &self.cx.space, src, &mut buf).map_err(GridError::Fault)?;
            for k in (0..blocks).filter(|&k| mask >> k & 1 == 1) {
                let part = (k * cta) as usize;
                shared[part + dst as usize..part + dst as usize + n].copy_from_slice(&buf);
                let at = part + bar as usize;
                let mut w = [0u8; 8];
                w.copy_from_slice(&shared[at..at + 8]);
                let done = hw::isa::mbarrier::complete_tx(u64::from_le_bytes(w), bytes);
                shared[at..at + 8].copy_from_slice(&done.to_le_bytes());
            }
            self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
            if let Some(p) = self.probe.as_deref_mut() {
                (p.addr[l], p.space[l]) = (src, Space::Global);
                most = most.max(bytes);
            }
        }
        self.bulk_done(on, most, out_of_bounds, pc)
    }

    /// A uniform constant load (a kernel parameter): read once, broadcast to lanes `on`.
    #[inline]
    fn uniform_const(&mut self, d: D, space: Space, bank: usize, (n, size): (usize, usize), on: u32, regs: &mut [u64]) {
        if let Some(p) = self.probe.as_deref_mut() {
            p.addr = [d.imm; 32];
            p.space = [space; 32];
        }
        let b = self.bank(space, bank);
        for k in 0..n {
            let mut e = [0u8; 8];
            bank_read(b, d.imm.wrapping_add((k * size) as u64), &mut e[..size]);
            let v = extend(d.ty, load_le(&e, size));
            let dst = d.dst as usize + k;
            if d.dst != RZ && dst < 255 {
                put(dst as u8, on, &[v; 32], regs);
            }
        }
    }

    /// The space and window offset of a generic address (shared window, local window, the
    /// cluster's shared memory, or global); any other space is its own. Shared, local and constant addresses are 32
    /// bits wide, as the hardware's: register plus offset wraps there (a register holding
    /// 0xFFFFFFC4 plus an offset of 64 is shared offset 4).
    #[inline(always)]
    fn resolve(&self, space: Space, addr: u64) -> (Space, u64) {
        let (sw, lw) = (self.r.shared_window, self.r.local_window);
        match space {
            Space::Generic if addr.wrapping_sub(sw) < WINDOW_SIZE && sw != 0 => (Space::Shared, addr - sw),
            Space::Generic if addr.wrapping_sub(lw) < WINDOW_SIZE && lw != 0 => (Space::Local, addr - lw),
            // A cluster's shared memory: rank by rank, each as its `.shared::cluster` address.
            Space::Generic
                if addr.wrapping_sub(self.r.cluster_window) < hw::isa::CLUSTER_WINDOW_BYTES
                    && self.r.cluster_window != 0 =>
            {
                let o = addr - self.r.cluster_window;
                let bits = hw::isa::CLUSTER_WINDOW_RANK_BITS;
                (Space::Shared, hw::isa::cluster_address((o >> bits) as u32, (o & ((1 << bits) - 1)) as u32) as u64)
            }
            Space::Generic => (Space::Global, addr),
            Space::Global => (Space::Global, addr),
            s => (s, addr & 0xFFFF_FFFF),
        }
    }

    /// The constant bank a `Const` (bank 0) or `ConstBank` (bank `bank`) access reads.
    #[inline(always)]
    fn bank(&self, space: Space, bank: usize) -> &[u8] {
        if space == Space::Const { &self.banks[0] } else { &self.banks[bank] }
    }

    /// Read `buf.len()` bytes at `addr` of constant bank 0 (`Const`) or `bank`; bytes beyond
    /// the bound size read as zero.
    #[inline(always)]
    fn const_read(&self, space: Space, bank: usize, addr: u64, buf: &mut [u8]) {
        bank_read(self.bank(space, bank), addr, buf);
    }

    /// One lane's atomic at `addr` of `space` (global, or shared through `window`): read,
    /// modify, write; the old value goes to the destination register.
    #[inline(never)]
    fn atomic(
        &mut self,
        d: D,
        pc: u32,
        (l, space, addr): (usize, Space, u64),
        window: Option<&mut [u8]>,
        regs: &mut [u64],
    ) -> Result<(), GridError> {
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let size = d.ty.bytes() as usize;
        let aop = AtomMods::op(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
        let mut old = [0u8; 8];
        match space {
            Space::Global => {
                self.cx.tlb.read_va(self.cx.mem, &self.cx.space, addr, &mut old[..size]).map_err(GridError::Fault)?
            }
            Space::Shared => {
                let w = window.as_deref().ok_or(trap(TrapReason::IllegalInstruction))?;
                old[..size]
                    .copy_from_slice(w.get(addr as usize..addr as usize + size).ok_or(trap(TrapReason::OutOfRange))?);
            }
            _ => return Err(trap(TrapReason::IllegalInstruction)),
        }
        let o = u64::from_le_bytes(old);
        let b = if d.b == RZ { 0 } else { regs[d.b as usize * 32 + l] };
        let c = if d.c == RZ { 0 } else { regs[d.c as usize * 32 + l] };
        let new = atom(aop, d.ty, o, b, c);
        let nb = new.to_le_bytes();
        let changed = nb[..size] != old[..size];
        match space {
            // An atomic that leaves the value as it was (a failed compare-and-swap, an add of
            // 0) writes nothing, so a spin on it is seen as one; the page must still take
            // writes.
            Space::Global if !changed => {
                self.cx.tlb.translate(self.cx.mem, &self.cx.space, addr, true).map_err(GridError::Fault)?;
            }
            Space::Global => {
                self.cx.tlb.write_va(self.cx.mem, &self.cx.space, addr, &nb[..size]).map_err(GridError::Fault)?
            }
            _ if !changed => {}
            _ => {
                if let Some(w) = window {
                    w[addr as usize..addr as usize + size].copy_from_slice(&nb[..size]);
                }
                self.cx.mem.epoch = self.cx.mem.epoch.wrapping_add(1);
            }
        }
        if d.dst != RZ {
            regs[d.dst as usize * 32 + l] = o;
        }
        Ok(())
    }

    /// The sanitizer's checks of one lane's access (`lens`: the block's shared bytes and
    /// the thread's local bytes); false when memcheck refuses it.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn checked(
        &mut self,
        d: D,
        pc: u32,
        space: Space,
        addr: u64,
        bytes: u64,
        (shared_len, local_len, remote): (u64, u64, bool),
        who: &Who,
    ) -> bool {
        let Some(chk) = self.check.as_deref_mut() else { return true };
        let mode = chk.mode();
        let access = match d.op {
            Op::Ld => AccessKind::Read,
            Op::St => AccessKind::Write,
            _ => AccessKind::Atomic,
        };
        let cx = &mut *self.cx;
        let rec = |kind| {
            let mut r = crate::check::record(kind, space, access, pc, who);
            (r.addr, r.size) = (addr, bytes as u32);
            r
        };
        if mode.memcheck() {
            let window = |len: u64| addr.checked_add(bytes).is_none_or(|end| end > len).then_some((0, len));
            // The allocation the base pointer came from, if it is known to come from one.
            let prov = (d.a != RZ)
                .then(|| {
                    let (warp, lane) = ((who.thread / 32) as usize, (who.thread % 32) as usize);
                    let at = warp * self.nregs * 32 + d.a as usize * 32 + lane;
                    self.bcheck.as_ref().and_then(|b| b.prov.get(at).copied())
                })
                .flatten()
                .unwrap_or(0);
            let bad = match space {
                Space::Global if prov != 0 => chk.outside_of(prov, addr, bytes),
                Space::Global => chk.outside(addr, bytes),
                Space::Shared => window(shared_len),
                Space::Local => window(local_len),
                _ => None,
            };
            if let Some((base, size)) = bad {
                let mut r = rec(CheckKind::OutOfBounds);
                (r.other, r.other_pc) = (base, size.min(u32::MAX as u64) as u32);
                chk.report(cx.mem, cx.tlb, &cx.space, r);
                return false;
            }
        }
        if mode.initcheck()
            && space == Space::Global
            && access != AccessKind::Write
            && let Ok((target, pa)) = cx.tlb.translate(cx.mem, &cx.space, addr, false)
            && match target {
                hw::regs::Target::Vram => cx.mem.shadow.as_ref().is_some_and(|s| !s.written(pa, bytes)),
                // Another GPU's VRAM: by its shadow, lent with it.
                hw::regs::Target::Peer => !cx.mem.peers.written(pa, bytes),
                _ => false,
            }
        {
            chk.report(cx.mem, cx.tlb, &cx.space, rec(CheckKind::Uninitialized));
        }
        if mode.racecheck() && access != AccessKind::Atomic && !remote {
            let write = access == AccessKind::Write;
            let int = self.bcheck.as_ref().map_or(0, |b| b.interval);
            let found = match space {
                Space::Global => chk.global_race(addr, bytes, write, pc, who, int),
                Space::Shared => self.bcheck.as_deref_mut().and_then(|b| b.shared_race(addr, bytes, write, pc, who)),
                _ => None,
            };
            if let Some((hazard, t, block, other_pc)) = found {
                let mut r = rec(CheckKind::Race);
                (r.hazard, r.other, r.other_pc) = (hazard, (block as u64) << 32 | (t - 1) as u64, other_pc);
                chk.report(cx.mem, cx.tlb, &cx.space, r);
            }
        }
        true
    }
}
