// Package otelserve traces the plugin requests of a serve.Server with
// OpenTelemetry: a server span per request (POST /v1/plugins/{name}) with
// its request id, plugin, version, outcome, exit code and HTTP status,
// continuing the W3C trace context (traceparent) the client sent. Given to
// the server as serve.Config.Tracer, with host/otelhost on its Runtime,
// the run's span and its host calls' spans are the request span's
// descendants. It sits apart from package serve so that a server that does
// not trace links no OpenTelemetry.
package otelserve

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/aclwasm/aclwasm/host/otelhost"
	"github.com/aclwasm/aclwasm/serve"
)

// Attribute keys of the request spans besides OpenTelemetry's HTTP ones
// (http.request.method, http.route, url.path, http.response.status_code,
// client.address). The plugin, outcome and exit code have otelhost's keys,
// so that a query finds requests and runs alike.
const (
	KeyRequestID = attribute.Key("aclwasm.request_id")     // serve.RequestIDHeader
	KeyVersion   = attribute.Key("aclwasm.plugin_version") // the version's digest
	KeyPlugin    = otelhost.KeyPlugin                      // the plugin's name from the URL
	KeyOutcome   = otelhost.KeyOutcome                     // ok, nonzero, or the failure's code
	KeyExitCode  = otelhost.KeyExitCode                    // the guest's exit code, when it exited
)

// route is the span's route: the only one traced.
const route = "/v1/plugins/{name}"

// New returns a serve.RequestTracer that makes request spans with a tracer
// of tp. prop extracts the trace context from the request's headers (the
// client's span becomes the request span's parent); nil is W3C Trace
// Context (traceparent, tracestate). A client can thereby join a trace and,
// with the SDK's default parent-based sampler, decide whether its request
// is sampled: put a proxy that strips traceparent in front of the server,
// or a sampler that ignores the parent, if that is not wanted.
func New(tp trace.TracerProvider, prop propagation.TextMapPropagator) serve.RequestTracer {
	if prop == nil {
		prop = propagation.TraceContext{}
	}
	return &tracer{tr: tp.Tracer("github.com/aclwasm/aclwasm/serve/otelserve"), prop: prop}
}

type tracer struct {
	tr   trace.Tracer
	prop propagation.TextMapPropagator
}

// StartRequest implements serve.RequestTracer.
func (t *tracer) StartRequest(r *http.Request, id, plugin string) (context.Context, func(serve.RequestEnd)) {
	ctx := t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(r.Method), semconv.HTTPRoute(route),
		semconv.URLPath(r.URL.Path), KeyRequestID.String(id), KeyPlugin.String(plugin)}
	if addr, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		attrs = append(attrs, semconv.ClientAddress(addr))
	}
	ctx, sp := t.tr.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, func(e serve.RequestEnd) {
		sp.SetAttributes(semconv.HTTPResponseStatusCode(e.Status), KeyOutcome.String(e.Outcome))
		if e.Version != "" {
			sp.SetAttributes(KeyVersion.String(e.Version))
		}
		if e.ExitCode != "" {
			if c, err := strconv.ParseInt(e.ExitCode, 10, 64); err == nil {
				sp.SetAttributes(KeyExitCode.Int64(c))
			}
		}
		// A server span is an error for a 5xx only: a 4xx is the
		// client's (OpenTelemetry's HTTP conventions).
		if e.Status >= 500 {
			sp.SetStatus(codes.Error, e.Outcome+": "+e.Message)
		}
		sp.End()
	}
}
