//! Register allocation, as ptxas counts registers: in 32-bit units (a 64-bit value takes an
//! even-aligned pair), with predicates in their own file (`P0..P6`, not counted).
//!
//! 1. Liveness: a dataflow over the basic blocks on virtual registers (the PTX registers,
//!    then the vector group and the scratch registers instruction selection used).
//! 2. Live ranges: every definition of a virtual register starts a node; the nodes that
//!    reach a common use are united (union-find), so each virtual register splits into its
//!    independent live ranges ("webs"): a scratch register used by every instruction is
//!    many short ranges, a PTX register reused for two values is two.
//! 3. Interference: a range defined at a point conflicts with every range live there.
//! 4. Colouring in order of first appearance: predicate ranges into `P0..P6` (into general
//!    registers when those are taken), the rest onto the lowest free aligned units. A range
//!    live across a call sits above the registers of the functions called.
//!
//! Spilling, when PTX declares more registers than fit, happens before (`crate::spill`).

#![allow(clippy::needless_range_loop)] // loops walk several parallel per-instruction and per-block tables

use super::{Kc, SCRATCH_REGS, cfg};
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{
    ALWAYS, ConstRef, Imm, Instr, MAX_GPRS, MulMode, Op, PRED_BASE, PREDS, RZ, Sreg, Ty, Word0, group_lengths,
};

mod narrow;
mod schedule;
mod temps;
use narrow::narrow;
use temps::sequence_temps;

/// Scratch registers after the PTX registers: the first two runs of [`VEC_GROUP`] are the
/// vector groups (the registers of one vector load or store, or a texture access's texel
/// and coordinates: consecutive), the rest hold immediates, special registers and
/// expansions inside one PTX instruction.
pub(crate) const VEC_GROUP: u32 = 4;

/// The destination's place among the register fields [`fields`] returns.
const DST: usize = 1;

/// The five register fields (guard, dst, a, b, c).
fn fields(w: &Word0) -> [u8; 5] {
    [w.guard(), w.dst(), w.a(), w.b(), w.c()]
}

fn set_field(w: &mut Word0, f: usize, r: u8) {
    match f {
        0 => w.set_guard(r),
        1 => w.set_dst(r),
        2 => w.set_a(r),
        3 => w.set_b(r),
        _ => w.set_c(r),
    }
}

/// Which register fields of `i` are read and whether `dst` is written.
fn reads_writes(i: &Instr) -> ([bool; 5], bool) {
    let w = i.w0;
    let imm = w.imm();
    let op = w.op();
    let writes = !matches!(op, Op::St | Op::Sust);
    let guarded = w.guard() != ALWAYS;
    // A guarded write keeps the old value in lanes it skips: it also reads.
    ([true, writes && guarded, imm != Imm::A, imm != Imm::B, imm != Imm::C], writes)
}

/// How many 32-bit units the value an instruction writes takes (1 or 2), and whether it
/// is a predicate.
fn dest_kind(i: &Instr) -> (u32, bool) {
    let w = i.w0;
    let ty = w.ty();
    match w.op() {
        Op::Setp => (1, true),
        Op::S2r => (if i.imm == Sreg::Clock64 as u64 || i.imm == Sreg::GlobalTimer as u64 { 2 } else { 1 }, false),
        Op::Mul | Op::Mad if w.m() & 3 == MulMode::Wide as u16 => (2, false),
        Op::Mov if w.imm() == Imm::A && w.a() != RZ => {
            (ConstRef::of_field(w.a()).map_or(2, |c| c.bytes().div_ceil(4)), false)
        }
        Op::Mov if w.imm() == Imm::A && ty.bytes() > 4 => (if i.imm <= u32::MAX as u64 { 1 } else { 2 }, false),
        _ if ty == Ty::Pred => (1, true),
        _ => (if ty.bytes() > 4 { 2 } else { 1 }, false),
    }
}

/// Union-find over live-range nodes.
struct Sets(Vec<u32>);

impl Sets {
    fn add(&mut self) -> u32 {
        self.0.push(self.0.len() as u32);
        self.0.len() as u32 - 1
    }
    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let p = self.0[x as usize];
            self.0[x as usize] = self.0[p as usize];
            x = p;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b) as usize] = a.min(b);
        }
    }
}

const NONE: u32 = u32::MAX;

/// One live range to colour.
#[derive(Clone, Copy, Default)]
struct Range {
    /// 32-bit units it takes (a vector group: all its elements).
    units: u32,
    /// Device registers it spans (a vector group: its elements; otherwise 1).
    span: u32,
    /// Every definition is a predicate.
    pred: bool,
    /// Some definition is not a predicate.
    general: bool,
    /// Live across a call: must stay clear of the callees' registers.
    across_call: bool,
    /// First instruction it appears at (colouring order).
    first: usize,
    /// Last instruction it appears at.
    last: usize,
    /// That instruction reads its operands late (a memory access, the multi-function unit).
    slow_end: bool,
    /// A shuffle writes it: ptxas gives that a register not read in the last `COOL`
    /// instructions (a reduction's shuffles rotate through registers: warp_reduce for
    /// sm_90 takes R3, R0, R5, R4, R7).
    slow_start: bool,
}

/// What [`Kc::allocate`] found: registers the code occupies.
pub(crate) struct Allocation {
    /// General registers, in 32-bit units, including the callees' (`R0..`).
    pub(crate) gprs: u32,
    /// Predicate registers, including the callees'.
    pub(crate) preds: u32,
}

impl Kc<'_> {
    /// Allocate the registers of the code from `self.start`: virtual registers `0..nregs`
    /// are PTX registers, `nregs..nregs + SCRATCH_REGS` scratch (the first [`VEC_GROUP`]
    /// the vector group). Rewrites every register field to a device register; `None` when
    /// the values do not fit in [`MAX_GPRS`] registers.
    pub(crate) fn allocate(&mut self, nregs: u32) -> Option<Allocation> {
        let start = self.start as usize;
        if self.schedule {
            // Scheduled first; when that does not fit, in the PTX's order.
            let kept = (self.prog.code[start..].to_vec(), self.prog.lines[start..].to_vec(), self.prog.relocs.clone());
            if let Some(a) = self.allocate_in(nregs, true) {
                return Some(a);
            }
            self.prog.code.truncate(start);
            self.prog.code.extend(kept.0);
            self.prog.lines.truncate(start);
            self.prog.lines.extend(kept.1);
            self.prog.relocs = kept.2;
        }
        self.allocate_in(nregs, false)
    }

    /// [`Kc::allocate`], the code scheduled first or not.
    fn allocate_in(&mut self, nregs: u32, schedule: bool) -> Option<Allocation> {
        let start = self.start as usize;
        let mut code: Vec<Instr> = self.prog.code[start..].to_vec();
        let mut ops = Operands::of(&code, nregs);
        let (starts, succ) = cfg(&code, start);
        let bl = Blocks { starts, succ, len: code.len() };
        let (live_in, live_out) = liveness(&bl, &ops);
        let mut webs = live_ranges(&ops, &bl, &live_in);
        if schedule {
            let labels: Vec<usize> = self.labels.values().filter_map(|&l| (l as usize).checked_sub(start)).collect();
            if let Some(order) = schedule::order(&code, start, &ops, &webs, &labels) {
                self.reorder(start, &order, &mut code, &mut ops, &mut webs);
            }
        }
        // Sizes and kinds: PTX registers by their declared type, the rest by what writes
        // them; the vector group by its widest access.
        let mut declared = vec![None; ops.nv];
        for (r, ty) in self.regs.values() {
            if (*r as usize) < nregs as usize && !ty.is_empty() {
                let wide = matches!(ty.as_str(), "b64" | "u64" | "s64" | "f64");
                declared[*r as usize] = Some((if wide { 2 } else { 1 }, ty == "pred"));
            }
        }
        // Where each range first and last appears, in the final order (colouring goes by
        // first appearance).
        for r in webs.ranges.iter_mut() {
            (r.first, r.last) = (usize::MAX, 0);
        }
        for (p, f) in webs.field_node.iter().enumerate() {
            for &n in f.iter().filter(|&&n| n != NONE) {
                let r = &mut webs.ranges[webs.range_of[n as usize] as usize];
                (r.first, r.last) = (r.first.min(p), r.last.max(p));
            }
        }
        for r in webs.ranges.iter_mut() {
            let op = code[r.last.min(code.len() - 1)].w0.op();
            r.slow_end = op.accesses_memory() || op.multi_function() || matches!(op, Op::Shfl | Op::Div | Op::Rem);
            let op = code[r.first.min(code.len() - 1)].w0.op();
            r.slow_start = matches!(op, Op::Shfl);
        }
        size_ranges(&code, &ops, &mut webs, &declared);
        narrow(&code, &ops, &mut webs);
        let temps = sequence_temps(&code, &mut webs);
        let adj = interference(&code, &ops, &bl, &mut webs, &live_out, &temps);
        let (callee_gprs, callee_preds) = (self.reg_base, self.pred_base);
        let color = |units_on: bool| color(&webs.ranges, &adj, units_on, callee_gprs, callee_preds);
        // Units first; a kernel too large for that gets one register per value.
        let (place, gprs, preds) = color(true).or_else(|| color(false))?;
        for (p, i) in self.prog.code[start..].iter_mut().enumerate() {
            let f = fields(&i.w0);
            for k in 0..5 {
                let n = webs.field_node[p][k];
                if n == NONE {
                    continue;
                }
                let elem = ops.vreg(f[k]).map_or(0, |(_, e)| e);
                let phys = place[webs.range_of[n as usize] as usize].saturating_add(elem);
                set_field(&mut i.w0, k, phys);
            }
        }
        Some(Allocation { gprs: gprs.max(callee_gprs), preds: preds.max(callee_preds) })
    }
}

impl Kc<'_> {
    /// Put the code from `start` in `order` (old indices in their new places), its
    /// operands, live ranges' fields, line table and relocations with it.
    fn reorder(&mut self, start: usize, order: &[usize], code: &mut Vec<Instr>, ops: &mut Operands, webs: &mut Webs) {
        fn perm<T: Copy>(v: &mut Vec<T>, order: &[usize]) {
            let old = core::mem::take(v);
            v.extend(order.iter().map(|&p| old[p]));
        }
        perm(code, order);
        perm(&mut ops.reads, order);
        perm(&mut ops.writes, order);
        perm(&mut webs.field_node, order);
        let lines = self.prog.lines[start..].to_vec();
        let mut new_at = vec![0u32; order.len()];
        for (k, &p) in order.iter().enumerate() {
            self.prog.code[start + k] = code[k];
            self.prog.lines[start + k] = lines[p];
            new_at[p] = (start + k) as u32;
        }
        for r in self.prog.relocs.iter_mut() {
            if let Some(p) = (r.at as usize).checked_sub(start).filter(|&p| p < order.len()) {
                r.at = new_at[p];
            }
        }
    }
}

/// The code's register operands as the allocator sees them.
struct Operands {
    /// Per instruction: (virtual register, element) of each field read. A write to a group
    /// element other than the first, or a guarded write, is partial: dst is read too.
    reads: Vec<[Option<(usize, u8)>; 5]>,
    /// Per instruction: (virtual register, element) of dst when written.
    writes: Vec<Option<(usize, u8)>>,
    /// The first vector group's virtual register (the second follows it).
    group: usize,
    /// Virtual registers.
    nv: usize,
}

impl Operands {
    fn of(code: &[Instr], nregs: u32) -> Operands {
        let mut ops = Operands {
            reads: Vec::new(),
            writes: Vec::new(),
            group: nregs as usize,
            nv: (nregs + SCRATCH_REGS) as usize,
        };
        for i in code {
            let f = fields(&i.w0);
            let (rd, wr) = reads_writes(i);
            let mut r = [None; 5];
            for k in 0..5 {
                if rd[k] {
                    r[k] = ops.vreg(f[k]);
                }
            }
            let w = if wr { ops.vreg(f[DST]) } else { None };
            if let Some((v, e)) = w
                && ops.is_group(v)
                && e > 0
            {
                r[DST] = Some((v, e));
            }
            ops.reads.push(r);
            ops.writes.push(w);
        }
        ops
    }

    /// A field's virtual register, the vector groups' elements folded into their group.
    fn vreg(&self, r: u8) -> Option<(usize, u8)> {
        let (r, g, n) = (r as usize, self.group, VEC_GROUP as usize);
        if r == RZ as usize || r >= self.nv {
            None
        } else if r >= g && r < g + 2 * n {
            let first = g + (r - g) / n * n;
            Some((first, (r - first) as u8))
        } else {
            Some((r, 0))
        }
    }

    /// Whether virtual register `v` is a vector group.
    fn is_group(&self, v: usize) -> bool {
        v == self.group || v == self.group + VEC_GROUP as usize
    }
}

/// Basic blocks: first instructions and successors (`starts.len()` is the exit).
struct Blocks {
    starts: Vec<usize>,
    succ: Vec<Vec<usize>>,
    /// Instructions.
    len: usize,
}

impl Blocks {
    fn count(&self) -> usize {
        self.starts.len()
    }
    fn span(&self, b: usize) -> core::ops::Range<usize> {
        self.starts[b]..self.starts.get(b + 1).copied().unwrap_or(self.len)
    }
}

/// The live ranges of the code.
struct Webs {
    /// Per instruction and field: the node (a definition, or a block's live-in value).
    field_node: Vec<[u32; 5]>,
    /// Each node's range.
    range_of: Vec<u32>,
    ranges: Vec<Range>,
    /// Per block: each virtual register's node at its end.
    block_out: Vec<Vec<u32>>,
}

/// Nodes per definition and per (block, live-in register), united where a value flows.
fn live_ranges(ops: &Operands, bl: &Blocks, live_in: &[VSet]) -> Webs {
    let nb = bl.count();
    let mut sets = Sets(Vec::new());
    let mut field_node = vec![[NONE; 5]; bl.len];
    let mut first: Vec<usize> = Vec::new();
    let mut block_in = vec![Vec::<(usize, u32)>::new(); nb];
    let mut block_out = vec![Vec::new(); nb];
    for b in 0..nb {
        let mut cur = vec![NONE; ops.nv];
        for v in live_in[b].iter() {
            let n = sets.add();
            first.push(bl.starts[b]);
            cur[v] = n;
            block_in[b].push((v, n));
        }
        for p in bl.span(b) {
            for k in 0..5 {
                if let Some((v, _)) = ops.reads[p][k] {
                    if cur[v] == NONE {
                        // Read before any definition (an uninitialized register).
                        cur[v] = sets.add();
                        first.push(p);
                    }
                    field_node[p][k] = cur[v];
                }
            }
            if let Some((v, _)) = ops.writes[p] {
                let n = sets.add();
                first.push(p);
                // A partial write continues the range it reads.
                if ops.reads[p][DST].is_some_and(|(u, _)| u == v) {
                    sets.union(n, field_node[p][DST]);
                }
                cur[v] = n;
                field_node[p][DST] = n;
            }
        }
        block_out[b] = cur;
    }
    for b in 0..nb {
        for &s in bl.succ[b].iter().filter(|&&s| s < nb) {
            for &(v, n) in &block_in[s] {
                if block_out[b][v] != NONE {
                    sets.union(block_out[b][v], n);
                }
            }
        }
    }
    // Dense range ids.
    let nn = first.len();
    let mut id = vec![NONE; nn];
    let mut ranges: Vec<Range> = Vec::new();
    let mut range_of = vec![0u32; nn];
    for n in 0..nn {
        let root = sets.find(n as u32) as usize;
        if id[root] == NONE {
            id[root] = ranges.len() as u32;
            ranges.push(Range { first: usize::MAX, ..Range::default() });
        }
        range_of[n] = id[root];
        let r = &mut ranges[id[root] as usize];
        r.first = r.first.min(first[n]);
    }
    Webs { field_node, range_of, ranges, block_out }
}

/// Each range's units, span and kind; `declared` holds the (units, predicate) of PTX
/// registers declared with a type.
fn size_ranges(code: &[Instr], ops: &Operands, webs: &mut Webs, declared: &[Option<(u32, bool)>]) {
    for (p, i) in code.iter().enumerate() {
        let op = i.w0.op();
        let wide = matches!(op, Op::Ld | Op::St | Op::Suld | Op::Sust) && i.w0.ty().bytes() > 4;
        // Registers of each field (guard, dst, a, b, c) taken as a group.
        let (d, a, b) = group_lengths(op, i.w0.m()).unwrap_or((1, 1, 1));
        let lens = [1, d, a, b, 1];
        for k in 0..5 {
            let n = webs.field_node[p][k];
            let written = k == DST && ops.writes[p].is_some();
            let v = if written { ops.writes[p] } else { ops.reads[p][k] };
            let (Some((v, _)), false) = (v, n == NONE) else { continue };
            let (units, span, pred) = if ops.is_group(v) {
                let n = lens[k];
                (n * if wide { 2 } else { 1 }, n, false)
            } else if let Some((u, pred)) = declared[v] {
                (u, 1, pred)
            } else if written {
                let (u, pred) = dest_kind(i);
                (u, 1, pred)
            } else {
                (1, 1, false)
            };
            let rg = &mut webs.ranges[webs.range_of[n as usize] as usize];
            rg.units = rg.units.max(units);
            rg.span = rg.span.max(span);
            if written || declared[v].is_some() {
                if pred {
                    rg.pred = true;
                } else {
                    rg.general = true;
                }
            }
        }
    }
}

/// The interference graph (a range defined at a point conflicts with every range live
/// there, a sequence's registers with every range live at its instruction and with each
/// other), and which ranges are live across a call. Liveness inside a block goes by range,
/// not by register: after scheduling, two ranges of one virtual register may overlap.
fn interference(
    code: &[Instr],
    ops: &Operands,
    bl: &Blocks,
    webs: &mut Webs,
    live_out: &[VSet],
    temps: &[(usize, u32, u32)],
) -> Vec<Vec<u32>> {
    let nr = webs.ranges.len();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); nr];
    let range = |webs: &Webs, n: u32| webs.range_of[n as usize];
    // The live ranges: a membership table and a list (compacted as ranges die).
    let mut is_live = vec![false; nr];
    let mut live: Vec<u32> = Vec::new();
    for b in 0..bl.count() {
        for &r in &live {
            is_live[r as usize] = false;
        }
        live.clear();
        for v in live_out[b].iter() {
            let r = range(webs, webs.block_out[b][v]);
            if !is_live[r as usize] {
                is_live[r as usize] = true;
                live.push(r);
            }
        }
        for p in bl.span(b).rev() {
            if code[p].w0.op() == Op::Call {
                for &r in &live {
                    webs.ranges[r as usize].across_call = true;
                }
            }
            if ops.writes[p].is_some() {
                let d = range(webs, webs.field_node[p][DST]);
                for &r in live.iter().filter(|&&r| r != d) {
                    adj[d as usize].push(r);
                    adj[r as usize].push(d);
                }
                if is_live[d as usize] {
                    is_live[d as usize] = false;
                    live.retain(|&r| r != d);
                }
            }
            for k in 0..5 {
                if ops.reads[p][k].is_some() {
                    let r = range(webs, webs.field_node[p][k]);
                    if !is_live[r as usize] {
                        is_live[r as usize] = true;
                        live.push(r);
                    }
                }
            }
            if let Ok(t) = temps.binary_search_by_key(&p, |t| t.0) {
                let (_, first, n) = temps[t];
                let dst = ops.writes[p].map(|_| range(webs, webs.field_node[p][DST]));
                for t in first..first + n {
                    for r in live.iter().copied().chain(dst).chain(first..t) {
                        adj[t as usize].push(r);
                        adj[r as usize].push(t);
                    }
                }
            }
        }
        if b == 0 {
            // Registers read before any write share the entry: keep them apart.
            for (x, &r) in live.iter().enumerate() {
                for &q in live[x + 1..].iter().filter(|&&q| q != r) {
                    adj[r as usize].push(q);
                    adj[q as usize].push(r);
                }
            }
        }
    }
    adj
}

/// A set of virtual registers (at most 255).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct VSet([u64; 4]);

impl VSet {
    fn set(&mut self, v: usize) {
        self.0[v / 64] |= 1 << (v % 64);
    }
    fn has(&self, v: usize) -> bool {
        self.0[v / 64] >> (v % 64) & 1 == 1
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..256).filter(|&v| self.has(v))
    }
    fn or(&mut self, o: &VSet) {
        for w in 0..4 {
            self.0[w] |= o.0[w];
        }
    }
}

/// Registers live into and out of each block.
fn liveness(bl: &Blocks, ops: &Operands) -> (Vec<VSet>, Vec<VSet>) {
    let nb = bl.count();
    let mut gen_ = vec![VSet::default(); nb];
    let mut kill = vec![VSet::default(); nb];
    for b in 0..nb {
        for p in bl.span(b) {
            for (v, _) in ops.reads[p].iter().flatten() {
                if !kill[b].has(*v) {
                    gen_[b].set(*v);
                }
            }
            if let Some((v, _)) = ops.writes[p] {
                kill[b].set(v);
            }
        }
    }
    let mut live_in = vec![VSet::default(); nb];
    let mut live_out = vec![VSet::default(); nb];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut out = VSet::default();
            for &s in bl.succ[b].iter().filter(|&&s| s < nb) {
                out.or(&live_in[s]);
            }
            let mut inn = out;
            for w in 0..4 {
                inn.0[w] = gen_[b].0[w] | (out.0[w] & !kill[b].0[w]);
            }
            if inn != live_in[b] || out != live_out[b] {
                live_in[b] = inn;
                live_out[b] = out;
                changed = true;
            }
        }
    }
    (live_in, live_out)
}

/// Instructions after a memory access or a multi-function-unit operation during which the
/// registers it last read are not given to a new value while another is free. Such an
/// instruction reads its operands after it issues, so ptxas does not write them soon after
/// (that would wait on the read); its code shows it (vecadd for sm_80 puts the sum in R9
/// with the loads' address registers free). Chosen on `kernels/` against ptxas 12.9:
/// mean |ln(rgdev / ptxas)| 0.125 at 6, 0.145 without.
const COOL: usize = 6;

/// Units no value takes: R1, NVIDIA's ABI's stack pointer. Values sit where ptxas puts
/// them (R0, then R2 up; pairs even-aligned), so the highest register used is ptxas's
/// count of its code (see `abi_regs`).
const RESERVED: u64 = 1 << 1;

/// Colour the ranges: each range's device register (a predicate register is
/// `PRED_BASE + k`), general units used, predicate registers used. With `units_on` off,
/// every value takes one register (the fallback for kernels too large for pairs).
fn color(
    ranges: &[Range],
    adj: &[Vec<u32>],
    units_on: bool,
    callee_gprs: u32,
    callee_preds: u32,
) -> Option<(Vec<u8>, u32, u32)> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&r| ranges[r].first);
    // Units each range occupies: (first unit, count) or a predicate index.
    #[derive(Clone, Copy)]
    enum At {
        No,
        Gpr(u32, u32),
        Pred(u32),
    }
    let mut at = vec![At::No; ranges.len()];
    let (mut gprs, mut preds) = (0u32, 0u32);
    for r in order {
        let rg = ranges[r];
        let mut busy = [RESERVED, 0, 0, 0];
        let mut pbusy = 0u32;
        for &q in &adj[r] {
            match at[q as usize] {
                At::Gpr(s, n) => {
                    for u in s..s + n {
                        busy[u as usize / 64] |= 1 << (u % 64);
                    }
                }
                At::Pred(k) => pbusy |= 1 << k,
                At::No => {}
            }
        }
        if rg.pred && !rg.general {
            let lo = if rg.across_call { callee_preds } else { 0 };
            if let Some(k) = (lo..PREDS as u32).find(|k| pbusy >> k & 1 == 0) {
                at[r] = At::Pred(k);
                preds = preds.max(k + 1);
                continue;
            }
        }
        let n = if units_on { rg.units.max(rg.span).max(1) } else { rg.span.max(1) };
        let align = if units_on && n >= 2 { 2 } else { 1 };
        let lo = if rg.across_call { callee_gprs.next_multiple_of(align) } else { 0 };
        let free = |s: u32| (s..s + n).all(|u| busy[u as usize / 64] >> (u % 64) & 1 == 0);
        // Registers whose last read, by an instruction that reads its operands late (or
        // any read, for a shuffle's result), is fewer than COOL instructions before this
        // range starts: taken only when nothing else is free.
        let mut cool = [0u64; 4];
        for (q, a) in at.iter().enumerate() {
            if let At::Gpr(s0, n0) = *a
                && (ranges[q].slow_end || rg.slow_start)
                && ranges[q].last < rg.first
                && ranges[q].last + COOL >= rg.first
            {
                for u in s0..s0 + n0 {
                    cool[u as usize / 64] |= 1 << (u % 64);
                }
            }
        }
        let warm = |s: u32| (s..s + n).all(|u| cool[u as usize / 64] >> (u % 64) & 1 == 0);
        let cands = || (lo..=MAX_GPRS.saturating_sub(n)).step_by(align as usize);
        let s = cands().find(|&s| free(s) && warm(s)).or_else(|| cands().find(|&s| free(s)))?;
        at[r] = At::Gpr(s, n);
        gprs = gprs.max(s + n);
    }
    let place = at
        .iter()
        .map(|a| match *a {
            At::Gpr(s, _) => s as u8,
            At::Pred(k) => PRED_BASE + k as u8,
            At::No => RZ,
        })
        .collect();
    Some((place, gprs, preds))
}

pub(crate) fn uty(bits: u32) -> Ty {
    match bits {
        8 => Ty::U8,
        16 => Ty::U16,
        32 => Ty::U32,
        _ => Ty::U64,
    }
}

pub(crate) fn wider(t: Ty) -> Ty {
    match t {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Kernel, Options, compile_ptx_with};
    use super::*;
    use alloc::format;
    use alloc::string::String;

    const HDR: &str = ".version 6.0\n.target sm_70\n.address_size 64\n.shared .align 4 .b8 sh[1024];\n";

    fn kernel(body: &str) -> Kernel {
        // The PTX's order: these test the colouring, not the scheduler.
        let opts = Options { schedule: false, ..Options::default() };
        let p = compile_ptx_with(&format!("{HDR}.entry k(.param .u64 p)\n{{\n{body}\n ret;\n}}\n"), &opts).unwrap();
        p.kernels[0].clone()
    }

    /// Ptxas 12.9 `-arch=sm_70` figures for the same kernels, for comparison: 4, 12, 8, 6
    /// and 8 registers. Both leave R1 (the ABI's stack pointer) free and count two
    /// registers above the highest used (`abi_regs`), here `+ ABI`.
    #[test]
    fn registers_are_counted_as_ptxas_counts_them() {
        const ABI: u32 = 2;
        // A kernel with no values has the ABI's alone: R0, R1 and two.
        assert_eq!((kernel("").regs, kernel("").pred_regs), (4, 0));
        // A 64-bit pointer is an even-aligned pair (R2:R3, R1 being reserved); a PTX
        // register reused for a second value is two live ranges. %r2 would fit the hole
        // between them, but the store that last read %r1 reads it late (`COOL`): R0, R2:R3,
        // R4, R5.
        let split = kernel(
            " .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n mov.u32 %r1, %tid.x;\n\
             st.global.u32 [%rd1], %r1;\n mov.u32 %r2, %ctaid.x;\n st.global.u32 [%rd1+4], %r2;\n\
             mov.u32 %r1, %ntid.x;\n st.global.u32 [%rd1+8], %r1;",
        );
        assert_eq!(split.regs, 6 + ABI);
        // Predicates live in P0..P6 and are not counted: R0, R2:R3.
        let preds = kernel(
            " .reg .pred %p<3>;\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n\
             mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 7;\n setp.gt.u32 %p2, %r1, 2;\n\
             @%p1 st.global.u32 [%rd1], %r1;\n @%p2 st.global.u32 [%rd1+4], %r1;",
        );
        assert_eq!((preds.regs, preds.pred_regs), (4 + ABI, 2));
        // A 64-bit shared address uses only its low 32 bits: one unit each (the symbol's
        // address itself is an immediate operand, no register): R0, R2.
        let shaddr = kernel(
            " .reg .b32 %r<3>;\n .reg .b64 %rd<5>;\n mov.u32 %r1, %tid.x;\n mov.u64 %rd2, sh;\n\
             mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd4, %rd2, %rd3;\n st.shared.u32 [%rd4], %r1;",
        );
        assert_eq!(shaddr.regs, 3 + ABI);
        // The same address stored to memory needs every bit: a pair again (as ptxas: 8).
        let stored = kernel(
            " .reg .b32 %r<3>;\n .reg .b64 %rd<5>;\n ld.param.u64 %rd1, [p];\n mov.u32 %r1, %tid.x;\n\
             mov.u64 %rd2, sh;\n mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd4, %rd2, %rd3;\n\
             st.global.u64 [%rd1], %rd4;",
        );
        assert_eq!(stored.regs, 6 + ABI, "R0, rd1 in R2:R3, rd3 then rd4 in R4:R5 (sh is an immediate)");
    }

    #[test]
    fn more_than_seven_live_predicates_go_to_general_registers() {
        let mut body = String::from(
            " .reg .pred %p<10>;\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n mov.u32 %r1, %tid.x;\n",
        );
        for k in 0..9 {
            body += &format!(" setp.gt.u32 %p{k}, %r1, {k};\n");
        }
        for k in 0..9 {
            body += &format!(" @%p{k} st.global.u32 [%rd1+{}], %r1;\n", 4 * k);
        }
        let k = kernel(&body);
        assert_eq!(k.pred_regs, PREDS as u32);
        assert_eq!(k.regs, 4 + 2 + 2, "R0, R2:R3, two predicates in R4 and R5, and the ABI's 2");
    }
}
