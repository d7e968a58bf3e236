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

// TestReduceAsync: the reduce reaches the native library with translated
// addresses and its arguments as given, combines there, and a refusal of
// the library comes back with its code (backend_test's old runtime: a
// library without it gives 207000 and calls nothing).
func TestReduceAsync(t *testing.T) {
	b, s := open(t, full)
	ctx := t.Context()
	require.True(t, b.Supports("aclrtReduceAsync"))
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.DestroyStream(ctx, st)) }()
	in := make([]byte, 16)
	for i, v := range []float32{1.5, -2, 3, 4} {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(v))
	}
	require.NoError(t, b.Memcpy(ctx, acl.Device(p), acl.Host(in, 0), 16))
	require.NoError(t, b.Memcpy(ctx, acl.Device(p+32), acl.Host(in, 0), 16))
	native := b.streams[st].native
	s.logReset()
	require.NoError(t, b.ReduceAsync(p, p+32, 16, acl.ReduceSum, acl.DTFloat, st))
	code(t, b.ReduceAsync(p+2, p+32, 8, acl.ReduceMax, acl.DTFloat, st), acl.ErrRTAddrUnaligned)
	match(t, []string{
		fmt.Sprintf("aclrtReduceAsync(dst=%s, src=%s, count=16, kind=10, type=0, stream=%s, reserve=0x0) = 0", hexp(p), hexp(p+32), hexp(native)),
		fmt.Sprintf("aclrtReduceAsync(dst=%s, src=%s, count=8, kind=11, type=0, stream=%s, reserve=0x0) = 107008", hexp(p+2), hexp(p+32), hexp(native)),
	}, s.calls())
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	out := make([]byte, 16)
	require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), 16))
	for i, v := range []float32{3, -4, 6, 8} {
		require.Equal(t, v, math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])))
	}
	code(t, b.ReduceAsync(p, p+32, 16, acl.ReduceSum, acl.DTFloat, acl.Stream(999)), acl.ErrRTInvalidHandle)
	require.NoError(t, b.Free(ctx, p))
}
