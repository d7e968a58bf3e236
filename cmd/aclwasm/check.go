package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
)

func checkCmd() *cobra.Command {
	var f sandboxFlags
	c := &cobra.Command{
		Use:   "check [flags] plugin.wasm",
		Short: "Check a plugin's imports against the ABI and a policy without running it (exit 0 ok, 1 refused)",
		Long: `Check a plugin's imports against the ABI and the policy's --allow, --deny
and --memory-pages (and the compile limits and --compile-timeout), without running it: exit 0 when it passes, 1 when it does
not (one line per problem), 126 for a host error. No backend is loaded: a
check needs no device, and gives the same verdict on every backend.`,
		Args: needModule(true),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := context.Background()
			if err := f.checkNames(); err != nil {
				return err
			}
			wasm, err := os.ReadFile(args[0])
			if err != nil {
				return &exitError{exitHost, err}
			}
			if f.memoryPages < 1 {
				return &exitError{exitHost, fmt.Errorf("--memory-pages %d: want at least 1", f.memoryPages)}
			}
			if err := f.checkCompileTimeout(); err != nil {
				return &exitError{exitHost, err}
			}
			p := host.Policy{Allow: f.allow, Deny: f.deny, MemoryPages: f.memoryPages, CompileTimeout: f.compileTimeout}
			opts := []host.Option{host.WithEngine(f.engine)}
			if f.cacheDir != "" {
				opts = append(opts, host.WithCacheDir(f.cacheDir))
			}
			// The runtime's own simulated device, never used: Check runs no
			// guest code.
			rt, err := host.NewRuntime(ctx, opts...)
			if err != nil {
				return &exitError{exitHost, err}
			}
			defer rt.Close(ctx)
			probs, err := rt.Check(ctx, wasm, p)
			if err != nil {
				return &exitError{exitHost, err}
			}
			out := cmd.OutOrStdout()
			if len(probs) == 0 {
				fmt.Fprintf(out, "%s: ok\n", args[0])
				return nil
			}
			for _, pr := range probs {
				fmt.Fprintf(out, "%s: %s\n", args[0], pr)
			}
			return &exitError{1, errors.New("refused")}
		},
	}
	f.registerCheck(c)
	return c
}

// checkNames refuses a name in --allow or --deny that is no function of
// the ABI, suggesting the closest one, so that a typo does not leave a
// function allowed that was meant to be denied (the policy refuses it
// too, without the suggestion).
func (f *sandboxFlags) checkNames() error {
	for _, l := range []struct {
		flag  string
		names []string
	}{{"allow", f.allow}, {"deny", f.deny}} {
		for _, n := range l.names {
			if abi.Lookup(n) != nil {
				continue
			}
			msg := fmt.Sprintf("--%s %q: not a function of ABI v%d", l.flag, n, abi.Version)
			if s := closestName(n); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return &exitError{exitHost, errors.New(msg + "; aclwasm abi lists them")}
		}
	}
	return nil
}

// closestName returns the ABI function name nearest to name, ignoring
// case, if it is near enough to be the one meant: at most a third of its
// letters away (and at least 2), or "" when none is.
func closestName(name string) string {
	low := strings.ToLower(name)
	best, bestD := "", -1
	for _, fn := range abi.Funcs {
		d := editDistance(low, strings.ToLower(fn.Name))
		if bestD < 0 || d < bestD {
			best, bestD = fn.Name, d
		}
	}
	if bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, over bytes (the
// ABI's names are ASCII), in one row of memory.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0] // the diagonal: row i-1, column j-1
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			prev, row[j] = row[j], min(row[j]+1, row[j-1]+1, prev+cost)
		}
	}
	return row[len(b)]
}
