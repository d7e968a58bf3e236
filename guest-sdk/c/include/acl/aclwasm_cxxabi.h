/*
 * aclwasm_cxxabi.h: the C++ ABI's exception entry points for C++ guests
 * built without -fno-exceptions. Included by the acl headers in C++ with
 * wasi-libc; do not include it directly.
 *
 * Why: Debian's libc++abi for wasm32 is built without exception support and
 * wasm32-wasi has no unwinder, so __cxa_allocate_exception and __cxa_throw
 * are undefined. Every C++ program that uses the standard library references
 * them (std::vector, std::string and std::map throw length_error,
 * out_of_range, bad_alloc), so without them such a program does not link
 * unless it is built with -fno-exceptions. A program that never throws
 * needs only that they exist; these definitions make it link with no flag
 * beyond the include path.
 *
 * What a throw does: nothing can catch it (catch blocks are compiled out
 * without an unwinder), so __cxa_throw writes
 *     aclwasm: C++ exception of type std::out_of_range thrown; the sandbox
 *     cannot unwind, so it aborts
 * to stderr (the type demangled with libc++abi's __cxa_demangle, which the
 * C++ driver links anyway) and calls abort(): the guest traps, and the host
 * reports the trap with the guest's backtrace (aclwasm run exits 134). The
 * demangler adds about 210 KB to the module; define ACLWASM_CXXABI_MANGLED
 * before including <acl/acl.h> to print the mangled name instead
 * (St12out_of_range; the host's backtrace is demangled either way).
 *
 * The definitions are weak, so that one copy is kept however many
 * translation units include this header, and a real implementation (a
 * libc++abi with exceptions, or the program's own) wins. They are left out
 * when the module is built with wasm exception handling
 * (-fwasm-exceptions: its libc++abi has them) and when ACLWASM_NO_CXXABI is
 * defined before including <acl/acl.h>.
 */
#ifndef ACLWASM_CXXABI_H_
#define ACLWASM_CXXABI_H_

#if defined(__cplusplus) && defined(__wasi__) && !defined(__wasm_exception_handling__) && !defined(ACLWASM_NO_CXXABI) && \
    defined(__has_include)
#if __has_include(<cxxabi.h>) && __has_include(<typeinfo>)

#include <cxxabi.h>
#include <stdio.h>
#include <stdlib.h>
#include <typeinfo>

namespace __cxxabiv1 {
extern "C" {

/* aclwasm_cxa_abort_ reports an exception that cannot be caught and aborts. */
__attribute__((weak, noreturn)) void aclwasm_cxa_abort_(const char *what, const std::type_info *tinfo)
{
    const char *mangled = tinfo != nullptr ? tinfo->name() : nullptr;
    char *demangled = nullptr;
#ifndef ACLWASM_CXXABI_MANGLED
    if (mangled != nullptr) {
        int status = -1;
        demangled = __cxa_demangle(mangled, nullptr, nullptr, &status);
        if (status != 0) {
            demangled = nullptr;
        }
    }
#endif
    if (mangled != nullptr) {
        fprintf(stderr, "aclwasm: C++ exception of type %s %s; the sandbox cannot unwind, so it aborts\n",
                demangled != nullptr ? demangled : mangled, what);
    } else {
        fprintf(stderr, "aclwasm: C++ exception %s; the sandbox cannot unwind, so it aborts\n", what);
    }
    abort();
}

/** Allocates the exception object a throw expression constructs; aborts when memory is out. */
__attribute__((weak)) void *__cxa_allocate_exception(size_t thrown_size) throw()
{
    void *p = malloc(thrown_size != 0 ? thrown_size : 1);
    if (p == nullptr) {
        fprintf(stderr, "aclwasm: out of memory allocating a C++ exception of %zu bytes\n", thrown_size);
        abort();
    }
    return p;
}

/** Frees an exception object that was allocated but never thrown. */
__attribute__((weak)) void __cxa_free_exception(void *thrown_exception) throw() { free(thrown_exception); }

/** Throws: reports the exception's type on stderr and aborts (nothing can catch it). */
__attribute__((weak, noreturn)) void __cxa_throw(void *thrown_exception, std::type_info *tinfo, void (*dest)(void *))
{
    (void)thrown_exception;
    (void)dest;
    aclwasm_cxa_abort_("thrown", tinfo);
}

/** Rethrows the exception being handled: none can be, so this aborts too. */
__attribute__((weak, noreturn)) void __cxa_rethrow() { aclwasm_cxa_abort_("rethrown", nullptr); }

/** Starts a catch block; unreachable, as no exception is ever caught. */
__attribute__((weak)) void *__cxa_begin_catch(void *exceptionObject) throw() { return exceptionObject; }

/** Ends a catch block; unreachable, as no exception is ever caught. */
__attribute__((weak)) void __cxa_end_catch() {}

/** The object a catch by value copies from; unreachable, as no exception is ever caught. */
__attribute__((weak)) void *__cxa_get_exception_ptr(void *exceptionObject) throw() { return exceptionObject; }

/** The type of the exception being handled: none ever is, so NULL. */
__attribute__((weak)) std::type_info *__cxa_current_exception_type() { return nullptr; }

} /* extern "C" */
} /* namespace __cxxabiv1 */

#endif /* __has_include(<cxxabi.h>) */
#endif

#endif /* ACLWASM_CXXABI_H_ */
