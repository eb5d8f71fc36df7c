__constant__ float coeffs[8];
extern "C" __global__ void poly(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 7; k >= 0; --k) acc = acc * x[i] + coeffs[k];
    y[i] = acc;
}
// Dynamic shared memory: reverse each block's elements through a buffer sized at launch.
extern "C" __global__ void reverse_block(const int *in, int *out) {
    extern __shared__ int buf[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    buf[t] = in[base + t];
    __syncthreads();
    out[base + t] = buf[blockDim.x - 1 - t];
}
