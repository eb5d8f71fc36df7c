// The library half of tests/cuda/rdc_main.cu: device functions and a variable the other
// file uses, and a counter it defines and this one updates.
extern __device__ unsigned int calls;

__device__ int lookup[8] = {1, 1, 2, 3, 5, 8, 13, 21};

__device__ float affine(float x, float a, float b) {
    atomicAdd(&calls, 1u);
    return a * x + b;
}

__device__ int fib(int k) { return lookup[k & 7]; }
