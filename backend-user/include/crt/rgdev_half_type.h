/*
 * The scalar and pair types of cuda_fp16.h and cuda_bf16.h, written once for rgdev and
 * included by each header with __RGDEV_T, __RGDEV_T2, __RGDEV_RAW, __RGDEV_RAW2 and
 * __RGDEV_F as crt/rgdev_half_ops.h describes them, and __RGDEV_EXTRA_CTORS (constructors
 * one type has beyond these). Stored as the format's bits; built from every arithmetic
 * type rounded once to nearest even; read as float exactly. Not a public header.
 */

struct __align__(2) __RGDEV_T {
    unsigned short __x;
    __RGDEV_T() = default;
    __host__ __device__ constexpr __RGDEV_T(const __RGDEV_RAW &r) : __x(r.x) {}
    __host__ __device__ __RGDEV_T(float f) : __x(__rgdev_f2b(f, __RGDEV_F, 0)) {}
    __host__ __device__ __RGDEV_T(double d) : __x(__rgdev_round16(d, 0, __RGDEV_F, 0)) {}
    __host__ __device__ __RGDEV_T(int i) : __x(__rgdev_round16((double)i, 0, __RGDEV_F, 0)) {}
    __host__ __device__ __RGDEV_T(unsigned int i) : __x(__rgdev_round16((double)i, 0, __RGDEV_F, 0)) {}
    __host__ __device__ __RGDEV_T(short i) : __x(__rgdev_round16((double)i, 0, __RGDEV_F, 0)) {}
    __host__ __device__ __RGDEV_T(unsigned short i) : __x(__rgdev_round16((double)i, 0, __RGDEV_F, 0)) {}
    __host__ __device__ __RGDEV_T(long long i) {
        int rest;
        double d = __rgdev_ll2d(i, &rest);
        __x = __rgdev_round16(d, rest, __RGDEV_F, 0);
    }
    __host__ __device__ __RGDEV_T(unsigned long long i) {
        int rest;
        double d = __rgdev_ull2d(i, &rest);
        __x = __rgdev_round16(d, rest, __RGDEV_F, 0);
    }
    __RGDEV_EXTRA_CTORS
    __host__ __device__ operator float() const { return __rgdev_b2f(__x, __RGDEV_F); }
    __host__ __device__ operator __RGDEV_RAW() const {
        __RGDEV_RAW r;
        r.x = __x;
        return r;
    }
    __host__ __device__ __RGDEV_T &operator=(const __RGDEV_RAW &r) {
        __x = r.x;
        return *this;
    }
    __host__ __device__ __RGDEV_T &operator=(float f) {
        __x = __rgdev_f2b(f, __RGDEV_F, 0);
        return *this;
    }
    __host__ __device__ __RGDEV_T &operator=(double d) {
        __x = __rgdev_round16(d, 0, __RGDEV_F, 0);
        return *this;
    }
};

struct __align__(4) __RGDEV_T2 {
    __RGDEV_T x, y;
    __RGDEV_T2() = default;
    __host__ __device__ constexpr __RGDEV_T2(const __RGDEV_T &a, const __RGDEV_T &b) : x(a), y(b) {}
    __host__ __device__ __RGDEV_T2(const __RGDEV_RAW2 &r) : x(__RGDEV_RAW{r.x}), y(__RGDEV_RAW{r.y}) {}
    __host__ __device__ __RGDEV_T2 &operator=(const __RGDEV_RAW2 &r) {
        x = __RGDEV_RAW{r.x};
        y = __RGDEV_RAW{r.y};
        return *this;
    }
    __host__ __device__ operator __RGDEV_RAW2() const {
        __RGDEV_RAW2 r;
        r.x = x.__x;
        r.y = y.__x;
        return r;
    }
};
