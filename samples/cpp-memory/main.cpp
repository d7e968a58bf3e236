/*
 * cpp-memory: host and device memory managed the way the CANN C++ samples
 * manage it, built unchanged for wasm32 against the SDK's native layout
 * (module "acl32"): device buffers held in void * and in STL containers, a
 * typed device pointer, "%p" printing, pinned host memory from
 * aclrtMallocHost, a context, a stream and two events, an offset copy whose
 * addresses sit in void * slots in device memory, and cleanup with
 * aclrtDestroyStreamForce and aclrtResetDeviceForce.
 *
 * It uploads four blocks of a pattern, gathers parts of them on the device,
 * reads everything back, compares each block with what the host expects and
 * prints one fnv1a64 per buffer, logs the result with ACL_APP_LOG (the host's
 * log, not stdout), then prints "cpp-memory: OK".
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) fprintf(stdout, "[ERROR] " fmt "\n", ##__VA_ARGS__)

#define CHECK_ERROR(call)                                                                       \
    do {                                                                                        \
        aclError ret_ = (call);                                                                 \
        if (ret_ != ACL_SUCCESS) {                                                              \
            ERROR_LOG("%s failed, error code %d: %s", #call, static_cast<int>(ret_),            \
                      aclGetRecentErrMsg());                                                    \
            return -1;                                                                          \
        }                                                                                       \
    } while (0)

namespace {
constexpr int32_t kDeviceId = 0;
constexpr size_t kBlockCount = 4;
constexpr size_t kBlockBytes = 64 * 1024;
constexpr size_t kWords = kBlockBytes / sizeof(uint32_t);
// The offset copy: kGatherBytes from block 0 at kSrcOffset to block 3 at kDstOffset.
constexpr size_t kGatherBytes = 1024;
constexpr size_t kSrcOffset = 512;
constexpr size_t kDstOffset = 256;

struct Resources {
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    aclrtEvent startEvent = nullptr;
    aclrtEvent endEvent = nullptr;
    void *hostBuffer = nullptr;       // pinned host memory
    std::vector<void *> deviceBlocks; // device memory, one block each
    uint32_t *devWords = nullptr;     // a typed device pointer
    void *slotTable = nullptr;        // device memory holding two void * slots
};

uint64_t Fnv1a64(const void *data, size_t size)
{
    const uint8_t *p = static_cast<const uint8_t *>(data);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ULL;
    }
    return h;
}

uint32_t Pattern(size_t i) { return static_cast<uint32_t>(i) * 2654435761u + 12345u; }

int InitResource(Resources &res)
{
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(kDeviceId));
    CHECK_ERROR(aclrtCreateContext(&res.context, kDeviceId));
    CHECK_ERROR(aclrtSetCurrentContext(res.context));
    aclrtContext current = nullptr;
    CHECK_ERROR(aclrtGetCurrentContext(&current));
    if (current != res.context) {
        ERROR_LOG("the current context is not the one created");
        return -1;
    }
    aclrtRunMode runMode;
    CHECK_ERROR(aclrtGetRunMode(&runMode));
    INFO_LOG("run mode: %s", runMode == ACL_HOST ? "ACL_HOST" : "ACL_DEVICE");
    CHECK_ERROR(aclrtCreateStream(&res.stream));
    CHECK_ERROR(aclrtCreateEvent(&res.startEvent));
    CHECK_ERROR(aclrtCreateEvent(&res.endEvent));
    return 0;
}

int AllocBuffers(Resources &res)
{
    CHECK_ERROR(aclrtMallocHost(&res.hostBuffer, kBlockCount * kBlockBytes));
    INFO_LOG("pinned host buffer: %zu bytes at %p", kBlockCount * kBlockBytes, res.hostBuffer);
    uint32_t *words = static_cast<uint32_t *>(res.hostBuffer);
    for (size_t i = 0; i < kBlockCount * kWords; ++i) {
        words[i] = Pattern(i);
    }
    for (size_t i = 0; i < kBlockCount; ++i) {
        void *devPtr = nullptr;
        CHECK_ERROR(aclrtMalloc(&devPtr, kBlockBytes, ACL_MEM_MALLOC_HUGE_FIRST));
        res.deviceBlocks.push_back(devPtr);
        INFO_LOG("device block %zu: %zu bytes at %p", i, kBlockBytes, devPtr);
    }
    CHECK_ERROR(aclrtMalloc(reinterpret_cast<void **>(&res.devWords), kBlockBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    INFO_LOG("typed device buffer: %zu words at %p", kWords, static_cast<void *>(res.devWords));
    CHECK_ERROR(aclrtMalloc(&res.slotTable, 2 * sizeof(void *), ACL_MEM_MALLOC_HUGE_FIRST));
    INFO_LOG("slot table: %zu slots of %zu bytes at %p", static_cast<size_t>(2), sizeof(void *), res.slotTable);

    uint32_t match = 0;
    CHECK_ERROR(aclrtCheckMemType(res.deviceBlocks.data(), static_cast<uint32_t>(res.deviceBlocks.size()),
                                  ACL_RT_MEM_TYPE_DEV, &match, 0));
    INFO_LOG("device blocks are ACL_RT_MEM_TYPE_DEV: %u", match);
    return 0;
}

int Transfer(Resources &res)
{
    // Upload every block, between two events.
    CHECK_ERROR(aclrtRecordEvent(res.startEvent, res.stream));
    for (size_t i = 0; i < kBlockCount; ++i) {
        const uint8_t *src = static_cast<const uint8_t *>(res.hostBuffer) + i * kBlockBytes;
        CHECK_ERROR(aclrtMemcpyAsync(res.deviceBlocks[i], kBlockBytes, src, kBlockBytes,
                                     ACL_MEMCPY_HOST_TO_DEVICE, res.stream));
    }
    CHECK_ERROR(aclrtRecordEvent(res.endEvent, res.stream));
    CHECK_ERROR(aclrtSynchronizeEvent(res.endEvent));
    float ms = -1.0f;
    CHECK_ERROR(aclrtEventElapsedTime(&ms, res.startEvent, res.endEvent));
    INFO_LOG("uploaded %zu blocks, elapsed time %s", kBlockCount, ms >= 0.0f ? "measured" : "negative");

    // The typed pointer's second half gets block 1's first half: pointer
    // arithmetic on a device pointer, as natively.
    CHECK_ERROR(aclrtMemcpyAsync(res.devWords + kWords / 2, kBlockBytes / 2, res.deviceBlocks[1], kBlockBytes / 2,
                                 ACL_MEMCPY_DEVICE_TO_DEVICE, res.stream));

    // The offset copy reads its addresses from void * slots in device memory.
    void *slots[2] = {res.deviceBlocks[3], res.deviceBlocks[0]};
    CHECK_ERROR(aclrtMemcpy(res.slotTable, sizeof(slots), slots, sizeof(slots), ACL_MEMCPY_HOST_TO_DEVICE));
    void **dstSlot = static_cast<void **>(res.slotTable);
    const void **srcSlot = const_cast<const void **>(dstSlot + 1);
    CHECK_ERROR(aclrtMemcpyAsyncWithOffset(dstSlot, kBlockBytes, kDstOffset, srcSlot, kGatherBytes, kSrcOffset,
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, res.stream));
    CHECK_ERROR(aclrtSynchronizeStream(res.stream));
    return 0;
}

int Verify(Resources &res)
{
    // What the host expects in each device buffer.
    std::map<std::string, std::vector<uint8_t>> want;
    const uint8_t *host = static_cast<const uint8_t *>(res.hostBuffer);
    for (size_t i = 0; i < kBlockCount; ++i) {
        want["block " + std::to_string(i)].assign(host + i * kBlockBytes, host + (i + 1) * kBlockBytes);
    }
    std::vector<uint8_t> &block3 = want["block 3"];
    memcpy(block3.data() + kDstOffset, host + kSrcOffset, kGatherBytes);
    std::vector<uint8_t> words(kBlockBytes, 0); // new device memory reads as zeros
    memcpy(words.data() + kBlockBytes / 2, host + kBlockBytes, kBlockBytes / 2);
    want["typed"] = words;

    std::map<std::string, void *> dev;
    for (size_t i = 0; i < kBlockCount; ++i) {
        dev["block " + std::to_string(i)] = res.deviceBlocks[i];
    }
    dev["typed"] = res.devWords;

    std::vector<aclDataBuffer *> buffers;
    int bad = 0;
    for (const auto &kv : dev) {
        aclDataBuffer *buf = aclCreateDataBuffer(kv.second, kBlockBytes);
        if (buf == nullptr) {
            ERROR_LOG("aclCreateDataBuffer failed");
            return -1;
        }
        buffers.push_back(buf);
        std::vector<uint8_t> got(aclGetDataBufferSizeV2(buf));
        CHECK_ERROR(aclrtMemcpy(got.data(), got.size(), aclGetDataBufferAddr(buf), got.size(),
                                ACL_MEMCPY_DEVICE_TO_HOST));
        bool ok = got == want[kv.first];
        bad += ok ? 0 : 1;
        INFO_LOG("%-8s %p fnv1a64 %016llx %s", kv.first.c_str(), kv.second,
                 static_cast<unsigned long long>(Fnv1a64(got.data(), got.size())), ok ? "OK" : "MISMATCH");
    }
    for (aclDataBuffer *buf : buffers) {
        CHECK_ERROR(aclDestroyDataBuffer(buf));
    }
    ACL_APP_LOG(bad == 0 ? ACL_INFO : ACL_ERROR, "%zu buffers verified, %d bad", dev.size(), bad);
    return bad == 0 ? 0 : -1;
}

int DestroyResource(Resources &res)
{
    CHECK_ERROR(aclrtDestroyEvent(res.startEvent));
    CHECK_ERROR(aclrtDestroyEvent(res.endEvent));
    CHECK_ERROR(aclrtDestroyStreamForce(res.stream));
    for (void *devPtr : res.deviceBlocks) {
        CHECK_ERROR(aclrtFree(devPtr));
    }
    res.deviceBlocks.clear();
    CHECK_ERROR(aclrtFree(res.devWords));
    CHECK_ERROR(aclrtFree(res.slotTable));
    CHECK_ERROR(aclrtFreeHost(res.hostBuffer));
    CHECK_ERROR(aclrtDestroyContext(res.context));
    CHECK_ERROR(aclrtResetDeviceForce(kDeviceId));
    CHECK_ERROR(aclFinalize());
    INFO_LOG("resources released");
    return 0;
}
} // namespace

int main()
{
    Resources res;
    if (InitResource(res) != 0 || AllocBuffers(res) != 0 || Transfer(res) != 0 || Verify(res) != 0 ||
        DestroyResource(res) != 0) {
        ERROR_LOG("cpp-memory: FAILED");
        return 1;
    }
    printf("cpp-memory: OK\n");
    return 0;
}
