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
    /* Limits that depend on the architecture, and features rgdev lacks (0), as samples
       read them to decide whether to waive; -1 for an attribute not answered. */
    static const struct {
        const char *name;
        CUdevice_attribute a;
    } maybe[] = {
        {"tex1d", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH},
        {"tex3d_depth", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH},
        {"vmm", CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED},
        {"cooperative", CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH},
        {"numa_id", CU_DEVICE_ATTRIBUTE_NUMA_ID},
        {"global_l1", CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED},
    };
    for (size_t i = 0; i < sizeof maybe / sizeof maybe[0]; i++) {
        int v = -1;
        CUresult r = cuDeviceGetAttribute(&v, maybe[i].a, dev);
        printf("%s %d\n", maybe[i].name, r == CUDA_SUCCESS ? v : -1);
    }
    int answered = 0, v;
    for (int a = 1; a <= 147; a++) {
        answered += cuDeviceGetAttribute(&v, (CUdevice_attribute)a, dev) == CUDA_SUCCESS;
    }
    printf("answered %d of 147\n", answered);
    return 0;
}
