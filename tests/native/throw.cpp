// throw.cpp: a C++ program that really throws, built without
// -fno-exceptions. The sandbox cannot unwind, so each throw must abort the
// guest with a message naming the thrown type: argv[1] picks the throw
// ("at": std::vector::at out of range, inside libc++; "custom": a type of
// the program's own). A catch block cannot catch either: the throw itself
// aborts.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "acl/acl.h"

namespace native {
struct DeviceError : std::runtime_error {
    explicit DeviceError(aclError code) : std::runtime_error("device error"), code(code) {}
    aclError code;
};
} // namespace native

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    std::vector<int> v(3, 7);
    std::printf("throw: about to throw (%s)\n", what);
    std::fflush(stdout);
    if (std::strcmp(what, "at") == 0) {
        return v.at(10);
    }
    if (std::strcmp(what, "custom") == 0) {
        throw native::DeviceError(aclrtSetDevice(-1));
    }
    if (std::strcmp(what, "caught") == 0) {
        try {
            throw std::logic_error("caught?");
        } catch (const std::exception &e) {
            std::printf("throw: caught %s\n", e.what());
        }
    }
    std::printf("throw: nothing thrown\n");
    return 0;
}
