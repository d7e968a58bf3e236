package acl

// The native runtime answers a call by walking one path: the ACL layer's
// argument checks (aclrtXImpl, 100000), the runtime's entry point (rtX:
// zero-size shortcut, chip feature, stream and event handles, 107017), its
// error decorator (ranges and kinds, 107000 and 207000), and its
// implementation (current device 107002, stream of another device 107003).
// Which check fails first decides the code a guest reads, so the order is
// part of the contract. Order writes it down, function by function, as
// data: the host runs each function's checks in this order, its tests have
// one case per step, and docs/check-order.md is rendered from it.

// Layer is where on the native call path a check sits.
type Layer uint8

// The layers, in the order a call crosses them.
const (
	LayerACL     Layer = iota // aclrtXImpl: argument checks (100000)
	LayerEntry                // rtX entry point: zero size, chip feature, handles (107017)
	LayerRange                // the runtime's error decorator: ranges and kinds (107000, 207000)
	LayerContext              // the runtime's implementation: current device (107002, 107003)
	LayerExec                 // the operation itself: driver, execution
)

// String names the layer as the docs show it.
func (l Layer) String() string {
	return [...]string{"ACL", "entry", "range", "context", "exec"}[l]
}

// Basis says how a step relates to the native runtime.
type Basis uint8

// The bases.
const (
	// Native: the same code at the same point as the native runtime.
	Native Basis = iota
	// Driver: the native outcome is decided by the closed driver (or
	// hardware); the step is the sandbox's documented choice.
	Driver
	// Sandbox: a rule the native runtime does not have (guest address
	// ranges, quotas, handles of other sessions), placed where the native
	// runtime would look at the same argument.
	Sandbox
	// Deviation: one of the two sandbox rules that override native
	// behaviour on purpose (a failed call has no effect; errors of queued
	// work surface at the next synchronize).
	Deviation
)

// String is the mark the docs show: native, driver?, sandbox, deviation.
func (b Basis) String() string {
	return [...]string{"native", "driver?", "sandbox", "deviation"}[b]
}

// Step is one check of one function.
type Step struct {
	ID     string // short name, unique within the function; tests key on it
	Check  string // what fails (or succeeds early), in words
	Code   Error  // what the guest reads when the step decides the call
	Layer  Layer
	Basis  Basis
	Native string // where the native runtime decides it: path:line in hicann/runtime (ACL 1.17.0)
}

// FuncOrder is the ordered checks of one function.
type FuncOrder struct {
	Func  string
	Steps []Step
}

// OrderOf returns the checks of function name in native order, or nil.
func OrderOf(name string) []Step {
	for i := range Order {
		if Order[i].Func == name {
			return Order[i].Steps
		}
	}
	return nil
}

// Shared step lists. Native locations: memory.cpp, stream.cpp, device.cpp
// and event.cpp are src/acl/aclrt_impl/; api_c*.cc are src/runtime/api/;
// api_error.cc and api_impl.cc are src/runtime/api/impl/.
var (
	memcpyACL = []Step{
		{"count0", "count 0 succeeds before any other check", Success, LayerACL, Native, "memory.cpp:653-656"},
		{"null", "dst or src NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:657-658"},
		{"kind", "kind outside 0..5 (INNER and INTER_DEVICE_TO_DEVICE included)", ErrInvalidParam, LayerACL, Native, "memory.cpp:162-204"},
	}
	asyncCopy = append(append([]Step(nil), memcpyACL...),
		Step{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1113 (WithCondition: 1153)"},
		Step{"destMax", "count above destMax (destMax 0 included)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2184-2185"},
		Step{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_error.cc:2222-2223"},
		Step{"range", "dst or src not inside guest memory or one live allocation of this session; dst in a read-only registered range", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox; natively the pointer-attribute query at api_error.cc:2616)"},
		Step{"kind5", "HOST_TO_BUF_TO_DEVICE with src not host or dst not device", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2226-2231, 4311-4319"},
		Step{"kindloc", "explicit kind not allowed for unregistered memory (pinned host and device memory correct the kind instead)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2694-2735, 2786, 2844"},
		Step{"h2h", "corrected direction host to host (for unregistered pairs with an explicit H2D, D2H or D2D kind the driver decides; the sandbox refuses them the same way)", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:2246-2248"},
		Step{"same", "dst == src succeeds without copying", Success, LayerRange, Native, "api_error.cc:2249-2251"},
		Step{"peer", "device to device across devices without aclrtDeviceEnablePeerAccess", ErrRTParamInvalid, LayerExec, Driver, "(no runtime check; driver)"},
		Step{"bytes", "the call would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		Step{"pageable", "unregistered memory: waits for the stream, returns its pending error if it has one, else copies before returning", Success, LayerRange, Native, "api_error.cc:2254-2270"},
		Step{"streamctx", "stream of another device (queued path only)", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:2882-2883"},
		Step{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	)
	batchSteps = func(async, v2 bool) []Step {
		var s []Step
		if !v2 {
			s = append(s, Step{"failnull", "failIndex NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "memory.cpp:1820, 1843"})
		}
		s = append(s,
			Step{"sizes", "sizes NULL or numBatches 0", ErrInvalidParam, LayerACL, Native, "memory.cpp:1740-1741"},
			Step{"zero", "every size 0 succeeds, failIndex SIZE_MAX", Success, LayerACL, Native, "memory.cpp:1743-1749"},
			Step{"arrays", "dsts, destMaxs, srcs, attrs or attrsIndexes NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "memory.cpp:1697-1702"},
			Step{"destMaxs", "destMaxs[i] below sizes[i]", ErrInvalidParam, LayerACL, Native, "memory.cpp:1704-1716"},
			Step{"rsv", "an attribute's reserved bytes not zero", ErrInvalidParam, LayerACL, Native, "memory.cpp:1718-1730"},
		)
		if async {
			s = append(s, Step{"stream", "stream handle unknown, destroyed, or an event; failIndex untouched", ErrRTInvalidHandle, LayerEntry, Native, "api_c_memory.cc:786"})
		}
		s = append(s,
			Step{"shape", "failIndex set to SIZE_MAX; numAttrs 0 or above numBatches, attrsIndexes[0] not 0, not increasing, or not below numBatches; sync: more than 4096 copies", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:7302-7335, 7349-7381"},
		)
		if async {
			s = append(s, Step{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:8947"})
			s = append(s, Step{"budget", "queued batches would hold more entries than the policy allows", ErrRTOverLimit, LayerContext, Sandbox, "(sandbox)"})
		} else {
			s = append(s, Step{"context", "no current device (natively no check: the driver decides)", ErrRTContextNull, LayerContext, Driver, "api_impl.cc:3319-3325"})
		}
		s = append(s, Step{"bytes", "the copies would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerContext, Sandbox, "(sandbox)"})
		if async {
			s = append(s, Step{"entrysize", "copy i: size 0 (failIndex i)", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:8840-8846"})
		}
		s = append(s,
			Step{"entrynull", "copy i: dst or src NULL (failIndex i)", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:8905-8909"},
			Step{"entryrange", "copy i: dst or src not inside guest memory or one live allocation (failIndex i)", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox; natively the pointer-attribute query)"},
			Step{"entryloc", "copy i: declared location not the real one; UNREGISTERED never matches, HOST_NUMA counts as HOST, unregistered memory is HOST (failIndex i)", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:8794-8830"},
			Step{"entrydir", "copy i: dst and src in the same kind of memory: only H2D and D2H (failIndex i)", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:8784, 8860"},
		)
		if async {
			s = append(s,
				Step{"unregistered", "copies on unregistered guest memory synchronize the stream and copy, whatever device the stream is on", Success, LayerExec, Native, "api_impl.cc:8912-8927"},
				Step{"streamctx", "stream of another device, once an entry takes the queued path (failIndex SIZE_MAX)", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:8929 -> 2882-2883"},
				Step{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
				Step{"atomic", "a failing copy runs none of the batch (natively earlier copies were launched)", ErrRTParamInvalid, LayerExec, Deviation, "api_impl.cc:8887-8939"},
			)
		}
		return s
	}
	memcpy2dACL = []Step{
		{"zero", "width or height 0 succeeds", Success, LayerACL, Native, "memory.cpp:216-218"},
		{"null", "dst or src NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:220-223"},
		{"pitch", "width above spitch or dpitch", ErrInvalidParam, LayerACL, Native, "memory.cpp:225-237"},
		{"kind", "kind not H2D, D2H, D2D or DEFAULT", ErrInvalidParam, LayerACL, Native, "memory.cpp:239-265"},
	}
	limits2d = Step{"limits", "height above 5242880 or width above 5000000", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2999-3004"}
	range2d  = Step{"range", "(height-1)*pitch + width bytes from dst or src not inside guest memory or one live allocation; dst read-only", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox; natively the pointer-attribute query at api_error.cc:2616)"}
	memset   = []Step{
		{"count0", "count 0 succeeds", Success, LayerACL, Native, "memory.cpp:674 (async: 742)"},
		{"null", "devPtr NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:678 (async: 746)"},
	}
	memsetRange = Step{"range", "devPtr range not inside guest memory or one live allocation; a read-only registered range", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox; read-only: driver)"}
	memsetBytes = Step{"bytes", "the call would set more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"}
	memsetHost  = Step{"host", "guest memory, registered or not, is set at call time", Success, LayerRange, Native, "memory_common.cc:100-107"}

	memsetD32ACL = []Step{
		{"count0", "count 0 succeeds before any other check (ptr NULL, a destroyed stream)", Success, LayerACL, Native, "memory.cpp:778-781 (async: 832-835)"},
		{"null", "ptr NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:782 (async: 836)"},
		{"align", "ptr not 4-byte aligned", ErrInvalidParam, LayerACL, Native, "memory.cpp:785-789 (async: 839-843)"},
		{"memSize", "count*4 above memSize, or overflowing", ErrInvalidParam, LayerACL, Native, "memory.cpp:791-803 (async: 845-857)"},
		{"unregistered", "ptr in guest memory that is not registered (aclrtHostRegister, aclrtMallocHost): only memory from acl; no context needed", ErrInvalidParam, LayerACL, Native, "memory.cpp:754-770, 805-814 (async: 859-868); api_impl.cc:3316-3327"},
		{"attr", "ptr neither in guest memory nor in a live allocation of this session: the pointer-attribute query fails", ErrRTParamInvalid, LayerACL, Driver, "memory.cpp:760-764 (the query's code comes from the driver)"},
	}
	memsetD32Range   = Step{"range", "ptr range not inside guest memory or one live allocation; a read-only registered range", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox)"}
	memsetD32Host    = Step{"host", "registered guest memory is set at call time, also by the async form", Success, LayerRange, Native, "api_impl_standard_soc.cc:401-402 (async: 431-432)"}
	memsetD32Feature = Step{"feature", "device memory on a backend without 32-bit memsets", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"}
)

// Order lists, for the memcpy family and the support functions, each check
// in native order with its native code.
var Order = []FuncOrder{
	{"aclrtMemcpy", []Step{
		memcpyACL[0], memcpyACL[1], memcpyACL[2],
		{"destMax", "destMax 0, or count above destMax", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2135-2139"},
		{"same", "dst == src succeeds without copying, before the device check", Success, LayerRange, Native, "api_error.cc:2144"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:2751"},
		{"range", "dst or src not inside guest memory or one live allocation of this session; dst in a read-only registered range", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox; natively the driver faults)"},
		{"peer", "device to device across devices without aclrtDeviceEnablePeerAccess", ErrRTParamInvalid, LayerExec, Driver, "(no runtime check; driver)"},
		{"bytes", "the call would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"direction", "the direction comes from the addresses; kind is not compared with them", Success, LayerExec, Native, "npu_driver_mem.cc:2150-2163"},
	}},
	{"aclrtMemcpyAsync", asyncCopy},
	{"aclrtMemcpyAsyncWithCondition", asyncCopy},
	{"aclrtMemcpyBatch", batchSteps(false, false)},
	{"aclrtMemcpyBatchAsync", batchSteps(true, false)},
	{"aclrtMemcpyBatchV2", batchSteps(false, true)},
	{"aclrtMemcpyBatchAsyncV2", batchSteps(true, true)},
	{"aclrtMemcpy2d", append(append([]Step(nil), memcpy2dACL...),
		limits2d,
		Step{"d2d", "kind DEVICE_TO_DEVICE", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:3022-3025"},
		Step{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_error.cc:3031, 2616"},
		range2d,
		Step{"kindloc", "kind corrected from the real locations is not H2D or D2H (an explicit kind that unregistered memory does not allow, device to device, host to host)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3037-3048"},
		Step{"bytes", "the call would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	)},
	{"aclrtMemcpy2dAsync", append(append([]Step(nil), memcpy2dACL...),
		Step{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1304"},
		Step{"nullstream", "NULL stream without a current device", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3062-3063"},
		limits2d,
		Step{"context", "no current device (explicit stream)", ErrRTContextNull, LayerContext, Native, "api_error.cc:2809-2810"},
		range2d,
		Step{"kindloc", "explicit kind not allowed for unregistered memory", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3071-3072, 2844-2845"},
		Step{"h2h", "corrected direction not H2D, D2H or D2D (host to host)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3075-3081"},
		Step{"peer", "device to device across devices without aclrtDeviceEnablePeerAccess", ErrRTParamInvalid, LayerExec, Driver, "(no runtime check; driver)"},
		Step{"bytes", "the call would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		Step{"pageable", "unregistered memory: waits for the stream, returns its pending error if it has one, else copies before returning", Success, LayerRange, Native, "api_error.cc:3091-3098"},
		Step{"streamctx", "stream of another device (queued path only)", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:2882-2883"},
		Step{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	)},
	{"aclrtGetMemcpyDescSize", []Step{
		{"null", "descSize NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "memory.cpp:1378-1381"},
		{"kind", "kind 8 or above", ErrInvalidParam, LayerACL, Native, "memory.cpp:1378-1381"},
		{"feature", "kind other than INNER_DEVICE_TO_DEVICE", ErrRTFeatureNotSupport, LayerEntry, Native, "api_c_memory.cc:347-358"},
		{"size", "writes the chip's descriptor size (Atlas A2: 32 bytes)", Success, LayerExec, Native, "config/910_B_93/dev_info_reg.cc:228"},
	}},
	{"aclrtSetMemcpyDesc", []Step{
		{"null", "desc, srcAddr or dstAddr NULL, count 0, config not NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:1391-1399"},
		{"kind", "kind 8 or above", ErrInvalidParam, LayerACL, Native, "memory.cpp:1391-1399"},
		{"feature", "kind other than INNER_DEVICE_TO_DEVICE", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:2468-2471"},
		{"count", "count above 4 GiB", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2479-2481"},
		{"align", "desc not 64-byte aligned", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2482-2484"},
		{"desc", "desc not device memory of this session (descriptor size bytes)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2488-2495"},
		{"addrs", "srcAddr or dstAddr not device memory of this session, or on two devices", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2496-2518"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (SetMemcpyDesc)"},
		{"bytes", "the copy it describes would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtMemcpyAsyncWithDesc", []Step{
		{"null", "desc NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:1411-1415"},
		{"kind", "kind 8 or above", ErrInvalidParam, LayerACL, Native, "memory.cpp:1411-1415"},
		{"nullstream", "stream NULL: descriptor copies need an explicit stream", ErrInvalidParam, LayerACL, Native, "memory.cpp:1411-1415"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_memory.cc:402"},
		{"feature", "kind other than INNER_DEVICE_TO_DEVICE", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:2528-2531"},
		{"desc", "desc not device memory of this session", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2538-2546"},
		{"align", "desc not 64-byte aligned", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2325-2328"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (MemcpyAsyncWithDesc)"},
		{"streamctx", "stream of another device", ErrRTStreamContext, LayerContext, Native, "api_impl.cc (MemcpyAsyncWithDesc)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"exec", "a descriptor never set, tampered with, or naming freed memory fails when it executes; the next synchronize returns it", ErrRTParamInvalid, LayerExec, Deviation, "(sandbox: descriptors are re-validated in stream order)"},
	}},
	{"aclrtMemcpyAsyncWithOffset", []Step{
		{"count0", "count 0 succeeds", Success, LayerACL, Native, "memory.cpp:1428"},
		{"kind", "kind other than INNER_DEVICE_TO_DEVICE (no NULL checks at the ACL layer)", ErrRTParamInvalid, LayerEntry, Native, "api_c_standard_soc.cc:965-967"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_standard_soc.cc:1067"},
		{"null", "dst or src NULL", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2181-2182"},
		{"limits", "count above destMax or 4 GiB, an offset above 2^48-1, dstDataOffset not below destMax, count above destMax - dstDataOffset", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2184-2195, 2585-2604"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (MemcpyAsyncWithOffset)"},
		{"slots", "dst or src slot not device memory of this session", ErrRTParamInvalid, LayerContext, Sandbox, "(sandbox)"},
		{"streamctx", "stream of another device", ErrRTStreamContext, LayerContext, Native, "api_impl.cc (MemcpyAsyncWithOffset)"},
		{"bytes", "the call would move more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtMemset", []Step{
		memset[0], memset[1],
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:3206"},
		{"maxCount", "count above maxCount", ErrRTParamInvalid, LayerExec, Driver, "npu_driver_mem.cc:772"},
		memsetRange,
		memsetBytes,
		memsetHost,
	}},
	{"aclrtMemsetAsync", []Step{
		memset[0], memset[1],
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:996"},
		{"maxCount", "count above maxCount", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3134-3136"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (MemsetAsync)"},
		memsetRange,
		memsetBytes,
		memsetHost,
		{"streamctx", "stream of another device (device memory)", ErrRTStreamContext, LayerContext, Native, "api_impl.cc (MemsetAsync)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},

	// Support functions.
	{"aclrtMalloc", []Step{
		{"null", "devPtr NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "memory.cpp:314-315"},
		{"size", "size 0", ErrInvalidParam, LayerACL, Native, "memory.cpp:314-315"},
		{"overflow", "size plus the 64 bytes of native padding overflows", ErrInvalidParam, LayerACL, Native, "memory.cpp:300-303"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (DevMalloc)"},
		{"count", "more allocations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"quota", "above the session's device memory quota, or the device is out of memory", ErrRTMemoryAllocation, LayerExec, Sandbox, "(sandbox; out of memory: driver)"},
	}},
	{"aclrtFree", []Step{
		{"null", "devPtr NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:570"},
		{"base", "not the base of a live device allocation of this session", ErrRTParamInvalid, LayerExec, Driver, "(driver)"},
	}},
	{"aclrtHostRegister", []Step{
		{"null", "ptr NULL, size 0, devPtr NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "memory.cpp:492-495"},
		{"type", "type bits outside IOMEMORY|READONLY (combinations are valid)", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:1997-2002"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:2560-2561"},
		{"range", "range not inside guest memory", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox)"},
		{"overlap", "range overlaps a registered one", ErrHostMemoryAlreadyRegistered, LayerExec, Driver, "(driver; the runtime checks only on the V2 path, api_impl.cc:2598)"},
		{"count", "more registrations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"quota", "above the session's pinned memory quota", ErrRTMemoryAllocation, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtHostUnregister", []Step{
		{"null", "ptr NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp (HostUnregister)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:2616-2617"},
		{"registered", "ptr does not start a registered range", ErrHostMemoryNotRegistered, LayerContext, Native, "api_impl.cc:2638-2640"},
	}},
	{"aclrtPointerGetAttributes", []Step{
		{"null", "ptr or attributes NULL (no current device needed)", ErrInvalidParam, LayerACL, Native, "memory.cpp:450-451"},
		{"range", "an address above guest memory that is not inside a live allocation", ErrRTParamInvalid, LayerExec, Driver, "api_impl.cc:3316-3327 (driver)"},
	}},
	{"aclrtGetMemInfo", []Step{
		{"null", "free or total NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:966-967"},
		{"attr", "attr not an aclrtMemAttr", ErrRTInvalidMemoryType, LayerRange, Native, "api_error.cc:3185-3188"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (MemGetInfo)"},
	}},
	{"aclrtSynchronizeStreamWithTimeout", []Step{
		{"timeout", "timeout below -1", ErrRTParamInvalid, LayerACL, Native, "stream.cpp:141-149"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:172"},
		{"zero", "timeout 0", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:1442-1444"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1706-1707"},
		{"otherctx", "a stream of another device or context is waited for in its own context", Success, LayerContext, Native, "api_impl.cc:1715-1727"},
		{"expire", "the queued work did not complete in time", ErrRTStreamSyncTimeout, LayerExec, Native, "api_impl.cc (StreamSynchronize)"},
	}},
	{"aclrtSynchronizeDeviceWithTimeout", []Step{
		{"timeout", "timeout below -1", ErrRTParamInvalid, LayerACL, Native, "device.cpp:173-174"},
		{"zero", "timeout 0", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3479-3481"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (DeviceSynchronize)"},
		{"expire", "the queued work did not complete in time", ErrRTStreamSyncTimeout, LayerExec, Native, "api_impl.cc (DeviceSynchronize)"},
	}},
	{"aclrtStreamWaitEvent", []Step{
		{"null", "event NULL", ErrInvalidParam, LayerACL, Native, "stream.cpp:232"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:127"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:128"},
		{"nowait", "an event of aclrtCreateEventExWithFlag without ACL_EVENT_SYNC (0x1) or 0x4, such as ACL_EVENT_TIME_LINE alone: it has no wait task", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:1414-1416 (event.hpp:133-136)"},
		{"context", "no current device (NULL stream)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1594-1595"},
		{"streamctx", "stream of another device", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:1609-1610"},
		{"newmode", "an event of the new mode (aclrtCreateEventExWithFlag) never recorded: success, nothing queued", Success, LayerExec, Native, "api_impl.cc:1674 -> event.cc:715-718 -> event.cc:596-601 (WaitSendCheck)"},
		{"unrecorded", "an event never recorded (aclrtCreateEvent and aclrtCreateEventWithFlag make events of the default mode); one reset after its record is waited for until its next record", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:1674 -> stream.cc:1753 -> event.cc:721-729"},
		{"done", "the event's latest record has completed and the event was not reset since: success, nothing queued (aclrtQueryEventWaitStatus reports COMPLETE)", Success, LayerExec, Native, "event.cc:607-613 (new mode), 624-631 (default mode: no wait task)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtRecordEvent", []Step{
		{"null", "event NULL", ErrInvalidParam, LayerACL, Native, "event.cpp:89"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:739"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:740"},
		{"context", "no current device (NULL stream)", ErrRTContextNull, LayerContext, Native, "api_impl.cc (EventRecord)"},
		{"streamctx", "stream of another device", ErrRTStreamContext, LayerContext, Native, "api_impl.cc (EventRecord)"},
	}},
	{"aclrtDeviceCanAccessPeer", []Step{
		{"same", "deviceId == peerDeviceId", ErrInvalidParam, LayerACL, Native, "memory.cpp:885-897"},
		{"null", "canAccessPeer NULL or outside guest memory", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3393-3394"},
		{"device", "deviceId or peerDeviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc (DeviceCanAccessPeer)"},
	}},
	{"aclrtDeviceDisablePeerAccess", []Step{
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "memory.cpp (aclrtDeviceDisablePeerAccessImpl: rtGetDevice first)"},
		{"self", "peerDeviceId is the current device", ErrInvalidParam, LayerACL, Native, "memory.cpp (aclrtDeviceDisablePeerAccessImpl)"},
		{"device", "peerDeviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "memory.cpp (aclrtDeviceDisablePeerAccessImpl: rtGetDevicePhyIdByIndex)"},
		{"enabled", "peer access between the two was not enabled by this session", ErrRTParamInvalid, LayerExec, Driver, "(driver: rtDisableP2P)"},
	}},
	{"aclrtSetDevice", []Step{
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerEntry, Native, "device.cpp (aclrtSetDeviceImpl: no ACL check, rtSetDevice)"},
	}},
	{"aclrtResetDevice", []Step{
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerEntry, Native, "device.cpp (aclrtResetDeviceImpl: no ACL check, rtDeviceReset)"},
		{"release", "waits for the session's queued work there, returns its first error, releases what the session holds there", Success, LayerExec, Native, "device.cpp (aclrtResetDeviceImpl)"},
	}},
	{"aclrtGetDevice", []Step{
		{"null", "deviceId NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp (aclrtGetDeviceImpl)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "device.cpp (aclrtGetDeviceImpl: rtGetDevice)"},
	}},
	{"aclrtGetDeviceCount", []Step{
		{"null", "count NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp (aclrtGetDeviceCountImpl)"},
	}},
	{"aclrtSynchronizeDevice", []Step{
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "device.cpp (aclrtSynchronizeDeviceImpl: rtDeviceSynchronize)"},
	}},
	{"aclrtCreateStream", []Step{
		{"null", "stream NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "stream.cpp (aclrtCreateStreamImpl)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "stream.cpp (aclrtCreateStreamImpl: rtStreamCreate)"},
		{"count", "more streams than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtDestroyStream", []Step{
		{"null", "stream NULL", ErrInvalidParam, LayerACL, Native, "stream.cpp (aclrtDestroyStreamImpl)"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:100"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1582-1583"},
		{"streamctx", "stream of another device or context; nothing is destroyed", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:1584-1585"},
	}},
	{"aclrtSynchronizeStream", []Step{
		{"stream", "stream handle unknown, destroyed, or an event (no ACL-layer check)", ErrRTInvalidHandle, LayerEntry, Native, "stream.cpp (aclrtSynchronizeStreamImpl: rtStreamSynchronize)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1706-1707"},
		{"otherctx", "a stream of another device or context is waited for in its own context", Success, LayerContext, Native, "api_impl.cc:1715-1727"},
	}},
	{"aclrtStreamQuery", []Step{
		{"null", "status NULL or outside guest memory, before the stream", ErrInvalidParam, LayerACL, Native, "stream.cpp (aclrtStreamQueryImpl)"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "stream.cpp (aclrtStreamQueryImpl: rtStreamQuery)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1770-1771"},
		{"otherctx", "a stream of another device or context is queried (no stream-context check)", Success, LayerContext, Native, "api_impl.cc:1767-1784"},
	}},
	{"aclrtCreateEvent", []Step{
		{"null", "event NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp (aclrtCreateEventImpl)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "event.cpp (aclrtCreateEventImpl: rtEventCreate)"},
		{"count", "more events than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtDestroyEvent", []Step{
		{"null", "event NULL", ErrInvalidParam, LayerACL, Native, "event.cpp (aclrtDestroyEventImpl)"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "event.cpp (aclrtDestroyEventImpl: rtEventDestroy)"},
	}},
	{"aclrtSynchronizeEvent", []Step{
		{"null", "event NULL", ErrInvalidParam, LayerACL, Native, "event.cpp (aclrtSynchronizeEventImpl)"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "event.cpp (aclrtSynchronizeEventImpl: rtEventSynchronize)"},
	}},
	{"aclrtQueryEventStatus", []Step{
		{"null", "event NULL, then status NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp (aclrtQueryEventStatusImpl)"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "event.cpp (aclrtQueryEventStatusImpl: rtEventQueryStatus)"},
		{"newmode", "an event of aclrtCreateEventExWithFlag never recorded reads ACL_EVENT_RECORDED_STATUS_COMPLETE (one of the default mode NOT_READY)", Success, LayerExec, Native, "api_impl.cc:2284-2296 -> event.cc:1193-1198"},
		{"reset", "aclrtResetEvent leaves the status of the latest record", Success, LayerExec, Native, "event.cc:764-795 (Reset keeps the latest record); event.cc:1199-1210"},
	}},
	{"aclrtEventElapsedTime", []Step{
		{"null", "ms, startEvent or endEvent NULL (ms outside guest memory too), before any handle", ErrInvalidParam, LayerACL, Native, "event.cpp (aclrtEventElapsedTimeImpl)"},
		{"event", "startEvent or endEvent unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "event.cpp (aclrtEventElapsedTimeImpl: rtEventElapsedTime)"},
		{"never", "startEvent or endEvent never recorded (every chip)", ErrRTInternal, LayerExec, Native, "event.cc:1249-1250, event_david.cc:376-377 (RT_ERROR_EVENT_RECORDER_NULL; errcode_manage.cc:197)"},
		{"timestamp", "an event whose record was cancelled: no valid timestamp (aclrtResetEvent keeps the earlier record's)", ErrRTEventTimestampInvalid, LayerExec, Native, "event.cc:1264-1269"},
	}},
	{"aclInit", []Step{
		{"repeat", "a second aclInit", ErrRepeatInitialize, LayerACL, Native, "acl.cpp (aclInitImpl)"},
		{"string", "configPath not a NUL-terminated string inside guest memory of at most 4096 bytes with its NUL", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
		{"file", "with Policy.RefuseInitConfig, a non-empty configuration path: the sandbox grants no filesystem", ErrInvalidFile, LayerACL, Sandbox, "(sandbox; natively the file is parsed)"},
		{"ignored", "by default a non-empty path succeeds and no file is opened; the trace and the plugin's log say the file was ignored", Success, LayerACL, Sandbox, "(sandbox; natively the file is parsed)"},
	}},
	{"aclFinalize", []Step{
		{"repeat", "a second aclFinalize", ErrRepeatFinalize, LayerACL, Native, "acl.cpp (aclFinalizeImpl)"},
	}},
	{"aclrtGetVersion", []Step{
		{"null", "major, minor or patch NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "acl.cpp (aclrtGetVersionImpl)"},
	}},
	{"aclrtDeviceEnablePeerAccess", []Step{
		{"flags", "flags not 0", ErrFeatureUnsupported, LayerACL, Native, "memory.cpp:910-913"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "memory.cpp:910-913 (the current device is read after the flags)"},
		{"self", "peerDeviceId is the current device", ErrInvalidParam, LayerACL, Native, "memory.cpp (EnablePeerAccess: peer against the current device)"},
		{"device", "peerDeviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc (EnableP2P)"},
	}},

	// ABI v1.1 section 10: 32-bit memsets, event reset, op timeouts, app
	// log. Native locations as above; api_impl_standard_soc.cc is
	// src/runtime/api/impl/, event.cc src/runtime/core/src/event/.
	{"aclrtMemsetD32", append(append([]Step(nil), memsetD32ACL...),
		Step{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl_standard_soc.cc:385"},
		memsetD32Range,
		memsetBytes,
		memsetD32Host,
		memsetD32Feature,
	)},
	{"aclrtMemsetD32Async", append(append([]Step(nil), memsetD32ACL...),
		Step{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_standard_soc.cc:998"},
		Step{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl_standard_soc.cc:415"},
		memsetD32Range,
		memsetBytes,
		memsetD32Host,
		Step{"streamctx", "stream of another device (device memory)", ErrRTStreamContext, LayerContext, Native, "api_impl_standard_soc.cc:438-440"},
		memsetD32Feature,
		Step{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	)},
	{"aclrtResetEvent", []Step{
		{"null", "event NULL", ErrInvalidParam, LayerACL, Native, "event.cpp (aclrtResetEventImpl)"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:773"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:774"},
		{"nowait", "an event of aclrtCreateEventExWithFlag without ACL_EVENT_SYNC (0x1) or 0x4: it has no wait task", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:1760-1762 (event.hpp:133-136)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:2202-2203"},
		{"newmode", "any other event of aclrtCreateEventExWithFlag (the runtime's new mode)", ErrRTFeatureNotSupport, LayerContext, Native, "api_impl.cc:2210-2215"},
		{"streamctx", "stream of another device", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:2216"},
		{"feature", "a backend that cannot reset events", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"keep", "the reset keeps the latest record's status and timestamp (aclrtQueryEventStatus, aclrtEventGetTimestamp, aclrtEventElapsedTime answer as before it); a wait queued after it waits for the next record", Success, LayerExec, Native, "event.cc:764-795 (sets HasReset only); event.cc:624-626"},
	}},
	{"aclrtSetOpWaitTimeout", []Step{
		{"feature", "a limit (not 0) on a backend that cannot bound event waits", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox; natively any value is taken: event.cpp aclrtSetOpWaitTimeoutImpl)"},
		{"expire", "a later aclrtStreamWaitEvent still waiting after the limit ends; its stream's next synchronize returns the error", ErrRTWaitTimeout, LayerExec, Driver, "(device: the wait task times out; the code is not audited)"},
	}},
	{"aclrtSetOpExecuteTimeOut", []Step{
		{"feature", "a backend that does not report an operator timeout interval", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox; natively any value is taken: aclrtSetOpExecuteTimeOutImpl)"},
	}},
	{"aclrtSetOpExecuteTimeOutV2", []Step{
		{"null", "actualTimeout NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:261"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:6294-6295"},
		{"feature", "a backend that does not report an operator timeout interval", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
		{"actual", "writes the timeout in effect: whole intervals, 1 to 254 of them, rounded up; 0 asks for 254", Success, LayerExec, Native, "(documented with aclrtGetOpTimeOutInterval)"},
	}},
	{"aclrtGetOpExecuteTimeout", []Step{
		{"null", "timeoutMs NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "(aclrtGetOpExecuteTimeoutImpl)"},
		{"feature", "never set, on a backend that does not report an operator timeout interval", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtGetOpTimeOutInterval", []Step{
		{"null", "interval NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:273"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:6277-6278"},
		{"feature", "a backend that does not report an operator timeout interval", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclAppLog", []Step{
		{"level", "level not ACL_DEBUG (0), ACL_INFO (1), ACL_WARNING (2) or ACL_ERROR (3); nothing is logged", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively aclAppLog returns nothing)"},
		{"strings", "func or file (may be NULL) not a NUL-terminated string inside guest memory of at most 4096 bytes with its NUL; nothing is logged", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
		{"msg", "msg NULL, or not such a string; nothing is logged", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
	}},
	// ABI v1.1 section 10: forced resets, contexts, the run mode, configured streams.
	{"aclrtResetDeviceForce", []Step{
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerEntry, Native, "device.cpp (aclrtResetDeviceForceImpl: no ACL check, rtDeviceResetForce)"},
		{"feature", "a backend that cannot cancel queued work", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"release", "cancels the session's queued work there (it never runs, its errors die with it), releases what the session holds there", Success, LayerExec, Native, "device.cpp (aclrtResetDeviceForceImpl)"},
	}},
	{"aclrtDestroyStreamForce", []Step{
		{"null", "stream NULL", ErrInvalidParam, LayerACL, Native, "stream.cpp (aclrtDestroyStreamForceImpl)"},
		{"stream", "stream handle unknown, destroyed, an event or a context", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:115"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_c_stream.cc:117 -> api_impl.cc:1582-1583"},
		{"streamctx", "stream of another device or context; nothing is cancelled or destroyed", ErrRTStreamContext, LayerContext, Native, "api_c_stream.cc:117 -> api_impl.cc:1584-1585"},
		{"feature", "a backend that cannot cancel queued work", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"cancel", "the work not yet started is cancelled: it never runs, moves no byte", Success, LayerExec, Native, "api_c_stream.cc (rtStreamDestroyForce: StreamDestroy(force))"},
	}},
	{"aclrtCreateContext", []Step{
		{"null", "context NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "context.cpp (aclrtCreateContextImpl)"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerEntry, Native, "context.cpp (aclrtCreateContextImpl: rtCtxCreateEx)"},
		{"count", "more contexts than the policy allows (MaxStreams: each has a default stream)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtDestroyContext", []Step{
		{"null", "context NULL", ErrInvalidParam, LayerACL, Native, "context.cpp (aclrtDestroyContextImpl)"},
		{"destroyed", "a context this session destroyed (handles are never reused)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4135-4139, context_manage.cc:182-195"},
		{"context", "context handle unknown, a stream or an event", ErrRTInvalidHandle, LayerEntry, Sandbox, "(sandbox: typed session handles, ABI section 4; natively an untracked context, 107002)"},
		{"default", "a device's primary context, the one aclrtSetDevice made (aclrtResetDevice releases it)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4140-4142"},
	}},
	{"aclrtSetCurrentContext", []Step{
		{"null", "context NULL", ErrInvalidParam, LayerACL, Native, "context.cpp (aclrtSetCurrentContextImpl)"},
		{"destroyed", "a context this session destroyed, by aclrtDestroyContext or aclrtResetDevice (handles are never reused)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:3646 (context_manage.cc:71-101)"},
		{"context", "context handle unknown, a stream or an event", ErrRTInvalidHandle, LayerEntry, Sandbox, "(sandbox: typed session handles, ABI section 4; natively not a valid context, 107000)"},
	}},
	{"aclrtGetCurrentContext", []Step{
		{"null", "context NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "context.cpp (aclrtGetCurrentContextImpl)"},
		{"context", "no current context (no aclrtSetDevice, aclrtCreateContext or aclrtSetCurrentContext)", ErrRTContextNull, LayerContext, Native, "context.cpp (aclrtGetCurrentContextImpl: rtCtxGetCurrent)"},
	}},
	{"aclrtGetRunMode", []Step{
		{"null", "runMode NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp (aclrtGetRunModeImpl)"},
		{"feature", "a backend that does not report its run mode", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
	}},
	{"aclrtCreateStreamWithConfig", []Step{
		{"null", "stream NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "stream.cpp (aclrtCreateStreamWithConfigImpl)"},
		{"drop", "flag bits other than the six ACL_STREAM_* flags are dropped and the priority is clamped, never refused", Success, LayerACL, Native, "stream.cpp (aclrtCreateStreamWithConfigImpl); api_error.cc (StreamCreate)"},
		{"flags", "ACL_STREAM_DEVICE_USE_ONLY combined with another flag", ErrRTParamInvalid, LayerRange, Native, "api_error.cc (CheckStreamFlags)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (StreamCreate)"},
		{"count", "more streams than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtSetStreamFailureMode", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check: NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc (rtStreamSetMode)"},
		{"nullctx", "NULL stream without a current context: no default stream to name", ErrRTParamInvalid, LayerRange, Native, "api_error.cc (StreamSetMode: GetCurStream)"},
		{"devuse", "a stream created with ACL_STREAM_DEVICE_USE_ONLY", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc (StreamSetMode)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (StreamSetMode)"},
		{"same", "only bit 0 of mode counts; the stream's mode again succeeds at once", Success, LayerContext, Native, "api_impl.cc (StreamSetMode)"},
		{"back", "ACL_STOP_ON_FAILURE back to ACL_CONTINUE_ON_FAILURE", ErrRTFeatureNotSupport, LayerContext, Native, "api_impl.cc (StreamSetMode)"},
		{"streamctx", "stream of another context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc (StreamSetMode)"},
		{"feature", "a backend without stream failure modes", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
	}},
	// Stream callbacks (ABI v1.2 section 12).
	{"aclrtLaunchHostFunc", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check: NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:4126 (rtsLaunchHostFunc); callback.cpp:174-181"},
		{"fn", "fn NULL", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:7517-7518"},
		{"subscribed", "a stream aclrtSubscribeReport bound to a thread", Error(107011), LayerRange, Native, "api_error.cc:7519-7524"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:9142-9143"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:9149-9150"},
		{"queued", "more queued operations on the stream, or callbacks launched and not yet run in the session, than the policy allows (MaxQueued, MaxCallbacks)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"badfn", "fn not a function of the guest's table, or not of type void(void*): the guest traps when the callback runs", Success, LayerExec, Sandbox, "(sandbox: call_indirect in the SDK's dispatcher)"},
	}},
	{"aclrtSubscribeReport", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:2175 (rtSubscribeReport)"},
		{"context", "NULL stream without a current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:5199-5201"},
		{"runtime", "a stream aclrtLaunchHostFunc used (bound to the runtime's callback thread)", Error(107011), LayerRange, Native, "api_error.cc:4702-4707"},
		{"explicitctx", "an explicit stream with no current context: the runtime makes the callback's event in the current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:5206-5207 -> api_impl.cc:2044-2045 (EventCreate)"},
		{"subscribed", "a stream already bound to a thread", Error(107011), LayerExec, Native, "subscribe.cc:72-77"},
		{"thread", "threadId already bound to a stream of another device", Error(107012), LayerExec, Native, "subscribe.cc:82-89 (RT_ERROR_SUBSCRIBE_THREAD; errcode_manage.cc:511)"},
	}},
	{"aclrtLaunchCallback", []Step{
		{"blockType", "blockType neither ACL_CALLBACK_NO_BLOCK nor ACL_CALLBACK_BLOCK", ErrInvalidParam, LayerACL, Native, "callback.cpp:163-166"},
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:2187 (rtCallbackLaunch)"},
		{"fn", "fn NULL", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:4714-4715"},
		{"runtime", "a stream aclrtLaunchHostFunc used", Error(107011), LayerRange, Native, "api_error.cc:4716-4720"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:5356-5357"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:5364-5365"},
		{"subscribed", "a stream bound to no thread (aclrtSubscribeReport)", Error(107015), LayerContext, Native, "api_impl.cc:5366-5372"},
		{"queued", "more queued operations on the stream, or callbacks launched and not yet run in the session, than the policy allows (MaxQueued, MaxCallbacks)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtProcessReport", []Step{
		{"timeout", "timeout below -1 or 0", ErrInvalidParam, LayerACL, Native, "callback.cpp:189-192"},
		{"thread", "no stream bound to the thread", Error(107012), LayerExec, Native, "api_impl.cc:5394-5397 (subscribe.cc:406-416)"},
		{"depth", "called from inside callbacks nested as deep as the policy allows (MaxCallbackDepth)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"expire", "no callback became due within the timeout", Error(507012), LayerExec, Native, "errcode_manage.cc:326 (RT_ERROR_REPORT_TIMEOUT)"},
	}},
	{"aclrtUnSubscribeReport", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:2209 (rtUnSubscribeReport)"},
		{"context", "NULL stream without a current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:5487-5488"},
		{"subscribed", "a stream bound to no thread", Error(107011), LayerExec, Native, "subscribe.cc:188-195"},
		{"thread", "a stream bound to another thread id", Error(107012), LayerExec, Native, "subscribe.cc:197-203"},
	}},

	// ABI v1.2 section 12: error state and resource queries. context.cpp,
	// device.cpp, event.cpp and stream.cpp are src/acl/aclrt_impl/;
	// api_c*.cc src/runtime/api/; api_error.cc and api_impl.cc
	// src/runtime/api/impl/.
	{"aclrtGetLastError", []Step{
		{"level", "level not ACL_RT_THREAD_LEVEL (0); the call sets no last error", ErrInvalidParam, LayerACL, Native, "context.cpp:183"},
		{"read", "returns the session's last runtime failure (0 if none) and clears it; failures of the ACL layer's own checks (1000xx) are not recorded, nor those UnrecordedSteps lists", Success, LayerExec, Native, "api_c.cc:4028-4037, api_impl.cc:7724-7737; recorded by GetRtExtErrCodeAndSetGlobalErr (api_c.h:31-37)"},
	}},
	{"aclrtPeekAtLastError", []Step{
		{"level", "level not ACL_RT_THREAD_LEVEL (0)", ErrInvalidParam, LayerACL, Native, "context.cpp:175"},
		{"read", "returns the session's last runtime failure (0 if none) and keeps it", Success, LayerExec, Native, "api_c.cc:4040-4049, api_impl.cc:7740-7753"},
	}},
	{"aclrtGetErrorVerbose", []Step{
		{"null", "errorInfo NULL, or the aclrtErrorInfo (2576 bytes; 1292 in acl32) not inside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:384"},
		{"feature", "a backend without aclrtGetErrorVerbose (natively, a chip without the feature)", ErrRTFeatureNotSupport, LayerEntry, Native, "api_c_device.cc:843-848"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc:7434-7447"},
		{"none", "no fault: ACL_RT_NO_ERROR, no detail, no repair; no current device needed (the sandbox reports no other session's device faults)", Success, LayerExec, Sandbox, "(sandbox; natively api_impl.cc:9045-9075 reads the device's fault)"},
	}},
	{"aclrtCtxGetCurrentDefaultStream", []Step{
		{"null", "stream NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "context.cpp:192"},
		{"context", "no current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:7698-7699"},
		{"handle", "writes NULL, the handle by which the guest names the current context's default stream", Success, LayerExec, Sandbox, "(sandbox: ABI section 2's NULL stream; natively the stream's own handle)"},
	}},
	{"aclrtGetResInCurrentThread", []Step{
		{"null", "value NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:495"},
		{"type", "type not an aclrtDevResLimitType (0 or 1)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6829-6832"},
		{"stream", "the stream aclrtUseStreamResInCurrentThread named has a limit of that type: that limit, with or without a current device", Success, LayerExec, Native, "api_impl.cc:8049-8054"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:8056-8059"},
		{"feature", "a backend that does not report its cores", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.DeviceResLimit)"},
	}},
	{"aclrtGetDeviceResLimit", []Step{
		{"null", "value NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:405"},
		{"negative", "deviceId negative", ErrRTInvalidDeviceID, LayerEntry, Native, "api_c_device.cc:199-202"},
		{"type", "type not an aclrtDevResLimitType (0 or 1)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6780-6782"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc:6785-6792"},
		{"unset", "a device the session has no context on (natively, never set in the process)", ErrRTDevSetup, LayerContext, Native, "api_impl.cc:7869-7870 (RT_ERROR_DEVICE_NULL; errcode_manage.cc:36)"},
		{"feature", "a backend that does not report its cores", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.DeviceResLimit)"},
	}},
	{"aclrtSetDeviceResLimit", []Step{
		{"negative", "deviceId negative (no ACL-layer check)", ErrRTInvalidDeviceID, LayerEntry, Native, "api_c_device.cc:171-174"},
		{"type", "type not an aclrtDevResLimitType (0 or 1)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6751-6753"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc:6755-6762"},
		{"unset", "a device the session has no context on (natively, never set in the process)", ErrRTDevSetup, LayerContext, Native, "api_impl.cc:7831-7832 (RT_ERROR_DEVICE_NULL; errcode_manage.cc:36)"},
		{"feature", "a backend that does not report its cores", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.DeviceResLimit)"},
		{"value", "value above the device's cores of that type; the limit binds the session's view only", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:7834-7842"},
	}},
	{"aclrtGetStreamAvailableNum", []Step{
		{"null", "streamCount NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "stream.cpp:307"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1907-1908"},
		{"policy", "writes MaxStreams minus the streams the session holds (natively what the device has left; the chip-feature check of api_c_stream.cc:690-693 does not apply)", Success, LayerExec, Sandbox, "(sandbox; natively api_impl.cc:1911)"},
	}},
	// ABI v1.2 section 12: notifies.
	{"aclrtCreateNotify", []Step{
		{"null", "notify NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "notify.cpp:29"},
		{"flag", "flag other than ACL_NOTIFY_DEFAULT (0) and ACL_NOTIFY_DEVICE_USE_ONLY (1)", ErrRTParamInvalid, LayerEntry, Native, "api_c_event.cc:122-125"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_c_event.cc:127-130 (rtGetDevice)"},
		{"feature", "a backend without notifies", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"count", "more notifies than the policy allows (Policy.MaxEvents, counted apart from events)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtDestroyNotify", []Step{
		{"null", "notify NULL", ErrInvalidParam, LayerACL, Native, "notify.cpp:41"},
		{"notify", "notify handle unknown, destroyed, a stream, an event or a context", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1951"},
		{"context", "no current context; nothing is destroyed", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4825-4826"},
	}},
	{"aclrtRecordNotify", []Step{
		{"null", "notify NULL", ErrInvalidParam, LayerACL, Native, "notify.cpp:52"},
		{"notify", "notify handle unknown, destroyed, a stream, an event or a context", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1977"},
		{"stream", "stream handle unknown, destroyed, an event, a context or a notify", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1978"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4835-4836"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:4844-4845"},
		{"feature", "a backend without notifies", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtWaitAndResetNotify", []Step{
		{"null", "notify NULL", ErrInvalidParam, LayerACL, Native, "notify.cpp:62"},
		{"notify", "notify handle unknown, destroyed, a stream, an event or a context", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1995 (UINT32_MAX), 2020"},
		{"stream", "stream handle unknown, destroyed, an event, a context or a notify", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1996 (UINT32_MAX), 2021"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4912-4913"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:4921-4922"},
		{"feature", "a backend without notifies", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"expire", "the notify not recorded within timeout ms (0: no limit; UINT32_MAX: the aclrtSetOpWaitTimeout limit); its stream's next synchronize returns the error", ErrRTWaitTimeout, LayerExec, Driver, "(device: the wait task times out; the code is not audited)"},
	}},
	{"aclrtGetNotifyId", []Step{
		{"null", "notify NULL, then notifyId NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "notify.cpp:74-75"},
		{"notify", "notify handle unknown, destroyed, a stream, an event or a context", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:2037"},
		{"context", "no current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4948-4949"},
	}},
	// ABI v1.2 section 12: event extras.
	{"aclrtSynchronizeEventWithTimeout", []Step{
		{"range", "timeout below -1", ErrRTParamInvalid, LayerACL, Native, "event.cpp:188-189"},
		{"null", "event NULL", ErrInvalidParam, LayerACL, Native, "event.cpp:190"},
		{"event", "event handle unknown, destroyed, a stream, a context or a notify", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:803"},
		{"zero", "timeout 0", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:1772-1774"},
		{"expire", "the event's most recent record not complete within timeout ms", ErrRTEventSyncTimeout, LayerExec, Native, "event.cpp:193-194"},
	}},
	{"aclrtCreateEventExWithFlag", []Step{
		{"null", "event NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:63"},
		{"solely", "ACL_EVENT_DEVICE_USE_ONLY (0x10), ACL_EVENT_EXTERNAL (0x20) or ACL_EVENT_IPC (0x40) combined with another flag", ErrRTParamInvalid, LayerRange, Native, "api_error.cc (EventCreateEx: solelyFlag)"},
		{"ipc", "ACL_EVENT_IPC alone: IPC is out of the sandbox's scope (natively 207000 on a chip without IPC events)", ErrRTFeatureNotSupport, LayerRange, Sandbox, "(sandbox; api_error.cc EventCreateEx: RT_FEATURE_IPC_EVENT)"},
		{"flag", "flag 0, or ACL_EVENT_DEVICE_USE_ONLY or ACL_EVENT_EXTERNAL alone, or above the known flags", ErrRTParamInvalid, LayerRange, Native, "api_error.cc (EventCreateEx: maxFlag)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc (EventCreateEx: CurrentContext)"},
		{"count", "more events than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtGetEventId", []Step{
		{"null", "event NULL, then eventId NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:359-360"},
		{"event", "event handle unknown, destroyed, a stream, a context or a notify", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:725"},
		{"never", "an event never recorded: its id is taken at its first record", ErrRTInternal, LayerExec, Native, "api_impl.cc:2197 -> event.cc:505-510 (RT_ERROR_EVENT_RECORDER_NULL; errcode_manage.cc:197)"},
	}},
	{"aclrtGetEventAvailNum", []Step{
		{"null", "eventCount NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:372"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1917-1918"},
	}},
	{"aclrtEventGetTimestamp", []Step{
		{"null", "timestamp NULL or outside guest memory, then event NULL", ErrInvalidParam, LayerACL, Native, "event.cpp:217-218"},
		{"event", "event handle unknown, destroyed, a stream, a context or a notify", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:866"},
		{"feature", "a backend without event timestamps", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"never", "an event never recorded", ErrRTInternal, LayerExec, Native, "event.cc:1296-1297 (RT_ERROR_EVENT_RECORDER_NULL)"},
		{"timestamp", "the most recent record not complete or cancelled (aclrtResetEvent keeps the earlier record's timestamp)", ErrRTEventTimestampInvalid, LayerExec, Native, "event.cc:1303-1304"},
	}},
	// ABI v1.2 section 12: event wait status.
	{"aclrtQueryEventWaitStatus", []Step{
		{"null", "event NULL, then status NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "event.cpp:160-161"},
		{"event", "event handle unknown, destroyed, a stream, a context or a notify", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:840"},
		{"newmode", "an event of aclrtCreateEventExWithFlag (the runtime's new mode)", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:1823-1825; api_c.cc:843"},
	}},

	// ABI v1.3 section 15: per-stream core limits (stream.go's family in
	// the sandbox). device.cpp is src/acl/aclrt_impl/; api_c_stream.cc
	// src/runtime/api/; api_error.cc and api_impl.cc src/runtime/api/impl/.
	{"aclrtGetStreamResLimit", []Step{
		{"null", "value NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:441"},
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:771"},
		{"type", "type not an aclrtDevResLimitType (0 or 1)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6809-6811"},
		{"context", "NULL stream without a current context (an explicit stream of any device or context is answered)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:8004-8005"},
		{"feature", "no limit set on the stream, and a backend that does not report its cores", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.DeviceResLimit)"},
		{"read", "the stream's own limit of that type if one was set, else the session's limit on the stream's device", Success, LayerExec, Native, "api_impl.cc:7983-7997"},
	}},
	{"aclrtSetStreamResLimit", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check; NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:749"},
		{"type", "type not an aclrtDevResLimitType (0 or 1)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6798-6800"},
		{"context", "NULL stream without a current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:7957-7958"},
		{"feature", "a backend that does not report its cores", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.DeviceResLimit)"},
		{"value", "value above the cores of that type the stream's device has (the session's device limit does not bound it, as natively)", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:7934-7943"},
	}},
	{"aclrtResetStreamResLimit", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check; NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:760"},
		{"context", "NULL stream without a current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:7971-7972"},
		{"reset", "the stream's limits are dropped: it answers with its device's again", Success, LayerExec, Native, "api_impl.cc:7975-7979"},
	}},
	{"aclrtUseStreamResInCurrentThread", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check; NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:782"},
		{"context", "NULL stream without a current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:8019-8020"},
		{"use", "aclrtGetResInCurrentThread answers with the stream's limits where it has them (the guest has one thread; another Use replaces it)", Success, LayerExec, Native, "api_impl.cc:8024"},
	}},
	{"aclrtUnuseStreamResInCurrentThread", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check; NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:793"},
		{"context", "NULL stream without a current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:8032-8033"},
		{"other", "a stream other than the one in use succeeds and changes nothing", Success, LayerExec, Native, "api_impl.cc:8039-8044"},
	}},
	// ABI v1.3 section 15: configured streams and the stream getters. The
	// full runtime has no aclrtCreateStreamV2: the lite ACL library
	// (src/acl/aclrt_c) and its compact runtime (src/runtime_compact) do.
	{"aclrtCreateStreamV2", []Step{
		{"null", "stream NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "src/acl/aclrt_c/runtime/stream.c:132-135"},
		{"handle", "handle not NULL and its aclrtStreamConfigHandle (32 bytes; 16 in acl32) not inside guest memory (NULL: priority 0, no flag)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively read at src/acl/aclrt_c/runtime/stream.c:139-144)"},
		{"flags", "the handle's flag with ACL_STREAM_DEVICE_USE_ONLY and another flag; bits other than the six ACL_STREAM_* flags are dropped, the priority is clamped to [0, 7], the work area is unused (no model runs in the sandbox)", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox: as aclrtCreateStreamWithConfig, api_error.cc:1326-1352; the compact runtime keeps the priority and work area only, src/runtime_compact/feature/src/stream.c:74-77)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "src/runtime_compact/feature/src/stream.c:112-116"},
		{"count", "more streams than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtStreamGetPriority", []Step{
		{"null", "priority NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "stream.cpp:188"},
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:219"},
		{"context", "no current context, for any stream", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1821-1822"},
		{"read", "the priority the stream was created with, clamped to [0, 7]; 0 for a default stream and aclrtCreateStream's", Success, LayerExec, Native, "api_impl.cc:1824-1830"},
	}},
	{"aclrtStreamGetFlags", []Step{
		{"null", "flags NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "stream.cpp:201"},
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:230"},
		{"context", "no current context, for any stream", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1836-1837"},
		{"read", "the ACL_STREAM_* flags the stream was created with (the six the ACL layer passes on); 0 for a default stream and aclrtCreateStream's", Success, LayerExec, Native, "stream.cpp:204-225"},
	}},
	{"aclrtStreamGetId", []Step{
		{"null", "streamId NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "stream.cpp:298"},
		{"stream", "stream handle unknown, destroyed, an event or a context (NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:208"},
		{"context", "NULL stream without a current context (an explicit stream needs none)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1789-1791"},
		{"id", "the stream's handle number, unique in the session; a default stream's is its context's handle number (natively the device's stream id, which would tell of other sessions' streams)", Success, LayerExec, Sandbox, "(sandbox; natively api_impl.cc:1796)"},
	}},
	// ABI v1.3 section 15: stopping and aborting a stream's work, stream
	// state callbacks. callback.cpp and stream.cpp are src/acl/aclrt_impl/;
	// context.cc src/runtime/core/src/context/.
	{"aclrtStreamStop", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check)", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:4183"},
		{"null", "stream NULL (the default stream is not stopped)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6595-6596"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:7580-7581"},
		{"feature", "a backend that cannot cancel queued work (natively a chip or TS firmware without stream clearing)", ErrRTFeatureNotSupport, LayerContext, Native, "api_impl.cc:7583-7592 (sandbox: acl.Backend.Supports(\"aclrtDestroyStreamForce\"))"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:7594-7595"},
		{"cancel", "the stream's queued work that has not started is cancelled, as aclrtDestroyStreamForce cancels it, the running operation is waited for, and the stream takes new work", Success, LayerExec, Native, "context.cc:2741-2776"},
	}},
	{"aclrtStreamAbort", []Step{
		{"stream", "stream handle unknown, destroyed, an event or a context (no ACL-layer check; NULL is the default stream)", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:648"},
		{"null", "NULL stream without a current context: no default stream to name", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6602-6603"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:7605-7606"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:7607-7608"},
		{"feature", "a backend that cannot cancel queued work (natively TS firmware without stream abort)", ErrRTFeatureNotSupport, LayerExec, Native, "context.cc:2792-2793 (sandbox: acl.Backend.Supports(\"aclrtDestroyStreamForce\"))"},
		{"cancel", "the stream's queued work that has not started is cancelled, as aclrtDestroyStreamForce cancels it, the running operation is waited for, and the stream takes new work", Success, LayerExec, Native, "context.cc:2781-2830"},
	}},
	{"aclrtRegStreamStateCallback", []Step{
		{"null", "regName NULL, or not a NUL-terminated string inside guest memory", ErrInvalidParam, LayerACL, Native, "callback.cpp:218"},
		{"unregister", "callback NULL unregisters the name, registered or not", Success, LayerExec, Native, "stream_state_callback_manager.cc:26-30"},
		{"callback", "a callback: the sandbox cannot call it (the guest's dispatcher export runs void(void *) functions only), so nothing is registered", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox; natively stream_state_callback_manager.cc:32-43 registers it)"},
	}},
	// ABI v1.3 section 15: device and product queries. acl.cpp is
	// src/acl/aclrt_impl/, cann_info_utils.cpp src/acl/utils/.
	{"aclGetCannAttribute", []Step{
		{"null", "value NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "acl.cpp:1345"},
		{"attr", "cannAttr not ACL_CANN_ATTR_INF_NAN (0), BF16 (1) or JIT_COMPILE (2)", ErrInvalidParam, LayerACL, Native, "cann_info_utils.cpp:111-115"},
		{"feature", "a backend without aclGetCannAttribute", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"value", "writes 1 or 0: the simulator's chips have INF_NAN and BF16 and no JIT compiler; the native backend's library answers", Success, LayerExec, Native, "cann_info_utils.cpp:116"},
	}},
	{"aclrtCheckArchCompatibility", []Step{
		{"null", "socVersion NULL or not a string in guest memory, then canCompatible NULL or outside guest memory (no ACL-layer check)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:5052-5055"},
		{"empty", "socVersion the empty string", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:5056-5059"},
		{"feature", "a backend without aclrtCheckArchCompatibility", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"soc", "socVersion not a SoC of the platform description", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:6249-6253"},
		{"value", "writes 1 when the SoC has the device's NPU architecture, else 0; no current device needed", Success, LayerExec, Native, "api_impl.cc:6263-6269"},
	}},
	{"aclrtGetDeviceCapability", []Step{
		{"null", "value NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:326"},
		{"type", "devFeatureType negative or at least 20002 (RT_DEV_FEATURE_MAX)", ErrRTParamInvalid, LayerEntry, Native, "api_c_device.cc:517-519"},
		{"unknown", "devFeatureType in range but not a feature the runtime knows", ErrRTParamInvalid, LayerEntry, Native, "api_c_device.cc:550-555"},
		{"internal", "devFeatureType 10001 or 20001, the runtime's own features (AI CPU scheduling, task id width), which aclrtDevFeatureType does not list", ErrRTParamInvalid, LayerEntry, Sandbox, "(sandbox; natively api_c_device.cc:542-549 answers them)"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc:4905-4914"},
		{"feature", "a backend without aclrtGetDeviceCapability", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"value", "writes 1 (supported) or 0; no current device needed (the runtime checks the context only when the configuration names a default device)", Success, LayerExec, Native, "api_c_device.cc:521-541; api_impl.cc:5893-5895"},
	}},
	{"aclrtGetDeviceInfo", []Step{
		{"null", "value NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:303"},
		{"device", "deviceId not a device of this session (107000 here, not 107001)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:7914-7917, 7925-7928"},
		{"attr", "attr not an aclrtDevAttr", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:9992-10004"},
		{"identity", "an attribute that locates the machine (SMP, physical chip, super pod, mainboard ids): the session's own view, the guest device id for the chip and 0 for the others", Success, LayerExec, Sandbox, "(sandbox; natively the driver's ids, api_impl.cc:10011-10024)"},
		{"memory", "ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: the session's device-memory quota, as aclrtGetMemInfo's total", Success, LayerExec, Sandbox, "(sandbox; natively the device's memory, api_impl.cc:9980-9982)"},
		{"feature", "a backend without aclrtGetDeviceInfo", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
	}},
	{"aclrtQueryDeviceStatus", []Step{
		{"null", "deviceStatus NULL or outside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:274"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc:6527-6535"},
		{"feature", "a backend without aclrtQueryDeviceStatus", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"value", "writes the device's aclrtDeviceStatus (the simulator's devices are NORMAL); no current device needed", Success, LayerExec, Native, "api_impl.cc:7501-7504"},
	}},
	{"aclrtGetDeviceUtilizationRate", []Step{
		{"null", "utilizationInfo NULL, or its 20 bytes not inside guest memory", ErrInvalidParam, LayerACL, Native, "device.cpp:206"},
		{"extend", "utilizationInfo->utilizationExtend not NULL", ErrInvalidParam, LayerACL, Native, "device.cpp:209-211"},
		{"value", "writes -1 (not measured) for cube, vector, AI CPU and memory, for any deviceId: a device's load is other sessions' business (natively a failed query writes -1 too, and memory is always -1)", Success, LayerExec, Sandbox, "(sandbox; natively device.cpp:212-216, 28-45)"},
	}},
	{"aclrtDeviceGetStreamPriorityRange", []Step{
		{"range", "a pointer that is not NULL and not inside guest memory", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively the runtime writes through it)"},
		{"value", "writes 7 (least) and 0 (greatest) through the pointers that are not NULL; both NULL succeeds", Success, LayerExec, Native, "api_error.cc:3555-3561; api_impl.cc:3828-3838"},
	}},
	{"aclrtResetDeviceResLimit", []Step{
		{"negative", "deviceId negative (no ACL-layer check)", ErrRTInvalidDeviceID, LayerEntry, Native, "api_c_device.cc:185-188"},
		{"device", "deviceId not a device of this session", ErrRTInvalidDeviceID, LayerRange, Native, "api_error.cc:6767-6774"},
		{"unset", "a device the session has no context on (natively, never set in the process)", ErrRTDevSetup, LayerContext, Native, "api_impl.cc:7854-7855 (RT_ERROR_DEVICE_NULL; errcode_manage.cc:36)"},
		{"reset", "the session's core limits on the device are the device's counts again; other sessions' are untouched", Success, LayerExec, Native, "api_impl.cc:7856-7863"},
	}},
	// ABI v1.3 section 15: notify resets and timed event waits. notify.cpp
	// is src/acl/aclrt_impl/; api_c_standard_soc.cc src/runtime/api/.
	{"aclrtNotifyBatchReset", []Step{
		{"null", "notifies NULL", ErrInvalidParam, LayerACL, Native, "notify.cpp:87"},
		{"num", "num 0 (the runtime takes it as a uint32_t: 2^32 is 0 too)", ErrRTParamInvalid, LayerEntry, Native, "api_c_event.cc:163-165"},
		{"range", "the num handles (4 bytes each) not inside guest memory", ErrInvalidParam, LayerEntry, Sandbox, "(sandbox)"},
		{"feature", "a backend without aclrtNotifyBatchReset, or whose TS firmware refused it (natively 207000 from a chip without notify resets, or a firmware without MC2_ENHANCE)", ErrRTFeatureNotSupport, LayerEntry, Sandbox, "(sandbox: acl.Backend.Supports; natively api_c_standard_soc.cc:1960-1966, api_impl.cc:4874-4878)"},
		{"notify", "notifies[0] unknown, destroyed, a stream, an event or a context", ErrRTInvalidHandle, LayerEntry, Native, "api_c_standard_soc.cc:1961"},
		{"nullentry", "an entry NULL (the first before the context check, a later one after it)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:4398"},
		{"context", "no current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:4858-4859"},
		{"later", "a later entry unknown or destroyed: no notify is reset (natively the entries before it are)", ErrRTInvalidHandle, LayerEntry, Deviation, "(deviation: api_c_event.cc:170-175 resets them in turn)"},
		{"stream", "the current context's default stream holds work that failed: its error, and no notify is reset", ErrRTParamInvalid, LayerExec, Deviation, "(deviation: natively the reset task runs, then notify.cc:246-249 returns the stream's error)"},
		{"reset", "each notify cleared once the default stream has run what it holds: a record that ran before no longer releases a later wait", Success, LayerExec, Native, "api_impl.cc:4880-4881 -> notify.cc:227-250"},
	}},
	{"aclrtStreamWaitEventWithTimeout", []Step{
		{"timeout", "timeout negative", ErrRTParamInvalid, LayerACL, Native, "event.cpp:448"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:394"},
		{"event", "event handle unknown, destroyed, or a stream", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:395"},
		{"null", "event NULL (the handle check lets it through)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:1400"},
		{"nowait", "an event of aclrtCreateEventExWithFlag without a wait task", ErrRTFeatureNotSupport, LayerRange, Native, "api_error.cc:1414-1416; api_c_stream.cc:410"},
		{"context", "no current device (NULL stream)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1594-1595"},
		{"streamctx", "stream of another device", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:1609-1610"},
		{"newmode", "an event of the new mode never recorded: success, nothing queued", Success, LayerExec, Native, "api_impl.cc:1674 -> event.cc:715-718"},
		{"unrecorded", "an event of the default mode never recorded", ErrRTParamInvalid, LayerExec, Native, "api_impl.cc:1674 -> stream.cc:1753 -> event.cc:721-729"},
		{"done", "the event's latest record has completed and it was not reset since: success, nothing queued", Success, LayerExec, Native, "event.cc:607-613, 624-631"},
		{"feature", "timeout above 0 on a backend without timed event waits", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"expire", "the event not recorded within timeout ms (0: no limit, as the chips' CUSTOM wait timeouts pass 0 on); its stream's next synchronize returns the error", ErrRTWaitTimeout, LayerExec, Driver, "(device: the wait task times out; api_c_stream.cc:403-404 passes timeout on)"},
	}},

	// ABI v1.3 section 15: reduce and random.
	{"aclrtReduceAsync", []Step{
		{"dst", "dst NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:1470"},
		{"src", "src NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:1471"},
		{"reserve", "reserve not NULL", ErrInvalidParam, LayerACL, Native, "memory.cpp:1472-1473"},
		{"type", "a data type outside the ACL layer's reduce map (float, float16, int16, int4, int8, int32, bfloat16, uint8, uint16, uint32)", ErrInvalidParam, LayerACL, Native, "memory.cpp:1475-1485 (map: memory.cpp:43-48)"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_standard_soc.cc:423"},
		{"count0", "count 0", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2897"},
		{"kind", "kind outside [SUM, EQUAL] (10 to 13)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2898-2901"},
		{"sum4g", "SUM of more than 4 GiB", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:2902-2907"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:3157-3158"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:3165-3166"},
		{"equal", "EQUAL: only STARS chips compare, and the simulated chip is not one; natively the chip's reduce capabilities decide", ErrRTFeatureNotSupport, LayerExec, Driver, "memory_stars.cc:51-57 (the capability checks: memory_stars.cc:38-75)"},
		{"range", "dst or src not inside one live device allocation of the session (device memory only: a reduce is a device-to-device copy); dst in a read-only lease", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox)"},
		{"align", "src, then dst, not aligned to 2 bytes (16-bit types) or 4 bytes (32-bit types)", ErrRTAddrUnaligned, LayerExec, Native, "memory_stars.cc:104-107 (context.cc:1555-1565)"},
		{"bytes", "the call would combine more bytes than the policy allows (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"feature", "a backend that can neither compute nor reduce natively (a library without aclrtReduceAsync)", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox: acl.Backend.Supports)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtRandomNumAsync", []Step{
		{"taskInfo", "taskInfo NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:659"},
		{"type", "a data type outside the ACL layer's random map (int32, int64, uint32, uint64, bfloat16, float16, float)", ErrInvalidParam, LayerACL, Native, "kernel.cpp:660-671 (map: kernel.cpp:26-31)"},
		{"writeback", "the runtime's own code for the type is written over taskInfo->dataType, whatever follows", Success, LayerACL, Native, "kernel.cpp:672-673"},
		{"feature", "a backend that cannot generate random numbers (a library without aclrtRandomNumAsync; natively a chip without the random generator task)", ErrRTFeatureNotSupport, LayerEntry, Sandbox, "(sandbox: acl.Backend.Supports; natively api_c_kernel.cc:207-209)"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:213"},
		{"reserve", "reserve not NULL", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:7117-7118"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:8385-8386"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:8390-8391"},
		{"func", "funcType outside [DROPOUT_BITMASK, TRUNCATED_NORMAL_DIS]", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:398-401 (context.cc:2537)"},
		{"functype", "a type the distribution does not produce (only uniform produces the integer types)", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:411-414 (table: random_num_task.cc:58-69)"},
		{"counter", "randomCounterAddr NULL", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:434-436"},
		{"result", "randomResultAddr NULL", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:437-439"},
		{"seed", "randomSeed: isAddr neither 0 nor 1, or size outside [1, 8]", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:443 (random_num_task.cc:86-95)"},
		{"num", "randomNum: isAddr neither 0 nor 1, or size outside [1, 8]", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:448 (random_num_task.cc:86-95)"},
		{"params", "the distribution's parameters in order (dropoutRation; min, max; mean, stddev): isAddr neither 0 nor 1, or size outside [1, the type's size] (8 for an address)", ErrRTParamInvalid, LayerContext, Native, "random_num_task.cc:452-470 (random_num_task.cc:99-156)"},
		{"addr", "a parameter, the seed or the count given by address (isAddr 1): the sandbox takes values only", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
		{"range", "the result (randomNum elements, or bits for a dropout bitmask), the 16 bytes at randomParaAddr (when not NULL) or the 16 bytes at randomCounterAddr not inside one live device allocation of the session; a read-only lease for the first two", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox)"},
		{"bytes", "the result is more bytes than the policy allows one call (MaxCallBytes)", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},

	// ABI v1.3 section 13.3: the runtime's kernel API (kernel.cpp of the
	// ACL layer, api_c_kernel.cc and api_c.cc of the runtime's entry,
	// api_error.cc and api_impl.cc behind it, binary_loader.cc for files).
	{"aclrtBinaryLoadFromFile", []Step{
		{"binPath", "binPath NULL, or not a string inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:142"},
		{"binHandle", "binHandle NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:143"},
		{"options", "options not NULL with options->options NULL; an option other than a lazy-load flag of 0 or 1 (a magic: none when loading from a file; an AI CPU mode: no kernel the host registered; an unknown type)", ErrRTParamInvalid, LayerRange, Native, "binary_loader.cc:105-161 (BinaryLoader::Load parses options first: binary_loader.cc:521)"},
		{"file", "binPath names no binary of a kernel granted to the plugin (natively: no such file); nothing is opened", ErrRTParamInvalid, LayerRange, Native, "binary_loader.cc:223-228"},
		{"limit", "the session holds as many kernel API objects as the sandbox allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtBinaryLoadFromData", []Step{
		{"data", "data NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:412"},
		{"binHandle", "binHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:413"},
		{"guest code", "always: it would load device code the guest supplies", ErrRTFeatureNotSupport, LayerEntry, Sandbox, "(sandbox; natively rtsBinaryLoadFromData, api_c_kernel.cc:399)"},
	}},
	{"aclrtBinaryGetFunction", []Step{
		{"binHandle", "binHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:97"},
		{"kernelName", "kernelName NULL, or not a string inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:98"},
		{"funcHandle", "funcHandle NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:99"},
		{"handle", "binHandle unknown, unloaded or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:421"},
		{"name", "no kernel of that name in the binary", ErrRTParamInvalid, LayerRange, Native, "api_impl.cc:991-996"},
		{"limit", "the session holds as many kernel API objects as the sandbox allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtBinaryGetFunctionByEntry", []Step{
		{"binHandle", "binHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:172"},
		{"funcHandle", "funcHandle NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:173"},
		{"handle", "binHandle unknown, unloaded or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:435"},
		{"name", "no kernel of the binary declares funcEntry as its entry", ErrRTParamInvalid, LayerRange, Native, "api_impl.cc:1012-1016"},
		{"limit", "the session holds as many kernel API objects as the sandbox allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtKernelArgsInit", []Step{
		{"funcHandle", "funcHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:285"},
		{"argsHandle", "argsHandle NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:286"},
		{"handle", "funcHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:249"},
		{"limit", "the session holds as many kernel API objects as the sandbox allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtKernelArgsAppend", []Step{
		{"argsHandle", "argsHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:332"},
		{"param", "param NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:333"},
		{"paramSize", "paramSize 0", ErrInvalidParam, LayerACL, Native, "kernel.cpp:334"},
		{"paramHandle", "paramHandle NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:335"},
		{"handle", "argsHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:262"},
		{"final", "the argument list is finalized", ErrRTFeatureNotSupport, LayerRange, Native, "api_impl.cc:8704-8707"},
		{"count", "the list already holds 128 parameters", ErrRTParamInvalid, LayerRange, Native, "api_impl.cc:8716-8719 (MAX_PARAM_CNT: args_handle_allocator.hpp:20)"},
		{"size", "the parameter, at the next 8-byte aligned offset, ends past 64 KiB", ErrRTParamInvalid, LayerRange, Native, "api_impl.cc:8725-8734 (MAX_ARGS_BUFF_SIZE: args_handle_allocator.hpp:21)"},
		{"guest", "[param, +paramSize) not inside guest memory", ErrInvalidParam, LayerRange, Sandbox, "(sandbox; natively the copy at api_impl.cc:8743)"},
		{"limit", "the session holds as many kernel API objects as the sandbox allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtKernelArgsAppendPlaceHolder", []Step{
		{"argsHandle", "argsHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:345"},
		{"paramHandle", "paramHandle NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:346"},
		{"handle", "argsHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:276"},
		{"final", "the argument list is finalized", ErrRTFeatureNotSupport, LayerRange, Native, "api_impl.cc:8613-8616"},
		{"count", "the list already holds 128 parameters", ErrRTParamInvalid, LayerRange, Native, "api_impl.cc:8619-8622"},
		{"placeholder", "always: a placeholder's data would live in memory the host hands the guest", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtKernelArgsGetPlaceHolderBuffer", []Step{
		{"argsHandle", "argsHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:357"},
		{"paramHandle", "paramHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:358"},
		{"dataSize", "dataSize 0", ErrInvalidParam, LayerACL, Native, "kernel.cpp:359"},
		{"bufferAddr", "bufferAddr NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "kernel.cpp:360"},
		{"handle", "argsHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:291"},
		{"param", "paramHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:292"},
		{"placeholder", "the parameter is not a placeholder (none is: aclrtKernelArgsAppendPlaceHolder refuses them)", ErrRTParamInvalid, LayerRange, Native, "api_impl.cc:8660-8661"},
	}},
	{"aclrtKernelArgsFinalize", []Step{
		{"argsHandle", "argsHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:383"},
		{"handle", "argsHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:377"},
	}},
	{"aclrtLaunchKernelWithConfig", []Step{
		{"funcHandle", "funcHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:230"},
		{"numBlocks", "numBlocks 0", ErrInvalidParam, LayerACL, Native, "kernel.cpp:231"},
		{"argsHandle", "argsHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:232"},
		{"reserve", "reserve not NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:233-234"},
		{"func", "funcHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:125"},
		{"args", "argsHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:126"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_kernel.cc:128"},
		{"final", "the argument list is not finalized", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:276-279 (CheckNonArgsHandle, from api_error.cc:1053)"},
		{"cfg", "cfg not NULL with cfg->attrs NULL; schemMode outside [0, 2); a prefetch, dump or profiling value outside [0, 1]; both timeout attributes", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:967-1033 (CheckKernelLaunchCfg, from api_error.cc:1056)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1307-1308"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:1315-1316"},
		{"argc", "the argument list holds another count of arguments than the kernel declares", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox: the declaration is the host's promise; natively the device reads what it is given)"},
		{"argsize", "an argument's size differs from its declared parameter's (a device address: 8 bytes wide, 4 in acl32; a scalar: its type's size)", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox)"},
		{"feature", "a backend that does not run registered kernels (the native backend, for now)", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
		{"blockdim", "numBlocks above the session's core limit (aclrtGetDeviceResLimit)", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox: ABI section 13.3)"},
		{"extent", "a buffer's declared extent cannot be evaluated (a negative scalar, a division by zero) or overflows", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox)"},
		{"null", "a buffer argument NULL with a nonzero extent", ErrInvalidParam, LayerExec, Sandbox, "(sandbox)"},
		{"align", "a buffer not aligned to its element size", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox)"},
		{"range", "a buffer's extent not inside one live device allocation of the session (freed, foreign, forged, guest memory, one byte past the end); a written buffer in a read-only lease", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox: ABI section 13.1)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtLaunchKernel", []Step{
		{"funcHandle", "funcHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:118"},
		{"argsData", "argsData NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:119"},
		{"func", "funcHandle unknown, of an unloaded binary or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:3398"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:3399"},
		{"numBlocks", "numBlocks 0", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:940"},
		{"argsSize", "argsSize 0", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:226 (CheckArgs, from api_error.cc:941)"},
		{"argsize", "argsSize other than the declaration's packing (each parameter at an 8-byte aligned offset, a device address of the profile's width)", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox)"},
		{"argsrange", "[argsData, +argsSize) not inside one live device allocation of the session (natively device memory: isNoNeedH2DCopy, kernel.cpp:124)", ErrRTParamInvalid, LayerRange, Sandbox, "(sandbox)"},
		{"context", "no current device", ErrRTContextNull, LayerContext, Native, "api_impl.cc:1391"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:1398-1399"},
		{"feature", "a backend that does not run registered kernels (the native backend, for now)", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
		{"blockdim", "numBlocks above the session's core limit (aclrtGetDeviceResLimit)", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox: ABI section 13.3)"},
		{"range", "a buffer argument's declared extent not inside one live device allocation of the session; a written buffer in a read-only lease", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox: ABI section 13.1)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtBinaryUnLoad", []Step{
		{"binHandle", "binHandle NULL", ErrInvalidParam, LayerACL, Native, "kernel.cpp:86"},
		{"handle", "binHandle unknown, already unloaded or of another kind", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:3345"},
	}},

	// ABI v1.3 section 13.4: models (model.go's family). The native
	// locations are in hicann/ge (commit ffdcbc9): acl_model_router.cpp,
	// model.cpp, model_om2.cpp and model_common.cpp are
	// api/acl/acl_model/model/; om2_model_executor.cc is runtime/om2/;
	// model_parser_base.cc is base/common/helper/; model_manager.cc and
	// davinci_model.cc are runtime/v1/graph/load/model_manager/. Functions
	// that return a value instead of an aclError (the counts, sizes, names,
	// types and formats, NULL handles) return the native failure value; the
	// step's code is the one the recent error message and the statistics
	// carry.
	{"aclmdlLoadFromFile", mdlLoadFile(false)},
	{"aclmdlLoadFromFileWithMem", mdlLoadFile(true)},
	{"aclmdlQuerySize", append(mdlPath("fileName"),
		Step{"null", "workSize or weightSize NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "ge model.cpp:1795-1796"},
		// Models (native QuerySize): the file is read as a load reads it.
		Step{"open", "the approved file cannot be opened (removed or made unreadable since the host approved it)", ErrGEModelPathInvalid, LayerExec, Native, "ge model_parser_base.cc:35-64 (LoadFromFile: RealPath, the length, the open)"},
		Step{"load", "the approved file is not a model the backend runs (an offline model .om on the simulator, an ONNX file .onnx on the native backend, or a file that does not parse)", ErrGEModelDataSizeInvalid, LayerExec, Native, "ge ge_executor.cc:1213-1234 (GetMemAndWeightSize), model_parser_base.cc:119-129 (an invalid om file)"},
	)},
	{"aclmdlLoadFromMem", mdlLoadMem(false)},
	{"aclmdlLoadFromMemWithMem", mdlLoadMem(true)},
	{"aclmdlUnload", []Step{
		{"id", "modelId not a model this session loaded (or already unloaded)", ErrGEModelIDInvalid, LayerExec, Native, "ge model_manager.cc:892-894"},
	}},
	{"aclmdlCreateDesc", []Step{
		{"handles", "the session has used up its handles (2^32-1 of every kind together): NULL", ErrRTOverLimit, LayerACL, Sandbox, "(sandbox; natively new of the struct, model_om2.cpp:710)"},
	}},
	{"aclmdlDestroyDesc", mdlObject("modelDesc", "model_om2.cpp:714")},
	{"aclmdlGetDesc", append(mdlObject("modelDesc", "model.cpp:937"),
		Step{"id", "modelId not a model this session loaded; the description is cleared first", ErrGEModelIDInvalid, LayerExec, Native, "ge model.cpp:938, 951-956"},
	)},
	{"aclmdlGetNumInputs", mdlValue("modelDesc", "model_om2.cpp:862-864", false)},
	{"aclmdlGetNumOutputs", mdlValue("modelDesc", "model_om2.cpp:870-872", false)},
	{"aclmdlGetInputSizeByIndex", mdlValue("modelDesc", "model_om2.cpp:878-881", true)},
	{"aclmdlGetOutputSizeByIndex", mdlValue("modelDesc", "model_om2.cpp:888-891", true)},
	{"aclmdlGetInputDims", mdlDims("model_om2.cpp:1557-1558")},
	{"aclmdlGetOutputDims", mdlDims("model_om2.cpp:1570-1571")},
	{"aclmdlGetInputNameByIndex", mdlName("model_om2.cpp:1696-1702")},
	{"aclmdlGetOutputNameByIndex", mdlName("model_om2.cpp:1708-1714")},
	{"aclmdlGetInputDataType", mdlValue("modelDesc", "model_om2.cpp:1744-1750, 572-581", true)},
	{"aclmdlGetOutputDataType", mdlValue("modelDesc", "model_om2.cpp:1756-1762, 572-581", true)},
	{"aclmdlGetInputFormat", mdlValue("modelDesc", "model_om2.cpp:1720-1726, 561-569", true)},
	{"aclmdlGetOutputFormat", mdlValue("modelDesc", "model_om2.cpp:1732-1738, 561-569", true)},
	{"aclmdlGetInputIndexByName", append(mdlObject("modelDesc", "model_om2.cpp:1768"),
		Step{"name", "name NULL, or not a NUL-terminated string in guest memory", ErrInvalidParam, LayerACL, Native, "ge model_om2.cpp:1769"},
		Step{"index", "index NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "ge model_om2.cpp:1770"},
		Step{"found", "no input of that name (an empty description has none)", ErrInvalidParam, LayerACL, Native, "ge model_om2.cpp:587-597"},
	)},
	{"aclmdlCreateDataset", []Step{
		{"handles", "the session has used up its handles: NULL", ErrRTOverLimit, LayerACL, Sandbox, "(sandbox; natively new of the struct, model_om2.cpp:907)"},
	}},
	{"aclmdlDestroyDataset", mdlObject("dataset", "model_om2.cpp:911")},
	{"aclmdlAddDatasetBuffer", append(mdlObject("dataset", "model_om2.cpp:920"),
		Step{"buffer", "dataBuffer NULL, or its aclDataBuffer not inside guest memory", ErrInvalidParam, LayerACL, Native, "ge model_om2.cpp:921"},
	)},
	{"aclmdlGetDatasetNumBuffers", mdlValue("dataset", "model_om2.cpp:928-934", false)},
	{"aclmdlGetDatasetBuffer", mdlValue("dataset", "model_om2.cpp:939-948", true)},
	{"aclmdlExecute", mdlExecute(false)},
	{"aclmdlExecuteAsync", mdlExecute(true)},

	// ABI v1.3 section 15: saturation mode and overflow status.
	{"aclrtSetDeviceSatMode", []Step{
		{"feature", "a mode in [SATURATION, INFNAN] the chip does not support (the 950 has INF/NAN mode only)", ErrRTFeatureNotSupport, LayerEntry, Native, "api_c.cc:3150-3159 (supportOverflowMode: config/950/dev_info_reg.cc:186)"},
		{"mode", "mode outside [SATURATION, INFNAN] (0 to 1)", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:5994-5997"},
	}},
	{"aclrtGetDeviceSatMode", []Step{
		{"null", "mode NULL", ErrInvalidParam, LayerACL, Native, "device.cpp:235"},
	}},
	{"aclrtSetStreamOverflowSwitch", []Step{
		{"flag", "flag neither 0 nor 1", ErrInvalidParam, LayerACL, Native, "stream.cpp:279"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:564"},
		{"context", "no current context (NULL names its default stream)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:6962-6963"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:6967-6968"},
	}},
	{"aclrtGetStreamOverflowSwitch", []Step{
		{"null", "flag NULL", ErrInvalidParam, LayerACL, Native, "stream.cpp:270"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c_stream.cc:575"},
		{"context", "no current context (NULL names its default stream)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:6974-6975"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:6978-6980"},
	}},
	{"aclrtGetOverflowStatus", []Step{
		{"null", "outputAddr NULL", ErrInvalidParam, LayerACL, Native, "device.cpp:255"},
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:3541"},
		{"size", "outputSize other than 64", ErrRTParamInvalid, LayerRange, Native, "api_error.cc:6197-6199 (OVERFLOW_OUTPUT_SIZE: task_base.hpp:49)"},
		{"context", "no current context (NULL names its default stream)", ErrRTContextNull, LayerContext, Native, "api_impl.cc:7104-7105"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:7113-7115"},
		{"range", "the 64 bytes at outputAddr not inside one live device allocation of the session (natively a device-to-device copy of the status), or in a read-only lease", ErrRTParamInvalid, LayerExec, Sandbox, "(sandbox; natively the copy of api_impl.cc:7121-7123)"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},
	{"aclrtResetOverflowStatus", []Step{
		{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:3566"},
		{"nostream", "NULL stream with no current context: the chips that clear the status per stream find no stream to clear it on", ErrRTParamInvalid, LayerRange, Native, "api_c.cc:3572-3573 -> api_error.cc:5148-5150 (runtime.cc:6019-6022)"},
		{"context", "an explicit stream with no current context", ErrRTContextNull, LayerContext, Native, "api_impl.cc:6061-6062"},
		{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Native, "api_impl.cc:6069-6070"},
		{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"},
	}},

	// The profiling markers of acl/acl_prof.h (ABI v1.3 section 15): the
	// profiler's own checks (hicann/runtime src/dfx/msprof/collector/dvvp:
	// msproftx_adaptor.cpp, msprof_tx_manager.cpp, prof_stamp_pool.cpp,
	// prof_tx_plugin.cpp), as a process whose profiler has the markers on.
	{"aclprofCreateStamp", []Step{
		{"pool", "the session already holds 100 stamps (NULL returned)", ErrProfFailed, LayerExec, Native, "prof_stamp_pool.cpp:98-101"},
	}},
	{"aclprofDestroyStamp", []Step{
		{"null", "stamp NULL (recorded; the function returns void)", ErrInvalidParam, LayerACL, Native, "msproftx_adaptor.cpp:49-52"},
		{"stamp", "stamp not one the session holds (as NULL)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
	}},
	{"aclprofSetStampTraceMessage", []Step{
		{"null", "stamp NULL", ErrProfFailed, LayerACL, Native, "msprof_tx_manager.cpp:183-189"},
		{"stamp", "stamp not one the session holds (as NULL)", ErrProfFailed, LayerACL, Sandbox, "(sandbox)"},
		{"len", "msgLen 128 or more", ErrProfFailed, LayerRange, Native, "msprof_tx_manager.cpp:191-198"},
		{"msg", "msg NULL (the copy fails)", ErrProfFailed, LayerExec, Native, "msprof_tx_manager.cpp:200-204"},
	}},
	{"aclprofMark", []Step{
		{"null", "stamp NULL", ErrProfFailed, LayerACL, Native, "msprof_tx_manager.cpp:217-222"},
		{"stamp", "stamp not one the session holds (as NULL)", ErrProfFailed, LayerACL, Sandbox, "(sandbox)"},
	}},
	{"aclprofMarkEx", []Step{
		{"null", "msg or stream NULL, or msgLen not strlen(msg)", ErrProfFailed, LayerACL, Native, "msprof_tx_manager.cpp:235-241"},
		{"len", "msgLen outside 1 to 127", ErrProfFailed, LayerRange, Native, "msprof_tx_manager.cpp:242-244"},
		{"stream", "stream not a live stream of the session (the profiler's stream task fails)", ErrProfFailed, LayerExec, Native, "msprof_tx_manager.cpp:254-256"},
	}},
	{"aclprofPush", []Step{
		{"null", "stamp NULL", ErrInvalidParam, LayerACL, Native, "msproftx_adaptor.cpp:122-124"},
		{"stamp", "stamp not one the session holds (as NULL)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
	}},
	{"aclprofPop", []Step{
		{"empty", "nothing pushed", ErrProfFailed, LayerExec, Native, "msprof_tx_manager.cpp:308-315 (prof_stamp_pool.cpp:161-164)"},
	}},
	{"aclprofRangeStart", []Step{
		{"null", "stamp NULL", ErrInvalidParam, LayerACL, Native, "msproftx_adaptor.cpp:146-148"},
		{"stamp", "stamp not one the session holds (as NULL)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
		{"rangeid", "rangeId NULL", ErrInvalidParam, LayerACL, Native, "msproftx_adaptor.cpp:149-151"},
	}},
	{"aclprofRangeStop", []Step{
		{"id", "no live stamp of that id was started", ErrProfFailed, LayerExec, Native, "msprof_tx_manager.cpp:362-369 (prof_stamp_pool.cpp:171-182)"},
	}},
	{"aclprofStr2Id", []Step{
		{"null", "message NULL or not a NUL-terminated string in guest memory (natively strlen(message) follows it)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively prof_acl_core.cpp:145)"},
		{"out", "the id's 8 bytes not inside guest memory (the wire's out-parameter; the C SDK returns the id)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
		{"empty", "message the empty string: id UINT64_MAX, no error recorded (natively only logged)", Success, LayerExec, Native, "prof_impl_inner_api.cpp:80-85"},
		{"hash", "the profiler's double hash of message: 32-bit hashes of step 29 (upper half) and 131, each byte a signed char as on x86_64", Success, LayerExec, Native, "hash_data.cpp:72-84 (msprofiler_adaptor.cpp:222-225, hash_data.cpp:115-128)"},
	}},
	{"aclprofRangePushEx", []Step{
		{"null", "attr NULL", ErrInvalidParam, LayerACL, Native, "prof_tx_plugin.cpp:169-172"},
		{"type", "attr's messageType not 0 (tensor information)", ErrProfFailed, LayerRange, Native, "prof_tx_plugin.cpp:173-176"},
	}},
	{"aclprofRangePop", []Step{
		{"none", "no aclprofRangePushEx before", ErrInvalidParam, LayerACL, Native, "prof_tx_plugin.cpp:184-187"},
	}},
}

// Step lists of the model family (ABI section 13.4).
var (
	// mdlPath is the check of an approved model's name: NULL in the
	// router, then the file the name resolves to.
	mdlPath = func(name string) []Step {
		return []Step{
			{"path", name + " NULL", ErrInvalidParam, LayerACL, Native, "ge acl_model_router.cpp:37-40"},
			{"string", name + " not a NUL-terminated string in guest memory", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
			{"name", name + " not the name of a model the host approved (no file the guest names is opened; natively a path that does not resolve)", ErrGEModelPathInvalid, LayerACL, Native, "ge om2_model_executor.cc:1714-1722"},
		}
	}
	mdlLoadFile = func(withMem bool) []Step {
		s := append(mdlPath("modelPath"),
			Step{"id", "modelId NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "ge model.cpp:1306 (WithMem: 1329)"})
		if withMem {
			s = append(s, Step{"mem", "workPtr or weightPtr neither NULL nor inside one live device allocation of the session (for workSize or weightSize bytes, at least 1)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively passed to the loader)"})
		}
		return append(s,
			Step{"feature", "a backend that runs no models (neither Go compute nor the native model API)", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
			Step{"open", "the approved file cannot be opened (removed or made unreadable since the host approved it)", ErrGEModelPathInvalid, LayerExec, Native, "ge model_parser_base.cc:35-64 (LoadFromFile: RealPath, the length, the open)"},
			Step{"load", "the approved file is not a model the backend runs (an offline model .om on the simulator, an ONNX file .onnx on the native backend, or a file that does not parse)", ErrGEModelDataSizeInvalid, LayerExec, Native, "ge model_parser_base.cc:119-129 (an invalid om file)"},
			// Models: a loaded model's device memory counts against the session's quota.
			Step{"memory", "the model's device memory (on the simulator its weights, unless the WithMem form gives a weightPtr; natively aclmdlQuerySize's work and weight sizes) exceeds the session's free device memory quota; natively the loader's allocation fails", ErrRTMemoryAllocation, LayerExec, Sandbox, "(sandbox; natively the loader's aclrtMalloc)"},
		)
	}
	mdlLoadMem = func(withMem bool) []Step {
		s := []Step{
			{"null", "model NULL or modelSize 0", ErrInvalidParam, LayerACL, Native, "ge acl_model_router.cpp:52-55"},
			{"id", "modelId NULL, or not inside guest memory", ErrInvalidParam, LayerACL, Native, "ge model.cpp:1352 (WithMem: 1560)"},
			{"policy", "the policy does not allow models from guest memory (AllowGuestModels; never on the native backend)", ErrRTFeatureNotSupport, LayerACL, Sandbox, "(sandbox)"},
			{"feature", "a backend that runs no models", ErrRTFeatureNotSupport, LayerExec, Sandbox, "(sandbox)"},
			{"range", "[model, model+modelSize) not inside guest memory", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
		}
		if withMem {
			s = append(s, Step{"mem", "workPtr or weightPtr neither NULL nor inside one live device allocation of the session", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively passed to the loader)"})
		}
		return append(s, Step{"parse", "the bytes are not a model the backend runs", ErrGEModelDataSizeInvalid, LayerExec, Native, "ge model_parser_base.cc:119-129 (an invalid om file)"})
	}
	// mdlObject is the check of a description or dataset parameter.
	mdlObject = func(name, native string) []Step {
		return []Step{
			{"null", name + " NULL", ErrInvalidParam, LayerACL, Native, "ge " + native},
			{"handle", name + " not one of the session's (unknown, destroyed, or a handle of another kind)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively a dangling pointer)"},
		}
	}
	// mdlValue is the checks of a function that returns a value: 0 (or
	// ACL_DT_UNDEFINED, ACL_FORMAT_UNDEFINED, NULL) on a failure.
	mdlValue = func(name, native string, index bool) []Step {
		s := mdlObject(name, native)
		s[0].Check += ": the native failure value"
		if index {
			s = append(s, Step{"index", "index past the inputs, outputs or buffers (an empty description has none): the native failure value", ErrInvalidParam, LayerACL, Native, "ge " + native})
		}
		return s
	}
	mdlDims = func(native string) []Step {
		return append(mdlObject("modelDesc", native),
			Step{"dims", "dims NULL", ErrInvalidParam, LayerACL, Native, "ge " + native},
			Step{"index", "index past the inputs or outputs (an empty description has none)", ErrInvalidParam, LayerACL, Native, "ge model_common.cpp:441-448"},
			Step{"range", "dims (an aclmdlIODims) not inside guest memory", ErrInvalidParam, LayerACL, Sandbox, "(sandbox)"},
		)
	}
	mdlName = func(native string) []Step {
		return append(mdlValue("modelDesc", native, true),
			Step{"range", "name not NULL, nameLen not 0, and [name, name+nameLen) not inside guest memory: length 0", ErrInvalidParam, LayerACL, Sandbox, "(sandbox: the ABI's form of the native const char * result)"},
		)
	}
	mdlExecute = func(async bool) []Step {
		s := []Step{
			{"null", "input or output NULL", ErrInvalidParam, LayerACL, Native, "ge model.cpp:718-719"},
			{"dataset", "input or output not a dataset of the session (unknown, destroyed, or a handle of another kind)", ErrInvalidParam, LayerACL, Sandbox, "(sandbox; natively a dangling pointer)"},
			{"id", "modelId not a model this session loaded (or unloaded)", ErrGEModelIDInvalid, LayerExec, Native, "ge model_manager.cc:1785-1786"},
			{"count", "a dataset holds another number of buffers than the model has inputs or outputs", ErrGEParamInvalid, LayerExec, Native, "ge davinci_model.cc:7098-7112"},
			{"small", "a data buffer more than 64 bytes smaller than the model's input or output (natively a device allocation has that much padding)", ErrGEFailure, LayerExec, Native, "ge davinci_model.cc:6587-6602 (GE_ASSERT_TRUE: FAILED, ACL_ERROR_GE_FAILURE)"},
			{"range", "a buffer's data NULL, or [data, data+the model's size) not inside one live device allocation of the session on the model's device; an output in a read-only lease", ErrInvalidParam, LayerExec, Sandbox, "(sandbox; natively a device fault, or for aclmdlExecute a NULL output allocated by the runtime)"},
		}
		if async {
			s = append(s, Step{"stream", "stream handle unknown, destroyed, or an event", ErrRTInvalidHandle, LayerEntry, Native, "api_c.cc:1710 (rtModelExecute)"})
		}
		s = append(s,
			Step{"context", "no current device", ErrRTContextNull, LayerContext, Sandbox, "(sandbox; natively the model's own context)"})
		if async {
			s = append(s, Step{"streamctx", "stream of another device or context", ErrRTStreamContext, LayerContext, Sandbox, "(sandbox; natively the model's own context)"})
		}
		// Models (native device checks): a model runs in the context it was loaded in.
		s = append(s, Step{"modelctx", "the model was loaded while another device was current", ErrRTModelContext, LayerContext, Native, "api_impl.cc:4413-4421 (ModelExecute: model not in current ctx, errcode_manage.cc:178)"})
		s = append(s, Step{"queue", "more queued operations than the policy allows", ErrRTOverLimit, LayerExec, Sandbox, "(sandbox)"})
		if !async {
			s = append(s, Step{"fails", "the model fails as it runs (the ONNX runtime's error): the call returns it; nothing is written", ErrRTModelExecute, LayerExec, Driver, "(device: the model's task fails; model_ri.cpp aclmdlRIExecute)"})
		}
		return s
	}
)

// UnrecordedSteps lists, by function and step, the failures whose code is
// of the runtime family (x07xxx) that natively leave the thread's last
// error unchanged (aclrtGetLastError, aclrtPeekAtLastError): the runtime
// records a failure where its entry point returns it through
// GetRtExtErrCodeAndSetGlobalErr (api_c.h:31-37), and these return another
// way. The value says where. The sandbox marks each with [Unrecorded].
var UnrecordedSteps = map[string]map[string]string{
	"aclrtGetDevice":                    {"context": "api_c_device.cc:93 (COND_RETURN_WITH_NOLOG)"},
	"aclrtCreateNotify":                 {"context": "api_c_event.cc:127-130 (rtGetDevice's code returned as it is)"},
	"aclrtSynchronizeEventWithTimeout":  {"range": "event.cpp:188-189 (the ACL layer returns 107000 itself)"},
	"aclrtSynchronizeStreamWithTimeout": {"timeout": "stream.cpp:141-149 (the ACL layer returns 107000 itself)"},
	"aclrtSynchronizeDeviceWithTimeout": {"timeout": "device.cpp:173-174 (the ACL layer returns 107000 itself)"},
	"aclrtMemcpyAsync":                  {"h2h": "api_c.cc:1115 (COND_RETURN_WITH_NOLOG)"},
	"aclrtMemcpyAsyncWithCondition":     {"h2h": "api_c.cc:1156 (COND_RETURN_WITH_NOLOG)"},
	"aclrtQueryEventWaitStatus":         {"newmode": "api_c.cc:843 (COND_RETURN_WITH_NOLOG)"},
	"aclrtStreamWaitEvent":              {"nowait": "api_c_stream.cc:140 (COND_RETURN_WITH_NOLOG)"},
	"aclrtResetEvent":                   {"nowait": "api_c.cc:778 (COND_RETURN_WITH_NOLOG)", "newmode": "api_c.cc:778 (COND_RETURN_WITH_NOLOG)"},
	"aclrtCreateEventExWithFlag":        {"ipc": "api_c.cc:681 (COND_RETURN_WITH_NOLOG)"},
	"aclrtSetMemcpyDesc":                {"feature": "api_c_memory.cc:383 (COND_RETURN_WITH_NOLOG)"},
	"aclrtMemcpyAsyncWithDesc":          {"feature": "api_c_memory.cc:406 (COND_RETURN_WITH_NOLOG)"},
	"aclrtStreamWaitEventWithTimeout":   {"timeout": "event.cpp:448 (the ACL layer returns 107000 itself)", "nowait": "api_c_stream.cc:410 (COND_RETURN_WITH_NOLOG)"},
	"aclrtGetDeviceCapability":          {"unknown": "api_c_device.cc:555 (returns ACL_ERROR_RT_PARAM_INVALID itself)"},
	"aclrtSetStreamFailureMode":         {"devuse": "api_c_stream.cc:302 (COND_RETURN_WITH_NOLOG)", "back": "api_c_stream.cc:302 (COND_RETURN_WITH_NOLOG)"},
}
