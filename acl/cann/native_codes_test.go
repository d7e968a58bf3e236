//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/faulty"
)

// nativeAPI is a few of the stand-in's exports, called directly: the
// codes they return are the native runtime's, whatever package cann makes
// of them.
type nativeAPI struct {
	aclInit                   func(path uintptr) int32
	aclFinalize               func() int32
	aclrtSetDevice            func(dev int32) int32
	aclrtResetDevice          func(dev int32) int32
	aclrtMalloc               func(p *uintptr, n uint64, policy int32) int32
	aclrtFree                 func(p uintptr) int32
	aclrtCreateStream         func(s *uintptr) int32
	aclrtDestroyStream        func(s uintptr) int32
	aclrtDestroyStreamForce   func(s uintptr) int32
	aclrtSynchronizeStream    func(s uintptr) int32
	aclrtStreamQuery          func(s uintptr, st *uint32) int32
	aclrtCreateEvent          func(e *uintptr) int32
	aclrtDestroyEvent         func(e uintptr) int32
	aclrtRecordEvent          func(e, s uintptr) int32
	aclrtStreamWaitEvent      func(s, e uintptr) int32
	aclrtEventElapsedTime     func(ms *float32, start, end uintptr) int32
	aclrtMemsetD32            func(p uintptr, memSize uint64, v uint32, n uint64) int32
	aclrtMemsetD32Async       func(p uintptr, memSize uint64, v uint32, n uint64, s uintptr) int32
	aclrtGetOpTimeOutInterval func(iv *uint64) int32
}

func loadNative(t *testing.T, s *standin) *nativeAPI {
	h, err := purego.Dlopen(s.path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var a nativeAPI
	for name, fn := range map[string]any{
		"aclInit": &a.aclInit, "aclFinalize": &a.aclFinalize, "aclrtSetDevice": &a.aclrtSetDevice,
		"aclrtResetDevice": &a.aclrtResetDevice, "aclrtMalloc": &a.aclrtMalloc, "aclrtFree": &a.aclrtFree,
		"aclrtCreateStream": &a.aclrtCreateStream, "aclrtDestroyStream": &a.aclrtDestroyStream,
		"aclrtDestroyStreamForce": &a.aclrtDestroyStreamForce, "aclrtSynchronizeStream": &a.aclrtSynchronizeStream,
		"aclrtStreamQuery": &a.aclrtStreamQuery, "aclrtCreateEvent": &a.aclrtCreateEvent,
		"aclrtDestroyEvent": &a.aclrtDestroyEvent, "aclrtRecordEvent": &a.aclrtRecordEvent, "aclrtStreamWaitEvent": &a.aclrtStreamWaitEvent,
		"aclrtEventElapsedTime": &a.aclrtEventElapsedTime, "aclrtMemsetD32": &a.aclrtMemsetD32,
		"aclrtMemsetD32Async": &a.aclrtMemsetD32Async, "aclrtGetOpTimeOutInterval": &a.aclrtGetOpTimeOutInterval,
	} {
		purego.RegisterLibFunc(fn, h, name)
	}
	return &a
}

// TestStandinNativeCodes checks the stand-in against what the native
// runtime (hicann/runtime 681ef761) returns where the sandbox once guessed:
// the order of aclrtMemsetD32's checks, an elapsed time without a record,
// the operator timeout interval without a device, and streams of another
// device. The calls run on one locked OS thread, whose current context is
// the stand-in's thread-local one.
func TestStandinNativeCodes(t *testing.T) {
	s := getStandin(t, full)
	a := loadNative(t, s)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := s.Stats()
	require.Zero(t, before.DeviceRefs, "no backend is open: no thread has a current device")
	if before.Inited == 0 {
		require.Zero(t, a.aclInit(0))
		defer func() { require.Zero(t, a.aclFinalize()) }()
	}
	defer func() {
		after := s.Stats()
		after.Inited = before.Inited
		require.Equal(t, before, after, "the test releases what it made")
	}()
	const (
		invalidParam  = 100000
		rtParam       = 107000
		contextNull   = 107002
		streamContext = 107003
		internal      = 507000
	)

	// Without a current device: the interval needs one (api_impl.cc:6277-6278);
	// aclrtMemsetD32's ACL-layer checks do not (memory.cpp:778-814).
	var iv uint64
	require.EqualValues(t, contextNull, a.aclrtGetOpTimeOutInterval(&iv))
	host := make([]uint32, 16)
	hp := uintptr(unsafe.Pointer(&host[0]))
	require.EqualValues(t, 0, a.aclrtMemsetD32(0, 0, 1, 0), "count 0 first, NULL too")
	require.EqualValues(t, 0, a.aclrtMemsetD32Async(0, 0, 1, 0, 0x7777), "count 0 before the stream")
	require.EqualValues(t, invalidParam, a.aclrtMemsetD32(hp, 15, 1, 4), "memSize short: the ACL layer")
	require.EqualValues(t, invalidParam, a.aclrtMemsetD32Async(hp, 15, 1, 4, 0x7777), "memSize before the stream")
	require.EqualValues(t, invalidParam, a.aclrtMemsetD32(hp, 64, 1, 16), "unregistered host memory, no device")
	require.EqualValues(t, invalidParam, a.aclrtMemsetD32Async(hp, 64, 1, 16, 0x7777), "unregistered before the stream")
	require.Equal(t, make([]uint32, 16), host, "nothing set")

	require.Zero(t, a.aclrtSetDevice(1))
	var s1 uintptr
	require.Zero(t, a.aclrtCreateStream(&s1))
	require.Zero(t, a.aclrtSetDevice(0))
	require.Zero(t, a.aclrtGetOpTimeOutInterval(&iv))
	require.NotZero(t, iv)

	// Events: never recorded has no recorder (event.cc:1249-1250).
	var e1, e2 uintptr
	require.Zero(t, a.aclrtCreateEvent(&e1))
	require.Zero(t, a.aclrtCreateEvent(&e2))
	require.Zero(t, a.aclrtRecordEvent(e1, 0))
	require.Zero(t, a.aclrtSynchronizeStream(0))
	var ms float32
	require.EqualValues(t, internal, a.aclrtEventElapsedTime(&ms, e1, e2))
	require.EqualValues(t, internal, a.aclrtEventElapsedTime(&ms, e2, e1))
	// A wait for an event never recorded is refused (event.cc:721-729).
	require.EqualValues(t, rtParam, a.aclrtStreamWaitEvent(0, e2))
	require.Zero(t, a.aclrtStreamWaitEvent(0, e1), "a recorded one is waited for")
	require.Zero(t, a.aclrtSynchronizeStream(0))

	// Device 1's stream with device 0 current: waited for and queried in
	// its own context (api_impl.cc:1715-1727, 1767-1784), not destroyed
	// (api_impl.cc:1584-1585).
	var d1 uintptr
	require.Zero(t, a.aclrtSetDevice(1))
	require.Zero(t, a.aclrtMalloc(&d1, 64, 0))
	require.Zero(t, a.aclrtMemsetD32Async(d1, 64, 7, 16, s1))
	require.Zero(t, a.aclrtSetDevice(0))
	require.Zero(t, a.aclrtSynchronizeStream(s1))
	var st uint32 = 9
	require.Zero(t, a.aclrtStreamQuery(s1, &st))
	require.Zero(t, st, "complete")
	require.EqualValues(t, streamContext, a.aclrtDestroyStream(s1))
	require.EqualValues(t, streamContext, a.aclrtDestroyStreamForce(s1))
	require.Zero(t, a.aclrtSetDevice(1))
	require.Zero(t, a.aclrtSynchronizeStream(s1), "the stream still lives")
	require.Zero(t, a.aclrtDestroyStream(s1))
	require.Zero(t, a.aclrtFree(d1))

	require.Zero(t, a.aclrtDestroyEvent(e1))
	require.Zero(t, a.aclrtDestroyEvent(e2))
	for _, dev := range []int32{1, 0, 1, 0, 1} { // every aclrtSetDevice above
		require.Zero(t, a.aclrtResetDevice(dev))
	}
}

// TestFaultyKeepsTraits: internal/faulty's wrapper of the native backend
// reports exactly its traits (its native roles; it promises neither zeroed
// allocations nor copies without peer access) and forwards what it
// supports, so that fault-injection tests over the stand-in run the host
// code that production runs.
func TestFaultyKeepsTraits(t *testing.T) {
	b, _ := open(t, full)
	w := faulty.Wrap(b)
	require.Equal(t, faulty.Roles(b), faulty.Roles(w))
	require.Equal(t, []string{"DeviceRegisterer", "StreamResLimiter", "OverflowSwitcher", "OpComputer", "KernelRunner", "RandomGenerator", "Reducer", "ModelRunner"}, faulty.Roles(b))
	for _, fn := range []string{"aclrtDestroyStreamForce", "aclrtMemsetD32", "aclrtNoSuchFunction"} {
		require.Equal(t, b.Supports(fn), w.Supports(fn), fn)
	}
}
