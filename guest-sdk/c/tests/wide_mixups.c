/*
 * wide_mixups.c: the mistakes the wide profile (-DACLWASM_WIDE) must refuse
 * at compile time, in C and in C++ (scripts/build-guests.sh compiles this
 * file once per MIXUP_* case and requires each compile to fail, and once
 * without any case, which must succeed). Each is native code that, compiled
 * as is against 64-bit aclrtPtr signatures, would pass a 4-byte pointer
 * where an 8-byte address or out-parameter is expected: without the error
 * the host would write 8 bytes into a 4-byte void * (memory corruption) or
 * read a guest pointer as a device address.
 */
#include <acl/acl.h>
#include <acl/ops/acl_dvpp.h>

int main(void)
{
    static unsigned char host[64];
    aclrtPtr dev = 0;
    uint64_t free = 0, total = 0;
    aclError ret = aclrtMalloc(&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
    ret |= aclrtMemcpy(dev, sizeof host, aclPtr(host), sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
    ret |= aclrtGetMemInfo(ACL_HBM_MEM, &free, &total);
    ret |= aclrtMallocAlign32(&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
    aclDataBuffer *ok = aclCreateDataBuffer(dev, sizeof host);
    ret |= aclUpdateDataBuffer(ok, aclPtr(host), sizeof host);
    ret |= aclDestroyDataBuffer(ok);
    aclrtPtr pic = 0;
    ret |= acldvppMalloc(&pic, sizeof host);
    ret |= acldvppFree(pic);
#if defined(MIXUP_VOID_PTR_OUT)
    void *devPtr = NULL; /* native: void *devPtr; aclrtMalloc(&devPtr, ...) */
    ret |= aclrtMalloc(&devPtr, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
#elif defined(MIXUP_POINTER_AS_ADDR)
    ret |= aclrtMemcpy(dev, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
#elif defined(MIXUP_VOID_PTR_AS_ADDR)
    void *p = host;
    ret |= aclrtMemset(p, sizeof host, 0, sizeof host);
#elif defined(MIXUP_SIZE_T_OUT)
    size_t descSize = 0;
    ret |= aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &descSize);
#elif defined(MIXUP_VOID_PTR_ARRAY)
    void *dsts[1] = {host};
    aclrtPtr srcs[1] = {dev};
    uint64_t sizes[1] = {sizeof host};
    aclrtMemcpyBatchAttr attr = {{0, ACL_MEM_LOCATION_TYPE_HOST}, {0, ACL_MEM_LOCATION_TYPE_DEVICE}, {0}};
    uint64_t idx[1] = {0}, fail = 0;
    ret |= aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, &fail);
#elif defined(MIXUP_FREE_POINTER)
    ret |= aclrtFree(host);
#elif defined(MIXUP_SDK_VOID_PTR_OUT) /* an SDK function, not an import */
    void *devPtr = NULL;
    ret |= aclrtMallocAlign32(&devPtr, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
#elif defined(MIXUP_SDK_POINTER_AS_ADDR)
    aclDataBuffer *buf = aclCreateDataBuffer(host, sizeof host);
    ret |= aclDestroyDataBuffer(buf);
#elif defined(MIXUP_DVPP_VOID_PTR_OUT)
    void *picPtr = NULL;
    ret |= acldvppMalloc(&picPtr, sizeof host);
#elif defined(MIXUP_DVPP_FREE_POINTER)
    ret |= acldvppFree(host);
#endif
    ret |= aclrtFree(dev);
    return ret;
}
