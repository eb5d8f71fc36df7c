// Warp matrix functions (nvcuda::wmma) on rgdev's tensor core, checked bit for bit against
// host GEMMs: every shape and type mma.h has (f16 with f32 and f16 accumulators in the
// three shapes, bf16, tf32, s8, u8 with and without saturation, f64), all four layout
// pairs, accumulators loaded and stored in both layouts, fill_fragment, and element-wise
// work on a fragment. The data are small integers (and halves of them), so every product
// and sum is exact and the order of the additions cannot change a bit.
#include <mma.h>
#include <cstring>
#include <vector>

#include "check.cuh"

using namespace nvcuda;

// D = alpha * (A * B + C) for one tile, A and B of layouts LA and LB, C loaded with lc and
// D stored with ld (row- or column-major), leading dimensions the tile's own.
template <typename T> using S = typename wmma::helper_traits<T>::storage_element_type;

template <typename T, typename Acc, int M, int N, int K, typename LA, typename LB>
__global__ void tile(const S<T> *a, const S<T> *b, const Acc *c, Acc *d, wmma::layout_t lc, wmma::layout_t ld, Acc alpha) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, __is_same(LA, wmma::row_major) ? K : M);
    wmma::load_matrix_sync(fb, b, __is_same(LB, wmma::row_major) ? N : K);
    wmma::load_matrix_sync(fc, c, lc == wmma::mem_row_major ? N : M, lc);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] * alpha;
    wmma::store_matrix_sync(d, fc, ld == wmma::mem_row_major ? N : M, ld);
}

// A 64 x 64 x 64 f16 GEMM (f32 accumulate), one warp per 16 x 16 tile of D, as the CUDA
// samples' simple WMMA GEMM is written: K in steps of 16, the accumulator filled with 0.
__global__ void gemm(const __half *a, const __half *b, float *d, int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (n / 16), tn = warp % (n / 16);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * n + k, n);
        wmma::load_matrix_sync(fb, b + tn * 16 * n + k, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}

// The tensor core's throughput: each warp multiplies the same fragments `reps` times
// (A and B all ones: each step adds 16 to every element).
__global__ void chain(float *out, int reps) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(fa, __float2half(1.0f));
    wmma::fill_fragment(fb, __float2half(1.0f));
    wmma::fill_fragment(acc, 0.0f);
    for (int r = 0; r < reps; r++) wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(out + (threadIdx.x / 32) * 256, acc, 16, wmma::mem_row_major);
}

// u8 with saturation: the sum past INT_MAX clamps.
__global__ void saturate(const unsigned char *a, const unsigned char *b, int *d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::fill_fragment(fc, 0x7FFFFF00);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc, true);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
    wmma::fill_fragment(fc, 0x7FFFFF00);
    wmma::mma_sync(fc, fa, fb, fc, false);
    wmma::store_matrix_sync(d + 256, fc, 16, wmma::mem_row_major);
}

__global__ void to_tf32(const float *in, float *out) { out[threadIdx.x] = wmma::__float_to_tf32(in[threadIdx.x]); }

template <typename T> static T *dev(const std::vector<T> &h) {
    T *p;
    CHECK(cudaMalloc(&p, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}
template <typename T> static std::vector<T> host(const T *d, size_t n) {
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

static double val(__half h) { return __half2float(h); }
static double val(__nv_bfloat16 h) { return __bfloat162float(h); }
static double val(float f) { return f; }
static double val(double f) { return f; }
static double val(signed char c) { return c; }
static double val(unsigned char c) { return c; }
static double val(int c) { return c; }
template <typename T> static T make(int v);
template <> __half make<__half>(int v) { return __float2half((float)v * 0.5f); }
template <> __nv_bfloat16 make<__nv_bfloat16>(int v) { return __float2bfloat16((float)v * 0.5f); }
template <> float make<float>(int v) { return (float)v * 0.25f; }
template <> double make<double>(int v) { return v * 0.125; }
template <> signed char make<signed char>(int v) { return (signed char)(v * 7); }
template <> unsigned char make<unsigned char>(int v) { return (unsigned char)(v * 9 + 64); }
template <> int make<int>(int v) { return v * 1000; }

static int failures_at_start;

// One tile configuration: random-ish data, the host's product, the device's, compared.
template <typename T, typename Acc, int M, int N, int K, typename LA, typename LB>
static void check_tile(const char *what, wmma::layout_t lc, wmma::layout_t ld) {
    std::vector<S<T>> a(M * K), b(K * N);
    std::vector<Acc> c(M * N);
    for (int i = 0; i < M * K; i++) a[i] = make<S<T>>((i * 37 + 5) % 11 - 5);
    for (int i = 0; i < K * N; i++) b[i] = make<S<T>>((i * 53 + 3) % 9 - 4);
    for (int i = 0; i < M * N; i++) c[i] = make<Acc>((i * 29 + 1) % 7 - 3);
    bool a_row = __is_same(LA, wmma::row_major), b_row = __is_same(LB, wmma::row_major);
    auto A = [&](int i, int k) { return val(a_row ? a[i * K + k] : a[k * M + i]); };
    auto B = [&](int k, int j) { return val(b_row ? b[k * N + j] : b[j * K + k]); };
    auto C = [&](int i, int j) { return val(lc == wmma::mem_row_major ? c[i * N + j] : c[j * M + i]); };
    S<T> *da = dev(a), *db = dev(b);
    Acc *dc = dev(c), *dd = dev(std::vector<Acc>(M * N));
    Acc alpha = make<Acc>(2);
    tile<T, Acc, M, N, K, LA, LB><<<1, 32>>>(da, db, dc, dd, lc, ld, alpha);
    CHECK(cudaGetLastError());
    std::vector<Acc> d = host(dd, M * N);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = C(i, j);
            for (int k = 0; k < K; k++) s += A(i, k) * B(k, j);
            double want = s * val(alpha);
            double got = val(ld == wmma::mem_row_major ? d[i * N + j] : d[j * M + i]);
            bad += got != want;
        }
    TRUE(bad == 0);
    if (bad) fprintf(stderr, "%s: %d of %d elements differ\n", what, bad, M * N);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dd));
}

template <typename T, typename Acc, int M, int N, int K> static void all_layouts(const char *what) {
    using R = wmma::row_major;
    using Cm = wmma::col_major;
    check_tile<T, Acc, M, N, K, R, R>(what, wmma::mem_row_major, wmma::mem_row_major);
    check_tile<T, Acc, M, N, K, R, Cm>(what, wmma::mem_col_major, wmma::mem_row_major);
    check_tile<T, Acc, M, N, K, Cm, R>(what, wmma::mem_row_major, wmma::mem_col_major);
    check_tile<T, Acc, M, N, K, Cm, Cm>(what, wmma::mem_col_major, wmma::mem_col_major);
}

int main() {
    all_layouts<__half, float, 16, 16, 16>("f16 m16n16k16, f32 accumulator");
    all_layouts<__half, __half, 16, 16, 16>("f16 m16n16k16, f16 accumulator");
    all_layouts<__half, float, 32, 8, 16>("f16 m32n8k16");
    all_layouts<__half, float, 8, 32, 16>("f16 m8n32k16");
    all_layouts<__nv_bfloat16, float, 16, 16, 16>("bf16 m16n16k16");
    all_layouts<__nv_bfloat16, float, 32, 8, 16>("bf16 m32n8k16");
    all_layouts<wmma::precision::tf32, float, 16, 16, 8>("tf32 m16n16k8");
    all_layouts<signed char, int, 16, 16, 16>("s8 m16n16k16");
    all_layouts<unsigned char, int, 8, 32, 16>("u8 m8n32k16");
    all_layouts<double, double, 8, 8, 4>("f64 m8n8k4");

    // The GEMM, against the host.
    const int n = 64;
    std::vector<__half> a(n * n), b(n * n);
    for (int i = 0; i < n * n; i++) {
        a[i] = __float2half((float)((i * 7) % 13 - 6));
        b[i] = __float2half((float)((i * 5) % 11 - 5)); // column-major
    }
    __half *da = dev(a), *db = dev(b);
    float *dd = dev(std::vector<float>(n * n));
    gemm<<<n * n / 256 / 4, 128>>>(da, db, dd, n);
    CHECK(cudaGetLastError());
    std::vector<float> d = host(dd, n * n);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int k = 0; k < n; k++) s += __half2float(a[i * n + k]) * __half2float(b[j * n + k]);
            bad += d[i * n + j] != s;
        }
    TRUE(bad == 0);

    // Eight warps of one block multiplying in a loop.
    float *dchain = dev(std::vector<float>(8 * 256));
    chain<<<1, 256>>>(dchain, 32);
    CHECK(cudaGetLastError());
    std::vector<float> ch = host(dchain, 8 * 256);
    for (float v : ch) TRUE(v == 512.0f);

    // Saturation of the 8-bit integer product.
    std::vector<unsigned char> ua(256, 200), ub(256, 200);
    unsigned char *dua = dev(ua), *dub = dev(ub);
    int *dsat = dev(std::vector<int>(512));
    saturate<<<1, 32>>>(dua, dub, dsat);
    CHECK(cudaGetLastError());
    std::vector<int> sat = host(dsat, 512);
    for (int i = 0; i < 256; i++) {
        TRUE(sat[i] == 0x7FFFFFFF);
        TRUE(sat[256 + i] == (int)(0x7FFFFF00u + 16u * 200u * 200u));
    }

    // tf32 rounding: to nearest, ties away from zero, 13 low bits cleared.
    float in[4] = {1.0f + 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-12f, -(1.0f + 0x1p-10f + 0x1p-11f), 3.0f};
    float want[4] = {1.0f + 0x1p-10f, 1.0f + 0x1p-10f, -(1.0f + 0x1p-9f), 3.0f};
    std::vector<float> vin(in, in + 4);
    float *din = dev(vin), *dout = dev(std::vector<float>(4));
    to_tf32<<<1, 4>>>(din, dout);
    std::vector<float> out = host(dout, 4);
    for (int i = 0; i < 4; i++) TRUE(out[i] == want[i]);
    printf("wmma: 10 shapes and types x 4 layouts, a 64x64x64 f16 GEMM\n");
    return report();
}
