// Launches the kernels of the CANN examples through their launchers, as a
// native program does, and prints what it reads back: tests/kernels_test.go
// checks the output. Every step prints one line.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "kernel_ops.h"

#define CHECK(call)                                                           \
    do {                                                                      \
        aclError e_ = (call);                                                 \
        if (e_ != ACL_SUCCESS) {                                              \
            std::printf("%s: %d (%s)\n", #call, e_, aclGetRecentErrMsg());   \
            return 1;                                                         \
        }                                                                     \
    } while (0)

namespace {

template <typename T>
std::vector<T> Fetch(void* dev, size_t n)
{
    std::vector<T> host(n);
    if (aclrtMemcpy(host.data(), n * sizeof(T), dev, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
        host.clear();
    }
    return host;
}

}  // namespace

int main()
{
    // Device prints reach stdout when a synchronize returns; unbuffered,
    // the program's own lines keep their place among them (to a pipe,
    // stdout is fully buffered, natively as here).
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));

    // WriteDo then ReadDo: each block writes, then prints, its element.
    constexpr uint32_t blocks = 4;
    int* ints = nullptr;
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&ints), blocks * sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST));
    WriteDo(blocks, stream, ints, 42);
    CHECK(aclrtSynchronizeStream(stream));
    ReadDo(blocks, stream, ints);
    CHECK(aclrtSynchronizeStream(stream));
    int sum = 0;
    for (int v : Fetch<int>(ints, blocks)) {
        sum += v;
    }
    std::printf("sum of written values: %d\n", sum);

    // EasyOP adds one, ShortOP doubles, LongOP adds one: (0 + 1) * 2 + 1.
    uint32_t* x = nullptr;
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&x), blocks * sizeof(uint32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(x, blocks * sizeof(uint32_t), 0, blocks * sizeof(uint32_t)));
    EasyOP(blocks, stream, x);
    ShortOP(blocks, stream, x);
    LongOP(blocks, stream, x);
    CHECK(aclrtSynchronizeStream(stream));
    std::vector<uint32_t> xs = Fetch<uint32_t>(x, blocks);
    std::printf("x: %u %u %u %u\n", xs[0], xs[1], xs[2], xs[3]);

    PrintDo(2, stream);
    CHECK(aclrtSynchronizeStream(stream));

    // AddDo over 8 blocks of 512 floats.
    constexpr uint32_t total = 4096;
    std::vector<float> a(total), b(total);
    for (uint32_t i = 0; i < total; i++) {
        a[i] = static_cast<float>(i);
        b[i] = 0.5f;
    }
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&da), total * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&db), total * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&dc), total * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(da, total * sizeof(float), a.data(), total * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(db, total * sizeof(float), b.data(), total * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
    AddDo(8, stream, da, db, dc, total);
    CHECK(aclrtSynchronizeStream(stream));
    std::vector<float> c = Fetch<float>(dc, total);
    int wrong = 0;
    for (uint32_t i = 0; i < total; i++) {
        wrong += c[i] != static_cast<float>(i) + 0.5f;
    }
    std::printf("AddDo: %d of %u wrong\n", wrong, total);

    // A launch past its buffer's end fails its stream, not the program.
    WriteDo(blocks + 1, stream, ints, 7);
    std::printf("overrun: %d\n", aclrtSynchronizeStream(stream));

    // ErrorOP traps on the device: the stream reports the fault.
    ErrorOP(1, stream);
    std::printf("ErrorOP: %d\n", aclrtSynchronizeStream(stream));
    std::printf("after the fault: %d\n", aclrtSynchronizeStream(stream));

    CHECK(aclrtFree(ints));
    CHECK(aclrtFree(x));
    CHECK(aclrtFree(da));
    CHECK(aclrtFree(db));
    CHECK(aclrtFree(dc));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    std::printf("done\n");
    return 0;
}
