// C++ in kernels: templates over types and values, functors, device lambdas, classes
// with device member functions and operators, __host__ __device__ functions computed on
// both sides, namespaces and static shared arrays sized by a template parameter.
#include "check.cuh"

namespace geom {
struct Vec2 {
    float x, y;
    __host__ __device__ Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
    __host__ __device__ Vec2 operator*(float s) const { return {x * s, y * s}; }
    __host__ __device__ float dot(Vec2 o) const { return x * o.x + y * o.y; }
};
} // namespace geom

__host__ __device__ inline unsigned hash(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}

struct Square {
    template <class T> __device__ T operator()(T v) const { return v * v; }
};

template <class T, class Op> __global__ void map(const T *in, T *out, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(in[i]);
}

/* A block-wide sum whose shared array's size is a template parameter. */
template <int BLOCK, class T> __global__ void block_sum(const T *in, T *out) {
    __shared__ T s[BLOCK];
    s[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void vec_ops(const geom::Vec2 *a, const geom::Vec2 *b, float *dots, unsigned *hashes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    geom::Vec2 v = (a[i] + b[i]) * 0.5f;
    dots[i] = v.dot(a[i]);
    hashes[i] = hash((unsigned)i);
}

int main() {
    const int n = 1000;
    int hi[n], ho[n];
    double hd[n], hdo[n];
    for (int i = 0; i < n; i++) {
        hi[i] = i - 500;
        hd[i] = i * 0.25;
    }
    int *di, *dio;
    double *dd, *ddo;
    CHECK(cudaMalloc(&di, sizeof hi));
    CHECK(cudaMalloc(&dio, sizeof hi));
    CHECK(cudaMalloc(&dd, sizeof hd));
    CHECK(cudaMalloc(&ddo, sizeof hd));
    CHECK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice));

    map<<<4, 256>>>(di, dio, n, Square());
    map<<<4, 256>>>(dd, ddo, n, [] __device__(double v) { return v * 3.0 + 1.0; });
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ho, dio, sizeof ho, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hdo, ddo, sizeof hdo, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += ho[i] != hi[i] * hi[i] || hdo[i] != hd[i] * 3.0 + 1.0;
    TRUE(bad == 0);

    // 8 blocks of 128 and 4 of 256 over the same 1024 floats.
    float hf[1024], sums[8];
    for (int i = 0; i < 1024; i++) hf[i] = (float)(i % 17);
    float *df, *ds;
    CHECK(cudaMalloc(&df, sizeof hf));
    CHECK(cudaMalloc(&ds, sizeof sums));
    CHECK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice));
    block_sum<128><<<8, 128>>>(df, ds);
    CHECK(cudaMemcpy(sums, ds, sizeof sums, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 8; b++) {
        float want = 0;
        for (int i = 0; i < 128; i++) want += hf[b * 128 + i];
        TRUE(sums[b] == want);
    }
    block_sum<256, float><<<4, 256>>>(df, ds);
    CHECK(cudaMemcpy(sums, ds, 4 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < 4; b++) {
        float want = 0;
        for (int i = 0; i < 256; i++) want += hf[b * 256 + i];
        TRUE(sums[b] == want);
    }

    geom::Vec2 ha[n], hb[n];
    for (int i = 0; i < n; i++) {
        ha[i] = {(float)i, 1.0f};
        hb[i] = {2.0f, (float)(n - i)};
    }
    geom::Vec2 *da, *db;
    float *ddot, hdot[n];
    unsigned *dh, hh[n];
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&ddot, sizeof hdot));
    CHECK(cudaMalloc(&dh, sizeof hh));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    vec_ops<<<(n + 127) / 128, 128>>>(da, db, ddot, dh, n);
    CHECK(cudaMemcpy(hdot, ddot, sizeof hdot, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hh, dh, sizeof hh, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) {
        geom::Vec2 v = (ha[i] + hb[i]) * 0.5f;
        // The device may contract x * o.x + y * o.y into an FMA: allow its rounding.
        float want = v.dot(ha[i]);
        float diff = hdot[i] - want;
        bad += (diff < 0 ? -diff : diff) > 1e-6f * (want < 0 ? -want : want) + 1e-6f;
        bad += hh[i] != hash((unsigned)i);
    }
    TRUE(bad == 0);
    return report();
}
