package sandbox_test

import (
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// isNotifyFn reports whether fn is one of the native notify functions
// (ABI v1.2 section 12), the optional symbols a library may lack.
func isNotifyFn(fn string) bool {
	switch fn {
	case "aclrtCreateNotify", "aclrtDestroyNotify", "aclrtRecordNotify", "aclrtWaitAndResetNotify":
		return true
	}
	return false
}

// noNotifyHarness is a harness on a simulator without notifies, device 0
// current; n is a notify made behind its back (for record and wait).
func noNotifyHarness(h *harness) (b *harness, n uint64) {
	h.T.Helper()
	s := sim.New()
	h.T.Cleanup(func() { s.Close() })
	flip := &switchable{Backend: s, on: true}
	b = newHarness(h.T, host.Policy{}, host.WithBackend(flip))
	b.OK("aclrtSetDevice", 0)
	n = b.notify()
	flip.on = false
	return b, n
}

// switchable is a backend whose notifies can be turned off, as over a
// native library without them (Supports false; the sandbox must refuse
// with 207000 before it queues anything).
type switchable struct {
	acl.Backend
	on bool
}

// Supports implements acl.Backend.
func (s *switchable) Supports(fn string) bool {
	return s.on || !isNotifyFn(fn)
}

func init() {
	for fn, cases := range map[string]map[string]orderCase{
		"aclrtCreateNotify": {
			"null": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateNotify", 0, 7) }},
			"flag": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateNotify", outA, 7) }}, // no device either
			"context": {run: func(h *harness) acl.Error {
				return h.rc("aclrtCreateNotify", outA, 0)
			}},
			"feature": {run: func(h *harness) acl.Error {
				b, _ := noNotifyHarness(h)
				return b.rc("aclrtCreateNotify", outA, 0)
			}},
			"count": {policy: host.Policy{MaxEvents: 1}, run: func(h *harness) acl.Error {
				h.OK("aclrtSetDevice", 0)
				h.notify()
				return h.rc("aclrtCreateNotify", outA, 0)
			}},
		},
		"aclrtDestroyNotify": {
			"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyNotify", 0) }},
			"notify": {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyNotify", setupOrder(h).ev) }},
			"context": {run: func(h *harness) acl.Error {
				h.OK("aclrtSetDevice", 0)
				n := h.notify()
				h.noDevice()
				code := h.rc("aclrtDestroyNotify", n)
				h.OK("aclrtSetDevice", 0)
				h.OK("aclrtGetNotifyId", n, outB) // not destroyed
				return code
			}},
		},
		"aclrtRecordNotify":       notifyStreamCases("aclrtRecordNotify"),
		"aclrtWaitAndResetNotify": notifyStreamCases("aclrtWaitAndResetNotify"),
		"aclrtGetNotifyId": {
			"null": {run: func(h *harness) acl.Error {
				h.OK("aclrtSetDevice", 0)
				return h.rc("aclrtGetNotifyId", h.notify(), 0) // notifyId NULL: the notify checked first
			}},
			"notify": {run: func(h *harness) acl.Error { return h.rc("aclrtGetNotifyId", setupOrder(h).s, outB) }},
			"context": {run: func(h *harness) acl.Error {
				h.OK("aclrtSetDevice", 0)
				n := h.notify()
				h.noDevice()
				return h.rc("aclrtGetNotifyId", n, outB)
			}},
		},
	} {
		orderCases[fn] = cases
	}
}

// notifyStreamCases are the cases of the notify functions that take a
// stream: record and wait (the wait's timeout is 20 ms).
func notifyStreamCases(fn string) map[string]orderCase {
	call := func(h *harness, n, s uint64) acl.Error {
		if fn == "aclrtWaitAndResetNotify" {
			return h.rc(fn, n, s, 20)
		}
		return h.rc(fn, n, s)
	}
	cases := map[string]orderCase{
		"null":   {run: func(h *harness) acl.Error { return call(h, 0, 999) }},
		"notify": {run: func(h *harness) acl.Error { e := setupOrder(h); return call(h, e.ev, 999) }},
		"stream": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			n := h.notify()
			return call(h, n, e.ev)
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			n := h.notify()
			h.noDevice()
			return call(h, n, e.s) // NULL would name no stream; e.s checks the device first
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return call(h, h.notify(), e.s1)
		}},
		"feature": {run: func(h *harness) acl.Error {
			b, n := noNotifyHarness(h)
			return call(b, n, 0)
		}},
		"queue": {policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			n := h.notify()
			release := h.gate(e.s)
			defer release()
			return call(h, n, e.s)
		}},
	}
	if fn == "aclrtWaitAndResetNotify" {
		cases["expire"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			if rc := call(h, h.notify(), e.s); rc != acl.Success {
				return rc
			}
			return h.rc("aclrtSynchronizeStream", e.s)
		}}
	}
	return cases
}
