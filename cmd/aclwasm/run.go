package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/host"
)

func runCmd() *cobra.Command {
	var (
		f      sandboxFlags
		invoke string
		trace  bool
		stats  bool
		env    []string
		detClk bool
		man    string
		logLvl string
		otel   otelStart // nil without -tags otel
	)
	c := &cobra.Command{
		Use:   "run [flags] plugin.wasm [args...] | run [flags] --manifest plugin.yaml [args...]",
		Short: "Run a plugin: a command's _start, or --invoke an export of a reactor",
		Long: `Run a plugin in the sandbox. A command module runs its _start with the
given args (argv[0] is the file name) and the process exits with the guest's
exit code. With --invoke, the module is a reactor: _initialize runs if
exported, then the named export is called with the args as integers, and
its results are printed. With --manifest, the module, its policy, argv,
environment and config come from a manifest file (docs/EMBEDDING.md); the
args are appended to its argv, and the policy flags may not be given.

Exit codes: the guest's exit code (255 for one above 255); 124 timeout;
125 load refused; 126 host error (bad flag, backend not loadable); 130
interrupted (SIGINT or SIGTERM: the session is released and --stats
printed); 134 trap; 123 with --check-async, when the guest made
asynchronous mistakes (each listed on stderr with the call that queued
the copy). A guest exit code equal to one of these comes with a line on
stderr saying it is the guest's.`,
		Args: func(c *cobra.Command, args []string) error {
			if man != "" {
				return nil
			}
			return needModule(false)(c, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var m *host.Manifest
			if man != "" {
				var err error
				if m, err = manifestRun(cmd, man); err != nil {
					return err
				}
				args = append(m.Config().Args, args...)
				env = append(m.Config().Env, env...)
			}
			for _, kv := range env {
				if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
					return &exitError{exitHost, fmt.Errorf("--env %q: want KEY=VALUE with a nonempty KEY", kv)}
				}
			}
			stderr := cmd.ErrOrStderr()
			var opts []host.Option
			if trace {
				opts = append(opts, host.WithTrace(func(r host.CallRecord) { fmt.Fprintln(stderr, "trace:", r) }))
			}
			if otel != nil {
				tr, err := otel(stderr)
				if err != nil {
					return &exitError{exitHost, fmt.Errorf("--otel: %w", err)}
				}
				if tr != nil {
					opts = append(opts, tr.option)
					defer tr.shutdown(context.Background())
				}
			}
			// Ctrl-C stops the guest as a timeout would: the session is
			// released and the statistics printed, then the exit is 130.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			pl, done, err := f.loadPlugin(ctx, m, args[0], stats, stderr, opts...)
			if err != nil {
				return err
			}
			defer done()
			if names := pl.Exports(); invoke == "" && !slices.Contains(names, "_start") {
				return &exitError{exitHost, fmt.Errorf("%s has no _start, so it is not a command: call one of its exported functions with --invoke NAME (it exports: %s)", args[0], listNames(names))}
			}
			if invoke != "" {
				if err := hasExport(pl, args[0], invoke); err != nil {
					return err
				}
			}
			cfg := host.Config{Args: args, Env: env, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr, DeterministicClocks: detClk}
			if m != nil {
				cfg.Vars, cfg.Name = m.Vars, m.Name
			}
			// The guest's aclAppLog records (its stdout and stderr stay
			// the process's own).
			if cfg.Logger, err = newLogger(stderr, "text", logLvl); err != nil {
				return &exitError{exitHost, err}
			}
			if invoke == "" {
				res, err := pl.Run(ctx, cfg)
				if stats {
					printStats(stderr, res.Stats)
				}
				if err != nil {
					return classify(err)
				}
				return guestExit(res.ExitCode, res.Message)
			}
			return invokeExport(ctx, cmd.OutOrStdout(), stderr, pl, cfg, invoke, args[1:], stats)
		},
	}
	f.register(c)
	c.Flags().StringVar(&invoke, "invoke", "", "call this export of a reactor module instead of _start")
	c.Flags().BoolVar(&trace, "trace", false, "print one line per host call to stderr: function, arguments, result, error message")
	c.Flags().BoolVar(&stats, "stats", false, "print a table of calls, errors and bytes per function to stderr after the run")
	c.Flags().StringArrayVar(&env, "env", nil, "KEY=VALUE environment variable for the guest (repeatable; none by default)")
	c.Flags().BoolVar(&detClk, "deterministic-clocks", false, "give the guest fake clocks (fixed wall clock, 1 ms per monotonic reading, sleeps return at once) so runs repeat exactly (wazero only)")
	c.Flags().StringVar(&logLvl, "log-level", "info", "lowest level of the guest's aclAppLog records printed to stderr: debug, info, warn or error")
	c.Flags().StringVar(&man, "manifest", "", "run the plugin a manifest file (YAML) describes: module, policy, args, env, config")
	otel = addOtel(c.Flags())
	c.Flags().SetInterspersed(false) // flags after the module belong to the guest
	return c
}

// policyFlags are the flags a manifest's policy replaces.
var policyFlags = []string{"device-map", "device-memory", "pinned-memory", "max-allocations", "max-registrations", "max-streams", "max-events", "max-queued", "max-batch-entries", "memory-pages", "timeout", "allow", "deny", "allow-init-config", "refuse-init-config", "model", "allow-guest-models", "mount", "max-file-read-bytes", "max-file-write-bytes", "max-open-files", "max-mount-bytes", "kernels"}

// manifestRun loads the manifest of run --manifest.
func manifestRun(cmd *cobra.Command, path string) (*host.Manifest, error) {
	for _, name := range policyFlags {
		if cmd.Flags().Changed(name) {
			return nil, &exitError{exitHost, fmt.Errorf("--%s: with --manifest the policy comes from the manifest: set it there", name)}
		}
	}
	m, err := host.LoadManifest(path)
	if err != nil {
		return nil, &exitError{exitHost, err}
	}
	return m, nil
}

func invokeExport(ctx context.Context, stdout, stderr io.Writer, pl *host.Plugin, cfg host.Config, name string, args []string, stats bool) error {
	vals := make([]uint64, len(args))
	for i, a := range args {
		v, err := strconv.ParseInt(a, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(a, 0, 64)
			if uerr != nil {
				return &exitError{exitHost, fmt.Errorf("--invoke %s: argument %q is not an integer", name, a)}
			}
			v = int64(u)
		}
		vals[i] = uint64(v)
	}
	inst, err := pl.Instantiate(ctx, cfg)
	if err != nil {
		return classify(err)
	}
	res, err := inst.Call(ctx, name, vals...)
	if stats {
		printStats(stderr, inst.Session().Stats())
	}
	cerr := inst.Close(ctx)
	if err != nil {
		return classify(err)
	}
	if cerr != nil {
		return &exitError{exitHost, cerr}
	}
	strs := make([]string, len(res))
	for i, r := range res {
		strs[i] = strconv.FormatUint(r, 10)
	}
	fmt.Fprintln(stdout, strings.Join(strs, " "))
	return nil
}

// classify maps how a run ended to the documented exit codes.
func classify(err error) error {
	var ee *host.ExitError
	var ae *host.AsyncError
	switch {
	case errors.As(err, &ae): // the guest's own ending, if any, is in the message
		return &exitError{exitAsync, err}
	case errors.As(err, &ee):
		return guestExit(ee.Code, "")
	case errors.Is(err, host.ErrLoad):
		return &exitError{exitLoad, err}
	case errors.Is(err, host.ErrTimeout):
		return &exitError{exitTimeout, err}
	case errors.Is(err, host.ErrCanceled):
		return &exitError{exitInterrupted, fmt.Errorf("interrupted: %w", err)}
	case errors.Is(err, host.ErrTrap):
		return &exitError{exitTrap, err}
	}
	return &exitError{exitHost, err}
}

// listNames lists export names for a message.
func listNames(names []string) string {
	if len(names) == 0 {
		return "no functions"
	}
	return strings.Join(names, ", ")
}

func printStats(w io.Writer, st host.Stats) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "function\tcalls\terrors\tH2D\tD2H\tD2D\tH2H\tset")
	names := make([]string, 0, len(st.Funcs))
	for n := range st.Funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fs := st.Funcs[n]
		var errs []string
		for code, k := range fs.Errors {
			errs = append(errs, fmt.Sprintf("%d×%d", k, int32(code)))
		}
		sort.Strings(errs)
		e := strings.Join(errs, ",")
		if e == "" {
			e = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n", n, fs.Calls, e, fs.Bytes["H2D"], fs.Bytes["D2H"], fs.Bytes["D2D"], fs.Bytes["H2H"], fs.Set)
	}
	fmt.Fprintf(tw, "total\t\t\t%d\t%d\t%d\t%d\t%d\n", st.Bytes["H2D"], st.Bytes["D2H"], st.Bytes["D2D"], st.Bytes["H2H"], st.Set)
	tw.Flush()
	// Compute, when there was any: launches as they executed, by function.
	head := false
	for _, n := range names {
		fs := st.Funcs[n]
		if fs.Launches == 0 {
			continue
		}
		if !head {
			fmt.Fprintln(w)
			fmt.Fprintln(tw, "launch\truns\tfailed\ttime")
			head = true
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", n, fs.Launches, fs.LaunchFailures, fs.Compute)
	}
	tw.Flush()
}
