package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// idleSpy counts the Idle calls its engine instance gets.
type idleSpy struct {
	engine.Instance
	idles int
}

func (s *idleSpy) Idle() { s.idles++; s.Instance.Idle() }

// spyCall wraps i's engine instance in a spy (once) and calls next,
// which must return want: the calls count in a global of the instance.
func spyCall(t *testing.T, i *Instance, want uint64) *idleSpy {
	spy, ok := i.inst.(*idleSpy)
	if !ok {
		spy = &idleSpy{Instance: i.inst}
		i.inst = spy
	}
	res, err := i.Call(context.Background(), "next")
	require.NoError(t, err)
	require.Equal(t, []uint64{want}, res, "the instance's own count: its state kept")
	return spy
}

// TestPoolIdlesKeptInstances: as the last call in progress returns, a
// pool tells its idle instances that served calls since they were last
// told (engine.Instance.Idle: the wazero adapter drops each export's
// function and its stack), never one in a call, and not the instance
// coming back, which the next call gets; a call that returns while
// another runs idles none (under load the instances serve call after
// call). A Fresh pool, which keeps nothing, idles nothing.
func TestPoolIdlesKeptInstances(t *testing.T) {
	ctx := context.Background()
	pl := load(t, newRuntime(t), testsupport.WAT(t, `(module
  (memory (export "memory") 1)
  (global $n (mut i32) (i32.const 0))
  (func (export "next") (result i32)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (global.get $n)))`), Policy{})
	for _, fresh := range []bool{false, true} {
		p, err := pl.NewPool(PoolConfig{Size: 2, Fresh: fresh})
		require.NoError(t, err)
		var a, b *idleSpy
		require.NoError(t, p.Do(ctx, func(i *Instance) error {
			a = spyCall(t, i, 1)
			// A second call, on the other instance, returns while this one runs.
			require.NoError(t, p.Do(ctx, func(i *Instance) error {
				b = spyCall(t, i, 1)
				return nil
			}))
			require.Zero(t, b.idles, "a call returned while another runs: no instance idled")
			return nil
		}))
		if fresh {
			require.Zero(t, a.idles+b.idles, "a Fresh pool keeps nothing to idle")
			require.NoError(t, p.Close(ctx))
			continue
		}
		require.Equal(t, 1, b.idles, "the last call's return idled the instance that served a call")
		require.Zero(t, a.idles, "the instance coming back stays warm for the next call")
		require.NoError(t, p.Do(ctx, func(i *Instance) error {
			require.Same(t, a, spyCall(t, i, 2), "the next call gets the last instance back")
			return nil
		}))
		require.Equal(t, []int{0, 1}, []int{a.idles, b.idles}, "b, idled since, is not idled again")
		require.NoError(t, p.Do(ctx, func(i *Instance) error {
			require.Same(t, a, spyCall(t, i, 3))
			require.NoError(t, p.Do(ctx, func(i *Instance) error {
				require.Same(t, b, spyCall(t, i, 2), "an idled instance serves its next call")
				return nil
			}))
			return nil
		}))
		require.Equal(t, []int{0, 2}, []int{a.idles, b.idles}, "b served a call: idled again as the last call returned")
		require.NoError(t, p.Close(ctx))
	}
}
