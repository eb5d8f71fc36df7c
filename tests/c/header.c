/*
 * cuda.h as programs written against NVIDIA's header use it: its include guard (the
 * samples' helper headers define checkCudaErrors only when they see it), CUDA_VERSION, a
 * switch over CUcomputemode (deviceQueryDrv prints the mode), the versioned names, and
 * the device's PCI address and UUID.
 * Run by tests/tests/c_abi.rs:  header
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* The PCI address and UUID. */
    char bus[32];
    CUdevice by_bus = -1;
    CUuuid u1, u2;
    checkCudaErrors(cuDeviceGetPCIBusId(bus, sizeof bus, dev));
    checkCudaErrors(cuDeviceGetByPCIBusId(&by_bus, bus));
    checkCudaErrors(cuDeviceGetByPCIBusId(&by_bus, "00:00.0"));
    int bad = cuDeviceGetByPCIBusId(&by_bus, "0000:01:00.0") != CUDA_ERROR_INVALID_DEVICE ||
              cuDeviceGetByPCIBusId(&by_bus, "not a bus id") != CUDA_ERROR_INVALID_VALUE;
    checkCudaErrors(cuDeviceGetUuid(&u1, dev));
    checkCudaErrors(cuDeviceGetUuid(&u2, dev));
    int zero = 1;
    for (int k = 0; k < 16; k++) {
        zero &= u1.bytes[k] == 0;
        bad |= u1.bytes[k] != u2.bytes[k];
    }
    if (bad || zero || by_bus != dev || strcmp(bus, "0000:00:00.0") != 0) {
        fprintf(stderr, "bus id %s, device %d, uuid zero %d, bad %d\n", bus, by_bus, zero, bad);
        return 1;
    }
    if (mode != CU_COMPUTEMODE_DEFAULT || version < CUDA_VERSION || init == NULL) {
        fprintf(stderr, "mode %d, driver version %d, cuInit %p\n", mode, version, init);
        return 1;
    }
    printf("header: all checks passed\n");
    return 0;
}
