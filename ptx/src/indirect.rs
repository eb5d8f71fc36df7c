//! Function addresses, indirect calls and indirect branches, lowered to direct ones before
//! compilation.
//!
//! Frames are static (see `compile::calls`): a caller stores a callee's arguments in that
//! callee's own frame, so it must know the callee. An indirect call (`call %rd, (args),
//! proto;`, C++ virtual functions and function pointers) therefore becomes a dispatch over
//! the module's functions that could be its target: every function whose address the module
//! takes (an operand of an instruction other than a call, or an initializer such as a
//! vtable's) and that takes as many parameters and returns as many values as the call
//! site; `.calltargets` narrows that to its list. Lanes compare their pointer with each
//! candidate's address and branch to a direct call of it; lanes holding different pointers
//! diverge and reconverge after the calls, as on hardware, which serializes the targets of
//! a warp too. A pointer that is no candidate's address stops the grid with
//! CUDA_ERROR_INVALID_PC, as a jump to a non-function faults. Frames are static, so no
//! function may reach itself: a candidate that would close a cycle of calls (a virtual
//! function calling a virtual function of the same arity, which could be itself) is left
//! out of that call's dispatch, and a call through its address there faults the same way;
//! recursion through pointers is not supported. A function's address is [`FUNCTION_ADDRESS_BASE`] plus 16 times its index in
//! the module: outside the device's virtual address space, so dereferencing one as data
//! faults, and the same for every load of the module.
//!
//! A guarded call, direct or not, becomes a branch around the call.
//!
//! `brx.idx index, list;` becomes one comparison and conditional branch per target (an
//! index past the list takes the last target; PTX leaves it undefined).

use crate::ast::{Func, Init, Instr, Module, Operand, Stmt};
use crate::error::Result;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// The address of a module's first function; function `k`'s is 16 `k` bytes above it.
pub const FUNCTION_ADDRESS_BASE: u64 = 0x00F0_0000_0000_0000;

/// The instruction the dispatch ends with, for a pointer that is no candidate's address:
/// a `TRAP` that stops the grid with CUDA_ERROR_INVALID_PC (no PTX text can name it).
pub(crate) const INVALID_PC: &str = "\u{0}invalid_pc";

/// The predicate register the dispatch writes.
const P: &str = "%__rgdev_ip";

/// Each function's address (see the module documentation).
pub fn addresses(m: &Module) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (k, f) in m.funcs.iter().enumerate() {
        out.entry(f.name.clone()).or_insert(FUNCTION_ADDRESS_BASE + 16 * k as u64);
    }
    out
}

/// Whether `m` needs lowering: a function named as a value or an initializer, an indirect
/// call or an indirect branch.
pub fn needed(m: &Module) -> bool {
    let funcs: BTreeSet<&str> = m.funcs.iter().map(|f| f.name.as_str()).collect();
    let in_init =
        m.vars.iter().any(|v| v.init.iter().any(|i| matches!(i, Init::Sym(s, _) if funcs.contains(s.as_str()))));
    in_init
        || m.funcs.iter().flat_map(|f| f.body.iter().flatten()).any(|s| match s {
            Stmt::Instr(i) if i.op == "call" => i.guard.is_some() || callee(i).is_none_or(|(n, _)| !funcs.contains(n)),
            Stmt::Instr(i) if i.op == "brx" => true,
            Stmt::Instr(i) => names_function(i, &funcs),
            Stmt::Targets(..) => true,
            _ => false,
        })
}

/// The callee operand of a `call` (a name) and its index among the operands.
fn callee(i: &Instr) -> Option<(&str, usize)> {
    let at = usize::from(matches!(i.args.first(), Some(Operand::List(_))));
    match i.args.get(at) {
        Some(Operand::Name(n)) => Some((n, at)),
        _ => None,
    }
}

fn names_function(i: &Instr, funcs: &BTreeSet<&str>) -> bool {
    let mut found = false;
    i.args.iter().for_each(|a| a.each_name(&mut |n| found |= funcs.contains(n)));
    found
}

/// `m` with function addresses as values and indirect calls and branches made direct.
pub fn lower(m: &Module) -> Result<Module> {
    let addr = addresses(m);
    let mut out = m.clone();
    // Initializers and operands naming a function take its address.
    let mut taken = BTreeSet::new();
    for v in &mut out.vars {
        for i in &mut v.init {
            if let Init::Sym(s, off) = i
                && let Some(&a) = addr.get(s.as_str())
            {
                taken.insert(s.clone());
                *i = Init::Int(a.wrapping_add(*off as u64));
            }
        }
    }
    for f in &mut out.funcs {
        for s in f.body.iter_mut().flatten() {
            let Stmt::Instr(i) = s else { continue };
            let skip = if i.op == "call" { callee(i).map(|c| c.1) } else { None };
            for (k, a) in i.args.iter_mut().enumerate() {
                if Some(k) != skip {
                    take_addresses(a, &addr, &mut taken);
                }
            }
        }
    }
    // Candidates of an indirect call: taken functions with a body, by arity.
    let by_name: BTreeMap<&str, &Func> = m.funcs.iter().map(|f| (f.name.as_str(), f)).collect();
    let candidates: Vec<&Func> =
        taken.iter().filter_map(|n| by_name.get(n.as_str()).copied()).filter(|f| f.body.is_some()).collect();
    let mut graph = Graph(m.funcs.iter().map(|f| (f.name.clone(), direct_callees(f, &by_name))).collect());
    for f in &mut out.funcs {
        let Some(body) = f.body.take() else { continue };
        let ctx = Ctx { addr: &addr, candidates: &candidates, by_name: &by_name, caller: &f.name };
        f.body = Some(lower_body(body, &ctx, &mut graph)?);
    }
    Ok(out)
}

/// What lowering one function's body needs.
struct Ctx<'a, 'm> {
    addr: &'a BTreeMap<String, u64>,
    candidates: &'a [&'m Func],
    by_name: &'a BTreeMap<&'m str, &'m Func>,
    caller: &'a str,
}

/// The functions `f` calls directly.
fn direct_callees(f: &Func, by_name: &BTreeMap<&str, &Func>) -> BTreeSet<String> {
    let calls = f.body.iter().flatten().filter_map(|s| match s {
        Stmt::Instr(i) if i.op == "call" => callee(i).map(|c| c.0).filter(|n| by_name.contains_key(n)),
        _ => None,
    });
    calls.map(String::from).collect()
}

/// The call graph as lowering grows it. Frames are static, so no function may reach
/// itself: an indirect call's candidate that would close a cycle is left out (a call
/// through its address traps, see the module documentation).
struct Graph(BTreeMap<String, BTreeSet<String>>);

impl Graph {
    /// Add the edge `from -> to` unless it closes a cycle; whether it was added.
    fn add_acyclic(&mut self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut todo = vec![to];
        while let Some(n) = todo.pop() {
            if n == from {
                return false;
            }
            if seen.insert(n) {
                todo.extend(self.0.get(n).into_iter().flatten().map(String::as_str));
            }
        }
        self.0.entry(from.into()).or_default().insert(to.into());
        true
    }
}

fn take_addresses(a: &mut Operand, addr: &BTreeMap<String, u64>, taken: &mut BTreeSet<String>) {
    match a {
        Operand::Name(n) => {
            if let Some(&v) = addr.get(n.as_str()) {
                taken.insert(n.clone());
                *a = Operand::Int(v);
            }
        }
        Operand::Vector(v) | Operand::List(v) | Operand::Tex(v) => {
            v.iter_mut().for_each(|x| take_addresses(x, addr, taken))
        }
        Operand::Not(b) => take_addresses(b, addr, taken),
        _ => {}
    }
}

fn name(s: &str) -> Operand {
    Operand::Name(s.to_string())
}

fn instr(at: &Instr, guard: Option<(bool, String)>, op: &str, mods: &[&str], args: Vec<Operand>) -> Stmt {
    Stmt::Instr(new(at, guard, op, mods, args))
}

/// Instruction `op.mods args` at `at`'s place.
fn new(at: &Instr, guard: Option<(bool, String)>, op: &str, mods: &[&str], args: Vec<Operand>) -> Instr {
    Instr { pos: at.pos, guard, op: op.into(), mods: mods.iter().map(|m| m.to_string()).collect(), args }
}

fn lower_body(body: Vec<Stmt>, ctx: &Ctx, graph: &mut Graph) -> Result<Vec<Stmt>> {
    let by_name = ctx.by_name;
    let lists: BTreeMap<String, Vec<String>> = body
        .iter()
        .filter_map(|s| if let Stmt::Targets(n, l) = s { Some((n.clone(), l.clone())) } else { None })
        .collect();
    let is_call = |s: &Stmt| matches!(s, Stmt::Instr(i) if i.op == "call");
    let indirect = |s: &Stmt| match s {
        Stmt::Instr(i) if i.op == "brx" => true,
        Stmt::Instr(i) if i.op == "call" => callee(i).is_none_or(|(n, _)| !by_name.contains_key(n)),
        _ => false,
    };
    let guarded_direct = |s: &Stmt| matches!(s, Stmt::Instr(i) if i.op == "call" && i.guard.is_some() && !indirect(s));
    if !body.iter().any(|s| indirect(s) || guarded_direct(s)) {
        return Ok(body.into_iter().filter(|s| !matches!(s, Stmt::Targets(..))).collect());
    }
    // The argument stores and result loads of each indirect call (by the rule direct calls
    // follow: a store belongs to the next call naming its parameter, a load to the last
    // one): they move into each candidate's branch, renamed for it.
    let calls: Vec<usize> = (0..body.len()).filter(|&k| is_call(&body[k])).collect();
    let mut moved = BTreeSet::new();
    let mut seqs = BTreeMap::new();
    for (n, &c) in calls.iter().enumerate() {
        let Stmt::Instr(i) = &body[c] else { continue };
        if !indirect(&body[c]) {
            continue;
        }
        let (args, rets) = call_lists(i);
        let prev = if n == 0 { 0 } else { calls[n - 1] + 1 };
        let next = calls.get(n + 1).copied().unwrap_or(body.len());
        let names = |s: &Stmt, op: &str, list: &[String]| match s {
            Stmt::Instr(x) if x.op == op && x.has("param") => {
                let mut hit = false;
                x.args.iter().for_each(|a| a.each_name(&mut |m| hit |= list.iter().any(|l| l == m)));
                hit
            }
            _ => false,
        };
        let stores: Vec<usize> = (prev..c).filter(|&k| names(&body[k], "st", &args)).collect();
        let loads: Vec<usize> = (c + 1..next).filter(|&k| names(&body[k], "ld", &rets)).collect();
        moved.extend(stores.iter().chain(&loads).copied());
        seqs.insert(c, (stores, loads));
    }
    let mut out = Vec::with_capacity(body.len() + 16);
    out.push(Stmt::Reg("pred".into(), vec![P.to_string()]));
    for (k, s) in body.iter().enumerate() {
        match s {
            Stmt::Targets(..) => {}
            _ if moved.contains(&k) => {}
            // A guarded direct call: a branch around it.
            Stmt::Instr(i) if guarded_direct(s) => {
                let end = format!("$__rgdev_indirect_{k}");
                let (neg, g) = i.guard.clone().unwrap_or_default();
                out.push(instr(i, Some((!neg, g)), "bra", &[], vec![name(&end)]));
                out.push(Stmt::Instr(Instr { guard: None, ..i.clone() }));
                out.push(Stmt::Label(end, i.pos));
            }
            Stmt::Instr(i) if indirect(s) => {
                let end = format!("$__rgdev_indirect_{k}");
                // A guarded one: lanes whose guard fails skip it.
                if let Some((neg, g)) = &i.guard {
                    out.push(instr(i, Some((!neg, g.clone())), "bra", &[], vec![name(&end)]));
                }
                if i.op == "brx" {
                    branch(i, &lists, &mut out)?;
                } else {
                    let (stores, loads) = &seqs[&k];
                    let seq = |v: &[usize]| v.iter().map(|&j| body[j].clone()).collect::<Vec<_>>();
                    let site = Site { call: i, stores: seq(stores), loads: seq(loads), end: &end };
                    call(&site, ctx, (&lists, &mut *graph), &mut out)?;
                }
                out.push(Stmt::Label(end, i.pos));
            }
            s => out.push(s.clone()),
        }
    }
    Ok(out)
}

/// The parameter names a call passes and receives.
fn call_lists(i: &Instr) -> (Vec<String>, Vec<String>) {
    let names = |o: Option<&Operand>| match o {
        Some(Operand::List(v)) => {
            v.iter().filter_map(|x| if let Operand::Name(n) = x { Some(n.clone()) } else { None }).collect()
        }
        _ => Vec::new(),
    };
    let at = usize::from(matches!(i.args.first(), Some(Operand::List(_))));
    let rets = if at == 1 { names(i.args.first()) } else { Vec::new() };
    (names(i.args.get(at + 1)), rets)
}

/// An indirect call site with the statements that pass its arguments and take its results.
struct Site<'a> {
    call: &'a Instr,
    stores: Vec<Stmt>,
    loads: Vec<Stmt>,
    end: &'a str,
}

/// `brx.idx index, list;`: compare and branch, target by target.
fn branch(i: &Instr, lists: &BTreeMap<String, Vec<String>>, out: &mut Vec<Stmt>) -> Result<()> {
    if !i.has("idx") || i.args.len() != 2 {
        return Err(i.pos.err("`brx` takes `.idx`, an index and a `.branchtargets` list"));
    }
    let targets = match &i.args[1] {
        Operand::Name(l) => lists.get(l).ok_or_else(|| i.pos.err(format!("`{l}` is not a `.branchtargets` list")))?,
        _ => return Err(i.pos.err("`brx.idx` needs a `.branchtargets` list")),
    };
    let Some((last, rest)) = targets.split_last() else {
        return Err(i.pos.err("an empty `.branchtargets` list"));
    };
    for (k, t) in rest.iter().enumerate() {
        out.push(instr(i, None, "setp", &["eq", "u32"], vec![name(P), i.args[0].clone(), Operand::Int(k as u64)]));
        out.push(instr(i, Some((false, P.into())), "bra", &[], vec![name(t)]));
    }
    out.push(instr(i, None, "bra", &["uni"], vec![name(last)]));
    Ok(())
}

/// An indirect call: compare the pointer with each candidate's address and branch to a
/// direct call of the one it is (a pointer that is none of them traps); each branch passes
/// the arguments and takes the results under names of its own; all meet at the end.
fn call(
    site: &Site,
    ctx: &Ctx,
    (lists, graph): (&BTreeMap<String, Vec<String>>, &mut Graph),
    out: &mut Vec<Stmt>,
) -> Result<()> {
    let (addr, candidates) = (ctx.addr, ctx.candidates);
    let (i, end) = (site.call, site.end);
    let at = usize::from(matches!(i.args.first(), Some(Operand::List(_))));
    let (args, rets) = call_lists(i);
    let pointer = i.args.get(at).cloned().ok_or_else(|| i.pos.err("`call` needs a target"))?;
    // `.calltargets` lists its candidates; a prototype lets any function of its arity.
    let listed = match i.args.get(at + 2) {
        Some(Operand::Name(l)) => lists.get(l),
        _ => None,
    };
    let fits = |f: &&&Func| f.params.len() == args.len() && f.rets.len() == rets.len();
    let listed = |f: &&&Func| listed.is_none_or(|l| l.contains(&f.name));
    let chosen: Vec<&Func> = candidates
        .iter()
        .filter(listed)
        .filter(fits)
        .filter(|f| graph.add_acyclic(ctx.caller, &f.name))
        .copied()
        .collect();
    for (k, f) in chosen.iter().enumerate() {
        let a = addr[&f.name];
        out.push(instr(i, None, "setp", &["eq", "u64"], vec![name(P), pointer.clone(), Operand::Int(a)]));
        out.push(instr(i, Some((false, P.into())), "bra", &[], vec![name(&format!("{end}_{k}"))]));
    }
    out.push(instr(i, None, INVALID_PC, &[], Vec::new()));
    for (k, f) in chosen.iter().enumerate() {
        out.push(Stmt::Label(format!("{end}_{k}"), i.pos));
        let own = |n: &str| (args.iter().chain(&rets).any(|a| a == n)).then(|| format!("{n}$__rgdev_{k}"));
        let renamed = |s: &Stmt| {
            let mut s = s.clone();
            if let Stmt::Instr(x) = &mut s {
                x.args.iter_mut().for_each(|a| a.rename(&own));
            }
            s
        };
        out.extend(site.stores.iter().map(renamed));
        let mut direct = Vec::new();
        if at == 1 {
            direct.push(i.args[0].clone());
        }
        direct.push(name(&f.name));
        if let Some(a) = i.args.get(at + 1) {
            direct.push(a.clone());
        }
        let mut c = new(i, None, "call", &[], direct);
        c.args.iter_mut().for_each(|a| a.rename(&own));
        out.push(Stmt::Instr(c));
        out.extend(site.loads.iter().map(renamed));
        out.push(instr(i, None, "bra", &["uni"], vec![name(end)]));
    }
    Ok(())
}
