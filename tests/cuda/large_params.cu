// Kernel parameters beyond 4 KiB (CUDA 12.1 and later, compute capability 7.0 on): a
// struct of 32,752 bytes and a pointer, 32,760 bytes in all, passed by value to two
// launches in a row on one stream (the second's parameters must not reach the first), and
// read back at both ends. As cuda-samples' LargeKernelParameter does.
#include "check.cuh"

struct Big {
    int v[8188];
};

__global__ void sum_ends(Big b, long long *out) {
    int t = threadIdx.x;
    // Every thread reads its own slice: the whole struct is read.
    long long s = 0;
    for (int i = t; i < 8188; i += blockDim.x) s += b.v[i];
    atomicAdd((unsigned long long *)out, (unsigned long long)s);
    if (t == 0) out[1] = b.v[0], out[2] = b.v[8187];
}

int main() {
    static_assert(sizeof(Big) + sizeof(long long *) == 32760, "the struct and the pointer");
    static Big a, b;
    long long want_a = 0, want_b = 0;
    for (int i = 0; i < 8188; i++) {
        a.v[i] = i;
        b.v[i] = 3 * i + 1;
        want_a += a.v[i];
        want_b += b.v[i];
    }
    long long *d;
    CHECK(cudaMalloc(&d, 6 * sizeof(long long)));
    CHECK(cudaMemset(d, 0, 6 * sizeof(long long)));
    sum_ends<<<1, 256>>>(a, d);
    CHECK(cudaGetLastError());
    sum_ends<<<1, 256>>>(b, d + 3);
    CHECK(cudaGetLastError());
    long long h[6];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    TRUE(h[0] == want_a && h[1] == 0 && h[2] == 8187);
    TRUE(h[3] == want_b && h[4] == 1 && h[5] == 3 * 8187 + 1);
    printf("large parameters: %zu bytes, sums %lld and %lld\n", sizeof(Big) + sizeof(long long *), h[0], h[3]);
    return report();
}
