/*
 * A freestanding aclwasm guest in C: no libc, no WASI, only imports from
 * "acl". It exports _start, which traps on failure. Pinned memory is a static
 * buffer registered with aclrtHostRegister (aclrtMallocHost needs an
 * allocator in a freestanding guest: see acl/aclwasm_host.h).
 *
 * Build (from the repository root):
 *   clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Iguest-sdk/c/include \
 *       -o build/wasm/c-freestanding.wasm guest-sdk/c/examples/freestanding.c
 */
#include <acl/acl.h>

#define MUST(call)                   \
    do {                             \
        if ((call) != ACL_SUCCESS) { \
            __builtin_trap();        \
        }                            \
    } while (0)

enum { N = 256 };
static unsigned char data[N], staging[N];

__attribute__((export_name("_start"))) void start(void)
{
    MUST(aclrtSetDevice(0));
    for (int i = 0; i < N; i++) {
        data[i] = (unsigned char)i;
    }

    aclrtPtr dev = 0;
    MUST(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    MUST(aclrtMemcpy(dev, N, aclPtr(data), N, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Pin a static buffer, copy into it asynchronously, then unpin it. */
    aclrtPtr registered = 0;
    aclrtStream stream = NULL;
    MUST(aclrtHostRegister(aclPtr(staging), N, ACL_HOST_REGISTER_MAPPED, &registered));
    MUST(aclrtCreateStream(&stream));
    MUST(aclrtMemcpyAsync(registered, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    MUST(aclrtSynchronizeStream(stream));
    for (int i = 0; i < N; i++) {
        if (staging[i] != data[i]) {
            __builtin_trap();
        }
    }

    /* Errors are native codes; aclrtMalloc(size 0) is ACL_ERROR_INVALID_PARAM. */
    aclrtPtr none = 0;
    if (aclrtMalloc(&none, 0, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_ERROR_INVALID_PARAM) {
        __builtin_trap();
    }

    MUST(aclrtHostUnregister(registered));
    MUST(aclrtDestroyStream(stream));
    MUST(aclrtFree(dev));
}
