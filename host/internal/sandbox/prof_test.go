package sandbox_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// The profiling markers of acl/acl_prof.h (ABI v1.3 section 15).

// stamp creates a profiling stamp with message msg ("" for none).
func (h *harness) stamp(msg string) uint64 {
	h.T.Helper()
	s := uint64(uint32(h.Call("aclprofCreateStamp")))
	require.NotZero(h.T, s, "aclprofCreateStamp: %s", h.Inst.Session().LastError())
	if msg != "" {
		copy(h.Mem()[data2:], msg)
		h.OK("aclprofSetStampTraceMessage", s, data2, uint64(len(msg)))
	}
	return s
}

// eventAttrs writes aclprofEventAttributes {version 1, size, messageType}
// at data and returns its address.
func (h *harness) eventAttrs(messageType uint32) uint64 {
	m := h.Mem()
	le.PutUint16(m[data:], 1)
	le.PutUint16(m[data+2:], 16)
	le.PutUint32(m[data+4:], messageType)
	return data
}

func init() {
	const gone = 999 // a handle the session never made
	orderCases["aclprofCreateStamp"] = map[string]orderCase{
		"pool": {run: func(h *harness) acl.Error {
			for range acl.StampPoolSize {
				h.stamp("")
			}
			require.Zero(h.T, h.Call("aclprofCreateStamp"), "the pool holds 100")
			return h.Log[len(h.Log)-1].Code // NULL returned, the code traced
		}},
	}
	orderCases["aclprofDestroyStamp"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclprofDestroyStamp", 0) }},
		"stamp": {run: func(h *harness) acl.Error { return h.rc("aclprofDestroyStamp", gone) }},
	}
	orderCases["aclprofSetStampTraceMessage"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclprofSetStampTraceMessage", 0, 0, 200) }},
		"stamp": {run: func(h *harness) acl.Error { return h.rc("aclprofSetStampTraceMessage", gone, 0, 200) }},
		"len":   {run: func(h *harness) acl.Error { return h.rc("aclprofSetStampTraceMessage", h.stamp(""), 0, 128) }},
		"msg":   {run: func(h *harness) acl.Error { return h.rc("aclprofSetStampTraceMessage", h.stamp(""), 0, 127) }},
	}
	orderCases["aclprofMark"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclprofMark", 0) }},
		"stamp": {run: func(h *harness) acl.Error { return h.rc("aclprofMark", gone) }},
	}
	orderCases["aclprofMarkEx"] = map[string]orderCase{
		"null": {run: func(h *harness) acl.Error {
			// msgLen is not strlen(msg), and too long: the first check decides.
			return h.rc("aclprofMarkEx", h.CStr(data, strings.Repeat("m", 200)), 3, gone)
		}},
		"len": {run: func(h *harness) acl.Error {
			return h.rc("aclprofMarkEx", h.CStr(data, strings.Repeat("m", 128)), 128, gone)
		}},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclprofMarkEx", h.CStr(data, "m"), 1, gone) }},
	}
	orderCases["aclprofPush"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclprofPush", 0) }},
		"stamp": {run: func(h *harness) acl.Error { return h.rc("aclprofPush", gone) }},
	}
	orderCases["aclprofPop"] = map[string]orderCase{
		"empty": {run: func(h *harness) acl.Error {
			h.OK("aclprofPush", h.stamp("a"))
			h.OK("aclprofPop")
			return h.rc("aclprofPop")
		}},
	}
	orderCases["aclprofRangeStart"] = map[string]orderCase{
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclprofRangeStart", 0, 0) }},
		"stamp":   {run: func(h *harness) acl.Error { return h.rc("aclprofRangeStart", gone, 0) }},
		"rangeid": {run: func(h *harness) acl.Error { return h.rc("aclprofRangeStart", h.stamp(""), 0) }},
	}
	orderCases["aclprofRangeStop"] = map[string]orderCase{
		"id": {run: func(h *harness) acl.Error {
			h.stamp("never started") // id 0, live but not started
			return h.rc("aclprofRangeStop", 0)
		}},
	}
	orderCases["aclprofStr2Id"] = map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return h.rc("aclprofStr2Id", 0, outA) }},
		"out":  {run: func(h *harness) acl.Error { return h.rc("aclprofStr2Id", h.CStr(data, "m"), 0) }},
		"empty": {run: func(h *harness) acl.Error {
			rc := h.rc("aclprofStr2Id", h.CStr(data, ""), outA)
			require.Equal(h.T, acl.StrIDNone, h.U64(outA))
			return rc
		}},
		"hash": {run: func(h *harness) acl.Error {
			rc := h.rc("aclprofStr2Id", h.CStr(data, "MatMul"), outA)
			require.Equal(h.T, acl.StrID("MatMul"), h.U64(outA))
			return rc
		}},
	}
	orderCases["aclprofRangePushEx"] = map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return h.rc("aclprofRangePushEx", 0) }},
		"type": {run: func(h *harness) acl.Error { return h.rc("aclprofRangePushEx", h.eventAttrs(1)) }},
	}
	orderCases["aclprofRangePop"] = map[string]orderCase{
		"none": {run: func(h *harness) acl.Error { return h.rc("aclprofRangePop") }},
	}
}

// itoa formats a handle as the trace does.
func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// TestProfMarkers: the markers succeed in both profiles with no device
// (no profiler, nothing of the backend) and each is a note of the trace:
// marks, push and pop, ranges started and stopped, a range with event
// attributes, in call order.
func TestProfMarkers(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		s := h.Stream()
		a, b := h.stamp("step"), h.stamp("inner\x00ignored")
		h.OK("aclprofMark", a)
		h.OK("aclprofPush", a)
		h.OK("aclprofPush", b)
		h.OK("aclprofPop")
		h.OK("aclprofPop")
		h.OK("aclprofRangeStart", b, outA)
		require.Equal(t, uint32(1), h.U32(outA), "a range id is the stamp's place in the pool")
		h.OK("aclprofRangeStop", 1)
		h.OK("aclprofMarkEx", h.CStr(data, "copy done"), 9, s)
		h.OK("aclprofRangePushEx", h.eventAttrs(0))
		h.OK("aclprofRangePop")
		h.OK("aclprofRangePop") // natively the attributes stay
		h.Call("aclprofDestroyStamp", a)
		require.Empty(t, h.Inst.Session().LastError())
		h.Code(acl.ErrProfFailed, "aclprofMark", a)
		h.OK("aclprofRangeStop", 1) // b lives: a stop does not end a range

		var notes []string
		for _, r := range h.Log {
			if strings.HasPrefix(r.Func.Name, "aclprof") && r.Code == acl.Success && r.Msg != "" {
				notes = append(notes, r.Msg)
			}
		}
		require.Equal(t, []string{
			`mark "step"`, `push "step"`, `push "inner"`, `pop "inner"`, `pop "step"`,
			`range 1 "inner" started`, `range 1 "inner" stopped`,
			`mark "copy done" on stream ` + itoa(s),
			"range pushed (version 1)", "range popped", "range popped",
			`range 1 "inner" stopped`,
		}, notes)
		for _, r := range h.Log {
			if r.Func.Name == "aclprofMark" && r.Code == acl.Success {
				require.Equal(t, `aclprofMark(stamp=`+itoa(a)+`) = 0 (mark "step")`, r.String())
			}
		}
	})
}

// TestProfStampPool: a session holds at most 100 stamps; a destroyed
// one's place is taken by the next, whose range id it is.
func TestProfStampPool(t *testing.T) {
	h := newHarness(t, host.Policy{})
	var ss []uint64
	for range acl.StampPoolSize {
		ss = append(ss, h.stamp(""))
	}
	require.Zero(t, h.Call("aclprofCreateStamp"))
	require.Contains(t, h.Inst.Session().LastError(), "100 stamps")
	h.Call("aclprofDestroyStamp", ss[42])
	n := h.stamp("again")
	h.OK("aclprofRangeStart", n, outA)
	require.Equal(t, uint32(42), h.U32(outA))
	h.Code(acl.ErrProfFailed, "aclprofRangeStop", 100)
}

// TestProfStr2Id: aclprofStr2Id writes the profiler's id of a string in
// both profiles (8 bytes either way), the same id each time and another
// for another string, UINT64_MAX for the empty string with no error
// recorded, and nothing for a message outside guest memory; a success is
// a note of the trace.
func TestProfStr2Id(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		h.OK("aclprofStr2Id", h.CStr(data, "MatMul"), outA)
		id := h.U64(outA)
		require.Equal(t, uint64(7090398782807627396), id, "the native double hash of \"MatMul\"")
		h.OK("aclprofStr2Id", h.CStr(data, "MatMul"), outA)
		require.Equal(t, id, h.U64(outA))
		h.OK("aclprofStr2Id", h.CStr(data, "Add"), outA)
		require.NotEqual(t, id, h.U64(outA))
		h.OK("aclprofStr2Id", h.CStr(data, ""), outA)
		require.Equal(t, acl.StrIDNone, h.U64(outA))
		require.Empty(t, h.Inst.Session().LastError(), "the empty string is no error")

		le.PutUint64(h.Mem()[outA:], 7)
		h.Code(acl.ErrInvalidParam, "aclprofStr2Id", uint64(len(h.Mem())), outA)
		require.Contains(t, h.Inst.Session().LastError(), "message")
		h.Code(acl.ErrInvalidParam, "aclprofStr2Id", h.CStr(data, "Add"), uint64(len(h.Mem())-4))
		require.Equal(t, uint64(7), h.U64(outA), "a failed call writes nothing")

		var notes []string
		for _, r := range h.Log {
			if r.Func.Name == "aclprofStr2Id" && r.Code == acl.Success {
				notes = append(notes, r.Msg)
			}
		}
		require.Equal(t, `id 7090398782807627396 of "MatMul"`, notes[0])
		require.Equal(t, `id 18446744073709551615 of ""`, notes[3])
	})
}
