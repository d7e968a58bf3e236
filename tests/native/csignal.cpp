// csignal.cpp: a native-style C++ program that includes <csignal> for its
// type and constants, built with the native flags only.
#include <csignal>
#include <cstdio>

#include "acl/acl.h"

static volatile std::sig_atomic_t stop;

int main()
{
    uint32_t count = 0;
    if (aclrtGetDeviceCount(&count) != ACL_SUCCESS) {
        std::printf("aclrtGetDeviceCount failed\n");
        return 1;
    }
    std::printf("csignal: OK (SIGINT=%d, stop=%d, %u device(s))\n", SIGINT, static_cast<int>(stop), count);
    return 0;
}
