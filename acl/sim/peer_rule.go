package sim

// PeerAccessRequired implements acl.PeerRule: whether the chip needs
// EnablePeerAccess before a copy between two devices.
func (b *Backend) PeerAccessRequired() bool { return b.chip.profile().peerEnable }

// ZeroesAllocations implements acl.Zeroer: every allocation is fresh Go
// memory, zeros until written.
func (b *Backend) ZeroesAllocations() bool { return true }
