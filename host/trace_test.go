package host_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// TestTraceMasksI32Args: wazero passes an i32 parameter to a host function
// as a 4-byte store into an 8-byte slot, so the upper half holds whatever
// the slot held before (real guests showed stream=37512244363265 for
// handle 1). The trace records the values the guest passed, as the
// imports read them: i32 wire types masked to 32 bits.
func TestTraceMasksI32Args(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	ctx := context.Background()
	const junk = 0x221e_0000_0000
	for _, tc := range []struct {
		name string
		args []uint64
		want []uint64
		line string
	}{
		{"aclrtSetDevice", []uint64{junk}, []uint64{0}, `^aclrtSetDevice\(deviceId=0\) = 0$`},
		{"aclrtSynchronizeStream", []uint64{junk | 1}, []uint64{1}, `^aclrtSynchronizeStream\(stream=1\) = \d+ `},
		{"aclInit", []uint64{junk}, []uint64{0}, `^aclInit\(configPath=0x0\) = \d+`},
		// i64 wire types keep all their bits.
		{"aclrtFree", []uint64{junk}, []uint64{junk}, `^aclrtFree\(devPtr=0x221e00000000\) = \d+ `},
		{"aclrtMalloc", []uint64{junk | 0x10, junk | 64, junk}, []uint64{0x10, junk | 64, 0}, `^aclrtMalloc\(devPtr=0x10, size=37512244363328, policy=ACL_MEM_MALLOC_HUGE_FIRST\) = \d+`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi := abi.Lookup(tc.name).Index()
			require.GreaterOrEqual(t, fi, 0)
			h.Log = nil
			proxytest.Session(h.Inst).Invoker().Invoke(ctx, fi, h.Mem(), append([]uint64(nil), tc.args...))
			require.Len(t, h.Log, 1)
			require.Equal(t, tc.want, h.Log[0].Args)
			require.Regexp(t, tc.line, h.Log[0].String())
		})
	}
}

// TestTraceOutsAndEnums: a trace line shows, after an out-parameter's
// address, the value the call wrote there (an address in hex, at the
// profile's width), and enum parameters by the header's names; a failed
// call shows no written value, and unknown enum values read as the type
// and the number.
func TestTraceOutsAndEnums(t *testing.T) {
	for _, prof := range []abi.Profile{abi.Wide, abi.Native32} {
		t.Run(prof.Module(), func(t *testing.T) {
			h := proxytest.NewIn(t, prof, host.Policy{})
			last := func() string {
				t.Helper()
				require.NotEmpty(t, h.Log)
				return h.Log[len(h.Log)-1].String()
			}
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtGetDevice", outA)
			require.Equal(t, "aclrtGetDevice(deviceId=0x100 -> 0) = 0", last())
			h.OK("aclrtGetDeviceCount", outA)
			require.Equal(t, fmt.Sprintf("aclrtGetDeviceCount(count=0x100 -> %d) = 0", h.U32(outA)), last())

			dev := h.Malloc(4096)
			require.Equal(t, fmt.Sprintf("aclrtMalloc(devPtr=0x100 -> %#x, size=4096, policy=ACL_MEM_MALLOC_HUGE_FIRST) = 0", dev), last())
			h.PutWords(outA, 0)
			h.Code(acl.ErrInvalidParam, "aclrtMalloc", outA, 0, 0x1002|0x40000)
			require.Regexp(t, `^aclrtMalloc\(devPtr=0x100, size=0, policy=ACL_MEM_MALLOC_NORMAL_ONLY\|ACL_MEM_TYPE_HIGH_BAND_WIDTH\|0x40000\) = 100000 ACL_ERROR_INVALID_PARAM: `, last())

			h.OK("aclrtMemcpy", dev, 64, data, 64, uint64(acl.MemcpyHostToDevice))
			require.Equal(t, fmt.Sprintf("aclrtMemcpy(dst=%#x, destMax=64, src=0x1000, count=64, kind=ACL_MEMCPY_HOST_TO_DEVICE) = 0", dev), last())
			h.Call("aclrtMemcpy", dev, 64, data, 64, 99)
			require.Regexp(t, `^aclrtMemcpy\(.*, kind=aclrtMemcpyKind\(99\)\) = [1-9]`, last())

			h.OK("aclrtCreateStream", outA)
			st := uint64(h.U32(outA))
			require.Equal(t, fmt.Sprintf("aclrtCreateStream(stream=0x100 -> %d) = 0", st), last())
			h.OK("aclrtStreamQuery", st, outB)
			require.Equal(t, fmt.Sprintf("aclrtStreamQuery(stream=%d, status=0x108 -> ACL_STREAM_STATUS_COMPLETE) = 0", st), last())

			h.OK("aclrtGetMemInfo", uint64(acl.HBMMem), outA, outB)
			require.Equal(t, fmt.Sprintf("aclrtGetMemInfo(attr=ACL_HBM_MEM, free=0x100 -> %d, total=0x108 -> %d) = 0", h.Word(outA), h.Word(outB)), last())
			h.Call("aclrtGetMemInfo", 77, outA, outB)
			require.Regexp(t, `^aclrtGetMemInfo\(attr=aclrtMemAttr\(77\), free=0x100, total=0x108\) = [1-9]`, last())

			h.OK("aclrtGetRunMode", outA)
			require.Equal(t, "aclrtGetRunMode(runMode=0x100 -> ACL_HOST) = 0", last())
			h.OK("aclrtHostRegister", data, 4096, 0, outA)
			require.Equal(t, fmt.Sprintf("aclrtHostRegister(ptr=0x1000, size=4096, type=ACL_HOST_REGISTER_MAPPED, devPtr=0x100 -> %#x) = 0", h.Word(outA)), last())
			h.Call("aclrtHostRegister", data2, 4096, 4|8|1, outA)
			require.Regexp(t, `^aclrtHostRegister\(ptr=0x9000, size=4096, type=ACL_HOST_REGISTER_IOMEMORY\|ACL_HOST_REGISTER_READONLY\|0x1, devPtr=0x100\) = [1-9]`, last())

			// An out-parameter outside guest memory fails the call and
			// shows nothing written.
			h.Call("aclrtGetDevice", 0xffff_fff0)
			require.Regexp(t, `^aclrtGetDevice\(deviceId=0xfffffff0\) = 100000 `, last())
			require.Empty(t, h.Log[len(h.Log)-1].Outs)
		})
	}
}

// TestTraceBatch: a batch copy's line shows its attributes by the C
// structs' field names and the header's location types, and the value it
// wrote to failIndex, on success and on failure alike.
func TestTraceBatch(t *testing.T) {
	for _, prof := range []abi.Profile{abi.Wide, abi.Native32} {
		t.Run(prof.Module(), func(t *testing.T) {
			h := proxytest.NewIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 0)
			dev := h.Malloc(4096)
			acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationHost}}.Encode(h.Mem()[0x600:])
			h.PutWords(0x700, 0)
			h.PutWords(0x200, dev, dev+64)
			h.PutWords(0x300, 64, 64)
			h.PutWords(0x400, data, data+64)
			h.PutWords(0x500, 64, 64)
			h.OK("aclrtMemcpyBatch", 0x200, 0x300, 0x400, 0x500, 2, 0x600, 0x700, 1, outA)
			const attrs = "attrs=0x600 [{dstLoc={id=0, type=ACL_MEM_LOCATION_TYPE_DEVICE}, srcLoc={id=0, type=ACL_MEM_LOCATION_TYPE_HOST}}]"
			require.Equal(t, fmt.Sprintf("aclrtMemcpyBatch(dsts=0x200, destMaxs=0x300, srcs=0x400, sizes=0x500, numBatches=2, %s, attrsIndexes=0x700, numAttrs=1, failIndex=0x100 -> %d) = 0", attrs, h.Word(outA)),
				h.Log[len(h.Log)-1].String())

			// The second entry past the end of the allocation.
			h.PutWords(0x200, dev, dev+4090)
			h.Call("aclrtMemcpyBatch", 0x200, 0x300, 0x400, 0x500, 2, 0x600, 0x700, 1, outA)
			require.Regexp(t, `^aclrtMemcpyBatch\(.*, `+regexp.QuoteMeta(attrs)+`, attrsIndexes=0x700, numAttrs=1, failIndex=0x100 -> `+fmt.Sprint(h.Word(outA))+`\) = [1-9]\d* `, h.Log[len(h.Log)-1].String())

			// Attributes beyond the first MaxTraceAttrs are left out.
			for k := range host.MaxTraceAttrs + 1 {
				acl.MemcpyBatchAttr{}.Encode(h.Mem()[0x800+k*acl.MemcpyBatchAttrSize:])
			}
			h.Call("aclrtMemcpyBatchV2", 0x200, 0x300, 0x400, 0x500, 2, 0x800, 0x700, host.MaxTraceAttrs+1)
			line := h.Log[len(h.Log)-1].String()
			require.Equal(t, host.MaxTraceAttrs, strings.Count(line, "{dstLoc="), line)
			require.Contains(t, line, "}, ...], attrsIndexes=")
		})
	}
}

func TestTraceRecordsEveryCall(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	h.Code(acl.ErrInvalidParam, "aclrtMalloc", outA, 0, 0)
	require.Len(t, h.Log, 2)
	require.Equal(t, "aclrtSetDevice", h.Log[0].Func.Name)
	require.Equal(t, []uint64{0}, h.Log[0].Args)
	require.Equal(t, "aclrtMalloc", h.Log[1].Func.Name)
	require.Equal(t, acl.ErrInvalidParam, h.Log[1].Code)
	require.Equal(t, "aclrtMalloc: size is 0", h.Log[1].Msg)
}
