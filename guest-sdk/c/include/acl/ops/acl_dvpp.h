/*
 * acl/ops/acl_dvpp.h: the DVPP memory functions, acldvppMalloc and
 * acldvppFree, for programs that stage images in DVPP memory and copy them
 * with the aclrtMemcpy family. The sandbox has no media processor, so the
 * rest of DVPP (channels, picture descriptions, VPC, JPEG) is not here; DVPP
 * memory is device memory from aclrtMalloc, with DVPP's size rule.
 *
 * The size rule, from the public CANN header acl/ops/acl_dvpp.h (the
 * acldvppMalloc comment): "the size entered by the user is aligned upwards
 * to 32 integer multiples, and an additional 32 bytes are applied", that is
 * ALIGN_UP(size, 32) + 32 bytes; the native runtime refuses a size whose
 * rounding overflows (size + 64 wraps) with ACL_ERROR_INVALID_PARAM. So
 * acldvppMalloc(&p, 1000) allocates 1056 bytes, all of them usable, and
 * counts 1056 bytes against the session's device memory quota. The address
 * is 64-byte aligned, as every sandbox device address (guest ABI section 3).
 *
 * aclrtCheckMemType reports the memory as ACL_RT_MEM_TYPE_DEV, not _DVPP:
 * the sandbox keeps no separate DVPP pool.
 */
#ifndef ACLWASM_ACL_DVPP_H_
#define ACLWASM_ACL_DVPP_H_

#include "../acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The alignment DVPP rounds allocation sizes to, and the padding it adds, in bytes. */
#define ACLWASM_DVPP_ALIGN 32u

/**
 * Allocates device memory for DVPP of ALIGN_UP(size, 32) + 32 bytes (see the
 * top of this header) and writes its address to *devPtr.
 * ACL_ERROR_INVALID_PARAM for a NULL devPtr or a size whose rounding
 * overflows, without calling the host; otherwise what aclrtMalloc returns.
 */
static inline aclError acldvppMalloc(aclwasmDevPtr_ *devPtr, aclwasmDevSize_ size)
{
    if (devPtr == NULL || size + 2 * ACLWASM_DVPP_ALIGN < size) {
        return ACL_ERROR_INVALID_PARAM;
    }
    aclwasmDevSize_ aligned = (size + 2 * ACLWASM_DVPP_ALIGN - 1) / ACLWASM_DVPP_ALIGN * ACLWASM_DVPP_ALIGN;
    return aclrtMalloc(devPtr, aligned, ACL_MEM_MALLOC_HUGE_FIRST);
}

/**
 * Frees memory from acldvppMalloc (waiting, as aclrtFree does, for the
 * queued work that uses it). ACL_ERROR_INVALID_PARAM for NULL, as natively.
 */
static inline aclError acldvppFree(aclwasmDevPtr_ devPtr)
{
    if (devPtr == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    return aclrtFree(devPtr);
}

#if defined(ACLWASM_WIDE) && !defined(__cplusplus)
/* As for the imports (acl_rt.h): in C, a pointer where an aclrtPtr address
   or an 8-byte out-parameter is expected is a compile error. */
#define acldvppMalloc(devPtr, size) acldvppMalloc(ACLWASM_U64P_(devPtr, "acldvppMalloc: devPtr:"), size)
#define acldvppFree(devPtr) acldvppFree(ACLWASM_ADDR_(devPtr, "acldvppFree: devPtr:"))
#endif

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_ACL_DVPP_H_ */
