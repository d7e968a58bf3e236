package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompileTimeoutFlag: --compile-timeout reaches the policy of run,
// check and serve; a module over the compile limits is refused before
// compiling, whatever the timeout.
func TestCompileTimeoutFlag(t *testing.T) {
	slow := "../../build/wasm/go-copy.wasm" // about a second to compile
	r := cli(t, "check", "--compile-timeout", "1ns", slow)
	require.Equal(t, 1, r.code, "%+v", r)
	require.Contains(t, r.stdout, "compile: not finished within the policy's compile timeout (CompileTimeout 1ns)")
	r = cli(t, "run", "--compile-timeout", "1ns", slow)
	require.Equal(t, exitLoad, r.code, "%+v", r)
	require.Contains(t, r.stderr, "(CompileTimeout 1ns)")
	for _, cmd := range []string{"run", "check"} {
		r = cli(t, cmd, "--compile-timeout", "0s", slow)
		require.Equal(t, exitHost, r.code, "%+v", r)
		require.Contains(t, r.stderr, "--compile-timeout 0s: want a positive duration")
	}
	r = cli(t, "serve", "--help")
	require.Zero(t, r.code)
	require.Contains(t, r.stdout, "--compile-timeout")
	deep := wat(t, "deep", "(module (func "+strings.Repeat("block ", 10001)+strings.Repeat("end ", 10001)+"))")
	r = cli(t, "check", deep)
	require.Equal(t, 1, r.code, "%+v", r)
	require.Contains(t, r.stdout, "nesting depth of blocks: 10001, more than the limit 10000 (MaxBlockDepth)")
}
