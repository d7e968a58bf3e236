package sandbox

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// The runtime's kernel API (ABI section 13.3), guest surface 1: a guest
// loads a binary the host approved by name, gets its kernels' function
// handles, builds an argument list and launches it. Binaries, functions,
// argument lists and parameters are handles of the fifth kind (typed,
// from the session's one numbering, never reused, released with the
// session). A launch goes through queueKernel, as a launcher's does: one
// validation and queue path for both surfaces. No file the guest names is
// opened and no byte it supplies runs as code.

// Bounds of the kernel API, the native runtime's own: an argument list
// holds at most maxKernelArgs parameters in maxKernelArgBytes bytes
// (args_handle_allocator.hpp:20-21), each at an 8-byte aligned offset
// (the runtime's alignment for AI Core kernels). A session holds at most
// maxKernelObjs objects (the sandbox's bound, so that a guest cannot make
// the host keep unbounded memory).
const (
	maxKernelArgs     = 128
	maxKernelArgBytes = 64 << 10
	kernelArgAlign    = 8
	maxKernelObjs     = 1 << 12
)

// kobj is one object of the kernel API: its kind and the record of that kind.
type kobj struct {
	kind  abi.Kind
	bin   *binRec
	fn    *funcRec
	args  *argsRec
	param *paramRec
}

// binRec is a loaded binary: the name the guest loaded it by and the
// granted kernels it holds, by name; unloaded once aclrtBinaryUnLoad ran.
type binRec struct {
	name     string
	ks       []*Kernel
	fns      map[*Kernel]uint32 // the function handle of each kernel asked for
	unloaded bool
}

// funcRec is a function handle: a kernel of a binary.
type funcRec struct {
	bin *binRec
	k   *Kernel
}

// argsRec is an argument list: the bytes of each appended parameter.
type argsRec struct {
	fn     *funcRec
	params [][]byte
	size   uint64 // the bytes used, with each parameter's alignment
	final  bool
}

// paramRec is a parameter handle: parameter i of an argument list.
type paramRec struct {
	args *argsRec
	i    int
}

// newKobj gives o a handle.
func (c *Call) newKobj(o *kobj) (uint32, error) {
	if len(c.s.kobjs) >= maxKernelObjs {
		return 0, acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d binaries, functions, argument lists and parameters, the sandbox's limit", len(c.s.kobjs))
	}
	h, err := c.s.newHandle()
	if err != nil {
		return 0, err
	}
	if c.s.kobjs == nil {
		c.s.kobjs = map[uint32]*kobj{}
	}
	c.s.kobjs[h] = o
	return h, nil
}

// kobjOf resolves handle parameter i as an object of kind k, as the
// runtime's entry point validates its handles: unknown, destroyed or of
// another kind gives 107017, and so do a function or an argument list
// whose binary was unloaded. NULL was refused before, by the ACL layer.
func (c *Call) kobjOf(i int, k abi.Kind) (*kobj, error) {
	name, h := abi.Funcs[c.fi].Params[i].Name, c.u32(i)
	o, ok := c.s.kobjs[h]
	if !ok || o.kind != k {
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is not an %s of this session (unknown, unloaded or of another kind)", name, h, k)
	}
	var bin *binRec
	switch {
	case o.bin != nil:
		bin = o.bin
	case o.fn != nil:
		bin = o.fn.bin
	case o.args != nil:
		bin = o.args.fn.bin
	case o.param != nil:
		bin = o.param.args.fn.bin
	}
	if bin.unloaded {
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d belongs to binary %q, which was unloaded", name, h, bin.name)
	}
	return o, nil
}

// nonNull refuses a NULL pointer or handle parameter with 100000, as the
// ACL layer does (ACL_REQUIRES_NOT_NULL).
func (c *Call) nonNull(is ...int) error {
	for _, i := range is {
		if c.u32(i) == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "%s is NULL", abi.Funcs[c.fi].Params[i].Name)
		}
	}
	return nil
}

// outHandle is the 4-byte out-parameter i a handle is written to: NULL or
// outside guest memory gives 100000.
func (c *Call) outHandle(i int) ([]byte, error) { return c.out(i, 4) }

// binaryKernels returns the granted kernels of the binary a guest names:
// those whose declared binary has the same file name (the last element of
// the path, so that a program's "./out/add_custom.o" names the host's
// kernels/add_custom.o), sorted by name.
func binaryKernels(ks map[string]*Kernel, name string) []*Kernel {
	base := path.Base(path.Clean(strings.ReplaceAll(name, "\\", "/")))
	if name == "" || base == "." || base == "/" {
		return nil
	}
	var out []*Kernel
	for _, k := range ks {
		if k.Binary != "" && path.Base(path.Clean(strings.ReplaceAll(k.Binary, "\\", "/"))) == base {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b *Kernel) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// binaryNames lists the approved binaries of the granted kernels, for messages.
func binaryNames(ks map[string]*Kernel) string {
	var ns []string
	for _, k := range ks {
		if k.Binary != "" {
			ns = append(ns, strconv.Quote(path.Base(k.Binary)))
		}
	}
	if len(ns) == 0 {
		return "none"
	}
	slices.Sort(ns)
	return strings.Join(slices.Compact(ns), ", ")
}

// loadOptions checks an aclrtBinaryLoadOptions at gptr parameter i as the
// runtime parses it (binary_loader.cc:105-161): NULL is none; a non-NULL
// one needs its array, and each option is a lazy-load flag of 0 or 1
// (a magic, an AI CPU mode and anything else give 107000: loading from a
// file takes no magic, and an AI CPU kernel is no kernel the host
// registered).
func (c *Call) loadOptions(i int) error {
	ptr := c.u32(i)
	if ptr == 0 {
		return nil
	}
	b, err := c.guest("options", ptr, 8) // {options, numOpt}: guest memory's pointer and size_t, in both profiles
	if err != nil {
		return err
	}
	arr, n := uint64(le.Uint32(b)), uint64(le.Uint32(b[4:]))
	if arr == 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "options is not NULL but options->options is NULL")
	}
	if n > uint64(len(c.mem))/20 {
		return acl.Errorf(acl.ErrInvalidParam, "options->numOpt %d: the options exceed guest memory", n)
	}
	opts, err := c.guest("options->options", uint32(arr), n*20)
	if err != nil {
		return err
	}
	for k := range n {
		o := opts[20*k:]
		typ, v := int32(le.Uint32(o)), int32(le.Uint32(o[4:]))
		switch typ {
		case 1: // ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD
			if v != 0 && v != 1 {
				return acl.Errorf(acl.ErrRTParamInvalid, "options->options[%d]: isLazyLoad %d is neither 0 nor 1", k, v)
			}
		case 2: // ACL_RT_BINARY_LOAD_OPT_MAGIC
			return acl.Errorf(acl.ErrRTParamInvalid, "options->options[%d]: a magic is not taken when loading from a file", k)
		case 3: // ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE
			return acl.Errorf(acl.ErrRTParamInvalid, "options->options[%d]: AI CPU kernels (cpuKernelMode %d) are no kernels the host registered", k, v)
		default:
			return acl.Errorf(acl.ErrRTParamInvalid, "options->options[%d]: option type %d is outside [1, 4)", k, typ)
		}
	}
	return nil
}

// binaryLoadFromFile is aclrtBinaryLoadFromFile(binPath, options, binHandle).
func binaryLoadFromFile(c *Call) error {
	if err := c.nonNull(0, 2); err != nil { // binPath, binHandle
		return err
	}
	out, err := c.outHandle(2)
	if err != nil {
		return err
	}
	name, err := c.cstring("binPath", c.u32(0))
	if err != nil {
		return err
	}
	if err := c.loadOptions(1); err != nil { // options
		return err
	}
	ks := binaryKernels(c.s.kernels, name) // file
	if len(ks) == 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "binPath %q names no kernel binary the host approved for this plugin (approved: %s); no file is opened", name, binaryNames(c.s.kernels))
	}
	h, err := c.newKobj(&kobj{kind: abi.BinHandle, bin: &binRec{name: name, ks: ks, fns: map[*Kernel]uint32{}}}) // limit
	if err != nil {
		return err
	}
	le.PutUint32(out, h)
	c.note = fmt.Sprintf("binary %q holds %s", name, kernelList(ks))
	return nil
}

func kernelList(ks []*Kernel) string {
	ns := make([]string, len(ks))
	for i, k := range ks {
		ns[i] = k.Name
	}
	return strings.Join(ns, ", ")
}

// binaryLoadFromData is aclrtBinaryLoadFromData(data, length, options,
// binHandle): refused, after the ACL layer's checks.
func binaryLoadFromData(c *Call) error {
	if err := c.nonNull(0, 3); err != nil { // data, binHandle
		return err
	}
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "aclrtBinaryLoadFromData would load device code the guest supplies, which the sandbox never runs: load a kernel binary the host approved by name with aclrtBinaryLoadFromFile") // guest code
}

// binaryGetFunction is aclrtBinaryGetFunction(binHandle, kernelName,
// funcHandle) and, byEntry, aclrtBinaryGetFunctionByEntry(binHandle,
// funcEntry, funcHandle).
func binaryGetFunction(byEntry bool) importFn {
	return func(c *Call) error {
		nulls := []int{0, 1, 2}
		if byEntry {
			nulls = []int{0, 2}
		}
		if err := c.nonNull(nulls...); err != nil {
			return err
		}
		out, err := c.outHandle(2)
		if err != nil {
			return err
		}
		var name string
		if !byEntry {
			if name, err = c.cstring("kernelName", c.u32(1)); err != nil {
				return err
			}
		}
		o, err := c.kobjOf(0, abi.BinHandle) // handle
		if err != nil {
			return err
		}
		bin := o.bin
		var k *Kernel
		for _, kk := range bin.ks {
			if !byEntry && kk.Name == name || byEntry && kk.Entry != "" && kk.Entry == strconv.FormatUint(c.u64(1), 10) {
				k = kk
				break
			}
		}
		if k == nil { // name
			if byEntry {
				return acl.Errorf(acl.ErrRTParamInvalid, "funcEntry %d is the entry of no kernel of binary %q (its kernels: %s)", c.u64(1), bin.name, kernelList(bin.ks))
			}
			return acl.Errorf(acl.ErrRTParamInvalid, "kernelName %q is no kernel of binary %q (its kernels: %s)", name, bin.name, kernelList(bin.ks))
		}
		h, ok := bin.fns[k] // natively a kernel's handle is the same every time
		if !ok {
			if h, err = c.newKobj(&kobj{kind: abi.FuncHandle, fn: &funcRec{bin: bin, k: k}}); err != nil {
				return err
			}
			bin.fns[k] = h
		}
		le.PutUint32(out, h)
		c.note = "kernel " + k.Name
		return nil
	}
}

// kernelArgsInit is aclrtKernelArgsInit(funcHandle, argsHandle).
func kernelArgsInit(c *Call) error {
	if err := c.nonNull(0, 1); err != nil {
		return err
	}
	out, err := c.outHandle(1)
	if err != nil {
		return err
	}
	o, err := c.kobjOf(0, abi.FuncHandle)
	if err != nil {
		return err
	}
	h, err := c.newKobj(&kobj{kind: abi.ArgsHandle, args: &argsRec{fn: o.fn}})
	if err != nil {
		return err
	}
	le.PutUint32(out, h)
	return nil
}

// appendable checks that the argument list can take one more parameter
// of n bytes (the runtime's order: finalized 207000, then the count and
// the buffer 107000) and returns its offset.
func appendable(a *argsRec, n uint64) (uint64, error) {
	if a.final {
		return 0, acl.Errorf(acl.ErrRTFeatureNotSupport, "the argument list is finalized: nothing more can be appended")
	}
	if len(a.params)+1 > maxKernelArgs {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "the argument list already holds %d parameters, the most a kernel takes", len(a.params))
	}
	off := (a.size + kernelArgAlign - 1) / kernelArgAlign * kernelArgAlign
	if n > maxKernelArgBytes || off+n > maxKernelArgBytes {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "a parameter of %d bytes at offset %d overflows the argument list's %d bytes", n, off, maxKernelArgBytes)
	}
	return off, nil
}

// kernelArgsAppend is aclrtKernelArgsAppend(argsHandle, param, paramSize,
// paramHandle).
func kernelArgsAppend(c *Call) error {
	if err := c.nonNull(0, 1); err != nil { // argsHandle, param
		return err
	}
	n := c.u64(2)
	if n == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "paramSize is 0")
	}
	if err := c.nonNull(3); err != nil { // paramHandle
		return err
	}
	out, err := c.outHandle(3)
	if err != nil {
		return err
	}
	o, err := c.kobjOf(0, abi.ArgsHandle)
	if err != nil {
		return err
	}
	a := o.args
	off, err := appendable(a, n)
	if err != nil {
		return err
	}
	b, err := c.guest("param", c.u32(1), n) // the bytes, in guest memory
	if err != nil {
		return err
	}
	h, err := c.newKobj(&kobj{kind: abi.ParamHandle, param: &paramRec{args: a, i: len(a.params)}})
	if err != nil {
		return err
	}
	a.params = append(a.params, slices.Clone(b))
	a.size = off + n
	le.PutUint32(out, h)
	return nil
}

// kernelArgsAppendPlaceHolder is aclrtKernelArgsAppendPlaceHolder(argsHandle,
// paramHandle): the runtime's checks, then refused.
func kernelArgsAppendPlaceHolder(c *Call) error {
	if err := c.nonNull(0, 1); err != nil {
		return err
	}
	if _, err := c.outHandle(1); err != nil {
		return err
	}
	o, err := c.kobjOf(0, abi.ArgsHandle)
	if err != nil {
		return err
	}
	if _, err := appendable(o.args, 8); err != nil {
		return err
	}
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "placeholder arguments are not supported: their data would live in memory the host hands the guest, which it cannot; copy the data to a device buffer and append its address") // placeholder
}

// kernelArgsGetPlaceHolderBuffer is aclrtKernelArgsGetPlaceHolderBuffer(
// argsHandle, paramHandle, dataSize, bufferAddr): no parameter is a
// placeholder, which the runtime refuses with 107000.
func kernelArgsGetPlaceHolderBuffer(c *Call) error {
	if err := c.nonNull(0, 1); err != nil {
		return err
	}
	if c.u64(2) == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "dataSize is 0")
	}
	if err := c.nonNull(3); err != nil {
		return err
	}
	if _, err := c.outWord(3); err != nil {
		return err
	}
	if _, err := c.kobjOf(0, abi.ArgsHandle); err != nil {
		return err
	}
	p, err := c.kobjOf(1, abi.ParamHandle)
	if err != nil {
		return err
	}
	return acl.Errorf(acl.ErrRTParamInvalid, "paramHandle %d (parameter %d) is not a placeholder: it has no buffer", c.u32(1), p.param.i)
}

// kernelArgsFinalize is aclrtKernelArgsFinalize(argsHandle).
func kernelArgsFinalize(c *Call) error {
	if err := c.nonNull(0); err != nil {
		return err
	}
	o, err := c.kobjOf(0, abi.ArgsHandle)
	if err != nil {
		return err
	}
	o.args.final = true
	return nil
}

// binaryUnLoad is aclrtBinaryUnLoad(binHandle): the binary's functions and
// their argument lists are no longer valid; launches already queued run.
func binaryUnLoad(c *Call) error {
	if err := c.nonNull(0); err != nil {
		return err
	}
	o, err := c.kobjOf(0, abi.BinHandle)
	if err != nil {
		return err
	}
	o.bin.unloaded = true
	delete(c.s.kobjs, c.u32(0))
	for h, ob := range c.s.kobjs { // its functions, argument lists and parameters go with it
		if ob.fn != nil && ob.fn.bin == o.bin || ob.args != nil && ob.args.fn.bin == o.bin || ob.param != nil && ob.param.args.fn.bin == o.bin {
			delete(c.s.kobjs, h)
		}
	}
	return nil
}

// launchCfg checks an aclrtLaunchKernelCfg at gptr parameter i as the
// runtime does (api_error.cc:950-1044) and returns the timeout its
// attributes set (0: none).
func (c *Call) launchCfg(i int) (time.Duration, error) {
	ptr := c.u32(i)
	if ptr == 0 {
		return 0, nil
	}
	b, err := c.guest("cfg", ptr, 8) // {attrs, numAttrs}: guest memory's pointer and size_t, in both profiles
	if err != nil {
		return 0, err
	}
	arr, n := uint64(le.Uint32(b)), uint64(le.Uint32(b[4:]))
	if arr == 0 {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "cfg->attrs is NULL")
	}
	if n > uint64(len(c.mem))/20 {
		return 0, acl.Errorf(acl.ErrInvalidParam, "cfg->numAttrs %d: the attributes exceed guest memory", n)
	}
	attrs, err := c.guest("cfg->attrs", uint32(arr), n*20)
	if err != nil {
		return 0, err
	}
	var timeout time.Duration
	var sec, us bool
	for k := range n {
		a := attrs[20*k:]
		v := a[4:]
		switch le.Uint32(a) {
		case 1: // SCHEM_MODE: [0, RT_SCHEM_MODE_END)
			if v[0] >= 2 {
				return 0, acl.Errorf(acl.ErrRTParamInvalid, "cfg->attrs[%d]: schemMode %d is outside [0, 2)", k, v[0])
			}
		case 5, 6, 9: // BLOCK_TASK_PREFETCH, DATA_DUMP, ENABLE_PROFILING: 0 or 1
			if v[0] > 1 {
				return 0, acl.Errorf(acl.ErrRTParamInvalid, "cfg->attrs[%d]: attribute %d's value %d is outside [0, 1]", k, le.Uint32(a), v[0])
			}
		case 7: // TIMEOUT, seconds
			sec = true
			timeout = time.Duration(le.Uint16(v)) * time.Second
		case 8: // TIMEOUT_US
			us = true
			timeout = time.Duration(min(uint64(le.Uint32(v))|uint64(le.Uint32(v[4:]))<<32, uint64(1<<63-1)/uint64(time.Microsecond))) * time.Microsecond
		}
	}
	if sec && us {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "cfg->attrs carries both ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT and ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US")
	}
	return timeout, nil
}

// kernelArgVals reads a launch's arguments (each parameter's bytes) by
// k's declaration: a buffer is a device address of the profile's width, a
// scalar its type's size. A count or a size that differs gives 107000.
func (c *Call) kernelArgVals(k *Kernel, params [][]byte) ([]uint64, error) {
	if len(params) != len(k.Params) {
		return nil, acl.Errorf(acl.ErrRTParamInvalid, "%s takes %d arguments (%s), the argument list has %d", k.Name, len(k.Params), paramNames(k), len(params))
	}
	vals := make([]uint64, len(params))
	for i, p := range k.Params {
		want := p.Size
		what := "a scalar of " + strconv.FormatUint(want, 10) + " bytes"
		if p.Buffer {
			want = c.s.prof.Width(abi.Addr)
			what = "a device address of " + strconv.FormatUint(want, 10) + " bytes in module " + c.s.prof.Module()
		}
		if uint64(len(params[i])) != want {
			return nil, acl.Errorf(acl.ErrRTParamInvalid, "%s: argument %d (%s) is %d bytes, the declaration's is %s", k.Name, i, p.Name, len(params[i]), what)
		}
		var b [8]byte
		copy(b[:], params[i])
		vals[i] = le.Uint64(b[:])
	}
	return vals, nil
}

func paramNames(k *Kernel) string {
	ns := make([]string, len(k.Params))
	for i, p := range k.Params {
		ns[i] = p.Name
	}
	if len(ns) == 0 {
		return "none"
	}
	return strings.Join(ns, ", ")
}

// launchKernelWithConfig is aclrtLaunchKernelWithConfig(funcHandle,
// numBlocks, stream, cfg, argsHandle, reserve).
func launchKernelWithConfig(c *Call) error {
	if err := c.nonNull(0); err != nil { // funcHandle
		return err
	}
	if c.u32(1) == 0 { // numBlocks
		return acl.Errorf(acl.ErrInvalidParam, "numBlocks is 0")
	}
	if err := c.nonNull(4); err != nil { // argsHandle
		return err
	}
	if c.u32(5) != 0 { // reserve
		return acl.Errorf(acl.ErrInvalidParam, "reserve must be NULL")
	}
	fo, err := c.kobjOf(0, abi.FuncHandle) // func
	if err != nil {
		return err
	}
	ao, err := c.kobjOf(4, abi.ArgsHandle) // args
	if err != nil {
		return err
	}
	st, err := c.streamHandle(c.u32(2)) // stream
	if err != nil {
		return err
	}
	if !ao.args.final { // final
		return acl.Errorf(acl.ErrRTParamInvalid, "argsHandle %d is not finalized (aclrtKernelArgsFinalize)", c.u32(4))
	}
	timeout, err := c.launchCfg(3) // cfg
	if err != nil {
		return err
	}
	return c.launchByAPI(fo.fn.k, st, ao.args.params, timeout)
}

// launchByAPI is the end of both API launches: the current device and the
// stream's context, then the arguments by the declaration, then the
// launchers' one validation and queue path.
func (c *Call) launchByAPI(k *Kernel, st *streamRec, params [][]byte, timeout time.Duration) error {
	st, err := c.bindStream(st) // context
	if err != nil {
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	vals, err := c.kernelArgVals(k, params) // argc, argsize
	if err != nil {
		return err
	}
	args := append([]uint64{c.u64(1), 0}, vals...)
	if err := c.queueKernel(k, c.s.launchCountOf(k), st, args, timeout); err != nil {
		return err
	}
	c.note = fmt.Sprintf("kernel %s, %d blocks", k.Name, c.u32(1))
	return nil
}

// launchKernelPacked is aclrtLaunchKernel(funcHandle, numBlocks, argsData,
// argsSize, stream): the arguments packed in device memory at argsData,
// each at an 8-byte aligned offset, read when the launch is queued.
func launchKernelPacked(c *Call) error {
	if err := c.nonNull(0); err != nil { // funcHandle
		return err
	}
	if c.u64(2) == 0 { // argsData
		return acl.Errorf(acl.ErrInvalidParam, "argsData is NULL")
	}
	fo, err := c.kobjOf(0, abi.FuncHandle) // func
	if err != nil {
		return err
	}
	st, err := c.streamHandle(c.u32(4)) // stream
	if err != nil {
		return err
	}
	if c.u32(1) == 0 { // numBlocks
		return acl.Errorf(acl.ErrRTParamInvalid, "numBlocks is 0")
	}
	n := c.u64(3)
	if n == 0 { // argsSize
		return acl.Errorf(acl.ErrRTParamInvalid, "argsSize is 0")
	}
	k := fo.fn.k
	// The packed layout the declaration gives: each parameter at the next
	// 8-byte boundary, a buffer as a device address of the profile.
	var offs []uint64
	end := uint64(0)
	for _, p := range k.Params {
		sz := p.Size
		if p.Buffer {
			sz = c.s.prof.Width(abi.Addr)
		}
		off := (end + kernelArgAlign - 1) / kernelArgAlign * kernelArgAlign
		offs = append(offs, off)
		end = off + sz
	}
	if n < end || n > (end+kernelArgAlign-1)/kernelArgAlign*kernelArgAlign { // argsize
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: argsSize %d, the declaration packs %s in %d bytes (each at an 8-byte aligned offset)", k.Name, n, paramNames(k), end)
	}
	if n > maxKernelArgBytes {
		return acl.Errorf(acl.ErrRTParamInvalid, "argsSize %d exceeds %d bytes", n, maxKernelArgBytes)
	}
	sp, err := c.s.resolveDevice("argsData", c.u64(2), n) // argsrange
	if err != nil {
		return err
	}
	raw := make([]byte, n)
	if err := be(c.s.b.Memcpy(c.ctx, acl.Host(raw, 0), sp.buf, n)); err != nil {
		return err
	}
	params := make([][]byte, len(k.Params))
	for i, p := range k.Params {
		sz := p.Size
		if p.Buffer {
			sz = c.s.prof.Width(abi.Addr)
		}
		params[i] = raw[offs[i] : offs[i]+sz]
	}
	return c.launchByAPI(k, st, params, 0)
}
