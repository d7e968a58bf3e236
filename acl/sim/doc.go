// Package sim is a simulated device that behaves like the native ACL
// runtime behind the memory-copy API: an acl.Backend that needs no
// accelerator, for tests, development and hosts without one.
//
//	b := sim.New(sim.WithDevices(2), sim.WithChip(sim.AtlasA2))
//	defer b.Close()
//
// # What it models
//
// Devices. There are [WithDevices] devices (default 2), each with [WithMemory]
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
// default stream. A stream holds up to [WithQueueDepth] operations (default
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
// that synchronize also returns it, once. A stream set to
// ACL_STOP_ON_FAILURE (SetStreamFailureMode) instead stops after the
// failure: its later operations fail without effect (event records still
// complete, reporting the error) until that synchronize. DestroyStreamForce
// drops the operations not yet started, as DestroyStream with a done
// context does.
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
// record runs, so EventElapsedTime measures real time, or, with the timing
// model, modeled times (below). A wait for an event never recorded is
// refused (107000), as natively; one for an event reset after its record
// waits for its next record. An event never recorded is
// NotReady, synchronizes at once and has no recorder for EventElapsedTime
// (507000, as natively); a reset keeps the record before it for every
// query, as natively; an incomplete record gives 507006. DestroyEvent ends
// the waits on the event.
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
// copy racing queued work sees it whole or not at all. That lock is the
// only one a synchronous copy between device and pageable host memory
// takes: copies of different allocations share no lock or counter, and
// scale with cores. A synchronize (without a timeout) runs the small
// copies (at most 2 MiB) at the head of its stream's queue itself while
// the stream's worker is idle, in stream order, instead of waiting for the
// worker to be woken for each.
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
// Chips. [WithChip] selects the family whose model-specific rules apply:
// [AtlasA2] (the default) and [Ascend950] need EnablePeerAccess before a copy
// between two devices (107000 otherwise), [AtlasA3] does not, as the native
// docs list. The copy is allowed once either device has enabled access to
// the other, since the docs describe enabling as opening data exchange
// between the two. Every pair of distinct devices can be peers unless
// [WithPeers] says otherwise. MemcpyDescSize is 32 on A2 and A3 and 64 on
// 950 (the simulator's own values).
//
// Timing. By default operations run as fast as the host's memory allows,
// and the copy path pays nothing for the timing model. [WithTiming] adds the
// model: a virtual clock, and a discrete-event model of the device on it
// that runs beside the real work (clock.go). Each device has three links
// with their own bandwidths: host to device and device to host (the two
// directions of its host link, which do not slow each other) and its own
// memory (a copy within the device, a memset of device memory); each
// ordered pair of devices has a peer link. An operation that touches device
// memory lasts the chip's launch latency, then moves its bytes over its
// link (a batch: one latency, then its bytes over each link it uses, at
// once). The transfers on one link at the same modeled time share its
// bandwidth equally, whichever streams, sessions or synchronous calls they
// come from: two copies that would each take 1 ms alone both end after
// 2 ms. Records, stream waits and the host's own completion marks take no
// modeled time; a host function lasts as long as it really ran (the host's
// time is real); an operation on host memory only takes none; a descriptor
// copy is charged the count its descriptor holds when it is queued.
//
// The clock moves only when the host waits; calls are instants. A
// synchronize (of a stream, an event or a device, and DestroyStream) moves
// it to the modeled end of what it waits for; a synchronous copy or memset,
// or an asynchronous one of pageable memory, to its own end; a positive
// timeout by at most that many modeled milliseconds, then gives 507046 or
// 507047; a QueryEvent or StreamQuery that finds the work done on this
// machine but not in modeled time moves it to the model's next event (time
// passes while the host polls); a stream holding WithQueueDepth operations
// not done in modeled time, to when there is room. Event timestamps,
// EventElapsedTime and whether work counts as complete follow the clock, and a wait with a timeout
// (StreamWaitEventTimeout) ends after it in modeled time, so a program
// sees the chip's timing and order of completion, and the same calls give
// the same modeled times on any machine. Work must also really be done
// (the stream workers do not wait for the model), and host functions run
// in their real order. Every caller of one Backend shares its clock: a
// wait by one session moves it for all. ModelTime reads it.
//
// The wall clock does not wait for the model, so that modeled times are
// exact and their tests fast: a pipeline that would take 10 ms on the chip
// reports 10 ms and finishes as fast as this machine copies. [WithPacing] (CLI --sim-pacing) ties the model to the wall clock
// instead, for programs that time themselves with it: the host's own time
// counts as modeled time, and every wait lasts until the wall clock
// reaches the modeled time it waits for; modeled times then depend on the
// host's speed.
//
// The model's parameters per chip:
//
//	chip              host→device  device→host  within device  device→device  launch
//	AtlasA2 (default)     25 GB/s      25 GB/s       800 GB/s         56 GB/s    5 µs
//	AtlasA3               25 GB/s      25 GB/s      1000 GB/s        100 GB/s    5 µs
//	Ascend950             50 GB/s      50 GB/s      1600 GB/s        200 GB/s    3 µs
//
// The native runtime's headers, sources and API docs, which the simulator
// follows elsewhere, give no bandwidth or latency, so every value is an
// assumption, to be replaced by measurements on the hardware. Host links:
// a PCIe 4.0 x16 link per device (32 GB/s raw per direction, about 25 GB/s
// achieved) for the A2, the same assumed for the A3, PCIe 5.0 x16 for the
// 950; full duplex, hence a link per direction. Within a device a copy
// reads and writes the same HBM, so it is given half of the HBM bandwidth
// assumed for the chip (1.6, 2 and 3.2 TB/s). Between devices: 56 GB/s,
// the figure commonly quoted for one HCCS link of the 910B (the native
// sources give none), assumed faster on the later chips. Launch: an order of
// magnitude for submitting one task to a stream, not a measured figure.
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
// priorities, flags or capture (CreateStreamWithConfig accepts priorities
// and flags, to no effect), no event flags, no IPC. Overlapping
// ranges within one batch are undefined, as natively. The argument checks
// that acl's Check functions apply are not repeated, except where the
// native runtime applies them below the API (timeouts, descriptor kinds,
// offset copies), and batches run in any direction. A host function must
// not wait for its own stream: that never returns, as natively.
//
// # What it exports
//
// [New] with its options ([Option]: [WithDevices], [WithMemory], [WithChip],
// [WithPeers], [WithQueueDepth], [WithTiming], [WithPacing]) and their
// defaults and bounds ([DefaultDevices], [DefaultMemory],
// [DefaultQueueDepth], [MaxMemory]), which an embedder sizes its devices
// against; [Chip] and its families ([AtlasA2], [AtlasA3], [Ascend950]),
// which the CLI's --chip names; and [Backend], whose methods are those of
// [acl.Backend] and of the optional interfaces it implements, plus
// [Backend.Chip] and [Backend.ModelTime], the only way to read the
// timing model's clock.
package sim
