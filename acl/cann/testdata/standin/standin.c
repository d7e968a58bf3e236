/*
 * standin.c: a stand-in for libascendcl.so, for testing package cann
 * without an Ascend NPU.
 *
 * It exports the ACL runtime functions that package cann binds, with the
 * native C signatures (aclError is int, handles are void*, sizes are
 * size_t, structs have the native layouts), the native error codes and the
 * native order of argument checks, over host memory:
 *
 *   - "device memory" is 64-byte aligned malloc'd blocks that the stand-in
 *     tracks, with the native rounding (aligned to 32 and padded by 32), and
 *     a per-device byte budget (ACLWASM_STANDIN_MEM, default 256 MiB);
 *   - there are ACLWASM_STANDIN_DEVICES devices (default 2, at most 8);
 *   - each device has one default context that aclrtSetDevice binds to the
 *     calling thread (reference counted, as natively), and
 *     aclrtSetCurrentContext binds it to other threads;
 *   - every stream, the default ones included, is a FIFO executed by its own
 *     worker thread, so asynchronous work really is asynchronous; with
 *     ACLWASM_STANDIN_QUEUE set, a stream holds at most that many operations
 *     and a call that queues another waits for room, as a full native task
 *     queue makes it wait (unset: no bound); a wait on
 *     an event that has never been recorded is refused (107000), as
 *     natively, and one on an event reset after its record blocks until the
 *     next record, or until the event is destroyed;
 *   - registered host memory (aclrtHostRegister, 4 KiB aligned) is what the
 *     native runtime calls HOST; other host memory is UNREGISTERED, and
 *     asynchronous copies that touch it synchronize the stream and copy
 *     before returning, as natively;
 *   - aclrtLaunchCallback queues a callback that the stream's worker hands
 *     to the thread subscribed with aclrtSubscribeReport, which runs it in
 *     aclrtProcessReport; a blocking callback holds the stream until it
 *     returns.
 *
 * Queued operations re-check their memory when they execute: one whose
 * device allocation was freed, or whose registered host range was
 * unregistered, fails with ACL_ERROR_RT_DRV_INTERNAL_ERROR and touches
 * nothing. A correct caller never triggers that; tests use it to catch
 * callers that do not wait.
 *
 * Every exported ACL call is recorded, after it returns, as one line
 * "name(arg=value, ...) = rc" in a log that aclwasmStandinCallLog copies out.
 * aclwasmStandinStats reports the live objects, so tests can check that a
 * caller released everything.
 *
 * Build: gcc -shared -fPIC -O2 -fvisibility=hidden -o libascendcl.so standin.c -lpthread
 * -DNO_V2 leaves out aclrtMemcpyBatchV2 and aclrtMemcpyBatchAsyncV2.
 * -DOLD_RUNTIME also leaves out the other functions that older runtimes
 * lack: the V1 batch copies, the descriptor and offset copies,
 * aclrtHostRegister/aclrtHostUnregister, aclrtDestroyStreamForce and
 * aclrtSynchronizeEventWithTimeout.
 * -DOLD_DRIVER models a node whose driver or TS firmware lacks features the
 * library has: the asynchronous batch copies, the offset copies and
 * device-only notifies answer 207000 before looking at their arguments, as
 * the native runtime does there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef int aclError;
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;

typedef struct {
    uint32_t id;
    uint32_t type;
} aclrtMemLocation;

typedef struct {
    aclrtMemLocation dstLoc;
    aclrtMemLocation srcLoc;
    uint8_t rsv[16];
} aclrtMemcpyBatchAttr;

_Static_assert(sizeof(aclrtMemLocation) == 8, "aclrtMemLocation is 8 bytes");
_Static_assert(sizeof(aclrtMemcpyBatchAttr) == 32, "aclrtMemcpyBatchAttr is 32 bytes");

enum {
    OK = 0,
    INVALID_PARAM = 100000,
    REPEAT_INITIALIZE = 100002,
    REPEAT_FINALIZE = 100037,
    FEATURE_UNSUPPORTED = 200006,
    RT_PARAM_INVALID = 107000,
    RT_INVALID_DEVICEID = 107001,
    RT_CONTEXT_NULL = 107002,
    RT_STREAM_CONTEXT = 107003,
    RT_EVENT_TIMESTAMP_INVALID = 107006,
    RT_STREAM_ABORT = 107023,
    RT_ADDR_UNALIGNED = 107008,
    RT_STREAM_SUBSCRIBE = 107011,
    RT_THREAD_SUBSCRIBE = 107012,
    RT_STREAM_NO_CB_REG = 107015,
    RT_INVALID_HANDLE = 107017,
    RT_WAIT_TIMEOUT = 107019,
    RT_FEATURE_NOT_SUPPORT = 207000,
    RT_MEMORY_ALLOCATION = 207001,
    RT_INTERNAL_ERROR = 507000,
    RT_EVENT_NOT_COMPLETE = 507006,
    RT_REPORT_TIMEOUT = 507012,
    RT_STREAM_SYNC_TIMEOUT = 507046,
    RT_EVENT_SYNC_TIMEOUT = 507047,
    RT_DRV_INTERNAL_ERROR = 507899,
    HOST_MEMORY_ALREADY_REGISTERED = 507910,
    HOST_MEMORY_NOT_REGISTERED = 507911,
};

enum { K_H2H = 0, K_H2D = 1, K_D2H = 2, K_D2D = 3, K_DEFAULT = 4, K_H2BUF2D = 5, K_INNER_D2D = 6, K_END = 8 };
enum { LOC_HOST = 0, LOC_DEVICE = 1, LOC_UNREGISTERED = 2, LOC_HOST_NUMA = 4 };

#define MAXDEV 8
#define PAGE 4096u
#define DESC_SIZE 32u
#define BATCH_SYNC_MAX 4096u
#define OFFSET_MAX 0xFFFFFFFFFFFFull
#define OFFSET_MAX_COUNT (4ull << 30)

/* ---- the call log ---- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char *log_buf;
static size_t log_len, log_cap;

static void log_append(const char *s, size_t n)
{
    pthread_mutex_lock(&log_mu);
    if (log_len + n > log_cap) {
        size_t cap = log_cap ? log_cap : 4096;
        while (cap < log_len + n)
            cap *= 2;
        char *nb = realloc(log_buf, cap);
        if (!nb) {
            pthread_mutex_unlock(&log_mu);
            return;
        }
        log_buf = nb;
        log_cap = cap;
    }
    memcpy(log_buf + log_len, s, n);
    log_len += n;
    pthread_mutex_unlock(&log_mu);
}

/* A growable line, so that batch arrays can be printed in full. */
struct line {
    char *p;
    size_t n, cap;
};

static void lputf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lputf(struct line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if (l->n + (size_t)k + 1 > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->n + (size_t)k + 1)
            cap *= 2;
        char *np = realloc(l->p, cap);
        if (!np)
            return;
        l->p = np;
        l->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(l->p + l->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    l->n += (size_t)k;
}

static void lend(struct line *l, aclError rc)
{
    lputf(l, ") = %d\n", rc);
    if (l->p)
        log_append(l->p, l->n);
    free(l->p);
}

#define P(x) ((uintptr_t)(x))
#define LOG(rc, ...)                          \
    do {                                      \
        struct line l_ = {0};                 \
        lputf(&l_, __VA_ARGS__);              \
        lend(&l_, rc);                        \
    } while (0)

/* aclwasmStandinCallLog copies up to len bytes of the call log into buf and
 * returns the length of the whole log. */
EXPORT size_t aclwasmStandinCallLog(char *buf, size_t len)
{
    pthread_mutex_lock(&log_mu);
    size_t n = log_len < len ? log_len : len;
    if (buf && n)
        memcpy(buf, log_buf, n);
    size_t total = log_len;
    pthread_mutex_unlock(&log_mu);
    return total;
}

/* aclwasmStandinCallLogReset empties the call log. */
EXPORT void aclwasmStandinCallLogReset(void)
{
    pthread_mutex_lock(&log_mu);
    log_len = 0;
    pthread_mutex_unlock(&log_mu);
}

/* ---- state ---- */

/* One mutex guards all state and one condition variable announces every
 * change; workers hold the mutex while they run an operation, and calls
 * while they run, except while either moves the bytes of a copy or memset
 * (see CHUNK), so that one thread's long copy holds up no other thread's
 * calls. That is slow and simple, which is what a stand-in should be. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

struct ctx {
    int dev;
};

struct stream;

struct device {
    int refs;
    struct ctx ctx;
    struct stream *def;
    size_t total, used;
    int peer[MAXDEV];
};

static struct device devs[MAXDEV];
static int ndev;
/* qdepth bounds each stream's queue (ACLWASM_STANDIN_QUEUE; 0, the
 * default: no bound): a call that queues more waits for room, as a full
 * native task queue makes it wait. */
static size_t qdepth;
static int inited;
static int64_t leaked; /* objects still alive when their device was reset */
static __thread struct ctx *cur;

struct alloc {
    char *base;
    size_t size; /* bytes reserved: rounded and padded */
    int dev;
};
static struct alloc *allocs;
static size_t nallocs, capallocs;

/* A host registration belongs to the device of the context that made it,
 * as natively (aclrtHostRegister passes the current context's device to the
 * driver): each device has its own table, and aclrtHostUnregister finds a
 * registration only in the current context's device's. */
struct reg {
    char *base;
    size_t size;
    int type;
    int dev;
};
static struct reg *regs;
static size_t nregs, capregs __attribute__((unused));

struct event {
    int dev;
    int dead;
    uint64_t enq, done;
    uint64_t rst; /* enq when aclrtResetEvent was last called: waits queued since wait for the next record */
    double t_ms;
    /* The record a forced destruction of its stream cancelled, if the
     * latest that ended: it ends the event without a timestamp, and the
     * next synchronize reports the abort once (abort_unread). */
    uint64_t aborted;
    int abort_unread;
};

enum { T_COPY, T_COPY2D, T_SET, T_BATCH, T_RECORD, T_WAIT, T_DESC, T_OFFSET, T_CALLBACK, T_SET32, T_RESET,
       T_NRECORD, T_NWAIT /* notifies (ABI v1.2 section 12) */,
       T_REDUCE /* aclrtReduceAsync (ABI v1.3 section 15) */,
       T_KERNEL /* the operator library's kernels (aclwasmStandinLaunch) */,
       T_RANDOM /* aclrtRandomNumAsync (ABI v1.3 section 15) */ };
enum { T_LAUNCH = 100 /* aclrtLaunchKernelWithConfig (ABI v1.3 section 13.3) */ };
struct kfunc;

/* A notify: a flag set by a record in stream order, which a wait waits
 * for and clears. */
struct notify {
    int dev;
    int dead;
    int set;
};

typedef void (*aclrtCallback)(void *userData);

/* A callback handed to the thread subscribed to its stream. */
struct report {
    uint64_t tid;
    aclrtCallback fn;
    void *ud;
    int block;
    int picked, done;
    struct report *next;
};
static struct report *reports;

struct task {
    int op;
    char *dst;
    const char *src;
    size_t n, dpitch, spitch, width, height;
    int value;
    int dst_loc, src_loc; /* locations at submit time, re-checked when run */
    size_t count;         /* T_BATCH */
    void **dsts, **srcs;
    size_t *sizes;
    struct event *ev; /* T_RECORD, T_WAIT, T_RESET */
    uint64_t seq;
    int timeout_ms; /* T_WAIT: 0 waits without a limit */
    void **dslot;
    const void **sslot;
    size_t dstOff, srcOff;
    aclrtCallback fn; /* T_CALLBACK */
    void *ud;
    int block;
    struct notify *nt; /* T_NRECORD, T_NWAIT */
    /* T_LAUNCH (kernels, ABI v1.3 section 13.3): the function, a copy of
     * the finalized arguments, the block count, the launch's timeout. */
    const struct kfunc *kf;
    char *kargs;
    size_t kargsz;
    uint32_t kdim;
    uint64_t ktimeout_us;
    aclError (*kfn)(void *, const int *); /* T_KERNEL: the kernel (its argument, the stream's cancel flag), its argument and its release; dsts/sizes its buffers */
    void *karg;
    void (*kfree)(void *);
    uint64_t rnd[4];   /* T_RANDOM: first parameter, second, count, seed */
    struct task *next;
};

struct stream {
    int dev;
    int isdef;
    int dead;
    struct task *head, *tail;
    size_t queued; /* tasks in the queue, the running one included */
    int busy;
    aclError err;
    int stop, cancel;
    int stop_on_fail; /* ACL_STOP_ON_FAILURE */
    int devuse;       /* created with ACL_STREAM_DEVICE_USE_ONLY */
    uint32_t res[2];  /* aclrtSetStreamResLimit's, where resset */
    uint32_t ovsw;    /* aclrtSetStreamOverflowSwitch's */
    int resset[2];
    int subscribed;
    uint64_t sub_tid;
    pthread_t th;
};

/* Live objects, looked up by handle value so that a forged or stale handle
 * is reported instead of dereferenced. Dead streams and events stay
 * allocated until aclFinalize, so that late references stay harmless. */
static struct stream **streams;
static size_t nstreams, capstreams;
static struct event **events;
static size_t nevents, capevents;
static struct notify **notifies;
static size_t nnotifies, capnotifies __attribute__((unused));
static void **graveyard;
static size_t ngrave, capgrave;

#define PUSH(arr, n, cap, v)                                         \
    do {                                                             \
        if ((n) == (cap)) {                                          \
            size_t c_ = (cap) ? (cap) * 2 : 16;                      \
            void *p_ = realloc((arr), c_ * sizeof(*(arr)));          \
            if (!p_)                                                 \
                abort();                                             \
            (arr) = p_;                                              \
            (cap) = c_;                                              \
        }                                                            \
        (arr)[(n)++] = (v);                                          \
    } while (0)

static void bury(void *p) { PUSH(graveyard, ngrave, capgrave, p); }

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void deadline_in(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void load_config(void)
{
    const char *s = getenv("ACLWASM_STANDIN_DEVICES");
    int n = s ? atoi(s) : 2;
    if (n < 1)
        n = 1;
    if (n > MAXDEV)
        n = MAXDEV;
    ndev = n;
    const char *q = getenv("ACLWASM_STANDIN_QUEUE");
    qdepth = q ? strtoull(q, NULL, 0) : 0;
    const char *m = getenv("ACLWASM_STANDIN_MEM");
    size_t total = m ? strtoull(m, NULL, 0) : (size_t)256 << 20;
    for (int i = 0; i < MAXDEV; i++)
        devs[i].total = total;
}

static int ctx_ok(void) { return cur && devs[cur->dev].refs > 0; }

static struct alloc *find_alloc(const void *p)
{
    const char *c = p;
    for (size_t i = 0; i < nallocs; i++)
        if (c >= allocs[i].base && c < allocs[i].base + allocs[i].size)
            return &allocs[i];
    return NULL;
}

static struct reg *find_reg(const void *p)
{
    const char *c = p;
    for (size_t i = 0; i < nregs; i++)
        if (c >= regs[i].base && c < regs[i].base + regs[i].size)
            return &regs[i];
    return NULL;
}

/* in_dev reports whether [p, p+n) lies inside one allocation. */
static int in_dev(const void *p, size_t n)
{
    struct alloc *a = find_alloc(p);
    return a && n <= (size_t)(a->base + a->size - (const char *)p);
}

static int in_reg(const void *p, size_t n)
{
    struct reg *r = find_reg(p);
    return r && n <= (size_t)(r->base + r->size - (const char *)p);
}

/* aclwasmStandinRegDevice returns the device for which the host address p
 * is registered, or -1 when it is not. */
EXPORT int aclwasmStandinRegDevice(const void *p)
{
    pthread_mutex_lock(&mu);
    struct reg *r = find_reg(p);
    int dev = r ? r->dev : -1;
    pthread_mutex_unlock(&mu);
    return dev;
}

static int loc_of(const void *p, int *dev)
{
    struct alloc *a = find_alloc(p);
    if (a) {
        if (dev)
            *dev = a->dev;
        return LOC_DEVICE;
    }
    return find_reg(p) ? LOC_HOST : LOC_UNREGISTERED;
}

static struct stream *find_stream(void *h)
{
    for (size_t i = 0; i < nstreams; i++)
        if (streams[i] == h && !streams[i]->dead)
            return streams[i];
    return NULL;
}

static struct event *find_event(void *h)
{
    for (size_t i = 0; i < nevents; i++)
        if (events[i] == h && !events[i]->dead)
            return events[i];
    return NULL;
}

/* ---- streams and their workers ---- */

/* still_valid re-checks, when an operation runs, that memory it was given
 * is still what it was at submit time. */
static int still_valid(const void *p, size_t n, int loc)
{
    if (n == 0)
        return 1;
    if (loc == LOC_DEVICE)
        return in_dev(p, n);
    if (loc == LOC_HOST)
        return in_reg(p, n);
    return 1;
}

/* CHUNK bounds what a worker copies or sets between two looks at its
 * stream's cancel flag, with mu released meanwhile: as on a device, whose
 * copy engines run beside the runtime, a long operation holds up no other
 * call, and a forced destruction stops it within a chunk. */
#define CHUNK ((size_t)2 << 20)

/* move_chunked copies n bytes as memmove does, in chunks with mu released,
 * stopping early when s is cancelled (s NULL: a synchronous call, which
 * nothing cancels). Called with mu held; returns with it held. */
static void move_chunked(struct stream *s, char *dst, const char *src, size_t n)
{
    int back = dst > src && dst < src + n;
    for (size_t done = 0; done < n && !(s && s->cancel);) {
        size_t k = n - done < CHUNK ? n - done : CHUNK;
        size_t off = back ? n - done - k : done;
        pthread_mutex_unlock(&mu);
        memmove(dst + off, src + off, k);
        pthread_mutex_lock(&mu);
        done += k;
    }
}

/* set_chunked is memset in chunks, as move_chunked. */
static void set_chunked(struct stream *s, char *dst, int v, size_t n)
{
    for (size_t off = 0; off < n && !(s && s->cancel); off += CHUNK) {
        size_t k = n - off < CHUNK ? n - off : CHUNK;
        pthread_mutex_unlock(&mu);
        memset(dst + off, v, k);
        pthread_mutex_lock(&mu);
    }
}

#ifndef OLD_RUNTIME
static void random_run(struct task *t);
#endif

/* aclrtReduceAsync's arithmetic (ABI v1.3 section 15), written apart from
 * the host's Go: floats combine in float (the 16-bit formats through
 * _Float16 and bfloat16 bit arithmetic, rounding to nearest even), MAX and
 * MIN of a NaN give a NaN, integers wrap; src is read as it was before
 * (a copy), so the two may overlap. Types: the ACL layer's reduce map. */
enum { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7, DT_UINT32 = 8,
       DT_BF16 = 27, DT_INT4 = 29 };
enum { R_SUM = 10, R_MAX = 11, R_MIN = 12, R_EQUAL = 13 };

static int reduce_type_ok(int t)
{
    switch (t) {
    case DT_FLOAT: case DT_FLOAT16: case DT_INT16: case DT_INT4: case DT_INT8:
    case DT_INT32: case DT_BF16: case DT_UINT8: case DT_UINT16: case DT_UINT32:
        return 1;
    }
    return 0;
}

static size_t reduce_align(int t)
{
    switch (t) {
    case DT_FLOAT16: case DT_INT16: case DT_UINT16: case DT_BF16:
        return 2;
    case DT_FLOAT: case DT_INT32: case DT_UINT32:
        return 4;
    }
    return 1;
}

static float rf(int k, float d, float s)
{
    if (k == R_SUM)
        return d + s;
    if (d != d || s != s)
        return __builtin_nanf("");
    if (k == R_MAX)
        return d > s ? d : s;
    return d < s ? d : s;
}

static int64_t ri(int k, int64_t d, int64_t s)
{
    if (k == R_MAX)
        return d > s ? d : s;
    if (k == R_MIN)
        return d < s ? d : s;
    return d + s;
}

static float bf2f(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint16_t f2bf(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    if ((b & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((b >> 16) | 0x40);
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}

static aclError reduce_run(char *dst, const char *src0, size_t n, int k, int t)
{
    char *src = malloc(n ? n : 1);
    if (!src)
        return RT_DRV_INTERNAL_ERROR;
    memcpy(src, src0, n);
    size_t w = t == DT_INT4 || t == DT_INT8 || t == DT_UINT8 ? 1 : reduce_align(t);
    for (size_t i = 0; i + w <= n; i += w) {
        char *d = dst + i;
        const char *p = src + i;
        switch (t) {
        case DT_FLOAT: {
            float a, b;
            memcpy(&a, d, 4), memcpy(&b, p, 4);
            a = rf(k, a, b);
            memcpy(d, &a, 4);
            break;
        }
        case DT_FLOAT16: {
            _Float16 a, b;
            memcpy(&a, d, 2), memcpy(&b, p, 2);
            a = (_Float16)rf(k, (float)a, (float)b);
            memcpy(d, &a, 2);
            break;
        }
        case DT_BF16: {
            uint16_t a, b;
            memcpy(&a, d, 2), memcpy(&b, p, 2);
            a = f2bf(rf(k, bf2f(a), bf2f(b)));
            memcpy(d, &a, 2);
            break;
        }
        case DT_INT32: case DT_UINT32: {
            uint32_t a, b;
            memcpy(&a, d, 4), memcpy(&b, p, 4);
            a = t == DT_INT32 ? (uint32_t)ri(k, (int32_t)a, (int32_t)b) : (uint32_t)ri(k, a, b);
            memcpy(d, &a, 4);
            break;
        }
        case DT_INT16: case DT_UINT16: {
            uint16_t a, b;
            memcpy(&a, d, 2), memcpy(&b, p, 2);
            a = t == DT_INT16 ? (uint16_t)ri(k, (int16_t)a, (int16_t)b) : (uint16_t)ri(k, a, b);
            memcpy(d, &a, 2);
            break;
        }
        case DT_INT8:
            *d = (char)ri(k, (int8_t)*d, (int8_t)*p);
            break;
        case DT_UINT8:
            *d = (char)ri(k, (uint8_t)*d, (uint8_t)*p);
            break;
        case DT_INT4: {
            int64_t lo = ri(k, (int8_t)(uint8_t)(*d << 4) >> 4, (int8_t)(uint8_t)(*p << 4) >> 4);
            int64_t hi = ri(k, (int8_t)*d >> 4, (int8_t)*p >> 4);
            *d = (char)((lo & 0xf) | (hi & 0xf) << 4);
            break;
        }
        }
    }
    free(src);
    return OK;
}

#ifndef OLD_RUNTIME
static aclError run_kernel(struct stream *s, struct task *t); /* kernels */
#endif

static aclError run_task(struct stream *s, struct task *t)
{
    switch (t->op) {
#ifndef OLD_RUNTIME
    case T_LAUNCH:
        return run_kernel(s, t);
#endif
    case T_COPY:
        if (!still_valid(t->dst, t->n, t->dst_loc) || !still_valid(t->src, t->n, t->src_loc))
            return RT_DRV_INTERNAL_ERROR;
        move_chunked(s, t->dst, t->src, t->n);
        return OK;
    case T_COPY2D: {
        size_t dspan = (t->height - 1) * t->dpitch + t->width, sspan = (t->height - 1) * t->spitch + t->width;
        if (!still_valid(t->dst, dspan, t->dst_loc) || !still_valid(t->src, sspan, t->src_loc))
            return RT_DRV_INTERNAL_ERROR;
        for (size_t r = 0; r < t->height && !s->cancel;) {
            size_t rows = t->width >= CHUNK ? 1 : CHUNK / t->width, end = r + rows < t->height ? r + rows : t->height;
            pthread_mutex_unlock(&mu);
            for (; r < end; r++)
                memmove(t->dst + r * t->dpitch, t->src + r * t->spitch, t->width);
            pthread_mutex_lock(&mu);
        }
        return OK;
    }
    case T_REDUCE:
        if (!still_valid(t->dst, t->n, LOC_DEVICE) || !still_valid(t->src, t->n, LOC_DEVICE))
            return RT_DRV_INTERNAL_ERROR;
        return reduce_run(t->dst, t->src, t->n, t->value, (int)t->count);
#ifndef OLD_RUNTIME
    case T_RANDOM:
        if (!still_valid(t->dst, t->n, LOC_DEVICE))
            return RT_DRV_INTERNAL_ERROR;
        random_run(t);
        return OK;
#endif
    case T_SET:
        if (!still_valid(t->dst, t->n, t->dst_loc))
            return RT_DRV_INTERNAL_ERROR;
        set_chunked(s, t->dst, t->value & 0xff, t->n);
        return OK;
    case T_BATCH:
        for (size_t i = 0; i < t->count; i++) {
            int dl = loc_of(t->dsts[i], NULL), sl = loc_of(t->srcs[i], NULL);
            if ((dl != LOC_UNREGISTERED && !still_valid(t->dsts[i], t->sizes[i], dl)) ||
                (sl != LOC_UNREGISTERED && !still_valid(t->srcs[i], t->sizes[i], sl)) ||
                (dl != LOC_DEVICE && sl != LOC_DEVICE))
                return RT_DRV_INTERNAL_ERROR;
        }
        for (size_t i = 0; i < t->count && !s->cancel; i++)
            move_chunked(s, t->dsts[i], t->srcs[i], t->sizes[i]);
        return OK;
    case T_RECORD:
        if (t->seq > t->ev->done) {
            t->ev->done = t->seq;
            t->ev->t_ms = now_ms();
        }
        return OK;
    case T_WAIT: {
        struct timespec dl;
        if (t->timeout_ms > 0)
            deadline_in(&dl, t->timeout_ms);
        while (t->ev->done < t->seq && !t->ev->dead && !s->cancel) {
            if (t->timeout_ms <= 0)
                pthread_cond_wait(&cv, &mu);
            else if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT && t->ev->done < t->seq && !t->ev->dead && !s->cancel)
                return RT_WAIT_TIMEOUT;
        }
        return OK;
    }
    case T_SET32:
        if (!still_valid(t->dst, t->n, t->dst_loc))
            return RT_DRV_INTERNAL_ERROR;
        for (size_t i = 0; i + 4 <= t->n; i += 4)
            memcpy(t->dst + i, &t->value, 4);
        return OK;
    case T_RESET: /* as natively, a reset keeps the latest record's status and timestamp */
        return OK;
    case T_NRECORD:
        t->nt->set = 1;
        pthread_cond_broadcast(&cv);
        return OK;
    case T_NWAIT: {
        struct timespec dl;
        if (t->timeout_ms > 0)
            deadline_in(&dl, t->timeout_ms);
        while (!t->nt->set && !t->nt->dead && !s->cancel) {
            if (t->timeout_ms <= 0)
                pthread_cond_wait(&cv, &mu);
            else if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT && !t->nt->set && !t->nt->dead && !s->cancel)
                return RT_WAIT_TIMEOUT;
        }
        t->nt->set = 0;
        return OK;
    }
    case T_DESC: {
        if (!in_dev(t->src, DESC_SIZE))
            return RT_DRV_INTERNAL_ERROR;
        uint64_t d[3];
        memcpy(d, t->src, sizeof d);
        char *dst = (char *)(uintptr_t)d[1];
        const char *src = (const char *)(uintptr_t)d[0];
        size_t n = (size_t)d[2];
        if (!in_dev(dst, n) || !in_dev(src, n))
            return RT_PARAM_INVALID;
        move_chunked(s, dst, src, n);
        return OK;
    }
    case T_CALLBACK: {
        struct report *r = calloc(1, sizeof *r);
        if (!r)
            abort();
        r->tid = s->sub_tid, r->fn = t->fn, r->ud = t->ud, r->block = t->block;
        r->next = reports;
        reports = r;
        pthread_cond_broadcast(&cv);
        if (!r->block)
            return OK; /* the processing thread frees it */
        /* A blocking callback holds the stream until it returns; a forced
         * destruction drops it unless it has started. */
        while (!r->done && !(s->cancel && !r->picked))
            pthread_cond_wait(&cv, &mu);
        for (struct report **pp = &reports; *pp; pp = &(*pp)->next)
            if (*pp == r) {
                *pp = r->next;
                break;
            }
        free(r);
        return OK;
    }
    case T_KERNEL: {
        for (size_t i = 0; i < t->count; i++)
            if (!still_valid(t->dsts[i], t->sizes[i], LOC_DEVICE))
                return RT_DRV_INTERNAL_ERROR;
        /* With mu released, as a device runs kernels without the host: a
         * kernel that loops looks at the stream's cancel flag. */
        pthread_mutex_unlock(&mu);
        aclError rc = t->kfn(t->karg, &s->cancel);
        pthread_mutex_lock(&mu);
        return rc;
    }
    case T_OFFSET: {
        if (!in_dev(t->dslot, sizeof(void *)) || !in_dev(t->sslot, sizeof(void *)))
            return RT_DRV_INTERNAL_ERROR;
        char *dst = (char *)*t->dslot + t->dstOff;
        const char *src = (const char *)*t->sslot + t->srcOff;
        if (!in_dev(dst, t->n) || !in_dev(src, t->n))
            return RT_PARAM_INVALID;
        move_chunked(s, dst, src, t->n);
        return OK;
    }
    }
    return RT_DRV_INTERNAL_ERROR;
}

static void free_task(struct task *t)
{
    free(t->kargs);
    if (t->kfree)
        t->kfree(t->karg);
    free(t->dsts);
    free(t->srcs);
    free(t->sizes);
    free(t);
}

/* cancel_task ends a task a forced destruction drops without running
 * it: an event record still ends its event, as cancelled (waiters of the
 * event must not wait for a record that will never run). Called with mu
 * held. */
static void cancel_task(struct task *t)
{
    if (t->op == T_RECORD && t->seq > t->ev->done) {
        t->ev->done = t->seq;
        t->ev->aborted = t->seq;
        t->ev->abort_unread = 1;
    }
}

static void *worker(void *arg)
{
    struct stream *s = arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!s->head && !s->stop)
            pthread_cond_wait(&cv, &mu);
        if (!s->head)
            break;
        struct task *t = s->head;
        s->busy = 1;
        /* In ACL_STOP_ON_FAILURE mode, after an error only event records
         * run (reporting it) until a synchronize takes the error. */
        int stopped = s->stop_on_fail && s->err != OK && t->op != T_RECORD;
        aclError rc = OK;
        if (s->cancel)
            cancel_task(t);
        else if (!stopped)
            rc = run_task(s, t);
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        s->queued--;
        free_task(t);
        s->busy = 0;
        if (rc != OK && s->err == OK)
            s->err = rc;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static struct stream *new_stream(int dev, int isdef)
{
    struct stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dev = dev;
    s->isdef = isdef;
    if (pthread_create(&s->th, NULL, worker, s) != 0) {
        free(s);
        return NULL;
    }
    PUSH(streams, nstreams, capstreams, s);
    return s;
}

/* stop_stream ends the worker of s, after its queue when cancel is 0, and
 * dropping the queue when cancel is 1. Called with mu held. */
static void stop_stream(struct stream *s, int cancel)
{
    s->dead = 1;
    s->stop = 1;
    if (cancel) {
        s->cancel = 1;
        /* Drop what has not started; the running operation stops within a
         * chunk (CHUNK). */
        struct task *t = s->head ? s->head->next : NULL;
        if (s->head)
            s->head->next = NULL, s->tail = s->head;
        s->queued = s->head ? 1 : 0;
        while (t) {
            struct task *n = t->next;
            cancel_task(t);
            free_task(t);
            t = n;
        }
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(s->th, NULL);
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nstreams; i++)
        if (streams[i] == s) {
            streams[i] = streams[--nstreams];
            break;
        }
    bury(s);
}

/* enqueue queues t on s, first waiting for room (qdepth) with mu released
 * meanwhile; a stream stopped meanwhile drops t. Called with mu held. */
static void enqueue(struct stream *s, struct task *t)
{
    while (qdepth && s->queued >= qdepth && !s->stop)
        pthread_cond_wait(&cv, &mu);
    if (s->stop) {
        free_task(t);
        return;
    }
    s->queued++;
    t->next = NULL;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    pthread_cond_broadcast(&cv);
}

static int idle(struct stream *s) { return !s->head && !s->busy; }

/* stream_wait waits until s is idle; timeout_ms -1 waits forever, 0 polls.
 * It returns and clears the stream's error. Called with mu held. */
static aclError stream_wait(struct stream *s, int timeout_ms)
{
    struct timespec dl;
    if (timeout_ms > 0)
        deadline_in(&dl, timeout_ms);
    while (!idle(s)) {
        if (timeout_ms == 0)
            return RT_STREAM_SYNC_TIMEOUT;
        if (timeout_ms < 0)
            pthread_cond_wait(&cv, &mu);
        else if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT && !idle(s))
            return RT_STREAM_SYNC_TIMEOUT;
    }
    aclError rc = s->err;
    s->err = OK;
    return rc;
}

/* get_stream resolves a stream argument: NULL is the current context's
 * default stream. */
static aclError get_stream(aclrtStream h, struct stream **out)
{
    if (!ctx_ok())
        return RT_CONTEXT_NULL;
    if (!h) {
        *out = devs[cur->dev].def;
        return OK;
    }
    struct stream *s = find_stream(h);
    if (!s)
        return RT_INVALID_HANDLE;
    if (s->dev != cur->dev)
        return RT_STREAM_CONTEXT;
    *out = s;
    return OK;
}

/* The stream of a synchronize or a query: natively a stream of another
 * device is waited for or queried in its own context, so only the current
 * context (for NULL) and the handle are checked. */
static aclError get_any_stream(aclrtStream h, struct stream **out)
{
    if (!ctx_ok())
        return RT_CONTEXT_NULL;
    if (!h) {
        *out = devs[cur->dev].def;
        return OK;
    }
    if (!(*out = find_stream(h)))
        return RT_INVALID_HANDLE;
    return OK;
}

static struct task *new_task(int op)
{
    struct task *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->op = op;
    return t;
}

/* release_device frees what a device still holds when its last reference
 * goes, counting it as leaked. Called with mu held. */
static void release_device(int dev)
{
    struct device *d = &devs[dev];
    for (size_t i = 0; i < nstreams;) {
        struct stream *s = streams[i];
        if (s->dev == dev && !s->isdef) {
            leaked++;
            stop_stream(s, 1);
            i = 0;
            continue;
        }
        i++;
    }
    if (d->def) {
        stop_stream(d->def, 0);
        d->def = NULL;
    }
    for (size_t i = 0; i < nevents;) {
        if (events[i]->dev == dev) {
            leaked++;
            events[i]->dead = 1;
            bury(events[i]);
            events[i] = events[--nevents];
            continue;
        }
        i++;
    }
    for (size_t i = 0; i < nnotifies;) {
        if (notifies[i]->dev == dev) {
            leaked++;
            notifies[i]->dead = 1;
            bury(notifies[i]);
            notifies[i] = notifies[--nnotifies];
            continue;
        }
        i++;
    }
    for (size_t i = 0; i < nallocs;) {
        if (allocs[i].dev == dev) {
            leaked++;
            d->used -= allocs[i].size;
            free(allocs[i].base);
            allocs[i] = allocs[--nallocs];
            continue;
        }
        i++;
    }
    memset(d->peer, 0, sizeof d->peer);
    pthread_cond_broadcast(&cv);
}

/* ---- init, devices, contexts ---- */

EXPORT aclError aclInit(const char *configPath)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (inited)
        rc = REPEAT_INITIALIZE;
    else {
        load_config();
        inited = 1;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclInit(configPath=0x%" PRIxPTR, P(configPath));
    return rc;
}

EXPORT aclError aclFinalize(void)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!inited)
        rc = REPEAT_FINALIZE;
    else {
        for (int i = 0; i < ndev; i++)
            if (devs[i].refs > 0) {
                leaked++;
                devs[i].refs = 0;
                release_device(i);
            }
        for (size_t i = 0; i < nregs; i++)
            leaked++;
        nregs = 0;
        for (size_t i = 0; i < ngrave; i++)
            free(graveyard[i]);
        ngrave = 0;
        inited = 0;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclFinalize(");
    return rc;
}

EXPORT aclError aclrtGetVersion(int32_t *major, int32_t *minor, int32_t *patch)
{
    aclError rc = OK;
    if (!major || !minor || !patch)
        rc = INVALID_PARAM;
    else
        *major = 1, *minor = 17, *patch = 0;
    LOG(rc, "aclrtGetVersion(major=0x%" PRIxPTR ", minor=0x%" PRIxPTR ", patch=0x%" PRIxPTR, P(major), P(minor), P(patch));
    return rc;
}

EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!count)
        rc = INVALID_PARAM;
    else {
        if (!ndev)
            load_config();
        *count = (uint32_t)ndev;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetDeviceCount(count=0x%" PRIxPTR, P(count));
    return rc;
}

EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!ndev)
        load_config();
    if (deviceId < 0 || deviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else {
        struct device *d = &devs[deviceId];
        if (d->refs == 0) {
            d->ctx.dev = deviceId;
            d->def = new_stream(deviceId, 1);
            if (!d->def)
                rc = RT_MEMORY_ALLOCATION;
        }
        if (rc == OK) {
            d->refs++;
            cur = &d->ctx;
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSetDevice(deviceId=%d", deviceId);
    return rc;
}

EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (deviceId < 0 || deviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else if (devs[deviceId].refs == 0)
        rc = RT_CONTEXT_NULL;
    else if (--devs[deviceId].refs == 0) {
        release_device(deviceId);
        if (cur == &devs[deviceId].ctx)
            cur = NULL;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtResetDevice(deviceId=%d", deviceId);
    return rc;
}

EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!deviceId)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else
        *deviceId = cur->dev;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetDevice(deviceId=0x%" PRIxPTR, P(deviceId));
    return rc;
}

EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    pthread_mutex_lock(&mu);
    aclError rc = RT_PARAM_INVALID;
    if (!context)
        rc = INVALID_PARAM;
    else
        for (int i = 0; i < ndev; i++)
            if (context == &devs[i].ctx && devs[i].refs > 0) {
                cur = &devs[i].ctx;
                rc = OK;
            }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSetCurrentContext(context=0x%" PRIxPTR, P(context));
    return rc;
}

EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!context)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else
        *context = cur;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetCurrentContext(context=0x%" PRIxPTR, P(context));
    return rc;
}

/* wait_device waits for every stream of the current device. */
static aclError wait_device(int timeout_ms)
{
    aclError first = OK;
    int dev = cur->dev;
    for (size_t i = 0; i < nstreams; i++) {
        struct stream *s = streams[i];
        if (s->dev != dev || s->dead)
            continue;
        aclError rc = stream_wait(s, timeout_ms);
        if (rc == RT_STREAM_SYNC_TIMEOUT)
            return rc;
        if (rc != OK && first == OK)
            first = rc;
    }
    return first;
}

EXPORT aclError aclrtSynchronizeDevice(void)
{
    pthread_mutex_lock(&mu);
    aclError rc = ctx_ok() ? wait_device(-1) : RT_CONTEXT_NULL;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSynchronizeDevice(");
    return rc;
}

EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    pthread_mutex_lock(&mu);
    aclError rc;
    /* Natively below -1 is the ACL layer's refusal, 0 the runtime's
     * (api_error.cc:3479-3481), both before the context check. */
    if (timeout < -1 || timeout == 0)
        rc = RT_PARAM_INVALID;
    else
        rc = ctx_ok() ? wait_device(timeout) : RT_CONTEXT_NULL;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSynchronizeDeviceWithTimeout(timeout=%d", timeout);
    return rc;
}

EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!canAccessPeer || deviceId == peerDeviceId)
        rc = INVALID_PARAM;
    else if (deviceId < 0 || deviceId >= ndev || peerDeviceId < 0 || peerDeviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else
        *canAccessPeer = 1;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtDeviceCanAccessPeer(canAccessPeer=0x%" PRIxPTR ", deviceId=%d, peerDeviceId=%d", P(canAccessPeer), deviceId,
        peerDeviceId);
    return rc;
}

EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (flags != 0)
        rc = FEATURE_UNSUPPORTED;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else if (peerDeviceId == cur->dev)
        rc = INVALID_PARAM;
    else if (peerDeviceId < 0 || peerDeviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else
        devs[cur->dev].peer[peerDeviceId] = 1;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtDeviceEnablePeerAccess(peerDeviceId=%d, flags=%u", peerDeviceId, flags);
    return rc;
}

EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else if (peerDeviceId == cur->dev)
        rc = INVALID_PARAM;
    else if (peerDeviceId < 0 || peerDeviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else if (!devs[cur->dev].peer[peerDeviceId])
        rc = RT_PARAM_INVALID;
    else
        devs[cur->dev].peer[peerDeviceId] = 0;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtDeviceDisablePeerAccess(peerDeviceId=%d", peerDeviceId);
    return rc;
}

EXPORT aclError aclrtGetMemInfo(int32_t attr, size_t *free_, size_t *total)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!free_ || !total || attr < 0 || attr > 17)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        struct device *d = &devs[cur->dev];
        *total = d->total;
        *free_ = d->total - d->used;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetMemInfo(attr=%d, free=0x%" PRIxPTR ", total=0x%" PRIxPTR, attr, P(free_), P(total));
    return rc;
}

/* ---- memory ---- */

EXPORT aclError aclrtMalloc(void **devPtr, size_t size, uint32_t policy)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!devPtr || size == 0)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        int huge1g = (policy & 0xff) == 6 || (policy & 0xff) == 7;
        size_t pad = huge1g ? 0 : 32;
        struct device *d = &devs[cur->dev];
        if (size > ((size_t)1 << 62) || (size + 32 + pad - 1) / 32 * 32 > d->total - d->used)
            rc = RT_MEMORY_ALLOCATION;
        else {
            size_t n = (size + 32 + pad - 1) / 32 * 32;
            void *p = NULL;
            if (posix_memalign(&p, 64, n) != 0)
                rc = RT_MEMORY_ALLOCATION;
            else {
                memset(p, 0, n);
                struct alloc a = {p, n, cur->dev};
                PUSH(allocs, nallocs, capallocs, a);
                d->used += n;
                *devPtr = p;
            }
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMalloc(devPtr=0x%" PRIxPTR ", size=%zu, policy=%u", P(devPtr), size, policy);
    return rc;
}

EXPORT aclError aclrtFree(void *devPtr)
{
    pthread_mutex_lock(&mu);
    aclError rc = RT_PARAM_INVALID;
    if (!devPtr)
        rc = INVALID_PARAM;
    else
        for (size_t i = 0; i < nallocs; i++)
            if (allocs[i].base == devPtr) {
                devs[allocs[i].dev].used -= allocs[i].size;
                free(allocs[i].base);
                allocs[i] = allocs[--nallocs];
                rc = OK;
                break;
            }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtFree(devPtr=0x%" PRIxPTR, P(devPtr));
    return rc;
}

#ifndef OLD_RUNTIME
EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, uint32_t type, void **devPtr)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    char *p = ptr;
    if (!ptr || size == 0 || !devPtr)
        rc = INVALID_PARAM;
    else if (type & ~(uint32_t)(4 | 8))
        rc = RT_FEATURE_NOT_SUPPORT; /* natively IOMEMORY and READONLY, alone or together (api_error.cc:1997-2002) */
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else if (P(ptr) % PAGE != 0)
        rc = RT_PARAM_INVALID; /* the native runtime wants 4 KiB pages */
    else {
        for (size_t i = 0; i < nregs; i++)
            if (regs[i].dev == cur->dev && p < regs[i].base + regs[i].size && regs[i].base < p + size)
                rc = HOST_MEMORY_ALREADY_REGISTERED;
        if (rc == OK) {
            struct reg r = {p, (size_t)size, (int)type, cur->dev};
            PUSH(regs, nregs, capregs, r);
            *devPtr = ptr;
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtHostRegister(ptr=0x%" PRIxPTR ", size=%" PRIu64 ", type=%u, devPtr=0x%" PRIxPTR, P(ptr), size, type, P(devPtr));
    return rc;
}

EXPORT aclError aclrtHostUnregister(void *ptr)
{
    pthread_mutex_lock(&mu);
    aclError rc = HOST_MEMORY_NOT_REGISTERED;
    if (!ptr)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL; /* api_impl.cc:2616-2617 */
    else
        for (size_t i = 0; i < nregs; i++)
            if (regs[i].base == ptr && regs[i].dev == cur->dev) {
                regs[i] = regs[--nregs];
                rc = OK;
                break;
            }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtHostUnregister(ptr=0x%" PRIxPTR, P(ptr));
    return rc;
}
#endif

/* ---- streams ---- */

EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!stream)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        struct stream *s = new_stream(cur->dev, 0);
        if (!s)
            rc = RT_MEMORY_ALLOCATION;
        else
            *stream = s;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtCreateStream(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

static aclError destroy_stream(aclrtStream stream, int force)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    struct stream *s;
    if (!stream)
        rc = INVALID_PARAM;
    else if (!(s = find_stream(stream)) || s->isdef)
        rc = RT_INVALID_HANDLE;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else if (s->dev != cur->dev)
        rc = RT_STREAM_CONTEXT; /* natively only the current context's streams; nothing is destroyed */
    else
        stop_stream(s, force);
    pthread_mutex_unlock(&mu);
    return rc;
}

EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    aclError rc = destroy_stream(stream, 0);
    LOG(rc, "aclrtDestroyStream(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

#ifndef OLD_RUNTIME
EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    aclError rc = destroy_stream(stream, 1);
    LOG(rc, "aclrtDestroyStreamForce(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

/* aclrtStreamAbort: as documented natively, it stops the task running on
 * the stream and drops those queued behind it, and the stream takes new
 * work afterwards; a synchronize of the stream (one waiting meanwhile, or
 * the next) returns ACL_ERROR_RT_STREAM_ABORT. NULL is refused (107000).
 * The running task stops when it next looks at the stream's cancel flag
 * (copies between chunks, kernels between blocks, the operator library's
 * kernels where they loop). */
EXPORT aclError aclrtStreamAbort(aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = stream ? get_stream(stream, &s) : RT_PARAM_INVALID;
    if (rc == OK) {
        s->cancel = 1;
        pthread_cond_broadcast(&cv); /* waits queued on the stream look again */
        while (s->head) /* the worker drops what has not started (cancel_task) */
            pthread_cond_wait(&cv, &mu);
        s->cancel = 0;
        if (s->err == OK)
            s->err = RT_STREAM_ABORT;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtStreamAbort(stream=0x%" PRIxPTR, P(stream));
    return rc;
}
#endif

static aclError sync_stream(aclrtStream stream, int timeout)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    /* Natively: below -1 (ACL layer), then the handle (entry point), then
     * 0 (api_error.cc:1442-1444). */
    aclError rc = timeout < -1 ? RT_PARAM_INVALID : get_any_stream(stream, &s);
    if (rc == OK && timeout == 0)
        rc = RT_PARAM_INVALID;
    if (rc == OK)
        rc = stream_wait(s, timeout);
    pthread_mutex_unlock(&mu);
    return rc;
}

EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    aclError rc = sync_stream(stream, -1);
    LOG(rc, "aclrtSynchronizeStream(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    aclError rc = sync_stream(stream, timeout);
    LOG(rc, "aclrtSynchronizeStreamWithTimeout(stream=0x%" PRIxPTR ", timeout=%d", P(stream), timeout);
    return rc;
}

EXPORT aclError aclrtStreamQuery(aclrtStream stream, uint32_t *status)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = !status ? INVALID_PARAM : get_any_stream(stream, &s);
    if (rc == OK)
        *status = idle(s) ? 0 : 1;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtStreamQuery(stream=0x%" PRIxPTR ", status=0x%" PRIxPTR, P(stream), P(status));
    return rc;
}

#ifndef OLD_RUNTIME
/* ---- v1.1 section 10: configured streams, failure modes, run mode ---- */

EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    /* The ACL layer passes on the six known flags only; the runtime
     * refuses DEVICE_USE_ONLY with another flag and clamps the priority. */
    uint32_t known = flag & 0x3Fu;
    if (!stream)
        rc = INVALID_PARAM;
    else if ((known & 0x20u) && known != 0x20u)
        rc = RT_PARAM_INVALID;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        struct stream *s = new_stream(cur->dev, 0);
        if (!s)
            rc = RT_MEMORY_ALLOCATION;
        else {
            s->devuse = known == 0x20u;
            *stream = s;
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtCreateStreamWithConfig(stream=0x%" PRIxPTR ", priority=%u, flag=%#x", P(stream), priority, flag);
    return rc;
}

EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    struct stream *s = NULL;
    if (stream && !find_stream(stream))
        rc = RT_INVALID_HANDLE;
    else if (!stream && !ctx_ok())
        rc = RT_PARAM_INVALID; /* no current stream to resolve NULL to */
    else if (stream && find_stream(stream)->devuse)
        rc = RT_FEATURE_NOT_SUPPORT;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        s = stream ? find_stream(stream) : devs[cur->dev].def;
        int m = (int)(mode & 1u);
        if (m == s->stop_on_fail)
            rc = OK;
        else if (s->stop_on_fail)
            rc = RT_FEATURE_NOT_SUPPORT; /* stop mode cannot go back to continue */
        else if (s->dev != cur->dev)
            rc = RT_STREAM_CONTEXT;
        else
            s->stop_on_fail = m;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSetStreamFailureMode(stream=0x%" PRIxPTR ", mode=%" PRIu64, P(stream), mode);
    return rc;
}

EXPORT aclError aclrtGetRunMode(uint32_t *runMode)
{
    aclError rc = OK;
    if (!runMode)
        rc = INVALID_PARAM;
    else
        *runMode = 1; /* ACL_HOST: a PCIe card */
    LOG(rc, "aclrtGetRunMode(runMode=0x%" PRIxPTR, P(runMode));
    return rc;
}

/* ---- per-stream core limits (ABI v1.3 section 15) ----
 * In the native order: the stream handle, the type, then for NULL the
 * current context's default stream; a limit is at most the device's cores
 * (24 cube, 48 vector), and the device limit does not bound it. The
 * stream in use is the calling thread's, as natively. */

static const uint32_t cores[2] = {24u, 48u};
static __thread struct stream *use_res;

/* res_stream resolves stream for these functions, with mu held. */
static aclError res_stream(aclrtStream stream, int type, int check_type, struct stream **out)
{
    if (stream && !(*out = find_stream(stream)))
        return RT_INVALID_HANDLE;
    if (check_type && (type < 0 || type >= 2))
        return RT_PARAM_INVALID;
    if (!stream) {
        if (!ctx_ok())
            return RT_CONTEXT_NULL;
        *out = devs[cur->dev].def;
    }
    return OK;
}

EXPORT aclError aclrtGetStreamResLimit(aclrtStream stream, int32_t type, uint32_t *value)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = !value ? INVALID_PARAM : res_stream(stream, type, 1, &s);
    if (rc == OK)
        *value = s->resset[type] ? s->res[type] : cores[type];
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetStreamResLimit(stream=0x%" PRIxPTR ", type=%d, value=0x%" PRIxPTR, P(stream), type, P(value));
    return rc;
}

EXPORT aclError aclrtSetStreamResLimit(aclrtStream stream, int32_t type, uint32_t value)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = res_stream(stream, type, 1, &s);
    if (rc == OK && value > cores[type])
        rc = RT_PARAM_INVALID;
    if (rc == OK) {
        s->res[type] = value;
        s->resset[type] = 1;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSetStreamResLimit(stream=0x%" PRIxPTR ", type=%d, value=%u", P(stream), type, value);
    return rc;
}

EXPORT aclError aclrtResetStreamResLimit(aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = res_stream(stream, 0, 0, &s);
    if (rc == OK)
        s->resset[0] = s->resset[1] = 0;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtResetStreamResLimit(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

EXPORT aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = res_stream(stream, 0, 0, &s);
    if (rc == OK)
        use_res = s;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtUseStreamResInCurrentThread(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

EXPORT aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = res_stream(stream, 0, 0, &s);
    if (rc == OK && use_res == s)
        use_res = NULL;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtUnuseStreamResInCurrentThread(stream=0x%" PRIxPTR, P(stream));
    return rc;
}

EXPORT aclError aclrtGetResInCurrentThread(int32_t type, uint32_t *value)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!value)
        rc = INVALID_PARAM;
    else if (type < 0 || type >= 2)
        rc = RT_PARAM_INVALID;
    else if (use_res && !use_res->dead && use_res->resset[type])
        *value = use_res->res[type];
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else
        *value = cores[type];
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetResInCurrentThread(type=%d, value=0x%" PRIxPTR, type, P(value));
    return rc;
}
#endif

/* ---- events ---- */

EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!event)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        struct event *e = calloc(1, sizeof *e);
        if (!e)
            rc = RT_MEMORY_ALLOCATION;
        else {
            e->dev = cur->dev;
            PUSH(events, nevents, capevents, e);
            *event = e;
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtCreateEvent(event=0x%" PRIxPTR, P(event));
    return rc;
}

EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    pthread_mutex_lock(&mu);
    aclError rc = RT_INVALID_HANDLE;
    if (!event)
        rc = INVALID_PARAM;
    else
        for (size_t i = 0; i < nevents; i++)
            if (events[i] == event) {
                events[i]->dead = 1; /* releases queued waits */
                bury(events[i]);
                events[i] = events[--nevents];
                pthread_cond_broadcast(&cv);
                rc = OK;
                break;
            }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtDestroyEvent(event=0x%" PRIxPTR, P(event));
    return rc;
}

EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct event *e = NULL;
    aclError rc = OK;
    if (!event)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK) {
        if (e->dev != s->dev)
            rc = RT_STREAM_CONTEXT;
        else {
            struct task *t = new_task(T_RECORD);
            t->ev = e;
            t->seq = ++e->enq;
            enqueue(s, t);
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtRecordEvent(event=0x%" PRIxPTR ", stream=0x%" PRIxPTR, P(event), P(stream));
    return rc;
}

EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct event *e = NULL;
    aclError rc = OK;
    if (!event)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK && e->enq == 0)
        rc = RT_PARAM_INVALID; /* natively: "The event has not been recorded" (default event mode) */
    else if (rc == OK) {
        struct task *t = new_task(T_WAIT);
        t->ev = e;
        t->seq = e->enq > e->rst ? e->enq : e->enq + 1; /* reset: wait for the next record */
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtStreamWaitEvent(stream=0x%" PRIxPTR ", event=0x%" PRIxPTR, P(stream), P(event));
    return rc;
}

#ifndef OLD_RUNTIME
EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct event *e = NULL;
    aclError rc = OK;
    if (timeout < 0)
        rc = RT_PARAM_INVALID;
    else if (!event)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK && e->enq == 0)
        rc = RT_PARAM_INVALID; /* never recorded, as aclrtStreamWaitEvent */
    else if (rc == OK) {
        struct task *t = new_task(T_WAIT);
        t->ev = e;
        t->seq = e->enq > e->rst ? e->enq : e->enq + 1;
        t->timeout_ms = timeout;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtStreamWaitEventWithTimeout(stream=0x%" PRIxPTR ", event=0x%" PRIxPTR ", timeout=%d", P(stream), P(event), timeout);
    return rc;
}

EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct event *e = NULL;
    aclError rc = OK;
    if (!event)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK) {
        if (e->dev != s->dev)
            rc = RT_STREAM_CONTEXT;
        else {
            struct task *t = new_task(T_RESET);
            t->ev = e;
            t->seq = e->rst = e->enq;
            enqueue(s, t);
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtResetEvent(event=0x%" PRIxPTR ", stream=0x%" PRIxPTR, P(event), P(stream));
    return rc;
}

/* The stand-in's step for operator timeouts, in microseconds. */
EXPORT aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    int ok = ctx_ok();
    pthread_mutex_unlock(&mu);
    if (!interval)
        rc = INVALID_PARAM;
    else if (!ok) /* a thread's context of a device reset since is none */
        rc = RT_CONTEXT_NULL; /* natively the runtime asks for the current context first */
    else
        *interval = 4294967;
    LOG(rc, "aclrtGetOpTimeOutInterval(interval=0x%" PRIxPTR, P(interval));
    return rc;
}
#endif

static aclError sync_event(aclrtEvent event, int timeout)
{
    pthread_mutex_lock(&mu);
    struct event *e = NULL;
    aclError rc = OK;
    if (timeout < -1)
        rc = RT_PARAM_INVALID;
    else if (!event)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else if (e->enq > 0) {
        uint64_t target = e->enq;
        struct timespec dl;
        if (timeout > 0)
            deadline_in(&dl, timeout);
        while (e->done < target && !e->dead) {
            if (timeout == 0) {
                rc = RT_EVENT_SYNC_TIMEOUT;
                break;
            }
            if (timeout < 0)
                pthread_cond_wait(&cv, &mu);
            else if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT && e->done < target && !e->dead) {
                rc = RT_EVENT_SYNC_TIMEOUT;
                break;
            }
        }
        if (rc == OK && e->done >= target && e->aborted == e->done && e->abort_unread) {
            rc = RT_STREAM_ABORT; /* the record was cancelled with its stream's work */
            e->abort_unread = 0;
        }
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    aclError rc = sync_event(event, -1);
    LOG(rc, "aclrtSynchronizeEvent(event=0x%" PRIxPTR, P(event));
    return rc;
}

#ifndef OLD_RUNTIME
EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    /* Natively a timeout of 0 is refused (api_error.cc:1772-1774). */
    aclError rc = timeout == 0 ? RT_PARAM_INVALID : sync_event(event, timeout);
    LOG(rc, "aclrtSynchronizeEventWithTimeout(event=0x%" PRIxPTR ", timeout=%d", P(event), timeout);
    return rc;
}
#endif

EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, uint32_t *status)
{
    pthread_mutex_lock(&mu);
    struct event *e = NULL;
    aclError rc = OK;
    if (!event || !status)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else
        *status = e->enq > 0 && e->done >= e->enq ? 1 : 0; /* never recorded: not ready; a reset changes nothing */
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtQueryEventStatus(event=0x%" PRIxPTR ", status=0x%" PRIxPTR, P(event), P(status));
    return rc;
}

EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    pthread_mutex_lock(&mu);
    struct event *a = NULL, *b = NULL;
    aclError rc = OK;
    if (!ms || !startEvent || !endEvent)
        rc = INVALID_PARAM;
    else if (!(a = find_event(startEvent)) || !(b = find_event(endEvent)))
        rc = RT_INVALID_HANDLE;
    else if (a->enq == 0 || b->enq == 0)
        rc = RT_INTERNAL_ERROR; /* natively "no recorder": never recorded, on every chip */
    else if (a->done == 0 || b->done == 0 || a->aborted == a->done || b->aborted == b->done)
        rc = RT_EVENT_TIMESTAMP_INVALID; /* never ran, or cancelled */
    else if (a->done < a->enq || b->done < b->enq)
        rc = RT_EVENT_NOT_COMPLETE;
    else
        *ms = (float)(b->t_ms - a->t_ms);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtEventElapsedTime(ms=0x%" PRIxPTR ", startEvent=0x%" PRIxPTR ", endEvent=0x%" PRIxPTR, P(ms), P(startEvent),
        P(endEvent));
    return rc;
}

/* ---- copies ---- */

/* direction applies the runtime's location checks to a copy of count bytes
 * from src to dst with the given kind: device ranges must lie inside one
 * allocation, a kind must be possible for unregistered memory (the
 * MemcpyKindAutoCorrect rules), and device-to-device copies between two
 * devices need peer access. It returns the real direction in *dir and the
 * locations in *dl and *sl. */
static aclError direction(void *dst, const void *src, size_t dcount, size_t scount, int kind, int *dir, int *dl, int *sl)
{
    int ddev = -1, sdev = -1;
    *dl = loc_of(dst, &ddev);
    *sl = loc_of(src, &sdev);
    if ((*dl == LOC_DEVICE && !in_dev(dst, dcount)) || (*sl == LOC_DEVICE && !in_dev(src, scount)))
        return RT_PARAM_INVALID;
    int d = *dl == LOC_DEVICE, s = *sl == LOC_DEVICE;
    *dir = d && s ? K_D2D : s ? K_D2H : d ? K_H2D : K_H2H;
    if (kind == K_H2BUF2D)
        kind = K_H2D;
    if (kind != K_DEFAULT && (*dl == LOC_UNREGISTERED || *sl == LOC_UNREGISTERED)) {
        unsigned allowed;
        if (*sl == LOC_UNREGISTERED && *dl == LOC_DEVICE)
            allowed = 1u << K_H2D | 1u << K_D2D;
        else if (*sl == LOC_DEVICE)
            allowed = 1u << K_D2H | 1u << K_D2D;
        else if (*sl == LOC_HOST)
            allowed = 1u << K_H2H | 1u << K_H2D;
        else if (*dl == LOC_HOST)
            allowed = 1u << K_H2H | 1u << K_D2H;
        else
            allowed = 0xf;
        if (!(allowed & (1u << kind)))
            return RT_PARAM_INVALID;
    }
    if (*dir == K_D2D && ddev != sdev && !devs[ddev].peer[sdev] && !devs[sdev].peer[ddev])
        return RT_PARAM_INVALID;
    return OK;
}

static aclError memcpy_checks(void *dst, size_t destMax, const void *src, size_t count, int kind, int *done)
{
    *done = 0;
    if (count == 0) {
        *done = 1;
        return OK;
    }
    if (!dst || !src || kind < K_H2H || kind > K_H2BUF2D)
        return INVALID_PARAM;
    if (destMax == 0 || count > destMax)
        return RT_PARAM_INVALID;
    if (!ctx_ok())
        return RT_CONTEXT_NULL;
    return OK;
}

EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, int32_t kind)
{
    pthread_mutex_lock(&mu);
    int done, dir, dl, sl;
    aclError rc = memcpy_checks(dst, destMax, src, count, kind, &done);
    if (rc == OK && !done && (rc = direction(dst, src, count, count, kind, &dir, &dl, &sl)) == OK && dst != src)
        move_chunked(NULL, dst, src, count);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemcpy(dst=0x%" PRIxPTR ", destMax=%zu, src=0x%" PRIxPTR ", count=%zu, kind=%d", P(dst), destMax, P(src), count,
        kind);
    return rc;
}

static aclError memcpy_async(void *dst, size_t destMax, const void *src, size_t count, int kind, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    int done, dir, dl, sl;
    struct stream *s = NULL;
    aclError rc = memcpy_checks(dst, destMax, src, count, kind, &done);
    if (rc == OK && !done && (rc = get_stream(stream, &s)) == OK &&
        (rc = direction(dst, src, count, count, kind, &dir, &dl, &sl)) == OK) {
        if (dir == K_H2H)
            rc = RT_FEATURE_NOT_SUPPORT; /* a PCIe card copies host to host only synchronously */
        else if (dl == LOC_UNREGISTERED || sl == LOC_UNREGISTERED) {
            /* Pageable memory: wait for the stream, then copy now. */
            rc = stream_wait(s, -1);
            if (rc == OK)
                move_chunked(NULL, dst, src, count);
        } else {
            struct task *t = new_task(T_COPY);
            t->dst = dst, t->src = src, t->n = count, t->dst_loc = dl, t->src_loc = sl;
            enqueue(s, t);
        }
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, int32_t kind, aclrtStream stream)
{
    aclError rc = memcpy_async(dst, destMax, src, count, kind, stream);
    LOG(rc, "aclrtMemcpyAsync(dst=0x%" PRIxPTR ", destMax=%zu, src=0x%" PRIxPTR ", count=%zu, kind=%d, stream=0x%" PRIxPTR, P(dst),
        destMax, P(src), count, kind, P(stream));
    return rc;
}

static aclError memcpy2d_checks(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                                int *done)
{
    *done = 0;
    if (width == 0 || height == 0) {
        *done = 1;
        return OK;
    }
    if (!dst || !src || width > spitch || width > dpitch)
        return INVALID_PARAM;
    if (kind < K_H2D || kind > K_DEFAULT)
        return INVALID_PARAM;
    if (height > 5u * 1024 * 1024 || width > 5000000u)
        return RT_PARAM_INVALID;
    if (!ctx_ok())
        return RT_CONTEXT_NULL;
    return OK;
}

static int span2d(size_t pitch, size_t width, size_t height, size_t *out)
{
    size_t n;
    if (__builtin_mul_overflow(height - 1, pitch, &n) || __builtin_add_overflow(n, width, &n))
        return 0;
    *out = n;
    return 1;
}

static aclError copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                       struct stream *s, int async)
{
    size_t dspan, sspan;
    int dir, dl, sl;
    if (!span2d(dpitch, width, height, &dspan) || !span2d(spitch, width, height, &sspan))
        return RT_PARAM_INVALID;
    aclError rc = direction(dst, src, dspan, sspan, K_DEFAULT, &dir, &dl, &sl);
    if (rc != OK)
        return rc;
    if (kind != K_DEFAULT && kind != dir)
        return RT_PARAM_INVALID;
    if (!async && dir == K_D2D)
        return RT_FEATURE_NOT_SUPPORT; /* synchronous 2D copies go host to device or device to host */
    if (dir == K_H2H)
        return RT_PARAM_INVALID;
    if (async && dl != LOC_UNREGISTERED && sl != LOC_UNREGISTERED) {
        struct task *t = new_task(T_COPY2D);
        t->dst = dst, t->src = src, t->dpitch = dpitch, t->spitch = spitch, t->width = width, t->height = height;
        t->dst_loc = dl, t->src_loc = sl;
        enqueue(s, t);
        return OK;
    }
    if (async && (rc = stream_wait(s, -1)) != OK)
        return rc;
    for (size_t r = 0; r < height;) {
        size_t rows = width >= CHUNK ? 1 : CHUNK / width, end = r + rows < height ? r + rows : height;
        pthread_mutex_unlock(&mu);
        for (; r < end; r++)
            memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        pthread_mutex_lock(&mu);
    }
    return OK;
}

EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int32_t kind)
{
    pthread_mutex_lock(&mu);
    int done;
    aclError rc = memcpy2d_checks(dst, dpitch, src, spitch, width, height, kind, &done);
    if (rc == OK && !done)
        rc = copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, 0);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemcpy2d(dst=0x%" PRIxPTR ", dpitch=%zu, src=0x%" PRIxPTR ", spitch=%zu, width=%zu, height=%zu, kind=%d", P(dst),
        dpitch, P(src), spitch, width, height, kind);
    return rc;
}

EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                                   int32_t kind, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    int done;
    struct stream *s = NULL;
    aclError rc = memcpy2d_checks(dst, dpitch, src, spitch, width, height, kind, &done);
    if (rc == OK && !done && (rc = get_stream(stream, &s)) == OK)
        rc = copy2d(dst, dpitch, src, spitch, width, height, kind, s, 1);
    pthread_mutex_unlock(&mu);
    LOG(rc,
        "aclrtMemcpy2dAsync(dst=0x%" PRIxPTR ", dpitch=%zu, src=0x%" PRIxPTR
        ", spitch=%zu, width=%zu, height=%zu, kind=%d, stream=0x%" PRIxPTR,
        P(dst), dpitch, P(src), spitch, width, height, kind, P(stream));
    return rc;
}

/* ---- memset ---- */

static aclError memset_checks(void *devPtr, size_t maxCount, size_t count, int *done, int *loc)
{
    *done = 0;
    if (count == 0) {
        *done = 1;
        return OK;
    }
    if (!devPtr)
        return INVALID_PARAM;
    if (count > maxCount)
        return RT_PARAM_INVALID;
    if (!ctx_ok())
        return RT_CONTEXT_NULL;
    *loc = loc_of(devPtr, NULL);
    /* Natively undefined on unregistered host memory; the stand-in refuses. */
    if (*loc == LOC_UNREGISTERED || (*loc == LOC_DEVICE && !in_dev(devPtr, count)) || (*loc == LOC_HOST && !in_reg(devPtr, count)))
        return RT_PARAM_INVALID;
    return OK;
}

EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    pthread_mutex_lock(&mu);
    int done, loc;
    aclError rc = memset_checks(devPtr, maxCount, count, &done, &loc);
    if (rc == OK && !done)
        set_chunked(NULL, devPtr, value & 0xff, count);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemset(devPtr=0x%" PRIxPTR ", maxCount=%zu, value=%d, count=%zu", P(devPtr), maxCount, value, count);
    return rc;
}

EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    int done, loc;
    struct stream *s = NULL;
    aclError rc = memset_checks(devPtr, maxCount, count, &done, &loc);
    if (rc == OK && !done && (rc = get_stream(stream, &s)) == OK) {
        struct task *t = new_task(T_SET);
        t->dst = devPtr, t->n = count, t->value = value, t->dst_loc = loc;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemsetAsync(devPtr=0x%" PRIxPTR ", maxCount=%zu, value=%d, count=%zu, stream=0x%" PRIxPTR, P(devPtr), maxCount,
        value, count, P(stream));
    return rc;
}

#ifndef OLD_RUNTIME
/* The ACL layer's checks of aclrtMemsetD32[Async] (memory.cpp), in the
 * native order: N 0 succeeds before anything else (*done); NULL, a pointer
 * not 4-byte aligned, memSize below N*4 (100000); then memory not from acl
 * (unregistered host memory, 100000), which needs no context. */
static aclError memset32_acl(void *ptr, size_t memSize, size_t n, int *loc, int *done)
{
    *done = n == 0;
    if (*done)
        return OK;
    if (!ptr || ((uintptr_t)ptr & 3) || n > SIZE_MAX / 4 || memSize < n * 4)
        return INVALID_PARAM;
    *loc = loc_of(ptr, NULL);
    if (*loc == LOC_UNREGISTERED)
        return INVALID_PARAM;
    return OK;
}

/* The runtime's checks, after the stream of the async form: the current
 * context, then the range. */
static aclError memset32_rt(void *ptr, size_t n, int loc)
{
    if (!ctx_ok())
        return RT_CONTEXT_NULL;
    if ((loc == LOC_DEVICE && !in_dev(ptr, n * 4)) || (loc == LOC_HOST && !in_reg(ptr, n * 4)))
        return RT_PARAM_INVALID;
    return OK;
}

EXPORT aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t n)
{
    pthread_mutex_lock(&mu);
    int loc = LOC_UNREGISTERED, done;
    aclError rc = memset32_acl(ptr, memSize, n, &loc, &done);
    if (rc == OK && !done && (rc = memset32_rt(ptr, n, loc)) == OK)
        for (size_t i = 0; i < n; i++)
            memcpy((char *)ptr + 4 * i, &value, 4);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemsetD32(ptr=0x%" PRIxPTR ", memSize=%zu, value=%u, N=%zu", P(ptr), memSize, value, n);
    return rc;
}

EXPORT aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t n, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    int loc = LOC_UNREGISTERED, done;
    struct stream *s = NULL;
    aclError rc = memset32_acl(ptr, memSize, n, &loc, &done);
    if (rc == OK && !done && (rc = get_stream(stream, &s)) == OK && (rc = memset32_rt(ptr, n, loc)) == OK) {
        struct task *t = new_task(T_SET32);
        t->dst = ptr, t->n = n * 4, t->value = (int)value, t->dst_loc = loc;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemsetD32Async(ptr=0x%" PRIxPTR ", memSize=%zu, value=%u, N=%zu, stream=0x%" PRIxPTR, P(ptr), memSize, value, n,
        P(stream));
    return rc;
}
#endif

/* ---- batch copies ---- */

#if !defined(OLD_RUNTIME) || !defined(NO_V2)
static const char *loc_name(uint32_t t)
{
    switch (t) {
    case LOC_HOST:
        return "HOST";
    case LOC_DEVICE:
        return "DEVICE";
    case LOC_UNREGISTERED:
        return "UNREGISTERED";
    case 3:
        return "MANAGED";
    case LOC_HOST_NUMA:
        return "HOST_NUMA";
    }
    return "?";
}

/* log_batch prints a batch call with the contents of its arrays. */
static void log_batch(aclError rc, const char *name, void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t n,
                      aclrtMemcpyBatchAttr *attrs, size_t *idx, size_t na, const size_t *failIndex, int hasFail,
                      aclrtStream stream, int hasStream)
{
    struct line l = {0};
    lputf(&l, "%s(", name);
#define ARR(label, a, cnt, fmt, conv)                         \
    do {                                                      \
        lputf(&l, "%s=", label);                              \
        if (!(a) || (cnt) > 64)                               \
            lputf(&l, "0x%" PRIxPTR, P(a));                   \
        else {                                                \
            lputf(&l, "[");                                   \
            for (size_t i_ = 0; i_ < (cnt); i_++)             \
                lputf(&l, i_ ? " " fmt : fmt, conv((a)[i_])); \
            lputf(&l, "]");                                   \
        }                                                     \
    } while (0)
#define ID(x) (x)
    ARR("dsts", dsts, n, "0x%" PRIxPTR, P);
    lputf(&l, ", ");
    ARR("destMaxs", destMaxs, n, "%zu", ID);
    lputf(&l, ", ");
    ARR("srcs", srcs, n, "0x%" PRIxPTR, P);
    lputf(&l, ", ");
    ARR("sizes", sizes, n, "%zu", ID);
    lputf(&l, ", numBatches=%zu, attrs=", n);
    if (!attrs || na > 64)
        lputf(&l, "0x%" PRIxPTR, P(attrs));
    else {
        lputf(&l, "[");
        for (size_t i = 0; i < na; i++)
            lputf(&l, "%s{dst=%s:%u src=%s:%u}", i ? " " : "", loc_name(attrs[i].dstLoc.type), attrs[i].dstLoc.id,
                  loc_name(attrs[i].srcLoc.type), attrs[i].srcLoc.id);
        lputf(&l, "]");
    }
    lputf(&l, ", ");
    ARR("attrsIndexes", idx, na, "%zu", ID);
    lputf(&l, ", numAttrs=%zu", na);
    if (hasFail) {
        if (failIndex && rc != OK && *failIndex != SIZE_MAX)
            lputf(&l, ", failIndex=%zu", *failIndex);
        else
            lputf(&l, ", failIndex=0x%" PRIxPTR, P(failIndex));
    }
    if (hasStream)
        lputf(&l, ", stream=0x%" PRIxPTR, P(stream));
#undef ARR
#undef ID
    lend(&l, rc);
}

static int loc_matches(aclrtMemLocation declared, int real, int realdev)
{
    uint32_t d = declared.type == LOC_HOST_NUMA ? LOC_HOST : declared.type;
    switch (real) {
    case LOC_DEVICE:
        return d == LOC_DEVICE && declared.id == (uint32_t)realdev;
    case LOC_UNREGISTERED:
        return d == LOC_HOST || d == LOC_UNREGISTERED;
    default:
        return d == (uint32_t)real;
    }
}

/* batch implements the four batch copies; fail is NULL for the V2 forms. */
static aclError batch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t n, aclrtMemcpyBatchAttr *attrs,
                      size_t *idx, size_t na, size_t *fail, int hasFail, aclrtStream stream, int async)
{
    if (hasFail && !fail)
        return INVALID_PARAM;
    if (!sizes || n == 0)
        return INVALID_PARAM;
    int allzero = 1;
    for (size_t i = 0; i < n; i++)
        if (sizes[i])
            allzero = 0;
    if (allzero) {
        if (fail)
            *fail = SIZE_MAX;
        return OK;
    }
    if (!dsts || !destMaxs || !srcs || !attrs || !idx)
        return INVALID_PARAM;
    for (size_t i = 0; i < n; i++)
        if (destMaxs[i] < sizes[i])
            return INVALID_PARAM;
    for (size_t k = 0; k < na; k++)
        for (int j = 0; j < 16; j++)
            if (attrs[k].rsv[j])
                return INVALID_PARAM;
    if (fail)
        *fail = SIZE_MAX;
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    struct stream *s = NULL;
    if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else if (async && (rc = get_stream(stream, &s)) != OK)
        ;
    else if (na == 0 || na > n || idx[0] != 0)
        rc = RT_PARAM_INVALID;
    else {
        for (size_t k = 1; k < na && rc == OK; k++)
            if (idx[k] <= idx[k - 1] || idx[k] >= n)
                rc = RT_PARAM_INVALID;
        if (!async && n > BATCH_SYNC_MAX)
            rc = RT_PARAM_INVALID;
    }
    int pageable = 0;
    /* idx is strictly increasing (checked above), so the attribute of copy
     * i is found by moving k forward: linear in n, not quadratic. */
    size_t k = 0;
    for (size_t i = 0; i < n && rc == OK; i++) {
        while (k + 1 < na && idx[k + 1] <= i)
            k++;
        int ddev = -1, sdev = -1;
        int dl = loc_of(dsts[i], &ddev), sl = loc_of(srcs[i], &sdev);
        if (!loc_matches(attrs[k].dstLoc, dl, ddev) || !loc_matches(attrs[k].srcLoc, sl, sdev) ||
            (dl == LOC_DEVICE) == (sl == LOC_DEVICE) || (async && (sizes[i] > destMaxs[i] || sizes[i] == 0)) ||
            (dl == LOC_DEVICE && !in_dev(dsts[i], sizes[i])) || (sl == LOC_DEVICE && !in_dev(srcs[i], sizes[i]))) {
            rc = RT_PARAM_INVALID;
            if (fail)
                *fail = i;
        }
        if (dl == LOC_UNREGISTERED || sl == LOC_UNREGISTERED)
            pageable = 1;
    }
    if (rc == OK) {
        if (async && !pageable) {
            struct task *t = new_task(T_BATCH);
            t->count = n;
            t->dsts = malloc(n * sizeof(void *));
            t->srcs = malloc(n * sizeof(void *));
            t->sizes = malloc(n * sizeof(size_t));
            if (!t->dsts || !t->srcs || !t->sizes)
                abort();
            memcpy(t->dsts, dsts, n * sizeof(void *));
            memcpy(t->srcs, srcs, n * sizeof(void *));
            memcpy(t->sizes, sizes, n * sizeof(size_t));
            enqueue(s, t);
        } else {
            if (async)
                rc = stream_wait(s, -1);
            for (size_t i = 0; i < n && rc == OK; i++)
                move_chunked(NULL, dsts[i], srcs[i], sizes[i]);
        }
    }
    pthread_mutex_unlock(&mu);
    return rc;
}
#endif

#ifndef OLD_RUNTIME
EXPORT aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                 aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)
{
    aclError rc = batch(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex, 1, NULL, 0);
    log_batch(rc, "aclrtMemcpyBatch", dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex, 1, NULL, 0);
    return rc;
}

EXPORT aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                      aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex,
                                      aclrtStream stream)
{
#ifdef OLD_DRIVER
    LOG(RT_FEATURE_NOT_SUPPORT, "aclrtMemcpyBatchAsync(numBatches=%zu", numBatches);
    return RT_FEATURE_NOT_SUPPORT;
#endif
    aclError rc = batch(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex, 1, stream, 1);
    log_batch(rc, "aclrtMemcpyBatchAsync", dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex, 1,
              stream, 1);
    return rc;
}
#endif

#ifndef NO_V2
EXPORT aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                   aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs)
{
    aclError rc = batch(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, NULL, 0, NULL, 0);
    log_batch(rc, "aclrtMemcpyBatchV2", dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, NULL, 0, NULL, 0);
    return rc;
}

EXPORT aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                        aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, aclrtStream stream)
{
#ifdef OLD_DRIVER
    LOG(RT_FEATURE_NOT_SUPPORT, "aclrtMemcpyBatchAsyncV2(numBatches=%zu", numBatches);
    return RT_FEATURE_NOT_SUPPORT;
#endif
    aclError rc = batch(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, NULL, 0, stream, 1);
    log_batch(rc, "aclrtMemcpyBatchAsyncV2", dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, NULL, 0,
              stream, 1);
    return rc;
}
#endif

/* ---- descriptor and offset copies ---- */

#ifndef OLD_RUNTIME
static aclError desc_kind(int32_t kind)
{
    if (kind < 0 || kind >= K_END)
        return INVALID_PARAM;
    if (kind != K_INNER_D2D)
        return RT_FEATURE_NOT_SUPPORT;
    return OK;
}

EXPORT aclError aclrtGetMemcpyDescSize(int32_t kind, size_t *descSize)
{
    aclError rc = !descSize ? INVALID_PARAM : desc_kind(kind);
    if (rc == OK)
        *descSize = DESC_SIZE;
    LOG(rc, "aclrtGetMemcpyDescSize(kind=%d, descSize=0x%" PRIxPTR, kind, P(descSize));
    return rc;
}

EXPORT aclError aclrtSetMemcpyDesc(void *desc, int32_t kind, void *srcAddr, void *dstAddr, size_t count, void *config)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    /* Native order: the ACL layer's checks, the kind, count above 4 GiB
     * (api_error.cc:2479-2481), 64-byte alignment (2482-2484), device
     * memory (2488-2518), then the context. */
    if (!desc || !srcAddr || !dstAddr || count == 0 || config)
        rc = INVALID_PARAM;
    else if ((rc = desc_kind(kind)) != OK)
        ;
    else if (count > ((size_t)4 << 30) || P(desc) % 64 != 0 || !in_dev(desc, DESC_SIZE))
        rc = RT_PARAM_INVALID;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        /* The native runtime writes the descriptor with an internal H2D copy. */
        uint64_t d[4] = {P(srcAddr), P(dstAddr), count, 0};
        memcpy(desc, d, sizeof d);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSetMemcpyDesc(desc=0x%" PRIxPTR ", kind=%d, srcAddr=0x%" PRIxPTR ", dstAddr=0x%" PRIxPTR ", count=%zu, config=0x%" PRIxPTR,
        P(desc), kind, P(srcAddr), P(dstAddr), count, P(config));
    return rc;
}

EXPORT aclError aclrtMemcpyAsyncWithDesc(void *desc, int32_t kind, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = OK;
    /* Native order: NULL desc, kind 8 or above, NULL stream (ACL layer),
     * the stream handle (api_c_memory.cc:402), the kind (api_error.cc:2528-2531),
     * device memory and 64-byte alignment (2538-2546, 2325-2328). */
    if (!desc || kind < 0 || kind >= 8 || !stream)
        rc = INVALID_PARAM;
    else if ((rc = get_stream(stream, &s)) != OK || (rc = desc_kind(kind)) != OK)
        ;
    else if (!in_dev(desc, DESC_SIZE) || P(desc) % 64 != 0)
        rc = RT_PARAM_INVALID;
    else {
        struct task *t = new_task(T_DESC);
        t->src = desc;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtMemcpyAsyncWithDesc(desc=0x%" PRIxPTR ", kind=%d, stream=0x%" PRIxPTR, P(desc), kind, P(stream));
    return rc;
}

EXPORT aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset, const void **src, size_t count,
                                           size_t srcDataOffset, int32_t kind, aclrtStream stream)
{
#ifdef OLD_DRIVER
    LOG(RT_FEATURE_NOT_SUPPORT, "aclrtMemcpyAsyncWithOffset(count=%zu", count);
    return RT_FEATURE_NOT_SUPPORT;
#endif
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = OK;
    if (count == 0)
        ;
    else if (!dst || !src)
        rc = INVALID_PARAM;
    else if (kind != K_INNER_D2D || srcDataOffset > OFFSET_MAX || dstDataOffset > OFFSET_MAX || dstDataOffset >= destMax ||
             count > destMax - dstDataOffset || count > OFFSET_MAX_COUNT)
        rc = RT_PARAM_INVALID;
    else if ((rc = get_stream(stream, &s)) != OK)
        ;
    else if (!in_dev(dst, sizeof(void *)) || !in_dev(src, sizeof(void *)))
        rc = RT_PARAM_INVALID;
    else {
        struct task *t = new_task(T_OFFSET);
        t->dslot = dst, t->sslot = src, t->n = count, t->dstOff = dstDataOffset, t->srcOff = srcDataOffset;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc,
        "aclrtMemcpyAsyncWithOffset(dst=0x%" PRIxPTR ", destMax=%zu, dstDataOffset=%zu, src=0x%" PRIxPTR
        ", count=%zu, srcDataOffset=%zu, kind=%d, stream=0x%" PRIxPTR,
        P(dst), destMax, dstDataOffset, P(src), count, srcDataOffset, kind, P(stream));
    return rc;
}
#endif

/* ---- host callbacks ---- */

EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = get_stream(stream, &s);
    if (rc == OK) {
        if (s->subscribed && s->sub_tid != threadId)
            rc = RT_STREAM_SUBSCRIBE;
        else
            s->subscribed = 1, s->sub_tid = threadId;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSubscribeReport(threadId=%" PRIu64 ", stream=0x%" PRIxPTR, threadId, P(stream));
    return rc;
}

EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = get_stream(stream, &s);
    if (rc == OK) {
        if (!s->subscribed || s->sub_tid != threadId)
            rc = RT_THREAD_SUBSCRIBE;
        else
            s->subscribed = 0;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtUnSubscribeReport(threadId=%" PRIu64 ", stream=0x%" PRIxPTR, threadId, P(stream));
    return rc;
}

EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, int32_t blockType, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = OK;
    if (!fn || (blockType != 0 && blockType != 1))
        rc = INVALID_PARAM;
    else if ((rc = get_stream(stream, &s)) != OK)
        ;
    else if (!s->subscribed)
        rc = RT_STREAM_NO_CB_REG;
    else {
        struct task *t = new_task(T_CALLBACK);
        t->fn = fn, t->ud = userData, t->block = blockType;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtLaunchCallback(fn=0x%" PRIxPTR ", userData=0x%" PRIxPTR ", blockType=%d, stream=0x%" PRIxPTR, P(fn), P(userData),
        blockType, P(stream));
    return rc;
}

/* aclrtProcessReport runs, on the calling thread, one callback of a stream
 * the thread subscribed to, waiting up to timeout ms (-1: forever) for one. */
EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    uint64_t tid = (uint64_t)pthread_self();
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    struct report *r = NULL;
    struct timespec dl;
    if (timeout == 0 || timeout < -1)
        rc = INVALID_PARAM;
    else {
        if (timeout > 0)
            deadline_in(&dl, timeout);
        for (;;) {
            for (r = reports; r && (r->tid != tid || r->picked); r = r->next)
                ;
            if (r)
                break;
            if (timeout < 0)
                pthread_cond_wait(&cv, &mu);
            else if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT) {
                rc = RT_REPORT_TIMEOUT;
                break;
            }
        }
    }
    if (r) {
        r->picked = 1;
        pthread_mutex_unlock(&mu);
        r->fn(r->ud);
        pthread_mutex_lock(&mu);
        r->done = 1;
        if (!r->block) {
            for (struct report **pp = &reports; *pp; pp = &(*pp)->next)
                if (*pp == r) {
                    *pp = r->next;
                    break;
                }
            free(r);
        }
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtProcessReport(timeout=%d", timeout);
    return rc;
}

/* aclwasmStandinStats fills out[0..6] with: live device allocations, live
 * created streams, live events, live host registrations, the sum of the
 * devices' aclrtSetDevice reference counts, whether aclInit is in effect,
 * and how many objects were still alive when their device was reset or the
 * runtime finalized (since the library was loaded). */
EXPORT void aclwasmStandinStats(int64_t *out)
{
    pthread_mutex_lock(&mu);
    int64_t user = 0, refs = 0;
    for (size_t i = 0; i < nstreams; i++)
        user += !streams[i]->isdef;
    for (int i = 0; i < MAXDEV; i++)
        refs += devs[i].refs;
    out[0] = (int64_t)nallocs;
    out[1] = user;
    out[2] = (int64_t)nevents;
    out[3] = (int64_t)nregs;
    out[4] = refs;
    out[5] = inited;
    out[6] = leaked;
    pthread_mutex_unlock(&mu);
}

/* ---- ABI v1.2 section 12: error state and resource queries ---- */
#ifndef OLD_RUNTIME
/* The stand-in's device has 24 cube and 48 vector cores; natively the
 * device must have been set (the runtime looks the device up). */
EXPORT aclError aclrtGetDeviceResLimit(int32_t deviceId, int32_t type, uint32_t *value)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!value)
        rc = INVALID_PARAM;
    else if (type < 0 || type >= 2)
        rc = RT_PARAM_INVALID;
    else if (deviceId < 0 || deviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else if (devs[deviceId].refs == 0)
        rc = RT_CONTEXT_NULL;
    else
        *value = type == 0 ? 24u : 48u;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetDeviceResLimit(deviceId=%d, type=%d, value=0x%" PRIxPTR, deviceId, type, P(value));
    return rc;
}

/* aclrtGetErrorVerbose reports no fault: the stand-in's devices never
 * fail. Only the fields the native ACL layer writes are written. */
EXPORT aclError aclrtGetErrorVerbose(int32_t deviceId, uint8_t *errorInfo)
{
    aclError rc = OK;
    if (!errorInfo)
        rc = INVALID_PARAM;
    else if (deviceId < 0 || deviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else {
        errorInfo[0] = errorInfo[1] = 0;
        memset(errorInfo + 4, 0, 8);
    }
    LOG(rc, "aclrtGetErrorVerbose(deviceId=%d, errorInfo=0x%" PRIxPTR, deviceId, P(errorInfo));
    return rc;
}
#endif

/* ---- notifies (ABI v1.2 section 12), in the native check order ---- */

#ifndef OLD_RUNTIME
static struct notify *find_notify(void *h)
{
    for (size_t i = 0; i < nnotifies; i++)
        if (notifies[i] == h && !notifies[i]->dead)
            return notifies[i];
    return NULL;
}

EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
#ifdef OLD_DRIVER
    if (flag == 1) {
        LOG(RT_FEATURE_NOT_SUPPORT, "aclrtCreateNotify(notify=0x%" PRIxPTR ", flag=%" PRIu64, P(notify), flag);
        return RT_FEATURE_NOT_SUPPORT;
    }
#endif
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!notify)
        rc = INVALID_PARAM;
    else if (flag != 0 && flag != 1) /* ACL_NOTIFY_DEFAULT, ACL_NOTIFY_DEVICE_USE_ONLY */
        rc = RT_PARAM_INVALID;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else {
        struct notify *n = calloc(1, sizeof *n);
        if (!n)
            rc = RT_MEMORY_ALLOCATION;
        else {
            n->dev = cur->dev;
            PUSH(notifies, nnotifies, capnotifies, n);
            *notify = n;
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtCreateNotify(notify=0x%" PRIxPTR ", flag=%" PRIu64, P(notify), flag);
    return rc;
}

EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
    pthread_mutex_lock(&mu);
    aclError rc = RT_INVALID_HANDLE;
    if (!notify)
        rc = INVALID_PARAM;
    else
        for (size_t i = 0; i < nnotifies; i++)
            if (notifies[i] == notify) {
                notifies[i]->dead = 1; /* releases queued waits */
                bury(notifies[i]);
                notifies[i] = notifies[--nnotifies];
                pthread_cond_broadcast(&cv);
                rc = OK;
                break;
            }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtDestroyNotify(notify=0x%" PRIxPTR, P(notify));
    return rc;
}

EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct notify *n = NULL;
    aclError rc = OK;
    if (!notify)
        rc = INVALID_PARAM;
    else if (!(n = find_notify(notify)))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK) {
        struct task *t = new_task(T_NRECORD);
        t->nt = n;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtRecordNotify(notify=0x%" PRIxPTR ", stream=0x%" PRIxPTR, P(notify), P(stream));
    return rc;
}

/* timeout is in milliseconds; 0 and UINT32_MAX wait without a limit. */
EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct notify *n = NULL;
    aclError rc = OK;
    if (!notify)
        rc = INVALID_PARAM;
    else if (!(n = find_notify(notify)))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK) {
        struct task *t = new_task(T_NWAIT);
        t->nt = n;
        t->timeout_ms = timeout == UINT32_MAX || timeout > INT32_MAX ? 0 : (int)timeout;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtWaitAndResetNotify(notify=0x%" PRIxPTR ", stream=0x%" PRIxPTR ", timeout=%u", P(notify), P(stream), timeout);
    return rc;
}
#endif

#ifndef OLD_RUNTIME
/* aclrtEventGetTimestamp (ABI v1.2 section 12): when the latest record ran,
 * in microseconds of the stand-in's monotonic clock. */
EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    pthread_mutex_lock(&mu);
    struct event *e = NULL;
    aclError rc = OK;
    if (!timestamp || !event)
        rc = INVALID_PARAM;
    else if (!(e = find_event(event)))
        rc = RT_INVALID_HANDLE;
    else if (e->enq == 0)
        rc = RT_INTERNAL_ERROR; /* natively "no recorder" */
    else if (e->done == 0 || e->done < e->enq || e->aborted == e->done)
        rc = RT_EVENT_TIMESTAMP_INVALID; /* the record has not run or was cancelled: no valid timestamp (a reset keeps it) */
    else
        *timestamp = (uint64_t)(e->t_ms * 1e3);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtEventGetTimestamp(event=0x%" PRIxPTR ", timestamp=0x%" PRIxPTR, P(event), P(timestamp));
    return rc;
}
#endif

/* ---- device and product queries (ABI v1.3 section 15), in the native
 * check order. The stand-in is an Atlas A2 card, SoC Ascend910B1: 6 AI
 * CPUs, 24 cube and 48 vector cores, 192 MiB of L2, NPU architecture 2201.
 * It reports model task updates as supported where the simulator does
 * not, so that a test can tell the sandbox asked the library. ---- */

#ifndef OLD_RUNTIME
static const char standin_soc[] = "Ascend910B1";

EXPORT const char *aclrtGetSocName(void)
{
    LOG(OK, "aclrtGetSocName(");
    return standin_soc;
}

/* The NPU architecture of a SoC name, or 0 for a name the stand-in's
 * platform table does not know (natively 107000): a few SoCs of the
 * native platform description. */
static int32_t soc_arch(const char *soc)
{
    static const struct { const char *name; int32_t arch; } archs[] = {
        {"Ascend910B", 1001}, {"Ascend910A", 1001}, {"Ascend910B1", 2201}, {"Ascend910B2", 2201},
        {"Ascend910B3", 2201}, {"Ascend910B4", 2201}, {"Ascend910_9391", 2201}, {"Ascend910_9392", 2201},
        {"Ascend950PR_9579", 3510}, {"Ascend950DT_9591", 3510}, {"Ascend310P3", 2002}, {"Ascend310B1", 3002},
    };
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(soc, archs[i].name) == 0)
            return archs[i].arch;
    return 0;
}

EXPORT aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    aclError rc = OK;
    int32_t arch = 0;
    if (!socVersion || !canCompatible || socVersion[0] == '\0')
        rc = RT_PARAM_INVALID; /* the runtime's decorator: no ACL-layer check */
    else if ((arch = soc_arch(socVersion)) == 0)
        rc = RT_PARAM_INVALID;
    else
        *canCompatible = arch == soc_arch(standin_soc);
    LOG(rc, "aclrtCheckArchCompatibility(socVersion=%s, canCompatible=0x%" PRIxPTR, socVersion ? socVersion : "(null)", P(canCompatible));
    return rc;
}

EXPORT aclError aclGetCannAttribute(int32_t attr, int32_t *value)
{
    aclError rc = OK;
    if (!value)
        rc = INVALID_PARAM;
    else if (attr < 0 || attr > 2)
        rc = INVALID_PARAM;
    else
        *value = attr == 2 ? 0 : 1; /* INF_NAN and BF16 on this SoC; no JIT compiler */
    LOG(rc, "aclGetCannAttribute(attr=%d, value=0x%" PRIxPTR, attr, P(value));
    return rc;
}

EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, int32_t attr, int64_t *value)
{
    aclError rc = OK;
    int64_t v = 0;
    if (!value)
        rc = INVALID_PARAM;
    else if (deviceId >= (uint32_t)ndev)
        rc = RT_PARAM_INVALID; /* natively 107000, not 107001 */
    else {
        switch (attr) {
        case 1: v = 6; break;
        case 101: case 102: v = 24; break;
        case 201: v = 48; break;
        case 202: case 203: case 204: case 205: case 206: case 207:
        case 208: case 209: case 210: case 211: case 212: v = 0; break; /* no SIMT */
        case 301:
            pthread_mutex_lock(&mu);
            v = (int64_t)devs[deviceId].total;
            pthread_mutex_unlock(&mu);
            break;
        case 302: v = 201326592; break;
        case 401: case 402: case 403: case 404: case 405: case 406: case 407: case 408: v = 0; break;
        case 409: v = 3; break; /* a PCIe card */
        case 501: v = 0; break;
        case 601: v = 2201; break;
        default: rc = RT_PARAM_INVALID;
        }
        if (rc == OK)
            *value = v;
    }
    LOG(rc, "aclrtGetDeviceInfo(deviceId=%u, attr=%d, value=0x%" PRIxPTR, deviceId, attr, P(value));
    return rc;
}

EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, int32_t featureType, int32_t *value)
{
    aclError rc = OK;
    if (!value)
        rc = INVALID_PARAM;
    else if (featureType < 0 || featureType >= 20002)
        rc = RT_PARAM_INVALID;
    else if (featureType != 1 && featureType != 21 && featureType != 10001 && featureType != 20001)
        rc = RT_PARAM_INVALID;
    else if (deviceId < 0 || deviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else
        *value = featureType == 1 ? 1 : 0; /* model task updates: yes; memory queues: no */
    LOG(rc, "aclrtGetDeviceCapability(deviceId=%d, featureType=%d, value=0x%" PRIxPTR, deviceId, featureType, P(value));
    return rc;
}

EXPORT aclError aclrtQueryDeviceStatus(int32_t deviceId, int32_t *deviceStatus)
{
    aclError rc = OK;
    if (!deviceStatus)
        rc = INVALID_PARAM;
    else if (deviceId < 0 || deviceId >= ndev)
        rc = RT_INVALID_DEVICEID;
    else
        *deviceStatus = 0; /* ACL_RT_DEVICE_STATUS_NORMAL */
    LOG(rc, "aclrtQueryDeviceStatus(deviceId=%d, deviceStatus=0x%" PRIxPTR, deviceId, P(deviceStatus));
    return rc;
}
#endif

/* ---- notify resets (ABI v1.3 section 15), in the native check order:
 * each notify in turn is looked up, then the current context is needed;
 * the reset clears the flag (natively after the current context's default
 * stream has run what it holds). An old TS firmware refuses it. ---- */
#ifndef OLD_RUNTIME
EXPORT aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    pthread_mutex_lock(&mu);
    aclError rc = OK;
    if (!notifies)
        rc = INVALID_PARAM;
    else if ((uint32_t)num == 0)
        rc = RT_PARAM_INVALID;
    else {
        for (uint32_t i = 0; i < (uint32_t)num && rc == OK; i++) {
            struct notify *n = find_notify(notifies[i]);
            if (!n)
                rc = RT_INVALID_HANDLE;
            else if (!cur)
                rc = RT_CONTEXT_NULL;
#ifdef OLD_DRIVER
            else
                rc = RT_FEATURE_NOT_SUPPORT; /* the TS firmware lacks MC2_ENHANCE */
#else
            else
                n->set = 0;
#endif
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtNotifyBatchReset(notifies=0x%" PRIxPTR ", num=%zu", P(notifies), num);
    return rc;
}
#endif

#ifndef OLD_RUNTIME
/* aclrtReduceAsync (ABI v1.3 section 15), in the native order: NULL dst or
 * src, a reserve, a type outside the map (100000); the stream, count 0, a
 * kind outside [SUM, EQUAL], a SUM over 4 GiB (107000); the context; EQUAL
 * (the stand-in is no STARS chip: 207000); then device memory and the
 * alignment of src, then dst (107008). */
EXPORT aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, int32_t kind, int32_t type, aclrtStream stream,
                                 void *reserve)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = OK;
    size_t a = reduce_align(type);
    if (!dst || !src || reserve || !reduce_type_ok(type))
        rc = INVALID_PARAM;
    else if (stream && !find_stream(stream))
        rc = RT_INVALID_HANDLE;
    else if (count == 0 || kind < R_SUM || kind > R_EQUAL || (kind == R_SUM && count > (4ull << 30)))
        rc = RT_PARAM_INVALID;
    else if ((rc = get_stream(stream, &s)) != OK)
        ;
    else if (kind == R_EQUAL)
        rc = RT_FEATURE_NOT_SUPPORT;
    else if (!in_dev(dst, count) || !in_dev(src, count))
        rc = RT_PARAM_INVALID;
    else if ((uintptr_t)src % a || (uintptr_t)dst % a)
        rc = RT_ADDR_UNALIGNED;
    else {
        struct task *t = new_task(T_REDUCE);
        t->dst = dst, t->src = src, t->n = count, t->value = kind, t->count = (size_t)type;
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtReduceAsync(dst=0x%" PRIxPTR ", src=0x%" PRIxPTR ", count=%" PRIu64 ", kind=%d, type=%d, stream=0x%" PRIxPTR
            ", reserve=0x%" PRIxPTR,
        P(dst), P(src), count, kind, type, P(stream), P(reserve));
    return rc;
}
#endif

/* ---- kernels (ABI v1.3 section 13.3), in the native check order
 * (src/acl/aclrt_impl/kernel.cpp, then the runtime's api_impl.cc) ----
 *
 * A "kernel binary" here is a text file naming C functions of the
 * stand-in's own registry (kregistry below), not device code:
 *
 *     aclwasm-standin-kernels
 *     # comment
 *     SYMBOL FUNCTION
 *
 * aclrtBinaryGetFunction looks SYMBOL up; a launch runs FUNCTION once per
 * block on the stream's worker, on the arguments packed as the runtime
 * packs those of an AI core kernel (each aclrtKernelArgsAppend at the next
 * multiple of 8 bytes). A function that returns an error fails its stream
 * with it at the next synchronize, as a kernel that faults on the device
 * does (ACL_ERROR_RT_AICORE_EXCEPTION). The functions trust their
 * arguments, as a device does: the caller is what the tests check. */
#ifndef OLD_RUNTIME
enum { AICORE_TIMEOUT = 507014, AICORE_EXCEPTION = 507015 };
#define KARGS_MAX 1024u /* bytes of arguments */
#define KPARAMS_MAX 64u

struct kblock {
    uint32_t block, dim;
    const char *args;
    size_t argsz;
    const int *cancel; /* the stream's, read without mu */
    double deadline;   /* now_ms() after which the launch has timed out; 0 none */
};

typedef aclError (*kernel_fn)(const struct kblock *k);

/* kslot returns the argument at slot i (byte offset 8*i) as n bytes, or
 * NULL when the arguments are too short: a launch packed wrongly. */
static const void *kslot(const struct kblock *k, size_t i, size_t n)
{
    return 8 * i + n <= k->argsz ? k->args + 8 * i : NULL;
}

static void *kptr(const struct kblock *k, size_t i)
{
    const void *p = kslot(k, i, 8);
    uint64_t v = 0;
    if (p)
        memcpy(&v, p, 8);
    return (void *)(uintptr_t)v;
}

static uint32_t ku32(const struct kblock *k, size_t i)
{
    uint32_t v = 0;
    const void *p = kslot(k, i, 4);
    if (p)
        memcpy(&v, p, 4);
    return v;
}

/* chunk is block b's part of n elements split in dim contiguous parts. */
static void chunk(const struct kblock *k, uint32_t n, uint64_t *lo, uint64_t *hi)
{
    *lo = (uint64_t)n * k->block / k->dim;
    *hi = (uint64_t)n * (k->block + 1) / k->dim;
}

/* x[block] += 1 (uint32 x[blockDim]) */
static aclError k_inc_u32(const struct kblock *k)
{
    if (k->argsz != 8)
        return AICORE_EXCEPTION;
    ((uint32_t *)kptr(k, 0))[k->block]++;
    return OK;
}

/* dst[0..n) = v, by block 0 (uint8 dst, uint32 n, uint8 v) */
static aclError k_fill_u8(const struct kblock *k)
{
    if (k->argsz != 17)
        return AICORE_EXCEPTION;
    uint8_t v;
    memcpy(&v, kslot(k, 2, 1), 1);
    if (k->block == 0)
        memset(kptr(k, 0), v, ku32(k, 1));
    return OK;
}

/* dst[0..n) = src[0..n), by block 0 (uint8 src, uint8 dst, uint32 n) */
static aclError k_copy_u8(const struct kblock *k)
{
    if (k->argsz != 20)
        return AICORE_EXCEPTION;
    if (k->block == 0)
        memmove(kptr(k, 1), kptr(k, 0), ku32(k, 2));
    return OK;
}

/* a kernel that faults, as an illegal access does on the device */
static aclError k_fault(const struct kblock *k)
{
    (void)k;
    return AICORE_EXCEPTION;
}

/* a kernel that runs until its stream's work is cancelled or the launch
 * times out */
static aclError k_spin(const struct kblock *k)
{
    while (!__atomic_load_n(k->cancel, __ATOMIC_RELAXED)) {
        if (k->deadline > 0 && now_ms() >= k->deadline)
            return AICORE_TIMEOUT;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return OK;
}

/* basic's FillF32: dst[i] = value over block's chunk (float dst, uint32 n, float value) */
static aclError k_fill_f32(const struct kblock *k)
{
    if (k->argsz != 20)
        return AICORE_EXCEPTION;
    float v, *dst = kptr(k, 0);
    memcpy(&v, kslot(k, 2, 4), 4);
    uint64_t lo, hi;
    chunk(k, ku32(k, 1), &lo, &hi);
    for (uint64_t i = lo; i < hi; i++)
        dst[i] = v;
    return OK;
}

/* basic's AddF32: c = a + b over block's chunk (float a, b, c, uint32 n) */
static aclError k_add_f32(const struct kblock *k)
{
    if (k->argsz != 28)
        return AICORE_EXCEPTION;
    const float *a = kptr(k, 0), *b = kptr(k, 1);
    float *c = kptr(k, 2);
    uint64_t lo, hi;
    chunk(k, ku32(k, 3), &lo, &hi);
    for (uint64_t i = lo; i < hi; i++)
        c[i] = a[i] + b[i];
    return OK;
}

static const struct kfunc {
    const char *name;
    kernel_fn fn;
} kregistry[] = {
    {"standin_inc_u32", k_inc_u32}, {"standin_fill_u8", k_fill_u8}, {"standin_copy_u8", k_copy_u8},
    {"standin_fault", k_fault},     {"standin_spin", k_spin},       {"standin_fill_f32", k_fill_f32},
    {"standin_add_f32", k_add_f32},
};

/* A loaded binary: its symbols, each bound to a registry entry. Functions
 * are the binary's entries, valid while it is loaded. */
struct kentry {
    char sym[128];
    const struct kfunc *kf;
    struct kbin *bin;
};

struct kbin {
    int dead;
    size_t n;
    struct kentry e[KPARAMS_MAX];
};
static struct kbin **kbins;
static size_t nkbins, capkbins;

/* The arguments handle: one per thread, re-initialized by each
 * aclrtKernelArgsInit, as the runtime's (ApiImpl::KernelArgsInit). */
struct kargs {
    struct kentry *fn;
    int finalized;
    size_t n, size;
    char buf[KARGS_MAX];
};
static __thread struct kargs targs;

static struct kbin *find_kbin(void *h)
{
    for (size_t i = 0; i < nkbins; i++)
        if (kbins[i] == h && !kbins[i]->dead)
            return kbins[i];
    return NULL;
}

static struct kentry *find_kfunc(void *h)
{
    for (size_t i = 0; i < nkbins; i++) {
        struct kbin *b = kbins[i];
        if (!b->dead && (char *)h >= (char *)b->e && (char *)h < (char *)(b->e + b->n) &&
            ((char *)h - (char *)b->e) % sizeof(struct kentry) == 0)
            return h;
    }
    return NULL;
}

/* parse_kbin reads a binary file; 0 when it is not one. */
static int parse_kbin(const char *path, struct kbin *b)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int ok = fgets(line, sizeof line, f) && strcmp(line, "aclwasm-standin-kernels\n") == 0;
    while (ok && fgets(line, sizeof line, f)) {
        char sym[128], fn[128];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%127s %127s", sym, fn) != 2 || b->n == KPARAMS_MAX) {
            ok = 0;
            break;
        }
        const struct kfunc *kf = NULL;
        for (size_t i = 0; i < sizeof kregistry / sizeof kregistry[0]; i++)
            if (strcmp(kregistry[i].name, fn) == 0)
                kf = &kregistry[i];
        if (!kf) {
            ok = 0;
            break;
        }
        strcpy(b->e[b->n].sym, sym);
        b->e[b->n].kf = kf;
        b->e[b->n].bin = b;
        b->n++;
    }
    fclose(f);
    return ok;
}

/* aclrtBinaryLoadFromFile: binPath, binHandle (100000); a missing or
 * invalid file (107000, RT_ERROR_INVALID_VALUE). Options are ignored. */
EXPORT aclError aclrtBinaryLoadFromFile(const char *binPath, void *options, void **binHandle)
{
    aclError rc = OK;
    struct kbin *b = NULL;
    if (!binPath || !binHandle)
        rc = INVALID_PARAM;
    else if (!(b = calloc(1, sizeof *b)))
        abort();
    else if (!parse_kbin(binPath, b)) {
        free(b);
        rc = RT_PARAM_INVALID;
    } else {
        pthread_mutex_lock(&mu);
        PUSH(kbins, nkbins, capkbins, b);
        pthread_mutex_unlock(&mu);
        *binHandle = b;
    }
    LOG(rc, "aclrtBinaryLoadFromFile(binPath=%s, options=0x%" PRIxPTR ", binHandle=0x%" PRIxPTR, binPath ? binPath : "NULL",
        P(options), P(binHandle));
    return rc;
}

/* aclrtBinaryGetFunction: binHandle, kernelName, funcHandle (100000); the
 * handle (107017); a name the binary lacks (107000). */
EXPORT aclError aclrtBinaryGetFunction(void *binHandle, const char *kernelName, void **funcHandle)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct kbin *b = NULL;
    if (!binHandle || !kernelName || !funcHandle)
        rc = INVALID_PARAM;
    else if (!(b = find_kbin(binHandle)))
        rc = RT_INVALID_HANDLE;
    else {
        rc = RT_PARAM_INVALID;
        for (size_t i = 0; i < b->n; i++)
            if (strcmp(b->e[i].sym, kernelName) == 0) {
                *funcHandle = &b->e[i];
                rc = OK;
            }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtBinaryGetFunction(binHandle=0x%" PRIxPTR ", kernelName=%s, funcHandle=0x%" PRIxPTR, P(binHandle),
        kernelName ? kernelName : "NULL", P(funcHandle));
    return rc;
}

/* aclrtBinaryUnLoad: binHandle (100000), the handle (107017). */
EXPORT aclError aclrtBinaryUnLoad(void *binHandle)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct kbin *b = NULL;
    if (!binHandle)
        rc = INVALID_PARAM;
    else if (!(b = find_kbin(binHandle)))
        rc = RT_INVALID_HANDLE;
    else {
        b->dead = 1;
        for (size_t i = 0; i < nkbins; i++)
            if (kbins[i] == b) {
                kbins[i] = kbins[--nkbins];
                break;
            }
        bury(b); /* a queued launch may still name its functions */
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtBinaryUnLoad(binHandle=0x%" PRIxPTR, P(binHandle));
    return rc;
}

/* aclrtKernelArgsInit: funcHandle, argsHandle (100000), the function
 * (107017). */
EXPORT aclError aclrtKernelArgsInit(void *funcHandle, void **argsHandle)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct kentry *fn = NULL;
    if (!funcHandle || !argsHandle)
        rc = INVALID_PARAM;
    else if (!(fn = find_kfunc(funcHandle)))
        rc = RT_INVALID_HANDLE;
    else {
        targs.fn = fn;
        targs.finalized = 0;
        targs.n = targs.size = 0;
        *argsHandle = &targs;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtKernelArgsInit(funcHandle=0x%" PRIxPTR ", argsHandle=0x%" PRIxPTR, P(funcHandle), P(argsHandle));
    return rc;
}

/* aclrtKernelArgsAppend: argsHandle, param, paramSize 0, paramHandle
 * (100000); a handle not this thread's (107017); after Finalize (207000);
 * too many or too large (107000). The log line shows the bytes. */
EXPORT aclError aclrtKernelArgsAppend(void *argsHandle, void *param, size_t paramSize, void **paramHandle)
{
    aclError rc = OK;
    size_t off = (targs.size + 7) & ~(size_t)7;
    if (!argsHandle || !param || !paramSize || !paramHandle)
        rc = INVALID_PARAM;
    else if (argsHandle != &targs || !targs.fn)
        rc = RT_INVALID_HANDLE;
    else if (targs.finalized)
        rc = RT_FEATURE_NOT_SUPPORT;
    else if (targs.n + 1 > KPARAMS_MAX || paramSize > KARGS_MAX - off || off > KARGS_MAX)
        rc = RT_PARAM_INVALID;
    else {
        memset(targs.buf + targs.size, 0, off - targs.size);
        memcpy(targs.buf + off, param, paramSize);
        targs.size = off + paramSize;
        *paramHandle = targs.buf + off;
        targs.n++;
    }
    struct line l = {0};
    lputf(&l, "aclrtKernelArgsAppend(argsHandle=0x%" PRIxPTR ", param=0x%" PRIxPTR ", paramSize=%zu, paramHandle=0x%" PRIxPTR,
          P(argsHandle), P(param), paramSize, P(paramHandle));
    if (rc == OK) {
        lputf(&l, ", bytes=");
        for (size_t i = 0; i < paramSize; i++)
            lputf(&l, "%02x", (unsigned char)((char *)param)[i]);
    }
    lend(&l, rc);
    return rc;
}

/* aclrtKernelArgsFinalize: argsHandle (100000), not this thread's
 * (107017). */
EXPORT aclError aclrtKernelArgsFinalize(void *argsHandle)
{
    aclError rc = OK;
    if (!argsHandle)
        rc = INVALID_PARAM;
    else if (argsHandle != &targs || !targs.fn)
        rc = RT_INVALID_HANDLE;
    else
        targs.finalized = 1;
    LOG(rc, "aclrtKernelArgsFinalize(argsHandle=0x%" PRIxPTR, P(argsHandle));
    return rc;
}

typedef struct {
    int32_t id;
    union {
        uint16_t timeout; /* s */
        struct {
            uint32_t lo, hi;
        } timeoutUs;
        uint32_t rsv[4];
    } value;
} klaunch_attr;
_Static_assert(sizeof(klaunch_attr) == 20, "aclrtLaunchKernelAttr is 20 bytes");

typedef struct {
    klaunch_attr *attrs;
    size_t numAttrs;
} klaunch_cfg;

/* aclrtLaunchKernelWithConfig: funcHandle, numBlocks 0, argsHandle, a
 * reserve (100000); the stream (context 107002, handle 107017, device
 * 107003); the function and arguments (107017; not finalized 107000). */
EXPORT aclError aclrtLaunchKernelWithConfig(void *funcHandle, uint32_t numBlocks, aclrtStream stream, klaunch_cfg *cfg,
                                            void *argsHandle, void *reserve)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    struct kentry *fn = NULL;
    uint64_t tus = 0;
    if (!funcHandle || !numBlocks || !argsHandle || reserve)
        rc = INVALID_PARAM;
    else if ((rc = get_stream(stream, &s)) != OK)
        ;
    else if (!(fn = find_kfunc(funcHandle)) || argsHandle != &targs || targs.fn != fn)
        rc = RT_INVALID_HANDLE;
    else if (!targs.finalized)
        rc = RT_PARAM_INVALID;
    else {
        for (size_t i = 0; cfg && i < cfg->numAttrs; i++) {
            if (cfg->attrs[i].id == 7)
                tus = (uint64_t)cfg->attrs[i].value.timeout * 1000000u;
            else if (cfg->attrs[i].id == 8)
                tus = (uint64_t)cfg->attrs[i].value.timeoutUs.hi << 32 | cfg->attrs[i].value.timeoutUs.lo;
        }
        struct task *t = new_task(T_LAUNCH);
        t->kf = fn->kf, t->kdim = numBlocks, t->ktimeout_us = tus, t->kargsz = targs.size;
        if (!(t->kargs = malloc(targs.size ? targs.size : 1)))
            abort();
        memcpy(t->kargs, targs.buf, targs.size);
        enqueue(s, t);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtLaunchKernelWithConfig(funcHandle=0x%" PRIxPTR ", numBlocks=%u, stream=0x%" PRIxPTR ", timeoutUs=%" PRIu64
            ", argsHandle=0x%" PRIxPTR ", reserve=0x%" PRIxPTR,
        P(funcHandle), numBlocks, P(stream), tus, P(argsHandle), P(reserve));
    return rc;
}

/* run_kernel runs a launch's blocks in order with mu released, as a
 * device runs them without the host, stopping at a cancel. */
static aclError run_kernel(struct stream *s, struct task *t)
{
    struct kblock k = {.dim = t->kdim, .args = t->kargs, .argsz = t->kargsz, .cancel = &s->cancel};
    if (t->ktimeout_us)
        k.deadline = now_ms() + (double)t->ktimeout_us / 1e3;
    aclError rc = OK;
    pthread_mutex_unlock(&mu);
    for (uint32_t b = 0; b < t->kdim && rc == OK && !__atomic_load_n(&s->cancel, __ATOMIC_RELAXED); b++) {
        k.block = b;
        rc = t->kf->fn(&k);
    }
    pthread_mutex_lock(&mu);
    return rc;
}

/* aclwasmStandinKernelStats fills out[0] with the binaries loaded. */
EXPORT void aclwasmStandinKernelStats(int64_t *out)
{
    pthread_mutex_lock(&mu);
    out[0] = (int64_t)nkbins;
    pthread_mutex_unlock(&mu);
}
#endif

/* ---- the operator library's kernels (ABI v1.3 section 13.2) ----
 *
 * The stand-in operator library (opapi.c, libopapi.so) queues an
 * operator's computation on a stream as the real library queues its
 * kernels through the runtime: aclwasmStandinLaunch takes the kernel, its
 * argument (released with kfree once the task is done or dropped), and
 * the n device buffers it touches, each of which must lie in one
 * allocation when it is queued and again when it runs (a buffer freed in
 * between fails the stream with ACL_ERROR_RT_DRV_INTERNAL_ERROR and the
 * kernel does not run). The kernel runs on the stream's worker in stream
 * order, without the runtime's lock, and its code fails the stream; it
 * receives the stream's cancel flag, which a kernel that loops reads (set
 * by aclrtStreamAbort and aclrtDestroyStreamForce). */
EXPORT aclError aclwasmStandinLaunch(aclrtStream stream, aclError (*kfn)(void *, const int *), void *karg, void (*kfree)(void *),
                                     void *const *bufs, const size_t *sizes, size_t n)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = kfn ? get_stream(stream, &s) : INVALID_PARAM;
    for (size_t i = 0; rc == OK && i < n; i++)
        if (sizes[i] && !in_dev(bufs[i], sizes[i]))
            rc = RT_PARAM_INVALID;
    if (rc == OK) {
        struct task *t = new_task(T_KERNEL);
        t->kfn = kfn, t->karg = karg, t->kfree = kfree, t->count = n;
        t->dsts = calloc(n ? n : 1, sizeof *t->dsts);
        t->sizes = calloc(n ? n : 1, sizeof *t->sizes);
        if (!t->dsts || !t->sizes)
            abort();
        memcpy(t->dsts, bufs, n * sizeof *bufs);
        memcpy(t->sizes, sizes, n * sizeof *sizes);
        enqueue(s, t); /* a stream stopped meanwhile drops it, releasing karg */
    } else if (kfree)
        kfree(karg);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclwasmStandinLaunch(stream=0x%" PRIxPTR ", buffers=%zu", P(stream), n);
    return rc;
}

#ifndef OLD_RUNTIME
/* The stream overflow switch (ABI v1.3 section 15), in the native order:
 * the flag (0 or 1) or the NULL out-parameter in the ACL layer, then the
 * handle, the current context and the stream's context. */
EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = OK;
    if (flag > 1)
        rc = INVALID_PARAM;
    else if (stream && !find_stream(stream))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK)
        s->ovsw = flag;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtSetStreamOverflowSwitch(stream=0x%" PRIxPTR ", flag=%u", P(stream), flag);
    return rc;
}

EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    aclError rc = OK;
    if (!flag)
        rc = INVALID_PARAM;
    else if (stream && !find_stream(stream))
        rc = RT_INVALID_HANDLE;
    else if ((rc = get_stream(stream, &s)) == OK)
        *flag = s->ovsw;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtGetStreamOverflowSwitch(stream=0x%" PRIxPTR ", flag=0x%" PRIxPTR, P(stream), P(flag));
    return rc;
}
#endif

#ifndef OLD_RUNTIME
/* aclrtRandomNumAsync (ABI v1.3 section 15): the task is read in the
 * native layout of a 64-bit host (aclrtRandomNumTaskInfo, 104 bytes:
 * dataType; funcType and two aclrtRandomParaInfo; randomParaAddr,
 * randomResultAddr, randomCounterAddr; randomSeed; randomNum; rsv), with
 * the native checks in order. The numbers are the stand-in's own, not the
 * device's Philox sequence: splitmix64 seeded from the seed (the counter
 * is checked, not read), so a task repeats exactly for the same seed; normal
 * numbers are the sum of twelve uniform ones. */
enum { RF_DROPOUT = 0, RF_UNIFORM = 1, RF_NORMAL = 2, RF_TRUNC = 3 };
enum { DT_INT64 = 9, DT_UINT64 = 10 };

static int random_rt_type(int32_t t)
{
    switch (t) {
    case DT_INT32: return 0;
    case DT_INT64: return 1;
    case DT_UINT32: return 2;
    case DT_UINT64: return 3;
    case DT_BF16: return 4;
    case DT_FLOAT16: return 5;
    case DT_FLOAT: return 6;
    }
    return -1;
}

static size_t random_size(int32_t t)
{
    switch (t) {
    case DT_INT64: case DT_UINT64: return 8;
    case DT_FLOAT16: case DT_BF16: return 2;
    }
    return 4;
}

static int random_float(int32_t t) { return t == DT_FLOAT || t == DT_FLOAT16 || t == DT_BF16; }

/* param_ok is the runtime's check of one aclrtRandomParaInfo at p. */
static int param_ok(const unsigned char *p, unsigned max)
{
    return p[0] <= 1 && p[9] >= 1 && p[9] <= max;
}

static uint64_t param_bits(const unsigned char *p)
{
    uint64_t v = 0;
    memcpy(&v, p + 1, p[9] <= 8 ? p[9] : 8);
    return v;
}

static double as_float(int32_t t, uint64_t v)
{
    if (t == DT_FLOAT16) {
        _Float16 h;
        uint16_t b = (uint16_t)v;
        memcpy(&h, &b, 2);
        return (double)h;
    }
    if (t == DT_BF16)
        return bf2f((uint16_t)v);
    float f;
    uint32_t b = (uint32_t)v;
    memcpy(&f, &b, 4);
    return f;
}

static void put_float(char *out, int32_t t, double v)
{
    if (t == DT_FLOAT16) {
        _Float16 h = (_Float16)(float)v;
        memcpy(out, &h, 2);
    } else if (t == DT_BF16) {
        uint16_t b = f2bf((float)v);
        memcpy(out, &b, 2);
    } else {
        float f = (float)v;
        memcpy(out, &f, 4);
    }
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *x) { return (double)(splitmix(x) >> 11) / 9007199254740992.0; }

/* gauss is a standard normal number, approximately: the sum of twelve
 * uniform ones less 6 (mean 0, variance 1; no libm needed). */
static double gauss(uint64_t *x)
{
    double z = -6;
    for (int i = 0; i < 12; i++)
        z += unit(x);
    return z;
}

static void random_run(struct task *t)
{
    int32_t dt = (int32_t)t->count;
    int fn = t->value;
    uint64_t x = t->rnd[3], n = t->rnd[2];
    size_t w = random_size(dt);
    if (fn == RF_DROPOUT) {
        double keep = 1 - as_float(dt, t->rnd[0]);
        memset(t->dst, 0, t->n);
        for (uint64_t i = 0; i < n; i++)
            if (unit(&x) < keep)
                t->dst[i / 8] |= (char)(1u << (i % 8));
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        char *out = t->dst + i * w;
        if (fn == RF_UNIFORM && !random_float(dt)) {
            uint64_t lo = t->rnd[0], hi = t->rnd[1], v = lo;
            int sgn = dt == DT_INT32 || dt == DT_INT64;
            if (dt == DT_INT32 || dt == DT_UINT32)
                lo = sgn ? (uint64_t)(int64_t)(int32_t)lo : (uint32_t)lo, hi = sgn ? (uint64_t)(int64_t)(int32_t)hi : (uint32_t)hi;
            if (sgn ? (int64_t)hi > (int64_t)lo : hi > lo)
                v = lo + splitmix(&x) % (hi - lo);
            memcpy(out, &v, w);
            continue;
        }
        double a = as_float(dt, t->rnd[0]), b = as_float(dt, t->rnd[1]), v;
        if (fn == RF_UNIFORM)
            v = a + unit(&x) * (b - a);
        else {
            double z = gauss(&x);
            while (fn == RF_TRUNC && (z < -2 || z > 2))
                z = gauss(&x);
            v = a + b * z;
        }
        put_float(out, dt, v);
    }
}

EXPORT aclError aclrtRandomNumAsync(const void *taskInfo, aclrtStream stream, void *reserve)
{
    pthread_mutex_lock(&mu);
    const unsigned char *b = taskInfo;
    struct stream *s = NULL;
    aclError rc = OK;
    int32_t dt = 0, fn = 0;
    char *para = NULL, *res = NULL, *ctr = NULL;
    if (b) {
        memcpy(&dt, b, 4);
        memcpy(&fn, b + 4, 4);
        memcpy(&para, b + 40, 8);
        memcpy(&res, b + 48, 8);
        memcpy(&ctr, b + 56, 8);
    }
    size_t w = random_size(dt);
    if (!b || random_rt_type(dt) < 0)
        rc = INVALID_PARAM;
    else if (stream && !find_stream(stream))
        rc = RT_INVALID_HANDLE;
    else if (reserve)
        rc = RT_PARAM_INVALID;
    else if ((rc = get_stream(stream, &s)) != OK)
        ;
    else if (fn < RF_DROPOUT || fn > RF_TRUNC || (!random_float(dt) && fn != RF_UNIFORM) || !ctr || !res ||
             !param_ok(b + 64, 8) || !param_ok(b + 80, 8))
        rc = RT_PARAM_INVALID;
    else if (!param_ok(b + 8, b[8] == 1 ? 8 : (unsigned)w) ||
             (fn != RF_DROPOUT && !param_ok(b + 24, b[24] == 1 ? 8 : (unsigned)w)))
        rc = RT_PARAM_INVALID;
    else if (b[8] || (fn != RF_DROPOUT && b[24]) || b[64] || b[80])
        rc = RT_FEATURE_NOT_SUPPORT; /* values by address: not the stand-in's */
    else {
        uint64_t n = param_bits(b + 80);
        size_t size = fn == RF_DROPOUT ? (size_t)((n + 7) / 8) : (size_t)n * w;
        if (!in_dev(res, size) || !in_dev(ctr, 16) || (para && !in_dev(para, 16)))
            rc = RT_PARAM_INVALID;
        else {
            uint64_t p1 = param_bits(b + 8), p2 = fn == RF_DROPOUT ? 0 : param_bits(b + 24);
            if (para) { /* the runtime writes the parameters there before queueing */
                memcpy(para, &p1, 8);
                memcpy(para + 8, &p2, 8);
            }
            struct task *t = new_task(T_RANDOM);
            t->dst = res, t->n = size, t->value = fn, t->count = (size_t)dt;
            t->rnd[0] = p1, t->rnd[1] = p2, t->rnd[2] = n, t->rnd[3] = param_bits(b + 64);
            enqueue(s, t);
        }
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclrtRandomNumAsync(taskInfo=0x%" PRIxPTR ", dataType=%d, funcType=%d, randomResultAddr=0x%" PRIxPTR
            ", stream=0x%" PRIxPTR ", reserve=0x%" PRIxPTR,
        P(taskInfo), dt, fn, P(res), P(stream), P(reserve));
    return rc;
}
#endif

#ifndef OLD_RUNTIME
/* Offline models (ABI v1.3 section 13.4): the stand-in's own fixed model. */
#include "mdl.c"
#endif
