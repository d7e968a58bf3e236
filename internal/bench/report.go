package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes the report as an aligned text table: per point the
// sandbox's bandwidth and latency, the direct backend's and memmove's
// bandwidth, and the sandbox's bandwidth as a fraction of each. A ratio
// above 1 against memmove is marked as noise (Point.noisy) and explained
// under the table.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tkind\tmode\tsessions\tsandbox\tlatency\tdirect\tlatency\tmemmove\tx memmove\tx direct\t")
	noisy := 0
	for _, p := range r.Points {
		mark := ""
		if p.noisy() {
			mark, noisy = " (noise)", noisy+1
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.3f%s\t%.3f\t\n",
			Size(p.Size), p.Kind, p.Mode, p.Sessions,
			rate(p.Sandbox.BytesPerSec), latency(p.Sandbox.NsPerCall),
			rate(p.Direct.BytesPerSec), latency(p.Direct.NsPerCall),
			rate(p.Memmove.BytesPerSec), p.XMemmove, mark, p.XDirect)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if noisy > 0 {
		_, err := fmt.Fprintf(w, "(noise): %d points copied faster through the sandbox than with memmove, which no path can: the machine's load moved between the runs, not a result (time them longer: --time-per-point)\n", noisy)
		return err
	}
	return nil
}

// noisy reports whether the point's sandbox copies measured faster than
// memmove of the same bytes. No path copies faster than memmove, so such a
// ratio is the machine's noise between the runs, not a result.
func (p Point) noisy() bool { return p.XMemmove > 1 }

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
