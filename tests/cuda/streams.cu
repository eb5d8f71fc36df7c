// Streams, events and host callbacks: work split over two streams with pinned memory and
// asynchronous copies, an event that orders one stream after the other, elapsed time,
// queries, and host functions and callbacks that run in stream order.
#include "check.cuh"
#include <vector>

__global__ void add(float *x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

__global__ void copy_scaled(const float *src, float *dst, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i] * s;
}

static std::vector<int> order; // what the callbacks saw, in the order they ran
static float *pinned;

static void CUDART_CB host_fn(void *data) {
    int tag = (int)(size_t)data;
    // The stream's earlier copy has landed: the callback sees its data.
    order.push_back(tag * 1000 + (int)pinned[tag]);
}

// Sets pinned[100] to what the device must read after it.
static void CUDART_CB set_flag(void *data) {
    order.push_back(-2);
    pinned[100] = (float)(size_t)data;
}

static void CUDART_CB callback(cudaStream_t, cudaError_t status, void *data) {
    order.push_back(status == cudaSuccess ? (int)(size_t)data : -1);
}

int main() {
    const int n = 1 << 16, half = n / 2;
    float *h, *d, *d2;
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMalloc(&d2, n * sizeof(float)));
    for (int i = 0; i < n; i++) h[i] = (float)i;
    pinned = h;

    cudaStream_t s[2];
    CHECK(cudaStreamCreate(&s[0]));
    CHECK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
    cudaEvent_t start, stop, half_done;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&half_done, cudaEventDisableTiming));

    CHECK(cudaEventRecord(start, s[0]));
    for (int k = 0; k < 2; k++) {
        float *hp = h + k * half, *dp = d + k * half;
        CHECK(cudaMemcpyAsync(dp, hp, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        add<<<half / 256, 256, 0, s[k]>>>(dp, 1.0f + k, half);
        CHECK(cudaMemcpyAsync(hp, dp, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    }
    // Stream 1 waits for stream 0's half, then reads all of d.
    CHECK(cudaEventRecord(half_done, s[0]));
    CHECK(cudaStreamWaitEvent(s[1], half_done, 0));
    copy_scaled<<<n / 256, 256, 0, s[1]>>>(d, d2, 2.0f, n);
    CHECK(cudaEventRecord(stop, s[1]));
    CHECK(cudaEventSynchronize(stop));
    EXPECT(cudaEventQuery(stop), cudaSuccess);
    EXPECT(cudaStreamQuery(s[0]), cudaSuccess);
    CHECK(cudaStreamSynchronize(s[1]));

    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != (float)i + (i < half ? 1.0f : 2.0f);
    TRUE(bad == 0);
    float *back = new float[n];
    CHECK(cudaMemcpy(back, d2, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += back[i] != 2.0f * h[i];
    TRUE(bad == 0);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    TRUE(ms > 0.0f && ms < 1000.0f);
    EXPECT(cudaEventElapsedTime(&ms, start, half_done), cudaErrorInvalidResourceHandle);

    // Host functions and callbacks in stream order: each after the copy queued before it.
    for (int i = 0; i < 4; i++) h[i] = 0;
    for (int k = 1; k <= 3; k++) {
        float v = (float)(10 * k);
        CHECK(cudaMemcpyAsync(d + k, &v, sizeof v, cudaMemcpyHostToDevice, s[0]));
        CHECK(cudaMemcpyAsync(h + k, d + k, sizeof(float), cudaMemcpyDeviceToHost, s[0]));
        CHECK(cudaLaunchHostFunc(s[0], host_fn, (void *)(size_t)k));
    }
    CHECK(cudaStreamAddCallback(s[0], callback, (void *)7, 0));
    CHECK(cudaStreamSynchronize(s[0]));
    TRUE(order.size() == 4 && order[0] == 1010 && order[1] == 2020 && order[2] == 3030 && order[3] == 7);
    // Asynchronous: the caller goes on while a host function waits for the stream's
    // earlier work, and the work queued after it waits for it (a copy reads what it wrote).
    order.clear();
    pinned[100] = 0;
    add<<<half / 256, 256, 0, s[0]>>>(d, 1.0f, half);
    CHECK(cudaLaunchHostFunc(s[0], set_flag, (void *)42));
    TRUE(order.empty());
    CHECK(cudaMemcpyAsync(d2, pinned + 100, sizeof(float), cudaMemcpyHostToDevice, s[0]));
    CHECK(cudaMemcpyAsync(pinned + 101, d2, sizeof(float), cudaMemcpyDeviceToHost, s[0]));
    CHECK(cudaStreamAddCallback(s[0], callback, (void *)8, 0));
    TRUE(cudaStreamQuery(s[0]) == cudaErrorNotReady || order.size() == 2);
    CHECK(cudaStreamSynchronize(s[0]));
    TRUE(order.size() == 2 && order[0] == -2 && order[1] == 8 && pinned[101] == 42.0f);
    // More work queued behind a host function than the stream's rings hold: queuing it
    // runs the function when the rings fill up.
    order.clear();
    CHECK(cudaMemset(d, 0, 32 * sizeof(float)));
    CHECK(cudaLaunchHostFunc(s[0], set_flag, (void *)7));
    for (int k = 0; k < 1500; k++) add<<<1, 32, 0, s[0]>>>(d, 1.0f, 32);
    CHECK(cudaStreamSynchronize(s[0]));
    CHECK(cudaMemcpy(back, d, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    TRUE(order.size() == 1 && back[0] == 1500.0f && back[31] == 1500.0f);
    // Polling: a query of pending work lets the device run a little, so a loop of queries
    // ends (as cuda-samples' asyncAPI waits).
    add<<<half / 256, 256, 0, s[1]>>>(d, 1.0f, half);
    cudaEvent_t polled;
    CHECK(cudaEventCreate(&polled));
    CHECK(cudaEventRecord(polled, s[1]));
    long polls = 0;
    while (polls < 1000000 && cudaEventQuery(polled) == cudaErrorNotReady) polls++;
    TRUE(polls > 0 && polls < 1000000);
    add<<<half / 256, 256, 0, s[1]>>>(d, 1.0f, half);
    for (polls = 0; polls < 1000000 && cudaStreamQuery(s[1]) == cudaErrorNotReady;) polls++;
    TRUE(polls > 0 && polls < 1000000);
    CHECK(cudaEventDestroy(polled));
    EXPECT(cudaStreamAddCallback(s[0], callback, nullptr, 1), cudaErrorInvalidValue);
    EXPECT(cudaLaunchHostFunc(s[0], nullptr, nullptr), cudaErrorInvalidValue);

    for (int k = 0; k < 2; k++) CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(half_done));
    CHECK(cudaFreeHost(h));
    delete[] back;
    return report();
}
