/* Saturation mode and overflow status as native CANN programs use them
 * (the overflow checks of training loops): the chip's mode, an operator
 * whose float32 result is out of range, the status read with
 * aclrtGetOverflowStatus into device memory and copied back, its reset,
 * saturation mode, the stream overflow switch, and the native codes of the
 * bad calls. Prints one line per step. */
#include <acl/acl.h>
#include <aclnnop/aclnn_add.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                      \
    do {                                                                 \
        aclError e_ = (call);                                            \
        if (e_ != ACL_SUCCESS) {                                         \
            printf("%s: %d (%s)\n", #call, e_, aclGetRecentErrMsg());    \
            return 1;                                                    \
        }                                                                \
    } while (0)

/* status reads the overflow status through device memory: its first
 * 32-bit word, -1 when another of its 64 bytes is not zero. */
static int status(aclrtStream s, void *dev)
{
    unsigned char host[64];
    if (aclrtGetOverflowStatus(dev, sizeof host, s) != ACL_SUCCESS || aclrtSynchronizeStream(s) != ACL_SUCCESS ||
        aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        return -2;
    for (size_t i = 4; i < sizeof host; i++)
        if (host[i] != 0)
            return -1;
    uint32_t w;
    memcpy(&w, host, 4);
    return (int)w;
}

/* add computes a + b on the device with aclnnAdd on stream s. */
static int add(aclrtStream s, float a, float b, float *out)
{
    int64_t shape[1] = {1}, strides[1] = {1};
    float in[2] = {a, b};
    void *dev = NULL;
    CHECK(aclrtMalloc(&dev, 3 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dev, 2 * sizeof(float), in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE));
    char *p = (char *)dev;
    aclTensor *x = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, p);
    aclTensor *y = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, p + 4);
    aclTensor *z = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, p + 8);
    float one = 1;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnAddGetWorkspaceSize(x, y, alpha, z, &ws, &ex));
    CHECK(aclnnAdd(NULL, 0, ex, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(out, sizeof *out, p + 8, sizeof *out, ACL_MEMCPY_DEVICE_TO_HOST));
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(z);
    aclDestroyScalar(alpha);
    CHECK(aclrtFree(dev));
    return 0;
}

int main(void)
{
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    CHECK(aclrtGetDeviceSatMode(&mode));
    printf("starting mode: %d\n", (int)mode);
    printf("mode NULL: %d\n", aclrtGetDeviceSatMode(NULL));
    printf("mode 2: %d\n", aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF));
    printf("status before aclrtSetDevice: %d\n", aclrtGetOverflowStatus((void *)64, 64, NULL));
    CHECK(aclrtSetDevice(0));

    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *st = NULL;
    CHECK(aclrtMalloc(&st, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    printf("size 8: %d\n", aclrtGetOverflowStatus(st, 8, s));
    printf("NULL output: %d\n", aclrtGetOverflowStatus(NULL, 64, s));
    printf("no compute: %d\n", status(s, st));

    float r = 0;
    if (add(s, 1, 2, &r) != 0)
        return 1;
    printf("1 + 2 = %g, status %d\n", r, status(s, st));
    if (add(s, FLT_MAX, FLT_MAX, &r) != 0)
        return 1;
    printf("max + max is inf: %d, status %d\n", isinf(r) && r > 0, status(s, st));
    CHECK(aclrtResetOverflowStatus(s));
    CHECK(aclrtSynchronizeStream(s));
    printf("after reset: %d\n", status(s, st));

    CHECK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    CHECK(aclrtGetDeviceSatMode(&mode));
    printf("mode: %d\n", (int)mode);
    if (add(s, FLT_MAX, FLT_MAX, &r) != 0)
        return 1;
    printf("saturated: %d, status %d\n", r == FLT_MAX, status(s, st));
    CHECK(aclrtResetOverflowStatus(NULL));
    CHECK(aclrtSynchronizeDevice());
    printf("after reset on the default stream: %d\n", status(NULL, st));

    uint32_t sw = 9;
    CHECK(aclrtGetStreamOverflowSwitch(s, &sw));
    printf("switch: %u\n", sw);
    CHECK(aclrtSetStreamOverflowSwitch(s, 1));
    CHECK(aclrtGetStreamOverflowSwitch(s, &sw));
    printf("switch on: %u\n", sw);
    printf("switch 2: %d\n", aclrtSetStreamOverflowSwitch(s, 2));
    printf("switch NULL: %d\n", aclrtGetStreamOverflowSwitch(s, NULL));

    CHECK(aclrtFree(st));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    printf("overflow: OK\n");
    return 0;
}
