package sandbox_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim/model"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Guest scratch for the model tests: a model name, an aclmdlIODims.
const (
	mdlName = 0x2000
	mdlDims = 0x2400
	mdlBufs = 0x2a00 // data buffers, 16 bytes apart
)

// mdlProfiles runs f on a harness of each profile whose policy approves
// the test model "mlp".
func mdlProfiles(t *testing.T, f func(t *testing.T, h *harness, file string)) {
	dir := testsupport.Models(t)
	file := filepath.Join(dir, "mlp.onnx")
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{Models: map[string]string{"mlp": file}})
			h.OK("aclrtSetDevice", 0)
			if h.nativeRefuses() {
				return
			}
			f(t, h, file)
		})
	}
}

// nativeRefuses reports whether the harness's backend runs offline
// models rather than ONNX (the native backend, whose models
// model_native_test.go tests): then it checks that loading the ONNX model
// "mlp" is refused with the reason, and the caller's test ends there.
func (h *harness) nativeRefuses() bool {
	h.T.Helper()
	if h.RT.Backend().Traits().Computer != nil {
		return false
	}
	require.Contains(h.T, h.Code(acl.ErrGEModelDataSizeInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, "mlp"), outA), "is an ONNX file; the native backend runs offline models (.om)")
	return true
}

// load loads the approved model name and returns its id.
func (h *harness) load(name string) uint64 {
	h.T.Helper()
	h.OK("aclmdlLoadFromFile", h.CStr(mdlName, name), outA)
	return uint64(h.U32(outA))
}

// dataBuffer writes an aclDataBuffer {data, size} as the C SDK lays it
// out (two words of the profile) in guest scratch and returns its address.
func (h *harness) dataBuffer(addr, n uint64) uint64 {
	h.T.Helper()
	k := le.Uint32(h.Mem()[mdlBufs-4:]) // the next slot, kept in guest scratch
	le.PutUint32(h.Mem()[mdlBufs-4:], k+1)
	p := mdlBufs + 16*k
	if h.Prof == abi.Native32 {
		le.PutUint32(h.Mem()[p:], uint32(addr))
		le.PutUint32(h.Mem()[p+4:], uint32(n))
	} else {
		le.PutUint64(h.Mem()[p:], addr)
		le.PutUint64(h.Mem()[p+8:], n)
	}
	return uint64(p)
}

// dataset makes a dataset of data buffers over (addr, size) pairs.
func (h *harness) dataset(bufs ...uint64) uint64 {
	h.T.Helper()
	ds := uint64(uint32(h.Call("aclmdlCreateDataset")))
	require.NotZero(h.T, ds)
	for i := 0; i < len(bufs); i += 2 {
		db := h.dataBuffer(bufs[i], bufs[i+1])
		h.OK("aclmdlAddDatasetBuffer", ds, db)
		require.EqualValues(h.T, db, uint32(h.Call("aclmdlGetDatasetBuffer", ds, uint64(i/2))))
	}
	require.EqualValues(h.T, len(bufs)/2, h.Call("aclmdlGetDatasetNumBuffers", ds))
	return ds
}

// TestModelLoadAndDescribe: approved names only, with the native codes;
// the description answers as the model declares its inputs and outputs.
func TestModelLoadAndDescribe(t *testing.T) {
	mdlProfiles(t, func(t *testing.T, h *harness, file string) {
		h.Code(acl.ErrInvalidParam, "aclmdlLoadFromFile", 0, outA)
		msg := h.Code(acl.ErrGEModelPathInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, file), outA) // a path: not a name
		require.Contains(t, msg, "not a model the host approved")
		h.Code(acl.ErrInvalidParam, "aclmdlLoadFromFile", h.CStr(mdlName, "mlp"), 0)
		h.Code(acl.ErrRTFeatureNotSupport, "aclmdlLoadFromMem", mdlName, 4, outA) // AllowGuestModels unset
		id := h.load("mlp")
		require.NotEqual(t, id, h.load("mlp"), "ids are never reused")

		d := uint64(uint32(h.Call("aclmdlCreateDesc")))
		require.NotZero(t, d)
		require.Zero(t, h.Call("aclmdlGetNumInputs", d)) // empty: 0
		h.Code(acl.ErrGEModelIDInvalid, "aclmdlGetDesc", d, 999)
		h.Code(acl.ErrInvalidParam, "aclmdlGetDesc", 0, id)
		h.OK("aclmdlGetDesc", d, id)
		require.EqualValues(t, 1, h.Call("aclmdlGetNumInputs", d))
		require.EqualValues(t, 2, h.Call("aclmdlGetNumOutputs", d))
		require.EqualValues(t, 8*4, h.Call("aclmdlGetInputSizeByIndex", d, 0))
		require.EqualValues(t, 4*4, h.Call("aclmdlGetOutputSizeByIndex", d, 1))
		require.Zero(t, h.Call("aclmdlGetInputSizeByIndex", d, 1)) // past the inputs
		require.EqualValues(t, acl.DTFloat, h.Call("aclmdlGetInputDataType", d, 0))
		require.EqualValues(t, -1, h.Call("aclmdlGetOutputDataType", d, 5))
		require.EqualValues(t, acl.FormatND, h.Call("aclmdlGetInputFormat", d, 0))
		require.EqualValues(t, 5, h.Call("aclmdlGetOutputNameByIndex", d, 1, mdlName, 64))
		require.Equal(t, "probs\x00", string(h.Mem()[mdlName:mdlName+6]))
		h.OK("aclmdlGetOutputDims", d, 0, mdlDims)
		require.Equal(t, "logits\x00", string(h.Mem()[mdlDims:mdlDims+7]))
		require.EqualValues(t, 2, h.Mem()[mdlDims+acl.MaxTensorNameLen])
		h.OK("aclmdlGetInputIndexByName", d, h.CStr(mdlName, "x"), outA)
		require.Zero(t, h.Word(outA))
		h.Code(acl.ErrInvalidParam, "aclmdlGetInputIndexByName", d, h.CStr(mdlName, "y"), outA)

		h.OK("aclmdlUnload", id)
		h.Code(acl.ErrGEModelIDInvalid, "aclmdlUnload", id)
		h.OK("aclmdlDestroyDesc", d)
		h.Code(acl.ErrInvalidParam, "aclmdlDestroyDesc", d)
	})
}

// TestModelExecute: a model runs on device buffers in stream order and
// writes what the library computes directly; datasets are checked
// against the model's sizes and the session's allocations at queue time
// and again when the model runs.
func TestModelExecute(t *testing.T) {
	mdlProfiles(t, func(t *testing.T, h *harness, file string) {
		m, err := model.Load(file)
		require.NoError(t, err)
		defer m.Close()
		in := make([]byte, 32)
		for i := range 8 {
			le.PutUint32(in[4*i:], math.Float32bits(float32(i)/4-1))
		}
		want := [][]byte{make([]byte, 16), make([]byte, 16)}
		require.NoError(t, m.Run(context.Background(), [][]byte{in}, want))

		id := h.load("mlp")
		x, y, z := h.Malloc(32), h.Malloc(16), h.Malloc(16)
		copy(h.Mem()[0x3000:], in)
		h.OK("aclrtMemcpy", x, 32, 0x3000, 32, uint64(acl.HostToDevice))
		input, output := h.dataset(x, 32), h.dataset(y, 16, z, 16)
		h.Code(acl.ErrGEModelIDInvalid, "aclmdlExecute", 999, input, output)
		h.Code(acl.ErrGEParamInvalid, "aclmdlExecute", id, output, input) // counts differ
		// 8 bytes short: accepted, as natively (within the graph engine's
		// 64 bytes); the model's 16 bytes at y lie in y's allocation.
		h.OK("aclmdlExecute", id, input, h.dataset(y, 8, z, 16))
		h.Code(acl.ErrInvalidParam, "aclmdlExecute", id, input, h.dataset(y+8, 8, z, 16)) // the model's 16 bytes leave y's allocation
		h.Code(acl.ErrInvalidParam, "aclmdlExecute", id, h.dataset(0x3000, 32), output)   // guest memory
		h.Code(acl.ErrInvalidParam, "aclmdlAddDatasetBuffer", input, 0)
		h.Code(acl.ErrInvalidParam, "aclmdlAddDatasetBuffer", 0, h.dataBuffer(x, 32))
		require.Zero(t, h.Call("aclmdlGetDatasetBuffer", input, 1)) // past the buffers: NULL
		h.OK("aclmdlExecute", id, input, output)
		h.OK("aclrtMemcpy", 0x3100, 16, y, 16, uint64(acl.DeviceToHost))
		h.OK("aclrtMemcpy", 0x3200, 16, z, 16, uint64(acl.DeviceToHost))
		require.Equal(t, want[0], h.Mem()[0x3100:0x3110])
		require.Equal(t, want[1], h.Mem()[0x3200:0x3210])

		// Freed: refused when queued, nothing queued.
		h.OK("aclrtFree", z)
		require.Contains(t, h.Code(acl.ErrInvalidParam, "aclmdlExecute", id, input, output), "output 1")
		h.OK("aclrtSynchronizeStream", 0)
	})
}

// TestModelQueued: an execution queued behind a gate counts against
// MaxQueued, survives aclmdlUnload of its model (it runs, and writes its
// outputs, when the gate opens), and is cancelled by
// aclrtDestroyStreamForce without touching anything.
func TestModelQueued(t *testing.T) {
	file := filepath.Join(testsupport.Models(t), "mlp.onnx")
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{Models: map[string]string{"mlp": file}, MaxQueued: 2}) // the gate holds one
			h.OK("aclrtSetDevice", 0)
			if h.nativeRefuses() {
				return
			}
			id := h.load("mlp")
			x, y, z := h.Malloc(32), h.Malloc(16), h.Malloc(16)
			input, output := h.dataset(x, 32), h.dataset(y, 16, z, 16)

			s := h.Stream()
			open := h.gate(s)
			h.OK("aclmdlExecuteAsync", id, input, output, s)
			h.Code(acl.ErrRTOverLimit, "aclmdlExecuteAsync", id, input, output, s) // MaxQueued
			h.OK("aclmdlUnload", id)
			h.Code(acl.ErrGEModelIDInvalid, "aclmdlExecuteAsync", id, input, output, s)
			open()
			h.OK("aclrtSynchronizeStream", s)
			h.OK("aclrtMemcpy", 0x3200, 16, z, 16, uint64(acl.DeviceToHost))
			var sum float32
			for i := range 4 {
				sum += math.Float32frombits(le.Uint32(h.Mem()[0x3200+4*i:]))
			}
			require.InDelta(t, 1, sum, 1e-5, "the softmax ran after the unload")

			// Force: cancelled, nothing written.
			id = h.load("mlp")
			h.OK("aclrtMemset", z, 16, 0, 16)
			s = h.Stream()
			h.gate(s)
			h.OK("aclmdlExecuteAsync", id, input, output, s)
			h.OK("aclrtDestroyStreamForce", s)
			h.OK("aclrtMemcpy", 0x3200, 16, z, 16, uint64(acl.DeviceToHost))
			require.Equal(t, make([]byte, 16), h.Mem()[0x3200:0x3210])
		})
	}
}

// TestModelReadOnlyLease: a model may read memory the host lent
// read-only, never write its outputs there.
func TestModelReadOnlyLease(t *testing.T) {
	file := filepath.Join(testsupport.Models(t), "mlp.onnx")
	h := newHarness(t, host.Policy{Models: map[string]string{"mlp": file}})
	p, _ := testsupport.Lent(t, h.RT.Backend(), 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{ReadOnly: true})
	require.NoError(t, err)
	h.OK("aclrtSetDevice", 0)
	if h.nativeRefuses() {
		return
	}
	id := h.load("mlp")
	x, y, z := h.Malloc(32), h.Malloc(16), h.Malloc(16)
	h.OK("aclmdlExecute", id, h.dataset(l.Addr(), 32), h.dataset(y, 16, z, 16))
	require.Contains(t, h.Code(acl.ErrInvalidParam, "aclmdlExecute", id, h.dataset(x, 32), h.dataset(l.Addr(), 16, z, 16)), "read-only")
}

// TestModelGuestBytes: aclmdlLoadFromMem parses a guest's ONNX bytes only
// where the policy allows guest models.
func TestModelGuestBytes(t *testing.T) {
	file := filepath.Join(testsupport.Models(t), "mlp.onnx")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	h := newHarness(t, host.Policy{AllowGuestModels: true})
	h.OK("aclrtSetDevice", 0)
	copy(h.Mem()[0x10000:], b)
	if h.RT.Backend().Traits().Computer == nil { // never on the native backend
		h.Code(acl.ErrRTFeatureNotSupport, "aclmdlLoadFromMem", 0x10000, uint64(len(b)), outA)
		return
	}
	h.OK("aclmdlLoadFromMem", 0x10000, uint64(len(b)), outA)
	h.Code(acl.ErrGEModelDataSizeInvalid, "aclmdlLoadFromMem", 0x10000, 16, outA) // not a model
	h.Code(acl.ErrInvalidParam, "aclmdlLoadFromMem", 0, 16, outA)
}

// TestModelCache: an approved model is loaded once per runtime, shared by
// every load of the same unchanged file, and loaded again when the file
// changes.
func TestModelCache(t *testing.T) {
	dir := testsupport.Models(t)
	mlp, cnn := filepath.Join(dir, "mlp.onnx"), filepath.Join(dir, "cnn.onnx")
	h := newHarness(t, host.Policy{Models: map[string]string{"mlp": mlp, "cnn": cnn}})
	h.OK("aclrtSetDevice", 0)
	if h.nativeRefuses() {
		return
	}
	require.Zero(t, h.shared().CachedModels())
	a := h.load("mlp")
	require.NotEqual(t, a, h.load("mlp"))
	require.Equal(t, 1, h.shared().CachedModels(), "the same file is loaded once")
	h.load("cnn")
	require.Equal(t, 2, h.shared().CachedModels())
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(mlp, later, later))
	h.load("mlp")
	require.Equal(t, 2, h.shared().CachedModels(), "a changed file replaces its model")
	h.OK("aclmdlUnload", a) // the old model stays usable by whoever holds it
}

// TestModelReports: the runtime reports each model it holds compiled
// (Runtime.Models: its weights, what compiling it took, its loads and
// executions over every session), and the metrics count loads and
// executions by model name, a cached load apart from a compiled one and a
// failed execution apart from one that ran.
func TestModelReports(t *testing.T) {
	dir := testsupport.Models(t)
	mlp, div := filepath.Join(dir, "mlp.onnx"), filepath.Join(dir, "divide.onnx")
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	require.NoError(t, err)
	h := newHarness(t, host.Policy{Models: map[string]string{"mlp": mlp, "div": div}}, host.WithMetrics(m))
	h.OK("aclrtSetDevice", 0)
	if h.nativeRefuses() {
		return
	}
	require.Empty(t, h.RT.Models())
	e := h.mdlExec()
	h.load("mlp")
	h.OK("aclmdlExecute", e.id, e.input, e.output)
	h.OK("aclmdlExecuteAsync", e.id, e.input, e.output, 0)
	h.OK("aclrtSynchronizeStream", 0)
	d := h.load("div")
	a, b, q := h.Malloc(16), h.Malloc(16), h.Malloc(16)
	h.OK("aclrtMemset", b, 16, 0, 16)
	h.Code(acl.ErrRTModelExecute, "aclmdlExecute", d, h.dataset(a, 16, b, 16), h.dataset(q, 16))

	ms := h.RT.Models()
	require.Len(t, ms, 2)
	require.Equal(t, div, ms[0].Path)
	require.Equal(t, mlp, ms[1].Path)
	st, err := os.Stat(mlp)
	require.NoError(t, err)
	require.Equal(t, st.Size(), ms[1].Size)
	require.EqualValues(t, 4*(8*16+16+16*4+4), ms[1].WeightBytes)
	require.Positive(t, ms[1].LoadTime)
	require.EqualValues(t, 2, ms[1].Loads)
	require.EqualValues(t, 2, ms[1].Executions)
	require.Zero(t, ms[1].Failures)
	require.Positive(t, ms[1].ExecTime)
	require.EqualValues(t, 1, ms[0].Executions)
	require.EqualValues(t, 1, ms[0].Failures)

	// The samples of each histogram series, by its model and source or
	// outcome label.
	mfs, err := reg.Gather()
	require.NoError(t, err)
	samples := map[string]uint64{}
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			k := mf.GetName()
			for _, l := range s.GetLabel() {
				if l.GetName() != "plugin" {
					k += " " + l.GetValue()
				}
			}
			samples[k] = s.GetHistogram().GetSampleCount()
		}
	}
	require.EqualValues(t, 1, samples["aclwasm_model_load_duration_seconds mlp file"])
	require.EqualValues(t, 1, samples["aclwasm_model_load_duration_seconds mlp cache"])
	require.EqualValues(t, 1, samples["aclwasm_model_load_duration_seconds div file"])
	require.EqualValues(t, 2, samples["aclwasm_model_execution_duration_seconds mlp ok"])
	require.EqualValues(t, 1, samples["aclwasm_model_execution_duration_seconds div failed"])
	require.NotContains(t, samples, "aclwasm_model_execution_duration_seconds mlp failed")
}

// TestModelExecutionTimeCheck: a dataset's buffer taken away between
// aclmdlExecuteAsync and the execution (memory the host lent, revoked
// while the stream is held by a gate the test opens; a guest's own
// aclrtFree waits for the stream instead) fails the execution when it
// comes to run: the next synchronize returns 507011 naming the buffer,
// and the model touches nothing, not even its outputs that are still
// live.
func TestModelExecutionTimeCheck(t *testing.T) {
	mdlProfiles(t, func(t *testing.T, h *harness, file string) {
		ptr, pat := testsupport.Lent(t, h.RT.Backend(), 4096)
		l, err := h.Inst.Lend(ptr, 4096, host.LendOptions{})
		require.NoError(t, err)
		id := h.load("mlp")
		x, y := h.Malloc(32), h.Malloc(16)
		input, output := h.dataset(x, 32), h.dataset(y, 16, l.Addr(), 16)
		h.OK("aclrtMemset", y, 16, 0x5a, 16)
		s := h.Stream()
		open := h.gate(s)
		h.OK("aclmdlExecuteAsync", id, input, output, s) // valid now
		done, cancel := context.WithCancel(context.Background())
		cancel() // Revoke takes the lease out of the table, then gives up waiting for the stream
		require.Error(t, l.Revoke(done))
		open()
		msg := h.Code(acl.ErrRTModelExecute, "aclrtSynchronizeStream", s)
		require.Contains(t, msg, `model "mlp" did not run, and touched nothing`)
		require.Contains(t, msg, `output 1 ("probs")`)
		h.OK("aclrtMemcpy", 0x3100, 16, y, 16, uint64(acl.DeviceToHost))
		require.Equal(t, bytes.Repeat([]byte{0x5a}, 16), h.Mem()[0x3100:0x3110], "the model wrote a live output")
		got := make([]byte, 16)
		require.NoError(t, h.RT.Backend().Memcpy(context.Background(), acl.Host(got, 0), acl.Device(ptr), 16))
		require.Equal(t, pat[:16], got, "the model wrote the revoked lease")
		// The stream goes on: the execution with live buffers runs.
		z := h.Malloc(16)
		h.OK("aclmdlExecuteAsync", id, input, h.dataset(y, 16, z, 16), s)
		h.OK("aclrtSynchronizeStream", s)
	})
}

// TestModelFailsAsItRuns: a model that fails as it executes (an integer
// division the guest feeds a zero divisor: the ONNX runtime's error)
// fails its stream with 507011 at the next synchronize, as a device-side
// fault does natively; the recent error message names the model and the
// runtime's reason, the output is untouched, and the host goes on: the
// same model runs a good input afterwards.
func TestModelFailsAsItRuns(t *testing.T) {
	file := filepath.Join(testsupport.Models(t), "divide.onnx")
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{Models: map[string]string{"divide": file}})
			h.OK("aclrtSetDevice", 0)
			if h.RT.Backend().Traits().Computer == nil { // an ONNX model: model_native_test.go runs offline ones
				h.Code(acl.ErrGEModelDataSizeInvalid, "aclmdlLoadFromFile", h.CStr(mdlName, "divide"), outA)
				return
			}
			id := h.load("divide")
			a, b, q := h.Malloc(16), h.Malloc(16), h.Malloc(16)
			for i, v := range []int32{7, -9, 100, 3} {
				le.PutUint32(h.Mem()[0x3000+4*i:], uint32(v))
			}
			h.OK("aclrtMemcpy", a, 16, 0x3000, 16, uint64(acl.HostToDevice))
			h.OK("aclrtMemset", b, 16, 0, 16) // every divisor 0
			h.OK("aclrtMemset", q, 16, 0x5a, 16)
			in, out := h.dataset(a, 16, b, 16), h.dataset(q, 16)
			s := h.Stream()
			h.OK("aclmdlExecuteAsync", id, in, out, s)
			msg := h.Code(acl.ErrRTModelExecute, "aclrtSynchronizeStream", s)
			require.Contains(t, msg, `model "divide" failed as it ran, and wrote nothing`)
			require.Contains(t, msg, "integer divide by zero")
			h.OK("aclrtMemcpy", 0x3100, 16, q, 16, uint64(acl.DeviceToHost))
			require.Equal(t, bytes.Repeat([]byte{0x5a}, 16), h.Mem()[0x3100:0x3110])

			for i, v := range []int32{2, 4, -7, 3} {
				le.PutUint32(h.Mem()[0x3000+4*i:], uint32(v))
			}
			h.OK("aclrtMemcpy", b, 16, 0x3000, 16, uint64(acl.HostToDevice))
			h.OK("aclmdlExecuteAsync", id, in, out, s)
			h.OK("aclrtSynchronizeStream", s)
			h.OK("aclrtMemcpy", 0x3100, 16, q, 16, uint64(acl.DeviceToHost))
			var got []int32
			for i := range 4 {
				got = append(got, int32(le.Uint32(h.Mem()[0x3100+4*i:])))
			}
			require.Equal(t, []int32{3, -2, -14, 1}, got, "ONNX integer Div truncates")
		})
	}
}
