/*
 * A program interrupted while it waits for a kernel (SIGINT, as Ctrl-C sends): run by
 * tests/tests/c_abi.rs under `rgdev run --stats --stats-json`, which must still print and
 * write the statistics. The kernel counts and stores until the watchdog, far longer than
 * the test waits.
 */
#include <cuda.h>
#include <stdio.h>

#include "check.h"

static const char *COUNT = ".version 6.4\n.target sm_70\n.address_size 64\n"
                           ".visible .entry count(.param .u64 out)\n{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n"
                           " ld.param.u64 %rd1, [out];\n mov.u32 %r1, 0;\nL:\n add.u32 %r1, %r1, 1;\n"
                           " st.global.u32 [%rd1], %r1;\n bra.uni L;\n}\n";

int main(void) {
    CUcontext ctx;
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    CHECK(cuInit(0));
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CHECK(cuModuleLoadData(&m, COUNT));
    CHECK(cuModuleGetFunction(&f, m, "count"));
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    printf("launched\n");
    fflush(stdout);
    cuCtxSynchronize(); /* interrupted here */
    printf("not interrupted\n");
    return 0;
}
