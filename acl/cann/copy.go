//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"math"
	"runtime"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// kindOf returns the aclrtMemcpyKind of a copy between two resolved sides:
// the backend always knows the real direction, so it never asks the
// runtime to infer one.
func kindOf(dst, src side) int32 {
	switch acl.DirectionOf(dst.isDev, src.isDev) {
	case acl.HostToDevice:
		return int32(acl.MemcpyHostToDevice)
	case acl.DeviceToHost:
		return int32(acl.MemcpyDeviceToHost)
	case acl.DeviceToDevice:
		return int32(acl.MemcpyDeviceToDevice)
	}
	return int32(acl.MemcpyHostToHost)
}

// devOf returns the device whose context a copy between dst and src runs
// in: the destination's if it is device memory, else the source's.
func devOf(dst, src side) int32 {
	if dst.isDev {
		return dst.dev
	}
	return src.dev
}

var (
	// The runtime resolves a 2D copy's direction from the addresses and
	// accepts only host to device, device to host and (async) device to device.
	err2DH2H = acl.Errorf(acl.ErrRTParamInvalid, "2D copies between two host buffers are not supported")
)

// Memcpy implements [acl.Backend] with aclrtMemcpy, or with Go's copy when
// neither side is device memory: host memory of this process needs no
// runtime.
func (b *Backend) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	if err := orBackground(ctx).Err(); err != nil {
		return err
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	sides, err := b.resolve(req{dst, n, true}, req{src, n, false})
	if err != nil {
		return err
	}
	defer b.done(nil, sides)
	d, s := sides[0], sides[1]
	if !d.isDev && !s.isDev {
		copy(d.host, s.host)
		return nil
	}
	return b.copySync(ctx, devOf(d, s), d, s, n)
}

// nativeChunk bounds the bytes of one native call of a synchronous copy or
// memset. A native call cannot be interrupted, so a timeout takes effect
// between two calls: 64 MiB is a few milliseconds of PCIe or HBM time, and
// big enough that a call's fixed cost (tens of microseconds) stays near 1%
// (an estimate: not measured on hardware).
const nativeChunk = 64 << 20

// pieces calls f for the consecutive pieces [off, off+k) of n bytes, at
// most per bytes each, back to front when backward (an overlapping copy to
// a higher address), and gives up with ctx's error before a piece once ctx
// is done.
func pieces(ctx context.Context, n, per uint64, backward bool, f func(off, k uint64) error) error {
	ctx = orBackground(ctx)
	count := (n + per - 1) / per
	for i := range count {
		if backward {
			i = count - 1 - i
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		off := i * per
		if err := f(off, min(per, n-off)); err != nil {
			return err
		}
	}
	return nil
}

// overlapsAbove reports whether a copy of n bytes from s to d overlaps
// with d above s, so that it must run back to front in pieces.
func overlapsAbove(d, s side, n uint64) bool {
	return d.isDev == s.isDev && d.addr > s.addr && uint64(d.addr-s.addr) < n
}

func (b *Backend) copySync(ctx context.Context, dev int32, d, s side, n uint64) error {
	var pn runtime.Pinner
	defer pn.Unpin()
	pinHosts(&pn, []side{d, s})
	if n <= nativeChunk { // one call: no closure to allocate
		return b.call(dev, "aclrtMemcpy", func() int32 { return b.api.aclrtMemcpy(d.addr, n, s.addr, n, kindOf(d, s)) })
	}
	return pieces(ctx, n, nativeChunk, overlapsAbove(d, s, n), func(off, k uint64) error {
		return b.call(dev, "aclrtMemcpy", func() int32 {
			return b.api.aclrtMemcpy(d.addr+uintptr(off), k, s.addr+uintptr(off), k, kindOf(d, s))
		})
	})
}

// MemcpyAsync implements [acl.Backend] with aclrtMemcpyAsync when both sides
// are device or registered memory. Otherwise it waits for the stream and
// copies with aclrtMemcpy before returning, so that unregistered host
// memory is never used after the call.
func (b *Backend) MemcpyAsync(ctx context.Context, dst, src acl.Buf, n uint64, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	st, sides, err := b.acquire(sh, req{dst, n, true}, req{src, n, false})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	d, s := sides[0], sides[1]
	if err := acl.CheckAsyncSides(dst, src); err != nil {
		return err
	}
	return b.queueOrRun(ctx, st, sides, d.pinned && s.pinned, "aclrtMemcpyAsync", func(stream uintptr) int32 {
		return b.api.aclrtMemcpyAsync(d.addr, n, s.addr, n, kindOf(d, s), stream)
	}, func() error { return b.copySync(ctx, st.dev, d, s, n) })
}

// queueOrRun queues an asynchronous operation on st, with submit, when
// pinned: every side is device or registered memory. Otherwise, as the
// runtime does for pageable memory, it waits for st's queued work and runs
// the operation now, so that the memory is not touched after it returns;
// when that work failed, its error is returned instead.
func (b *Backend) queueOrRun(ctx context.Context, st *stream, sides []side, pinned bool, fn string, queue func(stream uintptr) int32, now func() error) error {
	if pinned {
		return b.submit(st, sides, false, fn, queue)
	}
	if err := b.drain(ctx, st); err != nil {
		return err
	}
	// The runtime synchronizes the stream first (api_error.cc:2254-2270):
	// the error of the work queued before is the result, and nothing runs.
	if err := st.takeErr(); err != nil {
		return err
	}
	return now()
}

// spans2D returns the bytes a 2D copy touches on each side.
func spans2D(dpitch, spitch, width, height uint64) (dspan, sspan uint64, err error) {
	dspan, ok1 := acl.Span2D(dpitch, width, height)
	sspan, ok2 := acl.Span2D(spitch, width, height)
	if !ok1 || !ok2 {
		return 0, 0, acl.Errorf(acl.ErrRTParamInvalid, "the 2D copy's extent overflows 64 bits")
	}
	return dspan, sspan, nil
}

// Memcpy2D implements [acl.Backend] with aclrtMemcpy2d. As natively, a 2D copy
// between two host buffers gives 107000.
func (b *Backend) Memcpy2D(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64) error {
	if err := orBackground(ctx).Err(); err != nil {
		return err
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if width == 0 || height == 0 {
		return nil
	}
	dspan, sspan, err := spans2D(dpitch, spitch, width, height)
	if err != nil {
		return err
	}
	sides, err := b.resolve(req{dst, dspan, true}, req{src, sspan, false})
	if err != nil {
		return err
	}
	defer b.done(nil, sides)
	d, s := sides[0], sides[1]
	if !d.isDev && !s.isDev {
		return err2DH2H
	}
	return b.copy2DSync(ctx, devOf(d, s), d, dpitch, s, spitch, width, height)
}

// copy2DSync copies in native calls of about nativeChunk bytes of rows.
func (b *Backend) copy2DSync(ctx context.Context, dev int32, d side, dpitch uint64, s side, spitch, width, height uint64) error {
	var pn runtime.Pinner
	defer pn.Unpin()
	pinHosts(&pn, []side{d, s})
	return pieces(ctx, height, max(nativeChunk/width, 1), false, func(row, rows uint64) error {
		return b.call(dev, "aclrtMemcpy2d", func() int32 {
			return b.api.aclrtMemcpy2d(d.addr+uintptr(row*dpitch), dpitch, s.addr+uintptr(row*spitch), spitch, width, rows, kindOf(d, s))
		})
	})
}

// Memcpy2DAsync implements [acl.Backend] with aclrtMemcpy2dAsync, falling
// back to a synchronous copy for unregistered host memory as MemcpyAsync does.
func (b *Backend) Memcpy2DAsync(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if width == 0 || height == 0 {
		return nil
	}
	dspan, sspan, err := spans2D(dpitch, spitch, width, height)
	if err != nil {
		return err
	}
	st, sides, err := b.acquire(sh, req{dst, dspan, true}, req{src, sspan, false})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	d, s := sides[0], sides[1]
	if !d.isDev && !s.isDev {
		return err2DH2H
	}
	return b.queueOrRun(ctx, st, sides, d.pinned && s.pinned, "aclrtMemcpy2dAsync", func(stream uintptr) int32 {
		return b.api.aclrtMemcpy2dAsync(d.addr, dpitch, s.addr, spitch, width, height, kindOf(d, s), stream)
	}, func() error { return b.copy2DSync(ctx, st.dev, d, dpitch, s, spitch, width, height) })
}

// batchAttr is aclrtMemcpyBatchAttr in native layout.
type batchAttr struct {
	dst, src acl.MemLocation
	rsv      [16]byte
}

// The two array lengths below are negative, which does not compile, unless
// batchAttr is exactly the native 32 bytes.
var (
	_ [acl.MemcpyBatchAttrSize - unsafe.Sizeof(batchAttr{})]struct{}
	_ [unsafe.Sizeof(batchAttr{}) - acl.MemcpyBatchAttrSize]struct{}
)

// batch is a batch copy in native form: one attribute per copy, declaring
// where each side really is, so the runtime's location checks pass for
// every copy it can do.
type batch struct {
	sides      []side // dst, src pairs
	orig       []int  // index in the caller's slice of each copy
	dsts, srcs []uintptr
	sizes      []uint64
	attrs      []batchAttr
	idx        []uint64
	dev        int32 // the device of the first device-side address
	pinned     bool  // every side is device or registered memory
}

// batchReqs returns the requests of the copies with n > 0 (the others do
// nothing), a dst and a src for each, and the copies' indices.
func batchReqs(copies []acl.Copy) (reqs []req, orig []int) {
	reqs = make([]req, 0, 2*len(copies))
	for i, c := range copies {
		if c.N == 0 {
			continue
		}
		reqs = append(reqs, req{c.Dst, c.N, true}, req{c.Src, c.N, false})
		orig = append(orig, i)
	}
	return reqs, orig
}

// newBatch builds the native arrays of a batch from its resolved sides.
func newBatch(reqs []req, orig []int, sides []side) *batch {
	bt := &batch{sides: sides, orig: orig, pinned: true, dev: -1}
	for i := 0; i < len(sides); i += 2 {
		d, s := sides[i], sides[i+1]
		bt.dsts = append(bt.dsts, d.addr)
		bt.srcs = append(bt.srcs, s.addr)
		bt.sizes = append(bt.sizes, reqs[i].n)
		bt.attrs = append(bt.attrs, batchAttr{dst: d.loc(), src: s.loc()})
		bt.idx = append(bt.idx, uint64(i/2))
		bt.pinned = bt.pinned && d.pinned && s.pinned
		if bt.dev < 0 && (d.isDev || s.isDev) {
			bt.dev = devOf(d, s)
		}
	}
	bt.dev = max(bt.dev, 0)
	return bt
}

// batchFailed reports a native batch failure, naming the copy the runtime
// blamed when it said (V1 forms): orig maps the native call's entries to
// the caller's copies.
func batchFailed(rc int32, fn string, orig []int, fail uint64) error {
	if fail < uint64(len(orig)) {
		return acl.Errorf(acl.Error(rc), "%s failed in libascendcl at copy %d", fn, orig[fail])
	}
	return nativeErr(rc, fn)
}

// batchSync runs bt with aclrtMemcpyBatchV2, or aclrtMemcpyBatch in
// libraries without it, in native calls of at most the synchronous batch
// limit of entries and about nativeChunk bytes (a bigger copy is split
// over several entries), giving up between two once ctx is done.
func (b *Backend) batchSync(ctx context.Context, dev int32, bt *batch) error {
	ctx = orBackground(ctx)
	var pn runtime.Pinner
	defer pn.Unpin()
	pinHosts(&pn, bt.sides)
	var g batch // one native call's entries; orig maps them to the caller's
	var bytes uint64
	flush := func() error {
		if len(g.dsts) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n := uint64(len(g.dsts))
		dsts, srcs := unsafe.Pointer(&g.dsts[0]), unsafe.Pointer(&g.srcs[0])
		sizes, attrs, idx := unsafe.Pointer(&g.sizes[0]), unsafe.Pointer(&g.attrs[0]), unsafe.Pointer(&g.idx[0])
		var rc int32
		fail := ^uint64(0)
		fn := "aclrtMemcpyBatchV2"
		err := b.onDevice(dev, func() {
			if b.api.aclrtMemcpyBatchV2 != nil {
				rc = b.api.aclrtMemcpyBatchV2(dsts, sizes, srcs, sizes, n, attrs, idx, n)
			} else {
				fn = "aclrtMemcpyBatch"
				rc = b.api.aclrtMemcpyBatch(dsts, sizes, srcs, sizes, n, attrs, idx, n, &fail)
			}
		})
		if err != nil {
			return err
		}
		if rc != 0 {
			return batchFailed(rc, fn, g.orig, fail)
		}
		g.dsts, g.srcs, g.sizes, g.attrs, g.idx, g.orig, bytes = g.dsts[:0], g.srcs[:0], g.sizes[:0], g.attrs[:0], g.idx[:0], g.orig[:0], 0
		return nil
	}
	for i, size := range bt.sizes {
		for off := uint64(0); off < size; off += nativeChunk {
			k := min(nativeChunk, size-off)
			if len(g.dsts) == acl.BatchSyncMaxCount || bytes+k > nativeChunk {
				if err := flush(); err != nil {
					return err
				}
			}
			g.dsts = append(g.dsts, bt.dsts[i]+uintptr(off))
			g.srcs = append(g.srcs, bt.srcs[i]+uintptr(off))
			g.sizes = append(g.sizes, k)
			g.attrs = append(g.attrs, bt.attrs[i])
			g.idx = append(g.idx, uint64(len(g.idx)))
			g.orig = append(g.orig, bt.orig[i])
			bytes += k
		}
	}
	return flush()
}

// MemcpyBatch implements [acl.Backend] with aclrtMemcpyBatchV2, or
// aclrtMemcpyBatch in libraries without it (207000 without either). Each
// copy gets its own attribute with the real locations of its sides, and
// destMax is the copy's size.
func (b *Backend) MemcpyBatch(ctx context.Context, copies []acl.Copy) error {
	if err := orBackground(ctx).Err(); err != nil {
		return err
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if b.api.aclrtMemcpyBatchV2 == nil && b.api.aclrtMemcpyBatch == nil {
		return b.missing("aclrtMemcpyBatchV2 or aclrtMemcpyBatch")
	}
	reqs, orig := batchReqs(copies)
	sides, err := b.resolve(reqs...)
	if err != nil {
		return err
	}
	bt := newBatch(reqs, orig, sides)
	defer b.done(nil, bt.sides)
	if len(bt.dsts) == 0 {
		return nil
	}
	return b.batchSync(ctx, bt.dev, bt)
}

// MemcpyBatchAsync implements [acl.Backend] with aclrtMemcpyBatchAsyncV2, or
// aclrtMemcpyBatchAsync in libraries without it, when every side is device
// or registered memory. Otherwise it waits for the stream and runs the
// batch synchronously.
func (b *Backend) MemcpyBatchAsync(ctx context.Context, copies []acl.Copy, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	reqs, orig := batchReqs(copies)
	st, sides, err := b.acquire(sh, reqs...)
	if err != nil {
		return err
	}
	bt := newBatch(reqs, orig, sides)
	defer b.done(st, bt.sides)
	if len(bt.dsts) == 0 {
		return nil
	}
	v2 := b.api.aclrtMemcpyBatchAsyncV2 != nil
	switch {
	case !bt.pinned && b.api.aclrtMemcpyBatchV2 == nil && b.api.aclrtMemcpyBatch == nil:
		return b.missing("aclrtMemcpyBatchV2 or aclrtMemcpyBatch")
	case bt.pinned && !v2 && b.api.aclrtMemcpyBatchAsync == nil:
		return b.missing("aclrtMemcpyBatchAsyncV2 or aclrtMemcpyBatchAsync")
	}
	n := uint64(len(bt.dsts))
	dsts, srcs := unsafe.Pointer(&bt.dsts[0]), unsafe.Pointer(&bt.srcs[0])
	sizes, attrs, idx := unsafe.Pointer(&bt.sizes[0]), unsafe.Pointer(&bt.attrs[0]), unsafe.Pointer(&bt.idx[0])
	fn, fail := "aclrtMemcpyBatchAsyncV2", ^uint64(0)
	if !v2 {
		fn = "aclrtMemcpyBatchAsync"
	}
	err = b.queueOrRun(ctx, st, bt.sides, bt.pinned, fn, func(stream uintptr) int32 {
		if v2 {
			return b.api.aclrtMemcpyBatchAsyncV2(dsts, sizes, srcs, sizes, n, attrs, idx, n, stream)
		}
		return b.api.aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, n, attrs, idx, n, &fail, stream)
	}, func() error { return b.batchSync(ctx, st.dev, bt) })
	if err != nil && fail != ^uint64(0) {
		return batchFailed(int32(acl.CodeOf(err)), fn, bt.orig, fail)
	}
	return err
}

// Memset implements [acl.Backend] with aclrtMemset on device memory, and in
// Go on host memory, where the runtime's behaviour is undefined unless the
// memory is registered and Go's is not.
func (b *Backend) Memset(ctx context.Context, dst acl.Buf, value byte, n uint64) error {
	if err := orBackground(ctx).Err(); err != nil {
		return err
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	sides, err := b.resolve(req{dst, n, true})
	if err != nil {
		return err
	}
	defer b.done(nil, sides)
	d := sides[0]
	return pieces(ctx, n, nativeChunk, false, func(off, k uint64) error {
		if !d.isDev {
			acl.Fill(d.host[off:off+k], value)
			return nil
		}
		return b.call(d.dev, "aclrtMemset", func() int32 { return b.api.aclrtMemset(d.addr+uintptr(off), k, int32(value), k) })
	})
}

// MemsetAsync implements [acl.Backend] with aclrtMemsetAsync on device or
// registered memory; on unregistered host memory it waits for the stream
// and sets the bytes in Go.
func (b *Backend) MemsetAsync(ctx context.Context, dst acl.Buf, value byte, n uint64, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	st, sides, err := b.acquire(sh, req{dst, n, true})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	d := sides[0]
	return b.queueOrRun(ctx, st, sides, d.pinned, "aclrtMemsetAsync", func(stream uintptr) int32 {
		return b.api.aclrtMemsetAsync(d.addr, n, int32(value), n, stream)
	}, func() error { acl.Fill(d.host, value); return nil })
}

// MemcpyDescSize implements [acl.Backend] with aclrtGetMemcpyDescSize in
// device 0's context (the runtime reports it for the current device; every
// device of one machine is the same chip).
func (b *Backend) MemcpyDescSize(kind acl.MemcpyKind) (uint64, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	return b.descSizeOf(kind)
}

func (b *Backend) descSizeOf(kind acl.MemcpyKind) (uint64, error) {
	if b.api.aclrtGetMemcpyDescSize == nil {
		return 0, b.missing("aclrtGetMemcpyDescSize")
	}
	b.mu.Lock()
	size := b.descSize
	b.mu.Unlock()
	if size != 0 && kind == acl.MemcpyInnerDeviceToDevice {
		return size, nil
	}
	err := b.call(0, "aclrtGetMemcpyDescSize", func() int32 { return b.api.aclrtGetMemcpyDescSize(int32(kind), &size) })
	if err != nil {
		return 0, err
	}
	if kind == acl.MemcpyInnerDeviceToDevice {
		b.mu.Lock()
		b.descSize = size
		b.mu.Unlock()
	}
	return size, nil
}

// SetMemcpyDesc implements [acl.Backend] with aclrtSetMemcpyDesc in the
// context of desc's device. desc must hold a whole descriptor, and src and
// dst n bytes, inside live allocations. The sandbox does not route guest
// descriptors here (see the package documentation).
func (b *Backend) SetMemcpyDesc(desc acl.DevPtr, kind acl.MemcpyKind, src, dst acl.DevPtr, n uint64) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if b.api.aclrtSetMemcpyDesc == nil {
		return b.missing("aclrtSetMemcpyDesc")
	}
	size, err := b.descSizeOf(kind)
	if err != nil {
		return err
	}
	sides, err := b.resolve(req{acl.Device(desc), size, true}, req{acl.Device(src), n, false}, req{acl.Device(dst), n, true})
	if err != nil {
		return err
	}
	defer b.done(nil, sides)
	return b.call(sides[0].dev, "aclrtSetMemcpyDesc", func() int32 {
		return b.api.aclrtSetMemcpyDesc(uintptr(desc), int32(kind), uintptr(src), uintptr(dst), n, 0)
	})
}

// MemcpyAsyncWithDesc implements [acl.Backend] with aclrtMemcpyAsyncWithDesc.
// The runtime reads the copy's addresses from device memory when it
// executes, so the backend cannot know what the copy touches: Free of any
// allocation waits for the stream until it is next seen idle. The sandbox
// does not route guest descriptors here.
func (b *Backend) MemcpyAsyncWithDesc(desc acl.DevPtr, kind acl.MemcpyKind, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if b.api.aclrtMemcpyAsyncWithDesc == nil {
		return b.missing("aclrtMemcpyAsyncWithDesc")
	}
	size, err := b.descSizeOf(kind)
	if err != nil {
		return err
	}
	st, sides, err := b.acquire(sh, req{acl.Device(desc), size, false})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	return b.submit(st, sides, true, "aclrtMemcpyAsyncWithDesc", func(stream uintptr) int32 {
		return b.api.aclrtMemcpyAsyncWithDesc(uintptr(desc), int32(kind), stream)
	})
}

// MemcpyAsyncWithOffset implements [acl.Backend] with
// aclrtMemcpyAsyncWithOffset. The slots must be 8 bytes of live device
// memory; the base addresses in them are read when the copy executes, so,
// as for descriptors, Free waits for the stream. The sandbox does not route
// guest slots here.
func (b *Backend) MemcpyAsyncWithOffset(dstSlot acl.DevPtr, destMax, dstOff uint64, srcSlot acl.DevPtr, n, srcOff uint64, kind acl.MemcpyKind, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	if b.api.aclrtMemcpyAsyncWithOffset == nil {
		return b.missing("aclrtMemcpyAsyncWithOffset")
	}
	st, sides, err := b.acquire(sh, req{acl.Device(dstSlot), 8, false}, req{acl.Device(srcSlot), 8, false})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	return b.submit(st, sides, true, "aclrtMemcpyAsyncWithOffset", func(stream uintptr) int32 {
		return b.api.aclrtMemcpyAsyncWithOffset(uintptr(dstSlot), destMax, dstOff, uintptr(srcSlot), n, srcOff, int32(kind), stream)
	})
}

// d32Chunk is the most bytes one native 32-bit memset sets: a multiple of
// 4, so that every piece starts on a word.
const d32Chunk = nativeChunk

// d32Bytes returns the bytes of n words, or 107000 when they overflow.
func d32Bytes(n uint64) (uint64, error) {
	if n > math.MaxUint64/4 {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "%d 32-bit words overflow a byte count", n)
	}
	return n * 4, nil
}

// MemsetD32 implements [acl.Backend] with aclrtMemsetD32 on device
// memory, and in Go on host memory, as Memset does.
func (b *Backend) MemsetD32(ctx context.Context, dst acl.Buf, value uint32, n uint64) error {
	if err := orBackground(ctx).Err(); err != nil {
		return err
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	size, err := d32Bytes(n)
	if err != nil {
		return err
	}
	if dst.IsDevice() && b.api.aclrtMemsetD32 == nil {
		return b.missing("aclrtMemsetD32")
	}
	sides, err := b.resolve(req{dst, size, true})
	if err != nil {
		return err
	}
	defer b.done(nil, sides)
	d := sides[0]
	return pieces(ctx, size, d32Chunk, false, func(off, k uint64) error {
		if !d.isDev {
			acl.Fill32(d.host[off:off+k], value)
			return nil
		}
		return b.call(d.dev, "aclrtMemsetD32", func() int32 { return b.api.aclrtMemsetD32(d.addr+uintptr(off), k, value, k/4) })
	})
}

// MemsetD32Async implements [acl.Backend] with aclrtMemsetD32Async on
// device or registered memory; on unregistered host memory it waits for
// the stream and sets the words in Go.
func (b *Backend) MemsetD32Async(ctx context.Context, dst acl.Buf, value uint32, n uint64, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	size, err := d32Bytes(n)
	if err != nil {
		return err
	}
	if b.api.aclrtMemsetD32Async == nil {
		return b.missing("aclrtMemsetD32Async")
	}
	st, sides, err := b.acquire(sh, req{dst, size, true})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	d := sides[0]
	return b.queueOrRun(ctx, st, sides, d.pinned, "aclrtMemsetD32Async", func(stream uintptr) int32 {
		return b.api.aclrtMemsetD32Async(d.addr, size, value, n, stream)
	}, func() error { acl.Fill32(d.host, value); return nil })
}
