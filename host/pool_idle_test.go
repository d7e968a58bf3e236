package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// idleSpy counts the Idle calls its engine instance gets.
type idleSpy struct {
	engine.Instance
	idles int
}

func (s *idleSpy) Idle() { s.idles++; s.Instance.Idle() }

// TestPoolIdlesKeptInstances: an instance that goes back to a pool to be
// kept is told so (engine.Instance.Idle: the wazero adapter drops each
// export's function and its stack), after its call and never during one;
// it then serves the next call with its state; a Fresh pool's instances,
// closed as they come back, are not.
func TestPoolIdlesKeptInstances(t *testing.T) {
	ctx := context.Background()
	pl := load(t, newRuntime(t), wat2wasm(t, `(module
  (memory (export "memory") 1)
  (global $n (mut i32) (i32.const 0))
  (func (export "next") (result i32)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (global.get $n)))`), Policy{})
	for _, fresh := range []bool{false, true} {
		p, err := pl.NewPool(PoolConfig{Size: 1, Fresh: fresh})
		require.NoError(t, err)
		var spy *idleSpy
		require.NoError(t, p.Do(ctx, func(i *Instance) error {
			spy = &idleSpy{Instance: i.inst}
			i.inst = spy
			res, err := i.Call(ctx, "next")
			require.Equal(t, []uint64{1}, res)
			require.Zero(t, spy.idles, "not while the caller has it")
			return err
		}))
		if fresh {
			require.Zero(t, spy.idles, "a Fresh pool keeps nothing to idle")
		} else {
			require.Equal(t, 1, spy.idles, "idled as it went back")
			require.NoError(t, p.Do(ctx, func(i *Instance) error {
				require.Same(t, spy, i.inst, "the kept instance")
				res, err := i.Call(ctx, "next")
				require.Equal(t, []uint64{2}, res, "its state kept")
				return err
			}))
			require.Equal(t, 2, spy.idles)
		}
		require.NoError(t, p.Close(ctx))
	}
}
