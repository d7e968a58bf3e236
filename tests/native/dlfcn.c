/* dlfcn.c: a native-style C program that probes for an optional plugin
 * library with dlopen, as native programs do, and carries on without it:
 * in the sandbox dlopen fails, dlerror says why (once), and the program then
 * does its work: a copy through device memory. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

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

    static unsigned char in[300], out[300];
    for (size_t i = 0; i < sizeof in; i++) {
        in[i] = (unsigned char)(i ^ 0x5a);
    }
    void *dev = NULL;
    aclError ret;
    if ((ret = aclrtSetDevice(0)) != ACL_SUCCESS || (ret = aclrtMalloc(&dev, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS ||
        (ret = aclrtMemcpy(dev, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE)) != ACL_SUCCESS ||
        (ret = aclrtMemcpy(out, sizeof out, dev, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST)) != ACL_SUCCESS ||
        (ret = aclrtFree(dev)) != ACL_SUCCESS) {
        printf("copy failed: %s (%d)\n", aclErrorName(ret), ret);
        return 1;
    }
    if (memcmp(in, out, sizeof in) != 0) {
        printf("the copy came back different\n");
        return 1;
    }
    printf("dlfcn: OK (no plugin, copied %zu bytes)\n", sizeof in);
    return 0;
}
