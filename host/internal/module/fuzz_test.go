package module

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// FuzzRewrites: the readers and rewrites never panic on any input, leave
// it as it is, and keep a readable module readable; SanitizeNames is
// idempotent. Of a module wazero accepts, BoundTables and MemoryExport
// are idempotent too (of an invalid one they need not be: an export
// section with bytes after its entries reads once), and it stays one
// wazero accepts after the rewrites the host applies, in the host's order
// (when none refuses it). Lengths never panics either, and a module it
// refuses goes to no engine (wazero would allocate what it declares, as
// the host's Load never lets it). Package host's FuzzPrepare checks the
// same on the host's engines.
func FuzzRewrites(f *testing.F) {
	for _, src := range []string{
		`(module (memory 1) (func $s) (start $s) (func (export "f") (param i32) (result i32) (call $s) (local.get 0)))`,
		`(module (table 2 10 funcref) (table 1 externref) (func $f (result i32 i32) (i32.const 1) (i32.const 2)) (elem (i32.const 0) $f))`,
		`(module (func $r (export "r") (param $n i32) (result i32)
		   (block (result i32) (br_table 0 0 (i32.const 1) (local.get $n)))
		   (if (result i32) (then (call $r (i32.sub (local.get $n) (i32.const 1)))) (else (return (i32.const 0))))))`,
	} {
		f.Add(wat2wasm(f, src))
	}
	f.Add(namedModule(evilName, []string{"a", evilName}))
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	f.Cleanup(func() { rt.Close(ctx) })
	valid := func(wasm []byte) bool {
		c, err := rt.CompileModule(ctx, wasm)
		if err == nil {
			c.Close(ctx)
		}
		return err == nil
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		in := bytes.Clone(wasm)
		_, readable := sections(wasm)
		if mi, err := Scan(wasm); err == nil {
			CompileLimits(len(wasm), mi.Code, Limits{})
		}
		for _, name := range FuncExports(wasm) {
			FuncExportType(wasm, name)
		}

		tables, _ := BoundTables(wasm, 100)
		names := SanitizeNames(wasm)
		require.Equal(t, names, SanitizeNames(names), "SanitizeNames is idempotent")
		mem, name := MemoryExport(wasm)
		start, _ := HoistStart(wasm)
		stack, _, stackErr := BoundStack(wasm, 1<<16)
		if readable {
			for _, out := range [][]byte{tables, names, mem, start} {
				_, ok := sections(out)
				require.True(t, ok, "a rewrite keeps the module readable")
			}
			if stackErr == nil {
				_, ok := sections(stack)
				require.True(t, ok, "BoundStack keeps the module readable")
			}
		}
		require.Equal(t, in, wasm, "the rewrites leave their input as it is")

		if !readable || len(Lengths(wasm)) > 0 || !valid(wasm) {
			return
		}
		if again, probs := BoundTables(tables, 100); len(probs) == 0 {
			require.Equal(t, tables, again, "BoundTables is idempotent")
		}
		if again, name2 := MemoryExport(mem); name != "" {
			require.Equal(t, name, name2)
			require.Equal(t, mem, again, "MemoryExport is idempotent")
		}
		bin, probs := BoundTables(wasm, 100)
		bin = SanitizeNames(bin)
		bin, _, err := BoundStack(bin, 1<<16)
		if err != nil || len(probs) > 0 {
			return
		}
		bin, _ = MemoryExport(bin)
		bin, _ = HoistStart(bin)
		require.Empty(t, Lengths(bin), "the rewrites declare no length past their bytes")
		require.True(t, valid(bin), "the module validates as it is, but not rewritten")
	})
}
