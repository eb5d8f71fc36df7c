//! Fusing what ptxas fuses: a 32-bit index widened and scaled (`mul.wide.s32 %t, %i, 4`)
//! and added to a 64-bit base at once (`add.s64 %a, %base, %t`) is one multiply-add
//! (`mad.wide.s32 %a, %i, 4, %base`), as ptxas makes it one `IMAD.WIDE`. The address
//! arithmetic of nearly every array access takes this shape; keeping it one instruction
//! keeps the dependent chains (and the cycles) those accesses cost on a real part.

use super::{Operand, Stmt, ast};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The body with each fusable `mul.wide` + `add` pair made one `mad.wide`, or `None` when
/// there is none. A pair fuses when the two are adjacent and unguarded, the product's
/// register is defined and read nowhere else, and the add is a plain 64-bit one.
pub(crate) fn mad_wide(body: &[Stmt]) -> Option<Vec<Stmt>> {
    let mut mentions: BTreeMap<&str, u32> = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            for a in &i.args {
                a.each_name(&mut |n| *mentions.entry(n).or_default() += 1);
            }
        }
    }
    let fusable = |k: usize| -> Option<ast::Instr> {
        let (Stmt::Instr(m), Stmt::Instr(a)) = (body.get(k)?, body.get(k + 1)?) else { return None };
        let sign = match (m.op.as_str(), m.mods.as_slice()) {
            ("mul", [w, t]) if w == "wide" && matches!(t.as_str(), "s32" | "u32") => t,
            _ => return None,
        };
        let wide64 = matches!(a.mods.as_slice(), [t] if matches!(t.as_str(), "s64" | "u64" | "b64"));
        if m.guard.is_some() || a.guard.is_some() || a.op != "add" || !wide64 {
            return None;
        }
        let ([Operand::Name(t), x, y], [d, p, q]) = (m.args.as_slice(), a.args.as_slice()) else { return None };
        let base = match (p, q) {
            (Operand::Name(n), other) | (other, Operand::Name(n)) if n == t => other,
            _ => return None,
        };
        if mentions.get(t.as_str()) != Some(&2) || matches!(base, Operand::Name(n) if n == t) {
            return None;
        }
        Some(ast::Instr {
            pos: a.pos,
            guard: None,
            op: "mad".into(),
            mods: ["wide".into(), sign.clone()].into(),
            args: [d.clone(), x.clone(), y.clone(), base.clone()].into(),
        })
    };
    let mut out: Option<Vec<Stmt>> = None;
    let mut k = 0;
    while k < body.len() {
        if let Some(f) = fusable(k) {
            out.get_or_insert_with(|| body[..k].to_vec()).push(Stmt::Instr(f));
            k += 2;
        } else {
            if let Some(o) = out.as_mut() {
                o.push(body[k].clone());
            }
            k += 1;
        }
    }
    out
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
    fn a_product_read_twice_or_a_guarded_pair_stays_as_it_is() {
        // %rd2 is read again: it must stay.
        assert!(
            mad_wide(&body(" mul.wide.u32 %rd2, %r1, 8;\n add.s64 %rd3, %rd1, %rd2;\n add.s64 %rd4, %rd5, %rd2;\n"))
                .is_none()
        );
        assert!(
            mad_wide(&body(" .reg .pred %p;\n mul.wide.s32 %rd2, %r1, 4;\n @%p add.s64 %rd3, %rd1, %rd2;\n")).is_none()
        );
        // Not adjacent, or not a 64-bit add.
        assert!(
            mad_wide(&body(" mul.wide.s32 %rd2, %r1, 4;\n mov.u32 %r1, 0;\n add.s64 %rd3, %rd1, %rd2;\n")).is_none()
        );
        assert!(mad_wide(&body(" mul.lo.s32 %r2, %r1, 4;\n add.s32 %r3, %r2, %r1;\n")).is_none());
    }
}
