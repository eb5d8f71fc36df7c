/* Prints device attributes that follow the preset, one "NAME VALUE" per line. */
#include <cuda.h>
#include <stdio.h>

#include "check.h"

int main(void) {
    CUdevice dev;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    int major = 0, minor = 0;
    CHECK(cuDeviceComputeCapability(&major, &minor, dev));
    printf("cc %d.%d\n", major, minor);
    static const struct {
        const char *name;
        CUdevice_attribute a;
    } attrs[] = {
        {"sms", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {"clock_khz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
        {"l2_bytes", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
        {"mem_clock_khz", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
        {"bus_bits", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
        {"threads_per_sm", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {"concurrent_kernels", CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int v = -1;
        CHECK(cuDeviceGetAttribute(&v, attrs[i].a, dev));
        printf("%s %d\n", attrs[i].name, v);
    }
    return 0;
}
