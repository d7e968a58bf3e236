package host

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/confschema"
)

// TestDecodeStrictDocuments: a manifest or a kernels file is one YAML
// document; a second one, well-formed or not, is refused rather than
// ignored, in both.
func TestDecodeStrictDocuments(t *testing.T) {
	const manifest = "name: a\nmodule: {path: x.wasm}\n"
	for _, tc := range []struct{ src, want string }{
		{manifest + "---\nname: b\n", "the file holds more than one YAML document (the second at line 3)"},
		{manifest + "---\n[bad\n", "the file holds more than one YAML document, the second malformed: yaml: line "},
		{manifest + "---\n", "the file holds more than one YAML document"},
	} {
		_, err := ParseManifest([]byte(tc.src))
		require.ErrorContains(t, err, tc.want, "%s", tc.src)
	}
	_, err := ParseManifest([]byte(manifest + "...\n"))
	require.NoError(t, err, "a document's end marker alone starts none")

	const kernels = "set: s\nkernels:\n  - name: K\n    binary: k.o\n    entry: K\n"
	_, err = parseKernelFile([]byte(kernels+"---\nset: t\n"), t.TempDir())
	require.EqualError(t, err, "the file holds more than one YAML document (the second at line 6)")
	_, err = parseKernelFile([]byte(kernels+"---\n{\n"), t.TempDir())
	require.ErrorContains(t, err, "the file holds more than one YAML document, the second malformed: ")
}

// TestDecodeStrictFields: what a schema lets through, the decoder
// refuses by field, naming the file rather than Go types.
func TestDecodeStrictFields(t *testing.T) {
	type probeDoc struct {
		A int              `yaml:"a"`
		B []kernelParamDoc `yaml:"b"`
	}
	open, err := confschema.Compile("any.json", []byte(`{}`))
	require.NoError(t, err)
	v, root, err := decodeStrict[probeDoc]([]byte("a: 3\nb: [{name: x}]\n"), open, "the probe")
	require.NoError(t, err)
	require.Equal(t, &probeDoc{A: 3, B: []kernelParamDoc{{Name: "x"}}}, v)
	require.Equal(t, 2, nodeAt(root, "b").Line)

	_, _, err = decodeStrict[probeDoc]([]byte("a: 3\nc: 1\n"), open, "the probe")
	require.ErrorContains(t, err, "line 2: field c not found in type the probe")
	_, _, err = decodeStrict[probeDoc]([]byte("b: [{nom: x}]\n"), open, "the probe")
	require.ErrorContains(t, err, "line 1: field nom not found in type the probe's kernelParamDoc")
	_, _, err = decodeStrict[probeDoc]([]byte("a: [1]\n"), open, "the probe")
	require.ErrorContains(t, err, "line 1: cannot unmarshal !!seq into int")
	require.NotContains(t, err.Error(), "host.")

	// The manifest's own schema stops these first, by field and line.
	_, err = ParseManifest([]byte("name: a\nmodule: {path: x.wasm}\nc: 1\n"))
	require.ErrorContains(t, err, "c (line 3): no such field")
}
