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
#include "vector_types.h"

#define __RGDEV_SURF__ static __device__ __forceinline__
#define __RGDEV_STRIP(...) __VA_ARGS__

/* The accesses of one geometry G (PTX `pg`) in one boundary mode, each element size: the
   value as 8, 16 or 32 bits, or 2 or 4 words of 32. `coords` names the coordinate
   operands, `params` the coordinate parameters, the rest binds them. */
#define __RGDEV_SURF_MODE(G, pg, mode, coords, params, ...)                                                \
    __RGDEV_SURF__ unsigned char __rg_suld8_##G##_##mode(cudaSurfaceObject_t s, __RGDEV_STRIP params) {   \
        unsigned short r;                                                                                  \
        asm volatile("suld.b." pg ".b8." #mode " {%[r]}, [%[s], {" coords "}];"                             \
                     : [r] "=h"(r) : [s] "l"(s), __VA_ARGS__);                                             \
        return (unsigned char)r;                                                                           \
    }                                                                                                      \
    __RGDEV_SURF__ unsigned short __rg_suld16_##G##_##mode(cudaSurfaceObject_t s, __RGDEV_STRIP params) { \
        unsigned short r;                                                                                  \
        asm volatile("suld.b." pg ".b16." #mode " {%[r]}, [%[s], {" coords "}];"                            \
                     : [r] "=h"(r) : [s] "l"(s), __VA_ARGS__);                                             \
        return r;                                                                                          \
    }                                                                                                      \
    __RGDEV_SURF__ unsigned int __rg_suld32_##G##_##mode(cudaSurfaceObject_t s, __RGDEV_STRIP params) {   \
        unsigned int r;                                                                                    \
        asm volatile("suld.b." pg ".b32." #mode " {%[r]}, [%[s], {" coords "}];"                            \
                     : [r] "=r"(r) : [s] "l"(s), __VA_ARGS__);                                             \
        return r;                                                                                          \
    }                                                                                                      \
    __RGDEV_SURF__ uint2 __rg_suld64_##G##_##mode(cudaSurfaceObject_t s, __RGDEV_STRIP params) {          \
        uint2 r;                                                                                           \
        asm volatile("suld.b." pg ".v2.b32." #mode " {%[r0], %[r1]}, [%[s], {" coords "}];"                 \
                     : [r0] "=r"(r.x), [r1] "=r"(r.y) : [s] "l"(s), __VA_ARGS__);                          \
        return r;                                                                                          \
    }                                                                                                      \
    __RGDEV_SURF__ uint4 __rg_suld128_##G##_##mode(cudaSurfaceObject_t s, __RGDEV_STRIP params) {         \
        uint4 r;                                                                                           \
        asm volatile("suld.b." pg ".v4.b32." #mode " {%[r0], %[r1], %[r2], %[r3]}, [%[s], {" coords "}];"   \
                     : [r0] "=r"(r.x), [r1] "=r"(r.y), [r2] "=r"(r.z), [r3] "=r"(r.w)                      \
                     : [s] "l"(s), __VA_ARGS__);                                                           \
        return r;                                                                                          \
    }                                                                                                      \
    __RGDEV_SURF__ void __rg_sust8_##G##_##mode(unsigned char v, cudaSurfaceObject_t s, __RGDEV_STRIP params) { \
        asm volatile("sust.b." pg ".b8." #mode " [%[s], {" coords "}], {%[v]};"                             \
                     : : [s] "l"(s), [v] "h"((unsigned short)v), __VA_ARGS__ : "memory");                  \
    }                                                                                                      \
    __RGDEV_SURF__ void __rg_sust16_##G##_##mode(unsigned short v, cudaSurfaceObject_t s, __RGDEV_STRIP params) { \
        asm volatile("sust.b." pg ".b16." #mode " [%[s], {" coords "}], {%[v]};"                            \
                     : : [s] "l"(s), [v] "h"(v), __VA_ARGS__ : "memory");                                  \
    }                                                                                                      \
    __RGDEV_SURF__ void __rg_sust32_##G##_##mode(unsigned int v, cudaSurfaceObject_t s, __RGDEV_STRIP params) { \
        asm volatile("sust.b." pg ".b32." #mode " [%[s], {" coords "}], {%[v]};"                            \
                     : : [s] "l"(s), [v] "r"(v), __VA_ARGS__ : "memory");                                  \
    }                                                                                                      \
    __RGDEV_SURF__ void __rg_sust64_##G##_##mode(uint2 v, cudaSurfaceObject_t s, __RGDEV_STRIP params) {  \
        asm volatile("sust.b." pg ".v2.b32." #mode " [%[s], {" coords "}], {%[v0], %[v1]};"                 \
                     : : [s] "l"(s), [v0] "r"(v.x), [v1] "r"(v.y), __VA_ARGS__ : "memory");                \
    }                                                                                                      \
    __RGDEV_SURF__ void __rg_sust128_##G##_##mode(uint4 v, cudaSurfaceObject_t s, __RGDEV_STRIP params) { \
        asm volatile("sust.b." pg ".v4.b32." #mode " [%[s], {" coords "}], {%[v0], %[v1], %[v2], %[v3]};"  \
                     : : [s] "l"(s), [v0] "r"(v.x), [v1] "r"(v.y), [v2] "r"(v.z), [v3] "r"(v.w), __VA_ARGS__ \
                     : "memory");                                                                          \
    }

/* One element access of size B (8, 16, 32, 64, 128 bits) in the mode asked for. */
#define __RGDEV_SURF_READ(G, B, U, ...)                                                                    \
    {                                                                                                      \
        U raw = mode == cudaBoundaryModeZero    ? __rg_suld##B##_##G##_zero(s, __VA_ARGS__)                \
                : mode == cudaBoundaryModeClamp ? __rg_suld##B##_##G##_clamp(s, __VA_ARGS__)               \
                                                : __rg_suld##B##_##G##_trap(s, __VA_ARGS__);               \
        __builtin_memcpy(&v, &raw, sizeof v);                                                              \
    }
#define __RGDEV_SURF_WRITE(G, B, U, ...)                                                                   \
    {                                                                                                      \
        U raw;                                                                                             \
        __builtin_memcpy(&raw, &v, sizeof raw);                                                            \
        if (mode == cudaBoundaryModeZero) __rg_sust##B##_##G##_zero(raw, s, __VA_ARGS__);                  \
        else if (mode == cudaBoundaryModeClamp) __rg_sust##B##_##G##_clamp(raw, s, __VA_ARGS__);           \
        else __rg_sust##B##_##G##_trap(raw, s, __VA_ARGS__);                                               \
    }

/* Geometry G: its accesses in the three modes, and surfGread/surfGwrite for any T. */
#define __RGDEV_SURF_GEOMETRY(G, pg, coords, params, args, ...)                                            \
    __RGDEV_SURF_MODE(G, pg, trap, coords, params, __VA_ARGS__)                                            \
    __RGDEV_SURF_MODE(G, pg, clamp, coords, params, __VA_ARGS__)                                           \
    __RGDEV_SURF_MODE(G, pg, zero, coords, params, __VA_ARGS__)                                            \
    template <class T>                                                                                     \
    static __device__ __forceinline__ T surf##G##read(cudaSurfaceObject_t s, __RGDEV_STRIP params,         \
                                                      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) { \
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, \
                      "surface elements are 1, 2, 4, 8 or 16 bytes");                                      \
        T v;                                                                                               \
        if (sizeof(T) == 1) __RGDEV_SURF_READ(G, 8, unsigned char, __RGDEV_STRIP args)                      \
        else if (sizeof(T) == 2) __RGDEV_SURF_READ(G, 16, unsigned short, __RGDEV_STRIP args)               \
        else if (sizeof(T) == 4) __RGDEV_SURF_READ(G, 32, unsigned int, __RGDEV_STRIP args)                 \
        else if (sizeof(T) == 8) __RGDEV_SURF_READ(G, 64, uint2, __RGDEV_STRIP args)                        \
        else __RGDEV_SURF_READ(G, 128, uint4, __RGDEV_STRIP args)                                           \
        return v;                                                                                          \
    }                                                                                                      \
    template <class T>                                                                                     \
    static __device__ __forceinline__ void surf##G##read(T *p, cudaSurfaceObject_t s, __RGDEV_STRIP params, \
                                                         cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) { \
        *p = surf##G##read<T>(s, __RGDEV_STRIP args, mode);                                                \
    }                                                                                                      \
    template <class T>                                                                                     \
    static __device__ __forceinline__ void surf##G##write(T v, cudaSurfaceObject_t s, __RGDEV_STRIP params, \
                                                          cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) { \
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, \
                      "surface elements are 1, 2, 4, 8 or 16 bytes");                                      \
        if (sizeof(T) == 1) __RGDEV_SURF_WRITE(G, 8, unsigned char, __RGDEV_STRIP args)                     \
        else if (sizeof(T) == 2) __RGDEV_SURF_WRITE(G, 16, unsigned short, __RGDEV_STRIP args)              \
        else if (sizeof(T) == 4) __RGDEV_SURF_WRITE(G, 32, unsigned int, __RGDEV_STRIP args)                \
        else if (sizeof(T) == 8) __RGDEV_SURF_WRITE(G, 64, uint2, __RGDEV_STRIP args)                       \
        else __RGDEV_SURF_WRITE(G, 128, uint4, __RGDEV_STRIP args)                                          \
    }

__RGDEV_SURF_GEOMETRY(1D, "1d", "%[x]", (int x), (x), [x] "r"(x))
__RGDEV_SURF_GEOMETRY(2D, "2d", "%[x], %[y]", (int x, int y), (x, y), [x] "r"(x), [y] "r"(y))
__RGDEV_SURF_GEOMETRY(3D, "3d", "%[x], %[y], %[z], %[z]", (int x, int y, int z), (x, y, z), [x] "r"(x),
                      [y] "r"(y), [z] "r"(z))
__RGDEV_SURF_GEOMETRY(1DLayered, "a1d", "%[l], %[x]", (int x, int layer), (x, layer), [x] "r"(x),
                      [l] "r"(layer))
__RGDEV_SURF_GEOMETRY(2DLayered, "a2d", "%[l], %[x], %[y], %[y]", (int x, int y, int layer), (x, y, layer),
                      [x] "r"(x), [y] "r"(y), [l] "r"(layer))

#undef __RGDEV_SURF_GEOMETRY
#undef __RGDEV_SURF_WRITE
#undef __RGDEV_SURF_READ
#undef __RGDEV_SURF_MODE
#undef __RGDEV_STRIP
#undef __RGDEV_SURF__

#endif /* __CUDA__ */

#endif /* __SURFACE_INDIRECT_FUNCTIONS_H__ */
