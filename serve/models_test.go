package serve

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// mdlReactor's export handle loads the approved model "mlp" and answers
// the 4 bytes of aclmdlLoadFromFile's code.
const mdlReactor = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclmdlLoadFromFile" (func $load (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x100) "mlp\00")
  (func (export "handle")
    (drop (call $set (i32.const 0)))
    (i32.store (i32.const 0x300) (call $load (i32.const 0x100) (i32.const 0x200)))
    (drop (call $write (i32.const 0x300) (i32.const 4)))))`

// TestModelsShared: two plugins whose manifests approve the same model
// file get one compiled model, shared: the server compiles it at the
// first load of either and /v1/plugins reports it loaded for both, with
// its weights and the loads of both; a changed file shows as changed and
// is compiled again at the next load, or at the next reload (the poll's),
// replacing the old one.
func TestModelsShared(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	mod := wat2wasm(t, "", mdlReactor)
	dir := plugins(t, map[string][]byte{"a": mod, "b": mod, "none": mod}, nil)
	b, err := os.ReadFile(filepath.Join(testsupport.Models(t), "mlp.onnx"))
	require.NoError(t, err)
	file := filepath.Join(dir, "models", "mlp.onnx")
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, b, 0o644))
	for _, n := range []string{"a", "b"} {
		write(t, dir, n+".yaml", "name: "+n+"\nmodule: {path: "+n+".wasm}\npolicy: {models: {mlp: models/mlp.onnx}}\n")
	}
	f := start(t, Config{Dir: dir})
	code := func(plugin string) uint32 {
		t.Helper()
		r := f.do("POST", "/v1/plugins/"+plugin, "", nil)
		require.Equal(t, 200, r.status, "%v", r)
		require.Len(t, r.body, 4)
		return binary.LittleEndian.Uint32(r.body)
	}

	l := f.listed()
	require.Equal(t, []ModelInfo{{Name: "mlp", State: "not_loaded"}}, l["a"].Models, "%+v", l["a"].Error)
	require.Empty(t, l["none"].Models)
	require.EqualValues(t, 145002, code("none"), "a plugin not granted the name")
	require.Zero(t, code("a"))
	require.Zero(t, code("b"))
	require.Zero(t, code("a"))
	require.Len(t, f.rt.Models(), 1, "compiled once for both plugins")
	l = f.listed()
	for _, n := range []string{"a", "b"} {
		ms := l[n].Models
		require.Len(t, ms, 1)
		require.Equal(t, "loaded", ms[0].State, n)
		require.EqualValues(t, 4*(8*16+16+16*4+4), ms[0].WeightBytes, n)
		require.EqualValues(t, 3, ms[0].Loads, "%s: the loads of both plugins", n)
		require.Positive(t, ms[0].LoadMs, n)
	}

	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(file, later, later))
	require.Equal(t, "changed", f.listed()["b"].Models[0].State)
	require.Zero(t, code("b")) // compiled again at the load
	require.Len(t, f.rt.Models(), 1, "the changed file's model replaces the old one")
	ms := f.listed()["a"].Models
	require.Equal(t, "loaded", ms[0].State)
	require.EqualValues(t, 1, ms[0].Loads, "compiled again")

	// A reload (the poll's, or the admin's) compiles a changed model
	// before any request loads it.
	later = later.Add(time.Hour)
	require.NoError(t, os.Chtimes(file, later, later))
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Empty(t, rep.Changed, "the plugins themselves did not change")
	ms = f.listed()["a"].Models
	require.Equal(t, "loaded", ms[0].State)
	require.Zero(t, ms[0].Loads, "compiled by the reload, loaded by no guest yet")
	require.Zero(t, code("a"))
	require.EqualValues(t, 1, f.listed()["b"].Models[0].Loads)

	require.NoError(t, os.Remove(file))
	require.Equal(t, "missing", f.listed()["a"].Models[0].State)
	require.EqualValues(t, 145006, code("a"), "the file is gone")
}
