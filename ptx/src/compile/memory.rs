//! Instruction selection, memory: addresses in each state space (parameters in constant bank
//! 0, module constants in bank 1, shared and local windows, globals by relocation), loads,
//! stores and the argument slots of calls.

use super::{Kc, MemPlace, Operand, Place, Reloc, Result, Segment, Src, Stmt, ast};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{AtomMods, AtomOp, CacheOp, Instr, MemMods, Op, RZ, Space, Ty};

impl<'a> Kc<'a> {
    /// State space, bank and the address (base register, offset, relocation) of `[..]`.
    pub(crate) fn address(&mut self, i: &ast::Instr, op: &Operand) -> Result<(Space, u32, u8, u64, bool)> {
        let Operand::Addr(base, off) = op else { return Err(self.err(format!("`{}` needs an address `[...]`", i.op))) };
        let mut space = if i.has("global") {
            Space::Global
        } else if i.has("shared") {
            Space::Shared
        } else if i.has("local") {
            Space::Local
        } else if i.has("const") {
            Space::ConstBank
        } else if i.has("param") {
            Space::Const
        } else {
            Space::Generic
        };
        let bank = if space == Space::ConstBank { 1 } else { 0 };
        let (reg, addr, reloc) = match &**base {
            Operand::Name(n) if self.regs.contains_key(n) => {
                // In a function, a parameter's address (`mov %rd, param` then
                // `ld.param [%rd+4]`, as clang writes for a struct passed by value) is its
                // place in the function's frame.
                if space == Space::Const && self.func {
                    space = Space::Local;
                }
                (self.reg(n)?, *off as u64, false)
            }
            Operand::Name(n) if space == Space::Const && self.place(n).is_none() => {
                // A call site's parameter or return value: the callee's frame.
                let slot = self.call_slot(n, i.op == "st")?;
                space = Space::Local;
                (RZ, (slot as u64).wrapping_add(*off as u64), false)
            }
            Operand::Name(n) => {
                let (place, a, reloc) = self.symbol(n)?;
                if matches!(place, Place::Local(_)) && space == Space::Const {
                    space = Space::Local; // a function's own parameter or return value
                }
                // A bare symbol names its own space even under a generic access.
                if space == Space::Generic {
                    space = match place {
                        Place::Global(_) => Space::Global,
                        Place::Shared(_) => Space::Shared,
                        Place::Local(_) => Space::Local,
                        Place::Const(_) => Space::ConstBank,
                        Place::Param(_) => Space::Const,
                    };
                }
                (RZ, a.wrapping_add(*off as u64), reloc)
            }
            Operand::Int(v) => (RZ, v.wrapping_add(*off as u64), false),
            _ => return Err(self.err("bad address")),
        };
        let bank = if space == Space::ConstBank { 1 } else { bank };
        Ok((space, bank, reg, addr, reloc))
    }

    /// Frame offset of call-site parameter `name`: stores go to the next call that passes
    /// it, loads of a return value come from the last call that returned it.
    pub(crate) fn call_slot(&self, name: &str, store: bool) -> Result<u32> {
        let here = self.stmt;
        let found = if store {
            self.calls
                .iter()
                .filter(|c| c.0 >= here)
                .find_map(|c| c.2.iter().position(|a| a == name).map(|k| (c.1.clone(), k, false)))
        } else {
            self.calls
                .iter()
                .rev()
                .filter(|c| c.0 <= here)
                .find_map(|c| c.3.iter().position(|a| a == name).map(|k| (c.1.clone(), k, true)))
        };
        let (callee, k, ret) = found.ok_or_else(|| self.err(format!("unknown symbol `{name}`")))?;
        let fr = self.frames.get(&callee).ok_or_else(|| self.err(format!("call to unknown function `{callee}`")))?;
        let slot = if ret { fr.rets.get(k) } else { fr.params.get(k) };
        slot.map(|s| s.0).ok_or_else(|| self.err(format!("too many arguments in the call of `{callee}`")))
    }

    pub(crate) fn vec_of(&self, i: &ast::Instr) -> u32 {
        if i.has("v4") {
            4
        } else if i.has("v2") {
            2
        } else {
            1
        }
    }

    /// One load (`op` LD, into `val`) or store (ST, of `val`) of `ty` at `place` (space,
    /// bank, register, offset, relocated) plus `at` bytes.
    pub(crate) fn mem_access(&mut self, op: Op, ty: Ty, place: MemPlace, at: u64, val: u8) -> Result<()> {
        let (space, bank, reg, addr, reloc) = place;
        let mut x = Instr::new(op, ty);
        x.w0.set_a(reg);
        if op == Op::Ld {
            x.w0.set_dst(val);
        } else {
            x.w0.set_b(val);
        }
        x.w0.set_m(MemMods::encode(space, 1, bank));
        x.imm = addr.wrapping_add(at);
        let k = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at: k, segment: Segment::Global });
        }
        Ok(())
    }

    /// The atomic `aop` of `ty` at `place` with operands `b` and `c` (registers): `d` = the
    /// value before.
    pub(crate) fn atom_at(&mut self, ty: Ty, place: MemPlace, d: u8, (b, c): (u8, u8), aop: AtomOp) -> Result<()> {
        let (space, _, reg, addr, reloc) = place;
        let mut x = Instr::new(Op::Atom, ty);
        x.w0.set_dst(d);
        x.w0.set_a(reg);
        x.w0.set_b(b);
        x.w0.set_c(c);
        x.w0.set_m(AtomMods::encode(space, aop));
        x.imm = addr;
        let k = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at: k, segment: Segment::Global });
        }
        Ok(())
    }

    pub(crate) fn ld(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let n = self.vec_of(i);
        let (space, bank, reg, addr, reloc) = self.address(i, self.arg(i, 1)?)?;
        let mut x = Instr::new(Op::Ld, ty);
        x.w0.set_a(reg);
        x.w0.set_m(mem_mods(i, space, n, bank));
        x.imm = addr;
        // One register is loaded into directly; a vector into the group, then moved.
        let d = self.arg(i, 0)?;
        let direct = match single(d) {
            Some(o) if n == 1 => Some(self.dst(o)?),
            _ => None,
        };
        x.w0.set_dst(direct.unwrap_or(self.scratch_vec));
        let at = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        if direct.is_none() { self.group_to_dsts(d, n) } else { Ok(()) }
    }

    /// Move the first vector group's `n` registers to the destinations `d` names (`_`
    /// skipped): the results of a vector load, a texture fetch or a surface load.
    pub(crate) fn group_to_dsts(&mut self, d: &Operand, n: u32) -> Result<()> {
        let dsts: Vec<u8> = match d {
            Operand::Vector(v) => v.iter().map(|o| self.dst(o)).collect::<Result<_>>()?,
            o => vec![self.dst(o)?],
        };
        if dsts.len() as u32 != n {
            return Err(self.err("vector width and operand count differ"));
        }
        let g = self.scratch_vec;
        // A destination read in place (see `in_group`) is the group's register already.
        for (k, r) in dsts.into_iter().enumerate().filter(|&(k, r)| r != RZ && r != g + k as u8) {
            self.emit(Op::Mov, Ty::U64, r, [Some(Src::Reg(g + k as u8)), None, None], 0)?;
        }
        Ok(())
    }

    /// Move the `n` values `vals` names into the first vector group and return its first
    /// register: the data of a vector store or a surface store.
    pub(crate) fn vals_to_group(&mut self, vals: &Operand, n: u32, ty: Ty) -> Result<u8> {
        let vals: Vec<&Operand> = match vals {
            Operand::Vector(v) => v.iter().collect(),
            o => vec![o],
        };
        if vals.len() as u32 != n {
            return Err(self.err("vector width and operand count differ"));
        }
        let sv = self.scratch_vec;
        for (k, v) in vals.into_iter().enumerate() {
            let s = self.src(v, ty)?;
            self.emit(Op::Mov, Ty::U64, sv + k as u8, [Some(s), None, None], 0)?;
        }
        Ok(sv)
    }

    pub(crate) fn st(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let n = self.vec_of(i);
        let (space, bank, reg, addr, reloc) = self.address(i, self.arg(i, 0)?)?;
        if matches!(space, Space::Const | Space::ConstBank) {
            return Err(self.err("stores to the constant or parameter space are not supported"));
        }
        let vals = self.arg(i, 1)?;
        let b = match single(vals) {
            Some(o) if n == 1 => {
                let s = self.src(o, ty)?;
                self.in_reg(s)?
            }
            _ => self.vals_to_group(vals, n, ty)?,
        };
        let mut x = Instr::new(Op::St, ty);
        x.w0.set_a(reg);
        x.w0.set_b(b);
        x.w0.set_m(mem_mods(i, space, n, bank));
        x.imm = addr;
        let at = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        Ok(())
    }
}

/// The modifier bits of a load or store `i` of `n` elements in `space` (constant `bank`):
/// the constant bank, or the cache operator `i` names (PTX ISA, "Cache Operators"). A strong
/// access at GPU or system scope (`.volatile`, `.relaxed`/`.acquire`/`.release` without
/// `.cta`) is kept out of the L1 as `.cg` is: the L2 is where such accesses meet.
fn mem_mods(i: &ast::Instr, space: Space, n: u32, bank: u32) -> u16 {
    if matches!(space, Space::Const | Space::ConstBank) {
        return MemMods::encode(space, n, bank);
    }
    let strong = i.has("volatile") || ["relaxed", "acquire", "release"].iter().any(|m| i.has(m));
    let op = if i.has("cg") || (strong && !i.has("cta")) {
        CacheOp::Global
    } else if i.has("cs") || i.has("lu") {
        CacheOp::Streaming
    } else if i.has("cv") {
        CacheOp::Volatile
    } else {
        CacheOp::Default
    };
    MemMods::encode_cached(space, n, op)
}

/// The one operand `o` is, itself or as a one-element vector (`{%r1}`).
fn single(o: &Operand) -> Option<&Operand> {
    match o {
        Operand::Vector(v) if v.len() == 1 => v.first(),
        Operand::Vector(_) => None,
        o => Some(o),
    }
}

/// Whether `i` uses the first vector group: a vector load, store, texture or surface access
/// (or a call, which the group's values are not kept across).
fn uses_group(i: &ast::Instr) -> bool {
    matches!(i.op.as_str(), "tex" | "tld4" | "suld" | "sust" | "call")
        || i.args.iter().any(|a| matches!(a, Operand::Vector(_)))
}

/// Each register `i` reads (its guard, its operands but the destination; a store's
/// address).
pub(crate) fn each_read<'a>(i: &'a ast::Instr, f: &mut impl FnMut(&'a str)) {
    if let Some((_, g)) = &i.guard {
        f(g);
    }
    let dst = usize::from(!matches!(i.args.first(), Some(Operand::Addr(..))));
    i.args.iter().skip(dst).for_each(|a| a.each_name(f));
}

/// The registers, with their elements, that a vector load's results are read from in
/// place, in the group it loads (ptxas's `LDG.E.128 R4, [R4.64]` followed by
/// `IADD3 R8, R5, R4, R8`: no copies out of the group). A destination is read in place when
/// the load is unguarded, the register is defined by this load only (`defs`), no other
/// register is a copy of it (`copied`), and it is read only after the load and before the
/// next label, by instructions that leave the group alone, with none between the load and
/// its last read that uses the group.
pub(crate) fn in_group(
    body: &[Stmt],
    defs: &BTreeMap<&str, u32>,
    copied: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, u8> {
    let mut reads: BTreeMap<&str, usize> = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            each_read(i, &mut |n| *reads.entry(n).or_default() += 1);
        }
    }
    let mut out = BTreeMap::new();
    for (at, s) in body.iter().enumerate() {
        let Stmt::Instr(i) = s else { continue };
        let Some(Operand::Vector(v)) = i.args.first() else { continue };
        if !matches!(i.op.as_str(), "ld" | "ldu") || i.guard.is_some() || v.len() < 2 {
            continue;
        }
        let names: Vec<&str> =
            v.iter().filter_map(|o| if let Operand::Name(n) = o { Some(n.as_str()) } else { None }).collect();
        let ok = names.len() == v.len() && names.iter().all(|&n| n == "_" || (defs.get(n) == Some(&1) && !copied(n)));
        if !ok {
            continue;
        }
        let elements: Vec<(&str, u8)> =
            names.iter().enumerate().map(|(k, &n)| (n, k as u8)).filter(|x| x.0 != "_").collect();
        // Reads in the window: up to the next label, no use of the group before the last.
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let all_read = |seen: &BTreeMap<&str, usize>| {
            elements.iter().all(|(n, _)| seen.get(n).copied().unwrap_or(0) == reads.get(n).copied().unwrap_or(0))
        };
        let mut fine = true;
        for s in &body[at + 1..] {
            if all_read(&seen) {
                break;
            }
            match s {
                Stmt::Label(..) => fine = false,
                Stmt::Instr(j) if uses_group(j) => fine = false,
                Stmt::Instr(j) => each_read(j, &mut |n| {
                    if let Some(&(m, _)) = elements.iter().find(|(m, _)| *m == n) {
                        *seen.entry(m).or_default() += 1;
                    }
                }),
                _ => {}
            }
            if !fine {
                break;
            }
        }
        if fine && all_read(&seen) {
            out.extend(elements.iter().map(|&(n, k)| (String::from(n), k)));
        }
    }
    out
}
