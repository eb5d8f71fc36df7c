// Non-inlined device functions: parameters, return values, nested calls, a struct by value.
struct Pair { int a; float b; };
extern "C" __device__ __noinline__ int gcd(int a, int b) {
    while (b != 0) { int t = a % b; a = b; b = t; }
    return a;
}
extern "C" __device__ __noinline__ float scale(Pair p, float x) { return p.b * x + (float)gcd(p.a, 12); }
extern "C" __device__ __noinline__ void store_twice(int *out, int i, int v) { out[2 * i] = v; out[2 * i + 1] = -v; }
extern "C" __global__ void calls(const int *in, int *g, float *f, int *pairs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    g[i] = gcd(v, 360);
    Pair p = {v, 0.5f};
    f[i] = scale(p, (float)i);
    if (v & 1) store_twice(pairs, i, v); else store_twice(pairs, i, -v);
}
