//! Instruction selection, the plumbing: operands (registers, immediates, special registers,
//! symbols), destinations, and emitting one device instruction with its immediate slot.

use super::{Kc, Operand, Place, PtxError, Reloc, Result, Segment, Src, ast, isa_ty};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use hw::isa::{ConstRef, Imm, Instr, LAUNCH_ENVREG, Op, RZ, Sreg, Ty};

/// Scratch registers that may hold literals across instructions (see `Kc::in_reg`).
const LIT_REGS: usize = 2;

impl<'a> Kc<'a> {
    pub(crate) fn err(&self, msg: impl Into<String>) -> PtxError {
        self.pos.err(msg)
    }

    pub(crate) fn here(&self) -> u32 {
        self.prog.code.len() as u32
    }

    pub(crate) fn push(&mut self, mut i: Instr) -> u32 {
        if let Some((neg, g)) = self.guard {
            i.w0.set_guard(g);
            i.w0.set_guard_neg(neg);
        }
        if matches!(i.w0.op(), Op::Bra | Op::Call | Op::Ret | Op::Exit | Op::Trap) {
            // Past a branch the lanes may differ: literals are set again.
            self.lits.clear();
        }
        self.prog.code.push(i);
        self.prog.lines.push(self.pos.line);
        self.here() - 1
    }

    pub(crate) fn reg(&self, name: &str) -> Result<u8> {
        let name = self.alias.get(name).map_or(name, |a| a.as_str());
        if self.consts.contains_key(name) {
            // `constants` keeps every use that needs a register out of `consts`.
            return Err(self.err(format!("internal error: `{name}` is a constant operand here")));
        }
        self.regs.get(name).map(|r| r.0).ok_or_else(|| self.err(format!("unknown register `{name}`")))
    }

    /// The definition of a register read as a constant operand (it emits nothing).
    pub(crate) fn is_constant_def(&self, i: &ast::Instr) -> bool {
        matches!(i.args.first(), Some(Operand::Name(d)) if self.consts.contains_key(d))
    }

    pub(crate) fn scratch(&mut self) -> Result<u8> {
        // Literals this instruction does not read give their registers back.
        let stmt = self.stmt;
        if self.scratch >= self.lit_floor() {
            self.lits.retain(|l| l.3 == stmt);
        }
        if self.scratch >= self.lit_floor() {
            return Err(self.err("instruction too complex (out of scratch registers)"));
        }
        self.scratch += 1;
        Ok(self.scratch - 1)
    }

    pub(crate) fn sreg(name: &str) -> Option<Sreg> {
        use Sreg::*;
        Some(match name {
            "%clusterid.x" => ClusterIdX,
            "%clusterid.y" => ClusterIdY,
            "%clusterid.z" => ClusterIdZ,
            "%nclusterid.x" => NclusterIdX,
            "%nclusterid.y" => NclusterIdY,
            "%nclusterid.z" => NclusterIdZ,
            "%cluster_ctaid.x" => ClusterCtaidX,
            "%cluster_ctaid.y" => ClusterCtaidY,
            "%cluster_ctaid.z" => ClusterCtaidZ,
            "%cluster_nctaid.x" => ClusterNctaidX,
            "%cluster_nctaid.y" => ClusterNctaidY,
            "%cluster_nctaid.z" => ClusterNctaidZ,
            "%cluster_ctarank" => ClusterCtarank,
            "%cluster_nctarank" => ClusterNctarank,
            "%is_explicit_cluster" => IsExplicitCluster,
            "%tid.x" => TidX,
            "%tid.y" => TidY,
            "%tid.z" => TidZ,
            "%ntid.x" => NtidX,
            "%ntid.y" => NtidY,
            "%ntid.z" => NtidZ,
            "%ctaid.x" => CtaidX,
            "%ctaid.y" => CtaidY,
            "%ctaid.z" => CtaidZ,
            "%nctaid.x" => NctaidX,
            "%nctaid.y" => NctaidY,
            "%nctaid.z" => NctaidZ,
            "%laneid" => LaneId,
            "%warpid" => WarpId,
            "%nwarpid" => NwarpId,
            "%smid" => SmId,
            "%clock" => Clock,
            "%clock64" => Clock64,
            "%globaltimer" => GlobalTimer,
            "%lanemask_lt" => LanemaskLt,
            "%lanemask_le" => LanemaskLe,
            "%lanemask_gt" => LanemaskGt,
            "%lanemask_ge" => LanemaskGe,
            "%lanemask_eq" => LanemaskEq,
            _ => return None,
        })
    }

    /// Where symbol `name` lives: the function's own symbols first, then the module's.
    pub(crate) fn place(&self, name: &str) -> Option<&Place> {
        self.places.get(name).or_else(|| self.module.get(name))
    }

    /// The address of a symbol in its own space, and whether it needs a relocation.
    pub(crate) fn symbol(&self, name: &str) -> Result<(Place, u64, bool)> {
        let p = *self.place(name).ok_or_else(|| self.err(format!("unknown symbol `{name}`")))?;
        Ok(match p {
            Place::Global(o) => (p, o as u64, true),
            Place::Const(o) | Place::Shared(o) | Place::Local(o) | Place::Param(o) => (p, o as u64, false),
        })
    }

    pub(crate) fn src(&mut self, op: &Operand, ty: Ty) -> Result<Src> {
        Ok(match op {
            Operand::Name(n) if self.regs.contains_key(n) => {
                let root = self.alias.get(n).unwrap_or(n);
                match self.consts.get(root) {
                    Some(&c) => c,
                    None => Src::Reg(self.reg(n)?),
                }
            }
            Operand::Name(n) => {
                let envreg = n.strip_prefix("%envreg").and_then(|k| k.parse::<u64>().ok()).filter(|&k| k < 32);
                if let Some(k) = envreg {
                    Src::Const(ConstRef::launch_value(), LAUNCH_ENVREG + 4 * k)
                } else if let Some(at) = Self::sreg(n).and_then(Sreg::launch_offset) {
                    Src::Const(ConstRef::launch_value(), at)
                } else if let Some(s) = Self::sreg(n) {
                    let r = self.scratch()?;
                    let mut i = Instr::new(Op::S2r, Ty::U32);
                    i.w0.set_dst(r);
                    i.imm = s as u64;
                    self.push(i);
                    Src::Reg(r)
                } else if n.starts_with('%') {
                    return Err(self.err(format!("unknown register `{n}`")));
                } else {
                    let (_, addr, reloc) = self.symbol(n)?;
                    Src::Imm(addr, reloc)
                }
            }
            Operand::Int(v) => Src::Imm(*v, false),
            Operand::Float(f) => Src::Imm(
                match ty {
                    Ty::F32 => (*f as f32).to_bits() as u64,
                    Ty::F64 => f.to_bits(),
                    _ => *f as i64 as u64,
                },
                false,
            ),
            Operand::F32(b) => {
                Src::Imm(if ty == Ty::F64 { (f32::from_bits(*b) as f64).to_bits() } else { *b as u64 }, false)
            }
            Operand::F64(b) => {
                Src::Imm(if ty == Ty::F32 { (f64::from_bits(*b) as f32).to_bits() as u64 } else { *b }, false)
            }
            Operand::Not(inner) => {
                let s = self.src(inner, Ty::Pred)?;
                let r = self.scratch()?;
                self.emit(Op::Xor, Ty::Pred, r, [Some(s), Some(Src::Imm(1, false)), None], 0)?;
                Src::Reg(r)
            }
            _ => return Err(self.err("unsupported operand")),
        })
    }

    pub(crate) fn dst(&self, op: &Operand) -> Result<u8> {
        match op {
            Operand::Name(n) if n == "_" => Ok(RZ),
            Operand::Name(n) => self.reg(n),
            _ => Err(self.err("expected a destination register")),
        }
    }

    /// Emit `op` with up to three sources; one immediate rides in the instruction, others
    /// are first moved to scratch registers. A constant-bank operand takes the slot before
    /// a literal, as ptxas gives it (`IMAD.WIDE R4, R2, R5, c[0x0][0x168]` with `R5 = 4`):
    /// the literal takes one register where the constant would take a pair.
    pub(crate) fn emit(&mut self, op: Op, ty: Ty, dst: u8, srcs: [Option<Src>; 3], m: u16) -> Result<u32> {
        let mut regs = [RZ; 3];
        let mut imm: Option<(usize, u64, bool)> = None;
        let first = srcs.iter().position(|s| matches!(s, Some(Src::Const(..)))).unwrap_or(0);
        for k in (first..3).chain(0..first) {
            let s = &srcs[k];
            match *s {
                None => {}
                Some(Src::Reg(r)) => regs[k] = r,
                Some(Src::Imm(v, rel)) if imm.is_none() => imm = Some((k, v, rel)),
                Some(Src::Const(c, at)) if imm.is_none() => {
                    regs[k] = c.field(); // the immediate slot's field names the constant
                    imm = Some((k, at, false));
                }
                Some(s) => regs[k] = self.in_reg(s)?,
            }
        }
        let mut i = Instr::new(op, ty);
        i.w0.set_dst(dst);
        i.w0.set_a(regs[0]);
        i.w0.set_b(regs[1]);
        i.w0.set_c(regs[2]);
        i.w0.set_m(m);
        let mut reloc = false;
        if let Some((k, v, rel)) = imm {
            i.w0.set_imm([Imm::A, Imm::B, Imm::C][k]);
            i.imm = v;
            reloc = rel;
        }
        let at = self.push(i);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        Ok(at)
    }

    pub(crate) fn mov_imm(&mut self, dst: u8, v: u64, reloc: bool) {
        let mut i = Instr::new(Op::Mov, Ty::U64);
        i.w0.set_dst(dst);
        i.w0.set_imm(Imm::A);
        i.imm = v;
        let at = self.push(i);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
    }

    pub(crate) fn types(&self, i: &ast::Instr) -> Vec<Ty> {
        i.mods.iter().filter_map(|m| isa_ty(m)).collect()
    }

    pub(crate) fn ty(&self, i: &ast::Instr) -> Result<Ty> {
        self.types(i).last().copied().ok_or_else(|| self.err(format!("`{}` needs a type", i.op)))
    }

    pub(crate) fn arg<'b>(&self, i: &'b ast::Instr, k: usize) -> Result<&'b Operand> {
        i.args.get(k).ok_or_else(|| self.err(format!("`{}` needs at least {} operands", i.op, k + 1)))
    }

    /// The lowest scratch register a held literal takes (the end of the range when none).
    fn lit_floor(&self) -> u8 {
        self.lits.iter().map(|l| l.2).min().unwrap_or(self.scratch_end)
    }

    pub(crate) fn in_reg(&mut self, s: Src) -> Result<u8> {
        Ok(match s {
            Src::Reg(r) => r,
            // A literal moved into a register once serves the instructions after it up to
            // the next label or branch, as ptxas keeps one (`MOV R3, 0x4` for every
            // `IMAD.WIDE` of a kernel's addresses): in one of the top `LIT_REGS` scratch
            // registers, set with no guard.
            Src::Imm(v, rel) if self.guard.is_none() => {
                let stmt = self.stmt;
                if let Some(l) = self.lits.iter_mut().find(|l| (l.0, l.1) == (v, rel)) {
                    l.3 = stmt;
                    return Ok(l.2);
                }
                if self.lits.len() >= LIT_REGS {
                    // The one read longest ago gives way, unless this instruction reads it.
                    let old = (0..self.lits.len()).filter(|&k| self.lits[k].3 != stmt).min_by_key(|&k| self.lits[k].3);
                    if let Some(k) = old {
                        let r = self.lits.remove(k).2;
                        self.mov_imm(r, v, rel);
                        self.lits.push((v, rel, r, stmt));
                        return Ok(r);
                    }
                }
                let r = self.lit_floor().checked_sub(1).filter(|&r| r >= self.scratch && self.lits.len() < LIT_REGS);
                match r {
                    Some(r) => {
                        self.mov_imm(r, v, rel);
                        self.lits.push((v, rel, r, stmt));
                        r
                    }
                    None => {
                        let r = self.scratch()?;
                        self.mov_imm(r, v, rel);
                        r
                    }
                }
            }
            Src::Imm(v, rel) => {
                let r = self.scratch()?;
                self.mov_imm(r, v, rel);
                r
            }
            Src::Const(c, at) => {
                let r = self.scratch()?;
                // All 64 bits, as the load of it would have left them (sign-extended).
                let mut i = Instr::new(Op::Mov, Ty::U64);
                i.w0.set_dst(r);
                i.w0.set_imm(Imm::A);
                i.w0.set_a(c.field());
                i.imm = at;
                self.push(i);
                r
            }
        })
    }
}
