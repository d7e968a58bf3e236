package acltest

import (
	"sync/atomic"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// streamConfigTests cover the optional interfaces that configure streams
// and read the runtime's settings: forced destruction, configured streams,
// failure modes, the run mode and the operator timeout interval.
var streamConfigTests = []test{
	{"DestroyStreamForce", func(e *env) {
		s := e.stream(0)
		p := e.malloc(0, 64)
		release := e.gate(s)
		var later atomic.Bool
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 6, 64, s))
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { later.Store(true); return nil }))
		done := goErr(func() error { return e.b.DestroyStreamForce(s) })
		e.notYet(done, "DestroyStreamForce (it must wait for the running operation)")
		release()
		require.NoError(e, e.recv(done, "DestroyStreamForce"))
		require.NoError(e, e.b.SynchronizeDevice(e.ctx, 0, -1))
		require.False(e, later.Load(), "work not yet started must be cancelled")
		require.Equal(e, make([]byte, 64), e.get(p, 64), "work not yet started must be cancelled")
		_, err := e.b.Pending(s)
		code(e, err, acl.ErrRTInvalidHandle)
		code(e, e.b.DestroyStreamForce(s), acl.ErrRTInvalidHandle)

		// An idle stream goes at once.
		s = e.stream(0)
		require.NoError(e, e.b.DestroyStreamForce(s))
	}},

	{"CreateStreamWithConfig", func(e *env) {
		p := e.malloc(0, 64)
		for _, flags := range []acl.StreamFlag{0, acl.StreamFastLaunch | acl.StreamFastSync, acl.StreamPersistent} {
			s, err := e.b.CreateStreamWithConfig(0, 3, flags)
			require.NoError(e, err, "flags %v", flags)
			require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), byte(flags)+1, 64, s))
			e.sync(s)
			require.Equal(e, filled(64, byte(flags)+1), e.get(p, 64), "flags %v: a working stream", flags)
			require.NoError(e, e.b.DestroyStream(e.ctx, s))
		}
	}},

	{"StopOnFailure", func(e *env) {
		d := e.descEnv() // its descriptor was never set: the copy fails when it runs
		require.NoError(e, e.b.SetStreamFailureMode(d.s, acl.StopOnFailure))
		require.NoError(e, e.b.SetStreamFailureMode(d.s, acl.StopOnFailure), "the same mode again")
		release := e.gate(d.s)
		var later atomic.Bool
		require.NoError(e, e.b.MemcpyAsyncWithDesc(d.desc, inner, d.s))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(d.dst), 7, 64, d.s))
		require.NoError(e, e.b.LaunchHostFunc(d.s, func() error { later.Store(true); return nil }))
		release()
		require.Error(e, e.b.SynchronizeStream(e.ctx, d.s, -1), "the failed copy's error")
		require.False(e, later.Load(), "after a failure, the stream's later work fails without effect")
		require.Equal(e, make([]byte, 256), e.get(d.dst, 256), "after a failure, the stream's later work fails without effect")

		// The synchronize took the error: the stream runs again.
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(d.dst), 7, 64, d.s))
		e.sync(d.s)
		require.Equal(e, filled(64, 7), e.get(d.dst, 64))
		code(e, e.b.SetStreamFailureMode(d.s, acl.ContinueOnFailure), acl.ErrRTFeatureNotSupport)

		// In the default mode, the work after a failure runs.
		s := e.stream(0)
		e.put(d.dst, make([]byte, 64))
		require.NoError(e, e.b.MemcpyAsyncWithDesc(d.desc, inner, s))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(d.dst), 9, 64, s))
		require.Error(e, e.b.SynchronizeStream(e.ctx, s, -1))
		require.Equal(e, filled(64, 9), e.get(d.dst, 64), "ACL_CONTINUE_ON_FAILURE runs the later work")
	}},

	{"RunMode", func(e *env) {
		m, err := e.b.RunMode()
		require.NoError(e, err)
		require.Contains(e, []acl.RunMode{acl.RunModeDevice, acl.RunModeHost}, m)
	}},

	{"OpTimeoutInterval", func(e *env) {
		iv, err := e.b.OpTimeoutInterval()
		require.NoError(e, err)
		require.NotZero(e, iv)
	}},
}
