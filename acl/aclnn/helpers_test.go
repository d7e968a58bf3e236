package aclnn

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/x448/float16"
)

// The tests build tensors over byte storage as the sandbox would hand
// them over, encode and decode elements on their own (not with the
// package's load and store), and compute references in float64 rounded
// once to the output type.

// enc writes v, exactly representable in t, at element i of b.
func enc(t acl.DataType, b []byte, i int64, v float64) {
	o := i * int64(t.Size())
	switch t {
	case acl.DTFloat:
		binary.LittleEndian.PutUint32(b[o:], math.Float32bits(float32(v)))
	case acl.DTFloat16:
		binary.LittleEndian.PutUint16(b[o:], float16.Fromfloat32(float32(v)).Bits())
	case acl.DTBFloat16:
		binary.LittleEndian.PutUint16(b[o:], uint16(math.Float32bits(float32(v))>>16))
	case acl.DTDouble:
		binary.LittleEndian.PutUint64(b[o:], math.Float64bits(v))
	case acl.DTInt8, acl.DTUint8:
		b[o] = byte(int64(v))
	case acl.DTBool:
		b[o] = 0
		if v != 0 {
			b[o] = 1
		}
	case acl.DTInt16:
		binary.LittleEndian.PutUint16(b[o:], uint16(int64(v)))
	case acl.DTInt32:
		binary.LittleEndian.PutUint32(b[o:], uint32(int64(v)))
	case acl.DTInt64:
		binary.LittleEndian.PutUint64(b[o:], uint64(int64(v)))
	default:
		panic("enc " + t.String())
	}
}

// dec reads element i of b as type t.
func dec(t acl.DataType, b []byte, i int64) float64 {
	o := i * int64(t.Size())
	switch t {
	case acl.DTFloat:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o:])))
	case acl.DTFloat16:
		return float64(float16.Frombits(binary.LittleEndian.Uint16(b[o:])).Float32())
	case acl.DTBFloat16:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[o:])) << 16))
	case acl.DTDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[o:]))
	case acl.DTInt8:
		return float64(int8(b[o]))
	case acl.DTUint8, acl.DTBool:
		return float64(b[o])
	case acl.DTInt16:
		return float64(int16(binary.LittleEndian.Uint16(b[o:])))
	case acl.DTInt32:
		return float64(int32(binary.LittleEndian.Uint32(b[o:])))
	case acl.DTInt64:
		return float64(int64(binary.LittleEndian.Uint64(b[o:])))
	}
	panic("dec " + t.String())
}

// ref rounds v once to t (floats to nearest even with overflow to
// infinity, integers wrapped to their width).
func ref(t acl.DataType, v float64) float64 {
	switch t {
	case acl.DTFloat:
		return float64(float32(v))
	case acl.DTFloat16:
		return nearest(v, 11, -14, 15)
	case acl.DTBFloat16:
		return nearest(v, 8, -126, 127)
	case acl.DTDouble:
		return v
	case acl.DTInt8:
		return float64(int8(int64(v)))
	case acl.DTUint8:
		return float64(uint8(int64(v)))
	case acl.DTInt16:
		return float64(int16(int64(v)))
	case acl.DTInt32:
		return float64(int32(int64(v)))
	case acl.DTInt64:
		return float64(int64(v))
	case acl.DTBool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

// refI wraps v to the integer type t.
func refI(t acl.DataType, v int64) int64 {
	switch t {
	case acl.DTInt8:
		return int64(int8(v))
	case acl.DTUint8:
		return int64(uint8(v))
	case acl.DTInt16:
		return int64(int16(v))
	case acl.DTInt32:
		return int64(int32(v))
	}
	return v
}

// tensor returns a contiguous tensor of dims holding vals (which must be
// representable in t).
func tensor(t acl.DataType, dims []int64, vals []float64) *TensorArg {
	n := numel(dims)
	x := &TensorArg{Type: t, Format: acl.FormatND, Dims: dims, Strides: rowMajor(dims), Storage: []int64{n}, Data: make([]byte, n*int64(t.Size()))}
	for i, v := range vals {
		enc(t, x.Data, int64(i), v)
	}
	return x
}

// view returns a tensor of dims over a larger storage: its elements at
// offset off with the given strides, the rest of the storage filled with
// a canary.
func view(t acl.DataType, dims, strides []int64, off int64, vals []float64) *TensorArg {
	max := off
	for i, d := range dims {
		max += strides[i] * (d - 1)
	}
	n := max + 3
	x := &TensorArg{Type: t, Format: acl.FormatND, Dims: dims, Strides: strides, Offset: off, Storage: []int64{n}, Data: make([]byte, n*int64(t.Size()))}
	for i := range x.Data {
		x.Data[i] = 0x5a
	}
	k := 0
	eachIndex(dims, func(idx []int64) {
		o := off
		for i, v := range idx {
			o += v * strides[i]
		}
		if vals != nil {
			enc(t, x.Data, o, vals[k])
		}
		k++
	})
	return x
}

// values reads t's view in row-major order.
func values(t *TensorArg) []float64 {
	var out []float64
	eachIndex(t.Dims, func(idx []int64) {
		o := t.Offset
		for i, v := range idx {
			o += v * t.Strides[i]
		}
		out = append(out, dec(t.Type, t.Data, o))
	})
	return out
}

func eachIndex(dims []int64, fn func(idx []int64)) {
	if numel(dims) == 0 {
		return
	}
	idx := make([]int64, len(dims))
	for {
		fn(idx)
		i := len(dims) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < dims[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// random returns n values representable in t: integers over a range that
// makes sums and products wrap for the narrow types, floats of mixed sign
// and magnitude.
func random(r *rand.Rand, t acl.DataType, n int64) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch t {
		case acl.DTInt8:
			v[i] = float64(r.IntN(256) - 128)
		case acl.DTUint8:
			v[i] = float64(r.IntN(256))
		case acl.DTInt16:
			v[i] = float64(r.IntN(1<<16) - 1<<15)
		case acl.DTInt32:
			v[i] = float64(int32(r.Uint32()))
		case acl.DTInt64:
			v[i] = float64(r.IntN(1<<40) - 1<<39)
		case acl.DTBool:
			v[i] = float64(r.IntN(2))
		default:
			v[i] = ref(t, (r.Float64()*2-1)*math.Exp2(float64(r.IntN(12)-4)))
		}
	}
	return v
}

func scalar(t acl.DataType, v float64) *ScalarArg {
	s := &ScalarArg{Type: t}
	enc(t, s.Bits[:], 0, v)
	return s
}

func tv(t *TensorArg) Value { return Value{Tensor: t} }
func sv(s *ScalarArg) Value { return Value{Scalar: s} }

// run checks and runs the operator named name on args.
func run(t *testing.T, name string, args ...Value) error {
	t.Helper()
	op := Lookup(name)
	if op == nil {
		t.Fatalf("no operator %s", name)
	}
	shapes := make([]Value, len(args))
	for i, a := range args {
		shapes[i] = a
		if a.Tensor != nil {
			c := *a.Tensor
			c.Data = nil
			shapes[i].Tensor = &c
		}
	}
	if op.Check != nil {
		if err := op.Check(shapes); err != nil {
			return err
		}
	}
	return op.Run(context.Background(), args)
}

// wantCode fails unless err carries code and its message contains frag.
func wantCode(t *testing.T, err error, code acl.Error, frag string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("got %v, want %v", err, code)
	}
	if !strings.Contains(acl.MessageOf(err), frag) {
		t.Fatalf("message %q lacks %q", acl.MessageOf(err), frag)
	}
}

// same64 compares results bit for bit as float64 (NaNs equal).
func same64(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
}

func checkValues(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !same64(got[i], want[i]) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}
