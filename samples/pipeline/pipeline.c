/*
 * pipeline: a double-buffered streaming copy, the shape of every
 * host <-> device data pipeline. Chunks of a long input go up to the device
 * on one stream (H2D) and come back on another (D2H); with two buffers of
 * each kind, the upload of chunk n+1 overlaps the download of chunk n.
 *
 *   in[2]   pinned staging buffers from aclrtMallocHost, filled by the guest
 *   dev[2]  device buffers from aclrtMalloc
 *   out[2]  guest buffers pinned with aclrtHostRegister, read by the guest
 *
 * Events order the two streams and the guest, per slot s = n % 2:
 *   uploaded[s]    recorded on "up" after H2D of chunk n: "down" waits for it
 *                  before the D2H, and the guest before refilling in[s];
 *   downloaded[s]  recorded on "down" after D2H of chunk n: "up" waits for it
 *                  before overwriting dev[s], and the guest before reading
 *                  out[s].
 * Two more events around everything time the run (aclrtEventElapsedTime).
 * Every chunk that comes back is checked against the input.
 *
 * Usage: pipeline [CHUNKS CHUNK_BYTES SEED]   (default 16 262144 0xc0ffee)
 * Exits 0 when every chunk is right, 1 when one is not, 2 when a call fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#define SAMPLE_NAME "pipeline"
#include "sample.h"

static uint32_t seed;
static uint64_t chunkBytes;
static unsigned good;

/* Checks chunk n, which has arrived in out, and prints its line. */
static void verify(uint64_t n, const uint8_t *out)
{
    uint64_t bad = 0;
    for (uint64_t i = 0; i < chunkBytes; i++) {
        bad += out[i] != pattern(seed, (uint32_t)(n * chunkBytes + i));
    }
    good += bad == 0;
    printf("  chunk %3" PRIu64 "  %8" PRIu64 " bytes  fnv1a64 0x%016" PRIx64 "  %s\n", n, chunkBytes,
           fnv1a64(out, chunkBytes), bad == 0 ? "OK" : "FAIL");
}

int main(int argc, char **argv)
{
    const uint64_t chunks = arg(argc, argv, 1, 16);
    chunkBytes = arg(argc, argv, 2, 256 * 1024);
    seed = (uint32_t)arg(argc, argv, 3, 0xc0ffee);
    if (chunks == 0 || chunkBytes == 0 || chunks * chunkBytes > (1u << 30)) {
        printf("pipeline: need CHUNKS, CHUNK_BYTES >= 1 and at most 1 GiB in all\n");
        return 2;
    }
    printf("pipeline: %" PRIu64 " chunks of %" PRIu64 " bytes, double-buffered over 2 streams (seed 0x%" PRIx32 ")\n\n",
           chunks, chunkBytes, seed);

    CHECK(aclrtSetDevice(0));
    void *in[2];
    uint8_t *out[2];
    aclrtPtr dev[2];
    aclrtEvent uploaded[2], downloaded[2], start, end;
    for (int s = 0; s < 2; s++) {
        CHECK(aclrtMallocHost(&in[s], chunkBytes));
        out[s] = malloc(chunkBytes);
        aclrtPtr reg = 0;
        CHECK(aclrtHostRegister(aclPtr(out[s]), chunkBytes, ACL_HOST_REGISTER_MAPPED, &reg));
        CHECK(aclrtMalloc(&dev[s], chunkBytes, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(aclrtCreateEvent(&uploaded[s]));
        CHECK(aclrtCreateEvent(&downloaded[s]));
    }
    CHECK(aclrtCreateEvent(&start));
    CHECK(aclrtCreateEvent(&end));
    aclrtStream up = NULL, down = NULL;
    CHECK(aclrtCreateStream(&up));
    CHECK(aclrtCreateStream(&down));
    printf("  in[2]   aclrtMallocHost     2 x %" PRIu64 " bytes (pinned staging)\n", chunkBytes);
    printf("  out[2]  aclrtHostRegister   2 x %" PRIu64 " bytes (pinned results)\n", chunkBytes);
    printf("  dev[2]  aclrtMalloc         2 x %" PRIu64 " bytes\n\n", chunkBytes);

    CHECK(aclrtRecordEvent(start, up));
    for (uint64_t n = 0; n < chunks; n++) {
        const int s = (int)(n % 2);
        if (n >= 2) {
            /* in[s] is free once chunk n-2 is on the device. */
            CHECK(aclrtSynchronizeEvent(uploaded[s]));
        }
        uint8_t *p = in[s];
        for (uint64_t i = 0; i < chunkBytes; i++) {
            p[i] = pattern(seed, (uint32_t)(n * chunkBytes + i));
        }
        if (n >= 2) {
            /* dev[s] is free once chunk n-2 has left it. */
            CHECK(aclrtStreamWaitEvent(up, downloaded[s]));
        }
        CHECK(aclrtMemcpyAsync(dev[s], chunkBytes, aclPtr(in[s]), chunkBytes, ACL_MEMCPY_HOST_TO_DEVICE, up));
        CHECK(aclrtRecordEvent(uploaded[s], up));

        if (n >= 2) {
            /* out[s] still holds chunk n-2: take it before it is overwritten. */
            CHECK(aclrtSynchronizeEvent(downloaded[s]));
            verify(n - 2, out[s]);
        }
        CHECK(aclrtStreamWaitEvent(down, uploaded[s]));
        CHECK(aclrtMemcpyAsync(aclPtr(out[s]), chunkBytes, dev[s], chunkBytes, ACL_MEMCPY_DEVICE_TO_HOST, down));
        CHECK(aclrtRecordEvent(downloaded[s], down));
    }
    CHECK(aclrtRecordEvent(end, down));
    for (uint64_t n = chunks >= 2 ? chunks - 2 : 0; n < chunks; n++) {
        CHECK(aclrtSynchronizeEvent(downloaded[n % 2]));
        verify(n, out[n % 2]);
    }
    CHECK(aclrtSynchronizeEvent(end));
    float ms = 0;
    CHECK(aclrtEventElapsedTime(&ms, start, end));

    const uint64_t total = chunks * chunkBytes;
    printf("\n  moved   %" PRIu64 " bytes H2D on \"up\", %" PRIu64 " bytes D2H on \"down\"\n", total, total);
    printf("  chunks  %u of %" PRIu64 " OK\n", good, chunks);
    printf("  elapsed %.3f ms from the start event to the end event\n", ms);

    CHECK(aclrtDestroyStream(down));
    CHECK(aclrtDestroyStream(up));
    CHECK(aclrtDestroyEvent(end));
    CHECK(aclrtDestroyEvent(start));
    for (int s = 0; s < 2; s++) {
        CHECK(aclrtDestroyEvent(downloaded[s]));
        CHECK(aclrtDestroyEvent(uploaded[s]));
        CHECK(aclrtFree(dev[s]));
        CHECK(aclrtHostUnregister(aclPtr(out[s])));
        free(out[s]);
        CHECK(aclrtFreeHost(in[s]));
    }
    CHECK(aclrtResetDevice(0));
    printf("\npipeline: %s\n", good == chunks ? "OK" : "FAIL");
    return good == chunks ? 0 : 1;
}
