package sim_test

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// gate queues a host function on s that blocks until the returned func is
// called, and waits until it runs.
// waitable returns an event of device dev that has been recorded and then
// reset: a wait for it is queued and lasts until its next record (a wait
// for an event never recorded is refused, as natively).
func waitable(t *testing.T, b *sim.Backend, dev int32) acl.Event {
	t.Helper()
	e, err := b.CreateEvent(dev)
	require.NoError(t, err)
	s, err := b.CreateStream(dev)
	require.NoError(t, err)
	require.NoError(t, b.RecordEvent(e, s))
	require.NoError(t, b.ResetEvent(e, s))
	require.NoError(t, b.DestroyStream(t.Context(), s))
	return e
}

func gate(t *testing.T, b *sim.Backend, s acl.Stream) func() {
	t.Helper()
	started, open := make(chan struct{}), make(chan struct{})
	var closed atomic.Bool
	release := func() {
		if closed.CompareAndSwap(false, true) {
			close(open)
		}
	}
	t.Cleanup(release)
	require.NoError(t, b.LaunchHostFunc(s, func() error { close(started); <-open; return nil }))
	<-started
	return release
}

func goErr(f func() error) <-chan error {
	c := make(chan error, 1)
	go func() { c <- f() }()
	return c
}

// notYet checks that c stays silent for a while: it cannot fail a correct
// simulator.
func notYet(t *testing.T, c <-chan error, what string) {
	t.Helper()
	select {
	case err := <-c:
		t.Fatalf("%s returned early: %v", what, err)
	case <-time.After(20 * time.Millisecond):
	}
}

func TestQueueDepth(t *testing.T) {
	b := newSim(t, sim.WithQueueDepth(4))
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	release := gate(t, b, s) // one of the four
	for range 3 {
		require.NoError(t, b.MemsetAsync(t.Context(), acl.Device(p), 1, 64, s))
	}
	// Calls without a context are never held back.
	require.NoError(t, b.LaunchHostFunc(s, func() error { return nil }))

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, b.MemsetAsync(ctx, acl.Device(p), 2, 64, s), context.Canceled)
	n, err := b.Pending(s)
	require.NoError(t, err)
	require.Equal(t, 5, n, "the refused call queued nothing")

	blocked := goErr(func() error { return b.MemsetAsync(context.Background(), acl.Device(p), 3, 64, s) })
	notYet(t, blocked, "MemsetAsync on a full stream")
	release()
	require.NoError(t, <-blocked)
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	out := make([]byte, 64)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(p), 64))
	require.Equal(t, byte(3), out[63])

	unbounded := newSim(t, sim.WithQueueDepth(0))
	s, err = unbounded.CreateStream(0)
	require.NoError(t, err)
	p, err = unbounded.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	release = gate(t, unbounded, s)
	for range 2 * sim.DefaultQueueDepth {
		require.NoError(t, unbounded.MemsetAsync(t.Context(), acl.Device(p), 3, 1, s))
	}
	release()
	require.NoError(t, unbounded.SynchronizeStream(t.Context(), s, -1))
}

// TestQueueDepthBindsOnlyCallsWithContext: the five calls that take no
// context cannot wait for room, so they queue past the depth, as the docs
// say; their operations count toward it for the calls that can wait.
func TestQueueDepthBindsOnlyCallsWithContext(t *testing.T) {
	b := newSim(t, sim.WithQueueDepth(1))
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	malloc := func(n uint64) acl.DevPtr {
		p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		return p
	}
	desc, src, dst, slots := malloc(32), malloc(64), malloc(64), malloc(16)
	require.NoError(t, b.SetMemcpyDesc(desc, acl.MemcpyInnerDeviceToDevice, src, dst, 8))
	bases := make([]byte, 16)
	binary.LittleEndian.PutUint64(bases, uint64(dst))
	binary.LittleEndian.PutUint64(bases[8:], uint64(src))
	require.NoError(t, b.Memcpy(t.Context(), acl.Device(slots), acl.Host(bases, 0), 16))
	e := mustEvent(t, b)

	release := gate(t, b, s) // the stream is full
	for _, call := range []struct {
		name string
		f    func() error
	}{
		{"RecordEvent", func() error { return b.RecordEvent(e, s) }},
		{"StreamWaitEvent", func() error { return b.StreamWaitEvent(s, e) }},
		{"LaunchHostFunc", func() error { return b.LaunchHostFunc(s, func() error { return nil }) }},
		{"MemcpyAsyncWithDesc", func() error { return b.MemcpyAsyncWithDesc(desc, acl.MemcpyInnerDeviceToDevice, s) }},
		{"MemcpyAsyncWithOffset", func() error {
			return b.MemcpyAsyncWithOffset(slots, 64, 8, slots+8, 8, 0, acl.MemcpyInnerDeviceToDevice, s)
		}},
	} {
		select {
		case err := <-goErr(call.f):
			require.NoError(t, err, call.name)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s waited for room on a full stream", call.name)
		}
	}
	n, err := b.Pending(s)
	require.NoError(t, err)
	require.Equal(t, 6, n)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, b.MemsetAsync(ctx, acl.Device(dst), 1, 8, s), context.DeadlineExceeded, "a call with a context waits for room")
	release()
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
}

func TestEventCodes(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	e, err := b.CreateEvent(0)
	require.NoError(t, err)
	e2, err := b.CreateEvent(0)
	require.NoError(t, err)

	// Never recorded: not ready, nothing to synchronize, no timestamp.
	st, err := b.QueryEvent(e)
	require.NoError(t, err)
	require.Equal(t, acl.EventRecordedStatusNotReady, st)
	require.NoError(t, b.SynchronizeEvent(t.Context(), e, 1))
	require.ErrorIs(t, b.SynchronizeEvent(t.Context(), e, 0), acl.ErrRTParamInvalid, "timeout 0 is refused, as natively")
	_, err = b.EventElapsedTime(e, e)
	require.ErrorIs(t, err, acl.ErrRTInternal, "no recorder, as natively")

	release := gate(t, b, s)
	require.NoError(t, b.RecordEvent(e, s))
	require.ErrorIs(t, b.SynchronizeEvent(t.Context(), e, 1), acl.ErrRTEventSyncTimeout)
	require.ErrorIs(t, b.SynchronizeEvent(t.Context(), e, 2), acl.ErrRTEventSyncTimeout)
	_, err = b.EventElapsedTime(e, e)
	require.ErrorIs(t, err, acl.ErrRTEventNotComplete)
	release()
	require.NoError(t, b.RecordEvent(e2, s))
	require.NoError(t, b.SynchronizeEvent(t.Context(), e2, -1))
	ms, err := b.EventElapsedTime(e2, e)
	require.NoError(t, err)
	require.LessOrEqual(t, ms, float32(0), "end before start gives a negative time")

	for _, ms := range []int32{-2, -1000} {
		require.ErrorIs(t, b.SynchronizeEvent(t.Context(), e, ms), acl.ErrRTParamInvalid)
		require.ErrorIs(t, b.SynchronizeStream(t.Context(), s, ms), acl.ErrRTParamInvalid)
		require.ErrorIs(t, b.SynchronizeDevice(t.Context(), 0, ms), acl.ErrRTParamInvalid)
	}
}

func TestStreamArguments(t *testing.T) {
	b := newSim(t)
	def, err := b.DefaultStream(1)
	require.NoError(t, err)
	require.ErrorIs(t, b.DestroyStream(t.Context(), def), acl.ErrInvalidParam)
	require.ErrorIs(t, b.LaunchHostFunc(def, nil), acl.ErrInvalidParam)
	require.Equal(t, "sim", b.Name())
	major, minor, patch := b.Version()
	require.Equal(t, [3]int32{acl.VersionMajor, acl.VersionMinor, acl.VersionPatch}, [3]int32{major, minor, patch})
}

func TestHostFuncPanic(t *testing.T) {
	b := newSim(t)
	s, err := b.DefaultStream(0)
	require.NoError(t, err)
	var after atomic.Bool
	require.NoError(t, b.LaunchHostFunc(s, func() error { panic("boom") }))
	require.NoError(t, b.LaunchHostFunc(s, func() error { after.Store(true); return nil }))
	err = b.SynchronizeStream(t.Context(), s, -1)
	require.ErrorIs(t, err, acl.ErrInternal)
	require.Contains(t, err.Error(), "boom")
	require.True(t, after.Load(), "the stream goes on after a failed operation")
}

// TestPageableCopyReturnsPendingError: a pageable copy synchronizes its
// stream first, as natively (api_error.cc:2254-2270): the error of the work
// queued before is its result, and it copies nothing.
func TestPageableCopyReturnsPendingError(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memset(t.Context(), acl.Device(p), 7, 64))
	require.NoError(t, b.LaunchHostFunc(s, func() error { return acl.Errorf(acl.ErrRTParamInvalid, "failed") }))
	out := make([]byte, 64)
	require.ErrorIs(t, b.MemcpyAsync(t.Context(), acl.Host(out, 0), acl.Device(p), 64, s), acl.ErrRTParamInvalid)
	require.Equal(t, make([]byte, 64), out, "the copy must not have run")
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1), "the error was reported once")
	require.NoError(t, b.MemcpyAsync(t.Context(), acl.Host(out, 0), acl.Device(p), 64, s))
	require.Equal(t, byte(7), out[63])
}

// TestAsyncCallsAllocateLittle: an asynchronous copy or memset of pageable
// memory runs before returning and allocates nothing; a queued one
// allocates its operation, once.
func TestAsyncCallsAllocateLittle(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 256, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	pageable, pinned := make([]byte, 256), make([]byte, 256)
	pin, err := b.HostRegister(pinned, acl.HostRegisterMapped)
	require.NoError(t, err)
	ctx := t.Context()
	var marks int
	mark := func() { marks++ }
	for _, tc := range []struct {
		name string
		want float64
		f    func() error
	}{
		{"MemcpyAsync pageable", 0, func() error { return b.MemcpyAsync(ctx, acl.Device(p), acl.Host(pageable, 0), 64, s) }},
		{"Memcpy2DAsync pageable", 0, func() error { return b.Memcpy2DAsync(ctx, acl.Device(p), 64, acl.Host(pageable, 0), 32, 16, 4, s) }},
		{"MemsetAsync pageable", 0, func() error { return b.MemsetAsync(ctx, acl.Host(pageable, 0), 1, 64, s) }},
		{"MemcpyAsync queued", 0, func() error { return b.MemcpyAsync(ctx, acl.Device(p), acl.Host(pinned, pin), 64, s) }},
		{"Memcpy2DAsync queued", 1, func() error { return b.Memcpy2DAsync(ctx, acl.Device(p), 64, acl.Host(pinned, pin), 32, 16, 4, s) }},
		{"MemsetAsync queued", 1, func() error { return b.MemsetAsync(ctx, acl.Device(p), 1, 64, s) }},
		{"OnComplete", 0, func() error { return b.OnComplete(s, mark) }},
	} {
		n := testing.AllocsPerRun(100, func() { check(t, tc.f()) })
		require.NoError(t, b.SynchronizeStream(ctx, s, -1))
		require.LessOrEqual(t, n, tc.want, tc.name)
	}
	require.Equal(t, 101, marks, "OnComplete's marks ran (AllocsPerRun runs one more)")
}

// TestInlineOpsLeaveWorkerAsleep: a small copy queued on an idle stream
// runs in the caller (and a synchronize runs small queued copies itself);
// neither wakes the stream's worker, which would find nothing to do. Each
// such wake-up was a goroutine switch, often an OS thread woken on another
// core, for every copy (goal 3 of the performance issue: a 1 MiB
// asynchronous copy and synchronize paid it against copy()).
func TestInlineOpsLeaveWorkerAsleep(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 1<<20, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	pinned := make([]byte, 1<<20)
	pin, err := b.HostRegister(pinned, acl.HostRegisterMapped)
	require.NoError(t, err)
	ctx := t.Context()
	// The worker runs a host function (never run inline), so it has
	// started and waits for work again.
	require.NoError(t, b.LaunchHostFunc(s, func() error { return nil }))
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	before := sim.Wakes(b, s)
	for _, n := range []uint64{64, 1 << 20} {
		for range 50 {
			require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(pinned, pin), n, s))
			require.NoError(t, b.SynchronizeStream(ctx, s, -1))
			runtime.Gosched() // a worker woken for nothing runs now, and counts
		}
	}
	require.Equal(t, before, sim.Wakes(b, s), "worker wake-ups for copies run inline")
}

// TestSmallAsyncCopy: a small copy between pinned memory on an idle stream
// runs in the call (asyncSmall) and behaves as the queued path does: it is
// queued behind busy work instead, fails without effect on a stopped
// stream (as any small operation run in the call does), gives the general
// path's errors, and counts as an operation of the stream.
func TestSmallAsyncCopy(t *testing.T) {
	b := newSim(t)
	ctx := t.Context()
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 256, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	buf := make([]byte, 256)
	for i := range buf {
		buf[i] = byte(i)
	}
	pin, err := b.HostRegister(buf[:128], acl.HostRegisterMapped)
	require.NoError(t, err)
	ro, err := b.HostRegister(buf[128:], acl.HostRegisterReadOnly)
	require.NoError(t, err)
	back := func() []byte {
		t.Helper()
		out := make([]byte, 64)
		require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), 64))
		return out
	}

	// Idle: done when the call returns, nothing pending.
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(buf[:64], pin), 64, s))
	n, err := b.Pending(s)
	require.NoError(t, err)
	require.Zero(t, n)
	require.True(t, b.Idle(s))
	require.Equal(t, buf[:64], back())

	// Busy: queued behind the gate, run in order.
	release := gate(t, b, s)
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(buf[64:128], pin), 64, s))
	n, err = b.Pending(s)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the gate and the copy")
	require.False(t, b.Idle(s))
	require.Equal(t, buf[:64], back(), "not run before the gate opens")
	release()
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	require.Equal(t, buf[64:128], back())

	// The general path's errors: read-only destination, a range past the
	// registration, a device address past the allocation.
	for name, c := range map[string][2]acl.Buf{
		"read-only dst": {acl.Host(buf[128:192], ro), acl.Device(p)},
		"past the pin":  {acl.Device(p), acl.Host(buf[96:160], pin)},
		"past the end":  {acl.Device(p + 224), acl.Host(buf[:64], pin)},
	} {
		err := b.MemcpyAsync(ctx, c[0], c[1], 64, s)
		require.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "%s: %v", name, err)
	}

	// Stop on failure: after a failed operation the copy has no effect,
	// and the synchronize takes the first error.
	require.NoError(t, b.SetStreamFailureMode(s, acl.StopOnFailure))
	require.NoError(t, b.LaunchHostFunc(s, func() error { return acl.Errorf(acl.ErrRTInternal, "failed") }))
	for { // the worker ran it
		n, err := b.Pending(s)
		require.NoError(t, err)
		if n == 0 {
			break
		}
		runtime.Gosched()
	}
	require.False(t, b.Idle(s), "an error is pending")
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(buf[:64], pin), 64, s))
	require.Equal(t, buf[64:128], back(), "a stopped stream's copy has no effect")
	require.NoError(t, b.MemsetAsync(ctx, acl.Device(p), 0xee, 64, s))
	require.Equal(t, buf[64:128], back(), "nor has a memset it runs in the call (enqueue)")
	require.False(t, b.Idle(s), "still pending: the copy did not succeed")
	require.Equal(t, acl.ErrRTInternal, acl.CodeOf(b.SynchronizeStream(ctx, s, -1)))
	require.True(t, b.Idle(s))
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(buf[:64], pin), 64, s))
	require.Equal(t, buf[:64], back(), "runs again once the error is taken")
}

func TestDestroyStreamCancelsRecords(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	e, err := b.CreateEvent(0)
	require.NoError(t, err)
	waiter, err := b.CreateStream(0)
	require.NoError(t, err)
	release := gate(t, b, s)
	require.NoError(t, b.RecordEvent(e, s))
	require.NoError(t, b.StreamWaitEvent(waiter, e))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := goErr(func() error { return b.DestroyStream(ctx, s) })
	notYet(t, done, "DestroyStream")
	release()
	require.NoError(t, <-done, "the stream is destroyed")
	require.ErrorIs(t, b.SynchronizeEvent(t.Context(), e, -1), acl.ErrRTStreamAbort)
	require.NoError(t, b.SynchronizeEvent(t.Context(), e, -1), "reported once")
	_, err = b.EventElapsedTime(e, e)
	require.ErrorIs(t, err, acl.ErrRTEventTimestampInvalid)
	require.NoError(t, b.SynchronizeStream(t.Context(), waiter, -1), "a wait for a cancelled record ends")
}

func TestDestroyStreamWhileSynchronizing(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	release := gate(t, b, s)
	require.NoError(t, b.LaunchHostFunc(s, func() error { return nil }))
	syncing := goErr(func() error { return b.SynchronizeStream(context.Background(), s, -1) })
	notYet(t, syncing, "SynchronizeStream")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	destroying := goErr(func() error { return b.DestroyStream(ctx, s) })
	notYet(t, destroying, "DestroyStream")
	release()
	require.NoError(t, <-destroying)
	require.ErrorIs(t, <-syncing, acl.ErrRTInvalidHandle, "the work it waited for was cancelled")
}

func TestCloseReleasesWaiters(t *testing.T) {
	b := sim.New()
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	e, err := b.CreateEvent(1)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	host := make([]byte, 64)
	pin, err := b.HostRegister(host, acl.HostRegisterMapped)
	require.NoError(t, err)
	other, err := b.CreateStream(1)
	require.NoError(t, err)
	// s waits for a record that will never run: other's gate never opens
	// before Close.
	open := make(chan struct{})
	require.NoError(t, b.LaunchHostFunc(other, func() error { <-open; return nil }))
	require.NoError(t, b.RecordEvent(e, other))
	require.NoError(t, b.StreamWaitEvent(s, e))
	require.NoError(t, b.MemcpyAsync(t.Context(), acl.Host(host, pin), acl.Device(p), 64, s))

	waits := []<-chan error{
		goErr(func() error { return b.Free(context.Background(), p) }),
		goErr(func() error { return b.HostUnregister(context.Background(), pin) }),
		goErr(func() error { return b.SynchronizeStream(context.Background(), s, -1) }),
		goErr(func() error { return b.SynchronizeDevice(context.Background(), 0, -1) }),
		goErr(func() error { return b.SynchronizeEvent(context.Background(), e, -1) }),
	}
	for _, w := range waits {
		notYet(t, w, "a wait")
	}
	closed := goErr(b.Close)
	close(open)
	require.NoError(t, <-closed)
	for _, w := range waits {
		<-w // whatever they say, they return
	}
	_, err = b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.ErrorIs(t, err, acl.ErrRTContextNull)
	require.NoError(t, b.Close())
}

func TestTimingModel(t *testing.T) {
	const n = 8 << 20
	for _, chip := range []sim.Chip{sim.AtlasA2, sim.Ascend950} {
		b := newSim(t, sim.WithTiming(), sim.WithChip(chip))
		s, err := b.CreateStream(0)
		require.NoError(t, err)
		p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		host := make([]byte, n)
		pin, err := b.HostRegister(host, acl.HostRegisterMapped)
		require.NoError(t, err)
		start, end := mustEvent(t, b), mustEvent(t, b)
		require.NoError(t, b.RecordEvent(start, s))
		require.NoError(t, b.MemcpyAsync(t.Context(), acl.Device(p), acl.Host(host, pin), n, s))
		require.NoError(t, b.RecordEvent(end, s))
		require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
		ms, err := b.EventElapsedTime(start, end)
		require.NoError(t, err)
		bw := map[sim.Chip]float64{sim.AtlasA2: 25e9, sim.Ascend950: 50e9}[chip]
		require.GreaterOrEqual(t, float64(ms), n/bw*1e3, "%v: a copy lasts at least its bytes over the bandwidth", chip)
	}
}

func mustEvent(t *testing.T, b *sim.Backend) acl.Event {
	e, err := b.CreateEvent(0)
	require.NoError(t, err)
	return e
}
