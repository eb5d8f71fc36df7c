// Vector add with <<<>>>: a grid that does not divide the size, a grid-stride loop, and
// the launch's status from cudaGetLastError.
#include "check.cuh"

__global__ void vecadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void scale_strided(float *x, float s, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] *= s;
}

int main() {
    const int n = 100003;
    float *ha = new float[n], *hb = new float[n], *hc = new float[n];
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(n - i) * 0.5f;
    }
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    CHECK(cudaMemcpy(a, ha, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, n * sizeof(float), cudaMemcpyHostToDevice));
    vecadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hc, c, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hc[i] != ha[i] + hb[i];
    TRUE(bad == 0);

    scale_strided<<<7, 128>>>(c, 2.0f, n); // 896 threads cover the array in strides
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hc, c, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += hc[i] != 2.0f * (ha[i] + hb[i]);
    TRUE(bad == 0);
    printf("c[12345] = %.1f\n", hc[12345]);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    delete[] ha;
    delete[] hb;
    delete[] hc;
    return report();
}
