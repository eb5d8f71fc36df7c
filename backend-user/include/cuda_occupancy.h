/* rgdev's cuda_occupancy.h: CUDA's occupancy calculator as a header-only library.
 *
 * Written for rgdev from CUDA's documentation of this header (CUDA 12.9): the same types,
 * enumerators, functions and results, for every compute capability from 3.0 to 12.x.
 * Given a device's properties (a cudaOccDeviceProp, which converts from cudaDeviceProp),
 * a kernel's attributes (cudaOccFuncAttributes, from cudaFuncAttributes) and the cache
 * configuration (cudaOccDeviceState), it answers how many blocks of a size one SM holds at
 * once and what limits them, which block size reaches the highest occupancy, and how much
 * dynamic shared memory a block may have at a given occupancy — without a device, in host or
 * device code, in C or C++.
 *
 * The rules, per architecture (NVIDIA's occupancy calculator; CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability"):
 * - threads are allocated in whole warps;
 * - registers per warp in units of 256, from one of 4 register-file sub-partitions (2 on
 *   GP100), at most 255 per thread before Volta and 256 from Volta on; a block whose warps,
 *   rounded up to a multiple of the sub-partitions, need more registers than a block may
 *   have cannot launch;
 * - shared memory in units of 256 bytes up to Volta/Turing and 128 bytes from Ampere on,
 *   plus the driver's reserved shared memory per block from Ampere on; from Volta on the SM's
 *   shared memory is one of a few carveout sizes, the one the preference asks for, or the
 *   least that holds one block;
 * - resident blocks per SM: 16 (3.x, 7.5, 8.6, 8.7), 24 (8.9, 10.1, 12.x), 32 (the others);
 * - from Hopper on, the SM's block barriers (two per block slot, or one on some parts).
 * Compute capability 2.x (Fermi) is not covered by CUDA 12.9's calculator: it answers
 * CUDA_OCC_ERROR_UNKNOWN_DEVICE, as CUDA's does. rgdev's runtime, whose Fermi presets it
 * does cover, answers cudaOccupancy* for every preset.
 */
#ifndef __cuda_occupancy_h__
#define __cuda_occupancy_h__

#include <stddef.h>
#include <limits.h>

#if defined(__CUDA__) && defined(__host__)
#define __OCC_INLINE inline __host__ __device__
#else
#define __OCC_INLINE inline
#endif

enum cudaOccError_enum {
    CUDA_OCC_SUCCESS = 0,
    CUDA_OCC_ERROR_INVALID_INPUT = 1,
    CUDA_OCC_ERROR_UNKNOWN_DEVICE = 2
};
typedef enum cudaOccError_enum cudaOccError;

typedef struct cudaOccResult cudaOccResult;
typedef struct cudaOccDeviceProp cudaOccDeviceProp;
typedef struct cudaOccFuncAttributes cudaOccFuncAttributes;
typedef struct cudaOccDeviceState cudaOccDeviceState;

/* What the calculator needs of a device. */
struct cudaOccDeviceProp {
    int computeMajor;
    int computeMinor;
    int maxThreadsPerBlock;
    int maxThreadsPerMultiprocessor;
    int regsPerBlock;
    int regsPerMultiprocessor;
    int warpSize;
    size_t sharedMemPerBlock;
    size_t sharedMemPerMultiprocessor;
    int numSms;
    size_t sharedMemPerBlockOptin;
    size_t reservedSharedMemPerBlock;
#ifdef __cplusplus
    /* From a cudaDeviceProp (or anything with its field names). */
    template <typename DeviceProp>
    __OCC_INLINE cudaOccDeviceProp(const DeviceProp &p)
        : computeMajor(p.major), computeMinor(p.minor), maxThreadsPerBlock(p.maxThreadsPerBlock),
          maxThreadsPerMultiprocessor(p.maxThreadsPerMultiProcessor), regsPerBlock(p.regsPerBlock),
          regsPerMultiprocessor(p.regsPerMultiprocessor), warpSize(p.warpSize),
          sharedMemPerBlock(p.sharedMemPerBlock), sharedMemPerMultiprocessor(p.sharedMemPerMultiprocessor),
          numSms(p.multiProcessorCount), sharedMemPerBlockOptin(p.sharedMemPerBlockOptin),
          reservedSharedMemPerBlock(p.reservedSharedMemPerBlock) {}
    __OCC_INLINE cudaOccDeviceProp()
        : computeMajor(0), computeMinor(0), maxThreadsPerBlock(0), maxThreadsPerMultiprocessor(0),
          regsPerBlock(0), regsPerMultiprocessor(0), warpSize(0), sharedMemPerBlock(0),
          sharedMemPerMultiprocessor(0), numSms(0), sharedMemPerBlockOptin(0), reservedSharedMemPerBlock(0) {}
#endif
};

typedef enum cudaOccPartitionedGCConfig_enum {
    PARTITIONED_GC_OFF,
    PARTITIONED_GC_ON,
    PARTITIONED_GC_ON_STRICT
} cudaOccPartitionedGCConfig;

typedef enum cudaOccFuncShmemConfig_enum {
    FUNC_SHMEM_LIMIT_DEFAULT,
    FUNC_SHMEM_LIMIT_OPTIN
} cudaOccFuncShmemConfig;

/* What the calculator needs of a kernel. */
struct cudaOccFuncAttributes {
    int maxThreadsPerBlock;
    int numRegs;
    size_t sharedSizeBytes;
    cudaOccPartitionedGCConfig partitionedGCConfig;
    cudaOccFuncShmemConfig shmemLimitConfig;
    size_t maxDynamicSharedSizeBytes;
    int numBlockBarriers;
#ifdef __cplusplus
    /* From a cudaFuncAttributes: the kernel may opt in to more shared memory, up to its
       maxDynamicSharedSizeBytes, and uses one block barrier. */
    template <typename FuncAttributes>
    __OCC_INLINE cudaOccFuncAttributes(const FuncAttributes &a)
        : maxThreadsPerBlock(a.maxThreadsPerBlock), numRegs(a.numRegs), sharedSizeBytes(a.sharedSizeBytes),
          partitionedGCConfig(PARTITIONED_GC_OFF), shmemLimitConfig(FUNC_SHMEM_LIMIT_OPTIN),
          maxDynamicSharedSizeBytes(a.maxDynamicSharedSizeBytes), numBlockBarriers(1) {}
    __OCC_INLINE cudaOccFuncAttributes()
        : maxThreadsPerBlock(0), numRegs(0), sharedSizeBytes(0), partitionedGCConfig(PARTITIONED_GC_OFF),
          shmemLimitConfig(FUNC_SHMEM_LIMIT_DEFAULT), maxDynamicSharedSizeBytes(0), numBlockBarriers(0) {}
#endif
};

typedef enum cudaOccCacheConfig_enum {
    CACHE_PREFER_NONE = 0x00,
    CACHE_PREFER_SHARED = 0x01,
    CACHE_PREFER_L1 = 0x02,
    CACHE_PREFER_EQUAL = 0x03
} cudaOccCacheConfig;

typedef enum cudaOccCarveoutConfig_enum {
    SHAREDMEM_CARVEOUT_DEFAULT = -1,
    SHAREDMEM_CARVEOUT_MAX_SHARED = 100,
    SHAREDMEM_CARVEOUT_MAX_L1 = 0,
    SHAREDMEM_CARVEOUT_HALF = 50
} cudaOccCarveoutConfig;

/* The device's cache configuration: cacheConfig before Volta, carveoutConfig (a percentage of
   the SM's shared memory, or SHAREDMEM_CARVEOUT_DEFAULT) from Volta on. */
struct cudaOccDeviceState {
    cudaOccCacheConfig cacheConfig;
    int carveoutConfig;
#ifdef __cplusplus
    __OCC_INLINE cudaOccDeviceState() : cacheConfig(CACHE_PREFER_NONE), carveoutConfig(SHAREDMEM_CARVEOUT_DEFAULT) {}
#endif
};

typedef enum cudaOccLimitingFactor_enum {
    OCC_LIMIT_WARPS = 0x01,
    OCC_LIMIT_REGISTERS = 0x02,
    OCC_LIMIT_SHARED_MEMORY = 0x04,
    OCC_LIMIT_BLOCKS = 0x08,
    OCC_LIMIT_BARRIERS = 0x10
} cudaOccLimitingFactor;

/* The answer of cudaOccMaxActiveBlocksPerMultiprocessor: the blocks, each resource's own
   limit (INT_MAX where the kernel does not use it), the limiting ones, and what one block
   is allocated. */
struct cudaOccResult {
    int activeBlocksPerMultiprocessor;
    unsigned int limitingFactors;
    int blockLimitRegs;
    int blockLimitSharedMem;
    int blockLimitWarps;
    int blockLimitBlocks;
    int blockLimitBarriers;
    int allocatedRegistersPerBlock;
    size_t allocatedSharedMemPerBlock;
    cudaOccPartitionedGCConfig partitionedGCConfig;
};

typedef enum cudaOccPartitionedGCSupport_enum {
    PARTITIONED_GC_NOT_SUPPORTED,
    PARTITIONED_GC_SUPPORTED
} cudaOccPartitionedGCSupport;

#define __CUDA_OCC_MAJOR__ 12
#define __CUDA_OCC_MINOR__ 1

/* ---- The architectures' facts (rgdev's implementation; not part of the API) ---- */

/* One compute capability's allocation rule. */
typedef struct __rgdev_occ_arch {
    int regUnit;       /* registers per warp are allocated in multiples of this */
    int maxRegs;       /* registers a thread may have */
    int subPartitions; /* register-file sub-partitions */
    int maxBlocks;     /* resident blocks per SM */
    int smemUnit;      /* shared memory per block is allocated in multiples of this (0: unknown) */
    int barrierSlots;  /* block barriers per resident block slot (counted from cc 9.0) */
    int carveouts;     /* how many of __rgdev_occ_carveout's sizes the SM can take (0: unknown) */
    int turing;        /* 7.5: at least 32 KiB, at most 64 KiB */
    int partitionedGC; /* partitioned global caching exists (5.2, 5.3, 6.1, 6.2) */
} __rgdev_occ_arch;

/* The i-th of the shared memory sizes (KiB) a Volta-or-later SM is configured to, smallest
   first: 0, 8, 16, 32, 64, then 96 (Volta) or 100 (Ampere on), 132, 164, 196, 228; each part
   takes a prefix of them. */
static __OCC_INLINE int __rgdev_occ_carveout(int i, int major) {
    switch (i) {
    case 0: return 0;
    case 1: return 8;
    case 2: return 16;
    case 3: return 32;
    case 4: return 64;
    case 5: return major >= 8 ? 100 : 96;
    default: return 132 + 32 * (i - 6);
    }
}

/* The rule of `p`'s compute capability; 0 for one the calculator does not know. */
static __OCC_INLINE int __rgdev_occ_arch_of(const cudaOccDeviceProp *p, __rgdev_occ_arch *a) {
    int major = p->computeMajor, minor = p->computeMinor;
    a->regUnit = 256;
    a->maxRegs = major >= 7 ? 256 : 255;
    a->subPartitions = (major == 6 && minor == 0) ? 2 : 4;
    a->smemUnit = major >= 8 ? 128 : 256;
    a->barrierSlots = 2;
    a->carveouts = 0;
    a->turing = 0;
    a->partitionedGC = (major == 5 && (minor == 2 || minor == 3)) || (major == 6 && minor != 0);
    switch (major) {
    case 3:
        a->maxBlocks = 16;
        break;
    case 5:
    case 6:
        a->maxBlocks = 32;
        break;
    case 7:
        a->turing = minor == 5;
        a->maxBlocks = a->turing ? 16 : 32;
        a->carveouts = 6;
        break;
    case 8:
        a->maxBlocks = minor == 0 ? 32 : minor == 9 ? 24 : 16;
        a->barrierSlots = minor == 0 ? 2 : 1;
        a->carveouts = (minor == 0 || minor == 7) ? 8 : 6;
        break;
    case 9:
        a->maxBlocks = 32;
        a->carveouts = 10;
        break;
    case 10:
        a->maxBlocks = minor == 1 ? 24 : 32;
        a->barrierSlots = minor == 1 ? 1 : 2;
        a->carveouts = (minor == 0 || minor == 1 || minor == 3) ? 10 : 0;
        break;
    case 12:
        a->maxBlocks = 24;
        a->barrierSlots = 1;
        a->carveouts = (minor == 0 || minor == 1) ? 6 : 0;
        break;
    default:
        return 0;
    }
    return 1;
}

static __OCC_INLINE int __rgdev_occ_min(int a, int b) { return b < a ? b : a; }

static __OCC_INLINE int __rgdev_occ_round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

/* The smallest shared-memory configuration of a Volta-or-later SM that holds `bytes`. */
static __OCC_INLINE cudaOccError __rgdev_occ_carveout_fit(size_t *bytes, const cudaOccDeviceProp *p,
                                                         const __rgdev_occ_arch *a) {
    int i;
    if (a->turing) {
        if (*bytes > 64 * 1024) return CUDA_OCC_ERROR_INVALID_INPUT;
        *bytes = *bytes <= 32 * 1024 ? 32 * 1024 : 64 * 1024;
        return CUDA_OCC_SUCCESS;
    }
    if (a->carveouts == 0) return CUDA_OCC_ERROR_UNKNOWN_DEVICE;
    for (i = 0; i < a->carveouts; i++) {
        size_t size = (size_t)__rgdev_occ_carveout(i, p->computeMajor) * 1024;
        if (*bytes <= size) {
            *bytes = size;
            return CUDA_OCC_SUCCESS;
        }
    }
    return CUDA_OCC_ERROR_INVALID_INPUT;
}

/* The shared memory an SM has for blocks under the device state's preference. */
static __OCC_INLINE cudaOccError __rgdev_occ_smem_per_sm(size_t *bytes, const cudaOccDeviceProp *p,
                                                        const cudaOccDeviceState *s, const __rgdev_occ_arch *a) {
    size_t full = p->sharedMemPerMultiprocessor;
    if (p->computeMajor >= 7) {
        int percent = s->carveoutConfig;
        if (percent < SHAREDMEM_CARVEOUT_DEFAULT || percent > SHAREDMEM_CARVEOUT_MAX_SHARED)
            return CUDA_OCC_ERROR_INVALID_INPUT;
        if (percent == SHAREDMEM_CARVEOUT_DEFAULT) {
            /* The older cache preference stands in for a carveout. */
            percent = s->cacheConfig == CACHE_PREFER_L1       ? SHAREDMEM_CARVEOUT_MAX_L1
                      : s->cacheConfig == CACHE_PREFER_SHARED ? SHAREDMEM_CARVEOUT_MAX_SHARED
                      : s->cacheConfig == CACHE_PREFER_EQUAL  ? SHAREDMEM_CARVEOUT_HALF
                                                              : SHAREDMEM_CARVEOUT_DEFAULT;
        }
        *bytes = percent == SHAREDMEM_CARVEOUT_DEFAULT ? full : (size_t)percent * full / 100;
        return __rgdev_occ_carveout_fit(bytes, p, a);
    }
    if (p->computeMajor == 3) {
        /* Kepler splits 64 KiB between L1 (16 to 48 KiB) and shared memory. */
        size_t low = full + 16384 - 49152;
        *bytes = s->cacheConfig == CACHE_PREFER_L1 ? low : s->cacheConfig == CACHE_PREFER_EQUAL ? (full + low) / 2 : full;
    } else {
        *bytes = full;
    }
    return CUDA_OCC_SUCCESS;
}

/* The most shared memory one block may be allocated (with the reserved part from Ampere on):
   the opt-in limit where the kernel opted in and needs more than the default. */
static __OCC_INLINE size_t __rgdev_occ_smem_per_block(const cudaOccDeviceProp *p, cudaOccFuncShmemConfig config,
                                                      size_t need) {
    size_t limit = p->sharedMemPerBlock;
    if (p->computeMajor >= 7 && config == FUNC_SHMEM_LIMIT_OPTIN && need > p->sharedMemPerBlock)
        limit = p->sharedMemPerBlockOptin;
    if (p->computeMajor >= 8) limit += p->reservedSharedMemPerBlock;
    return limit;
}

static __OCC_INLINE cudaOccError __rgdev_occ_check(const cudaOccDeviceProp *p, const cudaOccFuncAttributes *f) {
    if (p->maxThreadsPerBlock <= 0 || p->maxThreadsPerMultiprocessor <= 0 || p->regsPerBlock <= 0 ||
        p->regsPerMultiprocessor <= 0 || p->warpSize <= 0 || p->sharedMemPerBlock == 0 ||
        p->sharedMemPerMultiprocessor == 0 || p->numSms <= 0)
        return CUDA_OCC_ERROR_INVALID_INPUT;
    if (f->maxThreadsPerBlock <= 0 || f->numRegs < 0) return CUDA_OCC_ERROR_INVALID_INPUT;
    return CUDA_OCC_SUCCESS;
}

/* Blocks per SM as registers allow (INT_MAX for a kernel without registers). With
   partitioned global caching the SM counts as two halves, each holding whole blocks; where
   that leaves no block the caching is given up, unless the kernel insists on it. */
static __OCC_INLINE int __rgdev_occ_regs_limit(const cudaOccDeviceProp *p, const cudaOccFuncAttributes *f,
                                              const __rgdev_occ_arch *a, int warps, cudaOccPartitionedGCConfig *gc,
                                              int *perBlock) {
    int warpRegs = __rgdev_occ_round_up(f->numRegs * p->warpSize, a->regUnit);
    int warpsPerPart, blocks = 0;
    *perBlock = warpRegs * warps;
    if (f->numRegs > a->maxRegs || *perBlock > p->regsPerBlock ||
        warpRegs * __rgdev_occ_round_up(warps, a->subPartitions) > p->regsPerBlock)
        return 0;
    if (warpRegs == 0) return INT_MAX;
    warpsPerPart = p->regsPerMultiprocessor / a->subPartitions / warpRegs;
    if (*gc != PARTITIONED_GC_OFF) blocks = warpsPerPart * (a->subPartitions / 2) / warps * 2;
    if (blocks == 0 && *gc != PARTITIONED_GC_ON_STRICT) blocks = warpsPerPart * a->subPartitions / warps;
    return blocks;
}

/* Blocks per SM as shared memory allows (INT_MAX for a block without any). */
static __OCC_INLINE cudaOccError __rgdev_occ_smem_limit(int *limit, size_t *perBlock, const cudaOccDeviceProp *p,
                                                       const cudaOccFuncAttributes *f, const cudaOccDeviceState *s,
                                                       const __rgdev_occ_arch *a, size_t dynamicSmemSize) {
    size_t preferred, perSm, statics = f->sharedSizeBytes + p->reservedSharedMemPerBlock;
    size_t alloc = (size_t)__rgdev_occ_round_up((int)(statics + dynamicSmemSize), a->smemUnit);
    cudaOccError e = __rgdev_occ_smem_per_sm(&preferred, p, s, a);
    if (e != CUDA_OCC_SUCCESS) return e;
    *perBlock = alloc;
    if ((f->shmemLimitConfig != FUNC_SHMEM_LIMIT_DEFAULT && dynamicSmemSize > f->maxDynamicSharedSizeBytes) ||
        alloc > __rgdev_occ_smem_per_block(p, f->shmemLimitConfig, statics + f->maxDynamicSharedSizeBytes)) {
        *limit = 0;
        return CUDA_OCC_SUCCESS;
    }
    perSm = preferred;
    if (preferred < alloc) {
        /* The driver configures the SM for at least one block. */
        perSm = p->computeMajor >= 7 ? alloc : p->sharedMemPerMultiprocessor;
        if (p->computeMajor >= 7) {
            e = __rgdev_occ_carveout_fit(&perSm, p, a);
            if (e != CUDA_OCC_SUCCESS) return e;
        }
    }
    *limit = alloc > 0 ? (int)(perSm / alloc) : INT_MAX;
    return CUDA_OCC_SUCCESS;
}

/* ---- The API ---- */

/* How many blocks of `blockSize` threads with `dynamicSmemSize` bytes of dynamic shared
   memory one SM holds at once, and what limits them. */
static __OCC_INLINE cudaOccError cudaOccMaxActiveBlocksPerMultiprocessor(
    cudaOccResult *result, const cudaOccDeviceProp *properties, const cudaOccFuncAttributes *attributes,
    const cudaOccDeviceState *state, int blockSize, size_t dynamicSmemSize) {
    __rgdev_occ_arch a;
    cudaOccPartitionedGCConfig gc;
    cudaOccError e;
    int warps, regs, warpsLimit, smem, blocks, bars = INT_MAX, limit;
    unsigned int factors = 0;
    if (!result || !properties || !attributes || !state || blockSize <= 0) return CUDA_OCC_ERROR_INVALID_INPUT;
    e = __rgdev_occ_check(properties, attributes);
    if (e != CUDA_OCC_SUCCESS) return e;
    if (!__rgdev_occ_arch_of(properties, &a)) return CUDA_OCC_ERROR_UNKNOWN_DEVICE;
    gc = a.partitionedGC ? attributes->partitionedGCConfig : PARTITIONED_GC_OFF;
    warps = (blockSize + properties->warpSize - 1) / properties->warpSize;

    regs = __rgdev_occ_regs_limit(properties, attributes, &a, warps, &gc, &result->allocatedRegistersPerBlock);
    if (properties->computeMajor == 6 && properties->computeMinor == 0 && regs) {
        /* GP100: a block must also fit the register file as four sub-partitions see it. */
        __rgdev_occ_arch four = a;
        cudaOccPartitionedGCConfig gc4 = gc;
        int ignored;
        four.subPartitions = 4;
        if (__rgdev_occ_regs_limit(properties, attributes, &four, warps, &gc4, &ignored) == 0) regs = 0;
    }

    if (blockSize > properties->maxThreadsPerBlock) {
        warpsLimit = 0;
    } else {
        int smWarps = properties->maxThreadsPerMultiprocessor / properties->warpSize;
        warpsLimit = gc != PARTITIONED_GC_OFF ? smWarps / 2 / warps * 2 : smWarps / warps;
    }
    blocks = a.maxBlocks;
    e = __rgdev_occ_smem_limit(&smem, &result->allocatedSharedMemPerBlock, properties, attributes, state, &a,
                               dynamicSmemSize);
    if (e != CUDA_OCC_SUCCESS) return e;

    limit = __rgdev_occ_min(__rgdev_occ_min(regs, smem), __rgdev_occ_min(warpsLimit, blocks));
    if (limit == warpsLimit) factors |= OCC_LIMIT_WARPS;
    if (limit == regs) factors |= OCC_LIMIT_REGISTERS;
    if (limit == smem) factors |= OCC_LIMIT_SHARED_MEMORY;
    if (limit == blocks) factors |= OCC_LIMIT_BLOCKS;
    if (properties->computeMajor >= 9 && attributes->numBlockBarriers > 0) {
        bars = blocks * a.barrierSlots / attributes->numBlockBarriers;
        limit = __rgdev_occ_min(bars, limit);
        if (limit == bars) factors |= OCC_LIMIT_BARRIERS;
    }
    result->activeBlocksPerMultiprocessor = limit;
    result->limitingFactors = factors;
    result->blockLimitRegs = regs;
    result->blockLimitSharedMem = smem;
    result->blockLimitWarps = warpsLimit;
    result->blockLimitBlocks = blocks;
    result->blockLimitBarriers = bars;
    result->partitionedGCConfig = gc;
    return CUDA_OCC_SUCCESS;
}

/* The dynamic shared memory each of `numBlocks` blocks of `blockSize` threads may have when
   they are to be resident on one SM together. */
static __OCC_INLINE cudaOccError cudaOccAvailableDynamicSMemPerBlock(
    size_t *dynamicSmemSize, const cudaOccDeviceProp *properties, const cudaOccFuncAttributes *attributes,
    const cudaOccDeviceState *state, int numBlocks, int blockSize) {
    __rgdev_occ_arch a;
    cudaOccResult r;
    size_t perBlock, perSm = 0, each;
    cudaOccError e;
    if (numBlocks <= 0) return CUDA_OCC_ERROR_INVALID_INPUT;
    e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, properties, attributes, state, blockSize, 0);
    if (e != CUDA_OCC_SUCCESS) return e;
    if (r.activeBlocksPerMultiprocessor < numBlocks) return CUDA_OCC_ERROR_INVALID_INPUT;
    __rgdev_occ_arch_of(properties, &a);
    perBlock = __rgdev_occ_smem_per_block(properties, attributes->shmemLimitConfig,
                                          properties->sharedMemPerMultiprocessor);
    __rgdev_occ_smem_per_sm(&perSm, properties, state, &a);
    if (numBlocks == 1) {
        perSm = perBlock;
    } else if (perSm == 0) {
        /* A carveout of no shared memory: the smallest configuration that has some. */
        perSm = 1;
        e = __rgdev_occ_carveout_fit(&perSm, properties, &a);
        if (e != CUDA_OCC_SUCCESS) return e;
    }
    each = perSm / numBlocks / a.smemUnit * a.smemUnit;
    if (each > perBlock) each = perBlock;
    each -= attributes->sharedSizeBytes;
    if (each > attributes->maxDynamicSharedSizeBytes) each = attributes->maxDynamicSharedSizeBytes;
    *dynamicSmemSize = each;
    return CUDA_OCC_SUCCESS;
}

/* The block-size search of the three forms below; SMEM_OF(threads) is the dynamic shared
   memory of a block of that many threads. */
#define __RGDEV_OCC_SEARCH(SMEM_OF)                                                                          \
    do {                                                                                                     \
        cudaOccResult r;                                                                                     \
        cudaOccError e;                                                                                      \
        int limit, size, best = 0, bestBlocks = 0, bestThreads = 0;                                        \
        if (!minGridSize || !blockSize || !properties || !attributes || !state)                              \
            return CUDA_OCC_ERROR_INVALID_INPUT;                                                             \
        e = __rgdev_occ_check(properties, attributes);                                                       \
        if (e != CUDA_OCC_SUCCESS) return e;                                                                 \
        limit = __rgdev_occ_min(properties->maxThreadsPerBlock, attributes->maxThreadsPerBlock);             \
        for (size = __rgdev_occ_round_up(limit, properties->warpSize); size > 0; size -= properties->warpSize) { \
            int tryThreads = __rgdev_occ_min(limit, size);                                                   \
            e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, properties, attributes, state, tryThreads,       \
                                                        SMEM_OF(tryThreads));                                \
            if (e != CUDA_OCC_SUCCESS) return e;                                                             \
            if (tryThreads * r.activeBlocksPerMultiprocessor > bestThreads) {                                \
                best = tryThreads;                                                                           \
                bestBlocks = r.activeBlocksPerMultiprocessor;                                                \
                bestThreads = tryThreads * bestBlocks;                                                       \
            }                                                                                                \
            if (bestThreads == properties->maxThreadsPerMultiprocessor) break;                              \
        }                                                                                                    \
        *minGridSize = bestBlocks * properties->numSms;                                                      \
        *blockSize = best;                                                                                   \
        return CUDA_OCC_SUCCESS;                                                                             \
    } while (0)

/* The block size (a multiple of the warp size, or the kernel's limit) with the most resident
   threads per SM, the largest such on a tie, and the grid that fills the device with it;
   the dynamic shared memory is `dynamicSMemSize`, or what `blockSizeToDynamicSMemSize` says
   for each block size when it is given. */
static __OCC_INLINE cudaOccError cudaOccMaxPotentialOccupancyBlockSize(
    int *minGridSize, int *blockSize, const cudaOccDeviceProp *properties, const cudaOccFuncAttributes *attributes,
    const cudaOccDeviceState *state, size_t (*blockSizeToDynamicSMemSize)(int), size_t dynamicSMemSize) {
#define __RGDEV_OCC_FIXED_OR_FN(n) (blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(n) : dynamicSMemSize)
    __RGDEV_OCC_SEARCH(__RGDEV_OCC_FIXED_OR_FN);
#undef __RGDEV_OCC_FIXED_OR_FN
}

#ifdef __cplusplus
namespace {
/* The same with a fixed dynamic shared memory size. */
__OCC_INLINE cudaOccError cudaOccMaxPotentialOccupancyBlockSize(int *minGridSize, int *blockSize,
                                                                const cudaOccDeviceProp *properties,
                                                                const cudaOccFuncAttributes *attributes,
                                                                const cudaOccDeviceState *state,
                                                                size_t dynamicSMemSize = 0) {
    return cudaOccMaxPotentialOccupancyBlockSize(minGridSize, blockSize, properties, attributes, state,
                                                 (size_t (*)(int))0, dynamicSMemSize);
}

/* The same with the dynamic shared memory a function object gives for each block size. */
template <typename UnaryFunction>
__OCC_INLINE cudaOccError cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, const cudaOccDeviceProp *properties, const cudaOccFuncAttributes *attributes,
    const cudaOccDeviceState *state, UnaryFunction blockSizeToDynamicSMemSize) {
#define __RGDEV_OCC_CALL(n) ((size_t)blockSizeToDynamicSMemSize(n))
    __RGDEV_OCC_SEARCH(__RGDEV_OCC_CALL);
#undef __RGDEV_OCC_CALL
}
} // namespace
#endif

#undef __RGDEV_OCC_SEARCH
#undef __OCC_INLINE
#endif /* __cuda_occupancy_h__ */
