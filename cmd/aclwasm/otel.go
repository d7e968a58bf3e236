//go:build otel

package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/otelhost"
)

func init() {
	otelFlags = func(fs *pflag.FlagSet) otelStart {
		on := fs.Bool("otel", false, "trace with OpenTelemetry: a span per run or call, and one per host call of at least --otel-threshold, written to stderr as JSON")
		min := fs.Duration("otel-threshold", time.Millisecond, "with --otel, the shortest host call that gets a span (0: every call)")
		return func(w io.Writer) (host.Option, func(context.Context) error, error) {
			if !*on {
				return nil, nil, nil
			}
			exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
			if err != nil {
				return nil, nil, err
			}
			// The batcher writes off the guest's goroutine; Shutdown
			// flushes what is left.
			res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "aclwasm")))
			if err != nil {
				return nil, nil, err
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
			return otelhost.Option(tp, *min), tp.Shutdown, nil
		}
	}
}
