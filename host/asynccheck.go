package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// AsyncKind says what an AsyncFinding is.
type AsyncKind int

const (
	// AsyncUnwaited: an asynchronous copy touching registered guest
	// memory that no synchronize, query or event covered before the export
	// call returned. Its destination read 0xCD bytes until then.
	AsyncUnwaited AsyncKind = AsyncKind(sandbox.AsyncUnwaited)
	// AsyncSourceChanged: the registered guest memory an asynchronous copy
	// reads changed between the enqueue and the synchronize that covered
	// the copy: natively the copy may have read either content.
	AsyncSourceChanged AsyncKind = AsyncKind(sandbox.AsyncSourceChanged)
)

// String names the kind as AsyncError's message does.
func (k AsyncKind) String() string {
	switch k {
	case AsyncUnwaited:
		return "never waited for"
	case AsyncSourceChanged:
		return "source changed"
	}
	return fmt.Sprintf("AsyncKind(%d)", int(k))
}

// AsyncFinding is one asynchronous mistake the checking mode saw.
type AsyncFinding struct {
	Kind AsyncKind
	// Call is the call that queued the copy, as a trace line renders it
	// (function and arguments), without its result:
	// aclrtMemcpyAsync(dst=0x1000, destMax=64, src=0x100000000, count=64, kind=ACL_MEMCPY_DEVICE_TO_HOST, stream=0).
	Call string
	// Detail says what went wrong.
	Detail string
}

// AsyncError is what a call or run returns when the checking mode
// (Policy.CheckAsync, WithCheckAsync) saw asynchronous mistakes in it:
// each finding, in the order they were seen. The guest's own results
// (a Run's Result, a call's values or a bytes call's output and status)
// come with it; the instance stays usable.
type AsyncError struct {
	Export   string
	Findings []AsyncFinding
}

// Error lists the findings, one per line after the first.
func (e *AsyncError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host: %s: check-async found %d asynchronous mistake", e.Export, len(e.Findings))
	if len(e.Findings) != 1 {
		b.WriteByte('s')
	}
	for _, f := range e.Findings {
		fmt.Fprintf(&b, "\n\t%s: %s: %s", f.Kind, f.Call, f.Detail)
	}
	return b.String()
}

// asyncErr returns the checking mode's findings since the last export
// call as an *AsyncError, or nil (also outside the checking mode).
func (i *Instance) asyncErr(ctx context.Context, export string) error {
	found := i.s.s.AsyncFindings(ctx)
	if len(found) == 0 {
		return nil
	}
	e := &AsyncError{Export: export, Findings: make([]AsyncFinding, len(found))}
	for k, f := range found {
		e.Findings[k] = AsyncFinding{Kind: AsyncKind(f.Kind), Call: CallRecord{Func: f.Func, Args: f.Args}.call(), Detail: f.Detail}
	}
	return e
}
