package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Compile bombs: modules written here byte by byte (no wabt), each a few
// functions of type [] -> [] that take an engine seconds to minutes to
// compile.

// bombModule returns a module with one function of type [] -> [] per body
// (each its locals and code, without the size), plus extra bytes of a
// custom section when pad > 0.
func bombModule(pad int, bodies ...[]byte) []byte {
	sec := func(out []byte, id byte, body []byte) []byte {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		return append(out, body...)
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = sec(out, 1, []byte{1, 0x60, 0, 0}) // one type: [] -> []
	funcs := binary.AppendUvarint(nil, uint64(len(bodies)))
	funcs = append(funcs, bytes.Repeat([]byte{0}, len(bodies))...)
	out = sec(out, 3, funcs)
	code := binary.AppendUvarint(nil, uint64(len(bodies)))
	for _, b := range bodies {
		code = binary.AppendUvarint(code, uint64(len(b)))
		code = append(code, b...)
	}
	out = sec(out, 10, code)
	if pad > 0 {
		custom := append([]byte{3}, "pad"...)
		out = sec(out, 0, append(custom, make([]byte, pad)...))
	}
	return out
}

// nestedBody is a function of depth nested empty blocks.
func nestedBody(depth int) []byte {
	b := []byte{0} // no locals
	b = append(b, bytes.Repeat([]byte{0x02, 0x40}, depth)...)
	b = append(b, bytes.Repeat([]byte{0x0b}, depth)...)
	return append(b, 0x0b)
}

// brTableBody is a function with one br_table of targets targets (its
// default included), all to the block around it.
func brTableBody(targets int) []byte {
	b := []byte{0, 0x02, 0x40, 0x41, 0x00, 0x0e}
	b = binary.AppendUvarint(b, uint64(targets-1))
	b = append(b, make([]byte, targets)...) // label 0, the default too
	return append(b, 0x0b, 0x0b)
}

// localsBody is a function declaring n i32 locals.
func localsBody(n int) []byte {
	b := binary.AppendUvarint([]byte{1}, uint64(n))
	return append(b, 0x7f, 0x0b)
}

// nopBody is a function of n nops: a body of n+2 bytes.
func nopBody(n int) []byte {
	b := append([]byte{0}, bytes.Repeat([]byte{0x01}, n)...)
	return append(b, 0x0b)
}

// noCompile is an engine that fails the test if it is asked to compile:
// a module refused by the limits never reaches the engine.
type noCompile struct {
	engine.Engine
	t *testing.T
}

func (e noCompile) Compile(context.Context, engine.Module) (engine.Compiled, error) {
	e.t.Error("the engine was asked to compile a module over the limits")
	return nil, errors.New("not compiled")
}

func TestCompileLimits(t *testing.T) {
	ctx := context.Background()
	rt := newRuntime(t)
	base := rt.engine
	many := make([][]byte, DefaultMaxFunctions+1)
	for i := range many {
		many[i] = []byte{0, 0x0b}
	}
	for _, c := range []struct {
		name, want string
		wasm       []byte
	}{
		// 100,000 nested blocks: 7.6 minutes on wazero.
		{"nesting", "function 1: nesting depth of blocks: 100000, more than the limit 10000 (MaxBlockDepth)", bombModule(0, nopBody(1), nestedBody(100_000))},
		{"br_table", "function 0: br_table targets: 100000, more than the limit 16384 (MaxBrTableTargets)", bombModule(0, brTableBody(100_000))},
		{"locals", "function 0: locals: 1000000, more than the limit 50000 (MaxLocals)", bombModule(0, localsBody(1_000_000))},
		{"body", "function 0: body size in bytes: 8388611, more than the limit 8388608 (MaxFunctionBodyBytes)", bombModule(0, nopBody(DefaultMaxFunctionBodyBytes+1))},
		{"functions", "function bodies: 1000001, more than the limit 1000000 (MaxFunctions)", bombModule(0, many...)},
		{"module size", "more than the limit 67108864 (MaxModuleBytes)", bombModule(DefaultMaxModuleBytes, nopBody(1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt.engine = noCompile{base, t}
			_, err := rt.Load(ctx, c.wasm, Policy{})
			var le *LoadError
			require.ErrorAs(t, err, &le)
			require.ErrorIs(t, err, ErrLoad)
			require.Len(t, le.Problems, 1)
			require.Contains(t, le.Problems[0], c.want)
			probs, err := rt.Check(ctx, c.wasm, Policy{})
			require.NoError(t, err)
			require.Equal(t, le.Problems, probs, "Check refuses it the same way")
		})
	}
	t.Run("the policy's limit", func(t *testing.T) {
		// A policy may lower a limit, or raise it for an outlier.
		rt.engine = noCompile{base, t}
		_, err := rt.Load(ctx, bombModule(0, nestedBody(101)), Policy{MaxBlockDepth: 100})
		require.ErrorContains(t, err, "function 0: nesting depth of blocks: 101, more than the limit 100 (MaxBlockDepth)")
		rt.engine = base
		pl, err := rt.Load(ctx, bombModule(0, nestedBody(DefaultMaxBlockDepth+1)), Policy{MaxBlockDepth: DefaultMaxBlockDepth + 1, CompileTimeout: NoTimeout})
		require.NoError(t, err)
		require.NoError(t, pl.Close(ctx))
	})
	t.Run("all at once", func(t *testing.T) {
		rt.engine = noCompile{base, t}
		_, err := rt.Load(ctx, bombModule(0, nestedBody(20_000), brTableBody(20_000), localsBody(60_000)), Policy{})
		var le *LoadError
		require.ErrorAs(t, err, &le)
		require.Len(t, le.Problems, 3, "one problem per limit: %v", le.Problems)
	})
}

// TestDecodeBombs: a module declaring a length longer than its bytes (a
// vector of 2^32 tables in 45 bytes, for which wazero asks 80 GiB, a fatal
// error of the process) is refused before any engine reads it, raw or
// prepared, by Load and Check alike.
func TestDecodeBombs(t *testing.T) {
	ctx := context.Background()
	rt := newRuntime(t)
	rt.engine = noCompile{rt.engine, t}
	for _, c := range testsupport.DecodeBombs {
		t.Run(c.Name, func(t *testing.T) {
			_, err := rt.Load(ctx, c.Wasm, Policy{})
			var le *LoadError
			require.ErrorAs(t, err, &le)
			require.Equal(t, []string{c.Problem}, le.Problems)
			probs, err := rt.Check(ctx, c.Wasm, Policy{})
			require.NoError(t, err)
			require.Equal(t, le.Problems, probs)
		})
	}
}

// TestDecodeBombNames: a name section declaring 2^32 local names (128 GiB
// asked of wazero) is dropped, as the engines ignore it: the module
// loads, and one that the policy refuses is refused with the policy's
// problem, not compiled raw with it.
func TestDecodeBombNames(t *testing.T) {
	ctx := context.Background()
	rt := newRuntime(t)
	names := append([]byte("\x00\x0e\x04name\x02\x07\x01\x00"), 0xff, 0xff, 0xff, 0xff, 0x0f) // one function, 2^32-1 local names
	wasm := append(testsupport.WAT(t, fmt.Sprintf(tableGrowWAT, "600 700")), names...)
	pl, err := rt.Load(ctx, wasm, Policy{MaxTableEntries: 600})
	require.NoError(t, err)
	require.NoError(t, pl.Close(ctx))
	_, err = rt.Load(ctx, wasm, Policy{MaxTableEntries: 500})
	require.ErrorContains(t, err, "tables need 600 entries at start, the policy allows 500 (MaxTableEntries)")
	// A name section one byte short of its local names' count, which
	// wazero reads on past the section's end: refused.
	cut := append(wasm[:len(wasm)-len(names)], names...)
	cut[len(cut)-len(names)+1]--
	_, err = rt.Load(ctx, cut, Policy{MaxTableEntries: 600})
	require.ErrorContains(t, err, "custom section: local names 4294967295, more than the 0 bytes left in the module (malformed)")
}

// TestCompileLimitsSamples: the real plugins stay within the limits (and
// far: see each maximum in the log), and a bomb just within them loads.
func TestCompileLimitsSamples(t *testing.T) {
	files, err := filepath.Glob("../build/wasm/*.wasm")
	require.NoError(t, err)
	require.NotEmpty(t, files, "the guests are built (make guests)")
	defaults, err := Policy{}.withDefaults(1)
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		mi, err := module.Scan(b)
		require.NoError(t, err, f)
		c := mi.Code
		require.Empty(t, module.CompileLimits(len(b), c, defaults.compileLimits()), f)
		require.NotZero(t, c.Funcs, f)
		require.Zero(t, c.Partial, "%s: every opcode of the real plugins is one the walk knows", f)
		t.Logf("%-22s %8d bytes, %5d functions, body %6d bytes, %3d locals, depth %4d, br_table %4d", filepath.Base(f), len(b), c.Funcs, c.MaxBody, c.MaxLocals, c.MaxDepth, c.MaxTable)
	}
	rt := newRuntime(t)
	load(t, rt, bombModule(0, nestedBody(DefaultMaxBlockDepth), brTableBody(DefaultMaxBrTableTargets), localsBody(DefaultMaxLocals)), Policy{CompileTimeout: NoTimeout})
}

// gatedEngine holds each compilation until the test releases it, and
// counts the modules it compiled that were closed (closedAtEnd: when the
// engine was closed).
type gatedEngine struct {
	engine.Engine
	started, release chan struct{}
	closed           atomic.Int32
	closedAtEnd      atomic.Int32
}

func (e *gatedEngine) Close(ctx context.Context) error {
	e.closedAtEnd.Store(e.closed.Load() + 100)
	return e.Engine.Close(ctx)
}

func (e *gatedEngine) Compile(ctx context.Context, m engine.Module) (engine.Compiled, error) {
	e.started <- struct{}{}
	<-e.release
	c, err := e.Engine.Compile(ctx, m)
	if err != nil {
		return nil, err
	}
	return closeCounted{c, &e.closed}, nil
}

type closeCounted struct {
	engine.Compiled
	n *atomic.Int32
}

func (c closeCounted) Close(ctx context.Context) error {
	c.n.Add(1)
	return c.Compiled.Close(ctx)
}

// waitCompiles waits (a minute at most) until no compilation Load started
// is running: an abandoned one ends on its own.
func waitCompiles(t *testing.T, rt *Runtime) {
	t.Helper()
	for i := 0; i < 6000 && rt.liveCompiles.Load() != 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	require.Zero(t, rt.liveCompiles.Load(), "the abandoned compilation finished")
}

// TestCompileTimeout: Load returns when the compile timeout or its
// context ends, while the compilation goes on; that one's module is
// closed when it finishes.
func TestCompileTimeout(t *testing.T) {
	wasm := testsupport.WAT(t, fmt.Sprintf(exitWAT, 7))
	for _, c := range []struct {
		name string
		load func(rt *Runtime, started chan struct{}) error
		is   error
		want string
	}{
		{"compile timeout", func(rt *Runtime, _ chan struct{}) error {
			_, err := rt.Load(context.Background(), wasm, Policy{CompileTimeout: 20 * time.Millisecond})
			return err
		}, ErrLoad, "compile: not finished within the policy's compile timeout (CompileTimeout 20ms)"},
		{"canceled", func(rt *Runtime, started chan struct{}) error {
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-started; cancel() }()
			_, err := rt.Load(ctx, wasm, Policy{CompileTimeout: NoTimeout})
			return err
		}, context.Canceled, "compilation not finished"},
		{"deadline", func(rt *Runtime, _ chan struct{}) error {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			_, err := rt.Load(ctx, wasm, Policy{})
			return err
		}, context.DeadlineExceeded, "compilation not finished"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := newRuntime(t)
			g := &gatedEngine{Engine: rt.engine, started: make(chan struct{}, 1), release: make(chan struct{})}
			rt.engine = g
			started := make(chan struct{})
			go func() { <-g.started; close(started) }()
			err := c.load(rt, started)
			require.ErrorIs(t, err, c.is)
			require.ErrorContains(t, err, c.want)
			if c.is != ErrLoad {
				require.NotErrorIs(t, err, ErrLoad, "the caller's context ended: not a refusal")
			}
			<-started
			require.Equal(t, int64(1), rt.liveCompiles.Load(), "the compilation still runs")
			close(g.release)
			waitCompiles(t, rt)
			require.Equal(t, int32(1), g.closed.Load(), "its module was closed")
		})
	}
}

// TestCompileAbandonedClose: Runtime.Close waits for a compilation Load
// abandoned, so that the engine is never closed under it.
func TestCompileAbandonedClose(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	g := &gatedEngine{Engine: rt.engine, started: make(chan struct{}, 1), release: make(chan struct{})}
	rt.engine = g
	_, err = rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(exitWAT, 7)), Policy{CompileTimeout: time.Millisecond})
	require.ErrorIs(t, err, ErrLoad)
	<-g.started
	closed := make(chan error)
	go func() { closed <- rt.Close(ctx) }()
	// Released a moment later: a Close that did not wait would have
	// closed the engine by then (not a timing assertion: a slow machine
	// can only make the test pass without proving the wait).
	time.Sleep(100 * time.Millisecond)
	close(g.release)
	require.NoError(t, <-closed)
	require.Equal(t, int32(101), g.closedAtEnd.Load(), "the abandoned module was closed before the engine")
	require.Zero(t, rt.liveCompiles.Load())
}

// TestCompileTimeoutSlowModule: a real module within the limits that
// compiles for longer than the compile timeout is refused at the timeout;
// the compilation, left to finish, leaks nothing. A context already done
// refuses before compiling.
func TestCompileTimeoutSlowModule(t *testing.T) {
	wasm, err := os.ReadFile("../build/wasm/go-copy.wasm")
	require.NoError(t, err, "the guests are built (make guests)")
	rt := newRuntime(t)
	// 1 ns: over before a 2.8 MB module compiles (about a second).
	_, err = rt.Load(context.Background(), wasm, Policy{CompileTimeout: time.Nanosecond})
	require.ErrorIs(t, err, ErrLoad)
	require.ErrorContains(t, err, "(CompileTimeout 1ns)")
	waitCompiles(t, rt)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = rt.Load(ctx, wasm, Policy{})
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, rt.liveCompiles.Load(), "nothing was compiled")
	// Without the timeout it loads (none: -race on a loaded machine can
	// take a 2.8 MB module past the default).
	load(t, rt, wasm, Policy{CompileTimeout: NoTimeout})
}

func TestCompileTimeoutPolicy(t *testing.T) {
	p, err := Policy{}.withDefaults(1)
	require.NoError(t, err)
	require.Equal(t, DefaultCompileTimeout, p.CompileTimeout)
	require.Equal(t, DefaultMaxBlockDepth, p.MaxBlockDepth)
	require.Equal(t, uint64(DefaultMaxModuleBytes), p.MaxModuleBytes)
	_, err = Policy{MaxLocals: -1}.withDefaults(1)
	require.ErrorContains(t, err, "policy: compile limits must not be negative")
	_, err = Policy{CompileTimeout: -2}.withDefaults(1)
	require.ErrorContains(t, err, "policy: CompileTimeout -2ns: want a positive duration, 0 for the default or NoTimeout")
	m, err := ParseManifest([]byte("name: x\nmodule: {path: x.wasm}\npolicy: {compile_timeout: 5s}\n"))
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, m.Policy.CompileTimeout)
	m, err = ParseManifest([]byte("name: x\nmodule: {path: x.wasm}\npolicy: {compile_timeout: none}\n"))
	require.NoError(t, err)
	require.Equal(t, NoTimeout, m.Policy.CompileTimeout)
}
