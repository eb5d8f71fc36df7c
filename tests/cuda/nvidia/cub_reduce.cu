// CUB's block reduce and scan, and a device-wide reduction, built against NVIDIA's CCCL
// (rgdev cc --cuda-path), checked against the host.
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>

template <int THREADS> __global__ void block_sums(const int *in, int *sum, int *scan) {
    using Reduce = cub::BlockReduce<int, THREADS>;
    using Scan = cub::BlockScan<int, THREADS>;
    __shared__ typename Reduce::TempStorage r;
    __shared__ typename Scan::TempStorage s;
    int v = in[blockIdx.x * THREADS + threadIdx.x];
    int total = Reduce(r).Sum(v);
    if (threadIdx.x == 0) sum[blockIdx.x] = total;
    int prefix;
    Scan(s).ExclusiveSum(v, prefix);
    scan[blockIdx.x * THREADS + threadIdx.x] = prefix;
}

int main() {
    const int blocks = 8, threads = 128, n = blocks * threads;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (i * 31 + 7) % 101 - 50;
    int *in, *sum, *scan, *total;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&sum, blocks * sizeof(int));
    cudaMalloc(&scan, n * sizeof(int));
    cudaMalloc(&total, sizeof(int));
    cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    block_sums<threads><<<blocks, threads>>>(in, sum, scan);
    // Device-wide: the two-call protocol for temporary storage.
    void *tmp = nullptr;
    size_t bytes = 0;
    cub::DeviceReduce::Sum(tmp, bytes, in, total, n);
    cudaMalloc(&tmp, bytes);
    cub::DeviceReduce::Sum(tmp, bytes, in, total, n);
    std::vector<int> hs(blocks), hscan(n);
    int ht = 0;
    cudaMemcpy(hs.data(), sum, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(hscan.data(), scan, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&ht, total, sizeof(int), cudaMemcpyDeviceToHost);
    int bad = 0, all = 0;
    for (int b = 0; b < blocks; b++) {
        int s = 0;
        for (int t = 0; t < threads; t++) {
            bad += hscan[b * threads + t] != s;
            s += h[b * threads + t];
        }
        bad += hs[b] != s;
        all += s;
    }
    bad += ht != all;
    if (cudaGetLastError() != cudaSuccess || bad) {
        printf("cub: %d wrong\n", bad);
        return 1;
    }
    printf("cub: block reduce, block scan, device reduce of %d: %d\n", n, all);
    return 0;
}
