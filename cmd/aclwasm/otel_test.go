package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/otlptest"
)

// tagged is the CLI built with -tags otel, once (taggedBin).
var tagged struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// taggedBin builds the CLI with -tags otel the first time a test asks,
// next to bin, and returns its path.
func taggedBin(t *testing.T) string {
	t.Helper()
	tagged.once.Do(func() {
		tagged.path = bin + "-otel"
		tagged.out, tagged.err = exec.Command("go", "build", "-tags=otel", "-o", tagged.path, ".").CombinedOutput()
	})
	require.NoError(t, tagged.err, "%s", tagged.out)
	return tagged.path
}

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
	r = cli(t, "serve", "--otel-endpoint", "http://127.0.0.1:4318", "dir")
	require.Equal(t, exitHost, r.code, r.stderr)
	require.Contains(t, r.stderr, "unknown flag: --otel-endpoint")
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
	tagged := taggedBin(t)
	g := wat(t, "trace", watTraceGuest)
	for _, sub := range []string{"run", "serve"} {
		help, err := exec.Command(tagged, sub, "--help").CombinedOutput()
		require.NoError(t, err, "%s", help)
		require.Contains(t, string(help), "--otel-threshold", sub)
		require.Contains(t, string(help), "--otel-endpoint", sub)
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

// TestOtelEndpoint: with --otel-endpoint, run and serve (built with -tags
// otel) export their spans over OTLP/HTTP to the collector at that URL:
// serve a span per request, with its request id, continuing the client's
// traceparent, and the run's and host calls' spans under it; a bad URL is
// refused.
func TestOtelEndpoint(t *testing.T) {
	tagged := taggedBin(t)
	saved := bin
	bin = tagged
	defer func() { bin = saved }()
	rc := otlptest.New(t)
	g := wat(t, "trace", watTraceGuest)

	r := cli(t, "run", "--otel-endpoint", rc.URL, "--otel-threshold", "0", g)
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, `"SpanContext"`, "no JSON spans on stderr with an endpoint")
	spans, _ := rc.Spans() // the run flushed them before it exited
	require.Len(t, spans, 8, "the run and its seven host calls: %+v", spans)
	for _, s := range spans {
		require.Equal(t, "aclwasm", s.ServiceName)
	}

	for _, bad := range []string{"127.0.0.1:4318", "ftp://127.0.0.1/", "http://", "http://h:1/x?y=1"} {
		r = cli(t, "run", "--otel-endpoint", bad, g)
		require.Equal(t, exitHost, r.code, r.stderr)
		require.Contains(t, r.stderr, "--otel-endpoint", bad)
	}

	dir := t.TempDir()
	b, err := os.ReadFile(g)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trace.wasm"), b, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The collector's base URL with a trailing slash: the path is /v1/traces.
	cmd := exec.CommandContext(ctx, tagged, "serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--poll", "0",
		"--otel-endpoint", rc.URL+"/", "--otel-threshold", "0", dir)
	cmd.Env = append(os.Environ(), "ACLWASM_ACL_LIB=")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	addr := make(chan string, 1)
	logged := make(chan string, 1)
	go func() {
		var all strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
			}
		}
		logged <- all.String()
	}()
	var url string
	select {
	case a := <-addr:
		url = "http://" + a
	case <-ctx.Done():
		t.Fatal("serve did not log its address")
	}

	const traceID, parent = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	client := &http.Client{Timeout: 10 * time.Second}
	var resp *http.Response
	var id string              // the answered request's: each 503 has a span of its own
	for i := 0; i < 100; i++ { // the plugin compiles: 503 loading meanwhile
		req, err := http.NewRequest("POST", url+"/v1/plugins/trace", strings.NewReader("x"))
		require.NoError(t, err)
		id = "otlp-req-" + strconv.Itoa(i)
		req.Header.Set("X-Request-Id", id)
		req.Header.Set("traceparent", "00-"+traceID+"-"+parent+"-01")
		resp, err = client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
		if resp.StatusCode != http.StatusServiceUnavailable {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = cmd.Wait()
	log := <-logged
	require.NoError(t, err, log)

	// Shutdown flushed every span before the process exited.
	spans, _ = rc.Spans()
	var reqSpan otlptest.Span
	for _, s := range spans {
		if s.Attrs["aclwasm.request_id"] == id {
			require.Empty(t, reqSpan.SpanID, "one span per request")
			reqSpan = s
		}
	}
	require.NotEmpty(t, reqSpan.SpanID, "no request span among %+v\n%s", spans, log)
	require.Equal(t, traceID, reqSpan.TraceID)
	require.Equal(t, parent, reqSpan.ParentSpanID)
	require.Equal(t, "trace", reqSpan.Attrs["aclwasm.plugin"])
	require.Equal(t, "ok", reqSpan.Attrs["aclwasm.outcome"])
	require.Equal(t, int64(200), reqSpan.Attrs["http.response.status_code"])
	var runID string
	for _, s := range spans {
		if s.ParentSpanID == reqSpan.SpanID && s.Name == "aclwasm _start" {
			runID = s.SpanID
		}
	}
	require.NotEmpty(t, runID, "the run's span is the request's child")
	var calls int
	for _, s := range spans {
		if s.ParentSpanID == runID {
			require.Equal(t, traceID, s.TraceID)
			calls++
		}
	}
	require.Equal(t, 7, calls, "the guest's seven host calls under the run")
}
