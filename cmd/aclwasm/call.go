package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/host"
)

// exitOutput is call's exit code for output beyond --max-output (or the
// policy's memory limit): a host limit, like the host errors it shares 126
// with, since the output is incomplete and is not printed.
const exitOutput = exitHost

func callCmd() *cobra.Command {
	var (
		f         sandboxFlags
		input     string
		inputFile string
		maxOutput string
		trace     bool
		stats     bool
		env       []string
		detClk    bool
		man       string
		logLvl    string
	)
	c := &cobra.Command{
		Use:   "call [flags] plugin.wasm EXPORT | call [flags] --manifest plugin.yaml EXPORT",
		Short: "Call an export of a reactor with input bytes and print its output bytes (the CallBytes convention of module aclwasm)",
		Long: `Call an export of a reactor plugin as host.Instance.CallBytes and
aclwasm serve do: _initialize runs if exported, then EXPORT is called with
the input (--input, or --input-file, "-" for stdin; empty by default),
which the guest reads with aclwasm.input_read; what it writes with
aclwasm.output_write is printed to stdout, unchanged. The guest's own
stdout and stderr (WASI) go to stderr, so that stdout carries the output
alone, and its stdin is empty. With --manifest, the module, its policy,
argv, environment and config come from a manifest file, and the policy
flags may not be given.

Exit codes: the export's status (0 for success or for an export that
returns nothing; 255 for a status outside 1..255); the output written
before a nonzero status is printed, and the status, with the guest's last
error message, on stderr. Otherwise as run: the guest's exit code if it
exits; 124 timeout; 125 load refused; 126 host error (bad flag, no such
export, backend not loadable) and output beyond --max-output (then nothing
is printed); 130 interrupted; 134 trap; 123 with --check-async, when the
export made asynchronous mistakes (each listed on stderr; the output is
printed).`,
		Args: func(c *cobra.Command, args []string) error {
			if man != "" && len(args) == 1 || man == "" && len(args) == 2 {
				return nil
			}
			return &exitError{exitHost, fmt.Errorf("usage: %s", c.UseLine())}
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			export := args[len(args)-1]
			var m *host.Manifest
			if man != "" {
				var err error
				if m, err = manifestRun(cmd, man); err != nil {
					return err
				}
				env = append(m.Config().Env, env...)
			}
			for _, kv := range env {
				if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
					return &exitError{exitHost, fmt.Errorf("--env %q: want KEY=VALUE with a nonempty KEY", kv)}
				}
			}
			in, err := callInput(cmd, input, inputFile)
			if err != nil {
				return &exitError{exitHost, err}
			}
			var bopts []host.BytesOption
			if maxOutput != "" {
				n, err := parseBytes(maxOutput)
				if err != nil || n == 0 || n > 1<<62 {
					return &exitError{exitHost, fmt.Errorf("--max-output %q: want a byte count above 0 (like 4096, 64KiB, 1GiB)", maxOutput)}
				}
				bopts = append(bopts, host.MaxOutput(int64(n)))
			}
			stderr := cmd.ErrOrStderr()
			var opts []host.Option
			if trace {
				opts = append(opts, host.WithTrace(func(r host.CallRecord) { fmt.Fprintln(stderr, "trace:", r) }))
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var path string
			if m != nil {
				path = m.Path
			} else {
				path = args[0]
			}
			pl, done, err := f.loadPlugin(ctx, m, path, stats, stderr, opts...)
			if err != nil {
				return err
			}
			defer done()
			if err := hasExport(pl, path, export); err != nil {
				return err
			}
			cfg := host.Config{Args: []string{path}, Env: env, Stdout: stderr, Stderr: stderr, DeterministicClocks: detClk}
			if m != nil {
				cfg.Args, cfg.Vars, cfg.Name = m.Config().Args, m.Vars, m.Name
			}
			if cfg.Logger, err = newLogger(stderr, "text", logLvl); err != nil {
				return &exitError{exitHost, err}
			}
			inst, err := pl.Instantiate(ctx, cfg)
			if err != nil {
				return classify(err)
			}
			out, err := inst.CallBytes(ctx, export, in, bopts...)
			if stats {
				printStats(stderr, inst.Session().Stats())
			}
			cerr := inst.Close(ctx)
			return callResult(cmd.OutOrStdout(), out, err, cerr)
		},
	}
	f.register(c)
	c.Flags().StringVar(&input, "input", "", "the input bytes, as this string")
	c.Flags().StringVar(&inputFile, "input-file", "", `read the input bytes from this file ("-": stdin)`)
	c.Flags().StringVar(&maxOutput, "max-output", "", "most output bytes the export may write, like 64KiB (default: the policy's memory limit); beyond it the call fails and nothing is printed")
	c.Flags().BoolVar(&trace, "trace", false, "print one line per host call to stderr: function, arguments, result, error message")
	c.Flags().BoolVar(&stats, "stats", false, "print a table of calls, errors and bytes per function to stderr after the call")
	c.Flags().StringArrayVar(&env, "env", nil, "KEY=VALUE environment variable for the guest (repeatable; none by default)")
	c.Flags().BoolVar(&detClk, "deterministic-clocks", false, "give the guest fake clocks (fixed wall clock, 1 ms per monotonic reading, sleeps return at once) so calls repeat exactly (wazero only)")
	c.Flags().StringVar(&logLvl, "log-level", "info", "lowest level of the guest's aclAppLog records printed to stderr: debug, info, warn or error")
	c.Flags().StringVar(&man, "manifest", "", "call the plugin a manifest file (YAML) describes: module, policy, args, env, config")
	c.MarkFlagsMutuallyExclusive("input", "input-file")
	_ = c.MarkFlagFilename("input-file")
	_ = c.MarkFlagFilename("manifest", "yaml", "yml")
	return c
}

// callInput is the input of call: --input, the file --input-file names
// (stdin for "-"), or nothing.
func callInput(cmd *cobra.Command, input, file string) ([]byte, error) {
	switch {
	case file == "-":
		b, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return nil, fmt.Errorf("--input-file -: reading stdin: %w", err)
		}
		return b, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--input-file: %w", err)
		}
		return b, nil
	}
	return []byte(input), nil
}

// hasExport refuses a call of a function the module does not export,
// naming those it does (a host error, 126).
func hasExport(pl *host.Plugin, path, name string) error {
	all := pl.Exports()
	entry := func(n string) bool { return n == "_start" || n == "_initialize" }
	names := slices.DeleteFunc(slices.Clone(all), entry)
	switch {
	case slices.Contains(names, name):
		return nil
	case entry(name) && slices.Contains(all, name):
		// WASI's entry points run once, by the host: _start is a
		// command's whole run, _initialize a reactor's setup.
		return &exitError{exitHost, fmt.Errorf("%s: %s is the module's WASI entry point, which the host runs itself (aclwasm run for _start): call one of its functions: %s", path, name, listNames(names))}
	}
	if len(names) == 0 && slices.Contains(all, "_start") {
		// A command: its whole run is _start, which call never runs.
		return &exitError{exitHost, fmt.Errorf("%s is a WASI command: it exports only _start, its whole run, and no function to call: run it with aclwasm run, or build it as a reactor that exports %q", path, name)}
	}
	return &exitError{exitHost, fmt.Errorf("%s exports no function %q: it exports %s", path, name, listNames(names))}
}

// callResult prints a bytes call's output and maps how it ended to call's
// exit codes: the export's status, or those of run (classify).
func callResult(stdout io.Writer, out []byte, err, closeErr error) error {
	var se *host.StatusError
	var ae *host.AsyncError
	switch {
	case errors.As(err, &ae) && !errors.Is(err, host.ErrOutputLimit):
		// The output is printed; the mistakes decide the exit code.
		if _, werr := stdout.Write(out); werr != nil {
			return &exitError{exitHost, fmt.Errorf("writing the output: %w", werr)}
		}
		return &exitError{exitAsync, err}
	case errors.Is(err, host.ErrOutputLimit):
		// The export's status, joined after the limit, is a consequence.
		return &exitError{exitOutput, fmt.Errorf("%s; the %d bytes written before are not printed (--max-output sets the limit)", firstLine(err), len(out))}
	case errors.As(err, &se):
		if _, werr := stdout.Write(out); werr != nil {
			return &exitError{exitHost, fmt.Errorf("writing the output: %w", werr)}
		}
		return statusExit(se)
	case err != nil:
		return classify(err)
	}
	if _, werr := stdout.Write(out); werr != nil {
		return &exitError{exitHost, fmt.Errorf("writing the output: %w", werr)}
	}
	if closeErr != nil {
		return &exitError{exitHost, closeErr}
	}
	return nil
}

// statusExit is how call ends for an export that returned a nonzero
// status: with that status as the exit code (255 for one an exit status
// cannot hold: negative, or above 255), saying so on stderr.
func statusExit(se *host.StatusError) error {
	s := se.Status
	switch {
	case s < 0 || s > 255:
		return &exitError{255, fmt.Errorf("%w, which an exit status cannot hold: exiting 255", se)}
	}
	if m, ok := hostCodes[uint32(s)]; ok {
		return &exitError{int(s), fmt.Errorf("%w: the export's own status, not the host's %s", se, m)}
	}
	return &exitError{int(s), se}
}
