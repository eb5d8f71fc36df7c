//! Half precision: IEEE binary16 (`.f16`) and bfloat16 (`.bf16`), one per register or a
//! packed pair (`.f16x2`, `.bf16x2`, element 0 in bits 15:0), as PTX defines their
//! arithmetic: `add`, `sub`, `mul`, `fma` rounded to nearest even (`.ftz`, `.sat`, `.relu`),
//! `min`/`max` (`.NaN`, `.xorsign.abs`), `neg`, `abs`, comparisons, `ex2.approx`, and
//! conversions to and from every other type with every rounding.
//!
//! Every result is exact: an operation is carried out in `f64`, where the product of two
//! halves is exact and a sum is its nearest `f64` plus the sign of the exact error
//! (two-sum), and that pair is rounded once to the 16-bit format ([`round`]). NaN results
//! are the canonical NaN `0x7FFF`, as NVIDIA's hardware gives them.

use super::{
    Cmp, FLOAT_FTZ, FLOAT_NAN_RELU, FLOAT_SAT, FLOAT_XORSIGN, Op, Round, Ty, f32v, f64v, mask, round_f64, setp, sx,
};
use core::cmp::Ordering;

/// The canonical NaN of both formats.
pub(crate) const CANONICAL_NAN: u16 = 0x7FFF;

/// A 16-bit float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fmt {
    /// binary16: 5 exponent bits, 10 fraction bits.
    F16,
    /// bfloat16: 8 exponent bits, 7 fraction bits.
    Bf16,
}

impl Fmt {
    /// The format of a half type and whether it is a pair.
    pub(crate) fn of(ty: Ty) -> Option<(Fmt, bool)> {
        match ty {
            Ty::F16 => Some((Fmt::F16, false)),
            Ty::Bf16 => Some((Fmt::Bf16, false)),
            Ty::F16x2 => Some((Fmt::F16, true)),
            Ty::Bf16x2 => Some((Fmt::Bf16, true)),
            _ => None,
        }
    }
    /// Fraction bits.
    fn frac(self) -> u32 {
        match self {
            Fmt::F16 => 10,
            Fmt::Bf16 => 7,
        }
    }
    /// Exponent bias (also the largest exponent).
    fn bias(self) -> i32 {
        match self {
            Fmt::F16 => 15,
            Fmt::Bf16 => 127,
        }
    }
    fn exp_mask(self) -> u16 {
        0x7FFF & !((1 << self.frac()) - 1)
    }
    fn is_nan(self, h: u16) -> bool {
        h & 0x7FFF > self.exp_mask()
    }
    fn is_subnormal(self, h: u16) -> bool {
        h & self.exp_mask() == 0
    }
}

/// The exact value of `h`.
pub(crate) fn to_f64(fmt: Fmt, h: u16) -> f64 {
    let (frac, bias) = (fmt.frac(), fmt.bias());
    let e = ((h & 0x7FFF) >> frac) as i32;
    let m = (h & ((1 << frac) - 1)) as f64;
    let mag = if e == (2 * bias + 1) {
        if m == 0.0 { f64::INFINITY } else { f64::NAN }
    } else if e == 0 {
        m * libm::exp2((1 - bias - frac as i32) as f64)
    } else {
        (m + (1u32 << frac) as f64) * libm::exp2((e - bias - frac as i32) as f64)
    };
    if h & 0x8000 != 0 { -mag } else { mag }
}

/// `v` plus an exact rest below half a unit in `v`'s last place, of sign `rest`, rounded
/// once to `fmt` by `mode` (Default is to nearest even). NaN gives the canonical NaN.
pub(crate) fn round(fmt: Fmt, v: f64, rest: Ordering, mode: Round) -> u16 {
    if v.is_nan() {
        return CANONICAL_NAN;
    }
    let neg = v.is_sign_negative();
    let sign: u16 = if neg { 0x8000 } else { 0 };
    let (frac, bias) = (fmt.frac(), fmt.bias());
    let inf = fmt.exp_mask();
    if v.is_infinite() {
        return sign | inf;
    }
    if v == 0.0 {
        return sign;
    }
    // The magnitude as an integer M times 2^e2, M carrying two more bits so that the rest
    // is a quarter unit: it keeps the value strictly between the same neighbours.
    let bits = v.to_bits();
    let (fe, ff) = (((bits >> 52) & 0x7FF) as i32, bits & ((1 << 52) - 1));
    let (mant, e) = if fe == 0 { (ff, -1074) } else { (ff | 1 << 52, fe - 1075) };
    let mag_rest = if neg { rest.reverse() } else { rest };
    let mut m = (mant as u128) << 2;
    match mag_rest {
        Ordering::Greater => m += 1,
        Ordering::Less => m -= 1,
        Ordering::Equal => {}
    }
    let e2 = e - 2;
    let top = 127 - m.leading_zeros() as i32 + e2; // floor(log2 |value|)
    let emin = 1 - bias;
    let q = top.max(emin) - frac as i32; // the exponent of the result's last place
    let shift = q - e2;
    let (mut n, r_nonzero, cmp_half) = if shift <= 0 {
        (m << (-shift).min(64), false, Ordering::Less)
    } else if shift >= 120 {
        (0, true, Ordering::Less)
    } else {
        let r = m & ((1u128 << shift) - 1);
        (m >> shift, r != 0, r.cmp(&(1u128 << (shift - 1))))
    };
    let up = match mode {
        Round::Default | Round::Rn => cmp_half == Ordering::Greater || (cmp_half == Ordering::Equal && n & 1 == 1),
        Round::Rz => false,
        Round::Rm => neg && r_nonzero,
        Round::Rp => !neg && r_nonzero,
    };
    n += up as u128;
    let mut q = q;
    if n >> (frac + 1) != 0 {
        n >>= 1;
        q += 1;
    }
    let biased = if n >> frac == 0 { 0 } else { q + frac as i32 + bias };
    if biased > 2 * bias {
        // Beyond the largest finite value: infinity, or the largest finite value where the
        // rounding goes toward zero.
        let to_max = match mode {
            Round::Rz => true,
            Round::Rm => !neg,
            Round::Rp => neg,
            _ => false,
        };
        return sign | if to_max { inf - 1 } else { inf };
    }
    sign | (biased as u16) << frac | (n as u16 & ((1 << frac) - 1))
}

/// `a + b` exactly: the nearest f64 and the sign of the error.
fn sum(a: f64, b: f64) -> (f64, Ordering) {
    let s = a + b;
    if !s.is_finite() {
        return (s, Ordering::Equal);
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e.partial_cmp(&0.0).unwrap_or(Ordering::Equal))
}

/// Flush a subnormal to zero of its sign.
fn flush(fmt: Fmt, h: u16) -> u16 {
    if fmt.is_subnormal(h) { h & 0x8000 } else { h }
}

/// Apply `f` to each element of `ty` (one or two) of the operands.
#[inline]
fn each(ty: Ty, a: u64, b: u64, c: u64, f: impl Fn(Fmt, u16, u16, u16) -> u16) -> Option<u64> {
    let (fmt, pair) = Fmt::of(ty)?;
    let lo = f(fmt, a as u16, b as u16, c as u16) as u64;
    if !pair {
        return Some(lo);
    }
    Some(lo | (f(fmt, (a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16) as u64) << 16)
}

/// Arithmetic of one element: op with modifier bits `m` (round in 4:2, [`FLOAT_FTZ`],
/// [`FLOAT_SAT`], [`FLOAT_NAN_RELU`], [`FLOAT_XORSIGN`]); None for an operation half
/// precision does not have.
fn element(op: Op, fmt: Fmt, m: u16, a: u16, b: u16, c: u16) -> Option<u16> {
    let ftz = fmt == Fmt::F16 && m & FLOAT_FTZ != 0;
    let (a, b, c) = if ftz { (flush(fmt, a), flush(fmt, b), flush(fmt, c)) } else { (a, b, c) };
    let (x, y, z) = (to_f64(fmt, a), to_f64(fmt, b), to_f64(fmt, c));
    let rounded = |v: f64, rest: Ordering| round(fmt, v, rest, Round::Rn);
    let r = match op {
        Op::Add => {
            let (s, e) = sum(x, y);
            rounded(s, e)
        }
        Op::Sub => {
            let (s, e) = sum(x, -y);
            rounded(s, e)
        }
        Op::Mul => rounded(x * y, Ordering::Equal),
        Op::Mad => {
            let (s, e) = sum(x * y, z);
            let r = rounded(s, e);
            if m & FLOAT_NAN_RELU != 0 && !fmt.is_nan(r) && r & 0x8000 != 0 { 0 } else { r }
        }
        Op::Min | Op::Max => return Some(min_max(op == Op::Max, fmt, m, a, b)),
        Op::Neg => return Some(a ^ 0x8000),
        Op::Abs => return Some(a & 0x7FFF),
        Op::Ex2 => rounded(libm::exp2(x), Ordering::Equal),
        Op::Tanh => rounded(libm::tanh(x), Ordering::Equal),
        _ => return None,
    };
    let r = if m & FLOAT_SAT != 0 {
        if fmt.is_nan(r) || r & 0x8000 != 0 { 0 } else { r.min(round(fmt, 1.0, Ordering::Equal, Round::Rn)) }
    } else {
        r
    };
    Some(if ftz { flush(fmt, r) } else { r })
}

/// min or max of one element pair: a NaN operand gives the other (both NaN, or with
/// `.NaN` any NaN: the canonical NaN); -0 is below +0.
fn min_max(max: bool, fmt: Fmt, m: u16, a: u16, b: u16) -> u16 {
    let (a, b, sign) = if m & FLOAT_XORSIGN != 0 { (a & 0x7FFF, b & 0x7FFF, (a ^ b) & 0x8000) } else { (a, b, 0) };
    let (an, bn) = (fmt.is_nan(a), fmt.is_nan(b));
    if (an && bn) || (m & FLOAT_NAN_RELU != 0 && (an || bn)) {
        return CANONICAL_NAN;
    }
    if an {
        return b | sign;
    }
    if bn {
        return a | sign;
    }
    // Order the encodings as the numbers they are, -0 below +0.
    let key = |h: u16| if h & 0x8000 != 0 { -((h & 0x7FFF) as i32) - 1 } else { h as i32 };
    let pick_a = if max { key(a) >= key(b) } else { key(a) <= key(b) };
    (if pick_a { a } else { b }) | sign
}

/// A half-precision data instruction on one lane's operands: arithmetic, min/max, neg,
/// abs, ex2 (modifier bits `m`); None for an operation half precision does not have.
pub(crate) fn compute(op: Op, ty: Ty, m: u16, a: u64, b: u64, c: u64) -> Option<u64> {
    if !computes(op) {
        return None;
    }
    each(ty, a, b, c, |fmt, x, y, z| element(op, fmt, m, x, y, z).unwrap_or(CANONICAL_NAN))
}

/// Whether half precision has operation `op` ([`compute`]'s; `SETP` is [`compare`]'s).
pub(crate) fn computes(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Mad | Op::Min | Op::Max | Op::Neg | Op::Abs | Op::Ex2 | Op::Tanh)
}

/// `setp` of one half element pair (the scalar types; the compiler splits pairs).
pub(crate) fn compare(cmp: Cmp, ty: Ty, ftz: bool, a: u64, b: u64) -> bool {
    let fmt = Fmt::of(ty).map_or(Fmt::F16, |f| f.0);
    let f = |h: u64| {
        let h = h as u16;
        to_f64(fmt, if ftz && fmt == Fmt::F16 { flush(fmt, h) } else { h })
    };
    setp(cmp, Ty::F64, f(a).to_bits(), f(b).to_bits())
}

/// `cvt` where the source or the destination is half precision (`integral`: round to an
/// integral value, `.rni` and friends; `sat`: clamp a float result to [0, 1]).
pub(crate) fn cvt(dst: Ty, src: Ty, round_mode: Round, sat: bool, integral: bool, a: u64) -> u64 {
    // The source's exact value, and the sign of what an f64 could not hold (64-bit integers).
    let (v, rest) = match Fmt::of(src) {
        Some((fmt, _)) => (to_f64(fmt, a as u16), Ordering::Equal),
        None if src == Ty::F32 => (f32v(a) as f64, Ordering::Equal),
        None if src == Ty::F64 => (f64v(a), Ordering::Equal),
        None => {
            let x: i128 = if src.signed() { sx(src, a) as i128 } else { (a & mask(src)) as i128 };
            let v = x as f64;
            (v, x.cmp(&(v as i128)))
        }
    };
    if let Some((fmt, _)) = Fmt::of(src)
        && fmt.is_nan(a as u16)
        && (dst == Ty::F32 || dst == Ty::F64)
    {
        // A NaN widens with its sign and payload (quieted), as the host's conversions do.
        let (h, frac) = (a as u16, fmt.frac());
        let payload = (h & ((1 << frac) - 1)) as u64;
        let sign = (h >> 15) as u64;
        return if dst == Ty::F32 {
            sign << 31 | 0x7FC0_0000 | payload << (23 - frac)
        } else {
            sign << 63 | 0x7FF8_0000_0000_0000 | payload << (52 - frac)
        };
    }
    let Some((fmt, _)) = Fmt::of(dst) else {
        // Half to another type: the exact value goes through f64's conversion.
        return super::ops::cvt(dst, Ty::F64, round_mode, sat, integral, v.to_bits());
    };
    let mode = if round_mode == Round::Default { Round::Rn } else { round_mode };
    let (v, rest) = if integral { (round_f64(v, mode), Ordering::Equal) } else { (v, rest) };
    let v = if sat && !v.is_nan() { v.clamp(0.0, 1.0) } else { v };
    let v = if sat && v.is_nan() { 0.0 } else { v };
    if v.is_nan() && src.float() {
        // NaN from f32/f64: the canonical NaN.
        return CANONICAL_NAN as u64;
    }
    round(fmt, v, rest, mode) as u64
}

/// A half conversion's result `r` (a 16-bit float of `dst`'s format) under `.relu` (a
/// negative result becomes +0, a NaN the canonical NaN) and `.satfinite` (an infinite one
/// the largest finite value of its sign).
pub(crate) fn finish(dst: Ty, r: u64, c: hw::isa::CvtMods) -> u64 {
    let Some((fmt, _)) = Fmt::of(dst) else { return r };
    let h = r as u16;
    if fmt.is_nan(h) {
        return CANONICAL_NAN as u64;
    }
    let mut h = h;
    if c.satfinite && h & 0x7FFF == fmt.exp_mask() {
        // The largest finite value: the exponent below all ones, every fraction bit.
        h = (h & 0x8000) | (fmt.exp_mask() - 1);
    }
    if c.relu && h & 0x8000 != 0 {
        h = 0;
    }
    h as u64
}

/// An f32 (`a`'s low 32 bits) rounded to TensorFloat-32: 10 fraction bits, the 13 low
/// bits of the f32 cleared. Round Default is `.rna` (ties away from zero); `.rn` ties to
/// even, `.rz` truncates. A NaN becomes the canonical 0x7FFFFFFF; `.satfinite` makes an
/// infinity (or a rounding past the largest value) the largest finite tf32 of its sign,
/// `.relu` a negative result +0.
pub(crate) fn tf32(a: u64, c: hw::isa::CvtMods) -> u64 {
    const LOW: u32 = 0x1FFF;
    const MAX: u32 = 0x7F7F_E000;
    let b = a as u32;
    if b & 0x7F80_0000 == 0x7F80_0000 && b & 0x007F_FFFF != 0 {
        return 0x7FFF_FFFF;
    }
    let sign = b & 0x8000_0000;
    let mut r = if b & 0x7F80_0000 == 0x7F80_0000 {
        b
    } else {
        match c.round {
            Round::Rz => b & !LOW,
            Round::Rn => (b + 0xFFF + (b >> 13 & 1)) & !LOW,
            // Toward the infinity of the sign when any dropped bit is set.
            Round::Rm if sign != 0 && b & LOW != 0 => (b + 0x2000) & !LOW,
            Round::Rp if sign == 0 && b & LOW != 0 => (b + 0x2000) & !LOW,
            Round::Rm | Round::Rp => b & !LOW,
            Round::Default => (b + 0x1000) & !LOW,
        }
    };
    if c.satfinite && r & 0x7FFF_FFFF >= 0x7F80_0000 {
        r = sign | MAX;
    }
    if c.relu && r & 0x8000_0000 != 0 {
        r = 0;
    }
    r as u64
}

#[cfg(test)]
mod tests {
    use super::super::fb32;
    use super::*;

    fn h(x: f32, fmt: Fmt) -> u16 {
        round(fmt, x as f64, Ordering::Equal, Round::Rn)
    }

    #[test]
    fn conversions_are_exact_both_ways() {
        for b in 0..=0xFFFFu16 {
            for fmt in [Fmt::F16, Fmt::Bf16] {
                let v = to_f64(fmt, b);
                if v.is_nan() {
                    assert_eq!(round(fmt, v, Ordering::Equal, Round::Rn), CANONICAL_NAN);
                } else {
                    assert_eq!(round(fmt, v, Ordering::Equal, Round::Rn), b, "{fmt:?} {b:#x}");
                }
            }
        }
        // bfloat16 is float's upper half: rounding f32 bits by hand gives the same.
        for &x in &[1.0f32, 3.3, -2.5e-38, 1e38, 65504.0, 1.0e-40] {
            let u = x.to_bits();
            let r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16;
            assert_eq!(h(x, Fmt::Bf16), r as u16, "{x}");
        }
    }

    #[test]
    fn binary16_rounds_at_the_edges() {
        assert_eq!(h(65504.0, Fmt::F16), 0x7BFF);
        assert_eq!(h(65520.0, Fmt::F16), 0x7C00); // the midpoint to 2^16 rounds to infinity
        assert_eq!(h(65519.0, Fmt::F16), 0x7BFF);
        assert_eq!(round(Fmt::F16, 1e6, Ordering::Equal, Round::Rz), 0x7BFF);
        assert_eq!(round(Fmt::F16, -1e6, Ordering::Equal, Round::Rp), 0xFBFF);
        assert_eq!(round(Fmt::F16, -1e6, Ordering::Equal, Round::Rm), 0xFC00);
        assert_eq!(h(5.960_464_5e-8, Fmt::F16), 0x0001); // 2^-24
        let tiny = libm::exp2(-25.0); // half the smallest subnormal: a tie, to even (zero)
        assert_eq!(round(Fmt::F16, tiny, Ordering::Equal, Round::Rn), 0x0000);
        assert_eq!(round(Fmt::F16, tiny, Ordering::Greater, Round::Rn), 0x0001);
        assert_eq!(round(Fmt::F16, 1e-30, Ordering::Equal, Round::Rp), 0x0001);
        assert_eq!(round(Fmt::F16, 1e-30, Ordering::Equal, Round::Rz), 0x0000);
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10; a rest above breaks it upward.
        let tie = 1.0 + libm::exp2(-11.0);
        assert_eq!(round(Fmt::F16, tie, Ordering::Equal, Round::Rn), 0x3C00);
        assert_eq!(round(Fmt::F16, tie, Ordering::Greater, Round::Rn), 0x3C01);
        assert_eq!(round(Fmt::F16, -tie, Ordering::Less, Round::Rn), 0xBC01);
    }

    #[test]
    fn arithmetic_and_modifiers() {
        let one = 0x3C00u64;
        let two = 0x4000u64;
        assert_eq!(compute(Op::Add, Ty::F16, 0, one, one, 0), Some(two));
        assert_eq!(compute(Op::Mad, Ty::F16, 0, two, two, one), Some(0x4500)); // 5
        assert_eq!(compute(Op::Add, Ty::F16x2, 0, one | two << 16, one | one << 16, 0), Some(two | 0x4200 << 16));
        assert_eq!(compute(Op::Add, Ty::F16, FLOAT_SAT, two, two, 0), Some(one));
        assert_eq!(compute(Op::Sub, Ty::F16, FLOAT_SAT, one, two, 0), Some(0));
        assert_eq!(compute(Op::Mad, Ty::F16, FLOAT_NAN_RELU, one, 0xC000, 0), Some(0));
        // ftz: the smallest subnormal times 1 is zero.
        assert_eq!(compute(Op::Mul, Ty::F16, FLOAT_FTZ, 1, one, 0), Some(0));
        assert_eq!(compute(Op::Mul, Ty::F16, 0, 1, one, 0), Some(1));
        // inf - inf is the canonical NaN.
        assert_eq!(compute(Op::Sub, Ty::F16, 0, 0x7C00, 0x7C00, 0), Some(0x7FFF));
        // min/max: NaN gives the other; -0 < +0; .NaN and .xorsign.abs.
        assert_eq!(compute(Op::Min, Ty::F16, 0, 0x7E00, one, 0), Some(one));
        assert_eq!(compute(Op::Min, Ty::F16, FLOAT_NAN_RELU, 0x7E00, one, 0), Some(0x7FFF));
        assert_eq!(compute(Op::Min, Ty::F16, 0, 0x8000, 0, 0), Some(0x8000));
        assert_eq!(compute(Op::Max, Ty::F16, 0, 0x8000, 0, 0), Some(0));
        assert_eq!(compute(Op::Max, Ty::F16, FLOAT_XORSIGN, 0xC000, one, 0), Some(0xC000));
        // bfloat16: 1 + 2^-8 is a tie, to even.
        assert_eq!(compute(Op::Add, Ty::Bf16, 0, 0x3F80, 0x3B80, 0), Some(0x3F80));
        assert_eq!(compute(Op::Div, Ty::F16, 0, one, one, 0), None);
    }

    #[test]
    fn fma_is_rounded_once() {
        // (1 + 2^-10) * 1.5 lies on a tie of binary16; the sign of a tiny addend decides.
        assert_eq!(compute(Op::Mad, Ty::F16, 0, 0x3C01, 0x3E00, 0), Some(0x3E02));
        assert_eq!(compute(Op::Mad, Ty::F16, 0, 0x3C01, 0x3E00, 0x8001), Some(0x3E01));
        assert_eq!(compute(Op::Mad, Ty::F16, 0, 0x3C01, 0x3E00, 0x0001), Some(0x3E02));
        // bfloat16: (1 + 2^-7) * 1.5 is a tie; an addend of -2^-133 is far below f64's last
        // place at 1.5 and still breaks it.
        assert_eq!(compute(Op::Mad, Ty::Bf16, 0, 0x3F81, 0x3FC0, 0), Some(0x3FC2));
        assert_eq!(compute(Op::Mad, Ty::Bf16, 0, 0x3F81, 0x3FC0, 0x8001), Some(0x3FC1));
        assert_eq!(compute(Op::Add, Ty::Bf16, 0, 0x3F81, 0x8001, 0), Some(0x3F81));
    }

    #[test]
    fn conversions() {
        let c = |dst, src, r, a| cvt(dst, src, r, false, false, a);
        assert_eq!(c(Ty::F32, Ty::F16, Round::Default, 0x3C00), 1.0f32.to_bits() as u64);
        assert_eq!(c(Ty::F16, Ty::F32, Round::Rn, fb32(1.0 / 3.0)), 0x3555);
        assert_eq!(c(Ty::F16, Ty::F32, Round::Rp, fb32(1.0 / 3.0)), 0x3556);
        assert_eq!(c(Ty::F16, Ty::F32, Round::Default, fb32(f32::NAN)), 0x7FFF);
        assert_eq!(c(Ty::F32, Ty::F16, Round::Default, 0xFE01), 0xFFC0_2000);
        assert_eq!(c(Ty::F32, Ty::Bf16, Round::Default, 0x7F81), 0x7FC1_0000);
        assert_eq!(c(Ty::S32, Ty::F16, Round::Rz, 0xC500), (-5i32) as u32 as u64);
        assert_eq!(cvt(Ty::S32, Ty::F16, Round::Rn, false, false, 0x4100), 2); // 2.5 to even
        assert_eq!(c(Ty::F16, Ty::S32, Round::Rn, 2049), 0x6800); // 2048: a tie, to even
        assert_eq!(c(Ty::F16, Ty::S32, Round::Rn, 2051), 0x6802);
        // u64 beyond f64's precision: (2^62 + 2^51 + 1) is above a binary16 tie... to inf.
        assert_eq!(c(Ty::F16, Ty::U64, Round::Rn, (1 << 62) + 1), 0x7C00);
        // bfloat16 of 1 + 2^-8 + 2^-60 (as a u64 ratio would need): a 64-bit integer just
        // above a tie rounds up.
        let x: u64 = (1 << 63) + (1 << 55) + 1; // 1.00000001b x 2^63, plus one
        assert_eq!(c(Ty::Bf16, Ty::U64, Round::Rn, x), 0x5F01);
        assert_eq!(c(Ty::Bf16, Ty::U64, Round::Rn, x - 1), 0x5F00);
        assert_eq!(cvt(Ty::F16, Ty::F16, Round::Rn, false, true, 0x3E00), 0x4000); // rni 1.5 = 2
        assert_eq!(cvt(Ty::F16, Ty::F32, Round::Rn, true, false, fb32(7.0)), 0x3C00); // sat
    }
}
