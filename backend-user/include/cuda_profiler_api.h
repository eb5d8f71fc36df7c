/*
 * cuda_profiler_api.h for rgdev: the Runtime API's profiler control, as CUDA declares it.
 * rgdev collects statistics for every kernel and copy whatever the profiler state
 * (docs/rgdev-tool.md); these calls succeed and change nothing.
 */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__

#include "driver_types.h"

#if defined(__cplusplus)
extern "C" {
#endif
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
#if defined(__cplusplus)
}
#endif

#endif /* __CUDA_PROFILER_API_H__ */
