package sandbox

import (
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// Tracer follows a session's host calls (host.WithTrace and the run
// observers): HostCall runs on the guest's goroutine after each call,
// while the call's view of guest memory is still valid.
type Tracer interface {
	HostCall(t *Traced)
}

// Traced is one host call as it returns: what a trace record is made of.
// Mem and Stack are valid only during Tracer.HostCall.
type Traced struct {
	Func    *abi.Func
	Index   int // in abi.Funcs; -1 for a host function outside module "acl"
	Profile abi.Profile
	Mem     []byte
	Stack   []uint64 // the parameters as the guest passed them
	Result  int32
	Code    acl.Error
	Msg     string
	Session uint64
	Start   time.Time
}

// SetTracer has t follow the session's host calls from now on; nil stops it.
// Call it between the session's host calls.
func (s *Session) SetTracer(t Tracer) { s.tracer = t }
