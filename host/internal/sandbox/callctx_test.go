package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestCallCtx: the instance's reusable call context ends as the contexts
// it replaces did (policy timeout, caller's cancellation, Close), makes
// derived contexts follow it, and ignores callbacks of earlier calls.
func TestCallCtx(t *testing.T) {
	waitDone := func(t *testing.T, ctx context.Context) {
		t.Helper()
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute): // a watchdog, not a bound
			t.Fatal("the context never ended")
		}
	}
	t.Run("policy timeout", func(t *testing.T) {
		var c CallCtx
		c.Arm(context.Background(), time.Millisecond)
		waitDone(t, &c)
		require.ErrorIs(t, c.Err(), context.DeadlineExceeded)
		require.ErrorIs(t, c.Cause(), ErrPolicyTimeout, "the policy's timeout")
		c.End()
		c.Arm(context.Background(), time.Duration(-1))
		require.NoError(t, c.Err(), "the next call starts afresh")
		_, ok := c.Deadline()
		require.False(t, ok)
		c.End()
	})
	t.Run("caller's deadline", func(t *testing.T) {
		var c CallCtx
		parent, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		c.Arm(parent, time.Hour)
		dl, _ := c.Deadline()
		pdl, _ := parent.Deadline()
		require.Equal(t, pdl, dl, "the earlier deadline")
		waitDone(t, &c)
		require.NotErrorIs(t, c.Cause(), ErrPolicyTimeout, "not the policy's timeout")
		require.ErrorIs(t, c.Err(), context.DeadlineExceeded)
		c.End()
	})
	t.Run("cancel and derived contexts", func(t *testing.T) {
		var c CallCtx
		c.Arm(context.Background(), time.Hour)
		child, stop := context.WithTimeout(&c, time.Hour)
		defer stop()
		after := make(chan struct{})
		context.AfterFunc(&c, func() { close(after) })
		c.Cancel(context.Canceled, context.Canceled)
		waitDone(t, child)
		<-after
		require.NotErrorIs(t, c.Cause(), ErrPolicyTimeout, "not the policy's timeout")
		c.End()
	})
	t.Run("a leaked derived context ends with the call", func(t *testing.T) {
		var c CallCtx
		c.Arm(context.Background(), time.Duration(-1))
		child, stop := context.WithCancel(&c)
		defer stop()
		c.End()
		waitDone(t, child)
	})
	t.Run("stale callbacks", func(t *testing.T) {
		var c CallCtx
		parent, cancel := context.WithCancel(context.Background())
		c.Arm(parent, time.Hour)
		c.End()
		c.Arm(context.Background(), time.Hour)
		c.expire()           // an earlier call's timer, run late
		c.parentDone(parent) // an earlier call's caller, done late
		cancel()
		require.NoError(t, c.Err())
		c.End()
		c.Cancel(context.Canceled, context.Canceled) // between calls: nothing
		require.NoError(t, c.Err())
	})
	t.Run("done is made when asked for", func(t *testing.T) {
		var c CallCtx
		require.Nil(t, c.Done(), "never armed")
		c.Arm(context.Background(), time.Duration(-1))
		require.Nil(t, c.done, "a call nobody waits on makes no channel")
		c.End()
		c.Arm(context.Background(), time.Duration(-1))
		c.Cancel(context.Canceled, context.Canceled) // before anyone asked
		waitDone(t, &c)
		c.End()
		c.Arm(context.Background(), time.Duration(-1))
		done := c.Done()
		require.NotNil(t, done)
		select {
		case <-done:
			t.Fatal("the next call's context is done")
		default:
		}
		require.Equal(t, done, c.Done(), "one channel per call")
		c.Cancel(context.Canceled, context.Canceled)
		<-done // closed by the cancel
		c.End()
	})
	t.Run("a call allocates nothing of its own", func(t *testing.T) {
		f := func() {}
		var c *CallCtx
		n := testing.AllocsPerRun(100, func() {
			c = &CallCtx{} // a new instance's, as each request's in serve
			c.Arm(context.Background(), time.Duration(-1))
			c.Watch(&f) // the engine's watcher
			require.True(t, c.Unwatch(&f))
			c.End()
		})
		require.Equal(t, 1.0, n, "the CallCtx alone: no done channel, no slice of watchers")
	})
	t.Run("a timeout makes no timer of its own", func(t *testing.T) {
		var c *CallCtx
		n := testing.AllocsPerRun(100, func() {
			c = &CallCtx{} // a new instance's, as each request's in serve
			c.Arm(context.Background(), time.Hour)
			c.End()
			c.Release()
		})
		most := 1.0 // the CallCtx alone: the timer is a released one's
		if testsupport.Race {
			most = 2 // the race detector's pools drop a quarter of what is put back
		}
		require.LessOrEqual(t, n, most)
		c = &CallCtx{}
		n = testing.AllocsPerRun(100, func() { // a kept instance's calls
			c.Arm(context.Background(), time.Hour)
			c.End()
		})
		require.Zero(t, n, "a call context keeps its timer from call to call")
		c.Release()
	})
	t.Run("released timers end only their own call", func(t *testing.T) {
		var a, b CallCtx
		for range 100 {
			a.Arm(context.Background(), time.Hour)
			a.End()
			a.Release() // its timer goes back, stopped: b may take it
			b.Arm(context.Background(), time.Millisecond)
			a.Arm(context.Background(), time.Duration(-1))
			waitDone(t, &b)
			require.ErrorIs(t, b.Cause(), ErrPolicyTimeout)
			require.Equal(t, "the policy's timeout of 1ms expired", b.Cause().Error())
			b.End()
			b.Release()
			require.NoError(t, a.Err(), "a's call has no timeout")
			a.End()
			a.Release()
		}
		a, b = CallCtx{}, CallCtx{}
		a.Arm(context.Background(), time.Millisecond)
		waitDone(t, &a)
		a.End()
		a.Release()
		require.True(t, a.timerRan, "a timer whose callback started is not given back")
		b.Arm(context.Background(), time.Hour)
		time.Sleep(2 * time.Millisecond)
		require.NoError(t, b.Err())
		b.End()
		b.Release()
	})
	t.Run("watchers past the first ones", func(t *testing.T) {
		var c CallCtx
		c.Arm(context.Background(), time.Duration(-1))
		ran := make(chan int, 3)
		fs := make([]func(), 3)
		for k := range fs {
			fs[k] = func() { ran <- k }
			c.Watch(&fs[k])
		}
		require.True(t, c.Unwatch(&fs[1]))
		c.Cancel(context.Canceled, context.Canceled)
		got := []int{<-ran, <-ran}
		require.ElementsMatch(t, []int{0, 2}, got, "the watchers still watching ran")
		c.End()
		c.Arm(context.Background(), time.Duration(-1))
		c.Watch(&fs[1])
		require.True(t, c.Unwatch(&fs[1]), "the next call watches afresh")
		c.End()
		require.Empty(t, ran)
	})
	t.Run("values", func(t *testing.T) {
		type key struct{}
		var c CallCtx
		c.Arm(context.WithValue(context.Background(), key{}, 7), time.Duration(-1))
		require.Equal(t, 7, c.Value(key{}))
		c.End()
	})
}
