//! Constant address parts in the memory instruction, as ptxas puts them there: a shared
//! variable's address or a literal added to an address register (`mov.u64 %rd1, tile;`
//! `add.s64 %rd2, %rd1, %rd3;` `ld.shared.f32 %f1, [%rd2+4];`) becomes the access's offset
//! (`LDS R1, [R3+tile+4]`): the add disappears and no register holds the symbol. Two
//! tiles indexed alike share one register (`STS [R10]` and `STS [R10+0x1000]` in ptxas's
//! tiled matrix multiply, where the PTX computes two addresses).
//!
//! Each register defined once by such a `mov`, or by an add of at most two registers and
//! constants (through registers already so defined), is a *form*: the registers it sums
//! (its terms) and a constant. When every read of it is the base of a memory access or an
//! operand of another form's add, the constant goes into those accesses' offsets: a form of
//! one term is replaced by that register, one of two terms keeps an add of the two (shared
//! with an earlier form of the same terms in the same block). Otherwise the register is
//! computed, from its terms, where it was. A term read away from where the PTX read it must
//! hold the same value there: defined once, outside every loop (so at most once in a run),
//! or before both places in their basic block.

use super::copies::definitions;
use super::{Operand, Stmt, ast};
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// A register's value as terms plus a constant.
#[derive(Clone)]
struct Form {
    /// Where it is defined.
    at: usize,
    /// The registers summed (at most two).
    terms: Vec<String>,
    /// The constant added.
    c: i64,
    /// 64-bit (else 32-bit).
    wide: bool,
    /// The basic block (labels counted up to here).
    block: usize,
    /// The forms its add reads (their terms and constants taken in).
    from: Vec<String>,
}

fn width(i: &ast::Instr) -> Option<bool> {
    match i.mods.as_slice() {
        [t] if matches!(t.as_str(), "s64" | "u64" | "b64") => Some(true),
        [t] if matches!(t.as_str(), "s32" | "u32" | "b32") => Some(false),
        _ => None,
    }
}

/// Whether `i` reads memory at its address operands (and takes an offset there).
fn accesses(i: &ast::Instr) -> bool {
    matches!(i.op.as_str(), "ld" | "st" | "atom" | "red") && !i.has("param")
}

/// The body with constant address parts folded into the accesses, or `None` when nothing
/// changes. `sym` gives the address of a variable that is an offset in its window (shared
/// memory) and needs no relocation.
pub(crate) fn fold(body: &[Stmt], sym: &dyn Fn(&str) -> Option<u64>) -> Option<Vec<Stmt>> {
    let defs = definitions(body);
    let regs: alloc::collections::BTreeSet<&str> = body
        .iter()
        .filter_map(|s| if let Stmt::Reg(_, n) = s { Some(n) } else { None })
        .flatten()
        .map(String::as_str)
        .collect();
    let once = |n: &str| defs.get(n) == Some(&1);
    let looped = super::pressure::in_loops(body);
    // Each statement's basic block (labels counted) and each register's last definition.
    let mut blocks = Vec::with_capacity(body.len());
    let mut def_at: BTreeMap<&str, usize> = BTreeMap::new();
    for (at, s) in body.iter().enumerate() {
        let b = blocks.last().copied().unwrap_or(0) + usize::from(matches!(s, Stmt::Label(..)));
        blocks.push(b);
        if let Stmt::Instr(i) = s {
            match i.args.first() {
                Some(Operand::Name(n)) => {
                    def_at.insert(n.as_str(), at);
                }
                Some(Operand::Vector(v)) => v.iter().for_each(|o| o.each_name(&mut |n| _ = def_at.insert(n, at))),
                _ => {}
            }
        }
    }
    // Whether register `t`, read at `was`, holds the same value at `now` (after `was`, or
    // a loop's earlier read).
    let same_value = |t: &str, was: usize, now: usize| {
        let Some(&d) = def_at.get(t) else { return false };
        once(t) && (!looped[d] || (blocks[d] == blocks[was] && blocks[was] == blocks[now] && d < was.min(now)))
    };
    // The forms, in order.
    let mut forms: BTreeMap<String, Form> = BTreeMap::new();
    let mut block = 0;
    for (at, s) in body.iter().enumerate() {
        let i = match s {
            Stmt::Instr(i) => i,
            Stmt::Label(..) => {
                block += 1;
                continue;
            }
            _ => continue,
        };
        let (Some(wide), None, Some(Operand::Name(d))) = (width(i), &i.guard, i.args.first()) else { continue };
        if !once(d) || !regs.contains(d.as_str()) {
            continue;
        }
        let form = match (i.op.as_str(), &i.args[1..]) {
            ("mov", [Operand::Name(s)]) if !regs.contains(s.as_str()) => {
                let Some(a) = sym(s) else { continue };
                Form { at, terms: vec![], c: a as i64, wide, block, from: vec![] }
            }
            ("add", [x, y]) => {
                let (mut terms, mut c, mut from) = (Vec::new(), 0i64, Vec::new());
                let (mut ok, mut plain) = (true, true);
                for o in [x, y] {
                    match o {
                        Operand::Int(v) => {
                            c = c.wrapping_add(if wide { *v as i64 } else { *v as u32 as i32 as i64 });
                            plain = false;
                        }
                        Operand::Name(r) if forms.get(r).is_some_and(|f| f.wide == wide) => {
                            let f = &forms[r];
                            ok &= f.terms.iter().all(|t| same_value(t, f.at, at));
                            terms.extend(f.terms.iter().cloned());
                            c = c.wrapping_add(f.c);
                            from.push(r.clone());
                            plain = false;
                        }
                        Operand::Name(r) if regs.contains(r.as_str()) => terms.push(r.clone()),
                        _ => ok = false,
                    }
                }
                // (Two registers added: nothing to fold.)
                if !ok || terms.len() > 2 || plain {
                    continue;
                }
                Form { at, terms, c, wide, block, from }
            }
            _ => continue,
        };
        forms.insert(d.clone(), form);
    }
    if forms.is_empty() {
        return None;
    }
    // A form is folded when every read of it is an access's base or a form's operand.
    let mut folded: BTreeMap<&str, bool> = forms.keys().map(|k| (k.as_str(), true)).collect();
    let mut bases: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (at, s) in body.iter().enumerate() {
        let Stmt::Instr(i) = s else { continue };
        let defines = |n: &str| forms.get(n).is_some_and(|f| f.at == at);
        let reader = match i.args.first() {
            Some(Operand::Name(d)) if defines(d) => Some(&forms[d.as_str()]),
            _ => None,
        };
        for (k, a) in i.args.iter().enumerate() {
            let base_ok = accesses(i) && matches!(a, Operand::Addr(b, _) if matches!(&**b, Operand::Name(_)));
            a.each_name(&mut |n| {
                let taken_in = k > 0 && reader.is_some_and(|f| f.from.iter().any(|x| x == n));
                let fine = (k == 0 && defines(n)) || base_ok || taken_in;
                if base_ok {
                    bases.entry(n).or_default().push(at);
                }
                if !fine && let Some(f) = folded.get_mut(n) {
                    *f = false;
                }
            });
        }
        if let Some((_, g)) = &i.guard
            && let Some(f) = folded.get_mut(g.as_str())
        {
            *f = false;
        }
    }
    // A folded form of one term is replaced by that register, read at the accesses.
    for (n, f) in &forms {
        let uses = bases.get(n.as_str()).map_or(&[][..], |u| &u[..]);
        if f.terms.len() == 1 && !uses.iter().all(|&u| same_value(&f.terms[0], f.at, u)) {
            folded.insert(n, false);
        }
    }
    // Two-term forms: the first of each sum in a block holds it for the rest, when its
    // terms have the same values at each.
    let key = |f: &Form| {
        let mut k = f.terms.clone();
        k.sort();
        (f.block, f.wide, k)
    };
    let mut first_of: BTreeMap<(usize, bool, Vec<String>), &str> = BTreeMap::new();
    for (n, f) in forms.iter().filter(|(n, f)| folded[n.as_str()] && f.terms.len() == 2) {
        let h = first_of.entry(key(f)).or_insert(n.as_str());
        if forms[*h].at > f.at {
            *h = n.as_str();
        }
    }
    let holder = |n: &str| -> String {
        let f = &forms[n];
        match first_of.get(&key(f)) {
            Some(&h) if folded[n] && f.terms.len() == 2 && f.terms.iter().all(|t| same_value(t, forms[h].at, f.at)) => {
                h.to_string()
            }
            _ => n.to_string(),
        }
    };
    // The base and the offset an access to `[n + off]` uses instead.
    let rebase = |n: &str, off: i64| -> Option<(Operand, i64)> {
        let f = forms.get(n).filter(|_| folded[n])?;
        let off = off.wrapping_add(f.c);
        Some(match f.terms.len() {
            0 => (Operand::Int(0), off),
            1 => (Operand::Name(f.terms[0].clone()), off),
            _ => (Operand::Name(holder(n)), off),
        })
    };
    let mut out = Vec::with_capacity(body.len());
    for (at, s) in body.iter().enumerate() {
        let Stmt::Instr(i) = s else {
            out.push(s.clone());
            continue;
        };
        let def = match i.args.first() {
            Some(Operand::Name(d)) => forms.get(d).filter(|f| f.at == at).map(|f| (d, f)),
            _ => None,
        };
        if let Some((d, f)) = def {
            let ty = i.mods.clone();
            let add = |a: Operand, b: Operand| {
                Stmt::Instr(ast::Instr {
                    pos: i.pos,
                    guard: None,
                    op: "add".into(),
                    mods: ty.clone(),
                    args: vec![Operand::Name(d.clone()), a, b],
                })
            };
            let lit = |c: i64| Operand::Int(if f.wide { c as u64 } else { c as u32 as u64 });
            let name = |t: &String| Operand::Name(t.clone());
            if folded[d.as_str()] {
                // Only a sum of two terms is computed, by the first form that has it.
                if f.terms.len() == 2 && holder(d) == *d {
                    out.push(add(name(&f.terms[0]), name(&f.terms[1])));
                }
            } else if f.terms.is_empty() && i.op == "mov" {
                out.push(s.clone());
            } else {
                match f.terms.as_slice() {
                    [] => out.push(Stmt::Instr(ast::Instr {
                        pos: i.pos,
                        guard: None,
                        op: "mov".into(),
                        mods: ty.clone(),
                        args: vec![Operand::Name(d.clone()), lit(f.c)],
                    })),
                    [t] => out.push(add(name(t), lit(f.c))),
                    [t, u] => {
                        out.push(add(name(t), name(u)));
                        if f.c != 0 {
                            out.push(add(Operand::Name(d.clone()), lit(f.c)));
                        }
                    }
                    _ => unreachable!("forms have at most two terms"),
                }
            }
            continue;
        }
        if !accesses(i) {
            out.push(s.clone());
            continue;
        }
        let mut j = i.clone();
        for a in j.args.iter_mut() {
            if let Operand::Addr(b, off) = a
                && let Operand::Name(n) = &**b
                && let Some((base, o)) = rebase(n, *off)
            {
                *a = Operand::Addr(alloc::boxed::Box::new(base), o);
            }
        }
        out.push(Stmt::Instr(j));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    fn fold_src(src: &str) -> Option<Vec<String>> {
        let m = crate::parse(&format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.shared .b8 sh[256];\n.shared .b8 sb[256];\n\
             .entry k(.param .u64 p)\n{{\n .reg .pred %p;\n .reg .b32 %r<8>;\n .reg .b64 %rd<12>;\n{src}\n}}\n"
        ))
        .unwrap();
        let body = m.funcs[0].body.clone().unwrap();
        let at = |n: &str| match n {
            "sh" => Some(0x40),
            "sb" => Some(0x140),
            _ => None,
        };
        fold(&body, &at).map(|b| {
            b.iter()
                .filter_map(|s| if let Stmt::Instr(i) = s { Some(format!("{} {:?}", i.op, i.args)) } else { None })
                .collect()
        })
    }

    #[test]
    fn a_shared_variable_added_to_an_index_is_the_access_offset() {
        let out = fold_src(
            " mov.u64 %rd1, sh;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.shared.u32 [%rd3+4], %r1;\n",
        )
        .unwrap();
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[1].starts_with("st ") && out[1].contains("Name(\"%rd2\")") && out[1].contains("68"), "{out:?}");
    }

    #[test]
    fn a_register_a_call_also_returns_is_not_a_form() {
        // %rd1 holds the symbol, then what `f` returns: the access reads the register.
        let out = fold_src(
            " mov.u64 %rd1, sh;\n call (%rd1), f, ();\n add.s64 %rd3, %rd1, %rd2;\n st.shared.u32 [%rd3], %r1;\n",
        );
        assert!(out.is_none(), "{out:?}");
    }

    #[test]
    fn two_tiles_indexed_alike_share_one_register() {
        // The tiled matrix multiply's addresses: (tile + row) + column for two tiles.
        let out = fold_src(
            " mov.u64 %rd1, sh;\n mov.u64 %rd2, sb;\n mul.wide.u32 %rd3, %r1, 128;\n mul.wide.u32 %rd4, %r2, 4;\n\
             add.s64 %rd5, %rd1, %rd3;\n add.s64 %rd6, %rd5, %rd4;\n add.s64 %rd7, %rd2, %rd3;\n\
             add.s64 %rd8, %rd7, %rd4;\n st.shared.u32 [%rd6], %r1;\n st.shared.u32 [%rd8], %r1;\n",
        )
        .unwrap();
        let adds: Vec<&String> = out.iter().filter(|l| l.starts_with("add")).collect();
        assert_eq!(adds.len(), 1, "{out:?}");
        assert!(out.iter().any(|l| l.starts_with("st ") && l.contains("Name(\"%rd6\")") && l.contains(", 64)")));
        assert!(out.iter().any(|l| l.starts_with("st ") && l.contains("Name(\"%rd6\")") && l.contains(", 320)")));
    }

    #[test]
    fn an_address_read_otherwise_or_whose_parts_change_is_computed() {
        // Stored as a value: computed (from the index, the symbol a literal).
        let out = fold_src(
            " ld.param.u64 %rd9, [p];\n mov.u64 %rd1, sh;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n\
             st.global.u64 [%rd9], %rd3;\n",
        )
        .unwrap();
        assert!(out.iter().any(|l| l.starts_with("add") && l.contains("%rd3") && l.contains("Int(64)")), "{out:?}");
        // In a loop, the index is computed again after the access that reads last
        // iteration's address: the add stays, and the access reads it.
        let out = fold_src(
            " mov.u64 %rd1, sh;\n L:\n st.shared.u32 [%rd3], %r1;\n mul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\n add.u32 %r1, %r1, 1;\n setp.lt.u32 %p, %r1, 9;\n @%p bra L;\n",
        );
        let out = out.unwrap();
        assert!(out.iter().any(|l| l.starts_with("st ") && l.contains("%rd3")), "{out:?}");
        assert!(out.iter().any(|l| l.starts_with("add") && l.contains("%rd3") && l.contains("Int(64)")), "{out:?}");
        let out = fold_src(
            " mov.u64 %rd1, sh;\n mul.wide.u32 %rd2, %r1, 4;\n L:\n add.s64 %rd3, %rd1, %rd2;\n st.shared.u32 [%rd3], %r1;\n\
             mul.wide.u32 %rd4, %r1, 4;\n add.s64 %rd5, %rd1, %rd4;\n add.u32 %r1, %r1, 1;\n st.shared.u32 [%rd5], %r1;\n\
             setp.lt.u32 %p, %r1, 9;\n @%p bra L;\n",
        )
        .unwrap();
        // rd2 is defined once outside the loop: its access folds; rd4 in the same block
        // before the access: folds too.
        assert!(!out.iter().any(|l| l.starts_with("add") && l.contains("%rd")), "{out:?}");
        assert!(out.iter().any(|l| l.starts_with("st ") && l.contains("%rd4") && l.contains(", 64)")), "{out:?}");
    }
}
