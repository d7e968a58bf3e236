package sim_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

const inner = acl.MemcpyInnerDeviceToDevice

func TestDescSizeByChip(t *testing.T) {
	for chip, want := range map[sim.Chip]uint64{sim.AtlasA2: 32, sim.AtlasA3: 32, sim.Ascend950: 64, sim.Chip(9): 32} {
		n, err := newSim(t, sim.WithChip(chip)).MemcpyDescSize(inner)
		require.NoError(t, err)
		require.Equal(t, want, n, "%v", chip)
	}
}

func TestDescLayout(t *testing.T) {
	b := newSim(t, sim.WithChip(sim.Ascend950))
	desc, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memset(t.Context(), acl.Device(desc), 0xCC, 64))
	require.NoError(t, b.SetMemcpyDesc(desc, inner, 0x1111<<40, 0x2222<<40, 77))
	out := make([]byte, 64)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(desc), 64))
	le := binary.LittleEndian
	require.Equal(t, uint64(0x1111<<40), le.Uint64(out[0:]))
	require.Equal(t, uint64(0x2222<<40), le.Uint64(out[8:]))
	require.Equal(t, uint64(77), le.Uint64(out[16:]))
	require.Equal(t, "ACLDESC1", string(out[24:32]))
	require.Equal(t, make([]byte, 32), out[32:], "the rest of the descriptor is zeroed")

	for _, tc := range []struct {
		name     string
		src, dst acl.DevPtr
		n        uint64
	}{{"src NULL", 0, 1, 1}, {"dst NULL", 1, 0, 1}, {"count 0", 1, 1, 0}} {
		require.ErrorIs(t, b.SetMemcpyDesc(desc, inner, tc.src, tc.dst, tc.n), acl.ErrInvalidParam, tc.name)
	}
}

// TestDescFailures checks the code of every way a descriptor or offset copy
// fails when it runs: 107000, with nothing written.
func TestDescFailures(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	malloc := func(dev int32, n uint64) acl.DevPtr {
		p, err := b.Malloc(dev, n, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		return p
	}
	desc, src, dst, far := malloc(0, 32), malloc(0, 256), malloc(0, 256), malloc(1, 256)
	require.NoError(t, b.EnablePeerAccess(0, 1)) // so that only the inner-device rule stands in the way
	require.NoError(t, b.Memset(t.Context(), acl.Device(src), 9, 256))
	put := func(p acl.DevPtr, v uint64) {
		var x [8]byte
		binary.LittleEndian.PutUint64(x[:], v)
		require.NoError(t, b.Memcpy(t.Context(), acl.Device(p), acl.Host(x[:], 0), 8))
	}

	for _, tc := range []struct {
		name string
		set  func()
	}{
		{"format mark", func() { require.NoError(t, b.SetMemcpyDesc(desc, inner, src, dst, 8)); put(desc+24, 0) }},
		{"count 0", func() { require.NoError(t, b.SetMemcpyDesc(desc, inner, src, dst, 8)); put(desc+16, 0) }},
		{"dst on another device", func() { require.NoError(t, b.SetMemcpyDesc(desc, inner, src, far, 8)) }},
		{"src on another device", func() { require.NoError(t, b.SetMemcpyDesc(desc, inner, far, dst, 8)) }},
		{"NULL src", func() { require.NoError(t, b.SetMemcpyDesc(desc, inner, src, dst, 8)); put(desc, 0) }},
	} {
		tc.set()
		require.NoError(t, b.MemcpyAsyncWithDesc(desc, inner, s), tc.name)
		require.ErrorIs(t, b.SynchronizeStream(t.Context(), s, -1), acl.ErrRTParamInvalid, tc.name)
	}

	slotD, slotS := malloc(0, 8), malloc(0, 8)
	for _, tc := range []struct {
		name       string
		dBase, sBs uint64
	}{
		{"dst on another device", uint64(far), uint64(src)},
		{"src on another device", uint64(dst), uint64(far)},
		{"NULL dst", 0, uint64(src)},
	} {
		put(slotD, tc.dBase)
		put(slotS, tc.sBs)
		require.NoError(t, b.MemcpyAsyncWithOffset(slotD, 256, 0, slotS, 8, 0, inner, s), tc.name)
		require.ErrorIs(t, b.SynchronizeStream(t.Context(), s, -1), acl.ErrRTParamInvalid, tc.name)
	}
	out := make([]byte, 256)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(dst), 256))
	require.Equal(t, make([]byte, 256), out)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(far), 256))
	require.Equal(t, make([]byte, 256), out)

	// The argument checks of the native runtime apply at the call.
	for _, tc := range []struct {
		name         string
		destMax, off uint64
		n            uint64
		kind         acl.MemcpyKind
	}{
		{"kind", 256, 0, 8, acl.MemcpyDeviceToDevice},
		{"dst offset at destMax", 256, 256, 8, inner},
		{"count over destMax - offset", 256, 250, 8, inner},
		{"count over 4 GiB", 1 << 40, 0, 4<<30 + 1, inner},
	} {
		require.ErrorIs(t, b.MemcpyAsyncWithOffset(slotD, tc.destMax, tc.off, slotS, tc.n, 0, tc.kind, s), acl.ErrRTParamInvalid, tc.name)
	}
}

func TestDescHeldUntilRun(t *testing.T) {
	// The descriptor and the slots stay allocated while a copy that will
	// read them is queued.
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	desc, err := b.Malloc(0, 32, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	x, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.SetMemcpyDesc(desc, inner, x, x+32, 32))
	release := gate(t, b, s)
	require.NoError(t, b.MemcpyAsyncWithDesc(desc, inner, s))
	freed := goErr(func() error { return b.Free(t.Context(), desc) })
	notYet(t, freed, "Free of a queued descriptor")
	release()
	require.NoError(t, <-freed)
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
}

// TestSynchronizeIdleStreamTakesError: a synchronize of a stream whose
// failed work has already completed returns that error once, then nil:
// the stream's error belongs to the first synchronize after it, however
// little there is left to wait for.
func TestSynchronizeIdleStreamTakesError(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	desc, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	// Zeroed device memory is no descriptor: the copy fails when it runs.
	require.NoError(t, b.MemcpyAsyncWithDesc(desc, acl.MemcpyInnerDeviceToDevice, s))
	require.Eventually(t, func() bool {
		n, err := b.Pending(s)
		return err == nil && n == 0
	}, 10*time.Second, time.Millisecond, "the failed copy completes")
	require.ErrorIs(t, b.SynchronizeStream(t.Context(), s, -1), acl.ErrRTParamInvalid)
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1), "taken by the first synchronize")
	require.NoError(t, b.SynchronizeStream(t.Context(), s, 1000), "and with a timeout")
}
