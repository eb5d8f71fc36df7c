// The rest of the runtime API a typical program touches: pitched and 3D memory, registered
// host memory and pointer attributes, occupancy, function attributes and cache
// preferences, cooperative launches, stream priorities, PCI ids, deprecated names, and a
// function rgdev does not implement.
#include "check.cuh"
#include <cstring>
#include <cuda.h>
#include <sys/mman.h>

__global__ void scale2d(float *p, size_t pitch, int w, int h, float s) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) ((float *)((char *)p + y * pitch))[x] *= s;
}

__global__ void bump(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

__global__ void big_shared(int *out) {
    extern __shared__ int s[];
    s[threadIdx.x * 128] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(31 - threadIdx.x) * 128];
}

int main() {
    // Pitched 2D memory: a 37 x 5 float image, rows padded by the device.
    const int w = 37, h = 5;
    float img[h][w], back[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) img[y][x] = (float)(y * 100 + x);
    float *d2;
    size_t pitch = 0;
    CHECK(cudaMallocPitch((void **)&d2, &pitch, w * sizeof(float), h));
    TRUE(pitch >= w * sizeof(float) && pitch % 512 == 0);
    CHECK(cudaMemcpy2D(d2, pitch, img, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    scale2d<<<dim3(1, h), 64>>>(d2, pitch, w, h, 2.0f);
    CHECK(cudaMemcpy2D(back, w * sizeof(float), d2, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) bad += back[y][x] != 2.0f * img[y][x];
    TRUE(bad == 0);
    CHECK(cudaMemset2D(d2, pitch, 0, 8 * sizeof(float), h)); // the first 8 columns
    CHECK(cudaMemcpy2D(back, w * sizeof(float), d2, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    TRUE(back[3][7] == 0.0f && back[3][8] == 2.0f * img[3][8]);
    EXPECT(cudaMemcpy2D(back, 4, d2, pitch, 8, 2, cudaMemcpyDeviceToHost), cudaErrorInvalidPitchValue);

    // 3D: a 6 x 4 x 3 block of bytes, copied in at an offset, set, and copied out.
    cudaExtent ext = make_cudaExtent(6, 4, 3);
    cudaPitchedPtr p3;
    CHECK(cudaMalloc3D(&p3, ext));
    TRUE(p3.pitch >= 6 && p3.xsize == 6 && p3.ysize == 4);
    CHECK(cudaMemset3D(p3, 0x11, ext));
    unsigned char cube[3][4][6], out3[3][4][6];
    for (int i = 0; i < 72; i++) (&cube[0][0][0])[i] = (unsigned char)i;
    cudaMemcpy3DParms in = {};
    in.srcPtr = make_cudaPitchedPtr(cube, 6, 6, 4);
    in.dstPtr = p3;
    in.dstPos = make_cudaPos(2, 1, 1); // into x >= 2, y >= 1, z >= 1
    in.extent = make_cudaExtent(4, 3, 2);
    in.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&in));
    cudaMemcpy3DParms out = {};
    out.srcPtr = p3;
    out.dstPtr = make_cudaPitchedPtr(out3, 6, 6, 4);
    out.extent = ext;
    out.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&out));
    bad = 0;
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 6; x++) {
                bool inside = z >= 1 && y >= 1 && x >= 2;
                bad += out3[z][y][x] != (inside ? cube[z - 1][y - 1][x - 2] : 0x11);
            }
    TRUE(bad == 0);

    // Registered host memory: a kernel works on the program's own pages in place.
    int *host = (int *)mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 2048; i++) host[i] = i;
    CHECK(cudaHostRegister(host, 8192, cudaHostRegisterMapped));
    int *dhost = nullptr;
    CHECK(cudaHostGetDevicePointer((void **)&dhost, host, 0));
    bump<<<8, 256>>>(dhost, 2048);
    CHECK(cudaDeviceSynchronize());
    TRUE(host[0] == 1 && host[2047] == 2048);
    unsigned int hflags = 0;
    CHECK(cudaHostGetFlags(&hflags, host));
    TRUE(hflags & cudaHostRegisterMapped);
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, d2));
    TRUE(a.type == cudaMemoryTypeDevice && a.device == 0 && a.devicePointer == d2 && a.hostPointer == nullptr);
    CHECK(cudaPointerGetAttributes(&a, host));
    TRUE(a.type == cudaMemoryTypeHost && a.devicePointer == dhost && a.hostPointer == host);
    int local = 0;
    CHECK(cudaPointerGetAttributes(&a, &local));
    TRUE(a.type == cudaMemoryTypeUnregistered && a.devicePointer == nullptr);
    CHECK(cudaHostUnregister(host));
    EXPECT(cudaHostUnregister(host), cudaErrorHostMemoryNotRegistered);
    munmap(host, 8192);

    // Occupancy: the runtime's answers are the driver's.
    int nblocks = 0, minGrid = 0, block = 0, sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nblocks, bump, 256, 0));
    TRUE(nblocks >= 1);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, bump));
    cudaFunction_t f;
    CHECK(cudaGetFuncBySymbol(&f, (const void *)bump));
    int dMin = 0, dBlock = 0;
    TRUE(cuOccupancyMaxPotentialBlockSize(&dMin, &dBlock, (CUfunction)f, nullptr, 0, 0) == CUDA_SUCCESS);
    TRUE(block == dBlock && minGrid == dMin && block % 32 == 0 && block <= 1024);
    int atBlock = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&atBlock, bump, block, 0));
    TRUE(minGrid == atBlock * sms);
    size_t avail = 0;
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, big_shared, 2, 32));
    int with = 0, beyond = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with, big_shared, 32, avail));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&beyond, big_shared, 32, avail + 1024));
    TRUE(avail > 0 && with >= 2 && beyond < 2);

    // A kernel's dynamic shared memory limit: at most the device's opt-in, enforced at
    // launch (48 KiB less its static shared memory until set).
    int *o, ho[32];
    CHECK(cudaMalloc(&o, sizeof ho));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    EXPECT(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)prop.sharedMemPerBlockOptin + 1),
           cudaErrorInvalidValue);
    const int big = 16 * 1024;
    CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, big_shared));
    TRUE(fa.maxDynamicSharedSizeBytes == big);
    big_shared<<<1, 32, 2 * big>>>(o);
    EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
    big_shared<<<1, 32, big>>>(o);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost));
    TRUE(ho[0] == 31 && ho[31] == 0);
    const char *name = nullptr;
    CHECK(cudaFuncGetName(&name, (const void *)big_shared));
    TRUE(name && strcmp(name, "_Z10big_sharedPi") == 0);

    // Cache and bank-size preferences are kept and reported.
    cudaFuncCache cc;
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CHECK(cudaDeviceGetCacheConfig(&cc));
    TRUE(cc == cudaFuncCachePreferShared);
    CHECK(cudaFuncSetCacheConfig(bump, cudaFuncCachePreferL1));
    EXPECT(cudaDeviceSetCacheConfig((cudaFuncCache)9), cudaErrorInvalidValue);
    cudaSharedMemConfig sc;
    CHECK(cudaDeviceGetSharedMemConfig(&sc));
    TRUE(sc == cudaSharedMemBankSizeFourByte);

    // Cooperative launches: all blocks resident, or refused.
    int *c;
    CHECK(cudaMalloc(&c, 4096 * sizeof(int)));
    CHECK(cudaMemset(c, 0, 4096 * sizeof(int)));
    int n = 4096;
    void *args[] = {&c, &n};
    CHECK(cudaLaunchCooperativeKernel((const void *)bump, dim3(16), dim3(256), args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    int hc[4096];
    CHECK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
    TRUE(hc[0] == 1 && hc[4095] == 1);
    EXPECT(cudaLaunchCooperativeKernel((const void *)bump, dim3(nblocks * sms + 1), dim3(256), args, 0, 0),
           cudaErrorCooperativeLaunchTooLarge);

    // Stream priorities and flags.
    int least = 0, greatest = 0, prio = 99;
    unsigned int sflags = 9;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TRUE(greatest <= least);
    cudaStream_t s;
    CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    CHECK(cudaStreamGetPriority(s, &prio));
    CHECK(cudaStreamGetFlags(s, &sflags));
    TRUE(prio == greatest && sflags == cudaStreamNonBlocking);
    CHECK(cudaStreamDestroy(s));

    // PCI ids, deprecated names, limits.
    char bus[32];
    int dev = -1;
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    CHECK(cudaDeviceGetByPCIBusId(&dev, bus));
    TRUE(dev == 0);
    CHECK(cudaThreadSynchronize());
    size_t stack = 0;
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CHECK(cudaThreadGetLimit(&stack, cudaLimitStackSize));
    TRUE(stack == 4096);

    // A Driver API entry point through the runtime.
    void *fp = nullptr;
    cudaDriverEntryPointQueryResult qs;
    CHECK(cudaGetDriverEntryPoint("cuMemAlloc", &fp, cudaEnableDefault, &qs));
    TRUE(fp != nullptr && qs == cudaDriverEntryPointSuccess);
    CUdeviceptr viaEntry = 0;
    TRUE(((CUresult(*)(CUdeviceptr *, size_t))fp)(&viaEntry, 256) == CUDA_SUCCESS && viaEntry != 0);
    CHECK(cudaGetDriverEntryPoint("cuNoSuchThing", &fp, cudaEnableDefault, &qs));
    TRUE(qs == cudaDriverEntryPointSymbolNotFound);

    // What rgdev does not implement says so.
    void *m = nullptr;
    EXPECT(cudaMallocAsync(&m, 64, 0), cudaErrorNotSupported);
    EXPECT(cudaGetLastError(), cudaErrorNotSupported);
    return report();
}
