//! Instruction selection for half precision (`.f16`, `.bf16` and the packed pairs `.f16x2`,
//! `.bf16x2`): `add`, `sub`, `mul`, `fma`, `min`, `max`, `neg`, `abs`, `ex2.approx` and
//! `tanh.approx` become one device instruction of the half type (a pair in one instruction, as the hardware's
//! `HADD2` does it); `setp` of a pair compares the low halves into the first predicate and
//! the high halves into the second; `cvt` to a pair from two `f32` packs two conversions.
//! Moves, loads, stores and selections of half values are those of 16- and 32-bit data.

use super::{Kc, Result, Src, ast, instr, isa_ty};
use alloc::format;
use hw::isa::{Cmp, CvtMods, FLOAT_FTZ, FLOAT_NAN_RELU, FLOAT_SAT, FLOAT_XORSIGN, Op, RZ, Ty};

/// The modifiers half-precision arithmetic takes (besides its type).
const MODIFIERS: &[&str] = &["rn", "ftz", "sat", "relu", "NaN", "xorsign", "abs", "approx", "noftz"];

impl Kc<'_> {
    /// A half-precision data instruction of type `ty` (the instruction's last type).
    pub(crate) fn half(&mut self, i: &ast::Instr, ty: Ty) -> Result<()> {
        let op = i.op.as_str();
        let unsupported = || self.err(format!("`{op}.{}` is not supported for half precision", i.mods.join(".")));
        if op == "setp" {
            return self.half_setp(i, ty);
        }
        if op == "set" && matches!(ty, Ty::F16 | Ty::Bf16) {
            // `set.cmp.u32.f16 d, a, b`: all ones or zero, the destination type first.
            return self.setp(i);
        }
        if op == "set" {
            return self.half_set_pair(i, ty);
        }
        let (isa, nsrc) = match op {
            "add" => (Op::Add, 2),
            "sub" => (Op::Sub, 2),
            "mul" => (Op::Mul, 2),
            "fma" => (Op::Mad, 3),
            "min" => (Op::Min, 2),
            "max" => (Op::Max, 2),
            "neg" => (Op::Neg, 1),
            "abs" => (Op::Abs, 1),
            "ex2" if i.has("approx") => (Op::Ex2, 1),
            "tanh" if i.has("approx") => (Op::Tanh, 1),
            _ => return Err(unsupported()),
        };
        if let Some(m) = i.mods.iter().find(|m| isa_ty(m).is_none() && !MODIFIERS.contains(&m.as_str())) {
            return Err(self.err(format!("`{op}.{}`: modifier `.{m}` is not supported", i.mods.join("."))));
        }
        if i.has("relu") && isa != Op::Mad || i.has("NaN") && !matches!(isa, Op::Min | Op::Max) {
            return Err(unsupported());
        }
        let mut m = 0;
        if i.has("ftz") && matches!(ty, Ty::F16 | Ty::F16x2) {
            m |= FLOAT_FTZ;
        }
        if i.has("sat") {
            m |= FLOAT_SAT;
        }
        if i.has("relu") || i.has("NaN") {
            m |= FLOAT_NAN_RELU;
        }
        if i.has("xorsign") {
            m |= FLOAT_XORSIGN;
        }
        let d = self.dst(self.arg(i, 0)?)?;
        let mut srcs = [None; 3];
        for (k, s) in srcs.iter_mut().enumerate().take(nsrc) {
            *s = Some(self.src(self.arg(i, k + 1)?, ty)?);
        }
        self.emit(isa, ty, d, srcs, m).map(|_| ())
    }

    /// The comparison of a half pair instruction `i` (`set`/`setp` of `ty`): operands a and
    /// b at `first`, `first + 1` (and predicate c after them with `.and`/`.or`/`.xor`);
    /// each half compared into a predicate (low halves first), combined with c.
    fn compare_halves(&mut self, i: &ast::Instr, ty: Ty, first: usize) -> Result<[u8; 2]> {
        let cmp =
            i.mods.first().and_then(|c| cmp_of(c)).ok_or_else(|| self.err(format!("`{}` needs a comparison", i.op)))?;
        let combine = [("and", Op::And), ("or", Op::Or), ("xor", Op::Xor)].into_iter().find(|(n, _)| i.has(n));
        let scalar = if ty == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
        let m = cmp as u16 | if ty == Ty::F16x2 && i.has("ftz") { FLOAT_FTZ } else { 0 };
        let a = self.src(self.arg(i, first)?, ty)?;
        let b = self.src(self.arg(i, first + 1)?, ty)?;
        let c = match combine {
            Some(_) => Some(self.src(self.arg(i, first + 2)?, Ty::Pred)?),
            None => None,
        };
        let sixteen = Some(Src::Imm(16, false));
        let (ah, bh) = (self.scratch()?, self.scratch()?);
        self.emit(Op::Shr, Ty::U32, ah, [Some(a), sixteen, None], 0)?;
        self.emit(Op::Shr, Ty::U32, bh, [Some(b), sixteen, None], 0)?;
        let mut out = [RZ; 2];
        for (k, (x, y)) in [(a, b), (Src::Reg(ah), Src::Reg(bh))].into_iter().enumerate() {
            let p = self.scratch()?;
            self.emit(Op::Setp, scalar, p, [Some(x), Some(y), None], m)?;
            if let (Some((_, op)), Some(c)) = (combine, c) {
                self.emit(op, Ty::Pred, p, [Some(Src::Reg(p)), Some(c), None], 0)?;
            }
            out[k] = p;
        }
        Ok(out)
    }

    /// `set.cmp{.ftz}{.and,.or,.xor}.dtype.f16x2 d, a, b{, c}` (and `.bf16x2`): each half of
    /// d is the comparison of the same halves of a and b (combined with predicate c), as
    /// all ones (dtype `.u32`/`.s32`) or 1.0 (dtype `.f16x2`/`.bf16x2`), else 0.
    fn half_set_pair(&mut self, i: &ast::Instr, ty: Ty) -> Result<()> {
        let dty = *self.types(i).first().ok_or_else(|| self.err("`set` needs a destination type"))?;
        let yes = match dty {
            Ty::U32 | Ty::S32 | Ty::F16x2 | Ty::Bf16x2 => instr::set_true(if dty.half() { dty } else { Ty::U16 }),
            _ => None,
        };
        let yes = yes.ok_or_else(|| self.err("`set` of a half pair gives a .u32, .s32, .f16x2 or .bf16x2 result"))?;
        let d = self.dst(self.arg(i, 0)?)?;
        let preds = self.compare_halves(i, ty, 1)?;
        let halves = [self.scratch()?, self.scratch()?];
        for (p, h) in preds.into_iter().zip(halves) {
            let (t, f) = (Src::Imm(yes, false), Src::Imm(0, false));
            self.emit(Op::Selp, Ty::U32, h, [Some(t), Some(f), Some(Src::Reg(p))], 0)?;
        }
        let [lo, hi] = halves;
        self.emit(Op::Shl, Ty::U32, hi, [Some(Src::Reg(hi)), Some(Src::Imm(16, false)), None], 0)?;
        self.emit(Op::Or, Ty::U32, d, [Some(Src::Reg(lo)), Some(Src::Reg(hi)), None], 0).map(|_| ())
    }

    /// `setp.cmp.f16 p[|q], a, b` (q = !p), or of a pair `setp.cmp.f16x2 p|q, a, b`: p
    /// compares the low halves, q the high halves; `.and`/`.or`/`.xor` combine each with c.
    fn half_setp(&mut self, i: &ast::Instr, ty: Ty) -> Result<()> {
        if !matches!(ty, Ty::F16x2 | Ty::Bf16x2) {
            return self.setp(i);
        }
        let combined = i.has("and") || i.has("or") || i.has("xor");
        if i.args.len() != if combined { 5 } else { 4 } {
            return Err(self.err("`setp` of a half pair needs two destination predicates `p|q`"));
        }
        let preds = self.compare_halves(i, ty, 2)?;
        for (k, p) in preds.into_iter().enumerate() {
            let d = self.dst(self.arg(i, k)?)?;
            self.emit(Op::Mov, Ty::Pred, d, [Some(Src::Reg(p)), None, None], 0)?;
        }
        Ok(())
    }

    /// `cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b` and the `.bf16x2` form: d's high half is
    /// a converted, its low half b.
    pub(crate) fn cvt_pair(&mut self, i: &ast::Instr, dst: Ty, src: Ty, m: CvtMods) -> Result<()> {
        let scalar = if dst == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, src)?;
        let b = self.src(self.arg(i, 2)?, src)?;
        let (hi, lo) = (self.scratch()?, self.scratch()?);
        self.cvt(scalar, hi, a, m)?;
        self.cvt(scalar, lo, b, m)?;
        self.emit(Op::Shl, Ty::U32, hi, [Some(Src::Reg(hi)), Some(Src::Imm(16, false)), None], 0)?;
        self.emit(Op::Or, Ty::U32, d, [Some(Src::Reg(hi)), Some(Src::Reg(lo)), None], 0).map(|_| ())
    }
}

/// A `setp` comparison by its PTX name.
pub(crate) fn cmp_of(name: &str) -> Option<Cmp> {
    Some(match name {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" | "lo" => Cmp::Lt,
        "le" | "ls" => Cmp::Le,
        "gt" | "hi" => Cmp::Gt,
        "ge" | "hs" => Cmp::Ge,
        "equ" => Cmp::Equ,
        "neu" => Cmp::Neu,
        "ltu" => Cmp::Ltu,
        "leu" => Cmp::Leu,
        "gtu" => Cmp::Gtu,
        "geu" => Cmp::Geu,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}
