package host

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// FuzzImports drives a session with arbitrary sequences of host calls and
// arguments, biased towards values that matter (addresses the session
// handed out, handles, sizes near the edges), and guest memory the fuzzer
// writes. Whatever the guest passes, no call may hit a host bug
// (ACL_ERROR_INTERNAL_ERROR is what invoke turns a panic into), and closing
// the session must return the device's accounting to its baseline.
func FuzzImports(f *testing.F) {
	f.Add([]byte{0, 18, 0, 0, 0, 0, 0, 0, 0, 0, 28, 1, 16, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("\x12\x00\x1c\x01\x10\x00\x00\x00\x20\x00\x00\x00\x00\x00\x21\x02\x10\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, Policy{DeviceMemory: 1 << 20, MaxAllocations: 8, MaxStreams: 4, MaxEvents: 4, MaxRegistrations: 4, MaxQueued: 16, PinnedMemory: 1 << 16, Timeout: 300 * time.Millisecond})
		free0 := freeMemOf(t, h.rt)
		var addrs []uint64 // device addresses handed out
		r := reader{b: data}
		for n := 0; n < 32 && !r.done(); n++ {
			fi := int(r.byte()) % len(abi.Funcs)
			f := &abi.Funcs[fi]
			args := make([]uint64, len(f.Params))
			for k, p := range f.Params {
				args[k] = r.arg(p.Type, addrs)
			}
			if r.byte()&1 == 0 { // scribble on guest memory now and then
				off := r.u32() % uint32(len(h.mem())-8)
				binary.LittleEndian.PutUint64(h.mem()[off:], r.arg(abi.Addr, addrs))
			}
			res, err := h.inst.Call(context.Background(), f.Name, args...)
			if errors.Is(err, ErrTimeout) {
				break // a wait that never ends (a stream waiting on an event nobody records)
			}
			if err != nil {
				t.Fatalf("%s%v: %v", f.Name, args, err)
			}
			if code := acl.Error(int32(uint32(res[0]))); code == acl.ErrInternal && f.Name != "aclGetRecentErrMsg" {
				t.Fatalf("%s%v hit a host bug: %s", f.Name, args, h.inst.Session().LastError())
			}
			if f.Name == "aclrtMalloc" && res[0] == 0 && uint32(args[0]) < uint32(len(h.mem())-8) {
				addrs = append(addrs, binary.LittleEndian.Uint64(h.mem()[uint32(args[0]):]))
			}
		}
		if err := h.inst.Close(context.Background()); err != nil && !errors.Is(err, ErrTimeout) {
			t.Fatalf("close: %v", err)
		}
		if got := freeMemOf(t, h.rt); got != free0 {
			t.Fatalf("free device memory %v after close, %v before", got, free0)
		}
	})
}

func freeMemOf(t *testing.T, rt *Runtime) [2]uint64 {
	var out [2]uint64
	for d := range out {
		free, _, err := rt.Backend().MemInfo(int32(d), acl.HBMMem)
		if err != nil {
			t.Fatal(err)
		}
		out[d] = free
	}
	return out
}

// reader hands out fuzz bytes; past the end it gives zeros.
type reader struct {
	b []byte
	i int
}

func (r *reader) done() bool { return r.i >= len(r.b) }

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *reader) u32() uint32 {
	return uint32(r.byte()) | uint32(r.byte())<<8 | uint32(r.byte())<<16 | uint32(r.byte())<<24
}

func (r *reader) u64() uint64 { return uint64(r.u32()) | uint64(r.u32())<<32 }

// arg picks a value of wire type t: mostly small or meaningful ones.
func (r *reader) arg(t abi.Type, addrs []uint64) uint64 {
	sel := r.byte()
	switch {
	case sel < 64:
		return uint64(sel) // small: kinds, device ids, handles, sizes
	case sel < 128 && len(addrs) > 0 && (t == abi.Addr || t == abi.Size):
		a := addrs[int(sel)%len(addrs)]
		if t == abi.Size {
			return a & 0xffff
		}
		return a + uint64(r.byte()) // inside or just past an allocation
	case sel < 160:
		return uint64(r.u32() % (4 << 16)) // inside (or just past) guest memory
	case sel < 176:
		return ^uint64(0) - uint64(r.byte()) // near 2^64
	case sel < 192:
		return 1<<32 + uint64(r.u32())
	}
	if t.Is64() {
		return r.u64()
	}
	return uint64(r.u32())
}
