// A reactor plugin of the host's bytes-in, bytes-out convention
// (docs/EMBEDDING.md): the host calls its exports with
// host.Instance.CallBytes (or a host.Pool), and each returns 0 or a nonzero
// status the host sees as a *host.StatusError.
//
//   upper      the input with ASCII letters upper-cased
//   roundtrip  the input, copied to device memory and back
//   config     the value of the configuration key named by the input;
//              status 1 if the key is not set
//   repeat     the input as many times as the configuration value "times"
//              says; status 2 if it is not set or not a number; past the
//              host's output limit, the output_write error code (207012)
//              with the copies written so far
//
// Every call allocates (the input's copy), so the module is built with a
// collecting runtime: with --runtime stub an instance that serves many calls
// would fill its memory.
//
// Build (from guest-sdk/assemblyscript, after npm ci):
//   npx asc examples/bytes.ts -O3 --runtime incremental --use abort= --exportStart _initialize -o bytes.wasm
import {
  input, inputString, output, outputString, config as configValue, setDevice, DeviceBuffer, lastError, ACL_SUCCESS,
} from "../assembly";

/**
 * The status after a call gave null: the code of the failed call, or
 * ifNone if none failed (a config key that is not set).
 */
function failed(ifNone: i32): i32 {
  const e = lastError();
  return e === null ? ifNone : e.code;
}

/** A decimal count of at most 9 digits, or -1. */
function count(s: string): i32 {
  if (s.length == 0 || s.length > 9) return -1;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    n = n * 10 + (c - 48);
  }
  return n;
}

export function upper(): i32 {
  const b = input();
  if (b === null) return failed(-1);
  const data = changetype<Uint8Array>(b);
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c >= 97 && c <= 122) data[i] = c - 32;
  }
  return output(data);
}

export function roundtrip(): i32 {
  const b = input();
  if (b === null) return failed(-1);
  const data = changetype<Uint8Array>(b);
  if (data.length == 0) return ACL_SUCCESS;
  let r = setDevice(0);
  if (r != ACL_SUCCESS) return r;
  const d = DeviceBuffer.alloc(<u64>data.length);
  if (d === null) return failed(-1);
  const dev = changetype<DeviceBuffer>(d);
  const back = new Uint8Array(data.length);
  r = dev.write(0, data);
  if (r == ACL_SUCCESS) r = dev.read(0, back);
  const f = dev.free();
  if (r == ACL_SUCCESS) r = f;
  if (r != ACL_SUCCESS) return r;
  return output(back);
}

export function config(): i32 {
  const key = inputString();
  if (key === null) return failed(-1);
  const v = configValue(changetype<string>(key));
  if (v === null) return failed(1);
  return outputString(changetype<string>(v));
}

export function repeat(): i32 {
  const t = configValue("times");
  if (t === null) return failed(2);
  const times = count(changetype<string>(t));
  if (times < 0) return 2;
  const b = input();
  if (b === null) return failed(-1);
  const data = changetype<Uint8Array>(b);
  for (let i = 0; i < times; i++) {
    const r = output(data);
    if (r != ACL_SUCCESS) return r;
  }
  return ACL_SUCCESS;
}
