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
	copy(h.Mem()[data:], "cfg.json\x00")
	h.Code(acl.ErrInvalidFile, "aclInit", data) // refused: not initialized
	h.OK("aclInit", 0)
	h.Code(acl.ErrRepeatInitialize, "aclInit", 0)
	h.Code(acl.ErrRepeatInitialize, "aclInit", data) // the repeat is checked first
	h.OK("aclrtGetVersion", outA, outB, outC)
	require.Equal(t, []uint32{1, 17, 0}, []uint32{h.U32(outA), h.U32(outB), h.U32(outC)})
	// aclGetRecentErrMsg: length returned, bufLen-1 bytes and a NUL written.
	msg := h.Inst.Session().LastError()
	n := h.Call("aclGetRecentErrMsg", data2, 8)
	require.Equal(t, int32(len(msg)), n)
	require.Equal(t, msg[:7]+"\x00", string(h.Mem()[data2:data2+8]))
	require.Equal(t, int32(len(msg)), h.Call("aclGetRecentErrMsg", 0, 0))
	require.Equal(t, int32(len(msg)), h.Call("aclGetRecentErrMsg", data2, 8), "a length query or a truncated copy leaves it")
	// As natively, the read that returns it whole clears it.
	require.Equal(t, int32(len(msg)), h.Call("aclGetRecentErrMsg", data2, 512))
	require.Equal(t, msg+"\x00", string(h.Mem()[data2:data2+uint32(len(msg))+1]))
	require.Zero(t, h.Call("aclGetRecentErrMsg", data2, 512), "a second read finds no message")
	require.Zero(t, h.Mem()[data2], "and writes an empty string")
	h.OK("aclrtGetVersion", outA, outB, outC)
	require.Zero(t, h.Call("aclGetRecentErrMsg", 0, 0), "a successful call leaves none")
	require.Equal(t, msg, h.Inst.Session().LastError(), "the embedder's view is not cleared")
	h.Code(acl.ErrRepeatInitialize, "aclInit", 0)
	require.Equal(t, int32(len(msg)), h.Call("aclGetRecentErrMsg", 0, 0), "the next failure leaves a message again")
	h.OK("aclFinalize")
	h.Code(acl.ErrRepeatFinalize, "aclFinalize")
}

// TestInitConfigPath: aclInit with a path succeeds without opening a file
// (the trace says it was ignored) unless the policy refuses it (100003);
// the deprecated AllowInitConfig changes nothing.
func TestInitConfigPath(t *testing.T) {
	h := newHarness(t, host.Policy{RefuseInitConfig: true})
	copy(h.Mem()[data:], "./acl.json\x00")
	require.Equal(t, `aclInit: configPath "./acl.json" cannot be read: the sandbox grants no filesystem and the policy refuses configuration files (RefuseInitConfig); pass NULL or ""`,
		h.Code(acl.ErrInvalidFile, "aclInit", data))
	copy(h.Mem()[data2:], strings.Repeat("p", 4096))
	require.Equal(t, "aclInit: configPath at 0x9000 is longer than 4095 bytes: no NUL within 4096 bytes",
		h.Code(acl.ErrInvalidParam, "aclInit", data2))
	copy(h.Mem()[data2:], "\x00")
	h.OK("aclInit", data2) // "" is NULL

	for _, p := range []host.Policy{{}, {AllowInitConfig: true}} {
		a := newHarness(t, p)
		copy(a.Mem()[data:], "/nonexistent/acl.json\x00")
		a.OK("aclInit", data)
		last := a.Log[len(a.Log)-1]
		require.Equal(t, `configPath "/nonexistent/acl.json" ignored: the sandbox opens no file`, last.Msg)
		require.Contains(t, last.String(), `aclInit(configPath=0x1000) = 0 (configPath "/nonexistent/acl.json" ignored: the sandbox opens no file)`)
		a.Code(acl.ErrRepeatInitialize, "aclInit", data)
	}
}
