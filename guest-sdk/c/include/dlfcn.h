/*
 * dlfcn.h: dynamic loading for wasm32-wasi guests of the aclwasm C/C++ SDK,
 * which has none: a wasm module is linked whole and the sandbox loads no
 * other code. What native programs do with it still works:
 *
 * - Looking the runtime's functions up by name: dlopen(NULL, ...) and
 *   dlopen of the native runtime's libraries (libascendcl.so,
 *   libacl_dvpp.so, with or without a directory) give a handle, on which
 *   (or on RTLD_DEFAULT and RTLD_NEXT) dlsym finds every function of the SDK
 *   by its native name (acl/aclwasm_symbols.h); dlclose of it succeeds.
 * - Probing for an optional library: dlopen of any other file fails, and
 *   dlerror says why, so the program takes its "not found" path.
 * - dlsym of any other name (the program's own functions included) fails,
 *   and dlerror names it.
 *
 * This header stands in only where the C library has no <dlfcn.h> of its
 * own: Debian 12's wasi-libc has none. When the compiler's wasi-libc ships
 * one (newer wasi-sdk releases), or when this is not a wasi-libc build at
 * all, the real header is used instead (#include_next).
 */
#if !defined(__wasi__) || !defined(__has_include) || __has_include(<wasi/../dlfcn.h>)
/* Not wasi-libc, or a wasi-libc with its own dlfcn.h (found next to its
   wasi/ directory): use the real one. */
#include_next <dlfcn.h>
#else

#ifndef ACLWASM_DLFCN_H_
#define ACLWASM_DLFCN_H_

#include "acl/aclwasm_symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mode flags of dlopen, with glibc's and musl's values. */
#define RTLD_LAZY 1
#define RTLD_NOW 2
#define RTLD_NOLOAD 4
#define RTLD_NODELETE 4096
#define RTLD_GLOBAL 256
#define RTLD_LOCAL 0

/* The pseudo-handles of dlsym, as musl defines them. */
#define RTLD_NEXT ((void *)-1)
#define RTLD_DEFAULT ((void *)0)

/* ACLWASM_DLERROR_ is the message of a failed dlopen; aclwasm_dl_msg_
   holds the message of the last failure and aclwasm_dl_failed_ says whether
   dlerror has one to report; aclwasm_dl_self_'s address is the SDK's handle.
   Weak, so that every translation unit shares one. */
#define ACLWASM_DLERROR_ "dynamic loading is not available in the aclwasm sandbox: link the code into the module"
#define ACLWASM_DLMSG_SIZE_ 192
__attribute__((weak)) int aclwasm_dl_failed_;
__attribute__((weak)) char aclwasm_dl_msg_[ACLWASM_DLMSG_SIZE_];
__attribute__((weak)) char aclwasm_dl_self_;

/* aclwasm_dl_fail_ records the failure "a" followed by b and c (either may
   be NULL), cut to the buffer. */
static inline void aclwasm_dl_fail_(const char *a, const char *b, const char *c)
{
    const char *parts[3] = {a, b, c};
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        for (const char *p = parts[i]; p != (const char *)0 && *p != 0 && n < ACLWASM_DLMSG_SIZE_ - 1; p++) {
            aclwasm_dl_msg_[n++] = *p;
        }
    }
    aclwasm_dl_msg_[n] = 0;
    aclwasm_dl_failed_ = 1;
}

/* aclwasm_dl_sdk_ reports whether file names one of the native runtime's
   libraries, whose functions the SDK provides: its last path element is
   libascendcl.so or libacl_dvpp.so. */
static inline int aclwasm_dl_sdk_(const char *file)
{
    static const char *const libs[] = {"libascendcl.so", "libacl_dvpp.so"};
    const char *base = file;
    for (const char *p = file; *p != 0; p++) {
        if (*p == '/') {
            base = p + 1;
        }
    }
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        const char *a = base, *b = libs[i];
        while (*a != 0 && *a == *b) {
            a++;
            b++;
        }
        if (*a == 0 && *b == 0) {
            return 1;
        }
    }
    return 0;
}

/**
 * Returns the SDK's handle for NULL (the program itself) and for the native
 * runtime's libraries; fails for any other file, returning NULL (dlerror
 * says why): nothing can be loaded.
 */
static inline void *dlopen(const char *file, int mode)
{
    (void)mode;
    if (file == (const char *)0 || aclwasm_dl_sdk_(file)) {
        return (void *)&aclwasm_dl_self_;
    }
    aclwasm_dl_fail_(ACLWASM_DLERROR_, (const char *)0, (const char *)0);
    return (void *)0;
}

/**
 * Returns the SDK function called name when handle is the SDK's (or
 * RTLD_DEFAULT or RTLD_NEXT); otherwise returns NULL, and dlerror names
 * what it did not find.
 */
static inline void *dlsym(void *__restrict handle, const char *__restrict name)
{
    if (handle != (void *)0 && handle != RTLD_NEXT && handle != (void *)&aclwasm_dl_self_) {
        aclwasm_dl_fail_("dlsym: invalid handle: only dlopen(NULL, ...) and the native runtime's libraries have one in the aclwasm sandbox", (const char *)0, (const char *)0);
        return (void *)0;
    }
    void *fn = name != (const char *)0 ? aclwasm_symbol_(name) : (void *)0;
    if (fn == (void *)0) {
        aclwasm_dl_fail_("dlsym: ", name != (const char *)0 ? name : "(null)",
                         ": undefined symbol: the aclwasm sandbox looks up only the SDK's own functions by name");
    }
    return fn;
}

/** Succeeds for the SDK's handle; fails for any other, returning nonzero (dlerror says why). */
static inline int dlclose(void *handle)
{
    if (handle == (void *)&aclwasm_dl_self_) {
        return 0;
    }
    aclwasm_dl_fail_("dlclose: invalid handle", (const char *)0, (const char *)0);
    return -1;
}

/**
 * Returns the message of the most recent failure of dlopen, dlsym or
 * dlclose, and NULL when none failed since the last call, as POSIX says.
 */
static inline char *dlerror(void)
{
    if (!aclwasm_dl_failed_) {
        return (char *)0;
    }
    aclwasm_dl_failed_ = 0;
    return aclwasm_dl_msg_;
}

/** What dladdr fills in (glibc's and musl's layout). */
typedef struct {
    const char *dli_fname;
    void *dli_fbase;
    const char *dli_sname;
    void *dli_saddr;
} Dl_info;

/** Finds nothing: there is no shared object to name. Returns 0. */
static inline int dladdr(const void *addr, Dl_info *info)
{
    (void)addr;
    (void)info;
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_DLFCN_H_ */
#endif /* wasi-libc without dlfcn.h */
