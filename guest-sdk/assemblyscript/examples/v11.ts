// The ABI v1.1 additions through the SDK, checked by the guest itself:
// 32-bit memsets, event resets and logging through aclAppLog (one record
// per level). A failed check logs at ERROR and traps (unreachable).
// tests/v11_test.go runs it and reads the log records.
//
// Build (from guest-sdk/assemblyscript, after npm ci):
//   npx asc examples/v11.ts -O3 --runtime stub --use abort= --exportStart _start -o v11.wasm
import {
  appLog, LogLevel, setDevice, DeviceBuffer, Stream, Event, memsetD32, lastError, AclError,
  ACL_SUCCESS, ACL_ERROR_RT_PARAM_INVALID,
} from "../assembly";

const FILE = "examples/v11.ts";

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
must(setDevice(0), "setDevice");

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
check(memsetD32(buf.ptr, 64, 0, 17) == ACL_ERROR_RT_PARAM_INVALID, "17 words in 64 bytes give ACL_ERROR_RT_PARAM_INVALID");
must(appLog(LogLevel.WARNING, "expected: memsetD32 of 17 words in 64 bytes failed", "main", FILE, 3), "appLog");

// An event reset: the event reads as never recorded again.
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
check(ev.query() == never, "a reset event reads as never recorded");

must(buf.free(), "free");
must(s.destroy(), "destroy");
must(ev.destroy(), "destroy");
must(fresh.destroy(), "destroy");
must(appLog(LogLevel.INFO, "v11: ok", "main", FILE, 4), "appLog");
