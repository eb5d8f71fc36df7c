/*
 * cuda.h as programs written against NVIDIA's header use it: its include guard (the
 * samples' helper headers define checkCudaErrors only when they see it), CUDA_VERSION, a
 * switch over CUcomputemode (deviceQueryDrv prints the mode), and the versioned names.
 * Run by tests/tests/c_abi.rs:  header
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef __cuda_cuda_h__
#error "cuda.h lacks NVIDIA's include guard __cuda_cuda_h__"
#endif
#if !defined(CUDA_VERSION) || CUDA_VERSION < 12000
#error "cuda.h must define CUDA_VERSION as a CUDA 12 header does"
#endif

/* What a helper header does once it has seen the guard. */
#ifdef __cuda_cuda_h__
#ifndef checkCudaErrors
#define checkCudaErrors(err) check_errors((err), #err, __LINE__)
static void check_errors(CUresult e, const char *what, int line) {
    if (e != CUDA_SUCCESS) {
        const char *name = "?";
        cuGetErrorName(e, &name);
        fprintf(stderr, "line %d: %s = %s\n", line, what, name);
        exit(1);
    }
}
#endif
#endif

static const char *mode_name(CUcomputemode m) {
    switch (m) {
    case CU_COMPUTEMODE_DEFAULT:
        return "Default";
    case CU_COMPUTEMODE_PROHIBITED:
        return "Prohibited";
    case CU_COMPUTEMODE_EXCLUSIVE_PROCESS:
        return "Exclusive Process";
    }
    return "Unknown";
}

int main(void) {
    CUdevice dev;
    int mode = -1, version = 0;
    checkCudaErrors(cuInit(0));
    checkCudaErrors(cuDeviceGet(&dev, 0));
    checkCudaErrors(cuDeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev));
    printf("compute mode: %s\n", mode_name((CUcomputemode)mode));
    checkCudaErrors(cuDriverGetVersion(&version));
    /* cuGetProcAddress is cuGetProcAddress_v2 here, as in CUDA 12's header. */
    void *init = NULL;
    checkCudaErrors(cuGetProcAddress("cuInit", &init, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL));
    if (mode != CU_COMPUTEMODE_DEFAULT || version < CUDA_VERSION || init == NULL) {
        fprintf(stderr, "mode %d, driver version %d, cuInit %p\n", mode, version, init);
        return 1;
    }
    printf("header: all checks passed\n");
    return 0;
}
