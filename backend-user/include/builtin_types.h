/*
 * builtin_types.h for rgdev: the types the CUDA compiler knows (driver types, vector types,
 * surface and texture types), as CUDA's header of that name gathers them.
 */
#ifndef __BUILTIN_TYPES_H__
#define __BUILTIN_TYPES_H__
#include "driver_types.h"
#include "vector_types.h"
#endif /* __BUILTIN_TYPES_H__ */
