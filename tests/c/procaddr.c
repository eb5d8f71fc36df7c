/*
 * Entry points by name, as loaders find them: cuGetProcAddress by base name and CUDA
 * version (before cuInit, as libcudart asks), compared with dlsym of the symbol the
 * header maps the name to; its errors; and the legacy unversioned symbols a real
 * libcuda.so.1 exports beside the _v2 ones, called through dlsym.
 * Run by tests/tests/c_abi.rs:  procaddr
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

#include "check.h"

typedef CUresult (*init_fn)(unsigned int);
typedef CUresult (*ctx_create_fn)(CUcontext *, unsigned int, CUdevice);
typedef CUresult (*ctx_fn)(CUcontext);
typedef CUresult (*ctx_pop_fn)(CUcontext *);
typedef CUresult (*stream_destroy_fn)(CUstream);
typedef CUresult (*event_destroy_fn)(CUevent);

int main(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    void *p = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    /* Before cuInit, as libcudart does. */
    CHECK(cuGetProcAddress("cuInit", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    TRUE(p == dlsym(lib, "cuInit") && st == CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK(((init_fn)p)(0));

    static const struct {
        const char *base;
        int version;
        const char *symbol;
    } cases[] = {
        {"cuMemAlloc", 12000, "cuMemAlloc_v2"},
        {"cuCtxCreate", 3000, "cuCtxCreate"},
        {"cuCtxCreate", 3020, "cuCtxCreate_v2"},
        {"cuCtxCreate", 11040, "cuCtxCreate_v3"},
        {"cuCtxCreate", 12090, "cuCtxCreate_v4"},
        {"cuCtxDestroy", 3020, "cuCtxDestroy"},
        {"cuCtxDestroy", 12000, "cuCtxDestroy_v2"},
        {"cuEventElapsedTime", 12000, "cuEventElapsedTime"},
        {"cuEventElapsedTime", 12080, "cuEventElapsedTime_v2"},
        {"cuLaunchKernel", 12090, "cuLaunchKernel"},
        {"cuGetProcAddress", 11030, "cuGetProcAddress"},
        {"cuGetProcAddress", 12000, "cuGetProcAddress_v2"},
        {"cuMemsetD32Async", 12000, "cuMemsetD32Async"},
        /* Entry points rgdev does not implement resolve as well (they say NOT_SUPPORTED). */
        {"cuArrayCreate", 12000, "cuArrayCreate_v2"},
        {"cuStreamGetCaptureInfo", 12030, "cuStreamGetCaptureInfo_v3"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        p = NULL;
        st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        CHECK(cuGetProcAddress(cases[k].base, &p, cases[k].version, CU_GET_PROC_ADDRESS_DEFAULT, &st));
        void *want = dlsym(lib, cases[k].symbol);
        if (!want || p != want || st != CU_GET_PROC_ADDRESS_SUCCESS) {
            fprintf(stderr, "%s @%d: got %p, want %s = %p\n", cases[k].base, cases[k].version, p,
                    cases[k].symbol, want);
            failures++;
        }
    }
    /* Per-thread default stream requests get the legacy-stream entry point. */
    CHECK(cuGetProcAddress("cuMemcpyHtoDAsync", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    TRUE(p == dlsym(lib, "cuMemcpyHtoDAsync_v2"));
    /* What is not a base name of an entry point is not found. */
    const char *missing[] = {"cuNoSuchFunction", "cuMemAlloc_v2", "cuMemcpyAsync_ptsz", ""};
    for (size_t k = 0; k < sizeof missing / sizeof missing[0]; k++) {
        p = (void *)1;
        st = CU_GET_PROC_ADDRESS_SUCCESS;
        EXPECT(cuGetProcAddress(missing[k], &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_ERROR_NOT_FOUND);
        TRUE(p == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    }
    EXPECT(cuGetProcAddress("cuInit", &p, 12000, 4, &st), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress(NULL, &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress("cuInit", NULL, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_ERROR_INVALID_VALUE);
    /* The status is optional. */
    CHECK(cuGetProcAddress("cuDeviceGet", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL));

    /* The legacy unversioned entry points, with their old ABI. */
    ctx_create_fn create = (ctx_create_fn)dlsym(lib, "cuCtxCreate");
    ctx_fn destroy = (ctx_fn)dlsym(lib, "cuCtxDestroy"), push = (ctx_fn)dlsym(lib, "cuCtxPushCurrent");
    ctx_pop_fn pop = (ctx_pop_fn)dlsym(lib, "cuCtxPopCurrent");
    stream_destroy_fn sdestroy = (stream_destroy_fn)dlsym(lib, "cuStreamDestroy");
    event_destroy_fn edestroy = (event_destroy_fn)dlsym(lib, "cuEventDestroy");
    if (!create || !destroy || !push || !pop || !sdestroy || !edestroy) {
        fprintf(stderr, "a legacy entry point is missing\n");
        return 1;
    }
    CUdevice dev;
    CUcontext ctx, popped = NULL, cur = NULL;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(create(&ctx, 0, dev));
    CHECK(pop(&popped));
    TRUE(popped == ctx);
    CHECK(push(ctx));
    CHECK(cuCtxGetCurrent(&cur));
    TRUE(cur == ctx);
    CUstream s;
    CUevent e;
    CHECK(cuStreamCreate(&s, 0));
    CHECK(cuEventCreate(&e, 0));
    CHECK(sdestroy(s));
    CHECK(edestroy(e));
    EXPECT(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    CHECK(destroy(ctx));
    EXPECT(destroy(ctx), CUDA_ERROR_INVALID_CONTEXT);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("procaddr: all checks passed\n");
    return 0;
}
