package host

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Kernel is a device kernel the embedder registers (ABI section 13.3):
// guests launch it by name on their own device buffers, in stream order,
// as natively they launch the Ascend C kernels of their programs. The
// declaration is the host's promise of what the kernel touches: the
// sandbox checks every launch's buffers against it (each declared extent
// inside one live allocation of the session, with the access declared),
// and the embedder answers for the implementation keeping to it.
//
//	host.Kernel{
//		Name: "AddDo",
//		Params: []host.KernelParam{
//			host.Buffer("srcA", acl.DTFloat, host.Read, "totalSize"),
//			host.Buffer("srcB", acl.DTFloat, host.Read, "totalSize"),
//			host.Buffer("dst", acl.DTFloat, host.Write, "totalSize"),
//			host.Scalar("totalSize", acl.DTUint32),
//		},
//		Run: addDo,
//	}
type Kernel struct {
	// Name is the kernel's name: what a guest's launcher is called
	// (WriteDo), and what a policy grants.
	Name string
	// Params are its parameters after blockDim and the stream, in the
	// launcher's order.
	Params []KernelParam
	// Run is the simulator's implementation: it runs once per block of a
	// launch, with the block's index, on the stream's worker. It must
	// return when ctx is done (the stream's work cancelled, the run's
	// timeout). ctx, like b, is Run's own: the host reuses it for a later
	// launch unless Run asked for its Done (what the context package starts
	// from it, WithCancel or AfterFunc, may so outlive Run), so Run must not
	// keep it otherwise. An error or a panic fails the stream with
	// ACL_ERROR_RT_AICORE_EXCEPTION (507015) at its next synchronize, as a
	// kernel that faults on the device does; an acl error (acl.Errorf)
	// gives its own code. A kernel with a Binary may leave it nil: it then
	// runs only on the native backend, and the simulator fails its
	// launches with ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000), as the
	// native backend does a launch of a kernel without a Binary.
	Run func(ctx context.Context, b *KernelBlock) error
	// Quick declares that Run is short and never waits (no sleep, no
	// channel, no lock of the embedder's, no print whose order matters):
	// on the simulator, a launch of at most 64 KiB of buffers on an idle
	// stream then runs on the guest's own call, in stream order and with
	// the same effects and failures, instead of being handed to the
	// stream's worker, which costs more than such a kernel's work. The
	// launch call returns once it has run: a kernel that may block must
	// not declare it, or the guest blocks with it.
	Quick bool
	// Cost, when set, is a launch's duration in the timing model
	// (WithSimTiming), beyond the device's launch overhead; unset, a
	// launch takes the time its blocks really ran.
	Cost func(a *KernelArgs) time.Duration
	// Binary and Entry name the kernel's device binary and its entry. The
	// native backend loads the binary itself: when a plugin granted the
	// kernel is loaded, the host loads it with aclrtBinaryLoadFromFile and
	// the kernel's function with aclrtBinaryGetFunction by Entry (by Name
	// when Entry is "" or a decimal number); Load fails, naming the kernel,
	// when either fails. Launches are made with aclrtLaunchKernelWithConfig
	// on the arguments packed by the declaration (a buffer as the native
	// address of its validated extent), and the binary is unloaded when the
	// plugin is closed; the native backend refuses a launch of a kernel
	// without a Binary with 207000. A guest's aclrtBinaryLoadFromFile names
	// the binary by its file name (the last element of the path) and gets
	// the granted kernels that declare it, on every backend, and
	// aclrtBinaryGetFunctionByEntry finds a kernel by an Entry that is a
	// decimal number (natively the tiling key). The embedder answers for
	// the binary keeping to the declaration: the device does not check it.
	Binary, Entry string
}

// Access is how a kernel uses a buffer parameter.
type Access uint8

// The accesses.
const (
	Read      Access = 1 // only reads it: read-only memory may be passed
	Write     Access = 2 // writes it
	ReadWrite Access = 3
)

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	case ReadWrite:
		return "read-write"
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// KernelParam is one parameter of a kernel: a device buffer (Buffer) or
// a scalar (Scalar).
type KernelParam struct {
	Name string
	// Type is a buffer's element type or a scalar's type.
	Type acl.DataType
	// Access is a buffer's; 0 for a scalar.
	Access Access
	// Extent is the elements of Type a buffer's kernel may touch, from its
	// address: a formula over blockDim and the kernel's integer scalars
	// with + - * / and parentheses ("blockDim", "n * 2", "(n + 7) / 8 * 8"),
	// checked when the kernel is registered and evaluated at each launch
	// with every step overflow-checked. "" for a scalar.
	Extent string
}

// Buffer declares a device buffer parameter of elements of type t, used
// with access a, extent elements long.
func Buffer(name string, t acl.DataType, a Access, extent string) KernelParam {
	return KernelParam{Name: name, Type: t, Access: a, Extent: extent}
}

// Scalar declares a scalar parameter of type t: an integer type, ACL_BOOL,
// ACL_FLOAT16 (its bits), ACL_FLOAT or ACL_DOUBLE.
func Scalar(name string, t acl.DataType) KernelParam {
	return KernelParam{Name: name, Type: t}
}

// KernelArgs are the arguments of one launch.
type KernelArgs struct {
	// BlockDim is the launch's block count.
	BlockDim uint32
	k        *kernel
	args     []uint64
}

// Int returns integer scalar parameter i (in declaration order), sign- or
// zero-extended by its type.
func (a *KernelArgs) Int(i int) int64 { return a.k.decl.Params[i].Type.Wrap(int64(a.args[i])) }

// Uint returns integer scalar parameter i as unsigned: Int's bits.
func (a *KernelArgs) Uint(i int) uint64 { return uint64(a.Int(i)) }

// Float returns floating-point scalar parameter i (ACL_FLOAT, ACL_DOUBLE).
func (a *KernelArgs) Float(i int) float64 {
	if a.k.decl.Params[i].Type == acl.DTDouble {
		return math.Float64frombits(a.args[i])
	}
	return float64(math.Float32frombits(uint32(a.args[i])))
}

// KernelBlock is one block of a launch: what a kernel's Run works on. It
// is valid until Run returns: the host reuses it for later launches.
type KernelBlock struct {
	KernelArgs
	b *sandbox.Block
}

// Index returns the block's index, from 0 to BlockDim-1 (block_idx).
func (b *KernelBlock) Index() uint32 { return b.b.Index }

// Bytes returns buffer parameter i's bytes: its declared extent, validated
// (nil for an extent of 0). They are the device's memory, valid until Run
// returns; a parameter declared Read must not be written.
func (b *KernelBlock) Bytes(i int) []byte { return b.b.Mem[i] }

// Printf prints as the kernel's AscendC::printf does: to the plugin's
// stdout, when the guest next calls the host after the launch (natively
// device output appears when the stream is synchronized).
func (b *KernelBlock) Printf(format string, args ...any) { b.b.Printf(format, args...) }

// Float32s returns buffer parameter i as float32s (ACL_FLOAT).
func (b *KernelBlock) Float32s(i int) []float32 { return view[float32](b.b.Mem[i]) }

// Uint16s returns buffer parameter i as uint16s (ACL_FLOAT16's bits,
// ACL_UINT16, ACL_BF16).
func (b *KernelBlock) Uint16s(i int) []uint16 { return view[uint16](b.b.Mem[i]) }

// Int32s returns buffer parameter i as int32s (ACL_INT32).
func (b *KernelBlock) Int32s(i int) []int32 { return view[int32](b.b.Mem[i]) }

// Uint32s returns buffer parameter i as uint32s (ACL_UINT32).
func (b *KernelBlock) Uint32s(i int) []uint32 { return view[uint32](b.b.Mem[i]) }

// Int64s returns buffer parameter i as int64s (ACL_INT64).
func (b *KernelBlock) Int64s(i int) []int64 { return view[int64](b.b.Mem[i]) }

// view returns b as a slice of T, with no copy: the launch checked that
// the buffer's device address is aligned to its element size, the
// simulator's memory is as aligned as its addresses (RunKernel checks the
// embedder's), and device memory is little-endian as the hosts Go runs on
// here. A misaligned b, which none of them passes, panics rather than be
// misread: the launch fails as a device fault.
func view[T any](b []byte) []T {
	var z T
	size := unsafe.Sizeof(z)
	n := uintptr(len(b)) / size
	if n == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%size != 0 {
		panic(fmt.Sprintf("buffer at %p is not aligned to its %d-byte elements", p, size))
	}
	return unsafe.Slice((*T)(p), n)
}

// kernel is a registered kernel: its declaration and the sandbox's form.
type kernel struct {
	decl Kernel
	sb   *sandbox.Kernel
	set  string // the set it was registered in, "" if none
}

// WithKernels registers kernels: a plugin may launch those its policy
// grants (Policy.Kernels). NewRuntime fails on a declaration it cannot
// check, naming the kernel and the parameter.
func WithKernels(ks ...Kernel) Option {
	return WithKernelSet("", ks...)
}

// WithKernelSet registers kernels as the set name: a policy grants them
// all by naming the set (Policy.Kernels). "" registers them in no set.
func WithKernelSet(name string, ks ...Kernel) Option {
	return func(c *config) {
		for _, k := range ks {
			c.kernels = append(c.kernels, kernelReg{k, name})
		}
	}
}

type kernelReg struct {
	k   Kernel
	set string
}

// scalarTypes are the types a scalar parameter may have, with the wasm
// type a launcher passes it as.
var scalarTypes = map[acl.DataType]engine.ValType{
	acl.DTInt8: engine.I32, acl.DTUint8: engine.I32, acl.DTInt16: engine.I32, acl.DTUint16: engine.I32,
	acl.DTInt32: engine.I32, acl.DTUint32: engine.I32, acl.DTBool: engine.I32, acl.DTFloat16: engine.I32,
	acl.DTBFloat16: engine.I32, acl.DTInt64: engine.I64, acl.DTUint64: engine.I64,
	acl.DTFloat: engine.F32, acl.DTDouble: engine.F64,
}

// intScalar reports whether t is an integer type, usable in extents.
func intScalar(t acl.DataType) bool {
	switch t {
	case acl.DTInt8, acl.DTUint8, acl.DTInt16, acl.DTUint16, acl.DTInt32, acl.DTUint32, acl.DTInt64, acl.DTUint64:
		return true
	}
	return false
}

// compileKernels checks the declarations and makes their sandbox forms.
func compileKernels(regs []kernelReg) (map[string]*kernel, error) {
	out := map[string]*kernel{}
	for _, r := range regs {
		k, err := compileKernel(r.k)
		if err != nil {
			return nil, err
		}
		if _, dup := out[k.decl.Name]; dup {
			return nil, fmt.Errorf("kernel %s is registered twice", k.decl.Name)
		}
		k.set = r.set
		out[k.decl.Name] = k
	}
	sets := map[string]bool{}
	for _, r := range regs {
		sets[r.set] = true
	}
	for s := range sets {
		if _, clash := out[s]; clash && s != "" {
			return nil, fmt.Errorf("kernel set %s has the name of a kernel: a grant must name one or the other", s)
		}
	}
	return out, nil
}

func compileKernel(d Kernel) (*kernel, error) {
	d.Params = slices.Clone(d.Params)
	bad := func(format string, args ...any) (*kernel, error) {
		return nil, fmt.Errorf("kernel %q: %s", d.Name, fmt.Sprintf(format, args...))
	}
	if !cIdent(d.Name) {
		return bad("the name must be a C identifier: the launcher's symbol")
	}
	if d.Run == nil && d.Binary == "" {
		return bad("neither Run nor Binary: the kernel would run on no backend (Run on the simulator, Binary on the native backend)")
	}
	if d.Entry != "" && d.Binary == "" {
		return bad("Entry %q without a Binary", d.Entry)
	}
	if len(d.Params) > 14 { // the engines' host functions take 16 values
		return bad("%d parameters, at most 14", len(d.Params))
	}
	k := &kernel{decl: d}
	sk := &sandbox.Kernel{Name: d.Name, Params: make([]sandbox.KernelParam, len(d.Params)), Binary: d.Binary, Entry: d.Entry, Quick: d.Quick}
	seen := map[string]bool{"blockDim": true, "stream": true}
	for i, p := range d.Params {
		if !cIdent(p.Name) || seen[p.Name] {
			return bad("parameter %d: name %q: want a C identifier, unique, other than blockDim and stream", i, p.Name)
		}
		seen[p.Name] = true
		sp := &sk.Params[i]
		sp.Name = p.Name
		if p.Access == 0 { // a scalar
			t, ok := scalarTypes[p.Type]
			if !ok {
				return bad("scalar %s: type %s is not a scalar type (an integer type, ACL_BOOL, ACL_FLOAT16, ACL_BF16, ACL_FLOAT or ACL_DOUBLE)", p.Name, p.Type)
			}
			if p.Extent != "" {
				return bad("scalar %s has an extent: only a buffer (with an Access) has one", p.Name)
			}
			sp.Scalar, sp.Size = t, p.Type.Size()
			continue
		}
		if p.Access > ReadWrite {
			return bad("buffer %s: %s: want Read, Write or ReadWrite", p.Name, p.Access)
		}
		if !p.Type.Named() || p.Type.Size() == 0 || p.Type == acl.DTUndefined {
			return bad("buffer %s: element type %s has no size", p.Name, p.Type)
		}
		e, err := parseExtent(p.Extent, func(name string) (int, error) {
			j := slices.IndexFunc(d.Params, func(q KernelParam) bool { return q.Name == name })
			switch {
			case j < 0:
				return 0, fmt.Errorf("%s is neither blockDim nor a parameter", name)
			case d.Params[j].Access != 0 || !intScalar(d.Params[j].Type):
				return 0, fmt.Errorf("%s is not an integer scalar", name)
			}
			return j, nil
		})
		if err != nil {
			return bad("buffer %s: %v", p.Name, err)
		}
		sp.Buffer, sp.Elem = true, p.Type.Size()
		sp.Read, sp.Write = p.Access&Read != 0, p.Access&Write != 0
		sp.ExtentText = p.Extent
		params := d.Params
		sp.Extent = func(blockDim uint32, args []uint64) (uint64, error) {
			return e.eval(blockDim, func(j int) (uint64, error) {
				v := params[j].Type.Wrap(int64(args[j]))
				if v < 0 {
					return 0, fmt.Errorf("%s is %d", params[j].Name, v)
				}
				return uint64(v), nil
			})
		}
	}
	run := d.Run
	sk.Run = func(ctx context.Context, b *sandbox.Block) error {
		// The view is made once and kept in b, which the sandbox reuses
		// from block to block and from launch to launch.
		kb, _ := b.User.(*KernelBlock)
		if kb == nil {
			kb = &KernelBlock{b: b}
			b.User = kb
		}
		// Field by field: a composite literal is built on the stack and
		// copied in 16-byte moves that stall on the stores before them.
		kb.BlockDim, kb.k, kb.args = b.Dim, k, b.Args
		return run(ctx, kb)
	}
	if run == nil {
		sk.Run = nil // only a native binary: the simulator refuses its launches (sandbox.queueKernel)
	}
	if cost := d.Cost; cost != nil {
		sk.Cost = func(blockDim uint32, args []uint64) time.Duration {
			return cost(&KernelArgs{BlockDim: blockDim, k: k, args: args})
		}
	}
	k.sb = sk
	return k, nil
}

// cIdent reports whether s is a C identifier.
func cIdent(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// grantedKernels resolves a policy's kernel grants (kernel or set names)
// to the kernels, or an error naming a grant that names neither.
func (r *Runtime) grantedKernels(grants []string) (map[string]*kernel, error) {
	out := map[string]*kernel{}
	for _, g := range grants {
		if k, ok := r.kernels[g]; ok {
			out[g] = k
			continue
		}
		found := false
		for _, k := range r.kernels {
			if k.set == g && g != "" {
				out[k.decl.Name], found = k, true
			}
		}
		if !found {
			return nil, fmt.Errorf("policy: Kernels: %q names no kernel or kernel set of the runtime (it has %s)", g, r.kernelNames())
		}
	}
	return out, nil
}

// kernelNames lists the runtime's kernels and sets, for messages.
func (r *Runtime) kernelNames() string {
	var names []string
	sets := map[string]bool{}
	for n, k := range r.kernels {
		names = append(names, n)
		if k.set != "" && !sets[k.set] {
			sets[k.set] = true
			names = append(names, "set "+k.set)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Kernels returns the names of the runtime's kernels, sorted.
func (r *Runtime) Kernels() []string {
	out := make([]string, 0, len(r.kernels))
	for n := range r.kernels {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// sandboxKernels returns the sandbox's forms of ks.
func sandboxKernels(ks map[string]*kernel) map[string]*sandbox.Kernel {
	out := make(map[string]*sandbox.Kernel, len(ks))
	for n, k := range ks {
		out[n] = k.sb
	}
	return out
}

// RunKernel runs k as the simulator runs a launch of it, without a guest
// or a device, for the embedder's tests of a kernel: blockDim blocks in
// order, on args given in k's parameter order, a buffer as a []byte at
// least its declared extent long (the kernel gets exactly the extent), a
// scalar as any Go integer or float of a value its type holds. The
// declaration is checked as registration checks it, and the arguments as
// a launch checks them; an error or a panic of the kernel is returned.
// What the kernel prints is dropped.
func RunKernel(ctx context.Context, k Kernel, blockDim uint32, args ...any) (err error) {
	kk, err := compileKernel(k)
	if err != nil {
		return err
	}
	if k.Run == nil {
		return fmt.Errorf("host: kernel %s has no Run: RunKernel runs the simulator's implementation, and this kernel has only a native binary", k.Name)
	}
	if blockDim == 0 {
		return fmt.Errorf("host: kernel %s: blockDim 0", k.Name)
	}
	if len(args) != len(k.Params) {
		return fmt.Errorf("host: kernel %s: %d arguments for %d parameters", k.Name, len(args), len(k.Params))
	}
	vals := make([]uint64, len(args))
	for i, p := range k.Params {
		if p.Access != 0 {
			if _, ok := args[i].([]byte); !ok {
				return fmt.Errorf("host: kernel %s: %s: a buffer is a []byte, not %T", k.Name, p.Name, args[i])
			}
			continue
		}
		if vals[i], err = scalarBits(p.Type, args[i]); err != nil {
			return fmt.Errorf("host: kernel %s: %s: %w", k.Name, p.Name, err)
		}
	}
	mem := make([][]byte, len(args))
	for i, sp := range kk.sb.Params {
		if !sp.Buffer {
			continue
		}
		n, err := sp.Extent(blockDim, vals)
		if err == nil && n > math.MaxUint64/sp.Elem {
			err = fmt.Errorf("%d elements of %d bytes overflow", n, sp.Elem)
		}
		if err != nil {
			return fmt.Errorf("host: kernel %s: %s: extent %s: %w", k.Name, sp.Name, sp.ExtentText, err)
		}
		b := args[i].([]byte)
		if n*sp.Elem > uint64(len(b)) {
			return fmt.Errorf("host: kernel %s: %s: extent %s is %d bytes, the buffer has %d", k.Name, sp.Name, sp.ExtentText, n*sp.Elem, len(b))
		}
		if n > 0 && uintptr(unsafe.Pointer(&b[0]))%uintptr(sp.Elem) != 0 {
			return fmt.Errorf("host: kernel %s: %s is not aligned to its %d-byte elements", k.Name, sp.Name, sp.Elem)
		}
		if n > 0 {
			mem[i] = b[: n*sp.Elem : n*sp.Elem]
		}
	}
	return sandbox.RunBlocks(ctx, kk.sb, blockDim, mem, vals, nil)
}

// scalarBits returns v, a Go number, as a launcher passes a scalar of type
// t, or an error when t cannot hold it.
func scalarBits(t acl.DataType, v any) (uint64, error) {
	var f float64
	var i int64
	var u uint64
	isInt, neg := true, false
	switch x := v.(type) {
	case int:
		i = int64(x)
	case int8:
		i = int64(x)
	case int16:
		i = int64(x)
	case int32:
		i = int64(x)
	case int64:
		i = x
	case uint:
		u = uint64(x)
	case uint8:
		u = uint64(x)
	case uint16:
		u = uint64(x)
	case uint32:
		u = uint64(x)
	case uint64:
		u = x
	case float32:
		f, isInt = float64(x), false
	case float64:
		f, isInt = x, false
	case bool:
		if t != acl.DTBool {
			return 0, fmt.Errorf("a bool for a %s", t)
		}
		if x {
			return 1, nil
		}
		return 0, nil
	default:
		return 0, fmt.Errorf("%T is not a number", v)
	}
	if isInt && i != 0 {
		neg, u = i < 0, uint64(i)
	}
	switch t {
	case acl.DTFloat:
		if isInt {
			return 0, fmt.Errorf("an integer for an ACL_FLOAT: pass a float32")
		}
		return uint64(math.Float32bits(float32(f))), nil
	case acl.DTDouble:
		if isInt {
			return 0, fmt.Errorf("an integer for an ACL_DOUBLE: pass a float64")
		}
		return math.Float64bits(f), nil
	}
	if !isInt || !intScalar(t) && t != acl.DTFloat16 && t != acl.DTBFloat16 && t != acl.DTBool {
		return 0, fmt.Errorf("%v for a %s", v, t)
	}
	bits := 8 * t.Size()
	signed := t == acl.DTInt8 || t == acl.DTInt16 || t == acl.DTInt32 || t == acl.DTInt64
	switch {
	case t == acl.DTBool && u > 1, !signed && neg:
		return 0, fmt.Errorf("%v does not fit a %s", v, t)
	case !signed && bits < 64 && u>>bits != 0:
		return 0, fmt.Errorf("%v does not fit a %s", v, t)
	case signed && !neg && u>>(bits-1) != 0:
		return 0, fmt.Errorf("%v does not fit a %s", v, t)
	case signed && neg && bits < 64 && int64(u) < -1<<(bits-1):
		return 0, fmt.Errorf("%v does not fit a %s", v, t)
	}
	if bits < 64 {
		u &= 1<<bits - 1
	}
	return u, nil
}
