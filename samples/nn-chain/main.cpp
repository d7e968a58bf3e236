/*
 * nn-chain: a small computation on the device with the operator library,
 * written the way native CANN programs call it and built unchanged for
 * wasm32 against the SDK's native layout (module "acl32"): tensors over
 * aclrtMalloc memory, each operator in two phases (GetWorkspaceSize, then
 * the launch on a stream with a workspace), the result copied back.
 *
 * It computes, for x, y and z of shape [2, 4] (float32):
 *   m = x * y                      aclnnMul
 *   a = m + 0.5 * z                aclnnAdd
 *   r = sum of a over dim 1        aclnnReduceSum -> [2]
 *   s = softmax of a over dim 1    aclnnSoftmax   -> [2, 4]
 * checks r and s against the same computation in double on the host,
 * prints them, then "nn-chain: OK".
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_softmax.h"

#define CHECK(call)                                                                          \
    do {                                                                                     \
        auto ret_ = (call);                                                                  \
        if (ret_ != 0) {                                                                     \
            printf("nn-chain: FAIL: %s: %d: %s\n", #call, static_cast<int>(ret_),           \
                   aclGetRecentErrMsg());                                                    \
            return 2;                                                                        \
        }                                                                                    \
    } while (0)

namespace {

constexpr int64_t kRows = 2;
constexpr int64_t kCols = 4;

// A device buffer and a tensor over it, of the given shape.
struct DeviceTensor {
    void *dev = nullptr;
    aclTensor *t = nullptr;
    std::vector<int64_t> shape;

    size_t Bytes() const {
        size_t n = sizeof(float);
        for (int64_t d : shape) n *= static_cast<size_t>(d);
        return n;
    }
};

int Create(DeviceTensor &d, std::vector<int64_t> shape, const std::vector<float> *init)
{
    d.shape = shape;
    CHECK(aclrtMalloc(&d.dev, d.Bytes(), ACL_MEM_MALLOC_HUGE_FIRST));
    if (init != nullptr) {
        CHECK(aclrtMemcpy(d.dev, d.Bytes(), init->data(), d.Bytes(), ACL_MEMCPY_HOST_TO_DEVICE));
    }
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    d.t = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                          shape.data(), shape.size(), d.dev);
    if (d.t == nullptr) {
        printf("nn-chain: FAIL: aclCreateTensor: %s\n", aclGetRecentErrMsg());
        return 2;
    }
    return 0;
}

// Run launches an operator whose executor GetWorkspaceSize made, with a
// workspace of the size it asked for.
template <typename Launch>
int Run(const char *name, uint64_t wsSize, aclOpExecutor *executor, aclrtStream stream, Launch launch)
{
    void *ws = nullptr;
    if (wsSize > 0) CHECK(aclrtMalloc(&ws, wsSize, ACL_MEM_MALLOC_HUGE_FIRST));
    aclnnStatus ret = launch(ws, wsSize, executor, stream);
    if (ret != 0) {
        printf("nn-chain: FAIL: %s: %d: %s\n", name, static_cast<int>(ret), aclGetRecentErrMsg());
        return 2;
    }
    CHECK(aclrtSynchronizeStream(stream));
    if (ws != nullptr) CHECK(aclrtFree(ws));
    return 0;
}

}  // namespace

int main()
{
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));

    std::vector<float> x(kRows * kCols), y(kRows * kCols), z(kRows * kCols);
    for (int64_t i = 0; i < kRows * kCols; i++) {
        x[i] = 0.25f * static_cast<float>(i + 1);
        y[i] = static_cast<float>(i % 3) - 1.0f;
        z[i] = static_cast<float>(i) * 0.5f;
    }
    DeviceTensor dx, dy, dz, dm, da, dr, ds;
    if (Create(dx, {kRows, kCols}, &x) || Create(dy, {kRows, kCols}, &y) || Create(dz, {kRows, kCols}, &z) ||
        Create(dm, {kRows, kCols}, nullptr) || Create(da, {kRows, kCols}, nullptr) || Create(dr, {kRows}, nullptr) ||
        Create(ds, {kRows, kCols}, nullptr)) {
        return 2;
    }
    float half = 0.5f;
    aclScalar *alpha = aclCreateScalar(&half, ACL_FLOAT);
    int64_t dims[] = {1};
    aclIntArray *dim = aclCreateIntArray(dims, 1);

    uint64_t wsSize = 0;
    aclOpExecutor *executor = nullptr;
    CHECK(aclnnMulGetWorkspaceSize(dx.t, dy.t, dm.t, &wsSize, &executor));
    if (Run("aclnnMul", wsSize, executor, stream, aclnnMul)) return 2;
    CHECK(aclnnAddGetWorkspaceSize(dm.t, dz.t, alpha, da.t, &wsSize, &executor));
    if (Run("aclnnAdd", wsSize, executor, stream, aclnnAdd)) return 2;
    CHECK(aclnnReduceSumGetWorkspaceSize(da.t, dim, false, ACL_FLOAT, dr.t, &wsSize, &executor));
    if (Run("aclnnReduceSum", wsSize, executor, stream, aclnnReduceSum)) return 2;
    CHECK(aclnnSoftmaxGetWorkspaceSize(da.t, 1, ds.t, &wsSize, &executor));
    if (Run("aclnnSoftmax", wsSize, executor, stream, aclnnSoftmax)) return 2;

    std::vector<float> r(kRows), s(kRows * kCols);
    CHECK(aclrtMemcpy(r.data(), dr.Bytes(), dr.dev, dr.Bytes(), ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(aclrtMemcpy(s.data(), ds.Bytes(), ds.dev, ds.Bytes(), ACL_MEMCPY_DEVICE_TO_HOST));

    // The same chain in double on the host.
    int bad = 0;
    for (int64_t i = 0; i < kRows; i++) {
        double a[kCols], sum = 0, mx = -INFINITY, den = 0;
        for (int64_t j = 0; j < kCols; j++) {
            int64_t k = i * kCols + j;
            a[j] = static_cast<double>(x[k]) * y[k] + 0.5 * z[k];
            sum += a[j];
            mx = a[j] > mx ? a[j] : mx;
        }
        for (int64_t j = 0; j < kCols; j++) den += std::exp(a[j] - mx);
        if (std::fabs(r[i] - sum) > 1e-5 * (1 + std::fabs(sum))) bad++;
        printf("row %lld: sum %.5f softmax", static_cast<long long>(i), r[i]);
        for (int64_t j = 0; j < kCols; j++) {
            double want = std::exp(a[j] - mx) / den;
            if (std::fabs(s[i * kCols + j] - want) > 1e-5) bad++;
            printf(" %.5f", s[i * kCols + j]);
        }
        printf("\n");
    }

    aclDestroyIntArray(dim);
    aclDestroyScalar(alpha);
    for (DeviceTensor *d : {&dx, &dy, &dz, &dm, &da, &dr, &ds}) {
        aclDestroyTensor(d->t);
        CHECK(aclrtFree(d->dev));
    }
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    if (bad != 0) {
        printf("nn-chain: FAIL: %d values differ from the host's\n", bad);
        return 1;
    }
    printf("nn-chain: OK\n");
    return 0;
}
