package sim

import (
	"strconv"
	"time"
)

// Chip selects the hardware family whose rules the simulator follows. The
// families differ in what the native runtime documents as model-specific.
type Chip int

// The chip families the simulator knows.
const (
	// AtlasA2 is the Atlas A2 training and inference series (910B), the
	// default: copies between two devices need EnablePeerAccess first.
	AtlasA2 Chip = iota
	// AtlasA3 is the Atlas A3 series (910C): copies between two devices need
	// no EnablePeerAccess.
	AtlasA3
	// Ascend950 is the Ascend 950PR/950DT: like [AtlasA2], copies between two
	// devices need EnablePeerAccess first.
	Ascend950
)

// String returns the family's marketing name.
func (c Chip) String() string {
	switch c {
	case AtlasA2:
		return "Atlas A2"
	case AtlasA3:
		return "Atlas A3"
	case Ascend950:
		return "Ascend 950"
	}
	return "Chip(" + strconv.Itoa(int(c)) + ")"
}

// profile is what the simulator needs to know about a chip.
type profile struct {
	// peerEnable: a device-to-device copy between two devices needs peer
	// access enabled first. The native docs list this constraint for the
	// 950 and A2 series, not for A3.
	peerEnable bool
	// descSize is what MemcpyDescSize reports. The native size is
	// chip-specific and undocumented; these are the simulator's own.
	descSize uint64
	// The timing model's parameters (see the package doc for their
	// sources): link bandwidths in bytes per second, host to device, device
	// to host, within one device and from one device to another, and the
	// fixed cost of launching one operation.
	h2d, d2h, d2d, peer float64
	launch              time.Duration

	// What the device and product queries report (ABI v1.3 section 15),
	// from the native platform description of one SoC of the family
	// (src/platform/platform_config/<soc>.ini of the audited tree): its
	// name, NPU architecture, cores and L2 cache; simt says whether its
	// vector cores run SIMT threads (the 950's dev_info_reg.cc; the A2 and
	// A3 report 0 for every SIMT attribute).
	soc              string
	arch             int64
	cube, vec, aicpu uint32
	l2               int64
	simt             bool
}

var profiles = [...]profile{
	AtlasA2: {peerEnable: true, descSize: 32, h2d: 25e9, d2h: 25e9, d2d: 800e9, peer: 56e9, launch: 5 * time.Microsecond,
		soc: "Ascend910B1", arch: 2201, cube: 24, vec: 48, aicpu: 6, l2: 201326592},
	AtlasA3: {peerEnable: false, descSize: 32, h2d: 25e9, d2h: 25e9, d2d: 1000e9, peer: 100e9, launch: 5 * time.Microsecond,
		soc: "Ascend910_9391", arch: 2201, cube: 24, vec: 48, aicpu: 6, l2: 201326592},
	Ascend950: {peerEnable: true, descSize: 64, h2d: 50e9, d2h: 50e9, d2d: 1600e9, peer: 200e9, launch: 3 * time.Microsecond,
		soc: "Ascend950PR_9579", arch: 3510, cube: 28, vec: 56, aicpu: 7, l2: 134217728, simt: true},
}

func (c Chip) profile() profile {
	if c < 0 || int(c) >= len(profiles) {
		return profiles[AtlasA2]
	}
	return profiles[c]
}

// opTimeoutInterval is the simulator's step for operator timeouts, in
// microseconds (acl.Backend): 2^32 ns, rounded down. The native default
// AI Core timeout of the A2 and A3 series, 1091 s, is acl.MaxOpTimeoutSteps
// of it; the step itself is not documented per chip.
const opTimeoutInterval = 4294967

// OpTimeoutInterval implements [acl.Backend].
func (b *Backend) OpTimeoutInterval() (uint64, error) { return opTimeoutInterval, nil }
