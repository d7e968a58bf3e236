package cann

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestStreamZero checks that every method taking a stream refuses stream 0,
// which is never a stream (acl.Stream), with 107017 and no native call,
// instead of dereferencing a stream it does not have.
func TestStreamZero(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, full)
	p, err := b.Malloc(0, 256, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	ev, err := b.CreateEvent(0)
	require.NoError(t, err)
	pinned := mmapped(t, 4096)
	pin, err := b.HostRegister(pinned, acl.HostRegisterMapped)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.HostUnregister(ctx, pin)) })
	host := make([]byte, 64)
	s.logReset()

	calls := map[string]func() error{
		"Pending":           func() error { _, err := b.Pending(0); return err },
		"StreamQuery":       func() error { _, err := b.StreamQuery(0); return err },
		"SynchronizeStream": func() error { return b.SynchronizeStream(ctx, 0, -1) },
		"DestroyStream":     func() error { return b.DestroyStream(ctx, 0) },
		"LaunchHostFunc":    func() error { return b.LaunchHostFunc(0, func() error { return nil }) },
		"RecordEvent":       func() error { return b.RecordEvent(ev, 0) },
		"StreamWaitEvent":   func() error { return b.StreamWaitEvent(0, ev) },
		"MemcpyAsync pinned": func() error {
			return b.MemcpyAsync(ctx, acl.Device(p), acl.Host(pinned[:64], pin), 64, 0)
		},
		"MemcpyAsync pageable": func() error { return b.MemcpyAsync(ctx, acl.Device(p), acl.Host(host, 0), 64, 0) },
		"MemsetAsync pinned":   func() error { return b.MemsetAsync(ctx, acl.Device(p), 1, 64, 0) },
		"MemsetAsync pageable": func() error { return b.MemsetAsync(ctx, acl.Host(host, 0), 1, 64, 0) },
		"Memcpy2DAsync": func() error {
			return b.Memcpy2DAsync(ctx, acl.Device(p), 8, acl.Host(pinned[:64], pin), 8, 8, 8, 0)
		},
		"Memcpy2DAsync pageable": func() error {
			return b.Memcpy2DAsync(ctx, acl.Device(p), 8, acl.Host(host, 0), 8, 8, 8, 0)
		},
		"MemcpyBatchAsync": func() error {
			return b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(pinned[:64], pin), N: 64}}, 0)
		},
		"MemcpyBatchAsync pageable": func() error {
			return b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(host, 0), N: 64}}, 0)
		},
		"MemcpyBatchAsync all sizes 0": func() error {
			return b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Device(p + 64), N: 0}}, 0)
		},
		"MemcpyBatchAsync empty": func() error { return b.MemcpyBatchAsync(ctx, nil, 0) },
		"MemcpyAsyncWithDesc": func() error {
			return b.MemcpyAsyncWithDesc(p, acl.MemcpyInnerDeviceToDevice, 0)
		},
		"MemcpyAsyncWithOffset": func() error {
			return b.MemcpyAsyncWithOffset(p, 64, 0, p+8, 8, 0, acl.MemcpyInnerDeviceToDevice, 0)
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			s.logReset()
			var err error
			require.NotPanics(t, func() { err = call() })
			code(t, err, acl.ErrRTInvalidHandle)
			require.Empty(t, s.calls("aclrtMemcpy", "aclrtMemcpyAsync", "aclrtMemsetAsync", "aclrtMemcpy2d", "aclrtMemcpy2dAsync",
				"aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsyncV2", "aclrtRecordEvent", "aclrtStreamWaitEvent", "aclrtLaunchCallback",
				"aclrtMemcpyAsyncWithDesc", "aclrtMemcpyAsyncWithOffset", "aclrtSynchronizeStreamWithTimeout", "aclrtStreamQuery"),
				"stream 0 must reach no native call")
		})
	}
	require.Equal(t, make([]byte, 64), host, "nothing may write the host buffer")
}

// TestPinRangeAbove checks that host memory past the end of the range its
// Buf names as its pin is refused (107000, as acl/sim does), without a
// native call: the range check must not wrap around and let unregistered
// memory reach an asynchronous copy.
func TestPinRangeAbove(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, full)
	mem := mmapped(t, 3*4096)
	pin, err := b.HostRegister(mem[:4096], acl.HostRegisterMapped)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.HostUnregister(ctx, pin)) })
	p, err := b.Malloc(0, 256, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	s.logReset()

	for name, outside := range map[string][]byte{
		"next page":         mem[2*4096+100 : 2*4096+164],
		"straddling end":    mem[4096-8 : 4096+56],
		"just past the end": mem[4096 : 4096+64],
	} {
		t.Run(name, func(t *testing.T) {
			s.logReset()
			buf := acl.Host(outside, pin)
			code(t, b.MemcpyAsync(ctx, acl.Device(p), buf, 64, st), acl.ErrRTParamInvalid)
			code(t, b.MemcpyAsync(ctx, buf, acl.Device(p), 64, st), acl.ErrRTParamInvalid)
			code(t, b.MemsetAsync(ctx, buf, 1, 64, st), acl.ErrRTParamInvalid)
			code(t, b.Memcpy2DAsync(ctx, acl.Device(p), 8, buf, 8, 8, 8, st), acl.ErrRTParamInvalid)
			code(t, b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(p), Src: buf, N: 64}}, st), acl.ErrRTParamInvalid)
			code(t, b.Memcpy(acl.Device(p), buf, 64), acl.ErrRTParamInvalid)
			require.Empty(t, s.calls(), "no native call")
		})
	}
	// The last bytes of the range are inside it.
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(mem[4096-64:4096], pin), 64, st))
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
}
