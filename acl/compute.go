package acl

import (
	"context"
	"time"
)

// Region is one device buffer a launch touches: N bytes at Ptr, inside
// one live allocation. Write says whether the launch may write it.
type Region struct {
	Ptr   DevPtr
	N     uint64
	Write bool
}

// Launch is one unit of compute the host approved (ABI section 13): an
// operator of the operator library, a kernel the embedder registered, an
// approved model's execution. The sandbox builds it from a guest's call
// after validating every buffer; a backend queues it in stream order.
type Launch struct {
	// Name names the launch in errors, the trace and the metrics:
	// "aclnnAdd", a kernel's or a model's name.
	Name string
	// Regions are the device buffers the launch reads and writes, as the
	// sandbox validated them when it was queued.
	Regions []Region
	// Check, when set, runs when the launch executes, before Run and in
	// stream order: the sandbox validates the buffers again against the
	// session (section 13.1: a buffer freed or a lease ended in between
	// fails the launch, and nothing is touched). Its error fails the
	// launch.
	Check func() error
	// Run is the computation, for a backend that computes in Go on its own
	// memory (the simulator): it receives one slice per Region, exactly N
	// bytes each, valid until it returns. Regions of one allocation may
	// overlap, as natively two tensors may view one buffer. It must return
	// when ctx is done (the stream destroyed with its work cancelled); an
	// error or a panic fails the stream with the launch's code
	// ([ErrRTAicoreException] unless the error carries one).
	Run func(ctx context.Context, mem [][]byte) error
	// Cost is the launch's modelled duration for the timing model, beyond
	// the device's launch overhead; 0 takes the time Run really ran.
	Cost time.Duration
}

// Computer is the role of a backend that runs Go compute on its device
// memory, in stream order: the simulator, where operators, registered
// kernels and models are Go code. The native backend serves the same
// launches through the node's own libraries instead.
type Computer interface {
	// Compute queues l on s. Each Region must lie in one live allocation
	// of the backend (else [ErrRTParamInvalid], nothing queued); the
	// allocations are held until l has run, so a Free waits for it, as
	// for a queued copy.
	Compute(s Stream, l *Launch) error
}
