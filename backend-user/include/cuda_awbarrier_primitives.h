/*
 * cuda_awbarrier_primitives.h for rgdev: CUDA's asynchronous barrier primitives
 * (__mbarrier_*: split arrive and wait on a barrier object in shared memory), over PTX
 * mbarrier, which rgdev's device runs as one 64-bit word with an atomic arrive. Written for
 * rgdev from CUDA's programming guide ("Asynchronous Barrier Primitives Interface"); not
 * NVIDIA's header.
 */
#ifndef _CUDA_AWBARRIER_PRIMITIVES_H_
#define _CUDA_AWBARRIER_PRIMITIVES_H_

#include "host_defines.h"
#include <stdint.h>

typedef uint64_t __mbarrier_t;
typedef uint64_t __mbarrier_token_t;

#if defined(__CUDA__)
/* The shared-space address of a barrier in shared memory. */
static __device__ __forceinline__ uint64_t __rgdev_mbarrier_at(const __mbarrier_t *bar) {
    uint64_t a;
    __asm__("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(bar));
    return a;
}
/* The most arrivals a barrier may expect per phase (PTX: 2^20 - 1). */
static __device__ __forceinline__ uint32_t __mbarrier_maximum_count(void) { return (1u << 20) - 1; }
static __device__ __forceinline__ void __mbarrier_init(__mbarrier_t *bar, uint32_t expected_count) {
    __asm__ __volatile__("mbarrier.init.shared.b64 [%0], %1;" ::"l"(__rgdev_mbarrier_at(bar)), "r"(expected_count)
                         : "memory");
}
static __device__ __forceinline__ void __mbarrier_inval(__mbarrier_t *bar) {
    __asm__ __volatile__("mbarrier.inval.shared.b64 [%0];" ::"l"(__rgdev_mbarrier_at(bar)) : "memory");
}
static __device__ __forceinline__ __mbarrier_token_t __mbarrier_arrive(__mbarrier_t *bar) {
    __mbarrier_token_t t;
    __asm__ __volatile__("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(t) : "l"(__rgdev_mbarrier_at(bar)) : "memory");
    return t;
}
static __device__ __forceinline__ __mbarrier_token_t __mbarrier_arrive_and_drop(__mbarrier_t *bar) {
    __mbarrier_token_t t;
    __asm__ __volatile__("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(t) : "l"(__rgdev_mbarrier_at(bar))
                         : "memory");
    return t;
}
/* Whether the phase `token` arrived in has completed. */
static __device__ __forceinline__ bool __mbarrier_test_wait(__mbarrier_t *bar, __mbarrier_token_t token) {
    uint32_t done;
    __asm__ __volatile__("{\n .reg .pred p;\n mbarrier.test_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                         : "=r"(done)
                         : "l"(__rgdev_mbarrier_at(bar)), "l"(token)
                         : "memory");
    return done != 0;
}
/* As __mbarrier_test_wait; the thread may sleep up to max_sleep_nanosec first (here: not). */
static __device__ __forceinline__ bool __mbarrier_try_wait(__mbarrier_t *bar, __mbarrier_token_t token,
                                                           uint32_t max_sleep_nanosec) {
    (void)max_sleep_nanosec;
    return __mbarrier_test_wait(bar, token);
}
/* Whether the phase of parity `phase_parity` has completed. */
static __device__ __forceinline__ bool __mbarrier_try_wait_parity(__mbarrier_t *bar, bool phase_parity,
                                                                  uint32_t max_sleep_nanosec) {
    (void)max_sleep_nanosec;
    uint32_t done;
    __asm__ __volatile__("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                         : "=r"(done)
                         : "l"(__rgdev_mbarrier_at(bar)), "r"((uint32_t)phase_parity)
                         : "memory");
    return done != 0;
}
/* The arrivals the barrier still expected when `token` was taken. */
static __device__ __forceinline__ uint32_t __mbarrier_token_pending_count(__mbarrier_token_t token) {
    uint32_t n;
    __asm__("mbarrier.pending_count.b64 %0, %1;" : "=r"(n) : "l"(token));
    return n;
}
#endif /* __CUDA__ */

#endif /* _CUDA_AWBARRIER_PRIMITIVES_H_ */
