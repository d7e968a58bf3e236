package acl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckMemsetD32Args(t *testing.T) {
	for _, tc := range []struct {
		name                string
		ptr, memSize, count uint64
		want                uint64
		code                Error
		msg                 string
	}{
		{"count 0 before any other check", 0, 0, 0, 0, Success, ""},
		{"count 0 with a misaligned pointer", 3, 0, 0, 0, Success, ""},
		{"fits exactly", 0x1000, 16, 4, 16, Success, ""},
		{"fits with room", 0x1000, 64, 4, 16, Success, ""},
		{"NULL", 0, 16, 1, 0, ErrInvalidParam, "ptr is NULL"},
		{"misaligned", 0x1002, 16, 1, 0, ErrInvalidParam, "not 4-byte aligned"},
		{"one word too many", 0x1000, 15, 4, 0, ErrInvalidParam, "more than memSize 15"},
		{"byte count overflows", 0x1000, math.MaxUint64, math.MaxUint64/4 + 1, 0, ErrInvalidParam, "overflow"},
	} {
		n, err := CheckMemsetD32Args(tc.ptr, tc.memSize, tc.count)
		if tc.code == Success {
			require.NoError(t, err, tc.name)
			require.Equal(t, tc.want, n, tc.name)
			continue
		}
		require.ErrorIs(t, err, tc.code, tc.name)
		require.Contains(t, MessageOf(err), tc.msg, tc.name)
		require.Zero(t, n, tc.name)
	}
}
