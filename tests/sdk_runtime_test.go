package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// runtimeGuests run the runtime functions beyond copies through each SDK's API (run mode,
// contexts, 32-bit memsets, event resets, stop-on-failure streams,
// aclAppLog): each checks the results itself and fails its run on a
// mismatch; this test checks how the run ended and the log records the
// guest made through aclAppLog, which reach the embedder's slog logger.
var runtimeGuests = []struct {
	name, stdout string
	fn, file     string // the func and file attributes of the records
}{
	{"rust-runtime", "runtime: ok\n", "runtime", "examples/runtime.rs"},
	{"go-runtime", "runtime: ok\n", "main.run", "examples/runtime/main.go"},
	{"as-runtime", "", "main", "examples/runtime.ts"},
}

func TestSDKRuntime(t *testing.T) {
	for _, g := range runtimeGuests {
		t.Run(g.name, func(t *testing.T) {
			sb := newSandbox(t)
			base := sb.freeMem(t)
			pl := sb.load(t, g.name, host.Policy{})
			var logs, stdout, stderr bytes.Buffer
			res, err := pl.Run(context.Background(), host.Config{
				Args: []string{g.name}, Stdout: &stdout, Stderr: &stderr,
				Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			require.NoError(t, err, "stderr:\n%s\nlogs:\n%s", stderr.String(), logs.String())
			require.Zero(t, res.ExitCode, "stderr:\n%s\nlogs:\n%s", stderr.String(), logs.String())
			require.Equal(t, g.stdout, stdout.String())
			require.Empty(t, stderr.String())
			require.Equal(t, base, sb.freeMem(t))

			var got []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var r struct {
					Level, Msg, Plugin, Func, File string
					Session, Line                  uint64
				}
				require.NoError(t, json.Unmarshal([]byte(line), &r), line)
				require.Equal(t, g.name, r.Plugin, line)
				require.NotZero(t, r.Session, line)
				require.Equal(t, g.fn, r.Func, line)
				require.True(t, strings.HasSuffix(r.File, g.file), "file %q, want one ending in %s", r.File, g.file)
				require.NotZero(t, r.Line, line)
				msg := r.Msg
				if strings.HasPrefix(msg, "expected: ") {
					msg = "expected: ..."
				}
				got = append(got, fmt.Sprintf("%s %s", r.Level, msg))
			}
			want := []string{"DEBUG starting", "INFO 32-bit memsets ok", "WARN expected: ..."}
			if g.name == "as-runtime" {
				want = append(want, "INFO runtime: ok")
			}
			require.Equal(t, want, got, "the aclAppLog records, in order")
		})
	}
}
