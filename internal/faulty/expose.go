package faulty

import (
	"github.com/aclwasm/aclwasm/acl"
)

// zeroer forwards [acl.Zeroer].
type zeroer struct{ z acl.Zeroer }

// ZeroesAllocations implements [acl.Zeroer].
func (w zeroer) ZeroesAllocations() bool { return w.z.ZeroesAllocations() }

// peerRule forwards [acl.PeerRule].
type peerRule struct{ p acl.PeerRule }

// PeerAccessRequired implements [acl.PeerRule].
func (w peerRule) PeerAccessRequired() bool { return w.p.PeerAccessRequired() }

// The wrapper types, one per set of optional interfaces.
type (
	plainZ struct {
		*wrapper
		zeroer
	}
	plainP struct {
		*wrapper
		peerRule
	}
	plainZP struct {
		*wrapper
		zeroer
		peerRule
	}
)

// Interfaces names the optional interfaces of acl that b implements, in a
// fixed order: what Wrap preserves, for tests that check it.
func Interfaces(b acl.Backend) []string {
	var out []string
	if _, ok := b.(acl.Zeroer); ok {
		out = append(out, "Zeroer")
	}
	if _, ok := b.(acl.PeerRule); ok {
		out = append(out, "PeerRule")
	}
	return out
}
