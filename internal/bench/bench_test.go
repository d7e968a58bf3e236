package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func runSuite(t *testing.T, b acl.Backend, cfg Config) (*Report, error) {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithBackend(b))
	require.NoError(t, err)
	defer rt.Close(ctx)
	return Run(ctx, rt, b, cfg)
}

func TestRun(t *testing.T) {
	sizes := []uint64{64, 4096, 1 << 16, 1000} // 1000: 2D rows of 125 bytes
	for _, sessions := range []int{1, 3} {
		b := sim.New()
		defer b.Close()
		rep, err := runSuite(t, b, Config{Sizes: sizes, Kinds: Kinds, Modes: Modes, Sessions: sessions, TimePerPoint: time.Millisecond})
		require.NoError(t, err)
		require.Len(t, rep.Points, len(sizes)*(len(Kinds)*len(Modes)-2)) // no 2D or batch D2D
		i := 0
		for _, n := range sizes {
			for _, k := range Kinds {
				for _, m := range Modes {
					if k == kindD2D && (m == mode2D || m == modeBatch) {
						continue
					}
					p := rep.Points[i]
					i++
					require.Equal(t, n, p.Size)
					require.Equal(t, k, p.Kind)
					require.Equal(t, m, p.Mode)
					require.Equal(t, sessions, p.Sessions)
					for _, s := range []Stat{p.Sandbox, p.Direct, p.Memmove} {
						require.Positive(t, s.Calls)
						require.Positive(t, s.Elapsed)
						require.InDelta(t, float64(s.Calls)*float64(n)/s.Elapsed.Seconds(), s.BytesPerSec, s.BytesPerSec*1e-9)
					}
					require.Equal(t, int64(0), p.Sandbox.Calls%int64(sessions))
					require.InDelta(t, p.Sandbox.BytesPerSec/p.Direct.BytesPerSec, p.XDirect, 1e-9)
					require.InDelta(t, p.Sandbox.BytesPerSec/p.Memmove.BytesPerSec, p.XMemmove, 1e-9)
				}
			}
		}
		// Everything the sessions and the direct path allocated is freed.
		free, total, err := b.MemInfo(0, acl.HBMMem)
		require.NoError(t, err)
		require.Equal(t, total, free)
	}
}

// dropH2D loses every host-to-device copy, as a broken path would.
type dropH2D struct{ acl.Backend }

func (d dropH2D) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	if dst.IsDevice() && !src.IsDevice() {
		return nil
	}
	return d.Backend.Memcpy(ctx, dst, src, n)
}

// dropBatch loses every batch copy.
type dropBatch struct{ acl.Backend }

func (dropBatch) MemcpyBatch(context.Context, []acl.Copy) error { return nil }

func TestRunVerifies(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		wrap func(acl.Backend) acl.Backend
	}{
		{modeSync, func(b acl.Backend) acl.Backend { return dropH2D{b} }},
		{modeBatch, func(b acl.Backend) acl.Backend { return dropBatch{b} }},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			b := sim.New()
			defer b.Close()
			_, err := runSuite(t, tc.wrap(b), Config{Sizes: []uint64{4096}, Kinds: []Kind{kindH2D}, Modes: []Mode{tc.mode}, TimePerPoint: time.Millisecond})
			require.ErrorContains(t, err, "read back crc32")
		})
	}
}

func TestRunRefuses(t *testing.T) {
	b := sim.New()
	defer b.Close()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no sizes", Config{Kinds: Kinds, Modes: Modes}, "no sizes"},
		{"zero size", Config{Sizes: []uint64{0}, Kinds: Kinds, Modes: Modes}, "want 1 byte"},
		{"memory pages", Config{Sizes: []uint64{1 << 20}, Kinds: Kinds, Modes: Modes, Policy: host.Policy{MemoryPages: 4}}, "guest memory pages"},
		{"device memory", Config{Sizes: []uint64{1 << 20}, Kinds: Kinds, Modes: Modes, Policy: host.Policy{DeviceMemory: 1 << 20}}, "device memory"},
		{"2d width", Config{Sizes: []uint64{2 << 30}, Kinds: Kinds, Modes: []Mode{mode2D}}, "2D width limit"},
		{"kind", Config{Sizes: []uint64{64}, Kinds: []Kind{"h2h"}, Modes: Modes}, `kind "h2h"`},
		{"mode", Config{Sizes: []uint64{64}, Kinds: Kinds, Modes: []Mode{"batchv2"}}, `mode "batchv2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSuite(t, b, tc.cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func sample() *Report {
	r := &Report{Backend: "sim", TimePerPoint: time.Millisecond}
	for _, n := range []uint64{64, 1024, 1 << 20} {
		for _, k := range Kinds {
			for _, m := range Modes {
				st := Stat{Calls: 10, Elapsed: time.Millisecond, BytesPerSec: float64(n) * 1e4, NsPerCall: 1e5}
				r.Points = append(r.Points, Point{Size: n, Kind: k, Mode: m, Sessions: 1, Sandbox: st, Direct: st, Memmove: st, XMemmove: 1, XDirect: 1})
			}
		}
	}
	return r
}

func TestJSON(t *testing.T) {
	r := sample()
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	var back Report
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	require.Equal(t, *r, back)
}

// TestCharts: the chart has a panel per mode and direction, titled with
// the ACL call and direction, the three series in its legend, labelled
// axes with units, and the engine and backend in its title; PNG and SVG
// draw the same chart. A sandbox point faster than memmove is marked as
// noise, in the chart and in the table.
func TestCharts(t *testing.T) {
	r := sample()
	r.Backend = "engine wazero, backend sim"
	r.Points[0].XMemmove = 1.2 // 64 B h2d sync
	var buf bytes.Buffer
	require.NoError(t, r.WriteSVG(&buf))
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	require.Equal(t, "svg", root)
	all := strings.Join(texts, "\n")
	require.Contains(t, all, "engine wazero, backend sim")
	for _, m := range Modes {
		for _, k := range Kinds {
			require.Contains(t, texts, modeTitle[m]+" "+string(k))
		}
	}
	for _, want := range []string{"sandbox (guest through the imports)", "backend called directly", "memmove (Go copy)", "bandwidth (GB/s)", "copy size", "64B", "1KiB", "1MiB", "sandbox above memmove: noise, not a result"} {
		require.Contains(t, texts, want)
	}
	require.Equal(t, len(Modes)*len(Kinds), strings.Count(all, "bandwidth (GB/s)"), "a labelled axis per panel")

	buf.Reset()
	require.NoError(t, r.WritePNG(&buf))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	require.Equal(t, len(Kinds)*400, img.Bounds().Dx(), "300 pt panels at 96 dpi")

	buf.Reset()
	require.NoError(t, r.WriteTable(&buf))
	require.Contains(t, buf.String(), "1.200 (noise)")
	require.Contains(t, buf.String(), "1 points copied faster through the sandbox than with memmove")

	require.Error(t, (&Report{}).WriteSVG(io.Discard))
	require.Error(t, (&Report{}).WritePNG(io.Discard))
}

func TestTable(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, sample().WriteTable(&buf))
	require.Contains(t, buf.String(), "x direct")
	require.Contains(t, buf.String(), "1MiB")
	require.Equal(t, 1+len(sample().Points), bytes.Count(buf.Bytes(), []byte("\n")))
}

func TestFill(t *testing.T) {
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
	fill(a, 1)
	fill(b, 2)
	require.NotEqual(t, a, b)
	for _, shift := range []int{1, 4096, 65536} { // a copy off by bytes or pages
		require.NotEqual(t, a[shift:], a[:len(a)-shift], shift)
	}
	c := make([]byte, 1<<20)
	fill(c, 1)
	require.Equal(t, a, c)
}

func TestRows(t *testing.T) {
	for _, tc := range []struct{ n, w, h uint64 }{{64, 4, 16}, {1000, 125, 8}, {7, 7, 1}, {1 << 20, 1 << 16, 16}, {256 << 20, 4 << 20, 64}, {2 << 30, 16 << 20, 128}} {
		w, h := rows(tc.n)
		require.Equal(t, [2]uint64{tc.w, tc.h}, [2]uint64{w, h}, tc.n)
	}
}

func TestGuestModuleEncoding(t *testing.T) {
	require.Equal(t, []byte{0xe5, 0x8e, 0x26}, uleb(624485))
	require.Equal(t, []byte{0}, uleb(0))
	require.Equal(t, []byte{0xc0, 0xbb, 0x78}, sleb(-123456))
	require.Equal(t, []byte{0x80, 0x06}, sleb(768))
	require.Equal(t, []byte{0x3f}, sleb(63))
	require.Equal(t, []byte{0xc0, 0x00}, sleb(64))
	require.Equal(t, uint64(2), guestPages(1))
	require.Equal(t, uint64(4097), guestPages(256<<20))
}
