extern "C" __global__ void warp_reduce(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int d = 16; d > 0; d >>= 1) v += (int)__shfl_down_sync(0xffffffffu, (unsigned)v, d);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
