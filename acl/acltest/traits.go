package acltest

import (
	"bytes"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// traitsTests check that a backend keeps what its acl.Traits promise.
var traitsTests = []test{
	{"TraitsStable", func(e *env) {
		// Callers read Traits once: every call reports the same.
		require.Equal(e, e.b.Traits(), e.b.Traits())
	}},

	{"ZeroesAllocations", func(e *env) {
		if !e.b.Traits().ZeroesAllocations {
			e.Skip("the backend does not promise zeroed allocations")
		}
		const n = 1 << 16
		for range 2 { // the second allocation may reuse the first's memory
			p, err := e.b.Malloc(0, n, acl.MemMallocHugeFirst)
			require.NoError(e, err)
			require.True(e, bytes.Equal(make([]byte, n), e.get(p, n)), "a new allocation reads as zeros")
			e.put(p, filled(n, 0xA5))
			e.free(p)
		}
	}},

	{"PeerAccessImplicit", func(e *env) {
		e.twoDevices()
		if !e.b.Traits().PeerAccessImplicit {
			e.Skip("the backend needs peer access enabled first")
		}
		src, dst := e.malloc(0, 256), e.malloc(1, 256)
		e.put(src, pattern(256, 3))
		require.NoError(e, e.b.Memcpy(e.ctx, acl.Device(dst), acl.Device(src), 256), "a copy between devices with no EnablePeerAccess")
		require.Equal(e, pattern(256, 3), e.get(dst, 256))
	}},

	{"DeviceRegisterer", func(e *env) {
		r := e.b.Traits().DeviceRegisterer
		if r == nil {
			e.Skip("the backend registers host memory for every device alike")
		}
		host := pattern(4096, 5)
		pin, err := r.HostRegisterOn(0, host, acl.HostRegisterMapped)
		require.NoError(e, err)
		require.NotZero(e, pin)
		p, s := e.malloc(0, 4096), e.stream(0)
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(p), acl.Host(host, pin), 4096, s), "a registration for device 0 serves its streams")
		e.sync(s)
		require.Equal(e, pattern(4096, 5), e.get(p, 4096))
		require.NoError(e, e.b.HostUnregister(e.ctx, pin))
		require.NoError(e, e.b.DestroyStream(e.ctx, s))
		e.free(p)
	}},
}
