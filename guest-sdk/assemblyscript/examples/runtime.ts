// The runtime functions beyond copies through the SDK, checked by the guest itself: the
// run mode, contexts, 32-bit memsets, event resets, a stream's
// stop-on-failure mode and logging through aclAppLog (one record per
// level). A failed check logs at ERROR and traps (unreachable).
// tests/sdk_runtime_test.go runs it and reads the log records.
//
// Build (from guest-sdk/assemblyscript, after npm ci):
//   npx asc examples/runtime.ts -O3 --runtime stub --use abort= --exportStart _start -o runtime.wasm
import {
  appLog, LogLevel, runMode, RunMode, setDevice, Context, DeviceBuffer, Stream, Event,
  StreamFailureMode, memsetD32, memcpyAsyncWithOffset, lastError, AclError, MemcpyKind,
  ACL_SUCCESS, ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
} from "../assembly";

const FILE = "examples/runtime.ts";

function check(ok: bool, what: string): void {
  if (!ok) {
    appLog(LogLevel.ERROR, "check failed: " + what, "check", FILE, 0);
    unreachable();
  }
}

function must(code: i32, what: string): void {
  if (code != ACL_SUCCESS) {
    const e = lastError();
    check(false, what + ": " + (e === null ? code.toString() : changetype<AclError>(e).toString()));
  }
}

function allWords(b: Uint8Array, n: i32, v: u32): bool {
  for (let i = 0; i < n; i += 4) {
    if (load<u32>(b.dataStart + <usize>i) != v) return false;
  }
  return true;
}

must(appLog(LogLevel.DEBUG, "starting", "main", FILE, 1), "appLog");
const mode = runMode();
check(mode == RunMode.HOST, "run mode ACL_HOST");

// Contexts: setDevice makes the default context current; a created context
// is current at once, with a default stream of its own.
must(setDevice(0), "setDevice");
const d0 = Context.current();
check(d0 !== null, "a default context");
const def = changetype<Context>(d0);
const c = Context.create(0);
check(c !== null, "Context.create");
const ctx = changetype<Context>(c);
const cur = Context.current();
check(cur !== null && changetype<Context>(cur).handle == ctx.handle && ctx.handle != def.handle, "the created context is current");

// 32-bit memsets, synchronous and queued.
const bb = DeviceBuffer.alloc(66);
check(bb !== null, "alloc");
const buf = changetype<DeviceBuffer>(bb);
const back = new Uint8Array(66);
must(buf.fill(0xee), "fill");
must(buf.fillU32(0xdeadbeef), "fillU32");
must(buf.read(0, back), "read");
check(allWords(back, 64, 0xdeadbeef) && back[64] == 0xee && back[65] == 0xee, "fillU32 sets the whole words, not the tail");
const ss = Stream.create();
check(ss !== null, "Stream.create");
const s = changetype<Stream>(ss);
must(buf.fillU32Async(0x01020304, s), "fillU32Async");
must(s.synchronize(), "synchronize");
must(buf.read(0, back), "read");
check(allWords(back, 64, 0x01020304), "fillU32Async");
must(appLog(LogLevel.INFO, "32-bit memsets ok", "main", FILE, 2), "appLog");
check(memsetD32(buf.ptr, 64, 0, 17) == ACL_ERROR_INVALID_PARAM, "17 words in 64 bytes give ACL_ERROR_INVALID_PARAM");
must(appLog(LogLevel.WARNING, "expected: memsetD32 of 17 words in 64 bytes failed", "main", FILE, 3), "appLog");

// An event reset keeps its record's status, as natively: it reads as
// completed, not as never recorded.
const fe = Event.create();
check(fe !== null, "Event.create");
const fresh = changetype<Event>(fe);
const never = fresh.query();
const ee = Event.create();
check(ee !== null, "Event.create");
const ev = changetype<Event>(ee);
must(ev.record(s), "record");
must(s.synchronize(), "synchronize");
check(ev.query() != never, "a completed record");
must(ev.reset(s), "reset");
must(s.synchronize(), "synchronize");
check(ev.query() != never, "a reset event keeps its record's status");

// Stop on failure: an offset copy whose slots hold NULL fails when it runs;
// the memset queued after it then has no effect, and the synchronize
// reports the failure.
const s2s = Stream.create();
check(s2s !== null, "Stream.create");
const s2 = changetype<Stream>(s2s);
must(s2.setFailureMode(StreamFailureMode.STOP_ON_FAILURE), "setFailureMode");
const sl = DeviceBuffer.alloc(16);
const dd = DeviceBuffer.alloc(64);
check(sl !== null && dd !== null, "alloc");
const slots = changetype<DeviceBuffer>(sl);
const dst = changetype<DeviceBuffer>(dd);
must(slots.fill(0), "fill");
must(dst.fill(0), "fill");
must(memcpyAsyncWithOffset(slots.ptr, 64, 0, slots.ptr + 8, 64, 0, MemcpyKind.INNER_DEVICE_TO_DEVICE, s2), "memcpyAsyncWithOffset");
must(dst.fillAsync(7, s2), "fillAsync");
check(s2.synchronize() != ACL_SUCCESS, "the failed copy's error at synchronize");
const got = new Uint8Array(64);
must(dst.read(0, got), "read");
for (let i = 0; i < 64; i++) check(got[i] == 0, "after a failure the stream's later work has no effect");
must(dst.fillAsync(7, s2), "fillAsync");
must(s2.synchronize(), "the synchronize took the error: the stream runs again");
must(dst.read(0, got), "read");
for (let i = 0; i < 64; i++) check(got[i] == 7, "the stream runs again");
check(s2.setFailureMode(StreamFailureMode.CONTINUE_ON_FAILURE) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a stream cannot go back to CONTINUE_ON_FAILURE");

// Back to the default context, and the created one destroyed.
must(buf.free(), "free");
must(slots.free(), "free");
must(dst.free(), "free");
must(s.destroy(), "destroy");
must(s2.destroy(), "destroy");
must(ev.destroy(), "destroy");
must(fresh.destroy(), "destroy");
must(def.setCurrent(), "setCurrent");
must(ctx.destroy(), "destroy");
const back2 = Context.current();
check(back2 !== null && changetype<Context>(back2).handle == def.handle, "the default context is current again");
must(appLog(LogLevel.INFO, "runtime: ok", "main", FILE, 4), "appLog");
