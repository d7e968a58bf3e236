package sandbox

import (
	"context"
	"slices"

	"github.com/aclwasm/aclwasm/acl"
)

// reduceAsync is aclrtReduceAsync(dst, src, count, kind, type, stream,
// reserve): a device-to-device copy that combines each element of src into
// dst (ABI section 15), checked in the native order (acl.Order). A backend
// that computes in Go (acl.Computer, the simulator) runs it as a launch
// over the two validated ranges; one that reduces natively
// (acl.Reducer, the native backend) queues the node's own reduce.
func reduceAsync(c *Call) error {
	dst, src, n := c.u64(0), c.u64(1), c.u64(2)
	k, t := acl.ReduceKind(c.i32(3)), acl.DataType(c.i32(4))
	if dst == 0 { // dst
		return acl.Errorf(acl.ErrInvalidParam, "dst is NULL")
	}
	if src == 0 { // src
		return acl.Errorf(acl.ErrInvalidParam, "src is NULL")
	}
	if c.u64(6) != 0 { // reserve
		return acl.Errorf(acl.ErrInvalidParam, "reserve is a reserved parameter and must be NULL")
	}
	if !slices.Contains(acl.ReduceTypes, t) { // type
		return acl.Errorf(acl.ErrInvalidParam, "type %v: the data type is currently not supported (float, float16, int16, int4, int8, int32, bfloat16, uint8, uint16, uint32)", t)
	}
	st, err := c.streamHandle(c.u32(5)) // stream
	if err != nil {
		return err
	}
	if n == 0 { // count0
		return acl.Errorf(acl.ErrRTParamInvalid, "count 0: a reduce combines at least one byte")
	}
	if k < acl.ReduceSum || k > acl.ReduceEqual { // kind
		return acl.Errorf(acl.ErrRTParamInvalid, "kind %d is outside [%d, %d]", int32(k), acl.ReduceSum, acl.ReduceEqual)
	}
	if k == acl.ReduceSum && n > acl.MaxReduceSum { // sum4g
		return acl.Errorf(acl.ErrRTParamInvalid, "count %d: a SUM reduce combines at most %d bytes", n, uint64(acl.MaxReduceSum))
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if k == acl.ReduceEqual { // equal
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "kind %v is only supported on STARS chips, which the device is not", k)
	}
	d, err := c.s.resolveDevice("dst", dst, n) // range
	if err == nil {
		err = d.writable("dst", dst, n)
	}
	if err != nil {
		return err
	}
	s, err := c.s.resolveDevice("src", src, n)
	if err != nil {
		return err
	}
	if a := acl.ReduceAlign(t); src%a != 0 || dst%a != 0 { // align
		name, p := "src", src
		if src%a == 0 {
			name, p = "dst", dst
		}
		return acl.Errorf(acl.ErrRTAddrUnaligned, "%s %#x is not aligned to %d bytes, as a reduce of %v needs", name, p, a, t)
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	tr := c.s.b.Traits()
	comp, red := tr.Computer, tr.Reducer
	isComp, isRed := comp != nil, red != nil
	if !isComp && (!isRed || !c.s.b.Supports("aclrtReduceAsync")) { // feature
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot reduce (its library lacks aclrtReduceAsync)", c.s.b.Name())
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if isComp {
		bounds := c.launchBounds()
		err = comp.Compute(st.h, &acl.Launch{
			Name:    "aclrtReduceAsync",
			Regions: []acl.Region{{Ptr: d.buf.Dev, N: n, Write: true}, {Ptr: s.buf.Dev, N: n}},
			Run: func(ctx context.Context, mem [][]byte) error {
				ctx, cancel := bounds(ctx)
				defer cancel()
				return acl.Reduce(ctx, k, t, mem[0], mem[1])
			},
		})
	} else {
		err = red.ReduceAsync(d.buf.Dev, s.buf.Dev, n, k, t, st.h)
	}
	if err := be(err); err != nil {
		return err
	}
	c.set(st, n)
	return nil
}
