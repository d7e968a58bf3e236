/* The ABI v1.2 event functions as native CANN programs use them:
 * aclrtCreateEventExWithFlag (the "new mode": a wait before any record
 * passes), aclrtEventGetTimestamp, aclrtSynchronizeEventWithTimeout,
 * aclrtGetEventId and aclrtGetEventAvailNum, with the native codes of the
 * bad calls. A notify holds a stream so that a record is still pending.
 * Prints one line per step. */
#include <acl/acl.h>
#include <stdio.h>

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
    CHECK(aclInit(NULL));
    uint32_t avail = 0;
    printf("avail before aclrtSetDevice: %d\n", aclrtGetEventAvailNum(&avail));
    CHECK(aclrtSetDevice(0));
    aclrtStream s;
    CHECK(aclrtCreateStream(&s));

    aclrtEvent e = NULL;
    printf("flag 0: %d\n", aclrtCreateEventExWithFlag(&e, 0));
    printf("flag DEVICE_USE_ONLY|SYNC: %d\n", aclrtCreateEventExWithFlag(&e, ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_SYNC));
    printf("flag EXTERNAL: %d\n", aclrtCreateEventExWithFlag(&e, ACL_EVENT_EXTERNAL));
    printf("flag IPC: %d\n", aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    printf("flag 0x80: %d\n", aclrtCreateEventExWithFlag(&e, 0x80));
    printf("NULL event: %d\n", aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC));

    CHECK(aclrtGetEventAvailNum(&avail));
    uint32_t before = avail;
    CHECK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
    CHECK(aclrtGetEventAvailNum(&avail));
    printf("avail: one fewer after a create %d\n", avail + 1 == before);
    printf("avail NULL: %d\n", aclrtGetEventAvailNum(NULL));

    aclrtEvent plain;
    CHECK(aclrtCreateEvent(&plain));
    uint32_t id1 = 0, id2 = 0;
    /* An event gets its id at its first record. */
    printf("id before a record: %d\n", aclrtGetEventId(e, &id1));
    printf("id NULL out: %d\n", aclrtGetEventId(e, NULL));
    printf("id NULL event: %d\n", aclrtGetEventId(NULL, &id1));

    /* The new mode: a wait before any record passes at once; a plain
     * event's gives 107000. */
    printf("wait on unrecorded ex event: %d\n", aclrtStreamWaitEvent(s, e));
    printf("wait on unrecorded plain event: %d\n", aclrtStreamWaitEvent(s, plain));
    printf("synchronize: %d\n", aclrtSynchronizeStream(s));

    uint64_t ts = 0;
    printf("timestamp never recorded: %d\n", aclrtEventGetTimestamp(e, &ts));
    printf("timestamp NULL out: %d\n", aclrtEventGetTimestamp(e, NULL));
    printf("timestamp NULL event: %d\n", aclrtEventGetTimestamp(NULL, &ts));
    printf("sync never recorded: %d\n", aclrtSynchronizeEventWithTimeout(e, 100));

    /* Two records in order: the later timestamp is not earlier. */
    CHECK(aclrtRecordEvent(e, s));
    CHECK(aclrtSynchronizeEventWithTimeout(e, 10000));
    uint64_t t1 = 0, t2 = 0;
    CHECK(aclrtEventGetTimestamp(e, &t1));
    CHECK(aclrtRecordEvent(e, s));
    CHECK(aclrtSynchronizeEventWithTimeout(e, -1));
    CHECK(aclrtEventGetTimestamp(e, &t2));
    printf("timestamps ordered: %d\n", t2 >= t1);
    CHECK(aclrtRecordEvent(plain, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtGetEventId(e, &id1));
    CHECK(aclrtGetEventId(plain, &id2));
    printf("ids: nonzero %d, distinct %d\n", id1 != 0 && id2 != 0, id1 != id2);

    printf("sync timeout -2: %d\n", aclrtSynchronizeEventWithTimeout(e, -2));
    printf("sync timeout 0: %d\n", aclrtSynchronizeEventWithTimeout(e, 0));
    printf("sync NULL: %d\n", aclrtSynchronizeEventWithTimeout(NULL, 10));
    printf("sync a stream as event: %d\n", aclrtSynchronizeEventWithTimeout((aclrtEvent)s, 10));

    /* A record held behind a notify nobody has recorded: the synchronize
     * times out and leaves the event pending; the notify's record
     * releases it. */
    aclrtNotify gate;
    CHECK(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT));
    aclrtStream other;
    CHECK(aclrtCreateStream(&other));
    CHECK(aclrtWaitAndResetNotify(gate, s, 0));
    CHECK(aclrtRecordEvent(e, s));
    printf("sync pending record, 20 ms: %d\n", aclrtSynchronizeEventWithTimeout(e, 20));
    printf("timestamp pending record: %d\n", aclrtEventGetTimestamp(e, &ts));
    CHECK(aclrtRecordNotify(gate, other));
    printf("sync after the gate opened: %d\n", aclrtSynchronizeEventWithTimeout(e, 10000));
    CHECK(aclrtEventGetTimestamp(e, &ts));
    printf("timestamp after: not earlier %d\n", ts >= t2);

    CHECK(aclrtDestroyNotify(gate));
    CHECK(aclrtDestroyStream(other));
    CHECK(aclrtDestroyEvent(e));
    CHECK(aclrtDestroyEvent(plain));
    CHECK(aclrtGetEventAvailNum(&avail));
    printf("avail back: %d\n", avail == before);
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("events: OK\n");
    return 0;
}
