// Inclusive prefix sum of each 256-element block (Hillis-Steele in shared memory).
extern "C" __global__ void scan256(const unsigned *in, unsigned *out, unsigned n) {
    __shared__ unsigned buf[2][256];
    unsigned t = threadIdx.x, i = blockIdx.x * 256 + t;
    int p = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned off = 1; off < 256; off <<= 1) {
        unsigned v = buf[p][t];
        if (t >= off) v += buf[p][t - off];
        buf[p ^ 1][t] = v;
        p ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[p][t];
}
