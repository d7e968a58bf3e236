package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

func checkCmd() *cobra.Command {
	var f sandboxFlags
	c := &cobra.Command{
		Use:   "check [flags] plugin.wasm",
		Short: "Check a plugin's imports against the ABI and a policy without running it (exit 0 ok, 1 refused)",
		Args:  needModule(true),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := context.Background()
			wasm, p, rt, done, err := f.sandbox(ctx, args[0])
			if err != nil {
				return err
			}
			defer done()
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
	f.register(c)
	return c
}
