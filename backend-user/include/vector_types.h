/*
 * vector_types.h for rgdev: the vector types the Runtime API passes by value (uint3,
 * dim3). Written for rgdev from CUDA's documented types; not NVIDIA's header.
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__

struct uint3 {
    unsigned int x, y, z;
};
typedef struct uint3 uint3;

/* Grid and block dimensions: unspecified components are 1. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif /* __VECTOR_TYPES_H__ */
