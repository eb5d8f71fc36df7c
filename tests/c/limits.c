/* The texture and surface size limits the device attributes report are the ones array
 * creation and texture binding enforce: each shape at its limit is made, one past it is
 * CUDA_ERROR_INVALID_VALUE. Run on every preset (the limits follow the architecture).
 * Prints "cc MAJOR.MINOR", each attribute's value and "answered N of 147" for the caller
 * to check against the figures of a real board of the architecture. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static CUdevice dev;

static int attr(CUdevice_attribute a) {
    int v = -1;
    CHECK(cuDeviceGetAttribute(&v, a, dev));
    return v;
}

/* Make (and destroy) an array of one-byte elements; returns what creation returned. */
static CUresult make(size_t w, size_t h, size_t d, unsigned flags) {
    CUDA_ARRAY3D_DESCRIPTOR desc = {w, h, d, CU_AD_FORMAT_UNSIGNED_INT8, 1, flags};
    CUarray a;
    CUresult r = cuArray3DCreate(&a, &desc);
    if (r == CUDA_SUCCESS) CHECK(cuArrayDestroy(a));
    return r;
}

/* The shape fits at (w, h, d) and not one past it along each axis that `grow` marks. */
static void edge(const char *what, size_t w, size_t h, size_t d, unsigned flags, int grow) {
    CUresult at = make(w, h, d, flags);
    if (at != CUDA_SUCCESS) fprintf(stderr, "%s at %zux%zux%zu: %d\n", what, w, h, d, (int)at);
    TRUE(at == CUDA_SUCCESS);
    for (int axis = 0; axis < 3; axis++) {
        if (!(grow >> axis & 1)) continue;
        size_t e[3] = {w, h, d};
        e[axis]++;
        CUresult past = make(e[0], e[1], e[2], flags);
        if (past != CUDA_ERROR_INVALID_VALUE)
            fprintf(stderr, "%s past axis %d (%zux%zux%zu): %d\n", what, axis, e[0], e[1], e[2], (int)past);
        TRUE(past == CUDA_ERROR_INVALID_VALUE);
    }
}

int main(void) {
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, 0, dev));
    int major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    printf("cc %d.%d\n", major, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));

    const unsigned L = CUDA_ARRAY3D_LAYERED, S = CUDA_ARRAY3D_SURFACE_LDST;
    /* Textures: one axis at a time at its limit (the others small, to keep memory low). */
    int t1 = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
    edge("1D", t1, 0, 0, 0, 1);
    int t2w = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH), t2h = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
    edge("2D width", t2w, 1, 0, 0, 1);
    edge("2D height", 1, t2h, 0, 0, 2);
    int t3[3] = {attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH), attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT),
                 attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH)};
    int alt[3] = {attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE),
                  attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE),
                  attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE)};
    edge("3D width", t3[0], 1, 1, 0, alt[0] > t3[0] ? 0 : 1);
    edge("3D height", 1, t3[1], 1, 0, alt[1] > t3[1] ? 0 : 2);
    if (alt[2] > t3[2]) {
        /* The alternate shape: deeper, but only as wide and high as it says. */
        edge("3D alternate depth", 1, 1, alt[2], 0, 4);
        TRUE(make(alt[0] + 1, 1, t3[2] + 1, 0) == CUDA_ERROR_INVALID_VALUE);
        TRUE(make(1, alt[1] + 1, t3[2] + 1, 0) == CUDA_ERROR_INVALID_VALUE);
    } else {
        TRUE(alt[0] == 0 && alt[1] == 0 && alt[2] == 0);
        edge("3D depth", 1, 1, t3[2], 0, 4);
    }
    int l1w = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
    int l1n = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
    edge("1D layered", l1w, 0, 1, L, 1);
    edge("1D layers", 1, 0, l1n, L, 4);
    int l2w = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
    int l2h = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
    int l2n = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
    edge("2D layered width", l2w, 1, 1, L, 1);
    edge("2D layered height", 1, l2h, 1, L, 2);
    edge("2D layers", 1, 1, l2n, L, 4);
    /* Gather is for 2D arrays, within its own limits. */
    int gw = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH);
    int gh = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT);
    TRUE(gw < t2w && gh <= t2h);
    edge("gather width", gw, 1, 0, CUDA_ARRAY3D_TEXTURE_GATHER, 1);
    edge("gather height", 1, gh, 0, CUDA_ARRAY3D_TEXTURE_GATHER, 2);
    TRUE(make(gw + 1, 1, 0, 0) == CUDA_SUCCESS);
    TRUE(make(4, 4, 4, CUDA_ARRAY3D_TEXTURE_GATHER) == CUDA_ERROR_INVALID_VALUE);
    /* A cube map: six square faces no wider than its width (one at the limit would take
     * gigabytes). */
    int cw = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH);
    TRUE(cw > 0 && make(16, 16, 6, CUDA_ARRAY3D_CUBEMAP) == CUDA_SUCCESS);
    TRUE(make(cw + 1, cw + 1, 6, CUDA_ARRAY3D_CUBEMAP) == CUDA_ERROR_INVALID_VALUE);
    /* Layered cube maps are not modelled: their limits are 0. */
    TRUE(attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH) == 0);
    /* Mipmapped arrays: 1D and 2D within their own limits. */
    {
        int mw = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
        int m2w = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH);
        int m2h = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT);
        CUDA_ARRAY3D_DESCRIPTOR md[] = {{mw, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0},
                                        {m2w, 1, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0},
                                        {1, m2h, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0}};
        for (int i = 0; i < 3; i++) {
            CUmipmappedArray m;
            CHECK(cuMipmappedArrayCreate(&m, &md[i], 2));
            CHECK(cuMipmappedArrayDestroy(m));
            if (i == 2) md[i].Height++;
            else md[i].Width++;
            EXPECT(cuMipmappedArrayCreate(&m, &md[i], 2), CUDA_ERROR_INVALID_VALUE);
        }
    }

    /* Surfaces (CUDA_ARRAY3D_SURFACE_LDST) have limits of their own; an array for them
     * meets the texture limits too (cuArray3DCreate's two columns of valid extents). */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
    int s1 = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
    edge("1D surface", s1, 0, 0, S, 1);
    int s2w = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH), s2h = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
    edge("2D surface width", s2w, 1, 0, S, s2w < t2w ? 1 : 0);
    edge("2D surface height", 1, s2h, 0, S, 2);
    int s3[3] = {attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH), attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT),
                 attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH)};
    edge("3D surface width", MIN(s3[0], t3[0]), 1, 1, S, 1);
    edge("3D surface height", 1, MIN(s3[1], t3[1]), 1, S, 2);
    edge("3D surface depth", 1, 1, MIN(s3[2], t3[2]), S, 4);
    edge("1D layered surface", MIN(attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH), l1w), 0, 1, L | S, 1);
    edge("1D surface layers", 1, 0, attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS), L | S, 4);
    edge("2D layered surface", 1, MIN(attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT), l2h), 1, L | S, 2);
    edge("2D surface layers", 1, 1, attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS), L | S, 4);
    int scw = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH);
    TRUE(scw > 0 && make(16, 16, 6, CUDA_ARRAY3D_CUBEMAP | S) == CUDA_SUCCESS);
    if (scw < cw) TRUE(make(scw + 1, scw + 1, 6, CUDA_ARRAY3D_CUBEMAP | S) == CUDA_ERROR_INVALID_VALUE);

    /* Pitch-linear 2D textures: height and pitch limits. */
    int lh = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT);
    int lp = attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH);
    int pa = attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
    TRUE(pa == 32 && lp % pa == 0 && attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH) >= t1);
    CUdeviceptr mem;
    size_t bytes = (size_t)lp > (size_t)pa * (lh + 1) ? (size_t)lp : (size_t)pa * (lh + 1);
    CHECK(cuMemAlloc(&mem, bytes));
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_PITCH2D;
    r.res.pitch2D.devPtr = mem;
    r.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    r.res.pitch2D.numChannels = 1;
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    const struct {
        size_t w, h, pitch;
        CUresult want;
    } cases[] = {
        {1, lh, pa, CUDA_SUCCESS},
        {1, lh + 1, pa, CUDA_ERROR_INVALID_VALUE},
        {1, 1, lp, CUDA_SUCCESS},
        {1, 1, lp + pa, CUDA_ERROR_INVALID_VALUE},
        {1, 2, pa + 1, CUDA_ERROR_INVALID_VALUE}, /* pitch off TEXTURE_PITCH_ALIGNMENT */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r.res.pitch2D.width = cases[i].w;
        r.res.pitch2D.height = cases[i].h;
        r.res.pitch2D.pitchInBytes = cases[i].pitch;
        CUtexObject tex;
        CUresult got = cuTexObjectCreate(&tex, &r, &t, NULL);
        if (got != cases[i].want) fprintf(stderr, "pitch2D case %zu: %d\n", i, (int)got);
        TRUE(got == cases[i].want);
        if (got == CUDA_SUCCESS) CHECK(cuTexObjectDestroy(tex));
    }
    CHECK(cuMemFree(mem));

    /* Every attribute CUDA 12 defines is answered: "attr NUMBER VALUE" each. */
    int answered = 0, v;
    for (int a = 1; a <= 147; a++) {
        if (cuDeviceGetAttribute(&v, (CUdevice_attribute)a, dev) != CUDA_SUCCESS) continue;
        answered++;
        printf("attr %d %d\n", a, v);
    }
    printf("answered %d of 147\n", answered);
    CHECK(cuCtxDestroy(ctx));
    return report();
}
