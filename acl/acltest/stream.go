package acltest

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

var streamTests = []test{
	{"BadStreamHandles", func(e *env) {
		ev := e.event(0)
		p := e.malloc(0, 256)
		slot := e.malloc(0, 8)
		e.put(slot, le64(uint64(p)))
		host, pin := e.pinned(64)
		destroyed := e.stream(0)
		require.NoError(e, e.b.DestroyStream(e.ctx, destroyed))
		handles := map[string]acl.Stream{
			"destroyed":      destroyed,
			"never issued":   acl.Stream(1 << 40),
			"an event's":     acl.Stream(ev),
			"max":            ^acl.Stream(0),
			"destroyed + 1k": destroyed + 1000,
			"zero":           0,
		}
		calls := map[string]func(s acl.Stream) error{
			"SynchronizeStream": func(s acl.Stream) error { return e.b.SynchronizeStream(e.ctx, s, -1) },
			"StreamQuery":       func(s acl.Stream) error { _, err := e.b.StreamQuery(s); return err },
			"Pending":           func(s acl.Stream) error { _, err := e.b.Pending(s); return err },
			"LaunchHostFunc":    func(s acl.Stream) error { return e.b.LaunchHostFunc(s, func() error { return nil }) },
			"DestroyStream":     func(s acl.Stream) error { return e.b.DestroyStream(e.ctx, s) },
			"RecordEvent":       func(s acl.Stream) error { return e.b.RecordEvent(ev, s) },
			"StreamWaitEvent":   func(s acl.Stream) error { return e.b.StreamWaitEvent(s, ev) },
			"MemcpyAsync": func(s acl.Stream) error {
				return e.b.MemcpyAsync(e.ctx, acl.Device(p), acl.Host(host, pin), 64, s)
			},
			"Memcpy2DAsync": func(s acl.Stream) error {
				return e.b.Memcpy2DAsync(e.ctx, acl.Device(p), 8, acl.Host(host, pin), 8, 8, 8, s)
			},
			"MemcpyBatchAsync": func(s acl.Stream) error {
				return e.b.MemcpyBatchAsync(e.ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(host, pin), N: 64}}, s)
			},
			"MemsetAsync": func(s acl.Stream) error { return e.b.MemsetAsync(e.ctx, acl.Device(p), 1, 64, s) },
			"MemcpyAsyncWithDesc": func(s acl.Stream) error {
				return e.b.MemcpyAsyncWithDesc(p, acl.MemcpyInnerDeviceToDevice, s)
			},
			"MemcpyAsyncWithOffset": func(s acl.Stream) error {
				return e.b.MemcpyAsyncWithOffset(slot, 256, 0, slot, 64, 128, acl.MemcpyInnerDeviceToDevice, s)
			},
		}
		for hn, h := range handles {
			for cn, call := range calls {
				code(e, call(h), acl.ErrRTInvalidHandle, "%s on a %s stream", cn, hn)
			}
		}
		require.Equal(e, make([]byte, 256), e.get(p, 256), "calls on bad streams must not write")
	}},

	{"DefaultStreams", func(e *env) {
		seen := map[acl.Stream]bool{}
		for dev := range int32(e.b.DeviceCount()) {
			s, err := e.b.DefaultStream(dev)
			require.NoError(e, err)
			require.NotZero(e, s)
			require.False(e, seen[s], "default streams must differ between devices")
			seen[s] = true
			again, err := e.b.DefaultStream(dev)
			require.NoError(e, err)
			require.Equal(e, s, again)
			require.Error(e, e.b.DestroyStream(e.ctx, s), "a default stream cannot be destroyed")

			p, err := e.b.Malloc(dev, 64, acl.MemMallocHugeFirst)
			require.NoError(e, err)
			require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 3, 64, s))
			e.sync(s)
			require.Equal(e, filled(64, 3), e.get(p, 64))
		}
	}},

	{"HostFuncOrder", func(e *env) {
		const streams, funcs = 3, 200
		var got [streams][]int
		ss := make([]acl.Stream, streams)
		for i := range ss {
			ss[i] = e.stream(0)
		}
		for k := range funcs {
			for i, s := range ss {
				require.NoError(e, e.b.LaunchHostFunc(s, func() error { got[i] = append(got[i], k); return nil }))
			}
		}
		for _, s := range ss {
			e.sync(s)
		}
		for i := range got {
			require.Len(e, got[i], funcs)
			for k, v := range got[i] {
				require.Equal(e, k, v, "stream %d ran its functions out of order", i)
			}
		}
	}},

	{"PendingAndQuery", func(e *env) {
		s := e.stream(0)
		st, err := e.b.StreamQuery(s)
		require.NoError(e, err)
		require.Equal(e, acl.StreamStatusComplete, st)
		release := e.gate(s)
		p := e.malloc(0, 64)
		for range 3 {
			require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 1, 64, s))
		}
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Equal(e, 4, n, "the running gate and three queued operations")
		st, err = e.b.StreamQuery(s)
		require.NoError(e, err)
		require.Equal(e, acl.StreamStatusNotReady, st)
		release()
		e.sync(s)
		n, err = e.b.Pending(s)
		require.NoError(e, err)
		require.Zero(e, n)
		st, err = e.b.StreamQuery(s)
		require.NoError(e, err)
		require.Equal(e, acl.StreamStatusComplete, st)
	}},

	{"StreamsAreIndependent", func(e *env) {
		s1, s2 := e.stream(0), e.stream(0)
		release := e.gate(s1)
		defer release()
		p := e.malloc(0, 64)
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 8, 64, s2))
		ctx, cancel := context.WithTimeout(e.ctx, hangWait)
		defer cancel()
		require.NoError(e, e.b.SynchronizeStream(ctx, s2, -1), "a stream must not wait for another one")
		require.Equal(e, filled(64, 8), e.get(p, 64))
	}},

	{"AsyncErrors", func(e *env) {
		s := e.stream(0)
		fail := acl.Errorf(acl.ErrRTParamInvalid, "host function failed on purpose")
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { return fail }))
		code(e, e.b.SynchronizeStream(e.ctx, s, -1), acl.ErrRTParamInvalid)
		require.NoError(e, e.b.SynchronizeStream(e.ctx, s, -1), "an error is reported once")

		// An event recorded after the failure reports it too; the device
		// synchronize reports it and clears it for the stream.
		ev := e.event(0)
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { return fail }))
		require.NoError(e, e.b.RecordEvent(ev, s))
		code(e, e.b.SynchronizeEvent(e.ctx, ev, -1), acl.ErrRTParamInvalid)
		code(e, e.b.SynchronizeDevice(e.ctx, 0, -1), acl.ErrRTParamInvalid)
		require.NoError(e, e.b.SynchronizeDevice(e.ctx, 0, -1))
		require.NoError(e, e.b.SynchronizeStream(e.ctx, s, -1))

		// An event recorded before the failure does not.
		require.NoError(e, e.b.RecordEvent(ev, s))
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { return fail }))
		require.NoError(e, e.b.SynchronizeEvent(e.ctx, ev, -1))
		code(e, e.b.SynchronizeStream(e.ctx, s, -1), acl.ErrRTParamInvalid)
	}},

	{"SyncTimeouts", func(e *env) {
		s := e.stream(0)
		release := e.gate(s)
		for _, ms := range []int32{1, 5} {
			code(e, e.b.SynchronizeStream(e.ctx, s, ms), acl.ErrRTStreamSyncTimeout, "stream, %d ms", ms)
			code(e, e.b.SynchronizeDevice(e.ctx, 0, ms), acl.ErrRTStreamSyncTimeout, "device, %d ms", ms)
		}
		// Natively a timeout of 0 is refused (api_error.cc:1442-1444,
		// 3479-3481), busy stream or not; below -1 too.
		for _, ms := range []int32{0, -2} {
			code(e, e.b.SynchronizeStream(e.ctx, s, ms), acl.ErrRTParamInvalid, "stream, %d ms", ms)
			code(e, e.b.SynchronizeDevice(e.ctx, 0, ms), acl.ErrRTParamInvalid, "device, %d ms", ms)
		}
		release()
		require.NoError(e, e.b.SynchronizeStream(e.ctx, s, hangWaitMs))
		code(e, e.b.SynchronizeStream(e.ctx, s, 0), acl.ErrRTParamInvalid, "idle stream, 0 ms")
		code(e, e.b.SynchronizeDevice(e.ctx, 0, 0), acl.ErrRTParamInvalid, "idle device, 0 ms")
		require.NoError(e, e.b.SynchronizeDevice(e.ctx, 0, 1))
	}},

	{"SyncContext", func(e *env) {
		s := e.stream(0)
		release := e.gate(s)
		done, cancel := context.WithCancel(e.ctx)
		cancel()
		require.ErrorIs(e, e.b.SynchronizeStream(done, s, -1), context.Canceled)
		require.ErrorIs(e, e.b.SynchronizeDevice(done, 0, -1), context.Canceled)
		late, cancel := context.WithTimeout(e.ctx, 0)
		defer cancel()
		require.ErrorIs(e, e.b.SynchronizeStream(late, s, -1), context.DeadlineExceeded)

		ctx, cancel := context.WithCancel(e.ctx)
		waits := []<-chan error{
			goErr(func() error { return e.b.SynchronizeStream(ctx, s, -1) }),
			goErr(func() error { return e.b.SynchronizeDevice(ctx, 0, -1) }),
		}
		for _, w := range waits {
			e.notYet(w, "a synchronize")
		}
		cancel()
		for _, w := range waits {
			require.ErrorIs(e, e.recv(w, "a cancelled synchronize"), context.Canceled)
		}
		release()
		e.sync(s)
	}},

	{"SynchronizeDevice", func(e *env) {
		def, err := e.b.DefaultStream(0)
		require.NoError(e, err)
		ss := []acl.Stream{def, e.stream(0), e.stream(0)}
		release := e.gate(ss[1])
		p := e.malloc(0, 3)
		for i, s := range ss {
			require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p+acl.DevPtr(i)), byte(i+1), 1, s))
		}
		done := goErr(func() error { return e.b.SynchronizeDevice(context.Background(), 0, -1) })
		e.notYet(done, "SynchronizeDevice")
		release()
		require.NoError(e, e.recv(done, "SynchronizeDevice"))
		for _, s := range ss {
			n, err := e.b.Pending(s)
			require.NoError(e, err)
			require.Zero(e, n)
		}
		require.Equal(e, []byte{1, 2, 3}, e.get(p, 3))
	}},

	{"DestroyStreamWaits", func(e *env) {
		s := e.stream(0)
		p := e.malloc(0, 64)
		release := e.gate(s)
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 6, 64, s))
		done := goErr(func() error { return e.b.DestroyStream(context.Background(), s) })
		e.notYet(done, "DestroyStream")
		release()
		require.NoError(e, e.recv(done, "DestroyStream"))
		require.Equal(e, filled(64, 6), e.get(p, 64), "queued work must run before DestroyStream returns")
		_, err := e.b.Pending(s)
		code(e, err, acl.ErrRTInvalidHandle)
	}},

	{"OnCompleteMarks", func(e *env) {
		p := e.malloc(0, 64)
		s := e.stream(0)
		release := e.gate(s)
		var ran atomic.Int32
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 6, 64, s))
		require.NoError(e, e.b.OnComplete(s, func() { ran.Add(1) }))
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Equal(e, 2, n, "the gate and the memset: a mark is not an operation")
		require.Zero(e, ran.Load(), "a mark runs after the work before it")
		release()
		e.sync(s)
		require.Equal(e, int32(1), ran.Load(), "a synchronize that returned has seen the mark run")

		// Dropped, never run, with cancelled work.
		release = e.gate(s)
		require.NoError(e, e.b.OnComplete(s, func() { ran.Add(10) }))
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		done := goErr(func() error { return e.b.DestroyStream(ctx, s) })
		e.notYet(done, "DestroyStream (it must wait for the running operation)")
		release()
		require.NoError(e, e.recv(done, "DestroyStream"))
		require.NoError(e, e.b.SynchronizeDevice(e.ctx, 0, -1))
		require.Equal(e, int32(1), ran.Load(), "the mark behind cancelled work never runs")
	}},

	{"DestroyStreamCancels", func(e *env) {
		s := e.stream(0)
		p := e.malloc(0, 64)
		started, open := make(chan struct{}), make(chan struct{})
		var finished, later atomic.Bool
		require.NoError(e, e.b.LaunchHostFunc(s, func() error {
			close(started)
			<-open
			finished.Store(true)
			return nil
		}))
		<-started
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 6, 64, s))
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { later.Store(true); return nil }))
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		done := goErr(func() error { return e.b.DestroyStream(ctx, s) })
		// The running operation is released only once the destruction has
		// begun (the handle is no longer live), not after a guessed delay
		// that a loaded machine may exceed before DestroyStream runs.
		require.Eventually(e, func() bool {
			_, err := e.b.Pending(s)
			return errors.Is(err, acl.ErrRTInvalidHandle)
		}, hangWait, time.Millisecond, "DestroyStream did not begin")
		e.notYet(done, "DestroyStream (it must wait for the running operation)")
		close(open)
		require.NoError(e, e.recv(done, "DestroyStream"), "the stream is destroyed, cancelled work or not")
		require.True(e, finished.Load(), "the running operation must be complete when DestroyStream returns")
		require.NoError(e, e.b.SynchronizeDevice(e.ctx, 0, -1))
		require.False(e, later.Load(), "work not yet started must be cancelled")
		require.Equal(e, make([]byte, 64), e.get(p, 64), "work not yet started must be cancelled")
		_, err := e.b.Pending(s)
		code(e, err, acl.ErrRTInvalidHandle)
	}},
}

const hangWaitMs = int32(hangWait / 1e6)

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

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

	{"DestroyStreamForceCancelsRecord", func(e *env) {
		// A record that a forced destruction cancels still ends its
		// event: a synchronize returns (the stream's work was aborted)
		// instead of waiting for a record that will never run, and the
		// event has no timestamp.
		s := e.stream(0)
		ev := e.event(0)
		release := e.gate(s)
		require.NoError(e, e.b.RecordEvent(ev, s))
		done := goErr(func() error { return e.b.DestroyStreamForce(s) })
		e.notYet(done, "DestroyStreamForce (it must wait for the running operation)")
		release()
		require.NoError(e, e.recv(done, "DestroyStreamForce"))
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel() // a hang ends with the test
		code(e, e.recv(goErr(func() error { return e.b.SynchronizeEvent(ctx, ev, -1) }), "SynchronizeEvent of the cancelled record"), acl.ErrRTStreamAbort)
		st, err := e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusComplete, st, "the cancelled record ended")
		_, err = e.b.EventTimestamp(ev)
		if !e.lacks(err, "aclrtEventGetTimestamp") {
			code(e, err, acl.ErrRTEventTimestampInvalid, "a cancelled record has no timestamp")
		}
		require.NoError(e, e.recv(goErr(func() error { return e.b.SynchronizeEvent(ctx, ev, -1) }), "SynchronizeEvent again"), "the abort is reported once")
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
