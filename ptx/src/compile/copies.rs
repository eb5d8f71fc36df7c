//! Copy propagation before selection: a register copied once from a register defined once
//! becomes an alias, and the copy disappears.

use super::*;

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
    let mut defs: BTreeMap<&str, u32> = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            let mut firsts: Vec<&Operand> = Vec::new();
            match i.args.first() {
                Some(Operand::Vector(v)) => firsts.extend(v.iter()),
                Some(o) => firsts.push(o),
                None => {}
            }
            if i.args.len() > 1 && i.op == "setp" {
                firsts.push(&i.args[1]); // the `p|q` second destination
            }
            for o in firsts {
                if let Operand::Name(n) = o {
                    *defs.entry(n.as_str()).or_default() += 1;
                }
            }
        }
    }
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

/// Every name a function body mentions in its operands.
pub(crate) fn names_in(body: &[Stmt]) -> alloc::collections::BTreeSet<String> {
    fn walk(o: &Operand, out: &mut alloc::collections::BTreeSet<String>) {
        match o {
            Operand::Name(n) => {
                out.insert(n.clone());
            }
            Operand::Addr(b, _) | Operand::Not(b) => walk(b, out),
            Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = alloc::collections::BTreeSet::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            i.args.iter().for_each(|a| walk(a, &mut out));
        }
    }
    out
}
