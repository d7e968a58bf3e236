/*
 * dispatch.c: the stream callback dispatcher (guest ABI section 12), the one
 * member of libaclwasm.a.
 *
 * The host runs every stream callback through the export
 * aclwasm_dispatch_callback(fn, userData), on the module's own thread. It is
 * here, in a static library, rather than in a header because an exported
 * function costs every module that defines it (clang emits each export_name
 * function and wasm-ld keeps each export), and a header cannot tell which
 * modules launch a callback. The SDK functions that launch one
 * (aclrtLaunchHostFunc, aclrtLaunchCallback: ACLWASM_LINK_DISPATCHER_ in
 * acl/acl_base.h) reference this symbol, so wasm-ld takes this member from
 * the archive into exactly those modules.
 *
 * Weak, so that a program that also defines it, or links the archive whole,
 * keeps one copy. Profile-independent: it calls no import, so one archive
 * serves the native layout and the wide profile, with wasi-libc or
 * freestanding.
 */
#include <stdint.h>

#include "acl/acl_base.h"

__attribute__((export_name("aclwasm_dispatch_callback"), weak))
void aclwasm_dispatch_callback(uint32_t fn, void *userData)
{
    /* call_indirect: a table index that is not a function of this type traps
     * the guest, never the host. */
    ((aclrtHostFunc)(uintptr_t)fn)(userData);
}
