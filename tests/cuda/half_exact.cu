// cuda_fp16.h and cuda_bf16.h bit for bit: every operation of both formats on the device
// (PTX .f16/.f16x2/.bf16/.bf16x2, executed by the simulated GPU) against the host's
// (exact double arithmetic rounded once), over special values and pseudo-random operands:
// arithmetic with _rn/_sat/_relu, division, fma, min/max (_nan), neg/abs, comparisons
// (scalar, pair, mask), conversions to and from float, double and integers with every
// rounding, pairs, atomicAdd, shuffles. A few results are also checked against values
// worked out by hand (ties, subnormals, overflow). Built as well with -use_fast_math.
#include "check.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__host__ __device__ static unsigned bits32(float f) {
    unsigned u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}

// Results per operand pair, one 16-bit word each (32-bit results take two).
#define NOUT 96

template <class T, class T2> struct Ops {
    __host__ __device__ static T mk(unsigned short b);
    __host__ __device__ static unsigned short bits(T h);
};
template <> struct Ops<__half, __half2> {
    __host__ __device__ static __half mk(unsigned short b) { return __ushort_as_half(b); }
    __host__ __device__ static unsigned short bits(__half h) { return __half_as_ushort(h); }
    __host__ __device__ static __half from_float(float f, int m) {
        return m == 0 ? __float2half_rn(f) : m == 1 ? __float2half_rz(f) : m == 2 ? __float2half_rd(f) : __float2half_ru(f);
    }
    __host__ __device__ static float to_float(__half h) { return __half2float(h); }
    __host__ __device__ static __half from_double(double d) { return __double2half(d); }
    __host__ __device__ static int to_int(__half h, int m) {
        return m == 0 ? __half2int_rn(h) : m == 1 ? __half2int_rz(h) : m == 2 ? __half2int_rd(h) : __half2int_ru(h);
    }
    __host__ __device__ static unsigned short to_ushort(__half h, int m) {
        return m == 0 ? __half2ushort_rn(h) : m == 1 ? __half2ushort_rz(h) : m == 2 ? __half2ushort_rd(h) : __half2ushort_ru(h);
    }
    __host__ __device__ static long long to_ll(__half h) { return __half2ll_rd(h); }
    __host__ __device__ static __half from_int(int i, int m) {
        return m == 0 ? __int2half_rn(i) : m == 1 ? __int2half_rz(i) : m == 2 ? __int2half_rd(i) : __int2half_ru(i);
    }
    __host__ __device__ static __half from_ull(unsigned long long i) { return __ull2half_rn(i); }
    __host__ __device__ static __half from_ll(long long i) { return __ll2half_ru(i); }
    __host__ __device__ static signed char to_char(__half h) { return __half2char_rz(h); }
};
template <> struct Ops<__nv_bfloat16, __nv_bfloat162> {
    __host__ __device__ static __nv_bfloat16 mk(unsigned short b) { return __ushort_as_bfloat16(b); }
    __host__ __device__ static unsigned short bits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
    __host__ __device__ static __nv_bfloat16 from_float(float f, int m) {
        return m == 0 ? __float2bfloat16_rn(f) : m == 1 ? __float2bfloat16_rz(f) : m == 2 ? __float2bfloat16_rd(f) : __float2bfloat16_ru(f);
    }
    __host__ __device__ static float to_float(__nv_bfloat16 h) { return __bfloat162float(h); }
    __host__ __device__ static __nv_bfloat16 from_double(double d) { return __double2bfloat16(d); }
    __host__ __device__ static int to_int(__nv_bfloat16 h, int m) {
        return m == 0 ? __bfloat162int_rn(h) : m == 1 ? __bfloat162int_rz(h) : m == 2 ? __bfloat162int_rd(h) : __bfloat162int_ru(h);
    }
    __host__ __device__ static unsigned short to_ushort(__nv_bfloat16 h, int m) {
        return m == 0 ? __bfloat162ushort_rn(h) : m == 1 ? __bfloat162ushort_rz(h) : m == 2 ? __bfloat162ushort_rd(h) : __bfloat162ushort_ru(h);
    }
    __host__ __device__ static long long to_ll(__nv_bfloat16 h) { return __bfloat162ll_rd(h); }
    __host__ __device__ static __nv_bfloat16 from_int(int i, int m) {
        return m == 0 ? __int2bfloat16_rn(i) : m == 1 ? __int2bfloat16_rz(i) : m == 2 ? __int2bfloat16_rd(i) : __int2bfloat16_ru(i);
    }
    __host__ __device__ static __nv_bfloat16 from_ull(unsigned long long i) { return __ull2bfloat16_rn(i); }
    __host__ __device__ static __nv_bfloat16 from_ll(long long i) { return __ll2bfloat16_ru(i); }
    __host__ __device__ static signed char to_char(__nv_bfloat16 h) { return __bfloat162char_rz(h); }
};

// Every result for operands (a, b, c) into out[0..NOUT).
template <class T, class T2>
__host__ __device__ void compute(unsigned short ab, unsigned short bb, unsigned short cb, float f, long long i,
                                 unsigned short *out) {
    typedef Ops<T, T2> O;
    T a = O::mk(ab), b = O::mk(bb), c = O::mk(cb);
    int k = 0;
#define PUT(h) out[k++] = O::bits(h)
#define PUT32(u)                                                                                       \
    do {                                                                                               \
        unsigned int u_ = (unsigned int)(u);                                                           \
        out[k++] = (unsigned short)u_;                                                                 \
        out[k++] = (unsigned short)(u_ >> 16);                                                         \
    } while (0)
    PUT(__hadd(a, b));
    PUT(__hsub(a, b));
    PUT(__hmul(a, b));
    PUT(__hdiv(a, b));
    PUT(__hfma(a, b, c));
    PUT(__hadd_sat(a, b));
    PUT(__hsub_sat(a, b));
    PUT(__hmul_sat(a, b));
    PUT(__hfma_sat(a, b, c));
    PUT(__hfma_relu(a, b, c));
    PUT(__hmin(a, b));
    PUT(__hmax(a, b));
    PUT(__hmin_nan(a, b));
    PUT(__hmax_nan(a, b));
    PUT(__hneg(a));
    PUT(__habs(b));
    PUT(a + b * c);
    PUT(-a / c);
    out[k++] = __heq(a, b) | __hne(a, b) << 1 | __hlt(a, b) << 2 | __hle(a, b) << 3 | __hgt(a, b) << 4 |
               __hge(a, b) << 5 | __hequ(a, b) << 6 | __hneu(a, b) << 7 | __hltu(a, b) << 8 | __hleu(a, b) << 9 |
               __hgtu(a, b) << 10 | __hgeu(a, b) << 11 | __hisnan(a) << 12 | (__hisinf(a) & 3) << 13 |
               (a < b) << 15;
    // Pairs: (a, b) op (b, c).
    T2 p(a, b), q(b, c), r;
    r = __hadd2(p, q);
    PUT(r.x);
    PUT(r.y);
    r = __hmul2(p, q);
    PUT(r.x);
    PUT(r.y);
    r = __hfma2(p, q, T2(c, a));
    PUT(r.x);
    PUT(r.y);
    r = __hsub2_sat(p, q);
    PUT(r.x);
    PUT(r.y);
    r = __hfma2_relu(p, q, T2(c, a));
    PUT(r.x);
    PUT(r.y);
    r = __hmax2_nan(p, q);
    PUT(r.x);
    PUT(r.y);
    r = __hmin2(p, q);
    PUT(r.x);
    PUT(r.y);
    r = __hneg2(p);
    PUT(r.x);
    PUT(r.y);
    r = __h2div(p, q);
    PUT(r.x);
    PUT(r.y);
    r = __hcmadd(p, q, T2(c, c));
    PUT(r.x);
    PUT(r.y);
    r = __hlt2(p, q);
    PUT(r.x);
    PUT(r.y);
    PUT32(__hgeu2_mask(p, q));
    out[k++] = __hbeq2(p, q) | __hbltu2(p, q) << 1 | (p == q) << 2 | (p < q) << 3;
    // Conversions.
    for (int m = 0; m < 4; m++) PUT(O::from_float(f, m));
    PUT32(bits32(O::to_float(a)));
    PUT(O::from_double((double)f * 1.0000001));
    for (int m = 0; m < 4; m++) PUT32(O::to_int(c, m));
    for (int m = 0; m < 4; m++) out[k++] = O::to_ushort(b, m);
    long long ll = O::to_ll(a);
    PUT32(ll);
    PUT32(ll >> 32);
    for (int m = 0; m < 4; m++) PUT(O::from_int((int)i, m));
    PUT(O::from_ull((unsigned long long)i * 3));
    PUT(O::from_ll(i));
    out[k++] = (unsigned char)O::to_char(b);
    // Constructors and conversion operators.
    PUT(T(f));
    PUT(T((double)f));
    PUT(T((int)i));
    PUT32(bits32((float)a));
    while (k < NOUT) out[k++] = 0;
#undef PUT
#undef PUT32
}

struct Case {
    unsigned short a[2], b[2], c[2];
    float f;
    long long i;
};

template <class T, class T2> __global__ void device_compute(const Case *cs, int fmt, unsigned short *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        const Case &c = cs[t];
        compute<T, T2>(c.a[fmt], c.b[fmt], c.c[fmt], c.f, c.i, out + (size_t)t * NOUT);
    }
}

// atomicAdd of halves and pairs and shuffles.
__global__ void atomics(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2, __half *shfl) {
    atomicAdd(h, __float2half(0.5f));
    atomicAdd(h2, __floats2half2_rn(1.0f, -0.25f));
    atomicAdd(b, __float2bfloat16(2.0f));
    atomicAdd(b2, __floats2bfloat162_rn(0.5f, 4.0f));
    __half v = __int2half_rn((int)threadIdx.x);
    shfl[threadIdx.x] = __shfl_down_sync(0xffffffffu, v, 1) + __shfl_xor_sync(0xffffffffu, v, 2);
}

static unsigned rng = 12345;
static unsigned next() {
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

// Special operands: zeros, ones, the largest and smallest values, subnormals, infinities,
// NaNs, values one unit off a power of two, ties.
static const unsigned short special_h[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x0001, 0x8001,
                                           0x03ff, 0x0400, 0x7c00, 0xfc00, 0x7e00, 0x7fff, 0x3bff, 0x3c01,
                                           0x3e00, 0x4000, 0x5bff, 0x0200};
static const unsigned short special_b[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x0001, 0x8001,
                                           0x007f, 0x0080, 0x7f80, 0xff80, 0x7fc0, 0x7fff, 0x3f7f, 0x3f81,
                                           0x3fc0, 0x4000, 0x5f7f, 0x0040};

int main() {
    const int n = 2048, ns = sizeof special_h / sizeof special_h[0];
    static Case cs[n];
    static const float fs[] = {1.0f, 0.1f, 65520.0f, 65519.99f, 1e-8f, 2.98023224e-8f, 3.0e38f, -0.0f,
                               1.00048828125f, 1.0f + 1.0f / 256, 1.0f + 1.0f / 512, -1.5e-41f};
    for (int t = 0; t < n; t++) {
        Case &c = cs[t];
        for (int fmt = 0; fmt < 2; fmt++) {
            const unsigned short *sp = fmt ? special_b : special_h;
            unsigned short *ops[3] = {&c.a[fmt], &c.b[fmt], &c.c[fmt]};
            for (int o = 0; o < 3; o++) {
                unsigned x = next();
                // A quarter special values, the rest random bit patterns (finite mostly).
                *ops[o] = (x & 3) == 0 ? sp[(x >> 2) % ns] : (unsigned short)(x >> 4);
            }
            if (t < ns * ns) {
                c.a[fmt] = sp[t / ns];
                c.b[fmt] = sp[t % ns];
            }
        }
        unsigned x = next();
        if (t < (int)(sizeof fs / sizeof fs[0])) {
            c.f = fs[t];
        } else {
            unsigned u = next() << 8 | (x & 0xff);
            memcpy(&c.f, &u, 4);
        }
        c.i = (long long)((unsigned long long)next() << 40 ^ (unsigned long long)next() << 8 ^ next());
        if (t % 3 == 0) c.i = (int)(next() % 200000) - 100000;
    }
    Case *dcs;
    unsigned short *dout;
    CHECK(cudaMalloc(&dcs, sizeof cs));
    CHECK(cudaMalloc(&dout, (size_t)n * NOUT * 2));
    CHECK(cudaMemcpy(dcs, cs, sizeof cs, cudaMemcpyHostToDevice));
    static unsigned short dev[n * NOUT], host[NOUT];
    const char *names[2] = {"half", "bfloat16"};
    for (int fmt = 0; fmt < 2; fmt++) {
        if (fmt == 0)
            device_compute<__half, __half2><<<n / 128, 128>>>(dcs, fmt, dout, n);
        else
            device_compute<__nv_bfloat16, __nv_bfloat162><<<n / 128, 128>>>(dcs, fmt, dout, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(dev, dout, sizeof dev, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int t = 0; t < n; t++) {
            const Case &c = cs[t];
            if (fmt == 0)
                compute<__half, __half2>(c.a[0], c.b[0], c.c[0], c.f, c.i, host);
            else
                compute<__nv_bfloat16, __nv_bfloat162>(c.a[1], c.b[1], c.c[1], c.f, c.i, host);
            for (int k = 0; k < NOUT; k++) {
                if (dev[t * NOUT + k] != host[k] && bad++ < 10)
                    fprintf(stderr, "%s case %d (a %04x b %04x c %04x f %a i %lld) result %d: device %04x host %04x\n",
                            names[fmt], t, c.a[fmt], c.b[fmt], c.c[fmt], c.f, c.i, k, dev[t * NOUT + k], host[k]);
            }
        }
        TRUE(bad == 0);
        printf("%s: %d cases x %d results, %d differ\n", names[fmt], n, NOUT, bad);
    }

    // Hand-worked values: ties to even, a tie broken by an fma's addend, overflow, NaN.
    TRUE(__half_as_ushort(__hfma(__ushort_as_half(0x3c01), __ushort_as_half(0x3e00), __ushort_as_half(0x8001))) == 0x3e01);
    TRUE(__half_as_ushort(__hfma(__ushort_as_half(0x3c01), __ushort_as_half(0x3e00), __ushort_as_half(0x0000))) == 0x3e02);
    TRUE(__bfloat16_as_ushort(__hfma(__ushort_as_bfloat16(0x3f81), __ushort_as_bfloat16(0x3fc0),
                                     __ushort_as_bfloat16(0x8001))) == 0x3fc1);
    TRUE(__half_as_ushort(__hadd(__ushort_as_half(0x7bff), __ushort_as_half(0x5000))) == 0x7c00);
    TRUE(__half_as_ushort(__hsub(CUDART_INF_FP16, CUDART_INF_FP16)) == 0x7fff);
    TRUE(__bfloat16_as_ushort(__float2bfloat16(1.0f + 1.0f / 256)) == 0x3f80);
    TRUE(__bfloat16_as_ushort(__float2bfloat16_ru(1.0f + 1.0f / 1024)) == 0x3f81);
    TRUE(__half_as_ushort(__ull2half_rn(2049)) == 0x6800 && __half_as_ushort(__int2half_rn(2051)) == 0x6802);
    TRUE(__half2int_rn(__float2half(2.5f)) == 2 && __half2int_rd(__float2half(-2.5f)) == -3);
    TRUE(__bfloat162int_rz(CUDART_INF_BF16) == 2147483647 && __half2ushort_rn(__float2half(-3.0f)) == 0);

    __half *h, hh;
    __half2 *h2, hh2;
    __nv_bfloat16 *b, hb;
    __nv_bfloat162 *b2, hb2;
    __half *sh, hsh[32];
    CHECK(cudaMalloc(&h, 2));
    CHECK(cudaMalloc(&h2, 4));
    CHECK(cudaMalloc(&b, 2));
    CHECK(cudaMalloc(&b2, 4));
    CHECK(cudaMalloc(&sh, sizeof hsh));
    CHECK(cudaMemset(h, 0, 2));
    CHECK(cudaMemset(h2, 0, 4));
    CHECK(cudaMemset(b, 0, 2));
    CHECK(cudaMemset(b2, 0, 4));
    atomics<<<2, 32>>>(h, h2, b, b2, sh);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&hh, h, 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hh2, h2, 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hb, b, 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hb2, b2, 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hsh, sh, sizeof hsh, cudaMemcpyDeviceToHost));
    TRUE(__half2float(hh) == 32.0f && __low2float(hh2) == 64.0f && __high2float(hh2) == -16.0f);
    TRUE(__bfloat162float(hb) == 128.0f && __low2float(hb2) == 32.0f && __high2float(hb2) == 256.0f);
    for (int l = 0; l < 32; l++) TRUE(__half2float(hsh[l]) == (float)((l < 31 ? l + 1 : l) + (l ^ 2)));
    return report();
}
