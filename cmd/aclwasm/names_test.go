package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnknownPolicyName: an --allow or --deny name that is no ABI
// function is refused (126) by check, run and call, with the closest name
// when one is near, and without a guess when none is.
func TestUnknownPolicyName(t *testing.T) {
	g := wat(t, "return", watReturn)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--deny", "aclrtMaloc", g}, `aclwasm: --deny "aclrtMaloc": not a function of ABI v1 (did you mean "aclrtMalloc"?); aclwasm abi lists them`},
		{[]string{"check", "--allow", "aclrtSetDevice,ACLRTMEMCPY", g}, `aclwasm: --allow "ACLRTMEMCPY": not a function of ABI v1 (did you mean "aclrtMemcpy"?); aclwasm abi lists them`},
		{[]string{"run", "--deny", "aclrtCreateStrem", g}, `aclwasm: --deny "aclrtCreateStrem": not a function of ABI v1 (did you mean "aclrtCreateStream"?); aclwasm abi lists them`},
		{[]string{"call", "--deny", "memcpy", g, "x"}, `aclwasm: --deny "memcpy": not a function of ABI v1; aclwasm abi lists them`},
	} {
		r := cli(t, tc.args...)
		require.Equal(t, 126, r.code, r.stderr)
		require.Equal(t, tc.want, oneLine(t, r.stderr))
		require.Empty(t, r.stdout)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"same", "same", 0}, {"ab", "ba", 2}} {
		require.Equal(t, tc.d, editDistance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		require.Equal(t, tc.d, editDistance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}
