/*
 * cuda_fp16.h for rgdev: the basics of CUDA's half precision, for host and device code:
 * __half and __half2, conversions (round to nearest even, and the other roundings from
 * float), arithmetic, comparisons and the common math functions. Values are stored as
 * IEEE binary16 bits and computed in single precision, rounded once to half: for +, -,
 * *, / and sqrt that is the correctly rounded result (float's 24 bits are at least twice
 * half's 11 plus 2). Written for rgdev from CUDA's documented half-precision API; not
 * NVIDIA's header.
 */
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__

#include "host_defines.h"
#include "vector_functions.h"

#define __RGDEV_HF__ static __inline__ __host__ __device__

typedef struct __align__(2) __half_raw {
    unsigned short x;
} __half_raw;

/* float -> binary16 bits, rounded to nearest even (mode 0), toward zero (1), down (2),
   up (3). */
__RGDEV_HF__ unsigned short __rgdev_f2h(float f, int mode) {
    unsigned int u;
    __builtin_memcpy(&u, &f, 4);
    unsigned int sign = (u >> 16) & 0x8000u;
    unsigned int e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
    if (e == 0xff) return (unsigned short)(sign | 0x7c00u | (m ? 0x200u | (m >> 13) : 0u));
    int neg = sign != 0;
    /* The magnitude as a fixed-point number of 2^-24 units with 13 extra bits. */
    int exp = (int)e - 127;
    unsigned int mant = e ? (m | 0x800000u) : m;
    unsigned int h, rest, half_unit;
    if (exp > 15) {
        /* beyond the largest finite: infinity, or the largest value for some roundings */
        int to_max = mode == 1 || (mode == 2 && !neg) || (mode == 3 && neg);
        return (unsigned short)(sign | (to_max ? 0x7bffu : 0x7c00u));
    }
    if (exp >= -14) {
        /* normal: 10 fraction bits kept of 23 */
        h = ((unsigned int)(exp + 15) << 10) | ((mant >> 13) & 0x3ffu);
        rest = mant & 0x1fffu;
        half_unit = 0x1000u;
    } else {
        /* subnormal (or zero): units of 2^-24 */
        int shift = -exp - 14 + 13; /* bits dropped from the 24-bit significand */
        if (shift > 31) {
            h = 0;
            rest = mant ? 1u : 0u; /* nonzero, below half a unit */
            half_unit = 0x80000000u;
        } else {
            h = mant >> shift;
            rest = mant & ((1u << shift) - 1u);
            half_unit = 1u << (shift - 1);
        }
    }
    int up;
    switch (mode) {
    case 1: up = 0; break;
    case 2: up = neg && rest != 0; break;
    case 3: up = !neg && rest != 0; break;
    default: up = rest > half_unit || (rest == half_unit && (h & 1u)); break;
    }
    h += (unsigned int)up; /* a carry into the exponent is right, up to infinity */
    return (unsigned short)(sign | h);
}

/* binary16 bits -> float (exact). */
__RGDEV_HF__ float __rgdev_h2f(unsigned short h) {
    unsigned int sign = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    if (e == 0x1f) {
        u = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        u = sign | ((e + 112) << 23) | (m << 13);
    } else if (m == 0) {
        u = sign;
    } else {
        int k = 0;
        while (!(m & 0x400u)) {
            m <<= 1;
            k++;
        }
        u = sign | ((unsigned int)(113 - k) << 23) | ((m & 0x3ffu) << 13);
    }
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

#if defined(__cplusplus)

struct __align__(2) __half {
    unsigned short __x;
    __half() = default;
    __host__ __device__ __half(const __half_raw &r) : __x(r.x) {}
    __host__ __device__ __half(float f) : __x(__rgdev_f2h(f, 0)) {}
    __host__ __device__ __half(double d) : __x(__rgdev_f2h((float)d, 0)) {}
    __host__ __device__ __half(int i) : __x(__rgdev_f2h((float)i, 0)) {}
    __host__ __device__ __half(unsigned int i) : __x(__rgdev_f2h((float)i, 0)) {}
    __host__ __device__ __half(short i) : __x(__rgdev_f2h((float)i, 0)) {}
    __host__ __device__ __half(unsigned short i) : __x(__rgdev_f2h((float)i, 0)) {}
    __host__ __device__ __half(long long i) : __x(__rgdev_f2h((float)i, 0)) {}
    __host__ __device__ operator float() const { return __rgdev_h2f(__x); }
    __host__ __device__ operator __half_raw() const {
        __half_raw r;
        r.x = __x;
        return r;
    }
    __host__ __device__ __half &operator=(float f) {
        __x = __rgdev_f2h(f, 0);
        return *this;
    }
};

struct __align__(4) __half2 {
    __half x, y;
    __half2() = default;
    __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
};

typedef __half half;
typedef __half2 half2;

__RGDEV_HF__ __half __rgdev_hbits(unsigned short b) {
    __half_raw r;
    r.x = b;
    return __half(r);
}

/* Conversions. */
__RGDEV_HF__ __half __float2half(float f) { return __rgdev_hbits(__rgdev_f2h(f, 0)); }
__RGDEV_HF__ __half __float2half_rn(float f) { return __rgdev_hbits(__rgdev_f2h(f, 0)); }
__RGDEV_HF__ __half __float2half_rz(float f) { return __rgdev_hbits(__rgdev_f2h(f, 1)); }
__RGDEV_HF__ __half __float2half_rd(float f) { return __rgdev_hbits(__rgdev_f2h(f, 2)); }
__RGDEV_HF__ __half __float2half_ru(float f) { return __rgdev_hbits(__rgdev_f2h(f, 3)); }
__RGDEV_HF__ __half __double2half(double d) { return __float2half((float)d); }
__RGDEV_HF__ float __half2float(__half h) { return __rgdev_h2f(h.__x); }
__RGDEV_HF__ __half __int2half_rn(int i) { return __float2half((float)i); }
__RGDEV_HF__ int __half2int_rz(__half h) { return (int)__half2float(h); }
__RGDEV_HF__ short __half_as_short(__half h) { return (short)h.__x; }
__RGDEV_HF__ unsigned short __half_as_ushort(__half h) { return h.__x; }
__RGDEV_HF__ __half __short_as_half(short s) { return __rgdev_hbits((unsigned short)s); }
__RGDEV_HF__ __half __ushort_as_half(unsigned short s) { return __rgdev_hbits(s); }
__RGDEV_HF__ __half2 __float2half2_rn(float f) { return __half2(__float2half(f), __float2half(f)); }
__RGDEV_HF__ __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
__RGDEV_HF__ __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__RGDEV_HF__ __half2 __half2half2(__half a) { return __half2(a, a); }
__RGDEV_HF__ float __low2float(__half2 h) { return __half2float(h.x); }
__RGDEV_HF__ float __high2float(__half2 h) { return __half2float(h.y); }
__RGDEV_HF__ __half __low2half(__half2 h) { return h.x; }
__RGDEV_HF__ __half __high2half(__half2 h) { return h.y; }
__RGDEV_HF__ float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
__RGDEV_HF__ __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }

/* Arithmetic, rounded once to half. */
#define __RGDEV_H2(op, a, b) __float2half(__half2float(a) op __half2float(b))
__RGDEV_HF__ __half __hadd(__half a, __half b) { return __RGDEV_H2(+, a, b); }
__RGDEV_HF__ __half __hsub(__half a, __half b) { return __RGDEV_H2(-, a, b); }
__RGDEV_HF__ __half __hmul(__half a, __half b) { return __RGDEV_H2(*, a, b); }
__RGDEV_HF__ __half __hdiv(__half a, __half b) { return __RGDEV_H2(/, a, b); }
#undef __RGDEV_H2
__RGDEV_HF__ __half __hfma(__half a, __half b, __half c) {
    return __float2half(__builtin_fmaf(__half2float(a), __half2float(b), __half2float(c)));
}
__RGDEV_HF__ __half __hneg(__half a) { return __rgdev_hbits((unsigned short)(a.__x ^ 0x8000u)); }
__RGDEV_HF__ __half __habs(__half a) { return __rgdev_hbits((unsigned short)(a.__x & 0x7fffu)); }
__RGDEV_HF__ __half __hmax(__half a, __half b) { return __half2float(a) >= __half2float(b) ? a : b; }
__RGDEV_HF__ __half __hmin(__half a, __half b) { return __half2float(a) <= __half2float(b) ? a : b; }
__RGDEV_HF__ __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
__RGDEV_HF__ __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
__RGDEV_HF__ __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
__RGDEV_HF__ __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
__RGDEV_HF__ __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__RGDEV_HF__ __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }

/* Comparisons (ordered; the `u` forms are true for NaN). */
__RGDEV_HF__ bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
__RGDEV_HF__ bool __hne(__half a, __half b) {
    return __half2float(a) != __half2float(b) && (a.__x & 0x7fffu) <= 0x7c00u && (b.__x & 0x7fffu) <= 0x7c00u;
}
__RGDEV_HF__ bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
__RGDEV_HF__ bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
__RGDEV_HF__ bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
__RGDEV_HF__ bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
__RGDEV_HF__ bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__RGDEV_HF__ int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? (a.__x & 0x8000u ? -1 : 1) : 0; }

/* Operators (CUDA's header gives them with __CUDA_NO_HALF_OPERATORS__ undefined). */
#define __RGDEV_HOP(op, f)                                                                             \
    __RGDEV_HF__ __half operator op(const __half &a, const __half &b) { return f(a, b); }             \
    __RGDEV_HF__ __half &operator op##=(__half & a, const __half &b) {                                 \
        a = f(a, b);                                                                                   \
        return a;                                                                                      \
    }
__RGDEV_HOP(+, __hadd)
__RGDEV_HOP(-, __hsub)
__RGDEV_HOP(*, __hmul)
__RGDEV_HOP(/, __hdiv)
#undef __RGDEV_HOP
__RGDEV_HF__ __half operator-(const __half &a) { return __hneg(a); }
__RGDEV_HF__ bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
__RGDEV_HF__ bool operator!=(const __half &a, const __half &b) { return !__heq(a, b); }
__RGDEV_HF__ bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
__RGDEV_HF__ bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
__RGDEV_HF__ bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
__RGDEV_HF__ bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }
__RGDEV_HF__ __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
__RGDEV_HF__ __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
__RGDEV_HF__ __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
__RGDEV_HF__ __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }

/* Math: the single-precision function, rounded to half. */
#if defined(__CUDA__)
#define __RGDEV_HMATH(name, f)                                                                         \
    static __inline__ __device__ __half name(__half a) { return __float2half(f(__half2float(a))); }
__RGDEV_HMATH(hsqrt, sqrtf)
__RGDEV_HMATH(hrsqrt, rsqrtf)
__RGDEV_HMATH(hexp, expf)
__RGDEV_HMATH(hexp2, exp2f)
__RGDEV_HMATH(hexp10, exp10f)
__RGDEV_HMATH(hlog, logf)
__RGDEV_HMATH(hlog2, log2f)
__RGDEV_HMATH(hlog10, log10f)
__RGDEV_HMATH(hsin, sinf)
__RGDEV_HMATH(hcos, cosf)
__RGDEV_HMATH(hfloor, floorf)
__RGDEV_HMATH(hceil, ceilf)
__RGDEV_HMATH(htrunc, truncf)
__RGDEV_HMATH(hrint, rintf)
#undef __RGDEV_HMATH
static __inline__ __device__ __half hrcp(__half a) { return __float2half(1.0f / __half2float(a)); }
static __inline__ __device__ __half atomicAdd(__half *p, __half v) {
    /* A 16-bit add inside the aligned word that holds it. */
    unsigned int *w = (unsigned int *)((unsigned long long)p & ~3ull);
    unsigned int shift = ((unsigned long long)p & 2) * 8;
    unsigned int old = *w, assumed;
    do {
        assumed = old;
        __half cur = __rgdev_hbits((unsigned short)(assumed >> shift));
        unsigned int next = (assumed & ~(0xffffu << shift)) | ((unsigned int)__hadd(cur, v).__x << shift);
        old = atomicCAS(w, assumed, next);
    } while (old != assumed);
    return __rgdev_hbits((unsigned short)(old >> shift));
}
#endif /* __CUDA__ */

#endif /* __cplusplus */

#undef __RGDEV_HF__

#endif /* __CUDA_FP16_H__ */
