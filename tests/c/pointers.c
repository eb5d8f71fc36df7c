/*
 * Pointer attributes through libcuda.so.1: the owning context, memory types, ranges,
 * buffer ids (unique, and new after a free), pinned host memory by host address (from any
 * context) and by device address, cuPointerGetAttributes' empty values for an unknown
 * address, and the errors. Device addresses are looked up in the current context: rgdev
 * has no unified addressing yet, and two contexts' allocations can share an address.
 * Run by tests/tests/c_abi.rs:  pointers
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

static unsigned long long buffer_id(CUdeviceptr p) {
    unsigned long long id = 0;
    CHECK(cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, p));
    return id;
}

int main(void) {
    CUdevice dev;
    CUcontext a, b, owner = NULL;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&a, 0, dev));
    CUdeviceptr d1, d2;
    CHECK(cuMemAlloc(&d1, 4096));
    void *h;
    CHECK(cuMemAllocHost(&h, 1000));
    CHECK(cuMemAlloc(&d2, 256));

    /* Device memory of the current context. */
    CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, d1 + 100));
    TRUE(owner == a);
    unsigned int type = 0, mapped = 0, managed = 9;
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d1 + 100));
    TRUE(type == CU_MEMORYTYPE_DEVICE);
    CUdeviceptr dp = 0, start = 0;
    size_t size = 0;
    CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d1 + 100));
    CHECK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d1 + 100));
    CHECK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d1 + 100));
    TRUE(dp == d1 + 100 && start == d1 && size >= 4096);
    CHECK(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, d1));
    CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d1));
    TRUE(mapped == 1 && managed == 0);
    int ordinal = -1;
    CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d2));
    TRUE(ordinal == 0);
    void *hp = (void *)1;
    EXPECT(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d1), CUDA_ERROR_INVALID_VALUE);

    /* Buffer ids: one per allocation, a new one after a free. */
    unsigned long long id1 = buffer_id(d1), id2 = buffer_id(d2);
    TRUE(id1 != 0 && id2 != 0 && id1 != id2 && buffer_id(d1 + 4095) == id1);
    CHECK(cuMemFree(d2));
    CUdeviceptr d3;
    CHECK(cuMemAlloc(&d3, 256));
    TRUE(buffer_id(d3) != id2 && buffer_id(d3) != id1);

    /* Pinned host memory, by host address (from another context too) and by its device
       address. */
    CUdeviceptr hd = 0;
    CHECK(cuMemHostGetDevicePointer(&hd, h, 0));
    CHECK(cuCtxCreate(&b, 0, dev)); /* b is current now */
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h + 10));
    CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, (CUdeviceptr)(uintptr_t)h + 10));
    CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)(uintptr_t)h + 10));
    TRUE(type == CU_MEMORYTYPE_HOST && hp == (char *)h + 10 && dp == hd + 10);
    CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)h));
    TRUE(owner == a);
    CHECK(cuCtxPopCurrent(&owner)); /* a again */
    CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, hd + 20));
    CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, hd + 20));
    TRUE(hp == (char *)h + 20 && owner == a);

    /* Several at once; an unknown address gets empty values and success. */
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_HOST_POINTER};
    CUcontext c = NULL;
    type = 0;
    size = 0;
    hp = (void *)1;
    void *out[] = {&c, &type, &size, &hp};
    CHECK(cuPointerGetAttributes(4, attrs, out, d3));
    TRUE(c == a && type == CU_MEMORYTYPE_DEVICE && size >= 256 && hp == NULL);
    CHECK(cuPointerGetAttributes(4, attrs, out, 0x10));
    TRUE(c == NULL && type == 0 && size == 0 && hp == NULL);
    EXPECT(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, 0x10), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(&c, (CUpointer_attribute)99, d3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_CONTEXT, d3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttributes(0, attrs, out, d3), CUDA_ERROR_INVALID_VALUE);

    /* Unified addressing: a device address names its context even with none current;
       freed memory is no one's. */
    CHECK(cuCtxPopCurrent(&owner));
    c = NULL;
    CHECK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d3));
    TRUE(c == a);
    CHECK(cuCtxPushCurrent(a));
    CHECK(cuMemFree(d3));
    EXPECT(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d3), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFreeHost(h));
    EXPECT(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)h), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuCtxDestroy(b));
    CHECK(cuCtxDestroy(a));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("pointers: all checks passed\n");
    return 0;
}
