package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHostFuncAllocs: the embedder's host function path allocates nothing
// per call, with View reading and writing guest memory: a guest loop of
// 1000 calls allocates only what its own Instance.Call does.
func TestHostFuncAllocs(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine), WithHostFuncs(hostBenchFuncs()...))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, wat2wasm(t, hostLoopWAT), Policy{MemoryPages: 1})
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, Config{})
	require.NoError(t, err)
	defer inst.Close(ctx)
	in := make([]byte, 64)
	for i := range in {
		in[i] = byte(i + 1)
	}
	require.NoError(t, inst.WriteMemory(0x100, in))
	for _, loop := range []string{"nop_loop", "rw_loop"} {
		allocs := testing.AllocsPerRun(10, func() {
			res, err := inst.Call(ctx, loop, 1000)
			if err != nil || res[0] != 0 {
				t.Fatalf("%s = %v, %v", loop, res, err)
			}
		})
		require.Less(t, allocs, 50.0, "%s: allocations of 1000 host calls", loop)
	}
	out, err := inst.ReadMemory(0x140, 64)
	require.NoError(t, err)
	require.Equal(t, in, out, "rw copied the 64 bytes")
}
