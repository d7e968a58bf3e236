package acl

import (
	"context"
	"errors"
	"fmt"
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
	// Recovers says Run recovers its own panics, each made its error as
	// a backend would make it (a device fault): a backend may then call
	// Run without a guard of its own, which a quick launch would pay for
	// twice. A panic in Check stays the backend's to recover.
	Recovers bool
	// Done, when set, is called at most once, when the backend holds the
	// Launch no more: it ran, was dropped, or failed to queue. The caller
	// may then reuse the Launch and what Check and Run hold; it touches
	// none of it after Compute, whose answer does not say whether Done
	// was called. A backend may leave it uncalled (to the collector).
	Done func()
	// Cost is the launch's modelled duration for the timing model, beyond
	// the device's launch overhead; 0 takes the time Run really ran.
	Cost time.Duration
	// Quick says Run is short and never waits (a kernel declared
	// host.Kernel.Quick): a backend may run a launch of few bytes on the
	// caller's goroutine when its stream is idle, in stream order and with
	// the same effects, rather than hand it to the stream's worker, which
	// costs more than such a computation. The simulator may hold the
	// stream while it runs one so (one with regions): Run must not call
	// the backend on its stream. One without regions it runs without the
	// stream's lock: whatever looks at the stream meanwhile finds it not
	// queued, as before the call.
	Quick bool
	// InCall is set by a backend that runs a Quick launch within Compute,
	// on the caller's goroutine, before it runs Check, Run and Done
	// there; the caller clears it before Compute. Check, Run and Done so
	// tell that they run on the caller's goroutine, where they may touch
	// what only that goroutine touches without synchronizing. Run's
	// context is then never done (the stream's cancellation does not
	// reach a launch run in its call): the caller bounds it.
	InCall bool
	// Kernel, when set, is the launch as a native kernel binary runs it,
	// for a backend that runs device code (the native backend, which
	// ignores Run): a registered kernel whose declaration names a binary
	// the backend loaded ([KernelRunner]). The simulator ignores it.
	Kernel *KernelCall

	// Op, set for a launch of the operator library, describes it as the
	// call a native program makes, for a backend that replays it through
	// the node's own library instead of running Run (an [OpComputer]):
	// the operator and its arguments in the native order, each tensor's
	// storage being one of Regions.
	Op *OpCall

	// Model, set for an approved model's execution on a backend that runs
	// offline models itself (a [ModelRunner]), describes it: the model and
	// how many of Regions are its inputs (the rest are its outputs, in the
	// model's order). Such a backend ignores Run.
	Model *ModelCall
}

// KernelCall is a launch of a kernel function of a loaded binary: what
// aclrtLaunchKernelWithConfig needs, with every address a Region.
type KernelCall struct {
	// Func is the kernel's function ([KernelRunner.KernelFunction]).
	Func KernelFunc
	// BlockDim is the launch's block count.
	BlockDim uint32
	// Args are the kernel's arguments in its parameter order, each
	// appended as aclrtKernelArgsAppend appends one.
	Args []KernelArg
	// Timeout, when positive, bounds the launch on the device (the
	// launch's ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US).
	Timeout time.Duration
}

// KernelArg is one argument of a [KernelCall]: a device buffer, appended
// as the 8-byte device address of Launch.Regions[Region] (the backend
// resolves it, so no caller's value reaches the device as an address), or,
// with Region -1, Value's bytes (a scalar in its native size and byte
// order, or 8 zero bytes for a buffer the kernel may not touch).
type KernelArg struct {
	Region int
	Value  []byte
}

// KernelBinary is a kernel binary a [KernelRunner] loaded.
type KernelBinary uint64

// KernelFunc is a kernel function of a loaded [KernelBinary].
type KernelFunc uint64

// KernelRunner is the optional role ([Traits.KernelRunner]) of a backend
// that runs native kernel binaries (the native backend, with
// aclrtBinaryLoadFromFile, aclrtBinaryGetFunction, aclrtBinaryUnLoad and
// aclrtLaunchKernelWithConfig): the host loads the binaries of the kernels
// a plugin is granted when it loads the plugin, launches them with
// LaunchKernel, and unloads them when it closes the plugin. It is apart
// from [Computer], whose backends run Go compute (Launch.Run).
type KernelRunner interface {
	// LoadKernelBinary loads the kernel binary at path, a file the
	// embedder approved.
	LoadKernelBinary(path string) (KernelBinary, error)
	// KernelFunction returns the function of bin named entry.
	KernelFunction(bin KernelBinary, entry string) (KernelFunc, error)
	// UnloadKernelBinary unloads bin; its functions are invalid after.
	UnloadKernelBinary(bin KernelBinary) error
	// LaunchKernel queues l, which has a Kernel, on s. Each Region must lie
	// in one live allocation of the stream's device (else
	// [ErrRTParamInvalid], nothing queued); the allocations are held until
	// l has run, so a Free waits for it. A kernel that faults fails the
	// stream at its next synchronize, as natively.
	LaunchKernel(s Stream, l *Launch) error
}

// Computer is the optional role ([Traits.Computer]) of a backend that runs
// Go compute on its device memory, in stream order: the simulator, where
// operators (aclnn*), registered kernels (aclrtLaunchKernel*), models
// (aclmdlExecute*), random numbers (aclrtRandomNumAsync), reduces
// (aclrtReduceAsync) and overflow reads (aclrtGetOverflowStatus) are Go
// code. The native backend serves the same launches through the node's
// own libraries instead.
type Computer interface {
	// Compute queues l on s. Each Region must lie in one live allocation
	// of the backend (else [ErrRTParamInvalid], nothing queued); the
	// allocations are held until l has run, so a Free waits for it, as
	// for a queued copy.
	Compute(s Stream, l *Launch) error
}

// OpComputer is the optional role ([Traits.OpComputer]) of a backend that
// runs the operator library's launches (aclnn<Op>GetWorkspaceSize, then
// aclnn<Op>) through the node's own operator library rather than Go code
// (the native backend). Computer stays the role of Go compute (operators,
// kernels, models); an OpComputer serves only launches whose Op is set.
type OpComputer interface {
	// ComputeOp queues l, whose Op is set, on s, with the rules of
	// [Computer.Compute]: each Region in one live allocation, held until
	// l has run; l.Check runs when l executes, in stream order, before
	// anything is touched. A library without the operator library, or
	// without l's operator, gives [ErrRTFeatureNotSupport] and queues
	// nothing ([Runtime.Supports] answers for "aclnn"+Op.Name).
	ComputeOp(s Stream, l *Launch) error
}

// OpCall is one call of the operator library: aclnn<Name>GetWorkspaceSize
// with Args then workspaceSize and executor, and aclnn<Name> with a
// workspace of the size it asked for, on the launch's stream. It is
// derived from the operator's row of the table (package aclnn), so that a
// backend replays any operator without code of its own.
type OpCall struct {
	// Name is the operator: "Add" names aclnnAddGetWorkspaceSize and
	// aclnnAdd.
	Name string
	// Args are aclnn<Name>GetWorkspaceSize's parameters before
	// workspaceSize and executor, in the native order.
	Args []OpArg
	// Ran, when set, is told once the call has executed: how long it ran
	// and its error (nil on success), for the accounting; it returns the
	// error the launch fails its stream with (err itself, or err in words
	// for the guest). It is not told of a launch whose Check failed (Check
	// accounts for it) or that was cancelled before it ran.
	Ran func(d time.Duration, err error) error
	// Bound, when set, bounds the call as the sandbox bounds every launch
	// (ABI section 13.1: the run's time limit, the end of the session):
	// the backend derives the call's context from its own with it when
	// the stream reaches the call. A call whose context is done by then
	// does not run; one running when it is done is stopped on the device
	// (aclrtStreamAbort where the runtime has it) and waited for, so that
	// nothing touches the regions once the launch has ended. Either way
	// Ran is told an error that wraps the context's.
	Bound func(ctx context.Context) (context.Context, context.CancelFunc)
}

// OpArgKind is the native C type of one operator argument.
type OpArgKind uint8

// The argument kinds. The object kinds are created by the backend for
// the call (aclCreateTensor, ...) and destroyed after it.
const (
	ArgNull       OpArgKind = iota // NULL: an optional object not given
	ArgTensor                      // aclTensor*: Tensors[0]
	ArgTensorList                  // aclTensorList*: Tensors
	ArgScalar                      // aclScalar*: Scalar
	ArgIntArray                    // aclIntArray*: Ints
	ArgFloatArray                  // aclFloatArray*: Floats
	ArgBoolArray                   // aclBoolArray*: Bools
	ArgInt64                       // int64_t: Int
	ArgInt8                        // int8_t: Int
	ArgBool                        // bool: Int (0 or 1)
	ArgDType                       // aclDataType (a C enum, int32): Int
	ArgFloat                       // float, passed in a floating-point register: Float
)

// OpArg is one argument of an [OpCall]; the fields of its Kind are set.
type OpArg struct {
	Kind    OpArgKind
	Tensors []OpTensor
	Scalar  OpScalar
	Ints    []int64
	Floats  []float32
	Bools   []bool
	Int     int64
	Float   float32
}

// OpTensor is an aclTensor as aclCreateTensor describes it, over the
// storage of one Region of its launch.
type OpTensor struct {
	Type    DataType
	Format  Format
	Dims    []int64 // the view's dims
	Strides []int64 // the view's strides, in elements
	Offset  int64   // the view's offset into the storage, in elements
	Storage []int64 // the storage dims
	// Region is the index in the launch's Regions of the storage, whose
	// Ptr is tensorData; -1 for a tensor without storage bytes (an empty
	// tensor), whose tensorData is NULL.
	Region int
}

// OpScalar is an aclScalar: a value of a data type, its little-endian
// bytes as aclCreateScalar reads them.
type OpScalar struct {
	Type DataType
	Bits [8]byte
}

// ModelRunner is the optional interface of a backend that runs offline
// models (.om) through the node's own runtime (aclmdlLoadFromFile,
// aclmdlExecuteAsync over datasets of translated addresses: ABI section
// 13.4), rather than Go compute. The sandbox loads only files the
// embedder approved, one load per guest load, and unloads each when the
// guest does or its session ends.
type ModelRunner interface {
	// QueryModel returns the device memory the model at path needs to
	// run (work) and for its weights (aclmdlQuerySize); a library
	// without it reports 0 and 0.
	QueryModel(path string) (work, weight uint64, err error)
	// LoadModel loads the model at path on dev and describes it.
	LoadModel(dev int32, path string) (NativeModel, ModelDesc, error)
	// UnloadModel unloads m: at once when no execution of it is queued,
	// else once the last queued one has run or been dropped. No execution
	// may be queued after.
	UnloadModel(m NativeModel) error
	// ExecuteModel queues l, whose Model is set, on s with the rules of
	// [OpComputer.ComputeOp]: each Region in one live allocation of the
	// stream's device, held until l has run; l.Check runs when l executes,
	// in stream order, before anything is touched.
	ExecuteModel(s Stream, l *Launch) error
}

// NativeModel is a model a [ModelRunner] loaded.
type NativeModel uint64

// ModelCall is an execution of a loaded native model: its inputs are the
// launch's first Inputs regions, its outputs the others.
type ModelCall struct {
	Model  NativeModel
	Inputs int
	// Ran, when set, is told what the execution took and how it ended,
	// and returns the error the stream holds.
	Ran func(d time.Duration, err error) error
	// Bound, when set, bounds the execution as [OpCall.Bound] bounds an
	// operator: one whose context is done when the stream reaches it does
	// not run, one running then is stopped on the device and waited for.
	Bound func(ctx context.Context) (context.Context, context.CancelFunc)
}

// ModelDesc describes a loaded model as aclmdlGetDesc does.
type ModelDesc struct {
	Inputs, Outputs []ModelIO
	// Work and Weight are the device memory the model holds while loaded
	// (aclmdlQuerySize).
	Work, Weight uint64
}

// ModelIO is one input or output of a model.
type ModelIO struct {
	Name   string
	Dims   []int64
	Type   DataType
	Format Format
	Size   uint64 // bytes
}

// LaunchStopped is the error of a launch that its bounds ended (ABI
// section 13.1; [OpCall.Bound], [ModelCall.Bound]): cause is the context's error. At the
// run's time limit it is [ErrRTAicoreTimeout], as for a kernel the
// device stops; when the session ends or the stream's work is cancelled,
// [ErrRTStreamAbort]. ran says whether the launch had started; one that
// had not touched nothing.
func LaunchStopped(name string, ran bool, cause error) error {
	code, why := ErrRTStreamAbort, "its stream's work was cancelled"
	if errors.Is(cause, context.DeadlineExceeded) {
		code, why = ErrRTAicoreTimeout, "the run's time limit passed"
	}
	msg := fmt.Sprintf("%s was stopped: %s while it ran", name, why)
	if !ran {
		msg = fmt.Sprintf("%s did not run, and touched nothing: %s before its stream reached it", name, why)
	}
	return &StoppedError{&CallError{Code: code, Msg: msg}}
}

// StoppedError is a launch its bounds ended ([LaunchStopped]), told
// apart from one that failed on its own. It does not wrap the context's
// error: the launch's stream fails, not the call that reads its error.
type StoppedError struct{ Err *CallError }

func (e *StoppedError) Error() string { return e.Err.Error() }
func (e *StoppedError) Unwrap() error { return e.Err }
