/*
 * libcudart.so.12 as a compiled CUDA program uses it: the code below is what a compiler
 * emits for `kernel<<<grid, block, shared, stream>>>(args)` (a fat binary registered at
 * start-up, a host stub per kernel that pops the configuration and calls
 * cudaLaunchKernel, device variables registered by their host shadows), written out in
 * C so that it builds without a CUDA compiler. Checked against host data: launches,
 * __constant__ and __device__ variables through cudaMemcpyTo/FromSymbol, streams and
 * events, errors (the last error, sticky faults until cudaDeviceReset, bad
 * configurations, SASS-only images), and the Driver API sharing the runtime's context.
 * Run by tests/tests/c_abi.rs:  runtime
 */
#include <cuda_runtime_api.h>
#include <string.h>

#include "check.h"

#define RT(call)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s = %d (%s: %s)\n", __FILE__, __LINE__, #call, e_,      \
                    cudaGetErrorName(e_), cudaGetErrorString(e_));                           \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define RT_EXPECT(call, code) EXPECT((CUresult)(call), (CUresult)(code))

static const char ptx[] =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".const .align 4 .f32 scale;\n"
    ".global .align 4 .u32 counter;\n"
    ".visible .global .attribute(.managed) .align 4 .u32 hits = 11;\n"
    ".visible .entry axpy(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n"
    " .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n .reg .f32 %f<5>;\n"
    " mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n"
    " mad.lo.s32 %r4, %r1, %r2, %r3;\n ld.param.u32 %r5, [n];\n setp.ge.s32 %p1, %r4, %r5;\n"
    " @%p1 bra DONE;\n ld.param.u64 %rd1, [a];\n ld.param.u64 %rd2, [b];\n ld.param.u64 %rd3, [c];\n"
    " mul.wide.s32 %rd4, %r4, 4;\n add.s64 %rd5, %rd1, %rd4;\n add.s64 %rd6, %rd2, %rd4;\n"
    " add.s64 %rd7, %rd3, %rd4;\n ld.global.f32 %f1, [%rd5];\n ld.global.f32 %f2, [%rd6];\n"
    " ld.const.f32 %f3, [scale];\n fma.rn.f32 %f4, %f1, %f3, %f2;\n st.global.f32 [%rd7], %f4;\n"
    " atom.global.add.u32 %r6, [counter], 1;\n atom.global.add.u32 %r7, [hits], 1;\n"
    "DONE:\n ret;\n}\n"
    ".visible .entry poke(.param .u64 p)\n{\n .reg .b64 %rd<2>;\n .reg .b32 %r<2>;\n"
    " ld.param.u64 %rd1, [p];\n mov.u32 %r1, 7;\n st.global.u32 [%rd1], %r1;\n ret;\n}\n";

/* A fat binary container of one entry (kind 1 PTX, 2 ELF), laid out as compilers do. */
static unsigned long long container[1024];
static unsigned long long sass_container[16];

static void build_container(unsigned long long *buf, unsigned short kind, unsigned arch, const void *payload,
                            size_t n) {
    unsigned char *b = (unsigned char *)buf;
    size_t padded = (n + 7) / 8 * 8;
    unsigned long long fat = 64 + padded, hsize = 64;
    unsigned magic = 0xBA55ED50u, entry_hsize = 64;
    unsigned short version = 1, header = 16, ekind = kind, eversion = 0x0101;
    unsigned long long flags = 1;
    memcpy(b, &magic, 4);
    memcpy(b + 4, &version, 2);
    memcpy(b + 6, &header, 2);
    memcpy(b + 8, &fat, 8);
    memcpy(b + 16, &ekind, 2);
    memcpy(b + 18, &eversion, 2);
    memcpy(b + 20, &entry_hsize, 4);
    memcpy(b + 24, &padded, 8);
    memcpy(b + 16 + 28, &arch, 4);
    memcpy(b + 16 + 40, &flags, 8);
    memcpy(b + 16 + hsize, payload, n);
}

struct wrapper {
    int magic;
    int version;
    const unsigned long long *data;
    void *unused;
};
static struct wrapper fatbin = {0x466243b1, 1, container, 0};
static struct wrapper sass_fatbin = {0x466243b1, 1, sass_container, 0};

/* Host shadows of the device variables, and the host stubs of the kernels. */
static float scale;
static unsigned counter;
/* A __managed__ variable as nvcc compiles it: the host reaches it through a pointer the
   runtime fills in when the module loads (__cudaInitModule). */
static unsigned *hits_ptr;

static void axpy(const float *a, const float *b, float *c, int n) {
    dim3 grid, block;
    size_t shared;
    cudaStream_t s;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &s) != cudaSuccess)
        return;
    void *args[] = {&a, &b, &c, &n};
    cudaLaunchKernel((const void *)axpy, grid, block, args, shared, s);
}

static void poke(unsigned *p) {
    dim3 grid, block;
    size_t shared;
    cudaStream_t s;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &s) != cudaSuccess)
        return;
    void *args[] = {&p};
    cudaLaunchKernel((const void *)poke, grid, block, args, shared, s);
}

static void sass_only(void) {
    dim3 grid, block;
    size_t shared;
    cudaStream_t s;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &s) != cudaSuccess)
        return;
    cudaLaunchKernel((const void *)sass_only, grid, block, NULL, shared, s);
}

static dim3 dim3_of(unsigned x) {
    dim3 d = {x, 1, 1};
    return d;
}

/* kernel<<<g, b, sh, st>>>(args...) */
#define LAUNCH(k, g, b, sh, st, ...) (__cudaPushCallConfiguration((g), (b), (sh), (st)) ? (void)0 : k(__VA_ARGS__))

static void **handle, **sass_handle;

/* What the compiler's start-up constructor does. */
static void register_program(void) {
    build_container(container, 1, 70, ptx, sizeof ptx);
    static const char elf[] = "\x7f" "ELF: machine code rgdev does not run";
    build_container(sass_container, 2, 70, elf, sizeof elf);
    handle = __cudaRegisterFatBinary(&fatbin);
    __cudaRegisterFunction(handle, (const char *)axpy, (char *)"axpy", "axpy", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFunction(handle, (const char *)poke, (char *)"poke", "poke", -1, 0, 0, 0, 0, 0);
    __cudaRegisterVar(handle, (char *)&scale, (char *)"scale", "scale", 0, sizeof scale, 1, 0);
    __cudaRegisterVar(handle, (char *)&counter, (char *)"counter", "counter", 0, sizeof counter, 0, 0);
    __cudaRegisterManagedVar(handle, (void **)&hits_ptr, (char *)"hits", "hits", sizeof *hits_ptr, 0);
    __cudaRegisterFatBinaryEnd(handle);
    sass_handle = __cudaRegisterFatBinary(&sass_fatbin);
    __cudaRegisterFunction(sass_handle, (const char *)sass_only, (char *)"k", "k", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFatBinaryEnd(sass_handle);
}

_Static_assert(sizeof(struct cudaDeviceProp) == 1032, "cudaDeviceProp has CUDA 12.9's size");

int main(void) {
    register_program();

    /* Devices and properties, before any other call: the runtime initializes lazily. */
    int n = 0, dev = -1, v = 0;
    RT(cudaGetDeviceCount(&n));
    TRUE(n >= 1);
    RT(cudaGetDevice(&dev));
    TRUE(dev == 0);
    struct cudaDeviceProp p;
    memset(&p, 0xFF, sizeof p);
    RT(cudaGetDeviceProperties(&p, 0));
    TRUE(strlen(p.name) > 0 && p.major >= 2 && p.warpSize == 32 && p.maxThreadsPerBlock == 1024);
    RT(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    TRUE(v == p.multiProcessorCount && v > 0);
    RT(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    TRUE(v == p.major);
    TRUE(p.totalGlobalMem > 0 && p.l2CacheSize > 0 && p.reserved[0] == 0);
    RT_EXPECT(cudaSetDevice(n), cudaErrorInvalidDevice);
    RT_EXPECT(cudaGetLastError(), cudaErrorInvalidDevice);
    RT_EXPECT(cudaGetLastError(), cudaSuccess);
    RT(cudaRuntimeGetVersion(&v));
    TRUE(v == CUDART_VERSION);
    RT(cudaDriverGetVersion(&v));
    TRUE(v >= 12000);
    TRUE(strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
    TRUE(strcmp(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered") == 0);
    TRUE(strcmp(cudaGetErrorString(cudaErrorNoKernelImageForDevice),
                "no kernel image is available for execution on the device") == 0);

    /* The runtime's context is the device's primary context, current for the Driver API,
     * made by the first call that needs one (cudaFree(0), the idiom). */
    CUcontext ctx = 0, primary = 0;
    CHECK(cuCtxGetCurrent(&ctx));
    TRUE(ctx == 0);
    RT(cudaFree(0));
    CHECK(cuCtxGetCurrent(&ctx));
    CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
    TRUE(ctx == primary && ctx != 0);
    CHECK(cuDevicePrimaryCtxRelease(0));

    /* axpy: c = a * scale + b, scale a __constant__, counter a __device__ variable. */
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    float *da, *db, *dc;
    RT(cudaMalloc((void **)&da, sizeof a));
    RT(cudaMalloc((void **)&db, sizeof b));
    CUdeviceptr driver_c;
    CHECK(cuMemAlloc(&driver_c, sizeof c)); /* Driver API memory, used by the runtime */
    dc = (float *)(size_t)driver_c;
    RT(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    RT(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    float three = 3.0f;
    unsigned zero = 0, count = 0;
    RT(cudaMemcpyToSymbol(&scale, &three, sizeof three, 0, cudaMemcpyHostToDevice));
    RT(cudaMemcpyToSymbol(&counter, &zero, sizeof zero, 0, cudaMemcpyHostToDevice));
    LAUNCH(axpy, dim3_of(4), dim3_of(256), 0, 0, da, db, dc, N);
    RT(cudaGetLastError());
    RT(cudaDeviceSynchronize());
    RT(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += c[i] != a[i] * 3.0f + b[i];
    TRUE(wrong == 0);
    RT(cudaMemcpyFromSymbol(&count, &counter, sizeof count, 0, cudaMemcpyDeviceToHost));
    TRUE(count == N);
    /* The managed variable: the loader gave it managed memory holding its initial value;
       the kernel counted into it, and the host reads it through the pointer. */
    TRUE(__cudaInitModule(handle) == 1);
    TRUE(hits_ptr != 0 && *hits_ptr == 11 + N);
    struct cudaPointerAttributes mpa;
    RT(cudaPointerGetAttributes(&mpa, hits_ptr));
    TRUE(mpa.type == cudaMemoryTypeManaged && mpa.devicePointer == (void *)hits_ptr);
    *hits_ptr = 0;
    LAUNCH(axpy, dim3_of(1), dim3_of(64), 0, 0, da, db, dc, 64);
    RT(cudaDeviceSynchronize());
    TRUE(*hits_ptr == 64);
    size_t size = 0;
    void *addr = 0;
    RT(cudaGetSymbolSize(&size, &scale));
    RT(cudaGetSymbolAddress(&addr, &counter));
    TRUE(size == 4 && addr != 0);
    RT_EXPECT(cudaMemcpyToSymbol(&scale, &three, 8, 0, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    RT_EXPECT(cudaMemcpyToSymbol(&n, &three, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
    RT_EXPECT(cudaMemcpy(c, dc, 4, (enum cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);

    /* Function attributes. */
    struct cudaFuncAttributes fa;
    RT(cudaFuncGetAttributes(&fa, (const void *)axpy));
    TRUE(fa.maxThreadsPerBlock > 0 && fa.numRegs > 0 && fa.ptxVersion == 70 && fa.preferredShmemCarveout == -1);
    RT_EXPECT(cudaFuncGetAttributes(&fa, (const void *)main), cudaErrorInvalidDeviceFunction);

    /* Every failed call leaves its error as the last error, until read. */
    RT_EXPECT(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    /* Bad configurations: the launch fails, the last error says so once. */
    LAUNCH(axpy, dim3_of(1), dim3_of(2048), 0, 0, da, db, dc, N);
    RT_EXPECT(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    RT_EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
    RT_EXPECT(cudaGetLastError(), cudaSuccess);
    LAUNCH(axpy, dim3_of(0), dim3_of(32), 0, 0, da, db, dc, N);
    RT_EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
    RT_EXPECT(cudaLaunchKernel((const void *)main, dim3_of(1), dim3_of(1), NULL, 0, 0),
              cudaErrorInvalidDeviceFunction);
    RT_EXPECT(__cudaPopCallConfiguration(NULL, NULL, NULL, NULL), cudaErrorMissingConfiguration);
    /* Machine code only: refused, naming what was found (on stderr). */
    LAUNCH(sass_only, dim3_of(1), dim3_of(1), 0, 0);
    RT_EXPECT(cudaGetLastError(), cudaErrorNoKernelImageForDevice);

    /* Streams and events: a copy and a launch in stream order, timed. */
    cudaStream_t s;
    cudaEvent_t e0, e1;
    RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    RT(cudaEventCreate(&e0));
    RT(cudaEventCreate(&e1));
    static float c2[N];
    RT(cudaEventRecord(e0, s));
    RT(cudaMemsetAsync(dc, 0, sizeof c, s));
    LAUNCH(axpy, dim3_of(4), dim3_of(256), 0, s, db, da, dc, N);
    RT(cudaMemcpyAsync(c2, dc, sizeof c2, cudaMemcpyDeviceToHost, s));
    RT(cudaEventRecord(e1, s));
    RT(cudaStreamSynchronize(s));
    RT(cudaStreamQuery(s));
    RT(cudaEventQuery(e1));
    float ms = -1;
    RT(cudaEventElapsedTime(&ms, e0, e1));
    TRUE(ms > 0);
    wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += c2[i] != b[i] * 3.0f + a[i];
    TRUE(wrong == 0);
    RT(cudaEventDestroy(e0));
    RT(cudaEventDestroy(e1));
    RT(cudaStreamDestroy(s));

    /* A fault is sticky: every call reports it until cudaDeviceReset. */
    LAUNCH(poke, dim3_of(1), dim3_of(1), 0, 0, (unsigned *)8);
    RT_EXPECT(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    void *x = 0;
    RT_EXPECT(cudaMalloc(&x, 64), cudaErrorIllegalAddress);
    RT_EXPECT(cudaGetLastError(), cudaErrorIllegalAddress);
    RT(cudaDeviceReset());
    /* A new primary context: memory and modules anew. */
    unsigned *dp;
    unsigned seven = 0;
    RT(cudaMalloc((void **)&dp, 4));
    LAUNCH(poke, dim3_of(1), dim3_of(1), 0, 0, dp);
    RT(cudaDeviceSynchronize());
    RT(cudaMemcpy(&seven, dp, 4, cudaMemcpyDeviceToHost));
    TRUE(seven == 7);
    RT(cudaFree(dp));
    RT(cudaFree(NULL));

    __cudaUnregisterFatBinary(handle);
    __cudaUnregisterFatBinary(sass_handle);
    return report();
}
