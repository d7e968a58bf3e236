//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestRandomNumAsync: the task reaches the native library in the host's
// layout with translated addresses, generates there, and a refusal of the
// library comes back with its code (backend_test's old runtime: a library
// without it gives 207000 and calls nothing).
func TestRandomNumAsync(t *testing.T) {
	b, s := open(t, full)
	ctx := t.Context()
	require.True(t, b.Supports("aclrtRandomNumAsync"))
	p, err := b.Malloc(0, 4096, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.DestroyStream(ctx, st)) }()
	param := func(v uint64, size uint8) acl.RandomParam {
		q := acl.RandomParam{Size: size}
		binary.LittleEndian.PutUint64(q.Value[:], v)
		return q
	}
	const n = 256
	task := acl.RandomTask{DataType: acl.DTFloat, Func: acl.RandomUniform,
		P1: param(uint64(math.Float32bits(-3)), 4), P2: param(uint64(math.Float32bits(5)), 4),
		ParaAddr: uint64(p + 2048), Result: uint64(p), Counter: uint64(p + 2080),
		Seed: param(42, 8), Num: param(n, 4)}
	native := b.streams[st].native
	s.logReset()
	require.NoError(t, b.RandomNumAsync(task, st))
	bad := task
	bad.Func = 7
	code(t, b.RandomNumAsync(bad, st), acl.ErrRTParamInvalid)
	match(t, []string{
		fmt.Sprintf("aclrtRandomNumAsync(taskInfo=*, dataType=0, funcType=1, randomResultAddr=%s, stream=%s, reserve=0x0) = 0", hexp(p), hexp(native)),
		fmt.Sprintf("aclrtRandomNumAsync(taskInfo=*, dataType=0, funcType=7, randomResultAddr=%s, stream=%s, reserve=0x0) = 107000", hexp(p), hexp(native)),
	}, s.calls())
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	out := make([]byte, 4*n+16)
	require.NoError(t, b.Memcpy(ctx, acl.Host(out[:4*n], 0), acl.Device(p), 4*n))
	require.NoError(t, b.Memcpy(ctx, acl.Host(out[4*n:], 0), acl.Device(p+2048), 16))
	distinct := map[float32]bool{}
	for i := 0; i < 4*n; i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(out[i:]))
		require.True(t, v >= -3 && v < 5, "%v", v)
		distinct[v] = true
	}
	require.Greater(t, len(distinct), n/2, "numbers, not a constant")
	require.Equal(t, uint64(math.Float32bits(-3)), binary.LittleEndian.Uint64(out[4*n:]), "the parameters at randomParaAddr")
	code(t, b.RandomNumAsync(task, acl.Stream(999)), acl.ErrRTInvalidHandle)
	outside := task
	outside.Result = uint64(p + 4000)
	code(t, b.RandomNumAsync(outside, st), acl.ErrRTParamInvalid)
	require.NoError(t, b.Free(ctx, p))
}
