/* signal.c: a native-style C program that includes <signal.h> for its type
 * and constants, as native programs do to stop a loop on SIGINT, built with
 * the native flags only. With -DRAISE (and -lwasi-emulated-signal, which
 * the emulated functions need) it also installs a handler and raises the
 * signal inside the guest. */
#include <signal.h>
#include <stdio.h>

#include "acl/acl.h"

static volatile sig_atomic_t stop;

#ifdef RAISE
static void on_signal(int sig) { stop = sig; }
#endif

int main(void)
{
#ifdef RAISE
    if (signal(SIGINT, on_signal) == SIG_ERR || raise(SIGINT) != 0) {
        printf("signal or raise failed\n");
        return 1;
    }
    printf("raised: stop=%d\n", (int)stop);
#endif
    uint32_t count = 0;
    aclError ret = aclrtGetDeviceCount(&count);
    if (ret != ACL_SUCCESS) {
        printf("aclrtGetDeviceCount: %s (%d)\n", aclErrorName(ret), ret);
        return 1;
    }
    printf("signal: OK (SIGINT=%d SIGTERM=%d, stop=%d, %u device(s))\n", SIGINT, SIGTERM, (int)stop, (unsigned)count);
    return 0;
}
