/*
 * cuda_fp16.h for rgdev: CUDA's half precision (__half, __half2) for host and device code,
 * with CUDA 12.9's names: conversions with every rounding, arithmetic (_rn, _sat, _relu),
 * comparisons (scalar, pair, _mask, __hb*2), min/max (_nan), math functions, shuffles,
 * cache-hinted loads and stores, atomicAdd and the C++ operators.
 *
 * On the device each operation is the PTX instruction of type .f16 or .f16x2 (add, sub,
 * mul, fma, min, max, neg, abs, set, cvt, atom.add.noftz), which rgdev's JIT compiles and
 * the device executes with IEEE rounding. On the host the same results come from exact
 * double arithmetic rounded once to binary16 (__rgdev_round16), so host and device agree
 * bit for bit (NaN results are the canonical NaN 0x7fff on both). The math functions
 * (hsqrt, hexp, ...) are the single-precision function rounded to half.
 *
 * The types and the operations common to __half and __nv_bfloat16 are written once, in
 * crt/rgdev_half_type.h and crt/rgdev_half_ops.h, and instantiated by this header and
 * cuda_bf16.h. Written for rgdev from CUDA's documented half-precision API and PTX's
 * half-precision instructions; not NVIDIA's header.
 */
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#define __CUDA_FP16_TYPES_EXIST__

#include "host_defines.h"
#include "vector_types.h"
#include "vector_functions.h"

#define __RGDEV_HF__ static __inline__ __host__ __device__

typedef struct __align__(2) __half_raw {
    unsigned short x;
} __half_raw;
typedef struct __align__(4) __half2_raw {
    unsigned short x;
    unsigned short y;
} __half2_raw;

/* -------- The 16-bit float formats: 0 is binary16, 1 is bfloat16. -------- */

/* The exact value of the bits h of format f. */
__RGDEV_HF__ double __rgdev_16to64(unsigned short h, int f) {
    int frac = f ? 7 : 10, bias = f ? 127 : 15;
    unsigned long long sign = (unsigned long long)(h & 0x8000u) << 48, m = h & ((1u << frac) - 1u), u;
    int e = (h & 0x7fff) >> frac;
    if (e == 2 * bias + 1) {
        u = sign | 0x7ff0000000000000ull | (m << (52 - frac)) | (m ? 1ull << 51 : 0ull);
    } else if (e == 0 && m == 0) {
        u = sign;
    } else {
        if (e == 0) {
            e = 1;
            while (!(m >> frac)) {
                m <<= 1;
                e--;
            }
        }
        u = sign | (unsigned long long)(e - bias + 1023) << 52 | ((m & ((1u << frac) - 1u)) << (52 - frac));
    }
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
}

/* v plus a rest of sign `rest` (smaller than half a unit in v's last place), rounded once
   to format f: mode 0 to nearest even, 1 toward zero, 2 down, 3 up. NaN gives 0x7fff. */
__RGDEV_HF__ unsigned short __rgdev_round16(double v, int rest, int f, int mode) {
    unsigned long long u;
    __builtin_memcpy(&u, &v, 8);
    int frac = f ? 7 : 10, bias = f ? 127 : 15;
    unsigned short sign = (unsigned short)((u >> 48) & 0x8000u);
    unsigned short inf = (unsigned short)(0x7fffu & ~((1u << frac) - 1u));
    int neg = sign != 0, fe = (int)(u >> 52) & 0x7ff;
    unsigned long long ff = u & ((1ull << 52) - 1);
    if (fe == 0x7ff) return ff ? (unsigned short)0x7fff : (unsigned short)(sign | inf);
    if (fe == 0 && ff == 0) return sign;
    /* The magnitude as m * 2^e2, with two more bits so that the rest is a quarter unit. */
    unsigned long long m = (fe ? ff | 1ull << 52 : ff) << 2;
    int e2 = (fe ? fe - 1075 : -1074) - 2, mrest = neg ? -rest : rest;
    if (mrest > 0) m += 1;
    if (mrest < 0) m -= 1;
    int top = 63 - __builtin_clzll(m) + e2, emin = 1 - bias;
    int q = (top > emin ? top : emin) - frac, shift = q - e2;
    unsigned long long n = 0;
    int inexact = 1, cmp = -1; /* the dropped bits against half a unit */
    if (shift < 60) {
        unsigned long long r = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
        n = m >> shift;
        inexact = r != 0;
        cmp = r > half ? 1 : r == half ? 0 : -1;
    }
    int up;
    switch (mode) {
    case 1: up = 0; break;
    case 2: up = neg && inexact; break;
    case 3: up = !neg && inexact; break;
    default: up = cmp > 0 || (cmp == 0 && (n & 1)); break;
    }
    n += (unsigned long long)up;
    if (n >> (frac + 1)) {
        n >>= 1;
        q++;
    }
    int biased = (n >> frac) ? q + frac + bias : 0;
    if (biased > 2 * bias) {
        int to_max = mode == 1 || (mode == 2 && !neg) || (mode == 3 && neg);
        return (unsigned short)(sign | (to_max ? inf - 1 : inf));
    }
    return (unsigned short)(sign | biased << frac | (n & ((1u << frac) - 1u)));
}

/* a + b: the nearest double, and in *rest the sign of the exact error (two-sum). */
__RGDEV_HF__ double __rgdev_two_sum(double a, double b, int *rest) {
    double s = a + b;
    *rest = 0;
    if (s - s == 0.0) {
        double bb = s - a, e = (a - (s - bb)) + (b - bb);
        *rest = (e > 0.0) - (e < 0.0);
    }
    return s;
}

/* A 64-bit integer's nearest double, and in *rest the sign of what it dropped. */
__RGDEV_HF__ double __rgdev_ll2d(long long x, int *rest) {
    double v = (double)x;
    *rest = v >= 9223372036854775808.0 ? -1 : (x > (long long)v) - (x < (long long)v);
    return v;
}
__RGDEV_HF__ double __rgdev_ull2d(unsigned long long x, int *rest) {
    double v = (double)x;
    *rest = v >= 18446744073709551616.0 ? -1 : (x > (unsigned long long)v) - (x < (unsigned long long)v);
    return v;
}

/* A double rounded to an integral value (mode as __rgdev_round16), then to an integer of
   [lo, hi]; NaN gives 0. */
__RGDEV_HF__ double __rgdev_integral(double v, int mode) {
    double t = __builtin_trunc(v);
    switch (mode) {
    case 1: return t;
    case 2: return __builtin_floor(v);
    case 3: return __builtin_ceil(v);
    default: {
        double d = v - t, a = d < 0 ? -d : d;
        if (a > 0.5 || (a == 0.5 && __builtin_fmod(t, 2.0) != 0.0)) t += v < 0 ? -1.0 : 1.0;
        return t;
    }
    }
}
__RGDEV_HF__ double __rgdev_to_range(double v, int mode, double lo, double hi) {
    if (v != v) return 0.0;
    v = __rgdev_integral(v, mode);
    return v < lo ? lo : v > hi ? hi : v;
}

/* float <-> format f (mode as above). On the device: PTX cvt. */
#if defined(__CUDA_ARCH__)
static __inline__ __device__ unsigned short __rgdev_f2b(float v, int f, int mode) {
    unsigned short r;
    if (f == 0) {
        switch (mode) {
        case 1: __asm__("cvt.rz.f16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        case 2: __asm__("cvt.rm.f16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        case 3: __asm__("cvt.rp.f16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        default: __asm__("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        }
    } else {
        switch (mode) {
        case 1: __asm__("cvt.rz.bf16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        case 2: __asm__("cvt.rm.bf16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        case 3: __asm__("cvt.rp.bf16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        default: __asm__("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(v)); break;
        }
    }
    return r;
}
static __inline__ __device__ float __rgdev_b2f(unsigned short h, int f) {
    float r;
    if (f == 0)
        __asm__("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    else
        __asm__("cvt.f32.bf16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}
#else
static __inline__ __host__ __device__ unsigned short __rgdev_f2b(float v, int f, int mode) {
    return __rgdev_round16((double)v, 0, f, mode);
}
static __inline__ __host__ __device__ float __rgdev_b2f(unsigned short h, int f) { return (float)__rgdev_16to64(h, f); }
/* The host's arithmetic of format f on bits, rounded once to nearest even: op 0 add, 1 sub,
   2 mul, 3 div (double's quotient: 53 bits are more than twice 11 + 2, so rounding it again
   is exact), 4 fma. */
static __inline__ __host__ __device__ unsigned short __rgdev_arith16(int op, unsigned short a, unsigned short b,
                                                          unsigned short c, int f) {
    double x = __rgdev_16to64(a, f), y = __rgdev_16to64(b, f), z = __rgdev_16to64(c, f), r;
    int rest = 0;
    switch (op) {
    case 0: r = __rgdev_two_sum(x, y, &rest); break;
    case 1: r = __rgdev_two_sum(x, -y, &rest); break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    default: r = __rgdev_two_sum(x * y, z, &rest); break;
    }
    return __rgdev_round16(r, rest, f, 0);
}
static __inline__ __host__ __device__ int __rgdev_isnan16(unsigned short h, int f) {
    return (h & 0x7fffu) > (f ? 0x7f80u : 0x7c00u);
}
/* min (max = 0) or max (1) as PTX's min/max: a NaN gives the other operand (with nan set,
   or both NaN: the canonical NaN); -0 is below +0. */
static __inline__ __host__ __device__ unsigned short __rgdev_minmax16(int max, int nan, unsigned short a, unsigned short b,
                                                           int f) {
    int an = __rgdev_isnan16(a, f), bn = __rgdev_isnan16(b, f);
    if ((an && bn) || (nan && (an || bn))) return 0x7fff;
    if (an) return b;
    if (bn) return a;
    int ka = (a & 0x8000u) ? -(int)(a & 0x7fffu) - 1 : (int)a, kb = (b & 0x8000u) ? -(int)(b & 0x7fffu) - 1 : (int)b;
    return (max ? ka >= kb : ka <= kb) ? a : b;
}
#endif

#if defined(__cplusplus)

/* The types and the operations __half shares with __nv_bfloat16. */
#define __RGDEV_T __half
#define __RGDEV_T2 __half2
#define __RGDEV_RAW __half_raw
#define __RGDEV_RAW2 __half2_raw
#define __RGDEV_F 0
#define __RGDEV_P "f16"
#define __RGDEV_P2 "f16x2"
#define __RGDEV_EXTRA_CTORS explicit __host__ __device__ __half(const __nv_bfloat16 f); /* cuda_bf16.h */
struct __nv_bfloat16;
#define __RGDEV_MOVE_FROM const
#include "crt/rgdev_half_type.h"
#undef __RGDEV_MOVE_FROM
#include "crt/rgdev_half_ops.h"

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;


/* Conversions with binary16's names. */
__RGDEV_HF__ __half __float2half(const float f) { return __half_raw{__rgdev_f2b(f, 0, 0)}; }
__RGDEV_HF__ __half __float2half_rn(const float f) { return __half_raw{__rgdev_f2b(f, 0, 0)}; }
__RGDEV_HF__ __half __float2half_rz(const float f) { return __half_raw{__rgdev_f2b(f, 0, 1)}; }
__RGDEV_HF__ __half __float2half_rd(const float f) { return __half_raw{__rgdev_f2b(f, 0, 2)}; }
__RGDEV_HF__ __half __float2half_ru(const float f) { return __half_raw{__rgdev_f2b(f, 0, 3)}; }
__RGDEV_HF__ float __half2float(const __half h) { return __rgdev_b2f(h.__x, 0); }
__RGDEV_HF__ __half __double2half(const double d) { return __rgdev_from_f64((__half *)0, d, 0); }
__RGDEV_HF__ __half2 __float2half2_rn(const float f) { return __half2(__float2half(f), __float2half(f)); }
__RGDEV_HF__ __half2 __floats2half2_rn(const float a, const float b) {
    return __half2(__float2half(a), __float2half(b));
}
__RGDEV_HF__ __half2 __float22half2_rn(const float2 f) { return __floats2half2_rn(f.x, f.y); }
__RGDEV_HF__ float2 __half22float2(const __half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
__RGDEV_HF__ short __half_as_short(const __half h) { return (short)h.__x; }
__RGDEV_HF__ unsigned short __half_as_ushort(const __half h) { return h.__x; }
__RGDEV_HF__ __half __short_as_half(const short s) { return __half_raw{(unsigned short)s}; }
__RGDEV_HF__ __half __ushort_as_half(const unsigned short s) { return __half_raw{s}; }
__RGDEV_HF__ __half2 __halves2half2(const __half a, const __half b) { return __half2(a, b); }
__RGDEV_HF__ __half2 __half2half2(const __half a) { return __half2(a, a); }
__RGDEV_HF__ __half __low2half(const __half2 h) { return h.x; }
__RGDEV_HF__ __half __high2half(const __half2 h) { return h.y; }
__RGDEV_HF__ __half2 __low2half2(const __half2 h) { return __half2(h.x, h.x); }
__RGDEV_HF__ __half2 __high2half2(const __half2 h) { return __half2(h.y, h.y); }
__RGDEV_HF__ __half2 __lows2half2(const __half2 a, const __half2 b) { return __half2(a.x, b.x); }
__RGDEV_HF__ __half2 __highs2half2(const __half2 a, const __half2 b) { return __half2(a.y, b.y); }
__RGDEV_HF__ __half2 make_half2(const __half x, const __half y) { return __half2(x, y); }
#define __RGDEV_INT_CVT(I, name)                                                                       \
    __RGDEV_HF__ I __half2##name##_rn(const __half h) { return __rgdev_to_int((I *)0, h, 0); }        \
    __RGDEV_HF__ I __half2##name##_rz(const __half h) { return __rgdev_to_int((I *)0, h, 1); }        \
    __RGDEV_HF__ I __half2##name##_rd(const __half h) { return __rgdev_to_int((I *)0, h, 2); }        \
    __RGDEV_HF__ I __half2##name##_ru(const __half h) { return __rgdev_to_int((I *)0, h, 3); }        \
    __RGDEV_HF__ __half __##name##2half_rn(const I i) { return __rgdev_from_int((__half *)0, i, 0); } \
    __RGDEV_HF__ __half __##name##2half_rz(const I i) { return __rgdev_from_int((__half *)0, i, 1); } \
    __RGDEV_HF__ __half __##name##2half_rd(const I i) { return __rgdev_from_int((__half *)0, i, 2); } \
    __RGDEV_HF__ __half __##name##2half_ru(const I i) { return __rgdev_from_int((__half *)0, i, 3); }
__RGDEV_INT_CVT(int, int)
__RGDEV_INT_CVT(unsigned int, uint)
__RGDEV_INT_CVT(short, short)
__RGDEV_INT_CVT(unsigned short, ushort)
__RGDEV_INT_CVT(long long, ll)
__RGDEV_INT_CVT(unsigned long long, ull)
#undef __RGDEV_INT_CVT
__RGDEV_HF__ signed char __half2char_rz(const __half h) { return __rgdev_to_int((signed char *)0, h, 1); }
__RGDEV_HF__ unsigned char __half2uchar_rz(const __half h) { return __rgdev_to_int((unsigned char *)0, h, 1); }

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

#endif /* __cplusplus */

#endif /* __CUDA_FP16_H__ */
