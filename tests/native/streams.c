/* The ABI v1.3 stream functions as native CANN programs use them: the
 * per-stream core limits, the stream configuration handle with
 * aclrtCreateStreamV2, the stream getters, aclrtStreamAbort and
 * aclrtStreamStop, and aclrtRegStreamStateCallback, with the native codes
 * of the bad calls. Prints one line per step. */
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

static void on_state(aclrtStream stm, aclrtStreamState state, void *args)
{
    (void)stm;
    (void)state;
    (void)args;
}

int main(void)
{
    uint32_t v = 0;
    printf("limit of NULL before aclrtSetDevice: %d\n", aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK(aclrtSetDevice(0));

    /* Per-stream core limits. */
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("cube cores of a new stream: %u\n", v);
    CHECK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 8));
    CHECK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("after setting 8: %u\n", v);
    printf("set 1000: %d\n", aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1000));
    printf("bad type: %d\n", aclrtSetStreamResLimit(s, (aclrtDevResLimitType)2, 1));
    CHECK(aclrtUseStreamResInCurrentThread(s));
    CHECK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("thread, stream in use: %u\n", v);
    CHECK(aclrtUnuseStreamResInCurrentThread(s));
    CHECK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("thread, none in use: %u\n", v);
    CHECK(aclrtResetStreamResLimit(s));
    CHECK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    printf("after reset: %u\n", v);

    /* The configuration handle and aclrtCreateStreamV2. */
    aclrtStreamConfigHandle *cfg = aclrtCreateStreamConfigHandle();
    if (cfg == NULL) {
        printf("aclrtCreateStreamConfigHandle: NULL\n");
        return 1;
    }
    uint32_t prio = 6, big = 8;
    size_t flag = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC;
    CHECK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    CHECK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    printf("priority 8: %d\n", aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &big, sizeof big));
    printf("priority of 2 bytes: %d\n", aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, 2));
    printf("attribute 9: %d\n", aclrtSetStreamConfigOpt(cfg, (aclrtStreamConfigAttr)9, &prio, sizeof prio));
    aclrtStream v2 = NULL;
    CHECK(aclrtCreateStreamV2(&v2, cfg));
    CHECK(aclrtDestroyStreamConfigHandle(cfg));
    uint32_t p = 0, f = 0;
    int32_t id = 0, id2 = 0;
    CHECK(aclrtStreamGetPriority(v2, &p));
    CHECK(aclrtStreamGetFlags(v2, &f));
    printf("V2 stream: priority %u, flags %#x\n", p, f);
    CHECK(aclrtStreamGetId(v2, &id));
    CHECK(aclrtStreamGetId(s, &id2));
    printf("ids distinct: %d\n", id != id2);
    printf("create NULL: %d\n", aclrtCreateStreamV2(NULL, NULL));

    /* Stop and abort: queued work is cancelled, the stream goes on. */
    void *dev = NULL;
    char host[64];
    CHECK(aclrtMalloc(&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemsetAsync(dev, sizeof host, 3, sizeof host, v2));
    CHECK(aclrtSynchronizeStream(v2));
    CHECK(aclrtStreamAbort(v2));
    CHECK(aclrtStreamStop(v2));
    CHECK(aclrtMemsetAsync(dev, sizeof host, 5, sizeof host, v2));
    CHECK(aclrtSynchronizeStream(v2));
    CHECK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("after abort and stop the stream works: %d\n", host[0] == 5 && host[63] == 5);
    printf("stop NULL: %d\n", aclrtStreamStop(NULL));
    CHECK(aclrtStreamAbort(NULL));

    /* Stream state callbacks. */
    printf("register: %d\n", aclrtRegStreamStateCallback("mine", on_state, NULL));
    printf("unregister: %d\n", aclrtRegStreamStateCallback("mine", NULL, NULL));
    printf("no name: %d\n", aclrtRegStreamStateCallback(NULL, NULL, NULL));

    CHECK(aclrtFree(dev));
    CHECK(aclrtDestroyStream(v2));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    printf("streams: OK\n");
    return 0;
}
