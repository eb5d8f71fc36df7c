/*
 * cudaProfiler.h for rgdev: the Driver API's profiler control, as NVIDIA's header of the
 * same name declares it (written for rgdev from the API's public interface facts).
 * rgdev exports these entry points; they return CUDA_ERROR_NOT_SUPPORTED (rgdev's
 * statistics and traces cover the whole run: see docs/rgdev-tool.md).
 */
#ifndef __cudaProfiler_h__
#define __cudaProfiler_h__

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum CUoutput_mode_enum {
    CU_OUT_KEY_VALUE_PAIR = 0x00,
    CU_OUT_CSV = 0x01
} CUoutput_mode;

CUresult cuProfilerInitialize(const char *configFile, const char *outputFile, CUoutput_mode outputMode);
CUresult cuProfilerStart(void);
CUresult cuProfilerStop(void);

#ifdef __cplusplus
}
#endif

#endif /* __cudaProfiler_h__ */
