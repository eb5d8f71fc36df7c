/*
 * vector_types.h for rgdev: CUDA's built-in vector types (char1 ... double4, dim3) with
 * the alignments CUDA gives them: a 2- or 4-component type is aligned to its size, at most
 * 16 bytes; 1- and 3-component types to their element. Written for rgdev from CUDA's
 * documented types; not NVIDIA's header.
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__

#include "host_defines.h"

struct char1 {
    signed char x;
};
typedef struct char1 char1;

struct __align__(2) char2 {
    signed char x, y;
};
typedef struct char2 char2;

struct char3 {
    signed char x, y, z;
};
typedef struct char3 char3;

struct __align__(4) char4 {
    signed char x, y, z, w;
};
typedef struct char4 char4;

struct uchar1 {
    unsigned char x;
};
typedef struct uchar1 uchar1;

struct __align__(2) uchar2 {
    unsigned char x, y;
};
typedef struct uchar2 uchar2;

struct uchar3 {
    unsigned char x, y, z;
};
typedef struct uchar3 uchar3;

struct __align__(4) uchar4 {
    unsigned char x, y, z, w;
};
typedef struct uchar4 uchar4;

struct short1 {
    short x;
};
typedef struct short1 short1;

struct __align__(4) short2 {
    short x, y;
};
typedef struct short2 short2;

struct short3 {
    short x, y, z;
};
typedef struct short3 short3;

struct __align__(8) short4 {
    short x, y, z, w;
};
typedef struct short4 short4;

struct ushort1 {
    unsigned short x;
};
typedef struct ushort1 ushort1;

struct __align__(4) ushort2 {
    unsigned short x, y;
};
typedef struct ushort2 ushort2;

struct ushort3 {
    unsigned short x, y, z;
};
typedef struct ushort3 ushort3;

struct __align__(8) ushort4 {
    unsigned short x, y, z, w;
};
typedef struct ushort4 ushort4;

struct int1 {
    int x;
};
typedef struct int1 int1;

struct __align__(8) int2 {
    int x, y;
};
typedef struct int2 int2;

struct int3 {
    int x, y, z;
};
typedef struct int3 int3;

struct __align__(16) int4 {
    int x, y, z, w;
};
typedef struct int4 int4;

struct uint1 {
    unsigned int x;
};
typedef struct uint1 uint1;

struct __align__(8) uint2 {
    unsigned int x, y;
};
typedef struct uint2 uint2;

struct uint3 {
    unsigned int x, y, z;
};
typedef struct uint3 uint3;

struct __align__(16) uint4 {
    unsigned int x, y, z, w;
};
typedef struct uint4 uint4;

struct long1 {
    long x;
};
typedef struct long1 long1;

struct __align__(16) long2 {
    long x, y;
};
typedef struct long2 long2;

struct long3 {
    long x, y, z;
};
typedef struct long3 long3;

struct __align__(16) long4 {
    long x, y, z, w;
};
typedef struct long4 long4;

struct ulong1 {
    unsigned long x;
};
typedef struct ulong1 ulong1;

struct __align__(16) ulong2 {
    unsigned long x, y;
};
typedef struct ulong2 ulong2;

struct ulong3 {
    unsigned long x, y, z;
};
typedef struct ulong3 ulong3;

struct __align__(16) ulong4 {
    unsigned long x, y, z, w;
};
typedef struct ulong4 ulong4;

struct longlong1 {
    long long x;
};
typedef struct longlong1 longlong1;

struct __align__(16) longlong2 {
    long long x, y;
};
typedef struct longlong2 longlong2;

struct longlong3 {
    long long x, y, z;
};
typedef struct longlong3 longlong3;

struct __align__(16) longlong4 {
    long long x, y, z, w;
};
typedef struct longlong4 longlong4;

struct ulonglong1 {
    unsigned long long x;
};
typedef struct ulonglong1 ulonglong1;

struct __align__(16) ulonglong2 {
    unsigned long long x, y;
};
typedef struct ulonglong2 ulonglong2;

struct ulonglong3 {
    unsigned long long x, y, z;
};
typedef struct ulonglong3 ulonglong3;

struct __align__(16) ulonglong4 {
    unsigned long long x, y, z, w;
};
typedef struct ulonglong4 ulonglong4;

struct float1 {
    float x;
};
typedef struct float1 float1;

struct __align__(8) float2 {
    float x, y;
};
typedef struct float2 float2;

struct float3 {
    float x, y, z;
};
typedef struct float3 float3;

struct __align__(16) float4 {
    float x, y, z, w;
};
typedef struct float4 float4;

struct double1 {
    double x;
};
typedef struct double1 double1;

struct __align__(16) double2 {
    double x, y;
};
typedef struct double2 double2;

struct double3 {
    double x, y, z;
};
typedef struct double3 double3;

struct __align__(16) double4 {
    double x, y, z, w;
};
typedef struct double4 double4;


/* Grid and block dimensions: unspecified components are 1. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif /* __VECTOR_TYPES_H__ */
