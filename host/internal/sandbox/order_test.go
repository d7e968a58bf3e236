package sandbox_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// orderEnv is what most check-order cases start from: device 0 current,
// two allocations on it and one on device 1, a registered guest range,
// streams on both devices and an event. Guest memory at data is pinned,
// at data2 unregistered.
type orderEnv struct {
	dev, dev2, d1 uint64 // device memory: two on device 0, one on device 1
	s, s1, ev     uint64 // a stream on device 0, one on device 1, an event
}

func setupOrder(h *harness) orderEnv {
	h.T.Helper()
	var e orderEnv
	h.OK("aclrtSetDevice", 1)
	e.d1 = h.Malloc(4096)
	e.s1 = h.Stream()
	h.OK("aclrtSetDevice", 0)
	e.dev, e.dev2 = h.Malloc(4096), h.Malloc(4096)
	e.s, e.ev = h.Stream(), h.Event()
	h.OK("aclrtHostRegister", data, 4096, 0, outB)
	return e
}

// rc calls and returns the code, whatever it is.
func (h *harness) rc(name string, args ...uint64) acl.Error { return acl.Error(h.Call(name, args...)) }

// gate blocks stream s (0: the current context's default stream) until
// the returned function runs, or the test ends. s waits for an event
// recorded on a stream of the backend's own, behind a host function that
// the test controls: a wait on an event that has been recorded, as
// natively, and one that a forced destruction can cancel (a running host
// function cannot be). A wait on an event nobody records would not do:
// natively that wait is refused.
func (h *harness) gate(s uint64) func() {
	h.T.Helper()
	sess := proxytest.Session(h.Inst)
	st, dev, err := sess.Stream(uint32(s))
	require.NoError(h.T, err, "gate: stream %d is not one of the session's", s)
	b := h.RT.Backend()
	hold, err := b.CreateStream(dev)
	require.NoError(h.T, err)
	ev, err := b.CreateEvent(dev)
	require.NoError(h.T, err)
	open := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(open) }) }
	h.T.Cleanup(func() {
		release()
		require.NoError(h.T, b.DestroyStream(context.Background(), hold))
		require.NoError(h.T, b.DestroyEvent(ev))
	})
	require.NoError(h.T, b.LaunchHostFunc(hold, func() error { <-open; return nil }))
	require.NoError(h.T, b.RecordEvent(ev, hold))
	require.NoError(h.T, b.StreamWaitEvent(st, ev))
	// The session counts what it queued itself: tell it of the wait.
	require.NoError(h.T, sess.Recount(uint32(s)))
	return release
}

// otherDeviceWait holds device 1's stream e.s1 with a copy queued behind
// the hold, then runs wait (a synchronize of e.s1 with device 0 current)
// on another goroutine: it must not return before the hold ends, and once
// it has, the copy must be done.
func (h *harness) otherDeviceWait(e orderEnv, wait func() acl.Error) acl.Error {
	h.T.Helper()
	h.OK("aclrtSetDevice", 1)
	want := h.Fill(data, 64, 5) // registered: the copy is queued
	release := h.gate(e.s1)
	h.OK("aclrtMemcpyAsync", e.d1, 64, data, 64, 1, e.s1)
	h.OK("aclrtSetDevice", 0)
	done := make(chan acl.Error, 1)
	go func() { done <- wait() }()
	select {
	case code := <-done:
		h.T.Fatalf("the synchronize returned %d while the stream was held", code)
	case <-time.After(30 * time.Millisecond):
	}
	release()
	var code acl.Error
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		h.T.Fatal("the synchronize did not return once the stream was released")
	}
	h.OK("aclrtSetDevice", 1)
	h.OK("aclrtMemcpy", data2, 64, e.d1, 64, 2)
	require.Equal(h.T, want, h.Mem()[data2:data2+64], "the copy ran before the synchronize returned")
	return code
}

// keepsStream runs destroy, a refused destroy of s (device 0 current), and
// checks that s still works on its own device.
func (h *harness) keepsStream(e orderEnv, s uint64, destroy func() acl.Error) acl.Error {
	h.T.Helper()
	code := destroy()
	h.OK("aclrtSetDevice", 1)
	h.OK("aclrtMemsetAsync", e.d1, 64, 7, 64, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtDestroyStream", s)
	return code
}

// noDevice makes the session have no current device while it keeps its
// streams: the native runtime can get there (a context of another thread),
// the sandbox's guests cannot, but the check must still sit in its place.
func (h *harness) noDevice() { proxytest.Session(h.Inst).LeaveDevice() }

// failOn queues on s an operation that fails when it executes: a copy
// with a descriptor that was never set.
func (h *harness) failOn(s uint64) {
	h.T.Helper()
	desc := h.Malloc(64)
	h.OK("aclrtMemcpyAsyncWithDesc", desc, 6, s)
}

// orderCase is one step's case: run makes a call that the step decides
// and returns its code. A case violates later steps too where it can, so
// that it shows the step comes before them.
type orderCase struct {
	policy host.Policy
	run    func(h *harness) acl.Error
}

const k6 = uint64(acl.MemcpyInnerDeviceToDevice)

// memcpyAsyncCases are the cases of aclrtMemcpyAsync and
// aclrtMemcpyAsyncWithCondition.
func memcpyAsyncCases(fn string) map[string]orderCase {
	return map[string]orderCase{
		"count0": {run: func(h *harness) acl.Error { return h.rc(fn, 0, 0, 0, 0, 99, 999) }},
		"null":   {run: func(h *harness) acl.Error { return h.rc(fn, 0, 0, data, 8, 99, 999) }},
		"kind":   {run: func(h *harness) acl.Error { return h.rc(fn, data2, 0, data, 8, 6, 999) }},
		"stream": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc(fn, e.dev, 0, data, 8, 1, e.ev) // an event handle; destMax and device bad too
		}},
		"destMax": {run: func(h *harness) acl.Error { return h.rc(fn, data2, 4, data, 8, 1, 0) }}, // no device
		"context": {run: func(h *harness) acl.Error { return h.rc(fn, 0xdead_0000_0000, 8, data, 8, 9-8, 0) }},
		"range": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, 0xdead_0000_0000, 8, data, 8, 2, e.s1) // wrong kind and stream come later
		}},
		"kind5": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, data, 8, e.dev, 8, 5, e.s) // device to pinned host
		}},
		"kindloc": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			require.Equal(h.T, acl.Success, h.rc(fn, e.dev, 8, data, 8, 2, e.s), "pinned host and device memory correct the kind")
			require.Equal(h.T, acl.Success, h.rc(fn, e.dev, 8, data2, 8, 4, e.s), "DEFAULT takes the direction from the addresses")
			return h.rc(fn, e.dev, 8, data2, 8, 2, e.s) // unregistered to device: D2H is not allowed
		}},
		"h2h": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, data, 8, data, 8, 4, e.s1) // pinned to itself: H2H before dst == src and the stream's device
		}},
		"same": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.dev, 8, e.dev, 8, 3, e.s1) // before the stream's device
		}},
		"peer": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.dev, 8, e.d1, 8, 3, e.s)
		}},
		"pageable": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			want := h.Fill(data2, 64, 3)
			h.failOn(e.s)
			copy(h.Mem()[data2:], make([]byte, 64))
			// The stream's pending error is the result; nothing is copied.
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc(fn, data2, 64, e.dev, 64, 2, e.s))
			h.Fill(data2, 64, 3)
			h.OK(fn, e.dev, 64, data2, 64, 1, e.s)
			copy(h.Mem()[data2:], make([]byte, 64))
			// A stream of another device is not checked on this path.
			code := h.rc(fn, data2, 64, e.dev, 64, 2, e.s1)
			require.Equal(h.T, want, h.Mem()[data2:data2+64], "copied before returning")
			return code
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.dev, 8, data, 8, 1, e.s1)
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.dev, 16, data, 16, 1, e.s1) // before the stream's device
		}},
		"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			h.OK(fn, e.dev, 8, data, 8, 1, e.s)
			return h.rc(fn, e.dev, 8, data, 8, 1, e.s)
		}},
	}
}

// batchCases are the cases of the batch copies.
func batchCases(fn string, async, v2 bool) map[string]orderCase {
	call := func(h *harness, b proxytest.BatchArgs, num, numAttrs, fail, stream uint64) acl.Error {
		args := []uint64{b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, num, b.Attrs, b.Idx, numAttrs}
		if !v2 {
			args = append(args, fail)
		}
		if async {
			args = append(args, stream)
		}
		return h.rc(fn, args...)
	}
	// failIs checks failIndex (the non-V2 forms only).
	failIs := func(h *harness, b proxytest.BatchArgs, want uint64) {
		if !v2 {
			require.Equal(h.T, want, h.U64(uint32(b.Fail)), "failIndex")
		}
	}
	d2h := acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{Type: acl.MemLocationHost}, SrcLoc: acl.MemLocation{Type: acl.MemLocationDevice}}
	two := func(h *harness, e orderEnv) proxytest.BatchArgs {
		return h.Batch([]uint64{e.dev, e.dev2}, []uint64{data, data + 64}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	}
	cases := map[string]orderCase{
		"sizes": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, nil, nil)
			return call(h, b, 0, 0, b.Fail, 999) // numBatches 0; attrs and stream bad too
		}},
		"zero": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{0}, []uint64{0}, []uint64{0}, nil, nil)
			c := call(h, b, 1, 0, b.Fail, 999)
			failIs(h, b, sizeMax)
			return c
		}},
		"arrays": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			b.Dsts = 0
			c := call(h, b, 1, 1, b.Fail, 999)
			failIs(h, b, 12345)
			return c
		}},
		"destMaxs": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			h.PutU64s(uint32(b.DestMaxs), 7)
			c := call(h, b, 1, 1, b.Fail, 999)
			failIs(h, b, 12345)
			return c
		}},
		"rsv": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			h.Mem()[b.Attrs+31] = 1
			c := call(h, b, 1, 1, b.Fail, 999)
			failIs(h, b, 12345)
			return c
		}},
		"shape": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{1})
			c := call(h, b, 1, 1, b.Fail, 0) // no device: the shape comes first
			failIs(h, b, sizeMax)
			return c
		}},
		"context": {run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			return call(h, b, 1, 1, b.Fail, 0)
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 100}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{e.dev, 0}, []uint64{data, data}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0}) // a NULL entry too
			c := call(h, b, 2, 1, b.Fail, e.s)
			failIs(h, b, sizeMax)
			return c
		}},
		"entrynull": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{e.dev, 0}, []uint64{data, data}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			c := call(h, b, 2, 1, b.Fail, e.s)
			failIs(h, b, 1)
			return c
		}},
		"entryrange": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{e.dev, 0xdead_0000_0000}, []uint64{data, data}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			c := call(h, b, 2, 1, b.Fail, e.s)
			failIs(h, b, 1)
			return c
		}},
		"entryloc": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			unreg := acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationUnregistered}}
			b := h.Batch([]uint64{e.dev}, []uint64{data2}, []uint64{64}, []acl.MemcpyBatchAttr{unreg}, []uint64{0})
			c := call(h, b, 1, 1, b.Fail, e.s)
			failIs(h, b, 0)
			return c
		}},
		"entrydir": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{data2, e.dev}, []uint64{e.dev, e.dev2}, []uint64{64, 64}, []acl.MemcpyBatchAttr{d2h, {DstLoc: acl.MemLocation{Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationDevice}}}, []uint64{0, 1})
			c := call(h, b, 2, 2, b.Fail, e.s)
			failIs(h, b, 1)
			return c
		}},
	}
	if !v2 {
		cases["failnull"] = orderCase{run: func(h *harness) acl.Error {
			b := h.Batch([]uint64{data}, []uint64{data}, []uint64{8}, nil, nil)
			b.Sizes = 0
			return call(h, b, 1, 0, 0, 999)
		}}
	}
	if async {
		cases["stream"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{e.dev}, []uint64{data}, []uint64{64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{1}) // bad shape too
			c := call(h, b, 1, 1, b.Fail, e.ev)
			failIs(h, b, 12345)
			return c
		}}
		cases["streamctx"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := two(h, e)
			c := call(h, b, 2, 1, b.Fail, e.s1)
			failIs(h, b, sizeMax)
			st, _, err := proxytest.Session(h.Inst).Stream(uint32(e.s1))
			require.NoError(h.T, err)
			n, err := h.RT.Backend().Pending(st)
			require.NoError(h.T, err)
			require.Zero(h.T, n, "nothing queued")
			return c
		}}
		cases["unregistered"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			want := h.Fill(data2, 64, 3)
			b := h.Batch([]uint64{e.dev}, []uint64{data2}, []uint64{64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			c := call(h, b, 1, 1, b.Fail, e.s1) // device 1's stream, device 0 current
			failIs(h, b, sizeMax)
			h.OK("aclrtMemcpy", data2, 64, e.dev, 64, 2)
			require.Equal(h.T, want, h.Mem()[data2:data2+64], "copied before the call returned")
			return c
		}}
		cases["budget"] = orderCase{policy: host.Policy{MaxBatchEntries: 1}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := two(h, e)
			return call(h, b, 2, 1, b.Fail, e.s)
		}}
		cases["entrysize"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{e.dev, 0}, []uint64{data, data}, []uint64{64, 0}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			c := call(h, b, 2, 1, b.Fail, e.s)
			failIs(h, b, 1)
			return c
		}}
		cases["queue"] = orderCase{policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			b := two(h, e)
			require.Equal(h.T, acl.Success, call(h, b, 2, 1, b.Fail, e.s))
			return call(h, b, 2, 1, b.Fail, e.s)
		}}
		cases["atomic"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.Fill(data, 64, 9)
			b := h.Batch([]uint64{e.dev, e.dev2 + 4090}, []uint64{data, data}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			c := call(h, b, 2, 1, b.Fail, e.s)
			h.OK("aclrtSynchronizeStream", e.s)
			h.OK("aclrtMemcpy", data2, 64, e.dev, 64, 2)
			require.Equal(h.T, make([]byte, 64), h.Mem()[data2:data2+64], "copy 0 must not have run")
			return c
		}}
	} else {
		// A synchronous batch checks copies of 0 bytes like the others.
		cases["entryrange"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			b := h.Batch([]uint64{e.dev, 0xdead_0000_0000}, []uint64{data, data}, []uint64{64, 0}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
			c := call(h, b, 2, 1, b.Fail, 0)
			failIs(h, b, 1)
			return c
		}}
	}
	return cases
}

// memcpy2dCases are the cases shared by both 2D copies; args appends the
// stream of the async form.
func memcpy2dCases(fn string, async bool) map[string]orderCase {
	c := func(h *harness, stream uint64, args ...uint64) acl.Error {
		if async {
			args = append(args, stream)
		}
		return h.rc(fn, args...)
	}
	big := uint64(acl.Memcpy2DMaxHeight + 1)
	cases := map[string]orderCase{
		"zero": {run: func(h *harness) acl.Error { return c(h, 999, 0, 0, 0, 0, 0, 4, 99) }},
		"bytes": {policy: host.Policy{MaxCallBytes: 16}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s, e.dev, 16, data, 16, 8, 4, 1)
		}},
		"null":  {run: func(h *harness) acl.Error { return c(h, 999, 0, 4, data, 4, 8, 4, 99) }},
		"pitch": {run: func(h *harness) acl.Error { return c(h, 999, data2, 4, data, 16, 8, 4, 99) }},
		"kind":  {run: func(h *harness) acl.Error { return c(h, 999, data2, 16, data, 16, 8, big, 0) }},
		"limits": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s, 0xdead_0000_0000, 16, data, 16, 8, big, 3)
		}},
		"context": {run: func(h *harness) acl.Error {
			if !async {
				return c(h, 0, 0xdead_0000_0000, 16, data, 16, 8, 4, 1)
			}
			e := setupOrder(h)
			h.noDevice()
			return c(h, e.s, 0xdead_0000_0000, 16, data, 16, 8, 4, 1)
		}},
		"range": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, 0xdead_0000_0000, 16, data, 16, 8, 4, 2) // kind and stream checks come later
		}},
		"kindloc": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			require.Equal(h.T, acl.Success, c(h, e.s, e.dev, 16, data, 16, 8, 4, 2), "pinned host and device memory correct the kind")
			if !async {
				require.Equal(h.T, acl.ErrRTParamInvalid, c(h, 0, e.dev, 16, e.dev2, 16, 8, 4, 1), "device to device is not a synchronous 2D direction")
			}
			return c(h, e.s, e.dev, 16, data2, 16, 8, 4, 2) // unregistered to device: D2H is not allowed
		}},
	}
	if !async {
		cases["d2d"] = orderCase{run: func(h *harness) acl.Error { return c(h, 0, data2, 16, data, 16, 8, 4, 3) }} // no device, host memory
		return cases
	}
	cases["stream"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		h.noDevice()
		return c(h, e.ev, e.dev, 16, data, 16, 8, big, 1)
	}}
	cases["nullstream"] = orderCase{run: func(h *harness) acl.Error { return c(h, 0, e2dDst, 16, data, 16, 8, big, 1) }}
	cases["h2h"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return c(h, e.s1, data, 16, data+512, 16, 8, 4, 4)
	}}
	cases["peer"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return c(h, e.s, e.dev, 16, e.d1, 16, 8, 4, 3)
	}}
	cases["pageable"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		h.failOn(e.s)
		require.Equal(h.T, acl.ErrRTParamInvalid, c(h, e.s, data2, 16, e.dev, 16, 8, 4, 2), "the stream's pending error")
		want := h.Fill(data2, 64, 5)
		h.OK(fn, e.dev, 16, data2, 16, 16, 4, 1, e.s)
		copy(h.Mem()[data2:], make([]byte, 64))
		code := c(h, e.s1, data2, 16, e.dev, 16, 16, 4, 2)
		require.Equal(h.T, want, h.Mem()[data2:data2+64], "copied before returning")
		return code
	}}
	cases["streamctx"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return c(h, e.s1, e.dev, 16, data, 16, 8, 4, 1)
	}}
	cases["queue"] = orderCase{policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
		e := setupOrder(h)
		release := h.gate(e.s)
		defer release()
		h.OK(fn, e.dev, 16, data, 16, 8, 4, 1, e.s)
		return c(h, e.s, e.dev, 16, data, 16, 8, 4, 1)
	}}
	return cases
}

// e2dDst is a device address of no session: cases that must fail before
// addresses are looked at use it.
const e2dDst = 0xdead_0000_0000

func memsetCases(fn string, async bool) map[string]orderCase {
	c := func(h *harness, stream uint64, args ...uint64) acl.Error {
		if async {
			args = append(args, stream)
		}
		return h.rc(fn, args...)
	}
	cases := map[string]orderCase{
		"count0": {run: func(h *harness) acl.Error { return c(h, 999, 0, 0, 0, 0) }},
		"null":   {run: func(h *harness) acl.Error { return c(h, 999, 0, 0, 0, 8) }},
		"context": {run: func(h *harness) acl.Error {
			if async {
				return c(h, 0, e2dDst, 8, 0, 8)
			}
			return c(h, 0, e2dDst, 4, 0, 8) // count above maxCount too: the driver's check
		}},
		"maxCount": {run: func(h *harness) acl.Error {
			if async {
				return c(h, 0, e2dDst, 4, 0, 8) // no device
			}
			e := setupOrder(h)
			return c(h, 0, e.dev, 4, 0, 8)
		}},
		"range": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, e2dDst, 8, 0, 8)
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, data2, 16, 0, 16) // guest memory too; before the stream's device
		}},
		"host": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			// Registered and unregistered guest memory alike are set before
			// the call returns, even behind a blocked stream, of either device.
			require.Equal(h.T, acl.Success, c(h, e.s, data, 64, 0x1ab, 64))
			require.Equal(h.T, bytes.Repeat([]byte{0xab}, 64), h.Mem()[data:data+64])
			code := c(h, e.s1, data2, 64, 0xcd, 64)
			require.Equal(h.T, bytes.Repeat([]byte{0xcd}, 64), h.Mem()[data2:data2+64])
			return code
		}},
	}
	if async {
		cases["stream"] = orderCase{run: func(h *harness) acl.Error { return c(h, 999, e2dDst, 4, 0, 8) }}
		cases["streamctx"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, e.dev, 8, 0, 8)
		}}
		cases["queue"] = orderCase{policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			h.OK(fn, e.dev, 8, 0, 8, e.s)
			return c(h, e.s, e.dev, 8, 0, 8)
		}}
	}
	return cases
}

var orderCases = map[string]map[string]orderCase{
	"aclrtMemcpy": {
		"count0":  {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpy", 0, 0, 0, 0, 99) }},
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpy", 0, 8, data, 8, 99) }},
		"kind":    {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpy", data2, 0, data, 8, 6) }},
		"destMax": {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpy", data2, 0, data2, 8, 1) }},   // dst == src, no device
		"same":    {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpy", e2dDst, 8, e2dDst, 8, 1) }}, // no device, no allocation
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpy", e2dDst, 8, data, 8, 1) }},
		"range": {run: func(h *harness) acl.Error {
			setupOrder(h)
			return h.rc("aclrtMemcpy", e2dDst, 8, data, 8, 1)
		}},
		"peer": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpy", e.dev, 8, e.d1, 8, 3)
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpy", e.dev, 16, data, 16, 1)
		}},
		"direction": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			want := h.Fill(data2, 64, 1)
			code := h.rc("aclrtMemcpy", e.dev, 64, data2, 64, 2) // kind says D2H; the addresses say H2D
			h.OK("aclrtMemcpy", data2+64, 64, e.dev, 64, 0)
			require.Equal(h.T, want, h.Mem()[data2+64:data2+128])
			return code
		}},
	},
	"aclrtMemcpyAsync":              memcpyAsyncCases("aclrtMemcpyAsync"),
	"aclrtMemcpyAsyncWithCondition": memcpyAsyncCases("aclrtMemcpyAsyncWithCondition"),
	"aclrtMemcpyBatch":              batchCases("aclrtMemcpyBatch", false, false),
	"aclrtMemcpyBatchAsync":         batchCases("aclrtMemcpyBatchAsync", true, false),
	"aclrtMemcpyBatchV2":            batchCases("aclrtMemcpyBatchV2", false, true),
	"aclrtMemcpyBatchAsyncV2":       batchCases("aclrtMemcpyBatchAsyncV2", true, true),
	"aclrtMemcpy2d":                 memcpy2dCases("aclrtMemcpy2d", false),
	"aclrtMemcpy2dAsync":            memcpy2dCases("aclrtMemcpy2dAsync", true),
	"aclrtGetMemcpyDescSize": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetMemcpyDescSize", 99, 0) }},
		"kind":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetMemcpyDescSize", 8, outA) }},
		"feature": {run: func(h *harness) acl.Error { return h.rc("aclrtGetMemcpyDescSize", 3, outA) }},
		"size": {run: func(h *harness) acl.Error {
			code := h.rc("aclrtGetMemcpyDescSize", k6, outA)
			require.Equal(h.T, uint64(acl.DescSizeA2), h.U64(outA))
			return code
		}},
	},
	"aclrtSetMemcpyDesc": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtSetMemcpyDesc", 0, 99, 0, 0, 0, 0) }},
		"kind": {run: func(h *harness) acl.Error { return h.rc("aclrtSetMemcpyDesc", e2dDst, 8, e2dDst, e2dDst, 8, 0) }},
		"feature": {run: func(h *harness) acl.Error {
			return h.rc("aclrtSetMemcpyDesc", e2dDst+8, 3, e2dDst, e2dDst, 1<<40, 0)
		}},
		"count": {run: func(h *harness) acl.Error { return h.rc("aclrtSetMemcpyDesc", e2dDst+8, k6, e2dDst, e2dDst, 1<<40, 0) }},
		"align": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetMemcpyDesc", e.dev+32, k6, e2dDst, e2dDst, 8, 0)
		}},
		"desc": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetMemcpyDesc", data2, k6, e.dev, e.dev2, 8, 0)
		}},
		"addrs": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetMemcpyDesc", e.dev, k6, e.d1, e.dev2, 8, 0) // two devices
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtSetMemcpyDesc", e.dev, k6, e.dev2, e.dev2+64, 8, 0)
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetMemcpyDesc", e.dev, k6, e.dev2, e.dev2+64, 16, 0)
		}},
	},
	"aclrtMemcpyAsyncWithDesc": {
		"null":       {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithDesc", 0, 99, 0) }},
		"kind":       {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithDesc", e2dDst, 8, 0) }},
		"nullstream": {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithDesc", e2dDst, 3, 0) }},
		"stream":     {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithDesc", e2dDst, 3, 999) }},
		"feature": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithDesc", e2dDst, 3, e.s)
		}},
		"desc": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithDesc", data2, k6, e.s1)
		}},
		"align": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithDesc", e.dev+32, k6, e.s1)
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtMemcpyAsyncWithDesc", e.dev, k6, e.s)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithDesc", e.dev, k6, e.s1)
		}},
		"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			h.OK("aclrtMemcpyAsyncWithDesc", e.dev, k6, e.s)
			return h.rc("aclrtMemcpyAsyncWithDesc", e.dev, k6, e.s)
		}},
		"exec": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtSetMemcpyDesc", e.dev, k6, e.dev2, e.dev2+64, 64, 0)
			// Tamper with the MAC: flip one of its bytes (a constant could
			// be the byte already, 1 in 256 with a random session key).
			h.OK("aclrtMemcpy", data2, 1, e.dev+20, 1, 2)
			h.OK("aclrtMemset", e.dev+20, 1, uint64(^h.Mem()[data2]), 1)
			h.OK("aclrtMemcpyAsyncWithDesc", e.dev, k6, e.s)
			return h.rc("aclrtSynchronizeStream", e.s)
		}},
	},
	"aclrtMemcpyAsyncWithOffset": {
		"count0": {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithOffset", 0, 0, 0, 0, 0, 0, 99, 999) }},
		"kind":   {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithOffset", 0, 0, 0, 0, 8, 0, 3, 999) }},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithOffset", 0, 0, 0, 0, 8, 0, k6, 999) }},
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtMemcpyAsyncWithOffset", 0, 0, 0, e2dDst, 8, 0, k6, 0) }},
		"limits": {run: func(h *harness) acl.Error {
			return h.rc("aclrtMemcpyAsyncWithOffset", e2dDst, 8, 8, e2dDst, 8, 0, k6, 0) // no device
		}},
		"context": {run: func(h *harness) acl.Error {
			return h.rc("aclrtMemcpyAsyncWithOffset", e2dDst, 8, 0, e2dDst, 8, 0, k6, 0)
		}},
		"slots": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithOffset", data2, 8, 0, e.dev, 8, 0, k6, e.s1)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithOffset", e.dev, 8, 0, e.dev2, 8, 0, k6, e.s1)
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtMemcpyAsyncWithOffset", e.dev, 16, 0, e.dev2, 16, 0, k6, e.s)
		}},
		"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			h.OK("aclrtMemcpyAsyncWithOffset", e.dev, 8, 0, e.dev2, 8, 0, k6, e.s)
			return h.rc("aclrtMemcpyAsyncWithOffset", e.dev, 8, 0, e.dev2, 8, 0, k6, e.s)
		}},
	},
	"aclrtMemset":      memsetCases("aclrtMemset", false),
	"aclrtMemsetAsync": memsetCases("aclrtMemsetAsync", true),

	"aclrtMalloc": {
		"null":     {run: func(h *harness) acl.Error { return h.rc("aclrtMalloc", 0, 0, 0) }},
		"size":     {run: func(h *harness) acl.Error { return h.rc("aclrtMalloc", outA, 0, 0) }},
		"overflow": {run: func(h *harness) acl.Error { return h.rc("aclrtMalloc", outA, sizeMax-63, 0) }},
		"context":  {run: func(h *harness) acl.Error { return h.rc("aclrtMalloc", outA, 64, 0) }},
		"count": {policy: host.Policy{MaxAllocations: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.Malloc(64)
			return h.rc("aclrtMalloc", outA, 64, 0)
		}},
		"quota": {policy: host.Policy{DeviceMemory: 4096}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtMalloc", outA, 4096, 0)
		}},
	},
	"aclrtFree": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtFree", 0) }},
		"base": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtFree", e.dev+64)
		}},
	},
	"aclrtHostRegister": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtHostRegister", data, 64, 3, 0) }},
		"type":    {run: func(h *harness) acl.Error { return h.rc("aclrtHostRegister", 1<<32, 64, 3, outB) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtHostRegister", 1<<32, 64, 12, outB) }},
		"range": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtHostRegister", data, 64, 12, outB) // IOMEMORY|READONLY
			return h.rc("aclrtHostRegister", 1<<32, 64, 0, outB)
		}},
		"overlap": {run: func(h *harness) acl.Error {
			setupOrder(h)
			return h.rc("aclrtHostRegister", data+64, 64, 0, outB)
		}},
		"count": {policy: host.Policy{MaxRegistrations: 1}, run: func(h *harness) acl.Error {
			setupOrder(h)
			return h.rc("aclrtHostRegister", data2, 64, 0, outB)
		}},
		"quota": {policy: host.Policy{PinnedMemory: 4096}, run: func(h *harness) acl.Error {
			setupOrder(h)
			return h.rc("aclrtHostRegister", data2, 64, 0, outB)
		}},
	},
	"aclrtHostUnregister": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtHostUnregister", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtHostUnregister", data) }},
		"registered": {run: func(h *harness) acl.Error {
			setupOrder(h)
			return h.rc("aclrtHostUnregister", data+8)
		}},
	},
	"aclrtPointerGetAttributes": {
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtPointerGetAttributes", data, 0) }},
		"range": {run: func(h *harness) acl.Error { return h.rc("aclrtPointerGetAttributes", e2dDst, outA) }},
	},
	"aclrtGetMemInfo": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetMemInfo", 99, 0, outC) }},
		"attr":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetMemInfo", 99, outB, outC) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetMemInfo", uint64(acl.HBMMem), outB, outC) }},
	},
	"aclrtSynchronizeStreamWithTimeout": {
		"timeout": {run: func(h *harness) acl.Error {
			return h.rc("aclrtSynchronizeStreamWithTimeout", 999, uint64(uint32(0xfffffffe)))
		}},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeStreamWithTimeout", 999, 0) }},
		"zero": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSynchronizeStreamWithTimeout", e.s, 0)
		}},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeStreamWithTimeout", 0, 5) }},
		"otherctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.otherDeviceWait(e, func() acl.Error { return h.rc("aclrtSynchronizeStreamWithTimeout", e.s1, 10_000) })
		}},
		"expire": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			return h.rc("aclrtSynchronizeStreamWithTimeout", e.s, 5)
		}},
	},
	"aclrtSynchronizeDeviceWithTimeout": {
		"timeout": {run: func(h *harness) acl.Error {
			return h.rc("aclrtSynchronizeDeviceWithTimeout", uint64(uint32(0xfffffffe)))
		}},
		"zero":    {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeDeviceWithTimeout", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeDeviceWithTimeout", 5) }},
		"expire": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			return h.rc("aclrtSynchronizeDeviceWithTimeout", 5)
		}},
	},
	"aclrtStreamWaitEvent": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtStreamWaitEvent", 999, 0) }},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtStreamWaitEvent", 999, 998) }},
		"event": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtStreamWaitEvent", e.s1, e.s)
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtStreamWaitEvent", 0, e.ev)
		}},
		"unrecorded": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			code := h.rc("aclrtStreamWaitEvent", e.s, e.ev)
			st, _, err := proxytest.Session(h.Inst).Stream(uint32(e.s))
			require.NoError(h.T, err)
			n, err := h.RT.Backend().Pending(st)
			require.NoError(h.T, err)
			require.Zero(h.T, n, "no wait queued")
			// Reset after a record: the wait is queued, for the next record.
			h.OK("aclrtRecordEvent", e.ev, e.s)
			h.OK("aclrtResetEvent", e.ev, e.s)
			h.OK("aclrtSynchronizeStream", e.s)
			other := h.Stream()
			h.OK("aclrtStreamWaitEvent", other, e.ev)
			h.OK("aclrtRecordEvent", e.ev, e.s)
			h.OK("aclrtSynchronizeStream", other)
			return code
		}},
		"queue": {policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtRecordEvent", e.ev, e.s)
			h.gate(e.s)
			return h.rc("aclrtStreamWaitEvent", e.s, e.ev)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtStreamWaitEvent", e.s1, e.ev) // never recorded too
		}},
	},
	"aclrtRecordEvent": {
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtRecordEvent", 0, 999) }},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtRecordEvent", 998, 999) }},
		"stream": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtRecordEvent", e.ev, e.ev)
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtRecordEvent", e.ev, 0)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtRecordEvent", e.ev, e.s1)
		}},
	},
	"aclrtDeviceCanAccessPeer": {
		"same":   {run: func(h *harness) acl.Error { return h.rc("aclrtDeviceCanAccessPeer", 0, 7, 7) }},
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtDeviceCanAccessPeer", 0, 0, 7) }},
		"device": {run: func(h *harness) acl.Error { return h.rc("aclrtDeviceCanAccessPeer", outA, 0, 7) }},
	},
	"aclrtDeviceDisablePeerAccess": {
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtDeviceDisablePeerAccess", 7) }},
		"self": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 1)
			return h.rc("aclrtDeviceDisablePeerAccess", 1)
		}},
		"device": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 1)
			return h.rc("aclrtDeviceDisablePeerAccess", 7)
		}},
		"enabled": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 1)
			return h.rc("aclrtDeviceDisablePeerAccess", 0)
		}},
	},
	"aclrtSetDevice": {
		"device": {run: func(h *harness) acl.Error { return h.rc("aclrtSetDevice", 7) }},
	},
	"aclrtResetDevice": {
		"device": {run: func(h *harness) acl.Error { return h.rc("aclrtResetDevice", 7) }},
		"release": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.failOn(e.s)
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtResetDevice", 0), "the queued work's error")
			require.Equal(h.T, acl.ErrRTInvalidHandle, h.rc("aclrtSynchronizeStream", e.s), "the stream is gone")
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtResetDevice", 0)
		}},
	},
	"aclrtGetDevice": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetDevice", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetDevice", outA) }},
	},
	"aclrtGetDeviceCount": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceCount", 0) }},
	},
	"aclrtSynchronizeDevice": {
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeDevice") }},
	},
	"aclrtCreateStream": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStream", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStream", outA) }},
		"count": {policy: host.Policy{MaxStreams: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.Stream()
			return h.rc("aclrtCreateStream", outA)
		}},
	},
	"aclrtDestroyStream": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyStream", 0) }},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyStream", 999) }},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.keepsStream(e, e.s1, func() acl.Error { h.noDevice(); return h.rc("aclrtDestroyStream", e.s1) })
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.keepsStream(e, e.s1, func() acl.Error { return h.rc("aclrtDestroyStream", e.s1) })
		}},
	},
	"aclrtSynchronizeStream": {
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeStream", 999) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeStream", 0) }},
		"otherctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.otherDeviceWait(e, func() acl.Error { return h.rc("aclrtSynchronizeStream", e.s1) })
		}},
	},
	"aclrtStreamQuery": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtStreamQuery", 999, 0) }},
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtStreamQuery", 999, outA) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtStreamQuery", 0, outA) }},
		"otherctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s1)
			require.Equal(h.T, acl.Success, h.rc("aclrtStreamQuery", e.s1, outA))
			require.Equal(h.T, uint32(acl.StreamStatusNotReady), h.U32(outA), "device 1's stream is held")
			release()
			h.OK("aclrtSetDevice", 1)
			h.OK("aclrtSynchronizeStream", e.s1)
			h.OK("aclrtSetDevice", 0)
			code := h.rc("aclrtStreamQuery", e.s1, outA)
			require.Equal(h.T, uint32(acl.StreamStatusComplete), h.U32(outA))
			return code
		}},
	},
	"aclrtCreateEvent": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEvent", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEvent", outA) }},
		"count": {policy: host.Policy{MaxEvents: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.Event()
			return h.rc("aclrtCreateEvent", outA)
		}},
	},
	"aclrtDestroyEvent": {
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyEvent", 0) }},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyEvent", 999) }},
	},
	"aclrtSynchronizeEvent": {
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeEvent", 0) }},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeEvent", 999) }},
	},
	"aclrtQueryEventStatus": {
		"null": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclrtQueryEventStatus", 999, 0), "status NULL before the handle")
			return h.rc("aclrtQueryEventStatus", 0, outA)
		}},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventStatus", 999, outA) }},
	},
	"aclrtEventElapsedTime": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtEventElapsedTime", outA, 999, 0) }}, // endEvent NULL before startEvent's handle
		"event": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtEventElapsedTime", outA, e.ev, e.s)
		}},
		"never": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtRecordEvent", e.ev, e.s)
			h.OK("aclrtSynchronizeStream", e.s)
			never := h.Event()
			h.PutU64s(outC, 0x5a5a)
			code := h.rc("aclrtEventElapsedTime", outC, e.ev, never)
			require.Equal(h.T, uint64(0x5a5a), h.U64(outC), "ms untouched")
			return code
		}},
		"timestamp": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtRecordEvent", e.ev, e.s)
			h.OK("aclrtResetEvent", e.ev, e.s)
			h.OK("aclrtSynchronizeStream", e.s)
			return h.rc("aclrtEventElapsedTime", outA, e.ev, e.ev)
		}},
	},
	"aclInit": {
		"repeat": {run: func(h *harness) acl.Error {
			h.OK("aclInit", 0)
			copy(h.Mem()[data:], "x.json\x00")
			return h.rc("aclInit", data)
		}},
		"file": {policy: host.Policy{RefuseInitConfig: true}, run: func(h *harness) acl.Error {
			copy(h.Mem()[data:], "x.json\x00")
			return h.rc("aclInit", data)
		}},
	},
	"aclFinalize": {
		"repeat": {run: func(h *harness) acl.Error {
			h.OK("aclFinalize")
			return h.rc("aclFinalize")
		}},
	},
	"aclrtGetVersion": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtGetVersion", outA, 0, outC) }},
	},
	"aclrtDeviceEnablePeerAccess": {
		"flags":   {run: func(h *harness) acl.Error { return h.rc("aclrtDeviceEnablePeerAccess", 7, 1) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtDeviceEnablePeerAccess", 7, 0) }},
		"self": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 1)
			return h.rc("aclrtDeviceEnablePeerAccess", 1, 0)
		}},
		"device": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 1)
			return h.rc("aclrtDeviceEnablePeerAccess", 7, 0)
		}},
	},
}

// TestCheckOrder runs one case per step of acl.Order, on a fresh session
// each: the step's code must be what the guest reads. Cases violate later
// steps where they can, so they also show the order. Every step has a
// case and every case a step.
func TestCheckOrder(t *testing.T) {
	for _, fo := range acl.Order {
		cases := orderCases[fo.Func]
		require.NotNil(t, cases, "%s has no cases", fo.Func)
		ids := map[string]bool{}
		for _, st := range fo.Steps {
			require.False(t, ids[st.ID], "%s: step %s twice", fo.Func, st.ID)
			ids[st.ID] = true
			tc, ok := cases[st.ID]
			if !ok {
				t.Errorf("%s: step %s (%s) has no case", fo.Func, st.ID, st.Check)
				continue
			}
			t.Run(fo.Func+"/"+st.ID, func(t *testing.T) {
				h := newHarness(t, tc.policy)
				got := tc.run(h)
				require.Equal(t, st.Code, got, "%s: %s\nmessage: %s", st.ID, st.Check, h.Inst.Session().LastError())
				// The last error as the native call path records it (the
				// sandbox's own steps may run on a harness of their own).
				_, quiet := acl.UnrecordedSteps[fo.Func][st.ID]
				if acl.SetsLastError(st.Code) && (st.Basis != acl.Sandbox || quiet) {
					on := h
					if h.peer != nil {
						on = h.peer
					}
					last := on.rc("aclrtPeekAtLastError", 0)
					if quiet {
						require.NotEqual(t, st.Code, last, "%s: natively not recorded as the last error", st.ID)
					} else {
						require.Equal(t, st.Code, last, "%s: natively recorded as the last error", st.ID)
					}
				}
			})
		}
		for id := range cases {
			require.True(t, ids[id], "%s: case %s has no step", fo.Func, id)
		}
	}
	for name := range orderCases {
		require.NotNil(t, acl.OrderOf(name), "cases of %s, which acl.Order does not list", name)
	}
}

// TestDescSizePerChip: aclrtGetMemcpyDescSize reports the chip's native
// size (Ascend 950: 64 bytes), and descriptors work at that stride.
func TestDescSizePerChip(t *testing.T) {
	b := sim.New(sim.WithChip(sim.Ascend950))
	t.Cleanup(func() { b.Close() })
	h := newHarness(t, host.Policy{}, host.WithBackend(b))
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetMemcpyDescSize", k6, outA)
	require.Equal(t, uint64(acl.DescSize950), h.U64(outA))
	descs, src, dst := h.Malloc(2*acl.DescSize950), h.Malloc(64), h.Malloc(64)
	want := h.Fill(data, 64, 4)
	h.OK("aclrtMemcpy", src, 64, data, 64, 1)
	h.OK("aclrtSetMemcpyDesc", descs+acl.DescSize950, k6, src, dst, 64, 0)
	s := h.Stream()
	h.OK("aclrtMemcpyAsyncWithDesc", descs+acl.DescSize950, k6, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 64, dst, 64, 2)
	require.Equal(t, want, h.Mem()[data2:data2+64])
}

// bare is a backend over a native library without the optional functions
// (acl.Backend.Supports false for each; the methods that call them return
// 207000): the sandbox must refuse what needs them with 207000 in its
// place in the check order, never do nothing. It has no optional role
// and makes no promise (acl.Traits).
type bare struct{ acl.Backend }

// Traits implements acl.Runtime: none.
func (bare) Traits() acl.Traits { return acl.Traits{} }

// Supports implements acl.Backend: a library of the required functions only.
func (bare) Supports(fn string) bool {
	switch fn {
	case "aclrtMemsetD32", "aclrtMemsetD32Async", "aclrtResetEvent", "aclrtStreamWaitEventWithTimeout",
		"aclrtGetOpTimeOutInterval", "aclrtDestroyStreamForce", "aclrtCreateStreamWithConfig",
		"aclrtSetStreamFailureMode", "aclrtGetRunMode":
		return false
	case "aclrtGetErrorVerbose", "aclrtGetDeviceResLimit": // ABI v1.2 section 12
		return false
	}
	return !bareLacks[fn]
}

// bareLacks are more functions bare lacks, added by the test files of
// their families.
var bareLacks = map[string]bool{}

// bareHarness is a harness on a bare simulator, device 0 current.
func bareHarness(h *harness) *harness {
	h.T.Helper()
	b := sim.New()
	h.T.Cleanup(func() { b.Close() })
	h2 := newHarness(h.T, host.Policy{}, host.WithBackend(bare{b}))
	h2.OK("aclrtSetDevice", 0)
	h.peer = h2
	return h2
}

// words returns n little-endian copies of v.
func words(v uint32, n int) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// memsetD32Cases are the cases of aclrtMemsetD32 and aclrtMemsetD32Async.
func memsetD32Cases(fn string, async bool) map[string]orderCase {
	c := func(h *harness, stream uint64, args ...uint64) acl.Error {
		if async {
			args = append(args, stream)
		}
		return h.rc(fn, args...)
	}
	cases := map[string]orderCase{
		"count0": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtDestroyStream", e.s)
			h.noDevice()
			return c(h, e.s, 0, 0, 0, 0) // NULL, a destroyed stream and no device too
		}},
		"null":  {run: func(h *harness) acl.Error { return c(h, 999, 0, 4, 0, 1) }},
		"align": {run: func(h *harness) acl.Error { return c(h, 999, data+1, 0, 0, 1) }}, // memSize too small too
		"memSize": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrInvalidParam, c(h, 999, data, 15, 0, 4), "one byte short")
			require.Equal(h.T, acl.ErrInvalidParam, c(h, 999, data, ^uint64(0), 0, 1<<62), "a byte count that overflows")
			return c(h, 999, e2dDst, 4, 0, 2) // no device, a bad stream, an address the query refuses too
		}},
		"unregistered": {run: func(h *harness) acl.Error {
			want := h.Fill(data2, 8, 1)
			code := c(h, 999, data2, 8, 0, 2) // no device and a bad stream too
			require.Equal(h.T, want, h.Mem()[data2:data2+8], "nothing set")
			return code
		}},
		"attr": {run: func(h *harness) acl.Error { return c(h, 999, e2dDst, 8, 0, 2) }}, // no device and a bad stream too
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return c(h, 0, e.dev+4092, 8, 0, 2) // past its allocation too
		}},
		"range": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, e.dev+4092, 8, 0, 2) // past the allocation's end; the stream's device comes later
		}},
		"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, data, 16, 0, 4) // registered guest memory too; before the stream's device
		}},
		"host": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			// Registered guest memory is set before the call returns, even
			// behind a blocked stream, of either device.
			require.Equal(h.T, acl.Success, c(h, e.s, data, 64, 0x01020304, 16))
			require.Equal(h.T, words(0x01020304, 16), h.Mem()[data:data+64])
			code := c(h, e.s1, data+64, 64, 0xfffffffe, 15)
			require.Equal(h.T, append(words(0xfffffffe, 15), 0), h.Mem()[data+64:data+64+61], "15 words, the byte after untouched")
			return code
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			p, s := b.Malloc(64), b.Stream()
			b.OK("aclrtHostRegister", data, 4096, 0, outB)
			c(b, s, data, 64, 7, 16) // registered guest memory needs no backend
			require.Equal(h.T, words(7, 16), b.Mem()[data:data+64])
			return c(b, s, p, 64, 7, 16)
		}},
	}
	if async {
		cases["stream"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return c(h, 999, e.dev+4092, 8, 0, 2) // no device and past the allocation too
		}}
		cases["streamctx"] = orderCase{run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return c(h, e.s1, e.dev, 8, 0, 2)
		}}
		cases["queue"] = orderCase{policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			h.OK(fn, e.dev, 8, 0, 2, e.s)
			return c(h, e.s, e.dev, 8, 0, 2)
		}}
	}
	return cases
}

func init() {
	for fn, cases := range map[string]map[string]orderCase{
		"aclrtMemsetD32":      memsetD32Cases("aclrtMemsetD32", false),
		"aclrtMemsetD32Async": memsetD32Cases("aclrtMemsetD32Async", true),
		"aclrtResetEvent": {
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtResetEvent", 0, 999) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtResetEvent", 998, 999) }},
			"stream": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				return h.rc("aclrtResetEvent", e.ev, e.ev)
			}},
			"context": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				h.noDevice()
				return h.rc("aclrtResetEvent", e.ev, 0)
			}},
			"streamctx": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				return h.rc("aclrtResetEvent", e.ev, e.s1)
			}},
			"feature": {run: func(h *harness) acl.Error {
				b := bareHarness(h)
				return b.rc("aclrtResetEvent", b.Event(), 0)
			}},
			"queue": {policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
				e := setupOrder(h)
				release := h.gate(e.s)
				defer release()
				return h.rc("aclrtResetEvent", e.ev, e.s)
			}},
			"nowait": {run: func(h *harness) acl.Error {
				setupOrder(h)
				ev := h.eventEx(2) // ACL_EVENT_CAPTURE_STREAM_PROGRESS alone
				h.noDevice()
				return h.rc("aclrtResetEvent", ev, 0) // before the device is looked at
			}},
			"newmode": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				return h.rc("aclrtResetEvent", h.eventEx(1), e.s1) // before the stream's device
			}},
			"keep": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				start := h.Event()
				h.OK("aclrtRecordEvent", start, e.s)
				h.OK("aclrtRecordEvent", e.ev, e.s)
				h.OK("aclrtSynchronizeStream", e.s)
				h.OK("aclrtEventGetTimestamp", e.ev, outB)
				ts := h.U64(outB)
				h.OK("aclrtEventElapsedTime", outA, start, e.ev)
				ms := h.U32(outA)
				code := h.rc("aclrtResetEvent", e.ev, e.s)
				h.OK("aclrtSynchronizeStream", e.s)
				h.OK("aclrtEventGetTimestamp", e.ev, outB)
				require.Equal(h.T, ts, h.U64(outB), "the timestamp of the record before the reset")
				h.OK("aclrtEventElapsedTime", outA, start, e.ev)
				require.Equal(h.T, ms, h.U32(outA), "the elapsed time of the record before the reset")
				h.OK("aclrtQueryEventStatus", e.ev, outC)
				require.Equal(h.T, acl.EventRecordedStatusComplete, acl.EventRecordedStatus(h.U32(outC)))
				// A wait queued after the reset waits for the next record.
				other := h.Stream()
				h.OK("aclrtStreamWaitEvent", other, e.ev)
				require.Equal(h.T, acl.EventWaitStatusNotReady, h.waitStatus(e.ev))
				h.OK("aclrtRecordEvent", e.ev, e.s)
				h.OK("aclrtSynchronizeStream", other)
				return code
			}},
		},
		"aclrtSetOpWaitTimeout": {
			"feature": {run: func(h *harness) acl.Error {
				b := bareHarness(h)
				b.OK("aclrtSetOpWaitTimeout", 0) // no limit needs nothing
				return b.rc("aclrtSetOpWaitTimeout", 1)
			}},
			"expire": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				h.OK("aclrtSetOpWaitTimeout", 1)
				h.OK("aclrtStreamWaitEvent", e.s, h.Waitable()) // for a record that never comes
				return h.rc("aclrtSynchronizeStream", e.s)
			}},
		},
		"aclrtSetOpExecuteTimeOut": {
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtSetOpExecuteTimeOut", 5) }},
		},
		"aclrtSetOpExecuteTimeOutV2": {
			"null": {run: func(h *harness) acl.Error { return h.rc("aclrtSetOpExecuteTimeOutV2", 5, 0) }}, // no device too
			"context": {run: func(h *harness) acl.Error {
				h.PutU64s(outA, 0x5a5a)
				code := h.rc("aclrtSetOpExecuteTimeOutV2", 5, outA)
				require.Equal(h.T, uint64(0x5a5a), h.U64(outA), "actualTimeout untouched")
				h.OK("aclrtSetDevice", 0)
				h.OK("aclrtGetOpExecuteTimeout", outA)
				require.Equal(h.T, uint32(254*4294967/1000), h.U32(outA), "the timeout was not set")
				return code
			}},
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtSetOpExecuteTimeOutV2", 5, outA) }},
			"actual": {run: func(h *harness) acl.Error {
				h.OK("aclrtSetDevice", 0)
				code := h.rc("aclrtSetOpExecuteTimeOutV2", 5, outA)
				require.Equal(h.T, uint64(4294967), h.U64(outA), "rounded up to one interval")
				return code
			}},
		},
		"aclrtGetOpExecuteTimeout": {
			"null":    {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetOpExecuteTimeout", 0) }},
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetOpExecuteTimeout", outA) }},
		},
		"aclrtGetOpTimeOutInterval": {
			"null": {run: func(h *harness) acl.Error { return h.rc("aclrtGetOpTimeOutInterval", 0) }}, // no device too
			"context": {run: func(h *harness) acl.Error {
				h.PutU64s(outA, 0x5a5a)
				code := h.rc("aclrtGetOpTimeOutInterval", outA)
				require.Equal(h.T, uint64(0x5a5a), h.U64(outA), "interval untouched")
				return code
			}},
			"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetOpTimeOutInterval", outA) }},
		},
		"aclAppLog": {
			"level": {run: func(h *harness) acl.Error { return h.rc("aclAppLog", 4, 7, 7, 1, 0) }}, // bad strings too
			"strings": {run: func(h *harness) acl.Error {
				copy(h.Mem()[data:], "main\x00")
				return h.rc("aclAppLog", 1, data, 1<<30, 1, 0) // file outside guest memory; msg NULL too
			}},
			"msg": {run: func(h *harness) acl.Error { return h.rc("aclAppLog", 3, 0, 0, 1, 0) }},
		},
	} {
		orderCases[fn] = cases
	}
	orderCases["aclInit"]["string"] = orderCase{run: func(h *harness) acl.Error {
		n := len(h.Mem())
		copy(h.Mem()[n-3:], "abc") // no NUL before the end of guest memory
		return h.rc("aclInit", uint64(n-3))
	}}
	orderCases["aclInit"]["ignored"] = orderCase{run: func(h *harness) acl.Error {
		copy(h.Mem()[data:], "./acl.json\x00")
		return h.rc("aclInit", data)
	}}
}
