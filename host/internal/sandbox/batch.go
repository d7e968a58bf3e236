package sandbox

import (
	"slices"
	"strconv"

	"github.com/aclwasm/aclwasm/acl"
)

// keptBatch is the most entries of the slice a session keeps for its
// synchronous batches (about 360 KiB): a bigger batch allocates its own,
// so that a session does not hold the memory of its biggest batch.
const keptBatch = 4096

// batchFn returns the implementation of one of the four batch copies.
// Parameters: dsts, destMaxs, srcs, sizes (gptr), numBatches (size), attrs,
// attrsIndexes (gptr), numAttrs (size), then failIndex (gptr) unless v2,
// then the stream if async.
func batchFn(async, v2 bool) importFn {
	failAt, streamAt := 8, 9
	if v2 {
		failAt, streamAt = -1, 8
	}
	return func(c *Call) error { return c.batch(async, failAt, streamAt) }
}

// batch checks and runs a batch copy. The guest's arrays are read in place
// (acl.Words views of its memory), so a call costs the host no copy of them;
// the host state an accepted asynchronous batch keeps until it runs is
// bounded by the policy's MaxBatchEntries.
func (c *Call) batch(async bool, failAt, streamAt int) error {
	// ACL layer, in order: failIndex, sizes, numBatches, all-zero sizes,
	// the other arrays, destMaxs against sizes, reserved bytes.
	var fail []byte
	if failAt >= 0 {
		var err error
		if fail, err = c.outWord(failAt); err != nil {
			return err
		}
	}
	setFail := func(i uint64) {
		if fail != nil {
			putWord(fail, i)
		}
	}
	num, numAttrs := c.u64(4), c.u64(7)
	if c.u32(3) == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "sizes is NULL")
	}
	if num == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "numBatches is 0")
	}
	sizes, err := c.array(3, num)
	if err != nil {
		return err
	}
	if acl.AllZero(sizes) {
		setFail(acl.FailIndexNone)
		return nil
	}
	dsts, err := c.array(0, num)
	if err != nil {
		return err
	}
	destMaxs, err := c.array(1, num)
	if err != nil {
		return err
	}
	srcs, err := c.array(2, num)
	if err != nil {
		return err
	}
	if numAttrs > uint64(len(c.mem))/acl.MemcpyBatchAttrSize {
		return acl.Errorf(acl.ErrInvalidParam, "attrs: %d attributes of %d bytes exceed guest memory (%d bytes)", numAttrs, acl.MemcpyBatchAttrSize, len(c.mem))
	}
	ab, err := c.out(5, numAttrs*acl.MemcpyBatchAttrSize)
	if err != nil {
		return err
	}
	attrs := acl.BatchAttrs(ab)
	idx, err := c.array(6, numAttrs)
	if err != nil {
		return err
	}
	if err := acl.CheckBatchArrays(destMaxs, sizes, attrs); err != nil {
		return err
	}

	// Runtime layer: the stream handle at the entry point (failIndex
	// untouched), then failIndex starts as SIZE_MAX, the shape of the
	// attribute indexes, the device, then each copy.
	var st *streamRec
	if async {
		if st, err = c.streamHandle(c.u32(streamAt)); err != nil { // stream
			return err
		}
	}
	setFail(acl.FailIndexNone)
	if err := acl.CheckBatchShape(num, idx, !async); err != nil { // shape
		return err
	}
	if async {
		if st, err = c.bindStream(st); err != nil { // context
			return err
		}
		if max := uint64(c.s.policy.MaxBatchEntries); num > max-min(max, uint64(c.s.batchEntries.Load())) { // budget
			return acl.Errorf(acl.ErrRTOverLimit, "numBatches %d: queued asynchronous batches would hold more than the policy's %d entries", num, max)
		}
	} else if err := c.needDevice(); err != nil { // context
		return err
	}
	if err := c.budget(total(sizes)); err != nil { // bytes
		return err
	}
	// A synchronous batch reuses the session's slice (the backend is done
	// with it when MemcpyBatch returns), up to keptBatch entries; an
	// accepted asynchronous one may be kept by the backend until it runs,
	// so it gets its own.
	var copies []acl.Copy
	if async || num > keptBatch {
		copies = make([]acl.Copy, 0, num)
	} else {
		copies = slices.Grow(c.s.batchBuf[:0], int(num))
		defer func() { clear(copies); c.s.batchBuf = copies[:0] }() // keeps no reference to guest memory
	}
	var bytes [4]uint64
	var attr acl.MemcpyBatchAttr // attrs[attrAt], decoded once for its entries
	attrAt := -1
	queued := false // an entry takes the queued path: neither side is unregistered memory
	for i := uint64(0); i < num; i++ {
		n, dst, src := sizes.At(int(i)), dsts.At(int(i)), srcs.At(int(i))
		if n == 0 && async { // entrysize
			setFail(i)
			return acl.Errorf(acl.ErrRTParamInvalid, "copy %d: size is 0", i)
		}
		if dst == 0 || src == 0 { // entrynull
			setFail(i)
			return acl.Errorf(acl.ErrRTParamInvalid, "copy %d: dst or src is NULL", i)
		}
		// Resolved in place, in the next entry of copies (zero, cleared
		// after the call or new): copying a resolved Buf into it cost
		// more than resolving.
		copies = copies[:len(copies)+1]
		e := &copies[len(copies)-1]
		da, err := c.resolveBuf(&e.Dst, "dsts", dst, n, true) // entryrange
		if err != nil {
			setFail(i)
			return c.entryErr("dsts", i, dst, n, true)
		}
		sa, err := c.resolveBuf(&e.Src, "srcs", src, n, false)
		if err != nil {
			setFail(i)
			return c.entryErr("srcs", i, src, n, false)
		}
		if k := acl.BatchAttrIndex(idx, i); k != attrAt {
			attr, attrAt = attrs.At(k), k
		}
		if err := acl.CheckBatchLocation(i, attr, locOf(da, &e.Dst), locOf(sa, &e.Src)); err != nil { // entryloc, entrydir
			setFail(i)
			return err
		}
		if n == 0 {
			*e = acl.Copy{}
			copies = copies[:len(copies)-1]
			continue // a synchronous copy of 0 bytes: nothing to do
		}
		e.N = n
		bytes[acl.DirectionOf(da != nil, sa != nil)] += n
		if async && !queued {
			queued = acl.Queues(e.Dst, e.Src)
		}
	}
	if async {
		// Natively an entry on unregistered memory synchronizes the stream
		// and copies, whatever device the stream is on; only a queued
		// entry meets the stream-context check.
		if queued {
			if err := c.streamCtx(st); err != nil { // streamctx
				return err
			}
		}
		return c.batchAsync(st, copies, bytes)
	}
	if err := be(c.s.b.MemcpyBatch(c.ctx, copies)); err != nil {
		return err
	}
	for d, n := range bytes {
		c.moved(acl.Direction(d), n)
	}
	return nil
}

// entryErr is the error of entry i of the array arr, whose resolve
// failed: resolve runs again with the entry's name ("dsts[3]"), built only
// now, so that a batch costs no allocation per entry (resolve has no
// effect).
func (c *Call) entryErr(arr string, i, addr, n uint64, write bool) error {
	_, err := c.resolve(arr+"["+strconv.FormatUint(i, 10)+"]", addr, n, write)
	return err
}

// batchAsync queues the copies, then a host function that returns their
// entries to the session's budget and counts their bytes once the batch
// has run (it is dropped with the batch when the batch is cancelled).
func (c *Call) batchAsync(st *streamRec, copies []acl.Copy, bytes [4]uint64) error {
	if err := c.enqueue(st); err != nil {
		return err
	}
	if err := c.s.b.MemcpyBatchAsync(c.ctx, copies, st.h); err != nil {
		return be(err)
	}
	s, n, fi := c.s, int64(len(copies)), c.fi
	s.batchEntries.Add(n)
	st.batch.Add(n)
	err := s.b.LaunchHostFunc(st.h, func() error {
		s.batchEntries.Add(-n)
		st.batch.Add(-n)
		for d, k := range bytes {
			s.countBytes(fi, acl.Direction(d), k)
		}
		return nil
	})
	if err != nil {
		s.batchEntries.Add(-n) // the batch is queued; only the budget and the count are off
		st.batch.Add(-n)
	}
	return nil
}
