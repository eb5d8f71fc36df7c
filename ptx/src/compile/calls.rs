//! Calls between functions: static frames in local memory, call fixups patched once every
//! function has its address, and the rule that no function calls itself (frames are static).

use super::*;

/// A `CALL` whose target is patched once every function has its address.
pub(crate) type CallFixup = (u32, String, Pos);

/// A `.func`'s static frame in local memory and its entry point.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    pub(crate) base: u32,
    pub(crate) params: Vec<(u32, u32)>,
    pub(crate) rets: Vec<(u32, u32)>,
    pub(crate) pc: u32,
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

/// The functions `f` may call, directly or not (the module has no recursion).
pub(crate) fn reachable(m: &ast::Module, f: &Func) -> alloc::collections::BTreeSet<String> {
    let mut seen = alloc::collections::BTreeSet::new();
    let mut todo = callees(f);
    while let Some(n) = todo.pop() {
        if seen.insert(n.clone())
            && let Some(g) = m.funcs.iter().find(|g| g.name == n)
        {
            todo.extend(callees(g));
        }
    }
    seen
}

/// The module's non-entry functions, each after every function it calls (the module has no
/// recursion): the order that lets a function's registers sit above its callees'.
pub(crate) fn callees_first(m: &ast::Module) -> Vec<&Func> {
    let by_name: BTreeMap<&str, &Func> = m.funcs.iter().filter(|f| !f.entry).map(|f| (f.name.as_str(), f)).collect();
    let mut done = alloc::collections::BTreeSet::new();
    let mut order = Vec::new();
    for f in m.funcs.iter().filter(|f| !f.entry) {
        // Post-order with an explicit stack: (function, its callees, the next one to visit).
        let mut stack = alloc::vec![(f, callees(f), 0usize)];
        done.insert(f.name.as_str());
        while let Some((g, cs, next)) = stack.last_mut() {
            let Some(c) = cs.get(*next) else {
                order.push(*g);
                stack.pop();
                continue;
            };
            *next += 1;
            if let Some(&h) = by_name.get(c.as_str())
                && done.insert(h.name.as_str())
            {
                stack.push((h, callees(h), 0));
            }
        }
    }
    order
}

/// Frames are static, so a function may not (even indirectly) call itself.
pub(crate) fn check_recursion(m: &ast::Module) -> Result<()> {
    let graph: BTreeMap<&str, Vec<String>> = m.funcs.iter().map(|f| (f.name.as_str(), callees(f))).collect();
    // Depth-first search with an explicit stack (a call chain of any depth costs no host
    // stack): a callee already on the current path closes a cycle.
    let mut on_path = alloc::collections::BTreeSet::new();
    let mut done = alloc::collections::BTreeSet::new();
    for f in &m.funcs {
        let root = f.name.as_str();
        if done.contains(root) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = alloc::vec![(root, 0)];
        on_path.insert(root);
        while let Some((n, next)) = stack.last_mut() {
            let callees = graph.get(*n).map_or(&[][..], |v| v.as_slice());
            let Some(c) = callees.get(*next) else {
                on_path.remove(*n);
                done.insert(*n);
                stack.pop();
                continue;
            };
            *next += 1;
            let Some((&k, _)) = graph.get_key_value(c.as_str()) else { continue };
            if on_path.contains(k) {
                return Err(f.pos.err(format!("recursive call of `{k}`: recursion is not supported")));
            }
            if !done.contains(k) {
                on_path.insert(k);
                stack.push((k, 0));
            }
        }
    }
    Ok(())
}
