package bench

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the report as an aligned text table: per point the
// sandbox's bandwidth and latency, the direct backend's and memmove's
// bandwidth, and the sandbox's bandwidth as a fraction of each.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tkind\tmode\tsessions\tsandbox\tlatency\tdirect\tlatency\tmemmove\tx memmove\tx direct\t")
	for _, p := range r.Points {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t\n",
			Size(p.Size), p.Kind, p.Mode, p.Sessions,
			rate(p.Sandbox.BytesPerSec), latency(p.Sandbox.NsPerCall),
			rate(p.Direct.BytesPerSec), latency(p.Direct.NsPerCall),
			rate(p.Memmove.BytesPerSec), p.XMemmove, p.XDirect)
	}
	return tw.Flush()
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// Size formats a byte count as the suite's sizes are written: 64B, 4KiB,
// 256MiB.
func Size(n uint64) string {
	for _, u := range []struct {
		s string
		m uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return fmt.Sprintf("%d%s", n/u.m, u.s)
		}
	}
	return fmt.Sprintf("%dB", n)
}

func rate(bps float64) string {
	switch {
	case bps >= 1e9:
		return fmt.Sprintf("%.2f GB/s", bps/1e9)
	case bps >= 1e6:
		return fmt.Sprintf("%.2f MB/s", bps/1e6)
	}
	return fmt.Sprintf("%.2f kB/s", bps/1e3)
}

func latency(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// series is one line of the plot.
type series struct {
	name string
	pts  [][2]float64 // size, bytes per second
}

func (r *Report) series() []series {
	var out []series
	idx := map[string]int{}
	add := func(name string, size uint64, bps float64) {
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, series{name: name})
		}
		out[i].pts = append(out[i].pts, [2]float64{float64(size), bps})
	}
	seen := map[uint64]bool{}
	for _, p := range r.Points {
		add(fmt.Sprintf("sandbox %s %s", p.Kind, p.Mode), p.Size, p.Sandbox.BytesPerSec)
		add(fmt.Sprintf("direct %s %s", p.Kind, p.Mode), p.Size, p.Direct.BytesPerSec)
		if !seen[p.Size] {
			seen[p.Size] = true
			add("memmove", p.Size, p.Memmove.BytesPerSec)
		}
	}
	return out
}

// WriteSVG plots bandwidth against size, both on log scales, one line
// (an SVG path) per series: sandbox and direct for each kind and mode, and
// memmove.
func (r *Report) WriteSVG(w io.Writer) error {
	ss := r.series()
	const (
		width, height          = 900, 560
		left, right, top, bott = 80, 220, 30, 60
	)
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.pts {
			if p[1] <= 0 {
				continue
			}
			minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
			minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
		}
	}
	if math.IsInf(minX, 0) {
		return fmt.Errorf("bench: nothing to plot")
	}
	lx0, lx1 := math.Log2(minX), math.Log2(maxX)
	if lx1 == lx0 {
		lx1 = lx0 + 1
	}
	ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if ly1 == ly0 {
		ly1 = ly0 + 1
	}
	pw, ph := float64(width-left-right), float64(height-top-bott)
	px := func(x float64) float64 { return left + (math.Log2(x)-lx0)/(lx1-lx0)*pw }
	py := func(y float64) float64 { return top + ph - (math.Log10(y)-ly0)/(ly1-ly0)*ph }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">%s</text>`+"\n", left, esc("bandwidth against size, backend "+r.Backend))
	// Axes and grid.
	fmt.Fprintf(&b, `<g stroke="#ccc" fill="none">`+"\n")
	for e := ly0; e <= ly1; e++ {
		y := top + ph - (e-ly0)/(ly1-ly0)*ph
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", left, y, left+pw, y)
	}
	fmt.Fprintf(&b, "</g>\n")
	for e := ly0; e <= ly1; e++ {
		y := top + ph - (e-ly0)/(ly1-ly0)*ph
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, esc(rate(math.Pow(10, e))))
	}
	for _, p := range ss[0].pts {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(p[0]), height-bott+18, esc(Size(uint64(p[0]))))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">size</text>`+"\n", left+pw/2, height-bott+40)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="black"/>`+"\n", left, top, pw, ph)
	// One path per series, with its legend entry.
	for i, s := range ss {
		color := palette[i%len(palette)]
		dash := ""
		if strings.HasPrefix(s.name, "direct") {
			dash = ` stroke-dasharray="6 3"`
		}
		var d strings.Builder
		for _, p := range s.pts {
			if p[1] <= 0 {
				continue
			}
			cmd := "L"
			if d.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, px(p[0]), py(p[1]))
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s><title>%s</title></path>`+"\n", strings.TrimSpace(d.String()), color, dash, esc(s.name))
		ly := top + 10 + 18*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", width-right+15, ly, width-right+45, ly, color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", width-right+52, ly+4, esc(s.name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000"}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
