//go:build wasmtime && cgo

package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
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

// The differential tests run the same guests, driven the same way, on both
// engines and require the same observable outcome: every host call's
// arguments, result, code and message (from the trace), the statistics,
// the device accounting during and after the session, and the guest's
// memory. Import logic is shared (call.go), so any difference is an
// adapter's: how it passes parameters, results and memory, and how runs end.

var diffEngines = []string{"wazero", "wasmtime"}

// diffOutcome is what one engine's run of a reactor script shows.
type diffOutcome struct {
	Calls     []diffCall
	Returns   []int32 // what the script's calls returned, exports included
	Stats     host.Stats
	LastError string
	FreeIn    []uint64 // per device, before Close
	FreeAfter []uint64 // per device, after Close
	Memory    []byte
}

// dh drives one reactor instance and records what its calls return.
type dh struct {
	*harness
	returns []int32
}

func (d *dh) c(name string, args ...uint64) int32 {
	d.T.Helper()
	r := d.Call(name, args...)
	d.returns = append(d.returns, r)
	return r
}

func runReactorDiff(t *testing.T, engine, wat string, p host.Policy, script func(d *dh)) diffOutcome {
	t.Helper()
	ctx := context.Background()
	var out diffOutcome
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine), recordCalls(&out.Calls))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	base := proxytest.FreeMem(t, rt)
	pl, err := rt.Load(ctx, testsupport.WAT(t, wat), p)
	require.NoError(t, err)
	defer func() { require.NoError(t, pl.Close(ctx)) }()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	d := &dh{harness: &harness{Harness: &proxytest.Harness{T: t, RT: rt, Inst: inst}}}
	script(d)
	out.Returns = d.returns
	out.Stats = inst.Session().Stats()
	out.LastError = inst.Session().LastError()
	out.FreeIn = proxytest.FreeMem(t, rt)
	out.Memory = bytes.Clone(d.Mem())
	require.NoError(t, inst.Close(ctx))
	out.FreeAfter = proxytest.FreeMem(t, rt)
	require.Equal(t, base, out.FreeAfter, "%s: the session released everything", engine)
	return out
}

func requireSameOutcome(t *testing.T, a, b diffOutcome) {
	t.Helper()
	requireSameCalls(t, a.Calls, b.Calls)
	require.Equal(t, a.Returns, b.Returns, "values returned to the script")
	require.Equal(t, a.Stats, b.Stats, "statistics")
	require.Equal(t, a.LastError, b.LastError)
	require.Equal(t, a.FreeIn, b.FreeIn, "device memory held by the session")
	require.Equal(t, a.FreeAfter, b.FreeAfter)
	requireSameMemory(t, [2]string(diffEngines), a.Memory, b.Memory)
}

// diffScript calls every import family, valid and invalid, the proxy guest
// with 4 pages (growing to 6 on the way).
func diffScript(d *dh) {
	end := uint64(len(d.Mem()))
	// Runtime functions.
	d.c("aclInit", 0)
	d.c("aclInit", 0)
	d.c("aclrtGetVersion", outA, outB, outC)
	d.c("aclrtGetVersion", outA, outB, end-2)
	// Devices and peers.
	d.c("aclrtMalloc", outA, 64, 0)
	d.c("aclrtGetDevice", outA)
	d.c("aclrtGetDeviceCount", outA)
	d.c("aclrtGetDeviceCount", end)
	d.c("aclrtSetDevice", 7)
	d.c("aclrtSetDevice", 1)
	d.c("aclrtGetDevice", outA)
	b := d.Malloc(4096)
	d.c("aclrtSetDevice", 0)
	d.c("aclrtDeviceCanAccessPeer", outA, 0, 1)
	d.c("aclrtDeviceCanAccessPeer", outA, 1, 1)
	a, small := d.Malloc(4096), d.Malloc(64)
	d.c("aclrtMemcpy", a, 4096, b, 4096, 3)
	d.c("aclrtDeviceEnablePeerAccess", 1, 1)
	d.c("aclrtDeviceEnablePeerAccess", 1, 0)
	// Synchronous copies.
	d.Fill(data, 4096, 1)
	d.c("aclrtMemcpy", a, 4096, data, 4096, 1)
	d.c("aclrtMemcpy", b, 4096, a, 4096, 3)
	d.c("aclrtMemcpy", data2, 4096, b, 4096, 2)
	d.c("aclrtMemcpy", data2+4096, 64, data, 64, 0)
	d.c("aclrtMemcpy", 0, 0, 0, 0, 99)
	d.c("aclrtMemcpy", 0, 8, data, 8, 1)
	d.c("aclrtMemcpy", a, 8, data, 8, 6)
	d.c("aclrtMemcpy", a, 8, data, 9, 1)
	d.c("aclrtMemcpy", small+60, 8, data, 8, 1)
	d.c("aclrtMemcpy", small+64, 8, data, 8, 1)
	d.c("aclrtMemcpy", 0xdead_0000_0000, 8, data, 8, 1)
	d.c("aclrtMemcpy", a, 8, end-4, 8, 1)
	d.c("aclrtMemcpy", a, sizeMax, data, sizeMax-4, 1)
	d.c("aclrtDeviceDisablePeerAccess", 1)
	d.c("aclrtDeviceDisablePeerAccess", 1)
	// Memory.
	d.c("aclrtGetMemInfo", uint64(acl.HBMMem), outB, outC)
	d.c("aclrtGetMemInfo", 99, outB, outC)
	d.c("aclrtMalloc", outA, 0, 0)
	d.c("aclrtMalloc", end-4, 64, 0)
	d.c("aclrtMalloc", outA, 1<<40, 0)
	d.c("aclrtPointerGetAttributes", a+8, 0x200)
	d.c("aclrtPointerGetAttributes", data, 0x240)
	d.c("aclrtPointerGetAttributes", a+4096, 0x200)
	d.c("aclrtPointerGetAttributes", a, 0)
	d.c("aclrtHostRegister", 0x10000, 0x10000, 0, outB)
	d.c("aclrtHostRegister", 0x18000, 64, 0, outB)
	d.c("aclrtHostRegister", 0x30000, 4096, uint64(acl.HostRegisterReadOnly), outB)
	d.c("aclrtHostRegister", 0x38000, 64, 3, outB)
	d.c("aclrtHostRegister", end-8, 64, 0, outB)
	d.c("aclrtHostRegister", 0, 64, 0, outB)
	// Streams, events, async copies on pinned memory, memset.
	s, e1, e2 := d.Stream(), d.Event(), d.Event()
	d.Fill(0x10000, 4096, 2)
	d.c("aclrtRecordEvent", e1, s)
	d.c("aclrtMemcpyAsync", a, 4096, 0x10000, 4096, 1, s)
	d.c("aclrtSynchronizeStream", s) // guest memory is set at call time: the copy must have read it first
	d.c("aclrtMemsetAsync", 0x10000, 4096, 0x5a, 4096, s)
	d.c("aclrtMemcpyAsync", 0x11000, 4096, a, 4096, 2, s)
	d.c("aclrtMemcpyAsyncWithCondition", 0x12000, 4096, a, 4096, 2, s)
	d.c("aclrtRecordEvent", e2, s)
	d.c("aclrtSynchronizeEvent", e2)
	d.c("aclrtQueryEventStatus", e2, outC)
	d.c("aclrtEventElapsedTime", 0, e1, e2)
	d.c("aclrtEventElapsedTime", outC, e1, e2)
	d.PutU64s(outC, 0) // a duration: not comparable
	d.c("aclrtStreamQuery", s, outC)
	d.c("aclrtSynchronizeStream", s)
	d.c("aclrtSynchronizeStreamWithTimeout", s, 1000)
	d.c("aclrtMemcpyAsync", data2, 8, data, 8, 0, s)
	d.c("aclrtMemcpyAsync", a, 8, data, 8, 1, e1)
	d.c("aclrtMemcpyAsync", a, 8, data, 8, 1, 999)
	d.c("aclrtMemcpyAsync", a, 8, data, 8, 1, 0)
	d.c("aclrtStreamWaitEvent", s, e2)
	d.c("aclrtStreamWaitEvent", s, 999)
	d.c("aclrtRecordEvent", s, s)
	d.c("aclrtMemset", a, 64, 0x1234, 64)
	d.c("aclrtMemset", data, 64, 0, 64)
	d.c("aclrtMemset", 0x30000, 64, 0, 64)
	d.c("aclrtMemset", 0x18000, 64, 0xee, 64)
	d.c("aclrtMemcpy", 0x30000, 64, a, 64, 2)
	d.c("aclrtMemcpy", a, 64, 0x30000, 64, 1)
	// 2D copies.
	d.c("aclrtMemcpy2d", a, 4, data+2*16+4, 16, 4, 4, 1)
	d.c("aclrtMemcpy2d", a, 3, data, 16, 4, 4, 1)
	d.c("aclrtMemcpy2d", a, 4, data, 16, 4, 5000, 1)
	d.c("aclrtMemcpy2d", a, sizeMax/2, data, 16, 4, 4, 1)
	d.c("aclrtMemcpy2d", small, 4, a, 4, 4, 4, 3)
	d.c("aclrtMemcpy2dAsync", small, 4, a, 4, 4, 4, 3, s)
	// Batches.
	bt := d.Batch([]uint64{a, small}, []uint64{data + 128, data}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	d.c("aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, bt.Fail)
	d.c("aclrtMemcpyBatchAsync", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, bt.Fail, s)
	d.c("aclrtMemcpyBatchV2", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1)
	d.c("aclrtMemcpyBatchAsyncV2", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, s)
	d.c("aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, 0)
	d.c("aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 1<<40, bt.Attrs, bt.Idx, 1, bt.Fail)
	d.c("aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, end-8, 2, bt.Attrs, bt.Idx, 1, bt.Fail)
	bt = d.Batch([]uint64{a, small + 32}, []uint64{data, data}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	d.c("aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, bt.Fail)
	bt = d.Batch([]uint64{a}, []uint64{data}, []uint64{64}, []acl.MemcpyBatchAttr{proxytest.H2D(1)}, []uint64{0})
	d.c("aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 1, bt.Attrs, bt.Idx, 1, bt.Fail)
	// Descriptors and offset copies (descriptor bytes are keyed per session:
	// they are never copied back to guest memory here).
	d.c("aclrtGetMemcpyDescSize", 3, outA)
	d.c("aclrtGetMemcpyDescSize", 6, outA)
	desc := d.Malloc(d.U64(outA))
	d.c("aclrtSetMemcpyDesc", desc, 6, a, small, 64, outA)
	d.c("aclrtSetMemcpyDesc", data, 6, a, small, 64, 0)
	d.c("aclrtSetMemcpyDesc", desc, 6, a, small, 65, 0)
	d.c("aclrtSetMemcpyDesc", desc, 6, a, small, 64, 0)
	d.c("aclrtMemcpyAsyncWithDesc", desc, 6, 0)
	d.c("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	d.c("aclrtMemcpyAsyncWithDesc", desc+8, 6, s)
	slots := d.Malloc(16)
	d.PutU64s(0x3000, small, a)
	d.c("aclrtMemcpy", slots, 16, 0x3000, 16, 1)
	d.c("aclrtMemcpyAsyncWithOffset", slots, 64, 0, slots+8, 32, 16, 6, s)
	d.c("aclrtMemcpyAsyncWithOffset", slots, 64, 0, slots+8, 32, 16, 3, s)
	d.c("aclrtMemcpyAsyncWithOffset", data, 64, 0, slots+8, 32, 16, 6, s)
	d.c("aclrtSynchronizeStream", s)
	d.c("aclrtMemcpy", 0x13000, 64, small, 64, 2)
	d.c("aclrtSynchronizeDevice")
	d.c("aclrtSynchronizeDeviceWithTimeout", 1000)
	d.c("aclrtSynchronizeDeviceWithTimeout", math.MaxUint32) // -1: i32 parameters arrive zero-extended
	d.c("aclrtSynchronizeStreamWithTimeout", s, math.MaxUint32-1)
	d.c("aclrtMemcpy", a, 8, data, 8, math.MaxUint32)
	// Growing the memory: the new pages are guest memory at once.
	d.c("grow", 2)
	end = uint64(len(d.Mem()))
	d.c("aclrtMemcpy", end-64, 64, a, 64, 2)
	d.c("aclrtMemcpy", end-32, 64, a, 64, 2)
	d.c("aclrtHostRegister", end-4096, 4096, 0, outB)
	d.c("aclrtMemcpyAsync", end-4096, 4096, a, 4096, 2, s)
	d.c("aclrtSynchronizeStream", s)
	d.c("grow", 1000)
	// Releasing.
	d.c("aclrtHostUnregister", 0x10000)
	d.c("aclrtHostUnregister", 0x10000)
	d.c("aclrtHostUnregister", 0x30008)
	d.c("aclrtDestroyEvent", e1)
	d.c("aclrtDestroyEvent", e1)
	d.c("aclrtDestroyStream", s)
	d.c("aclrtDestroyStream", s)
	d.c("aclrtDestroyStream", 0)
	d.c("aclrtFree", small)
	d.c("aclrtFree", small)
	d.c("aclrtFree", a+8)
	d.c("aclrtFree", 0)
	d.c("aclGetRecentErrMsg", data2, 32)
	d.c("aclGetRecentErrMsg", end-4, 32)
	d.c("aclGetRecentErrMsg", 0, 0)
	d.c("aclrtResetDevice", 1)
	d.c("aclFinalize")
	d.c("aclFinalize")
	// Left for the session's release: a, desc, slots, a pinned range, e2.
}

func TestDifferentialImports(t *testing.T) {
	wat := testsupport.ProxyWAT(abi.Wide, 4, "")
	var outs []diffOutcome
	for _, e := range diffEngines {
		outs = append(outs, runReactorDiff(t, e, wat, host.Policy{MemoryPages: 8}, diffScript))
	}
	require.Greater(t, len(outs[0].Calls), 130)
	requireSameOutcome(t, outs[0], outs[1])
}

// TestDifferentialUnexportedMemory: a guest that does not export its
// memory gets the same pointer checks and writes on both engines.
func TestDifferentialUnexportedMemory(t *testing.T) {
	wat := strings.Replace(testsupport.ProxyWAT(abi.Wide, 2, ""), `(memory (export "memory") 2)`, `(memory 2)`, 1)
	require.NotEqual(t, testsupport.ProxyWAT(abi.Wide, 2, ""), wat)
	script := func(d *dh) {
		end := uint64(len(d.Mem()))
		d.c("aclrtGetDeviceCount", 0x300)
		d.c("aclrtGetDeviceCount", end-2)
		d.c("aclrtSetDevice", 0)
		a := d.Malloc(256)
		d.Fill(data, 256, 4)
		d.c("aclrtMemcpy", a, 256, data, 256, 1)
		d.c("aclrtMemcpy", data2, 256, a, 256, 2)
		d.c("aclrtMemcpy", end-16, 256, a, 256, 2)
		d.c("grow", 1)
		d.c("aclrtMemcpy", end, 256, a, 256, 2)
	}
	var outs []diffOutcome
	for _, e := range diffEngines {
		outs = append(outs, runReactorDiff(t, e, wat, host.Policy{}, script))
	}
	requireSameOutcome(t, outs[0], outs[1])
	require.Equal(t, int32(2), int32(le.Uint32(outs[1].Memory[0x300:])), "the device count was written")
}

// runOutcome is what one engine's Run of a command shows.
type runOutcome struct {
	ExitCode  uint32
	Stats     host.Stats
	Err       string // the error's class
	FreeAfter []uint64
	Stdout    string
	Stderr    string
}

func errClass(err error) string {
	for _, e := range []error{host.ErrTrap, host.ErrTimeout, host.ErrCanceled, host.ErrLoad} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	var ee *host.ExitError
	if errors.As(err, &ee) {
		return ee.Error()
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func runCommandDiff(t *testing.T, engine string, wasm []byte, p host.Policy, cfg host.Config) runOutcome {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	base := proxytest.FreeMem(t, rt)
	pl, err := rt.Load(ctx, wasm, p)
	require.NoError(t, err)
	defer func() { require.NoError(t, pl.Close(ctx)) }()
	var stdout, stderr bytes.Buffer
	if cfg.Stdout == nil {
		cfg.Stdout = &stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = &stderr
	}
	res, err := pl.Run(ctx, cfg)
	out := runOutcome{ExitCode: res.ExitCode, Stats: res.Stats, Err: errClass(err), FreeAfter: proxytest.FreeMem(t, rt), Stdout: stdout.String(), Stderr: stderr.String()}
	if err != nil {
		// A run that ends abnormally cancels its queued copies not yet
		// started, and bytes count when they move: how many moved first is
		// a race, on either engine.
		out.Stats.Bytes = nil
		for name, f := range out.Stats.Funcs {
			f.Bytes = nil
			out.Stats.Funcs[name] = f
		}
	}
	require.Equal(t, base, out.FreeAfter, "%s: the session released everything", engine)
	return out
}

func TestDifferentialCommands(t *testing.T) {
	for _, tc := range []struct {
		name string
		wat  string
		cfg  host.Config
		want string // error class
		code uint32
	}{
		{"roundtrip", fmt.Sprintf(testsupport.RoundtripWAT, 0), host.Config{}, "", 0},
		{"exit with queued work", fmt.Sprintf(testsupport.RoundtripWAT, 1), host.Config{}, "", 3},
		{"stdio", stdioWAT, host.Config{Args: []string{"prog", "a1"}, Env: []string{"K=V"}, Stdin: strings.NewReader("from stdin")}, "", 42},
		{"trap in start function", startTrapWAT, host.Config{}, host.ErrTrap.Error(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := testsupport.WAT(t, tc.wat)
			var outs []runOutcome
			for _, e := range diffEngines {
				cfg := tc.cfg
				if r, ok := cfg.Stdin.(*strings.Reader); ok {
					cfg.Stdin = strings.NewReader(readAll(r))
				}
				outs = append(outs, runCommandDiff(t, e, wasm, host.Policy{}, cfg))
			}
			require.Equal(t, outs[0], outs[1])
			require.Equal(t, tc.want, outs[0].Err)
			require.Equal(t, tc.code, outs[0].ExitCode)
		})
	}
}

func readAll(r *strings.Reader) string {
	b := make([]byte, r.Len())
	n, _ := r.ReadAt(b, 0)
	return string(b[:n])
}

// stdioWAT writes to stdout and stderr, echoes stdin to stdout, checks
// argc and the environment's size, and exits with 42.
const stdioWAT = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "acl" "aclrtGetDeviceCount" (func $count (param i32) (result i32)))
  (memory 1)
  (data (i32.const 64) "out 1\n")
  (data (i32.const 80) "err 1\n")
  (func $put (param $fd i32) (param $ptr i32) (param $n i32) (result i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $n))
    (call $write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8)))
  (func (export "_start")
    (if (call $put (i32.const 1) (i32.const 64) (i32.const 6)) (then (call $exit (i32.const 10))))
    (if (call $put (i32.const 2) (i32.const 80) (i32.const 6)) (then (call $exit (i32.const 11))))
    (if (i32.ne (call $put (i32.const 3) (i32.const 64) (i32.const 6)) (i32.const 8)) (then (call $exit (i32.const 12))))
    (if (i32.ne (call $put (i32.const 1) (i32.const 65530) (i32.const 64)) (i32.const 21)) (then (call $exit (i32.const 13))))
    ;; stdin, in two reads
    (i32.store (i32.const 16) (i32.const 1024)) (i32.store (i32.const 20) (i32.const 4))
    (i32.store (i32.const 24) (i32.const 1028)) (i32.store (i32.const 28) (i32.const 100))
    (if (call $read (i32.const 0) (i32.const 16) (i32.const 2) (i32.const 32)) (then (call $exit (i32.const 14))))
    (drop (call $put (i32.const 1) (i32.const 1024) (i32.load (i32.const 32))))
    (if (call $read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 32)) (then (call $exit (i32.const 15))))
    (if (i32.load (i32.const 32)) (then (call $exit (i32.const 16))))
    (drop (call $put (i32.const 2) (i32.const 80) (i32.const 6)))
    (if (call $args (i32.const 40) (i32.const 44)) (then (call $exit (i32.const 17))))
    (if (i32.ne (i32.load (i32.const 40)) (i32.const 2)) (then (call $exit (i32.const 18))))
    (if (call $env (i32.const 40) (i32.const 44)) (then (call $exit (i32.const 19))))
    (if (i32.ne (i32.load (i32.const 40)) (i32.const 1)) (then (call $exit (i32.const 20))))
    (if (call $count (i32.const 48)) (then (call $exit (i32.const 21))))
    (call $exit (i32.add (i32.const 40) (i32.load (i32.const 48))))))
`

// startTrapWAT queues an async copy on pinned memory from its start
// function, then traps there: the run fails, and the session must be
// released (its stream stopped) before the engine drops the memory.
const startTrapWAT = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpyAsync" (func $memcpyAsync (param i64 i64 i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtHostRegister" (func $register (param i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $stream (param i32) (result i32)))
  (memory (export "memory") 4)
  (func $init (local $i i32)
    (drop (call $set (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 0x20000) (i32.const 0)))
    (drop (call $register (i64.const 0x10000) (i64.const 0x20000) (i32.const 0) (i32.const 32)))
    (drop (call $stream (i32.const 40)))
    (loop $l
      (drop (call $memcpyAsync (i64.load (i32.const 16)) (i64.const 0x20000) (i64.const 0x10000) (i64.const 0x20000) (i32.const 1) (i32.load (i32.const 40))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 16))))
    unreachable)
  (start $init)
  (func (export "_start")))
`

// TestDifferentialEnds: traps, timeouts, cancellation and the memory limit
// end calls the same way on both engines.
func TestDifferentialEnds(t *testing.T) {
	wasm := testsupport.WAT(t, testsupport.ProxyWAT(abi.Wide, 1, `  (func (export "oob") (result i32) (i32.load (i32.const -4)))
  (func $deep (export "deep") (param i32) (result i32) (call $deep (i32.add (local.get 0) (i32.const 1))))
`))
	for _, e := range diffEngines {
		t.Run(e, func(t *testing.T) {
			ctx := context.Background()
			rt, err := host.NewRuntime(ctx, host.WithEngine(e))
			require.NoError(t, err)
			defer rt.Close(ctx)
			pl, err := rt.Load(ctx, wasm, host.Policy{MemoryPages: 3, Timeout: 100 * time.Millisecond})
			require.NoError(t, err)
			defer pl.Close(ctx)
			// The traps get a policy timeout no loaded machine reaches:
			// unwinding tens of thousands of frames under -race can take
			// longer than the 100 ms the spins are given.
			tpl, err := rt.Load(ctx, wasm, host.Policy{MemoryPages: 3, Timeout: time.Minute})
			require.NoError(t, err)
			defer tpl.Close(ctx)
			callIn := func(pl *host.Plugin, name string, args ...uint64) ([]uint64, error) {
				inst, err := pl.Instantiate(ctx, host.Config{})
				require.NoError(t, err)
				defer inst.Close(ctx)
				return inst.Call(ctx, name, args...)
			}
			call := func(name string, args ...uint64) ([]uint64, error) { return callIn(pl, name, args...) }
			_, err = callIn(tpl, "trap")
			require.ErrorIs(t, err, host.ErrTrap)
			_, err = callIn(tpl, "oob") // a fault in the guard region, caught by the engine
			require.ErrorIs(t, err, host.ErrTrap)
			_, err = callIn(tpl, "deep", 0)
			require.ErrorIs(t, err, host.ErrTrap, "stack exhausted")
			_, err = call("spin")
			require.ErrorIs(t, err, host.ErrTimeout)
			cctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(20*time.Millisecond, cancel)
			inst, err := pl.Instantiate(ctx, host.Config{})
			require.NoError(t, err)
			_, err = inst.Call(cctx, "spin")
			require.ErrorIs(t, err, host.ErrCanceled)
			require.NoError(t, inst.Close(ctx))
			res, err := call("grow", 2)
			require.NoError(t, err)
			require.Equal(t, []uint64{1}, res)
			res, err = call("grow", 3)
			require.NoError(t, err)
			require.Equal(t, []uint64{0xffffffff}, res, "past the policy's 3 pages")
			_, err = call("nope")
			require.ErrorIs(t, err, engine.ErrNoExport)
			_, err = call("aclrtSetDevice")
			require.ErrorIs(t, err, engine.ErrArgs, "a wrong number of arguments is refused; the instance lives on")

			// A panic outside the imports' own recover (here the trace
			// callback's) traps the guest instead of crashing the host.
			prt, err := host.NewRuntime(ctx, host.WithEngine(e), host.WithTrace(func(host.CallRecord) { panic("boom") }))
			require.NoError(t, err)
			defer prt.Close(ctx)
			ppl, err := prt.Load(ctx, wasm, host.Policy{})
			require.NoError(t, err)
			defer ppl.Close(ctx)
			pinst, err := ppl.Instantiate(ctx, host.Config{})
			require.NoError(t, err)
			_, err = pinst.Call(ctx, "aclrtSetDevice", 0)
			require.ErrorIs(t, err, host.ErrTrap)
			require.ErrorContains(t, err, "boom")
			require.NoError(t, pinst.Close(ctx))
		})
	}
}
