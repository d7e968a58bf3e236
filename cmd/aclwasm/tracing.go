package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/aclwasm/aclwasm/host"
)

// otelFlags registers the OpenTelemetry flags (--otel, --otel-threshold)
// on fs and returns what starts tracing once they are parsed: the host
// option to add (nil when --otel is off) and the function that flushes the
// spans and stops. It is set only by a build with -tags otel (otel.go):
// the default build has neither the flags nor OpenTelemetry's code.
var otelFlags func(fs *pflag.FlagSet) otelStart

// otelStart starts tracing to w, where spans are written as JSON.
type otelStart func(w io.Writer) (host.Option, func(context.Context) error, error)

// addOtel registers the tracing flags when the build has them; the
// returned start is nil otherwise.
func addOtel(fs *pflag.FlagSet) otelStart {
	if otelFlags == nil {
		return nil
	}
	return otelFlags(fs)
}
