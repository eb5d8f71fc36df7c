// __constant__ memory set through cudaMemcpyToSymbol (the template by reference and the
// C entry point by address), a __device__ counter read back with cudaMemcpyFromSymbol,
// symbol addresses and sizes, and symbol errors.
#include "check.cuh"

#define TAPS 7
__constant__ float taps[TAPS];
__constant__ int bias;
__device__ unsigned int calls;
__device__ float table[64];

__global__ void convolve(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int t = 0; t < TAPS; t++) {
        int j = i + t - TAPS / 2;
        if (j >= 0 && j < n) acc += taps[t] * in[j];
    }
    out[i] = acc + (float)bias + table[i % 64];
    atomicAdd(&calls, 1u);
}

int main() {
    const int n = 3000;
    float hin[n], hout[n], htaps[TAPS] = {1, 2, 4, 8, 4, 2, 1}, htable[64];
    for (int i = 0; i < n; i++) hin[i] = (float)(i % 10);
    for (int i = 0; i < 64; i++) htable[i] = (float)i * 0.5f;
    int hbias = -3;
    CHECK(cudaMemcpyToSymbol(taps, htaps, sizeof htaps));
    CHECK(cudaMemcpyToSymbol((const void *)&bias, &hbias, sizeof hbias, 0, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(table, htable, 32 * sizeof(float)));                            // first half
    CHECK(cudaMemcpyToSymbol(table, htable + 32, 32 * sizeof(float), 32 * sizeof(float))); // at an offset

    float *in, *out;
    CHECK(cudaMalloc(&in, sizeof hin));
    CHECK(cudaMalloc(&out, sizeof hout));
    CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    convolve<<<(n + 127) / 128, 128>>>(in, out, n);
    convolve<<<(n + 127) / 128, 128>>>(in, out, n);
    CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int t = 0; t < TAPS; t++) {
            int j = i + t - TAPS / 2;
            if (j >= 0 && j < n) acc += htaps[t] * hin[j];
        }
        bad += hout[i] != acc + hbias + htable[i % 64];
    }
    TRUE(bad == 0);

    unsigned hcalls = 0;
    CHECK(cudaMemcpyFromSymbol(&hcalls, calls, sizeof hcalls));
    TRUE(hcalls == 2 * n);

    // The symbol's device address is ordinary device memory.
    void *addr = nullptr;
    size_t size = 0;
    CHECK(cudaGetSymbolAddress(&addr, table));
    CHECK(cudaGetSymbolSize(&size, table));
    TRUE(addr != nullptr && size == sizeof htable);
    float back[64];
    CHECK(cudaMemcpy(back, addr, sizeof back, cudaMemcpyDeviceToHost));
    TRUE(back[40] == 20.0f);
    CHECK(cudaMemset(addr, 0, sizeof back));
    CHECK(cudaMemcpyFromSymbol(back, table, sizeof back));
    TRUE(back[40] == 0.0f);

    // Past the end of the symbol, and an address that is no registered symbol.
    EXPECT(cudaMemcpyToSymbol(taps, htaps, sizeof htaps, 4), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyToSymbol((const void *)hin, htaps, 4), cudaErrorInvalidSymbol);
    TRUE(cudaGetLastError() == cudaErrorInvalidSymbol);
    return report();
}
