/*
 * sample.h: the helpers the C samples share, so that each sample's .c file
 * holds only what it shows. scripts/build-guests.sh puts samples/include on
 * the include path of every C sample; a hand build adds -Isamples/include.
 *
 * A sample names itself before including this header, for its failure lines:
 *
 *   #define SAMPLE_NAME "pipeline"
 *   #include "sample.h"
 *
 * Everything here is static inline: each sample is one translation unit, and
 * a helper a sample does not use costs nothing and raises no warning.
 */
#ifndef ACLWASM_SAMPLE_H
#define ACLWASM_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <acl/acl.h>

#ifndef SAMPLE_NAME
#error "define SAMPLE_NAME (the sample's name, as its failure lines print it) before including sample.h"
#endif

/* Ends the run after a call failed: prints the rest of the failure line,
   ": CALL: ERROR_NAME (code): host message", and exits 2. */
static inline _Noreturn void sampleFail(const char *call, aclError ret)
{
    printf(": %s: %s (%d): %s\n", call, aclErrorName(ret), ret, aclGetRecentErrMsg());
    exit(2);
}

/* Runs call; if it fails, prints the start of the failure line (printf with
   the arguments after call), then the rest (sampleFail, with text), and exits
   2. The wrappers (CHECK, hostile's SETUP) pass text as their own #call:
   stringized here instead, call would show its macros (INNER, H2D) expanded,
   and the failure line must show the call as the source writes it. */
#define SAMPLE_CHECK(text, call, ...) \
    do {                              \
        aclError ret_ = (call);       \
        if (ret_ != ACL_SUCCESS) {    \
            printf(__VA_ARGS__);      \
            sampleFail((text), ret_); \
        }                             \
    } while (0)

/* Runs call; if it fails, prints "SAMPLE_NAME: FAIL: CALL: ERROR_NAME (code):
   host message" on a line of its own and exits 2, which the samples keep for
   a failed call (1 is a wrong result). */
#define CHECK(call) SAMPLE_CHECK(#call, call, "\n%s: FAIL", SAMPLE_NAME)

/* Byte i of a sample's test data: the top byte of (i XOR seed) * 2654435761
   (Knuth's multiplicative hash): cheap, different for every seed, a block
   copied to the wrong place shows, and the tests recompute any byte in Go. */
static inline uint8_t pattern(uint32_t seed, uint32_t i)
{
    return (uint8_t)(((i ^ seed) * 2654435761u) >> 24);
}

/* FNV-1a 64 of n bytes: the checksum the reports print for data they moved,
   which the tests recompute to check the bytes, not only the exit code. */
static inline uint64_t fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Numeric argument i (decimal, 0x hex or 0 octal, as strtoul reads it), or
   def when the command line is shorter. */
static inline unsigned long arg(int argc, char **argv, int i, unsigned long def)
{
    return i < argc ? strtoul(argv[i], NULL, 0) : def;
}

#endif /* ACLWASM_SAMPLE_H */
