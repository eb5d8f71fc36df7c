// PTX mma.sync (the register-level tensor operation, as hand-written and library kernels
// use it through inline assembly) on rgdev's tensor core, checked bit for bit against host
// GEMMs. Each lane places its fragment elements where the PTX ISA's "Matrix Fragments for
// mma" sections put them (g = lane / 4, t = lane % 4), written out here independently of
// the simulator: m16n8k16 f16 (f32 and f16 accumulators) and bf16, m16n8k8 f16 and tf32,
// m16n8k16 and m16n8k32 s8/u8 (wrapping and .satfinite), m8n8k4 f64, and ldmatrix feeding
// it from shared memory. Small integers keep every product and sum exact.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <vector>

#include "check.cuh"

// Element j of lane l's A (16 x K, row-major), B (K x 8) and C/D (16 x 8) fragments.
enum Kind { K16 = 0, K8_F16 = 1, K8_TF32 = 2, I8_K16 = 3, I8_K32 = 4 };
__device__ void a_at(int kind, int l, int j, int &r, int &c) {
    int g = l >> 2, t = l & 3;
    switch (kind) {
    case K16: r = g + 8 * ((j >> 1) & 1); c = 2 * t + (j & 1) + 8 * (j >> 2); break;
    case K8_F16: r = g + 8 * (j >> 1); c = 2 * t + (j & 1); break;
    case K8_TF32: r = g + 8 * (j & 1); c = t + 4 * (j >> 1); break;
    case I8_K16: r = g + 8 * (j >> 2); c = 4 * t + (j & 3); break;
    default: r = g + 8 * ((j >> 2) & 1); c = 4 * t + (j & 3) + 16 * (j >> 3); break;
    }
}
__device__ void b_at(int kind, int l, int j, int &r, int &c) {
    int g = l >> 2, t = l & 3;
    c = g;
    switch (kind) {
    case K16: r = 2 * t + (j & 1) + 8 * (j >> 1); break;
    case K8_F16: r = 2 * t + j; break;
    case K8_TF32: r = t + 4 * j; break;
    case I8_K16: r = 4 * t + j; break;
    default: r = 4 * t + (j & 3) + 16 * (j >> 2); break;
    }
}
__device__ void c_at(int l, int j, int &r, int &c) { r = (l >> 2) + 8 * (j >> 1); c = 2 * (l & 3) + (j & 1); }

// 16-bit A and B: packed pairs, low element first.
template <typename H> __device__ unsigned pack(H lo, H hi) {
    unsigned short a, b;
    memcpy(&a, &lo, 2);
    memcpy(&b, &hi, 2);
    return a | (unsigned)b << 16;
}

// m16n8k16 f16 with f32 accumulators.
__device__ void mma_f16(float *rd, const unsigned *ra, const unsigned *rb, const float *rc) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
}

// f16 or bf16 m16n8k16 (or f16 m16n8k8), f32 accumulate: a 16 x 16, b 16 x 8 (row-major), c and d 16 x 8.
template <typename H> __global__ void k16(const H *a, const H *b, const float *c, float *d, int kind) {
    int l = threadIdx.x, r, col;
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    int na = kind == K16 ? 8 : 4, nb = kind == K16 ? 4 : 2, K = kind == K16 ? 16 : 8;
    for (int j = 0; j < na; j += 2) {
        H e[2];
        for (int h = 0; h < 2; h++) a_at(kind, l, j + h, r, col), e[h] = a[r * K + col];
        ra[j / 2] = pack(e[0], e[1]);
    }
    for (int j = 0; j < nb; j += 2) {
        H e[2];
        for (int h = 0; h < 2; h++) b_at(kind, l, j + h, r, col), e[h] = b[r * 8 + col];
        rb[j / 2] = pack(e[0], e[1]);
    }
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), rc[j] = c[r * 8 + col];
    if (kind == K16 && __is_same(H, __half))
        mma_f16(rd, ra, rb, rc);
    else if (kind == K16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), d[r * 8 + col] = rd[j];
}

// m16n8k16 f16 with f16 accumulators: C and D two registers of packed halves.
__global__ void k16_h(const __half *a, const __half *b, const __half *c, __half *d) {
    int l = threadIdx.x, r, col;
    unsigned ra[4], rb[2], rc[2], rd[2];
    for (int j = 0; j < 8; j += 2) {
        __half e[2];
        for (int h = 0; h < 2; h++) a_at(K16, l, j + h, r, col), e[h] = a[r * 16 + col];
        ra[j / 2] = pack(e[0], e[1]);
    }
    for (int j = 0; j < 4; j += 2) {
        __half e[2];
        for (int h = 0; h < 2; h++) b_at(K16, l, j + h, r, col), e[h] = b[r * 8 + col];
        rb[j / 2] = pack(e[0], e[1]);
    }
    for (int j = 0; j < 4; j += 2) {
        __half e[2];
        for (int h = 0; h < 2; h++) c_at(l, j + h, r, col), e[h] = c[r * 8 + col];
        rc[j / 2] = pack(e[0], e[1]);
    }
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(rd[0]), "=r"(rd[1])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]));
    for (int j = 0; j < 4; j++) {
        c_at(l, j, r, col);
        unsigned short bits = (unsigned short)(rd[j / 2] >> (16 * (j & 1)));
        memcpy(&d[r * 8 + col], &bits, 2);
    }
}

// m16n8k8 tf32: one f32 per register.
__global__ void k8_tf32(const float *a, const float *b, const float *c, float *d) {
    int l = threadIdx.x, r, col;
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    for (int j = 0; j < 4; j++) a_at(K8_TF32, l, j, r, col), ra[j] = __float_as_uint(a[r * 8 + col]);
    for (int j = 0; j < 2; j++) b_at(K8_TF32, l, j, r, col), rb[j] = __float_as_uint(b[r * 8 + col]);
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), rc[j] = c[r * 8 + col];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), d[r * 8 + col] = rd[j];
}

// 8-bit integers: m16n8k16 (kind I8_K16) or m16n8k32, s8 (signed) or u8, wrapping or saturating.
__global__ void k_i8(const unsigned char *a, const unsigned char *b, const int *c, int *d, int kind, int u, int sat) {
    int l = threadIdx.x, r, col, K = kind == I8_K16 ? 16 : 32;
    unsigned ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
    int rc[4], rd[4];
    for (int j = 0; j < K / 2; j++) a_at(kind, l, j, r, col), ra[j / 4] |= (unsigned)a[r * K + col] << (8 * (j & 3));
    for (int j = 0; j < K / 4; j++) b_at(kind, l, j, r, col), rb[j / 4] |= (unsigned)b[r * 8 + col] << (8 * (j & 3));
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), rc[j] = c[r * 8 + col];
#define I8(shape, ty, s, ...)                                                                          \
    asm volatile("mma.sync.aligned." shape ".row.col" s ".s32." ty "." ty ".s32 {%0,%1,%2,%3}, " __VA_ARGS__ \
                 : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])                                  \
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),             \
                   "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]))
#define K16_OPS "{%4,%5}, {%8}, {%10,%11,%12,%13};"
#define K32_OPS "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    if (kind == I8_K16) {
        if (u) I8("m16n8k16", "u8", "", K16_OPS); else I8("m16n8k16", "s8", "", K16_OPS);
    } else if (sat) {
        if (u) I8("m16n8k32", "u8", ".satfinite", K32_OPS); else I8("m16n8k32", "s8", ".satfinite", K32_OPS);
    } else {
        if (u) I8("m16n8k32", "u8", "", K32_OPS); else I8("m16n8k32", "s8", "", K32_OPS);
    }
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), d[r * 8 + col] = rd[j];
}

// m8n8k4 f64: A 8 x 4, B 4 x 8, C and D 8 x 8.
__global__ void k_f64(const double *a, const double *b, const double *c, double *d) {
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    double ra = a[g * 4 + t], rb = b[t * 8 + g], rc[2] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]}, rd[2];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(rd[0]), "=d"(rd[1])
                 : "d"(ra), "d"(rb), "d"(rc[0]), "d"(rc[1]));
    d[g * 8 + 2 * t] = rd[0];
    d[g * 8 + 2 * t + 1] = rd[1];
}

// The same m16n8k16 f16 product with its fragments loaded by ldmatrix from shared memory,
// as library kernels feed mma.sync: A (16 x 16, row-major) by ldmatrix.x4, each lane giving
// the address of row l % 16 at column 8 (l / 16); B (16 x 8, stored k by k) by
// ldmatrix.x2.trans, lane l < 16 giving row k = l; and x1 without .trans for a check of the
// plain layout.
__global__ void k16_ldmatrix(const __half *a, const __half *b, const float *c, float *d, unsigned *plain) {
    __shared__ alignas(16) __half sa[16 * 16];
    __shared__ alignas(16) __half sb[16 * 8];
    int l = threadIdx.x, r, col;
    for (int i = l; i < 256; i += 32) sa[i] = a[i];
    for (int i = l; i < 128; i += 32) sb[i] = b[i];
    __syncwarp();
    unsigned ra[4], rb[2], one;
    float rc[4], rd[4];
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]);
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
                 : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%0}, [%1];" : "=r"(one) : "r"(pb));
    plain[l] = one;
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), rc[j] = c[r * 8 + col];
    mma_f16(rd, ra, rb, rc);
    for (int j = 0; j < 4; j++) c_at(l, j, r, col), d[r * 8 + col] = rd[j];
}

template <typename T> T *dev(const std::vector<T> &h) {
    T *p;
    CHECK(cudaMalloc(&p, h.size() * sizeof(T) + 16));
    CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}
template <typename T> std::vector<T> host(const T *p, size_t n) {
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main() {
    // Small integers: exact in every type.
    auto val = [](int i, int m) { return (float)((i * 7 + 3) % m) - (float)(m / 2); };
    std::vector<float> a(16 * 32), b(32 * 8), c(16 * 8);
    for (size_t i = 0; i < a.size(); i++) a[i] = val(i, 7);
    for (size_t i = 0; i < b.size(); i++) b[i] = val(i + 3, 5);
    for (size_t i = 0; i < c.size(); i++) c[i] = val(i + 1, 9);
    auto gemm = [&](int K) {
        std::vector<float> d(16 * 8);
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 8; j++) {
                float s = c[i * 8 + j];
                for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * 8 + j];
                d[i * 8 + j] = s;
            }
        return d;
    };
    // The first n elements of v, converted by conv, on the device.
    auto conv_dev = [](const std::vector<float> &v, int n, auto conv) {
        std::vector<decltype(conv(0.0f))> h(n);
        for (int i = 0; i < n; i++) h[i] = conv(v[i]);
        return dev(h);
    };
    auto half = [](float x) { return __float2half(x); };
    auto bf16 = [](float x) { return __float2bfloat16(x); };
    int tests = 0;
    float *dc = dev(c), *dd;
    CHECK(cudaMalloc(&dd, 16 * 8 * sizeof(float)));
    for (int kind : {K16, K8_F16}) {
        int K = kind == K16 ? 16 : 8;
        __half *pa = conv_dev(a, 16 * K, half), *pb = conv_dev(b, K * 8, half);
        std::vector<__half> hb = host(pb, K * 8);
        k16<__half><<<1, 32>>>(pa, pb, dc, dd, kind);
        CHECK(cudaDeviceSynchronize());
        TRUE(host(dd, 128) == gemm(K));
        tests++;
        if (kind == K16) {
            k16<__nv_bfloat16><<<1, 32>>>(conv_dev(a, 16 * K, bf16), conv_dev(b, K * 8, bf16), dc, dd, kind);
            CHECK(cudaDeviceSynchronize());
            TRUE(host(dd, 128) == gemm(K));
            tests++;
            // The same through ldmatrix; x1 gives lane l the pair at row l / 4 of B's first
            // 8 rows, columns 2 (l % 4) and the next.
            unsigned *plain;
            CHECK(cudaMalloc(&plain, 32 * sizeof(unsigned)));
            k16_ldmatrix<<<1, 32>>>(pa, pb, dc, dd, plain);
            CHECK(cudaDeviceSynchronize());
            TRUE(host(dd, 128) == gemm(K));
            std::vector<unsigned> pl = host(plain, 32);
            for (int l = 0; l < 32; l++) {
                unsigned short lo, hi;
                memcpy(&lo, &hb[(l / 4) * 8 + 2 * (l % 4)], 2);
                memcpy(&hi, &hb[(l / 4) * 8 + 2 * (l % 4) + 1], 2);
                TRUE(pl[l] == (lo | (unsigned)hi << 16));
            }
            tests++;
            __half *pc = conv_dev(c, 128, half), *pd = conv_dev(c, 128, half);
            k16_h<<<1, 32>>>(pa, pb, pc, pd);
            CHECK(cudaDeviceSynchronize());
            std::vector<__half> got = host(pd, 128);
            std::vector<float> want = gemm(K);
            for (int i = 0; i < 128; i++) TRUE(__half2float(got[i]) == want[i]);
            tests++;
        }
    }
    {
        // tf32: values with low mantissa bits set, which the multiply ignores.
        std::vector<float> ta(16 * 8), tb(8 * 8), ra(16 * 8), rb(8 * 8);
        auto low_bits = [](float x, unsigned bits) {
            unsigned u;
            memcpy(&u, &x, 4);
            u |= x != 0 ? bits : 0;
            memcpy(&x, &u, 4);
            return x;
        };
        for (int i = 0; i < 128; i++) ra[i] = a[i], ta[i] = low_bits(a[i], 0x7FF);
        for (int i = 0; i < 64; i++) rb[i] = b[i], tb[i] = low_bits(b[i], 0x3);
        float *pa = dev(ta), *pb = dev(tb);
        k8_tf32<<<1, 32>>>(pa, pb, dc, dd);
        CHECK(cudaDeviceSynchronize());
        std::vector<float> save_a = a, save_b = b;
        for (int i = 0; i < 128; i++) a[i] = ra[i];
        for (int i = 0; i < 64; i++) b[i] = rb[i];
        TRUE(host(dd, 128) == gemm(8));
        a = save_a, b = save_b;
        tests++;
    }
    {
        std::vector<unsigned char> ia(16 * 32), ib(32 * 8);
        std::vector<int> ic(128);
        for (int i = 0; i < 16 * 32; i++) ia[i] = (unsigned char)(i * 37 + 11);
        for (int i = 0; i < 32 * 8; i++) ib[i] = (unsigned char)(i * 53 + 7);
        for (int i = 0; i < 128; i++) ic[i] = i % 2 ? 0x7FFFFF00 : -1000 * i;
        unsigned char *pa = dev(ia), *pb = dev(ib);
        int *pc = dev(ic), *pd;
        CHECK(cudaMalloc(&pd, 128 * sizeof(int)));
        for (int kind : {I8_K16, I8_K32})
            for (int u = 0; u < 2; u++)
                for (int sat = 0; sat < (kind == I8_K32 ? 2 : 1); sat++) {
                    int K = kind == I8_K16 ? 16 : 32;
                    k_i8<<<1, 32>>>(pa, pb, pc, pd, kind, u, sat);
                    CHECK(cudaDeviceSynchronize());
                    std::vector<int> got = host(pd, 128);
                    for (int i = 0; i < 16; i++)
                        for (int j = 0; j < 8; j++) {
                            long long s = ic[i * 8 + j];
                            for (int k = 0; k < K; k++) {
                                int x = u ? ia[i * K + k] : (signed char)ia[i * K + k];
                                int y = u ? ib[k * 8 + j] : (signed char)ib[k * 8 + j];
                                s += (long long)x * y;
                                if (!sat) s = (int)(unsigned)s;
                            }
                            if (sat) s = s > 2147483647LL ? 2147483647LL : s < -2147483648LL ? -2147483648LL : s;
                            TRUE(got[i * 8 + j] == (int)s);
                        }
                    tests++;
                }
    }
    {
        std::vector<double> fa(32), fb(32), fc(64);
        for (int i = 0; i < 32; i++) fa[i] = val(i, 11) * 0.5, fb[i] = val(i + 5, 7) * 0.25;
        for (int i = 0; i < 64; i++) fc[i] = val(i, 13);
        double *pa = dev(fa), *pb = dev(fb), *pc = dev(fc), *pd = dev(fc);
        k_f64<<<1, 32>>>(pa, pb, pc, pd);
        CHECK(cudaDeviceSynchronize());
        std::vector<double> got = host(pd, 64);
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) {
                double s = fc[i * 8 + j];
                for (int k = 0; k < 4; k++) s += fa[i * 4 + k] * fb[k * 8 + j];
                TRUE(got[i * 8 + j] == s);
            }
        tests++;
    }
    if (failures == 0) printf("mma.sync: %d operations, bit for bit, ldmatrix\n", tests);
    return report();
}
