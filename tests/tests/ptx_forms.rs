//! PTX forms real compilers write (nvcc 12's shuffles and bit fields, half precision, carry
//! chains, indirect branches and calls, parameter addresses, tf32 and relu conversions),
//! each run and checked against a CPU reference.

use backend_user::{CuError, Device};
use tests::Rng;

/// What nvcc 11.8-12.x writes and rgdev compiles since issue 37 (hand-written in its style:
/// kernels/handwritten/nvcc12_forms.ptx): `shfl.sync` with a predicate output in each mode
/// and segment width, `bfi.b32`/`.b64` (with a field cut at the width) and `bfind`
/// (signed, unsigned, `.shiftamt`), checked against PTX's definitions.
#[test]
fn nvcc12_shuffles_with_predicates_and_bit_fields() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc12_forms.ptx")).unwrap();
    let f = m.function("nvcc12_forms").unwrap();
    let out = ctx.alloc::<u32>(12 * 32).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let v = |l: u32| l * 7;
    let bfi = |a: u64, b: u64, pos: u32, len: u32, width: u32| {
        if pos >= width || len == 0 {
            return b;
        }
        let len = len.min(width - pos);
        let mask = if len >= 64 { u64::MAX } else { ((1u64 << len) - 1) << pos };
        let r = (b & !mask) | ((a << pos) & mask);
        if width == 32 { r & 0xFFFF_FFFF } else { r }
    };
    let bfind = |x: u64, width: u32, signed: bool, shiftamt: bool| -> u32 {
        let x = if signed && (x >> (width - 1)) & 1 == 1 { !x } else { x };
        let x = if width == 32 { x & 0xFFFF_FFFF } else { x };
        if x == 0 {
            return u32::MAX;
        }
        let pos = 63 - x.leading_zeros();
        if shiftamt { width - 1 - pos } else { pos }
    };
    for l in 0..32u32 {
        let w = &o[12 * l as usize..][..12];
        let down = (l + 3 <= 31).then_some(l + 3);
        assert_eq!((w[0], w[1]), (v(down.unwrap_or(l)), down.is_some() as u32), "down {l}");
        let up = (l >= (l & !7) + 2).then(|| l - 2);
        assert_eq!((w[2], w[3]), (v(up.unwrap_or(l)), up.is_some() as u32), "up {l}");
        // segment mask 0x1c, clamp 3: a butterfly's source is valid up to (l & 0x1c) | 3
        // (PTX checks only the upper end for bfly and down, the lower for up)
        let x = l ^ 4;
        let ok = x <= ((l & 0x1C) | 3);
        assert_eq!((w[4], w[5]), (v(if ok { x } else { l }), ok as u32), "bfly {l}");
        let src = (l & 0x10) | 5;
        assert_eq!((w[6], w[7]), (v(src), 1), "idx {l}");
        assert_eq!(w[8] as u64, bfi(v(l) as u64, 0xF0F0_F0F0, l % 28, 5, 32), "bfi.b32 {l}");
        let b64 = w[10] as u64 | (w[11] as u64) << 32;
        assert_eq!(b64, bfi(v(l) as u64, 0x0123_4567_89AB_CDEF, 2 * l, 20, 64), "bfi.b64 {l}");
        let x = (v(l) as i32 - 40) as u32 as u64;
        let want = (bfind(x, 32, true, false) & 0xFF)
            | (bfind(x, 32, false, false) & 0xFF) << 8
            | (bfind(v(l) as u64, 32, false, true) & 0xFF) << 16;
        assert_eq!(w[9], want, "bfind {l}");
    }
}

/// A shared address is 32 bits wide: register plus offset wraps as the hardware wraps it
/// (kernels/handwritten/nvcc12_forms.ptx, `shared_wrap`), where it trapped out of range.
#[test]
fn shared_addresses_wrap_at_32_bits() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc12_forms.ptx")).unwrap();
    let out = ctx.alloc::<u32>(1).unwrap();
    m.function("shared_wrap").unwrap().launch([1, 1, 1], [1, 1, 1], 0, &[out.arg()]).unwrap();
    assert_eq!(out.to_vec().unwrap(), [77]);
}

/// `bar.red.popc/and/or` (what nvcc writes for `__syncthreads_count/and/or`) in a block with
/// a partial last warp, several in a row and between plain barriers, in both modes.
#[test]
fn barrier_reductions_count_the_block() {
    for functional in [false, true] {
        let mut config = backend_user::preset::load("gv100").unwrap();
        if functional {
            config.mode = fake_pci::config::Mode::Functional;
        }
        let dev = Device::open_with(backend_user::DeviceOptions { config, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc12_forms.ptx")).unwrap();
        let out = ctx.alloc::<u32>(5 * 100 * 2).unwrap();
        m.function("bar_red").unwrap().launch([2, 1, 1], [100, 1, 1], 0, &[out.arg()]).unwrap();
        let o = out.to_vec().unwrap();
        for t in 0..100 {
            assert_eq!(&o[5 * t..5 * t + 5], [34, 1, 0, 1, 50], "thread {t} (functional: {functional})");
        }
    }
}

/// Half precision in the PTX nvcc and cuda_fp16.h write (kernels/handwritten/half_forms.ptx):
/// scoped `.f16` registers unpacked from a pair, `setp` of pairs into `p|q`, `cvt` of two
/// floats into a pair, `min.xorsign.abs`, `.ftz`, `ex2.approx`, `fma.relu.bf16`,
/// `mul.sat`, `.f32 add.sat`, integer conversions, `neg`/`abs` of pairs, NaN forms and
/// `atom.add.noftz.f16x2` from 32 lanes, each against the value PTX defines.
#[test]
fn half_precision_ptx_forms() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/half_forms.ptx")).unwrap();
    let f = m.function("half_forms").unwrap();
    let mut out = ctx.alloc::<u32>(23).unwrap();
    out.copy_from(&[0; 23]).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let want: [u32; 23] = [
        2f32.to_bits(),
        1f32.to_bits(),
        1f32.to_bits(),
        3f32.to_bits(),
        0b10,        // low 2 < 1 false, high 1 < 3 true
        0b01,        // low 2 > 1 and true, high 1 > 3 false
        0x3E00_C000, // (1.5, -2.0): the first operand in the high half
        0x3F80_4040, // bf16 (1.0, 3.0)
        0xBC00,      // min(|-2|, |1|) with the signs' exclusive or
        0x0002_0000, // 2^-24 + 2^-24: flushed (low) and exact (high)
        0x4000,      // 2^1
        0x4020_0000, // relu(-1.5) = 0 (low), 2.5 (high)
        0x3C00,      // 3 * 2 saturated
        1f32.to_bits(),
        (-2i32) as u32,
        0x6802_7C00, // 2^40 overflows to infinity (low); 2051 rounds to even 2052 (high)
        0xBF80_4000, // neg of (-2.0, 1.0) in bf16
        0x0001_0000, // |-2^-24|: flushed (low), exact (high)
        0x3C00_4000, // 1 + 1 in .f16 registers
        0x3C00_7FFF, // max.NaN gives the canonical NaN, min the number
        0b01,        // NaN < 1: unordered true, ordered false
        u32::MAX,    // set.le.u32.f16: all ones
        0x5000_5000, // 32 lanes add (1.0, 1.0)
    ];
    for (k, (&got, &w)) in o.iter().zip(want.iter()).enumerate() {
        assert_eq!(got, w, "word {k}: {got:#x} != {w:#x}");
    }
}

/// `cvta.const` (libNVVM writes it for printf's format strings): a `.const` variable's
/// generic address reads the constant segment's bytes through generic loads, and
/// `cvta.to.const` gives the offset back for `ld.const`.
#[test]
fn cvta_const_reaches_the_constant_segment() {
    let src = r#"
.version 7.0
.target sm_70
.address_size 64
.const .align 4 .b8 pad[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
.const .align 1 .b8 $str[6] = {104, 101, 108, 108, 111, 0};
.visible .entry k(.param .u64 out)
{
    .reg .b16 %rs<4>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd2, %r1;
    cvta.const.u64 %rd3, $str;
    add.s64 %rd4, %rd3, %rd2;
    ld.u8 %rs1, [%rd4];
    cvta.to.const.u64 %rd5, %rd4;
    ld.const.u8 %rs2, [%rd5];
    mov.u64 %rd6, pad;
    cvta.const.u64 %rd7, %rd6;
    ld.u32 %r2, [%rd7+4];
    cvt.u32.u16 %r3, %rs1;
    shl.b64 %rd2, %rd2, 3;
    add.s64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r3;
    cvt.u32.u16 %r3, %rs2;
    add.s32 %r3, %r3, %r2;
    st.global.u32 [%rd1+4], %r3;
    ret;
}
"#;
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(src).unwrap();
    let f = m.function("k").unwrap();
    let out = ctx.alloc::<u32>(12).unwrap();
    f.launch([1, 1, 1], [6, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let pad_word = u32::from_le_bytes([5, 6, 7, 8]);
    for (t, &c) in b"hello\0".iter().enumerate() {
        assert_eq!(o[2 * t], c as u32, "generic load of byte {t}");
        assert_eq!(o[2 * t + 1], (c as u32).wrapping_add(pad_word), "ld.const of byte {t}");
    }
}

/// Multi-word and warp-level integer instructions (kernels/handwritten/int_forms.ptx):
/// carry chains of 32 and 64 bits (128-bit sums and differences, 96-bit ones in words,
/// products plus wide addends through `mad.lo.cc`/`madc.hi`), `prmt`'s six modes,
/// `dp4a`/`dp2a` with each signedness, `redux.sync` of every operation over the warp and
/// over lane-dependent masks, `match.any`/`match.all.sync` with predicates, `nanosleep`,
/// each against its definition computed here.
#[test]
fn carry_chains_and_warp_integer_forms() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/int_forms.ptx")).unwrap();
    let f = m.function("int_forms").unwrap();
    let mut rng = Rng(0x37_2026);
    let mut input = vec![0u64; 4 * 32];
    for (t, w) in input.chunks_mut(4).enumerate() {
        for v in w.iter_mut() {
            *v = rng.next_u64();
        }
        // Repeats for match.any.b64; edge values for the carries.
        w[1] = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(t as u64 % 5 + 1);
        if t % 8 == 0 {
            w[0] = u64::MAX;
            w[2] = 1;
        }
    }
    let mut inp = ctx.alloc::<u64>(input.len()).unwrap();
    inp.copy_from(&input).unwrap();
    let out = ctx.alloc::<u64>(32 * 32).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[inp.arg(), out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let lo = |v: u64| v as u32;
    let hi = |v: u64| (v >> 32) as u32;
    let prmt = |a: u32, b: u32, idx: [u32; 4]| {
        let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
        idx.iter().enumerate().fold(0u32, |r, (k, &i)| r | (bytes[i as usize & 7] as u32) << (8 * k))
    };
    let byte = |v: u32, k: u32, signed: bool| {
        let b = (v >> (8 * k)) as u8;
        if signed { b as i8 as i32 } else { b as i32 }
    };
    let half = |v: u32, k: u32, signed: bool| {
        let h = (v >> (16 * k)) as u16;
        if signed { h as i16 as i32 } else { h as i32 }
    };
    let a32: Vec<u32> = (0..32).map(|t| lo(input[4 * t])).collect();
    for t in 0..32usize {
        let (x0, x1, y0, y1) = (input[4 * t], input[4 * t + 1], input[4 * t + 2], input[4 * t + 3]);
        let w = &o[32 * t..][..32];
        let x = (x1 as u128) << 64 | x0 as u128;
        let y = (y1 as u128) << 64 | y0 as u128;
        assert_eq!((w[0], w[1]), ((x.wrapping_add(y)) as u64, (x.wrapping_add(y) >> 64) as u64), "add128 {t}");
        assert_eq!((w[2], w[3]), ((x.wrapping_sub(y)) as u64, (x.wrapping_sub(y) >> 64) as u64), "sub128 {t}");
        let m96 = (1u128 << 96) - 1;
        let (a96, b96) = (x & m96, y & m96);
        let s = a96.wrapping_add(b96) & m96;
        assert_eq!((w[4], w[5]), (s as u64, (s >> 64) as u64), "add96 {t}");
        let d = a96.wrapping_sub(b96) & m96;
        assert_eq!((w[6], w[7]), (d as u64, (d >> 64) as u64), "sub96 {t}");
        assert_eq!(w[8], (lo(x0) as u64 * lo(y0) as u64).wrapping_add(x1), "mad32 {t}");
        let p = (x0 as u128 * y0 as u128).wrapping_add((y1 as u128) << 64 | x1 as u128);
        assert_eq!((w[9], w[10]), (p as u64, (p >> 64) as u64), "mad64 {t}");
        let s = t as u32 & 3;
        let modes: [[u32; 4]; 6] = [
            [s, s + 1, s + 2, s + 3],
            [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
            [s; 4],
            [s, s.max(1), s.max(2), 3],
            [0, s.min(1), s.min(2), s],
            [2 * (s & 1), 2 * (s & 1) + 1, 2 * (s & 1), 2 * (s & 1) + 1],
        ];
        for (k, idx) in modes.iter().enumerate() {
            assert_eq!(w[11 + k] as u32, prmt(lo(x0), hi(x0), *idx), "prmt mode {} lane {t}", k + 1);
        }
        let (a, b, c) = (lo(x1), lo(y1), hi(x1));
        let dp4 = |sa, sb| (0..4).fold(c as i32, |acc: i32, k| acc.wrapping_add(byte(a, k, sa) * byte(b, k, sb)));
        assert_eq!(w[17] as u32, dp4(false, false) as u32, "dp4a.u32.u32 {t}");
        assert_eq!(w[18] as u32, dp4(true, true) as u32, "dp4a.s32.s32 {t}");
        let dp2 = |sa, sb, first| {
            (0..2).fold(c as i32, |acc: i32, k| acc.wrapping_add(half(a, k, sa) * byte(b, first + k, sb)))
        };
        assert_eq!(w[19] as u32, dp2(true, false, 0) as u32, "dp2a.lo.s32.u32 {t}");
        assert_eq!(w[20] as u32, dp2(false, true, 2) as u32, "dp2a.hi.u32.s32 {t}");
        let all = a32.iter();
        assert_eq!(w[21] as u32, all.clone().fold(0u32, |s, &v| s.wrapping_add(v)), "redux add");
        assert_eq!(w[22] as u32, all.clone().map(|&v| v as i32).min().unwrap() as u32, "redux min.s32");
        assert_eq!(w[23] as u32, *all.clone().max().unwrap(), "redux max.u32");
        assert_eq!(w[24] as u32, all.clone().fold(u32::MAX, |s, &v| s & v), "redux and");
        assert_eq!(w[25] as u32, all.clone().fold(0, |s, &v| s | v), "redux or");
        assert_eq!(w[26] as u32, all.clone().fold(0, |s, &v| s ^ v), "redux xor");
        let parity: u32 =
            a32.iter().enumerate().filter(|(j, _)| j % 2 == t % 2).fold(0, |s, (_, &v)| s.wrapping_add(v));
        assert_eq!(w[27] as u32, parity, "redux over lanes of parity {t}");
        let any = (0..32).filter(|j| j % 3 == t % 3).fold(0u32, |m, j| m | 1 << j);
        assert_eq!(w[28] as u32, any, "match.any {t}");
        let group = 0xFFu64 << (8 * (t / 8));
        assert_eq!(w[29], group | 1 << 32, "match.all of equal values {t}");
        assert_eq!(w[30], 0, "match.all of unequal values {t}");
        let any64 = (0..32).filter(|j| j % 5 == t % 5).fold(0u32, |m, j| m | 1 << j);
        assert_eq!(w[31] as u32, any64, "match.any.b64 {t}");
    }
}

/// Indirect branches and calls (kernels/handwritten/indirect.ptx, written as nvcc writes
/// them): a switch through `brx.idx`, calls through a table of function addresses
/// initialized at module scope (as a vtable is), through a `.calltargets` list, guarded
/// (and a guarded direct call),
/// and from a function that itself calls through a pointer; each lane's result against
/// the C++ it stands for. A pointer that is no function's address is CUDA_ERROR_INVALID_PC.
#[test]
fn indirect_branches_and_calls_through_function_pointers() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/indirect.ptx")).unwrap();
    let out = ctx.alloc::<u32>(64 * 4).unwrap();
    m.function("indirect").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let ops = [|t: u32| 2 * t, |t: u32| t * t, |t: u32| 2 * t + 7];
    for t in 0..64u32 {
        let w = &o[4 * t as usize..][..4];
        let switch = [100, 201, t + 300, 403, 5 * t][t as usize % 5];
        assert_eq!(w[0], switch, "brx.idx, lane {t}");
        assert_eq!(w[1], ops[t as usize % 3](t), "call through the table, lane {t}");
        assert_eq!(w[2], if t % 2 == 0 { t * t } else { 2 * t + 7 }, ".calltargets, lane {t}");
        let guarded = if t < 16 {
            ops[t as usize % 3](t)
        } else if t >= 48 {
            t * t
        } else {
            1000
        };
        assert_eq!(w[3], guarded, "guarded calls, lane {t}");
    }
    let mut wild = ctx.alloc::<u64>(1).unwrap();
    wild.copy_from(&[0x1234]).unwrap();
    m.function("wild").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[wild.arg()]).unwrap();
    assert_eq!(ctx.synchronize(), Err(CuError::InvalidPc));
}

/// A device function reading its by-value struct parameter through the parameter's address
/// (clang-14's form) and `bar.warp.sync` with a mask in a register as a warp barrier, not a
/// block barrier: half-warp tree sums in shared memory while the block's other warp waits
/// at `bar.sync`; registers declared in a `{ }` scope are the scope's own, even named as a
/// module variable or a register outside (kernels/handwritten/param_address.ptx).
#[test]
fn parameter_addresses_warp_barriers_and_scoped_registers() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/param_address.ptx")).unwrap();
    let out = ctx.alloc::<u32>(64 * 4).unwrap();
    m.function("param_address").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    for t in 0..64u32 {
        let w = &o[4 * t as usize..][..4];
        assert_eq!(w[0], 3 * t + 107, "struct parameter by address, thread {t}");
        let half = if t % 32 < 16 { 120 } else { 376 };
        assert_eq!(w[1], half, "half-warp sum, thread {t}");
        assert_eq!(w[2], 77 + t, "module variable named as a scoped register, thread {t}");
        assert_eq!(w[3], 1099, "a scope's own registers, thread {t}");
    }
}

/// Conversions with `.relu` and `.satfinite`, to TensorFloat-32 with each rounding,
/// `tanh.approx` of f32 and half types, `set` of half pairs (kernels/handwritten/cvt_forms.ptx), on
/// values that reach each rule: negatives, zeros of both signs, values past half's and
/// bfloat16's range, infinities, NaN, subnormals and tf32 ties.
#[test]
fn relu_satfinite_tf32_tanh_and_half_pair_set() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/cvt_forms.ptx")).unwrap();
    let mut input: Vec<f32> = vec![
        0.3,
        -0.3,
        0.0,
        -0.0,
        1.5,
        -2.75,
        70000.0,
        -70000.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.0e38,
        -3.0e38,
        f32::MAX,
        1.0e-40,
        -1.0e-40,
        f32::from_bits(0x3F80_1000), // a tf32 tie: even below, away above
        f32::from_bits(0x3F80_3000), // a tf32 tie: even and away above
        f32::from_bits(0xBF80_1000),
        f32::from_bits(0x3F80_0FFF),
        f32::from_bits(0x7F7F_F000), // rounds past tf32's largest value
        0.5,
        65504.0,
        65520.0, // rounds to half's infinity
    ];
    let mut rng = Rng(0x37_cafe);
    while input.len() < 64 {
        input.push(f32::from_bits(rng.next_u64() as u32 & 0xC7FF_FFFF));
    }
    let mut inp = ctx.alloc::<f32>(64).unwrap();
    inp.copy_from(&input).unwrap();
    let out = ctx.alloc::<u32>(64 * 16).unwrap();
    m.function("cvt_forms").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[inp.arg(), out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    // bfloat16 to nearest even, from the bits (NaN: the canonical 0x7FFF).
    let bf16 = |x: f32| {
        let b = x.to_bits();
        if x.is_nan() { 0x7FFF } else { (b + 0x7FFF + (b >> 16 & 1)) >> 16 }
    };
    let relu = |h: u32, exp: u32| {
        if h & 0x7FFF > exp {
            0x7FFF
        } else if h & 0x8000 != 0 {
            0
        } else {
            h
        }
    };
    let satfinite = |h: u32, exp: u32| if h & 0x7FFF == exp { (h & 0x8000) | (exp - 1) } else { h };
    // tf32 by arithmetic: |x| in units of its last tf32 place, rounded.
    let tf32 = |x: f32, mode: &str, sat: bool, relu: bool| -> u32 {
        if x.is_nan() {
            return 0x7FFF_FFFF;
        }
        let mut r = if x.is_infinite() {
            x
        } else {
            let a = (x as f64).abs();
            let e = if a == 0.0 { -126 } else { a.log2().floor() as i32 }.max(-126);
            let ulp = 2f64.powi(e - 10);
            let q = a / ulp;
            let q = match mode {
                "rz" => q.trunc(),
                "rn" if q.fract() == 0.5 => q.trunc() + (q.trunc() % 2.0),
                _ => (q + 0.5).floor(),
            };
            let v = (q * ulp) as f32;
            if x.is_sign_negative() { -v } else { v }
        };
        if sat && r.is_infinite() {
            r = f32::from_bits(r.to_bits() & 0x8000_0000 | 0x7F7F_E000);
        }
        if relu && r.is_sign_negative() {
            r = 0.0;
        }
        r.to_bits()
    };
    let h16 = |h: u32| {
        // A binary16 value as f32 (finite values and infinities only).
        let (s, e, f) = (h >> 15, (h >> 10) & 31, h & 1023);
        let v = if e == 0 {
            f as f32 * 2f32.powi(-24)
        } else if e == 31 {
            f32::INFINITY
        } else {
            (1024 + f) as f32 * 2f32.powi(e as i32 - 25)
        };
        if s == 1 { -v } else { v }
    };
    // tanh.approx of half types, within a unit in the last place of each format.
    let halves = ctx.alloc::<u32>(64 * 2).unwrap();
    m.function("tanh_halves").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[inp.arg(), halves.arg()]).unwrap();
    let th = halves.to_vec().unwrap();
    for (t, &x) in input.iter().enumerate() {
        let (h, b) = (o[16 * t], bf16(x));
        let close = |got: f64, want: f64, ulp: f64| got == want || (got - want).abs() <= want.abs().max(1e-30) * ulp;
        let bfv = |v: u32| f32::from_bits(v << 16) as f64;
        if h & 0x7FFF <= 0x7C00 {
            let want = (h16(h) as f64).tanh();
            assert!(close(h16(th[2 * t]) as f64, want, 2f64.powi(-10)), "tanh.approx.f16 of {x:e}: {:#x}", th[2 * t]);
        }
        if !x.is_nan() {
            let (lo, hi) = (th[2 * t + 1] & 0xFFFF, th[2 * t + 1] >> 16);
            assert!(close(bfv(hi), bfv(b).tanh(), 2f64.powi(-7)), "tanh.approx.bf16x2 high of {x:e}");
            assert!(close(bfv(lo), (-bfv(b)).tanh(), 2f64.powi(-7)), "tanh.approx.bf16x2 low of {x:e}");
        }
    }
    for (t, &x) in input.iter().enumerate() {
        let w = &o[16 * t..][..16];
        let plain = w[0];
        assert_eq!(w[1], relu(plain, 0x7C00), "cvt.rn.relu.f16.f32 of {x:e}");
        assert_eq!(w[2], if x.is_nan() { 0x7FFF } else { satfinite(plain, 0x7C00) }, "satfinite.f16 of {x:e}");
        assert_eq!(w[3], relu(satfinite(plain, 0x7C00), 0x7C00), "relu.satfinite.f16 of {x:e}");
        assert_eq!(w[4], bf16(x), "cvt.rn.bf16.f32 of {x:e}");
        assert_eq!(w[5], relu(bf16(x), 0x7F80), "relu.bf16 of {x:e}");
        assert_eq!(w[6], if x.is_nan() { 0x7FFF } else { satfinite(bf16(x), 0x7F80) }, "satfinite.bf16 of {x:e}");
        // The pair: high half from x, low half from -x, each through relu.
        assert_eq!(w[7] >> 16, relu(plain, 0x7C00), "relu.f16x2 high of {x:e}");
        assert_eq!(w[7] & 0xFFFF, relu(plain ^ if x.is_nan() { 0 } else { 0x8000 }, 0x7C00), "relu.f16x2 low of {x:e}");
        assert_eq!(w[8], tf32(x, "rna", false, false), "cvt.rna.tf32.f32 of {x:e} ({:#x})", x.to_bits());
        assert_eq!(w[9], tf32(x, "rna", true, false), "cvt.rna.satfinite.tf32.f32 of {x:e}");
        assert_eq!(w[10], tf32(x, "rn", false, false), "cvt.rn.tf32.f32 of {x:e} ({:#x})", x.to_bits());
        assert_eq!(w[11], tf32(x, "rz", false, true), "cvt.rz.relu.tf32.f32 of {x:e}");
        let th = f32::from_bits(w[12]) as f64;
        let want = (x as f64).tanh();
        assert!(
            th == want || (th - want).abs() <= want.abs() * 2f64.powi(-10) || (x.is_nan() && th.is_nan()),
            "tanh({x:e}) = {th:e}"
        );
        // set of (x, 1.0) against (0.5, 0.5), in x's f16 value.
        let hx = h16(plain);
        let lt = if plain & 0x7FFF > 0x7C00 { false } else { hx < 0.5 };
        let ge = if plain & 0x7FFF > 0x7C00 { false } else { hx >= 0.5 };
        assert_eq!(w[13], if lt { 0xFFFF_0000 } else { 0 }, "set.lt.u32.f16x2 of {x:e}");
        assert_eq!(w[14], if ge { 0x3C00_3C00 } else { 0x3C00 }, "set.ge.f16x2.f16x2 of {x:e}");
        let bx = f32::from_bits(bf16(x) << 16);
        let odd = t % 2 == 1;
        let gt = !x.is_nan() && bx > 0.5 && odd;
        assert_eq!(w[15], (u32::from(gt) * 0x3F80_0000) | (u32::from(odd) * 0x3F80), "set.gt.and.bf16x2 of {x:e}");
    }
}
