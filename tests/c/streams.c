/*
 * Streams and events through libcuda.so.1: asynchronous copies from pinned memory, kernels
 * on two streams, events with elapsed time, cuStreamWaitEvent, queries, priorities and the
 * error paths. Run by tests/tests/c_abi.rs:  streams KERNELS_DIR
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: streams KERNELS_DIR\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    char *ptx = read_file(argv[1], "vecadd.ptx");
    CUmodule mod;
    CUfunction vecadd;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&vecadd, mod, "vecadd"));

    int least = 1, greatest = 1;
    CHECK(cuCtxGetStreamPriorityRange(&least, &greatest));
    TRUE(least == 0 && greatest < 0);
    CUstream s[2];
    CHECK(cuStreamCreate(&s[0], CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreateWithPriority(&s[1], CU_STREAM_DEFAULT, greatest));
    int prio = 0;
    unsigned flags = 9;
    CHECK(cuStreamGetPriority(s[1], &prio));
    CHECK(cuStreamGetFlags(s[0], &flags));
    TRUE(prio == greatest && flags == CU_STREAM_NON_BLOCKING);
    CUcontext sctx = NULL;
    CHECK(cuStreamGetCtx(s[0], &sctx));
    TRUE(sctx == ctx);

    /* Two independent vector adds, each on its own stream, inputs and outputs in pinned
     * memory copied asynchronously. */
    const int n = 1 << 18;
    const size_t bytes = n * sizeof(float);
    float *host[2][3];
    CUdeviceptr dv[2][3];
    CUevent start[2], stop[2];
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < 3; j++) {
            CHECK(cuMemAllocHost((void **)&host[k][j], bytes));
            CHECK(cuMemAlloc(&dv[k][j], bytes));
        }
        for (int i = 0; i < n; i++) {
            host[k][0][i] = (float)i * (k + 1);
            host[k][1][i] = (float)(n - i);
            host[k][2][i] = -1.0f;
        }
        CHECK(cuEventCreate(&start[k], CU_EVENT_DEFAULT));
        CHECK(cuEventCreate(&stop[k], CU_EVENT_DEFAULT));
    }
    for (int k = 0; k < 2; k++) {
        CHECK(cuEventRecord(start[k], s[k]));
        CHECK(cuMemcpyHtoDAsync(dv[k][0], host[k][0], bytes, s[k]));
        CHECK(cuMemcpyHtoDAsync(dv[k][1], host[k][1], bytes, s[k]));
        void *args[] = {&dv[k][0], &dv[k][1], &dv[k][2], (void *)&n};
        CHECK(cuLaunchKernel(vecadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s[k], args, NULL));
        CHECK(cuMemcpyDtoHAsync(host[k][2], dv[k][2], bytes, s[k]));
        CHECK(cuEventRecord(stop[k], s[k]));
    }
    /* Nothing has run yet: the host did not wait (the clock is stepped by waits). */
    EXPECT(cuStreamQuery(s[0]), CUDA_ERROR_NOT_READY);
    EXPECT(cuEventQuery(stop[1]), CUDA_ERROR_NOT_READY);
    float ms = -1;
    EXPECT(cuEventElapsedTime(&ms, start[0], stop[0]), CUDA_ERROR_NOT_READY);
    CHECK(cuEventSynchronize(stop[0]));
    CHECK(cuStreamSynchronize(s[1]));
    EXPECT(cuStreamQuery(s[0]), CUDA_SUCCESS);
    EXPECT(cuEventQuery(stop[1]), CUDA_SUCCESS);
    for (int k = 0; k < 2; k++) {
        int bad = 0;
        for (int i = 0; i < n; i++)
            if (host[k][2][i] != host[k][0][i] + host[k][1][i]) bad++;
        TRUE(bad == 0);
        CHECK(cuEventElapsedTime(&ms, start[k], stop[k]));
        /* 3 MiB over PCIe at 12 GB/s is about 0.26 ms, plus the kernel. */
        TRUE(ms > 0.2f && ms < 5.0f);
    }
    float back = 0;
    CHECK(cuEventElapsedTime(&back, stop[0], start[0]));
    TRUE(back < 0);

    /* cuStreamWaitEvent: s[1] copies what s[0] produced, after s[0]'s kernel. */
    CUevent done;
    CHECK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    void *args[] = {&dv[0][0], &dv[0][0], &dv[0][2], (void *)&n};
    CHECK(cuLaunchKernel(vecadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s[0], args, NULL));
    CHECK(cuEventRecord(done, s[0]));
    CHECK(cuStreamWaitEvent(s[1], done, 0));
    CHECK(cuMemcpyDtoDAsync(dv[1][2], dv[0][2], bytes, s[1]));
    CHECK(cuMemcpyDtoHAsync(host[1][2], dv[1][2], bytes, s[1]));
    CHECK(cuStreamSynchronize(s[1]));
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (host[1][2][i] != 2 * host[0][0][i]) bad++;
    TRUE(bad == 0);
    EXPECT(cuEventElapsedTime(&ms, start[0], done), CUDA_ERROR_INVALID_HANDLE);

    /* Memsets on a stream; a pageable copy on a stream (synchronous). */
    CHECK(cuMemsetD32Async(dv[0][2], 0x01020304u, n, s[0]));
    unsigned *pageable = malloc(bytes);
    CHECK(cuMemcpyDtoHAsync(pageable, dv[0][2], bytes, s[0]));
    TRUE(pageable[0] == 0x01020304u && pageable[n - 1] == 0x01020304u);
    free(pageable);

    /* Error paths. */
    CUstream bogus = (CUstream)(uintptr_t)0x7777;
    EXPECT(cuStreamSynchronize(bogus), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord((CUevent)(uintptr_t)0x7777, s[0]), CUDA_ERROR_INVALID_HANDLE);
    CUstream dummy;
    EXPECT(cuStreamCreate(&dummy, 0x8), CUDA_ERROR_INVALID_VALUE);
    CUevent ev;
    EXPECT(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuStreamWaitEvent(s[0], done, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    /* The legacy default stream by its special handles. */
    CHECK(cuStreamSynchronize(CU_STREAM_LEGACY));
    CHECK(cuStreamSynchronize(CU_STREAM_PER_THREAD));

    for (int k = 0; k < 2; k++) {
        CHECK(cuEventDestroy(start[k]));
        CHECK(cuEventDestroy(stop[k]));
        CHECK(cuStreamDestroy(s[k]));
        for (int j = 0; j < 3; j++) {
            CHECK(cuMemFreeHost(host[k][j]));
            CHECK(cuMemFree(dv[k][j]));
        }
    }
    CHECK(cuEventDestroy(done));
    EXPECT(cuStreamSynchronize(s[0]), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    free(ptx);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("streams: all checks passed\n");
    return 0;
}
