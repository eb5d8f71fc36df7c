// The CUDA C++ surface real programs include, checked against the host: the headers
// NVIDIA's bring in (<memory> included, whose libstdc++ spells __attribute__((__noinline__))),
// <cuda_profiler_api.h>, <builtin_types.h>, <math_constants.h>, struct cudaArray, the host
// and device overloads of min and max (mixed signedness and precision), the cache-operator
// loads and stores, the scoped atomics, the C++ overloads of cudaEventCreate and
// cudaMallocHost, -use_fast_math's intrinsics (when the build defines __USE_FAST_MATH__),
// and a user function named __globaltimer, which rgdev's headers must leave free.
#include <builtin_types.h>
#include <cuComplex.h>
#include <cuda_profiler_api.h>
#include <math_constants.h>
#include <memory>

#include "check.cuh"

__device__ unsigned long long __globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void hints(int *a, float4 *f, unsigned long long *u, float *fm) {
    int v = __ldcg(a) + __ldcs(a + 1) + __ldca(a + 2) + __ldlu(a + 3) + __ldcv(a + 4);
    __stcg(a + 5, v);
    __stwt(a + 6, min(v, 3u) + max(2, 5));
    float4 x = __ldcg(f);
    x.x += 1;
    __stcs(f, x);
    atomicMax_system(a + 7, 9);
    atomicOr_block(u, 6ull);
    atomicInc_system((unsigned *)a + 8, 100u);
    atomicSub_block(a + 9, 4);
    a[10] = __globaltimer() != 0;
    a[11] = (int)max(-1, 2u) == -1; // unsigned comparison: max is 0xffffffff
    fm[0] = sinf(fm[1]);
    fm[2] = min(1.5f, 2.0) + max(0.25, 0.5f);
    fm[3] = fm[4] * fm[4]; // 1e-20 squared is subnormal: flushed to zero under -ftz=true
}

__global__ void fill(int *p, int v, unsigned char k) { p[threadIdx.x] = v + k; }

// (1 + 2i)(3 - i) / (1 + i) + |3 + 4i| and its conjugate, in both precisions.
__global__ void complex(cuFloatComplex *f, cuDoubleComplex *d) {
    cuFloatComplex a = make_cuFloatComplex(1, 2), b = make_cuFloatComplex(3, -1), c = make_cuFloatComplex(1, 1);
    f[0] = cuCaddf(cuCdivf(cuCmulf(a, b), c), make_cuFloatComplex(cuCabsf(make_cuFloatComplex(3, 4)), 0));
    f[1] = cuConjf(f[0]);
    cuDoubleComplex x = cuComplexFloatToDouble(a);
    d[0] = cuCsub(cuCfma(x, x, make_cuDoubleComplex(1, 0)), make_cuDoubleComplex(0, cuCabs(make_cuDoubleComplex(0, 4))));
}

int main() {
    std::unique_ptr<int> owned(new int(3));
    int *a;
    float4 *f;
    unsigned long long *u;
    float *fm;
    CHECK(cudaMalloc(&a, 64));
    CHECK(cudaMalloc(&f, 16));
    CHECK(cudaMalloc(&u, 8));
    CHECK(cudaMalloc(&fm, 20));
    int h[16] = {1, 2, 3, 4, 5, 0, 0, 1, 7, 10};
    CHECK(cudaMemcpy(a, h, 64, cudaMemcpyHostToDevice));
    float4 hf = {1, 2, 3, 4};
    CHECK(cudaMemcpy(f, &hf, 16, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(u, 0, 8));
    float hm[5] = {0, 0.5f, 0, 0, 1e-20f};
    CHECK(cudaMemcpy(fm, hm, 20, cudaMemcpyHostToDevice));
    cudaEvent_t e;
    CHECK(cudaEventCreate(&e, cudaEventDisableTiming));
    float ms;
    CHECK(cudaEventRecord(e));
    CHECK(cudaEventSynchronize(e));
    EXPECT(cudaEventElapsedTime(&ms, e, e), cudaErrorInvalidResourceHandle);
    int *pinned;
    CHECK(cudaMallocHost(&pinned, 64, cudaHostAllocMapped));
    CHECK(cudaProfilerStart());
    hints<<<1, 1>>>(a, f, u, fm);
    CHECK(cudaProfilerStop());
    CHECK(cudaMemcpy(h, a, 64, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hf, f, 16, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hm, fm, 20, cudaMemcpyDeviceToHost));
    unsigned long long hu;
    CHECK(cudaMemcpy(&hu, u, 8, cudaMemcpyDeviceToHost));
    TRUE(h[5] == 15);
    TRUE(h[6] == 8);
    TRUE(h[7] == 9);
    TRUE(h[8] == 8);
    TRUE(h[9] == 6);
    TRUE(h[10] == 1);
    TRUE(h[11] == 1);
    TRUE(hf.x == 2 && hf.w == 4);
    TRUE(hu == 6);
    TRUE(hm[2] == 2.0f);
#if defined(__USE_FAST_MATH__)
    printf("fast math: sinf(0.5) = %.9g\n", hm[0]);
    TRUE(hm[3] == 0.0f);
#else
    TRUE(hm[3] > 0.0f && hm[3] < 1.2e-38f);
#endif
    TRUE(fabsf(hm[0] - 0.479425539f) < 1e-6f);
    // Host overloads of min and max.
    TRUE(min(3, 4u) == 3u && max(1L, 2L) == 2L && max(-1, 2u) == 0xffffffffu);
    TRUE(max(1.0f, 2.0) == 2.0 && min(2.5, 1.5f) == 1.5);
    TRUE(CUDART_PI_F > 3.14159f && CUDART_PI_F < 3.1416f && CUDART_INF_F > 1e38f);
    TRUE(*owned == 3);
    cudaArray *none = nullptr;
    struct cudaArray *none2 = none;
    cudaArray_t none3 = none2;
    TRUE(none3 == nullptr);
    CHECK(cudaFreeHost(pinned));

    // cudaLaunchKernelEx with attributes: hints accepted, a cooperative launch checked,
    // clusters of several blocks not supported.
    int *filled;
    CHECK(cudaMalloc(&filled, 32 * sizeof(int)));
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributePriority;
    attrs[0].val.priority = 0;
    attrs[1].id = cudaLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(1);
    config.blockDim = dim3(32);
    config.attrs = attrs;
    config.numAttrs = 2;
    CHECK(cudaLaunchKernelEx(&config, fill, filled, 40, 2)); // int and unsigned char converted
    int hfill[32];
    CHECK(cudaMemcpy(hfill, filled, sizeof hfill, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 32; k++) TRUE(hfill[k] == 42);
    config.gridDim = dim3(1 << 20);
    EXPECT(cudaLaunchKernelEx(&config, fill, filled, 40, 2), cudaErrorCooperativeLaunchTooLarge);
    attrs[1].id = cudaLaunchAttributeClusterDimension;
    attrs[1].val.clusterDim.x = 2;
    attrs[1].val.clusterDim.y = 1;
    attrs[1].val.clusterDim.z = 1;
    config.gridDim = dim3(2);
    EXPECT(cudaLaunchKernelEx(&config, fill, filled, 40, 2), cudaErrorNotSupported);
    // A launch's own shared-memory carveout (cuLaunchKernelEx underneath), cooperative too.
    attrs[0].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
    attrs[0].val.sharedMemCarveout = 100;
    attrs[1].id = cudaLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    config.gridDim = dim3(1);
    CHECK(cudaMemset(filled, 0, 32 * sizeof(int)));
    CHECK(cudaLaunchKernelEx(&config, fill, filled, 41, 1));
    CHECK(cudaMemcpy(hfill, filled, sizeof hfill, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 32; k++) TRUE(hfill[k] == 42);
    attrs[0].val.sharedMemCarveout = 101;
    EXPECT(cudaLaunchKernelEx(&config, fill, filled, 40, 2), cudaErrorInvalidValue);
    // Graphs, pools and IPC declare CUDA's types; their functions are not supported yet.
    cudaGraph_t graph;
    EXPECT(cudaGraphCreate(&graph, 0), cudaErrorNotSupported);
    cudaMemPool_t pool;
    EXPECT(cudaDeviceGetDefaultMemPool(&pool, 0), cudaErrorNotSupported);
    cudaIpcMemHandle_t ipc;
    EXPECT(cudaIpcGetMemHandle(&ipc, filled), cudaErrorNotSupported);
    cudaStreamAttrValue window = {};
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    TRUE(sizeof(cudaLaunchAttribute) == 72 && sizeof(cudaIpcMemHandle_t) == 64 && window.accessPolicyWindow.hitProp == 2);
    cudaGetLastError();
    CHECK(cudaFree(filled));

    // cuComplex.h on the device and the host: (5 + 5i)/(1 + i) = 5, + 5; (1+2i)^2 + 1 - 4i = -2.
    cuFloatComplex *cf;
    cuDoubleComplex *cd;
    CHECK(cudaMalloc(&cf, 2 * sizeof *cf));
    CHECK(cudaMalloc(&cd, sizeof *cd));
    complex<<<1, 1>>>(cf, cd);
    cuFloatComplex hf2[2];
    cuDoubleComplex hd;
    CHECK(cudaMemcpy(hf2, cf, sizeof hf2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hd, cd, sizeof hd, cudaMemcpyDeviceToHost));
    TRUE(cuCrealf(hf2[0]) == 10.0f && cuCimagf(hf2[0]) == 0.0f && cuCimagf(hf2[1]) == 0.0f);
    TRUE(cuCreal(hd) == -2.0 && cuCimag(hd) == 0.0);
    cuDoubleComplex q = cuCdiv(make_cuDoubleComplex(5, 5), make_cuDoubleComplex(1, 1));
    TRUE(cuCreal(q) == 5.0 && cuCimag(q) == 0.0 && fabs(cuCabs(make_cuDoubleComplex(3e200, 4e200)) / 5e200 - 1) < 1e-15);
    CHECK(cudaFree(cf));
    CHECK(cudaFree(cd));
    return report();
}
