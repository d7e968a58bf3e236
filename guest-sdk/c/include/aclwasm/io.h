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

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_IO_H_ */
