/*
 * device_launch_parameters.h for rgdev: the built-in variables (threadIdx, blockIdx,
 * blockDim, gridDim, warpSize), which cuda_runtime.h already provides under a CUDA
 * compiler; programs written for Visual Studio include this name. Written for rgdev.
 */
#ifndef __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#include "cuda_runtime.h"
#endif
