package aclnn

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// chunk is how many elements the arithmetic computes between two looks at
// its context.
const chunk = 1 << 16

// numel is the element count of dims (1 for a scalar tensor of no dims),
// saturating at MaxInt64 rather than wrapping (a wrapped count could read
// as empty).
func numel(dims []int64) int64 { return capped(dims) }

// broadcast returns the shape a and b broadcast to (aligned at their last
// dims, each pair equal or one of them 1), or false.
func broadcast(a, b []int64) ([]int64, bool) {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]int64(nil), a...)
	for i := range b {
		x, y := &out[len(a)-len(b)+i], b[i]
		switch {
		case *x == y, y == 1:
		case *x == 1:
			*x = y
		default:
			return nil, false
		}
	}
	return out, true
}

// rowMajor returns the strides of a contiguous tensor of dims.
func rowMajor(dims []int64) []int64 {
	s := make([]int64, len(dims))
	st := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = st
		st *= dims[i]
	}
	return s
}

// stridesOver returns t's strides over shape, a shape t broadcasts to: 0
// on the dims t repeats.
func stridesOver(t *TensorArg, shape []int64) []int64 {
	s := make([]int64, len(shape))
	k := len(shape) - len(t.Dims)
	for i := range t.Dims {
		if t.Dims[i] != 1 || shape[k+i] == 1 {
			s[k+i] = t.Strides[i]
		}
	}
	return s
}

// contiguous reports whether t's view is its elements in row-major order
// with no gap (the strides a fresh tensor of its dims has).
func contiguous(t *TensorArg) bool {
	st := int64(1)
	for i := len(t.Dims) - 1; i >= 0; i-- {
		if t.Dims[i] != 1 && t.Strides[i] != st {
			return false
		}
		st *= t.Dims[i]
	}
	return true
}

// inside reports an error unless every element of t's view lies in its
// Data: the sandbox checked the storage extent; this keeps the
// arithmetic from ever reading outside it whatever the view says.
func inside(t *TensorArg) error {
	if numel(t.Dims) == 0 {
		return nil
	}
	size := int64(t.Type.Size())
	if size == 0 {
		return acl.Errorf(acl.ErrRTAicoreException, "tensor of %s has no element size", t.Type)
	}
	// Every term is bounded by the storage's length before it is added,
	// so nothing overflows.
	l := int64(len(t.Data)) / size
	if capped(t.Dims) > max(l, maxExpanded) {
		return acl.Errorf(acl.ErrRTAicoreException, "tensor view %s has more elements than its storage of %d bytes", dimsString(t.Dims), len(t.Data))
	}
	lo, hi := t.Offset, t.Offset
	ok := lo >= 0 && lo < l
	for i, d := range t.Dims {
		st := t.Strides[i]
		if !ok || st > l || st < -l || (d-1) > l {
			ok = false
			break
		}
		if s := st * (d - 1); s < 0 {
			lo += s
		} else {
			hi += s
		}
	}
	if !ok || lo < 0 || hi >= l {
		return acl.Errorf(acl.ErrRTAicoreException, "tensor view [%d, %d] lies outside its storage of %d bytes", lo, hi, len(t.Data))
	}
	return nil
}

// walk calls row for each innermost row of shape, in row-major order,
// with the row's start and step in elements for strides (offset off), and
// returns ctx's error between chunks.
func walk(ctx context.Context, shape, strides []int64, off int64, row func(start, step, n int64)) error {
	n := numel(shape)
	if n == 0 {
		return nil
	}
	if len(shape) == 0 {
		row(off, 0, 1)
		return ctx.Err()
	}
	last := len(shape) - 1
	inner, step := shape[last], strides[last]
	idx := make([]int64, last)
	done := int64(0)
	for pos := off; ; {
		row(pos, step, inner)
		if done += inner; done >= chunk {
			done = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i := last - 1
		for ; i >= 0; i-- {
			idx[i]++
			pos += strides[i]
			if idx[i] < shape[i] {
				break
			}
			pos -= strides[i] * shape[i]
			idx[i] = 0
		}
		if i < 0 {
			return ctx.Err()
		}
	}
}

// gatherF reads t's view, broadcast to shape, as float32 in row-major
// order.
func gatherF(ctx context.Context, t *TensorArg, shape []int64) ([]float32, error) {
	out := make([]float32, 0, numel(shape))
	size := int64(t.Type.Size())
	err := walk(ctx, shape, stridesOver(t, shape), t.Offset, func(start, step, n int64) {
		for i := range n {
			out = append(out, loadF(t.Type, t.Data, (start+i*step)*size))
		}
	})
	return out, err
}

// gatherI reads t's view, broadcast to shape, as int64 in row-major
// order.
func gatherI(ctx context.Context, t *TensorArg, shape []int64) ([]int64, error) {
	out := make([]int64, 0, numel(shape))
	size := int64(t.Type.Size())
	err := walk(ctx, shape, stridesOver(t, shape), t.Offset, func(start, step, n int64) {
		for i := range n {
			out = append(out, loadI(t.Type, t.Data, (start+i*step)*size))
		}
	})
	return out, err
}

// scatterF writes v, in row-major order, to t's view, converted to its
// type as a Cast does (rounding to nearest even; to an integer toward
// zero).
func scatterF(ctx context.Context, t *TensorArg, v []float32) error {
	size, k := int64(t.Type.Size()), 0
	if !isFloat(t.Type) {
		return walk(ctx, t.Dims, t.Strides, t.Offset, func(start, step, n int64) {
			for i := range n {
				storeI(t.Type, t.Data, (start+i*step)*size, castFI(t.Type, v[k]))
				k++
			}
		})
	}
	return walk(ctx, t.Dims, t.Strides, t.Offset, func(start, step, n int64) {
		for i := range n {
			storeF(t.Type, t.Data, (start+i*step)*size, v[k])
			k++
		}
	})
}

// scatterI writes v, in row-major order, to t's view as its type.
func scatterI(ctx context.Context, t *TensorArg, v []int64) error {
	size, k := int64(t.Type.Size()), 0
	return walk(ctx, t.Dims, t.Strides, t.Offset, func(start, step, n int64) {
		for i := range n {
			storeI(t.Type, t.Data, (start+i*step)*size, v[k])
			k++
		}
	})
}

// span is the bytes of t's view when it is contiguous.
func span(t *TensorArg) []byte {
	size := int64(t.Type.Size())
	return t.Data[t.Offset*size : (t.Offset+numel(t.Dims))*size]
}

// overlap reports whether a and b share a byte: tensors may view one
// buffer (natively two aclTensors over one address), and the fast paths
// write in place only where that cannot change what they read.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// same reports whether a and b are the same bytes.
func same(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
}

// f32s views b as float32s when it is aligned and the machine is
// little-endian (the device's order), else nil.
func f32s(b []byte) []float32 {
	if !littleEndian || len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func dimsString(d []int64) string { return fmt.Sprint(d) }
