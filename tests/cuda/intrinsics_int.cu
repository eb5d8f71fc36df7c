// sm_70/sm_80 integer intrinsics and 128-bit integers, on the device against the host:
// __match_any_sync/__match_all_sync (32 and 64 bits), __reduce_{add,min,max,and,or,xor}_sync
// over the warp and over half-warps, __dp4a/__dp2a_lo/__dp2a_hi in each signedness,
// __nanosleep, and unsigned/signed __int128 sums, differences, products, shifts and
// comparisons (which clang compiles to PTX carry chains).
#include "check.cuh"

typedef unsigned __int128 u128;
typedef __int128 i128;

__host__ __device__ static u128 mix(u128 a, u128 b, unsigned k) {
    u128 s = a + b, d = a - b, p = a * b;
    i128 sa = (i128)a, sb = (i128)b;
    u128 q = (u128)(sa * sb + (sa >> 7));
    return s ^ (d << (k % 127)) ^ (p >> (k % 61)) ^ q ^ (u128)(a < b) ^ ((u128)(sa < sb) << 64);
}

__global__ void wide(const unsigned long long *in, unsigned long long *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    u128 a = (u128)in[4 * t + 1] << 64 | in[4 * t];
    u128 b = (u128)in[4 * t + 3] << 64 | in[4 * t + 2];
    u128 r = mix(a, b, (unsigned)t);
    out[2 * t] = (unsigned long long)r;
    out[2 * t + 1] = (unsigned long long)(r >> 64);
}

__global__ void warp(const unsigned *in, unsigned *out) {
    unsigned l = threadIdx.x, v = in[l];
    unsigned *o = out + 16 * l;
    o[0] = __match_any_sync(0xffffffffu, v % 5);
    int pred = 0;
    o[1] = __match_all_sync(0xffffffffu, (unsigned long long)(l / 32) << 40, &pred);
    o[2] = pred;
    o[3] = __match_all_sync(0xffffffffu, (double)(l % 2), &pred);
    o[4] = pred;
    unsigned half = l < 16 ? 0x0000ffffu : 0xffff0000u;
    o[5] = __reduce_add_sync(0xffffffffu, v);
    o[6] = (unsigned)__reduce_min_sync(half, (int)v);
    o[7] = __reduce_max_sync(half, v);
    o[8] = __reduce_and_sync(0xffffffffu, v | 0x100u);
    o[9] = __reduce_or_sync(half, v);
    o[10] = __reduce_xor_sync(0xffffffffu, v);
    __nanosleep(50);
    o[11] = (unsigned)__dp4a((int)v, (int)(v * 2654435761u), -7);
    o[12] = __dp4a(v, v * 2654435761u, 7u);
    o[13] = (unsigned)__dp2a_lo((int)v, (int)(v ^ 0x5a5a5a5au), 3);
    o[14] = __dp2a_hi(v, v ^ 0x5a5a5a5au, 3u);
    o[15] = (unsigned)__dp4a(make_char4(-1, 2, -3, 4), make_char4(5, -6, 7, -8), 100);
}

int main() {
    const int n = 256;
    static unsigned long long in[4 * n], out[2 * n];
    unsigned long long x = 0x243f6a8885a308d3ull;
    for (int i = 0; i < 4 * n; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        in[i] = x * 2685821657736338717ull;
        if (i % 16 == 3) in[i] = ~0ull; // carries through every word
    }
    unsigned long long *din, *dout;
    CHECK(cudaMalloc(&din, sizeof in));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    wide<<<n / 64, 64>>>(din, dout, n);
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < n; t++) {
        u128 a = (u128)in[4 * t + 1] << 64 | in[4 * t], b = (u128)in[4 * t + 3] << 64 | in[4 * t + 2];
        u128 r = mix(a, b, (unsigned)t);
        bad += out[2 * t] != (unsigned long long)r || out[2 * t + 1] != (unsigned long long)(r >> 64);
    }
    TRUE(bad == 0);

    unsigned hv[32], ho[32 * 16], *dv, *dw;
    for (int l = 0; l < 32; l++) hv[l] = (unsigned)(in[l] >> 7);
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&dw, sizeof ho));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    warp<<<1, 32>>>(dv, dw);
    CHECK(cudaMemcpy(ho, dw, sizeof ho, cudaMemcpyDeviceToHost));
    auto byte = [](unsigned v, int k, bool s) { return s ? (int)(signed char)(v >> (8 * k)) : (int)(unsigned char)(v >> (8 * k)); };
    auto half16 = [](unsigned v, int k, bool s) { return s ? (int)(short)(v >> (16 * k)) : (int)(unsigned short)(v >> (16 * k)); };
    for (int l = 0; l < 32; l++) {
        const unsigned *o = ho + 16 * l, v = hv[l];
        unsigned any = 0, sum = 0, andv = ~0u, xorv = 0, orh = 0, maxh = 0;
        int minh = 0x7fffffff;
        for (int j = 0; j < 32; j++) {
            if (hv[j] % 5 == v % 5) any |= 1u << j;
            sum += hv[j], andv &= hv[j] | 0x100u, xorv ^= hv[j];
            if ((j < 16) == (l < 16)) {
                orh |= hv[j];
                maxh = hv[j] > maxh ? hv[j] : maxh;
                minh = (int)hv[j] < minh ? (int)hv[j] : minh;
            }
        }
        TRUE(o[0] == any);
        TRUE(o[1] == 0xffffffffu && o[2] == 1 && o[3] == 0 && o[4] == 0);
        TRUE(o[5] == sum && o[6] == (unsigned)minh && o[7] == maxh && o[8] == andv && o[9] == orh && o[10] == xorv);
        unsigned w = v * 2654435761u, z = v ^ 0x5a5a5a5au;
        int d4s = -7, d2l = 3;
        unsigned d4u = 7, d2h = 3;
        for (int k = 0; k < 4; k++) d4s += byte(v, k, true) * byte(w, k, true), d4u += byte(v, k, false) * byte(w, k, false);
        for (int k = 0; k < 2; k++) d2l += half16(v, k, true) * byte(z, k, true), d2h += half16(v, k, false) * byte(z, k + 2, false);
        TRUE(o[11] == (unsigned)d4s && o[12] == d4u && o[13] == (unsigned)d2l && o[14] == d2h);
        TRUE((int)o[15] == 100 + (-1 * 5) + (2 * -6) + (-3 * 7) + (4 * -8));
    }
    return report();
}
