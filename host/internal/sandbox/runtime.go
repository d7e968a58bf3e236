package sandbox

import (
	"sync"

	"github.com/aclwasm/aclwasm/acl"
)

// Shared is what the sessions of one runtime share: the backend, the
// host functions outside module "acl", the device address regions and
// the peer access the sessions enabled. It is safe for concurrent use.
type Shared struct {
	b         acl.Backend
	hostFuncs []*HostFunc
	regions   regionPool
	// peerRequired: copies between devices need peer access enabled first
	// (true unless the backend's Traits say otherwise).
	peerRequired bool
	// zeroed: new allocations read as zeros (Traits.ZeroesAllocations), so
	// the session need not clear them.
	zeroed bool
	// sc: the backend's small copies (acl.SmallCopierOf), nil where it
	// has none or b merely forwards an inner backend's.
	sc acl.SmallCopier

	peerMu sync.Mutex
	peers  map[[2]int32]int // sessions that enabled each physical pair

	models modelCache // approved models, loaded once (model_cache.go)
}

// NewShared returns the shared state of the sessions of a runtime on
// backend b, with the host functions hf (IOFuncs's and the embedder's).
func NewShared(b acl.Backend, hf []*HostFunc) *Shared {
	t := b.Traits()
	return &Shared{b: b, hostFuncs: hf, peers: map[[2]int32]int{}, peerRequired: !t.PeerAccessImplicit, zeroed: t.ZeroesAllocations,
		sc: acl.SmallCopierOf(b)}
}

// HostFuncs returns the runtime's host functions, in the order of their
// engine indexes after HostFuncBase.
func (sh *Shared) HostFuncs() []*HostFunc { return sh.hostFuncs }

func (sh *Shared) peerAcquire(dev, peer int32) error {
	sh.peerMu.Lock()
	defer sh.peerMu.Unlock()
	k := [2]int32{dev, peer}
	if sh.peers[k] == 0 {
		if err := sh.b.EnablePeerAccess(dev, peer); err != nil {
			return err
		}
	}
	sh.peers[k]++
	return nil
}

func (sh *Shared) peerRelease(dev, peer int32) {
	sh.peerMu.Lock()
	defer sh.peerMu.Unlock()
	k := [2]int32{dev, peer}
	if sh.peers[k]--; sh.peers[k] <= 0 {
		delete(sh.peers, k)
		_ = sh.b.DisablePeerAccess(dev, peer)
	}
}

// Limits are the parts of a plugin's policy (host.Policy, defaults
// applied) that its sessions enforce as they run; the fields mean what
// Policy's of the same names do.
type Limits struct {
	Devices          []int32
	DeviceMemory     uint64
	PinnedMemory     uint64
	MaxAllocations   int
	MaxRegistrations int
	MaxStreams       int
	MaxEvents        int
	MaxQueued        int
	MaxBatchEntries  int
	MaxCallBytes     uint64
	MemoryPages      uint32
	RefuseInitConfig bool
	MaxCallbackDepth int
	MaxCallbacks     int
	// CheckAsync turns on the checking mode (asynccheck.go).
	CheckAsync bool
	// Models approves models by name (model.go); AllowGuestModels lets
	// aclmdlLoadFromMem* load a guest's bytes on a backend that runs
	// models itself.
	Models           map[string]string
	AllowGuestModels bool
}
