package cann

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/x448/float16"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/cann"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Guest memory of the operator program.
const (
	gOut     = 0x100  // an out-parameter
	gDims    = 0x2000 // int64_t viewDims / storageDims
	gValues  = 0x2300 // a scalar's value, an int array's values
	gWS      = 0x2400 // uint64_t workspaceSize
	gEx      = 0x2408 // aclOpExecutor *
	gData    = 0x3000 // host data to and from the device
	gResults = 0x4000 // the program's results, copied back
)

// nnGuest drives the proxy guest (testsupport.Proxy) as a program would.
type nnGuest struct {
	t    *testing.T
	inst *host.Instance
}

func newNNGuest(t *testing.T, opts ...host.Option) *nnGuest {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, append([]host.Option{host.WithEngine(testsupport.Engine())}, opts...)...)
	require.NoError(t, err)
	pl, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), host.Policy{})
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, inst.Close(ctx))
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	return &nnGuest{t: t, inst: inst}
}

func (g *nnGuest) call(name string, args ...uint64) acl.Error {
	g.t.Helper()
	res, err := g.inst.Call(context.Background(), name, args...)
	require.NoError(g.t, err, name)
	return acl.Error(int32(uint32(res[0])))
}

func (g *nnGuest) ok(name string, args ...uint64) {
	g.t.Helper()
	require.Equal(g.t, acl.Success, g.call(name, args...), "%s: %s", name, g.inst.Session().LastError())
}

func (g *nnGuest) write(off uint32, b []byte) { require.NoError(g.t, g.inst.WriteMemory(off, b)) }

func (g *nnGuest) read(off, n uint32) []byte {
	b, err := g.inst.ReadMemory(off, n)
	require.NoError(g.t, err)
	return append([]byte(nil), b...)
}

func (g *nnGuest) word(off uint32) uint64 { return binary.LittleEndian.Uint64(g.read(off, 8)) }

func i64s(vs ...int64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

func f32bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// device allocates n bytes of device memory holding b (zeros when nil).
func (g *nnGuest) device(n uint64, b []byte) uint64 {
	g.t.Helper()
	g.ok("aclrtMalloc", gOut, n, 0)
	p := g.word(gOut)
	if b != nil {
		g.write(gData, b)
		g.ok("aclrtMemcpy", p, n, gData, uint64(len(b)), uint64(acl.MemcpyHostToDevice))
	}
	return p
}

// tensor creates a contiguous tensor of dims over p.
func (g *nnGuest) tensor(dt acl.DataType, p uint64, dims ...int64) uint64 {
	g.t.Helper()
	g.write(gDims, i64s(dims...))
	h := uint64(uint32(g.call("aclCreateTensor", gDims, uint64(len(dims)), uint64(dt), 0, 0, uint64(acl.FormatND), gDims, uint64(len(dims)), p)))
	require.NotZero(g.t, h, g.inst.Session().LastError())
	return h
}

func (g *nnGuest) f32Scalar(v float32) uint64 {
	g.write(gValues, f32bytes(v))
	return uint64(uint32(g.call("aclCreateScalar", gValues, uint64(acl.DTFloat))))
}

// launch runs aclnn<op>GetWorkspaceSize(args...) and queues aclnn<op> on
// s with a workspace of the size it asked for.
func (g *nnGuest) launch(op string, s uint64, args ...uint64) acl.Error {
	g.t.Helper()
	g.ok("aclnn"+op+"GetWorkspaceSize", append(args, gWS, gEx)...)
	var ws uint64
	if n := g.word(gWS); n > 0 {
		ws = g.device(n, nil)
	}
	return g.call("aclnn"+op, ws, g.word(gWS), uint64(binary.LittleEndian.Uint32(g.read(gEx, 4))), s)
}

// program is the operator chain both backends run: Add with broadcasting
// and an alpha, Muls on its result, Cast to float16, ReduceSum (which asks
// for a workspace on the stand-in), Mm; then the results are copied
// back, in stream order, and returned as bytes.
func program(g *nnGuest) []byte {
	g.ok("aclrtSetDevice", 0)
	g.ok("aclrtCreateStream", gOut)
	s := uint64(binary.LittleEndian.Uint32(g.read(gOut, 4)))
	x := g.device(24, f32bytes(0.1, 1.7, -2.3, 3.14159, 5.5, -0.001))
	y := g.device(12, f32bytes(10.25, -20.5, 1e-3))
	halves := g.device(24, f32bytes(0.5, 1, 1.5, 2, 2.5, 3))
	m := g.device(24, f32bytes(1, 0, 2, -1, 3, 1))
	sum, scaled, half, rows, mm := g.device(24, nil), g.device(24, nil), g.device(12, nil), g.device(8, nil), g.device(16, nil)
	tx, tsum, tscaled := g.tensor(acl.DTFloat, x, 2, 3), g.tensor(acl.DTFloat, sum, 2, 3), g.tensor(acl.DTFloat, scaled, 2, 3)

	ok := func(code acl.Error) {
		g.t.Helper()
		require.Equal(g.t, acl.Success, code, g.inst.Session().LastError())
	}
	ok(g.launch("Add", s, tx, g.tensor(acl.DTFloat, y, 3), g.f32Scalar(1.5), tsum))
	ok(g.launch("Muls", s, tsum, g.f32Scalar(0.3), tscaled))
	ok(g.launch("Cast", s, tscaled, uint64(acl.DTFloat16), g.tensor(acl.DTFloat16, half, 2, 3)))
	g.write(gValues, i64s(-1))
	dim := uint64(uint32(g.call("aclCreateIntArray", gValues, 1)))
	ok(g.launch("ReduceSum", s, tx, dim, 0, uint64(acl.DTFloat), g.tensor(acl.DTFloat, rows, 2)))
	ok(g.launch("Mm", s, g.tensor(acl.DTFloat, halves, 2, 3), g.tensor(acl.DTFloat, m, 3, 2), g.tensor(acl.DTFloat, mm, 2, 2), 0))
	g.ok("aclrtSynchronizeStream", s)
	off := uint64(gResults)
	for _, r := range []struct{ p, n uint64 }{{sum, 24}, {scaled, 24}, {half, 12}, {rows, 8}, {mm, 16}} {
		g.ok("aclrtMemcpy", off, r.n, r.p, r.n, uint64(acl.MemcpyDeviceToHost))
		off += r.n
	}
	return g.read(gResults, uint32(off-gResults))
}

// reference is program's results computed here, in float64 and then
// rounded as the operators define.
func reference() []byte {
	x, y := []float32{0.1, 1.7, -2.3, 3.14159, 5.5, -0.001}, []float32{10.25, -20.5, 1e-3}
	var sum, scaled []float32
	var out []byte
	for i, v := range x {
		sum = append(sum, float32(float64(v)+float64(float32(1.5*float64(y[i%3])))))
		scaled = append(scaled, float32(float64(sum[i])*float64(float32(0.3))))
	}
	out = append(append(out, f32bytes(sum...)...), f32bytes(scaled...)...)
	for _, v := range scaled {
		out = binary.LittleEndian.AppendUint16(out, float16.Fromfloat32(v).Bits())
	}
	var rows []float32
	for r := range 2 {
		var acc float64
		for _, v := range x[3*r : 3*r+3] {
			acc += float64(v)
		}
		rows = append(rows, float32(acc))
	}
	out = append(out, f32bytes(rows...)...)
	a, m := []float64{0.5, 1, 1.5, 2, 2.5, 3}, []float64{1, 0, 2, -1, 3, 1}
	var mm []float32
	for r := range 2 {
		for c := range 2 {
			var acc float64
			for k := range 3 {
				acc += a[3*r+k] * m[2*k+c]
			}
			mm = append(mm, float32(acc))
		}
	}
	return append(out, f32bytes(mm...)...)
}

// TestOperatorDifferential: the same guest program gives the same bytes
// on the simulator and on the native backend over the stand-in operator
// library (written apart from the simulator's Go, in C), and both equal a
// reference computed here; an operator the operator library lacks (one
// built without Softmax) gives 207000 on the native backend with a
// message naming it.
func TestOperatorDifferential(t *testing.T) {
	b, err := cann.Open(lib)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	native := program(newNNGuest(t, host.WithBackend(b)))
	simulated := program(newNNGuest(t))
	require.Equal(t, reference(), simulated, "the simulator against the reference")
	require.Equal(t, simulated, native, "the native backend against the simulator")

	// Softmax, from an operator library built without it.
	partial, err := cann.Open(libNoSoftmax)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, partial.Close()) })
	g := newNNGuest(t, host.WithBackend(partial))
	g.ok("aclrtSetDevice", 0)
	p := g.device(8, f32bytes(1, 2))
	tp := g.tensor(acl.DTFloat, p, 2)
	require.Equal(t, acl.ErrRTFeatureNotSupport, g.launch("Softmax", 0, tp, 0, tp))
	require.Contains(t, g.inst.Session().LastError(), "does not provide aclnnSoftmax")
}
