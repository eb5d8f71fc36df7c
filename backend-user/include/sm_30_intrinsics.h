/* sm_30_intrinsics.h for rgdev: these device functions are declared by cuda_runtime.h (device_functions.h). */
#include "cuda_runtime.h"
