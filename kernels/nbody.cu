// One step of an all-pairs gravitational n-body simulation in double precision.
struct Body { double x, y, z, m; };
extern "C" __global__ void nbody_step(const Body *in, Body *out, double *vel, int n, double dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Body b = in[i];
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) {
        Body o = in[j];
        double dx = o.x - b.x, dy = o.y - b.y, dz = o.z - b.z;
        double d2 = dx * dx + dy * dy + dz * dz + 1e-3;
        double inv = 1.0 / (d2 * sqrt(d2));
        ax += o.m * dx * inv;
        ay += o.m * dy * inv;
        az += o.m * dz * inv;
    }
    double vx = vel[3 * i] + ax * dt, vy = vel[3 * i + 1] + ay * dt, vz = vel[3 * i + 2] + az * dt;
    vel[3 * i] = vx; vel[3 * i + 1] = vy; vel[3 * i + 2] = vz;
    out[i].x = b.x + vx * dt; out[i].y = b.y + vy * dt; out[i].z = b.z + vz * dt; out[i].m = b.m;
}
