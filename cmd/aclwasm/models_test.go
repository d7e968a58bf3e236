package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModelFlags: --model NAME=FILE approves models (repeatable), each a
// regular file, each name once; with --manifest the manifest approves them.
func TestModelFlags(t *testing.T) {
	ret := wat(t, "return", watReturn)
	dir := t.TempDir()
	file := filepath.Join(dir, "cnn.onnx")
	require.NoError(t, os.WriteFile(file, []byte("model"), 0o644))
	man := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(man, []byte("name: r\nmodule: {path: "+ret+"}\npolicy: {models: {cnn: cnn.onnx}}\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"approved", []string{"run", "--model", "cnn=" + file, "--model", "edge=" + file, "--allow-guest-models", ret}, 0, ""},
		{"no name", []string{"run", "--model", "=" + file, ret}, 126, `--model "=` + file + `": want NAME=FILE`},
		{"no file", []string{"run", "--model", "cnn", ret}, 126, `--model "cnn": want NAME=FILE`},
		{"twice", []string{"run", "--model", "cnn=" + file, "--model", "cnn=" + file, ret}, 126, `model "cnn" is approved twice`},
		{"missing file", []string{"run", "--model", "cnn=" + filepath.Join(dir, "none"), ret}, 126, `policy: Models["cnn"]: stat`},
		{"a directory", []string{"run", "--model", "cnn=" + dir, ret}, 126, "is not a regular file"},
		{"manifest", []string{"run", "--manifest", man}, 0, ""},
		{"manifest and flag", []string{"run", "--manifest", man, "--model", "cnn=" + file}, 126, "--model: with --manifest the policy comes from the manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, tc.args...)
			require.Equal(t, tc.code, r.code, "stderr: %s", r.stderr)
			if tc.want == "" {
				require.Empty(t, r.stderr)
			} else {
				require.Contains(t, r.stderr, tc.want)
			}
		})
	}
}
