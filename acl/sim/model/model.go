// Package model runs ONNX models on the CPU: the simulated device's
// counterpart of an offline model that the native runtime executes with
// aclmdlExecute. A model is described as the native model description
// describes one (names, dims, aclDataType, format and byte size of every
// input and output) and runs on raw input bytes, writing raw output bytes,
// so that the sandbox hands it the validated device buffers of a dataset
// and nothing else.
//
// The ONNX runtime is onnx-gomlx over GoMLX's pure-Go backend (simplego):
// no cgo and no shared library, so the simulator still needs only Go. Its
// choice, and the measurements behind it, are in host/RATIONALE.md
// ("Models on the simulator").
package model

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/onnx-gomlx/onnx"
)

// IO describes one input or output of a model, as aclmdlGetInputDims,
// aclmdlGetInputDataType, aclmdlGetInputFormat and
// aclmdlGetInputSizeByIndex answer for it.
type IO struct {
	Name   string
	Dims   []int64
	Type   acl.DataType
	Format acl.Format
	// Size is the bytes of the tensor: the product of Dims times the
	// element size.
	Size uint64

	shape shapes.Shape
}

// Model is a loaded ONNX model, compiled for its declared input shapes.
// Run may be called from several goroutines at once.
type Model struct {
	in, out []IO
	weights uint64
	exec    *mlctx.Exec
	backend backends.Backend

	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup // executions, including those a cancelled Run left behind
}

// live counts the models compiled and not closed.
var live atomic.Int64

// Live returns how many models are compiled and not yet closed, in the
// whole process: each holds its compiled graph until Close, so a test
// can check that whoever loads models closes them.
func Live() int64 { return live.Load() }

// ErrClosed is returned by Run on a closed model.
var ErrClosed = errors.New("model: closed")

// Load reads and compiles the ONNX model in the file at path.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return m, nil
}

// Parse compiles an ONNX model from its bytes. Every input and output
// must have a static shape and a type the native runtime names; the
// graph is compiled here, so an operator the runtime lacks fails Parse,
// not a later Run.
func Parse(b []byte) (m *Model, err error) {
	// The library reports some malformed graphs by panicking.
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("model: %v", p)
		}
	}()
	om, err := onnx.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defaultStrides(&om.Proto)
	m = &Model{}
	inits := map[string]bool{}
	for _, t := range om.Proto.Graph.GetInitializer() {
		inits[t.GetName()] = true
		m.weights += weightBytes(t.GetDims(), onnxSizes[t.GetDataType()])
	}
	names, shapes := om.Inputs()
	for i, n := range names {
		if inits[n] { // an initializer listed as an input (IR < 4): a weight, not an input
			continue
		}
		io, err := describe("input", n, shapes[i])
		if err != nil {
			return nil, err
		}
		m.in = append(m.in, io)
	}
	names, shapes = om.Outputs()
	for i, n := range names {
		io, err := describe("output", n, shapes[i])
		if err != nil {
			return nil, err
		}
		m.out = append(m.out, io)
	}
	// Operations in order on the caller's goroutine: the library runs
	// them on worker goroutines by default, where an operation that
	// panics on its data (an integer division by a zero the guest wrote)
	// ends the process; on the caller's it becomes Run's error. Operations
	// that split their own work (matrix products, convolutions) still use
	// the workers.
	be, err := simplego.New("ops_sequential")
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m.backend = be
	ctx := mlctx.New()
	if err := om.VariablesToContext(ctx); err != nil {
		be.Finalize()
		return nil, fmt.Errorf("model: %w", err)
	}
	outNames := make([]string, len(m.out))
	for i, o := range m.out {
		outNames[i] = o.Name
	}
	m.exec, err = mlctx.NewExecAny(be, ctx, func(ctx *mlctx.Context, xs []*graph.Node) []*graph.Node {
		feeds := make(map[string]*graph.Node, len(xs))
		for i, x := range xs {
			feeds[m.in[i].Name] = x
		}
		return om.CallGraph(ctx, xs[0].Graph(), feeds, outNames...)
	})
	if err == nil && len(m.in) == 0 {
		err = errors.New("a model without inputs")
	}
	if err == nil {
		args := make([]any, len(m.in))
		for i, io := range m.in {
			args[i] = tensors.FromShape(io.shape)
		}
		err = m.exec.PreCompile(args...)
	}
	if err != nil {
		be.Finalize()
		return nil, fmt.Errorf("model: %w", err)
	}
	live.Add(1)
	return m, nil
}

// WeightBytes is the size of the model's weights (its initializers, at
// their element types): what a loaded model holds beyond the library's
// working buffers.
func (m *Model) WeightBytes() uint64 { return m.weights }

// onnxSizes are the element sizes of ONNX's TensorProto.DataType values
// (onnx.proto: FLOAT 1 ... BFLOAT16 16); strings and unknown types count 0.
var onnxSizes = map[int32]uint64{1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8, 15: 16, 16: 2}

// weightBytes is the size of a tensor of dims of elements of size bytes,
// saturated.
func weightBytes(dims []int64, size uint64) uint64 {
	n := size
	for _, d := range dims {
		if d < 0 {
			return 0
		}
		if d != 0 && n > ^uint64(0)/uint64(d) {
			return ^uint64(0)
		}
		n *= uint64(d)
	}
	return n
}

// Inputs describes the model's inputs, in the graph's order.
func (m *Model) Inputs() []IO { return clone(m.in) }

// Outputs describes the model's outputs, in the graph's order.
func (m *Model) Outputs() []IO { return clone(m.out) }

func clone(ios []IO) []IO {
	out := make([]IO, len(ios))
	for i, io := range ios {
		out[i] = io
		out[i].Dims = append([]int64(nil), io.Dims...)
	}
	return out
}

// Run executes the model on in (one slice per input, exactly its Size)
// and writes out (one slice per output, exactly its Size). It returns
// when the execution is done or ctx is, whichever comes first: the
// library cannot stop a graph halfway, so an execution that ctx abandons
// finishes on its own goroutine into buffers of its own and is dropped;
// Run never writes out after it returns, and Close waits for it. On any
// error out is left untouched.
func (m *Model) Run(ctx context.Context, in, out [][]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := check("input", m.in, in); err != nil {
		return err
	}
	if err := check("output", m.out, out); err != nil {
		return err
	}
	args := make([]any, len(in))
	for i, io := range m.in {
		t := tensors.FromShape(io.shape)
		if io.Size > 0 {
			if err := t.MutableBytes(func(b []byte) { copy(b, in[i]) }); err != nil {
				return fmt.Errorf("model: input %d (%q): %w", i, io.Name, err)
			}
		}
		args[i] = t
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.running.Add(1)
	m.mu.Unlock()
	done := make(chan result, 1)
	go func() {
		defer m.running.Done()
		done <- m.execute(args)
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if r.err != nil {
		return r.err
	}
	for i, t := range r.outs {
		if err := m.take(i, t, out[i]); err != nil {
			return err
		}
	}
	return nil
}

type result struct {
	outs []*tensors.Tensor
	err  error
}

// execHook, when a test sets it, runs at the start of every execution.
var execHook func()

func (m *Model) execute(args []any) (r result) {
	if execHook != nil {
		execHook()
	}
	defer func() {
		if p := recover(); p != nil {
			r = result{err: fmt.Errorf("model: execution failed: %v", p)}
		}
	}()
	outs, err := m.exec.Exec(args...)
	if err != nil {
		return result{err: fmt.Errorf("model: execution failed: %w", err)}
	}
	if len(outs) != len(m.out) {
		return result{err: fmt.Errorf("model: execution gave %d outputs, the model declares %d", len(outs), len(m.out))}
	}
	for i, t := range outs {
		if !t.Shape().Equal(m.out[i].shape) {
			return result{err: fmt.Errorf("model: output %d (%q) came out as %s, the model declares %s", i, m.out[i].Name, t.Shape(), m.out[i].shape)}
		}
	}
	return result{outs: outs}
}

// take copies output i's bytes into dst, whose size check ran before.
func (m *Model) take(i int, t *tensors.Tensor, dst []byte) error {
	defer t.FinalizeAll()
	if m.out[i].Size == 0 {
		return nil
	}
	if err := t.ConstBytes(func(b []byte) { copy(dst, b) }); err != nil {
		return fmt.Errorf("model: output %d (%q): %w", i, m.out[i].Name, err)
	}
	return nil
}

// Close waits for the model's executions to end and releases it. Run
// after Close returns ErrClosed; Close is idempotent.
func (m *Model) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	live.Add(-1)
	m.running.Wait()
	m.exec.Finalize()
	m.backend.Finalize()
	return nil
}

func check(what string, ios []IO, bufs [][]byte) error {
	if len(bufs) != len(ios) {
		return fmt.Errorf("model: %d %s buffers, the model has %d %ss", len(bufs), what, len(ios), what)
	}
	for i, io := range ios {
		if uint64(len(bufs[i])) != io.Size {
			return fmt.Errorf("model: %s %d (%q) is %d bytes, the model declares %d", what, i, io.Name, len(bufs[i]), io.Size)
		}
	}
	return nil
}

// dataTypes maps the library's element types to aclDataType: those both
// name (onnx-gomlx reads no other ONNX type).
var dataTypes = map[dtypes.DType]acl.DataType{
	dtypes.Float32: acl.DTFloat, dtypes.Float16: acl.DTFloat16, dtypes.BFloat16: acl.DTBFloat16,
	dtypes.Float64: acl.DTDouble, dtypes.Int8: acl.DTInt8, dtypes.Int16: acl.DTInt16,
	dtypes.Int32: acl.DTInt32, dtypes.Int64: acl.DTInt64, dtypes.Uint8: acl.DTUint8,
	dtypes.Uint16: acl.DTUint16, dtypes.Uint32: acl.DTUint32, dtypes.Uint64: acl.DTUint64,
	dtypes.Bool: acl.DTBool, dtypes.Complex64: acl.DTComplex64, dtypes.Complex128: acl.DTComplex128,
}

func describe(what, name string, ds onnx.DynamicShape) (IO, error) {
	dt, ok := dataTypes[ds.DType]
	if !ok {
		return IO{}, fmt.Errorf("model: %s %q has element type %s, which has no aclDataType", what, name, ds.DType)
	}
	if len(ds.Dimensions) > acl.MaxDimCount {
		return IO{}, fmt.Errorf("model: %s %q has %d dims, at most %d (aclmdlIODims)", what, name, len(ds.Dimensions), acl.MaxDimCount)
	}
	io := IO{Name: name, Type: dt, Format: acl.FormatND, Size: dt.Size()}
	for _, d := range ds.Dimensions {
		if d < 0 {
			return IO{}, fmt.Errorf("model: %s %q has a dynamic shape %v: only static shapes are supported", what, name, ds.Dimensions)
		}
		io.Dims = append(io.Dims, int64(d))
		if d != 0 && io.Size > ^uint64(0)/uint64(d) {
			return IO{}, fmt.Errorf("model: %s %q: %v elements overflow", what, name, ds.Dimensions)
		}
		io.Size *= uint64(d)
	}
	// ONNX's image operators (Conv, pooling) read 4-D tensors as NCHW.
	if len(io.Dims) == 4 {
		io.Format = acl.FormatNCHW
	}
	io.shape = shapes.Make(ds.DType, ds.Dimensions...)
	return io, nil
}
