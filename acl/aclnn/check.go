package aclnn

import (
	"math"
	"slices"
	"strings"

	"github.com/aclwasm/aclwasm/acl"
)

// maxDims is the most dims an operator's tensors may have
// (MAX_SUPPORT_DIMS_NUMS and MAX_DIM_LEN, 8, in ops-math's
// math/*/op_api/aclnn_*.cpp).
const maxDims = 8

// invalid is ACLNN_ERR_PARAM_INVALID with a message.
func invalid(format string, args ...any) error {
	return acl.Errorf(acl.ErrNNParamInvalid, format, args...)
}

// nulls checks that every parameter that is not Optional has a value,
// in the native order (OP_CHECK_NULL in ops-math's
// common/inc/external/aclnn_kernels/common/op_error_check.h).
func nulls(params []Param, args []Value) error {
	if len(args) != len(params) {
		return acl.Errorf(acl.ErrNNParamInvalid, "expected %d arguments, got %d", len(params), len(args))
	}
	for i, p := range params {
		if p.Optional || !p.Kind.Handle() {
			continue
		}
		a := args[i]
		if a.Tensor == nil && a.Tensors == nil && a.Scalar == nil && a.Ints == nil && a.Floats == nil && a.Bools == nil {
			return acl.Errorf(acl.ErrNNParamNullptr, "Expected a value of type [%s] for argument [%s] but instead found nullptr.",
				strings.TrimSuffix(strings.TrimPrefix(p.Kind.String(), "const "), " *"), p.Name)
		}
	}
	return nil
}

// dtypeIn checks that t's data type is in list (OP_CHECK_DTYPE_NOT_SUPPORT).
func dtypeIn(name string, t acl.DataType, list []acl.DataType) error {
	if !slices.Contains(list, t) {
		return invalid("Tensor %s not implemented for %s, should be in dtype support list %s.", name, t, typesString(list))
	}
	return nil
}

func typesString(list []acl.DataType) string {
	s := make([]string, len(list))
	for i, t := range list {
		s[i] = t.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// tensorOK checks what the simulator needs of any tensor argument: at
// most maxDims dims (OP_CHECK_MAX_DIM), non-negative dims, strides for
// every dim, and a layout that is ND in memory (the private formats are
// the device's own tiling, which the simulator does not lay out).
func tensorOK(name string, t *TensorArg) error {
	return dimsOK(name, t, maxDims)
}

// dimsOK is tensorOK with a limit of max dims.
func dimsOK(name string, t *TensorArg, max int) error {
	if len(t.Dims) > max {
		return invalid("%s's dim num %d should not be greater than %d.", name, len(t.Dims), max)
	}
	return viewOK(name, t)
}

// viewOK is tensorOK without a limit on the dims (InplaceZero has none).
func viewOK(name string, t *TensorArg) error {
	if len(t.Strides) != len(t.Dims) {
		return invalid("%s has %d strides for %d dims.", name, len(t.Strides), len(t.Dims))
	}
	for _, d := range t.Dims {
		if d < 0 {
			return invalid("%s has a negative dim: %s.", name, dimsString(t.Dims))
		}
	}
	if !t.Format.Plain() {
		return invalid("%s's format %s is not supported: the operators compute on ND layouts.", name, t.Format)
	}
	if n, s := capped(t.Dims), capped(t.Storage); n > max(s, maxExpanded) {
		return invalid("%s's view %s has more elements than its storage %s holds (the simulator computes such expanded views up to %d elements).",
			name, dimsString(t.Dims), dimsString(t.Storage), maxExpanded)
	}
	return nil
}

// maxExpanded bounds the elements of a view larger than its storage (a
// stride-0 expansion). The simulator's arithmetic holds a launch's
// elements in host memory, so a view of a few bytes of storage must not
// name billions of them; natively the library materializes such a view
// in a workspace of its size, which the device's memory bounds the same
// way.
const maxExpanded = 1 << 24

// capped is the element count of dims, saturating instead of
// overflowing.
func capped(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		if d <= 0 {
			return 0
		}
		if n > math.MaxInt64/d {
			return math.MaxInt64
		}
		n *= d
	}
	return n
}

// broadcastOut checks that a and b broadcast and that out has the
// broadcast shape (OP_CHECK_BROADCAST_AND_INFER_SHAPE,
// OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE).
func broadcastOut(an string, a *TensorArg, bn string, b *TensorArg, out *TensorArg) error {
	shape, ok := broadcast(a.Dims, b.Dims)
	if !ok {
		return invalid("%s's shape %s and %s's shape %s can not broadcast.", an, dimsString(a.Dims), bn, dimsString(b.Dims))
	}
	if !slices.Equal(shape, out.Dims) {
		return invalid("Shape of out should be %s, but current is %s.", dimsString(shape), dimsString(out.Dims))
	}
	return nil
}

// sameShape checks that out has self's shape (OP_CHECK_SHAPE_NOT_EQUAL).
func sameShape(sn string, self *TensorArg, on string, out *TensorArg) error {
	if !slices.Equal(self.Dims, out.Dims) {
		return invalid("Shape of %s should be %s, but current is %s.", on, dimsString(self.Dims), dimsString(out.Dims))
	}
	return nil
}

// castTo checks that a result of type from may be written to out's type
// (OP_CHECK_RESULT_DTYPE_CAST_FAILED) and that the simulator stores it.
func castTo(from, to acl.DataType) error {
	if !canCast(from, to) {
		return invalid("Result type %s can't be cast to the desired output type %s.", from, to)
	}
	if !slices.Contains(storeTypes, to) {
		return invalid("Output dtype %s is not implemented, should be in dtype support list %s.", to, typesString(storeTypes))
	}
	return nil
}

// storeTypes are the types the simulator writes.
var storeTypes = append(append(slices.Clone(floatTypes), intTypes...), acl.DTBool)

// scalarOK checks that the simulator reads s's type.
func scalarOK(name string, s *ScalarArg) error {
	if !slices.Contains(scalarTypes, s.Type) {
		return invalid("Scalar %s's dtype %s is not supported, should be in %s.", name, s.Type, typesString(scalarTypes))
	}
	return nil
}
