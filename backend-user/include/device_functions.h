/*
 * device_functions.h for rgdev: CUDA's device-side built-in functions over clang's NVPTX
 * builtins, so kernels need neither NVIDIA's headers nor libdevice: barriers and fences,
 * atomics, warp shuffles and votes, read-only loads, clocks, integer and floating-point
 * intrinsics. Included by cuda_runtime.h under a CUDA compiler. Written for rgdev from
 * CUDA's documented device API; not NVIDIA's header.
 */
#ifndef __DEVICE_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_H__

#if defined(__CUDA__)

#include "host_defines.h"
#include "vector_types.h"
#include <time.h>

#define __RGDEV_DEV__ static __device__ __forceinline__

/* Barriers and memory fences. Each is also a compiler memory barrier (an empty asm that
 * clobbers memory on both sides): clang may otherwise move or drop shared- and
 * global-memory accesses across its barrier builtins (clang-14 hoists a shared load above
 * bar.sync: LLVM issue 58626), and a barrier that does not order the program's memory
 * accesses computes wrong answers. __syncthreads() is clang's builtin, so it is wrapped
 * by a macro of the same name. */
#define __RGDEV_MEMORY_CLOBBER() __asm__ __volatile__("" ::: "memory")
__RGDEV_DEV__ void __rgdev_syncthreads(void) {
    __RGDEV_MEMORY_CLOBBER();
    __nvvm_bar_sync(0);
    __RGDEV_MEMORY_CLOBBER();
}
#define __syncthreads() __rgdev_syncthreads()
/* The block-wide votes: PTX bar.red.popc / .and / .or. */
__RGDEV_DEV__ int __syncthreads_count(int p) {
    __RGDEV_MEMORY_CLOBBER();
    int r = __nvvm_bar0_popc(p);
    __RGDEV_MEMORY_CLOBBER();
    return r;
}
__RGDEV_DEV__ int __syncthreads_and(int p) {
    __RGDEV_MEMORY_CLOBBER();
    int r = __nvvm_bar0_and(p);
    __RGDEV_MEMORY_CLOBBER();
    return r;
}
__RGDEV_DEV__ int __syncthreads_or(int p) {
    __RGDEV_MEMORY_CLOBBER();
    int r = __nvvm_bar0_or(p);
    __RGDEV_MEMORY_CLOBBER();
    return r;
}
__RGDEV_DEV__ void __syncwarp(unsigned mask = 0xffffffffu) {
    __RGDEV_MEMORY_CLOBBER();
    __nvvm_bar_warp_sync(mask);
    __RGDEV_MEMORY_CLOBBER();
}
__RGDEV_DEV__ void __threadfence_block(void) {
    __RGDEV_MEMORY_CLOBBER();
    __nvvm_membar_cta();
    __RGDEV_MEMORY_CLOBBER();
}
__RGDEV_DEV__ void __threadfence(void) {
    __RGDEV_MEMORY_CLOBBER();
    __nvvm_membar_gl();
    __RGDEV_MEMORY_CLOBBER();
}
__RGDEV_DEV__ void __threadfence_system(void) {
    __RGDEV_MEMORY_CLOBBER();
    __nvvm_membar_sys();
    __RGDEV_MEMORY_CLOBBER();
}

/* Clocks. */
__RGDEV_DEV__ long long clock64(void) { return __nvvm_read_ptx_sreg_clock64(); }
/* The device's clock() overloads the C library's on __device__ (clang's CUDA overloading on
 * host/device attributes), so <time.h> and host code calling clock() are unaffected. */
__RGDEV_DEV__ clock_t clock(void) { return (clock_t)__nvvm_read_ptx_sreg_clock(); }

/* Atomics (relaxed, device scope). Each returns the old value. */
#define __RGDEV_ATOMIC2(name, T, builtin, CT)                                                          \
    __RGDEV_DEV__ T name(T *p, T v) { return (T)builtin((CT *)p, (CT)v); }
__RGDEV_ATOMIC2(atomicAdd, int, __nvvm_atom_add_gen_i, int)
__RGDEV_ATOMIC2(atomicAdd, unsigned int, __nvvm_atom_add_gen_i, int)
__RGDEV_ATOMIC2(atomicAdd, unsigned long long, __nvvm_atom_add_gen_ll, long long)
__RGDEV_ATOMIC2(atomicAdd, float, __nvvm_atom_add_gen_f, float)
__RGDEV_ATOMIC2(atomicAdd, double, __nvvm_atom_add_gen_d, double)
__RGDEV_ATOMIC2(atomicExch, int, __nvvm_atom_xchg_gen_i, int)
__RGDEV_ATOMIC2(atomicExch, unsigned int, __nvvm_atom_xchg_gen_i, int)
__RGDEV_ATOMIC2(atomicExch, unsigned long long, __nvvm_atom_xchg_gen_ll, long long)
__RGDEV_ATOMIC2(atomicMin, int, __nvvm_atom_min_gen_i, int)
__RGDEV_ATOMIC2(atomicMin, unsigned int, __nvvm_atom_min_gen_ui, unsigned int)
__RGDEV_ATOMIC2(atomicMin, long long, __nvvm_atom_min_gen_ll, long long)
__RGDEV_ATOMIC2(atomicMin, unsigned long long, __nvvm_atom_min_gen_ull, unsigned long long)
__RGDEV_ATOMIC2(atomicMax, int, __nvvm_atom_max_gen_i, int)
__RGDEV_ATOMIC2(atomicMax, unsigned int, __nvvm_atom_max_gen_ui, unsigned int)
__RGDEV_ATOMIC2(atomicMax, long long, __nvvm_atom_max_gen_ll, long long)
__RGDEV_ATOMIC2(atomicMax, unsigned long long, __nvvm_atom_max_gen_ull, unsigned long long)
__RGDEV_ATOMIC2(atomicAnd, int, __nvvm_atom_and_gen_i, int)
__RGDEV_ATOMIC2(atomicAnd, unsigned int, __nvvm_atom_and_gen_i, int)
__RGDEV_ATOMIC2(atomicAnd, unsigned long long, __nvvm_atom_and_gen_ll, long long)
__RGDEV_ATOMIC2(atomicOr, int, __nvvm_atom_or_gen_i, int)
__RGDEV_ATOMIC2(atomicOr, unsigned int, __nvvm_atom_or_gen_i, int)
__RGDEV_ATOMIC2(atomicOr, unsigned long long, __nvvm_atom_or_gen_ll, long long)
__RGDEV_ATOMIC2(atomicXor, int, __nvvm_atom_xor_gen_i, int)
__RGDEV_ATOMIC2(atomicXor, unsigned int, __nvvm_atom_xor_gen_i, int)
__RGDEV_ATOMIC2(atomicXor, unsigned long long, __nvvm_atom_xor_gen_ll, long long)
__RGDEV_ATOMIC2(atomicInc, unsigned int, __nvvm_atom_inc_gen_ui, unsigned int)
__RGDEV_ATOMIC2(atomicDec, unsigned int, __nvvm_atom_dec_gen_ui, unsigned int)
#undef __RGDEV_ATOMIC2
__RGDEV_DEV__ int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__RGDEV_DEV__ unsigned int atomicSub(unsigned int *p, unsigned int v) {
    return (unsigned int)__nvvm_atom_add_gen_i((int *)p, -(int)v);
}
__RGDEV_DEV__ float atomicExch(float *p, float v) {
    return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)p, __builtin_bit_cast(int, v)));
}
__RGDEV_DEV__ int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
__RGDEV_DEV__ unsigned int atomicCAS(unsigned int *p, unsigned int cmp, unsigned int v) {
    return (unsigned int)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
__RGDEV_DEV__ unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) {
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v);
}
__RGDEV_DEV__ unsigned short atomicCAS(unsigned short *p, unsigned short cmp, unsigned short v) {
    /* A 16-bit CAS inside the aligned word that holds it. */
    unsigned int *w = (unsigned int *)((unsigned long long)p & ~3ull);
    unsigned int shift = ((unsigned long long)p & 2) * 8;
    unsigned int old = *w, assumed;
    do {
        assumed = old;
        if (((assumed >> shift) & 0xffffu) != cmp) break;
        unsigned int next = (assumed & ~(0xffffu << shift)) | ((unsigned int)v << shift);
        old = atomicCAS(w, assumed, next);
    } while (old != assumed);
    return (unsigned short)((old >> shift) & 0xffffu);
}


/* The _block and _system scoped forms: the model's atomics are performed at the L2 (or
 * over the link, for a peer's memory), so every scope gets the device-scope operation,
 * which orders at least as strongly. */
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor

/* Warp shuffles: c packs the segment mask ((32 - width) << 8) and the clamp. */
#define __RGDEV_SHFL(T, sfx, CT)                                                                       \
    __RGDEV_DEV__ T __shfl_sync(unsigned m, T v, int lane, int w = 32) {                              \
        return __builtin_bit_cast(T, __nvvm_shfl_sync_idx_##sfx(m, __builtin_bit_cast(CT, v), lane,  \
                                                               ((32 - w) << 8) | 0x1f));              \
    }                                                                                                  \
    __RGDEV_DEV__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {                         \
        return __builtin_bit_cast(T, __nvvm_shfl_sync_up_##sfx(m, __builtin_bit_cast(CT, v), d,      \
                                                              (32 - w) << 8));                        \
    }                                                                                                  \
    __RGDEV_DEV__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {                       \
        return __builtin_bit_cast(T, __nvvm_shfl_sync_down_##sfx(m, __builtin_bit_cast(CT, v), d,    \
                                                                ((32 - w) << 8) | 0x1f));             \
    }                                                                                                  \
    __RGDEV_DEV__ T __shfl_xor_sync(unsigned m, T v, int mask, int w = 32) {                          \
        return __builtin_bit_cast(T, __nvvm_shfl_sync_bfly_##sfx(m, __builtin_bit_cast(CT, v), mask, \
                                                                ((32 - w) << 8) | 0x1f));             \
    }
__RGDEV_SHFL(int, i32, int)
__RGDEV_SHFL(unsigned int, i32, int)
__RGDEV_SHFL(float, f32, float)
#undef __RGDEV_SHFL
/* 64-bit values shuffle as two halves. */
#define __RGDEV_SHFL64(T)                                                                              \
    __RGDEV_DEV__ T __shfl_sync(unsigned m, T v, int lane, int w = 32) {                              \
        int2 h = __builtin_bit_cast(int2, v);                                                          \
        h.x = __shfl_sync(m, h.x, lane, w);                                                            \
        h.y = __shfl_sync(m, h.y, lane, w);                                                            \
        return __builtin_bit_cast(T, h);                                                               \
    }                                                                                                  \
    __RGDEV_DEV__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {                         \
        int2 h = __builtin_bit_cast(int2, v);                                                          \
        h.x = __shfl_up_sync(m, h.x, d, w);                                                            \
        h.y = __shfl_up_sync(m, h.y, d, w);                                                            \
        return __builtin_bit_cast(T, h);                                                               \
    }                                                                                                  \
    __RGDEV_DEV__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {                       \
        int2 h = __builtin_bit_cast(int2, v);                                                          \
        h.x = __shfl_down_sync(m, h.x, d, w);                                                          \
        h.y = __shfl_down_sync(m, h.y, d, w);                                                          \
        return __builtin_bit_cast(T, h);                                                               \
    }                                                                                                  \
    __RGDEV_DEV__ T __shfl_xor_sync(unsigned m, T v, int mask, int w = 32) {                          \
        int2 h = __builtin_bit_cast(int2, v);                                                          \
        h.x = __shfl_xor_sync(m, h.x, mask, w);                                                        \
        h.y = __shfl_xor_sync(m, h.y, mask, w);                                                        \
        return __builtin_bit_cast(T, h);                                                               \
    }
__RGDEV_SHFL64(long long)
__RGDEV_SHFL64(unsigned long long)
__RGDEV_SHFL64(double)
#undef __RGDEV_SHFL64

/* Warp votes. */
__RGDEV_DEV__ int __all_sync(unsigned m, int p) { return __nvvm_vote_all_sync(m, p); }
__RGDEV_DEV__ int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
__RGDEV_DEV__ int __uni_sync(unsigned m, int p) { return __nvvm_vote_uni_sync(m, p); }
__RGDEV_DEV__ unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
__RGDEV_DEV__ unsigned __activemask(void) { return __nvvm_vote_ballot_sync(0xffffffffu, 1); }

/* Read-only data cache loads (ld.global.nc). */
#define __RGDEV_LDG(T, sfx)                                                                            \
    __RGDEV_DEV__ T __ldg(const T *p) { return __nvvm_ldg_##sfx(p); }
__RGDEV_LDG(char, c)
__RGDEV_LDG(short, s)
__RGDEV_LDG(int, i)
__RGDEV_LDG(long, l)
__RGDEV_LDG(long long, ll)
__RGDEV_LDG(unsigned char, uc)
__RGDEV_LDG(unsigned short, us)
__RGDEV_LDG(unsigned int, ui)
__RGDEV_LDG(unsigned long, ul)
__RGDEV_LDG(unsigned long long, ull)
__RGDEV_LDG(float, f)
__RGDEV_LDG(double, d)
#undef __RGDEV_LDG
__RGDEV_DEV__ signed char __ldg(const signed char *p) { return (signed char)__nvvm_ldg_c((const char *)p); }
__RGDEV_DEV__ float2 __ldg(const float2 *p) {
    typedef float __v __attribute__((ext_vector_type(2)));
    __v v = __nvvm_ldg_f2((const __v *)p);
    return make_float2(v[0], v[1]);
}
__RGDEV_DEV__ float4 __ldg(const float4 *p) {
    typedef float __v __attribute__((ext_vector_type(4)));
    __v v = __nvvm_ldg_f4((const __v *)p);
    return make_float4(v[0], v[1], v[2], v[3]);
}
__RGDEV_DEV__ int2 __ldg(const int2 *p) {
    typedef int __v __attribute__((ext_vector_type(2)));
    __v v = __nvvm_ldg_i2((const __v *)p);
    return make_int2(v[0], v[1]);
}
__RGDEV_DEV__ int4 __ldg(const int4 *p) {
    typedef int __v __attribute__((ext_vector_type(4)));
    __v v = __nvvm_ldg_i4((const __v *)p);
    return make_int4(v[0], v[1], v[2], v[3]);
}

/* Loads and stores with a cache operator (PTX ld.global.{ca,cg,cs,lu,cv}, st.global.{wb,cg,cs,wt}):
 * __ldca caches in L1 and L2, __ldcg in L2 only, __ldcs streams (evict first), __ldlu is a
 * last use, __ldcv is volatile (fetched again); __stwb writes back, __stcg caches in L2,
 * __stcs streams, __stwt writes through. Vector types go component by component. */
#define __RGDEV_LD(op, T, ptx, c, W)                                                                   \
    __RGDEV_DEV__ T __ld##op(const T *p) {                                                             \
        W r;                                                                                           \
        __asm__ __volatile__("ld.global." #op "." ptx " %0, [%1];" : "=" c(r) : "l"(p) : "memory");    \
        return (T)r;                                                                                   \
    }
#define __RGDEV_ST(op, T, ptx, c, W)                                                                   \
    __RGDEV_DEV__ void __st##op(T *p, T v) {                                                           \
        __asm__ __volatile__("st.global." #op "." ptx " [%0], %1;" ::"l"(p), c((W)v) : "memory");       \
    }
#define __RGDEV_LDV(op, V, T)                                                                          \
    __RGDEV_DEV__ V __ld##op(const V *p) {                                                             \
        V r;                                                                                           \
        for (unsigned k = 0; k < sizeof(V) / sizeof(T); k++) ((T *)&r)[k] = __ld##op((const T *)p + k); \
        return r;                                                                                      \
    }
#define __RGDEV_STV(op, V, T)                                                                          \
    __RGDEV_DEV__ void __st##op(V *p, V v) {                                                           \
        for (unsigned k = 0; k < sizeof(V) / sizeof(T); k++) __st##op((T *)p + k, ((T *)&v)[k]);       \
    }
#define __RGDEV_EACH_OP(LD, ST, ...)                                                                   \
    LD(ca, __VA_ARGS__) LD(cg, __VA_ARGS__) LD(cs, __VA_ARGS__) LD(lu, __VA_ARGS__) LD(cv, __VA_ARGS__) \
    ST(wb, __VA_ARGS__) ST(cg, __VA_ARGS__) ST(cs, __VA_ARGS__) ST(wt, __VA_ARGS__)
#define __RGDEV_LDST(T, ptx, c, W) __RGDEV_EACH_OP(__RGDEV_LD, __RGDEV_ST, T, ptx, c, W)
#define __RGDEV_LDST_V(V, T) __RGDEV_EACH_OP(__RGDEV_LDV, __RGDEV_STV, V, T)
__RGDEV_LDST(char, "s8", "r", int)
__RGDEV_LDST(signed char, "s8", "r", int)
__RGDEV_LDST(unsigned char, "u8", "r", unsigned int)
__RGDEV_LDST(short, "s16", "h", short)
__RGDEV_LDST(unsigned short, "u16", "h", unsigned short)
__RGDEV_LDST(int, "s32", "r", int)
__RGDEV_LDST(unsigned int, "u32", "r", unsigned int)
__RGDEV_LDST(long, "s64", "l", long)
__RGDEV_LDST(unsigned long, "u64", "l", unsigned long)
__RGDEV_LDST(long long, "s64", "l", long long)
__RGDEV_LDST(unsigned long long, "u64", "l", unsigned long long)
__RGDEV_LDST(float, "f32", "f", float)
__RGDEV_LDST(double, "f64", "d", double)
__RGDEV_LDST_V(char2, char)
__RGDEV_LDST_V(char4, char)
__RGDEV_LDST_V(uchar2, unsigned char)
__RGDEV_LDST_V(uchar4, unsigned char)
__RGDEV_LDST_V(short2, short)
__RGDEV_LDST_V(short4, short)
__RGDEV_LDST_V(ushort2, unsigned short)
__RGDEV_LDST_V(ushort4, unsigned short)
__RGDEV_LDST_V(int2, int)
__RGDEV_LDST_V(int4, int)
__RGDEV_LDST_V(uint2, unsigned int)
__RGDEV_LDST_V(uint4, unsigned int)
__RGDEV_LDST_V(longlong2, long long)
__RGDEV_LDST_V(ulonglong2, unsigned long long)
__RGDEV_LDST_V(float2, float)
__RGDEV_LDST_V(float4, float)
__RGDEV_LDST_V(double2, double)
#undef __RGDEV_LDST
#undef __RGDEV_LDST_V
#undef __RGDEV_EACH_OP
#undef __RGDEV_LD
#undef __RGDEV_ST
#undef __RGDEV_LDV
#undef __RGDEV_STV

/* Integer intrinsics. */
__RGDEV_DEV__ int __popc(unsigned int x) { return __builtin_popcount(x); }
__RGDEV_DEV__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__RGDEV_DEV__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
__RGDEV_DEV__ int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__RGDEV_DEV__ int __ffs(int x) { return __builtin_ffs(x); }
__RGDEV_DEV__ int __ffsll(long long x) { return __builtin_ffsll(x); }
__RGDEV_DEV__ unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__RGDEV_DEV__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__RGDEV_DEV__ int __mul24(int a, int b) { return __nvvm_mul24_i(a, b); }
__RGDEV_DEV__ unsigned int __umul24(unsigned int a, unsigned int b) { return __nvvm_mul24_ui(a, b); }
__RGDEV_DEV__ int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
__RGDEV_DEV__ unsigned int __umulhi(unsigned int a, unsigned int b) { return __nvvm_mulhi_ui(a, b); }
__RGDEV_DEV__ long long __mul64hi(long long a, long long b) { return __nvvm_mulhi_ll(a, b); }
__RGDEV_DEV__ unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return __nvvm_mulhi_ull(a, b);
}
__RGDEV_DEV__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    return (unsigned int)__nvvm_prmt((int)x, (int)y, (int)s);
}
__RGDEV_DEV__ unsigned int __sad(int x, int y, unsigned int z) { return z + (unsigned int)(x > y ? x - y : y - x); }
__RGDEV_DEV__ unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
    return z + (x > y ? x - y : y - x);
}
__RGDEV_DEV__ int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
__RGDEV_DEV__ int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
__RGDEV_DEV__ unsigned int __uhadd(unsigned int a, unsigned int b) {
    return (unsigned int)(((unsigned long long)a + b) >> 1);
}
__RGDEV_DEV__ unsigned int __urhadd(unsigned int a, unsigned int b) {
    return (unsigned int)(((unsigned long long)a + b + 1) >> 1);
}
__RGDEV_DEV__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (s & 31)) >> 32);
}
__RGDEV_DEV__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (s & 31));
}

/* sm_70/sm_80 warp and integer intrinsics: PTX match.sync, redux.sync, dp4a/dp2a,
   nanosleep. */
#define __RGDEV_MATCH(T, W, c, ptx)                                                                    \
    __RGDEV_DEV__ unsigned int __match_any_sync(unsigned int mask, T value) {                          \
        unsigned int r;                                                                                \
        __asm__ __volatile__("match.any.sync." ptx " %0, %1, %2;" : "=r"(r) : c(__builtin_bit_cast(W, value)), "r"(mask)); \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_DEV__ unsigned int __match_all_sync(unsigned int mask, T value, int *pred) {               \
        unsigned int r;                                                                                \
        int p;                                                                                         \
        __asm__ __volatile__("{ .reg .pred %%rgdev_p; match.all.sync." ptx " %0|%%rgdev_p, %2, %3; selp.s32 %1, 1, 0, %%rgdev_p; }" \
                             : "=r"(r), "=r"(p)                                                        \
                             : c(__builtin_bit_cast(W, value)), "r"(mask));                            \
        *pred = p;                                                                                     \
        return r;                                                                                      \
    }
__RGDEV_MATCH(unsigned int, unsigned int, "r", "b32")
__RGDEV_MATCH(int, unsigned int, "r", "b32")
__RGDEV_MATCH(float, unsigned int, "r", "b32")
__RGDEV_MATCH(unsigned long, unsigned long, "l", "b64")
__RGDEV_MATCH(long, unsigned long, "l", "b64")
__RGDEV_MATCH(unsigned long long, unsigned long long, "l", "b64")
__RGDEV_MATCH(long long, unsigned long long, "l", "b64")
__RGDEV_MATCH(double, unsigned long long, "l", "b64")
#undef __RGDEV_MATCH
#define __RGDEV_REDUX(name, T, op)                                                                     \
    __RGDEV_DEV__ T name(unsigned int mask, T value) {                                                 \
        T r;                                                                                           \
        __asm__ __volatile__("redux.sync." op " %0, %1, %2;" : "=r"(r) : "r"(value), "r"(mask));       \
        return r;                                                                                      \
    }
__RGDEV_REDUX(__reduce_add_sync, unsigned int, "add.u32")
__RGDEV_REDUX(__reduce_add_sync, int, "add.s32")
__RGDEV_REDUX(__reduce_min_sync, unsigned int, "min.u32")
__RGDEV_REDUX(__reduce_min_sync, int, "min.s32")
__RGDEV_REDUX(__reduce_max_sync, unsigned int, "max.u32")
__RGDEV_REDUX(__reduce_max_sync, int, "max.s32")
__RGDEV_REDUX(__reduce_and_sync, unsigned int, "and.b32")
__RGDEV_REDUX(__reduce_or_sync, unsigned int, "or.b32")
__RGDEV_REDUX(__reduce_xor_sync, unsigned int, "xor.b32")
#undef __RGDEV_REDUX
__RGDEV_DEV__ void __nanosleep(unsigned int ns) { __asm__ __volatile__("nanosleep.u32 %0;" ::"r"(ns)); }
#define __RGDEV_DOT(name, T, I, ins)                                                                   \
    __RGDEV_DEV__ T name(I a, I b, T c) {                                                              \
        T r;                                                                                           \
        __asm__(ins " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                            \
        return r;                                                                                      \
    }
__RGDEV_DOT(__dp4a, int, int, "dp4a.s32.s32")
__RGDEV_DOT(__dp4a, unsigned int, unsigned int, "dp4a.u32.u32")
__RGDEV_DOT(__dp2a_lo, int, int, "dp2a.lo.s32.s32")
__RGDEV_DOT(__dp2a_lo, unsigned int, unsigned int, "dp2a.lo.u32.u32")
__RGDEV_DOT(__dp2a_hi, int, int, "dp2a.hi.s32.s32")
__RGDEV_DOT(__dp2a_hi, unsigned int, unsigned int, "dp2a.hi.u32.u32")
#undef __RGDEV_DOT
__RGDEV_DEV__ int __dp4a(char4 a, char4 b, int c) {
    return __dp4a(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__RGDEV_DEV__ unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
    return __dp4a(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}
__RGDEV_DEV__ int __dp2a_lo(short2 a, char4 b, int c) {
    return __dp2a_lo(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__RGDEV_DEV__ unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) {
    return __dp2a_lo(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}
__RGDEV_DEV__ int __dp2a_hi(short2 a, char4 b, int c) {
    return __dp2a_hi(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__RGDEV_DEV__ unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) {
    return __dp2a_hi(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}

/* Reinterpretation and conversions. */
__RGDEV_DEV__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__RGDEV_DEV__ unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__RGDEV_DEV__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__RGDEV_DEV__ float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__RGDEV_DEV__ long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__RGDEV_DEV__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__RGDEV_DEV__ int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__RGDEV_DEV__ int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__RGDEV_DEV__ double __hiloint2double(int hi, int lo) {
    return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);
}

/* Single-precision intrinsics: IEEE-rounded operations and CUDA's fast approximations. */
__RGDEV_DEV__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
__RGDEV_DEV__ float __frsqrt_rn(float x) { return __nvvm_rcp_rn_f(__nvvm_sqrt_rn_f(x)); }
__RGDEV_DEV__ float __saturatef(float x) { return __nvvm_saturate_f(x); }
__RGDEV_DEV__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
__RGDEV_DEV__ float __exp10f(float x) { return __nvvm_ex2_approx_f(x * 3.3219280948873622f); }
__RGDEV_DEV__ float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
__RGDEV_DEV__ float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
__RGDEV_DEV__ float __log10f(float x) { return __nvvm_lg2_approx_f(x) * 0.3010299956639812f; }
__RGDEV_DEV__ float __powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
__RGDEV_DEV__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__RGDEV_DEV__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__RGDEV_DEV__ float __tanf(float x) { return __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)); }
__RGDEV_DEV__ void __sincosf(float x, float *s, float *c) {
    *s = __nvvm_sin_approx_f(x);
    *c = __nvvm_cos_approx_f(x);
}


/* The IEEE operations and conversions in every rounding mode, as CUDA names them (_rn
 * nearest even, _rz toward zero, _rd down, _ru up; PTX .rn/.rz/.rm/.rp). Conversions are
 * PTX cvt in inline assembly: LLVM folds its NVVM conversion intrinsics of any mode into
 * plain (nearest or truncating) conversions. */
#define __RGDEV_CVT(name, m, p, R, A, dst, src, cr, ca)                                                \
    __RGDEV_DEV__ R __##name##_##m(A x) {                                                              \
        R r;                                                                                           \
        __asm__("cvt." #p "." dst "." src " %0, %1;" : "=" cr(r) : ca(x));                             \
        return r;                                                                                      \
    }
#define __RGDEV_CVTI(name, m, p, R, A, dst, src, cr, ca)                                               \
    __RGDEV_DEV__ R __##name##_##m(A x) {                                                              \
        R r;                                                                                           \
        __asm__("cvt." #p "i." dst "." src " %0, %1;" : "=" cr(r) : ca(x));                            \
        return r;                                                                                      \
    }
#define __RGDEV_ROUNDED(m, p)                                                                          \
    __RGDEV_DEV__ float __fadd_##m(float a, float b) { return __nvvm_add_##p##_f(a, b); }             \
    __RGDEV_DEV__ float __fsub_##m(float a, float b) { return __nvvm_add_##p##_f(a, -b); }            \
    __RGDEV_DEV__ float __fmul_##m(float a, float b) { return __nvvm_mul_##p##_f(a, b); }             \
    __RGDEV_DEV__ float __fmaf_##m(float a, float b, float c) { return __nvvm_fma_##p##_f(a, b, c); } \
    __RGDEV_DEV__ float __fdiv_##m(float a, float b) { return __nvvm_div_##p##_f(a, b); }             \
    __RGDEV_DEV__ float __frcp_##m(float x) { return __nvvm_rcp_##p##_f(x); }                         \
    __RGDEV_DEV__ float __fsqrt_##m(float x) { return __nvvm_sqrt_##p##_f(x); }                       \
    __RGDEV_DEV__ double __dadd_##m(double a, double b) { return __nvvm_add_##p##_d(a, b); }          \
    __RGDEV_DEV__ double __dsub_##m(double a, double b) { return __nvvm_add_##p##_d(a, -b); }         \
    __RGDEV_DEV__ double __dmul_##m(double a, double b) { return __nvvm_mul_##p##_d(a, b); }          \
    __RGDEV_DEV__ double __fma_##m(double a, double b, double c) { return __nvvm_fma_##p##_d(a, b, c); } \
    __RGDEV_DEV__ double __ddiv_##m(double a, double b) { return __nvvm_div_##p##_d(a, b); }          \
    __RGDEV_DEV__ double __drcp_##m(double x) { return __nvvm_rcp_##p##_d(x); }                       \
    __RGDEV_DEV__ double __dsqrt_##m(double x) { return __nvvm_sqrt_##p##_d(x); }                     \
    __RGDEV_CVTI(float2int, m, p, int, float, "s32", "f32", "r", "f")                                 \
    __RGDEV_CVTI(float2uint, m, p, unsigned int, float, "u32", "f32", "r", "f")                       \
    __RGDEV_CVTI(double2int, m, p, int, double, "s32", "f64", "r", "d")                               \
    __RGDEV_CVTI(double2uint, m, p, unsigned int, double, "u32", "f64", "r", "d")                     \
    __RGDEV_CVTI(double2ll, m, p, long long, double, "s64", "f64", "l", "d")                          \
    __RGDEV_CVTI(double2ull, m, p, unsigned long long, double, "u64", "f64", "l", "d")                \
    __RGDEV_CVTI(float2ll, m, p, long long, float, "s64", "f32", "l", "f")                            \
    __RGDEV_CVTI(float2ull, m, p, unsigned long long, float, "u64", "f32", "l", "f")                  \
    __RGDEV_CVT(int2float, m, p, float, int, "f32", "s32", "f", "r")                                     \
    __RGDEV_CVT(uint2float, m, p, float, unsigned int, "f32", "u32", "f", "r")                           \
    __RGDEV_CVT(double2float, m, p, float, double, "f32", "f64", "f", "d")                               \
    __RGDEV_CVT(ll2float, m, p, float, long long, "f32", "s64", "f", "l")                                \
    __RGDEV_CVT(ull2float, m, p, float, unsigned long long, "f32", "u64", "f", "l")                      \
    __RGDEV_CVT(ll2double, m, p, double, long long, "f64", "s64", "d", "l")                              \
    __RGDEV_CVT(ull2double, m, p, double, unsigned long long, "f64", "u64", "d", "l")
__RGDEV_ROUNDED(rn, rn)
__RGDEV_ROUNDED(rz, rz)
__RGDEV_ROUNDED(rd, rm)
__RGDEV_ROUNDED(ru, rp)
#undef __RGDEV_ROUNDED
#undef __RGDEV_CVT
#undef __RGDEV_CVTI
__RGDEV_DEV__ double __int2double_rn(int x) { return (double)x; }
__RGDEV_DEV__ double __uint2double_rn(unsigned int x) { return (double)x; }

/* min and max of every integer and floating type are in math_functions.h. */
__RGDEV_DEV__ unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__RGDEV_DEV__ unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__RGDEV_DEV__ long long llmin(long long a, long long b) { return a < b ? a : b; }
__RGDEV_DEV__ long long llmax(long long a, long long b) { return a > b ? a : b; }
__RGDEV_DEV__ unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__RGDEV_DEV__ unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* Address spaces of generic pointers (PTX isspacep, cvta). rgdev's constant segment is
 * global memory, so __isConstant is 0 and __cvta_generic_to_constant is the identity. */
#define __RGDEV_SPACE(Name, name, space)                                                               \
    __RGDEV_DEV__ unsigned int __is##Name(const void *p) {                                            \
        unsigned int r;                                                                                \
        __asm__("{\n .reg .pred q;\n isspacep." space " q, %1;\n selp.u32 %0, 1, 0, q;\n}"           \
                : "=r"(r)                                                                              \
                : "l"(p));                                                                             \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_DEV__ size_t __cvta_generic_to_##name(const void *p) {                                    \
        size_t r;                                                                                      \
        __asm__("cvta.to." space ".u64 %0, %1;" : "=l"(r) : "l"(p));                                   \
        return r;                                                                                      \
    }                                                                                                  \
    __RGDEV_DEV__ void *__cvta_##name##_to_generic(size_t a) {                                        \
        void *r;                                                                                       \
        __asm__("cvta." space ".u64 %0, %1;" : "=l"(r) : "l"(a));                                      \
        return r;                                                                                      \
    }
__RGDEV_SPACE(Global, global, "global")
__RGDEV_SPACE(Shared, shared, "shared")
__RGDEV_SPACE(Local, local, "local")
__RGDEV_SPACE(Constant, constant, "const")
#undef __RGDEV_SPACE
__RGDEV_DEV__ unsigned int __isGridConstant(const void *p) { return 0; }

/* memcpy and memset in device code, as CUDA has them: the device overloads of the C
 * library's, which clang expands inline. */
extern "C" {
__device__ inline void *memcpy(void *__restrict__ d, const void *__restrict__ s, size_t n) noexcept {
    return __builtin_memcpy(d, s, n);
}
__device__ inline void *memset(void *d, int c, size_t n) noexcept { return __builtin_memset(d, c, n); }
}

#undef __RGDEV_DEV__

#endif /* __CUDA__ */

#endif /* __DEVICE_FUNCTIONS_H__ */
