/*
 * vector_functions.h for rgdev: the make_<type>() constructors of CUDA's vector types,
 * for host and device code. Written for rgdev; not NVIDIA's header.
 */
#ifndef __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__

#include "vector_types.h"

/* make_name1 .. make_name4 of element T. */
#define __RGDEV_MAKE(name, T)                                                                              \
    static __inline__ __host__ __device__ name##1 make_##name##1(T x) {                                    \
        name##1 t;                                                                                         \
        t.x = x;                                                                                           \
        return t;                                                                                          \
    }                                                                                                      \
    static __inline__ __host__ __device__ name##2 make_##name##2(T x, T y) {                               \
        name##2 t;                                                                                         \
        t.x = x;                                                                                           \
        t.y = y;                                                                                           \
        return t;                                                                                          \
    }                                                                                                      \
    static __inline__ __host__ __device__ name##3 make_##name##3(T x, T y, T z) {                          \
        name##3 t;                                                                                         \
        t.x = x;                                                                                           \
        t.y = y;                                                                                           \
        t.z = z;                                                                                           \
        return t;                                                                                          \
    }                                                                                                      \
    static __inline__ __host__ __device__ name##4 make_##name##4(T x, T y, T z, T w) {                     \
        name##4 t;                                                                                         \
        t.x = x;                                                                                           \
        t.y = y;                                                                                           \
        t.z = z;                                                                                           \
        t.w = w;                                                                                           \
        return t;                                                                                          \
    }
__RGDEV_MAKE(char, signed char)
__RGDEV_MAKE(uchar, unsigned char)
__RGDEV_MAKE(short, short)
__RGDEV_MAKE(ushort, unsigned short)
__RGDEV_MAKE(int, int)
__RGDEV_MAKE(uint, unsigned int)
__RGDEV_MAKE(long, long)
__RGDEV_MAKE(ulong, unsigned long)
__RGDEV_MAKE(longlong, long long)
__RGDEV_MAKE(ulonglong, unsigned long long)
__RGDEV_MAKE(float, float)
__RGDEV_MAKE(double, double)
#undef __RGDEV_MAKE

#endif /* __VECTOR_FUNCTIONS_H__ */
