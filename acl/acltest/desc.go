package acltest

import (
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

const inner = acl.MemcpyInnerDeviceToDevice

// descEnv is a descriptor with a source and a destination to copy between.
type descEnv struct {
	desc, src, dst acl.DevPtr
	size           uint64
	data           []byte
	s              acl.Stream
}

func (e *env) descEnv() descEnv {
	size, err := e.b.MemcpyDescSize(inner)
	require.NoError(e, err)
	require.GreaterOrEqual(e, size, uint64(24), "a descriptor holds at least src, dst and count")
	d := descEnv{desc: e.malloc(0, size), src: e.malloc(0, 256), dst: e.malloc(0, 256), size: size, data: pattern(256, 4), s: e.stream(0)}
	e.put(d.src, d.data)
	return d
}

var descTests = []test{
	{"MemcpyDescSize", func(e *env) {
		n, err := e.b.MemcpyDescSize(inner)
		require.NoError(e, err)
		require.Positive(e, n)
		for k := acl.MemcpyHostToHost; k <= acl.MemcpyInterDeviceToDevice; k++ {
			if k != inner {
				_, err := e.b.MemcpyDescSize(k)
				code(e, err, acl.ErrRTFeatureNotSupport, "kind %v", k)
			}
		}
		for _, k := range []acl.MemcpyKind{-1, 8, 1000} {
			_, err := e.b.MemcpyDescSize(k)
			code(e, err, acl.ErrInvalidParam, "kind %d", k)
		}
	}},

	{"MemcpyAsyncWithDesc", func(e *env) {
		d := e.descEnv()
		require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src+16, d.dst+32, 100))
		require.NoError(e, e.b.MemcpyAsyncWithDesc(d.desc, inner, d.s))
		e.sync(d.s)
		require.Equal(e, want(256, 0, shift(d.data, 16, 32), 32, 100), e.get(d.dst, 256))
	}},

	{"DescriptorIsItsBytes", func(e *env) {
		d := e.descEnv()
		require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst, 64))
		// A copy of the bytes, made on the device or through the host, is
		// a working descriptor; rewriting the original does not change it.
		moved, viaHost := e.malloc(0, d.size), e.malloc(0, d.size)
		require.NoError(e, e.b.Memcpy(e.ctx, acl.Device(moved), acl.Device(d.desc), d.size))
		e.put(viaHost, e.get(d.desc, int(d.size)))
		require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst+128, 64))
		e.free(d.desc)
		require.NoError(e, e.b.MemcpyAsyncWithDesc(moved, inner, d.s))
		e.sync(d.s)
		require.Equal(e, want(256, 0, d.data, 0, 64), e.get(d.dst, 256))
		e.put(d.dst, make([]byte, 256))
		require.NoError(e, e.b.MemcpyAsyncWithDesc(viaHost, inner, d.s))
		e.sync(d.s)
		require.Equal(e, want(256, 0, d.data, 0, 64), e.get(d.dst, 256))
	}},

	{"DescriptorReadWhenTheCopyRuns", func(e *env) {
		d := e.descEnv()
		require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst, 64))
		release := e.gate(d.s)
		require.NoError(e, e.b.MemcpyAsyncWithDesc(d.desc, inner, d.s))
		require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst+100, 64))
		release()
		e.sync(d.s)
		require.Equal(e, want(256, 0, shift(d.data, 0, 100), 100, 64), e.get(d.dst, 256))
	}},

	{"TamperedDescriptors", func(e *env) {
		tampers := []struct {
			name string
			do   func(d descEnv)
		}{
			{"zeroed", func(d descEnv) { require.NoError(e, e.b.Memset(e.ctx, acl.Device(d.desc), 0, d.size)) }},
			{"all ones", func(d descEnv) { require.NoError(e, e.b.Memset(e.ctx, acl.Device(d.desc), 0xFF, d.size)) }},
			{"one byte flipped", func(d descEnv) {
				b := e.get(d.desc, int(d.size))
				b[5] ^= 0x40 // inside src
				e.put(d.desc, b)
			}},
			{"freed source", func(d descEnv) { e.free(d.src) }},
			{"count past the end", func(d descEnv) {
				require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst, 257))
			}},
			{"destination in host range", func(d descEnv) {
				require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, acl.DevPtr(0x1000), 64))
			}},
		}
		for _, tc := range tampers {
			d := e.descEnv()
			require.NoError(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst, 64))
			tc.do(d)
			require.NoError(e, e.b.MemcpyAsyncWithDesc(d.desc, inner, d.s), "%s: the descriptor is checked when the copy runs", tc.name)
			require.Error(e, e.b.SynchronizeStream(e.ctx, d.s, -1), tc.name)
			require.Equal(e, make([]byte, 256), e.get(d.dst, 256), "%s: a failed copy must not write", tc.name)
			e.sync(d.s)
		}
	}},

	{"DescriptorBadArguments", func(e *env) {
		d := e.descEnv()
		short := e.malloc(0, d.size-1)
		for _, r := range append(e.badRanges(), bad{"shorter than a descriptor", short, d.size}) {
			if r.n > d.size {
				continue // bad only for longer ranges
			}
			code(e, e.b.SetMemcpyDesc(r.p, inner, d.src, d.dst, 8), acl.ErrRTParamInvalid, "set, desc %s", r.name)
			code(e, e.b.MemcpyAsyncWithDesc(r.p, inner, d.s), acl.ErrRTParamInvalid, "copy, desc %s", r.name)
		}
		for k, want := range map[acl.MemcpyKind]acl.Error{3: acl.ErrRTFeatureNotSupport, 7: acl.ErrRTFeatureNotSupport, 8: acl.ErrInvalidParam} {
			code(e, e.b.SetMemcpyDesc(d.desc, k, d.src, d.dst, 8), want, "set, kind %d", k)
			code(e, e.b.MemcpyAsyncWithDesc(d.desc, k, d.s), want, "copy, kind %d", k)
		}
		// Natively a descriptor must be 64-byte aligned (api_error.cc:2482-2484,
		// 2325-2328) and describe at most 4 GiB (2479-2481).
		big := e.malloc(0, 2*d.size+64)
		code(e, e.b.SetMemcpyDesc(big+32, inner, d.src, d.dst, 8), acl.ErrRTParamInvalid, "set, desc not 64-byte aligned")
		code(e, e.b.MemcpyAsyncWithDesc(big+32, inner, d.s), acl.ErrRTParamInvalid, "copy, desc not 64-byte aligned")
		code(e, e.b.SetMemcpyDesc(d.desc, inner, d.src, d.dst, 4<<30+1), acl.ErrRTParamInvalid, "set, count above 4 GiB")
		n, err := e.b.Pending(d.s)
		require.NoError(e, err)
		require.Zero(e, n)
	}},

	{"PageableCopyReturnsPendingError", func(e *env) {
		// A copy of pageable memory synchronizes its stream first, as the
		// native runtime does (api_error.cc:2254-2270): the error of the
		// work queued before is its result, and it copies nothing.
		s := e.stream(0)
		p := e.malloc(0, 64)
		e.put(p, filled(64, 7))
		fail := acl.Errorf(acl.ErrRTParamInvalid, "host function failed on purpose")
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { return fail }))
		out := make([]byte, 64)
		code(e, e.b.MemcpyAsync(e.ctx, acl.Host(out, 0), acl.Device(p), 64, s), acl.ErrRTParamInvalid, "the stream's pending error")
		require.Equal(e, make([]byte, 64), out, "the copy must not have run")
		require.NoError(e, e.b.SynchronizeStream(e.ctx, s, -1), "the error was reported once")
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Host(out, 0), acl.Device(p), 64, s))
		require.Equal(e, filled(64, 7), out)
	}},

	{"MemcpyAsyncWithOffset", func(e *env) {
		d := e.descEnv()
		ds, ss := e.malloc(0, 8), e.malloc(0, 8)
		e.put(ds, le64(uint64(d.dst)))
		e.put(ss, le64(uint64(d.src)))
		if err := e.b.MemcpyAsyncWithOffset(ds, 256, 40, ss, 100, 8, inner, d.s); e.lacks(err, "aclrtMemcpyAsyncWithOffset") {
			return
		} else {
			require.NoError(e, err)
		}
		e.sync(d.s)
		require.Equal(e, want(256, 0, shift(d.data, 8, 40), 40, 100), e.get(d.dst, 256))
		require.NoError(e, e.b.MemcpyAsyncWithOffset(ds, 256, 0, ss, 0, 0, inner, d.s), "count 0")
	}},

	{"OffsetSlotsReadWhenTheCopyRuns", func(e *env) {
		d := e.descEnv()
		other := e.malloc(0, 256)
		ds, ss := e.malloc(0, 8), e.malloc(0, 8)
		e.put(ds, le64(uint64(d.dst)))
		e.put(ss, le64(uint64(d.src)))
		release := e.gate(d.s)
		if err := e.b.MemcpyAsyncWithOffset(ds, 256, 0, ss, 64, 0, inner, d.s); e.lacks(err, "aclrtMemcpyAsyncWithOffset") {
			return
		} else {
			require.NoError(e, err)
		}
		e.put(ds, le64(uint64(other)))
		release()
		e.sync(d.s)
		require.Equal(e, make([]byte, 256), e.get(d.dst, 256))
		require.Equal(e, want(256, 0, d.data, 0, 64), e.get(other, 256))
	}},

	{"TamperedOffsetSlots", func(e *env) {
		d := e.descEnv()
		freed := e.malloc(0, 256)
		e.free(freed)
		for _, tc := range []struct {
			name     string
			dst, src uint64
			dstOff   uint64
		}{
			{"garbage dst", 0xdead_beef_0000, uint64(d.src), 0},
			{"garbage src", uint64(d.dst), 0x1234_5678, 0},
			{"zero dst", 0, uint64(d.src), 0},
			{"freed src", uint64(d.dst), uint64(freed), 0},
			{"dst offset past the end", uint64(d.dst), uint64(d.src), 250},
			{"offset overflows", ^uint64(0) - 8, uint64(d.src), 100},
		} {
			ds, ss := e.malloc(0, 8), e.malloc(0, 8)
			e.put(ds, le64(tc.dst))
			e.put(ss, le64(tc.src))
			require.NoError(e, e.b.MemcpyAsyncWithOffset(ds, 1<<40, tc.dstOff, ss, 64, 0, inner, d.s), tc.name)
			require.Error(e, e.b.SynchronizeStream(e.ctx, d.s, -1), tc.name)
			require.Equal(e, make([]byte, 256), e.get(d.dst, 256), "%s: a failed copy must not write", tc.name)
		}
	}},

	{"OffsetBadArguments", func(e *env) {
		d := e.descEnv()
		ok := e.malloc(0, 8)
		e.put(ok, le64(uint64(d.src)))
		for _, r := range e.badRanges() {
			if r.n > 8 {
				continue // bad only for longer ranges
			}
			if r.n < 8 {
				r.p -= acl.DevPtr(8 - r.n) // a slot crossing the end
			}
			code(e, e.b.MemcpyAsyncWithOffset(r.p, 256, 0, ok, 8, 0, inner, d.s), acl.ErrRTParamInvalid, "dst slot %s", r.name)
			code(e, e.b.MemcpyAsyncWithOffset(ok, 256, 0, r.p, 8, 0, inner, d.s), acl.ErrRTParamInvalid, "src slot %s", r.name)
		}
		if err := e.b.MemcpyAsyncWithOffset(ok, 256, 0, ok, 8, 0, acl.MemcpyDeviceToDevice, d.s); !e.lacks(err, "aclrtMemcpyAsyncWithOffset") {
			code(e, err, acl.ErrRTParamInvalid, "kind")
		}
		n, err := e.b.Pending(d.s)
		require.NoError(e, err)
		require.Zero(e, n)
	}},
}

// shift returns a copy of b moved so that b[from:] lands at to.
func shift(b []byte, from, to int) []byte {
	out := make([]byte, len(b)+to)
	copy(out[to:], b[from:])
	return out
}
