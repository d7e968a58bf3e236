package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/bench"
)

// benchCmd is aclwasm bench: the standard copy suite on the selected
// engine and backend, as a table, JSON or an SVG plot.
func benchCmd() *cobra.Command {
	var (
		f            sandboxFlags
		sizes        []string
		kinds, modes []string
		sessions     int
		perPoint     time.Duration
		asJSON       bool
		svg, png     string
	)
	c := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Measure what the sandbox costs: copy bandwidth and latency against the direct backend and memmove",
		Long: `Run the standard copy suite on the selected engine and backend: for each
size, direction (h2d, d2h, d2d) and mode (sync, async, 2d, batch; 2d and
batch are h2d and d2h only), the same copies are timed through the sandbox
(a guest calling aclrtMemcpy, aclrtMemcpyAsync, aclrtMemcpy2d or
aclrtMemcpyBatch in a loop), on the backend called directly, and as a Go copy (this machine's
memmove). Each point is verified first by reading the copy back. The table
gives bandwidth, latency per call and the sandbox's bandwidth over memmove's
("x memmove") and over the direct backend's ("x direct"). --memory-pages and
--device-memory default to what the largest size needs.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 0 {
				return &exitError{exitHost, fmt.Errorf("usage: %s", c.UseLine())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			fail := func(err error) error { return &exitError{exitHost, err} }
			cfg := bench.Config{Sessions: sessions, TimePerPoint: perPoint}
			if sessions < 1 {
				return fail(fmt.Errorf("--sessions %d: want at least 1", sessions))
			}
			if perPoint <= 0 {
				return fail(fmt.Errorf("--time-per-point %v: want a positive duration", perPoint))
			}
			var max uint64
			for _, s := range sizes {
				n, err := parseBytes(s)
				if err != nil {
					return fail(fmt.Errorf("--sizes: %w", err))
				}
				cfg.Sizes = append(cfg.Sizes, n)
				max = maxU64(max, n)
			}
			for _, k := range kinds {
				cfg.Kinds = append(cfg.Kinds, bench.Kind(strings.ToLower(k)))
			}
			for _, m := range modes {
				cfg.Modes = append(cfg.Modes, bench.Mode(strings.ToLower(m)))
			}
			pages, devMem := bench.Needs(max)
			fl := cmd.Flags()
			if !fl.Changed("memory-pages") {
				f.memoryPages = max32(f.memoryPages, pages)
			}
			if !fl.Changed("device-memory") {
				f.deviceMemory = fmt.Sprint(maxU64(devMem, 1<<30))
			}
			p, err := f.policy()
			if err != nil {
				return fail(err)
			}
			cfg.Policy = p
			b, desc, err := f.openBackend()
			if err != nil {
				return fail(err)
			}
			defer b.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := []host.Option{host.WithBackend(b), host.WithEngine(f.engine)}
			if f.cacheDir != "" {
				opts = append(opts, host.WithCacheDir(f.cacheDir))
			}
			rt, err := host.NewRuntime(ctx, opts...)
			if err != nil {
				return fail(err)
			}
			defer rt.Close(context.Background())
			rep, err := bench.Run(ctx, rt, b, cfg)
			if err != nil {
				if ctx.Err() != nil {
					return &exitError{exitInterrupted, err}
				}
				return fail(err)
			}
			rep.Backend = "engine " + f.engine + ", backend " + desc
			for _, chart := range []struct {
				path  string
				write func(io.Writer) error
			}{{svg, rep.WriteSVG}, {png, rep.WritePNG}} {
				if chart.path == "" {
					continue
				}
				out, err := os.Create(chart.path)
				if err != nil {
					return fail(err)
				}
				err = chart.write(out)
				if cerr := out.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return fail(err)
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return rep.WriteJSON(w)
			}
			fmt.Fprintf(w, "%s; %v per point\n", rep.Backend, perPoint)
			return rep.WriteTable(w)
		},
	}
	f.register(c)
	c.ValidArgsFunction = cobra.NoFileCompletions
	var defSizes []string
	for _, n := range bench.DefaultSizes() {
		defSizes = append(defSizes, bench.Size(n))
	}
	var kindNames, modeNames []string
	for _, k := range bench.Kinds {
		kindNames = append(kindNames, string(k))
	}
	for _, m := range bench.Modes {
		modeNames = append(modeNames, string(m))
	}
	fl := c.Flags()
	fl.StringSliceVar(&sizes, "sizes", defSizes, "copy sizes (byte counts such as 64, 4KiB, 256MiB)")
	fl.StringSliceVar(&kinds, "kinds", kindNames, "copy directions: h2d, d2h, d2d")
	fl.StringSliceVar(&modes, "modes", modeNames, "copy APIs: sync (aclrtMemcpy), async (aclrtMemcpyAsync on a stream, synchronized after each timed run), 2d (aclrtMemcpy2d, up to 16 dense rows), batch (aclrtMemcpyBatch, the same rows as entries)")
	fl.IntVar(&sessions, "sessions", 1, "sandbox sessions copying at once (their bandwidth is summed)")
	fl.DurationVar(&perPoint, "time-per-point", 100*time.Millisecond, "how long each path of each point is timed (longer: less noise)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fl.StringVar(&svg, "svg", "", "also write the chart (a panel per mode and direction: sandbox, backend called directly, memmove) to this SVG file")
	fl.StringVar(&png, "png", "", "also write the chart to this PNG file")
	completeValues(c, "kinds", kindNames)
	completeValues(c, "modes", modeNames)
	_ = c.MarkFlagFilename("svg", "svg")
	_ = c.MarkFlagFilename("png", "png")
	return c
}

func maxU64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

func max32(a, b uint32) uint32 {
	if a > b {
		return a
	}
	return b
}
