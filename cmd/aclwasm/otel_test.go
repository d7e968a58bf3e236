package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOtelOnlyWithTag: the default build links no OpenTelemetry package
// and has no --otel flag; a build with -tags otel has both.
func TestOtelOnlyWithTag(t *testing.T) {
	for _, c := range []struct {
		tags string
		want bool
	}{{"", false}, {"otel", true}} {
		out, err := exec.Command("go", "list", "-deps", "-tags="+c.tags, ".").CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, c.want, strings.Contains(string(out), "go.opentelemetry.io/"), "-tags=%q: OpenTelemetry among the dependencies", c.tags)
		require.Equal(t, c.want, strings.Contains(string(out), "github.com/aclwasm/aclwasm/host/otelhost"), "-tags=%q", c.tags)
	}
	r := cli(t, "run", "--otel", "x.wasm")
	require.Equal(t, exitHost, r.code, r.stderr)
	require.Contains(t, r.stderr, "unknown flag: --otel")
}

// span is the part of a stdouttrace span the test reads.
type span struct {
	Name                string
	SpanContext, Parent struct{ SpanID string }
	Attributes          []struct {
		Key   string
		Value struct{ Value any }
	}
}

// TestOtelRun: run --otel (built with -tags otel) writes a span per run
// and, with --otel-threshold 0, one per host call under it.
func TestOtelRun(t *testing.T) {
	tagged := filepath.Join(t.TempDir(), "aclwasm-otel")
	out, err := exec.Command("go", "build", "-tags=otel", "-o", tagged, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	g := wat(t, "trace", watTraceGuest)
	for _, sub := range []string{"run", "serve"} {
		help, err := exec.Command(tagged, sub, "--help").CombinedOutput()
		require.NoError(t, err, "%s", help)
		require.Contains(t, string(help), "--otel-threshold", sub)
	}
	saved := bin
	bin = tagged
	r := cli(t, "run", "--otel", "--otel-threshold", "0", g)
	bin = saved
	require.Equal(t, 0, r.code, r.stderr)

	var spans []span
	sc := bufio.NewScanner(strings.NewReader(r.stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s span
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s), sc.Text())
		spans = append(spans, s)
	}
	var run span
	var calls []string
	for _, s := range spans {
		if s.Name == "aclwasm _start" {
			run = s
		}
	}
	require.NotEmpty(t, run.SpanContext.SpanID, "no run span in %q", r.stderr)
	for _, s := range spans {
		if s.Parent.SpanID == run.SpanContext.SpanID {
			calls = append(calls, s.Name)
		}
	}
	// The guest's seven host calls (TestTrace), as children of the run.
	require.ElementsMatch(t, []string{"aclrtSetDevice", "aclrtMalloc", "aclrtMemcpy", "aclrtMalloc", "aclrtMemcpy", "aclrtFree", "aclrtSetDevice"}, calls)
	attrs := map[string]any{}
	for _, a := range run.Attributes {
		attrs[a.Key] = a.Value.Value
	}
	require.Equal(t, "ok", attrs["aclwasm.outcome"])
	require.Equal(t, "_start", attrs["aclwasm.export"])
}
