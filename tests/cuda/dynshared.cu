// Dynamic shared memory: `extern __shared__` arrays sized at launch, two views of one
// allocation, a (non-static, so also emitted on its own) device function naming the dynamic
// array beside a kernel's static shared variable, and the launch limit on its size.
#include "check.cuh"

__global__ void reverse_blocks(const int *in, int *out) {
    extern __shared__ int buf[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    buf[t] = in[base + t];
    __syncthreads();
    out[base + t] = buf[blockDim.x - 1 - t];
}

/* Two arrays carved out of one dynamic allocation: n floats, then n ints. */
__global__ void two_views(float *f, int *i, int n) {
    extern __shared__ float smem[];
    float *fs = smem;
    int *is = (int *)&smem[n];
    int t = threadIdx.x;
    fs[t] = t * 1.5f;
    is[t] = -t;
    __syncthreads();
    f[t] = fs[n - 1 - t];
    i[t] = is[(t + 1) % n];
}

/* clang emits stage() as a .func of its own although it is inlined below: the module
   must load all the same, and the dynamic array must not overlap `counter`. */
__device__ void stage(const int *in, int n) {
    extern __shared__ int staged[];
    for (int k = threadIdx.x; k < n; k += blockDim.x) staged[k] = in[k] + 1;
}
__global__ void with_static(const int *in, int *out, int n) {
    __shared__ int counter;
    extern __shared__ int staged[];
    if (threadIdx.x == 0) counter = 12345;
    __syncthreads();
    stage(in, n);
    __syncthreads();
    out[threadIdx.x] = staged[n - 1 - threadIdx.x] + counter;
}

int main() {
    const int n = 4096;
    int hin[n], hout[n];
    for (int i = 0; i < n; i++) hin[i] = i * 3;
    int *in, *out;
    CHECK(cudaMalloc(&in, sizeof hin));
    CHECK(cudaMalloc(&out, sizeof hout));
    CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    with_static<<<1, 128, 128 * sizeof(int)>>>(in, out, 128);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hout, out, 128 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 128; t++) TRUE(hout[t] == hin[127 - t] + 1 + 12345);
    const int blocks[] = {64, 256, 1024};
    for (int block : blocks) {
        reverse_blocks<<<n / block, block, block * sizeof(int)>>>(in, out);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < n; i++) bad += hout[i] != hin[(i / block) * block + block - 1 - i % block];
        TRUE(bad == 0);
    }

    const int m = 200;
    float *f, hf[m];
    int *iv, hi[m];
    CHECK(cudaMalloc(&f, sizeof hf));
    CHECK(cudaMalloc(&iv, sizeof hi));
    two_views<<<1, m, m * (sizeof(float) + sizeof(int))>>>(f, iv, m);
    CHECK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hi, iv, sizeof hi, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < m; t++) bad += hf[t] != (m - 1 - t) * 1.5f || hi[t] != -((t + 1) % m);
    TRUE(bad == 0);

    // More dynamic shared memory than a block may have fails the launch, not the device.
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    reverse_blocks<<<1, 32, p.sharedMemPerBlockOptin + 1>>>(in, out);
    TRUE(cudaGetLastError() != cudaSuccess);
    reverse_blocks<<<n / 32, 32, 32 * sizeof(int)>>>(in, out);
    CHECK(cudaDeviceSynchronize());
    return report();
}
