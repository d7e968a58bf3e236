// Package callback gives a Go guest stream callbacks (ABI section 12):
// LaunchHostFunc (aclrtLaunchHostFunc) and LaunchCallback
// (aclrtLaunchCallback, with SubscribeReport, ProcessReport and
// UnSubscribeReport) queue a Go func on a stream.
//
// Importing this package is the SDK option that enables callbacks: it
// defines the export aclwasm_dispatch_callback (//go:wasmexport), through
// which the host runs each due callback on the guest's own goroutine,
// re-entrantly inside one of its host calls (a blocking wait, or the start
// of the next call). The host refuses to load a module that launches
// callbacks without that export.
//
// Go cannot hand the host a function pointer from the wasm table as C
// does, so the package keeps a registry of the queued funcs: the host's
// userData is the address of the registry entry, and fn a tag of this
// package that the host only hands back (it never dereferences either).
// The dispatcher looks the entry up, removes it and calls its func: each
// launched func runs at most once; a dispatch that names no entry (a
// forged or repeated one) does nothing.
//
// Outside a wasip1 guest every call fails with 200001
// (ACL_ERROR_API_NOT_SUPPORT), as the raw bindings do.
package callback
