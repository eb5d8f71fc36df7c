// libcu++'s synchronization primitives as the CUDA samples use them, against the host:
// cuda::barrier in shared memory (tokens, arrive_and_wait, arrive_and_drop, a completion
// function), cuda::memcpy_async of a block into shared memory tied to a barrier,
// cuda::pipeline of one thread (stages over cp.async groups) and of a block (shared
// state; every thread a producer and consumer, and split roles), cuda::atomic and
// cuda::atomic_ref on the device and cuda::std::atomic on the host; and half a warp
// waiting for the other half (independent thread scheduling, as these primitives need).
#include <cooperative_groups.h>
#include <cuda_awbarrier.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/atomic>
#include <vector>

#include "check.cuh"

namespace cg = cooperative_groups;

struct Count {
    int *phases;
    __device__ void operator()() noexcept { ++*phases; }
};

// out[0..n): rounds of neighbours' values through a barrier; out[n]: the completion
// function's count; out[n+1]: the sum of a block copy.
__global__ void barriers(const int *in, int *out, const float4 *src, float *sum, int rounds) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ barrier bar;
    __shared__ int buf[2][128];
    __shared__ int phases;
    __shared__ cuda::barrier<cuda::thread_scope_block, Count> counted;
    __shared__ alignas(alignof(float4)) float4 tile[256]; // nvcc's order (rgdev cc mends it for clang)
    auto block = cg::this_thread_block();
    int t = threadIdx.x, n = blockDim.x;
    if (t == 0) {
        init(&bar, n);
        phases = 0;
        init(&counted, n, Count{&phases});
    }
    block.sync();
    int v = in[t];
    for (int r = 0; r < rounds; r++) {
        buf[r & 1][t] = v;
        barrier::arrival_token tok = bar.arrive();
        bar.wait(std::move(tok));
        v = buf[r & 1][(t + 1) % n] * 3 + r;
        counted.arrive_and_wait();
        bar.arrive_and_wait();
    }
    out[t] = v;
    if (t == 0) out[n] = phases;

    // A block copy of 256 float4 into shared memory, complete with the barrier's phase.
    cuda::memcpy_async(block, tile, src, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    float s = 0;
    for (int k = t; k < 256; k += n) s += tile[k].x + tile[k].y + tile[k].z + tile[k].w;
    atomicAdd(sum, s);
    // Half the threads leave; the rest still meet.
    if (t % 2) {
        bar.arrive_and_drop();
        return;
    }
    bar.arrive_and_wait();
    bar.arrive_and_wait();
}

// Each thread streams `tiles` chunks of 4 floats through a 3-stage pipeline of its own.
__global__ void thread_pipeline(const float *src, float *out, int tiles) {
    const int stages = 3;
    __shared__ float4 stage[stages][64];
    auto pipe = cuda::make_pipeline();
    int t = threadIdx.x;
    float acc = 0;
    int fetched = 0;
    for (; fetched < stages && fetched < tiles; fetched++) {
        pipe.producer_acquire();
        cuda::memcpy_async(&stage[fetched % stages][t], src + 4 * (fetched * 64 + t),
                           cuda::aligned_size_t<16>(sizeof(float4)), pipe);
        pipe.producer_commit();
    }
    for (int k = 0; k < tiles; k++) {
        cuda::pipeline_consumer_wait_prior<stages - 1>(pipe);
        float4 x = stage[k % stages][t];
        acc += x.x * 1 + x.y * 2 + x.z * 3 + x.w * 4;
        pipe.consumer_release();
        if (fetched < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&stage[fetched % stages][t], src + 4 * (fetched * 64 + t),
                               cuda::aligned_size_t<16>(sizeof(float4)), pipe);
            pipe.producer_commit();
            fetched++;
        } else {
            pipe.producer_commit(); // an empty stage keeps the count of groups
        }
    }
    out[t] = acc;
}

// A block pipeline of two stages: each stage a tile of 128 ints copied by the group, summed
// by every thread (all produce and consume) or, with `split`, copied by warp 0 and summed by
// the other warps.
__global__ void block_pipeline(const int *src, long long *out, int tiles, bool split) {
    const int stages = 2;
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    __shared__ int tile[stages][128];
    auto block = cg::this_thread_block();
    int t = threadIdx.x;
    if (!split) {
        auto pipe = cuda::make_pipeline(block, &state);
        long long acc = 0;
        for (int k = 0; k < tiles; k++) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, tile[k % stages], src + 128 * k, cuda::aligned_size_t<16>(128 * sizeof(int)),
                               pipe);
            pipe.producer_commit();
            pipe.consumer_wait();
            acc += tile[k % stages][(t * 7 + k) % 128];
            pipe.consumer_release();
        }
        out[t] = acc;
        return;
    }
    auto tile32 = cg::tiled_partition<32>(block);
    bool producer = t < 32;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer
                                                            : cuda::pipeline_role::consumer);
    long long acc = 0;
    for (int k = 0; k < tiles; k++) {
        if (producer) {
            pipe.producer_acquire();
            cuda::memcpy_async(tile32, tile[k % stages], src + 128 * k, cuda::aligned_size_t<16>(128 * sizeof(int)),
                               pipe);
            pipe.producer_commit();
        } else {
            pipe.consumer_wait();
            acc += tile[k % stages][(t * 7 + k) % 128];
            pipe.consumer_release();
        }
    }
    out[t] = acc;
}

__global__ void atomics(int *counter, float *fsum, unsigned *umax, int *cas) {
    __shared__ int shared_count;
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    if (threadIdx.x == 0) shared_count = 0;
    __syncthreads();
    cuda::atomic_ref<int, cuda::thread_scope_block> sc(shared_count);
    sc.fetch_add(2, cuda::memory_order_relaxed);
    __syncthreads();
    cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
    if (threadIdx.x == 0) c += sc.load();
    cuda::atomic_ref<float> f(*fsum);
    f.fetch_add(0.5f);
    cuda::atomic_ref<unsigned> m(*umax);
    m.fetch_max((unsigned)(t * 37 % 1000));
    cuda::atomic_ref<int> x(*cas);
    int old = x.load();
    while (!x.compare_exchange_weak(old, old + t)) {
    }
}

// cuda_awbarrier.h's class: rounds of arrive and wait, the pending count of a token.
__global__ void awbarrier_rounds(int *out) {
    using nvcuda::experimental::awbarrier;
    __shared__ awbarrier bar;
    __shared__ int slot[64];
    int t = threadIdx.x;
    if (t == 0) awbarrier_init(&bar, blockDim.x);
    __syncthreads();
    int v = t;
    for (int r = 0; r < 3; r++) {
        slot[t] = v;
        awbarrier::arrival_token tok = bar.arrive();
        if (t == 0 && r == 0) out[64] = (int)tok.pending_count();
        bar.wait(tok);
        v += slot[(t + 1) % 64];
        bar.arrive_and_wait();
    }
    out[t] = v;
}

// Independent thread scheduling: half a warp waits for a flag the other half sets, the
// waiters on either side of the branch.
__global__ void handoff(int *out, int waiters_first) {
    __shared__ volatile int flag[2];
    int t = threadIdx.x;
    if (t < 2) flag[t] = 0;
    __syncwarp();
    bool wait = (t < 16) == (waiters_first != 0);
    if (wait) {
        while (flag[waiters_first] == 0) {
        }
        out[t] = flag[waiters_first];
    } else {
        if (t == 16 || t == 0) flag[waiters_first] = 7;
        out[t] = 1;
    }
}

// Managed memory on the device before a launch: the kernels spin on barriers, and a warp
// parked on a page fault would keep them spinning until the fault service.
static void to_gpu(const void *p, size_t bytes) { CHECK(cudaMemPrefetchAsync(p, bytes, 0)); }

int main() {
    const int n = 128, rounds = 5;
    int *in, *out, *counter, *cas;
    float4 *src;
    float *sum, *fsum;
    unsigned *umax;
    CHECK(cudaMallocManaged(&in, n * sizeof(int)));
    CHECK(cudaMallocManaged(&out, (n + 2) * sizeof(int)));
    CHECK(cudaMallocManaged(&src, 256 * sizeof(float4)));
    CHECK(cudaMallocManaged(&sum, sizeof(float)));
    for (int t = 0; t < n; t++) in[t] = t * 5 + 1;
    float want_sum = 0;
    for (int k = 0; k < 256; k++) {
        src[k] = make_float4(k, 1, 2 * k, 0.5f);
        want_sum += k + 1 + 2 * k + 0.5f;
    }
    *sum = 0;
    to_gpu(in, n * sizeof(int));
    to_gpu(out, (n + 2) * sizeof(int));
    to_gpu(src, 256 * sizeof(float4));
    to_gpu(sum, sizeof(float));
    barriers<<<1, n>>>(in, out, src, sum, rounds);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> v(in, in + n);
    for (int r = 0; r < rounds; r++) {
        std::vector<int> w(n);
        for (int t = 0; t < n; t++) w[t] = v[(t + 1) % n] * 3 + r;
        v = w;
    }
    for (int t = 0; t < n; t++) TRUE(out[t] == v[t]);
    TRUE(out[n] == rounds);
    TRUE(*sum == want_sum);

    const int tiles = 7;
    float *fsrc, *fout;
    CHECK(cudaMallocManaged(&fsrc, tiles * 64 * 4 * sizeof(float)));
    CHECK(cudaMallocManaged(&fout, 64 * sizeof(float)));
    for (int k = 0; k < tiles * 64 * 4; k++) fsrc[k] = (float)(k % 13);
    to_gpu(fsrc, tiles * 64 * 4 * sizeof(float));
    to_gpu(fout, 64 * sizeof(float));
    thread_pipeline<<<1, 64>>>(fsrc, fout, tiles);
    CHECK(cudaDeviceSynchronize());
    for (int t = 0; t < 64; t++) {
        float acc = 0;
        for (int k = 0; k < tiles; k++) {
            const float *x = fsrc + 4 * (k * 64 + t);
            acc += x[0] * 1 + x[1] * 2 + x[2] * 3 + x[3] * 4;
        }
        TRUE(fout[t] == acc);
    }

    const int btiles = 9;
    int *isrc;
    long long *lout;
    CHECK(cudaMallocManaged(&isrc, btiles * 128 * sizeof(int)));
    CHECK(cudaMallocManaged(&lout, 128 * sizeof(long long)));
    for (int k = 0; k < btiles * 128; k++) isrc[k] = k * 11 % 1009;
    for (int split = 0; split < 2; split++) {
        to_gpu(isrc, btiles * 128 * sizeof(int));
        to_gpu(lout, 128 * sizeof(long long));
        block_pipeline<<<1, 128>>>(isrc, lout, btiles, split);
        CHECK(cudaDeviceSynchronize());
        for (int t = split ? 32 : 0; t < 128; t++) {
            long long acc = 0;
            for (int k = 0; k < btiles; k++) acc += isrc[128 * k + (t * 7 + k) % 128];
            TRUE(lout[t] == acc);
        }
    }

    CHECK(cudaMallocManaged(&counter, sizeof(int)));
    CHECK(cudaMallocManaged(&fsum, sizeof(float)));
    CHECK(cudaMallocManaged(&umax, sizeof(unsigned)));
    CHECK(cudaMallocManaged(&cas, sizeof(int)));
    *counter = 0, *fsum = 0, *umax = 0, *cas = 0;
    atomics<<<4, 64>>>(counter, fsum, umax, cas);
    CHECK(cudaDeviceSynchronize());
    unsigned want_max = 0;
    for (int t = 0; t < 256; t++) want_max = std::max(want_max, (unsigned)(t * 37 % 1000));
    TRUE(*counter == 4 * 64 * 2 && *fsum == 128.0f && *umax == want_max && *cas == 255 * 256 / 2);

    to_gpu(out, (n + 2) * sizeof(int));
    awbarrier_rounds<<<1, 64>>>(out);
    CHECK(cudaDeviceSynchronize());
    {
        std::vector<int> a(64);
        for (int t = 0; t < 64; t++) a[t] = t;
        for (int r = 0; r < 3; r++) {
            std::vector<int> b(64);
            for (int t = 0; t < 64; t++) b[t] = a[t] + a[(t + 1) % 64];
            a = b;
        }
        for (int t = 0; t < 64; t++) TRUE(out[t] == a[t]);
        TRUE(out[64] >= 1 && out[64] <= 64);
    }

    for (int first = 0; first < 2; first++) {
        to_gpu(out, (n + 2) * sizeof(int));
        handoff<<<1, 32>>>(out, first);
        CHECK(cudaDeviceSynchronize());
        for (int t = 0; t < 32; t++) TRUE(out[t] == (((t < 16) == (first != 0)) ? 7 : 1));
    }

    // The same atomics on the host.
    cuda::std::atomic<int> h(5);
    h.fetch_add(3);
    h++;
    int e = 9;
    TRUE(h.compare_exchange_strong(e, 20) && h.load() == 20 && h.fetch_max(30) == 20 && h == 30);

    if (failures == 0) printf("libcuxx: barriers, block copies, thread and block pipelines, atomics\n");
    return report();
}
