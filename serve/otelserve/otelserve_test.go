package otelserve_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/otelhost"
	"github.com/aclwasm/aclwasm/internal/otlptest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
	"github.com/aclwasm/aclwasm/serve"
	"github.com/aclwasm/aclwasm/serve/otelserve"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wat2wasm compiles serve's testdata/NAME.wat.
func wat2wasm(t *testing.T, name string) []byte {
	t.Helper()
	return testsupport.WATFile(t, filepath.Join("..", "testdata", name+".wat"))
}

// TestRequestSpans: a server traced with otelserve and otelhost, exporting
// over OTLP/HTTP to a receiver in the test, sends a server span per
// request with its request id, plugin, version, outcome and status,
// parented by the client's traceparent, and the run's and host calls'
// spans under it.
func TestRequestSpans(t *testing.T) {
	ctx := context.Background()
	rc := otlptest.New(t)
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(rc.URL+"/v1/traces"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(50*time.Millisecond)))
	defer func() { require.NoError(t, tp.Shutdown(ctx)) }()

	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()), otelhost.Option(tp, 0))
	require.NoError(t, err)
	defer rt.Close(ctx)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "echo.wasm"), wat2wasm(t, "echo"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trap.wasm"), wat2wasm(t, "trap"), 0o644))
	srv, err := serve.New(ctx, serve.Config{Dir: dir, Runtime: rt, Tracer: otelserve.New(tp, nil), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitLoaded(wctx))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer func() { require.NoError(t, srv.Shutdown(ctx)) }()

	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		parent  = "00f067aa0ba902b7"
	)
	post := func(plugin, id string, header bool) int {
		req, err := http.NewRequest("POST", hs.URL+"/v1/plugins/"+plugin, strings.NewReader("hi"))
		require.NoError(t, err)
		req.Header.Set(serve.RequestIDHeader, id)
		if header {
			req.Header.Set("traceparent", "00-"+traceID+"-"+parent+"-01")
		}
		resp, err := hs.Client().Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	require.Equal(t, 200, post("echo", "req-echo", true))
	require.Equal(t, 502, post("trap", "req-trap", false))
	require.Equal(t, 404, post("nope", "req-none", false))
	require.NoError(t, tp.ForceFlush(ctx))

	reqSpan := func(spans []otlptest.Span, id string) (otlptest.Span, bool) {
		for _, s := range spans {
			if s.Attrs["aclwasm.request_id"] == id {
				return s, true
			}
		}
		return otlptest.Span{}, false
	}
	spans, ok := rc.Wait(10*time.Second, func(spans []otlptest.Span) bool {
		for _, id := range []string{"req-echo", "req-trap", "req-none"} {
			if _, ok := reqSpan(spans, id); !ok {
				return false
			}
		}
		return true
	})
	require.True(t, ok, "request spans missing among %+v", spans)
	_, bad := rc.Spans()
	require.Empty(t, bad)

	echo, _ := reqSpan(spans, "req-echo")
	require.Equal(t, "POST /v1/plugins/{name}", echo.Name)
	require.Equal(t, tracepb.Span_SPAN_KIND_SERVER, echo.Kind)
	require.Equal(t, traceID, echo.TraceID, "the client's trace")
	require.Equal(t, parent, echo.ParentSpanID, "the client's span is the parent")
	require.Equal(t, "echo", echo.Attrs["aclwasm.plugin"])
	require.Equal(t, "ok", echo.Attrs["aclwasm.outcome"])
	require.Equal(t, int64(200), echo.Attrs["http.response.status_code"])
	require.Equal(t, int64(0), echo.Attrs["aclwasm.exit_code"])
	require.Equal(t, "POST", echo.Attrs["http.request.method"])
	require.Equal(t, "/v1/plugins/echo", echo.Attrs["url.path"])
	require.Equal(t, "127.0.0.1", echo.Attrs["client.address"])
	require.NotEmpty(t, echo.Attrs["aclwasm.plugin_version"])
	require.False(t, echo.StatusError)

	// The run's span is the request's child, the host calls the run's.
	var run otlptest.Span
	for _, s := range spans {
		if s.ParentSpanID == echo.SpanID {
			require.Empty(t, run.SpanID, "one child of the request span")
			run = s
		}
	}
	require.Equal(t, "aclwasm _start", run.Name)
	require.Equal(t, traceID, run.TraceID)
	var calls []string
	for _, s := range spans {
		if s.ParentSpanID == run.SpanID {
			require.Equal(t, traceID, s.TraceID)
			calls = append(calls, s.Name)
		}
	}
	// echo.wat's host calls for a nonempty body.
	require.ElementsMatch(t, []string{"aclrtSetDevice", "aclrtMalloc", "aclrtMalloc", "aclrtMemcpy", "aclrtMemcpy", "aclrtMemcpy", "aclrtFree", "aclrtFree"}, calls)

	trap, _ := reqSpan(spans, "req-trap")
	require.NotEqual(t, traceID, trap.TraceID, "no traceparent: a trace of its own")
	require.Empty(t, trap.ParentSpanID)
	require.Equal(t, "trap", trap.Attrs["aclwasm.outcome"])
	require.Equal(t, int64(502), trap.Attrs["http.response.status_code"])
	require.True(t, trap.StatusError, "a 5xx is an error")
	require.Contains(t, trap.StatusMessage, "trap: ")

	none, _ := reqSpan(spans, "req-none")
	require.Equal(t, "not_found", none.Attrs["aclwasm.outcome"])
	require.Equal(t, int64(404), none.Attrs["http.response.status_code"])
	require.False(t, none.StatusError, "a 4xx is the client's, not the server's error")
	require.NotContains(t, none.Attrs, "aclwasm.plugin_version")
}

// TestRequestID: a request without a sane X-Request-Id gets the id the
// server made for it, the one on the response, in its span.
func TestRequestID(t *testing.T) {
	ctx := context.Background()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() { require.NoError(t, tp.Shutdown(ctx)) }()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
	require.NoError(t, err)
	defer rt.Close(ctx)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "echo.wasm"), wat2wasm(t, "echo"), 0o644))
	srv, err := serve.New(ctx, serve.Config{Dir: dir, Runtime: rt, Tracer: otelserve.New(tp, nil), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitLoaded(wctx))
	defer func() { require.NoError(t, srv.Shutdown(ctx)) }()

	w := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/plugins/echo", strings.NewReader("x"))
	req.Header.Set(serve.RequestIDHeader, "bad id with spaces")
	srv.Handler().ServeHTTP(w, req)
	require.Equal(t, 200, w.Code)
	id := w.Header().Get(serve.RequestIDHeader)
	require.Len(t, id, 32)
	spans := sr.Ended()
	require.Len(t, spans, 1, "only the request span: the runtime has no otelhost")
	var got string
	for _, a := range spans[0].Attributes() {
		if a.Key == otelserve.KeyRequestID {
			got = a.Value.AsString()
		}
	}
	require.Equal(t, id, got)

	// Endpoints other than the plugins' are not traced.
	w = httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
	require.Equal(t, 200, w.Code)
	require.Len(t, sr.Ended(), 1)
}
