/* dvpp.c: a native-style C program that stages an image in DVPP memory
 * (acldvppMalloc), copies it in and out, and relies on DVPP's size rule:
 * the allocation is the size rounded up to 32 bytes plus 32. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

#define EXPECT(cond)                                                    \
    do {                                                                \
        if (!(cond)) {                                                  \
            printf("dvpp: %s:%d: %s is false\n", __FILE__, __LINE__, #cond); \
            return 1;                                                   \
        }                                                               \
    } while (0)

int main(void)
{
    /* A 20x15 RGB image: 900 bytes, so DVPP allocates 928 + 32 = 960. */
    enum { W = 20, H = 15, SIZE = W * H * 3, DVPP_SIZE = 960 };
    static unsigned char img[DVPP_SIZE], back[DVPP_SIZE];
    for (size_t i = 0; i < sizeof img; i++) {
        img[i] = (unsigned char)(i * 7 + 1);
    }
    EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);
    void *pic = NULL;
    EXPECT(acldvppMalloc(&pic, SIZE) == ACL_SUCCESS && pic != NULL);
    EXPECT(((uintptr_t)pic & 31) == 0);
    /* The whole rounded size is usable, and not a byte more. */
    EXPECT(aclrtMemcpy(pic, DVPP_SIZE, img, DVPP_SIZE, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    EXPECT(aclrtMemcpy(back, DVPP_SIZE, pic, DVPP_SIZE, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(memcmp(img, back, DVPP_SIZE) == 0);
    aclError past = aclrtMemcpy(back, DVPP_SIZE + 1, pic, DVPP_SIZE + 1, ACL_MEMCPY_DEVICE_TO_HOST);
    EXPECT(past != ACL_SUCCESS);
    printf("dvpp: a copy of %d bytes from a %d-byte request: %s (%d)\n", DVPP_SIZE + 1, SIZE, aclErrorName(past), past);

    /* A device-to-device copy into a second DVPP buffer. */
    void *out = NULL;
    EXPECT(acldvppMalloc(&out, SIZE) == ACL_SUCCESS);
    EXPECT(aclrtMemcpy(out, SIZE, pic, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS);
    memset(back, 0, sizeof back);
    EXPECT(aclrtMemcpy(back, SIZE, out, SIZE, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(memcmp(img, back, SIZE) == 0);

    /* The native argument checks. */
    EXPECT(acldvppMalloc(NULL, SIZE) == ACL_ERROR_INVALID_PARAM);
    void *huge = NULL;
    EXPECT(acldvppMalloc(&huge, SIZE_MAX - 40) == ACL_ERROR_INVALID_PARAM && huge == NULL);
    EXPECT(acldvppFree(NULL) == ACL_ERROR_INVALID_PARAM);

    EXPECT(acldvppFree(out) == ACL_SUCCESS);
    EXPECT(acldvppFree(pic) == ACL_SUCCESS);
    printf("dvpp: OK (%d-byte image in %d bytes of DVPP memory)\n", SIZE, DVPP_SIZE);
    return 0;
}
