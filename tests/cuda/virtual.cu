// C++ virtual functions and function pointers in device code, against the host: a class
// hierarchy whose objects are made on the device (placement new in a thread's buffer, and
// new/delete on the device heap), virtual calls that diverge across a warp, a virtual
// function calling other virtual functions, a virtual destructor, a table of function
// pointers initialized at compile time, a pointer read by the host with
// cudaMemcpyFromSymbol and passed back as a kernel argument, a pointer compared with
// a function's address; and variables initialized with variables' addresses.
#include <new>

#include "check.cuh"

struct Shape {
    float size;
    __device__ explicit Shape(float s) : size(s) {}
    __device__ virtual ~Shape() {}
    __device__ virtual float area() const = 0;
    __device__ virtual int corners() const { return 0; }
    // Calls two virtual functions of the object.
    __device__ virtual float score() const { return area() + corners(); }
};

struct Square : Shape {
    __device__ explicit Square(float s) : Shape(s) {}
    __device__ float area() const override { return size * size; }
    __device__ int corners() const override { return 4; }
};

struct Triangle : Shape {
    __device__ explicit Triangle(float s) : Shape(s) {}
    __device__ float area() const override { return 0.5f * size * size; }
    __device__ int corners() const override { return 3; }
    __device__ float score() const override { return 10.0f + Shape::score(); }
};

struct Circle : Shape {
    int *destroyed;
    __device__ Circle(float s, int *d) : Shape(s), destroyed(d) {}
    __device__ ~Circle() override { atomicAdd(destroyed, 1); }
    __device__ float area() const override { return 3.0f * size * size; }
};

typedef int (*binop)(int, int);
__device__ int add(int a, int b) { return a + b; }
__device__ int sub(int a, int b) { return a - b; }
__device__ int mul(int a, int b) { return a * b; }
__device__ binop table[3] = {add, sub, mul};
__device__ binop chosen = mul;

// Variables initialized with other variables' addresses (clang writes `generic(x)+8`).
__device__ int values[4] = {10, 20, 30, 40};
__device__ int *third = &values[2];
__device__ const char *names[] = {"alpha", "beta"};
__constant__ float cdata[2] = {1.5f, 2.5f};
__device__ const float *cptr = &cdata[1];
struct Node {
    int v;
    Node *next;
};
__device__ Node n3 = {3, nullptr};
__device__ Node n2 = {2, &n3};
__device__ Node n1 = {1, &n2};

__global__ void tables(int *o) {
    o[0] = *third;
    o[1] = names[1][0] + names[0][4];
    o[2] = (int)(*cptr * 10);
    int s = 0;
    for (Node *n = &n1; n; n = n->next) s = s * 10 + n->v;
    o[3] = s;
    values[2] = 33; // through the pointer next
    o[4] = *third;
}

__global__ void shapes(float *area, int *corners, float *score, int *destroyed) {
    int t = threadIdx.x;
    alignas(16) char buf[64];
    Shape *s;
    switch (t % 3) {
    case 0: s = new (buf) Square(t); break;
    case 1: s = new (buf) Triangle(t); break;
    default: s = new Circle(t, destroyed); break;
    }
    area[t] = s->area();
    corners[t] = s->corners();
    score[t] = s->score();
    if (t % 3 == 2)
        delete s;
    else
        s->~Shape();
}

__global__ void pointers(int *out, binop from_host) {
    int t = threadIdx.x;
    binop f = table[t % 3];
    out[4 * t] = f(t, 5);
    out[4 * t + 1] = from_host(t, 3);
    out[4 * t + 2] = f == add;
    out[4 * t + 3] = table[(t + 1) % 3](table[t % 3](t, 2), 7);
}

int main() {
    const int n = 96;
    float *area, *score;
    int *corners, *destroyed, *out;
    CHECK(cudaMallocManaged(&area, n * sizeof(float)));
    CHECK(cudaMallocManaged(&score, n * sizeof(float)));
    CHECK(cudaMallocManaged(&corners, n * sizeof(int)));
    CHECK(cudaMallocManaged(&destroyed, sizeof(int)));
    CHECK(cudaMallocManaged(&out, 4 * n * sizeof(int)));
    *destroyed = 0;
    shapes<<<1, n>>>(area, corners, score, destroyed);
    CHECK(cudaDeviceSynchronize());
    for (int t = 0; t < n; t++) {
        float s = (float)t, a = t % 3 == 0 ? s * s : t % 3 == 1 ? 0.5f * s * s : 3.0f * s * s;
        int c = t % 3 == 0 ? 4 : t % 3 == 1 ? 3 : 0;
        float sc = (t % 3 == 1 ? 10.0f : 0.0f) + (a + c);
        TRUE(area[t] == a && corners[t] == c && score[t] == sc);
    }
    TRUE(*destroyed == n / 3);

    binop h;
    CHECK(cudaMemcpyFromSymbol(&h, chosen, sizeof(h)));
    pointers<<<1, n>>>(out, h);
    CHECK(cudaDeviceSynchronize());
    auto op = [](int k, int a, int b) { return k == 0 ? a + b : k == 1 ? a - b : a * b; };
    for (int t = 0; t < n; t++) {
        TRUE(out[4 * t] == op(t % 3, t, 5));
        TRUE(out[4 * t + 1] == t * 3);
        TRUE(out[4 * t + 2] == (t % 3 == 0));
        TRUE(out[4 * t + 3] == op((t + 1) % 3, op(t % 3, t, 2), 7));
    }
    tables<<<1, 1>>>(out);
    CHECK(cudaDeviceSynchronize());
    TRUE(out[0] == 30 && out[1] == 'b' + 'a' && out[2] == 25 && out[3] == 123 && out[4] == 33);

    if (failures == 0) printf("virtual: %d objects of 3 classes, 4 kinds of pointer calls\n", n);
    return report();
}
