package host

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

func TestKernelRegistration(t *testing.T) {
	run := func(context.Context, *KernelBlock) error { return nil }
	for _, c := range []struct {
		k    Kernel
		want string
	}{
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "n")}}, `kernel "k": buffer x: extent "n": n is neither blockDim nor a parameter`},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "a"), Scalar("a", acl.DTFloat)}}, "a is not an integer scalar"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "blockDim *")}}, "unexpected end"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "(blockDim")}}, "missing )"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "99999999999999999999")}}, "value out of range"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "")}}, "unexpected end"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTString, Read, "1")}}, "element type ACL_STRING has no size"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, 4, "1")}}, "Access(4): want Read, Write or ReadWrite"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Scalar("s", acl.DTComplex64)}}, "scalar s: type ACL_COMPLEX64 is not a scalar type"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Scalar("s", acl.DTInt32), Scalar("s", acl.DTInt32)}}, `parameter 1: name "s"`},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Scalar("blockDim", acl.DTInt32)}}, `parameter 0: name "blockDim"`},
		{Kernel{Name: "k-1", Run: run}, "the name must be a C identifier"},
		{Kernel{Name: "k"}, "neither Run nor Binary: the kernel would run on no backend"},
	} {
		_, err := NewRuntime(context.Background(), WithKernels(c.k))
		require.ErrorContains(t, err, c.want)
	}
	_, err := NewRuntime(context.Background(), WithKernels(Kernel{Name: "k", Run: run}, Kernel{Name: "k", Run: run}))
	require.ErrorContains(t, err, "kernel k is registered twice")
	_, err = NewRuntime(context.Background(), WithKernelSet("k", Kernel{Name: "k", Run: run}))
	require.ErrorContains(t, err, "kernel set k has the name of a kernel")
}

func TestKernelExtentOverflow(t *testing.T) {
	e, err := parseExtent("n * n * 8 - 1", func(string) (int, error) { return 0, nil })
	require.NoError(t, err)
	v, err := e.eval(1, func(int) (uint64, error) { return 1 << 20, nil })
	require.NoError(t, err)
	require.Equal(t, uint64(1<<43-1), v)
	_, err = e.eval(1, func(int) (uint64, error) { return 1 << 32, nil })
	require.ErrorContains(t, err, "overflows")
	_, err = e.eval(1, func(int) (uint64, error) { return 0, nil })
	require.ErrorContains(t, err, "0 - 1 is negative")
	d, err := parseExtent("blockDim / (n - n)", func(string) (int, error) { return 0, nil })
	require.NoError(t, err)
	_, err = d.eval(4, func(int) (uint64, error) { return 3, nil })
	require.ErrorContains(t, err, "4 / 0")
	p, err := parseExtent("(n + 7) / 8 * 8 + blockDim", func(string) (int, error) { return 0, nil })
	require.NoError(t, err)
	v, err = p.eval(2, func(int) (uint64, error) { return 9, nil })
	require.NoError(t, err)
	require.Equal(t, uint64(18), v)
}

// TestKernelViewAligned: a kernel's typed view of a buffer shares its
// memory, and one of a misaligned buffer panics (a device fault when in a
// launch) rather than reading misaligned elements.
func TestKernelViewAligned(t *testing.T) {
	mem := make([]uint64, 2)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), 16)
	kb := &KernelBlock{b: &sandbox.Block{Mem: [][]byte{buf, buf[4:12], buf[1:9]}}}
	kb.Float32s(0)[1] = 1.5
	require.Equal(t, uint32(0x3fc00000), binary.LittleEndian.Uint32(buf[4:]))
	require.Len(t, kb.Uint32s(1), 2)
	require.Len(t, kb.Bytes(2), 8)
	require.PanicsWithValue(t, fmt.Sprintf("buffer at %p is not aligned to its 4-byte elements", &buf[1]), func() { kb.Float32s(2) })
	require.Panics(t, func() { kb.Int64s(1) })
}
