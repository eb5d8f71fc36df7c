// Device printf: every conversion C's printf has that CUDA's supports, printed at the
// next synchronization point (after the host's own earlier output), printf's return value,
// and the FIFO limit (cudaLimitPrintfFifoSize). The expected text is in
// tests/tests/runtime_programs.rs.
#include "check.cuh"

__global__ void conversions(const char *name, int *ret) {
    int t = threadIdx.x;
    int n = printf("[%d] %s: %5.2f|%-4x|%04o|%+lld|%c|%e|%g|%.3s|%%\n", t, name, t * 1.25, 255 + t, 8 * t,
                   -(long long)t << 33, 'a' + t, 1e-3 * t, 100000.0 * (t + 1), "abcdef");
    ret[t] = n;
    if (t == 0) {
        ret[4] = printf("no arguments\n");
        ret[5] = printf("%s|%p|%hhd|%hu|%lu\n", (const char *)0, (void *)0, (signed char)-3, (unsigned short)65535,
                        18446744073709551615ul);
    }
}

__global__ void lines(int base) { printf("line %d\n", base + (int)threadIdx.x); }

int main() {
    // The FIFO is sized before the first printing launch; 2 KiB holds 51 of the records
    // `lines` writes (40 bytes each: docs/runtime-api.md), not more.
    size_t fifo = 0;
    CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    TRUE(fifo == 1 << 20);
    CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2048));
    CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    TRUE(fifo == 2048);

    char *name;
    int *ret, h[6];
    CHECK(cudaMalloc(&name, 8));
    CHECK(cudaMemcpy(name, "gpu", 4, cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&ret, sizeof h));
    conversions<<<1, 4>>>(name, ret);
    printf("host: launched\n");
    CHECK(cudaDeviceSynchronize());
    printf("host: synchronized\n");
    CHECK(cudaMemcpy(h, ret, sizeof h, cudaMemcpyDeviceToHost));
    TRUE(h[0] == 10 && h[3] == 10 && h[4] == 0 && h[5] == 5);

    lines<<<1, 64>>>(0); // 64 records: 13 dropped
    CHECK(cudaDeviceSynchronize());
    EXPECT(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4096), cudaErrorInvalidValue);
    EXPECT(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
    lines<<<1, 2>>>(100); // the FIFO is empty again after each flush
    CHECK(cudaStreamSynchronize(0));
    return report();
}
