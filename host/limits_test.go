package host

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// hostMemory is what the host has taken so far: the bytes the Go heap has
// allocated in all (wazero's tables and stacks are Go slices, freed again
// by the time a call returns, so the running total is what shows them) and
// the process's resident memory (wasmtime's tables and stacks are its
// own).
type hostMemory struct{ alloc, rss uint64 }

func measureHost(t *testing.T) hostMemory {
	t.Helper()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return hostMemory{alloc: ms.TotalAlloc} // not Linux: the Go side only
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseUint(f[1], 10, 64)
	require.NoError(t, err)
	return hostMemory{alloc: ms.TotalAlloc, rss: pages * uint64(os.Getpagesize())}
}

// requireBoundedSince fails if the host took more than limit bytes, on
// either measure, since before.
func requireBoundedSince(t *testing.T, before hostMemory, limit uint64, what string) {
	t.Helper()
	now := measureHost(t)
	require.LessOrEqual(t, now.alloc-before.alloc, limit, "%s: Go heap allocations", what)
	if now.rss > before.rss {
		require.LessOrEqual(t, now.rss-before.rss, limit, "%s: resident memory", what)
	}
}

// tableGrowWAT grows its tables as far as table.grow lets it, step entries
// at a time (at most 1024 steps), and returns their sizes added.
const tableGrowWAT = `(module
  (table $t %s funcref)
  (table $u 0 externref)
  (func $grow (param $step i32) (result i32) (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.eq (table.grow $t (ref.null func) (local.get $step)) (i32.const -1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1024)))))
    (local.set $i (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.eq (table.grow $u (ref.null extern) (local.get $step)) (i32.const -1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1024)))))
    (i32.add (table.size $t) (table.size $u)))
  (export "grow" (func $grow)))`

// TestTableGrowBounded: table.grow stops at the policy's MaxTableEntries,
// over all of a module's tables, and the host memory the tables take stays
// that small. Unbounded, a guest allowed 1 MiB of memory made wazero
// allocate hundreds of MiB of table.
func TestTableGrowBounded(t *testing.T) {
	rt := newRuntime(t)
	for _, tc := range []struct {
		name   string
		limits string // the first table's
		policy uint64
		step   uint64
		want   uint64
	}{
		// $t takes all the headroom, in whole steps: 1 + 16384*3.
		{"default, no maximum", "1", 0, 16384, 49153},
		{"default, a larger maximum", "1 4000000", 0, 16384, 49153},
		{"policy", "10", 1000, 7, 997},                               // 10 + 7*141; $u gets none
		{"declared maximum below the policy", "1 10", 1000, 1, 1000}, // $t 10, $u the other 990
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := measureHost(t)
			pl := load(t, rt, testsupport.WAT(t, fmt.Sprintf(tableGrowWAT, tc.limits)), Policy{MemoryPages: 16, MaxTableEntries: tc.policy})
			inst, err := pl.Instantiate(context.Background(), Config{})
			require.NoError(t, err)
			defer inst.Close(context.Background())
			got, err := inst.Call(context.Background(), "grow", tc.step)
			require.NoError(t, err)
			requireBoundedSince(t, before, 32<<20, "growing the tables")
			require.Equal(t, tc.want, got[0])
		})
	}
}

// TestTableMinimumRefused: a module whose tables need more entries at start
// than the policy allows is refused at load time, saying so.
func TestTableMinimumRefused(t *testing.T) {
	rt := newRuntime(t)
	_, err := rt.Load(context.Background(), testsupport.WAT(t, fmt.Sprintf(tableGrowWAT, "600 700")), Policy{MaxTableEntries: 500})
	require.ErrorIs(t, err, ErrLoad)
	require.ErrorContains(t, err, "tables need 600 entries at start, the policy allows 500 (MaxTableEntries)")
	_, err = rt.Load(context.Background(), testsupport.WAT(t, fmt.Sprintf(tableGrowWAT, "500")), Policy{MaxTableEntries: 500})
	require.NoError(t, err, "exactly the policy's entries at start load")
}

// recurseWAT recurses forever: $small with one parameter, $big with many
// values live across its call (each spilled into its frame).
func recurseWAT(bigValues int) string {
	var push, pop strings.Builder
	for i := range bigValues {
		fmt.Fprintf(&push, "      (i64.add (local.get $x) (i64.const %d))\n", i)
		pop.WriteString("      i64.add\n")
	}
	return `(module
  (func $small (export "small") (param $n i32) (result i32)
    (call $small (i32.add (local.get $n) (i32.const 1))))
  (func $big (export "big") (param $x i64) (result i64)
` + push.String() + `      (call $big (i64.add (local.get $x) (i64.const 1)))
` + pop.String() + `  ))`
}

// TestStackLimit: a guest recursing forever, with small frames or big
// ones, traps at the stack limit (ErrTrap; with a small MaxStackBytes at
// the policy's limit on both engines, with the default at the policy's or
// at wasmtime's own smaller one), and the host memory its stack took stays
// within a generous bound. Unbounded, wazero let each such call grow a
// stack of up to 400 MB.
func TestStackLimit(t *testing.T) {
	rt := newRuntime(t)
	wasm := testsupport.WAT(t, recurseWAT(2000))
	for _, fn := range []string{"small", "big"} {
		for _, limit := range []uint64{0, 256 << 10} {
			t.Run(fmt.Sprintf("%s/%d", fn, limit), func(t *testing.T) {
				pl := load(t, rt, wasm, Policy{MemoryPages: 16, MaxStackBytes: limit})
				before := measureHost(t)
				inst, err := pl.Instantiate(context.Background(), Config{})
				require.NoError(t, err)
				_, err = inst.Call(context.Background(), fn, 0)
				requireBoundedSince(t, before, 64<<20, "a runaway recursion")
				require.ErrorIs(t, err, ErrTrap)
				var te *TrapError
				require.ErrorAs(t, err, &te)
				if limit != 0 || testEngine == "wazero" {
					require.Equal(t, engine.StackLimitReason, te.Reason)
				} else {
					require.Contains(t, te.Reason, "stack", "the policy's limit or wasmtime's own")
				}
				_, err = inst.Call(context.Background(), fn, 0)
				require.ErrorIs(t, err, ErrClosed, "a trap ends the instance")
			})
		}
	}
}

// exitsWAT returns from its functions every way a function can: falling
// off the end, return (in nested blocks too), br, br_if and br_table to
// the outermost label, with zero, one and two results. Called many times
// in a loop under a small stack limit, a way out that did not take its
// frame off the count would trap within a few calls. Each calls $nop so
// that it is counted (a leaf is not: see rewriteCode).
const exitsWAT = `(module
  (func $nop)
  (func $fall (param $x i32) (result i32) (call $nop) (i32.add (local.get $x) (i32.const 1)))
  (func $ret (param $x i32) (result i32) (call $nop)
    (block (loop (if (local.get $x) (then (return (i32.const 2))))))
    (i32.const 3))
  (func $br (param $x i32) (result i32) (call $nop)
    (block (block (drop (br_if 2 (i32.const 4) (local.get $x)))))
    (br 0 (i32.const 5)))
  (func $table (param $x i32) (result i32) (call $nop)
    (i32.add (i32.const 100)
      (block (result i32)
        (i32.add (i32.const 1) (block (result i32) (br_table 0 1 2 (i32.const 6) (local.get $x)))))))
  (func $none (param $x i32) (call $nop) (if (local.get $x) (then return)))
  (func $pair (param $x i32) (result i32 i32) (call $nop)
    (if (local.get $x) (then (return (i32.const 8) (i32.const 9))))
    (i32.const 10) (i32.const 11))
  (func $unreached (result i32) (call $nop) (return (i32.const 12)) (unreachable))
  (func (export "loop") (param $n i32) (result i32) (local $sum i32) (local $i i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum) (call $fall (local.get $i))))
      (local.set $sum (i32.add (local.get $sum) (call $ret (i32.and (local.get $i) (i32.const 1)))))
      (local.set $sum (i32.add (local.get $sum) (call $br (i32.and (local.get $i) (i32.const 1)))))
      (local.set $sum (i32.add (local.get $sum) (call $table (i32.rem_u (local.get $i) (i32.const 3)))))
      (call $none (i32.and (local.get $i) (i32.const 1)))
      (local.set $sum (i32.add (local.get $sum) (i32.add (call $pair (i32.and (local.get $i) (i32.const 1))))))
      (local.set $sum (i32.add (local.get $sum) (call $unreached)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $sum))
  (func $depth (export "depth") (param $n i32) (result i32)
    (if (result i32) (local.get $n)
      (then (i32.add (i32.const 1) (call $depth (i32.sub (local.get $n) (i32.const 1)))))
      (else (i32.const 0)))))`

// exitsSum is what exitsWAT's loop returns for n calls, computed in Go.
func exitsSum(n uint32) uint32 {
	var sum uint32
	for i := range n {
		sum += i + 1
		sum += [2]uint32{3, 2}[i&1]
		sum += [2]uint32{5, 4}[i&1]
		sum += [3]uint32{107, 106, 6}[i%3]
		sum += [2]uint32{21, 17}[i&1]
		sum += 12
	}
	return sum
}

// TestStackLimitBalanced: every way out of a function takes its frame off
// the count, so a guest calling functions in a loop never reaches a small
// limit; and a deep but bounded recursion runs within the default limit.
func TestStackLimitBalanced(t *testing.T) {
	rt := newRuntime(t)
	wasm := testsupport.WAT(t, exitsWAT)
	pl := load(t, rt, wasm, Policy{MemoryPages: 16, MaxStackBytes: 4096})
	inst, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	defer inst.Close(context.Background())
	got, err := inst.Call(context.Background(), "loop", 100000)
	require.NoError(t, err)
	require.Equal(t, uint64(exitsSum(100000)), got[0])
	for range 3 { // the count starts again from where the last call left it
		_, err = inst.Call(context.Background(), "loop", 1000)
		require.NoError(t, err)
	}

	pl = load(t, rt, wasm, Policy{MemoryPages: 16})
	inst, err = pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	defer inst.Close(context.Background())
	got, err = inst.Call(context.Background(), "depth", 3000)
	require.NoError(t, err, "a recursion 3000 deep runs within the default")
	require.Equal(t, uint64(3000), got[0])
}

// TestStackLimitRealPlugins: the rewrites read every prebuilt plugin
// (build/wasm, when built) and refuse none of them under the default
// policy; the suite's plugin tests run them rewritten.
func TestStackLimitRealPlugins(t *testing.T) {
	files, _ := os.ReadDir("../build/wasm")
	if len(files) == 0 {
		t.Skip("no build/wasm: run make guests")
	}
	p, err := Policy{}.withDefaults(1)
	require.NoError(t, err)
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".wasm") {
			continue
		}
		wasm, err := os.ReadFile("../build/wasm/" + f.Name())
		require.NoError(t, err)
		m, probs := prepare(wasm, &p)
		require.Empty(t, probs, f.Name())
		require.NotEmpty(t, m.Stack, f.Name())
	}
}

// fibWAT is call-heavy: fib(n) makes about 1.6^n calls of a tiny function,
// the worst case of the stack count's cost per call.
const fibWAT = `(module
  (func $fib (export "fib") (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1))) (call $fib (i32.sub (local.get $n) (i32.const 2))))))))`

// BenchmarkStackCount: the cost of the stack count on a call-heavy guest,
// fib(20) (21891 calls) as the engine runs it without the rewrite (raw) and
// with it (counted).
func BenchmarkStackCount(b *testing.B) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(b, err)
	defer rt.Close(ctx)
	raw := testsupport.WAT(b, fibWAT)
	p, err := Policy{}.withDefaults(1)
	require.NoError(b, err)
	counted, probs := prepare(raw, &p)
	require.Empty(b, probs)
	for _, m := range []struct {
		name string
		mod  engine.Module
	}{{"raw", engine.Module{Wasm: raw}}, {"counted", counted}} {
		b.Run(m.name, func(b *testing.B) {
			c, err := rt.engine.Compile(ctx, m.mod)
			require.NoError(b, err)
			defer c.Close(ctx)
			inst, err := c.Instantiate(ctx, engine.Config{})
			require.NoError(b, err)
			defer inst.Close(ctx)
			for b.Loop() {
				res, err := inst.Call(ctx, "fib", 20)
				if err != nil || res[0] != 6765 {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// FuzzPrepare: the rewrites of Load never panic on any input, and never
// make a module the engine accepts into one it refuses. A module whose
// lengths module.Lengths refuses goes to no engine, as in Load.
func FuzzPrepare(f *testing.F) {
	for _, src := range []string{exitsWAT, fibWAT, recurseWAT(3), fmt.Sprintf(tableGrowWAT, "1 5")} {
		f.Add(testsupport.WAT(f, src))
	}
	f.Add(namedTrapModule("deep", evilName))
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(f, err)
	f.Cleanup(func() { rt.Close(ctx) })
	p, err := Policy{MaxTableEntries: 100, MaxStackBytes: 1 << 16}.withDefaults(1)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		if len(module.Lengths(wasm)) > 0 {
			return
		}
		m, probs := prepare(wasm, &p)
		raw, err := rt.engine.Compile(ctx, engine.Module{Wasm: wasm})
		if err != nil || len(probs) > 0 {
			if err == nil {
				raw.Close(ctx)
			}
			return
		}
		raw.Close(ctx)
		c, err := rt.engine.Compile(ctx, m)
		require.NoError(t, err, "the module compiles as it is, but not rewritten")
		c.Close(ctx)
	})
}

// noInvoker is the session side of an instance that imports nothing.
type noInvoker struct{}

func (noInvoker) Invoke(context.Context, int, []byte, []uint64) {}
func (noInvoker) Hold(m engine.Releaser)                        { m.Release() }
func (noInvoker) Release(context.Context) error                 { return nil }

// rawResults calls export fn of wasm, compiled as it is (none of Load's
// rewrites), with each of args.
func rawResults(t *testing.T, rt *Runtime, wasm []byte, fn string, args ...uint64) []uint64 {
	t.Helper()
	ctx := context.Background()
	c, err := rt.engine.Compile(ctx, engine.Module{Wasm: wasm, Memory: "memory"})
	require.NoError(t, err)
	defer c.Close(ctx)
	inst, err := c.Instantiate(ctx, engine.Config{Invoker: noInvoker{}, MemoryLimit: 1 << 16})
	require.NoError(t, err)
	defer inst.Close(ctx)
	var out []uint64
	for _, a := range args {
		res, err := inst.Call(ctx, fn, a)
		require.NoError(t, err)
		out = append(out, res[0])
	}
	return out
}

// TestStackCountImmediates: instructions whose immediates hold the bytes
// of end (0x0b) and return (0x0f), SIMD's and bulk memory's among them,
// are read whole: the rewritten function validates and computes what the
// module as it is computes.
func TestStackCountImmediates(t *testing.T) {
	rt := newRuntime(t)
	wasm := testsupport.WAT(t, `(module
  (memory (export "memory") 1)
  (data (i32.const 0) "\0b\0f\0b\0f")
  (func $nop)
  (func (export "f") (param $x i32) (result i32)
    (call $nop)
    (v128.store offset=11 (i32.const 15) (i8x16.shuffle 15 11 15 11 0 1 2 3 4 5 6 7 8 9 10 11
      (v128.const i32x4 0x0b0f0b0f 0x0f0f0f0f 0x0b0b0b0b 15)
      (i8x16.replace_lane 11 (v128.load32_zero offset=15 (i32.const 0)) (i32.const 15))))
    (memory.fill (i32.const 64) (i32.const 11) (i32.const 15))
    (if (i32.eq (local.get $x) (i32.const 11)) (then (return (i32.const 0x0b0f))))
    (i32.add (i32.load offset=11 (i32.const 15)) (i32.add (i8x16.extract_lane_u 15 (v128.load offset=11 (i32.const 15)))
      (i32.load8_u (i32.const 78))))))`)
	want := rawResults(t, rt, wasm, "f", 11, 0)
	require.Equal(t, uint64(0x0b0f), want[0])
	pl := load(t, rt, wasm, Policy{MemoryPages: 1, MaxStackBytes: 1 << 16})
	inst, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	defer inst.Close(context.Background())
	for k, arg := range []uint64{11, 0} {
		got, err := inst.Call(context.Background(), "f", arg)
		require.NoError(t, err)
		require.Equal(t, want[k], got[0], "f(%d)", arg)
	}
}

// TestLimitPolicyRange: limits past what the rewrites can count are
// refused with the field's name; zero means the default.
func TestLimitPolicyRange(t *testing.T) {
	_, err := Policy{MaxStackBytes: 1<<30 + 1}.withDefaults(1)
	require.ErrorContains(t, err, "MaxStackBytes 1073741825 exceeds 1073741824")
	_, err = Policy{MaxTableEntries: 1<<26 + 1}.withDefaults(1)
	require.ErrorContains(t, err, "MaxTableEntries 67108865 exceeds 67108864")
	p, err := Policy{}.withDefaults(1)
	require.NoError(t, err)
	require.Equal(t, uint64(DefaultMaxStackBytes), p.MaxStackBytes)
	require.Equal(t, uint64(DefaultMaxTableEntries), p.MaxTableEntries)
}
