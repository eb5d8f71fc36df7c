// The Bessel functions of the device math library against mpmath's values (bessel_ref.h,
// double-doubles): J0, J1, Y0, Y1 within CUDA's bounds (double 7 ulp below 8, absolute
// 5e-12 above; float 9 ulp and 2.2e-6), I0 and I1 within 6 ulp, J_n and Y_n within CUDA's
// absolute bounds, and the special values. Prints the worst errors.
#include <cmath>
#include <cstdio>
#include "bessel_ref.h"

#define N(a) (int)(sizeof(a) / sizeof(a[0]))

enum { J0, J1, Y0, Y1, I0, I1, JN, YN };

__global__ void eval(int f, const double *x, const int *n, int count, double *d, float *s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    double v = x[i];
    float w = (float)v;
    switch (f) {
    case J0: d[i] = j0(v); s[i] = j0f(w); break;
    case J1: d[i] = j1(v); s[i] = j1f(w); break;
    case Y0: d[i] = y0(v); s[i] = y0f(w); break;
    case Y1: d[i] = y1(v); s[i] = y1f(w); break;
    case I0: d[i] = cyl_bessel_i0(v); s[i] = cyl_bessel_i0f(w); break;
    case I1: d[i] = cyl_bessel_i1(v); s[i] = cyl_bessel_i1f(w); break;
    case JN: d[i] = jn(n[i], v); s[i] = jnf(n[i], w); break;
    case YN: d[i] = yn(n[i], v); s[i] = ynf(n[i], w); break;
    }
}

static int failures = 0;

// Error of `got` against hi + lo: in ulps of the exact value (long double), and absolute.
static long double ulps(double got, double hi, double lo) {
    long double exact = (long double)hi + lo;
    if (std::isinf(hi)) return got == hi ? 0 : 1e30L;
    int e;
    frexpl(exact, &e);
    long double ulp = ldexpl(1.0L, (e - 53 < -1074 ? -1074 : e - 53));
    return fabsl((long double)got - exact) / ulp;
}
static long double ulpsf(float got, double hi, double lo) {
    long double exact = (long double)hi + lo;
    if (std::isinf(hi) || fabsl(exact) > 3.4e38L) return std::isinf(got) ? 0 : 1e30L;
    int e;
    frexpl(exact, &e);
    long double ulp = ldexpl(1.0L, (e - 24 < -149 ? -149 : e - 24));
    return fabsl((long double)got - exact) / ulp;
}

static void run(int f, const char *name, const double (*ref)[3], int count, double ulp_bound, double abs_bound,
                double ulp_boundf, double abs_boundf) {
    double *x, *d;
    float *s;
    cudaMallocManaged(&x, count * sizeof(double));
    cudaMallocManaged(&d, count * sizeof(double));
    cudaMallocManaged(&s, count * sizeof(float));
    for (int i = 0; i < count; i++) x[i] = ref[i][0];
    eval<<<(count + 127) / 128, 128>>>(f, x, nullptr, count, d, s);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("FAIL %s: launch\n", name);
        failures++;
        return;
    }
    double worst = 0, worst_abs = 0, worstf = 0, worstf_abs = 0;
    for (int i = 0; i < count; i++) {
        double xi = ref[i][0], hi = ref[i][1], lo = ref[i][2];
        bool near = fabs(xi) < 8.0 || f == I0 || f == I1;
        double u = (double)ulps(d[i], hi, lo), a = fabs(d[i] - (hi + lo));
        double uf = (double)ulpsf(s[i], hi, lo), af = fabs((double)s[i] - (hi + lo));
        bool float_near = near && fabs(xi) < 3e38 && (float)xi == xi;
        if (near ? u > ulp_bound : a > abs_bound) {
            printf("FAIL %s(%a) = %a, want %a + %a (%.2f ulp, %.3g)\n", name, xi, d[i], hi, lo, u, a);
            failures++;
        }
        if (near) worst = fmax(worst, u); else worst_abs = fmax(worst_abs, a);
        // The float function takes x rounded to float: compare where that is x.
        if ((float)xi == xi && fabs(xi) < 3e38) {
            if (float_near ? uf > ulp_boundf : af > abs_boundf) {
                printf("FAIL %sf(%a) = %a, want %a (%.2f ulp, %.3g)\n", name, xi, s[i], hi, uf, af);
                failures++;
            }
            if (float_near) worstf = fmax(worstf, uf); else worstf_abs = fmax(worstf_abs, af);
        }
    }
    printf("%-3s double %.2f ulp (bound %g), %.3g abs (bound %g); float %.2f ulp, %.3g abs\n", name, worst, ulp_bound,
           worst_abs, abs_bound, worstf, worstf_abs);
    cudaFree(x);
    cudaFree(d);
    cudaFree(s);
}

static void run_n() {
    const int count = N(ref_n);
    double *x, *d;
    float *s;
    int *n;
    cudaMallocManaged(&x, count * sizeof(double));
    cudaMallocManaged(&d, count * sizeof(double));
    cudaMallocManaged(&s, count * sizeof(float));
    cudaMallocManaged(&n, count * sizeof(int));
    double worst[2] = {0, 0}, worst_rel = 0;
    for (int kind = 0; kind < 2; kind++) {
        int k = 0;
        for (int i = 0; i < count; i++)
            if (ref_n[i][0] == kind) {
                x[k] = ref_n[i][2];
                n[k] = (int)ref_n[i][1];
                k++;
            }
        eval<<<(k + 127) / 128, 128>>>(kind ? YN : JN, x, n, k, d, s);
        cudaDeviceSynchronize();
        k = 0;
        for (int i = 0; i < count; i++) {
            if (ref_n[i][0] != kind) continue;
            double hi = ref_n[i][3], lo = ref_n[i][4], xi = ref_n[i][2];
            int order = (int)ref_n[i][1];
            double a = std::isinf(hi) ? (d[k] == hi ? 0 : 1) : fabs(d[k] - (hi + lo));
            // CUDA bounds Y_n absolutely for x > 1.5n; below, where Y_n grows large, check it
            // relative to its size.
            bool absolute = kind == 0 || xi > 1.5 * order;
            double err = absolute ? a : a / fmax(fabs(hi), 1.0);
            if (err > 5e-12) {
                printf("FAIL %s(%d, %a) = %a, want %a (%.3g)\n", kind ? "yn" : "jn", order, xi, d[k], hi, err);
                failures++;
            }
            if (absolute) worst[kind] = fmax(worst[kind], a); else worst_rel = fmax(worst_rel, err);
            double af = std::isinf(hi) ? 0 : fabs((double)s[k] - hi);
            if ((float)xi == xi && (absolute ? af > 2.2e-6 : af / fmax(fabs(hi), 1.0) > 2e-6) && fabs(hi) < 3e38) {
                printf("FAIL %sf(%d, %a) = %a, want %a\n", kind ? "yn" : "jn", order, xi, s[k], hi);
                failures++;
            }
            k++;
        }
    }
    printf("jn  %.3g abs, yn %.3g abs (x > 1.5n), %.3g relative below (bound 5e-12)\n", worst[0], worst[1], worst_rel);
}

__global__ void specials(double *o) {
    double inf = __builtin_inf();
    o[0] = j0(inf);
    o[1] = y0(0.0);
    o[2] = y0(-1.0);
    o[3] = j1(-0.0);
    o[4] = jn(-3, 2.5) + jn(3, 2.5);
    o[5] = yn(-3, 2.5) + yn(3, 2.5);
    o[6] = cyl_bessel_i0(800.0);
    o[7] = cyl_bessel_i1(-800.0);
    o[8] = y1(0.0);
    o[9] = jn(2, 0.0);
    o[10] = j1(-2.0) + j1(2.0);
    o[11] = jn(5, -1.5) + jn(5, 1.5);
    o[12] = yn(4, inf);
    o[13] = jn(1000000, 10.0);
}

int main() {
    run(J0, "j0", ref_j0, N(ref_j0), 7, 5e-12, 9, 2.2e-6);
    run(J1, "j1", ref_j1, N(ref_j1), 7, 5e-12, 9, 2.2e-6);
    run(Y0, "y0", ref_y0, N(ref_y0), 7, 5e-12, 9, 2.2e-6);
    run(Y1, "y1", ref_y1, N(ref_y1), 7, 5e-12, 9, 2.2e-6);
    run(I0, "i0", ref_i0, N(ref_i0), 6, 0, 6, 0);
    run(I1, "i1", ref_i1, N(ref_i1), 6, 0, 6, 0);
    run_n();
    double *o;
    cudaMallocManaged(&o, 16 * sizeof(double));
    specials<<<1, 1>>>(o);
    cudaDeviceSynchronize();
    bool ok = o[0] == 0.0 && std::isinf(o[1]) && o[1] < 0 && std::isnan(o[2]) && o[3] == 0.0 && std::signbit(o[3]) &&
              o[4] == 0.0 && o[5] == 0.0 && std::isinf(o[6]) && o[6] > 0 && std::isinf(o[7]) && o[7] < 0 &&
              std::isinf(o[8]) && o[8] < 0 && o[9] == 0.0 && o[10] == 0.0 && o[11] == 0.0 && o[12] == 0.0 &&
              o[13] == 0.0;
    if (!ok) {
        printf("FAIL special values:");
        for (int i = 0; i < 14; i++) printf(" %a", o[i]);
        printf("\n");
        failures++;
    }
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
