package aclnn

import (
	"context"
	"errors"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// fuzzTypes are the data types the fuzzer gives tensors and scalars: the
// ones the operators take, and some they refuse.
var fuzzTypes = []acl.DataType{
	acl.DTFloat, acl.DTFloat16, acl.DTBFloat16, acl.DTInt8, acl.DTUint8, acl.DTInt16, acl.DTInt32, acl.DTInt64,
	acl.DTBool, acl.DTDouble, acl.DTUint16, acl.DTComplex64, acl.DTString, acl.DataType(99),
}

// fuzzArgs decodes data into arguments for op: tensors of up to 4 dims
// with any strides and offset over a storage of their own or of an
// earlier tensor (views that share a buffer), scalars of any type, arrays
// and values.
func fuzzArgs(op *Op, data []byte) []Value {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	var datas [][]byte
	args := make([]Value, len(op.Params))
	for i, p := range op.Params {
		switch p.Kind {
		case Tensor:
			if next()%16 == 0 {
				continue // NULL
			}
			dt := fuzzTypes[next()%len(fuzzTypes)]
			nd := next() % 5
			t := &TensorArg{Type: dt, Format: acl.FormatND, Dims: make([]int64, nd), Strides: make([]int64, nd)}
			if next()%8 == 0 {
				t.Format = acl.FormatFractalNZ
			}
			for j := range nd {
				t.Dims[j] = int64(next() % 5)
				t.Strides[j] = int64(next()%9) - 3
			}
			t.Offset = int64(next() % 9)
			n := int64(next() % 65)
			t.Storage = []int64{n}
			if len(datas) > 0 && next()%3 == 0 {
				t.Data = datas[next()%len(datas)]
			} else {
				// A storage with no spare capacity: a write past it
				// panics rather than corrupting memory unseen.
				size := max(int64(dt.Size()), 1)
				b := make([]byte, n*size)
				for k := range b {
					b[k] = byte(next())
				}
				t.Data = b[:len(b):len(b)]
				datas = append(datas, t.Data)
			}
			args[i].Tensor = t
		case Scalar:
			if next()%16 == 0 {
				continue
			}
			s := &ScalarArg{Type: fuzzTypes[next()%len(fuzzTypes)]}
			for k := range s.Bits {
				s.Bits[k] = byte(next())
			}
			args[i].Scalar = s
		case IntArray:
			if next()%16 == 0 {
				continue
			}
			args[i].Ints = []int64{}
			for range next() % 4 {
				args[i].Ints = append(args[i].Ints, int64(next()%9)-4)
			}
		case DType:
			args[i].Int = int64(fuzzTypes[next()%len(fuzzTypes)])
		default:
			args[i].Int = int64(next()%9) - 4
		}
	}
	return args
}

// FuzzOps checks and runs random launches of every operator: Check never
// panics, and a launch it accepts runs without a panic (a read or write
// outside a storage would be one), failing only for a view that does not
// fit its storage, which the sandbox refuses before any launch.
func FuzzOps(f *testing.F) {
	for i := range Ops {
		f.Add([]byte{byte(i), 1, 0, 2, 3, 1, 4, 2, 0, 20, 1, 0, 2, 3, 1, 4, 2, 0, 20, 5, 1, 0, 2, 3, 1, 4, 2, 0, 20})
		f.Add([]byte{byte(i), 1, 2, 1, 3, 1, 0, 12, 1, 2, 1, 3, 1, 0, 12, 1, 2, 1, 3, 1, 0, 12, 1, 2, 1, 3, 1, 0, 12})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		op := Ops[int(data[0])%len(Ops)]
		args := fuzzArgs(op, data[1:])
		shapes := make([]Value, len(args))
		for i, a := range args {
			shapes[i] = a
			if a.Tensor != nil {
				c := *a.Tensor
				c.Data = nil
				shapes[i].Tensor = &c
			}
		}
		if err := op.Check(shapes); err != nil {
			if c := acl.CodeOf(err); c != acl.ErrNNParamNullptr && c != acl.ErrNNParamInvalid {
				t.Fatalf("%s: check: %v", op.Name, err)
			}
			return
		}
		if err := op.Run(context.Background(), args); err != nil && !errors.Is(err, acl.ErrRTAicoreException) {
			t.Fatalf("%s: run: %v", op.Name, err)
		}
	})
}
