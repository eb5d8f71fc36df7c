// Device-side malloc, free, new and delete on the heap cudaLimitMallocHeapSize sizes: the
// limit's default (8 MiB) and a new value set before the first kernel that allocates, the
// limit frozen after it (cudaErrorInvalidValue); the heap filled, emptied and filled
// again (NULL when full); blocks that outlive their kernel (one
// kernel allocates, the next reads and frees), memory reused after free, 16-byte
// alignment, distinct blocks per thread, C++ objects built
// with new and destroyed with delete; a double free stops the grid (an illegal address).
#include "check.cuh"

struct Node {
    int value;
    Node *next;
    __device__ Node(int v, Node *n) : value(v), next(n) {}
};

__global__ void alloc_lists(int **slots, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int *p = (int *)malloc((t % 7 + 1) * sizeof(int) * 8);
    if (p)
        for (int k = 0; k < (t % 7 + 1) * 8; k++) p[k] = t * 1000 + k;
    slots[t] = p;
}

__global__ void check_and_free(int **slots, int n, int *bad) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int *p = slots[t];
    if (!p || ((unsigned long long)p & 15)) {
        atomicAdd(bad, 1);
        return;
    }
    for (int k = 0; k < (t % 7 + 1) * 8; k++)
        if (p[k] != t * 1000 + k) atomicAdd(bad, 1);
    free(p);
}

__global__ void objects(int *sum) {
    Node *head = nullptr;
    for (int i = 1; i <= 10; i++) head = new Node(i, head);
    int s = 0;
    while (head) {
        Node *next = head->next;
        s += head->value;
        delete head;
        head = next;
    }
    int *arr = new int[16];
    for (int i = 0; i < 16; i++) arr[i] = i;
    for (int i = 0; i < 16; i++) s += arr[i];
    delete[] arr;
    atomicAdd(sum, s);
}

// Allocates 64 KiB blocks until the heap is full, frees them all, and again: how many it
// got each time (the second time from the blocks freed).
__global__ void exhaust(int *count) {
    void *blocks[64];
    for (int pass = 0; pass < 2; pass++) {
        int got = 0;
        while (got < 64 && (blocks[got] = malloc(65536 - 16)) != nullptr) got++;
        count[pass] = got;
        while (got > 0) free(blocks[--got]);
    }
}

// Frees a block twice: the second free is of no live block, and stops the grid.
__global__ void double_free() {
    void *p = malloc(100);
    free(p);
    free(p);
}

int main() {
    size_t heap = 0;
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    TRUE(heap == 8u << 20);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1u << 20));
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    TRUE(heap == 1u << 20);

    // A 1 MiB heap holds 15 blocks of 64 KiB beside its 512-byte header; freed, they are
    // taken again (and later split for the small blocks below).
    int *count, hcount[2] = {0, 0};
    CHECK(cudaMalloc(&count, sizeof hcount));
    exhaust<<<1, 1>>>(count);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hcount, count, sizeof hcount, cudaMemcpyDeviceToHost));
    printf("64 KiB blocks in a 1 MiB heap: %d, then %d\n", hcount[0], hcount[1]);
    TRUE(hcount[0] == 15 && hcount[1] == 15);

    const int n = 256;
    int **slots, *bad, hbad = 0;
    CHECK(cudaMalloc(&slots, n * sizeof(int *)));
    CHECK(cudaMalloc(&bad, sizeof(int)));
    CHECK(cudaMemset(bad, 0, sizeof(int)));
    for (int round = 0; round < 3; round++) {
        alloc_lists<<<n / 64, 64>>>(slots, n);
        CHECK(cudaGetLastError());
        check_and_free<<<n / 64, 64>>>(slots, n, bad);
        CHECK(cudaDeviceSynchronize());
    }
    int *hslots[n];
    CHECK(cudaMemcpy(hslots, slots, sizeof hslots, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hbad, bad, sizeof hbad, cudaMemcpyDeviceToHost));
    TRUE(hbad == 0);
    int distinct = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) distinct &= hslots[i] != hslots[j];
    TRUE(distinct);

    // The heap is frozen once a kernel has used it.
    EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 4u << 20), cudaErrorInvalidValue);

    int *sum, hsum = 0;
    CHECK(cudaMalloc(&sum, sizeof(int)));
    CHECK(cudaMemset(sum, 0, sizeof(int)));
    objects<<<2, 32>>>(sum);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(&hsum, sum, sizeof hsum, cudaMemcpyDeviceToHost));
    TRUE(hsum == 64 * (55 + 120));

    // Last (the error is sticky): a double free is an illegal address.
    double_free<<<1, 1>>>();
    EXPECT(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    return report();
}
