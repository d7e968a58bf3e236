package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// The operator library's functions (ABI section 13.2): one generic
// implementation of aclnnXxxGetWorkspaceSize and one of aclnnXxx serve
// every row of aclnn.Ops, reading the row the ABI table's Func names.

// executor is what aclnnXxxGetWorkspaceSize made: the operator and its
// arguments as they were then (later changes to the objects do not reach
// it, as natively the executor holds its own), the workspace it asked
// for, and whether it may run more than once.
type executor struct {
	op      *aclnn.Op
	args    []aclnn.Value
	tensors []opTensor
	ws      uint64
	repeat  bool
}

// opTensor is one tensor of an executor: where its storage is, which
// parameter it came from, and whether the operator writes it.
type opTensor struct {
	arg   *aclnn.TensorArg
	addr  uint64
	n     uint64
	name  string
	write bool
}

// viewFits reports whether every element of t's view lies in its storage:
// the indexes offset + sum(i_k * stride_k) over the view, computed with
// overflow checks. An empty view touches nothing.
func viewFits(t *aclnn.TensorArg) error {
	if len(t.Strides) != len(t.Dims) {
		return fmt.Errorf("%d strides for %d dims", len(t.Strides), len(t.Dims))
	}
	elems, ok := storageBytes(t.Storage, 1)
	if !ok {
		return fmt.Errorf("storage dims %v overflow", t.Storage)
	}
	lo, hi := t.Offset, t.Offset
	for k, d := range t.Dims {
		if d < 0 {
			return fmt.Errorf("dim %d is %d", k, d)
		}
		if d == 0 {
			return nil
		}
		hiP, span := bits.Mul64(uint64(d-1), uint64(abs64(t.Strides[k])))
		if hiP != 0 || span > math.MaxInt64/4 {
			return fmt.Errorf("dim %d x stride %d overflows", d, t.Strides[k])
		}
		if t.Strides[k] < 0 {
			lo -= int64(span)
		} else {
			hi += int64(span)
		}
		if hi > math.MaxInt64/4 || lo < math.MinInt64/4 {
			return fmt.Errorf("the view's extent overflows")
		}
	}
	if lo < 0 || uint64(hi) >= elems {
		return fmt.Errorf("the view (dims %v, strides %v, offset %d) reaches elements [%d, %d], outside its storage of %d elements (storage dims %v)", t.Dims, t.Strides, t.Offset, lo, hi, elems, t.Storage)
	}
	return nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// opKinds maps an operator parameter's kind to its handle kind.
var opKinds = map[aclnn.Kind]abi.Kind{
	aclnn.Tensor: abi.TensorHandle, aclnn.TensorList: abi.TensorListHandle, aclnn.Scalar: abi.ScalarHandle,
	aclnn.IntArray: abi.IntArrayHandle, aclnn.FloatArray: abi.FloatArrayHandle, aclnn.BoolArray: abi.BoolArrayHandle,
}

// opArgs resolves the operator parameters of the current call into values
// and the tensors among them.
func (c *Call) opArgs(op *aclnn.Op) ([]aclnn.Value, []opTensor, error) {
	args := make([]aclnn.Value, len(op.Params))
	var ts []opTensor
	addT := func(q aclnn.Param, name string, t *tensorRec) (*aclnn.TensorArg, error) {
		a := t.arg // a copy: the executor keeps the tensor as it is now
		if err := viewFits(&a); err != nil {
			return nil, acl.Errorf(acl.ErrNNParamInvalid, "%s: %v", name, err)
		}
		ts = append(ts, opTensor{arg: &a, addr: t.addr, n: t.n, name: name, write: q.Out})
		return &a, nil
	}
	for i, q := range op.Params {
		v := &args[i]
		if k, ok := opKinds[q.Kind]; ok {
			o, err := c.obj(q.Name, c.u32(i), k)
			if err != nil {
				return nil, nil, err
			}
			if o == nil {
				if !q.Optional {
					return nil, nil, acl.Errorf(acl.ErrNNParamNullptr, "%s is NULL", q.Name)
				}
				continue
			}
			switch q.Kind {
			case aclnn.Tensor:
				if v.Tensor, err = addT(q, q.Name, o.t); err != nil {
					return nil, nil, err
				}
			case aclnn.TensorList:
				for j, h := range o.list {
					to, ok := c.s.nn[h]
					if !ok || to.kind != abi.TensorHandle {
						return nil, nil, acl.Errorf(acl.ErrNNParamInvalid, "%s[%d]: tensor %d was destroyed", q.Name, j, h)
					}
					a, err := addT(q, fmt.Sprintf("%s[%d]", q.Name, j), to.t)
					if err != nil {
						return nil, nil, err
					}
					v.Tensors = append(v.Tensors, a)
				}
			case aclnn.Scalar:
				sc := *o.sc
				v.Scalar = &sc
			case aclnn.IntArray:
				v.Ints = o.ints
			case aclnn.FloatArray:
				v.Floats = o.floats
			case aclnn.BoolArray:
				v.Bools = o.bools
			}
			continue
		}
		switch q.Kind {
		case aclnn.Int64:
			v.Int = int64(c.u64(i))
		case aclnn.Int8:
			v.Int = int64(int8(c.u32(i)))
		case aclnn.Bool:
			if uint8(c.u32(i)) != 0 {
				v.Int = 1
			}
		case aclnn.DType:
			v.Int = int64(c.i32(i))
		default:
			return nil, nil, acl.Errorf(acl.ErrNNInner, "%s: parameter kind %v has no wire form", q.Name, q.Kind)
		}
	}
	return args, ts, nil
}

// opOf returns the operator of the current function.
func (c *Call) opOf() *aclnn.Op {
	f := &abi.Funcs[c.fi]
	op := aclnn.Lookup(f.Op)
	if op == nil {
		panic("host: " + f.Name + " names operator " + f.Op + ", which aclnn.Ops lacks")
	}
	return op
}

// getWorkspaceSize is aclnn<Name>GetWorkspaceSize(params...,
// workspaceSize, executor): the out-parameters, the objects, each
// tensor's view against its storage, then the row's own checks; it
// writes the workspace size and a new single-use executor.
func getWorkspaceSize(c *Call) error {
	op := c.opOf()
	np := len(op.Params)
	if c.u32(np) == 0 {
		return acl.Errorf(acl.ErrNNParamNullptr, "workspaceSize is NULL")
	}
	if c.u32(np+1) == 0 {
		return acl.Errorf(acl.ErrNNParamNullptr, "executor is NULL")
	}
	wsOut, err := c.guest("workspaceSize", c.u32(np), 8)
	if err != nil {
		return acl.Errorf(acl.ErrNNParamInvalid, "%s", acl.MessageOf(err))
	}
	exOut, err := c.guest("executor", c.u32(np+1), 4)
	if err != nil {
		return acl.Errorf(acl.ErrNNParamInvalid, "%s", acl.MessageOf(err))
	}
	args, ts, err := c.opArgs(op)
	if err != nil {
		return err
	}
	if op.Check != nil {
		if err := op.Check(args); err != nil {
			var code acl.Error
			if !errors.As(err, &code) {
				err = acl.Errorf(acl.ErrNNParamInvalid, "%v", err)
			}
			return err
		}
	}
	ex := &executor{op: op, args: args, tensors: ts}
	if op.Workspace != nil {
		ex.ws = op.Workspace(args)
	}
	h, err := c.newObj(&nnObj{kind: abi.ExecutorHandle, ex: ex, elems: 1 + len(ts)})
	if err != nil {
		return err
	}
	le.PutUint64(wsOut, ex.ws)
	le.PutUint32(exOut, h)
	return nil
}

// executorOf resolves an executor handle for the current launch: NULL
// gives 161001, anything but a live executor of this operator 561000 (a
// native executor's magic number check).
func (c *Call) executorOf(h uint32, op *aclnn.Op) (*executor, error) {
	if h == 0 {
		return nil, acl.Errorf(acl.ErrNNParamNullptr, "executor is NULL")
	}
	o, ok := c.s.nn[h]
	if !ok || o.kind != abi.ExecutorHandle {
		return nil, acl.Errorf(acl.ErrNNInner, "executor %d is not a live executor of this session: unknown, destroyed, or already run (an executor runs once unless aclSetAclOpExecutorRepeatable made it repeatable)", h)
	}
	if o.ex.op != op {
		return nil, acl.Errorf(acl.ErrNNInner, "executor %d was made by aclnn%sGetWorkspaceSize, not aclnn%sGetWorkspaceSize", h, o.ex.op.Name, op.Name)
	}
	return o.ex, nil
}

// runOp is aclnn<Name>(workspace, workspaceSize, executor, stream): the
// executor, the workspace, every tensor's storage again, the stream, then
// the launch is queued on the backend's compute.
func runOp(c *Call) error {
	op := c.opOf()
	exh := c.u32(2)
	ex, err := c.executorOf(exh, op)
	if err != nil {
		return err
	}
	wsAddr, wsSize := c.u64(0), c.u64(1)
	if wsSize < ex.ws {
		return acl.Errorf(acl.ErrNNParamInvalid, "workspaceSize %d is less than the %d bytes aclnn%sGetWorkspaceSize asked for", wsSize, ex.ws, op.Name)
	}
	var regions []acl.Region
	region := map[*aclnn.TensorArg]int{} // each tensor's storage among regions
	if wsSize > 0 {
		if wsAddr == 0 {
			return acl.Errorf(acl.ErrNNParamNullptr, "workspace is NULL with workspaceSize %d", wsSize)
		}
		sp, err := c.s.resolveDevice("workspace", wsAddr, wsSize)
		if err == nil {
			err = sp.writable("workspace", wsAddr, wsSize)
		}
		if err != nil {
			return acl.Errorf(acl.ErrNNParamInvalid, "%s", acl.MessageOf(err))
		}
		regions = append(regions, acl.Region{Ptr: sp.buf.Dev, N: wsSize, Write: true})
	}
	ptrs, err := c.s.tensorRegions(ex)
	if err != nil {
		return acl.Errorf(acl.ErrNNParamInvalid, "%s", acl.MessageOf(err))
	}
	for i, t := range ex.tensors {
		if t.n > 0 {
			region[t.arg] = len(regions)
			regions = append(regions, acl.Region{Ptr: ptrs[i], N: t.n, Write: t.write})
		}
	}
	st, err := c.stream(c.u32(3))
	if err != nil {
		return err
	}
	// Go compute (the simulator) runs the row's arithmetic; the native
	// backend replays the call through the node's operator library.
	t := c.s.b.Traits()
	comp, opc := t.Computer, t.OpComputer
	isComp, isOpc := comp != nil, opc != nil
	switch {
	case isComp && op.Run != nil:
	case isOpc && !isComp:
		if fn := "aclnn" + op.Name; !c.s.b.Supports(fn) {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "the node's operator library does not provide %s (the %s backend runs operators through it)", fn, c.s.b.Name())
		}
	default:
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not run the operator library", c.s.b.Name())
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	s, name, fi, st0 := c.s, abi.Funcs[c.fi].Name, c.fi, c.s.stats.of(c.fi)
	done := func(d time.Duration, err error) { // the accounting of the launch as it executed
		st0.ranLaunch(d, err)
		s.computeMetrics(fi, d, err != nil)
	}
	// The run's time limit, read now: the call's context is the
	// instance's, re-armed by its next call, and must not be followed
	// once this one has returned.
	bounds := c.launchBounds()
	saturate := s.satMode() == acl.OverflowSaturation // the mode when queued
	l := &acl.Launch{
		Name:    name,
		Regions: regions,
		Check: func() error {
			s.mu.RLock()
			defer s.mu.RUnlock()
			now, err := s.tensorRegions(ex)
			if err == nil {
				for i := range now {
					if now[i] != ptrs[i] {
						err = fmt.Errorf("%s: its storage was freed and the address reused", ex.tensors[i].name)
					}
				}
			}
			if err != nil {
				err = &fault{acl.Errorf(acl.ErrRTAicoreException, "%s did not run, and touched nothing: %s", name, acl.MessageOf(err))}
				done(0, err)
			}
			return err
		},
		Run: func(ctx context.Context, mem [][]byte) error {
			// Stopped by the stream's cancellation (ctx), the end of the
			// session (s.halt) and the run's time limit.
			ctx, cancel := bounds(ctx)
			defer cancel()
			if err := ctx.Err(); err != nil { // stopped while queued: nothing touched
				err = &fault{acl.LaunchStopped(name, false, err)}
				done(0, err)
				return err
			}
			t0 := time.Now()
			stored := mem[len(mem)-ex.stored():]
			err := ex.run(ctx, stored)
			if err == nil {
				ex.overflow(s, stored, saturate)
			} else if cause := ctx.Err(); cause != nil {
				err = &fault{acl.LaunchStopped(name, true, cause)}
			}
			done(time.Since(t0), err)
			return err
		},
	}
	// The native form of the call, over the same regions.
	l.Op = op.Call(ex.args, func(t *aclnn.TensorArg) int {
		if k, ok := region[t]; ok {
			return k
		}
		return -1
	})
	l.Op.Ran = func(d time.Duration, err error) error {
		done(d, err)
		if err != nil {
			err = nativeEnd(err, name+" failed on the device")
		}
		return err
	}
	// The same bounds natively: the backend stops the operator on the
	// device when they end.
	l.Op.Bound = bounds
	if isComp {
		err = comp.Compute(st.h, l)
	} else {
		err = opc.ComputeOp(st.h, l)
	}
	if err != nil {
		return be(err)
	}
	if !ex.repeat {
		s.dropObj(exh)
	}
	if s.tracer != nil { // the note is the trace's alone: no formatting per launch without one
		c.note = ex.describe()
	}
	return nil
}

// overflow looks at what the operator wrote (the storage of each tensor
// it writes, mem as run passes it) for the session's overflow status,
// and saturates it in saturation mode (overflow.go).
func (ex *executor) overflow(s *Session, mem [][]byte, saturate bool) {
	k := 0
	for _, t := range ex.tensors {
		if t.n == 0 {
			continue
		}
		if t.write {
			s.noteOverflow(t.arg.Type, mem[k], saturate)
		}
		k++
	}
}

// stored counts the tensors with storage: the regions after the
// workspace's.
func (ex *executor) stored() int {
	n := 0
	for _, t := range ex.tensors {
		if t.n > 0 {
			n++
		}
	}
	return n
}

// run computes the operator over the regions' bytes, on fresh copies of
// the arguments: a repeatable executor may be queued more than once.
func (ex *executor) run(ctx context.Context, mem [][]byte) error {
	args := make([]aclnn.Value, len(ex.args))
	copy(args, ex.args)
	data := map[*aclnn.TensorArg][]byte{}
	k := 0
	for _, t := range ex.tensors {
		if t.n > 0 {
			data[t.arg] = mem[k]
			k++
		} else {
			data[t.arg] = []byte{}
		}
	}
	with := func(t *aclnn.TensorArg) *aclnn.TensorArg {
		a := *t
		a.Data = data[t]
		return &a
	}
	for i := range args {
		if args[i].Tensor != nil {
			args[i].Tensor = with(args[i].Tensor)
		}
		if args[i].Tensors != nil {
			ts := make([]*aclnn.TensorArg, len(args[i].Tensors))
			for j, t := range args[i].Tensors {
				ts[j] = with(t)
			}
			args[i].Tensors = ts
		}
	}
	if err := ex.op.Run(ctx, args); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		return err
	}
	return ctx.Err()
}

// tensorRegions resolves each tensor's storage of ex in the session's
// address space, as its launch needs it: one live allocation (written
// tensors: not lent read-only), translated to the backend's address.
// Stream workers call it under s.mu.
func (s *Session) tensorRegions(ex *executor) ([]acl.DevPtr, error) {
	ptrs := make([]acl.DevPtr, len(ex.tensors))
	for i, t := range ex.tensors {
		if t.n == 0 {
			continue
		}
		name := t.name + "'s storage"
		sp, err := s.resolveDevice(name, t.addr, t.n)
		if err == nil && t.write {
			err = sp.writable(name, t.addr, t.n)
		}
		if err != nil {
			return nil, err
		}
		ptrs[i] = sp.buf.Dev
	}
	return ptrs, nil
}

// describe is the launch as the trace shows it: each tensor's shape, data
// type and address.
func (ex *executor) describe() string {
	var b strings.Builder
	for i, t := range ex.tensors {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s%v@%#x", t.name, t.arg.Type, t.arg.Dims, t.addr)
	}
	return b.String()
}

// setRepeatable is aclSetAclOpExecutorRepeatable(executor).
func setRepeatable(c *Call) error {
	o, err := c.liveExecutor()
	if err != nil {
		return err
	}
	o.ex.repeat = true
	return nil
}

// destroyExecutor is aclDestroyAclOpExecutor(executor).
func destroyExecutor(c *Call) error {
	if _, err := c.liveExecutor(); err != nil {
		return err
	}
	c.s.dropObj(c.u32(0))
	return nil
}

// liveExecutor resolves parameter 0 as an executor: NULL gives 561103
// (ACLNN_ERR_INNER_NULLPTR), anything else that is not one 561000.
func (c *Call) liveExecutor() (*nnObj, error) {
	h := c.u32(0)
	if h == 0 {
		return nil, acl.Errorf(acl.ErrNNInnerNullptr, "executor is NULL")
	}
	o, ok := c.s.nn[h]
	if !ok || o.kind != abi.ExecutorHandle {
		return nil, acl.Errorf(acl.ErrNNInner, "executor %d is not a live executor of this session: unknown, destroyed, or already run", h)
	}
	return o, nil
}
