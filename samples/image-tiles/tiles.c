/*
 * image-tiles: cuts a row-major RGB image into fixed-size tiles on the
 * device, the way a vision pipeline prepares patches for a model.
 *
 *   1. upload    aclrtMemcpy2d (H2D): the guest's image rows are padded to a
 *                64-byte stride; the device copy is packed.
 *   2. pad       aclrtMemset: tiles that stick out of the image (right and
 *                bottom edges) are filled with the pad value first.
 *   3. extract   aclrtMemcpy2dAsync (D2D) on one stream: each tile's rows
 *                are copied out of the device image into a packed tile.
 *   4. download  aclrtMemcpy2d (D2H): every tile is written back into a
 *                "sheet", the tiles side by side, which must equal the
 *                image padded at the right and bottom edges.
 *
 * Usage: image-tiles [WIDTH HEIGHT TILE SEED PAD]   (default 1000 700 128 0x1e5 0)
 * Exits 0 when the sheet is right, 1 when it is not, 2 when a call fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#define SAMPLE_NAME "image-tiles"
#include "sample.h"

#define BPP 3 /* bytes per pixel: RGB */

/* One line of the report: step, function, what it did, bytes. */
static void line(const char *step, const char *fn, const char *what, uint64_t bytes)
{
    printf("  %-9s %-23s %-22s %10" PRIu64 " bytes\n", step, fn, what, bytes);
}

int main(int argc, char **argv)
{
    const uint64_t W = arg(argc, argv, 1, 1000), H = arg(argc, argv, 2, 700), T = arg(argc, argv, 3, 128);
    const uint32_t seed = (uint32_t)arg(argc, argv, 4, 0x1e5);
    const uint8_t pad = (uint8_t)arg(argc, argv, 5, 0);
    if (W == 0 || H == 0 || T == 0 || W > 8192 || H > 8192 || T > 1024) {
        printf("image-tiles: WIDTH and HEIGHT must be 1..8192 and TILE 1..1024\n");
        return 2;
    }

    /* The image in guest memory: pixel rows at a 64-byte aligned stride,
       the bytes between rows set to 0xFF, which must never be copied. */
    const uint64_t row = W * BPP, stride = (row + 63) / 64 * 64;
    uint8_t *image = malloc(stride * H);
    memset(image, 0xFF, stride * H);
    for (uint64_t y = 0; y < H; y++) {
        for (uint64_t x = 0; x < row; x++) {
            image[y * stride + x] = pattern(seed, (uint32_t)(y * row + x));
        }
    }

    const uint64_t tilesX = (W + T - 1) / T, tilesY = (H + T - 1) / T, tiles = tilesX * tilesY;
    const uint64_t tileBytes = T * T * BPP, tileRow = T * BPP;
    printf("image-tiles: %" PRIu64 "x%" PRIu64 " RGB image, %" PRIu64 "x%" PRIu64 " tiles, pad 0x%02x\n\n",
           W, H, T, T, pad);

    CHECK(aclrtSetDevice(0));
    aclrtPtr devImage = 0, devTiles = 0;
    CHECK(aclrtMalloc(&devImage, row * H, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&devTiles, tiles * tileBytes, ACL_MEM_MALLOC_HUGE_FIRST));

    /* 1. upload */
    CHECK(aclrtMemcpy2d(devImage, row, aclPtr(image), stride, row, H, ACL_MEMCPY_HOST_TO_DEVICE));
    char what[64];
    snprintf(what, sizeof what, "stride %" PRIu64 " -> pitch %" PRIu64, stride, row);
    line("upload", "aclrtMemcpy2d H2D", what, row * H);

    /* 2. pad, 3. extract */
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream));
    uint64_t padded = 0, moved = 0;
    for (uint64_t ty = 0; ty < tilesY; ty++) {
        for (uint64_t tx = 0; tx < tilesX; tx++) {
            const uint64_t k = ty * tilesX + tx;
            const uint64_t w = (tx + 1) * T <= W ? T : W - tx * T;
            const uint64_t h = (ty + 1) * T <= H ? T : H - ty * T;
            const aclrtPtr tile = devTiles + k * tileBytes;
            if (w < T || h < T) {
                CHECK(aclrtMemset(tile, tileBytes, pad, tileBytes));
                padded++;
            }
            const aclrtPtr src = devImage + (ty * T * W + tx * T) * BPP;
            CHECK(aclrtMemcpy2dAsync(tile, tileRow, src, row, w * BPP, h, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
            moved += w * h * BPP;
        }
    }
    CHECK(aclrtSynchronizeStream(stream));
    snprintf(what, sizeof what, "%" PRIu64 " edge tiles", padded);
    line("pad", "aclrtMemset", what, padded * tileBytes);
    snprintf(what, sizeof what, "%" PRIu64 " tiles, one stream", tiles);
    line("extract", "aclrtMemcpy2dAsync D2D", what, moved);

    /* 4. download into the sheet */
    const uint64_t sheetW = tilesX * T, sheetH = tilesY * T, sheetRow = sheetW * BPP;
    uint8_t *sheet = calloc(sheetRow, sheetH);
    for (uint64_t ty = 0; ty < tilesY; ty++) {
        for (uint64_t tx = 0; tx < tilesX; tx++) {
            const uint64_t k = ty * tilesX + tx;
            uint8_t *dst = sheet + ty * T * sheetRow + tx * tileRow;
            CHECK(aclrtMemcpy2d(aclPtr(dst), sheetRow, devTiles + k * tileBytes, tileRow, tileRow, T,
                                ACL_MEMCPY_DEVICE_TO_HOST));
        }
    }
    snprintf(what, sizeof what, "%" PRIu64 " tiles -> sheet", tiles);
    line("download", "aclrtMemcpy2d D2H", what, tiles * tileBytes);

    /* The sheet must be the image, padded. */
    uint64_t bad = 0;
    for (uint64_t y = 0; y < sheetH; y++) {
        for (uint64_t x = 0; x < sheetRow; x++) {
            const uint8_t want = (y < H && x < row) ? image[y * stride + x] : pad;
            bad += sheet[y * sheetRow + x] != want;
        }
    }
    printf("\n  tiles     %" PRIu64 " x %" PRIu64 " = %" PRIu64 " (%" PRIu64 " full, %" PRIu64 " padded)\n", tilesX,
           tilesY, tiles, tiles - padded, padded);
    printf("  sheet     %" PRIu64 "x%" PRIu64 " fnv1a64 0x%016" PRIx64 "\n", sheetW, sheetH,
           fnv1a64(sheet, sheetRow * sheetH));
    printf("  check     %" PRIu64 " of %" PRIu64 " bytes differ from the padded image\n", bad, sheetRow * sheetH);

    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtFree(devTiles));
    CHECK(aclrtFree(devImage));
    CHECK(aclrtResetDevice(0));
    free(sheet);
    free(image);
    printf("\nimage-tiles: %s\n", bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
