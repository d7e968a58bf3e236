package host

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/confschema"
)

// writeKernelFile writes src as a kernels file in a directory of its own,
// beside an empty binary k.o, and returns its path.
func writeKernelFile(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.o"), nil, 0o644))
	path := filepath.Join(dir, "kernels.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

func TestReadKernelFile(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "x.o") // an absolute binary
	require.NoError(t, os.WriteFile(abs, nil, 0o644))
	path := writeKernelFile(t, `# kernels of the test
set: vecops
kernels:
  - name: VecAdd
    binary: k.o
    entry: vec_add
    params:
      - {name: a, buffer: ACL_FLOAT, access: read, extent: n}
      - {name: b, buffer: ACL_FLOAT16, access: read-write, extent: (n + 7) / 8 * 8}
      - {name: c, buffer: ACL_INT64, access: write, extent: blockDim}
      - {name: n, scalar: ACL_UINT32}
      - {name: alpha, scalar: ACL_FLOAT}
  - name: Nop
    binary: `+abs+`
    entry: 7
`)
	kf, err := ReadKernelFile(path)
	require.NoError(t, err)
	require.Equal(t, "vecops", kf.Set)
	require.Equal(t, []Kernel{
		{Name: "VecAdd", Binary: filepath.Join(filepath.Dir(path), "k.o"), Entry: "vec_add", Params: []KernelParam{
			Buffer("a", acl.DTFloat, Read, "n"),
			Buffer("b", acl.DTFloat16, ReadWrite, "(n + 7) / 8 * 8"),
			Buffer("c", acl.DTInt64, Write, "blockDim"),
			Scalar("n", acl.DTUint32),
			Scalar("alpha", acl.DTFloat),
		}},
		{Name: "Nop", Binary: abs, Entry: "7", Params: []KernelParam{}},
	}, kf.Kernels)
	// Registered as their set, granted by it.
	ctx := t.Context()
	rt, err := NewRuntime(ctx, WithEngine(testEngine), WithKernelSet(kf.Set, kf.Kernels...))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	require.Equal(t, []string{"Nop", "VecAdd"}, rt.Kernels())
	granted, err := rt.grantedKernels([]string{"vecops"})
	require.NoError(t, err)
	require.Len(t, granted, 2)
}

// TestReadKernelFileStrict: every mistake is an error naming the file,
// the field and its line.
func TestReadKernelFileStrict(t *testing.T) {
	const head = "set: s\nkernels:\n  - name: K\n    binary: k.o\n    entry: K\n"
	for _, c := range []struct{ src, want string }{
		{"", "the file (line 0): want a mapping, not nothing"},
		{"set: s\n", "kernels (line 1): missing"},
		{"kernels: []\n", "set (line 1): missing"},
		{"set: s\nkernels: []\n", "kernels (line 2): minItems"},
		{head + "sets: x\n", "sets (line 6): no such field (have: kernels, set)"},
		{head + "    bin: k.o\n", "kernels[0].bin (line 6): no such field (have: binary, entry, name, params)"},
		{head + "    params:\n      - {name: n, type: ACL_UINT32}\n", "kernels[0].params[0].type (line 7): no such field"},
		{"set: s\nkernels:\n  - name: K\n    binary: k.o\n", "kernels[0].entry (line 3): missing"},
		{"set: s\nkernels:\n  - name: K\n    entry: K\n", "kernels[0].binary (line 3): missing"},
		{"set: s\nkernels:\n  - name: k-1\n    binary: k.o\n    entry: K\n", `kernels[0].name (line 3): "k-1" is not a C identifier`},
		{"set: s\nkernels:\n  - name: 12\n    binary: k.o\n    entry: K\n", `kernels[0].name (line 3): "12" is not a C identifier`},
		{"set: s\nkernels:\n  - name: K\n    binary: k.o\n    entry: 1.5\n", `kernels[0].entry (line 5): "1.5" is not a C identifier or a decimal number`},
		{head + "    params:\n      - {name: 7, scalar: ACL_INT32}\n", `kernels[0].params[0].name (line 7): "7" is not a C identifier`},
		{"set: -1\nkernels:\n  - name: K\n    binary: k.o\n    entry: K\n", `set (line 1): "-1" is not a set name`},
		{"set: s\nkernels:\n  - name: K\n    binary: k.o\n    entry: a.b\n", `kernels[0].entry (line 5): "a.b" is not a C identifier or a decimal number`},
		{"set: a,b\nkernels:\n  - name: K\n    binary: k.o\n    entry: K\n", `set (line 1): "a,b" is not a set name`},
		{head + "    params: {n: 1}\n", "kernels[0].params (line 6): want a list, not a mapping"},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT32, access: read, extent: 1}\n", `kernels[0].params[0].buffer (line 7): "ACL_FLOAT32" is not an element type`},
		{head + "    params:\n      - {name: x, buffer: ACL_STRING, access: read, extent: 1}\n", `kernels[0].params[0].buffer (line 7): "ACL_STRING" is not an element type`},
		{head + "    params:\n      - {name: x, scalar: ACL_COMPLEX64}\n", `kernels[0].params[0].scalar (line 7): "ACL_COMPLEX64" is not a scalar type`},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, access: rw, extent: 1}\n", `kernels[0].params[0].access (line 7): "rw" is not read, write or read-write`},
		{head + "    params:\n      - {name: x}\n", "kernels[0].params[0] (line 7): x is neither a buffer nor a scalar"},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, scalar: ACL_FLOAT}\n", "kernels[0].params[0] (line 7): x is given both buffer and scalar"},
		{head + "    params:\n      - {name: x, scalar: ACL_INT32, extent: 4}\n", "kernels[0].params[0].extent (line 7): scalar x has an extent"},
		{head + "    params:\n      - {name: x, scalar: ACL_INT32, access: read}\n", "kernels[0].params[0].access (line 7): scalar x has an access"},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, extent: 4}\n", "kernels[0].params[0] (line 7): buffer x needs its access"},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, access: read}\n", "kernels[0].params[0] (line 7): buffer x needs its extent"},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, access: read, extent: m}\n", `kernels[0].params[0].extent (line 7): "m": m is neither blockDim nor a parameter`},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, access: read, extent: f}\n      - {name: f, scalar: ACL_FLOAT}\n", `kernels[0].params[0].extent (line 7): "f": f is not an integer scalar`},
		{head + "    params:\n      - {name: x, buffer: ACL_FLOAT, access: read, extent: 2 *}\n", `kernels[0].params[0].extent (line 7): "2 *": unexpected end`},
		{head + "    params:\n      - {name: n, scalar: ACL_INT32}\n      - {name: n, scalar: ACL_INT32}\n", "kernels[0].params[1].name (line 8): n is another parameter's name"},
		{head + "    params:\n      - {name: blockDim, scalar: ACL_INT32}\n", "kernels[0].params[0].name (line 7): blockDim is another parameter's name, or blockDim or stream"},
		{head + "    params:\n" + strings.Repeat("      - {name: x, scalar: ACL_INT32}\n", 15), "kernels[0].params (line 7): maxItems"},
		{head + "  - name: K\n    binary: k.o\n    entry: K2\n", "kernels[1].name (line 6): kernel K is declared twice (first at line 3)"},
		{"set: K\nkernels:\n  - name: K\n    binary: k.o\n    entry: K\n", "kernels[0].name (line 3): K is the set's name too"},
		{"set: s\nkernels:\n  - name: K\n    binary: none.o\n    entry: K\n", "kernels[0].binary (line 4): stat "},
		{"set: s\nkernels:\n  - name: K\n    binary: .\n    entry: K\n", " is not a regular file"},
		{head + "---\nset: t\n", "more than one YAML document"},
		{"set: s\nset: t\n", "set (line 2): given twice"},
		{"set: [s\n", "yaml: line 1"},
	} {
		path := writeKernelFile(t, c.src)
		_, err := ReadKernelFile(path)
		require.ErrorContains(t, err, "host: kernels file "+path+": ", c.src)
		require.ErrorContains(t, err, c.want, c.src)
	}
	_, err := ReadKernelFile(filepath.Join(t.TempDir(), "none.yaml"))
	require.ErrorContains(t, err, "host: kernels file: open ")
}

// TestKernelFileSchemaInSync: the kernels file's JSON Schema and the Go
// that decodes it name the same fields, element types and scalar types.
func TestKernelFileSchemaInSync(t *testing.T) {
	defs := confschema.Kernels.Source().(map[string]any)["definitions"].(map[string]any)
	keys := func(m any) []string {
		var out []string
		for k := range m.(map[string]any)["properties"].(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	tags := func(typ reflect.Type) []string {
		var out []string
		for i := range typ.NumField() {
			out = append(out, typ.Field(i).Tag.Get("yaml"))
		}
		slices.Sort(out)
		return out
	}
	require.Equal(t, tags(reflect.TypeFor[kernelFileDoc]()), keys(confschema.Kernels.Source()))
	require.Equal(t, tags(reflect.TypeFor[kernelDoc]()), keys(defs["kernel"]))
	require.Equal(t, tags(reflect.TypeFor[kernelParamDoc]()), keys(defs["param"]))
	enum := func(field string) []string {
		var out []string
		for _, v := range defs["param"].(map[string]any)["properties"].(map[string]any)[field].(map[string]any)["enum"].([]any) {
			out = append(out, v.(string))
		}
		slices.Sort(out)
		return out
	}
	var bufs, scalars []string
	for _, dt := range acl.DataTypes {
		if dt.Size() > 0 {
			bufs = append(bufs, dt.String())
		}
		if _, ok := scalarTypes[dt]; ok {
			scalars = append(scalars, dt.String())
		}
	}
	slices.Sort(bufs)
	slices.Sort(scalars)
	require.Equal(t, bufs, enum("buffer"), "kernels.schema.json's buffer types: the sized data types")
	require.Equal(t, scalars, enum("scalar"), "kernels.schema.json's scalar types: scalarTypes")
	var acc []string
	for a := range fileAccesses {
		acc = append(acc, a)
	}
	slices.Sort(acc)
	require.Equal(t, acc, enum("access"))
}

// TestKernelFileDocs: the example of docs/EMBEDDING.md reads.
func TestKernelFileDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/EMBEDDING.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(doc), "## Kernels files\n")
	require.True(t, ok, "docs/EMBEDDING.md has no section Kernels files")
	_, block, ok := strings.Cut(sec, "```yaml\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vec_add.o"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vecops.yaml"), []byte(block), 0o644))
	kf, err := ReadKernelFile(filepath.Join(dir, "vecops.yaml"))
	require.NoError(t, err)
	require.Equal(t, "vecops", kf.Set)
	require.Len(t, kf.Kernels, 1)
	require.Len(t, kf.Kernels[0].Params, 4)
}
