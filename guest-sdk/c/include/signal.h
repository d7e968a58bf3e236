/*
 * signal.h: lets wasm32-wasi guests of the aclwasm C/C++ SDK include
 * <signal.h> (and <csignal>) as native programs do, with no flag.
 *
 * wasi-libc's own <signal.h> stops the build ("wasm lacks signal support")
 * unless _WASI_EMULATED_SIGNAL is defined, because WASI delivers no
 * signals. Most programs that include it only name its types and constants
 * (sig_atomic_t, SIGINT) or install a handler that never fires in the
 * sandbox, so this header defines the macro and includes the C library's.
 * A program that calls signal(), raise() or the other emulated functions
 * links them with -lwasi-emulated-signal, as wasi-libc says; a program that
 * does not needs nothing more (wasm-ld fails, naming the function, when one
 * is missing). Nothing outside the guest can signal it: raise() runs the
 * handler inside the guest.
 *
 * Outside wasi-libc (no __wasi__) this header only includes the next one.
 */
#if defined(__wasi__) && !defined(_WASI_EMULATED_SIGNAL)
#define _WASI_EMULATED_SIGNAL 1
#endif
#include_next <signal.h>
