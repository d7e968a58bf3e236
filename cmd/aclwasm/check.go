package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

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
