// Package tests runs the samples (samples/) end to end in the sandbox on the
// simulated device, and checks the data they moved: each test recomputes in
// Go what the plugin must have read back, and compares it with the plugin's
// report, the host's statistics or the values its exports return.
//
// The modules come from scripts/build-guests.sh (make guests) in build/wasm,
// or $ACLWASM_GUEST_DIR. A missing module fails the test. The engine is
// wazero, or the one named by ACLWASM_TEST_ENGINE:
//
//	ACLWASM_TEST_ENGINE=wasmtime go test -tags wasmtime ./tests/
package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestMain checks for leaked goroutines once every test has run and the
// shared sandbox is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(mainRun{m}) }

type mainRun struct{ m *testing.M }

func (r mainRun) Run() int {
	code := r.m.Run()
	if err := closeShared(); err != nil {
		fmt.Fprintln(os.Stderr, "closing the shared sandbox:", err)
		if code == 0 {
			code = 1
		}
	}
	if err := removeSDKLib(); err != nil {
		fmt.Fprintln(os.Stderr, "removing the C SDK's library:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// engine is the wasm engine the tests run on.
var engine = testsupport.Engine()

// sandbox is a runtime on its own simulated device.
type sandbox struct {
	b  *sim.Backend
	rt *host.Runtime

	mu     sync.Mutex
	cached map[string]*host.Plugin // by module name, with the default policy
}

func openSandbox(opts ...sim.Option) (*sandbox, error) {
	b := sim.New(opts...)
	rt, err := host.NewRuntime(context.Background(), host.WithBackend(b), host.WithEngine(engine))
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("runtime on engine %s: %w", engine, err)
	}
	return &sandbox{b: b, rt: rt, cached: map[string]*host.Plugin{}}, nil
}

func (s *sandbox) close() error {
	ctx := context.Background()
	var errs []error
	for _, pl := range s.cached {
		errs = append(errs, pl.Close(ctx))
	}
	return errors.Join(append(errs, s.rt.Close(ctx), s.b.Close())...)
}

// newSandbox returns a sandbox the test closes when it ends.
func newSandbox(t testing.TB, opts ...sim.Option) *sandbox {
	t.Helper()
	s, err := openSandbox(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.close()) })
	return s
}

// shared is one sandbox for the tests that run big modules (roundtrip is a
// 2.8 MB Go module: compiling it takes seconds under the race detector),
// closed by TestMain. Tests that use it must not run in parallel with each
// other, so that each can compare the device accounting before and after.
var shared struct {
	once sync.Once
	s    *sandbox
	err  error
}

func sharedSandbox(t testing.TB) *sandbox {
	t.Helper()
	shared.once.Do(func() { shared.s, shared.err = openSandbox() })
	require.NoError(t, shared.err)
	return shared.s
}

func closeShared() error {
	if shared.s == nil {
		return nil
	}
	return shared.s.close()
}

// testCompile is the compile timeout of the tests' loads: none. Under the
// race detector, with the suite's tests compiling in parallel on two
// cores, a 2.8 MB Go guest's compilation can take minutes of wall time;
// host/compile_test.go tests the timeout itself.
func testCompile(p host.Policy) host.Policy {
	if p.CompileTimeout == 0 {
		p.CompileTimeout = host.NoTimeout
	}
	return p
}

// load compiles build/wasm/NAME.wasm with policy p; the test closes it.
func (s *sandbox) load(t testing.TB, name string, p host.Policy) *host.Plugin {
	t.Helper()
	pl, err := s.rt.Load(context.Background(), testsupport.Guest(t, name), testCompile(p))
	require.NoError(t, err, name)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	return pl
}

// plugin is build/wasm/NAME.wasm with the default policy, compiled once per
// sandbox and closed with it.
func (s *sandbox) plugin(t testing.TB, name string) *host.Plugin {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if pl, ok := s.cached[name]; ok {
		return pl
	}
	pl, err := s.rt.Load(context.Background(), testsupport.Guest(t, name), testCompile(host.Policy{}))
	require.NoError(t, err, name)
	s.cached[name] = pl
	return pl
}

// freeMem is the free bytes of every device, as the backend accounts them.
func (s *sandbox) freeMem(t testing.TB) []uint64 {
	t.Helper()
	var out []uint64
	for d := 0; d < s.b.DeviceCount(); d++ {
		free, _, err := s.b.MemInfo(int32(d), acl.HBMMem)
		require.NoError(t, err)
		out = append(out, free)
	}
	return out
}

// outcome is how one run of a command module ended.
type outcome struct {
	name   string
	stdout string
	stderr string
	res    host.Result
	err    error
}

func (o outcome) String() string {
	return fmt.Sprintf("%s: exit code %d, error %v\n--- stdout:\n%s--- stderr:\n%s", o.name, o.res.ExitCode, o.err, o.stdout, o.stderr)
}

// run runs a command module with args (argv[0] is the module's name).
func run(ctx context.Context, pl *host.Plugin, name string, args ...string) outcome {
	var stdout, stderr bytes.Buffer
	res, err := pl.Run(ctx, host.Config{Args: append([]string{name}, args...), Stdout: &stdout, Stderr: &stderr})
	return outcome{name: name, stdout: stdout.String(), stderr: stderr.String(), res: res, err: err}
}

// mustRun runs a command module that must succeed (exit code 0).
func mustRun(t testing.TB, pl *host.Plugin, name string, args ...string) outcome {
	t.Helper()
	o := run(context.Background(), pl, name, args...)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatalf("%v", o)
	}
	return o
}

// pattern is the samples' test pattern: byte i is the top byte of
// (i XOR seed) * 2654435761 (mod 2^32).
func pattern(seed uint32, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(((uint32(i) ^ seed) * 2654435761) >> 24)
	}
	return b
}

func fnv1a64(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// field returns the hexadecimal or decimal number after "label " in the
// report line that starts with key (after indentation), or right after key
// when label is empty, or fails.
func field(t testing.TB, out, key, label string) uint64 {
	t.Helper()
	expr := `(?m)^\s*` + regexp.QuoteMeta(key)
	if label != "" {
		expr += `\s.*?` + regexp.QuoteMeta(label)
	}
	re := regexp.MustCompile(expr + `\s+(0x[0-9a-fA-F]+|\d+)\b`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q ... %q in the report:\n%s", key, label, out)
	}
	v, err := strconv.ParseUint(m[1], 0, 64)
	require.NoError(t, err)
	return v
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
