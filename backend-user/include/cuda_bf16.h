/*
 * cuda_bf16.h for rgdev: CUDA's bfloat16 (__nv_bfloat16, __nv_bfloat162: float's sign and
 * exponent with 7 fraction bits) for host and device code, with CUDA 12.9's names. The
 * operations it shares with __half (arithmetic, comparisons, min/max, math, shuffles,
 * loads and stores, atomicAdd, operators: the same overloaded names) come from
 * crt/rgdev_half_ops.h; on the device they are PTX's .bf16 and .bf16x2 instructions, on the
 * host exact arithmetic rounded once (see cuda_fp16.h, which this header includes, as
 * NVIDIA's does). Written for rgdev from CUDA's documented bfloat16 API; not NVIDIA's
 * header.
 */
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__
#define __CUDA_BF16_TYPES_EXIST__

#include "cuda_fp16.h"

typedef struct __align__(2) __nv_bfloat16_raw {
    unsigned short x;
} __nv_bfloat16_raw;
typedef struct __align__(4) __nv_bfloat162_raw {
    unsigned short x;
    unsigned short y;
} __nv_bfloat162_raw;

#if defined(__cplusplus)

#define __RGDEV_T __nv_bfloat16
#define __RGDEV_T2 __nv_bfloat162
#define __RGDEV_RAW __nv_bfloat16_raw
#define __RGDEV_RAW2 __nv_bfloat162_raw
#define __RGDEV_F 1
#define __RGDEV_P "bf16"
#define __RGDEV_P2 "bf16x2"
#define __RGDEV_EXTRA_CTORS                                                                            \
    __host__ __device__ __nv_bfloat16(const __half h) : __x(__rgdev_f2b(__rgdev_b2f(h.__x, 0), 1, 0)) {}
#define __RGDEV_MOVE_FROM 
#include "crt/rgdev_half_type.h"
#undef __RGDEV_MOVE_FROM
#include "crt/rgdev_half_ops.h"

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;


/* __half from __nv_bfloat16: the value (exact as a float) rounded once to nearest even. */
__host__ __device__ inline __half::__half(const __nv_bfloat16 f) : __x(__rgdev_f2b(__rgdev_b2f(f.__x, 1), 0, 0)) {}

#define __RGDEV_BF __RGDEV_HF__ __nv_bfloat16
__RGDEV_BF __float2bfloat16(const float f) { return __nv_bfloat16_raw{__rgdev_f2b(f, 1, 0)}; }
__RGDEV_BF __float2bfloat16_rn(const float f) { return __nv_bfloat16_raw{__rgdev_f2b(f, 1, 0)}; }
__RGDEV_BF __float2bfloat16_rz(const float f) { return __nv_bfloat16_raw{__rgdev_f2b(f, 1, 1)}; }
__RGDEV_BF __float2bfloat16_rd(const float f) { return __nv_bfloat16_raw{__rgdev_f2b(f, 1, 2)}; }
__RGDEV_BF __float2bfloat16_ru(const float f) { return __nv_bfloat16_raw{__rgdev_f2b(f, 1, 3)}; }
__RGDEV_BF __double2bfloat16(const double d) { return __rgdev_from_f64((__nv_bfloat16 *)0, d, 0); }
__RGDEV_HF__ float __bfloat162float(const __nv_bfloat16 h) { return __rgdev_b2f(h.__x, 1); }
__RGDEV_HF__ __nv_bfloat162 __float2bfloat162_rn(const float f) {
    return __nv_bfloat162(__float2bfloat16(f), __float2bfloat16(f));
}
__RGDEV_HF__ __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b) {
    return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
__RGDEV_HF__ __nv_bfloat162 __float22bfloat162_rn(const float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
__RGDEV_HF__ float2 __bfloat1622float2(const __nv_bfloat162 h) {
    return make_float2(__bfloat162float(h.x), __bfloat162float(h.y));
}
__RGDEV_HF__ short __bfloat16_as_short(const __nv_bfloat16 h) { return (short)h.__x; }
__RGDEV_HF__ unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h) { return h.__x; }
__RGDEV_BF __short_as_bfloat16(const short s) { return __nv_bfloat16_raw{(unsigned short)s}; }
__RGDEV_BF __ushort_as_bfloat16(const unsigned short s) { return __nv_bfloat16_raw{s}; }
__RGDEV_HF__ __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __nv_bfloat162(a, b);
}
__RGDEV_HF__ __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a) { return __nv_bfloat162(a, a); }
__RGDEV_BF __low2bfloat16(const __nv_bfloat162 h) { return h.x; }
__RGDEV_BF __high2bfloat16(const __nv_bfloat162 h) { return h.y; }
__RGDEV_HF__ __nv_bfloat162 __low2bfloat162(const __nv_bfloat162 h) { return __nv_bfloat162(h.x, h.x); }
__RGDEV_HF__ __nv_bfloat162 __high2bfloat162(const __nv_bfloat162 h) { return __nv_bfloat162(h.y, h.y); }
__RGDEV_HF__ __nv_bfloat162 __lows2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b) {
    return __nv_bfloat162(a.x, b.x);
}
__RGDEV_HF__ __nv_bfloat162 __highs2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b) {
    return __nv_bfloat162(a.y, b.y);
}
__RGDEV_HF__ __nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y) {
    return __nv_bfloat162(x, y);
}
#define __RGDEV_INT_CVT(I, name)                                                                       \
    __RGDEV_HF__ I __bfloat162##name##_rn(const __nv_bfloat16 h) { return __rgdev_to_int((I *)0, h, 0); } \
    __RGDEV_HF__ I __bfloat162##name##_rz(const __nv_bfloat16 h) { return __rgdev_to_int((I *)0, h, 1); } \
    __RGDEV_HF__ I __bfloat162##name##_rd(const __nv_bfloat16 h) { return __rgdev_to_int((I *)0, h, 2); } \
    __RGDEV_HF__ I __bfloat162##name##_ru(const __nv_bfloat16 h) { return __rgdev_to_int((I *)0, h, 3); } \
    __RGDEV_BF __##name##2bfloat16_rn(const I i) { return __rgdev_from_int((__nv_bfloat16 *)0, i, 0); }  \
    __RGDEV_BF __##name##2bfloat16_rz(const I i) { return __rgdev_from_int((__nv_bfloat16 *)0, i, 1); }  \
    __RGDEV_BF __##name##2bfloat16_rd(const I i) { return __rgdev_from_int((__nv_bfloat16 *)0, i, 2); }  \
    __RGDEV_BF __##name##2bfloat16_ru(const I i) { return __rgdev_from_int((__nv_bfloat16 *)0, i, 3); }
__RGDEV_INT_CVT(int, int)
__RGDEV_INT_CVT(unsigned int, uint)
__RGDEV_INT_CVT(short, short)
__RGDEV_INT_CVT(unsigned short, ushort)
__RGDEV_INT_CVT(long long, ll)
__RGDEV_INT_CVT(unsigned long long, ull)
#undef __RGDEV_INT_CVT
__RGDEV_HF__ signed char __bfloat162char_rz(const __nv_bfloat16 h) { return __rgdev_to_int((signed char *)0, h, 1); }
__RGDEV_HF__ unsigned char __bfloat162uchar_rz(const __nv_bfloat16 h) {
    return __rgdev_to_int((unsigned char *)0, h, 1);
}
#undef __RGDEV_BF

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

#endif /* __cplusplus */

#endif /* __CUDA_BF16_H__ */
