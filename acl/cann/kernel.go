//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"encoding/binary"
	"runtime"
	"sync"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// kernels are the kernel binaries the backend loaded and their functions,
// by the handles it gave out (never reused), so that no caller's value
// reaches the runtime as a binary or function handle.
type kernels struct {
	mu    sync.Mutex
	bins  map[acl.KernelBinary]*kbin
	funcs map[acl.KernelFunc]*kfunc
}

type kbin struct {
	native uintptr
	path   string
	funcs  []acl.KernelFunc
}

type kfunc struct {
	native uintptr
	entry  string
}

// kernelAPI lists the native functions kernels need, in the order a
// launch calls them.
var kernelAPI = []string{"aclrtBinaryLoadFromFile", "aclrtBinaryGetFunction", "aclrtKernelArgsInit", "aclrtKernelArgsAppend", "aclrtKernelArgsFinalize", "aclrtLaunchKernelWithConfig", "aclrtBinaryUnLoad"}

// Backend runs kernel binaries and the launches of them.
var _ acl.KernelRunner = (*Backend)(nil)

// kernelMissing is the error of a library without the kernel API, nil
// when it has all of it.
func (b *Backend) kernelMissing() error {
	for _, fn := range kernelAPI {
		if !b.Supports(fn) {
			return b.missing(fn)
		}
	}
	return nil
}

// LoadKernelBinary implements [acl.KernelRunner] with
// aclrtBinaryLoadFromFile, in device 0's context (a binary loaded from a
// file serves every device of the process). A library without the kernel
// API gives 207000.
func (b *Backend) LoadKernelBinary(path string) (acl.KernelBinary, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if err := b.kernelMissing(); err != nil {
		return 0, err
	}
	var native uintptr
	if err := b.call(0, "aclrtBinaryLoadFromFile", func() int32 { return b.api.aclrtBinaryLoadFromFile(path, 0, &native) }); err != nil {
		return 0, err
	}
	h := acl.KernelBinary(b.nextH.Add(1))
	b.kern.mu.Lock()
	defer b.kern.mu.Unlock()
	if b.kern.bins == nil {
		b.kern.bins, b.kern.funcs = map[acl.KernelBinary]*kbin{}, map[acl.KernelFunc]*kfunc{}
	}
	b.kern.bins[h] = &kbin{native: native, path: path}
	return h, nil
}

// KernelFunction implements [acl.KernelRunner] with aclrtBinaryGetFunction.
func (b *Backend) KernelFunction(bin acl.KernelBinary, entry string) (acl.KernelFunc, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	b.kern.mu.Lock()
	kb := b.kern.bins[bin]
	b.kern.mu.Unlock()
	if kb == nil {
		return 0, acl.Errorf(acl.ErrRTInvalidHandle, "kernel binary %d is not loaded", bin)
	}
	var native uintptr
	if err := b.call(0, "aclrtBinaryGetFunction", func() int32 { return b.api.aclrtBinaryGetFunction(kb.native, entry, &native) }); err != nil {
		return 0, err
	}
	h := acl.KernelFunc(b.nextH.Add(1))
	b.kern.mu.Lock()
	defer b.kern.mu.Unlock()
	if b.kern.bins[bin] != kb { // unloaded meanwhile
		return 0, acl.Errorf(acl.ErrRTInvalidHandle, "kernel binary %d is not loaded", bin)
	}
	b.kern.funcs[h] = &kfunc{native: native, entry: entry}
	kb.funcs = append(kb.funcs, h)
	return h, nil
}

// UnloadKernelBinary implements [acl.KernelRunner] with aclrtBinaryUnLoad.
// Its functions are forgotten first, so that no launch follows; the
// caller sees to it that none it queued is still to run (the host unloads
// a plugin's binaries once its sessions have ended).
func (b *Backend) UnloadKernelBinary(bin acl.KernelBinary) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.kern.mu.Lock()
	kb := b.kern.bins[bin]
	if kb != nil {
		delete(b.kern.bins, bin)
		for _, f := range kb.funcs {
			delete(b.kern.funcs, f)
		}
	}
	b.kern.mu.Unlock()
	if kb == nil {
		return acl.Errorf(acl.ErrRTInvalidHandle, "kernel binary %d is not loaded", bin)
	}
	return b.call(0, "aclrtBinaryUnLoad", func() int32 { return b.api.aclrtBinaryUnLoad(kb.native) })
}

// unloadKernels unloads the binaries still loaded, at Close.
func (b *Backend) unloadKernels() error {
	b.kern.mu.Lock()
	bins := b.kern.bins
	b.kern.bins, b.kern.funcs = nil, nil
	b.kern.mu.Unlock()
	var err error
	for _, kb := range bins {
		if e := b.call(0, "aclrtBinaryUnLoad", func() int32 { return b.api.aclrtBinaryUnLoad(kb.native) }); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// launchAttr and launchCfg are aclrtLaunchKernelAttr (an enum id, then a
// 16-byte union) and aclrtLaunchKernelCfg.
type launchAttr struct {
	id    int32
	value [4]uint32
}

type launchCfg struct {
	attrs    *launchAttr
	numAttrs uint64
}

// attrTimeoutUs is ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US: an aclrtTimeoutUs
// (low, then high 32 bits) in the union.
const attrTimeoutUs = 8

// LaunchKernel implements [acl.KernelRunner]: l queued on sh, each region resolved in a
// live allocation of the stream's device (and held until the launch has
// run, so that Free waits for it), the arguments packed with
// aclrtKernelArgsInit/Append/Finalize (a buffer as its region's device
// address), and aclrtLaunchKernelWithConfig, with the timeout attribute
// when the launch has one. The four calls run on one thread: the runtime's
// arguments handle is the calling thread's.
func (b *Backend) LaunchKernel(sh acl.Stream, l *acl.Launch) error {
	if l == nil || l.Kernel == nil {
		return acl.Errorf(acl.ErrInvalidParam, "the launch has no native kernel (Launch.Kernel)")
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if err := b.kernelMissing(); err != nil {
		return err
	}
	k := l.Kernel
	if k.BlockDim == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "%s: blockDim 0", l.Name)
	}
	reqs := make([]req, len(l.Regions))
	for i, r := range l.Regions {
		if r.Ptr == 0 || r.N == 0 {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: buffer %d is NULL or empty", l.Name, i)
		}
		reqs[i] = req{buf: acl.Device(r.Ptr), n: r.N, write: r.Write}
	}
	st, sides, err := b.acquire(sh, reqs...)
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	for i, sd := range sides {
		if sd.dev != st.dev {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: buffer %d is on device %d, the stream on device %d", l.Name, i, sd.dev, st.dev)
		}
	}
	b.kern.mu.Lock()
	f := b.kern.funcs[k.Func]
	b.kern.mu.Unlock()
	if f == nil {
		return acl.Errorf(acl.ErrRTInvalidHandle, "%s: kernel function %d is not loaded", l.Name, k.Func)
	}
	vals := make([][]byte, len(k.Args))
	for i, a := range k.Args {
		switch {
		case a.Region >= len(sides):
			return acl.Errorf(acl.ErrInvalidParam, "%s: argument %d names region %d of %d", l.Name, i, a.Region, len(sides))
		case a.Region >= 0:
			vals[i] = binary.LittleEndian.AppendUint64(nil, uint64(sides[a.Region].addr))
		case len(a.Value) == 0:
			return acl.Errorf(acl.ErrInvalidParam, "%s: argument %d is empty", l.Name, i)
		default:
			vals[i] = a.Value
		}
	}
	var cfg *launchCfg
	var pn runtime.Pinner
	defer pn.Unpin()
	if k.Timeout > 0 {
		us := uint64((k.Timeout + 999) / 1000) // rounded up: a timeout never shortens
		attr := &launchAttr{id: attrTimeoutUs, value: [4]uint32{uint32(us), uint32(us >> 32)}}
		pn.Pin(attr)
		cfg = &launchCfg{attrs: attr, numAttrs: 1}
	}
	var failed string
	var code int32
	api := b.api
	err = b.submit(st, sides, false, "aclrtLaunchKernelWithConfig", func(stream uintptr) int32 {
		fail := func(fn string, rc int32) int32 { failed, code = fn, rc; return rc }
		var args uintptr
		if rc := api.aclrtKernelArgsInit(f.native, &args); rc != 0 {
			return fail("aclrtKernelArgsInit", rc)
		}
		for _, v := range vals {
			var ph uintptr
			if rc := api.aclrtKernelArgsAppend(args, unsafe.Pointer(&v[0]), uint64(len(v)), &ph); rc != 0 {
				return fail("aclrtKernelArgsAppend", rc)
			}
		}
		if rc := api.aclrtKernelArgsFinalize(args); rc != 0 {
			return fail("aclrtKernelArgsFinalize", rc)
		}
		return api.aclrtLaunchKernelWithConfig(f.native, k.BlockDim, stream, unsafe.Pointer(cfg), args, 0)
	})
	if failed != "" {
		return nativeErr(code, failed)
	}
	return err
}
