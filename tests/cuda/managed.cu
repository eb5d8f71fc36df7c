// Managed memory through the Runtime API: __managed__ variables used by name on both
// sides (and by address in a kernel), cudaMallocManaged memory touched alternately by the
// host and kernels, copies and memsets on it, pointer attributes, advice, prefetches and
// their range attributes, stream attachment, and the errors. With RGDEV_UVA=0,
// cudaMallocManaged is cudaErrorNotSupported, as CUDA without unified addressing.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c);                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__managed__ int counter = 5;
__managed__ float table[1024];
__managed__ unsigned long long stamp[3] = {1, 2, 3};

__global__ void count(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counter, 1);
        table[i] = table[i] * 2.0f + i;
    }
    if (i == 0) stamp[2] += stamp[0] + stamp[1];
}

__global__ void through(int *p, int v) { *p += v; }

// Run on managed memory prefetched to the device first (paged: it finds every page there).
__global__ void prefetched(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

__global__ void scale(float *x, int n, float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * a + 1.0f;
}

static int range_int(const void *p, size_t n, cudaMemRangeAttribute a) {
    int v = 12345;
    CHECK(cudaMemRangeGetAttribute(&v, sizeof v, a, p, n));
    return v;
}

int main() {
    const char *uva = getenv("RGDEV_UVA");
    bool nouva = uva && strcmp(uva, "0") == 0;
    int managed = -1, concurrent = -1;
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    if (nouva) {
        EXPECT(managed == 0);
        float *m = nullptr;
        EXPECT(cudaMallocManaged(&m, 4096) == cudaErrorNotSupported);
        EXPECT(cudaGetLastError() == cudaErrorNotSupported);
        // __managed__ variables still work: their storage is the program's own.
        count<<<1, 8>>>(8);
        CHECK(cudaDeviceSynchronize());
        EXPECT(counter == 13);
        printf("no unified addressing: all checks passed\n");
        return 0;
    }
    // Paged (compute capability 6.0 and later unless RGDEV_UVM=host: the host waits for
    // kernels before it touches managed memory), else host memory every kernel reaches in
    // place.
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const char *uvm = getenv("RGDEV_UVM");
    const bool paging = prop.major >= 6 && !(uvm && strcmp(uvm, "host") == 0);
    EXPECT(managed == 1 && concurrent == (paging ? 0 : 1));

    // __managed__ variables: initial values, then kernels and the host take turns.
    EXPECT(counter == 5 && stamp[2] == 3);
    for (int i = 0; i < 1024; i++) table[i] = (float)i;
    count<<<4, 256>>>(1000);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    EXPECT(counter == 1005);
    EXPECT(stamp[2] == 6);
    for (int i = 0; i < 1024; i++) EXPECT(table[i] == (i < 1000 ? 3.0f * i : (float)i));
    counter = -7;
    stamp[0] = 100;
    count<<<1, 32>>>(10);
    CHECK(cudaDeviceSynchronize());
    EXPECT(counter == 3 && stamp[2] == 108);
    // Its address is a device pointer too (rgdev cc links programs at a fixed address).
    through<<<1, 1>>>(&counter, 39);
    CHECK(cudaDeviceSynchronize());
    EXPECT(counter == 42);
    // The symbol API sees the same variable.
    void *sym = nullptr;
    CHECK(cudaGetSymbolAddress(&sym, counter));
    EXPECT(sym == (void *)&counter);
    int v = 9;
    CHECK(cudaMemcpyToSymbol(counter, &v, sizeof v));
    EXPECT(counter == 9);
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, table));
    EXPECT(size == sizeof table);
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, &table[7]));
    EXPECT(pa.type == cudaMemoryTypeManaged && pa.hostPointer == (void *)&table[7]);
    EXPECT(pa.devicePointer == (void *)&table[7]);

    // cudaMallocManaged: one pointer for the host and the kernels.
    const int n = 1 << 16;
    float *x = nullptr;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    for (int i = 0; i < n; i++) x[i] = (float)(i % 97);
    for (int round = 0; round < 3; round++) {
        scale<<<64, 128>>>(x, n, 2.0f + round);
        CHECK(cudaDeviceSynchronize());
        // The host reads what the kernel wrote, then puts the data back for the next one.
        for (int i = 0; i < n; i++) {
            EXPECT(x[i] == (float)(i % 97) * (2.0f + round) + 1.0f);
            x[i] = (x[i] - 1.0f) / (2.0f + round);
        }
    }
    for (int i = 0; i < n; i++) EXPECT(x[i] == (float)(i % 97));
    CHECK(cudaPointerGetAttributes(&pa, x + 5));
    EXPECT(pa.type == cudaMemoryTypeManaged && pa.hostPointer == (void *)(x + 5) && pa.devicePointer == pa.hostPointer);
    EXPECT(pa.device == 0);

    // Copies and memsets with managed memory on either side.
    float *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyDefault));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    EXPECT(x[0] == 0.0f && x[n - 1] == 0.0f);
    CHECK(cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToDevice));
    EXPECT(x[96] == 96.0f && x[97] == 0.0f);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemsetAsync(x, 0, 64, s));
    CHECK(cudaStreamAttachMemAsync(s, x));
    CHECK(cudaStreamAttachMemAsync(s, x, 0, cudaMemAttachHost));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(x[15] == 0.0f && x[16] == 16.0f);

    // Prefetches and advice, recorded per page and read back by the range attributes.
    const size_t page = 4096, bytes = n * sizeof(float);
    EXPECT(range_int(x, bytes, cudaMemRangeAttributeLastPrefetchLocation) == cudaInvalidDeviceId);
    CHECK(cudaMemPrefetchAsync(x, bytes, 0, s));
    EXPECT(range_int(x, bytes, cudaMemRangeAttributeLastPrefetchLocation) == 0);
    CHECK(cudaMemPrefetchAsync(x, page, cudaCpuDeviceId, s));
    EXPECT(range_int(x, page, cudaMemRangeAttributeLastPrefetchLocation) == cudaCpuDeviceId);
    EXPECT(range_int(x, 2 * page, cudaMemRangeAttributeLastPrefetchLocation) == cudaInvalidDeviceId);
    EXPECT(range_int(x + page / 4, page, cudaMemRangeAttributeLastPrefetchLocation) == 0);
    EXPECT(range_int(x, page, cudaMemRangeAttributeLastPrefetchLocationType) == cudaMemLocationTypeHost);
    EXPECT(range_int(x + page, page, cudaMemRangeAttributeLastPrefetchLocationType) == cudaMemLocationTypeDevice);
    CHECK(cudaStreamSynchronize(s));
    EXPECT(range_int(x, bytes, cudaMemRangeAttributeReadMostly) == 0);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, 0));
    EXPECT(range_int(x, bytes, cudaMemRangeAttributeReadMostly) == 1);
    CHECK(cudaMemAdvise(x + 3 * page / 4, 1, cudaMemAdviseUnsetReadMostly, 0));
    EXPECT(range_int(x, bytes, cudaMemRangeAttributeReadMostly) == 0);
    EXPECT(range_int(x, 3 * page, cudaMemRangeAttributeReadMostly) == 1);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
    EXPECT(range_int(x, bytes, cudaMemRangeAttributePreferredLocation) == cudaCpuDeviceId);
    CHECK(cudaMemAdvise(x, page, cudaMemAdviseSetPreferredLocation, 0));
    EXPECT(range_int(x, page, cudaMemRangeAttributePreferredLocation) == 0);
    EXPECT(range_int(x, bytes, cudaMemRangeAttributePreferredLocation) == cudaInvalidDeviceId);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetAccessedBy, 0));
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetAccessedBy, cudaCpuDeviceId));
    int by[4] = {7, 7, 7, 7};
    CHECK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, x, bytes));
    EXPECT(by[0] == cudaCpuDeviceId && by[1] == 0 && by[2] == cudaInvalidDeviceId && by[3] == cudaInvalidDeviceId);
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetAccessedBy, cudaCpuDeviceId));
    int rm = -1, pl = -1;
    void *data[2] = {&rm, &pl};
    size_t sizes[2] = {sizeof rm, sizeof pl};
    cudaMemRangeAttribute attrs[2] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributePreferredLocation};
    CHECK(cudaMemRangeGetAttributes(data, sizes, attrs, 2, x + page, page));
    EXPECT(rm == 1 && pl == cudaCpuDeviceId);
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    CHECK(cudaMemPrefetchAsync_v2(x, page, loc, 0, s));
    CHECK(cudaMemAdvise_v2(x, page, cudaMemAdviseSetPreferredLocation, loc));
    EXPECT(range_int(x, page, cudaMemRangeAttributePreferredLocationId) == 0);
    // Advice on a __managed__ variable.
    CHECK(cudaMemAdvise(table, sizeof table, cudaMemAdviseSetReadMostly, 0));
    EXPECT(range_int(table, sizeof table, cudaMemRangeAttributeReadMostly) == 1);
    CHECK(cudaMemPrefetchAsync(table, sizeof table, 0));
    // The data is still right after all of it.
    scale<<<4, 64>>>(x, 16, 1.0f);
    CHECK(cudaDeviceSynchronize());
    EXPECT(x[3] == 1.0f && x[20] == 20.0f);

    // A prefetch to the device ahead of the kernel: paged, no page is missing when it runs.
    {
        const int pn = 16384;
        float *q = nullptr;
        CHECK(cudaMallocManaged(&q, pn * sizeof(float)));
        for (int i = 0; i < pn; i++)
            q[i] = (float)i;
        CHECK(cudaMemPrefetchAsync(q, pn * sizeof(float), 0, 0));
        prefetched<<<pn / 256, 256>>>(q, pn);
        CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < pn; i++)
            EXPECT(q[i] == (float)i + 1.0f);
        CHECK(cudaMemPrefetchAsync(q, pn * sizeof(float), cudaCpuDeviceId, 0));
        CHECK(cudaFree(q));
    }

    // More launches than a stream's ring holds, on managed memory, before one
    // synchronization (an iterative solver's loop): paged, the first kernel's faults are
    // served where a later launch waits for ring space.
    {
        float *it = nullptr;
        CHECK(cudaMallocManaged(&it, 1024 * sizeof(float)));
        for (int i = 0; i < 1024; i++)
            it[i] = 0.0f;
        for (int k = 0; k < 3000; k++)
            prefetched<<<4, 256>>>(it, 1024);
        CHECK(cudaDeviceSynchronize());
        EXPECT(it[0] == 3000.0f && it[1023] == 3000.0f);
        CHECK(cudaFree(it));
    }

    // Errors.
    float *bad = nullptr;
    EXPECT(cudaMallocManaged(&bad, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMallocManaged(&bad, 64, 3) == cudaErrorInvalidValue);
    EXPECT(cudaMemAdvise(d, 64, cudaMemAdviseSetReadMostly, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMemAdvise(x, 64, (cudaMemoryAdvise)9, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMemPrefetchAsync(x, 64, 5) == cudaErrorInvalidDevice);
    EXPECT(cudaMemPrefetchAsync(x, bytes + 1, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMemRangeGetAttribute(&v, 2, cudaMemRangeAttributeReadMostly, x, 64) == cudaErrorInvalidValue);
    EXPECT(cudaStreamAttachMemAsync(s, x + 1) == cudaErrorInvalidValue);
    EXPECT(cudaFreeHost(x) != cudaSuccess);
    EXPECT(cudaFree(table) != cudaSuccess);
    cudaGetLastError();
    CHECK(cudaFree(x));
    EXPECT(cudaPointerGetAttributes(&pa, x) == cudaSuccess && pa.type == cudaMemoryTypeUnregistered);
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    printf("all checks passed\n");
    return 0;
}
