package acltest

import (
	"fmt"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// batchCase builds n host-to-device and n device-to-host copies of size
// bytes each, between distinct buffers of kind k, and checks the result.
type batchCase struct {
	copies []acl.Copy
	check  func()
}

func (e *env) batchCase(k kind, n, size int) batchCase {
	var c batchCase
	var checks []func()
	devs := e.malloc(0, uint64(2*n*size))
	for i := range n {
		// H2D: a host source into the first half.
		src := e.newMem(k, size, 0)
		data := pattern(size, byte(i))
		e.write(src, data)
		dst := devs + acl.DevPtr(i*size)
		c.copies = append(c.copies, acl.Copy{Dst: acl.Device(dst), Src: src.buf(0, size), N: uint64(size)})
		checks = append(checks, func() { require.Equal(e, data, e.get(dst, size), "H2D copy %d", i) })

		// D2H: from the second half into a host destination.
		from := devs + acl.DevPtr((n+i)*size)
		data2 := pattern(size, byte(100+i))
		e.put(from, data2)
		to := e.newMem(k, size, 0xEE)
		c.copies = append(c.copies, acl.Copy{Dst: to.buf(0, size), Src: acl.Device(from), N: uint64(size)})
		checks = append(checks, func() { require.Equal(e, data2, e.read(to, size), "D2H copy %d", i) })
	}
	c.check = func() {
		for _, f := range checks {
			f()
		}
	}
	return c
}

var batchTests = []test{
	{"MemcpyBatch", func(e *env) {
		for _, k := range kinds[1:] {
			for _, shape := range [][2]int{{1, 1}, {3, 100}, {200, 64}, {4, 300 << 10}} {
				c := e.batchCase(k, shape[0], shape[1])
				require.NoError(e, e.b.MemcpyBatch(e.ctx, c.copies), "%v %v", k, shape)
				c.check()
			}
		}
	}},

	{"MemcpyBatchAsync", func(e *env) {
		s := e.stream(0)
		for _, k := range kinds[1:] {
			for _, shape := range [][2]int{{1, 1}, {3, 100}, {200, 64}, {4, 300 << 10}} {
				c := e.batchCase(k, shape[0], shape[1])
				if err := e.b.MemcpyBatchAsync(e.ctx, c.copies, s); e.lacks(err, batchAsyncFns...) {
					continue
				} else {
					require.NoError(e, err, "%v %v", k, shape)
				}
				if k == onPageable {
					c.check() // complete when the call returns
				}
				e.sync(s)
				c.check()
			}
		}
	}},

	{"MemcpyBatchIsOneOperation", func(e *env) {
		s := e.stream(0)
		c := e.batchCase(onPinned, 50, 16)
		release := e.gate(s)
		if err := e.b.MemcpyBatchAsync(e.ctx, c.copies, s); e.lacks(err, batchAsyncFns...) {
			return
		} else {
			require.NoError(e, err)
		}
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Equal(e, 2, n, "the gate and the batch")
		release()
		e.sync(s)
		c.check()
	}},

	{"MemcpyBatchZeroSizes", func(e *env) {
		p := e.malloc(0, 64)
		host := filled(64, 1)
		cs := []acl.Copy{
			{Dst: acl.Device(p), Src: acl.Host(host, 0), N: 0},
			{Dst: acl.Device(p + 8), Src: acl.Host(host[:8], 0), N: 8},
		}
		require.NoError(e, e.b.MemcpyBatch(e.ctx, cs))
		require.Equal(e, append(make([]byte, 8), append(filled(8, 1), make([]byte, 48)...)...), e.get(p, 64))
	}},

	{"MemcpyBatchBadEntry", func(e *env) {
		s := e.stream(0)
		for i := range numBadRanges {
			for _, async := range []bool{false, true} {
				c := e.batchCase(onPinned, 3, 16)
				host, pin := e.pinned(maxBadRange)
				r := e.badRange(i)
				cs := append([]acl.Copy(nil), c.copies...)
				cs[3] = acl.Copy{Dst: acl.Host(host[:r.n], pin), Src: acl.Device(r.p), N: r.n}
				what := fmt.Sprintf("%s, async %v", r.name, async)
				if async {
					code(e, e.b.MemcpyBatchAsync(e.ctx, cs, s), acl.ErrRTParamInvalid, what)
					e.sync(s)
				} else {
					code(e, e.b.MemcpyBatch(e.ctx, cs), acl.ErrRTParamInvalid, what)
				}
				for i := 0; i < len(cs); i += 2 { // the H2D entries
					require.Equal(e, make([]byte, 16), e.get(cs[i].Dst.Dev, 16), "%s: a failed batch must copy nothing", what)
				}
			}
		}
	}},
}
