package acl

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

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
