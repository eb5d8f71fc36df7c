/*
 * math_functions.h for rgdev: the CUDA device math library, rgdev's own (no libdevice).
 * Functions that are one IEEE-rounded PTX instruction (sqrt, fma, floor, ...) are that
 * instruction; docs/runtime-api.md lists each function's error bound.
 * Written for rgdev; not NVIDIA's header.
 */
#ifndef __MATH_FUNCTIONS_H__
#define __MATH_FUNCTIONS_H__

#if defined(__CUDA__)

#include <math.h>
#include <stdlib.h>

#include "host_defines.h"

#define __RGDEV_DEV__ static __device__ __forceinline__

/* Exact: one correctly rounded operation each. */
__RGDEV_DEV__ float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
__RGDEV_DEV__ double sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
__RGDEV_DEV__ float fabsf(float x) { return __builtin_fabsf(x); }
__RGDEV_DEV__ double fabs(double x) { return __builtin_fabs(x); }
__RGDEV_DEV__ float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__RGDEV_DEV__ double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
__RGDEV_DEV__ float floorf(float x) { return __nvvm_floor_f(x); }
__RGDEV_DEV__ double floor(double x) { return __nvvm_floor_d(x); }
__RGDEV_DEV__ float ceilf(float x) { return __nvvm_ceil_f(x); }
__RGDEV_DEV__ double ceil(double x) { return __nvvm_ceil_d(x); }
__RGDEV_DEV__ float truncf(float x) { return __nvvm_trunc_f(x); }
__RGDEV_DEV__ double trunc(double x) { return __nvvm_trunc_d(x); }
__RGDEV_DEV__ float rintf(float x) { return __builtin_rintf(x); }
__RGDEV_DEV__ double rint(double x) { return __builtin_rint(x); }
__RGDEV_DEV__ float nearbyintf(float x) { return __builtin_rintf(x); }
__RGDEV_DEV__ double nearbyint(double x) { return __builtin_rint(x); }
__RGDEV_DEV__ float copysignf(float a, float b) {
    return __builtin_bit_cast(float, (__builtin_bit_cast(unsigned int, a) & 0x7fffffffu) |
                                         (__builtin_bit_cast(unsigned int, b) & 0x80000000u));
}
__RGDEV_DEV__ double copysign(double a, double b) {
    return __builtin_bit_cast(double, (__builtin_bit_cast(unsigned long long, a) & 0x7fffffffffffffffull) |
                                          (__builtin_bit_cast(unsigned long long, b) & 0x8000000000000000ull));
}
/* Halfway cases away from zero: x - trunc(x) is exact. */
__RGDEV_DEV__ float roundf(float x) {
    float t = truncf(x);
    return fabsf(x - t) >= 0.5f ? t + copysignf(1.0f, x) : t;
}
__RGDEV_DEV__ double round(double x) {
    double t = trunc(x);
    return fabs(x - t) >= 0.5 ? t + copysign(1.0, x) : t;
}
__RGDEV_DEV__ long lroundf(float x) { return (long)roundf(x); }
__RGDEV_DEV__ long lround(double x) { return (long)round(x); }
__RGDEV_DEV__ long long llroundf(float x) { return (long long)roundf(x); }
__RGDEV_DEV__ long long llround(double x) { return (long long)round(x); }
__RGDEV_DEV__ long lrintf(float x) { return (long)rintf(x); }
__RGDEV_DEV__ long lrint(double x) { return (long)rint(x); }
__RGDEV_DEV__ float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
__RGDEV_DEV__ double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
__RGDEV_DEV__ float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
__RGDEV_DEV__ double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
__RGDEV_DEV__ float fdimf(float a, float b) { return a > b ? a - b : (a != a || b != b) ? a + b : 0.0f; }
__RGDEV_DEV__ double fdim(double a, double b) { return a > b ? a - b : (a != a || b != b) ? a + b : 0.0; }
__RGDEV_DEV__ int abs(int a) { return a < 0 ? -a : a; }
__RGDEV_DEV__ long labs(long a) { return a < 0 ? -a : a; }
__RGDEV_DEV__ long long llabs(long long a) { return a < 0 ? -a : a; }
__RGDEV_DEV__ int isnan(float x) { return x != x; }
__RGDEV_DEV__ int isnan(double x) { return x != x; }
__RGDEV_DEV__ int isinf(float x) { return __builtin_fabsf(x) == __builtin_inff(); }
__RGDEV_DEV__ int isinf(double x) { return __builtin_fabs(x) == __builtin_inf(); }
__RGDEV_DEV__ int isfinite(float x) { return __builtin_fabsf(x) < __builtin_inff(); }
__RGDEV_DEV__ int isfinite(double x) { return __builtin_fabs(x) < __builtin_inf(); }
__RGDEV_DEV__ int signbit(float x) { return (int)(__builtin_bit_cast(unsigned int, x) >> 31); }
__RGDEV_DEV__ int signbit(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 63); }
__RGDEV_DEV__ int __isnanf(float x) { return x != x; }
__RGDEV_DEV__ int __isinff(float x) { return isinf(x); }
__RGDEV_DEV__ int __finitef(float x) { return isfinite(x); }
/* CUDA's rsqrtf is the hardware's reciprocal square root (2 ulp); rgdev's rsqrt.approx.f32
   computes it as 1/sqrt rounded twice, within that bound. */
__RGDEV_DEV__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
__RGDEV_DEV__ double rsqrt(double x) { return 1.0 / __nvvm_sqrt_rn_d(x); }

/*
 * The transcendental functions. Double precision is computed with double-double
 * arithmetic where a plain double would lose the last bit: argument reductions by
 * Cody-Waite constants (and Payne-Hanek with 1536 bits of 2/pi for huge angles), Taylor
 * series on the reduced ranges, and FMA-exact products. Single precision evaluates the
 * double function and rounds once. Constants are the mathematical values, split into
 * doubles (computed for rgdev with mpmath).
 */
#define __RGDEV_MATH__ static __device__ inline

typedef struct {
    double hi, lo;
} __rg_dd;

/* copysign by bit operations (PTX's copysign is one instruction rgdev's compiler does not
   take yet). */
__RGDEV_DEV__ double __rg_copysign(double a, double b) {
    return __builtin_bit_cast(double, (__builtin_bit_cast(unsigned long long, a) & 0x7fffffffffffffffull) |
                                          (__builtin_bit_cast(unsigned long long, b) & 0x8000000000000000ull));
}
__RGDEV_DEV__ float __rg_copysignf(float a, float b) {
    return __builtin_bit_cast(float, (__builtin_bit_cast(unsigned int, a) & 0x7fffffffu) |
                                         (__builtin_bit_cast(unsigned int, b) & 0x80000000u));
}

/* Error-free transformations. Their operations are PTX's `add.rn`/`mul.rn` written out:
   CUDA compilers contract a * b + c into an FMA by default (clang even across
   statements, and its __nvvm_*_rn builtins are plain operations), which would round a
   product in one place and not in another; no compiler contracts an explicit `.rn`. */
__RGDEV_DEV__ double __rg_add(double a, double b) {
    double s;
    asm("add.rn.f64 %0, %1, %2;" : "=d"(s) : "d"(a), "d"(b));
    return s;
}
__RGDEV_DEV__ double __rg_sub(double a, double b) {
    double s;
    asm("sub.rn.f64 %0, %1, %2;" : "=d"(s) : "d"(a), "d"(b));
    return s;
}
__RGDEV_DEV__ double __rg_mul(double a, double b) {
    double p;
    asm("mul.rn.f64 %0, %1, %2;" : "=d"(p) : "d"(a), "d"(b));
    return p;
}
__RGDEV_DEV__ __rg_dd __rg_two_sum(double a, double b) {
    double s = __rg_add(a, b), bb = __rg_sub(s, a);
    return __rg_dd{s, __rg_add(__rg_sub(a, __rg_sub(s, bb)), __rg_sub(b, bb))};
}
__RGDEV_DEV__ __rg_dd __rg_fast_two_sum(double a, double b) { /* |a| >= |b| */
    double s = __rg_add(a, b);
    return __rg_dd{s, __rg_sub(b, __rg_sub(s, a))};
}
__RGDEV_DEV__ __rg_dd __rg_two_prod(double a, double b) {
    double p = __rg_mul(a, b);
    return __rg_dd{p, __nvvm_fma_rn_d(a, b, -p)};
}
__RGDEV_DEV__ unsigned long long __rg_bits(double x) { return __builtin_bit_cast(unsigned long long, x); }
__RGDEV_DEV__ double __rg_double(unsigned long long b) { return __builtin_bit_cast(double, b); }
/* 2^k for -1022 <= k <= 1023. */
__RGDEV_DEV__ double __rg_pow2(int k) { return __rg_double((unsigned long long)(k + 1023) << 52); }
/* y * 2^k with one rounding, for y in [0.5, 4) and -1080 < k < 1100. */
__RGDEV_DEV__ double __rg_scale(double y, int k) {
    if (k > 1023) return y * __rg_pow2(1023) * __rg_pow2(k - 1023);
    if (k < -1021) return y * __rg_pow2(k + 54) * 0x1p-54;
    return y * __rg_pow2(k);
}

/* ln 2 in three parts (32, 32 and 53 bits: k * hi and k * mid are exact for |k| < 2^20). */
#define __RG_LN2_HI 0x1.62e42ff000000p-1
#define __RG_LN2_MID (-0x1.718432a200000p-35)
#define __RG_LN2_LO 0x1.3c7673007e5edp-69
#define __RG_INVLN2 0x1.71547652b82fep+0

/* e^r - 1 - r for |r| <= 0.36: Taylor to r^14 / 14! (truncation below 2^-60 relative). */
__RGDEV_DEV__ double __rg_expm1_poly(double r) {
    double p = 1.0 / 87178291200.0;
    p = __nvvm_fma_rn_d(p, r, 1.0 / 6227020800.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 479001600.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 39916800.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 3628800.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 362880.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 40320.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 5040.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 720.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 120.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 24.0);
    p = __nvvm_fma_rn_d(p, r, 1.0 / 6.0);
    p = __nvvm_fma_rn_d(p, r, 0.5);
    return r * r * p;
}
/* e^r - 1 for |r| <= 0.36. */
__RGDEV_DEV__ double __rg_expm1_kernel(double r) { return r + __rg_expm1_poly(r); }

/* e^(h + l) for |l| <= 2^-50 |h|; overflow and underflow handled. */
__RGDEV_MATH__ double __rg_exp_dd(double h, double l) {
    if (h != h) return h;
    if (h > 709.8) return __builtin_inf();
    if (h < -745.2) return 0.0;
    double k = __builtin_rint(h * __RG_INVLN2);
    /* h - k ln2_hi is exact (Sterbenz); the rest is carried as a double-double. */
    double r1 = __nvvm_fma_rn_d(-k, __RG_LN2_HI, h);
    __rg_dd r = __rg_two_sum(r1, -k * __RG_LN2_MID);
    double rl = r.lo + (l - k * __RG_LN2_LO);
    double p = __rg_expm1_kernel(r.hi);
    /* e^(rh + rl) = (1 + p)(1 + rl + ...) */
    double y = 1.0 + (p + (rl + rl * p));
    return __rg_scale(y, (int)k);
}

__RGDEV_MATH__ double exp(double x) { return __rg_exp_dd(x, 0.0); }
__RGDEV_MATH__ double exp2(double x) {
    if (x != x) return x;
    if (x >= 1024.0) return __builtin_inf();
    if (x <= -1075.0) return 0.0;
    double k = __builtin_rint(x), r = x - k; /* exact */
    __rg_dd t = __rg_two_prod(r, 0x1.62e42fefa39efp-1);
    t.lo = __nvvm_fma_rn_d(r, 0x1.abc9e3b39803fp-56, t.lo);
    double y = __rg_exp_dd(t.hi, t.lo); /* in [0.70, 1.42] */
    return __rg_scale(y, (int)k);
}
__RGDEV_MATH__ double exp10(double x) {
    if (x != x) return x;
    if (x > 309.0) return __builtin_inf();
    if (x < -330.0) return 0.0;
    __rg_dd t = __rg_two_prod(x, 0x1.26bb1bbb55516p+1);
    t.lo = __nvvm_fma_rn_d(x, -0x1.f48ad494ea3e9p-53, t.lo);
    return __rg_exp_dd(t.hi, t.lo);
}
/* e^x - 1 as a double-double, for -38 <= x <= 709.8 (about 2^-70 relative). */
__RGDEV_MATH__ __rg_dd __rg_expm1_dd(double x) {
    double k = __builtin_rint(x * __RG_INVLN2);
    double r1 = __nvvm_fma_rn_d(-k, __RG_LN2_HI, x);
    __rg_dd r = __rg_two_sum(r1, -k * __RG_LN2_MID);
    double rl = r.lo - k * __RG_LN2_LO;
    /* e^rh - 1 = rh + q; e^(rh + rl) - 1 = that + rl e^rh */
    __rg_dd em = __rg_two_sum(r.hi, __rg_expm1_poly(r.hi));
    em.lo += rl * (1.0 + em.hi);
    int ki = (int)k;
    if (ki == 0) return __rg_fast_two_sum(em.hi, em.lo);
    /* 2^k (1 + em) - 1 = (2^k - 1) + 2^k em, 2^k - 1 exact for k <= 53 */
    double t = ki > 1023 ? __rg_pow2(1023) : __rg_pow2(ki);
    if (ki > 1023) {
        em.hi *= 2.0;
        em.lo *= 2.0;
    }
    double tm1 = ki > 53 ? t : t - 1.0;
    __rg_dd sum = __rg_two_sum(tm1, t * em.hi);
    sum.lo += t * em.lo - (ki > 53 ? 1.0 : 0.0);
    return __rg_fast_two_sum(sum.hi, sum.lo);
}
__RGDEV_MATH__ double expm1(double x) {
    if (x != x) return x;
    if (x > 709.8) return __builtin_inf();
    if (x < -38.0) return -1.0;
    if (__builtin_fabs(x) < 0x1p-54) return x;
    __rg_dd e = __rg_expm1_dd(x);
    return e.hi + e.lo;
}

/* log(x) for finite x > 0 as a double-double, to about 2^-67 relative: x = 2^k m with m
   in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172. */
__RGDEV_MATH__ __rg_dd __rg_log_dd(double x) {
    int k = 0;
    if (x < 0x1p-1022) {
        x *= 0x1p54;
        k = -54;
    }
    unsigned long long b = __rg_bits(x);
    k += (int)(b >> 52) - 1023;
    double m = __rg_double((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        k += 1;
    }
    double f = m - 1.0; /* exact */
    /* s = f / (2 + f) as a double-double. */
    __rg_dd d = __rg_two_sum(2.0, f);
    double sh = f / d.hi;
    double sl = (__nvvm_fma_rn_d(-sh, d.hi, f) - sh * d.lo) / d.hi;
    /* z = s^2; 2s + (2/3) s^3 in double-double, the rest of the series in double. */
    __rg_dd z = __rg_two_prod(sh, sh);
    z.lo += 2.0 * sh * sl;
    double zh = z.hi + z.lo;
    __rg_dd s3 = __rg_two_prod(sh, z.hi);
    s3.lo += sh * z.lo + sl * z.hi;
    __rg_dd t2 = __rg_two_prod(s3.hi, 0x1.5555555555555p-1);
    t2.lo += s3.hi * 0x1.5555555555555p-55 + s3.lo * 0x1.5555555555555p-1;
    double q = 2.0 / 27.0;
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 25.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 23.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 21.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 19.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 17.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 15.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 13.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 11.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 9.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 7.0);
    q = __nvvm_fma_rn_d(q, zh, 2.0 / 5.0);
    double rest = s3.hi * zh * q; /* 2 s^5 / 5 + ... */
    __rg_dd lm = __rg_fast_two_sum(2.0 * sh, t2.hi);
    lm.lo += 2.0 * sl + t2.lo + rest;
    /* + k ln 2 */
    double kd = (double)k;
    __rg_dd a = __rg_two_sum(kd * __RG_LN2_HI, lm.hi);
    __rg_dd c = __rg_two_sum(a.hi, kd * __RG_LN2_MID);
    double lo = a.lo + c.lo + lm.lo + kd * __RG_LN2_LO;
    return __rg_fast_two_sum(c.hi, lo);
}

/* The cases log, log2, log10 and log1p share: NaN, negative, zero, infinity. */
__RGDEV_DEV__ int __rg_log_special(double x, double *out) {
    if (x != x) {
        *out = x;
        return 1;
    }
    if (x < 0.0) {
        *out = __builtin_nan("");
        return 1;
    }
    if (x == 0.0) {
        *out = -__builtin_inf();
        return 1;
    }
    if (x == __builtin_inf()) {
        *out = x;
        return 1;
    }
    return 0;
}
__RGDEV_MATH__ double log(double x) {
    double r;
    if (__rg_log_special(x, &r)) return r;
    __rg_dd l = __rg_log_dd(x);
    return l.hi + l.lo;
}
__RGDEV_MATH__ double log2(double x) {
    double r;
    if (__rg_log_special(x, &r)) return r;
    __rg_dd l = __rg_log_dd(x);
    __rg_dd p = __rg_two_prod(l.hi, __RG_INVLN2);
    p.lo += l.hi * 0x1.777d0ffda0d24p-56 + l.lo * __RG_INVLN2;
    return p.hi + p.lo;
}
__RGDEV_MATH__ double log10(double x) {
    double r;
    if (__rg_log_special(x, &r)) return r;
    __rg_dd l = __rg_log_dd(x);
    __rg_dd p = __rg_two_prod(l.hi, 0x1.bcb7b1526e50ep-2);
    p.lo += l.hi * 0x1.95355baaafad3p-57 + l.lo * 0x1.bcb7b1526e50ep-2;
    return p.hi + p.lo;
}
__RGDEV_MATH__ double log1p(double x) {
    if (x == -1.0) return -__builtin_inf();
    if (x < -1.0) return __builtin_nan("");
    if (x != x || x == __builtin_inf()) return x;
    if (__builtin_fabs(x) < 0x1p-54) return x;
    /* log(u) for u = 1 + x rounded, plus the rounding's relative part (x - (u - 1)) / u. */
    __rg_dd u = __rg_two_sum(1.0, x);
    __rg_dd l = __rg_log_dd(u.hi);
    return l.hi + (l.lo + u.lo / u.hi);
}

__RGDEV_MATH__ double pow(double x, double y) {
    double ay = __builtin_fabs(y);
    if (y == 0.0 || x == 1.0) return 1.0;
    if (x != x || y != y) return x + y;
    /* Is y an integer, and an odd one? */
    int yint = ay >= 0x1p53 || __builtin_trunc(y) == y;
    int yodd = yint && ay < 0x1p53 && __builtin_trunc(y * 0.5) != y * 0.5;
    double ax = __builtin_fabs(x);
    if (ay == __builtin_inf()) {
        if (ax == 1.0) return 1.0;
        return (ax > 1.0) == (y > 0.0) ? __builtin_inf() : 0.0;
    }
    if (ax == 0.0 || ax == __builtin_inf()) {
        double r = (ax == 0.0) == (y < 0.0) ? __builtin_inf() : 0.0;
        return x < 0.0 && yodd ? -r : r;
    }
    if (x < 0.0 && !yint) return __builtin_nan("");
    __rg_dd l = __rg_log_dd(ax);
    __rg_dd t = __rg_two_prod(y, l.hi);
    t.lo = __nvvm_fma_rn_d(y, l.lo, t.lo);
    __rg_dd e = __rg_fast_two_sum(t.hi, t.lo);
    double r = __rg_exp_dd(e.hi, e.lo);
    return x < 0.0 && yodd ? -r : r;
}

/* x mod pi/2 as n and a double-double r, |r| <= pi/4 (a little more). */
static __device__ const unsigned int __rg_two_over_pi[48] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
    0xa9e39161, 0x5ee61b08, 0x6599855f, 0x14a06840, 0x8dffd880, 0x4d732731, 0x06061556, 0xca73a8c9};

__RGDEV_MATH__ int __rg_rem_pio2(double x, __rg_dd *r) {
    double ax = __builtin_fabs(x);
    if (ax <= 0.7853981633974483) {
        *r = __rg_dd{x, 0.0};
        return 0;
    }
    if (ax < 0x1p19) {
        /* Cody-Waite: pi/2 in three parts of 33, 33 and 53 bits. */
        double n = __builtin_rint(x * 0x1.45f306dc9c883p-1);
        double r1 = __nvvm_fma_rn_d(-n, 0x1.921fb54400000p+0, x); /* exact */
        __rg_dd t = __rg_two_sum(r1, -n * 0x1.0b4611a600000p-34); /* the product is exact */
        *r = __rg_fast_two_sum(t.hi, t.lo - n * 0x1.3198a2e037073p-69);
        return (int)n;
    }
    /* Payne-Hanek: x = M 2^e; the bits of 2/pi below weight 4 / (M 2^e) do not matter
       mod 4, those far above the result's precision are dropped. */
    unsigned long long b = __rg_bits(ax);
    int e = (int)((b >> 52) & 0x7ff) - 1075;
    unsigned long long m = (b & 0x000fffffffffffffull) | 0x0010000000000000ull;
    int j0 = e >= 34 ? (e - 34) / 32 : 0; /* first word whose bits matter */
    /* acc = m * (8 words of 2/pi from j0), 32-bit limbs, most significant first. */
    unsigned long long acc[11];
    for (int i = 0; i < 11; i++) acc[i] = 0;
    unsigned long long mlo = m & 0xffffffffull, mhi = m >> 32;
    for (int i = 0; i < 8; i++) {
        unsigned long long w = __rg_two_over_pi[j0 + i];
        unsigned long long lo = mlo * w, hi = mhi * w; /* m w = hi 2^32 + lo */
        acc[i + 3] += lo & 0xffffffffull;
        acc[i + 2] += (lo >> 32) + (hi & 0xffffffffull);
        acc[i + 1] += hi >> 32;
    }
    for (int i = 10; i > 0; i--) {
        acc[i - 1] += acc[i] >> 32;
        acc[i] &= 0xffffffffull;
    }
    /* x 2/pi = acc * 2^(e - 32 (j0 + 8)), acc a 352-bit integer: its binary point sits
       `point` bits below the top. */
    int point = 96 + e - 32 * j0;
    /* Bits [0, point) are the integer part; take 2 of them, then 128 fraction bits. */
    unsigned long long words[3];
    for (int i = 0; i < 3; i++) {
        /* 64 bits starting at bit position point - 2 + 64 i from the top */
        int start = point - 2 + 64 * i;
        unsigned long long v = 0;
        for (int bit = 0; bit < 64; bit += 32) {
            int pos = start + bit; /* from the top of acc's 352 bits */
            int limb = pos >> 5, off = pos & 31;
            unsigned long long a = limb >= 0 && limb < 11 ? acc[limb] : 0;
            unsigned long long c = limb + 1 >= 0 && limb + 1 < 11 ? acc[limb + 1] : 0;
            unsigned long long chunk = ((a << 32 | c) >> (32 - off)) & 0xffffffffull;
            if (pos < -32 || pos >= 352) chunk = 0;
            v |= chunk << (32 - bit);
        }
        words[i] = v;
    }
    /* words[0]: 2 integer bits then 62 fraction bits; words[1]: 64 more. */
    int n = (int)(words[0] >> 62);
    unsigned long long f1 = (words[0] << 2) | (words[1] >> 62);
    unsigned long long f2 = (words[1] << 2) | (words[2] >> 62);
    long long sf1 = (long long)f1; /* f >= 1/2: n + 1 and f - 1 (two's complement) */
    if (sf1 < 0) n += 1;
    double fh = (double)(sf1 >> 11) * 0x1p-53;
    double fl = (double)(f1 & 0x7ffull) * 0x1p-64 + (double)f2 * 0x1p-128;
    __rg_dd f = __rg_fast_two_sum(fh, fl);
    if (fh == 0.0) f = __rg_dd{fl, 0.0};
    /* r = f * pi/2 */
    __rg_dd p = __rg_two_prod(f.hi, 0x1.921fb54442d18p+0);
    p.lo += f.hi * 0x1.1a62633145c07p-54 + f.lo * 0x1.921fb54442d18p+0;
    *r = __rg_fast_two_sum(p.hi, p.lo);
    if (x < 0.0) {
        r->hi = -r->hi;
        r->lo = -r->lo;
        n = -n;
    }
    return n & 3;
}

/* sin and cos of r = h + l, |r| <= pi/4 + a little: Taylor to r^23 and r^22. */
__RGDEV_DEV__ double __rg_sin_kernel(double h, double l) {
    double z = h * h;
    double p = -1.0 / 25852016738884976640000.0;
    p = __nvvm_fma_rn_d(p, z, 1.0 / 51090942171709440000.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 121645100408832000.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 355687428096000.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 1307674368000.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 6227020800.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 39916800.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 362880.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 5040.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 120.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 6.0);
    return h + (h * z * p + l * (1.0 - 0.5 * z));
}
__RGDEV_DEV__ double __rg_cos_kernel(double h, double l) {
    double z = h * h;
    double p = 1.0 / 1124000727777607680000.0;
    p = __nvvm_fma_rn_d(p, z, -1.0 / 2432902008176640000.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 6402373705728000.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 20922789888000.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 87178291200.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 479001600.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 3628800.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 40320.0);
    p = __nvvm_fma_rn_d(p, z, 1.0 / 720.0);
    p = __nvvm_fma_rn_d(p, z, -1.0 / 24.0);
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + (z * z * -p - h * l));
}
__RGDEV_MATH__ double sin(double x) {
    if (x != x || __builtin_fabs(x) == __builtin_inf()) return x - x;
    __rg_dd r;
    int n = __rg_rem_pio2(x, &r) & 3;
    double v = n & 1 ? __rg_cos_kernel(r.hi, r.lo) : __rg_sin_kernel(r.hi, r.lo);
    return n & 2 ? -v : v;
}
__RGDEV_MATH__ double cos(double x) {
    if (x != x || __builtin_fabs(x) == __builtin_inf()) return x - x;
    __rg_dd r;
    int n = __rg_rem_pio2(x, &r) & 3;
    double v = n & 1 ? __rg_sin_kernel(r.hi, r.lo) : __rg_cos_kernel(r.hi, r.lo);
    return (n + 1) & 2 ? -v : v;
}
__RGDEV_MATH__ void sincos(double x, double *s, double *c) {
    if (x != x || __builtin_fabs(x) == __builtin_inf()) {
        *s = *c = x - x;
        return;
    }
    __rg_dd r;
    int n = __rg_rem_pio2(x, &r) & 3;
    double sv = __rg_sin_kernel(r.hi, r.lo), cv = __rg_cos_kernel(r.hi, r.lo);
    double a = n & 1 ? cv : sv, b = n & 1 ? sv : cv;
    *s = n & 2 ? -a : a;
    *c = (n + 1) & 2 ? -b : b;
}
__RGDEV_MATH__ double tan(double x) {
    if (x != x || __builtin_fabs(x) == __builtin_inf()) return x - x;
    __rg_dd r;
    int n = __rg_rem_pio2(x, &r) & 3;
    if (r.hi == 0.0) return r.hi;
    double sv = __rg_sin_kernel(r.hi, r.lo), cv = __rg_cos_kernel(r.hi, r.lo);
    return n & 1 ? -cv / sv : sv / cv;
}

/* atan(t) - t for |t| <= 7/16 (Taylor to t^49; t^2 <= 0.1914). */
__RGDEV_DEV__ double __rg_atan_tail(double t) {
    double z = t * t;
    double p = 0x1.4e5e0a72f0539p-6;
    p = __nvvm_fma_rn_d(p, z, -0x1.5c9882b931057p-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.6c16c16c16c17p-6);
    p = __nvvm_fma_rn_d(p, z, -0x1.7d05f417d05f4p-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.8f9c18f9c18fap-6);
    p = __nvvm_fma_rn_d(p, z, -0x1.a41a41a41a41ap-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.bacf914c1bad0p-6);
    p = __nvvm_fma_rn_d(p, z, -0x1.d41d41d41d41dp-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.f07c1f07c1f08p-6);
    p = __nvvm_fma_rn_d(p, z, -0x1.0842108421084p-5);
    p = __nvvm_fma_rn_d(p, z, 0x1.1a7b9611a7b96p-5);
    p = __nvvm_fma_rn_d(p, z, -0x1.2f684bda12f68p-5);
    p = __nvvm_fma_rn_d(p, z, 0x1.47ae147ae147bp-5);
    p = __nvvm_fma_rn_d(p, z, -0x1.642c8590b2164p-5);
    p = __nvvm_fma_rn_d(p, z, 0x1.8618618618618p-5);
    p = __nvvm_fma_rn_d(p, z, -0x1.af286bca1af28p-5);
    p = __nvvm_fma_rn_d(p, z, 0x1.e1e1e1e1e1e1ep-5);
    p = __nvvm_fma_rn_d(p, z, -0x1.1111111111111p-4);
    p = __nvvm_fma_rn_d(p, z, 0x1.3b13b13b13b14p-4);
    p = __nvvm_fma_rn_d(p, z, -0x1.745d1745d1746p-4);
    p = __nvvm_fma_rn_d(p, z, 0x1.c71c71c71c71cp-4);
    p = __nvvm_fma_rn_d(p, z, -0x1.2492492492492p-3);
    p = __nvvm_fma_rn_d(p, z, 0x1.999999999999ap-3);
    p = __nvvm_fma_rn_d(p, z, -0x1.5555555555555p-2);
    return t * z * p;
}
__RGDEV_MATH__ double atan(double x) {
    if (x != x) return x;
    double ax = __builtin_fabs(x), t, hi, lo;
    int id;
    if (ax < 0.4375) {
        if (ax < 0x1p-27) return x;
        return x + __rg_atan_tail(x);
    } else if (ax < 0.6875) {
        id = 0;
        t = (2.0 * ax - 1.0) / (2.0 + ax);
        hi = 0x1.dac670561bb4fp-2;
        lo = 0x1.a2b7f222f65e2p-56;
    } else if (ax < 1.1875) {
        id = 1;
        t = (ax - 1.0) / (ax + 1.0);
        hi = 0x1.921fb54442d18p-1;
        lo = 0x1.1a62633145c07p-55;
    } else if (ax < 2.4375) {
        id = 2;
        t = (ax - 1.5) / (1.0 + 1.5 * ax);
        hi = 0x1.f730bd281f69bp-1;
        lo = 0x1.007887af0cbbdp-56;
    } else {
        id = 3;
        if (ax > 0x1p66) return __rg_copysign(0x1.921fb54442d18p+0, x);
        t = -1.0 / ax;
        hi = 0x1.921fb54442d18p+0;
        lo = 0x1.1a62633145c07p-54;
    }
    (void)id;
    double r = hi + (t + (__rg_atan_tail(t) + lo));
    return __rg_copysign(r, x);
}
__RGDEV_MATH__ double atan2(double y, double x) {
    if (x != x || y != y) return x + y;
    const double pi = 0x1.921fb54442d18p+1, pi_lo = 0x1.1a62633145c07p-53;
    if (y == 0.0) {
        if (__rg_bits(x) >> 63) return __rg_copysign(pi, y); /* x < 0 or x = -0 */
        return y;
    }
    if (x == 0.0) return __rg_copysign(pi / 2, y);
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (ax == __builtin_inf()) {
        if (ay == __builtin_inf()) return __rg_copysign(x > 0 ? pi / 4 : 3 * pi / 4, y);
        return x > 0 ? __rg_copysign(0.0, y) : __rg_copysign(pi, y);
    }
    if (ay == __builtin_inf()) return __rg_copysign(pi / 2, y);
    double z;
    int ex = (int)((__rg_bits(ax) >> 52) & 0x7ff), ey = (int)((__rg_bits(ay) >> 52) & 0x7ff);
    if (ey - ex > 60) {
        z = pi / 2 + 0.5 * pi_lo;
    } else if (x < 0.0 && ey - ex < -60) {
        z = 0.0;
    } else {
        /* |y/x| as a double-double for the reduction: q + (ay - q ax) / ax */
        double q = ay / ax;
        z = atan(q);
        double rem = __nvvm_fma_rn_d(-q, ax, ay) / ax; /* q's rounding error */
        z += rem / (1.0 + q * q);
    }
    if (x > 0.0) return __rg_copysign(z, y);
    return __rg_copysign(pi - (z - pi_lo), y);
}

/* asin(s) - s for |s| <= 1/2: Taylor to s^57. */
__RGDEV_DEV__ double __rg_asin_tail(double s) {
    /* the coefficient of s^(2k+1) is (2k)! / (4^k (k!)^2 (2k+1)) */
    double z = s * s;
    double p = 0x1.018f963c229bfp-9;
    p = __nvvm_fma_rn_d(p, z, 0x1.1052bc5fa960ap-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.208d3570ae5a6p-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.3275586c5f2f0p-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.464c0950f7d47p-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.5c5f56efaaaabp-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.750de64d7d05fp-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.90cb77f60c7cep-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.b026f57b13b14p-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.d3d2a8e0dd67dp-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.fcaf8fb6db6dbp-9);
    p = __nvvm_fma_rn_d(p, z, 0x1.15ee9d45d1746p-8);
    p = __nvvm_fma_rn_d(p, z, 0x1.31683bdef7bdfp-8);
    p = __nvvm_fma_rn_d(p, z, 0x1.51ba308d3dcb1p-8);
    p = __nvvm_fma_rn_d(p, z, 0x1.782dda12f684cp-8);
    p = __nvvm_fma_rn_d(p, z, 0x1.a6863d70a3d71p-8);
    p = __nvvm_fma_rn_d(p, z, 0x1.df3bd37a6f4dfp-8);
    p = __nvvm_fma_rn_d(p, z, 0x1.12ef3cf3cf3cfp-7);
    p = __nvvm_fma_rn_d(p, z, 0x1.3fde50d79435ep-7);
    p = __nvvm_fma_rn_d(p, z, 0x1.7a87878787878p-7);
    p = __nvvm_fma_rn_d(p, z, 0x1.c99999999999ap-7);
    p = __nvvm_fma_rn_d(p, z, 0x1.1c4ec4ec4ec4fp-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.6e8ba2e8ba2e9p-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.f1c71c71c71c7p-6);
    p = __nvvm_fma_rn_d(p, z, 0x1.6db6db6db6db7p-5);
    p = __nvvm_fma_rn_d(p, z, 0x1.3333333333333p-4);
    p = __nvvm_fma_rn_d(p, z, 0x1.5555555555555p-3);
    return s * z * p;
}
__RGDEV_MATH__ double asin(double x) {
    if (x != x) return x;
    double ax = __builtin_fabs(x);
    if (ax > 1.0) return __builtin_nan("");
    if (ax <= 0.5) {
        if (ax < 0x1p-27) return x;
        return x + __rg_asin_tail(x);
    }
    /* asin(x) = pi/2 - 2 asin(sqrt((1 - x) / 2)) */
    double z = 0.5 * (1.0 - ax); /* exact */
    double s = __nvvm_sqrt_rn_d(z);
    double c = __nvvm_fma_rn_d(-s, s, z) / (2.0 * s); /* sqrt(z) = s + c */
    double a = s + (__rg_asin_tail(s) + c * (1.0 + 0.5 * z));
    double r = 0x1.921fb54442d18p+0 - (2.0 * a - 0x1.1a62633145c07p-54);
    return __rg_copysign(r, x);
}
__RGDEV_MATH__ double acos(double x) {
    if (x != x) return x;
    double ax = __builtin_fabs(x);
    if (ax > 1.0) return __builtin_nan("");
    const double pio2 = 0x1.921fb54442d18p+0, pio2_lo = 0x1.1a62633145c07p-54;
    if (ax <= 0.5) return pio2 - ((x + __rg_asin_tail(x)) - pio2_lo);
    double z = 0.5 * (1.0 - ax);
    double s = __nvvm_sqrt_rn_d(z);
    double c = __nvvm_fma_rn_d(-s, s, z) / (2.0 * s);
    double a = s + (__rg_asin_tail(s) + c * (1.0 + 0.5 * z));
    if (x > 0.0) return 2.0 * a;
    return 2.0 * pio2 - (2.0 * a - 2.0 * pio2_lo);
}

__RGDEV_MATH__ double sinh(double x) {
    double ax = __builtin_fabs(x);
    if (x != x || ax == __builtin_inf()) return x;
    double r;
    if (ax < 1.0) { /* Taylor to x^23 / 23! */
        double z = x * x;
        double p = 0x1.761b41316381ap-75;
        p = __nvvm_fma_rn_d(p, z, 0x1.71b8ef6dcf572p-66);
        p = __nvvm_fma_rn_d(p, z, 0x1.2f49b46814157p-57);
        p = __nvvm_fma_rn_d(p, z, 0x1.952c77030ad4ap-49);
        p = __nvvm_fma_rn_d(p, z, 0x1.ae7f3e733b81fp-41);
        p = __nvvm_fma_rn_d(p, z, 0x1.6124613a86d09p-33);
        p = __nvvm_fma_rn_d(p, z, 0x1.ae64567f544e4p-26);
        p = __nvvm_fma_rn_d(p, z, 0x1.71de3a556c734p-19);
        p = __nvvm_fma_rn_d(p, z, 0x1.a01a01a01a01ap-13);
        p = __nvvm_fma_rn_d(p, z, 0x1.1111111111111p-7);
        p = __nvvm_fma_rn_d(p, z, 0x1.5555555555555p-3);
        return x + x * z * p;
    }
    if (ax < 22.0) {
        double t = expm1(ax);
        r = 0.5 * (t + t / (t + 1.0));
    } else if (ax < 709.0) {
        r = 0.5 * exp(ax);
    } else {
        double w = exp(0.5 * ax);
        r = (0.5 * w) * w;
    }
    return __rg_copysign(r, x);
}
__RGDEV_MATH__ double cosh(double x) {
    double ax = __builtin_fabs(x);
    if (x != x) return x;
    if (ax < 0.34657359027997264) {
        double t = expm1(ax);
        return 1.0 + (t * t) / (2.0 * (1.0 + t));
    }
    if (ax < 22.0) {
        double e = exp(ax);
        return 0.5 * e + 0.5 / e;
    }
    if (ax < 709.0) return 0.5 * exp(ax);
    double w = exp(0.5 * ax);
    return (0.5 * w) * w;
}
__RGDEV_MATH__ double tanh(double x) {
    double ax = __builtin_fabs(x), r;
    if (x != x) return x;
    if (ax > 22.0) {
        r = 1.0;
    } else if (ax < 0x1p-55) {
        return x;
    } else {
        /* tanh = e / (e + 2) with e = e^(2|x|) - 1, divided in double-double */
        __rg_dd e = __rg_expm1_dd(2.0 * ax);
        __rg_dd d = __rg_two_sum(e.hi, 2.0);
        d.lo += e.lo;
        double q = e.hi / d.hi;
        double rem = (__nvvm_fma_rn_d(-q, d.hi, e.hi) + e.lo - q * d.lo) / d.hi;
        r = q + rem;
    }
    return __rg_copysign(r, x);
}
__RGDEV_MATH__ double asinh(double x) {
    double ax = __builtin_fabs(x), r;
    if (x != x || ax == __builtin_inf()) return x;
    if (ax < 0x1p-28) return x;
    if (ax > 0x1p28) {
        __rg_dd l = __rg_log_dd(ax);
        r = l.hi + (l.lo + 0x1.62e42fefa39efp-1);
    } else if (ax > 2.0) {
        r = log(2.0 * ax + 1.0 / (__nvvm_sqrt_rn_d(x * x + 1.0) + ax));
    } else {
        double t = x * x;
        r = log1p(ax + t / (1.0 + __nvvm_sqrt_rn_d(1.0 + t)));
    }
    return __rg_copysign(r, x);
}
__RGDEV_MATH__ double acosh(double x) {
    if (x != x) return x;
    if (x < 1.0) return __builtin_nan("");
    if (x == __builtin_inf()) return x;
    if (x > 0x1p28) {
        __rg_dd l = __rg_log_dd(x);
        return l.hi + (l.lo + 0x1.62e42fefa39efp-1);
    }
    if (x > 2.0) return log(2.0 * x - 1.0 / (x + __nvvm_sqrt_rn_d(x * x - 1.0)));
    double t = x - 1.0;
    return log1p(t + __nvvm_sqrt_rn_d(2.0 * t + t * t));
}
__RGDEV_MATH__ double atanh(double x) {
    double ax = __builtin_fabs(x);
    if (x != x) return x;
    if (ax > 1.0) return __builtin_nan("");
    if (ax == 1.0) return __rg_copysign(__builtin_inf(), x);
    if (ax < 0x1p-28) return x;
    double r = 0.5 * log1p(2.0 * ax / (1.0 - ax));
    return __rg_copysign(r, x);
}

__RGDEV_MATH__ double cbrt(double x) {
    double ax = __builtin_fabs(x);
    if (x != x || ax == 0.0 || ax == __builtin_inf()) return x;
    __rg_dd l = __rg_log_dd(ax);
    double h = l.hi / 3.0;
    double lo = (__nvvm_fma_rn_d(-h, 3.0, l.hi) + l.lo) / 3.0;
    double y = __rg_exp_dd(h, lo);
    /* One Newton step in double-double: y - (y^3 - x) / (3 y^2). */
    __rg_dd y2 = __rg_two_prod(y, y);
    __rg_dd y3 = __rg_two_prod(y2.hi, y);
    double err = (y3.hi - ax) + (y3.lo + y2.lo * y);
    y = y - err / (3.0 * y2.hi);
    return __rg_copysign(y, x);
}
__RGDEV_MATH__ double rcbrt(double x) {
    if (x == 0.0) return __rg_copysign(__builtin_inf(), x);
    if (__builtin_fabs(x) == __builtin_inf()) return __rg_copysign(0.0, x);
    double ax = __builtin_fabs(x);
    if (x != x) return x;
    __rg_dd l = __rg_log_dd(ax);
    double h = -l.hi / 3.0;
    double lo = (__nvvm_fma_rn_d(h, 3.0, l.hi) - l.lo) / 3.0;
    return __rg_copysign(__rg_exp_dd(h, lo), x);
}
__RGDEV_MATH__ double hypot(double x, double y) {
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (ax == __builtin_inf() || ay == __builtin_inf()) return __builtin_inf();
    if (ax != ax || ay != ay) return ax + ay;
    double a = ax > ay ? ax : ay, b = ax > ay ? ay : ax;
    if (a == 0.0) return 0.0;
    int e = (int)((__rg_bits(a) >> 52) & 0x7ff) - 1023;
    if (e < -1000) e = -1000;
    double sa = __rg_scale(1.0, -e), as = a * sa, bs = b * sa; /* exact */
    __rg_dd b2 = __rg_two_prod(bs, bs);
    __rg_dd s = __rg_two_prod(as, as);
    __rg_dd t = __rg_two_sum(s.hi, b2.hi);
    double sum = t.hi + (t.lo + s.lo + b2.lo);
    double r = __nvvm_sqrt_rn_d(sum);
    /* A correction step: r + (sum - r^2) / (2r). */
    double c = (__nvvm_fma_rn_d(-r, r, t.hi) + (t.lo + s.lo + b2.lo)) / (2.0 * r);
    return __rg_scale(1.0, e) * (r + c);
}

/* Exact remainders: the mantissas' long division, one bit a step. */
__RGDEV_MATH__ double fmod(double x, double y) {
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (x != x || y != y || ax == __builtin_inf() || y == 0.0) return __builtin_nan("");
    if (ax < ay || ay == __builtin_inf()) return x;
    unsigned long long bx = __rg_bits(ax), by = __rg_bits(ay);
    int ex = (int)(bx >> 52), ey = (int)(by >> 52);
    unsigned long long mx = bx & 0x000fffffffffffffull, my = by & 0x000fffffffffffffull;
    if (ex == 0) {
        while (!(mx >> 52)) {
            mx <<= 1;
            ex--;
        }
        ex++;
    } else {
        mx |= 1ull << 52;
    }
    if (ey == 0) {
        while (!(my >> 52)) {
            my <<= 1;
            ey--;
        }
        ey++;
    } else {
        my |= 1ull << 52;
    }
    for (; ex > ey; ex--) {
        if (mx >= my) mx -= my;
        mx <<= 1;
    }
    if (mx >= my) mx -= my;
    if (mx == 0) return __rg_copysign(0.0, x);
    while (!(mx >> 52)) {
        mx <<= 1;
        ex--;
    }
    double r;
    if (ex > 0) {
        r = __rg_double(((unsigned long long)ex << 52) | (mx & 0x000fffffffffffffull));
    } else {
        r = __rg_double(mx >> (1 - ex)); /* subnormal: exact (the remainder is below y) */
    }
    return __rg_copysign(r, x);
}
__RGDEV_MATH__ double remainder(double x, double y) {
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (x != x || y != y || ax == __builtin_inf() || y == 0.0) return __builtin_nan("");
    if (ay == __builtin_inf()) return x;
    /* |x| mod 2|y| tells the quotient's parity: odd when it is at least |y|. */
    double r = ay <= 0x1p1022 ? fmod(ax, 2.0 * ay) : ax;
    int odd = 0;
    if (r >= ay) {
        r -= ay; /* exact */
        odd = 1;
    }
    /* nearest, ties to the even quotient */
    if (r > ay - r || (r == ay - r && odd)) r -= ay;
    return x < 0.0 ? -r : r;
}

__RGDEV_MATH__ double ldexp(double x, int e) {
    if (x == 0.0 || x != x || __builtin_fabs(x) == __builtin_inf()) return x;
    if (e > 2200) e = 2200;
    if (e < -2200) e = -2200;
    while (e > 1000) {
        x *= 0x1p1000;
        e -= 1000;
    }
    while (e < -1000) {
        x *= 0x1p-1000 * 0x1p0;
        e += 1000;
        if (x == 0.0) return x;
    }
    /* one final rounding */
    if (e < -1021) return x * __rg_pow2(e + 54) * 0x1p-54;
    return x * __rg_pow2(e);
}
__RGDEV_MATH__ double scalbn(double x, int e) { return ldexp(x, e); }
__RGDEV_MATH__ double frexp(double x, int *e) {
    if (x == 0.0 || x != x || __builtin_fabs(x) == __builtin_inf()) {
        *e = 0;
        return x;
    }
    int k = 0;
    if (__builtin_fabs(x) < 0x1p-1022) {
        x *= 0x1p54;
        k = -54;
    }
    unsigned long long b = __rg_bits(x);
    *e = k + (int)((b >> 52) & 0x7ff) - 1022;
    return __rg_double((b & 0x800fffffffffffffull) | 0x3fe0000000000000ull);
}
__RGDEV_MATH__ int ilogb(double x) {
    if (x == 0.0) return (int)0x80000000;
    if (x != x) return (int)0x80000000;
    if (__builtin_fabs(x) == __builtin_inf()) return 0x7fffffff;
    int e;
    frexp(x, &e);
    return e - 1;
}
__RGDEV_MATH__ double logb(double x) {
    if (x == 0.0) return -__builtin_inf();
    if (x != x) return x;
    if (__builtin_fabs(x) == __builtin_inf()) return __builtin_inf();
    return (double)ilogb(x);
}
__RGDEV_MATH__ double modf(double x, double *ip) {
    double t = __nvvm_trunc_d(x);
    *ip = t;
    if (__builtin_fabs(x) == __builtin_inf()) return __rg_copysign(0.0, x);
    return __rg_copysign(x - t, x);
}
__RGDEV_MATH__ double nextafter(double x, double y) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    if (x == 0.0) return __rg_copysign(__rg_double(1), y);
    unsigned long long b = __rg_bits(x);
    b = ((x < y) == (x > 0.0)) ? b + 1 : b - 1;
    return __rg_double(b);
}
__RGDEV_MATH__ double sinpi(double x) {
    /* x mod 2 is exact; pi times it in double-double. */
    if (x != x || __builtin_fabs(x) == __builtin_inf()) return x - x;
    double r = fmod(x, 2.0);
    double n = __builtin_rint(2.0 * r), t = r - 0.5 * n; /* |t| <= 1/4, exact */
    __rg_dd p = __rg_two_prod(t, 0x1.921fb54442d18p+1);
    p.lo = __nvvm_fma_rn_d(t, 0x1.1a62633145c07p-53, p.lo);
    int q = (int)n & 3;
    double v = q & 1 ? __rg_cos_kernel(p.hi, p.lo) : __rg_sin_kernel(p.hi, p.lo);
    v = q & 2 ? -v : v;
    return v == 0.0 ? __rg_copysign(0.0, x) : v;
}
__RGDEV_MATH__ double cospi(double x) {
    if (x != x || __builtin_fabs(x) == __builtin_inf()) return x - x;
    double r = fmod(__builtin_fabs(x), 2.0);
    double n = __builtin_rint(2.0 * r), t = r - 0.5 * n;
    __rg_dd p = __rg_two_prod(t, 0x1.921fb54442d18p+1);
    p.lo = __nvvm_fma_rn_d(t, 0x1.1a62633145c07p-53, p.lo);
    int q = (int)n & 3;
    double v = q & 1 ? __rg_sin_kernel(p.hi, p.lo) : __rg_cos_kernel(p.hi, p.lo);
    v = (q + 1) & 2 ? -v : v;
    return v == 0.0 ? 0.0 : v;
}

/*
 * The error function family. erf is its Taylor series below 1; above, everything goes
 * through erfcx(x) = e^(x^2) erfc(x), a smooth function: polynomials on [0.5, 8]
 * (tools/math_coefficients.py) and its asymptotic series beyond, with e^(-x^2) taken of
 * x^2 as a double-double.
 */
#define __RG_TWO_OVER_SQRTPI 0x1.20dd750429b6dp+0
#define __RG_TWO_OVER_SQRTPI_LO 0x1.1ae3a914fed80p-56

/* Horner's rule over a table, highest degree first. */
__RGDEV_DEV__ double __rg_horner(const double *c, int n, double x) {
    double p = c[0];
    for (int i = 1; i < n; i++) p = __nvvm_fma_rn_d(p, x, c[i]);
    return p;
}
/* erf's Taylor coefficients past the first: (2/sqrt(pi)) (-1)^n / (n! (2n + 1)), n = 19 .. 1 */
static __device__ const double __rg_erf_taylor[19] = {
    -0x1.18cc8a061c479p-62, 0x1.5f7919bc67b8cp-58, -0x1.a2007af3447f6p-54, 0x1.d70b3537f4765p-50,
    -0x1.f56f071a885cfp-46, 0x1.f683ae4a97007p-42, -0x1.d8453cb0c46eap-38, 0x1.9e6ad5e55a730p-34,
    -0x1.51d7181c5d36dp-30, 0x1.fcc5720624c1cp-27, -0x1.5f742ec43e71ap-23, 0x1.b9e6c9dc651a3p-20,
    -0x1.f4d25c3e0c2ebp-17, 0x1.f9a326f9b89b7p-14, -0x1.c02db40040b86p-11, 0x1.565bcd0e6a53fp-8,
    -0x1.b82ce31288b51p-6, 0x1.ce2f21a042be2p-4, -0x1.812746b0379e7p-2
};
/* erfcx's asymptotic series: (-1)^n (2n - 1)!!, n = 18 .. 0 */
static __device__ const double __rg_erfcx_asymptotic[19] = {
    221643095476699771875.0, -6332659870762850625.0, 191898783962510625.0, -6190283353629375.0,
    213458046676875.0, -7905853580625.0, 316234143225.0, -13749310575.0,
    654729075.0, -34459425.0, 2027025.0, -135135.0,
    10395.0, -945.0, 105.0, -15.0,
    3.0, -1.0, 1.0
};
/* erf(x) = p.hi + rest for |x| < 1 (rest the small part), 2^-57 relative. */
__RGDEV_MATH__ __rg_dd __rg_erf_small(double x) {
    double z = x * x;
    double q = __rg_horner(__rg_erf_taylor, 19, z);
    __rg_dd p = __rg_two_prod(x, __RG_TWO_OVER_SQRTPI);
    p.lo += x * __RG_TWO_OVER_SQRTPI_LO + x * z * q;
    return p;
}

/* erfcx(x) for x >= 0.5: the fitted polynomials in u = (x - m) / r, their constant term a
   double-double; from 8 on the asymptotic series (1 / (x sqrt(pi))) sum (-1)^n (2n-1)!! /
   (2x^2)^n to n = 18 (its first omitted term is below 2^-60). */
static __device__ const double __rg_erfcx_c0[15] = {
    0x1.37d7863ebade2p-46, -0x1.e412f7345926ep-43, 0x1.635d5fe5fc73cp-39, -0x1.02a04a14e43aap-35,
    0x1.6b984c0138dd8p-32, -0x1.ec0d293395f67p-29, 0x1.3f818962c9a60p-25, -0x1.8c97dd23cacebp-22,
    0x1.d43a7c7a7c0fap-19, -0x1.054d68296d26ap-15, 0x1.1192f5bd6873cp-12, -0x1.09e77d40e01cep-9,
    0x1.d90093ae10928p-7, -0x1.78cdd551ee51ap-4, 0x1.038d54ea3d834p-1
};
static __device__ const double __rg_erfcx_c1[18] = {
    -0x1.ddfe13df3446dp-46, 0x1.c8ee5d35f0fe6p-43, -0x1.89dc72c25d886p-40, 0x1.66d11225ee11dp-37,
    -0x1.40090078056f8p-34, 0x1.15709ea561233p-31, -0x1.d4155e4da48d2p-29, 0x1.7f99660093fdap-26,
    -0x1.30c0ec8eebc29p-23, 0x1.d4509d425f248p-21, -0x1.5b0abfe6309ffp-18, 0x1.ee705e7311a51p-16,
    -0x1.513ed7600d3c7p-13, 0x1.b65944f34fbb6p-11, -0x1.0dc51d2941e6cp-8, 0x1.37ea271bc54bcp-6,
    -0x1.4f1988444caf7p-4, 0x1.494daffa2ad68p-2
};
static __device__ const double __rg_erfcx_c2[20] = {
    -0x1.765214aed4921p-42, 0x1.d497f9598b60ap-40, -0x1.cd539a8193ddep-38, 0x1.1666810f3d63bp-35,
    -0x1.527f395f218fap-33, 0x1.8c2f441a8c0efp-31, -0x1.c74e1c5371149p-29, 0x1.014e0a0208be0p-26,
    -0x1.1d7922347c7aap-24, 0x1.3699168d7bd7ep-22, -0x1.4b14624a945b9p-20, 0x1.595f1b10ffe11p-18,
    -0x1.6025103cace20p-16, 0x1.5e73930542870p-14, -0x1.53dec9d0889cap-12, 0x1.409cc2ed3f027p-10,
    -0x1.259061ba85698p-8, 0x1.043fe1a98c0d4p-6, -0x1.bd6ae4d14b16fp-5, 0x1.6e9827d229d2dp-3
};
static __device__ const double __rg_erfcx_c3[23] = {
    0x1.028f1b8ae16b7p-42, -0x1.e8e59452fb60fp-41, 0x1.110fda41ea140p-39, -0x1.f7cd8661a9f33p-38,
    0x1.03956f2260367p-35, -0x1.d9806d433f62ap-34, 0x1.a73db2b330e91p-32, -0x1.7b931f0224871p-30,
    0x1.51dac6bc001e4p-28, -0x1.29e8afef4d7eep-26, 0x1.045ffc9dc9112p-24, -0x1.c312a78c5953ap-23,
    0x1.83201a8128c65p-21, -0x1.491bb152f4eb5p-19, 0x1.1513469ecdd63p-17, -0x1.cde4ceca58c4bp-16,
    0x1.7d0e03edb2214p-14, -0x1.370d06417ac40p-12, 0x1.f64cd9c07b66cp-11, -0x1.9106a7cd79df8p-9,
    0x1.3c7764a81f462p-7, -0x1.ed7f66d9d09fep-6, 0x1.7c0348489d721p-4
};
__RGDEV_DEV__ double __rg_horner_dd0(const double *c, int n, double u, double lo) {
    return c[n - 1] + __nvvm_fma_rn_d(__rg_horner(c, n - 1, u), u, lo);
}
__RGDEV_MATH__ double __rg_erfcx_pos(double x) {
    if (x < 1.0) return __rg_horner_dd0(__rg_erfcx_c0, 15, (x - 0.75) * 4.0, -0x1.ec2134d851665p-55);
    if (x < 2.0) return __rg_horner_dd0(__rg_erfcx_c1, 18, (x - 1.5) * 2.0, 0x1.3a3865ece002dp-56);
    if (x < 4.0) return __rg_horner_dd0(__rg_erfcx_c2, 20, x - 3.0, -0x1.99ac9296879fap-58);
    if (x < 8.0) return __rg_horner_dd0(__rg_erfcx_c3, 23, (x - 6.0) * 0.5, 0x1.ca9cebb9a1c44p-58);
    double w = 0.5 / (x * x); /* 0 once x * x overflows: the series is then 1 */
    double s = __rg_horner(__rg_erfcx_asymptotic, 19, w);
    return 0x1.20dd750429b6dp-1 / x * s;
}

/* erfc(h + l) for h >= 0.5, |l| <= 2^-52 |h|: e^(-(h + l)^2) erfcx(h); near underflow the
   exponential is taken 2^100 larger and scaled back with the product's one rounding. */
__RGDEV_MATH__ double __rg_erfc_pos(double h, double l) {
    if (h > 27.3) return 0.0;
    __rg_dd s = __rg_two_prod(h, h);
    s.lo = __nvvm_fma_rn_d(2.0 * h, l, s.lo);
    double g = __rg_erfcx_pos(h);
    if (s.hi < 700.0) return __rg_exp_dd(-s.hi, -s.lo) * g;
    __rg_dd t = __rg_two_sum(100.0 * __RG_LN2_HI, -s.hi); /* 100 ln2_hi is exact */
    double e = __rg_exp_dd(t.hi, t.lo - s.lo + 100.0 * __RG_LN2_MID + 100.0 * __RG_LN2_LO);
    return e * g * 0x1p-100;
}
__RGDEV_MATH__ double erf(double x) {
    if (x != x) return x;
    double ax = __builtin_fabs(x);
    if (ax < 1.0) {
        __rg_dd p = __rg_erf_small(x);
        return p.hi + p.lo;
    }
    if (ax >= 6.0) return __rg_copysign(1.0, x); /* erfc(6) < 2^-55 */
    return __rg_copysign(1.0 - __rg_erfc_pos(ax, 0.0), x);
}
/* erfc(x) for x < 0.5: 1 - erf(x), the subtraction in double-double. */
__RGDEV_MATH__ double __rg_erfc_low(double x) {
    if (x < -6.0) return 2.0;
    if (x <= -1.0) return 2.0 - __rg_erfc_pos(-x, 0.0);
    __rg_dd p = __rg_erf_small(x);
    __rg_dd d = __rg_two_sum(1.0, -p.hi);
    return d.hi + (d.lo - p.lo);
}
__RGDEV_MATH__ double erfc(double x) {
    if (x != x) return x;
    return x < 0.5 ? __rg_erfc_low(x) : __rg_erfc_pos(x, 0.0);
}
__RGDEV_MATH__ double erfcx(double x) {
    if (x != x) return x;
    if (x >= 0.5) return __rg_erfcx_pos(x);
    if (x < -26.7) return __builtin_inf();
    __rg_dd s = __rg_two_prod(x, x);
    double e = __rg_exp_dd(s.hi, s.lo);
    if (x <= -1.0) return 2.0 * e - __rg_erfcx_pos(-x);
    return e * __rg_erfc_low(x);
}
/* normcdf(x) = erfc(-x / sqrt(2)) / 2, the argument a double-double: erfc's relative
   sensitivity to its argument grows like 2 y^2. */
__RGDEV_MATH__ double normcdf(double x) {
    if (x != x) return x;
    if (__builtin_fabs(x) == __builtin_inf()) return x > 0.0 ? 1.0 : 0.0;
    __rg_dd y = __rg_two_prod(-x, 0x1.6a09e667f3bcdp-1);
    y.lo = __nvvm_fma_rn_d(-x, -0x1.bdd3413b26456p-55, y.lo);
    if (y.hi >= 0.5) return 0.5 * __rg_erfc_pos(y.hi, y.lo);
    /* erfc(h + l) = erfc(h) - l (2/sqrt(pi)) e^(-h^2) */
    double c = y.hi > -6.0 ? y.lo * __RG_TWO_OVER_SQRTPI * __rg_exp_dd(-y.hi * y.hi, 0.0) : 0.0;
    return 0.5 * (__rg_erfc_low(y.hi) - c);
}

/* The inverses, by Newton's method on erf (|y| < 0.75) or on erfc written through erfcx
   (q < 0.5: erfc(x) - q = e^(-x^2) (erfcx(x) - q e^(x^2)), so the step needs no
   e^(-x^2) that could underflow). */
__RGDEV_MATH__ double __rg_erfinv_series(double y) { /* erfinv's Maclaurin series to y^7 */
    double z = y * y;
    double p = __nvvm_fma_rn_d(0x1.62847c47dda48p-4, z, 0x1.053c2c0ab91c5p-3);
    p = __nvvm_fma_rn_d(p, z, 0x1.db29fb2fee5e4p-3);
    p = __nvvm_fma_rn_d(p, z, 0x1.c5bf891b4ef6bp-1);
    return y * p;
}
/* erfcinv(q) for 0 < q < 0.5 (so x > 0.47). */
__RGDEV_MATH__ double __rg_erfcinv_small(double q) {
    __rg_dd lq = __rg_log_dd(q);
    double x;
    if (q > 0.1) {
        x = __rg_erfinv_series(1.0 - q);
    } else { /* erfc(x) ~ e^(-x^2) / (x sqrt(pi)) */
        double t = -lq.hi;
        x = __nvvm_sqrt_rn_d(t);
        x = __nvvm_sqrt_rn_d(t - log(x * 0x1.c5bf891b4ef6bp+0));
        x = __nvvm_sqrt_rn_d(t - log(x * 0x1.c5bf891b4ef6bp+0));
    }
    for (int i = 0; i < 8; i++) {
        /* v = q e^(x^2) = e^(x^2 + log q) */
        __rg_dd s = __rg_two_prod(x, x);
        __rg_dd a = __rg_two_sum(s.hi, lq.hi);
        double v = __rg_exp_dd(a.hi, a.lo + s.lo + lq.lo);
        double dx = (erfcx(x) - v) * 0x1.c5bf891b4ef6bp-1; /* / (2 / sqrt(pi)) */
        x += dx;
        if (__builtin_fabs(dx) <= 0x1p-60 * x) break;
    }
    return x;
}
__RGDEV_MATH__ double erfinv(double y) {
    if (y != y) return y;
    double ay = __builtin_fabs(y);
    if (ay > 1.0) return __builtin_nan("");
    if (ay == 1.0) return __rg_copysign(__builtin_inf(), y);
    if (ay >= 0.5) return __rg_copysign(__rg_erfcinv_small(1.0 - ay), y); /* exact */
    if (ay < 0x1p-50) return y * 0x1.c5bf891b4ef6bp-1 + y * -0x1.618f13eb7ca89p-55;
    double x = __rg_erfinv_series(y);
    for (int i = 0; i < 4; i++) {
        double r = erf(x) - y;
        x -= r * 0x1.c5bf891b4ef6bp-1 * __rg_exp_dd(x * x, __nvvm_fma_rn_d(x, x, -(x * x)));
    }
    return x;
}
__RGDEV_MATH__ double erfcinv(double q) {
    if (q != q) return q;
    if (q < 0.0 || q > 2.0) return __builtin_nan("");
    if (q == 0.0) return __builtin_inf();
    if (q == 2.0) return -__builtin_inf();
    if (q > 1.0) return -erfinv(q - 1.0); /* -erfcinv(2 - q); q - 1 is exact (Sterbenz) */
    if (q >= 0.5) return erfinv(1.0 - q); /* exact too */
    return __rg_erfcinv_small(q);
}
__RGDEV_MATH__ double normcdfinv(double p) {
    if (p != p) return p;
    if (p < 0.0 || p > 1.0) return __builtin_nan("");
    double x = erfcinv(2.0 * p);
    if (__builtin_fabs(x) == __builtin_inf()) return -x;
    return -(x * 0x1.6a09e667f3bcdp+0 + x * -0x1.bdd3413b26456p-54);
}

/*
 * The gamma function. Stirling's series above 12 (to the B_18 term, below 2^-63 there) in
 * double-double; below, the recurrence Gamma(x) = Gamma(x + n) / (x (x + 1) ... (x + n - 1))
 * with the product in double-double; under -12 the reflection formula. lgamma near its
 * zeros 1 and 2 is the Taylor series there, with zeta values as coefficients.
 */
/* Stirling's series: B_2k / (2k (2k - 1)), k = 9 .. 1 */
static __device__ const double __rg_stirling[9] = {
    43867.0 / 244188.0, -3617.0 / 122400.0, 1.0 / 156.0, -691.0 / 360360.0,
    1.0 / 1188.0, -1.0 / 1680.0, 1.0 / 1260.0, -1.0 / 360.0,
    1.0 / 12.0
};
/* lgamma(1 + z): (-1)^k zeta(k) / k, k = 25 .. 2 */
static __device__ const double __rg_lgamma_at1[24] = {
    -0x1.47ae151eb9fb7p-5, 0x1.555556aaafdcdp-5, -0x1.642c88591b66dp-5, 0x1.745d1d1778df9p-5,
    -0x1.86186db77bfbfp-5, 0x1.9999b3352d5bap-5, -0x1.af28a1b5688a0p-5, 0x1.c71ce3a20b419p-5,
    -0x1.e1e2d311e8abdp-5, 0x1.00010064cdeb2p-4, -0x1.11133476e7fe0p-4, 0x1.2496df8320c5fp-4,
    -0x1.3b1d971fc5985p-4, 0x1.556ad63243bc4p-4, -0x1.748c33114c6d6p-4, 0x1.9a01e385d5f8fp-4,
    -0x1.c806706d57db4p-4, 0x1.010b36af86397p-3, -0x1.2703a1dcea3aep-3, 0x1.5b40cb100c306p-3,
    -0x1.a8b9c17aa6149p-3, 0x1.151322ac7d848p-2, -0x1.9a4d55beab2d7p-2, 0x1.a51a6625307d3p-1
};
/* lgamma(2 + z): (-1)^k (zeta(k) - 1) / k, k = 18 .. 2 */
static __device__ const double __rg_lgamma_at2[17] = {
    0x1.c76bbb3f07a4dp-23, -0x1.e2600d93cfd2fp-22, 0x1.0064cdeb22f0fp-20, -0x1.11b2eb7679541p-19,
    0x1.2597a39f34aacp-18, -0x1.3cbc963ce2243p-17, 0x1.580dcee66eb02p-16, -0x1.78de5bd7c81efp-15,
    0x1.a127b0f17d65ap-14, -0x1.d3fd4c76d2fc8p-13, 0x1.0b36af86396e9p-11, -0x1.38ac5c2bf8e08p-10,
    0x1.7add6eadb6c30p-9, -0x1.e404fc218f5f2p-8, 0x1.51322ac7d8483p-6, -0x1.13e001a557607p-4,
    0x1.4a34cc4a60fa6p-2
};
__RGDEV_DEV__ __rg_dd __rg_dd_mul(__rg_dd a, __rg_dd b) {
    __rg_dd p = __rg_two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return __rg_fast_two_sum(p.hi, p.lo);
}
/* log(h + l) for h > 0 finite. */
__RGDEV_MATH__ __rg_dd __rg_log_dd2(double h, double l) {
    __rg_dd r = __rg_log_dd(h);
    r.lo += l / h;
    return r;
}
/* lgamma(z) for z = zh + zl >= 12. */
__RGDEV_MATH__ __rg_dd __rg_lgamma_stirling(double zh, double zl) {
    __rg_dd lz = __rg_log_dd2(zh, zl);
    if (zh > 0x1p1000) return __rg_dd{zh * (lz.hi - 1.0), 0.0}; /* overflows soon after */
    __rg_dd t = __rg_two_sum(zh, -0.5);
    t.lo += zl;
    __rg_dd p = __rg_two_prod(t.hi, lz.hi);
    p.lo += t.hi * lz.lo + t.lo * lz.hi;
    double w = 1.0 / zh, w2 = w * w;
    double s = __rg_horner(__rg_stirling, 9, w2) * w;
    /* (z - 1/2) log z - z + log(2 pi) / 2 + s */
    __rg_dd a = __rg_two_sum(p.hi, -zh);
    __rg_dd b = __rg_two_sum(a.hi, 0x1.d67f1c864beb5p-1);
    double lo = b.lo + a.lo + p.lo - zl - 0x1.65b5a1b7ff5dfp-55 + s;
    return __rg_fast_two_sum(b.hi, lo);
}
/* For -12 < x < 12, x no pole: z = x + n >= 12 and the product x (x + 1) ... (x + n - 1). */
__RGDEV_MATH__ __rg_dd __rg_gamma_shift(double x, __rg_dd *z) {
    int n = (int)__builtin_ceil(12.0 - x);
    __rg_dd p = __rg_dd{x, 0.0};
    for (int k = 1; k < n; k++) p = __rg_dd_mul(p, __rg_two_sum(x, (double)k));
    *z = __rg_two_sum(x, (double)n);
    return p;
}
__RGDEV_MATH__ double lgamma(double x) {
    if (x != x) return x;
    double ax = __builtin_fabs(x);
    if (ax == __builtin_inf()) return __builtin_inf();
    if (x <= 0.0 && __builtin_trunc(x) == x) return __builtin_inf(); /* poles */
    if (x >= 12.0) {
        __rg_dd l = __rg_lgamma_stirling(x, 0.0);
        return l.hi + l.lo;
    }
    if (__builtin_fabs(x - 1.0) < 0.2) {
        /* lgamma(1 + z) = -gamma z + sum (-1)^k zeta(k) / k z^k */
        double z = x - 1.0; /* exact */
        double r = __rg_horner(__rg_lgamma_at1, 24, z);
        return z * -0x1.2788cfc6fb619p-1 + z * (0x1.6cb90701fbfabp-58 + z * r);
    }
    if (__builtin_fabs(x - 2.0) < 0.2) {
        /* lgamma(2 + z) = (1 - gamma) z + sum (-1)^k (zeta(k) - 1) / k z^k */
        double z = x - 2.0; /* exact */
        double r = __rg_horner(__rg_lgamma_at2, 17, z);
        return z * 0x1.b0ee6072093cep-2 + z * (0x1.6cb90701fbfabp-58 + z * r);
    }
    if (x > -12.0) {
        __rg_dd z;
        __rg_dd p = __rg_gamma_shift(x, &z);
        __rg_dd l = __rg_lgamma_stirling(z.hi, z.lo);
        __rg_dd lp = __rg_log_dd2(__builtin_fabs(p.hi), __builtin_fabs(p.hi) == p.hi ? p.lo : -p.lo);
        __rg_dd d = __rg_two_sum(l.hi, -lp.hi);
        return d.hi + (d.lo + l.lo - lp.lo);
    }
    /* x <= -12: lgamma(x) = log(pi / |x sin(pi x)|) - lgamma(-x) */
    if (ax >= 0x1p52) return __builtin_inf(); /* an integer: a pole */
    __rg_dd q = __rg_two_prod(ax, __builtin_fabs(sinpi(x)));
    __rg_dd lq = __rg_log_dd2(q.hi, q.lo);
    __rg_dd l = __rg_lgamma_stirling(ax, 0.0);
    __rg_dd a = __rg_two_sum(0x1.250d048e7a1bdp+0, -lq.hi);
    __rg_dd d = __rg_two_sum(a.hi, -l.hi);
    return d.hi + (d.lo + a.lo + 0x1.7abf2ad8d5088p-57 - lq.lo - l.lo);
}
__RGDEV_MATH__ double tgamma(double x) {
    if (x != x || x == __builtin_inf()) return x;
    if (x == 0.0) return __rg_copysign(__builtin_inf(), x);
    if (x < 0.0 && (x == -__builtin_inf() || __builtin_trunc(x) == x)) return __builtin_nan("");
    if (x > 172.0) return __builtin_inf();
    if (x >= 12.0) {
        __rg_dd l = __rg_lgamma_stirling(x, 0.0);
        return __rg_exp_dd(l.hi, l.lo);
    }
    if (x > -12.0) {
        __rg_dd z;
        __rg_dd p = __rg_gamma_shift(x, &z);
        __rg_dd l = __rg_lgamma_stirling(z.hi, z.lo);
        double e = __rg_exp_dd(l.hi, l.lo); /* Gamma(x + n) < 2^75 */
        double q = e / p.hi;
        return __builtin_fabs(q) == __builtin_inf() ? q : q - q * (p.lo / p.hi);
    }
    /* x <= -12: Gamma(x) = -pi / (x sin(pi x) Gamma(-x)), its magnitude in logarithms */
    if (x < -190.0) return __rg_copysign(0.0, sinpi(x)); /* below 2^-1074 */
    double s = sinpi(x);
    __rg_dd q = __rg_two_prod(-x, __builtin_fabs(s));
    __rg_dd lq = __rg_log_dd2(q.hi, q.lo);
    __rg_dd l = __rg_lgamma_stirling(-x, 0.0);
    __rg_dd a = __rg_two_sum(0x1.250d048e7a1bdp+0, -lq.hi);
    __rg_dd d = __rg_two_sum(a.hi, -l.hi);
    __rg_dd m = __rg_fast_two_sum(d.hi, d.lo + a.lo + 0x1.7abf2ad8d5088p-57 - lq.lo - l.lo);
    return __rg_copysign(__rg_exp_dd(m.hi, m.lo), s);
}

/* Norms: the largest magnitude scaled to 1 by a power of 2 (exact), the sum of squares in
   double-double, its square root corrected once (as hypot). */
__RGDEV_MATH__ double __rg_norm(int n, const double *a, int reciprocal) {
    double big = 0.0;
    int has_nan = 0;
    for (int i = 0; i < n; i++) {
        double v = __builtin_fabs(a[i]);
        if (v == __builtin_inf()) return reciprocal ? 0.0 : __builtin_inf();
        if (v != v) has_nan = 1;
        if (v > big) big = v;
    }
    if (has_nan) return __builtin_nan("");
    if (big == 0.0) return reciprocal ? __builtin_inf() : 0.0;
    int e = (int)((__rg_bits(big) >> 52) & 0x7ff) - 1023;
    if (e < -1000) e = -1000;
    double sc = __rg_scale(1.0, -e);
    __rg_dd s = __rg_dd{0.0, 0.0};
    for (int i = 0; i < n; i++) {
        double v = a[i] * sc;
        __rg_dd p = __rg_two_prod(v, v);
        __rg_dd t = __rg_two_sum(s.hi, p.hi);
        s = __rg_fast_two_sum(t.hi, t.lo + s.lo + p.lo);
    }
    double r = __nvvm_sqrt_rn_d(s.hi);
    double c = (__nvvm_fma_rn_d(-r, r, s.hi) + s.lo) / (2.0 * r);
    if (!reciprocal) return __rg_scale(1.0, e) * (r + c);
    /* 1 / (r + c) = (1 / r) (1 - c / r) */
    double inv = 1.0 / r;
    double err = __nvvm_fma_rn_d(-inv, r, 1.0) - inv * c; /* 1 - inv (r + c) */
    return __rg_scale(1.0, -e) * (inv + inv * err);
}
__RGDEV_MATH__ double norm(int n, const double *a) { return __rg_norm(n, a, 0); }
__RGDEV_MATH__ double rnorm(int n, const double *a) { return __rg_norm(n, a, 1); }
__RGDEV_MATH__ double norm3d(double a, double b, double c) {
    double v[3] = {a, b, c};
    return __rg_norm(3, v, 0);
}
__RGDEV_MATH__ double norm4d(double a, double b, double c, double d) {
    double v[4] = {a, b, c, d};
    return __rg_norm(4, v, 0);
}
__RGDEV_MATH__ double rnorm3d(double a, double b, double c) {
    double v[3] = {a, b, c};
    return __rg_norm(3, v, 1);
}
__RGDEV_MATH__ double rnorm4d(double a, double b, double c, double d) {
    double v[4] = {a, b, c, d};
    return __rg_norm(4, v, 1);
}
__RGDEV_MATH__ double rhypot(double a, double b) {
    double v[2] = {a, b};
    return __rg_norm(2, v, 1);
}

/* remquo: the remainder of remainder() and the quotient's last three bits, with x / y's
   sign; the bits come from long division of |x| mod 8|y| (exact steps). */
__RGDEV_MATH__ double remquo(double x, double y, int *quo) {
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    *quo = 0;
    if (x != x || y != y || ax == __builtin_inf() || y == 0.0) return __builtin_nan("");
    if (ay == __builtin_inf()) return x;
    double t = ay <= 0x1p1020 ? fmod(ax, 8.0 * ay) : ax;
    int n = 0;
    for (int i = 3; i >= 0; i--) { /* t < 16 |y|, also when 8 |y| would overflow */
        double d = ay * (double)(1 << i);
        if (t >= d) {
            t -= d; /* exact: d <= t < 2d */
            n |= 1 << i;
        }
    }
    if (t > ay - t || (t == ay - t && (n & 1))) {
        t -= ay;
        n += 1;
    }
    n &= 7;
    *quo = (x < 0.0) != (y < 0.0) ? -n : n;
    return x < 0.0 ? -t : t;
}
__RGDEV_MATH__ double nan(const char *tag) {
    (void)tag;
    return __builtin_nan("");
}
__RGDEV_MATH__ float nanf(const char *tag) {
    (void)tag;
    return __builtin_nanf("");
}
__RGDEV_MATH__ double scalbln(double x, long e) { return ldexp(x, e < -4000 ? -4000 : e > 4000 ? 4000 : (int)e); }
__RGDEV_MATH__ long long llrint(double x) { return (long long)rint(x); }
__RGDEV_MATH__ long long llrintf(float x) { return (long long)rintf(x); }
__RGDEV_MATH__ void sincospi(double x, double *s, double *c) {
    *s = sinpi(x);
    *c = cospi(x);
}

/*
 * Bessel functions. Below 8, J0, J1, Y0 and Y1 are polynomials fitted on intervals, in x^2
 * near 0 (Y0 and Y1 after their logarithmic terms), and around each zero z as
 * g(x) (x - z), z a double-double, so that the result keeps its relative accuracy there;
 * from 8 on, Hankel's form with P and Q fitted in 8 / x. I0 and I1 likewise, scaled by e^-x
 * above 4. The fits are tools/bessel_coefficients.py's: Chebyshev interpolants
 * to 2^-60 relative, each with its constant term a double-double. J_n and Y_n recur.
 */
/* J0(x), v = x^2 on [0.0, 4.0] */
static __device__ const double __rg_j0_t[10] = {
    -0x1.fc4a5f117a595p-47, 0x1.3fdd9f55cb4f8p-39, -0x1.3d9b714eab15bp-32, 0x1.e1f6940f0e486p-26,
    -0x1.0bd8fb580c356p-19, 0x1.9b73ac0db3dcfp-14, -0x1.90fd323c4264ep-9, 0x1.afd36c73264f1p-5,
    -0x1.8a3bafbd8015bp-2, 0x1.1e46d4a0b681ep-1
};
/* J0(x) / (x - z), v = x on [1.5, 3.5] */
static __device__ const double __rg_j0_z1[16] = {
    -0x1.f433b3755791cp-48, 0x1.c55c1fab906bbp-44, 0x1.f5539b913cbb6p-40, -0x1.987c1afdc7999p-36,
    -0x1.7aae5bacb4202p-32, 0x1.1186566916963p-28, 0x1.a1f3662f40fffp-25, -0x1.0753b607bfe9ep-21,
    -0x1.3d45b0db95514p-18, 0x1.557a5788fb8a9p-15, 0x1.2e83154ef2a8fp-12, -0x1.0e58cd042b207p-9,
    -0x1.3641ec0f624c2p-7, 0x1.ba793c219145ap-5, 0x1.e540dd3163d84p-4, -0x1.0448ff49a6456p-1
};
/* J0(x) / (x - z), v = x on [3.5, 7.5] */
static __device__ const double __rg_j0_z2[19] = {
    -0x1.4767209f4200ep-42, -0x1.2e07fe9917d59p-39, 0x1.e4cf335c6ea04p-36, 0x1.86f6ba3dec146p-33,
    -0x1.14014aa96abebp-29, -0x1.7af4faa105059p-27, 0x1.e936032b80c42p-24, 0x1.15b24ad1e73aap-21,
    -0x1.45b972c9dbd05p-18, -0x1.2583234884360p-16, 0x1.36433ce86844dp-13, 0x1.a1138a234f660p-12,
    -0x1.89f723c12bb86p-9, -0x1.6394ea34841e4p-8, 0x1.2a27c6d94f983p-5, 0x1.23928de481219p-5,
    -0x1.b452909e17580p-3, -0x1.d60346027baf1p-5, 0x1.5d0afcf0baf5ep-2
};
/* J0(x), v = x on [7.5, 8.0] */
static __device__ const double __rg_j0_z3[12] = {
    0x1.58f81ac2ce2d6p-50, -0x1.ac07c68d43cc4p-46, -0x1.36f01059714c0p-39, 0x1.6a32f3320ffbep-35,
    0x1.6c0b300152da5p-29, -0x1.85c950273f761p-25, -0x1.e6db5bca5cb79p-20, 0x1.c80b08eee2e84p-16,
    0x1.2492045c82c5fp-11, -0x1.9aa5978744dd1p-8, -0x1.8866f09a3faa0p-5, 0x1.cd47850686e28p-3
};
/* J1(x) / x, v = x^2 on [0.0, 4.0] */
static __device__ const double __rg_j1_t[10] = {
    -0x1.987e233304c04p-51, 0x1.1deaae5c38df7p-43, -0x1.3fd73d5d9f377p-36, 0x1.15e8031ee7826p-29,
    -0x1.6978ef2ccd0aap-23, 0x1.4ecf3a2e0f759p-17, -0x1.9b73ac0db2ddbp-12, 0x1.2cbde5ad31cbbp-7,
    -0x1.afd36c73264f2p-4, 0x1.8a3bafbd8015bp-2
};
/* J1(x) / (x - z), v = x on [2.0, 5.5] */
static __device__ const double __rg_j1_z1[19] = {
    0x1.00feca93cfa9cp-45, 0x1.995cc10763a56p-43, -0x1.e93dec9a81c17p-39, -0x1.5776a31376908p-36,
    0x1.6903d55f9e858p-32, 0x1.b4dc220a531c2p-30, -0x1.9e5f99f4ebd9fp-26, -0x1.a57726cb7a2d6p-24,
    0x1.64e1425e9ebeep-20, 0x1.26bbff1d2c90ep-18, -0x1.b7365cc6fc329p-15, -0x1.17debb25bd57ep-13,
    0x1.6830f06496f0ap-10, 0x1.46249ede6b2cap-9, -0x1.616565a406797p-6, -0x1.85c1834128743p-6,
    0x1.5662fec7e1740p-3, 0x1.3973d3473f6edp-4, -0x1.a07475d0ca44ap-2
};
/* J1(x) / (x - z), v = x on [5.5, 8.0] */
static __device__ const double __rg_j1_z2[17] = {
    0x1.2f67c42202394p-46, 0x1.4b034adc96d04p-44, -0x1.bc879eac7ad4dp-39, -0x1.92d0950ad320cp-37,
    0x1.f0b57af5670fcp-32, 0x1.665a879a928f6p-30, -0x1.9f0c963103fc8p-25, -0x1.c1bca542ff13cp-24,
    0x1.ecef0229387f5p-19, 0x1.6ca7eeb4fc8ffp-18, -0x1.8265610dd0e1ap-13, -0x1.458a1cbb359a7p-13,
    0x1.63b96eafb5e16p-8, 0x1.a4ee7f68050dap-10, -0x1.36bdd1342ca81p-4, 0x1.4cc4a2901c05ap-8,
    0x1.35b199b15d40ap-2
};
/* Y0(x) - (2/pi) ln(x) J0(x), v = x^2 on [0.0, 0.25] */
static __device__ const double __rg_y0_t[8] = {
    0x1.22636457ed5eep-59, -0x1.a4f154455e632p-49, 0x1.ba6bbe77692f7p-39, -0x1.3c6ee752c89c0p-29,
    0x1.17e6fedaff8b4p-20, -0x1.040faf4c2e107p-12, 0x1.638f0dda15f00p-6, -0x1.a8c8fbe2fb5d2p-5
};
/* Y0(x) / (x - z), v = x on [0.5, 1.25] */
static __device__ const double __rg_y0_z1[27] = {
    0x1.b2b7f2d7e0b89p-36, -0x1.067cf457fd190p-34, -0x1.8b4a12666ea26p-36, 0x1.d567e108f28c0p-35,
    0x1.9ae530d537cbap-32, -0x1.f32df27015651p-31, 0x1.6dd8eb0309d95p-30, -0x1.c0f41155dddb5p-29,
    0x1.36aa1e0cda89ap-27, -0x1.7e6db12bfc5c5p-26, 0x1.d181d1e45f5f8p-25, -0x1.207b4446bd4c3p-23,
    0x1.6764410c4c40fp-22, -0x1.c11edb252074dp-21, 0x1.1a054d977f388p-19, -0x1.64475d5cd8b17p-18,
    0x1.c52949c71f4ffp-17, -0x1.2285472be5c8cp-15, 0x1.781d8860bf7a3p-14, -0x1.ecac543b64b48p-13,
    0x1.475f6dcd56b58p-11, -0x1.bbe9e5148dbd9p-10, 0x1.35cd6ed4db006p-8, -0x1.a41e7d30f30c5p-7,
    0x1.0d21d407b3f9fp-5, -0x1.8064e57080423p-3, 0x1.c6fbc942ae2c5p-1
};
/* Y0(x), v = x on [1.25, 3.25] */
static __device__ const double __rg_y0_d1[28] = {
    0x1.01aaef2032bf7p-35, -0x1.2bdf191b93bacp-34, -0x1.960d1f04c24afp-35, 0x1.d484d31b80b5fp-34,
    0x1.b22410dfe06fep-32, -0x1.fbaa538acede2p-31, 0x1.0e811578152f7p-30, -0x1.4078a2faaeb39p-29,
    0x1.de2341c35c367p-28, -0x1.1b71320bbbdddp-26, 0x1.46f27044b4c86p-25, -0x1.8644bc9422840p-24,
    0x1.d4fd8a5f97b7cp-23, -0x1.1a0700bc03895p-21, 0x1.54a8412953432p-20, -0x1.9da8a1786d48cp-19,
    0x1.f99bc1a346240p-18, -0x1.37b8582b8e213p-16, 0x1.7dfb54f929a86p-15, -0x1.c9db7324619bep-14,
    0x1.4f2f758a6594ep-12, -0x1.22e543ce1cbb9p-10, 0x1.343d4a65d3886p-11, 0x1.13d6eb8ca3ae3p-7,
    0x1.520ac57750d26p-5, -0x1.0415e059d3b2dp-2, -0x1.bd83c1ac86cc0p-6, 0x1.0a45edb51cae8p-1
};
/* Y0(x) / (x - z), v = x on [3.25, 5.25] */
static __device__ const double __rg_y0_z2[19] = {
    0x1.ccca76b90a4b7p-45, -0x1.012e7bdaa98d9p-42, 0x1.b6b1640e2df9fp-41, -0x1.ee3462f02ecc3p-39,
    0x1.1ff41e92f2fd3p-36, -0x1.3b3a5bfc411ecp-34, 0x1.586762132b749p-32, -0x1.035bfebad538dp-29,
    0x1.66877657af8cbp-27, 0x1.52626ad15174dp-26, -0x1.3863b3cea8c71p-22, -0x1.77ab0ba52be09p-18,
    0x1.511e31b38477dp-15, 0x1.20c25013f83dep-12, -0x1.e1a13358ce089p-10, -0x1.2df296e9297afp-7,
    0x1.a57853aa7589bp-5, 0x1.54653b59c9e5cp-4, -0x1.880cffe3a0941p-2
};
/* Y0(x) / (x - z), v = x on [5.25, 8.0] */
static __device__ const double __rg_y0_z3[18] = {
    -0x1.0cddc7bc2f993p-46, 0x1.5374757cadc5fp-43, -0x1.a1a920e6a0002p-44, -0x1.8b194d258ae13p-37,
    -0x1.1316e1bdd3797p-35, 0x1.a785ace0b8bf8p-30, 0x1.01f7a39e51677p-29, -0x1.1b18bf2870ba7p-23,
    -0x1.0f453de0c8f07p-23, 0x1.18f2b5e9beb10p-17, 0x1.f578c48bf9d77p-19, -0x1.69ad645067b6ep-12,
    -0x1.8662ad1ee8acfp-16, 0x1.12cebc21d1793p-7, -0x1.329b83ac29dd1p-9, -0x1.8121cb705981dp-4,
    0x1.123921aec290ep-5, 0x1.329d2b890b782p-2
};
/* (Y1(x) - (2/pi)(ln(x) J1(x) - 1/x)) / x, v = x^2 on [0.0, 1.0] */
static __device__ const double __rg_y1_t[8] = {
    0x1.2603cfb3accd9p-49, -0x1.e8b630b1a405fp-41, 0x1.2d1f676194197p-32, -0x1.04880847dac0dp-24,
    0x1.2441d2f012986p-17, -0x1.75774997c2072p-11, 0x1.a573627ce6100p-6, -0x1.5b5de4759a9f7p-3
};
/* Y1(x), v = x on [1.0, 1.75] */
static __device__ const double __rg_y1_d1[22] = {
    0x1.180eb4e88fb4ep-40, -0x1.00aa3b083f5a6p-38, 0x1.15e5b57d8adb7p-37, -0x1.fd4e24ccd752ap-36,
    0x1.05eadb45332d3p-33, -0x1.dff6a837f7438p-32, 0x1.b2ededf0a5eccp-30, -0x1.8e69e34e236fdp-28,
    0x1.6d26f6e6b7664p-26, -0x1.4e5cf360a8253p-24, 0x1.3210c06b4fa05p-22, -0x1.180b84df0ebdep-20,
    0x1.001346744b746p-18, -0x1.d3d7d4447759dp-17, 0x1.aa345a6d1d534p-15, -0x1.837191b11df1bp-13,
    0x1.68fd0f81e05fbp-11, -0x1.4636f9c0fd7e8p-9, 0x1.62090bbb48c3ap-8, -0x1.31f381c52800cp-6,
    0x1.07a7581ba0332p-2, -0x1.fc23d82d1ea13p-2
};
/* Y1(x) / (x - z), v = x on [1.75, 3.25] */
static __device__ const double __rg_y1_z1[22] = {
    -0x1.1b24f70d88565p-39, 0x1.d7a2a0d55f5eep-38, -0x1.8c36f5ce01becp-37, 0x1.49dd5b2259483p-35,
    -0x1.4c5ec418dbb52p-33, 0x1.14a4f6252e433p-31, -0x1.c2b8f50f2cf54p-30, 0x1.76f2dcb2c07c5p-28,
    -0x1.384ce5c416719p-26, 0x1.03926a9efab79p-24, -0x1.af21e3c640090p-23, 0x1.65aef04aaec69p-21,
    -0x1.2903a7b9b538ap-19, 0x1.eddce497da4ffp-18, -0x1.8af7cc3bac2a5p-16, 0x1.2fef72a63ef21p-14,
    -0x1.527fbab1e9c0cp-12, 0x1.7b89463cde897p-10, 0x1.f939856f1a527p-11, -0x1.36f4c0192d9b6p-6,
    -0x1.ab07f5b1b0fb6p-4, 0x1.ed5db255dc7a6p-2
};
/* Y1(x), v = x on [3.25, 4.5] */
static __device__ const double __rg_y1_d2[17] = {
    -0x1.5107bdb1b8dedp-45, 0x1.044a82fbcb309p-42, -0x1.6562d33bbb24cp-40, 0x1.1145b03340ba7p-37,
    -0x1.9da8c621107b2p-35, 0x1.59bdcca2ea5a4p-32, -0x1.3c5627aa66dd5p-29, 0x1.9881a0db11a8ap-28,
    0x1.e2145ee03dc1ap-25, 0x1.76af4a2f1b0b5p-20, -0x1.7a9fa3a7d4db5p-16, -0x1.8bb32564696b0p-14,
    0x1.c695a9c1e9e19p-10, 0x1.7b942a4af4b5cp-8, -0x1.2310ce927bd53p-4, -0x1.715ee6a419a41p-5,
    0x1.a392128ee4f97p-2
};
/* Y1(x) / (x - z), v = x on [4.5, 6.5] */
static __device__ const double __rg_y1_z2[17] = {
    0x1.289e0507dee7fp-45, -0x1.a62ae6992b1cdp-43, 0x1.11af624254e74p-40, -0x1.d5d16098d427cp-39,
    -0x1.671eb80dfb80fp-40, -0x1.a796c55c7fe2dp-32, 0x1.6c38c6cb338a8p-28, 0x1.f801007b9302ep-26,
    -0x1.1c0bcc719deb3p-21, -0x1.a8ffe5c1bdc48p-19, 0x1.794529e297941p-15, 0x1.5bf2ac1c75c1dp-13,
    -0x1.14b2a9f18ae6ep-9, -0x1.38118d892fb23p-8, 0x1.99a770a1f95d2p-5, 0x1.3ae4cf58073fbp-5,
    -0x1.59f8ff9e374e6p-2
};
/* Y1(x), v = x on [6.5, 8.0] */
static __device__ const double __rg_y1_d3[15] = {
    0x1.ed2592abd7aa4p-46, 0x1.25eee8463fca2p-41, -0x1.69537cb4bf056p-37, -0x1.3ff85942a7ce4p-33,
    0x1.662d34b0c8be3p-29, 0x1.f7b5059573750p-26, -0x1.f4901867ff2cbp-22, -0x1.f6eb198f10838p-19,
    0x1.b593538bf3d00p-15, 0x1.1d4e9240b1d66p-12, -0x1.a14d712ca2960p-9, -0x1.169b6bf55f29dp-7,
    0x1.38f39a36db55bp-4, 0x1.0f5b94ec88e3ep-4, -0x1.284ad730f7a36p-2
};
/* I0(x), v = x^2 on [0.0, 4.0] */
static __device__ const double __rg_i0_t[10] = {
    0x1.18dfc25abaa1cp-46, 0x1.6574cac322b8dp-39, 0x1.67e5bc7144d57p-32, 0x1.15fd645f70940p-25,
    0x1.3c6dcc15aff04p-19, 0x1.f6907b53670efp-14, 0x1.017662a61f6aap-8, 0x1.2d6c91ded7bbbp-4,
    0x1.458fab1e6aadcp-1, 0x1.90eacf96209cbp+0
};
/* I0(x), v = x^2 on [4.0, 16.0] */
static __device__ const double __rg_i0_s[12] = {
    0x1.2cb3b236cb954p-44, 0x1.821de398afe75p-38, 0x1.9b06554bd355ap-32, 0x1.6439aa2babf11p-26,
    0x1.eb05d06b2b4a6p-21, 0x1.0572f12f7e31bp-15, 0x1.9e8d02f13312dp-11, 0x1.d1ddda7813fa9p-7,
    0x1.5a9024916f1cep-3, 0x1.3473378440162p+0, 0x1.15d581f67734cp+2, 0x1.6495757c014bfp+2
};
/* e^-x I0(x), v = x on [4.0, 8.0] */
static __device__ const double __rg_i0_e1[21] = {
    0x1.58ea648641d75p-41, -0x1.cda6e32775990p-39, 0x1.de37df61c7daep-37, -0x1.1e5112ad867a0p-34,
    0x1.4e16ce62ad86fp-32, -0x1.6b5e106720b21p-30, 0x1.7692cc3470eb9p-28, -0x1.6e97efc182c37p-26,
    0x1.5417db20e5308p-24, -0x1.2b3353eb2f1d5p-22, 0x1.f4567c95d04fcp-21, -0x1.8f624608f09d5p-19,
    0x1.32b25bd0e9617p-17, -0x1.ca6992341b98cp-16, 0x1.5285b828ca3cdp-14, -0x1.f6bca41cfeb00p-13,
    0x1.7deeaea54c908p-11, -0x1.2dd51ba2d40fap-9, 0x1.fb40e2ca60e84p-8, -0x1.de9bc8e46191dp-6,
    0x1.55507df69630cp-3
};
/* e^-x I0(x), v = x on [8.0, 16.0] */
static __device__ const double __rg_i0_e2[24] = {
    -0x1.1a5f6d73349efp-41, 0x1.d91ef16d257dap-40, -0x1.5d920acad9552p-39, 0x1.0618adb2b50c2p-37,
    -0x1.05433701f0633p-35, 0x1.8777b57c168bcp-34, -0x1.146e2bd0cd247p-32, 0x1.92ab8458cbf40p-31,
    -0x1.25b1c338d0a1bp-29, 0x1.aabe85b718d8dp-28, -0x1.3741e980b13ecp-26, 0x1.c96b3e222d2d7p-25,
    -0x1.530e9b210141dp-23, 0x1.fb736c7a48a55p-22, -0x1.7f840ebc848d2p-20, 0x1.24d5ebc721bfep-18,
    -0x1.c422460073799p-17, 0x1.616fd3952d9aep-15, -0x1.188c3bdc564b5p-13, 0x1.c68b066f16f83p-12,
    -0x1.7b6576665c321p-10, 0x1.4d00b0c18aa49p-8, -0x1.452f3c62bd8d4p-6, 0x1.dce1bdc8232d5p-4
};
/* sqrt(x) e^-x I0(x), v = 16 / x on [0.0, 1.0] */
static __device__ const double __rg_i0_w[15] = {
    0x1.4bb995fb9b863p-48, 0x1.36b3865d622d5p-46, 0x1.2b2b266ac8944p-45, 0x1.7b5e79cd8a6f2p-44,
    0x1.78d3ad0f45af7p-42, 0x1.b4ab99a1e8e87p-40, 0x1.299cb05b2f8c7p-37, 0x1.ea5206b958784p-35,
    0x1.ef67e24ae7535p-32, 0x1.3a08ca115134cp-28, 0x1.02d40e601a9dcp-24, 0x1.25cd11bbd9b58p-20,
    0x1.fd45ca44d6c69p-16, 0x1.a7a0f52d8b30ap-10, 0x1.9a2444cad63c4p-2
};
/* I1(x) / x, v = x^2 on [0.0, 4.0] */
static __device__ const double __rg_i1_t[10] = {
    0x1.bf5e6c2d978e1p-51, 0x1.3bfca66196eeep-43, 0x1.656dcd49da71ep-36, 0x1.3ae904dcaa1a5p-29,
    0x1.a0fc16b3db980p-23, 0x1.8b893f1b1c239p-17, 0x1.f6907b5365f75p-12, 0x1.823193f92f1ffp-7,
    0x1.2d6c91ded7bbcp-3, 0x1.458fab1e6aadcp-1
};
/* I1(x) / x, v = x^2 on [4.0, 16.0] */
static __device__ const double __rg_i1_s[12] = {
    0x1.8aae39be2f689p-49, 0x1.13a82d6f063a2p-42, 0x1.41a4bd696b836p-36, 0x1.3444bf7c73feep-30,
    0x1.daf791079641bp-25, 0x1.1e6e0ee93aaeap-19, 0x1.0572f12f5306cp-14, 0x1.59758273aa8ddp-10,
    0x1.3693e6fab8032p-6, 0x1.5a9024916f1cep-3, 0x1.9b444a05aac83p-1, 0x1.7272029df4466p+0
};
/* e^-x I1(x), v = x on [4.0, 8.0] */
static __device__ const double __rg_i1_e1[21] = {
    -0x1.38c809e463db8p-41, 0x1.9ed6f5057142bp-39, -0x1.a71934d501c35p-37, 0x1.f35d5b52e3b84p-35,
    -0x1.1e9915510f735p-32, 0x1.310bdcc3f9632p-30, -0x1.31e3bf8c3653ap-28, 0x1.20e514a73f2d6p-26,
    -0x1.ff50480947c15p-25, 0x1.a5e13524b386bp-23, -0x1.42763237b20f4p-21, 0x1.c413a7ee333fbp-20,
    -0x1.1d3869b0c5373p-18, 0x1.35f64af328af4p-17, -0x1.f4b53de21468cp-17, 0x1.42fc08013981cp-19,
    0x1.0ee3204c66d02p-13, -0x1.bb771140b68bcp-11, 0x1.18e10e1041ee0p-8, -0x1.5fcb9031c957dp-6,
    0x1.3766c1685017ap-3
};
/* e^-x I1(x), v = x on [8.0, 16.0] */
static __device__ const double __rg_i1_e2[24] = {
    0x1.ccfcc8e088ffbp-42, -0x1.779b17b1ced2fp-40, 0x1.ef3874782c9f8p-40, -0x1.5909214ed09f5p-38,
    0x1.564412112d5aap-36, -0x1.d7bb2de618f73p-35, 0x1.24789a159e05bp-33, -0x1.6f5019a2d19abp-32,
    0x1.bb6be6e3f5e7dp-31, -0x1.f028f2e61388ep-30, 0x1.f01d242ab766fp-29, -0x1.82f10e0d33b5dp-28,
    0x1.00d459e76f3f5p-29, 0x1.49fa2a1ec9db8p-25, -0x1.096fd7bb6ecc3p-22, 0x1.346e8eda3d8ecp-20,
    -0x1.3e98b4101046fp-18, 0x1.3741a9e849e8ep-16, -0x1.280499094483dp-14, 0x1.1733610562a01p-12,
    -0x1.09c2b4ca962e9p-10, 0x1.05ddaa8e595aap-8, -0x1.1b8f264a8c38cp-6, 0x1.c88eca01f7548p-4
};
/* sqrt(x) e^-x I1(x), v = 16 / x on [0.0, 1.0] */
static __device__ const double __rg_i1_w[15] = {
    -0x1.639f1e6bb0916p-48, -0x1.493d8174f75dfp-46, -0x1.3b3596ccc6b90p-45, -0x1.9604b0d5e74e5p-44,
    -0x1.98a42abb2bcedp-42, -0x1.deb6450026055p-40, -0x1.4afdf28ab01bcp-37, -0x1.15bdd4d6dc83fp-34,
    -0x1.1f8e6d65618bdp-31, -0x1.792d709318e6ap-28, -0x1.47243a7ab3082p-24, -0x1.947d7ad11dcbap-20,
    -0x1.a179cca809431p-15, -0x1.38a200a5fb758p-8, 0x1.93ae76b001770p-2
};
/* Hankel P0, v = 8 / x on [0.0, 1.0] */
static __device__ const double __rg_p0[16] = {
    -0x1.8e17d203cee59p-45, -0x1.5e5a279b49bb1p-45, 0x1.c4082da7137f2p-41, -0x1.ee751aa25f6a7p-40,
    -0x1.10479e5dd9d21p-38, 0x1.6984d3cf12eadp-35, -0x1.d9ad5e90aadacp-34, -0x1.a3a9eda2ce5f5p-32,
    0x1.3271c4f7f5b84p-28, -0x1.2eae71c8d2bfep-27, -0x1.365d5a137d1fap-23, 0x1.5803ee95f0b6ep-20,
    0x1.a2365704d4c4fp-18, -0x1.15bb91fc1cde8p-12, -0x1.1c8354bcae922p-11, 0x1.ffdc38523fac1p-1
};
/* Hankel Q0 / v, v = 8 / x on [0.0, 1.0] */
static __device__ const double __rg_q0[18] = {
    0x1.1f1785bbf6231p-48, -0x1.2a00c2b51f96bp-46, 0x1.fa62beffc1bc7p-48, 0x1.2c07f7148c918p-43,
    -0x1.294d51f21259fp-41, 0x1.4aef90b81b6a3p-41, 0x1.100e2e7f434a1p-38, -0x1.952c1e3684fa5p-36,
    0x1.359d07e729170p-35, 0x1.14e5952648c5dp-32, -0x1.e657347ef95e7p-30, 0x1.7bafa0860c256p-30,
    0x1.a35158da8a572p-25, -0x1.2c31bb41655dcp-22, -0x1.95077d98e7857p-20, 0x1.17abb561f08c2p-15,
    0x1.2508f3f0389b0p-14, -0x1.fed787feaaa2fp-7
};
/* Hankel P1, v = 8 / x on [0.0, 1.0] */
static __device__ const double __rg_p1[16] = {
    0x1.b7277cffb7d34p-45, 0x1.51acdb4c04eeep-45, -0x1.eac6575bc0e82p-41, 0x1.17422e4012342p-39,
    0x1.18a17bb3559a9p-38, -0x1.90bdf696e75c8p-35, 0x1.1437eb07a67d5p-33, 0x1.c3fcb1a19218ap-32,
    -0x1.64136830472e2p-28, 0x1.854c4ef8826b7p-27, 0x1.741dd46038bf9p-23, -0x1.c55524070318fp-20,
    -0x1.0ee2989fdcab6p-17, 0x1.d2bfbf760779bp-12, 0x1.db81a3423672ep-11, 0x1.001ddbbcc1380p+0
};
/* Hankel Q1 / v, v = 8 / x on [0.0, 1.0] */
static __device__ const double __rg_q1[18] = {
    -0x1.2bf82d6438566p-48, 0x1.3f9fbefb6639fp-46, -0x1.42550adb45f32p-47, -0x1.3c61994662abcp-43,
    0x1.43cf7840fb7edp-41, -0x1.80ec6960c3892p-41, -0x1.20b3f2531cc7bp-38, 0x1.c01e5e7460305p-36,
    -0x1.6cce1b823237bp-35, -0x1.2e2b06454d602p-32, 0x1.16f667a25eebap-29, -0x1.01985776b1ff1p-29,
    -0x1.eaf019f5d8511p-25, 0x1.78d9f177516a4p-22, 0x1.f2d991fe514afp-20, -0x1.8b0eab801e56cp-15,
    -0x1.9b779d26ea7abp-14, 0x1.7f9814a836ac1p-5
};
#define __RG_J0_T(v) __rg_horner_dd0(__rg_j0_t, 10, ((v) - 2.0) / 2.0, 0x1.afd6907bd451fp-57)
#define __RG_J0_Z1(v) __rg_horner_dd0(__rg_j0_z1, 16, ((v) - 2.5) / 1.0, 0x1.c3f84e6c75941p-55)
#define __RG_J0_Z2(v) __rg_horner_dd0(__rg_j0_z2, 19, ((v) - 5.5) / 2.0, 0x1.330fad1404cd7p-56)
#define __RG_J0_Z3(v) __rg_horner_dd0(__rg_j0_z3, 12, ((v) - 7.75) / 0.25, 0x1.f9d4fc73570f8p-57)
#define __RG_J1_T(v) __rg_horner_dd0(__rg_j1_t, 10, ((v) - 2.0) / 2.0, -0x1.a55d3bf2c9951p-56)
#define __RG_J1_Z1(v) __rg_horner_dd0(__rg_j1_z1, 19, ((v) - 3.75) / 1.75, -0x1.877496f9b7964p-56)
#define __RG_J1_Z2(v) __rg_horner_dd0(__rg_j1_z2, 17, ((v) - 6.75) / 1.25, 0x1.308ba30967ddbp-56)
#define __RG_Y0_T(v) __rg_horner_dd0(__rg_y0_t, 8, ((v) - 0.125) / 0.125, 0x1.8c030af01f80bp-59)
#define __RG_Y0_Z1(v) __rg_horner_dd0(__rg_y0_z1, 27, ((v) - 0.875) / 0.375, 0x1.0d6e25b4454bap-55)
#define __RG_Y0_D1(v) __rg_horner_dd0(__rg_y0_d1, 28, ((v) - 2.25) / 1.0, -0x1.b172dd494e68ep-57)
#define __RG_Y0_Z2(v) __rg_horner_dd0(__rg_y0_z2, 19, ((v) - 4.25) / 1.0, -0x1.5a725babfc365p-56)
#define __RG_Y0_Z3(v) __rg_horner_dd0(__rg_y0_z3, 18, ((v) - 6.625) / 1.375, -0x1.783dd849dc950p-56)
#define __RG_Y1_T(v) __rg_horner_dd0(__rg_y1_t, 8, ((v) - 0.5) / 0.5, 0x1.fd348bad0f0e0p-57)
#define __RG_Y1_D1(v) __rg_horner_dd0(__rg_y1_d1, 22, ((v) - 1.375) / 0.375, -0x1.d2a3eaacac310p-58)
#define __RG_Y1_Z1(v) __rg_horner_dd0(__rg_y1_z1, 22, ((v) - 2.5) / 0.75, 0x1.b4bf9c31fb4dep-58)
#define __RG_Y1_D2(v) __rg_horner_dd0(__rg_y1_d2, 17, ((v) - 3.875) / 0.625, -0x1.5352a34686210p-56)
#define __RG_Y1_Z2(v) __rg_horner_dd0(__rg_y1_z2, 17, ((v) - 5.5) / 1.0, -0x1.a7ce2f972417dp-57)
#define __RG_Y1_D3(v) __rg_horner_dd0(__rg_y1_d3, 15, ((v) - 7.25) / 0.75, 0x1.69014fffb37aap-57)
#define __RG_I0_T(v) __rg_horner_dd0(__rg_i0_t, 10, ((v) - 2.0) / 2.0, -0x1.d764ac6a35ca6p-57)
#define __RG_I0_S(v) __rg_horner_dd0(__rg_i0_s, 12, ((v) - 10.0) / 6.0, -0x1.2a6fbdf567447p-54)
#define __RG_I0_E1(v) __rg_horner_dd0(__rg_i0_e1, 21, ((v) - 6.0) / 2.0, -0x1.0c8d91332b12fp-57)
#define __RG_I0_E2(v) __rg_horner_dd0(__rg_i0_e2, 24, ((v) - 12.0) / 4.0, 0x1.913c03e00a434p-61)
#define __RG_I0_W(v) __rg_horner_dd0(__rg_i0_w, 15, ((v) - 0.5) / 0.5, 0x1.84ce4e4d9cff6p-56)
#define __RG_I1_T(v) __rg_horner_dd0(__rg_i1_t, 10, ((v) - 2.0) / 2.0, -0x1.e1bbe461224a9p-58)
#define __RG_I1_S(v) __rg_horner_dd0(__rg_i1_s, 12, ((v) - 10.0) / 6.0, -0x1.9230200af3f96p-57)
#define __RG_I1_E1(v) __rg_horner_dd0(__rg_i1_e1, 21, ((v) - 6.0) / 2.0, -0x1.f91ef9381469fp-59)
#define __RG_I1_E2(v) __rg_horner_dd0(__rg_i1_e2, 24, ((v) - 12.0) / 4.0, -0x1.a1ff7f704ef46p-59)
#define __RG_I1_W(v) __rg_horner_dd0(__rg_i1_w, 15, ((v) - 0.5) / 0.5, -0x1.229437ae6a119p-56)
#define __RG_P0(v) __rg_horner_dd0(__rg_p0, 16, ((v) - 0.5) / 0.5, 0x1.d6a0be0610d57p-55)
#define __RG_Q0(v) __rg_horner_dd0(__rg_q0, 18, ((v) - 0.5) / 0.5, 0x1.61bef5ef32626p-63)
#define __RG_P1(v) __rg_horner_dd0(__rg_p1, 16, ((v) - 0.5) / 0.5, 0x1.fc07f0b59f452p-55)
#define __RG_Q1(v) __rg_horner_dd0(__rg_q1, 18, ((v) - 0.5) / 0.5, 0x1.5927dace273b1p-60)
#define __RG_ZERO_J0_1 0x1.33d152e971b40p+1, -0x1.0f539d7da258ep-53
#define __RG_ZERO_J0_2 0x1.6148f5b2c2e45p+2, 0x1.75054cd60a517p-54
#define __RG_ZERO_J1_1 0x1.ea75575af6f09p+1, -0x1.60155a9d1b256p-53
#define __RG_ZERO_J1_2 0x1.c0ff5f3b47250p+2, -0x1.b226d9d243827p-54
#define __RG_ZERO_Y0_1 0x1.c982eb8d417eap-1, 0x1.ea9d270347f83p-56
#define __RG_ZERO_Y0_2 0x1.fa9534d98569cp+1, -0x1.f06ae7804384ep-54
#define __RG_ZERO_Y0_3 0x1.c581dc4e72103p+2, -0x1.9774a495f56cfp-54
#define __RG_ZERO_Y1_1 0x1.193bed4dff243p+1, -0x1.bd1e50d219bfdp-55
#define __RG_ZERO_Y1_2 0x1.5b7fe4e87b02ep+2, 0x1.dfe7bac228e8cp-52

/* f(x) = g(x) (x - z) near a zero z = zh + zl of f: x - zh is exact (Sterbenz) there. */
__RGDEV_MATH__ double __rg_at_zero(double g, double x, double zh, double zl) { return g * ((x - zh) - zl); }
#define __RG_NEAR(poly, x, zero) __rg_at_zero(poly(x), x, zero)

/* J_n(x) (second = 0) or Y_n(x) (second = 1), n = 0 or 1, for x >= 8: Hankel's form
   sqrt(2 / (pi x)) (P cos c - Q sin c) (J) or (P sin c + Q cos c) (Y), c = x - (2n + 1) pi / 4,
   with P and Q fitted in 8 / x; cos c and sin c from sin x and cos x (sqrt(2) folded into
   the factor, which becomes 1 / sqrt(pi x)). */
__RGDEV_MATH__ double __rg_hankel(double x, int n, int second) {
    if (x == __builtin_inf()) return 0.0;
    double w = 8.0 / x;
    double p = n ? __RG_P1(w) : __RG_P0(w);
    double q = (n ? __RG_Q1(w) : __RG_Q0(w)) * w;
    double s, c;
    sincos(x, &s, &c);
    double cc = n ? s - c : c + s;    /* sqrt(2) cos(x - (2n + 1) pi / 4) */
    double sc = n ? -(s + c) : s - c; /* sqrt(2) sin(x - (2n + 1) pi / 4) */
    double k = 0x1.20dd750429b6dp-1 / __nvvm_sqrt_rn_d(x); /* 1 / sqrt(pi x) */
    return k * (second ? __nvvm_fma_rn_d(p, sc, q * cc) : __nvvm_fma_rn_d(p, cc, -q * sc));
}

#define __RG_2_OVER_PI 0x1.45f306dc9c883p-1

__RGDEV_MATH__ double j0(double x) {
    double a = __builtin_fabs(x);
    if (a < 2.0) return __RG_J0_T(a * a);
    if (a < 3.5) return __RG_NEAR(__RG_J0_Z1, a, __RG_ZERO_J0_1);
    if (a < 7.5) return __RG_NEAR(__RG_J0_Z2, a, __RG_ZERO_J0_2);
    if (a < 8.0) return __RG_J0_Z3(a);
    return a != a ? x : __rg_hankel(a, 0, 0);
}
__RGDEV_MATH__ double j1(double x) {
    double a = __builtin_fabs(x), v;
    if (a < 2.0) v = a * __RG_J1_T(a * a);
    else if (a < 5.5) v = __RG_NEAR(__RG_J1_Z1, a, __RG_ZERO_J1_1);
    else if (a < 8.0) v = __RG_NEAR(__RG_J1_Z2, a, __RG_ZERO_J1_2);
    else if (a != a) return x;
    else v = __rg_hankel(a, 1, 0);
    return __builtin_signbit(x) ? -v : v;
}
__RGDEV_MATH__ double y0(double x) {
    if (!(x >= 0.0)) return __builtin_nan("");
    if (x == 0.0) return -__builtin_inf();
    if (x < 0.5) return __nvvm_fma_rn_d(__RG_2_OVER_PI * log(x), j0(x), __RG_Y0_T(x * x));
    if (x < 1.25) return __RG_NEAR(__RG_Y0_Z1, x, __RG_ZERO_Y0_1);
    if (x < 3.25) return __RG_Y0_D1(x);
    if (x < 5.25) return __RG_NEAR(__RG_Y0_Z2, x, __RG_ZERO_Y0_2);
    if (x < 8.0) return __RG_NEAR(__RG_Y0_Z3, x, __RG_ZERO_Y0_3);
    return __rg_hankel(x, 0, 1);
}
__RGDEV_MATH__ double y1(double x) {
    if (!(x >= 0.0)) return __builtin_nan("");
    if (x == 0.0) return -__builtin_inf();
    if (x < 1.0) {
        /* (2/pi)(ln(x) J1(x) - 1/x) + x V(x^2); -(2/pi)/x rather than (2/pi)(1/x), which
           overflows first. */
        double r = __nvvm_fma_rn_d(__RG_2_OVER_PI * log(x), j1(x), x * __RG_Y1_T(x * x));
        return r - __RG_2_OVER_PI / x;
    }
    if (x < 1.75) return __RG_Y1_D1(x);
    if (x < 3.25) return __RG_NEAR(__RG_Y1_Z1, x, __RG_ZERO_Y1_1);
    if (x < 4.5) return __RG_Y1_D2(x);
    if (x < 6.5) return __RG_NEAR(__RG_Y1_Z2, x, __RG_ZERO_Y1_2);
    if (x < 8.0) return __RG_Y1_D3(x);
    return __rg_hankel(x, 1, 1);
}

/* J_n: the forward recurrence from J0 and J1 where it is stable (|x| > n), else Miller's
   backward recurrence from far above n, normalized by J0 + 2 (J2 + J4 + ...) = 1, with
   rescaling against overflow; the leading term of the series for tiny x, and 0 where
   J_n(x) < (e x / (2n))^n underflows. J_-n(x) = (-1)^n J_n(x) = J_n(-x). */
__RGDEV_MATH__ double jn(int n, double x) {
    unsigned int m = n < 0 ? 0u - (unsigned int)n : (unsigned int)n;
    if (n < 0 && (m & 1u)) x = -x;
    if (m == 0) return j0(x);
    if (m == 1) return j1(x);
    if (x != x) return x;
    double a = __builtin_fabs(x), sign = (x < 0.0 && (m & 1u)) ? -1.0 : 1.0;
    if (a == 0.0 || a == __builtin_inf()) return sign * 0.0;
    double r;
    if (a > (double)m) {
        double jp = j0(a), jc = j1(a);
        for (unsigned int k = 1; k < m; k++) {
            double jnext = (2.0 * k / a) * jc - jp;
            jp = jc;
            jc = jnext;
        }
        r = jc;
    } else if (m * log(0x1.5bf0a8b145769p+1 * a / (2.0 * m)) < -760.0) {
        r = 0.0;
    } else if (a < 1e-3) {
        /* (x/2)^n / n! (1 - (x/2)^2 / (n + 1)) */
        double h = 0.5 * a, t = 1.0;
        for (unsigned int k = 1; k <= m && t != 0.0; k++) t *= h / k;
        r = t * (1.0 - h * h / (m + 1.0));
    } else {
        unsigned int top = 2u * ((m + (unsigned int)__nvvm_sqrt_rn_d(160.0 * m)) / 2u);
        double bp = 0.0, b = 1.0, sum = 0.0, ans = 0.0;
        for (unsigned int j = top; j > 0; j--) {
            double bm = (2.0 * j / a) * b - bp;
            bp = b;
            b = bm;
            if (__builtin_fabs(b) > 0x1p+800) {
                b *= 0x1p-800;
                bp *= 0x1p-800;
                ans *= 0x1p-800;
                sum *= 0x1p-800;
            }
            if (j - 1u != 0u && ((j - 1u) & 1u) == 0u) sum += b;
            if (j - 1u == m) ans = b;
        }
        sum = 2.0 * sum + b;
        r = ans / sum;
    }
    return sign * r;
}

/* Y_n: the forward recurrence from Y0 and Y1 (stable); Y_-n = (-1)^n Y_n. */
__RGDEV_MATH__ double yn(int n, double x) {
    unsigned int m = n < 0 ? 0u - (unsigned int)n : (unsigned int)n;
    double sign = (n < 0 && (m & 1u)) ? -1.0 : 1.0;
    if (m == 0) return y0(x);
    if (m == 1) return sign * y1(x);
    if (!(x >= 0.0)) return __builtin_nan("");
    if (x == 0.0) return -sign * __builtin_inf();
    if (x == __builtin_inf()) return 0.0;
    double yp = y0(x), yc = y1(x);
    for (unsigned int k = 1; k < m && yc != -__builtin_inf(); k++) {
        double ynext = (2.0 * k / x) * yc - yp;
        yp = yc;
        yc = ynext;
    }
    return sign * yc;
}

/* I0 and I1: fits of I0 and I1 / x in x^2 below 4, of e^-x I(x) to 16, of sqrt(x) e^-x I(x)
   in 16 / x beyond; e^x in two halves where it alone would overflow. */
__RGDEV_MATH__ double __rg_bessel_i(double x, int n) {
    double a = __builtin_fabs(x), v;
    if (a < 2.0) v = n ? a * __RG_I1_T(a * a) : __RG_I0_T(a * a);
    else if (a < 4.0) v = n ? a * __RG_I1_S(a * a) : __RG_I0_S(a * a);
    else if (a != a) return x;
    else {
        double g;
        if (a < 8.0) g = n ? __RG_I1_E1(a) : __RG_I0_E1(a);
        else if (a < 16.0) g = n ? __RG_I1_E2(a) : __RG_I0_E2(a);
        else if (a < 720.0) {
            double w = 16.0 / a;
            g = (n ? __RG_I1_W(w) : __RG_I0_W(w)) / __nvvm_sqrt_rn_d(a);
        } else return n && x < 0.0 ? -__builtin_inf() : __builtin_inf();
        if (a < 700.0) v = g * exp(a);
        else {
            double e = exp(0.5 * a);
            v = (g * e) * e;
        }
    }
    return n && __builtin_signbit(x) ? -v : v;
}
__RGDEV_MATH__ double cyl_bessel_i0(double x) { return __rg_bessel_i(x, 0); }
__RGDEV_MATH__ double cyl_bessel_i1(double x) { return __rg_bessel_i(x, 1); }
__RGDEV_MATH__ float jnf(int n, float x) { return (float)jn(n, (double)x); }
__RGDEV_MATH__ float ynf(int n, float x) { return (float)yn(n, (double)x); }

/* Single precision: the double function, rounded once. */
#define __RG_F1(name, dname)                                                                           \
    __RGDEV_MATH__ float name(float x) { return (float)dname((double)x); }
/* With -use_fast_math (__USE_FAST_MATH__), the functions CUDA's programming guide lists are
 * the fast intrinsics; otherwise the double function, rounded once. */
#if defined(__USE_FAST_MATH__)
__RGDEV_MATH__ float expf(float x) { return __expf(x); }
__RGDEV_MATH__ float exp10f(float x) { return __exp10f(x); }
__RGDEV_MATH__ float logf(float x) { return __logf(x); }
__RGDEV_MATH__ float log2f(float x) { return __log2f(x); }
__RGDEV_MATH__ float log10f(float x) { return __log10f(x); }
__RGDEV_MATH__ float sinf(float x) { return __sinf(x); }
__RGDEV_MATH__ float cosf(float x) { return __cosf(x); }
__RGDEV_MATH__ float tanf(float x) { return __tanf(x); }
#else
__RG_F1(expf, exp)
__RG_F1(exp10f, exp10)
__RG_F1(logf, log)
__RG_F1(log2f, log2)
__RG_F1(log10f, log10)
__RG_F1(sinf, sin)
__RG_F1(cosf, cos)
__RG_F1(tanf, tan)
#endif
__RG_F1(exp2f, exp2)
__RG_F1(expm1f, expm1)
__RG_F1(log1pf, log1p)
__RG_F1(asinf, asin)
__RG_F1(acosf, acos)
__RG_F1(atanf, atan)
__RG_F1(sinhf, sinh)
__RG_F1(coshf, cosh)
__RG_F1(tanhf, tanh)
__RG_F1(asinhf, asinh)
__RG_F1(acoshf, acosh)
__RG_F1(atanhf, atanh)
__RG_F1(cbrtf, cbrt)
__RG_F1(rcbrtf, rcbrt)
__RG_F1(sinpif, sinpi)
__RG_F1(cospif, cospi)
__RG_F1(logbf, logb)
__RG_F1(erff, erf)
__RG_F1(erfcf, erfc)
__RG_F1(erfcxf, erfcx)
__RG_F1(erfinvf, erfinv)
__RG_F1(erfcinvf, erfcinv)
__RG_F1(normcdff, normcdf)
__RG_F1(normcdfinvf, normcdfinv)
__RG_F1(lgammaf, lgamma)
__RG_F1(tgammaf, tgamma)
__RG_F1(j0f, j0)
__RG_F1(j1f, j1)
__RG_F1(y0f, y0)
__RG_F1(y1f, y1)
__RG_F1(cyl_bessel_i0f, cyl_bessel_i0)
__RG_F1(cyl_bessel_i1f, cyl_bessel_i1)
#undef __RG_F1
/* Norms of floats: the squares are exact in double and the sum cannot overflow. */
__RGDEV_MATH__ float normf(int n, const float *a) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (__builtin_fabsf(a[i]) == __builtin_inff()) return __builtin_inff();
        s += (double)a[i] * (double)a[i];
    }
    return (float)__nvvm_sqrt_rn_d(s);
}
__RGDEV_MATH__ float rnormf(int n, const float *a) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (__builtin_fabsf(a[i]) == __builtin_inff()) return 0.0f;
        s += (double)a[i] * (double)a[i];
    }
    return (float)(1.0 / __nvvm_sqrt_rn_d(s));
}
__RGDEV_MATH__ float norm3df(float a, float b, float c) {
    float v[3] = {a, b, c};
    return normf(3, v);
}
__RGDEV_MATH__ float norm4df(float a, float b, float c, float d) {
    float v[4] = {a, b, c, d};
    return normf(4, v);
}
__RGDEV_MATH__ float rnorm3df(float a, float b, float c) {
    float v[3] = {a, b, c};
    return rnormf(3, v);
}
__RGDEV_MATH__ float rnorm4df(float a, float b, float c, float d) {
    float v[4] = {a, b, c, d};
    return rnormf(4, v);
}
__RGDEV_MATH__ float rhypotf(float a, float b) {
    float v[2] = {a, b};
    return rnormf(2, v);
}
__RGDEV_MATH__ float remquof(float x, float y, int *quo) { return (float)remquo((double)x, (double)y, quo); }
__RGDEV_MATH__ void sincospif(float x, float *s, float *c) {
    *s = sinpif(x);
    *c = cospif(x);
}
__RGDEV_MATH__ float fdividef(float a, float b) { return a / b; }
#if defined(__USE_FAST_MATH__)
__RGDEV_MATH__ float powf(float x, float y) { return __powf(x, y); }
#else
__RGDEV_MATH__ float powf(float x, float y) { return (float)pow((double)x, (double)y); }
#endif
__RGDEV_MATH__ float atan2f(float y, float x) { return (float)atan2((double)y, (double)x); }
__RGDEV_MATH__ float hypotf(float x, float y) { return (float)hypot((double)x, (double)y); }
__RGDEV_MATH__ float fmodf(float x, float y) { return (float)fmod((double)x, (double)y); }
__RGDEV_MATH__ float remainderf(float x, float y) { return (float)remainder((double)x, (double)y); }
__RGDEV_MATH__ float ldexpf(float x, int e) { return (float)ldexp((double)x, e < -400 ? -400 : e > 400 ? 400 : e); }
__RGDEV_MATH__ float scalbnf(float x, int e) { return ldexpf(x, e); }
__RGDEV_MATH__ float scalblnf(float x, long e) { return ldexpf(x, e < -400 ? -400 : e > 400 ? 400 : (int)e); }
__RGDEV_MATH__ float frexpf(float x, int *e) { return (float)frexp((double)x, e); }
__RGDEV_MATH__ int ilogbf(float x) { return ilogb((double)x); }
__RGDEV_MATH__ float modff(float x, float *ip) {
    float t = __nvvm_trunc_f(x);
    *ip = t;
    if (__builtin_fabsf(x) == __builtin_inff()) return __rg_copysignf(0.0f, x);
    return __rg_copysignf(x - t, x);
}
#if defined(__USE_FAST_MATH__)
__RGDEV_MATH__ void sincosf(float x, float *s, float *c) { __sincosf(x, s, c); }
#else
__RGDEV_MATH__ void sincosf(float x, float *s, float *c) {
    double sd, cd;
    sincos((double)x, &sd, &cd);
    *s = (float)sd;
    *c = (float)cd;
}
#endif
__RGDEV_MATH__ float nextafterf(float x, float y) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    if (x == 0.0f) return __rg_copysignf(__builtin_bit_cast(float, 1u), y);
    unsigned int b = __builtin_bit_cast(unsigned int, x);
    b = ((x < y) == (x > 0.0f)) ? b + 1 : b - 1;
    return __builtin_bit_cast(float, b);
}

/* C++ overloads of float arguments (std:: and the global names device code calls). */
__RGDEV_DEV__ float sqrt(float x) { return sqrtf(x); }
__RGDEV_DEV__ float fabs(float x) { return fabsf(x); }
__RGDEV_DEV__ float abs(float x) { return fabsf(x); }
__RGDEV_DEV__ double abs(double x) { return fabs(x); }
__RGDEV_DEV__ float floor(float x) { return floorf(x); }
__RGDEV_DEV__ float ceil(float x) { return ceilf(x); }
__RGDEV_DEV__ float fma(float a, float b, float c) { return fmaf(a, b, c); }
__RGDEV_DEV__ float fmin(float a, float b) { return fminf(a, b); }
__RGDEV_DEV__ float fmax(float a, float b) { return fmaxf(a, b); }
/* min and max for host and device code, every integer and floating type and the mixed
 * signed/unsigned and float/double pairs (the result in the wider or unsigned type), as
 * CUDA's headers overload them. */
#define __RGDEV_MINMAX__ static __host__ __device__ __inline__
#define __RGDEV_MINMAX(A, B, R)                                                                        \
    __RGDEV_MINMAX__ R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                             \
    __RGDEV_MINMAX__ R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
__RGDEV_MINMAX(int, int, int)
__RGDEV_MINMAX(unsigned int, unsigned int, unsigned int)
__RGDEV_MINMAX(int, unsigned int, unsigned int)
__RGDEV_MINMAX(unsigned int, int, unsigned int)
__RGDEV_MINMAX(long, long, long)
__RGDEV_MINMAX(unsigned long, unsigned long, unsigned long)
__RGDEV_MINMAX(long, unsigned long, unsigned long)
__RGDEV_MINMAX(unsigned long, long, unsigned long)
__RGDEV_MINMAX(long long, long long, long long)
__RGDEV_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__RGDEV_MINMAX(long long, unsigned long long, unsigned long long)
__RGDEV_MINMAX(unsigned long long, long long, unsigned long long)
#undef __RGDEV_MINMAX
__RGDEV_MINMAX__ float min(float a, float b) { return fminf(a, b); }
__RGDEV_MINMAX__ float max(float a, float b) { return fmaxf(a, b); }
__RGDEV_MINMAX__ double min(double a, double b) { return fmin(a, b); }
__RGDEV_MINMAX__ double max(double a, double b) { return fmax(a, b); }
__RGDEV_MINMAX__ double min(float a, double b) { return fmin((double)a, b); }
__RGDEV_MINMAX__ double max(float a, double b) { return fmax((double)a, b); }
__RGDEV_MINMAX__ double min(double a, float b) { return fmin(a, (double)b); }
__RGDEV_MINMAX__ double max(double a, float b) { return fmax(a, (double)b); }
#undef __RGDEV_MINMAX__
#define __RG_OVERLOAD1(name, fname)                                                                    \
    __RGDEV_DEV__ float name(float x) { return fname(x); }
__RG_OVERLOAD1(exp, expf)
__RG_OVERLOAD1(exp2, exp2f)
__RG_OVERLOAD1(expm1, expm1f)
__RG_OVERLOAD1(log, logf)
__RG_OVERLOAD1(log2, log2f)
__RG_OVERLOAD1(log10, log10f)
__RG_OVERLOAD1(log1p, log1pf)
__RG_OVERLOAD1(sin, sinf)
__RG_OVERLOAD1(cos, cosf)
__RG_OVERLOAD1(tan, tanf)
__RG_OVERLOAD1(asin, asinf)
__RG_OVERLOAD1(acos, acosf)
__RG_OVERLOAD1(atan, atanf)
__RG_OVERLOAD1(sinh, sinhf)
__RG_OVERLOAD1(cosh, coshf)
__RG_OVERLOAD1(tanh, tanhf)
__RG_OVERLOAD1(asinh, asinhf)
__RG_OVERLOAD1(acosh, acoshf)
__RG_OVERLOAD1(atanh, atanhf)
__RG_OVERLOAD1(cbrt, cbrtf)
__RG_OVERLOAD1(trunc, truncf)
__RG_OVERLOAD1(round, roundf)
__RG_OVERLOAD1(rint, rintf)
__RG_OVERLOAD1(rsqrt, rsqrtf)
__RG_OVERLOAD1(erf, erff)
__RG_OVERLOAD1(erfc, erfcf)
__RG_OVERLOAD1(lgamma, lgammaf)
__RG_OVERLOAD1(tgamma, tgammaf)
#undef __RG_OVERLOAD1
__RGDEV_DEV__ float remquo(float x, float y, int *quo) { return remquof(x, y, quo); }
__RGDEV_DEV__ float scalbln(float x, long e) { return scalblnf(x, e); }
__RGDEV_DEV__ float pow(float x, float y) { return powf(x, y); }
__RGDEV_DEV__ float pow(float x, int y) { return powf(x, (float)y); }
__RGDEV_DEV__ double pow(double x, int y) { return pow(x, (double)y); }
__RGDEV_DEV__ float atan2(float y, float x) { return atan2f(y, x); }
__RGDEV_DEV__ float hypot(float x, float y) { return hypotf(x, y); }
__RGDEV_DEV__ float fmod(float x, float y) { return fmodf(x, y); }
__RGDEV_DEV__ float copysign(float x, float y) { return copysignf(x, y); }
__RGDEV_DEV__ float ldexp(float x, int e) { return ldexpf(x, e); }
__RGDEV_DEV__ float frexp(float x, int *e) { return frexpf(x, e); }
__RGDEV_DEV__ float modf(float x, float *ip) { return modff(x, ip); }
__RGDEV_DEV__ void sincos(float x, float *s, float *c) { sincosf(x, s, c); }

#undef __RGDEV_DEV__
#undef __RGDEV_MATH__

#endif /* __CUDA__ */

#endif /* __MATH_FUNCTIONS_H__ */
