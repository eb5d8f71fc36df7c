/* Mipmapped arrays: levels made, filled and read back through cuMipmappedArrayGetLevel,
 * and sampled at a level of detail (tex.level) with the sampler's bias and clamps, in
 * every filter x mipmap filter x normalization, against a CPU model: the nearest level
 * (point) or the two around it blended by the fraction in 1.8 fixed point (linear). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "texfetch.h"

/* out[i] = tex.level of texture t at coords[i] = (x, y, z, lod). */
#define LOD_KERNEL(name, instr)                                                                          \
    ".visible .entry " name "(.param .u64 t, .param .u64 c, .param .u64 o, .param .u32 n)\n{\n"          \
    " .reg .pred %p;\n .reg .b32 %r<8>;\n .reg .f32 %f<12>;\n .reg .b64 %rd<8>;\n"                     \
    " ld.param.u64 %rd1, [t];\n ld.param.u64 %rd2, [c];\n ld.param.u64 %rd3, [o];\n"                    \
    " ld.param.u32 %r1, [n];\n mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n"                         \
    " mov.u32 %r4, %ntid.x;\n mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n"             \
    " @%p bra DONE;\n mul.wide.u32 %rd4, %r2, 16;\n add.u64 %rd5, %rd2, %rd4;\n"                        \
    " ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd5];\n " instr "\n"                                     \
    " add.u64 %rd6, %rd3, %rd4;\n st.global.v4.f32 [%rd6], {%f1, %f2, %f3, %f4};\n"                     \
    "DONE:\n ret;\n}\n"

static const char *PTX = ".version 6.4\n.target sm_70\n.address_size 64\n" LOD_KERNEL(
    "lod1d", "tex.level.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}], %f8;")
    LOD_KERNEL("lod2d", "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f8;")
        LOD_KERNEL("lod3d", "tex.level.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}], %f8;")
            LOD_KERNEL("plain2d", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];")
    /* The same through a texture reference (the handle parameter is unused). */
    ".global .texref mref;\n" LOD_KERNEL("reflod", "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [mref, {%f5, %f6}], %f8;");

enum { N = 300, MAXL = 8 };

/* A mipmapped float array of `dims` dimensions and its levels' contents on the host. */
struct mip {
    CUmipmappedArray m;
    int levels, dims, size[MAXL][3];
    float *T[MAXL];
};

static void mip_make(struct mip *p, int dims, const int size[3], int levels) {
    CUDA_ARRAY3D_DESCRIPTOR d = {size[0], dims > 1 ? size[1] : 0, dims > 2 ? size[2] : 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CHECK(cuMipmappedArrayCreate(&p->m, &d, levels));
    p->levels = levels;
    p->dims = dims;
    for (int l = 0; l < levels; l++) {
        int *s = p->size[l], count = 1;
        for (int k = 0; k < 3; k++) {
            s[k] = k < dims ? size[k] >> l : 1;
            if (s[k] < 1) s[k] = 1;
            count *= s[k];
        }
        p->T[l] = malloc(sizeof(float) * count);
        for (int i = 0; i < count; i++) p->T[l][i] = rnd(-50.0f, 50.0f);
        CUarray a, again;
        CHECK(cuMipmappedArrayGetLevel(&a, p->m, l));
        CHECK(cuMipmappedArrayGetLevel(&again, p->m, l));
        TRUE(a == again);
        CUDA_ARRAY3D_DESCRIPTOR ld;
        CHECK(cuArray3DGetDescriptor(&ld, a));
        TRUE(ld.Width == (size_t)s[0] && ld.Height == (dims > 1 ? (size_t)s[1] : 0) &&
             ld.Depth == (dims > 2 ? (size_t)s[2] : 0));
        array3d_copy(a, p->T[l], s[0] * 4, s[1], s[2], 1);
        /* Read back: the level's contents, not another level's. */
        float *back = malloc(sizeof(float) * count);
        array3d_copy(a, back, s[0] * 4, s[1], s[2], 0);
        TRUE(memcmp(back, p->T[l], sizeof(float) * count) == 0);
        free(back);
    }
}

/* The CPU model: level of detail `lod` plus the bias, clamped, then one level or two. */
static float mip_ref(const struct mip *p, const float c[3], float lod, int mode, int linear, int norm, int mip_linear,
                     float bias, float lo, float hi) {
    float lam = lod + bias;
    lam = fminf(fmaxf(lam, lo), fmaxf(hi, lo));
    lam = fminf(fmaxf(lam, 0.0f), (float)(p->levels - 1));
    int k = mip_linear ? (int)floorf(lam) : (int)floorf(lam + 0.5f);
    if (k > p->levels - 1) k = p->levels - 1;
    float w = mip_linear ? roundf((lam - (float)k) * 256.0f) / 256.0f : 0.0f;
    float v[2];
    for (int j = 0; j < (w != 0.0f && k < p->levels - 1 ? 2 : 1); j++) {
        const int *s = p->size[k + j];
        float cl[3];
        /* Texel coordinates address level 0's texels. */
        for (int a = 0; a < 3; a++) cl[a] = norm ? c[a] : c[a] * ((float)s[a] / (float)p->size[0][a]);
        v[j] = fetch_ref(p->T[k + j], s, p->dims, cl, mode, linear, norm, 0.0f);
    }
    return w != 0.0f && k < p->levels - 1 ? (1.0f - w) * v[0] + w * v[1] : v[0];
}

static int sweep(CUfunction f, const struct mip *p) {
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    r.res.mipmap.hMipmappedArray = p->m;
    CUdeviceptr dc, dout;
    CHECK(cuMemAlloc(&dc, 16 * N));
    CHECK(cuMemAlloc(&dout, 16 * N));
    static float coords[4 * N], out[4 * N];
    int bad = 0;
    const float clamps[2][2] = {{0.0f, 15.0f}, {0.5f, 2.25f}};
    for (int cfg = 0; cfg < 16; cfg++) {
        int linear = cfg & 1, mip_linear = cfg >> 1 & 1, norm = cfg >> 2 & 1, clamp = cfg >> 3 & 1;
        int mode = norm ? WRAP : CLAMP;
        float bias = clamp ? -0.25f : 0.5f, lo = clamps[clamp][0], hi = clamps[clamp][1];
        CUDA_TEXTURE_DESC t;
        memset(&t, 0, sizeof t);
        t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = (CUaddress_mode)mode;
        t.filterMode = linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
        t.mipmapFilterMode = mip_linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
        t.mipmapLevelBias = bias;
        t.minMipmapLevelClamp = lo;
        t.maxMipmapLevelClamp = hi;
        t.flags = norm ? CU_TRSF_NORMALIZED_COORDINATES : 0;
        CUtexObject tex;
        CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
        for (int i = 0; i < N; i++) {
            for (int a = 0; a < 3; a++)
                coords[4 * i + a] = norm ? rnd(-0.5f, 1.5f) : rnd(-2.0f, (float)p->size[0][a] + 2.0f);
            coords[4 * i + 3] = rnd(-1.0f, (float)p->levels + 1.0f);
        }
        CHECK(cuMemcpyHtoD(dc, coords, sizeof coords));
        unsigned n = N;
        void *params[] = {&tex, &dc, &dout, &n};
        CHECK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
        CHECK(cuMemcpyDtoH(out, dout, sizeof out));
        for (int i = 0; i < N; i++) {
            float want = mip_ref(p, &coords[4 * i], coords[4 * i + 3], mode, linear, norm, mip_linear, bias, lo, hi);
            if (!(fabsf(out[4 * i] - want) <= 1e-4f * (1 + fabsf(want))) && bad++ < 5)
                fprintf(stderr, "%dD cfg %d at (%g, %g, %g) lod %g: got %g, want %g\n", p->dims, cfg, coords[4 * i],
                        coords[4 * i + 1], coords[4 * i + 2], coords[4 * i + 3], out[4 * i], want);
        }
        /* The descriptors read back. */
        CUDA_TEXTURE_DESC tb;
        CUDA_RESOURCE_DESC rb;
        CHECK(cuTexObjectGetTextureDesc(&tb, tex));
        CHECK(cuTexObjectGetResourceDesc(&rb, tex));
        TRUE(tb.mipmapFilterMode == t.mipmapFilterMode && tb.mipmapLevelBias == bias &&
             tb.minMipmapLevelClamp == lo && tb.maxMipmapLevelClamp == hi);
        TRUE(rb.resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY && rb.res.mipmap.hMipmappedArray == p->m);
        CHECK(cuTexObjectDestroy(tex));
    }
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(dout));
    return bad;
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction lod1d, lod2d, lod3d, plain2d, reflod;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&lod1d, mod, "lod1d"));
    CHECK(cuModuleGetFunction(&lod2d, mod, "lod2d"));
    CHECK(cuModuleGetFunction(&lod3d, mod, "lod3d"));
    CHECK(cuModuleGetFunction(&plain2d, mod, "plain2d"));
    CHECK(cuModuleGetFunction(&reflod, mod, "reflod"));

    /* 1D: 40, 20, 10, 5; 2D: 37x21 down to 2x1; 3D: 8x6x4, 4x3x2, 2x1x1. */
    struct mip m1, m2, m3;
    mip_make(&m1, 1, (int[3]){40, 1, 1}, 4);
    mip_make(&m2, 2, (int[3]){37, 21, 1}, 5);
    mip_make(&m3, 3, (int[3]){8, 6, 4}, 3);
    TRUE(sweep(lod1d, &m1) == 0);
    TRUE(sweep(lod2d, &m2) == 0);
    TRUE(sweep(lod3d, &m3) == 0);

    /* Without a level of detail (tex.2d): level 0 plus the bias (here level 1). */
    {
        CUDA_RESOURCE_DESC r;
        memset(&r, 0, sizeof r);
        r.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        r.res.mipmap.hMipmappedArray = m2.m;
        CUDA_TEXTURE_DESC t;
        memset(&t, 0, sizeof t);
        t.mipmapLevelBias = 1.0f;
        t.maxMipmapLevelClamp = 4.0f;
        CUtexObject tex;
        CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
        float coords[4 * 8], out[4 * 8];
        for (int i = 0; i < 8; i++) {
            coords[4 * i] = (float)(2 * i) + 0.5f;
            coords[4 * i + 1] = 3.5f;
        }
        CUdeviceptr dc, dout;
        CHECK(cuMemAlloc(&dc, sizeof coords));
        CHECK(cuMemAlloc(&dout, sizeof out));
        CHECK(cuMemcpyHtoD(dc, coords, sizeof coords));
        unsigned n = 8;
        void *params[] = {&tex, &dc, &dout, &n};
        CHECK(cuLaunchKernel(plain2d, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
        CHECK(cuMemcpyDtoH(out, dout, sizeof out));
        int ok = 1;
        for (int i = 0; i < 8; i++) ok &= out[4 * i] == m2.T[1][1 * m2.size[1][0] + i];
        TRUE(ok);
        CHECK(cuTexObjectDestroy(tex));
        /* Blending levels needs float results: integer elements read as integers refuse it. */
        CUDA_ARRAY3D_DESCRIPTOR bd = {16, 16, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0};
        CHECK(cuMipmappedArrayCreate(&r.res.mipmap.hMipmappedArray, &bd, 3));
        t.flags = CU_TRSF_READ_AS_INTEGER;
        t.mipmapFilterMode = CU_TR_FILTER_MODE_LINEAR;
        EXPECT(cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
        t.mipmapFilterMode = CU_TR_FILTER_MODE_POINT;
        CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
        CHECK(cuTexObjectDestroy(tex));
        CHECK(cuMipmappedArrayDestroy(r.res.mipmap.hMipmappedArray));
        CHECK(cuMemFree(dc));
        CHECK(cuMemFree(dout));
    }

    /* A texture reference bound to the 2D mipmapped array: linear in and between levels. */
    {
        CUtexref t;
        CHECK(cuModuleGetTexRef(&t, mod, "mref"));
        CHECK(cuTexRefSetMipmappedArray(t, m2.m, CU_TRSA_OVERRIDE_FORMAT));
        CUmipmappedArray got;
        CHECK(cuTexRefGetMipmappedArray(&got, t));
        TRUE(got == m2.m);
        CUarray none;
        EXPECT(cuTexRefGetArray(&none, t), CUDA_ERROR_INVALID_VALUE);
        for (int d = 0; d < 2; d++) CHECK(cuTexRefSetAddressMode(t, d, CU_TR_ADDRESS_MODE_MIRROR));
        CHECK(cuTexRefSetFilterMode(t, CU_TR_FILTER_MODE_LINEAR));
        CHECK(cuTexRefSetMipmapFilterMode(t, CU_TR_FILTER_MODE_LINEAR));
        CHECK(cuTexRefSetMipmapLevelBias(t, 0.75f));
        CHECK(cuTexRefSetMipmapLevelClamp(t, 0.0f, 3.5f));
        CHECK(cuTexRefSetFlags(t, CU_TRSF_NORMALIZED_COORDINATES));
        static float coords[4 * N], out[4 * N];
        for (int i = 0; i < N; i++) {
            coords[4 * i] = rnd(-1.0f, 2.0f);
            coords[4 * i + 1] = rnd(-1.0f, 2.0f);
            coords[4 * i + 3] = rnd(-1.0f, 5.0f);
        }
        CUdeviceptr dc, dout;
        CHECK(cuMemAlloc(&dc, sizeof coords));
        CHECK(cuMemAlloc(&dout, sizeof out));
        CHECK(cuMemcpyHtoD(dc, coords, sizeof coords));
        unsigned n = N;
        CUtexObject unused = 0;
        void *params[] = {&unused, &dc, &dout, &n};
        CHECK(cuLaunchKernel(reflod, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
        CHECK(cuMemcpyDtoH(out, dout, sizeof out));
        int bad = 0;
        for (int i = 0; i < N; i++) {
            float want = mip_ref(&m2, &coords[4 * i], coords[4 * i + 3], MIRROR, 1, 1, 1, 0.75f, 0.0f, 3.5f);
            if (!(fabsf(out[4 * i] - want) <= 1e-4f * (1 + fabsf(want))) && bad++ < 5)
                fprintf(stderr, "texref at (%g, %g) lod %g: got %g, want %g\n", coords[4 * i], coords[4 * i + 1],
                        coords[4 * i + 3], out[4 * i], want);
        }
        TRUE(bad == 0);
        CHECK(cuMemFree(dc));
        CHECK(cuMemFree(dout));
    }

    /* Errors. */
    CUmipmappedArray x;
    CUDA_ARRAY3D_DESCRIPTOR d = {64, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    EXPECT(cuMipmappedArrayCreate(&x, &d, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMipmappedArrayCreate(&x, &d, 8), CUDA_ERROR_INVALID_VALUE); /* 64 has 7 levels */
    CHECK(cuMipmappedArrayCreate(&x, &d, 7));
    CUarray level;
    EXPECT(cuMipmappedArrayGetLevel(&level, x, 7), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMipmappedArrayGetLevel(&level, x, 6));
    EXPECT(cuArrayDestroy(level), CUDA_ERROR_INVALID_HANDLE); /* freed with its mipmapped array */
    CHECK(cuMipmappedArrayDestroy(x));
    EXPECT(cuMipmappedArrayGetLevel(&level, x, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuMipmappedArrayDestroy(x), CUDA_ERROR_INVALID_HANDLE);
    int most = 0;
    CHECK(cuDeviceGetAttribute(&most, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, dev));
    d.Width = (size_t)most + 1;
    EXPECT(cuMipmappedArrayCreate(&x, &d, 2), CUDA_ERROR_INVALID_VALUE);
    d.Width = 64;
    d.Depth = 4;
    d.Flags = CUDA_ARRAY3D_LAYERED;
    EXPECT(cuMipmappedArrayCreate(&x, &d, 2), CUDA_ERROR_NOT_SUPPORTED);

    CHECK(cuMipmappedArrayDestroy(m1.m));
    CHECK(cuMipmappedArrayDestroy(m2.m));
    {
        /* Destroying the array unbinds the reference. */
        CUtexref t;
        CUmipmappedArray got;
        CHECK(cuModuleGetTexRef(&t, mod, "mref"));
        EXPECT(cuTexRefGetMipmappedArray(&got, t), CUDA_ERROR_INVALID_VALUE);
    }
    CHECK(cuMipmappedArrayDestroy(m3.m));
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    return report();
}
