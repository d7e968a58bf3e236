package acltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// kind is where a test buffer lives.
type kind int

const (
	onDevice   kind = iota
	onPinned        // registered host memory
	onPageable      // unregistered host memory
)

func (k kind) String() string { return [...]string{"device", "pinned", "pageable"}[k] }

var kinds = []kind{onDevice, onPinned, onPageable}

// mem is a test buffer of some kind.
type mem struct {
	kind
	dev  acl.DevPtr
	host []byte
	pin  acl.HostPin
}

// newMem returns n bytes of the kind on device 0, filled with fill.
func (e *env) newMem(k kind, n int, fill byte) mem {
	m := mem{kind: k}
	switch k {
	case onDevice:
		m.dev = e.malloc(0, uint64(n))
		e.put(m.dev, filled(n, fill))
	case onPinned:
		m.host, m.pin = e.pinned(n)
		copy(m.host, filled(n, fill))
	case onPageable:
		m.host = filled(n, fill)
	}
	return m
}

// buf names bytes [off, off+n) of m.
func (m mem) buf(off, n int) acl.Buf {
	if m.kind == onDevice {
		return acl.Device(m.dev + acl.DevPtr(off))
	}
	return acl.Host(m.host[off:off+n], m.pin)
}

// read returns the n bytes of m.
func (e *env) read(m mem, n int) []byte {
	if m.kind == onDevice {
		return e.get(m.dev, n)
	}
	return append([]byte(nil), m.host[:n]...)
}

// write sets the bytes of m.
func (e *env) write(m mem, data []byte) {
	if m.kind == onDevice {
		e.put(m.dev, data)
		return
	}
	copy(m.host, data)
}

// want returns size bytes of fill with src's bytes [off, off+n) at off.
func want(size int, fill byte, src []byte, off, n int) []byte {
	w := filled(size, fill)
	copy(w[off:off+n], src[off:off+n])
	return w
}

// bad is a device range that no backend may accept.
type bad struct {
	name string
	p    acl.DevPtr
	n    uint64
}

// badRanges returns ranges that are not inside one live allocation: never
// allocated, freed, crossing the end, past the end. A native allocator may
// hand a freed address out again, so a test allocates everything it needs
// before it takes a fresh set (badRange) and allocates nothing after.
func (e *env) badRanges() []bad {
	live := e.malloc(0, 256)
	freed := e.malloc(0, 256)
	e.free(freed)
	return []bad{
		{"never allocated", acl.DevPtr(0x1234_5678_9abc_def0), 8},
		{"freed", freed, 8},
		{"freed interior", freed + 16, 8},
		{"crossing the end", live + 252, 8},
		{"past the end", live + 256, 1},
		{"longer than the allocation", live, 257},
	}
}

// numBadRanges is len(badRanges()); maxBadRange the longest of their lengths.
const numBadRanges, maxBadRange = 6, 257

// badRange returns the i-th of a fresh set of badRanges: call it after the
// test's own allocations, so that none of them can reuse the freed range.
func (e *env) badRange(i int) bad {
	rs := e.badRanges()
	require.Len(e, rs, numBadRanges)
	require.LessOrEqual(e, rs[i].n, uint64(maxBadRange))
	return rs[i]
}

var copyTests = []test{
	{"LongOverlappingCopies", func(e *env) {
		// Longer than the chunks a backend copies in (a few MiB), so that
		// chunking must keep memmove's result either way.
		const n, shift = 5 << 20, 1 << 20
		p := e.malloc(0, n+shift)
		data := pattern(n+shift, 9)
		for _, up := range []bool{true, false} {
			e.put(p, data)
			dst, src := p+shift, p
			if !up {
				dst, src = p, p+shift
			}
			require.NoError(e, e.b.Memcpy(e.ctx, acl.Device(dst), acl.Device(src), n))
			w := append([]byte(nil), data...)
			copy(w[dst-p:], w[src-p:src-p+n])
			require.True(e, bytes.Equal(w, e.get(p, n+shift)), "overlapping copy, dst above src: %v", up)
		}
	}},

	{"SyncCallsStopWhenContextDone", func(e *env) {
		// A synchronous copy or memset whose context is done returns its
		// error; with the context done from the start it touches nothing.
		p := e.malloc(0, 4096)
		host := pattern(4096, 3)
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		calls := map[string]error{
			"Memcpy":      e.b.Memcpy(ctx, acl.Device(p), acl.Host(host, 0), 4096),
			"Memset":      e.b.Memset(ctx, acl.Device(p), 1, 4096),
			"Memcpy2D":    e.b.Memcpy2D(ctx, acl.Device(p), 64, acl.Host(host, 0), 64, 64, 64),
			"MemcpyBatch": e.b.MemcpyBatch(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(host, 0), N: 4096}}),
		}
		for name, err := range calls {
			require.ErrorIs(e, err, context.Canceled, name)
		}
		require.Equal(e, make([]byte, 4096), e.get(p, 4096), "nothing was written")
	}},

	{"MemcpyDirections", func(e *env) {
		const size, off, n = 4096, 100, 3000
		for _, dk := range kinds {
			for _, sk := range kinds {
				src := e.newMem(sk, size, 0)
				data := pattern(size, byte(3*dk+sk))
				e.write(src, data)
				dst := e.newMem(dk, size, 0xEE)
				require.NoError(e, e.b.Memcpy(e.ctx, dst.buf(off, n), src.buf(off, n), n), "%v <- %v", dk, sk)
				require.Equal(e, want(size, 0xEE, data, off, n), e.read(dst, size), "%v <- %v", dk, sk)
				require.Equal(e, data, e.read(src, size), "the source must be unchanged")
			}
		}
	}},

	{"MemcpyWithinOneAllocation", func(e *env) {
		p := e.malloc(0, 1024)
		data := pattern(1024, 1)
		e.put(p, data)
		require.NoError(e, e.b.Memcpy(e.ctx, acl.Device(p+512), acl.Device(p), 256))
		w := append([]byte(nil), data...)
		copy(w[512:768], data[:256])
		require.Equal(e, w, e.get(p, 1024))
	}},

	{"MemcpyBadAddresses", func(e *env) {
		host := filled(512, 1)
		for i := range numBadRanges {
			ok := e.malloc(0, 512)
			e.put(ok, filled(512, 0xEE))
			r := e.badRange(i)
			code(e, e.b.Memcpy(e.ctx, acl.Device(r.p), acl.Host(host[:r.n], 0), r.n), acl.ErrRTParamInvalid, "dst %s", r.name)
			code(e, e.b.Memcpy(e.ctx, acl.Host(host[:r.n], 0), acl.Device(r.p), r.n), acl.ErrRTParamInvalid, "src %s", r.name)
			code(e, e.b.Memcpy(e.ctx, acl.Device(ok), acl.Device(r.p), r.n), acl.ErrRTParamInvalid, "D2D src %s", r.name)
			code(e, e.b.Memcpy(e.ctx, acl.Device(r.p), acl.Device(ok), r.n), acl.ErrRTParamInvalid, "D2D dst %s", r.name)
			require.Equal(e, filled(512, 1), host, "a failed copy must not write")
			require.Equal(e, filled(512, 0xEE), e.get(ok, 512), "a failed copy must not write")
		}
	}},

	{"MemcpyAsyncDirections", func(e *env) {
		const size, off, n = 4096, 64, 2048
		s := e.stream(0)
		for _, dk := range kinds {
			for _, sk := range kinds {
				if dk != onDevice && sk != onDevice {
					continue
				}
				src := e.newMem(sk, size, 0)
				data := pattern(size, byte(3*dk+sk))
				e.write(src, data)
				dst := e.newMem(dk, size, 0xEE)
				require.NoError(e, e.b.MemcpyAsync(e.ctx, dst.buf(off, n), src.buf(off, n), n, s), "%v <- %v", dk, sk)
				e.sync(s)
				require.Equal(e, want(size, 0xEE, data, off, n), e.read(dst, size), "%v <- %v", dk, sk)
			}
		}
	}},

	{"MemcpyAsyncHostToHost", func(e *env) {
		s := e.stream(0)
		for _, dk := range kinds[1:] {
			for _, sk := range kinds[1:] {
				src, dst := e.newMem(sk, 64, 1), e.newMem(dk, 64, 2)
				code(e, e.b.MemcpyAsync(e.ctx, dst.buf(0, 64), src.buf(0, 64), 64, s), acl.ErrRTFeatureNotSupport, "%v <- %v", dk, sk)
				require.Equal(e, filled(64, 2), e.read(dst, 64))
			}
		}
	}},

	{"MemcpyAsyncBadAddresses", func(e *env) {
		s := e.stream(0)
		host, pin := e.pinned(512)
		for _, r := range e.badRanges() {
			code(e, e.b.MemcpyAsync(e.ctx, acl.Device(r.p), acl.Host(host[:r.n], pin), r.n, s), acl.ErrRTParamInvalid, "dst %s", r.name)
			code(e, e.b.MemcpyAsync(e.ctx, acl.Host(host[:r.n], pin), acl.Device(r.p), r.n, s), acl.ErrRTParamInvalid, "src %s", r.name)
			code(e, e.b.MemsetAsync(e.ctx, acl.Device(r.p), 1, r.n, s), acl.ErrRTParamInvalid, "memset %s", r.name)
			code(e, e.b.Memset(e.ctx, acl.Device(r.p), 1, r.n), acl.ErrRTParamInvalid, "memset %s", r.name)
		}
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Zero(e, n, "a rejected call must queue nothing")
		e.sync(s)
	}},

	{"MemcpyAsyncOrder", func(e *env) {
		s := e.stream(0)
		a, b, c := e.malloc(0, 4096), e.malloc(0, 4096), e.malloc(0, 4096)
		h1, p1 := e.pinned(4096)
		h2, p2 := e.pinned(4096)
		h3, p3 := e.pinned(4096)
		data := pattern(4096, 9)
		copy(h1, data)
		release := e.gate(s)
		for i := range 50 {
			require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(a), byte(i), 4096, s))
		}
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Host(h2, p2), acl.Device(a), 4096, s)) // sees the last memset
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(a), acl.Host(h1, p1), 4096, s))
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(b), acl.Device(a), 4096, s))
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(c), acl.Device(b), 4096, s))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(a), 0, 4096, s)) // after b read it
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Host(h3, p3), acl.Device(c), 4096, s))
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Equal(e, 57, n, "the gate and 56 queued operations")
		require.Equal(e, make([]byte, 4096), h3, "nothing may run before the gate opens")
		release()
		e.sync(s)
		require.Equal(e, filled(4096, 49), h2)
		require.Equal(e, data, h3)
		require.Equal(e, make([]byte, 4096), e.get(a, 4096))
	}},

	{"MemcpyAsyncPageableWaits", func(e *env) {
		s := e.stream(0)
		p := e.malloc(0, 1024)
		release := e.gate(s)
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 7, 1024, s))
		host := make([]byte, 1024)
		done := goErr(func() error { return e.b.MemcpyAsync(e.ctx, acl.Host(host, 0), acl.Device(p), 1024, s) })
		e.notYet(done, "MemcpyAsync with pageable memory")
		release()
		require.NoError(e, e.recv(done, "MemcpyAsync"))
		require.Equal(e, filled(1024, 7), host, "the copy must be complete when the call returns")

		// Host to device: the host bytes are read before the call returns.
		src := filled(1024, 3)
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(p), acl.Host(src, 0), 1024, s))
		copy(src, filled(1024, 4))
		e.sync(s)
		require.Equal(e, filled(1024, 3), e.get(p, 1024))
	}},

	{"MemcpyAsyncPageableGivesUp", func(e *env) {
		s := e.stream(0)
		p := e.malloc(0, 64)
		e.put(p, filled(64, 1))
		release := e.gate(s)
		host := make([]byte, 64)
		ctx, cancel := context.WithCancel(e.ctx)
		done := goErr(func() error { return e.b.MemcpyAsync(ctx, acl.Host(host, 0), acl.Device(p), 64, s) })
		e.notYet(done, "MemcpyAsync with pageable memory")
		cancel()
		require.Error(e, e.recv(done, "MemcpyAsync"))
		release()
		e.sync(s)
		require.Equal(e, make([]byte, 64), host, "a call that gave up must not touch pageable memory later")
	}},

	{"Memset", func(e *env) {
		for _, k := range kinds {
			m := e.newMem(k, 1024, 0xEE)
			require.NoError(e, e.b.Memset(e.ctx, m.buf(100, 500), 0xAB, 500), "%v", k)
			w := filled(1024, 0xEE)
			copy(w[100:600], filled(500, 0xAB))
			require.Equal(e, w, e.read(m, 1024), "%v", k)
		}
		s := e.stream(0)
		for _, k := range kinds {
			m := e.newMem(k, 1024, 0xEE)
			require.NoError(e, e.b.MemsetAsync(e.ctx, m.buf(1, 1000), 0, 1000, s), "%v", k)
			e.sync(s)
			w := filled(1024, 0xEE)
			copy(w[1:1001], make([]byte, 1000))
			require.Equal(e, w, e.read(m, 1024), "%v", k)
		}
	}},

	{"Memcpy2D", func(e *env) {
		const w, h = 8, 4
		p := e.malloc(0, 64)
		for i, sk := range kinds[1:] {
			e.put(p, filled(64, 0xEE))
			src := e.newMem(sk, 3*10+w, 0)
			data := pattern(3*10+w, byte(i))
			e.write(src, data)
			require.NoError(e, e.b.Memcpy2D(e.ctx, acl.Device(p), 16, src.buf(0, 3*10+w), 10, w, h), "H2D from %v", sk)
			dev := filled(64, 0xEE)
			for r := range h {
				copy(dev[r*16:r*16+w], data[r*10:])
			}
			require.Equal(e, dev, e.get(p, 64), "H2D from %v", sk)

			dst := e.newMem(sk, 3*12+w, 0xDD)
			require.NoError(e, e.b.Memcpy2D(e.ctx, dst.buf(0, 3*12+w), 12, acl.Device(p), 16, w, h), "D2H to %v", sk)
			host := filled(3*12+w, 0xDD)
			for r := range h {
				copy(host[r*12:r*12+w], data[r*10:r*10+w])
			}
			require.Equal(e, host, e.read(dst, 3*12+w), "D2H to %v", sk)
		}
		q := e.malloc(0, 64)
		code(e, e.b.Memcpy2D(e.ctx, acl.Device(q), 16, acl.Device(p), 16, w, h), acl.ErrRTFeatureNotSupport, "synchronous 2D device to device")
		host := make([]byte, 5*16)
		code(e, e.b.Memcpy2D(e.ctx, acl.Device(p), 16, acl.Host(host[:4*16+w], 0), 16, w, 5), acl.ErrRTParamInvalid, "span crossing the end")
	}},

	{"Memcpy2DAsync", func(e *env) {
		const w, h = 5, 3
		s := e.stream(0)
		p, q := e.malloc(0, 64), e.malloc(0, 64)
		e.put(q, filled(64, 0xEE))
		for _, sk := range kinds[1:] {
			src := e.newMem(sk, 2*7+w, 0)
			data := pattern(2*7+w, 5)
			e.write(src, data)
			require.NoError(e, e.b.Memcpy2DAsync(e.ctx, acl.Device(p), 9, src.buf(0, 2*7+w), 7, w, h, s), "H2D from %v", sk)
			require.NoError(e, e.b.Memcpy2DAsync(e.ctx, acl.Device(q), 20, acl.Device(p), 9, w, h, s), "D2D")
			e.sync(s)
			dev := filled(64, 0xEE)
			for r := range h {
				copy(dev[r*20:r*20+w], data[r*7:r*7+w])
			}
			require.Equal(e, dev, e.get(q, 64), "from %v", sk)
		}
		h1, p1 := e.pinned(128)
		h2, p2 := e.pinned(64)
		code(e, e.b.Memcpy2DAsync(e.ctx, acl.Host(h1, p1), 8, acl.Host(h2, p2), 8, 4, 4, s), acl.ErrRTParamInvalid, "host to host")
		code(e, e.b.Memcpy2DAsync(e.ctx, acl.Device(q), 16, acl.Host(h1[:4*16+4], p1), 16, 4, 5, s), acl.ErrRTParamInvalid, "span crossing the end")
	}},

	{"PinnedViews", func(e *env) {
		// A Buf may name any part of a registered range.
		buf, pin := e.pinned(4096)
		copy(buf, pattern(4096, 2))
		p := e.malloc(0, 4096)
		s := e.stream(0)
		for i, r := range [][2]int{{0, 1}, {4095, 4096}, {100, 4000}, {1, 100}, {4000, 4095}} {
			n := r[1] - r[0]
			require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(p+acl.DevPtr(r[0])), acl.Host(buf[r[0]:r[1]], pin), uint64(n), s), fmt.Sprint(i))
		}
		e.sync(s)
		require.Equal(e, pattern(4096, 2), e.get(p, 4096))
	}},

	{"MemsetD32", func(e *env) {
		p := e.malloc(0, 64)
		require.NoError(e, e.b.MemsetD32(e.ctx, acl.Device(p+4), 0x11223344, 3))
		want := make([]byte, 64)
		for i := 4; i < 16; i += 4 {
			binary.LittleEndian.PutUint32(want[i:], 0x11223344)
		}
		require.Equal(e, want, e.get(p, 64), "3 words from byte 4, little-endian, nothing else")

		host, pin := e.pinned(32)
		require.NoError(e, e.b.MemsetD32(e.ctx, acl.Host(host[8:24], pin), 0xdeadbeef, 4))
		require.Equal(e, append(append(make([]byte, 8), bytes.Repeat([]byte{0xef, 0xbe, 0xad, 0xde}, 4)...), make([]byte, 8)...), host)

		code(e, e.b.MemsetD32(e.ctx, acl.Device(p), 1, 1<<62), acl.ErrRTParamInvalid, "words whose bytes overflow")
		require.Equal(e, want, e.get(p, 64), "a refused memset sets nothing")
	}},

	{"MemsetD32Async", func(e *env) {
		s := e.stream(0)
		p := e.malloc(0, 4096)
		release := e.gate(s)
		require.NoError(e, e.b.MemsetD32Async(e.ctx, acl.Device(p), 0x01020304, 1024, s))
		require.Equal(e, acl.StreamStatusNotReady, e.query(s), "queued behind the gate")
		release()
		e.sync(s)
		require.Equal(e, bytes.Repeat([]byte{4, 3, 2, 1}, 1024), e.get(p, 4096))
		code(e, e.b.MemsetD32Async(e.ctx, acl.Device(p), 1, 1<<62, s), acl.ErrRTParamInvalid, "words whose bytes overflow")
	}},
}
