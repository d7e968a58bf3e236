package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestJSONLogDurations: serve's JSON log writes durations as Go writes
// them ("2.02s"), at the top level and in groups, not as nanoseconds.
func TestJSONLogDurations(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "json", "info")
	require.NoError(t, err)
	log.Info("request", "duration", 2020*time.Millisecond, slog.Group("run", "took", 1500*time.Microsecond), "n", 3)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), "%s", buf.String())
	require.Equal(t, "2.02s", rec["duration"])
	require.Equal(t, map[string]any{"took": "1.5ms"}, rec["run"])
	require.Equal(t, 3.0, rec["n"], "other values keep their JSON type")

	buf.Reset()
	log, err = newLogger(&buf, "text", "info")
	require.NoError(t, err)
	log.Info("request", "duration", 2020*time.Millisecond)
	require.Contains(t, buf.String(), "duration=2.02s")
}

// TestServeReuseInstances: --reuse-instances keeps a reactor's instance
// between requests (its count in linear memory goes on), unless its
// manifest sets serve.reuse_instances: false; GET /v1/plugins says which.
func TestServeReuseInstances(t *testing.T) {
	counter := wat(t, "counter", `(module
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "handle") (result i32)
    (i32.store8 (i32.const 16) (i32.add (i32.load8_u (i32.const 16)) (i32.const 1)))
    (call $write (i32.const 16) (i32.const 1))))`)
	dir := t.TempDir()
	b, err := os.ReadFile(counter)
	require.NoError(t, err)
	for _, n := range []string{"kept", "fresh"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".wasm"), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fresh.yaml"), []byte("name: fresh\nmodule: {path: fresh.wasm}\nserve: {reuse_instances: false}\n"), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--poll", "0", "--log-format", "json", "--reuse-instances", dir)
	stderr, err := srv.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	log := readLog(stderr)
	addr, _ := log.wait(t, "listening")["addr"].(string)
	require.NotEmpty(t, addr)
	log.wait(t, "plugins loaded")
	hc := &http.Client{Timeout: 30 * time.Second}
	post := func(name string) []byte {
		resp, err := hc.Post("http://"+addr+"/v1/plugins/"+name, "", nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode, "%s", b)
		return b
	}
	for i := byte(1); i <= 3; i++ {
		require.Equal(t, []byte{i}, post("kept"))
		require.Equal(t, []byte{1}, post("fresh"))
	}
	resp, err := hc.Get("http://" + addr + "/v1/plugins")
	require.NoError(t, err)
	var l struct{ Plugins []map[string]any }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&l))
	resp.Body.Close()
	reused := map[string]any{}
	for _, p := range l.Plugins {
		reused[p["name"].(string)] = p["reuse_instances"]
	}
	require.Equal(t, map[string]any{"kept": true, "fresh": nil}, reused)
	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
	require.NoError(t, srv.Wait())
}

// TestServeMaxGuestMemory: --max-guest-memory (a byte count with units)
// reaches the server: an instance whose policy allows more than the budget
// gets 503 memory_budget, one within it runs, and /metrics shows the
// budget; a value that is no byte count is refused at start.
func TestServeMaxGuestMemory(t *testing.T) {
	r := cli(t, "serve", "--max-guest-memory", "lots", t.TempDir())
	require.Equal(t, exitHost, r.code, "%+v", r)
	require.Contains(t, r.stderr, `--max-guest-memory: "lots" is not a byte count`)

	mod := wat(t, "small", `(module
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "handle") (result i32) (call $write (i32.const 16) (i32.const 1))))`)
	dir := t.TempDir()
	b, err := os.ReadFile(mod)
	require.NoError(t, err)
	for _, n := range []string{"small", "big"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".wasm"), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "small.yaml"), []byte("name: small\nmodule: {path: small.wasm}\npolicy: {memory_pages: 2}\n"), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--poll", "0", "--log-format", "json",
		"--max-guest-memory", "1MiB", "--memory-wait", "1ms", "--memory-pages", "32", dir)
	stderr, err := srv.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	log := readLog(stderr)
	addr, _ := log.wait(t, "listening")["addr"].(string)
	require.NotEmpty(t, addr)
	log.wait(t, "plugins loaded")
	hc := &http.Client{Timeout: 30 * time.Second}
	get := func(method, path string) (int, string) {
		req, err := http.NewRequest(method, "http://"+addr+path, nil)
		require.NoError(t, err)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := get("POST", "/v1/plugins/small")
	require.Equal(t, 200, status, body)
	status, body = get("POST", "/v1/plugins/big") // 32 pages: 2 MiB
	require.Equal(t, 503, status, body)
	require.Contains(t, body, `"code":"memory_budget"`)
	_, body = get("GET", "/metrics")
	require.Contains(t, body, "aclwasm_guest_memory_budget_bytes 1.048576e+06")
	require.Contains(t, body, `aclwasm_guest_memory_refusals_total{plugin="big"} 1`)
	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
	require.NoError(t, srv.Wait())
}
