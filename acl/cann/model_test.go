//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// omFile writes the stand-in's offline model (testdata/standin/mdl.c):
// y = 2x + 1 over n float32 with op "affine", a failure as it runs with
// op "fail"; work and weight are what aclmdlQuerySize reports.
func omFile(t *testing.T, op string, n int, work, weight uint64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), op+".om")
	body := fmt.Sprintf("aclwasm-standin-om\nn %d\nop %s\nwork %d\nweight %d\n", n, op, work, weight)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// loadedModels is how many models the stand-in holds loaded.
func (s *standin) loadedModels(t *testing.T) uint64 {
	t.Helper()
	var f func() uint64
	h, err := purego.Dlopen(s.path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	purego.RegisterLibFunc(&f, h, "aclwasmStandinModels")
	return f()
}

// modelBufs allocates x (n float32 0, 1, ...) and y on device 0 and a
// stream, released when the test ends.
func modelBufs(t *testing.T, b *Backend, n int) (x, y acl.DevPtr, st acl.Stream) {
	t.Helper()
	ctx := context.Background()
	host := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(host[4*i:], math.Float32bits(float32(i)))
	}
	var err error
	x, err = b.Malloc(0, uint64(4*n), acl.MemMallocHugeFirst)
	require.NoError(t, err)
	y, err = b.Malloc(0, uint64(4*n), acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memcpy(ctx, acl.Device(x), acl.Host(host, 0), uint64(4*n)))
	require.NoError(t, b.Memset(ctx, acl.Device(y), 0, uint64(4*n)))
	st, err = b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, b.DestroyStream(ctx, st))
		require.NoError(t, b.Free(ctx, x))
		require.NoError(t, b.Free(ctx, y))
	})
	return x, y, st
}

// readY returns the n float32 at y.
func readY(t *testing.T, b *Backend, y acl.DevPtr, n int) []float32 {
	t.Helper()
	host := make([]byte, 4*n)
	require.NoError(t, b.Memcpy(context.Background(), acl.Host(host, 0), acl.Device(y), uint64(4*n)))
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(host[4*i:]))
	}
	return out
}

func affine(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = 2*float32(i) + 1
	}
	return out
}

func modelLaunch(m acl.NativeModel, x, y acl.DevPtr, n int, check func() error, ran *int) *acl.Launch {
	return &acl.Launch{
		Name:    "model test",
		Regions: []acl.Region{{Ptr: x, N: uint64(4 * n)}, {Ptr: y, N: uint64(4 * n), Write: true}},
		Check:   check,
		Model: &acl.ModelCall{Model: m, Inputs: 1, Ran: func(_ time.Duration, err error) error {
			*ran++
			return err
		}},
	}
}

// TestModelNative: an offline model is queried, loaded and described
// through the runtime's aclmdl functions, executed in stream order over
// datasets of the regions' native addresses (aclmdlExecuteAsync), and
// unloaded; its failure as it runs fails the stream with the runtime's
// code, and a launch whose Check fails runs nothing.
func TestModelNative(t *testing.T) {
	b, s := open(t, full)
	ctx := context.Background()
	const n = 8
	path := omFile(t, "affine", n, 4096, 8192)
	work, weight, err := b.QueryModel(path)
	require.NoError(t, err)
	require.Equal(t, [2]uint64{4096, 8192}, [2]uint64{work, weight})

	m, d, err := b.LoadModel(0, path)
	require.NoError(t, err)
	require.Equal(t, acl.ModelDesc{
		Inputs:  []acl.ModelIO{{Name: "x", Dims: []int64{n}, Type: acl.DTFloat, Format: acl.FormatND, Size: 4 * n}},
		Outputs: []acl.ModelIO{{Name: "y", Dims: []int64{n}, Type: acl.DTFloat, Format: acl.FormatND, Size: 4 * n}},
		Work:    4096, Weight: 8192,
	}, d)
	require.EqualValues(t, 1, s.loadedModels(t))

	x, y, st := modelBufs(t, b, n)
	ran := 0
	require.NoError(t, b.ExecuteModel(st, modelLaunch(m, x, y, n, nil, &ran)))
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	require.Equal(t, 1, ran)
	require.Equal(t, affine(n), readY(t, b, y, n))
	require.NotEmpty(t, s.calls("aclmdlExecuteAsync"))

	// A Check that fails: nothing runs, the stream holds its error.
	require.NoError(t, b.Memset(ctx, acl.Device(y), 0, 4*n))
	require.NoError(t, b.ExecuteModel(st, modelLaunch(m, x, y, n, func() error { return acl.Errorf(acl.ErrRTModelExecute, "freed") }, &ran)))
	require.ErrorIs(t, b.SynchronizeStream(ctx, st, -1), acl.ErrRTModelExecute)
	require.Equal(t, 1, ran)
	require.Equal(t, make([]float32, n), readY(t, b, y, n))

	// A model that fails as it runs.
	fm, _, err := b.LoadModel(0, omFile(t, "fail", n, 0, 0))
	require.NoError(t, err)
	require.NoError(t, b.ExecuteModel(st, modelLaunch(fm, x, y, n, nil, &ran)))
	require.ErrorIs(t, b.SynchronizeStream(ctx, st, -1), acl.ErrRTModelExecute)
	require.Equal(t, 2, ran)
	require.NoError(t, b.UnloadModel(fm))

	// A region outside the allocations is refused when queued.
	require.ErrorIs(t, b.ExecuteModel(st, modelLaunch(m, x, y+8, n, nil, &ran)), acl.ErrRTParamInvalid)

	require.NoError(t, b.UnloadModel(m))
	require.ErrorIs(t, b.UnloadModel(m), acl.ErrGEModelIDInvalid)
	require.ErrorIs(t, b.ExecuteModel(st, modelLaunch(m, x, y, n, nil, &ran)), acl.ErrGEModelIDInvalid)
	require.Zero(t, s.loadedModels(t))

	// Files the runtime cannot load: the runtime's codes.
	_, _, err = b.LoadModel(0, filepath.Join(t.TempDir(), "none.om"))
	require.ErrorIs(t, err, acl.ErrGEModelPathInvalid)
	bad := filepath.Join(t.TempDir(), "bad.om")
	require.NoError(t, os.WriteFile(bad, []byte("not a model"), 0o644))
	_, _, err = b.LoadModel(0, bad)
	require.ErrorIs(t, err, acl.ErrGEModelDataSizeInvalid)
	require.Zero(t, s.loadedModels(t))
}

// TestModelNativeUnloadQueued: a model unloaded while an execution of it
// is queued stays loaded until that execution has run (and writes its
// output); one dropped by a forced destruction of its stream releases it
// too; Close unloads what is left.
func TestModelNativeUnloadQueued(t *testing.T) {
	b, s := open(t, full)
	ctx := context.Background()
	const n = 4
	m, _, err := b.LoadModel(0, omFile(t, "affine", n, 0, 0))
	require.NoError(t, err)
	x, y, st := modelBufs(t, b, n)
	gate := make(chan struct{})
	require.NoError(t, b.LaunchHostFunc(st, func() error { <-gate; return nil }))
	ran := 0
	require.NoError(t, b.ExecuteModel(st, modelLaunch(m, x, y, n, nil, &ran)))
	require.NoError(t, b.UnloadModel(m))
	require.EqualValues(t, 1, s.loadedModels(t), "kept for the queued execution")
	require.ErrorIs(t, b.ExecuteModel(st, modelLaunch(m, x, y, n, nil, &ran)), acl.ErrGEModelIDInvalid)
	close(gate)
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	require.Equal(t, affine(n), readY(t, b, y, n))
	require.Zero(t, s.loadedModels(t), "unloaded after its last execution")

	// Dropped by a forced destruction: released all the same.
	m, _, err = b.LoadModel(0, omFile(t, "affine", n, 0, 0))
	require.NoError(t, err)
	st2, err := b.CreateStream(0)
	require.NoError(t, err)
	hold, err := b.CreateStream(0)
	require.NoError(t, err)
	ev, err := b.CreateEvent(0)
	require.NoError(t, err)
	gate = make(chan struct{})
	require.NoError(t, b.LaunchHostFunc(hold, func() error { <-gate; return nil }))
	require.NoError(t, b.RecordEvent(ev, hold))
	require.NoError(t, b.StreamWaitEvent(st2, ev)) // st2 waits for the gate
	require.NoError(t, b.Memset(ctx, acl.Device(y), 0, 4*n))
	require.NoError(t, b.ExecuteModel(st2, modelLaunch(m, x, y, n, nil, &ran)))
	require.NoError(t, b.UnloadModel(m))
	require.NoError(t, b.DestroyStreamForce(st2))
	close(gate)
	require.NoError(t, b.SynchronizeStream(ctx, hold, -1))
	require.NoError(t, b.DestroyStream(ctx, hold))
	require.NoError(t, b.DestroyEvent(ev))
	require.Equal(t, make([]float32, n), readY(t, b, y, n), "the dropped execution wrote nothing")
	require.Zero(t, s.loadedModels(t), "the dropped execution released the model")

	_, _, err = b.LoadModel(0, omFile(t, "affine", n, 0, 0))
	require.NoError(t, err) // left loaded: Close unloads it (open's cleanup checks the stand-in)
}

// TestModelNativeMissing: a library without the model API runs no
// models (207000), and Supports says so.
func TestModelNativeMissing(t *testing.T) {
	b, _ := open(t, older)
	require.False(t, b.Supports("aclmdlLoadFromFile"))
	_, _, err := b.LoadModel(0, omFile(t, "affine", 4, 0, 0))
	require.ErrorIs(t, err, acl.ErrRTFeatureNotSupport)
	work, weight, err := b.QueryModel("any.om")
	require.NoError(t, err)
	require.Zero(t, work+weight)
}

// TestModelNativeSignatures: the stand-in's counterparts of the
// simulator's test models (testdata/standin/*.om) describe the same
// inputs and outputs (names, dims, types, sizes) and run: "mlp" a softmax
// into each output, "divide" an int32 division that fails as it runs on a
// zero divisor and then writes nothing. A file whose op cannot run over
// its inputs and outputs is no model (145006).
func TestModelNativeSignatures(t *testing.T) {
	b, s := open(t, full)
	ctx := context.Background()
	f32 := func(n ...int64) acl.ModelIO { return acl.ModelIO{Dims: n, Type: acl.DTFloat, Format: acl.FormatND} }
	io := func(name string, io acl.ModelIO, size uint64) acl.ModelIO { io.Name, io.Size = name, size; return io }
	mlp, d, err := b.LoadModel(0, filepath.Join("testdata", "standin", "mlp.om"))
	require.NoError(t, err)
	require.Equal(t, acl.ModelDesc{
		Inputs:  []acl.ModelIO{io("x", f32(1, 8), 32)},
		Outputs: []acl.ModelIO{io("logits", f32(1, 4), 16), io("probs", f32(1, 4), 16)},
		Work:    4096, Weight: 848,
	}, d)
	cnn, d, err := b.LoadModel(0, filepath.Join("testdata", "standin", "cnn.om"))
	require.NoError(t, err)
	require.Equal(t, []acl.ModelIO{io("image", f32(1, 3, 32, 32), 12288)}, d.Inputs)
	require.Equal(t, []acl.ModelIO{io("probs", f32(1, 10), 40)}, d.Outputs)
	require.NoError(t, b.UnloadModel(cnn))
	div, d, err := b.LoadModel(0, filepath.Join("testdata", "standin", "divide.om"))
	require.NoError(t, err)
	i32 := acl.ModelIO{Dims: []int64{1, 4}, Type: acl.DTInt32, Format: acl.FormatND}
	require.Equal(t, acl.ModelDesc{Inputs: []acl.ModelIO{io("a", i32, 16), io("b", i32, 16)}, Outputs: []acl.ModelIO{io("q", i32, 16)}}, d)

	bufs := make([]acl.DevPtr, 3)
	for i := range bufs {
		bufs[i], err = b.Malloc(0, 32, acl.MemMallocHugeFirst)
		require.NoError(t, err)
	}
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	put := func(p acl.DevPtr, v ...uint32) {
		host := make([]byte, 4*len(v))
		for i, w := range v {
			binary.LittleEndian.PutUint32(host[4*i:], w)
		}
		require.NoError(t, b.Memcpy(ctx, acl.Device(p), acl.Host(host, 0), uint64(len(host))))
	}
	get := func(p acl.DevPtr, n int) []uint32 {
		host := make([]byte, 4*n)
		require.NoError(t, b.Memcpy(ctx, acl.Host(host, 0), acl.Device(p), uint64(len(host))))
		out := make([]uint32, n)
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(host[4*i:])
		}
		return out
	}
	run := func(m acl.NativeModel, inputs int, sizes ...uint64) error {
		l := &acl.Launch{Name: "model test", Model: &acl.ModelCall{Model: m, Inputs: inputs}}
		for i, n := range sizes {
			l.Regions = append(l.Regions, acl.Region{Ptr: bufs[i], N: n, Write: i >= inputs})
		}
		require.NoError(t, b.ExecuteModel(st, l))
		return b.SynchronizeStream(ctx, st, -1)
	}

	x := []float32{1, 2, 3, 4, 100, 100, 100, 100}
	var xs []uint32
	for _, v := range x {
		xs = append(xs, math.Float32bits(v))
	}
	put(bufs[0], xs...)
	require.NoError(t, run(mlp, 1, 32, 16, 16))
	var want []float32
	for _, v := range x[:4] {
		want = append(want, float32(math.Exp(float64(v-4))/(math.Exp(-3)+math.Exp(-2)+math.Exp(-1)+1)))
	}
	for _, p := range bufs[1:] {
		for i, w := range get(p, 4) {
			require.InEpsilon(t, want[i], math.Float32frombits(w), 1e-5, "output %d", i)
		}
	}

	neg := func(v int32) uint32 { return uint32(v) }
	put(bufs[0], 7, neg(-9), 100, 3)
	put(bufs[1], 2, 4, neg(-7), 3)
	require.NoError(t, run(div, 2, 16, 16, 16))
	require.Equal(t, []uint32{3, neg(-2), neg(-14), 1}, get(bufs[2], 4), "truncated, as ONNX's integer Div")
	put(bufs[1], 2, 0, 1, 1)
	put(bufs[2], 9, 9, 9, 9)
	require.ErrorIs(t, run(div, 2, 16, 16, 16), acl.ErrRTModelExecute)
	require.Equal(t, []uint32{9, 9, 9, 9}, get(bufs[2], 4), "the failed division wrote nothing")

	require.NoError(t, b.DestroyStream(ctx, st))
	for _, p := range bufs {
		require.NoError(t, b.Free(ctx, p))
	}
	require.NoError(t, b.UnloadModel(mlp))
	require.NoError(t, b.UnloadModel(div))

	for _, body := range []string{
		"input x int32 4\noutput y int32 4\nop affine\n",      // affine runs over float32
		"input x float 4\noutput y float 8\nop softmax\n",     // an output longer than x
		"input a int32 4\noutput q int32 4\nop divide\n",      // divide takes two inputs
		"input x float 1 1 1 1 1 1 1 1 1\noutput y float 1\n", // nine dims
		"n 4\ninput z float 4\noutput y float 4\n",            // n and input lines
		"input x float 4\n",                   // no output
		"input x half 4\noutput y float 4\n",  // an unknown type
		"input x float 0\noutput y float 4\n", // a zero dim
	} {
		p := filepath.Join(t.TempDir(), "bad.om")
		require.NoError(t, os.WriteFile(p, []byte("aclwasm-standin-om\n"+body), 0o644))
		_, _, err := b.LoadModel(0, p)
		require.ErrorIs(t, err, acl.ErrGEModelDataSizeInvalid, "%q", body)
	}
	require.Zero(t, s.loadedModels(t))
}
