// Package acl is the Go model of the CANN ACL runtime's memory-copy API: its
// error codes, enums and structs with their native values and layouts, the
// native argument checks in the native order, and the [Backend] interface
// that the sandbox delegates to once it has validated and translated a guest
// call.
//
// The package imports nothing else of this module. Backends live in
// subpackages (acl/sim, the embedded simulated device; acl/cann, the binding
// of libascendcl.so).
//
// # What it exports, and why
//
// acl is the contract between three parties in different packages: the
// sandbox (package host), the backends (acl/sim, acl/cann, or an embedder's
// own) and the embedder that picks a backend. What is exported is what one
// of them needs:
//
//   - [Backend], the sum of its roles ([Runtime], [DeviceController],
//     [DeviceQuerier], [Allocator], [Copier], [BatchCopier], [DescCopier],
//     [Memsetter], [Streamer], [HostFuncLauncher], [EventRecorder],
//     [Notifier]), its handle and buffer types ([DevPtr], [HostPin],
//     [Stream], [Event], [Buf], [Copy], [Device], [Host]) and the [Traits]
//     it reports: its promises and its optional roles ([DeviceRegisterer],
//     [StreamResLimiter], [OverflowSwitcher], [Computer], [OpComputer],
//     [KernelRunner], [RandomGenerator], [Reducer]). What a backend
//     implements and the sandbox calls.
//   - [Error] with every native code, [CallError], [Errorf], [CodeOf],
//     [MessageOf] and [Codes]: backends return native codes, the sandbox hands
//     them to the guest, and the guest SDK generators emit their constants
//     from [Codes].
//   - The enums and limits of the native headers ([MemcpyKind],
//     [MemMallocPolicy], [StreamFlag], [FailureMode], [RunMode], ...), each
//     complete with its native values and String names, and the structs'
//     layouts ([MemcpyBatchAttr], [PtrAttributes], [MemLocation], [Words],
//     [BatchAttrs]) that the sandbox decodes from guest memory.
//   - The argument checks (Check*, [Span2D], [AllocatedSize], [CorrectKind],
//     [DirectionOf]): the sandbox applies them before a call reaches a
//     backend, and a backend of its own may apply them too, so that both
//     give the native code for the same mistake.
//   - [Order] and [OrderOf]: the native order of those checks, one
//     [FuncOrder] of [Step]s per function. The sandbox's check-order tests
//     verify it against this table and docs/check-order.md is generated
//     from it, so it is data, not only documentation.
//   - [Fill] and [Fill32]: what a memset does to host memory, shared by every
//     backend and the sandbox.
package acl
