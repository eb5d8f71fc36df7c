/*
 * Driver API conformance test for rgdev's libcuda.so.1, in C, against the project's own
 * cuda.h. Every result is checked against a CPU reference. Run by tests/tests/c_abi.rs:
 *     driver_api KERNELS_DIR VECADD_CONTAINER
 * where VECADD_CONTAINER is kernels/vecadd.ptx compiled by `rgdev ptxas -o`.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"


static const char *kernels;

static void device_query(void) {
    int count = 0, v = 0, major = 0, minor = 0, version = 0;
    CUdevice dev;
    char name[64];
    size_t total = 0;
    CHECK(cuDriverGetVersion(&version));
    TRUE(version >= 11000);
    CHECK(cuDeviceGetCount(&count));
    TRUE(count == 1);
    CHECK(cuDeviceGet(&dev, 0));
    EXPECT(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    TRUE(strlen(name) > 0 && strlen(name) < sizeof name);
    char tiny[4];
    CHECK(cuDeviceGetName(tiny, sizeof tiny, dev));
    TRUE(strlen(tiny) == 3);
    CHECK(cuDeviceTotalMem(&total, dev));
    TRUE(total >= (1u << 30));
    CHECK(cuDeviceComputeCapability(&major, &minor, dev));
    TRUE(major == 7 && minor == 0);

    const char *uvm = getenv("RGDEV_UVM");
    const int host_uvm = uvm && strcmp(uvm, "host") == 0;
    struct {
        CUdevice_attribute a;
        int lo, hi;
    } expect[] = {
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024, 1024},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024, 1024},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024, 1024},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64, 64},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 65535, 0x7fffffff},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535, 65535},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535, 65535},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024, 48 * 1024},
        {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 64 * 1024, 64 * 1024},
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32, 32},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536, 65536},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 100000, 3000000},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1, 1024},
        {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1, 1},
        {CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 0, 1},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 100000, 10000000},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 32, 8192},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 1, 1 << 30},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 1024, 4096},
        {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1, 1},
        {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1, 1},
        // Managed memory is paged on demand (0) unless RGDEV_UVM=host (1).
        {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, host_uvm, host_uvm},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 7, 7},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0, 0},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 48 * 1024, 256 * 1024},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536, 65536},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 1, 64},
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        v = -1;
        CHECK(cuDeviceGetAttribute(&v, expect[i].a, dev));
        if (v < expect[i].lo || v > expect[i].hi) {
            fprintf(stderr, "attribute %d = %d, expected %d..%d\n", expect[i].a, v, expect[i].lo, expect[i].hi);
            failures++;
        }
    }
    EXPECT(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 7), CUDA_ERROR_INVALID_DEVICE);
}

static void error_strings(void) {
    const CUresult codes[] = {CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_OUT_OF_MEMORY,
                              CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_PTX,
                              CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_NOT_FOUND,
                              CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_NOT_SUPPORTED,
                              CUDA_ERROR_UNKNOWN};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = NULL, *n = NULL;
        CHECK(cuGetErrorString(codes[i], &s));
        CHECK(cuGetErrorName(codes[i], &n));
        TRUE(s && strlen(s) > 0 && n && strncmp(n, "CUDA_", 5) == 0);
    }
    const char *n = NULL;
    CHECK(cuGetErrorName(CUDA_ERROR_INVALID_PTX, &n));
    TRUE(strcmp(n, "CUDA_ERROR_INVALID_PTX") == 0);
    const char *s = "x";
    EXPECT(cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    TRUE(s == NULL);
}

static void vecadd(CUfunction f, int n, int use_extra) {
    size_t bytes = n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    for (int i = 0; i < n; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(n - i);
    }
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, bytes));
    CHECK(cuMemAlloc(&db, bytes));
    CHECK(cuMemAlloc(&dc, bytes));
    CHECK(cuMemcpyHtoD(da, a, bytes));
    CHECK(cuMemcpyHtoD(db, b, bytes));
    CHECK(cuMemsetD32(dc, 0xFFFFFFFFu, n));
    unsigned block = 128, grid = (n + block - 1) / block;
    if (use_extra) {
        struct {
            CUdeviceptr a, b, c;
            int n;
            int pad;
        } args = {da, db, dc, n, 0};
        size_t size = 28; /* three pointers and an int, as the PTX signature lays them out */
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         CU_LAUNCH_PARAM_END};
        CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, NULL, extra));
    } else if (use_extra == 2) {
        /* cuLaunchKernelEx: a preferred carveout, a priority and a one-block cluster are
         * accepted; a cluster of two blocks, a carveout past 100% and an unknown attribute
         * are refused. */
        void *params[] = {&da, &db, &dc, &n};
        CUlaunchAttribute at[3];
        memset(at, 0, sizeof at);
        at[0].id = CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
        at[0].value.sharedMemCarveout = 50;
        at[1].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        at[2].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        at[2].value.clusterDim.x = at[2].value.clusterDim.y = at[2].value.clusterDim.z = 1;
        CUlaunchConfig cfg = {grid, 1, 1, block, 1, 1, 0, NULL, at, 3};
        CHECK(cuLaunchKernelEx(&cfg, f, params, NULL));
        at[2].value.clusterDim.x = 2;
        EXPECT(cuLaunchKernelEx(&cfg, f, params, NULL), CUDA_ERROR_NOT_SUPPORTED);
        at[2].value.clusterDim.x = 1;
        at[0].value.sharedMemCarveout = 101;
        EXPECT(cuLaunchKernelEx(&cfg, f, params, NULL), CUDA_ERROR_INVALID_VALUE);
        at[0].id = (CUlaunchAttributeID)99;
        EXPECT(cuLaunchKernelEx(&cfg, f, params, NULL), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuLaunchKernelEx(NULL, f, params, NULL), CUDA_ERROR_INVALID_VALUE);
    } else {
        void *params[] = {&da, &db, &dc, &n};
        CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL));
    }
    /* No cuCtxSynchronize: the copy on the default stream waits for the kernel. */
    CHECK(cuMemcpyDtoH(c, dc, bytes));
    for (int i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "vecadd[%d] = %f, expected %f\n", i, c[i], a[i] + b[i]);
            failures++;
            break;
        }
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    free(a);
    free(b);
    free(c);
}

static void legacy_launch(CUfunction f) {
    int n = 1000;
    size_t bytes = n * sizeof(float);
    float a[1000], c[1000];
    for (int i = 0; i < n; i++) a[i] = (float)(i * 3);
    CUdeviceptr da, dc;
    CHECK(cuMemAlloc(&da, bytes));
    CHECK(cuMemAlloc(&dc, bytes));
    CHECK(cuMemcpyHtoD(da, a, bytes));
    /* c = a + a, every 64-bit pointer passed as two 32-bit halves */
    CUdeviceptr ptrs[3] = {da, da, dc};
    for (int p = 0; p < 3; p++) {
        CHECK(cuParamSeti(f, p * 8, (unsigned)(ptrs[p] & 0xffffffffu)));
        CHECK(cuParamSeti(f, p * 8 + 4, (unsigned)(ptrs[p] >> 32)));
    }
    CHECK(cuParamSeti(f, 24, (unsigned)n));
    CHECK(cuParamSetSize(f, 28));
    CHECK(cuFuncSetBlockShape(f, 256, 1, 1));
    CHECK(cuLaunchGrid(f, (n + 255) / 256, 1));
    CHECK(cuMemcpyDtoH(c, dc, bytes));
    for (int i = 0; i < n; i++)
        if (c[i] != 2 * a[i]) {
            fprintf(stderr, "legacy[%d] = %f\n", i, c[i]);
            failures++;
            break;
        }
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(dc));
}

static void matmul(CUmodule m) {
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, m, "matmul32"));
    int min_grid = 0, best = 0, regs = 0, maxt = 0, at_best = 0, at_1024 = 0;
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &best, f, NULL, 0, 0));
    CHECK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    CHECK(cuFuncGetAttribute(&maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&at_best, f, best, 0));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&at_1024, f, 1024, 0));
    TRUE(regs > 0 && maxt == 1024);
    TRUE(best % 32 == 0 && best <= 1024 && at_best >= 1 && min_grid >= at_best);
    /* the suggested size keeps at least as many threads resident as any other, 1024 included */
    TRUE(at_best * best >= at_1024 * 1024);
    /* the tile kernel needs 32x32 threads: the occupancy API must say 1024 fits, and with
       ptxas-like registers (ptxas: 20) two such blocks fill a gv100 SM, so 1024 is the
       suggestion, as matrixMulDrv expects */
    TRUE(at_1024 >= 1);
    TRUE(best == 1024 && at_1024 == 2);
    int block = 1024;
    /* registers bound it: a limit below the suggestion is honoured */
    int limited = 0;
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &limited, f, NULL, 0, 100));
    TRUE(limited > 0 && limited <= 100 && limited % 32 == 0);
    int n = 64;
    size_t bytes = n * n * sizeof(float);
    float *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);
    for (int i = 0; i < n * n; i++) {
        A[i] = (float)(i % 7) - 3.0f;
        B[i] = (float)(i % 5) * 0.25f;
    }
    CUdeviceptr dA, dB, dC;
    CHECK(cuMemAlloc(&dA, bytes));
    CHECK(cuMemAlloc(&dB, bytes));
    CHECK(cuMemAlloc(&dC, bytes));
    CHECK(cuMemcpyHtoD(dA, A, bytes));
    CHECK(cuMemcpyHtoD(dB, B, bytes));
    void *params[] = {&dA, &dB, &dC, &n};
    CHECK(cuLaunchKernel(f, n / 32, n / 32, 1, 32, block / 32, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(C, dC, bytes));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0; /* small integers and quarters: exact in any summation order */
            for (int k = 0; k < n; k++) s += A[i * n + k] * B[k * n + j];
            if (C[i * n + j] != s) {
                fprintf(stderr, "matmul[%d][%d] = %f, expected %f\n", i, j, C[i * n + j], s);
                failures++;
                i = j = n;
            }
        }
    CHECK(cuMemFree(dA));
    CHECK(cuMemFree(dB));
    CHECK(cuMemFree(dC));
    free(A);
    free(B);
    free(C);
}

static void copies_and_memsets(void) {
    enum { N = 4096 };
    unsigned char h[N], back[N];
    for (int i = 0; i < N; i++) h[i] = (unsigned char)(i * 7 + 1);
    CUdeviceptr d, e;
    CHECK(cuMemAlloc(&d, N));
    CHECK(cuMemAlloc(&e, N));
    CHECK(cuMemcpyHtoD(d, h, N));
    CHECK(cuMemcpyDtoD(e, d, N));
    CHECK(cuMemcpyDtoH(back, e, N));
    TRUE(memcmp(h, back, N) == 0);
    /* odd offsets and lengths */
    CHECK(cuMemcpyDtoH(back, d + 3, 1001));
    TRUE(memcmp(h + 3, back, 1001) == 0);
    CHECK(cuMemsetD8(e + 1, 0xAB, 999));
    CHECK(cuMemcpyDtoH(back, e, N));
    TRUE(back[0] == h[0] && back[1] == 0xAB && back[999] == 0xAB && back[1000] == h[1000]);
    CHECK(cuMemsetD16(e, 0x1234, 8));
    CHECK(cuMemsetD32(e + 16, 0xDEADBEEFu, 4));
    unsigned short s[8];
    unsigned int w[4];
    CHECK(cuMemcpyDtoH(s, e, sizeof s));
    CHECK(cuMemcpyDtoH(w, e + 16, sizeof w));
    for (int i = 0; i < 8; i++) TRUE(s[i] == 0x1234);
    for (int i = 0; i < 4; i++) TRUE(w[i] == 0xDEADBEEFu);
    size_t free_b = 0, total = 0;
    CHECK(cuMemGetInfo(&free_b, &total));
    TRUE(free_b > 0 && free_b < total);
    CHECK(cuMemFree(d));
    CHECK(cuMemFree(e));
}

static void pinned(CUfunction f) {
    int n = 3000;
    size_t bytes = n * sizeof(float);
    float *a, *b, *c;
    CHECK(cuMemHostAlloc((void **)&a, bytes, CU_MEMHOSTALLOC_DEVICEMAP));
    CHECK(cuMemHostAlloc((void **)&b, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cuMemAllocHost((void **)&c, bytes));
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 1.5f;
        c[i] = -1.0f;
    }
    CUdeviceptr da, db, dc, dmid;
    CHECK(cuMemHostGetDevicePointer(&da, a, 0));
    CHECK(cuMemHostGetDevicePointer(&db, b, 0));
    CHECK(cuMemHostGetDevicePointer(&dc, c, 0));
    CHECK(cuMemHostGetDevicePointer(&dmid, c + 10, 0));
    TRUE(dmid == dc + 10 * sizeof(float));
    void *params[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    for (int i = 0; i < n; i++)
        if (c[i] != (float)i + 1.5f) {
            fprintf(stderr, "pinned[%d] = %f\n", i, c[i]);
            failures++;
            break;
        }
    /* a copy engine reaches pinned memory too */
    float back[16];
    CHECK(cuMemcpyDtoH(back, dc, sizeof back));
    TRUE(back[15] == 16.5f);
    /* Unified addressing: the host pointer is the device pointer, and cuMemcpy infers
       each direction from the pointers (pageable, pinned, device memory). */
    TRUE(da == (CUdeviceptr)(uintptr_t)a && dc == (CUdeviceptr)(uintptr_t)c);
    CUdeviceptr dd;
    CHECK(cuMemAlloc(&dd, bytes));
    CHECK(cuMemcpy(dd, (CUdeviceptr)(uintptr_t)c, bytes));
    float *pageable = (float *)calloc(n, sizeof(float));
    CHECK(cuMemcpy((CUdeviceptr)(uintptr_t)pageable, dd, bytes));
    TRUE(pageable[100] == 101.5f && pageable[n - 1] == (float)(n - 1) + 1.5f);
    pageable[7] = -7.0f;
    CHECK(cuMemcpyAsync(dd, (CUdeviceptr)(uintptr_t)pageable, bytes, NULL));
    CHECK(cuMemcpy((CUdeviceptr)(uintptr_t)a, dd, bytes));
    TRUE(a[7] == -7.0f && a[8] == 9.5f);
    CHECK(cuMemcpy((CUdeviceptr)(uintptr_t)b, (CUdeviceptr)(uintptr_t)pageable, 8 * sizeof(float)));
    TRUE(b[7] == -7.0f);
    free(pageable);
    CHECK(cuMemFree(dd));
    int x;
    EXPECT(cuMemHostGetDevicePointer(&da, &x, 0), CUDA_ERROR_INVALID_VALUE);

    /* Managed memory: one pointer, written by the host, copied by the device. */
    CUdeviceptr m;
    CHECK(cuMemAllocManaged(&m, bytes, CU_MEM_ATTACH_GLOBAL));
    float *mh = (float *)(uintptr_t)m;
    for (int i = 0; i < n; i++)
        mh[i] = (float)i;
    CHECK(cuMemcpy((CUdeviceptr)(uintptr_t)a, m, bytes));
    TRUE(a[n - 1] == (float)(n - 1));
    /* A 2D copy naming it device memory: paged managed memory is copied by the host. */
    float rows[4][8];
    CUDA_MEMCPY2D c2 = {0};
    c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c2.srcDevice = m;
    c2.srcPitch = 16 * sizeof(float);
    c2.dstMemoryType = CU_MEMORYTYPE_HOST;
    c2.dstHost = rows;
    c2.dstPitch = sizeof rows[0];
    c2.WidthInBytes = sizeof rows[0];
    c2.Height = 4;
    CHECK(cuMemcpy2D(&c2));
    TRUE(rows[3][7] == 3 * 16 + 7 && rows[1][0] == 16);
    unsigned managed = 0, mtype = 0;
    CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 4));
    CHECK(cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m + 4));
    TRUE(managed == 1 && mtype == CU_MEMORYTYPE_DEVICE);
    CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)(uintptr_t)a));
    TRUE(managed == 0);
    CHECK(cuMemAdvise(m, bytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
    CHECK(cuMemPrefetchAsync(m, 4096, 0, NULL));
    int where = 5;
    CHECK(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, bytes));
    TRUE(where == CU_DEVICE_CPU);
    CHECK(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 4096));
    TRUE(where == 0);
    EXPECT(cuMemAllocManaged(&m, bytes, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFreeHost(mh), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree((CUdeviceptr)(uintptr_t)mh));
    EXPECT(cuMemAdvise((CUdeviceptr)(uintptr_t)mh, 4, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE);
    /* rgdev's private table answers only its own id. */
    const void *table = NULL;
    CUuuid other = {{0}};
    EXPECT(cuGetExportTable(&table, &other), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFreeHost(a));
    CHECK(cuMemFreeHost(b));
    CHECK(cuMemFreeHost(c));
    EXPECT(cuMemFreeHost(c), CUDA_ERROR_INVALID_VALUE);
}

struct job {
    const char *ptx;
    int seed;
    int ok;
    CUcontext migrate;
};

/* Each thread: its own context, its own module, a vector add of its own data. */
static void *own_context(void *p) {
    struct job *j = p;
    CUcontext ctx, cur;
    CUmodule m;
    CUfunction f;
    CHECK(cuCtxGetCurrent(&cur));
    if (cur != NULL) return NULL; /* a new thread starts with an empty stack */
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CHECK(cuModuleLoadData(&m, j->ptx));
    CHECK(cuModuleGetFunction(&f, m, "vecadd"));
    int n = 2000 + j->seed;
    float a[2100], b[2100], c[2100];
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i + j->seed);
        b[i] = (float)j->seed;
    }
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    void *params[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    j->ok = 1;
    for (int i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) j->ok = 0;
    CHECK(cuCtxDestroy(ctx));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    return NULL;
}

/* Uses a context another thread created and popped, then pops it for the owner. */
static void *migrated(void *p) {
    struct job *j = p;
    CUcontext popped = NULL;
    CUdeviceptr d;
    EXPECT(cuMemAlloc(&d, 64), CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxPushCurrent(j->migrate));
    CHECK(cuMemAlloc(&d, 64));
    CHECK(cuMemsetD32(d, 0x600DF00Du, 16));
    unsigned v[16];
    CHECK(cuMemcpyDtoH(v, d, sizeof v));
    j->ok = v[0] == 0x600DF00Du && v[15] == 0x600DF00Du;
    CHECK(cuMemFree(d));
    CHECK(cuCtxPopCurrent(&popped));
    j->ok &= popped == j->migrate;
    return NULL;
}

static void threads(const char *ptx) {
    enum { T = 4 };
    pthread_t t[T];
    struct job jobs[T];
    for (int i = 0; i < T; i++) {
        jobs[i] = (struct job){ptx, i * 13, 0, NULL};
        pthread_create(&t[i], NULL, own_context, &jobs[i]);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(t[i], NULL);
        TRUE(jobs[i].ok);
    }
    CUcontext ctx, cur, popped;
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CHECK(cuCtxPopCurrent(&popped));
    TRUE(popped == ctx);
    struct job j = {ptx, 0, 0, ctx};
    pthread_t m;
    pthread_create(&m, NULL, migrated, &j);
    pthread_join(m, NULL);
    TRUE(j.ok);
    CHECK(cuCtxPushCurrent(ctx));
    CHECK(cuCtxGetCurrent(&cur));
    TRUE(cur == ctx);
    CHECK(cuCtxDestroy(ctx));
}

static void primary(void) {
    CUcontext p1, p2, cur;
    unsigned flags = 9;
    int active = 0;
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(!active && flags == 0);
    CHECK(cuDevicePrimaryCtxRetain(&p1, 0));
    CHECK(cuDevicePrimaryCtxRetain(&p2, 0));
    TRUE(p1 == p2);
    CHECK(cuCtxSetCurrent(p1));
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, 256));
    CHECK(cuCtxGetCurrent(&cur));
    TRUE(cur == p1);
    EXPECT(cuCtxDestroy(p1), CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuDevicePrimaryCtxRelease(0));
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(active);
    CHECK(cuDevicePrimaryCtxRelease(0));
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(!active);
    EXPECT(cuMemFree(d), CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxSetCurrent(NULL));
}

static void error_paths(const char *ptx) {
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    char log[512] = "", info[512] = "";
    /* no current context */
    EXPECT(cuMemAlloc(&d, 16), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuModuleLoadData(&m, ptx), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, 0, 0));
    /* NULL pointers */
    EXPECT(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(&m, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(NULL, ptx), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxCreate(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(0, NULL, 16), CUDA_ERROR_INVALID_VALUE);
    /* invalid handles */
    EXPECT(cuModuleGetFunction(&f, (CUmodule)(uintptr_t)0x12345, "vecadd"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchKernel((CUfunction)(uintptr_t)0x999, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuCtxPushCurrent((CUcontext)(uintptr_t)0x4242), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuModuleUnload(NULL), CUDA_ERROR_INVALID_HANDLE);
    /* bad PTX, with the JIT's message in the error log */
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log, info, (void *)(uintptr_t)sizeof info};
    EXPECT(cuModuleLoadDataEx(&m, ".version 7.0\n.target sm_70\n.entry k( { bogus; }", 4, opts, vals),
           CUDA_ERROR_INVALID_PTX);
    TRUE(strlen(log) > 0 && (uintptr_t)vals[1] == strlen(log));
    /* good PTX fills the info log */
    vals[1] = (void *)(uintptr_t)sizeof log;
    vals[3] = (void *)(uintptr_t)sizeof info;
    CHECK(cuModuleLoadDataEx(&m, ptx, 4, opts, vals));
    TRUE(strstr(info, "vecadd") != NULL);
    CHECK(cuModuleGetFunction(&f, m, "vecadd"));
    EXPECT(cuModuleGetFunction(&f, m, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleLoadData(&m, "not a module"), CUDA_ERROR_INVALID_IMAGE);
    EXPECT(cuModuleLoadData(&m, "\x7f" "ELF\x02\x01\x01"), CUDA_ERROR_NO_BINARY_FOR_GPU);
    /* missing file */
    EXPECT(cuModuleLoad(&m, "/nonexistent/kernel.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
    /* out-of-bounds copy, double free */
    unsigned char buf[64];
    CHECK(cuMemAlloc(&d, 32));
    EXPECT(cuMemcpyHtoD(d, buf, 64), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(buf, d + 16, 32), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(d));
    EXPECT(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
    /* launch errors */
    int n = 1;
    void *params[] = {&d, &d, &d, &n};
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuFuncGetAttribute(&n, (CUfunction_attribute)99, f), CUDA_ERROR_INVALID_VALUE);
    /* Memory the runtime holds for a module is not the program's to free or look up
       (7b5e8b4 freed a module's global and the next launch faulted). */
    {
        static const char *gptx = ".version 6.4\n.target sm_70\n.address_size 64\n"
                                  ".visible .global .align 4 .u32 g = 41;\n"
                                  ".visible .entry bump(.param .u64 out)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n"
                                  " ld.param.u64 %rd1, [out];\n ld.global.u32 %r1, [g];\n add.u32 %r2, %r1, 1;\n"
                                  " st.global.u32 [%rd1], %r2;\n ret;\n}\n";
        CUmodule gm;
        CUfunction bump;
        CUdeviceptr gp, out, base;
        size_t gsize, size;
        unsigned got = 0;
        CHECK(cuModuleLoadData(&gm, gptx));
        CHECK(cuModuleGetGlobal(&gp, &gsize, gm, "g"));
        TRUE(gsize == 4);
        EXPECT(cuMemFree(gp), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuMemGetAddressRange(&base, &size, gp), CUDA_ERROR_NOT_FOUND);
        CHECK(cuMemAlloc(&out, 100));
        CHECK(cuMemGetAddressRange(&base, &size, out + 99));
        TRUE(base == out && size == 100);
        EXPECT(cuMemGetAddressRange(&base, &size, out + 100), CUDA_ERROR_NOT_FOUND);
        CHECK(cuModuleGetFunction(&bump, gm, "bump"));
        void *bp[] = {&out};
        CHECK(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, NULL, bp, NULL));
        CHECK(cuMemcpyDtoH(&got, out, 4));
        TRUE(got == 42);
        CHECK(cuMemFree(out));
        CHECK(cuModuleUnload(gm));
    }
    /* A load whose JIT log cannot be written fails and keeps nothing (7b5e8b4 leaked the
       module, 12 KiB of VRAM a call). */
    {
        size_t free0, free1, total;
        CHECK(cuMemGetInfo(&free0, &total));
        void *huge[] = {log, (void *)(uintptr_t)SIZE_MAX, info, (void *)(uintptr_t)sizeof info};
        for (int i = 0; i < 100; i++)
            EXPECT(cuModuleLoadDataEx(&m, ptx, 4, opts, huge), CUDA_ERROR_INVALID_VALUE);
        CHECK(cuMemGetInfo(&free1, &total));
        TRUE(free1 == free0);
    }
    /* unsupported: IPC events */
    CUevent ev;
    EXPECT(cuEventCreate(&ev, CU_EVENT_INTERPROCESS), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(cuModuleUnload(m));
    EXPECT(cuModuleGetFunction(&f, m, "vecadd"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuCtxDestroy(ctx));
    EXPECT(cuCtxDestroy(ctx), CUDA_ERROR_INVALID_CONTEXT);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s KERNELS_DIR VECADD_CONTAINER\n", argv[0]);
        return 2;
    }
    kernels = argv[1];
    int n;
    EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuInit(0));
    CHECK(cuInit(0));
    device_query();
    error_strings();

    char *ptx = read_file(kernels, "vecadd.ptx");
    char path[4096];
    CUcontext ctx;
    CUmodule m, mm;
    CUfunction f;
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&f, m, "vecadd"));
    vecadd(f, 100000, 0);
    vecadd(f, 777, 1);
    vecadd(f, 4000, 2);
    legacy_launch(f);
    snprintf(path, sizeof path, "%s/matmul.ptx", kernels);
    CHECK(cuModuleLoad(&mm, path));
    matmul(mm);
    copies_and_memsets();
    pinned(f);
    CHECK(cuModuleUnload(m));
    CHECK(cuModuleUnload(mm));
    /* the rgdev container, from a file and from memory (sized by its header) */
    CUmodule mc;
    CUfunction fc;
    CHECK(cuModuleLoad(&mc, argv[2]));
    CHECK(cuModuleGetFunction(&fc, mc, "vecadd"));
    vecadd(fc, 5000, 0);
    CHECK(cuModuleUnload(mc));
    char *container = read_file(NULL, argv[2]);
    CHECK(cuModuleLoadData(&mc, container));
    CHECK(cuModuleGetFunction(&fc, mc, "vecadd"));
    vecadd(fc, 4321, 1);
    container[9] ^= 0xff; /* another format version: rejected cleanly */
    EXPECT(cuModuleLoadData(&mc, container), CUDA_ERROR_INVALID_IMAGE);
    free(container);
    /* Strings that start like a container, ending just before an unmapped page: the
       loader reads up to their NUL and no further (a read past it is SIGSEGV here). */
    long page = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED || mprotect(two + page, page, PROT_NONE) != 0) {
        fprintf(stderr, "guard page: mmap/mprotect failed\n");
        return 1;
    }
    const char *prefixes[] = {"RGDEVMOD", "RGDEVMOD0000", "RGDEVMOD00000005", "RGDEVMOD000000050000001", "RGDE"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]) + 1;
        memcpy(two + page - n, prefixes[i], n);
        EXPECT(cuModuleLoadData(&mc, two + page - n), CUDA_ERROR_INVALID_IMAGE);
    }
    munmap(two, 2 * page);
    CHECK(cuCtxDestroy(ctx));
    threads(ptx);
    primary();
    error_paths(ptx);
    free(ptx);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("driver_api: all checks passed\n");
    return 0;
}
