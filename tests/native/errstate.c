/* The ABI v1.2 error state and resource queries as native CANN programs
 * use them, and aclInit with a configuration path: aclrtGetLastError,
 * aclrtPeekAtLastError, aclrtGetErrorVerbose, aclrtCtxGetCurrentDefaultStream,
 * aclrtGetResInCurrentThread, aclrtGetDeviceResLimit, aclrtSetDeviceResLimit
 * and aclrtGetStreamAvailableNum, with the native codes of the bad calls.
 * Argument 1, when given, is aclInit's path (default "./acl.json").
 * Prints one line per step. */
#include <acl/acl.h>
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

int main(int argc, char **argv)
{
    const char *config = argc > 1 ? argv[1] : "./acl.json";
    aclError ret = aclInit(config);
    printf("aclInit(%s): %d\n", config, ret);
    if (ret != ACL_SUCCESS) {
        return 1;
    }

    /* The last error: runtime failures set it; peeking keeps it, reading
     * clears it; ACL-layer failures leave it. */
    printf("last error at start: %d\n", aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    aclrtStream none = NULL;
    printf("default stream without a context: %d\n", aclrtCtxGetCurrentDefaultStream(&none));
    printf("peek: %d\n", aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    printf("peek again: %d\n", aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    printf("get: %d\n", aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    printf("get again: %d\n", aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    printf("bad level: %d\n", aclrtGetLastError((aclrtLastErrLevel)1));
    CHECK(aclrtSetDevice(0));
    aclrtStream s;
    CHECK(aclrtCreateStream(&s));
    void *dev;
    CHECK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    unsigned char host[128];
    printf("copy past the allocation: %d\n", aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("NULL out (ACL layer): %d\n", aclrtGetStreamAvailableNum(NULL));
    printf("last error kept: %d\n", aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    printf("get: %d\n", aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    printf("after get: %d\n", aclrtGetLastError(ACL_RT_THREAD_LEVEL));

    /* aclrtGetErrorVerbose: never another session's fault. */
    aclrtErrorInfo info;
    memset(&info, 0xff, sizeof info);
    CHECK(aclrtGetErrorVerbose(0, &info));
    printf("error info: sizeof %zu tryRepair %d hasDetail %d errorType %d aicoreErrType %d\n", sizeof info,
           info.tryRepair, info.hasDetail, (int)info.errorType, (int)info.detail.aicoreErrType);
    printf("error info NULL: %d\n", aclrtGetErrorVerbose(0, NULL));

    /* The current context's default stream is NULL, as a guest names it. */
    aclrtStream def = s;
    CHECK(aclrtCtxGetCurrentDefaultStream(&def));
    printf("default stream: %s\n", def == NULL ? "NULL" : "not NULL");
    printf("default stream NULL out: %d\n", aclrtCtxGetCurrentDefaultStream(NULL));

    /* Core limits. */
    uint32_t cube = 0, vector = 0, v = 0;
    CHECK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube));
    CHECK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &vector));
    printf("cores: cube %u vector %u\n", cube, vector);
    CHECK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("device limit cube: %u\n", v);
    CHECK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 8));
    CHECK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube));
    printf("after set 8: device %u thread %u\n", v, cube);
    printf("set above the device's: %d\n", aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, vector + 1));
    printf("bad type: %d\n", aclrtGetDeviceResLimit(0, (aclrtDevResLimitType)7, &v));
    printf("device never set: %d\n", aclrtGetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("negative device: %d\n", aclrtSetDeviceResLimit(-1, ACL_RT_DEV_RES_CUBE_CORE, 1));
    printf("thread bad type: %d\n", aclrtGetResInCurrentThread(5, &v));

    /* Streams left: one fewer per created stream. */
    uint32_t n0 = 0, n1 = 0;
    CHECK(aclrtGetStreamAvailableNum(&n0));
    aclrtStream t;
    CHECK(aclrtCreateStream(&t));
    CHECK(aclrtGetStreamAvailableNum(&n1));
    printf("streams available: one fewer %d\n", n1 + 1 == n0);
    CHECK(aclrtDestroyStream(t));
    CHECK(aclrtGetStreamAvailableNum(&n1));
    printf("streams available: back %d\n", n1 == n0);

    CHECK(aclrtFree(dev));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("errstate: OK\n");
    return 0;
}
