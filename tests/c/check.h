/* Shared by the C test programs: CHECK stops at a failed call, EXPECT and TRUE count
 * failures (the program reports them at the end); read_file loads a file whole. */
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

#endif
