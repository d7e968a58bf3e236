package aclnn

import (
	"math"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// castRef is the reference conversion of v (a value of from) to to:
// floats round once to nearest even, floats to integers truncate toward
// zero saturating (NaN to 0), integers wrap, anything to bool is != 0.
func castRef(from, to acl.DataType, v float64) float64 {
	switch {
	case to == acl.DTBool:
		if v != 0 {
			return 1
		}
		return 0
	case isFloat(to):
		return ref(to, v)
	case isFloat(from):
		lo, hi := map[acl.DataType][2]float64{
			acl.DTInt8: {-128, 127}, acl.DTUint8: {0, 255}, acl.DTInt16: {-32768, 32767},
			acl.DTInt32: {math.MinInt32, math.MaxInt32}, acl.DTInt64: {math.MinInt64, math.MaxInt64},
		}[to][0], map[acl.DataType][2]float64{
			acl.DTInt8: {-128, 127}, acl.DTUint8: {0, 255}, acl.DTInt16: {-32768, 32767},
			acl.DTInt32: {math.MinInt32, math.MaxInt32}, acl.DTInt64: {math.MinInt64, math.MaxInt64},
		}[to][1]
		switch {
		case math.IsNaN(v):
			return 0
		case v <= lo:
			return lo
		case v >= hi:
			return hi
		}
		return math.Trunc(v) + 0 // an integer has no -0
	}
	return ref(to, v)
}

// castInputs are values of t that exercise rounding, truncation,
// saturation and wrapping.
func castInputs(t acl.DataType) []float64 {
	switch t {
	case acl.DTBool:
		return []float64{0, 1, 1, 0, 1, 0, 1, 0}
	case acl.DTInt8:
		return []float64{-128, -1, 0, 1, 127, 100, -100, 77}
	case acl.DTUint8:
		return []float64{0, 1, 255, 128, 200, 7, 77, 254}
	case acl.DTInt16:
		return []float64{-32768, -300, 0, 2049, 32767, 255, 256, -129}
	case acl.DTInt32:
		return []float64{math.MinInt32, -70000, 0, 16777217, math.MaxInt32, 65520, 300, -129}
	case acl.DTInt64:
		return []float64{-1 << 40, -70000, 0, 1<<53 + 2, 1 << 40, 65520, 300, -129}
	}
	vs := []float64{-2.5, -0.5, 0.5, 1.5, 1e10, -1e10, math.NaN(), 65519.99}
	for i := range vs {
		vs[i] = ref(t, vs[i])
	}
	return vs
}

// TestCastAll converts between every pair of the types Cast offers, on a
// strided source, into an out of dtype and into an out of another type
// (the result of the cast then converted again, as natively).
func TestCastAll(t *testing.T) {
	for _, from := range storeTypes {
		for _, to := range storeTypes {
			t.Run(from.String()+"->"+to.String(), func(t *testing.T) {
				in := castInputs(from)
				x := view(from, []int64{2, 4}, []int64{4, 1}, 2, in)
				out := tensor(to, []int64{2, 4}, nil)
				if err := run(t, "Cast", tv(x), Value{Int: int64(to)}, tv(out)); err != nil {
					t.Fatal(err)
				}
				want := make([]float64, len(in))
				for i, v := range in {
					want[i] = castRef(from, to, v)
				}
				checkValues(t, "cast", values(out), want)
				// dtype float16, out float32: the value rounds through
				// float16.
				o32 := tensor(acl.DTFloat, []int64{2, 4}, nil)
				if err := run(t, "Cast", tv(x), Value{Int: int64(acl.DTFloat16)}, tv(o32)); err != nil {
					t.Fatal(err)
				}
				for i, v := range in {
					want[i] = castRef(acl.DTFloat16, acl.DTFloat, castRef(from, acl.DTFloat16, v))
				}
				checkValues(t, "cast via half", values(o32), want)
			})
		}
	}
	f := tensor(acl.DTFloat, []int64{2}, nil)
	wantCode(t, run(t, "Cast", Value{}, Value{Int: 0}, tv(f)), acl.ErrNNParamNullptr, "[self]")
	wantCode(t, run(t, "Cast", tv(f), Value{Int: int64(acl.DTComplex64)}, tv(f)), acl.ErrNNParamInvalid, "The param dtype not implemented for ACL_COMPLEX64")
	wantCode(t, run(t, "Cast", tv(tensor(acl.DTDouble, []int64{2}, nil)), Value{Int: 0}, tv(f)), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_DOUBLE")
	wantCode(t, run(t, "Cast", tv(f), Value{Int: 0}, tv(tensor(acl.DTFloat, []int64{2, 1}, nil))), acl.ErrNNParamInvalid, "Shape of out should be [2]")
	if err := run(t, "Cast", tv(tensor(acl.DTFloat, []int64{0}, nil)), Value{Int: 3}, tv(tensor(acl.DTInt32, []int64{0}, nil))); err != nil {
		t.Fatal(err)
	}
}

// TestInplace covers InplaceCopy (broadcast, conversion, overlap),
// InplaceFillScalar and InplaceZero on strided views, leaving the bytes
// outside the views alone.
func TestInplace(t *testing.T) {
	// Copy a float32 row into every row of an int16 view (truncating).
	src := tensor(acl.DTFloat, []int64{3}, []float64{1.9, -2.7, 40000})
	dst := view(acl.DTInt16, []int64{2, 3}, []int64{4, 1}, 1, nil)
	canary := append([]byte(nil), dst.Data...)
	if err := run(t, "InplaceCopy", tv(dst), tv(src)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "copy", values(dst), []float64{1, -2, 32767, 1, -2, 32767})
	outside(t, dst, canary)

	// A copy between overlapping views of one buffer reads all first.
	buf := tensor(acl.DTFloat, []int64{5}, []float64{1, 2, 3, 4, 5})
	a := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{4}, Strides: []int64{1}, Offset: 1, Data: buf.Data}
	b := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{4}, Strides: []int64{1}, Data: buf.Data}
	if err := run(t, "InplaceCopy", tv(a), tv(b)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "overlap", values(buf), []float64{1, 1, 2, 3, 4})

	for _, c := range []struct {
		self  acl.DataType
		value *ScalarArg
		want  float64
	}{
		{acl.DTFloat16, scalar(acl.DTFloat, 0.1), ref(acl.DTFloat16, float64(float32(0.1)))},
		{acl.DTBFloat16, scalar(acl.DTDouble, 3.14159), ref(acl.DTBFloat16, float64(float32(3.14159)))},
		{acl.DTInt32, scalar(acl.DTFloat, -7.9), -7},
		{acl.DTInt8, scalar(acl.DTInt32, 300), 44},
		{acl.DTBool, scalar(acl.DTFloat, 0.5), 1},
		{acl.DTUint8, scalar(acl.DTBool, 1), 1},
		{acl.DTInt64, scalar(acl.DTInt64, -1<<40), -1 << 40},
	} {
		x := view(c.self, []int64{2, 2}, []int64{3, 1}, 2, nil)
		canary := append([]byte(nil), x.Data...)
		if err := run(t, "InplaceFillScalar", tv(x), sv(c.value)); err != nil {
			t.Fatal(err)
		}
		checkValues(t, "fill "+c.self.String(), values(x), []float64{c.want, c.want, c.want, c.want})
		outside(t, x, canary)
	}
	for _, dt := range zeroTypes {
		x := view(dt, []int64{2, 2}, []int64{3, 1}, 2, nil)
		canary := append([]byte(nil), x.Data...)
		if err := run(t, "InplaceZero", tv(x)); err != nil {
			t.Fatal(err)
		}
		size := int64(dt.Size())
		eachIndex(x.Dims, func(idx []int64) {
			o := (x.Offset + idx[0]*x.Strides[0] + idx[1]) * size
			for k := range size {
				if x.Data[o+k] != 0 {
					t.Fatalf("%s: byte %d not zero", dt, o+k)
				}
			}
		})
		outside(t, x, canary)
	}

	f := tensor(acl.DTFloat, []int64{2, 3}, nil)
	wantCode(t, run(t, "InplaceCopy", Value{}, tv(f)), acl.ErrNNParamNullptr, "[selfRef]")
	wantCode(t, run(t, "InplaceCopy", tv(f), tv(tensor(acl.DTFloat, []int64{2, 2}, nil))), acl.ErrNNParamInvalid, "can not broadcast")
	wantCode(t, run(t, "InplaceCopy", tv(tensor(acl.DTFloat, []int64{3}, nil)), tv(f)), acl.ErrNNParamInvalid, "Shape of broadcast result should be [2 3], but self is [3]")
	wantCode(t, run(t, "InplaceCopy", tv(f), tv(tensor(acl.DTComplex64, []int64{3}, nil))), acl.ErrNNParamInvalid, "Tensor src not implemented for ACL_COMPLEX64")
	wantCode(t, run(t, "InplaceFillScalar", tv(f), Value{}), acl.ErrNNParamNullptr, "[value]")
	wantCode(t, run(t, "InplaceFillScalar", tv(f), sv(&ScalarArg{Type: acl.DTUint32})), acl.ErrNNParamInvalid, "Self dtype ACL_FLOAT and value dtype ACL_UINT32 can not promote dtype")
	wantCode(t, run(t, "InplaceFillScalar", tv(tensor(acl.DTUint16, []int64{2}, nil)), sv(scalar(acl.DTFloat, 1))), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_UINT16")
	wantCode(t, run(t, "InplaceZero", Value{}), acl.ErrNNParamNullptr, "[selfRef]")
	wantCode(t, run(t, "InplaceZero", tv(tensor(acl.DTUint32, []int64{2}, nil))), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_UINT32")
	// Zero has no dim limit natively.
	if err := run(t, "InplaceZero", tv(tensor(acl.DTFloat, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, nil))); err != nil {
		t.Fatal(err)
	}
}

// outside fails if a byte of t's storage outside its view differs from
// canary.
func outside(t *testing.T, x *TensorArg, canary []byte) {
	t.Helper()
	in := map[int64]bool{}
	size := int64(x.Type.Size())
	eachIndex(x.Dims, func(idx []int64) {
		o := x.Offset
		for i, v := range idx {
			o += v * x.Strides[i]
		}
		for k := range size {
			in[o*size+k] = true
		}
	})
	for i := range x.Data {
		if !in[int64(i)] && x.Data[i] != canary[i] {
			t.Fatalf("byte %d outside the view changed", i)
		}
	}
}

// TestInplaceCopyBytes: a copy within one type copies the elements' bytes,
// for the types the simulator does not compute on too, broadcasting.
func TestInplaceCopyBytes(t *testing.T) {
	for _, dt := range []acl.DataType{acl.DTFloat, acl.DTDouble, acl.DTComplex64, acl.DTComplex128, acl.DTUint64, acl.DTFloat8E4M3FN} {
		size := int64(dt.Size())
		src := &TensorArg{Type: dt, Format: acl.FormatND, Dims: []int64{3}, Strides: []int64{1}, Storage: []int64{3}, Data: make([]byte, 3*size)}
		for i := range src.Data {
			src.Data[i] = byte(i + 1)
		}
		dst := view(dt, []int64{2, 3}, []int64{4, 1}, 1, nil)
		canary := append([]byte(nil), dst.Data...)
		if err := run(t, "InplaceCopy", tv(dst), tv(src)); err != nil {
			t.Fatal(err)
		}
		for r := range int64(2) {
			o := (dst.Offset + r*4) * size
			if got := dst.Data[o : o+3*size]; string(got) != string(src.Data) {
				t.Fatalf("%s: row %d = %v, want %v", dt, r, got, src.Data)
			}
		}
		outside(t, dst, canary)
	}
	// Two types outside the computed ones do not convert.
	a := &TensorArg{Type: acl.DTDouble, Format: acl.FormatND, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}}
	b := &TensorArg{Type: acl.DTComplex64, Format: acl.FormatND, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}}
	wantCode(t, run(t, "InplaceCopy", tv(a), tv(b)), acl.ErrNNParamInvalid, "Tensor selfRef not implemented for ACL_DOUBLE")
	wantCode(t, run(t, "InplaceCopy", tv(a), tv(&TensorArg{Type: acl.DTString, Format: acl.FormatND, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}})), acl.ErrNNParamInvalid, "not implemented")
}
