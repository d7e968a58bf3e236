// as-checksum: a checksum service over device memory, as an AssemblyScript
// reactor. The host instantiates it once (its top-level code runs as
// _initialize) and then calls its exports:
//
//   upload(len, seed)         the test pattern, len bytes, into a new device buffer
//   checksum(offset, len)     FNV-1a 64 of device bytes [offset, offset+len)
//   fill(offset, len, value)  aclrtMemset of device bytes
//   demo(len, seed)           upload, then the checksum of it all (for the CLI)
//   lastCode()                the aclError code of the last failed call (0: none)
//   release()                 frees everything
//
// Device bytes never reach the guest in one piece: upload and checksum
// stream them through a 64 KiB pinned bounce buffer (aclrtHostRegister on a
// static region) with asynchronous copies on the module's own stream.
import {
  setDevice, lastError, hostRegister, hostUnregister, DeviceBuffer, Stream, memcpyAsync, memset,
  MemcpyKind, HostRegisterType, ACL_SUCCESS, ACL_ERROR_INVALID_PARAM,
} from "../../../guest-sdk/assemblyscript/assembly";

const CHUNK: u64 = 65536;
const bounce: usize = memory.data(<i32>CHUNK, 64);

let code: i32 = ACL_SUCCESS;
let device: DeviceBuffer | null = null;

function ok(c: i32): bool {
  if (c != ACL_SUCCESS) code = c;
  return c == ACL_SUCCESS;
}

// Set up once, at instantiation: device 0, a stream, the pinned bounce buffer.
if (!ok(setDevice(0))) unreachable();
const s = Stream.create();
if (s === null) unreachable();
const stream = changetype<Stream>(s);
if (!ok(hostRegister(<u64>bounce, CHUNK, HostRegisterType.MAPPED))) unreachable();

/** Byte i of the test pattern: the top byte of (i XOR seed) * 2654435761. */
function pattern(seed: u32, i: u32): u8 {
  return <u8>(((i ^ seed) * 2654435761) >> 24);
}

/**
 * Allocates a device buffer of len bytes (freeing the previous one) and
 * uploads the test pattern into it. Returns the aclError code.
 */
export function upload(len: u64, seed: u32): i32 {
  if (len == 0) return (code = ACL_ERROR_INVALID_PARAM);
  if (device !== null) {
    const c = changetype<DeviceBuffer>(device).free();
    device = null;
    if (!ok(c)) return c;
  }
  const d = DeviceBuffer.alloc(len);
  if (d === null) {
    const e = lastError();
    return (code = e === null ? ACL_ERROR_INVALID_PARAM : e.code);
  }
  device = d;
  for (let at: u64 = 0; at < len; at += CHUNK) {
    const n = min(CHUNK, len - at);
    for (let i: u64 = 0; i < n; i++) store<u8>(bounce + <usize>i, pattern(seed, <u32>(at + i)));
    let c = memcpyAsync(d.ptr + at, len - at, <u64>bounce, n, MemcpyKind.HOST_TO_DEVICE, stream);
    // The bounce buffer is read when the copy runs: wait before refilling it.
    if (c == ACL_SUCCESS) c = stream.synchronize();
    if (!ok(c)) return c;
  }
  return ACL_SUCCESS;
}

/**
 * FNV-1a 64 of device bytes [offset, offset+len). Returns 0 on failure, with
 * the code in lastCode(); a range outside the buffer fails in the host.
 */
export function checksum(offset: u64, len: u64): u64 {
  if (device === null) {
    code = ACL_ERROR_INVALID_PARAM;
    return 0;
  }
  const d = changetype<DeviceBuffer>(device);
  let h: u64 = 0xcbf29ce484222325;
  for (let at: u64 = 0; at < len; ) {
    const n = min(CHUNK, len - at);
    // No range check here on purpose: the host checks every copy.
    let c = memcpyAsync(<u64>bounce, CHUNK, d.ptr + offset + at, n, MemcpyKind.DEVICE_TO_HOST, stream);
    if (c == ACL_SUCCESS) c = stream.synchronize();
    if (!ok(c)) return 0;
    for (let i: u64 = 0; i < n; i++) {
      h ^= <u64>load<u8>(bounce + <usize>i);
      h *= 0x100000001b3;
    }
    at += n;
  }
  return h;
}

/** Sets device bytes [offset, offset+len) to value. Returns the aclError code. */
export function fill(offset: u64, len: u64, value: u8): i32 {
  if (device === null) return (code = ACL_ERROR_INVALID_PARAM);
  const d = changetype<DeviceBuffer>(device);
  const max = offset < d.size ? d.size - offset : 0;
  const c = memset(d.ptr + offset, max, <i32>value, len);
  ok(c);
  return c;
}

/**
 * upload(len, seed), then checksum(0, len): one call for the command line
 * (aclwasm run --invoke demo). Returns 0 on failure.
 */
export function demo(len: u64, seed: u32): u64 {
  if (upload(len, seed) != ACL_SUCCESS) return 0;
  return checksum(0, len);
}

/** The aclError code of the most recent failed call, 0 if none failed. */
export function lastCode(): i32 {
  return code;
}

/** Frees the device buffer, the stream and the bounce buffer's registration. */
export function release(): i32 {
  if (device !== null) {
    if (!ok(changetype<DeviceBuffer>(device).free())) return code;
    device = null;
  }
  if (!ok(stream.destroy())) return code;
  if (!ok(hostUnregister(<u64>bounce))) return code;
  return ACL_SUCCESS;
}
