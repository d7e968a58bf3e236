// containers.cpp: a native-style C++ program that uses the standard library
// the way CANN's C++ samples do (std::vector buffers, std::string names, a
// std::map of results, iostream output), built without -fno-exceptions. It
// never throws, so it must link and run with only the SDK's include path.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace {

bool check(aclError ret, const std::string &what)
{
    if (ret != ACL_SUCCESS) {
        std::cerr << what << " failed: " << ret << " (" << aclErrorName(ret) << ")" << std::endl;
        return false;
    }
    return true;
}

} // namespace

int main()
{
    if (!check(aclInit(nullptr), "aclInit") || !check(aclrtSetDevice(0), "aclrtSetDevice")) {
        return 1;
    }
    std::map<std::string, size_t> copied;
    std::vector<size_t> sizes{1, 100, 4096, 65536 + 7};
    for (size_t size : sizes) {
        std::vector<unsigned char> in(size), out(size, 0);
        for (size_t i = 0; i < size; i++) {
            in[i] = static_cast<unsigned char>(i * 31 + size);
        }
        void *dev = nullptr;
        if (!check(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc") ||
            !check(aclrtMemcpy(dev, size, in.data(), size, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy H2D") ||
            !check(aclrtMemcpy(out.data(), size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy D2H") ||
            !check(aclrtFree(dev), "aclrtFree")) {
            return 1;
        }
        if (in != out) {
            std::cerr << "size " << size << ": the data came back different" << std::endl;
            return 1;
        }
        std::ostringstream name;
        name << "copy-" << size;
        copied[name.str()] = size;
    }
    std::string report;
    for (const auto &kv : copied) {
        report += kv.first + "=" + std::to_string(kv.second) + " ";
    }
    std::cout << "copied: " << report << std::endl;
    std::printf("containers: OK (%zu sizes)\n", copied.size());
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
    return 0;
}
