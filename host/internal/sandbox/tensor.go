package sandbox

import (
	"math"
	"math/bits"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// The operator library's objects (ABI section 13.2) are a fifth kind of
// handle, with the rules of the others: typed, from the session's one
// numbering, never reused, released with the session. Each creation
// copies what the guest passed (an object never reads guest memory
// again); a tensor also records where its storage is, checked against
// the session's allocations now and at every launch.

// Bounds of what the objects hold, so that a guest cannot make the host
// keep unbounded memory: maxDims dims per tensor (the operator library's
// shapes hold at most 25), maxObjElems values in all the session's
// objects together.
const (
	maxDims     = 25
	maxObjElems = 1 << 22
)

// nnObj is one object: its kind and the field of that kind.
type nnObj struct {
	kind   abi.Kind
	t      *tensorRec
	sc     *aclnn.ScalarArg
	ints   []int64
	floats []float32
	bools  []bool
	list   []uint32 // a tensor list's tensors, by handle
	ex     *executor
	elems  int // values counted against maxObjElems
}

// tensorRec is a tensor: its description and its storage's guest device
// address and size in bytes.
type tensorRec struct {
	arg  aclnn.TensorArg
	addr uint64
	n    uint64
}

// newObj gives o a handle.
func (c *Call) newObj(o *nnObj) (uint32, error) {
	if c.s.objElems+o.elems > maxObjElems {
		return 0, acl.Errorf(acl.ErrNNParamInvalid, "the session's tensors, scalars and arrays already hold %d values; %d more exceed the sandbox's limit of %d (destroy some first)", c.s.objElems, o.elems, maxObjElems)
	}
	h, err := c.s.newHandle()
	if err != nil {
		return 0, err
	}
	if c.s.nn == nil {
		c.s.nn = map[uint32]*nnObj{}
	}
	c.s.nn[h] = o
	c.s.objElems += o.elems
	return h, nil
}

// NNObjects returns how many objects of the operator library the session
// holds (tensors, scalars, arrays, lists, executors): for the tests'
// leak checks.
func (s *Session) NNObjects() int { return len(s.nn) }

// dropObj destroys the object h.
func (s *Session) dropObj(h uint32) {
	if o, ok := s.nn[h]; ok {
		s.objElems -= o.elems
		delete(s.nn, h)
	}
}

// obj resolves handle h named name as an object of kind k: 0 gives nil
// (each caller says what NULL means), another kind or an unknown handle
// 161002 with what it is.
func (c *Call) obj(name string, h uint32, k abi.Kind) (*nnObj, error) {
	if h == 0 {
		return nil, nil
	}
	o, ok := c.s.nn[h]
	switch {
	case ok && o.kind == k:
		return o, nil
	case ok:
		return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s %d is an %s, not an %s", name, h, o.kind, k)
	case c.s.streams[h] != nil:
		return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s %d is a stream, not an %s", name, h, k)
	case c.s.events[h] != nil:
		return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s %d is an event, not an %s", name, h, k)
	case c.s.ctxOf(h) != nil:
		return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s %d is a context, not an %s", name, h, k)
	case c.s.isNotify(h):
		return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s %d is a notify, not an %s", name, h, k)
	}
	return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s %d is unknown or destroyed: not an %s of this session", name, h, k)
}

// returns makes the current function return handle h (0: NULL), which
// replaces its code: a creation's error is in aclGetRecentErrMsg alone.
func (c *Call) returns(h uint32) {
	v := int32(h)
	c.ret = &v
}

// i64s reads the n int64_t at gptr parameter i (8 bytes each in both
// profiles), at most max of them.
func (c *Call) i64s(i int, n, max uint64) ([]int64, error) {
	name := abi.Funcs[c.fi].Params[i].Name
	if n > max {
		return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s: %d values, more than the %d the sandbox accepts", name, n, max)
	}
	b, err := c.guest(name, c.u32(i), n*8)
	if err != nil {
		return nil, err
	}
	v := make([]int64, n)
	for k := range v {
		v[k] = int64(le.Uint64(b[8*k:]))
	}
	return v, nil
}

// storageBytes returns the bytes of storage dims of elements of size esz,
// overflow-checked: false when a dim is negative or the product overflows.
func storageBytes(dims []int64, esz uint64) (uint64, bool) {
	n := esz
	for _, d := range dims {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// contiguous returns the row-major strides of dims, in elements.
func contiguous(dims []int64) []int64 {
	st := make([]int64, len(dims))
	acc := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= max(dims[i], 1)
	}
	return st
}

// createTensor is aclCreateTensor(viewDims, viewDimsNum, dataType, stride,
// offset, format, storageDims, storageDimsNum, tensorData). Natively it
// returns NULL only for NULL dims with a nonzero count, and each operator
// checks the rest. The sandbox also refuses a tensor whose storage does
// not lie in one live device allocation of the session, a data type whose
// element size it cannot know, and more than maxDims dims: no tensor it
// hands an operator names memory the guest does not own.
func createTensor(c *Call) error {
	c.returns(0)
	nv, ns := c.u64(1), c.u64(7)
	if c.u32(0) == 0 && nv > 0 {
		return acl.Errorf(acl.ErrNNParamNullptr, "viewDims is NULL with viewDimsNum %d", nv)
	}
	if c.u32(6) == 0 && ns > 0 {
		return acl.Errorf(acl.ErrNNParamNullptr, "storageDims is NULL with storageDimsNum %d", ns)
	}
	dims, err := c.i64s(0, nv, maxDims)
	if err != nil {
		return err
	}
	storage, err := c.i64s(6, ns, maxDims)
	if err != nil {
		return err
	}
	strides := contiguous(dims)
	if c.u32(3) != 0 {
		if strides, err = c.i64s(3, nv, maxDims); err != nil {
			return err
		}
	}
	dt := acl.DataType(c.i32(2))
	if !dt.Named() {
		return acl.Errorf(acl.ErrNNParamInvalid, "dataType %d is not an aclDataType", int32(dt))
	}
	n, ok := storageBytes(storage, dt.Size())
	if !ok {
		return acl.Errorf(acl.ErrNNParamInvalid, "storageDims %v of %s: a negative dim, or more bytes than an address can hold", storage, dt)
	}
	addr := c.u64(8)
	if n > 0 {
		if addr == 0 {
			return acl.Errorf(acl.ErrNNParamNullptr, "tensorData is NULL for %d bytes of storage", n)
		}
		if _, err := c.s.resolveDevice("tensorData", addr, n); err != nil {
			return acl.Errorf(acl.ErrNNParamInvalid, "the storage (storageDims %v of %s, %d bytes): %s", storage, dt, n, acl.MessageOf(err))
		}
	}
	t := &tensorRec{arg: aclnn.TensorArg{Type: dt, Format: acl.Format(c.i32(5)), Dims: dims, Strides: strides, Offset: int64(c.u64(4)), Storage: storage}, addr: addr, n: n}
	h, err := c.newObj(&nnObj{kind: abi.TensorHandle, t: t, elems: len(dims) + len(strides) + len(storage)})
	if err != nil {
		return err
	}
	c.returns(h)
	return nil
}

// destroyObj is aclDestroyTensor and the other destructions of an object
// of kind k: NULL does nothing, as natively; a handle of another kind or
// one already destroyed gives 161002 (natively a double free).
func destroyObj(k abi.Kind) importFn {
	return func(c *Call) error {
		h := c.u32(0)
		o, err := c.obj(abi.Funcs[c.fi].Params[0].Name, h, k)
		if o == nil {
			return err
		}
		for _, t := range o.list { // a list destroys its tensors, as natively
			if to, ok := c.s.nn[t]; ok && to.kind == abi.TensorHandle {
				c.s.dropObj(t)
			}
		}
		c.s.dropObj(h)
		return nil
	}
}

// createScalar is aclCreateScalar(value, dataType): NULL value gives NULL,
// as natively; the value's bytes are the data type's size.
func createScalar(c *Call) error {
	c.returns(0)
	if c.u32(0) == 0 {
		return acl.Errorf(acl.ErrNNParamNullptr, "value is NULL")
	}
	dt := acl.DataType(c.i32(1))
	if !dt.Named() || dt.Size() == 0 || dt.Size() > 8 {
		return acl.Errorf(acl.ErrNNParamInvalid, "dataType %s is not a scalar type", dt)
	}
	b, err := c.guest("value", c.u32(0), dt.Size())
	if err != nil {
		return err
	}
	sc := &aclnn.ScalarArg{Type: dt}
	copy(sc.Bits[:], b)
	h, err := c.newObj(&nnObj{kind: abi.ScalarHandle, sc: sc, elems: 1})
	if err != nil {
		return err
	}
	c.returns(h)
	return nil
}

// arrayLen is the element count parameter 1 of the array creations,
// bounded by what the session may still hold.
func (c *Call) arrayLen() (uint64, error) {
	n := c.u64(1)
	if n > maxObjElems {
		return 0, acl.Errorf(acl.ErrNNParamInvalid, "size %d is more values than the sandbox keeps (%d)", n, maxObjElems)
	}
	if n > 0 && c.u32(0) == 0 {
		return 0, acl.Errorf(acl.ErrNNParamNullptr, "value is NULL with size %d", n)
	}
	return n, nil
}

// createArray is aclCreateIntArray, aclCreateFloatArray, aclCreateBoolArray
// and aclCreateTensorList (value, size): size values of esz bytes each.
func createArray(k abi.Kind, esz uint64) importFn {
	return func(c *Call) error {
		c.returns(0)
		n, err := c.arrayLen()
		if err != nil {
			return err
		}
		var b []byte
		if n > 0 {
			if b, err = c.guest("value", c.u32(0), n*esz); err != nil {
				return err
			}
		}
		o := &nnObj{kind: k, elems: int(n)}
		switch k {
		case abi.IntArrayHandle:
			o.ints = make([]int64, n)
			for i := range o.ints {
				o.ints[i] = int64(le.Uint64(b[8*i:]))
			}
		case abi.FloatArrayHandle:
			o.floats = make([]float32, n)
			for i := range o.floats {
				o.floats[i] = math.Float32frombits(le.Uint32(b[4*i:]))
			}
		case abi.BoolArrayHandle:
			o.bools = make([]bool, n)
			for i := range o.bools {
				o.bools[i] = b[i] != 0
			}
		case abi.TensorListHandle:
			o.list = make([]uint32, n)
			for i := range o.list {
				h := le.Uint32(b[4*i:])
				if _, err := c.obj("value", h, abi.TensorHandle); err != nil || h == 0 {
					return acl.Errorf(acl.ErrNNParamInvalid, "value[%d]: tensor %d is NULL, unknown or not a tensor", i, h)
				}
				o.list[i] = h
			}
		}
		h, err := c.newObj(o)
		if err != nil {
			return err
		}
		c.returns(h)
		return nil
	}
}
