//! Loop-invariant literals in registers, as ptxas keeps them: an instruction has one
//! immediate slot, so a second literal operand (`fma.rn.f32 %f1, %f1, 0f3F7FBE77,
//! 0f3F000000`, `selp.b32 %r1, 1, 0, %p`) must be moved into a register first. Inside a
//! loop that move would run on every iteration; ptxas moves each such constant into a
//! register once, before the function's first instruction, and the loop reads the register.
//! The constant costs a register for the whole function, as it does on the real part.

use super::{Operand, Stmt, ast};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The operand type of an instruction whose sources are all of its one type, for the
/// instructions this pass rewrites; `None` for every other instruction.
fn source_type(i: &ast::Instr) -> Option<&str> {
    let ty = i.mods.last()?.as_str();
    let plain = matches!(ty, "f32" | "f64" | "b32" | "s32" | "u32" | "b64" | "s64" | "u64");
    match i.op.as_str() {
        "fma" | "selp" => plain.then_some(ty),
        // `mad.wide` adds an operand twice as wide as its factors.
        "mad" if !i.has("wide") => plain.then_some(ty),
        _ => None,
    }
}

fn literal(o: &Operand) -> bool {
    matches!(o, Operand::Int(_) | Operand::Float(_) | Operand::F32(_) | Operand::F64(_))
}

/// `body` with the second and further literal operands of `fma`, `mad` and `selp` inside
/// loops read from registers defined once at the function's start, or `None` when there
/// are none (or when `room`, the PTX registers the function may still declare, is less
/// than the registers that would take).
pub(crate) fn literals(body: &[Stmt], room: usize) -> Option<Vec<Stmt>> {
    let looped = super::pressure::in_loops(body);
    // (type, literal) -> register, in order of first use.
    let mut regs: Vec<(String, Operand, String)> = Vec::new();
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len() + 4);
    let mut changed = BTreeMap::new();
    for (k, s) in body.iter().enumerate() {
        let Stmt::Instr(i) = s else { continue };
        let Some(ty) = source_type(i).filter(|_| looped[k]) else { continue };
        let lits: Vec<usize> = (1..i.args.len()).filter(|&a| literal(&i.args[a])).collect();
        if lits.len() < 2 {
            continue;
        }
        let mut j = i.clone();
        for &a in &lits[1..] {
            let at = match regs.iter().position(|(t, v, _)| t == ty && *v == i.args[a]) {
                Some(p) => p,
                None => {
                    regs.push((ty.into(), i.args[a].clone(), format!("%__rgdev_k{}", regs.len())));
                    regs.len() - 1
                }
            };
            j.args[a] = Operand::Name(regs[at].2.clone());
        }
        changed.insert(k, j);
    }
    if changed.is_empty() || regs.len() > room {
        return None;
    }
    // Declarations and moves before the first instruction or label.
    let first = body.iter().position(|s| matches!(s, Stmt::Instr(_) | Stmt::Label(..))).unwrap_or(body.len());
    out.extend(body[..first].iter().cloned());
    let pos = body.get(first).and_then(|s| if let Stmt::Instr(i) = s { Some(i.pos) } else { None });
    for (ty, _, name) in &regs {
        out.push(Stmt::Reg(ty.clone(), alloc::vec![name.clone()]));
    }
    for (ty, v, name) in &regs {
        out.push(Stmt::Instr(ast::Instr {
            pos: pos.unwrap_or_default(),
            guard: None,
            op: "mov".into(),
            mods: alloc::vec![ty.clone()],
            args: alloc::vec![Operand::Name(name.clone()), v.clone()],
        }));
    }
    for (k, s) in body.iter().enumerate().skip(first) {
        out.push(changed.remove(&k).map_or_else(|| s.clone(), Stmt::Instr));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Vec<Stmt> {
        let m = crate::parse(&format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{{\n\
             .reg .b32 %r<4>;\n .reg .f32 %f<4>;\n .reg .pred %p;\n{src}\n}}\n"
        ))
        .unwrap();
        m.funcs[0].body.clone().unwrap()
    }

    fn text(b: &[Stmt]) -> Vec<String> {
        b.iter()
            .filter_map(|s| match s {
                Stmt::Instr(i) => Some(format!("{}.{} {:?}", i.op, i.mods.join("."), i.args)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_second_literal_in_a_loop_is_moved_to_a_register_once() {
        let b = literals(
            &body(
                " mov.u32 %r1, 0;\nL:\n fma.rn.f32 %f1, %f1, 0f3F7FBE77, 0f3F000000;\n\
                 fma.rn.f32 %f2, %f2, 0f3F7FBE77, 0f3F000000;\n selp.b32 %r2, 1, 0, %p;\n\
                 add.u32 %r1, %r1, 1;\n setp.lt.u32 %p, %r1, 16;\n @%p bra L;\n",
            ),
            10,
        )
        .unwrap();
        let t = text(&b);
        // Two constants (one shared by both FMAs), moved before the first instruction.
        assert!(t[0].starts_with("mov.f32 [Name(\"%__rgdev_k0\"), F32(1056964608)]"), "{t:?}");
        assert!(t[1].starts_with("mov.b32 [Name(\"%__rgdev_k1\"), Int(0)]"), "{t:?}");
        assert!(t[3].ends_with("F32(1065336439), Name(\"%__rgdev_k0\")]"), "{t:?}");
        assert!(t[4].ends_with("F32(1065336439), Name(\"%__rgdev_k0\")]"), "{t:?}");
        assert!(t[5].contains("Int(1), Name(\"%__rgdev_k1\"), Name(\"%p\")"), "{t:?}");
        // No room: left alone.
        assert!(literals(&body("L:\n fma.rn.f32 %f1, %f1, 0f3F7FBE77, 0f3F000000;\n bra L;\n"), 0).is_none());
    }

    #[test]
    fn outside_loops_and_with_one_literal_nothing_moves() {
        assert!(literals(&body(" fma.rn.f32 %f1, %f1, 0f3F7FBE77, 0f3F000000;\n"), 10).is_none());
        assert!(literals(&body("L:\n fma.rn.f32 %f1, %f1, %f2, 0f3F000000;\n bra L;\n"), 10).is_none());
        // `mad.wide`'s addend is wider than its factors: not rewritten.
        assert!(literals(&body(" .reg .b64 %d;\nL:\n mad.wide.u32 %d, %r1, 4, 8;\n bra L;\n"), 10).is_none());
    }
}
