/*
 * cuda_pipeline_primitives.h for rgdev: the primitives of cuda_pipeline.h (see there).
 * Written for rgdev from CUDA's documented primitives; not NVIDIA's header.
 */
#ifndef _CUDA_PIPELINE_PRIMITIVES_H_
#define _CUDA_PIPELINE_PRIMITIVES_H_

#include "host_defines.h"
#include <stddef.h>

#if defined(__CUDA__)
/* The shared-space address of a generic pointer into shared memory. */
static __device__ __forceinline__ unsigned long long __rgdev_to_shared(const void *p) {
    unsigned long long a;
    __asm__("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
    return a;
}

/* Copy size_and_align bytes (4, 8 or 16, which both pointers are aligned to) from global
   to shared memory; the last zfill of them are zeros instead. */
static __device__ __forceinline__ void __pipeline_memcpy_async(void *__restrict__ dst_shared,
                                                              const void *__restrict__ src_global,
                                                              size_t size_and_align, size_t zfill = 0) {
    unsigned long long d = __rgdev_to_shared(dst_shared);
    unsigned int keep = (unsigned int)(size_and_align - zfill);
    switch (size_and_align) {
    case 16:
        __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"l"(d), "l"(src_global), "r"(keep)
                             : "memory");
        break;
    case 8:
        __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"l"(d), "l"(src_global), "r"(keep)
                             : "memory");
        break;
    default:
        __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"l"(d), "l"(src_global), "r"(keep)
                             : "memory");
        break;
    }
}

/* Close the batch of copies issued since the last commit. */
static __device__ __forceinline__ void __pipeline_commit(void) {
    __asm__ __volatile__("cp.async.commit_group;" ::: "memory");
}

/* Wait until at most `prior` committed batches are outstanding. */
static __device__ __forceinline__ void __pipeline_wait_prior(size_t prior) {
    switch (prior) {
    case 0: __asm__ __volatile__("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: __asm__ __volatile__("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: __asm__ __volatile__("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: __asm__ __volatile__("cp.async.wait_group 3;" ::: "memory"); break;
    default: __asm__ __volatile__("cp.async.wait_group 4;" ::: "memory"); break;
    }
}

#endif /* __CUDA__ */

#include "cuda_awbarrier_primitives.h"

#if defined(__CUDA__)
/* The barrier's arrival once the thread's copies so far have completed (an arrival it
   expects: PTX cp.async.mbarrier.arrive.noinc). */
static __device__ __forceinline__ void __pipeline_arrive_on(__mbarrier_t *bar) {
    __asm__ __volatile__("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"l"(__rgdev_mbarrier_at(bar)) : "memory");
}
#endif /* __CUDA__ */

#endif /* _CUDA_PIPELINE_PRIMITIVES_H_ */
