/*
 * bytes.c: the bytes-in, bytes-out reactor of tests/bytes_test.go written
 * with <aclwasm/io.h>, as the Rust, AssemblyScript and Go SDK examples are:
 * upper (the input, ASCII letters upper-cased), roundtrip (the input
 * through device memory), config (the configuration value named by the
 * input; status 1 if unset) and repeat (the input "times" times; status 2
 * if "times" is unset or not a number).
 *
 *     clang --target=wasm32-wasi -O2 -DACLWASM_WIDE -mexec-model=reactor \
 *         -Iguest-sdk/c/include -o c-bytes.wasm guest-sdk/c/examples/bytes.c
 */
#include <stdint.h>
#include <stdlib.h>

#include <acl/acl.h>
#include <aclwasm/io.h>

/* input returns the call's input in a malloc'd buffer (*n bytes; NULL and
 * *n == 0 for none) and stores the read's status in *ret. */
static uint8_t *input(int32_t *n, int32_t *ret)
{
    *n = aclwasm_input_len();
    *ret = ACL_SUCCESS;
    if (*n == 0)
        return NULL;
    uint8_t *b = malloc((size_t)*n);
    if (b == NULL) {
        *ret = ACL_ERROR_BAD_ALLOC;
        return NULL;
    }
    if ((*ret = aclwasm_input_read(b, *n)) != ACL_SUCCESS) {
        free(b);
        return NULL;
    }
    return b;
}

__attribute__((export_name("upper"))) int32_t upper(void)
{
    int32_t n, ret;
    uint8_t *b = input(&n, &ret);
    if (ret != ACL_SUCCESS)
        return ret;
    for (int32_t i = 0; i < n; i++)
        if (b[i] >= 'a' && b[i] <= 'z')
            b[i] -= 'a' - 'A';
    ret = n > 0 ? aclwasm_output_write(b, n) : ACL_SUCCESS;
    free(b);
    return ret;
}

__attribute__((export_name("roundtrip"))) int32_t roundtrip(void)
{
    int32_t n, ret;
    uint8_t *b = input(&n, &ret);
    if (ret != ACL_SUCCESS || n == 0)
        return ret;
    uint8_t *back = malloc((size_t)n);
    aclrtPtr dev = 0;
    if (back == NULL)
        ret = ACL_ERROR_BAD_ALLOC;
    if (ret == ACL_SUCCESS)
        ret = aclrtSetDevice(0);
    if (ret == ACL_SUCCESS)
        ret = aclrtMalloc(&dev, (size_t)n, ACL_MEM_MALLOC_HUGE_FIRST);
    if (ret == ACL_SUCCESS)
        ret = aclrtMemcpy(dev, (size_t)n, aclPtr(b), (size_t)n, ACL_MEMCPY_HOST_TO_DEVICE);
    if (ret == ACL_SUCCESS)
        ret = aclrtMemcpy(aclPtr(back), (size_t)n, dev, (size_t)n, ACL_MEMCPY_DEVICE_TO_HOST);
    if (ret == ACL_SUCCESS)
        ret = aclwasm_output_write(back, n);
    if (dev != 0) {
        aclError fr = aclrtFree(dev);
        if (ret == ACL_SUCCESS)
            ret = fr;
    }
    free(back);
    free(b);
    return ret;
}

__attribute__((export_name("config"))) int32_t config(void)
{
    int32_t n, ret;
    uint8_t *key = input(&n, &ret);
    if (ret != ACL_SUCCESS)
        return ret;
    /* The key as a C string: the input has no terminator of its own. */
    char *k = malloc((size_t)n + 1);
    if (k == NULL) {
        free(key);
        return ACL_ERROR_BAD_ALLOC;
    }
    for (int32_t i = 0; i < n; i++)
        k[i] = (char)key[i];
    k[n] = '\0';
    free(key);

    /* A small first read; a longer value is read again at its length. */
    char small[256];
    int32_t len = aclwasm_config(k, small, sizeof small);
    char *v = small;
    if (len >= (int32_t)sizeof small && len < ACLWASM_CONFIG_MAX) {
        v = malloc((size_t)len + 1);
        if (v == NULL) {
            free(k);
            return ACL_ERROR_BAD_ALLOC;
        }
        len = aclwasm_config(k, v, len + 1);
    }
    free(k);
    if (len < 0)
        ret = 1;
    else if (len >= ACLWASM_CONFIG_MAX)
        ret = len;
    else
        ret = len > 0 ? aclwasm_output_write(v, len) : ACL_SUCCESS;
    if (v != small)
        free(v);
    return ret;
}

__attribute__((export_name("repeat"))) int32_t repeat(void)
{
    char buf[16];
    int32_t len = aclwasm_config("times", buf, sizeof buf);
    if (len >= ACLWASM_CONFIG_MAX)
        return len;
    if (len <= 0 || len > 9) /* unset, empty, or more than a uint32_t holds */
        return 2;
    uint32_t times = 0;
    for (int32_t i = 0; i < len; i++) {
        if (buf[i] < '0' || buf[i] > '9')
            return 2;
        times = times * 10 + (uint32_t)(buf[i] - '0');
    }
    int32_t n, ret;
    uint8_t *b = input(&n, &ret);
    if (ret != ACL_SUCCESS)
        return ret;
    for (uint32_t i = 0; i < times && ret == ACL_SUCCESS; i++)
        ret = aclwasm_output_write(b, n);
    free(b);
    return ret;
}
