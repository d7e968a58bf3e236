package module

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFuncImportsAndRename(t *testing.T) {
	wasm := wat2wasm(t, `(module
  (import "env" "a" (func (param i32 i64) (result i32)))
  (import "env" "m" (memory 1))
  (import "acl" "b" (func (param f32)))
  (import "env" "c" (func))
  (func (export "f") (result i32) (call 0 (i32.const 1) (i64.const 2))))`)
	imps, ok := FuncImports(wasm)
	require.True(t, ok)
	require.Equal(t, []FuncImport{
		{Module: "env", Name: "a", Params: []byte{0x7f, 0x7e}, Results: []byte{0x7f}},
		{Module: "acl", Name: "b", Params: []byte{0x7d}, Results: []byte{}},
		{Module: "env", Name: "c", Params: []byte{}, Results: []byte{}},
	}, imps)

	renamed := RenameImports(wasm, func(mod, name string) (string, string, bool) {
		if mod == "env" {
			return "host:k", name + "/x", true
		}
		return "", "", false
	})
	got, ok := FuncImports(renamed)
	require.True(t, ok)
	require.Equal(t, []string{"host:k", "a/x", "acl", "b", "host:k", "c/x"}, []string{got[0].Module, got[0].Name, got[1].Module, got[1].Name, got[2].Module, got[2].Name})
	mi, err := Scan(renamed)
	require.NoError(t, err)
	require.Equal(t, Import{Module: "env", Name: "m", Kind: 2}, mi.Imports[1], "only functions are renamed")
	require.Equal(t, []string{"f"}, FuncExports(renamed), "the rest of the module is kept")

	same := RenameImports(wasm, func(string, string) (string, string, bool) { return "", "", false })
	require.Equal(t, wasm, same)
	_, ok = FuncImports([]byte("not wasm"))
	require.False(t, ok)
}
