// Relocatable device code (-rdc=true, or -dc then a link): a kernel calling device
// functions of another file, and `extern __device__` variables both ways, linked when the
// program loads; `static` kernels and variables, which clang renames after the compilation
// unit (`__intern__`/`__static__` and a hash that the host and device compiles must share).
#include "check.cuh"

extern __device__ float affine(float x, float a, float b);
extern __device__ int fib(int k);
extern __device__ int lookup[8];
__device__ unsigned int calls;

__global__ void apply(float *p, int *q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i] = affine(p[i], 3.0f, -1.0f);
        q[i] = fib(i) + lookup[(i + 1) & 7];
    }
}

static __device__ int scale;
static __global__ void scaled(int *q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] *= scale;
}

int main() {
    const int n = 100;
    float hp[n];
    int hq[n];
    for (int i = 0; i < n; i++) hp[i] = (float)i;
    float *p;
    int *q;
    CHECK(cudaMalloc(&p, sizeof hp));
    CHECK(cudaMalloc(&q, sizeof hq));
    CHECK(cudaMemcpy(p, hp, sizeof hp, cudaMemcpyHostToDevice));
    apply<<<4, 32>>>(p, q, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hp, p, sizeof hp, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hq, q, sizeof hq, cudaMemcpyDeviceToHost));
    const int fibs[8] = {1, 1, 2, 3, 5, 8, 13, 21};
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hp[i] != 3.0f * i - 1.0f || hq[i] != fibs[i & 7] + fibs[(i + 1) & 7];
    TRUE(bad == 0);
    unsigned int c = 0;
    CHECK(cudaMemcpyFromSymbol(&c, calls, sizeof c));
    TRUE(c == n);
    int l[8];
    CHECK(cudaMemcpyFromSymbol(l, lookup, sizeof l));
    TRUE(l[7] == 21);
    const int three = 3;
    CHECK(cudaMemcpyToSymbol(scale, &three, sizeof three));
    scaled<<<4, 32>>>(q, n);
    CHECK(cudaGetLastError());
    int hs[n];
    CHECK(cudaMemcpy(hs, q, sizeof hs, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += hs[i] != 3 * hq[i];
    TRUE(bad == 0);
    return report();
}
