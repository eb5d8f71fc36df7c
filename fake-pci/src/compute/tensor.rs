//! The tensor core ([`Op::Mma`]): a warp's operands staged lane by lane into the warp's
//! operand buffer, multiplied as one matrix operation, and read back lane by lane
//! (`hw::isa::mma` has the encoding and the fragment layout).
//!
//! Arithmetic: each element of D is C's element, then the K products added in order of k,
//! each product exact and each addition rounded once (a chain of fused multiply-adds) in the
//! accumulator's precision: binary32 for f16, bf16 and tf32 inputs (an f16 accumulator is
//! widened exactly, and D rounded to it once at the end, to nearest even), binary64 for
//! f64, 32-bit integers (wrapping, or saturating with `.satfinite`) for s8 and u8. tf32
//! inputs have their 13 low mantissa bits ignored, as the hardware does. Real tensor cores
//! add a step's products in a wider tree whose rounding NVIDIA does not document; results
//! whose sums are exact (integers, the usual test data) are the same on both.

use super::half::{Fmt, round, to_f64};
use super::{D, Round, gather, put};
use alloc::vec::Vec;
use core::cmp::Ordering;
use hw::isa::mma::{Config, Elem, Frag, Matrix, READ_D, RUN, STAGE_A, STAGE_B, STAGE_C};

/// Slots per operand, lanes, operands (A, B, C, D): the per-warp buffer's size in words.
const SLOTS: usize = 8;
const OPERAND: usize = SLOTS * 32;
/// Words of the buffer [`execute`] keeps in a warp.
pub(crate) const STAGE_WORDS: usize = 4 * OPERAND;

/// Execute `d` in lanes `on` with the warp's operand buffer `stage`; None when it is not a
/// valid tensor instruction (an unknown configuration, a multiply some lanes do not take
/// part in).
pub(crate) fn execute(d: &D, on: u32, stage: &mut Vec<u64>, regs: &mut [u64]) -> Option<()> {
    if stage.len() != STAGE_WORDS {
        stage.clear();
        stage.resize(STAGE_WORDS, 0);
    }
    let slot = (d.m & 7) as usize;
    match d.m & !7 {
        x @ (STAGE_A | STAGE_B | STAGE_C) => {
            let which = (x >> 3) as usize;
            let vals = gather(d, 0, regs);
            for l in (0..32).filter(|l| on >> l & 1 == 1) {
                stage[which * OPERAND + slot * 32 + l] = vals[l];
            }
        }
        RUN => {
            if on != u32::MAX {
                return None; // `.aligned`: the whole warp multiplies
            }
            let cfg = Config::decode(d.imm)?;
            multiply(&cfg, stage)?;
            put(d.dst, on, &[0; 32], regs);
        }
        READ_D => {
            let out: [u64; 32] = core::array::from_fn(|l| stage[3 * OPERAND + slot * 32 + l]);
            put(d.dst, on, &out, regs);
        }
        _ => return None,
    }
    Some(())
}

/// Element `j` of lane `l`'s fragment `f` of operand `which` (raw bits).
fn element(stage: &[u64], which: usize, f: &Frag, l: usize, j: u32) -> u64 {
    let bytes = f.elem.bytes();
    if bytes == 8 {
        return stage[which * OPERAND + j as usize * 32 + l];
    }
    let per_reg = 4 / bytes;
    let word = stage[which * OPERAND + (j / per_reg) as usize * 32 + l];
    let shift = (j % per_reg) * bytes * 8;
    (word >> shift) & ((1u64 << (bytes * 8)) - 1)
}

/// The matrix of operand `which` as (row, col) -> raw bits in its logical orientation
/// (A: M x K, B: K x N, C: M x N), from the lanes' fragments (`transposed`: a `wmma`
/// fragment held in the other orientation; `mma.sync` ones are logical already).
fn unstage(stage: &[u64], which: usize, f: &Frag, transposed: bool, out: &mut [u64; 512]) {
    let transposed = transposed && !f.sync;
    for l in 0..32 {
        for j in 0..f.per_lane {
            let (r, c) = f.coord(l as u32, j);
            let (row, col) = if transposed { (c, r) } else { (r, c) };
            let logical_cols = if transposed { f.rows } else { f.cols };
            out[(row * logical_cols + col) as usize] = element(stage, which, f, l, j);
        }
    }
}

/// The value of a raw element as f64 (exact for every input type).
fn value(e: Elem, bits: u64) -> f64 {
    match e {
        Elem::F16 => to_f64(Fmt::F16, bits as u16),
        Elem::Bf16 => to_f64(Fmt::Bf16, bits as u16),
        Elem::Tf32 => f32::from_bits(bits as u32 & !0x1FFF) as f64,
        Elem::F32 => f32::from_bits(bits as u32) as f64,
        Elem::S8 => bits as u8 as i8 as f64,
        Elem::U8 => bits as u8 as f64,
        Elem::S32 => bits as u32 as i32 as f64,
        Elem::F64 => f64::from_bits(bits),
    }
}

fn multiply(cfg: &Config, stage: &mut [u64]) -> Option<()> {
    let (m, n, k) = cfg.shape.mnk();
    let fa = cfg.frag(Matrix::A, cfg.ab)?;
    let fb = cfg.frag(Matrix::B, cfg.ab)?;
    let fc = cfg.frag(Matrix::C, cfg.c)?;
    let fd = cfg.frag(Matrix::C, cfg.d)?;
    let (mut a, mut b, mut c) = ([0u64; 512], [0u64; 512], [0u64; 512]);
    unstage(stage, 0, &fa, cfg.a_col, &mut a);
    unstage(stage, 1, &fb, cfg.b_col, &mut b);
    unstage(stage, 2, &fc, false, &mut c);
    let int = matches!(cfg.ab, Elem::S8 | Elem::U8);
    let mut d = [0u64; 512];
    for i in 0..m {
        for j in 0..n {
            let at = (i * n + j) as usize;
            let ak = |kk: u32| value(cfg.ab, a[(i * k + kk) as usize]);
            let bk = |kk: u32| value(cfg.ab, b[(kk * n + j) as usize]);
            d[at] = if int {
                let mut acc = c[at] as u32 as i32 as i64;
                for kk in 0..k {
                    acc += ak(kk) as i64 * bk(kk) as i64;
                    if !cfg.satfinite {
                        acc = acc as i32 as i64;
                    }
                }
                acc.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64
            } else if cfg.ab == Elem::F64 {
                let mut acc = f64::from_bits(c[at]);
                for kk in 0..k {
                    acc = libm::fma(ak(kk), bk(kk), acc);
                }
                let acc = if cfg.satfinite && acc.is_infinite() { f64::MAX.copysign(acc) } else { acc };
                acc.to_bits()
            } else {
                let mut acc = value(cfg.c, c[at]) as f32;
                for kk in 0..k {
                    acc = libm::fmaf(ak(kk) as f32, bk(kk) as f32, acc);
                }
                match cfg.d {
                    Elem::F16 => {
                        let h = round(Fmt::F16, acc as f64, Ordering::Equal, Round::Default);
                        (if cfg.satfinite && h & 0x7FFF == 0x7C00 { (h & 0x8000) | 0x7BFF } else { h }) as u64
                    }
                    _ => {
                        (if cfg.satfinite && acc.is_infinite() { f32::MAX.copysign(acc) } else { acc }).to_bits() as u64
                    }
                }
            };
        }
    }
    // Back into the lanes' D fragments.
    let base = 3 * OPERAND;
    stage[base..base + OPERAND].iter_mut().for_each(|w| *w = 0);
    let bytes = fd.elem.bytes();
    for l in 0..32 {
        for jj in 0..fd.per_lane {
            let (r, c) = fd.coord(l as u32, jj);
            let v = d[(r * n + c) as usize];
            if bytes == 8 {
                stage[base + jj as usize * 32 + l] = v;
            } else {
                let per_reg = 4 / bytes;
                let w = &mut stage[base + (jj / per_reg) as usize * 32 + l];
                *w |= v << ((jj % per_reg) * bytes * 8);
            }
        }
    }
    Some(())
}
