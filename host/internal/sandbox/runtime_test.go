package sandbox_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

func TestRuntimeFunctions(t *testing.T) {
	h := newHarness(t, host.Policy{RefuseInitConfig: true})
	copy(h.mem()[data:], "cfg.json\x00")
	h.code(acl.ErrInvalidFile, "aclInit", data) // refused: not initialized
	h.ok("aclInit", 0)
	h.code(acl.ErrRepeatInitialize, "aclInit", 0)
	h.code(acl.ErrRepeatInitialize, "aclInit", data) // the repeat is checked first
	h.ok("aclrtGetVersion", outA, outB, outC)
	require.Equal(t, []uint32{1, 17, 0}, []uint32{h.u32(outA), h.u32(outB), h.u32(outC)})
	// aclGetRecentErrMsg: length returned, bufLen-1 bytes and a NUL written.
	msg := h.inst.Session().LastError()
	n := h.call("aclGetRecentErrMsg", data2, 8)
	require.Equal(t, int32(len(msg)), n)
	require.Equal(t, msg[:7]+"\x00", string(h.mem()[data2:data2+8]))
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", 0, 0))
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", data2, 8), "a length query or a truncated copy leaves it")
	// As natively, the read that returns it whole clears it.
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", data2, 512))
	require.Equal(t, msg+"\x00", string(h.mem()[data2:data2+uint32(len(msg))+1]))
	require.Zero(t, h.call("aclGetRecentErrMsg", data2, 512), "a second read finds no message")
	require.Zero(t, h.mem()[data2], "and writes an empty string")
	h.ok("aclrtGetVersion", outA, outB, outC)
	require.Zero(t, h.call("aclGetRecentErrMsg", 0, 0), "a successful call leaves none")
	require.Equal(t, msg, h.inst.Session().LastError(), "the embedder's view is not cleared")
	h.code(acl.ErrRepeatInitialize, "aclInit", 0)
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", 0, 0), "the next failure leaves a message again")
	h.ok("aclFinalize")
	h.code(acl.ErrRepeatFinalize, "aclFinalize")
}

// TestInitConfigPath: aclInit with a path succeeds without opening a file
// (the trace says it was ignored) unless the policy refuses it (100003);
// the deprecated AllowInitConfig changes nothing.
func TestInitConfigPath(t *testing.T) {
	h := newHarness(t, host.Policy{RefuseInitConfig: true})
	copy(h.mem()[data:], "./acl.json\x00")
	require.Equal(t, `aclInit: configPath "./acl.json" cannot be read: the sandbox grants no filesystem and the policy refuses configuration files (RefuseInitConfig); pass NULL or ""`,
		h.code(acl.ErrInvalidFile, "aclInit", data))
	copy(h.mem()[data2:], strings.Repeat("p", 4096))
	require.Equal(t, "aclInit: configPath at 0x9000 is longer than 4095 bytes: no NUL within 4096 bytes",
		h.code(acl.ErrInvalidParam, "aclInit", data2))
	copy(h.mem()[data2:], "\x00")
	h.ok("aclInit", data2) // "" is NULL

	for _, p := range []host.Policy{{}, {AllowInitConfig: true}} {
		a := newHarness(t, p)
		copy(a.mem()[data:], "/nonexistent/acl.json\x00")
		a.ok("aclInit", data)
		last := a.log[len(a.log)-1]
		require.Equal(t, `configPath "/nonexistent/acl.json" ignored: the sandbox opens no file`, last.Msg)
		require.Contains(t, last.String(), `aclInit(configPath=0x1000) = 0 (configPath "/nonexistent/acl.json" ignored: the sandbox opens no file)`)
		a.code(acl.ErrRepeatInitialize, "aclInit", data)
	}
}
