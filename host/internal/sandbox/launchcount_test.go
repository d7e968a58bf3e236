package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLaunchTimesSampled: of the small launches of a quick kernel, the
// first timeFirst are timed, then one in timeEvery, whether they ran in
// their call or on a stream's worker; every other launch (not quick, or
// with metrics observing each) is timed and not sampled.
func TestLaunchTimesSampled(t *testing.T) {
	for _, inCall := range []bool{false, true} {
		var lc launchCount
		for _, c := range []struct{ quick, observed bool }{{false, false}, {false, true}, {true, true}} {
			for range 200 {
				sampled, timed := lc.times(c.quick, c.observed, inCall)
				require.False(t, sampled, "%+v", c)
				require.True(t, timed, "%+v", c)
			}
		}
		var timed []uint64
		for n := uint64(1); n <= 1000; n++ {
			sampled, t1 := lc.times(true, false, inCall)
			require.True(t, sampled)
			if t1 {
				timed = append(timed, n)
			}
		}
		require.Len(t, timed, timeFirst+(1000/timeEvery-timeFirst/timeEvery), "in call: %v", inCall) // 64 + 14
		require.Equal(t, uint64(timeFirst), timed[timeFirst-1])
		next := uint64(timeFirst/timeEvery+1) * timeEvery // the first multiple of timeEvery past timeFirst
		require.Equal(t, []uint64{next, next + timeEvery, next + 2*timeEvery}, timed[timeFirst:timeFirst+3])
		require.Equal(t, uint64(1000), lc.launches(), "sampled launches counted, in call: %v", inCall)
	}
}

// TestLaunchComputeEstimate: the launch count is exact; the time is that
// of the launches timed because they had to be plus, for the sampled
// ones, their count times the mean of those timed; exact while every
// sampled launch was timed.
func TestLaunchComputeEstimate(t *testing.T) {
	s := &Session{}
	var lc launchCount
	inCall := false
	run := func(quick bool, d time.Duration, err error) {
		inCall = !inCall // half in their call, half on a worker
		sampled, timed := lc.times(quick, false, inCall)
		if !timed {
			d = 0 // not measured
		}
		s.kernelRanSampled(&lc, "k", sampled, timed, d, err)
	}
	for range 5 {
		run(false, 100, nil)
	}
	for range timeFirst {
		run(true, 10, nil)
	}
	require.Equal(t, uint64(5+timeFirst), lc.launches())
	require.Equal(t, time.Duration(500+10*timeFirst), lc.compute(), "all timed: exact")
	for range 1000 - timeFirst {
		run(true, 10, context.Canceled)
	}
	require.Equal(t, uint64(1005), lc.launches())
	require.Equal(t, uint64(1000-timeFirst), lc.failed.Load(), "failures counted whether timed or not")
	require.Equal(t, uint64(2*(timeFirst+500/timeEvery-timeFirst/timeEvery)), lc.sampledTimed.Load(), "of each count's 500, the first, then one in timeEvery")
	require.Equal(t, time.Duration(500+10*1000), lc.compute(), "1000 sampled launches of 10 ns each")
	s.kernelRan(&lc, "k", 0, context.Canceled) // refused when it executed: did not run
	require.Equal(t, uint64(1006), lc.launches())
	require.Equal(t, time.Duration(500+10*1000), lc.compute())
}

// TestLaunchBoundsDeadline: a launch queued by a call is bounded by the
// call's deadline, read from the instance's call context without its lock
// or from any other context as it says.
func TestLaunchBoundsDeadline(t *testing.T) {
	s := &Session{}
	var cc CallCtx
	cc.Arm(context.Background(), time.Hour)
	defer cc.End()
	want, ok := cc.Deadline()
	require.True(t, ok)
	c := &Call{ctx: &cc, s: s}
	require.Equal(t, want, c.bounds().deadline)

	cc2 := CallCtx{}
	cc2.Arm(context.Background(), -1) // no policy timeout
	defer cc2.End()
	c.ctx = &cc2
	require.True(t, c.bounds().deadline.IsZero(), "no timeout: no deadline")

	ctx, cancel := context.WithDeadline(context.Background(), want.Add(time.Minute))
	defer cancel()
	c.ctx = ctx
	require.Equal(t, want.Add(time.Minute), c.bounds().deadline)
}

// TestLaunchRecordHandOff: the session's own launch record serves every
// launch that ran in its call, and is never handed to a launch while a
// backend holds it for a queued one: that launch gets another record,
// and the own one serves again once the queued launch's Done gave it
// back. A launch refused before it was queued leaves it free.
func TestLaunchRecordHandOff(t *testing.T) {
	s := &Session{}
	own := s.takeLaunch()
	require.True(t, own.own)
	inCall := func(kl *kernelLaunch) { // what the simulator does with a quick launch on an idle stream
		kl.l.InCall = true
		kl.recycle()
	}
	inCall(own)
	require.Same(t, own, s.takeLaunch(), "free again once its launch ran in the call")
	own.unused() // refused before it was queued
	require.Same(t, own, s.takeLaunch())
	own.l.InCall = false // queued: the backend holds it (queueKernel marks it)
	own.queued = true
	other := s.takeLaunch()
	require.NotSame(t, own, other, "held by a queued launch")
	require.False(t, other.own)
	other.recycle()
	require.NotSame(t, own, s.takeLaunch(), "still held")
	own.recycle() // the queued launch's Done, on the stream's worker
	require.Same(t, own, s.takeLaunch(), "given back")
	require.False(t, own.queued)
	require.False(t, own.back.Load())
}
