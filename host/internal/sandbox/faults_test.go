package sandbox_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/faulty"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The runtime's own failures, injected by acl/faulty around the test
// backend (the simulator, or the native one over ACLWASM_TEST_ACL_LIB):
// the guest gets the native code at the call, or at the synchronize that
// follows the failed operation, the failed operation has no effect, and the
// session still releases everything.

// faultHarness is a proxy guest over a faulty backend.
func faultHarness(t *testing.T, p host.Policy) (*harness, faulty.Faulty) {
	t.Helper()
	inner := testsupport.Native(t) // closed when the test ends
	if inner == nil {
		inner = closed(t, sim.New())
	}
	return faultHarnessOn(t, p, inner)
}

// closed returns b, closed when the test ends, after what it backs.
func closed(t *testing.T, b acl.Backend) acl.Backend {
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// faultHarnessOn is faultHarness over inner, closed by the caller after
// the harness (a cleanup registered first).
func faultHarnessOn(t *testing.T, p host.Policy, inner acl.Backend) (*harness, faulty.Faulty) {
	t.Helper()
	fb := faulty.Wrap(inner)
	h := newHarness(t, p, host.WithBackend(fb))
	base := proxytest.FreeMem(t, h.RT)
	t.Cleanup(func() {
		// newHarness's cleanup, registered before this one, runs after it:
		// close the instance here to check the accounting.
		require.NoError(t, h.Inst.Close(context.Background()))
		require.Equal(t, base, proxytest.FreeMem(t, h.RT), "the session released everything")
		require.Zero(t, fb.Unfired(), "every fault asked for was injected")
	})
	return h, fb
}

const injectedMsg = "the runtime failed (ACL_ERROR_RT_INTERNAL_ERROR)"

// TestFaultAtCall: a backend call that fails changes nothing the guest can
// see but the code and message, and costs no quota.
func TestFaultAtCall(t *testing.T) {
	for _, tc := range []struct {
		method string
		run    func(h *harness, fb faulty.Faulty)
	}{
		{"Malloc", func(h *harness, fb faulty.Faulty) {
			h.PutU64s(outA, 77)
			fb.FailCall("Malloc", 1, faulty.Injected)
			require.Contains(t, h.Code(acl.ErrRTInternal, "aclrtMalloc", outA, 60000, 0), injectedMsg)
			require.Equal(t, uint64(77), h.U64(outA), "no address written")
			h.Malloc(60000) // most of the quota: the failure charged nothing
		}},
		{"Memcpy", func(h *harness, fb faulty.Faulty) {
			a := h.Malloc(4096)
			want := h.Fill(data, 4096, 1)
			h.OK("aclrtMemcpy", a, 4096, data, 4096, 1)
			h.Fill(data, 4096, 2)
			fb.FailCall("Memcpy", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtMemcpy", a, 4096, data, 4096, 1)
			h.OK("aclrtMemcpy", data2, 4096, a, 4096, 2)
			require.Equal(t, want, h.Mem()[data2:data2+4096], "the failed copy wrote nothing")
		}},
		{"Memset", func(h *harness, fb faulty.Faulty) {
			a := h.Malloc(64)
			want := h.Fill(data, 64, 3)
			h.OK("aclrtMemcpy", a, 64, data, 64, 1)
			fb.FailCall("Memset", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtMemset", a, 64, 0xee, 64)
			h.OK("aclrtMemcpy", data2, 64, a, 64, 2)
			require.Equal(t, want, h.Mem()[data2:data2+64])
		}},
		{"Memcpy2D", func(h *harness, fb faulty.Faulty) {
			a := h.Malloc(64)
			h.OK("aclrtMemset", a, 64, 0x5a, 64)
			h.Fill(data, 64, 4)
			fb.FailCall("Memcpy2D", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtMemcpy2d", a, 8, data, 16, 8, 4, 1)
			h.OK("aclrtMemcpy", data2, 64, a, 64, 2)
			require.Equal(t, bytes.Repeat([]byte{0x5a}, 64), h.Mem()[data2:data2+64])
		}},
		{"MemcpyBatch", func(h *harness, fb faulty.Faulty) {
			rows := []uint64{h.Malloc(64), h.Malloc(64)}
			h.OK("aclrtMemset", rows[0], 64, 1, 64)
			h.OK("aclrtMemset", rows[1], 64, 1, 64)
			h.Fill(data, 128, 5)
			bt := h.Batch(rows, []uint64{data, data + 64}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			fb.FailCall("MemcpyBatch", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtMemcpyBatch", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, bt.Fail)
			for _, r := range rows {
				h.OK("aclrtMemcpy", data2, 64, r, 64, 2)
				require.Equal(t, bytes.Repeat([]byte{1}, 64), h.Mem()[data2:data2+64], "no entry ran")
			}
		}},
		{"HostRegister", func(h *harness, fb faulty.Faulty) {
			fb.FailCall("HostRegister", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtHostRegister", 0x10000, 1<<16, 0, outB)
			h.OK("aclrtPointerGetAttributes", 0x10000, outC) // the failed registration left the range unregistered
			require.Equal(t, acl.MemLocationUnregistered, acl.DecodePtrAttributes(h.Mem()[outC:]).Location.Type)
			h.OK("aclrtHostRegister", 0x10000, 1<<16, 0, outB) // the whole quota
		}},
		{"CreateStream", func(h *harness, fb faulty.Faulty) {
			h.PutU64s(outA, 0)
			fb.FailCall("CreateStream", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtCreateStream", outA)
			require.Zero(t, h.U32(outA), "no handle written")
			h.Stream() // the only one the policy allows
		}},
		{"CreateEvent", func(h *harness, fb faulty.Faulty) {
			fb.FailCall("CreateEvent", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtCreateEvent", outA)
			h.Event()
		}},
		{"RecordEvent", func(h *harness, fb faulty.Faulty) {
			s, e := h.Stream(), h.Event()
			fb.FailCall("RecordEvent", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtRecordEvent", e, s)
			h.OK("aclrtSynchronizeEvent", e) // never recorded: returns at once
			h.OK("aclrtRecordEvent", e, s)
			h.OK("aclrtSynchronizeEvent", e)
		}},
		{"SynchronizeStream", func(h *harness, fb faulty.Faulty) {
			s := h.Stream()
			fb.FailCall("SynchronizeStream", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtSynchronizeStream", s)
			h.OK("aclrtSynchronizeStream", s)
		}},
		{"Free", func(h *harness, fb faulty.Faulty) {
			a := h.Malloc(60000)
			fb.FailCall("Free", 1, faulty.Injected)
			h.Code(acl.ErrRTInternal, "aclrtFree", a)
			// The allocation is gone for the guest; the backend's memory is
			// freed with the session (the cleanup checks the accounting).
			require.Contains(t, h.Code(acl.ErrRTParamInvalid, "aclrtMemset", a, 64, 0, 64), "not in guest memory or a live device allocation")
			h.Malloc(60000)
		}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			h, fb := faultHarness(t, host.Policy{DeviceMemory: 1 << 16, PinnedMemory: 1 << 16, MaxStreams: 1, MaxEvents: 1})
			h.OK("aclrtSetDevice", 0)
			tc.run(h, fb)
			require.Equal(t, uint64(1), h.Inst.Session().Stats().Funcs[abiName(tc.method)].Errors[acl.ErrRTInternal], "the host counted the failure")
		})
	}
}

// abiName is the import that reaches a backend method in these tests.
func abiName(method string) string {
	return map[string]string{
		"Malloc": "aclrtMalloc", "Memcpy": "aclrtMemcpy", "Memset": "aclrtMemset", "Memcpy2D": "aclrtMemcpy2d",
		"MemcpyBatch": "aclrtMemcpyBatch", "HostRegister": "aclrtHostRegister", "CreateStream": "aclrtCreateStream",
		"CreateEvent": "aclrtCreateEvent", "RecordEvent": "aclrtRecordEvent", "SynchronizeStream": "aclrtSynchronizeStream",
		"Free": "aclrtFree", "MemcpyAsync": "aclrtMemcpyAsync", "MemsetAsync": "aclrtMemsetAsync",
		"Memcpy2DAsync": "aclrtMemcpy2dAsync", "MemcpyBatchAsync": "aclrtMemcpyBatchAsync",
	}[method]
}

// TestFaultAtExec: an asynchronous operation that fails when it executes
// has no effect; the operations around it on its stream run; its error
// surfaces at the next synchronize of its stream (or of an event recorded
// after it, which leaves it to the stream's, or of the device), once, and
// not at another stream's.
func TestFaultAtExec(t *testing.T) {
	const pinned = 0x10000 // registered: a, then the failed op's target, then b
	ops := map[string]func(h *harness, dev uint64, s uint64){
		"MemcpyAsync": func(h *harness, dev, s uint64) {
			h.OK("aclrtMemcpyAsync", dev, 256, pinned+0x1000, 256, 1, s)
		},
		"MemsetAsync": func(h *harness, dev, s uint64) {
			h.OK("aclrtMemsetAsync", dev, 256, 0xee, 256, s)
		},
		"Memcpy2DAsync": func(h *harness, dev, s uint64) {
			h.OK("aclrtMemcpy2dAsync", dev, 16, pinned+0x1000, 32, 16, 16, 1, s)
		},
		"MemcpyBatchAsync": func(h *harness, dev, s uint64) {
			bt := h.Batch([]uint64{dev, dev + 128}, []uint64{pinned + 0x1000, pinned + 0x1100}, []uint64{128, 128}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			h.OK("aclrtMemcpyBatchAsync", bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, 2, bt.Attrs, bt.Idx, 1, bt.Fail, s)
		},
	}
	for method, op := range ops {
		for _, at := range []string{"stream", "event", "device"} {
			t.Run(method+"/"+at, func(t *testing.T) {
				h, fb := faultHarness(t, host.Policy{})
				h.OK("aclrtSetDevice", 0)
				dev := h.Malloc(256)
				h.OK("aclrtMemset", dev, 256, 0x11, 256)
				h.Fill(pinned, 0x2000, 6)
				h.OK("aclrtHostRegister", pinned, 0x2000, 0, outB)
				s, other, e := h.Stream(), h.Stream(), h.Event()

				h.OK("aclrtMemsetAsync", pinned, 64, 0xaa, 64, s)
				fb.FailExec(method, 1, faulty.Injected)
				op(h, dev, s)
				h.OK("aclrtMemsetAsync", pinned+0x1f00, 64, 0xbb, 64, s)
				h.OK("aclrtRecordEvent", e, s)
				h.OK("aclrtMemsetAsync", pinned+0x1800, 64, 0xcc, 64, other)
				h.OK("aclrtSynchronizeStream", other) // not the other stream's error

				var code string
				switch at {
				case "stream":
					code = h.Code(acl.ErrRTInternal, "aclrtSynchronizeStream", s)
				case "event":
					code = h.Code(acl.ErrRTInternal, "aclrtSynchronizeEvent", e)
				case "device":
					code = h.Code(acl.ErrRTInternal, "aclrtSynchronizeDevice")
				}
				require.Contains(t, code, injectedMsg)
				if at == "event" { // the error is the stream's: its synchronize reports it too
					h.Code(acl.ErrRTInternal, "aclrtSynchronizeStream", s)
				}
				h.OK("aclrtSynchronizeStream", s) // reported once
				h.OK("aclrtSynchronizeDevice")

				require.Equal(t, bytes.Repeat([]byte{0xaa}, 64), h.Mem()[pinned:pinned+64], "the operation before ran")
				require.Equal(t, bytes.Repeat([]byte{0xbb}, 64), h.Mem()[pinned+0x1f00:pinned+0x1f40], "the operation after ran")
				h.OK("aclrtMemcpy", data2, 256, dev, 256, 2)
				require.Equal(t, bytes.Repeat([]byte{0x11}, 256), h.Mem()[data2:data2+256], "the failed operation wrote nothing")
			})
		}
	}
}

// TestFaultAtExecThenClose: a failed operation nobody synchronizes is
// dropped with the session, which releases everything.
func TestFaultAtExecThenClose(t *testing.T) {
	h, fb := faultHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	dev := h.Malloc(4096)
	h.OK("aclrtHostRegister", 0x10000, 0x10000, 0, outB)
	s := h.Stream()
	fb.FailExec("MemcpyAsync", 3, faulty.Injected)
	for range 8 {
		h.OK("aclrtMemcpyAsync", dev, 4096, 0x10000, 4096, 1, s)
	}
}

// TestStopOnFailureCountsWhatRan: on a stream that stops on failure, a copy
// queued after one that failed has no effect and its bytes are not
// counted, although a small copy on an idle stream is otherwise counted
// at once (acl.Backend.Idle is false while an error is pending). On the
// simulator: over the native backend the injected failure is a host
// callback's error, which the backend reports at the next synchronize but
// which does not stop the native stream.
func TestStopOnFailureCountsWhatRan(t *testing.T) {
	h, fb := faultHarnessOn(t, host.Policy{}, closed(t, sim.New()))
	h.OK("aclrtSetDevice", 0)
	dev := h.Malloc(4096)
	h.OK("aclrtHostRegister", 0x10000, 0x10000, 0, outB)
	s := h.Stream()
	h.OK("aclrtSetStreamFailureMode", s, 1)
	first := h.Fill(0x10000, 64, 1)
	h.OK("aclrtMemcpyAsync", dev, 64, 0x10000, 64, 1, s)
	h.OK("aclrtSynchronizeStream", s)
	fb.FailExec("MemcpyAsync", 1, faulty.Injected)
	h.OK("aclrtMemcpyAsync", dev, 64, 0x10000, 64, 1, s)
	// Wait for the failure without taking the stream's error (a
	// synchronize would).
	for {
		h.OK("aclrtStreamQuery", s, outC)
		if h.U32(outC) == uint32(acl.StreamStatusComplete) {
			break
		}
		runtime.Gosched()
	}
	h.Fill(0x10000, 64, 2)
	h.OK("aclrtMemcpyAsync", dev, 64, 0x10000, 64, 1, s)
	h.Code(acl.ErrRTInternal, "aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 64, dev, 64, 2)
	require.Equal(t, first, h.Mem()[data2:data2+64], "the copy after the failure had no effect")
	require.Equal(t, uint64(64), h.Inst.Session().Stats().Funcs["aclrtMemcpyAsync"].Bytes["H2D"], "only the first copy is counted")
}

// TestFaultyRunsProductionPaths: over a wrapped backend the sandbox takes
// the paths it takes over the backend itself: a 32-bit memset of device
// memory reaches the backend's MemsetD32 (a wrapper without it made
// the same call 207000).
func TestFaultyRunsProductionPaths(t *testing.T) {
	h, _ := faultHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	p, s := h.Malloc(64), h.Stream()
	h.OK("aclrtMemsetD32", p, 64, 0x01020304, 16)
	h.OK("aclrtMemsetD32Async", p, 64, 0x05060708, 8, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, append(words(0x05060708, 8), words(0x01020304, 8)...), h.Mem()[data:data+64])
	h.OK("aclrtDestroyStreamForce", h.Stream())
	h.OK("aclrtSetOpWaitTimeout", 1)
}
