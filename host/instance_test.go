package host_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Regression tests of how runs and instances end: exits, traps and
// timeouts in a start function, blocking WASI calls, exits from a
// reactor's export, WASI imports at load time, and Close or a second call
// during a call. Every one runs on the engine the suite runs on
// (ACLWASM_TEST_ENGINE).

// guard fails the test if fn has not returned after a generous time:
// a hang, not a measurement.
func guard[T any](t *testing.T, what string, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(60 * time.Second):
		t.Fatalf("%s hangs", what)
		panic("unreachable")
	}
}

type runEnd struct {
	res host.Result
	err error
}

// startExitWAT allocates device memory in its start function, then exits
// there with the code given; _start and _initialize would exit with 99
// and 98 if they ran.
const startExitWAT = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func $init
    (drop (call $set (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 4096) (i32.const 0)))
    (call $exit (i32.const %d)))
  (start $init)
  (func (export "_start") (call $exit (i32.const 99)))
  (func (export "_initialize") (call $exit (i32.const 98))))
`

// TestStartFunctionExit: an exit in a start function, with code 0 too,
// ends a Run as the same exit from _start would (_start does not run), and
// fails an Instantiate with the *ExitError; nothing panics and the session
// is released. It used to panic on wazero for code 0 (a nil instance) and
// be reported as a trap ("no instance") on wasmtime.
func TestStartFunctionExit(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	for _, code := range []uint32{0, 3} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			pl := proxytest.Load(t, rt, testsupport.WAT(t, fmt.Sprintf(startExitWAT, code)), host.Policy{})
			res, err := pl.Run(context.Background(), host.Config{})
			require.NoError(t, err)
			require.Equal(t, code, res.ExitCode, "the start function's code, not _start's")
			require.Equal(t, uint64(1), res.Stats.Funcs["aclrtMalloc"].Calls)
			require.Equal(t, base, proxytest.FreeMem(t, rt))

			inst, err := pl.Instantiate(context.Background(), host.Config{})
			require.Nil(t, inst)
			var ee *host.ExitError
			require.ErrorAs(t, err, &ee)
			require.Equal(t, code, ee.Code)
			require.ErrorContains(t, err, "start function")
			require.Equal(t, base, proxytest.FreeMem(t, rt))
		})
	}
}

// TestFailedInstantiationReleasesEverything: however an instantiation
// fails (a trap, an exit or a timeout in the start function, a data
// segment out of bounds), the guest's memory and the session are released.
// On wazero a failing start function used to leave its module unclosed
// and its memory mapped.
func TestFailedInstantiationReleasesEverything(t *testing.T) {
	const startWAT = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (memory (export "memory") 17)
  (func $init
    (memory.fill (i32.const 0x10000) (i32.const 1) (i32.const 0x100000)) ;; touch 1 MiB
    (drop (call $set (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 4096) (i32.const 0)))
    %s)
  (start $init)
  (func (export "_start")))
`
	rt := proxytest.Runtime(t)
	base, live := proxytest.FreeMem(t, rt), engine.LiveMemories.Load()
	for _, tc := range []struct {
		name, wat string
		want      error
	}{
		{"trap", fmt.Sprintf(startWAT, "unreachable"), host.ErrTrap},
		{"exit", fmt.Sprintf(startWAT, "(call $exit (i32.const 7))"), &host.ExitError{Code: 7}},
		{"timeout", fmt.Sprintf(startWAT, "(loop $l (br $l))"), host.ErrTimeout},
		{"data out of bounds", `(module (memory 1) (data (i32.const 65535) "ab") (func (export "_start")))`, host.ErrTrap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := proxytest.Load(t, rt, testsupport.WAT(t, tc.wat), host.Policy{Timeout: 200 * time.Millisecond})
			for range 4 {
				inst, err := pl.Instantiate(context.Background(), host.Config{})
				require.Nil(t, inst)
				var ee *host.ExitError
				if errors.As(tc.want, &ee) {
					require.ErrorAs(t, err, &ee)
					require.Equal(t, uint32(7), ee.Code)
				} else {
					require.ErrorIs(t, err, tc.want)
				}
				res, err := pl.Run(context.Background(), host.Config{})
				if ee != nil {
					require.NoError(t, err)
					require.Equal(t, uint32(7), res.ExitCode)
				} else {
					require.ErrorIs(t, err, tc.want)
				}
			}
			require.Equal(t, live, engine.LiveMemories.Load(), "every guest memory was released")
			require.Equal(t, base, proxytest.FreeMem(t, rt))
		})
	}
}

// TestStartFunctionTimeout: a timeout in a start function is a timeout
// (it was reported as exit code 4026531839 on wazero), whether the guest
// spins or blocks in a host call.
func TestStartFunctionTimeout(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	for _, tc := range []struct{ name, body string }{
		{"spin", "(loop $l (br $l))"},
		{"blocked in a host call", `
    (drop (call $stream (i32.const 0)))
    (drop (call $event (i32.const 4)))
    (drop (call $record (i32.load (i32.const 4)) (i32.load (i32.const 0))))
    (drop (call $reset (i32.load (i32.const 4)) (i32.load (i32.const 0))))
    (drop (call $sync (i32.load (i32.const 0))))
    (drop (call $wait (i32.load (i32.const 0)) (i32.load (i32.const 4))))
    (drop (call $record (i32.load (i32.const 4)) (i32.load (i32.const 0))))
    (drop (call $sync (i32.load (i32.const 0))))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wat := `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $stream (param i32) (result i32)))
  (import "acl" "aclrtCreateEvent" (func $event (param i32) (result i32)))
  (import "acl" "aclrtStreamWaitEvent" (func $wait (param i32 i32) (result i32)))
  (import "acl" "aclrtRecordEvent" (func $record (param i32 i32) (result i32)))
  (import "acl" "aclrtResetEvent" (func $reset (param i32 i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (memory (export "memory") 1)
  (func $init (drop (call $set (i32.const 0))) ` + tc.body + `)
  (start $init)
  (func (export "_start")))`
			pl := proxytest.Load(t, rt, testsupport.WAT(t, wat), host.Policy{Timeout: 200 * time.Millisecond})
			end := guard(t, "Run", func() runEnd {
				res, err := pl.Run(context.Background(), host.Config{})
				return runEnd{res, err}
			})
			require.ErrorIs(t, end.err, host.ErrTimeout)
			require.Zero(t, end.res.ExitCode)
			err := guard(t, "Instantiate", func() error {
				_, err := pl.Instantiate(context.Background(), host.Config{})
				return err
			})
			require.ErrorIs(t, err, host.ErrTimeout)
			require.Equal(t, base, proxytest.FreeMem(t, rt))
		})
	}
}

// TestReactorExitEndsInstance: an export that calls proc_exit, with code
// 0 too, gives an *ExitError and ends the instance: its session is
// released and later calls fail with ErrClosed. On wazero it used to
// return no results and no error, call after call, its device memory held.
func TestReactorExitEndsInstance(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "aclrtSetDevice") (param i32) (result i32) (call $set (local.get 0)))
  (func (export "aclrtMalloc") (param i32 i64 i32) (result i32) (call $malloc (local.get 0) (local.get 1) (local.get 2)))
  (func (export "quit") (param i32) (call $exit (local.get 0))))`), host.Policy{})
	for _, code := range []uint64{0, 5} {
		inst, err := pl.Instantiate(context.Background(), host.Config{})
		require.NoError(t, err)
		h := &proxytest.Harness{T: t, RT: rt, Inst: inst}
		h.OK("aclrtSetDevice", 0)
		h.Malloc(1 << 20)
		_, err = inst.Call(context.Background(), "quit", code)
		var ee *host.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, uint32(code), ee.Code)
		require.Equal(t, base, proxytest.FreeMem(t, rt), "the session was released")
		_, err = inst.Call(context.Background(), "aclrtSetDevice", 0)
		require.ErrorIs(t, err, host.ErrClosed)
		require.NoError(t, inst.Close(context.Background()))
	}
}

// TestWASIImportsChecked: imports of wasi_snapshot_preview1 are checked at
// load time like those of "acl": they used to pass and fail to link at
// instantiation, as a trap.
func TestWASIImportsChecked(t *testing.T) {
	rt := proxytest.Runtime(t)
	for _, tc := range []struct{ name, wat, want string }{
		{"unknown function", `(module (import "wasi_snapshot_preview1" "nonexistent_fn" (func)))`,
			"import wasi_snapshot_preview1.nonexistent_fn is not a function of WASI preview1"},
		{"wrong signature", `(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32) (result i32))))`,
			"import wasi_snapshot_preview1.fd_write has signature (i32) -> i32, WASI preview1 expects (i32, i32, i32, i32) -> i32"},
		{"proc_exit with a result", `(module (import "wasi_snapshot_preview1" "proc_exit" (func (param i32) (result i32))))`,
			"WASI preview1 expects (i32) -> "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rt.Load(context.Background(), testsupport.WAT(t, tc.wat), host.Policy{})
			require.ErrorIs(t, err, host.ErrLoad)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestBlockingWASIHonorsTimeout: the policy's timeout ends a guest blocked
// in fd_read on a stdin that stays open (it used to wait for the input to
// close, on both engines) or in poll_oneoff on a long clock (wasmtime
// slept it all).
func TestBlockingWASIHonorsTimeout(t *testing.T) {
	const readWAT = `(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store (i32.const 16) (i32.const 1024)) (i32.store (i32.const 20) (i32.const 100))
    (drop (call $read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 32)))))`
	// pollWAT sleeps an hour, again and again.
	const pollWAT = `(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store8 (i32.const 8) (i32.const 0))             ;; clock
    (i64.store (i32.const 24) (i64.const 3600000000000)) ;; 1 h, relative
    (loop $l (drop (call $poll (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128))) (br $l))))`
	rt := proxytest.Runtime(t)
	for _, tc := range []struct{ name, wat string }{{"fd_read", readWAT}, {"poll_oneoff", pollWAT}} {
		t.Run(tc.name, func(t *testing.T) {
			pl := proxytest.Load(t, rt, testsupport.WAT(t, tc.wat), host.Policy{Timeout: 200 * time.Millisecond})
			pr, pw := io.Pipe()
			defer pw.Close() // lets the read blocked in the background return
			end := guard(t, "Run", func() runEnd {
				res, err := pl.Run(context.Background(), host.Config{Stdin: pr})
				return runEnd{res, err}
			})
			require.ErrorIs(t, end.err, host.ErrTimeout)

			inst, err := pl.Instantiate(context.Background(), host.Config{Stdin: pr})
			require.NoError(t, err)
			err = guard(t, "Call", func() error {
				_, err := inst.Call(context.Background(), "_start")
				return err
			})
			require.ErrorIs(t, err, host.ErrTimeout)
			require.NoError(t, inst.Close(context.Background()))
		})
	}
}

// TestCloseDuringCall: closing an instance or its plugin while a call runs
// (spinning, or blocked in a host call) cancels the call, waits for it and
// then releases; the call ends with ErrCanceled and ErrClosed. It once
// crashed in wasmtime_store_delete.
func TestCloseDuringCall(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	wasm := testsupport.Proxy(abi.Wide, 4)
	// blocked makes a call of h block in aclrtSynchronizeStream.
	blocked := func(h *proxytest.Harness) (string, []uint64) {
		h.OK("aclrtSetDevice", 0)
		h.Malloc(4096)
		s, ev := h.Stream(), h.Waitable()
		h.OK("aclrtStreamWaitEvent", s, ev) // for its next record, which is queued behind the wait
		h.OK("aclrtRecordEvent", ev, s)
		return "aclrtSynchronizeStream", []uint64{s}
	}
	spin := func(*proxytest.Harness) (string, []uint64) { return "spin", nil }
	for _, tc := range []struct {
		name   string
		call   func(*proxytest.Harness) (string, []uint64)
		plugin bool // close the plugin, not the instance
	}{
		{"spin", spin, false},
		{"blocked", blocked, false},
		{"plugin spin", spin, true},
		{"plugin blocked", blocked, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := rt.Load(context.Background(), wasm, host.Policy{})
			require.NoError(t, err)
			defer pl.Close(context.Background())
			inst, err := pl.Instantiate(context.Background(), host.Config{})
			require.NoError(t, err)
			h := &proxytest.Harness{T: t, RT: rt, Inst: inst}
			name, args := tc.call(h)
			ended := make(chan error, 1)
			go func() {
				_, err := inst.Call(context.Background(), name, args...)
				ended <- err
			}()
			waitBusy(t, inst, ended)
			closed := guard(t, "Close", func() error {
				if tc.plugin {
					return pl.Close(context.Background())
				}
				return inst.Close(context.Background())
			})
			require.NoError(t, closed)
			err = <-ended // Close returned after the call did
			require.ErrorIs(t, err, host.ErrCanceled)
			require.ErrorIs(t, err, host.ErrClosed)
			require.Equal(t, base, proxytest.FreeMem(t, rt))
			_, err = inst.Call(context.Background(), "spin")
			require.ErrorIs(t, err, host.ErrClosed)
			require.NoError(t, inst.Close(context.Background()))
		})
	}

	t.Run("plugin during a run", func(t *testing.T) {
		pl, err := rt.Load(context.Background(), testsupport.WAT(t, `(module (memory 1) (func (export "_start") (loop $l (br $l))))`), host.Policy{})
		require.NoError(t, err)
		ended := make(chan error, 1)
		go func() {
			_, err := pl.Run(context.Background(), host.Config{})
			ended <- err
		}()
		for {
			if pl.Live() > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, guard(t, "Plugin.Close", func() error { return pl.Close(context.Background()) }))
		err = <-ended // cancelled in _start, or refused before it
		require.ErrorIs(t, err, host.ErrClosed)
		_, err = pl.Run(context.Background(), host.Config{})
		require.ErrorIs(t, err, host.ErrClosed)
	})
}

// waitBusy waits until inst has a call in progress (armed: Close would
// cancel it), failing if the call ended instead.
func waitBusy(t *testing.T, inst *host.Instance, ended chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-ended:
			t.Fatalf("the call ended at once: %v", err)
		default:
		}
		if inst.Armed() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the call never started")
}

// proxyOnDevice0 instantiates the proxy guest with device 0 set; the
// instance is closed when the test ends.
func proxyOnDevice0(t *testing.T, rt *host.Runtime) *host.Instance {
	t.Helper()
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close(context.Background()) })
	_, err = inst.Call(context.Background(), "aclrtSetDevice", 0)
	require.NoError(t, err)
	return inst
}

// TestOverlappingCalls: calls of one instance from several goroutines at
// once are refused with ErrBusy instead of racing on the instance (run
// with -race); the instance stays usable.
func TestOverlappingCalls(t *testing.T) {
	rt := proxytest.Runtime(t)
	inst := proxyOnDevice0(t, rt)
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		ok, busy   int
		unexpected []error
	)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				res, err := inst.Call(context.Background(), "aclrtGetDeviceCount", uint64(0x100+8*g))
				mu.Lock()
				switch {
				case err == nil && len(res) == 1 && res[0] == 0:
					ok++
				case errors.Is(err, host.ErrBusy):
					busy++
				default:
					unexpected = append(unexpected, fmt.Errorf("%v %v", res, err))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Empty(t, unexpected)
	require.Positive(t, ok)
	require.Equal(t, 8*200, ok+busy)
	_, err := inst.Call(context.Background(), "aclrtGetDevice", outA)
	require.NoError(t, err)
}

// TestReexportedImport: a guest may export an import of "acl" as is; the
// host calling it gets the import's result (it used to trap on wazero on a
// nil pointer dereference in the adapter, recovered by wazero).
func TestReexportedImport(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, `(module
  (import "acl" "aclrtSetDevice" (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (export "aclrtSetDevice" (func 0)))`), host.Policy{})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	defer inst.Close(context.Background())
	res, err := inst.Call(context.Background(), "aclrtSetDevice", 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, res)
}

// TestEmbedderOpsDuringCall: the embedder's operations on an instance's
// memory and address space (ReadMemory, WriteMemory, Lend, Revoke) fail
// with ErrBusy while a call runs, instead of racing with the guest, and
// with ErrClosed once the instance has ended (Revoke: nil, the lease ended
// with it). go test -race fails this test without the guard.
func TestEmbedderOpsDuringCall(t *testing.T) {
	rt := proxytest.Runtime(t)
	inst := proxyOnDevice0(t, rt)
	ptr, err := rt.Backend().Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	defer rt.Backend().Free(context.Background(), ptr)
	lease, err := inst.Lend(ptr, 64, host.LendOptions{})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		for { // the polling below may hold the instance as the call starts
			_, err := inst.Call(ctx, "spin")
			if !errors.Is(err, host.ErrBusy) {
				done <- err
				return
			}
			runtime.Gosched()
		}
	}()
	ops := map[string]func() error{
		"ReadMemory":  func() error { _, err := inst.ReadMemory(0, 8); return err },
		"WriteMemory": func() error { return inst.WriteMemory(0, []byte{1}) },
		"Lend":        func() error { _, err := inst.Lend(ptr, 64, host.LendOptions{}); return err },
		"Revoke":      func() error { return lease.Revoke(context.Background()) },
	}
	// Until the spin has started, an op may still get in first.
	for deadline := time.Now().Add(time.Minute); ; {
		err := ops["ReadMemory"]()
		if errors.Is(err, host.ErrBusy) {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the spinning call ended: %v", err)
		default:
		}
		require.True(t, time.Now().Before(deadline), "the spinning call never started: %v", err)
		runtime.Gosched()
	}
	for name, op := range ops {
		require.ErrorIs(t, op(), host.ErrBusy, name)
	}
	cancel()
	require.ErrorIs(t, <-done, host.ErrCanceled)
	for name, op := range ops {
		if name == "Revoke" {
			require.NoError(t, op(), name)
			continue
		}
		require.ErrorIs(t, op(), host.ErrClosed, name)
	}
}

// TestDeadlineDuringStartReleasesMemory: a policy timeout that ends the
// start function at any point (guest code, a host call, proc_exit) leaves
// no guest memory behind. wazero keeps the memory of a module it closed
// because a call's context ended; the adapter frees it. Before that, most
// of these runs leaked one reservation each.
func TestDeadlineDuringStartReleasesMemory(t *testing.T) {
	const wat = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (memory (export "memory") 17)
  (func $init
    (memory.fill (i32.const 0x10000) (i32.const 1) (i32.const 0x100000))
    (drop (call $set (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 4096) (i32.const 0)))
    (call $exit (i32.const 7)))
  (start $init)
  (func (export "_start")))`
	rt := proxytest.Runtime(t)
	live := engine.LiveMemories.Load()
	for _, d := range []time.Duration{100 * time.Microsecond, 300 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond} {
		pl := proxytest.Load(t, rt, testsupport.WAT(t, wat), host.Policy{Timeout: d})
		for range 10 {
			if inst, err := pl.Instantiate(context.Background(), host.Config{}); err == nil {
				require.NoError(t, inst.Close(context.Background()))
			}
			_, _ = pl.Run(context.Background(), host.Config{}) // an exit or a timeout, depending on the race
		}
		require.Equal(t, live, engine.LiveMemories.Load(), "guest memories still live after runs with a %v timeout", d)
	}
}

// TestMemoryReuse: a run's linear memory may be a reservation an earlier
// run released (wazero keeps them for the next instance), and no byte of
// an earlier run is visible in it: each run checks that its memory, and
// what it grows into, reads zero beyond its data segment, then writes
// every byte, alternately touching more than the in-place clearing covers
// and less.
func TestMemoryReuse(t *testing.T) {
	const wat = `(module
  (memory (export "memory") 1)
  (data (i32.const 0x100) "seed")
  ;; $zero traps unless [from, to) reads zero outside the data segment
  ;; and the byte after it, which the test may set.
  (func $zero (param $from i32) (param $to i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
      (if (i32.and (i32.ne (i32.load8_u (local.get $from)) (i32.const 0))
                   (i32.or (i32.lt_u (local.get $from) (i32.const 0x100)) (i32.ge_u (local.get $from) (i32.const 0x105))))
        (then unreachable))
      (local.set $from (i32.add (local.get $from) (i32.const 1)))
      (br $l))))
  (func (export "_start")
    (local $pages i32)
    (call $zero (i32.const 0) (i32.const 0x10000))
    (if (i32.ne (i32.load (i32.const 0x100)) (i32.const 0x64656573)) (then unreachable)) ;; "seed"
    ;; grow by 2 or 20 pages, as the byte after the segment says
    (local.set $pages (select (i32.const 20) (i32.const 2) (i32.load8_u (i32.const 0x104))))
    (drop (memory.grow (local.get $pages)))
    (call $zero (i32.const 0x10000) (i32.mul (i32.add (local.get $pages) (i32.const 1)) (i32.const 0x10000)))
    (memory.fill (i32.const 0) (i32.const 0xab) (i32.mul (i32.add (local.get $pages) (i32.const 1)) (i32.const 0x10000)))))
`
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, wat), host.Policy{MemoryPages: 64})
	reused, live := engine.ReusedMemories.Load(), engine.LiveMemories.Load()
	for i := range 8 {
		// The byte at 0x104 picks the growth; a run sees it zero, so an
		// instance (not a run) sets it first for every other run.
		inst, err := pl.Instantiate(context.Background(), host.Config{})
		require.NoError(t, err)
		if i%2 == 1 {
			proxytest.Mem(inst)[0x104] = 1
		}
		_, err = inst.Call(context.Background(), "_start")
		require.NoError(t, err, "run %d saw a byte of an earlier run", i)
		require.NoError(t, inst.Close(context.Background()))
		res, err := pl.Run(context.Background(), host.Config{})
		require.NoError(t, err, "run %d saw a byte of an earlier run", i)
		require.Zero(t, res.ExitCode)
	}
	require.Equal(t, live, engine.LiveMemories.Load(), "every guest memory was released")
	if testsupport.Engine() == "wazero" { // wasmtime makes its own memories
		require.GreaterOrEqual(t, engine.ReusedMemories.Load()-reused, int64(15), "the runs after the first reused its reservation")
	}
}
