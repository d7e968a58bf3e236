// A complete aclwasm guest in AssemblyScript: device memory, a pinned buffer,
// a stream, and the copies between them. The host runs the exported _start
// (the top-level code); a failed check traps (unreachable). The export
// copyWithoutSync makes the classic mistake of reading the pinned buffer
// before synchronizing the stream: a host with the checking mode on
// (`aclwasm run --check-async --invoke copyWithoutSync`) reports the copy
// it did not wait for.
//
// Build (from guest-sdk/assemblyscript, after npm ci):
//   npx asc examples/copy.ts -O3 --runtime stub --use abort= --exportStart _start -o copy.wasm
import {
  setDevice, DeviceBuffer, PinnedBuffer, Stream, AclError, memcpy, memcpyAsync, lastError,
  addrOf, MemcpyKind, ACL_SUCCESS, ACL_ERROR_RT_PARAM_INVALID,
} from "../assembly";

function must(code: i32): void {
  if (code != ACL_SUCCESS) unreachable();
}

// copies does the round trips; skipSync leaves out the synchronize before
// the pinned buffer is read.
function copies(skipSync: bool): void {
  must(setDevice(0));

  // Synchronous round trip through device memory.
  const input = new Uint8Array(1024);
  for (let i = 0; i < input.length; i++) input[i] = <u8>(i * 7);
  const dev = DeviceBuffer.alloc(<u64>input.length);
  if (dev === null) unreachable();
  const d = changetype<DeviceBuffer>(dev);
  must(d.write(0, input));
  const back = new Uint8Array(input.length);
  must(d.read(0, back));
  for (let i = 0; i < input.length; i++) if (back[i] != input[i]) unreachable();

  // An asynchronous memset, copied back into pinned memory.
  const s = Stream.create();
  if (s === null) unreachable();
  const stream = changetype<Stream>(s);
  const p = PinnedBuffer.alloc(input.length);
  if (p === null) unreachable();
  const pinned = changetype<PinnedBuffer>(p);
  const n = <u64>input.length;
  must(d.fillAsync(0x5a, stream));
  must(memcpyAsync(pinned.ptr, n, d.ptr, n, MemcpyKind.DEVICE_TO_HOST, stream));
  if (!skipSync) must(stream.synchronize());
  for (let i = 0; i < input.length; i++) if (pinned.bytes[i] != 0x5a) unreachable();

  // A failing call: lastError() has the code, its name and the host's message.
  if (memcpy(d.ptr, 16, addrOf(input), 32, MemcpyKind.HOST_TO_DEVICE) != ACL_ERROR_RT_PARAM_INVALID) unreachable();
  const e = lastError();
  if (e === null) unreachable();
  const err = changetype<AclError>(e);
  if (err.name != "ACL_ERROR_RT_PARAM_INVALID" || err.message.length == 0) unreachable();

  must(pinned.free());
  must(stream.destroy());
  must(d.free());
}

copies(false);

export function copyWithoutSync(): void {
  copies(true);
}
