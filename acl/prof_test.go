package acl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStrID: the ids of the profiler's double hash, as the native
// HashData::DoubleHash (hash_data.cpp:72-84) computes them built with g++
// for x86_64: short names, one long enough to wrap both 32-bit hashes, and
// a byte above 0x7F, which a signed char adds sign-extended.
func TestStrID(t *testing.T) {
	for msg, want := range map[string]uint64{
		"a":          416611827809,
		"abc":        363002047600882,
		"MatMul":     7090398782807627396,
		"aclnnAdd_0": 314999964814112384,
		"a long operator name that wraps the thirty-two bit hashes": 15475800361702745569,
		"caf\xc3\xa9": 311258336540983062,
	} {
		require.Equal(t, want, StrID(msg), "%q", msg)
	}
	require.Equal(t, StrIDNone, StrID(""), "the empty string: UINT64_MAX")
}
