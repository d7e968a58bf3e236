/* fp16.c: writes the SDK's half-precision conversions for the test to check
 * against its own reference, as little-endian binary on stdout:
 *   1. for every half h (65536): the bits of aclFloat16ToFloat(h) (4 bytes)
 *      and aclFloatToFloat16 of that float (2 bytes: the round trip);
 *   2. for every finite half h >= 0 but the largest, with v and w the floats
 *      of h and h+1 and m their midpoint: aclFloatToFloat16 of m, of the
 *      floats just below and just above m, and of the negatives of the
 *      three (6 x 2 bytes): the rounding, ties to even;
 *   3. aclFloatToFloat16 of each float in the edge list below (2 bytes each).
 * The midpoints and their neighbours are computed here from section 1's
 * floats, which the test checks first. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static unsigned char out[65536 * 6 + 0x7bff * 12 + 64 * 2];
static size_t n;

static void put16(aclFloat16 h)
{
    out[n++] = (unsigned char)h;
    out[n++] = (unsigned char)(h >> 8);
}

static void put32(uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        out[n++] = (unsigned char)(v >> (8 * i));
    }
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The edge list: the test has the same. */
static const uint32_t edges[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fbfffff,
    0x477fe000, /* 65504, the largest half */
    0x477fefff, /* just below 65520: 65504 */
    0x477ff000, /* 65520: a tie that rounds to even, infinity */
    0x477ff001, 0x7f7fffff, 0xff7fffff, /* beyond: infinity */
    0x33000000, /* 2^-25: a tie with 0, to even: 0 */
    0x33000001, /* just above: the smallest subnormal */
    0x32ffffff, 0x00000001, 0x80000001, 0x00800000, /* below: zeros */
    0x33c00000, /* 1.5 * 2^-24: a tie between subnormals 1 and 2: 2 */
    0x38800000, /* 2^-14, the smallest normal */
    0x387fc000, /* the largest subnormal */
    0x387fe000, /* between it and the smallest normal: a tie, to even: 2^-14 */
    0x3f800000, 0xbf800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x40490fdb, 0xc0490fdb, 0x3dcccccd,
};

int main(void)
{
    for (uint32_t h = 0; h < 65536; h++) {
        float f = aclFloat16ToFloat((aclFloat16)h);
        put32(bits(f));
        put16(aclFloatToFloat16(f));
    }
    for (uint32_t h = 0; h < 0x7bff; h++) {
        float v = aclFloat16ToFloat((aclFloat16)h), w = aclFloat16ToFloat((aclFloat16)(h + 1));
        float m = (v + w) / 2; /* exact: both have 11 significant bits */
        float below = from(bits(m) - 1), above = from(bits(m) + 1);
        put16(aclFloatToFloat16(m));
        put16(aclFloatToFloat16(below));
        put16(aclFloatToFloat16(above));
        put16(aclFloatToFloat16(-m));
        put16(aclFloatToFloat16(-below));
        put16(aclFloatToFloat16(-above));
    }
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        put16(aclFloatToFloat16(from(edges[i])));
    }
    if (fwrite(out, 1, n, stdout) != n) {
        return 1;
    }
    return 0;
}
