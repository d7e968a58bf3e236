package sandbox_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// omModel writes the stand-in's offline model (acl/cann/testdata/standin/
// mdl.c) into dir: y = 2x + 1 over n float32 (op "affine"), one that
// fails as it runs (op "fail") or one that runs until its stream's work
// is cancelled (op "stall"), needing work and weight bytes of device
// memory.
func omModel(t *testing.T, dir, op string, n int, work, weight uint64) string {
	t.Helper()
	p := filepath.Join(dir, op+".om")
	body := fmt.Sprintf("aclwasm-standin-om\nn %d\nop %s\nwork %d\nweight %d\n", n, op, work, weight)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// standinModels is how many models the stand-in holds loaded.
func standinModels(t *testing.T) uint64 {
	t.Helper()
	h, err := purego.Dlopen(testsupport.NativeLib(), purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var f func() uint64
	purego.RegisterLibFunc(&f, h, "aclwasmStandinModels")
	return f()
}

// freeQuota is what aclrtGetMemInfo reports free of the session's quota.
func (h *harness) freeQuota() uint64 {
	h.T.Helper()
	h.OK("aclrtGetMemInfo", 0, outA, outB)
	return h.Word(outA)
}

// TestModelOffline: on the native backend an approved offline model
// (.om) runs through the node's own aclmdl functions: loaded by its
// approved name only, described, executed synchronously and in stream
// order over the guest's validated buffers, with the sandbox's dataset
// checks first (a too-small buffer, counts); unloaded while an execution
// is queued it stays loaded until that has run; its device memory
// (aclmdlQuerySize) counts against the session's quota until it is
// unloaded; an ONNX file is refused. The simulator refuses an offline
// model, naming what it runs.
func TestModelOffline(t *testing.T) {
	dir := t.TempDir()
	const n = 64 // 256 bytes: a buffer may be up to 64 bytes short, as natively
	const work, weight = 4096, 8192
	affine, fail := omModel(t, dir, "affine", n, work, weight), omModel(t, dir, "fail", n, 0, 0)
	onnx := filepath.Join(dir, "net.onnx")
	require.NoError(t, os.WriteFile(onnx, []byte("an ONNX file"), 0o644))
	models := map[string]string{"affine": affine, "fail": fail, "net": onnx}
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{Models: models, MaxQueued: 4})
			h.OK("aclrtSetDevice", 0)
			if h.RT.Backend().Traits().ModelRunner == nil {
				msg := h.Code(acl.ErrGEModelDataSizeInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, "affine"), outA)
				require.Contains(t, msg, "is an offline model (.om); the simulator runs ONNX models")
				return
			}
			base := standinModels(t)
			require.Contains(t, h.Code(acl.ErrGEModelDataSizeInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, "net"), outA),
				"is an ONNX file; the native backend runs offline models (.om)")
			require.Contains(t, h.Code(acl.ErrGEModelPathInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, affine), outA), "not a model the host approved")
			h.Code(acl.ErrGEModelPathInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, "other"), outA)
			h.Code(acl.ErrRTFeatureNotSupport, "aclmdlLoadFromMem", data, 16, outA) // never guest models natively
			require.Equal(t, base, standinModels(t), "refused loads load nothing")

			free := h.freeQuota()
			id := h.load("affine")
			require.Equal(t, base+1, standinModels(t))
			require.Equal(t, free-work-weight, h.freeQuota(), "the model's device memory counts against the quota")
			h.OK("aclmdlQuerySize", h.CStr(mdlName, "affine"), outA, outB)
			require.Equal(t, [2]uint64{work, weight}, [2]uint64{h.Word(outA), h.Word(outB)})

			d := h.desc(id)
			require.EqualValues(t, 1, h.Call("aclmdlGetNumInputs", d))
			require.EqualValues(t, 1, h.Call("aclmdlGetNumOutputs", d))
			require.EqualValues(t, 4*n, h.Call("aclmdlGetInputSizeByIndex", d, 0))
			require.EqualValues(t, 4*n, h.Call("aclmdlGetOutputSizeByIndex", d, 0))
			require.EqualValues(t, acl.DTFloat, h.Call("aclmdlGetInputDataType", d, 0))
			require.EqualValues(t, acl.FormatND, h.Call("aclmdlGetOutputFormat", d, 0))
			h.OK("aclmdlGetInputDims", d, 0, mdlDims)
			require.Equal(t, "x\x00", string(h.Mem()[mdlDims:mdlDims+2]))
			require.EqualValues(t, 1, h.Call("aclmdlGetOutputNameByIndex", d, 0, 0x3800, 8))
			require.Equal(t, "y\x00", string(h.Mem()[0x3800:0x3802]))

			x, y := h.Malloc(4*n), h.Malloc(4*n)
			for i := range n {
				le.PutUint32(h.Mem()[0x3000+4*i:], math.Float32bits(float32(i)))
			}
			h.OK("aclrtMemcpy", x, 4*n, 0x3000, 4*n, uint64(acl.HostToDevice))
			input, output := h.dataset(x, 4*n), h.dataset(y, 4*n)
			readY := func() []float32 {
				h.OK("aclrtMemcpy", 0x3100, 4*n, y, 4*n, uint64(acl.DeviceToHost))
				out := make([]float32, n)
				for i := range out {
					out[i] = math.Float32frombits(le.Uint32(h.Mem()[0x3100+4*i:]))
				}
				return out
			}
			want := make([]float32, n)
			for i := range want {
				want[i] = 2*float32(i) + 1
			}

			h.OK("aclmdlExecute", id, input, output)
			require.Equal(t, want, readY())
			h.OK("aclrtMemset", y, 4*n, 0, 4*n)
			s := h.Stream()
			h.OK("aclmdlExecuteAsync", id, input, output, s)
			h.OK("aclrtSynchronizeStream", s)
			require.Equal(t, want, readY())

			// The sandbox's checks, before the runtime sees anything.
			h.Code(acl.ErrGEFailure, "aclmdlExecuteAsync", id, input, h.dataset(y, 16), s)               // too small
			h.Code(acl.ErrGEParamInvalid, "aclmdlExecuteAsync", id, input, h.dataset(y, 4*n, x, 4*n), s) // counts
			h.Code(acl.ErrGEModelIDInvalid, "aclmdlExecuteAsync", 999, input, output, s)

			// Unloaded while queued: it runs, then the model goes.
			h.OK("aclrtMemset", y, 4*n, 0, 4*n)
			open := h.gate(s)
			h.OK("aclmdlExecuteAsync", id, input, output, s)
			free = h.freeQuota()
			h.OK("aclmdlUnload", id)
			require.Equal(t, free+work+weight, h.freeQuota(), "unloaded: its memory is free again")
			h.Code(acl.ErrGEModelIDInvalid, "aclmdlExecuteAsync", id, input, output, s)
			require.Equal(t, base+1, standinModels(t), "kept for the queued execution")
			open()
			h.OK("aclrtSynchronizeStream", s)
			require.Equal(t, want, readY())
			require.Equal(t, base, standinModels(t))

			// A model that fails as it runs fails its stream.
			fid := h.load("fail")
			h.OK("aclmdlExecuteAsync", fid, input, output, s)
			require.Contains(t, h.Code(acl.ErrRTModelExecute, "aclrtSynchronizeStream", s), `model "fail" failed as it ran`)

			// A freed buffer: refused when queued.
			h.OK("aclrtFree", y)
			h.Code(acl.ErrInvalidParam, "aclmdlExecuteAsync", fid, input, output, s)
			h.OK("aclrtSynchronizeStream", s)
		})
	}
}

// TestModelQuota: a loaded model's device memory counts against the
// session's device memory quota with the native out-of-memory code, on
// the simulator (its weights) and natively (aclmdlQuerySize's sizes),
// and is free again when the model is unloaded or the session ends.
func TestModelQuota(t *testing.T) {
	dir := testsupport.Models(t)
	om := omModel(t, t.TempDir(), "affine", 8, 1<<20, 1<<20)
	models := map[string]string{"mlp": filepath.Join(dir, "mlp.onnx"), "affine": om}
	h := newHarness(t, host.Policy{Models: models})
	h.OK("aclrtSetDevice", 0)
	name := "mlp"
	if h.RT.Backend().Traits().ModelRunner != nil {
		name = "affine"
	}
	free := h.freeQuota()
	id := h.load(name)
	need := free - h.freeQuota()
	require.NotZero(t, need, "the model counts")
	h.OK("aclmdlUnload", id)
	require.Equal(t, free, h.freeQuota())

	// A quota that leaves less than the model needs.
	q := newHarness(t, host.Policy{DeviceMemory: need - 1, Models: models})
	q.OK("aclrtSetDevice", 0)
	require.Contains(t, q.Code(acl.ErrRTMemoryAllocation, "aclmdlLoadFromFile", q.CStr(mdlName, name), outA), "exceed the free device memory quota")
	require.Equal(t, need-1, q.freeQuota(), "nothing counted")
	if h.RT.Backend().Traits().ModelRunner != nil {
		require.Zero(t, standinModels(t), "nothing loaded")
	}
}

// TestModelStoppedByRunDeadline: natively, an execution still running
// when the time limit of the run that queued it passes is stopped on the
// device (aclrtStreamAbort on its operator stream) and waited for, as an
// operator is (ABI section 13.1): its stream fails with 507014, and the
// model and its buffers are free afterwards. (The simulator runs a model
// under the same bounds, as a context the ONNX library checks.)
func TestModelStoppedByRunDeadline(t *testing.T) {
	const n = 64
	stall := omModel(t, t.TempDir(), "stall", n, 0, 0)
	h := newHarness(t, host.Policy{Models: map[string]string{"stall": stall}})
	h.OK("aclrtSetDevice", 0)
	if h.RT.Backend().Traits().ModelRunner == nil {
		return // only the stand-in holds a model running on the device
	}
	base := standinModels(t)
	id := h.load("stall")
	x, y := h.Malloc(4*n), h.Malloc(4*n)
	input, output := h.dataset(x, 4*n), h.dataset(y, 4*n)
	s := h.Stream()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := h.Inst.Call(ctx, "aclmdlExecuteAsync", id, input, output, s)
	require.NoError(t, err)
	require.Zero(t, res[0], h.Inst.Session().LastError())
	watchdog, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	res, err = h.Inst.Call(watchdog, "aclrtSynchronizeStream", s)
	require.NoError(t, err, "the model outlived the deadline of the run that queued it")
	require.Equal(t, acl.ErrRTAicoreTimeout, acl.Error(int32(uint32(res[0]))), h.Inst.Session().LastError())
	require.Contains(t, h.RecentMsg(), "was stopped: the run's time limit passed while it ran")
	h.OK("aclmdlUnload", id)
	require.Equal(t, base, standinModels(t), "the stopped model unloads")
	h.OK("aclrtFree", x)
	h.OK("aclrtFree", y)
}

// TestModelQuerySize: aclmdlQuerySize reads the approved file as a load
// reads it, on either backend: it answers the device memory a load of
// the model counts against the quota (natively the runtime's work and
// weight sizes; on the simulator its weights, and no guest load
// counted), and a file that is no model the backend runs fails as the
// load would: the other kind, a file that does not parse (145006), and
// a file removed since the host approved it (145002, before its kind).
func TestModelQuerySize(t *testing.T) {
	dir := t.TempDir()
	onnx := filepath.Join(testsupport.Models(t), "mlp.onnx")
	om := omModel(t, dir, "affine", 8, 4096, 8192)
	badOM, badONNX := filepath.Join(dir, "bad.om"), filepath.Join(dir, "bad.onnx")
	require.NoError(t, os.WriteFile(badOM, []byte("not a model"), 0o644))
	require.NoError(t, os.WriteFile(badONNX, []byte("not a model"), 0o644))
	models := map[string]string{"onnx": onnx, "om": om, "bad.om": badOM, "bad.onnx": badONNX,
		"gone.om": filepath.Join(dir, "gone.om"), "gone.onnx": filepath.Join(dir, "gone.onnx")}
	for _, n := range []string{"gone.om", "gone.onnx"} {
		require.NoError(t, os.WriteFile(models[n], nil, 0o644))
	}
	h := newHarness(t, host.Policy{Models: models})
	h.OK("aclrtSetDevice", 0)
	for _, n := range []string{"gone.om", "gone.onnx"} {
		require.NoError(t, os.Remove(models[n])) // gone since it was approved
	}
	query := func(want acl.Error, name string) (uint64, uint64, string) {
		t.Helper()
		le.PutUint64(h.Mem()[outA:], 0x5a5a)
		le.PutUint64(h.Mem()[outB:], 0x5a5a)
		msg := h.Code(want, "aclmdlQuerySize", h.CStr(mdlName, name), outA, outB)
		return h.Word(outA), h.Word(outB), msg
	}
	native := h.RT.Backend().Traits().ModelRunner != nil
	ours, other, kind := "onnx", "om", "is an offline model (.om); the simulator runs ONNX models"
	if native {
		ours, other, kind = "om", "onnx", "is an ONNX file; the native backend runs offline models (.om)"
	}
	_, _, msg := query(acl.ErrGEModelDataSizeInvalid, other)
	require.Contains(t, msg, kind)
	require.Equal(t, [2]uint64{0x5a5a, 0x5a5a}, [2]uint64{h.Word(outA), h.Word(outB)}, "a failed query writes nothing")
	_, _, msg = query(acl.ErrGEModelDataSizeInvalid, "bad."+ours)
	require.Contains(t, msg, `model "bad.`+ours+`" could not be`)
	for _, n := range []string{"gone.om", "gone.onnx"} { // either kind: the open comes first
		_, _, msg = query(acl.ErrGEModelPathInvalid, n)
		require.Contains(t, msg, `model "`+n+`" could not be opened`)
	}

	work, weight, _ := query(acl.Success, ours)
	if native {
		require.Equal(t, [2]uint64{4096, 8192}, [2]uint64{work, weight})
	} else {
		require.Zero(t, work)
		require.EqualValues(t, 4*(8*16+16+16*4+4), weight, "mlp's weights")
		ms := h.RT.Models()
		require.Len(t, ms, 1, "compiled for the load that follows")
		require.Zero(t, ms[0].Loads, "no guest's load")
	}
	free := h.freeQuota()
	id := h.load(ours)
	require.Equal(t, work+weight, free-h.freeQuota(), "what the load counts against the quota")
	h.OK("aclmdlUnload", id)
}

// TestModelLoadWithMem: aclmdlLoadFromFileWithMem of an approved model
// validates the guest's work and weight memory but, natively, does not
// hand it to the runtime (the guest may free it while the model is
// loaded): the runtime allocates the model's own, which counts against
// the session's quota and the runtime's device memory gauge beyond the
// guest's allocations, as a plain load does, until the unload; a quota
// it does not fit refuses the load, and nothing is loaded. (On the
// simulator a weightPtr holds the weights: nothing more counts.) Models
// from guest memory are refused natively even where the policy allows
// them, without a native call.
func TestModelLoadWithMem(t *testing.T) {
	const work, weight = 4096, 8192
	om := omModel(t, t.TempDir(), "affine", 8, work, weight)
	models := map[string]string{"mlp": filepath.Join(testsupport.Models(t), "mlp.onnx"), "affine": om}
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	require.NoError(t, err)
	h := newHarness(t, host.Policy{Models: models, AllowGuestModels: true}, host.WithMetrics(m))
	h.OK("aclrtSetDevice", 0)
	native := h.RT.Backend().Traits().ModelRunner != nil
	name, counts := "mlp", uint64(0)
	if native {
		name, counts = "affine", work+weight
	}
	gauge := func() uint64 { return uint64(series(t, reg, "aclwasm_device_allocated_bytes")["[device=0]"]) }
	free0, held0 := h.freeQuota(), gauge()
	wp, gp := h.Malloc(work), h.Malloc(weight)
	free, held := h.freeQuota(), gauge()
	base := uint64(0)
	if native {
		base = standinModels(t)
	}
	h.OK("aclmdlLoadFromFileWithMem", h.CStr(mdlName, name), outA, wp, work, gp, weight)
	id := uint64(h.U32(outA))
	require.Equal(t, counts, free-h.freeQuota(), "the session's quota")
	require.Equal(t, counts, gauge()-held, "the runtime's device memory")
	if native {
		require.Equal(t, base+1, standinModels(t))
	}
	h.OK("aclrtFree", wp) // the guest's memory holds no part of the model
	h.OK("aclrtFree", gp)
	x, y := h.Malloc(32), h.Malloc(32)
	if native {
		h.OK("aclmdlExecute", id, h.dataset(x, 32), h.dataset(y, 32))
	}
	h.OK("aclmdlUnload", id)
	h.OK("aclrtFree", x)
	h.OK("aclrtFree", y)
	require.Equal(t, free0, h.freeQuota(), "all free again")
	require.Equal(t, held0, gauge())
	if !native {
		return
	}
	require.Equal(t, base, standinModels(t))

	// Models from guest memory: never natively, whatever the policy says.
	copy(h.Mem()[data:], "aclwasm-standin-om\nn 8\n")
	for _, fn := range []string{"aclmdlLoadFromMem", "aclmdlLoadFromMemWithMem"} {
		args := []uint64{data, 24, outA}
		if fn == "aclmdlLoadFromMemWithMem" {
			args = append(args, 0, 0, 0, 0)
		}
		require.Contains(t, h.Code(acl.ErrRTFeatureNotSupport, fn, args...), "runs no models from guest memory (a model carries device code)")
	}
	require.Equal(t, base, standinModels(t))

	// A quota the guest's memory fits and the model's does not.
	q := newHarness(t, host.Policy{Models: models, DeviceMemory: work + weight + counts - 1})
	q.OK("aclrtSetDevice", 0)
	wp, gp = q.Malloc(work), q.Malloc(weight)
	left := q.freeQuota()
	require.Less(t, left, counts)
	require.Contains(t, q.Code(acl.ErrRTMemoryAllocation, "aclmdlLoadFromFileWithMem", q.CStr(mdlName, name), outA, wp, work, gp, weight),
		"exceed the free device memory quota")
	require.Equal(t, left, q.freeQuota(), "nothing counted")
	require.Equal(t, base, standinModels(t), "nothing loaded")
}

// TestModelNativeReports: natively the runtime lists the offline models
// the node's runtime holds loaded (Runtime.Models) as it lists compiled
// ones: the file, the device memory of each load, what loading took, the
// guests' loads held and its executions; one entry per file, gone with
// its last unload.
func TestModelNativeReports(t *testing.T) {
	dir := t.TempDir()
	affine, fail := omModel(t, dir, "affine", 8, 4096, 8192), omModel(t, dir, "fail", 8, 0, 64)
	h := newHarness(t, host.Policy{Models: map[string]string{"affine": affine, "fail": fail}})
	h.OK("aclrtSetDevice", 0)
	if h.RT.Backend().Traits().ModelRunner == nil {
		return // the simulator's list: TestModelReports
	}
	require.Empty(t, h.RT.Models())
	t0 := time.Now()
	a, b := h.load("affine"), h.load("affine")
	x, y := h.Malloc(32), h.Malloc(32)
	in, out := h.dataset(x, 32), h.dataset(y, 32)
	h.OK("aclmdlExecute", a, in, out)
	h.OK("aclmdlExecuteAsync", b, in, out, 0)
	h.OK("aclrtSynchronizeStream", 0)
	f := h.load("fail")
	h.Code(acl.ErrRTModelExecute, "aclmdlExecute", f, in, out)

	ms := h.RT.Models()
	require.Len(t, ms, 2)
	require.Equal(t, []string{affine, fail}, []string{ms[0].Path, ms[1].Path})
	st, err := os.Stat(affine)
	require.NoError(t, err)
	m := ms[0]
	require.True(t, m.Native)
	require.Equal(t, st.Size(), m.Size)
	require.True(t, st.ModTime().Equal(m.ModTime))
	require.Equal(t, [2]uint64{4096, 8192}, [2]uint64{m.WorkBytes, m.WeightBytes})
	require.Equal(t, 2, m.Held)
	require.EqualValues(t, 2, m.Loads)
	require.Positive(t, m.LoadTime)
	require.False(t, m.LoadedAt.Before(t0))
	require.EqualValues(t, 2, m.Executions)
	require.Zero(t, m.Failures)
	require.Positive(t, m.ExecTime)
	require.Equal(t, [2]uint64{0, 64}, [2]uint64{ms[1].WorkBytes, ms[1].WeightBytes})
	require.EqualValues(t, 1, ms[1].Executions)
	require.EqualValues(t, 1, ms[1].Failures)

	h.OK("aclmdlUnload", a)
	ms = h.RT.Models()
	require.Len(t, ms, 2)
	require.Equal(t, 1, ms[0].Held, "one load of affine left")
	h.OK("aclmdlUnload", b)
	h.OK("aclmdlUnload", f)
	require.Empty(t, h.RT.Models(), "nothing loaded natively")

	h.load("affine")
	require.Len(t, h.RT.Models(), 1)
	require.NoError(t, h.Inst.Close(context.Background()))
	require.Empty(t, h.RT.Models(), "the session's end unloads its models")
}

// TestModelDeviceMismatch: on either backend a model runs in the context
// it was loaded in, as natively: executed with another device current it
// gets 107004 (ACL_ERROR_RT_MODEL_CONTEXT) and a message naming both
// devices, and a dataset buffer in another device's memory is refused
// (107000, natively a device fault), before anything is queued.
func TestModelDeviceMismatch(t *testing.T) {
	om := omModel(t, t.TempDir(), "affine", 8, 0, 0)
	models := map[string]string{"mlp": filepath.Join(testsupport.Models(t), "mlp.onnx"), "affine": om}
	h := newHarness(t, host.Policy{Models: models})
	h.OK("aclrtSetDevice", 0)
	name, in, out := "mlp", []uint64{32}, []uint64{16, 16}
	if h.RT.Backend().Traits().ModelRunner != nil {
		name, out = "affine", []uint64{32}
	}
	bufs := func() (uint64, uint64) {
		var i, o []uint64
		for _, n := range in {
			i = append(i, h.Malloc(n), n)
		}
		for _, n := range out {
			o = append(o, h.Malloc(n), n)
		}
		return h.dataset(i...), h.dataset(o...)
	}
	id := h.load(name)
	input, output := bufs()
	h.OK("aclrtSetDevice", 1)
	input1, output1 := bufs()
	s1 := h.Stream()
	for _, call := range [][]uint64{{id, input, output}, {id, input, output, s1}} {
		fn := "aclmdlExecute"
		if len(call) == 4 {
			fn = "aclmdlExecuteAsync"
		}
		msg := h.Code(acl.ErrRTModelContext, fn, call...)
		require.Contains(t, msg, fmt.Sprintf("model %q (id %d) is loaded on device 0; device 1 is current", name, id))
		require.Contains(t, h.RecentMsg(), "the model is not in the current context")
	}
	h.OK("aclrtSynchronizeStream", s1) // nothing was queued
	h.OK("aclrtSetDevice", 0)
	require.Contains(t, h.Code(acl.ErrInvalidParam, "aclmdlExecute", id, input1, output), `input 0 ("x"): its memory is on device 1; the model is loaded on device 0`)
	require.Contains(t, h.Code(acl.ErrInvalidParam, "aclmdlExecuteAsync", id, input, output1, 0), "its memory is on device 1")
	h.OK("aclmdlExecute", id, input, output)
	h.OK("aclmdlUnload", id)
}
