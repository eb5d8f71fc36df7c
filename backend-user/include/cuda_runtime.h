/*
 * cuda_runtime.h for rgdev: what a CUDA C++ program sees (nvcc includes it implicitly;
 * `rgdev cc` does too). The Runtime API's C interface (cuda_runtime_api.h), the vector
 * types and their constructors, and, under a CUDA compiler (clang's CUDA mode), the
 * built-in variables, the device functions and the device math library, all rgdev's own
 * (no NVIDIA header and no libdevice is needed). Also the C++ conveniences of CUDA's
 * header: templates that take a kernel or a symbol by reference. Written for rgdev from
 * CUDA's documented interface; not NVIDIA's header.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#if defined(__CUDA__) && !defined(__CUDACC__)
#define __CUDACC__
#endif

/* What NVIDIA's cuda_runtime.h brings in with it (programs use memset, malloc and the
   like without including them). */
#include <string.h>
#include <stdlib.h>
#include <limits.h>
#include <stddef.h>
#if defined(__cplusplus)
#include <new>
#include <utility>
#endif

#include "host_defines.h"
/* Again, now that __device__ exists: clang's CUDA wrapper of <new> then defines new and
   delete for device code over malloc and free (host_defines.h), as it does for its own
   CUDA headers. */
#include <new>
#include "builtin_types.h"
#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "vector_functions.h"

#if defined(__CUDA__)
#include "__clang_cuda_builtin_vars.h"

/* The built-in variables convert to the vector types (clang leaves the definitions to
   the CUDA headers). */
#define __RGDEV_BUILTIN_CONVERSIONS(T)                                                                 \
    __device__ inline T::operator dim3() const { return dim3(x, y, z); }                               \
    __device__ inline T::operator uint3() const { return uint3{x, y, z}; }
__RGDEV_BUILTIN_CONVERSIONS(__cuda_builtin_threadIdx_t)
__RGDEV_BUILTIN_CONVERSIONS(__cuda_builtin_blockIdx_t)
__RGDEV_BUILTIN_CONVERSIONS(__cuda_builtin_blockDim_t)
__RGDEV_BUILTIN_CONVERSIONS(__cuda_builtin_gridDim_t)
#undef __RGDEV_BUILTIN_CONVERSIONS

#include "device_functions.h"
#include "math_functions.h"
#include "texture_indirect_functions.h"
#include "surface_indirect_functions.h"

/* Device printf (clang lowers a device call of printf to vprintf(format, arguments)) and
   assert (glibc's assert macro calls __assert_fail; CUDA's device runtime has
   __assertfail, which prints the failure at the next synchronization and stops the grid
   with cudaErrorAssert). */
#include <stdio.h>
extern "C" {
__device__ int printf(const char *format, ...);
__device__ int vprintf(const char *format, const char *arguments);
__device__ void __assertfail(const char *message, const char *file, unsigned int line, const char *function,
                             size_t charSize);
__device__ static inline void __assert_fail(const char *message, const char *file, unsigned int line,
                                            const char *function) {
    __assertfail(message, file, line, function, sizeof(char));
}
}
#endif /* __CUDA__ */

#if defined(__CUDA__) && !defined(__CUDA_ARCH__)
/* This program's (or library's) __managed__ variables, for the runtime (host_defines.h):
   the linker names the bounds of their section; every translation unit registers it, the
   runtime keeps it once. */
extern "C" {
extern char __start_rgdev_managed[] __attribute__((weak, visibility("hidden")));
extern char __stop_rgdev_managed[] __attribute__((weak, visibility("hidden")));
}
static void __attribute__((constructor, used)) __rgdev_register_managed_data(void) {
    if (__start_rgdev_managed != __stop_rgdev_managed)
        __rgdevRegisterManagedData(__start_rgdev_managed, __stop_rgdev_managed);
}
#endif

/* driver_functions.h's constructors of the pitched and 3D memory types. */
static __inline__ __host__ struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
    struct cudaPitchedPtr s;
    s.ptr = d;
    s.pitch = p;
    s.xsize = xsz;
    s.ysize = ysz;
    return s;
}
static __inline__ __host__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
    struct cudaPos p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
}
static __inline__ __host__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
    struct cudaExtent e;
    e.width = w;
    e.height = h;
    e.depth = d;
    return e;
}

#if defined(__cplusplus)

/* Overloads and templates over the C interface, as CUDA's header has them. */
static __inline__ __host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
    return cudaEventCreateWithFlags(event, flags);
}
static __inline__ __host__ cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc(ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc((void **)(void *)ptr, size, flags);
}
/* cudaLaunchKernelEx(config, kernel, args...): the arguments converted to the kernel's
   parameter types, their addresses passed to cudaLaunchKernelExC. */
template <typename... ExpTypes, typename... ActTypes>
static __inline__ __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                                          void (*kernel)(ExpTypes...), ActTypes &&...args) {
    return [&](ExpTypes... coerced) {
        void *pArgs[sizeof...(ExpTypes) + 1] = {((void *)&coerced)...};
        return cudaLaunchKernelExC(config, (const void *)kernel, pArgs);
    }(std::forward<ActTypes>(args)...);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, T *kernel, void **args) {
    return cudaLaunchKernelExC(config, (const void *)kernel, args);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, T *func,
                                                                      const cudaLaunchConfig_t *config) {
    return cudaOccupancyMaxActiveClusters(numClusters, (const void *)func, config);
}
template <class T>
static __inline__ __host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0,
                                                                unsigned int flags = cudaMemAttachSingle) {
    return cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
    return cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
    return cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                         unsigned int flags = cudaMemAttachGlobal) {
    return cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size) {
    return cudaMallocHost((void **)(void *)ptr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
    return cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                                          size_t offset = 0,
                                                          enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                                               size_t offset = 0,
                                                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                               cudaStream_t stream = 0) {
    return cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                            size_t offset = 0,
                                                            enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                                                 size_t offset = 0,
                                                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                                 cudaStream_t stream = 0) {
    return cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
    return cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
    return cudaGetSymbolSize(size, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                        size_t sharedMem = 0, cudaStream_t stream = 0) {
    return cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
    return cudaFuncGetAttributes(attr, (const void *)entry);
}

/* The channel descriptor of element type T. */
template <class T> struct __rgdev_channel;
#define __RGDEV_CHANNEL(T, bits, n, kind)                                                              \
    template <> struct __rgdev_channel<T> {                                                            \
        static __host__ struct cudaChannelFormatDesc desc() {                                          \
            return cudaCreateChannelDesc(bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 3 ? bits : 0, kind); \
        }                                                                                              \
    };
#define __RGDEV_CHANNELS(T, bits, kind)                                                                \
    __RGDEV_CHANNEL(T##1, bits, 1, kind) __RGDEV_CHANNEL(T##2, bits, 2, kind) __RGDEV_CHANNEL(T##4, bits, 4, kind)
__RGDEV_CHANNEL(char, 8, 1, cudaChannelFormatKindSigned)
__RGDEV_CHANNEL(signed char, 8, 1, cudaChannelFormatKindSigned)
__RGDEV_CHANNEL(unsigned char, 8, 1, cudaChannelFormatKindUnsigned)
__RGDEV_CHANNEL(short, 16, 1, cudaChannelFormatKindSigned)
__RGDEV_CHANNEL(unsigned short, 16, 1, cudaChannelFormatKindUnsigned)
__RGDEV_CHANNEL(int, 32, 1, cudaChannelFormatKindSigned)
__RGDEV_CHANNEL(unsigned int, 32, 1, cudaChannelFormatKindUnsigned)
__RGDEV_CHANNEL(float, 32, 1, cudaChannelFormatKindFloat)
__RGDEV_CHANNELS(char, 8, cudaChannelFormatKindSigned)
__RGDEV_CHANNELS(uchar, 8, cudaChannelFormatKindUnsigned)
__RGDEV_CHANNELS(short, 16, cudaChannelFormatKindSigned)
__RGDEV_CHANNELS(ushort, 16, cudaChannelFormatKindUnsigned)
__RGDEV_CHANNELS(int, 32, cudaChannelFormatKindSigned)
__RGDEV_CHANNELS(uint, 32, cudaChannelFormatKindUnsigned)
__RGDEV_CHANNELS(float, 32, cudaChannelFormatKindFloat)
#undef __RGDEV_CHANNELS
#undef __RGDEV_CHANNEL
template <class T> static __inline__ __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
    return __rgdev_channel<T>::desc();
}

template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value) {
    return cudaFuncSetAttribute((const void *)entry, attr, value);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetCacheConfig(T *entry, enum cudaFuncCache config) {
    return cudaFuncSetCacheConfig((const void *)entry, config);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                                   void **args, size_t sharedMem = 0,
                                                                   cudaStream_t stream = 0) {
    return cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                                     int blockSize,
                                                                                     size_t dynamicSMemSize) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func, blockSize, dynamicSMemSize);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, (const void *)func, blockSize,
                                                                  dynamicSMemSize, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func,
                                                                                 int numBlocks, int blockSize) {
    return cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, (const void *)func, numBlocks, blockSize);
}

/* The block size with the most resident threads per SM (the largest such size on a
   tie), for dynamic shared memory given per block size by `blockSizeToDynamicSMemSize`;
   `*minGridSize` blocks of it fill every SM. `blockSizeLimit` 0: the kernel's limit. */
template <class UnaryFunction, class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize, int blockSizeLimit = 0,
    unsigned int flags = 0) {
    if (!minGridSize || !blockSize || !func) return cudaErrorInvalidValue;
    int device, sms, warp, maxThreads;
    struct cudaFuncAttributes attr;
    cudaError_t e;
    if ((e = cudaGetDevice(&device)) != cudaSuccess) return e;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess) return e;
    if ((e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device)) != cudaSuccess) return e;
    if ((e = cudaFuncGetAttributes(&attr, (const void *)func)) != cudaSuccess) return e;
    maxThreads = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < maxThreads) maxThreads = blockSizeLimit;
    int bestBlock = 0, bestThreads = 0, bestBlocks = 0;
    for (int b = (maxThreads / warp) * warp; b > 0; b -= warp) {
        int n = 0;
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, (const void *)func, b,
                                                                  blockSizeToDynamicSMemSize(b), flags);
        if (e != cudaSuccess) return e;
        if (n * b > bestThreads) {
            bestThreads = n * b;
            bestBlock = b;
            bestBlocks = n;
        }
    }
    *blockSize = bestBlock;
    *minGridSize = bestBlocks * sms;
    return cudaSuccess;
}
template <class UnaryFunction, class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize, int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func,
                                                                   blockSizeToDynamicSMemSize, blockSizeLimit, 0);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                                                                   T func, size_t dynamicSMemSize = 0,
                                                                                   int blockSizeLimit = 0,
                                                                                   unsigned int flags = 0) {
    struct __Fixed {
        size_t n;
        __host__ size_t operator()(int) const { return n; }
    } f = {dynamicSMemSize};
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func, f, blockSizeLimit,
                                                                   flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                                          size_t dynamicSMemSize = 0,
                                                                          int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize, blockSizeLimit,
                                                       0);
}

#endif /* __cplusplus */

#endif /* __CUDA_RUNTIME_H__ */
