// Command aclwasm runs WebAssembly plugins that use the ACL memory-copy API
// in a sandbox, checks them against the guest ABI, and prints the ABI.
//
//	aclwasm run [flags] plugin.wasm [args...]
//	aclwasm check [flags] plugin.wasm
//	aclwasm abi [--json]
//
// Exit codes of run: the guest's own exit code when it exits; 124 when the
// timeout stopped it; 125 when the module was refused at load time; 126 for
// a host error (bad flags, backend unavailable); 134 when the guest
// trapped. check exits 0 when the module passes and 1 when it does not.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes besides the guest's own.
const (
	exitTimeout = 124
	exitLoad    = 125
	exitHost    = 126
	exitTrap    = 134
)

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	root := &cobra.Command{
		Use:           "aclwasm",
		Short:         "Run untrusted WebAssembly plugins that move accelerator data through the ACL memcpy API",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd(), checkCmd(), abiCmd())
	err := root.Execute()
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "aclwasm:", firstLine(ee.err))
		}
		os.Exit(ee.code)
	default:
		fmt.Fprintln(os.Stderr, "aclwasm:", firstLine(err))
		os.Exit(2)
	}
}

// firstLine is the one-line reason the exit codes come with: an engine's
// trap message goes on with a wasm stack trace, which is left out.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
