/* The profiling markers of acl/acl_prof.h as native CANN programs set them
 * around their work (msproftx): a stamp with a message, a mark, nested
 * push and pop, a range started and stopped by id, a mark on a stream, a
 * range with event attributes naming its operator by aclprofStr2Id's id,
 * and the native codes of the bad calls. No profiler runs: the host
 * records the markers in its trace. Prints one line per step. */
#include <acl/acl.h>
#include <acl/acl_prof.h>
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
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));

    void *step = aclprofCreateStamp();
    void *copy = aclprofCreateStamp();
    printf("stamps: %d\n", step != NULL && copy != NULL && step != copy);
    const char *m = "train step";
    CHECK(aclprofSetStampTraceMessage(step, m, (uint32_t)strlen(m)));
    CHECK(aclprofSetStampTraceMessage(copy, "h2d copy", 8));
    CHECK(aclprofMark(step));
    CHECK(aclprofPush(step));
    CHECK(aclprofPush(copy));
    CHECK(aclprofPop());
    CHECK(aclprofPop());
    printf("pop with nothing pushed: %d\n", aclprofPop());

    uint32_t id = 1000;
    CHECK(aclprofRangeStart(copy, &id));
    printf("range id: %u\n", id);
    CHECK(aclprofRangeStop(id));
    printf("stop of an unknown id: %d\n", aclprofRangeStop(77));
    printf("start without rangeId: %d\n", aclprofRangeStart(copy, NULL));

    const char *ex = "copy queued";
    CHECK(aclprofMarkEx(ex, strlen(ex), s));
    printf("markEx with a wrong length: %d\n", aclprofMarkEx(ex, 3, s));
    printf("markEx without a stream: %d\n", aclprofMarkEx(ex, strlen(ex), NULL));

    char long_msg[200];
    memset(long_msg, 'x', sizeof long_msg);
    printf("message of 128 bytes: %d\n", aclprofSetStampTraceMessage(step, long_msg, 128));

    printf("range pop before any push: %d\n", aclprofRangePop());
    /* The tensor information names its operator by the profiler's ids. */
    uint64_t op = aclprofStr2Id("MatMul");
    printf("op name id: %llu, the same again: %d\n", (unsigned long long)op, aclprofStr2Id("MatMul") == op);
    printf("id of the empty string: %llu\n", (unsigned long long)aclprofStr2Id(""));
    aclprofTensor t = {0, 2, 0, 1, {16}};
    aclprofTensorInfo info = {op, op, 0, 1, 0, 1, s, &t};
    aclprofEventAttributes attr = {ACL_PROF_EVENT_ATTR_VERSION, sizeof attr, ACL_PROF_MESSAGE_TYPE_TENSOR_INFO, {&info}};
    CHECK(aclprofRangePushEx(&attr));
    CHECK(aclprofRangePop());
    attr.messageType = 5;
    printf("range push of another message type: %d\n", aclprofRangePushEx(&attr));
    printf("range push NULL: %d\n", aclprofRangePushEx(NULL));

    printf("mark NULL: %d, push NULL: %d\n", aclprofMark(NULL), aclprofPush(NULL));
    aclprofDestroyStamp(step);
    aclprofDestroyStamp(copy);
    aclprofDestroyStamp(NULL); /* void: the failure is only recorded */

    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("prof: OK\n");
    return 0;
}
