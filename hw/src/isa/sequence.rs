//! Operations the device runs as one instruction where NVIDIA's compiler emits a sequence:
//! IEEE-rounded division, reciprocal and square root (a MUFU estimate, Newton refinement and
//! a slow-path subroutine for operands out of the fast path's range), double-precision
//! reciprocal square root, and integer division and remainder (a reciprocal estimate and a
//! correction). The timing model charges the sequence's cost ([`Sequence`]); the compiler
//! counts the registers it holds ([`Op::sequence_regs`]), so occupancy is what the part
//! gives.

use super::{FLOAT_FTZ, Op, Round, Ty};

/// What kind of sequence an operation is on the real part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sequence {
    /// IEEE-rounded `div`, `rcp`, `sqrt` (`.rn`, `.rz`, `.rm`, `.rp`), `rsqrt.approx.f64`
    /// and `rsqrt.approx.f32` without `.ftz` (denormal scaling around the MUFU).
    Float,
    /// Integer `div` and `rem`.
    IntDivide,
}

impl Op {
    /// The sequence NVIDIA's compiler emits for this operation on `ty` with modifier bits
    /// `m`, or `None` when it is one instruction there too.
    pub fn sequence(self, ty: Ty, m: u16) -> Option<Sequence> {
        let rounded = Round::from_bits(m >> 2).is_some_and(|r| r != Round::Default);
        match self {
            Op::Div | Op::Rcp | Op::Sqrt if ty.float() && rounded => Some(Sequence::Float),
            Op::Rsqrt if ty == Ty::F64 || (ty == Ty::F32 && m & FLOAT_FTZ == 0) => Some(Sequence::Float),
            Op::Div | Op::Rem if !ty.float() => Some(Sequence::IntDivide),
            _ => None,
        }
    }

    /// 32-bit registers the sequence holds beyond the instruction's operands (0 for one
    /// instruction). Measured with ptxas 12.9 for sm_80: a kernel loading two values,
    /// applying the operation and storing the result, against the same kernel with an
    /// add (8 registers for 32-bit values, 10 for 64-bit; a one-source operation adds the
    /// second value's registers back). Directed roundings take the `.rn` figure; sm_70 is
    /// the same or one more, sm_90 up to two fewer.
    pub fn sequence_regs(self, ty: Ty, m: u16) -> u32 {
        let ftz = m & FLOAT_FTZ != 0;
        match (self.sequence(ty, m), self, ty) {
            (None, ..) => 0,
            (_, Op::Div, Ty::F32) => {
                if ftz {
                    6
                } else {
                    8
                }
            }
            (_, Op::Sqrt, Ty::F32) => 3,
            (_, Op::Rcp, Ty::F32) => {
                if ftz {
                    2
                } else {
                    8
                }
            }
            (_, Op::Rsqrt, Ty::F32) => 0,
            (_, Op::Div, Ty::F64) => 15,
            (_, Op::Sqrt, Ty::F64) => 12,
            (_, Op::Rcp | Op::Rsqrt, Ty::F64) => 6,
            (_, Op::Div, Ty::S64) => 14,
            (_, Op::Rem, Ty::S64) => 12,
            (_, _, Ty::U64) => 10,
            (_, _, Ty::S32) => 6,
            _ => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_follow_the_rounding_and_the_type() {
        let rn = (Round::Rn as u16) << 2;
        assert_eq!(Op::Div.sequence(Ty::F32, rn), Some(Sequence::Float));
        assert_eq!(Op::Div.sequence(Ty::F32, 0), None, "div.full / div.approx: one MUFU and a multiply");
        assert_eq!(Op::Sqrt.sequence(Ty::F32, 0), None);
        assert_eq!(Op::Rsqrt.sequence(Ty::F32, FLOAT_FTZ), None);
        assert_eq!(Op::Rsqrt.sequence(Ty::F64, FLOAT_FTZ), Some(Sequence::Float));
        assert_eq!(Op::Rem.sequence(Ty::U32, 0), Some(Sequence::IntDivide));
        assert_eq!(Op::Add.sequence(Ty::U32, 0), None);
        assert_eq!(Op::Div.sequence_regs(Ty::F64, rn), 15);
        assert_eq!(Op::Div.sequence_regs(Ty::F32, rn | FLOAT_FTZ), 6);
        assert_eq!(Op::Div.sequence_regs(Ty::F32, 0), 0);
        assert_eq!(Op::Rem.sequence_regs(Ty::U64, 0), 10);
    }
}
