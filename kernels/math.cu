// One output row per function: exact (IEEE) and approximate (documented bounds) math.
extern "C" __global__ void math(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float a = fabsf(v) + 0.5f;
    out[0 * n + i] = sqrtf(a);
    out[1 * n + i] = rsqrtf(a);
    out[2 * n + i] = __expf(v * 0.25f);
    out[3 * n + i] = __logf(a);
    out[4 * n + i] = __sinf(v);
    out[5 * n + i] = __cosf(v);
    out[6 * n + i] = __frcp_rn(a);
    out[7 * n + i] = fminf(v, 0.25f) + fmaxf(v, -0.25f);
    out[8 * n + i] = v / a;
    out[9 * n + i] = (float)(int)(v * 100.0f) + (float)(unsigned)(a * 10.0f);
}
