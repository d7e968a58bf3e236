//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// match checks that got holds exactly the calls want describes, in order.
// In want, "*" stands for one value the test cannot know (an out-parameter's
// address, a native stream).
func match(t *testing.T, want, got []string) {
	t.Helper()
	require.Len(t, got, len(want), "native calls:\n%s", strings.Join(got, "\n"))
	for i, w := range want {
		re := "^" + strings.ReplaceAll(regexp.QuoteMeta(w), `\*`, `[^,)\]]*`) + "$"
		require.Regexp(t, re, got[i], "call %d", i)
	}
}

// mmapped returns n bytes outside the Go heap, page aligned, as the
// sandbox's guest memory is.
func mmapped(t *testing.T, n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}

func code(t *testing.T, err error, want acl.Error) {
	t.Helper()
	require.Error(t, err)
	require.Truef(t, errors.Is(err, want), "got %v, want %v", err, want)
}

func TestOpen(t *testing.T) {
	s := getStandin(t, full)
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, "lib64"), 0o755))
	require.NoError(t, os.Symlink(s.path, filepath.Join(home, "lib64", "libascendcl.so")))
	missing := filepath.Join(t.TempDir(), "libascendcl.so")

	tests := []struct {
		name    string
		path    string
		env     map[string]string
		wantErr []string // substrings of the error; none: Open succeeds
	}{
		{"explicit path", s.path, nil, nil},
		{"explicit path missing", missing, nil, []string{missing}},
		{"ACLWASM_ACL_LIB", "", map[string]string{"ACLWASM_ACL_LIB": s.path}, nil},
		{"ACLWASM_ACL_LIB is the only candidate", "", map[string]string{"ACLWASM_ACL_LIB": missing, "ASCEND_HOME_PATH": home}, []string{missing}},
		{"ASCEND_HOME_PATH", "", map[string]string{"ACLWASM_ACL_LIB": "", "ASCEND_HOME_PATH": home}, nil},
		{"nothing found", "", map[string]string{"ACLWASM_ACL_LIB": "", "ASCEND_HOME_PATH": ""}, []string{"libascendcl.so (", defaultToolkitLib}},
		{"not an ACL library", "libc.so.6", nil, []string{"does not export aclInit", "aclrtMemcpy,"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			b, err := Open(tc.path)
			if tc.wantErr == nil {
				require.NoError(t, err)
				require.Equal(t, "cann", b.Name())
				require.Equal(t, 2, b.DeviceCount())
				major, minor, patch := b.Version()
				require.Equal(t, [3]int32{1, 17, 0}, [3]int32{major, minor, patch})
				require.Empty(t, b.MissingSymbols())
				require.NoError(t, b.Close())
				return
			}
			require.Error(t, err)
			for _, w := range tc.wantErr {
				require.ErrorContains(t, err, w)
			}
			if !strings.Contains(tc.name, "not an ACL") {
				require.ErrorIs(t, err, ErrLibraryNotFound)
			}
		})
	}
	require.Equal(t, stats{Leaked: s.Stats().Leaked}, s.Stats(), "every Open was closed")
}

// TestInitOncePerProcess checks that backends share one aclInit and the
// last Close finalizes.
func TestInitOncePerProcess(t *testing.T) {
	s := getStandin(t, full)
	s.logReset()
	b1, err := Open(s.path)
	require.NoError(t, err)
	b2, err := Open(s.path)
	require.NoError(t, err)
	require.NoError(t, b1.Close())
	require.NoError(t, b1.Close(), "Close is idempotent")
	require.Empty(t, s.calls("aclFinalize"), "another backend is still open")
	require.NoError(t, b2.Close())
	match(t, []string{"aclInit(configPath=0x0) = 0", "aclrtGetDeviceCount(count=*) = 0", "aclrtGetVersion(major=*, minor=*, patch=*) = 0",
		"aclrtGetDeviceCount(count=*) = 0", "aclrtGetVersion(major=*, minor=*, patch=*) = 0", "aclFinalize() = 0"}, s.calls())
}

// TestNativeCalls checks the exact native calls each operation makes.
func TestNativeCalls(t *testing.T) {
	ctx := context.Background()
	type env struct {
		b       *Backend
		p, q    acl.DevPtr // 256 bytes each on device 0
		s       acl.Stream // a created stream on device 0
		host    []byte     // 256 bytes of Go memory, not registered
		pinned  []byte     // 8192 bytes outside the Go heap, registered
		pin     acl.HostPin
		ev      acl.Event
		invalid acl.Stream
	}
	tests := []struct {
		name string
		do   func(e *env) error
		code acl.Error // 0: success
		want []string  // the native calls, after setup, context switches left out
	}{
		{"Memcpy H2D", func(e *env) error { return e.b.Memcpy(ctx, acl.Device(e.p), acl.Host(e.host[:16], 0), 16) }, 0,
			[]string{"aclrtMemcpy(dst=<P>, destMax=16, src=<HOST>, count=16, kind=1) = 0"}},
		{"Memcpy D2H", func(e *env) error { return e.b.Memcpy(ctx, acl.Host(e.host, 0), acl.Device(e.p+8), 100) }, 0,
			[]string{"aclrtMemcpy(dst=<HOST>, destMax=100, src=<P+8>, count=100, kind=2) = 0"}},
		{"Memcpy D2D", func(e *env) error { return e.b.Memcpy(ctx, acl.Device(e.q), acl.Device(e.p), 256) }, 0,
			[]string{"aclrtMemcpy(dst=<Q>, destMax=256, src=<P>, count=256, kind=3) = 0"}},
		{"Memcpy H2H needs no runtime", func(e *env) error { return e.b.Memcpy(ctx, acl.Host(e.host[:8], 0), acl.Host(e.host[8:16], 0), 8) }, 0, nil},
		{"Memcpy count 0", func(e *env) error { return e.b.Memcpy(ctx, acl.Device(e.p), acl.Host(nil, 0), 0) }, 0, nil},
		{"Memcpy past the allocation", func(e *env) error { return e.b.Memcpy(ctx, acl.Device(e.p+200), acl.Host(e.host[:100], 0), 100) }, acl.ErrRTParamInvalid, nil},
		{"Memcpy unknown address", func(e *env) error { return e.b.Memcpy(ctx, acl.Device(0xdead0000), acl.Host(e.host[:8], 0), 8) }, acl.ErrRTParamInvalid, nil},
		{"Memcpy short host slice", func(e *env) error { return e.b.Memcpy(ctx, acl.Device(e.p), acl.Host(e.host[:8], 0), 16) }, acl.ErrRTParamInvalid, nil},
		{"MemcpyAsync pinned", func(e *env) error {
			return e.b.MemcpyAsync(ctx, acl.Device(e.p), acl.Host(e.pinned[100:132], e.pin), 32, e.s)
		}, 0, []string{"aclrtMemcpyAsync(dst=<P>, destMax=32, src=<PIN+100>, count=32, kind=1, stream=*) = 0"}},
		{"MemcpyAsync pageable waits, then copies synchronously", func(e *env) error {
			return e.b.MemcpyAsync(ctx, acl.Host(e.host[:32], 0), acl.Device(e.p), 32, e.s)
		}, 0, []string{"aclrtSynchronizeStreamWithTimeout(stream=*, timeout=20) = 0", "aclrtMemcpy(dst=<HOST>, destMax=32, src=<P>, count=32, kind=2) = 0"}},
		{"MemcpyAsync bad stream", func(e *env) error { return e.b.MemcpyAsync(ctx, acl.Device(e.p), acl.Device(e.q), 8, e.invalid) }, acl.ErrRTInvalidHandle, nil},
		{"MemcpyAsync H2H", func(e *env) error {
			return e.b.MemcpyAsync(ctx, acl.Host(e.pinned[:8], e.pin), acl.Host(e.pinned[8:16], e.pin), 8, e.s)
		}, acl.ErrRTFeatureNotSupport, nil},
		{"MemcpyAsync into a pin's neighbour", func(e *env) error {
			return e.b.MemcpyAsync(ctx, acl.Host(e.host[:8], e.pin), acl.Device(e.p), 8, e.s)
		}, acl.ErrRTParamInvalid, nil},
		{"Memcpy2D", func(e *env) error {
			return e.b.Memcpy2D(ctx, acl.Device(e.p), 16, acl.Host(e.host[:3*10+4], 0), 10, 4, 4)
		}, 0,
			[]string{"aclrtMemcpy2d(dst=<P>, dpitch=16, src=<HOST>, spitch=10, width=4, height=4, kind=1) = 0"}},
		{"Memcpy2DAsync pinned", func(e *env) error {
			return e.b.Memcpy2DAsync(ctx, acl.Host(e.pinned[:64], e.pin), 16, acl.Device(e.q), 16, 8, 4, e.s)
		}, 0, []string{"aclrtMemcpy2dAsync(dst=<PIN>, dpitch=16, src=<Q>, spitch=16, width=8, height=4, kind=2, stream=*) = 0"}},
		{"Memset", func(e *env) error { return e.b.Memset(ctx, acl.Device(e.q+1), 0xAB, 10) }, 0,
			[]string{"aclrtMemset(devPtr=<Q+1>, maxCount=10, value=171, count=10) = 0"}},
		{"Memset host needs no runtime", func(e *env) error { return e.b.Memset(ctx, acl.Host(e.host, 0), 1, 10) }, 0, nil},
		{"MemsetAsync pinned", func(e *env) error { return e.b.MemsetAsync(ctx, acl.Host(e.pinned[:10], e.pin), 7, 10, e.s) }, 0,
			[]string{"aclrtMemsetAsync(devPtr=<PIN>, maxCount=10, value=7, count=10, stream=*) = 0"}},
		{"MemcpyBatch", func(e *env) error {
			return e.b.MemcpyBatch(ctx, []acl.Copy{
				{Dst: acl.Device(e.p), Src: acl.Host(e.host[:4], 0), N: 4},
				{Dst: acl.Host(e.pinned[:8], e.pin), Src: acl.Device(e.q), N: 8},
				{Dst: acl.Device(e.p), Src: acl.Device(e.q), N: 0},
			})
		}, 0, []string{"aclrtMemcpyBatchV2(dsts=[<P> <PIN>], destMaxs=[4 8], srcs=[<HOST> <Q>], sizes=[4 8], numBatches=2, " +
			"attrs=[{dst=DEVICE:0 src=UNREGISTERED:0} {dst=HOST:0 src=DEVICE:0}], attrsIndexes=[0 1], numAttrs=2) = 0"}},
		{"MemcpyBatchAsync pinned", func(e *env) error {
			return e.b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(e.p), Src: acl.Host(e.pinned[:4], e.pin), N: 4}}, e.s)
		}, 0, []string{"aclrtMemcpyBatchAsyncV2(dsts=[<P>], destMaxs=[4], srcs=[<PIN>], sizes=[4], numBatches=1, " +
			"attrs=[{dst=DEVICE:0 src=HOST:0}], attrsIndexes=[0], numAttrs=1, stream=*) = 0"}},
		{"MemcpyBatch rejected entry makes no call", func(e *env) error {
			return e.b.MemcpyBatch(ctx, []acl.Copy{{Dst: acl.Device(e.p), Src: acl.Host(e.host[:4], 0), N: 4}, {Dst: acl.Device(1), Src: acl.Device(e.q), N: 4}})
		}, acl.ErrRTParamInvalid, nil},
		{"RecordEvent and wait", func(e *env) error {
			return errors.Join(e.b.RecordEvent(e.ev, e.s), e.b.SynchronizeEvent(ctx, e.ev, -1))
		}, 0, []string{"aclrtRecordEvent(event=*, stream=*) = 0", "aclrtSynchronizeEventWithTimeout(event=*, timeout=20) = 0"}},
		{"SynchronizeStream with a timeout", func(e *env) error { return e.b.SynchronizeStream(ctx, e.s, 7) }, 0,
			[]string{"aclrtSynchronizeStreamWithTimeout(stream=*, timeout=7) = 0"}},
		{"SynchronizeStream bad timeout", func(e *env) error { return e.b.SynchronizeStream(ctx, e.s, -2) }, acl.ErrRTParamInvalid, nil},
		{"MemInfo", func(e *env) error { _, _, err := e.b.MemInfo(1, acl.HBMMem); return err }, 0,
			[]string{"aclrtSetDevice(deviceId=1) = 0", "aclrtGetCurrentContext(context=*) = 0", "aclrtGetMemInfo(attr=1, free=*, total=*) = 0"}},
		{"EnablePeerAccess", func(e *env) error { return e.b.EnablePeerAccess(0, 1) }, 0,
			[]string{"aclrtDeviceEnablePeerAccess(peerDeviceId=1, flags=0) = 0"}},
		{"SetMemcpyDesc", func(e *env) error {
			return e.b.SetMemcpyDesc(e.p, acl.MemcpyInnerDeviceToDevice, e.q, e.q+64, 32)
		}, 0, []string{"aclrtGetMemcpyDescSize(kind=6, descSize=*) = 0", "aclrtSetMemcpyDesc(desc=<P>, kind=6, srcAddr=<Q>, dstAddr=<Q+64>, count=32, config=0x0) = 0"}},
		{"SetMemcpyDesc outside allocations", func(e *env) error {
			return e.b.SetMemcpyDesc(e.p, acl.MemcpyInnerDeviceToDevice, e.q, 0x1000, 32)
		}, acl.ErrRTParamInvalid, []string{"aclrtGetMemcpyDescSize(kind=6, descSize=*) = 0"}},
		{"MemcpyAsyncWithOffset", func(e *env) error {
			return e.b.MemcpyAsyncWithOffset(e.p, 64, 8, e.q, 16, 4, acl.MemcpyInnerDeviceToDevice, e.s)
		}, 0, []string{"aclrtMemcpyAsyncWithOffset(dst=<P>, destMax=64, dstDataOffset=8, src=<Q>, count=16, srcDataOffset=4, kind=6, stream=*) = 0"}},
		{"MemcpyAsyncWithOffset slot outside allocations", func(e *env) error {
			return e.b.MemcpyAsyncWithOffset(e.p+252, 64, 8, e.q, 16, 4, acl.MemcpyInnerDeviceToDevice, e.s)
		}, acl.ErrRTParamInvalid, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, s := open(t, full)
			e := &env{b: b, invalid: 1 << 40}
			var err error
			e.p, err = b.Malloc(0, 256, acl.MemMallocHugeFirst)
			require.NoError(t, err)
			e.q, err = b.Malloc(0, 256, acl.MemMallocHugeFirst)
			require.NoError(t, err)
			e.s, err = b.CreateStream(0)
			require.NoError(t, err)
			e.ev, err = b.CreateEvent(0)
			require.NoError(t, err)
			e.host = make([]byte, 256)
			e.pinned = mmapped(t, 8192)
			e.pin, err = b.HostRegister(e.pinned, acl.HostRegisterMapped)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, b.HostUnregister(ctx, e.pin)) })
			s.logReset()

			err = tc.do(e)
			if tc.code == 0 {
				require.NoError(t, err)
			} else {
				code(t, err, tc.code)
			}
			want := make([]string, len(tc.want))
			r := strings.NewReplacer("<HOST>", hexp(addrOf(e.host)), "<PIN+100>", hexp(addrOf(e.pinned)+100), "<PIN>", hexp(addrOf(e.pinned)),
				"<P+8>", hexp(e.p+8), "<Q+64>", hexp(e.q+64), "<Q+1>", hexp(e.q+1), "<P>", hexp(e.p), "<Q>", hexp(e.q))
			for i, w := range tc.want {
				want[i] = r.Replace(w)
			}
			match(t, want, s.calls())
		})
	}
}

// TestHostRegisterPages checks what aclrtHostRegister is given: the pages
// of the range, registered once however many ranges fall inside them.
func TestHostRegisterPages(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, full)
	mem := mmapped(t, 4*4096)
	base := addrOf(mem)

	p1, err := b.HostRegister(mem[100:200], acl.HostRegisterMapped)
	require.NoError(t, err)
	p2, err := b.HostRegister(mem[300:400], acl.HostRegisterMapped)
	require.NoError(t, err, "a range inside the same page shares its registration")
	p3, err := b.HostRegister(mem[4096+10:2*4096+10], acl.HostRegisterReadOnly)
	require.NoError(t, err)
	match(t, []string{
		"aclrtSetDevice(deviceId=0) = 0",
		"aclrtGetCurrentContext(context=*) = 0",
		fmt.Sprintf("aclrtHostRegister(ptr=%s, size=4096, type=0, devPtr=*) = 0", hexp(base)),
		fmt.Sprintf("aclrtHostRegister(ptr=%s, size=8192, type=8, devPtr=*) = 0", hexp(base+4096)),
	}, s.calls())
	_, err = b.HostRegister(mem[150:160], acl.HostRegisterMapped)
	code(t, err, acl.ErrHostMemoryAlreadyRegistered)

	// Writing into a read-only range is refused without a native call.
	dev, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	s.logReset()
	code(t, b.Memcpy(ctx, acl.Host(mem[4096+10:4096+20], p3), acl.Device(dev), 10), acl.ErrRTParamInvalid)
	require.Empty(t, s.calls())

	require.NoError(t, b.HostUnregister(ctx, p1))
	require.Empty(t, s.calls(), "the page is still registered for p2")
	require.NoError(t, b.HostUnregister(ctx, p2))
	require.NoError(t, b.HostUnregister(ctx, p3))
	match(t, []string{
		fmt.Sprintf("aclrtHostUnregister(ptr=%s) = 0", hexp(base)),
		fmt.Sprintf("aclrtHostUnregister(ptr=%s) = 0", hexp(base+4096)),
	}, s.calls())
	code(t, b.HostUnregister(ctx, p1), acl.ErrHostMemoryNotRegistered)
}

// TestHostRegisterDevice: a registration is made in the context of the
// device it is for, as natively aclrtHostRegister registers for the current
// context's device, and undone in the same context; ranges of two devices
// never share a registration.
func TestHostRegisterDevice(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, full)
	mem := mmapped(t, 3*4096)
	base := addrOf(mem)

	p1, err := b.HostRegisterOn(1, mem[:100], acl.HostRegisterMapped)
	require.NoError(t, err)
	require.Equal(t, int32(1), s.regDev(base), "registered for device 1")
	p0, err := b.HostRegisterOn(0, mem[4096:4196], acl.HostRegisterMapped)
	require.NoError(t, err)
	require.Equal(t, int32(0), s.regDev(base+4096), "registered for device 0")
	// Another range on device 1's page, for device 0: no shared registration.
	p2, err := b.HostRegisterOn(0, mem[200:300], acl.HostRegisterMapped)
	require.NoError(t, err)
	require.Len(t, s.calls("aclrtHostRegister"), 2, "the range of device 0 does not share device 1's registration")
	require.NoError(t, b.HostUnregister(ctx, p2))

	// Unregistering in another device's context would give 507911.
	require.NoError(t, b.HostUnregister(ctx, p1))
	require.Equal(t, int32(-1), s.regDev(base))
	require.NoError(t, b.HostUnregister(ctx, p0))
	require.Equal(t, int32(-1), s.regDev(base+4096))
	match(t, []string{
		fmt.Sprintf("aclrtHostUnregister(ptr=%s) = 0", hexp(base)),
		fmt.Sprintf("aclrtHostUnregister(ptr=%s) = 0", hexp(base+4096)),
	}, s.calls("aclrtHostUnregister"))
}

// TestOptionalSymbols checks libraries without the V2 batch copies and
// without any optional symbol.
func TestOptionalSymbols(t *testing.T) {
	ctx := context.Background()
	t.Run("no V2", func(t *testing.T) {
		b, s := open(t, noV2)
		require.ElementsMatch(t, []string{"aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsyncV2"}, b.MissingSymbols())
		p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		host := make([]byte, 8)
		s.logReset()
		require.NoError(t, b.MemcpyBatch(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(host, 0), N: 8}}))
		match(t, []string{fmt.Sprintf("aclrtMemcpyBatch(dsts=[%s], destMaxs=[8], srcs=[%s], sizes=[8], numBatches=1, "+
			"attrs=[{dst=DEVICE:0 src=UNREGISTERED:0}], attrsIndexes=[0], numAttrs=1, failIndex=*) = 0", hexp(p), hexp(addrOf(host)))}, s.calls())
		// The V1 form names the failing copy.
		err = b.MemcpyBatch(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(host, 0), N: 8}, {Dst: acl.Device(p), Src: acl.Device(p + 8), N: 8}})
		code(t, err, acl.ErrRTParamInvalid)
		require.ErrorContains(t, err, "at copy 1")
	})
	t.Run("old runtime", func(t *testing.T) {
		b, s := open(t, older)
		require.ElementsMatch(t, []string{"aclrtHostRegister", "aclrtHostUnregister", "aclrtDestroyStreamForce", "aclrtSynchronizeEventWithTimeout",
			"aclrtMemcpyBatch", "aclrtMemcpyBatchAsync", "aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsyncV2",
			"aclrtGetMemcpyDescSize", "aclrtSetMemcpyDesc", "aclrtMemcpyAsyncWithDesc", "aclrtMemcpyAsyncWithOffset",
			"aclrtMemsetD32", "aclrtMemsetD32Async", "aclrtResetEvent", "aclrtStreamWaitEventWithTimeout", "aclrtGetOpTimeOutInterval",
			"aclrtCreateStreamWithConfig", "aclrtSetStreamFailureMode", "aclrtGetRunMode",
			"aclrtGetDeviceResLimit", "aclrtGetErrorVerbose",
			"aclrtCreateNotify", "aclrtDestroyNotify", "aclrtRecordNotify", "aclrtWaitAndResetNotify",
			"aclrtEventGetTimestamp",
			"aclrtSetStreamResLimit", "aclrtResetStreamResLimit",
			"aclrtGetSocName", "aclrtCheckArchCompatibility", "aclGetCannAttribute", "aclrtGetDeviceInfo",
			"aclrtGetDeviceCapability", "aclrtQueryDeviceStatus",
			"aclrtNotifyBatchReset",
			"aclrtReduceAsync",
			// kernels (kernel.go)
			"aclrtBinaryLoadFromFile", "aclrtBinaryGetFunction", "aclrtBinaryUnLoad", "aclrtKernelArgsInit",
			"aclrtKernelArgsAppend", "aclrtKernelArgsFinalize", "aclrtLaunchKernelWithConfig",
			"aclrtSetStreamOverflowSwitch", "aclrtGetStreamOverflowSwitch",
			"aclrtRandomNumAsync",
			// stopping operators (oplib.go)
			"aclrtStreamAbort",
			// offline models (model.go)
			"aclmdlQuerySize", "aclmdlLoadFromFile", "aclmdlUnload", "aclmdlCreateDesc", "aclmdlDestroyDesc", "aclmdlGetDesc",
			"aclmdlGetNumInputs", "aclmdlGetNumOutputs", "aclmdlGetInputSizeByIndex", "aclmdlGetOutputSizeByIndex",
			"aclmdlGetInputDims", "aclmdlGetOutputDims", "aclmdlGetInputNameByIndex", "aclmdlGetOutputNameByIndex",
			"aclmdlGetInputDataType", "aclmdlGetOutputDataType", "aclmdlGetInputFormat", "aclmdlGetOutputFormat",
			"aclCreateDataBuffer", "aclDestroyDataBuffer", "aclmdlCreateDataset", "aclmdlDestroyDataset",
			"aclmdlAddDatasetBuffer", "aclmdlExecuteAsync"}, b.MissingSymbols())
		p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		st, err := b.CreateStream(0)
		require.NoError(t, err)
		s.logReset()
		unsupported := map[string]func() error{
			"MemcpyBatch": func() error {
				return b.MemcpyBatch(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(make([]byte, 8), 0), N: 8}})
			},
			"MemcpyBatchAsync": func() error {
				return b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Device(p + 8), N: 8}}, st)
			},
			"HostRegister":          func() error { _, err := b.HostRegister(make([]byte, 8), acl.HostRegisterMapped); return err },
			"MemcpyDescSize":        func() error { _, err := b.MemcpyDescSize(acl.MemcpyInnerDeviceToDevice); return err },
			"SetMemcpyDesc":         func() error { return b.SetMemcpyDesc(p, acl.MemcpyInnerDeviceToDevice, p+32, p+40, 8) },
			"MemcpyAsyncWithDesc":   func() error { return b.MemcpyAsyncWithDesc(p, acl.MemcpyInnerDeviceToDevice, st) },
			"MemcpyAsyncWithOffset": func() error { return b.MemcpyAsyncWithOffset(p, 64, 0, p+8, 8, 0, acl.MemcpyInnerDeviceToDevice, st) },
			"MemsetD32":             func() error { return b.MemsetD32(ctx, acl.Device(p), 1, 4) },
			"MemsetD32Async":        func() error { return b.MemsetD32Async(ctx, acl.Device(p), 1, 4, st) },
			"ResetEvent":            func() error { return b.ResetEvent(acl.Event(1), st) },
			"StreamWaitEventTimeout": func() error {
				return b.StreamWaitEventTimeout(st, acl.Event(1), time.Second)
			},
			"OpTimeoutInterval":  func() error { _, err := b.OpTimeoutInterval(); return err },
			"DestroyStreamForce": func() error { return b.DestroyStreamForce(st) },
			"CreateStreamWithConfig": func() error {
				_, err := b.CreateStreamWithConfig(0, 0, acl.StreamFastLaunch)
				return err
			},
			"SetStreamFailureMode": func() error { return b.SetStreamFailureMode(st, acl.StopOnFailure) },
			"RunMode":              func() error { _, err := b.RunMode(); return err },
			"DeviceResLimit":       func() error { _, err := b.DeviceResLimit(0, acl.DevResCubeCore); return err },
			// ABI v1.2 section 12: notifies.
			"CreateNotify":       func() error { _, err := b.CreateNotify(0, acl.NotifyDefault); return err },
			"DestroyNotify":      func() error { return b.DestroyNotify(acl.Notify(1)) },
			"RecordNotify":       func() error { return b.RecordNotify(acl.Notify(1), st) },
			"WaitAndResetNotify": func() error { return b.WaitAndResetNotify(acl.Notify(1), st, 0) },
			"EventTimestamp":     func() error { _, err := b.EventTimestamp(acl.Event(1)); return err },
			// ABI v1.3 section 15: per-stream core limits.
			"SetStreamResLimit":   func() error { return b.SetStreamResLimit(st, acl.DevResCubeCore, 1) },
			"ResetStreamResLimit": func() error { return b.ResetStreamResLimit(st) },
			// ABI v1.3 section 15: device and product queries.
			"SocName":          func() error { _, err := b.SocName(); return err },
			"ArchCompatible":   func() error { _, err := b.ArchCompatible("Ascend910B1"); return err },
			"CannAttribute":    func() error { _, err := b.CannAttribute(acl.CannAttrBF16); return err },
			"DeviceInfo":       func() error { _, err := b.DeviceInfo(0, acl.DevAttrCubeCoreNum); return err },
			"DeviceCapability": func() error { _, err := b.DeviceCapability(0, acl.FeatureTaskUpdateAICAIV); return err },
			"DeviceStatus":     func() error { _, err := b.DeviceStatus(0); return err },
			"ResetNotify":      func() error { return b.ResetNotify(acl.Notify(1)) },
			// ABI v1.3 section 15: reduce.
			"ReduceAsync": func() error { return b.ReduceAsync(p, p+32, 8, acl.ReduceSum, acl.DTFloat, st) },
		}
		for name, f := range unsupported {
			code(t, f(), acl.ErrRTFeatureNotSupport)
			require.Empty(t, s.calls(), name)
		}
		for _, fn := range b.MissingSymbols() {
			require.False(t, b.Supports(fn), "Supports(%s) of a library without it", fn)
		}
		require.NotEmpty(t, b.MissingSymbols())
		require.True(t, b.Supports("aclrtMemcpy"), "a function every library has")
		// Event waits fall back to polling, stream destruction to draining.
		ev, err := b.CreateEvent(0)
		require.NoError(t, err)
		require.NoError(t, b.RecordEvent(ev, st))
		require.NoError(t, b.SynchronizeEvent(ctx, ev, -1))
		require.NotEmpty(t, s.calls("aclrtQueryEventStatus"))
		require.NotEmpty(t, s.calls("aclrtSynchronizeEvent"))
		require.NoError(t, b.DestroyEvent(ev))
		require.NoError(t, b.DestroyStream(ctx, st))
		require.NotEmpty(t, s.calls("aclrtDestroyStream"))
	})
}

// TestThreads hammers two devices from many goroutines: every call must
// find its device's context on whatever thread it runs (the stand-in
// refuses calls without one), and each device is bound exactly once.
func TestThreads(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, full)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dev := int32(g % 2)
			st, err := b.CreateStream(dev)
			if err != nil {
				errs <- err
				return
			}
			p, err := b.Malloc(dev, 128, acl.MemMallocHugeFirst)
			if err != nil {
				errs <- err
				return
			}
			in, out := make([]byte, 128), make([]byte, 128)
			for i := range in {
				in[i] = byte(g + i)
			}
			for range 20 {
				if err := errors.Join(b.Memcpy(ctx, acl.Device(p), acl.Host(in, 0), 128), b.MemsetAsync(ctx, acl.Device(p+64), byte(g), 64, st),
					b.SynchronizeStream(ctx, st, -1), b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), 128)); err != nil {
					errs <- err
					return
				}
				for i := range 64 {
					if out[i] != in[i] || out[64+i] != byte(g) {
						errs <- fmt.Errorf("goroutine %d: byte mismatch", g)
						return
					}
				}
			}
			errs <- errors.Join(b.Free(ctx, p), b.DestroyStream(ctx, st))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, s.calls("aclrtSetDevice"), 2, "each device is bound once")
	require.NoError(t, b.Close())
	match(t, []string{"aclrtResetDevice(deviceId=*) = 0", "aclrtResetDevice(deviceId=*) = 0"}, s.calls("aclrtResetDevice"))
}

// TestHostFunctions checks LaunchHostFunc: stream order, errors and panics
// held for the next synchronize, and the native calls it makes.
func TestHostFunctions(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, full)
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 8, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	pinned := mmapped(t, 4096)
	pin, err := b.HostRegister(pinned, acl.HostRegisterMapped)
	require.NoError(t, err)
	require.NoError(t, b.Memset(ctx, acl.Device(p), 0x11, 8))
	s.logReset()

	var seen []byte
	require.NoError(t, b.MemcpyAsync(ctx, acl.Host(pinned[:8], pin), acl.Device(p), 8, st))
	require.NoError(t, b.LaunchHostFunc(st, func() error {
		seen = append([]byte(nil), pinned[:8]...)    // the copy before it has run
		return b.Memset(ctx, acl.Device(p), 0x22, 8) // host functions may call the backend
	}))
	require.NoError(t, b.MemcpyAsync(ctx, acl.Host(pinned[8:16], pin), acl.Device(p), 8, st))
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	require.Equal(t, []byte{0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11}, seen)
	require.Equal(t, []byte{0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22}, pinned[8:16])
	match(t, []string{"aclrtSubscribeReport(threadId=*, stream=*) = 0", "aclrtLaunchCallback(fn=*, userData=*, blockType=1, stream=*) = 0"},
		s.calls("aclrtSubscribeReport", "aclrtLaunchCallback"))

	ev, err := b.CreateEvent(0)
	require.NoError(t, err)
	boom := errors.New("boom")
	require.NoError(t, b.LaunchHostFunc(st, func() error { return boom }))
	require.NoError(t, b.RecordEvent(ev, st))
	require.ErrorIs(t, b.SynchronizeEvent(ctx, ev, -1), boom, "an event recorded after a failed host function reports it")
	require.ErrorIs(t, b.SynchronizeStream(ctx, st, -1), boom)
	require.NoError(t, b.SynchronizeStream(ctx, st, -1), "the error is reported once")

	require.NoError(t, b.LaunchHostFunc(st, func() error { panic("host function bug") }))
	require.ErrorContains(t, b.SynchronizeStream(ctx, st, -1), "host function bug")

	require.NoError(t, b.DestroyEvent(ev))
	require.NoError(t, b.DestroyStream(ctx, st))
	require.Len(t, s.calls("aclrtUnSubscribeReport"), 1, "the report thread unsubscribes before the stream goes")
	require.NoError(t, b.HostUnregister(ctx, pin))
}

// TestDriverRefusals: on a node whose driver lacks the asynchronous batch
// and offset copies and device-only notifies, the runtime answers 207000
// before it looks at the arguments; the backend passes that on, as
// natively, and Supports reports the feature missing from then on.
func TestDriverRefusals(t *testing.T) {
	ctx := context.Background()
	b, s := open(t, oldDriver)
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.DestroyStream(ctx, st)) })
	dev, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Free(ctx, dev)) })
	mem := mmapped(t, 4096)
	pin, err := b.HostRegister(mem, acl.HostRegisterMapped)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.HostUnregister(ctx, pin)) })
	slot, err := b.Malloc(0, 8, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Free(ctx, slot)) })

	for _, fn := range []string{"aclrtMemcpyBatchAsyncV2", "aclrtMemcpyAsyncWithOffset", acl.DeviceOnlyNotify, "aclrtCreateNotify"} {
		require.True(t, b.Supports(fn), "%s before the driver refused it", fn)
	}
	code(t, b.MemcpyBatchAsync(ctx, []acl.Copy{{Dst: acl.Device(dev), Src: acl.Host(mem[:64], pin), N: 64}}, st), acl.ErrRTFeatureNotSupport)
	code(t, b.MemcpyAsyncWithOffset(slot, 64, 0, slot, 8, 0, acl.MemcpyInnerDeviceToDevice, st), acl.ErrRTFeatureNotSupport)
	_, err = b.CreateNotify(0, acl.NotifyDeviceUseOnly)
	code(t, err, acl.ErrRTFeatureNotSupport)
	for _, fn := range []string{"aclrtMemcpyBatchAsyncV2", "aclrtMemcpyAsyncWithOffset", acl.DeviceOnlyNotify} {
		require.False(t, b.Supports(fn), "%s once the driver refused it", fn)
	}
	require.True(t, b.Supports("aclrtCreateNotify"), "other notifies are unaffected")
	n, err := b.CreateNotify(0, acl.NotifyDefault)
	require.NoError(t, err)
	// A TS firmware without notify resets (ABI v1.3 section 15).
	require.True(t, b.Supports("aclrtNotifyBatchReset"), "before the firmware refused it")
	code(t, b.ResetNotify(n), acl.ErrRTFeatureNotSupport)
	require.False(t, b.Supports("aclrtNotifyBatchReset"), "once the firmware refused it")
	require.NoError(t, b.DestroyNotify(n))
	require.NotEmpty(t, s.calls("aclrtMemcpyBatchAsyncV2"), "the refusal came from the library")
	require.NotEmpty(t, s.calls("aclrtNotifyBatchReset"), "the refusal came from the library")
}
