// libcu++'s cuda::barrier (NVIDIA's CCCL, rgdev cc --cuda-path, sm_80: PTX mbarrier):
// rounds of arrive_and_wait and split arrive/wait over a block's shared values, against
// the host.
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;
using barrier = cuda::barrier<cuda::thread_scope_block>;
// clang refuses a __shared__ variable with a constructor (nvcc accepts cuda::barrier's with
// a warning): its storage is declared instead.
#define SHARED_BARRIER(name)                                                                   \
    alignas(barrier) __shared__ unsigned char name##_storage[sizeof(barrier)];                 \
    barrier &name = *reinterpret_cast<barrier *>(name##_storage)

__global__ void phases(const int *in, int *out, int rounds) {
    SHARED_BARRIER(bar);
    __shared__ int buf[2][256];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    int t = threadIdx.x, v = in[blockIdx.x * blockDim.x + t];
    for (int r = 0; r < rounds; r++) {
        buf[r & 1][t] = v;
        bar.arrive_and_wait();                       // everyone's value of this round is in
        v = buf[r & 1][(t + 1) % blockDim.x] + 1;   // the neighbour's, plus one
        auto token = bar.arrive();                   // split: arrive, then wait
        bar.wait(std::move(token));
    }
    out[blockIdx.x * blockDim.x + t] = v;
}

int main() {
    const int blocks = 4, threads = 256, n = blocks * threads, rounds = 5;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = i * 3 % 1000;
    int *in, *out;
    cudaMalloc(&in, n * 4);
    cudaMalloc(&out, n * 4);
    cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
    phases<<<blocks, threads>>>(in, out, rounds);
    std::vector<int> o(n);
    cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            int want = h[b * threads + (t + rounds) % threads] + rounds;
            bad += o[b * threads + t] != want;
        }
    cudaError_t e = cudaGetLastError();
    printf("cuda::barrier: %d wrong, %s\n", bad, cudaGetErrorString(e));
    return bad != 0 || e != cudaSuccess;
}
