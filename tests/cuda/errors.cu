// CUDA's error model: a bad launch configuration is a non-sticky error that
// cudaGetLastError returns once and clears; a kernel's out-of-bounds store is
// cudaErrorIllegalAddress, sticky: every later call returns it until cudaDeviceReset; bad
// arguments get CUDA 12's codes.
#include "check.cuh"

__global__ void fill(int *p, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

__global__ void store_at(int *p, long long offset) { p[offset] = 1; }

// Counts the blocks that ran, and the largest x index seen.
__global__ void count_blocks(unsigned *count, unsigned *max_x) {
    if (threadIdx.x == 0) {
        atomicAdd(count, 1u);
        atomicMax(max_x, blockIdx.x);
    }
}

// What the stream callbacks saw: their status; the host function must not run.
static cudaError_t seen = cudaSuccess;
static int host_fn_ran = 0;
static void CUDART_CB note_status(cudaStream_t, cudaError_t status, void *) { seen = status; }
static void CUDART_CB host_fn(void *) { host_fn_ran++; }

int main() {
    int *d, h[256];
    CHECK(cudaMalloc(&d, sizeof h));

    // Configuration errors: reported by cudaGetLastError, then cleared; nothing ran.
    fill<<<1, 2048>>>(d, 256, 1);
    EXPECT(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
    EXPECT(cudaGetLastError(), cudaSuccess);
    fill<<<0, 32>>>(d, 256, 1);
    EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
    fill<<<dim3(1, 1, 70000), 32>>>(d, 256, 1);
    EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
    fill<<<1, dim3(32, 1, 65)>>>(d, 256, 1);
    EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);

    // From compute capability 3.0 a grid is up to 2^31 - 1 blocks wide (y and z stay at
    // 65535): 70000 blocks in x run, every one of them.
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    TRUE(prop.maxGridSize[0] == 2147483647 && prop.maxGridSize[1] == 65535 && prop.maxGridSize[2] == 65535);
    unsigned *counters, hc[2];
    CHECK(cudaMalloc(&counters, sizeof hc));
    CHECK(cudaMemset(counters, 0, sizeof hc));
    count_blocks<<<70000, 32>>>(counters, counters + 1);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hc, counters, sizeof hc, cudaMemcpyDeviceToHost));
    TRUE(hc[0] == 70000 && hc[1] == 69999);
    CHECK(cudaFree(counters));
    fill<<<dim3(1, 70000), 32>>>(d, 256, 1);
    EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);

    // Bad arguments get CUDA 12's codes and lose nothing: a pointer cudaMalloc did not
    // return, undefined event flags, a NULL 2D copy, a host-to-host copy of device memory
    // (which would fault if copied on the host).
    EXPECT(cudaFree((void *)0x1234), cudaErrorInvalidValue);
    cudaEvent_t ev;
    EXPECT(cudaEventCreateWithFlags(&ev, 0xff), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2D(NULL, 64, d, 64, 64, 1, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(h, d, 16, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(d, d + 16, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2D(h, 64, d, 64, 64, 1, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2D(d, 64, d + 32, 64, 64, 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT(cudaGetLastError(), cudaErrorInvalidValue); // non-sticky: cleared by reading it
    EXPECT(cudaGetLastError(), cudaSuccess);

    // The device is fine: the next launch runs.
    fill<<<1, 256>>>(d, 256, 7);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    TRUE(h[0] == 7 && h[255] == 7);

    // Other non-sticky errors.
    EXPECT(cudaMemcpy(h, d, sizeof h, (cudaMemcpyKind)42), cudaErrorInvalidMemcpyDirection);
    EXPECT(cudaSetDevice(99), cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError(), cudaErrorInvalidDevice);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));

    // An out-of-bounds store, 1 GiB past the allocation: the launch itself succeeds,
    // the fault surfaces at synchronization and stays.
    // A callback queued after it learns of the fault; a host function is not called.
    store_at<<<1, 1>>>(d, 1ll << 28);
    EXPECT(cudaGetLastError(), cudaSuccess);
    CHECK(cudaLaunchHostFunc(0, host_fn, nullptr));
    CHECK(cudaStreamAddCallback(0, note_status, nullptr, 0));
    EXPECT(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    TRUE(seen == cudaErrorIllegalAddress && host_fn_ran == 0);
    EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    int *more = nullptr;
    EXPECT(cudaMalloc(&more, 16), cudaErrorIllegalAddress);
    fill<<<1, 32>>>(d, 32, 1);
    EXPECT(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT(cudaGetLastError(), cudaErrorIllegalAddress); // sticky: not cleared
    EXPECT(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    printf("%s: %s\n", cudaGetErrorName(cudaErrorIllegalAddress), cudaGetErrorString(cudaErrorIllegalAddress));

    // cudaDeviceReset ends it: a new primary context, old allocations gone.
    CHECK(cudaDeviceReset());
    EXPECT(cudaGetLastError(), cudaSuccess);
    CHECK(cudaMalloc(&d, sizeof h));
    fill<<<1, 256>>>(d, 256, 9);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    TRUE(h[17] == 9);
    return report();
}
