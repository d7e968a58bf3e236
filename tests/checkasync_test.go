package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// TestCheckAsyncSDKs checks, in each SDK language, that the copy example
// run the right way passes in the checking mode, and that the same
// example reading its pinned buffer without synchronizing the stream
// first (--skip-sync; AssemblyScript's copyWithoutSync export) fails with
// an *host.AsyncError naming the copy it did not wait for.
func TestCheckAsyncSDKs(t *testing.T) {
	s := newSandbox(t)
	ctx := context.Background()
	for _, name := range []string{"c-copy", "rust-copy", "go-copy", "as-copy"} {
		t.Run(name, func(t *testing.T) {
			pl := s.load(t, name, host.Policy{CheckAsync: true})
			mustRun(t, pl, name)

			var err error
			if name == "as-copy" {
				inst, ierr := pl.Instantiate(ctx, host.Config{})
				require.NoError(t, ierr)
				_, err = inst.Call(ctx, "copyWithoutSync")
				require.ErrorIs(t, err, host.ErrTrap, "the guest read the poison, so its check failed")
				require.NoError(t, inst.Close(ctx))
			} else {
				o := run(ctx, pl, name, "--skip-sync")
				err = o.err
				if name == "rust-copy" {
					require.ErrorIs(t, err, host.ErrTrap, "%v", o) // its assert! aborts
				} else {
					require.Equal(t, uint32(1), o.res.ExitCode, "%v", o)
					require.Contains(t, o.stderr, "memset result did not arrive in pinned memory")
				}
			}
			var ae *host.AsyncError
			require.ErrorAs(t, err, &ae)
			// The copy back into the pinned buffer (Rust's example also
			// copies it to the device first, on the same stream: that copy
			// was not waited for either).
			found := false
			for _, f := range ae.Findings {
				found = found || f.Kind == host.AsyncUnwaited && strings.HasPrefix(f.Call, "aclrtMemcpyAsync(") && strings.Contains(f.Call, "kind=ACL_MEMCPY_DEVICE_TO_HOST")
			}
			require.True(t, found, "%v", err)
			require.Contains(t, err.Error(), "never waited for: aclrtMemcpyAsync(dst=0x")

		})
	}
}
