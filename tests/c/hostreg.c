/*
 * Registered host memory through libcuda.so.1: cuMemHostRegister maps a program's own
 * pages (malloc'd, at an unaligned address) into the GPU's page tables, so a kernel reads
 * and writes them in place and async copies use them as pinned memory; the flags read
 * back; read-only registration of constant data (a kernel's store to it faults); the
 * legacy unversioned symbol; and CUDA's errors for overlapping, unregistered, unmapped
 * and unwritable memory.
 * Run by tests/tests/c_abi.rs:  hostreg
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* out[i] = 2 * in[i] + 1 for i < n. */
static const char *PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".visible .entry scale(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n"
    " ld.param.u64 %rd1, [in];\n ld.param.u64 %rd2, [out];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n"
    " mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " mul.wide.u32 %rd3, %r2, 4;\n add.u64 %rd4, %rd1, %rd3;\n add.u64 %rd5, %rd2, %rd3;\n"
    " ld.global.u32 %r5, [%rd4];\n shl.b32 %r5, %r5, 1;\n add.u32 %r5, %r5, 1;\n st.global.u32 [%rd5], %r5;\n"
    "DONE:\n ret;\n}\n";

enum { N = 3000 };

/* Constant data the program cannot write: registrable read-only only. */
static const unsigned TABLE[2048] = {7, 11, 13};

static void scale(CUfunction f, CUdeviceptr in, CUdeviceptr out, unsigned n) {
    void *params[] = {&in, &out, &n};
    CHECK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
}

int main(void) {
    CUcontext ctx = init_context();
    CUmodule mod;
    CUfunction f;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&f, mod, "scale"));
    int v;
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 0));
    TRUE(v == 1);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, 0));
    TRUE(v == 1);

    /* Two malloc'd buffers registered at unaligned addresses: a kernel reads one and
     * writes the other in place. */
    char *raw_in = malloc(4 * N + 64), *raw_out = malloc(4 * N + 64);
    unsigned *in = (unsigned *)(raw_in + 12), *out = (unsigned *)(raw_out + 20);
    for (int i = 0; i < N; i++) in[i] = (unsigned)(i * 2654435761u), out[i] = 0;
    CHECK(cuMemHostRegister(in, 4 * N, CU_MEMHOSTREGISTER_DEVICEMAP));
    CHECK(cuMemHostRegister(out, 4 * N, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP));
    CUdeviceptr din, dout;
    CHECK(cuMemHostGetDevicePointer(&din, in, 0));
    CHECK(cuMemHostGetDevicePointer(&dout, out, 0));
    TRUE(din % 4096 == (uintptr_t)in % 4096);
    scale(f, din, dout, N);
    CHECK(cuCtxSynchronize());
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= out[i] == 2 * in[i] + 1;
    TRUE(ok);
    unsigned flags = 0;
    CHECK(cuMemHostGetFlags(&flags, out + 5));
    TRUE(flags == (CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP));
    unsigned mt = 0;
    CHECK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)in));
    TRUE(mt == CU_MEMORYTYPE_HOST);

    /* Async copies from and to registered memory, on a stream. */
    CUdeviceptr dev;
    CUstream s;
    CHECK(cuMemAlloc(&dev, 4 * N));
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuMemcpyHtoDAsync(dev, in, 4 * N, s));
    memset(out, 0, 4 * N);
    CHECK(cuMemcpyDtoHAsync(out, dev, 4 * N, s));
    CHECK(cuStreamSynchronize(s));
    TRUE(memcmp(out, in, 4 * N) == 0);

    /* Overlaps, wrong pointers, freeing what was not allocated. */
    EXPECT(cuMemHostRegister(in + 100, 16, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemHostRegister((char *)in - 8, 16, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemHostUnregister(in + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemFreeHost(in), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemHostUnregister(in));
    EXPECT(cuMemHostUnregister(in), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemHostGetDevicePointer(&din, in, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostGetFlags(&flags, in), CUDA_ERROR_INVALID_VALUE);
    /* Pinned memory is not registered memory. */
    void *pinned;
    CHECK(cuMemAllocHost(&pinned, 256));
    EXPECT(cuMemHostUnregister(pinned), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemHostRegister(pinned, 64, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK(cuMemFreeHost(pinned));
    /* Bad arguments and memory the process does not have. */
    EXPECT(cuMemHostRegister(NULL, 64, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostRegister(in, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostRegister(in, 64, 0x100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostRegister(in, 64, CU_MEMHOSTREGISTER_IOMEMORY), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemHostRegister((void *)(uintptr_t)0x1000, 64, 0), CUDA_ERROR_INVALID_VALUE);

    /* The legacy unversioned symbol has the same ABI. */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    typedef CUresult (*reg_fn)(void *, size_t, unsigned);
    reg_fn legacy = lib ? (reg_fn)dlsym(lib, "cuMemHostRegister") : NULL;
    TRUE(legacy != NULL);
    if (legacy) {
        CHECK(legacy(in, 4 * N, 0));
        CHECK(cuMemHostUnregister(in));
    }

    /* Constant data: registrable read-only only; kernels read it. */
    EXPECT(cuMemHostRegister((void *)TABLE, sizeof TABLE, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemHostRegister((void *)TABLE, sizeof TABLE, CU_MEMHOSTREGISTER_READ_ONLY));
    CUdeviceptr dtab;
    CHECK(cuMemHostGetDevicePointer(&dtab, (void *)TABLE, 0));
    scale(f, dtab, dout, 3);
    CHECK(cuCtxSynchronize());
    TRUE(out[0] == 15 && out[1] == 23 && out[2] == 27);
    /* A store into it faults the grid (and the context). */
    scale(f, dout, dtab, 3);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    TRUE(TABLE[0] == 7);

    CHECK(cuCtxDestroy(ctx));
    /* The context's registrations ended with it: the memory can be registered again. */
    ctx = init_context();
    CHECK(cuMemHostRegister(out, 4 * N, 0));
    CHECK(cuMemHostUnregister(out));
    CHECK(cuCtxDestroy(ctx));
    free(raw_in);
    free(raw_out);
    if (lib) dlclose(lib);
    return report();
}
