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


static atomic_int destroying, destroyed;
static CUresult destroy_result;

static void *hung(void *arg) {
    (void)arg;
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, 0, 0));
    launch_count();
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
