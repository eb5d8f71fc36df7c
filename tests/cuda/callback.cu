// Callbacks with no thread waiting (the shape of cuda-samples' simpleCallback): each of
// four workloads queues a copy in, a kernel, a copy out and a stream callback, then the
// main thread blocks on a host barrier without a CUDA call. Each callback checks that its
// stream's work is done and starts a host thread that checks the results and frees the
// workload's memory (CUDA calls outside a callback, made while the device may still run
// other workloads). Memory and streams are made first and the module loaded by a first
// launch, so queueing the work waits for nothing: no callback comes due while the main
// thread still queues work (its place in simulated time would then depend on a race
// between host threads, as on a GPU). The program
// prints each workload's simulated time (events around its copies and kernel), which the
// test compares across runs.
#include <cuda_runtime.h>
#include <pthread.h>
#include <time.h>
#include <cstdio>
#include <cstdlib>
#include "check.cuh"

static const int N = 1 << 14, WORKLOADS = 4;

__global__ void increment(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += i % 7 + 1;
}

struct Workload {
    int id;
    cudaStream_t stream;
    cudaEvent_t begin, end;
    int *host, *dev;
    pthread_t thread;
    bool ok;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int finished = 0, order[WORKLOADS], callbacks = 0;

static void *postprocess(void *p) {
    Workload *w = (Workload *)p;
    w->ok = true;
    for (int i = 0; i < N; i++)
        if (w->host[i] != w->id + i % 7 + 1) w->ok = false;
    if (cudaFree(w->dev) != cudaSuccess || cudaFreeHost(w->host) != cudaSuccess) w->ok = false;
    pthread_mutex_lock(&lock);
    finished++;
    pthread_cond_signal(&done_cond);
    pthread_mutex_unlock(&lock);
    return nullptr;
}

static void CUDART_CB callback(cudaStream_t, cudaError_t status, void *p) {
    Workload *w = (Workload *)p;
    // The stream's copy out has landed: the last element is there.
    if (status != cudaSuccess || w->host[N - 1] != w->id + (N - 1) % 7 + 1) w->ok = false;
    pthread_mutex_lock(&lock);
    order[callbacks++] = w->id;
    pthread_mutex_unlock(&lock);
    pthread_create(&w->thread, nullptr, postprocess, w);
}

int main() {
    Workload w[WORKLOADS];
    for (int k = 0; k < WORKLOADS; k++) {
        w[k].id = k;
        w[k].ok = false;
        CHECK(cudaStreamCreate(&w[k].stream));
        CHECK(cudaEventCreate(&w[k].begin));
        CHECK(cudaEventCreate(&w[k].end));
        CHECK(cudaMallocHost(&w[k].host, N * sizeof(int)));
        CHECK(cudaMalloc(&w[k].dev, N * sizeof(int)));
        for (int i = 0; i < N; i++) w[k].host[i] = k;
    }
    increment<<<1, 32>>>(w[0].dev, 0);
    CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < WORKLOADS; k++) {
        CHECK(cudaEventRecord(w[k].begin, w[k].stream));
        CHECK(cudaMemcpyAsync(w[k].dev, w[k].host, N * sizeof(int), cudaMemcpyHostToDevice, w[k].stream));
        increment<<<N / 256, 256, 0, w[k].stream>>>(w[k].dev, N);
        CHECK(cudaMemcpyAsync(w[k].host, w[k].dev, N * sizeof(int), cudaMemcpyDeviceToHost, w[k].stream));
        CHECK(cudaEventRecord(w[k].end, w[k].stream));
        CHECK(cudaStreamAddCallback(w[k].stream, callback, &w[k], 0));
    }
    // No CUDA call until every workload is done: the callbacks must run anyway.
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 300;
    pthread_mutex_lock(&lock);
    while (finished < WORKLOADS)
        if (pthread_cond_timedwait(&done_cond, &lock, &until) != 0) {
            fprintf(stderr, "%d of %d workloads done after 300 s\n", finished, WORKLOADS);
            return 1;
        }
    pthread_mutex_unlock(&lock);
    printf("simulated:");
    for (int k = 0; k < WORKLOADS; k++) {
        pthread_join(w[k].thread, nullptr);
        TRUE(w[k].ok);
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, w[k].begin, w[k].end));
        printf(" %.6f", ms);
        CHECK(cudaStreamDestroy(w[k].stream));
    }
    printf(" ms\ncallbacks in order:");
    for (int k = 0; k < WORKLOADS; k++) printf(" %d", order[k]);
    printf("\n");
    return report();
}
