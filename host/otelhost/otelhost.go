// Package otelhost traces plugin runs with OpenTelemetry: a span per run
// (Plugin.Run, Plugin.Instantiate, Instance.Call) and a child span per host
// call that took at least a threshold. It sits apart from package host so
// that programs that do not trace do not link OpenTelemetry.
//
// The package exports [Option], the host option that turns tracing on,
// and the span attribute keys (KeyPlugin ... KeyBytes), so that queries
// and dashboards name them rather than copy their strings.
package otelhost

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// Attribute keys of the spans.
const (
	KeyPlugin   = attribute.Key("aclwasm.plugin")    // LoadName
	KeyExport   = attribute.Key("aclwasm.export")    // what ran
	KeyOutcome  = attribute.Key("aclwasm.outcome")   // ok, exit, trap, timeout, canceled, error
	KeyExitCode = attribute.Key("aclwasm.exit_code") // the guest's exit code
	KeySession  = attribute.Key("aclwasm.session")   // the session's ID
	KeyFunc     = attribute.Key("aclwasm.function")  // a host call's function
	KeyCode     = attribute.Key("aclwasm.code")      // its aclError code
	KeyResult   = attribute.Key("aclwasm.result")    // what the guest got back
	KeyCall     = attribute.Key("aclwasm.call")      // the call as --trace prints it
	KeyBytes    = attribute.Key("aclwasm.bytes")     // a copy's or fill's count
)

// Option returns a host option that traces runs with a tracer of tp: one
// span per run, a child of the span in the run's context, and under it a
// span for each host call that took threshold or more (0: every call),
// timed by the call itself. Host calls are timed only when some trace is
// on, so threshold costs nothing when no span is made.
func Option(tp trace.TracerProvider, threshold time.Duration) host.Option {
	return host.WithObserver(&observer{tr: tp.Tracer("github.com/aclwasm/aclwasm/host/otelhost"), min: threshold})
}

type observer struct {
	tr  trace.Tracer
	min time.Duration
}

// Begin implements host.Observer.
func (o *observer) Begin(ctx context.Context, run host.RunInfo) host.RunObserver {
	ctx, sp := o.tr.Start(ctx, "aclwasm "+run.Export, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(KeyPlugin.String(run.Plugin), KeyExport.String(run.Export)))
	return &span{o: o, ctx: ctx, sp: sp}
}

// span follows one run; its methods run one at a time (host.RunObserver).
type span struct {
	o   *observer
	ctx context.Context
	sp  trace.Span
}

// HostCall implements host.RunObserver. A profiling marker of
// acl/acl_prof.h (ABI v1.3 section 15) is also an event of the run's
// span, named by its trace note ("range 3 \"step\" stopped"), whatever
// the threshold: markers are what a program asks to see.
func (s *span) HostCall(r host.CallRecord) {
	if r.Func.Group == abi.Prof && r.Code == acl.Success && r.Msg != "" {
		s.sp.AddEvent(r.Msg, trace.WithTimestamp(r.Start), trace.WithAttributes(KeyFunc.String(r.Func.Name)))
	}
	if r.Duration < s.o.min {
		return
	}
	attrs := []attribute.KeyValue{KeyFunc.String(r.Func.Name), KeyCode.Int(int(r.Code)), KeyResult.Int(int(r.Result)), KeyCall.String(r.String())}
	for i, p := range r.Func.Params {
		if p.Name == "count" {
			attrs = append(attrs, KeyBytes.Int64(int64(r.Args[i])))
		}
	}
	_, sp := s.o.tr.Start(s.ctx, r.Func.Name, trace.WithTimestamp(r.Start), trace.WithAttributes(attrs...))
	if r.Code != acl.Success {
		sp.SetStatus(codes.Error, r.Code.Name()+": "+r.Msg)
	}
	sp.End(trace.WithTimestamp(r.Start.Add(r.Duration)))
}

// End implements host.RunObserver.
func (s *span) End(e host.RunEnd) {
	s.sp.SetAttributes(KeyOutcome.String(e.Outcome), KeyExitCode.Int64(int64(e.ExitCode)), KeySession.Int64(int64(e.Session)))
	switch {
	case e.Err != nil:
		s.sp.RecordError(e.Err)
		s.sp.SetStatus(codes.Error, e.Err.Error())
	case e.ExitCode != 0:
		s.sp.SetStatus(codes.Error, "exit code "+strconv.FormatUint(uint64(e.ExitCode), 10))
	}
	s.sp.End()
}
