package module

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wat2wasm compiles WebAssembly text (testsupport.WAT).
func wat2wasm(t testing.TB, src string) []byte { t.Helper(); return testsupport.WAT(t, src) }

// compiled compiles wasm with wazero's interpreter (validation is what the
// tests want of it, quickly) and returns it, closed at the test's end.
func compiled(t testing.TB, wasm []byte) wazero.CompiledModule {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	t.Cleanup(func() { rt.Close(ctx) })
	c, err := rt.CompileModule(ctx, wasm)
	require.NoError(t, err, "the module validates")
	return c
}

// sec returns a section of id with body.
func sec(id byte, body []byte) []byte {
	return appendSection(nil, id, body)
}

// vec returns items as a wasm vector: their count, then each.
func vec(items ...[]byte) []byte {
	b := appendUleb(nil, uint64(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

// header is the start of every module: magic and version 1.
const header = "\x00asm\x01\x00\x00\x00"

// codeBodies returns the function bodies of a module's code section.
func codeBodies(t *testing.T, wasm []byte) [][]byte {
	t.Helper()
	secs, ok := sections(wasm)
	require.True(t, ok)
	for _, s := range secs {
		if s.id == 10 {
			r := byteReader{b: wasm[s.body:s.end]}
			var out [][]byte
			for n := r.uleb(); n > 0; n-- {
				out = append(out, r.take(r.uleb()))
			}
			require.False(t, r.bad)
			return out
		}
	}
	return nil
}

// exportsOf returns the exports of wasm, name to kind, as its export
// section declares them.
func exportsOf(t *testing.T, wasm []byte) map[string]byte {
	t.Helper()
	secs, ok := sections(wasm)
	require.True(t, ok)
	out := map[string]byte{}
	for _, s := range secs {
		if s.id == 7 {
			require.True(t, exportNames(wasm[s.body:s.end], func(n string, kind byte, _ uint64) { out[n] = kind }))
		}
	}
	return out
}
