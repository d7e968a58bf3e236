package host

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// logHarness is a harness whose instance logs to a JSON handler at Debug.
func logHarness(t *testing.T, p Policy, name string) (*harness, *capture) {
	t.Helper()
	h := &harness{t: t}
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	h.rt = rt
	pl, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), p)
	require.NoError(t, err)
	var c capture
	inst, err := pl.Instantiate(ctx, Config{Name: name, Logger: slog.New(slog.NewJSONHandler(&c, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	h.inst = inst
	t.Cleanup(func() {
		require.NoError(t, inst.Close(ctx))
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	return h, &c
}

// TestAppLog: aclAppLog reaches Config.Logger as the plugin's own record,
// with its level mapped, the plugin's name, the session and func, file and
// line; bad input gives 100000 with a precise message and logs nothing.
func TestAppLog(t *testing.T) {
	h, c := logHarness(t, Policy{}, "pre")
	sid := float64(h.inst.Session().ID())
	copy(h.mem()[data:], "main\x00pre.c\x00hello, log\x00")
	fn, file, msg := uint64(data), uint64(data+5), uint64(data+11)
	for level := range 4 {
		h.ok("aclAppLog", uint64(level), fn, file, uint64(40+level), msg)
	}
	h.ok("aclAppLog", 1, 0, 0, 7, msg) // func and file may be NULL
	require.Equal(t, []map[string]any{
		{"level": "DEBUG", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 40.0},
		{"level": "INFO", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 41.0},
		{"level": "WARN", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 42.0},
		{"level": "ERROR", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "main", "file": "pre.c", "line": 43.0},
		{"level": "INFO", "msg": "hello, log", "plugin": "pre", "session": sid, "func": "", "file": "", "line": 7.0},
	}, c.records(t))

	// A string of 4095 bytes and its NUL is the longest.
	long := uint64(0x10000)
	copy(h.mem()[long:], strings.Repeat("x", 4095)+"\x00")
	c.buf.Reset()
	h.ok("aclAppLog", 2, 0, 0, 1, long)
	require.Equal(t, strings.Repeat("x", 4095), c.records(t)[0]["msg"])

	end := uint64(len(h.mem()))
	copy(h.mem()[end-3:], "abc")
	h.mem()[long+4095] = 'x' // no NUL within 4096 bytes
	c.buf.Reset()
	for _, tc := range []struct {
		args []uint64
		msg  string
	}{
		{[]uint64{4, fn, file, 1, msg}, "aclAppLog: level 4 is not an aclLogLevel: want ACL_DEBUG (0), ACL_INFO (1), ACL_WARNING (2) or ACL_ERROR (3)"},
		{[]uint64{1<<32 - 1, fn, file, 1, msg}, "aclAppLog: level -1 is not an aclLogLevel: want ACL_DEBUG (0), ACL_INFO (1), ACL_WARNING (2) or ACL_ERROR (3)"},
		{[]uint64{1, end, file, 1, msg}, "aclAppLog: func 0x40000 is outside guest memory (262144 bytes)"},
		{[]uint64{1, fn, end - 3, 1, msg}, "aclAppLog: file at 0x3fffd has no NUL before the end of guest memory (262144 bytes)"},
		{[]uint64{1, fn, file, 1, long}, "aclAppLog: msg at 0x10000 is longer than 4095 bytes: no NUL within 4096 bytes"},
		{[]uint64{1, fn, file, 1, 0}, "aclAppLog: msg is NULL"},
	} {
		require.Equal(t, tc.msg, h.code(acl.ErrInvalidParam, "aclAppLog", tc.args...))
	}
	require.Empty(t, strings.TrimSpace(c.buf.String()), "a refused call logs nothing")
}

// TestAppLogWithoutLogger: without Config.Logger the strings are still
// checked, and nothing else happens.
func TestAppLogWithoutLogger(t *testing.T) {
	h := newHarness(t, Policy{})
	copy(h.mem()[data:], "m\x00")
	h.ok("aclAppLog", 0, 0, 0, 1, data)
	h.code(acl.ErrInvalidParam, "aclAppLog", 0, 0, 0, 1, 0)
}

func TestMemsetD32Messages(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	p := h.malloc(64)
	for _, tc := range []struct {
		code acl.Error
		args []uint64
		msg  string
	}{
		{acl.ErrInvalidParam, []uint64{0, 64, 1, 1}, "aclrtMemsetD32: ptr is NULL"},
		{acl.ErrInvalidParam, []uint64{p + 2, 64, 1, 1}, "aclrtMemsetD32: ptr 0x" + hexs(p+2) + " is not 4-byte aligned"},
		{acl.ErrInvalidParam, []uint64{p, 64, 1, 17}, "aclrtMemsetD32: count 17 words are 68 bytes, more than memSize 64"},
		{acl.ErrInvalidParam, []uint64{p, sizeMax, 1, 1 << 62}, "aclrtMemsetD32: count 4611686018427387904 words of 4 bytes overflow a byte count (memSize 18446744073709551615)"},
		{acl.ErrInvalidParam, []uint64{data2, 64, 1, 1}, "aclrtMemsetD32: ptr 0x9000 is guest memory that is not registered: only memory from aclrtMalloc or aclrtMallocHost (aclrtHostRegister) can be set"},
		{acl.ErrRTParamInvalid, []uint64{0xdead_0000_0000, 64, 1, 1}, "aclrtMemsetD32: ptr 0xdead00000000 is not in guest memory or a live device allocation of this session"},
		{acl.ErrRTParamInvalid, []uint64{p + 4, 64, 1, 16}, "aclrtMemsetD32: ptr [0x" + hexs(p+4) + ", +64) crosses the end of the allocation [0x" + hexs(p) + ", 0x" + hexs(p+64) + ")"},
	} {
		require.Equal(t, tc.msg, h.code(tc.code, "aclrtMemsetD32", tc.args...))
	}
	h.ok("aclrtMemsetD32", 0, 64, 1, 0) // count 0: nothing to do, before every check
	// Device memory: the words land, nothing around them changes.
	h.ok("aclrtMemset", p, 64, 0xee, 64)
	h.ok("aclrtMemsetD32", p+4, 60, 0xa1b2c3d4, 3)
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	want := append(append([]byte{0xee, 0xee, 0xee, 0xee}, words(0xa1b2c3d4, 3)...), words(0xeeeeeeee, 12)...)
	require.Equal(t, want, h.mem()[data:data+64])
	// Async, in stream order.
	s := h.stream()
	h.ok("aclrtMemsetD32Async", p, 64, 5, 16, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(5, 16), h.mem()[data:data+64])
}

// TestOpTimeouts: the execute timeout is kept per session in whole
// intervals and reported; the interval is the backend's.
func TestOpTimeouts(t *testing.T) {
	const iv = 4294967 // acl/sim's and the stand-in's interval, µs
	h := newHarness(t, Policy{})
	h.code(acl.ErrRTContextNull, "aclrtGetOpTimeOutInterval", outA)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetOpTimeOutInterval", outA)
	require.Equal(t, uint64(iv), h.u64(outA))
	h.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h.u32(outA), "never set: the most, the hardware's default")
	for _, tc := range []struct{ us, want uint64 }{
		{1, iv}, {iv, iv}, {iv + 1, 2 * iv}, {0, 254 * iv}, {sizeMax, 254 * iv},
	} {
		h.putU64s(outB, 0)
		h.ok("aclrtSetOpExecuteTimeOutV2", tc.us, outB)
		require.Equal(t, tc.want, h.u64(outB), "V2(%d)", tc.us)
		h.ok("aclrtGetOpExecuteTimeout", outA)
		require.Equal(t, uint32(tc.want/1000), h.u32(outA))
	}
	h.ok("aclrtSetOpExecuteTimeOut", 9) // 9 s: 3 intervals
	h.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(3*iv/1000), h.u32(outA))
	require.Equal(t, "aclrtSetOpExecuteTimeOutV2: actualTimeout [0x3fffc, +8) is outside guest memory (262144 bytes)",
		h.code(acl.ErrInvalidParam, "aclrtSetOpExecuteTimeOutV2", 1, 0x3fffc))

	// Each session has its own.
	h2 := newHarness(t, Policy{})
	h2.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h2.u32(outA))
}

// TestOpWaitTimeout: the limit applies to waits queued after it, 0 lifts
// it, and a timed-out wait leaves the stream usable.
func TestOpWaitTimeout(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s, other, ev := h.stream(), h.stream(), h.waitable()
	p := h.malloc(64)
	h.ok("aclrtSetOpWaitTimeout", 1)
	h.ok("aclrtStreamWaitEvent", s, ev)
	h.ok("aclrtMemset", p, 64, 0, 64)
	h.ok("aclrtMemsetAsync", p, 64, 9, 64, s)
	msg := h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "aclrtSynchronizeStream: ")
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(0x09090909, 16), h.mem()[data:data+64], "the work after the failed wait ran")
	h.ok("aclrtSynchronizeStream", s)

	// 0: no limit; the wait ends with the record.
	h.ok("aclrtSetOpWaitTimeout", 0)
	h.ok("aclrtStreamWaitEvent", s, ev)
	h.ok("aclrtRecordEvent", ev, other)
	h.ok("aclrtSynchronizeStream", s)
}

// TestResetEvent: a reset event reads as never recorded, and a wait
// queued after the reset waits for the next record.
func TestResetEvent(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s, w, ev := h.stream(), h.stream(), h.event()
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outA))
	h.ok("aclrtResetEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusNotReady), h.u32(outA))
	h.ok("aclrtSetOpWaitTimeout", 1)
	h.ok("aclrtStreamWaitEvent", w, ev)
	h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w) // the old record does not end it
	h.ok("aclrtStreamWaitEvent", w, ev)
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", w)
}

// TestInitConfigPath: aclInit with a path gives 100003 unless the policy
// allows it; then it succeeds without opening a file.
func TestInitConfigPath(t *testing.T) {
	h := newHarness(t, Policy{})
	copy(h.mem()[data:], "./acl.json\x00")
	require.Equal(t, `aclInit: configPath "./acl.json" cannot be read: the sandbox grants no filesystem; pass NULL or "", or allow it in the policy (AllowInitConfig), which ignores the file`,
		h.code(acl.ErrInvalidFile, "aclInit", data))
	copy(h.mem()[data2:], strings.Repeat("p", 4096))
	require.Equal(t, "aclInit: configPath at 0x9000 is longer than 4095 bytes: no NUL within 4096 bytes",
		h.code(acl.ErrInvalidParam, "aclInit", data2))
	copy(h.mem()[data2:], "\x00")
	h.ok("aclInit", data2) // "" is NULL

	a := newHarness(t, Policy{AllowInitConfig: true})
	copy(a.mem()[data:], "/nonexistent/acl.json\x00")
	a.ok("aclInit", data)
	a.code(acl.ErrRepeatInitialize, "aclInit", data)
}

func hexs(v uint64) string { return strconv.FormatUint(v, 16) }

// TestSec10MemACL32: in the native layout the uint64_t out-parameters stay
// 8 bytes, and aclrtMemsetD32 takes window addresses and 32-bit sizes.
func TestSec10MemACL32(t *testing.T) {
	h := newHarness32(t, Policy{})
	h.sentinel(outA)
	h.sentinel(outA + 8)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetOpTimeOutInterval", outA)
	require.Equal(t, uint64(4294967), h.u64(outA), "8 bytes in both profiles")
	require.Equal(t, []byte{0xEE, 0xEE, 0xEE, 0xEE}, h.mem()[outA+8:outA+12])
	h.ok("aclrtSetOpExecuteTimeOutV2", 1, outA)
	require.Equal(t, uint64(4294967), h.u64(outA))
	h.sentinel(outA)
	h.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(4294), h.wrote4(outA))

	h.ok("aclrtSetDevice", 0)
	h.sentinel(outA)
	h.ok("aclrtMalloc", outA, 64, 0)
	p := uint64(h.wrote4(outA))
	inWindow(t, p, acl32W)
	h.ok("aclrtMemsetD32", p, 64, 0x0badf00d, 16)
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(0x0badf00d, 16), h.mem()[data:data+64])
	msg := h.code(acl.ErrRTParamInvalid, "aclrtMemsetD32", p+4, 64, 1, 16)
	require.Equal(t, "aclrtMemsetD32: ptr [0x"+hexs(p+4)+", +64) crosses the end of the allocation [0x"+hexs(p)+", 0x"+hexs(p+64)+")", msg, "window addresses, as the guest sees them")
}
