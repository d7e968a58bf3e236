/*
 * native_api.c: native-style code (as CANN programs write it) that must
 * compile unchanged against the SDK's default profile, the native layout
 * (module "acl32"), as C and as C++. scripts/build-guests.sh compiles it
 * both ways with -Wall -Wextra -Werror; it calls every function of the
 * native API the SDK declares, with the native argument types.
 */
#include <stdio.h>
#include <string.h>
#include <acl/acl.h>
#include <acl/ops/acl_dvpp.h>
#include <acl/acl_rt_allocator.h>
#include <dlfcn.h>
#include <pthread.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        aclError ret_ = (call);                                                \
        if (ret_ != ACL_SUCCESS) {                                             \
            printf("%s: %d %s\n", #call, ret_, aclGetRecentErrMsg());          \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main(void)
{
    int32_t major = 0, minor = 0, patch = 0, dev = 0, can = 0;
    uint32_t count = 0;
    size_t freeMem = 0, total = 0, descSize = 0, failIndex = 0;
    void *devPtr = NULL, *devPtr2 = NULL, *hostPtr = NULL, *registered = NULL;
    aclrtStream stream = NULL;
    aclrtEvent start = NULL, end = NULL;
    aclrtStreamStatus sst;
    aclrtEventRecordedStatus est;
    aclrtPtrAttributes attrs;
    float ms = 0;
    char host[256];

    CHECK(aclInit(NULL));
    {
        uint64_t actual = 0, interval = 0;
        uint32_t timeoutMs = 0;
        CHECK(aclrtSetOpWaitTimeout(10));
        CHECK(aclrtSetOpExecuteTimeOut(10));
        CHECK(aclrtSetOpExecuteTimeOutV2(10000000, &actual));
        CHECK(aclrtGetOpExecuteTimeout(&timeoutMs));
        CHECK(aclrtGetOpTimeOutInterval(&interval));
        ACL_APP_LOG(ACL_INFO, "op timeout %u ms, interval %llu us", timeoutMs, (unsigned long long)interval);
        ACL_APP_LOG(ACL_DEBUG, "no arguments");
    }
    CHECK(aclrtGetVersion(&major, &minor, &patch));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtGetDevice(&dev));
    CHECK(aclrtGetDeviceCount(&count));
    CHECK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK(aclrtDeviceDisablePeerAccess(1));
    CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &freeMem, &total));
    CHECK(aclrtMalloc(&devPtr, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMallocAlign32(&devPtr2, sizeof host, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMallocHost(&hostPtr, sizeof host));
    CHECK(aclrtHostRegister(host, sizeof host, ACL_HOST_REGISTER_MAPPED, &registered));
    CHECK(aclrtPointerGetAttributes(devPtr, &attrs));
    CHECK(aclrtCreateStream(&stream));
    {
        aclrtContext ctx = NULL, cur = NULL;
        aclrtRunMode mode;
        aclrtStream configured = NULL;
        CHECK(aclrtGetRunMode(&mode));
        CHECK(aclrtCreateContext(&ctx, 0));
        CHECK(aclrtSetCurrentContext(ctx));
        CHECK(aclrtGetCurrentContext(&cur));
        CHECK(aclrtCreateStreamWithConfig(&configured, 0, ACL_STREAM_FAST_LAUNCH));
        CHECK(aclrtSetStreamFailureMode(configured, ACL_STOP_ON_FAILURE));
        CHECK(aclrtDestroyStreamForce(configured));
        CHECK(aclrtDestroyContext(ctx));
    }
    {
        /* ABI v1.3 section 15: per-stream core limits, configured streams, getters. */
        aclrtStreamConfigHandle *cfg = aclrtCreateStreamConfigHandle();
        uint32_t prio = 3, limit = 0;
        size_t flag = ACL_STREAM_FAST_LAUNCH;
        int32_t id = 0;
        aclrtStream v2 = NULL;
        CHECK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
        CHECK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
        CHECK(aclrtCreateStreamV2(&v2, cfg));
        CHECK(aclrtDestroyStreamConfigHandle(cfg));
        CHECK(aclrtStreamGetPriority(v2, &prio));
        CHECK(aclrtStreamGetFlags(v2, &prio));
        CHECK(aclrtStreamGetId(v2, &id));
        CHECK(aclrtSetStreamResLimit(v2, ACL_RT_DEV_RES_CUBE_CORE, 4));
        CHECK(aclrtGetStreamResLimit(v2, ACL_RT_DEV_RES_CUBE_CORE, &limit));
        CHECK(aclrtUseStreamResInCurrentThread(v2));
        CHECK(aclrtUnuseStreamResInCurrentThread(v2));
        CHECK(aclrtResetStreamResLimit(v2));
        CHECK(aclrtStreamStop(v2));
        CHECK(aclrtStreamAbort(v2));
        CHECK(aclrtRegStreamStateCallback("mine", (aclrtStreamStateCallback)NULL, NULL));
        {
            aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
            aclrtAllocatorDesc got = NULL;
            CHECK(aclrtAllocatorSetObjToDesc(desc, desc));
            CHECK(aclrtAllocatorSetAllocFuncToDesc(desc, (aclrtAllocatorAllocFunc)NULL));
            CHECK(aclrtAllocatorSetFreeFuncToDesc(desc, (aclrtAllocatorFreeFunc)NULL));
            CHECK(aclrtAllocatorSetAllocAdviseFuncToDesc(desc, (aclrtAllocatorAllocAdviseFunc)NULL));
            CHECK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, (aclrtAllocatorGetAddrFromBlockFunc)NULL));
            CHECK(aclrtAllocatorRegister(v2, desc));
            CHECK(aclrtAllocatorGetByStream(v2, &got, NULL, NULL, NULL, NULL, NULL));
            CHECK(aclrtAllocatorUnregister(v2));
            CHECK(aclrtAllocatorDestroyDesc(desc));
        }
        CHECK(aclrtDestroyStream(v2));
    }
    CHECK(aclrtCreateEvent(&start));
    CHECK(aclrtCreateEvent(&end));
    CHECK(aclrtRecordEvent(start, stream));
    CHECK(aclrtMemcpy(devPtr, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpyAsync(devPtr2, sizeof host, devPtr, sizeof host, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
    CHECK(aclrtMemcpyAsyncWithCondition(hostPtr, sizeof host, devPtr2, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK(aclrtMemcpy2d(devPtr, 16, host, 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy2dAsync(devPtr2, 16, devPtr, 16, 16, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
    CHECK(aclrtMemset(devPtr, sizeof host, 0, sizeof host));
    CHECK(aclrtMemsetAsync(devPtr, sizeof host, 0, sizeof host, stream));
    CHECK(aclrtMemsetD32(devPtr, sizeof host, 0xDEADBEEFu, sizeof host / 4));
    CHECK(aclrtMemsetD32Async(devPtr, sizeof host, 0xDEADBEEFu, sizeof host / 4, stream));
    {
        void *dsts[1] = {host};
        void *srcs[1] = {devPtr};
        size_t destMaxs[1] = {sizeof host}, sizes[1] = {sizeof host}, attrsIndexes[1] = {0};
        aclrtMemcpyBatchAttr battr;
        memset(&battr, 0, sizeof battr);
        battr.dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
        battr.srcLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        CHECK(aclrtMemcpyBatch(dsts, destMaxs, srcs, sizes, 1, &battr, attrsIndexes, 1, &failIndex));
        CHECK(aclrtMemcpyBatchAsync(dsts, destMaxs, srcs, sizes, 1, &battr, attrsIndexes, 1, &failIndex, stream));
        CHECK(aclrtMemcpyBatchV2(dsts, destMaxs, srcs, sizes, 1, &battr, attrsIndexes, 1));
        CHECK(aclrtMemcpyBatchAsyncV2(dsts, destMaxs, srcs, sizes, 1, &battr, attrsIndexes, 1, stream));
    }
    CHECK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &descSize));
    CHECK(aclrtSetMemcpyDesc(devPtr, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (char *)devPtr2 + 64, (char *)devPtr2 + 128, 16, NULL));
    CHECK(aclrtMemcpyAsyncWithDesc(devPtr, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, stream));
    CHECK(aclrtMemcpyAsyncWithOffset((void **)devPtr, 64, 0, (const void **)devPtr2, 16, 0,
                                     ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, stream));
    CHECK(aclrtRecordEvent(end, stream));
    CHECK(aclrtStreamWaitEvent(stream, end));
    CHECK(aclrtSynchronizeEvent(end));
    CHECK(aclrtResetEvent(end, stream));
    CHECK(aclrtQueryEventStatus(end, &est));
    CHECK(aclrtEventElapsedTime(&ms, start, end));
    CHECK(aclrtStreamQuery(stream, &sst));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtSynchronizeStreamWithTimeout(stream, -1));
    CHECK(aclrtSynchronizeDevice());
    CHECK(aclrtSynchronizeDeviceWithTimeout(-1));
    {
        void *list[2] = {devPtr, devPtr2};
        uint32_t match = 0;
        CHECK(aclrtCheckMemType(list, 2, ACL_RT_MEM_TYPE_DEV, &match, 0));
        aclDataBuffer *buf = aclCreateDataBuffer(devPtr, sizeof host);
        if (buf == NULL || aclGetDataBufferAddr(buf) != devPtr || aclGetDataBufferSizeV2(buf) != sizeof host) {
            return 1;
        }
        CHECK(aclUpdateDataBuffer(buf, devPtr2, 1));
        CHECK(aclDestroyDataBuffer(buf));
    }
    {
        /* The SDK functions of acl_base.h and acl.h, acl_dvpp.h, and the
           single-threaded pthread.h and dlfcn.h. */
        void *pic = NULL;
        CHECK(acldvppMalloc(&pic, 1000));
        CHECK(acldvppFree(pic));
        aclCANNPackageVersion ver;
        char pkg[] = "runtime", str[ACL_PKG_VERSION_MAX_SIZE];
        int32_t num = 0;
        CHECK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &ver));
        CHECK(aclsysGetVersionStr(pkg, str));
        CHECK(aclsysGetVersionNum(pkg, &num));
        aclFloat16 h = aclFloatToFloat16(1.5f);
        if (aclFloat16ToFloat(h) != 1.5f || aclDataTypeSize(ACL_FLOAT16) != sizeof h) {
            return 1;
        }
        static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
        if (pthread_mutex_lock(&mu) != 0 || pthread_mutex_unlock(&mu) != 0 || dlopen("x.so", RTLD_NOW) != NULL ||
            dlerror() == NULL) {
            return 1;
        }
    }
    printf("%p %p %p\n", devPtr, hostPtr, (void *)stream);
    CHECK(aclrtDestroyEvent(start));
    CHECK(aclrtDestroyEvent(end));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtHostUnregister(host));
    CHECK(aclrtFreeHost(hostPtr));
    CHECK(aclrtFreeWithDevSync(devPtr2));
    CHECK(aclrtFree(devPtr));
    CHECK(aclrtResetDevice(0));
    CHECK(aclrtResetDeviceForce(1));
    CHECK(aclFinalize());
    return 0;
}
