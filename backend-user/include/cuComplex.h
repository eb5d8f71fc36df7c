/*
 * cuComplex.h for rgdev: single- and double-precision complex numbers as CUDA names them
 * (cuFloatComplex is float2, cuDoubleComplex is double2), for host and device code.
 * Written for rgdev from the documented interface; the division scales by the divisor's
 * larger component (Smith's method) and the magnitude by the larger of |re| and |im|, so
 * that neither overflows where the result does not.
 */
#ifndef __CU_COMPLEX_H__
#define __CU_COMPLEX_H__

#include <math.h>

#include "host_defines.h"
#include "vector_types.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

#define __RGDEV_CPLX__ static __host__ __device__ __inline__

#define __RGDEV_COMPLEX(T, C, S, ABS, SQRT)                                                            \
    __RGDEV_CPLX__ T cuCreal##S(C x) { return x.x; }                                                   \
    __RGDEV_CPLX__ T cuCimag##S(C x) { return x.y; }                                                   \
    __RGDEV_CPLX__ C cuConj##S(C x) {                                                                  \
        C r;                                                                                           \
        r.x = x.x;                                                                                     \
        r.y = -x.y;                                                                                    \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_CPLX__ C cuCadd##S(C a, C b) {                                                             \
        C r;                                                                                           \
        r.x = a.x + b.x;                                                                               \
        r.y = a.y + b.y;                                                                               \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_CPLX__ C cuCsub##S(C a, C b) {                                                             \
        C r;                                                                                           \
        r.x = a.x - b.x;                                                                               \
        r.y = a.y - b.y;                                                                               \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_CPLX__ C cuCmul##S(C a, C b) {                                                             \
        C r;                                                                                           \
        r.x = a.x * b.x - a.y * b.y;                                                                   \
        r.y = a.x * b.y + a.y * b.x;                                                                   \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_CPLX__ C cuCdiv##S(C a, C b) {                                                             \
        C r;                                                                                           \
        T s = ABS(b.x) + ABS(b.y), ars = a.x / s, ais = a.y / s, brs = b.x / s, bis = b.y / s;          \
        T d = brs * brs + bis * bis;                                                                   \
        r.x = (ars * brs + ais * bis) / d;                                                             \
        r.y = (ais * brs - ars * bis) / d;                                                             \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_CPLX__ T cuCabs##S(C x) {                                                                  \
        T a = ABS(x.x), b = ABS(x.y), hi = a > b ? a : b, lo = a > b ? b : a;                          \
        if (hi == 0 || hi - hi != 0) return hi + lo; /* zero, infinite or NaN */                       \
        T q = lo / hi;                                                                                 \
        return hi * SQRT((T)1 + q * q);                                                                \
    }                                                                                                  \
    __RGDEV_CPLX__ C cuCfma##S(C x, C y, C d) {                                                        \
        C r;                                                                                           \
        r.x = (x.x * y.x) + d.x - (x.y * y.y);                                                         \
        r.y = (x.x * y.y) + d.y + (x.y * y.x);                                                         \
        return r;                                                                                      \
    }
__RGDEV_COMPLEX(float, cuFloatComplex, f, fabsf, sqrtf)
__RGDEV_COMPLEX(double, cuDoubleComplex, , fabs, sqrt)
#undef __RGDEV_COMPLEX

__RGDEV_CPLX__ cuFloatComplex make_cuFloatComplex(float r, float i) {
    cuFloatComplex c;
    c.x = r;
    c.y = i;
    return c;
}
__RGDEV_CPLX__ cuDoubleComplex make_cuDoubleComplex(double r, double i) {
    cuDoubleComplex c;
    c.x = r;
    c.y = i;
    return c;
}
__RGDEV_CPLX__ cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
__RGDEV_CPLX__ cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) {
    return make_cuDoubleComplex((double)c.x, (double)c.y);
}
__RGDEV_CPLX__ cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) {
    return make_cuFloatComplex((float)c.x, (float)c.y);
}
#undef __RGDEV_CPLX__

#if defined(__cplusplus)
}
#endif

#endif /* __CU_COMPLEX_H__ */
