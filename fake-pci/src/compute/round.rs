//! IEEE 754 arithmetic with the directed rounding modes of PTX (`.rz`, `.rm`, `.rp`) for
//! `add`, `sub`, `mul`, `div`, `fma`, `sqrt` and `rcp` of `.f32` and `.f64`. The host
//! computes in round-to-nearest only; each operation here finds its nearest result and the
//! sign of the exact result's difference from it (exactly, with error-free
//! transformations: two-sum, the residual of a fused multiply-add), then steps one unit in
//! the last place toward the mode's direction where the exact value lies on that side.
//! `.f32` operations are carried out in `f64`, where their products are exact.

use core::cmp::Ordering;
use hw::isa::{Op, Round, Ty};

/// Sum and its exact error (Knuth's two-sum): a + b = s + e.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn sign(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

fn next_f64(x: f64, up: bool) -> f64 {
    if x.is_nan() || (x.is_infinite() && (x > 0.0) == up) {
        return x;
    }
    if x == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let b = x.to_bits();
    f64::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

fn next_f32(x: f32, up: bool) -> f32 {
    if x.is_nan() || (x.is_infinite() && (x > 0.0) == up) {
        return x;
    }
    if x == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let b = x.to_bits();
    f32::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

/// Whether the result `r` (nearest) of an exact value with `exact - r` of sign `s` moves,
/// and which way (true: up), under `mode`.
fn step(r_positive: bool, s: Ordering, mode: Round) -> Option<bool> {
    match (mode, s) {
        (_, Ordering::Equal) => None,
        (Round::Rm, Ordering::Less) => Some(false),
        (Round::Rp, Ordering::Greater) => Some(true),
        (Round::Rz, Ordering::Less) if r_positive => Some(false),
        (Round::Rz, Ordering::Greater) if !r_positive => Some(true),
        _ => None,
    }
}

/// `r` (the nearest f64 to an exact value whose difference from `r` has sign `s`) rounded
/// by `mode`. An overflow to infinity is an exact value beyond the largest finite number.
fn finish64(r: f64, s: Ordering, mode: Round, finite_inputs: bool) -> f64 {
    let s = if r.is_infinite() && finite_inputs { if r > 0.0 { Ordering::Less } else { Ordering::Greater } } else { s };
    match step(r > 0.0 || (r == 0.0 && r.is_sign_positive()), s, mode) {
        Some(up) => next_f64(r, up),
        None => r,
    }
}

/// The f32 rounding by `mode` of the exact value v + e (v an f64, e the sign of the rest).
fn finish32(v: f64, e: Ordering, mode: Round, finite_inputs: bool) -> f32 {
    let t = v as f32;
    if t.is_nan() {
        return t;
    }
    let s = if t.is_infinite() && finite_inputs {
        if t > 0.0 { Ordering::Less } else { Ordering::Greater }
    } else {
        // v - t is exact (t is v rounded); a nonzero difference outweighs e, which is
        // below half a unit of v's last place.
        match sign(v - t as f64) {
            Ordering::Equal => e,
            d => d,
        }
    };
    match step(t > 0.0 || (t == 0.0 && t.is_sign_positive()), s, mode) {
        Some(up) => next_f32(t, up),
        None => t,
    }
}

/// The sign of an exactly zero sum under `mode`: -0 when rounding down unless both terms
/// are +0; otherwise the nearest result's (both -0 give -0).
fn zero_sum(r: f64, a: f64, b: f64, mode: Round) -> f64 {
    if mode == Round::Rm && !(a == 0.0 && b == 0.0 && a.is_sign_positive() && b.is_sign_positive()) { -0.0 } else { r }
}

/// Whether [`directed`] computes `op` (of a float type).
pub(crate) fn computes(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rcp | Op::Sqrt | Op::Mad)
}

/// `op` of type `ty` on operands `a`, `b`, `c` (register bits) rounded by `mode`, when
/// `mode` is directed and the operation is one this module computes; `None` otherwise
/// (the caller's round-to-nearest path).
pub(crate) fn directed(op: Op, ty: Ty, mode: Round, a: u64, b: u64, c: u64) -> Option<u64> {
    if !matches!(mode, Round::Rz | Round::Rm | Round::Rp) {
        return None;
    }
    match ty {
        Ty::F32 => {
            let f = |v: u64| f32::from_bits(v as u32) as f64;
            let (x, y, z) = (f(a), f(b), f(c));
            let r = match op {
                Op::Add | Op::Sub => {
                    let y = if op == Op::Sub { -y } else { y };
                    let (s, e) = two_sum(x, y);
                    if s == 0.0 && e == 0.0 {
                        return Some((zero_sum(s, x, y, mode) as f32).to_bits() as u64);
                    }
                    finish32(s, sign(e), mode, x.is_finite() && y.is_finite())
                }
                Op::Mul => finish32(x * y, Ordering::Equal, mode, x.is_finite() && y.is_finite()),
                Op::Div | Op::Rcp => {
                    let (x, y) = if op == Op::Rcp { (1.0, x) } else { (x, y) };
                    let q = x / y;
                    let rem = libm::fma(-q, y, x);
                    let s = if y < 0.0 { sign(rem).reverse() } else { sign(rem) };
                    finish32(q, if q.is_finite() { s } else { Ordering::Equal }, mode, x.is_finite() && y != 0.0)
                }
                Op::Sqrt => {
                    let s = libm::sqrt(x);
                    finish32(s, if s.is_finite() { sign(libm::fma(-s, s, x)) } else { Ordering::Equal }, mode, true)
                }
                Op::Mad => {
                    let (s, e) = two_sum(x * y, z);
                    if s == 0.0 && e == 0.0 {
                        return Some((zero_sum(s, x * y, z, mode) as f32).to_bits() as u64);
                    }
                    finish32(s, sign(e), mode, x.is_finite() && y.is_finite() && z.is_finite())
                }
                _ => return None,
            };
            Some(r.to_bits() as u64)
        }
        Ty::F64 => {
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let r = match op {
                Op::Add | Op::Sub => {
                    let y = if op == Op::Sub { -y } else { y };
                    let (s, e) = two_sum(x, y);
                    if s == 0.0 && e == 0.0 {
                        return Some(zero_sum(s, x, y, mode).to_bits());
                    }
                    finish64(
                        s,
                        if s.is_finite() { sign(e) } else { Ordering::Equal },
                        mode,
                        x.is_finite() && y.is_finite(),
                    )
                }
                Op::Mul => {
                    let p = x * y;
                    let e = if p.is_finite() { sign(libm::fma(x, y, -p)) } else { Ordering::Equal };
                    finish64(p, e, mode, x.is_finite() && y.is_finite())
                }
                Op::Div | Op::Rcp => {
                    let (x, y) = if op == Op::Rcp { (1.0, x) } else { (x, y) };
                    let q = x / y;
                    let s = if q.is_finite() {
                        let rem = libm::fma(-q, y, x);
                        if y < 0.0 { sign(rem).reverse() } else { sign(rem) }
                    } else {
                        Ordering::Equal
                    };
                    finish64(q, s, mode, x.is_finite() && y != 0.0)
                }
                Op::Sqrt => {
                    let s = libm::sqrt(x);
                    finish64(s, if s.is_finite() { sign(libm::fma(-s, s, x)) } else { Ordering::Equal }, mode, true)
                }
                Op::Mad => {
                    let r = libm::fma(x, y, z);
                    if !r.is_finite() {
                        finish64(r, Ordering::Equal, mode, x.is_finite() && y.is_finite() && z.is_finite())
                    } else {
                        // exact = p + ep + z with p = x*y rounded and ep its exact error;
                        // (t, et) = two-sum(p, z); exact - r = (t - r) + et + ep.
                        let p = x * y;
                        let ep = libm::fma(x, y, -p);
                        let (t, et) = two_sum(p, z);
                        let d = (t - r) + (et + ep);
                        if r == 0.0 && d == 0.0 {
                            return Some(zero_sum(r, p, z, mode).to_bits());
                        }
                        finish64(r, sign(d), mode, true)
                    }
                }
                _ => return None,
            };
            Some(r.to_bits())
        }
        _ => None,
    }
}

/// `cvt` to a float type with a directed rounding `mode` (not integral, not saturating):
/// f64 to f32, and integers to f32 or f64, where the result may be inexact.
pub(crate) fn cvt_directed(dst: Ty, src: Ty, mode: Round, a: u64) -> Option<u64> {
    if !matches!(mode, Round::Rz | Round::Rm | Round::Rp) {
        return None;
    }
    let int = |a: u64| -> i128 {
        match src {
            Ty::S8 => a as u8 as i8 as i128,
            Ty::S16 => a as u16 as i16 as i128,
            Ty::S32 => a as u32 as i32 as i128,
            Ty::S64 => a as i64 as i128,
            Ty::U8 => (a & 0xFF) as i128,
            Ty::U16 => (a & 0xFFFF) as i128,
            Ty::U32 => (a & 0xFFFF_FFFF) as i128,
            _ => a as i128,
        }
    };
    // An integer's nearest f64 and the sign of what it leaves out.
    let near = |v: i128| -> (f64, Ordering) {
        let f = v as f64;
        (f, (v - f as i128).cmp(&0))
    };
    match (dst, src) {
        (Ty::F32, Ty::F64) => {
            let x = f64::from_bits(a);
            Some(finish32(x, Ordering::Equal, mode, x.is_finite()).to_bits() as u64)
        }
        (Ty::F32, t) if !t.float() => {
            let (f, e) = near(int(a));
            Some(finish32(f, e, mode, true).to_bits() as u64)
        }
        (Ty::F64, Ty::S64 | Ty::U64) => {
            let (f, e) = near(int(a));
            Some(finish64(f, e, mode, true).to_bits())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32op(op: Op, mode: Round, x: f32, y: f32) -> f32 {
        f32::from_bits(directed(op, Ty::F32, mode, x.to_bits() as u64, y.to_bits() as u64, 0).unwrap() as u32)
    }

    #[test]
    fn directed_f32_brackets_the_exact_result() {
        // 1 + 2^-30 is not an f32: down and toward zero give 1, up the next float.
        let (x, y) = (1.0f32, 2f32.powi(-30));
        assert_eq!(f32op(Op::Add, Round::Rz, x, y), 1.0);
        assert_eq!(f32op(Op::Add, Round::Rm, x, y), 1.0);
        assert_eq!(f32op(Op::Add, Round::Rp, x, y), next_f32(1.0, true));
        assert_eq!(f32op(Op::Add, Round::Rz, -x, -y), -1.0);
        assert_eq!(f32op(Op::Add, Round::Rm, -x, -y), next_f32(-1.0, false));
        // 1/3 brackets: rm < rp, one ulp apart, and rz = rm for positives.
        let (lo, hi) = (f32op(Op::Div, Round::Rm, 1.0, 3.0), f32op(Op::Div, Round::Rp, 1.0, 3.0));
        assert_eq!(next_f32(lo, true), hi);
        assert!((lo as f64) < 1.0 / 3.0 && (hi as f64) > 1.0 / 3.0);
        assert_eq!(f32op(Op::Div, Round::Rz, 1.0, 3.0), lo);
        assert_eq!(f32op(Op::Div, Round::Rz, -1.0, 3.0), -lo);
        // x - x is -0 rounding down, +0 otherwise.
        assert!(f32op(Op::Sub, Round::Rm, 5.0, 5.0).is_sign_negative());
        assert!(f32op(Op::Sub, Round::Rp, 5.0, 5.0).is_sign_positive());
        // Overflow: toward zero gives the largest float, not infinity.
        assert_eq!(f32op(Op::Mul, Round::Rz, f32::MAX, 2.0), f32::MAX);
        assert_eq!(f32op(Op::Mul, Round::Rp, f32::MAX, 2.0), f32::INFINITY);
        assert_eq!(f32op(Op::Mul, Round::Rm, f32::MAX, -2.0), f32::NEG_INFINITY);
        // Exact results do not move.
        assert_eq!(f32op(Op::Mul, Round::Rp, 1.5, 2.0), 3.0);
        // Conversions: 2^24 + 1 is not an f32.
        let c = |dst, src, mode, a| cvt_directed(dst, src, mode, a).unwrap();
        assert_eq!(c(Ty::F32, Ty::S32, Round::Rp, (1 << 24) + 1) as u32, 16777218f32.to_bits());
        assert_eq!(c(Ty::F32, Ty::S32, Round::Rz, (1 << 24) + 1) as u32, 16777216f32.to_bits());
        let third = (1.0f64 / 3.0).to_bits();
        assert_eq!(
            next_f32(f32::from_bits(c(Ty::F32, Ty::F64, Round::Rm, third) as u32), true).to_bits() as u64,
            c(Ty::F32, Ty::F64, Round::Rp, third)
        );
        assert_eq!(c(Ty::F64, Ty::U64, Round::Rz, u64::MAX), 18446744073709549568f64.to_bits());
    }

    #[test]
    fn directed_f64_brackets_the_exact_result() {
        let d = |op, mode, x: f64, y: f64| {
            f64::from_bits(directed(op, Ty::F64, mode, x.to_bits(), y.to_bits(), 0).unwrap())
        };
        let (lo, hi) = (d(Op::Div, Round::Rm, 1.0, 3.0), d(Op::Div, Round::Rp, 1.0, 3.0));
        assert_eq!(next_f64(lo, true), hi);
        let (lo, hi) = (d(Op::Mul, Round::Rm, 0.1, 0.1), d(Op::Mul, Round::Rp, 0.1, 0.1));
        assert_eq!(next_f64(lo, true), hi);
        let s = d(Op::Sqrt, Round::Rz, 2.0, 0.0);
        assert!(s * s < 2.0 && next_f64(s, true) * next_f64(s, true) > 2.0);
        assert_eq!(d(Op::Add, Round::Rp, 1.0, 1e-300), next_f64(1.0, true));
        assert_eq!(d(Op::Add, Round::Rz, 1.0, -1e-300), next_f64(1.0, false));
    }
}
