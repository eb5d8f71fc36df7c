/*
 * mma.h for rgdev: CUDA's warp matrix functions (namespace nvcuda::wmma) with CUDA 12.9's
 * declarations, written for rgdev from CUDA's programming guide ("Warp Matrix Functions");
 * not NVIDIA's header. Fragments of the shapes m16n16k16, m32n8k16 and m8n32k16 (__half,
 * __nv_bfloat16 from sm_80, signed and unsigned char from sm_72), m16n16k8
 * (precision::tf32, sm_80) and m8n8k4 (double, sm_80); load_matrix_sync,
 * store_matrix_sync, fill_fragment and mma_sync compile to PTX wmma, which rgdev's tensor
 * core executes (docs/isa.md). The sub-byte types (experimental::precision::u4, s4, b1)
 * and bmma_sync are declared and deleted: rgdev does not execute them.
 */
#ifndef __CUDA_MMA_H__
#define __CUDA_MMA_H__

#if defined(__cplusplus) && defined(__CUDA__)

#include "cuda_fp16.h"
#include "cuda_bf16.h"

/* A function's body in the device pass of its architecture (arch: 700, 720 or 800);
 * deleted below it (a clear compile error where it is used), empty in the host pass. */
#if !defined(__CUDA_ARCH__)
#define __RGDEV_WMMA(arch, body) {}
#else
#define __RGDEV_WMMA(arch, body) __RGDEV_WMMA_X(__RGDEV_WMMA_AT_LEAST_##arch, body)
#define __RGDEV_WMMA_X(ok, body) __RGDEV_WMMA_Y(ok, body)
#define __RGDEV_WMMA_Y(ok, body) __RGDEV_WMMA_PICK_##ok(body)
#define __RGDEV_WMMA_PICK_1(body) { body; }
#define __RGDEV_WMMA_PICK_0(body) = delete;
#define __RGDEV_WMMA_AT_LEAST_700 1
#if __CUDA_ARCH__ >= 720
#define __RGDEV_WMMA_AT_LEAST_720 1
#else
#define __RGDEV_WMMA_AT_LEAST_720 0
#endif
#if __CUDA_ARCH__ >= 800
#define __RGDEV_WMMA_AT_LEAST_800 1
#else
#define __RGDEV_WMMA_AT_LEAST_800 0
#endif
#endif
#define __RGDEV_UNPAREN(...) __VA_ARGS__

namespace nvcuda {
namespace wmma {

/* Layouts and uses. */
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
} // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
} // namespace experimental

enum layout_t { mem_row_major, mem_col_major };

/* An element type, how a fragment stores it and what fill_fragment takes. */
template <typename T> struct helper_traits {
    typedef T element_type;
    typedef T storage_element_type;
    typedef T fill_argument_type;
};
template <> struct helper_traits<precision::tf32> {
    typedef precision::tf32 element_type;
    typedef float storage_element_type;
    typedef float fill_argument_type;
};
template <> struct helper_traits<experimental::precision::u4> {
    typedef experimental::precision::u4 element_type;
    typedef unsigned int storage_element_type;
    typedef unsigned int fill_argument_type;
};
template <> struct helper_traits<experimental::precision::s4> {
    typedef experimental::precision::s4 element_type;
    typedef int storage_element_type;
    typedef int fill_argument_type;
};
template <> struct helper_traits<experimental::precision::b1> {
    typedef experimental::precision::b1 element_type;
    typedef unsigned int storage_element_type;
    typedef unsigned int fill_argument_type;
};

/* A fragment's storage: its elements x[], in an order of rgdev's (docs/isa.md). */
template <typename T, int size, int packed_size = size> struct __align__(8) __frag_base {
    enum { num_elements = size };
    enum { num_storage_elements = packed_size };
    typedef T element_type;
    typedef typename helper_traits<T>::storage_element_type storage_element_type;
    storage_element_type x[num_storage_elements];
};

/* Elements per lane: an A (m x k), B (k x n) or accumulator (m x n) over 32 lanes; PTX gives
 * a __half A or B fragment 8 registers (16 elements), repeating what a lane holds. */
template <typename Use> struct __rgdev_use;
template <> struct __rgdev_use<matrix_a> { static constexpr int which = 0; };
template <> struct __rgdev_use<matrix_b> { static constexpr int which = 1; };
template <> struct __rgdev_use<accumulator> { static constexpr int which = 2; };
template <typename Use, int m, int n, int k, typename T> struct __rgdev_frag_size {
    static constexpr int w = __rgdev_use<Use>::which;
    static constexpr int cells = w == 0 ? m * k : w == 1 ? k * n : m * n;
    static constexpr bool halves = sizeof(T) == 2 && w != 2 && !__is_same(T, __nv_bfloat16);
    static constexpr int value = halves ? 16 : cells / 32;
};

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment : public __frag_base<T, __rgdev_frag_size<Use, m, n, k, typename helper_traits<T>::storage_element_type>::value> {};

/* The stored form of a fill value (sub-byte types pack it). */
template <typename StorageType, typename FragValueType, typename ArgType>
static inline __device__ StorageType __get_storage_value(ArgType in) {
    return in;
}
template <>
__device__ inline unsigned int __get_storage_value<unsigned int, experimental::precision::u4, unsigned int>(unsigned int in) {
    in &= 0xF;
    return in * 0x11111111u;
}
template <> __device__ inline int __get_storage_value<int, experimental::precision::s4, int>(int in) {
    return (int)(((unsigned int)in & 0xF) * 0x11111111u);
}
template <>
__device__ inline unsigned int __get_storage_value<unsigned int, experimental::precision::b1, unsigned int>(unsigned int in) {
    return in & 1 ? 0xFFFFFFFFu : 0u;
}

template <typename FragEleType, typename Use, int m, int n, int k, typename Layout>
__device__ inline void fill_fragment(fragment<Use, m, n, k, FragEleType, Layout> &a,
                                     const typename helper_traits<FragEleType>::fill_argument_type &in) {
    typedef typename helper_traits<FragEleType>::storage_element_type S;
    S v = __get_storage_value<S, FragEleType, typename helper_traits<FragEleType>::fill_argument_type>(in);
    for (int i = 0; i < fragment<Use, m, n, k, FragEleType, Layout>::num_storage_elements; i++) a.x[i] = v;
}

/* f32 to tf32: to nearest, ties away from zero, the 13 low mantissa bits cleared. */
__device__ inline float __float_to_tf32(float in) {
    unsigned int b = __float_as_uint(in);
    if ((b & 0x7F800000u) == 0x7F800000u) return (b & 0x7FFFFFu) ? __uint_as_float(0x7FFFFFFFu) : in;
    return __uint_as_float((b + 0x1000u) & ~0x1FFFu);
}

#define __RGDEV_LAYOUT(L) (__is_same(L, col_major) ? 1 : 0)
#define __RGDEV_MEM(l) ((l) == mem_col_major ? 1 : 0)

/* A and B loads of one shape and type: name prefix P, PTX-level suffixes for a and b. */
#define __RGDEV_WMMA_AB(arch, M, N, K, T, ST, P, SA, SB)                                              \
    __device__ inline void load_matrix_sync(fragment<matrix_a, M, N, K, T, row_major> &a, const ST *p, unsigned ldm) \
        __RGDEV_WMMA(arch, P##_ld_a##SA((int *)a.x, (const int *)p, ldm, 0))                          \
    __device__ inline void load_matrix_sync(fragment<matrix_a, M, N, K, T, col_major> &a, const ST *p, unsigned ldm) \
        __RGDEV_WMMA(arch, P##_ld_a##SA((int *)a.x, (const int *)p, ldm, 1))                          \
    __device__ inline void load_matrix_sync(fragment<matrix_b, M, N, K, T, row_major> &a, const ST *p, unsigned ldm) \
        __RGDEV_WMMA(arch, P##_ld_b##SB((int *)a.x, (const int *)p, ldm, 0))                          \
    __device__ inline void load_matrix_sync(fragment<matrix_b, M, N, K, T, col_major> &a, const ST *p, unsigned ldm) \
        __RGDEV_WMMA(arch, P##_ld_b##SB((int *)a.x, (const int *)p, ldm, 1))

/* Accumulator loads and stores: C's type T, the builtins' pointer type BT. */
#define __RGDEV_WMMA_C(arch, M, N, K, T, BT, LD, ST_)                                                 \
    __device__ inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &a, const T *p, unsigned ldm, layout_t l) \
        __RGDEV_WMMA(arch, if (l == mem_col_major) LD((BT *)a.x, (const BT *)p, ldm, 1); else LD((BT *)a.x, (const BT *)p, ldm, 0)) \
    __device__ inline void store_matrix_sync(T *p, const fragment<accumulator, M, N, K, T> &a, unsigned ldm, layout_t l) \
        __RGDEV_WMMA(arch, if (l == mem_col_major) ST_((BT *)p, (BT *)a.x, ldm, 1); else ST_((BT *)p, (BT *)a.x, ldm, 0))

/* mma_sync for the four layout pairs. */
#define __RGDEV_WMMA_MMA1(arch, M, N, K, T, D, C, F, DT, CT, LA, LB, SATP, SATA)                     \
    __device__ inline void mma_sync(fragment<accumulator, M, N, K, D> &d, const fragment<matrix_a, M, N, K, T, LA> &a, \
                                    const fragment<matrix_b, M, N, K, T, LB> &b,                       \
                                    const fragment<accumulator, M, N, K, C> &c __RGDEV_UNPAREN SATP)   \
        __RGDEV_WMMA(arch, if (SATA) F((DT *)d.x, (const int *)a.x, (const int *)b.x, (const CT *)c.x,  \
                                       __RGDEV_LAYOUT(LA) * 2 + __RGDEV_LAYOUT(LB), 1);                \
                           else F((DT *)d.x, (const int *)a.x, (const int *)b.x, (const CT *)c.x,      \
                                  __RGDEV_LAYOUT(LA) * 2 + __RGDEV_LAYOUT(LB), 0))
#define __RGDEV_WMMA_MMA(arch, M, N, K, T, D, C, F, DT, CT, SATP, SATA)                               \
    __RGDEV_WMMA_MMA1(arch, M, N, K, T, D, C, F, DT, CT, row_major, row_major, SATP, SATA)            \
    __RGDEV_WMMA_MMA1(arch, M, N, K, T, D, C, F, DT, CT, row_major, col_major, SATP, SATA)            \
    __RGDEV_WMMA_MMA1(arch, M, N, K, T, D, C, F, DT, CT, col_major, row_major, SATP, SATA)            \
    __RGDEV_WMMA_MMA1(arch, M, N, K, T, D, C, F, DT, CT, col_major, col_major, SATP, SATA)

/* One shape's __half, __nv_bfloat16 and 8-bit operations. */
#define __RGDEV_WMMA_SHAPE(M, N, K)                                                                    \
    __RGDEV_WMMA_AB(700, M, N, K, __half, __half, __hmma_m##M##n##N##k##K, , )                         \
    __RGDEV_WMMA_C(700, M, N, K, __half, int, __hmma_m##M##n##N##k##K##_ld_c_f16, __hmma_m##M##n##N##k##K##_st_c_f16) \
    __RGDEV_WMMA_C(700, M, N, K, float, float, __hmma_m##M##n##N##k##K##_ld_c_f32, __hmma_m##M##n##N##k##K##_st_c_f32) \
    __RGDEV_WMMA_MMA(700, M, N, K, __half, __half, __half, __hmma_m##M##n##N##k##K##_mma_f16f16, int, int, (), 0) \
    __RGDEV_WMMA_MMA(700, M, N, K, __half, __half, float, __hmma_m##M##n##N##k##K##_mma_f16f32, int, float, (), 0) \
    __RGDEV_WMMA_MMA(700, M, N, K, __half, float, __half, __hmma_m##M##n##N##k##K##_mma_f32f16, float, int, (), 0) \
    __RGDEV_WMMA_MMA(700, M, N, K, __half, float, float, __hmma_m##M##n##N##k##K##_mma_f32f32, float, float, (), 0) \
    __RGDEV_WMMA_AB(800, M, N, K, __nv_bfloat16, __nv_bfloat16, __mma_bf16_m##M##n##N##k##K, , )      \
    __RGDEV_WMMA_MMA(800, M, N, K, __nv_bfloat16, float, float, __mma_bf16_m##M##n##N##k##K##_mma_f32, float, float, (), 0) \
    __RGDEV_WMMA_AB(720, M, N, K, signed char, signed char, __imma_m##M##n##N##k##K, _s8, _s8)         \
    __RGDEV_WMMA_AB(720, M, N, K, unsigned char, unsigned char, __imma_m##M##n##N##k##K, _u8, _u8)     \
    __RGDEV_WMMA_C(720, M, N, K, int, int, __imma_m##M##n##N##k##K##_ld_c, __imma_m##M##n##N##k##K##_st_c_i32) \
    __RGDEV_WMMA_MMA(720, M, N, K, signed char, int, int, __imma_m##M##n##N##k##K##_mma_s8, int, int,  \
                     (, bool satf = false), satf)                                            \
    __RGDEV_WMMA_MMA(720, M, N, K, unsigned char, int, int, __imma_m##M##n##N##k##K##_mma_u8, int, int, \
                     (, bool satf = false), satf)

__RGDEV_WMMA_SHAPE(16, 16, 16)
__RGDEV_WMMA_SHAPE(32, 8, 16)
__RGDEV_WMMA_SHAPE(8, 32, 16)

/* tf32 (m16n16k8): A and B hold floats. */
__RGDEV_WMMA_AB(800, 16, 16, 8, precision::tf32, float, __mma_tf32_m16n16k8, , )
__RGDEV_WMMA_C(800, 16, 16, 8, float, float, __mma_tf32_m16n16k8_ld_c, __mma_m16n16k8_st_c_f32)
__RGDEV_WMMA_MMA(800, 16, 16, 8, precision::tf32, float, float, __mma_tf32_m16n16k8_mma_f32, float, float, (), 0)

/* double (m8n8k4). */
#define __RGDEV_WMMA_DAB(L, LN, which)                                                                 \
    __device__ inline void load_matrix_sync(fragment<which, 8, 8, 4, double, L> &a, const double *p, unsigned ldm) \
        __RGDEV_WMMA(800, __dmma_m8n8k4_ld_##LN(a.x, p, ldm, __RGDEV_LAYOUT(L)))
__RGDEV_WMMA_DAB(row_major, a, matrix_a)
__RGDEV_WMMA_DAB(col_major, a, matrix_a)
__RGDEV_WMMA_DAB(row_major, b, matrix_b)
__RGDEV_WMMA_DAB(col_major, b, matrix_b)
__RGDEV_WMMA_C(800, 8, 8, 4, double, double, __dmma_m8n8k4_ld_c, __dmma_m8n8k4_st_c_f64)
#define __RGDEV_WMMA_DMMA(LA, LB)                                                                      \
    __device__ inline void mma_sync(fragment<accumulator, 8, 8, 4, double> &d, const fragment<matrix_a, 8, 8, 4, double, LA> &a, \
                                    const fragment<matrix_b, 8, 8, 4, double, LB> &b,                  \
                                    const fragment<accumulator, 8, 8, 4, double> &c)                   \
        __RGDEV_WMMA(800, __dmma_m8n8k4_mma_f64(d.x, a.x, b.x, c.x, __RGDEV_LAYOUT(LA) * 2 + __RGDEV_LAYOUT(LB), 0))
__RGDEV_WMMA_DMMA(row_major, row_major)
__RGDEV_WMMA_DMMA(row_major, col_major)
__RGDEV_WMMA_DMMA(col_major, row_major)
__RGDEV_WMMA_DMMA(col_major, col_major)

/* Sub-byte and single-bit operations: declared, not executed by rgdev. */
__device__ void load_matrix_sync(fragment<matrix_a, 8, 8, 32, experimental::precision::u4, row_major> &, const void *, unsigned) = delete;
__device__ void load_matrix_sync(fragment<matrix_a, 8, 8, 32, experimental::precision::s4, row_major> &, const void *, unsigned) = delete;
__device__ void load_matrix_sync(fragment<matrix_b, 8, 8, 32, experimental::precision::u4, col_major> &, const void *, unsigned) = delete;
__device__ void load_matrix_sync(fragment<matrix_b, 8, 8, 32, experimental::precision::s4, col_major> &, const void *, unsigned) = delete;
__device__ void load_matrix_sync(fragment<matrix_a, 8, 8, 128, experimental::precision::b1, row_major> &, const void *, unsigned) = delete;
__device__ void load_matrix_sync(fragment<matrix_b, 8, 8, 128, experimental::precision::b1, col_major> &, const void *, unsigned) = delete;
__device__ void load_matrix_sync(fragment<accumulator, 8, 8, 32, int> &, const int *, unsigned, layout_t) = delete;
__device__ void load_matrix_sync(fragment<accumulator, 8, 8, 128, int> &, const int *, unsigned, layout_t) = delete;
__device__ void store_matrix_sync(int *, const fragment<accumulator, 8, 8, 32, int> &, unsigned, layout_t) = delete;
__device__ void store_matrix_sync(int *, const fragment<accumulator, 8, 8, 128, int> &, unsigned, layout_t) = delete;
__device__ void mma_sync(fragment<accumulator, 8, 8, 32, int> &, const fragment<matrix_a, 8, 8, 32, experimental::precision::u4, row_major> &,
                         const fragment<matrix_b, 8, 8, 32, experimental::precision::u4, col_major> &,
                         const fragment<accumulator, 8, 8, 32, int> &, bool satf = false) = delete;
__device__ void mma_sync(fragment<accumulator, 8, 8, 32, int> &, const fragment<matrix_a, 8, 8, 32, experimental::precision::s4, row_major> &,
                         const fragment<matrix_b, 8, 8, 32, experimental::precision::s4, col_major> &,
                         const fragment<accumulator, 8, 8, 32, int> &, bool satf = false) = delete;
__device__ void bmma_sync(fragment<accumulator, 8, 8, 128, int> &, const fragment<matrix_a, 8, 8, 128, experimental::precision::b1, row_major> &,
                          const fragment<matrix_b, 8, 8, 128, experimental::precision::b1, col_major> &,
                          const fragment<accumulator, 8, 8, 128, int> &,
                          experimental::bmmaBitOp = experimental::bmmaBitOpXOR,
                          experimental::bmmaAccumulateOp = experimental::bmmaAccumulateOpPOPC) = delete;

} // namespace wmma
} // namespace nvcuda

#undef __RGDEV_WMMA_AB
#undef __RGDEV_WMMA_C
#undef __RGDEV_WMMA_MMA1
#undef __RGDEV_WMMA_MMA
#undef __RGDEV_WMMA_SHAPE
#undef __RGDEV_WMMA_DAB
#undef __RGDEV_WMMA_DMMA

#endif /* __cplusplus && __CUDA__ */

#endif /* __CUDA_MMA_H__ */
