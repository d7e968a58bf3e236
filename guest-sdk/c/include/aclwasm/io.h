/*
 * aclwasm/io.h: the bytes-in, bytes-out convention for aclwasm C guests
 * (docs/EMBEDDING.md). A host that calls an export with
 * host.Instance.CallBytes lends it an input and collects its output through
 * the imports of module "aclwasm"; the guest needs no allocator of its own.
 * The export takes no parameters and returns an int32_t status (0: success).
 *
 *     __attribute__((export_name("upper"))) int32_t upper(void) {
 *         static uint8_t buf[4096];
 *         int32_t n = aclwasm_input_len();
 *         if (n > (int32_t)sizeof buf) return 1;
 *         int32_t r = aclwasm_input_read(buf, n);
 *         if (r != 0) return r;
 *         ... transform buf ...
 *         return aclwasm_output_write(buf, n);
 *     }
 *
 * Each function returns a length or 0 or an aclError code whose message
 * aclGetRecentErrMsg reports.
 *
 * Such a module is a reactor: build it with -mexec-model=reactor, so that
 * it has an _initialize (libc's constructors) and no _start:
 *
 *     clang --target=wasm32-wasi -O2 -mexec-model=reactor \
 *         -Iguest-sdk/c/include -o upper.wasm upper.c
 *
 * aclwasm_config reads the plugin's configuration (a manifest's config,
 * host.Config.Vars) in any module, command or reactor.
 */
#ifndef ACLWASM_IO_H_
#define ACLWASM_IO_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The length of the call's input in bytes (0 outside a bytes call). */
__attribute__((import_module("aclwasm"), import_name("input_len")))
int32_t aclwasm_input_len(void);

/* Copies the first len bytes of the input to buf: 100000 if len exceeds
 * the input or buf is outside guest memory. */
__attribute__((import_module("aclwasm"), import_name("input_read")))
int32_t aclwasm_input_read(void *buf, int32_t len);

/* Appends len bytes at buf to the output: 100000 outside a bytes call or
 * with buf outside guest memory, 207012 beyond the host's output limit. */
__attribute__((import_module("aclwasm"), import_name("output_write")))
int32_t aclwasm_output_write(const void *buf, int32_t len);

/* The longest configuration value the host reports: config_read and
 * aclwasm_config return an aclError code, never a length, at or above it. */
#define ACLWASM_CONFIG_MAX 65536

/* The import itself: copies at most buf_len bytes of the value named by
 * the key [key, key+key_len) to buf and returns the value's length, -1 if
 * there is none, or an aclError code (>= ACLWASM_CONFIG_MAX): 100000 with
 * key or buf outside guest memory, 207012 for a value too long to report. */
__attribute__((import_module("aclwasm"), import_name("config_read")))
int32_t aclwasm_config_read(const void *key, int32_t key_len, void *buf, int32_t buf_len);

/* Reads the configuration value named by the NUL-terminated key into buf
 * as a NUL-terminated string, as snprintf does: it returns the value's
 * length, and a length >= cap means buf holds only its first cap-1 bytes
 * (call again with a buffer of length+1). It returns -1 if the key is
 * unset, and an aclError code (>= ACLWASM_CONFIG_MAX) if the host refused
 * the read; aclGetRecentErrMsg says why. buf may be NULL when cap is 0. */
static inline int32_t aclwasm_config(const char *key, char *buf, int32_t cap)
{
    int32_t key_len = 0;
    while (key[key_len] != '\0')
        key_len++;
    int32_t room = cap > 0 ? cap - 1 : 0;
    int32_t n = aclwasm_config_read(key, key_len, buf, room);
    if (n >= ACLWASM_CONFIG_MAX)
        return n;
    if (cap > 0) {
        int32_t end = n < 0 ? 0 : (n < room ? n : room);
        buf[end] = '\0';
    }
    return n;
}

/* Sets the message that says why the running call fails: the host reports
 * it with the call's nonzero status or exit code (aclwasm serve answers
 * 502 plugin_failed with it). A later call replaces it and len 0 clears
 * it; each call of an export starts with none; the host keeps 4096 bytes.
 * 100000 with msg outside guest memory. */
__attribute__((import_module("aclwasm"), import_name("error_set")))
int32_t aclwasm_error_set(const void *msg, int32_t len);

/* aclwasm_error_set of the NUL-terminated msg. */
static inline int32_t aclwasm_error(const char *msg)
{
    int32_t n = 0;
    while (msg[n] != '\0')
        n++;
    return aclwasm_error_set(msg, n);
}

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_IO_H_ */
