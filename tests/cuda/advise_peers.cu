// Managed memory advice across two GPUs (run on gv100x2, peers behind one PCIe switch): a
// preferred location on GPU 0 keeps the pages there while GPU 1 reaches them over the
// link; GPU 1 advised to access the memory has it mapped wherever it lives, with no fault;
// without advice GPU 1's first touch takes the pages from GPU 0. GPU 1's kernels follow
// GPU 0's through an event of GPU 0 (cudaStreamWaitEvent across devices), with no
// synchronization in between, so the pages are still on GPU 0 when GPU 1 runs. The
// results are checked here; what moved is checked from the statistics
// (runtime_programs::managed_memory_advice_across_gpus).
#include <cuda_runtime.h>
#include "check.cuh"

// The kernels' names tell the statistics which case ran: GPU 0 adds, GPU 1 doubles.
#define ADD(name)                                                                                      \
    __global__ void name(float *x, int n) {                                                            \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                                 \
        if (i < n) x[i] += 1.0f;                                                                       \
    }
#define TWICE(name)                                                                                    \
    __global__ void name(float *x, int n) {                                                            \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                                 \
        if (i < n) x[i] *= 2.0f;                                                                       \
    }
ADD(preferred_0)
TWICE(preferred_1)
ADD(accessed_0)
TWICE(accessed_1)
ADD(unadvised_0)
TWICE(unadvised_1)

typedef void (*kernel)(float *, int);

static const int n = 16 * 1024; // 64 KiB: 16 pages

// GPU 0 runs `first`, GPU 1 then runs `second` after it (an event of GPU 0), then the host
// waits for GPU 1 (so for both) and checks every element: pages still on GPU 0, which has
// no work left, come home too.
static void take_turns(float *x, cudaEvent_t done, kernel first, kernel second, float *expect) {
    CHECK(cudaSetDevice(0));
    first<<<n / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(done, 0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamWaitEvent(0, done, 0));
    second<<<n / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; i++) {
        expect[i] = (expect[i] + 1.0f) * 2.0f;
        bad += x[i] != expect[i];
    }
    TRUE(bad == 0);
}

int main() {
    int count = 0, can = 0;
    CHECK(cudaGetDeviceCount(&count));
    TRUE(count == 2);
    CHECK(cudaDeviceCanAccessPeer(&can, 1, 0));
    TRUE(can == 1);
    if (count != 2 || !can)
        return report();
    const size_t bytes = n * sizeof(float);
    float *x = nullptr;
    float *expect = (float *)malloc(bytes);
    CHECK(cudaSetDevice(0));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaMallocManaged(&x, bytes));
    for (int i = 0; i < n; i++)
        expect[i] = x[i] = (float)(i % 100);
    // Device 1's context exists before the advice, as a program's usually does.
    CHECK(cudaSetDevice(1));
    CHECK(cudaFree(0));

    // Preferred location GPU 0: GPU 0's first touch takes the pages; GPU 1's maps them
    // where they are, over the link.
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetPreferredLocation, 0));
    take_turns(x, done, preferred_0, preferred_1, expect);
    int where = -2;
    CHECK(cudaMemRangeGetAttribute(&where, sizeof(where), cudaMemRangeAttributePreferredLocation, x, bytes));
    TRUE(where == 0);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetPreferredLocation, 0));

    // Accessed by GPU 1: mapped in GPU 1 wherever the pages live, so GPU 1 never faults.
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetAccessedBy, 1));
    take_turns(x, done, accessed_0, accessed_1, expect);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetAccessedBy, 1));

    // No advice: GPU 1's first touch takes every page from GPU 0 (through the host).
    take_turns(x, done, unadvised_0, unadvised_1, expect);

    // Device 1 is current: under unified addressing the pointer names its device.
    CHECK(cudaFree(x));
    CHECK(cudaEventDestroy(done));
    free(expect);
    return report();
}
