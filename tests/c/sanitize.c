/*
 * Seeded bugs for `rgdev run --check all` (tests/tests/c_abi.rs reads the report): a
 * shared-memory race between warps (reported when the program synchronizes; the kernel
 * completes) and a write one element past an allocation (memcheck stops the grid:
 * CUDA_ERROR_ILLEGAL_ADDRESS, as an invalid access would on a GPU).
 */
#include <cuda.h>
#include <stdio.h>

#include "check.h"

static const char *RACE =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".visible .entry step(.param .u64 out)\n{\n .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n"
    " .shared .align 4 .b8 row[256];\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n"
    " shl.b32 %r2, %r1, 2;\n mov.u32 %r3, row;\n add.u32 %r4, %r3, %r2;\n st.shared.u32 [%r4], %r1;\n"
    " bar.sync 0;\n add.u32 %r5, %r1, 1;\n and.b32 %r5, %r5, 63;\n shl.b32 %r6, %r5, 2;\n"
    " add.u32 %r7, %r3, %r6;\n ld.shared.u32 %r8, [%r7];\n add.u32 %r9, %r8, %r1;\n"
    " st.shared.u32 [%r4], %r9;\n bar.sync 0;\n ld.shared.u32 %r10, [%r4];\n mul.wide.u32 %rd2, %r1, 4;\n"
    " add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r10;\n ret;\n}\n";

static const char *OVERRUN =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".visible .entry fill(.param .u64 out, .param .u32 n)\n{\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n"
    " .reg .pred %p;\n ld.param.u64 %rd1, [out];\n ld.param.u32 %r1, [n];\n mov.u32 %r2, %tid.x;\n"
    " setp.gt.u32 %p, %r2, %r1;\n @%p bra DONE;\n mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
    " st.global.u32 [%rd3], %r2;\nDONE:\n ret;\n}\n";

int main(void) {
    CUcontext ctx;
    CUmodule race, overrun;
    CUfunction step, fill;
    CUdeviceptr out, small;
    CHECK(cuInit(0));
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CHECK(cuModuleLoadData(&race, RACE));
    CHECK(cuModuleGetFunction(&step, race, "step"));
    CHECK(cuMemAlloc(&out, 64 * 4));
    void *p1[] = {&out};
    CHECK(cuLaunchKernel(step, 1, 1, 1, 64, 1, 1, 0, NULL, p1, NULL));
    CHECK(cuCtxSynchronize()); /* a race is reported, not stopped */
    CHECK(cuModuleLoadData(&overrun, OVERRUN));
    CHECK(cuModuleGetFunction(&fill, overrun, "fill"));
    CHECK(cuMemAlloc(&small, 100 * 4));
    int n = 100;
    void *p2[] = {&small, &n};
    CHECK(cuLaunchKernel(fill, 1, 1, 1, 128, 1, 1, 0, NULL, p2, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxDestroy(ctx));
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("sanitize: all checks passed\n");
    return 0;
}
