/*
 * hostile: a plugin that attacks the sandbox, one mode per run. Each
 * attempt must be refused the documented way (guest ABI v1, sections 3, 4
 * and 6): the native error code and a message from aclGetRecentErrMsg that
 * names the bad argument, with nothing copied, freed or created. The host
 * and every other session carry on.
 *
 *   forged-addr     made-up device addresses, interior frees, memset of plain guest memory
 *   stale-addr      a freed allocation and a released registration, used again
 *   foreign-addr A  the live device address A of ANOTHER session: read, write, free, ...
 *   forged-handle   made-up stream and event handles, one type passed as the other
 *   stale-handle    destroyed streams and events, used again
 *   oob             ranges past guest memory, past an allocation, out-params outside memory
 *   overflow        sizes and 2D spans that wrap 64 bits, huge batch counts and allocations
 *   desc-tamper     rewritten, forged, stale and misplaced descriptors and offset slots
 *   quota           device memory, allocations, streams, events, pinned memory, queue depth
 *                   until refused; then it exits holding everything
 *   spin            an endless loop: only the run timeout stops it
 *   hang            a synchronize that can never return: the run timeout interrupts it
 *   trap            traps with copies queued on pinned memory
 *   victim          holds a secret in device memory, prints its address, waits for EOF
 *                   on stdin, then checks the secret (run it next to foreign-addr)
 *
 * Each attempt prints one line: label | function | code NAME | host message.
 * Exits 0 when every attempt was refused as documented ("contained"), 1 when
 * one was not ("BREACH"), 2 on a setup failure or bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#define SAMPLE_NAME "hostile"
#include "sample.h"

#define INNER ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
#define H2D ACL_MEMCPY_HOST_TO_DEVICE
#define D2H ACL_MEMCPY_DEVICE_TO_HOST
#define D2D ACL_MEMCPY_DEVICE_TO_DEVICE
#define FORGED 0xdead00000000ull

static const char *mode = "";
static int attempts, refused;

/* CHECK (sample.h) for the calls that set an attack up: the failure line
   names the mode, and says "setup failed" because no attempt was made. */
#define SETUP(call) SAMPLE_CHECK(#call, call, "\nhostile %s: setup failed", mode)

static void report(const char *label, const char *fn, aclError got, int ok)
{
    attempts++;
    refused += ok;
    printf("  %-50s | %-26s | %6d %-34s | %s%s\n", label, fn, got, aclErrorName(got),
           got == ACL_SUCCESS ? "-" : aclGetRecentErrMsg(), ok ? "" : "   <== NOT AS DOCUMENTED");
}

/* An attempt that must fail with want when it is called. */
static void expect(const char *label, const char *fn, aclError got, aclError want)
{
    report(label, fn, got, got == want);
}

/* An asynchronous attempt: the call queues it (0) and it fails when it
   executes, so the next synchronize of the stream reports want. */
static void expectAsync(const char *label, const char *fn, aclError call, aclrtStream s, aclError want)
{
    if (call != ACL_SUCCESS) {
        report(label, fn, call, call == want);
        return;
    }
    char l[96];
    snprintf(l, sizeof l, "%s (at sync)", label);
    aclError got = aclrtSynchronizeStream(s);
    report(l, fn, got, got == want);
}

/* A property the guest checks itself, such as "its own data is intact". */
static void check(const char *label, int ok)
{
    attempts++;
    refused += ok;
    printf("  %-50s | %-26s | %s\n", label, "(checked by the guest)", ok ? "yes" : "NO   <== NOT AS DOCUMENTED");
}

static int finish(void)
{
    int ok = refused == attempts;
    printf("\nhostile %s: %s (%d of %d attempts refused as documented)\n", mode, ok ? "contained" : "BREACH", refused,
           attempts);
    return ok ? 0 : 1;
}

static uint64_t memEnd(void) { return (uint64_t)__builtin_wasm_memory_size(0) * 65536; }

static uint8_t buf[8192], back[8192];

/* A device allocation of n bytes holding the pattern with seed. */
static aclrtPtr filled(uint64_t n, uint32_t seed)
{
    aclrtPtr p = 0;
    SETUP(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    for (uint64_t i = 0; i < n && i < sizeof buf; i++) {
        buf[i] = pattern(seed, (uint32_t)i);
    }
    SETUP(aclrtMemcpy(p, n, aclPtr(buf), n, H2D));
    return p;
}

/* Whether device bytes [p, p+n) still hold the pattern with seed. */
static int holds(aclrtPtr p, uint64_t n, uint32_t seed)
{
    SETUP(aclrtMemcpy(aclPtr(back), n, p, n, D2H));
    for (uint64_t i = 0; i < n; i++) {
        if (back[i] != pattern(seed, (uint32_t)i)) {
            return 0;
        }
    }
    return 1;
}

/* Whether device bytes [p, p+n) are all zero. */
static int zero(aclrtPtr p, uint64_t n)
{
    SETUP(aclrtMemcpy(aclPtr(back), n, p, n, D2H));
    for (uint64_t i = 0; i < n; i++) {
        if (back[i] != 0) {
            return 0;
        }
    }
    return 1;
}

static aclrtStream newStream(void)
{
    aclrtStream s = NULL;
    SETUP(aclrtCreateStream(&s));
    return s;
}

static aclrtEvent newEvent(void)
{
    aclrtEvent e = NULL;
    SETUP(aclrtCreateEvent(&e));
    return e;
}

/* Records e and resets it on the idle stream s: a wait for e is then for
   its next record. (A wait for an event never recorded is refused, 107000,
   as natively.) */
static void arm(aclrtEvent e, aclrtStream s)
{
    SETUP(aclrtRecordEvent(e, s));
    SETUP(aclrtSynchronizeStream(s)); /* one at a time: the queue limit may be 1 */
    SETUP(aclrtResetEvent(e, s));
    SETUP(aclrtSynchronizeStream(s));
}

/* A two-entry D2H batch: entry 0 legit, entry 1 reads src1. */
static aclError batchReading(aclrtPtr legit, aclrtPtr src1, uint64_t *failIndex)
{
    static aclrtPtr dsts[2], srcs[2];
    static uint64_t sizes[2] = {64, 64}, destMaxs[2] = {64, 64}, attrsIndexes[1] = {0};
    static aclrtMemcpyBatchAttr attrs[1];
    dsts[0] = aclPtr(back);
    dsts[1] = aclPtr(back + 64);
    srcs[0] = legit;
    srcs[1] = src1;
    attrs[0].dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    attrs[0].srcLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    attrs[0].srcLoc.id = 0;
    *failIndex = 12345;
    return aclrtMemcpyBatch(dsts, destMaxs, srcs, sizes, 2, attrs, attrsIndexes, 1, failIndex);
}

static int forgedAddr(void)
{
    aclrtPtr a = filled(4096, 1);
    aclrtStream s = newStream();
    expect("copy into address 2^32", "aclrtMemcpy", aclrtMemcpy(1ull << 32, 64, aclPtr(buf), 64, H2D), 107000);
    expect("copy from a made-up address", "aclrtMemcpy", aclrtMemcpy(aclPtr(back), 64, FORGED, 64, D2H), 107000);
    expect("copy from just past an allocation", "aclrtMemcpy", aclrtMemcpy(aclPtr(back), 64, a + 8192, 64, D2H),
           107000);
    expect("copy from just before an allocation", "aclrtMemcpy", aclrtMemcpy(aclPtr(back), 64, a - 64, 64, D2H),
           107000);
    expect("copy into an address with bit 63 set", "aclrtMemcpy",
           aclrtMemcpy(a | (1ull << 63), 64, aclPtr(buf), 64, H2D), 107000);
    expect("async copy into a made-up address", "aclrtMemcpyAsync", aclrtMemcpyAsync(FORGED, 64, a, 64, D2D, s),
           107000);
    expect("memset a made-up address", "aclrtMemset", aclrtMemset(FORGED, 64, 0, 64), 107000);
    /* ABI v1.1: memset of guest memory is the guest's own business, set at
       call time as natively; only device memory must be its own. */
    check("memset plain (unregistered) guest memory sets it", aclrtMemset(aclPtr(buf), 64, 0, 64) == ACL_SUCCESS);
    expect("free a made-up address", "aclrtFree", aclrtFree(FORGED), 107000);
    expect("free an interior pointer", "aclrtFree", aclrtFree(a + 64), 107000);
    expect("free guest memory", "aclrtFree", aclrtFree(aclPtr(buf)), 107000);
    aclrtPtrAttributes attr;
    expect("attributes of a made-up address", "aclrtPointerGetAttributes", aclrtPointerGetAttributes(FORGED, &attr),
           107000);
    uint64_t fail = 0;
    aclError r = batchReading(a, FORGED, &fail);
    report("batch entry 1 reads a made-up address", "aclrtMemcpyBatch", r, r == 107000 && fail == 1);
    check("failIndex names entry 1", fail == 1);
    check("the guest's own allocation is intact", holds(a, 4096, 1));
    return finish();
}

static int staleAddr(void)
{
    aclrtPtr a = filled(4096, 2);
    SETUP(aclrtFree(a));
    expect("copy into a freed allocation", "aclrtMemcpy", aclrtMemcpy(a, 64, aclPtr(buf), 64, H2D), 107000);
    expect("copy from a freed allocation", "aclrtMemcpy", aclrtMemcpy(aclPtr(back), 64, a, 64, D2H), 107000);
    expect("memset a freed allocation", "aclrtMemset", aclrtMemset(a, 64, 0, 64), 107000);
    expect("free it twice", "aclrtFree", aclrtFree(a), 107000);
    aclrtPtr b = filled(4096, 3);
    check("a new allocation never reuses the freed address", b != a && (b >= a + 4096 || b + 4096 <= a));
    expect("copy into the freed address again", "aclrtMemcpy", aclrtMemcpy(a, 64, aclPtr(buf), 64, H2D), 107000);
    check("the new allocation is intact", holds(b, 4096, 3));
    aclrtPtr reg = 0;
    SETUP(aclrtHostRegister(aclPtr(buf), sizeof buf, ACL_HOST_REGISTER_MAPPED, &reg));
    SETUP(aclrtHostUnregister(aclPtr(buf)));
    expect("unregister a released range again", "aclrtHostUnregister", aclrtHostUnregister(aclPtr(buf)), 507911);
    check("memset the released range (guest memory) sets it", aclrtMemset(aclPtr(buf), 64, 0, 64) == ACL_SUCCESS);
    return finish();
}

static int foreignAddr(aclrtPtr f)
{
    aclrtPtr own = filled(4096, 4);
    aclrtStream s = newStream();
    printf("  (the other session's allocation: 0x%" PRIx64 ")\n", f);
    expect("read another session's memory", "aclrtMemcpy", aclrtMemcpy(aclPtr(back), 64, f, 64, D2H), 107000);
    expect("write another session's memory", "aclrtMemcpy", aclrtMemcpy(f, 64, aclPtr(buf), 64, H2D), 107000);
    expect("copy it into an own allocation", "aclrtMemcpy", aclrtMemcpy(own, 64, f, 64, D2D), 107000);
    expect("async copy out of it", "aclrtMemcpyAsync", aclrtMemcpyAsync(own, 64, f, 64, D2D, s), 107000);
    expect("memset it", "aclrtMemset", aclrtMemset(f, 64, 0, 64), 107000);
    expect("free it", "aclrtFree", aclrtFree(f), 107000);
    aclrtPtrAttributes attr;
    expect("ask where it lives", "aclrtPointerGetAttributes", aclrtPointerGetAttributes(f, &attr), 107000);
    uint64_t fail = 0;
    aclError r = batchReading(own, f, &fail);
    report("batch entry 1 reads it", "aclrtMemcpyBatch", r, r == 107000 && fail == 1);
    aclrtPtr desc = 0, slots = 0;
    SETUP(aclrtMalloc(&desc, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    expect("a descriptor reading it", "aclrtSetMemcpyDesc", aclrtSetMemcpyDesc(desc, INNER, f, own, 64, NULL), 107000);
    SETUP(aclrtMalloc(&slots, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    uint64_t bases[2] = {own, f};
    SETUP(aclrtMemcpy(slots, 16, aclPtr(bases), 16, H2D));
    expectAsync("an offset slot holding it", "aclrtMemcpyAsyncWithOffset",
                aclrtMemcpyAsyncWithOffset(slots, 4096, 0, slots + 8, 64, 0, INNER, s), s, 107000);
    check("the guest's own allocation is intact", holds(own, 4096, 4));
    return finish();
}

static int forgedHandle(void)
{
    aclrtPtr a = filled(4096, 5);
    aclrtStream s = newStream();
    aclrtEvent e = newEvent();
    aclrtStream madeUpStream = (aclrtStream)(uintptr_t)12345;
    aclrtEvent madeUpEvent = (aclrtEvent)(uintptr_t)4242;
    expect("synchronize a made-up stream", "aclrtSynchronizeStream", aclrtSynchronizeStream(madeUpStream), 107017);
    expect("destroy a made-up stream", "aclrtDestroyStream", aclrtDestroyStream(madeUpStream), 107017);
    expect("copy on a made-up stream", "aclrtMemcpyAsync", aclrtMemcpyAsync(a, 64, a + 64, 64, D2D, madeUpStream),
           107017);
    aclrtStreamStatus st;
    expect("query a made-up stream", "aclrtStreamQuery", aclrtStreamQuery(madeUpStream, &st), 107017);
    expect("record a made-up event", "aclrtRecordEvent", aclrtRecordEvent(madeUpEvent, s), 107017);
    expect("wait for a made-up event", "aclrtStreamWaitEvent", aclrtStreamWaitEvent(s, madeUpEvent), 107017);
    float ms;
    expect("elapsed time of made-up events", "aclrtEventElapsedTime", aclrtEventElapsedTime(&ms, madeUpEvent, e),
           107017);
    expect("destroy event 0xffffffff", "aclrtDestroyEvent", aclrtDestroyEvent((aclrtEvent)(uintptr_t)0xffffffffu),
           107017);
    expect("an event handle used as a stream", "aclrtSynchronizeStream", aclrtSynchronizeStream((aclrtStream)e),
           107017);
    expect("a stream handle used as an event", "aclrtSynchronizeEvent", aclrtSynchronizeEvent((aclrtEvent)s), 107017);
    expect("record a NULL event", "aclrtRecordEvent", aclrtRecordEvent(NULL, s), 100000);
    SETUP(aclrtMemcpyAsync(a, 64, a + 64, 64, D2D, s));
    SETUP(aclrtSynchronizeStream(s));
    check("the real stream still works", 1);
    return finish();
}

static int staleHandle(void)
{
    aclrtPtr a = filled(4096, 6);
    aclrtStream s = newStream();
    aclrtEvent e = newEvent();
    SETUP(aclrtDestroyStream(s));
    SETUP(aclrtDestroyEvent(e));
    expect("synchronize a destroyed stream", "aclrtSynchronizeStream", aclrtSynchronizeStream(s), 107017);
    expect("destroy it twice", "aclrtDestroyStream", aclrtDestroyStream(s), 107017);
    expect("copy on it", "aclrtMemcpyAsync", aclrtMemcpyAsync(a, 64, a + 64, 64, D2D, s), 107017);
    expect("record a destroyed event", "aclrtRecordEvent", aclrtRecordEvent(e, NULL), 107017);
    expect("synchronize it", "aclrtSynchronizeEvent", aclrtSynchronizeEvent(e), 107017);
    aclrtEventRecordedStatus st;
    expect("query it", "aclrtQueryEventStatus", aclrtQueryEventStatus(e, &st), 107017);
    expect("destroy it twice", "aclrtDestroyEvent", aclrtDestroyEvent(e), 107017);
    aclrtStream s2 = newStream();
    aclrtEvent e2 = newEvent();
    check("new handles never reuse destroyed ones", s2 != s && e2 != e && (void *)s2 != (void *)e &&
                                                        (void *)e2 != (void *)s);
    expect("the destroyed stream, after a new one", "aclrtSynchronizeStream", aclrtSynchronizeStream(s), 107017);
    check("the guest's own allocation is intact", holds(a, 4096, 6));
    return finish();
}

static uint8_t pinned[8192];

static int oob(void)
{
    aclrtPtr a = filled(4096, 7);
    const uint64_t end = memEnd();
    expect("copy from past the end of guest memory", "aclrtMemcpy", aclrtMemcpy(a, 64, end - 32, 64, H2D), 107000);
    expect("copy into past the end of guest memory", "aclrtMemcpy", aclrtMemcpy(end - 16, 64, a, 64, D2H), 107000);
    expect("copy into guest address 0xfffffff0", "aclrtMemcpy", aclrtMemcpy(0xfffffff0u, 16, a, 16, D2H), 107000);
    expect("read past the end of an allocation", "aclrtMemcpy",
           aclrtMemcpy(aclPtr(back), 128, a + 4096 - 64, 128, D2H), 107000);
    expect("write past the end of an allocation", "aclrtMemcpy", aclrtMemcpy(a + 4000, 200, aclPtr(buf), 200, H2D),
           107000);
    expect("2D copy running off an allocation", "aclrtMemcpy2d",
           aclrtMemcpy2d(a, 1024, aclPtr(buf), 64, 64, 5, H2D), 107000);
    uint64_t freeBefore = 0, freeAfter = 0, total = 0;
    SETUP(aclrtGetMemInfo(ACL_HBM_MEM, &freeBefore, &total));
    expect("out-parameter past the end of guest memory", "aclrtMalloc",
           aclrtMalloc((aclrtPtr *)(uintptr_t)(end - 4), 64, ACL_MEM_MALLOC_HUGE_FIRST), 100000);
    SETUP(aclrtGetMemInfo(ACL_HBM_MEM, &freeAfter, &total));
    check("and nothing was allocated", freeAfter == freeBefore);
    expect("NULL out-parameter", "aclrtGetMemInfo", aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total), 100000);
    static uint64_t sizes[2] = {64, 64}, attrsIndexes[1] = {0};
    static aclrtMemcpyBatchAttr attrs[1];
    uint64_t fail = 0;
    expect("batch array past the end of guest memory", "aclrtMemcpyBatch",
           aclrtMemcpyBatch((const aclrtPtr *)(uintptr_t)(end - 8), sizes, (const aclrtPtr *)sizes, sizes, 2, attrs,
                            attrsIndexes, 1, &fail),
           100000);
    aclrtPtr reg = 0;
    expect("register a range past guest memory", "aclrtHostRegister",
           aclrtHostRegister(end - 100, 4096, ACL_HOST_REGISTER_MAPPED, &reg), 107000);
    SETUP(aclrtHostRegister(aclPtr(pinned), 4096, ACL_HOST_REGISTER_MAPPED, &reg));
    check("memset beyond a registered range (guest memory) sets it", aclrtMemset(aclPtr(pinned), 8192, 0, 8192) == ACL_SUCCESS);
    check("the guest's own allocation is intact", holds(a, 4096, 7));
    return finish();
}

static int overflow(void)
{
    aclrtPtr a = filled(4096, 8), p = 0;
    aclrtStream s = newStream();
    const uint64_t MAX = UINT64_MAX;
    expect("device range that wraps 2^64", "aclrtMemcpy", aclrtMemcpy(a, MAX, aclPtr(buf), MAX, H2D), 107000);
    expect("guest range that wraps 2^64", "aclrtMemcpy", aclrtMemcpy(aclPtr(back), MAX, a, MAX - 16, D2H), 107000);
    expect("2D span (height-1)*pitch that wraps", "aclrtMemcpy2d",
           aclrtMemcpy2d(a, 1ull << 63, aclPtr(buf), 1ull << 63, 16, 3, H2D), 107000);
    expect("async 2D span that wraps", "aclrtMemcpy2dAsync",
           aclrtMemcpy2dAsync(a, 1ull << 63, a + 64, 1ull << 63, 16, 3, D2D, s), 107000);
    expect("memset range that wraps", "aclrtMemset", aclrtMemset(a, MAX, 0, MAX), 107000);
    expect("allocate 2^63 bytes", "aclrtMalloc", aclrtMalloc(&p, 1ull << 63, ACL_MEM_MALLOC_HUGE_FIRST), 207001);
    /* Natively size + padding overflowing is the ACL layer's 100000. */
    expect("allocate 2^64-1 bytes", "aclrtMalloc", aclrtMalloc(&p, MAX, ACL_MEM_MALLOC_HUGE_FIRST), 100000);
    aclrtPtr reg = 0;
    expect("register a range that wraps", "aclrtHostRegister",
           aclrtHostRegister(aclPtr(buf), MAX, ACL_HOST_REGISTER_MAPPED, &reg), 107000);
    static aclrtPtr dsts[2], srcs[2];
    static uint64_t sizes[2] = {64, 64}, attrsIndexes[1] = {0};
    static aclrtMemcpyBatchAttr attrs[1];
    uint64_t fail = 0;
    expect("batch of 2^61 entries", "aclrtMemcpyBatch",
           aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 1ull << 61, attrs, attrsIndexes, 1, &fail), 100000);
    expect("batch with 2^58 attributes", "aclrtMemcpyBatch",
           aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 2, attrs, attrsIndexes, 1ull << 58, &fail), 100000);
    aclrtPtr slots = 0;
    SETUP(aclrtMalloc(&slots, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    uint64_t bases[2] = {a, a};
    SETUP(aclrtMemcpy(slots, 16, aclPtr(bases), 16, H2D));
    expect("offset above 2^48-1", "aclrtMemcpyAsyncWithOffset",
           aclrtMemcpyAsyncWithOffset(slots, MAX, 1ull << 48, slots + 8, 64, 0, INNER, s), 107000);
    expectAsync("base + offset far past the allocation", "aclrtMemcpyAsyncWithOffset",
                aclrtMemcpyAsyncWithOffset(slots, MAX, 0xffffffff0000ull, slots + 8, 64, 0, INNER, s), s, 107000);
    check("the guest's own allocation is intact", holds(a, 4096, 8));
    return finish();
}

/* Finds the 8-byte little-endian value v in b[0:n), or returns -1. */
static int find64(const uint8_t *b, int n, uint64_t v)
{
    for (int i = 0; i + 8 <= n; i++) {
        uint64_t x;
        memcpy(&x, b + i, 8);
        if (x == v) {
            return i;
        }
    }
    return -1;
}

static int descTamper(void)
{
    const uint64_t N = 256;
    aclrtPtr src = filled(N, 9), dst = 0, other = 0, tmp = 0, desc = 0, slots = 0;
    SETUP(aclrtMalloc(&dst, N, ACL_MEM_MALLOC_HUGE_FIRST));
    SETUP(aclrtMalloc(&other, N, ACL_MEM_MALLOC_HUGE_FIRST));
    SETUP(aclrtMalloc(&tmp, N, ACL_MEM_MALLOC_HUGE_FIRST));
    SETUP(aclrtMemset(other, N, 0, N));
    uint64_t size = 0;
    SETUP(aclrtGetMemcpyDescSize(INNER, &size));
    if (size > 512) {
        printf("hostile desc-tamper: descriptor size %" PRIu64 " is larger than this program expects\n", size);
        return 2;
    }
    /* Descriptors must be 64-byte aligned (natively too): the second one
       starts at the next 64-byte boundary after the first. */
    uint64_t stride = (size + 63) & ~(uint64_t)63;
    SETUP(aclrtMalloc(&desc, 2 * stride, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream s = newStream();

    /* The genuine descriptor works. */
    SETUP(aclrtSetMemcpyDesc(desc, INNER, src, dst, N, NULL));
    SETUP(aclrtMemcpyAsyncWithDesc(desc, INNER, s));
    SETUP(aclrtSynchronizeStream(s));
    check("the genuine descriptor copies", holds(dst, N, 9));
    SETUP(aclrtMemset(dst, N, 0, N));

    /* Its bytes are readable: find the destination and retarget it at
       other, memory this session owns. */
    static uint8_t d[512] __attribute__((aligned(64))); /* so that "in guest memory" is what fails, not the alignment */
    SETUP(aclrtMemcpy(aclPtr(d), size, desc, size, D2H));
    int at = find64(d, (int)size, dst);
    if (at >= 0) {
        memcpy(d + at, &other, 8);
    } else {
        d[size / 2] ^= 0x01;
    }
    SETUP(aclrtMemcpy(desc, size, aclPtr(d), size, H2D));
    expectAsync("retargeted descriptor", "aclrtMemcpyAsyncWithDesc", aclrtMemcpyAsyncWithDesc(desc, INNER, s), s,
                107000);

    /* Grow its count. */
    SETUP(aclrtSetMemcpyDesc(desc, INNER, src, dst, N, NULL));
    SETUP(aclrtMemcpy(aclPtr(d), size, desc, size, D2H));
    at = find64(d, (int)size, N);
    if (at >= 0) {
        uint64_t big = 4096;
        memcpy(d + at, &big, 8);
    } else {
        d[size - 1] ^= 0x80;
    }
    SETUP(aclrtMemcpy(desc, size, aclPtr(d), size, H2D));
    expectAsync("descriptor with a grown count", "aclrtMemcpyAsyncWithDesc", aclrtMemcpyAsyncWithDesc(desc, INNER, s),
                s, 107000);

    /* Never set, and forged from scratch. */
    SETUP(aclrtMemset(desc + stride, size, 0, size));
    expectAsync("descriptor never set (zeros)", "aclrtMemcpyAsyncWithDesc",
                aclrtMemcpyAsyncWithDesc(desc + stride, INNER, s), s, 107000);
    for (uint64_t i = 0; i < size; i++) {
        d[i] = pattern(99, (uint32_t)i);
    }
    SETUP(aclrtMemcpy(desc + stride, size, aclPtr(d), size, H2D));
    expectAsync("descriptor of random bytes", "aclrtMemcpyAsyncWithDesc",
                aclrtMemcpyAsyncWithDesc(desc + stride, INNER, s), s, 107000);

    /* Stale: its destination freed after it was set. */
    SETUP(aclrtSetMemcpyDesc(desc + stride, INNER, src, tmp, N, NULL));
    SETUP(aclrtFree(tmp));
    expectAsync("descriptor naming a freed allocation", "aclrtMemcpyAsyncWithDesc",
                aclrtMemcpyAsyncWithDesc(desc + stride, INNER, s), s, 107000);

    /* Misplaced or misused. */
    SETUP(aclrtSetMemcpyDesc(desc, INNER, src, dst, N, NULL));
    SETUP(aclrtMemcpy(aclPtr(d), size, desc, size, D2H));
    expect("descriptor in guest memory", "aclrtMemcpyAsyncWithDesc", aclrtMemcpyAsyncWithDesc(aclPtr(d), INNER, s),
           107000);
    expect("set a descriptor into guest memory", "aclrtSetMemcpyDesc",
           aclrtSetMemcpyDesc(aclPtr(d), INNER, src, dst, N, NULL), 107000);
    expect("descriptor with kind DEVICE_TO_DEVICE", "aclrtMemcpyAsyncWithDesc", aclrtMemcpyAsyncWithDesc(desc, D2D, s),
           207000);
    expect("descriptor on the NULL stream", "aclrtMemcpyAsyncWithDesc", aclrtMemcpyAsyncWithDesc(desc, INNER, NULL),
           100000);

    /* Offset slots: base addresses in device memory are re-validated. */
    SETUP(aclrtMalloc(&slots, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    uint64_t bases[2] = {FORGED, src};
    SETUP(aclrtMemcpy(slots, 16, aclPtr(bases), 16, H2D));
    expectAsync("offset slot holding a made-up address", "aclrtMemcpyAsyncWithOffset",
                aclrtMemcpyAsyncWithOffset(slots, N, 0, slots + 8, N, 0, INNER, s), s, 107000);
    bases[0] = aclPtr(back);
    SETUP(aclrtMemcpy(slots, 16, aclPtr(bases), 16, H2D));
    expectAsync("offset slot holding a guest address", "aclrtMemcpyAsyncWithOffset",
                aclrtMemcpyAsyncWithOffset(slots, N, 0, slots + 8, N, 0, INNER, s), s, 107000);
    bases[0] = tmp;
    SETUP(aclrtMemcpy(slots, 16, aclPtr(bases), 16, H2D));
    expectAsync("offset slot holding a freed address", "aclrtMemcpyAsyncWithOffset",
                aclrtMemcpyAsyncWithOffset(slots, N, 0, slots + 8, N, 0, INNER, s), s, 107000);
    expect("offset slot in guest memory", "aclrtMemcpyAsyncWithOffset",
           aclrtMemcpyAsyncWithOffset(aclPtr(bases), N, 0, slots + 8, N, 0, INNER, s), 107000);

    check("no refused copy wrote dst or other", zero(dst, N) && zero(other, N));
    SETUP(aclrtMemcpyAsyncWithDesc(desc, INNER, s));
    check("the stream carries on: the genuine descriptor", aclrtSynchronizeStream(s) == ACL_SUCCESS && holds(dst, N, 9));
    return finish();
}

static uint8_t pool[1 << 20];

/* Repeats try until it fails; prints how far it got and checks the code is
   a quota code (207001 bytes, 207012 count). */
#define UNTIL_REFUSED(label, fn, try)                               \
    do {                                                            \
        aclError r_ = ACL_SUCCESS;                                  \
        int n_ = 0;                                                 \
        for (; n_ < 100000 && (r_ = (try)) == ACL_SUCCESS; n_++) {  \
        }                                                           \
        char l_[96];                                                \
        snprintf(l_, sizeof l_, "%s: refused after %d", label, n_); \
        report(l_, fn, r_, r_ == 207001 || r_ == 207012);           \
    } while (0)

static int quota(void)
{
    static aclrtPtr held[100000];
    static aclrtStream streams[100000];
    static aclrtEvent events[100000];
    int nh = 0, ns = 0, ne = 0;
    uint64_t free = 0, total = 0;
    SETUP(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total));
    printf("  (device memory quota %" PRIu64 " bytes)\n", total);
    aclrtPtr p = 0;
    expect("one allocation above the quota", "aclrtMalloc", aclrtMalloc(&p, total + 1, ACL_MEM_MALLOC_HUGE_FIRST),
           207001);
    UNTIL_REFUSED("quarter-quota allocations", "aclrtMalloc",
                  aclrtMalloc(&held[nh++], total / 4, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < nh - 1; i++) {
        SETUP(aclrtFree(held[i]));
    }
    nh = 0;
    aclrtPtr a = 0, b = 0;
    SETUP(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    SETUP(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    UNTIL_REFUSED("64-byte allocations", "aclrtMalloc", aclrtMalloc(&held[nh++], 64, ACL_MEM_MALLOC_HUGE_FIRST));
    UNTIL_REFUSED("streams", "aclrtCreateStream", aclrtCreateStream(&streams[ns++]));
    UNTIL_REFUSED("events", "aclrtCreateEvent", aclrtCreateEvent(&events[ne++]));
    aclrtPtr reg = 0;
    int np = 0;
    /* Pinned bytes: 64 KiB pieces of a 1 MiB pool; a quota at least as
       large as the pool cannot be reached (the default one is not). */
    aclError r = ACL_SUCCESS;
    while (np < 16 && (r = aclrtHostRegister(aclPtr(pool + np * 65536), 65536, ACL_HOST_REGISTER_MAPPED, &reg)) == 0) {
        np++;
    }
    if (r == ACL_SUCCESS) {
        printf("  (the pinned quota is above the 1 MiB pool: %d registrations of 64 KiB held)\n", np);
    } else {
        char l[96];
        snprintf(l, sizeof l, "64 KiB registrations: refused after %d", np);
        report(l, "aclrtHostRegister", r, r == 207001 || r == 207012);
    }
    for (int i = 0; i < np; i++) {
        SETUP(aclrtHostUnregister(aclPtr(pool + i * 65536)));
    }
    np = 0;
    UNTIL_REFUSED("1-byte registrations", "aclrtHostRegister",
                  aclrtHostRegister(aclPtr(pool + 2 * (np++)), 1, ACL_HOST_REGISTER_MAPPED, &reg));
    /* Queue depth: a stream blocked on an event's next record. */
    aclrtStream s = streams[0];
    aclrtEvent gate = events[0];
    arm(gate, s);
    SETUP(aclrtStreamWaitEvent(s, gate));
    UNTIL_REFUSED("queued copies", "aclrtMemcpyAsync", aclrtMemcpyAsync(a, 64, b, 64, D2D, s));
    SETUP(aclrtRecordEvent(gate, streams[1])); /* lets the queue drain */
    printf("\n  exiting while holding every allocation, stream, event and registration\n");
    return finish();
}

static int spin(void)
{
    printf("  spinning until the host's timeout stops this run\n");
    fflush(stdout);
    volatile uint64_t n = 0;
    for (;;) {
        n++;
    }
}

static int hang(void)
{
    aclrtStream s = newStream();
    aclrtEvent never = newEvent();
    aclrtPtr a = filled(4096, 10);
    arm(never, s);
    SETUP(aclrtStreamWaitEvent(s, never));
    SETUP(aclrtMemcpyAsync(a, 64, a + 64, 64, D2D, s));
    printf("  synchronizing a stream that waits for an event's next record, which nobody makes\n");
    fflush(stdout);
    aclError r = aclrtSynchronizeStream(s);
    printf("  aclrtSynchronizeStream returned %d: %s\n", r, aclGetRecentErrMsg());
    return 1; /* it must never return */
}

static int trap(void)
{
    aclrtStream s = newStream();
    aclrtEvent never = newEvent();
    aclrtPtr a = 0, reg = 0;
    SETUP(aclrtMalloc(&a, sizeof pool, ACL_MEM_MALLOC_HUGE_FIRST));
    SETUP(aclrtHostRegister(aclPtr(pool), sizeof pool, ACL_HOST_REGISTER_MAPPED, &reg));
    arm(never, s);
    SETUP(aclrtStreamWaitEvent(s, never));
    for (int i = 0; i < 64; i++) {
        SETUP(aclrtMemcpyAsync(a, sizeof pool, aclPtr(pool), sizeof pool, H2D, s));
    }
    printf("  trapping with 64 copies of pinned memory queued\n");
    fflush(stdout);
    __builtin_trap();
}

static int victim(void)
{
    const uint64_t n = 65536;
    aclrtPtr secret = 0;
    SETUP(aclrtMalloc(&secret, n, ACL_MEM_MALLOC_HUGE_FIRST));
    static uint8_t data[65536];
    for (uint64_t i = 0; i < n; i++) {
        data[i] = pattern(0x5ec7e7, (uint32_t)i);
    }
    SETUP(aclrtMemcpy(secret, n, aclPtr(data), n, H2D));
    printf("victim: holding %" PRIu64 " secret bytes at 0x%" PRIx64 "\n", n, secret);
    fflush(stdout);
    while (getchar() != EOF) {
    }
    memset(data, 0, n);
    SETUP(aclrtMemcpy(aclPtr(data), n, secret, n, D2H));
    int ok = 1;
    for (uint64_t i = 0; i < n; i++) {
        ok &= data[i] == pattern(0x5ec7e7, (uint32_t)i);
    }
    printf("victim: secret fnv1a64 0x%016" PRIx64 " %s\n", fnv1a64(data, n), ok ? "intact" : "CHANGED");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const char *modes = "forged-addr stale-addr foreign-addr forged-handle stale-handle oob overflow "
                               "desc-tamper quota spin hang trap victim";
    if (argc < 2) {
        printf("usage: hostile MODE [ARG]\nmodes: %s\n", modes);
        return 2;
    }
    mode = argv[1];
    printf("hostile %s\n", mode);
    SETUP(aclrtSetDevice(0));
    if (!strcmp(mode, "forged-addr")) return forgedAddr();
    if (!strcmp(mode, "stale-addr")) return staleAddr();
    if (!strcmp(mode, "foreign-addr")) {
        if (argc < 3) {
            printf("usage: hostile foreign-addr ADDRESS (a live device address of another session)\n");
            return 2;
        }
        return foreignAddr(strtoull(argv[2], NULL, 0));
    }
    if (!strcmp(mode, "forged-handle")) return forgedHandle();
    if (!strcmp(mode, "stale-handle")) return staleHandle();
    if (!strcmp(mode, "oob")) return oob();
    if (!strcmp(mode, "overflow")) return overflow();
    if (!strcmp(mode, "desc-tamper")) return descTamper();
    if (!strcmp(mode, "quota")) return quota();
    if (!strcmp(mode, "spin")) return spin();
    if (!strcmp(mode, "hang")) return hang();
    if (!strcmp(mode, "trap")) return trap();
    if (!strcmp(mode, "victim")) return victim();
    printf("unknown mode %s; modes: %s\n", mode, modes);
    return 2;
}
