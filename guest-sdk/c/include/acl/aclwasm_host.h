/*
 * aclwasm_host.h: the functions of the native API that are SDK functions
 * here, not imports (guest ABI sections 3 and 10): aclrtMallocHost and
 * aclrtFreeHost, the allocation variants (aclrtMallocAlign32,
 * aclrtMallocCached, aclrtMallocWithCfg, aclrtMallocHostWithCfg, the
 * *WithDevSync frees), aclrtCheckMemType, the aclDataBuffer family and
 * the stream configuration handle of aclrtCreateStreamV2 (section 15:
 * aclrtCreateStreamConfigHandle, aclrtSetStreamConfigOpt,
 * aclrtDestroyStreamConfigHandle).
 * Included by acl_rt.h; do not include it directly. Each has the native
 * signature of the profile: void * and size_t by default, aclrtPtr and
 * uint64_t for device addresses and sizes with -DACLWASM_WIDE.
 *
 * A guest has no host memory of its own besides its linear memory, so "pinned
 * host memory" is guest memory registered with aclrtHostRegister (guest ABI
 * section 3). aclrtMallocHost allocates with the guest's allocator and
 * registers the block; aclrtFreeHost unregisters it (which waits for queued
 * work that uses it) and frees it.
 *
 * The allocator (for aclrtMallocHost and aclCreateDataBuffer):
 * - with wasi-libc (clang --target=wasm32-wasi), malloc and free;
 * - otherwise the guest names its own, before including <acl/acl.h>:
 *       #define ACL_HOST_ALLOC(size) my_alloc(size)   returns NULL on failure
 *       #define ACL_HOST_FREE(ptr)   my_free(ptr)
 *   (also to replace malloc/free in a wasi-libc guest);
 * - in a freestanding guest that defines neither, the functions that need it
 *   are declared unavailable: calling them is a compile error that says so.
 *   Register memory you own (a static buffer) with aclrtHostRegister instead.
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

/*
 * The profile's types for a device address and a device size, and how a
 * guest pointer becomes an address (for aclrtHostRegister).
 */
#ifdef ACLWASM_WIDE
typedef aclrtPtr aclwasmDevPtr_;
typedef uint64_t aclwasmDevSize_;
#define ACLWASM_HOST_ADDR_(p) aclPtr(p)
#else
typedef void *aclwasmDevPtr_;
typedef size_t aclwasmDevSize_;
#define ACLWASM_HOST_ADDR_(p) (p)
#endif

/* ---- device memory: the variants of aclrtMalloc and aclrtFree ---- */

/**
 * aclrtMalloc without the native runtime's 32-byte padding. In the sandbox an
 * allocation's extent is the size asked for either way, so this is
 * aclrtMalloc.
 */
static inline aclError aclrtMallocAlign32(aclwasmDevPtr_ *devPtr, aclwasmDevSize_ size, aclrtMemMallocPolicy policy)
{
    return aclrtMalloc(devPtr, size, policy);
}

/**
 * aclrtMalloc of memory the device caches. The sandbox has no device cache
 * to keep coherent, so this is aclrtMalloc.
 */
static inline aclError aclrtMallocCached(aclwasmDevPtr_ *devPtr, aclwasmDevSize_ size, aclrtMemMallocPolicy policy)
{
    return aclrtMalloc(devPtr, size, policy);
}

/**
 * aclrtMalloc with configuration attributes, checked as natively: a NULL
 * devPtr, a cfg that counts attributes but has no array (numAttrs > 0, attrs
 * NULL) or size 0 give ACL_ERROR_INVALID_PARAM (the ACL layer); a cfg without
 * an array at all (attrs NULL, numAttrs 0) ACL_ERROR_RT_PARAM_INVALID (the
 * runtime); then, with a current device, an attribute other than RSV,
 * MODULE_ID and DEVICE_ID (ACL_RT_MEM_ATTR_VA_FLAG included), or a DEVICE_ID
 * that names another device than the current one, ACL_ERROR_RT_PARAM_INVALID:
 * memory is never allocated on the current device for another. A module id
 * has no meaning in the sandbox. cfg may be NULL. The refusals do not call
 * the host, so aclGetRecentErrMsg does not describe them.
 */
static inline aclError aclrtMallocWithCfg(aclwasmDevPtr_ *devPtr, aclwasmDevSize_ size, aclrtMemMallocPolicy policy,
                                          aclrtMallocConfig *cfg)
{
    if (devPtr == NULL || (cfg != NULL && cfg->numAttrs != 0 && cfg->attrs == NULL) || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (cfg != NULL && cfg->attrs == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    int32_t dev = -1;
    if (cfg != NULL && aclrtGetDevice(&dev) == ACL_SUCCESS) { /* without a device, aclrtMalloc says 107002 */
        for (size_t i = 0; i < cfg->numAttrs; i++) {
            switch (cfg->attrs[i].attr) {
            case ACL_RT_MEM_ATTR_RSV:
            case ACL_RT_MEM_ATTR_MODULE_ID:
                break;
            case ACL_RT_MEM_ATTR_DEVICE_ID:
                if ((int64_t)cfg->attrs[i].value.deviceId != dev) {
                    return ACL_ERROR_RT_PARAM_INVALID;
                }
                break;
            default:
                return ACL_ERROR_RT_PARAM_INVALID;
            }
        }
    }
    return aclrtMalloc(devPtr, size, policy);
}

/**
 * aclrtFree. The native variant synchronizes the device first; the sandbox's
 * aclrtFree always waits for the queued work that uses the allocation.
 */
static inline aclError aclrtFreeWithDevSync(aclwasmDevPtr_ devPtr)
{
    return aclrtFree(devPtr);
}

/**
 * Writes 1 to *checkResult when every address of addrList[0..size) is memory
 * of the types memType names (a mask of ACL_RT_MEM_TYPE_DEV, _DVPP, _RSVD),
 * else 0. aclrtMalloc memory is ACL_RT_MEM_TYPE_DEV; the sandbox has no DVPP
 * or reserved memory, and guest memory is none of the three.
 *
 * Returns ACL_ERROR_INVALID_PARAM for a NULL addrList or checkResult, size 0,
 * a memType outside the mask or a nonzero reserve (without calling the host),
 * or the error of aclrtPointerGetAttributes for an address that names nothing
 * (a freed or forged device address).
 */
static inline aclError aclrtCheckMemType(aclwasmDevPtr_ *addrList, uint32_t size, uint32_t memType,
                                         uint32_t *checkResult, uint32_t reserve)
{
    const uint32_t known = ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD;
    if (addrList == NULL || checkResult == NULL || size == 0 || reserve != 0 || memType == 0 ||
        (memType & ~known) != 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    uint32_t match = 1;
    for (uint32_t i = 0; i < size; i++) {
        aclrtPtrAttributes attr;
        aclError ret = aclrtPointerGetAttributes(addrList[i], &attr);
        if (ret != ACL_SUCCESS) {
            return ret;
        }
        if (attr.location.type != ACL_MEM_LOCATION_TYPE_DEVICE || (memType & ACL_RT_MEM_TYPE_DEV) == 0) {
            match = 0;
        }
    }
    *checkResult = match;
    return ACL_SUCCESS;
}

#ifdef ACL_HOST_ALLOC

/* ---- pinned host memory ---- */

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
    aclwasmDevPtr_ registered = 0;
    aclError ret = aclrtHostRegister(ACLWASM_HOST_ADDR_(p), size, ACL_HOST_REGISTER_MAPPED, &registered);
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
    aclError ret = aclrtHostUnregister(ACLWASM_HOST_ADDR_(hostPtr));
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    ACL_HOST_FREE(hostPtr);
    return ACL_SUCCESS;
}

/**
 * aclrtMallocHost with configuration attributes (cfg may be NULL). In the
 * native order: a NULL ptr or size 0 gives ACL_ERROR_INVALID_PARAM (the ACL
 * layer); a cfg without an attribute array (attrs NULL, whatever numAttrs
 * says), or with an attribute other than MODULE_ID and VA_FLAG (DEVICE_ID and
 * RSV included), ACL_ERROR_RT_PARAM_INVALID (the runtime checks these, not
 * the ACL layer, before it looks at the device); a size above wasm32's
 * SIZE_MAX ACL_ERROR_RT_MEMORY_ALLOCATION. Neither accepted attribute has a
 * meaning in the sandbox.
 */
static inline aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    if (ptr == NULL || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (cfg != NULL && cfg->attrs == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    for (size_t i = 0; cfg != NULL && i < cfg->numAttrs; i++) {
        if (cfg->attrs[i].attr != ACL_RT_MEM_ATTR_MODULE_ID && cfg->attrs[i].attr != ACL_RT_MEM_ATTR_VA_FLAG) {
            return ACL_ERROR_RT_PARAM_INVALID;
        }
    }
    if (size > (uint64_t)SIZE_MAX) {
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    return aclrtMallocHost(ptr, (size_t)size);
}

/**
 * aclrtFreeHost. The native variant synchronizes the device first;
 * unregistering always waits for the queued work that uses the block.
 */
static inline aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
    return aclrtFreeHost(hostPtr);
}

/* ---- aclDataBuffer: an address and a size ---- */

struct aclDataBuffer {
    aclwasmDevPtr_ data;
    aclwasmDevSize_ size;
};

/**
 * Returns a new buffer description of size bytes at data (device or host
 * memory; NULL with size 0 is an empty one), or NULL when the allocator
 * fails. Nothing is allocated at data and nothing is checked about it, as
 * natively.
 */
static inline aclDataBuffer *aclCreateDataBuffer(aclwasmDevPtr_ data, aclwasmDevSize_ size)
{
    aclDataBuffer *b = (aclDataBuffer *)ACL_HOST_ALLOC(sizeof(aclDataBuffer));
    if (b != NULL) {
        b->data = data;
        b->size = size;
    }
    return b;
}

/** Frees a buffer description (not the memory it names). NULL gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    if (dataBuffer == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    ACL_HOST_FREE((void *)dataBuffer);
    return ACL_SUCCESS;
}

/** Points a buffer description at other memory. NULL gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, aclwasmDevPtr_ data, aclwasmDevSize_ size)
{
    if (dataBuffer == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

/* ---- stream configuration (ABI v1.3 section 15) ---- */

/**
 * Allocates a zeroed aclrtStreamConfigHandle with ACL_HOST_ALLOC, for
 * aclrtSetStreamConfigOpt and aclrtCreateStreamV2; NULL when the allocator
 * fails, as natively.
 */
static inline aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    aclrtStreamConfigHandle *h = (aclrtStreamConfigHandle *)ACL_HOST_ALLOC(sizeof(aclrtStreamConfigHandle));
    if (h != NULL) {
        h->workptr = 0;
        h->workSize = 0;
        h->flag = 0;
        h->priority = 0;
    }
    return h;
}

/** Frees a handle of aclrtCreateStreamConfigHandle; NULL gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    if (handle == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    ACL_HOST_FREE(handle);
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
aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
    __attribute__((unavailable("aclrtMallocHostWithCfg " ACLWASM_NO_ALLOCATOR_)));
aclError aclrtFreeHostWithDevSync(void *hostPtr)
    __attribute__((unavailable("aclrtFreeHostWithDevSync " ACLWASM_NO_ALLOCATOR_)));
aclDataBuffer *aclCreateDataBuffer(aclwasmDevPtr_ data, aclwasmDevSize_ size)
    __attribute__((unavailable("aclCreateDataBuffer " ACLWASM_NO_ALLOCATOR_)));
aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
    __attribute__((unavailable("aclDestroyDataBuffer " ACLWASM_NO_ALLOCATOR_)));
aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
    __attribute__((unavailable("aclrtCreateStreamConfigHandle " ACLWASM_NO_ALLOCATOR_)));
aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
    __attribute__((unavailable("aclrtDestroyStreamConfigHandle " ACLWASM_NO_ALLOCATOR_)));

#endif /* ACL_HOST_ALLOC */

/**
 * Sets one field of a stream configuration, with the native library's checks
 * (src/acl/aclrt_c/runtime/stream.c): ACL_ERROR_INVALID_PARAM for a NULL
 * handle or attrValue, an attribute past ACL_RT_STREAM_PRIORITY, a valueSize
 * other than the field's (sizeof(aclrtPtr) for the work area, sizeof(size_t)
 * for its size and the flag, sizeof(uint32_t) for the priority) and a
 * priority above 7. A handle the guest allocated itself works too.
 */
static inline aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                               const void *attrValue, size_t valueSize)
{
    if (handle == NULL || attrValue == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        if (valueSize != sizeof(aclrtPtr)) {
            return ACL_ERROR_INVALID_PARAM;
        }
        handle->workptr = *(const aclrtPtr *)attrValue;
        return ACL_SUCCESS;
    case ACL_RT_STREAM_WORK_SIZE:
        if (valueSize != sizeof(size_t)) {
            return ACL_ERROR_INVALID_PARAM;
        }
        handle->workSize = *(const size_t *)attrValue;
        return ACL_SUCCESS;
    case ACL_RT_STREAM_FLAG:
        if (valueSize != sizeof(size_t)) {
            return ACL_ERROR_INVALID_PARAM;
        }
        handle->flag = *(const size_t *)attrValue;
        return ACL_SUCCESS;
    case ACL_RT_STREAM_PRIORITY:
        if (valueSize != sizeof(uint32_t) || *(const uint32_t *)attrValue > 7U) {
            return ACL_ERROR_INVALID_PARAM;
        }
        handle->priority = *(const uint32_t *)attrValue;
        return ACL_SUCCESS;
    }
    return ACL_ERROR_INVALID_PARAM;
}

#ifdef ACL_HOST_ALLOC
/** The address a buffer description names, or NULL for NULL. */
static inline aclwasmDevPtr_ aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    return dataBuffer == NULL ? 0 : dataBuffer->data;
}

/** The size a buffer description names, or 0 for NULL. */
static inline aclwasmDevSize_ aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    return dataBuffer == NULL ? 0 : dataBuffer->size;
}

/** Deprecated natively: the size truncated to 32 bits; use aclGetDataBufferSizeV2. */
static inline uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    return (uint32_t)aclGetDataBufferSizeV2(dataBuffer);
}
#endif

#if defined(ACLWASM_WIDE) && !defined(__cplusplus)
/* As for the imports (acl_rt.h): in C, a pointer where an aclrtPtr address
   or an 8-byte out-parameter or array is expected is a compile error. */
#define aclrtMallocAlign32(devPtr, size, policy) \
    aclrtMallocAlign32(ACLWASM_U64P_(devPtr, "aclrtMallocAlign32: devPtr:"), size, policy)
#define aclrtMallocCached(devPtr, size, policy) \
    aclrtMallocCached(ACLWASM_U64P_(devPtr, "aclrtMallocCached: devPtr:"), size, policy)
#define aclrtMallocWithCfg(devPtr, size, policy, cfg) \
    aclrtMallocWithCfg(ACLWASM_U64P_(devPtr, "aclrtMallocWithCfg: devPtr:"), size, policy, cfg)
#define aclrtFreeWithDevSync(devPtr) aclrtFreeWithDevSync(ACLWASM_ADDR_(devPtr, "aclrtFreeWithDevSync: devPtr:"))
#define aclrtCheckMemType(addrList, size, memType, checkResult, reserve)                                         \
    aclrtCheckMemType(ACLWASM_U64P_(addrList, "aclrtCheckMemType: addrList:"), size, memType, checkResult, reserve)
#define aclCreateDataBuffer(data, size) aclCreateDataBuffer(ACLWASM_ADDR_(data, "aclCreateDataBuffer: data:"), size)
#define aclUpdateDataBuffer(dataBuffer, data, size) \
    aclUpdateDataBuffer(dataBuffer, ACLWASM_ADDR_(data, "aclUpdateDataBuffer: data:"), size)
#endif

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_HOST_H_ */
