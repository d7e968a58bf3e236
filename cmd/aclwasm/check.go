package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
)

func checkCmd() *cobra.Command {
	var (
		f       sandboxFlags
		imports bool
		asJSON  bool
	)
	c := &cobra.Command{
		Use:   "check [flags] plugin.wasm",
		Short: "Check a plugin's imports against the ABI and a policy without running it (exit 0 ok, 1 refused)",
		Long: `Check a plugin's imports against the ABI and the policy's --allow, --deny
and --memory-pages (and the compile limits and --compile-timeout), without running it: exit 0 when it passes, 1 when it does
not (one line per problem), 126 for a host error. No backend is loaded: a
check needs no device, and gives the same verdict on every backend.

--imports lists the module's imports instead, one line each, with tabs
between the fields: module, name, signature (or the kind of an import that
is no function) and status: ok (a function of the ABI the policy allows),
WASI preview1, host function, or why the host refuses it (denied by the
policy, not a function of ABI v1, signature mismatch: expects ...,
unknown module, ...). The exit status is check's; a problem that is no
import's (the memory size, ...) goes to stderr. --json prints the verdict,
the problems and the imports as one JSON document.`,
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
			if err := f.checkKernelGrants(f.kernels); err != nil {
				return &exitError{exitHost, err}
			}
			p := host.Policy{Allow: f.allow, Deny: f.deny, MemoryPages: f.memoryPages, CompileTimeout: f.compileTimeout, Kernels: f.kernels}
			kopts, err := f.kernelOptions()
			if err != nil {
				return &exitError{exitHost, err}
			}
			opts := append([]host.Option{host.WithEngine(f.engine)}, kopts...)
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
			if imports || asJSON {
				sts, err := rt.Imports(ctx, wasm, p)
				var le *host.LoadError
				if err != nil && !errors.As(err, &le) {
					return &exitError{exitHost, err}
				}
				if asJSON {
					err = writeCheckJSON(out, args[0], probs, sts)
				} else {
					err = writeImports(out, cmd.ErrOrStderr(), args[0], probs, sts)
				}
				if err != nil {
					return &exitError{exitHost, err}
				}
				if len(probs) > 0 {
					return &exitError{1, errors.New("refused")}
				}
				return nil
			}
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
	c.Flags().BoolVar(&imports, "imports", false, "list the module's imports with their status (module, name, signature, status; tab-separated)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the verdict, problems and imports as JSON")
	return c
}

// writeImports writes one line per import to out, its fields separated by
// tabs, and to errw each problem of probs that no import's line shows.
func writeImports(out, errw io.Writer, path string, probs []string, sts []host.ImportStatus) error {
	shown := map[string]bool{}
	for _, st := range sts {
		typ := st.Signature
		if st.Kind != "function" {
			typ = st.Kind
		}
		if _, err := fmt.Fprintf(out, "%s\t%s\t%s\t%s\n", st.Module, st.Name, typ, st.Status); err != nil {
			return err
		}
		shown[st.Problem] = true
	}
	for _, pr := range probs {
		if !shown[pr] {
			fmt.Fprintf(errw, "%s: %s\n", path, pr)
		}
	}
	return nil
}

// checkImport is an import in check's JSON.
type checkImport struct {
	Module    string `json:"module"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature,omitempty"`
	Status    string `json:"status"`
	OK        bool   `json:"ok"`
	Problem   string `json:"problem,omitempty"`
}

// writeCheckJSON writes check's verdict as JSON: the file, ok, every
// problem (as check prints them) and the imports (as --imports).
func writeCheckJSON(w io.Writer, path string, probs []string, sts []host.ImportStatus) error {
	imps := make([]checkImport, len(sts))
	for i, st := range sts {
		imps[i] = checkImport{st.Module, st.Name, st.Kind, st.Signature, st.Status, st.Problem == "", st.Problem}
	}
	if probs == nil {
		probs = []string{}
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		File     string        `json:"file"`
		OK       bool          `json:"ok"`
		Problems []string      `json:"problems"`
		Imports  []checkImport `json:"imports"`
	}{path, len(probs) == 0, probs, imps})
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
