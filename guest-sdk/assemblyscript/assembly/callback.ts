// The dispatcher export of stream callbacks (ABI section 12). The host runs
// every callback that launchHostFunc or launchCallback queued by calling
// aclwasm_dispatch_callback(fn, userData) on the guest's own thread, inside
// one of its host calls. Only the entry file's exports are the module's:
// a guest that launches callbacks enables them by re-exporting this one,
//   export { aclwasm_dispatch_callback } from "@aclwasm/sdk/assembly/callback";
// (from inside this repository: "../assembly/callback"); the host refuses to
// load a module that launches callbacks without it.

/**
 * Calls the function at table index fn with userData. call_indirect checks
 * the table entry's type: an index that is not a Callback traps the guest.
 */
export function aclwasm_dispatch_callback(fn: u32, userData: u32): void {
  call_indirect<void>(fn, userData);
}
