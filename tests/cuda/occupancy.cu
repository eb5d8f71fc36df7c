/* <cuda_occupancy.h>, CUDA's header-only occupancy calculator, against the runtime's own
 * occupancy API on the device it runs on (the two must agree for every kernel, block size and
 * shared memory size tried), in device code too, and on the parts of other architectures
 * (A100, H100, Turing, Kepler, GP100, Fermi) with answers worked out by hand from the rules. */
#include <cuda_occupancy.h>
#include <cuda_runtime.h>
#include "check.cuh"

__global__ void light(float *out) { out[threadIdx.x] = threadIdx.x * 2.0f; }

__global__ void staticShared(float *out) {
    __shared__ float buf[3000]; // 12,000 bytes of static shared memory
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x * 7) % blockDim.x];
}

/* Many values live at once: a kernel with many registers. */
__global__ void heavy(const float *in, float *out) {
    float acc[40];
#pragma unroll
    for (int i = 0; i < 40; i++) acc[i] = in[threadIdx.x + i * 37];
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int i = 0; i < 40; i++) acc[i] = acc[i] * acc[(i + r + 1) % 40] + 1.0f;
    float s = 0;
#pragma unroll
    for (int i = 0; i < 40; i++) s += acc[i] * (i + 1);
    out[threadIdx.x] = s;
}

__global__ void dynamicShared(float *out) {
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = 1;
    __syncthreads();
    out[threadIdx.x] = dyn[0];
}

/* The calculator in device code. */
__global__ void onDevice(cudaOccDeviceProp prop, cudaOccFuncAttributes attr, int blockSize, size_t smem, int *out) {
    cudaOccDeviceState state;
    cudaOccResult r;
    out[0] = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, blockSize, smem);
    out[1] = r.activeBlocksPerMultiprocessor;
    out[2] = r.limitingFactors;
}

static size_t smemOf(int blockSize) { return blockSize * 8; }

struct PerThread {
    size_t bytes;
    size_t operator()(int blockSize) const { return bytes * blockSize; }
};

static int compared;

template <typename F> static void against_runtime(const char *name, F kernel, const cudaOccDeviceProp &prop) {
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, kernel));
    cudaOccFuncAttributes attr = fa;
    cudaOccDeviceState state;
    const int sizes[] = {1, 32, 33, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1025};
    const size_t smems[] = {0, 1, 1000, 4096, 8192, 13900, 20000, 30000, 40000, 49152};
    for (int b : sizes)
        for (size_t s : smems) {
            int runtime = -1;
            cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime, kernel, b, s);
            cudaOccResult r;
            cudaOccError oe = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, b, s);
            TRUE(oe == CUDA_OCC_SUCCESS);
            int header = r.activeBlocksPerMultiprocessor;
            if (e != cudaSuccess) runtime = 0; // a block the device cannot take
            if (runtime != header)
                fprintf(stderr, "%s (%d regs, %zu static): %d threads, %zu dynamic: runtime %d, header %d\n", name,
                        fa.numRegs, fa.sharedSizeBytes, b, s, runtime, header);
            TRUE(runtime == header);
            compared++;
        }
    int minGrid = 0, block = 0, occMinGrid = -1, occBlock = -1;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, kernel, 0, 0));
    TRUE(cudaOccMaxPotentialOccupancyBlockSize(&occMinGrid, &occBlock, &prop, &attr, &state, 0) == CUDA_OCC_SUCCESS);
    if (minGrid != occMinGrid || block != occBlock)
        fprintf(stderr, "%s: suggested block %d grid %d, header %d %d\n", name, block, minGrid, occBlock, occMinGrid);
    TRUE(minGrid == occMinGrid && block == occBlock);
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&minGrid, &block, kernel, smemOf, 0));
    TRUE(cudaOccMaxPotentialOccupancyBlockSize(&occMinGrid, &occBlock, &prop, &attr, &state, smemOf, 0) ==
         CUDA_OCC_SUCCESS);
    TRUE(minGrid == occMinGrid && block == occBlock);
    PerThread per{24};
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&minGrid, &block, kernel, per, 0));
    TRUE(cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(&occMinGrid, &occBlock, &prop, &attr, &state, per) ==
         CUDA_OCC_SUCCESS);
    TRUE(minGrid == occMinGrid && block == occBlock);
    compared += 3;
}

/* An A100 as cudaGetDeviceProperties describes it. */
static cudaOccDeviceProp a100() {
    cudaOccDeviceProp p;
    p.computeMajor = 8;
    p.computeMinor = 0;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsPerMultiprocessor = 2048;
    p.regsPerBlock = 65536;
    p.regsPerMultiprocessor = 65536;
    p.warpSize = 32;
    p.sharedMemPerBlock = 48 * 1024;
    p.sharedMemPerMultiprocessor = 164 * 1024;
    p.numSms = 108;
    p.sharedMemPerBlockOptin = 163 * 1024;
    p.reservedSharedMemPerBlock = 1024;
    return p;
}

static cudaOccFuncAttributes kernelWith(int regs, size_t staticSmem) {
    cudaOccFuncAttributes f;
    f.maxThreadsPerBlock = 1024;
    f.numRegs = regs;
    f.sharedSizeBytes = staticSmem;
    f.maxDynamicSharedSizeBytes = 48 * 1024 - staticSmem;
    f.numBlockBarriers = 1;
    return f;
}

static int blocks(const cudaOccDeviceProp &p, const cudaOccFuncAttributes &f, const cudaOccDeviceState &s, int size,
                  size_t smem, unsigned *factors = nullptr) {
    cudaOccResult r;
    cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &f, &s, size, smem);
    if (e != CUDA_OCC_SUCCESS) return -(int)e;
    if (factors) *factors = r.limitingFactors;
    return r.activeBlocksPerMultiprocessor;
}

/* Answers worked out by hand from the allocation rules. */
static void by_hand() {
    cudaOccDeviceState s;
    cudaOccDeviceProp p = a100();
    unsigned f = 0;
    // 32 registers: 1024 per warp, 16 warps per sub-partition, 64 per SM: 8 blocks of 8 warps;
    // the reserved kilobyte per block is the only shared memory (164 of them would fit).
    TRUE(blocks(p, kernelWith(32, 0), s, 256, 0, &f) == 8);
    TRUE(f == (OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS));
    // 40,000 + 1,024 bytes round up to 41,088 (128-byte units): 4 in 164 KiB.
    TRUE(blocks(p, kernelWith(32, 0), s, 128, 40000, &f) == 4);
    TRUE(f == OCC_LIMIT_SHARED_MEMORY);
    // Half the carveout is 82 KiB, configured as 100 KiB: 2 blocks.
    s.carveoutConfig = SHAREDMEM_CARVEOUT_HALF;
    TRUE(blocks(p, kernelWith(32, 0), s, 128, 40000) == 2);
    // No shared memory preferred: the SM is configured for one block (64 KiB).
    s.carveoutConfig = SHAREDMEM_CARVEOUT_MAX_L1;
    TRUE(blocks(p, kernelWith(32, 0), s, 128, 40000) == 1);
    s.carveoutConfig = 101;
    TRUE(blocks(p, kernelWith(32, 0), s, 128, 0) == -CUDA_OCC_ERROR_INVALID_INPUT);
    s.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
    // More dynamic shared memory than the kernel's opt-in limit: none.
    TRUE(blocks(p, kernelWith(32, 0), s, 128, 48 * 1024 + 1) == 0);
    cudaOccFuncAttributes big = kernelWith(32, 0);
    big.maxDynamicSharedSizeBytes = 100 * 1024;
    big.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    TRUE(blocks(p, big, s, 128, 100 * 1024) == 1); // 101 KiB: one per 164 KiB SM
    // 255 registers: 8,192 per warp (already a multiple of 256), 2 warps per sub-partition.
    TRUE(blocks(p, kernelWith(255, 0), s, 256, 0) == 1);
    TRUE(blocks(p, kernelWith(255, 0), s, 288, 0) == 0); // 9 warps, rounded to 12: 98,304 registers
    TRUE(blocks(p, kernelWith(257, 0), s, 32, 0) == 0);
    TRUE(blocks(p, kernelWith(16, 0), s, 32, 0, &f) == 32 && f == OCC_LIMIT_BLOCKS);
    TRUE(blocks(p, kernelWith(16, 0), s, 0, 0) == -CUDA_OCC_ERROR_INVALID_INPUT);
    TRUE(blocks(p, kernelWith(16, 0), s, 1056, 0) == 0);

    // The best block for 32 registers: 1024 threads, two blocks per SM, 216 blocks.
    int grid = 0, block = 0;
    TRUE(cudaOccMaxPotentialOccupancyBlockSize(&grid, &block, &p, &big, &s, 0) == CUDA_OCC_SUCCESS);
    TRUE(block == 1024 && grid == 216);
    // Dynamic shared memory for 4 blocks of 128 threads: 164 KiB / 4, less the static part.
    size_t avail = 0;
    cudaOccFuncAttributes withStatic = kernelWith(32, 2048);
    withStatic.maxDynamicSharedSizeBytes = 100 * 1024;
    withStatic.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    TRUE(cudaOccAvailableDynamicSMemPerBlock(&avail, &p, &withStatic, &s, 4, 128) == CUDA_OCC_SUCCESS);
    TRUE(avail == 41 * 1024 - 2048);
    TRUE(cudaOccAvailableDynamicSMemPerBlock(&avail, &p, &withStatic, &s, 1, 128) == CUDA_OCC_SUCCESS);
    TRUE(avail == 100 * 1024); // one block: the opt-in limit
    TRUE(cudaOccAvailableDynamicSMemPerBlock(&avail, &p, &withStatic, &s, 17, 128) == CUDA_OCC_ERROR_INVALID_INPUT);

    // H100: 228 KiB, 32 blocks, block barriers counted: 64 barriers for 3 a block is 21
    // (the block slots limited it before the barriers did: both are named).
    cudaOccDeviceProp h = p;
    h.computeMajor = 9;
    h.sharedMemPerMultiprocessor = 228 * 1024;
    h.sharedMemPerBlockOptin = 227 * 1024;
    cudaOccFuncAttributes bars = kernelWith(16, 0);
    TRUE(blocks(h, bars, s, 32, 0, &f) == 32 && f == OCC_LIMIT_BLOCKS);
    bars.numBlockBarriers = 3;
    TRUE(blocks(h, bars, s, 32, 0, &f) == 21 && f == (OCC_LIMIT_BLOCKS | OCC_LIMIT_BARRIERS));
    TRUE(blocks(h, kernelWith(32, 0), s, 128, 40000) == 5); // 228 KiB / 41,088

    // Turing: 16 blocks, shared memory configured as 32 or 64 KiB.
    cudaOccDeviceProp t = p;
    t.computeMajor = 7;
    t.computeMinor = 5;
    t.maxThreadsPerMultiprocessor = 1024;
    t.sharedMemPerMultiprocessor = 64 * 1024;
    t.sharedMemPerBlockOptin = 64 * 1024;
    t.reservedSharedMemPerBlock = 0;
    TRUE(blocks(t, kernelWith(16, 0), s, 32, 0, &f) == 16 && f == OCC_LIMIT_BLOCKS);
    s.carveoutConfig = SHAREDMEM_CARVEOUT_MAX_L1;
    TRUE(blocks(t, kernelWith(16, 0), s, 32, 10000) == 3); // 32 KiB / 10,240
    s.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;

    // Kepler (3.5): preferring L1 leaves 16 KiB of shared memory.
    cudaOccDeviceProp k = t;
    k.computeMajor = 3;
    k.computeMinor = 5;
    k.maxThreadsPerMultiprocessor = 2048;
    k.sharedMemPerMultiprocessor = 48 * 1024;
    k.sharedMemPerBlockOptin = 0;
    cudaOccFuncAttributes kf = kernelWith(16, 0);
    kf.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
    TRUE(blocks(k, kf, s, 64, 4000) == 12); // 48 KiB / 4,096
    s.cacheConfig = CACHE_PREFER_L1;
    TRUE(blocks(k, kf, s, 64, 4000) == 4);
    s.cacheConfig = CACHE_PREFER_EQUAL;
    TRUE(blocks(k, kf, s, 64, 4000) == 8);
    s.cacheConfig = CACHE_PREFER_NONE;

    // GP100 (6.0): two register sub-partitions; Pascal's 6.1 caches globals in partitions.
    cudaOccDeviceProp g = k;
    g.computeMajor = 6;
    g.computeMinor = 0;
    g.sharedMemPerMultiprocessor = 64 * 1024;
    g.regsPerBlock = g.regsPerMultiprocessor = 65536;
    TRUE(blocks(g, kernelWith(64, 0), s, 384, 0) == 2); // 16 warps per half, 12 a block: 32 / 12
    cudaOccFuncAttributes gc = kernelWith(64, 0);
    gc.partitionedGCConfig = PARTITIONED_GC_ON;
    cudaOccResult r;
    g.computeMinor = 1;
    TRUE(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &g, &gc, &s, 384, 0) == CUDA_OCC_SUCCESS);
    TRUE(r.activeBlocksPerMultiprocessor == 2 && r.partitionedGCConfig == PARTITIONED_GC_ON);
    TRUE(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &g, &gc, &s, 544, 0) == CUDA_OCC_SUCCESS);
    // 17 warps: no half of the SM holds one, so caching is given up: 32 / 17 = 1.
    TRUE(r.activeBlocksPerMultiprocessor == 1 && r.partitionedGCConfig == PARTITIONED_GC_ON);
    gc.partitionedGCConfig = PARTITIONED_GC_ON_STRICT;
    TRUE(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &g, &gc, &s, 544, 0) == CUDA_OCC_SUCCESS);
    TRUE(r.activeBlocksPerMultiprocessor == 0);

    // Fermi is outside CUDA 12.9's calculator.
    cudaOccDeviceProp fermi = k;
    fermi.computeMajor = 2;
    fermi.computeMinor = 0;
    TRUE(blocks(fermi, kf, s, 64, 0) == -CUDA_OCC_ERROR_UNKNOWN_DEVICE);
    cudaOccDeviceProp empty;
    TRUE(blocks(empty, kf, s, 64, 0) == -CUDA_OCC_ERROR_INVALID_INPUT);
}

int main() {
    cudaDeviceProp dp;
    CHECK(cudaGetDeviceProperties(&dp, 0));
    cudaOccDeviceProp prop = dp;
    TRUE(prop.numSms == dp.multiProcessorCount && prop.regsPerMultiprocessor == dp.regsPerMultiprocessor);
    against_runtime("light", light, prop);
    against_runtime("staticShared", staticShared, prop);
    against_runtime("heavy", heavy, prop);
    against_runtime("dynamicShared", dynamicShared, prop);
    by_hand();

    // The same answer from device code.
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, staticShared));
    cudaOccFuncAttributes attr = fa;
    int *out;
    CHECK(cudaMallocManaged(&out, 3 * sizeof(int)));
    onDevice<<<1, 1>>>(prop, attr, 192, 5000, out);
    CHECK(cudaDeviceSynchronize());
    cudaOccDeviceState state;
    cudaOccResult r;
    TRUE(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, 192, 5000) == CUDA_OCC_SUCCESS);
    TRUE(out[0] == CUDA_OCC_SUCCESS && out[1] == r.activeBlocksPerMultiprocessor && out[2] == (int)r.limitingFactors);
    TRUE(out[1] > 0);
    CHECK(cudaFree(out));
    if (report()) return 1;
    printf("occupancy: %d answers of <cuda_occupancy.h> agree with the runtime's\n", compared);
    return 0;
}
