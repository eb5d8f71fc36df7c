/* Shared by the C test programs: CHECK stops at a failed call, EXPECT and TRUE count
 * failures (report() gives the exit status at the end); read_file loads a file whole. */
#ifndef RGDEV_TEST_CHECK_H
#define RGDEV_TEST_CHECK_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static int failures __attribute__((unused));

#define CHECK(call)                                                                          \
    do {                                                                                     \
        CUresult r_ = (call);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                            \
            const char *n_ = "?";                                                            \
            cuGetErrorName(r_, &n_);                                                         \
            fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #call, r_, n_);     \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define EXPECT(call, code)                                                                   \
    do {                                                                                     \
        CUresult r_ = (call);                                                                \
        if (r_ != (code)) {                                                                  \
            fprintf(stderr, "%s:%d: %s = %d, expected %s (%d)\n", __FILE__, __LINE__, #call, \
                    r_, #code, (int)(code));                                                 \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

#define TRUE(cond)                                                                           \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);              \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

/* cuInit, then a new context on device 0, current on this thread. */
__attribute__((unused)) static CUcontext init_context(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    return ctx;
}

/* The program's exit status: the failures counted, or "all checks passed". */
__attribute__((unused)) static int report(void) {
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}

/* The whole of DIR/NAME (or NAME when DIR is NULL), NUL-terminated; exits if unreadable. */
__attribute__((unused)) static char *read_file(const char *dir, const char *name) {
    char path[4096];
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n + 1);
    if (fread(buf, 1, n, f) != (size_t)n) exit(1);
    buf[n] = 0; /* cuModuleLoadData takes PTX as a NUL-terminated string */
    fclose(f);
    return buf;
}

/* One warp counting and storing forever (until the watchdog): entry `count(out)`. */
__attribute__((unused)) static const char *COUNT_PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".visible .entry count(.param .u64 out)\n{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, 0;\nL:\n add.u32 %r1, %r1, 1;\n"
    " st.global.u32 [%rd1], %r1;\n bra.uni L;\n}\n";

/* Load COUNT_PTX in the current context and launch one warp of it on the legacy stream. */
__attribute__((unused)) static void launch_count(void) {
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    CHECK(cuModuleLoadData(&m, COUNT_PTX));
    CHECK(cuModuleGetFunction(&f, m, "count"));
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
}

#endif
