/*
 * acl_rt_allocator.h: the external allocator registry of the native header
 * of the same name, as SDK functions over guest memory (guest ABI section
 * 15).
 *
 * Natively these functions are bookkeeping of the ACL layer alone
 * (src/acl/aclrt_impl/allocator.cpp in hicann/runtime): a description holds
 * an allocator object and its functions, aclrtAllocatorRegister files a
 * copy of it under a stream, aclrtAllocatorGetByStream hands it back to
 * whoever asks (the graph engine, natively), aclrtAllocatorUnregister drops
 * it. The runtime itself never calls the functions. Here the registry lives
 * in the guest, with the same checks and codes, so a program that registers
 * an allocator for its own code, or for a library linked into the module,
 * works unchanged; nothing of the host calls the functions either.
 *
 * The descriptions and the registry are allocated with ACL_HOST_ALLOC (see
 * aclwasm_host.h); in a freestanding guest without it the functions that
 * allocate are declared unavailable. The registry is one list for the whole
 * module (a weak symbol), not per translation unit.
 */
#ifndef ACLWASM_ACL_RT_ALLOCATOR_H_
#define ACLWASM_ACL_RT_ALLOCATOR_H_

#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* What a description holds, and what the registry keeps a copy of. */
typedef struct aclwasmAllocatorDesc_ {
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc allocFunc;
    aclrtAllocatorFreeFunc freeFunc;
    aclrtAllocatorAllocAdviseFunc allocAdviseFunc;
    aclrtAllocatorGetAddrFromBlockFunc getAddrFromBlockFunc;
} aclwasmAllocatorDesc_;

/* A registration: the stream, the description it was registered with, and
 * the copy taken then (later changes to the description do not count, as
 * natively). */
typedef struct aclwasmAllocatorReg_ {
    struct aclwasmAllocatorReg_ *next;
    aclrtStream stream;
    aclrtAllocatorDesc desc;
    aclwasmAllocatorDesc_ copy;
} aclwasmAllocatorReg_;

/* The registry: one for the module, whichever translation units include this. */
__attribute__((weak)) aclwasmAllocatorReg_ *aclwasmAllocatorRegs_ = NULL;

/* aclwasmAllocatorFind_ returns the link that points at stream's
 * registration, or at the list's end. */
static inline aclwasmAllocatorReg_ **aclwasmAllocatorFind_(aclrtStream stream)
{
    aclwasmAllocatorReg_ **p = &aclwasmAllocatorRegs_;
    while (*p != NULL && (*p)->stream != stream) {
        p = &(*p)->next;
    }
    return p;
}

#define ACLWASM_ALLOCATOR_SET_(field, value)                                 \
    do {                                                                     \
        if (allocatorDesc == NULL || (value) == NULL) {                      \
            return ACL_ERROR_INVALID_PARAM;                                  \
        }                                                                    \
        ((aclwasmAllocatorDesc_ *)allocatorDesc)->field = (value);           \
        return ACL_SUCCESS;                                                  \
    } while (0)

/** Sets the allocator object of a description; NULL for either gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator)
{
    ACLWASM_ALLOCATOR_SET_(obj, allocator);
}

/** Sets the allocation function of a description; NULL for either gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func)
{
    ACLWASM_ALLOCATOR_SET_(allocFunc, func);
}

/** Sets the free function of a description; NULL for either gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func)
{
    ACLWASM_ALLOCATOR_SET_(freeFunc, func);
}

/** Sets the advised-allocation function of a description; NULL for either gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                              aclrtAllocatorAllocAdviseFunc func)
{
    ACLWASM_ALLOCATOR_SET_(allocAdviseFunc, func);
}

/** Sets the block-address function of a description; NULL for either gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                   aclrtAllocatorGetAddrFromBlockFunc func)
{
    ACLWASM_ALLOCATOR_SET_(getAddrFromBlockFunc, func);
}

#undef ACLWASM_ALLOCATOR_SET_

/**
 * Returns what was registered for stream: the description at *allocatorDesc
 * and, where the pointers are not NULL, the copy of its fields taken at
 * registration. NULL allocatorDesc or stream, and a stream with no
 * registration, give ACL_ERROR_INVALID_PARAM.
 */
static inline aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                 aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                 aclrtAllocatorFreeFunc *freeFunc,
                                                 aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                 aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    if (allocatorDesc == NULL || stream == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    aclwasmAllocatorReg_ *r = *aclwasmAllocatorFind_(stream);
    if (r == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *allocatorDesc = r->desc;
    if (allocator != NULL) {
        *allocator = r->copy.obj;
    }
    if (allocFunc != NULL) {
        *allocFunc = r->copy.allocFunc;
    }
    if (freeFunc != NULL) {
        *freeFunc = r->copy.freeFunc;
    }
    if (allocAdviseFunc != NULL) {
        *allocAdviseFunc = r->copy.allocAdviseFunc;
    }
    if (getAddrFromBlockFunc != NULL) {
        *getAddrFromBlockFunc = r->copy.getAddrFromBlockFunc;
    }
    return ACL_SUCCESS;
}

#ifdef ACL_HOST_ALLOC

/** Allocates an empty description, or returns NULL when the allocator fails. */
static inline aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    aclwasmAllocatorDesc_ *d = (aclwasmAllocatorDesc_ *)ACL_HOST_ALLOC(sizeof(aclwasmAllocatorDesc_));
    if (d != NULL) {
        d->obj = NULL;
        d->allocFunc = NULL;
        d->freeFunc = NULL;
        d->allocAdviseFunc = NULL;
        d->getAddrFromBlockFunc = NULL;
    }
    return d;
}

/** Frees a description; NULL gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    if (allocatorDesc == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    ACL_HOST_FREE(allocatorDesc);
    return ACL_SUCCESS;
}

/**
 * Registers a copy of the description for stream, replacing an earlier one.
 * NULL stream or description, and a description without an allocator
 * object, allocation, free or block-address function, give
 * ACL_ERROR_INVALID_PARAM; ACL_ERROR_RT_MEMORY_ALLOCATION when the
 * allocator fails.
 */
static inline aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    if (stream == NULL || allocatorDesc == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    const aclwasmAllocatorDesc_ *d = (const aclwasmAllocatorDesc_ *)allocatorDesc;
    if (d->obj == NULL || d->allocFunc == NULL || d->freeFunc == NULL || d->getAddrFromBlockFunc == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    aclwasmAllocatorReg_ *r = *aclwasmAllocatorFind_(stream);
    if (r == NULL) {
        r = (aclwasmAllocatorReg_ *)ACL_HOST_ALLOC(sizeof(aclwasmAllocatorReg_));
        if (r == NULL) {
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        r->stream = stream;
        r->next = aclwasmAllocatorRegs_;
        aclwasmAllocatorRegs_ = r;
    }
    r->desc = allocatorDesc;
    r->copy = *d;
    return ACL_SUCCESS;
}

/** Drops stream's registration, if any; NULL gives ACL_ERROR_INVALID_PARAM. */
static inline aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    if (stream == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    aclwasmAllocatorReg_ **p = aclwasmAllocatorFind_(stream);
    aclwasmAllocatorReg_ *r = *p;
    if (r != NULL) {
        *p = r->next;
        ACL_HOST_FREE(r);
    }
    return ACL_SUCCESS;
}

#else /* no allocator */

aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
    __attribute__((unavailable("aclrtAllocatorCreateDesc " ACLWASM_NO_ALLOCATOR_)));
aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
    __attribute__((unavailable("aclrtAllocatorDestroyDesc " ACLWASM_NO_ALLOCATOR_)));
aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
    __attribute__((unavailable("aclrtAllocatorRegister " ACLWASM_NO_ALLOCATOR_)));
aclError aclrtAllocatorUnregister(aclrtStream stream)
    __attribute__((unavailable("aclrtAllocatorUnregister " ACLWASM_NO_ALLOCATOR_)));

#endif /* ACL_HOST_ALLOC */

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_ACL_RT_ALLOCATOR_H_ */
