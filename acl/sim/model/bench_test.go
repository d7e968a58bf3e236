package model_test

import (
	"context"
	"testing"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkRun is a model run directly through the library, on the
// simulator's path (bytes in, bytes out): the baseline that a model's
// execution through the sandbox is compared with.
func BenchmarkRun(b *testing.B) {
	dir := testsupport.Models(b)
	for _, name := range []string{"mlp", "cnn"} {
		b.Run(name, func(b *testing.B) {
			m := load(b, dir, name)
			in := [][]byte{read(b, dir, name+".in0.bin")}
			var out [][]byte
			for _, o := range m.Outputs() {
				out = append(out, make([]byte, o.Size))
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Run(context.Background(), in, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
