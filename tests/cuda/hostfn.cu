// Host functions and threads (cudaLaunchHostFunc, cudaStreamAddCallback): a host function
// that takes host time (system calls) while other threads wait on the same context; CUDA
// calls made inside a host function; and simulated time that does not depend on how long
// a host function takes (HOSTFN_SLEEP_MS sets it; the program prints the simulated time
// of a stretch of work around it, which the test compares across two sleeps).
#include <cuda_runtime.h>
#include <pthread.h>
#include <unistd.h>
#include <atomic>
#include <cstdlib>
#include "check.cuh"

__global__ void add(float *x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

static int sleep_ms = 50;
static std::atomic<int> slept{0};

// A host function that makes system calls for a while.
static void CUDART_CB slow(void *) {
    for (int k = 0; k < 4; k++) usleep(sleep_ms * 250);
    slept.fetch_add(1);
}

struct Waiter {
    int rounds;
    int failed;
    cudaError_t first;
};

// Another thread synchronizing the same (primary) context, again and again.
static void *synchronizer(void *p) {
    Waiter *w = (Waiter *)p;
    for (int k = 0; k < w->rounds; k++) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            if (w->failed++ == 0) w->first = e;
        }
    }
    return nullptr;
}

struct Launcher {
    float *d;
    int n;
    cudaError_t launch, sync;
};

// Another thread launching a kernel on the legacy default stream, which waits for every
// blocking stream's earlier work (the host function included).
static void *legacy_launcher(void *p) {
    Launcher *l = (Launcher *)p;
    add<<<l->n / 256, 256>>>(l->d, 1.0f, l->n);
    l->launch = cudaGetLastError();
    l->sync = cudaDeviceSynchronize();
    return nullptr;
}

// CUDA calls inside a host function: each answers cudaErrorNotPermitted and does nothing.
struct Inside {
    cudaStream_t own;
    cudaError_t malloc_, sync, destroy, query;
};

static void CUDART_CB calls_cuda(void *p) {
    Inside *in = (Inside *)p;
    void *q = nullptr;
    in->malloc_ = cudaMalloc(&q, 256);
    in->sync = cudaDeviceSynchronize();
    in->destroy = cudaStreamDestroy(in->own);
    in->query = cudaStreamQuery(in->own);
}

int main() {
    if (const char *s = getenv("HOSTFN_SLEEP_MS")) sleep_ms = atoi(s);
    const int n = 1 << 16;
    float *d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemset(d, 0, n * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    // 1. A host function sleeping on one thread while another synchronizes the context 200
    //    times: every synchronization waits for it and succeeds.
    add<<<n / 256, 256, 0, s>>>(d, 1.0f, n);
    CHECK(cudaLaunchHostFunc(s, slow, nullptr));
    add<<<n / 256, 256, 0, s>>>(d, 1.0f, n);
    Waiter w = {200, 0, cudaSuccess};
    pthread_t t;
    pthread_create(&t, nullptr, synchronizer, &w);
    CHECK(cudaStreamSynchronize(s));
    pthread_join(t, nullptr);
    if (w.failed) fprintf(stderr, "first failure: %s\n", cudaGetErrorName(w.first));
    TRUE(w.failed == 0 && slept.load() == 1);

    // 2. A host function on a blocking stream while another thread's kernel goes to the
    //    legacy default stream: the kernel waits for it, then runs.
    CHECK(cudaLaunchHostFunc(s, slow, nullptr));
    Launcher l = {d, n, cudaErrorUnknown, cudaErrorUnknown};
    pthread_create(&t, nullptr, legacy_launcher, &l);
    pthread_join(t, nullptr);
    EXPECT(l.launch, cudaSuccess);
    EXPECT(l.sync, cudaSuccess);
    CHECK(cudaDeviceSynchronize());
    TRUE(slept.load() == 2);
    float h[4];
    CHECK(cudaMemcpy(h, d + 1000, sizeof h, cudaMemcpyDeviceToHost));
    TRUE(h[0] == 3.0f && h[3] == 3.0f);

    // 3. CUDA calls in a host function: cudaErrorNotPermitted, nothing done (the stream it
    //    tried to destroy still runs the work queued after it), and the waiting thread's
    //    last error left alone.
    cudaStream_t own;
    CHECK(cudaStreamCreate(&own));
    Inside in = {own, cudaSuccess, cudaSuccess, cudaSuccess, cudaSuccess};
    CHECK(cudaLaunchHostFunc(own, calls_cuda, &in));
    add<<<n / 256, 256, 0, own>>>(d, 1.0f, n);
    CHECK(cudaStreamSynchronize(own));
    EXPECT(in.malloc_, cudaErrorNotPermitted);
    EXPECT(in.sync, cudaErrorNotPermitted);
    EXPECT(in.destroy, cudaErrorNotPermitted);
    EXPECT(in.query, cudaErrorNotPermitted);
    EXPECT(cudaGetLastError(), cudaSuccess);
    CHECK(cudaMemcpy(h, d + 1000, sizeof h, cudaMemcpyDeviceToHost));
    TRUE(h[0] == 4.0f);
    EXPECT(cudaStreamQuery(own), cudaSuccess);
    CHECK(cudaStreamDestroy(own));

    // 4. Simulated time around a host function, while another thread waits on the device:
    //    the same whatever the host function's host time.
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a, s));
    add<<<n / 256, 256, 0, s>>>(d, 1.0f, n);
    CHECK(cudaLaunchHostFunc(s, slow, nullptr));
    add<<<n / 256, 256, 0, s>>>(d, 1.0f, n);
    CHECK(cudaEventRecord(b, s));
    w = {50, 0, cudaSuccess};
    pthread_create(&t, nullptr, synchronizer, &w);
    CHECK(cudaEventSynchronize(b));
    pthread_join(t, nullptr);
    TRUE(w.failed == 0);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    printf("simulated: %.6f ms\n", ms);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    return report();
}
