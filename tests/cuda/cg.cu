// Barriers and cooperative groups, checked against the host: the shared-memory pattern a
// barrier must order (thread 0 writes between two __syncthreads(), every thread reads),
// __syncthreads_count/and/or, warp barriers (__syncwarp) apart from block barriers, tiles of
// several warps, thread blocks, static and dynamic tiles with their shuffles,
// votes, reduce and scans, coalesced groups and their partitions, memcpy_async, and a
// grid-wide sync in a cooperative launch (a two-phase sum that needs it), with the launch
// refused when the grid cannot be resident at once; CUDA 12's split barriers, this_thread,
// invoke_one(_broadcast) and thread scopes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "check.cuh"

namespace cg = cooperative_groups;

// The pattern clang-14 broke: a shared value written by one thread between two barriers.
__global__ void broadcast(int *out, int v) {
    __shared__ int s;
    if (threadIdx.x == 0) s = 1;
    __syncthreads();
    if (threadIdx.x == 0) s = v;
    __syncthreads();
    out[threadIdx.x] = s;
}

// Warp barriers: a warp-only reduction with __syncwarp() that the block's later
// __syncthreads() must not be mistaken for (another warp reads the result), the two halves
// of a warp exchanging values through __syncwarp() on either side of a branch (independent
// thread scheduling), and a tile's sync through a generic thread_group (a mask in a
// register).
__device__ int group_sum(cg::thread_group g, int *x, int v) {
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[g.thread_rank()] = v;
        g.sync();
        if (g.thread_rank() < i) v += x[g.thread_rank() + i];
        g.sync();
    }
    return v;
}

__global__ void warp_barriers(const int *in, int *out) {
    __shared__ int s[64], x[64];
    int t = threadIdx.x, lane = t % 32;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        int v = s[t];
        for (int o = 16; o > 0; o /= 2) {
            __syncwarp();
            if (t < o) s[t] = v = v + s[t + o];
        }
        __syncwarp();
    }
    __syncthreads();
    out[t] = s[0];
    __syncthreads();
    if (lane < 16) {
        s[t] = in[t];
        __syncwarp();
        out[64 + t] = s[t + 16];
    } else {
        s[t] = -in[t];
        __syncwarp();
        out[64 + t] = s[t - 16];
    }
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    int sum = group_sum(tile, x + (t & ~15), in[t]);
    if (tile.thread_rank() == 0) out[128 + t / 16] = sum;
}

// Tiles of several warps (CUDA 12): ranks, the tile's barrier ordering shared memory between
// its warps, shfl, any/all, reduce and both scans, for 64-, 128- and 256-thread tiles of a
// 512-thread block (one built from a block with block_tile_memory), and a dynamic 128-thread
// partition's sync.
template <unsigned N> __device__ void big_tile(cg::thread_block_tile<N, cg::thread_block> t, const int *in, int *out, int *x) {
    int r = (int)t.thread_rank(), b = (int)cg::this_thread_block().thread_rank(), v = in[b];
    int *mine = x + t.meta_group_rank() * N;
    mine[N - 1 - r] = v; // written by one warp, read by another after sync()
    t.sync();
    int o = 0;
    out[o++ * 512 + b] = mine[r];
    out[o++ * 512 + b] = (int)(t.meta_group_rank() * 1000 + t.meta_group_size() * 100) + r;
    out[o++ * 512 + b] = t.shfl(v * 3, N - 5);
    out[o++ * 512 + b] = t.any(v == in[t.meta_group_rank() * N + 7]) + 2 * t.all(v >= 0) + 4 * t.all(r < (int)N - 1);
    out[o++ * 512 + b] = cg::reduce(t, v, cg::plus<int>());
    out[o++ * 512 + b] = cg::reduce(t, v, cg::greater<int>());
    out[o++ * 512 + b] = cg::inclusive_scan(t, v, cg::plus<int>());
    out[o++ * 512 + b] = cg::exclusive_scan(t, v, cg::plus<int>());
    t.sync();
}

__global__ void multi_warp_tiles(const int *in, int *out) {
    __shared__ cg::block_tile_memory<512> scratch;
    __shared__ int x[512];
    cg::thread_block b = cg::this_thread_block(scratch);
    big_tile<64>(cg::tiled_partition<64>(b), in, out, x);
    big_tile<128>(cg::tiled_partition<128>(b), in, out + 8 * 512, x);
    big_tile<256>(cg::tiled_partition<256>(b), in, out + 16 * 512, x);
    cg::thread_group d = cg::tiled_partition(b, 128);
    unsigned r = (unsigned)d.thread_rank();
    x[b.thread_rank()] = in[b.thread_rank()];
    d.sync();
    out[24 * 512 + b.thread_rank()] = x[b.thread_rank() - r + (r + 40) % 128] + (int)d.size();
}

// Block-wide votes: counts, all and any.
__global__ void votes(int *out) {
    int t = threadIdx.x;
    out[0 * blockDim.x + t] = __syncthreads_count(t % 3 == 0);
    out[1 * blockDim.x + t] = __syncthreads_and(t < 1000);
    out[2 * blockDim.x + t] = __syncthreads_or(t == 77);
}

// A block's shared-memory tree reduction through cg::thread_block.
__global__ void block_sum(const int *in, int *out) {
    cg::thread_block b = cg::this_thread_block();
    __shared__ int s[256];
    s[b.thread_rank()] = in[blockIdx.x * 256 + b.thread_rank()];
    b.sync();
    for (unsigned k = b.size() / 2; k > 0; k /= 2) {
        if (b.thread_rank() < k) s[b.thread_rank()] += s[b.thread_rank() + k];
        b.sync();
    }
    if (b.thread_rank() == 0) out[blockIdx.x] = s[0];
}

struct pair {
    int a;
    float b;
    short c;
};

// Static tiles: rank, size, meta group, shuffles of a struct, votes, reduce and scans.
__global__ void tiles(const int *in, int *out) {
    cg::thread_block b = cg::this_thread_block();
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(b);
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
    int t = b.thread_rank(), v = in[t];
    int *o = out + t * 12;
    o[0] = t8.thread_rank();
    o[1] = t8.meta_group_rank() * 100 + t8.meta_group_size();
    o[2] = cg::reduce(t8, v, cg::plus<int>());
    o[3] = cg::reduce(w, v, cg::greater<int>());
    o[4] = cg::inclusive_scan(t8, v, cg::plus<int>());
    o[5] = cg::exclusive_scan(w, v);
    o[6] = t8.shfl(v, 3);
    o[7] = t8.shfl_down(v, 1);
    pair p = {v, v * 0.5f, (short)-v};
    pair q = w.shfl_xor(p, 5);
    o[8] = q.a + (int)(q.b * 2) + q.c;
    o[9] = (int)t8.ballot(v & 1);
    o[10] = t8.any(v == 13) * 10 + t8.all(v >= 0);
    int pred;
    o[11] = (int)t8.match_any(v % 3) * 2 + (t8.match_all(v & 0, pred) == 0xffu && pred);
}

// Coalesced groups: the odd lanes of a warp, their ranks, reduce, scan and partitions.
__global__ void coalesced(const int *in, int *out) {
    int t = threadIdx.x, v = in[t];
    int *o = out + t * 8;
    for (int k = 0; k < 8; k++) o[k] = -1;
    if (t & 1) {
        cg::coalesced_group g = cg::coalesced_threads();
        o[0] = g.thread_rank();
        o[1] = g.size();
        o[2] = cg::reduce(g, v, cg::plus<int>());
        o[3] = cg::inclusive_scan(g, v, cg::plus<int>());
        o[4] = g.shfl(v, 2);
        cg::coalesced_group l = cg::labeled_partition(g, v % 4);
        o[5] = cg::reduce(l, v, cg::plus<int>());
        cg::coalesced_group bp = cg::binary_partition(g, v > 50);
        o[6] = bp.size();
        cg::thread_group d = cg::tiled_partition(g, 4);
        o[7] = (int)d.thread_rank() * 100 + (int)d.size();
    }
}

// Dynamic tiles of a block and memcpy_async into shared memory.
__global__ void dynamic(const int *in, int *out) {
    cg::thread_block b = cg::this_thread_block();
    __shared__ int s[128];
    cg::memcpy_async(b, s, in, sizeof(int) * 128);
    cg::wait(b);
    cg::thread_group d = cg::tiled_partition(b, 16);
    int t = b.thread_rank();
    out[t] = s[127 - t] * 1000 + (int)d.thread_rank() * 10 + (d.size() == 16);
}

// A two-phase sum that needs the grid barrier: each block writes its partial sum, the grid
// syncs, and every block then reads all partials.
__global__ void grid_sum(const int *in, int *partial, int *out, int n) {
    cg::grid_group g = cg::this_grid();
    cg::thread_block b = cg::this_thread_block();
    __shared__ int s[128];
    int acc = 0;
    for (unsigned long long i = g.thread_rank(); i < (unsigned long long)n; i += g.size()) acc += in[i];
    s[b.thread_rank()] = acc;
    b.sync();
    for (unsigned k = b.size() / 2; k > 0; k /= 2) {
        if (b.thread_rank() < k) s[b.thread_rank()] += s[b.thread_rank() + k];
        b.sync();
    }
    if (b.thread_rank() == 0) partial[blockIdx.x] = s[0];
    g.sync();
    if (b.thread_rank() == 0) {
        int total = 0;
        for (unsigned k = 0; k < g.num_blocks(); k++) total += partial[k];
        out[blockIdx.x] = total;
    }
    g.sync(); // a second barrier: the generation count carries over
    if (b.thread_rank() == 0) partial[blockIdx.x] = -1;
}

// CUDA 12's members: static queries of the block, split barriers, this_thread,
// invoke_one and invoke_one_broadcast, thread scopes, the block's scratch-memory overload.
__global__ void cuda12(int *out) {
    __shared__ cg::block_tile_memory<64> scratch;
    __shared__ int flag;
    cg::thread_block b = cg::this_thread_block(scratch);
    auto warp = cg::tiled_partition<32>(b);
    int t = (int)cg::thread_block::thread_rank();
    if (t == 0) flag = 5;
    auto token = b.barrier_arrive();
    b.barrier_wait(std::move(token));
    int *o = &out[t * 6];
    o[0] = flag + (int)cg::thread_block::size();
    o[1] = (int)cg::this_thread().size() * 10 + (int)cg::this_thread().thread_rank();
    int got = cg::invoke_one_broadcast(warp, [](int x) { return x * 3; }, 14);
    o[2] = got;
    b.sync(); // every thread has read flag before one changes it
    cg::invoke_one(b, [&] { flag = 9; });
    o[3] = flag;
    o[4] = cg::thread_block::thread_scope == cuda::thread_scope_block &&
           cg::grid_group::thread_scope == cuda::thread_scope_device;
    o[5] = (int)cg::this_grid().thread_index().x == (int)(blockIdx.x * blockDim.x + threadIdx.x);
}

template <class T> static T *dev(size_t n) {
    T *p;
    CHECK(cudaMalloc(&p, n * sizeof(T)));
    CHECK(cudaMemset(p, 0, n * sizeof(T)));
    return p;
}

static std::vector<int> host(const int *d, size_t n) {
    std::vector<int> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    return h;
}

int main() {
    // The barrier pattern.
    int *d = dev<int>(1024 * 12);
    broadcast<<<1, 1024>>>(d, 7);
    CHECK(cudaGetLastError());
    std::vector<int> h = host(d, 1024);
    int stale = 0;
    for (int x : h) stale += x != 7;
    TRUE(stale == 0);
    if (stale) fprintf(stderr, "broadcast: %d of 1024 threads read a stale value\n", stale);

    votes<<<1, 1000>>>(d);
    h = host(d, 3000);
    for (int t = 0; t < 1000; t++) {
        TRUE(h[t] == 334);
        TRUE(h[1000 + t] == 1);
        TRUE(h[2000 + t] == 1);
    }

    // Inputs 0..255 in a shuffled order.
    std::vector<int> in(1024);
    for (int k = 0; k < 1024; k++) in[k] = (k * 37 + 11) % 97;
    int *din = dev<int>(1024);
    CHECK(cudaMemcpy(din, in.data(), 1024 * sizeof(int), cudaMemcpyHostToDevice));

    block_sum<<<4, 256>>>(din, d);
    h = host(d, 4);
    for (int blk = 0; blk < 4; blk++) {
        int s = 0;
        for (int k = 0; k < 256; k++) s += in[blk * 256 + k];
        TRUE(h[blk] == s);
    }

    warp_barriers<<<1, 64>>>(din, d);
    h = host(d, 132);
    int total32 = 0;
    for (int k = 0; k < 32; k++) total32 += in[k];
    int wrong = 0;
    for (int t = 0; t < 64; t++) wrong += h[t] != total32;
    for (int t = 0; t < 64; t++) wrong += h[64 + t] != (t % 32 < 16 ? -in[t + 16] : in[t - 16]);
    for (int g = 0; g < 4; g++) {
        int s = 0;
        for (int k = 0; k < 16; k++) s += in[g * 16 + k];
        wrong += h[128 + g] != s;
    }
    if (wrong) fprintf(stderr, "warp barriers: %d wrong\n", wrong);
    TRUE(wrong == 0);

    {
        std::vector<int> in512(512);
        for (int k = 0; k < 512; k++) in512[k] = (k * 7919 + 13) % 1009;
        int *din512 = dev<int>(512), *dout = dev<int>(25 * 512);
        CHECK(cudaMemcpy(din512, in512.data(), 512 * sizeof(int), cudaMemcpyHostToDevice));
        multi_warp_tiles<<<1, 512>>>(din512, dout);
        CHECK(cudaGetLastError());
        std::vector<int> o = host(dout, 25 * 512);
        int bad = 0;
        const unsigned sizes[3] = {64, 128, 256};
        for (int s = 0; s < 3; s++) {
            int n = (int)sizes[s];
            for (int t = 0; t < 512; t++) {
                int tile = t / n, r = t % n, base = tile * n;
                const int *w = &o[s * 8 * 512];
                int sum = 0, mx = 0, inc = 0;
                for (int k = 0; k < n; k++) sum += in512[base + k], mx = std::max(mx, in512[base + k]);
                for (int k = 0; k <= r; k++) inc += in512[base + k];
                int any = 0;
                for (int k = 0; k < n; k++) any |= in512[base + k] == in512[base + 7];
                bad += w[0 * 512 + t] != in512[base + n - 1 - r];
                bad += w[1 * 512 + t] != tile * 1000 + (512 / n) * 100 + r;
                bad += w[2 * 512 + t] != in512[base + n - 5] * 3;
                bad += w[3 * 512 + t] != any + 2;
                bad += w[4 * 512 + t] != sum;
                bad += w[5 * 512 + t] != mx;
                bad += w[6 * 512 + t] != inc;
                bad += w[7 * 512 + t] != inc - in512[t];
            }
        }
        for (int t = 0; t < 512; t++) bad += o[24 * 512 + t] != in512[t - t % 128 + (t % 128 + 40) % 128] + 128;
        if (bad) fprintf(stderr, "multi-warp tiles: %d wrong\n", bad);
        TRUE(bad == 0);
    }

    tiles<<<1, 64>>>(din, d);
    h = host(d, 64 * 12);
    for (int t = 0; t < 64; t++) {
        const int *o = &h[t * 12];
        int base8 = t & ~7, base32 = t & ~31, r8 = t & 7;
        int sum8 = 0, max32 = 0, inc8 = 0, exc32 = 0;
        for (int k = 0; k < 8; k++) sum8 += in[base8 + k];
        for (int k = 0; k < 32; k++) max32 = in[base32 + k] > max32 ? in[base32 + k] : max32;
        for (int k = 0; k <= r8; k++) inc8 += in[base8 + k];
        for (int k = base32; k < t; k++) exc32 += in[k];
        TRUE(o[0] == r8);
        TRUE(o[1] == (t / 8) * 100 + 8);
        TRUE(o[2] == sum8);
        TRUE(o[3] == max32);
        TRUE(o[4] == inc8);
        TRUE(o[5] == exc32);
        TRUE(o[6] == in[base8 + 3]);
        TRUE(o[7] == (r8 < 7 ? in[t + 1] : in[t]));
        int x = in[base32 + ((t & 31) ^ 5)];
        TRUE(o[8] == x + x - x);
        unsigned ballot = 0, match = 0;
        int any13 = 0;
        for (int k = 0; k < 8; k++) {
            ballot |= (unsigned)(in[base8 + k] & 1) << k;
            match |= (unsigned)(in[base8 + k] % 3 == in[t] % 3) << k;
            any13 |= in[base8 + k] == 13;
        }
        TRUE(o[9] == (int)ballot);
        TRUE(o[10] == any13 * 10 + 1);
        TRUE(o[11] == (int)match * 2 + 1);
    }

    coalesced<<<1, 32>>>(din, d);
    h = host(d, 32 * 8);
    {
        int sum = 0;
        for (int t = 1; t < 32; t += 2) sum += in[t];
        int big = 0;
        for (int t = 1; t < 32; t += 2) big += in[t] > 50;
        for (int t = 1; t < 32; t += 2) {
            const int *o = &h[t * 8];
            int rank = t / 2, inc = 0, lab = 0;
            for (int k = 1; k <= t; k += 2) inc += in[k];
            for (int k = 1; k < 32; k += 2) lab += in[k] % 4 == in[t] % 4 ? in[k] : 0;
            TRUE(o[0] == rank);
            TRUE(o[1] == 16);
            TRUE(o[2] == sum);
            TRUE(o[3] == inc);
            TRUE(o[4] == in[5]);
            TRUE(o[5] == lab);
            TRUE(o[6] == (in[t] > 50 ? big : 16 - big));
            TRUE(o[7] == (rank % 4) * 100 + 4);
        }
        for (int t = 0; t < 32; t += 2) TRUE(h[t * 8] == -1);
    }

    dynamic<<<1, 128>>>(din, d);
    h = host(d, 128);
    for (int t = 0; t < 128; t++) TRUE(h[t] == in[127 - t] * 1000 + (t % 16) * 10 + 1);

    cuda12<<<1, 64>>>(d);
    CHECK(cudaGetLastError());
    h = host(d, 64 * 6);
    for (int t = 0; t < 64; t++) {
        const int *o = &h[t * 6];
        TRUE(o[0] == 69);
        TRUE(o[1] == 10);
        TRUE(o[2] == 42);
        TRUE(o[3] == 9);
        TRUE(o[4] == 1);
        TRUE(o[5] == 1);
    }

    // The cooperative launch: as many blocks as can be resident, two barriers.
    int sms = 0, per_sm = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 128, 0));
    int most = sms * per_sm;
    TRUE(most > 0);
    // Two blocks per SM (every block of a grid barrier spins while it waits, so the full
    // grid costs time quadratic in its blocks in the timing model).
    int blocks = 2 * sms < most ? 2 * sms : most;
    int n = 1 << 16;
    std::vector<int> big(n);
    long long want = 0;
    for (int k = 0; k < n; k++) {
        big[k] = (k * 7) % 13;
        want += big[k];
    }
    int *dbig = dev<int>(n), *partial = dev<int>(blocks), *out = dev<int>(blocks);
    CHECK(cudaMemcpy(dbig, big.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    void *args[] = {&dbig, &partial, &out, &n};
    for (int rep = 0; rep < 2; rep++) {
        CHECK(cudaLaunchCooperativeKernel((void *)grid_sum, blocks, 128, args, 0, 0));
        CHECK(cudaDeviceSynchronize());
        h = host(out, blocks);
        for (int k = 0; k < blocks; k++) TRUE(h[k] == want);
        h = host(partial, blocks);
        for (int k = 0; k < blocks; k++) TRUE(h[k] == -1);
    }
    // One block more than fit at once: refused.
    EXPECT(cudaLaunchCooperativeKernel((void *)grid_sum, most + 1, 128, args, 0, 0),
           cudaErrorCooperativeLaunchTooLarge);
    printf("cooperative launch: %d blocks of 128, sum %lld\n", blocks, want);
    return report();
}
