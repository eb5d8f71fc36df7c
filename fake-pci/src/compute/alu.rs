//! The ALU: what a data instruction does to a warp's registers, by group (arithmetic,
//! selection and comparison, conversion, bit fields, address conversion, special
//! registers, warp-wide shuffles and votes), and the gather/put helpers that move a warp's
//! operands. The per-lane arithmetic itself is `ops`'s; memory instructions go to the
//! load/store unit (`lsu`).
use super::{
    Cmp, CvtMods, CvtaMods, D, Exec, FLOAT_FTZ, FLOAT_SAT, GridError, Imm, MulMode, Op, RZ, Round, Space, Sreg, Trap,
    TrapReason, Ty, VOTE_MEMBER_MASK, WarpMem, WarpPos, binop, cvt, f32v, f64v, fb32, half, mask, redux_op, round,
    setp, sx, unop,
};

/// Set register `d.dst` in lanes `on` to `$body`, computed per lane `$l` (before any lane
/// is written: the body may read the destination).
macro_rules! lanes {
    ($d:expr, $on:expr, $regs:expr, |$l:ident| $body:expr) => {{
        let (dst, on) = ($d.dst, $on);
        for $l in 0..32usize {
            if on >> $l & 1 == 1 {
                let v: u64 = $body;
                if dst != RZ {
                    $regs[dst as usize * 32 + $l] = v;
                }
            }
        }
    }};
}

impl Exec<'_, '_> {
    /// Execute data instruction `d` (at `pc`) in lanes `on` (of `active`: the lanes not
    /// exited or diverged away) of the warp at `pos`: register-to-register operations,
    /// special registers, warp-level operations, and memory instructions through the
    /// load/store unit.
    #[inline(always)]
    pub(crate) fn execute(
        &mut self,
        d: D,
        pc: u32,
        (on, active): (u32, u32),
        pos: WarpPos,
        m: &mut WarpMem,
    ) -> Result<(), GridError> {
        let illegal = GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc });
        let regs = &mut *m.regs;
        let msk = mask(d.ty);
        if d.ty.half() && !matches!(d.op, Op::Mov | Op::Selp | Op::Ld | Op::St | Op::Atom | Op::Cvt | Op::Shfl) {
            return half_op(d, on, regs).ok_or(illegal);
        }
        match d.op {
            Op::Nop | Op::Membar | Op::Trap => {}
            Op::Mov => {
                let a = gather(&d, 0, regs);
                put(d.dst, on, &map1(&a, |x| x & msk), regs);
            }
            Op::S2r => {
                let s = Sreg::from_index(d.imm).ok_or(illegal)?;
                let out = self.special(s, pos, active);
                put(d.dst, on, &map1(&out, |x| x & msk), regs);
            }
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Rem
            | Op::Min
            | Op::Max
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::Shl
            | Op::Shr => {
                arith(d, on, regs).ok_or(illegal)?;
                saturate(&d, on, regs);
            }
            Op::Mad => {
                mad(d, on, regs);
                saturate(&d, on, regs);
            }
            Op::Abs
            | Op::Neg
            | Op::Not
            | Op::Popc
            | Op::Clz
            | Op::Brev
            | Op::Sqrt
            | Op::Rcp
            | Op::Rsqrt
            | Op::Sin
            | Op::Cos
            | Op::Ex2
            | Op::Lg2
            | Op::Tanh => {
                let ftz = d.ty == Ty::F32 && d.m & FLOAT_FTZ != 0;
                let flush = |v: u64| if ftz { ftz32(v) } else { v };
                match directed_mode(&d).filter(|_| d.ty.float() && round::computes(d.op)) {
                    Some(r) => lanes!(d, on, regs, |l| {
                        flush(round::directed(d.op, d.ty, r, flush(operand(&d, 0, l, regs)), 0, 0).unwrap_or(0))
                    }),
                    None => lanes!(d, on, regs, |l| flush(unop(d.op, d.ty, flush(operand(&d, 0, l, regs))))),
                }
            }
            Op::Selp | Op::Slct => select(d, on, regs),
            Op::Setp => compare(d, on, regs).ok_or(illegal)?,
            Op::Cvt => {
                let mut c = CvtMods::decode(d.m).ok_or(illegal)?;
                if d.imm_slot == Imm::None {
                    c = c.extended(d.imm);
                }
                let CvtMods { round, sat, src, integral, .. } = c;
                if c.tf32 {
                    lanes!(d, on, regs, |l| super::half::tf32(operand(&d, 0, l, regs), c))
                } else if c.relu || c.satfinite {
                    lanes!(d, on, regs, |l| {
                        let r = cvt(d.ty, src, round, sat, integral, operand(&d, 0, l, regs));
                        super::half::finish(d.ty, r, c)
                    })
                } else {
                    lanes!(d, on, regs, |l| cvt(d.ty, src, round, sat, integral, operand(&d, 0, l, regs)))
                }
            }
            Op::Bfe | Op::Prmt | Op::Shf => bits(d, on, regs),
            Op::Cvta => {
                let CvtaMods { space, to } = CvtaMods::decode(d.m);
                let window = match space {
                    x if x == Space::Shared as u16 => self.r.shared_window,
                    x if x == Space::Local as u16 => self.r.local_window,
                    _ => 0,
                };
                lanes!(d, on, regs, |l| {
                    let a = operand(&d, 0, l, regs);
                    if to { a.wrapping_sub(window) } else { a.wrapping_add(window) }
                })
            }
            Op::Ld | Op::St | Op::Atom => self.memory(d, pc, on, pos, m).map_err(|e| self.replayable(e))?,
            Op::Bulk => self.bulk(d, pc, on, pos, m).map_err(|e| self.replayable(e))?,
            Op::Cluster => self.cluster(d, pc, on, pos, m)?,
            Op::Printf => self.printf(d, pc, on, pos, m)?,
            Op::Heap => self.heap(d, pc, on, m)?,
            Op::Shfl | Op::Vote => warp_wide(d, on, regs),
            Op::Redux | Op::Match => reduce_match(d, on, regs).ok_or(illegal)?,
            Op::Tex | Op::Tld4 | Op::Txq | Op::Suld | Op::Sust => self.texture(d, pc, on, regs)?,
            Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret | Op::Mma => unreachable!("handled by the SIMT unit"),
        }
        if self.bcheck.as_ref().is_some_and(|b| !b.prov.is_empty()) {
            self.track_pointers(&d, on, pos.warpid, m.regs);
        }
        Ok(())
    }

    /// The value of special register `s` in each lane of the warp at `pos` (`active`: the
    /// lanes not exited or diverged away).
    #[inline(always)]
    fn special(&self, s: Sreg, pos: WarpPos, active: u32) -> [u64; 32] {
        let (r, WarpPos { base: tid_base, warpid, nwarps, ctaid }) = (self.r, pos);
        let bdim = r.block;
        let now = self.cx.now + self.instrs;
        let lane = |f: fn(u64) -> u64| -> [u64; 32] { core::array::from_fn(|l| f(l as u64)) };
        let tid = |k: usize| -> [u64; 32] {
            core::array::from_fn(|l| {
                let t = (tid_base + l as u32) as u64;
                let (x, y) = (bdim[0] as u64, bdim[1] as u64);
                match k {
                    0 if bdim[1] == 1 && bdim[2] == 1 => t,
                    0 => t % x,
                    1 => (t / x) % y,
                    _ => t / (x * y),
                }
            })
        };
        let uniform = |v: u64| [v; 32];
        match s {
            Sreg::TidX => tid(0),
            Sreg::TidY => tid(1),
            Sreg::TidZ => tid(2),
            Sreg::NtidX => uniform(bdim[0] as u64),
            Sreg::NtidY => uniform(bdim[1] as u64),
            Sreg::NtidZ => uniform(bdim[2] as u64),
            Sreg::CtaidX => uniform(ctaid[0] as u64),
            Sreg::CtaidY => uniform(ctaid[1] as u64),
            Sreg::CtaidZ => uniform(ctaid[2] as u64),
            Sreg::NctaidX => uniform(r.grid[0] as u64),
            Sreg::NctaidY => uniform(r.grid[1] as u64),
            Sreg::NctaidZ => uniform(r.grid[2] as u64),
            Sreg::LaneId => lane(|l| l),
            Sreg::WarpId => uniform(warpid as u64),
            Sreg::NwarpId => uniform(nwarps as u64),
            Sreg::SmId => uniform(self.smid as u64),
            Sreg::Clock => uniform(now & 0xFFFF_FFFF),
            Sreg::Clock64 => uniform(now),
            Sreg::GlobalTimer => uniform(self.cx.now_ns),
            Sreg::LanemaskLt => lane(|l| (1u64 << l) - 1),
            Sreg::LanemaskLe => lane(|l| (1u64 << (l + 1)) - 1),
            Sreg::LanemaskGt => lane(|l| !((1u64 << (l + 1)) - 1) & 0xFFFF_FFFF),
            Sreg::LanemaskGe => lane(|l| !((1u64 << l) - 1) & 0xFFFF_FFFF),
            Sreg::LanemaskEq => lane(|l| 1u64 << l),
            Sreg::ActiveMask => uniform(active as u64),
            s => uniform(super::cluster::sreg(r, ctaid, s)),
        }
    }
}

/// Lane `lane`'s value of operand `k` (0: a, 1: b, 2: c): the immediate, zero for RZ, or
/// the register.
#[inline(always)]
pub(crate) fn operand(d: &D, k: usize, lane: usize, regs: &[u64]) -> u64 {
    let reg = match k {
        0 => d.a,
        1 => d.b,
        _ => d.c,
    };
    if d.is_imm(k) {
        d.imm
    } else if reg == RZ {
        0
    } else {
        regs[reg as usize * 32 + lane]
    }
}

/// Two-operand arithmetic and logic (add ... shr); None for a type or mode the operation
/// does not have. The common 32-bit and f32 forms are spelled out so they vectorize.
#[inline(always)]
fn arith(d: D, on: u32, regs: &mut [u64]) -> Option<()> {
    let (ty, mode, msk) = (d.ty, d.m & 3, mask(d.ty));
    binop(d.op, ty, mode, 0, 1)?;
    let (mut a, mut b) = (gather(&d, 0, regs), gather(&d, 1, regs));
    let ftz = ty == Ty::F32 && d.m & FLOAT_FTZ != 0;
    if ftz {
        (a, b) = (a.map(ftz32), b.map(ftz32));
    }
    // Floats with a directed rounding (`add.rz.f32`, `__fmul_rd`, ...).
    if ty.float()
        && let Some(r) = directed_mode(&d)
        && round::computes(d.op)
    {
        let mut out = map2(&a, &b, |x, y| round::directed(d.op, ty, r, x, y, 0).unwrap_or(0));
        if ftz {
            out = out.map(ftz32);
        }
        put(d.dst, on, &out, regs);
        return Some(());
    }
    if ftz {
        let out = map2(&a, &b, |x, y| ftz32(binop(d.op, ty, mode, x, y).unwrap_or(0)));
        put(d.dst, on, &out, regs);
        return Some(());
    }
    let out = match (d.op, ty, mode) {
        (Op::Add, Ty::U32 | Ty::S32, _) => map2(&a, &b, |x, y| x.wrapping_add(y) & 0xFFFF_FFFF),
        (Op::Add, Ty::U64 | Ty::S64, _) => map2(&a, &b, u64::wrapping_add),
        (Op::Add, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) + f32v(y))),
        (Op::Sub, Ty::U32 | Ty::S32, _) => map2(&a, &b, |x, y| x.wrapping_sub(y) & 0xFFFF_FFFF),
        (Op::Sub, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) - f32v(y))),
        (Op::Mul, Ty::U32 | Ty::S32, 0) => map2(&a, &b, |x, y| x.wrapping_mul(y) & 0xFFFF_FFFF),
        (Op::Mul, Ty::U32, 2) => map2(&a, &b, |x, y| (x & 0xFFFF_FFFF) * (y & 0xFFFF_FFFF)),
        (Op::Mul, Ty::S32, 2) => map2(&a, &b, |x, y| (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64),
        (Op::Mul, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) * f32v(y))),
        (Op::And, _, _) if ty.bytes() >= 4 => map2(&a, &b, |x, y| x & y & msk),
        (Op::Or, _, _) if ty.bytes() >= 4 => map2(&a, &b, |x, y| (x | y) & msk),
        (Op::Shl, Ty::U32 | Ty::S32, _) => {
            // The shift amount is a .u32 operand: its register's upper bits do not count.
            map2(&a, &b, |x, y| {
                let s = y & 0xFFFF_FFFF;
                if s >= 32 { 0 } else { (x << s) & 0xFFFF_FFFF }
            })
        }
        _ => map2(&a, &b, |x, y| binop(d.op, ty, mode, x, y).unwrap_or(0)),
    };
    put(d.dst, on, &out, regs);
    Some(())
}

/// A half-precision data instruction: arithmetic, min/max, neg, abs, ex2 and setp
/// (`half`); None for one half precision does not have.
fn half_op(d: D, on: u32, regs: &mut [u64]) -> Option<()> {
    if d.op == Op::Setp {
        let cmp = Cmp::from_bits(d.m)?;
        lanes!(d, on, regs, |l| {
            half::compare(cmp, d.ty, d.m & FLOAT_FTZ != 0, operand(&d, 0, l, regs), operand(&d, 1, l, regs)) as u64
        });
        return Some(());
    }
    if !half::computes(d.op) || half::Fmt::of(d.ty).is_none() {
        return None;
    }
    lanes!(d, on, regs, |l| {
        half::compute(d.op, d.ty, d.m, operand(&d, 0, l, regs), operand(&d, 1, l, regs), operand(&d, 2, l, regs))
            .unwrap_or(0)
    });
    Some(())
}

/// `.sat` of an `.f32` result (already in the destination): clamped to [0, 1], NaN to +0.
#[inline(always)]
fn saturate(d: &D, on: u32, regs: &mut [u64]) {
    if d.ty != Ty::F32 || d.m & FLOAT_SAT == 0 || d.dst == RZ {
        return;
    }
    for l in (0..32).filter(|l| on >> l & 1 == 1) {
        let r = &mut regs[d.dst as usize * 32 + l];
        let x = f32v(*r);
        *r = fb32(if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) });
    }
}

/// An f32 (in a register's low bits) flushed to zero of its sign when subnormal (`.ftz`).
#[inline(always)]
fn ftz32(v: u64) -> u64 {
    if v & 0x7F80_0000 == 0 { v & 0x8000_0000 } else { v & 0xFFFF_FFFF }
}

/// The directed rounding (`.rz`, `.rm`, `.rp`: m bits 4:2) of a float operation, if any.
#[inline(always)]
fn directed_mode(d: &D) -> Option<Round> {
    Round::from_bits(d.m >> 2).filter(|r| matches!(r, Round::Rz | Round::Rm | Round::Rp))
}

/// Multiply-add: fused for floating point, low, high or wide for integers.
#[inline(always)]
fn mad(d: D, on: u32, regs: &mut [u64]) {
    let (ty, mode, msk) = (d.ty, d.m & 3, mask(d.ty));
    let (mut a, mut b, mut c) = (gather(&d, 0, regs), gather(&d, 1, regs), gather(&d, 2, regs));
    let ftz = ty == Ty::F32 && d.m & FLOAT_FTZ != 0;
    if ftz {
        (a, b, c) = (a.map(ftz32), b.map(ftz32), c.map(ftz32));
    }
    if ty.float() && (ftz || directed_mode(&d).is_some()) {
        let out = map3(&a, &b, &c, |x, y, z| {
            let r = match directed_mode(&d) {
                Some(r) => round::directed(Op::Mad, ty, r, x, y, z).unwrap_or(0),
                None => fb32(libm::fmaf(f32v(x), f32v(y), f32v(z))),
            };
            if ftz { ftz32(r) } else { r }
        });
        put(d.dst, on, &out, regs);
        return;
    }
    let out = match (ty, mode) {
        (Ty::F32, _) => map3(&a, &b, &c, |x, y, z| fb32(libm::fmaf(f32v(x), f32v(y), f32v(z)))),
        (Ty::F64, _) => map3(&a, &b, &c, |x, y, z| libm::fma(f64v(x), f64v(y), f64v(z)).to_bits()),
        (Ty::U32 | Ty::S32, 0) => map3(&a, &b, &c, |x, y, z| x.wrapping_mul(y).wrapping_add(z) & 0xFFFF_FFFF),
        // The address arithmetic of nearly every array access (`IMAD.WIDE`): the 64-bit
        // product of two 32-bit integers plus a 64-bit value, spelled out so it vectorizes.
        (Ty::S32, m) if m == MulMode::Wide as u16 => map3(&a, &b, &c, |x, y, z| mad_wide32(true, x, y, z)),
        (Ty::U32, m) if m == MulMode::Wide as u16 => map3(&a, &b, &c, |x, y, z| mad_wide32(false, x, y, z)),
        (_, m) if m == MulMode::Wide as u16 => {
            map3(&a, &b, &c, |x, y, z| binop(Op::Mul, ty, m, x, y).unwrap_or(0).wrapping_add(z))
        }
        (_, m) => map3(&a, &b, &c, |x, y, z| binop(Op::Mul, ty, m, x, y).unwrap_or(0).wrapping_add(z) & msk),
    };
    put(d.dst, on, &out, regs);
}

/// `mad.wide.s32`/`.u32`: the 64-bit product of the low 32 bits of `x` and `y` (sign- or
/// zero-extended) plus `z`.
#[inline(always)]
fn mad_wide32(signed: bool, x: u64, y: u64, z: u64) -> u64 {
    let p = if signed {
        (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64
    } else {
        (x as u32 as u64) * (y as u32 as u64)
    };
    p.wrapping_add(z)
}

/// selp (on a predicate) and slct (on the sign of an s32 or f32 operand).
#[inline(always)]
fn select(d: D, on: u32, regs: &mut [u64]) {
    let msk = mask(d.ty);
    if d.op == Op::Selp {
        lanes!(d, on, regs, |l| if operand(&d, 2, l, regs) & 1 == 1 {
            operand(&d, 0, l, regs)
        } else {
            operand(&d, 1, l, regs)
        } & msk);
        return;
    }
    let f32_sign = d.m == Ty::F32 as u16;
    lanes!(d, on, regs, |l| {
        let c = operand(&d, 2, l, regs);
        let ge = if f32_sign { f32v(c) >= 0.0 } else { sx(Ty::S32, c) >= 0 };
        (if ge { operand(&d, 0, l, regs) } else { operand(&d, 1, l, regs) }) & msk
    })
}

/// setp: a comparison into a predicate; None for an unknown comparison.
#[inline(always)]
fn compare(d: D, on: u32, regs: &mut [u64]) -> Option<()> {
    let (cmp, ty) = (Cmp::from_bits(d.m)?, d.ty);
    let (mut a, mut b) = (gather(&d, 0, regs), gather(&d, 1, regs));
    if ty == Ty::F32 && d.m & FLOAT_FTZ != 0 {
        (a, b) = (a.map(ftz32), b.map(ftz32));
    }
    let out = match (cmp, ty) {
        (Cmp::Lt, Ty::S32) => map2(&a, &b, |x, y| ((x as i32) < (y as i32)) as u64),
        (Cmp::Ge, Ty::S32) => map2(&a, &b, |x, y| ((x as i32) >= (y as i32)) as u64),
        (Cmp::Lt, Ty::U32) => map2(&a, &b, |x, y| ((x as u32) < (y as u32)) as u64),
        (Cmp::Ge, Ty::U32) => map2(&a, &b, |x, y| ((x as u32) >= (y as u32)) as u64),
        (Cmp::Eq, Ty::S32 | Ty::U32) => map2(&a, &b, |x, y| (x as u32 == y as u32) as u64),
        (Cmp::Ne, Ty::S32 | Ty::U32) => map2(&a, &b, |x, y| (x as u32 != y as u32) as u64),
        _ => map2(&a, &b, |x, y| setp(cmp, ty, x, y) as u64),
    };
    put(d.dst, on, &out, regs);
    Some(())
}

/// Bit fields and funnels: bfe, prmt, shf.
#[inline(always)]
fn bits(d: D, on: u32, regs: &mut [u64]) {
    let (ty, msk) = (d.ty, mask(d.ty));
    match d.op {
        Op::Bfe => lanes!(d, on, regs, |l| {
            let (a, pos, len) =
                (operand(&d, 0, l, regs), operand(&d, 1, l, regs) & 0xFF, operand(&d, 2, l, regs) & 0xFF);
            let bits = ty.bytes() as u64 * 8;
            let pos = pos.min(bits);
            let len = len.min(bits);
            let v = if len == 0 {
                0
            } else {
                // A start at or past the width extracts nothing (PTX bfe).
                (a & msk).checked_shr(pos as u32).unwrap_or(0) & if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }
            };
            let sign = ty.signed() && len > 0 && {
                let sb = (pos + len - 1).min(bits - 1);
                (a >> sb) & 1 == 1
            };
            if sign && len < 64 { (v | !((1u64 << len) - 1)) & msk } else { v }
        }),
        Op::Prmt => lanes!(d, on, regs, |l| {
            let (a, b, c) =
                (operand(&d, 0, l, regs) as u32, operand(&d, 1, l, regs) as u32, operand(&d, 2, l, regs) as u32);
            let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
            let mut out = 0u32;
            if d.m != 0 {
                // A mode: the source bytes of d's bytes 0..3 by c[1:0] (PTX's table).
                for (k, &i) in prmt_mode_bytes(d.m, c & 3).iter().enumerate() {
                    out |= (bytes[i as usize & 7] as u32) << (8 * k);
                }
            } else {
                for k in 0..4 {
                    let sel = (c >> (4 * k)) & 0xF;
                    let mut byte = bytes[(sel & 7) as usize];
                    if sel & 8 != 0 {
                        byte = if byte & 0x80 != 0 { 0xFF } else { 0 };
                    }
                    out |= (byte as u32) << (8 * k);
                }
            }
            out as u64
        }),
        Op::Shf => lanes!(d, on, regs, |l| {
            let (lo, hi, n) =
                (operand(&d, 0, l, regs) as u32, operand(&d, 1, l, regs) as u32, operand(&d, 2, l, regs) as u32);
            let n = if d.m & 2 != 0 { n.min(32) } else { n & 31 };
            let v = (hi as u64) << 32 | lo as u64;
            (if d.m & 1 == 1 { (v >> n) as u32 } else { ((v << n) >> 32) as u32 }) as u64
        }),
        _ => unreachable!("not a bit-field instruction"),
    }
}

/// The source bytes (of {b, a}) of d's bytes 0..3 for `prmt` mode `m` ([`PRMT_MODES`]'s index) and
/// selector `s` (c[1:0]).
fn prmt_mode_bytes(m: u16, s: u32) -> [u8; 4] {
    let s = s as u8;
    match m {
        1 => [s, s + 1, s + 2, s + 3],                                     // f4e
        2 => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],                   // b4e
        3 => [s; 4],                                                       // rc8
        4 => [s, s.max(1), s.max(2), 3],                                   // ecl
        5 => [0, s.min(1), s.min(2), s],                                   // ecr
        _ => [2 * (s & 1), 2 * (s & 1) + 1, 2 * (s & 1), 2 * (s & 1) + 1], // rc16
    }
}

/// Warp-wide operations: shfl (from the source lanes' values before any lane writes) and
/// vote. A shuffle reads its source lane's register whether or not that lane takes part,
/// as the hardware's crossbar does (PTX leaves the value unspecified; programs such as
/// cuda-samples' reduction rely on what GPUs give); a source outside the segment or the
/// clamp gives the lane its own value, as PTX specifies.
#[inline(always)]
fn warp_wide(d: D, on: u32, regs: &mut [u64]) {
    if d.op == Op::Shfl {
        let mode = d.m & 3;
        let src: [u64; 32] = core::array::from_fn(|l| operand(&d, 0, l, regs));
        lanes!(d, on, regs, |l| {
            let (b, c) = (operand(&d, 1, l, regs) as u32, operand(&d, 2, l, regs) as u32);
            let seg = (c >> 8) & 0x1F;
            let clamp = c & 0x1F;
            let (lane, min) = (l as u32, l as u32 & seg);
            let max = min | (clamp & !seg);
            let j = match mode {
                0 => Some(min | (b & !seg)).filter(|&j| j <= max),
                1 => lane.checked_sub(b).filter(|&j| j >= min),
                2 => Some(lane + b).filter(|&j| j <= max),
                _ => Some(lane ^ b).filter(|&j| j <= max),
            };
            match j {
                Some(j) if j < 32 => src[j as usize] & 0xFFFF_FFFF,
                _ => src[l] & 0xFFFF_FFFF,
            }
        });
        return;
    }
    let mut ballot = 0u32;
    for l in 0..32 {
        if on >> l & 1 == 1 && operand(&d, 0, l, regs) & 1 == 1 {
            ballot |= 1 << l;
        }
    }
    let vote = |members: u32| {
        let b = ballot & members;
        match d.m & 3 {
            0 => (b == members) as u64,
            1 => (b != 0) as u64,
            2 => (b == members || b == 0) as u64,
            _ => b as u64,
        }
    };
    if d.m & VOTE_MEMBER_MASK != 0 {
        // `vote.sync`: each lane votes with the active lanes of its member mask (tiles of
        // a warp vote side by side with masks of their own).
        let masks: [u64; 32] = core::array::from_fn(|l| operand(&d, 1, l, regs));
        lanes!(d, on, regs, |l| vote(on & masks[l] as u32))
    } else {
        let v = vote(on);
        lanes!(d, on, regs, |_l| v)
    }
}

/// `redux.sync` and `match.sync`: each lane over the active lanes of its member mask
/// (operand b); None for an operation or type they do not have.
fn reduce_match(d: D, on: u32, regs: &mut [u64]) -> Option<()> {
    let vals = gather(&d, 0, regs);
    let masks = gather(&d, 1, regs);
    let wide = matches!(d.ty, Ty::U64 | Ty::S64 | Ty::F64);
    let v = |l: usize| if wide { vals[l] } else { vals[l] & 0xFFFF_FFFF };
    let out: [u64; 32] = if d.op == Op::Redux {
        if d.m > redux_op::XOR || !matches!(d.ty, Ty::U32 | Ty::S32) {
            return None;
        }
        let signed = d.ty == Ty::S32;
        core::array::from_fn(|l| {
            let members = on & masks[l] as u32;
            let mut it = (0..32).filter(|j| members >> j & 1 == 1).map(v);
            let first = it.next().unwrap_or(0);
            let r = it.fold(first, |acc, x| match d.m {
                redux_op::ADD => acc.wrapping_add(x) & 0xFFFF_FFFF,
                redux_op::MIN if signed => (acc as i32).min(x as i32) as u32 as u64,
                redux_op::MAX if signed => (acc as i32).max(x as i32) as u32 as u64,
                redux_op::MIN => acc.min(x),
                redux_op::MAX => acc.max(x),
                redux_op::AND => acc & x,
                redux_op::OR => acc | x,
                _ => acc ^ x,
            });
            r & 0xFFFF_FFFF
        })
    } else {
        if d.m > 1 {
            return None;
        }
        core::array::from_fn(|l| {
            let members = on & masks[l] as u32;
            let same = (0..32).filter(|&j| members >> j & 1 == 1 && v(j) == v(l)).fold(0u32, |m, j| m | 1 << j);
            (if d.m == 0 || same == members { same } else { 0 }) as u64
        })
    };
    put(d.dst, on, &out, regs);
    Some(())
}

/// The 32 lane values of operand `k` (a register row, or the immediate everywhere).
#[inline(always)]
pub(crate) fn gather(d: &D, k: usize, regs: &[u64]) -> [u64; 32] {
    let reg = match k {
        0 => d.a,
        1 => d.b,
        _ => d.c,
    };
    if d.is_imm(k.min(2)) {
        [d.imm; 32]
    } else if reg == RZ {
        [0; 32]
    } else {
        let mut out = [0u64; 32];
        out.copy_from_slice(&regs[reg as usize * 32..reg as usize * 32 + 32]);
        out
    }
}

/// Write the active lanes of `out` to register `dst`.
#[inline(always)]
pub(crate) fn put(dst: u8, on: u32, out: &[u64; 32], regs: &mut [u64]) {
    if dst == RZ {
        return;
    }
    let row = &mut regs[dst as usize * 32..dst as usize * 32 + 32];
    if on == u32::MAX {
        row.copy_from_slice(out);
    } else {
        for (l, (r, v)) in row.iter_mut().zip(out).enumerate() {
            if on >> l & 1 == 1 {
                *r = *v;
            }
        }
    }
}

#[inline(always)]
pub(crate) fn map1(a: &[u64; 32], f: impl Fn(u64) -> u64) -> [u64; 32] {
    core::array::from_fn(|l| f(a[l]))
}

#[inline(always)]
pub(crate) fn map2(a: &[u64; 32], b: &[u64; 32], f: impl Fn(u64, u64) -> u64) -> [u64; 32] {
    core::array::from_fn(|l| f(a[l], b[l]))
}

#[inline(always)]
pub(crate) fn map3(a: &[u64; 32], b: &[u64; 32], c: &[u64; 32], f: impl Fn(u64, u64, u64) -> u64) -> [u64; 32] {
    core::array::from_fn(|l| f(a[l], b[l], c[l]))
}

#[cfg(test)]
mod wide_tests {
    use super::*;

    /// The spelled-out wide multiply-add gives what the generic multiply gives.
    #[test]
    fn the_wide_multiply_add_matches_the_generic_product() {
        let vals = [0u64, 1, 4, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x1_2345_6789, u64::MAX];
        for (ty, signed) in [(Ty::S32, true), (Ty::U32, false)] {
            for &x in &vals {
                for &y in &vals {
                    for z in [0u64, 0x1000, u64::MAX - 3] {
                        let want = binop(Op::Mul, ty, MulMode::Wide as u16, x, y).unwrap().wrapping_add(z);
                        assert_eq!(mad_wide32(signed, x, y, z), want, "{ty:?} {x:#x} * {y:#x} + {z:#x}");
                    }
                }
            }
        }
    }
}
