/* Several GPUs through the Runtime API: each device of the system (RGDEV_PRESET=gv100x2,
 * gv100x4, dgx1; one GPU by default) gets its own slice of the data, its own stream,
 * allocations and kernels, chosen with cudaSetDevice; the host waits for all of them and
 * checks the sum against the CPU's. Devices are distinct PCI functions with their own
 * memory; a pointer names its device; each device keeps its own flags and its own
 * primary context; bad ordinals are refused. Prints the device count it saw. */
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "check.cuh"

__global__ void partial_sums(const float *x, int n, float *out) {
    __shared__ float s[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

__global__ void scale(float *x, int n, float by) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= by;
}

struct Slice {
    float *host;     // pinned
    float *data;     // on the device
    float *partials; // on the device
    float *sums;     // pinned
    cudaStream_t stream;
    int n;
};

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    TRUE(count >= 1);
    printf("%d devices\n", count);

    // Every device is its own PCI function; names and memory come from its preset.
    std::vector<int> buses;
    for (int d = 0; d < count; d++) {
        cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, d));
        for (int b : buses)
            TRUE(b != p.pciBusID);
        buses.push_back(p.pciBusID);
        char id[32];
        CHECK(cudaDeviceGetPCIBusId(id, sizeof id, d));
        int back = -1;
        CHECK(cudaDeviceGetByPCIBusId(&back, id));
        TRUE(back == d);
        TRUE(p.totalGlobalMem > 0 && p.multiProcessorCount > 0);
        int self = -1;
        CHECK(cudaDeviceCanAccessPeer(&self, d, d));
        TRUE(self == 0);
    }
    EXPECT(cudaSetDevice(count), cudaErrorInvalidDevice);
    cudaGetLastError();
    cudaDeviceProp none;
    EXPECT(cudaGetDeviceProperties(&none, -1), cudaErrorInvalidDevice);
    cudaGetLastError();

    const int total = 1 << 18, threads = 256, blocks = 64;
    std::vector<float> x(total);
    for (int i = 0; i < total; i++)
        x[i] = (float)(i % 97) * 0.5f;
    std::vector<Slice> slices(count);
    int at = 0;
    for (int d = 0; d < count; d++) {
        Slice &s = slices[d];
        s.n = total / count + (d < total % count ? 1 : 0);
        CHECK(cudaSetDevice(d));
        int cur = -1;
        CHECK(cudaGetDevice(&cur));
        TRUE(cur == d);
        CHECK(cudaStreamCreate(&s.stream));
        CHECK(cudaMallocHost(&s.host, s.n * sizeof(float)));
        CHECK(cudaMallocHost(&s.sums, blocks * sizeof(float)));
        CHECK(cudaMalloc(&s.data, s.n * sizeof(float)));
        CHECK(cudaMalloc(&s.partials, blocks * sizeof(float)));
        memcpy(s.host, &x[at], s.n * sizeof(float));
        at += s.n;
        // The pointer names its device.
        cudaPointerAttributes a;
        CHECK(cudaPointerGetAttributes(&a, s.data));
        TRUE(a.type == cudaMemoryTypeDevice && a.device == d);
    }
    // Queue everything on every device first, then wait: the devices work side by side.
    for (int d = 0; d < count; d++) {
        Slice &s = slices[d];
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpyAsync(s.data, s.host, s.n * sizeof(float), cudaMemcpyHostToDevice, s.stream));
        scale<<<(s.n + threads - 1) / threads, threads, 0, s.stream>>>(s.data, s.n, 2.0f);
        partial_sums<<<blocks, threads, 0, s.stream>>>(s.data, s.n, s.partials);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(s.sums, s.partials, blocks * sizeof(float), cudaMemcpyDeviceToHost, s.stream));
    }
    double gpu = 0.0;
    for (int d = 0; d < count; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamSynchronize(slices[d].stream));
        for (int b = 0; b < blocks; b++)
            gpu += slices[d].sums[b];
    }
    double cpu = 0.0;
    for (int i = 0; i < total; i++)
        cpu += 2.0 * x[i];
    double err = gpu > cpu ? gpu - cpu : cpu - gpu;
    TRUE(err <= 1e-6 * cpu);
    if (err > 1e-6 * cpu)
        fprintf(stderr, "sum %.3f, expected %.3f\n", gpu, cpu);

    // A stream belongs to its device: work on it goes there even from another device.
    if (count > 1) {
        CHECK(cudaSetDevice(0));
        int where = -1;
        CHECK(cudaStreamGetDevice(slices[1].stream, &where));
        TRUE(where == 1);
        // Each device has its own flags and primary context.
        CHECK(cudaSetDevice(1));
        CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
        unsigned f0 = 0, f1 = 0;
        CHECK(cudaGetDeviceFlags(&f1));
        CHECK(cudaSetDevice(0));
        CHECK(cudaGetDeviceFlags(&f0));
        TRUE((f1 & cudaDeviceScheduleBlockingSync) && !(f0 & cudaDeviceScheduleBlockingSync));
        // Device 1's reset leaves device 0's memory alone.
        CHECK(cudaSetDevice(1));
        CHECK(cudaStreamDestroy(slices[1].stream));
        CHECK(cudaFreeHost(slices[1].host));
        CHECK(cudaFreeHost(slices[1].sums));
        CHECK(cudaDeviceReset());
        slices[1].stream = nullptr;
        CHECK(cudaSetDevice(0));
        std::vector<float> back(16);
        CHECK(cudaMemcpy(back.data(), slices[0].data, 16 * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 16; i++)
            TRUE(back[i] == 2.0f * x[i]);
    }
    for (int d = 0; d < count; d++) {
        Slice &s = slices[d];
        if (!s.stream)
            continue;
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamDestroy(s.stream));
        CHECK(cudaFree(s.data));
        CHECK(cudaFree(s.partials));
        CHECK(cudaFreeHost(s.host));
        CHECK(cudaFreeHost(s.sums));
    }
    return report();
}
