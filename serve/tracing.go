package serve

import (
	"context"
	"net/http"
)

// RequestTracer traces the plugin requests of a server (Config.Tracer).
// Package serve/otelserve implements it with OpenTelemetry; the interface
// is here, and OpenTelemetry there, so that a program that serves without
// tracing links none of OpenTelemetry (the default aclwasm binary).
type RequestTracer interface {
	// StartRequest is called as a request for a plugin begins (POST
	// /v1/plugins/{name}, once its method is checked), with the request's
	// id (RequestIDHeader) and the plugin's name as the URL gives it. The
	// context it returns, derived from r's, is the request's from then on:
	// the plugin runs in it, so that the spans of a host.Observer (such as
	// host/otelhost) are children of the request's. end is called exactly
	// once, when the request has been answered.
	StartRequest(r *http.Request, id, plugin string) (ctx context.Context, end func(RequestEnd))
}

// RequestEnd is how a traced request ended: what the server's log record
// and metrics of the request say.
type RequestEnd struct {
	// Status is the HTTP status answered.
	Status int
	// Outcome is the metrics' outcome label: ok, or the
	// failure's code (timeout, trap, overloaded, ...).
	Outcome string
	// Version is the plugin version's digest; empty when no version
	// served the request (no such plugin, shutting down).
	Version string
	// ExitCode is the guest's exit code (a reactor's status) in decimal;
	// empty when it did not run to an exit.
	ExitCode string
	// Message is the failure's message (the JSON body's); empty on 200.
	Message string
}

// traceStart starts r's trace when the server has a tracer: the request
// to go on with, and the function that ends its trace (nil without one).
func (s *Server) traceStart(w http.ResponseWriter, r *http.Request, name string) (*http.Request, func(RequestEnd)) {
	if s.cfg.Tracer == nil {
		return r, nil
	}
	ctx, end := s.cfg.Tracer.StartRequest(r, w.Header().Get(RequestIDHeader), name)
	return r.WithContext(ctx), end
}

// traceEnd ends a trace traceStart began, if any, with the request's result.
func traceEnd(end func(RequestEnd), v *version, out result, outcome string) {
	if end == nil {
		return
	}
	e := RequestEnd{Status: out.status, Outcome: outcome, ExitCode: out.exit}
	if v != nil {
		e.Version = v.digest
	}
	if out.fail != nil {
		e.Message = out.fail.Message
	}
	end(e)
}
