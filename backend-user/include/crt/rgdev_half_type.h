/*
 * The scalar and pair types of cuda_fp16.h and cuda_bf16.h, written once for rgdev and
 * included by each header with __RGDEV_T, __RGDEV_T2, __RGDEV_RAW, __RGDEV_RAW2 and
 * __RGDEV_F as crt/rgdev_half_ops.h describes them, and __RGDEV_EXTRA_CTORS (constructors
 * one type has beyond these) and __RGDEV_MOVE_FROM (`const` where CUDA's pair type is moved
 * from a const rvalue: __half2). Stored as the format's bits; built from every arithmetic
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
    __host__ __device__ __RGDEV_T(long i) : __RGDEV_T((long long)i) {}
    __host__ __device__ __RGDEV_T(unsigned long i) : __RGDEV_T((unsigned long long)i) {}
    __RGDEV_EXTRA_CTORS
    __host__ __device__ operator float() const { return __rgdev_b2f(__x, __RGDEV_F); }
    /* To integers: rounded toward zero, saturated, NaN to 0 (crt/rgdev_half_ops.h). */
    __host__ __device__ operator signed char() const;
    __host__ __device__ operator unsigned char() const;
    __host__ __device__ operator char() const;
    __host__ __device__ operator short() const;
    __host__ __device__ operator unsigned short() const;
    __host__ __device__ operator int() const;
    __host__ __device__ operator unsigned int() const;
    __host__ __device__ operator long() const;
    __host__ __device__ operator unsigned long() const;
    __host__ __device__ operator long long() const;
    __host__ __device__ operator unsigned long long() const;
    /* +0 and -0 are false, everything else (NaN too) true. */
    __host__ __device__ operator bool() const { return (__x & 0x7FFFu) != 0; }
    __host__ __device__ operator __RGDEV_RAW() const {
        __RGDEV_RAW r;
        r.x = __x;
        return r;
    }
    __host__ __device__ operator __RGDEV_RAW() const volatile {
        __RGDEV_RAW r;
        r.x = __x;
        return r;
    }
    __host__ __device__ __RGDEV_T &operator=(const __RGDEV_RAW &r) {
        __x = r.x;
        return *this;
    }
    __host__ __device__ volatile __RGDEV_T &operator=(const __RGDEV_RAW &r) volatile {
        __x = r.x;
        return *this;
    }
    __host__ __device__ volatile __RGDEV_T &operator=(const volatile __RGDEV_RAW &r) volatile {
        __x = r.x;
        return *this;
    }
    __host__ __device__ __RGDEV_T &operator=(short i) { return *this = __RGDEV_T(i); }
    __host__ __device__ __RGDEV_T &operator=(unsigned short i) { return *this = __RGDEV_T(i); }
    __host__ __device__ __RGDEV_T &operator=(int i) { return *this = __RGDEV_T(i); }
    __host__ __device__ __RGDEV_T &operator=(unsigned int i) { return *this = __RGDEV_T(i); }
    __host__ __device__ __RGDEV_T &operator=(long long i) { return *this = __RGDEV_T(i); }
    __host__ __device__ __RGDEV_T &operator=(unsigned long long i) { return *this = __RGDEV_T(i); }
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
    __host__ __device__ __RGDEV_T2(const __RGDEV_T2 &o) : x(o.x), y(o.y) {}
    __host__ __device__ __RGDEV_T2(__RGDEV_T2 &&o) : x(o.x), y(o.y) {}
    __host__ __device__ __RGDEV_T2 &operator=(const __RGDEV_T2 &o) {
        x = o.x;
        y = o.y;
        return *this;
    }
    __host__ __device__ __RGDEV_T2 &operator=(__RGDEV_MOVE_FROM __RGDEV_T2 &&o) {
        x = o.x;
        y = o.y;
        return *this;
    }
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
