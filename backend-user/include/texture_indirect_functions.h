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
#define __RGDEV_STRIP(...) __VA_ARGS__

/* One fetch of four components of kind K (C type CT, asm constraint RC, PTX type PT):
   `op` the instruction, `ct` the coordinate type, `coords` the coordinate vector, `lod`
   a level-of-detail operand, `params` the function's coordinate parameters. */
#define __RGDEV_FETCH(K, RC, PT, name, op, ct, coords, lod, params, ...)                                   \
    __RGDEV_TEX__ __rg_tex4##K __rg_##name##_##K(cudaTextureObject_t t, __RGDEV_STRIP params) {           \
        __rg_tex4##K r;                                                                                    \
        asm volatile(op ".v4." PT "." ct " {%[x], %[y], %[z], %[w]}, [%[t], {" coords "}]" lod ";"         \
                     : [x] "=" RC(r.x), [y] "=" RC(r.y), [z] "=" RC(r.z), [w] "=" RC(r.w)                  \
                     : [t] "l"(t), __VA_ARGS__);                                                           \
        return r;                                                                                          \
    }

/* Every fetch for one kind of result. */
#define __RGDEV_FETCHES(K, CT, RC, PT)                                                                     \
    struct __rg_tex4##K {                                                                                  \
        CT x, y, z, w;                                                                                     \
    };                                                                                                     \
    __RGDEV_FETCH(K, RC, PT, tex1Dfetch, "tex.1d", "s32", "%[a]", "", (int x), [a] "r"(x))                 \
    __RGDEV_FETCH(K, RC, PT, tex1D, "tex.1d", "f32", "%[a]", "", (float x), [a] "f"(x))                    \
    __RGDEV_FETCH(K, RC, PT, tex2D, "tex.2d", "f32", "%[a], %[b]", "", (float x, float y), [a] "f"(x),    \
                  [b] "f"(y))                                                                              \
    __RGDEV_FETCH(K, RC, PT, tex3D, "tex.3d", "f32", "%[a], %[b], %[c], %[c]", "", (float x, float y,       \
                  float z), [a] "f"(x), [b] "f"(y), [c] "f"(z))                                            \
    __RGDEV_FETCH(K, RC, PT, tex1DLayered, "tex.a1d", "f32", "%[l], %[a]", "", (float x, int layer),       \
                  [l] "r"(layer), [a] "f"(x))                                                              \
    __RGDEV_FETCH(K, RC, PT, tex2DLayered, "tex.a2d", "f32", "%[l], %[a], %[b], %[b]", "", (float x,       \
                  float y, int layer), [l] "r"(layer), [a] "f"(x), [b] "f"(y))                             \
    __RGDEV_FETCH(K, RC, PT, texCubemap, "tex.cube", "f32", "%[a], %[b], %[c], %[c]", "", (float x,         \
                  float y, float z), [a] "f"(x), [b] "f"(y), [c] "f"(z))                                   \
    __RGDEV_FETCH(K, RC, PT, tex1DLod, "tex.level.1d", "f32", "%[a]", ", %[d]", (float x, float level),    \
                  [a] "f"(x), [d] "f"(level))                                                              \
    __RGDEV_FETCH(K, RC, PT, tex2DLod, "tex.level.2d", "f32", "%[a], %[b]", ", %[d]", (float x, float y,   \
                  float level), [a] "f"(x), [b] "f"(y), [d] "f"(level))                                    \
    __RGDEV_FETCH(K, RC, PT, tex3DLod, "tex.level.3d", "f32", "%[a], %[b], %[c], %[c]", ", %[d]",          \
                  (float x, float y, float z, float level), [a] "f"(x), [b] "f"(y), [c] "f"(z),            \
                  [d] "f"(level))                                                                          \
    __RGDEV_FETCH(K, RC, PT, gather_r, "tld4.r.2d", "f32", "%[a], %[b]", "", (float x, float y),           \
                  [a] "f"(x), [b] "f"(y))                                                                  \
    __RGDEV_FETCH(K, RC, PT, gather_g, "tld4.g.2d", "f32", "%[a], %[b]", "", (float x, float y),           \
                  [a] "f"(x), [b] "f"(y))                                                                  \
    __RGDEV_FETCH(K, RC, PT, gather_b, "tld4.b.2d", "f32", "%[a], %[b]", "", (float x, float y),           \
                  [a] "f"(x), [b] "f"(y))                                                                  \
    __RGDEV_FETCH(K, RC, PT, gather_a, "tld4.a.2d", "f32", "%[a], %[b]", "", (float x, float y),           \
                  [a] "f"(x), [b] "f"(y))                                                                  \
    __RGDEV_TEX__ __rg_tex4##K __rg_tex2Dgather_##K(cudaTextureObject_t t, float x, float y, int comp) {   \
        return comp == 1 ? __rg_gather_g_##K(t, x, y)                                                      \
             : comp == 2 ? __rg_gather_b_##K(t, x, y)                                                      \
             : comp == 3 ? __rg_gather_a_##K(t, x, y)                                                      \
                         : __rg_gather_r_##K(t, x, y);                                                     \
    }
__RGDEV_FETCHES(f, float, "f", "f32")
__RGDEV_FETCHES(i, int, "r", "s32")
__RGDEV_FETCHES(u, unsigned int, "r", "u32")
#undef __RGDEV_FETCHES
#undef __RGDEV_FETCH

/* The result as element type T: its first 1, 2 or 4 components. */
#define __RGDEV_SET_SCALAR *v = (__typeof__(*v))r.x;
#define __RGDEV_SET_V1 v->x = r.x;
#define __RGDEV_SET_V2 v->x = r.x, v->y = r.y;
#define __RGDEV_SET_V4 v->x = r.x, v->y = r.y, v->z = r.z, v->w = r.w;

/* The fetches of element type T, of kind K. */
#define __RGDEV_TEX_TYPE(T, K, SET)                                                                        \
    __RGDEV_TEX__ void __rg_tex_set(T *v, const __rg_tex4##K &r) { SET }                                   \
    __RGDEV_TEX__ void tex1Dfetch(T *v, cudaTextureObject_t t, int x) { __rg_tex_set(v, __rg_tex1Dfetch_##K(t, x)); } \
    __RGDEV_TEX__ void tex1D(T *v, cudaTextureObject_t t, float x) { __rg_tex_set(v, __rg_tex1D_##K(t, x)); } \
    __RGDEV_TEX__ void tex2D(T *v, cudaTextureObject_t t, float x, float y) {                              \
        __rg_tex_set(v, __rg_tex2D_##K(t, x, y));                                                          \
    }                                                                                                      \
    __RGDEV_TEX__ void tex3D(T *v, cudaTextureObject_t t, float x, float y, float z) {                     \
        __rg_tex_set(v, __rg_tex3D_##K(t, x, y, z));                                                       \
    }                                                                                                      \
    __RGDEV_TEX__ void tex1DLayered(T *v, cudaTextureObject_t t, float x, int layer) {                     \
        __rg_tex_set(v, __rg_tex1DLayered_##K(t, x, layer));                                               \
    }                                                                                                      \
    __RGDEV_TEX__ void tex2DLayered(T *v, cudaTextureObject_t t, float x, float y, int layer) {            \
        __rg_tex_set(v, __rg_tex2DLayered_##K(t, x, y, layer));                                            \
    }                                                                                                      \
    __RGDEV_TEX__ void texCubemap(T *v, cudaTextureObject_t t, float x, float y, float z) {                \
        __rg_tex_set(v, __rg_texCubemap_##K(t, x, y, z));                                                  \
    }                                                                                                      \
    __RGDEV_TEX__ void tex1DLod(T *v, cudaTextureObject_t t, float x, float level) {                       \
        __rg_tex_set(v, __rg_tex1DLod_##K(t, x, level));                                                   \
    }                                                                                                      \
    __RGDEV_TEX__ void tex2DLod(T *v, cudaTextureObject_t t, float x, float y, float level) {              \
        __rg_tex_set(v, __rg_tex2DLod_##K(t, x, y, level));                                                \
    }                                                                                                      \
    __RGDEV_TEX__ void tex3DLod(T *v, cudaTextureObject_t t, float x, float y, float z, float level) {     \
        __rg_tex_set(v, __rg_tex3DLod_##K(t, x, y, z, level));                                             \
    }                                                                                                      \
    __RGDEV_TEX__ void tex2Dgather(T *v, cudaTextureObject_t t, float x, float y, int comp = 0) {          \
        __rg_tex_set(v, __rg_tex2Dgather_##K(t, x, y, comp));                                              \
    }
#define __RGDEV_TEX_VECTORS(T, K)                                                                          \
    __RGDEV_TEX_TYPE(T##1, K, __RGDEV_SET_V1)                                                              \
    __RGDEV_TEX_TYPE(T##2, K, __RGDEV_SET_V2) __RGDEV_TEX_TYPE(T##4, K, __RGDEV_SET_V4)
__RGDEV_TEX_TYPE(char, i, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(signed char, i, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(unsigned char, u, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(short, i, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(unsigned short, u, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(int, i, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(unsigned int, u, __RGDEV_SET_SCALAR)
__RGDEV_TEX_TYPE(float, f, __RGDEV_SET_SCALAR)
__RGDEV_TEX_VECTORS(char, i)
__RGDEV_TEX_VECTORS(uchar, u)
__RGDEV_TEX_VECTORS(short, i)
__RGDEV_TEX_VECTORS(ushort, u)
__RGDEV_TEX_VECTORS(int, i)
__RGDEV_TEX_VECTORS(uint, u)
__RGDEV_TEX_VECTORS(float, f)
#undef __RGDEV_TEX_VECTORS
#undef __RGDEV_TEX_TYPE

/* The forms that return the element: tex2D<float4>(t, x, y). */
#define __RGDEV_TEX_RETURN(name, params, ...)                                                              \
    template <class T> static __device__ __forceinline__ T name(cudaTextureObject_t t, __RGDEV_STRIP params) { \
        T v;                                                                                               \
        name(&v, t, __VA_ARGS__);                                                                          \
        return v;                                                                                          \
    }
__RGDEV_TEX_RETURN(tex1Dfetch, (int x), x)
__RGDEV_TEX_RETURN(tex1D, (float x), x)
__RGDEV_TEX_RETURN(tex2D, (float x, float y), x, y)
__RGDEV_TEX_RETURN(tex3D, (float x, float y, float z), x, y, z)
__RGDEV_TEX_RETURN(tex1DLayered, (float x, int layer), x, layer)
__RGDEV_TEX_RETURN(tex2DLayered, (float x, float y, int layer), x, y, layer)
__RGDEV_TEX_RETURN(texCubemap, (float x, float y, float z), x, y, z)
__RGDEV_TEX_RETURN(tex1DLod, (float x, float level), x, level)
__RGDEV_TEX_RETURN(tex2DLod, (float x, float y, float level), x, y, level)
__RGDEV_TEX_RETURN(tex3DLod, (float x, float y, float z, float level), x, y, z, level)
__RGDEV_TEX_RETURN(tex2Dgather, (float x, float y, int comp = 0), x, y, comp)
#undef __RGDEV_TEX_RETURN

#undef __RGDEV_SET_SCALAR
#undef __RGDEV_SET_V1
#undef __RGDEV_SET_V2
#undef __RGDEV_SET_V4
#undef __RGDEV_STRIP
#undef __RGDEV_TEX__

#endif /* __CUDA__ */

#endif /* __TEXTURE_INDIRECT_FUNCTIONS_H__ */
