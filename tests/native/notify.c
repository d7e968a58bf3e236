/* Notifies as native CANN programs use them: create, id, record on one
 * stream, wait-and-reset on another, a wait that times out, destroy, and
 * the native codes of the bad calls. Prints one line per step. */
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

int main(void)
{
    aclrtNotify n = NULL;
    CHECK(aclInit(NULL));
    printf("create before aclrtSetDevice: %d\n", aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    CHECK(aclrtSetDevice(0));
    aclrtStream producer, consumer;
    CHECK(aclrtCreateStream(&producer));
    CHECK(aclrtCreateStream(&consumer));
    void *a, *b;
    CHECK(aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&b, 4096, ACL_MEM_MALLOC_HUGE_FIRST));

    printf("create NULL: %d\n", aclrtCreateNotify(NULL, ACL_NOTIFY_DEFAULT));
    printf("create flag 2: %d\n", aclrtCreateNotify(&n, 2));
    CHECK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    aclrtNotify dev = NULL;
    CHECK(aclrtCreateNotify(&dev, ACL_NOTIFY_DEVICE_USE_ONLY));
    uint32_t id1 = 0, id2 = 0;
    CHECK(aclrtGetNotifyId(n, &id1));
    CHECK(aclrtGetNotifyId(dev, &id2));
    printf("ids: nonzero %d, distinct %d\n", id1 != 0 && id2 != 0, id1 != id2);
    printf("id NULL out: %d\n", aclrtGetNotifyId(n, NULL));
    printf("id NULL notify: %d\n", aclrtGetNotifyId(NULL, &id1));

    /* The consumer waits before the producer records: the wait holds its
     * stream until the record runs. */
    CHECK(aclrtWaitAndResetNotify(n, consumer, 0));
    CHECK(aclrtMemcpyAsync(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, consumer));
    CHECK(aclrtMemsetAsync(a, 4096, 0x5a, 4096, producer));
    CHECK(aclrtRecordNotify(n, producer));
    CHECK(aclrtSynchronizeStream(consumer));
    unsigned char got[4];
    CHECK(aclrtMemcpy(got, sizeof got, b, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("ordered copy: %02x%02x%02x%02x\n", got[0], got[1], got[2], got[3]);

    /* The wait reset the notify: a second wait with a limit times out, and
     * the stream reports it at its synchronize, then goes on. */
    CHECK(aclrtWaitAndResetNotify(n, consumer, 20));
    printf("timed-out wait, synchronize: %d\n", aclrtSynchronizeStream(consumer));
    CHECK(aclrtMemsetAsync(b, 4096, 0x11, 4096, consumer));
    CHECK(aclrtSynchronizeStream(consumer));
    CHECK(aclrtMemcpy(got, sizeof got, b, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("stream goes on: %02x\n", got[0]);

    /* A record before the wait counts: the wait passes at once. */
    CHECK(aclrtRecordNotify(n, producer));
    CHECK(aclrtSynchronizeStream(producer));
    CHECK(aclrtWaitAndResetNotify(n, consumer, 1000));
    printf("record then wait, synchronize: %d\n", aclrtSynchronizeStream(consumer));

    /* Bad handles. */
    aclrtEvent ev;
    CHECK(aclrtCreateEvent(&ev));
    printf("record NULL notify: %d\n", aclrtRecordNotify(NULL, producer));
    printf("record an event as notify: %d\n", aclrtRecordNotify((aclrtNotify)ev, producer));
    printf("record on an event as stream: %d\n", aclrtRecordNotify(n, (aclrtStream)ev));
    printf("wait NULL notify: %d\n", aclrtWaitAndResetNotify(NULL, consumer, 0));
    printf("notify as stream: %d\n", aclrtSynchronizeStream((aclrtStream)n));
    printf("destroy NULL: %d\n", aclrtDestroyNotify(NULL));
    CHECK(aclrtDestroyNotify(dev));
    printf("record destroyed: %d\n", aclrtRecordNotify(dev, producer));
    printf("destroy destroyed: %d\n", aclrtDestroyNotify(dev));

    CHECK(aclrtDestroyNotify(n));
    CHECK(aclrtDestroyEvent(ev));
    CHECK(aclrtFree(a));
    CHECK(aclrtFree(b));
    CHECK(aclrtDestroyStream(producer));
    CHECK(aclrtDestroyStream(consumer));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("notify: OK\n");
    return 0;
}
