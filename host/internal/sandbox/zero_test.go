package sandbox_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// dirtyBackend is a simulator whose allocations hold what an earlier user
// left there, as native device memory does: Malloc fills them with 0xA5.
type dirtyBackend struct{ acl.Backend }

// Traits implements acl.Runtime: the simulator's, less its promise of
// zeroed allocations.
func (b dirtyBackend) Traits() acl.Traits {
	t := b.Backend.Traits()
	t.ZeroesAllocations = false
	return t
}

func (b dirtyBackend) Malloc(dev int32, size uint64, p acl.MemMallocPolicy) (acl.DevPtr, error) {
	ptr, err := b.Backend.Malloc(dev, size, p)
	if err == nil {
		err = b.Backend.Memset(context.Background(), acl.Device(ptr), 0xA5, size)
	}
	return ptr, err
}

// TestNewAllocationsReadZero: a guest never reads what device memory held
// before it was allocated to it (another session's freed data).
func TestNewAllocationsReadZero(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    acl.Backend
	}{
		{"dirty backend", dirtyBackend{sim.New()}},
		{"zeroing backend", sim.New()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(func() { tc.b.Close() }) // after the harness closes its session
			h := newHarness(t, host.Policy{}, host.WithBackend(tc.b))
			h.OK("aclrtSetDevice", 0)
			const n = 4096
			p := h.Malloc(n)
			h.Fill(data, n, 7)
			h.OK("aclrtMemcpy", data, n, p, n, 2)
			require.True(t, bytes.Equal(make([]byte, n), h.Mem()[data:data+n]), "a new allocation must read as zeros")
		})
	}
}
