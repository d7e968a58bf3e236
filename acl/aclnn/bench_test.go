package aclnn

import (
	"context"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

const benchN = 1 << 20

// BenchmarkAddF32 is aclnnAdd of 1 M float32 on the simulator's
// arithmetic (check excluded: it runs once per launch, not per element).
func BenchmarkAddF32(b *testing.B) {
	x, y, out := tensor(acl.DTFloat, []int64{benchN}, nil), tensor(acl.DTFloat, []int64{benchN}, nil), tensor(acl.DTFloat, []int64{benchN}, nil)
	args := []Value{tv(x), tv(y), sv(scalar(acl.DTFloat, 1)), tv(out)}
	add := Lookup("Add")
	ctx := context.Background()
	b.SetBytes(benchN * 4)
	for b.Loop() {
		if err := add.Run(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddF32Loop is the plain Go loop over float32 slices of the same
// size, the goal's yardstick (within 2x).
func BenchmarkAddF32Loop(b *testing.B) {
	x, y, out := make([]float32, benchN), make([]float32, benchN), make([]float32, benchN)
	b.SetBytes(benchN * 4)
	for b.Loop() {
		for i := range out {
			out[i] = x[i] + y[i]
		}
	}
}

// BenchmarkAddF16 is the same Add on float16 (widened to float32 and
// rounded back per element).
func BenchmarkAddF16(b *testing.B) {
	x, y, out := tensor(acl.DTFloat16, []int64{benchN}, nil), tensor(acl.DTFloat16, []int64{benchN}, nil), tensor(acl.DTFloat16, []int64{benchN}, nil)
	args := []Value{tv(x), tv(y), sv(scalar(acl.DTFloat, 1)), tv(out)}
	add := Lookup("Add")
	ctx := context.Background()
	b.SetBytes(benchN * 2)
	for b.Loop() {
		if err := add.Run(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMm compares the two float32 GEMMs on a 256³ product: gonum's
// Sgemm (what Mm and Matmul use) and the plain loop.
func BenchmarkMm(b *testing.B) {
	const n = 256
	x, y, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
	}
	for _, g := range []struct {
		name string
		f    func(m, n, k int, a, b, c []float32)
	}{{"gonum", sgemm}, {"loop", loopGemm}} {
		b.Run(g.name, func(b *testing.B) {
			for b.Loop() {
				g.f(n, n, n, x, y, c)
			}
		})
	}
}
