// Package run runs the guests that scripts/build-guests.sh built
// (build/wasm, or $ACLWASM_GUEST_DIR) in the sandbox with its default policy
// on the simulated device: the ABI v1 conformance program (conformance.c),
// which must report no failed check, and every SDK example, which must
// succeed. A module that is not built fails its test (run make guests). The
// engine is wazero, or the one ACLWASM_TEST_ENGINE names (CI runs both).
package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// defaultPolicy is the policy `aclwasm run` uses without flags, which the
// conformance program's limit checks assume.
func defaultPolicy() host.Policy {
	return host.Policy{
		DeviceMemory: host.DefaultDeviceMemory, PinnedMemory: host.DefaultPinnedMemory,
		MaxAllocations: host.DefaultMaxAllocations, MaxRegistrations: host.DefaultMaxRegistrations,
		MaxStreams: host.DefaultMaxStreams, MaxEvents: host.DefaultMaxEvents, MaxQueued: host.DefaultMaxQueued,
		MemoryPages: host.DefaultMemoryPages, Timeout: host.DefaultTimeout,
	}
}

func plugin(t *testing.T, wasm []byte) (*host.Plugin, context.Context) {
	t.Helper()
	return pluginWith(t, wasm, defaultPolicy())
}

func pluginWith(t *testing.T, wasm []byte, pol host.Policy) (*host.Plugin, context.Context) {
	t.Helper()
	ctx := context.Background()
	b := sim.New(sim.WithDevices(2))
	t.Cleanup(func() { b.Close() })
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(testsupport.Engine()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(ctx) })
	p, err := rt.Load(ctx, wasm, pol)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	return p, ctx
}

// run runs a command module and returns its stdout and stderr.
func run(t *testing.T, name string) (string, string) {
	t.Helper()
	return runWith(t, name, defaultPolicy())
}

func runWith(t *testing.T, name string, pol host.Policy) (string, string) {
	t.Helper()
	p, ctx := pluginWith(t, testsupport.Guest(t, strings.TrimSuffix(name, ".wasm")), pol)
	var stdout, stderr bytes.Buffer
	res, err := p.Run(ctx, host.Config{Args: []string{name}, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout.String(), stderr.String())
	}
	if res.ExitCode != 0 {
		t.Errorf("%s exited with %d\nstdout:\n%s\nstderr:\n%s", name, res.ExitCode, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

var summary = regexp.MustCompile(`(?m)^conformance: (\d+) passed, (\d+) failed$`)

// TestConformance runs the conformance program in both profiles: the wide
// one (module acl) and the native layout (module acl32, ABI section 9).
func TestConformance(t *testing.T) {
	for _, name := range []string{"conformance.wasm", "conformance32.wasm"} {
		t.Run(name, func(t *testing.T) {
			out, _ := run(t, name)
			checkSummary(t, out)
		})
	}
}

// TestConformanceModels runs the models' conformance program
// (models.c) in both profiles, with the default policy approving the test
// models by name, and as "junk" an ONNX file that is no model.
func TestConformanceModels(t *testing.T) {
	dir := testsupport.Models(t)
	pol := defaultPolicy()
	pol.Models = map[string]string{"junk": filepath.Join(t.TempDir(), "junk.onnx")}
	if err := os.WriteFile(pol.Models["junk"], []byte("not a model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"mlp", "cnn", "divide"} {
		pol.Models[n] = filepath.Join(dir, n+".onnx")
	}
	for _, name := range []string{"models.wasm", "models32.wasm"} {
		t.Run(name, func(t *testing.T) {
			out, _ := runWith(t, name, pol)
			checkSummary(t, out)
		})
	}
}

// checkSummary fails on every FAIL line of a conformance program's output
// and on a summary line with failures or no passes.
func checkSummary(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "FAIL") {
			t.Error(line)
		}
	}
	m := summary.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line in the output:\n%s", out)
	}
	if m[2] != "0" || m[1] == "0" {
		t.Errorf("conformance: %s passed, %s failed", m[1], m[2])
	}
	t.Logf("conformance: %s checks passed", m[1])
}

func TestSDKExamples(t *testing.T) {
	for _, name := range []string{"c-copy.wasm", "c-copy32.wasm", "c-freestanding.wasm", "rust-copy.wasm", "rust-nostd.wasm", "go-copy.wasm", "as-copy.wasm"} {
		t.Run(strings.TrimSuffix(name, ".wasm"), func(t *testing.T) {
			out, _ := run(t, name)
			if strings.Contains(name, "copy") && !strings.HasPrefix(name, "as-") && !strings.Contains(out, "copy: ok") {
				t.Errorf("%s did not report success:\n%s", name, out)
			}
		})
	}
	t.Run("go-reactor", func(t *testing.T) {
		p, ctx := plugin(t, testsupport.Guest(t, "go-reactor"))
		inst, err := p.Instantiate(ctx, host.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer inst.Close(ctx)
		res, err := inst.Call(ctx, "roundtrip", 4096)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || int32(res[0]) != 0 {
			t.Errorf("roundtrip(4096) = %v, want [0]", res)
		}
	})
}
