package sandbox_test

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The runtime's kernel API (ABI section 13.3): a guest loads a binary the
// host approved by name and launches its kernels through argument lists.

// apiKernels are the kernels of the API tests: add_custom, spin (entries 7
// and 8) and div in the binary out/add_custom.o, secret in secret.o, which
// no test policy grants.
func apiKernels() []host.Kernel {
	return []host.Kernel{
		{
			Name: "add_custom",
			Params: []host.KernelParam{
				host.Buffer("x", acl.DTFloat, host.Read, "n"),
				host.Buffer("y", acl.DTFloat, host.Read, "n"),
				host.Buffer("z", acl.DTFloat, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
			},
			Run: func(_ context.Context, b *host.KernelBlock) error {
				x, y, z := b.Float32s(0), b.Float32s(1), b.Float32s(2)
				for i := int(b.Index()); i < len(z); i += int(b.BlockDim) {
					z[i] = x[i] + y[i]
				}
				return nil
			},
			Binary: "out/add_custom.o", Entry: "7",
		},
		{Name: "spin", Run: func(ctx context.Context, _ *host.KernelBlock) error { <-ctx.Done(); return ctx.Err() }, Binary: "out/add_custom.o", Entry: "8"},
		{
			Name:   "div",
			Params: []host.KernelParam{host.Buffer("x", acl.DTFloat, host.ReadWrite, "n / d"), host.Scalar("n", acl.DTInt32), host.Scalar("d", acl.DTInt32)},
			Run:    func(context.Context, *host.KernelBlock) error { return nil },
			Binary: "out/add_custom.o",
		},
		{Name: "secret", Run: func(context.Context, *host.KernelBlock) error { return nil }, Binary: "secret.o"},
	}
}

var apiPolicy = host.Policy{Kernels: []string{"add_custom", "spin", "div"}}

// kapiHarness is a harness whose runtime has apiKernels, on a simulator of
// two devices (the API's checks are the sandbox's, whatever the backend;
// kapiNative checks what the configured backend answers).
func kapiHarness(t *testing.T, prof abi.Profile, opts ...host.Option) *harness {
	t.Helper()
	b := sim.New(sim.WithDevices(2))
	t.Cleanup(func() { b.Close() })
	return newHarnessIn(t, prof, apiPolicy, append([]host.Option{host.WithBackend(b), host.WithKernels(apiKernels()...)}, opts...)...)
}

// Scratch of the API tests in guest memory.
const (
	kBinName  = data        // "add_custom.o"
	kFnName   = data + 64   // "add_custom"
	kParam    = data + 128  // a parameter's bytes
	kStruct   = data + 256  // options or cfg
	kAttrs    = data + 512  // their arrays
	kPacked   = data + 1024 // packed arguments
	kBadName  = data + 1536 // "nosuch"
	kSpinName = data + 1600 // "spin"
)

// kapi is the state most API cases start from: device 0 current, the
// binary loaded, add_custom's function and a finalized argument list for
// n float32s at x, y and z (device memory of 4*n bytes each).
type kapi struct {
	bin, fn, args uint64
	x, y, z, s    uint64
	n             uint64
}

func (h *harness) setupKapi(n uint64) kapi {
	h.T.Helper()
	h.PutStr(kBinName, "add_custom.o")
	h.PutStr(kFnName, "add_custom")
	h.PutStr(kBadName, "nosuch")
	h.PutStr(kSpinName, "spin")
	h.OK("aclrtSetDevice", 0)
	k := kapi{n: n}
	k.x, k.y, k.z = h.Malloc(4*n), h.Malloc(4*n), h.Malloc(4*n)
	k.s = h.Stream()
	k.bin = h.handleOut("aclrtBinaryLoadFromFile", kBinName, 0, outA)
	k.fn = h.handleOut("aclrtBinaryGetFunction", k.bin, kFnName, outA)
	k.args = h.argsFor(k.fn, k.x, k.y, k.z, n)
	return k
}

// handleOut calls name, which writes a handle to outA, and returns it.
func (h *harness) handleOut(name string, args ...uint64) uint64 {
	h.T.Helper()
	h.OK(name, args...)
	return uint64(h.U32(outA))
}

// appendArg appends the size bytes of v (little-endian) to args.
func (h *harness) appendArg(args, v, size uint64) acl.Error {
	h.T.Helper()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	copy(h.Mem()[kParam:], b[:size])
	return h.rc("aclrtKernelArgsAppend", args, kParam, size, outB)
}

// argsFor makes a finalized argument list of add_custom's arguments.
func (h *harness) argsFor(fn, x, y, z, n uint64) uint64 {
	h.T.Helper()
	args := h.handleOut("aclrtKernelArgsInit", fn, outA)
	w := uint64(8)
	if h.Prof == abi.Native32 {
		w = 4
	}
	for _, a := range []uint64{x, y, z} {
		require.Zero(h.T, h.appendArg(args, a, w))
	}
	require.Zero(h.T, h.appendArg(args, n, 4))
	h.OK("aclrtKernelArgsFinalize", args)
	return args
}

// launch launches fn with args on stream s and blocks blocks.
func (h *harness) launch(k kapi, blocks, s, args uint64) acl.Error {
	return h.rc("aclrtLaunchKernelWithConfig", k.fn, blocks, s, 0, args, 0)
}

// putCfg writes an aclrtLaunchKernelCfg or aclrtBinaryLoadOptions at
// kStruct: {array, count}, 4 bytes each in both profiles.
func (h *harness) putCfg(arr, n uint32) {
	binary.LittleEndian.PutUint32(h.Mem()[kStruct:], arr)
	binary.LittleEndian.PutUint32(h.Mem()[kStruct+4:], n)
}

// devF32s writes float32s to device memory at dev.
func (h *harness) devF32s(dev uint64, vs ...float32) {
	h.T.Helper()
	h.putF32s(data2, vs...)
	h.OK("aclrtMemcpy", dev, uint64(4*len(vs)), data2, uint64(4*len(vs)), uint64(acl.MemcpyHostToDevice))
}

// getF32s reads n float32s of device memory at dev.
func (h *harness) getF32s(dev uint64, n int) []float32 {
	h.T.Helper()
	h.OK("aclrtMemcpy", data2, uint64(4*n), dev, uint64(4*n), uint64(acl.MemcpyDeviceToHost))
	return h.f32s(data2, n)
}

func TestKernelAPILaunch(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := kapiHarness(t, prof)
			k := h.setupKapi(8)
			h.devF32s(k.x, 1, 2, 3, 4, 5, 6, 7, 8)
			h.devF32s(k.y, 10, 20, 30, 40, 50, 60, 70, 80)
			require.Zero(t, h.launch(k, 3, k.s, k.args))
			h.OK("aclrtSynchronizeStream", k.s)
			require.Equal(t, []float32{11, 22, 33, 44, 55, 66, 77, 88}, h.getF32s(k.z, 8))
			// The same kernel by its entry, the same function handle.
			h.OK("aclrtBinaryGetFunctionByEntry", k.bin, 7, outA)
			require.Equal(t, k.fn, uint64(h.U32(outA)))
			// aclrtLaunchKernel: the arguments packed in device memory, each
			// at an 8-byte aligned offset (a 4-byte acl32 address in the
			// first half of its slot).
			h.devF32s(k.y, 1, 1, 1, 1, 1, 1, 1, 1)
			packed := h.Malloc(64)
			var b [32]byte
			for i, a := range []uint64{k.x, k.y, k.z} {
				binary.LittleEndian.PutUint64(b[8*i:], a) // 4-byte addresses fit their 8-byte slots
			}
			binary.LittleEndian.PutUint32(b[24:], 8)
			copy(h.Mem()[kPacked:], b[:])
			h.OK("aclrtMemcpy", packed, 28, kPacked, 28, uint64(acl.MemcpyHostToDevice))
			require.Zero(t, h.rc("aclrtLaunchKernel", k.fn, 2, packed, 28, k.s))
			h.OK("aclrtSynchronizeStream", k.s)
			require.Equal(t, []float32{2, 3, 4, 5, 6, 7, 8, 9}, h.getF32s(k.z, 8))
			// Unloading invalidates the binary's handles.
			h.OK("aclrtBinaryUnLoad", k.bin)
			h.Code(acl.ErrRTInvalidHandle, "aclrtLaunchKernelWithConfig", k.fn, 1, k.s, 0, k.args, 0)
			h.Code(acl.ErrRTInvalidHandle, "aclrtBinaryUnLoad", k.bin)
		})
	}
}

// TestKernelAPIExtents checks a buffer's declared extent at and one byte
// past its allocation's end, freed and foreign buffers, guest memory and
// read-only leases, when queued and when executed.
func TestKernelAPIExtents(t *testing.T) {
	h := kapiHarness(t, abi.Wide)
	k := h.setupKapi(8)
	// z's 32 bytes end exactly at the end of an allocation of 36: fine.
	at := h.Malloc(36)
	require.Zero(t, h.launch(k, 1, k.s, h.argsFor(k.fn, k.x, k.y, at+4, 8)))
	h.OK("aclrtSynchronizeStream", k.s)
	// One byte further (an allocation of 35): 107000, nothing queued.
	short := h.Malloc(35)
	require.Equal(t, acl.ErrRTParamInvalid, h.launch(k, 1, k.s, h.argsFor(k.fn, k.x, k.y, short+4, 8)))
	require.Contains(t, h.RecentMsg(), "crosses the end of the allocation")
	// Guest memory, forged and freed addresses.
	for _, z := range []uint64{data, 1 << 40} {
		require.Equal(t, acl.ErrRTParamInvalid, h.launch(k, 1, k.s, h.argsFor(k.fn, k.x, k.y, z, 8)), "%#x", z)
	}
	gone := h.Malloc(32)
	freed := h.argsFor(k.fn, k.x, k.y, gone, 8)
	h.OK("aclrtFree", gone)
	require.Equal(t, acl.ErrRTParamInvalid, h.launch(k, 1, k.s, freed))
	// Another session's allocation (of the same runtime) is not one of
	// this session's.
	ctx := context.Background()
	pl, err := h.RT.Load(ctx, proxytest.Proxy(abi.Wide), apiPolicy)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	other, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, other.Close(ctx)) })
	_, err = other.Call(ctx, "aclrtSetDevice", 0)
	require.NoError(t, err)
	res, err := other.Call(ctx, "aclrtMalloc", outA, 32, 0)
	require.NoError(t, err)
	require.Zero(t, res[0])
	foreign := binary.LittleEndian.Uint64(proxytest.Mem(other)[outA:])
	require.Equal(t, acl.ErrRTParamInvalid, h.launch(k, 1, k.s, h.argsFor(k.fn, k.x, k.y, foreign, 8)))
	require.Contains(t, h.RecentMsg(), "z")
	h.OK("aclrtSynchronizeStream", k.s)
}

// TestKernelAPIReadOnlyLease: a read-only lease may be read by a kernel,
// never written.
func TestKernelAPIReadOnlyLease(t *testing.T) {
	h := kapiHarness(t, abi.Wide)
	k := h.setupKapi(8)
	p, _ := testsupport.Lent(t, h.RT.Backend(), 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{ReadOnly: true})
	require.NoError(t, err)
	a := l.Addr()
	require.Zero(t, h.launch(k, 1, k.s, h.argsFor(k.fn, a, k.y, k.z, 8)), h.RecentMsg())
	require.Equal(t, acl.ErrRTParamInvalid, h.launch(k, 1, k.s, h.argsFor(k.fn, k.x, k.y, a, 8)))
	require.Contains(t, h.RecentMsg(), "read-only")
	h.OK("aclrtSynchronizeStream", k.s)
}

// TestKernelAPIBlocks: numBlocks from 1 to the session's core limit.
func TestKernelAPIBlocks(t *testing.T) {
	h := kapiHarness(t, abi.Wide)
	k := h.setupKapi(8)
	h.OK("aclrtGetDeviceResLimit", 0, uint64(acl.DevResCubeCore), outC)
	limit := uint64(h.U32(outC))
	require.Zero(t, h.launch(k, limit, k.s, k.args))
	require.Equal(t, acl.ErrRTParamInvalid, h.launch(k, limit+1, k.s, k.args))
	require.Contains(t, h.RecentMsg(), "blockDim")
	require.Equal(t, acl.ErrInvalidParam, h.launch(k, 0, k.s, k.args))
	h.OK("aclrtSynchronizeStream", k.s)
}

// TestKernelAPIUngranted: a binary whose kernels the plugin was not
// granted, and a name nobody registered, both read as missing files.
func TestKernelAPIUngranted(t *testing.T) {
	h := kapiHarness(t, abi.Wide)
	for _, name := range []string{"secret.o", "nosuch.o", "", "/etc/passwd", "../out/"} {
		h.PutStr(kBinName, name)
		h.Code(acl.ErrRTParamInvalid, "aclrtBinaryLoadFromFile", kBinName, 0, outA)
		require.Contains(t, h.RecentMsg(), "approved: \"add_custom.o\"", name)
	}
	// Any directory names the binary by its file name.
	h.PutStr(kBinName, "./out/fatbin/add_custom.o")
	h.OK("aclrtBinaryLoadFromFile", kBinName, 0, outA)
	bin := uint64(h.U32(outA))
	h.PutStr(kFnName, "secret")
	h.Code(acl.ErrRTParamInvalid, "aclrtBinaryGetFunction", bin, kFnName, outA)
}

// TestKernelAPILoadFromData: guest-supplied device code is refused.
func TestKernelAPILoadFromData(t *testing.T) {
	h := kapiHarness(t, abi.Wide)
	copy(h.Mem()[data:], "\x7fELF not run")
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtBinaryLoadFromData", data, 12, 0, outA)
	require.Contains(t, h.RecentMsg(), "device code the guest supplies")
}

// TestKernelAPILaunchTimeout: cfg's timeout attribute stops a kernel that
// runs past it, which fails its stream with 507014.
func TestKernelAPILaunchTimeout(t *testing.T) {
	h := kapiHarness(t, abi.Wide)
	k := h.setupKapi(8)
	spin := h.handleOut("aclrtBinaryGetFunction", k.bin, kSpinName, outA)
	args := h.handleOut("aclrtKernelArgsInit", spin, outA)
	h.OK("aclrtKernelArgsFinalize", args)
	// {attrs, numAttrs} and one attribute: TIMEOUT_US, 1000 us.
	h.putCfg(kAttrs, 1)
	binary.LittleEndian.PutUint32(h.Mem()[kAttrs:], 8)
	binary.LittleEndian.PutUint64(h.Mem()[kAttrs+4:], 1000)
	require.Zero(t, h.rc("aclrtLaunchKernelWithConfig", spin, 1, k.s, kStruct, args, 0))
	watchdog, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	res, err := h.Inst.Call(watchdog, "aclrtSynchronizeStream", k.s)
	require.NoError(t, err, "the kernel outlived its launch's timeout")
	require.Equal(t, uint64(acl.ErrRTAicoreTimeout), res[0])
	require.Contains(t, h.Inst.Session().LastError(), "ran past its launch's timeout")
}

// TestKernelAPINativeBackend: the configured backend (the stand-in under
// ACLWASM_TEST_ACL_LIB) answers 207000 at launch where it runs no
// registered kernels, and runs them where it does.
func TestKernelAPINativeBackend(t *testing.T) {
	if opts := proxytest.Backend(t); len(opts) > 0 { // a backend that runs kernel binaries loads them with the plugin
		ctx := context.Background()
		rt, err := host.NewRuntime(ctx, append(opts, host.WithEngine(testEngine), host.WithKernels(apiKernels()...))...)
		require.NoError(t, err)
		defer func() { require.NoError(t, rt.Close(ctx)) }()
		if rt.Backend().Traits().KernelRunner != nil {
			_, err = rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), apiPolicy)
			require.ErrorContains(t, err, "host: kernel add_custom: loading its binary out/add_custom.o: ")
			return
		}
	}
	h := newHarness(t, apiPolicy, host.WithKernels(apiKernels()...))
	k := h.setupKapi(8)
	computes := h.RT.Backend().Traits().Computer != nil
	if computes {
		require.Zero(t, h.launch(k, 1, k.s, k.args))
		h.OK("aclrtSynchronizeStream", k.s)
		return
	}
	require.Equal(t, acl.ErrRTFeatureNotSupport, h.launch(k, 1, k.s, k.args))
	require.Contains(t, h.RecentMsg(), "runs no registered kernels")
}
