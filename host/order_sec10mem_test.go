package host

import (
	"encoding/binary"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// bare is a backend with none of the optional interfaces: the sandbox must
// refuse what needs them with 207000, never do nothing.
type bare struct{ acl.Backend }

// bareHarness is a harness on a bare simulator, device 0 current.
func bareHarness(h *harness) *harness {
	h.t.Helper()
	b := sim.New()
	h.t.Cleanup(func() { b.Close() })
	h2 := newHarness(h.t, Policy{}, WithBackend(bare{b}))
	h2.ok("aclrtSetDevice", 0)
	return h2
}

// words returns n little-endian copies of v.
func words(v uint32, n int) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// memsetD32Cases are the cases of aclrtMemsetD32 and aclrtMemsetD32Async.
func memsetD32Cases(fn string, async bool) map[string]orderCase {
	c := func(h *harness, stream uint64, args ...uint64) acl.Error {
		if async {
			args = append(args, stream)
		}
		return h.rc(fn, args...)
	}
	cases := map[string]orderCase{
		"count0": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.ok("aclrtDestroyStream", e.s)
			h.noDevice()
			return c(h, e.s, 0, 0, 0, 0) // NULL, a destroyed stream and no device too
		}},
		"null":  {run: func(h *harness) acl.Error { return c(h, 999, 0, 4, 0, 1) }},
		"align": {run: func(h *harness) acl.Error { return c(h, 999, data+1, 0, 0, 1) }}, // memSize too small too
		"memSize": {run: func(h *harness) acl.Error {
			require.Equal(h.t, acl.ErrInvalidParam, c(h, 999, data, 15, 0, 4), "one byte short")
			require.Equal(h.t, acl.ErrInvalidParam, c(h, 999, data, ^uint64(0), 0, 1<<62), "a byte count that overflows")
			return c(h, 999, e2dDst, 4, 0, 2) // no device, a bad stream, an address the query refuses too
		}},
		"unregistered": {run: func(h *harness) acl.Error {
			want := h.fill(data2, 8, 1)
			code := c(h, 999, data2, 8, 0, 2) // no device and a bad stream too
			require.Equal(h.t, want, h.mem()[data2:data2+8], "nothing set")
			return code
		}},
		"attr": {run: func(h *harness) acl.Error { return c(h, 999, e2dDst, 8, 0, 2) }}, // no device and a bad stream too
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return c(h, 0, e.dev+4092, 8, 0, 2) // past its allocation too
		}},
		"range": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, e.dev+4092, 8, 0, 2) // past the allocation's end; the stream's device comes later
		}},
		"bytes": {policy: Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, data, 16, 0, 4) // registered guest memory too; before the stream's device
		}},
		"host": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			// Registered guest memory is set before the call returns, even
			// behind a blocked stream, of either device.
			require.Equal(h.t, acl.Success, c(h, e.s, data, 64, 0x01020304, 16))
			require.Equal(h.t, words(0x01020304, 16), h.mem()[data:data+64])
			code := c(h, e.s1, data+64, 64, 0xfffffffe, 15)
			require.Equal(h.t, append(words(0xfffffffe, 15), 0), h.mem()[data+64:data+64+61], "15 words, the byte after untouched")
			return code
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			p, s := b.malloc(64), b.stream()
			b.ok("aclrtHostRegister", data, 4096, 0, outB)
			c(b, s, data, 64, 7, 16) // registered guest memory needs no backend
			require.Equal(h.t, words(7, 16), b.mem()[data:data+64])
			return c(b, s, p, 64, 7, 16)
		}},
	}
	if async {
		cases["stream"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return c(h, 999, e.dev+4092, 8, 0, 2) // no device and past the allocation too
		}}
		cases["streamctx"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, e.dev, 8, 0, 2)
		}}
		cases["queue"] = orderCase{policy: Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			h.ok(fn, e.dev, 8, 0, 2, e.s)
			return c(h, e.s, e.dev, 8, 0, 2)
		}}
	}
	return cases
}

func init() {
	for fn, cases := range map[string]map[string]orderCase{
		"aclrtMemsetD32":      memsetD32Cases("aclrtMemsetD32", false),
		"aclrtMemsetD32Async": memsetD32Cases("aclrtMemsetD32Async", true),
		"aclrtResetEvent": {
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtResetEvent", 0, 999) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtResetEvent", 998, 999) }},
			"stream": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				return h.rc("aclrtResetEvent", e.ev, e.ev)
			}},
			"context": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				h.noDevice()
				return h.rc("aclrtResetEvent", e.ev, 0)
			}},
			"streamctx": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				return h.rc("aclrtResetEvent", e.ev, e.s1)
			}},
			"feature": {run: func(h *harness) acl.Error {
				b := bareHarness(h)
				return b.rc("aclrtResetEvent", b.event(), 0)
			}},
			"queue": {policy: Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
				e := setupOrder(h)
				release := h.gate(e.s)
				defer release()
				return h.rc("aclrtResetEvent", e.ev, e.s)
			}},
		},
		"aclrtSetOpWaitTimeout": {
			"feature": {run: func(h *harness) acl.Error {
				b := bareHarness(h)
				b.ok("aclrtSetOpWaitTimeout", 0) // no limit needs nothing
				return b.rc("aclrtSetOpWaitTimeout", 1)
			}},
			"expire": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				h.ok("aclrtSetOpWaitTimeout", 1)
				h.ok("aclrtStreamWaitEvent", e.s, h.waitable()) // for a record that never comes
				return h.rc("aclrtSynchronizeStream", e.s)
			}},
		},
		"aclrtSetOpExecuteTimeOut": {
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtSetOpExecuteTimeOut", 5) }},
		},
		"aclrtSetOpExecuteTimeOutV2": {
			"null": {run: func(h *harness) acl.Error { return h.rc("aclrtSetOpExecuteTimeOutV2", 5, 0) }}, // no device too
			"context": {run: func(h *harness) acl.Error {
				h.putU64s(outA, 0x5a5a)
				code := h.rc("aclrtSetOpExecuteTimeOutV2", 5, outA)
				require.Equal(h.t, uint64(0x5a5a), h.u64(outA), "actualTimeout untouched")
				h.ok("aclrtSetDevice", 0)
				h.ok("aclrtGetOpExecuteTimeout", outA)
				require.Equal(h.t, uint32(254*4294967/1000), h.u32(outA), "the timeout was not set")
				return code
			}},
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtSetOpExecuteTimeOutV2", 5, outA) }},
			"actual": {run: func(h *harness) acl.Error {
				h.ok("aclrtSetDevice", 0)
				code := h.rc("aclrtSetOpExecuteTimeOutV2", 5, outA)
				require.Equal(h.t, uint64(4294967), h.u64(outA), "rounded up to one interval")
				return code
			}},
		},
		"aclrtGetOpExecuteTimeout": {
			"null":    {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetOpExecuteTimeout", 0) }},
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetOpExecuteTimeout", outA) }},
		},
		"aclrtGetOpTimeOutInterval": {
			"null": {run: func(h *harness) acl.Error { return h.rc("aclrtGetOpTimeOutInterval", 0) }}, // no device too
			"context": {run: func(h *harness) acl.Error {
				h.putU64s(outA, 0x5a5a)
				code := h.rc("aclrtGetOpTimeOutInterval", outA)
				require.Equal(h.t, uint64(0x5a5a), h.u64(outA), "interval untouched")
				return code
			}},
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetOpTimeOutInterval", outA) }},
		},
		"aclAppLog": {
			"level": {run: func(h *harness) acl.Error { return h.rc("aclAppLog", 4, 7, 7, 1, 0) }}, // bad strings too
			"strings": {run: func(h *harness) acl.Error {
				copy(h.mem()[data:], "main\x00")
				return h.rc("aclAppLog", 1, data, 1<<30, 1, 0) // file outside guest memory; msg NULL too
			}},
			"msg": {run: func(h *harness) acl.Error { return h.rc("aclAppLog", 3, 0, 0, 1, 0) }},
		},
	} {
		orderCases[fn] = cases
	}
	orderCases["aclInit"]["string"] = orderCase{run: func(h *harness) acl.Error {
		n := len(h.mem())
		copy(h.mem()[n-3:], "abc") // no NUL before the end of guest memory
		return h.rc("aclInit", uint64(n-3))
	}}
	orderCases["aclInit"]["allowed"] = orderCase{policy: Policy{AllowInitConfig: true}, run: func(h *harness) acl.Error {
		copy(h.mem()[data:], "./acl.json\x00")
		return h.rc("aclInit", data)
	}}
}
