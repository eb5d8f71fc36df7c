/*
 * Texture and surface references (the legacy binding API) through libcuda.so.1: a module's
 * .texref and .surfref variables bound with cuTexRefSetArray / SetAddress / SetAddress2D
 * and cuSurfRefSetArray, sampled by the device's texture unit in every address mode and
 * filter against a CPU model of CUDA's texture fetching; state changed between two queued
 * launches (each must see its own); the getters; the array copies' async forms; and
 * CUDA's errors for bad names, flags, formats, alignments and stale bindings.
 * Run by tests/tests/c_abi.rs:  texref
 */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "texfetch.h"

static const char *PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".global .texref tref;\n.global .texref tlin;\n.global .surfref sref;\n"
    /* out[i] = tref at coords[i] (x, y), for i < n. */
    ".visible .entry samp(.param .u64 c, .param .u64 o, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<8>;\n .reg .f32 %f<10>;\n .reg .b64 %rd<8>;\n"
    " ld.param.u64 %rd2, [c];\n ld.param.u64 %rd3, [o];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n"
    " mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " mul.wide.u32 %rd4, %r2, 8;\n add.u64 %rd5, %rd2, %rd4;\n ld.global.v2.f32 {%f5, %f6}, [%rd5];\n"
    " tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f5, %f6}];\n"
    " mul.wide.u32 %rd4, %r2, 4;\n add.u64 %rd6, %rd3, %rd4;\n st.global.f32 [%rd6], %f1;\n"
    "DONE:\n ret;\n}\n"
    /* out[i] = texel i of tlin (integers), for i < n. */
    ".visible .entry fetch(.param .u64 o, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<12>;\n .reg .b64 %rd<8>;\n"
    " ld.param.u64 %rd3, [o];\n ld.param.u32 %r1, [n];\n mov.u32 %r2, %tid.x;\n"
    " setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " tex.1d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [tlin, {%r2}];\n"
    " mul.wide.u32 %rd4, %r2, 4;\n add.u64 %rd6, %rd3, %rd4;\n st.global.u32 [%rd6], %r4;\n"
    "DONE:\n ret;\n}\n"
    /* Element (x, y) of sref (u32) = 3 * itself + 1, for x < w. */
    ".visible .entry surf(.param .u32 w)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<12>;\n"
    " ld.param.u32 %r1, [w];\n mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.y;\n"
    " setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n shl.b32 %r4, %r2, 2;\n"
    " suld.b.2d.b32.trap {%r5}, [sref, {%r4, %r3}];\n mul.lo.u32 %r5, %r5, 3;\n add.u32 %r5, %r5, 1;\n"
    " sust.b.2d.b32.trap [sref, {%r4, %r3}], {%r5};\n"
    "DONE:\n ret;\n}\n";

enum { W = 11, H = 6, N = 200 };

/* Queue samp over n coordinate pairs into `out` (device), without waiting. */
static void launch_samp(CUfunction f, CUdeviceptr coords, CUdeviceptr out, unsigned n) {
    void *params[] = {&coords, &out, &n};
    CHECK(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
}

/* Set tref's address mode (all dimensions), filter and flags. */
static void configure(CUtexref t, int mode, int linear, unsigned flags) {
    for (int d = 0; d < 3; d++) CHECK(cuTexRefSetAddressMode(t, d, (CUaddress_mode)mode));
    CHECK(cuTexRefSetFilterMode(t, linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT));
    CHECK(cuTexRefSetFlags(t, flags));
}

/* The mismatches of `got` (n samples of T at coords as configured) against the model. */
static int mismatches(const float *T, const float *coords, const float *got, int n, int mode, int linear, int norm) {
    int size[3] = {W, H, 1}, bad = 0;
    for (int i = 0; i < n; i++) {
        float c[3] = {coords[2 * i], coords[2 * i + 1], 0};
        float want = fetch_ref(T, size, 2, c, mode, linear, norm, -2.5f);
        if (!(fabsf(got[i] - want) <= 1e-5f * (1 + fabsf(want))) && bad++ < 5)
            fprintf(stderr, "mode %d linear %d norm %d at (%g, %g): got %g, want %g\n", mode, linear, norm, c[0], c[1],
                    got[i], want);
    }
    return bad;
}

int main(void) {
    CUcontext ctx = init_context();
    CUmodule mod;
    CUfunction samp, fetch, surf;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&samp, mod, "samp"));
    CHECK(cuModuleGetFunction(&fetch, mod, "fetch"));
    CHECK(cuModuleGetFunction(&surf, mod, "surf"));

    /* Lookups: one handle per name; names of the other kind or none are NOT_FOUND. */
    CUtexref tref, tref2, tlin;
    CUsurfref sref;
    CHECK(cuModuleGetTexRef(&tref, mod, "tref"));
    CHECK(cuModuleGetTexRef(&tref2, mod, "tref"));
    CHECK(cuModuleGetTexRef(&tlin, mod, "tlin"));
    CHECK(cuModuleGetSurfRef(&sref, mod, "sref"));
    TRUE(tref == tref2 && tref != tlin);
    EXPECT(cuModuleGetTexRef(&tref2, mod, "sref"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleGetSurfRef((CUsurfref *)&tref2, mod, "tref"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleGetTexRef(&tref2, mod, "nope"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleGetTexRef(NULL, mod, "tref"), CUDA_ERROR_INVALID_VALUE);

    /* An unbound reference has no array or address. */
    CUarray got_a;
    CUdeviceptr got_p;
    EXPECT(cuTexRefGetArray(&got_a, tref), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefGetAddress(&got_p, tref), CUDA_ERROR_INVALID_VALUE);

    /* A 2D float array bound to tref: every address mode x filter x normalization. */
    float T[W * H];
    for (int i = 0; i < W * H; i++) T[i] = (float)((i * 53) % 97) * 0.25f - 9.0f;
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR ad = {W, H, CU_AD_FORMAT_FLOAT, 1};
    CHECK(cuArrayCreate(&a, &ad));
    array2d_copy(a, T, W * 4, H, 1);
    EXPECT(cuTexRefSetArray(tref, a, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuTexRefSetArray(tref, a, CU_TRSA_OVERRIDE_FORMAT));
    CHECK(cuTexRefGetArray(&got_a, tref));
    TRUE(got_a == a);
    CUarray_format fmt;
    int ch;
    CHECK(cuTexRefGetFormat(&fmt, &ch, tref));
    TRUE(fmt == CU_AD_FORMAT_FLOAT && ch == 1);
    float border[4] = {-2.5f, 0, 0, 1}, bb[4];
    CHECK(cuTexRefSetBorderColor(tref, border));
    CHECK(cuTexRefGetBorderColor(bb, tref));
    TRUE(memcmp(bb, border, sizeof bb) == 0);

    float *coords = malloc(8 * N), *out = malloc(4 * N), *out2 = malloc(4 * N);
    CUdeviceptr dc, dout, dout2;
    CHECK(cuMemAlloc(&dc, 8 * N));
    CHECK(cuMemAlloc(&dout, 4 * N));
    CHECK(cuMemAlloc(&dout2, 4 * N));
    int bad = 0;
    for (int mode = 0; mode < 4; mode++)
        for (int linear = 0; linear < 2; linear++)
            for (int norm = 0; norm < 2; norm++) {
                for (int i = 0; i < N; i++) {
                    coords[2 * i] = norm ? rnd(-0.6f, 1.6f) : rnd(-3.0f, W + 3.0f);
                    coords[2 * i + 1] = norm ? rnd(-0.6f, 1.6f) : rnd(-3.0f, H + 3.0f);
                }
                CHECK(cuMemcpyHtoD(dc, coords, 8 * N));
                configure(tref, mode, linear, norm ? CU_TRSF_NORMALIZED_COORDINATES : 0);
                launch_samp(samp, dc, dout, N);
                CHECK(cuMemcpyDtoH(out, dout, 4 * N));
                bad += mismatches(T, coords, out, N, mode, linear, norm);
            }
    TRUE(bad == 0);
    CUaddress_mode am;
    CUfilter_mode fm;
    unsigned flags;
    CHECK(cuTexRefGetAddressMode(&am, tref, 1));
    CHECK(cuTexRefGetFilterMode(&fm, tref));
    CHECK(cuTexRefGetFlags(&flags, tref));
    TRUE(am == CU_TR_ADDRESS_MODE_BORDER && fm == CU_TR_FILTER_MODE_LINEAR && flags == CU_TRSF_NORMALIZED_COORDINATES);

    /* Two launches queued back to back with the state changed between them: each reads
     * the state it was launched with (the second waits before rewriting the entries). */
    for (int i = 0; i < N; i++) {
        coords[2 * i] = rnd(-2.0f, W + 2.0f);
        coords[2 * i + 1] = rnd(-2.0f, H + 2.0f);
    }
    CHECK(cuMemcpyHtoD(dc, coords, 8 * N));
    configure(tref, CLAMP, 1, 0);
    launch_samp(samp, dc, dout, N);
    configure(tref, BORDER, 0, 0);
    launch_samp(samp, dc, dout2, N);
    CHECK(cuMemcpyDtoH(out, dout, 4 * N));
    CHECK(cuMemcpyDtoH(out2, dout2, 4 * N));
    TRUE(mismatches(T, coords, out, N, CLAMP, 1, 0) == 0);
    TRUE(mismatches(T, coords, out2, N, BORDER, 0, 0) == 0);

    /* Pitch-linear 2D memory: the same texels at pitch 64, point sampled at centers. */
    {
        enum { P = 64 };
        unsigned char rows[P * H];
        memset(rows, 0, sizeof rows);
        for (int y = 0; y < H; y++) memcpy(rows + y * P, &T[y * W], W * 4);
        CUdeviceptr pm;
        CHECK(cuMemAlloc(&pm, sizeof rows));
        CHECK(cuMemcpyHtoD(pm, rows, sizeof rows));
        CUDA_ARRAY_DESCRIPTOR pd = {W, H, CU_AD_FORMAT_FLOAT, 1};
        EXPECT(cuTexRefSetAddress2D(tref, &pd, pm, 60), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuTexRefSetAddress2D(tref, &pd, pm + 4, P), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuTexRefSetAddress2D(tref, &pd, pm, P));
        EXPECT(cuTexRefGetArray(&got_a, tref), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuTexRefGetAddress(&got_p, tref));
        TRUE(got_p == pm);
        configure(tref, CLAMP, 0, 0);
        for (int i = 0; i < W * H; i++) {
            coords[2 * i] = (float)(i % W) + 0.5f;
            coords[2 * i + 1] = (float)(i / W) + 0.5f;
        }
        CHECK(cuMemcpyHtoD(dc, coords, 8 * W * H));
        launch_samp(samp, dc, dout, W * H);
        CHECK(cuMemcpyDtoH(out, dout, 4 * W * H));
        TRUE(memcmp(out, T, 4 * W * H) == 0);
        CHECK(cuMemFree(pm));
    }

    /* Linear memory from an unaligned pointer: the offset to the aligned start comes back,
     * and fetches index from there; 0 beyond the end. */
    {
        enum { L = 48, SKIP = 5 };
        int vals[L];
        for (int i = 0; i < L; i++) vals[i] = 1000 - i * 7;
        CUdeviceptr dv, dres;
        CHECK(cuMemAlloc(&dv, sizeof vals));
        CHECK(cuMemAlloc(&dres, 4 * (L + 8)));
        CHECK(cuMemcpyHtoD(dv, vals, sizeof vals));
        CHECK(cuTexRefSetFormat(tlin, CU_AD_FORMAT_SIGNED_INT32, 1));
        CHECK(cuTexRefSetFlags(tlin, CU_TRSF_READ_AS_INTEGER));
        size_t off = 99;
        CHECK(cuTexRefSetAddress(&off, tlin, dv + 4 * SKIP, sizeof vals - 4 * SKIP));
        TRUE(off == 4 * SKIP);
        unsigned n = L + 8;
        void *params[] = {&dres, &n};
        CHECK(cuLaunchKernel(fetch, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
        int res[L + 8];
        CHECK(cuMemcpyDtoH(res, dres, sizeof res));
        int ok = 1;
        for (int i = 0; i < L + 8; i++) ok &= res[i] == (i < L ? vals[i] : 0);
        TRUE(ok);
        /* Beyond the allocation, or empty. */
        EXPECT(cuTexRefSetAddress(&off, tlin, dv, sizeof vals + 4), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuTexRefSetAddress(&off, tlin, dv, 0), CUDA_ERROR_INVALID_VALUE);
        /* Linear filtering of integers is refused at the launch that would use it. */
        CHECK(cuTexRefSetFilterMode(tlin, CU_TR_FILTER_MODE_LINEAR));
        EXPECT(cuLaunchKernel(fetch, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuTexRefSetFilterMode(tlin, CU_TR_FILTER_MODE_POINT));
        CHECK(cuTexRefSetFlags(tlin, CU_TRSF_READ_AS_INTEGER | CU_TRSF_SRGB));
        EXPECT(cuLaunchKernel(fetch, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_NOT_SUPPORTED);
        CHECK(cuTexRefSetFlags(tlin, CU_TRSF_READ_AS_INTEGER));
        CHECK(cuLaunchKernel(fetch, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
        CHECK(cuCtxSynchronize());
        CHECK(cuMemFree(dv));
        CHECK(cuMemFree(dres));
    }

    /* Setter errors. */
    EXPECT(cuTexRefSetAddressMode(tref, 3, CU_TR_ADDRESS_MODE_CLAMP), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetAddressMode(tref, 0, (CUaddress_mode)4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetFilterMode(tref, (CUfilter_mode)2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetFormat(tref, (CUarray_format)0x77, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetFormat(tref, CU_AD_FORMAT_FLOAT, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetFlags(tref, 0x100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetFilterMode(NULL, CU_TR_FILTER_MODE_POINT), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetMipmappedArray(tref, NULL, CU_TRSA_OVERRIDE_FORMAT), CUDA_ERROR_INVALID_VALUE);
    /* The mipmap and anisotropy settings are kept and read back. */
    CHECK(cuTexRefSetMaxAnisotropy(tref, 8));
    CHECK(cuTexRefSetMipmapLevelClamp(tref, 0.5f, 3.0f));
    int aniso;
    float lo, hi;
    CHECK(cuTexRefGetMaxAnisotropy(&aniso, tref));
    CHECK(cuTexRefGetMipmapLevelClamp(&lo, &hi, tref));
    TRUE(aniso == 8 && lo == 0.5f && hi == 3.0f);

    /* A surface reference over a u32 array made for load/store. */
    {
        enum { SW = 37, SH = 4 };
        unsigned s0[SH * SW], s1[SH * SW];
        for (int i = 0; i < SH * SW; i++) s0[i] = (unsigned)(i * 40503u + 7);
        CUarray sa, plain;
        CUDA_ARRAY3D_DESCRIPTOR sd = {SW, SH, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
        CHECK(cuArray3DCreate(&sa, &sd));
        sd.Flags = 0;
        CHECK(cuArray3DCreate(&plain, &sd));
        array2d_copy(sa, s0, SW * 4, SH, 1);
        EXPECT(cuSurfRefSetArray(sref, plain, 0), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuSurfRefSetArray(sref, sa, 1), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuSurfRefSetArray(sref, sa, 0));
        CHECK(cuSurfRefGetArray(&got_a, sref));
        TRUE(got_a == sa);
        unsigned w = SW;
        void *params[] = {&w};
        CHECK(cuLaunchKernel(surf, 1, SH, 1, 64, 1, 1, 0, NULL, params, NULL));
        array2d_copy(sa, s1, SW * 4, SH, 0);
        int ok = 1;
        for (int i = 0; i < SH * SW; i++) ok &= s1[i] == 3 * s0[i] + 1;
        TRUE(ok);
        /* The async array copies, in a stream's order: the first row back and forth. */
        CUstream st;
        CHECK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
        unsigned row[SW];
        CHECK(cuMemcpyAtoHAsync(row, sa, 0, sizeof row, st));
        TRUE(memcmp(row, s1, sizeof row) == 0);
        for (int i = 0; i < SW; i++) row[i] = ~row[i];
        CHECK(cuMemcpyHtoAAsync(sa, 8, row, sizeof row - 8, st));
        CHECK(cuStreamSynchronize(st));
        unsigned back[SW];
        CHECK(cuMemcpyAtoH(back, sa, 0, sizeof back));
        TRUE(back[0] == s1[0] && back[1] == s1[1] && back[2] == row[0] && back[SW - 1] == row[SW - 3]);
        EXPECT(cuMemcpyHtoAAsync(sa, 8, row, sizeof row, st), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuStreamDestroy(st));
        /* A destroyed array is unbound: nothing to read back, nothing for a kernel to use. */
        CHECK(cuArrayDestroy(sa));
        EXPECT(cuSurfRefGetArray(&got_a, sref), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuArrayDestroy(plain));
    }

    /* A reference outlives neither its module nor its context's handle table. */
    CHECK(cuModuleUnload(mod));
    EXPECT(cuTexRefSetFilterMode(tref, CU_TR_FILTER_MODE_POINT), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefGetArray(&got_a, tref), CUDA_ERROR_INVALID_VALUE);

    CHECK(cuArrayDestroy(a));
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(dout));
    CHECK(cuMemFree(dout2));
    free(coords);
    free(out);
    free(out2);
    CHECK(cuCtxDestroy(ctx));
    return report();
}
