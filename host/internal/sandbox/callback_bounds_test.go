package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// actWAT is a guest whose one callback (table index 1) does what the
// record at its argument says: op, stream, x (three i32). It reports
// each run (test.started) before acting and logs each result it gets:
// the count at 0x7ffc, the values from 0x8000 (a ring of 8192).
//
//	op 0: log the record's address
//	op 1: launch the callback of record x on the stream, NO_BLOCK, then
//	      aclrtProcessReport(-1) (x = itself: a callback that relaunches
//	      itself and processes reports)
//	op 2: aclrtProcessReport(x)
//	op 3: aclrtDestroyStream(stream)
//	op 4: aclrtDestroyStreamForce(stream)
//	op 5: aclrtResetDeviceForce(x)
//	op 6: aclrtSynchronizeStream(stream)
//	op 7: aclrtLaunchHostFunc(stream, callback, record x)
//	op 8 and above: trap
const actWAT = `(module
  (import "test" "started" (func $started (result i32)))
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $createStream (param i32) (result i32)))
  (import "acl" "aclrtDestroyStream" (func $destroyStream (param i32) (result i32)))
  (import "acl" "aclrtDestroyStreamForce" (func $destroyForce (param i32) (result i32)))
  (import "acl" "aclrtResetDeviceForce" (func $resetForce (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (import "acl" "aclrtLaunchHostFunc" (func $launch (param i32 i32 i32) (result i32)))
  (import "acl" "aclrtSubscribeReport" (func $subscribe (param i64 i32) (result i32)))
  (import "acl" "aclrtLaunchCallback" (func $launchCallback (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclrtProcessReport" (func $processReport (param i32) (result i32)))
  (import "acl" "aclrtUnSubscribeReport" (func $unsubscribe (param i64 i32) (result i32)))
  (memory (export "memory") 2)
  (type $cb (func (param i32)))
  (table 2 funcref)
  (elem (i32.const 1) $act)
  (func $log (param $v i32) (local $n i32)
    (local.set $n (i32.load (i32.const 0x7ffc)))
    (i32.store (i32.add (i32.const 0x8000) (i32.shl (i32.and (local.get $n) (i32.const 0x1fff)) (i32.const 2))) (local.get $v))
    (i32.store (i32.const 0x7ffc) (i32.add (local.get $n) (i32.const 1))))
  (func $act (param $a i32) (local $op i32) (local $st i32) (local $x i32)
    (local.set $op (i32.load (local.get $a)))
    (local.set $st (i32.load offset=4 (local.get $a)))
    (local.set $x (i32.load offset=8 (local.get $a)))
    (drop (call $started))
    block $done
    block $trap
    block $b7
    block $b6
    block $b5
    block $b4
    block $b3
    block $b2
    block $b1
    block $b0
      (br_table $b0 $b1 $b2 $b3 $b4 $b5 $b6 $b7 $trap (local.get $op))
    end
    (call $log (local.get $a))
    br $done
    end
    (call $log (call $launchCallback (i32.const 1) (local.get $x) (i32.const 0) (local.get $st)))
    (call $log (call $processReport (i32.const -1)))
    br $done
    end
    (call $log (call $processReport (local.get $x)))
    br $done
    end
    (call $log (call $destroyStream (local.get $st)))
    br $done
    end
    (call $log (call $destroyForce (local.get $st)))
    br $done
    end
    (call $log (call $resetForce (local.get $x)))
    br $done
    end
    (call $log (call $sync (local.get $st)))
    br $done
    end
    (call $log (call $launch (local.get $st) (i32.const 1) (local.get $x)))
    br $done
    end
    unreachable
    end)
  (func (export "aclwasm_dispatch_callback") (param $fn i32) (param $arg i32)
    (call_indirect (type $cb) (local.get $arg) (local.get $fn)))
  (func (export "aclrtSetDevice") (param i32) (result i32) (call $setDevice (local.get 0)))
  (func (export "aclrtCreateStream") (param i32) (result i32) (call $createStream (local.get 0)))
  (func (export "aclrtDestroyStream") (param i32) (result i32) (call $destroyStream (local.get 0)))
  (func (export "aclrtDestroyStreamForce") (param i32) (result i32) (call $destroyForce (local.get 0)))
  (func (export "aclrtResetDeviceForce") (param i32) (result i32) (call $resetForce (local.get 0)))
  (func (export "aclrtSynchronizeStream") (param i32) (result i32) (call $sync (local.get 0)))
  (func (export "aclrtLaunchHostFunc") (param i32 i32 i32) (result i32) (call $launch (local.get 0) (local.get 1) (local.get 2)))
  (func (export "aclrtSubscribeReport") (param i64 i32) (result i32) (call $subscribe (local.get 0) (local.get 1)))
  (func (export "aclrtLaunchCallback") (param i32 i32 i32 i32) (result i32)
    (call $launchCallback (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
  (func (export "aclrtProcessReport") (param i32) (result i32) (call $processReport (local.get 0)))
  (func (export "aclrtUnSubscribeReport") (param i64 i32) (result i32) (call $unsubscribe (local.get 0) (local.get 1))))`

// waitForever is aclrtProcessReport's timeout -1 as an i32 argument.
const waitForever = 0xffffffff

// The ops of actWAT's records.
const (
	opRecord = iota
	opRelaunch
	opProcess
	opDestroy
	opDestroyForce
	opResetForce
	opSync
	opLaunchHost
	opTrap
)

// actGuest is one instance of actWAT with device 0 set.
type actGuest struct {
	t       testing.TB
	pl      *host.Plugin
	inst    *host.Instance
	started chan struct{} // a token per callback run, while there is room
}

// newActGuest loads actWAT under p on the test backend and instantiates it.
func newActGuest(t testing.TB, p host.Policy) *actGuest {
	t.Helper()
	ctx := context.Background()
	g := &actGuest{t: t, started: make(chan struct{}, 1)}
	started := host.HostFunc{Module: "test", Name: "started", Fn: func(*host.HostCall) (int32, error) {
		select {
		case g.started <- struct{}{}:
		default:
		}
		return 0, nil
	}}
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testEngine), host.WithHostFuncs(started))...)
	require.NoError(t, err)
	pl, err := rt.Load(ctx, testsupport.WAT(t, actWAT), p)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	g.pl = pl
	g.instantiate()
	return g
}

// instantiate makes g's instance, closed at the test's end, device 0 set.
func (g *actGuest) instantiate() {
	g.t.Helper()
	ctx := context.Background()
	inst, err := g.pl.Instantiate(ctx, host.Config{})
	require.NoError(g.t, err)
	g.t.Cleanup(func() { _ = inst.Close(ctx) })
	g.inst = inst
	g.ok("aclrtSetDevice", 0)
}

// callWithin calls name, failing the test if the call has not returned
// after a minute: a watchdog against hangs, not a timing assertion.
func (g *actGuest) callWithin(name string, args ...uint64) (int32, error) {
	g.t.Helper()
	type result struct {
		res []uint64
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := g.inst.Call(context.Background(), name, args...)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return 0, r.err
		}
		return int32(uint32(r.res[0])), nil
	case <-time.After(time.Minute):
		g.t.Fatalf("%s%v has not returned after a minute", name, args)
		return 0, nil
	}
}

func (g *actGuest) code(name string, args ...uint64) int32 {
	g.t.Helper()
	r, err := g.callWithin(name, args...)
	require.NoError(g.t, err, name)
	return r
}

func (g *actGuest) ok(name string, args ...uint64) {
	g.t.Helper()
	require.Zero(g.t, g.code(name, args...), "%s: %s", name, g.inst.Session().LastError())
}

func (g *actGuest) stream() uint64 {
	g.ok("aclrtCreateStream", 64)
	return uint64(le.Uint32(proxytest.Mem(g.inst)[64:]))
}

// record writes the record op, st, x at address a, returned.
func (g *actGuest) record(a uint32, op, st, x uint64) uint64 {
	m := proxytest.Mem(g.inst)
	le.PutUint32(m[a:], uint32(op))
	le.PutUint32(m[a+4:], uint32(st))
	le.PutUint32(m[a+8:], uint32(x))
	return uint64(a)
}

// log returns what the callbacks logged (the last 8192 values at most).
func (g *actGuest) log() []int32 {
	m := proxytest.Mem(g.inst)
	n := min(le.Uint32(m[0x7ffc:]), 0x2000)
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(le.Uint32(m[0x8000+4*i:]))
	}
	return out
}

// waitDue waits until n callbacks are due and not yet run (a watchdog of a
// minute bounds the wait).
func (g *actGuest) waitDue(n int) {
	g.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for proxytest.Session(g.inst).CallbacksDue() < n {
		require.True(g.t, time.Now().Before(deadline), "%d callbacks never became due", n)
		time.Sleep(time.Millisecond)
	}
}

// TestCallbackDepth: a report callback that relaunches itself and
// processes reports recurses only MaxCallbackDepth deep: there
// aclrtProcessReport fails with 207012 and a message naming the limit,
// and every level returns (without the bound, each level took a new wasm
// stack on wazero, gigabytes within minutes, and wasmtime trapped on its
// stack).
func TestCallbackDepth(t *testing.T) {
	for _, depth := range []int{0, 3} { // the default, and a policy's
		g := newActGuest(t, host.Policy{MaxCallbackDepth: depth, Timeout: 10 * time.Second})
		want := depth
		if want == 0 {
			want = host.DefaultMaxCallbackDepth
		}
		s := g.stream()
		g.ok("aclrtSubscribeReport", 1, s)
		rec := g.record(0x100, opRelaunch, s, 0x100)
		g.ok("aclrtLaunchCallback", 1, rec, 0, s)
		g.ok("aclrtProcessReport", waitForever)
		log := g.log()
		// Each level logs its launch (0), then, innermost first, what its
		// aclrtProcessReport returned: 207012 at the limit, 0 above.
		require.Len(t, log, 2*want, "%v", log)
		for i, v := range log {
			if i == want {
				require.Equal(t, int32(acl.ErrRTOverLimit), v, "%v", log)
			} else {
				require.Zero(t, v, "log[%d]: %v", i, log)
			}
		}
		require.Contains(t, g.inst.Session().LastError(), "aclrtProcessReport: called inside callbacks nested")
		require.Contains(t, g.inst.Session().LastError(), "MaxCallbackDepth")
		// The callback the innermost level launched runs at the next
		// aclrtProcessReport, nesting again as deep.
		g.ok("aclrtProcessReport", waitForever)
		require.Len(t, g.log(), 4*want)
	}
}

// TestCallbackUnwindText: a callback that traps under nested callbacks
// ends the run with the same error, frames included, whatever the depth:
// each level passes the innermost error on, instead of wrapping the one
// below (on wazero each level added the text of the one below, its stack
// trace included: the text grew with the depth, and its unwinding
// quadratically).
func TestCallbackUnwindText(t *testing.T) {
	msgs := map[int]string{}
	for _, depth := range []int{1, 12} {
		g := newActGuest(t, host.Policy{MaxCallbackDepth: 16})
		s := g.stream()
		g.ok("aclrtSubscribeReport", 1, s)
		// A chain of depth-1 relaunching records, then one that traps.
		for i := range depth - 1 {
			a := uint32(0x100 + 16*i)
			g.record(a, opRelaunch, s, uint64(a+16))
		}
		g.record(uint32(0x100+16*(depth-1)), opTrap, 0, 0)
		g.ok("aclrtLaunchCallback", 1, 0x100, 0, s)
		_, err := g.callWithin("aclrtProcessReport", waitForever)
		var te *host.TrapError
		require.True(t, errors.As(err, &te), "depth %d: %v", depth, err)
		msgs[depth] = fmt.Sprintf("%s %v", err, te.Frames)
	}
	require.Equal(t, msgs[1], msgs[12])
}

// TestCallbackForceWhileDue: aclrtDestroyStreamForce and
// aclrtResetDeviceForce while a blocking report callback of the stream is
// due run it meanwhile and return, as other blocking calls do (they
// waited on the guest's own goroutine for the callback, which nothing
// ran, forever).
func TestCallbackForceWhileDue(t *testing.T) {
	for _, fn := range []string{"aclrtDestroyStreamForce", "aclrtResetDeviceForce"} {
		t.Run(fn, func(t *testing.T) {
			g := newActGuest(t, host.Policy{Timeout: 10 * time.Second})
			s := g.stream()
			g.ok("aclrtSubscribeReport", 1, s)
			g.ok("aclrtLaunchCallback", 1, g.record(0x100, opRecord, 0, 0), 1, s) // ACL_CALLBACK_BLOCK
			g.ok("aclrtLaunchCallback", 1, g.record(0x110, opRecord, 0, 0), 1, s)
			g.waitDue(1)
			if fn == "aclrtDestroyStreamForce" {
				g.ok(fn, s)
			} else {
				g.ok(fn, 0)
				g.ok("aclrtSetDevice", 0)
			}
			require.Contains(t, g.log(), int32(0x100), "the due callback ran")
			// The stream is gone; the session goes on.
			require.Equal(t, int32(acl.ErrRTInvalidHandle), g.code("aclrtSynchronizeStream", s))
			s2 := g.stream()
			g.ok("aclrtLaunchHostFunc", s2, 1, g.record(0x120, opRecord, 0, 0))
			g.ok("aclrtSynchronizeStream", s2)
			require.Contains(t, g.log(), int32(0x120))
		})
	}
}

// TestCallbackSelfDestroy: a blocking callback that destroys (or
// synchronizes) its own stream waits for itself, as natively, but the
// run's timeout ends the wait and the run (it waited forever, through the
// timeout and Instance.Close).
func TestCallbackSelfDestroy(t *testing.T) {
	for _, op := range []uint64{opDestroy, opDestroyForce, opSync} {
		g := newActGuest(t, host.Policy{Timeout: 2 * time.Second})
		s := g.stream()
		g.ok("aclrtSubscribeReport", 1, s)
		g.ok("aclrtLaunchCallback", 1, g.record(0x100, op, s, 0), 1, s)
		_, err := g.callWithin("aclrtProcessReport", waitForever)
		require.ErrorIs(t, err, host.ErrTimeout, "op %d", op)
	}
}

// TestCallbackCloseDuringSelfDestroy: Instance.Close while a callback
// waits for its own stream's destruction cancels the run, which returns,
// and Close releases the instance (both hung).
func TestCallbackCloseDuringSelfDestroy(t *testing.T) {
	for _, op := range []uint64{opDestroy, opDestroyForce} {
		g := newActGuest(t, host.Policy{Timeout: host.NoTimeout})
		s := g.stream()
		g.ok("aclrtSubscribeReport", 1, s)
		g.ok("aclrtLaunchCallback", 1, g.record(0x100, op, s, 0), 1, s)
		errs := make(chan error, 1)
		go func() {
			_, err := g.inst.Call(context.Background(), "aclrtProcessReport", waitForever)
			errs <- err
		}()
		<-g.started // the callback runs: it destroys its stream next
		closed := make(chan error, 1)
		go func() { closed <- g.inst.Close(context.Background()) }()
		select {
		case err := <-closed:
			require.NoError(t, err)
		case <-time.After(time.Minute):
			t.Fatalf("op %d: Close has not returned after a minute", op)
		}
		require.ErrorIs(t, <-errs, host.ErrClosed)
	}
}

// TestCallbackPendingLimit: MaxCallbacks bounds the callbacks launched and
// not yet run, never-processed NO_BLOCK ones included (207012 with a
// message naming the limit); running them, or destroying their stream
// before they became due, gives the room back.
func TestCallbackPendingLimit(t *testing.T) {
	const limit = 64
	g := newActGuest(t, host.Policy{MaxCallbacks: limit})
	s := g.stream()
	g.ok("aclrtSubscribeReport", 1, s)
	rec := g.record(0x100, opRecord, 0, 0)
	for range limit {
		g.ok("aclrtLaunchCallback", 1, rec, 0, s)
	}
	require.Equal(t, int32(acl.ErrRTOverLimit), g.code("aclrtLaunchCallback", 1, rec, 0, s))
	require.Contains(t, g.inst.Session().LastError(), "the session already has 64 callbacks launched and not yet run, the policy's limit (MaxCallbacks)")
	h := g.stream()
	require.Equal(t, int32(acl.ErrRTOverLimit), g.code("aclrtLaunchHostFunc", h, 1, rec), "host functions count too")
	for len(g.log()) < limit {
		g.ok("aclrtProcessReport", 60000)
	}
	require.Len(t, g.log(), limit)

	// A blocking callback due and held, the rest queued behind it: a
	// forced destruction runs the one and drops the others, which leave
	// the count.
	for range limit {
		g.ok("aclrtLaunchCallback", 1, rec, 1, s)
	}
	g.waitDue(1)
	g.ok("aclrtDestroyStreamForce", s)
	for range limit {
		g.ok("aclrtLaunchHostFunc", h, 1, rec)
	}
	g.ok("aclrtSynchronizeStream", h)
}

// TestDispatcherType: a module that launches callbacks and exports a
// dispatcher of another type than (i32, i32) -> () is refused at load
// time with the expected signature (one of (f64, f64) loaded, and its
// callbacks ran nothing, silently).
func TestDispatcherType(t *testing.T) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testEngine))
	require.NoError(t, err)
	defer rt.Close(ctx)
	for sig, want := range map[string]string{
		"(param f64 f64)": "(f64, f64) -> ()",
		"(param i32)":     "(i32) -> ()",
		"(param i32 i32) (result i32) i32.const 0": "(i32, i32) -> (i32)",
		"(param i64 i32)":                          "(i64, i32) -> ()",
	} {
		_, err = rt.Load(ctx, testsupport.WAT(t, `(module (import "acl" "aclrtLaunchHostFunc" (func (param i32 i32 i32) (result i32)))
  (memory 1) (func (export "aclwasm_dispatch_callback") `+sig+`))`), host.Policy{})
		var le *host.LoadError
		require.True(t, errors.As(err, &le), "%s: %v", sig, err)
		require.ErrorContains(t, err, "export aclwasm_dispatch_callback has type "+want+": the host calls it as (fn i32, userData i32) -> ()")
	}
	// The right type loads.
	pl, err := rt.Load(ctx, testsupport.WAT(t, `(module (import "acl" "aclrtLaunchHostFunc" (func (param i32 i32 i32) (result i32)))
  (memory 1) (func (export "aclwasm_dispatch_callback") (param i32 i32)))`), host.Policy{})
	require.NoError(t, err)
	require.NoError(t, pl.Close(ctx))
}
