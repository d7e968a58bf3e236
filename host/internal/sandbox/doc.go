// Package sandbox is the session of a plugin instance and every import of
// the guest ABI: the address space (guest memory below 2^32, device
// allocations in a region of the session's own), the stream, event and
// context handles, the limits, the statistics, the call context and the
// one path every host call takes (Session.invoke: the import, the error
// message, the counters, the trace, a bug's panic turned into
// ACL_ERROR_INTERNAL_ERROR).
//
// Package host wraps it: host.Session holds a [*Session], the policy
// arrives as [Limits], and traces and metrics leave through one hook each
// ([Tracer], [Metrics]). It never imports host.
//
// The package exports what host needs to build and drive sessions: [New],
// [Shared] (what the sessions of one runtime share), [Limits], [Session]
// and its methods (Invoker, Release, Lend, SetTracer, SetIO, SetVars,
// SetupLog, StartMetrics, Counts, LastError, ID, InHostFunc), [Call] with
// the accessors host.HostCall forwards, [HostFunc], [IOFuncs] and
// [Embedder], [IO], [Lease], [CallCtx], [Stdin], the timeout cause
// ([ErrPolicyTimeout], [TimeoutCause], [WithPolicyTimeout]), [Metrics]
// and [PluginMetrics], and a few constants of the address space
// ([AllocGuard], [WindowEnd], [DescSize], [MaxVarLen], [SetSlot],
// [HostFuncBase]). What tests may look at inside a session is in
// export_test.go, reached through [Peek].
package sandbox
