package host_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim/model"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Guest scratch of the model benchmarks and tests: a model name, the
// data buffers of a dataset (16 bytes apart), as package sandbox's model
// tests lay it out.
const (
	mdlName = 0x2000
	mdlBufs = 0x2a00
)

// The model goals of the performance table: a model's execution through
// the sandbox against the same model run directly by the ONNX library in
// the same process, and the first load of a model in a session with and
// without the runtime's model cache.

// mdlBench is the proxy guest on device 0 of a runtime whose policy
// approves the test models of dir by their names.
func mdlBench(b *testing.B, dir string) *goalHarness {
	rt, err := host.NewRuntime(b.Context(), host.WithEngine(testsupport.Engine()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close(b.Context()) })
	models := map[string]string{}
	for _, name := range []string{"mlp", "cnn"} {
		models[name] = filepath.Join(dir, name+".onnx")
	}
	pl, err := rt.Load(b.Context(), testsupport.CachedWAT(b, testsupport.ProxyWAT(abi.Wide, 4, "")), host.Policy{Models: models, DeviceMemory: 1 << 30, Timeout: host.NoTimeout})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pl.Close(b.Context()) })
	return newGoalHarness(b, rt, pl, 1)
}

func (h *goalHarness) bok(b *testing.B, name string, args ...uint64) {
	if r := uint32(h.Result(b, name, args...)); r != 0 {
		b.Fatalf("%s = %d: %s", name, r, h.Inst.Session().LastError())
	}
}

// bload is aclmdlLoadFromFile of the approved name.
func (h *goalHarness) bload(b *testing.B, name string) uint64 {
	copy(h.Mem()[mdlName:], name+"\x00")
	h.bok(b, "aclmdlLoadFromFile", mdlName, outA)
	return uint64(h.U32(outA))
}

// bdataset makes a dataset of one new device buffer per size, filled with
// data[i] where given, and returns it with the buffers' addresses.
func (h *goalHarness) bdataset(b *testing.B, slot *uint32, sizes []uint64, data [][]byte) (ds uint64, devs []uint64) {
	ds = uint64(uint32(h.Result(b, "aclmdlCreateDataset")))
	for i, n := range sizes {
		h.bok(b, "aclrtMalloc", outA, n, 0)
		dev := h.U64(outA)
		if i < len(data) {
			copy(h.Mem()[0x4000:], data[i])
			h.bok(b, "aclrtMemcpy", dev, n, 0x4000, n, uint64(acl.HostToDevice))
		}
		db := uint64(mdlBufs + 16**slot) // aclDataBuffer {data, size}, wide
		*slot++
		le.PutUint64(h.Mem()[db:], dev)
		le.PutUint64(h.Mem()[db+8:], n)
		h.bok(b, "aclmdlAddDatasetBuffer", ds, db)
		devs = append(devs, dev)
	}
	return ds, devs
}

// BenchmarkGoal16ModelExec (models): aclmdlExecute of the test
// classifier "cnn" (two convolutions, a dense layer, softmax) on device
// buffers, against model.Run of the same file over Go slices. x-direct:
// the sandbox's throughput over the library's (goal: >= 0.9).
func BenchmarkGoal16ModelExec(b *testing.B) {
	dir := testsupport.Models(b)
	m, err := model.Load(filepath.Join(dir, "cnn.onnx"))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	in, err := os.ReadFile(filepath.Join(dir, "cnn.in0.bin"))
	if err != nil {
		b.Fatal(err)
	}
	var outSizes []uint64
	var out [][]byte
	for _, o := range m.Outputs() {
		outSizes = append(outSizes, o.Size)
		out = append(out, make([]byte, o.Size))
	}
	direct := func(n int) {
		for range n {
			if err := m.Run(context.Background(), [][]byte{in}, out); err != nil {
				b.Fatal(err)
			}
		}
	}
	h := mdlBench(b, dir)
	id := h.bload(b, "cnn")
	var slot uint32
	input, _ := h.bdataset(b, &slot, []uint64{uint64(len(in))}, [][]byte{in})
	output, devs := h.bdataset(b, &slot, outSizes, nil)
	sandboxed := func(n int) {
		for range n {
			h.bok(b, "aclmdlExecute", id, input, output)
		}
	}
	sandboxed(1)
	h.bok(b, "aclrtMemcpy", 0x5000, outSizes[0], devs[0], outSizes[0], uint64(acl.DeviceToHost))
	direct(1)
	if string(h.Mem()[0x5000:0x5000+outSizes[0]]) != string(out[0]) {
		b.Fatal("the sandbox's output differs from the library's")
	}
	f, r := testsupport.Measure(b, 1, direct, sandboxed)
	b.ReportMetric(f/r, "x-direct")
}

// BenchmarkGoal16ModelLoad (models, reported): aclmdlLoadFromFile of
// "cnn" in a session whose runtime has the model cached (another load
// holds it), against its first load in a fresh runtime, which parses and
// compiles the file (the floor includes the runtime's creation and the
// plugin's compilation, small beside the model's). x-uncached: the cached
// load's time over the first load's.
func BenchmarkGoal16ModelLoad(b *testing.B) {
	dir := testsupport.Models(b)
	warm := mdlBench(b, dir)
	keep := warm.bload(b, "cnn") // holds the runtime's entry
	first := func(n int) {
		for range n {
			h := mdlBench(b, dir)
			h.bload(b, "cnn")
		}
	}
	cached := func(n int) {
		for range n {
			id := warm.bload(b, "cnn")
			warm.bok(b, "aclmdlUnload", id)
		}
	}
	f, r := testsupport.Measure(b, 1, first, cached)
	b.ReportMetric(r/f, "x-uncached")
	warm.bok(b, "aclmdlUnload", keep)
}
