package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// TestPeerAccess checks every kind of device-to-device copy between two
// devices against each chip's rule, before and after enabling access in
// either direction.
func TestPeerAccess(t *testing.T) {
	type copier func(b *sim.Backend, s acl.Stream, dst, src acl.DevPtr) error
	copiers := map[string]copier{
		"Memcpy": func(b *sim.Backend, _ acl.Stream, dst, src acl.DevPtr) error {
			return b.Memcpy(t.Context(), acl.Device(dst), acl.Device(src), 64)
		},
		"MemcpyAsync": func(b *sim.Backend, s acl.Stream, dst, src acl.DevPtr) error {
			return b.MemcpyAsync(t.Context(), acl.Device(dst), acl.Device(src), 64, s)
		},
		"Memcpy2DAsync": func(b *sim.Backend, s acl.Stream, dst, src acl.DevPtr) error {
			return b.Memcpy2DAsync(t.Context(), acl.Device(dst), 16, acl.Device(src), 16, 16, 4, s)
		},
		"MemcpyBatch": func(b *sim.Backend, _ acl.Stream, dst, src acl.DevPtr) error {
			return b.MemcpyBatch(t.Context(), []acl.Copy{{Dst: acl.Device(dst), Src: acl.Device(src), N: 64}})
		},
		"MemcpyBatchAsync": func(b *sim.Backend, s acl.Stream, dst, src acl.DevPtr) error {
			return b.MemcpyBatchAsync(t.Context(), []acl.Copy{{Dst: acl.Device(dst), Src: acl.Device(src), N: 64}}, s)
		},
	}
	for _, tc := range []struct {
		chip    sim.Chip
		enforce bool
	}{{sim.AtlasA2, true}, {sim.AtlasA3, false}, {sim.Ascend950, true}} {
		for name, cp := range copiers {
			t.Run(tc.chip.String()+"/"+name, func(t *testing.T) {
				for _, enabled := range [][2]int32{{0, 1}, {1, 0}} {
					b := newSim(t, sim.WithChip(tc.chip))
					require.Equal(t, tc.chip, b.Chip())
					s, err := b.CreateStream(0)
					require.NoError(t, err)
					x, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
					require.NoError(t, err)
					y, err := b.Malloc(1, 64, acl.MemMallocHugeFirst)
					require.NoError(t, err)
					z, err := b.Malloc(1, 64, acl.MemMallocHugeFirst)
					require.NoError(t, err)
					require.NoError(t, cp(b, s, z, y), "copies within one device need nothing")

					for _, dir := range [][2]acl.DevPtr{{y, x}, {x, y}} {
						err := cp(b, s, dir[0], dir[1])
						if tc.enforce {
							require.ErrorIs(t, err, acl.ErrRTParamInvalid)
							require.Contains(t, err.Error(), "EnablePeerAccess")
						} else {
							require.NoError(t, err)
						}
					}
					require.NoError(t, b.EnablePeerAccess(enabled[0], enabled[1]))
					require.NoError(t, b.EnablePeerAccess(enabled[0], enabled[1]), "enabling twice")
					for _, dir := range [][2]acl.DevPtr{{y, x}, {x, y}} {
						require.NoError(t, cp(b, s, dir[0], dir[1]), "access enabled %v", enabled)
					}
					require.NoError(t, b.DisablePeerAccess(enabled[0], enabled[1]))
					require.NoError(t, b.DisablePeerAccess(enabled[0], enabled[1]), "disabling twice")
					if tc.enforce {
						require.ErrorIs(t, cp(b, s, y, x), acl.ErrRTParamInvalid, "access disabled again")
					}
					require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
				}
			})
		}
	}
}

func TestPeers(t *testing.T) {
	b := newSim(t, sim.WithDevices(3), sim.WithPeers(func(dev, peer int32) bool { return dev+peer != 2 }))
	for _, tc := range []struct {
		dev, peer int32
		can       bool
	}{{0, 1, true}, {1, 0, true}, {0, 2, false}, {2, 0, false}, {1, 2, true}} {
		can, err := b.CanAccessPeer(tc.dev, tc.peer)
		require.NoError(t, err)
		require.Equal(t, tc.can, can, "%d -> %d", tc.dev, tc.peer)
		err = b.EnablePeerAccess(tc.dev, tc.peer)
		if tc.can {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, acl.ErrRTParamInvalid)
		}
	}
	_, err := b.CanAccessPeer(1, 1)
	require.ErrorIs(t, err, acl.ErrInvalidParam)
	require.ErrorIs(t, b.EnablePeerAccess(1, 1), acl.ErrInvalidParam)
	require.ErrorIs(t, b.DisablePeerAccess(1, 1), acl.ErrInvalidParam)
	require.ErrorIs(t, b.EnablePeerAccess(1, 3), acl.ErrRTInvalidDeviceID)
	require.Equal(t, 3, b.DeviceCount())
	require.Equal(t, 1, newSim(t, sim.WithDevices(0)).DeviceCount(), "at least one device")
}
