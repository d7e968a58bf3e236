package aclnn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// sample returns valid float32 arguments of every operator, over tensors
// of n elements (Mm and Matmul: n×1 by 1×1).
func sample(name string, n int64) []Value {
	f := func(d ...int64) Value { return tv(tensor(acl.DTFloat, d, nil)) }
	one := sv(scalar(acl.DTFloat, 1))
	switch name {
	case "Add", "Sub":
		return []Value{f(n), f(n), one, f(n)}
	case "Mul", "Div":
		return []Value{f(n), f(n), f(n)}
	case "Adds", "Subs":
		return []Value{f(n), one, one, f(n)}
	case "Muls":
		return []Value{f(n), one, f(n)}
	case "Cast":
		return []Value{f(n), {Int: int64(acl.DTFloat16)}, tv(tensor(acl.DTFloat16, []int64{n}, nil))}
	case "Abs", "Neg", "Exp", "Sqrt", "Relu", "Sigmoid":
		return []Value{f(n), f(n)}
	case "Softmax":
		return []Value{f(n), {Int: 0}, f(n)}
	case "ReduceSum":
		return []Value{f(n, 1), {Ints: []int64{1}}, {}, {Int: 0}, f(n)}
	case "Mm", "Matmul":
		return []Value{f(n, 1), f(1, 1), f(n, 1), {}}
	case "InplaceCopy":
		return []Value{f(n), f(n)}
	case "InplaceFillScalar":
		return []Value{f(n), one}
	case "InplaceZero":
		return []Value{f(n)}
	}
	return nil
}

// TestTable checks every row: its description, that it runs on a valid
// sample and on empty tensors, its NULL checks, that it stops when its
// context is done, and that a view outside its storage fails the launch
// instead of touching memory.
func TestTable(t *testing.T) {
	want := []string{"Add", "Adds", "Sub", "Subs", "Mul", "Muls", "Div", "Cast", "Abs", "Neg", "Exp", "Sqrt", "Relu",
		"Sigmoid", "Softmax", "ReduceSum", "Mm", "Matmul", "InplaceCopy", "InplaceFillScalar", "InplaceZero"}
	if len(Ops) != len(want) {
		t.Fatalf("%d operators, want %d", len(Ops), len(want))
	}
	for i, op := range Ops {
		t.Run(op.Name, func(t *testing.T) {
			if op.Name != want[i] || Lookup(op.Name) != op {
				t.Fatalf("operator %d is %s, want %s", i, op.Name, want[i])
			}
			if !strings.HasPrefix(op.Header, "aclnnop/aclnn_") || op.Doc == "" || op.Check == nil || op.Run == nil {
				t.Fatalf("incomplete row %+v", op)
			}
			outs := 0
			for _, p := range op.Params {
				if p.Out {
					outs++
				}
			}
			if outs != 1 {
				t.Fatalf("%d out parameters", outs)
			}
			args := sample(op.Name, 5)
			if len(args) != len(op.Params) {
				t.Fatalf("sample has %d arguments for %d parameters", len(args), len(op.Params))
			}
			if err := run(t, op.Name, args...); err != nil {
				t.Fatal(err)
			}
			if err := run(t, op.Name, sample(op.Name, 0)...); err != nil {
				t.Fatalf("empty: %v", err)
			}
			for i, p := range op.Params {
				if !p.Kind.Handle() {
					continue
				}
				a := sample(op.Name, 5)
				a[i] = Value{}
				wantCode(t, op.Check(a), acl.ErrNNParamNullptr, "["+p.Name+"]")
			}
			wantCode(t, op.Check(args[:len(args)-1]), acl.ErrNNParamInvalid, "arguments")

			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := op.Run(ctx, sample(op.Name, 4*chunk)); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled: %v", err)
			}

			// Each tensor in turn viewed past its storage.
			for i := range args {
				a := sample(op.Name, 5)
				x := a[i].Tensor
				if x == nil {
					continue
				}
				bad := *x
				bad.Offset = int64(len(x.Data)) / int64(x.Type.Size())
				a[i].Tensor = &bad
				if err := op.Run(context.Background(), a); !errors.Is(err, acl.ErrRTAicoreException) {
					t.Fatalf("tensor %d outside its storage: %v", i, err)
				}
			}
		})
	}
}

// TestExpandedViews: a stride-0 view larger than its storage computes
// (a broadcast by strides), up to a bound; past it the check refuses it
// and a launch that skipped the check fails before allocating anything.
func TestExpandedViews(t *testing.T) {
	row := tensor(acl.DTFloat, []int64{4}, []float64{1, 2, 3, 4})
	x := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{3, 4}, Strides: []int64{0, 1}, Storage: []int64{4}, Data: row.Data}
	y := tensor(acl.DTFloat, []int64{3, 4}, []float64{0, 0, 0, 0, 10, 10, 10, 10, 20, 20, 20, 20})
	out := tensor(acl.DTFloat, []int64{3, 4}, nil)
	if err := run(t, "Mul", tv(x), tv(y), tv(out)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "expanded", values(out), []float64{0, 0, 0, 0, 10, 20, 30, 40, 20, 40, 60, 80})

	one := tensor(acl.DTFloat, []int64{1}, []float64{1})
	huge := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{1 << 20, 1 << 20}, Strides: []int64{0, 0}, Storage: []int64{1}, Data: one.Data}
	over := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{1 << 40, 1 << 40, 1 << 40}, Strides: []int64{0, 0, 0}, Storage: []int64{1}, Data: one.Data}
	// Each dim within the storage's length, their product past the bound.
	page := tensor(acl.DTFloat, []int64{4096}, nil)
	wide := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{4096, 4096, 2}, Strides: []int64{0, 1, 0}, Storage: []int64{4096}, Data: page.Data}
	for _, h := range []*TensorArg{huge, over, wide} {
		wantCode(t, run(t, "Mul", tv(h), tv(one), tv(h)), acl.ErrNNParamInvalid, "has more elements than its storage")
		wantCode(t, run(t, "InplaceZero", tv(h)), acl.ErrNNParamInvalid, "has more elements than its storage")
		for _, op := range Ops {
			// Every tensor of the launch is the huge view, so the shapes
			// agree as a checked launch's do.
			args := sample(op.Name, 1)
			for i := range args {
				if args[i].Tensor != nil {
					args[i].Tensor = h
				}
			}
			if err := op.Run(context.Background(), args); !errors.Is(err, acl.ErrRTAicoreException) {
				t.Fatalf("%s: %v", op.Name, err)
			}
		}
	}
}
