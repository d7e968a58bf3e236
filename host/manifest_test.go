package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
name: pre
module:
  path: pre.wasm
  sha256: 9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08
policy:
  devices: [1, 0]
  device_memory: 64MiB
  pinned_memory: 4096
  max_allocations: 1
  max_registrations: 2
  max_streams: 3
  max_events: 4
  max_queued: 5
  max_batch_entries: 6
  max_callbacks: 12
  max_callback_depth: 2
  allow: [aclrtMemcpy, aclrtMalloc]
  deny: [aclrtMalloc]
  host_funcs: [env.log, "kv.*"]
  kernels: [basic, WriteDo]
  memory_pages: 7
  timeout: 1m30s
  compile_timeout: 10s
  max_module_bytes: 1MiB
  max_functions: 8
  max_function_body_bytes: 64KiB
  max_locals: 9
  max_block_depth: 10
  max_br_table_targets: 11
  max_call_bytes: 1GiB
  refuse_init_config: true
  allow_init_config: true      # deprecated; with refuse_init_config Load refuses the pair
  max_table_entries: 8
  max_stack_bytes: 1MiB
  models: {classifier: cnn.onnx, edges: /models/edge.onnx}
  allow_guest_models: true
  check_async: true
  mounts:
    - data:/data
    - {host_dir: /abs/out, guest_dir: /out, writable: true}
    - "C:\\in:/in:rw"
  max_file_read_bytes: 2MiB
  max_file_write_bytes: 3MiB
  max_open_files: 13
  max_mount_bytes: 4MiB
args: [-v]
env: {B: "2", A: "1"}
config: {scale: "0.5"}
serve: {max_concurrent: 3, export: process, reuse_instances: true}
`), 0o644))
	m, err := LoadManifest(path)
	require.NoError(t, err)
	reuse := true
	require.Equal(t, &Manifest{
		Name: "pre", Path: filepath.Join(dir, "pre.wasm"),
		SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Policy: Policy{
			Devices: []int32{1, 0}, DeviceMemory: 64 << 20, PinnedMemory: 4096,
			MaxAllocations: 1, MaxRegistrations: 2, MaxStreams: 3, MaxEvents: 4, MaxQueued: 5, MaxBatchEntries: 6,
			MaxCallbacks: 12, MaxCallbackDepth: 2,
			Allow: []string{"aclrtMemcpy", "aclrtMalloc"}, Deny: []string{"aclrtMalloc"}, HostFuncs: []string{"env.log", "kv.*"},
			Kernels:     []string{"basic", "WriteDo"},
			MemoryPages: 7, Timeout: 90 * time.Second, CompileTimeout: 10 * time.Second,
			MaxModuleBytes: 1 << 20, MaxFunctions: 8, MaxFunctionBodyBytes: 64 << 10, MaxLocals: 9, MaxBlockDepth: 10, MaxBrTableTargets: 11, MaxCallBytes: 1 << 30, RefuseInitConfig: true, AllowInitConfig: true,
			MaxTableEntries: 8, MaxStackBytes: 1 << 20,
			Models:           map[string]string{"classifier": filepath.Join(dir, "cnn.onnx"), "edges": "/models/edge.onnx"},
			AllowGuestModels: true,
			CheckAsync:       true,
			Mounts: []Mount{
				{HostDir: filepath.Join(dir, "data"), GuestDir: "/data"},
				{HostDir: "/abs/out", GuestDir: "/out", Writable: true},
				{HostDir: filepath.Join(dir, `C:\in`), GuestDir: "/in", Writable: true},
			},
			MaxFileReadBytes: 2 << 20, MaxFileWriteBytes: 3 << 20, MaxOpenFiles: 13, MaxMountBytes: 4 << 20,
		},
		Args: []string{"-v"}, Env: map[string]string{"A": "1", "B": "2"}, Vars: map[string]string{"scale": "0.5"},
		Serve: ServeManifest{MaxConcurrent: 3, Export: "process", ReuseInstances: &reuse},
	}, m)
	// The manifest above sets every field of Policy: one added later must
	// be added there too (decodePolicy covers it by itself).
	pv := reflect.ValueOf(m.Policy)
	for i := 0; i < pv.NumField(); i++ {
		require.False(t, pv.Field(i).IsZero(), "the test manifest does not set policy.%s", snake(pv.Type().Field(i).Name))
	}
	require.Equal(t, Config{Args: []string{"pre", "-v"}, Env: []string{"A=1", "B=2"}, Vars: map[string]string{"scale": "0.5"}}, m.Config())
}

func TestManifestErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: a\nmodule: {path: x.wasm}\nbogus: 1\n", "bogus (line 3): no such field (have: args, config, env, module, name, policy, serve)"},
		{"name: a\nmodule: {path: x.wasm, sha: 1}\n", "module.sha (line 2): no such field (have: path, sha256)"},
		{"module: {path: x.wasm}\n", "name (line 1): missing"},
		{"name: a\n", "module (line 1): missing"},
		{"name: a\nmodule: {path: x.wasm, sha256: abc}\n", `module.sha256 (line 2): "abc" is not 64 hex digits`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  max_stream: 3\n", "policy.max_stream (line 4): no such field (have: allow, allow_guest_models, allow_init_config, check_async, compile_timeout, deny, device_memory, devices,"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  MaxStreams: 3\n", "policy.MaxStreams (line 4): no such field"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  max_streams: many\n", "policy.max_streams (line 4): want an integer, not a string"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  timeout: 30\n", `policy.timeout (line 4): "30" is not a duration`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  device_memory: 1TB\n", `policy.device_memory (line 4): "1TB" is not a byte count`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  timeout: 1s\n  timeout: 2s\n", "policy.timeout (line 5): given twice"},
		{"name: a\nmodule: {path: x.wasm}\npolicy: [1]\n", "policy (line 3): want a mapping, not a list"},
		{"name: a\nmodule: {path: x.wasm}\nserve: {max_concurent: 3}\n", "serve.max_concurent (line 3): no such field (have: export, max_concurrent, reuse_instances)"},
		{"name: a\nmodule: {path: x.wasm}\nserve: {max_concurrent: -1}\n", "serve.max_concurrent (line 3): minimum: got -1, want 0"},
		{"name: a\nmodule: {path: x.wasm}\nserve: {export: _start}\n", `serve.export (line 3): "_start" is not a reactor's export (not _start)`},
		{"name: a\nmodule: {path: x.wasm}\nserve:\n  reuse_instances: always\n", "serve.reuse_instances (line 4): want true or false, not a string"},
		{"name: a\nmodule: {path: x.wasm}\nenv: {\"A=B\": x}\n", "env.A=B (line 3): want a nonempty name without '=' or NUL"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  models: {\"\": a.onnx}\n", "policy.models (line 4): an empty model name"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  models: {a: \"\"}\n", `policy.models (line 4): model "a": no file`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  models: {\"a\\0b\": a.onnx}\n", "a name must not contain NUL"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  models: [a.onnx]\n", "policy.models (line 4): want a mapping, not a list"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  models: {a: {file: a.onnx}}\n", "policy.models.a (line 4): want a string, not a mapping"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  models: {a: x.onnx, a: y.onnx}\n", "policy.models.a (line 4): given twice"},
		{"name: a\nmodule: {path: x.wasm}\nconfig: {k: " + strings.Repeat("x", maxVarLen+1) + "}\n", "config.k (line 3): maxLength: got 65,537, want 65,536"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts: data:/data\n", "policy.mounts (line 4): want a list, not a string"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - data\n", `policy.mounts (line 5): [0] (line 5): mount "data": want HOSTDIR:GUESTDIR[:rw]`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - a:/b\n    - data:data\n", `policy.mounts (line 5): [1] (line 6): mount "data:data": guest directory "data" must be an absolute, clean path`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - :/data\n", `[0] (line 5): mount ":/data": no host directory`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - {host_dir: d, guest_dir: /d, rw: true}\n", "[0] (line 5): rw: no such field (have: host_dir, guest_dir, writable)"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - {guest_dir: /d}\n", "[0] (line 5): host_dir: missing"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - {host_dir: d, guest_dir: /d/}\n", `[0] (line 5): mount: guest_dir "/d/" must be an absolute, clean path`},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - {host_dir: d, guest_dir: /d, writable: yes please}\n", "policy.mounts[0].writable (line 5): want true or false, not a string"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - {host_dir: d, host_dir: e, guest_dir: /d}\n", "host_dir"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  mounts:\n    - [d, /d]\n", "policy.mounts[0] (line 5): want a string or a mapping, not a list"},
		{"name: a\nmodule: {path: x.wasm}\npolicy:\n  max_open_files: some\n", "policy.max_open_files (line 4): want an integer, not a string"},
	} {
		_, err := ParseManifest([]byte(tc.src))
		require.ErrorContains(t, err, tc.want, "%s", tc.src)
	}
	m, err := ParseManifest([]byte("name: a\nmodule: {path: x.wasm}\npolicy: {timeout: none}\n"))
	require.NoError(t, err)
	require.Equal(t, NoTimeout, m.Policy.Timeout)
	require.Nil(t, m.Serve.ReuseInstances, "unset: the server's default")
	_, err = LoadManifest(filepath.Join(t.TempDir(), "none.yaml"))
	require.ErrorContains(t, err, "no such file")
}

// TestManifestLoad: the module's hash is checked; the config reaches the
// guest through aclwasm.config_read, bounds-checked.
func TestManifestLoad(t *testing.T) {
	ctx := context.Background()
	wasm := testsupport.WAT(t, `(module
  (import "aclwasm" "config_read" (func $cfg (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x10) "scale")
  (data (i32.const 0x20) "none")
  (func (export "read") (param i32 i32) (result i32)
    (call $cfg (i32.const 0x10) (i32.const 5) (local.get 0) (local.get 1)))
  (func (export "missing") (result i32)
    (call $cfg (i32.const 0x20) (i32.const 4) (i32.const 0x100) (i32.const 8)))
  (func (export "badkey") (result i32)
    (call $cfg (i32.const 0xfffe) (i32.const 5) (i32.const 0x100) (i32.const 8)))
)`)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.wasm"), wasm, 0o644))
	sum := sha256.Sum256(wasm)
	write := func(hash string) string {
		p := filepath.Join(dir, "m.yaml")
		require.NoError(t, os.WriteFile(p, []byte("name: p\nmodule: {path: p.wasm, sha256: "+hash+"}\npolicy: {memory_pages: 1}\nconfig: {scale: \"0.5\"}\n"), 0o644))
		return p
	}
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	defer rt.Close(ctx)

	m, err := LoadManifest(write(strings.Repeat("0", 64)))
	require.NoError(t, err)
	_, err = m.Load(ctx, rt)
	require.ErrorIs(t, err, ErrLoad)
	require.ErrorContains(t, err, "module.sha256: "+m.Path+" has sha256 "+hex.EncodeToString(sum[:]))

	m, err = LoadManifest(write(hex.EncodeToString(sum[:])))
	require.NoError(t, err)
	pl, err := m.Load(ctx, rt)
	require.NoError(t, err)
	defer pl.Close(ctx)
	require.Equal(t, uint32(1), pl.Policy().MemoryPages)
	inst, err := pl.Instantiate(ctx, m.Config())
	require.NoError(t, err)
	defer inst.Close(ctx)
	call := func(name string, args ...uint64) int32 {
		res, err := inst.Call(ctx, name, args...)
		require.NoError(t, err)
		return int32(uint32(res[0]))
	}
	require.Equal(t, int32(3), call("read", 0x100, 8))
	b, _ := inst.ReadMemory(0x100, 3)
	require.Equal(t, "0.5", string(b))
	require.Equal(t, int32(3), call("read", 0, 0), "the length alone")
	require.NoError(t, inst.WriteMemory(0x200, []byte{7, 7}))
	require.Equal(t, int32(3), call("read", 0x200, 1), "truncated to bufLen")
	b, _ = inst.ReadMemory(0x200, 2)
	require.Equal(t, []byte{'0', 7}, b)
	require.Equal(t, int32(-1), call("missing"))
	require.Equal(t, int32(100000), call("badkey"))
	require.Equal(t, int32(100000), call("read", 0xfffe, 8))
	require.Contains(t, inst.Session().LastError(), "aclwasm.config_read: buf [0xfffe, +3) is outside guest memory")
}

// TestManifestLoadName: a manifest-loaded plugin is named by the
// manifest in metrics (runs, refusals) and run records, as LoadName
// names a plugin that Runtime.Load loads.
func TestManifestLoadName(t *testing.T) {
	ctx := context.Background()
	m, err := NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	var seen nameObserver
	rt := newRuntime(t, WithMetrics(m), WithObserver(&seen))
	dir := t.TempDir()
	write := func(policy string) *Manifest {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "p.wasm"), testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), 0o644))
		p := filepath.Join(dir, "m.yaml")
		require.NoError(t, os.WriteFile(p, []byte("name: pre\nmodule: {path: p.wasm}\npolicy: {"+policy+"}\n"), 0o644))
		man, err := LoadManifest(p)
		require.NoError(t, err)
		return man
	}
	runs := func(plugin, out string) float64 { return testutil.ToFloat64(m.m.Runs.WithLabelValues(plugin, out)) }

	pl, err := write("").Load(ctx, rt)
	require.NoError(t, err)
	defer pl.Close(ctx)
	res, err := pl.Run(ctx, Config{})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	require.Equal(t, 1.0, runs("pre", "ok"), "the run is counted under the manifest's name")
	require.Zero(t, runs("", "ok"), "never under no name")
	require.Equal(t, nameObserver{"pre"}, seen, "the run record names the plugin")

	_, err = write("deny: [aclrtMemcpy]").Load(ctx, rt)
	require.ErrorIs(t, err, ErrLoad)
	require.Equal(t, 1.0, runs("pre", "refused"), "a refusal too")
}

// nameObserver records the plugin name of each run that begins.
type nameObserver []string

func (o *nameObserver) Begin(_ context.Context, ri RunInfo) RunObserver {
	*o = append(*o, ri.Plugin)
	return nil
}
