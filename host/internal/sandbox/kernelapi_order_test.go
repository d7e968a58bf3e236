package sandbox_test

import (
	"encoding/binary"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

func init() {
	for name, cases := range kernelAPIOrderCases {
		orderCases[name] = cases
	}
}

// kapiPeer makes the case's own harness with the API's kernels and makes
// it h's peer, whose last error the check-order test reads.
func kapiPeer(h *harness, opts ...host.Option) *harness {
	h.T.Helper()
	k := kapiHarness(h.T, abi.Wide, opts...)
	h.peer = k
	return k
}

// kapiOn is kapiPeer with the usual state set up.
func kapiOn(h *harness) (*harness, kapi) {
	k := kapiPeer(h)
	return k, k.setupKapi(8)
}

// fillKobjs makes kernel API objects until the session's limit, with
// argument lists of fn.
func (h *harness) fillKobjs(fn uint64) {
	h.T.Helper()
	for range 1 << 13 {
		if h.rc("aclrtKernelArgsInit", fn, outA) != 0 {
			return
		}
	}
	h.T.Fatal("no limit on kernel API objects")
}

// putOptions writes an aclrtBinaryLoadOptions at kStruct whose array, at
// kAttrs, holds the option {typ, v}; arr 0 writes a NULL array.
func (h *harness) putOptions(arr, typ, v uint32) {
	h.putCfg(arr, 1)
	binary.LittleEndian.PutUint32(h.Mem()[kAttrs:], typ)
	binary.LittleEndian.PutUint32(h.Mem()[kAttrs+4:], v)
}

// kernelAPIOrderCases are the check-order cases of the kernel API: each
// builds a harness of its own with the API's kernels.
var kernelAPIOrderCases = map[string]map[string]orderCase{
	"aclrtBinaryLoadFromFile": {
		"binPath": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtBinaryLoadFromFile", 0, 1, 0) }},
		"binHandle": {run: func(h *harness) acl.Error {
			k := kapiPeer(h)
			k.PutStr(kBinName, "nosuch.o")
			k.putOptions(0, 9, 0)
			return k.rc("aclrtBinaryLoadFromFile", kBinName, kStruct, 0)
		}},
		"options": {run: func(h *harness) acl.Error {
			k := kapiPeer(h)
			k.PutStr(kBinName, "nosuch.o") // the options are parsed before the file is looked for
			for _, o := range [][2]uint32{{1, 2}, {2, 0x43554245}, {3, 1}, {9, 0}} {
				k.putOptions(kAttrs, o[0], o[1])
				if rc := k.rc("aclrtBinaryLoadFromFile", kBinName, kStruct, outA); rc != acl.ErrRTParamInvalid {
					return rc
				}
			}
			k.putOptions(0, 1, 0)
			return k.rc("aclrtBinaryLoadFromFile", kBinName, kStruct, outA)
		}},
		"file": {run: func(h *harness) acl.Error {
			k := kapiPeer(h)
			k.PutStr(kBinName, "secret.o") // registered, not granted
			k.putOptions(kAttrs, 1, 1)     // a valid option
			return k.rc("aclrtBinaryLoadFromFile", kBinName, kStruct, outA)
		}},
		"limit": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.fillKobjs(e.fn)
			return k.rc("aclrtBinaryLoadFromFile", kBinName, 0, outA)
		}},
	},
	"aclrtBinaryLoadFromData": {
		"data":       {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtBinaryLoadFromData", 0, 0, 0, outA) }},
		"binHandle":  {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtBinaryLoadFromData", data, 0, 0, 0) }},
		"guest code": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtBinaryLoadFromData", data, 64, 0, outA) }},
	},
	"aclrtBinaryGetFunction": {
		"binHandle": {run: func(h *harness) acl.Error {
			k, _ := kapiOn(h)
			return k.rc("aclrtBinaryGetFunction", 0, kFnName, outA)
		}},
		"kernelName": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtBinaryGetFunction", e.bin, 0, outA)
		}},
		"funcHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtBinaryGetFunction", e.s, kFnName, 0) // a stream as the binary, too
		}},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtBinaryGetFunction", e.fn, kBadName, outA) // a function, not a binary
		}},
		"name": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtBinaryGetFunction", e.bin, kBadName, outA)
		}},
		"limit": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.fillKobjs(e.fn)
			return k.rc("aclrtBinaryGetFunction", e.bin, kSpinName, outA) // a new function handle
		}},
	},
	"aclrtBinaryGetFunctionByEntry": {
		"binHandle": {run: func(h *harness) acl.Error {
			k, _ := kapiOn(h)
			return k.rc("aclrtBinaryGetFunctionByEntry", 0, 7, outA)
		}},
		"funcHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtBinaryGetFunctionByEntry", e.s, 99, 0)
		}},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.OK("aclrtBinaryUnLoad", e.bin)
			return k.rc("aclrtBinaryGetFunctionByEntry", e.bin, 99, outA)
		}},
		"name": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtBinaryGetFunctionByEntry", e.bin, 99, outA)
		}},
		"limit": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.fillKobjs(e.fn)
			return k.rc("aclrtBinaryGetFunctionByEntry", e.bin, 8, outA)
		}},
	},
	"aclrtKernelArgsInit": {
		"funcHandle": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtKernelArgsInit", 0, outA) }},
		"argsHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsInit", e.bin, 0)
		}},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsInit", e.bin, outA)
		}},
		"limit": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.fillKobjs(e.fn)
			return k.rc("aclrtKernelArgsInit", e.fn, outA)
		}},
	},
	"aclrtKernelArgsAppend": {
		"argsHandle": {run: func(h *harness) acl.Error {
			k, _ := kapiOn(h)
			return k.rc("aclrtKernelArgsAppend", 0, 0, 0, 0)
		}},
		"param": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppend", e.args, 0, 0, 0)
		}},
		"paramSize": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppend", e.args, kParam, 0, 0)
		}},
		"paramHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppend", e.bin, kParam, 8, 0)
		}},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppend", e.fn, kParam, 8, outB)
		}},
		"final": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppend", e.args, kParam, 1<<20, outB) // finalized, and too big
		}},
		"count": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			for range 128 {
				if rc := k.appendArg(args, 1, 1); rc != 0 {
					return rc
				}
			}
			return k.appendArg(args, 1, 1)
		}},
		"size": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			if rc := k.appendArg(args, 1, 1); rc != 0 {
				return rc
			}
			return k.rc("aclrtKernelArgsAppend", args, kParam, 64<<10-7, outB) // at offset 8: 1 byte too many
		}},
		"guest": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			end := uint64(len(k.Mem()))
			return k.rc("aclrtKernelArgsAppend", args, end-4, 8, outB)
		}},
		"limit": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			k.fillKobjs(e.fn)
			return k.appendArg(args, 1, 8)
		}},
	},
	"aclrtKernelArgsAppendPlaceHolder": {
		"argsHandle": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtKernelArgsAppendPlaceHolder", 0, 0) }},
		"paramHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppendPlaceHolder", e.bin, 0)
		}},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppendPlaceHolder", e.fn, outB)
		}},
		"final": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsAppendPlaceHolder", e.args, outB)
		}},
		"count": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			for range 128 {
				if rc := k.appendArg(args, 1, 1); rc != 0 {
					return rc
				}
			}
			return k.rc("aclrtKernelArgsAppendPlaceHolder", args, outB)
		}},
		"placeholder": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			return k.rc("aclrtKernelArgsAppendPlaceHolder", args, outB)
		}},
	},
	"aclrtKernelArgsGetPlaceHolderBuffer": {
		"argsHandle": {run: func(h *harness) acl.Error {
			return kapiPeer(h).rc("aclrtKernelArgsGetPlaceHolderBuffer", 0, 0, 0, 0)
		}},
		"paramHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsGetPlaceHolderBuffer", e.args, 0, 0, 0)
		}},
		"dataSize": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsGetPlaceHolderBuffer", e.args, e.bin, 0, 0)
		}},
		"bufferAddr": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsGetPlaceHolderBuffer", e.bin, e.bin, 4, 0)
		}},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsGetPlaceHolderBuffer", e.bin, e.bin, 4, outA)
		}},
		"param": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsGetPlaceHolderBuffer", e.args, e.args, 4, outA)
		}},
		"placeholder": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			if rc := k.appendArg(args, 1, 4); rc != 0 {
				return rc
			}
			return k.rc("aclrtKernelArgsGetPlaceHolderBuffer", args, uint64(k.U32(outB)), 4, outA)
		}},
	},
	"aclrtKernelArgsFinalize": {
		"argsHandle": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtKernelArgsFinalize", 0) }},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtKernelArgsFinalize", e.fn)
		}},
	},
	"aclrtLaunchKernelWithConfig": {
		"funcHandle": {run: func(h *harness) acl.Error {
			k, _ := kapiOn(h)
			return k.rc("aclrtLaunchKernelWithConfig", 0, 0, 999, 0, 0, data)
		}},
		"numBlocks": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernelWithConfig", e.bin, 0, 999, 0, 0, data)
		}},
		"argsHandle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernelWithConfig", e.bin, 1, 999, 0, 0, data)
		}},
		"reserve": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernelWithConfig", e.bin, 1, 999, 0, e.bin, data)
		}},
		"func": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernelWithConfig", e.bin, 1, 999, 0, e.bin, 0)
		}},
		"args": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, 999, 0, e.fn, 0)
		}},
		"stream": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA) // not finalized, too
			return k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, e.args, 0, args, 0)
		}},
		"final": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			k.putCfg(0, 1) // a bad cfg, too
			return k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, e.s, kStruct, args, 0)
		}},
		"cfg": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			for _, a := range [][2]uint32{{1, 2}, {5, 2}, {6, 2}, {9, 2}} {
				k.putCfg(kAttrs, 1)
				binary.LittleEndian.PutUint32(k.Mem()[kAttrs:], a[0])
				binary.LittleEndian.PutUint32(k.Mem()[kAttrs+4:], a[1])
				if rc := k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, e.s, kStruct, e.args, 0); rc != acl.ErrRTParamInvalid {
					return rc
				}
			}
			k.putCfg(kAttrs, 2) // both timeouts
			binary.LittleEndian.PutUint32(k.Mem()[kAttrs:], 7)
			binary.LittleEndian.PutUint32(k.Mem()[kAttrs+20:], 8)
			if rc := k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, e.s, kStruct, e.args, 0); rc != acl.ErrRTParamInvalid {
				return rc
			}
			k.putCfg(0, 1)
			return k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, e.s, kStruct, e.args, 0)
		}},
		"context": {run: func(h *harness) acl.Error {
			k := kapiPeer(h)
			k.PutStr(kBinName, "add_custom.o")
			k.PutStr(kFnName, "add_custom")
			bin := k.handleOut("aclrtBinaryLoadFromFile", kBinName, 0, outA)
			fn := k.handleOut("aclrtBinaryGetFunction", bin, kFnName, outA)
			args := k.handleOut("aclrtKernelArgsInit", fn, outA)
			k.OK("aclrtKernelArgsFinalize", args) // no arguments: wrong, too
			return k.rc("aclrtLaunchKernelWithConfig", fn, 1, 0, 0, args, 0)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.OK("aclrtSetDevice", 1)
			s1 := k.Stream()
			k.OK("aclrtSetDevice", 0)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			k.OK("aclrtKernelArgsFinalize", args)
			return k.rc("aclrtLaunchKernelWithConfig", e.fn, 1, s1, 0, args, 0)
		}},
		"argc": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			k.appendArg(args, e.x, 8)
			k.OK("aclrtKernelArgsFinalize", args)
			return k.launch(e, 1<<20, e.s, args) // and too many blocks
		}},
		"argsize": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			args := k.handleOut("aclrtKernelArgsInit", e.fn, outA)
			for _, a := range []uint64{e.x, e.y, e.z} {
				k.appendArg(args, a, 8)
			}
			k.appendArg(args, 8, 8) // n is a uint32: 4 bytes
			k.OK("aclrtKernelArgsFinalize", args)
			return k.launch(e, 1<<20, e.s, args)
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := sim.New(sim.WithDevices(2))
			h.T.Cleanup(func() { b.Close() })
			k := kapiPeer(h, host.WithBackend(bare{b}))
			e := k.setupKapi(8)
			return k.launch(e, 1<<20, e.s, e.args)
		}},
		"blockdim": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.launch(e, 1<<20, e.s, k.argsFor(e.fn, e.x, e.y, data, 8))
		}},
		"extent": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.PutStr(kFnName, "div")
			div := k.handleOut("aclrtBinaryGetFunction", e.bin, kFnName, outA)
			args := k.handleOut("aclrtKernelArgsInit", div, outA)
			k.appendArg(args, 0, 8) // x NULL, too
			k.appendArg(args, 8, 4)
			k.appendArg(args, 0, 4) // n / 0
			k.OK("aclrtKernelArgsFinalize", args)
			return k.rc("aclrtLaunchKernelWithConfig", div, 1, e.s, 0, args, 0)
		}},
		"null": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.launch(e, 1, e.s, k.argsFor(e.fn, e.x, e.y, 0, 8))
		}},
		"align": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.launch(e, 1, e.s, k.argsFor(e.fn, e.x, e.y, e.z+1, 8))
		}},
		"range": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.launch(e, 1, e.s, k.argsFor(e.fn, e.x, e.y, e.z+4, 8))
		}},
		"queue": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			gate := k.gate(e.s)
			defer gate()
			for range host.DefaultMaxQueued {
				if rc := k.launch(e, 1, e.s, e.args); rc != 0 {
					return rc
				}
			}
			return k.launch(e, 1, e.s, e.args)
		}},
	},
	"aclrtLaunchKernel": {
		"funcHandle": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtLaunchKernel", 0, 0, 0, 0, 999) }},
		"argsData": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.bin, 0, 0, 0, 999)
		}},
		"func": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.bin, 0, data, 0, 999)
		}},
		"stream": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 0, data, 0, 999)
		}},
		"numBlocks": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 0, data, 0, e.s)
		}},
		"argsSize": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 1, data, 0, e.s)
		}},
		"argsize": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 1, data, 27, e.s) // 28 packed bytes
		}},
		"argsrange": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 1, data, 28, e.s) // guest memory
		}},
		"context": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.OK("aclrtSetDevice", 1)
			packed := k.packedArgs(e, e.x, e.y, e.z+4) // on device 1, which stays
			k.OK("aclrtSetDevice", 0)
			k.OK("aclrtResetDevice", 0)
			return k.rc("aclrtLaunchKernel", e.fn, 1, packed, 28, 0)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			packed := k.packedArgs(e, e.x, e.y, e.z+4)
			k.OK("aclrtSetDevice", 1)
			return k.rc("aclrtLaunchKernel", e.fn, 1, packed, 28, e.s)
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := sim.New(sim.WithDevices(2))
			h.T.Cleanup(func() { b.Close() })
			k := kapiPeer(h, host.WithBackend(bare{b}))
			e := k.setupKapi(8)
			return k.rc("aclrtLaunchKernel", e.fn, 1<<20, k.packedArgs(e, e.x, e.y, e.z+4), 28, e.s)
		}},
		"blockdim": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 1<<20, k.packedArgs(e, e.x, e.y, e.z+4), 28, e.s)
		}},
		"range": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			return k.rc("aclrtLaunchKernel", e.fn, 1, k.packedArgs(e, e.x, e.y, e.z+4), 28, e.s)
		}},
		"queue": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			packed := k.packedArgs(e, e.x, e.y, e.z)
			gate := k.gate(e.s)
			defer gate()
			for range host.DefaultMaxQueued {
				if rc := k.rc("aclrtLaunchKernel", e.fn, 1, packed, 28, e.s); rc != 0 {
					return rc
				}
			}
			return k.rc("aclrtLaunchKernel", e.fn, 1, packed, 28, e.s)
		}},
	},
	"aclrtBinaryUnLoad": {
		"binHandle": {run: func(h *harness) acl.Error { return kapiPeer(h).rc("aclrtBinaryUnLoad", 0) }},
		"handle": {run: func(h *harness) acl.Error {
			k, e := kapiOn(h)
			k.OK("aclrtBinaryUnLoad", e.bin)
			return k.rc("aclrtBinaryUnLoad", e.bin)
		}},
	},
}

// packedArgs writes add_custom's arguments packed for aclrtLaunchKernel
// (x, y, z at 0, 8, 16, n at 24) into device memory and returns it.
func (h *harness) packedArgs(e kapi, x, y, z uint64) uint64 {
	h.T.Helper()
	dev := h.Malloc(32)
	var b [28]byte
	binary.LittleEndian.PutUint64(b[0:], x)
	binary.LittleEndian.PutUint64(b[8:], y)
	binary.LittleEndian.PutUint64(b[16:], z)
	binary.LittleEndian.PutUint32(b[24:], uint32(e.n))
	copy(h.Mem()[kPacked:], b[:])
	h.OK("aclrtMemcpy", dev, 28, kPacked, 28, uint64(acl.MemcpyHostToDevice))
	return dev
}
