//! Lowering register pressure on the PTX, as ptxas does for a kernel that would otherwise
//! need more registers than its limit allows (`Kc::relieve`; the compiler keeps whichever
//! version of a function needs fewer registers, and tries this one before spilling; for
//! code kept in the PTX's order, whenever it needs more than [`PRESSURE_REGS`]):
//!
//! - **Rematerialization.** A register defined once as another register defined once plus
//!   or minus a constant (`add.u32 %v5, %r4, 5`, chains of them folded into one constant)
//!   is recomputed from that register right before each use, into a temporary, instead
//!   of being kept live from its definition.
//! - **Load sinking.** A load moves down its basic block to just before the first
//!   instruction that uses or redefines what it writes, redefines its address, or touches
//!   memory in a way a load may not pass (stores, atomics, barriers, fences, calls).
//!   Loads pass loads and arithmetic.

use super::{Operand, Stmt, ast, definitions};
use alloc::collections::BTreeMap;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

/// Above this many registers the compiler also tries the relieved body of a function kept
/// in the PTX's order (full occupancy on sm_70 needs at most 32; below 16 there is little
/// to win, and trying costs a second compile).
pub(crate) const PRESSURE_REGS: u32 = 16;

/// Integer types whose additions rematerialize: (type, width class).
fn add_type(i: &ast::Instr) -> Option<(&'static str, bool)> {
    let ty = i.mods.last()?;
    Some(match ty.as_str() {
        "u32" | "s32" | "b32" => ("b32", false),
        "u64" | "s64" | "b64" => ("b64", true),
        _ => return None,
    })
}

/// The relieved body (see the module documentation).
pub(crate) fn relieve(body: &[Stmt], params: &BTreeSet<String>) -> Vec<Stmt> {
    let mut regs = BTreeSet::new();
    for s in body {
        if let Stmt::Reg(_, ns) = s {
            regs.extend(ns.iter().cloned());
        }
    }
    let mut out = remat(body, &regs);
    if !params.is_empty() {
        out = reload_params(&out, &regs, params);
    }
    // The temporaries the rewrites declared are registers too.
    for s in &out {
        if let Stmt::Reg(_, ns) = s {
            regs.extend(ns.iter().cloned());
        }
    }
    sink_loads(&mut out, &regs);
    out
}

/// Reload a kernel's parameters at their uses instead of holding them: a register defined
/// once by `ld.param` of a kernel parameter (constant for the grid's life), or once by
/// `cvta.to.global` of such a register, is loaded again into a temporary right before each
/// instruction that reads it, as ptxas does (a `c[0x0][...]` read where an operand cannot
/// name the constant bank, an address above all).
fn reload_params(body: &[Stmt], regs: &BTreeSet<String>, params: &BTreeSet<String>) -> Vec<Stmt> {
    let defs = definitions(body);
    let once = |n: &str| defs.get(n) == Some(&1) && regs.contains(n);
    // register -> (the ld.param, then the cvta if any)
    let mut reload: BTreeMap<String, (ast::Instr, Option<ast::Instr>)> = BTreeMap::new();
    for s in body {
        let Stmt::Instr(i) = s else { continue };
        let (None, [Operand::Name(d), src]) = (&i.guard, i.args.as_slice()) else { continue };
        if !once(d) {
            continue;
        }
        let plain = matches!(i.mods.last().map(String::as_str), Some("u64" | "b64" | "s64" | "u32" | "b32" | "s32"));
        let param = matches!(src, Operand::Addr(b, _) if matches!(&**b, Operand::Name(n) if params.contains(n)));
        if i.op == "ld" && i.has("param") && plain && i.mods.len() == 2 && param {
            reload.insert(d.clone(), (i.clone(), None));
        } else if i.op == "cvta"
            && i.has("to")
            && i.has("global")
            && let Operand::Name(x) = src
            && let Some((ld, None)) = reload.get(x).cloned()
        {
            reload.insert(d.clone(), (ld, Some(i.clone())));
        }
    }
    if reload.is_empty() {
        return body.to_vec();
    }
    // A reloaded register's definition goes: every use loads its own.
    at_each_use(
        body,
        &reload,
        "%__rgdev_rp",
        |i| i.guard.is_none(),
        |(ld, cvta), t, _| {
            let mut l = ld.clone();
            l.args[0] = Operand::Name(t.into());
            let mut instrs = vec![l];
            if let Some(c) = cvta {
                let mut c = c.clone();
                (c.args[0], c.args[1]) = (Operand::Name(t.into()), Operand::Name(t.into()));
                instrs.push(c);
            }
            (instrs, ld.mods.last().is_some_and(|t| t.ends_with("64")))
        },
    )
}

/// The loops of a body: (label, branch back to it) statement positions.
pub(crate) fn loops(body: &[Stmt]) -> Vec<(usize, usize)> {
    let labels: BTreeMap<&str, usize> = body
        .iter()
        .enumerate()
        .filter_map(|(k, s)| if let Stmt::Label(l, _) = s { Some((l.as_str(), k)) } else { None })
        .collect();
    let mut out = Vec::new();
    for (q, s) in body.iter().enumerate() {
        if let Stmt::Instr(i) = s
            && i.op == "bra"
            && let Some(Operand::Name(l)) = i.args.first()
            && let Some(&start) = labels.get(l.as_str())
            && start <= q
        {
            out.push((start, q));
        }
    }
    out
}

/// Statements inside a loop: between a label and a later branch back to it.
pub(crate) fn in_loops(body: &[Stmt]) -> Vec<bool> {
    let mut inside = vec![false; body.len()];
    for (start, end) in loops(body) {
        inside[start..=end].iter_mut().for_each(|x| *x = true);
    }
    inside
}

/// Rematerialize `x ± constant` registers at their uses. The root `x` must be defined once
/// outside every loop, so that its value at a use is the one the register was computed
/// from.
fn remat(body: &[Stmt], regs: &BTreeSet<String>) -> Vec<Stmt> {
    let defs = definitions(body);
    let once = |n: &str| defs.get(n) == Some(&1) && regs.contains(n);
    let looped = in_loops(body);
    // Registers whose one definition is in a loop.
    let mut in_loop = BTreeSet::new();
    for (k, s) in body.iter().enumerate() {
        if let (Stmt::Instr(i), true) = (s, looped[k])
            && let Some(Operand::Name(d)) = i.args.first()
        {
            in_loop.insert(d.as_str());
        }
    }
    // register -> (root, constant, wide, type)
    let mut off: BTreeMap<String, (String, u64, bool, &'static str)> = BTreeMap::new();
    for s in body {
        let Stmt::Instr(i) = s else { continue };
        let neg = match i.op.as_str() {
            "add" => false,
            "sub" => true,
            _ => continue,
        };
        let (Some((ty, wide)), None, [Operand::Name(d), Operand::Name(x), Operand::Int(c)]) =
            (add_type(i), &i.guard, i.args.as_slice())
        else {
            continue;
        };
        if !once(d) || !once(x) || i.has("cc") || i.has("sat") {
            continue;
        }
        let c = if neg { c.wrapping_neg() } else { *c };
        let entry = match off.get(x.as_str()) {
            Some((root, k, w, _)) if *w == wide => (root.clone(), k.wrapping_add(c), wide, ty),
            Some(_) => continue,
            None if in_loop.contains(x.as_str()) => continue,
            None => (x.clone(), c, wide, ty),
        };
        off.insert(d.clone(), entry);
    }
    if off.is_empty() {
        return body.to_vec();
    }
    // The definition of a rematerialized register disappears.
    let def = |i: &ast::Instr| matches!(i.op.as_str(), "add" | "sub");
    at_each_use(body, &off, "%__rgdev_rm", def, |(root, c, wide, ty), t, pos| {
        let args = vec![Operand::Name(t.into()), Operand::Name(root.clone()), Operand::Int(*c)];
        let mods = vec![String::from(*ty).replace('b', "u")];
        (vec![ast::Instr { pos, guard: None, op: "add".into(), mods, args }], *wide)
    })
}

/// `body` with each read of a register of `at` (its value `T`) replaced by a temporary
/// computed right before the instruction that reads it: `compute(value, temporary, pos)`
/// gives the instructions and whether the temporary is 64 bits wide. Such a register's
/// definitions (the instructions writing it that `def` accepts) are left out, and the
/// temporaries (named `prefix` and a number) declared at the top.
fn at_each_use<T>(
    body: &[Stmt],
    at: &BTreeMap<String, T>,
    prefix: &str,
    def: impl Fn(&ast::Instr) -> bool,
    compute: impl Fn(&T, &str, crate::error::Pos) -> (Vec<ast::Instr>, bool),
) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(body.len());
    let mut temps: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for s in body {
        let Stmt::Instr(i) = s else {
            out.push(s.clone());
            continue;
        };
        if matches!(i.args.first(), Some(Operand::Name(d)) if at.contains_key(d)) && def(i) {
            continue;
        }
        let mut used = Vec::new();
        i.args.iter().for_each(|a| a.each_name(&mut |n| used.push(n.to_string())));
        used.extend(i.guard.iter().map(|g| g.1.clone()));
        let mut ni = i.clone();
        let mut seen = BTreeSet::new();
        for n in used.into_iter().filter(|n| at.contains_key(n)) {
            if !seen.insert(n.clone()) {
                continue;
            }
            let t = format!("{prefix}{}", temps[0].len() + temps[1].len());
            let (instrs, wide) = compute(&at[&n], &t, i.pos);
            temps[wide as usize].push(t.clone());
            out.extend(instrs.into_iter().map(Stmt::Instr));
            ni.args.iter_mut().for_each(|a| a.rename(&|x| (x == n).then(|| t.clone())));
            if let Some(g) = ni.guard.as_mut().filter(|g| g.1 == n) {
                g.1 = t.clone();
            }
        }
        out.push(Stmt::Instr(ni));
    }
    for (k, ty) in [(0, "b32"), (1, "b64")] {
        if !temps[k].is_empty() {
            out.insert(0, Stmt::Reg(ty.into(), core::mem::take(&mut temps[k])));
        }
    }
    out
}

/// Whether a load may move past instruction `i` (other than by the registers they share):
/// not past what writes or orders memory, ends the block, or reads the clock.
fn load_passes(i: &ast::Instr) -> bool {
    let mut clock = false;
    i.args.iter().for_each(|a| a.each_name(&mut |n| clock |= n.starts_with("%clock") || n == "%globaltimer"));
    !clock
        && !matches!(
            i.op.as_str(),
            "st" | "sust"
                | "atom"
                | "red"
                | "bar"
                | "barrier"
                | "membar"
                | "fence"
                | "call"
                | "ret"
                | "exit"
                | "bra"
                | "brx"
                | "trap"
                | "vote"
                | "shfl"
                | "activemask"
        )
}

/// Sink loads within their basic blocks.
fn sink_loads(body: &mut Vec<Stmt>, all: &BTreeSet<String>) {
    let mut k = body.len();
    while k > 0 {
        k -= 1;
        let Stmt::Instr(ld) = &body[k] else { continue };
        if !matches!(ld.op.as_str(), "ld" | "ldu") || ld.has("volatile") || ld.has("relaxed") || ld.has("acquire") {
            continue;
        }
        let (ld_defs, ld_uses) = crate::spill::def_use(ld, all);
        let mut to = k + 1;
        while let Some(Stmt::Instr(i)) = body.get(to) {
            let (d, u) = crate::spill::def_use(i, all);
            let conflict = !load_passes(i)
                || d.iter().chain(u.iter()).any(|r| ld_defs.contains(r))
                || d.iter().any(|r| ld_uses.contains(r));
            if conflict {
                break;
            }
            to += 1;
        }
        if to > k + 1 {
            let s = body.remove(k);
            body.insert(to - 1, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Vec<Stmt> {
        let m = crate::parse(&format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{{\n{src}\n}}\n"
        ))
        .unwrap();
        m.funcs[0].body.clone().unwrap()
    }

    fn ops(b: &[Stmt]) -> Vec<String> {
        b.iter()
            .filter_map(|s| if let Stmt::Instr(i) = s { Some(format!("{} {:?}", i.op, i.args.first())) } else { None })
            .collect()
    }

    #[test]
    fn a_kernels_parameters_are_loaded_again_at_each_use() {
        let params: BTreeSet<String> = ["p".to_string()].into();
        let b = relieve(
            &body(
                ".reg .b64 %rd<4>;\n .reg .b32 %r<3>;\n ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n\
                 mov.u32 %r1, %tid.x;\n st.global.u32 [%rd2], %r1;\n st.global.u32 [%rd2+4], %r1;\n",
            ),
            &params,
        );
        // Each store loads the parameter (and converts it) right before it.
        let o = ops(&b);
        assert_eq!(o.iter().filter(|s| s.starts_with("ld")).count(), 2, "{o:?}");
        assert_eq!(o.iter().filter(|s| s.starts_with("cvta")).count(), 2, "{o:?}");
        let at = |k: usize| o.iter().position(|s| s.starts_with("st")).unwrap() + k;
        assert!(o[at(0) - 1].starts_with("cvta") && o[at(0) - 2].starts_with("ld"), "{o:?}");
        // A function's, or another name's, are left alone.
        let plain = body(" .reg .b64 %rd1;\n ld.param.u64 %rd1, [p];\n st.global.u32 [%rd1], 0;\n");
        assert_eq!(relieve(&plain, &BTreeSet::new()), plain);
        assert_eq!(relieve(&plain, &["q".to_string()].into()), plain);
    }

    #[test]
    fn constant_offsets_are_recomputed_at_their_uses() {
        let b = relieve(
            &body(
                ".reg .b32 %r<6>;\n mov.u32 %r1, %tid.x;\n add.u32 %r2, %r1, 5;\n add.u32 %r3, %r2, 7;\n\
             mul.lo.u32 %r4, %r1, %r1;\n add.u32 %r5, %r4, %r3;\n",
            ),
            &BTreeSet::new(),
        );
        // %r2 and %r3 are gone; %r3's use reads %r1 + 12 computed right before it.
        let o = ops(&b);
        assert!(!o.iter().any(|x| x.contains("\"%r2\"") || x.contains("\"%r3\"")), "{o:?}");
        let text = format!("{b:?}");
        assert!(text.contains("Int(12)"), "{text}");
        // A root defined in a loop is not used: its value may have moved on.
        let b = relieve(
            &body(
                ".reg .b32 %r<4>;\n .reg .pred %p;\n L:\n mov.u32 %r1, %clock;\n add.u32 %r2, %r1, 5;\n\
             setp.lt.u32 %p, %r2, 9;\n @%p bra L;\n add.u32 %r3, %r2, 1;\n",
            ),
            &BTreeSet::new(),
        );
        assert!(ops(&b).iter().any(|x| x.contains("\"%r2\"")));
    }

    #[test]
    fn loads_sink_to_their_use_but_not_past_stores_or_barriers() {
        let b = relieve(
            &body(
                ".reg .b32 %r<5>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n ld.global.u32 %r1, [%rd1];\n\
             ld.global.u32 %r2, [%rd1+4];\n mul.lo.u32 %r3, %r1, 3;\n mul.lo.u32 %r4, %r2, 3;\n",
            ),
            &BTreeSet::new(),
        );
        let o = ops(&b);
        let at = |s: &str| o.iter().position(|x| x.contains(s)).unwrap();
        assert_eq!(at("Name(\"%r2\")") + 1, at("Name(\"%r4\")"), "{o:?}");
        let b = relieve(
            &body(
                ".reg .b32 %r<4>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n ld.global.u32 %r1, [%rd1];\n\
             st.global.u32 [%rd1+8], %r3;\n bar.sync 0;\n mul.lo.u32 %r2, %r1, 3;\n",
            ),
            &BTreeSet::new(),
        );
        let o = ops(&b);
        assert!(o[1].starts_with("ld") && o[2].starts_with("st"), "{o:?}");
    }
}
