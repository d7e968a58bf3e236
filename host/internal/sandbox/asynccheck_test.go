package sandbox_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// asyncWAT is a guest whose exports each make one asynchronous mistake, or
// the same copy done right, in one export call: setup gets a device buffer
// holding the 64 bytes at 0x3000 (at 0x100), registers [0x1000, 0x2000),
// and creates two streams (0x110, 0x114) and an event (0x118).
func asyncWAT(extra string) string {
	var b strings.Builder
	b.WriteString("(module\n")
	for _, name := range []string{"aclrtSetDevice", "aclrtMalloc", "aclrtMemcpy", "aclrtMemcpyAsync", "aclrtHostRegister", "aclrtHostUnregister",
		"aclrtCreateStream", "aclrtCreateEvent", "aclrtRecordEvent", "aclrtStreamWaitEvent", "aclrtSynchronizeEvent",
		"aclrtSynchronizeStream", "aclrtSynchronizeDevice", "aclrtStreamQuery", "aclrtQueryEventStatus"} {
		f := abi.Lookup(name)
		fmt.Fprintf(&b, "  (import \"acl\" %q (func $%s (param%s) (result i32)))\n", name, name, testsupport.WATParams(abi.Wide, f))
	}
	b.WriteString(`  (memory (export "memory") 1)
  (func $ok (param i32) (if (local.get 0) (then unreachable)))
  (func $dev (result i64) (i64.load (i32.const 0x100)))
  (func $s1 (result i32) (i32.load (i32.const 0x110)))
  (func $s2 (result i32) (i32.load (i32.const 0x114)))
  (func $ev (result i32) (i32.load (i32.const 0x118)))
  ;; d2h queues a copy of the device buffer into registered memory on s1.
  (func $d2h
    (call $ok (call $aclrtMemcpyAsync (i64.const 0x1000) (i64.const 64) (call $dev) (i64.const 64) (i32.const 2) (call $s1))))
  (func $read (result i32) (i32.load8_u (i32.const 0x1000)))
  (func $setup (export "setup")
    (call $ok (call $aclrtSetDevice (i32.const 0)))
    (call $ok (call $aclrtMalloc (i32.const 0x100) (i64.const 4096) (i32.const 0)))
    (call $ok (call $aclrtMemcpy (call $dev) (i64.const 64) (i64.const 0x3000) (i64.const 64) (i32.const 1)))
    (call $ok (call $aclrtHostRegister (i64.const 0x1000) (i64.const 4096) (i32.const 0) (i32.const 0x108)))
    (call $ok (call $aclrtCreateStream (i32.const 0x110)))
    (call $ok (call $aclrtCreateStream (i32.const 0x114)))
    (call $ok (call $aclrtCreateEvent (i32.const 0x118))))
  (func $nosync (export "nosync") (result i32) (call $d2h) (call $read))
  (func (export "streamsync") (result i32)
    (call $d2h) (call $ok (call $aclrtSynchronizeStream (call $s1))) (call $read))
  (func (export "wrongsync") (result i32)
    (call $d2h) (call $ok (call $aclrtSynchronizeStream (call $s2))) (call $read))
  (func (export "devsync") (result i32)
    (call $d2h) (call $ok (call $aclrtSynchronizeDevice)) (call $read))
  (func (export "eventsync") (result i32)
    (call $d2h) (call $ok (call $aclrtRecordEvent (call $ev) (call $s1)))
    (call $ok (call $aclrtSynchronizeEvent (call $ev))) (call $read))
  (func (export "eventbefore") (result i32)
    (call $ok (call $aclrtRecordEvent (call $ev) (call $s1))) (call $d2h)
    (call $ok (call $aclrtSynchronizeEvent (call $ev))) (call $read))
  (func (export "crosswait") (result i32)
    (call $d2h) (call $ok (call $aclrtRecordEvent (call $ev) (call $s1)))
    (call $ok (call $aclrtStreamWaitEvent (call $s2) (call $ev)))
    (call $ok (call $aclrtSynchronizeStream (call $s2))) (call $read))
  (func (export "streamquery") (result i32) (local i32)
    (call $d2h)
    (loop $poll
      (call $ok (call $aclrtStreamQuery (call $s1) (i32.const 0x120)))
      (local.set 0 (i32.add (local.get 0) (i32.const 1)))
      (br_if $poll (i32.and (i32.ne (i32.load (i32.const 0x120)) (i32.const 0)) (i32.lt_u (local.get 0) (i32.const 1000000)))))
    (call $read))
  (func (export "eventquery") (result i32) (local i32)
    (call $d2h) (call $ok (call $aclrtRecordEvent (call $ev) (call $s1)))
    (loop $poll
      (call $ok (call $aclrtQueryEventStatus (call $ev) (i32.const 0x120)))
      (local.set 0 (i32.add (local.get 0) (i32.const 1)))
      (br_if $poll (i32.and (i32.ne (i32.load (i32.const 0x120)) (i32.const 1)) (i32.lt_u (local.get 0) (i32.const 1000000)))))
    (call $read))
  (func (export "unregister") (result i32)
    (call $d2h) (call $ok (call $aclrtHostUnregister (i64.const 0x1000))) (call $read))
  ;; checked traps on the poison, as a guest checking what it read does.
  (func (export "checked")
    (call $d2h) (if (i32.eq (call $read) (i32.const 0xCD)) (then unreachable)))
  ;; reuse copies registered memory to the device and back on one stream:
  ;; the first copy reads what the guest wrote, not the second's poison.
  (func (export "reuse") (result i32)
    (i32.store8 (i32.const 0x1000) (i32.const 0x77))
    (call $ok (call $aclrtMemcpyAsync (call $dev) (i64.const 64) (i64.const 0x1000) (i64.const 64) (i32.const 1) (call $s1)))
    (call $d2h) (call $ok (call $aclrtSynchronizeStream (call $s1))) (call $read))
  ;; h2d queues a copy from registered memory; the guest then writes it.
  (func (export "srcchange") (result i32)
    (call $ok (call $aclrtMemcpyAsync (call $dev) (i64.const 64) (i64.const 0x1010) (i64.const 64) (i32.const 1) (call $s1)))
    (i32.store8 (i32.const 0x1012) (i32.const 0x55))
    (call $ok (call $aclrtSynchronizeStream (call $s1))) (i32.const 0))
  (func (export "srcafter") (result i32)
    (call $ok (call $aclrtMemcpyAsync (call $dev) (i64.const 64) (i64.const 0x1010) (i64.const 64) (i32.const 1) (call $s1)))
    (call $ok (call $aclrtSynchronizeStream (call $s1)))
    (i32.store8 (i32.const 0x1012) (i32.const 0x55)) (i32.const 0))
`)
	b.WriteString(extra)
	b.WriteString(")\n")
	return b.String()
}

// asyncPlugin loads asyncWAT with policy p and runtime options opts.
func asyncPlugin(t *testing.T, p host.Policy, opts ...host.Option) *host.Plugin {
	return asyncPluginOf(t, asyncWAT(""), p, opts...)
}

// asyncPluginOf loads the module src (WebAssembly text).
func asyncPluginOf(t *testing.T, src string, p host.Policy, opts ...host.Option) *host.Plugin {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, append(append(proxytest.Backend(t), host.WithEngine(testEngine)), opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	pl, err := rt.Load(ctx, testsupport.WAT(t, src), p)
	require.NoError(t, err)
	return pl
}

// asyncCase instantiates pl, sets it up with the device buffer holding
// 0x11, 0x12, ... and calls export, returning the byte it read, the
// instance's guest memory and the error.
func asyncCase(t *testing.T, pl *host.Plugin, export string) (int, []byte, error) {
	t.Helper()
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })
	mem := proxytest.Mem(inst)
	for i := range 64 {
		mem[0x3000+i] = 0x11 + byte(i)
	}
	_, err = inst.Call(ctx, "setup")
	require.NoError(t, err)
	res, err := inst.Call(ctx, export)
	require.NotNil(t, res, "%s: %v", export, err)
	return int(uint32(res[0])), proxytest.Mem(inst), err
}

// TestCheckAsyncCovered checks that in the checking mode a copy into
// registered memory lands when, and only when, something the guest does
// covers it: each way of waiting reads the data, with no finding.
func TestCheckAsyncCovered(t *testing.T) {
	pl := asyncPlugin(t, host.Policy{CheckAsync: true})
	for export, want := range map[string]int{"streamsync": 0x11, "devsync": 0x11, "eventsync": 0x11, "crosswait": 0x11,
		"streamquery": 0x11, "eventquery": 0x11, "srcafter": 0, "reuse": 0x77} {
		t.Run(export, func(t *testing.T) {
			got, _, err := asyncCase(t, pl, export)
			require.NoError(t, err)
			require.Equal(t, want, got, "the copy has landed")
		})
	}
}

// TestCheckAsyncUnwaited checks that a copy into registered memory nothing
// waited for reads the poison in the guest and is reported with the call
// that queued it, and that its data lands once the call has returned.
func TestCheckAsyncUnwaited(t *testing.T) {
	for _, tc := range []struct {
		name string
		pl   *host.Plugin
	}{
		{"policy", asyncPlugin(t, host.Policy{CheckAsync: true})},
		{"runtime", asyncPlugin(t, host.Policy{}, host.WithCheckAsync())},
	} {
		for _, export := range []string{"nosync", "wrongsync", "eventbefore", "unregister"} {
			t.Run(tc.name+"/"+export, func(t *testing.T) {
				got, mem, err := asyncCase(t, tc.pl, export)
				if export == "unregister" { // landed by the unregistration, but not waited for
					require.Equal(t, 0x11, got)
				} else {
					require.Equal(t, 0xCD, got, "the guest read the poison")
				}
				var ae *host.AsyncError
				require.ErrorAs(t, err, &ae)
				require.Equal(t, export, ae.Export)
				require.Len(t, ae.Findings, 1)
				f := ae.Findings[0]
				require.Equal(t, host.AsyncUnwaited, f.Kind)
				require.True(t, strings.HasPrefix(f.Call, "aclrtMemcpyAsync(dst=0x1000, destMax=64, src=0x"), f.Call)
				require.True(t, strings.HasSuffix(f.Call, ", count=64, kind=ACL_MEMCPY_DEVICE_TO_HOST, stream="+fmt.Sprint(le.Uint32(mem[0x110:]))+")"), f.Call)
				require.Contains(t, err.Error(), "never waited for: aclrtMemcpyAsync(dst=0x1000")
				require.Equal(t, byte(0x11), mem[0x1000], "landed after the call")
				require.Equal(t, byte(0x11+63), mem[0x1000+63])
			})
		}
	}
}

// TestCheckAsyncTrap checks that a guest that traps on the poison it read
// gets the finding that explains it joined to the trap.
func TestCheckAsyncTrap(t *testing.T) {
	ctx := context.Background()
	pl := asyncPlugin(t, host.Policy{CheckAsync: true})
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	_, err = inst.Call(ctx, "setup")
	require.NoError(t, err)
	_, err = inst.Call(ctx, "checked")
	require.ErrorIs(t, err, host.ErrTrap)
	var ae *host.AsyncError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, host.AsyncUnwaited, ae.Findings[0].Kind)
	require.NoError(t, inst.Close(ctx))
}

// TestCheckAsyncSourceChanged checks that a registered source written
// between the enqueue and the synchronize is reported.
func TestCheckAsyncSourceChanged(t *testing.T) {
	pl := asyncPlugin(t, host.Policy{CheckAsync: true})
	_, _, err := asyncCase(t, pl, "srcchange")
	var ae *host.AsyncError
	require.ErrorAs(t, err, &ae)
	require.Len(t, ae.Findings, 1)
	require.Equal(t, host.AsyncSourceChanged, ae.Findings[0].Kind)
	require.Contains(t, ae.Findings[0].Call, "aclrtMemcpyAsync(dst=0x")
	require.Contains(t, ae.Findings[0].Call, "src=0x1010, count=64, kind=ACL_MEMCPY_HOST_TO_DEVICE")
	require.Contains(t, ae.Findings[0].Detail, "first at byte 2 of 64")
}

// TestCheckAsyncOff checks that without the checking mode the same guest
// runs as before: on the simulator the copy it never waited for has
// landed by the time it reads (which is why the mode exists), and nothing
// is reported.
func TestCheckAsyncOff(t *testing.T) {
	pl := asyncPlugin(t, host.Policy{})
	for _, export := range []string{"nosync", "srcchange"} {
		_, mem, err := asyncCase(t, pl, export)
		require.NoError(t, err, export)
		require.NotEqual(t, byte(0xCD), mem[0x1000], export)
	}
}

// TestCheckAsyncRun checks a command: the run that exits 3 after its
// mistake returns its result with the AsyncError.
func TestCheckAsyncRun(t *testing.T) {
	wasi := `(import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))`
	src := strings.Replace(asyncWAT(`(func (export "_start") (call $setup) (drop (call $nosync)) (call $exit (i32.const 3)))`), "(module\n", "(module\n"+wasi+"\n", 1)
	pl := asyncPluginOf(t, src, host.Policy{CheckAsync: true})
	res, err := pl.Run(context.Background(), host.Config{})
	var ae *host.AsyncError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "_start", ae.Export)
	require.Len(t, ae.Findings, 1)
	require.Equal(t, uint32(3), res.ExitCode)
}
