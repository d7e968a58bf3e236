package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// touchWAT is a command that checks that its memory reads zero beyond
// its data segment, grows it by the pages named by the byte after the
// segment (zero: 1), and then writes every byte of it.
const touchWAT = `(module
  (memory (export "memory") 1)
  (data (i32.const 0x100) "seed")
  ;; $zero traps unless [from, to) (8-byte aligned) reads zero outside
  ;; the segment's 8 bytes, which hold "seed" and the byte the test sets.
  (func $zero (param $from i32) (param $to i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
      (if (i32.and (i64.ne (i64.load (local.get $from)) (i64.const 0))
                   (i32.ne (local.get $from) (i32.const 0x100)))
        (then unreachable))
      (local.set $from (i32.add (local.get $from) (i32.const 8)))
      (br $l))))
  (func (export "_start")
    (local $pages i32)
    (call $zero (i32.const 0) (i32.const 0x10000))
    (if (i32.ne (i32.load (i32.const 0x100)) (i32.const 0x64656573)) (then unreachable)) ;; "seed"
    (if (i32.ne (i32.load (i32.const 0x105)) (i32.const 0)) (then unreachable))
    (local.set $pages (select (i32.load8_u (i32.const 0x104)) (i32.const 1) (i32.load8_u (i32.const 0x104))))
    (if (i32.lt_s (memory.grow (local.get $pages)) (i32.const 0)) (then unreachable))
    (call $zero (i32.const 0x10000) (i32.mul (i32.add (local.get $pages) (i32.const 1)) (i32.const 0x10000)))
    (memory.fill (i32.const 0) (i32.const 0xab) (i32.mul (i32.add (local.get $pages) (i32.const 1)) (i32.const 0x10000))))
  ;; oob reads the byte just past the memory: a trap
  (func (export "oob") (result i32)
    (i32.load8_u (i32.mul (memory.size) (i32.const 0x10000)))))
`

// TestMemoryReusedClean: on both engines, runs of a plugin with a 256
// MiB limit reuse the linear memories earlier runs released (wazero's
// reservations, wasmtime's pool slots), and no byte an earlier run wrote
// is visible: each run finds its memory, and what it grows into, zero
// beyond its data segment, then writes every byte, and a small memory
// made after a larger one traps past its end. The runs touch
// alternately less than what is cleared in place (1 MiB on both engines)
// and more, up to 5 MiB.
func TestMemoryReusedClean(t *testing.T) {
	rt := newRuntime(t)
	pl := load(t, rt, testsupport.WAT(t, touchWAT), Policy{MemoryPages: 4096})
	reused, live := engine.ReusedMemories.Load(), engine.LiveMemories.Load()
	const runs = 8
	for i := range runs {
		pages := []byte{1, 80, 8, 15}[i%4]
		// A run sees the byte at 0x104 zero: an instance sets it first.
		inst, err := pl.Instantiate(context.Background(), Config{})
		require.NoError(t, err)
		inst.inst.Memory()[0x104] = pages
		_, err = inst.Call(context.Background(), "_start")
		require.NoError(t, err, "run %d (growing %d pages) saw a byte of an earlier run", i, pages)
		require.NoError(t, inst.Close(context.Background()))
		res, err := pl.Run(context.Background(), Config{})
		require.NoError(t, err, "run %d saw a byte of an earlier run", i)
		require.Zero(t, res.ExitCode)
		// What an earlier memory grew to is out of bounds again.
		inst, err = pl.Instantiate(context.Background(), Config{})
		require.NoError(t, err)
		_, err = inst.Call(context.Background(), "oob")
		require.ErrorIs(t, err, ErrTrap, "instance %d read past its memory", i)
	}
	require.Equal(t, live, engine.LiveMemories.Load(), "every guest memory was released")
	require.GreaterOrEqual(t, engine.ReusedMemories.Load()-reused, int64(3*runs-1), "the instances after the first reused a released memory (%s)", testEngine)
}

// TestMemoryReusedBurst: on both engines, the memories of a burst of
// instances alive at once (a server's requests in flight) all serve the
// next burst: none is unmapped for want of room in the pool and mapped
// again, each found zero.
func TestMemoryReusedBurst(t *testing.T) {
	const burst = 64
	ctx := context.Background()
	rt := newRuntime(t)
	pl := load(t, rt, testsupport.WAT(t, touchWAT), Policy{MemoryPages: 4096})
	insts := make([]*Instance, burst)
	open := func() {
		t.Helper()
		for i := range insts {
			var err error
			insts[i], err = pl.Instantiate(ctx, Config{})
			require.NoError(t, err)
		}
	}
	closeAll := func() {
		t.Helper()
		for _, inst := range insts {
			_, err := inst.Call(ctx, "_start") // checks zero, then writes every byte
			require.NoError(t, err, "an instance saw a byte of an earlier one")
			require.NoError(t, inst.Close(ctx))
		}
	}
	open()
	closeAll()
	reused := engine.ReusedMemories.Load()
	open()
	require.GreaterOrEqual(t, engine.ReusedMemories.Load()-reused, int64(burst), "the second burst reused the first's memories (%s)", testEngine)
	closeAll()
}

// BenchmarkRunTouch1MiB is a command run (Plugin.Run: instantiate, run,
// release) of a plugin with a 256 MiB memory limit that grows its memory
// to 1 MiB and writes it: what serve's command path pays per request
// for its memory (goal 3 of the third performance issue).
func BenchmarkRunTouch1MiB(b *testing.B) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(b, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(b, `(module
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (memory.grow (i32.const 15)))
    (memory.fill (i32.const 0) (i32.const 0xab) (i32.const 0x100000))))`), Policy{MemoryPages: 4096})
	require.NoError(b, err)
	defer pl.Close(ctx)
	for b.Loop() {
		if res, err := pl.Run(ctx, Config{}); err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}
