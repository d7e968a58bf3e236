package sandbox_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// logWAT writes "hello\nwor" then "ld\n" to stdout, "oops" (no newline)
// to stderr, and calls aclrtSetDevice once.
const logWAT = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x100) "hello\nworld\noops")
  (func $out (param $fd i32) (param $p i32) (param $n i32)
    (i32.store (i32.const 0x10) (local.get $p))
    (i32.store (i32.const 0x14) (local.get $n))
    (drop (call $w (local.get $fd) (i32.const 0x10) (i32.const 1) (i32.const 0x20))))
  (func (export "_start")
    (call $out (i32.const 1) (i32.const 0x100) (i32.const 9))
    (call $out (i32.const 1) (i32.const 0x109) (i32.const 3))
    (call $out (i32.const 2) (i32.const 0x10c) (i32.const 4))
    (drop (call $set (i32.const 0))))
)`

func TestGuestLogs(t *testing.T) {
	ctx := context.Background()
	var recs []host.CallRecord
	rt := proxytest.Runtime(t, host.WithTrace(func(r host.CallRecord) { recs = append(recs, r) }))
	pl := proxytest.Load(t, rt, testsupport.WAT(t, logWAT), host.Policy{})
	var c testsupport.Logs
	res, err := pl.Run(ctx, host.Config{Name: "pre", Logger: slog.New(slog.NewJSONHandler(&c, nil))})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	got := c.Records(t)
	require.Len(t, got, 3)
	sid := got[0]["session"]
	require.NotZero(t, sid)
	require.Equal(t, []map[string]any{
		{"level": "INFO", "msg": "hello", "plugin": "pre", "session": sid, "stream": "stdout"},
		{"level": "INFO", "msg": "world", "plugin": "pre", "session": sid, "stream": "stdout"},
		{"level": "WARN", "msg": "oops", "plugin": "pre", "session": sid, "stream": "stderr"},
	}, got, "lines joined across writes; the unterminated last line flushed at the end")

	// The trace names the session and times the call.
	require.Len(t, recs, 1)
	require.Equal(t, uint64(sid.(float64)), recs[0].Session)
	require.False(t, recs[0].Start.IsZero())
	require.Positive(t, recs[0].Duration)

	// A given Stdout wins; two runs have two sessions.
	var out bytes.Buffer
	c.Reset()
	_, err = pl.Run(ctx, host.Config{Args: []string{"argv0"}, Stdout: &out, Logger: slog.New(slog.NewJSONHandler(&c, nil))})
	require.NoError(t, err)
	require.Equal(t, "hello\nworld\n", out.String())
	got = c.Records(t)
	require.Len(t, got, 1)
	require.Equal(t, "argv0", got[0]["plugin"])
	require.NotEqual(t, sid, got[0]["session"])
}

// logHarness is a harness whose instance logs to a JSON handler at Debug.
func logHarness(t *testing.T, p host.Policy, name string) (*harness, *testsupport.Logs) {
	t.Helper()
	return logHarnessOut(t, p, name, nil)
}

// logHarnessOut is logHarness with the guest's stdout and stderr going
// to out (nil: to the log).
func logHarnessOut(t *testing.T, p host.Policy, name string, out io.Writer) (*harness, *testsupport.Logs) {
	t.Helper()
	h := &harness{Harness: &proxytest.Harness{T: t}}
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testEngine))...)
	require.NoError(t, err)
	h.RT = rt
	pl, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), p)
	require.NoError(t, err)
	var c testsupport.Logs
	inst, err := pl.Instantiate(ctx, host.Config{Name: name, Stdout: out, Stderr: out, Logger: slog.New(slog.NewJSONHandler(&c, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	h.Inst = inst
	t.Cleanup(func() {
		require.NoError(t, inst.Close(ctx))
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	return h, &c
}

// TestAppLog: aclAppLog reaches Config.Logger as the plugin's own record,
// with its level mapped, the plugin's name, the session and func, file and
// line; bad input gives 100000 with a precise message and logs nothing.
func TestAppLog(t *testing.T) {
	h, c := logHarness(t, host.Policy{}, "pre")
	sid := float64(h.Inst.Session().ID())
	copy(h.Mem()[data:], "main\x00pre.c\x00hello, log\x00")
	fn, file, msg := uint64(data), uint64(data+5), uint64(data+11)
	for level := range 4 {
		h.OK("aclAppLog", uint64(level), fn, file, uint64(40+level), msg)
	}
	h.OK("aclAppLog", 1, 0, 0, 7, msg) // func and file may be NULL
	require.Equal(t, []map[string]any{
		{"level": "DEBUG", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 40.0},
		{"level": "INFO", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 41.0},
		{"level": "WARN", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 42.0},
		{"level": "ERROR", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 43.0},
		{"level": "INFO", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "", "file": "", "line": 7.0},
	}, c.Records(t))

	// A string of 4095 bytes and its NUL is the longest.
	long := uint64(0x10000)
	copy(h.Mem()[long:], strings.Repeat("x", 4095)+"\x00")
	c.Reset()
	h.OK("aclAppLog", 2, 0, 0, 1, long)
	require.Equal(t, strings.Repeat("x", 4095), c.Records(t)[0]["msg"])

	end := uint64(len(h.Mem()))
	copy(h.Mem()[end-3:], "abc")
	h.Mem()[long+4095] = 'x' // no NUL within 4096 bytes
	c.Reset()
	for _, tc := range []struct {
		args []uint64
		msg  string
	}{
		{[]uint64{4, fn, file, 1, msg}, "aclAppLog: level 4 is not an aclLogLevel: want ACL_DEBUG (0), ACL_INFO (1), ACL_WARNING (2) or ACL_ERROR (3)"},
		{[]uint64{1<<32 - 1, fn, file, 1, msg}, "aclAppLog: level -1 is not an aclLogLevel: want ACL_DEBUG (0), ACL_INFO (1), ACL_WARNING (2) or ACL_ERROR (3)"},
		{[]uint64{1, end, file, 1, msg}, "aclAppLog: func 0x40000 is outside guest memory (262144 bytes)"},
		{[]uint64{1, fn, end - 3, 1, msg}, "aclAppLog: file at 0x3fffd has no NUL before the end of guest memory (262144 bytes)"},
		{[]uint64{1, fn, file, 1, long}, "aclAppLog: msg at 0x10000 is longer than 4095 bytes: no NUL within 4096 bytes"},
		{[]uint64{1, fn, file, 1, 0}, "aclAppLog: msg is NULL"},
	} {
		require.Equal(t, tc.msg, h.Code(acl.ErrInvalidParam, "aclAppLog", tc.args...))
	}
	require.Empty(t, strings.TrimSpace(c.String()), "a refused call logs nothing")
}

// TestAppLogOutputGiven: with the guest's stdout and stderr given (none
// goes to the log, as in serve), aclAppLog's records still carry the
// plugin's name and the session, the same in each record.
func TestAppLogOutputGiven(t *testing.T) {
	var out bytes.Buffer
	h, c := logHarnessOut(t, host.Policy{}, "given", &out)
	sid := float64(h.Inst.Session().ID())
	copy(h.Mem()[data:], "hello, log\x00")
	h.OK("aclAppLog", 1, 0, 0, 7, uint64(data))
	h.OK("aclAppLog", 2, 0, 0, 8, uint64(data))
	require.Equal(t, []map[string]any{
		{"level": "INFO", "msg": "hello, log", "plugin": "given", "session": sid, "func": "", "file": "", "line": 7.0},
		{"level": "WARN", "msg": "hello, log", "plugin": "given", "session": sid, "func": "", "file": "", "line": 8.0},
	}, c.Records(t))
	require.Zero(t, out.Len())
}

// TestAppLogWithoutLogger: without Config.Logger the strings are still
// checked, and nothing else happens.
func TestAppLogWithoutLogger(t *testing.T) {
	h := newHarness(t, host.Policy{})
	copy(h.Mem()[data:], "m\x00")
	h.OK("aclAppLog", 0, 0, 0, 1, data)
	h.Code(acl.ErrInvalidParam, "aclAppLog", 0, 0, 0, 1, 0)
}
