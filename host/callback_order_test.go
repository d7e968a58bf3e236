package host

import "github.com/aclwasm/aclwasm/acl"

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
		"queued": {policy: Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			s := h.stream()
			h.gate(s) // one operation pending
			return h.rc("aclrtLaunchHostFunc", s, 1, 0)
		}},
		"badfn": {run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			return h.rc("aclrtLaunchHostFunc", 0, 100000, 0) // the proxy's dispatcher runs nothing
		}},
	}
}
