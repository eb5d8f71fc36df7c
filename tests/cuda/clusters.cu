// Thread block clusters (compute capability 9.0), checked against the host: launches with
// a cluster dimension (cudaLaunchKernelEx), the cluster's registers through cooperative
// groups, its barrier, distributed shared memory (a block reading, writing and adding to
// its neighbours' shared memory through map_shared_rank), the rank owning an address,
// cudaOccupancyMaxActiveClusters, the launch errors of a bad shape, and a launch without a
// cluster dimension (clusters of one block). On a part before 9.0 a cluster launch is
// cudaErrorNotSupported and the rest is skipped.
#include <cooperative_groups.h>
#include <vector>

#include "check.cuh"

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;

// Each block fills its shared array with its rank, the cluster syncs, and each thread reads
// the next block's array (rank + 1 in the cluster), so every value crossed the SM-to-SM
// network. The cluster's shape and the block's place in it go to `info`.
__global__ void neighbours(int *out, unsigned *info) {
    __shared__ int s[BLOCK];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank(), n = cluster.num_blocks();
    s[threadIdx.x] = (int)(rank * 1000 + threadIdx.x);
    cluster.sync();
    int *next = cluster.map_shared_rank(s, (rank + 1) % n);
    unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
    out[b * BLOCK + threadIdx.x] = next[threadIdx.x];
    if (threadIdx.x == 0) {
        dim3 bi = cluster.block_index(), db = cluster.dim_blocks();
        unsigned *o = &info[b * 8];
        o[0] = rank;
        o[1] = n;
        o[2] = bi.x;
        o[3] = bi.y;
        o[4] = db.x;
        o[5] = db.y;
        o[6] = cluster.query_shared_rank(next);
        o[7] = (unsigned)cluster.thread_rank();
    }
    cluster.sync(); // no block leaves while another may read its shared memory
}

// A distributed histogram: each block of a cluster owns a slice of the bins in its shared
// memory; every thread adds to the bin's owner with an atomic on the owner's shared memory;
// the slices go out to global memory at the end (each cluster's share of the grid).
__global__ void histogram(const int *in, int n, int *bins, int nbins) {
    extern __shared__ int slice[];
    cg::cluster_group cluster = cg::this_cluster();
    int per = nbins / (int)cluster.num_blocks();
    for (int i = threadIdx.x; i < per; i += blockDim.x) slice[i] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int bin = in[i] % nbins;
        int *owner = cluster.map_shared_rank(slice, bin / per);
        atomicAdd(&owner[bin % per], 1);
    }
    cluster.sync();
    int base = (int)cluster.block_rank() * per;
    for (int i = threadIdx.x; i < per; i += blockDim.x) atomicAdd(&bins[base + i], slice[i]);
}

// A launch without a cluster dimension: each block is a cluster of one.
__global__ void alone(unsigned *info) {
    __shared__ int s;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) s = 7;
    cluster.sync(); // the block's barrier: thread 32 reads what thread 0 wrote
    if (threadIdx.x == 32) {
        info[blockIdx.x * 3] = cluster.num_blocks();
        info[blockIdx.x * 3 + 1] = cluster.block_rank() + 10 * (unsigned)s;
        info[blockIdx.x * 3 + 2] = *cluster.map_shared_rank(&s, 0);
    }
}

static cudaError_t launch_clusters(dim3 grid, dim3 cluster, int *out, unsigned *info) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(BLOCK);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster.x;
    attr.val.clusterDim.y = cluster.y;
    attr.val.clusterDim.z = cluster.z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, neighbours, out, info);
}

int main() {
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int *out;
    unsigned *info;
    CHECK(cudaMalloc(&out, 64 * BLOCK * sizeof(int)));
    CHECK(cudaMalloc(&info, 64 * 8 * sizeof(unsigned)));
    if (p.major < 9) {
        TRUE(p.clusterLaunch == 0);
        EXPECT(launch_clusters(dim3(4), dim3(2), out, info), cudaErrorNotSupported);
        printf("clusters need compute capability 9.0 (this part: %d.%d)\n", p.major, p.minor);
        return report();
    }
    TRUE(p.clusterLaunch == 1);

    // Clusters of 2x2 blocks in a grid of 8x2: a block reads its neighbour's shared memory.
    const dim3 grid(8, 2), shape(2, 2);
    CHECK(launch_clusters(grid, shape, out, info));
    CHECK(cudaDeviceSynchronize());
    int nb = 16;
    std::vector<int> o(nb * BLOCK);
    std::vector<unsigned> in(nb * 8);
    CHECK(cudaMemcpy(o.data(), out, o.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(in.data(), info, in.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int by = 0; by < 2; by++)
        for (int bx = 0; bx < 8; bx++) {
            int b = bx + 8 * by;
            unsigned cx = bx % 2, cy = by % 2, rank = cx + 2 * cy;
            unsigned *i = &in[b * 8];
            bad += i[0] != rank || i[1] != 4 || i[2] != cx || i[3] != cy || i[4] != 2 || i[5] != 2;
            bad += i[6] != (rank + 1) % 4 || i[7] != rank * BLOCK;
            for (int t = 0; t < BLOCK; t++) bad += o[b * BLOCK + t] != (int)(((rank + 1) % 4) * 1000 + t);
        }
    TRUE(bad == 0);

    // The distributed histogram: 4 blocks a cluster, 64 bins, 16 in each block.
    const int n = 5000, nbins = 64;
    std::vector<int> data(n), want(nbins, 0);
    for (int i = 0; i < n; i++) {
        data[i] = (i * 7919 + 13) % 1000;
        want[data[i] % nbins]++;
    }
    int *d_in, *d_bins;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_bins, nbins * sizeof(int)));
    CHECK(cudaMemcpy(d_in, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_bins, 0, nbins * sizeof(int)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(BLOCK);
    cfg.dynamicSmemBytes = nbins / 4 * sizeof(int);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 4;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, histogram, (const int *)d_in, n, d_bins, nbins));
    std::vector<int> got(nbins);
    CHECK(cudaMemcpy(got.data(), d_bins, nbins * sizeof(int), cudaMemcpyDeviceToHost));
    TRUE(got == want);

    // As many clusters as the device holds at once: whole clusters per GPC.
    int active = 0;
    cfg.dynamicSmemBytes = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&active, histogram, &cfg));
    TRUE(active > 0 && active <= p.multiProcessorCount * 32 / 4);

    // Bad shapes: not dividing the grid, more than 8 blocks without the non-portable
    // attribute, a dimension of 0.
    EXPECT(launch_clusters(dim3(6), dim3(4), out, info), cudaErrorInvalidClusterSize);
    EXPECT(launch_clusters(dim3(32), dim3(16), out, info), cudaErrorInvalidClusterSize);
    EXPECT(launch_clusters(dim3(8), dim3(0), out, info), cudaErrorInvalidClusterSize);
    CHECK(cudaFuncSetAttribute(neighbours, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, neighbours));
    TRUE(fa.nonPortableClusterSizeAllowed == 1 && fa.requiredClusterWidth == 0);
    CHECK(launch_clusters(dim3(32), dim3(16), out, info));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(in.data(), info, 8 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    TRUE(in[1] == 16 && in[6] == 1);

    // Without a cluster dimension: clusters of one block.
    alone<<<3, 64>>>(info);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(in.data(), info, 9 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < 3; b++) TRUE(in[b * 3] == 1 && in[b * 3 + 1] == 70 && in[b * 3 + 2] == 7);

    printf("clusters: 16 blocks in 2x2 clusters, histogram of %d in clusters of 4, %d clusters of 4 at once\n", n,
           active);
    return report();
}
