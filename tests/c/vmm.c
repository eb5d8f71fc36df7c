/*
 * The virtual memory management API through libcuda.so.1: granularity, one physical
 * allocation mapped twice (a read-write view and a read-only alias), access flags checked
 * by copies and enforced by the MMU for kernels, handles retained and released, memory
 * freed with the last mapping, and CUDA's errors for bad properties, sizes and ranges.
 * Run by tests/tests/c_abi.rs:  vmm
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* out[i] = 2 * in[i] for i < n. */
static const char *DOUBLE_PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".visible .entry dbl(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<6>;\n .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [in];\n ld.param.u64 %rd2, [out];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n"
    " mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " mul.wide.u32 %rd3, %r2, 4;\n add.u64 %rd4, %rd1, %rd3;\n ld.global.u32 %r5, [%rd4];\n"
    " shl.b32 %r5, %r5, 1;\n add.u64 %rd5, %rd2, %rd3;\n st.global.u32 [%rd5], %r5;\n"
    "DONE:\n ret;\n}\n";

static CUmemAccessDesc on_device(CUmemAccess_flags flags) {
    CUmemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = 0;
    d.flags = flags;
    return d;
}

static void launch(CUfunction f, CUdeviceptr in, CUdeviceptr out, unsigned n) {
    void *params[] = {&in, &out, &n};
    CHECK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    int vmm = 0;
    CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    TRUE(vmm == 1);
    CHECK(cuCtxCreate(&ctx, 0, dev));

    /* Properties and granularity. */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0, rec = 0;
    CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    TRUE(gran == 4096 && rec == 131072);
    EXPECT(cuMemGetAllocationGranularity(&gran, &prop, (CUmemAllocationGranularity_flags)7),
           CUDA_ERROR_INVALID_VALUE);
    CUmemAllocationProp bad = prop;
    bad.location.id = 1;
    EXPECT(cuMemGetAllocationGranularity(&gran, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_DEVICE);
    bad = prop;
    bad.location.type = CU_MEM_LOCATION_TYPE_HOST;
    EXPECT(cuMemGetAllocationGranularity(&gran, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_NOT_SUPPORTED);
    bad = prop;
    bad.type = CU_MEM_ALLOCATION_TYPE_INVALID;
    CUmemGenericAllocationHandle handle = 0;
    EXPECT(cuMemCreate(&handle, rec, &bad, 0), CUDA_ERROR_INVALID_VALUE);
    bad = prop;
    bad.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    EXPECT(cuMemCreate(&handle, rec, &bad, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemCreate(&handle, rec + 100, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemCreate(&handle, 0, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRelease(0), CUDA_ERROR_INVALID_VALUE);

    /* One allocation, mapped twice: [va, va + size) read-write, [va + size, va + 2 size)
       read-only. */
    const size_t size = 2 * rec;
    const unsigned n = (unsigned)(size / 4);
    size_t free0 = 0, free1 = 0, total = 0; /* page tables take VRAM too: compare around one call */
    CHECK(cuMemGetInfo(&free0, &total));
    CHECK(cuMemCreate(&handle, size, &prop, 0));
    CHECK(cuMemGetInfo(&free1, &total));
    TRUE(free0 - free1 >= size);
    CUmemAllocationProp got;
    memset(&got, 0x55, sizeof got);
    CHECK(cuMemGetAllocationPropertiesFromHandle(&got, handle));
    TRUE(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
         got.location.id == 0 && got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_NONE);

    CUdeviceptr va = 0;
    EXPECT(cuMemAddressReserve(&va, 3 * size, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAddressReserve(&va, 100, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemAddressReserve(&va, 3 * size, rec, 0, 0));
    TRUE(va != 0 && va % rec == 0);
    CHECK(cuMemMap(va, size, 0, handle, 0));
    CHECK(cuMemMap(va + size, size, 0, handle, 0));
    EXPECT(cuMemMap(va + size / 2, size, 0, handle, 0), CUDA_ERROR_INVALID_VALUE);   /* overlaps */
    EXPECT(cuMemMap(va + 2 * size, 2 * size, 0, handle, 0), CUDA_ERROR_INVALID_VALUE); /* past the end */
    EXPECT(cuMemMap(va + 2 * size, size, 4096, handle, 0), CUDA_ERROR_INVALID_VALUE); /* past the allocation */
    EXPECT(cuMemMap(va + 2 * size, size, 0, handle + 1, 0), CUDA_ERROR_INVALID_VALUE); /* no such handle */
    EXPECT(cuMemMap(va + 2 * size + 1, 4096, 0, handle, 0), CUDA_ERROR_INVALID_VALUE); /* unaligned */

    /* No access until cuMemSetAccess. */
    unsigned long long flags = 9;
    CHECK(cuMemGetAccess(&flags, &prop.location, va));
    TRUE(flags == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    uint32_t *host = malloc(size), *back = malloc(size);
    for (unsigned i = 0; i < n; i++) host[i] = i * 7 + 1;
    EXPECT(cuMemcpyHtoD(va, host, size), CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc rw = on_device(CU_MEM_ACCESS_FLAGS_PROT_READWRITE), ro = on_device(CU_MEM_ACCESS_FLAGS_PROT_READ);
    EXPECT(cuMemSetAccess(va, size / 2, &rw, 1), CUDA_ERROR_INVALID_VALUE); /* part of a mapping */
    EXPECT(cuMemSetAccess(va, 3 * size, &rw, 1), CUDA_ERROR_INVALID_VALUE); /* a hole */
    CUmemAccessDesc other = rw;
    other.location.id = 3;
    EXPECT(cuMemSetAccess(va, size, &other, 1), CUDA_ERROR_INVALID_DEVICE);
    CHECK(cuMemSetAccess(va, 2 * size, &rw, 1));
    CHECK(cuMemSetAccess(va + size, size, &ro, 1));
    CHECK(cuMemGetAccess(&flags, &prop.location, va + 5));
    TRUE(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CHECK(cuMemGetAccess(&flags, &prop.location, va + size + 5));
    TRUE(flags == CU_MEM_ACCESS_FLAGS_PROT_READ);
    EXPECT(cuMemGetAccess(&flags, &prop.location, va + 2 * size), CUDA_ERROR_INVALID_VALUE);

    /* What is written through one view reads back through the other. */
    CHECK(cuMemcpyHtoD(va, host, size));
    memset(back, 0, size);
    CHECK(cuMemcpyDtoH(back, va + size, size));
    TRUE(memcmp(host, back, size) == 0);
    EXPECT(cuMemcpyHtoD(va + size, host, 16), CUDA_ERROR_INVALID_VALUE); /* read-only */
    unsigned int access = 9;
    CHECK(cuPointerGetAttribute(&access, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, va + size + 8));
    TRUE(access == CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ);
    CUdeviceptr base = 0;
    size_t range = 0;
    CHECK(cuMemGetAddressRange(&base, &range, va + size + 8));
    TRUE(base == va + size && range == size);
    EXPECT(cuMemFree(va), CUDA_ERROR_INVALID_VALUE);

    /* A copy across the two mappings (they follow each other), then a kernel reading the
       read-only alias and writing a third mapping of the same memory's second half. */
    CUdeviceptr scratch;
    CHECK(cuMemAlloc(&scratch, 2 * size));
    CHECK(cuMemcpyDtoD(scratch, va + size / 2, size));
    CHECK(cuMemcpyDtoH(back, scratch, size));
    TRUE(memcmp(back, (char *)host + size / 2, size / 2) == 0 && memcmp((char *)back + size / 2, host, size / 2) == 0);
    CUmodule mod;
    CUfunction dbl;
    CHECK(cuModuleLoadData(&mod, DOUBLE_PTX));
    CHECK(cuModuleGetFunction(&dbl, mod, "dbl"));
    CHECK(cuMemMap(va + 2 * size, size / 2, size / 2, handle, 0));
    CHECK(cuMemSetAccess(va + 2 * size, size / 2, &rw, 1));
    launch(dbl, va + size, va + 2 * size, n / 2); /* the second half := 2 * the first half */
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(back, va, size));
    int ok = 1;
    for (unsigned i = 0; i < n; i++) ok &= back[i] == (i < n / 2 ? host[i] : 2 * host[i - n / 2]);
    TRUE(ok);

    /* The handle: retained from an address, released; the memory outlives the handle
       while mapped and is freed with its last mapping. */
    CUmemGenericAllocationHandle again = 0;
    CHECK(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(va + size + 100)));
    TRUE(again == handle);
    CHECK(cuMemRelease(again));
    CHECK(cuMemRelease(handle));
    CHECK(cuMemcpyDtoH(back, va + size, 16));
    TRUE(back[1] == host[1]);
    EXPECT(cuMemUnmap(va, size / 2), CUDA_ERROR_INVALID_VALUE); /* part of a mapping */
    EXPECT(cuMemAddressFree(va, 3 * size), CUDA_ERROR_INVALID_VALUE); /* still mapped */
    size_t free2 = 0, free3 = 0, free4 = 0;
    CHECK(cuMemGetInfo(&free2, &total));
    CHECK(cuMemUnmap(va, 2 * size));
    CHECK(cuMemGetInfo(&free3, &total));
    TRUE(free3 == free2); /* one mapping left */
    CHECK(cuMemUnmap(va + 2 * size, size / 2));
    CHECK(cuMemGetInfo(&free4, &total));
    TRUE(free4 - free3 == size); /* the last mapping took the memory with it */
    EXPECT(cuMemRelease(handle), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(back, va, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAddressFree(va, size), CUDA_ERROR_INVALID_VALUE); /* not the whole reservation */
    CHECK(cuMemAddressFree(va, 3 * size));
    CUdeviceptr at = 0;
    CHECK(cuMemAddressReserve(&at, size, 0, va, 0));
    TRUE(at == va); /* the hint, now free */

    /* A kernel writing through a read-only mapping faults: the MMU enforces the flags. */
    CHECK(cuMemCreate(&handle, size, &prop, 0));
    CHECK(cuMemMap(at, size, 0, handle, 0));
    CHECK(cuMemSetAccess(at, size, &ro, 1));
    launch(dbl, scratch, at, n);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxDestroy(ctx));
    CHECK(cuMemRelease(handle));

    free(host);
    free(back);
    return report();
}
