/* Runs the host's basic kernels (aclwasm run --kernels basic) from C, on
 * the default stream, and prints what it reads back:
 * tests/kernels_test.go checks the output. The launchers are declared
 * here and left undefined (-Wl,--allow-undefined): the host binds them. */
#include <acl/acl.h>
#include <stdint.h>
#include <stdio.h>

void FillF32(uint32_t blockDim, void *stream, float *dst, uint32_t n, float value);
void AxpyF32(uint32_t blockDim, void *stream, const float *x, float *y, uint32_t n, float alpha);
void MulF32(uint32_t blockDim, void *stream, const float *a, const float *b, float *c, uint32_t n);
void CastF32F16(uint32_t blockDim, void *stream, const float *src, aclFloat16 *dst, uint32_t n);
void CastF16F32(uint32_t blockDim, void *stream, const aclFloat16 *src, float *dst, uint32_t n);
void PrefixSumI32(uint32_t blockDim, void *stream, const int32_t *src, int32_t *dst, uint32_t n);
void HistogramU8(uint32_t blockDim, void *stream, const uint8_t *src, uint32_t *hist, uint32_t n);

#define CHECK(call)                                                      \
    do {                                                                 \
        aclError e_ = (call);                                            \
        if (e_ != ACL_SUCCESS) {                                         \
            printf("%s: %d (%s)\n", #call, e_, aclGetRecentErrMsg());    \
            return 1;                                                    \
        }                                                                \
    } while (0)

#define N 1000

static float hf[N];
static int32_t hi[N];
static uint8_t hb[N];
static uint32_t hist[256];

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    void *x, *y, *z, *h16, *ints, *sums, *bytes, *bins;
    CHECK(aclrtMalloc(&x, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&y, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&z, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&h16, N * 2, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&ints, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&sums, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&bytes, N, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&bins, sizeof hist, ACL_MEM_MALLOC_HUGE_FIRST));

    /* y = 2 * 1.5 + 1, then z = y * y: 16 everywhere. */
    FillF32(3, NULL, x, N, 1.5f);
    FillF32(5, NULL, y, N, 1.0f);
    AxpyF32(7, NULL, x, y, N, 2.0f);
    MulF32(2, NULL, y, y, z, N);
    /* Through float16 and back: 16 is exact in half precision. */
    CastF32F16(4, NULL, z, h16, N);
    CastF16F32(4, NULL, h16, x, N);
    CHECK(aclrtSynchronizeDevice());
    CHECK(aclrtMemcpy(hf, sizeof hf, x, sizeof hf, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("mul then casts: %g %g\n", hf[0], hf[N - 1]);

    for (int i = 0; i < N; i++) {
        hi[i] = i + 1;
        hb[i] = (uint8_t)(i % 10);
    }
    CHECK(aclrtMemcpy(ints, sizeof hi, hi, sizeof hi, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(bytes, sizeof hb, hb, sizeof hb, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemset(bins, sizeof hist, 0, sizeof hist));
    PrefixSumI32(6, NULL, ints, sums, N);
    HistogramU8(3, NULL, bytes, bins, N);
    HistogramU8(1, NULL, bytes, bins, N);
    CHECK(aclrtSynchronizeDevice());
    CHECK(aclrtMemcpy(hi, sizeof hi, sums, sizeof hi, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(aclrtMemcpy(hist, sizeof hist, bins, sizeof hist, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("prefix sum: %d %d %d\n", hi[0], hi[1], hi[N - 1]);
    printf("histogram: %u %u %u\n", hist[0], hist[9], hist[10]);

    /* A buffer past its allocation fails at the synchronize. */
    FillF32(1, NULL, bins, N, 0.0f);
    printf("overrun: %d\n", aclrtSynchronizeDevice());
    CHECK(aclFinalize());
    printf("done\n");
    return 0;
}
