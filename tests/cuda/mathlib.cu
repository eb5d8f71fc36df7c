// The device math library against the host's long double functions: every function in
// both precisions over its domain (ordinary, huge and tiny arguments, special values),
// the largest error in ulps of the exact result checked against CUDA's documented bound
// (plus the half ulp between the exact and the correctly rounded result). Prints each
// function's largest error.
#include "check.cuh"
#include <cmath>
#include <cstring>

template <class F> __global__ void apply1(const double *x, double *out, int n, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(x[i]);
}
template <class F> __global__ void apply2(const double *x, const double *y, double *out, int n, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(x[i], y[i]);
}

static const int N = 1536;
static double *dx, *dy, *dout;
static double hx[N], hy[N], hout[N];

/* A deterministic generator: uniform in [a, b), or log-uniform in magnitude. */
static unsigned long long state = 0x9e3779b97f4a7c15ull;
static double uniform(double a, double b) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return a + (b - a) * (double)(state >> 11) * 0x1p-53;
}
static double logu(double lo, double hi, bool sign) {
    double v = std::exp2(uniform(std::log2(lo), std::log2(hi)));
    return sign && uniform(0, 1) < 0.5 ? -v : v;
}

/* References the C library lacks, in long double. */
static long double erfcxl(long double x) {
    if (std::isinf((double)x)) return x > 0 ? 0.0L : INFINITY;
    long double h = x * x, l = fmal(x, x, -h); /* x^2 = h + l exactly */
    return erfcl(x) * expl(h) * (1.0L + l);
}
static long double erfcinvl(long double q);
static long double erfinvl(long double y) {
    if (std::isnan((double)y) || fabsl(y) > 1.0L) return NAN;
    if (fabsl(y) == 1.0L) return copysignl(INFINITY, y);
    if (fabsl(y) > 0.5L) return copysignl(erfcinvl(1.0L - fabsl(y)), y);
    long double x = y * 0.886L;
    for (int i = 0; i < 60; i++) {
        long double dx = (erfl(x) - y) / (1.12837916709551257390L * expl(-x * x));
        x -= dx;
        if (fabsl(dx) <= 1e-30L * fabsl(x)) break;
    }
    return x;
}
static long double erfcinvl(long double q) {
    if (std::isnan((double)q) || q < 0.0L || q > 2.0L) return NAN;
    if (q == 0.0L) return INFINITY;
    if (q == 2.0L) return -INFINITY;
    if (q > 1.0L) return -erfcinvl(2.0L - q);
    if (q >= 0.5L) return erfinvl(1.0L - q);
    /* Newton on log erfc(x) = log q, nearly linear in x^2 */
    long double x = sqrtl(-logl(q)), lq = logl(q);
    for (int i = 0; i < 200; i++) {
        long double e = erfcl(x);
        long double dx = (logl(e) - lq) * e / (1.12837916709551257390L * expl(-x * x));
        x += dx;
        if (fabsl(dx) <= 1e-30L * fabsl(x)) break;
    }
    return x;
}
static long double normcdfl(long double x) { return 0.5L * erfcl(-x / sqrtl(2.0L)); }
static long double normcdfinvl(long double p) { return -sqrtl(2.0L) * erfcinvl(2.0L * p); }
static long double rhypotl(long double a, long double b) { return 1.0L / hypotl(a, b); }

/* The error of `got` in ulps of the exact value `want` (a double or float ulp). */
static double ulps(double got, long double want, bool single) {
    if (std::isnan((double)want)) return std::isnan(got) ? 0 : 1e9;
    int mant = single ? 24 : 53, emin = single ? -126 : -1022;
    long double maxv = single ? (long double)3.40282346638528859812e38L : (long double)1.7976931348623157e308L;
    if (std::isinf(got) || std::fabs(want) > maxv) {
        /* Overflow: infinity with the right sign, or the largest value when the exact
           result rounds to it. */
        if (std::isinf(got) && std::fabs(want) >= maxv && (got > 0) == (want > 0)) return 0;
        if (!std::isinf(got) && std::fabs((long double)got) == maxv) return std::fabs(want) > maxv * 1.0000001L ? 1e9 : 0;
        return 1e9;
    }
    int e;
    std::frexp((double)want, &e);
    if (want == 0) e = emin + 1;
    if (e - 1 < emin) e = emin + 1;
    long double ulp = std::ldexp(1.0L, e - mant);
    return (double)(std::fabs((long double)got - want) / ulp);
}

struct Result {
    double worst_d, worst_f;
    double at_d, at_f;
};

static Result check(const char *name, long double (*ref)(long double), double bound_d, double bound_f,
                    const double *outd, const double *outf) {
    Result r = {0, 0, 0, 0};
    for (int i = 0; i < N; i++) {
        long double want = ref((long double)hx[i]);
        double ed = ulps(outd[i], want, false);
        if (ed > r.worst_d) r.worst_d = ed, r.at_d = hx[i];
        long double wantf = ref((long double)(float)hx[i]);
        double ef = ulps(outf[i], wantf, true);
        if (ef > r.worst_f) r.worst_f = ef, r.at_f = (float)hx[i];
    }
    printf("%-10s double %6.3f ulp (bound %g)   float %6.3f ulp (bound %g)\n", name, r.worst_d, bound_d, r.worst_f,
           bound_f);
    if (r.worst_d > bound_d + 0.5) {
        fprintf(stderr, "%s(%a): %g ulp\n", name, r.at_d, r.worst_d);
        failures++;
    }
    if (r.worst_f > bound_f + 0.5) {
        fprintf(stderr, "%sf(%a): %g ulp\n", name, r.at_f, r.worst_f);
        failures++;
    }
    return r;
}

template <class F> static void run1(F f, double *out) {
    CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    apply1<<<N / 256, 256>>>(dx, dout, N, f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, sizeof hout, cudaMemcpyDeviceToHost));
}
template <class F> static void run2(F f, double *out) {
    CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice));
    apply2<<<N / 256, 256>>>(dx, dy, dout, N, f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, sizeof hout, cudaMemcpyDeviceToHost));
}

/* Special values every one-argument function sees. */
static void specials() {
    const double s[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, INFINITY, -INFINITY, NAN, 1e-310, -1e-310, 0x1p-1074};
    for (unsigned i = 0; i < sizeof s / sizeof s[0]; i++) hx[i] = s[i];
}

#define FN1(name, fd, ff, bd, bf, fill)                                                                \
    do {                                                                                               \
        for (int i = 0; i < N; i++) hx[i] = (fill);                                                    \
        specials();                                                                                    \
        static double od[N], of[N];                                                                    \
        run1([] __device__(double v) { return (double)fd(v); }, od);                                   \
        run1([] __device__(double v) { return (double)ff((float)v); }, of);                            \
        check(#fd, [](long double v) { return (long double)name##l(v); }, bd, bf, od, of);             \
    } while (0)

#define FN2(name, fd, ff, bd, bf, fillx, filly)                                                        \
    do {                                                                                               \
        for (int i = 0; i < N; i++) hx[i] = (fillx), hy[i] = (filly);                                  \
        static double od[N], of[N];                                                                    \
        run2([] __device__(double a, double b) { return (double)fd(a, b); }, od);                      \
        run2([] __device__(double a, double b) { return (double)ff((float)a, (float)b); }, of);        \
        double wd = 0, wf = 0;                                                                         \
        for (int i = 0; i < N; i++) {                                                                  \
            double e = ulps(od[i], name##l((long double)hx[i], (long double)hy[i]), false);            \
            double g = ulps(of[i], name##l((long double)(float)hx[i], (long double)(float)hy[i]), true); \
            if (e > wd) wd = e;                                                                        \
            if (g > wf) wf = g;                                                                        \
            if (e > (bd) + 0.5 || g > (bf) + 0.5) {                                                    \
                if (failures < 20)                                                                     \
                    fprintf(stderr, "%s(%a, %a): %g / %g ulp\n", #fd, hx[i], hy[i], e, g);             \
                failures++;                                                                            \
            }                                                                                          \
        }                                                                                              \
        printf("%-10s double %6.3f ulp (bound %g)   float %6.3f ulp (bound %g)\n", #fd, wd, (double)(bd), wf, \
               (double)(bf));                                                                          \
    } while (0)

int main() {
    CHECK(cudaMalloc(&dx, sizeof hx));
    CHECK(cudaMalloc(&dy, sizeof hy));
    CHECK(cudaMalloc(&dout, sizeof hout));
    // name, double function, float function, CUDA's bounds (double, float), arguments.
    FN1(exp, exp, expf, 1, 2, uniform(-745, 709.7));
    FN1(exp2, exp2, exp2f, 1, 2, uniform(-1074, 1023.9));
    FN1(exp10, exp10, exp10f, 1, 2, uniform(-323, 308));
    FN1(expm1, expm1, expm1f, 1, 1, i % 2 ? uniform(-40, 709) : logu(1e-20, 1, true));
    FN1(log, log, logf, 1, 1, logu(1e-300, 1e300, false));
    FN1(log2, log2, log2f, 1, 1, logu(1e-300, 1e300, false));
    FN1(log10, log10, log10f, 1, 2, logu(1e-300, 1e300, false));
    FN1(log1p, log1p, log1pf, 1, 1, i % 2 ? uniform(-1, 10) : logu(1e-20, 1e20, false));
    FN1(sin, sin, sinf, 2, 2, i % 3 == 0 ? uniform(-10, 10) : i % 3 == 1 ? uniform(-1e6, 1e6) : logu(1e6, 1e300, true));
    FN1(cos, cos, cosf, 2, 2, i % 3 == 0 ? uniform(-10, 10) : i % 3 == 1 ? uniform(-1e6, 1e6) : logu(1e6, 1e300, true));
    FN1(tan, tan, tanf, 2, 4, i % 3 == 0 ? uniform(-10, 10) : i % 3 == 1 ? uniform(-1e6, 1e6) : logu(1e6, 1e300, true));
    FN1(asin, asin, asinf, 2, 2, uniform(-1, 1));
    FN1(acos, acos, acosf, 2, 2, uniform(-1, 1));
    FN1(atan, atan, atanf, 2, 2, logu(1e-10, 1e20, true));
    FN1(sinh, sinh, sinhf, 2, 3, i % 2 ? uniform(-710, 710) : uniform(-2, 2));
    FN1(cosh, cosh, coshf, 1, 2, i % 2 ? uniform(-710, 710) : uniform(-2, 2));
    FN1(tanh, tanh, tanhf, 1, 2, i % 2 ? uniform(-20, 20) : uniform(-1, 1));
    FN1(asinh, asinh, asinhf, 3, 3, logu(1e-10, 1e300, true));
    FN1(acosh, acosh, acoshf, 3, 4, i % 2 ? logu(1, 1e300, false) : uniform(1, 3));
    FN1(atanh, atanh, atanhf, 2, 3, uniform(-1, 1));
    FN1(cbrt, cbrt, cbrtf, 1, 1, logu(1e-300, 1e300, true));
    FN2(pow, pow, powf, 2, 4, i % 3 ? logu(1e-3, 1e3, false) : -(double)(int)uniform(1, 30),
        i % 3 ? uniform(-60, 60) : (double)(int)uniform(-40, 40));
    FN2(atan2, atan2, atan2f, 2, 3, logu(1e-10, 1e10, true), logu(1e-10, 1e10, true));
    FN2(hypot, hypot, hypotf, 2, 3, logu(1e-300, 1e300, true), logu(1e-300, 1e300, true));
    FN2(fmod, fmod, fmodf, 0, 0, logu(1e-30, 1e30, true), logu(1e-30, 1e30, true));
    FN2(remainder, remainder, remainderf, 0, 0, logu(1e-10, 1e10, true), logu(1e-10, 1e10, true));
    FN1(erf, erf, erff, 2, 2, i % 2 ? uniform(-6.5, 6.5) : logu(1e-300, 1, true));
    FN1(erfc, erfc, erfcf, 5, 4, i % 3 ? uniform(-6.5, 27.5) : uniform(-1, 1));
    FN1(erfcx, erfcx, erfcxf, 4, 4, i % 3 ? uniform(-26.5, 100) : uniform(-1, 8));
    FN1(erfinv, erfinv, erfinvf, 5, 2, i % 3 ? uniform(-1, 1) : 1.0 - logu(1e-16, 1, false));
    FN1(erfcinv, erfcinv, erfcinvf, 6, 4, i % 2 ? uniform(0, 2) : logu(1e-300, 1, false));
    FN1(normcdf, normcdf, normcdff, 5, 5, uniform(-38.4, 8.5));
    FN1(normcdfinv, normcdfinv, normcdfinvf, 8, 5, i % 2 ? uniform(0, 1) : logu(1e-300, 0.5, false));
    // lgamma's bounds hold outside [-11.0001, -2.2637] (float: [-10.001, -2.264]), where it
    // has zeros; so do ours, but the interval is left out as CUDA's tables do.
    FN1(lgamma, lgamma, lgammaf, 4, 6,
        i % 4 == 0 ? uniform(0, 3) : i % 4 == 1 ? logu(1e-300, 1e300, false) : i % 4 == 2 ? uniform(-2.26, 0) : uniform(-170, -11.01));
    FN1(tgamma, tgamma, tgammaf, 10, 5, i % 3 == 0 ? uniform(-12, 12) : i % 3 == 1 ? uniform(0, 171.6) : uniform(-185, -12));
    FN2(rhypot, rhypot, rhypotf, 1, 2, logu(1e-300, 1e300, true), logu(1e-300, 1e300, true));

    // Exact functions: one IEEE operation each, compared bit for bit.
    for (int i = 0; i < N; i++) hx[i] = logu(1e-300, 1e300, true) * (i % 7 == 0 ? 1 : 1e-290);
    static double od[N];
    run1([] __device__(double v) { return sqrt(fabs(v)) + floor(v) * 0.0; }, od);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += od[i] != std::sqrt(std::fabs(hx[i]));
    TRUE(bad == 0);
    for (int i = 0; i < N; i++) hx[i] = uniform(-1e6, 1e6) + (i % 4) * 0.5;
    run1([] __device__(double v) { return round(v) + 8.0 * trunc(v) + 64.0 * rint(v); }, od);
    bad = 0;
    for (int i = 0; i < N; i++) bad += od[i] != std::round(hx[i]) + 8.0 * std::trunc(hx[i]) + 64.0 * std::rint(hx[i]);
    TRUE(bad == 0);

    // Exponent and mantissa functions, and sinpi/cospi at exact points.
    for (int i = 0; i < N; i++) hx[i] = logu(1e-310, 1e300, true);
    run1([] __device__(double v) {
        int e;
        double m = frexp(v, &e);
        return ldexp(m, e) == v && fabs(m) >= 0.5 && fabs(m) < 1.0 ? (double)e : 1e9;
    }, od);
    bad = 0;
    for (int i = 0; i < N; i++) {
        int e;
        std::frexp(hx[i], &e);
        bad += od[i] != e;
    }
    TRUE(bad == 0);
    run1([] __device__(double v) {
        double ip;
        double f = modf(v, &ip);
        return f + ip == v && nextafter(v, 0.0) != v && ilogb(v) == logb(v) ? 1.0 : 0.0;
    }, od);
    bad = 0;
    for (int i = 0; i < N; i++) bad += od[i] != 1.0;
    TRUE(bad == 0);
    for (int i = 0; i < N; i++) hx[i] = (double)(i - N / 2) * 0.5;
    run1([] __device__(double v) { return sinpi(v) * 4.0 + cospi(v); }, od);
    bad = 0;
    for (int i = 0; i < N; i++) {
        long long h = (long long)(hx[i] * 2.0); /* v = h / 2 */
        double s = h % 2 == 0 ? 0.0 : ((((h - 1) / 2) % 2 + 2) % 2 == 0 ? 1.0 : -1.0);
        double c = h % 2 != 0 ? 0.0 : (((h / 2) % 2 + 2) % 2 == 0 ? 1.0 : -1.0);
        bad += od[i] != s * 4.0 + c;
    }
    TRUE(bad == 0);
    // remquo: the remainder and the quotient's last three bits (with the quotient's sign),
    // exactly as the host's; norms of three and four values against long double.
    for (int i = 0; i < N; i++) hx[i] = logu(1e-8, 1e8, true), hy[i] = logu(1e-8, 1e8, true);
    static double oq[N];
    run2([] __device__(double a, double b) { int q; return remquo(a, b, &q); }, od);
    run2([] __device__(double a, double b) { int q; remquo(a, b, &q); return (double)q; }, oq);
    bad = 0;
    for (int i = 0; i < N; i++) {
        int q;
        double r = std::remquo(hx[i], hy[i], &q);
        bad += od[i] != r || ((long long)oq[i] - q) % 8 != 0 || (oq[i] != 0 && (oq[i] < 0) != ((hx[i] < 0) != (hy[i] < 0)));
    }
    TRUE(bad == 0);
    for (int i = 0; i < N; i++) hx[i] = logu(1e-300, 1e300, true), hy[i] = hx[i] * logu(1e-3, 1e3, true);
    static double o3[N], r3[N], o4[N];
    run2([] __device__(double a, double b) { return norm3d(a, b, a - b); }, o3);
    run2([] __device__(double a, double b) { return rnorm3d(a, b, a - b); }, r3);
    run2([] __device__(double a, double b) { return norm4d(a, b, a - b, 0.5 * b); }, o4);
    double w3 = 0, wr = 0, w4 = 0;
    for (int i = 0; i < N; i++) {
        long double a = hx[i], b = hy[i], c = (long double)(hx[i] - hy[i]), d = 0.5L * b;
        long double s3 = sqrtl(a * a + b * b + c * c), s4 = sqrtl(a * a + b * b + c * c + d * d);
        w3 = std::fmax(w3, ulps(o3[i], s3, false));
        wr = std::fmax(wr, ulps(r3[i], 1.0L / s3, false));
        w4 = std::fmax(w4, ulps(o4[i], s4, false));
    }
    printf("norm3d     double %6.3f ulp (bound 2)   rnorm3d %6.3f ulp (bound 1)   norm4d %6.3f ulp (bound 2)\n", w3, wr, w4);
    TRUE(w3 <= 2.5 && wr <= 1.5 && w4 <= 2.5);
    return report();
}
