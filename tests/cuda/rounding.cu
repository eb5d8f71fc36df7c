// Directed rounding, checked bit for bit against the host's IEEE arithmetic under
// fesetround: CUDA's _rn/_rz/_rd/_ru intrinsics of add, sub, mul, fma, div, rcp and sqrt
// in single and double precision, and conversions (double to float, int and long long to
// float and double), on inputs that are mostly inexact in the result type. Built with
// -Xcompiler -frounding-math so that the host compiler keeps the modes.
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "check.cuh"

#define N 512

struct Out {
    float f[4][11];
    double d[4][10];
};

#define FOUR(name, ...) name##_rn(__VA_ARGS__), name##_rz(__VA_ARGS__), name##_rd(__VA_ARGS__), name##_ru(__VA_ARGS__)

__global__ void ops(const float *fa, const float *fb, const float *fc, const double *da, const double *db,
                    const double *dc, const long long *ll, Out *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float a = fa[i], b = fb[i], c = fc[i];
    double x = da[i], y = db[i], z = dc[i];
    float fr[11][4] = {{FOUR(__fadd, a, b)},     {FOUR(__fsub, a, b)},       {FOUR(__fmul, a, b)},
                       {FOUR(__fmaf, a, b, c)},  {FOUR(__fdiv, a, b)},       {FOUR(__frcp, b)},
                       {FOUR(__fsqrt, fabsf(a))}, {FOUR(__double2float, x)}, {FOUR(__int2float, (int)ll[i])},
                       {FOUR(__ll2float, ll[i])}, {FOUR(__uint2float, (unsigned)ll[i])}};
    double dr[10][4] = {{FOUR(__dadd, x, y)},  {FOUR(__dsub, x, y)},       {FOUR(__dmul, x, y)},
                        {FOUR(__fma, x, y, z)}, {FOUR(__ddiv, x, y)},       {FOUR(__drcp, y)},
                        {FOUR(__dsqrt, fabs(x))}, {FOUR(__ll2double, ll[i])}, {FOUR(__ull2double, (unsigned long long)ll[i])},
                        {__dadd_rn(x, -x), __dadd_rz(x, -x), __dadd_rd(x, -x), __dadd_ru(x, -x)}};
    for (int m = 0; m < 4; m++) {
        for (int k = 0; k < 11; k++) out[i].f[m][k] = fr[k][m];
        for (int k = 0; k < 10; k++) out[i].d[m][k] = dr[k][m];
    }
}

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}
static double value(int k) {
    // Mixed magnitudes and signs, a few exact and special values.
    if (k % 97 == 0) return 0.0;
    if (k % 89 == 0) return -1.0;
    double m = (double)(next() >> 11) / 9007199254740992.0 + 0.5; // [0.5, 1.5)
    int e = (int)(next() % 60) - 30;
    return ((next() & 1) ? -m : m) * ldexp(1.0, e);
}

int main() {
    static float fa[N], fb[N], fc[N];
    static double da[N], db[N], dc[N];
    static long long ll[N];
    for (int k = 0; k < N; k++) {
        fa[k] = (float)value(k), fb[k] = (float)value(k + 1), fc[k] = (float)value(k + 2);
        if (fb[k] == 0.0f) fb[k] = 3.0f;
        da[k] = value(k), db[k] = value(k + 3), dc[k] = value(k + 5);
        if (db[k] == 0.0) db[k] = 3.0;
        ll[k] = (long long)(next() >> (next() % 40)) * ((k & 1) ? -1 : 1);
    }
    float *dfa, *dfb, *dfc;
    double *dda, *ddb, *ddc;
    long long *dll;
    Out *dout;
    CHECK(cudaMalloc(&dfa, sizeof fa));
    CHECK(cudaMalloc(&dfb, sizeof fb));
    CHECK(cudaMalloc(&dfc, sizeof fc));
    CHECK(cudaMalloc(&dda, sizeof da));
    CHECK(cudaMalloc(&ddb, sizeof db));
    CHECK(cudaMalloc(&ddc, sizeof dc));
    CHECK(cudaMalloc(&dll, sizeof ll));
    CHECK(cudaMalloc(&dout, N * sizeof(Out)));
    CHECK(cudaMemcpy(dfa, fa, sizeof fa, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfb, fb, sizeof fb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfc, fc, sizeof fc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dda, da, sizeof da, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ddb, db, sizeof db, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ddc, dc, sizeof dc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dll, ll, sizeof ll, cudaMemcpyHostToDevice));
    ops<<<N / 128, 128>>>(dfa, dfb, dfc, dda, ddb, ddc, dll, dout);
    CHECK(cudaGetLastError());
    static Out out[N];
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));

    const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
    int bad = 0, inexact = 0;
    for (int m = 0; m < 4; m++) {
        fesetround(modes[m]);
        for (int i = 0; i < N; i++) {
            volatile float a = fa[i], b = fb[i], c = fc[i];
            volatile double x = da[i], y = db[i], z = dc[i];
            volatile long long l = ll[i];
            float fw[11] = {a + b, a - b, a * b, fmaf(a, b, c), a / b, 1.0f / b, sqrtf(fabsf(a)), (float)x,
                            (float)(int)l, (float)l, (float)(unsigned)l};
            double dw[10] = {x + y, x - y, x * y, fma(x, y, z), x / y, 1.0 / y, sqrt(fabs(x)), (double)l,
                             (double)(unsigned long long)l, x - x};
            for (int k = 0; k < 11; k++) {
                uint32_t g, w;
                memcpy(&g, &out[i].f[m][k], 4);
                memcpy(&w, &fw[k], 4);
                if (g != w && bad++ < 10) fprintf(stderr, "float op %d mode %d input %d: %a, host %a\n", k, m, i, out[i].f[m][k], fw[k]);
            }
            for (int k = 0; k < 10; k++) {
                uint64_t g, w;
                memcpy(&g, &out[i].d[m][k], 8);
                memcpy(&w, &dw[k], 8);
                if (g != w && bad++ < 10) fprintf(stderr, "double op %d mode %d input %d: %a, host %a\n", k, m, i, out[i].d[m][k], dw[k]);
            }
            if (m == 1) inexact += out[i].f[1][4] != out[i].f[3][4];
        }
    }
    fesetround(FE_TONEAREST);
    TRUE(bad == 0);
    TRUE(inexact > N / 4); // toward zero and up differ for inexact positive quotients
    printf("%d inputs, %d directed results differ from nearest\n", N, inexact);
    return report();
}
