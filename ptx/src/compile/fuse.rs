//! Fusing what ptxas fuses: a 32-bit index widened and scaled (`mul.wide.s32 %t, %i, 4`)
//! and added to a 64-bit base (`add.s64 %a, %base, %t`) is one multiply-add
//! (`mad.wide.s32 %a, %i, 4, %base`), as ptxas makes it one `IMAD.WIDE`. The address
//! arithmetic of nearly every array access takes this shape; keeping it one instruction
//! keeps the dependent chains (and the cycles) those accesses cost on a real part. A
//! product several adds read is folded into each of them, as ptxas folds it (NVIDIA's
//! `vecadd` for sm_80: three `IMAD.WIDE`s of the same index, no 64-bit product kept). A
//! product made once and added later (before a loop, in it) is recomputed at each add
//! where its factors are live anyway ([`recomputed`]).

use super::{Operand, Stmt, ast};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The body with each fusable `mul.wide` folded into the adds that read it as `mad.wide`s,
/// or `None` when there is none. A product fuses when its `mul.wide` is unguarded and
/// defines its register, which only unguarded plain 64-bit adds read, all after it with no
/// label between, and nothing between writes the factors.
pub(crate) fn mad_wide(body: &[Stmt]) -> Option<Vec<Stmt>> {
    let mut mentions: BTreeMap<&str, u32> = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            for a in &i.args {
                a.each_name(&mut |n| *mentions.entry(n).or_default() += 1);
            }
        }
    }
    let name = |o: &Operand| if let Operand::Name(n) = o { Some(n.clone()) } else { None };
    // For the product at `k`: the adds reading it, each fused.
    let fusable = |k: usize| -> Option<Vec<(usize, ast::Instr)>> {
        let Stmt::Instr(m) = body.get(k)? else { return None };
        let sign = match (m.op.as_str(), m.mods.as_slice()) {
            ("mul", [w, t]) if w == "wide" && matches!(t.as_str(), "s32" | "u32") => t,
            _ => return None,
        };
        let [Operand::Name(t), x, y] = m.args.as_slice() else { return None };
        if m.guard.is_some() || [x, y].iter().any(|o| name(o).as_ref() == Some(t)) {
            return None;
        }
        let factors = [name(x), name(y)];
        let mut left = mentions.get(t.as_str()).copied()?.checked_sub(1)?;
        let mut fused = Vec::new();
        let mut p = k + 1;
        while left > 0 {
            let Stmt::Instr(a) = body.get(p)? else { return None }; // a label, or the end
            let reads_t = a.args.iter().any(|o| name(o).as_ref() == Some(t));
            let dest = a.args.first().and_then(name);
            if dest.is_some() && factors.contains(&dest) || dest.as_ref() == Some(t) {
                return None;
            }
            if reads_t {
                let wide64 = matches!(a.mods.as_slice(), [w] if matches!(w.as_str(), "s64" | "u64" | "b64"));
                let [d, q, r] = a.args.as_slice() else { return None };
                let base = match (q, r) {
                    (Operand::Name(n), other) | (other, Operand::Name(n)) if n == t => other,
                    _ => return None,
                };
                if a.guard.is_some() || a.op != "add" || !wide64 || name(base).as_ref() == Some(t) {
                    return None;
                }
                fused.push((
                    p,
                    ast::Instr {
                        pos: a.pos,
                        guard: None,
                        op: "mad".into(),
                        mods: ["wide".into(), sign.clone()].into(),
                        args: [d.clone(), x.clone(), y.clone(), base.clone()].into(),
                    },
                ));
                left -= 1;
            }
            p += 1;
        }
        (!fused.is_empty()).then_some(fused)
    };
    let mut out: Option<Vec<Stmt>> = None;
    let mut replace: BTreeMap<usize, Option<ast::Instr>> = BTreeMap::new();
    for k in 0..body.len() {
        if replace.contains_key(&k) {
            continue;
        }
        // An add that sums two products takes one of them (the first).
        if let Some(f) = fusable(k)
            && f.iter().all(|(p, _)| !replace.contains_key(p))
        {
            replace.insert(k, None);
            replace.extend(f.into_iter().map(|(p, i)| (p, Some(i))));
        }
    }
    for (k, s) in body.iter().enumerate() {
        match replace.get(&k) {
            None => {
                if let Some(o) = out.as_mut() {
                    o.push(s.clone());
                }
            }
            Some(r) => {
                let o = out.get_or_insert_with(|| body[..k].to_vec());
                if let Some(i) = r {
                    o.push(Stmt::Instr(i.clone()));
                }
            }
        }
    }
    out
}

/// The body with each product that ptxas recomputes where it is added folded into those
/// adds as multiply-adds, or `None` when there is none: a `mul.lo` of 32 bits or a
/// `mul.wide` computed once (before a loop, say) and added later, across labels
/// (`mul.lo.s32 %r6, %r3, %r10;` ... `add.s32 %r19, %r18, %r6;` becomes
/// `mad.lo.s32 %r19, %r3, %r10, %r18;`). ptxas keeps no register for such a product when its
/// factors are live at the adds anyway: an `IMAD` costs what the `IADD` did, and the register
/// is saved (its tiled matrix multiply computes `row * n + k` in the loop). So a product
/// fuses when its register is defined once, unguarded, and read only by unguarded adds of its
/// width, and each factor is a literal or a register defined once outside every loop that is
/// live at each add anyway: read after it, or read in a loop around it.
pub(crate) fn recomputed(body: &[Stmt]) -> Option<Vec<Stmt>> {
    let defs = super::copies::definitions(body);
    let regs: alloc::collections::BTreeSet<&str> = body
        .iter()
        .filter_map(|s| if let Stmt::Reg(_, n) = s { Some(n) } else { None })
        .flatten()
        .map(alloc::string::String::as_str)
        .collect();
    let once = |n: &str| defs.get(n) == Some(&1) && regs.contains(n);
    let looped = super::pressure::in_loops(body);
    let loops = super::pressure::loops(body);
    // Where each register is read (guards too) and where it is defined.
    let mut reads: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut def_at: BTreeMap<&str, usize> = BTreeMap::new();
    for (at, s) in body.iter().enumerate() {
        let Stmt::Instr(i) = s else { continue };
        super::memory::each_read(i, &mut |n| reads.entry(n).or_default().push(at));
        if let Some(d) = i.args.first().filter(|d| !matches!(d, Operand::Addr(..))) {
            d.each_name(&mut |n| _ = def_at.insert(n, at));
        }
    }
    fn name(o: &Operand) -> Option<&str> {
        if let Operand::Name(n) = o { Some(n.as_str()) } else { None }
    }
    // Whether factor `f` is live at `p` whatever the product does: read after it, or read in a
    // loop around `p` that it is defined before.
    let live_at = |f: &str, p: usize| {
        let (Some(r), Some(&d)) = (reads.get(f), def_at.get(f)) else { return false };
        r.iter().any(|&q| q > p)
            || loops.iter().any(|&(a, b)| a <= p && p <= b && d < a && r.iter().any(|&q| a <= q && q <= b))
    };
    let mut replace: BTreeMap<usize, Option<ast::Instr>> = BTreeMap::new();
    for (k, s) in body.iter().enumerate() {
        let Stmt::Instr(m) = s else { continue };
        let (wide, sign) = match (m.op.as_str(), m.mods.as_slice()) {
            ("mul", [w, t]) if matches!(w.as_str(), "lo" | "wide") && matches!(t.as_str(), "s32" | "u32") => {
                (w == "wide", t)
            }
            _ => continue,
        };
        let [Operand::Name(t), x, y] = m.args.as_slice() else { continue };
        if m.guard.is_some() || !once(t) || [x, y].iter().all(|o| matches!(o, Operand::Int(_))) {
            continue;
        }
        let factor_ok = |o: &Operand| match o {
            Operand::Int(_) => true,
            Operand::Name(f) => once(f) && f != t && def_at.get(f.as_str()).is_some_and(|&d| !looped[d] && d < k),
            _ => false,
        };
        if !factor_ok(x) || !factor_ok(y) || replace.contains_key(&k) {
            continue;
        }
        let Some(at) = reads.get(t.as_str()) else { continue };
        let mut fused = Vec::new();
        for &p in at {
            let Some(Stmt::Instr(a)) = body.get(p) else { break };
            let width_ok = match a.mods.as_slice() {
                [w] if wide => matches!(w.as_str(), "s64" | "u64" | "b64"),
                [w] => matches!(w.as_str(), "s32" | "u32" | "b32"),
                _ => false,
            };
            let [d, q, r] = a.args.as_slice() else { break };
            let other = match (q, r) {
                (Operand::Name(n), o) | (o, Operand::Name(n)) if n == t && name(o) != Some(t) => o,
                _ => break,
            };
            let live = [x, y].iter().all(|o| name(o).is_none_or(|f| live_at(f, p)));
            if a.op != "add" || a.guard.is_some() || !width_ok || !live || p <= k || replace.contains_key(&p) {
                break;
            }
            let mods = [if wide { "wide" } else { "lo" }.into(), sign.clone()].into();
            let args = [d.clone(), x.clone(), y.clone(), other.clone()].into();
            fused.push((p, ast::Instr { pos: a.pos, guard: None, op: "mad".into(), mods, args }));
        }
        if fused.len() == at.len() {
            replace.insert(k, None);
            replace.extend(fused.into_iter().map(|(p, i)| (p, Some(i))));
        }
    }
    if replace.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(body.len());
    for (k, s) in body.iter().enumerate() {
        match replace.get(&k) {
            None => out.push(s.clone()),
            Some(Some(i)) => out.push(Stmt::Instr(i.clone())),
            Some(None) => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    fn body(src: &str) -> Vec<Stmt> {
        let m = crate::parse(&format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{{\n\
             .reg .b32 %r<4>;\n .reg .b64 %rd<8>;\n{src}\n}}\n"
        ))
        .unwrap();
        m.funcs[0].body.clone().unwrap()
    }

    fn text(b: &[Stmt]) -> Vec<String> {
        b.iter()
            .filter_map(|s| if let Stmt::Instr(i) = s { Some(format!("{}.{}", i.op, i.mods.join("."))) } else { None })
            .collect()
    }

    #[test]
    fn a_scaled_index_added_to_a_base_is_one_multiply_add() {
        let b = mad_wide(&body(
            " ld.param.u64 %rd1, [p];\n mul.wide.s32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n\
             ld.global.u32 %r2, [%rd3];\n",
        ))
        .unwrap();
        assert_eq!(text(&b), ["ld.param.u64", "mad.wide.s32", "ld.global.u32"]);
        let Stmt::Instr(i) = &b[b.len() - 2] else { panic!() };
        assert_eq!(
            format!("{:?}", i.args),
            format!(
                "{:?}",
                body(" mad.wide.s32 %rd3, %r1, 4, %rd1;\n")[2..]
                    .iter()
                    .find_map(|s| if let Stmt::Instr(i) = s { Some(i.args.clone()) } else { None })
                    .unwrap()
            )
        );
    }

    #[test]
    fn a_product_several_adds_read_is_folded_into_each() {
        let b = mad_wide(&body(
            " mul.wide.u32 %rd2, %r1, 8;\n add.s64 %rd3, %rd1, %rd2;\n mov.u32 %r2, 1;\n add.s64 %rd4, %rd5, %rd2;\n",
        ))
        .unwrap();
        assert_eq!(text(&b), ["mad.wide.u32", "mov.u32", "mad.wide.u32"]);
    }

    #[test]
    fn a_product_read_otherwise_or_a_guarded_pair_stays_as_it_is() {
        // %rd2 is read by a store, or after a label, or its factor changes: it must stay.
        assert!(
            mad_wide(&body(" mul.wide.u32 %rd2, %r1, 8;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u64 [%rd1], %rd2;\n"))
                .is_none()
        );
        assert!(mad_wide(&body(" mul.wide.u32 %rd2, %r1, 8;\n L1:\n add.s64 %rd3, %rd1, %rd2;\n")).is_none());
        assert!(
            mad_wide(&body(" mul.wide.u32 %rd2, %r1, 8;\n add.u32 %r1, %r1, 1;\n add.s64 %rd3, %rd1, %rd2;\n"))
                .is_none()
        );
        assert!(
            mad_wide(&body(" .reg .pred %p;\n mul.wide.s32 %rd2, %r1, 4;\n @%p add.s64 %rd3, %rd1, %rd2;\n")).is_none()
        );
        // An add of two products fuses with the first; the second stays a product.
        let b =
            mad_wide(&body(" mul.wide.u32 %rd2, %r1, 8;\n mul.wide.u32 %rd3, %r2, 4;\n add.s64 %rd4, %rd2, %rd3;\n"))
                .unwrap();
        assert_eq!(text(&b), ["mul.wide.u32", "mad.wide.u32"]);
        // Not a 64-bit add.
        assert!(mad_wide(&body(" mul.lo.s32 %r2, %r1, 4;\n add.s32 %r3, %r2, %r1;\n")).is_none());
    }
}

#[cfg(test)]
mod recomputed_tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    fn run(src: &str) -> Option<Vec<String>> {
        let m = crate::parse(&format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u32 n)\n{{\n\
             .reg .pred %p<4>;\n .reg .b32 %r<24>;\n .reg .b64 %rd<8>;\n ld.param.u32 %r10, [n];\n\
             mov.u32 %r3, %tid.x;\n{src}\n}}\n"
        ))
        .unwrap();
        recomputed(&m.funcs[0].body.clone().unwrap()).map(|b| {
            b.iter()
                .filter_map(|s| if let Stmt::Instr(i) = s { Some(format!("{} {:?}", i.op, i.args)) } else { None })
                .collect()
        })
    }

    #[test]
    fn a_product_made_before_a_loop_is_recomputed_where_it_is_added() {
        // The tiled matrix multiply's `row * n` (%r6): its factors are compared and read
        // after the loop, so they are live at the add anyway.
        let out = run(" mul.lo.s32 %r6, %r3, %r10;\n mov.u32 %r18, 0;\n setp.lt.s32 %p2, %r3, %r10;\n L:\n\
                       add.s32 %r19, %r18, %r6;\n add.s32 %r18, %r19, 1;\n setp.lt.s32 %p1, %r18, 99;\n @%p1 bra L;\n\
                       mad.lo.s32 %r20, %r3, %r10, %r18;\n")
        .unwrap();
        assert!(!out.iter().any(|l| l.starts_with("mul")), "{out:?}");
        assert!(out.iter().any(|l| l.starts_with("mad") && l.contains("%r19") && l.contains("%r18")), "{out:?}");
        // The same with a scaled index added to a 64-bit base after a label.
        let out = run(" mul.wide.s32 %rd1, %r3, 4;\n mov.u64 %rd2, 0;\n L:\n add.s64 %rd3, %rd2, %rd1;\n\
                       ld.global.u32 %r1, [%rd3];\n add.s64 %rd2, %rd2, 8;\n setp.lt.u32 %p1, %r1, %r3;\n @%p1 bra L;\n")
        .unwrap();
        assert!(out.iter().any(|l| l.starts_with("mad") && l.contains("Int(4)")), "{out:?}");
    }

    #[test]
    fn a_product_whose_factors_would_live_longer_stays() {
        // %r3 and %r10 are not read after the add, nor in its loop: the product keeps them
        // from living on.
        assert!(run(" mul.lo.s32 %r6, %r3, %r10;\n L:\n add.s32 %r19, %r19, %r6;\n setp.lt.s32 %p1, %r19, 99;\n @%p1 bra L;\n").is_none());
        // A factor defined in a loop, a product read otherwise, a guarded add: it stays.
        assert!(
            run(" L:\n add.s32 %r3, %r3, 1;\n mul.lo.s32 %r6, %r3, %r10;\n add.s32 %r7, %r6, 1;\n\
                      setp.lt.s32 %p1, %r3, %r7;\n @%p1 bra L;\n")
            .is_none()
        );
        assert!(
            run(" mul.lo.s32 %r6, %r3, %r10;\n L:\n add.s32 %r7, %r6, 1;\n st.global.u32 [%rd1], %r6;\n\
                      setp.lt.s32 %p1, %r3, %r10;\n @%p1 bra L;\n")
            .is_none()
        );
        assert!(
            run(" mul.lo.s32 %r6, %r3, %r10;\n L:\n @%p2 add.s32 %r7, %r6, 1;\n\
                      setp.lt.s32 %p1, %r3, %r10;\n @%p1 bra L;\n")
            .is_none()
        );
    }
}
