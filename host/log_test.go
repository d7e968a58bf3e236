package host

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
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

type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *capture) records(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(c.buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

func TestGuestLogs(t *testing.T) {
	ctx := context.Background()
	var recs []CallRecord
	rt := newRuntime(t, WithTrace(func(r CallRecord) { recs = append(recs, r) }))
	pl := load(t, rt, wat2wasm(t, logWAT), Policy{})
	var c capture
	res, err := pl.Run(ctx, Config{Name: "pre", Logger: slog.New(slog.NewJSONHandler(&c, nil))})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	got := c.records(t)
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
	c.buf.Reset()
	_, err = pl.Run(ctx, Config{Args: []string{"argv0"}, Stdout: &out, Logger: slog.New(slog.NewJSONHandler(&c, nil))})
	require.NoError(t, err)
	require.Equal(t, "hello\nworld\n", out.String())
	got = c.records(t)
	require.Len(t, got, 1)
	require.Equal(t, "argv0", got[0]["plugin"])
	require.NotEqual(t, sid, got[0]["session"])
}
