/*
 * dlfcn.h: dynamic loading for wasm32-wasi guests of the aclwasm C/C++ SDK,
 * which has none: a wasm module is linked whole and the sandbox loads no
 * other code, so dlopen always fails and dlerror says why. Programs that
 * probe for an optional library (as native CANN programs do for plugins)
 * compile unchanged and take their "not found" path.
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

/* ACLWASM_DLERROR_ is the message of the last failure; aclwasm_dl_failed_
   says whether dlerror has one to report. Weak, so that every translation
   unit shares one. */
#define ACLWASM_DLERROR_ "dynamic loading is not available in the aclwasm sandbox: link the code into the module"
__attribute__((weak)) int aclwasm_dl_failed_;

/** Fails: nothing can be loaded. Returns NULL; dlerror says why. */
static inline void *dlopen(const char *file, int mode)
{
    (void)file;
    (void)mode;
    aclwasm_dl_failed_ = 1;
    return (void *)0;
}

/** Fails: no handle exists and the module's own symbols are not looked up by name. Returns NULL. */
static inline void *dlsym(void *handle, const char *name)
{
    (void)handle;
    (void)name;
    aclwasm_dl_failed_ = 1;
    return (void *)0;
}

/** Fails: no handle exists. Returns nonzero; dlerror says why. */
static inline int dlclose(void *handle)
{
    (void)handle;
    aclwasm_dl_failed_ = 1;
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
    return (char *)ACLWASM_DLERROR_;
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
