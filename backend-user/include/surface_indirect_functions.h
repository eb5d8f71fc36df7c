/*
 * surface_indirect_functions.h for rgdev: the device side of surface objects
 * (surf1Dread/write, surf2D, surf3D, surf1DLayered, surf2DLayered) for element types of
 * 1, 2, 4, 8 and 16 bytes, as PTX `suld.b`/`sust.b` on the object's handle; x is in bytes,
 * as in CUDA. The boundary mode is cudaBoundaryModeTrap (the default), Clamp or Zero.
 * Written for rgdev; not NVIDIA's header.
 */
#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__

#if defined(__CUDA__)

#include "driver_types.h"

#define __RGDEV_SURF__ static __device__ __forceinline__

__RGDEV_SURF__ unsigned int __rg_suld32_1D_trap(cudaSurfaceObject_t s, int x) {
    unsigned int r;
    asm volatile("suld.b.1d.b32.trap {%0}, [%1, {%2}];" : "=r"(r) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_1D_trap(cudaSurfaceObject_t s, int x) {
    uint2 r;
    asm volatile("suld.b.1d.v2.b32.trap {%0, %1}, [%2, {%3}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_1D_trap(cudaSurfaceObject_t s, int x) {
    uint4 r;
    asm volatile("suld.b.1d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_1D_trap(cudaSurfaceObject_t s, int x) {
    unsigned short r;
    asm volatile("suld.b.1d.b16.trap {%0}, [%1, {%2}];" : "=h"(r) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_1D_trap(cudaSurfaceObject_t s, int x) {
    unsigned short r;
    asm volatile("suld.b.1d.b8.trap {%0}, [%1, {%2}];" : "=h"(r) : "l"(s), "r"(x));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_1D_trap(unsigned int v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b32.trap [%0, {%1}], {%2};" : : "l"(s), "r"(x), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_1D_trap(uint2 v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.v2.b32.trap [%0, {%1}], {%2, %3};" : : "l"(s), "r"(x), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_1D_trap(uint4 v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.v4.b32.trap [%0, {%1}], {%2, %3, %4, %5};" : : "l"(s), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_1D_trap(unsigned short v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b16.trap [%0, {%1}], {%2};" : : "l"(s), "r"(x), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_1D_trap(unsigned char v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b8.trap [%0, {%1}], {%2};" : : "l"(s), "r"(x), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_1D_clamp(cudaSurfaceObject_t s, int x) {
    unsigned int r;
    asm volatile("suld.b.1d.b32.clamp {%0}, [%1, {%2}];" : "=r"(r) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_1D_clamp(cudaSurfaceObject_t s, int x) {
    uint2 r;
    asm volatile("suld.b.1d.v2.b32.clamp {%0, %1}, [%2, {%3}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_1D_clamp(cudaSurfaceObject_t s, int x) {
    uint4 r;
    asm volatile("suld.b.1d.v4.b32.clamp {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_1D_clamp(cudaSurfaceObject_t s, int x) {
    unsigned short r;
    asm volatile("suld.b.1d.b16.clamp {%0}, [%1, {%2}];" : "=h"(r) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_1D_clamp(cudaSurfaceObject_t s, int x) {
    unsigned short r;
    asm volatile("suld.b.1d.b8.clamp {%0}, [%1, {%2}];" : "=h"(r) : "l"(s), "r"(x));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_1D_clamp(unsigned int v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b32.clamp [%0, {%1}], {%2};" : : "l"(s), "r"(x), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_1D_clamp(uint2 v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.v2.b32.clamp [%0, {%1}], {%2, %3};" : : "l"(s), "r"(x), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_1D_clamp(uint4 v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.v4.b32.clamp [%0, {%1}], {%2, %3, %4, %5};" : : "l"(s), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_1D_clamp(unsigned short v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b16.clamp [%0, {%1}], {%2};" : : "l"(s), "r"(x), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_1D_clamp(unsigned char v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b8.clamp [%0, {%1}], {%2};" : : "l"(s), "r"(x), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_1D_zero(cudaSurfaceObject_t s, int x) {
    unsigned int r;
    asm volatile("suld.b.1d.b32.zero {%0}, [%1, {%2}];" : "=r"(r) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_1D_zero(cudaSurfaceObject_t s, int x) {
    uint2 r;
    asm volatile("suld.b.1d.v2.b32.zero {%0, %1}, [%2, {%3}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_1D_zero(cudaSurfaceObject_t s, int x) {
    uint4 r;
    asm volatile("suld.b.1d.v4.b32.zero {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_1D_zero(cudaSurfaceObject_t s, int x) {
    unsigned short r;
    asm volatile("suld.b.1d.b16.zero {%0}, [%1, {%2}];" : "=h"(r) : "l"(s), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_1D_zero(cudaSurfaceObject_t s, int x) {
    unsigned short r;
    asm volatile("suld.b.1d.b8.zero {%0}, [%1, {%2}];" : "=h"(r) : "l"(s), "r"(x));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_1D_zero(unsigned int v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b32.zero [%0, {%1}], {%2};" : : "l"(s), "r"(x), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_1D_zero(uint2 v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.v2.b32.zero [%0, {%1}], {%2, %3};" : : "l"(s), "r"(x), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_1D_zero(uint4 v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.v4.b32.zero [%0, {%1}], {%2, %3, %4, %5};" : : "l"(s), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_1D_zero(unsigned short v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b16.zero [%0, {%1}], {%2};" : : "l"(s), "r"(x), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_1D_zero(unsigned char v, cudaSurfaceObject_t s, int x) {
    asm volatile("sust.b.1d.b8.zero [%0, {%1}], {%2};" : : "l"(s), "r"(x), "h"((unsigned short)v) : "memory");
}
template <class T>
static __device__ __forceinline__ T surf1Dread(cudaSurfaceObject_t s, int x,
                                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    T v;
    if (sizeof(T) == 1) {
        unsigned char raw = mode == cudaBoundaryModeZero ? __rg_suld8_1D_zero(s, x)
                 : mode == cudaBoundaryModeClamp ? __rg_suld8_1D_clamp(s, x)
                                                 : __rg_suld8_1D_trap(s, x);
        __builtin_memcpy(&v, &raw, 1);
    }
    if (sizeof(T) == 2) {
        unsigned short raw = mode == cudaBoundaryModeZero ? __rg_suld16_1D_zero(s, x)
                 : mode == cudaBoundaryModeClamp ? __rg_suld16_1D_clamp(s, x)
                                                 : __rg_suld16_1D_trap(s, x);
        __builtin_memcpy(&v, &raw, 2);
    }
    if (sizeof(T) == 4) {
        unsigned int raw = mode == cudaBoundaryModeZero ? __rg_suld32_1D_zero(s, x)
                 : mode == cudaBoundaryModeClamp ? __rg_suld32_1D_clamp(s, x)
                                                 : __rg_suld32_1D_trap(s, x);
        __builtin_memcpy(&v, &raw, 4);
    }
    if (sizeof(T) == 8) {
        uint2 raw = mode == cudaBoundaryModeZero ? __rg_suld64_1D_zero(s, x)
                 : mode == cudaBoundaryModeClamp ? __rg_suld64_1D_clamp(s, x)
                                                 : __rg_suld64_1D_trap(s, x);
        __builtin_memcpy(&v, &raw, 8);
    }
    if (sizeof(T) == 16) {
        uint4 raw = mode == cudaBoundaryModeZero ? __rg_suld128_1D_zero(s, x)
                 : mode == cudaBoundaryModeClamp ? __rg_suld128_1D_clamp(s, x)
                                                 : __rg_suld128_1D_trap(s, x);
        __builtin_memcpy(&v, &raw, 16);
    }
    return v;
}
template <class T>
static __device__ __forceinline__ void surf1Dread(T *p, cudaSurfaceObject_t s, int x,
                                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *p = surf1Dread<T>(s, x, mode);
}
template <class T>
static __device__ __forceinline__ void surf1Dwrite(T v, cudaSurfaceObject_t s, int x,
                                                   cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    if (sizeof(T) == 1) {
        unsigned char raw;
        __builtin_memcpy(&raw, &v, 1);
        if (mode == cudaBoundaryModeZero) __rg_sust8_1D_zero(raw, s, x);
        else if (mode == cudaBoundaryModeClamp) __rg_sust8_1D_clamp(raw, s, x);
        else __rg_sust8_1D_trap(raw, s, x);
    }
    if (sizeof(T) == 2) {
        unsigned short raw;
        __builtin_memcpy(&raw, &v, 2);
        if (mode == cudaBoundaryModeZero) __rg_sust16_1D_zero(raw, s, x);
        else if (mode == cudaBoundaryModeClamp) __rg_sust16_1D_clamp(raw, s, x);
        else __rg_sust16_1D_trap(raw, s, x);
    }
    if (sizeof(T) == 4) {
        unsigned int raw;
        __builtin_memcpy(&raw, &v, 4);
        if (mode == cudaBoundaryModeZero) __rg_sust32_1D_zero(raw, s, x);
        else if (mode == cudaBoundaryModeClamp) __rg_sust32_1D_clamp(raw, s, x);
        else __rg_sust32_1D_trap(raw, s, x);
    }
    if (sizeof(T) == 8) {
        uint2 raw;
        __builtin_memcpy(&raw, &v, 8);
        if (mode == cudaBoundaryModeZero) __rg_sust64_1D_zero(raw, s, x);
        else if (mode == cudaBoundaryModeClamp) __rg_sust64_1D_clamp(raw, s, x);
        else __rg_sust64_1D_trap(raw, s, x);
    }
    if (sizeof(T) == 16) {
        uint4 raw;
        __builtin_memcpy(&raw, &v, 16);
        if (mode == cudaBoundaryModeZero) __rg_sust128_1D_zero(raw, s, x);
        else if (mode == cudaBoundaryModeClamp) __rg_sust128_1D_clamp(raw, s, x);
        else __rg_sust128_1D_trap(raw, s, x);
    }
}
__RGDEV_SURF__ unsigned int __rg_suld32_2D_trap(cudaSurfaceObject_t s, int x, int y) {
    unsigned int r;
    asm volatile("suld.b.2d.b32.trap {%0}, [%1, {%2, %3}];" : "=r"(r) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_2D_trap(cudaSurfaceObject_t s, int x, int y) {
    uint2 r;
    asm volatile("suld.b.2d.v2.b32.trap {%0, %1}, [%2, {%3, %4}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_2D_trap(cudaSurfaceObject_t s, int x, int y) {
    uint4 r;
    asm volatile("suld.b.2d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_2D_trap(cudaSurfaceObject_t s, int x, int y) {
    unsigned short r;
    asm volatile("suld.b.2d.b16.trap {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_2D_trap(cudaSurfaceObject_t s, int x, int y) {
    unsigned short r;
    asm volatile("suld.b.2d.b8.trap {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(x), "r"(y));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_2D_trap(unsigned int v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b32.trap [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_2D_trap(uint2 v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.v2.b32.trap [%0, {%1, %2}], {%3, %4};" : : "l"(s), "r"(x), "r"(y), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_2D_trap(uint4 v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.v4.b32.trap [%0, {%1, %2}], {%3, %4, %5, %6};" : : "l"(s), "r"(x), "r"(y), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_2D_trap(unsigned short v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b16.trap [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_2D_trap(unsigned char v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b8.trap [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_2D_clamp(cudaSurfaceObject_t s, int x, int y) {
    unsigned int r;
    asm volatile("suld.b.2d.b32.clamp {%0}, [%1, {%2, %3}];" : "=r"(r) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_2D_clamp(cudaSurfaceObject_t s, int x, int y) {
    uint2 r;
    asm volatile("suld.b.2d.v2.b32.clamp {%0, %1}, [%2, {%3, %4}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_2D_clamp(cudaSurfaceObject_t s, int x, int y) {
    uint4 r;
    asm volatile("suld.b.2d.v4.b32.clamp {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_2D_clamp(cudaSurfaceObject_t s, int x, int y) {
    unsigned short r;
    asm volatile("suld.b.2d.b16.clamp {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_2D_clamp(cudaSurfaceObject_t s, int x, int y) {
    unsigned short r;
    asm volatile("suld.b.2d.b8.clamp {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(x), "r"(y));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_2D_clamp(unsigned int v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b32.clamp [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_2D_clamp(uint2 v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.v2.b32.clamp [%0, {%1, %2}], {%3, %4};" : : "l"(s), "r"(x), "r"(y), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_2D_clamp(uint4 v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.v4.b32.clamp [%0, {%1, %2}], {%3, %4, %5, %6};" : : "l"(s), "r"(x), "r"(y), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_2D_clamp(unsigned short v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b16.clamp [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_2D_clamp(unsigned char v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b8.clamp [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_2D_zero(cudaSurfaceObject_t s, int x, int y) {
    unsigned int r;
    asm volatile("suld.b.2d.b32.zero {%0}, [%1, {%2, %3}];" : "=r"(r) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_2D_zero(cudaSurfaceObject_t s, int x, int y) {
    uint2 r;
    asm volatile("suld.b.2d.v2.b32.zero {%0, %1}, [%2, {%3, %4}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_2D_zero(cudaSurfaceObject_t s, int x, int y) {
    uint4 r;
    asm volatile("suld.b.2d.v4.b32.zero {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_2D_zero(cudaSurfaceObject_t s, int x, int y) {
    unsigned short r;
    asm volatile("suld.b.2d.b16.zero {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_2D_zero(cudaSurfaceObject_t s, int x, int y) {
    unsigned short r;
    asm volatile("suld.b.2d.b8.zero {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(x), "r"(y));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_2D_zero(unsigned int v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b32.zero [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_2D_zero(uint2 v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.v2.b32.zero [%0, {%1, %2}], {%3, %4};" : : "l"(s), "r"(x), "r"(y), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_2D_zero(uint4 v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};" : : "l"(s), "r"(x), "r"(y), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_2D_zero(unsigned short v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b16.zero [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_2D_zero(unsigned char v, cudaSurfaceObject_t s, int x, int y) {
    asm volatile("sust.b.2d.b8.zero [%0, {%1, %2}], {%3};" : : "l"(s), "r"(x), "r"(y), "h"((unsigned short)v) : "memory");
}
template <class T>
static __device__ __forceinline__ T surf2Dread(cudaSurfaceObject_t s, int x, int y,
                                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    T v;
    if (sizeof(T) == 1) {
        unsigned char raw = mode == cudaBoundaryModeZero ? __rg_suld8_2D_zero(s, x, y)
                 : mode == cudaBoundaryModeClamp ? __rg_suld8_2D_clamp(s, x, y)
                                                 : __rg_suld8_2D_trap(s, x, y);
        __builtin_memcpy(&v, &raw, 1);
    }
    if (sizeof(T) == 2) {
        unsigned short raw = mode == cudaBoundaryModeZero ? __rg_suld16_2D_zero(s, x, y)
                 : mode == cudaBoundaryModeClamp ? __rg_suld16_2D_clamp(s, x, y)
                                                 : __rg_suld16_2D_trap(s, x, y);
        __builtin_memcpy(&v, &raw, 2);
    }
    if (sizeof(T) == 4) {
        unsigned int raw = mode == cudaBoundaryModeZero ? __rg_suld32_2D_zero(s, x, y)
                 : mode == cudaBoundaryModeClamp ? __rg_suld32_2D_clamp(s, x, y)
                                                 : __rg_suld32_2D_trap(s, x, y);
        __builtin_memcpy(&v, &raw, 4);
    }
    if (sizeof(T) == 8) {
        uint2 raw = mode == cudaBoundaryModeZero ? __rg_suld64_2D_zero(s, x, y)
                 : mode == cudaBoundaryModeClamp ? __rg_suld64_2D_clamp(s, x, y)
                                                 : __rg_suld64_2D_trap(s, x, y);
        __builtin_memcpy(&v, &raw, 8);
    }
    if (sizeof(T) == 16) {
        uint4 raw = mode == cudaBoundaryModeZero ? __rg_suld128_2D_zero(s, x, y)
                 : mode == cudaBoundaryModeClamp ? __rg_suld128_2D_clamp(s, x, y)
                                                 : __rg_suld128_2D_trap(s, x, y);
        __builtin_memcpy(&v, &raw, 16);
    }
    return v;
}
template <class T>
static __device__ __forceinline__ void surf2Dread(T *p, cudaSurfaceObject_t s, int x, int y,
                                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *p = surf2Dread<T>(s, x, y, mode);
}
template <class T>
static __device__ __forceinline__ void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y,
                                                   cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    if (sizeof(T) == 1) {
        unsigned char raw;
        __builtin_memcpy(&raw, &v, 1);
        if (mode == cudaBoundaryModeZero) __rg_sust8_2D_zero(raw, s, x, y);
        else if (mode == cudaBoundaryModeClamp) __rg_sust8_2D_clamp(raw, s, x, y);
        else __rg_sust8_2D_trap(raw, s, x, y);
    }
    if (sizeof(T) == 2) {
        unsigned short raw;
        __builtin_memcpy(&raw, &v, 2);
        if (mode == cudaBoundaryModeZero) __rg_sust16_2D_zero(raw, s, x, y);
        else if (mode == cudaBoundaryModeClamp) __rg_sust16_2D_clamp(raw, s, x, y);
        else __rg_sust16_2D_trap(raw, s, x, y);
    }
    if (sizeof(T) == 4) {
        unsigned int raw;
        __builtin_memcpy(&raw, &v, 4);
        if (mode == cudaBoundaryModeZero) __rg_sust32_2D_zero(raw, s, x, y);
        else if (mode == cudaBoundaryModeClamp) __rg_sust32_2D_clamp(raw, s, x, y);
        else __rg_sust32_2D_trap(raw, s, x, y);
    }
    if (sizeof(T) == 8) {
        uint2 raw;
        __builtin_memcpy(&raw, &v, 8);
        if (mode == cudaBoundaryModeZero) __rg_sust64_2D_zero(raw, s, x, y);
        else if (mode == cudaBoundaryModeClamp) __rg_sust64_2D_clamp(raw, s, x, y);
        else __rg_sust64_2D_trap(raw, s, x, y);
    }
    if (sizeof(T) == 16) {
        uint4 raw;
        __builtin_memcpy(&raw, &v, 16);
        if (mode == cudaBoundaryModeZero) __rg_sust128_2D_zero(raw, s, x, y);
        else if (mode == cudaBoundaryModeClamp) __rg_sust128_2D_clamp(raw, s, x, y);
        else __rg_sust128_2D_trap(raw, s, x, y);
    }
}
__RGDEV_SURF__ unsigned int __rg_suld32_3D_trap(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned int r;
    asm volatile("suld.b.3d.b32.trap {%0}, [%1, {%2, %3, %4, %4}];" : "=r"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_3D_trap(cudaSurfaceObject_t s, int x, int y, int z) {
    uint2 r;
    asm volatile("suld.b.3d.v2.b32.trap {%0, %1}, [%2, {%3, %4, %5, %5}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_3D_trap(cudaSurfaceObject_t s, int x, int y, int z) {
    uint4 r;
    asm volatile("suld.b.3d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_3D_trap(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned short r;
    asm volatile("suld.b.3d.b16.trap {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_3D_trap(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned short r;
    asm volatile("suld.b.3d.b8.trap {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_3D_trap(unsigned int v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b32.trap [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_3D_trap(uint2 v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.v2.b32.trap [%0, {%1, %2, %3, %3}], {%4, %5};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_3D_trap(uint4 v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.v4.b32.trap [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_3D_trap(unsigned short v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b16.trap [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_3D_trap(unsigned char v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b8.trap [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_3D_clamp(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned int r;
    asm volatile("suld.b.3d.b32.clamp {%0}, [%1, {%2, %3, %4, %4}];" : "=r"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_3D_clamp(cudaSurfaceObject_t s, int x, int y, int z) {
    uint2 r;
    asm volatile("suld.b.3d.v2.b32.clamp {%0, %1}, [%2, {%3, %4, %5, %5}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_3D_clamp(cudaSurfaceObject_t s, int x, int y, int z) {
    uint4 r;
    asm volatile("suld.b.3d.v4.b32.clamp {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_3D_clamp(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned short r;
    asm volatile("suld.b.3d.b16.clamp {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_3D_clamp(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned short r;
    asm volatile("suld.b.3d.b8.clamp {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_3D_clamp(unsigned int v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b32.clamp [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_3D_clamp(uint2 v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.v2.b32.clamp [%0, {%1, %2, %3, %3}], {%4, %5};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_3D_clamp(uint4 v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.v4.b32.clamp [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_3D_clamp(unsigned short v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b16.clamp [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_3D_clamp(unsigned char v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b8.clamp [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_3D_zero(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned int r;
    asm volatile("suld.b.3d.b32.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=r"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_3D_zero(cudaSurfaceObject_t s, int x, int y, int z) {
    uint2 r;
    asm volatile("suld.b.3d.v2.b32.zero {%0, %1}, [%2, {%3, %4, %5, %5}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_3D_zero(cudaSurfaceObject_t s, int x, int y, int z) {
    uint4 r;
    asm volatile("suld.b.3d.v4.b32.zero {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_3D_zero(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned short r;
    asm volatile("suld.b.3d.b16.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_3D_zero(cudaSurfaceObject_t s, int x, int y, int z) {
    unsigned short r;
    asm volatile("suld.b.3d.b8.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(x), "r"(y), "r"(z));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_3D_zero(unsigned int v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b32.zero [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_3D_zero(uint2 v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.v2.b32.zero [%0, {%1, %2, %3, %3}], {%4, %5};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_3D_zero(uint4 v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.v4.b32.zero [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" : : "l"(s), "r"(x), "r"(y), "r"(z), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_3D_zero(unsigned short v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b16.zero [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_3D_zero(unsigned char v, cudaSurfaceObject_t s, int x, int y, int z) {
    asm volatile("sust.b.3d.b8.zero [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(x), "r"(y), "r"(z), "h"((unsigned short)v) : "memory");
}
template <class T>
static __device__ __forceinline__ T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z,
                                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    T v;
    if (sizeof(T) == 1) {
        unsigned char raw = mode == cudaBoundaryModeZero ? __rg_suld8_3D_zero(s, x, y, z)
                 : mode == cudaBoundaryModeClamp ? __rg_suld8_3D_clamp(s, x, y, z)
                                                 : __rg_suld8_3D_trap(s, x, y, z);
        __builtin_memcpy(&v, &raw, 1);
    }
    if (sizeof(T) == 2) {
        unsigned short raw = mode == cudaBoundaryModeZero ? __rg_suld16_3D_zero(s, x, y, z)
                 : mode == cudaBoundaryModeClamp ? __rg_suld16_3D_clamp(s, x, y, z)
                                                 : __rg_suld16_3D_trap(s, x, y, z);
        __builtin_memcpy(&v, &raw, 2);
    }
    if (sizeof(T) == 4) {
        unsigned int raw = mode == cudaBoundaryModeZero ? __rg_suld32_3D_zero(s, x, y, z)
                 : mode == cudaBoundaryModeClamp ? __rg_suld32_3D_clamp(s, x, y, z)
                                                 : __rg_suld32_3D_trap(s, x, y, z);
        __builtin_memcpy(&v, &raw, 4);
    }
    if (sizeof(T) == 8) {
        uint2 raw = mode == cudaBoundaryModeZero ? __rg_suld64_3D_zero(s, x, y, z)
                 : mode == cudaBoundaryModeClamp ? __rg_suld64_3D_clamp(s, x, y, z)
                                                 : __rg_suld64_3D_trap(s, x, y, z);
        __builtin_memcpy(&v, &raw, 8);
    }
    if (sizeof(T) == 16) {
        uint4 raw = mode == cudaBoundaryModeZero ? __rg_suld128_3D_zero(s, x, y, z)
                 : mode == cudaBoundaryModeClamp ? __rg_suld128_3D_clamp(s, x, y, z)
                                                 : __rg_suld128_3D_trap(s, x, y, z);
        __builtin_memcpy(&v, &raw, 16);
    }
    return v;
}
template <class T>
static __device__ __forceinline__ void surf3Dread(T *p, cudaSurfaceObject_t s, int x, int y, int z,
                                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *p = surf3Dread<T>(s, x, y, z, mode);
}
template <class T>
static __device__ __forceinline__ void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z,
                                                   cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    if (sizeof(T) == 1) {
        unsigned char raw;
        __builtin_memcpy(&raw, &v, 1);
        if (mode == cudaBoundaryModeZero) __rg_sust8_3D_zero(raw, s, x, y, z);
        else if (mode == cudaBoundaryModeClamp) __rg_sust8_3D_clamp(raw, s, x, y, z);
        else __rg_sust8_3D_trap(raw, s, x, y, z);
    }
    if (sizeof(T) == 2) {
        unsigned short raw;
        __builtin_memcpy(&raw, &v, 2);
        if (mode == cudaBoundaryModeZero) __rg_sust16_3D_zero(raw, s, x, y, z);
        else if (mode == cudaBoundaryModeClamp) __rg_sust16_3D_clamp(raw, s, x, y, z);
        else __rg_sust16_3D_trap(raw, s, x, y, z);
    }
    if (sizeof(T) == 4) {
        unsigned int raw;
        __builtin_memcpy(&raw, &v, 4);
        if (mode == cudaBoundaryModeZero) __rg_sust32_3D_zero(raw, s, x, y, z);
        else if (mode == cudaBoundaryModeClamp) __rg_sust32_3D_clamp(raw, s, x, y, z);
        else __rg_sust32_3D_trap(raw, s, x, y, z);
    }
    if (sizeof(T) == 8) {
        uint2 raw;
        __builtin_memcpy(&raw, &v, 8);
        if (mode == cudaBoundaryModeZero) __rg_sust64_3D_zero(raw, s, x, y, z);
        else if (mode == cudaBoundaryModeClamp) __rg_sust64_3D_clamp(raw, s, x, y, z);
        else __rg_sust64_3D_trap(raw, s, x, y, z);
    }
    if (sizeof(T) == 16) {
        uint4 raw;
        __builtin_memcpy(&raw, &v, 16);
        if (mode == cudaBoundaryModeZero) __rg_sust128_3D_zero(raw, s, x, y, z);
        else if (mode == cudaBoundaryModeClamp) __rg_sust128_3D_clamp(raw, s, x, y, z);
        else __rg_sust128_3D_trap(raw, s, x, y, z);
    }
}
__RGDEV_SURF__ unsigned int __rg_suld32_1DLayered_trap(cudaSurfaceObject_t s, int x, int layer) {
    unsigned int r;
    asm volatile("suld.b.a1d.b32.trap {%0}, [%1, {%2, %3}];" : "=r"(r) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_1DLayered_trap(cudaSurfaceObject_t s, int x, int layer) {
    uint2 r;
    asm volatile("suld.b.a1d.v2.b32.trap {%0, %1}, [%2, {%3, %4}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_1DLayered_trap(cudaSurfaceObject_t s, int x, int layer) {
    uint4 r;
    asm volatile("suld.b.a1d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_1DLayered_trap(cudaSurfaceObject_t s, int x, int layer) {
    unsigned short r;
    asm volatile("suld.b.a1d.b16.trap {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_1DLayered_trap(cudaSurfaceObject_t s, int x, int layer) {
    unsigned short r;
    asm volatile("suld.b.a1d.b8.trap {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_1DLayered_trap(unsigned int v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b32.trap [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_1DLayered_trap(uint2 v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.v2.b32.trap [%0, {%1, %2}], {%3, %4};" : : "l"(s), "r"(layer), "r"(x), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_1DLayered_trap(uint4 v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.v4.b32.trap [%0, {%1, %2}], {%3, %4, %5, %6};" : : "l"(s), "r"(layer), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_1DLayered_trap(unsigned short v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b16.trap [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_1DLayered_trap(unsigned char v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b8.trap [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_1DLayered_clamp(cudaSurfaceObject_t s, int x, int layer) {
    unsigned int r;
    asm volatile("suld.b.a1d.b32.clamp {%0}, [%1, {%2, %3}];" : "=r"(r) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_1DLayered_clamp(cudaSurfaceObject_t s, int x, int layer) {
    uint2 r;
    asm volatile("suld.b.a1d.v2.b32.clamp {%0, %1}, [%2, {%3, %4}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_1DLayered_clamp(cudaSurfaceObject_t s, int x, int layer) {
    uint4 r;
    asm volatile("suld.b.a1d.v4.b32.clamp {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_1DLayered_clamp(cudaSurfaceObject_t s, int x, int layer) {
    unsigned short r;
    asm volatile("suld.b.a1d.b16.clamp {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_1DLayered_clamp(cudaSurfaceObject_t s, int x, int layer) {
    unsigned short r;
    asm volatile("suld.b.a1d.b8.clamp {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_1DLayered_clamp(unsigned int v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b32.clamp [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_1DLayered_clamp(uint2 v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.v2.b32.clamp [%0, {%1, %2}], {%3, %4};" : : "l"(s), "r"(layer), "r"(x), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_1DLayered_clamp(uint4 v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.v4.b32.clamp [%0, {%1, %2}], {%3, %4, %5, %6};" : : "l"(s), "r"(layer), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_1DLayered_clamp(unsigned short v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b16.clamp [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_1DLayered_clamp(unsigned char v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b8.clamp [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_1DLayered_zero(cudaSurfaceObject_t s, int x, int layer) {
    unsigned int r;
    asm volatile("suld.b.a1d.b32.zero {%0}, [%1, {%2, %3}];" : "=r"(r) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_1DLayered_zero(cudaSurfaceObject_t s, int x, int layer) {
    uint2 r;
    asm volatile("suld.b.a1d.v2.b32.zero {%0, %1}, [%2, {%3, %4}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_1DLayered_zero(cudaSurfaceObject_t s, int x, int layer) {
    uint4 r;
    asm volatile("suld.b.a1d.v4.b32.zero {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_1DLayered_zero(cudaSurfaceObject_t s, int x, int layer) {
    unsigned short r;
    asm volatile("suld.b.a1d.b16.zero {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_1DLayered_zero(cudaSurfaceObject_t s, int x, int layer) {
    unsigned short r;
    asm volatile("suld.b.a1d.b8.zero {%0}, [%1, {%2, %3}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_1DLayered_zero(unsigned int v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b32.zero [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_1DLayered_zero(uint2 v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.v2.b32.zero [%0, {%1, %2}], {%3, %4};" : : "l"(s), "r"(layer), "r"(x), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_1DLayered_zero(uint4 v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};" : : "l"(s), "r"(layer), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_1DLayered_zero(unsigned short v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b16.zero [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_1DLayered_zero(unsigned char v, cudaSurfaceObject_t s, int x, int layer) {
    asm volatile("sust.b.a1d.b8.zero [%0, {%1, %2}], {%3};" : : "l"(s), "r"(layer), "r"(x), "h"((unsigned short)v) : "memory");
}
template <class T>
static __device__ __forceinline__ T surf1DLayeredread(cudaSurfaceObject_t s, int x, int layer,
                                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    T v;
    if (sizeof(T) == 1) {
        unsigned char raw = mode == cudaBoundaryModeZero ? __rg_suld8_1DLayered_zero(s, x, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld8_1DLayered_clamp(s, x, layer)
                                                 : __rg_suld8_1DLayered_trap(s, x, layer);
        __builtin_memcpy(&v, &raw, 1);
    }
    if (sizeof(T) == 2) {
        unsigned short raw = mode == cudaBoundaryModeZero ? __rg_suld16_1DLayered_zero(s, x, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld16_1DLayered_clamp(s, x, layer)
                                                 : __rg_suld16_1DLayered_trap(s, x, layer);
        __builtin_memcpy(&v, &raw, 2);
    }
    if (sizeof(T) == 4) {
        unsigned int raw = mode == cudaBoundaryModeZero ? __rg_suld32_1DLayered_zero(s, x, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld32_1DLayered_clamp(s, x, layer)
                                                 : __rg_suld32_1DLayered_trap(s, x, layer);
        __builtin_memcpy(&v, &raw, 4);
    }
    if (sizeof(T) == 8) {
        uint2 raw = mode == cudaBoundaryModeZero ? __rg_suld64_1DLayered_zero(s, x, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld64_1DLayered_clamp(s, x, layer)
                                                 : __rg_suld64_1DLayered_trap(s, x, layer);
        __builtin_memcpy(&v, &raw, 8);
    }
    if (sizeof(T) == 16) {
        uint4 raw = mode == cudaBoundaryModeZero ? __rg_suld128_1DLayered_zero(s, x, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld128_1DLayered_clamp(s, x, layer)
                                                 : __rg_suld128_1DLayered_trap(s, x, layer);
        __builtin_memcpy(&v, &raw, 16);
    }
    return v;
}
template <class T>
static __device__ __forceinline__ void surf1DLayeredread(T *p, cudaSurfaceObject_t s, int x, int layer,
                                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *p = surf1DLayeredread<T>(s, x, layer, mode);
}
template <class T>
static __device__ __forceinline__ void surf1DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int layer,
                                                   cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    if (sizeof(T) == 1) {
        unsigned char raw;
        __builtin_memcpy(&raw, &v, 1);
        if (mode == cudaBoundaryModeZero) __rg_sust8_1DLayered_zero(raw, s, x, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust8_1DLayered_clamp(raw, s, x, layer);
        else __rg_sust8_1DLayered_trap(raw, s, x, layer);
    }
    if (sizeof(T) == 2) {
        unsigned short raw;
        __builtin_memcpy(&raw, &v, 2);
        if (mode == cudaBoundaryModeZero) __rg_sust16_1DLayered_zero(raw, s, x, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust16_1DLayered_clamp(raw, s, x, layer);
        else __rg_sust16_1DLayered_trap(raw, s, x, layer);
    }
    if (sizeof(T) == 4) {
        unsigned int raw;
        __builtin_memcpy(&raw, &v, 4);
        if (mode == cudaBoundaryModeZero) __rg_sust32_1DLayered_zero(raw, s, x, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust32_1DLayered_clamp(raw, s, x, layer);
        else __rg_sust32_1DLayered_trap(raw, s, x, layer);
    }
    if (sizeof(T) == 8) {
        uint2 raw;
        __builtin_memcpy(&raw, &v, 8);
        if (mode == cudaBoundaryModeZero) __rg_sust64_1DLayered_zero(raw, s, x, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust64_1DLayered_clamp(raw, s, x, layer);
        else __rg_sust64_1DLayered_trap(raw, s, x, layer);
    }
    if (sizeof(T) == 16) {
        uint4 raw;
        __builtin_memcpy(&raw, &v, 16);
        if (mode == cudaBoundaryModeZero) __rg_sust128_1DLayered_zero(raw, s, x, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust128_1DLayered_clamp(raw, s, x, layer);
        else __rg_sust128_1DLayered_trap(raw, s, x, layer);
    }
}
__RGDEV_SURF__ unsigned int __rg_suld32_2DLayered_trap(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned int r;
    asm volatile("suld.b.a2d.b32.trap {%0}, [%1, {%2, %3, %4, %4}];" : "=r"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_2DLayered_trap(cudaSurfaceObject_t s, int x, int y, int layer) {
    uint2 r;
    asm volatile("suld.b.a2d.v2.b32.trap {%0, %1}, [%2, {%3, %4, %5, %5}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_2DLayered_trap(cudaSurfaceObject_t s, int x, int y, int layer) {
    uint4 r;
    asm volatile("suld.b.a2d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_2DLayered_trap(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned short r;
    asm volatile("suld.b.a2d.b16.trap {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_2DLayered_trap(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned short r;
    asm volatile("suld.b.a2d.b8.trap {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_2DLayered_trap(unsigned int v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b32.trap [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_2DLayered_trap(uint2 v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.v2.b32.trap [%0, {%1, %2, %3, %3}], {%4, %5};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_2DLayered_trap(uint4 v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.v4.b32.trap [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_2DLayered_trap(unsigned short v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b16.trap [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_2DLayered_trap(unsigned char v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b8.trap [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_2DLayered_clamp(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned int r;
    asm volatile("suld.b.a2d.b32.clamp {%0}, [%1, {%2, %3, %4, %4}];" : "=r"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_2DLayered_clamp(cudaSurfaceObject_t s, int x, int y, int layer) {
    uint2 r;
    asm volatile("suld.b.a2d.v2.b32.clamp {%0, %1}, [%2, {%3, %4, %5, %5}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_2DLayered_clamp(cudaSurfaceObject_t s, int x, int y, int layer) {
    uint4 r;
    asm volatile("suld.b.a2d.v4.b32.clamp {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_2DLayered_clamp(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned short r;
    asm volatile("suld.b.a2d.b16.clamp {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_2DLayered_clamp(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned short r;
    asm volatile("suld.b.a2d.b8.clamp {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_2DLayered_clamp(unsigned int v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b32.clamp [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_2DLayered_clamp(uint2 v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.v2.b32.clamp [%0, {%1, %2, %3, %3}], {%4, %5};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_2DLayered_clamp(uint4 v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.v4.b32.clamp [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_2DLayered_clamp(unsigned short v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b16.clamp [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_2DLayered_clamp(unsigned char v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b8.clamp [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "h"((unsigned short)v) : "memory");
}
__RGDEV_SURF__ unsigned int __rg_suld32_2DLayered_zero(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned int r;
    asm volatile("suld.b.a2d.b32.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=r"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint2 __rg_suld64_2DLayered_zero(cudaSurfaceObject_t s, int x, int y, int layer) {
    uint2 r;
    asm volatile("suld.b.a2d.v2.b32.zero {%0, %1}, [%2, {%3, %4, %5, %5}];" : "=r"(r.x), "=r"(r.y) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ uint4 __rg_suld128_2DLayered_zero(cudaSurfaceObject_t s, int x, int y, int layer) {
    uint4 r;
    asm volatile("suld.b.a2d.v4.b32.zero {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned short __rg_suld16_2DLayered_zero(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned short r;
    asm volatile("suld.b.a2d.b16.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return r;
}
__RGDEV_SURF__ unsigned char __rg_suld8_2DLayered_zero(cudaSurfaceObject_t s, int x, int y, int layer) {
    unsigned short r;
    asm volatile("suld.b.a2d.b8.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=h"(r) : "l"(s), "r"(layer), "r"(x), "r"(y));
    return (unsigned char)r;
}
__RGDEV_SURF__ void __rg_sust32_2DLayered_zero(unsigned int v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b32.zero [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust64_2DLayered_zero(uint2 v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.v2.b32.zero [%0, {%1, %2, %3, %3}], {%4, %5};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v.x), "r"(v.y) : "memory");
}
__RGDEV_SURF__ void __rg_sust128_2DLayered_zero(uint4 v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.v4.b32.zero [%0, {%1, %2, %3, %3}], {%4, %5, %6, %7};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__RGDEV_SURF__ void __rg_sust16_2DLayered_zero(unsigned short v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b16.zero [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "h"(v) : "memory");
}
__RGDEV_SURF__ void __rg_sust8_2DLayered_zero(unsigned char v, cudaSurfaceObject_t s, int x, int y, int layer) {
    asm volatile("sust.b.a2d.b8.zero [%0, {%1, %2, %3, %3}], {%4};" : : "l"(s), "r"(layer), "r"(x), "r"(y), "h"((unsigned short)v) : "memory");
}
template <class T>
static __device__ __forceinline__ T surf2DLayeredread(cudaSurfaceObject_t s, int x, int y, int layer,
                                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    T v;
    if (sizeof(T) == 1) {
        unsigned char raw = mode == cudaBoundaryModeZero ? __rg_suld8_2DLayered_zero(s, x, y, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld8_2DLayered_clamp(s, x, y, layer)
                                                 : __rg_suld8_2DLayered_trap(s, x, y, layer);
        __builtin_memcpy(&v, &raw, 1);
    }
    if (sizeof(T) == 2) {
        unsigned short raw = mode == cudaBoundaryModeZero ? __rg_suld16_2DLayered_zero(s, x, y, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld16_2DLayered_clamp(s, x, y, layer)
                                                 : __rg_suld16_2DLayered_trap(s, x, y, layer);
        __builtin_memcpy(&v, &raw, 2);
    }
    if (sizeof(T) == 4) {
        unsigned int raw = mode == cudaBoundaryModeZero ? __rg_suld32_2DLayered_zero(s, x, y, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld32_2DLayered_clamp(s, x, y, layer)
                                                 : __rg_suld32_2DLayered_trap(s, x, y, layer);
        __builtin_memcpy(&v, &raw, 4);
    }
    if (sizeof(T) == 8) {
        uint2 raw = mode == cudaBoundaryModeZero ? __rg_suld64_2DLayered_zero(s, x, y, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld64_2DLayered_clamp(s, x, y, layer)
                                                 : __rg_suld64_2DLayered_trap(s, x, y, layer);
        __builtin_memcpy(&v, &raw, 8);
    }
    if (sizeof(T) == 16) {
        uint4 raw = mode == cudaBoundaryModeZero ? __rg_suld128_2DLayered_zero(s, x, y, layer)
                 : mode == cudaBoundaryModeClamp ? __rg_suld128_2DLayered_clamp(s, x, y, layer)
                                                 : __rg_suld128_2DLayered_trap(s, x, y, layer);
        __builtin_memcpy(&v, &raw, 16);
    }
    return v;
}
template <class T>
static __device__ __forceinline__ void surf2DLayeredread(T *p, cudaSurfaceObject_t s, int x, int y, int layer,
                                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *p = surf2DLayeredread<T>(s, x, y, layer, mode);
}
template <class T>
static __device__ __forceinline__ void surf2DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int y, int layer,
                                                   cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "surface elements are 1, 2, 4, 8 or 16 bytes");
    if (sizeof(T) == 1) {
        unsigned char raw;
        __builtin_memcpy(&raw, &v, 1);
        if (mode == cudaBoundaryModeZero) __rg_sust8_2DLayered_zero(raw, s, x, y, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust8_2DLayered_clamp(raw, s, x, y, layer);
        else __rg_sust8_2DLayered_trap(raw, s, x, y, layer);
    }
    if (sizeof(T) == 2) {
        unsigned short raw;
        __builtin_memcpy(&raw, &v, 2);
        if (mode == cudaBoundaryModeZero) __rg_sust16_2DLayered_zero(raw, s, x, y, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust16_2DLayered_clamp(raw, s, x, y, layer);
        else __rg_sust16_2DLayered_trap(raw, s, x, y, layer);
    }
    if (sizeof(T) == 4) {
        unsigned int raw;
        __builtin_memcpy(&raw, &v, 4);
        if (mode == cudaBoundaryModeZero) __rg_sust32_2DLayered_zero(raw, s, x, y, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust32_2DLayered_clamp(raw, s, x, y, layer);
        else __rg_sust32_2DLayered_trap(raw, s, x, y, layer);
    }
    if (sizeof(T) == 8) {
        uint2 raw;
        __builtin_memcpy(&raw, &v, 8);
        if (mode == cudaBoundaryModeZero) __rg_sust64_2DLayered_zero(raw, s, x, y, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust64_2DLayered_clamp(raw, s, x, y, layer);
        else __rg_sust64_2DLayered_trap(raw, s, x, y, layer);
    }
    if (sizeof(T) == 16) {
        uint4 raw;
        __builtin_memcpy(&raw, &v, 16);
        if (mode == cudaBoundaryModeZero) __rg_sust128_2DLayered_zero(raw, s, x, y, layer);
        else if (mode == cudaBoundaryModeClamp) __rg_sust128_2DLayered_clamp(raw, s, x, y, layer);
        else __rg_sust128_2DLayered_trap(raw, s, x, y, layer);
    }
}

#undef __RGDEV_SURF__

#endif /* __CUDA__ */

#endif /* __SURFACE_INDIRECT_FUNCTIONS_H__ */
