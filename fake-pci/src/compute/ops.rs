//! The ALU's scalar operations: what one lane computes on 64-bit register slots (integer
//! and floating-point arithmetic, bit operations, comparisons, conversions with PTX's
//! rounding modes, atomics' read-modify-write), and the value helpers they share.
use super::{AtomOp, Cmp, Op, Round, Ty, round};

#[inline]
pub(crate) fn mask(ty: Ty) -> u64 {
    match ty.bytes() {
        1 if ty == Ty::Pred => 1,
        1 => 0xFF,
        2 => 0xFFFF,
        4 => 0xFFFF_FFFF,
        _ => u64::MAX,
    }
}

#[inline]
pub(crate) fn sx(ty: Ty, v: u64) -> i64 {
    match ty {
        Ty::S8 => v as u8 as i8 as i64,
        Ty::S16 => v as u16 as i16 as i64,
        Ty::S32 => v as u32 as i32 as i64,
        _ => v as i64,
    }
}

#[inline]
pub(crate) fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
#[inline]
pub(crate) fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}
#[inline]
pub(crate) fn fb32(f: f32) -> u64 {
    f.to_bits() as u64
}

#[inline]
pub(crate) fn round_f64(x: f64, mode: Round) -> f64 {
    match mode {
        Round::Default | Round::Rz => libm::trunc(x),
        Round::Rn => libm::rint(x),
        Round::Rm => libm::floor(x),
        Round::Rp => libm::ceil(x),
    }
}

/// The register value of a loaded element (sign-extended for signed types).
#[inline(always)]
pub(crate) fn extend(ty: Ty, raw: u64) -> u64 {
    if ty.signed() { sx(ty, raw) as u64 } else { raw }
}

#[inline]
pub(crate) fn binop(op: Op, ty: Ty, mode: u16, a: u64, b: u64) -> Option<u64> {
    let m = mask(ty);
    let bits = ty.bytes() * 8;
    Some(match ty {
        Ty::F32 => {
            let (x, y) = (f32v(a), f32v(b));
            fb32(match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                Op::Min => fminf(x, y),
                Op::Max => fmaxf(x, y),
                Op::Rem => libm::fmodf(x, y),
                _ => return bitop(op, Ty::U32, a, b),
            })
        }
        Ty::F64 => {
            let (x, y) = (f64v(a), f64v(b));
            (match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                Op::Min => libm::fmin(x, y),
                Op::Max => libm::fmax(x, y),
                Op::Rem => libm::fmod(x, y),
                _ => return bitop(op, Ty::U64, a, b),
            })
            .to_bits()
        }
        Ty::Pred => match op {
            Op::And => a & b & 1,
            Op::Or => (a | b) & 1,
            Op::Xor => (a ^ b) & 1,
            _ => return None,
        },
        _ => {
            let signed = ty.signed();
            let (sa, sb) = (sx(ty, a), sx(ty, b));
            let (ua, ub) = (a & m, b & m);
            match op {
                Op::Add => ua.wrapping_add(ub) & m,
                Op::Sub => ua.wrapping_sub(ub) & m,
                Op::Mul => match mode {
                    0 => ua.wrapping_mul(ub) & m,
                    1 => {
                        let p = if signed { (sa as i128 * sb as i128) as u128 } else { ua as u128 * ub as u128 };
                        (p >> bits) as u64 & m
                    }
                    _ => {
                        // Wide: the full product, in twice the width.
                        let p = if signed { (sa as i128 * sb as i128) as u128 } else { ua as u128 * ub as u128 };
                        let wmask = if bits >= 32 { u64::MAX } else { (1u64 << (2 * bits)) - 1 };
                        p as u64 & wmask
                    }
                },
                Op::Div => {
                    if ub == 0 {
                        m
                    } else if signed {
                        sa.wrapping_div(sb) as u64 & m
                    } else {
                        ua / ub
                    }
                }
                Op::Rem => {
                    if ub == 0 {
                        ua
                    } else if signed {
                        sa.wrapping_rem(sb) as u64 & m
                    } else {
                        ua % ub
                    }
                }
                Op::Min => {
                    if signed {
                        sa.min(sb) as u64 & m
                    } else {
                        ua.min(ub)
                    }
                }
                Op::Max => {
                    if signed {
                        sa.max(sb) as u64 & m
                    } else {
                        ua.max(ub)
                    }
                }
                Op::Shl => {
                    let s = b & 0xFFFF_FFFF;
                    if s >= bits as u64 { 0 } else { (ua << s) & m }
                }
                Op::Shr => {
                    let s = b & 0xFFFF_FFFF;
                    if signed {
                        (sa >> s.min(bits as u64 - 1).min(63)) as u64 & m
                    } else if s >= bits as u64 {
                        0
                    } else {
                        ua >> s
                    }
                }
                _ => return bitop(op, ty, a, b),
            }
        }
    })
}

#[inline]
pub(crate) fn bitop(op: Op, ty: Ty, a: u64, b: u64) -> Option<u64> {
    let m = mask(ty);
    Some(match op {
        Op::And => a & b & m,
        Op::Or => (a | b) & m,
        Op::Xor => (a ^ b) & m,
        _ => return None,
    })
}

#[inline]
pub(crate) fn fminf(x: f32, y: f32) -> f32 {
    libm::fminf(x, y)
}
#[inline]
pub(crate) fn fmaxf(x: f32, y: f32) -> f32 {
    libm::fmaxf(x, y)
}

#[inline]
pub(crate) fn unop(op: Op, ty: Ty, a: u64) -> u64 {
    let m = mask(ty);
    let bits = ty.bytes() * 8;
    match ty {
        Ty::F32 => {
            let x = f32v(a);
            fb32(match op {
                Op::Abs => libm::fabsf(x),
                Op::Neg => -x,
                Op::Sqrt => libm::sqrtf(x),
                Op::Rcp => 1.0 / x,
                Op::Rsqrt => 1.0 / libm::sqrtf(x),
                Op::Sin => libm::sinf(x),
                Op::Cos => libm::cosf(x),
                Op::Ex2 => libm::exp2f(x),
                Op::Lg2 => libm::log2f(x),
                Op::Tanh => libm::tanhf(x),
                _ => return unop(op, Ty::U32, a),
            })
        }
        Ty::F64 => {
            let x = f64v(a);
            (match op {
                Op::Abs => libm::fabs(x),
                Op::Neg => -x,
                Op::Sqrt => libm::sqrt(x),
                Op::Rcp => 1.0 / x,
                Op::Rsqrt => 1.0 / libm::sqrt(x),
                Op::Sin => libm::sin(x),
                Op::Cos => libm::cos(x),
                Op::Ex2 => libm::exp2(x),
                Op::Lg2 => libm::log2(x),
                _ => return unop(op, Ty::U64, a),
            })
            .to_bits()
        }
        Ty::Pred => match op {
            Op::Not => !a & 1,
            _ => a & 1,
        },
        _ => match op {
            Op::Abs => sx(ty, a).unsigned_abs() & m,
            Op::Neg => (a & m).wrapping_neg() & m,
            Op::Not => !a & m,
            Op::Popc => (a & m).count_ones() as u64,
            Op::Clz => ((a & m).leading_zeros() - (64 - bits)) as u64,
            Op::Brev => ((a & m).reverse_bits() >> (64 - bits)) & m,
            _ => a & m,
        },
    }
}

#[inline]
pub(crate) fn setp(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    use core::cmp::Ordering::*;
    let ord = match ty {
        Ty::F32 => f32v(a).partial_cmp(&f32v(b)),
        Ty::F64 => f64v(a).partial_cmp(&f64v(b)),
        t if t.signed() => Some(sx(t, a).cmp(&sx(t, b))),
        t => Some((a & mask(t)).cmp(&(b & mask(t)))),
    };
    match (cmp, ord) {
        (Cmp::Num, o) => o.is_some(),
        (Cmp::Nan, o) => o.is_none(),
        (Cmp::Eq, Some(o)) => o == Equal,
        (Cmp::Ne, Some(o)) => o != Equal,
        (Cmp::Lt, Some(o)) => o == Less,
        (Cmp::Le, Some(o)) => o != Greater,
        (Cmp::Gt, Some(o)) => o == Greater,
        (Cmp::Ge, Some(o)) => o != Less,
        (Cmp::Eq | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge, None) => false,
        (Cmp::Ne, None) => false,
        (Cmp::Equ, o) => o.is_none_or(|o| o == Equal),
        (Cmp::Neu, o) => o.is_none_or(|o| o != Equal),
        (Cmp::Ltu, o) => o.is_none_or(|o| o == Less),
        (Cmp::Leu, o) => o.is_none_or(|o| o != Greater),
        (Cmp::Gtu, o) => o.is_none_or(|o| o == Greater),
        (Cmp::Geu, o) => o.is_none_or(|o| o != Less),
    }
}

#[inline]
pub(crate) fn cvt(dst: Ty, src: Ty, round: Round, sat: bool, integral: bool, a: u64) -> u64 {
    if dst.half() || src.half() {
        return super::half::cvt(dst, src, round, sat, integral, a);
    }
    let m = mask(dst);
    let as_f64 = |v: u64| -> f64 {
        match src {
            Ty::F32 => f32v(v) as f64,
            Ty::F64 => f64v(v),
            t if t.signed() => sx(t, v) as f64,
            t => (v & mask(t)) as f64,
        }
    };
    match (dst.float(), src.float()) {
        (true, _) => {
            if !integral
                && !sat
                && let Some(v) = round::cvt_directed(dst, src, round, a)
            {
                return v;
            }
            let mut x = as_f64(a);
            if integral {
                x = round_f64(x, if round == Round::Default { Round::Rn } else { round });
            }
            if sat {
                x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            }
            if src == Ty::S64 || src == Ty::U64 {
                // Exact conversion of 64-bit integers to floats.
                let v = if src == Ty::S64 { sx(src, a) as f64 } else { a as f64 };
                x = v;
            }
            if dst == Ty::F32 {
                let f = if src == Ty::F32 {
                    f32v(a)
                } else if src.float() {
                    x as f32
                } else {
                    int_to_f32(src, a)
                };
                let f = if integral || sat { x as f32 } else { f };
                fb32(f)
            } else {
                x.to_bits()
            }
        }
        (false, true) => {
            let x = round_f64(as_f64(a), round);
            let bits = dst.bytes() * 8;
            if x.is_nan() {
                return 0;
            }
            let p2 = |n: u32| (1u128 << n) as f64;
            if dst.signed() {
                let (lo, hi) = (-p2(bits - 1), p2(bits - 1) - 1.0);
                (x.clamp(lo, hi) as i64) as u64 & m
            } else {
                let hi = if bits == 64 { u64::MAX as f64 } else { p2(bits) - 1.0 };
                x.clamp(0.0, hi) as u64 & m
            }
        }
        (false, false) => {
            // Integer to integer: sign- or zero-extend from the source, then (saturate or) truncate.
            let v = if src.signed() { sx(src, a) } else { (a & mask(src)) as i64 };
            if sat && dst != Ty::Pred {
                let bits = dst.bytes() * 8;
                let (lo, hi): (i128, i128) = if dst.signed() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                let w = if src == Ty::U64 { (a as u128) as i128 } else { v as i128 };
                (w.clamp(lo, hi) as u64) & m
            } else {
                v as u64 & m
            }
        }
    }
}

#[inline]
pub(crate) fn int_to_f32(src: Ty, a: u64) -> f32 {
    match src {
        t if t.signed() => sx(t, a) as f32,
        t => (a & mask(t)) as f32,
    }
}

#[inline]
pub(crate) fn atom(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let m = mask(ty);
    match (op, ty) {
        (AtomOp::Add | AtomOp::Min | AtomOp::Max, t) if t.half() => {
            let op = match op {
                AtomOp::Add => Op::Add,
                AtomOp::Min => Op::Min,
                _ => Op::Max,
            };
            super::half::compute(op, t, 0, old, b, 0).unwrap_or(0)
        }
        (AtomOp::Add, Ty::F32) => fb32(f32v(old) + f32v(b)),
        (AtomOp::Add, Ty::F64) => (f64v(old) + f64v(b)).to_bits(),
        (AtomOp::Add, _) => old.wrapping_add(b) & m,
        (AtomOp::Min, t) if t.signed() => sx(t, old).min(sx(t, b)) as u64 & m,
        (AtomOp::Min, _) => (old & m).min(b & m),
        (AtomOp::Max, t) if t.signed() => sx(t, old).max(sx(t, b)) as u64 & m,
        (AtomOp::Max, _) => (old & m).max(b & m),
        (AtomOp::Inc, _) => {
            if (old & m) >= (b & m) {
                0
            } else {
                (old + 1) & m
            }
        }
        (AtomOp::Dec, _) => {
            if old & m == 0 || (old & m) > (b & m) {
                b & m
            } else {
                (old - 1) & m
            }
        }
        (AtomOp::And, _) => old & b & m,
        (AtomOp::Or, _) => (old | b) & m,
        (AtomOp::Xor, _) => (old ^ b) & m,
        (AtomOp::Exch, _) => b & m,
        (AtomOp::Cas, _) => {
            if old & m == b & m {
                c & m
            } else {
                old & m
            }
        }
        (AtomOp::Arrive | AtomOp::ArriveDrop, _) => hw::isa::mbarrier::arrive(old, b & m, op == AtomOp::ArriveDrop),
        (AtomOp::ExpectTx, _) => hw::isa::mbarrier::expect_tx(old, b & m),
        (AtomOp::CompleteTx, _) => hw::isa::mbarrier::complete_tx(old, b & m),
        (AtomOp::ArriveExpectTx, _) => hw::isa::mbarrier::arrive_expect_tx(old, b),
    }
}
