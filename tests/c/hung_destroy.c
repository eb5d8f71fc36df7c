/*
 * One thread destroys a context whose kernel never ends by itself (it counts and stores
 * until the device's watchdog stops it); meanwhile the main thread's calls on its own
 * context must go on. Run by tests/tests/c_abi.rs with a preset whose watchdog is 2e7
 * cycles, so the destroy waits for a second or two of simulation.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

static const char *COUNT = ".version 6.4\n.target sm_70\n.address_size 64\n"
                           ".visible .entry count(.param .u64 out)\n{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n"
                           " ld.param.u64 %rd1, [out];\n mov.u32 %r1, 0;\nL:\n add.u32 %r1, %r1, 1;\n"
                           " st.global.u32 [%rd1], %r1;\n bra.uni L;\n}\n";

static atomic_int destroying, destroyed;
static CUresult destroy_result;

static void *hung(void *arg) {
    (void)arg;
    CUcontext ctx;
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CHECK(cuModuleLoadData(&m, COUNT));
    CHECK(cuModuleGetFunction(&f, m, "count"));
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    atomic_store(&destroying, 1);
    destroy_result = cuCtxDestroy(ctx); /* waits until the watchdog stops the kernel */
    atomic_store(&destroyed, 1);
    return NULL;
}

int main(void) {
    CHECK(cuInit(0));
    CUcontext mine;
    CHECK(cuCtxCreate(&mine, 0, 0));
    pthread_t t;
    if (pthread_create(&t, NULL, hung, NULL) != 0) return 1;
    while (!atomic_load(&destroying)) {
    }
    /* Let the other thread get well into cuCtxDestroy (it waits a second or more). */
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    /* These return at once: nothing of this thread waits for that context. */
    size_t free_, total;
    int calls = 0;
    for (; calls < 2000 && !atomic_load(&destroyed); calls++) {
        CHECK(cuMemGetInfo(&free_, &total));
        CUcontext cur;
        CHECK(cuCtxGetCurrent(&cur));
        TRUE(cur == mine);
    }
    int overlapped = !atomic_load(&destroyed);
    TRUE(calls == 2000 && overlapped);
    pthread_join(t, NULL);
    /* The destroy succeeds: the watchdog's stop was the destroyed context's own error. */
    TRUE(destroy_result == CUDA_SUCCESS);
    CHECK(cuCtxDestroy(mine));
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("hung_destroy: %d calls while the other context was destroyed; all checks passed\n", calls);
    return 0;
}
