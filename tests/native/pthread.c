/* pthread.c: a native-style C program that guards its state the way
 * multi-threaded native code does (a mutex, pthread_once, a key, a rwlock, a
 * condition variable), tries to start a worker thread, and does the work
 * itself when pthread_create fails, as the sandbox's one thread makes it. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int inits;
static size_t copied;

static void init(void) { inits++; }

#define EXPECT(cond)                                                      \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("pthread: %s:%d: %s is false\n", __FILE__, __LINE__, #cond); \
            return 1;                                                     \
        }                                                                 \
    } while (0)

static void *copy_job(void *arg)
{
    static unsigned char in[512], out[512];
    memset(in, *(int *)arg, sizeof in);
    void *dev = NULL;
    pthread_once(&once, init);
    if (aclrtMalloc(&dev, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemcpy(dev, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
        aclrtMemcpy(out, sizeof out, dev, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS ||
        aclrtFree(dev) != ACL_SUCCESS || memcmp(in, out, sizeof in) != 0) {
        return (void *)"copy failed";
    }
    pthread_mutex_lock(&lock);
    copied += sizeof in;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);

    /* A worker: the sandbox has one thread, so the program runs the job itself. */
    pthread_t worker;
    int arg = 0x42;
    int err = pthread_create(&worker, NULL, copy_job, &arg);
    EXPECT(err == EAGAIN);
    printf("pthread_create: %s\n", strerror(err));
    EXPECT(copy_job(&arg) == NULL);
    EXPECT(copy_job(&arg) == NULL);
    EXPECT(inits == 1 && copied == 1024);

    /* The one thread. */
    pthread_t self = pthread_self();
    EXPECT(pthread_equal(self, pthread_self()));
    EXPECT(pthread_join(self, NULL) == EDEADLK);

    /* Mutexes: a held normal mutex cannot be taken again; a recursive one counts. */
    EXPECT(pthread_mutex_lock(&lock) == 0);
    EXPECT(pthread_mutex_trylock(&lock) == EBUSY);
    EXPECT(pthread_mutex_lock(&lock) == EDEADLK);
    EXPECT(pthread_mutex_unlock(&lock) == 0);
    EXPECT(pthread_mutex_unlock(&lock) == EPERM);
    pthread_mutexattr_t ma;
    pthread_mutex_t rec;
    int type = -1;
    EXPECT(pthread_mutexattr_init(&ma) == 0 && pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE) == 0);
    EXPECT(pthread_mutexattr_gettype(&ma, &type) == 0 && type == PTHREAD_MUTEX_RECURSIVE);
    EXPECT(pthread_mutex_init(&rec, &ma) == 0 && pthread_mutexattr_destroy(&ma) == 0);
    EXPECT(pthread_mutex_lock(&rec) == 0 && pthread_mutex_lock(&rec) == 0 && pthread_mutex_trylock(&rec) == 0);
    EXPECT(pthread_mutex_destroy(&rec) == EBUSY);
    EXPECT(pthread_mutex_unlock(&rec) == 0 && pthread_mutex_unlock(&rec) == 0 && pthread_mutex_unlock(&rec) == 0);
    EXPECT(pthread_mutex_destroy(&rec) == 0);

    /* A key holds the thread's value. */
    pthread_key_t key;
    EXPECT(pthread_key_create(&key, NULL) == 0);
    EXPECT(pthread_getspecific(key) == NULL);
    EXPECT(pthread_setspecific(key, &arg) == 0 && pthread_getspecific(key) == &arg);
    EXPECT(pthread_key_delete(key) == 0 && pthread_setspecific(key, &arg) == EINVAL);

    /* Read-write locks: readers share, a writer excludes. */
    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    EXPECT(pthread_rwlock_rdlock(&rw) == 0 && pthread_rwlock_rdlock(&rw) == 0);
    EXPECT(pthread_rwlock_trywrlock(&rw) == EBUSY && pthread_rwlock_wrlock(&rw) == EDEADLK);
    EXPECT(pthread_rwlock_unlock(&rw) == 0 && pthread_rwlock_unlock(&rw) == 0);
    EXPECT(pthread_rwlock_wrlock(&rw) == 0 && pthread_rwlock_tryrdlock(&rw) == EBUSY);
    EXPECT(pthread_rwlock_unlock(&rw) == 0 && pthread_rwlock_unlock(&rw) == EPERM);
    EXPECT(pthread_rwlock_destroy(&rw) == 0);

    /* A condition variable: no one can signal, so a timed wait times out. */
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    struct timespec deadline;
    EXPECT(clock_gettime(CLOCK_REALTIME, &deadline) == 0);
    deadline.tv_nsec += 20 * 1000 * 1000;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    EXPECT(pthread_cond_signal(&cond) == 0 && pthread_cond_broadcast(&cond) == 0);
    EXPECT(pthread_cond_timedwait(&cond, &lock, &deadline) == EPERM);
    EXPECT(pthread_mutex_lock(&lock) == 0);
    EXPECT(pthread_cond_timedwait(&cond, &lock, &deadline) == ETIMEDOUT);
    EXPECT(pthread_cond_wait(&cond, &lock) == 0);
    EXPECT(pthread_mutex_unlock(&lock) == 0);
    EXPECT(pthread_cond_destroy(&cond) == 0);

    /* A timed lock of a held mutex times out; a spin lock cannot be taken twice. */
    EXPECT(pthread_mutex_lock(&lock) == 0);
    EXPECT(pthread_mutex_timedlock(&lock, &deadline) == ETIMEDOUT);
    EXPECT(pthread_mutex_unlock(&lock) == 0);
    EXPECT(pthread_mutex_timedlock(&lock, &deadline) == 0 && pthread_mutex_unlock(&lock) == 0);
    pthread_spinlock_t spin;
    EXPECT(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    EXPECT(pthread_spin_lock(&spin) == 0 && pthread_spin_trylock(&spin) == EBUSY && pthread_spin_lock(&spin) == EDEADLK);
    EXPECT(pthread_spin_unlock(&spin) == 0 && pthread_spin_trylock(&spin) == 0 && pthread_spin_unlock(&spin) == 0);
    EXPECT(pthread_spin_destroy(&spin) == 0);

    printf("pthread: OK (one thread, %zu bytes copied)\n", copied);
    return 0;
}
