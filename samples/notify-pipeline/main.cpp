// notify-pipeline: a two-stream pipeline ordered by a notify, written the
// way native CANN C++ programs are (void * device buffers, aclError
// returns, no exceptions thrown), built unchanged for wasm32 against the
// SDK's native layout with nothing but its include path.
//
// A producer stream uploads each block and records its notify; a consumer
// stream waits for the block's notify (aclrtWaitAndResetNotify), moves the
// block device to device and back to the host, and then runs a host callback (aclrtLaunchHostFunc)
// that sums the words the copy brought back and compares them with the
// block's expected sum. The consumer's work is queued before the
// producer's, so only the notify orders it. Events mark the start and the
// end; a deliberate bad call shows the error state (aclrtGetLastError).
//
// Usage: notify-pipeline [config.json] (aclInit's configuration path;
// default acl.json, which the sandbox ignores).
#include <acl/acl.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int kBlocks = 4;
constexpr size_t kWords = 4096;
constexpr size_t kBlockBytes = kWords * sizeof(uint32_t);

#define ACL_CHECK(call)                                                               \
    do {                                                                              \
        aclError ret_ = (call);                                                       \
        if (ret_ != ACL_SUCCESS) {                                                    \
            std::printf("%s failed: %d (%s)\n", #call, ret_, aclGetRecentErrMsg()); \
            return false;                                                             \
        }                                                                             \
    } while (0)

// Word i of block b: a multiplicative hash, so that every block differs.
uint32_t Word(int b, size_t i)
{
    return static_cast<uint32_t>((b * kWords + i) * 2654435761u + 0x9e37u);
}

// What the host callback checks for one block.
struct BlockCheck {
    int index;
    const uint32_t *words;  // the consumer's host buffer of the block
    uint64_t want;          // the sum the block must have
    uint64_t got;
    int runs;
};

// The host callback: runs on the consumer stream after the block's
// download, so the words are there.
void SumBlock(void *arg)
{
    auto *c = static_cast<BlockCheck *>(arg);
    uint64_t sum = 0;
    for (size_t i = 0; i < kWords; i++) {
        sum += c->words[i];
    }
    c->got = sum;
    c->runs++;
}

class Pipeline {
public:
    ~Pipeline() { Release(); }

    bool Init(const char *config)
    {
        aclError ret = aclInit(config);
        std::printf("aclInit(\"%s\"): %d\n", config, ret);
        if (ret != ACL_SUCCESS) {
            return false;
        }
        initialized_ = true;
        ACL_CHECK(aclrtSetDevice(0));
        deviceSet_ = true;
        ACL_CHECK(aclrtCreateStream(&producer_));
        ACL_CHECK(aclrtCreateStream(&consumer_));
        // One notify per block: a notify is a flag, and two records that
        // run before the wait clears it count once.
        for (int b = 0; b < kBlocks; b++) {
            aclrtNotify n = nullptr;
            ACL_CHECK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
            ready_.push_back(n);
        }
        uint32_t first = 0;
        uint32_t last = 0;
        ACL_CHECK(aclrtGetNotifyId(ready_.front(), &first));
        ACL_CHECK(aclrtGetNotifyId(ready_.back(), &last));
        std::printf("notify ids distinct: %s\n", first != last ? "yes" : "no");
        ACL_CHECK(aclrtCreateEvent(&start_));
        ACL_CHECK(aclrtCreateEvent(&end_));
        for (int b = 0; b < kBlocks; b++) {
            void *in = nullptr;
            void *out = nullptr;
            ACL_CHECK(aclrtMalloc(&in, kBlockBytes, ACL_MEM_MALLOC_HUGE_FIRST));
            devIn_.push_back(in);
            ACL_CHECK(aclrtMalloc(&out, kBlockBytes, ACL_MEM_MALLOC_HUGE_FIRST));
            devOut_.push_back(out);
        }
        // Pinned host memory, one block for the uploads and the downloads
        // (the async copies to and from it run in stream order). One
        // block, not two: the SDK's aclrtMallocHost takes guest memory from
        // malloc, which does not page-align it, and on the native backend
        // a second block sharing a page with the first is not registered
        // natively, so its async copies would wait for their stream, and
        // the consumer's stream waits for a notify not yet recorded.
        void *pinned = nullptr;
        ACL_CHECK(aclrtMallocHost(&pinned, 2 * kBlocks * kBlockBytes));
        hostIn_ = static_cast<uint32_t *>(pinned);
        hostOut_ = hostIn_ + kBlocks * kWords;
        std::memset(hostOut_, 0, kBlocks * kBlockBytes);
        for (int b = 0; b < kBlocks; b++) {
            for (size_t i = 0; i < kWords; i++) {
                hostIn_[b * kWords + i] = Word(b, i);
            }
        }
        std::printf("2 streams, %d notifies, %d blocks of %zu bytes\n", kBlocks, kBlocks, kBlockBytes);
        return true;
    }

    bool Run()
    {
        checks_.resize(kBlocks);
        for (int b = 0; b < kBlocks; b++) {
            uint64_t want = 0;
            for (size_t i = 0; i < kWords; i++) {
                want += Word(b, i);
            }
            checks_[b] = BlockCheck{b, &hostOut_[b * kWords], want, 0, 0};
        }
        // The consumer first: every step waits for the producer's record.
        ACL_CHECK(aclrtRecordEvent(start_, consumer_));
        for (int b = 0; b < kBlocks; b++) {
            ACL_CHECK(aclrtWaitAndResetNotify(ready_[b], consumer_, 0));
            ACL_CHECK(aclrtMemcpyAsync(devOut_[b], kBlockBytes, devIn_[b], kBlockBytes,
                                       ACL_MEMCPY_DEVICE_TO_DEVICE, consumer_));
            ACL_CHECK(aclrtMemcpyAsync(&hostOut_[b * kWords], kBlockBytes, devOut_[b], kBlockBytes,
                                       ACL_MEMCPY_DEVICE_TO_HOST, consumer_));
            ACL_CHECK(aclrtLaunchHostFunc(consumer_, SumBlock, &checks_[b]));
        }
        ACL_CHECK(aclrtRecordEvent(end_, consumer_));
        // Then the producer: upload a block, release one wait.
        for (int b = 0; b < kBlocks; b++) {
            ACL_CHECK(aclrtMemcpyAsync(devIn_[b], kBlockBytes, &hostIn_[b * kWords], kBlockBytes,
                                       ACL_MEMCPY_HOST_TO_DEVICE, producer_));
            ACL_CHECK(aclrtRecordNotify(ready_[b], producer_));
        }
        ACL_CHECK(aclrtSynchronizeStream(producer_));
        ACL_CHECK(aclrtSynchronizeEvent(end_));
        float ms = 0;
        ACL_CHECK(aclrtEventElapsedTime(&ms, start_, end_));
        std::printf("pipeline done, elapsed time measured (%s)\n", ms >= 0 ? "non-negative" : "negative");
        return true;
    }

    bool Report()
    {
        int bad = 0;
        for (const BlockCheck &c : checks_) {
            bool ok = c.runs == 1 && c.got == c.want;
            bad += ok ? 0 : 1;
            std::printf("block %d: callback ran %d time(s), sum %" PRIu64 " %s\n", c.index, c.runs, c.got,
                        ok ? "OK" : "BAD");
        }
        return bad == 0;
    }

    // The error state: a bad call sets the thread's last error; peeking
    // keeps it, reading clears it.
    bool ErrorState()
    {
        aclError before = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
        aclError bad = aclrtRecordNotify(ready_[0], reinterpret_cast<aclrtStream>(start_));
        aclError peek = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
        aclError last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
        aclError after = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
        std::printf("error state: before %d, an event passed as a stream %d, peek %d, last %d, then %d\n", before, bad,
                    peek, last, after);
        return before == ACL_SUCCESS && bad != ACL_SUCCESS && peek == bad && last == bad && after == ACL_SUCCESS;
    }

    void Release()
    {
        for (void *p : devIn_) {
            (void)aclrtFree(p);
        }
        for (void *p : devOut_) {
            (void)aclrtFree(p);
        }
        devIn_.clear();
        devOut_.clear();
        if (hostIn_ != nullptr) {
            (void)aclrtFreeHost(hostIn_);
            hostIn_ = nullptr;
            hostOut_ = nullptr;
        }
        if (start_ != nullptr) {
            (void)aclrtDestroyEvent(start_);
            start_ = nullptr;
        }
        if (end_ != nullptr) {
            (void)aclrtDestroyEvent(end_);
            end_ = nullptr;
        }
        for (aclrtNotify n : ready_) {
            (void)aclrtDestroyNotify(n);
        }
        ready_.clear();
        if (consumer_ != nullptr) {
            (void)aclrtDestroyStream(consumer_);
            consumer_ = nullptr;
        }
        if (producer_ != nullptr) {
            (void)aclrtDestroyStream(producer_);
            producer_ = nullptr;
        }
        if (deviceSet_) {
            (void)aclrtResetDevice(0);
            deviceSet_ = false;
        }
        if (initialized_) {
            (void)aclFinalize();
            initialized_ = false;
        }
    }

private:
    bool initialized_ = false;
    bool deviceSet_ = false;
    aclrtStream producer_ = nullptr;
    aclrtStream consumer_ = nullptr;
    std::vector<aclrtNotify> ready_;
    aclrtEvent start_ = nullptr;
    aclrtEvent end_ = nullptr;
    std::vector<void *> devIn_;
    std::vector<void *> devOut_;
    uint32_t *hostIn_ = nullptr;
    uint32_t *hostOut_ = nullptr;
    std::vector<BlockCheck> checks_;
};

}  // namespace

int main(int argc, char **argv)
{
    const char *config = argc > 1 ? argv[1] : "acl.json";
    Pipeline p;
    bool ok = p.Init(config) && p.Run() && p.Report() && p.ErrorState();
    p.Release();
    std::printf("notify-pipeline: %s\n", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
