package confschema

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func validate(t *testing.T, s *Schema, src string) error {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(src), &doc), src)
	return s.Validate(&doc)
}

// TestValidatePositions: each error names the field as a path and the
// line of the YAML node that the error's JSON pointer points at.
func TestValidatePositions(t *testing.T) {
	h := "sha256:" + "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"[:64]
	for _, tc := range []struct{ name, src, want string }{
		{"unknown key at its line", "access:\n  - name: a\n    tokens: [" + h + "]\n\n    plugin: [x]\n", "access[0].plugin (line 5): no such field (have: admin, name, plugins, subjects, tokens)"},
		{"a list item", "access:\n  - name: a\n    tokens:\n      - " + h + "\n      - hunter2\n    plugins: [x]\n", `access[0].tokens[1] (line 5): "hunter2" is not sha256:<64 hex digits>`},
		{"enum", "access:\n  - name: a\n    tokens: [" + h + "]\n    admin:\n      - list\n      - restart\n", "access[0].admin[1] (line 6): value must be one of"},
		{"required", "access:\n  - tokens: [" + h + "]\n    plugins: [x]\n", "access[0].name (line 2): missing"},
		{"type", "access: {name: a}\n", "access (line 1): want a list, not a mapping"},
		{"empty file", "", "the file (line 0): want a mapping, not nothing"},
		{"given twice", "access: []\naccess: []\n", "access (line 2): given twice"},
		{"a key with / and ~", "access:\n  - name: a\n    tokens: [" + h + "]\n    a/b~c: 1\n", "access[0].a/b~c (line 4): no such field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, validate(t, Serve, tc.src), tc.want)
		})
	}
}

// TestValidateManifest: the manifest schema's wording: x-want for the
// formats, keys of a mapping of names, and YAML's plain scalars read as
// the text a string field gets.
func TestValidateManifest(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: a\nmodule: {path: a.wasm}\npolicy:\n  timeout: soon\n", `policy.timeout (line 4): "soon" is not a duration (like 30s, 2m) or none`},
		{"name: a\nmodule: {path: a.wasm}\npolicy:\n  device_memory: [1]\n", `policy.device_memory (line 4): want an integer or a string, not a list`},
		{"name: a\nmodule: {path: a.wasm}\nenv:\n  \"=x\": y\n", `env.=x (line 4): want a nonempty name without '=' or NUL`},
		{"name: a\nmodule: {path: a.wasm}\npolicy: &p {timeout: 1s}\nserve: *p\n", "serve.timeout (line 3): no such field"},
	} {
		require.ErrorContains(t, validate(t, Manifest, tc.src), tc.want, tc.src)
	}
	for _, ok := range []string{
		"name: 123\nmodule: {path: a.wasm, sha256: 0000000000000000000000000000000000000000000000000000000000000000}\n",
		"name: a\nmodule: {path: a.wasm}\npolicy: {timeout: none, compile_timeout: 1m30s, device_memory: 64MiB, pinned_memory: 4096}\n",
	} {
		require.NoError(t, validate(t, Manifest, ok), ok)
	}
}
