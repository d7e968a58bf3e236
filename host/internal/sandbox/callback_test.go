package sandbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// callbackWAT is a guest with stream callbacks (ABI section 12): the
// imports it needs, re-exported; a table of callbacks; the dispatcher.
// Callbacks log their argument: the count at 1024, the values after it.
// The device address the copy callback reads is at 8.
const callbackWAT = `(module
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $createStream (param i32) (result i32)))
  (import "acl" "aclrtDestroyStream" (func $destroyStream (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeDevice" (func $syncDevice (result i32)))
  (import "acl" "aclrtGetDevice" (func $getDevice (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpyAsync" (func $memcpyAsync (param i64 i64 i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtMemsetAsync" (func $memsetAsync (param i64 i64 i32 i64 i32) (result i32)))
  (import "acl" "aclrtLaunchHostFunc" (func $launch (param i32 i32 i32) (result i32)))
  (import "acl" "aclrtSubscribeReport" (func $subscribe (param i64 i32) (result i32)))
  (import "acl" "aclrtLaunchCallback" (func $launchCallback (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclrtProcessReport" (func $processReport (param i32) (result i32)))
  (import "acl" "aclrtUnSubscribeReport" (func $unsubscribe (param i64 i32) (result i32)))
  (memory (export "memory") 1)
  (type $cb (func (param i32)))
  (type $other (func (param i32 i32)))
  (table 8 funcref)
  (elem (i32.const 1) $record $copyback $trap $spin $relaunch $syncArg $wrongType)
  (func $log (param $v i32)
    (i32.store (i32.add (i32.const 1028) (i32.mul (i32.load (i32.const 1024)) (i32.const 4))) (local.get $v))
    (i32.store (i32.const 1024) (i32.add (i32.load (i32.const 1024)) (i32.const 1))))
  ;; 1: log the argument
  (func $record (param $a i32) (call $log (local.get $a)))
  ;; 2: copy 4 bytes of the device buffer at [8] to guest address a, synchronously; log 200 + the call's result
  (func $copyback (param $a i32)
    (call $log (i32.add (i32.const 200)
      (call $memcpy (i64.extend_i32_u (local.get $a)) (i64.const 4) (i64.load (i32.const 8)) (i64.const 4) (i32.const 2)))))
  ;; 3: trap
  (func $trap (param i32) unreachable)
  ;; 4: never return
  (func $spin (param i32) (loop $l (br $l)))
  ;; 5: launch callback 1 with 77 on stream a; log 300 + its result
  (func $relaunch (param $a i32)
    (call $log (i32.add (i32.const 300) (call $launch (local.get $a) (i32.const 1) (i32.const 77)))))
  ;; 6: synchronize stream a (other callbacks may run meanwhile); log 400 + the result
  (func $syncArg (param $a i32)
    (call $log (i32.add (i32.const 400) (call $sync (local.get $a)))))
  ;; 7: not of type $cb
  (func $wrongType (param i32 i32))
  (func (export "aclwasm_dispatch_callback") (param $fn i32) (param $arg i32)
    (call_indirect (type $cb) (local.get $arg) (local.get $fn)))
  (func (export "aclrtSetDevice") (param i32) (result i32) (call $setDevice (local.get 0)))
  (func (export "aclrtCreateStream") (param i32) (result i32) (call $createStream (local.get 0)))
  (func (export "aclrtDestroyStream") (param i32) (result i32) (call $destroyStream (local.get 0)))
  (func (export "aclrtSynchronizeStream") (param i32) (result i32) (call $sync (local.get 0)))
  (func (export "aclrtSynchronizeDevice") (result i32) (call $syncDevice))
  (func (export "aclrtGetDevice") (param i32) (result i32) (call $getDevice (local.get 0)))
  (func (export "aclrtMalloc") (param i32 i64 i32) (result i32) (call $malloc (local.get 0) (local.get 1) (local.get 2)))
  (func (export "aclrtMemcpy") (param i64 i64 i64 i64 i32) (result i32)
    (call $memcpy (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)))
  (func (export "aclrtMemcpyAsync") (param i64 i64 i64 i64 i32 i32) (result i32)
    (call $memcpyAsync (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)))
  (func (export "aclrtMemsetAsync") (param i64 i64 i32 i64 i32) (result i32)
    (call $memsetAsync (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)))
  (func (export "aclrtLaunchHostFunc") (param i32 i32 i32) (result i32) (call $launch (local.get 0) (local.get 1) (local.get 2)))
  (func (export "aclrtSubscribeReport") (param i64 i32) (result i32) (call $subscribe (local.get 0) (local.get 1)))
  (func (export "aclrtLaunchCallback") (param i32 i32 i32 i32) (result i32)
    (call $launchCallback (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
  (func (export "aclrtProcessReport") (param i32) (result i32) (call $processReport (local.get 0)))
  (func (export "aclrtUnSubscribeReport") (param i64 i32) (result i32) (call $unsubscribe (local.get 0) (local.get 1))))`

// The callbacks of callbackWAT's table.
const (
	cbRecord = 1 + iota
	cbCopyback
	cbTrap
	cbSpin
	cbRelaunch
	cbSync
	cbWrongType
)

// cbGuest is one instance of callbackWAT with device 0 set.
type cbGuest struct {
	t    *testing.T
	inst *host.Instance
}

// newCBGuest instantiates callbackWAT under p, on the test backend or the
// given options' backend.
func newCBGuest(t *testing.T, p host.Policy, opts ...host.Option) *cbGuest {
	t.Helper()
	ctx := context.Background()
	if len(opts) == 0 {
		opts = proxytest.Backend(t)
	}
	rt, err := host.NewRuntime(ctx, append(opts, host.WithEngine(testEngine))...)
	require.NoError(t, err)
	pl, err := rt.Load(ctx, testsupport.WAT(t, callbackWAT), p)
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, inst.Close(ctx))
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	g := &cbGuest{t: t, inst: inst}
	g.ok("aclrtSetDevice", 0)
	return g
}

func (g *cbGuest) call(name string, args ...uint64) (int32, error) {
	res, err := g.inst.Call(context.Background(), name, args...)
	if err != nil {
		return 0, err
	}
	return int32(uint32(res[0])), nil
}

func (g *cbGuest) code(name string, args ...uint64) int32 {
	g.t.Helper()
	r, err := g.call(name, args...)
	require.NoError(g.t, err, name)
	return r
}

func (g *cbGuest) ok(name string, args ...uint64) {
	g.t.Helper()
	require.Zero(g.t, g.code(name, args...), "%s: %s", name, g.inst.Session().LastError())
}

func (g *cbGuest) stream() uint64 {
	g.ok("aclrtCreateStream", 64)
	return uint64(le.Uint32(proxytest.Mem(g.inst)[64:]))
}

func (g *cbGuest) malloc(n uint64) uint64 {
	g.ok("aclrtMalloc", 72, n, 0)
	return le.Uint64(proxytest.Mem(g.inst)[72:])
}

// log returns what the callbacks logged so far.
func (g *cbGuest) log() []uint32 {
	m := proxytest.Mem(g.inst)
	n := le.Uint32(m[1024:])
	out := make([]uint32, n)
	for i := range out {
		out[i] = le.Uint32(m[1028+4*i:])
	}
	return out
}

// TestLaunchHostFuncOrder: callbacks run in stream order, inside the
// synchronize that waits for them, each after the work queued before it
// and before the work queued after it; a callback calls imports (a copy,
// a launch, a synchronize that runs another callback meanwhile).
func TestLaunchHostFuncOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(t *testing.T) []host.Option
	}{
		{"default", func(t *testing.T) []host.Option { return proxytest.Backend(t) }},
		{"timing", func(t *testing.T) []host.Option {
			b := sim.New(sim.WithTiming())
			t.Cleanup(func() { b.Close() })
			return []host.Option{host.WithBackend(b)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "timing" && len(proxytest.Backend(t)) > 0 {
				t.Skip("the simulator's timing model: the default backend run covers the native one")
			}
			g := newCBGuest(t, host.Policy{}, tc.opts(t)...)
			s1, s2 := g.stream(), g.stream()
			d := g.malloc(4096)
			mem := proxytest.Mem(g.inst)
			le.PutUint64(mem[8:], d)

			// A memset, the callback that copies the buffer back, a memset
			// after it: the callback sees the first memset's bytes.
			g.ok("aclrtMemsetAsync", d, 4096, 0xab, 4096, s1)
			g.ok("aclrtLaunchHostFunc", s1, cbRecord, 1)
			g.ok("aclrtLaunchHostFunc", s2, cbRecord, 2)
			g.ok("aclrtLaunchHostFunc", s1, cbCopyback, 512)
			g.ok("aclrtMemsetAsync", d, 4096, 0x11, 4096, s1)
			g.ok("aclrtLaunchHostFunc", s1, cbRecord, 3)
			g.ok("aclrtSynchronizeStream", s1)
			log := g.log()
			require.Subset(t, log, []uint32{1, 200, 3})
			require.Less(t, indexOf(log, 1), indexOf(log, 200))
			require.Less(t, indexOf(log, 200), indexOf(log, 3))
			require.Equal(t, []byte{0xab, 0xab, 0xab, 0xab}, proxytest.Mem(g.inst)[512:516])
			g.ok("aclrtSynchronizeStream", s2)
			require.Contains(t, g.log(), uint32(2))
			// The memset after the callback ran after it.
			g.ok("aclrtMemcpy", 600, 4, d, 4, 2)
			require.Equal(t, []byte{0x11, 0x11, 0x11, 0x11}, proxytest.Mem(g.inst)[600:604])

			// A callback launching one; one synchronizing another stream
			// whose callback then runs inside it.
			n := len(g.log())
			g.ok("aclrtLaunchHostFunc", s1, cbRelaunch, uint32ToU64(s1))
			g.ok("aclrtSynchronizeStream", s1)
			g.ok("aclrtSynchronizeStream", s1) // the relaunched one
			require.Equal(t, []uint32{300, 77}, g.log()[n:])
			n = len(g.log())
			g.ok("aclrtLaunchHostFunc", s2, cbRecord, 5)
			g.ok("aclrtLaunchHostFunc", s1, cbSync, uint32ToU64(s2))
			g.ok("aclrtSynchronizeDevice")
			require.ElementsMatch(t, []uint32{5, 400}, g.log()[n:])

			// A callback on the default stream (NULL), and a pageable copy
			// that waits for the stream's callback before it copies.
			n = len(g.log())
			g.ok("aclrtLaunchHostFunc", 0, cbRecord, 6)
			g.ok("aclrtLaunchHostFunc", s1, cbRecord, 7)
			g.ok("aclrtMemcpyAsync", 700, 4, d, 4, 2, s1) // guest memory is not registered: synchronous
			require.Contains(t, g.log()[n:], uint32(7))
			g.ok("aclrtSynchronizeStream", 0)
			require.Contains(t, g.log()[n:], uint32(6))
		})
	}
}

func uint32ToU64(v uint64) uint64 { return uint64(uint32(v)) }

func indexOf(s []uint32, v uint32) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestLaunchHostFuncNextCall: a callback that became due while the guest
// ran runs at the start of its next host call, whatever the call.
func TestLaunchHostFuncNextCall(t *testing.T) {
	g := newCBGuest(t, host.Policy{})
	s := g.stream()
	g.ok("aclrtLaunchHostFunc", s, cbRecord, 9)
	deadline := time.Now().Add(time.Minute) // a watchdog, not a timing assertion
	for len(g.log()) == 0 {
		require.True(t, time.Now().Before(deadline), "the callback never ran")
		g.ok("aclrtGetDevice", 128)
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, []uint32{9}, g.log())
}

// TestLaunchHostFuncChecks: the native checks, in order.
func TestLaunchHostFuncChecks(t *testing.T) {
	g := newCBGuest(t, host.Policy{})
	s := g.stream()
	require.Equal(t, int32(acl.ErrRTInvalidHandle), g.code("aclrtLaunchHostFunc", 999, 0, 0), "stream before fn")
	require.Equal(t, int32(acl.ErrRTParamInvalid), g.code("aclrtLaunchHostFunc", s, 0, 0))
	require.Contains(t, g.inst.Session().LastError(), "fn is NULL")
	require.Empty(t, g.log())
}

// TestLaunchHostFuncTraps: a callback that traps, one with an index
// outside the table and one of the wrong type end the run as a trap of
// the call they ran in; the session is released with the callback queued
// after them, and nothing leaks.
func TestLaunchHostFuncTraps(t *testing.T) {
	for _, fn := range []uint64{cbTrap, 100, cbWrongType} {
		g := newCBGuest(t, host.Policy{})
		s := g.stream()
		g.ok("aclrtLaunchHostFunc", s, fn, 0)
		// The callback runs at the start of this call if it is due by
		// then, else inside the synchronize.
		_, err := g.call("aclrtLaunchHostFunc", s, cbRecord, 1)
		if err == nil {
			_, err = g.call("aclrtSynchronizeStream", s)
		}
		var te *host.TrapError
		require.True(t, errors.As(err, &te), "fn %d: %v", fn, err)
		require.ErrorIs(t, err, host.ErrTrap) // the instance is finished: its memory is gone
		t.Log(err)
	}
}

// TestLaunchHostFuncTimeout: a callback that never returns is stopped by
// the run's timeout.
func TestLaunchHostFuncTimeout(t *testing.T) {
	g := newCBGuest(t, host.Policy{Timeout: 200 * time.Millisecond})
	s := g.stream()
	g.ok("aclrtLaunchHostFunc", s, cbSpin, 0)
	_, err := g.call("aclrtSynchronizeStream", s)
	require.ErrorIs(t, err, host.ErrTimeout)
}

// TestLaunchHostFuncPendingAtEnd: callbacks still queued when the
// instance closes never run, their streams are let go, and no goroutine
// is left (TestMain's goleak).
func TestLaunchHostFuncPendingAtEnd(t *testing.T) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testEngine))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, callbackWAT), host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	g := &cbGuest{t: t, inst: inst}
	g.ok("aclrtSetDevice", 0)
	s := g.stream()
	d := g.malloc(1 << 20)
	g.ok("aclrtMemsetAsync", d, 1<<20, 1, 1<<20, s)
	for range 4 {
		g.ok("aclrtLaunchHostFunc", s, cbRecord, 1)
		g.ok("aclrtLaunchHostFunc", 0, cbRecord, 2)
	}
	g.ok("aclrtMemsetAsync", d, 1<<20, 2, 1<<20, s)
	require.NoError(t, inst.Close(ctx))
}

// TestLaunchHostFuncNeedsDispatcher: a module that imports
// aclrtLaunchHostFunc without exporting the dispatcher is refused at load
// time, naming the SDK option.
func TestLaunchHostFuncNeedsDispatcher(t *testing.T) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testEngine))
	require.NoError(t, err)
	defer rt.Close(ctx)
	for _, mod := range []string{"acl", "acl32"} {
		_, err = rt.Load(ctx, testsupport.WAT(t, `(module (import "`+mod+`" "aclrtLaunchHostFunc" (func (param i32 i32 i32) (result i32))) (memory 1))`), host.Policy{})
		var le *host.LoadError
		require.True(t, errors.As(err, &le), "%v", err)
		require.ErrorContains(t, err, mod+".aclrtLaunchHostFunc needs the export aclwasm_dispatch_callback")
		require.ErrorContains(t, err, "C/C++: link the SDK's library libaclwasm.a, as `pkg-config --libs aclwasm` says (-laclwasm)")
	}
}

// TestLaunchCallback: report callbacks run inside aclrtProcessReport (and
// blocking waits), in stream order against the copies around them;
// ACL_CALLBACK_BLOCK holds the stream's later work, NO_BLOCK does not; a
// stream takes host functions or report callbacks, not both; the
// subscription checks give the native codes.
func TestLaunchCallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(t *testing.T) []host.Option
	}{
		{"default", func(t *testing.T) []host.Option { return proxytest.Backend(t) }},
		{"timing", func(t *testing.T) []host.Option {
			b := sim.New(sim.WithTiming())
			t.Cleanup(func() { b.Close() })
			return []host.Option{host.WithBackend(b)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "timing" && len(proxytest.Backend(t)) > 0 {
				t.Skip("the simulator's timing model: the default backend run covers the native one")
			}
			g := newCBGuest(t, host.Policy{}, tc.opts(t)...)
			s, other := g.stream(), g.stream()
			d := g.malloc(4096)
			le.PutUint64(proxytest.Mem(g.inst)[8:], d)

			require.Equal(t, int32(107012), g.code("aclrtProcessReport", 10), "no stream bound")
			require.Equal(t, int32(107015), g.code("aclrtLaunchCallback", cbRecord, 1, 1, s), "not bound")
			g.ok("aclrtSubscribeReport", 42, s)
			require.Equal(t, int32(107011), g.code("aclrtSubscribeReport", 42, s), "bound twice")
			require.Equal(t, int32(107011), g.code("aclrtLaunchHostFunc", s, cbRecord, 1), "a bound stream takes no host functions")
			g.ok("aclrtLaunchHostFunc", other, cbRecord, 1)
			g.ok("aclrtSynchronizeStream", other)
			require.Equal(t, int32(107011), g.code("aclrtSubscribeReport", 42, other), "a host function's stream cannot be bound")
			require.Equal(t, int32(acl.ErrInvalidParam), g.code("aclrtLaunchCallback", cbRecord, 1, 2, s), "blockType")

			n := len(g.log())
			g.ok("aclrtMemsetAsync", d, 4096, 0xcd, 4096, s)
			g.ok("aclrtLaunchCallback", cbCopyback, 512, 1, s) // ACL_CALLBACK_BLOCK
			g.ok("aclrtMemsetAsync", d, 4096, 0x22, 4096, s)
			g.ok("aclrtLaunchCallback", cbRecord, 8, 0, s) // NO_BLOCK
			for len(g.log()) < n+2 {
				g.ok("aclrtProcessReport", 60000) // runs at least one
			}
			require.Equal(t, []uint32{200, 8}, g.log()[n:])
			require.Equal(t, []byte{0xcd, 0xcd, 0xcd, 0xcd}, proxytest.Mem(g.inst)[512:516])
			g.ok("aclrtSynchronizeStream", s)
			g.ok("aclrtMemcpy", 600, 4, d, 4, 2)
			require.Equal(t, []byte{0x22, 0x22, 0x22, 0x22}, proxytest.Mem(g.inst)[600:604])
			require.Equal(t, int32(507012), g.code("aclrtProcessReport", 20), "nothing due")

			// A blocking wait runs them too.
			g.ok("aclrtLaunchCallback", cbRecord, 10, 1, s)
			g.ok("aclrtSynchronizeStream", s)
			require.Equal(t, uint32(10), g.log()[len(g.log())-1])

			require.Equal(t, int32(107012), g.code("aclrtUnSubscribeReport", 7, s), "another thread id")
			g.ok("aclrtUnSubscribeReport", 42, s)
			require.Equal(t, int32(107011), g.code("aclrtUnSubscribeReport", 42, s), "not bound")
		})
	}
}

// TestCallbacksKeepRoles: once a session subscribed a stream to report
// callbacks (from then on its blocking waits run the callbacks that
// become due, through a wrapper of its backend), it still reaches the
// backend's optional roles (acl.Traits): a reduce computes, on either
// backend, as it did before the subscription.
func TestCallbacksKeepRoles(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	h.OK("aclrtSubscribeReport", 1, s)
	const n = 64
	src, dst := h.Malloc(n), h.Malloc(n)
	srcB, dstB := reduceData(acl.DTInt32, n, 1), reduceData(acl.DTInt32, n, 2)
	copy(h.Mem()[data:], srcB)
	h.OK("aclrtMemcpy", src, n, data, n, 1)
	copy(h.Mem()[data:], dstB)
	h.OK("aclrtMemcpy", dst, n, data, n, 1)
	require.Equal(t, acl.Success, h.reduce(dst, src, n, acl.ReduceSum, acl.DTInt32, s), h.Inst.Session().LastError())
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data, n, dst, n, 2)
	require.Equal(t, refReduce(t, acl.ReduceSum, acl.DTInt32, dstB, srcB), h.Mem()[data:data+n])
	h.OK("aclrtUnSubscribeReport", 1, s)
}
