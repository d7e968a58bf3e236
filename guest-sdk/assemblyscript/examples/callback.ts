// Stream callbacks through the SDK: a host function that a synchronize runs,
// and a report callback on a subscribed stream that processReport runs. The
// re-export below is what enables callbacks: the host runs them through it.
// It logs "as callbacks: OK (sum 12)" at INFO (aclAppLog); a failed check
// traps (unreachable).
// tests/native_callback_test.go runs it.
//
// Build (from guest-sdk/assemblyscript, after npm ci):
//   npx asc examples/callback.ts -O3 --runtime stub --use abort= --exportStart _start -o callback.wasm
import {
  setDevice, Stream, launchHostFunc, launchCallback, subscribeReport, processReport,
  unsubscribeReport, CallbackBlockType, appLog, LogLevel, ACL_SUCCESS,
} from "../assembly";

export { aclwasm_dispatch_callback } from "../assembly/callback";

let sum: u32 = 0;

function add(userData: u32): void {
  sum += userData;
}

function must(ok: bool): void {
  if (!ok) unreachable();
}

must(setDevice(0) == ACL_SUCCESS);
const a = Stream.create();
const b = Stream.create();
must(a !== null && b !== null);
const sa = changetype<Stream>(a);
const sb = changetype<Stream>(b);
must(launchHostFunc(sa, add, 5) == ACL_SUCCESS);
must(sa.synchronize() == ACL_SUCCESS);
must(sum == 5);
must(subscribeReport(0, sb) == ACL_SUCCESS);
must(launchCallback(add, 7, CallbackBlockType.BLOCK, sb) == ACL_SUCCESS);
while (sum < 12) must(processReport(-1) == ACL_SUCCESS);
must(launchHostFunc(sb, add, 100) != ACL_SUCCESS); // a subscribed stream takes no host function
must(unsubscribeReport(0, sb) == ACL_SUCCESS);
must(sa.destroy() == ACL_SUCCESS && sb.destroy() == ACL_SUCCESS);
must(sum == 12);
must(appLog(LogLevel.INFO, "as callbacks: OK (sum " + sum.toString() + ")") == ACL_SUCCESS);
