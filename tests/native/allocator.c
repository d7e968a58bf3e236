/* The external allocator registry of acl/acl_rt_allocator.h as native
 * programs use it: a description, its registration under a stream, the
 * lookup by stream and the native codes of the bad calls. Prints one line
 * per step. */
#include <acl/acl.h>
#include <acl/acl_rt_allocator.h>
#include <stdio.h>
#include <stdlib.h>

static int pool;

static void *my_alloc(aclrtAllocator allocator, size_t size)
{
    (void)allocator;
    return malloc(size);
}

static void my_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    (void)allocator;
    free(block);
}

static void *my_addr(aclrtAllocatorBlock block) { return block; }

int main(void)
{
    aclrtStream s = NULL;
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS) {
        printf("setup failed\n");
        return 1;
    }
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    printf("desc: %d\n", d != NULL);
    printf("register without functions: %d\n", aclrtAllocatorRegister(s, d));
    printf("set obj: %d\n", aclrtAllocatorSetObjToDesc(d, &pool));
    printf("set NULL alloc: %d\n", aclrtAllocatorSetAllocFuncToDesc(d, NULL));
    printf("set alloc: %d\n", aclrtAllocatorSetAllocFuncToDesc(d, my_alloc));
    printf("set free: %d\n", aclrtAllocatorSetFreeFuncToDesc(d, my_free));
    printf("register without a block-address function: %d\n", aclrtAllocatorRegister(s, d));
    printf("set addr: %d\n", aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, my_addr));
    printf("register on NULL: %d\n", aclrtAllocatorRegister(NULL, d));
    printf("register: %d\n", aclrtAllocatorRegister(s, d));

    aclrtAllocatorDesc got = NULL;
    aclrtAllocator obj = NULL;
    aclrtAllocatorAllocFunc af = NULL;
    aclrtAllocatorFreeFunc ff = NULL;
    aclrtAllocatorAllocAdviseFunc adv = (aclrtAllocatorAllocAdviseFunc)my_alloc;
    aclrtAllocatorGetAddrFromBlockFunc gf = NULL;
    printf("get: %d\n", aclrtAllocatorGetByStream(s, &got, &obj, &af, &ff, &adv, &gf));
    printf("same: %d %d %d %d %d, no advise: %d\n", got == d, obj == &pool, af == my_alloc, ff == my_free, gf == my_addr, adv == NULL);
    void *block = af(obj, 16);
    printf("through the registered functions: %d\n", gf(block) == block);
    ff(obj, block);
    printf("get of another stream: %d\n", aclrtAllocatorGetByStream((aclrtStream)&pool, &got, NULL, NULL, NULL, NULL, NULL));
    printf("get without desc: %d\n", aclrtAllocatorGetByStream(s, NULL, NULL, NULL, NULL, NULL, NULL));
    printf("unregister: %d\n", aclrtAllocatorUnregister(s));
    printf("get after unregister: %d\n", aclrtAllocatorGetByStream(s, &got, NULL, NULL, NULL, NULL, NULL));
    printf("unregister again: %d\n", aclrtAllocatorUnregister(s));
    printf("destroy: %d\n", aclrtAllocatorDestroyDesc(d));
    printf("destroy NULL: %d\n", aclrtAllocatorDestroyDesc(NULL));
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    printf("allocator: OK\n");
    return 0;
}
