/*
 * A complete aclwasm guest in C with wasi-libc: device memory, pinned host
 * memory from aclrtMallocHost, a stream, events and the copies between them.
 * Exits 0 on success, 1 on failure. With the argument --skip-sync it makes
 * the classic mistake of reading the pinned buffer before synchronizing the
 * stream: `aclwasm run --check-async` reports the copy it did not wait for.
 *
 * The same source builds in both profiles (aclrtPtr is void * in the native
 * layout, and aclPtr(p) is p). Build (from the repository root):
 *   clang --target=wasm32-wasi -O2 -DACLWASM_WIDE -Iguest-sdk/c/include -o build/wasm/c-copy.wasm guest-sdk/c/examples/copy.c
 *   clang --target=wasm32-wasi -O2 -Iguest-sdk/c/include -o build/wasm/c-copy32.wasm guest-sdk/c/examples/copy.c
 */
#include <stdio.h>
#include <string.h>

#include <acl/acl.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        aclError ret_ = (call);                                                            \
        if (ret_ != ACL_SUCCESS) {                                                         \
            fprintf(stderr, "%s failed: %s (%d): %s\n", #call, aclErrorName(ret_), ret_,   \
                    aclGetRecentErrMsg());                                                 \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

enum { N = 4096 };
static unsigned char input[N], output[N];

int main(int argc, char **argv)
{
    int skipSync = argc > 1 && strcmp(argv[1], "--skip-sync") == 0;
    CHECK(aclrtSetDevice(0));
    int32_t major, minor, patch;
    uint32_t devices;
    CHECK(aclrtGetVersion(&major, &minor, &patch));
    CHECK(aclrtGetDeviceCount(&devices));
    printf("ACL %d.%d.%d with %u device(s)\n", major, minor, patch, devices);

    /* Synchronous round trip: guest memory is addressed with aclPtr(). */
    for (int i = 0; i < N; i++) {
        input[i] = (unsigned char)(i * 7);
    }
    aclrtPtr dev = 0;
    CHECK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dev, N, aclPtr(input), N, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(aclPtr(output), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    if (memcmp(input, output, N) != 0) {
        fprintf(stderr, "round trip changed the data\n");
        return 1;
    }

    /* Asynchronous memset, copied back into pinned memory, timed with events. */
    aclrtStream stream = NULL;
    aclrtEvent start = NULL, end = NULL;
    void *pinned = NULL;
    CHECK(aclrtCreateStream(&stream));
    CHECK(aclrtCreateEvent(&start));
    CHECK(aclrtCreateEvent(&end));
    CHECK(aclrtMallocHost(&pinned, N));
    CHECK(aclrtRecordEvent(start, stream));
    CHECK(aclrtMemsetAsync(dev, N, 0x5a, N, stream));
    CHECK(aclrtMemcpyAsync(aclPtr(pinned), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK(aclrtRecordEvent(end, stream));
    if (!skipSync) {
        CHECK(aclrtSynchronizeStream(stream));
    }
    for (int i = 0; i < N; i++) {
        if (((unsigned char *)pinned)[i] != 0x5a) {
            fprintf(stderr, "memset result did not arrive in pinned memory\n");
            return 1;
        }
    }
    float ms = 0;
    CHECK(aclrtEventElapsedTime(&ms, start, end));
    printf("async memset and copy took %.3f ms\n", ms);

    /* A failing call: the code and the host's message. */
    aclError ret = aclrtMemcpy(dev, 16, aclPtr(input), 32, ACL_MEMCPY_HOST_TO_DEVICE);
    if (ret != ACL_ERROR_RT_PARAM_INVALID) {
        fprintf(stderr, "want ACL_ERROR_RT_PARAM_INVALID, got %d\n", ret);
        return 1;
    }
    printf("expected failure: %s (%d): %s\n", aclErrorName(ret), ret, aclGetRecentErrMsg());

    CHECK(aclrtFreeHost(pinned));
    CHECK(aclrtDestroyEvent(end));
    CHECK(aclrtDestroyEvent(start));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtFree(dev));
    CHECK(aclrtResetDevice(0));
    printf("copy: ok\n");
    return 0;
}
