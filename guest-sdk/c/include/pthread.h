/*
 * pthread.h: POSIX threads for single-threaded wasm32-wasi guests of the
 * aclwasm C/C++ SDK. The sandbox runs a guest on one thread, so native
 * programs that guard their state with mutexes, run their initialization
 * with pthread_once or keep per-thread values in keys compile unchanged and
 * behave as they do with one thread:
 *
 * - pthread_self is the one thread; pthread_create fails with EAGAIN (the
 *   native answer when no thread can be made), so a program that falls back
 *   to doing the work itself keeps going; pthread_join of it gives EDEADLK.
 * - Mutexes lock and unlock. Locking one that is held, which would block
 *   forever with no other thread to unlock it, gives EDEADLK instead of
 *   hanging (a recursive mutex counts, as natively); trylock gives EBUSY,
 *   pthread_mutex_timedlock waits until its deadline and gives ETIMEDOUT.
 *   Spin locks alike.
 * - pthread_once runs its routine once; keys hold one value each.
 * - Read-write locks count readers and a writer; a lock that would block
 *   forever gives EDEADLK. Condition variables: signal and broadcast wake no
 *   one (no one waits); pthread_cond_timedwait waits until its deadline and
 *   gives ETIMEDOUT, pthread_cond_wait returns at once (a spurious wakeup,
 *   which POSIX allows: nothing else could change the predicate).
 * - pthread_exit exits the process with status 0, as POSIX says when the
 *   last thread exits.
 *
 * The types are wasi-libc's (sys/types.h), so code that names them elsewhere
 * agrees. This header stands in only where the C library has no <pthread.h>:
 * Debian 12's wasi-libc has none. When the compiler's wasi-libc ships one
 * (newer wasi-sdk releases, the wasm32-wasi-threads target), or when this is
 * not a wasi-libc build at all, the real header is used (#include_next).
 */
#if !defined(__wasi__) || !defined(__has_include) || __has_include(<wasi/../pthread.h>)
/* Not wasi-libc, or a wasi-libc with its own pthread.h (found next to its
   wasi/ directory): use the real one. */
#include_next <pthread.h>
#else

#ifndef ACLWASM_PTHREAD_H_
#define ACLWASM_PTHREAD_H_

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Constants with musl's values, so that code that stores them agrees. */
#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1
#define PTHREAD_MUTEX_NORMAL 0
#define PTHREAD_MUTEX_DEFAULT 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED 1
#define PTHREAD_ONCE_INIT 0
#define PTHREAD_KEYS_MAX 128
#define PTHREAD_DESTRUCTOR_ITERATIONS 4
#define PTHREAD_CANCEL_ENABLE 0
#define PTHREAD_CANCEL_DISABLE 1

#define PTHREAD_MUTEX_INITIALIZER {{{0}}}
#define PTHREAD_RWLOCK_INITIALIZER {{{0}}}
#define PTHREAD_COND_INITIALIZER {{{0}}}

/*
 * Where the state lives inside wasi-libc's opaque types (musl's layout,
 * ints in a union): a mutex keeps its lock count and its type; a rwlock its
 * readers and whether a writer holds it; a mutexattr its type; an attr its
 * detach state and stack size.
 */
#define ACLWASM_MUTEX_COUNT_(m) ((m)->__u.__i[0])
#define ACLWASM_MUTEX_TYPE_(m) ((m)->__u.__i[1])
#define ACLWASM_RW_READERS_(l) ((l)->__u.__i[0])
#define ACLWASM_RW_WRITER_(l) ((l)->__u.__i[1])
#define ACLWASM_ATTR_DETACH_(a) ((a)->__u.__i[0])
#define ACLWASM_ATTR_STACK_(a) ((a)->__u.__i[1])

/* The one thread's id: nonzero, so that code that tests for 0 sees a thread. */
#define ACLWASM_PTHREAD_SELF_ ((pthread_t)1)

/* ---- threads ---- */

/** Fails with EAGAIN: the sandbox runs one thread. *thread is left alone. */
static inline int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    (void)thread;
    (void)attr;
    (void)start;
    (void)arg;
    return EAGAIN;
}

/** The calling (the one) thread. */
static inline pthread_t pthread_self(void) { return ACLWASM_PTHREAD_SELF_; }

/** Nonzero when a and b are the same thread. */
static inline int pthread_equal(pthread_t a, pthread_t b) { return a == b; }

/** EDEADLK for the calling thread (it would wait for itself), ESRCH for any other. */
static inline int pthread_join(pthread_t thread, void **retval)
{
    (void)retval;
    return thread == ACLWASM_PTHREAD_SELF_ ? EDEADLK : ESRCH;
}

/** Succeeds for the calling thread (it is not joined anyway), ESRCH for any other. */
static inline int pthread_detach(pthread_t thread) { return thread == ACLWASM_PTHREAD_SELF_ ? 0 : ESRCH; }

/** Ends the only thread, so the process: exit(0), as POSIX says for the last thread. */
__attribute__((noreturn)) static inline void pthread_exit(void *retval)
{
    (void)retval;
    exit(0);
}

/** Accepted for the calling thread, whose cancellation never acts (no cancellation points); ESRCH for any other. */
static inline int pthread_cancel(pthread_t thread) { return thread == ACLWASM_PTHREAD_SELF_ ? 0 : ESRCH; }

/** Records the state; nothing is ever cancelled. */
static inline int pthread_setcancelstate(int state, int *oldstate)
{
    if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE) {
        return EINVAL;
    }
    if (oldstate != NULL) {
        *oldstate = PTHREAD_CANCEL_ENABLE;
    }
    return 0;
}

/** Gives the processor up: sched_yield. */
static inline int pthread_yield(void) { return sched_yield(); }

/* ---- thread attributes (kept, never used: no thread is created) ---- */

/** Sets the defaults: joinable. */
static inline int pthread_attr_init(pthread_attr_t *attr)
{
    __builtin_memset(attr, 0, sizeof *attr);
    return 0;
}

/** Nothing to release. */
static inline int pthread_attr_destroy(pthread_attr_t *attr)
{
    (void)attr;
    return 0;
}

/** Keeps PTHREAD_CREATE_JOINABLE or PTHREAD_CREATE_DETACHED; EINVAL otherwise. */
static inline int pthread_attr_setdetachstate(pthread_attr_t *attr, int state)
{
    if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED) {
        return EINVAL;
    }
    ACLWASM_ATTR_DETACH_(attr) = state;
    return 0;
}

/** The detach state kept. */
static inline int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state)
{
    *state = ACLWASM_ATTR_DETACH_(attr);
    return 0;
}

/** Keeps the stack size. */
static inline int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size)
{
    ACLWASM_ATTR_STACK_(attr) = (int)size;
    return 0;
}

/** The stack size kept. */
static inline int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size)
{
    *size = (size_t)(unsigned)ACLWASM_ATTR_STACK_(attr);
    return 0;
}

/* ---- mutexes ---- */

/** The default: PTHREAD_MUTEX_NORMAL. */
static inline int pthread_mutexattr_init(pthread_mutexattr_t *attr)
{
    attr->__attr = PTHREAD_MUTEX_NORMAL;
    return 0;
}

/** Nothing to release. */
static inline int pthread_mutexattr_destroy(pthread_mutexattr_t *attr)
{
    (void)attr;
    return 0;
}

/** PTHREAD_MUTEX_NORMAL, _RECURSIVE or _ERRORCHECK; EINVAL otherwise. */
static inline int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int type)
{
    if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_RECURSIVE && type != PTHREAD_MUTEX_ERRORCHECK) {
        return EINVAL;
    }
    attr->__attr = (unsigned)type;
    return 0;
}

/** The type kept. */
static inline int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *type)
{
    *type = (int)attr->__attr;
    return 0;
}

/** Accepts either: with one thread, process sharing changes nothing. */
static inline int pthread_mutexattr_setpshared(pthread_mutexattr_t *attr, int pshared)
{
    (void)attr;
    return pshared == PTHREAD_PROCESS_PRIVATE || pshared == PTHREAD_PROCESS_SHARED ? 0 : EINVAL;
}

/** An unlocked mutex of attr's type (NULL: PTHREAD_MUTEX_NORMAL). */
static inline int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    __builtin_memset(mutex, 0, sizeof *mutex);
    ACLWASM_MUTEX_TYPE_(mutex) = attr != NULL ? (int)attr->__attr : PTHREAD_MUTEX_NORMAL;
    return 0;
}

/** EBUSY for a locked mutex, as natively for the error-checking kinds. */
static inline int pthread_mutex_destroy(pthread_mutex_t *mutex) { return ACLWASM_MUTEX_COUNT_(mutex) != 0 ? EBUSY : 0; }

/** Locks: a recursive mutex counts; locking a held one otherwise gives EBUSY. */
static inline int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    if (ACLWASM_MUTEX_COUNT_(mutex) != 0 && ACLWASM_MUTEX_TYPE_(mutex) != PTHREAD_MUTEX_RECURSIVE) {
        return EBUSY;
    }
    ACLWASM_MUTEX_COUNT_(mutex)++;
    return 0;
}

/**
 * Locks: a recursive mutex counts; locking a held one otherwise gives
 * EDEADLK (the one thread holds it, so waiting would never end).
 */
static inline int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    return pthread_mutex_trylock(mutex) == EBUSY ? EDEADLK : 0;
}

/** Unlocks (one level of a recursive mutex); EPERM when it is not locked. */
static inline int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    if (ACLWASM_MUTEX_COUNT_(mutex) == 0) {
        return EPERM;
    }
    ACLWASM_MUTEX_COUNT_(mutex)--;
    return 0;
}

/* aclwasmSleepUntil_ sleeps until clock passes abstime and gives ETIMEDOUT,
   with relative sleeps: WASI hosts need not support absolute ones (wazero
   gives ENOTSUP). EINVAL for a bad abstime. */
static inline int aclwasmSleepUntil_(clockid_t clock, const struct timespec *abstime)
{
    if (abstime == NULL || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L) {
        return EINVAL;
    }
    for (;;) {
        struct timespec now, left;
        if (clock_gettime(clock, &now) != 0) {
            return errno;
        }
        if (now.tv_sec > abstime->tv_sec || (now.tv_sec == abstime->tv_sec && now.tv_nsec >= abstime->tv_nsec)) {
            return ETIMEDOUT;
        }
        left.tv_sec = abstime->tv_sec - now.tv_sec;
        left.tv_nsec = abstime->tv_nsec - now.tv_nsec;
        if (left.tv_nsec < 0) {
            left.tv_sec--;
            left.tv_nsec += 1000000000L;
        }
        int err = clock_nanosleep(CLOCK_MONOTONIC, 0, &left, NULL);
        if (err != 0 && err != EINTR) {
            return err;
        }
    }
}

/**
 * Locks as pthread_mutex_lock; a held mutex (no other thread could release
 * it) is waited for until abstime (CLOCK_REALTIME), then ETIMEDOUT.
 */
static inline int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
{
    if (pthread_mutex_trylock(mutex) == 0) {
        return 0;
    }
    return aclwasmSleepUntil_(CLOCK_REALTIME, abstime);
}

/* ---- spin locks ---- */

/** An unlocked spin lock. */
static inline int pthread_spin_init(pthread_spinlock_t *lock, int pshared)
{
    (void)pshared;
    *lock = 0;
    return 0;
}

/** Nothing to release. */
static inline int pthread_spin_destroy(pthread_spinlock_t *lock)
{
    (void)lock;
    return 0;
}

/** Takes the lock; EBUSY when it is held. */
static inline int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    if (*lock != 0) {
        return EBUSY;
    }
    *lock = 1;
    return 0;
}

/** Takes the lock; EDEADLK when it is held (spinning would never end). */
static inline int pthread_spin_lock(pthread_spinlock_t *lock) { return pthread_spin_trylock(lock) == 0 ? 0 : EDEADLK; }

/** Releases the lock. */
static inline int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    *lock = 0;
    return 0;
}

/** Accepted: the sandbox never forks, so the handlers never run. */
static inline int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare;
    (void)parent;
    (void)child;
    return 0;
}

/* ---- once ---- */

/**
 * Runs routine the first time it is called with once_control, and never
 * again (also not from inside routine, which would deadlock natively).
 */
static inline int pthread_once(pthread_once_t *once_control, void (*routine)(void))
{
    if (*once_control == PTHREAD_ONCE_INIT) {
        *once_control = 1;
        routine();
    }
    return 0;
}

/* ---- keys ---- */

/* The keys' values and whether each is in use: weak, so that every
   translation unit shares one table. Destructors never run: the one thread
   only ends with the process. */
__attribute__((weak)) void *aclwasm_pthread_values_[PTHREAD_KEYS_MAX];
__attribute__((weak)) unsigned char aclwasm_pthread_used_[PTHREAD_KEYS_MAX];

/** A new key whose value is NULL; EAGAIN when all PTHREAD_KEYS_MAX are in use. */
static inline int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    (void)destructor;
    for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
        if (!aclwasm_pthread_used_[k]) {
            aclwasm_pthread_used_[k] = 1;
            aclwasm_pthread_values_[k] = NULL;
            *key = k;
            return 0;
        }
    }
    return EAGAIN;
}

/** Frees a key; EINVAL for one not in use. */
static inline int pthread_key_delete(pthread_key_t key)
{
    if (key >= PTHREAD_KEYS_MAX || !aclwasm_pthread_used_[key]) {
        return EINVAL;
    }
    aclwasm_pthread_used_[key] = 0;
    return 0;
}

/** The key's value (NULL for a key not in use). */
static inline void *pthread_getspecific(pthread_key_t key)
{
    return key < PTHREAD_KEYS_MAX && aclwasm_pthread_used_[key] ? aclwasm_pthread_values_[key] : NULL;
}

/** Sets the key's value; EINVAL for a key not in use. */
static inline int pthread_setspecific(pthread_key_t key, const void *value)
{
    if (key >= PTHREAD_KEYS_MAX || !aclwasm_pthread_used_[key]) {
        return EINVAL;
    }
    aclwasm_pthread_values_[key] = (void *)value;
    return 0;
}

/* ---- read-write locks ---- */

/** An unlocked lock. */
static inline int pthread_rwlock_init(pthread_rwlock_t *lock, const pthread_rwlockattr_t *attr)
{
    (void)attr;
    __builtin_memset(lock, 0, sizeof *lock);
    return 0;
}

/** EBUSY for a held lock. */
static inline int pthread_rwlock_destroy(pthread_rwlock_t *lock)
{
    return ACLWASM_RW_READERS_(lock) != 0 || ACLWASM_RW_WRITER_(lock) ? EBUSY : 0;
}

/** A read lock; EBUSY while the writer holds it. */
static inline int pthread_rwlock_tryrdlock(pthread_rwlock_t *lock)
{
    if (ACLWASM_RW_WRITER_(lock)) {
        return EBUSY;
    }
    ACLWASM_RW_READERS_(lock)++;
    return 0;
}

/** A read lock; EDEADLK while this (the one) thread holds the write lock. */
static inline int pthread_rwlock_rdlock(pthread_rwlock_t *lock)
{
    return pthread_rwlock_tryrdlock(lock) == EBUSY ? EDEADLK : 0;
}

/** The write lock; EBUSY while anyone holds the lock. */
static inline int pthread_rwlock_trywrlock(pthread_rwlock_t *lock)
{
    if (ACLWASM_RW_WRITER_(lock) || ACLWASM_RW_READERS_(lock) != 0) {
        return EBUSY;
    }
    ACLWASM_RW_WRITER_(lock) = 1;
    return 0;
}

/** The write lock; EDEADLK while this (the one) thread holds the lock. */
static inline int pthread_rwlock_wrlock(pthread_rwlock_t *lock)
{
    return pthread_rwlock_trywrlock(lock) == EBUSY ? EDEADLK : 0;
}

/** Releases the write lock or one read lock; EPERM when neither is held. */
static inline int pthread_rwlock_unlock(pthread_rwlock_t *lock)
{
    if (ACLWASM_RW_WRITER_(lock)) {
        ACLWASM_RW_WRITER_(lock) = 0;
        return 0;
    }
    if (ACLWASM_RW_READERS_(lock) == 0) {
        return EPERM;
    }
    ACLWASM_RW_READERS_(lock)--;
    return 0;
}

/* ---- condition variables ---- */

/** Nothing to set up. */
static inline int pthread_condattr_init(pthread_condattr_t *attr)
{
    attr->__attr = 0;
    return 0;
}

/** Nothing to release. */
static inline int pthread_condattr_destroy(pthread_condattr_t *attr)
{
    (void)attr;
    return 0;
}

/** Keeps the clock (CLOCK_REALTIME or CLOCK_MONOTONIC) that timed waits use. */
static inline int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock)
{
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) {
        return EINVAL;
    }
    attr->__attr = clock == CLOCK_MONOTONIC ? 1u : 0u;
    return 0;
}

/** A condition variable whose timed waits use attr's clock (NULL: CLOCK_REALTIME). */
static inline int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr)
{
    __builtin_memset(cond, 0, sizeof *cond);
    cond->__u.__i[0] = attr != NULL ? (int)attr->__attr : 0;
    return 0;
}

/** Nothing to release. */
static inline int pthread_cond_destroy(pthread_cond_t *cond)
{
    (void)cond;
    return 0;
}

/** Wakes no one: no other thread can wait. */
static inline int pthread_cond_signal(pthread_cond_t *cond)
{
    (void)cond;
    return 0;
}

/** Wakes no one: no other thread can wait. */
static inline int pthread_cond_broadcast(pthread_cond_t *cond)
{
    (void)cond;
    return 0;
}

/**
 * Returns at once, a spurious wakeup (POSIX allows one): no other thread
 * could signal. EPERM when the caller does not hold mutex.
 */
static inline int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    (void)cond;
    return ACLWASM_MUTEX_COUNT_(mutex) == 0 ? EPERM : 0;
}

/**
 * Waits until abstime on the condition variable's clock, then gives
 * ETIMEDOUT: no other thread could signal before it. EPERM when the caller
 * does not hold mutex; EINVAL for a bad abstime.
 */
static inline int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime)
{
    if (ACLWASM_MUTEX_COUNT_(mutex) == 0) {
        return EPERM;
    }
    return aclwasmSleepUntil_(cond->__u.__i[0] == 1 ? CLOCK_MONOTONIC : CLOCK_REALTIME, abstime);
}

#ifdef __cplusplus
}
#endif

#endif /* ACLWASM_PTHREAD_H_ */
#endif /* wasi-libc without pthread.h */
