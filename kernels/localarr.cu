// A per-thread array indexed dynamically: lives in .local memory.
extern "C" __global__ void local_array(const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a[16];
    for (int k = 0; k < 16; ++k) a[k] = k * k + i;
    int s = 0;
    for (int k = 0; k < 4; ++k) s += a[(idx[i] + 5 * k) & 15];
    out[i] = s;
}
