//go:build otel

package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/aclwasm/aclwasm/host/otelhost"
	"github.com/aclwasm/aclwasm/serve/otelserve"
)

func init() {
	otelFlags = func(fs *pflag.FlagSet) otelStart {
		on := fs.Bool("otel", false, "trace with OpenTelemetry: a span per run or call (per request with serve), and one per host call of at least --otel-threshold, written to stderr as JSON unless --otel-endpoint is given")
		min := fs.Duration("otel-threshold", time.Millisecond, "with --otel, the shortest host call that gets a span (0: every call)")
		endpoint := fs.String("otel-endpoint", "", "export the spans over OTLP/HTTP (protobuf) to this collector URL, e.g. http://127.0.0.1:4318 (path /v1/traces when the URL has none); implies --otel; OTEL_EXPORTER_OTLP_HEADERS etc. apply")
		return func(w io.Writer) (*tracing, error) {
			if !*on && *endpoint == "" {
				return nil, nil
			}
			exp, err := exporter(w, *endpoint)
			if err != nil {
				return nil, err
			}
			res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "aclwasm")))
			if err != nil {
				return nil, err
			}
			// The batcher exports off the guest's goroutine; shutdown
			// flushes what is left.
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
			// A collector that is down must not hold the exit for the
			// exporter's retries (a minute): what is left after a few
			// seconds is dropped.
			shutdown := func(ctx context.Context) error {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				return tp.Shutdown(ctx)
			}
			return &tracing{option: otelhost.Option(tp, *min), requests: otelserve.New(tp, nil), shutdown: shutdown}, nil
		}
	}
}

// exporter writes spans as JSON to w, or exports them over OTLP/HTTP to
// endpoint when it is set.
func exporter(w io.Writer, endpoint string) (sdktrace.SpanExporter, error) {
	if endpoint == "" {
		return stdouttrace.New(stdouttrace.WithWriter(w))
	}
	// otlptracehttp ignores a URL it cannot parse (it keeps its default,
	// localhost): check it here, so that a typo is an error.
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("--otel-endpoint %q: want http://HOST:PORT or https://HOST:PORT, with a path or none", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces" // a collector's base URL, as in OTEL_EXPORTER_OTLP_ENDPOINT
	}
	return otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u.String()))
}
