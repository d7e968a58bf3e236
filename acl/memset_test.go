package acl

import (
	"bytes"
	"encoding/binary"
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

func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 255, 4096, 4097, 65535} {
		p := make([]byte, n+2)
		Fill(p[1:n+1], 0xa5)
		require.Equal(t, bytes.Repeat([]byte{0xa5}, n), p[1:n+1], "n=%d", n)
		require.Zero(t, p[0], "n=%d: Fill stays inside its slice", n)
		require.Zero(t, p[n+1], "n=%d: Fill stays inside its slice", n)
	}
}

func TestFill32(t *testing.T) {
	for _, words := range []int{0, 1, 2, 3, 5, 1000} {
		b := make([]byte, 4*words+4)
		Fill32(b[:4*words], 0x01020304)
		for i := range words {
			require.Equal(t, uint32(0x01020304), binary.LittleEndian.Uint32(b[4*i:]), "words=%d, word %d", words, i)
		}
		require.Zero(t, binary.LittleEndian.Uint32(b[4*words:]), "words=%d: past the end", words)
	}
}
