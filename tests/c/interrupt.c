/*
 * A program interrupted while it waits for a kernel (SIGINT, as Ctrl-C sends): run by
 * tests/tests/c_abi.rs under `rgdev run --stats --stats-json`, which must still print and
 * write the statistics. The kernel counts and stores until the watchdog, far longer than
 * the test waits.
 */
#include <cuda.h>
#include <stdio.h>

#include "check.h"


int main(void) {
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuCtxCreate(&ctx, 0, 0));
    launch_count();
    printf("launched\n");
    fflush(stdout);
    cuCtxSynchronize(); /* interrupted here */
    printf("not interrupted\n");
    return 0;
}
