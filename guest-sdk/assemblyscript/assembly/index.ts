// The AssemblyScript guest SDK of aclwasm: the CANN ACL memory-copy API for
// WebAssembly plugins, as imports from the module "acl" (guest ABI v1).
//
// Layers: bindings.ts holds the raw imports with their wire types (native
// names, generated); codes.ts and types.ts the native error codes and enums
// (generated); io.ts the imports of module "aclwasm" (bytes in and out,
// configuration values); this file a thin wrapper over both.
//
// Errors: every wrapper that returns i32 returns the native aclError code (0 =
// ACL_SUCCESS). Functions that produce a value return it, or a documented
// sentinel on failure (null, -1, NaN). In both cases lastError() then tells
// which function failed, its code and native name, and the host's message.
//
// Strings: AssemblyScript strings are UTF-16, the host's messages UTF-8.
// recentErrMsg() copies the bytes from aclGetRecentErrMsg into a buffer and
// decodes them with String.UTF8.decodeUnsafe, so any message the host writes
// round-trips (invalid UTF-8 would become U+FFFD). init() encodes its path
// with String.UTF8.encode(path, true) (NUL-terminated).

import {
  aclInit, aclFinalize, aclrtGetVersion, aclrtSetDevice, aclrtResetDevice, aclrtGetDevice,
  aclrtGetDeviceCount, aclrtSynchronizeDevice, aclrtSynchronizeDeviceWithTimeout,
  aclrtDeviceCanAccessPeer, aclrtDeviceEnablePeerAccess, aclrtDeviceDisablePeerAccess,
  aclrtGetMemInfo, aclrtMalloc, aclrtFree, aclrtHostRegister, aclrtHostUnregister,
  aclrtPointerGetAttributes, aclrtCreateStream, aclrtDestroyStream, aclrtSynchronizeStream,
  aclrtSynchronizeStreamWithTimeout, aclrtStreamQuery, aclrtCreateEvent, aclrtDestroyEvent,
  aclrtRecordEvent, aclrtStreamWaitEvent, aclrtSynchronizeEvent, aclrtQueryEventStatus,
  aclrtEventElapsedTime, aclGetRecentErrMsg, aclrtMemcpy, aclrtMemcpyAsync,
  aclrtMemcpyAsyncWithCondition, aclrtMemcpy2d, aclrtMemcpy2dAsync, aclrtMemset,
  aclrtMemsetAsync, aclrtMemcpyBatch, aclrtMemcpyBatchAsync, aclrtMemcpyBatchV2,
  aclrtMemcpyBatchAsyncV2, aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc,
  aclrtMemcpyAsyncWithDesc, aclrtMemcpyAsyncWithOffset,
  aclrtResetDeviceForce, aclrtDestroyStreamForce, aclrtCreateContext, aclrtDestroyContext,
  aclrtSetCurrentContext, aclrtGetCurrentContext, aclrtGetRunMode, aclrtSetStreamFailureMode,
  aclrtMemsetD32, aclrtMemsetD32Async, aclrtResetEvent, aclAppLog,
  aclCreateTensor, aclDestroyTensor, aclCreateScalar, aclDestroyScalar, aclCreateIntArray,
  aclDestroyIntArray, aclCreateFloatArray, aclDestroyFloatArray, aclCreateBoolArray,
  aclDestroyBoolArray, aclCreateTensorList, aclDestroyTensorList,
  aclmdlLoadFromFile, aclmdlUnload, aclmdlCreateDesc, aclmdlDestroyDesc, aclmdlGetDesc,
  aclmdlGetNumInputs, aclmdlGetNumOutputs, aclmdlGetInputSizeByIndex, aclmdlGetOutputSizeByIndex,
  aclmdlCreateDataset, aclmdlDestroyDataset, aclmdlAddDatasetBuffer, aclmdlExecute, aclmdlExecuteAsync,
} from "./bindings";
import { aclwasm_input_len, aclwasm_input_read, aclwasm_output_write, aclwasm_config_read, aclwasm_error_set } from "./io";
import {
  errorName, ACL_SUCCESS, ACL_ERROR_INVALID_PARAM, ACL_ERROR_FAILURE, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
} from "./codes";
import { DataType } from "./fp16";
import {
  MemcpyKind, MemAttr, MemMallocPolicy, HostRegisterType, MemLocationType,
  MEMCPY_BATCH_ATTR_SIZE, PTR_ATTRIBUTES_SIZE,
} from "./types";

export * from "./bindings";
export * from "./io";
export * from "./codes";
export * from "./types";
export * from "./fp16";
export { nn } from "./nn_ops";
export { basic, cannexamples } from "./kernels";

// ---- errors ----

/** A failed call: the function, the native code and the host's message. */
export class AclError {
  constructor(
    /** The ACL function, such as "aclrtMemcpy". */
    public func: string,
    /** The native aclError code. */
    public code: i32,
    /** The host's message (which argument was wrong and why), or "". */
    public message: string,
  ) {}

  /** The native name of the code, such as "ACL_ERROR_RT_PARAM_INVALID". */
  get name(): string {
    return errorName(this.code);
  }

  toString(): string {
    let s = this.func + ": " + this.name + " (" + this.code.toString() + ")";
    if (this.message.length > 0) s += ": " + this.message;
    return s;
  }
}

let lastFunc: string = "";
let lastCode: i32 = ACL_SUCCESS;
let failIndex: u64 = U64.MAX_VALUE;

function check(fn: string, code: i32): i32 {
  if (code != ACL_SUCCESS) {
    lastFunc = fn;
    lastCode = code;
  }
  return code;
}

/**
 * The most recent failure of an SDK call: its function and code, with the
 * host's current message. Returns null if no call has failed.
 */
export function lastError(): AclError | null {
  if (lastCode == ACL_SUCCESS) return null;
  return new AclError(lastFunc, lastCode, recentErrMsg());
}

/** Forgets the recorded failure, so that lastError() returns null. */
export function clearLastError(): void {
  lastCode = ACL_SUCCESS;
  lastFunc = "";
}

const MSG_CAP: i32 = 512;
const msgScratch = memory.data(MSG_CAP);

/**
 * The session's most recent error message, decoded from UTF-8. Where the
 * native aclGetRecentErrMsg returns NULL (no call has failed yet), this
 * returns "", AssemblyScript's "no message". As natively, reading the
 * message clears it: a second read without a new failure returns "".
 */
export function recentErrMsg(): string {
  let n = aclGetRecentErrMsg(msgScratch, MSG_CAP);
  if (n <= 0) return "";
  if (n < MSG_CAP) return String.UTF8.decodeUnsafe(msgScratch, <usize>n);
  const big = new ArrayBuffer(n + 1);
  const m = aclGetRecentErrMsg(changetype<usize>(big), n + 1);
  return String.UTF8.decodeUnsafe(changetype<usize>(big), <usize>min(m, n));
}

// ---- addresses ----

/** The address of a typed array's first element in guest memory. */
export function addrOf<T extends ArrayBufferView>(a: T): u64 {
  return <u64>a.dataStart;
}

/** The address of an ArrayBuffer's first byte in guest memory. */
export function addrOfBuffer(b: ArrayBuffer): u64 {
  return <u64>changetype<usize>(b);
}

// ---- runtime and devices ----

/** aclInit: initializes the runtime (optional). null passes NULL. */
export function init(configPath: string | null = null): i32 {
  if (configPath === null) return check("aclInit", aclInit(0));
  const p = String.UTF8.encode(<string>configPath, true);
  return check("aclInit", aclInit(changetype<usize>(p)));
}

/** aclFinalize. */
export function finalize(): i32 {
  return check("aclFinalize", aclFinalize());
}

/** The ACL version the host implements. */
export class Version {
  constructor(public major: i32, public minor: i32, public patch: i32) {}
}

const out64 = memory.data(8);
const out64b = memory.data(8);
const out32c = memory.data(4);

/** aclrtGetVersion; null on failure. */
export function version(): Version | null {
  if (check("aclrtGetVersion", aclrtGetVersion(out64, out64 + 4, out32c)) != 0) return null;
  return new Version(load<i32>(out64), load<i32>(out64 + 4), load<i32>(out32c));
}

/** aclrtSetDevice: makes id current; required before device work. */
export function setDevice(id: i32): i32 {
  return check("aclrtSetDevice", aclrtSetDevice(id));
}

/** aclrtResetDevice. */
export function resetDevice(id: i32): i32 {
  return check("aclrtResetDevice", aclrtResetDevice(id));
}

/** aclrtGetDevice: the current device id, or -1 on failure. */
export function getDevice(): i32 {
  if (check("aclrtGetDevice", aclrtGetDevice(out64)) != 0) return -1;
  return load<i32>(out64);
}

/** aclrtGetDeviceCount: how many devices the session sees, or -1 on failure. */
export function deviceCount(): i64 {
  if (check("aclrtGetDeviceCount", aclrtGetDeviceCount(out64)) != 0) return -1;
  return <i64>load<u32>(out64);
}

/** aclrtSynchronizeDevice. */
export function synchronizeDevice(): i32 {
  return check("aclrtSynchronizeDevice", aclrtSynchronizeDevice());
}

/** aclrtSynchronizeDeviceWithTimeout (ms; -1 forever). */
export function synchronizeDeviceWithTimeout(timeoutMs: i32): i32 {
  return check("aclrtSynchronizeDeviceWithTimeout", aclrtSynchronizeDeviceWithTimeout(timeoutMs));
}

/** aclrtDeviceCanAccessPeer: 1 or 0, or -1 on failure. */
export function canAccessPeer(device: i32, peer: i32): i32 {
  if (check("aclrtDeviceCanAccessPeer", aclrtDeviceCanAccessPeer(out64, device, peer)) != 0) return -1;
  return load<i32>(out64) != 0 ? 1 : 0;
}

/** aclrtDeviceEnablePeerAccess with flags 0. */
export function enablePeerAccess(peer: i32): i32 {
  return check("aclrtDeviceEnablePeerAccess", aclrtDeviceEnablePeerAccess(peer, 0));
}

/** aclrtDeviceDisablePeerAccess. */
export function disablePeerAccess(peer: i32): i32 {
  return check("aclrtDeviceDisablePeerAccess", aclrtDeviceDisablePeerAccess(peer));
}

// ---- memory ----

/** The session's free and total device memory of a class. */
export class MemInfo {
  constructor(public free: u64, public total: u64) {}
}

/** aclrtGetMemInfo; null on failure. */
export function memInfo(attr: MemAttr): MemInfo | null {
  if (check("aclrtGetMemInfo", aclrtGetMemInfo(attr, out64, out64b)) != 0) return null;
  return new MemInfo(load<u64>(out64), load<u64>(out64b));
}

/** Where an address lives (aclrtPtrAttributes). */
export class PtrAttributes {
  constructor(public locationId: u32, public locationType: MemLocationType, public pageSize: u32) {}
}

const attrScratch = memory.data(PTR_ATTRIBUTES_SIZE);

/** aclrtPointerGetAttributes; null on failure. */
export function pointerAttributes(ptr: u64): PtrAttributes | null {
  if (check("aclrtPointerGetAttributes", aclrtPointerGetAttributes(ptr, attrScratch)) != 0) return null;
  return new PtrAttributes(load<u32>(attrScratch), <MemLocationType>load<u32>(attrScratch, 4), load<u32>(attrScratch, 8));
}

/** Device memory from aclrtMalloc. Call free() when done. */
export class DeviceBuffer {
  private constructor(public readonly ptr: u64, public readonly size: u64) {}

  /** aclrtMalloc; null on failure. */
  static alloc(size: u64, policy: MemMallocPolicy = MemMallocPolicy.MALLOC_HUGE_FIRST): DeviceBuffer | null {
    if (check("aclrtMalloc", aclrtMalloc(out64, size, <u32>policy)) != 0) return null;
    return new DeviceBuffer(load<u64>(out64), size);
  }

  /** aclrtFree, after the queued work that uses it. */
  free(): i32 {
    return check("aclrtFree", aclrtFree(this.ptr));
  }

  /** Copies src into the buffer at offset (synchronous H2D). */
  write(offset: u64, src: Uint8Array): i32 {
    const max = offset < this.size ? this.size - offset : 0;
    return memcpy(this.ptr + offset, max, addrOf(src), <u64>src.length, MemcpyKind.HOST_TO_DEVICE);
  }

  /** Copies dst.length bytes at offset into dst (synchronous D2H). */
  read(offset: u64, dst: Uint8Array): i32 {
    return memcpy(addrOf(dst), <u64>dst.length, this.ptr + offset, <u64>dst.length, MemcpyKind.DEVICE_TO_HOST);
  }

  /** Copies all of src into the start of this buffer (synchronous D2D). */
  copyFrom(src: DeviceBuffer): i32 {
    return memcpy(this.ptr, this.size, src.ptr, src.size, MemcpyKind.DEVICE_TO_DEVICE);
  }

  /** Sets every byte to v (aclrtMemset). */
  fill(v: u8): i32 {
    return memset(this.ptr, this.size, <i32>v, this.size);
  }

  /** Queues setting every byte to v on stream (aclrtMemsetAsync). */
  fillAsync(v: u8, stream: Stream): i32 {
    return memsetAsync(this.ptr, this.size, <i32>v, this.size, stream);
  }

  /**
   * Sets every whole 32-bit word to v (aclrtMemsetD32, little-endian); a
   * tail of fewer than 4 bytes is left as it was.
   */
  fillU32(v: u32): i32 {
    return memsetD32(this.ptr, this.size, v, this.size / 4);
  }

  /** Queues fillU32 on stream (aclrtMemsetD32Async). */
  fillU32Async(v: u32, stream: Stream): i32 {
    return memsetD32Async(this.ptr, this.size, v, this.size / 4, stream);
  }
}

/**
 * Pinned guest memory, as aclrtMallocHost gives natively: a Uint8Array
 * registered with aclrtHostRegister. Async copies read and write it when they
 * execute: its contents are defined once the stream is synchronized. The
 * object keeps the array alive; call free() to unregister it.
 */
export class PinnedBuffer {
  private constructor(public readonly bytes: Uint8Array) {}

  /** Allocates size zeroed bytes and registers them; null on failure. */
  static alloc(size: i32, type: HostRegisterType = HostRegisterType.MAPPED): PinnedBuffer | null {
    const b = new Uint8Array(size);
    if (check("aclrtHostRegister", aclrtHostRegister(addrOf(b), <u64>size, <u32>type, out64)) != 0) return null;
    return new PinnedBuffer(b);
  }

  /** The address of the first byte. */
  get ptr(): u64 {
    return addrOf(this.bytes);
  }

  /** aclrtHostUnregister, after the queued work that uses it. */
  free(): i32 {
    return check("aclrtHostUnregister", aclrtHostUnregister(this.ptr));
  }
}

/** aclrtHostRegister of [ptr, ptr+size). */
export function hostRegister(ptr: u64, size: u64, type: HostRegisterType): i32 {
  return check("aclrtHostRegister", aclrtHostRegister(ptr, size, <u32>type, out64));
}

/** aclrtHostUnregister of the range that starts at ptr. */
export function hostUnregister(ptr: u64): i32 {
  return check("aclrtHostUnregister", aclrtHostUnregister(ptr));
}

// ---- streams and events ----

/** A stream handle; Stream.DEFAULT is the current device's default stream. */
export class Stream {
  constructor(public readonly handle: u32) {}

  /** The current device's default stream (handle 0, NULL natively). */
  static readonly DEFAULT: Stream = new Stream(0);

  /** aclrtCreateStream; null on failure. */
  static create(): Stream | null {
    if (check("aclrtCreateStream", aclrtCreateStream(out64)) != 0) return null;
    return new Stream(load<u32>(out64));
  }

  /** aclrtDestroyStream, after its queued work. */
  destroy(): i32 {
    return check("aclrtDestroyStream", aclrtDestroyStream(this.handle));
  }

  /** aclrtDestroyStreamForce: cancels the queued work that has not started, then destroys. */
  destroyForce(): i32 {
    return check("aclrtDestroyStreamForce", aclrtDestroyStreamForce(this.handle));
  }

  /**
   * aclrtSetStreamFailureMode: with STOP_ON_FAILURE, after a failed
   * operation the later ones fail without effect until synchronize() (which
   * reports the error). A stream cannot go back to CONTINUE_ON_FAILURE.
   */
  setFailureMode(mode: StreamFailureMode): i32 {
    return check("aclrtSetStreamFailureMode", aclrtSetStreamFailureMode(this.handle, <u64>mode));
  }

  /** aclrtSynchronizeStream: returns the first error the queued work met. */
  synchronize(): i32 {
    return check("aclrtSynchronizeStream", aclrtSynchronizeStream(this.handle));
  }

  /** aclrtSynchronizeStreamWithTimeout (ms; -1 forever). */
  synchronizeWithTimeout(timeoutMs: i32): i32 {
    return check("aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(this.handle, timeoutMs));
  }

  /** aclrtStreamQuery: a StreamStatus value, or -1 on failure. */
  query(): i64 {
    if (check("aclrtStreamQuery", aclrtStreamQuery(this.handle, out64)) != 0) return -1;
    return <i64>load<u32>(out64);
  }

  /** aclrtStreamWaitEvent. */
  waitEvent(event: Event): i32 {
    return check("aclrtStreamWaitEvent", aclrtStreamWaitEvent(this.handle, event.handle));
  }
}

/** What a stream does after one of its operations fails (Stream.setFailureMode). */
export enum StreamFailureMode {
  /** ACL_CONTINUE_ON_FAILURE (the default): later operations run. */
  CONTINUE_ON_FAILURE = 0,
  /** ACL_STOP_ON_FAILURE: later operations fail without effect until synchronized. */
  STOP_ON_FAILURE = 1,
}

/** An event handle. */
export class Event {
  constructor(public readonly handle: u32) {}

  /** aclrtCreateEvent; null on failure. */
  static create(): Event | null {
    if (check("aclrtCreateEvent", aclrtCreateEvent(out64)) != 0) return null;
    return new Event(load<u32>(out64));
  }

  /** aclrtDestroyEvent. */
  destroy(): i32 {
    return check("aclrtDestroyEvent", aclrtDestroyEvent(this.handle));
  }

  /** aclrtRecordEvent on stream. */
  record(stream: Stream): i32 {
    return check("aclrtRecordEvent", aclrtRecordEvent(this.handle, stream.handle));
  }

  /**
   * aclrtResetEvent: queues on stream a reset, after which the event reads
   * as never recorded and later waits wait for its next record.
   */
  reset(stream: Stream): i32 {
    return check("aclrtResetEvent", aclrtResetEvent(this.handle, stream.handle));
  }

  /** aclrtSynchronizeEvent. */
  synchronize(): i32 {
    return check("aclrtSynchronizeEvent", aclrtSynchronizeEvent(this.handle));
  }

  /** aclrtQueryEventStatus: an EventRecordedStatus value, or -1 on failure. */
  query(): i64 {
    if (check("aclrtQueryEventStatus", aclrtQueryEventStatus(this.handle, out64)) != 0) return -1;
    return <i64>load<u32>(out64);
  }

  /** aclrtEventElapsedTime: ms between two completed events, or NaN on failure. */
  static elapsedTime(start: Event, end: Event): f32 {
    if (check("aclrtEventElapsedTime", aclrtEventElapsedTime(out64, start.handle, end.handle)) != 0) return NaN;
    return load<f32>(out64);
  }
}

// ---- contexts (ABI v1.1) ----

/**
 * A context handle: a device plus its own default stream, the target of
 * Stream.DEFAULT while the context is current. setDevice() makes the
 * device's default context current (which cannot be destroyed).
 */
export class Context {
  constructor(public readonly handle: u32) {}

  /** aclrtCreateContext: creates a context on device and makes it current; null on failure. */
  static create(device: i32): Context | null {
    if (check("aclrtCreateContext", aclrtCreateContext(out64, device)) != 0) return null;
    return new Context(load<u32>(out64));
  }

  /** aclrtGetCurrentContext; null on failure. */
  static current(): Context | null {
    if (check("aclrtGetCurrentContext", aclrtGetCurrentContext(out64)) != 0) return null;
    return new Context(load<u32>(out64));
  }

  /** aclrtSetCurrentContext: makes its device current and its default stream Stream.DEFAULT's target. */
  setCurrent(): i32 {
    return check("aclrtSetCurrentContext", aclrtSetCurrentContext(this.handle));
  }

  /** aclrtDestroyContext: destroys it and its streams after their queued work. */
  destroy(): i32 {
    return check("aclrtDestroyContext", aclrtDestroyContext(this.handle));
  }
}

/** aclrtGetRunMode: where the application runs (RunMode.HOST for the simulator), or -1 on failure. */
export function runMode(): i32 {
  if (check("aclrtGetRunMode", aclrtGetRunMode(out64)) != 0) return -1;
  return <i32>load<u32>(out64);
}

/** aclrtResetDeviceForce: resetDevice, cancelling the session's queued work on the device. */
export function resetDeviceForce(id: i32): i32 {
  return check("aclrtResetDeviceForce", aclrtResetDeviceForce(id));
}

// ---- logging (ABI v1.1) ----

/** The level of an aclAppLog record (aclLogLevel). */
export enum LogLevel {
  /** ACL_DEBUG */
  DEBUG = 0,
  /** ACL_INFO */
  INFO = 1,
  /** ACL_WARNING */
  WARNING = 2,
  /** ACL_ERROR */
  ERROR = 3,
}

/** The longest string aclAppLog takes, in bytes, without its NUL. */
export const MAX_LOG_STRING: i32 = 4095;

/** s as UTF-8, cut at its first NUL and to MAX_LOG_STRING bytes (at a character boundary), NUL-terminated. */
function logString(s: string): ArrayBuffer {
  const nul = s.indexOf("\0");
  if (nul >= 0) s = s.substring(0, nul);
  const b = String.UTF8.encode(s);
  let n = b.byteLength;
  if (n > MAX_LOG_STRING) {
    n = MAX_LOG_STRING;
    while (n > 0 && (load<u8>(changetype<usize>(b) + <usize>n) & 0xc0) == 0x80) n--;
  }
  const out = new ArrayBuffer(n + 1);
  memory.copy(changetype<usize>(out), changetype<usize>(b), <usize>n);
  store<u8>(changetype<usize>(out) + <usize>n, 0);
  return out;
}

/**
 * aclAppLog: logs msg as the plugin's own record at level, naming func,
 * file and line (AssemblyScript has no caller information: pass them);
 * the host hands it to the embedder's slog logger with the plugin's name
 * and session. Strings are cut at a NUL and to MAX_LOG_STRING bytes.
 */
export function appLog(level: LogLevel, msg: string, func: string = "", file: string = "", line: u32 = 0): i32 {
  const f = logString(func), p = logString(file), m = logString(msg);
  return check("aclAppLog", aclAppLog(<i32>level, changetype<usize>(f), changetype<usize>(p), line, changetype<usize>(m)));
}

// ---- copies ----

/** aclrtMemcpy: synchronous copy; the direction comes from the addresses. */
export function memcpy(dst: u64, destMax: u64, src: u64, count: u64, kind: MemcpyKind): i32 {
  return check("aclrtMemcpy", aclrtMemcpy(dst, destMax, src, count, kind));
}

/** aclrtMemcpyAsync on stream. */
export function memcpyAsync(dst: u64, destMax: u64, src: u64, count: u64, kind: MemcpyKind, stream: Stream): i32 {
  return check("aclrtMemcpyAsync", aclrtMemcpyAsync(dst, destMax, src, count, kind, stream.handle));
}

/** aclrtMemcpyAsyncWithCondition (deprecated natively; as memcpyAsync). */
export function memcpyAsyncWithCondition(dst: u64, destMax: u64, src: u64, count: u64, kind: MemcpyKind, stream: Stream): i32 {
  return check("aclrtMemcpyAsyncWithCondition", aclrtMemcpyAsyncWithCondition(dst, destMax, src, count, kind, stream.handle));
}

/** aclrtMemcpy2d: height rows of width bytes (H2D or D2H). */
export function memcpy2d(dst: u64, dpitch: u64, src: u64, spitch: u64, width: u64, height: u64, kind: MemcpyKind): i32 {
  return check("aclrtMemcpy2d", aclrtMemcpy2d(dst, dpitch, src, spitch, width, height, kind));
}

/** aclrtMemcpy2dAsync on stream (H2D, D2H or D2D). */
export function memcpy2dAsync(dst: u64, dpitch: u64, src: u64, spitch: u64, width: u64, height: u64, kind: MemcpyKind, stream: Stream): i32 {
  return check("aclrtMemcpy2dAsync", aclrtMemcpy2dAsync(dst, dpitch, src, spitch, width, height, kind, stream.handle));
}

/** aclrtMemset: count bytes at ptr (device or pinned memory) to value's low byte. */
export function memset(ptr: u64, maxCount: u64, value: i32, count: u64): i32 {
  return check("aclrtMemset", aclrtMemset(ptr, maxCount, value, count));
}

/** aclrtMemsetD32: sets count 32-bit words at ptr (4-byte aligned) to value; count 0 does nothing; count*4 above memSize or ptr in guest memory that is not pinned gives ACL_ERROR_INVALID_PARAM, as natively. */
export function memsetD32(ptr: u64, memSize: u64, value: u32, count: u64): i32 {
  return check("aclrtMemsetD32", aclrtMemsetD32(ptr, memSize, value, count));
}

/** aclrtMemsetD32Async: memsetD32 queued on stream. */
export function memsetD32Async(ptr: u64, memSize: u64, value: u32, count: u64, stream: Stream): i32 {
  return check("aclrtMemsetD32Async", aclrtMemsetD32Async(ptr, memSize, value, count, stream.handle));
}

/** aclrtMemsetAsync on stream. */
export function memsetAsync(ptr: u64, maxCount: u64, value: i32, count: u64, stream: Stream): i32 {
  return check("aclrtMemsetAsync", aclrtMemsetAsync(ptr, maxCount, value, count, stream.handle));
}

/**
 * The entries of a batch copy, in guest memory in the wire layout. add()
 * appends entry i; attr() appends an attribute that applies from the next
 * added entry on. Capacities are fixed; exceeding one aborts.
 */
export class Batch {
  readonly dsts: StaticArray<u64>;
  readonly destMaxs: StaticArray<u64>;
  readonly srcs: StaticArray<u64>;
  readonly sizes: StaticArray<u64>;
  readonly attrs: ArrayBuffer;
  readonly attrsIndexes: StaticArray<u64>;
  count: i32 = 0;
  numAttrs: i32 = 0;

  constructor(capacity: i32, attrCapacity: i32 = 1) {
    this.dsts = new StaticArray<u64>(capacity);
    this.destMaxs = new StaticArray<u64>(capacity);
    this.srcs = new StaticArray<u64>(capacity);
    this.sizes = new StaticArray<u64>(capacity);
    this.attrs = new ArrayBuffer(attrCapacity * MEMCPY_BATCH_ATTR_SIZE);
    this.attrsIndexes = new StaticArray<u64>(attrCapacity);
  }

  /** Appends an entry copying size bytes from src to dst (capacity destMax). */
  add(dst: u64, destMax: u64, src: u64, size: u64): void {
    const i = this.count;
    assert(i < this.dsts.length, "aclwasm: Batch is full");
    this.dsts[i] = dst;
    this.destMaxs[i] = destMax;
    this.srcs[i] = src;
    this.sizes[i] = size;
    this.count = i + 1;
  }

  /** Appends an attribute for the entries from the next added one on. */
  attr(dstType: MemLocationType, dstId: u32, srcType: MemLocationType, srcId: u32): void {
    const k = this.numAttrs;
    assert(k < this.attrsIndexes.length, "aclwasm: Batch attributes are full");
    const p = changetype<usize>(this.attrs) + <usize>k * MEMCPY_BATCH_ATTR_SIZE;
    store<u32>(p, dstId);
    store<u32>(p, <u32>dstType, 4);
    store<u32>(p, srcId, 8);
    store<u32>(p, <u32>srcType, 12);
    memory.fill(p + 16, 0, 16);
    this.attrsIndexes[k] = <u64>this.count;
    this.numAttrs = k + 1;
  }
}

function sa<T>(a: StaticArray<T>): usize {
  return changetype<usize>(a);
}

/** The failIndex of the most recent memcpyBatch/memcpyBatchAsync: the failed entry, or U64.MAX_VALUE. */
export function lastFailIndex(): u64 {
  return failIndex;
}

/** aclrtMemcpyBatch (H2D/D2H entries); lastFailIndex() names a failed entry. */
export function memcpyBatch(b: Batch): i32 {
  store<u64>(out64, U64.MAX_VALUE);
  const code = aclrtMemcpyBatch(sa(b.dsts), sa(b.destMaxs), sa(b.srcs), sa(b.sizes), <u64>b.count,
    changetype<usize>(b.attrs), sa(b.attrsIndexes), <u64>b.numAttrs, out64);
  failIndex = load<u64>(out64);
  return check("aclrtMemcpyBatch", code);
}

/** aclrtMemcpyBatchAsync on stream; lastFailIndex() names a failed entry. */
export function memcpyBatchAsync(b: Batch, stream: Stream): i32 {
  store<u64>(out64, U64.MAX_VALUE);
  const code = aclrtMemcpyBatchAsync(sa(b.dsts), sa(b.destMaxs), sa(b.srcs), sa(b.sizes), <u64>b.count,
    changetype<usize>(b.attrs), sa(b.attrsIndexes), <u64>b.numAttrs, out64, stream.handle);
  failIndex = load<u64>(out64);
  return check("aclrtMemcpyBatchAsync", code);
}

/** aclrtMemcpyBatchV2: memcpyBatch without failIndex. */
export function memcpyBatchV2(b: Batch): i32 {
  return check("aclrtMemcpyBatchV2", aclrtMemcpyBatchV2(sa(b.dsts), sa(b.destMaxs), sa(b.srcs), sa(b.sizes), <u64>b.count,
    changetype<usize>(b.attrs), sa(b.attrsIndexes), <u64>b.numAttrs));
}

/** aclrtMemcpyBatchAsyncV2: memcpyBatchAsync without failIndex. */
export function memcpyBatchAsyncV2(b: Batch, stream: Stream): i32 {
  return check("aclrtMemcpyBatchAsyncV2", aclrtMemcpyBatchAsyncV2(sa(b.dsts), sa(b.destMaxs), sa(b.srcs), sa(b.sizes), <u64>b.count,
    changetype<usize>(b.attrs), sa(b.attrsIndexes), <u64>b.numAttrs, stream.handle));
}

// ---- descriptors ----

/** aclrtGetMemcpyDescSize (INNER_DEVICE_TO_DEVICE only): the size, or -1 on failure. */
export function memcpyDescSize(kind: MemcpyKind): i64 {
  if (check("aclrtGetMemcpyDescSize", aclrtGetMemcpyDescSize(kind, out64)) != 0) return -1;
  return <i64>load<u64>(out64);
}

/** aclrtSetMemcpyDesc: writes a D2D copy descriptor into device memory at desc. */
export function setMemcpyDesc(desc: u64, kind: MemcpyKind, src: u64, dst: u64, count: u64): i32 {
  return check("aclrtSetMemcpyDesc", aclrtSetMemcpyDesc(desc, kind, src, dst, count, 0));
}

/** aclrtMemcpyAsyncWithDesc on stream (not the default stream). */
export function memcpyAsyncWithDesc(desc: u64, kind: MemcpyKind, stream: Stream): i32 {
  return check("aclrtMemcpyAsyncWithDesc", aclrtMemcpyAsyncWithDesc(desc, kind, stream.handle));
}

/** aclrtMemcpyAsyncWithOffset: a copy between device addresses stored at dstSlot and srcSlot, plus offsets. */
export function memcpyAsyncWithOffset(dstSlot: u64, destMax: u64, dstOffset: u64, srcSlot: u64, count: u64, srcOffset: u64, kind: MemcpyKind, stream: Stream): i32 {
  return check("aclrtMemcpyAsyncWithOffset", aclrtMemcpyAsyncWithOffset(dstSlot, destMax, dstOffset, srcSlot, count, srcOffset, kind, stream.handle));
}

// ---- bytes in, bytes out (module "aclwasm") ----
//
// A host that calls an export with host.Instance.CallBytes lends it an input
// and collects its output; the export takes no parameters and returns an i32
// status (0: success; anything else reaches the host as a *host.StatusError).
// A plugin also reads its configuration values (a manifest's config,
// host.Config.Vars) by key.

/** The length of the current bytes call's input (0 outside one). */
export function inputLength(): i32 {
  return aclwasm_input_len();
}

/**
 * Copies the first dst.length bytes of the input into dst (which must not be
 * longer than the input), without allocating.
 */
export function readInput(dst: Uint8Array): i32 {
  if (dst.length == 0) return ACL_SUCCESS;
  return check("aclwasm.input_read", aclwasm_input_read(dst.dataStart, dst.length));
}

/** A copy of the current bytes call's input (empty outside one); null on failure. */
export function input(): Uint8Array | null {
  const b = new Uint8Array(max(aclwasm_input_len(), 0));
  if (readInput(b) != ACL_SUCCESS) return null;
  return b;
}

/** The input decoded from UTF-8 (invalid bytes become U+FFFD); null on failure. */
export function inputString(): string | null {
  const b = input();
  if (b === null) return null;
  return String.UTF8.decodeUnsafe(b.dataStart, <usize>b.length);
}

/**
 * Appends b to the current bytes call's output: ACL_ERROR_INVALID_PARAM
 * outside a bytes call, ACL_ERROR_RT_OVER_LIMIT once the output would exceed
 * the host's limit (the policy's guest memory limit). A failed call appends
 * nothing.
 */
export function output(b: Uint8Array): i32 {
  if (b.length == 0) return ACL_SUCCESS;
  return check("aclwasm.output_write", aclwasm_output_write(b.dataStart, b.length));
}

/** Appends s, encoded as UTF-8, to the output (see output). */
export function outputString(s: string): i32 {
  const b = String.UTF8.encode(s);
  if (b.byteLength == 0) return ACL_SUCCESS;
  return check("aclwasm.output_write", aclwasm_output_write(changetype<usize>(b), b.byteLength));
}

/**
 * Says why the running call fails: the host reports msg with the call's
 * nonzero status (host.StatusError's Reason; aclwasm serve answers 502
 * plugin_failed with it). A later fail replaces it and "" clears it; each
 * call of an export starts with none, and the host keeps 4096 bytes.
 */
export function fail(msg: string): i32 {
  const b = String.UTF8.encode(msg);
  return check("aclwasm.error_set", aclwasm_error_set(changetype<usize>(b), b.byteLength));
}

const CONFIG_MAX: i32 = 65536;

/**
 * The bytes of configuration key key's value, or null if the key is not set
 * or the read failed. It clears the recorded failure first, so after a null
 * lastError() is null for a key that is not set and says why otherwise.
 */
export function configBytes(key: string): Uint8Array | null {
  clearLastError();
  const k = String.UTF8.encode(key);
  const kp = changetype<usize>(k);
  const n = aclwasm_config_read(kp, k.byteLength, 0, 0);
  if (n == -1) return null;
  if (n < 0 || n > CONFIG_MAX) {
    check("aclwasm.config_read", n);
    return null;
  }
  const v = new Uint8Array(n);
  if (n == 0) return v;
  const m = aclwasm_config_read(kp, k.byteLength, v.dataStart, n);
  if (m != n) {
    check("aclwasm.config_read", m == -1 || (m >= 0 && m <= CONFIG_MAX) ? ACL_ERROR_INVALID_PARAM : m);
    return null;
  }
  return v;
}

/**
 * The value of configuration key key decoded from UTF-8 (invalid bytes
 * become U+FFFD), or null if the key is not set or the read failed: then
 * lastError() is null for a key that is not set (see configBytes).
 */
export function config(key: string): string | null {
  const v = configBytes(key);
  if (v === null) return null;
  return String.UTF8.decodeUnsafe(v.dataStart, <usize>v.length);
}

// ---- stream callbacks (ABI section 12) ----
//
// A callback is a top-level function (userData: u32) => void; the host
// holds its table index (Function#index) and userData, and runs it on the
// guest's own thread, inside one of its host calls, through the export
// aclwasm_dispatch_callback, which assembly/callback.ts defines: the
// module's entry file enables callbacks by re-exporting it,
//   export { aclwasm_dispatch_callback } from "@aclwasm/sdk/assembly/callback";
// The host refuses to load a module that launches callbacks without it.

import {
  aclrtLaunchHostFunc, aclrtLaunchCallback, aclrtSubscribeReport, aclrtProcessReport,
  aclrtUnSubscribeReport,
} from "./bindings";

/** A stream callback: a top-level function (closures cannot be table entries). */
export type Callback = (userData: u32) => void;

/** How a callback of launchCallback holds its stream (aclrtCallbackBlockType). */
export enum CallbackBlockType {
  /** ACL_CALLBACK_NO_BLOCK: later work on the stream does not wait for it. */
  NO_BLOCK = 0,
  /** ACL_CALLBACK_BLOCK: later work on the stream waits until it has run. */
  BLOCK = 1,
}

/**
 * aclrtLaunchHostFunc: queues f(userData) on stream; it runs once the work
 * queued before it is done, and later work on the stream waits for it. A
 * stream bound with subscribeReport refuses it (launchCallback instead).
 */
export function launchHostFunc(stream: Stream, f: Callback, userData: u32): i32 {
  return check("aclrtLaunchHostFunc", aclrtLaunchHostFunc(stream.handle, <usize>f.index, <usize>userData));
}

/**
 * aclrtLaunchCallback: queues f(userData) on stream, which subscribeReport
 * bound; once due, processReport (or any blocking wait) runs it.
 */
export function launchCallback(f: Callback, userData: u32, block: CallbackBlockType, stream: Stream): i32 {
  return check("aclrtLaunchCallback", aclrtLaunchCallback(<usize>f.index, <usize>userData, <i32>block, stream.handle));
}

/** aclrtSubscribeReport: binds stream to the guest's (one) thread; any threadId names it. */
export function subscribeReport(threadId: u64, stream: Stream): i32 {
  return check("aclrtSubscribeReport", aclrtSubscribeReport(threadId, stream.handle));
}

/**
 * aclrtProcessReport: runs the callbacks due, waiting up to timeoutMs (-1:
 * no limit) for one; ACL_ERROR_RT_REPORT_TIMEOUT if none came.
 */
export function processReport(timeoutMs: i32): i32 {
  return check("aclrtProcessReport", aclrtProcessReport(timeoutMs));
}

/** aclrtUnSubscribeReport: unbinds stream from the thread subscribeReport named. */
export function unsubscribeReport(threadId: u64, stream: Stream): i32 {
  return check("aclrtUnSubscribeReport", aclrtUnSubscribeReport(threadId, stream.handle));
}

// ---- compute (ABI section 13) ----
//
// The host's operator library: a Tensor over device memory, the other
// objects operators take (Scalar, IntArray, FloatArray, BoolArray,
// TensorList), and one function per operator in the namespace nn
// (nn.add, nn.softmax, ...; nn_ops.ts, generated from the host's operator
// table). Each operator function runs aclnnXxxGetWorkspaceSize, allocates
// the workspace it asks for, queues aclnnXxx on the stream and returns the
// native code; lastError() names the phase that failed, with the host's
// message. A creation that returns NULL records ACLNN_ERR_INNER_NULLPTR
// (natively it has no code) with the host's message. Objects are handles
// of the sandbox: destroy() them when done.

/** The native aclFormat of a tensor's layout. */
export enum Format {
  /** ACL_FORMAT_NCHW */
  NCHW = 0,
  /** ACL_FORMAT_NHWC */
  NHWC = 1,
  /** ACL_FORMAT_ND: any number of dims, row-major. */
  ND = 2,
}

/** The most dims a tensor has in the operator library. */
export const MAX_DIMS: i32 = 25;

function created(fn: string, h: u32): u32 {
  if (h == 0) check(fn, ACLNN_ERR_INNER_NULLPTR);
  return h;
}

/** An aclTensor: a data type and a view of storage in one device allocation. */
export class Tensor {
  private constructor(public readonly handle: u32) {}

  /**
   * A contiguous row-major tensor of dims over the start of buf (format
   * ND); null on failure. The host checks that it fits in the buffer.
   */
  static create(buf: DeviceBuffer, dtype: DataType, dims: i64[]): Tensor | null {
    if (dims.length > MAX_DIMS) {
      check("aclCreateTensor", ACLNN_ERR_PARAM_INVALID);
      return null;
    }
    const strides = new Array<i64>(dims.length);
    let s: i64 = 1;
    for (let i = dims.length - 1; i >= 0; i--) {
      strides[i] = s;
      s *= dims[i];
    }
    return Tensor.createAt(buf.ptr, dtype, dims, strides, 0, Format.ND, dims);
  }

  /**
   * A tensor of any view, as aclCreateTensor takes it: dims and strides
   * (elements) from offset elements into storage of storageDims at data,
   * which must lie in one live device allocation; null on failure.
   */
  static createAt(data: u64, dtype: DataType, dims: i64[], strides: i64[], offset: i64, format: Format, storageDims: i64[]): Tensor | null {
    if (strides.length != dims.length) {
      check("aclCreateTensor", ACLNN_ERR_PARAM_INVALID);
      return null;
    }
    const h = created("aclCreateTensor", aclCreateTensor(dims.dataStart, <u64>dims.length, <i32>dtype, strides.dataStart,
      offset, <i32>format, storageDims.dataStart, <u64>storageDims.length, data));
    return h == 0 ? null : new Tensor(h);
  }

  /** aclDestroyTensor. */
  destroy(): i32 {
    return check("aclDestroyTensor", aclDestroyTensor(this.handle));
  }
}

const scalarScratch = memory.data(8);

/** An aclScalar: one value of a data type. */
export class Scalar {
  private constructor(public readonly handle: u32) {}

  /** A scalar of dtype from the bytes at value (dtype's size); null on failure. */
  static fromBytes(value: usize, dtype: DataType): Scalar | null {
    const h = created("aclCreateScalar", aclCreateScalar(value, <i32>dtype));
    return h == 0 ? null : new Scalar(h);
  }

  /** A float32 scalar; null on failure. */
  static fromF32(v: f32): Scalar | null {
    store<f32>(scalarScratch, v);
    return Scalar.fromBytes(scalarScratch, DataType.FLOAT);
  }

  /** An int32 scalar; null on failure. */
  static fromI32(v: i32): Scalar | null {
    store<i32>(scalarScratch, v);
    return Scalar.fromBytes(scalarScratch, DataType.INT32);
  }

  /** An int64 scalar; null on failure. */
  static fromI64(v: i64): Scalar | null {
    store<i64>(scalarScratch, v);
    return Scalar.fromBytes(scalarScratch, DataType.INT64);
  }

  /** A float16 scalar from its bits; null on failure. */
  static fromF16Bits(v: u16): Scalar | null {
    store<u16>(scalarScratch, v);
    return Scalar.fromBytes(scalarScratch, DataType.FLOAT16);
  }

  /** aclDestroyScalar. */
  destroy(): i32 {
    return check("aclDestroyScalar", aclDestroyScalar(this.handle));
  }
}

/** An aclIntArray (dims, axes). */
export class IntArray {
  private constructor(public readonly handle: u32) {}

  /** Copies v into a new array; null on failure. */
  static create(v: i64[]): IntArray | null {
    const h = created("aclCreateIntArray", aclCreateIntArray(v.dataStart, <u64>v.length));
    return h == 0 ? null : new IntArray(h);
  }

  /** aclDestroyIntArray. */
  destroy(): i32 {
    return check("aclDestroyIntArray", aclDestroyIntArray(this.handle));
  }
}

/** An aclFloatArray. */
export class FloatArray {
  private constructor(public readonly handle: u32) {}

  /** Copies v into a new array; null on failure. */
  static create(v: f32[]): FloatArray | null {
    const h = created("aclCreateFloatArray", aclCreateFloatArray(v.dataStart, <u64>v.length));
    return h == 0 ? null : new FloatArray(h);
  }

  /** aclDestroyFloatArray. */
  destroy(): i32 {
    return check("aclDestroyFloatArray", aclDestroyFloatArray(this.handle));
  }
}

/** An aclBoolArray (one byte per bool). */
export class BoolArray {
  private constructor(public readonly handle: u32) {}

  /** Copies v into a new array; null on failure. */
  static create(v: bool[]): BoolArray | null {
    const h = created("aclCreateBoolArray", aclCreateBoolArray(v.dataStart, <u64>v.length));
    return h == 0 ? null : new BoolArray(h);
  }

  /** aclDestroyBoolArray. */
  destroy(): i32 {
    return check("aclDestroyBoolArray", aclDestroyBoolArray(this.handle));
  }
}

/** An aclTensorList. As natively, the list owns its tensors: destroying it destroys them. */
export class TensorList {
  private constructor(public readonly handle: u32) {}

  /** A list of ts, which it owns from now on; null on failure. */
  static create(ts: Tensor[]): TensorList | null {
    const hs = new StaticArray<u32>(ts.length);
    for (let i = 0; i < ts.length; i++) hs[i] = ts[i].handle;
    const h = created("aclCreateTensorList", aclCreateTensorList(changetype<usize>(hs), <u64>ts.length));
    return h == 0 ? null : new TensorList(h);
  }

  /** aclDestroyTensorList. */
  destroy(): i32 {
    return check("aclDestroyTensorList", aclDestroyTensorList(this.handle));
  }
}

/** The workspace size an operator's first phase writes (for nn_ops.ts). */
export const nnOut64 = memory.data(8);
/** The executor an operator's first phase writes (for nn_ops.ts). */
export const nnOut32 = memory.data(4);

/** Records a failed phase of an operator (for nn_ops.ts). */
export function nnCheck(fn: string, code: i32): i32 {
  return check(fn, code);
}

/**
 * The second phase of every operator (for nn_ops.ts): a workspace of size
 * bytes (none for 0), then run(workspace, size, executor, stream). The
 * workspace is freed on return, which waits for the queued operator that
 * uses it.
 */
export function nnLaunch(fn: string, size: u64, executor: u32, stream: Stream, run: (w: u64, n: u64, e: u32, s: u32) => i32): i32 {
  let ws: DeviceBuffer | null = null;
  if (size > 0) {
    ws = DeviceBuffer.alloc(size);
    if (ws === null) return lastCode;
  }
  const r = check(fn, run(ws === null ? 0 : changetype<DeviceBuffer>(ws).ptr, size, executor, stream.handle));
  if (ws !== null) changetype<DeviceBuffer>(ws).free();
  return r;
}

/**
 * The result of a kernel launcher (an import from "env" named as a kernel
 * the host registers, bound when the host loads the module; see the
 * README): records a failure under the kernel's name for lastError(), and
 * returns code.
 */
export function launched(kernel: string, code: i32): i32 {
  return check(kernel, code);
}

/**
 * A model the host approved (aclmdlLoadFromFile of its approved name) and
 * its description.
 */
export class Model {
  private constructor(public readonly id: u32, private desc: u32) {}

  /**
   * Loads the model the embedder approved as name (no file is opened; a
   * name that is not approved gives ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
   * null on failure.
   */
  static load(name: string): Model | null {
    const path = String.UTF8.encode(name, true);
    if (check("aclmdlLoadFromFile", aclmdlLoadFromFile(changetype<usize>(path), out64)) != 0) return null;
    const id = load<u32>(out64);
    const desc = aclmdlCreateDesc();
    const m = new Model(id, desc);
    if (desc == 0) {
      check("aclmdlCreateDesc", ACL_ERROR_FAILURE);
      m.unload();
      return null;
    }
    if (check("aclmdlGetDesc", aclmdlGetDesc(desc, id)) != 0) {
      const code = lastCode;
      m.unload();
      lastCode = code;
      lastFunc = "aclmdlGetDesc";
      return null;
    }
    return m;
  }

  /** The number of inputs. */
  get numInputs(): i32 {
    return <i32>aclmdlGetNumInputs(this.desc);
  }

  /** The number of outputs. */
  get numOutputs(): i32 {
    return <i32>aclmdlGetNumOutputs(this.desc);
  }

  /** The bytes of input i (0 past the inputs). */
  inputSize(i: i32): u64 {
    return <u64>aclmdlGetInputSizeByIndex(this.desc, <u64>i);
  }

  /** The bytes of output i (0 past the outputs). */
  outputSize(i: i32): u64 {
    return <u64>aclmdlGetOutputSizeByIndex(this.desc, <u64>i);
  }

  /** Runs the model on input into output and waits for it (aclmdlExecute). */
  execute(input: Dataset, output: Dataset): i32 {
    return check("aclmdlExecute", aclmdlExecute(this.id, input.handle, output.handle));
  }

  /** Queues the model's execution on stream (aclmdlExecuteAsync). */
  executeAsync(input: Dataset, output: Dataset, stream: Stream): i32 {
    return check("aclmdlExecuteAsync", aclmdlExecuteAsync(this.id, input.handle, output.handle, stream.handle));
  }

  /** Destroys the description and unloads the model (aclmdlUnload). */
  unload(): i32 {
    if (this.desc != 0) {
      aclmdlDestroyDesc(this.desc);
      this.desc = 0;
    }
    return check("aclmdlUnload", aclmdlUnload(this.id));
  }
}

/**
 * An aclmdlDataset: a model's inputs or outputs, in order, each all of a
 * device buffer. The host reads its aclDataBuffers ({data, size}, 16 bytes)
 * at each execution; the Dataset keeps them.
 */
export class Dataset {
  private constructor(public readonly handle: u32, private bufs: StaticArray<u64>) {}

  /** A dataset of bufs, in order; null on failure. */
  static create(bufs: DeviceBuffer[]): Dataset | null {
    const h = aclmdlCreateDataset();
    if (h == 0) {
      check("aclmdlCreateDataset", ACL_ERROR_FAILURE);
      return null;
    }
    const d = new Dataset(h, new StaticArray<u64>(2 * bufs.length));
    for (let i = 0; i < bufs.length; i++) {
      d.bufs[2 * i] = bufs[i].ptr;
      d.bufs[2 * i + 1] = bufs[i].size;
      if (check("aclmdlAddDatasetBuffer", aclmdlAddDatasetBuffer(h, changetype<usize>(d.bufs) + <usize>(16 * i))) != 0) {
        const code = lastCode;
        d.destroy();
        lastCode = code;
        lastFunc = "aclmdlAddDatasetBuffer";
        return null;
      }
    }
    return d;
  }

  /** aclmdlDestroyDataset. */
  destroy(): i32 {
    return check("aclmdlDestroyDataset", aclmdlDestroyDataset(this.handle));
  }
}
