package abi

// Prof is the group of the profiling markers of acl/acl_prof.h (ABI v1.3
// section 15): the msproftx stamps and ranges a program sets around its
// work. No profiler runs in the sandbox: each marker is a note of the
// session's trace (and an OpenTelemetry span event), never a call into
// the node's profiler.
const Prof Group = "prof"

// The marker functions with their native signatures. A stamp is a handle
// (natively a void * from the profiler's pool of 100). aclprofDestroyStamp
// returns void natively: on the wire it returns the aclError its checks
// give (recorded for aclGetRecentErrMsg and the trace), which the C SDK
// drops. aclprofStr2Id returns the id natively: on the wire it writes it
// to an out-parameter and returns the aclError, and the C SDK returns the
// id (UINT64_MAX on an error).
var profFuncs = []Func{
	{Name: "aclprofCreateStamp", Group: Prof, Result: StampHandle, Params: []Param{},
		Doc: "Creates a stamp (NULL when the session has 100, as the native pool)."},
	{Name: "aclprofDestroyStamp", Group: Prof, Params: []Param{handle("stamp", StampHandle).native("void *")},
		Doc: "Destroys a stamp; returns void natively (the C SDK drops the wire's aclError)."},
	{Name: "aclprofSetStampTraceMessage", Group: Prof, Params: []Param{handle("stamp", StampHandle).native("void *"), in("msg", Bytes).len("msgLen").native("const char *"), u32("msgLen")},
		Doc: "Sets a stamp's message: msgLen bytes of msg up to a NUL, fewer than 128."},
	{Name: "aclprofMark", Group: Prof, Params: []Param{handle("stamp", StampHandle).native("void *")},
		Doc: "Records a mark with the stamp's message in the trace."},
	{Name: "aclprofMarkEx", Group: Prof, Params: []Param{in("msg", CString), size("msgLen"), handle("stream", StreamHandle)},
		Doc: "Records a mark of msg (msgLen, 1 to 127, its strlen) for stream in the trace."},
	{Name: "aclprofPush", Group: Prof, Params: []Param{handle("stamp", StampHandle).native("void *")},
		Doc: "Pushes the stamp on the session's stack of ranges."},
	{Name: "aclprofPop", Group: Prof, Params: []Param{},
		Doc: "Pops the latest pushed stamp and records its range in the trace."},
	{Name: "aclprofRangeStart", Group: Prof, Params: []Param{handle("stamp", StampHandle).native("void *"), out("rangeId", Uint)},
		Doc: "Starts the stamp's range and writes its id."},
	{Name: "aclprofRangeStop", Group: Prof, Params: []Param{u32("rangeId")},
		Doc: "Records the range rangeId (a started stamp's) in the trace."},
	{Name: "aclprofStr2Id", Group: Prof, Params: []Param{in("message", CString), outOf("id", U64).native("uint64_t *")},
		Doc: "Writes the id the profiler gives message (its hash; UINT64_MAX for the empty string), for aclprofTensorInfo's opNameId and opTypeId; natively uint64_t aclprofStr2Id(const char *message), which the C SDK declares."},
	{Name: "aclprofRangePushEx", Group: Prof, Params: []Param{in("attr", EventAttributes).native("aclprofEventAttributes *")},
		Doc: "Starts a range with event attributes (messageType 0, tensor information)."},
	{Name: "aclprofRangePop", Group: Prof, Params: []Param{},
		Doc: "Records the range of the latest aclprofRangePushEx in the trace."},
}
