package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"0", 0},
		{"4096", 4096},
		{"4096B", 4096},
		{"64KiB", 64 << 10},
		{"64K", 64 << 10},
		{"256MiB", 256 << 20},
		{"256M", 256 << 20},
		{"1GiB", 1 << 30},
		{"32G", 32 << 30},
		{"3 GiB", 3 << 30},
		{" 7 ", 7},
		{"17179869183GiB", 17179869183 << 30},
		{"18446744073709551615", 1<<64 - 1},
		{"18446744073709551615B", 1<<64 - 1},
	} {
		got, err := parseBytes(tc.in)
		require.NoError(t, err, "%q", tc.in)
		require.Equal(t, tc.want, got, "%q", tc.in)
	}
	for _, tc := range []struct {
		in, msg string
	}{
		{"", `"" is not a byte count`},
		{"GiB", `"GiB" is not a byte count`},
		{"12XB", `"12XB" is not a byte count`},
		{"1GB", `"1GB" is not a byte count`},
		{"1TiB", `"1TiB" is not a byte count`},
		{"64kib", `"64kib" is not a byte count`},
		{"1.5GiB", `"1.5GiB" is not a byte count`},
		{"-1", `"-1" is not a byte count`},
		{"+1", `"+1" is not a byte count`},
		{"0x10", `"0x10" is not a byte count`},
		{"1_000", `"1_000" is not a byte count`},
		{"KiB64", `"KiB64" is not a byte count`},
		{"17179869184GiB", `"17179869184GiB" overflows`},
		{"18014398509481984KiB", `"18014398509481984KiB" overflows`},
		{"18446744073709551616", `"18446744073709551616" overflows`},
		{"99999999999999999999B", `"99999999999999999999B" overflows`},
	} {
		_, err := parseBytes(tc.in)
		require.Error(t, err, "%q", tc.in)
		require.Contains(t, err.Error(), tc.msg, "%q", tc.in)
	}
}
