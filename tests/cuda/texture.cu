// CUDA arrays and texture and surface objects through the runtime: a float image in a
// 2D array sampled with point and bilinear filtering (normalized and not, clamp and
// wrap), integer fetches from linear memory, uchar4 read as normalized floats, a surface
// written and read by a kernel, copies to and from arrays (2D, 3D, the 1D forms), the
// objects' descriptions, against a CPU model of the sampler, and a texture of managed
// memory.
#include "check.cuh"
#include <cmath>

__global__ void sample(cudaTextureObject_t t, float *out, int n, float scale, float off) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, i * scale + off, 0.5f * i * scale + off);
}

__global__ void fetch_int(cudaTextureObject_t t, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i) + tex1Dfetch<int>(t, n - 1 - i);
}

__global__ void normalized(cudaTextureObject_t t, float4 *out) {
    int x = threadIdx.x;
    out[x] = tex2D<float4>(t, x + 0.5f, 0.5f);
}

__global__ void surf_double(cudaSurfaceObject_t s, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) {
        int v = surf2Dread<int>(s, x * 4, y);
        surf2Dwrite(2 * v + 1, s, x * 4, y);
    }
}

/* The CPU's bilinear sample of a w x h float image with clamp addressing (CUDA's: 8-bit
   fractions of the weights are what the hardware uses; the test allows for it). */
static float bilinear(const float *img, int w, int h, float x, float y) {
    x -= 0.5f;
    y -= 0.5f;
    int x0 = (int)floorf(x), y0 = (int)floorf(y);
    float a = x - x0, b = y - y0;
    auto at = [&](int i, int j) {
        i = i < 0 ? 0 : i >= w ? w - 1 : i;
        j = j < 0 ? 0 : j >= h ? h - 1 : j;
        return img[j * w + i];
    };
    return (1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0) + (1 - a) * b * at(x0, y0 + 1) +
           a * b * at(x0 + 1, y0 + 1);
}

__global__ void lod(cudaTextureObject_t t, float *out) {
    int l = threadIdx.x;
    out[l] = tex2DLod<float>(t, 0.5f, 0.5f, (float)l);
}

// Reads managed memory through a texture object (paged: its texels fault in as loads do).
__global__ void via_texture(cudaTextureObject_t t, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<float>(t, i) + tex1Dfetch<float>(t, n - 1 - i);
}

int main() {
    const int w = 16, h = 8;
    float img[h * w];
    for (int i = 0; i < w * h; i++) img[i] = (float)((i * 37) % 101);
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    TRUE(fd.x == 32 && fd.y == 0 && fd.f == cudaChannelFormatKindFloat);
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &fd, w, h));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    cudaChannelFormatDesc got;
    cudaExtent ext;
    unsigned int flags = 9;
    CHECK(cudaArrayGetInfo(&got, &ext, &flags, arr));
    TRUE(got.x == 32 && got.f == cudaChannelFormatKindFloat && ext.width == w && ext.height == h && flags == 0);

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t point, lin;
    CHECK(cudaCreateTextureObject(&point, &res, &td, nullptr));
    td.filterMode = cudaFilterModeLinear;
    CHECK(cudaCreateTextureObject(&lin, &res, &td, nullptr));
    float *out, hout[32];
    CHECK(cudaMalloc(&out, sizeof hout));

    // Point sampling at texel centres reads the texels.
    sample<<<1, 16>>>(point, out, 16, 1.0f, 0.5f);
    CHECK(cudaMemcpy(hout, out, 16 * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 16; i++) {
        int row = (int)(0.5f * i + 0.5f);
        bad += hout[i] != img[(row < h ? row : h - 1) * w + i]; // clamped at the last row
    }
    TRUE(bad == 0);
    // Bilinear filtering between texels, clamped at the edges.
    sample<<<1, 32>>>(lin, out, 32, 0.61f, -0.3f);
    CHECK(cudaMemcpy(hout, out, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < 32; i++) {
        float want = bilinear(img, w, h, i * 0.61f - 0.3f, 0.5f * i * 0.61f - 0.3f);
        bad += fabsf(hout[i] - want) > 0.01f * 100; // 9-bit weights: within 1% of the range
    }
    TRUE(bad == 0);
    cudaResourceDesc back;
    CHECK(cudaGetTextureObjectResourceDesc(&back, lin));
    TRUE(back.resType == cudaResourceTypeArray && back.res.array.array == arr);
    cudaTextureDesc tback;
    CHECK(cudaGetTextureObjectTextureDesc(&tback, lin));
    TRUE(tback.filterMode == cudaFilterModeLinear && tback.addressMode[0] == cudaAddressModeClamp &&
         tback.readMode == cudaReadModeElementType);

    // Integer fetches from linear memory.
    const int n = 1000;
    int hi[n], ho[n], *di, *dout;
    for (int i = 0; i < n; i++) hi[i] = i * i;
    CHECK(cudaMalloc(&di, sizeof hi));
    CHECK(cudaMalloc(&dout, sizeof ho));
    CHECK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    cudaResourceDesc lr = {};
    lr.resType = cudaResourceTypeLinear;
    lr.res.linear.devPtr = di;
    lr.res.linear.desc = cudaCreateChannelDesc<int>();
    lr.res.linear.sizeInBytes = sizeof hi;
    cudaTextureDesc itd = {};
    itd.readMode = cudaReadModeElementType;
    cudaTextureObject_t it;
    CHECK(cudaCreateTextureObject(&it, &lr, &itd, nullptr));
    fetch_int<<<(n + 255) / 256, 256>>>(it, dout, n);
    CHECK(cudaMemcpy(ho, dout, sizeof ho, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += ho[i] != hi[i] + hi[n - 1 - i];
    TRUE(bad == 0);

    // uchar4 texels read as normalized floats.
    uchar4 px[8];
    for (int i = 0; i < 8; i++) px[i] = make_uchar4(i * 32, 255, 0, 128);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t carr;
    CHECK(cudaMallocArray(&carr, &cd, 8, 1));
    CHECK(cudaMemcpyToArray(carr, 0, 0, px, sizeof px, cudaMemcpyHostToDevice));
    cudaResourceDesc cr = {};
    cr.resType = cudaResourceTypeArray;
    cr.res.array.array = carr;
    cudaTextureDesc ntd = {};
    ntd.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t nt;
    CHECK(cudaCreateTextureObject(&nt, &cr, &ntd, nullptr));
    float4 *d4, h4[8];
    CHECK(cudaMalloc(&d4, sizeof h4));
    normalized<<<1, 8>>>(nt, d4);
    CHECK(cudaMemcpy(h4, d4, sizeof h4, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < 8; i++) bad += h4[i].x != i * 32 / 255.0f || h4[i].y != 1.0f || h4[i].z != 0.0f;
    TRUE(bad == 0);
    uchar4 pxb[8];
    CHECK(cudaMemcpyFromArray(pxb, carr, 0, 0, sizeof pxb, cudaMemcpyDeviceToHost));
    TRUE(pxb[5].x == 160 && pxb[7].w == 128);

    // A surface: the kernel doubles every element in place.
    const int sw = 20, sh = 6;
    int sv[sh][sw], sb[sh][sw];
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < sw; x++) sv[y][x] = y * 1000 + x;
    cudaChannelFormatDesc id = cudaCreateChannelDesc<int>();
    cudaArray_t sarr;
    CHECK(cudaMallocArray(&sarr, &id, sw, sh, cudaArraySurfaceLoadStore));
    cudaMemcpy3DParms in = {};
    in.srcPtr = make_cudaPitchedPtr(sv, sw * sizeof(int), sw, sh);
    in.dstArray = sarr;
    in.extent = make_cudaExtent(sw, sh, 1); // elements: an array takes part
    in.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&in));
    cudaResourceDesc sr = {};
    sr.resType = cudaResourceTypeArray;
    sr.res.array.array = sarr;
    cudaSurfaceObject_t so;
    CHECK(cudaCreateSurfaceObject(&so, &sr));
    surf_double<<<sh, 32>>>(so, sw, sh);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2DFromArray(sb, sw * sizeof(int), sarr, 0, 0, sw * sizeof(int), sh, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < sw; x++) bad += sb[y][x] != 2 * sv[y][x] + 1;
    TRUE(bad == 0);

    // A bad channel descriptor, a view, and freeing.
    cudaChannelFormatDesc badd = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t none;
    EXPECT(cudaMallocArray(&none, &badd, 4, 4), cudaErrorInvalidChannelDescriptor);
    CHECK(cudaDestroyTextureObject(point));
    CHECK(cudaDestroyTextureObject(lin));
    CHECK(cudaDestroyTextureObject(it));
    CHECK(cudaDestroyTextureObject(nt));
    CHECK(cudaDestroySurfaceObject(so));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFreeArray(carr));
    CHECK(cudaFreeArray(sarr));
    // A mipmapped array: four levels (16x16 down to 2x2), each filled through its level
    // array with its own value; tex2DLod reads each level.
    cudaMipmappedArray_t mip;
    CHECK(cudaMallocMipmappedArray(&mip, &fd, make_cudaExtent(16, 16, 0), 4));
    for (unsigned l = 0; l < 4; l++) {
        cudaArray_t level;
        CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
        cudaExtent e;
        cudaChannelFormatDesc ld;
        unsigned lflags;
        CHECK(cudaArrayGetInfo(&ld, &e, &lflags, level));
        TRUE(e.width == (16u >> l) && e.height == (16u >> l) && ld.x == 32);
        float v[256];
        for (int i = 0; i < 256; i++) v[i] = 10.0f * (l + 1);
        size_t w = e.width * sizeof(float);
        CHECK(cudaMemcpy2DToArray(level, 0, 0, v, w, w, e.height, cudaMemcpyHostToDevice));
    }
    EXPECT(cudaGetMipmappedArrayLevel(&none, mip, 9), cudaErrorInvalidValue);
    cudaResourceDesc mr = {};
    mr.resType = cudaResourceTypeMipmappedArray;
    mr.res.mipmap.mipmap = mip;
    cudaTextureDesc mt = {};
    mt.normalizedCoords = 1;
    mt.filterMode = cudaFilterModePoint;
    mt.mipmapFilterMode = cudaFilterModePoint;
    mt.maxMipmapLevelClamp = 3.0f;
    cudaTextureObject_t mto;
    CHECK(cudaCreateTextureObject(&mto, &mr, &mt, nullptr));
    cudaResourceDesc back_mr;
    CHECK(cudaGetTextureObjectResourceDesc(&back_mr, mto));
    TRUE(back_mr.resType == cudaResourceTypeMipmappedArray && back_mr.res.mipmap.mipmap == mip);
    float *lods;
    CHECK(cudaMallocManaged(&lods, 4 * sizeof(float)));
    lod<<<1, 4>>>(mto, lods);
    CHECK(cudaDeviceSynchronize());
    TRUE(lods[0] == 10.0f && lods[1] == 20.0f && lods[2] == 30.0f && lods[3] == 40.0f);
    CHECK(cudaDestroyTextureObject(mto));
    CHECK(cudaFreeMipmappedArray(mip));
    CHECK(cudaFreeMipmappedArray(nullptr));
    CHECK(cudaFree(lods));
    // A texture of managed memory, and its result in managed memory (paged: texels fault
    // their pages in as loads do; runtime_programs checks what moved).
    {
        const int tn = 16 * 1024;
        float *src = nullptr, *dst = nullptr;
        CHECK(cudaMallocManaged(&src, tn * sizeof(float)));
        CHECK(cudaMallocManaged(&dst, tn * sizeof(float)));
        for (int i = 0; i < tn; i++) src[i] = 0.5f * i;
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeLinear;
        rd.res.linear.devPtr = src;
        rd.res.linear.desc = cudaCreateChannelDesc<float>();
        rd.res.linear.sizeInBytes = tn * sizeof(float);
        cudaTextureDesc td = {};
        td.readMode = cudaReadModeElementType;
        cudaTextureObject_t t = 0;
        CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
        via_texture<<<tn / 256, 256>>>(t, dst, tn);
        CHECK(cudaDeviceSynchronize());
        int wrong = 0;
        for (int i = 0; i < tn; i++) wrong += dst[i] != 0.5f * (tn - 1);
        TRUE(wrong == 0);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFree(dst));
        CHECK(cudaFree(src));
    }

    return report();
}
