package sandbox_test

import (
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// The check-order cases of the stream callbacks (ABI section 12), kept
// apart from orderCases' literal.
func init() {
	orderCases["aclrtLaunchHostFunc"] = map[string]orderCase{
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchHostFunc", 999, 0, 0) }},
		"fn":      {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchHostFunc", 0, 0, 0) }}, // no device either
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchHostFunc", 0, 1, 0) }},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtLaunchHostFunc", e.s1, 1, 0)
		}},
		"queued": {policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.gate(s) // one operation pending
			return h.rc("aclrtLaunchHostFunc", s, 1, 0)
		}},
		"badfn": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtLaunchHostFunc", 0, 100000, 0) // the proxy's dispatcher runs nothing
		}},
		"subscribed": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtSubscribeReport", 1, e.s1)
			return h.rc("aclrtLaunchHostFunc", e.s1, 1, 0) // a stream of another device too
		}},
	}
	orderCases["aclrtSubscribeReport"] = map[string]orderCase{
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtSubscribeReport", 1, 999) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSubscribeReport", 1, 0) }},
		"runtime": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtLaunchHostFunc", s, 1, 0)
			return h.rc("aclrtSubscribeReport", 1, s)
		}},
		"subscribed": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtSubscribeReport", 1, 0)
			return h.rc("aclrtSubscribeReport", 2, 0)
		}},
		"explicitctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtSubscribeReport", 1, e.s)
		}},
		"thread": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtSubscribeReport", 1, e.s)
			h.OK("aclrtSubscribeReport", 1, h.Stream()) // the same device: one thread serves both
			return h.rc("aclrtSubscribeReport", 1, e.s1)
		}},
	}
	orderCases["aclrtLaunchCallback"] = map[string]orderCase{
		"blockType": {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchCallback", 0, 0, 5, 999) }},
		"stream":    {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchCallback", 0, 0, 1, 999) }},
		"fn":        {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchCallback", 0, 0, 1, 0) }}, // no device either
		"runtime": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtLaunchHostFunc", s, 1, 0)
			return h.rc("aclrtLaunchCallback", 1, 0, 1, s)
		}},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtLaunchCallback", 1, 0, 1, 0) }},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtLaunchCallback", 1, 0, 1, e.s1) // not bound either
		}},
		"subscribed": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtLaunchCallback", 1, 0, 1, 0)
		}},
		"queued": {policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtSubscribeReport", 1, s)
			h.gate(s)
			return h.rc("aclrtLaunchCallback", 1, 0, 1, s)
		}},
	}
	orderCases["aclrtProcessReport"] = map[string]orderCase{
		"timeout": {run: func(h *harness) acl.Error { return h.rc("aclrtProcessReport", 0) }},
		"thread":  {run: func(h *harness) acl.Error { return h.rc("aclrtProcessReport", 10) }},
		"expire": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtSubscribeReport", 1, 0)
			return h.rc("aclrtProcessReport", 10)
		}},
		"depth": {run: func(h *harness) acl.Error {
			// A guest whose callbacks run: the proxy's run nothing. The
			// callback's aclrtProcessReport would expire too.
			g := newActGuest(h.T, host.Policy{MaxCallbackDepth: 1})
			s := g.stream()
			g.ok("aclrtSubscribeReport", 1, s)
			g.ok("aclrtLaunchCallback", 1, g.record(0x100, opProcess, 0, 10), 1, s)
			g.ok("aclrtProcessReport", waitForever)
			return acl.Error(g.log()[0])
		}},
	}
	orderCases["aclrtUnSubscribeReport"] = map[string]orderCase{
		"stream":     {run: func(h *harness) acl.Error { return h.rc("aclrtUnSubscribeReport", 1, 999) }},
		"context":    {run: func(h *harness) acl.Error { return h.rc("aclrtUnSubscribeReport", 1, 0) }},
		"subscribed": {run: func(h *harness) acl.Error { h.OK("aclrtSetDevice", 0); return h.rc("aclrtUnSubscribeReport", 1, 0) }},
		"thread": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtSubscribeReport", 1, 0)
			return h.rc("aclrtUnSubscribeReport", 2, 0)
		}},
	}
}
