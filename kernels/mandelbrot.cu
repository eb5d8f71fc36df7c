extern "C" __global__ void mandelbrot(unsigned *iters, int w, int h, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cx = -2.0f + 3.0f * px / w, cy = -1.25f + 2.5f * py / h;
    float x = 0.0f, y = 0.0f;
    int k = 0;
    while (k < max_iter && x * x + y * y <= 4.0f) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        ++k;
    }
    iters[py * w + px] = k;
}
