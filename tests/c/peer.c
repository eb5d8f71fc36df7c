/*
 * Several GPUs and peer access through libcuda.so.1 (RGDEV_PRESET=gv100x2 or larger):
 * devices by ordinal with their own PCI addresses, UUIDs and contexts; pointer
 * attributes naming the device; cuCtxEnablePeerAccess making the peer context's memory
 * reachable from a kernel (loaded as PTX text) and by cuMemcpyDtoD in the current
 * context; cuMemcpyPeer; the peer-access errors; a context destroyed while a peer
 * reaches its memory; a stream of one device waiting for another's event. On one GPU
 * it checks the single-device answers and stops.
 * Run by tests/tests/c_abi.rs:  peer
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* out[i] = in[i] + 1 (PTX for sm_70). */
static const char *PTX =
    ".version 6.4\n.target sm_70\n.address_size 64\n"
    ".visible .entry inc(.param .u64 in, .param .u64 out, .param .u32 n) {\n"
    "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<3>; .reg .b64 %rd<8>;\n"
    "  ld.param.u32 %r1, [n]; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4; setp.ge.u32 %p1, %r5, %r1; @%p1 bra DONE;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; mul.wide.u32 %rd3, %r5, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
    "  ld.global.f32 %f1, [%rd4]; add.f32 %f2, %f1, 0f3F800000; st.global.f32 [%rd5], %f2;\n"
    "DONE:\n  ret;\n}\n";

enum { N = 8192 };
static float host[N], back[N];

int main(void) {
    CHECK(cuInit(0));
    int count = 0;
    CHECK(cuDeviceGetCount(&count));
    CUdevice d0, d1;
    CHECK(cuDeviceGet(&d0, 0));
    EXPECT(cuDeviceGet(&d1, count), CUDA_ERROR_INVALID_DEVICE);
    int can = -1;
    CHECK(cuDeviceCanAccessPeer(&can, d0, d0));
    TRUE(can == 0);
    if (count < 2) {
        printf("1 device\n");
        return report();
    }
    CHECK(cuDeviceGet(&d1, 1));
    TRUE(d0 == 0 && d1 == 1);
    char b0[32], b1[32];
    CHECK(cuDeviceGetPCIBusId(b0, sizeof b0, d0));
    CHECK(cuDeviceGetPCIBusId(b1, sizeof b1, d1));
    TRUE(strcmp(b0, "0000:00:00.0") == 0 && strcmp(b1, "0000:01:00.0") == 0);
    int bus = -1;
    CHECK(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d1));
    TRUE(bus == 1);
    CUuuid u0, u1;
    CHECK(cuDeviceGetUuid(&u0, d0));
    CHECK(cuDeviceGetUuid(&u1, d1));
    TRUE(memcmp(&u0, &u1, sizeof u0) != 0);
    CHECK(cuDeviceCanAccessPeer(&can, d0, d1));
    TRUE(can == 1);
    int v = -1;
    CHECK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, d0, d1));
    TRUE(v == 1);
    EXPECT(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, d0, d0), CUDA_ERROR_INVALID_DEVICE);

    /* A context on each device; the peer's buffer before access is enabled. */
    CUcontext c0, c1;
    CHECK(cuCtxCreate(&c1, 0, d1));
    CUdevice which = -1;
    CHECK(cuCtxGetDevice(&which));
    TRUE(which == 1);
    for (int i = 0; i < N; i++)
        host[i] = (float)i * 0.25f;
    CUdeviceptr in1, out1, man;
    /* Managed memory of device 1's context, before device 0 has one: every context of
     * every GPU reaches it, those created later too. */
    CHECK(cuMemAllocManaged(&man, sizeof host, CU_MEM_ATTACH_GLOBAL));
    float *mh = (float *)(uintptr_t)man;
    for (int i = 0; i < N; i++)
        mh[i] = (float)i;
    CHECK(cuMemAlloc(&in1, sizeof host));
    CHECK(cuMemcpyHtoD(in1, host, sizeof host));
    CHECK(cuCtxCreate(&c0, 0, d0));
    int ord = -1;
    CHECK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, in1));
    TRUE(ord == 1);
    CUcontext owner = NULL;
    CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, in1));
    TRUE(owner == c1);

    EXPECT(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    EXPECT(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuCtxEnablePeerAccess(c1, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxEnablePeerAccess(c1, 0));
    EXPECT(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);

    /* Device 1 allocates after access was enabled: mapped into c0 as well. */
    CHECK(cuCtxPushCurrent(c1));
    CHECK(cuMemAlloc(&out1, sizeof host));
    CHECK(cuCtxPopCurrent(NULL));

    /* A kernel on device 0 reads and writes device 1's memory. */
    CUmodule m;
    CUfunction f;
    CHECK(cuModuleLoadData(&m, PTX));
    CHECK(cuModuleGetFunction(&f, m, "inc"));
    unsigned n = N;
    /* Device 1's managed memory, in place, from a kernel on device 0. */
    void *margs[] = {&man, &man, &n};
    CHECK(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, margs, NULL));
    CHECK(cuCtxSynchronize());
    TRUE(mh[0] == 1.0f && mh[N - 1] == (float)N);
    void *args[] = {&in1, &out1, &n};
    CHECK(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuCtxPushCurrent(c1));
    CHECK(cuMemcpyDtoH(back, out1, sizeof back));
    CHECK(cuCtxPopCurrent(NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += back[i] != host[i] + 1.0f;
    TRUE(bad == 0);

    /* A stream of device 1 waits for an event of device 0 (cuStreamWaitEvent across
     * devices): its copy of what device 0's kernel writes into device 1's memory comes
     * after the kernel. An event never recorded is no wait. */
    CUevent ev, never;
    CUstream s1;
    CHECK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&never, CU_EVENT_DISABLE_TIMING));
    CHECK(cuCtxPushCurrent(c1));
    CHECK(cuMemsetD32(out1, 0, N));
    CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CHECK(cuCtxPopCurrent(NULL));
    CHECK(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK(cuEventRecord(ev, NULL));
    CHECK(cuCtxPushCurrent(c1));
    CHECK(cuStreamWaitEvent(s1, never, 0));
    CHECK(cuStreamWaitEvent(s1, ev, 0));
    memset(back, 0, sizeof back);
    CHECK(cuMemcpyDtoHAsync(back, out1, sizeof back, s1));
    CHECK(cuStreamSynchronize(s1));
    CHECK(cuStreamDestroy(s1));
    CHECK(cuCtxPopCurrent(NULL));
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += back[i] != host[i] + 1.0f;
    TRUE(bad == 0);
    CHECK(cuEventDestroy(never));

    /* Device 0's copy engine reaches device 1's memory as any other in its context. */
    CUdeviceptr local;
    CHECK(cuMemAlloc(&local, sizeof host));
    CHECK(cuMemcpyDtoD(local, out1, sizeof host));
    memset(back, 0, sizeof back);
    CHECK(cuMemcpyDtoH(back, local, sizeof back));
    TRUE(back[N - 1] == host[N - 1] + 1.0f);
    /* cuMemcpyPeer, and cuMemcpy inferring both sides from the pointers. */
    CHECK(cuMemsetD32(local, 0, N));
    CHECK(cuMemcpyPeer(local, c0, in1, c1, sizeof host));
    CHECK(cuMemcpyDtoH(back, local, sizeof back));
    TRUE(back[7] == host[7]);
    CHECK(cuMemcpy(in1, local + 4, 16));
    CHECK(cuCtxPushCurrent(c1));
    CHECK(cuMemcpyDtoH(back, in1, 16));
    CHECK(cuCtxPopCurrent(NULL));
    TRUE(back[0] == host[1] && back[3] == host[4]);

    /* Access undone: the same kernel faults in device 0's context, device 1 goes on. */
    CHECK(cuCtxDisablePeerAccess(c1));
    CHECK(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxPushCurrent(c1));
    CHECK(cuMemcpyDtoH(back, in1, 16));
    CHECK(cuMemFree(man));
    CHECK(cuCtxPopCurrent(NULL));
    CHECK(cuCtxDestroy(c0));

    /* A context destroyed while a peer reaches its memory: the peer's mappings go first. */
    CUcontext c2;
    CHECK(cuCtxCreate(&c2, 0, d0));
    CHECK(cuCtxEnablePeerAccess(c1, 0));
    CHECK(cuCtxDestroy(c1));
    CHECK(cuCtxSetCurrent(c2));
    CUdeviceptr again;
    CHECK(cuMemAlloc(&again, 4096));
    CHECK(cuMemFree(again));
    CHECK(cuCtxDestroy(c2));
    /* An event whose context is gone is no handle to wait on. */
    CUcontext c3;
    CUstream s3;
    CHECK(cuCtxCreate(&c3, 0, d1));
    CHECK(cuStreamCreate(&s3, 0));
    EXPECT(cuStreamWaitEvent(s3, ev, 0), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuCtxDestroy(c3));
    printf("%d devices, peer access\n", count);
    return report();
}
