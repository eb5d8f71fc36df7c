// cuda_pipeline.h's primitives over PTX cp.async: a block stages tiles of a global array
// into shared memory two ahead (double buffering with __pipeline_commit and
// __pipeline_wait_prior), in copies of 16, 8 and 4 bytes, some with zfill (the trailing
// bytes zeros, never read from global memory: the last tile's copy reads nothing past the
// array's end), and sums each tile; checked against the host.
#include "check.cuh"
#include <cuda_pipeline.h>

#define TILE 256 /* ints per tile: 64 threads x 4 */

__global__ void staged_sums(const int *in, int ntiles, int last_len, int *sums) {
    __shared__ __align__(16) int buf[2][TILE];
    int t = threadIdx.x;
    auto issue = [&](int tile) {
        int *dst = &buf[tile & 1][4 * t];
        const int *src = in + tile * TILE + 4 * t;
        int len = tile == ntiles - 1 ? last_len : TILE; // ints valid in this tile
        int mine = len - 4 * t;                         // of this thread's 4
        mine = mine < 0 ? 0 : mine > 4 ? 4 : mine;
        if (t % 3 == 0) {
            __pipeline_memcpy_async(dst, src, 16, 16 - 4 * mine);
        } else if (t % 3 == 1) {
            __pipeline_memcpy_async(dst, src, 8, mine >= 2 ? 0 : 8 - 4 * mine);
            __pipeline_memcpy_async(dst + 2, src + 2, 8, mine >= 4 ? 0 : mine <= 2 ? 8 : 8 - 4 * (mine - 2));
        } else {
            for (int k = 0; k < 4; k++) __pipeline_memcpy_async(dst + k, src + k, 4, k < mine ? 0 : 4);
        }
        __pipeline_commit();
    };
    issue(0);
    for (int tile = 0; tile < ntiles; tile++) {
        if (tile + 1 < ntiles) {
            issue(tile + 1);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        if (t == 0) {
            int s = 0;
            for (int k = 0; k < TILE; k++) s += buf[tile & 1][k] * (k + 1);
            sums[tile] = s;
        }
        __syncthreads();
    }
}

int main() {
    const int ntiles = 6, last_len = 100, n = (ntiles - 1) * TILE + last_len;
    int *h = new int[n], hs[ntiles];
    for (int i = 0; i < n; i++) h[i] = (i * 37) % 101 - 50;
    int *din, *dsums;
    // Exactly n ints: a copy past the end would fault.
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dsums, sizeof hs));
    CHECK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
    staged_sums<<<1, 64>>>(din, ntiles, last_len, dsums);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hs, dsums, sizeof hs, cudaMemcpyDeviceToHost));
    for (int tile = 0; tile < ntiles; tile++) {
        int s = 0, len = tile == ntiles - 1 ? last_len : TILE;
        for (int k = 0; k < len; k++) s += h[tile * TILE + k] * (k + 1);
        if (hs[tile] != s) fprintf(stderr, "tile %d: %d, want %d\n", tile, hs[tile], s);
        TRUE(hs[tile] == s);
    }
    printf("%d tiles staged\n", ntiles);
    delete[] h;
    return report();
}
