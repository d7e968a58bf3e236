/*
 * conformance.c: the guest ABI v1.1 conformance program.
 *
 * Exercises every import of ABI v1 (shared/spec/ABI.md section 5) through the
 * C SDK, with valid and invalid arguments, and checks each returned code
 * against the ABI (sections 5-7) and the native check order. Checks that
 * test a native rule cite it as path:line in the native runtime's source
 * (hicann/runtime, ACL 1.17.0; memory.cpp, stream.cpp, device.cpp are
 * src/acl/aclrt_impl/, api_c*.cc src/runtime/api/, api_error.cc and
 * api_impl.cc src/runtime/api/impl/); docs/check-order.md lists every
 * function's checks in native order, generated from acl.Order. It prints one line per
 * check ("ok" or "FAIL" with the host's message) and a summary line
 * "conformance: N passed, M failed", and exits 1 if any check failed.
 *
 * It expects the host's default configuration (aclwasm run defaults): at
 * least one device (two for the peer checks, which are skipped otherwise),
 * device quota 1 GiB, streams 64, events 1024, registrations 256,
 * allocations 4096.
 *
 * The same source builds in both profiles of the SDK (guest ABI section 9):
 * with -DACLWASM_WIDE against module "acl" (aclrtPtr addresses, 8-byte
 * sizes), and by default against module "acl32" (void * device pointers,
 * 4-byte size_t, as natively). The profile shim below keeps the checks
 * common; the few that differ say so.
 *
 * Build (from the repository root; scripts/build-guests.sh does this):
 *   clang --target=wasm32-wasi -O2 -DACLWASM_WIDE -Iguest-sdk/c/include -o build/wasm/conformance.wasm tests/conformance/conformance.c
 *   clang --target=wasm32-wasi -O2 -Iguest-sdk/c/include -o build/wasm/conformance32.wasm tests/conformance/conformance.c
 * Run:
 *   aclwasm run build/wasm/conformance.wasm
 */
#include <stdio.h>
#include <string.h>

#include <acl/acl.h>
#include <acl/acl_prof.h>

#include "check.h"

/* ---- the profile ---- */

#ifdef ACLWASM_WIDE
/* acl: addresses are aclrtPtr (uint64_t), sizes on the wire 8 bytes. */
typedef uint64_t wsize;
#define PROFILE "acl (wide)"
#define ADDR_BYTES 8
#define AINT(p) ((uint64_t)(p))
#define ADDR(v) ((aclrtPtr)(v))
#define DEVICE_BASE ((aclrtPtr)1 << 32)
/* A device address no allocation can have: device addresses are 64-byte aligned. */
#define FORGED_DEVICE ((aclrtPtr)0x7654321000ULL + 3)
/* An address far above any session's allocations. */
#define FAR_DEVICE ((aclrtPtr)0xFFFF000000000000ULL)
/* A size no quota allows, without overflow in the native padding. */
#define HUGE_SIZE ((wsize)1 << 62)
/* The largest address: a range from near it overflows. */
#define MAX_ADDR UINT64_MAX
#else
/* acl32: device pointers are void *, sizes size_t (4 bytes), as natively.
   The SDK's aclrtPtr is void * and aclPtr(p) is p here, so the checks read
   the same in both profiles. */
typedef size_t wsize;
#define PROFILE "acl32 (native layout)"
#define ADDR_BYTES 4
#define AINT(p) ((uint64_t)(uintptr_t)(p))
#define ADDR(v) ((void *)(uintptr_t)(v))
/* Device memory is a window above the largest memory the guest may have,
   so above its current memory. */
#define DEVICE_BASE guest_end()
/* Not 64-byte aligned, near the window's top (2^32 - 2^16): no allocation
   of this program reaches it. */
#define FORGED_DEVICE ADDR(0xFFFE0000u - 0x10000u + 3)
/* Above the window: never device memory. */
#define FAR_DEVICE ADDR(0xFFFF8000u)
/* More than any quota, without overflow in the native padding. */
#define HUGE_SIZE ((wsize)0xF0000000u)
#define MAX_ADDR UINTPTR_MAX
#endif

/* ---- fixtures ---- */

/* A gptr whose bytes are not inside guest memory. */
#define BAD_GPTR ((void *)(uintptr_t)0xFFFFFFF0u)

static unsigned char hbuf[4096], hbuf2[4096], pinbuf[4096], robuf[256], scratch[4096];
static unsigned char msbuf[64]; /* memset targets in guest memory */

static aclrtPtr guest_end(void)
{
    return ADDR((uint64_t)__builtin_wasm_memory_size(0) * 65536);
}

/* A gptr whose first bytes are inside guest memory but not all of its n bytes. */
static void *straddling_gptr(unsigned n)
{
    return (void *)(uintptr_t)(guest_end() - (n - 1));
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(seed + i * 13);
    }
}

static int all_equal(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != v) {
            return 0;
        }
    }
    return 1;
}

/* Reads n bytes of device memory at src into scratch (sync D2H). */
static aclError peek(aclrtPtr src, size_t n)
{
    memset(scratch, 0xEE, n);
    return aclrtMemcpy(aclPtr(scratch), n, src, n, ACL_MEMCPY_DEVICE_TO_HOST);
}

static uint32_t device_count;

/* ---- sections ---- */

static void v13_before_set_device(void);

/* Native: every device call without a current context gives 107002 (api_impl.cc, CONTEXT_NULL -> errcode_manage.cc:218). */
static void before_set_device(void)
{
    section("before aclrtSetDevice (ABI 6: device work needs a current device)");
    /* Nothing has failed yet: no message, NULL as natively (acl.cpp:1311-1314). */
    CHECK(aclGetRecentErrMsg() == NULL);
    aclrtPtr p = 0;
    EXPECT(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(p == 0);
    aclrtStream s = NULL;
    EXPECT(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    v13_before_set_device();
}

/* Native: aclInit twice 100002, aclFinalize twice 100037, aclrtGetVersion NULL outs 100000 (acl.cpp aclrtGetVersionImpl). */
static void runtime(void)
{
    section("aclInit, aclrtGetVersion, aclGetRecentErrMsg");
    OK(aclInit(NULL));
    EXPECT(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);

    int32_t major = -1, minor = -1, patch = -1;
    OK(aclrtGetVersion(&major, &minor, &patch));
    CHECK(major == ACL_MAJOR_VERSION && minor == ACL_MINOR_VERSION && patch == ACL_PATCH_VERSION);
    EXPECT(aclrtGetVersion(NULL, &minor, &patch), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetVersion(&major, BAD_GPTR, &patch), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetVersion(&major, &minor, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);

    /* The recent message: the full length returned, bufLen-1 bytes and a NUL written. */
    EXPECT(aclrtGetVersion(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    char small[8];
    memset(small, 'x', sizeof small);
    int32_t n = aclwasm_raw_aclGetRecentErrMsg(small, (int32_t)sizeof small);
    CHECK(n > 7);
    CHECK(small[7] == '\0' && strlen(small) == 7);
    /* bufLen 0 writes nothing, and still returns the length. */
    char none = 'z';
    CHECK(aclwasm_raw_aclGetRecentErrMsg(&none, 0) == n && none == 'z');
    char full[1024];
    int32_t n2 = aclwasm_raw_aclGetRecentErrMsg(full, (int32_t)sizeof full);
    CHECK(n2 == n && (int32_t)strlen(full) == n);
    CHECK(memcmp(small, full, 7) == 0);
    /* Natively reading the message clears it (error_manager.cc:588-629): the
       read that returned it whole leaves none, NULL in the native form. */
    char again[16];
    CHECK(aclwasm_raw_aclGetRecentErrMsg(again, (int32_t)sizeof again) == 0 && again[0] == '\0');
    CHECK(aclGetRecentErrMsg() == NULL);
    /* A successful call neither clears a message nor leaves one. */
    EXPECT(aclrtGetVersion(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    uint32_t count = 0;
    OK(aclrtGetDeviceCount(&count));
    const char *m = aclGetRecentErrMsg();
    CHECK(m != NULL && strcmp(m, full) == 0);
    CHECK(aclGetRecentErrMsg() == NULL);
}

/* Native: bad device ids 107001 (rtSetDevice); GetDevice/GetDeviceCount NULL 100000 (device.cpp); timeouts below -1
   107000 (device.cpp:173-174), 0 107000 (api_error.cc:3479-3481); CanAccessPeer dev == peer 100000
   (memory.cpp:885-897), NULL out 107000 (api_error.cc:3393-3394); EnablePeerAccess flags 200006 (memory.cpp:910-913). */
static void devices(void)
{
    section("devices");
    device_count = 0;
    OK(aclrtGetDeviceCount(&device_count));
    CHECK(device_count >= 1);
    EXPECT(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDeviceCount(BAD_GPTR), ACL_ERROR_INVALID_PARAM);

    EXPECT(aclrtSetDevice((int32_t)device_count), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    OK(aclrtSetDevice(0));
    int32_t dev = -1;
    OK(aclrtGetDevice(&dev));
    CHECK(dev == 0);
    EXPECT(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDevice(straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);

    OK(aclrtSynchronizeDevice());
    OK(aclrtSynchronizeDeviceWithTimeout(-1));
    /* v1.1: 0 is refused as natively (api_error.cc:3479-3481); below -1 is
       the ACL layer's refusal (device.cpp:173-174). */
    EXPECT(aclrtSynchronizeDeviceWithTimeout(0), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtSynchronizeDeviceWithTimeout(100));
    EXPECT(aclrtSynchronizeDeviceWithTimeout(-2), ACL_ERROR_RT_PARAM_INVALID);

    int32_t can = -1;
    EXPECT(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
    if (device_count >= 2) {
        OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
        CHECK(can == 1);
        /* v1.1: the out-parameter is the runtime's check, 107000
           (api_error.cc:3393-3394); dev == peer stays the ACL layer's 100000
           and comes first (memory.cpp:885-897). */
        EXPECT(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
        EXPECT(aclrtDeviceCanAccessPeer(BAD_GPTR, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
        EXPECT(aclrtDeviceCanAccessPeer(NULL, 1, 1), ACL_ERROR_INVALID_PARAM);
        EXPECT(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
        OK(aclrtDeviceEnablePeerAccess(1, 0));
        OK(aclrtDeviceDisablePeerAccess(1));
    } else {
        printf("skip peer checks: one device\n");
    }

    wsize free0 = 0, total = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    CHECK(total > 0 && free0 <= total);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &free0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &free0, straddling_gptr(ADDR_BYTES)), ACL_ERROR_INVALID_PARAM);
    /* v1.1: an undefined attribute is the runtime's 107016 (api_error.cc:3185-3188),
       after the NULL checks (memory.cpp:966-967). */
    EXPECT(aclrtGetMemInfo((aclrtMemAttr)99, &free0, &total), ACL_ERROR_RT_INVALID_MEMORY_TYPE);
    EXPECT(aclrtGetMemInfo((aclrtMemAttr)99, NULL, &total), ACL_ERROR_INVALID_PARAM);
}

/* Native: aclrtMalloc NULL / size 0 100000 (memory.cpp:314-315), size + padding overflow 100000 (memory.cpp:300-303);
   aclrtFree NULL 100000 (memory.cpp:570); GetMemInfo NULL 100000 (memory.cpp:966-967), attr 107016
   (api_error.cc:3185-3188); PointerGetAttributes NULL 100000 (memory.cpp:450-451). Ranges: ABI section 6. */
static void memory(void)
{
    section("aclrtMalloc, aclrtFree, aclrtGetMemInfo, aclrtPointerGetAttributes");
    wsize free0 = 0, free1 = 0, total = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));

    aclrtPtr p = 0;
    OK(aclrtMalloc(&p, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(p >= DEVICE_BASE);
    CHECK(AINT(p) % 64 == 0);
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 <= free0 - 1000);

    aclrtPtr q = 0;
    EXPECT(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(&q, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(BAD_GPTR, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(straddling_gptr(ADDR_BYTES), 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(&q, total + 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT(aclrtMalloc(&q, HUGE_SIZE, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    CHECK(q == 0);
    /* Failed calls allocated nothing. */
    wsize free2 = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total));
    CHECK(free2 == free1);
    /* Unknown policy values fall back to the default, as natively. */
    OK(aclrtMalloc(&q, 64, (aclrtMemMallocPolicy)0x77));
    OK(aclrtFree(q));

    aclrtPtrAttributes attr;
    memset(&attr, 0xAB, sizeof attr);
    OK(aclrtPointerGetAttributes(p, &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && attr.location.id == 0);
    OK(aclrtPointerGetAttributes(p + 999, &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE);
    OK(aclrtPointerGetAttributes(aclPtr(hbuf), &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    EXPECT(aclrtPointerGetAttributes(FORGED_DEVICE, &attr), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtPointerGetAttributes(FAR_DEVICE, &attr), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtPointerGetAttributes(p, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtPointerGetAttributes(p, straddling_gptr(28)), ACL_ERROR_INVALID_PARAM);

    EXPECT(aclrtFree(0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtFree(p + 64), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtFree(aclPtr(hbuf)), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtFree(FORGED_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtFree(p));
    EXPECT(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtPointerGetAttributes(p, &attr), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total));
    CHECK(free2 == free0);

    /* A new allocation never reuses a freed range. */
    aclrtPtr r = 0;
    OK(aclrtMalloc(&r, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(r != p);
    EXPECT(aclrtMemcpy(aclPtr(hbuf), 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtFree(r));
}

/* Native: NULL / size 0 100000 (memory.cpp:492-495), type bits outside IOMEMORY|READONLY 207000
   (api_error.cc:1997-2002), context 107002 (api_impl.cc:2560-2561), unregistering an unknown ptr 507911
   (api_impl.cc:2638-2640). Ranges and overlap: ABI section 6. */
static void host_register(void)
{
    section("aclrtHostRegister, aclrtHostUnregister, aclrtMallocHost, aclrtFreeHost");
    aclrtPtr d = 0;
    EXPECT(aclrtHostRegister(0, 64, ACL_HOST_REGISTER_MAPPED, &d), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtHostRegister(aclPtr(pinbuf), 0, ACL_HOST_REGISTER_MAPPED, &d), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtHostRegister(aclPtr(pinbuf), 64, ACL_HOST_REGISTER_MAPPED, NULL), ACL_ERROR_INVALID_PARAM);
    /* v1.1: type bits outside IOMEMORY|READONLY are the runtime's 207000
       (api_error.cc:1997-2002). */
    EXPECT(aclrtHostRegister(aclPtr(pinbuf), 64, (aclrtHostRegisterType)1, &d), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtHostRegister(guest_end() - 32, 64, ACL_HOST_REGISTER_MAPPED, &d), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtHostRegister(FAR_DEVICE, 64, ACL_HOST_REGISTER_MAPPED, &d), ACL_ERROR_RT_PARAM_INVALID);
    /* The order: NULL ptr first (memory.cpp:492-495), then the type
       (api_error.cc:1997-2002), then the range (sandbox). */
    EXPECT(aclrtHostRegister(0, 0, (aclrtHostRegisterType)1, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtHostRegister(FAR_DEVICE, 64, (aclrtHostRegisterType)1, &d), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    CHECK(d == 0);

    OK(aclrtHostRegister(aclPtr(pinbuf), sizeof pinbuf, ACL_HOST_REGISTER_MAPPED, &d));
    CHECK(d == aclPtr(pinbuf));
    EXPECT(aclrtHostRegister(aclPtr(pinbuf) + 100, 16, ACL_HOST_REGISTER_MAPPED, &d),
           ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(aclrtHostRegister(aclPtr(pinbuf) - 8, 16, ACL_HOST_REGISTER_MAPPED, &d),
           ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    aclrtPtrAttributes attr;
    OK(aclrtPointerGetAttributes(aclPtr(pinbuf) + 10, &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT(aclrtHostUnregister(aclPtr(pinbuf) + 1), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(aclrtHostUnregister(aclPtr(hbuf)), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(aclrtHostUnregister(aclPtr(pinbuf)));
    EXPECT(aclrtHostUnregister(aclPtr(pinbuf)), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(aclrtPointerGetAttributes(aclPtr(pinbuf), &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED);

    /* Other types; no alignment is required. */
    OK(aclrtHostRegister(aclPtr(pinbuf) + 3, 61, ACL_HOST_REGISTER_IOMEMORY, &d));
    OK(aclrtHostUnregister(aclPtr(pinbuf) + 3));

    /* A READONLY range may only be a copy source. */
    aclrtPtr dev = 0;
    OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    fill(robuf, sizeof robuf, 7);
    OK(aclrtHostRegister(aclPtr(robuf), sizeof robuf, ACL_HOST_REGISTER_READONLY, &d));
    OK(aclrtMemcpy(dev, 256, aclPtr(robuf), 256, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT(aclrtMemcpy(aclPtr(robuf), 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemset(aclPtr(robuf), 256, 0, 256), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemsetAsync(aclPtr(robuf), 256, 0, 256, NULL), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtHostUnregister(aclPtr(robuf)));
    OK(aclrtFree(dev));

    /* The SDK's aclrtMallocHost: guest allocation plus registration. */
    void *h = NULL;
    OK(aclrtMallocHost(&h, 1000));
    CHECK(h != NULL);
    OK(aclrtPointerGetAttributes(aclPtr(h), &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT(aclrtMallocHost(&h, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtFreeHost(hbuf), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(aclrtFreeHost(h));
}

/* Native: count 0 first (memory.cpp:653-656), NULL and kinds outside 0..5 100000 (memory.cpp:657-658, 162-204),
   destMax 0 / count > destMax 107000 (api_error.cc:2135-2139), dst == src 0 (api_error.cc:2144), context 107002
   (api_impl.cc:2751). Ranges: ABI section 6. */
static void memcpy_sync(void)
{
    section("aclrtMemcpy");
    aclrtPtr a = 0, b = 0;
    OK(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    fill(hbuf, 256, 1);

    /* Native order: count 0 first, NULL, kind, destMax, count > destMax. */
    OK(aclrtMemcpy(0, 0, 0, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(0, 16, 0, 0, (aclrtMemcpyKind)99));
    EXPECT(aclrtMemcpy(0, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(a, 16, 0, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(a, 16, aclPtr(hbuf), 16, (aclrtMemcpyKind)-1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(a, 0, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(a, 15, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    /* A NULL check comes before the kind check. */
    EXPECT(aclrtMemcpy(0, 0, 0, 16, (aclrtMemcpyKind)99), ACL_ERROR_INVALID_PARAM);

    /* The four directions; kind 0..5 is accepted and otherwise ignored. */
    OK(aclrtMemcpy(a, 256, aclPtr(hbuf), 256, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(b, 256, a, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(hbuf2, 0, 256);
    OK(aclrtMemcpy(aclPtr(hbuf2), 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(hbuf, hbuf2, 256) == 0);
    memset(hbuf2, 0, 256);
    OK(aclrtMemcpy(aclPtr(hbuf2), 256, aclPtr(hbuf), 256, ACL_MEMCPY_HOST_TO_HOST));
    CHECK(memcmp(hbuf, hbuf2, 256) == 0);
    memset(hbuf2, 0, 256);
    OK(aclrtMemcpy(aclPtr(hbuf2), 256, a, 256, ACL_MEMCPY_HOST_TO_DEVICE)); /* kind says H2D, addresses say D2H */
    CHECK(memcmp(hbuf, hbuf2, 256) == 0);
    OK(aclrtMemcpy(a + 100, 156, aclPtr(hbuf) + 7, 50, ACL_MEMCPY_DEFAULT));
    OK(aclrtMemcpy(aclPtr(hbuf2), 50, a + 100, 50, ACL_MEMCPY_DEFAULT));
    CHECK(memcmp(hbuf + 7, hbuf2, 50) == 0);
    OK(aclrtMemcpy(a, 256, aclPtr(hbuf), 256, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
    /* destMax is a claim checked against count; only touched bytes must be valid. */
    OK(aclrtMemcpy(a + 240, 1u << 20, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Ranges: entirely inside one live allocation or guest memory. */
    EXPECT(aclrtMemcpy(a + 200, 100, aclPtr(hbuf), 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(a + 256, 1, aclPtr(hbuf), 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(a, 256, FORGED_DEVICE, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(a, 256, FAR_DEVICE, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(a, 256, guest_end() - 8, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(guest_end() - 8, 16, a, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(a, 256, ADDR(MAX_ADDR - 8), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    /* A range spanning two allocations is in neither. */
    if (b > a) {
        EXPECT(aclrtMemcpy(aclPtr(hbuf2), 4096, a, b - a + 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    } else {
        EXPECT(aclrtMemcpy(aclPtr(hbuf2), 4096, b, a - b + 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    }

    /* Validation before effect: a failed copy changed nothing. */
    memset(hbuf2, 0x11, 256);
    EXPECT(aclrtMemcpy(aclPtr(hbuf2), 256, a + 200, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(all_equal(hbuf2, 256, 0x11));

    /* A stale address is no allocation. */
    OK(aclrtFree(b));
    EXPECT(aclrtMemcpy(b, 256, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtFree(a));
}

/* Native: as the sync copy at the ACL layer (memory.cpp:688-701), the stream handle 107017 (api_c.cc:1113),
   count > destMax 107000 (api_error.cc:2184-2185), host to host 207000 (api_error.cc:2246-2248), pageable memory
   synchronized and copied before returning (api_error.cc:2254-2270). */
static void memcpy_async(void)
{
    section("aclrtMemcpyAsync, aclrtMemcpyAsyncWithCondition");
    aclrtPtr a = 0, b = 0;
    aclrtStream s = NULL, dead = NULL;
    aclrtEvent e = NULL;
    OK(aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&dead));
    OK(aclrtDestroyStream(dead));
    OK(aclrtCreateEvent(&e));
    fill(hbuf, 4096, 3);

    /* Unregistered guest memory: the copy completes before the call returns. */
    OK(aclrtMemcpyAsync(a, 4096, aclPtr(hbuf), 4096, ACL_MEMCPY_HOST_TO_DEVICE, s));
    memset(hbuf2, 0, 4096);
    OK(aclrtMemcpyAsync(aclPtr(hbuf2), 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(memcmp(hbuf, hbuf2, 4096) == 0);
    OK(aclrtMemcpyAsync(a, 4096, aclPtr(hbuf), 4096, ACL_MEMCPY_DEFAULT, NULL));

    /* Pinned and device memory: truly asynchronous, visible after a synchronize. */
    aclrtPtr pin = 0;
    OK(aclrtHostRegister(aclPtr(pinbuf), sizeof pinbuf, ACL_HOST_REGISTER_MAPPED, &pin));
    memset(pinbuf, 0, sizeof pinbuf);
    OK(aclrtMemcpyAsync(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(pin, 4096, b, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtSynchronizeStream(s));
    CHECK(memcmp(pinbuf, hbuf, 4096) == 0);
    OK(aclrtMemcpyAsyncWithCondition(b, 4096, pin, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));

    EXPECT(aclrtMemcpyAsync(0, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 32, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsync(a + 4090, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithCondition(a, 16, aclPtr(hbuf), 32, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    /* Handles: unknown, destroyed, of the wrong type. */
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE, dead), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_DEVICE, (aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    /* Async H2H is unsupported (PCIe-attached card). */
    EXPECT(aclrtMemcpyAsync(aclPtr(hbuf2), 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_HOST, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtMemcpyAsync(aclPtr(hbuf2), 16, pin, 16, ACL_MEMCPY_DEFAULT, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    OK(aclrtHostUnregister(pin));
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyStream(s));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
}

/* Native: count 0 first, NULL 100000 (memory.cpp:674-678, 742-746), async: stream handle 107017 (api_c.cc:996),
   count > maxCount 107000 (api_error.cc:3134-3136), host memory set at call time (memory_common.cc:100-107). */
static void memset_checks(void)
{
    section("aclrtMemset, aclrtMemsetAsync");
    aclrtPtr a = 0;
    aclrtStream s = NULL;
    OK(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));

    OK(aclrtMemset(a, 256, 0x1234, 256)); /* the low byte */
    OK(peek(a, 256));
    CHECK(all_equal(scratch, 256, 0x34));
    OK(aclrtMemset(a + 10, 246, -1, 20));
    OK(peek(a, 256));
    CHECK(all_equal(scratch + 10, 20, 0xFF) && scratch[9] == 0x34 && scratch[30] == 0x34);
    OK(aclrtMemset(0, 0, 0, 0));
    EXPECT(aclrtMemset(0, 16, 0, 16), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemset(a, 16, 0, 17), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemset(a + 250, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemset(FORGED_DEVICE, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID);
    /* v1.1: unregistered guest memory is set at call time, as natively for
       host memory (memory_common.cc:100-107). */
    memset(msbuf, 0x11, 16);
    OK(aclrtMemset(aclPtr(msbuf), 16, 0x5a, 16));
    CHECK(all_equal(msbuf, 16, 0x5a));

    /* Pinned guest memory is. */
    aclrtPtr pin = 0;
    OK(aclrtHostRegister(aclPtr(pinbuf), 256, ACL_HOST_REGISTER_MAPPED, &pin));
    OK(aclrtMemset(pin, 256, 0x77, 256));
    CHECK(all_equal(pinbuf, 256, 0x77));
    OK(aclrtMemsetAsync(pin, 256, 0x66, 128, s));
    OK(aclrtSynchronizeStream(s));
    CHECK(all_equal(pinbuf, 128, 0x66) && pinbuf[128] == 0x77);
    OK(aclrtHostUnregister(pin));

    OK(aclrtMemsetAsync(a, 256, 0x42, 256, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(a, 256));
    CHECK(all_equal(scratch, 256, 0x42));
    OK(aclrtMemsetAsync(a, 256, 0x43, 256, NULL));
    OK(aclrtSynchronizeStream(NULL));
    EXPECT(aclrtMemsetAsync(0, 16, 0, 16, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemsetAsync(a, 16, 0, 17, s), ACL_ERROR_RT_PARAM_INVALID);
    /* v1.1: guest memory is set before the call returns (memory_common.cc:100-107). */
    OK(aclrtMemsetAsync(aclPtr(msbuf), 16, 0x6b, 16, s));
    CHECK(all_equal(msbuf, 16, 0x6b));
    /* The stream handle comes before the count check (api_c.cc:996, then api_error.cc:3134-3136). */
    EXPECT(aclrtMemsetAsync(a, 16, 0, 17, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemsetAsync(a, 16, 0, 16, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);

    OK(aclrtDestroyStream(s));
    OK(aclrtFree(a));
}

/* Native: width or height 0 first, NULL, width above a pitch and kinds outside H2D/D2H/D2D/DEFAULT 100000
   (memory.cpp:216-265), limits 107000 (api_error.cc:2999-3004), sync kind D2D 207000 (api_error.cc:3022-3025),
   async stream handle 107017 (api_c.cc:1304). Spans: ABI section 7. */
static void memcpy_2d(void)
{
    section("aclrtMemcpy2d, aclrtMemcpy2dAsync");
    aclrtPtr a = 0, b = 0;
    aclrtStream s = NULL;
    OK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));
    fill(hbuf, 128, 5);

    /* 4 rows of 16 bytes, 32 apart in the source, packed in the destination. */
    OK(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 32, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(peek(a, 64));
    int rows_ok = 1;
    for (int r = 0; r < 4; r++) {
        rows_ok &= memcmp(scratch + 16 * r, hbuf + 32 * r, 16) == 0;
    }
    CHECK(rows_ok);
    /* Back, spread out: touches (height-1)*dpitch + width bytes. */
    memset(hbuf2, 0, 128);
    OK(aclrtMemcpy2d(aclPtr(hbuf2), 32, a, 16, 16, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(hbuf2, hbuf, 16) == 0 && memcmp(hbuf2 + 96, hbuf + 96, 16) == 0 && all_equal(hbuf2 + 16, 16, 0));
    /* The exact span fits: (4-1)*16 + 16 = 64. One more byte does not. */
    OK(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT(aclrtMemcpy2d(a + 1, 16, aclPtr(hbuf), 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy2d(a, 20, aclPtr(hbuf), 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);

    OK(aclrtMemcpy2d(0, 0, 0, 0, 0, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy2d(0, 0, 0, 0, 16, 0, (aclrtMemcpyKind)99));
    EXPECT(aclrtMemcpy2d(0, 16, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(a, 16, 0, 16, 16, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 8, 16, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(a, 8, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 16, 16, 5 * 1024 * 1024 + 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy2d(a, 5000001, aclPtr(hbuf), 5000001, 5000001, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    /* Sync 2D supports only H2D and D2H (native: D2D gives 207000). */
    EXPECT(aclrtMemcpy2d(b, 16, a, 16, 16, 4, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    /* Async: H2D, D2H and D2D (Atlas A2 rules). */
    OK(aclrtMemcpy2dAsync(a, 16, aclPtr(hbuf), 32, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpy2dAsync(b, 32, a, 16, 16, 2, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(b, 48));
    CHECK(memcmp(scratch, hbuf, 16) == 0 && memcmp(scratch + 32, hbuf + 32, 16) == 0);
    EXPECT(aclrtMemcpy2dAsync(a, 16, aclPtr(hbuf), 16, 17, 1, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2dAsync(a + 8, 16, aclPtr(hbuf), 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy2dAsync(a, 16, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_HOST_TO_DEVICE, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);

    OK(aclrtDestroyStream(s));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
}

static aclrtPtr bdst_one[1], bsrc_one[1];
static wsize bmax_one[1], bsize_one[1], bidx_one[1];
static aclrtMemcpyBatchAttr battr_one;

/* ABI v1.1: the native check order (docs/check-order.md) and the kind
   versus location rules. Each check names the native rule it tests. */
static void check_order(void)
{
    section("v1.1 native check order, kind and location");
    aclrtPtr a = 0, b = 0, pin = 0, desc = 0;
    aclrtStream s = NULL, bad = (aclrtStream)(uintptr_t)0x7777;
    OK(aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&desc, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));
    OK(aclrtHostRegister(aclPtr(pinbuf), sizeof pinbuf, ACL_HOST_REGISTER_MAPPED, &pin));

    /* The stream handle is checked at the runtime's entry point
       (api_c.cc:1113), before count > destMax (api_error.cc:2184-2185) and
       any address. */
    EXPECT(aclrtMemcpyAsync(FORGED_DEVICE, 16, aclPtr(hbuf), 32, ACL_MEMCPY_HOST_TO_DEVICE, bad), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemcpyAsyncWithCondition(FORGED_DEVICE, 16, aclPtr(hbuf), 32, ACL_MEMCPY_HOST_TO_DEVICE, bad), ACL_ERROR_RT_INVALID_HANDLE);
    /* ... but after the ACL layer's kind check (memory.cpp:162-204). */
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, bad), ACL_ERROR_INVALID_PARAM);
    /* 2D: handle (api_c.cc:1304) before the limits (api_error.cc:2999-3004). */
    EXPECT(aclrtMemcpy2dAsync(a, 16, aclPtr(hbuf), 16, 16, 5 * 1024 * 1024 + 1, ACL_MEMCPY_HOST_TO_DEVICE, bad), ACL_ERROR_RT_INVALID_HANDLE);
    /* Memset: handle (api_c.cc:996) before count > maxCount (api_error.cc:3134-3136). */
    EXPECT(aclrtMemsetAsync(a, 16, 0, 17, bad), ACL_ERROR_RT_INVALID_HANDLE);
    /* Descriptor copies: handle (api_c_memory.cc:402) before the kind (api_error.cc:2528-2531). */
    EXPECT(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, bad), ACL_ERROR_RT_INVALID_HANDLE);
    /* Offset copies: kind (api_c_standard_soc.cc:965-967) before the handle. */
    EXPECT(aclrtMemcpyAsyncWithOffset(a, 16, 0, b, 8, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, bad), ACL_ERROR_RT_PARAM_INVALID);
    /* aclrtStreamWaitEvent: the ACL layer's NULL event (stream.cpp:232), then the stream handle (api_c_stream.cc:127). */
    EXPECT(aclrtStreamWaitEvent(bad, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtStreamWaitEvent(bad, (aclrtEvent)(uintptr_t)0x7778), ACL_ERROR_RT_INVALID_HANDLE);

    /* Kind versus location (api_error.cc:2694-2735, 2786, 2844): pinned host
       and device memory correct the kind, unregistered memory allows only
       some kinds. */
    OK(aclrtMemcpyAsync(a, 16, pin, 16, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_DEFAULT, s));
    EXPECT(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsync(aclPtr(hbuf), 16, a, 16, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    /* HOST_TO_BUF_TO_DEVICE: host to device only (api_error.cc:2226-2231). */
    OK(aclrtMemcpyAsync(a, 16, aclPtr(hbuf), 16, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s));
    EXPECT(aclrtMemcpyAsync(aclPtr(hbuf), 16, a, 16, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    /* The corrected direction host to host is 207000 before dst == src
       succeeds (api_error.cc:2246-2251). */
    EXPECT(aclrtMemcpyAsync(pin, 16, pin, 16, ACL_MEMCPY_DEFAULT, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtMemcpyAsync(a, 16, a, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    /* Sync copy: dst == src succeeds before the address is looked at
       (api_error.cc:2144). */
    OK(aclrtMemcpy(FORGED_DEVICE, 16, FORGED_DEVICE, 16, ACL_MEMCPY_DEVICE_TO_DEVICE));

    /* 2D: kind DEVICE_TO_DEVICE is 207000 whatever the memory
       (api_error.cc:3022-3025); a corrected kind other than H2D/D2H 107000
       (api_error.cc:3037-3048); async host to host 107000 (api_error.cc:3075-3081). */
    EXPECT(aclrtMemcpy2d(aclPtr(hbuf2), 16, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtMemcpy2d(b, 16, a, 16, 16, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy2d(a, 16, aclPtr(hbuf), 16, 16, 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtMemcpy2d(a, 16, pin, 16, 16, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(aclrtMemcpy2dAsync(pin, 16, pin + 64, 16, 16, 1, ACL_MEMCPY_DEFAULT, s), ACL_ERROR_RT_PARAM_INVALID);

    /* A pageable copy synchronizes its stream first and returns its pending
       error (api_error.cc:2254-2270): a descriptor never set fails when it
       executes. */
    OK(aclrtMemset(desc, 128, 0, 128));
    OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    EXPECT(aclrtMemcpyAsync(aclPtr(hbuf2), 16, a, 16, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtSynchronizeStream(s));

    /* Descriptors: 32 bytes on Atlas A2 (dev_info_reg.cc:228), 64-byte
       aligned (api_error.cc:2482-2484, 2325-2328), count at most 4 GiB
       (api_error.cc:2479-2481). */
    wsize n = 0;
    OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &n));
    CHECK(n == 32);
    EXPECT(aclrtSetMemcpyDesc(desc + 32, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, 16, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithDesc(desc + 32, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
#ifdef ACLWASM_WIDE /* a 32-bit size_t cannot say more than 4 GiB */
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, ((uint64_t)4 << 30) + 1, NULL), ACL_ERROR_RT_PARAM_INVALID);
#endif

    /* Batch: the stream handle leaves failIndex alone (api_c_memory.cc:786). */
    wsize fi = 12345;
    bdst_one[0] = a, bsrc_one[0] = aclPtr(hbuf), bmax_one[0] = bsize_one[0] = 16, bidx_one[0] = 0;
    memset(&battr_one, 0, sizeof battr_one);
    battr_one.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    battr_one.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    EXPECT(aclrtMemcpyBatchAsync(bdst_one, bmax_one, bsrc_one, bsize_one, 1, &battr_one, bidx_one, 1, &fi, bad), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK(fi == 12345);

    /* Support functions: aclrtMalloc's size + padding overflow is 100000
       (memory.cpp:300-303); HostRegister accepts IOMEMORY|READONLY
       (api_error.cc:1997-2002); EnablePeerAccess checks flags before the
       device (memory.cpp:910-913). */
    aclrtPtr p = 0;
#ifdef ACLWASM_WIDE
    EXPECT(aclrtMalloc(&p, ~(wsize)0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
#else
    /* wasm32's SIZE_MAX is 4 GiB - 1: no overflow, just more than the quota and the window. */
    EXPECT(aclrtMalloc(&p, ~(wsize)0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
#endif
    aclrtPtr d = 0;
    OK(aclrtHostRegister(aclPtr(robuf), sizeof robuf, (aclrtHostRegisterType)12, &d));
    OK(aclrtHostUnregister(aclPtr(robuf)));

    OK(aclrtHostUnregister(pin));
    OK(aclrtDestroyStream(s));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
    OK(aclrtFree(desc));
}

static aclrtPtr bdst[4097], bsrc[4097];
static wsize bmax[4097], bsize[4097], bidx[4];
static aclrtMemcpyBatchAttr battr[4];

static void set_attr(int k, aclrtMemLocationType dt, uint32_t did, aclrtMemLocationType st, uint32_t sid)
{
    memset(&battr[k], 0, sizeof battr[k]);
    battr[k].dstLoc.type = dt;
    battr[k].dstLoc.id = did;
    battr[k].srcLoc.type = st;
    battr[k].srcLoc.id = sid;
}

/* Native: failIndex NULL, sizes NULL, numBatches 0 100000 (memory.cpp:1820, 1740-1741), all sizes 0 succeed with
   SIZE_MAX (memory.cpp:1743-1749), other NULL arrays, destMaxs below sizes, rsv 100000 (memory.cpp:1697-1730),
   attribute index shape 107000 (api_error.cc:7309-7381), per copy: location and direction 107000 with failIndex
   (api_impl.cc:8784-8860). A failed async batch runs nothing: ABI section 6. */
static void batch(void)
{
    section("aclrtMemcpyBatch, aclrtMemcpyBatchAsync, aclrtMemcpyBatchV2, aclrtMemcpyBatchAsyncV2");
    aclrtPtr d0 = 0, d1 = 0;
    aclrtStream s = NULL;
    wsize fi = 0;
    OK(aclrtMalloc(&d0, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&d1, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));
    fill(hbuf, 512, 9);

    /* Two H2D entries, one attribute: dst device 0, src unregistered host. */
    bdst[0] = d0, bsrc[0] = aclPtr(hbuf), bmax[0] = 256, bsize[0] = 256;
    bdst[1] = d1, bsrc[1] = aclPtr(hbuf) + 256, bmax[1] = 256, bsize[1] = 100;
    /* v1.1: a declared UNREGISTERED never matches (api_impl.cc:8802-8806):
       107000 with failIndex 0; unregistered memory is declared HOST. */
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0);
    bidx[0] = 0;
    fi = 12345;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fi == 0);
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    fi = 12345;
    OK(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi));
    CHECK(fi == ACLWASM_FAIL_INDEX_NONE);
    OK(peek(d1, 100));
    CHECK(memcmp(scratch, hbuf + 256, 100) == 0);
    /* Unregistered memory may also be declared HOST. */
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    OK(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi));
    OK(aclrtMemcpyBatchV2(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1));

    /* D2H, with a second attribute from entry 1 on. */
    aclrtPtr ddst[2] = {aclPtr(hbuf2), aclPtr(hbuf2) + 256};
    aclrtPtr dsrc[2] = {d0, d1};
    wsize dmax[2] = {256, 256}, dsize[2] = {256, 100}, didx[2] = {0, 1};
    aclrtMemcpyBatchAttr dattr[2];
    memset(dattr, 0, sizeof dattr);
    dattr[0].dstLoc.type = dattr[1].dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST; /* unregistered counts as HOST (api_impl.cc:8817-8821) */
    dattr[0].srcLoc.type = dattr[1].srcLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    memset(hbuf2, 0, 512);
    OK(aclrtMemcpyBatch(ddst, dmax, dsrc, dsize, 2, dattr, didx, 2, &fi));
    CHECK(memcmp(hbuf2, hbuf, 256) == 0 && memcmp(hbuf2 + 256, hbuf + 256, 100) == 0);

    /* ACL-layer checks (100000), in the native order. */
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, NULL, 2, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 0, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    wsize zeros[2] = {0, 0};
    fi = 12345;
    OK(aclrtMemcpyBatch(NULL, NULL, NULL, zeros, 2, NULL, NULL, 0, &fi)); /* all sizes 0: success first */
    CHECK(fi == ACLWASM_FAIL_INDEX_NONE);
    EXPECT(aclrtMemcpyBatch(NULL, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, NULL, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, NULL, 1, &fi), ACL_ERROR_INVALID_PARAM);
    bmax[1] = 99;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    bmax[1] = 256;
    battr[0].rsv[15] = 1;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    battr[0].rsv[15] = 0;
    /* Arrays must lie in guest memory. */
    EXPECT(aclrtMemcpyBatch(BAD_GPTR, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, straddling_gptr(2 * ADDR_BYTES), 2, battr, bidx, 1, &fi), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, BAD_GPTR), ACL_ERROR_INVALID_PARAM);

    /* Runtime shape checks (107000). */
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 0, &fi), ACL_ERROR_RT_PARAM_INVALID);
    set_attr(1, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    set_attr(2, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    bidx[1] = 1, bidx[2] = 1;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 3, &fi), ACL_ERROR_RT_PARAM_INVALID); /* numAttrs > count */
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx + 1, 1, &fi), ACL_ERROR_RT_PARAM_INVALID); /* [0] != 0 */
    bidx[1] = 0;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 2, &fi), ACL_ERROR_RT_PARAM_INVALID); /* not increasing */
    bidx[1] = 2;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 2, &fi), ACL_ERROR_RT_PARAM_INVALID); /* >= count */
    bidx[1] = 1;
    /* At most 4096 entries synchronously. Entries do not overlap: copies in a
     * batch run in no fixed order, so overlapping ones are undefined natively. */
    aclrtPtr big = 0;
    OK(aclrtMalloc(&big, 4097, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 4097; i++) {
        bdst[i] = big + i, bsrc[i] = aclPtr(hbuf) + (i % 512), bmax[i] = 1, bsize[i] = 1;
    }
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 4097, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 4096, battr, bidx, 1, &fi));
    OK(peek(big + 1000, 16));
    CHECK(memcmp(scratch, hbuf + 1000 % 512, 16) == 0);
    OK(aclrtFree(big));

    /* Per-entry checks: 107000 with failIndex naming the entry; nothing ran. */
    OK(aclrtMemset(d0, 256, 0xCC, 256));
    bdst[0] = d0, bsrc[0] = aclPtr(hbuf), bmax[0] = 256, bsize[0] = 256;
    bdst[1] = aclPtr(hbuf2), bsrc[1] = aclPtr(hbuf), bmax[1] = 16, bsize[1] = 16; /* H2H: dst is not DEVICE */
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    fi = 12345;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fi == 1);
    OK(peek(d0, 256));
    CHECK(all_equal(scratch, 256, 0xCC));
    bdst[1] = d1 + 200, bmax[1] = 100, bsize[1] = 100; /* past the allocation */
    fi = 12345;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fi == 1);
    bdst[1] = FORGED_DEVICE, bmax[1] = 16, bsize[1] = 16;
    fi = 12345;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fi == 1);
    bdst[1] = d1;
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 1, ACL_MEM_LOCATION_TYPE_HOST, 0); /* wrong device id */
    fi = 12345;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fi == 0);
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_DEVICE, 0); /* D2D entries */
    bsrc[0] = d1, bsrc[1] = d0;
    fi = 12345;
    EXPECT(aclrtMemcpyBatch(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fi == 0);
    OK(peek(d0, 256));
    CHECK(all_equal(scratch, 256, 0xCC));
    EXPECT(aclrtMemcpyBatchV2(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1), ACL_ERROR_RT_PARAM_INVALID);

    /* Async, through pinned memory. */
    aclrtPtr pin = 0;
    OK(aclrtHostRegister(aclPtr(pinbuf), 512, ACL_HOST_REGISTER_MAPPED, &pin));
    fill(pinbuf, 512, 21);
    bdst[0] = d0, bsrc[0] = pin, bmax[0] = 256, bsize[0] = 256;
    bdst[1] = d1, bsrc[1] = pin + 256, bmax[1] = 256, bsize[1] = 256;
    set_attr(0, ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    OK(aclrtMemcpyBatchAsync(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(d1, 256));
    CHECK(memcmp(scratch, pinbuf + 256, 256) == 0);
    OK(aclrtMemcpyBatchAsyncV2(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, s));
    OK(aclrtSynchronizeStream(s));
    /* More than 4096 entries are allowed asynchronously; an entry of size 0 is not. */
    bsize[1] = 0;
    EXPECT(aclrtMemcpyBatchAsync(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi, s), ACL_ERROR_RT_PARAM_INVALID);
    bsize[1] = 256;
    EXPECT(aclrtMemcpyBatchAsync(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, NULL, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyBatchAsync(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, &fi, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemcpyBatchAsyncV2(bdst, bmax, bsrc, bsize, 2, battr, bidx, 1, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtHostUnregister(pin));

    OK(aclrtDestroyStream(s));
    OK(aclrtFree(d0));
    OK(aclrtFree(d1));
}

/* Writes value into the address slot (ADDR_BYTES bytes) at slot in device memory. */
static void put_addr(aclrtPtr slot, aclrtPtr value)
{
    unsigned char b[ADDR_BYTES];
    for (int i = 0; i < ADDR_BYTES; i++) {
        b[i] = (unsigned char)(AINT(value) >> (8 * i));
    }
    OK(aclrtMemcpy(slot, ADDR_BYTES, aclPtr(b), ADDR_BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* Native: GetMemcpyDescSize NULL / kind >= 8 100000 (memory.cpp:1378-1381), other kinds 207000
   (api_c_memory.cc:347-358); SetMemcpyDesc 100000 checks (memory.cpp:1391-1399), desc in device memory
   (api_error.cc:2488-2518); AsyncWithDesc NULL stream 100000 (memory.cpp:1411-1415); AsyncWithOffset kind 107000
   (api_c_standard_soc.cc:965-967) and limits (api_error.cc:2184-2195, 2585-2604). Re-validation at execution: ABI 6. */
static void descriptors(void)
{
    section("aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc, aclrtMemcpyAsyncWithDesc, aclrtMemcpyAsyncWithOffset");
    wsize n = 0;
    OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &n));
    CHECK(n > 0 && n < 4096);
    EXPECT(aclrtGetMemcpyDescSize(ACL_MEMCPY_DEVICE_TO_DEVICE, &n), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtGetMemcpyDescSize((aclrtMemcpyKind)8, &n), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, BAD_GPTR), ACL_ERROR_INVALID_PARAM);

    aclrtPtr desc = 0, desc2 = 0, src = 0, dst = 0;
    aclrtStream s = NULL;
    OK(aclrtMalloc(&desc, n, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&desc2, n, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&src, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dst, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));
    fill(hbuf, 256, 33);
    OK(aclrtMemcpy(src, 256, aclPtr(hbuf), 256, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemset(dst, 256, 0, 256));

    OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 128, NULL));
    OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(dst, 256));
    CHECK(memcmp(scratch, hbuf, 128) == 0 && all_equal(scratch + 128, 128, 0));

    EXPECT(aclrtSetMemcpyDesc(0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 128, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 0, dst, 128, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, 0, 128, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 128, scratch), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, src, dst, 128, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtSetMemcpyDesc(desc, (aclrtMemcpyKind)9, src, dst, 128, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetMemcpyDesc(aclPtr(hbuf2), ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 128, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSetMemcpyDesc(desc + n - 8, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, 128, NULL), ACL_ERROR_RT_PARAM_INVALID);

    EXPECT(aclrtMemcpyAsyncWithDesc(0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtMemcpyAsyncWithDesc(desc, (aclrtMemcpyKind)8, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsyncWithDesc(aclPtr(hbuf2), ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);

    /* A descriptor is its bytes: a copy of them works elsewhere (ABI 7). */
    OK(aclrtMemset(dst, 256, 0, 256));
    OK(aclrtMemcpy(desc2, n, desc, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtMemcpyAsyncWithDesc(desc2, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(dst, 128));
    CHECK(memcmp(scratch, hbuf, 128) == 0);
    /* A tampered one fails when it executes, at the next synchronize, without touching memory. */
    OK(aclrtMemset(dst, 256, 0, 256));
    OK(aclrtMemset(desc2, n, 0x5A, n));
    OK(aclrtMemcpyAsyncWithDesc(desc2, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    FAILS(aclrtSynchronizeStream(s));
    OK(aclrtSynchronizeStream(s)); /* the error was reported once */
    OK(peek(dst, 256));
    CHECK(all_equal(scratch, 256, 0));
    /* A stale one too: its source was freed. */
    aclrtPtr tmp = 0;
    OK(aclrtMalloc(&tmp, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtSetMemcpyDesc(desc2, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, tmp, dst, 64, NULL));
    OK(aclrtFree(tmp));
    OK(aclrtMemcpyAsyncWithDesc(desc2, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    FAILS(aclrtSynchronizeStream(s));

    /* Offset copies: the slots hold device addresses, read when the copy runs. */
    aclrtPtr slots = 0;
    OK(aclrtMalloc(&slots, 2 * ADDR_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    put_addr(slots, dst);
    put_addr(slots + ADDR_BYTES, src);
    OK(aclrtMemset(dst, 256, 0, 256));
    OK(aclrtMemcpyAsyncWithOffset(slots, 256, 16, slots + ADDR_BYTES, 32, 64, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(dst, 256));
    CHECK(all_equal(scratch, 16, 0) && memcmp(scratch + 16, hbuf + 64, 32) == 0 && all_equal(scratch + 48, 208, 0));
    OK(aclrtMemcpyAsyncWithOffset(0, 0, 0, 0, 0, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    /* v1.1: no NULL check at the ACL layer; the runtime's NULL check gives
       107000 (api_error.cc:2181-2182), after the kind (api_c_standard_soc.cc:965-967)
       and the stream handle (api_c_standard_soc.cc:1067). */
    EXPECT(aclrtMemcpyAsyncWithOffset(0, 256, 0, slots + ADDR_BYTES, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithOffset(slots, 256, 0, 0, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithOffset(0, 256, 0, 0, 32, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithOffset(0, 256, 0, 0, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemcpyAsyncWithOffset(slots, 256, 0, slots + ADDR_BYTES, 32, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
#ifdef ACLWASM_WIDE
    EXPECT(aclrtMemcpyAsyncWithOffset(slots, 256, 0, slots + ADDR_BYTES, 32, (uint64_t)1 << 48, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
#else
    /* A 32-bit offset cannot pass the native 2^48 limit; one past the source
       allocation fails when the copy executes, without effect. */
    OK(aclrtMemcpyAsyncWithOffset(slots, 256, 0, slots + ADDR_BYTES, 32, 0xFFFFFF00u, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    FAILS(aclrtSynchronizeStream(s));
    OK(peek(dst, 256));
    CHECK(all_equal(scratch, 16, 0) && memcmp(scratch + 16, hbuf + 64, 32) == 0 && all_equal(scratch + 48, 208, 0));
#endif
    EXPECT(aclrtMemcpyAsyncWithOffset(slots, 256, 256, slots + ADDR_BYTES, 1, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithOffset(slots, 256, 200, slots + ADDR_BYTES, 57, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithOffset(aclPtr(hbuf2), 256, 0, slots + ADDR_BYTES, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsyncWithOffset(slots, 256, 0, slots + ADDR_BYTES, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    /* A forged address in a slot fails when the copy executes. */
    put_addr(slots + ADDR_BYTES, FORGED_DEVICE);
    OK(aclrtMemcpyAsyncWithOffset(slots, 256, 0, slots + ADDR_BYTES, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    FAILS(aclrtSynchronizeStream(s));
    put_addr(slots + ADDR_BYTES, aclPtr(hbuf)); /* guest memory is not device memory */
    OK(aclrtMemcpyAsyncWithOffset(slots, 256, 0, slots + ADDR_BYTES, 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    FAILS(aclrtSynchronizeStream(s));

    OK(aclrtDestroyStream(s));
    OK(aclrtFree(slots));
    OK(aclrtFree(desc));
    OK(aclrtFree(desc2));
    OK(aclrtFree(src));
    OK(aclrtFree(dst));
}

/* Native: CreateStream / DestroyStream NULL 100000, StreamQuery status NULL 100000 (stream.cpp), handles 107017
   (rtStream*), SynchronizeStreamWithTimeout below -1 107000 (stream.cpp:141-149), 0 107000 (api_error.cc:1442-1444). */
static void streams(void)
{
    section("streams");
    aclrtStream s = NULL;
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    aclrtEvent e = NULL;
    OK(aclrtCreateStream(&s));
    CHECK(s != NULL);
    OK(aclrtCreateEvent(&e));
    EXPECT(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateStream(BAD_GPTR), ACL_ERROR_INVALID_PARAM);
    OK(aclrtSynchronizeStream(s));
    OK(aclrtSynchronizeStream(NULL));
    OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    /* v1.1: 0 is refused (api_error.cc:1442-1444), after the handle (api_c_stream.cc:172). */
    EXPECT(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSynchronizeStreamWithTimeout((aclrtStream)(uintptr_t)0x7777, 0), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtSynchronizeStreamWithTimeout(NULL, 10));
    EXPECT(aclrtSynchronizeStreamWithTimeout(s, -2), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtStreamQuery(s, &st));
    CHECK(st == ACL_STREAM_STATUS_COMPLETE);
    OK(aclrtStreamQuery(NULL, &st));
    EXPECT(aclrtStreamQuery(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtStreamQuery(s, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSynchronizeStream((aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeStream((aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamQuery((aclrtStream)(uintptr_t)0x7777, &st), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyStream((aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtDestroyStream(s));
    EXPECT(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_INVALID_HANDLE);
    /* Handles are never reused: a new stream gets a new handle. */
    aclrtStream s2 = NULL;
    OK(aclrtCreateStream(&s2));
    CHECK(s2 != s);
    OK(aclrtDestroyStream(s2));
    OK(aclrtDestroyEvent(e));

    /* Count limit (default 64 streams): 207012. */
    static aclrtStream many[200];
    int k = 0;
    aclError ret = ACL_SUCCESS;
    while (k < 200 && (ret = aclrtCreateStream(&many[k])) == ACL_SUCCESS) {
        k++;
    }
    EXPECT(ret, ACL_ERROR_RT_OVER_LIMIT);
    int destroyed = 1;
    while (k > 0) {
        destroyed &= aclrtDestroyStream(many[--k]) == ACL_SUCCESS;
    }
    CHECK(destroyed);
}

/* Native: event NULL 100000 (event.cpp, stream.cpp:232), handles 107017 (api_c.cc:739-740, api_c_stream.cc:127-128),
   ElapsedTime without completed records 107006. */
static void events(void)
{
    section("events");
    aclrtStream s = NULL;
    aclrtEvent e1 = NULL, e2 = NULL;
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    float ms = -1;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&e1));
    OK(aclrtCreateEvent(&e2));
    CHECK(e1 != NULL && e2 != NULL && e1 != e2);
    EXPECT(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateEvent(straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);

    aclrtPtr a = 0;
    OK(aclrtMalloc(&a, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtRecordEvent(e1, s));
    OK(aclrtMemsetAsync(a, 1 << 16, 1, 1 << 16, s));
    OK(aclrtRecordEvent(e2, s));
    OK(aclrtSynchronizeEvent(e2));
    OK(aclrtQueryEventStatus(e2, &st));
    CHECK(st == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtEventElapsedTime(&ms, e1, e2));
    CHECK(ms >= 0);
    EXPECT(aclrtEventElapsedTime(NULL, e1, e2), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtEventElapsedTime(BAD_GPTR, e1, e2), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtEventElapsedTime(&ms, e1, (aclrtEvent)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtQueryEventStatus(e2, NULL), ACL_ERROR_INVALID_PARAM);

    /* Cross-stream ordering: s2 waits for e2. */
    aclrtStream s2 = NULL;
    OK(aclrtCreateStream(&s2));
    /* Native (event.cc:721-729): a wait for an event never recorded is refused. */
    aclrtEvent fresh = NULL;
    OK(aclrtCreateEvent(&fresh));
    EXPECT(aclrtStreamWaitEvent(s2, fresh), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtDestroyEvent(fresh));
    OK(aclrtRecordEvent(e1, s));
    OK(aclrtStreamWaitEvent(s2, e1));
    OK(aclrtStreamWaitEvent(NULL, e1));
    OK(aclrtSynchronizeStream(s2));
    OK(aclrtRecordEvent(e1, NULL));
    OK(aclrtSynchronizeEvent(e1));

    EXPECT(aclrtRecordEvent(e1, (aclrtStream)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtRecordEvent((aclrtEvent)s, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamWaitEvent(s, (aclrtEvent)s2), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeEvent((aclrtEvent)(uintptr_t)0x7777), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtQueryEventStatus((aclrtEvent)s, &st), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyEvent((aclrtEvent)s), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtDestroyEvent(e2));
    EXPECT(aclrtDestroyEvent(e2), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtRecordEvent(e2, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeEvent(e2), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtDestroyEvent(e1));
    OK(aclrtDestroyStream(s2));
    OK(aclrtDestroyStream(s));
    OK(aclrtFree(a));
}

/* ABI v1.2 section 12: notifies and the event functions it adds. Native
 * references: notify.cpp and event.cpp (src/acl/aclrt_impl/), api_c.cc and
 * api_c_event.cc (src/runtime/api/), event.cc (src/runtime/core/src/event/). */
static void notifies_and_events_v12(void)
{
    section("notifies and events (v1.2)");
    aclrtStream w = NULL;
    aclrtNotify n = NULL;
    uint32_t id = 0;
    OK(aclrtCreateStream(&w));
    EXPECT(aclrtCreateNotify(NULL, 0), ACL_ERROR_INVALID_PARAM);      /* notify.cpp:29 */
    EXPECT(aclrtCreateNotify(&n, 2), ACL_ERROR_RT_PARAM_INVALID);     /* api_c_event.cc:122 */
    OK(aclrtCreateNotify(&n, 0));
    CHECK(n != NULL);
    OK(aclrtGetNotifyId(n, &id));
    EXPECT(aclrtGetNotifyId(n, NULL), ACL_ERROR_INVALID_PARAM);       /* notify.cpp:75 */
    /* A wait before any record holds its stream until a record runs, then
       resets the notify: a second wait times out (107019 at the next
       synchronize) and the stream goes on. */
    OK(aclrtWaitAndResetNotify(n, w, 0));
    OK(aclrtRecordNotify(n, NULL));
    OK(aclrtSynchronizeStream(w));
    OK(aclrtWaitAndResetNotify(n, w, 10));
    EXPECT(aclrtSynchronizeStream(w), ACL_ERROR_RT_WAIT_TIMEOUT);
    OK(aclrtSynchronizeStream(w));
    EXPECT(aclrtRecordNotify((aclrtNotify)w, w), ACL_ERROR_RT_INVALID_HANDLE);     /* api_c.cc:1977 */
    EXPECT(aclrtRecordNotify(n, (aclrtStream)n), ACL_ERROR_RT_INVALID_HANDLE);     /* api_c.cc:1978 */
    EXPECT(aclrtDestroyStream((aclrtStream)n), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyNotify(NULL), ACL_ERROR_INVALID_PARAM);                     /* notify.cpp:41 */
    OK(aclrtDestroyNotify(n));
    EXPECT(aclrtDestroyNotify(n), ACL_ERROR_RT_INVALID_HANDLE);

    aclrtEvent ev = NULL, nm = NULL;
    uint64_t ts = 0;
    uint32_t avail = 0, before = 0;
    OK(aclrtGetEventAvailNum(&before));
    OK(aclrtCreateEvent(&ev));
    OK(aclrtGetEventAvailNum(&avail));
    CHECK(avail + 1 == before);
    EXPECT(aclrtGetEventId(ev, &id), ACL_ERROR_RT_INTERNAL_ERROR);                 /* event.cc:505-510: no id yet */
    EXPECT(aclrtEventGetTimestamp(ev, &ts), ACL_ERROR_RT_INTERNAL_ERROR);          /* event.cc:1296-1297 */
    EXPECT(aclrtEventGetTimestamp(ev, NULL), ACL_ERROR_INVALID_PARAM);             /* event.cpp:217 */
    /* The ACL layer's own 107000 leaves the last error as it was. */
    CHECK(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT(aclrtSynchronizeEventWithTimeout(ev, -2), ACL_ERROR_RT_PARAM_INVALID);  /* event.cpp:188 */
    CHECK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);
    EXPECT(aclrtSynchronizeEventWithTimeout(NULL, 5), ACL_ERROR_INVALID_PARAM);    /* event.cpp:190 */
    EXPECT(aclrtSynchronizeEventWithTimeout(ev, 0), ACL_ERROR_RT_PARAM_INVALID);   /* api_error.cc:1772 */
    OK(aclrtRecordEvent(ev, w));
    OK(aclrtGetEventId(ev, &id));
    OK(aclrtSynchronizeEventWithTimeout(ev, -1));
    OK(aclrtEventGetTimestamp(ev, &ts));
    /* A reset keeps the record's status and timestamp (event.cc:764-795). */
    uint64_t ts2 = 0;
    aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    OK(aclrtResetEvent(ev, w));
    OK(aclrtSynchronizeStream(w));
    OK(aclrtEventGetTimestamp(ev, &ts2));
    CHECK(ts2 == ts);
    OK(aclrtQueryEventStatus(ev, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtRecordEvent(ev, w));
    OK(aclrtSynchronizeStream(w));
    OK(aclrtEventGetTimestamp(ev, &ts));
    /* Wait status: only the waits queued on the event count. */
    aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_NOT_READY;
    OK(aclrtQueryEventWaitStatus(ev, &ws));
    CHECK(ws == ACL_EVENT_WAIT_STATUS_COMPLETE);
    OK(aclrtStreamWaitEvent(w, ev));
    OK(aclrtSynchronizeStream(w));
    ws = ACL_EVENT_WAIT_STATUS_NOT_READY;
    OK(aclrtQueryEventWaitStatus(ev, &ws));
    CHECK(ws == ACL_EVENT_WAIT_STATUS_COMPLETE);
    EXPECT(aclrtQueryEventWaitStatus(NULL, &ws), ACL_ERROR_INVALID_PARAM);         /* event.cpp:160 */
    EXPECT(aclrtQueryEventWaitStatus(ev, NULL), ACL_ERROR_INVALID_PARAM);          /* event.cpp:161 */
    EXPECT(aclrtQueryEventWaitStatus((aclrtEvent)w, &ws), ACL_ERROR_RT_INVALID_HANDLE); /* api_c.cc:840 */
    /* New mode (event.cc:596-599): a wait before any record succeeds. */
    EXPECT(aclrtCreateEventExWithFlag(&nm, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtCreateEventExWithFlag(&nm, 0x40), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtCreateEventExWithFlag(&nm, 0x8)); /* ACL_EVENT_TIME_LINE */
    CHECK(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_PARAM_INVALID);   /* the flag 0 above */
    EXPECT(aclrtQueryEventWaitStatus(nm, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);  /* api_error.cc:1823 */
    CHECK(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);                  /* api_c.cc:843: not recorded */
    /* Before any record a new-mode event reads as recorded (event.cc:1193-1198). */
    rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    OK(aclrtQueryEventStatus(nm, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    /* Without ACL_EVENT_SYNC it has no wait task: no wait, no reset (api_error.cc:1414-1416, 1760-1762). */
    EXPECT(aclrtStreamWaitEvent(w, nm), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtResetEvent(nm, w), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtDestroyEvent(nm));
    OK(aclrtCreateEventExWithFlag(&nm, 0x1)); /* ACL_EVENT_SYNC */
    OK(aclrtStreamWaitEvent(w, nm));
    OK(aclrtSynchronizeStream(w));
    EXPECT(aclrtResetEvent(nm, w), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);              /* api_impl.cc:2210-2215 */
    OK(aclrtDestroyEvent(nm));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(w));
}

/* The runtime's kernel API (ABI section 13.3) under the default policy,
 * which grants no kernel: the ACL layer's NULL checks (100000), handles of
 * no binary, function or argument list (107017), names of binaries the host
 * did not approve (107000, as a missing file natively), guest-supplied
 * binaries (207000). tests/kernels_test.go and the host's tests launch
 * granted kernels. */
static void kernel_api(void)
{
    section("kernel API: aclrtBinaryLoadFromFile ... aclrtLaunchKernelWithConfig (ABI 13.3)");
    aclrtStream s = NULL;
    aclrtEvent ev = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&ev));
    aclrtPtr dev = 0;
    OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtBinHandle bin = NULL, bogusBin = (aclrtBinHandle)(uintptr_t)0x7777u;
    aclrtFuncHandle fn = NULL, bogusFn = (aclrtFuncHandle)(uintptr_t)0x7778u;
    aclrtArgsHandle args = NULL, bogusArgs = (aclrtArgsHandle)(uintptr_t)0x7779u;
    aclrtParamHandle p = NULL, bogusParam = (aclrtParamHandle)(uintptr_t)0x777au;
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    uint32_t x = 1;

    EXPECT(aclrtBinaryLoadFromFile(NULL, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryLoadFromFile("kernel.o", NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryLoadFromFile("kernel.o", NULL, (aclrtBinHandle *)BAD_GPTR), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryLoadFromFile("kernel.o", NULL, &bin), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(bin == NULL);
    CHECK(strstr(aclGetRecentErrMsg(), "approved") != NULL);
    aclrtBinaryLoadOptions noArray = {.options = NULL, .numOpt = 1};
    EXPECT(aclrtBinaryLoadFromFile("kernel.o", &noArray, &bin), ACL_ERROR_RT_PARAM_INVALID);
    aclrtBinaryLoadOption magic = {.type = ACL_RT_BINARY_LOAD_OPT_MAGIC, .value = {.magic = ACL_RT_BINARY_LOAD_OPT_MAGIC}};
    aclrtBinaryLoadOptions withMagic = {.options = &magic, .numOpt = 1};
    EXPECT(aclrtBinaryLoadFromFile("kernel.o", &withMagic, &bin), ACL_ERROR_RT_PARAM_INVALID);

    EXPECT(aclrtBinaryLoadFromData(NULL, sizeof elf, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryLoadFromData(elf, sizeof elf, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryLoadFromData(elf, sizeof elf, NULL, &bin), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    CHECK(strstr(aclGetRecentErrMsg(), "device code the guest supplies") != NULL);

    EXPECT(aclrtBinaryGetFunction(NULL, "add_custom", &fn), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryGetFunction(bogusBin, NULL, &fn), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryGetFunction(bogusBin, "add_custom", NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryGetFunction(bogusBin, "add_custom", &fn), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtBinaryGetFunction((aclrtBinHandle)s, "add_custom", &fn), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtBinaryGetFunctionByEntry(NULL, 0, &fn), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryGetFunctionByEntry(bogusBin, 0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryGetFunctionByEntry((aclrtBinHandle)ev, 0, &fn), ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT(aclrtKernelArgsInit(NULL, &args), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsInit(bogusFn, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsInit(bogusFn, &args), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtKernelArgsAppend(NULL, &x, sizeof x, &p), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsAppend(bogusArgs, NULL, sizeof x, &p), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsAppend(bogusArgs, &x, 0, &p), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsAppend(bogusArgs, &x, sizeof x, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsAppend(bogusArgs, &x, sizeof x, &p), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtKernelArgsAppendPlaceHolder(NULL, &p), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsAppendPlaceHolder(bogusArgs, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsAppendPlaceHolder(bogusArgs, &p), ACL_ERROR_RT_INVALID_HANDLE);
    aclrtPtr buf = 0;
    EXPECT(aclrtKernelArgsGetPlaceHolderBuffer(NULL, bogusParam, 4, &buf), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsGetPlaceHolderBuffer(bogusArgs, NULL, 4, &buf), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsGetPlaceHolderBuffer(bogusArgs, bogusParam, 0, &buf), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsGetPlaceHolderBuffer(bogusArgs, bogusParam, 4, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsGetPlaceHolderBuffer(bogusArgs, bogusParam, 4, &buf), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtKernelArgsFinalize(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtKernelArgsFinalize(bogusArgs), ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT(aclrtLaunchKernelWithConfig(NULL, 1, s, NULL, bogusArgs, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtLaunchKernelWithConfig(bogusFn, 0, s, NULL, bogusArgs, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtLaunchKernelWithConfig(bogusFn, 1, s, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtLaunchKernelWithConfig(bogusFn, 1, s, NULL, bogusArgs, hbuf), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtLaunchKernelWithConfig(bogusFn, 1, s, NULL, bogusArgs, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtLaunchKernelWithConfig((aclrtFuncHandle)s, 1, s, NULL, bogusArgs, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtLaunchKernel(NULL, 1, dev, 8, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtLaunchKernel(bogusFn, 1, 0, 8, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtLaunchKernel(bogusFn, 1, dev, 8, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtBinaryUnLoad(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryUnLoad(bogusBin), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtBinaryUnLoad((aclrtBinHandle)ev), ACL_ERROR_RT_INVALID_HANDLE);

    OK(aclrtFree(dev));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(s));
}

/* Sandbox quotas (ABI section 6): byte quotas 207001, count limits 207012. */
static void limits(void)
{
    section("quotas and count limits");
    /* Registrations (default 256): 207012. */
    static aclrtPtr regs[300];
    static unsigned char regmem[300 * 16];
    int k = 0;
    aclError ret = ACL_SUCCESS;
    while (k < 300) {
        aclrtPtr d;
        ret = aclrtHostRegister(aclPtr(regmem) + 16 * k, 16, ACL_HOST_REGISTER_MAPPED, &d);
        if (ret != ACL_SUCCESS) {
            break;
        }
        regs[k++] = d;
    }
    EXPECT(ret, ACL_ERROR_RT_OVER_LIMIT);
    int undone = 1;
    while (k > 0) {
        undone &= aclrtHostUnregister(regs[--k]) == ACL_SUCCESS;
    }
    CHECK(undone);

    /* Allocations (default 4096): 207012. */
    static aclrtPtr allocs[5000];
    k = 0;
    while (k < 5000 && (ret = aclrtMalloc(&allocs[k], 64, ACL_MEM_MALLOC_HUGE_FIRST)) == ACL_SUCCESS) {
        k++;
    }
    EXPECT(ret, ACL_ERROR_RT_OVER_LIMIT);
    int freed = 1;
    while (k > 0) {
        freed &= aclrtFree(allocs[--k]) == ACL_SUCCESS;
    }
    CHECK(freed);

    /* Events (default 1024): 207012. */
    static aclrtEvent evs[1100];
    k = 0;
    while (k < 1100 && (ret = aclrtCreateEvent(&evs[k])) == ACL_SUCCESS) {
        k++;
    }
    EXPECT(ret, ACL_ERROR_RT_OVER_LIMIT);
    int gone = 1;
    while (k > 0) {
        gone &= aclrtDestroyEvent(evs[--k]) == ACL_SUCCESS;
    }
    CHECK(gone);
}

/* ABI v1.1 section 10: the SDK functions over the imports, with the native
   signatures (acl/aclwasm_host.h). */
static void sdk_functions(void)
{
    section("SDK functions: allocation variants, aclrtCheckMemType, aclDataBuffer");
    aclrtPtr a = 0, b = 0, c = 0;
    aclrtMallocConfig cfg;
    aclrtMallocAttribute attrs[1];
    memset(attrs, 0, sizeof attrs);
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 7;
    cfg.attrs = attrs;
    cfg.numAttrs = 1;
    OK(aclrtMallocAlign32(&a, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMallocCached(&b, 100, ACL_MEM_MALLOC_NORMAL_ONLY));
    /* Native (memory.cpp:353-361): attributes counted, but no array: 100000, nothing allocated. */
    cfg.attrs = NULL;
    EXPECT(aclrtMallocWithCfg(&c, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
    CHECK(c == 0);
    /* The runtime's checks (api_error.cc:7057-7059, api_impl.cc:8161-8180 and 8238-8246): a cfg without
       an array, a VA flag, a device id of another device give 107000, nothing allocated. */
    cfg.numAttrs = 0;
    EXPECT(aclrtMallocWithCfg(&c, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    cfg.attrs = attrs;
    cfg.numAttrs = 1;
    attrs[0].attr = ACL_RT_MEM_ATTR_VA_FLAG;
    attrs[0].value.vaFlag = 1;
    EXPECT(aclrtMallocWithCfg(&c, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    int32_t cur = -1;
    OK(aclrtGetDevice(&cur));
    attrs[0].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attrs[0].value.deviceId = (uint32_t)cur + 1;
    EXPECT(aclrtMallocWithCfg(&c, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(c == 0);
    attrs[0].value.deviceId = (uint32_t)cur;
    OK(aclrtMallocWithCfg(&c, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    OK(aclrtFree(c));
    c = 0;
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 7;
    OK(aclrtMallocWithCfg(&c, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    CHECK(a != 0 && b != 0 && c != 0 && a != b && b != c);
    EXPECT(aclrtMallocAlign32(NULL, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);

    aclrtPtr list[3] = {a, b, c};
    uint32_t match = 7;
    OK(aclrtCheckMemType(list, 3, ACL_RT_MEM_TYPE_DEV, &match, 0));
    CHECK(match == 1);
    OK(aclrtCheckMemType(list, 3, ACL_RT_MEM_TYPE_DVPP, &match, 0));
    CHECK(match == 0);
    list[1] = aclPtr(hbuf);
    OK(aclrtCheckMemType(list, 3, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP, &match, 0));
    CHECK(match == 0);
    EXPECT(aclrtCheckMemType(NULL, 3, ACL_RT_MEM_TYPE_DEV, &match, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCheckMemType(list, 0, ACL_RT_MEM_TYPE_DEV, &match, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCheckMemType(list, 3, 0x1, &match, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCheckMemType(list, 3, ACL_RT_MEM_TYPE_DEV, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCheckMemType(list, 3, ACL_RT_MEM_TYPE_DEV, &match, 1), ACL_ERROR_INVALID_PARAM);

    aclDataBuffer *buf = aclCreateDataBuffer(a, 100);
    CHECK(buf != NULL && aclGetDataBufferAddr(buf) == a && aclGetDataBufferSizeV2(buf) == 100 &&
          aclGetDataBufferSize(buf) == 100);
    OK(aclUpdateDataBuffer(buf, b, 64));
    CHECK(aclGetDataBufferAddr(buf) == b && aclGetDataBufferSizeV2(buf) == 64);
    OK(aclDestroyDataBuffer(buf));
    EXPECT(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclUpdateDataBuffer(NULL, a, 1), ACL_ERROR_INVALID_PARAM);
    CHECK(aclGetDataBufferAddr(NULL) == 0 && aclGetDataBufferSizeV2(NULL) == 0);

    OK(aclrtFreeWithDevSync(a));
    OK(aclrtFree(b));
    OK(aclrtFreeWithDevSync(c));
    EXPECT(aclrtFreeWithDevSync(c), ACL_ERROR_RT_PARAM_INVALID);
    list[0] = c;
    EXPECT(aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, &match, 0), ACL_ERROR_RT_PARAM_INVALID);

    void *h = NULL;
    /* Native (api_impl.cc:2490-2491): the runtime refuses a cfg without an attribute array: 107000. */
    cfg.attrs = NULL;
    EXPECT(aclrtMallocHostWithCfg(&h, 256, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(h == NULL);
    EXPECT(aclrtMallocHostWithCfg(NULL, 256, &cfg), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMallocHostWithCfg(&h, 0, &cfg), ACL_ERROR_INVALID_PARAM);
    cfg.attrs = attrs;
    /* Host memory takes MODULE_ID and VA_FLAG only (api_impl.cc:2445-2464). */
    attrs[0].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    EXPECT(aclrtMallocHostWithCfg(&h, 256, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    attrs[0].attr = ACL_RT_MEM_ATTR_RSV;
    EXPECT(aclrtMallocHostWithCfg(&h, 256, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(h == NULL);
    attrs[0].attr = ACL_RT_MEM_ATTR_VA_FLAG;
    OK(aclrtMallocHostWithCfg(&h, 256, &cfg));
    OK(aclrtFreeHostWithDevSync(h));
    h = NULL;
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    OK(aclrtMallocHostWithCfg(&h, 256, &cfg));
    aclrtPtrAttributes attr;
    OK(aclrtPointerGetAttributes(aclPtr(h), &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT(aclrtMallocHostWithCfg(&h, (uint64_t)SIZE_MAX + 1, NULL), ACL_ERROR_RT_MEMORY_ALLOCATION);
    OK(aclrtFreeHostWithDevSync(h));
    EXPECT(aclrtFreeHostWithDevSync(h), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

/* ---- ABI v1.3 section 15: runtime functions programs call ---- */

/* The profiler's PROFILING_FAILED (error_code.h:21), which most marker
   functions of acl/acl_prof.h return; it has no ACL_ERROR_* name. */
#define PROF_FAILED ((aclError)-1)

/* A handle no object has. */
#define BAD_STREAM ((aclrtStream)(uintptr_t)0x7777)
#define BAD_STAMP ((void *)(uintptr_t)0x7777)

/* Section 15 without a current context: the context steps of
   docs/check-order.md (api_impl.cc), and the queries that need none. */
static void v13_before_set_device(void)
{
    section("v1.3 before aclrtSetDevice: context steps of section 15");
    uint32_t v = 7;
    int32_t id = -1;
    aclrtStream s = NULL;
    /* A NULL stream names the default stream, which needs a context. */
    EXPECT(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtSetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, 1), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtResetStreamResLimit(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtUseStreamResInCurrentThread(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtUnuseStreamResInCurrentThread(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtCreateStreamV2(&s, NULL), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(s == NULL);
    EXPECT(aclrtStreamGetPriority(NULL, &v), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtStreamGetFlags(NULL, &v), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtStreamGetId(NULL, &id), ACL_ERROR_RT_CONTEXT_NULL);
    /* Stop refuses NULL before the context (api_error.cc:6595-6596); Abort
       finds no default stream to name (api_error.cc:6602-6603). */
    EXPECT(aclrtStreamStop(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtStreamAbort(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSetStreamOverflowSwitch(NULL, 1), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtGetStreamOverflowSwitch(NULL, &v), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtGetOverflowStatus(FORGED_DEVICE, 64, NULL), ACL_ERROR_RT_CONTEXT_NULL);
    /* The chips that clear the status per stream find none (api_c.cc:3572-3573). */
    EXPECT(aclrtResetOverflowStatus(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(FORGED_DEVICE, FORGED_DEVICE, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, NULL, NULL),
           ACL_ERROR_RT_CONTEXT_NULL);
    aclrtRandomNumTaskInfo t;
    memset(&t, 0, sizeof t);
    t.dataType = ACL_FLOAT;
    EXPECT(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_RT_CONTEXT_NULL);
    /* A device the session never set (api_impl.cc:7854-7855). */
    EXPECT(aclrtResetDeviceResLimit(0), ACL_ERROR_RT_DEV_SETUP_ERROR);
    /* The device queries need no current device. */
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
    OK(aclrtQueryDeviceStatus(0, &st));
    CHECK(st == ACL_RT_DEVICE_STATUS_NORMAL);
    int32_t cap = -1;
    OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &cap));
    CHECK(cap == 0 || cap == 1);
    const char *soc = aclrtGetSocName();
    CHECK(soc != NULL);
    int32_t compat = -1;
    if (soc != NULL) {
        OK(aclrtCheckArchCompatibility(soc, &compat));
        CHECK(compat == 1);
    }
}

/* Native: per-stream core limits api_c_stream.cc:749-793, api_error.cc:6798-6811, api_impl.cc:7934-8044;
   aclrtCreateStreamV2 stream.c:132-144; getters stream.cpp:188-298, api_impl.cc:1789-1837. */
static void v13_streams(void)
{
    section("v1.3: per-stream core limits, aclrtCreateStreamV2 and the stream getters");
    aclrtStream s = NULL, c = NULL, d = NULL;
    aclrtEvent e = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&e));

    uint32_t v = 0, dev = 0, t = 0;
    EXPECT(aclrtGetStreamResLimit(BAD_STREAM, (aclrtDevResLimitType)5, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetStreamResLimit(BAD_STREAM, (aclrtDevResLimitType)5, &v), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetStreamResLimit((aclrtStream)e, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetStreamResLimit(s, (aclrtDevResLimitType)2, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSetStreamResLimit(BAD_STREAM, (aclrtDevResLimitType)2, 1), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSetStreamResLimit(s, (aclrtDevResLimitType)2, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtResetStreamResLimit(BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtResetStreamResLimit((aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtUseStreamResInCurrentThread(BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtUnuseStreamResInCurrentThread(BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    int64_t cores = 0;
    aclError rc = aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &dev);
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        /* A backend that does not report its cores. */
        EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        EXPECT(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    } else {
        OK(rc);
        OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &cores));
        CHECK(dev >= 2 && cores >= dev);
        /* Without a limit of its own a stream answers with its device's. */
        OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
        CHECK(v == dev);
        OK(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v));
        CHECK(v == dev);
        /* Bounded by the device's cores, not by the session's device limit (api_impl.cc:7934-7943). */
        EXPECT(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, (uint32_t)cores + 1), ACL_ERROR_RT_PARAM_INVALID);
        OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
        CHECK(v == dev);
        OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, dev - 1));
        OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
        CHECK(v == dev - 1);
        /* The thread answers with the stream in use; another stream's Unuse changes nothing. */
        OK(aclrtUseStreamResInCurrentThread(s));
        OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &t));
        CHECK(t == dev - 1);
        OK(aclrtUnuseStreamResInCurrentThread(NULL));
        OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &t));
        CHECK(t == dev - 1);
        OK(aclrtUnuseStreamResInCurrentThread(s));
        OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &t));
        CHECK(t == dev);
        OK(aclrtResetStreamResLimit(s));
        OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
        CHECK(v == dev);
    }

    /* aclrtCreateStreamV2 and the configuration handle. */
    EXPECT(aclrtCreateStreamV2(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateStreamV2(straddling_gptr(4), NULL), ACL_ERROR_INVALID_PARAM);
    aclrtStreamConfigHandle *cfg = aclrtCreateStreamConfigHandle();
    CHECK(cfg != NULL);
    EXPECT(aclrtCreateStreamV2(&c, straddling_gptr(sizeof *cfg)), ACL_ERROR_INVALID_PARAM);
    uint32_t prio = 8;
    size_t flag = ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_LAUNCH;
    /* The SDK's aclrtSetStreamConfigOpt checks as the native library does (stream.c). */
    EXPECT(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, NULL, sizeof prio), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamConfigOpt(cfg, (aclrtStreamConfigAttr)4, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM);
    prio = 3;
    OK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    OK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    /* DEVICE_USE_ONLY with another flag: 107000, no stream. */
    EXPECT(aclrtCreateStreamV2(&c, cfg), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(c == NULL);
    flag = ACL_STREAM_FAST_LAUNCH;
    OK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    OK(aclrtCreateStreamV2(&c, cfg));
    OK(aclrtDestroyStreamConfigHandle(cfg));
    EXPECT(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclrtCreateStreamV2(&d, NULL));
    CHECK(c != NULL && d != NULL && c != d);

    uint32_t p = 99, f = 99;
    int32_t id = -1, id2 = -1, id0 = -1;
    OK(aclrtStreamGetPriority(c, &p));
    CHECK(p == 3);
    OK(aclrtStreamGetFlags(c, &f));
    CHECK(f == ACL_STREAM_FAST_LAUNCH);
    OK(aclrtStreamGetPriority(d, &p));
    OK(aclrtStreamGetFlags(d, &f));
    CHECK(p == 0 && f == 0);
    p = f = 99;
    OK(aclrtStreamGetPriority(NULL, &p));
    OK(aclrtStreamGetFlags(NULL, &f));
    CHECK(p == 0 && f == 0);
    OK(aclrtStreamGetId(c, &id));
    OK(aclrtStreamGetId(d, &id2));
    OK(aclrtStreamGetId(NULL, &id0));
    CHECK(id != id2 && id != id0 && id2 != id0);
    EXPECT(aclrtStreamGetPriority(c, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtStreamGetFlags(c, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtStreamGetId(c, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtStreamGetPriority(BAD_STREAM, &p), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamGetFlags((aclrtStream)e, &f), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamGetId(BAD_STREAM, &id), ACL_ERROR_RT_INVALID_HANDLE);

    /* Stop and abort (api_c.cc:4183, api_c_stream.cc:648): the stream takes new work after them. */
    EXPECT(aclrtStreamStop(BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamStop((aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamStop(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtStreamAbort(BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    aclrtPtr a = 0;
    OK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemsetAsync(a, 64, 3, 64, c));
    OK(aclrtSynchronizeStream(c));
    OK(aclrtStreamStop(c));
    OK(aclrtStreamAbort(c));
    OK(aclrtStreamAbort(NULL));
    OK(aclrtMemsetAsync(a, 64, 5, 64, c));
    OK(aclrtSynchronizeStream(c));
    OK(peek(a, 64));
    CHECK(all_equal(scratch, 64, 5));
    OK(aclrtFree(a));

    /* Stream state callbacks (callback.cpp:218): NULL unregisters, a callback the sandbox cannot call. */
    EXPECT(aclrtRegStreamStateCallback(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtRegStreamStateCallback(BAD_GPTR, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclrtRegStreamStateCallback("never-registered", NULL, NULL));
    EXPECT(aclrtRegStreamStateCallback("mine", (void *)hbuf, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtRegStreamStateCallback("mine", NULL, NULL));

    OK(aclrtDestroyStream(c));
    OK(aclrtDestroyStream(d));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyEvent(e));
    EXPECT(aclrtStreamGetId(c, &id), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetStreamResLimit(c, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_ERROR_RT_INVALID_HANDLE);
}

/* Native: acl.cpp:1345, cann_info_utils.cpp:111-116, api_error.cc:5052-5059, api_c_device.cc:517-555,
   device.cpp:206-326, api_error.cc:4905-4914, 6527-6535, 6767-6774, 7914-7928. */
static void v13_devices(void)
{
    section("v1.3: device and product queries");
    int32_t v = -1;
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_BF16, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetCannAttribute((aclCannAttr)3, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
    const aclCannAttr *list = NULL;
    size_t n = 99;
    OK(aclGetCannAttributeList(&list, &n));
    CHECK(n <= 3 && (n == 0 || list != NULL));
    for (size_t i = 0; i < n && i < 3; i++) {
        v = -1;
        OK(aclGetCannAttribute(list[i], &v));
        CHECK(v == 1);
    }
    EXPECT(aclGetCannAttributeList(NULL, &n), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM);

    char soc[128] = {0};
    const char *name = aclrtGetSocName();
    CHECK(name != NULL && strlen(name) > 0 && strlen(name) < sizeof soc);
    if (name != NULL) {
        strncpy(soc, name, sizeof soc - 1);
    }
    /* The import returns the full length and writes bufLen-1 bytes and a NUL. */
    char small[4];
    memset(small, 'x', sizeof small);
    CHECK(aclwasm_raw_aclrtGetSocName(small, (int32_t)sizeof small) == (int32_t)strlen(soc));
    CHECK(small[3] == '\0' && strncmp(small, soc, 3) == 0);
    CHECK(aclwasm_raw_aclrtGetSocName(BAD_GPTR, 16) == (int32_t)strlen(soc));
    int32_t compat = -1;
    EXPECT(aclrtCheckArchCompatibility(NULL, &compat), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtCheckArchCompatibility(soc, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtCheckArchCompatibility("", &compat), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtCheckArchCompatibility("NoSuchSoc", &compat), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(compat == -1);
    OK(aclrtCheckArchCompatibility(soc, &compat));
    CHECK(compat == 1);

    EXPECT(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)-1, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)20002, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)10001, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)7, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetDeviceCapability((int32_t)device_count, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
           ACL_ERROR_RT_INVALID_DEVICEID);
    v = -1;
    OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v));
    CHECK(v == 0 || v == 1);

    int64_t i64 = -1;
    EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, straddling_gptr(8)), ACL_ERROR_INVALID_PARAM);
    /* Another device id than aclrtGetDeviceCapability's: 107000 (api_error.cc:7914-7917). */
    EXPECT(aclrtGetDeviceInfo(device_count, ACL_DEV_ATTR_CUBE_CORE_NUM, &i64), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetDeviceInfo(0, (aclrtDevAttr)0x7777, &i64), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &i64));
    CHECK(i64 > 0);
    wsize freeb = 0, total = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeb, &total));
    OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &i64));
    CHECK((uint64_t)i64 == (uint64_t)total);
    /* What locates the machine is the session's own view. */
    OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_SMP_ID, &i64));
    CHECK(i64 == 0);
    OK(aclrtGetDeviceInfo(device_count - 1, ACL_DEV_ATTR_PHY_CHIP_ID, &i64));
    CHECK(i64 == (int64_t)device_count - 1);

    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
    EXPECT(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtQueryDeviceStatus((int32_t)device_count, &st), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtQueryDeviceStatus(-1, &st), ACL_ERROR_RT_INVALID_DEVICEID);
    OK(aclrtQueryDeviceStatus(0, &st));
    CHECK(st == ACL_RT_DEVICE_STATUS_NORMAL);

    aclrtUtilizationInfo u;
    memset(&u, 0x5a, sizeof u);
    u.utilizationExtend = NULL;
    EXPECT(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDeviceUtilizationRate(0, straddling_gptr(sizeof u)), ACL_ERROR_INVALID_PARAM);
    u.utilizationExtend = (aclrtUtilizationExtendInfo *)hbuf;
    EXPECT(aclrtGetDeviceUtilizationRate(0, &u), ACL_ERROR_INVALID_PARAM);
    u.utilizationExtend = NULL;
    OK(aclrtGetDeviceUtilizationRate(0, &u));
    CHECK(u.cubeUtilization == -1 && u.vectorUtilization == -1 && u.aicpuUtilization == -1 &&
          u.memoryUtilization == -1);

    int32_t least = -9, greatest = -9;
    OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(least == 7 && greatest == 0);
    OK(aclrtDeviceGetStreamPriorityRange(NULL, NULL));
    EXPECT(aclrtDeviceGetStreamPriorityRange(BAD_GPTR, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDeviceGetStreamPriorityRange(&least, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);

    EXPECT(aclrtResetDeviceResLimit(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtResetDeviceResLimit((int32_t)device_count), ACL_ERROR_RT_INVALID_DEVICEID);
    uint32_t lim = 0, lim2 = 0;
    if (aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &lim) == ACL_SUCCESS && lim > 1) {
        OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, lim - 1));
        OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &lim2));
        CHECK(lim2 == lim - 1);
        OK(aclrtResetDeviceResLimit(0));
        OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &lim2));
        CHECK(lim2 == lim);
    } else {
        OK(aclrtResetDeviceResLimit(0));
    }
}

/* Native: notify.cpp:87, api_c_event.cc:163-175, api_error.cc:4398; event.cpp:448, api_c_stream.cc:394-410,
   api_error.cc:1400-1416, event.cc:607-729. */
static void v13_notifies_and_waits(void)
{
    section("v1.3: aclrtNotifyBatchReset, aclrtStreamWaitEventWithTimeout");
    aclrtStream s = NULL, s2 = NULL;
    aclrtNotify n1 = NULL, n2 = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&s2));
    OK(aclrtCreateNotify(&n1, ACL_NOTIFY_DEFAULT));
    OK(aclrtCreateNotify(&n2, ACL_NOTIFY_DEFAULT));
    static aclrtNotify arr[2];
    arr[0] = n1;
    arr[1] = n2;
    EXPECT(aclrtNotifyBatchReset(NULL, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtNotifyBatchReset(arr, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtNotifyBatchReset((aclrtNotify *)straddling_gptr(8), 2), ACL_ERROR_INVALID_PARAM);
    aclError rc = aclrtNotifyBatchReset(arr, 2);
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        /* A backend without notify resets (an older TS firmware natively): every call refused alike. */
        EXPECT(aclrtNotifyBatchReset(arr, 1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    } else {
        OK(rc);
        arr[0] = (aclrtNotify)BAD_STREAM;
        EXPECT(aclrtNotifyBatchReset(arr, 2), ACL_ERROR_RT_INVALID_HANDLE);
        arr[0] = (aclrtNotify)s;
        EXPECT(aclrtNotifyBatchReset(arr, 2), ACL_ERROR_RT_INVALID_HANDLE);
        arr[0] = NULL;
        EXPECT(aclrtNotifyBatchReset(arr, 2), ACL_ERROR_RT_PARAM_INVALID);
        arr[0] = n1;
        arr[1] = (aclrtNotify)BAD_STREAM;
        EXPECT(aclrtNotifyBatchReset(arr, 2), ACL_ERROR_RT_INVALID_HANDLE);
        arr[1] = NULL;
        EXPECT(aclrtNotifyBatchReset(arr, 2), ACL_ERROR_RT_PARAM_INVALID);
        arr[1] = n2;
        OK(aclrtNotifyBatchReset(arr, 1));
        OK(aclrtNotifyBatchReset(arr, 2));
    }

    aclrtEvent e = NULL, tl = NULL, nm = NULL;
    OK(aclrtCreateEvent(&e));
    OK(aclrtCreateEventExWithFlag(&tl, ACL_EVENT_TIME_LINE));
    OK(aclrtCreateEventExWithFlag(&nm, ACL_EVENT_SYNC));
    EXPECT(aclrtStreamWaitEventWithTimeout(s, e, -1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtStreamWaitEventWithTimeout(BAD_STREAM, e, 0), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamWaitEventWithTimeout((aclrtStream)e, e, 0), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamWaitEventWithTimeout(s, (aclrtEvent)s2, 0), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamWaitEventWithTimeout(s, NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
    /* A TIME_LINE event has no wait task (api_error.cc:1414-1416). */
    EXPECT(aclrtStreamWaitEventWithTimeout(s, tl, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    /* A default-mode event never recorded: 107000; the new mode's succeeds with nothing queued. */
    EXPECT(aclrtStreamWaitEventWithTimeout(s, e, 0), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtStreamWaitEventWithTimeout(s, nm, 0));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtRecordEvent(e, s2));
    OK(aclrtSynchronizeStream(s2));
    OK(aclrtStreamWaitEventWithTimeout(s, e, 0));
    OK(aclrtStreamWaitEventWithTimeout(NULL, e, 0));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtSynchronizeStream(NULL));

    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyEvent(tl));
    OK(aclrtDestroyEvent(nm));
    OK(aclrtDestroyNotify(n1));
    OK(aclrtDestroyNotify(n2));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(s2));
}

static float fbuf[64], fbuf2[64];

/* Native: memory.cpp:1470-1485, api_c_standard_soc.cc:423, api_error.cc:2897-2907, memory_stars.cc:51-107;
   kernel.cpp:659-673, api_c_kernel.cc:213, api_error.cc:7117-7118, random_num_task.cc:398-470. */
static void v13_reduce_and_random(void)
{
    section("v1.3: aclrtReduceAsync, aclrtRandomNumAsync");
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    aclrtPtr a = 0, b = 0;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&e));
    OK(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 64; i++) {
        fbuf[i] = (float)i;
        fbuf2[i] = (float)(40 - i);
    }
    OK(aclrtMemcpy(a, 256, aclPtr(fbuf), 256, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(b, 256, aclPtr(fbuf2), 256, ACL_MEMCPY_HOST_TO_DEVICE));
    const aclrtReduceKind SUM = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;
    EXPECT(aclrtReduceAsync(0, a, 256, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(b, 0, 256, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(b, a, 256, SUM, ACL_FLOAT, s, hbuf), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(b, a, 256, SUM, ACL_DOUBLE, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(b, a, 256, SUM, ACL_FLOAT, BAD_STREAM, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtReduceAsync(b, a, 256, SUM, ACL_FLOAT, (aclrtStream)e, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtReduceAsync(b, a, 0, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(b, a, 256, (aclrtReduceKind)9, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(b, a, 256, (aclrtReduceKind)14, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
#ifdef ACLWASM_WIDE /* a 32-bit size_t cannot say more than 4 GiB */
    EXPECT(aclrtReduceAsync(b, a, ((uint64_t)1 << 32) + 4, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
#endif
    /* Device memory only, inside one allocation; a guest buffer is not one. */
    EXPECT(aclrtReduceAsync(FORGED_DEVICE, a, 256, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(b, aclPtr(fbuf), 256, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(b, a, 260, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* 4-byte elements at a 2-byte offset (memory_stars.cc:104-107). */
    EXPECT(aclrtReduceAsync(ADDR(AINT(b) + 2), a, 64, SUM, ACL_FLOAT, s, NULL), ACL_ERROR_RT_ADDR_UNALIGNED);
    aclError rc = aclrtReduceAsync(b, a, 256, SUM, ACL_FLOAT, s, NULL);
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        /* A backend that can neither compute nor reduce natively. */
        EXPECT(aclrtReduceAsync(b, a, 256, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, s, NULL),
               ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    } else {
        OK(rc);
        OK(aclrtSynchronizeStream(s));
        OK(aclrtMemcpy(aclPtr(fbuf2), 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST));
        int sum = 1;
        for (int i = 0; i < 64; i++) {
            sum &= fbuf2[i] == 40.0f;
        }
        CHECK(sum);
        /* MAX of a (0..63) into b (all 40): 40 up to i = 40, i beyond. */
        OK(aclrtReduceAsync(b, a, 256, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, s, NULL));
        OK(aclrtReduceAsync(a, b, 128, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT, s, NULL));
        OK(aclrtSynchronizeStream(s));
        OK(aclrtMemcpy(aclPtr(fbuf2), 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST));
        OK(aclrtMemcpy(aclPtr(fbuf), 256, a, 256, ACL_MEMCPY_DEVICE_TO_HOST));
        int ok = 1;
        for (int i = 0; i < 64; i++) {
            ok &= fbuf2[i] == (i > 40 ? (float)i : 40.0f);
            ok &= fbuf[i] == (float)i; /* min(i, max(i, 40)) for the first 32, untouched after */
        }
        CHECK(ok);
    }
    /* EQUAL compares on STARS chips only (memory_stars.cc:51-57). */
    EXPECT(aclrtReduceAsync(b, a, 256, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, s, NULL),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    /* aclrtRandomNumAsync: 16 uniform floats in [0, 1). */
    aclrtPtr r = 0, counter = 0;
    OK(aclrtMalloc(&r, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&counter, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    static aclrtRandomNumTaskInfo t, good;
    memset(&good, 0, sizeof good);
    good.dataType = ACL_FLOAT;
    good.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    float lo = 0.0f, hi = 1.0f;
    aclrtRandomParaInfo *pmin = &good.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min;
    aclrtRandomParaInfo *pmax = &good.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max;
    memcpy(pmin->valueOrAddr, &lo, 4);
    pmin->size = 4;
    memcpy(pmax->valueOrAddr, &hi, 4);
    pmax->size = 4;
    good.randomResultAddr = r;
    good.randomCounterAddr = counter;
    uint64_t seed = 42, num = 16;
    memcpy(good.randomSeed.valueOrAddr, &seed, 8);
    good.randomSeed.size = 8;
    memcpy(good.randomNum.valueOrAddr, &num, 8);
    good.randomNum.size = 8;
#define RANDOM_CASE(edit, want)          \
    do {                                 \
        t = good;                        \
        edit;                            \
        EXPECT(aclrtRandomNumAsync(&t, s, NULL), want); \
    } while (0)
    EXPECT(aclrtRandomNumAsync(NULL, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtRandomNumAsync(straddling_gptr(sizeof t), s, NULL), ACL_ERROR_INVALID_PARAM);
    RANDOM_CASE(t.dataType = ACL_DOUBLE, ACL_ERROR_INVALID_PARAM);
    t = good;
    rc = aclrtRandomNumAsync(&t, s, NULL);
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        /* A backend that cannot generate random numbers. */
        RANDOM_CASE((void)0, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    } else {
        OK(rc);
        /* The ACL layer writes the runtime's code for the type over dataType (kernel.cpp:672-673). */
        CHECK(t.dataType != ACL_FLOAT);
        OK(aclrtSynchronizeStream(s));
        OK(aclrtMemcpy(aclPtr(fbuf), 64, r, 64, ACL_MEMCPY_DEVICE_TO_HOST));
        int in = 1, same = 1;
        for (int i = 0; i < 16; i++) {
            in &= fbuf[i] >= 0.0f && fbuf[i] < 1.0f;
            same &= fbuf[i] == fbuf[0];
        }
        CHECK(in && !same);
        t = good;
        EXPECT(aclrtRandomNumAsync(&t, BAD_STREAM, NULL), ACL_ERROR_RT_INVALID_HANDLE);
        t = good;
        EXPECT(aclrtRandomNumAsync(&t, s, hbuf), ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)4, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE((t.dataType = ACL_INT32, t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS),
                    ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomCounterAddr = 0, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomResultAddr = 0, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomSeed.isAddr = 2, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomSeed.size = 9, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomNum.size = 0, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 5, ACL_ERROR_RT_PARAM_INVALID);
        /* Parameters by address: the sandbox takes values only. */
        RANDOM_CASE(t.randomSeed.isAddr = 1, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        /* The result must be inside one allocation: 16 floats are 64 bytes. */
        RANDOM_CASE(t.randomResultAddr = FORGED_DEVICE, ACL_ERROR_RT_PARAM_INVALID);
        RANDOM_CASE(num = 17; memcpy(t.randomNum.valueOrAddr, &num, 8), ACL_ERROR_RT_PARAM_INVALID);
    }
#undef RANDOM_CASE
    OK(aclrtSynchronizeStream(s));
    OK(aclrtFree(r));
    OK(aclrtFree(counter));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyStream(s));
}

/* Native: device.cpp:235-255, api_error.cc:5994-5997, 6197-6199; stream.cpp:270-279, api_c_stream.cc:564-575,
   api_c.cc:3541-3573. */
static void v13_overflow(void)
{
    section("v1.3: saturation mode and overflow status");
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&e));
    aclrtFloatOverflowMode m = ACL_RT_OVERFLOW_MODE_UNDEF;
    EXPECT(aclrtGetDeviceSatMode(NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclrtGetDeviceSatMode(&m));
    CHECK(m == ACL_RT_OVERFLOW_MODE_SATURATION || m == ACL_RT_OVERFLOW_MODE_INFNAN);
    EXPECT(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtSetDeviceSatMode(m));
    aclrtFloatOverflowMode m2 = ACL_RT_OVERFLOW_MODE_UNDEF;
    OK(aclrtGetDeviceSatMode(&m2));
    CHECK(m2 == m);

    uint32_t flag = 7;
    EXPECT(aclrtSetStreamOverflowSwitch(s, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamOverflowSwitch(BAD_STREAM, 1), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSetStreamOverflowSwitch((aclrtStream)e, 1), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetStreamOverflowSwitch(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetStreamOverflowSwitch(BAD_STREAM, &flag), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtGetStreamOverflowSwitch(s, &flag));
    CHECK(flag == 0);
    OK(aclrtSetStreamOverflowSwitch(s, 1));
    OK(aclrtGetStreamOverflowSwitch(s, &flag));
    CHECK(flag == 1);
    OK(aclrtGetStreamOverflowSwitch(NULL, &flag));
    CHECK(flag == 0);
    OK(aclrtSetStreamOverflowSwitch(s, 0));
    OK(aclrtGetStreamOverflowSwitch(s, &flag));
    CHECK(flag == 0);

    aclrtPtr o = 0;
    OK(aclrtMalloc(&o, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT(aclrtGetOverflowStatus(0, 64, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetOverflowStatus(o, 64, BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetOverflowStatus(o, 32, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetOverflowStatus(FORGED_DEVICE, 64, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetOverflowStatus(aclPtr(hbuf), 64, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtResetOverflowStatus(BAD_STREAM), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtResetOverflowStatus((aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtMemset(o, 64, 0xAB, 64));
    OK(aclrtResetOverflowStatus(s));
    OK(aclrtGetOverflowStatus(o, 64, s));
    OK(aclrtSynchronizeStream(s));
    OK(peek(o, 64));
    CHECK(all_equal(scratch, 64, 0));
    OK(aclrtResetOverflowStatus(NULL));
    OK(aclrtSynchronizeStream(NULL));
    OK(aclrtFree(o));
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyStream(s));
}

/* Native: msproftx_adaptor.cpp:49-151, msprof_tx_manager.cpp:183-369, prof_stamp_pool.cpp:98-182,
   prof_tx_plugin.cpp:169-187. No profiler runs: the host records each marker in its trace. */
static void v13_prof(void)
{
    section("v1.3: the profiling markers of acl/acl_prof.h");
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    void *st = aclprofCreateStamp();
    CHECK(st != NULL);
    /* aclprofDestroyStamp returns void: a failure is only recorded. */
    (void)aclGetRecentErrMsg();
    aclprofDestroyStamp(NULL);
    CHECK(aclGetRecentErrMsg() != NULL);
    aclprofDestroyStamp(BAD_STAMP);
    CHECK(aclGetRecentErrMsg() != NULL);

    EXPECT(aclprofSetStampTraceMessage(NULL, "m", 1), PROF_FAILED);
    EXPECT(aclprofSetStampTraceMessage(BAD_STAMP, "m", 1), PROF_FAILED);
    EXPECT(aclprofSetStampTraceMessage(st, "m", 128), PROF_FAILED);
    EXPECT(aclprofSetStampTraceMessage(st, NULL, 1), PROF_FAILED);
    OK(aclprofSetStampTraceMessage(st, "step", 4));
    OK(aclprofSetStampTraceMessage(st, "step", 127));
    EXPECT(aclprofMark(NULL), PROF_FAILED);
    EXPECT(aclprofMark(BAD_STAMP), PROF_FAILED);
    OK(aclprofMark(st));

    static char longmsg[200];
    memset(longmsg, 'x', sizeof longmsg - 1);
    EXPECT(aclprofMarkEx(NULL, 1, s), PROF_FAILED);
    EXPECT(aclprofMarkEx("ab", 1, s), PROF_FAILED);
    EXPECT(aclprofMarkEx("ab", 2, NULL), PROF_FAILED);
    EXPECT(aclprofMarkEx(longmsg, strlen(longmsg), s), PROF_FAILED);
    EXPECT(aclprofMarkEx("", 0, s), PROF_FAILED);
    EXPECT(aclprofMarkEx("ab", 2, BAD_STREAM), PROF_FAILED);
    /* The sandbox's rule for a string outside guest memory (ABI section 6). */
    EXPECT(aclprofMarkEx(BAD_GPTR, 2, s), ACL_ERROR_INVALID_PARAM);
    longmsg[127] = '\0';
    OK(aclprofMarkEx(longmsg, 127, s));
    OK(aclprofMarkEx("ab", 2, s));

    EXPECT(aclprofPush(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofPush(BAD_STAMP), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofPop(), PROF_FAILED);
    OK(aclprofPush(st));
    OK(aclprofPush(st));
    OK(aclprofPop());
    OK(aclprofPop());
    EXPECT(aclprofPop(), PROF_FAILED);

    uint32_t id = 7777;
    EXPECT(aclprofRangeStart(NULL, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofRangeStart(BAD_STAMP, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofRangeStart(st, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofRangeStart(st, straddling_gptr(4)), ACL_ERROR_INVALID_PARAM);
    CHECK(id == 7777);
    OK(aclprofRangeStart(st, &id));
    CHECK(id < 100);
    OK(aclprofRangeStop(id));
    EXPECT(aclprofRangeStop(100), PROF_FAILED);
    EXPECT(aclprofRangeStop(id == 0 ? 1 : 0), PROF_FAILED);

    static aclprofTensor pt = {0, 2, 0, 1, {16}};
    static aclprofTensorInfo info;
    info.opNameId = 7;
    info.tensorNum = 1;
    info.blockNums = 1;
    info.stream = s;
    info.tensors = &pt;
    static aclprofEventAttributes attr;
    attr.version = ACL_PROF_EVENT_ATTR_VERSION;
    attr.size = sizeof attr;
    attr.messageType = ACL_PROF_MESSAGE_TYPE_TENSOR_INFO;
    attr.message.tensorInfo = &info;
    EXPECT(aclprofRangePop(), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofRangePushEx(NULL), ACL_ERROR_INVALID_PARAM);
    attr.messageType = 1;
    EXPECT(aclprofRangePushEx(&attr), PROF_FAILED);
    EXPECT(aclprofRangePop(), ACL_ERROR_INVALID_PARAM);
    attr.messageType = ACL_PROF_MESSAGE_TYPE_TENSOR_INFO;
    OK(aclprofRangePushEx(&attr));
    OK(aclprofRangePop());
    /* Natively a pop after the first push always passes its check (prof_tx_plugin.cpp:184-187). */
    OK(aclprofRangePop());

    /* aclprofStr2Id: the profiler's double hash (hash_data.cpp:72-84), the same id for the same string;
       the empty string UINT64_MAX with no error (prof_impl_inner_api.cpp:80-85); a string outside guest
       memory 100000 on the wire (natively followed), UINT64_MAX from the SDK. */
    uint64_t sid = 0;
    CHECK(aclprofStr2Id("MatMul") == 7090398782807627396ULL);
    CHECK(aclprofStr2Id("MatMul") == aclprofStr2Id("MatMul") && aclprofStr2Id("Add") != aclprofStr2Id("MatMul"));
    (void)aclGetRecentErrMsg();
    CHECK(aclprofStr2Id("") == UINT64_MAX && aclGetRecentErrMsg() == NULL);
    OK(aclwasm_imp_aclprofStr2Id_("", &sid));
    CHECK(sid == UINT64_MAX);
    OK(aclwasm_imp_aclprofStr2Id_("a", &sid));
    CHECK(sid == 416611827809ULL);
    CHECK(aclprofStr2Id(NULL) == UINT64_MAX && aclGetRecentErrMsg() != NULL);
    sid = 7;
    EXPECT(aclwasm_imp_aclprofStr2Id_(NULL, &sid), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclwasm_imp_aclprofStr2Id_(BAD_GPTR, &sid), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclwasm_imp_aclprofStr2Id_("a", NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclwasm_imp_aclprofStr2Id_("a", straddling_gptr(8)), ACL_ERROR_INVALID_PARAM);
    CHECK(sid == 7);

    /* A pool of 100 stamps (prof_stamp_pool.h:25): the 101st is NULL; a destroyed one frees its place. */
    static void *many[110];
    int k = 0;
    while (k < 110 && (many[k] = aclprofCreateStamp()) != NULL) {
        k++;
    }
    CHECK(k == 99);
    aclprofDestroyStamp(many[0]);
    many[0] = aclprofCreateStamp();
    CHECK(many[0] != NULL && aclprofCreateStamp() == NULL);
    while (k > 0) {
        aclprofDestroyStamp(many[--k]);
    }
    aclprofDestroyStamp(st);
    EXPECT(aclprofMark(st), PROF_FAILED);
    OK(aclrtDestroyStream(s));
}

/* Native: aclrtResetDevice releases the streams, events and memory of its context (device.cpp aclrtResetDeviceImpl). */
static void reset_device(void)
{
    section("aclrtResetDevice releases what the session holds on the device");
    aclrtPtr a = 0;
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    wsize free0 = 0, free1 = 0, total = 0;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    OK(aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&e));
    OK(aclrtMemsetAsync(a, 4096, 0, 4096, s));
    OK(aclrtResetDevice(0));
    OK(aclrtSetDevice(0));
    EXPECT(aclrtFree(a), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 == free0);
}

/* Native: aclFinalize twice 100037. */
static void finalize(void)
{
    section("aclFinalize");
    OK(aclFinalize());
    EXPECT(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

int main(void)
{
    printf("conformance: profile %s\n", PROFILE);
    before_set_device();
    runtime();
    devices();
    memory();
    host_register();
    memcpy_sync();
    memcpy_async();
    memset_checks();
    memcpy_2d();
    check_order();
    batch();
    descriptors();
    streams();
    events();
    notifies_and_events_v12();
    kernel_api();
    v13_streams();
    v13_devices();
    v13_notifies_and_waits();
    v13_reduce_and_random();
    v13_overflow();
    v13_prof();
    limits();
    sdk_functions();
    reset_device();
    finalize();
    return summary();
}
