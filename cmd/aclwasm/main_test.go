package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// bin is the CLI, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	os.Exit(mainRun(m))
}

// cacheHome is the user cache directory the tests' CLI runs see.
var cacheHome string

func mainRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "aclwasm-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmd/aclwasm tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The go commands the tests run (the CLI's build here, otel's and go
	// list in otel_test.go) keep the machine's build cache: Go derives its
	// default from XDG_CACHE_HOME, which is changed below, and an empty
	// cache would compile the standard library and every dependency again
	// on each run (minutes on a small machine).
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmd/aclwasm tests: go env GOCACHE:", err)
		return 1
	}
	os.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	// The CLI's default compilation cache goes to the user's cache
	// directory: the tests' is their own.
	cacheHome = filepath.Join(dir, "cache")
	os.Setenv("XDG_CACHE_HOME", cacheHome)
	bin = filepath.Join(dir, "aclwasm")
	// No build tags (whatever GOFLAGS says): the tests expect a build without
	// the wasmtime engine.
	build := exec.Command("go", "build", "-tags=", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cmd/aclwasm tests: go build failed: %v\n%s", err, out)
		return 1
	}
	if code := m.Run(); code != 0 {
		return code
	}
	// What the tests ran in this process (servers, clients, exporters)
	// has ended with them.
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "cmd/aclwasm tests: goroutines left:", err)
		return 1
	}
	return 0
}

// result is how one run of the CLI ended.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the CLI with args and returns its output and exit status.
func cli(t *testing.T, args ...string) result {
	t.Helper()
	return cliEnv(t, nil, args...)
}

// cliEnv is cli with env added to the environment.
func cliEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(append(os.Environ(), "ACLWASM_ACL_LIB="), env...)
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "aclwasm %q did not finish", args)
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("aclwasm %q: %v", args, err)
	}
	return r
}

// wat compiles a WAT guest with wat2wasm into the test's temp dir and
// returns the .wasm path. A missing wat2wasm fails the test.
func wat(t *testing.T, name, src string) string {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, name+".wat"), filepath.Join(dir, name+".wasm")
	require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
	// --debug-names: a name section, so that trap backtraces name functions.
	testsupport.CompileWAT(t, in, out, "--debug-names")
	return out
}

// oneLine asserts that s is exactly one line and returns it without its newline.
func oneLine(t *testing.T, s string) string {
	t.Helper()
	require.True(t, strings.HasSuffix(s, "\n"), "stderr %q does not end a line", s)
	line := strings.TrimSuffix(s, "\n")
	require.NotContains(t, line, "\n", "stderr is more than one line")
	return line
}

const (
	watExit7 = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (i32.const 7))))`
	watReturn = `(module (memory (export "memory") 1) (func (export "_start")))`
	watTrap   = `(module (memory (export "memory") 1) (func (export "_start") unreachable))`
	watSpin   = `(module (memory (export "memory") 1) (func (export "_start") (loop $l (br $l))))`
	// watImports imports two ABI functions correctly, one unknown, one with
	// a wrong signature and one from a module that is not provided.
	watBadImports = `(module
  (import "acl" "aclrtFoo" (func (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func (param i32 i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func (param i32) (result i32)))
  (import "env" "x" (func))
  (memory (export "memory") 2)
  (func (export "_start")))`
	watSetDevice = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtGetDevice" (func $get (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start") (drop (call $set (i32.const 0)))))`
	// watInitConfig calls aclInit("./acl.json") and exits 3 if it fails.
	watInitConfig = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "acl" "aclInit" (func $init (param i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "./acl.json\00")
  (func (export "_start") (if (call $init (i32.const 16)) (then (call $exit (i32.const 3))))))`
)

// TestInitConfig: aclInit with a path succeeds and the plugin's log says
// the file was ignored; --allow-init-config, deprecated, still parses and
// says so; with --refuse-init-config the contradiction is refused.
func TestInitConfig(t *testing.T) {
	initcfg := wat(t, "initconfig", watInitConfig)
	r := cli(t, "run", initcfg)
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	line := oneLine(t, r.stderr)
	for _, s := range []string{"level=WARN", "aclInit: configuration file ignored", "configPath=./acl.json"} {
		require.Contains(t, line, s)
	}

	r = cli(t, "run", "--log-level", "error", "--allow-init-config", initcfg)
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	require.Equal(t, "Flag --allow-init-config has been deprecated, aclInit with a configuration file's path succeeds by default; --refuse-init-config refuses it", oneLine(t, r.stderr))

	r = cli(t, "run", "--log-level", "error", "--allow-init-config", "--refuse-init-config", initcfg)
	require.Equal(t, 126, r.code, "stderr: %s", r.stderr)
	require.Contains(t, r.stderr, "--allow-init-config (deprecated: the default) and --refuse-init-config contradict each other")
}

func TestExitCodes(t *testing.T) {
	initcfg := wat(t, "initconfig", watInitConfig)
	exit7 := wat(t, "exit7", watExit7)
	ret := wat(t, "return", watReturn)
	trap := wat(t, "trap", watTrap)
	spin := wat(t, "spin", watSpin)
	bad := wat(t, "badimports", watBadImports)
	setdev := wat(t, "setdevice", watSetDevice)

	for _, tc := range []struct {
		name string
		args []string
		code int
		// stderr: "" means none; otherwise one line containing each of these.
		stderr []string
	}{
		{"guest exits 7", []string{"run", exit7}, 7, nil},
		{"_start returns", []string{"run", ret}, 0, nil},
		{"trap", []string{"run", trap}, 134, []string{"aclwasm: ", "_start: guest trapped: unreachable"}},
		{"timeout", []string{"run", "--timeout", "200ms", spin}, 124, []string{"aclwasm: ", "guest timed out after 200ms (the policy's timeout)"}},
		{"unknown import", []string{"run", bad}, 125, []string{
			"load refused",
			"import acl.aclrtFoo is not a function of ABI v1",
			"import acl.aclrtMalloc has signature (i32, i32, i32) -> i32, ABI v1 expects (i32, i64, i32) -> i32",
			"import env.x is undefined: no kernel x for its launcher: the runtime registers no kernel of that name (granted: none)",
		}},
		{"denied import", []string{"run", "--deny", "aclrtGetDevice", setdev}, 125, []string{"load refused", "import acl.aclrtGetDevice is denied by the policy"}},
		{"not in allow list", []string{"run", "--allow", "aclrtGetDevice", setdev}, 125, []string{"import acl.aclrtSetDevice is denied by the policy"}},
		{"allowed", []string{"run", "--allow", "aclrtSetDevice,aclrtGetDevice", setdev}, 0, nil},
		{"aclInit with a path, log quiet", []string{"run", "--log-level", "error", initcfg}, 0, nil},
		{"aclInit with a path refused", []string{"run", "--refuse-init-config", initcfg}, 3, nil},
		{"not wasm", []string{"run", os.Args[0]}, 125, []string{"load refused", "compile"}},
		{"missing module", []string{"run", filepath.Join(t.TempDir(), "nope.wasm")}, 126, []string{"nope.wasm"}},
		{"reactor run as command", []string{"run", wat(t, "reactor", watReactor)}, 126, []string{"has no _start", "--invoke NAME", "it exports: _initialize, add, count, setdev, id, none, quit, boom, spin"}},
		{"unknown command", []string{"runn", ret}, 126, []string{`unknown command "runn"`}},
		{"abi with an argument", []string{"abi", "extra"}, 126, []string{"extra"}},
		{"acl-lib without cann", []string{"run", "--acl-lib", "/x.so", ret}, 126, []string{"--acl-lib applies only to --backend cann"}},
		{"chip with cann", []string{"run", "--backend", "cann", "--chip", "a3", ret}, 126, []string{"--chip applies only to --backend sim"}},
		{"devices with cann", []string{"run", "--backend", "cann", "--devices", "1", ret}, 126, []string{"--devices applies only to --backend sim"}},
		{"sim-memory with cann", []string{"run", "--backend", "cann", "--sim-memory", "1GiB", ret}, 126, []string{"--sim-memory applies only to --backend sim"}},
		{"sim-timing with cann", []string{"run", "--backend", "cann", "--sim-timing", ret}, 126, []string{"--sim-timing applies only to --backend sim"}},
		{"sim-pacing with cann", []string{"run", "--backend", "cann", "--sim-pacing", ret}, 126, []string{"--sim-pacing applies only to --backend sim"}},
		{"check takes no backend flag", []string{"check", "--backend", "cann", ret}, 126, []string{"unknown flag: --backend"}},
		{"check takes no timeout", []string{"check", "--timeout", "1s", ret}, 126, []string{"unknown flag: --timeout"}},

		// Bad flag values.
		{"device-memory unit", []string{"run", "--device-memory", "12XB", ret}, 126, []string{"--device-memory", `"12XB"`}},
		{"pinned-memory", []string{"run", "--pinned-memory", "lots", ret}, 126, []string{"--pinned-memory", `"lots"`}},
		{"sim-memory", []string{"run", "--sim-memory", "1TB", ret}, 126, []string{"--sim-memory", `"1TB"`}},
		{"sim-memory 0", []string{"run", "--sim-memory", "0GiB", ret}, 126, []string{"--sim-memory", `"0GiB"`}},
		{"device-memory overflow", []string{"run", "--device-memory", "17179869184GiB", ret}, 126, []string{"--device-memory", `"17179869184GiB"`, "overflows"}},
		{"device-memory 0", []string{"run", "--device-memory", "0", ret}, 126, []string{"--device-memory"}},
		{"max-call-bytes unit", []string{"run", "--max-call-bytes", "1XB", ret}, 126, []string{"--max-call-bytes", `"1XB"`}},
		{"max-call-bytes 0", []string{"run", "--max-call-bytes", "0", ret}, 126, []string{"--max-call-bytes"}},
		{"pinned-memory 0", []string{"run", "--pinned-memory", "0KiB", ret}, 126, []string{"--pinned-memory"}},
		{"memory-pages 0", []string{"run", "--memory-pages", "0", ret}, 126, []string{"--memory-pages"}},
		{"memory-pages too many", []string{"run", "--memory-pages", "70000", ret}, 126, []string{"70000"}},
		{"max-streams 0", []string{"run", "--max-streams", "0", ret}, 126, []string{"--max-streams"}},
		{"max-allocations negative", []string{"run", "--max-allocations", "-1", ret}, 126, []string{"--max-allocations"}},
		{"chip", []string{"run", "--chip", "z9", ret}, 126, []string{`--chip "z9"`, "a2, a3 or 950"}},
		{"backend", []string{"run", "--backend", "nope", ret}, 126, []string{`--backend "nope"`, "sim or cann"}},
		{"devices 0", []string{"run", "--devices", "0", ret}, 126, []string{"--devices 0"}},
		{"device-map out of range", []string{"run", "--device-map", "5", ret}, 126, []string{"5", "2 devices"}},
		{"device-map twice", []string{"run", "--device-map", "1,1", ret}, 126, []string{"mapped twice"}},
		{"device-map not a number", []string{"run", "--device-map", "0,x", ret}, 126, []string{"--device-map", `"x"`}},
		{"deny unknown function", []string{"run", "--deny", "aclrtFoo", ret}, 126, []string{`"aclrtFoo"`}},
		{"engine wasmtime", []string{"run", "--engine", "wasmtime", ret}, 126, []string{"wasmtime", "-tags wasmtime"}},
		{"engine unknown", []string{"run", "--engine", "v8", ret}, 126, []string{`"v8"`, "wazero"}},
		{"cann library missing", []string{"run", "--backend", "cann", "--acl-lib", "/nonexistent.so", ret}, 126, []string{"/nonexistent.so"}},
		{"timeout syntax", []string{"run", "--timeout", "xx", ret}, 126, []string{"--timeout", `"xx"`}},
		{"timeout 0", []string{"run", "--timeout", "0", ret}, 126, []string{"--timeout"}},
		{"timeout negative", []string{"run", "--timeout", "-1s", ret}, 126, []string{"--timeout"}},
		{"unknown flag", []string{"run", "--bogus", ret}, 126, []string{"--bogus"}},
		{"env without =", []string{"run", "--env", "NOEQ", ret}, 126, []string{"--env", `"NOEQ"`}},
		{"env empty key", []string{"run", "--env", "=v", ret}, 126, []string{"--env", `"=v"`}},
		{"no module", []string{"run"}, 126, []string{"plugin.wasm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := cli(t, tc.args...)
			require.Equal(t, tc.code, r.code, "exit code; stderr: %s", r.stderr)
			require.Empty(t, r.stdout)
			if tc.stderr == nil {
				require.Empty(t, r.stderr)
				return
			}
			stderr := r.stderr
			if tc.code == 134 { // the reason, then the guest backtrace
				var bt string
				stderr, bt, _ = strings.Cut(stderr, "\n")
				stderr += "\n"
				require.Equal(t, "  at $0\n", bt)
			}
			line := oneLine(t, stderr)
			require.True(t, strings.HasPrefix(line, "aclwasm: "), "stderr %q", line)
			for _, s := range tc.stderr {
				require.Contains(t, line, s)
			}
		})
	}
}

// TestGuestExitCodes: the guest's own exit code is the process's, and one
// a process cannot have never reads as success.
func TestGuestExitCodes(t *testing.T) {
	const src = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (i32.const %d))))`
	for _, tc := range []struct {
		exit, code int
		host       string // the host's meaning of the code, said on stderr
	}{{0, 0, ""}, {1, 1, ""}, {123, 123, "check-async findings (123)"}, {124, 124, "timeout (124)"}, {125, 125, "load refusal (125)"},
		{126, 126, "host error (126)"}, {127, 127, ""}, {130, 130, "interruption (130)"}, {134, 134, "trap (134)"},
		{255, 255, ""}, {256, 255, ""}, {512, 255, ""}, {65536, 255, ""}, {0x7fffffff, 255, ""}} {
		t.Run(fmt.Sprint(tc.exit), func(t *testing.T) {
			t.Parallel()
			r := cli(t, "run", wat(t, "exit", fmt.Sprintf(src, tc.exit)))
			require.Equal(t, tc.code, r.code, r.stderr)
			if uint32(tc.exit) > 255 {
				require.Contains(t, oneLine(t, r.stderr), fmt.Sprintf("guest exited with code %d", uint32(tc.exit)))
			} else if tc.host != "" {
				require.Equal(t, fmt.Sprintf("aclwasm: guest exited with code %d: the guest's own code, not the host's %s", tc.exit, tc.host), oneLine(t, r.stderr))
			} else {
				require.Empty(t, r.stderr)
			}
		})
	}
}

// TestGuestExitReason: a command that says why it fails
// (aclwasm.error_set) before exiting has its reason on stderr.
func TestGuestExitReason(t *testing.T) {
	const src = `(module
  (import "aclwasm" "error_set" (func $set (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "no input file")
  (func (export "_start")
    (drop (call $set (i32.const 16) (i32.const 13)))
    (call $exit (i32.const %d))))`
	r := cli(t, "run", wat(t, "why", fmt.Sprintf(src, 3)))
	require.Equal(t, 3, r.code, r.stderr)
	require.Equal(t, "aclwasm: guest exited with code 3 (the guest says: no input file)", oneLine(t, r.stderr))
	r = cli(t, "run", wat(t, "why124", fmt.Sprintf(src, 124)))
	require.Equal(t, 124, r.code, r.stderr)
	require.Equal(t, "aclwasm: guest exited with code 124 (the guest says: no input file): the guest's own code, not the host's timeout (124)", oneLine(t, r.stderr))
}

const watTraceGuest = `(module
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (call $setdev (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 4096) (i32.const 0)))
    ;; one 4096-byte H2D copy from guest address 1024
    (drop (call $memcpy (i64.load (i32.const 16)) (i64.const 4096) (i64.const 1024) (i64.const 4096) (i32.const 1)))
    ;; a failing call
    (drop (call $malloc (i32.const 16) (i64.const 0) (i32.const 0)))
    ;; a failing copy: past the end of guest memory
    (drop (call $memcpy (i64.load (i32.const 16)) (i64.const 4096) (i64.const 65000) (i64.const 4096) (i32.const 1)))
    (drop (call $free (i64.load (i32.const 16))))
    (drop (call $setdev (i32.const -1)))))`

func TestTrace(t *testing.T) {
	g := wat(t, "trace", watTraceGuest)
	r := cli(t, "run", "--trace", g)
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stdout)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	require.Len(t, lines, 7, r.stderr)

	// The device address is the host's to choose: read it from the copy.
	var dev string
	_, err := fmt.Sscanf(lines[2], "trace: aclrtMemcpy(dst=%s", &dev)
	require.NoError(t, err, lines[2])
	dev = strings.TrimSuffix(dev, ",")
	require.Regexp(t, `^0x[0-9a-f]{9,16}$`, dev, "a device address is at or above 2^32")

	require.Equal(t, "trace: aclrtSetDevice(deviceId=0) = 0", lines[0])
	// The address aclrtMalloc wrote follows its out-parameter's, and the
	// enums read by their names.
	require.Equal(t, "trace: aclrtMalloc(devPtr=0x10 -> "+dev+", size=4096, policy=ACL_MEM_MALLOC_HUGE_FIRST) = 0", lines[1])
	require.Equal(t, "trace: aclrtMemcpy(dst="+dev+", destMax=4096, src=0x400, count=4096, kind=ACL_MEMCPY_HOST_TO_DEVICE) = 0", lines[2])
	require.Equal(t, "trace: aclrtMalloc(devPtr=0x10, size=0, policy=ACL_MEM_MALLOC_HUGE_FIRST) = 100000 ACL_ERROR_INVALID_PARAM: aclrtMalloc: size is 0", lines[3])
	require.Regexp(t, `^trace: aclrtMemcpy\(dst=`+dev+`, destMax=4096, src=0xfde8, count=4096, kind=ACL_MEMCPY_HOST_TO_DEVICE\) = 107000 ACL_ERROR_RT_PARAM_INVALID: aclrtMemcpy: \S.*$`, lines[4])
	require.Equal(t, "trace: aclrtFree(devPtr="+dev+") = 0", lines[5])
	require.Regexp(t, `^trace: aclrtSetDevice\(deviceId=-1\) = \d+ ACL_ERROR_\w+: aclrtSetDevice: \S.*$`, lines[6])
}

// TestTraceTrap: calls before a trap are traced, then the one-line reason.
func TestTraceTrap(t *testing.T) {
	g := wat(t, "tracetrap", `(module
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start") (drop (call $setdev (i32.const 1))) unreachable))`)
	r := cli(t, "run", "--trace", g)
	require.Equal(t, 134, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	require.Equal(t, []string{
		"trace: aclrtSetDevice(deviceId=1) = 0",
		"aclwasm: _start: guest trapped: unreachable",
		"  at $1",
	}, lines)
}

// TestTrapBacktrace: a trap prints the reason, then the guest's frames,
// innermost first, by the names of the module's name section.
func TestTrapBacktrace(t *testing.T) {
	g := wat(t, "backtrace", `(module
  (memory (export "memory") 1)
  (func $inner (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
  (func $outer (drop (call $inner (i32.const 0))))
  (func (export "_start") (call $outer))
  (func (export "divide") (param i32) (result i32) (call $inner (local.get 0))))`)
	r := cli(t, "run", g)
	require.Equal(t, 134, r.code, r.stderr)
	require.Equal(t, "aclwasm: _start: guest trapped: integer divide by zero\n  at inner\n  at outer\n  at $2\n", r.stderr)
	r = cli(t, "run", "--invoke", "divide", g, "0")
	require.Equal(t, 134, r.code, r.stderr)
	require.Equal(t, "aclwasm: divide: guest trapped: integer divide by zero\n  at inner\n  at $3\n", r.stderr)
}

// statsTable parses the --stats table: function -> its columns.
func statsTable(t *testing.T, stderr string) map[string][]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Greater(t, len(lines), 1)
	require.Equal(t, "engine wazero, backend sim (chip a2, 2 devices of 32GiB)", lines[0], "what ran")
	require.Equal(t, []string{"function", "calls", "errors", "H2D", "D2H", "D2D", "H2H", "set"}, strings.Fields(lines[1]))
	rows := map[string][]string{}
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		require.NotEmpty(t, f, "blank line in %q", stderr)
		rows[f[0]] = f[1:]
	}
	return rows
}

func TestStats(t *testing.T) {
	g := wat(t, "stats", watTraceGuest)
	r := cli(t, "run", "--stats", g)
	require.Equal(t, 0, r.code, r.stderr)
	rows := statsTable(t, r.stderr)
	require.Equal(t, map[string][]string{
		"aclrtSetDevice": {"2", "1×107001", "0", "0", "0", "0", "0"},
		"aclrtMalloc":    {"2", "1×100000", "0", "0", "0", "0", "0"},
		"aclrtMemcpy":    {"2", "1×107000", "4096", "0", "0", "0", "0"},
		"aclrtFree":      {"1", "-", "0", "0", "0", "0", "0"},
		"total":          {"4096", "0", "0", "0", "0"},
	}, rows, r.stderr)
}

// TestStatsMemset: the set column counts the bytes the memset functions
// set, in device memory and in guest memory, synchronously and in stream
// order; a memset that fails sets none.
func TestStatsMemset(t *testing.T) {
	g := wat(t, "statsmemset", `(module
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemset" (func $memset (param i64 i64 i32 i64) (result i32)))
  (import "acl" "aclrtMemsetAsync" (func $memsetAsync (param i64 i64 i32 i64 i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $mkstream (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (call $setdev (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 4096) (i32.const 0)))
    (drop (call $mkstream (i32.const 32)))
    ;; 1000 device bytes, then 24 guest bytes
    (drop (call $memset (i64.load (i32.const 16)) (i64.const 4096) (i32.const 7) (i64.const 1000)))
    (drop (call $memset (i64.const 1024) (i64.const 24) (i32.const 7) (i64.const 24)))
    ;; a failing one: count beyond maxCount
    (drop (call $memset (i64.load (i32.const 16)) (i64.const 10) (i32.const 7) (i64.const 20)))
    ;; 2048 device bytes on the stream
    (drop (call $memsetAsync (i64.load (i32.const 16)) (i64.const 4096) (i32.const 1) (i64.const 2048) (i32.load (i32.const 32))))
    (drop (call $sync (i32.load (i32.const 32))))))`)
	r := cli(t, "run", "--stats", g)
	require.Equal(t, 0, r.code, r.stderr)
	rows := statsTable(t, r.stderr)
	require.Equal(t, []string{"3", "1×107000", "0", "0", "0", "0", "1024"}, rows["aclrtMemset"], r.stderr)
	require.Equal(t, []string{"1", "-", "0", "0", "0", "0", "2048"}, rows["aclrtMemsetAsync"], r.stderr)
	require.Equal(t, []string{"0", "0", "0", "0", "3072"}, rows["total"], r.stderr)
}

// TestStatsAfterTrap: the table comes after a failed run too.
func TestStatsAfterTrap(t *testing.T) {
	g := wat(t, "statstrap", `(module
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start") (drop (call $setdev (i32.const 0))) unreachable))`)
	r := cli(t, "run", "--stats", g)
	require.Equal(t, 134, r.code, r.stderr)
	table, trap, ok := strings.Cut(r.stderr, "aclwasm: ")
	require.True(t, ok, r.stderr)
	require.Equal(t, "_start: guest trapped: unreachable\n  at $1\n", trap)
	rows := statsTable(t, table)
	require.Equal(t, []string{"1", "-", "0", "0", "0", "0", "0"}, rows["aclrtSetDevice"])
}

const watReactor = `(module
  (import "acl" "aclrtGetDeviceCount" (func $cnt (param i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (global $init (mut i32) (i32.const 0))
  (func (export "_initialize") (global.set $init (i32.const 100)))
  ;; a + b, and what _initialize set
  (func (export "add") (param i32 i64) (result i64 i32)
    (i64.add (i64.extend_i32_s (local.get 0)) (local.get 1)) (global.get $init))
  ;; aclrtGetDeviceCount's result and count
  (func (export "count") (result i32 i32)
    (call $cnt (i32.const 8)) (i32.load (i32.const 8)))
  (func (export "setdev") (param i32) (result i32) (call $setdev (local.get 0)))
  (func (export "id") (param i64) (result i64) (local.get 0))
  (func (export "none"))
  (func (export "quit") (param i32) (call $exit (local.get 0)))
  (func (export "boom") unreachable)
  (func (export "spin") (loop $l (br $l))))`

func TestInvoke(t *testing.T) {
	g := wat(t, "reactor", watReactor)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string
	}{
		{"results", []string{"--invoke", "add", g, "2", "40"}, 0, "42 100\n", nil},
		{"negative and hex", []string{"--invoke", "add", g, "-2", "0x10"}, 0, "14 100\n", nil},
		{"i64 max", []string{"--invoke", "id", g, "9223372036854775807"}, 0, "9223372036854775807\n", nil},
		{"u64 max", []string{"--invoke", "id", g, "18446744073709551615"}, 0, "18446744073709551615\n", nil},
		{"host call", []string{"--invoke", "setdev", g, "0"}, 0, "0\n", nil},
		{"host call error", []string{"--invoke", "setdev", g, "9"}, 0, "107001\n", nil},
		{"no results", []string{"--invoke", "none", g}, 0, "\n", nil},
		{"exit", []string{"--invoke", "quit", g, "3"}, 3, "", nil},
		{"not an integer", []string{"--invoke", "id", g, "abc"}, 126, "", []string{`--invoke id: argument "abc" is not an integer`}},
		{"no such export", []string{"--invoke", "nope", g}, 126, "", []string{`exports no function "nope": it exports add, count, setdev, id, none, quit, boom, spin`}},
		{"trap", []string{"--invoke", "boom", g}, 134, "", []string{"boom: guest trapped: unreachable"}},
		{"timeout", []string{"--timeout", "200ms", "--invoke", "spin", g}, 124, "", []string{"spin: guest timed out after 200ms (the policy's timeout)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := cli(t, append([]string{"run"}, tc.args...)...)
			require.Equal(t, tc.code, r.code, r.stderr)
			require.Equal(t, tc.stdout, r.stdout)
			if tc.stderr == nil {
				require.Empty(t, r.stderr)
				return
			}
			stderr := r.stderr
			if tc.code == 134 {
				stderr, _, _ = strings.Cut(stderr, "\n  at ")
				stderr += "\n"
			}
			line := oneLine(t, stderr)
			for _, s := range tc.stderr {
				require.Contains(t, line, s)
			}
		})
	}
}

func TestInvokeStats(t *testing.T) {
	g := wat(t, "reactor", watReactor)
	r := cli(t, "run", "--stats", "--invoke", "setdev", g, "0")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "0\n", r.stdout)
	rows := statsTable(t, r.stderr)
	require.Equal(t, []string{"1", "-", "0", "0", "0", "0", "0"}, rows["aclrtSetDevice"])
}

func TestDevices(t *testing.T) {
	g := wat(t, "reactor", watReactor)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, "0 2\n"}, // the simulator's default: 2 devices
		{[]string{"--devices", "4"}, "0 4\n"},
		{[]string{"--devices", "1"}, "0 1\n"},
		{[]string{"--device-map", "1"}, "0 1\n"},
		{[]string{"--devices", "4", "--device-map", "3,1"}, "0 2\n"},
		{[]string{"--devices", "4", "--device-map", " 2, 0 ,1"}, "0 3\n"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"run"}, tc.flags...), "--invoke", "count", g)
			r := cli(t, args...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Equal(t, tc.want, r.stdout)
		})
	}
	// A mapped device set: guest device 1 exists, guest device 2 does not.
	r := cli(t, "run", "--devices", "4", "--device-map", "3,1", "--invoke", "setdev", g, "1")
	require.Equal(t, "0\n", r.stdout, r.stderr)
	r = cli(t, "run", "--devices", "4", "--device-map", "3,1", "--invoke", "setdev", g, "2")
	require.Equal(t, "107001\n", r.stdout, r.stderr)
}

// watEnvArgs writes its environment block, then its argument block, to
// stdout: NUL-terminated strings as WASI's environ_get and args_get fill them.
const watEnvArgs = `(module
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $esz (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $eget (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $asz (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $aget (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $dump (param $buf i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $buf))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func (export "_start")
    (drop (call $esz (i32.const 16) (i32.const 20)))
    (drop (call $eget (i32.const 1024) (i32.const 4096)))
    (call $dump (i32.const 4096) (i32.load (i32.const 20)))
    (drop (call $asz (i32.const 16) (i32.const 20)))
    (drop (call $aget (i32.const 1024) (i32.const 8192)))
    (call $dump (i32.const 8192) (i32.load (i32.const 20)))))`

func TestEnvAndArgs(t *testing.T) {
	g := wat(t, "envargs", watEnvArgs)
	t.Setenv("ACLWASM_TEST_LEAK", "host secret") // the host's environment never reaches the guest

	r := cli(t, "run", "--env", "A=1", "--env", "B=x=y", "--env", "EMPTY=", g, "foo", "bar baz", "--env", "C=3")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stderr)
	// env block, then argv: argv[0] is the module path; flags after the
	// module belong to the guest.
	require.Equal(t, []string{"A=1", "B=x=y", "EMPTY=", g, "foo", "bar baz", "--env", "C=3"},
		strings.Split(strings.TrimSuffix(r.stdout, "\x00"), "\x00"))

	r = cli(t, "run", g)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, g+"\x00", r.stdout, "no environment by default")
}

func TestCheck(t *testing.T) {
	ret := wat(t, "return", watReturn)
	bad := wat(t, "badimports", watBadImports)
	setdev := wat(t, "setdevice", watSetDevice)
	big := wat(t, "bigmem", `(module (memory (export "memory") 100) (func (export "_start")))`)

	r := cli(t, "check", ret)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, ret+": ok\n", r.stdout)
	require.Empty(t, r.stderr)

	r = cli(t, "check", setdev)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, setdev+": ok\n", r.stdout)

	r = cli(t, "check", bad)
	require.Equal(t, 1, r.code, r.stderr)
	require.Equal(t, bad+": import acl.aclrtFoo is not a function of ABI v1\n"+
		bad+": import acl.aclrtMalloc has signature (i32, i32, i32) -> i32, ABI v1 expects (i32, i64, i32) -> i32\n"+
		bad+": import env.x is undefined: no kernel x for its launcher: the runtime registers no kernel of that name (granted: none)\n", r.stdout)

	// Policy flags add their problems: every one is listed.
	r = cli(t, "check", "--deny", "aclrtSetDevice", "--memory-pages", "1", bad)
	require.Equal(t, 1, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 5, r.stdout)
	require.Contains(t, r.stdout, bad+": import acl.aclrtSetDevice is denied by the policy\n")
	require.Contains(t, r.stdout, "aclrtFoo")
	require.Contains(t, r.stdout, "aclrtMalloc")
	require.Contains(t, r.stdout, "env.x")
	require.Contains(t, r.stdout, bad+": memory needs 2 pages at start, the policy allows 1\n")

	r = cli(t, "check", "--memory-pages", "10", big)
	require.Equal(t, 1, r.code, r.stderr)
	require.Equal(t, big+": memory needs 100 pages at start, the policy allows 10\n", r.stdout)

	r = cli(t, "check", "--deny", "aclrtGetDevice", setdev)
	require.Equal(t, 1, r.code, r.stderr)
	require.Equal(t, setdev+": import acl.aclrtGetDevice is denied by the policy\n", r.stdout)

	r = cli(t, "check", os.Args[0])
	require.Equal(t, 1, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, os.Args[0]+": compile"), r.stdout)

	// --imports: a line per import with its status, tab-separated; the
	// exit status is check's, the problems of no import go to stderr.
	r = cli(t, "check", "--imports", "--deny", "aclrtSetDevice", "--memory-pages", "1", bad)
	require.Equal(t, 1, r.code, r.stderr)
	require.Equal(t, "acl\taclrtFoo\t(i32) -> i32\tnot a function of ABI v1\n"+
		"acl\taclrtMalloc\t(i32, i32, i32) -> i32\tsignature mismatch: expects (i32, i64, i32) -> i32\n"+
		"acl\taclrtSetDevice\t(i32) -> i32\tdenied by the policy\n"+
		"env\tx\t() -> \tno matching kernel\n", r.stdout)
	require.Equal(t, bad+": memory needs 2 pages at start, the policy allows 1\naclwasm: refused\n", r.stderr)
	r = cli(t, "check", "--imports", wat(t, "bytes", watBytes))
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "aclwasm\tinput_len\t() -> i32\thost function\n"+
		"aclwasm\tinput_read\t(i32, i32) -> i32\thost function\n"+
		"aclwasm\toutput_write\t(i32, i32) -> i32\thost function\n"+
		"aclwasm\tconfig_read\t(i32, i32, i32, i32) -> i32\thost function\n"+
		"acl\taclrtSetDevice\t(i32) -> i32\tok\n"+
		"wasi_snapshot_preview1\tfd_write\t(i32, i32, i32, i32) -> i32\tWASI preview1\n"+
		"wasi_snapshot_preview1\tproc_exit\t(i32) -> \tWASI preview1\n", r.stdout)
	require.Empty(t, r.stderr)
	r = cli(t, "check", "--imports", os.Args[0])
	require.Equal(t, 1, r.code, r.stderr)
	require.Empty(t, r.stdout, "no imports of a module that does not compile")
	require.True(t, strings.HasPrefix(r.stderr, os.Args[0]+": compile"), r.stderr)

	// --json: the verdict, every problem and the imports.
	r = cli(t, "check", "--json", "--deny", "aclrtSetDevice", bad)
	require.Equal(t, 1, r.code, r.stderr)
	var doc struct {
		File     string
		OK       bool
		Problems []string
		Imports  []struct {
			Module, Name, Kind, Signature, Status, Problem string
			OK                                             bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Equal(t, bad, doc.File)
	require.False(t, doc.OK)
	require.Len(t, doc.Problems, 4)
	require.Len(t, doc.Imports, 4)
	im := doc.Imports[2]
	require.Equal(t, []string{"acl", "aclrtSetDevice", "function", "(i32) -> i32", "denied by the policy"}, []string{im.Module, im.Name, im.Kind, im.Signature, im.Status})
	require.False(t, im.OK)
	require.Contains(t, doc.Problems, im.Problem)
	r = cli(t, "check", "--json", setdev)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.True(t, doc.OK)
	require.Empty(t, doc.Problems)
	require.Equal(t, "ok", doc.Imports[0].Status)

	// Host errors are not a verdict on the module.
	r = cli(t, "check", "--chip", "z9", ret)
	require.Equal(t, 126, r.code, r.stderr)
	require.Empty(t, r.stdout)
	r = cli(t, "check", filepath.Join(t.TempDir(), "nope.wasm"))
	require.Equal(t, 126, r.code, r.stderr)
	r = cli(t, "check", "--timeout", "soon", ret)
	require.Equal(t, 126, r.code, r.stderr)
}

func TestABI(t *testing.T) {
	r := cli(t, "abi")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, `# Guest ABI v1: imports from module "acl"`), r.stdout)
	require.Contains(t, r.stdout, "| `aclrtMemcpy` | dst addr, destMax size, src addr, count size, kind i32 | `(i64, i64, i64, i64, i32) -> i32` |")

	rj := cli(t, "abi", "--json")
	require.Equal(t, 0, rj.code, rj.stderr)
	var doc struct {
		Module    string `json:"module"`
		Version   int    `json:"version"`
		Functions []struct {
			Name   string `json:"name"`
			Params []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"params"`
		} `json:"functions"`
	}
	require.NoError(t, json.Unmarshal([]byte(rj.stdout), &doc), rj.stdout)
	require.Equal(t, "acl", doc.Module)
	require.Equal(t, 1, doc.Version)

	// Both forms have every function of the table, once.
	require.Len(t, doc.Functions, len(abi.Funcs))
	for i, f := range doc.Functions {
		require.Equal(t, abi.Funcs[i].Name, f.Name)
		require.Equal(t, 1, strings.Count(r.stdout, "| `"+f.Name+"` |"), f.Name)
		for _, p := range f.Params {
			require.Contains(t, []string{"addr", "gptr", "size", "handle", "i32", "i64"}, p.Type, "%s.%s", f.Name, p.Name)
		}
	}

	// Module aclwasm follows, in both forms.
	require.Contains(t, r.stdout, "\n# Imports from module \"aclwasm\": bytes in and out, configuration\n")
	require.Contains(t, r.stdout, "| `output_write` | buf gptr, len i32 | `(i32, i32) -> i32` |")
	var io struct {
		Modules []struct {
			Module    string `json:"module"`
			Functions []struct {
				Name      string `json:"name"`
				Signature string `json:"signature"`
			} `json:"functions"`
		} `json:"modules"`
	}
	require.NoError(t, json.Unmarshal([]byte(rj.stdout), &io))
	require.Len(t, io.Modules, 1)
	require.Equal(t, abi.IOModule, io.Modules[0].Module)
	require.Len(t, io.Modules[0].Functions, len(abi.IOFuncs))
	for i, f := range io.Modules[0].Functions {
		require.Equal(t, abi.IOFuncs[i].Name, f.Name)
		require.Equal(t, 1, strings.Count(r.stdout, "| `"+f.Name+"` |"), f.Name)
	}
	require.Equal(t, "() -> i32", io.Modules[0].Functions[0].Signature)

	// The native-layout profile: the same table, 32-bit addresses and sizes.
	r = cli(t, "abi", "--profile", "acl32")
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, `# Guest ABI v1: imports from module "acl32"`), r.stdout)
	require.Contains(t, r.stdout, "| `aclrtMemcpy` | dst addr, destMax size, src addr, count size, kind i32 | `(i32, i32, i32, i32, i32) -> i32` |")
	rj = cli(t, "abi", "--json", "--profile", "acl32")
	require.Equal(t, 0, rj.code, rj.stderr)
	require.NoError(t, json.Unmarshal([]byte(rj.stdout), &doc), rj.stdout)
	require.Equal(t, "acl32", doc.Module)
	require.Len(t, doc.Functions, len(abi.Funcs))
	r = cli(t, "abi", "--profile", "acl64")
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, `--profile "acl64"`)

	r = cli(t, "abi", "extra")
	require.NotEqual(t, 0, r.code)
}

func TestCacheDir(t *testing.T) {
	const src = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (i32.const 3))))`
	mod, dir := wat(t, "exit3", src), t.TempDir()
	for range 2 { // compiles and stores, then loads from the cache
		r := cli(t, "run", "--cache-dir", dir, mod)
		require.Equal(t, 3, r.code, r.stderr)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries, "the cache directory holds the compiled module")
	r := cli(t, "run", "--cache-dir", filepath.Join(mod, "not-a-dir"), mod)
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "compilation cache")
}

// watClock's measure(ns) returns a monotonic reading, then another after
// sleeping ns nanoseconds (poll_oneoff), then the wall clock.
const watClock = `(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $now (param $id i32) (result i64)
    (drop (call $clock (local.get $id) (i64.const 1) (i32.const 0)))
    (i64.load (i32.const 0)))
  (func (export "measure") (param $ns i64) (result i64 i64 i64)
    (local $t0 i64)
    (local.set $t0 (call $now (i32.const 1)))
    (i32.store (i32.const 80) (i32.const 1))
    (i64.store (i32.const 88) (local.get $ns))
    (drop (call $poll (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 8)))
    (local.get $t0) (call $now (i32.const 1)) (call $now (i32.const 0))))`

// TestClocks: the guest's clocks are the host's and its sleeps sleep; with
// --deterministic-clocks they are fake and runs repeat exactly.
func TestClocks(t *testing.T) {
	g := wat(t, "clock", watClock)
	before := time.Now().UnixNano()
	r := cli(t, "run", "--invoke", "measure", g, "50000000")
	after := time.Now().UnixNano()
	require.Equal(t, 0, r.code, r.stderr)
	var t0, t1, wall int64
	_, err := fmt.Sscan(r.stdout, &t0, &t1, &wall)
	require.NoError(t, err, r.stdout)
	require.GreaterOrEqual(t, t1-t0, int64(50*time.Millisecond), "the sleep slept")
	require.True(t, before <= wall && wall <= after, "wall clock %d is the host's", wall)

	// An hour's sleep ends with the timeout (the test would hang otherwise).
	r = cli(t, "run", "--timeout", "200ms", "--invoke", "measure", g, "3600000000000")
	require.Equal(t, 124, r.code, r.stderr)

	r = cli(t, "run", "--deterministic-clocks", "--invoke", "measure", g, "3600000000000")
	require.Equal(t, 0, r.code, r.stderr)
	r2 := cli(t, "run", "--deterministic-clocks", "--invoke", "measure", g, "3600000000000")
	require.Equal(t, r.stdout, r2.stdout, "fake clocks repeat")
	_, err = fmt.Sscan(r.stdout, &t0, &t1, &wall)
	require.NoError(t, err, r.stdout)
	require.Less(t, wall, time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
}

// TestStatsSaysWhatRan: --stats names the engine and the backend with its
// settings (--sim-timing and --sim-pacing included: the simulator's own
// tests and the pipeline sample's check the model's times).
func TestStatsSaysWhatRan(t *testing.T) {
	g := wat(t, "return", watReturn)
	for flag, says := range map[string]string{"--sim-timing": "timing model", "--sim-pacing": "timing model paced"} {
		r := cli(t, "run", "--stats", flag, "--chip", "950", "--devices", "3", "--sim-memory", "1GiB", g)
		require.Equal(t, 0, r.code, r.stderr)
		first, _, _ := strings.Cut(r.stderr, "\n")
		require.Equal(t, "engine wazero, backend sim (chip 950, 3 devices of 1GiB, "+says+")", first)
	}
}

// TestVersion: --version names the module version, the Go release, and
// the VCS revision whenever the toolchain stamped one into the binary.
func TestVersion(t *testing.T) {
	r := cli(t, "--version")
	require.Equal(t, 0, r.code, r.stderr)
	line := oneLine(t, r.stdout)
	require.True(t, strings.HasPrefix(line, "aclwasm "), line)
	require.True(t, strings.HasSuffix(line, " "+runtime.Version()), line)
	info, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	for _, l := range strings.Split(string(info), "\n") {
		if rev, ok := strings.CutPrefix(strings.TrimSpace(l), "build\tvcs.revision="); ok {
			require.Contains(t, line, "(revision "+rev)
		}
	}
}

// TestCompletion: cobra's completion scripts, and values for the enum
// flags and module arguments.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		r := cli(t, "completion", sh)
		require.Equal(t, 0, r.code, r.stderr)
		require.Contains(t, r.stdout, "aclwasm", sh)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--engine", ""}, []string{"wazero", "wasmtime", ":4"}},
		{[]string{"check", "--engine", ""}, []string{"wazero", "wasmtime", ":4"}},
		{[]string{"run", "--backend", ""}, []string{"sim", "cann", ":4"}},
		{[]string{"run", "--chip", ""}, []string{"a2", "a3", "950", ":4"}},
		{[]string{"run", ""}, []string{"wasm", ":8"}}, // *.wasm files
	} {
		r := cli(t, append([]string{"__complete"}, tc.args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, tc.want, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n"), tc.args)
	}
	// --allow and --deny complete the ABI's function names (the shell
	// filters them by what is typed).
	r := cli(t, "__complete", "run", "--deny", "")
	require.Equal(t, 0, r.code, r.stderr)
	names := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, names, len(abi.Funcs)+1)
	require.Equal(t, abi.Funcs[0].Name, names[0])
	require.Equal(t, ":4", names[len(names)-1])
}

// TestInterrupt: SIGINT stops a running guest: the session is released,
// --stats printed, and the exit is 130.
func TestInterrupt(t *testing.T) {
	g := wat(t, "hello-spin", `(module
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "up\n")
  (func (export "_start")
    (drop (call $setdev (i32.const 0)))
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 3))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (loop $l (br $l))))`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--stats", g)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "up\n", line, "the guest runs")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	require.NoError(t, ctx.Err(), "SIGINT did not stop the run")
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 130, ee.ExitCode(), errb.String())
	table, reason, ok := strings.Cut(errb.String(), "aclwasm: ")
	require.True(t, ok, errb.String())
	require.Equal(t, "interrupted: _start: guest canceled: context canceled\n", reason)
	require.Equal(t, []string{"1", "-", "0", "0", "0", "0", "0"}, statsTable(t, table)["aclrtSetDevice"])
}

// TestGoCommandsKeepBuildCache: the go commands the tests run (the CLI's
// builds) use the machine's build cache, not one under the tests' own
// XDG_CACHE_HOME, which would start empty and compile everything again.
func TestGoCommandsKeepBuildCache(t *testing.T) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	rel, err := filepath.Rel(cacheHome, strings.TrimSpace(string(out)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(rel, ".."), "GOCACHE %s is under the tests' cache home %s", out, cacheHome)
}
