/* Shared by the Runtime API test programs: CHECK stops at a failed call, EXPECT and TRUE
 * count failures, report() prints the verdict and gives the exit status. */
#ifndef RGDEV_TEST_CHECK_CUH
#define RGDEV_TEST_CHECK_CUH

#include <cstdio>
#include <cstdlib>

static int failures;

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            fprintf(stderr, "%s:%d: %s = %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));      \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

#define EXPECT(call, code)                                                                             \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != (code)) {                                                                            \
            fprintf(stderr, "%s:%d: %s = %s, expected %s\n", __FILE__, __LINE__, #call,                \
                    cudaGetErrorName(e_), #code);                                                      \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)

#define TRUE(cond)                                                                                     \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                        \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)

static int report(void) {
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}

#endif
