// A sum as fast reductions are written: a grid-stride loop of 16-byte vector loads
// accumulates many elements per thread, warps reduce with shuffles, one atomic per block.
struct __attribute__((aligned(16))) u32x4 {
    unsigned x, y, z, w;
};

extern "C" __global__ void reduce_sum(const unsigned *in, unsigned *out, unsigned n) {
    __shared__ unsigned warp_sums[32];
    unsigned t = threadIdx.x;
    unsigned stride = blockDim.x * gridDim.x;
    unsigned first = blockIdx.x * blockDim.x + t;
    unsigned sum = 0;
    const u32x4 *in4 = (const u32x4 *)in;
    for (unsigned i = first; i < n / 4; i += stride) {
        u32x4 v = in4[i];
        sum += v.x + v.y + v.z + v.w;
    }
    for (unsigned i = n / 4 * 4 + first; i < n; i += stride) sum += in[i];
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if ((t & 31) == 0) warp_sums[t >> 5] = sum;
    __syncthreads();
    if (t < 32) {
        sum = t < (blockDim.x + 31) / 32 ? warp_sums[t] : 0;
        for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
        if (t == 0) atomicAdd(out, sum);
    }
}
