/*
 * CUDA arrays, texture objects and surface objects through libcuda.so.1, with the device's
 * texture unit doing the sampling: 2D/3D/layered arrays filled and read back through
 * cuMemcpy2D/3D (block-linear layout both ways), point and linear filtering in every
 * address mode with and without normalized coordinates against a CPU model of CUDA's
 * texture fetching (1.8 fixed-point weights), normalized-float reads of uchar4, texel
 * fetches from linear memory, surface loads and stores, the descriptors read back, and
 * CUDA's errors for bad formats, flags, resources, handles and ranges.
 * Run by tests/tests/c_abi.rs:  texture
 */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "texfetch.h"

/* out[i] = the texel at coords[i] (x, y, z, layer bits), for i < n; one kernel per shape. */
#define SAMPLER(name, instr)                                                                     \
    ".visible .entry " name "(.param .u64 t, .param .u64 c, .param .u64 o, .param .u32 n)\n{\n" \
    " .reg .pred %p;\n .reg .b32 %r<8>;\n .reg .f32 %f<10>;\n .reg .b64 %rd<8>;\n"              \
    " ld.param.u64 %rd1, [t];\n ld.param.u64 %rd2, [c];\n ld.param.u64 %rd3, [o];\n"             \
    " ld.param.u32 %r1, [n];\n mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n"                  \
    " mov.u32 %r4, %ntid.x;\n mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n"      \
    " @%p bra DONE;\n mul.wide.u32 %rd4, %r2, 16;\n add.u64 %rd5, %rd2, %rd4;\n"                 \
    " ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd5];\n mov.b32 %r5, %f8;\n " instr "\n"          \
    " add.u64 %rd6, %rd3, %rd4;\n st.global.v4.f32 [%rd6], {%f1, %f2, %f3, %f4};\n"              \
    "DONE:\n ret;\n}\n"

static const char *PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n" SAMPLER(
        "samp2d", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];")
        SAMPLER("samp3d", "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];")
            SAMPLER("sampa2d", "tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %f5, %f6, %f6}];")
                SAMPLER("gather2d", "tld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];")
                    SAMPLER("sampcube", "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];")
    /* out[i] = texel i - 3 of a linear-memory texture (integers, 0 outside). */
    ".visible .entry fetch1d(.param .u64 t, .param .u64 o, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<12>;\n .reg .b64 %rd<8>;\n"
    " ld.param.u64 %rd1, [t];\n ld.param.u64 %rd3, [o];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " sub.s32 %r3, %r2, 3;\n tex.1d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [%rd1, {%r3}];\n"
    " mul.wide.u32 %rd4, %r2, 16;\n add.u64 %rd6, %rd3, %rd4;\n"
    " st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r7};\n"
    "DONE:\n ret;\n}\n"
    /* Element (x, y) of a 2D surface of u32 = 2 * itself + 1, for x < w. */
    ".visible .entry surf2d(.param .u64 s, .param .u32 w)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [s];\n ld.param.u32 %r1, [w];\n mov.u32 %r2, %tid.x;\n"
    " mov.u32 %r3, %ctaid.y;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n shl.b32 %r4, %r2, 2;\n"
    " suld.b.2d.b32.trap {%r5}, [%rd1, {%r4, %r3}];\n shl.b32 %r5, %r5, 1;\n add.u32 %r5, %r5, 1;\n"
    " sust.b.2d.b32.trap [%rd1, {%r4, %r3}], {%r5};\n"
    "DONE:\n ret;\n}\n"
    /* Element (x, y) of face z of a cube-map surface of u32 (a layered 2D surface, as
     * surfCubemapread/write address it) = 3 * itself + face. */
    ".visible .entry surfcube(.param .u64 s)\n{\n"
    " .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [s];\n mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r6, %ctaid.y;\n"
    " shl.b32 %r4, %r2, 2;\n"
    " suld.b.a2d.b32.trap {%r5}, [%rd1, {%r6, %r4, %r3, %r3}];\n mul.lo.u32 %r5, %r5, 3;\n add.u32 %r5, %r5, %r6;\n"
    " sust.b.a2d.b32.trap [%rd1, {%r6, %r4, %r3, %r3}], {%r5};\n"
    " ret;\n}\n";

enum { W = 13, H = 7, D = 5, N = 256 };
/* Sample `tex` with kernel `f` at n coordinate quadruples; out gets 4 floats each. */
static void sample(CUfunction f, CUtexObject tex, const float *coords, float *out, unsigned n) {
    CUdeviceptr dc, dout;
    CHECK(cuMemAlloc(&dc, 16 * n));
    CHECK(cuMemAlloc(&dout, 16 * n));
    CHECK(cuMemcpyHtoD(dc, coords, 16 * n));
    void *params[] = {&tex, &dc, &dout, &n};
    CHECK(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(out, dout, 16 * n));
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(dout));
}

static CUDA_TEXTURE_DESC tex_desc(int mode, int filter, unsigned flags) {
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = (CUaddress_mode)mode;
    t.filterMode = (CUfilter_mode)filter;
    t.flags = flags;
    t.borderColor[0] = -7.5f;
    t.borderColor[3] = 1.0f;
    return t;
}

static CUDA_RESOURCE_DESC array_res(CUarray a) {
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    return r;
}

/* Every address mode x filter x coordinate normalization of a 1-channel float texture of
 * `dims` dimensions over array `a` holding T, sampled with `f`; returns the mismatches. */
static int sweep(CUfunction f, CUarray a, const float *T, const int size[3], int dims) {
    int bad = 0;
    float *coords = malloc(16 * N), *out = malloc(16 * N);
    CUDA_RESOURCE_DESC r = array_res(a);
    for (int mode = 0; mode < 4; mode++)
        for (int linear = 0; linear < 2; linear++)
            for (int norm = 0; norm < 2; norm++) {
                for (int i = 0; i < N; i++)
                    for (int k = 0; k < 4; k++)
                        coords[4 * i + k] = k >= dims ? 0 : norm ? rnd(-0.7f, 1.7f) : rnd(-3.0f, size[k] + 3.0f);
                CUDA_TEXTURE_DESC t = tex_desc(mode, linear, norm ? CU_TRSF_NORMALIZED_COORDINATES : 0);
                CUtexObject tex;
                CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
                sample(f, tex, coords, out, N);
                for (int i = 0; i < N; i++) {
                    float want = fetch_ref(T, size, dims, &coords[4 * i], mode, linear, norm, -7.5f);
                    float got = out[4 * i];
                    int ok = fabsf(got - want) <= 1e-5f * (1 + fabsf(want)) && out[4 * i + 1] == 0 &&
                             out[4 * i + 2] == 0 && out[4 * i + 3] == 1;
                    if (!ok && bad++ < 5)
                        fprintf(stderr, "dims %d mode %d linear %d norm %d at (%g, %g, %g): got %g, want %g\n", dims,
                                mode, linear, norm, coords[4 * i], coords[4 * i + 1], coords[4 * i + 2], got, want);
                }
                CHECK(cuTexObjectDestroy(tex));
            }
    free(coords);
    free(out);
    return bad;
}

int main(void) {
    CUcontext ctx = init_context();
    CUmodule mod;
    CUfunction samp2d, samp3d, sampa2d, gather2d, sampcube, fetch1d, surf2d, surfcube;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&samp2d, mod, "samp2d"));
    CHECK(cuModuleGetFunction(&samp3d, mod, "samp3d"));
    CHECK(cuModuleGetFunction(&sampa2d, mod, "sampa2d"));
    CHECK(cuModuleGetFunction(&gather2d, mod, "gather2d"));
    CHECK(cuModuleGetFunction(&sampcube, mod, "sampcube"));
    CHECK(cuModuleGetFunction(&fetch1d, mod, "fetch1d"));
    CHECK(cuModuleGetFunction(&surf2d, mod, "surf2d"));
    CHECK(cuModuleGetFunction(&surfcube, mod, "surfcube"));

    /* A 2D float array filled from the host at pitch 60 from (x 3 bytes, row 1), read back
     * whole through device memory and to the host at another pitch. */
    float T[D * H * W];
    for (int i = 0; i < D * H * W; i++) T[i] = (float)((i * 37) % 101) - 20.0f;
    enum { SP = 60 };
    unsigned char *src = calloc(SP * (H + 1), 1);
    for (int y = 0; y < H; y++) memcpy(src + (y + 1) * SP + 3, &T[y * W], W * 4);
    CUarray a2;
    CUDA_ARRAY_DESCRIPTOR ad = {W, H, CU_AD_FORMAT_FLOAT, 1};
    CHECK(cuArrayCreate(&a2, &ad));
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcXInBytes = 3;
    c.srcY = 1;
    c.srcPitch = SP;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a2;
    c.WidthInBytes = W * 4;
    c.Height = H;
    CHECK(cuMemcpy2D(&c));
    CUdeviceptr lin;
    CHECK(cuMemAlloc(&lin, W * H * 4));
    CUDA_MEMCPY2D back;
    memset(&back, 0, sizeof back);
    back.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    back.srcArray = a2;
    back.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    back.dstDevice = lin;
    back.dstPitch = W * 4;
    back.WidthInBytes = W * 4;
    back.Height = H;
    CHECK(cuMemcpy2D(&back));
    float got[D * H * W];
    CHECK(cuMemcpyDtoH(got, lin, W * H * 4));
    TRUE(memcmp(got, T, W * H * 4) == 0);
    /* Part of the array (x 2..7, rows 3..6) straight to the host at pitch 24. */
    float part[4 * 6];
    memset(&back, 0, sizeof back);
    back.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    back.srcArray = a2;
    back.srcXInBytes = 8;
    back.srcY = 3;
    back.dstMemoryType = CU_MEMORYTYPE_HOST;
    back.dstHost = part;
    back.dstPitch = 24;
    back.WidthInBytes = 24;
    back.Height = 4;
    CHECK(cuMemcpy2D(&back));
    int same = 1;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 6; x++) same &= part[y * 6 + x] == T[(y + 3) * W + x + 2];
    TRUE(same);

    int size2[3] = {W, H, 1};
    TRUE(sweep(samp2d, a2, T, size2, 2) == 0);

    /* A 3D array filled with cuMemcpy3D, sampled (trilinear too). */
    CUarray a3;
    CUDA_ARRAY3D_DESCRIPTOR ad3 = {W, H, D, CU_AD_FORMAT_FLOAT, 1, 0};
    CHECK(cuArray3DCreate(&a3, &ad3));
    array3d_copy(a3, T, W * 4, H, D, 1);
    int size3[3] = {W, H, D};
    TRUE(sweep(samp3d, a3, T, size3, 3) == 0);
    CUDA_ARRAY3D_DESCRIPTOR q;
    CHECK(cuArray3DGetDescriptor(&q, a3));
    TRUE(q.Width == W && q.Height == H && q.Depth == D && q.Format == CU_AD_FORMAT_FLOAT && q.NumChannels == 1);

    /* A layered 2D array: each layer sampled at texel centers by layer index. */
    CUarray al;
    CUDA_ARRAY3D_DESCRIPTOR adl = {W, H, D, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED};
    CHECK(cuArray3DCreate(&al, &adl));
    array3d_copy(al, T, W * 4, H, D, 1);
    {
        float coords[4 * D * 4], out[4 * D * 4];
        for (int l = 0; l < D; l++)
            for (int k = 0; k < 4; k++) {
                int layer = l;
                float *q4 = &coords[4 * (l * 4 + k)];
                q4[0] = (float)(k * 3) + 0.5f;
                q4[1] = (float)(k + 2) + 0.5f;
                q4[2] = 0;
                memcpy(&q4[3], &layer, 4);
            }
        CUDA_RESOURCE_DESC r = array_res(al);
        CUDA_TEXTURE_DESC t = tex_desc(CLAMP, 0, 0);
        CUtexObject tex;
        CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
        sample(sampa2d, tex, coords, out, D * 4);
        int ok = 1;
        for (int l = 0; l < D; l++)
            for (int k = 0; k < 4; k++) ok &= out[4 * (l * 4 + k)] == T[(l * H + k + 2) * W + k * 3];
        TRUE(ok);
        CHECK(cuTexObjectDestroy(tex));
    }

    /* uchar4 read as normalized floats (point, unnormalized coordinates). */
    {
        enum { UW = 5, UH = 3 };
        unsigned char u[UH][UW][4];
        for (int i = 0; i < UH * UW * 4; i++) ((unsigned char *)u)[i] = (unsigned char)(i * 29 + 1);
        CUarray ua;
        CUDA_ARRAY_DESCRIPTOR ud = {UW, UH, CU_AD_FORMAT_UNSIGNED_INT8, 4};
        CHECK(cuArrayCreate(&ua, &ud));
        array2d_copy(ua, u, UW * 4, UH, 1);
        float coords[4 * UW * UH], out[4 * UW * UH];
        for (int y = 0; y < UH; y++)
            for (int x = 0; x < UW; x++) {
                float *q4 = &coords[4 * (y * UW + x)];
                q4[0] = x + 0.5f;
                q4[1] = y + 0.5f;
                q4[2] = q4[3] = 0;
            }
        CUDA_RESOURCE_DESC r = array_res(ua);
        CUDA_TEXTURE_DESC t = tex_desc(CLAMP, 0, 0);
        CUtexObject tex;
        CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
        sample(samp2d, tex, coords, out, UW * UH);
        int ok = 1;
        for (int i = 0; i < UW * UH * 4; i++) ok &= out[i] == (float)((unsigned char *)u)[i] / 255.0f;
        TRUE(ok);
        /* Linear filtering of elements read as integers is refused. */
        CUDA_TEXTURE_DESC ti = tex_desc(CLAMP, 1, CU_TRSF_READ_AS_INTEGER);
        CUtexObject bad;
        EXPECT(cuTexObjectCreate(&bad, &r, &ti, NULL), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuTexObjectDestroy(tex));
        CHECK(cuArrayDestroy(ua));
    }

    /* tex2Dgather (TLD4) of component g of a uchar4 array made for gather: the four
     * texels bilinear filtering would read, in the order (i0, j1), (i1, j1), (i1, j0),
     * (i0, j0), in every address mode, normalized or not. */
    {
        enum { GW = 9, GH = 6, GN = 64 };
        unsigned char g[GH][GW][4];
        for (int i = 0; i < GH * GW * 4; i++) ((unsigned char *)g)[i] = (unsigned char)(i * 53 + 7);
        CUarray ga;
        CUDA_ARRAY3D_DESCRIPTOR gd = {GW, GH, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_TEXTURE_GATHER};
        CHECK(cuArray3DCreate(&ga, &gd));
        array2d_copy(ga, g, GW * 4, GH, 1);
        CUDA_RESOURCE_DESC r = array_res(ga);
        float coords[4 * GN], out[4 * GN];
        int bad = 0;
        for (int mode = 0; mode < 4; mode++)
            for (int norm = 0; norm < 2; norm++) {
                for (int i = 0; i < GN; i++) {
                    coords[4 * i] = norm ? rnd(-0.5f, 1.5f) : rnd(-2.0f, GW + 2.0f);
                    coords[4 * i + 1] = norm ? rnd(-0.5f, 1.5f) : rnd(-2.0f, GH + 2.0f);
                    coords[4 * i + 2] = coords[4 * i + 3] = 0;
                }
                CUDA_TEXTURE_DESC t = tex_desc(mode, 0, norm ? CU_TRSF_NORMALIZED_COORDINATES : 0);
                t.borderColor[1] = 0.25f;
                CUtexObject tex;
                CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
                sample(gather2d, tex, coords, out, GN);
                int m = (!norm && (mode == WRAP || mode == MIRROR)) ? CLAMP : mode;
                for (int i = 0; i < GN; i++) {
                    float u = coords[4 * i] * (norm ? GW : 1), v = coords[4 * i + 1] * (norm ? GH : 1);
                    int i0 = (int)floorf(u - 0.5f), j0 = (int)floorf(v - 0.5f);
                    for (int k = 0; k < 4; k++) {
                        int x = address(i0 + (k == 1 || k == 2), GW, m), y = address(j0 + (k < 2), GH, m);
                        float want = x < 0 || y < 0 ? 0.25f : g[y][x][1] / 255.0f;
                        if (out[4 * i + k] != want && bad++ < 5)
                            fprintf(stderr, "gather mode %d norm %d at (%g, %g) texel %d: got %g, want %g\n", mode,
                                    norm, coords[4 * i], coords[4 * i + 1], k, out[4 * i + k], want);
                    }
                }
                CHECK(cuTexObjectDestroy(tex));
            }
        TRUE(bad == 0);
        int can = 0;
        CHECK(cuDeviceGetAttribute(&can, CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER, 0));
        TRUE(can == 1);
        CHECK(cuArrayDestroy(ga));
    }

    /* A cube map (six 7x7 float faces): random directions, point and linear filtering,
     * against the face CUDA's cube-map fetch picks (largest magnitude) and its (s, t),
     * each face clamped to its edges. */
    {
        enum { CW = 7, CN = 256 };
        float faces[6 * CW * CW];
        for (int i = 0; i < 6 * CW * CW; i++) faces[i] = (float)((i * 71) % 89) - 30.0f;
        CUarray ca;
        CUDA_ARRAY3D_DESCRIPTOR cd = {CW, CW, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
        CHECK(cuArray3DCreate(&ca, &cd));
        array3d_copy(ca, faces, CW * 4, CW, 6, 1);
        CUDA_RESOURCE_DESC r = array_res(ca);
        float coords[4 * CN], out[4 * CN];
        int bad = 0, size[3] = {CW, CW, 1};
        for (int linear = 0; linear < 2; linear++) {
            for (int i = 0; i < 4 * CN; i++) coords[i] = rnd(-1.0f, 1.0f);
            CUDA_TEXTURE_DESC t = tex_desc(CLAMP, linear, CU_TRSF_NORMALIZED_COORDINATES);
            CUtexObject tex;
            CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
            sample(sampcube, tex, coords, out, CN);
            for (int i = 0; i < CN; i++) {
                float x = coords[4 * i], y = coords[4 * i + 1], z = coords[4 * i + 2];
                float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), sc, tc, m;
                int face;
                if (ax >= ay && ax >= az) face = x >= 0 ? 0 : 1, sc = x >= 0 ? -z : z, tc = -y, m = ax;
                else if (ay >= az) face = y >= 0 ? 2 : 3, sc = x, tc = y >= 0 ? z : -z, m = ay;
                else face = z >= 0 ? 4 : 5, sc = z >= 0 ? x : -x, tc = -y, m = az;
                float uv[3] = {(sc / m + 1) * 0.5f, (tc / m + 1) * 0.5f, 0};
                float want = fetch_ref(&faces[face * CW * CW], size, 2, uv, CLAMP, linear, 1, 0);
                if (!(fabsf(out[4 * i] - want) <= 1e-5f * (1 + fabsf(want))) && bad++ < 5)
                    fprintf(stderr, "cube linear %d dir (%g, %g, %g) face %d: got %g, want %g\n", linear, x, y, z,
                            face, out[4 * i], want);
            }
            CHECK(cuTexObjectDestroy(tex));
        }
        TRUE(bad == 0);
        /* Faces are square, six of them; layered cube maps are not supported. */
        CUarray no;
        cd.Height = CW + 1;
        EXPECT(cuArray3DCreate(&no, &cd), CUDA_ERROR_INVALID_VALUE);
        cd.Height = CW;
        cd.Depth = 5;
        EXPECT(cuArray3DCreate(&no, &cd), CUDA_ERROR_INVALID_VALUE);
        cd.Depth = 12;
        cd.Flags = CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED;
        EXPECT(cuArray3DCreate(&no, &cd), CUDA_ERROR_NOT_SUPPORTED);
        CHECK(cuArrayDestroy(ca));

        /* A cube map made for surfaces: each face read and written as a layer. */
        unsigned c0[6 * CW * CW], c1[6 * CW * CW];
        for (int i = 0; i < 6 * CW * CW; i++) c0[i] = (unsigned)(i * 40503u);
        CUDA_ARRAY3D_DESCRIPTOR sd = {CW, CW, 6, CU_AD_FORMAT_UNSIGNED_INT32, 1,
                                      CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_SURFACE_LDST};
        CHECK(cuArray3DCreate(&ca, &sd));
        array3d_copy(ca, c0, CW * 4, CW, 6, 1);
        r = array_res(ca);
        CUsurfObject s;
        CHECK(cuSurfObjectCreate(&s, &r));
        void *params[] = {&s};
        CHECK(cuLaunchKernel(surfcube, CW, 6, 1, CW, 1, 1, 0, NULL, params, NULL));
        array3d_copy(ca, c1, CW * 4, CW, 6, 0);
        int ok = 1;
        for (int i = 0; i < 6 * CW * CW; i++) ok &= c1[i] == 3 * c0[i] + (unsigned)(i / (CW * CW));
        TRUE(ok);
        CHECK(cuSurfObjectDestroy(s));
        CHECK(cuArrayDestroy(ca));
    }

    /* Texel fetches from linear memory: ints, zero outside. */
    {
        enum { L = 40 };
        int vals[L];
        for (int i = 0; i < L; i++) vals[i] = i * i - 50;
        CUdeviceptr dv, dout;
        CHECK(cuMemAlloc(&dv, sizeof vals));
        CHECK(cuMemAlloc(&dout, 16 * (L + 6)));
        CHECK(cuMemcpyHtoD(dv, vals, sizeof vals));
        CUDA_RESOURCE_DESC r;
        memset(&r, 0, sizeof r);
        r.resType = CU_RESOURCE_TYPE_LINEAR;
        r.res.linear.devPtr = dv;
        r.res.linear.format = CU_AD_FORMAT_SIGNED_INT32;
        r.res.linear.numChannels = 1;
        r.res.linear.sizeInBytes = sizeof vals;
        CUDA_TEXTURE_DESC t = tex_desc(CLAMP, 0, CU_TRSF_READ_AS_INTEGER);
        CUtexObject tex;
        CHECK(cuTexObjectCreate(&tex, &r, &t, NULL));
        unsigned n = L + 6;
        void *params[] = {&tex, &dout, &n};
        CHECK(cuLaunchKernel(fetch1d, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
        int out[4 * (L + 6)];
        CHECK(cuMemcpyDtoH(out, dout, sizeof out));
        int ok = 1;
        for (int i = 0; i < L + 6; i++) {
            int k = i - 3, inside = k >= 0 && k < L;
            ok &= out[4 * i] == (inside ? vals[k] : 0);
        }
        TRUE(ok);
        /* The descriptors read back. */
        CUDA_RESOURCE_DESC rb;
        CUDA_TEXTURE_DESC tb;
        CHECK(cuTexObjectGetResourceDesc(&rb, tex));
        CHECK(cuTexObjectGetTextureDesc(&tb, tex));
        TRUE(rb.resType == CU_RESOURCE_TYPE_LINEAR && rb.res.linear.devPtr == dv &&
             rb.res.linear.format == CU_AD_FORMAT_SIGNED_INT32 && rb.res.linear.sizeInBytes == sizeof vals);
        TRUE(tb.addressMode[0] == CU_TR_ADDRESS_MODE_CLAMP && tb.flags == CU_TRSF_READ_AS_INTEGER &&
             tb.borderColor[0] == -7.5f);
        CHECK(cuTexObjectDestroy(tex));
        EXPECT(cuTexObjectDestroy(tex), CUDA_ERROR_INVALID_VALUE);
        /* A resource pointer off TEXTURE_ALIGNMENT. */
        r.res.linear.devPtr = dv + 4;
        r.res.linear.sizeInBytes -= 4;
        EXPECT(cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuMemFree(dv));
        CHECK(cuMemFree(dout));
    }

    /* A surface over a u32 array made for load/store: each element = 2 * it + 1. */
    {
        enum { SW = 70, SH = 3 };
        unsigned s0[SH * SW], s1[SH * SW];
        for (int i = 0; i < SH * SW; i++) s0[i] = (unsigned)(i * 2654435761u);
        CUarray sa;
        CUDA_ARRAY3D_DESCRIPTOR sd = {SW, SH, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
        CHECK(cuArray3DCreate(&sa, &sd));
        array2d_copy(sa, s0, SW * 4, SH, 1);
        CUDA_RESOURCE_DESC r = array_res(sa);
        CUsurfObject s;
        CHECK(cuSurfObjectCreate(&s, &r));
        unsigned w = SW;
        void *params[] = {&s, &w};
        CHECK(cuLaunchKernel(surf2d, 1, SH, 1, 128, 1, 1, 0, NULL, params, NULL));
        array2d_copy(sa, s1, SW * 4, SH, 0);
        int ok = 1;
        for (int i = 0; i < SH * SW; i++) ok &= s1[i] == 2 * s0[i] + 1;
        TRUE(ok);
        CUDA_RESOURCE_DESC rb;
        CHECK(cuSurfObjectGetResourceDesc(&rb, s));
        TRUE(rb.resType == CU_RESOURCE_TYPE_ARRAY && rb.res.array.hArray == sa);
        CHECK(cuSurfObjectDestroy(s));
        /* Surfaces need CUDA_ARRAY3D_SURFACE_LDST. */
        r = array_res(a2);
        EXPECT(cuSurfObjectCreate(&s, &r), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuArrayDestroy(sa));
    }

    /* Errors. */
    CUarray x;
    CUDA_ARRAY_DESCRIPTOR bad = {W, H, (CUarray_format)0x07, 1};
    EXPECT(cuArrayCreate(&x, &bad), CUDA_ERROR_INVALID_VALUE);
    bad.Format = CU_AD_FORMAT_FLOAT;
    bad.NumChannels = 3;
    EXPECT(cuArrayCreate(&x, &bad), CUDA_ERROR_INVALID_VALUE);
    bad.NumChannels = 1;
    bad.Width = 0;
    EXPECT(cuArrayCreate(&x, &bad), CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY3D_DESCRIPTOR sparse = {16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0x40 /* SPARSE */};
    EXPECT(cuArray3DCreate(&x, &sparse), CUDA_ERROR_NOT_SUPPORTED);
    CUDA_ARRAY3D_DESCRIPTOR huge = {20000, 20000, 20000, CU_AD_FORMAT_FLOAT, 1, 0};
    EXPECT(cuArray3DCreate(&x, &huge), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    /* A copy past the array's last row. */
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = SP;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a2;
    c.dstY = 1;
    c.WidthInBytes = W * 4;
    c.Height = H;
    EXPECT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    /* Resource views are not supported; an array is not a mipmapped array. */
    CUDA_RESOURCE_DESC r = array_res(a2);
    CUDA_TEXTURE_DESC t = tex_desc(CLAMP, 0, 0);
    CUtexObject tex;
    char view[64] = {0};
    EXPECT(cuTexObjectCreate(&tex, &r, &t, (const CUDA_RESOURCE_VIEW_DESC *)view), CUDA_ERROR_NOT_SUPPORTED);
    r.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    EXPECT(cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    /* sRGB reads are not modelled; flags CUDA does not define are refused. */
    r = array_res(a2);
    t.flags = CU_TRSF_SRGB;
    EXPECT(cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_ERROR_NOT_SUPPORTED);
    t.flags = 0x100;
    EXPECT(cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    t.flags = 0;
    r = array_res(NULL);
    EXPECT(cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexObjectGetTextureDesc(&t, 12345), CUDA_ERROR_INVALID_VALUE);

    CHECK(cuArrayDestroy(a2));
    CHECK(cuArrayDestroy(a3));
    CHECK(cuArrayDestroy(al));
    EXPECT(cuArrayDestroy(a3), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuMemFree(lin));
    free(src);
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    return report();
}
