/* Stream callbacks as native CANN programs write them (aclrtLaunchHostFunc;
 * aclrtLaunchCallback on a stream bound by aclrtSubscribeReport, run by
 * aclrtProcessReport), built with the native flags only: the SDK's headers
 * export the dispatcher the host runs them through.
 * Argument "trap": a callback that traps ends the run. */
#include <acl/acl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int order[16];
static int n;
static int ctor_runs;

/* wasm-ld runs constructors and destructors around every export of a
 * command; the host calls the dispatcher past that wrapper, so this runs
 * once and the atexit handler only at exit. */
__attribute__((constructor)) static void count_ctor(void) { ctor_runs++; }
static void at_exit(void) { printf("atexit: ctors ran %d time(s)\n", ctor_runs); }

struct peek {
    int id;
    void *dev;
    unsigned char seen[4];
};

static void record(void *arg) { order[n++] = *(int *)arg; }

/* A callback that calls the runtime: a synchronous copy of what the work
 * before it wrote. */
static void peek(void *arg)
{
    struct peek *p = arg;
    aclError e = aclrtMemcpy(p->seen, sizeof p->seen, p->dev, sizeof p->seen, ACL_MEMCPY_DEVICE_TO_HOST);
    order[n++] = e == ACL_SUCCESS ? p->id : -(int)e;
}

static void boom(void *arg)
{
    (void)arg;
    __builtin_trap();
}

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
    atexit(at_exit);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s;
    CHECK(aclrtCreateStream(&s));
    void *dev;
    CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));

    int one = 1, three = 3;
    struct peek p = {2, dev, {0}};
    CHECK(aclrtMemsetAsync(dev, 4096, 0xab, 4096, s));
    CHECK(aclrtLaunchHostFunc(s, record, &one));
    CHECK(aclrtLaunchHostFunc(s, peek, &p));
    CHECK(aclrtMemsetAsync(dev, 4096, 0x11, 4096, s)); /* waits for peek */
    CHECK(aclrtLaunchHostFunc(s, record, &three));
    if (aclrtLaunchHostFunc(s, NULL, NULL) != ACL_ERROR_RT_PARAM_INVALID) {
        printf("a NULL callback was accepted\n");
        return 1;
    }
    CHECK(aclrtSynchronizeStream(s));
    printf("order:");
    for (int i = 0; i < n; i++) {
        printf(" %d", order[i]);
    }
    printf("\nseen: %02x%02x%02x%02x\n", p.seen[0], p.seen[1], p.seen[2], p.seen[3]);
    unsigned char after[4];
    CHECK(aclrtMemcpy(after, sizeof after, dev, sizeof after, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("after: %02x%02x%02x%02x\n", after[0], after[1], after[2], after[3]);

    /* Report callbacks: a stream bound to this thread, processed here. */
    aclrtStream r;
    CHECK(aclrtCreateStream(&r));
    CHECK(aclrtSubscribeReport((uint64_t)(uintptr_t)pthread_self(), r));
    int four = 4, five = 5;
    CHECK(aclrtLaunchCallback(record, &four, ACL_CALLBACK_BLOCK, r));
    CHECK(aclrtLaunchCallback(record, &five, ACL_CALLBACK_NO_BLOCK, r));
    while (n < 5) {
        CHECK(aclrtProcessReport(60000));
    }
    if (aclrtProcessReport(10) != ACL_ERROR_RT_REPORT_TIMEOUT) {
        printf("aclrtProcessReport with nothing due did not time out\n");
        return 1;
    }
    CHECK(aclrtUnSubscribeReport((uint64_t)(uintptr_t)pthread_self(), r));
    CHECK(aclrtDestroyStream(r));
    printf("reports: %d %d\n", order[3], order[4]);

    if (argc > 1 && strcmp(argv[1], "trap") == 0) {
        CHECK(aclrtLaunchHostFunc(s, boom, NULL));
        fflush(stdout);
        aclrtSynchronizeStream(s);
        printf("callback: the trap did not end the run\n");
        return 1;
    }
    CHECK(aclrtFree(dev));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("callback: OK (%d callbacks in stream order)\n", n);
    return 0;
}
