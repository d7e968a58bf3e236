// Package cann runs the sandbox on the native backend (acl/cann) over the
// stand-in libascendcl.so that acl/cann's tests use: the ABI conformance
// program and guests whose host calls are checked against the exact native
// calls they cause — none at all for a call the sandbox rejects.
package cann

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/acl/cann"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

var (
	lib          string // the stand-in, built once
	libNoSoftmax string // the same, its operator library without Softmax
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aclwasm-standin")
	if err != nil {
		panic(err)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			fmt.Fprintln(os.Stderr, "gcc is required to build the stand-in libascendcl.so: apt-get install gcc")
			return 1
		}
		lib = filepath.Join(dir, "libascendcl.so")
		src := filepath.Join("..", "..", "acl", "cann", "testdata", "standin")
		// libascendcl.so, then the operator library beside it as the
		// toolkit lays it out (Makefile: standin); in a directory of its
		// own, the same with an operator library built without Softmax.
		partial := filepath.Join(dir, "nosoftmax")
		libNoSoftmax = filepath.Join(partial, "libascendcl.so")
		if err := os.Mkdir(partial, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var builds [][]string
		for _, d := range []struct{ dir, flag string }{{dir, "-UNO_SOFTMAX"}, {partial, "-DNO_SOFTMAX"}} {
			builds = append(builds,
				[]string{"-o", filepath.Join(d.dir, "libascendcl.so"), filepath.Join(src, "standin.c"), "-lpthread"},
				[]string{"-o", filepath.Join(d.dir, "libnnopbase.so"), filepath.Join(src, "nnopbase.c")},
				[]string{"-o", filepath.Join(d.dir, "libopapi.so"), d.flag, filepath.Join(src, "opapi.c"), "-L" + d.dir, "-lnnopbase", "-Wl,-rpath,$ORIGIN", "-ldl", "-lpthread", "-lm"})
		}
		for _, args := range builds {
			args = append([]string{"-shared", "-fPIC", "-O2", "-fvisibility=hidden"}, args...)
			if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "building the stand-in: %v\n%s", err, out)
				return 1
			}
		}
		return m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// callLog reads (and then clears) the stand-in's log of native calls.
func callLog(t *testing.T) []string {
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var read func(buf *byte, n uint64) uint64
	var reset func()
	purego.RegisterLibFunc(&read, h, "aclwasmStandinCallLog")
	purego.RegisterLibFunc(&reset, h, "aclwasmStandinCallLogReset")
	n := read(nil, 0)
	buf := make([]byte, n+1)
	n = read(&buf[0], uint64(len(buf)))
	reset()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(buf[:n])), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func runtime(t *testing.T) *host.Runtime {
	t.Helper()
	b, err := cann.Open(lib)
	require.NoError(t, err)
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(testsupport.Engine()))
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, rt.Close(ctx))
		require.NoError(t, b.Close())
	})
	return rt
}

// TestConformanceOnNativeBackend runs the ABI v1 conformance program with
// every call delegated to the native C ABI.
func TestConformanceOnNativeBackend(t *testing.T) {
	runConformance(t, "conformance", host.Policy{}, nil)
}

// runConformance runs the conformance program (tests/conformance) named
// program in both profiles, program.wasm (wide) and program32.wasm
// (acl32), each loaded under pol on a runtime of its own over the
// stand-in: every case passes, and at least one ran. check, if not nil,
// then checks what the run left in the stand-in.
func runConformance(t *testing.T, program string, pol host.Policy, check func(t *testing.T)) {
	t.Helper()
	for _, name := range []string{program, program + "32"} { // wide, acl32
		t.Run(name+".wasm", func(t *testing.T) {
			wasm := testsupport.Guest(t, name)
			rt := runtime(t)
			ctx := context.Background()
			pl, err := rt.Load(ctx, wasm, pol)
			require.NoError(t, err)
			defer pl.Close(ctx)
			var out bytes.Buffer
			res, err := pl.Run(ctx, host.Config{Args: []string{program}, Stdout: &out})
			require.NoError(t, err)
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "FAIL") {
					t.Error(l)
				}
			}
			require.Zero(t, res.ExitCode, out.String())
			require.Regexp(t, regexp.MustCompile(`(?m)^conformance: [1-9]\d* passed, 0 failed$`), out.String())
			if check != nil {
				check(t)
			}
		})
	}
}

// guest calls, in order: aclrtSetDevice(0), aclrtMalloc, a rejected
// aclrtMemcpy to a forged address, a rejected aclrtSynchronizeStream of an
// unknown handle, a rejected aclrtMemcpy past the allocation's end, then a
// valid 64-byte H2D aclrtMemcpy. It returns the first unexpected code.
const guest = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "run") (result i32) (local $a i64) (local $r i32)
    (if (local.tee $r (call $set (i32.const 0))) (then (return (local.get $r))))
    (if (local.tee $r (call $malloc (i32.const 16) (i64.const 64) (i32.const 0))) (then (return (local.get $r))))
    (local.set $a (i64.load (i32.const 16)))
    (if (i32.ne (call $memcpy (i64.const 0xdead00000000) (i64.const 64) (i64.const 256) (i64.const 64) (i32.const 1)) (i32.const 107000)) (then (return (i32.const -1))))
    (if (i32.ne (call $sync (i32.const 77)) (i32.const 107017)) (then (return (i32.const -2))))
    (if (i32.ne (call $memcpy (i64.add (local.get $a) (i64.const 8)) (i64.const 64) (i64.const 256) (i64.const 64) (i32.const 1)) (i32.const 107000)) (then (return (i32.const -3))))
    (call $memcpy (local.get $a) (i64.const 64) (i64.const 256) (i64.const 64) (i32.const 1))))
`

// TestRejectedCallsMakeNoNativeCall checks the exact native calls a guest
// causes: the three rejected calls cause none.
func TestRejectedCallsMakeNoNativeCall(t *testing.T) {
	rt := runtime(t)
	ctx := context.Background()
	pl, err := rt.Load(ctx, testsupport.WAT(t, guest), host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	callLog(t) // forget the backend's own setup
	res, err := inst.Call(ctx, "run")
	require.NoError(t, err)
	require.Equal(t, uint64(0), res[0])
	var calls []string
	for _, l := range callLog(t) {
		name, _, _ := strings.Cut(l, "(")
		switch name {
		case "aclrtSetDevice", "aclrtSetCurrentContext", "aclrtProcessReport", "aclrtGetCurrentContext":
			continue // the backend binds the device on first use, and its threads to it
		}
		calls = append(calls, l)
	}
	require.Len(t, calls, 3, "%q", calls)
	require.Regexp(t, `^aclrtMalloc\(devPtr=0x[0-9a-f]+, size=64, policy=0\) = 0$`, calls[0])
	// Native memory is not cleared: the sandbox clears it before the guest
	// can read what an earlier user left there.
	require.Regexp(t, `^aclrtMemset\(devPtr=0x[0-9a-f]+, maxCount=64, value=0, count=64\) = 0$`, calls[1])
	require.Regexp(t, `^aclrtMemcpy\(dst=0x[0-9a-f]+, destMax=64, src=0x[0-9a-f]+, count=64, kind=1\) = 0$`, calls[2])
	require.NoError(t, inst.Close(ctx))
}

// TestCppSampleOnNativeBackend runs samples/cpp-memory, a C++ program
// written as the CANN samples are (native layout, module acl32), with every
// call delegated to the native C ABI: every buffer must come back as the
// host expects, the forced stream destruction must reach the native library
// as the native one, and every native allocation must be freed.
func TestCppSampleOnNativeBackend(t *testing.T) {
	wasm := testsupport.Guest(t, "cpp-memory")
	rt := runtime(t)
	ctx := context.Background()
	pl, err := rt.Load(ctx, wasm, host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	callLog(t) // forget the backend's own setup
	var out bytes.Buffer
	res, err := pl.Run(ctx, host.Config{Args: []string{"cpp-memory"}, Stdout: &out})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode, out.String())
	require.True(t, strings.HasSuffix(out.String(), "cpp-memory: OK\n"), out.String())
	require.Len(t, regexp.MustCompile(`(?m)^\[INFO\]  (block \d|typed) .* fnv1a64 [0-9a-f]{16} OK$`).FindAllString(out.String(), -1), 5, out.String())
	native := map[string]int{}
	for _, l := range callLog(t) {
		name, _, _ := strings.Cut(l, "(")
		native[name]++
	}
	require.Equal(t, 1, native["aclrtDestroyStreamForce"], "the forced stream destruction is the native one: %v", native)
	require.Equal(t, 6, native["aclrtMalloc"], "%v", native)
	require.Equal(t, native["aclrtMalloc"], native["aclrtFree"], "every native allocation freed: %v", native)
}
