package model_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim/model"
	"github.com/aclwasm/aclwasm/internal/testsupport"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func load(t testing.TB, dir, name string) *model.Model {
	t.Helper()
	m, err := model.Load(filepath.Join(dir, name+".onnx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func read(t testing.TB, dir, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDescribe(t *testing.T) {
	dir := testsupport.Models(t)
	cases := []struct {
		name    string
		in, out []model.IO
	}{
		{"mlp",
			[]model.IO{{Name: "x", Dims: []int64{1, 8}, Type: acl.DTFloat, Format: acl.FormatND, Size: 32}},
			[]model.IO{{Name: "logits", Dims: []int64{1, 4}, Type: acl.DTFloat, Format: acl.FormatND, Size: 16},
				{Name: "probs", Dims: []int64{1, 4}, Type: acl.DTFloat, Format: acl.FormatND, Size: 16}}},
		{"cnn",
			[]model.IO{{Name: "image", Dims: []int64{1, 3, 32, 32}, Type: acl.DTFloat, Format: acl.FormatNCHW, Size: 12288}},
			[]model.IO{{Name: "probs", Dims: []int64{1, 10}, Type: acl.DTFloat, Format: acl.FormatND, Size: 40}}},
		{"scale",
			[]model.IO{{Name: "counts", Dims: []int64{2, 3}, Type: acl.DTInt32, Format: acl.FormatND, Size: 24}},
			[]model.IO{{Name: "scaled", Dims: []int64{2, 3}, Type: acl.DTFloat, Format: acl.FormatND, Size: 24}}},
	}
	for _, c := range cases {
		m := load(t, dir, c.name)
		if got := m.Inputs(); !equalIO(got, c.in) {
			t.Errorf("%s inputs = %+v, want %+v", c.name, got, c.in)
		}
		if got := m.Outputs(); !equalIO(got, c.out) {
			t.Errorf("%s outputs = %+v, want %+v", c.name, got, c.out)
		}
	}
}

func equalIO(a, b []model.IO) bool {
	return slices.EqualFunc(a, b, func(x, y model.IO) bool {
		return x.Name == y.Name && slices.Equal(x.Dims, y.Dims) && x.Type == y.Type && x.Format == y.Format && x.Size == y.Size
	})
}

// run feeds name's generated inputs and returns its outputs.
func run(t testing.TB, dir string, m *model.Model, name string) [][]byte {
	t.Helper()
	var in, out [][]byte
	for i := range m.Inputs() {
		in = append(in, read(t, dir, fmt.Sprintf("%s.in%d.bin", name, i)))
	}
	for _, o := range m.Outputs() {
		out = append(out, make([]byte, o.Size))
	}
	if err := m.Run(context.Background(), in, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunMatchesNumpy runs every generated model and compares what it
// writes with what numpy computed from the definitions of the operators
// (in float64, rounded to float32 at the end).
func TestRunMatchesNumpy(t *testing.T) {
	dir := testsupport.Models(t)
	for _, name := range []string{"mlp", "cnn", "cnnpool", "edge", "scale"} {
		t.Run(name, func(t *testing.T) {
			m := load(t, dir, name)
			for i, got := range run(t, dir, m, name) {
				want := read(t, dir, fmt.Sprintf("%s.want%d.bin", name, i))
				if err := close32(got, want); err != nil {
					t.Errorf("output %d: %v", i, err)
				}
			}
		})
	}
}

// close32 compares two float32 arrays within float32 rounding of the
// accumulations.
func close32(got, want []byte) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d bytes, want %d", len(got), len(want))
	}
	for i := 0; i < len(got); i += 4 {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[i:])))
		w := float64(math.Float32frombits(binary.LittleEndian.Uint32(want[i:])))
		if math.Abs(g-w) > 1e-5+1e-4*math.Abs(w) {
			return fmt.Errorf("element %d = %g, want %g", i/4, g, w)
		}
	}
	return nil
}

// TestEdgeDetector checks the edge model's output by its meaning as well:
// the square's edges light up and its flat inside and outside stay 0.
func TestEdgeDetector(t *testing.T) {
	dir := testsupport.Models(t)
	out := run(t, dir, load(t, dir, "edge"), "edge")[0]
	at := func(y, x int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(out[4*(32*y+x):])) }
	if at(16, 16) != 0 || at(2, 2) != 0 {
		t.Errorf("flat regions: %g inside, %g outside, want 0", at(16, 16), at(2, 2))
	}
	if at(16, 8) <= 0 || at(8, 16) <= 0 {
		t.Errorf("edges: %g left, %g top, want > 0", at(16, 8), at(8, 16))
	}
}

// TestDefaultStrides loads models whose Conv nodes omit strides (the ONNX
// default, 1), which the library alone rejects.
func TestDefaultStrides(t *testing.T) {
	dir := testsupport.Models(t)
	for _, name := range []string{"cnn", "edge"} {
		if _, err := model.Load(filepath.Join(dir, name+".onnx")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := testsupport.Models(t)
	junk := filepath.Join(dir, "junk.onnx")
	if err := os.WriteFile(junk, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{"missing.onnx", "no such file"},
		{"junk.onnx", "model:"},
		{"dynamic.onnx", "dynamic shape"},
		{"unsupported.onnx", "HardSigmoid"},
		{"deep.onnx", "129 dims, at most 128"},
	} {
		m, err := model.Load(filepath.Join(dir, c.file))
		if err == nil {
			m.Close()
			t.Errorf("%s loaded", c.file)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.file, err, c.want)
		}
	}
}

// TestRunChecksBuffers: a wrong number or size of buffers fails before
// anything runs, and the outputs stay untouched.
func TestRunChecksBuffers(t *testing.T) {
	dir := testsupport.Models(t)
	m := load(t, dir, "mlp")
	in := read(t, dir, "mlp.in0.bin")
	fill := func() [][]byte { return [][]byte{slices.Repeat([]byte{0xAB}, 16), slices.Repeat([]byte{0xAB}, 16)} }
	for _, c := range []struct {
		name    string
		in, out [][]byte
	}{
		{"no inputs", nil, fill()},
		{"short input", [][]byte{in[:31]}, fill()},
		{"long input", [][]byte{append(slices.Clone(in), 0)}, fill()},
		{"one output", [][]byte{in}, fill()[:1]},
		{"short output", [][]byte{in}, [][]byte{slices.Repeat([]byte{0xAB}, 16), slices.Repeat([]byte{0xAB}, 15)}},
	} {
		if err := m.Run(context.Background(), c.in, c.out); err == nil {
			t.Errorf("%s: ran", c.name)
		}
		for _, o := range c.out {
			if slices.ContainsFunc(o, func(b byte) bool { return b != 0xAB }) {
				t.Errorf("%s: an output was written", c.name)
			}
		}
	}
}

// TestRunCancelled: a done context stops Run before it starts, and one
// cancelled while the model executes returns at once, leaving the outputs
// untouched; Close then waits for the abandoned execution.
func TestRunCancelled(t *testing.T) {
	dir := testsupport.Models(t)
	m := load(t, dir, "mlp")
	in := [][]byte{read(t, dir, "mlp.in0.bin")}
	out := [][]byte{make([]byte, 16), make([]byte, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Run(ctx, in, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a done context: %v", err)
	}

	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	model.SetExecHook(func() { close(started); <-release })
	defer model.SetExecHook(nil)
	// A watchdog: a Run that waits for its execution despite the cancel
	// gets it released after a while, and then fails the checks below.
	dog := time.AfterFunc(30*time.Second, free)
	defer dog.Stop()
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	if err := m.Run(ctx, in, out); !errors.Is(err, context.Canceled) {
		t.Errorf("Run cancelled while executing: %v", err)
	}
	free()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if slices.ContainsFunc(o, func(b byte) bool { return b != 0 }) {
			t.Fatal("a cancelled Run wrote its outputs")
		}
	}
	if err := m.Run(context.Background(), in, out); !errors.Is(err, model.ErrClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestRunConcurrent runs one model from several goroutines at once, as
// sessions that share it do.
func TestRunConcurrent(t *testing.T) {
	dir := testsupport.Models(t)
	m := load(t, dir, "cnn")
	in := [][]byte{read(t, dir, "cnn.in0.bin")}
	want := read(t, dir, "cnn.want0.bin")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Go(func() {
			for range 3 {
				out := [][]byte{make([]byte, 40)}
				if err := m.Run(context.Background(), in, out); err != nil {
					errs[g] = err
					return
				}
				if err := close32(out[0], want); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestRunFailsAtExecution: a model that fails as it runs (an integer
// division by a divisor the caller passes as 0) returns the runtime's
// error and leaves its outputs untouched; the host goes on, and the same
// model runs a good input afterwards. (The library runs a graph's
// operations on worker goroutines by default, where such a failure is
// an unrecovered panic that ends the process: the model runs them in
// order on the caller's.)
func TestRunFailsAtExecution(t *testing.T) {
	dir := testsupport.Models(t)
	m := load(t, dir, "divide")
	a, b := read(t, dir, "divide.in0.bin"), read(t, dir, "divide.in1.bin")
	zero := make([]byte, len(b))
	copy(zero, b)
	binary.LittleEndian.PutUint32(zero[4:], 0)
	out := []byte("untouched untouc")
	err := m.Run(context.Background(), [][]byte{a, zero}, [][]byte{out})
	if err == nil || !strings.Contains(err.Error(), "integer divide by zero") {
		t.Fatalf("Run with a zero divisor = %v, want the division's error", err)
	}
	if string(out) != "untouched untouc" {
		t.Errorf("a failed run wrote its output: %q", out)
	}
	got := run(t, dir, m, "divide")[0]
	if want := read(t, dir, "divide.want0.bin"); !slices.Equal(got, want) {
		t.Errorf("divide = %v, want %v", got, want)
	}
}

// TestWeightBytes: a model reports its initializers' bytes.
func TestWeightBytes(t *testing.T) {
	dir := testsupport.Models(t)
	for name, want := range map[string]uint64{
		"mlp":    4 * (8*16 + 16 + 16*4 + 4),
		"cnn":    4 * (16*3*3*3 + 16 + 32*16*3*3 + 32 + 10*32*16*16 + 10),
		"divide": 0,
	} {
		if got := load(t, dir, name).WeightBytes(); got != want {
			t.Errorf("%s: WeightBytes = %d, want %d", name, got, want)
		}
	}
}
