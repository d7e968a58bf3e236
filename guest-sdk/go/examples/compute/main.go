//go:build wasip1

// Command compute computes through the SDK (ABI section 13), checked by
// the guest itself: two tensors added by the host's operator library (and
// a call with shapes that do not broadcast refused with the library's
// code), the same sum by the basic set's AddF32 kernel through its
// launcher, and the approved model mlp run synchronously and on a stream.
// It prints what it computed and exits 0, or prints the failed check and
// exits 1. tests/sdk_compute_test.go runs it with the basic kernels
// granted and mlp approved.
//
// Build (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -o build/wasm/go-compute.wasm github.com/aclwasm/aclwasm/guest-sdk/go/examples/compute
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/kernels/basic"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/model"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/nn"
)

func main() {
	if err := run(); err != nil {
		fmt.Println("check failed:", err)
		os.Exit(1)
	}
	fmt.Println("compute: ok")
}

func put(d *acl.DeviceBuffer, v []float32) error {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return d.Write(0, b)
}

func get(d *acl.DeviceBuffer, n int) ([]float32, error) {
	b := make([]byte, 4*n)
	if err := d.Read(0, b); err != nil {
		return nil, err
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

func show(v []float32, prec int) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = fmt.Sprintf("%.*f", prec, f)
	}
	return strings.Join(s, " ")
}

func run() error {
	if err := acl.SetDevice(0); err != nil {
		return err
	}
	s, err := acl.CreateStream()
	if err != nil {
		return err
	}
	defer s.Destroy()
	var bufs [3]*acl.DeviceBuffer
	for i := range bufs {
		if bufs[i], err = acl.NewDeviceBuffer(16); err != nil {
			return err
		}
		defer bufs[i].Free()
	}
	a, b, c := bufs[0], bufs[1], bufs[2]
	if err := errors.Join(put(a, []float32{1, 2, 3, 4}), put(b, []float32{10, 20, 30, 40})); err != nil {
		return err
	}
	want := []float32{11, 22, 33, 44}

	// The operator library: c = a + 1 * b.
	ta, err := nn.NewTensor(a, acl.DTFloat, 4)
	if err != nil {
		return err
	}
	defer ta.Destroy()
	tb, err := nn.NewTensor(b, acl.DTFloat, 4)
	if err != nil {
		return err
	}
	defer tb.Destroy()
	tc, err := nn.NewTensor(c, acl.DTFloat, 4)
	if err != nil {
		return err
	}
	defer tc.Destroy()
	one, err := nn.NewScalarFloat32(1)
	if err != nil {
		return err
	}
	defer one.Destroy()
	if err := nn.Add(ta, tb, one, tc, s); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	sum, err := get(c, 4)
	if err != nil {
		return err
	}
	if !slices.Equal(sum, want) {
		return fmt.Errorf("aclnnAdd gave %v", sum)
	}
	fmt.Println("add:", show(sum, 0))

	// Shapes that do not broadcast: refused by the first phase.
	t3, err := nn.NewTensor(c, acl.DTFloat, 3)
	if err != nil {
		return err
	}
	defer t3.Destroy()
	err = nn.Add(ta, t3, one, tc, s)
	var e *acl.Error
	if !errors.As(err, &e) || e.Code != acl.ErrAclnnErrParamInvalid || e.Func != "aclnnAddGetWorkspaceSize" || e.Message == "" {
		return fmt.Errorf("add of [4] and [3] gave %v", err)
	}
	fmt.Println("bad shapes:", int32(e.Code), e.Name())

	// Every kind of operator argument: Mm (an int8), ReduceSum (an int
	// array, a bool, a data type), InplaceZero, Softmax (a negative int64)
	// and Cast, over x = [[1, 2], [3, 4]].
	if err := ops(a, s); err != nil {
		return err
	}

	// A kernel the host registers: the same sum by AddF32.
	if err := c.Fill(0); err != nil {
		return err
	}
	if err := basic.AddF32(1, s, a.Ptr(), b.Ptr(), c.Ptr(), 4); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	if sum, err = get(c, 4); err != nil {
		return err
	}
	if !slices.Equal(sum, want) {
		return fmt.Errorf("AddF32 gave %v", sum)
	}
	fmt.Println("kernel:", show(sum, 0))

	// An approved model: logits and probabilities of x[i] = i/4 - 1.
	if _, err := model.Load("not-approved"); acl.CodeOf(err) != acl.ErrGEExecModelPathInvalid {
		return fmt.Errorf("an unapproved model: %v", err)
	}
	fmt.Println("unapproved:", int32(acl.ErrGEExecModelPathInvalid))
	m, err := model.Load("mlp")
	if err != nil {
		return err
	}
	if m.NumInputs() != 1 || m.NumOutputs() != 2 || m.InputSize(0) != 32 {
		return errors.New("mlp has one input of 8 floats and two outputs")
	}
	x, err := acl.NewDeviceBuffer(m.InputSize(0))
	if err != nil {
		return err
	}
	defer x.Free()
	xs := make([]float32, 8)
	for i := range xs {
		xs[i] = float32(i)/4 - 1
	}
	logits, err := acl.NewDeviceBuffer(m.OutputSize(0))
	if err != nil {
		return err
	}
	defer logits.Free()
	probs, err := acl.NewDeviceBuffer(m.OutputSize(1))
	if err != nil {
		return err
	}
	defer probs.Free()
	if err := put(x, xs); err != nil {
		return err
	}
	in, err := model.NewDataset(x)
	if err != nil {
		return err
	}
	out, err := model.NewDataset(logits, probs)
	if err != nil {
		return err
	}
	if err := m.ExecuteAsync(in, out, s); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	l, err := get(logits, 4)
	if err != nil {
		return err
	}
	p, err := get(probs, 4)
	if err != nil {
		return err
	}
	if err := logits.Fill(0); err != nil {
		return err
	}
	if err := m.Execute(in, out); err != nil {
		return err
	}
	if again, err := get(logits, 4); err != nil || !slices.Equal(again, l) {
		return fmt.Errorf("aclmdlExecute and aclmdlExecuteAsync differ: %v %v", again, err)
	}
	fmt.Println("logits:", show(l, 4))
	fmt.Println("probs:", show(p, 4))
	return errors.Join(in.Destroy(), out.Destroy(), m.Unload())
}

// ops runs an operator of each kind of argument over a = [[1, 2], [3, 4]]
// and prints the results.
func ops(a *acl.DeviceBuffer, s acl.Stream) (err error) {
	var bufs []*acl.DeviceBuffer
	var objs []interface{ Destroy() error }
	defer func() {
		for _, o := range objs {
			err = errors.Join(err, o.Destroy())
		}
		for _, b := range bufs {
			err = errors.Join(err, b.Free())
		}
	}()
	buf := func(n uint64) *acl.DeviceBuffer {
		b, e := acl.NewDeviceBuffer(n)
		err = errors.Join(err, e)
		if b != nil {
			bufs = append(bufs, b)
		}
		return b
	}
	tensor := func(b *acl.DeviceBuffer, dt acl.DataType, dims ...int64) *nn.Tensor {
		if b == nil {
			return nil
		}
		t, e := nn.NewTensor(b, dt, dims...)
		err = errors.Join(err, e)
		if t != nil {
			objs = append(objs, t)
		}
		return t
	}
	m, r, z, sm, i := buf(16), buf(8), buf(8), buf(8), buf(16)
	x, tm, tr := tensor(a, acl.DTFloat, 2, 2), tensor(m, acl.DTFloat, 2, 2), tensor(r, acl.DTFloat, 2, 1)
	tz, tsm, ti, tmv := tensor(z, acl.DTFloat, 1, 2), tensor(sm, acl.DTFloat, 1, 2), tensor(i, acl.DTInt32, 4), tensor(m, acl.DTFloat, 4)
	if err != nil {
		return err
	}
	dims, err := nn.NewIntArray(1)
	if err != nil {
		return err
	}
	objs = append(objs, dims)
	if err := errors.Join(
		nn.Mm(x, x, tm, 1, s),
		nn.ReduceSum(tm, dims, true, acl.DTFloat, tr, s),
		z.Fill(0xff),
		nn.InplaceZero(tz, s),
		nn.Softmax(tz, -1, tsm, s),
		nn.Cast(tmv, acl.DTInt32, ti, s),
		s.Synchronize(),
	); err != nil {
		return err
	}
	mv, err1 := get(m, 4)
	rv, err2 := get(r, 2)
	sv, err3 := get(sm, 2)
	ib := make([]byte, 16)
	if err := errors.Join(err1, err2, err3, i.Read(0, ib)); err != nil {
		return err
	}
	ints := make([]string, 4)
	for k := range ints {
		ints[k] = fmt.Sprint(int32(binary.LittleEndian.Uint32(ib[4*k:])))
	}
	fmt.Printf("ops: mm %s, sum %s, softmax %s, cast %s\n", show(mv, 0), show(rv, 0), show(sv, 1), strings.Join(ints, " "))
	return nil
}
