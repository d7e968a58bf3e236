// Compute through the SDK (ABI section 13), checked by the guest itself:
// two tensors added by the host's operator library (and a call with shapes
// that do not broadcast refused with the library's code), the same sum by
// the basic set's AddF32 kernel through its launcher, and the approved
// model mlp run synchronously and on a stream. It logs what it computed
// through aclAppLog at INFO (the module has no WASI), or logs the failed
// check at ERROR and traps. tests/sdk_compute_test.go runs it with the
// basic kernels granted and mlp approved.
//
// Build (from guest-sdk/assemblyscript, after npm ci):
//   npx asc examples/compute.ts -O3 --runtime stub --use abort= --exportStart _start -o compute.wasm
import {
  appLog, LogLevel, setDevice, DeviceBuffer, Stream, lastError, AclError, DataType, Tensor, Scalar, IntArray,
  Model, Dataset, nn, basic, ACL_SUCCESS, ACLNN_ERR_PARAM_INVALID, ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID,
} from "../assembly";

const FILE = "examples/compute.ts";

function say(msg: string): void {
  appLog(LogLevel.INFO, msg, "main", FILE, 0);
}

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

function buffer(size: u64): DeviceBuffer {
  const b = DeviceBuffer.alloc(size);
  check(b !== null, "alloc");
  return changetype<DeviceBuffer>(b);
}

function put(d: DeviceBuffer, v: f32[]): void {
  const b = new Uint8Array(4 * v.length);
  for (let i = 0; i < v.length; i++) store<f32>(b.dataStart + <usize>(4 * i), v[i]);
  must(d.write(0, b), "write");
}

function get(d: DeviceBuffer, n: i32): f32[] {
  const b = new Uint8Array(4 * n);
  must(d.read(0, b), "read");
  const v = new Array<f32>(n);
  for (let i = 0; i < n; i++) v[i] = load<f32>(b.dataStart + <usize>(4 * i));
  return v;
}

// fixed formats v with prec decimals, as printf's %.*f does for these values.
function fixed(v: f32, prec: i32): string {
  const scale = Math.pow(10, prec);
  let n = <i64>Math.round(Math.abs(<f64>v) * scale);
  const neg = v < 0 && n != 0;
  let s = n.toString();
  if (prec > 0) {
    while (s.length <= prec) s = "0" + s;
    s = s.slice(0, s.length - prec) + "." + s.slice(s.length - prec);
  }
  return neg ? "-" + s : s;
}

function show(v: f32[], prec: i32): string {
  let s = "";
  for (let i = 0; i < v.length; i++) s += (i > 0 ? " " : "") + fixed(v[i], prec);
  return s;
}

function same(a: f32[], b: f32[]): bool {
  if (a.length != b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] != b[i]) return false;
  return true;
}

function tensor(b: DeviceBuffer, n: i64): Tensor {
  const t = Tensor.create(b, DataType.FLOAT, [n]);
  check(t !== null, "Tensor.create");
  return changetype<Tensor>(t);
}

must(setDevice(0), "setDevice");
const sr = Stream.create();
check(sr !== null, "Stream.create");
const stream = changetype<Stream>(sr);
const a = buffer(16), b = buffer(16), c = buffer(16);
put(a, [1, 2, 3, 4]);
put(b, [10, 20, 30, 40]);
const want: f32[] = [11, 22, 33, 44];

// The operator library: c = a + 1 * b.
const ta = tensor(a, 4), tb = tensor(b, 4), tc = tensor(c, 4);
const one = changetype<Scalar>(Scalar.fromF32(1));
must(nn.add(ta, tb, one, tc, stream), "nn.add");
must(stream.synchronize(), "synchronize");
let sum = get(c, 4);
check(same(sum, want), "aclnnAdd");
say("add: " + show(sum, 0));

// Shapes that do not broadcast: refused by the first phase.
const t3 = tensor(c, 3);
const bad = nn.add(ta, t3, one, tc, stream);
const e = lastError();
check(bad == ACLNN_ERR_PARAM_INVALID && e !== null && changetype<AclError>(e).func == "aclnnAddGetWorkspaceSize" &&
  changetype<AclError>(e).message.length > 0, "add of [4] and [3] is refused");
say("bad shapes: " + bad.toString() + " " + changetype<AclError>(e).name);
must(t3.destroy() | ta.destroy() | tb.destroy() | tc.destroy() | one.destroy(), "destroy");

// Every kind of operator argument: Mm (an int8), ReduceSum (an int array, a
// bool, a data type), InplaceZero, Softmax (a negative int64) and Cast, over
// x = [[1, 2], [3, 4]].
const mb = buffer(16), r = buffer(8), z = buffer(8), sm = buffer(8), ib = buffer(16);
const tx = changetype<Tensor>(Tensor.create(a, DataType.FLOAT, [2, 2]));
const tm = changetype<Tensor>(Tensor.create(mb, DataType.FLOAT, [2, 2]));
const tr = changetype<Tensor>(Tensor.create(r, DataType.FLOAT, [2, 1]));
const tz = changetype<Tensor>(Tensor.create(z, DataType.FLOAT, [1, 2]));
const tsm = changetype<Tensor>(Tensor.create(sm, DataType.FLOAT, [1, 2]));
const ti = changetype<Tensor>(Tensor.create(ib, DataType.INT32, [4]));
const tmv = changetype<Tensor>(Tensor.create(mb, DataType.FLOAT, [4]));
check(tx !== null && tm !== null && tr !== null && tz !== null && tsm !== null && ti !== null && tmv !== null, "Tensor.create");
const axes = changetype<IntArray>(IntArray.create([1]));
must(nn.mm(tx, tx, tm, 1, stream), "nn.mm");
must(nn.reduceSum(tm, axes, true, DataType.FLOAT, tr, stream), "nn.reduceSum");
must(z.fill(0xff), "fill");
must(nn.inplaceZero(tz, stream), "nn.inplaceZero");
must(nn.softmax(tz, -1, tsm, stream), "nn.softmax");
must(nn.cast(tmv, DataType.INT32, ti, stream), "nn.cast");
must(stream.synchronize(), "synchronize");
const ints = new Uint8Array(16);
must(ib.read(0, ints), "read");
let castS = "";
for (let k = 0; k < 4; k++) castS += (k > 0 ? " " : "") + load<i32>(ints.dataStart + <usize>(4 * k)).toString();
say("ops: mm " + show(get(mb, 4), 0) + ", sum " + show(get(r, 2), 0) + ", softmax " + show(get(sm, 2), 1) + ", cast " + castS);
must(tx.destroy() | tm.destroy() | tr.destroy() | tz.destroy() | tsm.destroy() | ti.destroy() | tmv.destroy() | axes.destroy(), "destroy");
must(mb.free() | r.free() | z.free() | sm.free() | ib.free(), "free");

// A kernel the host registers: the same sum by AddF32.
must(c.fill(0), "fill");
must(basic.AddF32(1, stream, a.ptr, b.ptr, c.ptr, 4), "AddF32");
must(stream.synchronize(), "synchronize");
sum = get(c, 4);
check(same(sum, want), "AddF32");
say("kernel: " + show(sum, 0));

// An approved model: logits and probabilities of x[i] = i/4 - 1.
check(Model.load("not-approved") === null && lastError() !== null &&
  changetype<AclError>(lastError()).code == ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID, "an unapproved model");
say("unapproved: " + ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID.toString());
const mr = Model.load("mlp");
must(mr === null ? -1 : 0, "Model.load");
const m = changetype<Model>(mr);
check(m.numInputs == 1 && m.numOutputs == 2 && m.inputSize(0) == 32, "mlp has one input of 8 floats and two outputs");
const x = buffer(m.inputSize(0)), logits = buffer(m.outputSize(0)), probs = buffer(m.outputSize(1));
const xs = new Array<f32>(8);
for (let i = 0; i < 8; i++) xs[i] = <f32>i / 4 - 1;
put(x, xs);
const input = changetype<Dataset>(Dataset.create([x]));
const output = changetype<Dataset>(Dataset.create([logits, probs]));
must(m.executeAsync(input, output, stream), "executeAsync");
must(stream.synchronize(), "synchronize");
const l = get(logits, 4), p = get(probs, 4);
must(logits.fill(0), "fill");
must(m.execute(input, output), "execute");
check(same(get(logits, 4), l), "aclmdlExecute and aclmdlExecuteAsync agree");
say("logits: " + show(l, 4));
say("probs: " + show(p, 4));
must(input.destroy() | output.destroy() | m.unload(), "unload");
must(a.free() | b.free() | c.free() | x.free() | logits.free() | probs.free() | stream.destroy(), "free");
say("compute: ok");
