/*
 * The device linker through libcuda.so.1: a kernel calling a function and reading a
 * variable defined in another PTX module (one added from memory, one from a file), each
 * module with its own helper of the same name, the linked image loaded and run against a
 * CPU reference; the JIT logs; and CUDA's errors for undefined and multiply defined
 * symbols, bad PTX, binary inputs and stale states.
 * Run by tests/tests/c_abi.rs:  link
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define HEAD ".version 7.0\n.target sm_70\n.address_size 64\n"

/* out[i] = helper(scale(i)) + factor, with the main module's helper (x + 1). */
static const char *MAIN_PTX =
    HEAD
    ".extern .func (.param .b32 r) scale(.param .b32 x);\n"
    ".extern .global .align 4 .u32 factor;\n"
    ".func (.param .b32 r) helper(.param .b32 x)\n{\n .reg .b32 %r<3>;\n"
    " ld.param.b32 %r1, [x];\n add.u32 %r2, %r1, 1;\n st.param.b32 [r], %r2;\n ret;\n}\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    " .reg .pred %p;\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [out];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n"
    " mad.lo.u32 %r2, %r3, %r4, %r2;\n setp.ge.u32 %p, %r2, %r1;\n @%p bra DONE;\n"
    " {\n .param .b32 a;\n .param .b32 r;\n st.param.b32 [a], %r2;\n"
    " call.uni (r), scale, (a);\n ld.param.b32 %r5, [r];\n }\n"
    " {\n .param .b32 a;\n .param .b32 r;\n st.param.b32 [a], %r5;\n"
    " call.uni (r), helper, (a);\n ld.param.b32 %r6, [r];\n }\n"
    " ld.global.u32 %r7, [factor];\n add.u32 %r6, %r6, %r7;\n"
    " mul.wide.u32 %rd2, %r2, 4;\n add.u64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r6;\n"
    "DONE:\n ret;\n}\n";

/* scale(x) = helper(x), with this module's helper (10 x); factor starts at 3. */
static const char *LIB_PTX =
    HEAD
    ".visible .global .align 4 .u32 factor = 3;\n"
    ".func (.param .b32 r) helper(.param .b32 x)\n{\n .reg .b32 %r<3>;\n"
    " ld.param.b32 %r1, [x];\n mul.lo.u32 %r2, %r1, 10;\n st.param.b32 [r], %r2;\n ret;\n}\n"
    ".visible .func (.param .b32 r) scale(.param .b32 x)\n{\n .reg .b32 %r<3>;\n"
    " ld.param.b32 %r1, [x];\n {\n .param .b32 a;\n .param .b32 q;\n st.param.b32 [a], %r1;\n"
    " call.uni (q), helper, (a);\n ld.param.b32 %r2, [q];\n }\n st.param.b32 [r], %r2;\n ret;\n}\n";

static char err_log[4096], info_log[4096];

/* A link state whose logs go to err_log and info_log. */
static CUlinkState create(CUjit_option *opts, void **vals) {
    opts[0] = CU_JIT_ERROR_LOG_BUFFER;
    vals[0] = err_log;
    opts[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    vals[1] = (void *)(size_t)sizeof err_log;
    opts[2] = CU_JIT_INFO_LOG_BUFFER;
    vals[2] = info_log;
    opts[3] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
    vals[3] = (void *)(size_t)sizeof info_log;
    err_log[0] = info_log[0] = 0;
    CUlinkState s;
    CHECK(cuLinkCreate(4, opts, vals, &s));
    return s;
}

static CUresult add_ptx(CUlinkState s, const char *ptx, const char *name) {
    return cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, name, 0, NULL, NULL);
}

int main(void) {
    CUcontext ctx = init_context();

    /* Alone, the main module does not load: its callee is only declared. */
    CUmodule alone;
    EXPECT(cuModuleLoadData(&alone, MAIN_PTX), CUDA_ERROR_INVALID_PTX);

    char path[] = "/tmp/rgdev-link-XXXXXX";
    int fd = mkstemp(path);
    TRUE(fd >= 0 && write(fd, LIB_PTX, strlen(LIB_PTX)) == (ssize_t)strlen(LIB_PTX));
    close(fd);

    CUjit_option opts[4];
    void *vals[4];
    CUlinkState s = create(opts, vals);
    CHECK(add_ptx(s, MAIN_PTX, "main.ptx"));
    CHECK(cuLinkAddFile(s, CU_JIT_INPUT_PTX, path, 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    CHECK(cuLinkComplete(s, &image, &size));
    TRUE(image != NULL && size > 0);
    TRUE(strstr(info_log, "Function properties for k") != NULL);
    TRUE((size_t)vals[3] == strlen(info_log));
    CUmodule m;
    CUfunction k;
    CHECK(cuModuleLoadData(&m, image));
    CHECK(cuLinkDestroy(s)); /* the module keeps what it loaded */
    EXPECT(cuLinkDestroy(s), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuModuleGetFunction(&k, m, "k"));
    CUdeviceptr factor;
    size_t fbytes = 0;
    CHECK(cuModuleGetGlobal(&factor, &fbytes, m, "factor"));
    unsigned three = 0, five = 5;
    CHECK(cuMemcpyDtoH(&three, factor, 4));
    TRUE(fbytes == 4 && three == 3);
    CHECK(cuMemcpyHtoD(factor, &five, 4));

    const unsigned n = 1000;
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, n * 4));
    void *params[] = {&out, (void *)&n};
    CHECK(cuLaunchKernel(k, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    unsigned *got = malloc(n * 4);
    CHECK(cuMemcpyDtoH(got, out, n * 4));
    int ok = 1;
    for (unsigned i = 0; i < n; i++) ok &= got[i] == 10 * i + 1 + 5;
    TRUE(ok);

    /* Errors, each with its log. */
    s = create(opts, vals);
    CHECK(add_ptx(s, MAIN_PTX, "main.ptx"));
    EXPECT(cuLinkComplete(s, &image, &size), CUDA_ERROR_INVALID_IMAGE);
    TRUE(strstr(err_log, "main.ptx") && strstr(err_log, "undefined reference to `factor`"));
    CHECK(add_ptx(s, LIB_PTX, "lib1.ptx"));
    CHECK(add_ptx(s, LIB_PTX, "lib2.ptx"));
    EXPECT(cuLinkComplete(s, &image, &size), CUDA_ERROR_INVALID_IMAGE);
    TRUE(strstr(err_log, "multiple definitions of") != NULL);
    EXPECT(add_ptx(s, ".version 7.0\n.target sm_70\nbogus", "bad.ptx"), CUDA_ERROR_INVALID_PTX);
    TRUE(strstr(err_log, "bad.ptx") != NULL);
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_CUBIN, (void *)elf, sizeof elf, "k.cubin", 0, NULL, NULL),
           CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT(cuLinkAddData(s, (CUjitInputType)9, (void *)LIB_PTX, strlen(LIB_PTX), "x", 0, NULL, NULL),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLinkAddFile(s, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL), CUDA_ERROR_FILE_NOT_FOUND);
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_NVVM, (void *)LIB_PTX, strlen(LIB_PTX), "x.bc", 0, NULL, NULL),
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuLinkComplete(s, NULL, &size), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuLinkDestroy(s));
    EXPECT(cuLinkComplete(s, &image, &size), CUDA_ERROR_INVALID_HANDLE);

    unlink(path);
    free(got);
    CHECK(cuCtxDestroy(ctx));
    return report();
}
