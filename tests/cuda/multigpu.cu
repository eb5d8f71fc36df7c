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

__global__ void axpy(const float *x, const float *y, float *out, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + y[i];
}

/* Peer access between devices 0 and `peer`: a kernel on device 0 reads the peer's memory
 * (allocated before access was enabled) and writes the peer's memory (allocated after),
 * peer copies with and without access, copies between devices inferred from the
 * pointers, and the errors. */
static void peer_access(int peer) {
    const int n = 4096;
    std::vector<float> x(n), y(n), out(n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = (float)(n - i);
    }
    float *xp, *yl, *outp, *tmp;
    CHECK(cudaSetDevice(peer));
    CHECK(cudaMalloc(&xp, n * sizeof(float)));
    CHECK(cudaMemcpy(xp, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&yl, n * sizeof(float)));
    CHECK(cudaMemcpy(yl, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    // Without access: a peer copy is staged through the host, and still right.
    CHECK(cudaMalloc(&tmp, n * sizeof(float)));
    CHECK(cudaMemcpyPeer(tmp, 0, xp, peer, n * sizeof(float)));
    CHECK(cudaMemcpy(out.data(), tmp, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        TRUE(out[i] == x[i]);
    EXPECT(cudaDeviceDisablePeerAccess(peer), cudaErrorPeerAccessNotEnabled);
    EXPECT(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
    EXPECT(cudaDeviceEnablePeerAccess(peer, 1), cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaDeviceEnablePeerAccess(peer, 0));
    EXPECT(cudaDeviceEnablePeerAccess(peer, 0), cudaErrorPeerAccessAlreadyEnabled);
    cudaGetLastError();
    CHECK(cudaSetDevice(peer));
    CHECK(cudaMalloc(&outp, n * sizeof(float))); // after access was enabled
    CHECK(cudaSetDevice(0));
    axpy<<<n / 256, 256>>>(xp, yl, outp, n, 3.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    // The result is in the peer's memory: read it back from the host through the peer.
    CHECK(cudaSetDevice(peer));
    CHECK(cudaMemcpy(out.data(), outp, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        TRUE(out[i] == 3.0f * x[i] + y[i]);
    // A copy between the two devices' memory, its direction from the pointers.
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemset(tmp, 0, n * sizeof(float)));
    CHECK(cudaMemcpy(tmp, outp, n * sizeof(float), cudaMemcpyDefault));
    CHECK(cudaMemcpy(out.data(), tmp, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        TRUE(out[i] == 3.0f * x[i] + y[i]);
    // Device 0's memory from the peer's side, its pointer naming device 0.
    std::vector<float> back(n);
    CHECK(cudaSetDevice(peer));
    CHECK(cudaMemcpy(back.data(), yl, n * sizeof(float), cudaMemcpyDefault));
    for (int i = 0; i < n; i++)
        TRUE(back[i] == y[i]);
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyPeerAsync(tmp, 0, xp, peer, n * sizeof(float), 0));
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaMemcpy(out.data(), tmp, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        TRUE(out[i] == x[i]);
    CHECK(cudaDeviceDisablePeerAccess(peer));
    EXPECT(cudaDeviceDisablePeerAccess(peer), cudaErrorPeerAccessNotEnabled);
    cudaGetLastError();
    CHECK(cudaFree(tmp));
    CHECK(cudaFree(yl));
    CHECK(cudaSetDevice(peer));
    CHECK(cudaFree(xp));
    CHECK(cudaFree(outp));
    CHECK(cudaSetDevice(0));
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

    // Peer access where the topology has a path: every pair of gv100x2 and gv100x4, the
    // NVLink neighbours of the DGX-1 (not GPUs across its CPU sockets).
    int pairs = 0;
    for (int a = 0; a < count; a++)
        for (int b = 0; b < count; b++) {
            int can = -1, rank = -1, supported = -1;
            CHECK(cudaDeviceCanAccessPeer(&can, a, b));
            if (a == b) {
                TRUE(can == 0);
                continue;
            }
            CHECK(cudaDeviceGetP2PAttribute(&supported, cudaDevP2PAttrAccessSupported, a, b));
            CHECK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b));
            TRUE(supported == can && rank >= 0);
            pairs += can;
        }
    printf("%d peer pairs\n", pairs);
    int last_peer = -1;
    for (int b = 1; b < count; b++) {
        int can = 0;
        CHECK(cudaDeviceCanAccessPeer(&can, 0, b));
        if (can) {
            peer_access(b);
            last_peer = b;
        } else {
            CHECK(cudaSetDevice(0));
            EXPECT(cudaDeviceEnablePeerAccess(b, 0), cudaErrorPeerAccessUnsupported);
            cudaGetLastError();
        }
    }
    if (last_peer > 0)
        printf("peer access 0 -> %d\n", last_peer);

    // Managed memory: one allocation, a slice per device, kernels on every device and
    // the host taking turns on it.
    {
        const int per = 4096;
        float *m = nullptr;
        CHECK(cudaSetDevice(0));
        CHECK(cudaMallocManaged(&m, (size_t)per * count * sizeof(float)));
        for (int i = 0; i < per * count; i++)
            m[i] = (float)i;
        for (int d = 0; d < count; d++) {
            CHECK(cudaSetDevice(d));
            scale<<<per / threads, threads>>>(m + d * per, per, (float)(d + 2));
            CHECK(cudaGetLastError());
        }
        for (int d = 0; d < count; d++) {
            CHECK(cudaSetDevice(d));
            CHECK(cudaDeviceSynchronize());
        }
        int wrong = 0;
        for (int i = 0; i < per * count; i++)
            wrong += m[i] != (float)i * (float)(i / per + 2);
        TRUE(wrong == 0);
        CHECK(cudaSetDevice(0));
        CHECK(cudaFree(m));
    }

    // Pinned memory of device 0, read and written in place by a kernel on every device
    // (unified addressing: each device reaches it when its kernel first touches it).
    {
        float *pin = nullptr;
        CHECK(cudaSetDevice(0));
        CHECK(cudaMallocHost(&pin, 1024 * sizeof(float)));
        for (int i = 0; i < 1024; i++)
            pin[i] = 1.0f;
        for (int d = 0; d < count; d++) {
            CHECK(cudaSetDevice(d));
            scale<<<1024 / threads, threads>>>(pin, 1024, 2.0f);
            CHECK(cudaDeviceSynchronize());
        }
        TRUE(pin[0] == (float)(1 << count) && pin[1023] == (float)(1 << count));
        CHECK(cudaSetDevice(0));
        CHECK(cudaFreeHost(pin));
    }

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
