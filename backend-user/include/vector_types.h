/*
 * vector_types.h for rgdev: CUDA's built-in vector types (char1 ... double4, dim3) with
 * the alignments CUDA gives them: a 2- or 4-component type is aligned to its size, at most
 * 16 bytes; 1- and 3-component types to their element. Written for rgdev from CUDA's
 * documented types; not NVIDIA's header.
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__

#include "host_defines.h"

/* name1 .. name4 of element T; 2- and 4-component types aligned to a2 and a4 bytes. */
#define __RGDEV_VECTORS(name, T, a2, a4)                                                                   \
    struct name##1 {                                                                                       \
        T x;                                                                                               \
    };                                                                                                     \
    struct __align__(a2) name##2 {                                                                         \
        T x, y;                                                                                            \
    };                                                                                                     \
    struct name##3 {                                                                                       \
        T x, y, z;                                                                                         \
    };                                                                                                     \
    struct __align__(a4) name##4 {                                                                         \
        T x, y, z, w;                                                                                      \
    };                                                                                                     \
    typedef struct name##1 name##1;                                                                        \
    typedef struct name##2 name##2;                                                                        \
    typedef struct name##3 name##3;                                                                        \
    typedef struct name##4 name##4;
__RGDEV_VECTORS(char, signed char, 2, 4)
__RGDEV_VECTORS(uchar, unsigned char, 2, 4)
__RGDEV_VECTORS(short, short, 4, 8)
__RGDEV_VECTORS(ushort, unsigned short, 4, 8)
__RGDEV_VECTORS(int, int, 8, 16)
__RGDEV_VECTORS(uint, unsigned int, 8, 16)
__RGDEV_VECTORS(long, long, 16, 16)
__RGDEV_VECTORS(ulong, unsigned long, 16, 16)
__RGDEV_VECTORS(longlong, long long, 16, 16)
__RGDEV_VECTORS(ulonglong, unsigned long long, 16, 16)
__RGDEV_VECTORS(float, float, 8, 16)
__RGDEV_VECTORS(double, double, 16, 16)
#undef __RGDEV_VECTORS

/* Grid and block dimensions: unspecified components are 1. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif /* __VECTOR_TYPES_H__ */
