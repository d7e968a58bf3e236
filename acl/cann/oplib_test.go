//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"encoding/binary"
	"math"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"
	"github.com/x448/float16"

	"github.com/aclwasm/aclwasm/acl"
)

// nnLive returns the stand-in operator library's live objects: tensors,
// scalars, arrays, tensor lists, executors.
func nnLive(t *testing.T) [5]int64 {
	t.Helper()
	h, err := purego.Dlopen(filepath.Join(filepath.Dir(libPaths[full]), "libnnopbase.so"), purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var stats func(out *int64)
	purego.RegisterLibFunc(&stats, h, "aclwasmStandinNNStats")
	var out [5]int64
	stats(&out[0])
	return out
}

// opRig is a backend on the full stand-in with its operator library, a
// stream, and helpers for device data.
type opRig struct {
	t *testing.T
	b *Backend
	s acl.Stream
}

func newOpRig(t *testing.T) *opRig {
	b, _ := open(t, full)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.DestroyStream(context.Background(), s)) })
	return &opRig{t: t, b: b, s: s}
}

// put allocates device memory holding vs.
func (r *opRig) put(vs ...float32) acl.DevPtr {
	r.t.Helper()
	buf := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	p, err := r.b.Malloc(0, uint64(len(buf)), acl.MemMallocHugeFirst)
	require.NoError(r.t, err)
	r.t.Cleanup(func() { require.NoError(r.t, r.b.Free(context.Background(), p)) })
	require.NoError(r.t, r.b.Memcpy(context.Background(), acl.Device(p), acl.Host(buf, 0), uint64(len(buf))))
	return p
}

// get reads n bytes of device memory.
func (r *opRig) get(p acl.DevPtr, n int) []byte {
	r.t.Helper()
	buf := make([]byte, n)
	require.NoError(r.t, r.b.Memcpy(context.Background(), acl.Host(buf, 0), acl.Device(p), uint64(n)))
	return buf
}

func (r *opRig) f32s(p acl.DevPtr, n int) []float32 {
	b := r.get(p, 4*n)
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// tensor is a contiguous tensor of dims over region k.
func tensor(dt acl.DataType, k int, dims ...int64) acl.OpArg {
	st := make([]int64, len(dims))
	acc := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= dims[i]
	}
	return acl.OpArg{Kind: acl.ArgTensor, Tensors: []acl.OpTensor{{Type: dt, Dims: dims, Strides: st, Storage: dims, Region: k}}}
}

func f32Scalar(v float32) acl.OpArg {
	a := acl.OpArg{Kind: acl.ArgScalar, Scalar: acl.OpScalar{Type: acl.DTFloat}}
	binary.LittleEndian.PutUint32(a.Scalar.Bits[:], math.Float32bits(v))
	return a
}

// TestComputeOp: operators replayed from their description alone run on
// the stand-in's operator library in stream order, with the results a
// reference computed here (float64, then rounded) gives, the workspace
// ReduceSum asks for allocated natively, and every object destroyed.
func TestComputeOp(t *testing.T) {
	r := newOpRig(t)
	before := nnLive(t)
	var checks, ran atomic.Int32
	launch := func(name string, regions []acl.Region, args ...acl.OpArg) {
		t.Helper()
		l := &acl.Launch{Name: "aclnn" + name, Regions: regions,
			Check: func() error { checks.Add(1); return nil },
			Op: &acl.OpCall{Name: name, Args: args, Ran: func(_ time.Duration, err error) error {
				ran.Add(1)
				return err
			}},
		}
		require.NoError(t, r.b.ComputeOp(r.s, l))
	}
	x := r.put(1, 2, 3, 4, 5, 6)   // [2,3]
	y := r.put(10, 20, 30)         // [3], broadcast over the rows
	sum := r.put(0, 0, 0, 0, 0, 0) // Add
	scaled := r.put(0, 0, 0, 0, 0, 0)
	half := r.put(0, 0, 0)        // 6 float16
	rows := r.put(0, 0)           // ReduceSum over dim 1
	m := r.put(1, 0, 2, -1, 3, 1) // [3,2]
	mm := r.put(0, 0, 0, 0)       // [2,2]
	in := func(p acl.DevPtr, n uint64) acl.Region { return acl.Region{Ptr: p, N: n} }
	out := func(p acl.DevPtr, n uint64) acl.Region { return acl.Region{Ptr: p, N: n, Write: true} }

	launch("Add", []acl.Region{in(x, 24), in(y, 12), out(sum, 24)},
		tensor(acl.DTFloat, 0, 2, 3), tensor(acl.DTFloat, 1, 3), f32Scalar(1.5), tensor(acl.DTFloat, 2, 2, 3))
	// Muls reads what Add wrote: stream order.
	launch("Muls", []acl.Region{in(sum, 24), out(scaled, 24)},
		tensor(acl.DTFloat, 0, 2, 3), f32Scalar(0.25), tensor(acl.DTFloat, 1, 2, 3))
	launch("Cast", []acl.Region{in(scaled, 24), out(half, 12)},
		tensor(acl.DTFloat, 0, 2, 3), acl.OpArg{Kind: acl.ArgDType, Int: int64(acl.DTFloat16)}, tensor(acl.DTFloat16, 1, 2, 3))
	launch("ReduceSum", []acl.Region{in(x, 24), out(rows, 8)},
		tensor(acl.DTFloat, 0, 2, 3), acl.OpArg{Kind: acl.ArgIntArray, Ints: []int64{-1}}, acl.OpArg{Kind: acl.ArgBool},
		acl.OpArg{Kind: acl.ArgDType, Int: int64(acl.DTFloat)}, tensor(acl.DTFloat, 1, 2))
	launch("Mm", []acl.Region{in(x, 24), in(m, 24), out(mm, 16)},
		tensor(acl.DTFloat, 0, 2, 3), tensor(acl.DTFloat, 1, 3, 2), tensor(acl.DTFloat, 2, 2, 2), acl.OpArg{Kind: acl.ArgInt8, Int: 1})
	require.NoError(t, r.b.SynchronizeStream(context.Background(), r.s, -1))
	require.Equal(t, int32(5), checks.Load(), "each launch checked when it ran")
	require.Equal(t, int32(5), ran.Load())

	xs, ys := []float64{1, 2, 3, 4, 5, 6}, []float64{10, 20, 30}
	wantSum, wantScaled := make([]float32, 6), make([]float32, 6)
	wantHalf := make([]byte, 12)
	for i := range xs {
		wantSum[i] = float32(xs[i] + float64(float32(1.5*ys[i%3])))
		wantScaled[i] = float32(float64(wantSum[i]) * 0.25)
		binary.LittleEndian.PutUint16(wantHalf[2*i:], float16.Fromfloat32(wantScaled[i]).Bits())
	}
	require.Equal(t, wantSum, r.f32s(sum, 6))
	require.Equal(t, wantScaled, r.f32s(scaled, 6))
	require.Equal(t, wantHalf, r.get(half, 12))
	require.Equal(t, []float32{6, 15}, r.f32s(rows, 2))
	require.Equal(t, []float32{1*1 + 2*2 + 3*3, 1*0 + 2*-1 + 3*1, 4*1 + 5*2 + 6*3, 4*0 + 5*-1 + 6*1}, r.f32s(mm, 4))
	require.Equal(t, before, nnLive(t), "every tensor, scalar, array and executor destroyed")
}

// TestComputeOpFailures: a Check that fails at execution touches nothing
// and fails the stream with its error; the library's own refusal fails
// the stream with its code; an operator the library lacks, or a backend
// without an operator library, gives 207000 and queues nothing.
func TestComputeOpFailures(t *testing.T) {
	r := newOpRig(t)
	ctx := context.Background()
	x, o := r.put(1, 2), r.put(7, 7)
	regions := []acl.Region{{Ptr: x, N: 8}, {Ptr: x, N: 8}, {Ptr: o, N: 8, Write: true}}
	args := []acl.OpArg{tensor(acl.DTFloat, 0, 2), tensor(acl.DTFloat, 1, 2), f32Scalar(1), tensor(acl.DTFloat, 2, 2)}
	ran := 0
	gone := acl.Errorf(acl.ErrRTAicoreException, "its storage was freed")
	require.NoError(t, r.b.ComputeOp(r.s, &acl.Launch{Name: "aclnnAdd", Regions: regions,
		Check: func() error { return gone },
		Op:    &acl.OpCall{Name: "Add", Args: args, Ran: func(_ time.Duration, err error) error { ran++; return err }}}))
	require.ErrorIs(t, r.b.SynchronizeStream(ctx, r.s, -1), gone)
	require.Zero(t, ran, "a launch whose check failed did not run")
	require.Equal(t, []float32{7, 7}, r.f32s(o, 2), "and touched nothing")

	// int32 tensors: the stand-in's Add refuses them at execution.
	bad := append([]acl.OpArg(nil), args...)
	bad[0] = tensor(acl.DTInt32, 0, 2)
	var seen error
	require.NoError(t, r.b.ComputeOp(r.s, &acl.Launch{Name: "aclnnAdd", Regions: regions,
		Op: &acl.OpCall{Name: "Add", Args: bad, Ran: func(_ time.Duration, err error) error { seen = err; return err }}}))
	err := r.b.SynchronizeStream(ctx, r.s, -1)
	require.ErrorIs(t, err, acl.ErrNNParamInvalid)
	require.ErrorIs(t, seen, acl.ErrNNParamInvalid)
	require.Contains(t, err.Error(), "aclnnAddGetWorkspaceSize returned 161002")
	require.Equal(t, []float32{7, 7}, r.f32s(o, 2))

	// A NULL where the library wants a tensor: its ACLNN_ERR_PARAM_NULLPTR.
	// (The sandbox refuses a guest's NULLs itself, before the library.)
	bad = append([]acl.OpArg(nil), args...)
	bad[1] = acl.OpArg{Kind: acl.ArgNull}
	seen = nil
	require.NoError(t, r.b.ComputeOp(r.s, &acl.Launch{Name: "aclnnAdd", Regions: regions,
		Op: &acl.OpCall{Name: "Add", Args: bad, Ran: func(_ time.Duration, err error) error { seen = err; return err }}}))
	err = r.b.SynchronizeStream(ctx, r.s, -1)
	require.ErrorIs(t, err, acl.ErrNNParamNullptr)
	require.ErrorIs(t, seen, acl.ErrNNParamNullptr)
	require.Contains(t, err.Error(), "aclnnAddGetWorkspaceSize returned 161001")
	require.Equal(t, []float32{7, 7}, r.f32s(o, 2))

	require.True(t, r.b.Supports("aclnnAdd"))
	require.True(t, r.b.Supports("aclnnMmGetWorkspaceSize"))
	// LayerNorm, a native operator the stand-in library does not have.
	require.False(t, r.b.Supports("aclnnLayerNorm"))
	err = r.b.ComputeOp(r.s, &acl.Launch{Name: "aclnnLayerNorm", Regions: regions[2:], Op: &acl.OpCall{Name: "LayerNorm"}})
	require.ErrorIs(t, err, acl.ErrRTFeatureNotSupport)
	require.ErrorContains(t, err, "does not export aclnnLayerNorm")

	old, _ := open(t, older) // no operator library beside it
	require.False(t, old.Supports("aclnnAdd"))
	err = old.ComputeOp(0, &acl.Launch{Name: "aclnnAdd", Op: &acl.OpCall{Name: "Add"}})
	require.ErrorIs(t, err, acl.ErrRTFeatureNotSupport)
	require.ErrorContains(t, err, "no operator library")
	require.NoError(t, r.b.SynchronizeStream(ctx, r.s, -1))
}

// TestOpLibraryPath: an operator library named explicitly must load.
func TestOpLibraryPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libopapi.so")
	_, err := Open(libPaths[full], WithOpLibrary(missing))
	require.ErrorContains(t, err, "the operator library could not be loaded: tried "+missing)
	t.Setenv("ACLWASM_OPAPI_LIB", missing)
	_, err = Open(libPaths[full])
	require.ErrorContains(t, err, "tried "+missing)
	t.Setenv("ACLWASM_OPAPI_LIB", "")
	b, err := Open(libPaths[full], WithOpLibrary(filepath.Join(filepath.Dir(libPaths[full]), "libopapi.so")))
	require.NoError(t, err)
	require.True(t, b.Supports("aclnnCast"))
	require.NoError(t, b.Close())
}

// TestComputeOpFloatAttribute: a float attribute between an object and an
// integer reaches the library in its floating-point register (the
// stand-in's StandinScale: out = self * scale + k).
func TestComputeOpFloatAttribute(t *testing.T) {
	r := newOpRig(t)
	x, o := r.put(1, -2, 0.5), r.put(0, 0, 0)
	require.NoError(t, r.b.ComputeOp(r.s, &acl.Launch{Name: "aclnnStandinScale",
		Regions: []acl.Region{{Ptr: x, N: 12}, {Ptr: o, N: 12, Write: true}},
		Op: &acl.OpCall{Name: "StandinScale", Args: []acl.OpArg{
			tensor(acl.DTFloat, 0, 3), {Kind: acl.ArgFloat, Float: 2.5}, {Kind: acl.ArgInt64, Int: -7}, tensor(acl.DTFloat, 1, 3),
		}}}))
	require.NoError(t, r.b.SynchronizeStream(context.Background(), r.s, -1))
	require.Equal(t, []float32{1*2.5 - 7, -2*2.5 - 7, 0.5*2.5 - 7}, r.f32s(o, 3))
}
