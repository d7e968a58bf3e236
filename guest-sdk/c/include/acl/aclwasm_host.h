/*
 * aclwasm_host.h: aclrtMallocHost and aclrtFreeHost for aclwasm C guests.
 * Included by acl_rt.h; do not include it directly.
 *
 * A guest has no host memory of its own besides its linear memory, so "pinned
 * host memory" is guest memory registered with aclrtHostRegister (guest ABI
 * section 3). aclrtMallocHost allocates with the guest's allocator and
 * registers the block; aclrtFreeHost unregisters it (which waits for queued
 * work that uses it) and frees it.
 *
 * The allocator:
 * - with wasi-libc (clang --target=wasm32-wasi), malloc and free;
 * - otherwise the guest names its own, before including <acl/acl.h>:
 *       #define ACL_HOST_ALLOC(size) my_alloc(size)   returns NULL on failure
 *       #define ACL_HOST_FREE(ptr)   my_free(ptr)
 *   (also to replace malloc/free in a wasi-libc guest);
 * - in a freestanding guest that defines neither, aclrtMallocHost and
 *   aclrtFreeHost are declared unavailable: calling them is a compile error
 *   that says so. Register memory you own (a static buffer) with
 *   aclrtHostRegister instead.
 */
#ifndef ACLWASM_HOST_H_
#define ACLWASM_HOST_H_

#if defined(ACL_HOST_ALLOC) != defined(ACL_HOST_FREE)
#error "aclwasm: define both ACL_HOST_ALLOC and ACL_HOST_FREE, or neither"
#endif

#if !defined(ACL_HOST_ALLOC) && defined(__wasi__) && defined(__has_include)
#if __has_include(<stdlib.h>)
#include <stdlib.h>
#define ACL_HOST_ALLOC(size) malloc(size)
#define ACL_HOST_FREE(ptr) free(ptr)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef ACL_HOST_ALLOC

/**
 * Allocates size bytes of guest memory with ACL_HOST_ALLOC and registers them
 * (ACL_HOST_REGISTER_MAPPED), so that async copies use them directly, and
 * writes the pointer to *hostPtr.
 *
 * Returns ACL_ERROR_INVALID_PARAM for a NULL hostPtr or size 0 and
 * ACL_ERROR_RT_MEMORY_ALLOCATION when the allocator fails (both without
 * calling the host, so aclGetRecentErrMsg does not describe them), or the
 * error of aclrtHostRegister (the block is freed again).
 */
static inline aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    if (hostPtr == NULL || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    void *p = ACL_HOST_ALLOC(size);
    if (p == NULL) {
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    aclrtPtr registered = 0;
    aclError ret = aclrtHostRegister(aclPtr(p), size, ACL_HOST_REGISTER_MAPPED, &registered);
    if (ret != ACL_SUCCESS) {
        ACL_HOST_FREE(p);
        return ret;
    }
    *hostPtr = p;
    return ACL_SUCCESS;
}

/**
 * Unregisters and frees memory from aclrtMallocHost. Unregistering waits for
 * queued work that uses the block. Returns ACL_ERROR_INVALID_PARAM for NULL
 * (as natively), or the error of aclrtHostUnregister, in which case nothing is
 * freed (ACL_ERROR_HOST_MEMORY_NOT_REGISTERED: hostPtr did not come from
 * aclrtMallocHost).
 */
static inline aclError aclrtFreeHost(void *hostPtr)
{
    if (hostPtr == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError ret = aclrtHostUnregister(aclPtr(hostPtr));
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    ACL_HOST_FREE(hostPtr);
    return ACL_SUCCESS;
}

#else /* no allocator */

#define ACLWASM_NO_ALLOCATOR_                                                                   \
    "needs an allocator in a freestanding guest: define ACL_HOST_ALLOC(size) and "            \
    "ACL_HOST_FREE(ptr) before including <acl/acl.h>, or pin memory you own with "             \
    "aclrtHostRegister"
aclError aclrtMallocHost(void **hostPtr, size_t size)
    __attribute__((unavailable("aclrtMallocHost " ACLWASM_NO_ALLOCATOR_)));
aclError aclrtFreeHost(void *hostPtr)
    __attribute__((unavailable("aclrtFreeHost " ACLWASM_NO_ALLOCATOR_)));

#endif /* ACL_HOST_ALLOC */

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_HOST_H_ */
