// NVTX annotations (nvtx3/nvToolsExt.h, linked by rgdev cc without -lnvToolsExt): pushed
// ranges nested around work on two streams, a mark, a start/end range, a registered
// string in a domain, and a second host thread with a range and a launch of its own.
// Under a trace the push/pop depths are NVTX's; without one, NVTX's no-tool answers.
#include "check.cuh"
#include <nvtx3/nvToolsExt.h>
#include <thread>
#include <unistd.h>
#include <sys/syscall.h>

__global__ void scale(float *x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

// <thread> brings <time.h>: the device's clock() overloads the host's, both usable.
__global__ void clocked(long long *t) {
    clock_t a = clock();
    long long b = clock64();
    for (int i = 0; i < 100; i++) __syncthreads();
    t[0] = (long long)(clock() - a);
    t[1] = clock64() - b;
}

int main() {
    clock_t host_start = clock();
    const char *trace = getenv("RGDEV_TRACE");
    bool traced = trace && *trace;
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "main");
    const int n = 4096;
    float *h = new float[n], *d[2];
    for (int i = 0; i < n; i++) h[i] = (float)i;

    int depth = nvtxRangePushA("setup");
    TRUE(depth == (traced ? 0 : NVTX_NO_PUSH_POP_TRACKING));
    cudaStream_t s[2];
    for (int k = 0; k < 2; k++) {
        CHECK(cudaStreamCreate(&s[k]));
        CHECK(cudaMalloc(&d[k], n * sizeof(float)));
        CHECK(cudaMemcpy(d[k], h, n * sizeof(float), cudaMemcpyHostToDevice));
    }
    TRUE(nvtxRangePop() == (traced ? 0 : NVTX_NO_PUSH_POP_TRACKING));

    nvtxRangePushA("compute");
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xff00ff00;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "streams";
    TRUE(nvtxRangePushEx(&a) == (traced ? 1 : NVTX_NO_PUSH_POP_TRACKING));
    for (int k = 0; k < 2; k++) scale<<<n / 256, 256, 0, s[k]>>>(d[k], 2.0f + k, n);
    nvtxMarkA("launched");
    nvtxRangeId_t id = nvtxRangeStartA("wait");
    TRUE(traced ? id != 0 : id == 0);
    CHECK(cudaDeviceSynchronize());
    nvtxRangeEnd(id);
    nvtxRangePop();
    nvtxRangePop();

    // A second thread: a range and a launch of its own, on its own track.
    std::thread worker([&] {
        nvtxDomainHandle_t dom = nvtxDomainCreateA("worker domain");
        nvtxEventAttributes_t b = {};
        b.version = NVTX_VERSION;
        b.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        b.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        b.message.registered = nvtxDomainRegisterStringA(dom, "worker");
        nvtxDomainRangePushEx(dom, &b);
        scale<<<n / 256, 256>>>(d[0], 0.5f, n);
        CHECK(cudaDeviceSynchronize());
        nvtxDomainRangePop(dom);
        nvtxDomainDestroy(dom);
    });
    worker.join();
    TRUE(nvtxRangePop() == (traced ? -1 : NVTX_NO_PUSH_POP_TRACKING)); // none open

    float *out = new float[n];
    for (int k = 0; k < 2; k++) {
        CHECK(cudaMemcpy(out, d[k], n * sizeof(float), cudaMemcpyDeviceToHost));
        float f = k == 0 ? 2.0f * 0.5f : 3.0f;
        for (int i = 0; i < n; i++) TRUE(out[i] == h[i] * f);
        CHECK(cudaFree(d[k]));
        CHECK(cudaStreamDestroy(s[k]));
    }
    long long *t;
    CHECK(cudaMallocManaged(&t, 2 * sizeof(long long)));
    clocked<<<1, 32>>>(t);
    CHECK(cudaDeviceSynchronize());
    TRUE(t[0] > 100 && t[1] >= t[0]);
    TRUE(clock() >= host_start);
    return report();
}
