package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunManifest: run --manifest takes the module, argv, environment and
// policy from the manifest; the CLI's args follow the manifest's.
func TestRunManifest(t *testing.T) {
	g := wat(t, "envargs", watEnvArgs)
	dir := filepath.Dir(g)
	man := filepath.Join(dir, "m.yaml")
	write := func(s string) {
		require.NoError(t, os.WriteFile(man, []byte(s), 0o644))
	}
	write("name: envargs\nmodule: {path: envargs.wasm}\nargs: [one]\nenv: {B: \"2\", A: \"1\"}\npolicy: {memory_pages: 4}\n")
	r := cli(t, "run", "--manifest", man, "--env", "C=3", "two")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, []string{"A=1", "B=2", "C=3", "envargs", "one", "two"},
		strings.Split(strings.TrimSuffix(r.stdout, "\x00"), "\x00"))

	// Policy flags conflict with the manifest's policy.
	r = cli(t, "run", "--manifest", man, "--timeout", "5s")
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "--timeout: with --manifest the policy comes from the manifest")

	// Invalid manifests name the field.
	write("name: envargs\nmodule: {path: envargs.wasm}\npolicy: {max_stream: 1}\n")
	r = cli(t, "run", "--manifest", man)
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "policy.max_stream (line 3): no such field")

	// A hash mismatch refuses the load (exit 125).
	write("name: envargs\nmodule: {path: envargs.wasm, sha256: " + strings.Repeat("ab", 32) + "}\n")
	r = cli(t, "run", "--manifest", man)
	require.Equal(t, 125, r.code)
	require.Contains(t, r.stderr, "module.sha256: ")
}
