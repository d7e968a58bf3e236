/* Launches the vector add of the CANN examples (add_custom: z = x + y over
 * 8 blocks of 2048 halves) through the runtime's kernel API, as native
 * programs do: load the kernel binary by its path, get the function, build
 * and finalize an argument list of the three device pointers, launch it
 * with a configuration, and check what comes back. Then what the sandbox
 * refuses: guest-supplied binaries, names the host did not approve,
 * placeholder arguments, a pointer one element short of its extent.
 * tests/kernels_test.go runs it with --kernels cann-examples and checks
 * the output. It calls no launcher: the SDK's include path is all it needs. */
#include <acl/acl.h>
#include <stdint.h>
#include <stdio.h>

#define CHECK(call)                                                   \
    do {                                                              \
        aclError e_ = (call);                                         \
        if (e_ != ACL_SUCCESS) {                                      \
            printf("%s: %d (%s)\n", #call, e_, aclGetRecentErrMsg()); \
            return 1;                                                 \
        }                                                             \
    } while (0)

#define BLOCKS 8
#define TILE 2048
#define N (BLOCKS * TILE)

static aclFloat16 hx[N], hy[N], hz[N];

/* args makes a finalized argument list of add_custom's three pointers. */
static aclError args(aclrtFuncHandle fn, void *x, void *y, void *z, aclrtArgsHandle *out)
{
    aclrtParamHandle p;
    aclError e = aclrtKernelArgsInit(fn, out);
    if (e == ACL_SUCCESS) {
        e = aclrtKernelArgsAppend(*out, (void **)&x, sizeof(uintptr_t), &p);
    }
    if (e == ACL_SUCCESS) {
        e = aclrtKernelArgsAppend(*out, (void **)&y, sizeof(uintptr_t), &p);
    }
    if (e == ACL_SUCCESS) {
        e = aclrtKernelArgsAppend(*out, (void **)&z, sizeof(uintptr_t), &p);
    }
    if (e == ACL_SUCCESS) {
        e = aclrtKernelArgsFinalize(*out);
    }
    return e;
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    size_t bytes = N * sizeof(aclFloat16);
    void *x, *y, *z, *shortZ;
    CHECK(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&shortZ, bytes - 2, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < N; i++) {
        hx[i] = aclFloatToFloat16((float)(i % 100));
        hy[i] = aclFloatToFloat16(0.5f);
    }
    CHECK(aclrtMemcpy(x, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(y, bytes, hy, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    aclrtArgsHandle list;
    CHECK(aclrtBinaryLoadFromFile("./out/fatbin/ascendc_kernels_simple/ascendc_kernels_simple.o", NULL, &bin));
    CHECK(aclrtBinaryGetFunction(bin, "add_custom", &fn));
    CHECK(args(fn, x, y, z, &list));
    aclrtLaunchKernelAttr attr = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, .value = {.timeout = 60}};
    aclrtLaunchKernelCfg cfg = {.attrs = &attr, .numAttrs = 1};
    CHECK(aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, &cfg, list, NULL));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(hz, bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        if (aclFloat16ToFloat(hz[i]) != (float)(i % 100) + 0.5f) {
            wrong++;
        }
    }
    printf("add_custom: %d of %d wrong\n", wrong, N);

    /* What the sandbox refuses. */
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F'};
    aclrtBinHandle other;
    printf("LoadFromData: %d\n", aclrtBinaryLoadFromData(elf, sizeof elf, NULL, &other));
    printf("unapproved binary: %d\n", aclrtBinaryLoadFromFile("./kernel.o", NULL, &other));
    printf("kernel of another binary: %d\n", aclrtBinaryGetFunction(bin, "WriteDo", &fn));
    aclrtArgsHandle ph;
    aclrtParamHandle p;
    CHECK(aclrtKernelArgsInit(fn, &ph));
    printf("placeholder: %d\n", aclrtKernelArgsAppendPlaceHolder(ph, &p));
    CHECK(args(fn, x, y, shortZ, &list));
    printf("one element short: %d\n", aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, NULL, list, NULL));
    printf("blockDim 0: %d\n", aclrtLaunchKernelWithConfig(fn, 0, stream, NULL, list, NULL));
    CHECK(aclrtBinaryUnLoad(bin));
    printf("after unload: %d\n", aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, NULL, list, NULL));

    CHECK(aclrtFree(x));
    CHECK(aclrtFree(y));
    CHECK(aclrtFree(z));
    CHECK(aclrtFree(shortZ));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("done\n");
    return 0;
}
