//! Instruction scheduling before register allocation, as ptxas schedules: within each run
//! of a basic block between instructions that nothing may cross, a list scheduler issues,
//! cycle by cycle, the ready instruction with the longest latency-weighted path to the
//! run's end; one that adds a live value waits until shortly before its latest cycle
//! ([`WINDOW`]), and once the run holds [`PRESSURE`] registers of values the scheduler
//! issues what adds the fewest, in the order written. Loads
//! and their address arithmetic rise to the top of a block, stores sink to their values,
//! so independent memory accesses are in flight together (the memory-level parallelism
//! of ptxas's code) and the registers the code occupies are the ones ptxas's code does
//! (NVIDIA's `vecadd` for sm_80 computes all three addresses, then issues both loads).
//!
//! The scheduler runs on the code's live ranges (`Webs`), not its register numbers: a
//! scratch register or a PTX register reused for several values is several ranges, and
//! only a range's own reads and writes order each other; the colouring after it gives
//! ranges that now overlap different registers.
//!
//! What may move: arithmetic, loads and stores, ordered by their ranges (a read after
//! the write it reads, a write after the reads and the write before it) and by memory (a
//! load or store after every store before it, a store after every load before it; loads
//! pass loads; constant-bank loads are free). What stays, with nothing crossing it:
//! control flow, calls, barriers, fences, atomics, warp-wide operations, textures and
//! surfaces, device calls, the clocks, and strong loads (`.cg`/`.cv` encode volatile,
//! relaxed and acquire loads too). Labels and reconvergence points bound the runs as well,
//! so every instruction index something names keeps its instruction.

use super::{DST, NONE, Operands, Webs};
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{BranchTarget, CacheOp, Instr, MemMods, Op, Space, Sreg};

/// How an instruction may move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Registers alone order it.
    Free,
    /// A weak load of memory that stores may change.
    Load,
    /// A store (or a load ordered with every access).
    Store,
    /// Nothing crosses it.
    Fixed,
}

fn kind(i: &Instr) -> Kind {
    let w = i.w0;
    match w.op() {
        Op::Ld => match Space::from_bits(w.m()) {
            Some(Space::Const | Space::ConstBank) => Kind::Free,
            _ if matches!(MemMods::cache(w.m()), CacheOp::Global | CacheOp::Volatile) => Kind::Store,
            _ => Kind::Load,
        },
        Op::St => Kind::Store,
        Op::S2r if [Sreg::Clock, Sreg::Clock64, Sreg::GlobalTimer].iter().any(|&s| i.imm == s as u64) => Kind::Fixed,
        Op::Bra
        | Op::Call
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::Bar
        | Op::Membar
        | Op::Atom
        | Op::Shfl
        | Op::Vote
        | Op::Redux
        | Op::Match
        | Op::Mma
        | Op::Tex
        | Op::Tld4
        | Op::Txq
        | Op::Suld
        | Op::Sust
        | Op::Printf
        | Op::Heap
        | Op::Bulk
        | Op::Cluster
        | Op::Nop => Kind::Fixed,
        _ => Kind::Free,
    }
}

/// Cycles until an instruction's result may be used, as the priority sees them: the
/// memory hierarchy's order of magnitude, the multi-function unit's, the pipelines'.
fn latency(i: &Instr) -> u32 {
    let w = i.w0;
    match w.op() {
        Op::Ld => match Space::from_bits(w.m()) {
            Some(Space::Shared) => 30,
            Some(Space::Const | Space::ConstBank) => 20,
            _ => 400,
        },
        Op::Div | Op::Rem | Op::Sqrt | Op::Rcp => 40,
        op if op.multi_function() || op == Op::S2r => 20,
        _ if w.ty().bytes() > 4 => 8,
        _ => 4,
    }
}

/// The order to issue `code` in (`ops` its operands, `webs` its live ranges), or `None`
/// when it stays as it is; `start` is the program index of `code[0]` (branch immediates
/// are program indices), `labels` the indices in `code` labels name.
pub(super) fn order(code: &[Instr], start: usize, ops: &Operands, webs: &Webs, labels: &[usize]) -> Option<Vec<usize>> {
    let n = code.len();
    // Run boundaries: a fixed instruction stands alone; labels, branch targets and
    // reconvergence points start a run.
    let mut cut = vec![false; n + 1];
    let kinds: Vec<Kind> = code.iter().map(kind).collect();
    for (k, i) in code.iter().enumerate() {
        if kinds[k] == Kind::Fixed {
            cut[k] = true;
            cut[k + 1] = true;
        }
        if i.w0.op() == Op::Bra {
            let t = BranchTarget::from(i.imm);
            for x in [t.target(), t.reconverge()] {
                if let Some(x) = (x as usize).checked_sub(start).filter(|&x| x < n) {
                    cut[x] = true;
                }
            }
        }
    }
    for &l in labels {
        if l <= n {
            cut[l] = true;
        }
    }
    // Each field's range.
    let range = |p: usize, k: usize| match webs.field_node[p][k] {
        NONE => None,
        x => Some(webs.range_of[x as usize] as usize),
    };
    // Reads of each range in the whole code: a range all of whose reads are in a run dies
    // at the last of them.
    let mut reads = vec![0u32; webs.ranges.len()];
    for p in 0..n {
        for r in (0..5).filter(|&k| ops.reads[p][k].is_some()).filter_map(|k| range(p, k)) {
            reads[r] += 1;
        }
    }
    let mut units = vec![1u32; webs.ranges.len()];
    for p in 0..n {
        if let Some(w) = ops.writes[p].and(range(p, DST)) {
            units[w] = units[w].max(super::dest_kind(&code[p]).0);
        }
    }
    let cx = Cx { code, kinds: &kinds, ops, range: &range, reads: &reads, units: &units };
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut a = 0;
    while a < n {
        let mut b = a + 1;
        while b < n && !cut[b] && b - a < MAX_RUN {
            b += 1;
        }

        if kinds[a] == Kind::Fixed || b - a < 3 {
            order.extend(a..b);
        } else {
            run(&cx, a, b, &mut order);
        }
        a = b;
    }
    (!order.iter().enumerate().all(|(k, &p)| k == p)).then_some(order)
}

/// The 32-bit registers a run's values may take at once: beyond them the scheduler issues
/// what adds the fewest, in the order written, as ptxas turns to register pressure (a
/// chain of 64 independent loads, each added to a sum: ptxas 12.9 takes 30 registers, this
/// 27; as soon as ready, 55). Chosen on `kernels/` against ptxas 12.9: mean |ln ratio|
/// 0.115 at 20, 0.123 at 16 or 24.
const PRESSURE: u32 = 20;

/// The longest run scheduled as one: longer ones are scheduled in pieces, so the time
/// scheduling takes stays linear in the code's length.
const MAX_RUN: usize = 128;

/// How many cycles before the latest cycle that keeps the run's critical path (its "as
/// late as possible" cycle) an instruction that adds a live value may issue. Chosen on the
/// kernels of `kernels/` against ptxas 12.9 (`tests/tests/ptxas_figures.rs`): 0 to 4
/// cycles give the closest registers (mean |ln ratio| 0.13, against 0.14 when such
/// instructions issue as soon as they are ready and 0.24 unscheduled).
const WINDOW: u32 = 4;

/// The ranges an instruction reads (each with how many of its fields read it) and the one
/// it writes.
type Uses = (Vec<(usize, u32)>, Option<usize>);

/// What scheduling a run needs of the code.
struct Cx<'a> {
    code: &'a [Instr],
    kinds: &'a [Kind],
    ops: &'a Operands,
    /// The range of an instruction's field.
    range: &'a dyn Fn(usize, usize) -> Option<usize>,
    /// Reads of each range in the whole code.
    reads: &'a [u32],
    /// The 32-bit registers each range takes (a 64-bit value two).
    units: &'a [u32],
}

impl Cx<'_> {
    /// The range instruction `p` writes.
    fn write(&self, p: usize) -> Option<usize> {
        self.ops.writes[p].and_then(|_| (self.range)(p, DST))
    }
}

/// Schedule instructions `a..b` (none fixed), appending their order to `order`.
fn run(cx: &Cx, a: usize, b: usize, order: &mut Vec<usize>) {
    let (code, kinds, ops, range) = (cx.code, cx.kinds, cx.ops, cx.range);
    let ranges = cx.reads.len();
    let n = b - a;
    // Dependences: successors of each instruction (and whether the successor reads its
    // result, or only must follow it), and how many predecessors each has.
    let mut succ: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
    let mut preds = vec![0u32; n];
    let edge = |succ: &mut Vec<Vec<(u32, bool)>>, preds: &mut Vec<u32>, from: usize, to: usize, reads: bool| match succ
        [from]
        .iter_mut()
        .find(|e| e.0 == to as u32)
    {
        Some(e) => e.1 |= reads,
        None => {
            succ[from].push((to as u32, reads));
            preds[to] += 1;
        }
    };
    let mut last_write = vec![usize::MAX; ranges];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); ranges];
    let (mut stores, mut loads): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    for j in 0..n {
        let p = a + j;
        for v in (0..5).filter(|&k| ops.reads[p][k].is_some()).filter_map(|k| range(p, k)) {
            if last_write[v] != usize::MAX {
                edge(&mut succ, &mut preds, last_write[v], j, true);
            }
            readers[v].push(j);
        }
        if let Some(v) = ops.writes[p].and_then(|_| range(p, DST)) {
            for r in core::mem::take(&mut readers[v]) {
                if r != j {
                    edge(&mut succ, &mut preds, r, j, false);
                }
            }
            if last_write[v] != usize::MAX {
                edge(&mut succ, &mut preds, last_write[v], j, false);
            }
            last_write[v] = j;
        }
        match kinds[p] {
            Kind::Load => {
                if let Some(&s) = stores.last() {
                    edge(&mut succ, &mut preds, s, j, false);
                }
                loads.push(j);
            }
            Kind::Store => {
                if let Some(&s) = stores.last() {
                    edge(&mut succ, &mut preds, s, j, false);
                }
                for l in core::mem::take(&mut loads) {
                    edge(&mut succ, &mut preds, l, j, false);
                }
                stores.push(j);
            }
            _ => {}
        }
    }
    // Priority: the latency-weighted path to the run's end (an order alone costs nothing).
    let mut height = vec![0u32; n];
    for j in (0..n).rev() {
        let lat = latency(&code[a + j]);
        let below = succ[j].iter().map(|&(s, reads)| height[s as usize] + if reads { lat } else { 0 });
        height[j] = below.max().unwrap_or(0).max(lat);
    }
    // Reads of each range left in the run (a range read only here dies at the last).
    let mut left = vec![0u32; ranges];
    for j in 0..n {
        for r in (0..5).filter_map(|k| ops.reads[a + j][k].and(range(a + j, k))) {
            left[r] += 1;
        }
    }
    let local: Vec<bool> = (0..ranges).map(|r| left[r] == cx.reads[r]).collect();
    // Per instruction: the ranges it reads (each with how many of its fields read it) and
    // the one it writes.
    let uses: Vec<Uses> = (a..b)
        .map(|p| {
            let mut rs: Vec<(usize, u32)> = Vec::new();
            for r in (0..5).filter_map(|k| ops.reads[p][k].and(range(p, k))) {
                match rs.iter_mut().find(|e| e.0 == r) {
                    Some(e) => e.1 += 1,
                    None => rs.push((r, 1)),
                }
            }
            (rs, cx.write(p))
        })
        .collect();
    // What issuing `j` now does to the values live: (values it starts, values it ends).
    let effect = |j: usize, left: &[u32]| {
        let (reads, w) = &uses[j];
        let ends =
            reads.iter().filter(|&&(r, f)| local[r] && Some(r) != *w && left[r] == f).map(|&(r, _)| cx.units[r]).sum();
        let starts = w.filter(|w| !reads.iter().any(|e| e.0 == *w)).map_or(0, |w| cx.units[w]);
        (starts, ends)
    };
    // Whether it adds a live value.
    let adds = |j: usize, left: &[u32]| {
        let (s, e) = effect(j, left);
        s > e
    };
    let critical = height.iter().copied().max().unwrap_or(0);
    // Registers of the values the run has defined and not yet ended.
    let mut open = 0u32;
    // Issue cycle by cycle: of the instructions whose operands are ready, the highest;
    // when none is, the one ready first (the clock jumps to it). One that adds a live
    // value waits until it is within the window of its latest cycle.
    let mut ready: Vec<usize> = (0..n).filter(|&j| preds[j] == 0).collect();
    let mut at = vec![0u32; n]; // the cycle each instruction's operands are ready
    let mut clock = 0u32;
    while !ready.is_empty() {
        let when = |j: usize| {
            if adds(j, &left) { at[j].max((critical - height[j]).saturating_sub(WINDOW)) } else { at[j] }
        };
        let pick = if open >= PRESSURE {
            // Holding enough: the instruction that adds the fewest values, in the order the
            // code was written, whenever its operands are ready.
            let net = |j: usize| {
                let (s, e) = effect(j, &left);
                s as i32 - e as i32
            };
            let j = ready.iter().copied().min_by_key(|&j| (net(j), j)).unwrap_or(0);
            clock = clock.max(at[j]);
            j
        } else {
            let now = ready
                .iter()
                .filter(|&&j| when(j) <= clock)
                .map(|&j| (!adds(j, &left), height[j], core::cmp::Reverse(j)))
                .max();
            match now {
                Some((_, _, core::cmp::Reverse(j))) => j,
                None => {
                    let j =
                        ready.iter().copied().min_by_key(|&j| (when(j), core::cmp::Reverse(height[j]), j)).unwrap_or(0);
                    clock = clock.max(when(j));
                    j
                }
            }
        };
        let (starts, ends) = effect(pick, &left);
        open = (open + starts).saturating_sub(ends);
        ready.retain(|&j| j != pick);
        order.push(a + pick);
        for k in 0..5 {
            if let Some(r) = ops.reads[a + pick][k].and(range(a + pick, k)) {
                left[r] -= 1;
            }
        }
        let lat = latency(&code[a + pick]);
        for &(s, reads) in &succ[pick] {
            let s = s as usize;
            at[s] = at[s].max(clock + if reads { lat } else { 1 });
            preds[s] -= 1;
            if preds[s] == 0 {
                ready.push(s);
            }
        }
        clock += 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{Options, compile_ptx_with};
    use alloc::format;
    use alloc::vec::Vec;
    use hw::isa::Op;

    const HDR: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

    /// The kernel's operations in the order compiled, scheduled or not.
    fn ops(body: &str, schedule: bool) -> Vec<Op> {
        let src = format!(
            "{HDR}.shared .align 4 .b8 sh[64];\n.entry k(.param .u64 p, .param .u64 q)\n{{\n .reg .b32 %r<8>;\n\
             .reg .f32 %f<8>;\n .reg .b64 %rd<8>;\n ld.param.u64 %rd1, [p];\n ld.param.u64 %rd2, [q];\n\
             mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd4, %rd1, %rd3;\n add.s64 %rd5, %rd2, %rd3;\n\
             {body}\n ret;\n}}\n"
        );
        let p = compile_ptx_with(&src, &Options { schedule, ..Options::default() }).unwrap();
        p.code.iter().map(|i| i.w0.op()).collect()
    }

    fn first(ops: &[Op], op: Op, n: usize) -> usize {
        ops.iter().enumerate().filter(|(_, o)| **o == op).nth(n).map(|(k, _)| k).unwrap()
    }

    #[test]
    fn independent_loads_issue_before_the_arithmetic_between_them() {
        // Written load, use, load, use: scheduled, both loads come first.
        let body = " ld.global.f32 %f1, [%rd4];\n add.f32 %f2, %f1, 0f3F800000;\n st.global.f32 [%rd4+4], %f2;\n\
                    ld.global.f32 %f3, [%rd5];\n add.f32 %f4, %f3, %f2;\n st.global.f32 [%rd5+4], %f4;";
        let plain = ops(body, false);
        assert!(first(&plain, Op::Ld, 1) > first(&plain, Op::Add, 0));
        // The second load follows the first store (it may read what the store wrote):
        // only what is independent of memory moves.
        let s = ops(body, true);
        assert!(first(&s, Op::Ld, 1) > first(&s, Op::St, 0), "a load passed a store");
        let body = " ld.global.f32 %f1, [%rd4];\n add.f32 %f2, %f1, 0f3F800000;\n ld.global.f32 %f3, [%rd5];\n\
                    add.f32 %f4, %f3, %f2;\n st.global.f32 [%rd5+4], %f4;";
        let s = ops(body, true);
        assert!(first(&s, Op::Ld, 1) < first(&s, Op::Add, 0), "the loads issue together: {s:?}");
        assert_eq!(s.len(), ops(body, false).len());
    }

    #[test]
    fn nothing_crosses_a_barrier_and_stores_keep_their_order() {
        let body = " st.shared.u32 [sh], %r1;\n bar.sync 0;\n ld.shared.u32 %r2, [sh+4];\n\
                    st.global.u32 [%rd4], %r2;\n st.global.u32 [%rd5], %r1;";
        let s = ops(body, true);
        let bar = first(&s, Op::Bar, 0);
        assert!(first(&s, Op::St, 0) < bar && first(&s, Op::Ld, 0) > bar);
        // A store that does not wait for the load still follows the store before it.
        let src = format!(
            "{HDR}.entry k(.param .u64 p)\n{{\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [p];\n\
             mov.u32 %r1, %tid.x;\n ld.global.u32 %r2, [%rd1];\n st.global.u32 [%rd1+8], %r2;\n\
             st.global.u32 [%rd1+12], %r1;\n ret;\n}}\n"
        );
        let p = compile_ptx_with(&src, &Options::default()).unwrap();
        let stores: Vec<u64> = p.code.iter().filter(|i| i.w0.op() == Op::St).map(|i| i.imm).collect();
        assert_eq!(stores, [8, 12]);
    }
}
