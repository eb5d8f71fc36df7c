//! The ALU: per-lane integer, floating-point, bit, comparison, conversion and atomic
//! operations on 64-bit register slots, and the gather/put helpers that move a warp's
//! operands.

use super::*;

impl Exec<'_, '_> {
    /// Execute data instruction `d` (at `pc`) in lanes `on` of the warp whose first thread
    /// is `tid_base`: register-to-register operations, special registers, warp-level
    /// operations, and memory instructions through the load/store unit.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn execute(
        &mut self,
        d: D,
        pc: u32,
        on: u32,
        active: u32,
        tid_base: u32,
        warpid: u32,
        nwarps: u32,
        ctaid: [u32; 3],
        regs: &mut [u64],
        shared: &mut [u8],
        local: &mut [u8],
    ) -> Result<(), GridError> {
        let r = self.r;
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        let slot = |k: usize, reg: u8, lane: usize, regs: &[u64]| -> u64 {
            if d.is_imm(k) {
                d.imm
            } else if reg == RZ {
                0
            } else {
                regs[reg as usize * 32 + lane]
            }
        };
        let ty = d.ty;
        let msk = mask(ty);
        macro_rules! lanes {
            (|$l:ident| $body:expr) => {
                for $l in 0..32usize {
                    if on >> $l & 1 == 1 {
                        let v: u64 = $body;
                        if d.dst != RZ {
                            regs[d.dst as usize * 32 + $l] = v;
                        }
                    }
                }
            };
        }
        match d.op {
            Op::Nop | Op::Membar => {}
            Op::Mov => {
                let a = gather(&d, 0, regs);
                put(d.dst, on, &map1(&a, |x| x & msk), regs);
            }
            Op::S2r => {
                let s = Sreg::from_index(d.imm).ok_or(trap(TrapReason::IllegalInstruction))?;
                let out = self.special(s, tid_base, warpid, nwarps, ctaid, active);
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
                let mode = d.m & 3;
                if binop(d.op, ty, mode, 0, 1).is_none() {
                    return Err(trap(TrapReason::IllegalInstruction));
                }
                let (a, b) = (gather(&d, 0, regs), gather(&d, 1, regs));
                let out = match (d.op, ty, mode) {
                    (Op::Add, Ty::U32 | Ty::S32, _) => map2(&a, &b, |x, y| x.wrapping_add(y) & 0xFFFF_FFFF),
                    (Op::Add, Ty::U64 | Ty::S64, _) => map2(&a, &b, u64::wrapping_add),
                    (Op::Add, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) + f32v(y))),
                    (Op::Sub, Ty::U32 | Ty::S32, _) => map2(&a, &b, |x, y| x.wrapping_sub(y) & 0xFFFF_FFFF),
                    (Op::Sub, Ty::F32, _) => map2(&a, &b, |x, y| fb32(f32v(x) - f32v(y))),
                    (Op::Mul, Ty::U32 | Ty::S32, 0) => map2(&a, &b, |x, y| x.wrapping_mul(y) & 0xFFFF_FFFF),
                    (Op::Mul, Ty::U32, 2) => map2(&a, &b, |x, y| (x & 0xFFFF_FFFF) * (y & 0xFFFF_FFFF)),
                    (Op::Mul, Ty::S32, 2) => {
                        map2(&a, &b, |x, y| (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64)
                    }
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
            }
            Op::Mad => {
                let mode = d.m & 3;
                let (a, b, c) = (gather(&d, 0, regs), gather(&d, 1, regs), gather(&d, 2, regs));
                let out = match (ty, mode) {
                    (Ty::F32, _) => map3(&a, &b, &c, |x, y, z| fb32(libm::fmaf(f32v(x), f32v(y), f32v(z)))),
                    (Ty::F64, _) => map3(&a, &b, &c, |x, y, z| libm::fma(f64v(x), f64v(y), f64v(z)).to_bits()),
                    (Ty::U32 | Ty::S32, 0) => {
                        map3(&a, &b, &c, |x, y, z| x.wrapping_mul(y).wrapping_add(z) & 0xFFFF_FFFF)
                    }
                    (_, m) if m == MulMode::Wide as u16 => {
                        map3(&a, &b, &c, |x, y, z| binop(Op::Mul, ty, m, x, y).unwrap_or(0).wrapping_add(z))
                    }
                    (_, m) => {
                        map3(&a, &b, &c, |x, y, z| binop(Op::Mul, ty, m, x, y).unwrap_or(0).wrapping_add(z) & msk)
                    }
                };
                put(d.dst, on, &out, regs);
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
            | Op::Lg2 => {
                lanes!(|l| unop(d.op, ty, slot(0, d.a, l, regs)))
            }
            Op::Selp => {
                lanes!(|l| if slot(2, d.c, l, regs) & 1 == 1 { slot(0, d.a, l, regs) } else { slot(1, d.b, l, regs) }
                    & msk)
            }
            Op::Slct => {
                let cty = match d.m {
                    x if x == Ty::F32 as u16 => Ty::F32,
                    _ => Ty::S32,
                };
                lanes!(|l| {
                    let c = slot(2, d.c, l, regs);
                    let ge = if cty == Ty::F32 { f32v(c) >= 0.0 } else { sx(Ty::S32, c) >= 0 };
                    (if ge { slot(0, d.a, l, regs) } else { slot(1, d.b, l, regs) }) & msk
                })
            }
            Op::Setp => {
                let cmp = Cmp::from_bits(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
                let (a, b) = (gather(&d, 0, regs), gather(&d, 1, regs));
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
            }
            Op::Cvt => {
                let CvtMods { round, sat, src, integral } =
                    CvtMods::decode(d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
                lanes!(|l| cvt(ty, src, round, sat, integral, slot(0, d.a, l, regs)))
            }
            Op::Bfe => lanes!(|l| {
                let (a, pos, len) = (slot(0, d.a, l, regs), slot(1, d.b, l, regs) & 0xFF, slot(2, d.c, l, regs) & 0xFF);
                let bits = ty.bytes() as u64 * 8;
                let pos = pos.min(bits);
                let len = len.min(bits);
                let v = if len == 0 {
                    0
                } else {
                    // A start at or past the width extracts nothing (PTX bfe).
                    (a & msk).checked_shr(pos as u32).unwrap_or(0)
                        & if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }
                };
                let sign = ty.signed() && len > 0 && {
                    let sb = (pos + len - 1).min(bits - 1);
                    (a >> sb) & 1 == 1
                };
                if sign && len < 64 { (v | !((1u64 << len) - 1)) & msk } else { v }
            }),
            Op::Prmt => lanes!(|l| {
                let (a, b, c) =
                    (slot(0, d.a, l, regs) as u32, slot(1, d.b, l, regs) as u32, slot(2, d.c, l, regs) as u32);
                let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
                let mut out = 0u32;
                for k in 0..4 {
                    let sel = (c >> (4 * k)) & 0xF;
                    let mut byte = bytes[(sel & 7) as usize];
                    if sel & 8 != 0 {
                        byte = if byte & 0x80 != 0 { 0xFF } else { 0 };
                    }
                    out |= (byte as u32) << (8 * k);
                }
                out as u64
            }),
            Op::Shf => lanes!(|l| {
                let (lo, hi, n) =
                    (slot(0, d.a, l, regs) as u32, slot(1, d.b, l, regs) as u32, slot(2, d.c, l, regs) as u32);
                let n = if d.m & 2 != 0 { n.min(32) } else { n & 31 };
                let v = (hi as u64) << 32 | lo as u64;
                (if d.m & 1 == 1 { (v >> n) as u32 } else { ((v << n) >> 32) as u32 }) as u64
            }),
            Op::Cvta => {
                let CvtaMods { space, to } = CvtaMods::decode(d.m);
                let window = match space {
                    x if x == Space::Shared as u16 => r.shared_window,
                    x if x == Space::Local as u16 => r.local_window,
                    _ => 0,
                };
                lanes!(|l| {
                    let a = slot(0, d.a, l, regs);
                    if to { a.wrapping_sub(window) } else { a.wrapping_add(window) }
                })
            }
            Op::Ld | Op::St | Op::Atom => self.memory(d, pc, on, regs, shared, local, tid_base, ctaid)?,
            Op::Shfl => {
                let mode = d.m & 3;
                let src: Vec<u64> = (0..32).map(|l| slot(0, d.a, l, regs)).collect();
                lanes!(|l| {
                    let (b, c) = (slot(1, d.b, l, regs) as u32, slot(2, d.c, l, regs) as u32);
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
                        Some(j) if j < 32 && active >> j & 1 == 1 => src[j as usize] & 0xFFFF_FFFF,
                        _ => src[l] & 0xFFFF_FFFF,
                    }
                })
            }
            Op::Vote => {
                let mut ballot = 0u32;
                for l in 0..32 {
                    if on >> l & 1 == 1 && slot(0, d.a, l, regs) & 1 == 1 {
                        ballot |= 1 << l;
                    }
                }
                let v = match d.m & 3 {
                    0 => (ballot == on) as u64,
                    1 => (ballot != 0) as u64,
                    2 => (ballot == on || ballot == 0) as u64,
                    _ => ballot as u64,
                };
                lanes!(|_l| v)
            }
            Op::Trap => {}
            Op::Bra | Op::Exit | Op::Bar | Op::Call | Op::Ret => unreachable!("handled above"),
        }
        if self.bcheck.as_ref().is_some_and(|b| !b.prov.is_empty()) {
            self.track_pointers(&d, on, warpid, regs);
        }
        Ok(())
    }

    /// The value of special register `s` in each lane of the warp whose first thread is
    /// `tid_base` (`active`: the lanes not exited or diverged away).
    #[inline(always)]
    fn special(&self, s: Sreg, tid_base: u32, warpid: u32, nwarps: u32, ctaid: [u32; 3], active: u32) -> [u64; 32] {
        let r = self.r;
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
        }
    }
}

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
    }
}
