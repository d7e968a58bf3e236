/*
 * descriptors: copies whose addresses live in device memory.
 *
 * A copy descriptor (aclrtSetMemcpyDesc) is a device-to-device copy written
 * into device memory ahead of time; aclrtMemcpyAsyncWithDesc runs it later.
 * aclrtMemcpyAsyncWithOffset copies between base addresses stored in device
 * memory (a pointer table), plus offsets: changing a slot re-targets every
 * later copy that uses it, without touching the calls.
 *
 *   set      one descriptor per block: dst block k <- src block B-1-k
 *   run      every descriptor, on one stream: dst is src with its blocks reversed
 *   clone    the descriptor table copied to a second allocation (a descriptor is
 *            only its bytes) and run from there, into a cleared dst
 *   offsets  a pointer table [src, out] in device memory; out block k <- src
 *            block (k+R) mod B, R = SEED mod B
 *   repoint  slot 1 of the table set to another buffer; the same calls fill it
 *
 * Usage: descriptors [BLOCKS BLOCK_BYTES SEED]   (default 16 4096 3)
 * Exits 0 when every result is right, 1 when one is not, 2 when a call fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#define SAMPLE_NAME "descriptors"
#include "sample.h"

#define INNER ACL_MEMCPY_INNER_DEVICE_TO_DEVICE

static uint64_t B, blk;
static uint8_t *source, *scratch;
static unsigned results, good;

/* Downloads dev and compares it with the source whose block k went to block
   map(k); prints one report line. */
static void verify(const char *step, const char *what, aclrtPtr dev, uint64_t (*map)(uint64_t))
{
    CHECK(aclrtMemcpy(aclPtr(scratch), B * blk, dev, B * blk, ACL_MEMCPY_DEVICE_TO_HOST));
    uint64_t bad = 0;
    for (uint64_t k = 0; k < B; k++) {
        bad += memcmp(scratch + k * blk, source + map(k) * blk, blk) != 0;
    }
    results++;
    good += bad == 0;
    printf("  %-8s %-56s fnv1a64 0x%016" PRIx64 "  %s\n", step, what, fnv1a64(scratch, B * blk),
           bad == 0 ? "OK" : "FAIL");
}

static uint64_t rot;
static uint64_t reversed(uint64_t k) { return B - 1 - k; }
static uint64_t rotated(uint64_t k) { return (k + rot) % B; }

int main(int argc, char **argv)
{
    B = arg(argc, argv, 1, 16);
    blk = arg(argc, argv, 2, 4096);
    const uint32_t seed = (uint32_t)arg(argc, argv, 3, 3);
    if (B == 0 || blk == 0 || B > 4096 || B * blk > (256u << 20)) {
        printf("descriptors: need 1 <= BLOCKS <= 4096, BLOCK_BYTES >= 1, at most 256 MiB in all\n");
        return 2;
    }
    rot = seed % B;
    const uint64_t total = B * blk;
    printf("descriptors: %" PRIu64 " blocks of %" PRIu64 " bytes on device 0 (seed %" PRIu32 ")\n\n", B, blk, seed);

    source = malloc(total);
    scratch = malloc(total);
    for (uint64_t i = 0; i < total; i++) {
        source[i] = pattern(seed, (uint32_t)i);
    }

    CHECK(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream));
    aclrtPtr src = 0, dst = 0, out = 0, other = 0;
    CHECK(aclrtMalloc(&src, total, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dst, total, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&out, total, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&other, total, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(src, total, aclPtr(source), total, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Descriptors. */
    uint64_t descSize = 0;
    CHECK(aclrtGetMemcpyDescSize(INNER, &descSize));
    printf("  %-8s %" PRIu64 " bytes per descriptor (aclrtGetMemcpyDescSize, INNER_DEVICE_TO_DEVICE)\n", "size",
           descSize);
    /* Descriptors must start on 64-byte boundaries, as natively: on
       Atlas A2 one is 32 bytes, so the table leaves a gap after each. */
    uint64_t stride = (descSize + 63) & ~(uint64_t)63;
    aclrtPtr descs = 0, clones = 0;
    CHECK(aclrtMalloc(&descs, B * stride, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&clones, B * stride, ACL_MEM_MALLOC_HUGE_FIRST));
    for (uint64_t k = 0; k < B; k++) {
        CHECK(aclrtSetMemcpyDesc(descs + k * stride, INNER, src + reversed(k) * blk, dst + k * blk, blk, NULL));
    }
    printf("  %-8s %" PRIu64 " descriptors (aclrtSetMemcpyDesc): dst block k <- src block %" PRIu64 "-k\n", "set", B,
           B - 1);

    for (uint64_t k = 0; k < B; k++) {
        CHECK(aclrtMemcpyAsyncWithDesc(descs + k * stride, INNER, stream));
    }
    CHECK(aclrtSynchronizeStream(stream));
    char what[96];
    snprintf(what, sizeof what, "%" PRIu64 " x aclrtMemcpyAsyncWithDesc -> dst", B);
    verify("run", what, dst, reversed);

    /* A descriptor is only bytes: copies of them work where they land. */
    CHECK(aclrtMemcpy(clones, B * stride, descs, B * stride, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(aclrtMemset(dst, total, 0, total));
    for (uint64_t k = 0; k < B; k++) {
        CHECK(aclrtMemcpyAsyncWithDesc(clones + k * stride, INNER, stream));
    }
    CHECK(aclrtSynchronizeStream(stream));
    verify("clone", "table copied D2D, dst cleared, run from the copy -> dst", dst, reversed);

    /* Offsets from a pointer table in device memory. */
    aclrtPtr table = 0;
    CHECK(aclrtMalloc(&table, 2 * sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    const aclrtPtr srcSlot = table, outSlot = table + sizeof(uint64_t);
    uint64_t bases[2] = {src, out};
    CHECK(aclrtMemcpy(table, sizeof bases, aclPtr(bases), sizeof bases, ACL_MEMCPY_HOST_TO_DEVICE));
    for (uint64_t k = 0; k < B; k++) {
        CHECK(aclrtMemcpyAsyncWithOffset(outSlot, total, k * blk, srcSlot, blk, rotated(k) * blk, INNER, stream));
    }
    CHECK(aclrtSynchronizeStream(stream));
    snprintf(what, sizeof what, "%" PRIu64 " x aclrtMemcpyAsyncWithOffset, rotate %" PRIu64 " -> out", B, rot);
    verify("offsets", what, out, rotated);

    /* Re-point slot 1 and issue the very same calls. */
    const uint64_t otherBase = other;
    CHECK(aclrtMemcpy(outSlot, sizeof otherBase, aclPtr(&otherBase), sizeof otherBase, ACL_MEMCPY_HOST_TO_DEVICE));
    for (uint64_t k = 0; k < B; k++) {
        CHECK(aclrtMemcpyAsyncWithOffset(outSlot, total, k * blk, srcSlot, blk, rotated(k) * blk, INNER, stream));
    }
    CHECK(aclrtSynchronizeStream(stream));
    verify("repoint", "slot 1 := other, the same calls again -> other", other, rotated);

    printf("\n  %-8s %u of %u results match\n", "check", good, results);
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0)); /* frees every allocation of device 0 */
    free(scratch);
    free(source);
    printf("\ndescriptors: %s\n", good == results ? "OK" : "FAIL");
    return good == results ? 0 : 1;
}
