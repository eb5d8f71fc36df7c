/* Host copies through the Runtime API as a program makes them: cudaMemcpy from and to pinned
 * memory (cudaMallocHost) and pageable memory (malloc), 16 MiB each way, timed with events.
 * Prints `RATE key GB/s` for each and checks that every copy moved the right bytes. */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "check.cuh"

int main() {
    const size_t bytes = 16u << 20;
    uint8_t *dev, *pinned, *pageable = (uint8_t *)malloc(bytes);
    CHECK(cudaMalloc(&dev, bytes));
    CHECK(cudaMallocHost(&pinned, bytes));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    struct Case {
        const char *key;
        uint8_t *host;
        bool h2d;
    } cases[] = {{"memcpy_htod_pinned", pinned, true},
                 {"memcpy_dtoh_pinned", pinned, false},
                 {"memcpy_htod_pageable", pageable, true},
                 {"memcpy_dtoh_pageable", pageable, false}};
    uint8_t seed = 1;
    for (auto &c : cases) {
        if (c.h2d) {
            for (size_t i = 0; i < bytes; i++) c.host[i] = (uint8_t)(i * 7 + seed);
        } else {
            memset(c.host, 0, bytes);
        }
        CHECK(cudaEventRecord(a));
        if (c.h2d) CHECK(cudaMemcpy(dev, c.host, bytes, cudaMemcpyHostToDevice));
        else CHECK(cudaMemcpy(c.host, dev, bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        printf("RATE %s %.3f\n", c.key, bytes / (ms * 1e6));
        if (c.h2d) {
            // What went to the device comes back (through the other kind of memory).
            uint8_t *other = c.host == pinned ? pageable : pinned;
            memset(other, 0, bytes);
            CHECK(cudaMemcpy(other, dev, bytes, cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (size_t i = 0; i < bytes; i++) bad += other[i] != (uint8_t)(i * 7 + seed);
            TRUE(bad == 0);
        } else {
            size_t bad = 0;
            for (size_t i = 0; i < bytes; i++) bad += c.host[i] != (uint8_t)(i * 7 + seed);
            TRUE(bad == 0);
        }
        seed += c.h2d ? 0 : 1;
    }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(dev));
    free(pageable);
    return report();
}
