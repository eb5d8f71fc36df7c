//! Fitting a function's PTX registers into the device's register file, on the PTX itself:
//! liveness over the statements, one live interval per register, and a linear scan that
//! gives registers whose intervals do not overlap the same register number ("color").
//! When more values are live at once than there are registers, the intervals that end
//! last are spilled to a `.local` depot: every use of a spilled register becomes a load
//! into a temporary just before the instruction, every definition a store just after it
//! (a guarded definition also loads first, since the old value may survive).

use crate::ast::{Instr, Operand, StateSpace, Stmt, Var};
use crate::error::Pos;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// Temporaries reserved for spilled operands (an instruction names at most this many).
pub const TEMPS: usize = 8;
const DEPOT: &str = "__rgdev_spill";

/// The result of fitting: a rewritten body (when anything was spilled), the register
/// number of every register name, and the spill traffic in bytes.
pub struct Fitted {
    /// The body to compile.
    pub body: Vec<Stmt>,
    /// Register number of each register name.
    pub colors: BTreeMap<String, u8>,
    /// Register numbers used.
    pub used: u32,
    /// Bytes stored to the depot per thread (static count of store instructions × 8).
    pub spill_stores: u32,
    /// Bytes loaded from the depot (static count × 8).
    pub spill_loads: u32,
}

fn no_def(op: &str) -> bool {
    matches!(
        op,
        "st" | "red"
            | "sust"
            | "bra"
            | "bar"
            | "barrier"
            | "membar"
            | "fence"
            | "ret"
            | "exit"
            | "trap"
            | "call"
            | "prefetch"
    )
}

fn names(o: &Operand, regs: &BTreeSet<String>, out: &mut Vec<String>) {
    o.each_name(&mut |n| {
        if regs.contains(n) {
            out.push(n.to_string());
        }
    });
}

/// Registers an instruction defines and uses.
pub(crate) fn def_use(i: &Instr, regs: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    let (mut defs, mut uses) = (Vec::new(), Vec::new());
    let mut rest = &i.args[..];
    if !no_def(&i.op) && !i.args.is_empty() {
        names(&i.args[0], regs, &mut defs);
        rest = &i.args[1..];
        let combine = i.has("and") || i.has("or") || i.has("xor");
        // Two destinations: `setp ... p|q`, `shfl ... d|p`, `match.all ... d|p` and
        // `elect.sync d|p`.
        let shfl_pred = i.op == "shfl" && i.args.len() == if i.has("sync") { 6 } else { 5 };
        let match_pred = i.op == "match" && i.args.len() == 4 || i.op == "elect" && i.args.len() == 3;
        if shfl_pred || match_pred || i.op == "setp" && i.args.len() == if combine { 5 } else { 4 } {
            names(&i.args[1], regs, &mut defs);
            rest = &i.args[2..];
        }
    }
    for o in rest {
        names(o, regs, &mut uses);
    }
    if let Some((_, g)) = &i.guard {
        if regs.contains(g) {
            uses.push(g.clone());
        }
        uses.extend(defs.iter().cloned());
    }
    (defs, uses)
}

/// Fit the registers of `body` into `limit` register numbers.
pub fn fit(body: &[Stmt], limit: usize) -> crate::Result<Fitted> {
    let mut regs = BTreeSet::new();
    for s in body {
        if let Stmt::Reg(_, ns) = s {
            regs.extend(ns.iter().cloned());
        }
    }
    let reg_list: Vec<String> = regs.iter().cloned().collect();
    let index: BTreeMap<&str, usize> = reg_list.iter().enumerate().map(|(k, n)| (n.as_str(), k)).collect();
    let nr = reg_list.len();
    // Statement-level control flow.
    let labels: BTreeMap<&str, usize> = body
        .iter()
        .enumerate()
        .filter_map(|(p, s)| if let Stmt::Label(l, _) = s { Some((l.as_str(), p)) } else { None })
        .collect();
    let n = body.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let (mut defs, mut uses): (Vec<Vec<usize>>, Vec<Vec<usize>>) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    for (p, s) in body.iter().enumerate() {
        let next = if p + 1 < n { Some(p + 1) } else { None };
        let Stmt::Instr(i) = s else {
            succ[p].extend(next);
            continue;
        };
        let (d, u) = def_use(i, &regs);
        defs[p] = d.iter().map(|x| index[x.as_str()]).collect();
        uses[p] = u.iter().map(|x| index[x.as_str()]).collect();
        let guarded = i.guard.is_some();
        match i.op.as_str() {
            "bra" => {
                if let Some(Operand::Name(l)) = i.args.first()
                    && let Some(&t) = labels.get(l.as_str())
                {
                    succ[p].push(t);
                }
                if guarded {
                    succ[p].extend(next);
                }
            }
            "ret" | "exit" | "trap" if !guarded => {}
            _ => succ[p].extend(next),
        }
    }
    // Liveness (bitsets per statement), iterated to a fixed point.
    let words = nr.div_ceil(64).max(1);
    let mut live_in = vec![vec![0u64; words]; n];
    let mut live_out = vec![vec![0u64; words]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for p in (0..n).rev() {
            let mut out = vec![0u64; words];
            for &q in &succ[p] {
                for w in 0..words {
                    out[w] |= live_in[q][w];
                }
            }
            let mut inn = out.clone();
            for &d in &defs[p] {
                inn[d / 64] &= !(1 << (d % 64));
            }
            for &u in &uses[p] {
                inn[u / 64] |= 1 << (u % 64);
            }
            if inn != live_in[p] || out != live_out[p] {
                live_in[p] = inn;
                live_out[p] = out;
                changed = true;
            }
        }
    }
    let mut iv: Vec<Option<(usize, usize)>> = vec![None; nr];
    let mut touch = |r: usize, p: usize| {
        iv[r] = Some(match iv[r] {
            None => (p, p),
            Some((a, z)) => (a.min(p), z.max(p)),
        })
    };
    for p in 0..n {
        for r in 0..nr {
            if live_in[p][r / 64] >> (r % 64) & 1 == 1 || live_out[p][r / 64] >> (r % 64) & 1 == 1 {
                touch(r, p);
            }
        }
        for &r in defs[p].iter().chain(&uses[p]) {
            touch(r, p);
        }
    }
    // Linear scan: `k` colors for values, the rest for spill temporaries.
    let k = limit.saturating_sub(TEMPS).max(1);
    let mut order: Vec<usize> = (0..nr).filter(|&r| iv[r].is_some()).collect();
    order.sort_by_key(|&r| iv[r].map(|x| (x.0, x.1)));
    let mut color: Vec<Option<u8>> = vec![None; nr];
    let mut free: Vec<u8> = (0..k as u8).rev().collect();
    let mut active: Vec<usize> = Vec::new();
    let mut spilled: BTreeSet<usize> = BTreeSet::new();
    for r in order {
        let (start, end) = iv[r].unwrap_or((0, 0));
        active.retain(|&a| {
            if iv[a].is_some_and(|x| x.1 < start) {
                free.extend(color[a]);
                false
            } else {
                true
            }
        });
        free.sort_unstable_by(|x, y| y.cmp(x));
        if let Some(c) = free.pop() {
            color[r] = Some(c);
            active.push(r);
            continue;
        }
        // Spill whichever live interval ends last.
        let victim =
            active.iter().copied().max_by_key(|&a| iv[a].map(|x| x.1)).filter(|&a| iv[a].is_some_and(|x| x.1 > end));
        match victim {
            Some(v) => {
                color[r] = color[v].take();
                spilled.insert(v);
                active.retain(|&a| a != v);
                active.push(r);
            }
            None => {
                spilled.insert(r);
            }
        }
    }
    let mut colors: BTreeMap<String, u8> = BTreeMap::new();
    for (r, name) in reg_list.iter().enumerate() {
        // Registers never live (declared, unused) share color 0.
        colors.insert(name.clone(), color[r].unwrap_or(0));
    }
    let used = (0..nr).filter_map(|r| color[r]).map(|c| c as u32 + 1).max().unwrap_or(0);
    if spilled.is_empty() {
        return Ok(Fitted { body: body.to_vec(), colors, used, spill_stores: 0, spill_loads: 0 });
    }
    // Rewrite: spilled registers live in the depot, temporaries carry them.
    let slot: BTreeMap<&str, usize> = spilled.iter().enumerate().map(|(k, &r)| (reg_list[r].as_str(), k)).collect();
    let temps: Vec<String> = (0..TEMPS).map(|t| format!("%__rgdev_t{t}")).collect();
    for (t, name) in temps.iter().enumerate() {
        colors.insert(name.clone(), (k + t) as u8);
    }
    let mut out = Vec::with_capacity(body.len() + 4 * spilled.len());
    out.push(Stmt::Reg("b64".into(), temps.clone()));
    out.push(Stmt::Var(Var {
        space: StateSpace::Local,
        name: DEPOT.into(),
        ty: "b64".into(),
        vec: 1,
        align: 8,
        count: Some(spilled.len() as u64),
        init: Vec::new(),
        linkage: crate::ast::Linkage::Internal,
        managed: false,
        pos: Pos::default(),
    }));
    let (mut stores, mut loads) = (0u32, 0u32);
    for s in body {
        let Stmt::Instr(i) = s else {
            out.push(s.clone());
            continue;
        };
        let (d, u) = def_use(i, &regs);
        let mut involved: Vec<&str> = d.iter().chain(&u).map(|x| x.as_str()).filter(|x| slot.contains_key(x)).collect();
        involved.sort_unstable();
        involved.dedup();
        if involved.is_empty() {
            out.push(s.clone());
            continue;
        }
        if involved.len() > TEMPS {
            return Err(i.pos.err(format!("instruction names more than {TEMPS} spilled registers")));
        }
        let temp_of: BTreeMap<&str, &str> = involved.iter().enumerate().map(|(t, &r)| (r, temps[t].as_str())).collect();
        let depot = |r: &str| Operand::Addr(alloc::boxed::Box::new(Operand::Name(DEPOT.into())), 8 * slot[r] as i64);
        let mk = |op: &str, mods: &[&str], args: Vec<Operand>| Instr {
            pos: i.pos,
            guard: None,
            op: op.into(),
            mods: mods.iter().map(|m| m.to_string()).collect(),
            args,
        };
        for &r in involved.iter().filter(|r| u.iter().any(|x| x == *r)) {
            out.push(Stmt::Instr(mk("ld", &["local", "b64"], vec![Operand::Name(temp_of[r].into()), depot(r)])));
            loads += 8;
        }
        let mut ni = i.clone();
        ni.args.iter_mut().for_each(|a| a.rename(&|n| temp_of.get(n).map(|t| t.to_string())));
        if let Some((_, g)) = ni.guard.as_mut()
            && let Some(t) = temp_of.get(g.as_str())
        {
            *g = t.to_string();
        }
        out.push(Stmt::Instr(ni));
        for &r in involved.iter().filter(|r| d.iter().any(|x| x == *r)) {
            out.push(Stmt::Instr(mk("st", &["local", "b64"], vec![depot(r), Operand::Name(temp_of[r].into())])));
            stores += 8;
        }
    }
    Ok(Fitted { body: out, colors, used: (k + TEMPS) as u32, spill_stores: stores, spill_loads: loads })
}
