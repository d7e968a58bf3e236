package bench

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

func aclKind(k Kind) (acl.MemcpyKind, error) {
	switch k {
	case kindH2D:
		return acl.MemcpyHostToDevice, nil
	case kindD2H:
		return acl.MemcpyDeviceToHost, nil
	case kindD2D:
		return acl.MemcpyDeviceToDevice, nil
	}
	return 0, fmt.Errorf("bench: kind %q: want h2d, d2h or d2d", k)
}

// Guest memory layout: output slots in the header (0 is NULL), then the
// data area.
const (
	outA, outB, outStream = 8, 16, 24
	data                  = headerSize
	// A batch's arrays (up to maxRows entries of 8 bytes), its one
	// attribute, the attribute's first entry, failIndex.
	batchDsts, batchDestMaxs, batchSrcs, batchSizes = 1024, 2048, 3072, 4096
	batchAttrs, batchAttrIdx, batchFail             = 5120, 5152, 5160
)

// session is one sandbox session running the guest: two device
// allocations of the largest size, A (a source) and B (a destination), and
// a stream for the asynchronous copies.
type session struct {
	inst       *host.Instance
	a, b       uint64
	stream     uint32
	seed       uint64
	zero       []byte // zeros, for clearing the data area
	haveA      bool
	haveB      bool
	haveStream bool
}

func openSession(ctx context.Context, pl *host.Plugin, max uint64) (*session, error) {
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		return nil, fmt.Errorf("bench: instantiating the guest: %w", err)
	}
	s := &session{inst: inst}
	ok := false
	defer func() {
		if !ok {
			s.close(ctx)
		}
	}()
	if err := s.call(ctx, "aclrtSetDevice", 0); err != nil {
		return nil, err
	}
	if err := s.call(ctx, "aclrtMalloc", outA, max, 0); err != nil {
		return nil, err
	}
	s.haveA = true
	if err := s.call(ctx, "aclrtMalloc", outB, max, 0); err != nil {
		return nil, err
	}
	s.haveB = true
	if err := s.call(ctx, "aclrtCreateStream", outStream); err != nil {
		return nil, err
	}
	s.haveStream = true
	out, err := inst.ReadMemory(0, outStream+4)
	if err != nil {
		return nil, err
	}
	s.a, s.b = binary.LittleEndian.Uint64(out[outA:]), binary.LittleEndian.Uint64(out[outB:])
	s.stream = binary.LittleEndian.Uint32(out[outStream:])
	ok = true
	return s, nil
}

// call calls a guest export that returns an ACL status.
func (s *session) call(ctx context.Context, name string, args ...uint64) error {
	res, err := s.inst.Call(ctx, name, args...)
	if err != nil {
		return fmt.Errorf("bench: guest %s: %w", name, err)
	}
	if st := int32(res[0]); st != 0 {
		return fmt.Errorf("bench: guest %s: ACL status %d: %s", name, st, s.inst.Session().LastError())
	}
	return nil
}

func (s *session) close(ctx context.Context) {
	if s.haveStream {
		_ = s.call(ctx, "aclrtDestroyStream", uint64(s.stream))
	}
	if s.haveB {
		_ = s.call(ctx, "aclrtFree", s.b)
	}
	if s.haveA {
		_ = s.call(ctx, "aclrtFree", s.a)
	}
	s.inst.Close(ctx)
}

// addrs returns the destination and source of a copy of kind k.
func (s *session) addrs(k Kind) (dst, src uint64) {
	switch k {
	case kindH2D:
		return s.b, data
	case kindD2H:
		return data, s.a
	}
	return s.b, s.a
}

func (s *session) copies(ctx context.Context, k Kind, m Mode, dst, src, n uint64, iters int) error {
	ak, err := aclKind(k)
	if err != nil {
		return err
	}
	var mode uint64
	switch m {
	case modeSync:
	case modeAsync:
		mode = 1
	case mode2D:
		mode = 2
	case modeBatch:
		mode = 3
	default:
		return fmt.Errorf("bench: mode %q: want sync, async, 2d or batch", m)
	}
	w, h := rows(n)
	if m == modeBatch {
		if err := s.batchArrays(k, dst, src, w, h); err != nil {
			return err
		}
	}
	return s.call(ctx, loopExport, dst, src, n, uint64(ak), uint64(iters), uint64(s.stream), mode, w, h)
}

// batchArrays writes the arrays of a batch of h entries of w bytes from
// src to dst into the header, for the guest's aclrtMemcpyBatch.
func (s *session) batchArrays(k Kind, dst, src, w, h uint64) error {
	le := binary.LittleEndian
	arr := make([]byte, batchFail+8-batchDsts)
	for i := range h {
		le.PutUint64(arr[8*i:], dst+i*w)
		le.PutUint64(arr[batchDestMaxs-batchDsts+8*i:], w)
		le.PutUint64(arr[batchSrcs-batchDsts+8*i:], src+i*w)
		le.PutUint64(arr[batchSizes-batchDsts+8*i:], w)
	}
	dstLoc, srcLoc := acl.MemLocationDevice, acl.MemLocationHost
	if k == kindD2H {
		dstLoc, srcLoc = srcLoc, dstLoc
	}
	attr := arr[batchAttrs-batchDsts:]
	le.PutUint32(attr[4:], uint32(dstLoc))  // dstLoc {id 0, type}
	le.PutUint32(attr[12:], uint32(srcLoc)) // srcLoc {id 0, type}
	return s.inst.WriteMemory(batchDsts, arr)
}

// loop makes iters copies of n bytes of kind k in mode m.
func (s *session) loop(ctx context.Context, k Kind, m Mode, n uint64, iters int) error {
	dst, src := s.addrs(k)
	return s.copies(ctx, k, m, dst, src, n, iters)
}

// verify makes one copy of kind k in mode m and checks, by reading the
// destination back, that it carried a fresh pattern.
func (s *session) verify(ctx context.Context, k Kind, m Mode, n uint64) error {
	s.seed++
	want := make([]byte, n)
	fill(want, s.seed<<32|n)
	if uint64(len(s.zero)) < n {
		s.zero = make([]byte, n)
	}
	zero := s.zero[:n]
	// Put the pattern in the data area and in A.
	if err := s.inst.WriteMemory(data, want); err != nil {
		return err
	}
	if err := s.copies(ctx, kindH2D, modeSync, s.a, data, n, 1); err != nil {
		return err
	}
	if k == kindD2H {
		if err := s.inst.WriteMemory(data, zero); err != nil {
			return err
		}
	}
	if err := s.loop(ctx, k, m, n, 1); err != nil {
		return err
	}
	if k != kindD2H { // the destination is B: bring it back
		if err := s.inst.WriteMemory(data, zero); err != nil {
			return err
		}
		if err := s.copies(ctx, kindD2H, modeSync, data, s.b, n, 1); err != nil {
			return err
		}
	}
	got, err := s.inst.ReadMemory(data, uint32(n))
	if err != nil {
		return err
	}
	return check("sandbox", k, m, n, got, want)
}

// direct makes the same copies on the backend, with no sandbox: two
// allocations, a host buffer and a stream of the device dev.
type direct struct {
	be     acl.Backend
	a, b   acl.DevPtr
	host   []byte
	stream acl.Stream
	seed   uint64
}

func openDirect(be acl.Backend, dev int32, max uint64) (*direct, error) {
	d := &direct{be: be, host: make([]byte, max)}
	var err error
	if d.a, err = be.Malloc(dev, max, acl.MemMallocHugeFirst); err == nil {
		if d.b, err = be.Malloc(dev, max, acl.MemMallocHugeFirst); err == nil {
			d.stream, err = be.CreateStream(dev)
		}
	}
	if err != nil {
		d.close(context.Background())
		return nil, fmt.Errorf("bench: direct backend: %w", err)
	}
	return d, nil
}

func (d *direct) close(ctx context.Context) {
	if d.stream != 0 {
		_ = d.be.DestroyStream(ctx, d.stream)
	}
	for _, p := range []acl.DevPtr{d.b, d.a} {
		if p != 0 {
			_ = d.be.Free(ctx, p)
		}
	}
}

func (d *direct) bufs(k Kind, n uint64) (dst, src acl.Buf) {
	h := acl.Host(d.host[:n], 0)
	switch k {
	case kindH2D:
		return acl.Device(d.b), h
	case kindD2H:
		return h, acl.Device(d.a)
	}
	return acl.Device(d.b), acl.Device(d.a)
}

func (d *direct) copies(ctx context.Context, m Mode, dst, src acl.Buf, n uint64, iters int) error {
	switch m {
	case modeSync:
		for range iters {
			if err := d.be.Memcpy(ctx, dst, src, n); err != nil {
				return fmt.Errorf("bench: direct memcpy: %w", err)
			}
		}
		return nil
	case modeAsync:
		for range iters {
			if err := d.be.MemcpyAsync(ctx, dst, src, n, d.stream); err != nil {
				return fmt.Errorf("bench: direct memcpy async: %w", err)
			}
		}
		if err := d.be.SynchronizeStream(ctx, d.stream, -1); err != nil {
			return fmt.Errorf("bench: direct synchronize: %w", err)
		}
		return nil
	case mode2D:
		w, h := rows(n)
		for range iters {
			if err := d.be.Memcpy2D(ctx, dst, w, src, w, w, h); err != nil {
				return fmt.Errorf("bench: direct memcpy 2d: %w", err)
			}
		}
		return nil
	case modeBatch:
		w, h := rows(n)
		copies := make([]acl.Copy, h)
		for i := range h {
			copies[i] = acl.Copy{Dst: slice(dst, i*w, w), Src: slice(src, i*w, w), N: w}
		}
		for range iters {
			if err := d.be.MemcpyBatch(ctx, copies); err != nil {
				return fmt.Errorf("bench: direct memcpy batch: %w", err)
			}
		}
		return nil
	}
	return fmt.Errorf("bench: mode %q: want sync, async, 2d or batch", m)
}

// slice returns n bytes of b from off.
func slice(b acl.Buf, off, n uint64) acl.Buf {
	if b.IsDevice() {
		return acl.Device(b.Dev + acl.DevPtr(off))
	}
	return acl.Host(b.Host[off:off+n], b.Pin)
}

func (d *direct) loop(ctx context.Context, k Kind, m Mode, n uint64, iters int) error {
	if _, err := aclKind(k); err != nil {
		return err
	}
	dst, src := d.bufs(k, n)
	return d.copies(ctx, m, dst, src, n, iters)
}

// verify is session.verify for the direct path.
func (d *direct) verify(ctx context.Context, k Kind, m Mode, n uint64) error {
	d.seed++
	want := make([]byte, n)
	fill(want, d.seed<<32|n|1<<63)
	h := acl.Host(d.host[:n], 0)
	copy(d.host, want)
	if err := d.copies(ctx, modeSync, acl.Device(d.a), h, n, 1); err != nil {
		return err
	}
	if k == kindD2H {
		clear(d.host[:n])
	}
	if err := d.loop(ctx, k, m, n, 1); err != nil {
		return err
	}
	if k != kindD2H {
		clear(d.host[:n])
		if err := d.copies(ctx, modeSync, h, acl.Device(d.b), n, 1); err != nil {
			return err
		}
	}
	return check("direct", k, m, n, d.host[:n], want)
}
