/*
 * The legacy unversioned entry points of NVIDIA's libcuda.so.1 with their old ABI, found
 * by dlsym and by cuGetProcAddress for a program built before CUDA 3.2: 32-bit device
 * pointers and sizes, from a window below 4 GiB that kernels use like any other memory;
 * copies, memsets, 2D/3D copies with the 32-bit descriptors, arrays, texture references;
 * sizes that saturate; addresses above 4 GiB refused; the pre-CUDA-11 primary-context
 * flags. Also the 64-bit cuMemAllocPitch and cuMemsetD2D* that they rest on.
 * Run by tests/tests/c_abi.rs:  legacy
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* The 32-bit ABI, as programs built before CUDA 3.2 declare it. */
typedef unsigned int dptr32;
typedef struct {
    unsigned int srcXInBytes, srcY;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    dptr32 srcDevice;
    CUarray srcArray;
    unsigned int srcPitch;
    unsigned int dstXInBytes, dstY;
    CUmemorytype dstMemoryType;
    void *dstHost;
    dptr32 dstDevice;
    CUarray dstArray;
    unsigned int dstPitch;
    unsigned int WidthInBytes, Height;
} memcpy2d32;
typedef struct {
    unsigned int srcXInBytes, srcY, srcZ, srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    dptr32 srcDevice;
    CUarray srcArray;
    void *reserved0;
    unsigned int srcPitch, srcHeight;
    unsigned int dstXInBytes, dstY, dstZ, dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    dptr32 dstDevice;
    CUarray dstArray;
    void *reserved1;
    unsigned int dstPitch, dstHeight;
    unsigned int WidthInBytes, Height, Depth;
} memcpy3d32;
typedef struct {
    unsigned int Width, Height;
    CUarray_format Format;
    unsigned int NumChannels;
} array32;
typedef struct {
    unsigned int Width, Height, Depth;
    CUarray_format Format;
    unsigned int NumChannels, Flags;
} array3d32;

/* Every legacy name whose successor is versioned (the 46 of NVIDIA's table). */
static const char *LEGACY[] = {
    "cuArray3DCreate", "cuArray3DGetDescriptor", "cuArrayCreate", "cuArrayGetDescriptor",
    "cuDevicePrimaryCtxSetFlags", "cuDeviceTotalMem", "cuGraphInstantiate",
    "cuGraphicsResourceGetMappedPointer", "cuGraphicsResourceSetMapFlags", "cuIpcOpenMemHandle", "cuMemAlloc",
    "cuMemAllocHost", "cuMemAllocPitch", "cuMemFree", "cuMemGetAddressRange", "cuMemGetInfo",
    "cuMemHostGetDevicePointer", "cuMemcpy2D", "cuMemcpy2DAsync", "cuMemcpy2DUnaligned", "cuMemcpy3D",
    "cuMemcpy3DAsync", "cuMemcpyAtoA", "cuMemcpyAtoD", "cuMemcpyAtoH", "cuMemcpyAtoHAsync", "cuMemcpyDtoA",
    "cuMemcpyDtoD", "cuMemcpyDtoDAsync", "cuMemcpyDtoH", "cuMemcpyDtoHAsync", "cuMemcpyHtoA",
    "cuMemcpyHtoAAsync", "cuMemcpyHtoD", "cuMemcpyHtoDAsync", "cuMemsetD16", "cuMemsetD2D16", "cuMemsetD2D32",
    "cuMemsetD2D8", "cuMemsetD32", "cuMemsetD8", "cuModuleGetGlobal", "cuStreamBeginCapture",
    "cuTexRefGetAddress", "cuTexRefSetAddress", "cuTexRefSetAddress2D",
};

/* out[i] = i + 7 for i < n; a global and a texture reference for the lookups. */
static const char *PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".global .texref tref;\n.visible .global .align 4 .u32 counter[5];\n"
    ".visible .entry fill(.param .u64 out, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<6>;\n .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [out];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n"
    " mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " mul.wide.u32 %rd2, %r2, 4;\n add.u64 %rd3, %rd1, %rd2;\n add.u32 %r5, %r2, 7;\n"
    " st.global.u32 [%rd3], %r5;\n"
    "DONE:\n ret;\n}\n";

static void *lib;

static void *sym(const char *name) {
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "%s is not exported\n", name);
        exit(1);
    }
    return p;
}

/* old_NAME: the legacy entry point NAME (## keeps cuda.h's _v2 mapping out of it). */
#define LEGACY_FN(type, name) __typeof__(type) old_##name = (type)sym(#name)

int main(void) {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    /* Each legacy name is exported, and is what a pre-3.2 program gets by base name. */
    CHECK(cuInit(0));
    for (size_t k = 0; k < sizeof LEGACY / sizeof LEGACY[0]; k++) {
        void *p = NULL;
        CUdriverProcAddressQueryResult st;
        CHECK(cuGetProcAddress(LEGACY[k], &p, 3000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
        if (p != sym(LEGACY[k]) || st != CU_GET_PROC_ADDRESS_SUCCESS) {
            fprintf(stderr, "cuGetProcAddress(%s, 3000) is not the legacy symbol\n", LEGACY[k]);
            failures++;
        }
    }

    /* Primary-context flags: before CUDA 11 they could not change an active context. */
    LEGACY_FN(CUresult(*)(CUdevice, unsigned int), cuDevicePrimaryCtxSetFlags);
    CUdevice dev;
    unsigned int flags = 99;
    int active = 1;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(old_cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_BLOCKING_SYNC));
    CHECK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    TRUE(flags == CU_CTX_SCHED_BLOCKING_SYNC && active == 0);
    EXPECT(old_cuDevicePrimaryCtxSetFlags(dev, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(old_cuDevicePrimaryCtxSetFlags(dev, 0x100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(old_cuDevicePrimaryCtxSetFlags(7, 0), CUDA_ERROR_INVALID_DEVICE);
    CUcontext primary;
    CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    EXPECT(old_cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_SPIN), CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE);
    CHECK(cuDevicePrimaryCtxSetFlags_v2(dev, CU_CTX_SCHED_SPIN | CU_CTX_MAP_HOST));
    CHECK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    TRUE(flags == (CU_CTX_SCHED_SPIN | CU_CTX_MAP_HOST) && active == 1);
    CHECK(cuDevicePrimaryCtxRelease(dev));

    CUcontext ctx = init_context();
    (void)ctx;

    /* Sizes saturate at 4 GiB - 1 (the preset's VRAM is larger). */
    LEGACY_FN(CUresult(*)(unsigned int *, CUdevice), cuDeviceTotalMem);
    LEGACY_FN(CUresult(*)(unsigned int *, unsigned int *), cuMemGetInfo);
    size_t total64, free64;
    unsigned int total32 = 0, free32 = 0;
    CHECK(cuDeviceTotalMem_v2(&total64, dev));
    CHECK(old_cuDeviceTotalMem(&total32, dev));
    TRUE(total32 == (total64 > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned int)total64));
    CHECK(cuMemGetInfo_v2(&free64, &total64));
    CHECK(old_cuMemGetInfo(&free32, &total32));
    TRUE(total32 == (total64 > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned int)total64));
    TRUE(free32 == (free64 > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned int)free64));
    EXPECT(old_cuMemGetInfo(NULL, &total32), CUDA_ERROR_INVALID_VALUE);

    /* 32-bit allocations: below 4 GiB, used by a kernel like any memory. */
    LEGACY_FN(CUresult(*)(dptr32 *, unsigned int), cuMemAlloc);
    LEGACY_FN(CUresult(*)(dptr32), cuMemFree);
    LEGACY_FN(CUresult(*)(dptr32, const void *, unsigned int), cuMemcpyHtoD);
    LEGACY_FN(CUresult(*)(void *, dptr32, unsigned int), cuMemcpyDtoH);
    LEGACY_FN(CUresult(*)(dptr32, dptr32, unsigned int), cuMemcpyDtoD);
    LEGACY_FN(CUresult(*)(dptr32, const void *, unsigned int, CUstream), cuMemcpyHtoDAsync);
    LEGACY_FN(CUresult(*)(void *, dptr32, unsigned int, CUstream), cuMemcpyDtoHAsync);
    LEGACY_FN(CUresult(*)(dptr32, dptr32, unsigned int, CUstream), cuMemcpyDtoDAsync);
    LEGACY_FN(CUresult(*)(dptr32 *, unsigned int *, dptr32), cuMemGetAddressRange);
    enum { N = 1000 };
    dptr32 a = 0, b = 0;
    CHECK(old_cuMemAlloc(&a, 4 * N));
    CHECK(old_cuMemAlloc(&b, 4 * N + 100));
    TRUE(a != 0 && b != 0 && a != b);
    CUmodule mod;
    CUfunction fill;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&fill, mod, "fill"));
    CUdeviceptr wide = a;
    unsigned int n = N;
    void *params[] = {&wide, &n};
    CHECK(cuLaunchKernel(fill, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    unsigned int host[N], back[N];
    memset(back, 0, sizeof back);
    CHECK(old_cuMemcpyDtoH(back, a, 4 * N));
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= back[i] == (unsigned)i + 7;
    TRUE(ok);
    for (int i = 0; i < N; i++) host[i] = 3u * (unsigned)i + 1;
    CHECK(old_cuMemcpyHtoD(b, host, 4 * N));
    CHECK(old_cuMemcpyDtoD(a, b, 4 * N));
    memset(back, 0, sizeof back);
    CHECK(cuMemcpyDtoH_v2(back, a, 4 * N));
    TRUE(memcmp(back, host, sizeof host) == 0);
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < N; i++) host[i] ^= 0x5a5a5a5a;
    CHECK(old_cuMemcpyHtoDAsync(a, host, 4 * N, s));
    CHECK(old_cuMemcpyDtoDAsync(b, a, 4 * N, s));
    memset(back, 0, sizeof back);
    CHECK(old_cuMemcpyDtoHAsync(back, b, 4 * N, s));
    CHECK(cuStreamSynchronize(s));
    TRUE(memcmp(back, host, sizeof host) == 0);
    dptr32 base = 0;
    unsigned int size = 0;
    CHECK(old_cuMemGetAddressRange(&base, &size, b + 4 * N + 50));
    TRUE(base == b && size == 4 * N + 100);
    CHECK(old_cuMemGetAddressRange(NULL, &size, a + 8));
    TRUE(size == 4 * N);
    EXPECT(old_cuMemGetAddressRange(&base, &size, 0x1000), CUDA_ERROR_NOT_FOUND);
    EXPECT(old_cuMemAlloc(NULL, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(old_cuMemAlloc(&base, 0), CUDA_ERROR_INVALID_VALUE);

    /* Memsets, 1D and 2D. */
    LEGACY_FN(CUresult(*)(dptr32, unsigned char, unsigned int), cuMemsetD8);
    LEGACY_FN(CUresult(*)(dptr32, unsigned short, unsigned int), cuMemsetD16);
    LEGACY_FN(CUresult(*)(dptr32, unsigned int, unsigned int), cuMemsetD32);
    LEGACY_FN(CUresult(*)(dptr32, unsigned int, unsigned char, unsigned int, unsigned int), cuMemsetD2D8);
    LEGACY_FN(CUresult(*)(dptr32, unsigned int, unsigned short, unsigned int, unsigned int), cuMemsetD2D16);
    LEGACY_FN(CUresult(*)(dptr32, unsigned int, unsigned int, unsigned int, unsigned int), cuMemsetD2D32);
    CHECK(old_cuMemsetD32(a, 0xdeadbeef, N));
    CHECK(old_cuMemsetD16(a + 8, 0x1234, 3));
    CHECK(old_cuMemsetD8(a + 16, 0x77, 5));
    CHECK(old_cuMemcpyDtoH(back, a, 4 * N));
    TRUE(back[0] == 0xdeadbeef && back[1] == 0xdeadbeef && back[2] == 0x12341234 && back[3] == 0xdead1234);
    TRUE(back[4] == 0x77777777 && back[5] == 0xdeadbe77 && back[6] == 0xdeadbeef);

    /* Pitched allocations: rows a multiple of 512 apart; the element size is 4, 8 or 16. */
    LEGACY_FN(CUresult(*)(dptr32 *, unsigned int *, unsigned int, unsigned int, unsigned int), cuMemAllocPitch);
    dptr32 pp = 0;
    unsigned int pitch32 = 0;
    enum { W = 100, H = 37 };
    CHECK(old_cuMemAllocPitch(&pp, &pitch32, W, H, 4));
    TRUE(pp != 0 && pitch32 == 512);
    CUdeviceptr pp64;
    size_t pitch64 = 0;
    CHECK(cuMemAllocPitch_v2(&pp64, &pitch64, 1000, 5, 16));
    TRUE(pitch64 == 1024 && pp64 > 0xFFFFFFFFull);
    EXPECT(cuMemAllocPitch_v2(&pp64, &pitch64, 64, 4, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch_v2(&pp64, &pitch64, 0, 4, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch_v2(&pp64, NULL, 64, 4, 4), CUDA_ERROR_INVALID_VALUE);
    /* A 2D memset writes its rectangle and nothing between the rows. */
    static unsigned char grid[H][512], want[H][512];
    CHECK(old_cuMemsetD2D8(pp, 512, 0xab, 512, H));
    CHECK(old_cuMemsetD2D32(pp + 8, 512, 0x01020304, 10, H - 2));
    CHECK(old_cuMemsetD2D16(pp + 2 * 512 + 100, 512, 0xbeef, 3, 4));
    memset(want, 0xab, sizeof want);
    for (int y = 0; y < H - 2; y++)
        for (int x = 0; x < 10; x++) memcpy(&want[y][8 + 4 * x], &(unsigned int){0x01020304}, 4);
    for (int y = 2; y < 6; y++)
        for (int x = 0; x < 3; x++) memcpy(&want[y][100 + 2 * x], &(unsigned short){0xbeef}, 2);
    /* Read back through the 32-bit cuMemcpy2D. */
    LEGACY_FN(CUresult(*)(const memcpy2d32 *), cuMemcpy2D);
    LEGACY_FN(CUresult(*)(const memcpy2d32 *), cuMemcpy2DUnaligned);
    LEGACY_FN(CUresult(*)(const memcpy2d32 *, CUstream), cuMemcpy2DAsync);
    memcpy2d32 c2 = {0};
    c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c2.srcDevice = pp;
    c2.srcPitch = pitch32;
    c2.dstMemoryType = CU_MEMORYTYPE_HOST;
    c2.dstHost = grid;
    c2.dstPitch = 512;
    c2.WidthInBytes = 512;
    c2.Height = H;
    CHECK(old_cuMemcpy2D(&c2));
    TRUE(memcmp(grid, want, sizeof grid) == 0);
    /* A window of it, at an offset, back into the allocation and out again. */
    memcpy2d32 w = {0};
    w.srcMemoryType = CU_MEMORYTYPE_HOST;
    w.srcHost = want;
    w.srcXInBytes = 3;
    w.srcY = 1;
    w.srcPitch = 512;
    w.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    w.dstDevice = pp;
    w.dstXInBytes = 200;
    w.dstY = 20;
    w.dstPitch = pitch32;
    w.WidthInBytes = 33;
    w.Height = 9;
    CHECK(old_cuMemcpy2DUnaligned(&w));
    for (int y = 0; y < 9; y++) memcpy(&want[20 + y][200], &want[1 + y][3], 33);
    memset(grid, 0, sizeof grid);
    CHECK(old_cuMemcpy2DAsync(&c2, s));
    CHECK(cuStreamSynchronize(s));
    TRUE(memcmp(grid, want, sizeof grid) == 0);
    EXPECT(cuMemsetD2D32_v2((CUdeviceptr)pp + 4, 510, 1, 4, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD2D32_v2((CUdeviceptr)pp + 2, 512, 1, 4, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD2D8_v2((CUdeviceptr)pp, 100, 1, 101, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD2D8_v2((CUdeviceptr)pp, 512, 1, 512, H + 1), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemsetD2D16Async((CUdeviceptr)pp, 512, 0, 256, H, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(old_cuMemcpy2D(&c2));
    ok = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 512; x++) ok &= grid[y][x] == 0;
    TRUE(ok);

    /* Pinned host memory through the 32-bit ABI: its device pointer fits; one of the
     * 64-bit entry points' (above 4 GiB) cannot be returned. */
    LEGACY_FN(CUresult(*)(void **, unsigned int), cuMemAllocHost);
    LEGACY_FN(CUresult(*)(dptr32 *, void *, unsigned int), cuMemHostGetDevicePointer);
    unsigned int *pinned = NULL, *pinned64 = NULL;
    dptr32 dpinned = 0;
    CHECK(old_cuMemAllocHost((void **)&pinned, 4 * N));
    CHECK(old_cuMemHostGetDevicePointer(&dpinned, pinned + 10, 0));
    TRUE(dpinned != 0);
    CUdeviceptr dpinned64 = 0;
    CHECK(cuMemHostGetDevicePointer_v2(&dpinned64, pinned, 0));
    TRUE(dpinned64 + 40 == dpinned);
    wide = dpinned64;
    CHECK(cuLaunchKernel(fill, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    TRUE(pinned[0] == 7 && pinned[N - 1] == N + 6);
    CHECK(cuMemAllocHost_v2((void **)&pinned64, 64));
    EXPECT(old_cuMemHostGetDevicePointer(&dpinned, pinned64, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFreeHost(pinned64));
    CHECK(cuMemFreeHost(pinned));

    /* A module global's size is answered; its address (above 4 GiB) is not. */
    LEGACY_FN(CUresult(*)(dptr32 *, unsigned int *, CUmodule, const char *), cuModuleGetGlobal);
    unsigned int gbytes = 0;
    dptr32 gptr = 0;
    CHECK(old_cuModuleGetGlobal(NULL, &gbytes, mod, "counter"));
    TRUE(gbytes == 20);
    EXPECT(old_cuModuleGetGlobal(&gptr, &gbytes, mod, "counter"), CUDA_ERROR_INVALID_VALUE);
    EXPECT(old_cuModuleGetGlobal(NULL, &gbytes, mod, "nothing"), CUDA_ERROR_NOT_FOUND);

    /* Arrays with the 32-bit descriptors. */
    LEGACY_FN(CUresult(*)(CUarray *, const array32 *), cuArrayCreate);
    LEGACY_FN(CUresult(*)(array32 *, CUarray), cuArrayGetDescriptor);
    LEGACY_FN(CUresult(*)(CUarray *, const array3d32 *), cuArray3DCreate);
    LEGACY_FN(CUresult(*)(array3d32 *, CUarray), cuArray3DGetDescriptor);
    LEGACY_FN(CUresult(*)(CUarray, unsigned int, const void *, unsigned int), cuMemcpyHtoA);
    LEGACY_FN(CUresult(*)(void *, CUarray, unsigned int, unsigned int), cuMemcpyAtoH);
    LEGACY_FN(CUresult(*)(CUarray, unsigned int, dptr32, unsigned int), cuMemcpyDtoA);
    LEGACY_FN(CUresult(*)(dptr32, CUarray, unsigned int, unsigned int), cuMemcpyAtoD);
    LEGACY_FN(CUresult(*)(CUarray, unsigned int, CUarray, unsigned int, unsigned int), cuMemcpyAtoA);
    LEGACY_FN(CUresult(*)(CUarray, unsigned int, const void *, unsigned int, CUstream), cuMemcpyHtoAAsync);
    LEGACY_FN(CUresult(*)(void *, CUarray, unsigned int, unsigned int, CUstream), cuMemcpyAtoHAsync);
    LEGACY_FN(CUresult(*)(const memcpy3d32 *), cuMemcpy3D);
    LEGACY_FN(CUresult(*)(const memcpy3d32 *, CUstream), cuMemcpy3DAsync);
    array32 d1 = {300, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1}, got1;
    CUarray arr, arr2, arr3;
    CHECK(old_cuArrayCreate(&arr, &d1));
    CHECK(old_cuArrayGetDescriptor(&got1, arr));
    TRUE(got1.Width == 300 && got1.Height == 0 && got1.Format == CU_AD_FORMAT_UNSIGNED_INT32 &&
         got1.NumChannels == 1);
    CHECK(old_cuArrayCreate(&arr2, &d1));
    for (int i = 0; i < 300; i++) host[i] = 1000u + (unsigned)i;
    CHECK(old_cuMemcpyHtoA(arr, 40, host, 800));
    CHECK(old_cuMemcpyAtoA(arr2, 0, arr, 40, 800));
    CHECK(old_cuMemcpyAtoD(b, arr2, 4, 400));
    memset(back, 0, sizeof back);
    CHECK(old_cuMemcpyDtoH(back, b, 400));
    TRUE(memcmp(back, host + 1, 400) == 0);
    CHECK(old_cuMemcpyDtoA(arr, 0, b, 400));
    memset(back, 0, sizeof back);
    CHECK(old_cuMemcpyAtoH(back, arr, 0, 400));
    TRUE(memcmp(back, host + 1, 400) == 0);
    CHECK(old_cuMemcpyHtoAAsync(arr, 1196, host, 4, s));
    CHECK(old_cuMemcpyAtoHAsync(back, arr, 1196, 4, s));
    CHECK(cuStreamSynchronize(s));
    TRUE(back[0] == 1000);
    EXPECT(old_cuMemcpyHtoA(arr, 1000, host, 201), CUDA_ERROR_INVALID_VALUE);
    EXPECT(old_cuArrayCreate(&arr3, NULL), CUDA_ERROR_INVALID_VALUE);
    /* A 3D array filled by the 32-bit cuMemcpy3D from host memory, read back async. */
    array3d32 d3 = {8, 6, 4, CU_AD_FORMAT_UNSIGNED_INT8, 2, 0}, got3;
    CHECK(old_cuArray3DCreate(&arr3, &d3));
    CHECK(old_cuArray3DGetDescriptor(&got3, arr3));
    TRUE(got3.Width == 8 && got3.Height == 6 && got3.Depth == 4 && got3.NumChannels == 2 && got3.Flags == 0);
    unsigned char vol[4][6][16], vol2[4][6][16];
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 16; x++) vol[z][y][x] = (unsigned char)(z * 97 + y * 13 + x);
    memcpy3d32 c3 = {0};
    c3.srcMemoryType = CU_MEMORYTYPE_HOST;
    c3.srcHost = vol;
    c3.srcPitch = 16;
    c3.srcHeight = 6;
    c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c3.dstArray = arr3;
    c3.WidthInBytes = 16;
    c3.Height = 6;
    c3.Depth = 4;
    CHECK(old_cuMemcpy3D(&c3));
    memcpy3d32 r3 = {0};
    r3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    r3.srcArray = arr3;
    r3.dstMemoryType = CU_MEMORYTYPE_HOST;
    r3.dstHost = vol2;
    r3.dstPitch = 16;
    r3.dstHeight = 6;
    r3.WidthInBytes = 16;
    r3.Height = 6;
    r3.Depth = 4;
    memset(vol2, 0, sizeof vol2);
    CHECK(old_cuMemcpy3DAsync(&r3, s));
    CHECK(cuStreamSynchronize(s));
    TRUE(memcmp(vol, vol2, sizeof vol) == 0);
    r3.reserved0 = vol;
    EXPECT(old_cuMemcpy3D(&r3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(old_cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);

    /* Texture references bound to 32-bit pointers. */
    LEGACY_FN(CUresult(*)(unsigned int *, CUtexref, dptr32, unsigned int), cuTexRefSetAddress);
    LEGACY_FN(CUresult(*)(dptr32 *, CUtexref), cuTexRefGetAddress);
    LEGACY_FN(CUresult(*)(CUtexref, const array32 *, dptr32, unsigned int), cuTexRefSetAddress2D);
    CUtexref t;
    CHECK(cuModuleGetTexRef(&t, mod, "tref"));
    CHECK(cuTexRefSetFormat(t, CU_AD_FORMAT_UNSIGNED_INT32, 1));
    unsigned int off = 99;
    dptr32 at = 0;
    CHECK(old_cuTexRefSetAddress(&off, t, b + 512, 400));
    TRUE(off == 0);
    CHECK(old_cuTexRefGetAddress(&at, t));
    TRUE(at == b + 512);
    array32 d2 = {64, 16, CU_AD_FORMAT_UNSIGNED_INT8, 1};
    CHECK(old_cuTexRefSetAddress2D(t, &d2, pp, pitch32));
    CHECK(old_cuTexRefGetAddress(&at, t));
    TRUE(at == pp);
    CHECK(cuTexRefSetAddress_v2(NULL, t, pp64, 64));
    EXPECT(old_cuTexRefGetAddress(&at, t), CUDA_ERROR_INVALID_VALUE);

    /* What rgdev does not implement says so under the legacy names too. */
    LEGACY_FN(CUresult(*)(CUstream), cuStreamBeginCapture);
    EXPECT(old_cuStreamBeginCapture(s), CUDA_ERROR_NOT_SUPPORTED);

    CHECK(old_cuMemFree(a));
    CHECK(old_cuMemFree(b));
    CHECK(old_cuMemFree(pp));
    EXPECT(old_cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuArrayDestroy(arr));
    CHECK(cuArrayDestroy(arr2));
    CHECK(cuArrayDestroy(arr3));
    CHECK(cuStreamDestroy(s));
    return report();
}
