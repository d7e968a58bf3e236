package sandbox_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
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

// FuzzKernel plays random launches of both surfaces (launcher calls, and
// the kernel API's binaries, functions, argument lists of random
// parameters, launches with a configuration or packed arguments, and
// unloads: kernels, blockDims, streams, addresses around one allocation,
// extents across its end), synchronizes, frees and forced stream
// destructions on a session whose buffers lie between two canary
// allocations, with a canary range of guest memory the launches are also
// pointed at. No call may fail as a host bug (500000) or trap; the
// canaries must be intact; after every step the session holds exactly the
// kernel API objects the input made and keeps, at the end no allocation
// or stream it did not make and keep, and once closed no device memory;
// and the native backend's binaries go with the plugin.
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
	// The kernel API, on each profile: the binary loaded, Inc's function,
	// an argument list of a's address, launched; Copy's with its scalar a
	// byte (refused), then packed in a; the binary unloaded with its objects.
	for _, first := range []byte{8, 0x80} { // op 8 (a load), the profile's bit
		f.Add(slices.Concat(
			[]byte{first, 0, 0, 1},               // load kernels.txt, options NULL
			[]byte{9, 0, 0, 0},                   // Inc's function
			[]byte{10, 0, 0},                     // its argument list
			[]byte{10, 1, 0, 0, 4, 64, 0, 0, 1},  // append a, the width of an address
			[]byte{10, 2, 0},                     // finalize
			[]byte{11, 0, 0, 1, 1, 1, 0},         // launch: 1 block, stream 1, no cfg
			[]byte{4, 1},                         // synchronize stream 1
			[]byte{9, 0, 2, 0},                   // Copy's function
			[]byte{10, 0, 1},                     // its argument list
			[]byte{10, 1, 1, 0, 4, 64, 0, 0, 1},  // append src a
			[]byte{10, 1, 1, 0, 4, 192, 0, 0, 1}, // append dst a+128
			[]byte{10, 1, 1, 1, 32, 1, 0, 2, 1},  // append n 32 in 1 byte
			[]byte{10, 2, 1},                     // finalize
			[]byte{11, 0, 1, 1, 1, 1, 1},         // launch: refused (n's size)
			[]byte{11, 2, 4, 64, 0, 4, 192, 1, 32, 1, 1, 0, 0, 1, 0, 3, 1, 1, 1}, // packed, 20 bytes
			[]byte{4, 1},     // synchronize stream 1
			[]byte{11, 3, 0}, // unload
		))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		prof := abi.Wide
		if len(in) > 0 && in[0]&0x80 != 0 {
			prof = abi.Native32
		}
		base := proxytest.FreeMem(t, rt)
		inst, err := plugins[prof].Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		t.Cleanup(func() {
			require.NoError(t, inst.Close(ctx))
			require.Equal(t, base, proxytest.FreeMem(t, rt), "free device memory after the session closed")
		})
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

		// The kernel API's objects the input made and keeps, by handle:
		// each binary's function handles by kernel name, and the binary,
		// function or argument list each other object belongs to.
		bins := map[uint64]map[string]uint64{}
		fns, argls, params := map[uint64]uint64{}, map[uint64]uint64{}, map[uint64]uint64{}
		unload := func(bin uint64) { // its functions, their argument lists and parameters go with it
			delete(bins, bin)
			maps.DeleteFunc(fns, func(_, b uint64) bool { return b == bin })
			maps.DeleteFunc(argls, func(_, f uint64) bool { _, ok := fns[f]; return !ok })
			maps.DeleteFunc(params, func(_, a uint64) bool { _, ok := argls[a]; return !ok })
		}
		// Scratch of the kernel API in guest memory, clear of the canaries.
		const kName, kOpts, kArr, kParam, kPack = 0x2000, 0x2040, 0x2080, 0x2100, 0x2200
		width := uint64(8) // a device address in an argument list
		if prof == abi.Native32 {
			width = 4
		}
		value := func() uint64 { // a parameter's value: an address or a scalar
			if next()%2 == 0 {
				return addr()
			}
			return uint64(next()) * uint64(next()%3)
		}
		// cfg writes an aclrtBinaryLoadOptions or aclrtLaunchKernelCfg of
		// up to two random entries (the same 20-byte layout), or gives NULL.
		cfg := func() uint64 {
			if next()%4 != 0 {
				return 0
			}
			m := h.Mem()
			le.PutUint32(m[kOpts:], kArr)
			le.PutUint32(m[kOpts+4:], uint32(next()%3))
			for i := range 2 {
				e := m[kArr+20*i : kArr+20*i+20]
				clear(e)
				le.PutUint32(e, uint32(next()%10))
				le.PutUint32(e[4:], uint32(next())*uint32(next()))
			}
			return kOpts
		}
		// The binary's kernels but Spin (which would hold each input until
		// its session closes), one granted outside it and one unknown.
		kernelNames := []string{"Inc", "Fill", "Copy", "Fault", "Panic", "Print", "nosuch"}

		for steps := 0; len(in) > 0 && steps < 48; steps++ {
			switch next() % 12 {
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
			case 8: // a binary loaded by name, or from data (refused)
				h.PutStr(kName, []string{"kernels.txt", "out/kernels.txt", "nosuch.o", ""}[next()%4])
				if next()%5 == 4 {
					code := h.Call("aclrtBinaryLoadFromData", kName, 16, 0, outA)
					hostBug(code, "aclrtBinaryLoadFromData")
					require.NotZero(t, code, "aclrtBinaryLoadFromData loads nothing")
					break
				}
				code := h.Call("aclrtBinaryLoadFromFile", kName, cfg(), outA)
				hostBug(code, "aclrtBinaryLoadFromFile")
				if code == 0 {
					bins[uint64(h.U32(outA))] = map[string]uint64{}
				}
			case 9: // a kernel's function, by name or by entry
				bin, name := pickKey(bins, next()), kernelNames[int(next())%len(kernelNames)]
				h.PutStr(kName, name)
				fn, code := "aclrtBinaryGetFunction", int32(0)
				if next()%5 == 4 {
					fn = "aclrtBinaryGetFunctionByEntry"
					code = h.Call(fn, bin, uint64(next()), outA)
				} else {
					code = h.Call(fn, bin, kName, outA)
				}
				hostBug(code, fn)
				if code == 0 {
					require.Contains(t, bins, bin, "%s took binary %d, which the input does not hold", fn, bin)
					f := uint64(h.U32(outA))
					if old, ok := bins[bin][name]; ok {
						require.Equal(t, old, f, "a kernel's function handle is the same every time")
					}
					bins[bin][name], fns[f] = f, bin
				}
			case 10: // an argument list made, appended to, finalized
				switch next() % 5 {
				case 0:
					f := pickKey(fns, next())
					code := h.Call("aclrtKernelArgsInit", f, outA)
					hostBug(code, "aclrtKernelArgsInit")
					if code == 0 {
						require.Contains(t, fns, f, "aclrtKernelArgsInit took function %d, which the input does not hold", f)
						argls[uint64(h.U32(outA))] = f
					}
				case 1:
					args := pickKey(argls, next())
					v, size := value(), []uint64{width, 4, 1, 8, 0, uint64(next())}[next()%6]
					clear(h.Mem()[kParam : kParam+256])
					le.PutUint64(h.Mem()[kParam:], v)
					param := uint64(kParam)
					if next()%8 == 0 {
						param = 0xFFFFFFF8 // past guest memory
					}
					code := h.Call("aclrtKernelArgsAppend", args, param, size, outA)
					hostBug(code, "aclrtKernelArgsAppend")
					if code == 0 {
						require.Contains(t, argls, args, "aclrtKernelArgsAppend took argument list %d, which the input does not hold", args)
						params[uint64(h.U32(outA))] = args
					}
				case 2:
					hostBug(h.Call("aclrtKernelArgsFinalize", pickKey(argls, next())), "aclrtKernelArgsFinalize")
				case 3:
					hostBug(h.Call("aclrtKernelArgsAppendPlaceHolder", pickKey(argls, next()), outA), "aclrtKernelArgsAppendPlaceHolder")
				case 4:
					hostBug(h.Call("aclrtKernelArgsGetPlaceHolderBuffer", pickKey(argls, next()), pickKey(params, next()), uint64(next()), outA), "aclrtKernelArgsGetPlaceHolderBuffer")
				}
			case 11: // an API launch, with a configuration or packed, or an unload
				switch next() % 4 {
				case 0, 1:
					code := h.Call("aclrtLaunchKernelWithConfig", pickKey(fns, next()), blockDims[int(next())%len(blockDims)], stream(), cfg(), pickKey(argls, next()), 0)
					hostBug(code, "aclrtLaunchKernelWithConfig")
				case 2: // the arguments packed in a's last 32 bytes, each at an 8-byte offset
					m := h.Mem()[kPack : kPack+32]
					le.PutUint64(m, addr())
					le.PutUint64(m[8:], value())
					le.PutUint64(m[16:], value())
					le.PutUint64(m[24:], value())
					hostBug(h.Call("aclrtMemcpy", a+n-32, 32, kPack, 32, uint64(acl.MemcpyHostToDevice)), "aclrtMemcpy")
					packed := a + n - 32
					if next()%4 == 0 {
						packed = addr()
					}
					size := []uint64{4, 8, 17, 20, 24, uint64(next())}[next()%6]
					code := h.Call("aclrtLaunchKernel", pickKey(fns, next()), blockDims[int(next())%len(blockDims)], packed, size, stream())
					hostBug(code, "aclrtLaunchKernel")
				case 3:
					bin := pickKey(bins, next())
					code := h.Call("aclrtBinaryUnLoad", bin)
					hostBug(code, "aclrtBinaryUnLoad")
					if code == 0 {
						unload(bin)
					}
				}
			}
			held := len(bins) + len(fns) + len(argls) + len(params)
			require.Equal(t, held, proxytest.Session(h.Inst).KernelObjects(), "step %d: the session holds kernel API objects the input did not make and keep", steps)
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

// pickKey picks one of m's keys by c (in the keys' order), or, one time
// in len(m)+1, c/2: a handle of another kind, of nothing, or NULL.
func pickKey[V any](m map[uint64]V, c byte) uint64 {
	keys := slices.Sorted(maps.Keys(m))
	if i := int(c) % (len(keys) + 1); i < len(keys) {
		return keys[i]
	}
	return uint64(c / 2)
}
