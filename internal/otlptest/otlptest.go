// Package otlptest is an OTLP/HTTP trace receiver for tests: an httptest
// server on 127.0.0.1 that accepts POST /v1/traces (protobuf) and keeps the
// spans it was sent, so that a test can check what an exporter, or a
// process given its URL, really put on the wire.
package otlptest

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is a received span, its ids in hex as traceparent writes them.
type Span struct {
	Name                            string
	TraceID, SpanID, ParentSpanID   string
	Kind                            tracepb.Span_SpanKind
	Attrs                           map[string]any // string, int64, bool or float64 values
	StatusError                     bool           // status code ERROR
	StatusMessage                   string
	ServiceName                     string // the resource's service.name
	StartUnixNano, EndUnixNano      uint64
	InstrumentationScope, SchemaURL string
}

// Receiver is the test collector. Close it when done (the test's Cleanup
// does, when made with New).
type Receiver struct {
	// URL is the server's base URL (http://127.0.0.1:PORT); exporters
	// post to URL + "/v1/traces".
	URL string

	srv   *httptest.Server
	mu    sync.Mutex
	spans []Span
	bad   []error // requests that were not a valid export
	added chan struct{}
}

// TB is the part of testing.TB New needs.
type TB interface {
	Helper()
	Cleanup(func())
}

// New starts a receiver, closed at the end of the test.
func New(t TB) *Receiver {
	t.Helper()
	rc := &Receiver{added: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", rc.export)
	rc.srv = httptest.NewServer(mux) // 127.0.0.1
	rc.URL = rc.srv.URL
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *Receiver) export(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req coltrace.ExportTraceServiceRequest
	if err == nil && r.Header.Get("Content-Type") != "application/x-protobuf" {
		err = fmt.Errorf("Content-Type %q, want application/x-protobuf", r.Header.Get("Content-Type"))
	}
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		rc.bad = append(rc.bad, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, rs := range req.ResourceSpans {
		service, _ := value(attrOf(rs.GetResource().GetAttributes(), "service.name")).(string)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Name: s.Name, TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
					ParentSpanID: hex.EncodeToString(s.ParentSpanId), Kind: s.Kind, Attrs: map[string]any{},
					StatusError: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR, StatusMessage: s.GetStatus().GetMessage(),
					ServiceName: service, StartUnixNano: s.StartTimeUnixNano, EndUnixNano: s.EndTimeUnixNano,
					InstrumentationScope: ss.GetScope().GetName(), SchemaURL: ss.SchemaUrl}
				for _, kv := range s.Attributes {
					sp.Attrs[kv.Key] = value(kv.Value)
				}
				rc.spans = append(rc.spans, sp)
			}
		}
	}
	select {
	case rc.added <- struct{}{}:
	default:
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	b, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	_, _ = w.Write(b)
}

func attrOf(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	}
	return nil
}

// Spans returns the spans received so far, and an error for each request
// that was not a valid protobuf export.
func (rc *Receiver) Spans() ([]Span, []error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Span(nil), rc.spans...), append([]error(nil), rc.bad...)
}

// Wait waits until done(the spans so far) holds, for at most d, and
// returns the spans it last saw and whether done held.
func (rc *Receiver) Wait(d time.Duration, done func([]Span) bool) ([]Span, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		spans, _ := rc.Spans()
		if done(spans) {
			return spans, true
		}
		select {
		case <-rc.added:
		case <-ctx.Done():
			spans, _ = rc.Spans()
			return spans, done(spans)
		}
	}
}
