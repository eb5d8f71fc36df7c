/* Shared by the C texture tests: a CPU model of CUDA's texture fetching (the programming
 * guide's description: address modes, point and linear filtering with 1.8 fixed-point
 * weights), a reproducible random source, and whole-array uploads and downloads. */
#ifndef RGDEV_TEST_TEXFETCH_H
#define RGDEV_TEST_TEXFETCH_H

#include <cuda.h>
#include <math.h>
#include <string.h>

#include "check.h"

enum { WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER = 3 };

/* The texel index an address mode makes of i in [0, n), or -1 for the border color. */
__attribute__((unused)) static int address(int i, int n, int mode) {
    switch (mode) {
    case WRAP: return ((i % n) + n) % n;
    case MIRROR: {
        int r = ((i % (2 * n)) + 2 * n) % (2 * n);
        return r < n ? r : 2 * n - 1 - r;
    }
    case CLAMP: return i < 0 ? 0 : i >= n ? n - 1 : i;
    default: return i < 0 || i >= n ? -1 : i;
    }
}

/* CUDA's texture fetch of a 1-channel float 3D texture T (depth 1 for 2D), as the
 * programming guide describes it: point or linear filtering with 1.8 fixed-point weights;
 * wrap and mirror apply to normalized coordinates only. */
__attribute__((unused)) static float fetch_ref(const float *T, const int size[3], int dims, const float c[3], int mode, int linear,
                       int norm, float border) {
    int m = (!norm && (mode == WRAP || mode == MIRROR)) ? CLAMP : mode;
    int i0[3] = {0, 0, 0};
    float a[3] = {0, 0, 0};
    for (int k = 0; k < dims; k++) {
        float u = norm ? c[k] * size[k] : c[k];
        if (linear) {
            float ub = u - 0.5f, f = floorf(ub);
            i0[k] = (int)f;
            a[k] = roundf((ub - f) * 256.0f) / 256.0f;
        } else {
            i0[k] = (int)floorf(u);
        }
    }
    float acc = 0;
    for (int corner = 0; corner < (linear ? 1 << dims : 1); corner++) {
        float w = 1;
        int at[3] = {0, 0, 0}, out = 0;
        for (int k = 0; k < dims; k++) {
            int hi = corner >> k & 1;
            w *= hi ? a[k] : 1 - a[k];
            at[k] = address(i0[k] + hi, size[k], m);
            out |= at[k] < 0;
        }
        float t = out ? border : T[(at[2] * size[1] + at[1]) * size[0] + at[0]];
        acc += linear ? w * t : t;
    }
    return acc;
}

static unsigned seed = 12345;
__attribute__((unused)) static float rnd(float lo, float hi) {
    seed = seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (float)((seed >> 8) & 0xFFFF) / 65536.0f;
}

/* Copy `height` rows of `row_bytes` (densely packed at `host`) to or from 2D array `a`. */
__attribute__((unused)) static void array2d_copy(CUarray a, void *host, size_t row_bytes, size_t height, int to_array) {
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = row_bytes;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = row_bytes;
    }
    c.WidthInBytes = row_bytes;
    c.Height = height;
    CHECK(cuMemcpy2D(&c));
}

/* Copy `depth` slices (or layers) of `height` rows of `row_bytes`, densely packed at
 * `host`, into array `a` (`to_array`) or out of it. */
__attribute__((unused)) static void array3d_copy(CUarray a, void *host, size_t row_bytes, size_t height, size_t depth,
                                                 int to_array) {
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = row_bytes;
        c.srcHeight = height;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = row_bytes;
        c.dstHeight = height;
    }
    c.WidthInBytes = row_bytes;
    c.Height = height;
    c.Depth = depth;
    CHECK(cuMemcpy3D(&c));
}

#endif
