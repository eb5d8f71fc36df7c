/*
 * The operations __half (cuda_fp16.h) and __nv_bfloat16 (cuda_bf16.h) share, written once
 * for rgdev and included by each of those headers with:
 *   __RGDEV_T, __RGDEV_T2    the scalar and the pair type (fields __x; x and y),
 *   __RGDEV_RAW              the scalar's raw type (field x),
 *   __RGDEV_F                the format: 0 binary16, 1 bfloat16 (see cuda_fp16.h),
 *   __RGDEV_P, __RGDEV_P2    PTX's type names ("f16", "f16x2" or "bf16", "bf16x2").
 * On the device each primitive is one PTX instruction (a pair is one instruction too); on
 * the host it is the exact arithmetic of cuda_fp16.h rounded once. Not a public header.
 */

#define __RGDEV_MK(b) __RGDEV_T(__RGDEV_RAW{(unsigned short)(b)})
#define __RGDEV_PACK(v) ((unsigned int)(v).x.__x | (unsigned int)(v).y.__x << 16)
#define __RGDEV_UNPACK(u) __RGDEV_T2(__RGDEV_MK((u) & 0xffffu), __RGDEV_MK((u) >> 16))

/* -------- Primitives: __rgdev_<op>(a, b) for the scalar and the pair. -------- */
#if defined(__CUDA_ARCH__)
#define __RGDEV_BIN(name, ins, hostop)                                                                 \
    static __inline__ __device__ __RGDEV_T name(const __RGDEV_T a, const __RGDEV_T b) {               \
        unsigned short r;                                                                              \
        __asm__(ins "." __RGDEV_P " %0, %1, %2;" : "=h"(r) : "h"(a.__x), "h"(b.__x));                  \
        return __RGDEV_MK(r);                                                                          \
    }                                                                                                  \
    static __inline__ __device__ __RGDEV_T2 name(const __RGDEV_T2 a, const __RGDEV_T2 b) {            \
        unsigned int r;                                                                                \
        __asm__(ins "." __RGDEV_P2 " %0, %1, %2;" : "=r"(r) : "r"(__RGDEV_PACK(a)), "r"(__RGDEV_PACK(b))); \
        return __RGDEV_UNPACK(r);                                                                      \
    }
#define __RGDEV_UN(name, ins, hostmask, hostxor)                                                       \
    static __inline__ __device__ __RGDEV_T name(const __RGDEV_T a) {                                   \
        unsigned short r;                                                                              \
        __asm__(ins "." __RGDEV_P " %0, %1;" : "=h"(r) : "h"(a.__x));                                  \
        return __RGDEV_MK(r);                                                                          \
    }                                                                                                  \
    static __inline__ __device__ __RGDEV_T2 name(const __RGDEV_T2 a) {                                 \
        unsigned int r;                                                                                \
        __asm__(ins "." __RGDEV_P2 " %0, %1;" : "=r"(r) : "r"(__RGDEV_PACK(a)));                       \
        return __RGDEV_UNPACK(r);                                                                      \
    }
#define __RGDEV_CMP(name, cmp, host)                                                                   \
    static __inline__ __device__ bool name(const __RGDEV_T a, const __RGDEV_T b) {                     \
        unsigned int r;                                                                                \
        __asm__("set." cmp ".u32." __RGDEV_P " %0, %1, %2;" : "=r"(r) : "h"(a.__x), "h"(b.__x));       \
        return r != 0;                                                                                 \
    }
static __inline__ __device__ __RGDEV_T __rgdev_fma(const __RGDEV_T a, const __RGDEV_T b, const __RGDEV_T c) {
    unsigned short r;
    __asm__("fma.rn." __RGDEV_P " %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __RGDEV_MK(r);
}
static __inline__ __device__ __RGDEV_T2 __rgdev_fma(const __RGDEV_T2 a, const __RGDEV_T2 b, const __RGDEV_T2 c) {
    unsigned int r;
    __asm__("fma.rn." __RGDEV_P2 " %0, %1, %2, %3;"
            : "=r"(r)
            : "r"(__RGDEV_PACK(a)), "r"(__RGDEV_PACK(b)), "r"(__RGDEV_PACK(c)));
    return __RGDEV_UNPACK(r);
}
/* No PTX division of halves: the single-precision quotient (correctly rounded, div.rn) is
   rounded to the format, which is exact (24 bits are more than twice 11 + 2). */
static __inline__ __device__ __RGDEV_T __rgdev_div(const __RGDEV_T a, const __RGDEV_T b) {
    float q, x = __rgdev_b2f(a.__x, __RGDEV_F), y = __rgdev_b2f(b.__x, __RGDEV_F);
    __asm__("div.rn.f32 %0, %1, %2;" : "=f"(q) : "f"(x), "f"(y));
    return __RGDEV_MK(__rgdev_f2b(q, __RGDEV_F, 0));
}
#else
#define __RGDEV_BIN(name, ins, hostop)                                                                 \
    static __inline__ __host__ __device__ __RGDEV_T name(const __RGDEV_T a, const __RGDEV_T b) {                 \
        return __RGDEV_MK(hostop(a.__x, b.__x));                                                       \
    }                                                                                                  \
    static __inline__ __host__ __device__ __RGDEV_T2 name(const __RGDEV_T2 a, const __RGDEV_T2 b) {              \
        return __RGDEV_T2(name(a.x, b.x), name(a.y, b.y));                                             \
    }
#define __RGDEV_UN(name, ins, hostmask, hostxor)                                                       \
    static __inline__ __host__ __device__ __RGDEV_T name(const __RGDEV_T a) {                                     \
        return __RGDEV_MK((a.__x & hostmask) ^ hostxor);                                               \
    }                                                                                                  \
    static __inline__ __host__ __device__ __RGDEV_T2 name(const __RGDEV_T2 a) { return __RGDEV_T2(name(a.x), name(a.y)); }
#define __RGDEV_CMP(name, cmp, host)                                                                   \
    static __inline__ __host__ __device__ bool name(const __RGDEV_T a, const __RGDEV_T b) {                       \
        double x = __rgdev_16to64(a.__x, __RGDEV_F), y = __rgdev_16to64(b.__x, __RGDEV_F);             \
        int un = x != x || y != y;                                                                     \
        return host;                                                                                   \
    }
#define __RGDEV_HOST_ADD(a, b) __rgdev_arith16(0, a, b, 0, __RGDEV_F)
#define __RGDEV_HOST_SUB(a, b) __rgdev_arith16(1, a, b, 0, __RGDEV_F)
#define __RGDEV_HOST_MUL(a, b) __rgdev_arith16(2, a, b, 0, __RGDEV_F)
#define __RGDEV_HOST_MIN(a, b) __rgdev_minmax16(0, 0, a, b, __RGDEV_F)
#define __RGDEV_HOST_MAX(a, b) __rgdev_minmax16(1, 0, a, b, __RGDEV_F)
#define __RGDEV_HOST_MIN_NAN(a, b) __rgdev_minmax16(0, 1, a, b, __RGDEV_F)
#define __RGDEV_HOST_MAX_NAN(a, b) __rgdev_minmax16(1, 1, a, b, __RGDEV_F)
static __inline__ __host__ __device__ __RGDEV_T __rgdev_fma(const __RGDEV_T a, const __RGDEV_T b, const __RGDEV_T c) {
    return __RGDEV_MK(__rgdev_arith16(4, a.__x, b.__x, c.__x, __RGDEV_F));
}
static __inline__ __host__ __device__ __RGDEV_T2 __rgdev_fma(const __RGDEV_T2 a, const __RGDEV_T2 b, const __RGDEV_T2 c) {
    return __RGDEV_T2(__rgdev_fma(a.x, b.x, c.x), __rgdev_fma(a.y, b.y, c.y));
}
static __inline__ __host__ __device__ __RGDEV_T __rgdev_div(const __RGDEV_T a, const __RGDEV_T b) {
    return __RGDEV_MK(__rgdev_arith16(3, a.__x, b.__x, 0, __RGDEV_F));
}
#endif
__RGDEV_BIN(__rgdev_add, "add.rn", __RGDEV_HOST_ADD)
__RGDEV_BIN(__rgdev_sub, "sub.rn", __RGDEV_HOST_SUB)
__RGDEV_BIN(__rgdev_mul, "mul.rn", __RGDEV_HOST_MUL)
__RGDEV_BIN(__rgdev_min, "min", __RGDEV_HOST_MIN)
__RGDEV_BIN(__rgdev_max, "max", __RGDEV_HOST_MAX)
__RGDEV_BIN(__rgdev_min_nan, "min.NaN", __RGDEV_HOST_MIN_NAN)
__RGDEV_BIN(__rgdev_max_nan, "max.NaN", __RGDEV_HOST_MAX_NAN)
__RGDEV_UN(__rgdev_neg, "neg", 0xffffu, 0x8000u)
__RGDEV_UN(__rgdev_abs, "abs", 0x7fffu, 0u)
__RGDEV_CMP(__rgdev_eq, "eq", !un && x == y)
__RGDEV_CMP(__rgdev_ne, "ne", !un && x != y)
__RGDEV_CMP(__rgdev_lt, "lt", !un && x < y)
__RGDEV_CMP(__rgdev_le, "le", !un && x <= y)
__RGDEV_CMP(__rgdev_gt, "gt", !un && x > y)
__RGDEV_CMP(__rgdev_ge, "ge", !un && x >= y)
__RGDEV_CMP(__rgdev_equ, "equ", un || x == y)
__RGDEV_CMP(__rgdev_neu, "neu", un || x != y)
__RGDEV_CMP(__rgdev_ltu, "ltu", un || x < y)
__RGDEV_CMP(__rgdev_leu, "leu", un || x <= y)
__RGDEV_CMP(__rgdev_gtu, "gtu", un || x > y)
__RGDEV_CMP(__rgdev_geu, "geu", un || x >= y)
#undef __RGDEV_BIN
#undef __RGDEV_UN
#undef __RGDEV_CMP

/* -------- Conversions to and from doubles and integers (mode: 0 rn, 1 rz, 2 rd, 3 ru). -------- */
#if defined(__CUDA_ARCH__)
#define __RGDEV_MODES(ins, out, in)                                                                    \
    switch (mode) {                                                                                    \
    case 1: __asm__(ins(rz) : out : in); break;                                                        \
    case 2: __asm__(ins(rm) : out : in); break;                                                        \
    case 3: __asm__(ins(rp) : out : in); break;                                                        \
    default: __asm__(ins(rn) : out : in); break;                                                       \
    }
#define __RGDEV_FROM_F64(r) "cvt." #r "." __RGDEV_P ".f64 %0, %1;"
static __inline__ __device__ __RGDEV_T __rgdev_from_f64(__RGDEV_T *, double v, int mode) {
    unsigned short r;
    __RGDEV_MODES(__RGDEV_FROM_F64, "=h"(r), "d"(v))
    return __RGDEV_MK(r);
}
#undef __RGDEV_FROM_F64
#define __RGDEV_INT(I, ity, c, W)                                                                      \
    static __inline__ __device__ __RGDEV_T __rgdev_from_int(__RGDEV_T *, I v, int mode) {              \
        unsigned short r;                                                                              \
        W w = (W)v;                                                                                    \
        switch (mode) {                                                                                \
        case 1: __asm__("cvt.rz." __RGDEV_P "." ity " %0, %1;" : "=h"(r) : c(w)); break;              \
        case 2: __asm__("cvt.rm." __RGDEV_P "." ity " %0, %1;" : "=h"(r) : c(w)); break;              \
        case 3: __asm__("cvt.rp." __RGDEV_P "." ity " %0, %1;" : "=h"(r) : c(w)); break;              \
        default: __asm__("cvt.rn." __RGDEV_P "." ity " %0, %1;" : "=h"(r) : c(w)); break;             \
        }                                                                                              \
        return __RGDEV_MK(r);                                                                          \
    }                                                                                                  \
    static __inline__ __device__ I __rgdev_to_int(I *, __RGDEV_T h, int mode) {                       \
        W r;                                                                                           \
        switch (mode) {                                                                                \
        case 1: __asm__("cvt.rzi." ity "." __RGDEV_P " %0, %1;" : "=" c(r) : "h"(h.__x)); break;       \
        case 2: __asm__("cvt.rmi." ity "." __RGDEV_P " %0, %1;" : "=" c(r) : "h"(h.__x)); break;       \
        case 3: __asm__("cvt.rpi." ity "." __RGDEV_P " %0, %1;" : "=" c(r) : "h"(h.__x)); break;       \
        default: __asm__("cvt.rni." ity "." __RGDEV_P " %0, %1;" : "=" c(r) : "h"(h.__x)); break;      \
        }                                                                                              \
        return (I)r;                                                                                   \
    }
#else
static __inline__ __host__ __device__ __RGDEV_T __rgdev_from_f64(__RGDEV_T *, double v, int mode) {
    return __RGDEV_MK(__rgdev_round16(v, 0, __RGDEV_F, mode));
}
#define __RGDEV_INT(I, ity, c, W)                                                                      \
    static __inline__ __host__ __device__ __RGDEV_T __rgdev_from_int(__RGDEV_T *, I v, int mode) {                \
        int rest = 0;                                                                                  \
        double d = (I)-1 < 0 ? __rgdev_ll2d((long long)v, &rest) : __rgdev_ull2d((unsigned long long)v, &rest); \
        return __RGDEV_MK(__rgdev_round16(d, rest, __RGDEV_F, mode));                                  \
    }                                                                                                  \
    static __inline__ __host__ __device__ I __rgdev_to_int(I *, __RGDEV_T h, int mode) {                         \
        double lo = (I)-1 < 0 ? -__builtin_ldexp(1.0, 8 * sizeof(I) - 1) : 0.0;                       \
        double hi = __builtin_ldexp(1.0, 8 * sizeof(I) - ((I)-1 < 0)) - 1.0;                           \
        double v = __rgdev_to_range(__rgdev_16to64(h.__x, __RGDEV_F), mode, lo, hi);                  \
        if (v >= hi) return (I)-1 < 0 ? (I)(((unsigned long long)1 << (8 * sizeof(I) - 1)) - 1) : (I)-1; \
        return (I)v;                                                                                   \
    }
#endif
__RGDEV_INT(signed char, "s8", "h", short)
__RGDEV_INT(unsigned char, "u8", "h", unsigned short)
__RGDEV_INT(short, "s16", "h", short)
__RGDEV_INT(unsigned short, "u16", "h", unsigned short)
__RGDEV_INT(int, "s32", "r", int)
__RGDEV_INT(unsigned int, "u32", "r", unsigned int)
__RGDEV_INT(long long, "s64", "l", long long)
__RGDEV_INT(unsigned long long, "u64", "l", unsigned long long)
#undef __RGDEV_INT
#undef __RGDEV_MODES
/* The type's conversions to integers: toward zero, as __half2int_rz and its kin. */
#define __RGDEV_TO(I, J)                                                                               \
    __host__ __device__ inline __RGDEV_T::operator I() const { return (I)__rgdev_to_int((J *)0, *this, 1); }
__RGDEV_TO(signed char, signed char)
__RGDEV_TO(unsigned char, unsigned char)
__RGDEV_TO(short, short)
__RGDEV_TO(unsigned short, unsigned short)
__RGDEV_TO(int, int)
__RGDEV_TO(unsigned int, unsigned int)
__RGDEV_TO(long, long long)
__RGDEV_TO(unsigned long, unsigned long long)
__RGDEV_TO(long long, long long)
__RGDEV_TO(unsigned long long, unsigned long long)
#undef __RGDEV_TO
__host__ __device__ inline __RGDEV_T::operator char() const {
    return (char)-1 < 0 ? (char)__rgdev_to_int((signed char *)0, *this, 1)
                        : (char)__rgdev_to_int((unsigned char *)0, *this, 1);
}

/* -------- CUDA's functions, the same names for __half and __nv_bfloat16. -------- */
#define __RGDEV_FN static __inline__ __host__ __device__
#define __RGDEV_ONE __RGDEV_MK(__rgdev_f2b(1.0f, __RGDEV_F, 0))
#define __RGDEV_ZERO __RGDEV_MK(0)
__RGDEV_FN __RGDEV_T __rgdev_sat(const __RGDEV_T a) { return __rgdev_min(__rgdev_max(a, __RGDEV_ZERO), __RGDEV_ONE); }
__RGDEV_FN __RGDEV_T2 __rgdev_sat(const __RGDEV_T2 a) {
    return __rgdev_min(__rgdev_max(a, __RGDEV_T2(__RGDEV_ZERO, __RGDEV_ZERO)), __RGDEV_T2(__RGDEV_ONE, __RGDEV_ONE));
}
/* .relu: a negative result becomes +0, NaN stays NaN (max.NaN with +0). */
__RGDEV_FN __RGDEV_T __rgdev_relu(const __RGDEV_T a) { return __rgdev_max_nan(a, __RGDEV_ZERO); }
__RGDEV_FN __RGDEV_T2 __rgdev_relu(const __RGDEV_T2 a) { return __rgdev_max_nan(a, __RGDEV_T2(__RGDEV_ZERO, __RGDEV_ZERO)); }

__RGDEV_FN __RGDEV_T __hadd(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_add(a, b); }
__RGDEV_FN __RGDEV_T __hsub(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_sub(a, b); }
__RGDEV_FN __RGDEV_T __hmul(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_mul(a, b); }
__RGDEV_FN __RGDEV_T __hadd_rn(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_add(a, b); }
__RGDEV_FN __RGDEV_T __hsub_rn(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_sub(a, b); }
__RGDEV_FN __RGDEV_T __hmul_rn(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_mul(a, b); }
__RGDEV_FN __RGDEV_T __hadd_sat(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_sat(__rgdev_add(a, b)); }
__RGDEV_FN __RGDEV_T __hsub_sat(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_sat(__rgdev_sub(a, b)); }
__RGDEV_FN __RGDEV_T __hmul_sat(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_sat(__rgdev_mul(a, b)); }
__RGDEV_FN __RGDEV_T __hdiv(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_div(a, b); }
__RGDEV_FN __RGDEV_T __hfma(const __RGDEV_T a, const __RGDEV_T b, const __RGDEV_T c) { return __rgdev_fma(a, b, c); }
__RGDEV_FN __RGDEV_T __hfma_sat(const __RGDEV_T a, const __RGDEV_T b, const __RGDEV_T c) {
    return __rgdev_sat(__rgdev_fma(a, b, c));
}
__RGDEV_FN __RGDEV_T __hfma_relu(const __RGDEV_T a, const __RGDEV_T b, const __RGDEV_T c) {
    return __rgdev_relu(__rgdev_fma(a, b, c));
}
__RGDEV_FN __RGDEV_T __hneg(const __RGDEV_T a) { return __rgdev_neg(a); }
__RGDEV_FN __RGDEV_T __habs(const __RGDEV_T a) { return __rgdev_abs(a); }
__RGDEV_FN __RGDEV_T __hmin(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_min(a, b); }
__RGDEV_FN __RGDEV_T __hmax(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_max(a, b); }
__RGDEV_FN __RGDEV_T __hmin_nan(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_min_nan(a, b); }
__RGDEV_FN __RGDEV_T __hmax_nan(const __RGDEV_T a, const __RGDEV_T b) { return __rgdev_max_nan(a, b); }

__RGDEV_FN __RGDEV_T2 __hadd2(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_add(a, b); }
__RGDEV_FN __RGDEV_T2 __hsub2(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_sub(a, b); }
__RGDEV_FN __RGDEV_T2 __hmul2(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_mul(a, b); }
__RGDEV_FN __RGDEV_T2 __hadd2_rn(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_add(a, b); }
__RGDEV_FN __RGDEV_T2 __hsub2_rn(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_sub(a, b); }
__RGDEV_FN __RGDEV_T2 __hmul2_rn(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_mul(a, b); }
__RGDEV_FN __RGDEV_T2 __hadd2_sat(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_sat(__rgdev_add(a, b)); }
__RGDEV_FN __RGDEV_T2 __hsub2_sat(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_sat(__rgdev_sub(a, b)); }
__RGDEV_FN __RGDEV_T2 __hmul2_sat(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_sat(__rgdev_mul(a, b)); }
__RGDEV_FN __RGDEV_T2 __h2div(const __RGDEV_T2 a, const __RGDEV_T2 b) {
    return __RGDEV_T2(__rgdev_div(a.x, b.x), __rgdev_div(a.y, b.y));
}
__RGDEV_FN __RGDEV_T2 __hfma2(const __RGDEV_T2 a, const __RGDEV_T2 b, const __RGDEV_T2 c) { return __rgdev_fma(a, b, c); }
__RGDEV_FN __RGDEV_T2 __hfma2_sat(const __RGDEV_T2 a, const __RGDEV_T2 b, const __RGDEV_T2 c) {
    return __rgdev_sat(__rgdev_fma(a, b, c));
}
__RGDEV_FN __RGDEV_T2 __hfma2_relu(const __RGDEV_T2 a, const __RGDEV_T2 b, const __RGDEV_T2 c) {
    return __rgdev_relu(__rgdev_fma(a, b, c));
}
/* Complex multiply-add, (a.x + i a.y)(b.x + i b.y) + (c.x + i c.y), as four fused
   multiply-adds rounded to the format. */
__RGDEV_FN __RGDEV_T2 __hcmadd(const __RGDEV_T2 a, const __RGDEV_T2 b, const __RGDEV_T2 c) {
    __RGDEV_T re = __rgdev_fma(__rgdev_neg(a.y), b.y, __rgdev_fma(a.x, b.x, c.x));
    __RGDEV_T im = __rgdev_fma(a.y, b.x, __rgdev_fma(a.x, b.y, c.y));
    return __RGDEV_T2(re, im);
}
__RGDEV_FN __RGDEV_T2 __hneg2(const __RGDEV_T2 a) { return __rgdev_neg(a); }
__RGDEV_FN __RGDEV_T2 __habs2(const __RGDEV_T2 a) { return __rgdev_abs(a); }
__RGDEV_FN __RGDEV_T2 __hmin2(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_min(a, b); }
__RGDEV_FN __RGDEV_T2 __hmax2(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_max(a, b); }
__RGDEV_FN __RGDEV_T2 __hmin2_nan(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_min_nan(a, b); }
__RGDEV_FN __RGDEV_T2 __hmax2_nan(const __RGDEV_T2 a, const __RGDEV_T2 b) { return __rgdev_max_nan(a, b); }

/* Comparisons: scalar (bool), pair (1.0 or 0.0 per half), _mask (0xffff or 0 per half),
   __hb*2 (both halves true). */
#define __RGDEV_COMPARE(name, prim)                                                                    \
    __RGDEV_FN bool __h##name(const __RGDEV_T a, const __RGDEV_T b) { return prim(a, b); }            \
    __RGDEV_FN __RGDEV_T2 __h##name##2(const __RGDEV_T2 a, const __RGDEV_T2 b) {                      \
        return __RGDEV_T2(prim(a.x, b.x) ? __RGDEV_ONE : __RGDEV_ZERO, prim(a.y, b.y) ? __RGDEV_ONE : __RGDEV_ZERO); \
    }                                                                                                  \
    __RGDEV_FN unsigned __h##name##2_mask(const __RGDEV_T2 a, const __RGDEV_T2 b) {                   \
        return (prim(a.x, b.x) ? 0xffffu : 0u) | (prim(a.y, b.y) ? 0xffff0000u : 0u);                  \
    }                                                                                                  \
    __RGDEV_FN bool __hb##name##2(const __RGDEV_T2 a, const __RGDEV_T2 b) { return prim(a.x, b.x) && prim(a.y, b.y); }
__RGDEV_COMPARE(eq, __rgdev_eq)
__RGDEV_COMPARE(ne, __rgdev_ne)
__RGDEV_COMPARE(lt, __rgdev_lt)
__RGDEV_COMPARE(le, __rgdev_le)
__RGDEV_COMPARE(gt, __rgdev_gt)
__RGDEV_COMPARE(ge, __rgdev_ge)
__RGDEV_COMPARE(equ, __rgdev_equ)
__RGDEV_COMPARE(neu, __rgdev_neu)
__RGDEV_COMPARE(ltu, __rgdev_ltu)
__RGDEV_COMPARE(leu, __rgdev_leu)
__RGDEV_COMPARE(gtu, __rgdev_gtu)
__RGDEV_COMPARE(geu, __rgdev_geu)
#undef __RGDEV_COMPARE
__RGDEV_FN bool __hisnan(const __RGDEV_T a) { return __rgdev_neu(a, a); }
__RGDEV_FN __RGDEV_T2 __hisnan2(const __RGDEV_T2 a) {
    return __RGDEV_T2(__hisnan(a.x) ? __RGDEV_ONE : __RGDEV_ZERO, __hisnan(a.y) ? __RGDEV_ONE : __RGDEV_ZERO);
}
__RGDEV_FN int __hisinf(const __RGDEV_T a) {
    unsigned short inf = __RGDEV_F ? 0x7f80u : 0x7c00u;
    return (a.__x & 0x7fffu) == inf ? ((a.__x & 0x8000u) ? -1 : 1) : 0;
}

/* Pairs apart and together. */
__RGDEV_FN float __low2float(const __RGDEV_T2 a) { return __rgdev_b2f(a.x.__x, __RGDEV_F); }
__RGDEV_FN float __high2float(const __RGDEV_T2 a) { return __rgdev_b2f(a.y.__x, __RGDEV_F); }
__RGDEV_FN __RGDEV_T2 __lowhigh2highlow(const __RGDEV_T2 a) { return __RGDEV_T2(a.y, a.x); }

/* Math: the single-precision function, rounded to the format. */
#if defined(__CUDA__)
#define __RGDEV_MATH(name, f)                                                                          \
    static __inline__ __device__ __RGDEV_T h##name(const __RGDEV_T a) {                                \
        return __RGDEV_MK(__rgdev_f2b(f(__rgdev_b2f(a.__x, __RGDEV_F)), __RGDEV_F, 0));                \
    }                                                                                                  \
    static __inline__ __device__ __RGDEV_T2 h2##name(const __RGDEV_T2 a) {                             \
        return __RGDEV_T2(h##name(a.x), h##name(a.y));                                                 \
    }
__RGDEV_MATH(sqrt, sqrtf)
__RGDEV_MATH(rsqrt, rsqrtf)
__RGDEV_MATH(exp, expf)
__RGDEV_MATH(exp2, exp2f)
__RGDEV_MATH(exp10, exp10f)
__RGDEV_MATH(log, logf)
__RGDEV_MATH(log2, log2f)
__RGDEV_MATH(log10, log10f)
__RGDEV_MATH(sin, sinf)
__RGDEV_MATH(cos, cosf)
__RGDEV_MATH(tanh, tanhf)
__RGDEV_MATH(tanh_approx, tanhf)
__RGDEV_MATH(floor, floorf)
__RGDEV_MATH(ceil, ceilf)
__RGDEV_MATH(trunc, truncf)
__RGDEV_MATH(rint, rintf)
#undef __RGDEV_MATH
static __inline__ __device__ __RGDEV_T hrcp(const __RGDEV_T a) { return __rgdev_div(__RGDEV_ONE, a); }
static __inline__ __device__ __RGDEV_T2 h2rcp(const __RGDEV_T2 a) { return __RGDEV_T2(hrcp(a.x), hrcp(a.y)); }

/* Shuffles, cache-hinted loads and stores: the 16- or 32-bit pattern. */
#define __RGDEV_SHFL(name, L)                                                                          \
    static __inline__ __device__ __RGDEV_T name(unsigned m, __RGDEV_T v, L lane, int w = 32) {         \
        return __RGDEV_MK(name(m, (unsigned)v.__x, lane, w));                                          \
    }                                                                                                  \
    static __inline__ __device__ __RGDEV_T2 name(unsigned m, __RGDEV_T2 v, L lane, int w = 32) {       \
        unsigned u = name(m, __RGDEV_PACK(v), lane, w);                                                \
        return __RGDEV_UNPACK(u);                                                                      \
    }
__RGDEV_SHFL(__shfl_sync, int)
__RGDEV_SHFL(__shfl_up_sync, unsigned)
__RGDEV_SHFL(__shfl_down_sync, unsigned)
__RGDEV_SHFL(__shfl_xor_sync, int)
#undef __RGDEV_SHFL
#define __RGDEV_LD(name)                                                                               \
    static __inline__ __device__ __RGDEV_T name(const __RGDEV_T *p) {                                  \
        return __RGDEV_MK(name((const unsigned short *)p));                                            \
    }                                                                                                  \
    static __inline__ __device__ __RGDEV_T2 name(const __RGDEV_T2 *p) {                                \
        unsigned u = name((const unsigned int *)p);                                                    \
        return __RGDEV_UNPACK(u);                                                                      \
    }
#define __RGDEV_ST(name)                                                                               \
    static __inline__ __device__ void name(__RGDEV_T *p, __RGDEV_T v) { name((unsigned short *)p, v.__x); } \
    static __inline__ __device__ void name(__RGDEV_T2 *p, __RGDEV_T2 v) { name((unsigned int *)p, __RGDEV_PACK(v)); }
__RGDEV_LD(__ldg)
__RGDEV_LD(__ldca)
__RGDEV_LD(__ldcg)
__RGDEV_LD(__ldcs)
__RGDEV_LD(__ldlu)
__RGDEV_LD(__ldcv)
__RGDEV_ST(__stwb)
__RGDEV_ST(__stcg)
__RGDEV_ST(__stcs)
__RGDEV_ST(__stwt)
#undef __RGDEV_LD
#undef __RGDEV_ST

/* atomicAdd: PTX atom.add.noftz of the type. */
static __inline__ __device__ __RGDEV_T atomicAdd(__RGDEV_T *p, const __RGDEV_T v) {
    unsigned short r;
    __asm__ __volatile__("atom.add.noftz." __RGDEV_P " %0, [%1], %2;" : "=h"(r) : "l"(p), "h"(v.__x) : "memory");
    return __RGDEV_MK(r);
}
static __inline__ __device__ __RGDEV_T2 atomicAdd(__RGDEV_T2 *p, const __RGDEV_T2 v) {
    unsigned r;
    __asm__ __volatile__("atom.add.noftz." __RGDEV_P2 " %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(__RGDEV_PACK(v)) : "memory");
    return __RGDEV_UNPACK(r);
}
#endif /* __CUDA__ */

/* C++ operators (CUDA defines them unless __CUDA_NO_HALF_OPERATORS__). */
#define __RGDEV_OPS(T, add, sub, mul, div)                                                             \
    __RGDEV_FN T operator+(const T &a, const T &b) { return add(a, b); }                               \
    __RGDEV_FN T operator-(const T &a, const T &b) { return sub(a, b); }                               \
    __RGDEV_FN T operator*(const T &a, const T &b) { return mul(a, b); }                               \
    __RGDEV_FN T operator/(const T &a, const T &b) { return div(a, b); }                               \
    __RGDEV_FN T &operator+=(T &a, const T &b) { return a = add(a, b); }                               \
    __RGDEV_FN T &operator-=(T &a, const T &b) { return a = sub(a, b); }                               \
    __RGDEV_FN T &operator*=(T &a, const T &b) { return a = mul(a, b); }                               \
    __RGDEV_FN T &operator/=(T &a, const T &b) { return a = div(a, b); }                               \
    __RGDEV_FN T operator+(const T &a) { return a; }                                                   \
    __RGDEV_FN T operator-(const T &a) { return __rgdev_neg(a); }
__RGDEV_OPS(__RGDEV_T, __hadd, __hsub, __hmul, __hdiv)
__RGDEV_OPS(__RGDEV_T2, __hadd2, __hsub2, __hmul2, __h2div)
#undef __RGDEV_OPS
__RGDEV_FN __RGDEV_T &operator++(__RGDEV_T &a) { return a = __hadd(a, __RGDEV_ONE); }
__RGDEV_FN __RGDEV_T &operator--(__RGDEV_T &a) { return a = __hsub(a, __RGDEV_ONE); }
__RGDEV_FN __RGDEV_T operator++(__RGDEV_T &a, int) {
    __RGDEV_T old = a;
    a = __hadd(a, __RGDEV_ONE);
    return old;
}
__RGDEV_FN __RGDEV_T operator--(__RGDEV_T &a, int) {
    __RGDEV_T old = a;
    a = __hsub(a, __RGDEV_ONE);
    return old;
}
__RGDEV_FN __RGDEV_T2 &operator++(__RGDEV_T2 &a) { return a = __hadd2(a, __RGDEV_T2(__RGDEV_ONE, __RGDEV_ONE)); }
__RGDEV_FN __RGDEV_T2 &operator--(__RGDEV_T2 &a) { return a = __hsub2(a, __RGDEV_T2(__RGDEV_ONE, __RGDEV_ONE)); }
__RGDEV_FN __RGDEV_T2 operator++(__RGDEV_T2 &a, int) {
    __RGDEV_T2 old = a;
    ++a;
    return old;
}
__RGDEV_FN __RGDEV_T2 operator--(__RGDEV_T2 &a, int) {
    __RGDEV_T2 old = a;
    --a;
    return old;
}
__RGDEV_FN bool operator==(const __RGDEV_T &a, const __RGDEV_T &b) { return __heq(a, b); }
__RGDEV_FN bool operator!=(const __RGDEV_T &a, const __RGDEV_T &b) { return __hneu(a, b); }
__RGDEV_FN bool operator<(const __RGDEV_T &a, const __RGDEV_T &b) { return __hlt(a, b); }
__RGDEV_FN bool operator<=(const __RGDEV_T &a, const __RGDEV_T &b) { return __hle(a, b); }
__RGDEV_FN bool operator>(const __RGDEV_T &a, const __RGDEV_T &b) { return __hgt(a, b); }
__RGDEV_FN bool operator>=(const __RGDEV_T &a, const __RGDEV_T &b) { return __hge(a, b); }
__RGDEV_FN bool operator==(const __RGDEV_T2 &a, const __RGDEV_T2 &b) { return __hbeq2(a, b); }
__RGDEV_FN bool operator!=(const __RGDEV_T2 &a, const __RGDEV_T2 &b) { return __hbneu2(a, b); }
__RGDEV_FN bool operator<(const __RGDEV_T2 &a, const __RGDEV_T2 &b) { return __hblt2(a, b); }
__RGDEV_FN bool operator<=(const __RGDEV_T2 &a, const __RGDEV_T2 &b) { return __hble2(a, b); }
__RGDEV_FN bool operator>(const __RGDEV_T2 &a, const __RGDEV_T2 &b) { return __hbgt2(a, b); }
__RGDEV_FN bool operator>=(const __RGDEV_T2 &a, const __RGDEV_T2 &b) { return __hbge2(a, b); }

#undef __RGDEV_FN
#undef __RGDEV_ONE
#undef __RGDEV_ZERO
#undef __RGDEV_MK
#undef __RGDEV_PACK
#undef __RGDEV_UNPACK
#undef __RGDEV_T
#undef __RGDEV_T2
#undef __RGDEV_RAW
#undef __RGDEV_RAW2
#undef __RGDEV_EXTRA_CTORS
#undef __RGDEV_F
#undef __RGDEV_P
#undef __RGDEV_P2
