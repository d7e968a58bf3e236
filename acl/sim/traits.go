package sim

import "github.com/aclwasm/aclwasm/acl"

// Traits implements [acl.Runtime]: every allocation is fresh Go memory,
// zeros until written; the chip decides whether a copy between two devices
// needs EnablePeerAccess first; operators, kernels and models run as Go
// code ([Backend.Compute]); small copies take the allocations the
// sandbox resolved ([Backend.CopySmall]).
func (b *Backend) Traits() acl.Traits {
	return acl.Traits{
		ZeroesAllocations:  true,
		PeerAccessImplicit: !b.chip.profile().peerEnable,
		Computer:           b,
		SmallCopier:        b,
	}
}
