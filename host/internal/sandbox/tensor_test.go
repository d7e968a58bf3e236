package sandbox_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Guest scratch for the operator library's tests: dims, strides and the
// storage dims of a tensor, and the values of arrays.
const (
	nnDims    = 0x2000
	nnStrides = 0x2100
	nnStorage = 0x2200
	nnValues  = 0x2300
)

// tensor is aclCreateTensor of a contiguous ND tensor of dims over addr,
// its storage exactly its view; it returns the handle (0: NULL).
func (h *harness) tensor(dt acl.DataType, addr uint64, dims ...int64) uint64 {
	h.T.Helper()
	h.PutI64s(nnDims, dims...)
	h.PutI64s(nnStorage, dims...)
	return uint64(uint32(h.Call("aclCreateTensor", nnDims, uint64(len(dims)), uint64(dt), 0, 0, uint64(acl.FormatND), nnStorage, uint64(len(dims)), addr)))
}

// nullWith requires that the last call returned NULL with a message
// containing each of want.
func (h *harness) nullWith(got uint64, want ...string) {
	h.T.Helper()
	require.Zero(h.T, got, "want NULL")
	msg := h.Inst.Session().LastError()
	for _, w := range want {
		require.Contains(h.T, msg, w)
	}
}

// TestCreateTensor: a tensor over an allocation is a handle, typed, never
// reused; its storage must lie in one live allocation of the session.
func TestCreateTensor(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		dev := h.Malloc(64)
		a := h.tensor(acl.DTFloat, dev, 4, 4)
		require.NotZero(t, a)
		b := h.tensor(acl.DTFloat16, dev+32, 2, 8)
		require.NotZero(t, b)
		require.NotEqual(t, a, b)
		h.OK("aclDestroyTensor", a)
		h.Code(acl.ErrNNParamInvalid, "aclDestroyTensor", a)  // destroyed
		h.Code(acl.ErrNNParamInvalid, "aclDestroyScalar", b)  // a tensor, not a scalar
		h.OK("aclDestroyTensor", 0)                           // NULL: nothing, as natively
		require.NotEqual(t, a, h.tensor(acl.DTFloat, dev, 1)) // never reused

		// NULL storage dims with a count: NULL, as natively.
		h.nullWith(uint64(uint32(h.Call("aclCreateTensor", nnDims, 1, 0, 0, 0, 2, 0, 1, dev))), "storageDims is NULL")
		h.nullWith(uint64(uint32(h.Call("aclCreateTensor", 0, 1, 0, 0, 0, 2, nnStorage, 1, dev))), "viewDims is NULL")
		// Stride NULL is contiguous; an empty storage needs no memory.
		require.NotZero(t, h.tensor(acl.DTInt32, 0, 0, 3))
	})
}

// TestCreateTensorOutsideMemory: the sandbox's rule: a tensor whose
// storage is not inside one live allocation is NULL, saying why.
func TestCreateTensorOutsideMemory(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		dev := h.Malloc(64)
		h.nullWith(h.tensor(acl.DTFloat, dev, 17), "crosses the end of the allocation")        // 68 bytes
		h.nullWith(h.tensor(acl.DTFloat, dev+8, 15), "crosses the end of the allocation")      // 8 + 60
		h.nullWith(h.tensor(acl.DTFloat, data, 4), "is guest memory")                          // guest memory
		h.nullWith(h.tensor(acl.DTFloat, dev+64+sandbox.AllocGuard, 1), "not in guest memory") // past it
		h.nullWith(h.tensor(acl.DTFloat, 0, 4), "tensorData is NULL")
		h.nullWith(h.tensor(acl.DataType(99), dev, 4), "dataType 99")
		h.nullWith(h.tensor(acl.DTFloat, dev, -1), "negative")
		h.nullWith(h.tensor(acl.DTFloat, dev, math.MaxInt64/2, 4), "more bytes than an address can hold")
		dims := make([]int64, 26)
		h.nullWith(h.tensor(acl.DTFloat, dev, dims...), "26 values")
		other := h.Malloc(64)
		h.OK("aclrtFree", other)
		h.nullWith(h.tensor(acl.DTFloat, other, 4), "not in guest memory or a live device allocation") // freed
	})
}

// TestNNObjects: scalars, arrays and tensor lists are handles of their
// own kinds; a list destroys its tensors, as natively.
func TestNNObjects(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		le.PutUint32(h.Mem()[nnValues:], math.Float32bits(2.5))
		s := uint64(uint32(h.Call("aclCreateScalar", nnValues, uint64(acl.DTFloat))))
		require.NotZero(t, s)
		h.nullWith(uint64(uint32(h.Call("aclCreateScalar", 0, uint64(acl.DTFloat)))), "value is NULL")
		h.nullWith(uint64(uint32(h.Call("aclCreateScalar", nnValues, uint64(acl.DTString)))), "not a scalar type")
		h.PutI64s(nnValues, 1, 2, 3)
		ia := uint64(uint32(h.Call("aclCreateIntArray", nnValues, 3)))
		require.NotZero(t, ia)
		fa := uint64(uint32(h.Call("aclCreateFloatArray", nnValues, 2)))
		require.NotZero(t, fa)
		ba := uint64(uint32(h.Call("aclCreateBoolArray", nnValues, 5)))
		require.NotZero(t, ba)
		require.NotZero(t, uint32(h.Call("aclCreateIntArray", 0, 0))) // empty
		h.nullWith(uint64(uint32(h.Call("aclCreateIntArray", 0, 2))), "value is NULL")
		h.nullWith(uint64(uint32(h.Call("aclCreateIntArray", 0xFFFFFFF0, 4))), "outside guest memory")

		dev := h.Malloc(64)
		t1, t2 := h.tensor(acl.DTFloat, dev, 2), h.tensor(acl.DTFloat, dev+8, 2)
		le.PutUint32(h.Mem()[nnValues:], uint32(t1))
		le.PutUint32(h.Mem()[nnValues+4:], uint32(t2))
		l := uint64(uint32(h.Call("aclCreateTensorList", nnValues, 2)))
		require.NotZero(t, l)
		le.PutUint32(h.Mem()[nnValues+4:], uint32(s))
		h.nullWith(uint64(uint32(h.Call("aclCreateTensorList", nnValues, 2))), "value[1]")

		h.Code(acl.ErrNNParamInvalid, "aclDestroyIntArray", fa) // a float array
		h.OK("aclDestroyFloatArray", fa)
		h.OK("aclDestroyBoolArray", ba)
		h.OK("aclDestroyIntArray", ia)
		h.OK("aclDestroyScalar", s)
		h.OK("aclDestroyTensorList", l)
		h.Code(acl.ErrNNParamInvalid, "aclDestroyTensor", t1) // went with the list
		h.Code(acl.ErrNNParamInvalid, "aclDestroyTensor", t2)

		// Executors: NULL and unknown handles.
		h.Code(acl.ErrNNInnerNullptr, "aclSetAclOpExecutorRepeatable", 0)
		h.Code(acl.ErrNNInner, "aclDestroyAclOpExecutor", t1)
	})
}
