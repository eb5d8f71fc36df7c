/*
 * host_defines.h for rgdev: CUDA's function and variable qualifiers. Under a CUDA
 * compiler (clang's CUDA mode defines __CUDA__) they are clang's attributes; in plain C
 * and C++ (host files that include cuda_runtime.h) they expand to nothing. Written for
 * rgdev from CUDA's documented language extensions; not NVIDIA's header.
 */
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__

#if defined(__CUDA__)
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#if defined(__CUDA_ARCH__)
#define __managed__ __device__
#else
/* clang has no managed variables for CUDA: a __managed__ variable's host shadow is its
   storage. It lives in the section `rgdev_managed`, which cuda_runtime.h registers with
   the runtime; the runtime maps those pages for the device (at their host address when
   they lie below 16 MiB, as in a program `rgdev cc` links) and has the kernels' module
   address the variables there, so the host and the kernels share the bytes. */
#define __managed__ __device__ __attribute__((section("rgdev_managed")))
#endif
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__ __attribute__((grid_constant))
/* Device malloc and free: the device runtime's, on the context's heap of
   cudaLimitMallocHeapSize bytes (8 MiB unless set before the first kernel that uses it).
   Declared here, before anything brings in <new>, whose CUDA wrapper defines device new
   and delete over them. */
#include <stddef.h>
#if defined(__cplusplus)
extern "C" {
#endif
__device__ void *malloc(size_t size) __attribute__((nothrow)) __attribute__((malloc));
__device__ void free(void *ptr) __attribute__((nothrow));
#if defined(__cplusplus)
}
#endif
#else
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __grid_constant__
#endif

#define __forceinline__ __inline__ __attribute__((always_inline))
/* __noinline__ only under a CUDA compiler, as CUDA's: libstdc++ spells GCC's attribute
   __attribute__((__noinline__)), which the macro would break in plain C++. clang 15 and
   later know __noinline__ as a CUDA keyword, so there it is not a macro at all. */
#if defined(__CUDA__) && defined(__clang_major__) && __clang_major__ < 15
#if defined(__cplusplus)
/* libstdc++'s shared_ptr (GCC 12) is read before the macro exists. */
#include <memory>
#endif
#define __noinline__ __attribute__((noinline))
#endif
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __align__(n)
#define __thread__ __thread
#define __import__
#define __export__
#define __cdecl
#define __annotate__(a) __attribute__((a))
#define __location__(a) __annotate__(a)
#define CUDARTAPI
#define __device_builtin__
#define __cudart_builtin__
#define __specialization_static

#endif /* __HOST_DEFINES_H__ */
