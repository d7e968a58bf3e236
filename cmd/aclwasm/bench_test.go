package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBench(t *testing.T) {
	svg, png := filepath.Join(t.TempDir(), "bw.svg"), filepath.Join(t.TempDir(), "bw.png")
	r := cli(t, "bench", "--sizes", "64,4KiB", "--kinds", "h2d,d2d", "--modes", "sync", "--time-per-point", "1ms", "--svg", svg, "--png", png)
	require.Zero(t, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	// A loaded machine may add a last line flagging noisy points.
	if n := len(lines); n == 2+2*2+1 && strings.Contains(lines[n-1], "noise") {
		lines = lines[:n-1]
	}
	require.Len(t, lines, 2+2*2, r.stdout) // description, header, 2 sizes x 2 kinds
	require.Contains(t, lines[0], "engine wazero, backend sim")
	require.Contains(t, lines[1], "x direct")
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, want := range []string{">engine wazero, backend sim", ">aclrtMemcpy h2d<", ">aclrtMemcpy d2d<", ">bandwidth (GB/s)<", ">4KiB<"} {
		require.Contains(t, string(b), want)
	}
	require.NotContains(t, string(b), ">aclrtMemcpyAsync", "a panel per mode and direction measured, no other")
	b, err = os.ReadFile(png)
	require.NoError(t, err)
	require.Equal(t, "\x89PNG", string(b[:4]))

	r = cli(t, "bench", "--sizes", "256", "--kinds", "d2h", "--modes", "async", "--sessions", "2", "--time-per-point", "1ms", "--json")
	require.Zero(t, r.code, r.stderr)
	var rep struct {
		Points []struct {
			Size     uint64
			Kind     string
			Sessions int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Len(t, rep.Points, 1)
	require.Equal(t, uint64(256), rep.Points[0].Size)
	require.Equal(t, "d2h", rep.Points[0].Kind)
	require.Equal(t, 2, rep.Points[0].Sessions)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sizes", "0"}, "size 0"},
		{[]string{"--sizes", "lots"}, "--sizes"},
		{[]string{"--kinds", "h2h"}, `kind "h2h"`},
		{[]string{"--modes", "batchv2"}, `mode "batchv2"`},
		{[]string{"--sessions", "0"}, "--sessions 0"},
		{[]string{"--sizes", "1MiB", "--memory-pages", "2"}, "need 17 guest memory pages"},
		{[]string{"extra"}, "usage"},
	} {
		r := cli(t, append([]string{"bench", "--sizes", "64", "--time-per-point", "1ms"}, tc.args...)...)
		require.Equal(t, exitHost, r.code, tc.args)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}
