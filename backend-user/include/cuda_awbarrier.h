/*
 * cuda_awbarrier.h for rgdev: nvcuda::experimental::awbarrier, the class form of the
 * asynchronous barrier (cuda_awbarrier_primitives.h, PTX mbarrier) in shared memory:
 * awbarrier_init, arrive, arrive_and_drop, wait, arrive_and_wait, try_wait and
 * timed_wait (no sleep), their parity forms, max. Written for rgdev from CUDA's
 * documentation; not NVIDIA's header.
 */
#ifndef _CUDA_AWBARRIER_H_
#define _CUDA_AWBARRIER_H_
#include "cuda_awbarrier_primitives.h"
#if defined(__CUDA__) && defined(__cplusplus)
namespace nvcuda {
namespace experimental {
class awbarrier {
  public:
    class arrival_token {
      public:
        arrival_token() = default;
        ~arrival_token() = default;
        __device__ uint32_t pending_count() const { return __mbarrier_token_pending_count(token); }

      private:
        __device__ arrival_token(uint64_t t) : token(t) {}
        uint64_t token;
        friend class awbarrier;
    };
    awbarrier() = default;
    awbarrier(const awbarrier &) = delete;
    awbarrier &operator=(const awbarrier &) = delete;
    __device__ arrival_token arrive() { return arrival_token(__mbarrier_arrive(&barrier)); }
    __device__ arrival_token arrive_and_drop() { return arrival_token(__mbarrier_arrive_and_drop(&barrier)); }
    __device__ bool try_wait(arrival_token t, uint32_t max_sleep_nanosec) {
        return __mbarrier_try_wait(&barrier, t.token, max_sleep_nanosec);
    }
    __device__ bool try_wait_parity(bool phase, uint32_t max_sleep_nanosec) {
        return __mbarrier_try_wait_parity(&barrier, phase, max_sleep_nanosec);
    }
    __device__ bool timed_wait(arrival_token t, uint32_t hint_cycles) { return try_wait(t, hint_cycles); }
    __device__ bool timed_wait_parity(bool phase, uint32_t hint_cycles) { return try_wait_parity(phase, hint_cycles); }
    __device__ void wait(arrival_token t) {
        while (!__mbarrier_test_wait(&barrier, t.token)) {
        }
    }
    __device__ void arrive_and_wait() { wait(arrive()); }
    __device__ static uint32_t max() { return __mbarrier_maximum_count(); }

  private:
    uint64_t barrier;
    friend __device__ void awbarrier_init(awbarrier *b, uint32_t expected_count);
};
__device__ inline void awbarrier_init(awbarrier *b, uint32_t expected_count) {
    __mbarrier_init(&b->barrier, expected_count);
}
} // namespace experimental
} // namespace nvcuda
#endif
#endif /* _CUDA_AWBARRIER_H_ */
