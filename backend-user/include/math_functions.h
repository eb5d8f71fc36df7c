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
/* Halfway cases away from zero: x - trunc(x) is exact. */
__RGDEV_DEV__ float roundf(float x) {
    float t = truncf(x);
    return fabsf(x - t) >= 0.5f ? t + __builtin_copysignf(1.0f, x) : t;
}
__RGDEV_DEV__ double round(double x) {
    double t = trunc(x);
    return fabs(x - t) >= 0.5 ? t + __builtin_copysign(1.0, x) : t;
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
__RGDEV_DEV__ float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__RGDEV_DEV__ double copysign(double a, double b) { return __builtin_copysign(a, b); }
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
__RGDEV_DEV__ float rsqrtf(float x) { return __nvvm_rcp_rn_f(__nvvm_sqrt_rn_f(x)); }
__RGDEV_DEV__ double rsqrt(double x) { return 1.0 / __nvvm_sqrt_rn_d(x); }
__RGDEV_DEV__ float rcbrtf(float x);

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
__RGDEV_DEV__ float min(float a, float b) { return fminf(a, b); }
__RGDEV_DEV__ float max(float a, float b) { return fmaxf(a, b); }
__RGDEV_DEV__ double min(double a, double b) { return fmin(a, b); }
__RGDEV_DEV__ double max(double a, double b) { return fmax(a, b); }

#undef __RGDEV_DEV__

#endif /* __CUDA__ */

#endif /* __MATH_FUNCTIONS_H__ */
