/* dlfcn.c: a native-style C program that uses <dlfcn.h> as native programs
 * do. It probes for an optional plugin library and carries on without it
 * (in the sandbox dlopen of it fails, and dlerror says why, once); it looks
 * the runtime's functions up by name in the runtime's library, as programs
 * that load the runtime dynamically do, and does its work through them: a
 * copy through device memory and a DVPP buffer, and a stream callback. Names
 * the SDK does not have fail, and dlerror names them. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

typedef aclError (*setDeviceFn)(int32_t);
typedef aclError (*mallocFn)(void **, size_t, aclrtMemMallocPolicy);
typedef aclError (*memcpyFn)(void *, size_t, const void *, size_t, aclrtMemcpyKind);
typedef aclError (*freeFn)(void *);
typedef aclError (*dvppMallocFn)(void **, size_t);
typedef size_t (*dataTypeSizeFn)(aclDataType);
typedef aclError (*launchFn)(aclrtStream, aclrtHostFunc, void *);
typedef aclError (*syncFn)(aclrtStream);

/* A stream callback launched through a function dlsym found: the module
 * links the SDK's dispatcher because it calls dlsym. */
static void ran(void *flag)
{
    *(int *)flag = 1;
}

int main(void)
{
    if (dlerror() != NULL) {
        printf("dlerror before any failure is not NULL\n");
        return 1;
    }
    void *plugin = dlopen("libcustom_kernels.so", RTLD_NOW | RTLD_LOCAL);
    if (plugin != NULL) {
        printf("dlopen succeeded\n");
        return 1;
    }
    const char *err = dlerror();
    printf("dlopen: %s\n", err != NULL ? err : "(no dlerror)");
    if (dlerror() != NULL) {
        printf("dlerror did not clear\n");
        return 1;
    }
    if (dlsym(RTLD_DEFAULT, "main") != NULL || dlerror() == NULL || dlclose(plugin) == 0 || dlerror() == NULL) {
        printf("dlsym or dlclose did not fail\n");
        return 1;
    }
    int notHandle = 0;
    if (dlsym(&notHandle, "aclrtFree") != NULL) {
        printf("dlsym of a handle dlopen did not give succeeded\n");
        return 1;
    }
    err = dlerror();
    printf("%s\n", err != NULL ? err : "(no dlerror)");

    /* The runtime, as a program that loads it at run time opens it. */
    void *rt = dlopen("/usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so", RTLD_LAZY);
    void *dvpp = dlopen("libacl_dvpp.so", RTLD_LAZY);
    void *self = dlopen(NULL, RTLD_NOW);
    if (rt == NULL || dvpp == NULL || self == NULL) {
        printf("dlopen of the runtime failed: %s\n", dlerror());
        return 1;
    }
    setDeviceFn setDevice = (setDeviceFn)dlsym(rt, "aclrtSetDevice");
    mallocFn mallocDev = (mallocFn)dlsym(rt, "aclrtMalloc");
    memcpyFn copy = (memcpyFn)dlsym(self, "aclrtMemcpy");
    freeFn freeDev = (freeFn)dlsym(RTLD_DEFAULT, "aclrtFree");
    dvppMallocFn dvppMalloc = (dvppMallocFn)dlsym(dvpp, "acldvppMalloc");
    freeFn dvppFree = (freeFn)dlsym(dvpp, "acldvppFree");
    dataTypeSizeFn typeSize = (dataTypeSizeFn)dlsym(rt, "aclDataTypeSize");
    if (setDevice == NULL || mallocDev == NULL || copy == NULL || freeDev == NULL || dvppMalloc == NULL || dvppFree == NULL || typeSize == NULL) {
        printf("dlsym of a runtime function failed: %s\n", dlerror());
        return 1;
    }
    if (setDevice != aclrtSetDevice || copy != aclrtMemcpy || typeSize != aclDataTypeSize) {
        printf("dlsym found another function than the SDK's\n");
        return 1;
    }
    if (dlsym(rt, "aclrtNoSuchFunction") != NULL) {
        printf("dlsym found a function the SDK does not have\n");
        return 1;
    }
    err = dlerror();
    printf("dlsym: %s\n", err != NULL ? err : "(no dlerror)");

    static unsigned char in[300], out[300];
    for (size_t i = 0; i < sizeof in; i++) {
        in[i] = (unsigned char)(i ^ 0x5a);
    }
    void *dev = NULL, *pic = NULL;
    aclError ret;
    if ((ret = setDevice(0)) != ACL_SUCCESS || (ret = mallocDev(&dev, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS ||
        (ret = copy(dev, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE)) != ACL_SUCCESS ||
        (ret = copy(out, sizeof out, dev, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST)) != ACL_SUCCESS ||
        (ret = freeDev(dev)) != ACL_SUCCESS || (ret = dvppMalloc(&pic, 64)) != ACL_SUCCESS || (ret = dvppFree(pic)) != ACL_SUCCESS) {
        printf("copy failed: %s (%d)\n", aclErrorName(ret), ret);
        return 1;
    }
    if (memcmp(in, out, sizeof in) != 0) {
        printf("the copy came back different\n");
        return 1;
    }
    launchFn launch = (launchFn)dlsym(rt, "aclrtLaunchHostFunc");
    syncFn sync = (syncFn)dlsym(self, "aclrtSynchronizeStream");
    static int flag;
    if (launch == NULL || sync == NULL) {
        printf("dlsym of the callback functions failed: %s\n", dlerror());
        return 1;
    }
    if ((ret = launch(NULL, ran, &flag)) != ACL_SUCCESS || (ret = sync(NULL)) != ACL_SUCCESS || flag != 1) {
        printf("callback through dlsym: %s (%d), ran %d\n", aclErrorName(ret), ret, flag);
        return 1;
    }
    if (dlclose(rt) != 0 || dlclose(dvpp) != 0 || dlclose(self) != 0) {
        printf("dlclose of the runtime failed: %s\n", dlerror());
        return 1;
    }
    printf("dlfcn: OK (no plugin, copied %zu bytes and ran a callback through dlsym, float is %zu bytes)\n", sizeof in, typeSize(ACL_FLOAT));
    return 0;
}
