package sandbox_test

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// sharedModels are the test models the check-order cases share (written
// once per test binary: a case per step would otherwise run the
// generator a hundred times), removed by TestMain.
var sharedModels struct {
	once sync.Once
	dir  string
	err  error
}

// modelsDir returns the shared test models' directory: the generated
// models and bad.onnx, an approved file that is no model.
func modelsDir(t *testing.T) string {
	t.Helper()
	sharedModels.once.Do(func() {
		dir, err := os.MkdirTemp("", "aclwasm-models-")
		if err == nil {
			sharedModels.dir = dir
			if err = testsupport.WriteModels(dir); err == nil {
				err = os.WriteFile(filepath.Join(dir, "bad.onnx"), []byte("not a model"), 0o644)
			}
		}
		sharedModels.err = err
	})
	require.NoError(t, sharedModels.err)
	return sharedModels.dir
}

func removeSharedModels() {
	if sharedModels.dir != "" {
		os.RemoveAll(sharedModels.dir)
	}
}

// mdlHarness is a harness on a simulator of two devices, device 0
// current, whose policy (p with Models set) approves "mlp", "cnn",
// "divide" and "bad". Models run on the simulator only (elsewhere a load
// gives 207000, which the model tests check), so the model cases run on
// one whatever the test backend is; computer false hides the
// simulator's compute, as a backend that runs no models.
func mdlHarness(h *harness, p host.Policy, computer bool) *harness {
	h.T.Helper()
	dir := modelsDir(h.T)
	p.Models = map[string]string{}
	for _, n := range []string{"mlp", "cnn", "divide", "bad"} {
		p.Models[n] = filepath.Join(dir, n+".onnx")
	}
	var b acl.Backend = sim.New(sim.WithDevices(2))
	h.T.Cleanup(func() { b.Close() })
	if !computer {
		b = bare{b}
	}
	// "gone" is approved, then removed: a load cannot open it.
	gone := filepath.Join(h.T.TempDir(), "gone.onnx")
	require.NoError(h.T, os.WriteFile(gone, nil, 0o644))
	p.Models["gone"] = gone
	h2 := newHarness(h.T, p, host.WithBackend(b))
	require.NoError(h.T, os.Remove(gone))
	h2.OK("aclrtSetDevice", 0)
	h.peer = h2
	return h2
}

// valueCode calls a model function that returns a value, checks that it
// returned want (the native failure value) and returns the code its
// failure carries (the recent error message's, the statistics'), or
// Success.
func (h *harness) valueCode(want int32, name string, args ...uint64) acl.Error {
	h.T.Helper()
	require.Equal(h.T, want, h.Call(name, args...), "%s: the native failure value", name)
	return h.Log[len(h.Log)-1].Code
}

// desc returns a description of model id (0: an empty one).
func (h *harness) desc(id uint64) uint64 {
	h.T.Helper()
	d := uint64(uint32(h.Call("aclmdlCreateDesc")))
	require.NotZero(h.T, d)
	if id != 0 {
		h.OK("aclmdlGetDesc", d, id)
	}
	return d
}

// end is an address n bytes before the end of guest memory.
func (h *harness) end(n int) uint64 { return uint64(len(h.Mem()) - n) }

// mdlExec is what the execute cases start from: model mlp loaded, an
// input dataset over x and an output dataset over y and z.
type mdlExec struct {
	id, input, output, x, y, z uint64
}

func (h *harness) mdlExec() mdlExec {
	h.T.Helper()
	var e mdlExec
	e.id = h.load("mlp")
	e.x, e.y, e.z = h.Malloc(32), h.Malloc(16), h.Malloc(16)
	e.input, e.output = h.dataset(e.x, 32), h.dataset(e.y, 16, e.z, 16)
	return e
}

// mdlLoadFileCases are the cases of aclmdlLoadFromFile and, with withMem,
// aclmdlLoadFromFileWithMem.
func mdlLoadFileCases(fn string, withMem bool) map[string]orderCase {
	call := func(h *harness, path, id uint64, mem ...uint64) acl.Error {
		if !withMem {
			return h.rc(fn, path, id)
		}
		return h.rc(fn, append([]uint64{path, id}, append(mem, 0, 0, 0, 0)[:4]...)...)
	}
	cases := map[string]orderCase{
		"path": {run: func(h *harness) acl.Error { return call(mdlHarness(h, host.Policy{}, true), 0, 0) }},
		"string": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			copy(m.Mem()[m.end(3):], "mlp") // no NUL before the end of guest memory
			return call(m, m.end(3), 0)
		}},
		"name": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			return call(m, m.CStr(mdlName, filepath.Join(modelsDir(h.T), "mlp.onnx")), 0) // a path is no name; modelId NULL too
		}},
		"id": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			return call(m, m.CStr(mdlName, "mlp"), m.end(2), 0x1234, 16) // modelId across the end; workPtr bad too
		}},
		"feature": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, false)
			return call(m, m.CStr(mdlName, "bad"), outA) // before the file is read
		}},
		"open": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			code := call(m, m.CStr(mdlName, "gone"), outA)
			require.Contains(h.T, m.Inst.Session().LastError(), `model "gone" could not be opened`)
			return code
		}},
		"load": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			code := call(m, m.CStr(mdlName, "bad"), outA)
			require.Contains(h.T, m.Inst.Session().LastError(), `model "bad" could not be loaded`)
			return code
		}},
		"memory": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{DeviceMemory: 64}, true) // mlp's weights are more
			code := call(m, m.CStr(mdlName, "mlp"), outA)
			require.Contains(h.T, m.Inst.Session().LastError(), "exceed the free device memory quota")
			return code
		}},
	}
	if withMem {
		cases["mem"] = orderCase{run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, false) // before the backend's feature
			return call(m, m.CStr(mdlName, "mlp"), outA, 0, 0, 0x1234, 16)
		}}
	}
	return cases
}

// mdlLoadMemCases are the cases of aclmdlLoadFromMem and, with withMem,
// aclmdlLoadFromMemWithMem.
func mdlLoadMemCases(fn string, withMem bool) map[string]orderCase {
	call := func(h *harness, model, n, id uint64, mem ...uint64) acl.Error {
		if !withMem {
			return h.rc(fn, model, n, id)
		}
		return h.rc(fn, append([]uint64{model, n, id}, append(mem, 0, 0, 0, 0)[:4]...)...)
	}
	guest := host.Policy{AllowGuestModels: true}
	cases := map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return call(mdlHarness(h, guest, true), data, 0, 0) }},
		"id": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true) // before the policy
			return call(m, data, 16, m.end(2))
		}},
		"policy": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			return call(m, m.end(8), 16, outA, 0x1234, 16) // the model across the end; workPtr bad too
		}},
		"feature": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, guest, false)
			return call(m, m.end(8), 16, outA)
		}},
		"range": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, guest, true)
			return call(m, m.end(8), 16, outA, 0x1234, 16)
		}},
		"parse": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, guest, true)
			copy(m.Mem()[data:], "not a model, 16")
			return call(m, data, 16, outA)
		}},
	}
	if withMem {
		cases["mem"] = orderCase{run: func(h *harness) acl.Error {
			m := mdlHarness(h, guest, true)
			copy(m.Mem()[data:], "not a model, 16")
			return call(m, data, 16, outA, 0, 0, 0x1234, 16)
		}}
	}
	return cases
}

// mdlObjectCases are the null and handle cases of a function whose first
// parameter is a description (or, with dataset, a dataset) and that
// returns an aclError; args follow it.
func mdlObjectCases(fn string, dataset bool, args ...uint64) map[string]orderCase {
	return map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return h.rc(fn, append([]uint64{0}, args...)...) }},
		"handle": {run: func(h *harness) acl.Error {
			other := "aclmdlCreateDataset" // a handle of the other kind
			if dataset {
				other = "aclmdlCreateDesc"
			}
			return h.rc(fn, append([]uint64{uint64(uint32(h.Call(other)))}, args...)...)
		}},
	}
}

// mdlValueCases are the cases of a function that returns a value: fail is
// its failure value; index adds the index case (index 5, past the test
// model's inputs and outputs, or an empty dataset's buffers); extra are
// the arguments after the index.
func mdlValueCases(fn string, fail int32, dataset, index bool, extra ...uint64) map[string]orderCase {
	var args []uint64
	if index {
		args = append(args, 0)
	}
	args = append(args, extra...)
	with := func(obj, i uint64) []uint64 { return append([]uint64{obj, i}, extra...) }
	cases := map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return h.valueCode(fail, fn, append([]uint64{0}, args...)...) }},
		"handle": {run: func(h *harness) acl.Error {
			other := "aclmdlCreateDataset"
			if dataset {
				other = "aclmdlCreateDesc"
			}
			return h.valueCode(fail, fn, append([]uint64{uint64(uint32(h.Call(other)))}, args...)...)
		}},
	}
	if index {
		cases["index"] = orderCase{run: func(h *harness) acl.Error {
			if dataset {
				return h.valueCode(fail, fn, with(uint64(uint32(h.Call("aclmdlCreateDataset"))), 0)...)
			}
			m := mdlHarness(h, host.Policy{}, true)
			require.Equal(h.T, fail, m.Call(fn, with(m.desc(0), 0)...), "an empty description has no inputs or outputs")
			return m.valueCode(fail, fn, with(m.desc(m.load("mlp")), 5)...)
		}}
	}
	return cases
}

func mdlDimsCases(fn string) map[string]orderCase {
	cases := mdlObjectCases(fn, false, 0, 0)
	cases["dims"] = orderCase{run: func(h *harness) acl.Error { return h.rc(fn, h.desc(0), 5, 0) }} // index past too
	cases["index"] = orderCase{run: func(h *harness) acl.Error {
		m := mdlHarness(h, host.Policy{}, true)
		require.Equal(h.T, acl.ErrInvalidParam, m.rc(fn, m.desc(0), 0, mdlDims), "an empty description")
		return m.rc(fn, m.desc(m.load("mlp")), 5, m.end(8)) // dims across the end too
	}}
	cases["range"] = orderCase{run: func(h *harness) acl.Error {
		m := mdlHarness(h, host.Policy{}, true)
		return m.rc(fn, m.desc(m.load("mlp")), 0, m.end(acl.IODimsSize-1))
	}}
	return cases
}

func mdlNameCases(fn string) map[string]orderCase {
	cases := mdlValueCases(fn, 0, false, true, mdlName, 64)
	cases["range"] = orderCase{run: func(h *harness) acl.Error {
		m := mdlHarness(h, host.Policy{}, true)
		return m.valueCode(0, fn, m.desc(m.load("mlp")), 0, m.end(2), 64)
	}}
	return cases
}

// mdlExecCases are the cases of aclmdlExecute and, with async,
// aclmdlExecuteAsync.
func mdlExecCases(fn string, async bool) map[string]orderCase {
	call := func(h *harness, id, in, out, s uint64) acl.Error {
		if async {
			return h.rc(fn, id, in, out, s)
		}
		return h.rc(fn, id, in, out)
	}
	cases := map[string]orderCase{
		"null": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			return call(m, 999, e.input, 0, 999) // model and stream unknown too
		}},
		"dataset": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			return call(m, 999, e.input, m.desc(0), 999)
		}},
		"id": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			m.OK("aclmdlUnload", e.id)
			return call(m, e.id, e.output, e.input, 999) // counts differ, stream unknown too
		}},
		"count": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			return call(m, e.id, e.input, m.dataset(e.y, 0), 999) // one output of two, and too small
		}},
		"small": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			id := m.load("cnn")
			x, y := m.Malloc(12288), m.Malloc(40)
			m.OK("aclrtFree", y)
			in, out := m.dataset(x, 12288-65), m.dataset(y, 40) // 65 bytes short; the output freed, stream unknown too
			code := call(m, id, in, out, 999)
			require.Contains(h.T, m.Inst.Session().LastError(), "input 0 (\"image\"): the data buffer holds 12223 bytes")
			return code
		}},
		"range": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			m.OK("aclrtFree", e.z)
			code := call(m, e.id, e.input, e.output, 999)
			require.Contains(h.T, m.Inst.Session().LastError(), "output 1")
			return code
		}},
		"context": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			m.noDevice()
			return call(m, e.id, e.input, e.output, 0)
		}},
		"queue": {run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{MaxQueued: 1}, true)
			e := m.mdlExec()
			defer m.gate(0)() // holds the one queued operation the policy allows
			return call(m, e.id, e.input, e.output, 0)
		}},
	}
	cases["modelctx"] = orderCase{run: func(h *harness) acl.Error {
		m := mdlHarness(h, host.Policy{MaxQueued: 1}, true)
		e := m.mdlExec()
		m.OK("aclrtSetDevice", 1)
		s1 := m.Stream()
		defer m.gate(s1)()                           // holds the one queued operation the policy allows
		code := call(m, e.id, e.input, e.output, s1) // the model's buffers, on its device
		require.Contains(h.T, m.Inst.Session().LastError(), "is loaded on device 0; device 1 is current")
		return code
	}}
	if async {
		cases["stream"] = orderCase{run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			m.noDevice()
			return call(m, e.id, e.input, e.output, uint64(uint32(m.Call("aclmdlCreateDataset")))) // no device too
		}}
		cases["streamctx"] = orderCase{run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			e := m.mdlExec()
			m.OK("aclrtSetDevice", 1)
			s1 := m.Stream()
			m.OK("aclrtSetDevice", 0)
			return call(m, e.id, e.input, e.output, s1)
		}}
	} else {
		cases["fails"] = orderCase{run: func(h *harness) acl.Error {
			m := mdlHarness(h, host.Policy{}, true)
			id := m.load("divide")
			a, b, q := m.Malloc(16), m.Malloc(16), m.Malloc(16)
			le.PutUint32(m.Mem()[data:], 7)
			m.OK("aclrtMemcpy", a, 16, data, 16, uint64(acl.HostToDevice))
			m.OK("aclrtMemset", b, 16, 0, 16) // every divisor 0
			m.OK("aclrtMemset", q, 16, 0x5a, 16)
			code := call(m, id, m.dataset(a, 16, b, 16), m.dataset(q, 16), 0)
			require.Contains(h.T, m.Inst.Session().LastError(), `model "divide" failed as it ran`)
			require.Contains(h.T, m.Inst.Session().LastError(), "integer divide by zero")
			m.OK("aclrtMemcpy", data2, 16, q, 16, uint64(acl.DeviceToHost))
			for i := range 16 {
				require.EqualValues(h.T, 0x5a, m.Mem()[data2+i], "the failed model wrote its output")
			}
			return code
		}}
	}
	return cases
}

func init() {
	handles := orderCase{run: func(h *harness) acl.Error {
		proxytest.Session(h.Inst).SetNextHandle(math.MaxUint32)
		return h.valueCode(0, "aclmdlCreateDesc")
	}}
	datasets := orderCase{run: func(h *harness) acl.Error {
		proxytest.Session(h.Inst).SetNextHandle(math.MaxUint32)
		return h.valueCode(0, "aclmdlCreateDataset")
	}}
	cases := map[string]map[string]orderCase{
		"aclmdlLoadFromFile":        mdlLoadFileCases("aclmdlLoadFromFile", false),
		"aclmdlLoadFromFileWithMem": mdlLoadFileCases("aclmdlLoadFromFileWithMem", true),
		"aclmdlQuerySize": {
			"path": {run: func(h *harness) acl.Error { return h.rc("aclmdlQuerySize", 0, 0, 0) }},
			"string": {run: func(h *harness) acl.Error {
				copy(h.Mem()[h.end(3):], "mlp")
				return h.rc("aclmdlQuerySize", h.end(3), 0, 0)
			}},
			"name": {run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				return m.rc("aclmdlQuerySize", m.CStr(mdlName, "nope"), 0, 0)
			}},
			"null": {run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				return m.rc("aclmdlQuerySize", m.CStr(mdlName, "bad"), outA, m.end(4)) // before the file is read
			}},
			"open": {run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				code := m.rc("aclmdlQuerySize", m.CStr(mdlName, "gone"), outA, outB)
				require.Contains(h.T, m.Inst.Session().LastError(), `model "gone" could not be opened`)
				return code
			}},
			"load": {run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				code := m.rc("aclmdlQuerySize", m.CStr(mdlName, "bad"), outA, outB)
				require.Contains(h.T, m.Inst.Session().LastError(), `model "bad" could not be loaded`)
				return code
			}},
		},
		"aclmdlLoadFromMem":        mdlLoadMemCases("aclmdlLoadFromMem", false),
		"aclmdlLoadFromMemWithMem": mdlLoadMemCases("aclmdlLoadFromMemWithMem", true),
		"aclmdlUnload": {
			"id": {run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				id := m.load("mlp")
				m.OK("aclmdlUnload", id)
				return m.rc("aclmdlUnload", id)
			}},
		},
		"aclmdlCreateDesc":    {"handles": handles},
		"aclmdlCreateDataset": {"handles": datasets},
		"aclmdlDestroyDesc":   mdlObjectCases("aclmdlDestroyDesc", false),
		"aclmdlGetDesc": func() map[string]orderCase {
			c := mdlObjectCases("aclmdlGetDesc", false, 999)
			c["id"] = orderCase{run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				d := m.desc(m.load("mlp"))
				code := m.rc("aclmdlGetDesc", d, 999)
				require.Zero(h.T, m.Call("aclmdlGetNumInputs", d), "the description was cleared first")
				return code
			}}
			return c
		}(),
		"aclmdlGetNumInputs":         mdlValueCases("aclmdlGetNumInputs", 0, false, false),
		"aclmdlGetNumOutputs":        mdlValueCases("aclmdlGetNumOutputs", 0, false, false),
		"aclmdlGetInputSizeByIndex":  mdlValueCases("aclmdlGetInputSizeByIndex", 0, false, true),
		"aclmdlGetOutputSizeByIndex": mdlValueCases("aclmdlGetOutputSizeByIndex", 0, false, true),
		"aclmdlGetInputDims":         mdlDimsCases("aclmdlGetInputDims"),
		"aclmdlGetOutputDims":        mdlDimsCases("aclmdlGetOutputDims"),
		"aclmdlGetInputNameByIndex":  mdlNameCases("aclmdlGetInputNameByIndex"),
		"aclmdlGetOutputNameByIndex": mdlNameCases("aclmdlGetOutputNameByIndex"),
		"aclmdlGetInputDataType":     mdlValueCases("aclmdlGetInputDataType", -1, false, true),
		"aclmdlGetOutputDataType":    mdlValueCases("aclmdlGetOutputDataType", -1, false, true),
		"aclmdlGetInputFormat":       mdlValueCases("aclmdlGetInputFormat", -1, false, true),
		"aclmdlGetOutputFormat":      mdlValueCases("aclmdlGetOutputFormat", -1, false, true),
		"aclmdlGetInputIndexByName": func() map[string]orderCase {
			c := mdlObjectCases("aclmdlGetInputIndexByName", false, 0, 0)
			c["name"] = orderCase{run: func(h *harness) acl.Error { return h.rc("aclmdlGetInputIndexByName", h.desc(0), 0, 0) }}
			c["index"] = orderCase{run: func(h *harness) acl.Error {
				return h.rc("aclmdlGetInputIndexByName", h.desc(0), h.CStr(mdlName, "x"), h.end(2))
			}}
			c["found"] = orderCase{run: func(h *harness) acl.Error {
				m := mdlHarness(h, host.Policy{}, true)
				require.Equal(h.T, acl.ErrInvalidParam, m.rc("aclmdlGetInputIndexByName", m.desc(0), m.CStr(mdlName, "x"), outA), "an empty description")
				return m.rc("aclmdlGetInputIndexByName", m.desc(m.load("mlp")), m.CStr(mdlName, "logits"), outA) // an output's name
			}}
			return c
		}(),
		"aclmdlDestroyDataset": mdlObjectCases("aclmdlDestroyDataset", true),
		"aclmdlAddDatasetBuffer": func() map[string]orderCase {
			c := mdlObjectCases("aclmdlAddDatasetBuffer", true, 0)
			c["buffer"] = orderCase{run: func(h *harness) acl.Error {
				ds := uint64(uint32(h.Call("aclmdlCreateDataset")))
				require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclmdlAddDatasetBuffer", ds, 0))
				return h.rc("aclmdlAddDatasetBuffer", ds, h.end(4)) // the aclDataBuffer across the end
			}}
			return c
		}(),
		"aclmdlGetDatasetNumBuffers": mdlValueCases("aclmdlGetDatasetNumBuffers", 0, true, false),
		"aclmdlGetDatasetBuffer":     mdlValueCases("aclmdlGetDatasetBuffer", 0, true, true),
		"aclmdlExecute":              mdlExecCases("aclmdlExecute", false),
		"aclmdlExecuteAsync":         mdlExecCases("aclmdlExecuteAsync", true),
	}
	for fn, c := range cases {
		orderCases[fn] = c
	}
}
