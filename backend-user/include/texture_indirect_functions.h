/*
 * texture_indirect_functions.h for rgdev: the device side of texture objects
 * (tex1Dfetch, tex1D, tex2D, tex3D, layered and cube-map fetches, explicit levels of
 * detail, tex2Dgather) for CUDA's element types, as PTX `tex`/`tld4` on the object's
 * handle (rgdev's texture unit samples them). A float type reads floats (normalized for
 * cudaReadModeNormalizedFloat), an integer type reads its element type. Written for rgdev;
 * not NVIDIA's header.
 */
#ifndef __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__

#if defined(__CUDA__)

#include "driver_types.h"
#include "vector_types.h"

#define __RGDEV_TEX__ static __device__ __forceinline__

struct __rg_tex4f {
    float x, y, z, w;
};
struct __rg_tex4i {
    int x, y, z, w;
};
struct __rg_tex4u {
    unsigned int x, y, z, w;
};
__RGDEV_TEX__ __rg_tex4f __rg_tex1Dfetch_f(cudaTextureObject_t t, int x) {
    __rg_tex4f r;
    asm volatile("tex.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "r"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex1D_f(cudaTextureObject_t t, float x) {
    __rg_tex4f r;
    asm volatile("tex.1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2D_f(cudaTextureObject_t t, float x, float y) {
    __rg_tex4f r;
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex3D_f(cudaTextureObject_t t, float x, float y, float z) {
    __rg_tex4f r;
    asm volatile("tex.3d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex1DLayered_f(cudaTextureObject_t t, float x, int layer) {
    __rg_tex4f r;
    asm volatile("tex.a1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "r"(layer), "f"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2DLayered_f(cudaTextureObject_t t, float x, float y, int layer) {
    __rg_tex4f r;
    asm volatile("tex.a2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "r"(layer), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_texCubemap_f(cudaTextureObject_t t, float x, float y, float z) {
    __rg_tex4f r;
    asm volatile("tex.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex1DLod_f(cudaTextureObject_t t, float x, float level) {
    __rg_tex4f r;
    asm volatile("tex.level.1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5}], %6;" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2DLod_f(cudaTextureObject_t t, float x, float y, float level) {
    __rg_tex4f r;
    asm volatile("tex.level.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex3DLod_f(cudaTextureObject_t t, float x, float y, float z, float level) {
    __rg_tex4f r;
    asm volatile("tex.level.3d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], %8;" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2Dgatherr_f(cudaTextureObject_t t, float x, float y) {
    __rg_tex4f r;
    asm volatile("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2Dgatherg_f(cudaTextureObject_t t, float x, float y) {
    __rg_tex4f r;
    asm volatile("tld4.g.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2Dgatherb_f(cudaTextureObject_t t, float x, float y) {
    __rg_tex4f r;
    asm volatile("tld4.b.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2Dgathera_f(cudaTextureObject_t t, float x, float y) {
    __rg_tex4f r;
    asm volatile("tld4.a.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4f __rg_tex2Dgather_f(cudaTextureObject_t t, float x, float y, int comp) {
    switch (comp) {
    case 1: return __rg_tex2Dgatherg_f(t, x, y);
    case 2: return __rg_tex2Dgatherb_f(t, x, y);
    case 3: return __rg_tex2Dgathera_f(t, x, y);
    default: return __rg_tex2Dgatherr_f(t, x, y);
    }
}
__RGDEV_TEX__ __rg_tex4i __rg_tex1Dfetch_i(cudaTextureObject_t t, int x) {
    __rg_tex4i r;
    asm volatile("tex.1d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "r"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex1D_i(cudaTextureObject_t t, float x) {
    __rg_tex4i r;
    asm volatile("tex.1d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2D_i(cudaTextureObject_t t, float x, float y) {
    __rg_tex4i r;
    asm volatile("tex.2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex3D_i(cudaTextureObject_t t, float x, float y, float z) {
    __rg_tex4i r;
    asm volatile("tex.3d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex1DLayered_i(cudaTextureObject_t t, float x, int layer) {
    __rg_tex4i r;
    asm volatile("tex.a1d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "r"(layer), "f"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2DLayered_i(cudaTextureObject_t t, float x, float y, int layer) {
    __rg_tex4i r;
    asm volatile("tex.a2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "r"(layer), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_texCubemap_i(cudaTextureObject_t t, float x, float y, float z) {
    __rg_tex4i r;
    asm volatile("tex.cube.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex1DLod_i(cudaTextureObject_t t, float x, float level) {
    __rg_tex4i r;
    asm volatile("tex.level.1d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5}], %6;" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2DLod_i(cudaTextureObject_t t, float x, float y, float level) {
    __rg_tex4i r;
    asm volatile("tex.level.2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex3DLod_i(cudaTextureObject_t t, float x, float y, float z, float level) {
    __rg_tex4i r;
    asm volatile("tex.level.3d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], %8;" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2Dgatherr_i(cudaTextureObject_t t, float x, float y) {
    __rg_tex4i r;
    asm volatile("tld4.r.2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2Dgatherg_i(cudaTextureObject_t t, float x, float y) {
    __rg_tex4i r;
    asm volatile("tld4.g.2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2Dgatherb_i(cudaTextureObject_t t, float x, float y) {
    __rg_tex4i r;
    asm volatile("tld4.b.2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2Dgathera_i(cudaTextureObject_t t, float x, float y) {
    __rg_tex4i r;
    asm volatile("tld4.a.2d.v4.s32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4i __rg_tex2Dgather_i(cudaTextureObject_t t, float x, float y, int comp) {
    switch (comp) {
    case 1: return __rg_tex2Dgatherg_i(t, x, y);
    case 2: return __rg_tex2Dgatherb_i(t, x, y);
    case 3: return __rg_tex2Dgathera_i(t, x, y);
    default: return __rg_tex2Dgatherr_i(t, x, y);
    }
}
__RGDEV_TEX__ __rg_tex4u __rg_tex1Dfetch_u(cudaTextureObject_t t, int x) {
    __rg_tex4u r;
    asm volatile("tex.1d.v4.u32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "r"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex1D_u(cudaTextureObject_t t, float x) {
    __rg_tex4u r;
    asm volatile("tex.1d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2D_u(cudaTextureObject_t t, float x, float y) {
    __rg_tex4u r;
    asm volatile("tex.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex3D_u(cudaTextureObject_t t, float x, float y, float z) {
    __rg_tex4u r;
    asm volatile("tex.3d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex1DLayered_u(cudaTextureObject_t t, float x, int layer) {
    __rg_tex4u r;
    asm volatile("tex.a1d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "r"(layer), "f"(x));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2DLayered_u(cudaTextureObject_t t, float x, float y, int layer) {
    __rg_tex4u r;
    asm volatile("tex.a2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "r"(layer), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_texCubemap_u(cudaTextureObject_t t, float x, float y, float z) {
    __rg_tex4u r;
    asm volatile("tex.cube.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex1DLod_u(cudaTextureObject_t t, float x, float level) {
    __rg_tex4u r;
    asm volatile("tex.level.1d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5}], %6;" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2DLod_u(cudaTextureObject_t t, float x, float y, float level) {
    __rg_tex4u r;
    asm volatile("tex.level.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex3DLod_u(cudaTextureObject_t t, float x, float y, float z, float level) {
    __rg_tex4u r;
    asm volatile("tex.level.3d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], %8;" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y), "f"(z), "f"(level));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2Dgatherr_u(cudaTextureObject_t t, float x, float y) {
    __rg_tex4u r;
    asm volatile("tld4.r.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2Dgatherg_u(cudaTextureObject_t t, float x, float y) {
    __rg_tex4u r;
    asm volatile("tld4.g.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2Dgatherb_u(cudaTextureObject_t t, float x, float y) {
    __rg_tex4u r;
    asm volatile("tld4.b.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2Dgathera_u(cudaTextureObject_t t, float x, float y) {
    __rg_tex4u r;
    asm volatile("tld4.a.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(t), "f"(x), "f"(y));
    return r;
}
__RGDEV_TEX__ __rg_tex4u __rg_tex2Dgather_u(cudaTextureObject_t t, float x, float y, int comp) {
    switch (comp) {
    case 1: return __rg_tex2Dgatherg_u(t, x, y);
    case 2: return __rg_tex2Dgatherb_u(t, x, y);
    case 3: return __rg_tex2Dgathera_u(t, x, y);
    default: return __rg_tex2Dgatherr_u(t, x, y);
    }
}
__RGDEV_TEX__ void __rg_tex_set(char *v, const __rg_tex4i &r) {
    *v = (char)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(char *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(char *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(char *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(char *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(char *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(char *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(char *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(char *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(char *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(char *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(char *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(signed char *v, const __rg_tex4i &r) {
    *v = (signed char)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(signed char *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(signed char *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(signed char *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(signed char *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(signed char *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(signed char *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(signed char *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(signed char *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(signed char *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(signed char *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(signed char *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(unsigned char *v, const __rg_tex4u &r) {
    *v = (unsigned char)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(unsigned char *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(unsigned char *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(unsigned char *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(unsigned char *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(unsigned char *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(unsigned char *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(unsigned char *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(unsigned char *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(unsigned char *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(unsigned char *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(unsigned char *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(short *v, const __rg_tex4i &r) {
    *v = (short)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(short *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(short *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(short *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(short *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(short *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(short *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(short *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(short *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(short *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(short *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(short *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(unsigned short *v, const __rg_tex4u &r) {
    *v = (unsigned short)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(unsigned short *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(unsigned short *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(unsigned short *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(unsigned short *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(unsigned short *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(unsigned short *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(unsigned short *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(unsigned short *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(unsigned short *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(unsigned short *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(unsigned short *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(int *v, const __rg_tex4i &r) {
    *v = (int)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(int *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(int *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(int *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(int *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(int *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(int *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(int *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(int *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(int *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(int *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(int *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(unsigned int *v, const __rg_tex4u &r) {
    *v = (unsigned int)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(unsigned int *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(unsigned int *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(unsigned int *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(unsigned int *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(unsigned int *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(unsigned int *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(unsigned int *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(unsigned int *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(unsigned int *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(unsigned int *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(unsigned int *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(float *v, const __rg_tex4f &r) {
    *v = (float)r.x;
}
__RGDEV_TEX__ void tex1Dfetch(float *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_f(t, x)); }
__RGDEV_TEX__ void tex1D(float *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_f(t, x)); }
__RGDEV_TEX__ void tex2D(float *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_f(t, x, y)); }
__RGDEV_TEX__ void tex3D(float *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(float *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_f(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(float *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_f(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(float *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(float *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_f(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(float *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_f(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(float *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_f(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(float *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_f(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(char1 *v, const __rg_tex4i &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(char1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(char1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(char1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(char1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(char1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(char1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(char1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(char1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(char1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(char1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(char1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(uchar1 *v, const __rg_tex4u &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(uchar1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(uchar1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(uchar1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(uchar1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(uchar1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(uchar1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(uchar1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(uchar1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(uchar1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(uchar1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(uchar1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(short1 *v, const __rg_tex4i &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(short1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(short1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(short1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(short1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(short1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(short1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(short1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(short1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(short1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(short1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(short1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(ushort1 *v, const __rg_tex4u &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(ushort1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(ushort1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(ushort1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(ushort1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(ushort1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(ushort1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(ushort1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(ushort1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(ushort1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(ushort1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(ushort1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(int1 *v, const __rg_tex4i &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(int1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(int1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(int1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(int1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(int1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(int1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(int1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(int1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(int1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(int1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(int1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(uint1 *v, const __rg_tex4u &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(uint1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(uint1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(uint1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(uint1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(uint1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(uint1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(uint1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(uint1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(uint1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(uint1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(uint1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(float1 *v, const __rg_tex4f &r) {
    v->x = r.x;
}
__RGDEV_TEX__ void tex1Dfetch(float1 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_f(t, x)); }
__RGDEV_TEX__ void tex1D(float1 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_f(t, x)); }
__RGDEV_TEX__ void tex2D(float1 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_f(t, x, y)); }
__RGDEV_TEX__ void tex3D(float1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(float1 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_f(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(float1 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_f(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(float1 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(float1 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_f(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(float1 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_f(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(float1 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_f(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(float1 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_f(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(char2 *v, const __rg_tex4i &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(char2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(char2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(char2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(char2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(char2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(char2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(char2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(char2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(char2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(char2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(char2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(uchar2 *v, const __rg_tex4u &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(uchar2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(uchar2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(uchar2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(uchar2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(uchar2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(uchar2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(uchar2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(uchar2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(uchar2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(uchar2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(uchar2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(short2 *v, const __rg_tex4i &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(short2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(short2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(short2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(short2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(short2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(short2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(short2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(short2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(short2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(short2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(short2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(ushort2 *v, const __rg_tex4u &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(ushort2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(ushort2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(ushort2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(ushort2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(ushort2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(ushort2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(ushort2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(ushort2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(ushort2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(ushort2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(ushort2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(int2 *v, const __rg_tex4i &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(int2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(int2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(int2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(int2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(int2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(int2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(int2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(int2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(int2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(int2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(int2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(uint2 *v, const __rg_tex4u &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(uint2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(uint2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(uint2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(uint2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(uint2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(uint2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(uint2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(uint2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(uint2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(uint2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(uint2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(float2 *v, const __rg_tex4f &r) {
    v->x = r.x;
    v->y = r.y;
}
__RGDEV_TEX__ void tex1Dfetch(float2 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_f(t, x)); }
__RGDEV_TEX__ void tex1D(float2 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_f(t, x)); }
__RGDEV_TEX__ void tex2D(float2 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_f(t, x, y)); }
__RGDEV_TEX__ void tex3D(float2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(float2 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_f(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(float2 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_f(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(float2 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(float2 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_f(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(float2 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_f(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(float2 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_f(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(float2 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_f(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(char4 *v, const __rg_tex4i &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(char4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(char4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(char4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(char4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(char4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(char4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(char4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(char4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(char4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(char4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(char4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(uchar4 *v, const __rg_tex4u &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(uchar4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(uchar4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(uchar4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(uchar4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(uchar4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(uchar4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(uchar4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(uchar4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(uchar4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(uchar4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(uchar4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(short4 *v, const __rg_tex4i &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(short4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(short4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(short4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(short4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(short4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(short4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(short4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(short4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(short4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(short4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(short4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(ushort4 *v, const __rg_tex4u &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(ushort4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(ushort4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(ushort4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(ushort4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(ushort4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(ushort4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(ushort4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(ushort4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(ushort4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(ushort4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(ushort4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(int4 *v, const __rg_tex4i &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(int4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_i(t, x)); }
__RGDEV_TEX__ void tex1D(int4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_i(t, x)); }
__RGDEV_TEX__ void tex2D(int4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_i(t, x, y)); }
__RGDEV_TEX__ void tex3D(int4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(int4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_i(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(int4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_i(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(int4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_i(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(int4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_i(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(int4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_i(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(int4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_i(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(int4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_i(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(uint4 *v, const __rg_tex4u &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(uint4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_u(t, x)); }
__RGDEV_TEX__ void tex1D(uint4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_u(t, x)); }
__RGDEV_TEX__ void tex2D(uint4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_u(t, x, y)); }
__RGDEV_TEX__ void tex3D(uint4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(uint4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_u(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(uint4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_u(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(uint4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_u(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(uint4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_u(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(uint4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_u(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(uint4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_u(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(uint4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_u(t, x, y, comp)); }
__RGDEV_TEX__ void __rg_tex_set(float4 *v, const __rg_tex4f &r) {
    v->x = r.x;
    v->y = r.y;
    v->z = r.z;
    v->w = r.w;
}
__RGDEV_TEX__ void tex1Dfetch(float4 *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_f(t, x)); }
__RGDEV_TEX__ void tex1D(float4 *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_f(t, x)); }
__RGDEV_TEX__ void tex2D(float4 *v, cudaTextureObject_t t, float x, float y) { __rg_tex_set(v, __rg_tex2D_f(t, x, y)); }
__RGDEV_TEX__ void tex3D(float4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_tex3D_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLayered(float4 *v, cudaTextureObject_t t, float x, int layer) { __rg_tex_set(v, __rg_tex1DLayered_f(t, x, layer)); }
__RGDEV_TEX__ void tex2DLayered(float4 *v, cudaTextureObject_t t, float x, float y, int layer) { __rg_tex_set(v, __rg_tex2DLayered_f(t, x, y, layer)); }
__RGDEV_TEX__ void texCubemap(float4 *v, cudaTextureObject_t t, float x, float y, float z) { __rg_tex_set(v, __rg_texCubemap_f(t, x, y, z)); }
__RGDEV_TEX__ void tex1DLod(float4 *v, cudaTextureObject_t t, float x, float level) { __rg_tex_set(v, __rg_tex1DLod_f(t, x, level)); }
__RGDEV_TEX__ void tex2DLod(float4 *v, cudaTextureObject_t t, float x, float y, float level) { __rg_tex_set(v, __rg_tex2DLod_f(t, x, y, level)); }
__RGDEV_TEX__ void tex3DLod(float4 *v, cudaTextureObject_t t, float x, float y, float z, float level) { __rg_tex_set(v, __rg_tex3DLod_f(t, x, y, z, level)); }
__RGDEV_TEX__ void tex2Dgather(float4 *v, cudaTextureObject_t t, float x, float y, int comp = 0) { __rg_tex_set(v, __rg_tex2Dgather_f(t, x, y, comp)); }
template <class T> static __device__ __forceinline__ T tex1Dfetch(cudaTextureObject_t t, int x) {
    T v;
    tex1Dfetch(&v, t, x);
    return v;
}
template <class T> static __device__ __forceinline__ T tex1D(cudaTextureObject_t t, float x) {
    T v;
    tex1D(&v, t, x);
    return v;
}
template <class T> static __device__ __forceinline__ T tex2D(cudaTextureObject_t t, float x, float y) {
    T v;
    tex2D(&v, t, x, y);
    return v;
}
template <class T> static __device__ __forceinline__ T tex3D(cudaTextureObject_t t, float x, float y, float z) {
    T v;
    tex3D(&v, t, x, y, z);
    return v;
}
template <class T> static __device__ __forceinline__ T tex1DLayered(cudaTextureObject_t t, float x, int layer) {
    T v;
    tex1DLayered(&v, t, x, layer);
    return v;
}
template <class T> static __device__ __forceinline__ T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer) {
    T v;
    tex2DLayered(&v, t, x, y, layer);
    return v;
}
template <class T> static __device__ __forceinline__ T texCubemap(cudaTextureObject_t t, float x, float y, float z) {
    T v;
    texCubemap(&v, t, x, y, z);
    return v;
}
template <class T> static __device__ __forceinline__ T tex1DLod(cudaTextureObject_t t, float x, float level) {
    T v;
    tex1DLod(&v, t, x, level);
    return v;
}
template <class T> static __device__ __forceinline__ T tex2DLod(cudaTextureObject_t t, float x, float y, float level) {
    T v;
    tex2DLod(&v, t, x, y, level);
    return v;
}
template <class T> static __device__ __forceinline__ T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float level) {
    T v;
    tex3DLod(&v, t, x, y, z, level);
    return v;
}
template <class T> static __device__ __forceinline__ T tex2Dgather(cudaTextureObject_t t, float x, float y, int comp = 0) {
    T v;
    tex2Dgather(&v, t, x, y, comp);
    return v;
}

#undef __RGDEV_TEX__

#endif /* __CUDA__ */

#endif /* __TEXTURE_INDIRECT_FUNCTIONS_H__ */
