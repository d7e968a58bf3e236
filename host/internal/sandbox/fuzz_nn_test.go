package sandbox_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// FuzzNN plays random tensor creations and operator launches (dims,
// strides, offsets, data types and addresses around one allocation) on a
// session whose allocation lies between two canary allocations, and guest
// memory with a canary range of its own. No call may fail as a host bug
// (500000) or trap; the canaries must be intact (the addresses tried stay
// within 64 bytes of the allocation, far from the guard gap that separates
// allocations); and the session may hold no object the input did not make
// and keep.
func FuzzNN(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 4, 4, 1, 2, 3, 2, 0, 0, 1, 3, 0})
	f.Add([]byte{0, 2, 4, 4, 0, 0, 9, 0, 0, 2, 4, 4, 0, 0, 9, 0, 2, 0, 0, 1, 3})
	f.Add(bytes.Repeat([]byte{0, 3, 2, 2, 1, 5, 7, 200}, 6))
	f.Add([]byte{0, 1, 255, 0, 0, 0, 0, 0, 2, 1, 3, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		prof := abi.Wide
		if len(in) > 0 && in[0]&0x80 != 0 {
			prof = abi.Native32
		}
		h := newHarnessIn(t, prof, host.Policy{})
		h.OK("aclrtSetDevice", 0)
		computes := true
		if h.RT.Backend().Traits().Computer == nil {
			computes = false
		}
		const n, canary = 256, 512
		g1 := h.Malloc(canary)
		a := h.Malloc(n)
		g2 := h.Malloc(canary)
		pat := h.Fill(data, canary, 0x5A)
		for _, g := range []uint64{g1, g2} {
			h.OK("aclrtMemcpy", g, canary, data, canary, uint64(acl.MemcpyHostToDevice))
		}
		const guestCanary = 0x3000
		gpat := h.Fill(guestCanary, 256, 0xA5)

		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		var tensors []uint64
		live := map[uint64]bool{} // objects the input holds
		alpha := h.scalar(1)
		live[alpha] = true
		pick := func() uint64 {
			b := next()
			if b == 255 || len(tensors) == 0 {
				return uint64(b) // a raw, maybe bogus handle
			}
			return tensors[int(b)%len(tensors)]
		}
		dtypes := []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTInt32, acl.DTInt8, acl.DTBFloat16, acl.DTInt64}
		host := func(code int32, name string) {
			require.NotEqual(t, int32(acl.ErrInternal), code, "%s: host bug: %s", name, h.Inst.Session().LastError())
		}
		for steps := 0; len(in) > 0 && steps < 64; steps++ {
			switch next() % 5 {
			case 0: // a tensor
				nd := int(next() % 4)
				dims := make([]int64, nd)
				storage := make([]int64, int(next()%4))
				for i := range dims {
					dims[i] = int64(next()%6) - int64(next()%8/7)
				}
				for i := range storage {
					storage[i] = int64(next() % 9)
				}
				h.PutI64s(nnDims, dims...)
				h.PutI64s(nnStorage, storage...)
				var st uint64
				if next()%2 == 0 {
					for i := range dims {
						h.PutI64s(nnStrides+uint32(8*i), int64(next()%5)-1)
					}
					st = nnStrides
				}
				dt := dtypes[int(next())%len(dtypes)]
				off := int64(next()%8) - 2
				addr := a + uint64(int64(next())-64)
				rc := h.Call("aclCreateTensor", nnDims, uint64(nd), uint64(dt), st, uint64(off), uint64(acl.FormatND), nnStorage, uint64(len(storage)), addr)
				host(rc, "aclCreateTensor")
				if rc != 0 {
					tensors = append(tensors, uint64(uint32(rc)))
					live[uint64(uint32(rc))] = true
				}
			case 1: // a destruction
				x := pick()
				rc := h.Call("aclDestroyTensor", x)
				host(rc, "aclDestroyTensor")
				if rc == 0 {
					delete(live, x)
				}
			case 2, 3, 4: // an operator, launched when its arguments pass
				var ws, run string
				var args []uint64
				switch next() % 4 {
				case 0:
					ws, run, args = "aclnnAddGetWorkspaceSize", "aclnnAdd", []uint64{pick(), pick(), alpha, pick()}
				case 1:
					ws, run, args = "aclnnMulGetWorkspaceSize", "aclnnMul", []uint64{pick(), pick(), pick()}
				case 2:
					ws, run, args = "aclnnAbsGetWorkspaceSize", "aclnnAbs", []uint64{pick(), pick()}
				default:
					ws, run, args = "aclnnSoftmaxGetWorkspaceSize", "aclnnSoftmax", []uint64{pick(), uint64(int64(next()%4) - 2), pick()}
				}
				rc := h.Call(ws, append(args, nnWS, nnEx)...)
				host(rc, ws)
				if rc != 0 {
					continue
				}
				ex := uint64(h.U32(nnEx))
				live[ex] = true
				if !computes {
					continue
				}
				rc = h.Call(run, 0, 0, ex, 0)
				host(rc, run)
				if rc == 0 || next()%2 == 0 {
					delete(live, ex) // launched: single-use
					if rc != 0 {
						h.OK("aclDestroyAclOpExecutor", ex)
					}
				}
			}
		}
		rc := h.Call("aclrtSynchronizeStream", 0)
		host(rc, "aclrtSynchronizeStream")

		for _, g := range []uint64{g1, g2} {
			h.OK("aclrtMemcpy", data2, canary, g, canary, uint64(acl.MemcpyDeviceToHost))
			require.Equal(t, pat, append([]byte(nil), h.Mem()[data2:data2+canary]...), "a canary allocation was written")
		}
		require.Equal(t, gpat, append([]byte(nil), h.Mem()[guestCanary:guestCanary+256]...), "guest memory was written")
		require.Equal(t, len(live), proxytest.Session(h.Inst).NNObjects(), "the session holds objects the input did not make and keep")
	})
}
