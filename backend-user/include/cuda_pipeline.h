/*
 * cuda_pipeline.h for rgdev: CUDA's pipeline primitives (sm_80's asynchronous copies from
 * global to shared memory), over PTX cp.async: __pipeline_memcpy_async of 4, 8 or 16 bytes
 * (zfill trailing bytes zeroed), __pipeline_commit, __pipeline_wait_prior and
 * __pipeline_arrive_on (an mbarrier arrival once the copies are done). rgdev's device
 * completes each copy where it is issued, which every wait then finds done. Written for rgdev from CUDA's
 * documented primitives; not NVIDIA's header.
 */
#ifndef _CUDA_PIPELINE_H_
#define _CUDA_PIPELINE_H_

#include "cuda_pipeline_primitives.h"

#endif /* _CUDA_PIPELINE_H_ */
