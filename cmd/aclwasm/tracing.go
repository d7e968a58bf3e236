package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/serve"
)

// otelFlags registers the OpenTelemetry flags (--otel, --otel-threshold,
// --otel-endpoint) on fs and returns what starts tracing once they are
// parsed. It is set only by a build with -tags otel (otel.go): the default
// build has neither the flags nor OpenTelemetry's code.
var otelFlags func(fs *pflag.FlagSet) otelStart

// otelStart starts tracing: to the OTLP endpoint of --otel-endpoint, or to
// w, where spans are written as JSON. It returns nil when the flags leave
// tracing off.
type otelStart func(w io.Writer) (*tracing, error)

// tracing is what a command adds when it traces.
type tracing struct {
	// option traces the runtime's runs and host calls (host/otelhost).
	option host.Option
	// requests traces serve's requests (serve/otelserve), the runs'
	// spans under them.
	requests serve.RequestTracer
	// shutdown flushes the spans not yet exported and stops.
	shutdown func(context.Context) error
}

// addOtel registers the tracing flags when the build has them; the
// returned start is nil otherwise.
func addOtel(fs *pflag.FlagSet) otelStart {
	if otelFlags == nil {
		return nil
	}
	return otelFlags(fs)
}
