//! Instruction selection for the warp-level instructions: `vote` ([`Op::Vote`]), sm_90's
//! `elect.sync`, `redux.sync` ([`Op::Redux`]), `match.any.sync`/`match.all.sync` ([`Op::Match`]), and the
//! byte and halfword dot products `dp4a`/`dp2a` (expanded into shifts, extending
//! conversions and multiply-adds), and `nanosleep` (no time to wait in a model without a clock to race).

use super::{Kc, Result, Src, ast};
use alloc::format;
use hw::isa::{Cmp, CvtMods, Instr, Op, RZ, Round, Sreg, Ty, VOTE_MEMBER_MASK, VoteMode, redux_op};

impl Kc<'_> {
    /// `vote.{all,any,uni,ballot}{.sync}`: over the warp, or the member mask's lanes.
    pub(crate) fn vote(&mut self, i: &ast::Instr) -> Result<()> {
        let mode = if i.has("all") {
            VoteMode::All
        } else if i.has("any") {
            VoteMode::Any
        } else if i.has("uni") {
            VoteMode::Uni
        } else if i.has("ballot") {
            VoteMode::Ballot
        } else {
            return Err(self.err("`vote` needs a mode"));
        };
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, Ty::Pred)?;
        let ty = if mode == VoteMode::Ballot { Ty::U32 } else { Ty::Pred };
        // `vote.sync`'s member mask: the vote is over those lanes (m bit 2: b holds it).
        if i.has("sync") && i.args.len() > 2 {
            let b = self.src(self.arg(i, 2)?, Ty::U32)?;
            return self.emit(Op::Vote, ty, d, [Some(a), Some(b), None], mode as u16 | VOTE_MEMBER_MASK).map(|_| ());
        }
        self.emit(Op::Vote, ty, d, [Some(a), None, None], mode as u16).map(|_| ())
    }

    /// `elect.sync d|p, membermask`: the lowest active lane of `membermask` is elected; every
    /// lane gets its lane id in `d`, and `p` is true in that lane alone.
    pub(crate) fn elect(&mut self, i: &ast::Instr) -> Result<()> {
        let d = self.dst(self.arg(i, 0)?)?;
        let p = self.dst(self.arg(i, 1)?)?;
        let mask = self.src(self.arg(i, 2)?, Ty::U32)?;
        let s2r = |k: &mut Self, sreg: Sreg| -> Result<u8> {
            let r = k.scratch()?;
            let mut s = Instr::new(Op::S2r, Ty::U32);
            s.w0.set_dst(r);
            s.imm = sreg as u64;
            k.push(s);
            Ok(r)
        };
        let m = s2r(self, Sreg::ActiveMask)?;
        self.emit(Op::And, Ty::U32, m, [Some(Src::Reg(m)), Some(mask), None], 0)?;
        // The lowest set bit's index: the leading zeros of the reversed mask.
        self.emit(Op::Brev, Ty::U32, m, [Some(Src::Reg(m)), None, None], 0)?;
        self.emit(Op::Clz, Ty::U32, m, [Some(Src::Reg(m)), None, None], 0)?;
        if d != RZ {
            self.emit(Op::Mov, Ty::U32, d, [Some(Src::Reg(m)), None, None], 0)?;
        }
        if p != RZ {
            let lane = s2r(self, Sreg::LaneId)?;
            self.emit(Op::Setp, Ty::U32, p, [Some(Src::Reg(lane)), Some(Src::Reg(m)), None], Cmp::Eq as u16)?;
        }
        Ok(())
    }

    /// `redux.sync.op.type d, a, membermask`.
    pub(crate) fn redux(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let op = [
            ("add", redux_op::ADD),
            ("min", redux_op::MIN),
            ("max", redux_op::MAX),
            ("and", redux_op::AND),
            ("or", redux_op::OR),
            ("xor", redux_op::XOR),
        ]
        .iter()
        .find(|(n, _)| i.has(n))
        .map(|&(_, m)| m);
        let ty = match (op, ty) {
            (Some(m), Ty::U32 | Ty::S32) if m <= redux_op::MAX => ty,
            (Some(_), Ty::U32 | Ty::S32) => Ty::U32,
            _ => return Err(self.err(format!("`redux.{}` is not supported", i.mods.join(".")))),
        };
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, ty)?;
        let b = self.src(self.arg(i, 2)?, Ty::U32)?;
        self.emit(Op::Redux, ty, d, [Some(a), Some(b), None], op.unwrap_or(0)).map(|_| ())
    }

    /// `match.any.sync.type d, a, membermask` and `match.all.sync.type d[|p], a, membermask`.
    pub(crate) fn match_sync(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = match self.ty(i)? {
            Ty::U32 | Ty::S32 => Ty::U32,
            Ty::U64 | Ty::S64 => Ty::U64,
            _ => return Err(self.err("`match.sync` takes .b32 or .b64 values")),
        };
        let all = i.has("all");
        if !all && !i.has("any") {
            return Err(self.err("`match` needs `.any` or `.all`"));
        }
        let pred = all && i.args.len() == 4;
        let d = self.dst(self.arg(i, 0)?)?;
        let first = if pred { 2 } else { 1 };
        let a = self.src(self.arg(i, first)?, ty)?;
        let b = self.src(self.arg(i, first + 1)?, Ty::U32)?;
        let t = if pred { self.scratch()? } else { d };
        self.emit(Op::Match, ty, t, [Some(a), Some(b), None], all as u16)?;
        if pred {
            // p: every member lane held the same value (the mask is then non-zero).
            let p = self.dst(self.arg(i, 1)?)?;
            let zero = Some(Src::Imm(0, false));
            self.emit(Op::Setp, Ty::U32, p, [Some(Src::Reg(t)), zero, None], Cmp::Ne as u16)?;
            if d != RZ {
                self.emit(Op::Mov, Ty::U32, d, [Some(Src::Reg(t)), None, None], 0)?;
            }
        }
        Ok(())
    }

    /// `dp4a.atype.btype d, a, b, c` (c plus the four byte products) and
    /// `dp2a.lo/.hi.atype.btype d, a, b, c` (c plus a's two halfwords times b's bytes 0, 1
    /// or 2, 3), each element sign- or zero-extended as its type says, in 32 bits.
    pub(crate) fn dot(&mut self, i: &ast::Instr) -> Result<()> {
        let tys = self.types(i);
        if tys.len() != 2 || tys.iter().any(|t| !matches!(t, Ty::U32 | Ty::S32)) {
            return Err(self.err(format!("`{}` needs two of .u32 and .s32", i.op)));
        }
        let (aty, bty) = (tys[0], tys[1]);
        let two = i.op == "dp2a";
        let d = self.dst(self.arg(i, 0)?)?;
        // In registers once (constants too), so that each step has one immediate at most.
        let a = self.src(self.arg(i, 1)?, Ty::U32)?;
        let a = Src::Reg(self.in_reg(a)?);
        let b = self.src(self.arg(i, 2)?, Ty::U32)?;
        let b = Src::Reg(self.in_reg(b)?);
        let c = self.src(self.arg(i, 3)?, Ty::U32)?;
        let (n, awidth, bfirst) = if two { (2, 16, if i.has("hi") { 2 } else { 0 }) } else { (4, 8, 0) };
        let acc = self.scratch()?;
        self.emit(Op::Mov, Ty::U32, acc, [Some(c), None, None], 0)?;
        let (ea, eb) = (self.scratch()?, self.scratch()?);
        // An element: shifted down, then sign- or zero-extended from its width by a cvt.
        let narrow = |signed: bool, bits: u64| match (signed, bits) {
            (true, 8) => Ty::S8,
            (false, 8) => Ty::U8,
            (true, _) => Ty::S16,
            (false, _) => Ty::U16,
        };
        for k in 0..n as u64 {
            for (x, src, ty, at, bits) in [(ea, a, aty, k * awidth, awidth), (eb, b, bty, (bfirst + k) * 8, 8)] {
                self.emit(Op::Shr, Ty::U32, x, [Some(src), Some(Src::Imm(at, false)), None], 0)?;
                let m = CvtMods::new(Round::Default, narrow(ty == Ty::S32, bits));
                self.emit(Op::Cvt, Ty::S32, x, [Some(Src::Reg(x)), None, None], m.encode())?;
            }
            self.emit(Op::Mad, Ty::U32, acc, [Some(Src::Reg(ea)), Some(Src::Reg(eb)), Some(Src::Reg(acc))], 0)?;
        }
        self.emit(Op::Mov, Ty::U32, d, [Some(Src::Reg(acc)), None, None], 0).map(|_| ())
    }
}
