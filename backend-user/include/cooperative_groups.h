/*
 * cooperative_groups.h for rgdev: CUDA's cooperative groups (namespace cooperative_groups)
 * over rgdev's device functions: thread blocks, the grid, tiles of a warp and of several
 * warps (64 to 1024 threads) with static and dynamic sizes, coalesced groups and their partitions (tiled, labeled, binary), the
 * collectives reduce, inclusive_scan and exclusive_scan, memcpy_async and wait, and the
 * grid-wide barrier of a cooperative launch (cudaLaunchCooperativeKernel). Written for
 * rgdev from CUDA's programming guide (the "Cooperative Groups" chapter); not NVIDIA's
 * header.
 *
 * Model notes: a grid's sync() is a barrier in device memory of the module (one per
 * translation unit's module), so cooperative kernels of one module must not run
 * concurrently; memcpy_async copies at once (its wait() is the group's sync()). Tiles of
 * more than one warp meet and exchange values through shared memory the header declares
 * (a barrier per tile and a word per warp: under 1 KiB, only in kernels that use them),
 * relying on rgdev's device starting each block with its shared memory zeroed; the
 * block_tile_memory a program passes is not needed.
 */
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_

#if defined(__CUDA__) && defined(__cplusplus)

#include "cuda_runtime.h"
#include "crt/rgdev_thread_scope.h"

namespace cooperative_groups {

namespace details {

__device__ __forceinline__ unsigned lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
__device__ __forceinline__ unsigned lanemask_lt() { return __nvvm_read_ptx_sreg_lanemask_lt(); }
__device__ __forceinline__ unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __forceinline__ unsigned block_rank() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned long long grid_blocks() {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
__device__ __forceinline__ unsigned long long grid_block_rank() {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
__device__ __forceinline__ unsigned long long grid_threads() { return grid_blocks() * block_size(); }
__device__ __forceinline__ unsigned long long grid_thread_rank() { return grid_block_rank() * block_size() + block_rank(); }
/* The lane of the n-th (from 0) set bit of `mask`; 32 when it has fewer. */
__device__ __forceinline__ unsigned nth_lane(unsigned mask, unsigned n) {
    for (unsigned k = 0; k < n && mask; k++) mask &= mask - 1;
    return mask ? (unsigned)__ffs((int)mask) - 1 : 32u;
}
/* `bits` (one per lane of `mask`) packed by rank: bit r is the bit of mask's r-th lane. */
__device__ __forceinline__ unsigned compact(unsigned mask, unsigned bits) {
    unsigned out = 0, r = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (mask & (1u << l)) {
            if (bits & (1u << l)) out |= 1u << r;
            r++;
        }
    }
    return out;
}

/* `f` applied to each 32-bit word of `v` (a trivially copyable type): the shuffles of any
 * type, a word at a time. */
template <class T, class F> __device__ __forceinline__ T by_words(const T &v, F f) {
    constexpr unsigned words = (sizeof(T) + 3) / 4;
    unsigned w[words];
    w[words - 1] = 0;
    __builtin_memcpy(w, &v, sizeof(T));
    for (unsigned k = 0; k < words; k++) w[k] = f(w[k]);
    T out;
    __builtin_memcpy(&out, w, sizeof(T));
    return out;
}
template <class T> __device__ __forceinline__ T shfl(unsigned mask, const T &v, int lane, int width) {
    return by_words(v, [=](unsigned x) { return __shfl_sync(mask, x, lane, width); });
}
template <class T> __device__ __forceinline__ T shfl_up(unsigned mask, const T &v, unsigned d, int width) {
    return by_words(v, [=](unsigned x) { return __shfl_up_sync(mask, x, d, width); });
}
template <class T> __device__ __forceinline__ T shfl_down(unsigned mask, const T &v, unsigned d, int width) {
    return by_words(v, [=](unsigned x) { return __shfl_down_sync(mask, x, d, width); });
}
template <class T> __device__ __forceinline__ T shfl_xor(unsigned mask, const T &v, int m, int width) {
    return by_words(v, [=](unsigned x) { return __shfl_xor_sync(mask, x, m, width); });
}
/* Lanes of `mask` whose `v` equals this lane's. */
template <class T> __device__ __forceinline__ unsigned match_any(unsigned mask, const T &v) {
    constexpr unsigned words = (sizeof(T) + 3) / 4;
    unsigned w[words];
    w[words - 1] = 0;
    __builtin_memcpy(w, &v, sizeof(T));
    unsigned out = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask & (1u << l))) continue;
        bool same = true;
        for (unsigned k = 0; k < words; k++) same &= __shfl_sync(mask, w[k], (int)l, 32) == w[k];
        if (same) out |= 1u << l;
    }
    return out;
}

/* The grid barrier of a cooperative launch: arrivals and a generation count. */
static __device__ unsigned int grid_barrier[2];
__device__ __forceinline__ void grid_sync() {
    __syncthreads();
    if (block_rank() == 0) {
        volatile unsigned int *gen = &grid_barrier[1];
        unsigned int g = *gen;
        __threadfence();
        unsigned int arrived = atomicAdd(&grid_barrier[0], 1u);
        if (arrived + 1 == (unsigned int)grid_blocks()) {
            atomicExch(&grid_barrier[0], 0u);
            __threadfence();
            atomicAdd(&grid_barrier[1], 1u);
        } else {
            while (*gen == g) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

enum group_kind : unsigned { kind_block, kind_grid, kind_coalesced, kind_large_tile, kind_cluster };

/* Thread block clusters (compute capability 9.0): the special registers, the barrier and
 * distributed shared memory, in PTX. */
#define __RGDEV_SREG(name, reg)                                                                                  \
    __device__ __forceinline__ unsigned name() {                                                                 \
        unsigned r;                                                                                              \
        asm volatile("mov.u32 %0, " reg ";" : "=r"(r));                                                         \
        return r;                                                                                                \
    }
__RGDEV_SREG(cluster_rank, "%%cluster_ctarank")
__RGDEV_SREG(cluster_blocks, "%%cluster_nctarank")
__RGDEV_SREG(cluster_x, "%%cluster_ctaid.x")
__RGDEV_SREG(cluster_y, "%%cluster_ctaid.y")
__RGDEV_SREG(cluster_z, "%%cluster_ctaid.z")
__RGDEV_SREG(cluster_dim_x, "%%cluster_nctaid.x")
__RGDEV_SREG(cluster_dim_y, "%%cluster_nctaid.y")
__RGDEV_SREG(cluster_dim_z, "%%cluster_nctaid.z")
#undef __RGDEV_SREG
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait;" ::: "memory"); }
__device__ __forceinline__ void cluster_sync() {
    cluster_arrive();
    cluster_wait();
}
__device__ __forceinline__ void *cluster_map(const void *p, unsigned rank) {
    void *r;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank));
    return r;
}
__device__ __forceinline__ unsigned cluster_rank_of(const void *p) {
    unsigned r;
    asm volatile("getctarank.u64 %0, %1;" : "=r"(r) : "l"(p));
    return r;
}

/* Tiles of several warps (sizes 64 to 1024). Each tile of the block has a barrier (arrivals,
 * generation), one per tile size so that partitions of different sizes never share one, and
 * each warp a word for the tile's collectives. The block starts with them zeroed. */
struct mw_barrier {
    unsigned arrived;
    unsigned generation;
};
__device__ __forceinline__ mw_barrier *mw_barriers() {
    __shared__ mw_barrier barriers[5 * 16];
    return barriers;
}
__device__ __forceinline__ unsigned long long *mw_words() {
    __shared__ unsigned long long words[32];
    return words;
}
/* log2(size) - 6 for the sizes 64..1024. */
__device__ __forceinline__ unsigned mw_size_index(unsigned size) { return (unsigned)__ffs((int)size) - 7; }
/* Warps in this thread's tile of `size` threads (the block's last tile may be short). */
__device__ __forceinline__ unsigned mw_warps(unsigned size) {
    unsigned first = block_rank() / size * size, left = block_size() - first;
    return ((left < size ? left : size) + 31) / 32;
}
/* The barrier of this thread's tile of `size` threads: each warp's lane 0 arrives for it. */
__device__ inline void mw_sync(unsigned size) {
    __syncwarp();
    if (lane_id() == 0) {
        mw_barrier *b = &mw_barriers()[mw_size_index(size) * 16 + block_rank() / size];
        volatile unsigned *gen = &b->generation;
        unsigned g = *gen;
        __threadfence_block();
        if (atomicAdd(&b->arrived, 1u) + 1 == mw_warps(size)) {
            atomicExch(&b->arrived, 0u);
            __threadfence_block();
            atomicAdd(&b->generation, 1u);
        } else {
            while (*gen == g) {
            }
        }
        __threadfence_block();
    }
    __syncwarp();
}
/* The tile's warps in order, as block warp indices: [first, first + mw_warps). */
__device__ __forceinline__ unsigned mw_first_warp(unsigned size) { return block_rank() / size * size / 32; }
/* Each warp's lane 0 publishes `v`; after the barrier every thread folds the tile's values
 * in warp order with `op`, over the first `upto` warps (all when upto is ~0u). */
template <class T, class Op> __device__ inline T mw_fold(unsigned size, T v, Op op, unsigned upto, bool *any) {
    static_assert(sizeof(T) <= sizeof(unsigned long long), "rgdev: collectives of tiles of several warps take values of at most 8 bytes");
    unsigned long long *words = mw_words();
    unsigned first = mw_first_warp(size), n = mw_warps(size);
    if (lane_id() == 0) __builtin_memcpy(&words[block_rank() / 32], &v, sizeof(T));
    mw_sync(size);
    T acc{};
    *any = false;
    for (unsigned w = 0; w < n && w < upto; w++) {
        T x;
        __builtin_memcpy(&x, &words[first + w], sizeof(T));
        acc = *any ? op(acc, x) : x;
        *any = true;
    }
    mw_sync(size);
    return acc;
}

} // namespace details

class thread_group;
__device__ thread_group tiled_partition(const thread_group &parent, unsigned size);

/* Any group, its kind known at run time. */
class thread_group {
  protected:
    unsigned kind_;
    unsigned mask_;  /* coalesced: the member lanes */
    unsigned size_;  /* large tile: its size */
    __device__ thread_group(unsigned kind, unsigned mask = 0, unsigned size = 0) : kind_(kind), mask_(mask), size_(size) {}

    friend __device__ thread_group tiled_partition(const thread_group &parent, unsigned size);

  public:
    static constexpr cuda::thread_scope thread_scope = cuda::thread_scope::thread_scope_device;
    __device__ unsigned long long num_threads() const {
        switch (kind_) {
        case details::kind_block: return details::block_size();
        case details::kind_grid: return details::grid_threads();
        case details::kind_cluster: return details::cluster_blocks() * details::block_size();
        case details::kind_coalesced: return (unsigned)__popc(mask_);
        default: return size_;
        }
    }
    __device__ unsigned long long size() const { return num_threads(); }
    __device__ unsigned long long thread_rank() const {
        switch (kind_) {
        case details::kind_block: return details::block_rank();
        case details::kind_grid: return details::grid_thread_rank();
        case details::kind_cluster: return details::cluster_rank() * details::block_size() + details::block_rank();
        case details::kind_coalesced: return (unsigned)__popc(mask_ & details::lanemask_lt());
        default: return details::block_rank() % size_;
        }
    }
    __device__ void sync() const {
        switch (kind_) {
        case details::kind_grid: details::grid_sync(); break;
        case details::kind_cluster: details::cluster_sync(); break;
        case details::kind_coalesced: __syncwarp(mask_); break;
        case details::kind_large_tile: details::mw_sync(size_); break;
        default: __syncthreads(); break;
        }
    }
    __device__ unsigned get_type() const { return kind_; }
};

/* The grid of a cooperative launch. */
class grid_group : public thread_group {
  public:
    static constexpr cuda::thread_scope thread_scope = cuda::thread_scope::thread_scope_device;
    /* Split barrier: arrive, then wait (here the wait is the whole barrier). */
    using arrival_token = unsigned int;
    __device__ grid_group() : thread_group(details::kind_grid) {}
    __device__ bool is_valid() const { return true; }
    __device__ void sync() const { details::grid_sync(); }
    __device__ arrival_token barrier_arrive() const { return 0; }
    __device__ void barrier_wait(arrival_token &&) const { details::grid_sync(); }
    static __device__ unsigned long long num_threads() { return details::grid_threads(); }
    static __device__ unsigned long long size() { return num_threads(); }
    static __device__ unsigned long long thread_rank() { return details::grid_thread_rank(); }
    static __device__ dim3 thread_index() {
        return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                    blockIdx.z * blockDim.z + threadIdx.z);
    }
    static __device__ unsigned long long num_blocks() { return details::grid_blocks(); }
    static __device__ unsigned long long block_rank() { return details::grid_block_rank(); }
    static __device__ dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static __device__ dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    static __device__ dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static __device__ dim3 dim_threads() { return group_dim(); }
};
__device__ __forceinline__ grid_group this_grid() { return grid_group(); }

/* The thread block cluster of a launch with a cluster dimension (compute capability 9.0):
 * its blocks run at once, meet at its barrier and see each other's shared memory through
 * map_shared_rank. A launch without one: clusters of one block. */
class cluster_group : public thread_group {
  public:
    /* Split barrier: arrive, then wait. */
    struct arrival_token {};
    __device__ cluster_group() : thread_group(details::kind_cluster) {}
    __device__ bool is_valid() const { return true; }
    static __device__ void sync() { details::cluster_sync(); }
    __device__ arrival_token barrier_arrive() const {
        details::cluster_arrive();
        return arrival_token();
    }
    __device__ void barrier_wait(arrival_token &&) const { details::cluster_wait(); }
    __device__ void barrier_wait() const { details::cluster_wait(); }
    static __device__ unsigned num_blocks() { return details::cluster_blocks(); }
    static __device__ unsigned block_rank() { return details::cluster_rank(); }
    static __device__ unsigned num_threads() { return num_blocks() * details::block_size(); }
    static __device__ unsigned size() { return num_threads(); }
    static __device__ unsigned thread_rank() { return block_rank() * details::block_size() + details::block_rank(); }
    static __device__ dim3 block_index() {
        return dim3(details::cluster_x(), details::cluster_y(), details::cluster_z());
    }
    static __device__ dim3 dim_blocks() {
        return dim3(details::cluster_dim_x(), details::cluster_dim_y(), details::cluster_dim_z());
    }
    static __device__ dim3 thread_index() {
        dim3 b = block_index();
        return dim3(b.x * blockDim.x + threadIdx.x, b.y * blockDim.y + threadIdx.y, b.z * blockDim.z + threadIdx.z);
    }
    static __device__ dim3 dim_threads() {
        dim3 b = dim_blocks();
        return dim3(b.x * blockDim.x, b.y * blockDim.y, b.z * blockDim.z);
    }
    /* The address of the same shared variable in block `rank` of the cluster. */
    template <typename T> static __device__ T *map_shared_rank(T *addr, unsigned rank) {
        return (T *)details::cluster_map(addr, rank);
    }
    template <typename T> static __device__ T &map_shared_rank(T &addr, unsigned rank) {
        return *(T *)details::cluster_map(&addr, rank);
    }
    /* The rank of the block whose shared memory `addr` is in. */
    static __device__ unsigned query_shared_rank(const void *addr) { return details::cluster_rank_of(addr); }
};
__device__ __forceinline__ cluster_group this_cluster() { return cluster_group(); }

/* The grids of a multi-device launch: CUDA 12 still names the type; rgdev has no
 * multi-device cooperative launch (cudaLaunchCooperativeKernelMultiDevice is not supported),
 * so a group of it is never valid. */
class multi_grid_group : public thread_group {
  public:
    static constexpr cuda::thread_scope thread_scope = cuda::thread_scope::thread_scope_system;
    __device__ multi_grid_group() : thread_group(details::kind_grid) {}
    __device__ bool is_valid() const { return false; }
};

/* Scratch memory for tiles of more than 32 threads (CUDA keeps their state in it); rgdev's
 * tiles keep theirs in shared memory of their own and need none, so it is only the type. */
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory {
    static constexpr unsigned int max_block_size = MaxBlockSize;
    char reserved[sizeof(unsigned long long) * ((MaxBlockSize + 31) / 32)];
};

/* The thread block. */
class thread_block : public thread_group {
  public:
    static constexpr cuda::thread_scope thread_scope = cuda::thread_scope::thread_scope_block;
    /* Split barrier: arrive, then wait (here the wait is the whole barrier). */
    struct arrival_token {};
    __device__ thread_block() : thread_group(details::kind_block) {}
    static __device__ void sync() { __syncthreads(); }
    __device__ arrival_token barrier_arrive() const { return arrival_token(); }
    __device__ void barrier_wait(arrival_token &&) const { __syncthreads(); }
    static __device__ unsigned num_threads() { return details::block_size(); }
    static __device__ unsigned size() { return num_threads(); }
    static __device__ unsigned thread_rank() { return details::block_rank(); }
    static __device__ dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static __device__ dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static __device__ dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static __device__ dim3 dim_threads() { return group_dim(); }
};
__device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }
template <unsigned int N> __device__ __forceinline__ thread_block this_thread_block(block_tile_memory<N> &) {
    return thread_block();
}

/* The active lanes of a warp (or a partition of them), ranked by lane. */
class coalesced_group : public thread_group {
  public:
    static constexpr cuda::thread_scope thread_scope = cuda::thread_scope::thread_scope_block;
    __device__ explicit coalesced_group(unsigned mask) : thread_group(details::kind_coalesced, mask) {}
    __device__ unsigned num_threads() const { return (unsigned)__popc(mask_); }
    __device__ unsigned size() const { return num_threads(); }
    __device__ unsigned thread_rank() const { return (unsigned)__popc(mask_ & details::lanemask_lt()); }
    __device__ unsigned meta_group_rank() const { return 0; }
    __device__ unsigned meta_group_size() const { return 1; }
    __device__ void sync() const { __syncwarp(mask_); }
    template <class T> __device__ T shfl(T v, unsigned rank) const {
        return details::shfl(mask_, v, (int)details::nth_lane(mask_, rank), 32);
    }
    template <class T> __device__ T shfl_up(T v, unsigned d) const {
        unsigned r = thread_rank();
        unsigned src = r >= d ? details::nth_lane(mask_, r - d) : details::lane_id();
        return details::shfl(mask_, v, (int)src, 32);
    }
    template <class T> __device__ T shfl_down(T v, unsigned d) const {
        unsigned r = thread_rank();
        unsigned src = r + d < num_threads() ? details::nth_lane(mask_, r + d) : details::lane_id();
        return details::shfl(mask_, v, (int)src, 32);
    }
    __device__ int any(int p) const { return __any_sync(mask_, p); }
    __device__ int all(int p) const { return __all_sync(mask_, p); }
    __device__ unsigned ballot(int p) const { return details::compact(mask_, __ballot_sync(mask_, p)); }
    template <class T> __device__ unsigned match_any(T v) const {
        return details::compact(mask_, details::match_any(mask_, v));
    }
    template <class T> __device__ unsigned match_all(T v, int &pred) const {
        unsigned m = details::match_any(mask_, v);
        pred = m == mask_;
        return pred ? details::compact(mask_, mask_) : 0u;
    }
    __device__ unsigned get_mask() const { return mask_; }
};
__device__ __forceinline__ coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

namespace details {
template <unsigned Size, bool Multi = (Size > 32)> class tile_members;

/* The members of a tile of Size (a power of two up to 32) consecutive threads of a warp. */
template <unsigned Size> class tile_members<Size, false> : public thread_group {
    __device__ static unsigned build_mask() {
        return Size == 32 ? 0xffffffffu : ((1u << Size) - 1u) << (lane_id() & ~(Size - 1u));
    }

  protected:
    __device__ tile_members() : thread_group(kind_coalesced, build_mask()) {}

  public:
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    __device__ unsigned thread_rank() const { return lane_id() & (Size - 1u); }
    __device__ unsigned meta_group_rank() const { return block_rank() / Size; }
    __device__ unsigned meta_group_size() const { return (block_size() + Size - 1) / Size; }
    __device__ void sync() const { __syncwarp(build_mask()); }
    template <class T> __device__ T shfl(T v, int src) const { return details::shfl(build_mask(), v, src, Size); }
    template <class T> __device__ T shfl_up(T v, unsigned d) const {
        return details::shfl_up(build_mask(), v, d, Size);
    }
    template <class T> __device__ T shfl_down(T v, unsigned d) const {
        return details::shfl_down(build_mask(), v, d, Size);
    }
    template <class T> __device__ T shfl_xor(T v, unsigned m) const {
        return details::shfl_xor(build_mask(), v, (int)m, Size);
    }
    __device__ int any(int p) const { return __any_sync(build_mask(), p); }
    __device__ int all(int p) const { return __all_sync(build_mask(), p); }
    __device__ unsigned ballot(int p) const {
        return (__ballot_sync(build_mask(), p) >> (lane_id() & ~(Size - 1u))) &
               (Size == 32 ? 0xffffffffu : (1u << Size) - 1u);
    }
    template <class T> __device__ unsigned match_any(T v) const {
        return details::compact(build_mask(), details::match_any(build_mask(), v));
    }
    template <class T> __device__ unsigned match_all(T v, int &pred) const {
        unsigned m = details::match_any(build_mask(), v);
        pred = m == build_mask();
        return pred ? details::compact(build_mask(), build_mask()) : 0u;
    }
};

/* The members of a tile of Size (64 to 1024) consecutive threads of a block: whole warps,
 * meeting and exchanging values through the shared memory of mw_sync and mw_fold. */
template <unsigned Size> class tile_members<Size, true> : public thread_group {
    struct either {
        __device__ int operator()(int a, int b) const { return a | b; }
    };
    struct both {
        __device__ int operator()(int a, int b) const { return a & b; }
    };

  protected:
    __device__ tile_members() : thread_group(kind_large_tile, 0, Size) {}

  public:
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    __device__ unsigned thread_rank() const { return block_rank() % Size; }
    __device__ unsigned meta_group_rank() const { return block_rank() / Size; }
    __device__ unsigned meta_group_size() const { return (block_size() + Size - 1) / Size; }
    __device__ void sync() const { mw_sync(Size); }
    /* The value of the member of rank `src`. */
    template <class T> __device__ T shfl(T v, unsigned src) const {
        static_assert(sizeof(T) <= sizeof(unsigned long long), "rgdev: shfl of tiles of several warps takes values of at most 8 bytes");
        unsigned long long *word = &mw_words()[mw_first_warp(Size)];
        if (thread_rank() == src) __builtin_memcpy(word, &v, sizeof(T));
        mw_sync(Size);
        T out;
        __builtin_memcpy(&out, word, sizeof(T));
        mw_sync(Size);
        return out;
    }
    __device__ int any(int p) const {
        bool some;
        return mw_fold(Size, (int)(__any_sync(__activemask(), p) != 0), either(), ~0u, &some);
    }
    __device__ int all(int p) const {
        bool some;
        return mw_fold(Size, (int)(__all_sync(__activemask(), p) != 0), both(), ~0u, &some);
    }
};
} // namespace details

/* A tile of Size (a power of two up to 1024) consecutive threads of a block: within a warp
 * for sizes up to 32, whole warps above. */
template <unsigned Size, class ParentT = void> class thread_block_tile : public details::tile_members<Size> {
    static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                  "rgdev: thread_block_tile sizes are powers of two up to 1024");

  public:
    static constexpr cuda::thread_scope thread_scope = cuda::thread_scope::thread_scope_block;
    __device__ thread_block_tile() {}
    template <class P> __device__ thread_block_tile(const thread_block_tile<Size, P> &) {}
};

/* tiled_partition<Size>(parent): the calling thread's tile. */
template <unsigned Size, class ParentT> __device__ __forceinline__ thread_block_tile<Size, ParentT>
tiled_partition(const ParentT &) {
    return thread_block_tile<Size, ParentT>();
}
/* tiled_partition(parent, size): a tile of `size` threads (a power of two), its size known at
 * run time. Tiles of a coalesced group are consecutive ranks of it. */
__device__ inline thread_group tiled_partition(const thread_group &parent, unsigned size) {
    if (parent.kind_ == details::kind_coalesced) {
        unsigned pm = parent.mask_;
        unsigned me = (unsigned)__popc(pm & details::lanemask_lt()) / size, m = 0, r = 0;
        for (unsigned l = 0; l < 32; l++) {
            if (!(pm & (1u << l))) continue;
            if (r / size == me) m |= 1u << l;
            r++;
        }
        return coalesced_group(m);
    }
    if (size <= 32) {
        unsigned m = size == 32 ? 0xffffffffu : ((1u << size) - 1u) << (details::lane_id() & ~(size - 1u));
        return coalesced_group(m & __activemask());
    }
    return thread_group(details::kind_large_tile, 0, size);
}
__device__ __forceinline__ coalesced_group tiled_partition(const coalesced_group &parent, unsigned size) {
    thread_group g = tiled_partition(static_cast<const thread_group &>(parent), size);
    return *static_cast<const coalesced_group *>(&g);
}
__device__ __forceinline__ thread_group tiled_partition(const thread_block &parent, unsigned size) {
    return tiled_partition(static_cast<const thread_group &>(parent), size);
}

/* The members of `g` with the same label. */
template <class Label> __device__ __forceinline__ coalesced_group labeled_partition(const coalesced_group &g, Label l) {
    return coalesced_group(details::match_any(g.get_mask(), l));
}
template <class Label, class P>
__device__ __forceinline__ coalesced_group labeled_partition(const thread_block_tile<32, P> &, Label l) {
    return coalesced_group(details::match_any(0xffffffffu, l));
}
/* The members of `g` whose predicate is as this thread's. */
__device__ __forceinline__ coalesced_group binary_partition(const coalesced_group &g, bool pred) {
    unsigned b = __ballot_sync(g.get_mask(), pred);
    return coalesced_group(g.get_mask() & (pred ? b : ~b));
}
template <class P> __device__ __forceinline__ coalesced_group binary_partition(const thread_block_tile<32, P> &, bool pred) {
    unsigned b = __ballot_sync(0xffffffffu, pred);
    return coalesced_group(pred ? b : ~b);
}

/* The calling thread as a group of one. */
__device__ __forceinline__ thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(); }

/* `f(args...)` called by one thread of `g` (its rank 0); invoke_one_broadcast gives every
 * member the value it returns. */
template <class Group, class Fn, class... Args> __device__ void invoke_one(const Group &g, Fn &&f, Args &&...args) {
    if (g.thread_rank() == 0) f(static_cast<Args &&>(args)...);
    g.sync();
}
template <class Group, class Fn, class... Args>
__device__ auto invoke_one_broadcast(const Group &g, Fn &&f, Args &&...args) -> decltype(f(static_cast<Args &&>(args)...)) {
    using T = decltype(f(static_cast<Args &&>(args)...));
    T v{};
    if (g.thread_rank() == 0) v = f(static_cast<Args &&>(args)...);
    return g.shfl(v, 0);
}

/* Free-function forms. */
template <class G> __device__ __forceinline__ void sync(const G &g) { g.sync(); }
template <class G> __device__ __forceinline__ unsigned long long thread_rank(const G &g) { return g.thread_rank(); }
template <class G> __device__ __forceinline__ unsigned long long group_size(const G &g) { return g.num_threads(); }
template <class G> __device__ __forceinline__ void synchronize(const G &g) { g.sync(); }

/* The operators of the collectives. */
template <class T> struct plus {
    __device__ T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
    __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    __device__ T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    __device__ T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    __device__ T operator()(const T &a, const T &b) const { return a ^ b; }
};

/* Inclusive scan over a tile or a coalesced group, in rank order. */
template <class T, class Op> __device__ __forceinline__ T inclusive_scan(const coalesced_group &g, T v, Op op) {
    for (unsigned d = 1; d < g.num_threads(); d *= 2) {
        T t = g.shfl_up(v, d);
        if (g.thread_rank() >= d) v = op(t, v);
    }
    return v;
}
namespace details {
template <unsigned Size, class T, class Op>
__device__ __forceinline__ T tile_inclusive_scan(const tile_members<Size, false> &g, T v, Op op) {
    for (unsigned d = 1; d < Size; d *= 2) {
        T t = g.shfl_up(v, d);
        if (g.thread_rank() >= d) v = op(t, v);
    }
    return v;
}
/* Several warps: each warp's scan, then the totals of the warps before it. */
template <unsigned Size, class T, class Op>
__device__ __forceinline__ T tile_inclusive_scan(const tile_members<Size, true> &, T v, Op op) {
    coalesced_group w(__activemask());
    T inc = inclusive_scan(w, v, op);
    T total = w.shfl(inc, w.num_threads() - 1);
    bool some;
    T before = mw_fold(Size, total, op, block_rank() % Size / 32, &some);
    return some ? op(before, inc) : inc;
}
template <unsigned Size, class T, class Op>
__device__ __forceinline__ T tile_exclusive_scan(const tile_members<Size, false> &g, T v, Op op) {
    T inc = tile_inclusive_scan(g, v, op);
    T prev = g.shfl_up(inc, 1);
    return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned Size, class T, class Op>
__device__ __forceinline__ T tile_exclusive_scan(const tile_members<Size, true> &, T v, Op op) {
    coalesced_group w(__activemask());
    T inc = inclusive_scan(w, v, op);
    T total = w.shfl(inc, w.num_threads() - 1);
    T prev = w.shfl_up(inc, 1);
    bool some;
    T before = mw_fold(Size, total, op, block_rank() % Size / 32, &some);
    if (w.thread_rank() == 0) return some ? before : T();
    return some ? op(before, prev) : prev;
}
template <unsigned Size, class T, class Op>
__device__ __forceinline__ T tile_reduce(const tile_members<Size, false> &g, T v, Op op) {
    for (unsigned m = Size / 2; m > 0; m /= 2) v = op(v, g.shfl_xor(v, m));
    return v;
}
template <unsigned Size, class T, class Op>
__device__ __forceinline__ T tile_reduce(const tile_members<Size, true> &, T v, Op op) {
    coalesced_group w(__activemask());
    T inc = inclusive_scan(w, v, op);
    bool some;
    return mw_fold(Size, w.shfl(inc, w.num_threads() - 1), op, ~0u, &some);
}
} // namespace details
template <unsigned Size, class P, class T, class Op>
__device__ __forceinline__ T inclusive_scan(const thread_block_tile<Size, P> &g, T v, Op op) {
    return details::tile_inclusive_scan(g, v, op);
}
template <class G, class T> __device__ __forceinline__ T inclusive_scan(const G &g, T v) {
    return inclusive_scan(g, v, plus<T>());
}
/* Exclusive scan: rank 0 gets T() (the identity of plus and bit_or). */
template <class G, class T, class Op> __device__ __forceinline__ T exclusive_scan(const G &g, T v, Op op) {
    T inc = inclusive_scan(g, v, op);
    T prev = g.shfl_up(inc, 1);
    return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned Size, class P, class T, class Op>
__device__ __forceinline__ T exclusive_scan(const thread_block_tile<Size, P> &g, T v, Op op) {
    return details::tile_exclusive_scan(g, v, op);
}
template <class G, class T> __device__ __forceinline__ T exclusive_scan(const G &g, T v) {
    return exclusive_scan(g, v, plus<T>());
}
/* Reduction: every member gets the result. */
template <unsigned Size, class P, class T, class Op>
__device__ __forceinline__ T reduce(const thread_block_tile<Size, P> &g, T v, Op op) {
    return details::tile_reduce(g, v, op);
}
template <class T, class Op> __device__ __forceinline__ T reduce(const coalesced_group &g, T v, Op op) {
    T inc = inclusive_scan(g, v, op);
    return g.shfl(inc, g.num_threads() - 1);
}

/* memcpy_async: the group copies `bytes` from `src` to `dst`, each member a share; this
 * model copies at once, and wait() is the group's barrier. */
template <class G>
__device__ __forceinline__ void memcpy_async(const G &g, void *dst, const void *src, size_t bytes) {
    unsigned long long n = g.num_threads(), r = g.thread_rank();
    if (((unsigned long long)dst | (unsigned long long)src | bytes) % 4 == 0) {
        for (unsigned long long k = r; k < bytes / 4; k += n) ((unsigned *)dst)[k] = ((const unsigned *)src)[k];
    } else {
        for (unsigned long long k = r; k < bytes; k += n) ((char *)dst)[k] = ((const char *)src)[k];
    }
}
template <class G, class T>
__device__ __forceinline__ void memcpy_async(const G &g, T *dst, size_t dst_count, const T *src, size_t src_count) {
    memcpy_async(g, (void *)dst, (const void *)src, (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
template <class G> __device__ __forceinline__ void wait(const G &g) { g.sync(); }
template <unsigned N, class G> __device__ __forceinline__ void wait_prior(const G &g) { g.sync(); }

} // namespace cooperative_groups

#endif /* __CUDA__ && __cplusplus */

#endif /* _COOPERATIVE_GROUPS_H_ */
