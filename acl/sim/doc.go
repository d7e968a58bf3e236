// Package sim is a simulated device that behaves like the native ACL
// runtime behind the memory-copy API: an acl.Backend that needs no
// accelerator, for tests, development and hosts without one.
//
//	b := sim.New(sim.WithDevices(2), sim.WithChip(sim.AtlasA2))
//	defer b.Close()
//
// # What it models
//
// Devices. There are WithDevices devices (default 2), each with WithMemory
// bytes (default 32 GiB) of accounted memory. Malloc charges the device what
// the native allocator reserves, acl.AllocatedSize: the size rounded up to
// 32 bytes plus 32 bytes of padding (none for 1 GiB pages); a request that
// does not fit gives ACL_ERROR_RT_MEMORY_ALLOCATION (207001). MemInfo
// reports the accounted free and total bytes for every memory class. Go
// memory is allocated by Malloc for the bytes asked for, zeroed, and
// released by Free.
//
// Addresses. A device address is an allocation number above an offset:
// never below 2^32, the base aligned to at least 64 bytes, and never handed
// out twice, so a freed address stays invalid. Any interior address finds
// its allocation in constant time. An allocation's extent is the size asked
// for; a range that is not inside one live allocation gives
// ACL_ERROR_RT_PARAM_INVALID (107000), whatever the call. The number of
// allocations over the simulator's life is bounded (2^29-1 with the
// default memory size; fewer for larger memories); past it Malloc gives
// 207001.
//
// Host memory. Buf.Host slices that are not registered are touched only
// while the call runs. HostRegister pins a slice: asynchronous operations
// on it read and write it when they execute, and HostUnregister waits for
// them. Ranges may not overlap (507910). A range registered read-only
// cannot be written (107000).
//
// Streams. Each stream is a FIFO queue served by its own goroutine, so
// asynchronous operations really run after their call returns, in order,
// concurrently with the caller and with other streams. Each device has a
// default stream. A stream holds up to WithQueueDepth operations (default
// 4096) before the calls that take a context (MemcpyAsync, Memcpy2DAsync,
// MemcpyBatchAsync, MemsetAsync) wait for room, as a full native task queue
// makes them wait. The calls that take no context (RecordEvent,
// StreamWaitEvent, LaunchHostFunc, MemcpyAsyncWithDesc,
// MemcpyAsyncWithOffset) cannot wait, so they queue past the bound: only
// their caller bounds them. An asynchronous copy or memset that touches
// pageable host memory first waits for the work queued on its stream, then
// runs before returning, as natively; if that work failed, it returns the
// stream's pending error (once, as a synchronize would) and does nothing. Asynchronous copies between host
// memory only give ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000), as for a card
// attached over PCIe.
//
// Errors of queued work. An operation that fails when it runs (a host
// function's error, a descriptor or offset slot that does not validate)
// has no effect; the stream goes on with the next operation. The next
// synchronize of the stream, or of its device, returns the error and
// clears it. Each event recorded on the stream after the failure and before
// that synchronize also returns it, once.
//
// Synchronization. SynchronizeStream, SynchronizeDevice and SynchronizeEvent
// wait for the work queued when they are called: -1 waits until done, a
// positive timeout waits that many milliseconds, and 0 (or below -1) gives
// ACL_ERROR_RT_PARAM_INVALID as natively; QueryEvent and StreamQuery poll. A stream or device
// timeout gives ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046), an event timeout
// ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047); a done context ends every wait
// at once with the context's error.
//
// Events. Each RecordEvent is a new record; an event's state is that of its
// most recent record. StreamWaitEvent waits for the record that is the most
// recent when it is called. Timestamps are wall-clock times taken when a
// record runs, so EventElapsedTime measures real time. A stream waiting
// for an event never recorded waits for its first record, as a native
// wait blocks until its event is recorded. An event never recorded is
// NotReady, synchronizes at once and has no timestamp (107006); an
// incomplete record gives 507006. DestroyEvent ends the waits on the event.
//
// Lifetimes. Free, HostUnregister and DestroyStream wait for the queued
// work that uses the memory or the stream: every queued operation holds a
// reference to the memory it touches from its call until it completes, and
// no operation touches memory after it is freed. While Free waits, the
// allocation takes no new operations: a call that names it fails with
// ACL_ERROR_RT_PARAM_INVALID (107000), as if it were freed, so that steady
// use cannot hold Free off; likewise, while HostUnregister waits, a call
// naming the pin fails with ACL_ERROR_RT_INVALID_HANDLE (107017), and a
// second unregister with 507911. If their context is done first, Free and
// HostUnregister give up and leave the memory as it was;
// DestroyStream drops the work not yet started (a dropped record of an
// event completes with ACL_ERROR_RT_STREAM_ABORT, 107023), waits for the
// running operation and destroys the stream (and returns nil: the stream
// is gone either way). Close does the same for every
// stream, releases everything and stops every goroutine.
//
// Copies. Memcpy copies in any direction, host to host included, with
// memmove semantics. Memcpy2D touches (height-1)*pitch+width bytes from
// each base; it goes host to device or device to host (device to device
// gives 207000, host to host 107000), and Memcpy2DAsync also goes device
// to device. MemcpyBatch validates every entry before it copies anything
// and runs the entries in no fixed order, spread over GOMAXPROCS
// goroutines when the batch is big; MemcpyBatchAsync is one queued
// operation. Memset sets the byte it is given. A copy between two devices
// follows the chip's peer rule (below). Copies of the same allocation
// never interleave: each takes the allocation's lock, so a synchronous
// copy racing queued work sees it whole or not at all.
//
// Descriptors. A copy descriptor is bytes in device memory, in the
// simulator's own format (src, dst, count and a format mark, little-endian,
// then zeros up to MemcpyDescSize). MemcpyAsyncWithDesc reads and
// validates it when the copy runs, so a copy of its bytes works anywhere
// and a tampered or stale one fails that operation (107000) without
// writing. MemcpyAsyncWithOffset likewise reads its 8-byte base addresses
// from device memory when it runs. Both are inner-device copies: src and
// dst must be on the device of the stream.
//
// Chips. WithChip selects the family whose model-specific rules apply:
// AtlasA2 (the default) and Ascend950 need EnablePeerAccess before a copy
// between two devices (107000 otherwise), AtlasA3 does not, as the native
// docs list. The copy is allowed once either device has enabled access to
// the other, since the docs describe enabling as opening data exchange
// between the two. Every pair of distinct devices can be peers unless
// WithPeers says otherwise. MemcpyDescSize is 32 on A2 and A3 and 64 on
// 950 (the simulator's own values).
//
// Timing. By default operations run as fast as the host's memory allows.
// WithTiming makes each copy and memset last at least the chip's launch
// latency plus its bytes over a nominal bandwidth for the direction, so
// that elapsed times and overlap between streams are plausible.
//
// Robustness. Every method validates handles (an unknown or destroyed
// stream or event gives ACL_ERROR_RT_INVALID_HANDLE, 107017; an unknown
// pin 107017 in a copy and 507911 in HostUnregister), device ids (107001)
// and device addresses, so that a caller's bug cannot corrupt the
// simulator. A panic in a host function becomes the stream's error
// (ACL_ERROR_INTERNAL_ERROR, 500000). After Close every call that touches
// memory, streams or events gives ACL_ERROR_RT_CONTEXT_NULL (107002).
//
// # What it does not model
//
// No kernels, models or computation: only the memory-copy API and the
// streams, events and memory it needs. No contexts or current device:
// device ids are arguments. No memory hierarchy: every memory class is the
// one pool, page sizes and policies only change the accounting, and
// device memory is ordinary host memory (an allocation larger than the host
// can map ends the process, as any Go allocation does). No device faults:
// an operation either validates and runs, or fails as a whole. No stream
// priorities, flags or capture, no event flags, no IPC. Overlapping
// ranges within one batch are undefined, as natively. The argument checks
// that acl's Check functions apply are not repeated, except where the
// native runtime applies them below the API (timeouts, descriptor kinds,
// offset copies), and batches run in any direction. A host function must
// not wait for its own stream: that never returns, as natively.
package sim
