// Asynchronous barrier primitives (cuda_awbarrier_primitives.h, PTX mbarrier) and
// __pipeline_arrive_on, against the host: rounds of a block's threads passing values around
// a shared array with split arrive and wait (test_wait spinning, try_wait_parity), tokens'
// pending counts, threads leaving with arrive_and_drop, and copies staged with
// __pipeline_memcpy_async whose arrival completes a barrier phase.
#include <cuda_awbarrier_primitives.h>
#include <cuda_pipeline.h>
#include <vector>

#include "check.cuh"

__global__ void rounds(const int *in, int *out, int *pending, int n_rounds) {
    __shared__ __mbarrier_t bar;
    __shared__ int buf[2][128];
    int t = threadIdx.x;
    if (t == 0) __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    int v = in[t];
    for (int r = 0; r < n_rounds; r++) {
        buf[r & 1][t] = v;
        __mbarrier_token_t tok = __mbarrier_arrive(&bar);
        if (r == 0) pending[t] = (int)__mbarrier_token_pending_count(tok);
        while (!__mbarrier_test_wait(&bar, tok)) {
        }
        v = buf[r & 1][(t + 1) % blockDim.x] + 1;
        // A second barrier phase before the buffer is written again, waited by parity.
        __mbarrier_arrive(&bar);
        while (!__mbarrier_try_wait_parity(&bar, (r * 2 + 1) & 1, 1000)) {
        }
    }
    out[t] = v;
}

// Threads 64.. arrive and drop out (and leave: a waiter may not fall a whole phase behind,
// as the barrier keeps only the phase's parity); the rest go on with a barrier that now
// expects 64.
__global__ void dropping(int *out) {
    __shared__ __mbarrier_t bar;
    __shared__ int count;
    int t = threadIdx.x;
    if (t == 0) {
        __mbarrier_init(&bar, blockDim.x);
        count = 0;
    }
    __syncthreads();
    atomicAdd(&count, 1);
    if (t >= 64) {
        __mbarrier_arrive_and_drop(&bar);
        return;
    }
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {
    }
    int first = count; // everyone's add of the first phase, read before anyone adds again
    tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {
    }
    atomicAdd(&count, 1);
    tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {
    }
    out[t] = first * 1000 + count;
}

// Each thread copies one word into shared memory; the barrier's phase completes when every
// thread has arrived and its copies are done (__pipeline_arrive_on), then each reads another's.
__global__ void staged(const int *in, int *out) {
    __shared__ __mbarrier_t bar;
    __shared__ int tile[128];
    int t = threadIdx.x;
    if (t == 0) __mbarrier_init(&bar, 2 * blockDim.x);
    __syncthreads();
    __pipeline_memcpy_async(&tile[t], &in[t], sizeof(int));
    __pipeline_arrive_on(&bar);
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {
    }
    out[t] = tile[127 - t] * 3;
}

int main() {
    const int n = 128, n_rounds = 6;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (i * 37) % 101;
    int *in, *out, *pend;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    CHECK(cudaMalloc(&pend, n * sizeof(int)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    rounds<<<1, n>>>(in, out, pend, n_rounds);
    CHECK(cudaGetLastError());
    std::vector<int> o(n), p(n);
    CHECK(cudaMemcpy(o.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(p.data(), pend, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<bool> seen(n + 1);
    for (int t = 0; t < n; t++) {
        TRUE(o[t] == h[(t + n_rounds) % n] + n_rounds);
        TRUE(p[t] >= 1 && p[t] <= n && !seen[p[t]]);  // each arrival saw a distinct count
        seen[p[t]] = true;
    }
    dropping<<<1, n>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), out, 64 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++) TRUE(o[t] == 128 * 1000 + 192);
    staged<<<1, n>>>(in, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; t++) TRUE(o[t] == h[127 - t] * 3);
    printf("awbarrier: %d rounds, a drop, staged copies\n", n_rounds);
    return report();
}
