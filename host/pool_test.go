package host

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// poolWAT: upper is the bytes export of bytesWAT; who calls env.who,
// which records the calling session; trap traps.
const poolWAT = `(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (import "env" "who" (func $who (result i32)))
  (memory (export "memory") 2)
  (global $calls (mut i32) (i32.const 0))
  (func (export "upper") (result i32)
    (local $n i32) (local $r i32)
    (drop (call $who))
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (local.set $n (call $len))
    (local.set $r (call $read (i32.const 0x1000) (local.get $n)))
    (if (local.get $r) (then (return (local.get $r))))
    (call $write (i32.const 0x1000) (local.get $n)))
  (func (export "calls") (result i32) (global.get $calls))
  (func (export "trap") unreachable)
)`

type poolRig struct {
	mu       sync.Mutex
	sessions map[*Session]int
	live     int // calls inside env.who now
	maxLive  int
	block    chan struct{} // when not nil, env.who waits on it
	entered  chan struct{}
}

func newPoolPlugin(t *testing.T, rig *poolRig) *Plugin {
	t.Helper()
	ctx := context.Background()
	who := HostFunc{Module: "env", Name: "who", Fn: func(c *HostCall) (int32, error) {
		rig.mu.Lock()
		rig.sessions[c.Session()]++
		rig.live++
		rig.maxLive = max(rig.maxLive, rig.live)
		block := rig.block
		rig.mu.Unlock()
		if block != nil {
			rig.entered <- struct{}{}
			<-block
		}
		rig.mu.Lock()
		rig.live--
		rig.mu.Unlock()
		return 0, nil
	}}
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine), WithHostFuncs(who))...)
	require.NoError(t, err)
	pl, err := rt.Load(ctx, testsupport.WAT(t, poolWAT), Policy{MemoryPages: 2})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	return pl
}

func TestPool(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh=%v", fresh), func(t *testing.T) {
			ctx := context.Background()
			rig := &poolRig{sessions: map[*Session]int{}}
			pl := newPoolPlugin(t, rig)
			pool, err := pl.NewPool(PoolConfig{Size: 4, Fresh: fresh})
			require.NoError(t, err)
			const workers, each = 64, 4
			var wg sync.WaitGroup
			errs := make(chan error, workers*each)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range each {
						in := fmt.Appendf(nil, "worker %d call %d", w, k)
						out, err := pool.CallBytes(ctx, "upper", in)
						if err == nil && string(out) != string(in) {
							err = fmt.Errorf("got %q for %q", out, in)
						}
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			require.LessOrEqual(t, rig.maxLive, 4, "no more than Size calls at once")
			if fresh {
				require.Len(t, rig.sessions, workers*each, "a new instance per call")
			} else {
				require.LessOrEqual(t, len(rig.sessions), 4, "at most Size instances")
				// Reused instances keep their state: the calls add up.
				total := uint64(0)
				for _, i := range pool.idle { // all idle now: no call runs
					res, err := i.Call(ctx, "calls")
					require.NoError(t, err)
					total += res[0]
				}
				require.Equal(t, uint64(workers*each), total)
			}
			require.NoError(t, pool.Close(ctx))
			_, err = pool.CallBytes(ctx, "upper", nil)
			require.ErrorIs(t, err, ErrPoolClosed)
		})
	}
}

// TestPoolDropsEnded: an instance that trapped is not reused; the pool
// stays usable.
func TestPoolDropsEnded(t *testing.T) {
	ctx := context.Background()
	rig := &poolRig{sessions: map[*Session]int{}}
	pl := newPoolPlugin(t, rig)
	pool, err := pl.NewPool(PoolConfig{Size: 1})
	require.NoError(t, err)
	defer pool.Close(ctx)
	_, err = pool.CallBytes(ctx, "upper", []byte("a"))
	require.NoError(t, err)
	_, err = pool.Call(ctx, "trap")
	require.ErrorIs(t, err, ErrTrap)
	require.Empty(t, pool.idle)
	_, err = pool.CallBytes(ctx, "upper", []byte("b"))
	require.NoError(t, err)
	require.Len(t, rig.sessions, 2, "the trapped instance was replaced")
	res, err := pool.Call(ctx, "calls")
	require.NoError(t, err)
	require.Equal(t, uint64(1), res[0], "a new instance: the count restarted")
}

// TestPoolBounded: with every instance busy a call waits, until its
// context ends; Close waits for calls in progress.
func TestPoolBounded(t *testing.T) {
	ctx := context.Background()
	rig := &poolRig{sessions: map[*Session]int{}, block: make(chan struct{}), entered: make(chan struct{})}
	pl := newPoolPlugin(t, rig)
	pool, err := pl.NewPool(PoolConfig{Size: 1})
	require.NoError(t, err)
	done := make(chan error)
	go func() {
		_, err := pool.CallBytes(ctx, "upper", []byte("x"))
		done <- err
	}()
	<-rig.entered // the only instance is busy
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = pool.CallBytes(cctx, "upper", nil)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "waiting for a pool instance")
	// Close gives up when its context ends with the call still running.
	require.ErrorContains(t, pool.Close(cctx), "1 calls still in progress")
	closed := make(chan error)
	go func() { closed <- pool.Close(ctx) }()
	close(rig.block)
	require.NoError(t, <-done)
	require.NoError(t, <-closed)
	require.Empty(t, pool.idle, "the instance was closed when it came back")

	_, err = pl.NewPool(PoolConfig{})
	require.ErrorContains(t, err, "Size is 0")
}
