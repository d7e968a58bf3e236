package sim_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestSyncCopyRacesFree races synchronous copies (which take no reference
// and no backend-wide lock) against Free of their allocation: each copy
// either runs whole on live memory or fails with 107000, and Free returns
// only once no copy touches the memory. Under -race it also checks that
// the lock-free lookup is synchronized.
func TestSyncCopyRacesFree(t *testing.T) {
	b := newSim(t)
	const n = 4096
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	for range 50 {
		p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				out := make([]byte, n)
				for {
					if err := b.Memcpy(t.Context(), acl.Device(p), acl.Host(src, 0), n); err != nil {
						assert.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "%v", err)
						return
					}
					if err := b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(p), n); err != nil {
						assert.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "%v", err)
						return
					}
					if !assert.Equal(t, src, out) {
						return
					}
				}
			})
		}
		require.NoError(t, b.Free(t.Context(), p))
		wg.Wait()
		err = b.Memcpy(t.Context(), acl.Device(p), acl.Host(src, 0), n)
		require.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "a freed allocation takes no copy")
	}
	f, total, err := b.MemInfo(0, acl.HBMMem)
	require.NoError(t, err)
	require.Equal(t, total, f)
}
