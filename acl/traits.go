package acl

// Traits is what a backend does or promises beyond [Backend]: the
// optional roles it plays, each nil where it does not, and the promises
// the sandbox adapts to. [Runtime.Traits] reports them, the same value at
// every call, so that a caller may read them once.
//
// One method rather than optional interfaces found by type assertion, so
// that a wrapper of a backend (one that injects faults, or runs callbacks
// while it waits) keeps the wrapped backend's roles by embedding it, with
// no wrapper type per combination of them; a wrapper that intercepts a
// role's methods puts its own value in that field. SmallCopier, a road
// around Memcpy, is the exception: it is only taken from the backend
// that is it, so a wrapper that forwards Traits has none unless it
// reports itself.
type Traits struct {
	// ZeroesAllocations: Malloc returns memory that reads as zeros. The
	// native runtime does not promise it, so device memory another session
	// freed could otherwise be read back by the next one; the sandbox
	// clears new allocations of a backend without it before the guest sees
	// them.
	ZeroesAllocations bool
	// PeerAccessImplicit: a copy between two devices needs no
	// EnablePeerAccess first on this hardware. Peer access is process-wide
	// in a backend, so the sandbox applies the rule itself, per session.
	// Without it (the zero value) a backend is taken to need it, as Atlas
	// A2 and the Ascend 950 do.
	PeerAccessImplicit bool

	// DeviceRegisterer registers host memory for one device, as
	// aclrtHostRegister does natively.
	DeviceRegisterer DeviceRegisterer
	// StreamResLimiter keeps core limits per stream
	// (aclrtSetStreamResLimit, aclrtResetStreamResLimit).
	StreamResLimiter StreamResLimiter
	// OverflowSwitcher keeps the per-stream overflow switch
	// (aclrtSetStreamOverflowSwitch).
	OverflowSwitcher OverflowSwitcher

	// Computer runs Go compute in stream order: operators, registered
	// kernels, models, random numbers, reduces and overflow status.
	Computer Computer
	// OpComputer runs the operator library's launches through the node's
	// own operator library (aclnn<Op>GetWorkspaceSize, aclnn<Op>).
	OpComputer OpComputer
	// KernelRunner loads and launches native kernel binaries
	// (aclrtBinaryLoadFromFile, aclrtLaunchKernelWithConfig).
	KernelRunner KernelRunner
	// RandomGenerator generates random numbers natively
	// (aclrtRandomNumAsync).
	RandomGenerator RandomGenerator
	// Reducer reduces natively (aclrtReduceAsync).
	Reducer Reducer
	// SmallCopier copies a few bytes between allocations the sandbox has
	// already resolved (aclrtMemcpy of at most SmallCopyMax bytes), one
	// lookup and one lock per allocation; without it Memcpy does. It is
	// the backend itself or ignored ([SmallCopierOf]), so that a wrapper
	// forwarding its inner backend's Traits sees every copy in Memcpy.
	SmallCopier SmallCopier
	// ModelRunner loads and executes offline models through the node's
	// runtime (aclmdlLoadFromFile, aclmdlExecuteAsync).
	ModelRunner ModelRunner
}
