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
 * __stcs streams, __stwt writes through. */
#define __RGDEV_LDST(T, ptx, c, W)                                                                     \
    __RGDEV_DEV__ T __ldca(const T *p) {                                                           \
        W r;                                                                                           \
        __asm__ __volatile__("ld.global.ca." ptx " %0, [%1];" : "=" c(r) : "l"(p) : "memory");         \
        return (T)r;                                                                                   \
    } \
    __RGDEV_DEV__ T __ldcg(const T *p) {                                                           \
        W r;                                                                                           \
        __asm__ __volatile__("ld.global.cg." ptx " %0, [%1];" : "=" c(r) : "l"(p) : "memory");         \
        return (T)r;                                                                                   \
    } \
    __RGDEV_DEV__ T __ldcs(const T *p) {                                                           \
        W r;                                                                                           \
        __asm__ __volatile__("ld.global.cs." ptx " %0, [%1];" : "=" c(r) : "l"(p) : "memory");         \
        return (T)r;                                                                                   \
    } \
    __RGDEV_DEV__ T __ldlu(const T *p) {                                                           \
        W r;                                                                                           \
        __asm__ __volatile__("ld.global.lu." ptx " %0, [%1];" : "=" c(r) : "l"(p) : "memory");         \
        return (T)r;                                                                                   \
    } \
    __RGDEV_DEV__ T __ldcv(const T *p) {                                                           \
        W r;                                                                                           \
        __asm__ __volatile__("ld.global.cv." ptx " %0, [%1];" : "=" c(r) : "l"(p) : "memory");         \
        return (T)r;                                                                                   \
    } \
    __RGDEV_DEV__ void __stwb(T *p, T v) {                                                         \
        __asm__ __volatile__("st.global.wb." ptx " [%0], %1;" ::"l"(p), c((W)v) : "memory");            \
    } \
    __RGDEV_DEV__ void __stcg(T *p, T v) {                                                         \
        __asm__ __volatile__("st.global.cg." ptx " [%0], %1;" ::"l"(p), c((W)v) : "memory");            \
    } \
    __RGDEV_DEV__ void __stcs(T *p, T v) {                                                         \
        __asm__ __volatile__("st.global.cs." ptx " [%0], %1;" ::"l"(p), c((W)v) : "memory");            \
    } \
    __RGDEV_DEV__ void __stwt(T *p, T v) {                                                         \
        __asm__ __volatile__("st.global.wt." ptx " [%0], %1;" ::"l"(p), c((W)v) : "memory");            \
    }
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
#undef __RGDEV_LDST
/* Vector types: component by component. */
#define __RGDEV_LDST_V2(V, T)                                                                          \
    __RGDEV_DEV__ V __ldca(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldca((const T *)p);                                                                 \
        r.y = __ldca((const T *)p + 1);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldcg(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldcg((const T *)p);                                                                 \
        r.y = __ldcg((const T *)p + 1);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldcs(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldcs((const T *)p);                                                                 \
        r.y = __ldcs((const T *)p + 1);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldlu(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldlu((const T *)p);                                                                 \
        r.y = __ldlu((const T *)p + 1);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldcv(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldcv((const T *)p);                                                                 \
        r.y = __ldcv((const T *)p + 1);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ void __stwb(V *p, V v) {                                                         \
        __stwb((T *)p, v.x);                                                                        \
        __stwb((T *)p + 1, v.y);                                                                    \
    } \
    __RGDEV_DEV__ void __stcg(V *p, V v) {                                                         \
        __stcg((T *)p, v.x);                                                                        \
        __stcg((T *)p + 1, v.y);                                                                    \
    } \
    __RGDEV_DEV__ void __stcs(V *p, V v) {                                                         \
        __stcs((T *)p, v.x);                                                                        \
        __stcs((T *)p + 1, v.y);                                                                    \
    } \
    __RGDEV_DEV__ void __stwt(V *p, V v) {                                                         \
        __stwt((T *)p, v.x);                                                                        \
        __stwt((T *)p + 1, v.y);                                                                    \
    }
#define __RGDEV_LDST_V4(V, T)                                                                          \
    __RGDEV_DEV__ V __ldca(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldca((const T *)p);                                                                 \
        r.y = __ldca((const T *)p + 1);                                                             \
        r.z = __ldca((const T *)p + 2);                                                             \
        r.w = __ldca((const T *)p + 3);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldcg(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldcg((const T *)p);                                                                 \
        r.y = __ldcg((const T *)p + 1);                                                             \
        r.z = __ldcg((const T *)p + 2);                                                             \
        r.w = __ldcg((const T *)p + 3);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldcs(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldcs((const T *)p);                                                                 \
        r.y = __ldcs((const T *)p + 1);                                                             \
        r.z = __ldcs((const T *)p + 2);                                                             \
        r.w = __ldcs((const T *)p + 3);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldlu(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldlu((const T *)p);                                                                 \
        r.y = __ldlu((const T *)p + 1);                                                             \
        r.z = __ldlu((const T *)p + 2);                                                             \
        r.w = __ldlu((const T *)p + 3);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ V __ldcv(const V *p) {                                                           \
        V r;                                                                                           \
        r.x = __ldcv((const T *)p);                                                                 \
        r.y = __ldcv((const T *)p + 1);                                                             \
        r.z = __ldcv((const T *)p + 2);                                                             \
        r.w = __ldcv((const T *)p + 3);                                                             \
        return r;                                                                                      \
    } \
    __RGDEV_DEV__ void __stwb(V *p, V v) {                                                         \
        __stwb((T *)p, v.x);                                                                        \
        __stwb((T *)p + 1, v.y);                                                                    \
        __stwb((T *)p + 2, v.z);                                                                    \
        __stwb((T *)p + 3, v.w);                                                                    \
    } \
    __RGDEV_DEV__ void __stcg(V *p, V v) {                                                         \
        __stcg((T *)p, v.x);                                                                        \
        __stcg((T *)p + 1, v.y);                                                                    \
        __stcg((T *)p + 2, v.z);                                                                    \
        __stcg((T *)p + 3, v.w);                                                                    \
    } \
    __RGDEV_DEV__ void __stcs(V *p, V v) {                                                         \
        __stcs((T *)p, v.x);                                                                        \
        __stcs((T *)p + 1, v.y);                                                                    \
        __stcs((T *)p + 2, v.z);                                                                    \
        __stcs((T *)p + 3, v.w);                                                                    \
    } \
    __RGDEV_DEV__ void __stwt(V *p, V v) {                                                         \
        __stwt((T *)p, v.x);                                                                        \
        __stwt((T *)p + 1, v.y);                                                                    \
        __stwt((T *)p + 2, v.z);                                                                    \
        __stwt((T *)p + 3, v.w);                                                                    \
    }
__RGDEV_LDST_V2(char2, char)
__RGDEV_LDST_V4(char4, char)
__RGDEV_LDST_V2(uchar2, unsigned char)
__RGDEV_LDST_V4(uchar4, unsigned char)
__RGDEV_LDST_V2(short2, short)
__RGDEV_LDST_V4(short4, short)
__RGDEV_LDST_V2(ushort2, unsigned short)
__RGDEV_LDST_V4(ushort4, unsigned short)
__RGDEV_LDST_V2(int2, int)
__RGDEV_LDST_V4(int4, int)
__RGDEV_LDST_V2(uint2, unsigned int)
__RGDEV_LDST_V4(uint4, unsigned int)
__RGDEV_LDST_V2(longlong2, long long)
__RGDEV_LDST_V2(ulonglong2, unsigned long long)
__RGDEV_LDST_V2(float2, float)
__RGDEV_LDST_V4(float4, float)
__RGDEV_LDST_V2(double2, double)
#undef __RGDEV_LDST_V2
#undef __RGDEV_LDST_V4

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
__RGDEV_DEV__ int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
__RGDEV_DEV__ int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
__RGDEV_DEV__ int __float2int_rd(float x) { return __nvvm_f2i_rm(x); }
__RGDEV_DEV__ int __float2int_ru(float x) { return __nvvm_f2i_rp(x); }
__RGDEV_DEV__ unsigned int __float2uint_rn(float x) { return __nvvm_f2ui_rn(x); }
__RGDEV_DEV__ unsigned int __float2uint_rz(float x) { return __nvvm_f2ui_rz(x); }
__RGDEV_DEV__ float __int2float_rn(int x) { return __nvvm_i2f_rn(x); }
__RGDEV_DEV__ float __int2float_rz(int x) {
    float r;
    __asm__("cvt.rz.f32.s32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}
__RGDEV_DEV__ float __uint2float_rn(unsigned int x) { return __nvvm_ui2f_rn(x); }
__RGDEV_DEV__ int __double2int_rn(double x) { return __nvvm_d2i_rn(x); }
__RGDEV_DEV__ int __double2int_rz(double x) { return __nvvm_d2i_rz(x); }
__RGDEV_DEV__ float __double2float_rn(double x) { return __nvvm_d2f_rn(x); }
__RGDEV_DEV__ float __double2float_rz(double x) {
    float r;
    __asm__("cvt.rz.f32.f64 %0, %1;" : "=f"(r) : "d"(x));
    return r;
}
__RGDEV_DEV__ double __int2double_rn(int x) { return (double)x; }
__RGDEV_DEV__ long long __float2ll_rn(float x) { return __nvvm_f2ll_rn(x); }
__RGDEV_DEV__ long long __float2ll_rz(float x) { return __nvvm_f2ll_rz(x); }
__RGDEV_DEV__ long long __double2ll_rn(double x) { return __nvvm_d2ll_rn(x); }
__RGDEV_DEV__ long long __double2ll_rz(double x) { return __nvvm_d2ll_rz(x); }
__RGDEV_DEV__ float __ll2float_rn(long long x) { return __nvvm_ll2f_rn(x); }
__RGDEV_DEV__ double __ll2double_rn(long long x) { return __nvvm_ll2d_rn(x); }

/* Single-precision intrinsics: IEEE-rounded operations and CUDA's fast approximations. */
__RGDEV_DEV__ float __fadd_rn(float a, float b) { return __nvvm_add_rn_f(a, b); }
__RGDEV_DEV__ float __fadd_rz(float a, float b) { return __nvvm_add_rz_f(a, b); }
__RGDEV_DEV__ float __fmul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
__RGDEV_DEV__ float __fmul_rz(float a, float b) { return __nvvm_mul_rz_f(a, b); }
__RGDEV_DEV__ float __fsub_rn(float a, float b) { return __nvvm_add_rn_f(a, -b); }
__RGDEV_DEV__ float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__RGDEV_DEV__ float __fmaf_rz(float a, float b, float c) { return __nvvm_fma_rz_f(a, b, c); }
__RGDEV_DEV__ float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
__RGDEV_DEV__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
__RGDEV_DEV__ float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }
__RGDEV_DEV__ float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
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

/* The IEEE operations and conversions in every rounding mode (_rn nearest even, _rz toward
 * zero, _rd down, _ru up), as CUDA names them. Conversions to a float type with a directed
 * mode are PTX cvt in inline assembly: LLVM folds its NVVM conversion intrinsics of any
 * mode into plain (nearest) conversions. */
__RGDEV_DEV__ unsigned int __double2uint_rn(double x) { return __nvvm_d2ui_rn(x); }
__RGDEV_DEV__ unsigned long long __double2ull_rn(double x) { return __nvvm_d2ull_rn(x); }
__RGDEV_DEV__ unsigned long long __float2ull_rn(float x) { return __nvvm_f2ull_rn(x); }
__RGDEV_DEV__ float __ull2float_rn(unsigned long long x) { return __nvvm_ull2f_rn(x); }
__RGDEV_DEV__ double __ull2double_rn(unsigned long long x) { return __nvvm_ull2d_rn(x); }
__RGDEV_DEV__ float __fsub_rz(float a, float b) { return __nvvm_add_rz_f(a, -b); }
__RGDEV_DEV__ float __fdiv_rz(float a, float b) { return __nvvm_div_rz_f(a, b); }
__RGDEV_DEV__ float __frcp_rz(float x) { return __nvvm_rcp_rz_f(x); }
__RGDEV_DEV__ float __fsqrt_rz(float x) { return __nvvm_sqrt_rz_f(x); }
__RGDEV_DEV__ double __dadd_rz(double a, double b) { return __nvvm_add_rz_d(a, b); }
__RGDEV_DEV__ double __dsub_rz(double a, double b) { return __nvvm_add_rz_d(a, -b); }
__RGDEV_DEV__ double __dmul_rz(double a, double b) { return __nvvm_mul_rz_d(a, b); }
__RGDEV_DEV__ double __fma_rz(double a, double b, double c) { return __nvvm_fma_rz_d(a, b, c); }
__RGDEV_DEV__ double __ddiv_rz(double a, double b) { return __nvvm_div_rz_d(a, b); }
__RGDEV_DEV__ double __drcp_rz(double x) { return __nvvm_rcp_rz_d(x); }
__RGDEV_DEV__ double __dsqrt_rz(double x) { return __nvvm_sqrt_rz_d(x); }
__RGDEV_DEV__ float __uint2float_rz(unsigned int x) {
    float r;
    __asm__("cvt.rz.f32.u32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}
__RGDEV_DEV__ unsigned int __double2uint_rz(double x) { return __nvvm_d2ui_rz(x); }
__RGDEV_DEV__ unsigned long long __double2ull_rz(double x) { return __nvvm_d2ull_rz(x); }
__RGDEV_DEV__ unsigned long long __float2ull_rz(float x) { return __nvvm_f2ull_rz(x); }
__RGDEV_DEV__ float __ll2float_rz(long long x) {
    float r;
    __asm__("cvt.rz.f32.s64 %0, %1;" : "=f"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ float __ull2float_rz(unsigned long long x) {
    float r;
    __asm__("cvt.rz.f32.u64 %0, %1;" : "=f"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __ll2double_rz(long long x) {
    double r;
    __asm__("cvt.rz.f64.s64 %0, %1;" : "=d"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __ull2double_rz(unsigned long long x) {
    double r;
    __asm__("cvt.rz.f64.u64 %0, %1;" : "=d"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ float __fadd_rd(float a, float b) { return __nvvm_add_rm_f(a, b); }
__RGDEV_DEV__ float __fsub_rd(float a, float b) { return __nvvm_add_rm_f(a, -b); }
__RGDEV_DEV__ float __fmul_rd(float a, float b) { return __nvvm_mul_rm_f(a, b); }
__RGDEV_DEV__ float __fmaf_rd(float a, float b, float c) { return __nvvm_fma_rm_f(a, b, c); }
__RGDEV_DEV__ float __fdiv_rd(float a, float b) { return __nvvm_div_rm_f(a, b); }
__RGDEV_DEV__ float __frcp_rd(float x) { return __nvvm_rcp_rm_f(x); }
__RGDEV_DEV__ float __fsqrt_rd(float x) { return __nvvm_sqrt_rm_f(x); }
__RGDEV_DEV__ double __dadd_rd(double a, double b) { return __nvvm_add_rm_d(a, b); }
__RGDEV_DEV__ double __dsub_rd(double a, double b) { return __nvvm_add_rm_d(a, -b); }
__RGDEV_DEV__ double __dmul_rd(double a, double b) { return __nvvm_mul_rm_d(a, b); }
__RGDEV_DEV__ double __fma_rd(double a, double b, double c) { return __nvvm_fma_rm_d(a, b, c); }
__RGDEV_DEV__ double __ddiv_rd(double a, double b) { return __nvvm_div_rm_d(a, b); }
__RGDEV_DEV__ double __drcp_rd(double x) { return __nvvm_rcp_rm_d(x); }
__RGDEV_DEV__ double __dsqrt_rd(double x) { return __nvvm_sqrt_rm_d(x); }
__RGDEV_DEV__ unsigned int __float2uint_rd(float x) { return __nvvm_f2ui_rm(x); }
__RGDEV_DEV__ float __int2float_rd(int x) {
    float r;
    __asm__("cvt.rm.f32.s32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}
__RGDEV_DEV__ float __uint2float_rd(unsigned int x) {
    float r;
    __asm__("cvt.rm.f32.u32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}
__RGDEV_DEV__ float __double2float_rd(double x) {
    float r;
    __asm__("cvt.rm.f32.f64 %0, %1;" : "=f"(r) : "d"(x));
    return r;
}
__RGDEV_DEV__ int __double2int_rd(double x) { return __nvvm_d2i_rm(x); }
__RGDEV_DEV__ unsigned int __double2uint_rd(double x) { return __nvvm_d2ui_rm(x); }
__RGDEV_DEV__ long long __double2ll_rd(double x) { return __nvvm_d2ll_rm(x); }
__RGDEV_DEV__ unsigned long long __double2ull_rd(double x) { return __nvvm_d2ull_rm(x); }
__RGDEV_DEV__ long long __float2ll_rd(float x) { return __nvvm_f2ll_rm(x); }
__RGDEV_DEV__ unsigned long long __float2ull_rd(float x) { return __nvvm_f2ull_rm(x); }
__RGDEV_DEV__ float __ll2float_rd(long long x) {
    float r;
    __asm__("cvt.rm.f32.s64 %0, %1;" : "=f"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ float __ull2float_rd(unsigned long long x) {
    float r;
    __asm__("cvt.rm.f32.u64 %0, %1;" : "=f"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __ll2double_rd(long long x) {
    double r;
    __asm__("cvt.rm.f64.s64 %0, %1;" : "=d"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __ull2double_rd(unsigned long long x) {
    double r;
    __asm__("cvt.rm.f64.u64 %0, %1;" : "=d"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ float __fadd_ru(float a, float b) { return __nvvm_add_rp_f(a, b); }
__RGDEV_DEV__ float __fsub_ru(float a, float b) { return __nvvm_add_rp_f(a, -b); }
__RGDEV_DEV__ float __fmul_ru(float a, float b) { return __nvvm_mul_rp_f(a, b); }
__RGDEV_DEV__ float __fmaf_ru(float a, float b, float c) { return __nvvm_fma_rp_f(a, b, c); }
__RGDEV_DEV__ float __fdiv_ru(float a, float b) { return __nvvm_div_rp_f(a, b); }
__RGDEV_DEV__ float __frcp_ru(float x) { return __nvvm_rcp_rp_f(x); }
__RGDEV_DEV__ float __fsqrt_ru(float x) { return __nvvm_sqrt_rp_f(x); }
__RGDEV_DEV__ double __dadd_ru(double a, double b) { return __nvvm_add_rp_d(a, b); }
__RGDEV_DEV__ double __dsub_ru(double a, double b) { return __nvvm_add_rp_d(a, -b); }
__RGDEV_DEV__ double __dmul_ru(double a, double b) { return __nvvm_mul_rp_d(a, b); }
__RGDEV_DEV__ double __fma_ru(double a, double b, double c) { return __nvvm_fma_rp_d(a, b, c); }
__RGDEV_DEV__ double __ddiv_ru(double a, double b) { return __nvvm_div_rp_d(a, b); }
__RGDEV_DEV__ double __drcp_ru(double x) { return __nvvm_rcp_rp_d(x); }
__RGDEV_DEV__ double __dsqrt_ru(double x) { return __nvvm_sqrt_rp_d(x); }
__RGDEV_DEV__ unsigned int __float2uint_ru(float x) { return __nvvm_f2ui_rp(x); }
__RGDEV_DEV__ float __int2float_ru(int x) {
    float r;
    __asm__("cvt.rp.f32.s32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}
__RGDEV_DEV__ float __uint2float_ru(unsigned int x) {
    float r;
    __asm__("cvt.rp.f32.u32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}
__RGDEV_DEV__ float __double2float_ru(double x) {
    float r;
    __asm__("cvt.rp.f32.f64 %0, %1;" : "=f"(r) : "d"(x));
    return r;
}
__RGDEV_DEV__ int __double2int_ru(double x) { return __nvvm_d2i_rp(x); }
__RGDEV_DEV__ unsigned int __double2uint_ru(double x) { return __nvvm_d2ui_rp(x); }
__RGDEV_DEV__ long long __double2ll_ru(double x) { return __nvvm_d2ll_rp(x); }
__RGDEV_DEV__ unsigned long long __double2ull_ru(double x) { return __nvvm_d2ull_rp(x); }
__RGDEV_DEV__ long long __float2ll_ru(float x) { return __nvvm_f2ll_rp(x); }
__RGDEV_DEV__ unsigned long long __float2ull_ru(float x) { return __nvvm_f2ull_rp(x); }
__RGDEV_DEV__ float __ll2float_ru(long long x) {
    float r;
    __asm__("cvt.rp.f32.s64 %0, %1;" : "=f"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ float __ull2float_ru(unsigned long long x) {
    float r;
    __asm__("cvt.rp.f32.u64 %0, %1;" : "=f"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __ll2double_ru(long long x) {
    double r;
    __asm__("cvt.rp.f64.s64 %0, %1;" : "=d"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __ull2double_ru(unsigned long long x) {
    double r;
    __asm__("cvt.rp.f64.u64 %0, %1;" : "=d"(r) : "l"(x));
    return r;
}
__RGDEV_DEV__ double __uint2double_rn(unsigned int x) { return (double)x; }

/* Double-precision IEEE-rounded operations. */
__RGDEV_DEV__ double __dadd_rn(double a, double b) { return __nvvm_add_rn_d(a, b); }
__RGDEV_DEV__ double __dsub_rn(double a, double b) { return __nvvm_add_rn_d(a, -b); }
__RGDEV_DEV__ double __dmul_rn(double a, double b) { return __nvvm_mul_rn_d(a, b); }
__RGDEV_DEV__ double __fma_rn(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
__RGDEV_DEV__ double __ddiv_rn(double a, double b) { return __nvvm_div_rn_d(a, b); }
__RGDEV_DEV__ double __drcp_rn(double x) { return __nvvm_rcp_rn_d(x); }
__RGDEV_DEV__ double __dsqrt_rn(double x) { return __nvvm_sqrt_rn_d(x); }

/* min and max of every integer and floating type are in math_functions.h. */
__RGDEV_DEV__ unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__RGDEV_DEV__ unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__RGDEV_DEV__ long long llmin(long long a, long long b) { return a < b ? a : b; }
__RGDEV_DEV__ long long llmax(long long a, long long b) { return a > b ? a : b; }
__RGDEV_DEV__ unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__RGDEV_DEV__ unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

#undef __RGDEV_DEV__

#endif /* __CUDA__ */

#endif /* __DEVICE_FUNCTIONS_H__ */
