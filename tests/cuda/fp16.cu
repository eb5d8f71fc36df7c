// cuda_fp16.h's basics: conversions rounded as IEEE binary16 (exact bit patterns, ties to
// even, subnormals, overflow), the same on host and device, and half arithmetic, half2,
// comparisons and atomicAdd on the device against float references.
#include "check.cuh"
#include <cuda_fp16.h>

__global__ void convert(const float *in, unsigned short *bits, float *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half h = __float2half(in[i]);
        bits[i] = __half_as_ushort(h);
        back[i] = __half2float(h);
    }
}

__global__ void arith(const __half *a, const __half *b, __half *out, int n, __half *sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[4 * i] = a[i] + b[i];
        out[4 * i + 1] = __hmul(a[i], b[i]);
        out[4 * i + 2] = __hfma(a[i], b[i], __float2half(1.0f));
        __half2 p = __hadd2(__halves2half2(a[i], b[i]), __half2half2(__float2half(0.5f)));
        out[4 * i + 3] = __hlt(p.x, p.y) ? p.x : p.y;
        atomicAdd(sum, __float2half(1.0f));
    }
}

int main() {
    const float in[] = {1.0f,       -2.0f,      0.1f, 65504.0f, 65520.0f, 1e9f,       5.9604645e-8f, 1e-9f,
                        1.00048828125f /* 1 + 2^-11: a tie, to even */, 1.00146484375f /* 1 + 3 * 2^-11 */,
                        -0.0f,      6.1035156e-5f /* 2^-14 */,  3.0517578e-5f /* 2^-15: subnormal */};
    const unsigned short want[] = {0x3c00, 0xc000, 0x2e66, 0x7bff, 0x7c00, 0x7c00, 0x0001, 0x0000,
                                   0x3c00, 0x3c02, 0x8000, 0x0400, 0x0200};
    const int n = sizeof in / sizeof in[0];
    float *din, *dback, hback[n];
    unsigned short *dbits, hbits[n];
    CHECK(cudaMalloc(&din, sizeof in));
    CHECK(cudaMalloc(&dback, sizeof in));
    CHECK(cudaMalloc(&dbits, sizeof hbits));
    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    convert<<<1, 32>>>(din, dbits, dback, n);
    CHECK(cudaMemcpy(hbits, dbits, sizeof hbits, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hback, dback, sizeof hback, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        unsigned short host = __half_as_ushort(__float2half(in[i]));
        if (hbits[i] != want[i] || host != want[i]) {
            fprintf(stderr, "%g: device %04x host %04x want %04x\n", in[i], hbits[i], host, want[i]);
            failures++;
        }
        TRUE(hback[i] == __half2float(__ushort_as_half(want[i])));
    }
    TRUE(__half2float(__float2half_rz(65535.0f)) == 65504.0f && __half2float(__float2half_ru(1.0001f)) > 1.0f);

    const int m = 64;
    __half ha[m], hb[m], hout[4 * m];
    for (int i = 0; i < m; i++) {
        ha[i] = __float2half(0.25f * i - 3.0f);
        hb[i] = __float2half(1.5f - 0.125f * i);
    }
    __half *da, *db, *dout, *dsum;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dout, sizeof hout));
    CHECK(cudaMalloc(&dsum, 4));
    CHECK(cudaMemset(dsum, 0, 4));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    arith<<<2, 32>>>(da, db, dout, m, dsum);
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < m; i++) {
        float a = __half2float(ha[i]), b = __half2float(hb[i]);
        float px = __half2float(__float2half(a + 0.5f)), py = __half2float(__float2half(b + 0.5f));
        bad += __half2float(hout[4 * i]) != __half2float(__float2half(a + b));
        bad += __half2float(hout[4 * i + 1]) != __half2float(__float2half(a * b));
        bad += __half2float(hout[4 * i + 2]) != __half2float(__float2half(a * b + 1.0f));
        bad += __half2float(hout[4 * i + 3]) != (px < py ? px : py);
    }
    TRUE(bad == 0);
    __half hs;
    CHECK(cudaMemcpy(&hs, dsum, sizeof hs, cudaMemcpyDeviceToHost));
    TRUE(__half2float(hs) == (float)m);
    return report();
}
