//! Before selection: copy propagation (a register copied once from a register defined
//! once becomes an alias, and the copy disappears) and constant operands (a register that
//! only ever holds a kernel parameter, the grid's shape, an immediate or a symbol's
//! address is read where it is used, as `c[0][...]` or an immediate, and takes no
//! register).

use super::{Kc, Operand, Place, Src, Stmt, ast, isa_ty};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::string::ToString;
use alloc::vec::Vec;
use hw::isa::{ConstRef, Ty};

/// A copy whose destination is an alias of its source (emits nothing).
pub(crate) fn is_alias_copy(i: &ast::Instr, alias: &BTreeMap<String, String>) -> bool {
    matches!(i.args.first(), Some(Operand::Name(d)) if alias.contains_key(d)) && copy_operands(i).is_some()
}

/// `(dst, src)` of an unguarded register-to-register copy: `mov` of a 32- or 64-bit
/// register, or `cvta.to.global` (an identity in rgdev's flat address space).
pub(crate) fn copy_operands(i: &ast::Instr) -> Option<(&str, &str)> {
    let plain = (i.op == "mov"
        && i.mods.len() == 1
        && matches!(i.mods[0].as_str(), "u32" | "s32" | "b32" | "u64" | "s64" | "b64" | "f32" | "f64"))
        || (i.op == "cvta" && i.has("to") && i.has("global"));
    match (plain, i.guard.is_none(), i.args.as_slice()) {
        (true, true, [Operand::Name(d), Operand::Name(s)]) if d.starts_with('%') && s.starts_with('%') => Some((d, s)),
        _ => None,
    }
}

/// Copy propagation: when the destination and the source of a copy are each defined
/// exactly once in the body, every use of the destination sees the source's only value,
/// so the destination can name the source's register and the copy disappears. Counting a
/// definition for every instruction whose first operand names a register over-counts,
/// which only makes the rule more careful.
pub(crate) fn copies(body: &[Stmt], regs: &BTreeMap<String, (u8, String)>) -> BTreeMap<String, String> {
    let defs = definitions(body);
    let mut alias = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s
            && let Some((d, src)) = copy_operands(i)
            && defs.get(d) == Some(&1)
            && defs.get(src) == Some(&1)
            && regs.contains_key(d)
            && regs.contains_key(src)
        {
            // Follow chains of copies to the original.
            let mut root = src.to_string();
            while let Some(r) = alias.get(&root) {
                root = String::clone(r);
            }
            alias.insert(d.to_string(), root);
        }
    }
    alias
}

/// How many instructions name each register as a destination. Counting a definition for
/// every instruction whose first operand names a register over-counts, which only makes
/// the rules that want one definition more careful.
pub(crate) fn definitions(body: &[Stmt]) -> BTreeMap<&str, u32> {
    let mut defs: BTreeMap<&str, u32> = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            let mut firsts: Vec<&Operand> = Vec::new();
            match i.args.first() {
                Some(Operand::Vector(v)) => firsts.extend(v.iter()),
                // A call's return values (`call (%r1), f, (...)`).
                Some(Operand::List(v)) if i.op == "call" => firsts.extend(v.iter()),
                Some(o) => firsts.push(o),
                None => {}
            }
            if two_destinations(i) {
                firsts.push(&i.args[1]); // the `p|q` (`d|p`) second destination
            }
            for o in firsts {
                if let Operand::Name(n) = o {
                    *defs.entry(n.as_str()).or_default() += 1;
                }
            }
        }
    }
    defs
}

/// Whether `i` writes a second destination (`setp.lt.s32 %p|%q, a, b`, `elect.sync %r|%p,
/// mask`): the parser gives it as the second operand, so the operand count tells.
pub(crate) fn two_destinations(i: &ast::Instr) -> bool {
    let combined = ["and", "or", "xor"].iter().any(|m| i.has(m));
    match i.op.as_str() {
        "setp" => i.args.len() == if combined { 5 } else { 4 },
        "elect" => i.args.len() == 3,
        _ => false,
    }
}

/// The constant a definition puts in its register, when it is one an instruction can read
/// as an operand: an unguarded scalar `ld.param` of one of the kernel's parameters
/// (`params`: a constant-bank operand), an unguarded scalar `ld.const` of a module
/// constant at a fixed address (`cbank` gives a `.const` symbol's offset in bank 1: a
/// `c[1][...]` operand, as ptxas reads `__constant__` data), a 32-bit `mov` of the grid's shape (`%ntid`,
/// `%nctaid`: a launch constant), or a `mov` of an immediate or of a symbol's address
/// (`sym` gives it: an immediate, relocated for a global).
fn constant_def(
    i: &ast::Instr,
    params: &BTreeMap<String, Place>,
    sym: &dyn Fn(&str) -> Option<Src>,
    cbank: &dyn Fn(&str) -> Option<u64>,
) -> Option<(String, Src)> {
    let (Some(Operand::Name(d)), None) = (i.args.first(), &i.guard) else { return None };
    let tys: Vec<Ty> = i.mods.iter().filter_map(|m| isa_ty(m)).collect();
    let c = match (i.op.as_str(), tys.as_slice(), i.args.get(1)?) {
        ("ld", [ty], Operand::Addr(base, off)) if i.has("param") && !i.has("v2") && !i.has("v4") => {
            let Operand::Name(p) = &**base else { return None };
            let Some(Place::Param(o)) = params.get(p) else { return None };
            if *ty == Ty::Pred {
                return None;
            }
            Src::Const(ConstRef::bank_value(0, ty.bytes(), ty.signed()), (*o as u64).wrapping_add(*off as u64))
        }
        ("ld", [ty], Operand::Addr(base, off))
            if i.has("const") && !i.has("v2") && !i.has("v4") && !ty.half() && *ty != Ty::Pred =>
        {
            let Operand::Name(c) = &**base else { return None };
            Src::Const(ConstRef::bank_value(1, ty.bytes(), ty.signed()), cbank(c)?.wrapping_add(*off as u64))
        }
        ("mov", [Ty::U32 | Ty::S32], Operand::Name(s)) if s.starts_with('%') => {
            Src::Const(ConstRef::launch_value(), Kc::sreg(s)?.launch_offset()?)
        }
        // What the register holds after the `mov`: the immediate in the type's width.
        ("mov", [ty], Operand::Int(v)) if !ty.float() && *ty != Ty::Pred => {
            let bits = ty.bytes() * 8;
            Src::Imm(if bits == 64 { *v } else { v & ((1u64 << bits) - 1) }, false)
        }
        ("mov", [Ty::F32], Operand::F32(b)) => Src::Imm(*b as u64, false),
        ("mov", [Ty::F64], Operand::F64(b)) => Src::Imm(*b, false),
        ("mov", [Ty::U64 | Ty::S64], Operand::Name(s)) => sym(s)?,
        _ => return None,
    };
    Some((d.clone(), c))
}

/// Registers to read as operands instead (see [`constant_def`]): defined once, and never
/// an address, a guard or a call argument (every other use is an operand of [`Kc::src`],
/// which reads the constant). A copy of one (an alias) counts as the original.
pub(crate) fn constants(
    body: &[Stmt],
    alias: &BTreeMap<String, String>,
    params: &BTreeMap<String, Place>,
    sym: &dyn Fn(&str) -> Option<Src>,
    cbank: &dyn Fn(&str) -> Option<u64>,
) -> BTreeMap<String, Src> {
    let defs = definitions(body);
    let mut found: BTreeMap<String, Src> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::Instr(i) => constant_def(i, params, sym, cbank),
            _ => None,
        })
        .filter(|(d, _)| defs.get(d.as_str()) == Some(&1))
        .collect();
    fn addresses(o: &Operand, inside: bool, out: &mut Vec<String>) {
        match o {
            Operand::Name(n) if inside => out.push(n.clone()),
            Operand::Addr(b, _) => addresses(b, true, out),
            Operand::Tex(v) => v.iter().for_each(|x| addresses(x, true, out)),
            Operand::Not(b) => addresses(b, inside, out),
            Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|x| addresses(x, inside, out)),
            _ => {}
        }
    }
    let looped = super::pressure::in_loops(body);
    for (at, s) in body.iter().enumerate() {
        let Stmt::Instr(i) = s else { continue };
        let mut bad = Vec::new();
        if i.op == "call" {
            bad.extend(names_in(core::slice::from_ref(s)));
        }
        i.args.iter().for_each(|a| addresses(a, false, &mut bad));
        bad.extend(i.guard.as_ref().map(|g| g.1.clone()));
        for n in bad {
            let root = alias.get(&n).unwrap_or(&n);
            found.remove(root);
        }
        // An instruction has one immediate slot: a register that would be a second
        // immediate operand (beside a literal or another folded register) in a loop stays
        // a register, or every iteration would first move it into one (outside loops the
        // move happens once, and the register is saved everywhere else).
        let mut literals = 0;
        let mut folded = Vec::new();
        for a in i.args.iter().skip(1) {
            match a {
                Operand::Int(_) | Operand::Float(_) | Operand::F32(_) | Operand::F64(_) => literals += 1,
                Operand::Name(n) => {
                    let root = alias.get(n).unwrap_or(n);
                    if found.contains_key(root) {
                        folded.push(root.clone());
                    }
                }
                _ => {}
            }
        }
        if literals + folded.len() > 1 && looped[at] {
            // Keep the first when it is named once and is the only immediate, or when it is
            // a constant-bank operand (a kernel parameter: a literal beside it is moved into
            // a register at the use, as ptxas does, a short-lived one instead of a pair held
            // across the loop); drop the rest.
            let keep = folded
                .first()
                .filter(|&first| {
                    let once = folded.iter().filter(|n| *n == first).count() == 1;
                    once && (literals == 0 || matches!(found.get(first), Some(Src::Const(..))))
                })
                .cloned();
            for n in folded.iter().filter(|n| Some(*n) != keep.as_ref()) {
                found.remove(n);
            }
        }
    }
    found
}

/// Every name a function body mentions in its operands.
pub(crate) fn names_in(body: &[Stmt]) -> alloc::collections::BTreeSet<String> {
    let mut out = alloc::collections::BTreeSet::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            i.args.iter().for_each(|a| {
                a.each_name(&mut |n| {
                    out.insert(n.to_string());
                })
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::definitions;

    #[test]
    fn a_comparison_defines_its_predicates_only() {
        let m = crate::parse(
            ".version 7.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n .reg .pred %p<4>;\n .reg .b32 %r<4>;\n\
             mov.u32 %r1, 7;\n setp.lt.s32 %p1, %r1, 9;\n setp.lt.and.s32 %p2, %r1, 3, %p1;\n\
             setp.gt.s32 %p3|%p0, %r1, %r2;\n elect.sync %r3|%p0, -1;\n}\n",
        )
        .unwrap();
        let body = m.funcs[0].body.clone().unwrap();
        let defs = definitions(&body);
        // %r1 is read by three comparisons and defined once; `p|q` and `d|p` define both.
        assert_eq!(defs.get("%r1"), Some(&1));
        assert_eq!(defs.get("%r2"), None);
        assert_eq!((defs.get("%p3"), defs.get("%p0"), defs.get("%r3")), (Some(&1), Some(&2), Some(&1)));
    }
}
