// Thrust with NVIDIA's CCCL (rgdev cc --cuda-path): device_vector, sort (CUB's radix
// sort kernels), copies back, against the host; then a reduction and a transform.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
#include <cstdio>
int main() {
    thrust::host_vector<int> h(1000);
    for (int i = 0; i < 1000; i++) h[i] = (i * 7919) % 1000;
    thrust::device_vector<int> d = h;
    thrust::sort(d.begin(), d.end());
    thrust::host_vector<int> r = d;
    for (int i = 0; i < 1000; i++) if (r[i] != i) { printf("bad %d %d\n", i, r[i]); return 1; }
    long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
    thrust::transform(d.begin(), d.end(), d.begin(), thrust::negate<int>());
    int first = d[0], last = d[999];
    if (sum != 999LL * 1000 / 2 || first != 0 || last != -999) {
        printf("bad reduce %lld or transform %d %d\n", sum, first, last);
        return 1;
    }
    printf("thrust: sorted 1000, sum %lld\n", sum);
    return 0;
}
