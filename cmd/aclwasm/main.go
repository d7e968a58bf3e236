// Command aclwasm runs WebAssembly plugins that use the ACL memory-copy API
// in a sandbox, serves a directory of them over HTTP, checks them against
// the guest ABI, prints the ABI, and measures what the sandbox costs.
//
//	aclwasm run [flags] plugin.wasm [args...]     (or --manifest plugin.yaml)
//	aclwasm call [flags] plugin.wasm EXPORT       (or --manifest plugin.yaml)
//	aclwasm serve [flags] DIR
//	aclwasm check [flags] plugin.wasm
//	aclwasm abi [--json]
//	aclwasm bench [flags]
//	aclwasm push [flags] plugin.wasm oci://REGISTRY/REPO:TAG
//	aclwasm pull [flags] oci://REGISTRY/REPO:TAG|@sha256:DIGEST
//
// Wherever a plugin.wasm is taken (run, call), an oci:// reference may
// stand for it: the plugin is pulled from the registry (docs/OCI.md).
//
// Exit codes of run: the guest's own exit code when it exits; 124 when the
// timeout stopped it; 125 when the module was refused at load time; 126 for
// a host error or a usage error (unknown command or flag, bad flag value,
// backend unavailable); 130 when SIGINT or SIGTERM stopped it (the session
// is released and --stats printed first); 134 when the guest trapped (the
// reason, then the guest's backtrace). A guest exit code above 255, which
// an exit status cannot hold, gives 255. Each code but the guest's own
// comes with a reason on stderr, and so does a guest exit code that equals
// one of the host's (123, 124, 125, 126, 130, 134), saying it is the guest's.
// With --check-async, a run whose guest made asynchronous mistakes exits
// 123 whatever its own exit code, listing each mistake on stderr with the
// call that queued the copy.
// Exit codes of call: the export's status (0 for success or an export that
// returns nothing; 255 for a status outside 1..255, and a status equal to
// one of the host's codes comes with a line saying it is the export's),
// otherwise those of run; output beyond --max-output gives 126 and prints
// nothing.
// check exits 0 when the module passes, 1 when it does not, and 126 for a
// host or usage error.
//
// aclwasm --version prints the module version and VCS revision;
// aclwasm completion bash|zsh|fish|powershell prints a completion script.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/host"
)

// Exit codes besides the guest's own.
const (
	exitAsync       = 123
	exitTimeout     = 124
	exitLoad        = 125
	exitHost        = 126
	exitInterrupted = 130
	exitTrap        = 134
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
	root.Version = version()
	root.SetVersionTemplate("aclwasm {{.Version}}\n")
	// A bad flag is a usage error (126), for every command, as is an
	// unknown command or a wrong argument count (see below).
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{exitHost, err} })
	root.AddCommand(runCmd(), callCmd(), checkCmd(), abiCmd())
	root.AddCommand(serveCmd())
	root.AddCommand(benchCmd())
	root.AddCommand(pushCmd(), pullCmd())
	err := root.Execute()
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "aclwasm:", firstLine(ee.err))
			printBacktrace(os.Stderr, ee.err)
			printAsync(os.Stderr, ee.err)
		}
		os.Exit(ee.code)
	default: // cobra's usage errors: unknown command, arguments
		fmt.Fprintln(os.Stderr, "aclwasm:", firstLine(err))
		os.Exit(exitHost)
	}
}

// version is the module's version and the VCS revision it was built from,
// as the Go toolchain records them in the binary.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := bi.Main.Version
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (revision " + rev
		if at != "" {
			v += " of " + at
		}
		v += dirty + ")"
	}
	return v + " " + bi.GoVersion
}

// firstLine is the one-line reason the exit codes come with.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// printAsync writes the findings of --check-async, one per line, after
// the reason (which, for a guest that trapped on what it read, is the
// trap's).
func printAsync(w io.Writer, err error) {
	var ae *host.AsyncError
	if !errors.As(err, &ae) {
		return
	}
	if firstLine(err) != firstLine(ae) {
		fmt.Fprintln(w, firstLine(ae))
	}
	for _, f := range ae.Findings {
		fmt.Fprintf(w, "\t%s: %s: %s\n", f.Kind, f.Call, f.Detail)
	}
}

// printBacktrace writes the guest's backtrace of a trap, innermost call
// first, one line per frame and one per source line:
//
//	at inner (trap.c:2:78)
//	at $3
func printBacktrace(w io.Writer, err error) {
	var te *host.TrapError
	if !errors.As(err, &te) {
		return
	}
	for _, f := range te.Frames {
		switch len(f.Source) {
		case 0:
			fmt.Fprintf(w, "  at %s\n", f.Func)
		default:
			fmt.Fprintf(w, "  at %s (%s)\n", f.Func, f.Source[0])
			for _, s := range f.Source[1:] { // the calls inlined into it
				fmt.Fprintf(w, "     inlined in %s\n", s)
			}
		}
	}
	if te.Truncated {
		fmt.Fprintln(w, "  ... (outer frames left out)")
	}
}

// needModule checks a command's positional arguments: the module, and
// for run the guest's arguments after it. Missing, it is a host error (126).
func needModule(exactlyOne bool) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 0 || exactlyOne && len(args) > 1 {
			return &exitError{exitHost, fmt.Errorf("usage: %s", c.UseLine())}
		}
		return nil
	}
}

// guestExit is how the process ends for a guest that exited with code: with
// the same code, or, for a code a process exit status cannot hold (the OS
// keeps its low 8 bits, so 256 would read as success), with 255 and a reason.
func guestExit(code uint32, reason string) error {
	if reason != "" {
		reason = " (the guest says: " + reason + ")"
	}
	switch {
	case code == 0:
		return nil
	case code > 255:
		return &exitError{255, fmt.Errorf("guest exited with code %d%s, which an exit status cannot hold: exiting 255", code, reason)}
	}
	if m, ok := hostCodes[code]; ok {
		return &exitError{int(code), fmt.Errorf("guest exited with code %d%s: the guest's own code, not the host's %s", code, reason, m)}
	}
	if reason != "" {
		return &exitError{int(code), fmt.Errorf("guest exited with code %d%s", code, reason)}
	}
	return &exitError{code: int(code)}
}

// hostCodes are the exit codes the host gives, by meaning.
var hostCodes = map[uint32]string{
	exitAsync:       "check-async findings (123)",
	exitTimeout:     "timeout (124)",
	exitLoad:        "load refusal (125)",
	exitHost:        "host error (126)",
	exitInterrupted: "interruption (130)",
	exitTrap:        "trap (134)",
}
