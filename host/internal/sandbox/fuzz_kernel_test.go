package sandbox_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
	"github.com/aclwasm/aclwasm/internal/testsupport/kerneltest"
)

// fuzzLaunchers are the launchers FuzzKernel plays, by profile: buffers
// of several element sizes and extents (blockDim, a scalar), scalars of
// two sizes, a status and a void form, a kernel that faults and one that
// prints.
var fuzzLaunchers = map[abi.Profile][]kerneltest.Launcher{
	abi.Wide: {
		{Sym: "Inc", Params: "i32 i32 i64"},
		{Sym: "Fill", Params: "i32 i32 i64 i32 i32", Status: true},
		{Sym: "Copy", Params: "i32 i32 i64 i64 i32", Status: true},
		{Sym: "Fault", Params: "i32 i32"},
		{Sym: "Print", Params: "i32 i32"},
	},
	abi.Native32: {
		{Sym: "Inc", Params: "i32 i32 i32", Status: true},
		{Sym: "Fill", Params: "i32 i32 i32 i32 i32"},
		{Sym: "Copy", Params: "i32 i32 i32 i32 i32", Status: true},
		{Sym: "Fault", Params: "i32 i32", Status: true},
		{Sym: "Print", Params: "i32 i32"},
	},
}

// FuzzKernel plays random launcher calls (kernels, blockDims, streams,
// addresses around one allocation, extents across its end), synchronizes,
// frees and forced stream destructions on a session whose buffers lie
// between two canary allocations, with a canary range of guest memory the
// launches are also pointed at. No call may fail as a host bug (500000)
// or trap; the canaries must be intact; the session may hold no
// allocation or stream the input did not make and keep; and the native
// backend's binaries go with the plugin.
func FuzzKernel(f *testing.F) {
	// One runtime and plugin per profile for every input, each input an
	// instance of its own: a runtime and a compilation per input would
	// leave the fuzzer a few inputs a minute.
	ctx := context.Background()
	base := kerneltest.StandinBinaries(f)
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(f), host.WithEngine(testEngine), host.WithKernels(kerneltest.Kernels()...))...)
	require.NoError(f, err)
	plugins := map[abi.Profile]*host.Plugin{}
	f.Cleanup(func() {
		for _, pl := range plugins {
			require.NoError(f, pl.Close(ctx))
		}
		require.Equal(f, base, kerneltest.StandinBinaries(f), "the plugins' kernel binaries are unloaded with them")
		require.NoError(f, rt.Close(ctx))
	})
	for prof, ls := range fuzzLaunchers {
		pl, err := rt.Load(ctx, testsupport.WAT(f, kerneltest.GuestWAT(prof, ls...)), kerneltest.Granted)
		require.NoError(f, err)
		plugins[prof] = pl
	}
	f.Add([]byte{0, 0, 1, 0, 3, 10, 0, 1, 1, 1, 3, 20, 2, 7, 4, 0})
	f.Add([]byte{0x80, 0, 2, 4, 1, 3, 30, 1, 4, 1, 0, 3, 5, 2, 2, 3, 40, 3, 100, 200, 4, 1})
	f.Add([]byte{1, 0, 3, 2, 1, 5, 0, 1, 2, 0, 3, 64, 5, 0, 0, 1, 2, 3, 1, 9, 6, 1, 4, 2})
	f.Add(bytes.Repeat([]byte{0, 1, 1, 1, 3, 255, 7, 255}, 8))
	f.Fuzz(func(t *testing.T, in []byte) {
		prof := abi.Wide
		if len(in) > 0 && in[0]&0x80 != 0 {
			prof = abi.Native32
		}
		inst, err := plugins[prof].Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })
		h := &harness{Harness: &proxytest.Harness{T: t, Prof: prof, RT: rt, Inst: inst}}
		h.OK("aclrtSetDevice", 0)
		const n, canary = 256, 512
		g1 := h.Malloc(canary)
		a := h.Malloc(n)
		b := h.Malloc(64)
		g2 := h.Malloc(canary)
		pat := h.Fill(data, canary, 0x5A)
		for _, g := range []uint64{g1, g2} {
			h.OK("aclrtMemcpy", g, canary, data, canary, uint64(acl.MemcpyHostToDevice))
		}
		const guestCanary = 0x3000
		gpat := h.Fill(guestCanary, 256, 0xA5)
		allocs, streams := 4, map[int]uint64{1: h.Stream(), 2: h.Stream()}

		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			c := in[0]
			in = in[1:]
			return c
		}
		hostBug := func(code int32, what string) {
			require.NotEqual(t, int32(acl.ErrInternal), code, "%s: host bug: %s", what, h.Inst.Session().LastError())
		}
		stream := func() uint64 {
			switch k := int(next() % 4); k {
			case 0:
				return 0 // the default stream
			case 3:
				return uint64(next()) // maybe bogus, maybe an event's
			default:
				return streams[k] // 0 once destroyed: the default stream
			}
		}
		addr := func() uint64 {
			switch next() % 8 {
			case 0:
				return 0
			case 1:
				return guestCanary + uint64(next()) // guest memory
			case 2:
				return b + uint64(next()%80)
			case 3:
				return 1 << 31 // no allocation
			default:
				return a + uint64(next()) - 64 // around the allocation
			}
		}
		blockDims := []uint64{0, 1, 2, 3, 24, 25, 48, 49, 1 << 31, 0xFFFFFFFF}
		for steps := 0; len(in) > 0 && steps < 48; steps++ {
			switch next() % 8 {
			case 0, 1, 2, 3: // a launch
				l := fuzzLaunchers[prof][int(next())%len(fuzzLaunchers[prof])]
				args := []uint64{blockDims[int(next())%len(blockDims)], stream()}
				switch l.Sym {
				case "Inc":
					args = append(args, addr())
				case "Fill":
					args = append(args, addr(), uint64(next())*uint64(next()%3), uint64(next()))
				case "Copy":
					args = append(args, addr(), addr(), uint64(next())*uint64(next()%3))
				}
				hostBug(h.kcall(l.Sym, args...), l.Sym)
			case 4: // a synchronize
				hostBug(h.Call("aclrtSynchronizeStream", stream()), "aclrtSynchronizeStream")
			case 5: // b freed, with launches maybe queued on it
				if b != 0 {
					h.OK("aclrtFree", b)
					b, allocs = 0, allocs-1
				}
			case 6: // a stream destroyed with its work cancelled
				k := 1 + int(next()%2)
				if st := streams[k]; st != 0 {
					h.OK("aclrtDestroyStreamForce", st)
					streams[k] = 0
				}
			case 7: // a synchronize of everything
				hostBug(h.Call("aclrtSynchronizeDevice"), "aclrtSynchronizeDevice")
			}
		}
		hostBug(h.Call("aclrtSynchronizeDevice"), "aclrtSynchronizeDevice")
		for _, g := range []uint64{g1, g2} {
			h.OK("aclrtMemcpy", data2, canary, g, canary, uint64(acl.MemcpyDeviceToHost))
			require.Equal(t, pat, append([]byte(nil), h.Mem()[data2:data2+canary]...), "a canary allocation was written")
		}
		require.Equal(t, gpat, append([]byte(nil), h.Mem()[guestCanary:guestCanary+256]...), "guest memory was written")
		live := 0
		for _, st := range streams {
			if st != 0 {
				live++
			}
		}
		gotAllocs, gotStreams := proxytest.Session(h.Inst).Holdings()
		require.Equal(t, allocs, gotAllocs, "the session holds allocations the input did not make and keep")
		require.Equal(t, live, gotStreams, "the session holds streams the input did not make and keep")
	})
}
