/*
 * Pitched copies through libcuda.so.1: cuMemcpy2D host to device to host at odd pitches
 * and offsets, device to device, from pinned memory on a stream, host to host, rows longer
 * than a staging buffer, cuMemcpy3D slices with different heights, each against a CPU
 * reference; and the errors (overlapping rows, bad array handles, bounds, levels of detail).
 * Run by tests/tests/c_abi.rs:  copy2d
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Copy `w` x `h` bytes on the CPU, as cuMemcpy2D does. */
static void ref2d(unsigned char *dst, size_t dpitch, const unsigned char *src, size_t spitch, size_t w, size_t h) {
    for (size_t r = 0; r < h; r++) memcpy(dst + r * dpitch, src + r * spitch, w);
}

static CUDA_MEMCPY2D plain(void) {
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    return c;
}

int main(void) {
    CUcontext ctx = init_context();

    enum { W = 37, H = 19, SP = 64, DP = 100, BP = 50 };
    unsigned char *src = malloc(SP * (H + 2)), *back = calloc(BP * (H + 1), 1), *want = calloc(BP * (H + 1), 1);
    for (int i = 0; i < SP * (H + 2); i++) src[i] = (unsigned char)(i * 7 + 3);
    CUdeviceptr d, e;
    CHECK(cuMemAlloc(&d, DP * (H + 1)));
    CHECK(cuMemAlloc(&e, DP * (H + 1)));
    CHECK(cuMemsetD8(d, 0, DP * (H + 1)));

    /* Host (x 3, row 2, pitch 64) to device (x 5, row 1, pitch 100). */
    CUDA_MEMCPY2D c = plain();
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcXInBytes = 3;
    c.srcY = 2;
    c.srcPitch = SP;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstXInBytes = 5;
    c.dstY = 1;
    c.dstPitch = DP;
    c.WidthInBytes = W;
    c.Height = H;
    CHECK(cuMemcpy2D(&c));
    /* The device buffer as a whole: the rows at their places, zeros around them. */
    unsigned char *whole = malloc(DP * (H + 1)), *model = calloc(DP * (H + 1), 1);
    CHECK(cuMemcpyDtoH(whole, d, DP * (H + 1)));
    ref2d(model + DP + 5, DP, src + 2 * SP + 3, SP, W, H);
    TRUE(memcmp(whole, model, DP * (H + 1)) == 0);

    /* Device to device (pitch 100 to pitch 50 at x 1), then device to host (pitch 50). */
    CUDA_MEMCPY2D dd = plain();
    dd.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    dd.srcDevice = d;
    dd.srcXInBytes = 5;
    dd.srcY = 1;
    dd.srcPitch = DP;
    dd.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    dd.dstDevice = e;
    dd.dstXInBytes = 1;
    dd.dstPitch = BP;
    dd.WidthInBytes = W;
    dd.Height = H;
    CHECK(cuMemcpy2D(&dd));
    CUDA_MEMCPY2D dh = plain();
    dh.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    dh.srcDevice = e;
    dh.srcXInBytes = 1;
    dh.srcPitch = BP;
    dh.dstMemoryType = CU_MEMORYTYPE_HOST;
    dh.dstHost = back;
    dh.dstY = 1;
    dh.dstPitch = BP;
    dh.WidthInBytes = W;
    dh.Height = H;
    CHECK(cuMemcpy2D(&dh));
    ref2d(want + BP, BP, src + 2 * SP + 3, SP, W, H);
    TRUE(memcmp(back, want, BP * (H + 1)) == 0);

    /* Host to host. */
    unsigned char *hh = calloc(BP * (H + 1), 1);
    CUDA_MEMCPY2D c2 = dh;
    c2.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2.srcHost = back + BP;
    c2.srcXInBytes = 0;
    c2.dstHost = hh;
    CHECK(cuMemcpy2D(&c2));
    TRUE(memcmp(hh, want, BP * (H + 1)) == 0);

    /* From pinned memory on a stream (asynchronous), read back after synchronizing. */
    unsigned char *pin;
    CHECK(cuMemAllocHost((void **)&pin, SP * (H + 2)));
    memcpy(pin, src, SP * (H + 2));
    CUstream s;
    CHECK(cuStreamCreate(&s, 0)); /* blocking: waits for the memset on the legacy stream */
    CHECK(cuMemsetD8(e, 0, DP * (H + 1)));
    CUDA_MEMCPY2D pc = c;
    pc.srcHost = pin;
    pc.dstDevice = e;
    CHECK(cuMemcpy2DAsync(&pc, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH(whole, e, DP * (H + 1)));
    TRUE(memcmp(whole, model, DP * (H + 1)) == 0);

    /* Rows longer than a staging buffer (2 MiB): each row goes in parts. */
    const size_t LW = (5u << 19) + 13, LH = 3, LP = LW + 4099;
    unsigned char *big = malloc(LP * LH), *bigback = calloc(LW * LH, 1);
    for (size_t i = 0; i < LP * LH; i++) big[i] = (unsigned char)(i * 31 + (i >> 12));
    CUdeviceptr bd;
    CHECK(cuMemAlloc(&bd, LW * LH));
    CUDA_MEMCPY2D bc = plain();
    bc.srcMemoryType = CU_MEMORYTYPE_HOST;
    bc.srcHost = big;
    bc.srcPitch = LP;
    bc.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    bc.dstDevice = bd;
    bc.dstPitch = LW;
    bc.WidthInBytes = LW;
    bc.Height = LH;
    CHECK(cuMemcpy2D(&bc));
    CHECK(cuMemcpyDtoH(bigback, bd, LW * LH));
    int ok = 1;
    for (size_t r = 0; r < LH; r++) ok &= memcmp(bigback + r * LW, big + r * LP, LW) == 0;
    TRUE(ok);

    /* 3D: 4 slices of 9 rows of 21 bytes, source slices of 11 rows at pitch 32, device
       slices of 10 rows at pitch 24, from (x 2, y 1, z 1). */
    enum { X3 = 21, Y3 = 9, Z3 = 4, SP3 = 32, SH3 = 11, DP3 = 24, DH3 = 10 };
    unsigned char *vol = malloc(SP3 * SH3 * (Z3 + 1)), *vback = calloc(DP3 * DH3 * Z3, 1);
    for (int i = 0; i < SP3 * SH3 * (Z3 + 1); i++) vol[i] = (unsigned char)(i ^ (i >> 5));
    CUdeviceptr v;
    CHECK(cuMemAlloc(&v, DP3 * DH3 * Z3));
    CHECK(cuMemsetD8(v, 0, DP3 * DH3 * Z3));
    CUDA_MEMCPY3D c3;
    memset(&c3, 0, sizeof c3);
    c3.srcMemoryType = CU_MEMORYTYPE_HOST;
    c3.srcHost = vol;
    c3.srcXInBytes = 2;
    c3.srcY = 1;
    c3.srcZ = 1;
    c3.srcPitch = SP3;
    c3.srcHeight = SH3;
    c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c3.dstDevice = v;
    c3.dstPitch = DP3;
    c3.dstHeight = DH3;
    c3.WidthInBytes = X3;
    c3.Height = Y3;
    c3.Depth = Z3;
    CHECK(cuMemcpy3D(&c3));
    CHECK(cuMemcpyDtoH(vback, v, DP3 * DH3 * Z3));
    unsigned char *vwant = calloc(DP3 * DH3 * Z3, 1);
    for (int z = 0; z < Z3; z++)
        ref2d(vwant + z * DP3 * DH3, DP3, vol + (z + 1) * SP3 * SH3 + SP3 + 2, SP3, X3, Y3);
    TRUE(memcmp(vback, vwant, DP3 * DH3 * Z3) == 0);

    /* Errors. */
    CUDA_MEMCPY2D bad = c;
    bad.srcPitch = W - 1; /* rows would overlap */
    EXPECT(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
    bad = c;
    bad.dstY = H; /* past the end of the allocation */
    EXPECT(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
    bad = c;
    bad.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    bad.dstArray = (CUarray)(uintptr_t)1; /* no array */
    EXPECT(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_HANDLE);
    bad.dstArray = NULL;
    EXPECT(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
    bad = c;
    bad.srcMemoryType = (CUmemorytype)9;
    EXPECT(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY3D bad3 = c3;
    bad3.dstLOD = 1;
    EXPECT(cuMemcpy3D(&bad3), CUDA_ERROR_INVALID_VALUE);
    bad3 = c3;
    bad3.dstHeight = Y3 - 1; /* slices would overlap */
    EXPECT(cuMemcpy3D(&bad3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);

    CHECK(cuCtxDestroy(ctx));
    return report();
}
