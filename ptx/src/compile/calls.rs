//! Calls between functions: static frames in local memory, call fixups patched once every
//! function has its address, and the rule that no function calls itself (frames are static).

use super::{Func, Operand, Pos, Result, Stmt, ast};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A `CALL` whose target is patched once every function has its address.
pub(crate) type CallFixup = (u32, String, Pos);

/// A `.func`'s static frame in local memory and its entry point.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    pub(crate) base: u32,
    pub(crate) params: Vec<(u32, u32)>,
    pub(crate) rets: Vec<(u32, u32)>,
    pub(crate) pc: u32,
    /// The module defines the function (else it only declares it).
    pub(crate) defined: bool,
}

/// The functions `f` calls, by name, in the order of its call sites (with repeats).
pub(crate) fn callees(f: &Func) -> Vec<String> {
    let mut out = Vec::new();
    for s in f.body.iter().flatten() {
        if let Stmt::Instr(i) = s
            && i.op == "call"
            && let Some(n) = i.args.iter().find_map(|a| if let Operand::Name(n) = a { Some(n.clone()) } else { None })
        {
            out.push(n);
        }
    }
    out
}

/// The module's call graph: each function's callees by name, in call-site order.
pub(crate) type CallGraph<'m> = BTreeMap<&'m str, Vec<String>>;

/// The call graph of module `m`.
pub(crate) fn call_graph(m: &ast::Module) -> CallGraph<'_> {
    m.funcs.iter().map(|f| (f.name.as_str(), callees(f))).collect()
}

/// The functions `f` may call, directly or not (the module has no recursion).
pub(crate) fn reachable(graph: &CallGraph, f: &Func) -> alloc::collections::BTreeSet<String> {
    let mut seen = alloc::collections::BTreeSet::new();
    let mut todo = graph.get(f.name.as_str()).cloned().unwrap_or_default();
    while let Some(n) = todo.pop() {
        if let Some(cs) = graph.get(n.as_str())
            && !seen.contains(&n)
        {
            todo.extend(cs.iter().cloned());
        }
        seen.insert(n);
    }
    seen
}

/// The module's non-entry functions, each after every function it calls: the order that
/// lets a function's registers sit above its callees'. Frames are static, so a function
/// that (even indirectly) calls itself is an error.
pub(crate) fn callees_first<'m>(m: &'m ast::Module, graph: &CallGraph) -> Result<Vec<&'m Func>> {
    let by_name: BTreeMap<&str, &Func> = m.funcs.iter().map(|f| (f.name.as_str(), f)).collect();
    // Depth-first search with an explicit stack (a call chain of any depth costs no host
    // stack): a callee already on the current path closes a cycle; post-order is the order.
    let mut on_path = alloc::collections::BTreeSet::new();
    let mut done = alloc::collections::BTreeSet::new();
    let mut order = Vec::new();
    for f in &m.funcs {
        if done.contains(f.name.as_str()) {
            continue;
        }
        let mut stack: Vec<(&Func, usize)> = alloc::vec![(f, 0)];
        on_path.insert(f.name.as_str());
        while let Some((g, next)) = stack.last_mut() {
            let callees = graph.get(g.name.as_str()).map_or(&[][..], |v| v.as_slice());
            let Some(c) = callees.get(*next) else {
                let g = *g;
                on_path.remove(g.name.as_str());
                done.insert(g.name.as_str());
                if !g.entry {
                    order.push(g);
                }
                stack.pop();
                continue;
            };
            *next += 1;
            let Some(&h) = by_name.get(c.as_str()) else { continue };
            if on_path.contains(h.name.as_str()) {
                return Err(f.pos.err(format!("recursive call of `{}`: recursion is not supported", h.name)));
            }
            if !done.contains(h.name.as_str()) {
                on_path.insert(h.name.as_str());
                stack.push((h, 0));
            }
        }
    }
    Ok(order)
}

/// A call site: (statement index, callee, argument names, return names).
pub(crate) type CallSite = (usize, String, Vec<String>, Vec<String>);

/// The call sites of a body.
pub(crate) fn call_sites(body: &[Stmt]) -> Result<Vec<CallSite>> {
    let mut calls = Vec::new();
    for (k, s) in body.iter().enumerate() {
        if let Stmt::Instr(i) = s
            && i.op == "call"
        {
            let list = |o: Option<&Operand>| -> Vec<String> {
                match o {
                    Some(Operand::List(v)) => {
                        v.iter().filter_map(|x| if let Operand::Name(n) = x { Some(n.clone()) } else { None }).collect()
                    }
                    _ => Vec::new(),
                }
            };
            let (rets, name_at) = if matches!(i.args.first(), Some(Operand::List(_))) {
                (list(i.args.first()), 1)
            } else {
                (Vec::new(), 0)
            };
            let Some(Operand::Name(callee)) = i.args.get(name_at) else {
                return Err(i.pos.err("`call` needs a function name"));
            };
            calls.push((k, callee.clone(), list(i.args.get(name_at + 1)), rets));
        }
    }
    Ok(calls)
}
