// One program, both APIs: the Runtime API's primary context is the Driver API's; memory,
// streams and functions pass between them (cudaGetFuncBySymbol), and a module loaded
// through the Driver API works on memory from cudaMalloc.
#include "check.cuh"
#include <cuda.h>

#define DRV(call)                                                                                      \
    do {                                                                                               \
        CUresult r_ = (call);                                                                          \
        if (r_ != CUDA_SUCCESS) {                                                                      \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, (int)r_);                   \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

__global__ void axpb(float *x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + b;
}

/* A kernel in PTX text for cuModuleLoadData: x[i] = i. */
static const char iota_ptx[] = ".version 6.4\n.target sm_70\n.address_size 64\n"
                               ".visible .entry iota(.param .u64 p) {\n"
                               "  .reg .b32 %r<2>; .reg .b64 %rd<4>;\n"
                               "  ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
                               "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
                               "  cvt.rn.f32.u32 %r1, %r1; st.global.b32 [%rd3], %r1; ret;\n}\n";

int main() {
    const int n = 256;
    DRV(cuInit(0));
    CHECK(cudaFree(0)); // makes the primary context current
    CUcontext cur = nullptr, primary = nullptr;
    DRV(cuCtxGetCurrent(&cur));
    DRV(cuDevicePrimaryCtxRetain(&primary, 0));
    TRUE(cur != nullptr && cur == primary);

    // Driver memory in a <<<>>> launch; the result read by cudaMemcpy.
    CUdeviceptr dp;
    DRV(cuMemAlloc(&dp, n * sizeof(float)));
    float h[n];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    DRV(cuMemcpyHtoD(dp, h, sizeof h));
    axpb<<<1, n>>>((float *)dp, 2.0f, 1.0f, n);
    CHECK(cudaMemcpy(h, (void *)dp, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 2.0f * i + 1.0f;
    TRUE(bad == 0);

    // The kernel as a CUfunction, launched by the driver on a runtime stream.
    cudaFunction_t f;
    CHECK(cudaGetFuncBySymbol(&f, (const void *)axpb));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *rp;
    CHECK(cudaMalloc(&rp, n * sizeof(float)));
    CHECK(cudaMemcpy(rp, h, sizeof h, cudaMemcpyHostToDevice));
    float a = 0.5f, b = -0.5f;
    int nn = n;
    void *args[] = {&rp, &a, &b, &nn};
    DRV(cuLaunchKernel((CUfunction)f, 1, 1, 1, n, 1, 1, 0, (CUstream)s, args, nullptr));
    DRV(cuStreamSynchronize((CUstream)s));
    DRV(cuMemcpyDtoH(h, (CUdeviceptr)rp, sizeof h));
    bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != (float)i;
    TRUE(bad == 0);

    // A Driver API module on runtime memory, then the runtime's kernel on the result.
    CUmodule m;
    CUfunction iota;
    DRV(cuModuleLoadData(&m, iota_ptx));
    DRV(cuModuleGetFunction(&iota, m, "iota"));
    void *iargs[] = {&rp};
    DRV(cuLaunchKernel(iota, 1, 1, 1, n, 1, 1, 0, nullptr, iargs, nullptr));
    axpb<<<1, n>>>(rp, 3.0f, 0.0f, n);
    CHECK(cudaMemcpy(h, rp, sizeof h, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 3.0f * i;
    TRUE(bad == 0);

    DRV(cuModuleUnload(m));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(rp));
    DRV(cuMemFree(dp));
    DRV(cuDevicePrimaryCtxRelease(0));
    return report();
}
